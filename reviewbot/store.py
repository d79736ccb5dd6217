"""The SQLite store: schema, idempotent upserts and the queries the other stages need.

This is the only module that holds SQL. Tables are created with sqlite-utils;
writes go through parameterised ``INSERT ... ON CONFLICT`` statements so that
running the same scan twice adds nothing and changes no row. Every write of
one page (a message, its patch, its findings) happens in one transaction
(``with store.transaction():``); the database runs in WAL mode so a process
killed with SIGKILL leaves either the whole page or nothing.

Tables (schema version :data:`SCHEMA_VERSION`, kept in ``meta``):

* ``messages``: one row per Message-ID (first archive URL wins for duplicates;
  ``sample`` = 1 marks messages read from the made-up sample pages).
* ``message_urls``: every archive URL seen -> Message-ID (resume, thread walks).
* ``patches``: the ``git am`` split of a message (summary of the diff as JSON).
* ``findings``: one row per finding fingerprint, with its state.
* ``rule_failures``: rules that crashed on a patch.
* ``pages``: the fetch log of pages that failed (a page that later succeeds is
  removed, so a recovered scan ends with the same rows as a clean one).
* ``cursor``: per list, the last day scanned completely (for cron).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import sqlite3
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Sequence

import sqlite_utils

from reviewbot.errors import StoreError
from reviewbot.models import (
    Address,
    AttachmentRef,
    DiffLine,
    Finding,
    FindingState,
    Hunk,
    LineKind,
    Message,
    Patch,
    RuleFailure,
    Severity,
    Subject,
)

log = logging.getLogger(__name__)

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
            "sample": int,  # 1: read from the made-up sample pages (archive_cache/), never drafted
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
}

_INDEXES = (
    ("messages", ("list", "day", "seq")),
    ("messages", ("thread_id",)),
    ("messages", ("archive_url",)),
    ("findings", ("message_id",)),
    ("patches", ("series_key",)),
)


def _j(value: Any) -> str:
    """Canonical JSON (sorted keys, no spaces) so equal data is equal text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def _addr(a: Address) -> dict[str, Any]:
    return {"name": a.name, "email": a.email, "partial": a.partial}


def _addr_from(d: Mapping[str, Any]) -> Address:
    return Address(name=d.get("name", ""), email=d.get("email", ""), partial=bool(d.get("partial")))


def hunk_to_json(hunk: Hunk | None) -> str | None:
    """Serialise a Hunk (with its lines) for the ``findings.hunk_json`` column."""
    if hunk is None:
        return None
    return _j(
        {
            "header": hunk.header,
            "old_start": hunk.old_start,
            "old_len": hunk.old_len,
            "new_start": hunk.new_start,
            "new_len": hunk.new_len,
            "section": hunk.section,
            "lines": [
                [ln.kind.value, ln.text, ln.old_no, ln.new_no, ln.input_line, ln.altered] for ln in hunk.lines
            ],
        }
    )


def hunk_from_json(text: str | None) -> Hunk | None:
    """Rebuild a Hunk from :func:`hunk_to_json` output (None stays None)."""
    if not text:
        return None
    d = json.loads(text)
    lines = tuple(
        DiffLine(kind=LineKind(k), text=t, old_no=o, new_no=n, input_line=i, altered=bool(a))
        for k, t, o, n, i, a in d["lines"]
    )
    return Hunk(
        header=d["header"],
        old_start=d["old_start"],
        old_len=d["old_len"],
        new_start=d["new_start"],
        new_len=d["new_len"],
        section=d["section"],
        lines=lines,
    )


def _utc_iso(value: datetime | None) -> str | None:
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return value.astimezone(timezone.utc).isoformat()


def _url_day_seq(url: str | None) -> tuple[str | None, int | None]:
    """``.../LIST/YYYY/MM/DD/N`` -> ("YYYY-MM-DD", N); (None, None) for other URLs."""
    if not url:
        return None, None
    parts = url.rstrip("/").split("/")
    if len(parts) >= 4 and all(p.isdigit() for p in parts[-4:]):
        y, m, d, n = parts[-4:]
        if len(y) == 4 and len(m) == 2 and len(d) == 2:
            return f"{y}-{m}-{d}", int(n)
    return None, None



def _range_where(list_name: str | None, since: date | None, until: date | None,
                 prefix: str = "") -> tuple[str, list[Any]]:
    """SQL condition and parameters selecting messages of a list and an arrival-day range (inclusive).

    ``prefix`` is the messages table's alias with its dot (``"m."``) when joined.
    """
    where, args = ["1=1"], []
    for column, value in (("list", list_name), ("day >=", since), ("day <=", until)):
        if value is None:
            continue
        name, _, op = column.partition(" ")
        where.append(f"{prefix}{name} {op or '='} ?")
        args.append(value.isoformat() if isinstance(value, date) else value)
    return " AND ".join(where), args

def _lacks_sample_column(store: "Store") -> bool:
    return "sample" not in store.db["messages"].columns_dict


def _add_sample_column(store: "Store") -> None:
    # databases from before the sample marker: every stored message counts as real
    store.conn.execute("ALTER TABLE messages ADD COLUMN sample INTEGER DEFAULT 0")


#: Named schema changes since the first release, oldest first: (name, needed(store), apply(store)).
#: Each runs when its check says the database needs it and is recorded in ``meta`` as ``migration:<name>``
#: (``new`` for a database created with it already); a new column or table is added here, and to
#: ``_SCHEMA`` for new databases. tests/data/reviewbot-schema1.sqlite keeps a database of the
#: first recorded release, whose every row must survive the upgrade.
MIGRATIONS: tuple[tuple[str, Any, Any], ...] = (
    ("messages.sample", _lacks_sample_column, _add_sample_column),
)

BUSY_TIMEOUT = 30.0  # seconds a statement waits for another process's lock before "database is locked"


