"""A command whose output is cut by ``head`` ends quietly, as other Unix tools do: no traceback, no
"Error", exit status 0 (``reviewbot.status.EXIT_STATUS_OF`` maps a closed pipe to 0), for every command.

Each run is the installed console script (``reviewbot``, beside this Python) writing into a real pipe
read by ``head -1``. So that the reader has surely left before the command writes (a command that
writes all its output into the pipe's buffer before ``head`` exits never meets the closed pipe), the
test gives ``head`` its one line first and waits for it to end; the command then writes into a pipe
nobody reads any more: what ``reviewbot scan ... | head -3`` meets on a long scan.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import CASES, DATA_MIRROR

SCRIPT = Path(sys.executable).with_name("reviewbot")
SCAN = ["linux-kernel", "--since", "2024-05", "--until", "2024-05", "--offline", "--cache-dir", str(DATA_MIRROR)]


def after_head_left(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    """Run ``reviewbot ARGS | head -1`` where ``head`` has already read its line and ended."""
    read_end, write_end = os.pipe()
    head = subprocess.Popen(["head", "-1"], stdin=read_end, stdout=subprocess.DEVNULL)
    os.close(read_end)
    os.write(write_end, b"the line head prints\n")
    assert head.wait(timeout=30) == 0
    try:
        return subprocess.run(
            [str(SCRIPT), *args], stdout=write_end, stderr=subprocess.PIPE, env=env, cwd=cwd, timeout=300, text=True
        )
    finally:
        os.close(write_end)


@pytest.fixture(scope="module")
def scanned(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """A database holding May 2024 of the test mirror (findings included), and an environment of its own."""
    if not SCRIPT.exists():
        pytest.skip(f"no console script {SCRIPT} (install the package: pip install -e .)")
    base = tmp_path_factory.mktemp("pipe")
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVIEWBOT_")}
    env.update(
        {
            "REVIEWBOT_NOW": "2024-06-01T00:00:00",
            "XDG_CACHE_HOME": str(base / "cache"),
            "XDG_CONFIG_HOME": str(base / "config"),
            "XDG_DATA_HOME": str(base / "data"),
            "HOME": str(base),
        }
    )
    db = base / "db.sqlite"
    done = subprocess.run(
        [str(SCRIPT), "scan", *SCAN, "--db", str(db)], env=env, cwd=base, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert "findings total" in done.stdout and done.stdout.count("\n") > 15  # more than one write's worth of lines
    return db, env


@pytest.mark.parametrize(
    "command",
    [
        ["scan", *SCAN, "--db", "DB"],
        ["findings", "--db", "DB"],
        ["findings", "--db", "DB", "--format", "json"],
        ["show", "--db", "DB", "https://lists.openwall.net/linux-kernel/2024/05/13/2"],
        ["check", "--strict", str(CASES)],
        ["explain", "RB102"],
        ["rules"],
        ["--help"],
        ["--version"],
    ],
    ids=lambda c: c[0],
)
def test_output_cut_by_head_ends_quietly(scanned, command: list[str]) -> None:
    db, env = scanned
    args = [str(db) if a == "DB" else a for a in command]
    done = after_head_left(args, env, db.parent)
    assert (done.returncode, done.stderr) == (0, "")
