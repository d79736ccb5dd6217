"""Every built-in rule's good and bad example patches (rules/examples/<ID>/), against golden findings.

* ``good-*.patch``: the rule reports nothing (run with ``strict`` so CHECK
  findings count too);
* ``bad-*.patch``: the rule's findings, one line each as
  ``RBnnn:path:line:message`` (``-`` for no path or line), equal the lines of
  ``bad-*.expected``. ``REVIEWBOT_UPDATE_GOLDEN=1`` rewrites the expected files.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from reviewbot.engine import check_patch
from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.registry import load_rules
from reviewbot.rule import RuleContext

RULES = load_rules(entry_points=False)
UPDATE = os.environ.get("REVIEWBOT_UPDATE_GOLDEN") == "1"


def _cases() -> list:
    out = []
    for rule in RULES:
        if rule.examples_dir is None:
            continue
        for path in sorted(rule.examples_dir.glob("*.patch")):
            out.append(pytest.param(rule, path, id=f"{rule.id}/{path.name}"))
    return out


def finding_lines(rule, path: Path) -> list[str]:
    """Run one rule on one example patch file; the golden-format lines of its findings."""
    patch = parse_patch(parse_rfc822(path.read_bytes(), str(path)))
    report = check_patch(patch, [rule], RuleContext(strict=True))
    assert report.failures == (), report.failures
    return [f"{f.rule_id}:{f.path or '-'}:{f.line if f.line is not None else '-'}:{f.message}" for f in report.findings]


def test_every_rule_ships_good_and_bad_examples() -> None:
    for rule in RULES:
        assert rule.examples_dir is not None, f"{rule.id} has no examples/{rule.id}/"
        names = [p.name for p in rule.examples_dir.glob("*.patch")]
        assert any(n.startswith("good-") for n in names), f"{rule.id}: no good-*.patch"
        assert any(n.startswith("bad-") for n in names), f"{rule.id}: no bad-*.patch"


@pytest.mark.parametrize(("rule", "path"), _cases())
def test_example(rule, path: Path) -> None:
    lines = finding_lines(rule, path)
    if path.name.startswith("good-"):
        assert lines == [], f"{path.name} should be clean for {rule.id}"
        return
    expected = path.with_suffix(".expected")
    if UPDATE:
        expected.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    assert expected.is_file(), f"missing golden {expected.name} (run with REVIEWBOT_UPDATE_GOLDEN=1)"
    want = [line for line in expected.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert want, f"{expected.name} is empty: a bad example must give a finding"
    assert lines == want


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_reply_reads_like_a_reviewer(rule) -> None:
    """The reply for the first bad example: a question or request, humble, no tags."""
    bad = sorted(rule.examples_dir.glob("bad-*.patch"))[0]
    patch = parse_patch(parse_rfc822(bad.read_bytes(), str(bad)))
    findings = list(check_patch(patch, [rule], RuleContext(strict=True)).findings)
    text = rule.reply(findings, patch)
    assert text.strip()
    assert "?" in text
    assert "Reviewed-by" not in text and "Acked-by" not in text
