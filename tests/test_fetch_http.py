"""PoliteSession and Archive against a real HTTP server on 127.0.0.1 that injects faults.

Each test starts tests/mirror_server.MirrorServer over tests/data/openwall-mirror with a fault
function ``(path, attempt) -> Fault | None`` and counts what the server saw.
"""

from __future__ import annotations

import logging
import socket
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

from conftest import DATA_MIRROR
from mirror_server import Fault, MirrorServer
from reviewbot.config import Settings
from reviewbot.errors import FetchError, HostUnreachable
from reviewbot.fetch import openwall as ow
from reviewbot.fetch.archive import Archive
from reviewbot.fetch.cache import ArchiveCache
from reviewbot.fetch.http import PoliteSession, RateLimiter

MSG = "/linux-kernel/2023/06/01/1"
DAY = "/linux-kernel/2023/06/01/"
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)


def settings(server: MirrorServer, tmp_path: Path, **kw) -> Settings:
    base = dict(
        base_url=server.base_url,
        cache_dir=tmp_path / "cache",
        rate=0,
        backoff=0.01,
        retries=3,
        timeout=5.0,
        obey_robots=False,
        max_retry_after=10,
    )
    base.update(kw)
    return Settings(**base)


def served(server: MirrorServer, path: str) -> int:
    return server.attempts[path]


def on(path: str, faults: dict[int, Fault] | Fault):
    """A fault function: ``faults`` per attempt number for ``path`` (a Fault alone: every attempt)."""

    def pick(p: str, attempt: int):
        if p != path:
            return None
        if isinstance(faults, Fault):
            return faults
        return faults.get(attempt)

    return pick


# ------------------------------------------------------------------ status faults and retries


def test_429_retry_after_is_honoured(tmp_path):
    with MirrorServer(DATA_MIRROR, faults=on(MSG, {1: Fault("status", 429, {"Retry-After": "1"})})) as srv:
        session = PoliteSession(settings(srv, tmp_path))
        start = time.monotonic()
        page = session.get(srv.base_url + MSG)
        elapsed = time.monotonic() - start
    assert page.status == 200 and b"pre-wrap" in page.body
    assert elapsed >= 1.0
    assert served(srv, MSG) == 2
    assert session.requests_made == 2


def test_retry_after_longer_than_the_limit_fails_at_once(tmp_path):
    with MirrorServer(DATA_MIRROR, faults=on(MSG, Fault("status", 429, {"Retry-After": "120"}))) as srv:
        session = PoliteSession(settings(srv, tmp_path, max_retry_after=2))
        start = time.monotonic()
        with pytest.raises(FetchError) as err:
            session.get(srv.base_url + MSG)
        assert time.monotonic() - start < 2
    assert err.value.status == 429 and "Retry-After" in err.value.message
    assert err.value.attempts == 1 and served(srv, MSG) == 1


def test_burst_of_5xx_then_success(tmp_path):
    burst = {1: Fault("status", 500), 2: Fault("status", 502), 3: Fault("status", 503)}
    with MirrorServer(DATA_MIRROR, faults=on(MSG, burst)) as srv:
        session = PoliteSession(settings(srv, tmp_path, retries=4))
        page = session.get(srv.base_url + MSG)
    assert page.status == 200
    assert served(srv, MSG) == 4 and session.requests_made == 4


def test_retries_are_bounded(tmp_path):
    with MirrorServer(DATA_MIRROR, faults=on(MSG, Fault("status", 503))) as srv:
        session = PoliteSession(settings(srv, tmp_path, retries=2))
        url = srv.base_url + MSG
        with pytest.raises(FetchError) as err:
            session.get(url)
    assert err.value.status == 503
    assert err.value.attempts == 3 == served(srv, MSG) == session.requests_made
    assert err.value.url == url
    assert "HTTP 503" in str(err.value) and MSG in str(err.value)


