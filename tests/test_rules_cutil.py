"""reviewbot.cutil: comments, literals and struct members, line by line."""

from __future__ import annotations

import pytest

from reviewbot.cutil import comment_above, member_names, scan_line, scan_lines, starts_in_comment


@pytest.mark.parametrize(
    ("text", "code", "comment"),
    [
        ("\tsmp_wmb();", "\tsmp_wmb();", ""),
        ("\tsmp_wmb();\t/* pairs with smp_rmb() */", "\tsmp_wmb();\t ", "pairs with smp_rmb()"),
        ("\tx = 1; // see foo()", "\tx = 1; ", "see foo()"),
        ('\tpr_debug("see https://example.org/x\\n");', '\tpr_debug("");', ""),
        ('\tputs("/* not a comment */"); smp_mb();', '\tputs(""); smp_mb();', ""),
        ("\tc = '\"'; smp_mb(); // real", "\tc = ''; smp_mb(); ", "real"),
        ('\ts = "a \\" smp_mb() b";', '\ts = "";', ""),
        ("/* a */ code(); /* b */", "  code();  ", "a b"),
    ],
)
def test_scan_line(text: str, code: str, comment: str) -> None:
    scan = scan_line(text)
    assert scan.code == code
    assert scan.comment == comment
    assert scan.in_comment_after is False


def test_block_comment_state_carries_across_lines() -> None:
    scans = scan_lines(["\t/*", "\t * smp_mb() here is text", "\t */ x = 1;", "\ty = 2;"])
    assert [s.in_comment_after for s in scans] == [True, True, False, False]
    assert [s.started_in_comment for s in scans] == [False, True, True, False]
    assert "smp_mb" not in scans[1].code
    assert scans[2].code.strip() == "x = 1;"


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (["\t/* Pairs with smp_rmb() in foo(). */", "\tsmp_wmb();"], "Pairs with smp_rmb() in foo()."),
        (["\t// Pairs with smp_rmb()", "\t// in foo().", "\tsmp_wmb();"], "Pairs with smp_rmb() in foo()."),
        (
            ["\t/*", "\t * Publish the head. Pairs with", "\t * foo_space().", "\t */", "\tsmp_store_release(&h, 1);"],
            "Publish the head. Pairs with foo_space().",
        ),
        (["\t\t/* Pairs with smp_rmb() */\t\t\\", "\t\tsmp_wmb();\t\t\\"], "Pairs with smp_rmb()"),
        (["\t/* Pairs with smp_rmb() */", "\tr->kicks++;", "\tsmp_wmb();"], None),
        (['\tpr_debug("see https://example.org/foo\\n");', "\tsmp_mb();"], None),
        (["\t/* text */", "", "\tsmp_mb();"], None),
        (["\tsmp_mb();"], None),
    ],
    ids=["c89", "c99-run", "block", "macro", "two-up", "url-in-string", "blank-between", "first-line"],
)
def test_comment_above(lines: list[str], expected: str | None) -> None:
    scans = scan_lines(lines)
    assert comment_above(scans, len(lines) - 1) == expected


def test_hunk_starting_inside_a_comment() -> None:
    assert starts_in_comment(["\t * Pairs with smp_rmb() in bar().", "\t */", "\tsmp_wmb();"])
    assert starts_in_comment(["\t the rest of a sentence */", "\tsmp_wmb();"])
    assert not starts_in_comment(["\t/* whole */", "\tsmp_wmb();"])
    assert not starts_in_comment(["\tx = a * b;", "\tsmp_wmb();"])


@pytest.mark.parametrize(
    ("code", "names"),
    [
        ("\tu32 errors;", ("errors",)),
        ("\tstruct list_head\tlist;", ("list",)),
        ("\tstruct foo_inode\t*f_inode;", ("f_inode",)),
        ("\tconst struct foo_operations *f_op;", ("f_op",)),
        ("\tchar name[TASK_COMM_LEN];", ("name",)),
        ("\tunsigned int in_memstall:1;", ("in_memstall",)),
        ("\tint a, b;", ("a", "b")),
        ("\tvoid (*end_io)(struct dm_buffer *b, blk_status_t bs);", ("end_io",)),
        ("\tspinlock_t lock ____cacheline_aligned_in_smp;", ("lock",)),
        ("\tatomic_t refs __aligned(8);", ("refs",)),
        ("\treturn ret;", None),
        ("\tx = 1;", None),
        ("\tfoo(bar);", None),
        ("\ti++;", None),
        ("\tu32 errors", None),
        ("\tbreak;", None),
        ("};", None),
    ],
)
def test_member_names(code: str, names) -> None:
    assert member_names(code) == names
