"""RB201 on issue 23's sixth first-look batch (first6: ten lists), fixed by kind as general readings.

Claims the rule missed: "speed" the noun made bigger ("this will improve the writeback speed"; it was read only
as the verb of "speed up"), work moved "out of the way of" latency-sensitive work, and a claim whose only numbers
in the cover letter measured another work ("an earlier iteration of this idea got a 7% boost"). Not claims: a
comparison with what was expected ("the counter grows much faster than expected": the bug) or with how things
were ("X was much cheaper than Y": the old trade-off), an optimisation named by its flag ("the QUX_NO_READ
optimization": a feature), a cost as a condition ("under high contention this is less accurate"), a speed class
("for low speed devices"). The sentences are our own, modelled on the kinds read.
"""

from __future__ import annotations

import pytest

from reviewbot.rules import _rb201_evidence as ev
from reviewbot.rules import rb201_perf_claim as rb201


@pytest.mark.parametrize(
    ("text", "claim"),
    [
        (
            "Only copy the dirty sectors when compacting, which shrinks what is written. This will improve the "
            "compaction speed and the life of the flash.",
            "improve the compaction speed",
        ),
        (
            "The scrubbing is long running and not latency sensitive, so get it out of the way of other latency "
            "sensitive requests.",
            "out of the way of other latency sensitive",
        ),
    ],
)
def test_claim(text: str, claim: str) -> None:
    found = rb201.find_claim(text)
    assert found is not None and found.text == claim


@pytest.mark.parametrize(
    "text",
    [
        "Every worker bumps the shared counter, so the counter grows much faster than expected.",
        "When this was written, reading the TSC was much cheaper than reading the HPET.",
        "Enable the QUX_NO_READ_NEEDED optimization on the first write, as the map needs it.",
        "Under high contention the sample becomes less accurate, but it still detects the skew.",
        "The bridge falls back to a slower clock for low speed devices.",
        # near misses of the claims above: no effect said of this patch, no move away from sensitive work
        "The compaction speed is shown in the statistics file.",
        "The scrubbing is long running and not latency sensitive.",
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


def test_numbers_of_another_work_are_no_measurement_of_this_one() -> None:
    other = "As an example, an earlier prototype of this idea got a 12% boost when building the kernel."
    assert ev._grade(other) != "measured"
    assert ev._grade("This series gets a 12% boost when building the kernel.") == "measured"
    # the previous version named as the baseline ("the") is this work's comparison, still a measurement
    assert ev._grade("Compared with the previous iteration this one is 12% faster in fio.") == "measured"


# A problem-then-fix changelog (first6: a block cache's GC "resulting in IOPS decreasing by half and latency
# increasing", then "This patch add some cost statistics ..."): a good lost, stated as the code's state, is this
# patch's claim when another sentence says what the patch changes ("This patch makes X" as "Make X"); numbers
# before the problem stated describe the problem ("about 2 ms per node"), not the fix.
_LOST = "Each scan walks every node in one go, resulting in throughput dropping by half while it runs."


def test_a_good_lost_as_the_problem_under_a_fix_is_a_claim() -> None:
    found = rb201.find_claim(f"{_LOST}\n\nThis patch makes the scan yield to queued requests.")
    assert found is not None and found.text == "throughput dropping"


@pytest.mark.parametrize(
    "text",
    [_LOST, f"{_LOST}\nThe scan was added for that reason.", "The throughput of the old scan is shown in sysfs."],
)
def test_a_good_lost_alone_is_no_claim(text: str) -> None:
    assert rb201.find_claim(text) is None


def _rb201_findings(changelog: str) -> list[str]:
    from reviewbot.engine import check_patch
    from reviewbot.parse.mail import parse_rfc822
    from reviewbot.parse.patch import parse_patch
    from reviewbot.registry import load_rules
    from reviewbot.rule import RuleContext

    path = "drivers/md/qux/scan.c"
    raw = (
        "From: Ada Example <ada@example.org>\nMessage-ID: <r10-1@example.org>\nSubject: [PATCH] qux: pace the scan\n"
        f"Date: Mon, 10 Mar 2025 10:00:00 +0100\n\n{changelog}\n\nSigned-off-by: Ada Example <ada@example.org>\n---\n"
        f"diff --git a/{path} b/{path}\nindex 1111111..2222222 100644\n--- a/{path}\n+++ b/{path}\n"
        "@@ -10,2 +10,3 @@ static void qux_scan(struct qux *q)\n \tqux_walk(q);\n+\tcond_resched();\n \tqux_done(q);\n"
        "-- \n2.43.0\n"
    )
    rules = load_rules(entry_points=False, select=["RB201"])
    patch = parse_patch(parse_rfc822(raw.encode(), "test"))
    return [f.rule_id for f in check_patch(patch, rules, RuleContext()).findings]


def test_numbers_of_the_problem_do_not_measure_the_fix() -> None:
    problem = "Scanning takes about 2 ms per node, resulting in IOPS decreasing by half while it runs."
    fix = "This patch makes the scan yield when requests are queued."
    assert _rb201_findings(f"{problem}\n\n{fix}") == ["RB201"]
    assert _rb201_findings(f"{problem}\n\n{fix} With it fio reads 41000 IOPS instead of 20000 IOPS.") == []