def test_404_is_not_retried(tmp_path):
    with MirrorServer(DATA_MIRROR) as srv:
        session = PoliteSession(settings(srv, tmp_path))
        with pytest.raises(FetchError) as err:
            session.get(srv.base_url + "/linux-kernel/2019/08/23/1/9")
    assert err.value.status == 404 and err.value.attempts == 1
    assert served(srv, "/linux-kernel/2019/08/23/1/9") == 1


# ------------------------------------------------------------------ slow, reset, truncated


def test_slow_response_times_out_and_is_retried(tmp_path):
    with MirrorServer(DATA_MIRROR, faults=on(MSG, {1: Fault("slow", delay=1.5)})) as srv:
        session = PoliteSession(settings(srv, tmp_path, timeout=0.5, retries=2))
        page = session.get(srv.base_url + MSG)
    assert page.status == 200
    assert served(srv, MSG) == 2


def test_always_slow_gives_a_timeout_error(tmp_path):
    with MirrorServer(DATA_MIRROR, faults=on(MSG, Fault("slow", delay=1.2))) as srv:
        session = PoliteSession(settings(srv, tmp_path, timeout=0.5, retries=1))
        start = time.monotonic()
        with pytest.raises(FetchError) as err:
            session.get(srv.base_url + MSG)
        elapsed = time.monotonic() - start
    assert not isinstance(err.value, HostUnreachable)
    assert "no answer within 0.5s" in err.value.message
    assert err.value.attempts == 2 and served(srv, MSG) == 2
    assert elapsed < 3.0


def test_connection_reset_mid_body_is_retried(tmp_path):
    with MirrorServer(DATA_MIRROR, faults=on(MSG, {1: Fault("reset", keep=300)})) as srv:
        session = PoliteSession(settings(srv, tmp_path))
        page = session.get(srv.base_url + MSG)
    assert page.body == (DATA_MIRROR / (MSG.lstrip("/") + ".html")).read_bytes()
    assert served(srv, MSG) == 2 and session.requests_made == 2


def test_connection_always_reset_mid_body_fails_readably(tmp_path):
    with MirrorServer(DATA_MIRROR, faults=on(MSG, Fault("reset", keep=300))) as srv:
        session = PoliteSession(settings(srv, tmp_path, retries=2))
        with pytest.raises(FetchError) as err:
            session.get(srv.base_url + MSG)
    assert err.value.attempts == 3 == served(srv, MSG)
    assert "connection broken" in err.value.message or "truncated" in err.value.message


def test_truncated_html_is_an_error_and_never_cached(tmp_path):
    with MirrorServer(DATA_MIRROR, faults=on(MSG, {1: Fault("truncate", keep=2000)})) as srv:
        archive = Archive(settings(srv, tmp_path), clock=lambda: NOW)
        with pytest.raises(FetchError) as err:
            archive.fetch(srv.base_url + MSG)
        assert "cut off" in err.value.message or "<pre>" in err.value.message
        assert archive.cache.get(srv.base_url + MSG) is None
        page = archive.fetch(srv.base_url + MSG)  # the next run gets the whole page
    assert not page.from_cache and archive.cache.get(srv.base_url + MSG) == page.body
    assert archive.stats.failed == 1 and archive.stats.fetched == 1


def test_truncated_day_page_is_an_error(tmp_path):
    with MirrorServer(DATA_MIRROR, faults=on(DAY, Fault("truncate", keep=1500))) as srv:
        archive = Archive(settings(srv, tmp_path), clock=lambda: NOW)
        with pytest.raises(FetchError):
            archive.fetch(srv.base_url + DAY)
    assert archive.cache.get(srv.base_url + DAY) is None


# ------------------------------------------------------------------ blists specifics


