"""Issue 24: a hostile or broken public-inbox host cannot crash, hold or fill a run.

A hostile HTTP server on 127.0.0.1, written here, answers as a broken lore might: a manifest that is a
gzip bomb, one listing 100,000 epochs or absurd numbers, a git answer dripped a byte at a time. The
runs are real (``reviewbot scan``/``cron`` in a subprocess where memory, the lock and a kill are
tested; :func:`scan_lore` otherwise) with real git. A message too large for a run comes from a real
public-inbox server (tests/lore_server.py) whose epoch holds it.
"""

from __future__ import annotations

import fcntl
import gzip
import io
import json
import os
import signal
import subprocess
import sys
import threading
import time
from datetime import date
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from lore_server import LoreServer, copy_inbox

from reviewbot.config import Settings
from reviewbot.fetch import lore
from reviewbot.scan_lore import scan_lore
from reviewbot.store import Store

JUNE = (date(2023, 6, 1), date(2023, 6, 30))


class Hostile:
    """What the hostile server answers: ``manifest`` (bytes) at ``/lkml/manifest.js.gz``; git requests
    under ``/lkml/N/`` are dripped (``drip``: seconds between bytes) or 404; every request is logged."""

    def __init__(self) -> None:
        self.manifest: bytes = b""
        self.drip: float | None = None
        self.requests: list[str] = []
        self.lock = threading.Lock()


def _handler(state: Hostile):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args) -> None:
            pass

        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            with state.lock:
                state.requests.append(self.path)
            if self.path == "/lkml/manifest.js.gz" and state.manifest:
                self.send_response(200)
                self.send_header("Content-Type", "application/gzip")
                self.send_header("Content-Length", str(len(state.manifest)))
                self.end_headers()
                self.wfile.write(state.manifest)
                return
            if self.path.startswith("/lkml/0/") and state.drip is not None:
                self.send_response(200)
                self.send_header("Content-Type", "application/x-git-upload-pack-advertisement")
                self.send_header("Content-Length", "100000")
                self.end_headers()
                try:
                    for _ in range(100000):
                        self.wfile.write(b"0")
                        self.wfile.flush()
                        time.sleep(state.drip)
                except OSError:
                    pass  # the client gave up
                return
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()

    return Handler


@pytest.fixture
def hostile():
    state = Hostile()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}"  # type: ignore[attr-defined]
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


def _settings(tmp_path: Path, url: str, timeout: float = 2) -> Settings:
    return Settings(
        lore_url=url, db_path=tmp_path / "db.sqlite", rate=0, retries=1, backoff=0, obey_robots=False, timeout=timeout
    )


def _bomb(inflated: int) -> bytes:
    """A gzip member that inflates to ``inflated`` bytes: a JSON string of zeros, never closed."""
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", compresslevel=9) as gz:
        gz.write(b'{"/lkml/git/0.git": {"modified": 1, "pad": "')
        chunk = b"0" * (1 << 20)
        for _ in range(inflated >> 20):
            gz.write(chunk)
    return out.getvalue()


def _manifest(entries: dict) -> bytes:
    return gzip.compress(json.dumps(entries).encode())


