"""RB201 on issue 23's sixth first-look batch (first6: ten lists), fixed by kind as general readings.

Not claims: a comparison with what was expected ("the counter grows much faster than expected": the bug) or with
how things were ("X was much cheaper than Y": the old trade-off), an optimisation named by its flag ("the
QUX_NO_READ optimization": a feature), a cost as a condition ("under high contention this is less accurate").
The sentences are our own, modelled on the kinds read.
"""

from __future__ import annotations

import pytest

from reviewbot.rules import rb201_perf_claim as rb201


@pytest.mark.parametrize(
    "text",
    [
        "Every worker bumps the shared counter, so the counter grows much faster than expected.",
        "When this was written, reading the TSC was much cheaper than reading the HPET.",
        "Enable the QUX_NO_READ_NEEDED optimization on the first write, as the map needs it.",
        "Under high contention the sample becomes less accurate, but it still detects the skew.",
    ],
)
def test_no_claim(text: str) -> None:
    assert rb201.find_claim(text) is None


def test_a_flag_named_optimization_in_the_subject_is_no_claim() -> None:
    assert rb201.find_subject_claim("qux: improve QUX_NO_READ_NEEDED optimization") is None
    assert rb201.find_subject_claim("qux: improve the read optimization") is not None  # no code name


def test_a_function_named_optimization_is_still_a_claim() -> None:
    # a function's name before "optimization" is what is optimised, not a feature's name
    assert rb201.find_subject_claim("qux: qux_read_ok() optimization") is not None


@pytest.mark.parametrize(
    "text",
    [
        # near misses: the comparison said of the patch's choice now, the cost the patch takes away
        "Use the TSC here: reading it is much cheaper than reading the HPET.",
        "This avoids the high contention on the queue lock.",
    ],
)
def test_still_a_claim(text: str) -> None:
    assert rb201.find_claim(text) is not None
