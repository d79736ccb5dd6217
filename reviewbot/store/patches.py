"""Patches in the store: the ``git am`` split of a stored message, series keys and revisions."""

from __future__ import annotations

from reviewbot.models import Patch
from reviewbot.store.messages import MessageStore
from reviewbot.store.rows import (
    StoredPatch,
    Submission,
    _j,
    stored_patch_from_row,
    submission_from_row,
)


class PatchStore(MessageStore):
    """Queries of the ``patches`` table (joined with ``messages`` for revisions and loading a patch)."""

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
            "files_json": _j(
                [
                    {"path": f.path, "status": f.status, "added": f.added_count, "removed": f.removed_count}
                    for f in patch.files
                ]
            ),
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
        self.conn.execute(
            "UPDATE patches SET series_key = ? WHERE message_id = ? AND series_key IS NOT ?",
            (series_key, message_id, series_key),
        )

    def patch_row(self, message_id: str) -> StoredPatch | None:
        """The stored ``git am`` split of a Message-ID (title, place in its series, files...), or None."""
        rows = self._rows("SELECT * FROM patches WHERE message_id = ?", [message_id])
        return stored_patch_from_row(rows[0]) if rows else None

    def series_rows(self, series_key: str) -> list[StoredPatch]:
        """The stored patches of one series (scan's grouping key), cover letter (index 0) included, in
        series order."""
        rows = self._rows("SELECT * FROM patches WHERE series_key = ? ORDER BY idx, message_id", [series_key])
        return [stored_patch_from_row(r) for r in rows]

    def revisions_of(self, message_id: str) -> list[Submission]:
        """Patch submissions that are revisions of ``message_id`` (itself included), oldest first
        ([PATCH v3], [ver #3], RESEND, a series re-posted, a renamed subject with the same code; the
        steps are in :mod:`reviewbot.revisions`). Kept per store until a patch is stored."""
        from reviewbot.revisions import revisions_of

        cache = self.__dict__.setdefault("_revision_cache", {})
        if message_id not in cache:
            group = revisions_of(self, message_id, cache)
            for mid in [r.message_id for r in group] or [message_id]:
                cache[mid] = group
        return list(cache[message_id])

    def submission_row(self, message_id: str) -> Submission | None:
        """A stored patch with its message's day, order, subject and author (for :mod:`reviewbot.revisions`)."""
        rows = self._rows(
            "SELECT p.message_id, p.version, p.idx, p.total, p.series_key, p.title, p.files_json, m.day, m.seq, "
            "m.subject, m.from_email, m.from_name FROM patches p JOIN messages m ON m.message_id = p.message_id "
            "WHERE p.message_id = ?",
            [message_id],
        )
        return submission_from_row(rows[0]) if rows else None

    def submissions_by(self, email: str, name: str, domain: str) -> list[tuple[Submission, str]]:
        """Stored patches (not replies) sent from ``email``, by ``name`` (when given) or from ``domain``
        (when given), each with its message's body: the candidates :mod:`reviewbot.revisions` compares."""
        rows = self._rows(
            "SELECT p.message_id, p.version, p.idx, p.total, p.series_key, p.title, p.files_json, m.day, m.seq, "
            "m.subject, m.from_email, m.from_name, m.body FROM patches p JOIN messages m "
            "ON m.message_id = p.message_id WHERE IFNULL(m.is_reply, 0) = 0 "
            "AND (lower(m.from_email) = ? OR (? <> '' AND lower(m.from_name) = ?) OR (? <> '' AND lower(m.from_email) LIKE ?))",
            [email, name, name, domain, "%@" + domain.replace("%", "")],
        )
        return [(submission_from_row(r), r["body"] or "") for r in rows]