def _git_processes_for(url: str) -> list[str]:
    """Command lines of running processes that name ``url`` (git and its helpers of this test's runs)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if url in cmd and "pytest" not in cmd:
            found.append(f"{pid}: {cmd}")
    return found


def _temporary_clones(cache: Path) -> list[Path]:
    return [p for p in cache.rglob(".*.git-*") if p.is_dir()]


def _env(tmp_path: Path) -> dict[str, str]:
    config = tmp_path / "config.toml"
    config.write_text(
        "rate = 0\nobey-robots = false\ntimeout = 2\nretries = 1\nbackoff = 0\n"
        'draft-unsure = true\n[identity]\nname = "Zoë Reviewer"\nemail = "zoe@example.com"\n',
        encoding="utf-8",
    )
    return dict(
        os.environ,
        REVIEWBOT_CONFIG=str(config),
        XDG_CACHE_HOME=str(tmp_path / "cache"),
        XDG_DATA_HOME=str(tmp_path / "data"),
        REVIEWBOT_NOW="2023-07-06T00:00:00",
    )


def _run_measured(env: dict[str, str], args: list[str], out_dir: Path) -> tuple[int, str, str, int, float]:
    """Run ``python -m reviewbot ARGS``; (exit status, stdout, stderr, its peak memory in MB, seconds)."""
    start = time.monotonic()
    out_path, err_path = out_dir / "stdout", out_dir / "stderr"
    with out_path.open("wb") as out, err_path.open("wb") as err:
        proc = subprocess.Popen([sys.executable, "-m", "reviewbot", *args], env=env, stdout=out, stderr=err)
        _pid, status, usage = os.wait4(proc.pid, 0)  # this child's own peak memory (ru_maxrss, KiB)
        proc.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.monotonic() - start
    text = (out_path.read_text(errors="replace"), err_path.read_text(errors="replace"))
    return proc.returncode, text[0], text[1], usage.ru_maxrss // 1024, seconds


# ---------------------------------------------------------------------- the manifest


def test_a_manifest_gzip_bomb_is_not_inflated_past_the_bound(hostile, tmp_path: Path) -> None:
    hostile.manifest = _bomb(700 * 1024 * 1024)  # 700 MiB inflated; lore's manifests are kilobytes
    assert len(hostile.manifest) < 2 * 1024 * 1024
    env = _env(tmp_path)
    db = str(tmp_path / "db.sqlite")
    args = ["cron", "linux-kernel", "--source", "lore", "--lore-url", hostile.url, "--since", "2023-06-01"]
    args += ["--db", db, "--outbox", str(tmp_path / "outbox")]
    status, out, err, peak_mb, seconds = _run_measured(env, args, tmp_path)
    assert "Traceback" not in err and "MemoryError" not in err, err[-2000:]
    assert peak_mb < 500, f"peak memory {peak_mb} MB"
    assert "manifest inflates past" in out + err
    # the cron lock is free once the run is over, and the next run starts (and says the same)
    with open(db + ".lock", "a+b") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        fcntl.flock(fh, fcntl.LOCK_UN)
    status2, out2, err2, _peak, _s = _run_measured(env, args, tmp_path)
    assert "manifest inflates past" in out2 + err2 and "Traceback" not in err2, out2 + err2
    assert status2 == status


def test_an_epoch_list_too_long_is_refused_and_nothing_is_cloned(hostile, tmp_path: Path) -> None:
    hostile.manifest = _manifest({f"/lkml/git/{n}.git": {"modified": 1700000000 + n} for n in range(100_000)})
    start = time.monotonic()
    summary = scan_lore(_settings(tmp_path, hostile.url), "linux-kernel", *JUNE)
    assert time.monotonic() - start < 60
    assert any("more than 500 epochs" in why for _what, why in summary.errors), summary.errors
    assert summary.git_operations == 0
    assert not [r for r in hostile.requests if r.startswith("/lkml/") and "manifest" not in r]


def test_absurd_epoch_entries_are_passed_without_a_traceback(hostile, tmp_path: Path) -> None:
    hostile.manifest = _manifest(
        {
            "/lkml/git/99999999999999999999999999.git": {"modified": 1},
            "/lkml/git/123456789.git": {"modified": 1},
            "/lkml/git/0.git": {"modified": float("inf"), "fingerprint": "../../x"},
            "/lkml/git/1.git": {"modified": -5, "fingerprint": ["a"]},
        }
    )
    mirror = lore.InboxMirror(_settings(tmp_path, hostile.url), "lkml", root=tmp_path / "git")
    epochs = mirror.epochs()
    assert [(e.number, e.modified, e.fingerprint) for e in epochs] == [(0, None, None), (1, None, None)]
    summary = scan_lore(_settings(tmp_path, hostile.url), "linux-kernel", *JUNE, mirror=mirror)
    assert {what for what, _why in summary.errors} == {f"{hostile.url}/lkml/0", f"{hostile.url}/lkml/1"}


# ---------------------------------------------------------------------- git answers


def test_a_dripping_host_is_given_up_in_bounded_time_and_leaves_nothing(hostile, tmp_path: Path) -> None:
    hostile.manifest = _manifest({"/lkml/git/0.git": {"modified": 1688000000}})
    hostile.drip = 0.2  # 5 bytes a second: under git's low-speed limit, over the old one of 1
    settings = _settings(tmp_path, hostile.url, timeout=2)
    mirror = lore.InboxMirror(settings, "lkml", root=tmp_path / "git")
    start = time.monotonic()
    summary = scan_lore(settings, "linux-kernel", *JUNE, mirror=mirror)
    seconds = time.monotonic() - start
    assert seconds < 45, f"{seconds:.0f}s"
    assert summary.errors and summary.errors[0][0] == f"{hostile.url}/lkml/0", summary.errors
    assert "already exists" not in summary.errors[0][1]  # the retry cloned into an empty folder
    assert summary.git_operations == 2  # the first try and one retry
    assert _temporary_clones(tmp_path / "git") == []
    time.sleep(0.5)
    assert _git_processes_for(hostile.url) == []


def test_the_run_after_a_killed_first_clone_removes_its_temporary_clone(hostile, tmp_path: Path) -> None:
    hostile.manifest = _manifest({"/lkml/git/0.git": {"modified": 1688000000}})
    hostile.drip = 0.01  # fast enough for git to wait on it: the clone is under way when the run is killed
    env = _env(tmp_path)
    args = [sys.executable, "-m", "reviewbot", "scan", "linux-kernel", "--source", "lore", "--lore-url", hostile.url]
    args += ["--since", "2023-06-01", "--until", "2023-06-30", "--db", str(tmp_path / "db.sqlite")]
    proc = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    cache = tmp_path / "cache"
    try:
        deadline = time.monotonic() + 60
        while not _temporary_clones(cache) and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.1)
        assert _temporary_clones(cache), "the first clone started"
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the run and its git, as a kill -9 of the cron job's group would
        proc.wait()
    left = _temporary_clones(cache)
    assert left  # what the killed run left behind
    hostile.drip = None  # the host answers 404 now: the next run fails the clone quickly, and cleans up
    root = left[0].parent
    mirror = lore.InboxMirror(_settings(tmp_path, hostile.url), "lkml", root=root)
    scan_lore(_settings(tmp_path, hostile.url), "linux-kernel", *JUNE, mirror=mirror)
    assert _temporary_clones(cache) == []


# ---------------------------------------------------------------------- a message too large


def _add_message(inbox_git: Path, data: bytes, when: int, author_time: int | None = None) -> str:
    """Commit one more message ``m`` on the epoch's master (as public-inbox would), returns the commit id."""

    def git(*args: str, stdin: bytes | None = None) -> str:
        at = author_time if author_time is not None else when
        env = dict(os.environ, GIT_AUTHOR_DATE=f"@{at} +0000", GIT_COMMITTER_DATE=f"@{when} +0000")
        env.update(GIT_AUTHOR_NAME="a", GIT_AUTHOR_EMAIL="a@b", GIT_COMMITTER_NAME="a", GIT_COMMITTER_EMAIL="a@b")
        done = subprocess.run(["git", "--git-dir", str(inbox_git), *args], input=stdin, env=env, capture_output=True)
        assert done.returncode == 0, done.stderr
        return done.stdout.decode().strip()

    blob = git("hash-object", "-w", "--stdin", stdin=data)
    tree = git("mktree", stdin=f"100644 blob {blob}\tm\n".encode())
    head = git("rev-parse", "HEAD")
    commit = git("commit-tree", tree, "-p", head, "-m", "big")
    git("update-ref", "HEAD", commit)
    return commit


