"""Draft every pending reply from the store: the loop behind ``reviewbot draft`` and ``reviewbot cron``.

For each patch with findings that have neither a draft nor a recorded skip
(arrival order): rebuild the patch from the stored message; when its thread
shows it already applied ("Applied, thanks!", b4 ty), record a skip
``applied`` for all its findings; else check each finding against the thread
(:func:`reviewbot.respond.draft.thread_state`), record a skip for the ones
already raised or answered, and write one draft
with the rest: outbox file first (temporary name + rename), then the Maildir
copy, then the store row. A run killed between these steps is repaired by
the next one: the draft's file name and Message-ID are derived from the patch
and its findings, so the same file is written again and the Maildir copy is
not duplicated.
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any, Callable, Sequence

from reviewbot.errors import ReviewbotError
from reviewbot.models import Address, Draft, Finding, FindingState, Message, Patch
from reviewbot.respond.draft import applied_in_thread, build_draft, parse_maintainers, thread_state
from reviewbot.respond.render import (
    OutputError,
    add_to_maildir,
    outbox_filename,
    output_error,
    msgid_problem,
    prepare_outputs,
    render_message,
    write_outbox,
)

log = logging.getLogger(__name__)

SKIP_APPLIED = "applied"  # draft_skips.state of a finding on a patch the thread shows as applied
SKIP_UNUSABLE_ID = "unusable-id"  # draft_skips.state: the patch's Message-ID cannot go into a reply header

__all__ = ["SKIP_APPLIED", "SKIP_UNUSABLE_ID", "DraftRunSummary", "WrittenDraft", "draft_pending", "thread_of"]


@dataclass(frozen=True)
class WrittenDraft:
    """One draft written by a run: where it went and whether its recipients are complete."""

    draft: Draft
    path: Path
    maildir_key: str | None
    patch_message_id: str
    subject: str


@dataclass
class DraftRunSummary:
    """What one drafting run did. Finding counts and draft counts are kept apart.

    Findings: ``findings`` were considered by this run (no draft and no skip
    before it); each ends in exactly one of ``drafted`` (covered by a draft
    written now), ``raised``, ``answered``, ``applied`` (the patch was already
    applied), ``dismissed`` (skips recorded now), ``unusable`` (the patch's
    Message-ID cannot go into a reply header; recorded as skips) or ``failed``
    (left for the next run after an error), so they add up to ``findings``. ``before``:
    findings of the same list/day range that earlier runs drafted or skipped;
    ``total`` = ``findings`` + ``before``. Drafts: ``drafts`` written (each
    covers one or more of the ``drafted`` findings), ``incomplete`` of them
    addressed to the list only.
    """

    findings: int = 0
    written: list[WrittenDraft] = field(default_factory=list)
    drafted: int = 0
    raised: int = 0
    answered: int = 0
    applied: int = 0
    dismissed: int = 0
    failed: int = 0
    unusable: int = 0
    before: int = 0
    errors: list[str] = field(default_factory=list)

    @property
    def handled(self) -> int:
        """Findings of this run counted so far in one of the end states (all but ``findings``/``before``)."""
        return (self.drafted + self.raised + self.answered + self.applied + self.dismissed + self.failed
                + self.unusable)

    @property
    def drafts(self) -> int:
        """Number of drafts written."""
        return len(self.written)

    @property
    def incomplete(self) -> int:
        """Drafts written whose recipients could not all be completed (addressed to the list only)."""
        return sum(1 for w in self.written if not w.draft.recipients_complete)

    @property
    def total(self) -> int:
        """Findings in the run's list/day range: considered now plus handled by earlier runs."""
        return self.findings + self.before


def _parse_subject() -> Callable[[str], Any] | None:
    try:
        from reviewbot.parse.subject import parse_subject
    except ImportError:  # pragma: no cover - parse stage missing
        return None
    return parse_subject


def thread_of(store: Any, message: Message, thread_id: str | None) -> list[Message]:
    """The other stored messages of ``message``'s thread, in arrival order (empty without a thread)."""
    from reviewbot.store import message_from_row

    if not thread_id:
        return []
    parse_subject = _parse_subject()
    return [
        message_from_row(row, parse_subject)
        for row in store.thread_members(thread_id)
        if row["message_id"] != message.message_id
    ]


