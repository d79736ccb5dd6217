"""Issue 13: a message page that cannot be read whole is a failed page, never a cut body marked done.

Hostile message pages are served on 127.0.0.1 by the mirror server: a body of
10.3 MB (libxml2's default limit for one text node is 10 MB: it kept 2,980
characters) and tags nested 3,000 deep inside the ``<pre>`` (deeper than the
parser reads even in its "huge" mode: it dropped the rest). The first is stored
whole; the second is recorded as a failed page, the run says so, and the next
run, with the page fixed, stores it.
"""

from __future__ import annotations

from datetime import date, datetime, timezone
from pathlib import Path

from conftest import MIRROR
from mirror_server import Fault, MirrorServer
from scan_oracle import manifest_between
from reviewbot.config import Settings
from reviewbot.scan import scan
from reviewbot.store import Store

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)
DAY = date(2023, 6, 1)


def clock() -> datetime:
    return NOW


def _settings(tmp: Path, base_url: str) -> Settings:
    return Settings(base_url=base_url, db_path=tmp / "db.sqlite", cache_dir=tmp / "cache", rate=0.0,
                    retries=0, backoff=0.0, timeout=5.0)


def _with_body(path: str, insert: bytes) -> bytes:
    page = (MIRROR / (path.lstrip("/") + ".html")).read_bytes()
    end = page.index(b"</pre>")
    return page[:end] + insert + page[end:]


def _one_page() -> str:
    return sorted(manifest_between(DAY, DAY).values())[0]


def test_ten_megabyte_body_is_stored_whole(tmp_path: Path) -> None:
    path = _one_page()
    big = b"".join(b"line %07d of a very long log that someone pasted into the mail\n" % n for n in range(160_000))
    hostile = _with_body(path, big + b"THE END\n")
    assert len(hostile) > 10_300_000
    with MirrorServer(MIRROR, faults=lambda p, a: Fault("body", body=hostile) if p == path else None) as server:
        settings = _settings(tmp_path, server.base_url)
        summary = scan(settings, "linux-kernel", DAY, DAY, fetch_all=True, clock=clock)
    assert summary.ok
    with Store(settings.db_path) as store:
        [row] = [r for r in store.messages("linux-kernel") if r["archive_url"].endswith(path)]
    assert row["body"].endswith("THE END\n") and len(row["body"]) > len(big)


def test_deeply_nested_page_is_a_failed_page_then_recovered(tmp_path: Path) -> None:
    path = _one_page()
    hostile = _with_body(path, b"<b>" * 3000 + b"text inside\n" + b"</b>" * 3000 + b"text after\n")
    state = {"hostile": True}

    def faults(p: str, attempt: int) -> Fault | None:
        return Fault("body", body=hostile) if p == path and state["hostile"] else None

    with MirrorServer(MIRROR, faults=faults) as server:
        settings = _settings(tmp_path, server.base_url)
        first = scan(settings, "linux-kernel", DAY, DAY, fetch_all=True, clock=clock)
        assert not first.ok
        with Store(settings.db_path) as store:
            failed = store.failed_pages()
            assert [r["url"] for r in failed] == [server.base_url + path]
            assert "could not be read whole" in failed[0]["last_error"]
            assert not [r for r in store.messages("linux-kernel") if r["archive_url"].endswith(path)]
        state["hostile"] = False
        again = scan(settings, "linux-kernel", DAY, DAY, fetch_all=True, clock=clock)
    assert again.ok and again.pages_recovered == 1
    with Store(settings.db_path) as store:
        assert store.failed_pages() == []
        assert [r for r in store.messages("linux-kernel") if r["archive_url"].endswith(path)]
