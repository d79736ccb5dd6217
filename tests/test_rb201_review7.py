"""RB201 on a held-out batch of seven lists (first2), fixed by kind as general readings.

Not claims: the old code's optimisation called broken ("used to be an optimization ... turned out to be
broken"); the name of what a patch exposes ("a sysfs entry for nominal performance"); people's time ("saves
time for distribution packagers"); one hardware mode compared with another ("slower but faster than the
default mode"); the "non-" prefix ("non-performance sensitive"). Claims: a cost called the most expensive, a
"more efficient" way the new code presents, a speed claim in a dt-binding patch (the binding describes hardware
a driver uses at run time). Numbers counting patches or versions in version notes are no measurement.
The sentences are our own, modelled on the kinds read.
"""

from __future__ import annotations

import pytest

from reviewbot.rules import rb201_perf_claim as rb201


@pytest.mark.parametrize(
    "text",
    [
        "foo_sync() used to be an optimization for idle queues. This optimization turned out to be broken long ago.",
        "Expose a sysfs entry for nominal performance of each CPU.",
        "This saves a lot of time for distribution packagers.",
        "Fall back to a supported timing mode, slower but still faster than the default mode 0.",
        "The library serves non-performance sensitive callers that need a synchronous interface.",
    ],
)
def test_no_claim(text: str) -> None:
    assert rb201.find_claim(text) is None


def test_register_name_in_the_subject_is_no_claim() -> None:
    assert rb201.find_subject_claim("cpufreq: foo: add sysfs file for lowest performance") is None


def test_patch_counts_in_version_notes_are_no_measurement() -> None:
    notes = "Changes in v4:\n- The original 2 patches in series version 3 are split into\n  4 patches now.\n"
    assert rb201.ev._grade(notes) != "measured"
    assert rb201.ev._grade(notes + "before: 1210 ns per call\nafter:   655 ns per call\n") == "measured"
