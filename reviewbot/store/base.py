"""The store's connection: opening a database (refusing foreign or newer ones), transactions, and
the shared helpers (``_upsert``, ``_rows``) the job modules' queries use."""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path
from typing import Any, Iterator, Mapping, Self, Sequence

import sqlite_utils

from reviewbot.errors import StoreError
from reviewbot.store.schema import VOLATILE_COLUMNS, _foreign_tables, migrate

BUSY_TIMEOUT = 30.0  # seconds a statement waits for another process's lock before "database is locked"


class StoreBase:
    """An open reviewbot database: connection, schema check and migrations, transactions.

    :class:`reviewbot.store.Store` adds the queries of each job (messages, patches, findings,
    drafts, scan state) from the modules of this package.
    """

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(str(self.path), isolation_level=None, timeout=BUSY_TIMEOUT)
            foreign = _foreign_tables(conn)
            if foreign:  # refused before anything is written (no table added, no WAL mode set)
                conn.close()
                raise StoreError(
                    "not a reviewbot database (it holds other tables: "
                    f"{', '.join(foreign[:5])}{', ...' if len(foreign) > 5 else ''}); "
                    "give another --db",
                    subject=str(self.path),
                )
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
                raise StoreError(
                    f"the database is locked by another program (waited {BUSY_TIMEOUT:g}s); try again when it is done",
                    subject=str(self.path),
                ) from exc
            if isinstance(exc, sqlite3.OperationalError) and "full" in str(exc):
                raise StoreError("the disk is full: the database cannot be written", subject=str(self.path)) from exc
            raise StoreError(f"not a reviewbot database: {exc}", subject=str(self.path)) from exc

    def _migrate(self) -> None:
        migrate(self)

    def close(self) -> None:
        """Close the connection (a checkpoint folds the WAL back into the file)."""
        with contextlib.suppress(sqlite3.Error):
            self.conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Self]:
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

    def _upsert(
        self,
        table: str,
        row: Mapping[str, Any],
        keys: Sequence[str],
        *,
        keep: Sequence[str] = (),
        guard: str | None = None,
    ) -> None:
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
