"""RB201 on issue 26's eighth first-look reading (r8: five lists never read), fixed by kind as general readings.

A fresh maintainer read every draft of five list-periods; two RB201 findings asked for numbers on a patch that
claims nothing. Read as a reviewer reads them (the sentences are our own, modelled on the kinds read):

- A degree word judges an adjective ("very hot instructions", "quite expensive"), not a cost noun: "Most
  instructions have one type" counts instructions, it claims no cost taken away.
- A sentence whose subject is the existing code ("The current code will, at run time, optimize X") speaks of
  that code to its end, past its commas, as "Previously ..." does.
"""

from __future__ import annotations

import pytest

from reviewbot.rules import rb201_perf_claim as rb201


@pytest.mark.parametrize(
    "text",
    [
        "Most instructions have a single type. So create a helper taking the type from the instruction.",
        "The current code will, at evaluation time, optimize some casts. That is wrong for bools: test the type.",
        "The existing implementation, when the queue is full, speeds up the flush. Keep it and fix the count.",
    ],
)
def test_no_claim_of_this_patch(text: str) -> None:
    assert rb201.find_claim(text) is None


@pytest.mark.parametrize(
    ("text", "claim"),
    [
        ("The atomic operations on the lock are very hot instructions. Skip the lock for a single user.", "very hot"),
        ("Skip the lock for a single user. This removes significant overhead.", "significant overhead"),
        ("This patch avoids the expensive lookup the current code makes.", "avoids the expensive"),
    ],
)
def test_a_cost_judged_or_taken_away_is_still_a_claim(text: str, claim: str) -> None:
    found = rb201.find_claim(text)
    assert found is not None and claim in found.text