def addresses_from_mail(paths: Sequence[Path]) -> list[Address]:
    """Full From/To/Cc addresses of local mail files (mbox, Maildir, .eml, a folder of them).

    Another source, besides the store, for completing the archive's
    obfuscated addresses (e.g. your own mail archive of the list). Headers
    only, decoded with the stdlib parser; unreadable messages are skipped.
    Raises InputError (from the reader) for a path that cannot be read.
    """
    from email import policy as email_policy
    from email.header import decode_header, make_header
    from email.parser import BytesHeaderParser
    from email.utils import getaddresses

    from reviewbot.fetch.mailfiles import read_path

    parser = BytesHeaderParser(policy=email_policy.compat32)
    out: dict[str, Address] = {}
    for path in paths:
        for raw in read_path(path):
            if raw.kind != "rfc822":
                continue
            try:
                head = parser.parsebytes(raw.data)
                values = [str(v) for key in ("From", "To", "Cc") for v in head.get_all(key, [])]
                pairs = getaddresses(values)
            except Exception:  # one bad header must not stop the run
                log.debug("%s: unreadable address headers", raw.source)
                continue
            for name, email in pairs:
                try:
                    name = str(make_header(decode_header(name))) if name else ""
                except Exception:
                    pass
                if email and "@" in email and "@..." not in email and " " not in email:
                    out.setdefault(email.lower(), Address(" ".join(name.split()), email))
    return list(out.values())


def _ancestry(thread_id: str | None, thread: Sequence[Message], patch: Patch) -> tuple[str, ...]:
    """The thread root when it is a real Message-ID above the patch (the cover letter of a series)."""
    if not thread_id or "@" not in thread_id or "/" in thread_id or thread_id == patch.message_id:
        return ()
    if not any(m.message_id == thread_id for m in thread):
        return ()
    return (thread_id,)


def _load_patch(store: Any, message_id: str) -> tuple[Patch, str | None]:
    from reviewbot.parse.patch import parse_patch

    row = store.message_row(message_id)
    if row is None:
        raise ReviewbotError("message not in the store", subject=message_id)
    from reviewbot.store import message_from_row

    message = message_from_row(row, _parse_subject())
    return parse_patch(message), row.get("thread_id")


def handled_before(store: Any, list_name: str | None, since: date | None) -> int:
    """Findings of the list/day range that earlier runs drafted or skipped (made-up sample messages,
    which are never drafted, left out): the same selection as ``Store.undrafted_findings``, inverted."""
    return int(store.handled_finding_count(list_name, since))


def draft_pending(
    store: Any,
    *,
    rules: Any,
    identity: Address,
    list_address: str,
    outbox: Path,
    list_name: str | None = None,
    since: date | None = None,
    maildir: Path | None = None,
    maintainers: Path | None = None,
    clock: Callable[[], datetime] | None = None,
    make_msgid: Callable[[str], str] | None = None,
    addresses_from: Sequence[Path] = (),
) -> DraftRunSummary:
    """Write one draft per patch with undrafted open findings; record skips. Returns the counts.

    ``store`` is a :class:`reviewbot.store.Store`; ``rules`` the loaded rules
    (their ``reply`` functions word the paragraphs). ``maintainers`` and
    ``addresses_from`` (local mail files) add full addresses for completing
    obfuscated ones, besides those in the store. A patch that cannot be
    rebuilt is reported in ``errors`` and left for the next run.

    The outbox and Maildir folders (and missing parents) are created and
    checked writable before anything is drafted or recorded; OutputError
    (a UsageError naming the folder) when they cannot be, or when writing a
    draft fails later (the run stops there; that draft leaves no file).
    """
    prepare_outputs(outbox, maildir)
    summary = DraftRunSummary()
    clock = clock or (lambda: datetime.now(timezone.utc))
    known = store.known_addresses()
    if maintainers is not None:
        known.extend(parse_maintainers(Path(maintainers)))
    if addresses_from:
        known.extend(addresses_from_mail(addresses_from))
    pending = store.undrafted_findings(list_name, since)
    summary.findings = sum(len(fs) for fs in pending.values())
    summary.before = handled_before(store, list_name, since)
    for message_id, findings in pending.items():
        problem = msgid_problem(message_id)
        if problem:  # no reply can name this message: say why once, draft the others
            reason = f"no reply possible: {problem}"
            with store.transaction():
                for finding in findings:
                    store.record_skip(finding, SKIP_UNUSABLE_ID, reason)
            summary.unusable += len(findings)
            summary.errors.append(f"<{_printable(message_id)}>: {reason}")
            log.warning("<%s>: %s", _printable(message_id), reason)
            continue
        counted = summary.handled
        try:
            _draft_one(store, message_id, findings, summary, rules=rules, identity=identity,
                       list_address=list_address, known=known, clock=clock, make_msgid=make_msgid,
                       outbox=outbox, maildir=maildir, list_name=list_name)
        except OutputError:
            raise  # the folders are unusable: every further draft would fail too
        except Exception as exc:  # one bad message must not stop the run (isolated like a rule crash)
            what = str(exc) if isinstance(exc, ReviewbotError) else f"{exc.__class__.__name__}: {exc}"
            log.warning("no draft for <%s>: %s", _printable(message_id), _printable(what))
            log.debug("draft failure", exc_info=True)
            summary.errors.append(f"<{_printable(message_id)}>: {_printable(what)}")
            summary.failed += len(findings) - (summary.handled - counted)
    return summary


