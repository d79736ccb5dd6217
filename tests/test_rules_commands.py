"""``reviewbot rules``, ``reviewbot explain`` and ``reviewbot eval`` through the real CLI."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from conftest import CASES
from reviewbot.cli import main
from reviewbot.rule import DOC_HEADINGS


def invoke(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_rules_lists_every_builtin() -> None:
    result = invoke("rules", "--no-entry-points")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[0].split() == ["ID", "NAME", "SEVERITY", "ORIGIN", "SUMMARY"]
    ids = [line.split()[0] for line in lines[1:]]
    assert ids == ["RB101", "RB102", "RB201", "RB202", "RB301"]
    assert "barrier-without-pairing-comment" in lines[2] and "WARNING" in lines[2]
    assert "diff-in-commit-message" in lines[5] and "ERROR" in lines[5]


def test_rules_select_and_unknown_selector() -> None:
    result = invoke("rules", "--no-entry-points", "--select", "RB2")
    assert [line.split()[0] for line in result.output.splitlines()[1:]] == ["RB201", "RB202"]
    bad = CliRunner().invoke(main, ["rules", "--select", "RB777"])
    assert bad.exit_code == 2
    assert "unknown rule selector 'RB777'" in bad.output


def test_rules_broken_rules_dir_stops_with_status_2(tmp_path: Path) -> None:
    (tmp_path / "bad.py").write_text("RULE = 1\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["rules", "--rules-dir", str(tmp_path)])
    assert result.exit_code == 2
    assert str(tmp_path / "bad.py") in result.output and "no RULE" in result.output


def test_explain_by_id_and_name_prints_docs_and_examples() -> None:
    by_id = invoke("explain", "RB102")
    by_name = invoke("explain", "barrier-without-pairing-comment")
    assert by_id.exit_code == 0 and by_id.output == by_name.output
    out = by_id.output
    assert out.startswith("RB102 barrier-without-pairing-comment (WARNING")
    for heading in DOC_HEADINGS:
        assert f"\n{heading}\n" in out
    assert "bad-lockless-check.patch" in out and "good-lockless-check.patch" in out


def test_explain_every_rule() -> None:
    for rid in ("RB101", "RB102", "RB201", "RB202", "RB301"):
        result = invoke("explain", rid.lower())
        assert result.exit_code == 0
        assert "Examples (" in result.output


def test_explain_unknown_rule() -> None:
    result = CliRunner().invoke(main, ["explain", "RB999"])
    assert result.exit_code == 2
    assert "no rule 'RB999'" in result.output and "RB101 (struct-reorder-without-cacheline-comment)" in result.output


def test_eval_on_a_small_mbox(tmp_path: Path) -> None:
    """A two-message mbox cut from C14 and C02 runs through eval without labels."""
    cases = CASES
    mbox = tmp_path / "two.mbox"
    mbox.write_bytes((cases / "C14.patch").read_bytes() + b"\n" + (cases / "C02.patch").read_bytes())
    result = invoke("eval", "--mbox", str(mbox))
    assert result.exit_code == 0, result.output
    assert "corpus: 2 messages, 2 patch submissions checked" in result.output
    assert "0 rule crashes" in result.output
    assert "RB102 3" in result.output and "RB301 1" in result.output
