"""RB201 drafts a fresh maintainer would not send (30 drafts of a whole-archive run), fixed by kind.

Kind (a): the sentence is not this patch's speed claim: an optimisation imagined or offered to others ("As a
trivial optimization, X could use ..."), an optimisation argued harmless (a correctness argument), the cost of
the road not taken ("While the whole struct could be cleared by memset(), ... needless overhead"), work "in the
works". Each has a near miss that stays a claim. The sentences are our own, modelled on the drafts read.
"""

from __future__ import annotations

import pytest

from reviewbot.rules import rb201_perf_claim as rb201


@pytest.mark.parametrize(
    "text",
    [
        "As a cheap optimization, the get side could use a relaxed increment on architectures that have one.",
        "Larger optimizations are in the works.",
        "Doing any of these optimizations while keeping the full barrier would complicate the code.",
        "Add an explicit smp_mb() and allow architectures to override it as an optimization if they want to.",
        "The array layout is chosen so that the page backed pools can use a nice batch optimization.",
        "For the ready bit this optimization is likely harmless because the bit is never read right after it "
        "was written.",
        "While the whole request could be cleared with memset(), the payload is large enough that this would "
        "cause needless overhead when the free list runs dry.",
    ],
)
def test_not_this_patchs_claim(text: str) -> None:
    assert rb201.find_claim(text) is None


@pytest.mark.parametrize(
    ("text", "claim"),
    [
        ("As an optimization, test the queue length locklessly before taking the lock.", "optimization"),
        ("This is a small optimization that can save a few cycles per call.", "optimization"),
        ("While at it, reduce the overhead of the lookup.", "reduce the overhead"),
        ("This optimization is safe and makes the lookup faster.", "faster"),
        ("Clearing the whole request causes needless overhead, so clear only the header.", "needless overhead"),
    ],
)
def test_near_misses_stay_claims(text: str, claim: str) -> None:
    found = rb201.find_claim(text)
    assert found is not None and found.text == claim