def test_blists_error_page_on_200_is_an_error_never_cached(tmp_path):
    with MirrorServer(DATA_MIRROR, faults=on(MSG, {1: Fault("error-page", reason="No such message")})) as srv:
        archive = Archive(settings(srv, tmp_path), clock=lambda: NOW)
        with pytest.raises(ow.BlistsErrorPage) as err:
            archive.fetch(srv.base_url + MSG)
        assert err.value.reason == "No such message" and err.value.status == 200
        assert archive.cache.get(srv.base_url + MSG) is None
        # a real missing message: the mirror server answers like blists
        with pytest.raises(ow.BlistsErrorPage):
            archive.fetch(srv.base_url + "/linux-kernel/2023/06/01/77")
    assert not (tmp_path / "cache/linux-kernel/2023/06/01/77.html").exists()


def test_redirect_for_missing_slash_is_followed(tmp_path):
    with MirrorServer(DATA_MIRROR) as srv:
        session = PoliteSession(settings(srv, tmp_path))
        page = session.get(srv.base_url + "/linux-kernel/2023/06")
    assert page.url == srv.base_url + "/linux-kernel/2023/06/"
    assert ow.parse_month_page(page.body, page.url)[0].isoformat() == "2023-06-01"
    assert srv.requests[-2:] == [("/linux-kernel/2023/06", 302), ("/linux-kernel/2023/06/", 200)]
    assert session.requests_made == 2


def test_redirect_off_the_host_is_refused(tmp_path):
    evil = {1: Fault("status", 302, {"Location": "http://evil.example/linux-kernel/2023/06/01/1"})}
    with MirrorServer(DATA_MIRROR, faults=on(MSG, evil)) as srv:
        session = PoliteSession(settings(srv, tmp_path))
        with pytest.raises(FetchError) as err:
            session.get(srv.base_url + MSG)
    assert "another host" in err.value.message
    assert [p for p, _ in srv.requests] == [MSG]


def test_invalid_utf8_bytes_in_a_page(tmp_path):
    original = (DATA_MIRROR / (MSG.lstrip("/") + ".html")).read_bytes()
    head, pre = original.split(b'pre-wrap">\n', 1)
    hdr, body = pre.split(b"\n\n", 1)
    broken = head + b'pre-wrap">\n' + hdr + b"\n\nLatin-1 \xe9t\xe9 and \xff\xfe\n" + body
    with MirrorServer(DATA_MIRROR, faults=on(MSG, Fault("body", body=broken))) as srv:
        archive = Archive(settings(srv, tmp_path), clock=lambda: NOW)
        page = archive.fetch(srv.base_url + MSG)
    raw = ow.parse_message_page(page.body, page.url, "linux-kernel")
    assert raw.body.startswith("Latin-1 \ufffdt\ufffd and \ufffd\ufffd\n")
    assert dict(raw.header_lines)["Subject"] == "Re: [PATCH] fs.h: Optimize file struct to prevent false sharing"
    assert archive.cache.get(page.url) == broken  # cached byte for byte


# ------------------------------------------------------------------ robots, rate, identity


def test_robots_txt_disallow_is_obeyed_and_fetched_once(tmp_path):
    robots = "User-agent: *\nDisallow: /linux-kernel/2023/06/01/\n"
    with MirrorServer(DATA_MIRROR, robots=robots) as srv:
        session = PoliteSession(settings(srv, tmp_path, obey_robots=True))
        with pytest.raises(FetchError) as err:
            session.get(srv.base_url + MSG)
        assert "robots.txt" in err.value.message and err.value.attempts == 0
        session.get(srv.base_url + "/linux-kernel/2023/06/09/1")
        session.get(srv.base_url + "/linux-kernel/2023/06/09/2")
    paths = [p for p, _ in srv.requests]
    assert paths == ["/robots.txt", "/linux-kernel/2023/06/09/1", "/linux-kernel/2023/06/09/2"]
    assert session.requests_made == 3


