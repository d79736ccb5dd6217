"""RB201 on issue 23's ninth first-look batch (first9: twelve lists), fixed by kind as general readings.

Read as a reviewer reads them (the sentences are our own, modelled on the kinds read):

- The first word of a subject or sentence is capitalised because it starts it: "HV: Optimise TLB flushing" is
  the patch's claim, not a name in Title Case like "Modify QP Optimization" (which still is one).
- An alternative is the road not taken only when the speed word is part of it ("rather than improve
  performance", "instead of trying to reduce overhead"); "X instead of the whole Y makes the frees faster" and
  "use a list rather than a tree to reduce overhead" compare the change with what it replaces: a claim.
- A sentence that opens at another time ("Previously ...", "Later ...") speaks of that time to its end, past
  its commas and "and"s.
- "at the (possible) cost of a few extra cycles" concedes a cost the patch accepts; it claims no speed-up.
"""

from __future__ import annotations

import pytest

from reviewbot.rules import rb201_perf_claim as rb201


@pytest.mark.parametrize(
    ("title", "claim"),
    [
        ("KVM: PPC: Book3S HV: Optimise TLB flushing when a vCPU migrates", "Optimise"),
        ("net: foo: Optimize DMA unmapping on the RX path", "Optimize"),
        ("Optimize PCIe config reads", "Optimize"),
    ],
)
def test_a_subjects_first_word_is_no_name(title: str, claim: str) -> None:
    found = rb201.find_subject_claim(title)
    assert found is not None and found.text == claim


def test_a_title_case_name_is_still_a_name() -> None:
    assert rb201.find_subject_claim("RDMA/foo: Modify QP Optimization Flags handling") is None


@pytest.mark.parametrize(
    ("text", "claim"),
    [
        ("Flushing the TLB instead of the whole alias purge makes the frees faster.", "faster"),
        ("Use a list rather than a tree to reduce overhead.", "reduce overhead"),
    ],
)
def test_the_change_compared_with_what_it_replaces_is_a_claim(text: str, claim: str) -> None:
    found = rb201.find_claim(text)
    assert found is not None and found.text == claim


@pytest.mark.parametrize(
    "text",
    [
        "Rather than improve performance, this fixes the refcount underflow.",
        "We fix the leak instead of trying to reduce the overhead.",
        # another time, to the end of the sentence
        "Previously the xmit routine was changed so that it skips the conversion, and it saves us CPU cycles.",
        "Later the plan is to drop the copy in order to simplify the code and improve throughput on the ring.",
        # a cost conceded
        "Drop the attribute, at the possible cost of a few extra cycles.",
        "Take the lock in the slow path at the expense of some extra overhead.",
    ],
)
def test_no_claim(text: str) -> None:
    assert rb201.find_claim(text) is None
