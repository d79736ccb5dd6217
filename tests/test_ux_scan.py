"""``reviewbot scan`` offline, as the README shows it: a mistyped list name is refused with the lists the
cache holds (the real mirror pages of tests/data/openwall-mirror as ``--cache-dir``)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from reviewbot.cli import main
from reviewbot.status import ExitStatus

MIRROR = Path(__file__).resolve().parent / "data" / "openwall-mirror"


def test_offline_typo_is_refused_with_the_lists_the_cache_holds(isolated_env: Path) -> None:
    cache = isolated_env / "mirror"
    shutil.copytree(MIRROR, cache)
    (cache / "not-a-list").mkdir()  # a folder without year pages is no list
    db = isolated_env / "db.sqlite"
    args = ["--since", "2024-05-01", "--until", "2024-05-01", "--offline", "--cache-dir", str(cache), "--db", str(db)]
    res = CliRunner().invoke(main, ["scan", "linux-kernal", *args])
    assert res.exit_code == ExitStatus.USAGE, res.output
    assert res.stderr == (
        f"reviewbot scan: 'linux-kernal': no such list in the cache {cache} (--offline); known lists: linux-kernel\n"
    )
    assert not db.exists()  # nothing queued as a failed page
    res = CliRunner().invoke(main, ["scan", "linux-kernel", *args])  # the right name is scanned
    assert res.exit_code in (ExitStatus.OK, ExitStatus.FINDINGS), res.output
    assert db.exists()


def _closed_port() -> int:
    import socket

    with socket.socket() as s:  # a port nothing listens on: the host refuses, as without network
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_unreachable_host_is_said_once_and_failed_pages_agree(isolated_env: Path) -> None:
    cache = isolated_env / "mirror"
    shutil.copytree(MIRROR, cache)
    day = cache / "linux-kernel" / "2024" / "05"
    for page in (day / "01").iterdir():  # two day pages the cache does not hold
        page.unlink()
    shutil.rmtree(day / "03")
    (day / "03").mkdir()
    base = f"http://127.0.0.1:{_closed_port()}"
    # a real process: the log's warning and the summary reach the terminal as a person sees them
    res = subprocess.run(
        [
            sys.executable,
            "-m",
            "reviewbot",
            "scan",
            "linux-kernel",
            "--since",
            "2024-05-01",
            "--until",
            "2024-05-03",
            "--base-url",
            base,
            "--cache-dir",
            str(cache),
            "--db",
            str(isolated_env / "db.sqlite"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert res.returncode == ExitStatus.PARTIAL_FAILURE, res.stdout + res.stderr
    both = res.stdout + res.stderr
    assert both.count("cannot be reached") + both.count("could not be reached") == 1, both
    assert both.count("Connection refused") == 1 and "error:" not in res.stdout, both
    failed = next(int(line.split("│")[2]) for line in res.stdout.splitlines() if "pages failed" in line)
    assert failed == 2
    assert (
        f"2 pages could not be read: host unreachable and not cached ({base}/linux-kernel/2024/05/01/, "
        f"{base}/linux-kernel/2024/05/03/)"
    ) in res.stdout
    assert "reviewbot scan: 2 page(s) failed" in res.stderr