def test_a_message_too_large_is_passed_and_the_cursor_moves_past_it(
    lore_inbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inbox = copy_inbox(lore_inbox, tmp_path / "lore-home")
    monkeypatch.setattr(lore, "MAX_MESSAGE_BYTES", 1024 * 1024)  # the bound, small for the test
    big = b"From: x@example.org\nMessage-ID: <big@example.org>\nSubject: big\n\n" + b"a" * (3 * 1024 * 1024)
    epoch = next((inbox.home / "lkml" / "git").glob("*.git"))
    oid = _add_message(epoch, big, 1687000000)  # 2023-06-17
    odd = b"From: y@example.org\nMessage-ID: <odd@example.org>\nSubject: odd\n\nx\n"
    odd_oid = _add_message(epoch, odd, 1687000001, author_time=99_999_999_999_999)  # the year 3170843
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    with LoreServer(inbox.home) as server:
        settings = _settings(tmp_path, server.url)
        first = scan_lore(settings, "linux-kernel", *JUNE)
        assert first.ok, first.errors
        assert sorted(what.rsplit("@", 1)[1] for what, _why in first.passed) == sorted([oid, odd_oid])
        whys = dict((what.rsplit("@", 1)[1], why) for what, why in first.passed)
        assert "more than 1048576" in whys[oid] and "commit time out of range" in whys[odd_oid]
        with Store(settings.db_path) as store:
            assert not store.has_message("big@example.org")
            assert store.has_message("20230627120854.971475-3-chengming.zhou@linux.dev")
        second = scan_lore(settings, "linux-kernel", *JUNE)
    assert second.ok and second.commits_read == 0  # the cursor went past both
