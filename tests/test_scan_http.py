"""The main job end to end on real pages: the mirror over real HTTP on 127.0.0.1, real SQLite files.

Oracle: the mirror's manifest.tsv (which messages exist where) and the mbox
copies in tests/data/mail (Message-ID, Subject, Date, body up to the
archive's address obfuscation). The mirror is the one of tests/data (June and
July 2023, May 2024, the days their threads reach); the whole-mirror scan reads
../shared.
"""

from __future__ import annotations

import os
from datetime import date, datetime, timezone
from pathlib import Path

import pytest

from conftest import DATA_MIRROR, MIRROR
from scan_oracle import manifest, manifest_between, mbox_index, mismatches
from reviewbot.config import Settings
from reviewbot.scan import scan
from reviewbot.store import Store, StoredMessage

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)
JUNE = (date(2023, 6, 1), date(2023, 6, 30))


def clock() -> datetime:
    return NOW


def _settings(tmp: Path, base_url: str, **kw) -> Settings:
    return Settings(
        base_url=base_url,
        db_path=tmp / "db.sqlite",
        cache_dir=tmp / "cache",
        rate=0.0,
        retries=1,
        backoff=0.0,
        timeout=10.0,
        **kw,
    )


def _message_rows(db: Path) -> list[StoredMessage]:
    with Store(db) as store:
        return store.messages("linux-kernel")


def _assert_matches_oracle(rows: list[StoredMessage], since: date, until: date) -> None:
    expected = manifest_between(since, until)
    got = {r.message_id: r for r in rows if since.isoformat() <= (r.day or "") <= until.isoformat()}
    assert set(got) == set(expected)
    for mid, row in got.items():
        assert (row.message.archive_url or "").endswith(expected[mid]), (mid, row.message.archive_url)
    index = mbox_index()
    bad = {mid: mismatches(row, index[mid]) for mid, row in got.items() if mismatches(row, index[mid])}
    assert bad == {}


def test_june_2023_all_over_http_matches_oracle_then_rerun_is_free(tmp_path: Path, data_mirror_server) -> None:
    settings = _settings(tmp_path, data_mirror_server.base_url)
    data_mirror_server.reset_log()
    first = scan(settings, "linux-kernel", *JUNE, fetch_all=True, clock=clock)
    expected = manifest_between(*JUNE)
    assert len(expected) == 37
    assert first.ok and first.errors == ()
    assert first.messages_stored == 37
    assert first.days == 10
    # robots.txt + the 2023 year page + one page per message (no attachment holds a diff this month)
    assert first.requests == len(data_mirror_server.requests) == 37 + 2
    assert first.requests / first.messages_stored <= 1.06
    _assert_matches_oracle(_message_rows(settings.db_path), *JUNE)
    with Store(settings.db_path) as store:
        before = store.dump_rows(include_volatile=True)
        assert store.count("patches") >= 17
        assert store.failed_pages() == []
        assert store.get_cursor("linux-kernel") == date(2023, 6, 30)

    data_mirror_server.reset_log()
    second = scan(settings, "linux-kernel", *JUNE, fetch_all=True, clock=clock)
    assert data_mirror_server.requests == []
    assert second.requests == 0
    assert second.messages_stored == 0 and second.messages_skipped == 37
    assert second.findings_by_rule == first.findings_by_rule
    with Store(settings.db_path) as store:
        assert store.dump_rows(include_volatile=True) == before  # no row added or changed


def test_offline_from_the_mirror_gives_the_same_messages_without_http(tmp_path: Path, data_mirror_server) -> None:
    http = _settings(tmp_path / "http", data_mirror_server.base_url)
    scan(http, "linux-kernel", *JUNE, fetch_all=True, clock=clock)

    def snapshot() -> tuple[int, float]:
        count, newest = 0, 0.0
        for dirpath, _dirs, files in os.walk(DATA_MIRROR):
            for name in files:
                count += 1
                newest = max(newest, os.stat(os.path.join(dirpath, name)).st_mtime)
        return count, newest

    before = snapshot()
    offline = Settings(
        base_url=data_mirror_server.base_url, db_path=tmp_path / "off.sqlite", cache_dir=DATA_MIRROR, rate=0.0
    )
    data_mirror_server.reset_log()
    summary = scan(offline, "linux-kernel", *JUNE, fetch_all=True, offline=True, clock=clock)
    assert data_mirror_server.requests == []
    assert summary.requests == 0 and summary.pages_fetched == 0
    assert summary.ok and summary.messages_stored == 37
    assert snapshot() == before  # nothing written into the mirror
    with Store(http.db_path) as a, Store(offline.db_path) as b:
        assert a.dump_rows()["messages"] == b.dump_rows()["messages"]
        assert a.dump_rows()["findings"] == b.dump_rows()["findings"]


