"""RB102: a write barrier (or release) whose comment says that other CPUs observe a store it names, in an order
("All CPUs must observe the change of ready_flag after the updates of win_lo and win_hi, because the mapper ... when
ready_flag is set": first5 F5B002, an IOMMU driver's smp_wmb()) names the reader's side in memory-barriers.txt's
terms, as an acquire naming the store it waits for does (test_rb102_awaited_store); without a code name, or on
a full barrier, it still asks ("see X" was a pairing phrase before: "see foo()"). The comments are our own."""

from __future__ import annotations

import pytest

from reviewbot.engine import check_patch
from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.registry import load_rules
from reviewbot.rule import RuleContext
from reviewbot.rules import rb102_barrier_pairing as rb102

RULE = next(r for r in load_rules(entry_points=False) if r.id == "RB102")
OBSERVED = (
    "All CPUs must observe the change of ready_flag after the updates of win_lo and win_hi, because the mapper "
    "limits its allocations to this window when ready_flag is set."
)


def _patch(comment: str, barrier: str = "smp_wmb") -> bytes:
    lines = "".join(f"+\t * {line}\n" for line in comment.split("\n"))
    return (
        "From: Ada Example <ada@example.org>\nSubject: [PATCH] foo: set the window\nMessage-ID: <o@example.org>\n\n"
        "Set the window before enabling it.\n\nSigned-off-by: Ada Example <ada@example.org>\n---\n"
        "diff --git a/drivers/foo/foo.c b/drivers/foo/foo.c\n--- a/drivers/foo/foo.c\n+++ b/drivers/foo/foo.c\n"
        f"@@ -1,3 +1,{10 + comment.count(chr(10))} @@\n void foo_set(struct foo *f, u64 lo, u64 hi)\n {{\n"
        "+\tf->win_lo = lo;\n+\tf->win_hi = hi;\n+\t/*\n" + lines + f"+\t */\n+\t{barrier}();\n"
        "+\tf->ready_flag = true;\n }\n"
    ).encode()


def _findings(text: bytes) -> list:
    return list(check_patch(parse_patch(parse_rfc822(text, "o.patch")), [RULE], RuleContext(strict=True)).findings)


def test_write_barrier_whose_readers_are_named_by_what_they_observe() -> None:
    assert _findings(_patch(OBSERVED)) == []


@pytest.mark.parametrize(
    ("comment", "barrier"),
    [
        ("All CPUs must observe the change after the updates, in order.", "smp_wmb"),  # no code name: nothing named
        (OBSERVED, "smp_mb"),  # a full barrier orders both ways: which side pairs is not said
    ],
)
def test_still_asked(comment: str, barrier: str) -> None:
    assert [f.details["barrier"] for f in _findings(_patch(comment, barrier))] == [barrier]


def test_the_step_alone() -> None:
    assert rb102._comment_ok("smp_store_release", "Other CPUs observe foo_state after the table is filled.")
    assert not rb102._comment_ok("smp_wmb", "Make sure other CPUs observe it in order.")
