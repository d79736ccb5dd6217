"""The store's one schema definition and its named, recorded migrations.

:data:`_SCHEMA` lists every table with its columns and primary key (created with sqlite-utils when
missing), :data:`_INDEXES` the indexes; :data:`MIGRATIONS` the named changes since the first
release, each recorded in ``meta`` once it ran. :func:`migrate` runs on every open.
"""

from __future__ import annotations

import logging
import sqlite3
from typing import TYPE_CHECKING, Any, Mapping

from reviewbot.errors import StoreError

if TYPE_CHECKING:  # pragma: no cover - typing only
    from reviewbot.store.base import StoreBase

log = logging.getLogger("reviewbot.store")

SCHEMA_VERSION = 1


#: Columns whose values depend on the wall clock; ``dump_rows()`` leaves them
#: out unless asked, so two runs at different times compare equal.
VOLATILE_COLUMNS: Mapping[str, frozenset[str]] = {
    "findings": frozenset({"first_seen"}),
    "pages": frozenset({"last_try"}),
}


_SCHEMA: dict[str, tuple[dict[str, type], str | tuple[str, ...]]] = {
    "meta": ({"key": str, "value": str}, "key"),
    "messages": (
        {
            "message_id": str,
            "list": str,
            "archive_url": str,
            "day": str,  # YYYY-MM-DD of the archive URL (arrival day)
            "seq": int,  # N of the archive URL (arrival order in the day)
            "date_utc": str,  # ISO 8601, UTC, or None
            "date_raw": str,
            "from_name": str,
            "from_email": str,
            "from_partial": int,
            "to_json": str,
            "cc_json": str,
            "subject": str,
            "in_reply_to": str,
            "references_json": str,
            "thread_id": str,
            "thread_prev_url": str,
            "thread_next_url": str,
            "body": str,
            "is_patch": int,
            "is_reply": int,
            "attachments_json": str,
            "obfuscated": int,
            "flowed": int,
            "notes_json": str,
            "source": str,
            "shipped": int,  # 1: read from the copy of real pages shipped in archive_cache/, not the network
        },
        "message_id",
    ),
    "message_urls": ({"url": str, "message_id": str, "list": str}, "url"),
    "patches": (
        {
            "message_id": str,
            "title": str,
            "version": int,
            "idx": int,
            "total": int,
            "tags_json": str,
            "series_key": str,
            "commit_message": str,
            "trailers_json": str,
            "files_json": str,
            "warnings_json": str,
        },
        "message_id",
    ),
    "findings": (
        {
            "fingerprint": str,
            "message_id": str,
            "rule_id": str,
            "rule_name": str,
            "severity": str,
            "message": str,
            "path": str,
            "line": int,
            "lines_json": str,
            "input_line": int,
            "symbol": str,
            "details_json": str,
            "hunk_json": str,
            "state": str,
            "first_seen": str,
        },
        "fingerprint",
    ),
    "rule_failures": (
        {"rule_id": str, "message_id": str, "error": str, "traceback": str},
        ("rule_id", "message_id"),
    ),
    "pages": (
        {
            "url": str,
            "list": str,
            "kind": str,  # list/year/month/day/message/attachment
            "status": str,  # failed
            "attempts": int,
            "last_error": str,
            "last_try": str,
        },
        "url",
    ),
    "cursor": ({"list": str, "last_complete_day": str}, "list"),
    # the reply drafts written (respond/): one row per draft, the fingerprints it covers (a fingerprint
    # is drafted at most once, across runs and versions), and why a finding got no draft
    "drafts": (
        {
            "message_id": str,
            "in_reply_to": str,
            "list": str,
            "subject": str,
            "path": str,
            "maildir_key": str,
            "fingerprints_json": str,
            "recipients_complete": int,
            "created": str,
        },
        "message_id",
    ),
    "draft_findings": ({"fingerprint": str, "draft_message_id": str}, "fingerprint"),
    "draft_skips": (
        {"fingerprint": str, "message_id": str, "rule_id": str, "state": str, "reason": str},
        "fingerprint",
    ),
}


_INDEXES = (
    ("messages", ("list", "day", "seq")),
    ("messages", ("thread_id",)),
    ("messages", ("archive_url",)),
    ("findings", ("message_id",)),
    ("patches", ("series_key",)),
    ("drafts", ("in_reply_to",)),
)


def _never(store: "StoreBase") -> bool:
    return False


def _nothing(store: "StoreBase") -> None:
    return None