def _printable(text: str, limit: int = 200) -> str:
    """``text`` with non-printable characters escaped, cut to ``limit`` characters (for logs and errors)."""
    out = "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text[:limit])
    return out + ("..." if len(text) > limit else "")


def _draft_one(store: Any, message_id: str, findings: list[Finding], summary: DraftRunSummary, *, rules: Any,
               identity: Address, list_address: str, known: list[Address], clock: Callable[[], datetime],
               make_msgid: Callable[[str], str] | None, outbox: Path, maildir: Path | None,
               list_name: str | None) -> None:
    """Skip or draft the findings of one patch, counting each in ``summary`` once it is recorded.

    Raises on any failure; the caller counts the findings not yet counted as failed.
    """
    patch, thread_id = _load_patch(store, message_id)
    thread = thread_of(store, patch.message, thread_id)
    applied = applied_in_thread(patch, thread, identity=identity)
    if applied is not None:  # the review point comes too late for this patch
        with store.transaction():
            for finding in findings:
                store.record_skip(finding, SKIP_APPLIED, f"already applied, see <{applied}>")
        summary.applied += len(findings)
        log.info("<%s>: already applied (<%s>), no draft", message_id, applied)
        return
    keep: list[Finding] = []
    skipped: list[tuple[Finding, FindingState, str]] = []
    for finding in findings:
        state, reason = thread_state(finding, patch, thread, identity=identity)
        if state is FindingState.OPEN:
            keep.append(finding)
        else:
            skipped.append((finding, state, reason))
    with store.transaction():
        for finding, state, reason in skipped:
            store.record_skip(finding, state.value, reason)
    for _finding, state, _reason in skipped:
        if state is FindingState.RAISED:
            summary.raised += 1
        elif state is FindingState.ANSWERED:
            summary.answered += 1
        else:
            summary.dismissed += 1
    if not keep:
        return
    written = _write_one(store, patch, keep, thread_id, thread, rules=rules, identity=identity,
                         list_address=list_address, known=known, clock=clock, make_msgid=make_msgid,
                         outbox=outbox, maildir=maildir, list_name=list_name)
    summary.written.append(written)
    summary.drafted += len(keep)
    log.info("draft for <%s> written to %s", message_id, written.path)


def _write_one(store: Any, patch: Patch, keep: list[Finding], thread_id: str | None, thread: Sequence[Message], *,
               rules: Any, identity: Address, list_address: str, known: list[Address],
               clock: Callable[[], datetime], make_msgid: Callable[[str], str] | None, outbox: Path,
               maildir: Path | None, list_name: str | None) -> WrittenDraft:
    """Build, render and write one draft (outbox, Maildir), then record it in the store."""
    draft = build_draft(
        patch,
        keep,
        rules,
        identity=identity,
        list_address=list_address,
        store_addresses=known,
        clock=clock,
        make_msgid=make_msgid,
        ancestry=_ancestry(thread_id, thread, patch),
    )
    usable = tuple(mid for mid in draft.references if not msgid_problem(mid))
    if usable != draft.references:  # an ancestor no header can carry is left out of References
        draft = dataclasses.replace(draft, references=usable)
    data = render_message(draft)
    list_for_name = patch.message.list_name or list_name or "list"
    target = Path(outbox) / outbox_filename(draft, list_for_name)
    existed = target.exists()
    try:
        path = write_outbox(draft, outbox, list_for_name, data)
    except OSError as exc:
        raise output_error(exc, outbox, "outbox") from exc
    try:
        key = add_to_maildir(draft, maildir, data) if maildir is not None else None
    except OSError as exc:
        if not existed:  # nothing half-done: no outbox file without its Maildir copy
            path.unlink(missing_ok=True)
        raise output_error(exc, maildir or "", "Maildir") from exc
    store.record_draft(
        message_id=draft.message_id,
        in_reply_to=draft.in_reply_to,
        fingerprints=[f.fingerprint for f in keep],
        list_name=patch.message.list_name or list_name,
        subject=draft.subject,
        path=str(path),
        maildir_key=key,
        recipients_complete=draft.recipients_complete,
        created=draft.date or clock(),
    )
    return WrittenDraft(draft, path, key, patch.message_id, draft.subject)
