"""RB201 on a held-out batch of seven lists (first2): numbers counting patches or versions in version notes
("the original 2 patches in series version 3") are no measurement; real rows next to them still are.
The notes are our own, modelled on the kind read.
"""

from __future__ import annotations

from reviewbot.rules import rb201_perf_claim as rb201


def test_patch_counts_in_version_notes_are_no_measurement() -> None:
    notes = "Changes in v4:\n- The original 2 patches in series version 3 are split into\n  4 patches now.\n"
    assert rb201.ev._grade(notes) != "measured"
    assert rb201.ev._grade(notes + "before: 1210 ns per call\nafter:   655 ns per call\n") == "measured"
