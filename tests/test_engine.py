"""The engine: crash isolation, CHECK level only with strict, fingerprints, order."""

from __future__ import annotations

import logging
from dataclasses import replace

from conftest import CASES
from helpers import fake_rule
from reviewbot.engine import check_patch, fingerprint, series_key
from reviewbot.models import Address, Severity
from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.parse.subject import parse_subject
from reviewbot.registry import load_rules
from reviewbot.rule import RuleContext, RuleMeta

RULES = load_rules(entry_points=False)


def c14():
    return parse_patch(parse_rfc822((CASES / "C14.patch").read_bytes(), "C14.patch"))


def test_a_crashing_rule_is_recorded_and_the_others_still_run(caplog) -> None:
    def boom(patch, ctx):
        raise KeyError("no such hunk")

    rules = [fake_rule("RB900", boom), *RULES]
    with caplog.at_level(logging.ERROR, logger="reviewbot.engine"):
        report = check_patch(c14(), rules, RuleContext())
    assert [f.line for f in report.findings] == [37, 40, 43]
    assert len(report.failures) == 1
    failure = report.failures[0]
    assert failure.rule_id == "RB900"
    assert failure.message_id == c14().message_id
    assert failure.error == "KeyError: 'no such hunk'"
    assert "Traceback" in failure.traceback and "boom" in failure.traceback
    assert "rule RB900 crashed" in caplog.text


def test_a_rule_crashing_while_iterating_is_isolated_too() -> None:
    def lazy(patch, ctx):
        yield fake_meta.finding(patch, "first")
        raise ValueError("late")

    fake_meta = RuleMeta(id="RB901", name="fake-lazy", summary="s", severity=Severity.WARNING)
    report = check_patch(c14(), [fake_rule("RB901", lazy)], RuleContext())
    assert report.findings == ()
    assert [f.error for f in report.failures] == ["ValueError: late"]


def test_check_findings_only_with_strict() -> None:
    meta = RuleMeta(id="RB902", name="fake-check", summary="s", severity=Severity.CHECK)

    def check(patch, ctx):
        return [
            meta.finding(patch, "a check", path="x.c", line=3),
            meta.finding(patch, "a warning", path="x.c", line=1, severity=Severity.WARNING),
        ]

    rule = fake_rule("RB902", check, Severity.CHECK)
    assert [f.message for f in check_patch(c14(), [rule], RuleContext()).findings] == ["a warning"]
    assert [f.message for f in check_patch(c14(), [rule], RuleContext(strict=True)).findings] == [
        "a warning",
        "a check",
    ]


def test_findings_are_sorted_by_path_line_rule() -> None:
    meta = RuleMeta(id="RB903", name="fake-order", summary="s", severity=Severity.WARNING)

    def check(patch, ctx):
        return [
            meta.finding(patch, "b", path="b.c", line=1),
            meta.finding(patch, "commit", line=5),
            meta.finding(patch, "a9", path="a.c", line=9),
            meta.finding(patch, "a2", path="a.c", line=2),
        ]

    report = check_patch(c14(), [fake_rule("RB903", check)], RuleContext())
    assert [f.message for f in report.findings] == ["commit", "a2", "a9", "b"]


def test_fingerprints_are_stable_across_runs_and_versions() -> None:
    v1 = c14()
    first = [f.fingerprint for f in check_patch(v1, RULES, RuleContext()).findings]
    again = [f.fingerprint for f in check_patch(c14(), RULES, RuleContext()).findings]
    assert first == again
    assert all(len(fp) == 20 for fp in first)
    assert len(set(first)) == 3  # one per barrier, even two smp_wmb() in one function
    # v2 of the same patch, resent with a different prefix and Message-ID
    msg2 = replace(
        v1.message,
        subject=parse_subject("[PATCH v2 1/3] foo: publish ring entries with explicit ordering"),
        message_id="v2-1@example.org",
    )
    v2 = replace(v1, message=msg2)
    assert series_key(v2) == series_key(v1)
    assert [f.fingerprint for f in check_patch(v2, RULES, RuleContext()).findings] == first


def test_fingerprint_changes_with_author_rule_path_symbol() -> None:
    patch = c14()
    f = check_patch(patch, RULES, RuleContext()).findings[0]
    base = fingerprint(patch, f)
    other_author = replace(patch, message=replace(patch.message, from_addr=Address("Bob Other", "bob@example.org")))
    assert fingerprint(other_author, f) != base
    assert fingerprint(patch, replace(f, rule_id="RB999")) != base
    assert fingerprint(patch, replace(f, path="other.c")) != base
    assert fingerprint(patch, replace(f, symbol="other")) != base
    assert fingerprint(patch, replace(f, line=99, message="moved")) == base  # lines shift between versions


def _example_finding(rule_id: str, name: str):
    from pathlib import Path

    rule = next(r for r in RULES if r.id == rule_id)
    path = Path(rule.examples_dir) / f"{name}.patch"
    (finding,) = check_patch(parse_patch(parse_rfc822(path.read_bytes(), path.name)), [rule], RuleContext()).findings
    return finding


def test_findings_tell_other_modules_what_they_quote_and_name_through_typed_fields() -> None:
    """The drafter and the thread check read these properties, never a rule's ``details`` keys."""
    claim = _example_finding("RB201", "bad-bottleneck")
    assert claim.quote == "bottleneck" and claim.subject_names == () and claim.evidence_where == ""
    assert not claim.series_point and replace(claim, details={**claim.details, "series_point": True}).series_point
    moved = _example_finding("RB101", "bad-aligned-tag-only")
    assert moved.quote == "" and moved.subject_names == ("struct zed_rx", "cfg")
    barrier = _example_finding("RB102", "bad-accessor-not-a-wrapper")
    assert barrier.quote == "" and barrier.subject_names[0] == "smp_load_acquire"
