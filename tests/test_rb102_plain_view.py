"""RB102 recall on lists it never saw (issue 23): each barrier's own comment must name its other side.

The labels count a barrier whose own comment says what it orders but not what it pairs with, even when the
other end of the pair is in plain view: a comment added elsewhere names this barrier or its function, the
matching acquire/release on the same object is added with a comment of its own, or the barrier is the
clear_bit_unlock() + smp_mb__after_atomic() + wake_up_bit() pattern. A reviewer reading the patch would not
ask there: the finding stays and ``details["not_asked"]`` says why, so the drafter records the skip
``not-asked`` and writes nothing. Also here: a removed ``smp_mb();`` that the hunk adds back re-indented is
kept, not the old spelling of a new ``smp_wmb()``; and an acquire whose comment names the stores it waits
for ("the stores to the zed_ops structure") names its other side. The example patches are our own.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewbot.engine import check_patch
from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.registry import load_rules
from reviewbot.respond.runner import SKIP_NOT_ASKED
from reviewbot.rule import RuleContext
from reviewbot.store import Store
from helpers import draft_fixed, load_thread

_RULES = load_rules(entry_points=False, select=["RB102"])
_RULE = _RULES[0]


def _mail(subject: str, path: str, hunks: list[tuple[str, list[str]]], n: int = 1) -> str:
    """A patch mail whose diff of ``path`` has the given (section, lines) hunks, lines starting " ", "+", "-"."""
    parts = []
    start = 10
    for section, lines in hunks:
        old = sum(1 for t in lines if t[:1] in " -")
        new = sum(1 for t in lines if t[:1] in " +")
        parts.append(f"@@ -{start},{old} +{start},{new} @@ {section}\n" + "\n".join(lines))
        start += 100
    body = "\n".join(parts)
    return (
        f"From: Ada Example <ada@example.org>\nTo: linux-zed@example.org\n"
        f"Date: Mon, 10 Mar 2025 10:0{n}:00 +0100\nMessage-ID: <zed-{n}@example.org>\n"
        f"Subject: {subject}\n\nThe change.\n\nSigned-off-by: Ada Example <ada@example.org>\n---\n"
        f"diff --git a/{path} b/{path}\nindex 1111111..2222222 100644\n--- a/{path}\n+++ b/{path}\n"
        f"{body}\n-- \n2.43.0\n"
    )


def _check(raw: str) -> list:
    patch = parse_patch(parse_rfc822(raw.encode(), "test mail"))
    return list(check_patch(patch, _RULES, RuleContext(strict=True)).findings)


# the release says what it orders; the acquire's "Pairs with" names the release's function
RELEASE_NAMED_BY_ACQUIRE = _mail(
    "[PATCH] zed: publish the mode without the lock",
    "drivers/zed/mode.c",
    [
        (
            "struct zed {",
            [
                " static void zed_enter(struct zed *zd)",
                " {",
                "+\t/* Store zd->armed before zd->mode. */",
                "+\tsmp_store_release(&zd->mode, ZED_RUNNING);",
                " }",
            ],
        ),
        (
            "static void zed_enter(struct zed *zd)",
            [
                " static bool zed_armed(struct zed *zd)",
                " {",
                "+\t/* zd->armed must be read after zd->mode. Pairs with smp_store_release in zed_enter. */",
                "+\tif (smp_load_acquire(&zd->mode) != ZED_RUNNING)",
                "+\t\treturn false;",
                " \treturn zd->armed;",
                " }",
            ],
        ),
    ],
)


def test_a_release_named_only_by_its_acquire_is_a_finding_not_asked() -> None:
    [f] = _check(RELEASE_NAMED_BY_ACQUIRE)
    assert (f.line, f.details["barrier"], f.details["problem"]) == (13, "smp_store_release", "comment-without-pairing")
    assert f.severity.value == "WARNING"
    assert f.not_asked == (
        "the smp_load_acquire() in zed_armed says it pairs with zed_enter, and this smp_store_release() says "
        "why it is there: the pair is in plain view"
    )


def test_without_a_comment_of_its_own_the_release_is_still_asked() -> None:
    raw = RELEASE_NAMED_BY_ACQUIRE.replace("+\t/* Store zd->armed before zd->mode. */\n", "").replace(
        "@@ -10,3 +10,5 @@", "@@ -10,3 +10,4 @@"
    )
    [f] = _check(raw)
    assert f.details["problem"] == "no-comment" and f.not_asked == ""
    assert f.details["told"]["function"] == "zed_armed"  # the draft names that side


# a loop body wrapped in a new loop: its two smp_mb() come back re-indented, the smp_wmb()/smp_rmb() are new
REINDENTED_AND_NEW = _mail(
    "[PATCH] zed: call the handlers of every queued request",
    "drivers/zed/call.c",
    [
        (
            "struct zed_call {",
            [
                " void zed_queue_call(struct zed_call *call, void (*fn)(void *), void *arg)",
                " {",
                "+\tcall->fn = fn;",
                "+\tcall->arg = arg;",
                "+\tsmp_wmb();",
                "+\tcall->queued = true;",
                " }",
                " ",
                " void zed_run_calls(struct zed_ctx *ctx)",
                " {",
                "-\tif (!ctx->call.queued)",
                "-\t\treturn;",
                "-\tsmp_mb();",
                "-\tctx->call.fn(ctx->call.arg);",
                "-\tsmp_mb();",
                "-\tctx->call.queued = false;",
                "+\tstruct zed_call *call;",
                "+",
                "+\tfor_each_zed_call(call, ctx) {",
                "+\t\tif (!call->queued)",
                "+\t\t\tcontinue;",
                "+\t\tsmp_rmb();",
                "+\t\tsmp_mb();",
                "+\t\tcall->fn(call->arg);",
                "+\t\tsmp_mb();",
                "+\t\tcall->queued = false;",
                "+\t}",
                " }",
            ],
        ),
    ],
)


def test_a_new_barrier_is_not_taken_for_a_rename_of_a_barrier_the_hunk_keeps() -> None:
    findings = _check(REINDENTED_AND_NEW)
    assert [(f.line, f.details["barrier"], f.details["problem"], f.not_asked) for f in findings] == [
        (14, "smp_wmb", "no-comment", ""),
        (25, "smp_rmb", "no-comment", ""),
    ]


def test_a_barrier_renamed_in_place_stays_quiet() -> None:
    # the old spelling goes and the new one takes its place: no new ordering
    raw = _mail(
        "[PATCH] zed: use the kernel's barrier name",
        "drivers/zed/call.c",
        [
            (
                "void zed_run_calls(struct zed_ctx *ctx)",
                [" \tif (!ctx->call.queued)", "-\tread_barrier();", "+\tsmp_rmb();"],
            )
        ],
    )
    assert _check(raw) == []


# an acquire whose comment names the stores it waits for, the releases naming it
AWAITED_STORES = _mail(
    "[PATCH] zed: let clients check for the backend without a lock",
    "drivers/zed/ops.c",
    [
        (
            "static const struct zed_ops *zed_ops_ptr;",
            [
                "+bool zed_available(void)",
                "+{",
                "+\t/*",
                "+\t * The acquire on zed_ops_ptr orders the stores to the ops structure",
                "+\t * for clients checking in parallel.",
                "+\t */",
                "+\treturn !!smp_load_acquire(&zed_ops_ptr);",
                "+}",
                "+",
                "+void zed_ops_register(const struct zed_ops *ops)",
                "+{",
                "+\t/* Paired with smp_load_acquire() in zed_available() */",
                "+\tsmp_store_release(&zed_ops_ptr, ops);",
                "+}",
            ],
        ),
    ],
)


def test_an_acquire_naming_the_stores_it_waits_for_names_its_other_side() -> None:
    assert _check(AWAITED_STORES) == []


def test_a_release_naming_its_own_stores_does_not() -> None:
    raw = AWAITED_STORES.replace("\t/* Paired with smp_load_acquire() in zed_available() */", "\t/* Publish. */")
    raw = raw.replace("orders the stores to the ops structure", "orders the reads of the ops structure")
    raw = raw.replace("+\t/* Publish. */", "+\t/* The release orders the stores to the ops structure first. */")
    findings = _check(raw)
    assert [(f.details["barrier"], f.details["problem"]) for f in findings] == [
        ("smp_load_acquire", "comment-without-pairing"),
        ("smp_store_release", "comment-without-pairing"),
    ]
    # both ends are added with a comment saying why, on one object: in plain view, not asked
    assert all(f.not_asked.endswith("the pair is in plain view") for f in findings)


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("bad-both-ends-say-what-they-order.patch", "with a comment too"),
        ("bad-release-and-acquire-each-say-why.patch", "with a comment too"),
        ("bad-pair-named-at-other-end.patch", "says it pairs with zed_ops_ready"),
        ("bad-pair-named-at-other-end-by-function.patch", "says it pairs with zork_set_job_status"),
        ("bad-wake-up-bit-pattern.patch", "wake_up_bit()'s documentation gives"),
    ],
)
def test_the_other_end_in_plain_view_is_kept_but_not_asked(name: str, why: str) -> None:
    path = Path(_RULE.examples_dir) / name
    patch = parse_patch(parse_rfc822(path.read_bytes(), str(path)))
    findings = list(check_patch(patch, _RULES, RuleContext(strict=True)).findings)
    assert findings
    assert all(why in f.not_asked for f in findings)


def test_the_drafter_records_them_as_not_asked_and_drafts_nothing(tmp_path: Path) -> None:
    raws = [RELEASE_NAMED_BY_ACQUIRE.replace("zed-1@", f"zed-{n}@") for n in (1,)]
    raws += [(Path(_RULE.examples_dir) / "bad-wake-up-bit-pattern.patch").read_text()]
    with Store(tmp_path / "store.sqlite") as store:
        ids = []
        for raw in raws:
            message = parse_rfc822(raw.encode(), "test mail")
            found = load_thread(store, [message], _RULES)
            assert len(found[message.message_id]) == 1
            ids.append(message.message_id)
        summary = draft_fixed(store, _RULES, tmp_path / "outbox")
        assert summary.drafts == 0 and summary.not_asked == 2
        assert [state for _f, state in store.handled_findings_of(ids)] == [SKIP_NOT_ASKED, SKIP_NOT_ASKED]
        assert not any((tmp_path / "outbox").glob("*"))
