"""Issue 13: storage faults end with one clear line, never a traceback, and never touch a foreign file.

Real SQLite files: another program's database given as ``--db`` is refused
before anything is written; a database locked by another connection past the
wait, and a disk that fills up (a file size limit on the subprocess), give one
line and exit status 2; ``scan`` takes the same run lock as ``cron``.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from reviewbot import store as store_module
from reviewbot.cli import main
from reviewbot.config import Settings
from reviewbot.cron import lock_path, run_lock
from reviewbot.errors import StoreError
from reviewbot.store import Store
from helpers import cli_env


def _foreign(path: Path) -> str:
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)")
        conn.execute("INSERT INTO users(name) VALUES ('ada')")
    conn.close()
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_foreign_database_is_refused_before_anything_is_written(tmp_path: Path, monkeypatch) -> None:
    db = tmp_path / "other.sqlite"
    digest = _foreign(db)
    with pytest.raises(StoreError, match=r"not a reviewbot database \(it holds other tables: users\)"):
        Store(db)
    cli_env(tmp_path, monkeypatch)
    result = CliRunner().invoke(main, ["draft", "--db", str(db), "--outbox", str(tmp_path / "out")])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "not a reviewbot database" in result.output
    assert hashlib.sha256(db.read_bytes()).hexdigest() == digest
    assert not Path(str(db) + "-wal").exists()
    with sqlite3.connect(db) as conn:
        assert [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")] == ["users"]
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    conn.close()


def test_empty_database_file_is_taken(tmp_path: Path) -> None:
    db = tmp_path / "empty.sqlite"
    sqlite3.connect(db).close()
    with Store(db) as store:
        assert store.count("messages") == 0


def test_locked_database_waits_then_says_so(tmp_path: Path, monkeypatch) -> None:
    db = tmp_path / "reviewbot.db"
    Store(db).close()
    monkeypatch.setattr(store_module, "BUSY_TIMEOUT", 0.3)
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    try:
        cli_env(tmp_path, monkeypatch)
        result = CliRunner().invoke(main, ["draft", "--db", str(db), "--outbox", str(tmp_path / "out")])
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert result.exit_code == 2, result.output
    assert "locked by another program" in result.output and "Traceback" not in result.output


def test_scan_takes_the_run_lock(tmp_path: Path, monkeypatch) -> None:
    cli_env(tmp_path, monkeypatch)
    db = tmp_path / "reviewbot.db"
    (tmp_path / "c").mkdir()  # an (empty) copy of the archive: offline, a missing one is refused first
    with run_lock(lock_path(Settings(db_path=db))) as held:
        assert held
        result = CliRunner().invoke(
            main,
            [
                "scan",
                "linux-kernel",
                "--since",
                "2023-06-01",
                "--until",
                "2023-06-01",
                "--offline",
                "--db",
                str(db),
                "--cache-dir",
                str(tmp_path / "c"),
            ],
        )
    assert result.exit_code == 2
    assert f"another scan or cron run holds {db}.lock" in result.output


FULL = """
import resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (MAXBYTES, MAXBYTES))
sys.argv = ["reviewbot", *sys.argv[1:]]
from reviewbot.cli import main
main()
"""


@pytest.mark.slow
def test_disk_full_is_one_line(tmp_path: Path, mirror_server) -> None:
    """Files may not grow past 400 KB (RLIMIT_FSIZE: writes fail like on a full disk)."""
    env = dict(
        os.environ,
        XDG_CACHE_HOME=str(tmp_path / "c"),
        XDG_DATA_HOME=str(tmp_path / "d"),
        XDG_CONFIG_HOME=str(tmp_path / "x"),
        REVIEWBOT_CONFIG=str(tmp_path / "none.toml"),
    )
    env.pop("REVIEWBOT_DB", None)
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            FULL.replace("MAXBYTES", "400_000"),
            "scan",
            "linux-kernel",
            "--since",
            "2023-06-01",
            "--until",
            "2023-06-30",
            "--all",
            "--rate",
            "0",
            "--base-url",
            mirror_server.base_url,
            "--db",
            str(tmp_path / "db.sqlite"),
            "--cache-dir",
            str(tmp_path / "cache"),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 2, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    assert "disk is full" in done.stderr.strip().splitlines()[-1]
