"""Issue 24: an offline run over a copy of the archive never moves the cursor past the copy's last day.

The copy here is the checkout's ``archive_cache/``: real pages of June 2023 (last mail on 29 June). Its
2023 year page lists later days too, whose pages the copy does not hold: read offline in December, they
are failed pages (retried first by the next run) and the cursor does not move. Read offline on 3 July,
the days after 29 June are not known to be empty, only unread: the cursor (a real SQLite file) stays at
the last day read, and the next online cron (a real HTTP server on 127.0.0.1 serving the pages of
tests/data/openwall-mirror, June and July 2023) starts right after it, so no day is skipped.
"""

from __future__ import annotations

from datetime import date, datetime, timezone
from pathlib import Path

import pytest

from mirror_server import MirrorServer
from reviewbot.config import Settings, shipped_cache_dir
from reviewbot.cron import run_cron
from reviewbot.models import Address
from reviewbot.registry import load_rules
from reviewbot.scan import scan
from reviewbot.store import Store

pytestmark = pytest.mark.skipif(shipped_cache_dir() is None, reason="needs the checkout's archive_cache/")

COPY_LAST_DAY = date(2023, 6, 29)  # the last day of the copy's June 2023 with mail
NOW = datetime(2023, 7, 3, 6, 0, tzinfo=timezone.utc)  # days after the copy's last one
LATER = datetime(2023, 12, 10, 6, 0, tzinfo=timezone.utc)  # months after


def _copy() -> Path:
    return shipped_cache_dir() / "lists.openwall.net"  # type: ignore[operator]


def _settings(tmp_path: Path, **changes) -> Settings:
    return Settings(
        db_path=tmp_path / "db.sqlite",
        cache_dir=changes.pop("cache_dir", _copy()),
        outbox_dir=tmp_path / "outbox",
        rate=0.0,
        lore_url="",
        **changes,
    )


def _cursor(settings: Settings) -> date | None:
    with Store(settings.db_path) as store:
        return store.get_cursor("linux-kernel")


def test_offline_scan_stops_the_cursor_at_the_copys_last_day(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    summary = scan(
        settings, "linux-kernel", date(2023, 6, 1), date(2023, 7, 3), fetch_all=False, offline=True, clock=lambda: NOW
    )
    assert summary.ok and summary.patches == 13  # the copy's pages were all read
    assert _cursor(settings) == COPY_LAST_DAY  # not 2023-07-01, today minus two days


def test_offline_scan_months_later_keeps_the_cursor_before_the_unread_days(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    summary = scan(
        settings,
        "linux-kernel",
        date(2023, 6, 1),
        date(2023, 12, 31),
        fetch_all=False,
        offline=True,
        clock=lambda: LATER,
    )
    # June read; the 107 days of July to December the year page lists are not in the copy
    assert summary.patches == 13 and summary.pages_failed == 107
    assert {e for _url, e in summary.errors} == {"not in the cache (offline)"}
    assert _cursor(settings) is None  # not 2023-12-08, today minus two days
    # a range wholly after the copy: nothing read, the cursor does not move
    later = scan(
        settings,
        "linux-kernel",
        date(2023, 7, 1),
        date(2023, 12, 31),
        fetch_all=False,
        offline=True,
        clock=lambda: LATER,
    )
    assert later.patches == 0 and _cursor(settings) is None


def test_online_cron_after_an_offline_one_reads_the_days_in_between(tmp_path: Path, data_dir: Path) -> None:
    settings = _settings(tmp_path)
    rules = load_rules()
    me = Address("Zoë Reviewer", "zoe@example.com")
    offline = run_cron(
        settings, "linux-kernel", rules=rules, identity=me, since=date(2023, 6, 1), now=NOW, offline=True
    )
    assert (offline.since, offline.until) == (date(2023, 6, 1), NOW.date())
    assert _cursor(settings) == COPY_LAST_DAY
    with MirrorServer(data_dir / "openwall-mirror") as server:  # the host, online now
        online_settings = _settings(tmp_path, base_url=server.base_url, cache_dir=tmp_path / "cache")
        online = run_cron(online_settings, "linux-kernel", rules=rules, identity=me, now=NOW)
    assert online.since == date(2023, 6, 30)  # right after the last day read, not after "today minus two"
    assert online.scan is not None and online.scan.ok
    # online, the host's year page answers for the whole range: every final day is complete now
    assert _cursor(settings) == date(2023, 7, 1)
