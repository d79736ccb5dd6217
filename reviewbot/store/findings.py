"""Findings in the store: one row per finding fingerprint with its state, and the rule failures."""

from __future__ import annotations

from datetime import date, datetime, timezone
from typing import Any, Iterable

from reviewbot.models import Finding, FindingState, RuleFailure
from reviewbot.store.base import StoreBase
from reviewbot.store.rows import (
    FindingLine,
    _j,
    _range_where,
    _utc_iso,
    finding_from_row,
    finding_status,
    hunk_to_json,
)


class FindingStore(StoreBase):
    """Queries of the ``findings`` and ``rule_failures`` tables."""

    def replace_findings(
        self,
        message_id: str,
        findings: Iterable[Finding],
        failures: Iterable[RuleFailure] = (),
        *,
        now: datetime | None = None,
    ) -> None:
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
                self._upsert("findings", row, ["fingerprint"], keep=("first_seen",), guard="state <> 'dismissed'")
            marks = ", ".join("?" for _ in keep)
            self.conn.execute(
                "DELETE FROM findings WHERE message_id = ? AND state <> 'dismissed'"
                + (f" AND fingerprint NOT IN ({marks})" if keep else ""),
                [message_id, *keep],
            )
            seen: list[str] = []
            for fail in failures:
                seen.append(fail.rule_id)
                self._upsert(
                    "rule_failures",
                    {
                        "rule_id": fail.rule_id,
                        "message_id": message_id,
                        "error": fail.error,
                        "traceback": fail.traceback,
                    },
                    ["rule_id", "message_id"],
                )
            marks = ", ".join("?" for _ in seen)
            self.conn.execute(
                "DELETE FROM rule_failures WHERE message_id = ?" + (f" AND rule_id NOT IN ({marks})" if seen else ""),
                [message_id, *seen],
            )

    def findings_for(self, message_id: str) -> list[Finding]:
        """The stored findings of one patch as :class:`Finding` values, sorted by (path, line, rule)."""
        rows = self._rows(
            "SELECT * FROM findings WHERE message_id = ? ORDER BY path, line, rule_id, fingerprint", [message_id]
        )
        return [finding_from_row(r) for r in rows]

    def finding(self, fingerprint: str) -> Finding | None:
        """The stored finding with this fingerprint, or None."""
        rows = self._rows("SELECT * FROM findings WHERE fingerprint = ?", [fingerprint])
        return finding_from_row(rows[0]) if rows else None

    def set_finding_state(self, fingerprint: str, state: FindingState) -> bool:
        """Change one finding's state (e.g. dismissed by a person); False when unknown."""
        cur = self.conn.execute("UPDATE findings SET state = ? WHERE fingerprint = ?", (state.value, fingerprint))
        return cur.rowcount > 0

    def finding_counts(
        self, list_name: str | None = None, since: date | None = None, until: date | None = None
    ) -> dict[str, int]:
        """Number of findings per rule id for patches in a list / day range."""
        cond, args = _range_where(list_name, since, until, "m.")
        cur = self.conn.execute(
            "SELECT f.rule_id, COUNT(*) FROM findings f JOIN messages m ON m.message_id = f.message_id "
            f"WHERE {cond} GROUP BY f.rule_id ORDER BY f.rule_id",
            args,
        )
        return dict(cur.fetchall())

    def findings_in_range(
        self, list_name: str | None = None, since: date | None = None, until: date | None = None
    ) -> list[FindingLine]:
        """Findings of patches in a list / day range with their message's subject and URL, in arrival order,
        and where each stands (``status``, as :meth:`Store.finding_rows` gives it)."""
        cond, args = _range_where(list_name, since, until, "m.")
        rows = self._rows(
            "SELECT f.rule_id, f.severity, f.state, f.message, f.path, f.line, f.message_id, "
            "m.subject, m.archive_url, m.day, s.state AS skip_state, d.path AS draft "
            "FROM findings f JOIN messages m ON m.message_id = f.message_id "
            "LEFT JOIN draft_findings x ON x.fingerprint = f.fingerprint "
            "LEFT JOIN drafts d ON d.message_id = x.draft_message_id "
            "LEFT JOIN draft_skips s ON s.fingerprint = f.fingerprint "
            f"WHERE {cond} ORDER BY m.day, m.seq, f.path, f.line, f.rule_id",
            args,
        )
        out = []
        for r in rows:
            status = finding_status(r["state"], r.pop("draft"), r.pop("skip_state"))
            out.append(FindingLine(**r, status=status))
        return out

    def rule_failure_count(
        self, list_name: str | None = None, since: date | None = None, until: date | None = None
    ) -> int:
        """Number of recorded rule crashes for messages of a list / day range."""
        cond, args = _range_where(list_name, since, until, "m.")
        cur = self.conn.execute(
            f"SELECT COUNT(*) FROM rule_failures rf JOIN messages m ON m.message_id = rf.message_id WHERE {cond}", args
        )
        return int(cur.fetchone()[0])

    def patches_with_open_findings(self, list_name: str | None = None) -> list[str]:
        """Message-IDs of patches that have open findings and no draft yet, in arrival order."""
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
            f"WHERE f.state = 'open' {lst} {drafted} "
            "ORDER BY m.day, m.seq, m.message_id",
            args,
        )
        return [r[0] for r in cur.fetchall()]
