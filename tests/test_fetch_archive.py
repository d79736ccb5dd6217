"""Archive: what is final, what is fetched again, offline use of the mirror as a read-only cache."""

from __future__ import annotations

import os
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest

from conftest import DATA_MIRROR
from mirror_server import MirrorServer
from reviewbot.config import Settings
from reviewbot.errors import FetchError
from reviewbot.fetch import openwall as ow
from reviewbot.fetch.archive import Archive
from reviewbot.fetch.cache import ArchiveCache

LK = "linux-kernel"


class Clock:
    """A settable UTC clock for the Archive."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def make(server: MirrorServer, tmp_path: Path, clock: Clock, **kw) -> Archive:
    s = Settings(
        base_url=server.base_url, cache_dir=tmp_path / "cache", rate=0, backoff=0.01, retries=2, obey_robots=False
    )
    return Archive(s, clock=clock, **kw)


def test_is_final_rules():
    s = Settings(base_url="https://lists.openwall.net")
    archive = Archive(
        s,
        clock=lambda: datetime(2023, 6, 14, 0, 30, tzinfo=timezone.utc),
        cache=ArchiveCache("/nonexistent", readonly=True),
    )
    b = "https://lists.openwall.net/linux-kernel/"
    assert archive.is_final(b + "2023/06/14/5")  # messages never change
    assert archive.is_final(b + "2023/06/14/5/1")  # nor attachments
    assert not archive.is_final(b + "2023/06/14/")  # today
    assert not archive.is_final(b + "2023/06/13/")  # yesterday
    assert archive.is_final(b + "2023/06/12/")  # two days ago
    assert not archive.is_final(b + "2023/06/")  # month still growing
    assert archive.is_final(b + "2023/05/")
    assert not archive.is_final(b + "2023/")
    assert archive.is_final(b + "2022/")
    assert not archive.is_final(b)  # the list page always grows
    # month boundary: June 1st 00:30 UTC, May is not final before June 2nd
    early = Archive(s, clock=lambda: datetime(2023, 6, 1, 0, 30, tzinfo=timezone.utc), cache=archive.cache)
    assert not early.is_final(b + "2023/05/") and not early.is_final(b + "2023/05/31/")
    assert early.is_final(b + "2023/05/30/")
    # a clock in another zone is converted to UTC
    tz = timezone(timedelta(hours=-10))
    local = Archive(s, clock=lambda: datetime(2023, 6, 13, 20, 0, tzinfo=tz), cache=archive.cache)
    assert local.is_final(b + "2023/06/12/")  # 2023-06-14 06:00 UTC: two days ago
    assert not local.is_final(b + "2023/06/13/")


def test_second_run_over_past_days_makes_no_request(data_mirror_server, tmp_path):
    clock = Clock(datetime(2026, 11, 30, tzinfo=timezone.utc))
    urls = [ow.month_url(data_mirror_server.base_url, LK, 2023, 6)]
    first = make(data_mirror_server, tmp_path, clock)
    month = first.fetch(urls[0])
    for day in ow.parse_month_page(month.body, month.url):
        page = first.fetch(ow.day_url(data_mirror_server.base_url, LK, day))
        urls.append(page.url)
        for ref in ow.parse_day_page(page.body, page.url):
            first.fetch(ref.url)
            urls.append(ref.url)
    assert first.stats.fetched == len(urls) == 1 + 10 + 37
    assert first.stats.requests == len(urls) and first.stats.from_cache == 0

    data_mirror_server.reset_log()
    second = make(data_mirror_server, tmp_path, clock)
    pages = [second.fetch(u) for u in urls]
    assert all(p.from_cache for p in pages)
    assert second.stats.requests == 0 and data_mirror_server.requests == []
    assert second.stats.from_cache == len(urls)
    assert pages[-1].body == (DATA_MIRROR / (pages[-1].url.split("/", 3)[3] + ".html")).read_bytes()


def test_recent_days_are_fetched_again_until_final(data_mirror_server, tmp_path):
    clock = Clock(datetime(2023, 6, 14, 9, 0, tzinfo=timezone.utc))
    archive = make(data_mirror_server, tmp_path, clock)
    day = ow.day_url(data_mirror_server.base_url, LK, date(2023, 6, 14))
    msg = day + "1"
    data_mirror_server.reset_log()
    archive.fetch(day)
    archive.fetch(msg)
    archive.fetch(day)  # still today: asked again
    archive.fetch(msg)  # a message: never again
    assert [p for p, _ in data_mirror_server.requests] == [
        "/linux-kernel/2023/06/14/",
        "/linux-kernel/2023/06/14/1",
        "/linux-kernel/2023/06/14/",
    ]
    # two days later the day is final, but the cached copy was taken while it could grow
    clock.now = datetime(2023, 6, 16, 9, 0, tzinfo=timezone.utc)
    archive.fetch(day)
    assert len(data_mirror_server.requests) == 4
    # that copy was fetched once final: from now on it is served from the cache
    clock.now = datetime(2023, 7, 1, tzinfo=timezone.utc)
    page = archive.fetch(day)
    assert page.from_cache and len(data_mirror_server.requests) == 4


def test_list_page_is_always_fetched(data_mirror_server, tmp_path):
    clock = Clock(datetime(2030, 1, 1, tzinfo=timezone.utc))
    archive = make(data_mirror_server, tmp_path, clock)
    url = ow.list_url(data_mirror_server.base_url, LK)
    data_mirror_server.reset_log()
    archive.fetch(url)
    archive.fetch(url)
    assert data_mirror_server.requests == [("/linux-kernel/", 200), ("/linux-kernel/", 200)]


def test_bad_cached_copy_is_fetched_again(data_mirror_server, tmp_path):
    clock = Clock(datetime(2026, 11, 30, tzinfo=timezone.utc))
    archive = make(data_mirror_server, tmp_path, clock)
    url = data_mirror_server.base_url + "/linux-kernel/2023/06/01/1"
    path = archive.cache.path_for(url)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"<html>half a page")  # e.g. left by an older version or a disk fault
    page = archive.fetch(url)
    assert not page.from_cache and b"Powered by blists" in page.body
    assert path.read_bytes() == page.body


def test_offline_with_the_mirror_as_cache_dir(tmp_path, data_mirror_server):
    s = Settings(base_url=data_mirror_server.base_url, cache_dir=DATA_MIRROR, rate=0)
    archive = Archive(s, offline=True, clock=lambda: datetime(2026, 11, 30, tzinfo=timezone.utc))
    assert archive.cache.readonly
    before = os.stat(DATA_MIRROR / "linux-kernel/2023/06/01/index.html").st_mtime_ns
    data_mirror_server.reset_log()
    month = archive.fetch(ow.month_url(s.base_url, LK, 2023, 6))
    n = 0
    for day in ow.parse_month_page(month.body, month.url):
        page = archive.fetch(ow.day_url(s.base_url, LK, day))
        for ref in ow.parse_day_page(page.body, page.url):
            raw = ow.parse_message_page(archive.fetch(ref.url).body, ref.url, LK)
            assert raw.header_lines[0][0] == "Message-ID"
            n += 1
    # the list page is never final, but offline the cached one is used
    assert archive.fetch(ow.list_url(s.base_url, LK)).from_cache
    with pytest.raises(FetchError) as err:
        archive.fetch(s.base_url + "/linux-kernel/2023/06/02/1")
    assert "offline" in err.value.message and err.value.attempts == 0
    assert n == 37
    assert data_mirror_server.requests == [] and archive.stats.requests == 0
    assert archive.stats.failed == 1
    assert os.stat(DATA_MIRROR / "linux-kernel/2023/06/01/index.html").st_mtime_ns == before


def test_attachment_fetched_and_cached_with_headers(data_mirror_server, tmp_path):
    clock = Clock(datetime(2026, 11, 30, tzinfo=timezone.utc))
    archive = make(data_mirror_server, tmp_path, clock)
    url = data_mirror_server.base_url + "/linux-kernel/2023/08/17/1/1"
    page = archive.fetch(url)
    assert page.body == (DATA_MIRROR / "linux-kernel/2023/08/17/1/1").read_bytes()
    assert page.content_type.startswith("text/plain")
    again = make(data_mirror_server, tmp_path, clock).fetch(url)
    assert again.from_cache and again.body == page.body
    assert again.content_type == page.content_type
    with pytest.raises(FetchError) as err:
        archive.fetch(data_mirror_server.base_url + "/linux-kernel/2023/08/17/1/5")
    assert err.value.status == 404


def test_foreign_urls_are_refused_before_any_request(data_mirror_server, tmp_path):
    archive = make(data_mirror_server, tmp_path, Clock(datetime(2026, 11, 30, tzinfo=timezone.utc)))
    data_mirror_server.reset_log()
    for url in (
        "http://evil.example/linux-kernel/",
        data_mirror_server.base_url + "/linux-kernel/../x",
        data_mirror_server.base_url + "/robots.txt",
    ):
        with pytest.raises(ValueError):
            archive.fetch(url)
    assert data_mirror_server.requests == []


def test_default_cache_offline_falls_back_to_the_shipped_copy(isolated_env, tmp_path):
    from reviewbot.config import shipped_cache_dir

    shipped = shipped_cache_dir()
    assert shipped is not None and (shipped / "lists.openwall.net/linux-kernel/2023/06/index.html").is_file()
    # the default cache of the default host has the real pages of archive_cache/ behind it
    archive = Archive(Settings(), offline=True, clock=lambda: datetime(2026, 11, 30, tzinfo=timezone.utc))
    assert archive.cache.fallbacks == (shipped / "lists.openwall.net",)
    assert archive.cache.readonly
    url = ow.month_url("https://lists.openwall.net", LK, 2023, 6)
    page = archive.fetch(url)
    assert page.from_cache and page.shipped and archive.stats.from_shipped == 1
    assert ow.parse_month_page(page.body, url)[0] == date(2023, 6, 1)
    # a --cache-dir is read alone, and another host never gets the shipped pages
    assert Archive(Settings(cache_dir=tmp_path / "mine"), offline=True).cache.fallbacks == ()
    assert Archive(Settings(base_url="http://127.0.0.1:9"), offline=True).cache.fallbacks == ()


def test_concurrent_fetches_share_one_connection_and_count_exactly(data_mirror_server, tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    archive = make(data_mirror_server, tmp_path, Clock(datetime(2026, 11, 30, tzinfo=timezone.utc)))
    urls = [f"{data_mirror_server.base_url}/linux-kernel/2024/05/30/{n}" for n in range(1, 33)]
    data_mirror_server.reset_log()
    with ThreadPoolExecutor(max_workers=4) as pool:
        pages = list(pool.map(archive.fetch, urls + urls))
    assert all(p.status == 200 for p in pages)
    stats = archive.stats
    assert stats.fetched + stats.from_cache == 64
    assert stats.requests == len(data_mirror_server.requests) == stats.fetched >= 32
