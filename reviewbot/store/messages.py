"""Messages and threads in the store: one row per Message-ID, the archive URLs seen, thread ids."""

from __future__ import annotations

import dataclasses
import json
from datetime import date
from typing import Any, Mapping, Sequence

from reviewbot.errors import StoreError
from reviewbot.models import Address, Message
from reviewbot.store.base import StoreBase
from reviewbot.store.rows import (
    StoredMessage,
    _addr,
    _addr_from,
    _j,
    _range_where,
    _url_day_seq,
    _utc_iso,
    message_from_row,
    stored_message_from_row,
)


class MessageStore(StoreBase):
    """Queries of the ``messages`` and ``message_urls`` tables."""

    def put_message(
        self,
        message: Message,
        *,
        thread_id: str | None = None,
        day: date | None = None,
        seq: int | None = None,
        shipped: bool = False,
    ) -> str:
        """Upsert one message (and its archive URL); returns the key used (its Message-ID).

        A message without a Message-ID is keyed by its archive URL or source.
        When the same Message-ID comes from two archive URLs the first one
        stored keeps the row; both URLs are remembered.
        ``day``/``seq``: the arrival day and order of a message without an archive
        URL (read from lore's git epochs), instead of the ones the URL gives.
        ``shipped``: the page was read from the copy shipped in ``archive_cache/`` (column ``shipped`` = 1).
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
            "shipped": int(shipped),
        }
        if thread_id is not None:
            row["thread_id"] = thread_id
        guard = (
            "(archive_url IS excluded.archive_url OR archive_url IS NULL)"
            # a copy with obfuscated addresses never replaces one with the real ones (lore's)
            " AND NOT (excluded.obfuscated = 1 AND IFNULL(obfuscated, 0) = 0 AND archive_url IS NULL"
            " AND source LIKE 'http%')"
        )
        self._upsert("messages", row, ["message_id"], keep=("thread_id",) if thread_id is None else (), guard=guard)
        if message.archive_url:
            self._upsert(
                "message_urls", {"url": message.archive_url, "message_id": key, "list": message.list_name}, ["url"]
            )
        return key

    def known_urls(self, list_name: str | None = None) -> dict[str, str]:
        """Archive URL -> Message-ID of every stored message (of one list when given)."""
        sql = "SELECT u.url, u.message_id FROM message_urls u"
        args: list[Any] = []
        if list_name is not None:
            sql += " WHERE u.list = ?"
            args.append(list_name)
        return dict(self.conn.execute(sql, args).fetchall())

    def has_message(self, message_id: str) -> bool:
        """True when a message with this Message-ID (or key) is stored."""
        return self.conn.execute("SELECT 1 FROM messages WHERE message_id = ?", (message_id,)).fetchone() is not None

    def has_url(self, url: str) -> bool:
        """True when a message from this archive URL is stored."""
        return self.conn.execute("SELECT 1 FROM message_urls WHERE url = ?", (url,)).fetchone() is not None

    def message_row(self, message_id: str) -> StoredMessage | None:
        """The message stored under a Message-ID, with its thread and arrival day, or None."""
        row = self._message_row(message_id)
        return None if row is None else stored_message_from_row(row)

    def _message_row(self, message_id: str) -> dict[str, Any] | None:
        rows = self._rows("SELECT * FROM messages WHERE message_id = ?", [message_id])
        return rows[0] if rows else None

    def messages(
        self,
        list_name: str | None = None,
        since: date | None = None,
        until: date | None = None,
        *,
        patches_only: bool = False,
    ) -> list[StoredMessage]:
        """The stored messages of a list and arrival day range (inclusive), in arrival order."""
        cond, args = _range_where(list_name, since, until)
        if patches_only:
            cond += " AND is_patch = 1"
        rows = self._rows(f"SELECT * FROM messages WHERE {cond} ORDER BY day, seq, message_id", args)
        return [stored_message_from_row(r) for r in rows]

    def patch_ids(
        self, list_name: str, since: date | None = None, until: date | None = None
    ) -> list[tuple[str, str | None]]:
        """(Message-ID, thread_id) of the patches of a list / day range, in arrival order."""
        cond, args = _range_where(list_name, since, until)
        cur = self.conn.execute(
            f"SELECT message_id, thread_id FROM messages WHERE {cond} AND is_patch = 1 ORDER BY day, seq, message_id",
            args,
        )
        return [(r[0], r[1]) for r in cur.fetchall()]

    def message_rows(self, message_ids: Sequence[str]) -> list[StoredMessage]:
        """The stored messages of these Message-IDs, in arrival order (unknown ones left out)."""
        out: list[dict[str, Any]] = []
        ids = list(message_ids)
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ", ".join("?" for _ in chunk)
            out.extend(self._rows(f"SELECT * FROM messages WHERE message_id IN ({marks})", chunk))
        out.sort(key=lambda r: (r["day"] or "", r["seq"] or 0, r["message_id"]))
        return [stored_message_from_row(r) for r in out]

    def postings_naming(self, from_email: str, message_ids: Sequence[str]) -> list[StoredMessage]:
        """Patch mails (cover letters included, not replies) sent from ``from_email`` whose text names one
        of ``message_ids`` (a lore link to an earlier posting, "v1: <id>"), in arrival order."""
        ids = [m for m in message_ids if m]
        if not from_email or not ids:
            return []
        named = " OR ".join("instr(body, ?) > 0" for _ in ids)
        rows = self._rows(
            f"SELECT * FROM messages WHERE from_email = ? COLLATE NOCASE AND is_patch = 1 AND ({named}) "
            "ORDER BY day, seq, message_id",
            [from_email, *ids],
        )
        return [stored_message_from_row(r) for r in rows if r["message_id"] not in ids]

    def thread_members(self, thread_id: str) -> list[StoredMessage]:
        """Every stored message of a thread, in archive (arrival) order."""
        rows = self._rows("SELECT * FROM messages WHERE thread_id = ? ORDER BY day, seq, message_id", [thread_id])
        return [stored_message_from_row(r) for r in rows]

    def thread_member_ids(self, thread_id: str) -> list[tuple[str, bool]]:
        """(Message-ID, is a patch) of every stored message of a thread, in archive (arrival) order: the
        thread's shape, without loading its messages."""
        cur = self.conn.execute(
            "SELECT message_id, is_patch FROM messages WHERE thread_id = ? ORDER BY day, seq, message_id", (thread_id,)
        )
        return [(str(mid), bool(is_patch)) for mid, is_patch in cur.fetchall()]

    def load_message(self, message_id: str, parse_subject: Any = None) -> Message | None:
        """Rebuild the :class:`Message` stored under ``message_id`` (None when absent).

        ``parse_subject`` turns the raw Subject into a Subject (pass
        ``reviewbot.parse.subject.parse_subject``); without it only ``raw``,
        ``title`` and the stored is_reply flag are set.
        """
        row = self._message_row(message_id)
        return None if row is None else message_from_row(row, parse_subject)

    def replies_to(self, message_id: str) -> list[Message]:
        """The stored messages whose In-Reply-To is ``message_id``, in arrival order."""
        rows = self._rows(
            "SELECT message_id FROM messages WHERE in_reply_to = ? ORDER BY day, seq, message_id", [message_id]
        )
        out = [self.load_message(r["message_id"]) for r in rows]
        return [m for m in out if m is not None]

    def thread_links(self, list_name: str) -> list[tuple[str, str, str | None, str | None]]:
        """(archive_url, message_id, thread_prev_url, thread_id) of every stored message of a list."""
        return [
            tuple(r)
            for r in self.conn.execute(
                "SELECT archive_url, message_id, thread_prev_url, thread_id FROM messages "
                "WHERE list = ? AND archive_url IS NOT NULL",
                (list_name,),
            )
        ]

    def set_thread_ids(self, mapping: Mapping[str, str]) -> int:
        """Set ``thread_id`` for Message-ID -> thread id; returns how many rows changed."""
        changed = 0
        with self.transaction():
            for mid, tid in mapping.items():
                cur = self.conn.execute(
                    "UPDATE messages SET thread_id = ? WHERE message_id = ? AND thread_id IS NOT ?", (tid, mid, tid)
                )
                changed += cur.rowcount
        return changed

    def message_id_for(self, key: str) -> str | None:
        """The stored Message-ID a user named: a Message-ID (with or without ``<>``) or an archive URL."""
        key = key.strip()
        if key.startswith(("http://", "https://")):
            for cand in (key, key.rstrip("/"), key.rstrip("/") + "/"):
                row = (
                    self.conn.execute("SELECT message_id FROM message_urls WHERE url = ?", (cand,)).fetchone()
                    or self.conn.execute("SELECT message_id FROM messages WHERE archive_url = ?", (cand,)).fetchone()
                )
                if row:
                    return str(row[0])
            return None
        mid = key.strip("<>")
        return mid if self.has_message(mid) else None

    def known_addresses(self) -> list[Address]:
        """Every full (not obfuscated) From/To/Cc address stored, for completing obfuscated ones."""
        out: dict[str, Address] = {}
        for name, email, partial, to_json, cc_json in self.conn.execute(
            "SELECT from_name, from_email, from_partial, to_json, cc_json FROM messages"
        ):
            cands = [Address(name or "", email or "", bool(partial))]
            for blob in (to_json, cc_json):
                cands.extend(_addr_from(d) for d in json.loads(blob or "[]"))
            for a in cands:
                if a.email and not a.partial and "@..." not in a.email:
                    out.setdefault(a.email.lower(), a)
        return list(out.values())
