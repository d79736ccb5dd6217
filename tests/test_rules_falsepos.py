"""False positives a maintainer found on real mail, one kind per test, rebuilt as small own texts."""

from __future__ import annotations

import sys

import pytest

from reviewbot.registry import load_rules

RULES = {rule.id: rule for rule in load_rules(entry_points=False)}


def _module(rule_id: str):
    """The imported module of a built-in rule (to test its helpers directly)."""
    return sys.modules[RULES[rule_id].module_name]


@pytest.mark.parametrize(
    ("text", "grade"),
    [
        ("This patch improves small write IOPS with a factor four on my test\nsetup.", "measured"),
        ("Throughput goes up by a factor of 2.5 on a 64 CPU box.", "measured"),
        ("Small write latency drops 3x on my laptop.", "measured"),
        ("This gives 4 times the throughput of the old code on my server.", "measured"),
        ("Random read IOPS went from 100K to 400K IOPS on my setup.", "measured"),
        # a ratio of nothing measured, or a metric without a ratio, is no measurement
        ("Each entry is looked up 4 times per call.", "none"),
        ("This should improve throughput considerably.", "none"),
        ("> This improves IOPS by a factor four.\nThis reply has no numbers.", "none"),
        ("The mask is 0x10 and throughput matters.", "none"),
    ],
)
def test_rb201_measured_ratio_is_evidence(text: str, grade: str) -> None:
    assert _module("RB201")._grade(text) == grade


@pytest.mark.parametrize(
    ("old", "new", "candidates", "moved"),
    [
        # the blk_flush_queue kind: the lock moves to the front, the list becomes a counter in place
        (["idx", "since", "queue", "in_flight", "rq", "lock"], ["lock", "idx", "since", "queue", "in_flight", "rq"],
         ["lock", "in_flight"], ["lock"]),
        # all re-added: the one that left the common order moved
        (["a", "b", "c"], ["c", "a", "b"], ["a", "b", "c"], ["c"]),
        # a swap of two re-added members names both
        (["x", "a", "b", "y"], ["x", "b", "a", "y"], ["a", "b"], ["a", "b"]),
        # context members cannot move: the re-added ones did
        (["a", "b", "c"], ["c", "a", "b"], ["a", "b"], ["a", "b"]),
    ],
)
def test_rb101_names_only_members_whose_order_changed(old, new, candidates, moved) -> None:
    mod = _module("RB101")
    assert mod._reordered(old, new, candidates) == moved


def test_rb101_a_line_cut_and_pasted_is_moved_when_any_order_changed() -> None:
    """``b`` keeps its slot before the context member ``m``, but ``a`` moved behind it: both lines moved."""
    mod = _module("RB101")
    old, new = ["a", "b", "m"], ["b", "a", "m"]
    assert mod._reordered(old, new, ["a", "b"], {"a", "b"}) == ["a", "b"]
    assert mod._reordered(["a", "b", "m"], ["b", "m", "a"], ["a", "b"], set()) == ["a"]