def test_robots_txt_naming_reviewbot(tmp_path):
    robots = "User-agent: reviewbot\nDisallow: /\n\nUser-agent: *\nAllow: /\n"
    with MirrorServer(DATA_MIRROR, robots=robots) as srv:
        session = PoliteSession(settings(srv, tmp_path, obey_robots=True))
        with pytest.raises(FetchError):
            session.get(srv.base_url + MSG)
    assert [p for p, _ in srv.requests] == ["/robots.txt"]


def test_missing_robots_txt_allows_everything_and_user_agent_is_sent(tmp_path):
    seen = {}

    def spy(path, attempt):
        return None

    with MirrorServer(DATA_MIRROR, faults=spy) as srv:
        s = settings(srv, tmp_path, obey_robots=True, contact="ops@example.org")
        session = PoliteSession(s)
        session.get(srv.base_url + MSG)
        seen["ua"] = session.session.headers["User-Agent"]
    assert [p for p, _ in srv.requests] == ["/robots.txt", MSG]
    assert seen["ua"].startswith("reviewbot/") and "ops@example.org" in seen["ua"]


def test_rate_limit_spacing(tmp_path):
    with MirrorServer(DATA_MIRROR) as srv:
        session = PoliteSession(settings(srv, tmp_path, rate=5))
        start = time.monotonic()
        for n in range(1, 6):
            session.get(f"{srv.base_url}/linux-kernel/2024/05/30/{n}")
        elapsed = time.monotonic() - start
    assert elapsed >= 0.8
    assert session.requests_made == 5


def test_rate_limiter_with_a_fake_clock():
    now = [100.0]
    slept = []

    def sleep(seconds):
        slept.append(round(seconds, 6))
        now[0] += seconds

    limiter = RateLimiter(4, monotonic=lambda: now[0], sleep=sleep)
    for _ in range(5):
        limiter.wait()
    assert slept == [0.25, 0.25, 0.25, 0.25]
    assert RateLimiter(0).wait() == 0.0


# ------------------------------------------------------------------ unreachable host


def closed_port() -> int:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    return port


def test_host_unreachable_once_then_cache_only(tmp_path, caplog):
    base = f"http://127.0.0.1:{closed_port()}"
    s = Settings(
        base_url=base, cache_dir=tmp_path / "cache", rate=0, backoff=0.01, retries=4, timeout=2, obey_robots=True
    )
    cache = ArchiveCache(tmp_path / "cache", base_url=base, fallbacks=[DATA_MIRROR])
    archive = Archive(s, clock=lambda: NOW, cache=cache)
    caplog.set_level(logging.WARNING)
    start = time.monotonic()
    with pytest.raises(HostUnreachable) as err:
        archive.fetch(base + "/linux-kernel/2030/01/01/1")
    assert "cannot connect" in err.value.message and "refused" in err.value.message
    requests_after_first = archive.stats.requests
    assert requests_after_first == 0  # the connection never opened: no request went out
    assert 1 <= err.value.attempts <= 2  # one connect retry at most
    # from now on: cache (and fallbacks) only, no more requests
    days = 0
    for year, month in ((2023, 6), (2023, 7), (2024, 5)):  # the whole months of tests/data
        url = ow.month_url(base, "linux-kernel", year, month)
        page = archive.fetch(url)
        for day in ow.parse_month_page(page.body, page.url):
            archive.fetch(ow.day_url(base, "linux-kernel", day))
            days += 1
    with pytest.raises(FetchError):
        archive.fetch(base + "/linux-kernel/2030/01/02/1")
    assert time.monotonic() - start < 5
    assert (
        days
        == sum(
            1
            for m in ("2023/06", "2023/07", "2024/05")
            for d in (DATA_MIRROR / "linux-kernel" / m).iterdir()
            if d.is_dir()
        )
        > 40
    )
    assert archive.stats.requests == requests_after_first
    warnings = [r for r in caplog.records if "cannot be reached" in r.getMessage()]
    assert len(warnings) == 1


