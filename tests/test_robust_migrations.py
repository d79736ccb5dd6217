"""Issue 13: databases of earlier releases open and keep every row.

tests/data/reviewbot-schema1.sqlite was written by the release of 2026-12-01
(schema version 1: six messages of tests/data/threads, their patches and
findings, two drafts, a skip, a failed page and a cursor). Opened by today's
Store it is upgraded in place by the named migrations, each recorded in
``meta``; every row of every table is still there, less the ``messages.sample``
column the release had (the offline demo has its own database now: the
``messages.sample-removed`` migration drops the made-up messages and the column).
The same file without that column (a database from before that marker) opens too.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from reviewbot.store import MIGRATIONS, SCHEMA_VERSION, Store

RELEASE_DB = Path(__file__).resolve().parent / "data" / "reviewbot-schema1.sqlite"


def _rows(path: Path) -> dict[str, set[tuple]]:
    conn = sqlite3.connect(path)
    try:
        tables = [
            r[0]
            for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        ]
        out = {}
        for table in tables:
            cur = conn.execute(f"SELECT * FROM [{table}]")
            names = [d[0] for d in cur.description]
            out[table] = {tuple(sorted(zip(names, row))) for row in cur}
        return out
    finally:
        conn.close()


#: Columns a migration removed: (table, column).
DROPPED = {("messages", "sample")}


def _survives(before: dict[str, set[tuple]], after: dict[str, set[tuple]]) -> None:
    for table, rows in before.items():
        kept = {tuple(kv for kv in row) for row in after[table]}
        for row in rows:  # every old column value is still there (new columns may be added)
            old = {(k, v) for k, v in row if (table, k) not in DROPPED}
            assert any(old <= set(new) for new in kept), (table, row)


def test_release_database_upgrades_and_keeps_every_row(tmp_path: Path) -> None:
    db = tmp_path / "old.sqlite"
    shutil.copy(RELEASE_DB, db)
    before = _rows(db)
    assert sum(len(v) for v in before.values()) >= 20 and before["drafts"]
    assert {dict(row)["sample"] for row in before["messages"]} == {0}  # no made-up message to remove
    with Store(db) as store:
        assert store.count("messages") == len(before["messages"])
        assert store.get_cursor("linux-kernel") is not None
        assert len(store.failed_pages()) == 1
    after = _rows(db)
    _survives(before, after)
    meta = dict(sqlite3.connect(db).execute("SELECT key, value FROM meta"))
    assert meta["schema_version"] == str(SCHEMA_VERSION)
    assert all(f"migration:{name}" in meta for name, _needed, _apply in MIGRATIONS)
    assert meta["migration:messages.sample-removed"] == "applied"
    with Store(db) as store:
        assert "sample" not in store.db["messages"].columns_dict


def test_database_without_sample_column_opens(tmp_path: Path) -> None:
    db = tmp_path / "older.sqlite"
    shutil.copy(RELEASE_DB, db)
    with sqlite3.connect(db) as conn:
        conn.execute("ALTER TABLE messages DROP COLUMN sample")
    conn.close()
    before = _rows(db)
    with Store(db) as store:
        assert "sample" not in store.db["messages"].columns_dict
        assert store.count("messages") == len(before["messages"])
    _survives(before, _rows(db))
    meta = dict(sqlite3.connect(db).execute("SELECT key, value FROM meta"))
    assert meta["migration:messages.sample"] == "applied"  # recorded as the release did
    assert meta["migration:messages.sample-removed"] == "applied"


def test_new_database_records_its_migrations_as_new(tmp_path: Path) -> None:
    Store(tmp_path / "new.sqlite").close()
    meta = dict(sqlite3.connect(tmp_path / "new.sqlite").execute("SELECT key, value FROM meta"))
    assert meta["migration:messages.sample"] == meta["migration:messages.sample-removed"] == "new"
