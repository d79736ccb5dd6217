"""The polite HTTP client for the archive: one connection, a rate limit, retries, robots.txt.

:class:`PoliteSession` wraps :class:`requests.Session` with urllib3's
:class:`~urllib3.util.retry.Retry` (backoff on 429/500/502/503/504, honouring
``Retry-After`` up to ``settings.max_retry_after`` seconds), timeouts, a
User-Agent naming reviewbot and its contact, a rate limiter (requests per
second, monotonic clock; retries wait for it too) and robots.txt (fetched once
per host through the same session). Redirects are followed only on the same
host (the site redirects ``/linux-kernel/2023/06`` to ``.../06/``). Every
failure becomes a :class:`~reviewbot.errors.FetchError` naming the URL, the
number of requests made for it and the last HTTP status;
connection refused / DNS failure / connect timeout become
:class:`~reviewbot.errors.HostUnreachable`.
"""

from __future__ import annotations

import logging
import os
import re
import socket
import threading
import time
import weakref
from dataclasses import dataclass
from datetime import datetime, timezone
from http.client import RemoteDisconnected
from typing import Any, Callable
from urllib import robotparser
from urllib.parse import urljoin, urlsplit

import requests
import urllib3
import urllib3.connection
from requests.adapters import HTTPAdapter
from urllib3.exceptions import (
    ConnectTimeoutError,
    NameResolutionError,
    NewConnectionError,
    ProtocolError,
    ReadTimeoutError,
)
from urllib3.util.retry import Retry

from reviewbot.config import Settings
from reviewbot.errors import FetchError, HostUnreachable

log = logging.getLogger(__name__)

__all__ = ["ArchivePage", "PoliteSession", "RateLimiter"]

RETRY_STATUSES = (429, 500, 502, 503, 504)
REDIRECT_STATUSES = (301, 302, 303, 307, 308)
MAX_REDIRECTS = 5
# The largest body read, after decompression: blists cuts messages at 10 MiB, and a page escapes
# them (&lt; ...) at most a few times over. A gzip bomb or an endless body stops here.
MAX_BODY_BYTES = 64 * 1024 * 1024
# A whole response (headers and body) must arrive within this many read timeouts: a page dripped
# one byte a second resets the read timeout on every byte.
DEADLINE_TIMEOUTS = 4
_CHUNK = 256 * 1024

_interrupted = threading.Event()
_in_flight: set = set()  # urllib3 responses whose body is being read (their sockets are shut down on exit)
_in_flight_lock = threading.Lock()
_exit_hook_registered = False


_connections: "weakref.WeakSet[Any]" = weakref.WeakSet()  # every connection our sessions opened


# Here, not in reviewbot.models: only fetch/ makes and reads pages, and a `reviewbot check` need not compile
# its methods. eq=False: a fetched page, compared by identity; repr=False: it would print the whole body.
@dataclass(frozen=True, eq=False, repr=False)
class ArchivePage:
    """One page of the archive as fetched or read from the cache.

    ``url`` is absolute; ``body`` the raw bytes (decode with errors="replace");
    ``from_cache`` tells whether a request was made. ``shipped``: the page came
    from the read-only copy of real pages shipped in ``archive_cache/``, not
    from the network or the user's cache.
    """

    url: str
    status: int
    body: bytes
    from_cache: bool
    fetched_at: datetime | None = None
    content_type: str | None = None
    shipped: bool = False


class _TrackedHTTPConnection(urllib3.connection.HTTPConnection):
    def connect(self) -> None:
        super().connect()
        _connections.add(self)


class _TrackedHTTPSConnection(urllib3.connection.HTTPSConnection):
    def connect(self) -> None:
        super().connect()
        _connections.add(self)


class _TrackedHTTPPool(urllib3.HTTPConnectionPool):
    ConnectionCls = _TrackedHTTPConnection


class _TrackedHTTPSPool(urllib3.HTTPSConnectionPool):
    ConnectionCls = _TrackedHTTPSConnection


class _Interrupted(Exception):
    """The interpreter is exiting (Ctrl-C): no retry, no further request."""