def test_connection_dropped_before_the_response_is_retried(tmp_path):
    with MirrorServer(DATA_MIRROR, faults=on(MSG, {1: Fault("drop"), 2: Fault("drop")})) as srv:
        session = PoliteSession(settings(srv, tmp_path, retries=3))
        page = session.get(srv.base_url + MSG)
    assert page.status == 200 and served(srv, MSG) == 3


def test_connection_always_dropped_is_reported_plainly(tmp_path):
    with MirrorServer(DATA_MIRROR, faults=on(MSG, Fault("drop"))) as srv:
        session = PoliteSession(settings(srv, tmp_path, retries=1))
        with pytest.raises(FetchError) as err:
            session.get(srv.base_url + MSG)
    assert not isinstance(err.value, HostUnreachable)
    assert "closed the connection without a response" in err.value.message
    assert err.value.attempts == 2 == served(srv, MSG)


def test_mixed_faults_stay_within_the_retry_budget(tmp_path):
    # urllib3 retries statuses; broken bodies are retried by the session: both share one budget
    faults = {
        1: Fault("reset", keep=100),
        2: Fault("status", 503),
        3: Fault("status", 503),
        4: Fault("reset", keep=100),
        5: Fault("status", 503),
        6: Fault("reset", keep=100),
    }
    with MirrorServer(DATA_MIRROR, faults=on(MSG, faults)) as srv:
        session = PoliteSession(settings(srv, tmp_path, retries=3))
        url = srv.base_url + MSG
        with pytest.raises(FetchError) as err:
            session.get(url)
    assert served(srv, MSG) == err.value.attempts == session.requests_made
    assert 4 <= served(srv, MSG) <= 2 * (3 + 1)


def test_unreachable_while_reading_robots_txt_names_the_page(tmp_path):
    base = f"http://127.0.0.1:{closed_port()}"
    s = Settings(base_url=base, rate=0, backoff=0.01, retries=2, timeout=2, obey_robots=True)
    with pytest.raises(HostUnreachable) as err:
        PoliteSession(s).get(base + MSG)
    assert err.value.url == base + MSG and "robots.txt" in err.value.message


def test_dns_failure_is_named_as_such_and_sends_no_request(tmp_path):
    """A host name that does not resolve (RFC 6761 .invalid): name resolution failure, 0 requests counted."""
    s = Settings(
        base_url="http://archive.reviewbot-test.invalid", rate=0, backoff=0.01, retries=2, timeout=5, obey_robots=False
    )
    session = PoliteSession(s)
    with pytest.raises(HostUnreachable) as err:
        session.get("http://archive.reviewbot-test.invalid" + MSG)
    assert "name resolution failed" in err.value.message and "timed out" not in err.value.message
    assert err.value.attempts >= 1
    assert session.requests_made == 0


def test_refused_connection_counts_no_request(tmp_path):
    base = f"http://127.0.0.1:{closed_port()}"
    session = PoliteSession(Settings(base_url=base, rate=0, backoff=0.01, retries=2, timeout=2, obey_robots=False))
    with pytest.raises(HostUnreachable) as err:
        session.get(base + MSG)
    assert err.value.attempts == 2 and session.requests_made == 0


def test_urllib3_retry_warnings_are_silenced_below_vv():
    """urllib3's raw 'Retrying (...) after connection broken by ...' lines only show with -vv."""
    from reviewbot.cli import set_verbosity

    root, urllib3_log = logging.getLogger(), logging.getLogger("urllib3")
    saved = (root.level, urllib3_log.level)
    try:
        for verbose, want in ((0, logging.ERROR), (1, logging.ERROR), (2, logging.DEBUG)):
            set_verbosity(verbose)
            assert urllib3_log.getEffectiveLevel() == want
            assert urllib3_log.isEnabledFor(logging.WARNING) == (verbose >= 2)
    finally:
        root.setLevel(saved[0])
        urllib3_log.setLevel(saved[1])