def test_default_mode_fetches_patches_and_replies_of_threads_with_findings(tmp_path: Path, data_mirror_server) -> None:
    settings = _settings(tmp_path, data_mirror_server.base_url)
    data_mirror_server.reset_log()
    summary = scan(settings, "linux-kernel", *JUNE, clock=clock)
    assert summary.ok
    paths = [p for p, _status in data_mirror_server.requests]
    day_pages = [p for p in paths if p.count("/") == 5 and p.endswith("/")]
    assert len(day_pages) == 10
    assert paths.count("/linux-kernel/2023/") == 1
    assert summary.requests == len(data_mirror_server.requests)
    assert summary.findings >= 1
    assert summary.threads_followed >= 1
    with Store(settings.db_path) as store:
        rows = store.messages("linux-kernel")
        patches = [r for r in rows if r.is_patch]
        replies = [r for r in rows if not r.is_patch]
        # every reply fetched belongs to a thread with a patch (replies are only followed from patches)
        patch_threads = {r.thread_id for r in patches}
        assert replies and {r.thread_id for r in replies} <= patch_threads
        assert len(patches) >= 17
    # each stored message of the range still matches the oracle
    index = mbox_index()
    june = [r for r in rows if "2023-06-01" <= (r.day or "") <= "2023-06-30"]
    assert all(not mismatches(r, index[r.message_id]) for r in june)
    print(
        f"\ndefault mode June 2023: {summary.requests} requests for {summary.messages_stored} messages "
        f"({summary.patches} patches, {summary.threads_followed} threads followed)"
    )
    data_mirror_server.reset_log()
    again = scan(settings, "linux-kernel", *JUNE, clock=clock)
    assert again.requests == 0 and data_mirror_server.requests == []


def test_a_two_month_scan_over_http_matches_oracle(tmp_path: Path, data_mirror_server) -> None:
    since, until = date(2023, 6, 1), date(2023, 7, 31)
    settings = _settings(tmp_path, data_mirror_server.base_url)
    data_mirror_server.reset_log()
    summary = scan(settings, "linux-kernel", since, until, fetch_all=True, clock=clock)
    expected = manifest_between(since, until)
    assert summary.ok
    assert summary.messages_stored == len(expected)
    _assert_matches_oracle(_message_rows(settings.db_path), since, until)
    assert summary.requests <= len(expected) + 2 + sum(1 for p, _ in data_mirror_server.requests if p.count("/") == 6)


@pytest.mark.slow
def test_whole_mirror_offline_scans_without_error(tmp_path: Path, mirror_server) -> None:
    settings = Settings(base_url=mirror_server.base_url, db_path=tmp_path / "all.sqlite", cache_dir=MIRROR, rate=0.0)
    mirror_server.reset_log()
    summary = scan(
        settings, "linux-kernel", date(2018, 11, 1), date(2026, 6, 30), fetch_all=True, offline=True, clock=clock
    )
    assert mirror_server.requests == []
    assert summary.errors == ()
    assert summary.messages_stored == len(manifest(whole=True)) == 4419
    assert summary.rule_failures == 0
    rows = _message_rows(settings.db_path)
    index = mbox_index(whole=True)
    bad = [r.message_id for r in rows if mismatches(r, index[r.message_id])]
    assert bad == []
    print(
        f"\nwhole mirror: {summary.messages_stored} messages, {summary.patches} patches, "
        f"findings {dict(summary.findings_by_rule)}"
    )


