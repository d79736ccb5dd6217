"""Row <-> value conversions of the store: canonical JSON, addresses, hunks, stamps, and the
``messages`` / ``findings`` / patch rows rebuilt as the frozen values of :mod:`reviewbot.models`.

No SQL here except :func:`_range_where`'s condition text, shared by the queries of the store modules.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date, datetime, timezone
from typing import Any, Mapping

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
    Severity,
    Subject,
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
            "lines": [[ln.kind.value, ln.text, ln.old_no, ln.new_no, ln.input_line, ln.altered] for ln in hunk.lines],
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


def _range_where(
    list_name: str | None, since: date | None, until: date | None, prefix: str = ""
) -> tuple[str, list[Any]]:
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


def message_from_row(row: Mapping[str, Any], parse_subject: Any = None) -> Message:
    """Rebuild a Message from a ``messages`` row (see :meth:`Store.load_message`)."""
    raw_subject = row.get("subject") or ""
    if parse_subject is not None:
        subject = parse_subject(raw_subject)
    else:
        subject = Subject(raw=raw_subject, title=raw_subject, is_reply=bool(row.get("is_reply")))
    frm = None
    if row.get("from_email") is not None or row.get("from_name") is not None:
        frm = Address(
            name=row.get("from_name") or "", email=row.get("from_email") or "", partial=bool(row.get("from_partial"))
        )
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


def patch_from_row(stored: StoredMessage) -> Patch:
    """The :class:`Patch` of a stored message, its diff parsed again (the one way a stored patch is
    loaded: the draft runner, scan and the benchmarks all come here). Raises ParseError."""
    from reviewbot.parse.patch import parse_patch

    return parse_patch(stored.message)


# ---------------------------------------------------------------------- query rows as frozen values
@dataclass(frozen=True, slots=True)
class StoredMessage:
    """A stored message (a ``messages`` row): the :class:`Message` (its subject parsed) and where the
    store places it: ``thread_id``, the Message-ID of its thread's root (set by scan); ``day`` and
    ``seq``, its arrival day and order in the archive; ``is_patch`` as stored; ``shipped``: read from
    the copy of real pages shipped in ``archive_cache/``, not from the network or the user's cache."""

    message: Message
    thread_id: str | None
    day: str | None
    seq: int | None
    is_patch: bool
    shipped: bool = False

    @property
    def message_id(self) -> str:
        """The stored message's Message-ID (its key)."""
        return self.message.message_id


@dataclass(frozen=True, slots=True)
class ChangedFile:
    """One file a stored patch changes: its path, status (added/modified/deleted/renamed) and how many
    lines it adds and removes."""

    path: str
    status: str
    added: int
    removed: int


@dataclass(frozen=True, slots=True)
class StoredPatch:
    """The ``git am`` split of a stored message (a ``patches`` row): its subject's title, tags and
    version, its place in the series (``index`` of ``total``; 0 is the cover letter), ``series_key``
    (scan's grouping of the series), the commit message (changelog), trailers, files and parser
    warnings."""

    message_id: str
    title: str
    version: int | None
    index: int | None
    total: int | None
    tags: tuple[str, ...]
    series_key: str | None
    commit_message: str
    trailers: tuple[tuple[str, str], ...]
    files: tuple[ChangedFile, ...]
    warnings: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Submission:
    """A stored patch as :mod:`reviewbot.revisions` compares revisions: its Message-ID, Subject and
    title, version and place in its series (``index`` of ``total``), series key, author (header From),
    arrival day and order, and ``changed``, the lines its diff adds and removes."""

    message_id: str
    subject: str
    title: str
    version: int | None
    index: int | None
    total: int | None
    series_key: str | None
    from_email: str
    from_name: str
    day: str | None
    seq: int | None
    changed: int


@dataclass(frozen=True, slots=True)
class FailedPage:
    """A page that failed and was not fetched since (a ``pages`` row): retried first by the next scan."""

    url: str
    list_name: str | None
    kind: str  # list/year/month/day/message/attachment
    attempts: int
    last_error: str
    last_try: str | None


@dataclass(frozen=True, slots=True)
class DraftRecord:
    """A reply draft written (a ``drafts`` row): its Message-ID, the one it replies to, its file."""

    message_id: str
    in_reply_to: str
    list_name: str | None
    subject: str
    path: str | None
    maildir_key: str | None
    fingerprints: tuple[str, ...]
    recipients_complete: bool
    created: str | None


@dataclass(frozen=True, slots=True)
class DraftSkip:
    """Why a finding got no draft (a ``draft_skips`` row): ``state`` raised/answered/dismissed/... and
    ``reason``, a sentence."""

    fingerprint: str
    message_id: str
    rule_id: str
    state: str
    reason: str


