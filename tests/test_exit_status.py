"""Which exception ends a command with which exit status is decided in one table (reviewbot.status)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from click.testing import CliRunner

from reviewbot.cli import main
from reviewbot.errors import FetchError, RuleLoadError, StoreError, UsageError
from reviewbot.status import ExitStatus, exit_status_for


def test_each_kind_of_failure_has_its_exit_status() -> None:
    assert exit_status_for(KeyboardInterrupt()) is ExitStatus.INTERRUPTED
    assert exit_status_for(BrokenPipeError()) is ExitStatus.OK
    for named in (
        UsageError("bad"),
        StoreError("locked", subject="x.db"),
        RuleLoadError("broken"),
        FetchError("HTTP 500", url="https://lists.openwall.net/x"),
    ):
        assert exit_status_for(named) is ExitStatus.USAGE
    # the machine (a locked database) or a bug: 2, never 1, which CI reads as findings
    assert exit_status_for(sqlite3.OperationalError("database is locked")) is ExitStatus.USAGE
    assert exit_status_for(ZeroDivisionError()) is ExitStatus.USAGE


def test_commands_end_a_failed_run_with_one_line_and_the_tables_status(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-rules"
    for args in (["rules", "--rules-dir", str(missing)], ["explain", "RB101", "--rules-dir", str(missing)]):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == ExitStatus.USAGE, result.output
        assert result.stderr.startswith(f"reviewbot {args[0]}: ") and result.stderr.count("\n") == 1
        assert "rules directory does not exist" in result.stderr