@pytest.mark.parametrize(
    "link",
    [
        "http://evil.example/linux-kernel/2023/06/12/1",
        "../../../../../etc/passwd",
        "//evil.example/linux-kernel/2023/06/12/1",
        "../../../../netdev/2023/06/12/1",
    ],
)
def test_crafted_thread_links_are_never_followed(tmp_path: Path, link: str) -> None:
    """A page whose [thread-next>] leaves the archive: not fetched, the scan goes on."""
    from mirror_server import Fault, MirrorServer

    path = "/linux-kernel/2023/06/09/2"  # the patch RB102 flags, so default mode follows its thread
    page = (DATA_MIRROR / "linux-kernel/2023/06/09/2.html").read_bytes()
    crafted = page.replace(
        b'<a href="../../../2023/06/12/1">[thread-next&gt;]</a>', f'<a href="{link}">[thread-next&gt;]</a>'.encode()
    )
    assert crafted != page

    def faults(p: str, attempt: int):
        return Fault("body", body=crafted) if p == path else None

    with MirrorServer(DATA_MIRROR, faults=faults) as server:
        settings = _settings(tmp_path, server.base_url)
        summary = scan(settings, "linux-kernel", date(2023, 6, 9), date(2023, 6, 9), clock=clock)
        paths = [p for p, _s in server.requests]
    assert summary.ok, summary.errors
    assert all(p.startswith("/linux-kernel/") or p == "/robots.txt" for p in paths)
    assert "/linux-kernel/2023/06/12/1" not in paths or not link.startswith(("http://evil", "//evil"))
    assert not any("etc" in p or "netdev" in p for p in paths)
    with Store(settings.db_path) as store:
        assert store.failed_pages() == []


def test_attachment_link_off_the_message_is_not_fetched(tmp_path: Path) -> None:
    """A crafted 'View attachment' link to another message is ignored; the real one is fetched and kept."""
    from mirror_server import Fault, MirrorServer

    path = "/linux-kernel/2023/08/17/1"  # its patch is in attachment 1/1 (patch.diff)
    page = (DATA_MIRROR / "linux-kernel/2023/08/17/1.html").read_bytes()
    assert b'<a href="1/1">patch.diff</a>' in page
    crafted = page.replace(b'<a href="1/1">patch.diff</a>', b'<a href="../../../2023/06/09/1">patch.diff</a>')

    def faults(p: str, attempt: int):
        return Fault("body", body=crafted) if p == path and crafted_on[0] else None

    crafted_on = [True]
    with MirrorServer(DATA_MIRROR, faults=faults) as server:
        settings = _settings(tmp_path, server.base_url)
        day = date(2023, 8, 17)
        summary = scan(settings, "linux-kernel", day, day, fetch_all=True, clock=clock)
        paths = [p for p, _s in server.requests]
        assert summary.ok
        assert "/linux-kernel/2023/06/09/1" not in paths
        with Store(settings.db_path) as store:
            [row] = [r for r in store.messages("linux-kernel") if (r.message.archive_url or "").endswith(path)]
            [att] = row.message.attachments
            assert att.text is None
        # the genuine page: the attachment is fetched and becomes the patch
        crafted_on[0] = False
        clean = _settings(tmp_path / "clean", server.base_url)
        scan(clean, "linux-kernel", day, day, fetch_all=True, clock=clock)
        assert path + "/1" in [p for p, _s in server.requests]
        with Store(clean.db_path) as store:
            [row] = [r for r in store.messages("linux-kernel") if (r.message.archive_url or "").endswith(path)]
            [att] = row.message.attachments
            assert att.text is not None
            assert att.text.startswith(("diff", " ", "---", "From")) and "\n+" in att.text


def test_another_base_on_the_same_database_neither_warns_nor_counts_stored_messages_as_new(
    tmp_path: Path, data_mirror_server, caplog: pytest.LogCaptureFixture
) -> None:
    """HTTP scan, then ``--offline --cache-dir DATA_MIRROR`` with another base URL into the same database.

    The second run's thread walks use only URLs of its own base (stored URLs of
    the first base are rebased, never warned about), and messages already stored
    under their Message-ID are not "new".
    """
    import logging

    http = _settings(tmp_path, data_mirror_server.base_url)
    first = scan(http, "linux-kernel", *JUNE, clock=clock)
    assert first.ok and first.threads_followed >= 1
    other = Settings(base_url="http://127.0.0.1:9", db_path=http.db_path, cache_dir=DATA_MIRROR, rate=0.0)
    caplog.clear()
    caplog.set_level(logging.DEBUG, logger="reviewbot.scan")
    second = scan(other, "linux-kernel", *JUNE, offline=True, clock=clock)
    assert second.ok
    assert not [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert second.messages_stored == 0
    assert second.messages_skipped == first.messages_stored + first.messages_skipped
    assert second.threads_followed == first.threads_followed
    with Store(http.db_path) as store:
        urls = store.known_urls("linux-kernel")
    assert sum(u.startswith("http://127.0.0.1:9/") for u in urls) == first.messages_stored
