"""Time and peak memory of lore runs against a hostile or broken public-inbox host (issue 24).

Builds what a hostile host serves and runs ``reviewbot scan linux-kernel --source lore`` on it in a
subprocess, printing its exit status, seconds and peak memory (ru_maxrss of that process):

* ``bomb``: a manifest.js.gz of a few MB that inflates to SIZE MiB (default 8192: the issue's 8 GiB);
* ``big``: an inbox (public-inbox, from tests/data's sample mails) whose epoch holds one more message
  of SIZE MiB (default 2048), served by public-inbox-httpd.

Usage: python benchmarks/lore_hostile.py bomb|big [--size MiB]
Needs public-inbox (Debian package) for ``big``. Run with the reviewbot to measure on PYTHONPATH.
"""

from __future__ import annotations

import argparse
import gzip
import io
import os
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(url: str, home: Path) -> None:
    env = dict(os.environ, XDG_CACHE_HOME=str(home / "cache"), REVIEWBOT_CONFIG=str(home / "config.toml"))
    (home / "config.toml").write_text("rate = 0\nobey-robots = false\ntimeout = 5\nretries = 0\n")
    args = [sys.executable, "-m", "reviewbot", "scan", "linux-kernel", "--source", "lore", "--lore-url", url]
    args += ["--since", "2023-06-01", "--until", "2023-06-30", "--db", str(home / "db.sqlite")]
    start = time.monotonic()
    with open(home / "out", "wb") as out:
        proc = subprocess.Popen(args, env=env, stdout=out, stderr=subprocess.STDOUT)
        _pid, status, usage = os.wait4(proc.pid, 0)
    text = (home / "out").read_text(errors="replace")
    print(
        f"exit {os.waitstatus_to_exitcode(status)}, {time.monotonic() - start:.1f}s, "
        f"peak memory {usage.ru_maxrss // 1024} MB, traceback: {'Traceback' in text}"
    )
    print(
        "  "
        + "\n  ".join(line for line in text.splitlines() if line.startswith(("error", "passed", "Traceback")))[:2000]
    )


def bomb(size_mib: int, home: Path) -> None:
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", compresslevel=9) as gz:
        gz.write(b'{"/lkml/git/0.git": {"modified": 1, "pad": "')
        chunk = b"0" * (1 << 20)
        for _ in range(size_mib):
            gz.write(chunk)
    body = buf.getvalue()
    print(f"manifest: {len(body) / 1e6:.1f} MB, inflating to {size_mib} MiB")

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *a: object) -> None:
            pass

        def do_GET(self) -> None:  # noqa: N802
            data = body if self.path.endswith("manifest.js.gz") else b""
            self.send_response(200 if data else 404)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        run(f"http://127.0.0.1:{server.server_address[1]}", home)
    finally:
        server.shutdown()


def big(size_mib: int, home: Path) -> None:
    sys.path.insert(0, str(ROOT / "tests"))
    from lore_server import INBOX_FIRST, INBOX_LAST, LoreServer, build_inbox, corpus_mails

    mails = corpus_mails(ROOT / "tests" / "data" / "mail" / "lkml-sample.mbox", INBOX_FIRST, INBOX_LAST)
    build_inbox(home / "pi", "lkml", (m.data for m in mails))
    epoch = next((home / "pi" / "lkml" / "git").glob("*.git"))
    env = dict(
        os.environ,
        GIT_AUTHOR_DATE="1687000000 +0000",
        GIT_COMMITTER_DATE="1687000000 +0000",
        GIT_AUTHOR_NAME="a",
        GIT_AUTHOR_EMAIL="a@b",
        GIT_COMMITTER_NAME="a",
        GIT_COMMITTER_EMAIL="a@b",
    )

    def git(*a: str, stdin: bytes | None = None, **kw: object) -> str:
        return (
            subprocess.run(
                ["git", "--git-dir", str(epoch), *a], input=stdin, env=env, check=True, capture_output=True, **kw
            )
            .stdout.decode()
            .strip()
        )  # type: ignore[call-overload]

    msg = home / "big.eml"
    with msg.open("wb") as fh:
        fh.write(b"From: x@example.org\nMessage-ID: <big@example.org>\nSubject: big\n\n")
        line = b"a" * 1023 + b"\n"
        for _ in range(size_mib * 1024):
            fh.write(line)
    blob = git("hash-object", "-w", str(msg))
    tree = git("mktree", stdin=f"100644 blob {blob}\tm\n".encode())
    commit = git("commit-tree", tree, "-p", git("rev-parse", "HEAD"), "-m", "big")
    git("update-ref", "HEAD", commit)
    msg.unlink()
    print(f"epoch holds a message of {size_mib} MiB (commit {commit[:12]})")
    with LoreServer(home / "pi") as server:
        run(server.url, home)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=("bomb", "big"))
    ap.add_argument("--size", type=int, default=None, help="MiB (bomb: inflated size; big: the message)")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="lore-hostile-") as tmp:
        if a.what == "bomb":
            bomb(a.size or 8192, Path(tmp))
        else:
            big(a.size or 2048, Path(tmp))


if __name__ == "__main__":
    main()
