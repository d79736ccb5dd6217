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
    assert _module("RB201").ev._grade(text) == grade


@pytest.mark.parametrize(
    ("old", "new", "candidates", "moved"),
    [
        # the blk_flush_queue kind: the lock moves to the front, the list becomes a counter in place
        (
            ["idx", "since", "queue", "in_flight", "rq", "lock"],
            ["lock", "idx", "since", "queue", "in_flight", "rq"],
            ["lock", "in_flight"],
            ["lock"],
        ),
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


def test_rb101_finding_lets_the_quote_show_a_removal_in_another_hunk() -> None:
    """A member moved from one hunk to another, its type changed on the way: the draft quotes both sides."""
    from pathlib import Path

    from reviewbot.engine import check_patch
    from reviewbot.parse.mail import parse_rfc822
    from reviewbot.parse.patch import parse_patch
    from reviewbot.respond.quote import quote_finding
    from reviewbot.rule import RuleContext

    rule = RULES["RB101"]
    path = Path(rule.examples_dir) / "bad-moved-across-hunks.patch"
    patch = parse_patch(parse_rfc822(path.read_bytes(), str(path)))
    (finding,) = check_patch(patch, [rule], RuleContext(strict=True)).findings
    assert finding.line == 24 and finding.lines == (24, 66)
    assert finding.details["members"] == ["acct_flags"]
    quote = quote_finding(patch, finding).split("\n")
    # each side under its own real @@ line (never one made-up header over both hunks), cuts marked
    real = {h.header for fd in patch.files for h in fd.hunks}
    assert [line[2:] for line in quote if line.startswith("> @@")] == [
        "@@ -20,6 +20,8 @@ struct qux_task {",
        "@@ -61,10 +63,6 @@ struct qux_task {",
    ]
    assert all(line[2:] in real for line in quote if line.startswith("> @@"))
    added = quote.index("> +\tunsigned\t\t\tacct_flags:5;")
    removed = quote.index("> -\tunsigned int\t\t\tacct_flags;")
    assert added < quote.index("> @@ -61,10 +63,6 @@ struct qux_task {") < quote.index("> [...]") < removed


@pytest.mark.parametrize(
    ("text", "claim"),
    [
        # an existing mechanism named by its identifier is not this patch's claim
        ("This is because of the has_sleepers optimization that is used to make sure", None),
        ("The current optimization breaks when the list is empty.", None),
        # what existing code is for: "the former is just used for local task_list wakeup optimizations"
        ("the former is just used for local wakeup optimizations, so move it", None),
        # a function named before "optimization" still claims one (the subject of a speed-up patch)
        ("arm64: access_ok() optimization", "optimization"),
        ("This patch speeds up the lookup.", "speeds up"),
    ],
)
def test_rb201_naming_an_existing_optimization_is_not_a_claim(text: str, claim: str | None) -> None:
    from reviewbot.rules.rb201_perf_claim import find_claim

    from reviewbot.rules.rb201_perf_claim import find_subject_claim

    m = find_subject_claim(text) if ": " in text[:10] else find_claim(text)  # "arm64: ..." is a subject line
    assert (m.text if m else None) == claim