def _on_interpreter_exit() -> None:
    """Make requests in worker threads end now (Ctrl-C: the interpreter joins its threads on exit).

    Every open connection's socket is shut down, which wakes a read blocked
    waiting for headers or body; retries stop (see ``_PoliteRetry.increment``).
    """
    _interrupted.set()
    with _in_flight_lock:
        socks = [getattr(getattr(raw, "connection", None), "sock", None) for raw in _in_flight]
    socks += [getattr(conn, "sock", None) for conn in list(_connections)]
    for sock in socks:
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def _register_exit_hook() -> None:
    # concurrent.futures registers its own exit hook (joining its workers) when it is first imported:
    # import it now, so ours is registered after it and so runs before it
    import concurrent.futures.thread  # noqa: F401

    # threading's exit hooks run in reverse order of registration, before the interpreter joins
    # concurrent.futures' workers (registered when that module was imported, i.e. earlier)
    global _exit_hook_registered
    if not _exit_hook_registered:
        try:
            # private CPython hook, absent from typeshed; AttributeError below covers other Pythons
            threading._register_atexit(_on_interpreter_exit)  # type: ignore[attr-defined]
        except (AttributeError, RuntimeError):
            pass
        _exit_hook_registered = True


class RateLimiter:
    """At most ``rate`` calls of :meth:`wait` per second (0 or less: no limit), on a monotonic clock."""

    def __init__(
        self,
        rate: float,
        *,
        monotonic: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.interval = 1.0 / rate if rate and rate > 0 else 0.0
        self._monotonic = monotonic
        self._sleep = sleep
        self._next = 0.0
        self._lock = threading.Lock()

    def wait(self) -> float:
        """Block until the next request may go out; returns the seconds slept."""
        if not self.interval:
            return 0.0
        with self._lock:
            now = self._monotonic()
            delay = self._next - now
            if delay > 0:
                self._sleep(delay)
                now = self._monotonic()
            self._next = max(now, self._next) + self.interval
            return max(0.0, delay)


class _RetryAfterTooLong(Exception):
    def __init__(self, seconds: float, status: int) -> None:
        self.seconds = seconds
        self.status = status
        super().__init__(f"Retry-After {seconds:.0f}s")


class _PoliteRetry(Retry):
    """urllib3 Retry that caps Retry-After and reports every retry (to count and rate-limit it)."""

    def __init__(
        self,
        *args,
        on_retry: Callable[[], None] | None = None,
        max_retry_after: float | None = None,
        on_unsent: Callable[[], None] | None = None,
        **kwargs,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.on_retry = on_retry
        self.max_retry_after = max_retry_after
        self.on_unsent = on_unsent

    def new(self, **kw):
        fresh = super().new(**kw)
        fresh.on_retry = self.on_retry
        fresh.max_retry_after = self.max_retry_after
        fresh.on_unsent = self.on_unsent
        return fresh

    def increment(self, method=None, url=None, response=None, error=None, _pool=None, _stacktrace=None):
        if _interrupted.is_set():
            raise _Interrupted()
        # a connection that never opened (DNS failure, refused, connect timeout) sent no request
        if response is None and isinstance(error, (NewConnectionError, ConnectTimeoutError)) and self.on_unsent:
            self.on_unsent()
        return super().increment(method, url, response=response, error=error, _pool=_pool, _stacktrace=_stacktrace)

    def sleep_for_retry(self, response) -> bool:
        retry_after = self.get_retry_after(response)
        if retry_after and self.max_retry_after is not None and retry_after > self.max_retry_after:
            raise _RetryAfterTooLong(retry_after, response.status)
        return super().sleep_for_retry(response)

    def sleep(self, response=None) -> None:
        super().sleep(response)
        if self.on_retry is not None:
            self.on_retry()


def _origin(url: str) -> tuple[str, str, int | None]:
    p = urlsplit(url)
    scheme = p.scheme.lower()
    try:
        port = p.port or {"http": 80, "https": 443}.get(scheme)
    except ValueError:
        port = None
    return scheme, (p.hostname or "").lower(), port


def _root_cause(exc: BaseException) -> BaseException:
    """The urllib3 reason inside a requests exception (MaxRetryError.reason, or the exception)."""
    seen = exc
    for _ in range(5):
        arg = seen.args[0] if seen.args else None
        if isinstance(arg, urllib3.exceptions.MaxRetryError) and arg.reason is not None:
            return arg.reason
        if isinstance(arg, BaseException):
            seen = arg
            continue
        break
    return seen


def _name_resolution(cause: BaseException | None) -> NameResolutionError | None:
    """The NameResolutionError in ``cause``'s chain (args, __cause__, __context__), if any."""
    seen: set[int] = set()
    todo = [cause]
    while todo:
        cur = todo.pop()
        if cur is None or id(cur) in seen:
            continue
        seen.add(id(cur))
        if isinstance(cur, NameResolutionError):
            return cur
        reason = getattr(cur, "reason", None)
        todo.extend(a for a in (*cur.args, reason, cur.__cause__, cur.__context__) if isinstance(a, BaseException))
    return None


def _describe(cause: BaseException) -> str:
    """A short readable text for a urllib3/http.client failure."""
    if isinstance(cause, NameResolutionError):
        found = re.search(r"\[Errno -?\d+\] ([^)\"']+)", str(cause))
        return f"name resolution failed ({found.group(1).strip() if found else 'host name not found'})"
    if isinstance(cause, NewConnectionError):
        text = str(cause)
        marker = "Failed to establish a new connection: "
        return text.split(marker, 1)[1] if marker in text else text
    if isinstance(cause, ProtocolError) and cause.args:
        first = cause.args[0]
        inner = cause.args[1] if len(cause.args) > 1 else None
        if isinstance(inner, RemoteDisconnected):
            return "the server closed the connection without a response"
        if isinstance(inner, ConnectionResetError):
            return "connection reset by the server"
        return str(first).rstrip(".")
    return str(cause) or cause.__class__.__name__


class PoliteSession:
    """HTTP GET for archive pages, polite by construction.

    ``settings`` gives ``retries``, ``backoff`` (urllib3 backoff_factor, seconds),
    ``max_retry_after`` (seconds), ``timeout`` (seconds, connect and read),
    ``rate`` (requests/s, 0 = off), ``user_agent`` and ``obey_robots``.
    ``requests_made`` counts every real HTTP request (retries, redirects and
    robots.txt included) that reached the server: attempts whose connection
    never opened (DNS failure, refused, connect timeout) are not counted. Usable from one thread at a time per page (a lock
    keeps the single connection serial).
    """

    def __init__(
        self,
        settings: Settings,
        *,
        monotonic: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.settings = settings
        self.requests_made = 0
        self.limiter = RateLimiter(settings.rate, monotonic=monotonic, sleep=sleep)
        self._lock = threading.RLock()
        self._robots: dict[tuple, robotparser.RobotFileParser | None] = {}
        self._attempts = 0
        retries = max(0, int(settings.retries))
        self._retry = _PoliteRetry(
            total=retries,
            connect=min(1, retries),
            backoff_factor=settings.backoff,
            status_forcelist=RETRY_STATUSES,
            allowed_methods=frozenset({"GET"}),
            respect_retry_after_header=True,
            raise_on_status=False,
            raise_on_redirect=False,
            redirect=0,
            on_retry=self._count_retry,
            max_retry_after=settings.max_retry_after,
            on_unsent=self._count_unsent,
        )
        self.session = requests.Session()
        self.session.headers["User-Agent"] = settings.user_agent
        # Read proxy and CA settings from the environment once, not on every request
        # (requests' per-request lookup cost about 0.6 ms a page).
        self.session.proxies.update(requests.utils.get_environ_proxies(settings.base_url))
        ca_bundle = os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("CURL_CA_BUNDLE")
        if ca_bundle:
            self.session.verify = ca_bundle
        self.session.trust_env = False
        adapter = HTTPAdapter(max_retries=self._retry, pool_connections=1, pool_maxsize=1)
        # connections are tracked so Ctrl-C can wake a worker blocked on one (see _on_interpreter_exit)
        adapter.poolmanager.pool_classes_by_scheme = {"http": _TrackedHTTPPool, "https": _TrackedHTTPSPool}
        self.session.mount("http://", adapter)
        self.session.mount("https://", adapter)

    def _count_retry(self) -> None:
        self._attempts += 1
        self.requests_made += 1
        self.limiter.wait()

    def _count_unsent(self) -> None:
        # the connection never opened: the attempt is counted (``attempts``) but no request went out
        self.requests_made -= 1

    def close(self) -> None:
        """Close the connection."""
        self.session.close()

    def __enter__(self) -> "PoliteSession":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- public
    def get(self, url: str) -> ArchivePage:
        """GET ``url`` -> ArchivePage(status 200, body bytes, final URL after same-host redirects).

        Raises FetchError(url=, attempts=, status=) for robots.txt refusals,
        HTTP errors after retries, timeouts, resets and truncated bodies, off-host
        redirects; HostUnreachable when the host cannot be reached at all.
        """
        with self._lock:
            if self.settings.obey_robots:
                try:
                    allowed = self._allowed(url)
                except HostUnreachable as exc:
                    raise HostUnreachable(
                        f"{exc.message} (reading robots.txt)", url=url, attempts=exc.attempts
                    ) from exc
                if not allowed:
                    raise FetchError("disallowed by the site's robots.txt", url=url, attempts=0)
            return self._fetch(url)

    # -- internals
    def _fetch(self, url: str) -> ArchivePage:
        origin = _origin(url)
        current = url
        attempts = 0
        for _hop in range(MAX_REDIRECTS + 1):
            response, n = self._request(current, url)
            attempts += n
            if response.status_code in REDIRECT_STATUSES:
                location = response.headers.get("Location")
                response.close()
                if not location:
                    raise FetchError(
                        f"HTTP {response.status_code} redirect without Location",
                        url=url,
                        attempts=attempts,
                        status=response.status_code,
                    )
                target = urljoin(current, location)
                if _origin(target) != origin:
                    raise FetchError(
                        f"redirect to another host refused: {target}",
                        url=url,
                        attempts=attempts,
                        status=response.status_code,
                    )
                log.debug("%s: redirected to %s", current, target)
                current = target
                continue
            if response.status_code != 200:
                reason = response.reason or ""
                raise FetchError(
                    f"HTTP {response.status_code} {reason}".rstrip()
                    + (f" after {attempts} attempts" if attempts > 1 else ""),
                    url=url,
                    attempts=attempts,
                    status=response.status_code,
                )
            return ArchivePage(
                url=current,
                status=200,
                body=response.content,
                from_cache=False,
                fetched_at=datetime.now(timezone.utc),
                content_type=response.headers.get("Content-Type"),
            )
        raise FetchError(f"more than {MAX_REDIRECTS} redirects", url=url, attempts=attempts)

    def _request(self, target: str, url: str) -> tuple[requests.Response, int]:
        """One GET with urllib3's retries, plus retries of broken bodies; returns (response, requests)."""
        budget = max(0, int(self.settings.retries))
        attempts = 0
        last: FetchError | None = None
        for body_try in range(budget + 1):
            if body_try and attempts > budget:
                break  # urllib3's retries already used the budget up
            if body_try:
                pause = min(self.settings.backoff * (2 ** (body_try - 1)), 120.0)
                if pause > 0:
                    time.sleep(pause)
            self._attempts = 1
            self.limiter.wait()
            self.requests_made += 1
            log.info("GET %s", target)
            _register_exit_hook()
            deadline = time.monotonic() + DEADLINE_TIMEOUTS * max(self.settings.timeout, 1.0)
            try:
                response = self.session.get(
                    target, timeout=(self.settings.timeout, self.settings.timeout), allow_redirects=False, stream=True
                )
                attempts += self._attempts
                try:
                    self._read_body(response, url, attempts, deadline)
                except requests.exceptions.RequestException:
                    attempts -= self._attempts  # counted once, by the handler below
                    raise
            except _Interrupted as exc:
                raise FetchError("interrupted", url=url, attempts=attempts + self._attempts) from exc
            except _RetryAfterTooLong as exc:
                attempts += self._attempts
                raise FetchError(
                    f"HTTP {exc.status}: Retry-After of {exc.seconds:.0f}s is longer than the "
                    f"{self.settings.max_retry_after:.0f}s limit",
                    url=url,
                    attempts=attempts,
                    status=exc.status,
                ) from exc
            except (requests.exceptions.ChunkedEncodingError, requests.exceptions.ContentDecodingError) as exc:
                attempts += self._attempts
                last = FetchError(
                    f"connection broken while reading the body: {_describe(_root_cause(exc))}",
                    url=url,
                    attempts=attempts,
                )
                last.__cause__ = exc
                continue
            except requests.exceptions.RequestException as exc:
                attempts += self._attempts
                raise self._translate(exc, url, attempts) from exc
            expected = response.headers.get("Content-Length")
            if (
                expected
                and expected.isdigit()
                and not response.headers.get("Content-Encoding")
                and int(expected) != len(response.content)
            ):
                last = FetchError(
                    f"truncated body: got {len(response.content)} of {expected} bytes",
                    url=url,
                    attempts=attempts,
                    status=response.status_code,
                )
                continue
            return response, attempts
        assert last is not None
        last.attempts = attempts
        raise last

    def _read_body(self, response: requests.Response, url: str, attempts: int, deadline: float) -> None:
        """Read the (decompressed) body into ``response`` within the deadline and the size limit.

        Raises FetchError (not retried) for a body over :data:`MAX_BODY_BYTES` or
        one not complete by ``deadline``; ChunkedEncodingError for a broken one
        (retried by the caller).
        """
        if getattr(response, "_content_consumed", False):  # requests read a redirect's body already
            return
        raw = response.raw
        chunks: list[bytes] = []
        size = 0
        with _in_flight_lock:
            _in_flight.add(raw)
        try:
            while True:
                if _interrupted.is_set():
                    raise FetchError("interrupted", url=url, attempts=attempts)
                if time.monotonic() > deadline:
                    raise FetchError(
                        f"the page did not arrive within {DEADLINE_TIMEOUTS * max(self.settings.timeout, 1.0):g}s",
                        url=url,
                        attempts=attempts,
                        status=response.status_code,
                    )
                try:
                    chunk = raw.read1(_CHUNK, decode_content=True)
                except (ProtocolError, urllib3.exceptions.DecodeError, OSError) as exc:
                    if _interrupted.is_set():
                        raise FetchError("interrupted", url=url, attempts=attempts) from exc
                    if isinstance(exc, ReadTimeoutError):
                        raise requests.exceptions.ReadTimeout(exc) from exc
                    raise requests.exceptions.ChunkedEncodingError(exc) from exc
                if not chunk:
                    if raw.closed or getattr(raw, "_fp", None) is None or raw.isclosed():
                        break
                    if not getattr(raw, "chunked", False) and raw.length_remaining in (0, None):
                        break
                    continue
                size += len(chunk)
                if size > MAX_BODY_BYTES:
                    raise FetchError(
                        f"body larger than {MAX_BODY_BYTES // (1024 * 1024)} MiB (after decompression); not read",
                        url=url,
                        attempts=attempts,
                        status=response.status_code,
                    )
                chunks.append(chunk)
        except BaseException:
            response.close()
            raise
        finally:
            with _in_flight_lock:
                _in_flight.discard(raw)
        response._content = b"".join(chunks)  # what response.content returns from now on
        # requests' own "body read" flag (Response.content checks it); types-requests lists _content but not it
        response._content_consumed = True  # type: ignore[attr-defined]

    def _translate(self, exc: requests.exceptions.RequestException, url: str, attempts: int) -> FetchError:
        cause = _root_cause(exc)
        host = urlsplit(url).netloc
        tries = f" ({attempts} attempt{'s' if attempts != 1 else ''})"
        dns = _name_resolution(exc)
        if dns is not None:  # however requests wrapped it (it can surface as a connect timeout)
            return HostUnreachable(f"cannot connect to {host}: {_describe(dns)}", url=url, attempts=attempts)
        # NewConnectionError subclasses ConnectTimeoutError in urllib3 2: test it first
        if isinstance(cause, NewConnectionError):
            return HostUnreachable(f"cannot connect to {host}: {_describe(cause)}", url=url, attempts=attempts)
        if isinstance(exc, requests.exceptions.ConnectTimeout) or isinstance(cause, ConnectTimeoutError):
            return HostUnreachable(
                f"cannot connect to {host}: timed out after {self.settings.timeout:g}s", url=url, attempts=attempts
            )
        if isinstance(exc, requests.exceptions.Timeout) or isinstance(cause, ReadTimeoutError):
            return FetchError(f"no answer within {self.settings.timeout:g}s{tries}", url=url, attempts=attempts)
        if isinstance(exc, requests.exceptions.RetryError):
            return FetchError(f"gave up{tries}: {_describe(cause)}", url=url, attempts=attempts)
        if isinstance(exc, requests.exceptions.ConnectionError):
            return FetchError(f"connection failed{tries}: {_describe(cause)}", url=url, attempts=attempts)
        return FetchError(f"request failed{tries}: {exc}", url=url, attempts=attempts)

    def _allowed(self, url: str) -> bool:
        key = _origin(url)
        if key not in self._robots:
            self._robots[key] = self._load_robots(url)
        parser = self._robots[key]
        return True if parser is None else parser.can_fetch(self.settings.user_agent, url)

    def _load_robots(self, url: str) -> robotparser.RobotFileParser | None:
        parts = urlsplit(url)
        robots_url = f"{parts.scheme}://{parts.netloc}/robots.txt"
        parser = robotparser.RobotFileParser(robots_url)
        try:
            page = self._fetch(robots_url)
        except HostUnreachable:
            raise
        except FetchError as exc:
            if exc.status in (401, 403):
                log.warning("%s: HTTP %s, treating the whole site as disallowed", robots_url, exc.status)
                parser.parse(["User-agent: *", "Disallow: /"])  # what RobotFileParser.read() does for 401/403
                return parser
            if exc.status is not None and 400 <= exc.status < 500:
                return None  # no robots.txt: everything allowed
            log.warning("%s: could not be read (%s); going ahead as if it allowed everything", robots_url, exc.message)
            return None
        parser.parse(page.body.decode("utf-8", errors="replace").splitlines())
        return parser
