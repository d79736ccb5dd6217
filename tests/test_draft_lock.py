"""Issue 24: drafting runs never overlap. `reviewbot draft` takes the database's run lock (the one cron and
scan take) and, when another run holds it, says so and waits; three drafts at once write each draft once.

Real processes, a real SQLite database (an offline scan of May 2024 in tests/data's real archive
pages: six findings, one of them not asked, three drafts, so several drafts race) and the real lock file beside it.
"""

from __future__ import annotations

import os
import selectors
import shutil
import subprocess
import sys
from datetime import date, datetime, timezone
from pathlib import Path

import pytest

from conftest import DATA_MIRROR
from reviewbot.config import Settings
from reviewbot.cron import lock_path, run_lock
from reviewbot.scan import scan

NOW = datetime(2024, 7, 1, 6, 0, tzinfo=timezone.utc)


@pytest.fixture
def scanned(tmp_path: Path) -> Settings:
    settings = Settings(
        db_path=tmp_path / "db.sqlite",
        cache_dir=DATA_MIRROR,
        rate=0.0,
        lore_url="",
    )
    summary = scan(
        settings, "linux-kernel", date(2024, 5, 1), date(2024, 5, 31), fetch_all=True, offline=True, clock=lambda: NOW
    )
    assert summary.ok and summary.findings == 6  # RB201's sysfs show 'save CPU cycles': a finding, not asked
    return settings


def _env(tmp_path: Path) -> dict[str, str]:
    config = tmp_path / "config.toml"
    config.write_text(
        'draft-unsure = true\n[identity]\nname = "Zoë Reviewer"\nemail = "zoe@example.com"\n', encoding="utf-8"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("REVIEWBOT_", "XDG_"))}
    env.update(REVIEWBOT_CONFIG=str(config), REVIEWBOT_NOW=NOW.isoformat(), REVIEWBOT_LORE_URL="off")
    for var in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME"):
        env[var] = str(tmp_path / var.lower())
    return env


def _draft_cmd(settings: Settings, outbox: Path) -> list[str]:
    exe = shutil.which("reviewbot")
    cmd = [exe] if exe else [sys.executable, "-m", "reviewbot"]
    return [*cmd, "draft", "--db", str(settings.db_path), "--outbox", str(outbox), "--no-lore"]


def _read_line(stream, timeout: float) -> str:
    sel = selectors.DefaultSelector()
    sel.register(stream, selectors.EVENT_READ)
    ready = sel.select(timeout)
    sel.close()
    return stream.readline() if ready else ""


def test_draft_waits_for_the_run_holding_the_lock(scanned: Settings, tmp_path: Path) -> None:
    outbox = tmp_path / "outbox"
    with run_lock(lock_path(scanned)) as held:  # a cron run, say
        assert held
        proc = subprocess.Popen(
            _draft_cmd(scanned, outbox), env=_env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        line = _read_line(proc.stderr, timeout=60)
        assert f"holds {lock_path(scanned)}; waiting for it to end" in line
        assert proc.poll() is None and not list(outbox.glob("*.eml"))  # nothing written while it waits
    out, _err = proc.communicate(timeout=120)
    assert proc.returncode == 0, out
    written = [line for line in out.splitlines() if line.startswith("draft: ")]
    assert written and len(written) == len(list(outbox.glob("*.eml")))


def test_three_drafts_at_once_write_each_draft_once(scanned: Settings, tmp_path: Path) -> None:
    outbox = tmp_path / "outbox"
    env = _env(tmp_path)
    procs = [
        subprocess.Popen(
            _draft_cmd(scanned, outbox), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(3)
    ]
    outs = [p.communicate(timeout=180)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], outs
    written = [line for out in outs for line in out.splitlines() if line.startswith("draft: ")]
    emls = sorted(outbox.glob("*.eml"))
    assert len(written) == len(emls) == len({line for line in written}) == 3
