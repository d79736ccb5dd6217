"""Drafts in the store: which findings a reply draft covers, which were skipped and why, dismissals,
and the findings listed with where they stand."""

from __future__ import annotations

from datetime import date, datetime
from typing import Sequence

from reviewbot.models import Finding, FindingState
from reviewbot.store.findings import FindingStore
from reviewbot.store.rows import (
    DraftRecord,
    DraftSkip,
    FindingStatus,
    _j,
    _range_where,
    _utc_iso,
    draft_from_row,
    finding_from_row,
    finding_status,
    skip_from_row,
)

#: Statuses of :meth:`Store.finding_rows` whose point still stands: ``findings --state open`` lists both.
OPEN_STATUSES = ("open", "drafted")


class DraftStore(FindingStore):
    """Queries of the ``drafts``, ``draft_findings`` and ``draft_skips`` tables."""

    def undrafted_findings(
        self, list_name: str | None = None, since: date | None = None, *, retry: Sequence[str] = ()
    ) -> dict[str, list[Finding]]:
        """Patch Message-ID -> its findings that have neither a draft nor a recorded skip (a skip whose state
        is in ``retry`` counts as none: ``draft --unsure`` drafts the points skipped as unsure before).

        Patches come in arrival order; only messages of ``list_name`` and
        arriving on or after ``since`` when given.
        """
        cond, args = _range_where(list_name, since, None, "m.")
        marks = ", ".join("?" for _ in retry)
        cond += " AND f.fingerprint NOT IN (SELECT fingerprint FROM draft_findings)" + (
            f" AND f.fingerprint NOT IN (SELECT fingerprint FROM draft_skips WHERE state NOT IN ({marks}))"
            if retry
            else " AND f.fingerprint NOT IN (SELECT fingerprint FROM draft_skips)"
        )
        args = [*args, *retry]
        rows = self._rows(
            "SELECT f.* FROM findings f JOIN messages m ON m.message_id = f.message_id "
            f"WHERE {cond} ORDER BY m.day, m.seq, m.message_id, f.path, f.line, f.rule_id, "
            "f.fingerprint",
            args,
        )
        out: dict[str, list[Finding]] = {}
        for row in rows:
            out.setdefault(row["message_id"], []).append(finding_from_row(row))
        return out

    def record_draft(
        self,
        *,
        message_id: str,
        in_reply_to: str,
        fingerprints: Sequence[str],
        list_name: str | None,
        subject: str,
        path: str | None,
        maildir_key: str | None,
        recipients_complete: bool,
        created: datetime,
    ) -> None:
        """Remember a written draft and the fingerprints it covers (one transaction, idempotent)."""
        with self.transaction():
            self._upsert(
                "drafts",
                {
                    "message_id": message_id,
                    "in_reply_to": in_reply_to,
                    "list": list_name,
                    "subject": subject,
                    "path": path,
                    "maildir_key": maildir_key,
                    "fingerprints_json": _j(list(fingerprints)),
                    "recipients_complete": int(recipients_complete),
                    "created": _utc_iso(created),
                },
                ["message_id"],
            )
            for fp in fingerprints:  # a point skipped as unsure before and drafted now (``draft --unsure``)
                self.conn.execute("DELETE FROM draft_skips WHERE fingerprint = ?", (fp,))
                self._upsert(
                    "draft_findings",
                    {"fingerprint": fp, "draft_message_id": message_id},
                    ["fingerprint"],
                    keep=("draft_message_id",),
                )

    def record_skip(self, finding: Finding, state: str, reason: str) -> None:
        """Remember why ``finding`` got no draft (state raised/answered/dismissed and a sentence)."""
        self._upsert(
            "draft_skips",
            {
                "fingerprint": finding.fingerprint,
                "message_id": finding.message_id,
                "rule_id": finding.rule_id,
                "state": state,
                "reason": reason,
            },
            ["fingerprint"],
        )

    def handled_finding_count(
        self, list_name: str | None = None, since: date | None = None, *, retry: Sequence[str] = ()
    ) -> int:
        """Findings of a list / day range that earlier runs drafted or skipped.

        The same selection as :meth:`undrafted_findings`, inverted, with the same ``retry``: a finding skipped in
        a state that is retried is this run's, not an earlier one's (``draft --unsure`` after ``draft``).
        """
        cond, args = _range_where(list_name, since, None, "m.")
        marks = ", ".join("?" for _ in retry)
        skipped = (
            f"SELECT fingerprint FROM draft_skips WHERE state NOT IN ({marks})"
            if retry
            else ("SELECT fingerprint FROM draft_skips")
        )
        cur = self.conn.execute(
            "SELECT COUNT(*) FROM findings f JOIN messages m ON m.message_id = f.message_id "
            f"WHERE {cond}"
            " AND (f.fingerprint IN (SELECT fingerprint FROM draft_findings)"
            f" OR f.fingerprint IN ({skipped}))",
            [*args, *retry],
        )
        return int(cur.fetchone()[0])

    def drafted_fingerprints(self) -> set[str]:
        """Every fingerprint a draft was written for."""
        return {r[0] for r in self.conn.execute("SELECT fingerprint FROM draft_findings")}

    def all_drafts(self) -> list[DraftRecord]:
        """Every draft written, by Message-ID."""
        return [draft_from_row(r) for r in self._rows("SELECT * FROM drafts ORDER BY message_id", [])]

    def skip_counts(self) -> dict[str, int]:
        """How many findings got no draft, per skip state (raised, answered, applied, ...)."""
        return dict(self.conn.execute("SELECT state, COUNT(*) FROM draft_skips GROUP BY state").fetchall())

    def drafts_for(self, in_reply_to: str) -> list[DraftRecord]:
        """The drafts replying to one Message-ID."""
        rows = self._rows("SELECT * FROM drafts WHERE in_reply_to = ? ORDER BY message_id", [in_reply_to])
        return [draft_from_row(r) for r in rows]

    def draft_for_fingerprint(self, fingerprint: str) -> DraftRecord | None:
        """The draft covering one finding, or None."""
        rows = self._rows(
            "SELECT d.* FROM drafts d JOIN draft_findings x ON x.draft_message_id = d.message_id "
            "WHERE x.fingerprint = ?",
            [fingerprint],
        )
        return draft_from_row(rows[0]) if rows else None

    def skip_for(self, fingerprint: str) -> DraftSkip | None:
        """Why one finding got no draft, or None."""
        rows = self._rows("SELECT * FROM draft_skips WHERE fingerprint = ?", [fingerprint])
        return skip_from_row(rows[0]) if rows else None

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
            list(message_ids),
        )
        return [(finding_from_row(r), r["how"] or r["state"]) for r in rows]

    def finding_rows(
        self, *, state: str | None = None, rule: str | None = None, since: date | None = None
    ) -> list[FindingStatus]:
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
            f"WHERE {cond} ORDER BY m.day, m.seq, f.message_id, f.path, f.line, f.rule_id",
            args,
        )
        out = []
        for r in rows:
            r["status"] = finding_status(r["state"], r["draft"], r["skip_state"])
            r["where"] = f"{r['path']}:{r['line']}" if r["path"] else "commit message"
            # open: the point still stands, drafted or not (a draft is not known to be sent until it is
            # dismissed or the thread shows it raised); every other status settles the finding
            r["open"] = r["status"] in OPEN_STATUSES
            if (state is None or r["status"] == state or (state == "open" and r["open"])) and (
                rule is None or r["rule_id"].upper() == rule.upper()
            ):
                out.append(FindingStatus(**r))
        return out

    def dismiss(self, fingerprint: str, reason: str) -> bool:
        """Dismiss one finding for good (kept across runs and revisions); False when unknown."""
        finding = self.finding(fingerprint)
        if finding is None:
            return False
        with self.transaction():
            self.set_finding_state(fingerprint, FindingState.DISMISSED)
            self.record_skip(finding, FindingState.DISMISSED.value, f"dismissed: {reason}")
        return True

    def forget_drafts_of(self, message_id: str) -> int:
        """Forget the drafts replying to ``message_id`` or covering its findings (a draft answering the diff
        the author re-posted in a reply); their findings become undrafted again; the count."""
        rows = self.drafts_for(message_id)
        seen = {d.message_id for d in rows}
        rows += [
            draft_from_row(r)
            for r in self._rows(
                "SELECT DISTINCT d.* FROM drafts d JOIN draft_findings x ON x.draft_message_id = d.message_id "
                "JOIN findings f ON f.fingerprint = x.fingerprint WHERE f.message_id = ?",
                [message_id],
            )
            if r["message_id"] not in seen
        ]
        with self.transaction():
            for d in rows:
                self.conn.execute("DELETE FROM draft_findings WHERE draft_message_id = ?", (d.message_id,))
                self.conn.execute("DELETE FROM drafts WHERE message_id = ?", (d.message_id,))
        return len(rows)
