"""A real HTTP server on 127.0.0.1 that serves a mirror folder with the live URL scheme.

The folder is tests/data/openwall-mirror, or the whole mirror in ../shared.

It is the tests' stand-in for lists.openwall.net (see the mirror's README):
a path ending in ``/`` serves that directory's ``index.html``; a message path
``.../N`` serves ``N.html``; an attachment ``.../N/A`` serves the raw file with
the headers stored in ``N/A.headers``; an index path without its slash is
redirected (302) to the path plus ``/``; anything missing gets a blists error
page with status 200, as the live site does. ``/robots.txt`` is served from
``robots`` (None: 404, i.e. everything allowed).

``faults`` lets a test inject failures: a callable ``(path, attempt) -> Fault | None``
where ``attempt`` counts requests for that path (1-based). Every request is
logged in ``requests`` (path, status).
"""

from __future__ import annotations

import http.server
import re
import socket
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

MESSAGE_RE = re.compile(r"^/[a-z0-9-]+/\d{4}/\d{2}/\d{2}/[1-9]\d*$")
ATTACHMENT_RE = re.compile(r"^/[a-z0-9-]+/\d{4}/\d{2}/\d{2}/[1-9]\d*/[1-9]\d*$")
INDEX_NO_SLASH_RE = re.compile(r"^/[a-z0-9-]+(?:/\d{4}(?:/\d{2}(?:/\d{2})?)?)?$")

ERROR_PAGE = (
    '<!DOCTYPE html>\n<html>\n<head>\n<meta charset="utf-8">\n\n'
    "<title>The request has failed: {reason}</title>\n"
    '<meta name="robots" content="noindex">\n</head>\n<body>\n'
    "<p>The request has failed: {reason}\n"
    '<p><a href="https://www.openwall.com/blists/">Powered by blists</a> - '
    '<a href="https://lists.openwall.net">more mailing lists</a>\n</body>\n</html>\n'
)


@dataclass
class Fault:
    """What to do instead of (or to) the normal response.

    kind: "status" (send ``status`` with ``headers`` and a short body),
    "slow" (sleep ``delay`` seconds before answering normally),
    "reset" (send headers and part of the body, then close the socket),
    "truncate" (send only the first ``keep`` bytes, with a matching Content-Length),
    "error-page" (a blists error page with status 200),
    "body" (serve ``body`` bytes with status 200 instead of the file),
    "drop" (close the connection without sending any response).
    """

    kind: str
    status: int = 500
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    keep: int = 200
    body: bytes = b""
    reason: str = "Invalid request syntax"