def _foreign_tables(conn: sqlite3.Connection) -> list[str]:
    """Tables of a database that is not reviewbot's (empty when it is, or when it is empty).

    A reviewbot database has a ``meta`` table with a ``schema_version`` row;
    anything else holding tables belongs to another program. Reads only.
    """
    names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                         "AND name NOT LIKE 'sqlite_%' ORDER BY name")]
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


class Store:
    """The reviewbot database at ``path`` (created with its parent folder when missing).

    Raises StoreError naming the file when it cannot be opened, is not a
    database, or was written by a newer reviewbot (unknown schema version).
    Use as a context manager or call :meth:`close`.
    """

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(str(self.path), isolation_level=None, timeout=BUSY_TIMEOUT)
            foreign = _foreign_tables(conn)
            if foreign:  # refused before anything is written (no table added, no WAL mode set)
                conn.close()
                raise StoreError("not a reviewbot database (it holds other tables: "
                                 f"{', '.join(foreign[:5])}{', ...' if len(foreign) > 5 else ''}); "
                                 "give another --db", subject=str(self.path))
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA foreign_keys=OFF")
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(f"cannot open the database: {exc}", subject=str(self.path)) from exc
        self.conn = conn
        self.db = sqlite_utils.Database(conn)
        self._depth = 0
        try:
            self._migrate()
        except sqlite3.DatabaseError as exc:
            conn.close()
            if isinstance(exc, sqlite3.OperationalError) and ("locked" in str(exc) or "busy" in str(exc)):
                raise StoreError(f"the database is locked by another program (waited {BUSY_TIMEOUT:g}s); "
                                 "try again when it is done", subject=str(self.path)) from exc
            if isinstance(exc, sqlite3.OperationalError) and "full" in str(exc):
                raise StoreError("the disk is full: the database cannot be written", subject=str(self.path)) from exc
            raise StoreError(f"not a reviewbot database: {exc}", subject=str(self.path)) from exc

    # ------------------------------------------------------------------ setup
    def _migrate(self) -> None:
        names = set(self.db.table_names())
        if "meta" in names:
            row = self.conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
            if row is not None:
                try:
                    version = int(row[0])
                except ValueError as exc:
                    raise StoreError(f"bad schema version {row[0]!r}", subject=str(self.path)) from exc
                if version > SCHEMA_VERSION:
                    self.conn.close()
                    raise StoreError(
                        f"schema version {version} is newer than this reviewbot understands "
                        f"({SCHEMA_VERSION}); upgrade reviewbot",
                        subject=str(self.path),
                    )
        for table, (columns, pk) in _SCHEMA.items():
            if table not in names:
                self.db.table(table).create(columns, pk=pk, not_null=None, if_not_exists=True)
        done = {r[0] for r in self.conn.execute("SELECT key FROM meta WHERE key LIKE 'migration:%'")}
        for name, needed, step in MIGRATIONS:
            applied = needed(self)  # asked every time: cheap, and right even for a hand-edited file
            if applied:
                log.info("%s: migrating the database: %s", self.path, name)
                step(self)
            if f"migration:{name}" not in done or applied:
                self.conn.execute("INSERT INTO meta(key, value) VALUES (?, ?) "
                                  "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                                  (f"migration:{name}", "applied" if applied or names else "new"))
        for table, cols in _INDEXES:
            self.db.table(table).create_index(list(cols), if_not_exists=True)
        self._create_extra_tables()
        self.conn.execute(
            "INSERT INTO meta(key, value) VALUES ('schema_version', ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value WHERE value <> excluded.value",
            (str(SCHEMA_VERSION),),
        )

    def close(self) -> None:
        """Close the connection (a checkpoint folds the WAL back into the file)."""
        with contextlib.suppress(sqlite3.Error):
            self.conn.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def transaction(self) -> Iterator["Store"]:
        """One atomic unit of writes; nested uses join the outer transaction.

        On an exception everything written inside is rolled back and the
        exception propagates.
        """
        if self._depth:
            self._depth += 1
            try:
                yield self
            finally:
                self._depth -= 1
            return
        self.conn.execute("BEGIN IMMEDIATE")
        self._depth = 1
        try:
            yield self
        except BaseException:
            self._depth = 0
            self.conn.execute("ROLLBACK")
            raise
        self._depth = 0
        self.conn.execute("COMMIT")

    # ------------------------------------------------------------------ helpers
    def _upsert(self, table: str, row: Mapping[str, Any], keys: Sequence[str], *,
                keep: Sequence[str] = (), guard: str | None = None) -> None:
        """INSERT or UPDATE ``row``; an update only touches columns whose value differs.

        ``keep`` columns are written on insert only (e.g. first_seen); ``guard``
        is an extra SQL condition on the update.
        """
        cols = list(row)
        update = [c for c in cols if c not in keys and c not in keep]
        sql = f"INSERT INTO [{table}] ({', '.join(f'[{c}]' for c in cols)}) VALUES ({', '.join('?' for _ in cols)})"
        conflict = ", ".join(f"[{k}]" for k in keys)
        if update:
            sets = ", ".join(f"[{c}] = excluded.[{c}]" for c in update)
            differs = " OR ".join(f"[{c}] IS NOT excluded.[{c}]" for c in update)
            where = f"({differs})" + (f" AND ({guard})" if guard else "")
            sql += f" ON CONFLICT({conflict}) DO UPDATE SET {sets} WHERE {where}"
        else:
            sql += f" ON CONFLICT({conflict}) DO NOTHING"
        self.conn.execute(sql, [row[c] for c in cols])

    # ------------------------------------------------------------------ messages
    def put_message(self, message: Message, *, thread_id: str | None = None, sample: bool = False,
                    day: date | None = None, seq: int | None = None) -> str:
        """Upsert one message (and its archive URL); returns the key used (its Message-ID).

        A message without a Message-ID is keyed by its archive URL or source.
        When the same Message-ID comes from two archive URLs the first one
        stored keeps the row; both URLs are remembered.
        ``sample``: the message was read from the made-up sample pages; such
        rows are marked, never drafted, and give way to a real message: a real
        page stored under the same archive URL replaces the sample message
        (row, URL, patch, findings), and a sample never overwrites a real row.
        ``day``/``seq``: the arrival day and order of a message without an archive
        URL (read from lore's git epochs), instead of the ones the URL gives.
        """
        key = message.message_id or message.archive_url or message.source
        if not key:
            raise StoreError("message has neither Message-ID nor URL", subject=message.source or None)
        url_day, url_seq = _url_day_seq(message.archive_url)
        frm = message.from_addr
        row = {
            "message_id": key,
            "list": message.list_name,
            "archive_url": message.archive_url,
            "day": day.isoformat() if day is not None else url_day,
            "seq": seq if seq is not None else url_seq,
            "date_utc": _utc_iso(message.date),
            "date_raw": message.date_raw,
            "from_name": frm.name if frm else None,
            "from_email": frm.email if frm else None,
            "from_partial": int(frm.partial) if frm else 0,
            "to_json": _j([_addr(a) for a in message.to]),
            "cc_json": _j([_addr(a) for a in message.cc]),
            "subject": message.subject.raw,
            "in_reply_to": message.in_reply_to,
            "references_json": _j(list(message.references)),
            "thread_prev_url": message.thread_prev_url,
            "thread_next_url": message.thread_next_url,
            "body": message.body,
            "is_patch": int(message.subject.is_patch),
            "is_reply": int(message.subject.is_reply),
            "attachments_json": _j([dataclasses.asdict(a) for a in message.attachments]),
            "obfuscated": int(message.obfuscated),
            "flowed": int(message.flowed),
            "notes_json": _j(list(message.notes)),
            "source": message.source,
            "sample": int(sample),
        }
        if thread_id is not None:
            row["thread_id"] = thread_id
        if not sample and message.archive_url:
            self._drop_samples_at(message.archive_url, key)
        guard = ("(archive_url IS excluded.archive_url OR archive_url IS NULL OR sample = 1)"
                 " AND NOT (excluded.sample = 1 AND IFNULL(sample, 0) = 0)"
                 # a copy with obfuscated addresses never replaces one with the real ones (lore's)
                 " AND NOT (excluded.obfuscated = 1 AND IFNULL(obfuscated, 0) = 0 AND archive_url IS NULL"
                 " AND source LIKE 'http%')")
        self._upsert("messages", row, ["message_id"], keep=("thread_id",) if thread_id is None else (), guard=guard)
        if message.archive_url:
            self._upsert("message_urls", {"url": message.archive_url, "message_id": key,
                                          "list": message.list_name}, ["url"])
        return key

    def _drop_samples_at(self, url: str, key: str) -> None:
        """Remove sample messages stored from ``url`` under another key (a real page now takes the URL)."""
        stale = [r[0] for r in self.conn.execute(
            "SELECT message_id FROM messages WHERE sample = 1 AND message_id <> ? AND (archive_url = ? "
            "OR message_id IN (SELECT message_id FROM message_urls WHERE url = ?))", (key, url, url))]
        for mid in stale:
            for table in ("findings", "rule_failures", "patches", "message_urls", "messages"):
                self.conn.execute(f"DELETE FROM [{table}] WHERE message_id = ?", (mid,))

    def known_urls(self, list_name: str | None = None, *, include_sample: bool = True) -> dict[str, str]:
        """Archive URL -> Message-ID of every stored message (of one list when given).

        ``include_sample=False`` leaves out URLs whose message came from the
        made-up sample pages (a scan reads those again, so that the real page
        replaces the sample once the host can be reached).
        """
        sql = "SELECT u.url, u.message_id FROM message_urls u"
        where, args = [], []
        if not include_sample:
            sql += " LEFT JOIN messages m ON m.message_id = u.message_id"
            where.append("IFNULL(m.sample, 0) = 0")
        if list_name is not None:
            where.append("u.list = ?")
            args.append(list_name)
        if where:
            sql += " WHERE " + " AND ".join(where)
        return dict(self.conn.execute(sql, args).fetchall())

    def has_message(self, message_id: str) -> bool:
        """True when a message with this Message-ID (or key) is stored."""
        return self.conn.execute("SELECT 1 FROM messages WHERE message_id = ?", (message_id,)).fetchone() is not None

    def has_url(self, url: str) -> bool:
        """True when a message from this archive URL is stored."""
        return self.conn.execute("SELECT 1 FROM message_urls WHERE url = ?", (url,)).fetchone() is not None

    def message_row(self, message_id: str) -> dict[str, Any] | None:
        """The raw ``messages`` row of a Message-ID, or None."""
        cur = self.conn.execute("SELECT * FROM messages WHERE message_id = ?", (message_id,))
        row = cur.fetchone()
        if row is None:
            return None
        return dict(zip([d[0] for d in cur.description], row))

    def messages(self, list_name: str | None = None, since: date | None = None,
                 until: date | None = None, *, patches_only: bool = False) -> list[dict[str, Any]]:
        """``messages`` rows by list and arrival day range (inclusive), in arrival order."""
        cond, args = _range_where(list_name, since, until)
        if patches_only:
            cond += " AND is_patch = 1"
        return self._rows(f"SELECT * FROM messages WHERE {cond} ORDER BY day, seq, message_id", args)

    def patch_ids(self, list_name: str, since: date | None = None,
                  until: date | None = None) -> list[tuple[str, str | None]]:
        """(Message-ID, thread_id) of the patches of a list / day range, in arrival order."""
        cond, args = _range_where(list_name, since, until)
        cur = self.conn.execute(f"SELECT message_id, thread_id FROM messages WHERE {cond} AND is_patch = 1 "
                                "ORDER BY day, seq, message_id", args)
        return [(r[0], r[1]) for r in cur.fetchall()]

    def message_rows(self, message_ids: Sequence[str]) -> list[dict[str, Any]]:
        """``messages`` rows of these Message-IDs, in arrival order (unknown ones left out)."""
        out: list[dict[str, Any]] = []
        ids = list(message_ids)
        for start in range(0, len(ids), 500):
            chunk = ids[start:start + 500]
            marks = ", ".join("?" for _ in chunk)
            out.extend(self._rows(f"SELECT * FROM messages WHERE message_id IN ({marks})", chunk))
        out.sort(key=lambda r: (r["day"] or "", r["seq"] or 0, r["message_id"]))
        return out

    def thread_members(self, thread_id: str) -> list[dict[str, Any]]:
        """Rows of every stored message of a thread, in archive (arrival) order."""
        return self._rows("SELECT * FROM messages WHERE thread_id = ? ORDER BY day, seq, message_id", [thread_id])

    def load_message(self, message_id: str, parse_subject: Any = None) -> Message | None:
        """Rebuild the :class:`Message` stored under ``message_id`` (None when absent).

        ``parse_subject`` turns the raw Subject into a Subject (pass
        ``reviewbot.parse.subject.parse_subject``); without it only ``raw``,
        ``title`` and the stored is_reply flag are set.
        """
        row = self.message_row(message_id)
        return None if row is None else message_from_row(row, parse_subject)

    def thread_links(self, list_name: str) -> list[tuple[str, str, str | None, str | None]]:
        """(archive_url, message_id, thread_prev_url, thread_id) of every stored message of a list."""
        return [tuple(r) for r in self.conn.execute(
            "SELECT archive_url, message_id, thread_prev_url, thread_id FROM messages "
            "WHERE list = ? AND archive_url IS NOT NULL", (list_name,))]

    def set_thread_ids(self, mapping: Mapping[str, str]) -> int:
        """Set ``thread_id`` for Message-ID -> thread id; returns how many rows changed."""
        changed = 0
        with self.transaction():
            for mid, tid in mapping.items():
                cur = self.conn.execute(
                    "UPDATE messages SET thread_id = ? WHERE message_id = ? AND thread_id IS NOT ?", (tid, mid, tid))
                changed += cur.rowcount
        return changed

    # ------------------------------------------------------------------ patches
    def put_patch(self, patch: Patch, *, series_key: str | None = None) -> None:
        """Upsert the ``git am`` split of a stored message (diff summarised per file)."""
        self.__dict__.pop("_revision_cache", None)  # a new patch may be a revision of a stored one
        s = patch.subject
        row = {
            "message_id": patch.message_id or patch.message.archive_url or patch.message.source,
            "title": s.title,
            "version": s.version,
            "idx": s.index,
            "total": s.total,
            "tags_json": _j(list(s.tags)),
            "commit_message": patch.commit_message,
            "trailers_json": _j([[t.key, t.value] for t in patch.trailers]),
            "files_json": _j([
                {"path": f.path, "status": f.status, "added": f.added_count, "removed": f.removed_count}
                for f in patch.files
            ]),
            "warnings_json": _j(list(patch.warnings)),
        }
        keep: tuple[str, ...] = ()
        if series_key is not None:
            row["series_key"] = series_key
        else:
            keep = ("series_key",)
        self._upsert("patches", row, ["message_id"], keep=keep)

    def set_series_key(self, message_id: str, series_key: str) -> None:
        """Record which series (see scan's grouping) a patch belongs to."""
        self.conn.execute("UPDATE patches SET series_key = ? WHERE message_id = ? AND series_key IS NOT ?",
                          (series_key, message_id, series_key))

    def patch_row(self, message_id: str) -> dict[str, Any] | None:
        """The raw ``patches`` row, or None."""
        rows = self._rows("SELECT * FROM patches WHERE message_id = ?", [message_id])
        return rows[0] if rows else None

    # ------------------------------------------------------------------ findings
    def replace_findings(self, message_id: str, findings: Iterable[Finding], failures: Iterable[RuleFailure] = (),
                         *, now: datetime | None = None) -> None:
        """Make the stored findings of one patch equal to ``findings`` (one transaction).

        Findings are keyed by fingerprint; ``first_seen`` is written once and
        kept; a finding a person dismissed stays dismissed; findings the rules
        no longer produce for this patch are removed (unless dismissed).
        ``failures`` replace the patch's rule failures the same way.
        """
        stamp = _utc_iso(now or datetime.now(timezone.utc))
        with self.transaction():
            keep: list[str] = []
            for f in findings:
                fp = f.fingerprint or f"{f.rule_id}:{message_id}:{f.path}:{f.line}:{f.symbol}"
                keep.append(fp)
                row = {
                    "fingerprint": fp,
                    "message_id": f.message_id or message_id,
                    "rule_id": f.rule_id,
                    "rule_name": f.rule_name,
                    "severity": f.severity.value,
                    "message": f.message,
                    "path": f.path,
                    "line": f.line,
                    "lines_json": _j(list(f.lines)),
                    "input_line": f.input_line,
                    "symbol": f.symbol,
                    "details_json": _j(dict(f.details)),
                    "hunk_json": hunk_to_json(f.hunk),
                    "state": f.state.value,
                    "first_seen": stamp,
                }
                self._upsert("findings", row, ["fingerprint"], keep=("first_seen",),
                             guard="state <> 'dismissed'")
            marks = ", ".join("?" for _ in keep)
            self.conn.execute(
                "DELETE FROM findings WHERE message_id = ? AND state <> 'dismissed'"
                + (f" AND fingerprint NOT IN ({marks})" if keep else ""),
                [message_id, *keep],
            )
            seen: list[str] = []
            for fail in failures:
                seen.append(fail.rule_id)
                self._upsert("rule_failures", {"rule_id": fail.rule_id, "message_id": message_id,
                                               "error": fail.error, "traceback": fail.traceback},
                             ["rule_id", "message_id"])
            marks = ", ".join("?" for _ in seen)
            self.conn.execute(
                "DELETE FROM rule_failures WHERE message_id = ?" + (f" AND rule_id NOT IN ({marks})" if seen else ""),
                [message_id, *seen],
            )

    def findings_for(self, message_id: str) -> list[Finding]:
        """The stored findings of one patch as :class:`Finding` values, sorted by (path, line, rule)."""
        rows = self._rows("SELECT * FROM findings WHERE message_id = ? "
                          "ORDER BY path, line, rule_id, fingerprint", [message_id])
        return [finding_from_row(r) for r in rows]

    def set_finding_state(self, fingerprint: str, state: FindingState) -> bool:
        """Change one finding's state (e.g. dismissed by a person); False when unknown."""
        cur = self.conn.execute("UPDATE findings SET state = ? WHERE fingerprint = ?", (state.value, fingerprint))
        return cur.rowcount > 0

    def finding_counts(self, list_name: str | None = None, since: date | None = None,
                       until: date | None = None) -> dict[str, int]:
        """Number of findings per rule id for patches in a list / day range."""
        cond, args = _range_where(list_name, since, until, "m.")
        cur = self.conn.execute(
            "SELECT f.rule_id, COUNT(*) FROM findings f JOIN messages m ON m.message_id = f.message_id "
            f"WHERE {cond} GROUP BY f.rule_id ORDER BY f.rule_id", args)
        return dict(cur.fetchall())

    def findings_in_range(self, list_name: str | None = None, since: date | None = None,
                          until: date | None = None) -> list[dict[str, Any]]:
        """Findings of patches in a list / day range with their message's subject and URL.

        Rows (dicts) hold rule_id, severity, state, message, path, line,
        message_id, subject, archive_url, day; in arrival order.
        """
        cond, args = _range_where(list_name, since, until, "m.")
        return self._rows(
            "SELECT f.rule_id, f.severity, f.state, f.message, f.path, f.line, f.message_id, "
            "m.subject, m.archive_url, m.day FROM findings f JOIN messages m ON m.message_id = f.message_id "
            f"WHERE {cond} ORDER BY m.day, m.seq, f.path, f.line, f.rule_id", args)

    def rule_failure_count(self, list_name: str | None = None, since: date | None = None,
                           until: date | None = None) -> int:
        """Number of recorded rule crashes for messages of a list / day range."""
        cond, args = _range_where(list_name, since, until, "m.")
        cur = self.conn.execute(
            "SELECT COUNT(*) FROM rule_failures rf JOIN messages m ON m.message_id = rf.message_id "
            f"WHERE {cond}", args)
        return int(cur.fetchone()[0])

    def patches_with_open_findings(self, list_name: str | None = None) -> list[str]:
        """Message-IDs of patches that have open findings and no draft yet, in arrival order.

        Messages read from the made-up sample pages are left out (never drafted).
        """
        drafted = ""
        if "drafts" in set(self.db.table_names()):
            drafted = "AND m.message_id NOT IN (SELECT in_reply_to FROM drafts WHERE in_reply_to IS NOT NULL)"
        args: list[Any] = []
        lst = ""
        if list_name is not None:
            lst = "AND m.list = ?"
            args.append(list_name)
        cur = self.conn.execute(
            "SELECT DISTINCT m.message_id, m.day, m.seq FROM messages m JOIN findings f ON f.message_id = m.message_id "
            f"WHERE f.state = 'open' AND IFNULL(m.sample, 0) = 0 {lst} {drafted} "
            "ORDER BY m.day, m.seq, m.message_id", args)
        return [r[0] for r in cur.fetchall()]

    # ------------------------------------------------------------------ fetch log
    def page_failed(self, url: str, *, kind: str, error: str, attempts: int = 1,
                    list_name: str | None = None, now: datetime | None = None) -> None:
        """Record (or add to) a failed page: URL, kind, attempts so far, last error."""
        self.conn.execute(
            "INSERT INTO pages(url, list, kind, status, attempts, last_error, last_try) "
            "VALUES (?, ?, ?, 'failed', ?, ?, ?) ON CONFLICT(url) DO UPDATE SET "
            "status = 'failed', attempts = attempts + excluded.attempts, last_error = excluded.last_error, "
            "last_try = excluded.last_try",
            (url, list_name, kind, attempts, error, _utc_iso(now or datetime.now(timezone.utc))),
        )

    def page_ok(self, url: str) -> bool:
        """Forget a page's failure once it was fetched; True when it had failed before."""
        return self.conn.execute("DELETE FROM pages WHERE url = ?", (url,)).rowcount > 0

    def failed_pages(self, list_name: str | None = None) -> list[dict[str, Any]]:
        """Rows of pages that failed and were not fetched since (retried first by the next scan)."""
        if list_name is None:
            return self._rows("SELECT * FROM pages WHERE status = 'failed' ORDER BY url", [])
        return self._rows("SELECT * FROM pages WHERE status = 'failed' AND list = ? ORDER BY url", [list_name])

    # ------------------------------------------------------------------ cursor
    def get_cursor(self, list_name: str) -> date | None:
        """The last day of ``list_name`` scanned completely, or None."""
        row = self.conn.execute("SELECT last_complete_day FROM cursor WHERE list = ?", (list_name,)).fetchone()
        return date.fromisoformat(row[0]) if row and row[0] else None

    def set_cursor(self, list_name: str, day: date) -> None:
        """Move the cursor of ``list_name`` forward to ``day`` (never backwards)."""
        current = self.get_cursor(list_name)
        if current is not None and current >= day:
            return
        self._upsert("cursor", {"list": list_name, "last_complete_day": day.isoformat()}, ["list"])

    # ------------------------------------------------------------------ inspection
    def source_cursor(self, key: str) -> dict[str, Any] | None:
        """A source's own cursor (e.g. the last commit read of one lore epoch), or None."""
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", ("cursor:" + key,)).fetchone()
        return json.loads(row[0]) if row is not None else None

    def set_source_cursor(self, key: str, value: Mapping[str, Any]) -> None:
        """Remember a source's own cursor under ``key`` (kept in ``meta`` as JSON)."""
        self._upsert("meta", {"key": "cursor:" + key, "value": _j(dict(value))}, ["key"])

    def _rows(self, sql: str, args: Sequence[Any]) -> list[dict[str, Any]]:
        cur = self.conn.execute(sql, list(args))
        names = [d[0] for d in cur.description]
        return [dict(zip(names, r)) for r in cur.fetchall()]

    def count(self, table: str) -> int:
        """Number of rows of one of the store's tables."""
        if table not in set(self.db.table_names()):
            raise StoreError(f"no table {table!r}", subject=str(self.path))
        return self.db[table].count

    def dump_rows(self, *, include_volatile: bool = False) -> dict[str, list[tuple[Any, ...]]]:
        """Every table's rows (sorted tuples of column=value pairs), for equality tests.

        Columns in :data:`VOLATILE_COLUMNS` (wall-clock stamps) are left out
        unless ``include_volatile``.
        """
        out: dict[str, list[tuple[Any, ...]]] = {}
        for table in sorted(self.db.table_names()):
            if table.startswith("sqlite_"):
                continue
            skip = set() if include_volatile else VOLATILE_COLUMNS.get(table, frozenset())
            cur = self.conn.execute(f"SELECT * FROM [{table}]")
            names = [d[0] for d in cur.description]
            rows = [tuple((n, v) for n, v in zip(names, r) if n not in skip) for r in cur.fetchall()]
            out[table] = sorted(rows, key=repr)
        return out

    # ================================================================== H5: drafts
    # Section reserved for the respond helper (H5): the ``drafts`` table and its
    # methods. Create the table in ``_create_extra_tables`` (called by _migrate)
    # and add methods below this line.
    def _create_extra_tables(self) -> None:
        """Tables owned by other stages (drafts); called on every open.

        * ``drafts``: one row per reply draft written (its Message-ID, the
          Message-ID it replies to, outbox path, Maildir key, subject, when).
        * ``draft_findings``: fingerprint -> the draft that covers it (a
          fingerprint is drafted at most once, across runs and versions).
        * ``draft_skips``: fingerprint -> why no draft was made (raised /
          answered in the thread, or dismissed).
        """
        self.conn.execute(
            "CREATE TABLE IF NOT EXISTS drafts (message_id TEXT PRIMARY KEY, in_reply_to TEXT, "
            "list TEXT, subject TEXT, path TEXT, maildir_key TEXT, fingerprints_json TEXT, "
            "recipients_complete INTEGER, created TEXT)"
        )
        self.conn.execute("CREATE INDEX IF NOT EXISTS idx_drafts_in_reply_to ON drafts(in_reply_to)")
        self.conn.execute(
            "CREATE TABLE IF NOT EXISTS draft_findings (fingerprint TEXT PRIMARY KEY, draft_message_id TEXT)"
        )
        self.conn.execute(
            "CREATE TABLE IF NOT EXISTS draft_skips (fingerprint TEXT PRIMARY KEY, message_id TEXT, "
            "rule_id TEXT, state TEXT, reason TEXT)"
        )

    def undrafted_findings(self, list_name: str | None = None, since: date | None = None) -> dict[str, list[Finding]]:
        """Patch Message-ID -> its findings that have neither a draft nor a recorded skip.

        Patches come in arrival order; only messages of ``list_name`` and
        arriving on or after ``since`` when given; never messages read from
        the made-up sample pages.
        """
        cond, args = _range_where(list_name, since, None, "m.")
        cond += (" AND IFNULL(m.sample, 0) = 0"  # made-up sample messages are a demo: never drafted
                 " AND f.fingerprint NOT IN (SELECT fingerprint FROM draft_findings)"
                 " AND f.fingerprint NOT IN (SELECT fingerprint FROM draft_skips)")
        rows = self._rows(
            "SELECT f.* FROM findings f JOIN messages m ON m.message_id = f.message_id "
            f"WHERE {cond} ORDER BY m.day, m.seq, m.message_id, f.path, f.line, f.rule_id, "
            "f.fingerprint", args)
        out: dict[str, list[Finding]] = {}
        for row in rows:
            out.setdefault(row["message_id"], []).append(finding_from_row(row))
        return out

    def record_draft(self, *, message_id: str, in_reply_to: str, fingerprints: Sequence[str],
                     list_name: str | None, subject: str, path: str | None, maildir_key: str | None,
                     recipients_complete: bool, created: datetime) -> None:
        """Remember a written draft and the fingerprints it covers (one transaction, idempotent)."""
        with self.transaction():
            self._upsert("drafts", {
                "message_id": message_id, "in_reply_to": in_reply_to, "list": list_name, "subject": subject,
                "path": path, "maildir_key": maildir_key, "fingerprints_json": _j(list(fingerprints)),
                "recipients_complete": int(recipients_complete), "created": _utc_iso(created),
            }, ["message_id"])
            for fp in fingerprints:
                self._upsert("draft_findings", {"fingerprint": fp, "draft_message_id": message_id},
                             ["fingerprint"], keep=("draft_message_id",))

    def record_skip(self, finding: Finding, state: str, reason: str) -> None:
        """Remember why ``finding`` got no draft (state raised/answered/dismissed and a sentence)."""
        self._upsert("draft_skips", {"fingerprint": finding.fingerprint, "message_id": finding.message_id,
                                     "rule_id": finding.rule_id, "state": state, "reason": reason},
                     ["fingerprint"])

    def handled_finding_count(self, list_name: str | None = None, since: date | None = None) -> int:
        """Findings of a list / day range that earlier runs drafted or skipped.

        The same selection as :meth:`undrafted_findings`, inverted: made-up
        sample messages, which are never drafted, are left out.
        """
        cond, args = _range_where(list_name, since, None, "m.")
        cur = self.conn.execute(
            "SELECT COUNT(*) FROM findings f JOIN messages m ON m.message_id = f.message_id "
            f"WHERE {cond} AND IFNULL(m.sample, 0) = 0"
            " AND (f.fingerprint IN (SELECT fingerprint FROM draft_findings)"
            " OR f.fingerprint IN (SELECT fingerprint FROM draft_skips))", args)
        return int(cur.fetchone()[0])

    def drafted_fingerprints(self) -> set[str]:
        """Every fingerprint a draft was written for."""
        return {r[0] for r in self.conn.execute("SELECT fingerprint FROM draft_findings")}

    def drafts_for(self, in_reply_to: str) -> list[dict[str, Any]]:
        """``drafts`` rows replying to one Message-ID."""
        return self._rows("SELECT * FROM drafts WHERE in_reply_to = ? ORDER BY message_id", [in_reply_to])

    def draft_for_fingerprint(self, fingerprint: str) -> dict[str, Any] | None:
        """The ``drafts`` row covering one finding, or None."""
        rows = self._rows("SELECT d.* FROM drafts d JOIN draft_findings x ON x.draft_message_id = d.message_id "
                          "WHERE x.fingerprint = ?", [fingerprint])
        return rows[0] if rows else None

    def skip_for(self, fingerprint: str) -> dict[str, Any] | None:
        """The ``draft_skips`` row of one finding, or None."""
        rows = self._rows("SELECT * FROM draft_skips WHERE fingerprint = ?", [fingerprint])
        return rows[0] if rows else None

    def revisions_of(self, message_id: str) -> list[dict[str, Any]]:
        """Patch submissions that are revisions of ``message_id`` (itself included), oldest first:
        ``message_id``, ``version``, ``idx``, ``total``, ``series_key``, ``day``, ``seq``, ``subject``
        ([PATCH v3], [ver #3], RESEND, a series re-posted, a renamed subject with the same code; the
        steps are in :mod:`reviewbot.revisions`). Kept per store until a patch is stored."""
        from reviewbot.revisions import revisions_of

        cache = self.__dict__.setdefault("_revision_cache", {})
        if message_id not in cache:
            group = revisions_of(self, message_id, cache)
            for r in group or [{"message_id": message_id}]:
                cache[r["message_id"]] = group
        return [dict(r) for r in cache[message_id]]

    def series_rows(self, series_key: str) -> list[dict[str, Any]]:
        """The ``patches`` rows of one series (scan's grouping key), cover letter (idx 0) included."""
        return self._rows("SELECT * FROM patches WHERE series_key = ? ORDER BY idx, message_id", [series_key])

    def handled_findings_of(self, message_ids: Sequence[str]) -> list[tuple[Finding, str]]:
        """Findings of these messages that a draft covers or a person/the thread settled, with how
        (``drafted`` or the skip state); findings skipped only as superseded are left out."""
        if not message_ids:
            return []
        marks = ", ".join("?" for _ in message_ids)
        rows = self._rows(
            "SELECT f.*, CASE WHEN x.fingerprint IS NOT NULL THEN 'drafted' ELSE s.state END AS how "
            "FROM findings f LEFT JOIN draft_findings x ON x.fingerprint = f.fingerprint "
            "LEFT JOIN draft_skips s ON s.fingerprint = f.fingerprint "
            f"WHERE f.message_id IN ({marks}) AND (x.fingerprint IS NOT NULL OR "
            "(s.state IS NOT NULL AND s.state NOT IN ('superseded', 'applied')) OR f.state = 'dismissed')",
            list(message_ids))
        return [(finding_from_row(r), r["how"] or r["state"]) for r in rows]

    def message_id_for(self, key: str) -> str | None:
        """The stored Message-ID a user named: a Message-ID (with or without ``<>``) or an archive URL."""
        key = key.strip()
        if key.startswith(("http://", "https://")):
            for cand in (key, key.rstrip("/"), key.rstrip("/") + "/"):
                row = self.conn.execute("SELECT message_id FROM message_urls WHERE url = ?", (cand,)).fetchone() \
                    or self.conn.execute("SELECT message_id FROM messages WHERE archive_url = ?", (cand,)).fetchone()
                if row:
                    return str(row[0])
            return None
        mid = key.strip("<>")
        return mid if self.has_message(mid) else None

    def finding_rows(self, *, state: str | None = None, rule: str | None = None,
                     since: date | None = None) -> list[dict[str, Any]]:
        """Findings with their message and where they stand, in arrival order: ``fingerprint``,
        ``message_id``, ``day``, ``date_utc``, ``rule_id``, ``subject``, ``message`` (the finding's text),
        ``where`` (path:line), ``status``
        (``drafted``, the skip state, or the finding's state), ``open`` (the point still stands: status
        ``open`` or ``drafted``; ``state="open"`` selects these) and ``draft`` (the draft file, if any)."""
        cond, args = _range_where(None, since, None, "m.")
        rows = self._rows(
            "SELECT f.fingerprint, f.message_id, m.day, m.date_utc, f.rule_id, f.severity, m.subject, f.path, f.line, "
            "f.message, f.state, s.state AS skip_state, s.reason AS skip_reason, d.path AS draft "
            "FROM findings f JOIN messages m ON m.message_id = f.message_id "
            "LEFT JOIN draft_findings x ON x.fingerprint = f.fingerprint "
            "LEFT JOIN drafts d ON d.message_id = x.draft_message_id "
            "LEFT JOIN draft_skips s ON s.fingerprint = f.fingerprint "
            f"WHERE {cond} AND IFNULL(m.sample, 0) = 0 ORDER BY m.day, m.seq, f.message_id, f.path, f.line, f.rule_id",
            args)
        out = []
        for r in rows:
            r["status"] = "dismissed" if r["state"] == "dismissed" else \
                "drafted" if r["draft"] else (r["skip_state"] or r["state"])  # a dismissal settles a drafted point
            r["where"] = f"{r['path']}:{r['line']}" if r["path"] else "commit message"
            # open: the point still stands, drafted or not (a draft is not known to be sent until it is
            # dismissed or the thread shows it raised); every other status settles the finding
            r["open"] = r["status"] in OPEN_STATUSES
            if (state is None or r["status"] == state or (state == "open" and r["open"])) \
                    and (rule is None or r["rule_id"].upper() == rule.upper()):
                out.append(r)
        return out

    def dismiss(self, fingerprint: str, reason: str) -> bool:
        """Dismiss one finding for good (kept across runs and revisions); False when unknown."""
        rows = self._rows("SELECT * FROM findings WHERE fingerprint = ?", [fingerprint])
        if not rows:
            return False
        with self.transaction():
            self.set_finding_state(fingerprint, FindingState.DISMISSED)
            self.record_skip(finding_from_row(rows[0]), FindingState.DISMISSED.value, f"dismissed: {reason}")
        return True

    def forget_drafts_of(self, message_id: str) -> int:
        """Forget the drafts replying to ``message_id`` or covering its findings (a draft answering the diff
        the author re-posted in a reply); their findings become undrafted again; the count."""
        rows = self.drafts_for(message_id)
        seen = {d["message_id"] for d in rows}
        rows += [d for d in self._rows(
            "SELECT DISTINCT d.* FROM drafts d JOIN draft_findings x ON x.draft_message_id = d.message_id "
            "JOIN findings f ON f.fingerprint = x.fingerprint WHERE f.message_id = ?", [message_id])
            if d["message_id"] not in seen]
        with self.transaction():
            for d in rows:
                self.conn.execute("DELETE FROM draft_findings WHERE draft_message_id = ?", (d["message_id"],))
                self.conn.execute("DELETE FROM drafts WHERE message_id = ?", (d["message_id"],))
        return len(rows)

    def known_addresses(self) -> list[Address]:
        """Every full (not obfuscated) From/To/Cc address stored, for completing obfuscated ones."""
        out: dict[str, Address] = {}
        for name, email, partial, to_json, cc_json in self.conn.execute(
                "SELECT from_name, from_email, from_partial, to_json, cc_json FROM messages"):
            cands = [Address(name or "", email or "", bool(partial))]
            for blob in (to_json, cc_json):
                cands.extend(_addr_from(d) for d in json.loads(blob or "[]"))
            for a in cands:
                if a.email and not a.partial and "@..." not in a.email:
                    out.setdefault(a.email.lower(), a)
        return list(out.values())


#: Statuses of :meth:`Store.finding_rows` whose point still stands: ``findings --state open`` lists both.
OPEN_STATUSES = ("open", "drafted")


# ---------------------------------------------------------------------- rows -> values
def message_from_row(row: Mapping[str, Any], parse_subject: Any = None) -> Message:
    """Rebuild a Message from a ``messages`` row (see :meth:`Store.load_message`)."""
    raw_subject = row.get("subject") or ""
    if parse_subject is not None:
        subject = parse_subject(raw_subject)
    else:
        subject = Subject(raw=raw_subject, title=raw_subject, is_reply=bool(row.get("is_reply")))
    frm = None
    if row.get("from_email") is not None or row.get("from_name") is not None:
        frm = Address(name=row.get("from_name") or "", email=row.get("from_email") or "",
                      partial=bool(row.get("from_partial")))
    date_utc = row.get("date_utc")
    return Message(
        message_id=row["message_id"],
        subject=subject,
        from_addr=frm,
        date=datetime.fromisoformat(date_utc) if date_utc else None,
        date_raw=row.get("date_raw") or "",
        to=tuple(_addr_from(d) for d in json.loads(row.get("to_json") or "[]")),
        cc=tuple(_addr_from(d) for d in json.loads(row.get("cc_json") or "[]")),
        in_reply_to=row.get("in_reply_to"),
        references=tuple(json.loads(row.get("references_json") or "[]")),
        body=row.get("body") or "",
        source=row.get("source") or "",
        list_name=row.get("list"),
        archive_url=row.get("archive_url"),
        obfuscated=bool(row.get("obfuscated")),
        flowed=bool(row.get("flowed")),
        attachments=tuple(AttachmentRef(**d) for d in json.loads(row.get("attachments_json") or "[]")),
        thread_prev_url=row.get("thread_prev_url"),
        thread_next_url=row.get("thread_next_url"),
        notes=tuple(json.loads(row.get("notes_json") or "[]")),
    )


def finding_from_row(row: Mapping[str, Any]) -> Finding:
    """Rebuild a Finding from a ``findings`` row."""
    return Finding(
        rule_id=row["rule_id"],
        rule_name=row["rule_name"],
        severity=Severity(row["severity"]),
        message=row["message"],
        message_id=row["message_id"],
        path=row.get("path"),
        line=row.get("line"),
        lines=tuple(json.loads(row.get("lines_json") or "[]")),
        input_line=row.get("input_line"),
        hunk=hunk_from_json(row.get("hunk_json")),
        symbol=row.get("symbol") or "",
        details=json.loads(row.get("details_json") or "{}"),
        state=FindingState(row["state"]),
        fingerprint=row["fingerprint"],
    )
