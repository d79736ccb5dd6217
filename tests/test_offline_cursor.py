"""Issue 24: an offline run over a copy of the archive never moves the cursor past the copy's last day.

The copy here is the checkout's ``archive_cache/`` (its 2023 year page lists mail on 5-8 June 2023 and
nothing after: a copy made then). Read offline months later, the days after 8 June are not known to
be empty, only unread: the cursor (a real SQLite file) stays at the last day read, and the next online
cron (a real HTTP server on 127.0.0.1 serving the pages) starts right after it, so no day is skipped.
"""

from __future__ import annotations

from datetime import date, datetime, timezone
from pathlib import Path

import pytest

from mirror_server import MirrorServer
from reviewbot.config import Settings, sample_cache_dir
from reviewbot.cron import run_cron
from reviewbot.models import Address
from reviewbot.registry import load_rules
from reviewbot.scan import scan
from reviewbot.store import Store

pytestmark = pytest.mark.skipif(sample_cache_dir() is None, reason="needs the checkout's archive_cache/")

COPY_LAST_DAY = date(2023, 6, 8)  # the last day the copy's year page lists
NOW = datetime(2023, 12, 10, 6, 0, tzinfo=timezone.utc)  # months after the copy was made


def _copy() -> Path:
    return sample_cache_dir() / "lists.openwall.net"  # type: ignore[operator]


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
        settings, "linux-kernel", date(2023, 6, 1), date(2023, 12, 31), fetch_all=False, offline=True, clock=lambda: NOW
    )
    assert summary.ok and summary.patches > 0  # the copy's pages were all read
    assert _cursor(settings) == COPY_LAST_DAY  # not 2023-12-08, today minus two days
    # a range wholly after the copy: nothing read, the cursor does not move
    later = scan(
        settings, "linux-kernel", date(2023, 7, 1), date(2023, 12, 31), fetch_all=False, offline=True, clock=lambda: NOW
    )
    assert later.ok and _cursor(settings) == COPY_LAST_DAY


def test_online_cron_after_an_offline_one_reads_the_days_in_between(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    rules = load_rules()
    me = Address("Zoë Reviewer", "zoe@example.com")
    offline = run_cron(
        settings, "linux-kernel", rules=rules, identity=me, since=date(2023, 6, 1), now=NOW, offline=True
    )
    assert (offline.since, offline.until) == (date(2023, 6, 1), NOW.date())
    assert _cursor(settings) == COPY_LAST_DAY
    with MirrorServer(_copy()) as server:  # the host, online now
        online_settings = _settings(tmp_path, base_url=server.base_url, cache_dir=tmp_path / "cache")
        online = run_cron(online_settings, "linux-kernel", rules=rules, identity=me, now=NOW)
    assert online.since == date(2023, 6, 9)  # right after the last day read, not after "today minus two"
    assert online.scan is not None and online.scan.ok
    # online, the host's year page answers for the whole range: every final day is complete now
    assert _cursor(settings) == date(2023, 12, 8)
