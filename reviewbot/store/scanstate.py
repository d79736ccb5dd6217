"""Scan state in the store: the fetch log of failed pages, each list's cursor, sources' own cursors."""

from __future__ import annotations

import json
from datetime import date, datetime, timezone
from typing import Any, Mapping

from reviewbot.store.base import StoreBase
from reviewbot.store.rows import FailedPage, _j, _utc_iso, failed_page_from_row


class ScanStateStore(StoreBase):
    """Queries of the ``pages`` and ``cursor`` tables and the ``cursor:`` rows of ``meta``."""

    def page_failed(
        self,
        url: str,
        *,
        kind: str,
        error: str,
        attempts: int = 1,
        list_name: str | None = None,
        now: datetime | None = None,
    ) -> None:
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

    def failed_pages(self, list_name: str | None = None) -> list[FailedPage]:
        """Pages that failed and were not fetched since (retried first by the next scan), by URL."""
        if list_name is None:
            rows = self._rows("SELECT * FROM pages WHERE status = 'failed' ORDER BY url", [])
        else:
            rows = self._rows("SELECT * FROM pages WHERE status = 'failed' AND list = ? ORDER BY url", [list_name])
        return [failed_page_from_row(r) for r in rows]

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

    def source_cursor(self, key: str) -> dict[str, Any] | None:
        """A source's own cursor (e.g. the last commit read of one lore epoch), or None."""
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", ("cursor:" + key,)).fetchone()
        return json.loads(row[0]) if row is not None else None

    def set_source_cursor(self, key: str, value: Mapping[str, Any]) -> None:
        """Remember a source's own cursor under ``key`` (kept in ``meta`` as JSON)."""
        self._upsert("meta", {"key": "cursor:" + key, "value": _j(dict(value))}, ["key"])