def finding_status(state: str, draft: str | None, skip_state: str | None) -> str:
    """Where a finding stands, as ``reviewbot findings`` says it: ``dismissed``; ``drafted`` when a draft
    covers it; the state a draft run recorded for it (raised, answered, applied, superseded, ...); else the
    state the rules gave it (``open``: no draft run has decided it yet)."""
    if state == "dismissed":
        return "dismissed"  # a dismissal settles a drafted point
    if skip_state == "sent":
        return "sent"  # the reviewer's reply to the patch is in the thread: the draft went out
    if draft:
        return "drafted"
    return skip_state or state


@dataclass(frozen=True, slots=True)
class FindingLine:
    """A finding of a day range with its message's subject and URL (:meth:`Store.findings_in_range`);
    ``status`` is where it stands as ``reviewbot findings`` says it (:func:`finding_status`)."""

    rule_id: str
    severity: str
    state: str
    message: str
    path: str | None
    line: int | None
    message_id: str
    subject: str | None
    archive_url: str | None
    day: str | None
    status: str = ""

    @property
    def where(self) -> str:
        """``path:line``, or "commit message"."""
        return f"{self.path}:{self.line}" if self.path else "commit message"


@dataclass(frozen=True, slots=True)
class FindingStatus:
    """A finding with its message and where it stands (:meth:`Store.finding_rows`): ``status`` is
    ``drafted``, the skip state or the finding's state; ``open`` when the point still stands;
    ``draft`` the draft file, if any."""

    fingerprint: str
    message_id: str
    day: str | None
    date_utc: str | None
    rule_id: str
    severity: str
    subject: str | None
    path: str | None
    line: int | None
    message: str
    state: str
    skip_state: str | None
    skip_reason: str | None
    draft: str | None
    status: str
    where: str
    open: bool


def failed_page_from_row(row: Mapping[str, Any]) -> FailedPage:
    """A :class:`FailedPage` from a ``pages`` row."""
    return FailedPage(
        url=row["url"],
        list_name=row.get("list"),
        kind=row["kind"],
        attempts=int(row["attempts"] or 0),
        last_error=row.get("last_error") or "",
        last_try=row.get("last_try"),
    )


def draft_from_row(row: Mapping[str, Any]) -> DraftRecord:
    """A :class:`DraftRecord` from a ``drafts`` row."""
    return DraftRecord(
        message_id=row["message_id"],
        in_reply_to=row["in_reply_to"],
        list_name=row.get("list"),
        subject=row.get("subject") or "",
        path=row.get("path"),
        maildir_key=row.get("maildir_key"),
        fingerprints=tuple(json.loads(row.get("fingerprints_json") or "[]")),
        recipients_complete=bool(row.get("recipients_complete")),
        created=row.get("created"),
    )


def skip_from_row(row: Mapping[str, Any]) -> DraftSkip:
    """A :class:`DraftSkip` from a ``draft_skips`` row."""
    return DraftSkip(
        fingerprint=row["fingerprint"],
        message_id=row["message_id"],
        rule_id=row["rule_id"],
        state=row["state"],
        reason=row.get("reason") or "",
    )


def stored_message_from_row(row: Mapping[str, Any]) -> StoredMessage:
    """A :class:`StoredMessage` from a ``messages`` row (the subject parsed)."""
    from reviewbot.parse.subject import parse_subject

    return StoredMessage(
        message=message_from_row(row, parse_subject),
        thread_id=row.get("thread_id"),
        day=row.get("day"),
        seq=row.get("seq"),
        is_patch=bool(row.get("is_patch")),
        shipped=bool(row.get("shipped")),
    )


def _files_from(text: str | None) -> tuple[ChangedFile, ...]:
    return tuple(
        ChangedFile(
            path=d.get("path") or "",
            status=d.get("status") or "",
            added=d.get("added") or 0,
            removed=d.get("removed") or 0,
        )
        for d in json.loads(text or "[]")
    )


def stored_patch_from_row(row: Mapping[str, Any]) -> StoredPatch:
    """A :class:`StoredPatch` from a ``patches`` row."""
    return StoredPatch(
        message_id=row["message_id"],
        title=row.get("title") or "",
        version=row.get("version"),
        index=row.get("idx"),
        total=row.get("total"),
        tags=tuple(json.loads(row.get("tags_json") or "[]")),
        series_key=row.get("series_key"),
        commit_message=row.get("commit_message") or "",
        trailers=tuple((k, v) for k, v in json.loads(row.get("trailers_json") or "[]")),
        files=_files_from(row.get("files_json")),
        warnings=tuple(json.loads(row.get("warnings_json") or "[]")),
    )


def submission_from_row(row: Mapping[str, Any]) -> Submission:
    """A :class:`Submission` from a ``patches`` row joined with its message's (see
    :meth:`Store.submission_row`)."""
    return Submission(
        message_id=row["message_id"],
        subject=row.get("subject") or "",
        title=row.get("title") or "",
        version=row.get("version"),
        index=row.get("idx"),
        total=row.get("total"),
        series_key=row.get("series_key"),
        from_email=row.get("from_email") or "",
        from_name=row.get("from_name") or "",
        day=row.get("day"),
        seq=row.get("seq"),
        changed=sum(f.added + f.removed for f in _files_from(row.get("files_json"))),
    )