#: SQLite learnt ``ALTER TABLE ... DROP COLUMN`` in 3.35; an older one keeps a dropped column, unused.
_DROP_COLUMN = sqlite3.sqlite_version_info >= (3, 35, 0)


def _has_sample_column(store: "StoreBase") -> bool:
    if "sample" not in store.db["messages"].columns_dict:
        return False
    return _DROP_COLUMN or store.conn.execute("SELECT 1 FROM messages WHERE sample = 1 LIMIT 1").fetchone() is not None


def _remove_samples(store: "StoreBase") -> None:
    # messages an earlier release stored from the made-up sample pages (sample = 1) are not the list's,
    # so they go, with all that hangs on them
    tables = set(store.db.table_names())
    with store.transaction():
        made_up = [r[0] for r in store.conn.execute("SELECT message_id FROM messages WHERE sample = 1")]
        for mid in made_up:
            for table in ("findings", "rule_failures", "patches", "message_urls", "draft_skips", "messages"):
                if table in tables:
                    store.conn.execute(f"DELETE FROM [{table}] WHERE message_id = ?", (mid,))
        if _DROP_COLUMN:
            store.conn.execute("ALTER TABLE messages DROP COLUMN sample")


def _lacks_shipped_column(store: "StoreBase") -> bool:
    return "shipped" not in store.db["messages"].columns_dict


def _add_shipped_column(store: "StoreBase") -> None:
    store.conn.execute("ALTER TABLE messages ADD COLUMN shipped INTEGER")


#: Named schema changes since the first release, oldest first: (name, needed(store), apply(store)).
#: Each runs when its check says the database needs it and is recorded in ``meta`` as ``migration:<name>``
#: (``new`` for a database created with it already); a new column or table is added here, and to
#: ``_SCHEMA`` for new databases. tests/data/reviewbot-schema1.sqlite keeps a database of the
#: first recorded release, whose every row must survive the upgrade.
#: A change later undone keeps its name (databases that recorded it stay consistent) with nothing to do.
MIGRATIONS: tuple[tuple[str, Any, Any], ...] = (
    # added ``messages.sample`` (1: read from the made-up sample pages); retired by the next one
    ("messages.sample", _never, _nothing),
    # the made-up demo went (it had a database of its own): sample rows and the column go
    ("messages.sample-removed", _has_sample_column, _remove_samples),
    # ``messages.shipped``: 1 for a message read from the real pages shipped in archive_cache/
    ("messages.shipped", _lacks_shipped_column, _add_shipped_column),
)


def _foreign_tables(conn: sqlite3.Connection) -> list[str]:
    """Tables of a database that is not reviewbot's (empty when it is, or when it is empty).

    A reviewbot database has a ``meta`` table with a ``schema_version`` row;
    anything else holding tables belongs to another program. Reads only.
    """
    names = [
        r[0]
        for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
        )
    ]
    if not names:
        return []
    if "meta" in names:
        try:
            row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        except sqlite3.DatabaseError:
            row = None
        if row is not None:
            return []
    return names


def migrate(store: "StoreBase") -> None:
    """Create missing tables and indexes, run the named migrations a database needs, record them."""
    names = set(store.db.table_names())
    if "meta" in names:
        row = store.conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        if row is not None:
            try:
                version = int(row[0])
            except ValueError as exc:
                raise StoreError(f"bad schema version {row[0]!r}", subject=str(store.path)) from exc
            if version > SCHEMA_VERSION:
                store.conn.close()
                raise StoreError(
                    f"schema version {version} is newer than this reviewbot understands "
                    f"({SCHEMA_VERSION}); upgrade reviewbot",
                    subject=str(store.path),
                )
    for table, (columns, pk) in _SCHEMA.items():
        if table not in names:
            store.db.table(table).create(columns, pk=pk, not_null=None, if_not_exists=True)
    done = {r[0] for r in store.conn.execute("SELECT key FROM meta WHERE key LIKE 'migration:%'")}
    for name, needed, step in MIGRATIONS:
        applied = needed(store)  # asked every time: cheap, and right even for a hand-edited file
        if applied:
            log.info("%s: migrating the database: %s", store.path, name)
            step(store)
        if f"migration:{name}" not in done or applied:
            store.conn.execute(
                "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (f"migration:{name}", "applied" if applied or names else "new"),
            )
    for table, cols in _INDEXES:
        store.db.table(table).create_index(list(cols), if_not_exists=True)
    store.conn.execute(
        "INSERT INTO meta(key, value) VALUES ('schema_version', ?) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value WHERE value <> excluded.value",
        (str(SCHEMA_VERSION),),
    )
