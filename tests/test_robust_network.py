"""Issue 13: network bounds. A hostile server on 127.0.0.1 sends a gzip bomb, an endless chunked
body, or drips a page one byte at a time; every request ends with a FetchError naming the page,
within a total deadline and without reading more than the body limit. Ctrl-C during such a
read ends ``scan`` within a couple of seconds."""

from __future__ import annotations

import gzip
import http.server
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from reviewbot.config import Settings
from reviewbot.errors import FetchError
from reviewbot.fetch import http as rb_http
from reviewbot.fetch.http import PoliteSession

BOMB = gzip.compress(b"\0" * (80 * 1024 * 1024), compresslevel=9)  # 80 MiB of zeros in ~80 KB


class Hostile(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.stop = threading.Event()

        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):  # quiet
                pass

            def do_GET(self):  # noqa: N802
                if self.path == "/robots.txt":
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                try:
                    outer.serve(self)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        super().__init__(("127.0.0.1", 0), Handler)

    def serve(self, h) -> None:
        if self.mode == "mute":  # the request is read, no answer at all
            self.stop.wait(120)
            return
        h.send_response(200)
        h.send_header("Content-Type", "text/html")
        if self.mode == "bomb":
            h.send_header("Content-Encoding", "gzip")
            h.send_header("Content-Length", str(len(BOMB)))
            h.end_headers()
            h.wfile.write(BOMB)
        elif self.mode == "endless":
            h.send_header("Transfer-Encoding", "chunked")
            h.end_headers()
            block = b"x" * 65536
            while not self.stop.is_set():
                h.wfile.write(b"%x\r\n%s\r\n" % (len(block), block))
        elif self.mode == "silent":  # headers sent, then nothing: the client waits for the body
            h.send_header("Content-Length", "100")
            h.end_headers()
            self.stop.wait(120)
        elif self.mode == "drip":
            h.send_header("Content-Length", "100000")
            h.end_headers()
            for _ in range(100000):
                if self.stop.is_set():
                    return
                h.wfile.write(b"x")
                h.wfile.flush()
                time.sleep(0.05)

    def __enter__(self):
        threading.Thread(target=self.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.shutdown()
        self.server_close()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


def _settings(url: str, tmp: Path, timeout: float = 1.0) -> Settings:
    return Settings(
        base_url=url,
        db_path=tmp / "db.sqlite",
        cache_dir=tmp / "cache",
        rate=0.0,
        retries=0,
        backoff=0.0,
        timeout=timeout,
        obey_robots=False,
    )


@pytest.mark.parametrize("mode", ["bomb", "endless"])
def test_body_size_is_bounded_after_decompression(tmp_path: Path, mode: str) -> None:
    with Hostile(mode) as srv:
        session = PoliteSession(_settings(srv.base_url, tmp_path, timeout=10.0))
        with pytest.raises(FetchError) as err:
            session.get(srv.base_url + "/linux-kernel/2023/06/01/1")
    assert "body larger than 64 MiB" in err.value.message
    assert err.value.url.endswith("/linux-kernel/2023/06/01/1")


def test_a_dripped_page_ends_at_the_deadline(tmp_path: Path) -> None:
    with Hostile("drip") as srv:
        session = PoliteSession(_settings(srv.base_url, tmp_path, timeout=0.5))  # deadline 4 x 1 s
        start = time.monotonic()
        with pytest.raises(FetchError) as err:
            session.get(srv.base_url + "/linux-kernel/2023/06/01/1")
        took = time.monotonic() - start
    assert "did not arrive within 4s" in err.value.message
    assert took < 4 + 2  # the read timeout alone never fired: every byte reset it


def test_limits_are_what_the_module_says() -> None:
    assert rb_http.MAX_BODY_BYTES == 64 * 1024 * 1024 and rb_http.DEADLINE_TIMEOUTS == 4


@pytest.mark.parametrize("mode", ["drip", "silent", "mute"])
def test_ctrl_c_ends_scan_quickly(tmp_path: Path, mode: str) -> None:
    """A dripped page, a body that never comes, a server that never answers: Ctrl-C after 3 s."""
    config = tmp_path / "config.toml"
    config.write_text("timeout = 30\nretries = 0\nobey-robots = false\nrate = 0\n", encoding="utf-8")
    env = dict(
        os.environ,
        REVIEWBOT_CONFIG=str(config),
        XDG_CACHE_HOME=str(tmp_path / "c"),
        XDG_DATA_HOME=str(tmp_path / "d"),
        XDG_CONFIG_HOME=str(tmp_path / "x"),
    )
    env.pop("REVIEWBOT_DB", None)
    with Hostile(mode) as srv:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "reviewbot",
                "scan",
                "linux-kernel",
                "--since",
                "2023-06-01",
                "--until",
                "2023-06-01",
                "--base-url",
                srv.base_url,
                "--db",
                str(tmp_path / "db"),
                "--cache-dir",
                str(tmp_path / "cache"),
            ],
            env=env,
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        time.sleep(3)  # inside the dripped page by now
        assert proc.poll() is None
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        try:
            _out, errors = proc.communicate(timeout=20)
        finally:
            proc.kill()
        took = time.monotonic() - sent
    assert took < 3, errors
    assert "Traceback" not in errors


def test_ctrl_c_while_a_worker_waits_for_a_message_page(tmp_path: Path) -> None:
    """Index pages answer; no message page of the day ever answers: the fetch-ahead worker is
    blocked when Ctrl-C arrives. The interpreter joins its threads on exit, so the worker's
    request must end too (it took 27 s, the read timeout, before)."""
    from conftest import DATA_MIRROR as MIRROR  # a day of the pages the project carries
    from mirror_server import Fault, MirrorServer

    def faults(path: str, attempt: int):
        if path.startswith("/linux-kernel/2023/06/01/") and path.rstrip("/") != "/linux-kernel/2023/06/01":
            return Fault("slow", delay=60)
        return None

    config = tmp_path / "config.toml"
    config.write_text("timeout = 30\nretries = 0\nobey-robots = false\nrate = 0\n", encoding="utf-8")
    env = dict(
        os.environ,
        REVIEWBOT_CONFIG=str(config),
        XDG_CACHE_HOME=str(tmp_path / "c"),
        XDG_DATA_HOME=str(tmp_path / "d"),
        XDG_CONFIG_HOME=str(tmp_path / "x"),
    )
    env.pop("REVIEWBOT_DB", None)
    with MirrorServer(MIRROR, faults=faults) as srv:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "reviewbot",
                "scan",
                "linux-kernel",
                "--since",
                "2023-06-01",
                "--until",
                "2023-06-01",
                "--all",
                "--base-url",
                srv.base_url,
                "--db",
                str(tmp_path / "db"),
                "--cache-dir",
                str(tmp_path / "cache"),
            ],
            env=env,
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        time.sleep(4)
        assert proc.poll() is None
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        try:
            _out, errors = proc.communicate(timeout=40)
        finally:
            proc.kill()
        took = time.monotonic() - sent
    assert took < 3, errors
    assert "interrupted" in errors and "Traceback" not in errors
