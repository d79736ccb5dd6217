"""RB201 false alarms of the 92-row development set (tests/data/evalset-extra), fixed by kind.

* "optimise packing" is about size (DX053, "save 8 bytes" with pahole);
* "optimize X to minimize HW race condition" names a correctness goal, not speed (DX057);
* "... the lock protecting them to share the same cache line" says where members sit, no gain (DX088);
* missed claim: "the io path hot members can fit within the first 64-bytes, which is a common cacheline" (DX092).

Each kind has a near miss that stays a claim. The sentences are our own, modelled on the labelled mails.
"""

from __future__ import annotations

import pytest

from reviewbot.rules import rb201_perf_claim as rb201
from reviewbot.rules import _rb201_evidence as rb201_ev


@pytest.mark.parametrize(
    "text",
    [
        "Reorder the fields of struct qux_sock to optimise packing and save 8 bytes.",
        "i2c: qux: optimize cacheline to minimize HW race condition",
        "Optimize the register order to avoid races with the firmware.",
    ],
)
def test_not_a_speed_claim(text: str) -> None:
    assert rb201.find_claim(text) is None
    assert rb201.find_subject_claim(text) is None


def test_members_placed_in_one_cache_line_with_no_gain_named_are_layout() -> None:
    """Where members sit, no speed or cost named: a layout claim (a CHECK: RB101 asks whether it is explained)."""
    claim = rb201.find_claim("The new struct also contains the lock protecting them to share the same cache line.")
    assert claim is None or rb201._layout_only(claim)


@pytest.mark.parametrize(
    ("text", "claim"),
    [
        ("Look the filter up once per frame to optimise packet handling.", "optimise"),
        ("i2c: qux: optimize cacheline to minimize irq latency", "minimize irq latency"),
        ("Optimize the irq handler to minimize races and latency.", "Optimize"),
        (
            "The struct holds the lock to share the same cache line, which saves a cache miss per ioctl.",
            "saves a cache miss",
        ),
        ("Move rx_count into the same cache line as the lock.", "same cache line"),
    ],
)
def test_near_misses_stay_claims(text: str, claim: str) -> None:
    found = rb201.find_claim(text)
    assert found is not None and found.text == claim


@pytest.mark.parametrize(
    "text",
    [
        "All the io path hot members can fit within the first 64-bytes, which is a common cacheline.",
        "Put the hot fields of struct qux_host together so they share one cacheline.",
    ],
)
def test_hot_members_in_one_cache_line_are_a_claim(text: str) -> None:
    found = rb201.find_claim(text)
    assert found is not None and found.text.lower().startswith("hot")


def test_hot_data_is_data_temperature_not_a_claim() -> None:
    assert rb201.find_claim("Keep hot data and cold data apart; the header of each zone fits in one cacheline.") is None


def test_patches_one_plus_two_names_patch_two_of_the_cover_letter() -> None:
    # "My measurements have shown that patches 1+2 really improve the situation" (DX057's cover letter): the
    # paragraph is about patch 2 as well, so its numbers count for it
    paragraph = "My measurements have shown that patches 1+2 really improve the situation. Before, 2us; after, 7us."
    assert not rb201_ev._about_other_patches(paragraph, 2)
    assert rb201_ev._about_other_patches(paragraph, 3)
