"""Benchmark: scan the whole offline mirror over loopback HTTP with the rate limit off (``--all``).

Prints messages stored per second end to end (fetch, parse, store, threads,
rules), message pages parsed per second (page -> RawMessage -> Message ->
Patch, from bytes in memory), requests made and requests per message, and
the peak memory (ru_maxrss). Targets on a 2-core machine: >= 150 msg/s end to
end and >= 400 pages/s parsed.

    python benchmarks/scan_mirror.py [--shared ../shared] [--profile]

The mirror server runs in a separate process (tests/mirror_server.py) so the
scan gets the CPU it would get against a remote host.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import resource
import subprocess
import sys
import tempfile
import time
from datetime import date, datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SERVER = """
import sys, time
sys.path.insert(0, {tests!r})
from pathlib import Path
from mirror_server import MirrorServer
srv = MirrorServer(Path({mirror!r})).start()
print(srv.base_url, flush=True)
sys.stdin.read()
srv.stop()
"""


def parse_pages(mirror: Path) -> tuple[int, float]:
    """Parse every message page of the mirror from memory; returns (pages, seconds)."""
    from reviewbot.fetch.openwall import parse_message_page
    from reviewbot.parse.mail import parse_message
    from reviewbot.parse.patch import parse_patch
    from reviewbot.errors import ParseError

    pages = []
    base = "https://lists.openwall.net"
    for path in sorted((mirror / "linux-kernel").glob("*/*/*/*.html")):
        if path.name == "index.html":
            continue
        rel = path.relative_to(mirror).as_posix()[:-5]
        pages.append((f"{base}/{rel}", path.read_bytes()))
    start = time.perf_counter()
    for url, body in pages:
        raw = parse_message_page(body, url, "linux-kernel")
        msg = parse_message(raw)
        if msg.subject.is_patch:
            try:
                parse_patch(msg)
            except ParseError:
                pass
    return len(pages), time.perf_counter() - start


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", type=Path, default=Path(os.environ.get("REVIEWBOT_SHARED", ROOT.parent / "shared")))
    ap.add_argument("--since", default="2018-11-01")
    ap.add_argument("--until", default="2026-06-30")
    ap.add_argument("--profile", action="store_true", help="print the 25 costliest functions of the scan")
    args = ap.parse_args()
    mirror = args.shared / "openwall-mirror"
    sys.path.insert(0, str(ROOT))

    from reviewbot.config import Settings
    from reviewbot.scan import scan

    proc = subprocess.Popen(
        [sys.executable, "-c", SERVER.format(tests=str(ROOT / "tests"), mirror=str(mirror))],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        base_url = proc.stdout.readline().strip()
        with tempfile.TemporaryDirectory() as tmp:
            settings = Settings(
                base_url=base_url,
                db_path=Path(tmp) / "db.sqlite",
                cache_dir=Path(tmp) / "cache",
                rate=0.0,
                retries=1,
                backoff=0.0,
            )
            now = datetime(2026, 11, 30, tzinfo=timezone.utc)
            profiler = cProfile.Profile() if args.profile else None
            start = time.perf_counter()
            if profiler:
                profiler.enable()
            summary = scan(
                settings,
                "linux-kernel",
                date.fromisoformat(args.since),
                date.fromisoformat(args.until),
                fetch_all=True,
                clock=lambda: now,
            )
            if profiler:
                profiler.disable()
            elapsed = time.perf_counter() - start
            start = time.perf_counter()
            again = scan(
                settings,
                "linux-kernel",
                date.fromisoformat(args.since),
                date.fromisoformat(args.until),
                fetch_all=True,
                clock=lambda: now,
            )
            rerun = time.perf_counter() - start
    finally:
        proc.stdin.close()
        proc.wait(timeout=10)

    pages, parse_s = parse_pages(mirror)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    n = summary.messages_stored
    print(f"scan {args.since}..{args.until} --all over loopback, rate limit off")
    print(f"  messages stored        {n}")
    print(f"  errors                 {len(summary.errors)}")
    print(f"  HTTP requests          {summary.requests}  ({summary.requests / max(n, 1):.4f} per message)")
    print(f"  patches checked        {summary.patches}; findings {summary.findings}")
    print(f"  end to end             {elapsed:.1f} s = {n / elapsed:.0f} messages/s (target >= 150)")
    print(f"  second run             {again.requests} requests, {rerun:.1f} s")
    print(f"  message pages parsed   {pages} in {parse_s:.1f} s = {pages / parse_s:.0f} pages/s (target >= 400)")
    print(f"  peak memory (maxrss)   {peak_mb:.0f} MB")
    if profiler:
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(25)
        print(out.getvalue())
    return 0 if not summary.errors else 1


if __name__ == "__main__":
    sys.exit(main())
