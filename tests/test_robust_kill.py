"""Issue 13: drafting is kill-safe.

``reviewbot draft`` runs as a real subprocess over a real SQLite file and is
killed with SIGKILL at many points; its file operations (fsync, rename, mkdir)
are slowed so the kills land inside the writes. After every kill the outbox
holds nothing but whole ``.eml`` drafts (no temporary file that ``git
send-email outbox/`` would send), and a plain re-run ends with the same
outbox, Maildir and database as a run that was never killed. A Maildir left
without ``cur/`` by a kill is completed, not refused.
"""

from __future__ import annotations

import mailbox
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reviewbot.store import Store
from helpers import THREADS, load_thread, read_mbox_messages

SLOW = """
import os, sys, time
def slowed(fn):
    def run(*a, **k):
        time.sleep(0.04)
        return fn(*a, **k)
    return run
for name in ("fsync", "replace", "rename", "link", "mkdir", "makedirs"):
    setattr(os, name, slowed(getattr(os, name)))
sys.argv = ["reviewbot", *sys.argv[1:]]
from reviewbot.cli import main
main()
"""


@pytest.fixture(scope="module")
def seeded(tmp_path_factory) -> Path:
    from reviewbot.registry import load_rules

    rules = load_rules(entry_points=False)
    base = tmp_path_factory.mktemp("seed")
    with Store(base / "db.sqlite") as store:
        for name in ("barrier", "perf-claim", "struct-reorder", "perf-claim-subject"):
            load_thread(store, read_mbox_messages(THREADS / f"{name}.mbox"), rules)
    (base / "config.toml").write_text(
        'draft-unsure = true\n[identity]\nname = "Zoë Reviewer"\nemail = "zoe@example.com"\n', encoding="utf-8"
    )
    return base


def _env(seed: Path, run: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("REVIEWBOT_DB", None)
    env.update(
        {
            "REVIEWBOT_CONFIG": str(seed / "config.toml"),
            "REVIEWBOT_NOW": "2025-03-20T08:30:00",
            "XDG_CONFIG_HOME": str(run / "xdg"),
            "XDG_DATA_HOME": str(run / "xdg"),
            "XDG_CACHE_HOME": str(run / "xdg"),
        }
    )
    return env


def _fresh(seed: Path, run: Path) -> list[str]:
    run.mkdir(parents=True)
    shutil.copy(seed / "db.sqlite", run / "db.sqlite")
    return [
        "draft",
        "--db",
        str(run / "db.sqlite"),
        "--outbox",
        str(run / "outbox"),
        "--maildir",
        str(run / "Mail" / "Drafts"),
    ]


def _snapshot(run: Path) -> tuple:
    outbox = {p.name: p.read_bytes() for p in (run / "outbox").iterdir() if p.is_file()}
    box = mailbox.Maildir(str(run / "Mail" / "Drafts"), create=False)
    ids = sorted(m["Message-ID"] for m in box)
    with Store(run / "db.sqlite") as store:
        rows = {t: v for t, v in store.dump_rows().items() if t in ("drafts", "draft_findings", "draft_skips")}
    norm = repr(rows).replace(str(run), "RUN")
    norm = __import__("re").sub(r"'maildir_key', '[^']*'", "'maildir_key', K", norm)
    return outbox, ids, norm


def _outbox_only_drafts(run: Path) -> None:
    outbox = run / "outbox"
    if outbox.is_dir():
        files = [p.name for p in outbox.iterdir() if p.is_file()]
        assert all(name.endswith(".eml") and not name.startswith(".") for name in files), files


@pytest.mark.slow
def test_draft_killed_anywhere_then_rerun_equals_clean_run(seeded: Path, tmp_path: Path) -> None:
    clean = tmp_path / "clean"
    args = _fresh(seeded, clean)
    t0 = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", SLOW, *args], env=_env(seeded, clean), capture_output=True, text=True, timeout=300
    )
    took = time.monotonic() - t0
    assert done.returncode == 0, done.stderr
    want = _snapshot(clean)
    assert len(want[0]) >= 3 and len(want[1]) == len(want[0])
    kills = 10
    landed = 0
    for n in range(kills):
        run = tmp_path / f"kill{n}"
        args = _fresh(seeded, run)
        env = _env(seeded, run)
        proc = subprocess.Popen(
            [sys.executable, "-c", SLOW, *args], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        time.sleep(took * (0.35 + 0.65 * n / kills))
        if proc.poll() is None:
            landed += 1
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        _outbox_only_drafts(run)
        again = subprocess.run(
            [sys.executable, "-m", "reviewbot", *args], env=env, capture_output=True, text=True, timeout=300
        )
        assert again.returncode == 0, again.stderr
        _outbox_only_drafts(run)
        assert not (run / "outbox" / ".reviewbot-tmp").exists()
        assert _snapshot(run) == want, f"kill {n}"
    assert landed >= kills // 2  # most kills hit a running process


def test_maildir_without_cur_is_completed(seeded: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    args = _fresh(seeded, run)
    (run / "Mail" / "Drafts" / "tmp").mkdir(parents=True)  # a kill while the first run made the Maildir
    done = subprocess.run(
        [sys.executable, "-m", "reviewbot", *args], env=_env(seeded, run), capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    box = mailbox.Maildir(str(run / "Mail" / "Drafts"), create=False)
    assert len(box) == len(list((run / "outbox").glob("*.eml"))) >= 3


def test_stale_temporary_files_are_removed_by_draft(seeded: Path, tmp_path: Path) -> None:
    """A killed run's temporary files (this release's folder and an older release's ``.tmp-*.PID``
    beside the drafts) are removed by the next ``draft``; a live process's file is kept."""
    run = tmp_path / "run"
    args = _fresh(seeded, run)
    outbox = run / "outbox"
    (outbox / ".reviewbot-tmp").mkdir(parents=True)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    (outbox / ".reviewbot-tmp" / f"x.eml.{dead.pid}").write_text("half")
    (outbox / f".tmp-y.eml.{dead.pid}").write_text("half")
    (outbox / f".tmp-z.eml.{os.getpid()}").write_text("being written")  # alive: kept
    done = subprocess.run(
        [sys.executable, "-m", "reviewbot", *args], env=_env(seeded, run), capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in outbox.iterdir() if not p.name.endswith(".eml")) == [f".tmp-z.eml.{os.getpid()}"]