class MirrorServer:
    """Serve ``root`` on an ephemeral loopback port until ``stop()``; usable as a context manager."""

    def __init__(
        self,
        root: Path,
        faults: Callable[[str, int], Fault | None] | None = None,
        robots: str | None = None,
    ) -> None:
        self.root = Path(root)
        self.faults = faults
        self.robots = robots
        self.requests: list[tuple[str, int]] = []
        self.attempts: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._httpd: http.server.ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._last_base_url: str | None = None

    # -- lifecycle
    @property
    def base_url(self) -> str:
        if self._httpd is None:  # stopped: the address it had (tests assert on URLs afterwards)
            assert self._last_base_url is not None, "server never started"
            return self._last_base_url
        host, port = self._httpd.server_address[:2]
        self._last_base_url = f"http://{host}:{port}"
        return self._last_base_url

    def start(self) -> "MirrorServer":
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body go out without a 40 ms delayed-ACK stall

            def log_message(self, fmt: str, *args: object) -> None:  # quiet
                return

            def do_GET(self) -> None:  # noqa: N802
                server._handle(self)

        class Server(http.server.ThreadingHTTPServer):
            def handle_error(self, request, client_address) -> None:  # noqa: ANN001
                import sys

                if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
                    return  # the client gave up (timeout test): not the server's fault
                super().handle_error(request, client_address)

        self._httpd = Server(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        _ = self.base_url
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> "MirrorServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def reset_log(self) -> None:
        with self._lock:
            self.requests.clear()
            self.attempts.clear()

    # -- request handling
    def _record(self, path: str, status: int) -> None:
        with self._lock:
            self.requests.append((path, status))

    def _send(
        self,
        h: http.server.BaseHTTPRequestHandler,
        status: int,
        body: bytes,
        headers: dict[str, str] | None = None,
        path: str = "",
    ) -> None:
        # logged before the answer goes out: a client that has its response always finds it in the log
        self._record(path, status)
        h.send_response(status)
        hdrs = {"Content-Type": "text/html; charset=utf-8", **(headers or {})}
        hdrs.setdefault("Content-Length", str(len(body)))
        for k, v in hdrs.items():
            h.send_header(k, v)
        h.end_headers()
        h.wfile.write(body)

    def _handle(self, h: http.server.BaseHTTPRequestHandler) -> None:
        path = h.path.split("?", 1)[0]
        with self._lock:
            self.attempts[path] += 1
            attempt = self.attempts[path]
        fault = self.faults(path, attempt) if self.faults else None
        if fault is not None:
            if fault.kind == "slow":
                time.sleep(fault.delay)
            elif fault.kind == "status":
                self._send(
                    h, fault.status, b"temporary failure\n", {"Content-Type": "text/plain", **fault.headers}, path
                )
                return
            elif fault.kind == "error-page":
                self._send(h, 200, ERROR_PAGE.format(reason=fault.reason).encode(), None, path)
                return
            elif fault.kind == "body":
                self._send(h, 200, fault.body, None, path)
                return
            elif fault.kind == "drop":
                self._record(path, -2)
                try:
                    h.connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                h.close_connection = True
                return
        status, body, headers = self._resolve(path)
        if fault is not None and fault.kind == "truncate" and status == 200:
            body = body[: fault.keep]
            headers = {**headers, "Content-Length": str(len(body))}
        if fault is not None and fault.kind == "reset" and status == 200:
            self._record(path, -1)
            h.send_response(200)
            h.send_header("Content-Type", headers.get("Content-Type", "text/html; charset=utf-8"))
            h.send_header("Content-Length", str(len(body)))
            h.end_headers()
            h.wfile.write(body[: max(1, min(fault.keep, len(body) // 2))])
            h.wfile.flush()
            try:
                h.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            h.close_connection = True
            return
        self._send(h, status, body, headers, path)

    def _resolve(self, path: str) -> tuple[int, bytes, dict[str, str]]:
        if path == "/robots.txt":
            if self.robots is None:
                return 404, b"not found\n", {"Content-Type": "text/plain"}
            return 200, self.robots.encode(), {"Content-Type": "text/plain"}
        if ".." in path.split("/"):
            return 200, ERROR_PAGE.format(reason="Invalid request syntax").encode(), {}
        if path.endswith("/"):
            target = self.root / path.lstrip("/") / "index.html"
            if target.is_file():
                return 200, target.read_bytes(), {}
            return 200, ERROR_PAGE.format(reason="No messages for this day").encode(), {}
        if ATTACHMENT_RE.match(path):
            target = self.root / path.lstrip("/")
            if target.is_file():
                headers: dict[str, str] = {}
                meta = target.with_name(target.name + ".headers")
                if meta.is_file():
                    for line in meta.read_text().splitlines():
                        if ":" in line:
                            k, v = line.split(":", 1)
                            headers[k.strip()] = v.strip()
                return 200, target.read_bytes(), headers
            return 404, b"The request has failed: Attachment not found\n", {"Content-Type": "text/plain"}
        if MESSAGE_RE.match(path):
            target = self.root / (path.lstrip("/") + ".html")
            if target.is_file():
                return 200, target.read_bytes(), {}
            return 200, ERROR_PAGE.format(reason="No such message").encode(), {}
        if INDEX_NO_SLASH_RE.match(path):
            return 302, b"", {"Location": path + "/", "Content-Type": "text/plain"}
        return 200, ERROR_PAGE.format(reason="Invalid request syntax").encode(), {}
