"""SIGKILL in the middle of ``reviewbot scan``: the re-run ends with the same database as an uninterrupted run.

The scan runs as a real subprocess against the mirror served over HTTP on
127.0.0.1; the server's request log says how far it got, and the process is
killed with SIGKILL after N requests. Then the same command runs again to
the end and every row of every table is compared with a scan that was never
interrupted. The cache must hold no half-written page under a real name.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import DATA_MIRROR
from mirror_server import MirrorServer
from reviewbot.fetch.archive import check_page
from reviewbot.fetch.cache import ArchiveCache
from reviewbot.store import Store

NOW = "2026-11-30T12:00:00+00:00"
RANGE = ("--since", "2023-06", "--until", "2023-07")  # 160 messages of tests/data


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVIEWBOT_")}
    env.update(
        {
            "REVIEWBOT_NOW": NOW,
            "XDG_CONFIG_HOME": str(home / "config"),
            "XDG_CACHE_HOME": str(home / "cache-home"),
            "XDG_DATA_HOME": str(home / "data"),
        }
    )
    return env


def _cmd(base_url: str, work: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "reviewbot",
        "scan",
        "linux-kernel",
        *RANGE,
        "--base-url",
        base_url,
        "--rate",
        "0",
        "--db",
        str(work / "db.sqlite"),
        "--cache-dir",
        str(work / "cache"),
        *extra,
    ]


def _run(server: MirrorServer, work: Path, *extra: str) -> subprocess.CompletedProcess:
    work.mkdir(parents=True, exist_ok=True)
    return subprocess.run(
        _cmd(server.base_url, work, *extra), cwd=work, env=_env(work), capture_output=True, text=True, timeout=300
    )


def _run_and_kill(server: MirrorServer, work: Path, after_requests: int, *extra: str) -> int:
    """Start the scan, SIGKILL it once the server has logged ``after_requests`` requests; returns that count."""
    work.mkdir(parents=True, exist_ok=True)
    server.reset_log()
    proc = subprocess.Popen(
        _cmd(server.base_url, work, *extra),
        cwd=work,
        env=_env(work),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    try:
        while len(server.requests) < after_requests and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.0005)
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    return len(server.requests)


def _cache_is_sound(root: Path, base_url: str) -> int:
    """Every cached page under a real name is complete; returns the number of stray temp files."""
    cache = ArchiveCache(root, base_url=base_url, readonly=True)
    strays = 0
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            path = Path(dirpath) / name
            if name.startswith(".") and name.endswith(".tmp"):
                strays += 1
                continue
            if name.endswith(".html"):
                rel = path.relative_to(root).as_posix()
                url = f"{base_url}/{rel[: -len('index.html')] if name == 'index.html' else rel[:-5]}"
                check_page(cache.info(url), path.read_bytes(), url)
    return strays


@pytest.fixture(scope="module")
def server():
    with MirrorServer(DATA_MIRROR) as srv:
        yield srv


@pytest.fixture(scope="module")
def reference(server: MirrorServer, tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    """Uninterrupted runs (--all and default mode): every table's rows."""
    out = {}
    for mode, extra in (("all", ("--all",)), ("default", ())):
        work = tmp_path_factory.mktemp(f"ref-{mode}")
        server.reset_log()
        done = _run(server, work, *extra)
        assert done.returncode == 0, done.stderr
        with Store(work / "db.sqlite") as store:
            out[mode] = store.dump_rows()
        out[mode + "-requests"] = len(server.requests)
    return out


@pytest.mark.slow
@pytest.mark.parametrize(
    "mode,kills",
    [
        ("all", (3, 40, 100)),  # at the year page, early, and mid-scan: three kills in one scan
        ("all", (140,)),
        ("default", (20, 90)),
        ("all", (-1,)),  # after the last request: killed while storing findings
    ],
)
def test_sigkill_then_rerun_gives_the_same_database(
    server: MirrorServer, reference: dict, tmp_path: Path, mode: str, kills: tuple[int, ...]
) -> None:
    extra = ("--all",) if mode == "all" else ()
    total = reference[mode + "-requests"]
    killed_at = []
    for n in kills:
        n = total if n == -1 else n
        if n > total:
            continue
        killed_at.append(_run_and_kill(server, tmp_path, n, *extra))
    assert killed_at, "every kill point is past the end of the scan"
    strays = _cache_is_sound(tmp_path / "cache", server.base_url)
    server.reset_log()
    done = _run(server, tmp_path, *extra)
    assert done.returncode == 0, done.stderr
    with Store(tmp_path / "db.sqlite") as store:
        rows = store.dump_rows()
    want = reference[mode]
    compared = sum(len(v) for v in want.values())
    different = sum(len(set(want[t]) ^ set(rows.get(t, []))) for t in want)
    print(
        f"\nSIGKILL {mode}: killed after {killed_at} requests (of {total}); re-run made "
        f"{len(server.requests)} requests; stray temp files {strays}; rows compared {compared}, "
        f"rows different {different}"
    )
    for t in want:
        for row in sorted(set(want[t]) ^ set(rows.get(t, [])), key=repr)[:6]:
            print(
                "DIFF",
                t,
                "ref" if row in want[t] else "rerun",
                [
                    kv
                    for kv in row
                    if kv[0]
                    in (
                        "message_id",
                        "fingerprint",
                        "rule_id",
                        "state",
                        "thread_id",
                        "url",
                        "series_key",
                        "list",
                        "last_complete_day",
                    )
                ],
            )
    assert rows == want
    assert _cache_is_sound(tmp_path / "cache", server.base_url) == strays
