"""RB101 names the members placed for cache, sees existing cache-line groups, and asks for a local comment.

Kinds from a fresh reading of whole-mirror drafts (each with its example patches in rules/examples/RB101/):

* (a) The changelog names the member placed for cache ("we want ->done_list in the first cacheline; swap it
  with ->parent"): the finding names done_list, not parent, which only moved out of its way. A member the
  changelog moves "only to make room" gets no question.
* (b) A member moved within (or into) an existing ``struct { ... } ____cacheline_aligned_in_smp;`` group: the
  groups document the layout.
* (c) A member placed into one cache line of a big struct not ordered as a whole: the draft asks for a short
  comment at the member, not for a whole-struct "cache-line ordered" comment; a member marked
  ``/* will die */`` needs no layout comment.
* (d) When the changelog says why the members are placed ("to retain needing only cacheline 0 and 1 for
  non-polled opcodes"), the draft quotes that back and asks for it at the members: asking "which cache line,
  and what they share it with?" asks for what the author already wrote (a fresh reader's EDIT verdict).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from reviewbot.models import Severity
from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.rule import RuleContext
from reviewbot.rules import rb101_struct_reorder as rb101

EXAMPLES = Path(rb101.__file__).resolve().parent / "examples" / "RB101"


def _findings(name: str):
    path = EXAMPLES / name
    patch = parse_patch(parse_rfc822(path.read_bytes(), str(path)))
    return patch, list(rb101.check(patch, RuleContext(strict=True)))


def test_the_member_placed_for_cache_is_named_not_the_displaced_one() -> None:
    _, (f,) = _findings("bad-names-member-placed-for-cache.patch")
    assert f.details["members"] == ["done_list"]
    assert f.details["placed"] is True
    assert f.severity is Severity.WARNING
    assert f.line == 15  # done_list's line in the new file, not parent's


def test_a_member_moved_only_to_make_room_gets_no_question() -> None:
    assert _findings("good-moved-to-make-room.patch")[1] == []


def test_a_member_moved_within_an_existing_aligned_group_is_documented() -> None:
    assert _findings("good-moved-within-aligned-group.patch")[1] == []


def test_a_member_moved_out_of_the_aligned_groups_still_asks() -> None:
    _, (f,) = _findings("bad-moved-out-of-aligned-group.patch")
    assert f.details["members"] == ["sqes"]
    assert f.details["placed"] is False


def test_a_member_marked_will_die_needs_no_layout_comment() -> None:
    assert _findings("good-member-that-will-die.patch")[1] == []


def test_a_member_placed_in_a_big_struct_gets_a_local_comment_request() -> None:
    patch, findings = _findings("bad-member-placed-in-big-struct.patch")
    assert [f.details["members"] for f in findings] == [["stall_flags"]]
    for text in (rb101.reply_point(findings, patch), rb101.reply(findings, patch)):
        assert "short comment at it (or a marker at the cache-line boundary) saying why it sits there" in text
        assert "stall_flags" in text and "struct task_struct" in text
        assert "cache-line ordered" not in text


def test_placed_members_with_a_stated_reason_get_it_quoted_back() -> None:
    patch, findings = _findings("bad-placed-members-reason-quoted.patch")
    assert [(f.details["members"], f.details["placed"]) for f in findings] == [(["nr_retries"], True)]
    for text in (rb101.reply_point(findings, patch), rb101.reply(findings, patch)):
        assert text.startswith(
            'The changelog places nr_retries "to keep the submission path within the first cache line", but '
            "nothing at it in struct foo_request says so."
        )
        assert "which cache line" not in text  # the changelog said it


def test_a_whole_struct_reorder_still_asks_for_a_struct_comment() -> None:
    # the struct file model review: several members regrouped, a comment on the struct's layout
    patch, (f,) = _findings("bad-randomize-layout.patch")
    assert f.details["placed"] is False
    assert f.details["members"] == ["f_path", "f_inode", "f_op", "f_flags"]
    assert "its members are cache-line ordered" in rb101.reply_point([f], patch)


@pytest.mark.parametrize(
    ("sentence", "member", "named"),
    [
        ("We want ->comp_list in the second cacheline.", "comp_list", True),
        ("Swap the field with ->link, which is not as hot.", "link", False),  # no placement verb
        ("Put stall_flags next to in_memstall so the hook touches one cache line.", "in_memstall", False),  # anchor
        ("So swap .bd_inode with .bd_openers to move .bd_inode into the 1st cache line.", "bd_inode", True),
    ],
)
def test_placement_reads_the_verb_and_stops_at_the_anchor(sentence: str, member: str, named: bool) -> None:
    verbs = list(rb101._PLACEMENT_VERB_RE.finditer(sentence))
    placed = False
    for verb, after in zip(verbs, verbs[1:] + [None]):
        rest = sentence[verb.end() : after.start() if after else len(sentence)]
        anchor = rb101._ANCHOR_RE.search(rest)
        placed = placed or rb101._mentions(rest[: anchor.start()] if anchor else rest, member)
    assert placed is named


def test_a_plain_word_member_needs_an_arrow_or_dot() -> None:
    assert rb101._mentions("swap it with ->link", "link")
    assert not rb101._mentions("unless there is a link", "link")
    assert rb101._mentions("put psi_flags there", "psi_flags")
    assert not rb101._mentions("put xpsi_flags there", "psi_flags")


@pytest.mark.parametrize(
    ("reason", "quoted_as_the_comment"),
    [
        ("to retain needing only cacheline 0 and 1 for non-polled opcodes", True),
        ("to keep the submission path within the first cache line", True),
        ("for cacheline benefits", False),  # says no line: the question which line stays
    ],
)
def test_a_reason_that_names_the_line_is_the_comment_to_write(reason: str, quoted_as_the_comment: bool) -> None:
    text = rb101._local_comment_request("struct foo", ["bar"], reason)
    assert f'"{reason}"' in text
    assert ("which cache line it sits in" not in text) is quoted_as_the_comment


def _rb101_by_subject(mbox: bytes, strict: bool = True) -> dict[str, list[tuple[str, str, str]]]:
    from reviewbot.checking import check_messages, load_check_rules, messages_from_bytes

    rules = load_check_rules(select=("RB101",))
    run = check_messages(messages_from_bytes(mbox, "series.mbox"), rules, strict=strict)
    return {
        cp.patch.subject.title: [(f.severity.value, f.state.value, f.evidence_where) for f in cp.findings]
        for cp in run.patches
    }


def test_a_layout_comment_added_later_in_the_series_answers_the_earlier_move() -> None:
    # (e) patch 1/2 moves nr_bytes for the cache line, 2/2 adds the comment above the struct: the finding
    # stands for 1/2 but is answered (a CHECK with --strict, as numbers found in a cover letter are), and
    # the drafter says where instead of asking (a fresh reader's NO: "patch 4/4 already adds the comment")
    mbox = (EXAMPLES / "answered-by-a-later-patch-of-the-series.mbox").read_bytes()
    assert _rb101_by_subject(mbox) == {
        "foo: shrink nr_bytes of the per-CPU stock": [("CHECK", "answered", "patch 2/2 of the series")],
        "foo: cache two owners per CPU": [],
    }
    assert _rb101_by_subject(mbox, strict=False)["foo: shrink nr_bytes of the per-CPU stock"] == []
    first_alone = mbox[: mbox.index(b"\nFrom 2222") + 1]
    assert _rb101_by_subject(first_alone) == {"foo: shrink nr_bytes of the per-CPU stock": [("WARNING", "open", "")]}


def test_the_drafter_says_which_patch_adds_the_layout_comment() -> None:
    from reviewbot.models import EVIDENCE_WHERE_KEY, FindingState
    from reviewbot.respond.draft import thread_state

    patch, (f,) = _findings("bad-placed-members-reason-quoted.patch")
    answered = replace(
        f, state=FindingState.ANSWERED, details={**f.details, EVIDENCE_WHERE_KEY: "patch 4/4 of the series"}
    )
    assert thread_state(answered, patch, ()) == (
        FindingState.ANSWERED,
        "the layout comment is added by patch 4/4 of the series",
    )
