"""Issue 24: the crontab line reviewbot gives runs as written, in cron's own environment.

cron starts a job with PATH=/usr/bin:/bin, HOME and little else: a bare `reviewbot` (the README's
line before) is not found there (exit 127). `reviewbot cron LIST ... --print-crontab` prints the
line with this install's full path; it is run here as cron runs it, `env -i` and `/bin/sh -c`.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from reviewbot.config import shipped_cache_dir

pytestmark = pytest.mark.skipif(shipped_cache_dir() is None, reason="needs the checkout's archive_cache/")

CRON_ENV = ["PATH=/usr/bin:/bin", "SHELL=/bin/sh", "LOGNAME=cron"]  # what cron sets, besides HOME


def _reviewbot() -> list[str]:
    exe = shutil.which("reviewbot")
    return [exe] if exe else [sys.executable, "-m", "reviewbot"]


def test_printed_crontab_line_runs_in_crons_environment(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".config" / "reviewbot").mkdir(parents=True)
    (home / ".config" / "reviewbot" / "config.toml").write_text(
        'draft-unsure = true\n[identity]\nname = "Zoë Reviewer"\nemail = "zoe@example.com"\n', encoding="utf-8"
    )
    copy = shipped_cache_dir() / "lists.openwall.net"  # type: ignore[operator]
    args = ["--offline", "--no-lore", "--since", "2023-06-01", "--cache-dir", str(copy)]
    args += ["--db", "db.sqlite", "--outbox", "outbox"]  # relative here; cron starts in HOME
    printed = subprocess.run(
        [*_reviewbot(), "cron", "linux-kernel", *args, "--print-crontab"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=True,
    ).stdout
    (line,) = printed.splitlines()
    fields = line.split(None, 5)
    assert fields[:5] == ["17", "*", "*", "*", "*"]
    command = fields[5]
    program = next(word for word in command.split() if "=" not in word)  # after settings the environment gave
    assert program.startswith("/") and f" --db {tmp_path / 'db.sqlite'} " in command
    # cron's environment: nothing of this shell's (no venv on PATH); a fixed clock keeps the run short
    env = ["env", "-i", f"HOME={home}", *CRON_ENV]
    done = subprocess.run(
        [*env, "/bin/sh", "-c", f"REVIEWBOT_NOW=2023-07-01T06:00:00 {command}"],
        capture_output=True,
        text=True,
        cwd=home,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("reviewbot cron linux-kernel: 2023-06-01 .. 2023-07-01, ")
    assert (tmp_path / "db.sqlite").is_file() and list((tmp_path / "outbox").glob("*.eml"))
    # the bare name is what cron cannot find
    bare = subprocess.run([*env, "/bin/sh", "-c", "reviewbot --version"], capture_output=True, cwd=home)
    assert bare.returncode == 127 or Path("/usr/bin/reviewbot").exists() or Path("/bin/reviewbot").exists()


def test_readme_gives_the_printed_line() -> None:
    """The README's crontab block is what --print-crontab prints (a full path), and says how to get it."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```cron\n(.*?)```", text, re.S)
    assert block is not None
    for line in block.group(1).splitlines():
        if line.strip() and not line.startswith("#"):
            assert line.split(None, 5)[5].startswith("/"), line
    assert "--print-crontab" in text


def test_settings_from_the_environment_go_into_the_line(tmp_path: Path) -> None:
    """REVIEWBOT_DB and REVIEWBOT_CONFIG set in this shell (a new user's setup) are in the printed line, paths
    absolute: cron's bare environment has none of them, and the job would use another database and identity."""
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith("REVIEWBOT_")}
    env.update(REVIEWBOT_DB="cron.db", REVIEWBOT_CONFIG=str(tmp_path / "cfg.toml"), REVIEWBOT_CONTACT="zoe@example.com")
    printed = subprocess.run(
        [*_reviewbot(), "cron", "linux-kernel", "--print-crontab"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        check=True,
    ).stdout
    command = printed.split(None, 5)[5]
    assert command.startswith(
        f"REVIEWBOT_CONFIG={tmp_path / 'cfg.toml'} REVIEWBOT_DB={tmp_path / 'cron.db'} REVIEWBOT_CONTACT=zoe@example.com /"
    ), command
