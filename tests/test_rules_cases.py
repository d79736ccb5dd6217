"""The shared cases that concern rules (../shared/cases, read as bytes): C02, C04, C14."""

from __future__ import annotations

import pytest

from conftest import CASES
from reviewbot.engine import check_patch
from reviewbot.models import Severity
from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.registry import load_rules
from reviewbot.rule import RuleContext

RULES = load_rules(entry_points=False)


def _report(case: str, *, strict: bool = False):
    path = CASES / f"{case}.patch"
    if not path.is_file():
        pytest.fail(f"{path} missing: tests/data/cases is rebuilt by tests/data/build_fixtures.py")
    patch = parse_patch(parse_rfc822(path.read_bytes(), str(path)))
    return patch, check_patch(patch, RULES, RuleContext(strict=strict))


def test_c14_exactly_three_barrier_findings() -> None:
    _, report = _report("C14")
    assert report.failures == ()
    got = [(f.rule_id, f.path, f.line, f.details["barrier"]) for f in report.findings]
    assert got == [
        ("RB102", "drivers/foo/ring.c", 37, "smp_wmb"),
        ("RB102", "drivers/foo/ring.c", 40, "smp_mb"),
        ("RB102", "drivers/foo/ring.c", 43, "smp_wmb"),
    ]
    # the third has a comment, but it does not say what it pairs with: it is an smp_wmb() right before writel()
    # ("make sure the doorbell sees the new tail"), so the finding is the device-ordering note (review2)
    assert [f.details["problem"] for f in report.findings] == ["no-comment", "no-comment", "before-mmio-write"]
    for f in report.findings:
        assert f.details["barrier"] in f.message
        assert f.hunk is not None and any(d.new_no == f.line for d in f.hunk.lines)


def test_c14_strict_adds_nothing() -> None:
    _, report = _report("C14", strict=True)
    assert [f.line for f in report.findings] == [37, 40, 43]


def test_c04_one_struct_reorder_finding_at_new_lines_7_8() -> None:
    # the changelog gives no reason for the swap: a CHECK (issue 10), so only --strict shows it
    _, report = _report("C04", strict=False)
    assert report.failures == () and report.findings == ()
    _, report = _report("C04", strict=True)
    assert report.failures == ()
    assert len(report.findings) == 1
    f = report.findings[0]
    assert (f.rule_id, f.path, f.line, f.lines) == ("RB101", "drivers/foo/foo_stats.h", 7, (7, 8))
    assert f.symbol == "struct foo_stats"
    assert sorted(f.details["members"]) == ["drops", "errors"]
    assert f.severity is Severity.CHECK
    assert "struct foo_stats" in f.message and "errors" in f.message and "drops" in f.message


def test_c02_one_finding_naming_the_line_and_the_dropped_text() -> None:
    patch, report = _report("C02")
    assert report.failures == ()
    # the example diff is not part of the change, so no diff rule fires on it
    assert [fd.path for fd in patch.files] == ["drivers/foo/queue.c"]
    assert [f.rule_id for f in report.findings] == ["RB301"]
    f = report.findings[0]
    assert f.path is None
    assert f.line == 9  # input line of "--- a/drivers/foo/queue.c" in C02.patch
    assert "--- a/drivers/foo/queue.c" in f.message
    assert "Clamp at zero instead." in f.message
    assert "Fixes:" in f.message and "Signed-off-by:" in f.message
    assert f.details["dropped_trailers"] == ["Fixes", "Signed-off-by"]
    reply = next(r for r in RULES if r.id == "RB301").reply(report.findings, patch)
    assert "indent" in reply and "?" in reply


def test_c02_line_is_the_input_line() -> None:
    raw = (CASES / "C02.patch").read_bytes().split(b"\n")
    assert raw[9 - 1] == b"--- a/drivers/foo/queue.c"


def test_plain_packing_is_check_level_only() -> None:
    rule = next(r for r in RULES if r.id == "RB101")
    path = rule.examples_dir / "bad-packing-check.patch"
    patch = parse_patch(parse_rfc822(path.read_bytes(), str(path)))
    assert check_patch(patch, [rule], RuleContext()).findings == ()
    (f,) = check_patch(patch, [rule], RuleContext(strict=True)).findings
    assert f.severity is Severity.CHECK
    assert f.details["motivation"] == "packing"
    assert "Would it be worth" in rule.reply([f], patch)
