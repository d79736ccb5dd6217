"""Draft every pending reply from the store: the loop behind ``reviewbot draft`` and ``reviewbot cron``.

For each patch with findings that have neither a draft nor a recorded skip
(arrival order): rebuild the patch from the stored message; when its thread
shows it already applied ("Applied, thanks!", b4 ty), record a skip
``applied`` for all its findings; else check each finding against the thread
(:func:`reviewbot.respond.draft.thread_state`), record a skip for the ones
already raised or answered, and write one draft
with the rest. Only the newest stored revision of a patch is drafted
(:mod:`reviewbot.revisions` links them); a point raised or answered in an
older revision's thread, or drafted or dismissed there, is not drafted again
on a newer one while the code it is about is unchanged. When the author
mailed a new version of the diff in a reply (not a fix-up on top), the rules
run again on it: a point it fixed gets no draft (skip ``fixed-in-reply``), a
point still there is answered on that reply. A draft is written
outbox file first (temporary name + rename), then the Maildir
copy, then the store row. A run killed between these steps is repaired by
the next one: the draft's file name and Message-ID are derived from the patch
and its findings, so the same file is written again and the Maildir copy is
not duplicated.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from reviewbot.errors import ReviewbotError
from reviewbot.models import SERIES_POINT_KEY, Address, Draft, Finding, FindingState, Message, Patch
from reviewbot.respond.draft import (
    applied_in_thread,
    build_draft,
    parse_maintainers,
    reviewed_in_thread,
    said_in_thread,
    not_for_merge,
    stable_backport,
    thread_state,
    unsure_settled,
)
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
SKIP_SUPERSEDED = "superseded"  # a newer revision of the patch is in the store: that one is drafted
SKIP_EARLIER = "earlier-revision"  # drafted or dismissed on an earlier revision, the code unchanged
SKIP_WITHDRAWN = "withdrawn"  # the author took the patch back ("please ignore this patch")
SKIP_REJECTED = "rejected"  # a maintainer or reviewer turned the patch down ("NAK", "this kills it")
SKIP_UNSURE = "unsure"  # the thread may be settled (a next version announced, "merged"): kept, not drafted
SKIP_MOOT = "moot"  # the thread says the problem is already fixed elsewhere ("already fixed upstream")
SKIP_REVIEWED = (
    "reviewed"  # another person gave Reviewed-by/Acked-by/Tested-by: a late point of the rule (its QUIET_AFTER_REVIEW)
)
SKIP_STABLE = "stable-backport"  # a stable backport: it must match upstream, no review point to send
SKIP_NOT_FOR_MERGE = "not-for-merge"  # "[DEBUG PATCH]", "[PATCH DO NOT MERGE]": nothing to fix before merging
SKIP_REPOSTED = "fixed-in-reply"  # the author re-posted the diff in a reply and it has no finding there
SKIP_UNUSABLE_ID = "unusable-id"  # draft_skips.state: the patch's Message-ID cannot go into a reply header
SKIP_UNSURE_POINT = "unsure-point"  # the rule is not sure a reviewer would send it (Finding.unsure): kept, not drafted
SKIP_HAS_DRAFT = "has-draft"  # the patch has a draft already: one reply per patch (draft --again ID writes it anew)
SKIP_NOT_ASKED = "not-asked"  # the rule keeps the finding but a maintainer would not ask it (Finding.not_asked)
SKIP_REPEATED = "repeated-in-series"  # the same point, asked the same way, is drafted on an earlier patch of the series
SKIP_SENT = "sent"  # a drafted point whose reviewer's own reply to the patch is now in the thread: it went out

#: Every state a draft run records for a finding it writes no draft for (``reviewbot findings --state``)
SKIP_STATES = (
    SKIP_APPLIED,
    SKIP_SUPERSEDED,
    SKIP_EARLIER,
    SKIP_WITHDRAWN,
    SKIP_REJECTED,
    SKIP_UNSURE,
    SKIP_MOOT,
    SKIP_REVIEWED,
    SKIP_STABLE,
    SKIP_NOT_FOR_MERGE,
    SKIP_REPOSTED,
    SKIP_UNUSABLE_ID,
    SKIP_NOT_ASKED,
    SKIP_UNSURE_POINT,
    SKIP_HAS_DRAFT,
    SKIP_REPEATED,
    SKIP_SENT,
)

__all__ = [
    "SKIP_APPLIED",
    "SKIP_STATES",
    "SKIP_UNSURE_POINT",
    "SKIP_UNUSABLE_ID",
    "DraftRunSummary",
    "WrittenDraft",
    "draft_pending",
    "thread_of",
]


@dataclass(frozen=True)
class WrittenDraft:
    """One draft written by a run: where it went and whether its recipients are complete."""

    draft: Draft
    path: Path
    maildir_key: str | None
    patch_message_id: str
    subject: str
    points: tuple[str, ...] = ()  # each point the draft makes, as point_label() names it


def point_label(finding: Finding) -> str:
    """A finding's point in a few words for a report line: ``RB102 smp_wmb() in foo()``, ``RB101 struct
    foo``, ``RB201 "speeds up"`` (the claim quoted), else the rule and the place."""
    import re

    what = ""
    if finding.quote:
        what = f'"{" ".join(finding.quote.split())[:60]}"'
    elif "@" in finding.symbol:
        name, _, where = finding.symbol.partition("@")
        call = f"{name}()" if finding.message.startswith(f"{name}()") else name  # as the finding writes it
        named = (finding.details or {}).get("function")  # the function it sits in, as the rule read the hunk
        functions = [named] if isinstance(named, str) and named else re.findall(r"(\w+)\s*\(", where)
        what = f"{call} in {functions[0]}()" if functions else call
    elif finding.symbol and " " in finding.symbol:  # a named thing, "struct foo"
        what = finding.symbol
    if not what:
        what = f"{finding.path}:{finding.line}" if finding.path else "commit message"
    return f"{finding.rule_id} {what}"


@dataclass
class DraftRunSummary:
    """What one drafting run did. Finding counts and draft counts are kept apart.

    Findings: ``findings`` were considered by this run (no draft and no skip
    before it); each ends in exactly one of ``drafted`` (covered by a draft
    written now), ``raised``, ``answered``, ``applied`` (the patch was already
    applied), ``superseded`` (a newer revision gets the draft, or an earlier
    one had it and the code is unchanged, or the author's re-posted diff fixed it), ``dismissed`` (skips
    recorded now), ``unusable`` (the patch's
    Message-ID cannot go into a reply header; recorded as skips) or ``failed``
    (left for the next run after an error), so they add up to ``findings``. ``before``:
    findings of the same list/day range that earlier runs drafted or skipped;
    ``total`` = ``findings`` + ``before``. Drafts: ``drafts`` written (each
    covers one or more of the ``drafted`` findings), ``incomplete`` of them
    with an address left out (named in a note on the draft's top).
    """

    findings: int = 0
    written: list[WrittenDraft] = field(default_factory=list)
    drafted: int = 0
    raised: int = 0
    answered: int = 0
    applied: int = 0
    withdrawn: int = 0  # the author took the patch back in the thread
    rejected: int = 0  # a maintainer or reviewer turned the patch down in the thread
    moot: int = 0  # the thread says the problem is already fixed elsewhere
    unsure: int = 0  # the thread may be settled and the drafter cannot tell for sure: kept, not drafted
    reviewed: int = 0  # someone else already gave Reviewed-by/Acked-by/Tested-by (rules with a QUIET_AFTER_REVIEW)
    backports: int = 0  # stable backports: they must match upstream
    not_for_merge: int = 0  # debug or test patches not meant to be merged
    superseded: int = 0
    dismissed: int = 0
    failed: int = 0
    unusable: int = 0
    not_asked: int = 0  # the rule says a maintainer would not ask this point (or it is asked on a sibling patch)
    unsure_points: int = 0  # the rule is not sure a reviewer would send it: a finding, drafted only with --unsure
    has_draft: int = 0  # the patch has a draft already (one reply per patch): kept for `draft --again ID`
    before: int = 0
    sent: int = 0  # drafted findings of earlier runs marked sent now: the reviewer's reply is in the thread
    errors: list[str] = field(default_factory=list)
    previews: list[bytes] = field(default_factory=list)
    #: --dry-run: what a real run would decide for each finding, in order: (finding, state, reason), the
    #: state ``drafted`` or a skip state (raised, answered, applied, dismissed, superseded, ...)
    decisions: list[tuple[Finding, str, str]] = field(default_factory=list)

    @property
    def handled(self) -> int:
        """Findings of this run counted so far in one of the end states (all but ``findings``/``before``)."""
        return (
            self.drafted
            + self.raised
            + self.answered
            + self.applied
            + self.withdrawn
            + self.rejected
            + self.moot
            + self.unsure
            + self.reviewed
            + self.backports
            + self.not_for_merge
            + self.superseded
            + self.dismissed
            + self.failed
            + self.unusable
            + self.not_asked
            + self.unsure_points
            + self.has_draft
        )

    @property
    def drafts(self) -> int:
        """Number of drafts written."""
        return len(self.written)

    @property
    def incomplete(self) -> int:
        """Drafts written whose recipients could not all be completed (the missing ones named on top)."""
        return sum(1 for w in self.written if not w.draft.recipients_complete)

    @property
    def total(self) -> int:
        """Findings in the run's list/day range: considered now plus handled by earlier runs."""
        return self.findings + self.before


def thread_of(store: Any, message: Message, thread_id: str | None) -> list[Message]:
    """The other stored messages of ``message``'s thread, in arrival order (empty without a thread)."""
    if not thread_id:
        return []
    return [m.message for m in store.thread_members(thread_id) if m.message_id != message.message_id]


#: Lines of a mail body that name a person with a full address: an in-body ``From:`` of a patch and
#: its trailers, also when quoted (``> Signed-off-by: Ada <ada@example.org>``).
_BODY_ADDRESS_LINE = re.compile(
    r"^(?:>\s?)*\s*(?:From|Signed-off-by|Co-developed-by|Reviewed-by|Acked-by|Tested-by|Reported-by"
    r"|Suggested-by|Reported-and-tested-by|Cc):[ \t]*(\S[^<>\n]*<[^<>@\s]+@[^<>\s]+>)[ \t]*$",
    re.IGNORECASE | re.MULTILINE,
)


def addresses_from_mail(paths: Sequence[Path]) -> list[Address]:
    """Full addresses of local mail files (mbox, Maildir, .eml, a folder of them): From/To/Cc, and the
    ``Name <address>`` of in-body ``From:`` lines and trailers (Signed-off-by, Reviewed-by, ...; also
    quoted), which give a patch's author when the mail was posted by someone else.

    Another source, besides the store, for completing the archive's
    obfuscated addresses (e.g. your own mail archive of the list). Decoded
    with the stdlib parser; unreadable messages are skipped. Raises
    InputError (from the reader) for a path that cannot be read.
    """
    from email import policy as email_policy
    from email.header import decode_header, make_header
    from email.parser import BytesParser
    from email.utils import getaddresses

    from reviewbot.fetch.mailfiles import read_path

    parser = BytesParser(policy=email_policy.compat32)
    out: dict[tuple[str, str], Address] = {}  # each (address, display name) once: a name is evidence too
    for path in paths:
        for raw in read_path(path):
            if raw.kind != "rfc822":
                continue
            try:
                mail = parser.parsebytes(raw.data)
                values = [str(v) for key in ("From", "To", "Cc") for v in mail.get_all(key, [])]
                pairs = getaddresses(values)
            except Exception:  # one bad header must not stop the run
                log.debug("%s: unreadable address headers", raw.source)
                continue
            found = [(n, e, True) for n, e in pairs] + [(n, e, False) for n, e in _body_addresses(mail)]
            for name, email, encoded in found:
                if encoded:
                    try:
                        name = str(make_header(decode_header(name))) if name else ""
                    except Exception:
                        pass
                if email and "@" in email and "@..." not in email and " " not in email:
                    name = " ".join(name.split())
                    out.setdefault((email.lower(), name.casefold()), Address(name, email))
    return list(out.values())


def _body_addresses(mail: Any) -> list[tuple[str, str]]:
    """(name, address) of the in-body From:/trailer lines of a parsed mail's text/plain parts."""
    from email.utils import getaddresses

    out: list[tuple[str, str]] = []
    try:
        parts = [p for p in mail.walk() if p.get_content_type() == "text/plain"]
        for part in parts:
            data = part.get_payload(decode=True)
            if not isinstance(data, bytes) or b"@" not in data:
                continue
            text = data.decode(part.get_content_charset() or "utf-8", errors="replace")
            for m in _BODY_ADDRESS_LINE.finditer(text):
                out.extend((n, e) for n, e in getaddresses([m.group(1)]) if n and e)
    except Exception:  # an odd part must not stop the run
        log.debug("unreadable mail body", exc_info=True)
    return out


def _ancestry(thread_id: str | None, thread: Sequence[Message], patch: Patch) -> tuple[str, ...]:
    """The thread root when it is a real Message-ID above the patch (the cover letter of a series)."""
    if not thread_id or "@" not in thread_id or "/" in thread_id or thread_id == patch.message_id:
        return ()
    if not any(m.message_id == thread_id for m in thread):
        return ()
    return (thread_id,)


def _load_patch(store: Any, message_id: str) -> tuple[Patch, str | None]:
    from reviewbot.store import patch_from_row

    stored = store.message_row(message_id)
    if stored is None:
        raise ReviewbotError("message not in the store", subject=message_id)
    return patch_from_row(stored), stored.thread_id


def handled_before(store: Any, list_name: str | None, since: date | None, retry: Sequence[str] = ()) -> int:
    """Findings of the list/day range that earlier runs drafted or skipped: the same selection as
    ``Store.undrafted_findings`` (with the same retried states), inverted."""
    return int(store.handled_finding_count(list_name, since, retry=retry))


def from_reviewer(addr: Address | None, identity: Address) -> bool:
    """``addr`` is the reviewer ``identity``: the same address, or the archive's hidden form of it
    (``zoe@...mple.com`` for zoe@example.com: the same local part, the shown end of the domain)."""
    if addr is None or not addr.email or not identity.email:
        return False
    email, mine = addr.email.lower(), identity.email.lower()
    if email == mine:
        return True
    local, sep, shown_tail = email.partition("@...")
    my_local, _, my_domain = mine.partition("@")
    return bool(sep) and local == my_local and bool(shown_tail) and my_domain.endswith(shown_tail)


def mark_sent(store: Any, identity: Address, list_name: str | None = None) -> int:
    """Close the loop after sending: a draft whose patch now has a reply from the reviewer (``identity``,
    In-Reply-To the patch) went out, so its findings are marked ``sent`` instead of staying open (reviewbot
    never sends and cannot know otherwise). Dismissed ones stay dismissed. Returns how many were marked."""
    marked = 0
    for draft in store.all_drafts():
        if list_name and draft.list_name and draft.list_name != list_name:
            continue
        reply = next((m for m in store.replies_to(draft.in_reply_to) if from_reviewer(m.from_addr, identity)), None)
        if reply is None:
            continue
        for fingerprint in draft.fingerprints:
            finding = store.finding(fingerprint)
            skip = store.skip_for(fingerprint)
            if finding is None or finding.state is FindingState.DISMISSED or (skip and skip.state == SKIP_SENT):
                continue
            store.record_skip(
                finding, SKIP_SENT, f"sent: your reply <{reply.message_id}> to the patch is in the thread"
            )
            marked += 1
    return marked


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
    real_headers: Callable[[Message], Message] | None = None,
    only: str | None = None,
    rule_ids: Sequence[str] = (),
    dry_run: bool = False,
    progress: Callable[[str], None] | None = None,
    unsure: bool = False,
) -> DraftRunSummary:
    """Write one draft per patch with undrafted open findings; record skips. Returns the counts.

    ``store`` is a :class:`reviewbot.store.Store`; ``rules`` the loaded rules
    (their ``reply`` functions word the paragraphs). ``maintainers`` and
    ``addresses_from`` (local mail files) add full addresses for completing
    obfuscated ones, besides those in the store; ``real_headers`` (lore's
    AddressCompleter) gives a message's real headers. A patch that cannot be
    rebuilt is reported in ``errors`` and left for the next run.

    The outbox and Maildir folders (and missing parents) are created and
    checked writable before anything is drafted or recorded. ``only``: draft
    this one patch (Message-ID); ``rule_ids``: only findings of these rules;
    ``dry_run``: build the drafts (``summary.previews``) but write and record
    nothing. ``unsure``: also draft the points a rule is not sure a reviewer would send (``Finding.unsure``;
    by default they stay findings, skip ``unsure-point``). ``progress``: told in a line what the run is doing (reading the threads, asking lore,
    writing each draft), for a person watching a long run. OutputError
    (a UsageError naming the folder) when they cannot be, or when writing a
    draft fails later (the run stops there; that draft leaves no file).
    """
    if not dry_run:
        prepare_outputs(outbox, maildir)
    summary = DraftRunSummary()
    if not dry_run:
        summary.sent = mark_sent(store, identity, list_name)
    clock = clock or (lambda: datetime.now(timezone.utc))
    known = store.known_addresses()
    if maintainers is not None:
        known.extend(parse_maintainers(Path(maintainers)))
    if addresses_from:
        known.extend(addresses_from_mail(addresses_from))
    retry = (SKIP_UNSURE_POINT, SKIP_HAS_DRAFT) if unsure else (SKIP_HAS_DRAFT,) if only is not None else ()
    pending = store.undrafted_findings(list_name, since, retry=retry)
    if only is not None:
        pending = {k: v for k, v in pending.items() if k == only}
    if rule_ids:
        wanted = {r.upper() for r in rule_ids}
        pending = {k: [f for f in v if f.rule_id.upper() in wanted] for k, v in pending.items()}
        pending = {k: v for k, v in pending.items() if v}
    if dry_run:
        store = _ReadOnly(store)
    summary.findings = sum(len(fs) for fs in pending.values())
    summary.before = handled_before(store, list_name, since, retry)
    say = progress or (lambda _line: None)
    kept: dict[str, tuple[Patch, str | None, list[Message], list[Finding]]] = {}
    for n, (message_id, findings) in enumerate(pending.items(), 1):
        say(f"[{n}/{len(pending)}] reading the thread of <{_printable(message_id)}>: raised or answered already?")
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
        written = store.drafts_for(message_id)
        if written:  # one reply per patch: a second file would take the first one's name (a point found later,
            # or an unsure one drafted with --unsure after a sure one); --again ID writes the draft anew with all
            reason = (
                f"the patch has a draft already ({written[0].path}): `draft --again ID` writes it anew with this point"
            )
            with store.transaction():
                for finding in findings:
                    store.record_skip(finding, SKIP_HAS_DRAFT, reason)
            summary.has_draft += len(findings)
            continue
        counted = summary.handled
        try:
            sorted_out = _sort_findings(
                store, message_id, findings, summary, rules=rules, identity=identity, draft_unsure=unsure
            )
        except Exception as exc:  # one bad message must not stop the run (isolated like a rule crash)
            _count_failure(summary, message_id, exc, len(findings) - (summary.handled - counted))
            continue
        if sorted_out is not None:
            kept[message_id] = sorted_out
    jobs: list[tuple[Patch, str | None, list[Message], list[Finding], str]] = []
    for cover_id, lifted, intro in series_points(store, kept):
        try:
            cover, cover_thread_id = _load_patch(store, cover_id)
        except ReviewbotError:
            continue
        for mid, fps in lifted.items():
            patch, thread_id, thread, keep = kept[mid]
            kept[mid] = (patch, thread_id, thread, [f for f in keep if f.fingerprint not in fps])
        findings = [_series_finding(f) for mid, fps in lifted.items() for f in pending[mid] if f.fingerprint in fps]
        jobs.append((cover, cover_thread_id, thread_of(store, cover.message, cover_thread_id), findings, intro))
    repeated = repeated_in_series(store, kept, rules)
    if repeated:
        with store.transaction():
            for mid, reasons in repeated.items():
                patch, thread_id, thread, keep = kept[mid]
                for f in keep:
                    if f.fingerprint in reasons:
                        store.record_skip(f, SKIP_REPEATED, reasons[f.fingerprint])
                        summary.not_asked += 1
                kept[mid] = (patch, thread_id, thread, [f for f in keep if f.fingerprint not in reasons])
    jobs[:0] = [(p, t, th, k, "") for p, t, th, k in kept.values() if k]
    for n, (patch, thread_id, thread, keep, intro) in enumerate(jobs, 1):
        message_id = patch.message_id
        points = "; ".join(dict.fromkeys(point_label(f) for f in keep))
        asking = " (asking lore for the real addresses)" if real_headers is not None else ""
        say(f"[{n}/{len(jobs)}] drafting the reply to <{_printable(message_id)}>: {points}{asking}")
        try:
            written = _write_one(
                store,
                patch,
                keep,
                thread_id,
                thread,
                rules=rules,
                identity=identity,
                list_address=list_address,
                known=known,
                clock=clock,
                make_msgid=make_msgid,
                outbox=outbox,
                maildir=maildir,
                list_name=list_name,
                intro=intro,
                real_headers=real_headers,
            )
        except OutputError:
            raise  # the folders are unusable: every further draft would fail too
        except Exception as exc:  # one bad draft (e.g. an unusable address) must not stop the run
            _count_failure(summary, message_id, exc, len(keep))
            continue
        summary.written.append(written)
        summary.drafted += len(keep)
        log.info("draft for <%s> written to %s", message_id, written.path)
    if isinstance(store, _ReadOnly):
        summary.previews = store.previews
        summary.decisions = store.decisions
    return summary


class _ReadOnly:
    """The store seen by a dry run: reads pass through, drafting records are kept in memory only
    (``decisions``: what a real run would record, shown to the person)."""

    def __init__(self, store: Any) -> None:
        self._store = store
        self.previews: list[bytes] = []
        self.decisions: list[tuple[Finding, str, str]] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def record_skip(self, finding: Finding, state: str, reason: str) -> None:
        self.decisions.append((finding, state, reason))

    def record_draft(self, *args: Any, **kwargs: Any) -> None:
        return None


def quiet_after_review(rules: Any, rule_id: str) -> str:
    """Why rule ``rule_id``'s point comes too late once another person has given Reviewed-by/Acked-by/
    Tested-by for the patch (in a reply or in the patch's own trailers): the rule module's own
    ``QUIET_AFTER_REVIEW`` sentence (RB101, RB201), said in ``findings``/``show``; "" for a rule still drafted
    on a reviewed patch (RB102: a missing pairing comment is a point reviewers often miss, and a reader judged
    such a draft worth sending on a patch that had Oleg's Reviewed-by: 20201015131701.511523-4-axboe@kernel.dk)."""
    from reviewbot.respond.draft import _rule_module

    return str(getattr(_rule_module(rules, rule_id), "QUIET_AFTER_REVIEW", "") or "")


def newer_series_posting(store: Any, message_id: str) -> str | None:
    """The Message-ID of the cover letter of a newer version of ``message_id``'s series (same author,
    same cover title, a higher version number, see :mod:`reviewbot.revisions`), else None.

    The archive often holds only some patches of a series' later versions: ``[PATCH v2 10/12]`` has no
    stored v3..v5 of its own while the v4 and v5 cover letters are there. Reviewing v2 then is stale."""
    row = store.patch_row(message_id)
    if row is None or not row.series_key or (row.index or 0) == 0:
        return None
    cover = next((r for r in store.series_rows(row.series_key) if (r.index or 0) == 0), None)
    if cover is None:
        return None
    mine = row.version or 1
    later = [r for r in store.revisions_of(cover.message_id) if (r.version or 1) > mine and (r.index or 0) == 0]
    return str(later[-1].message_id) if later else None


#: Mail hosts anyone can use: two people there are no colleagues.
PUBLIC_MAIL_HOSTS = (
    "gmail.com",
    "googlemail.com",
    "outlook.com",
    "hotmail.com",
    "live.com",
    "yahoo.com",
    "icloud.com",
    "qq.com",
    "163.com",
    "126.com",
    "foxmail.com",
    "gmx.de",
    "gmx.net",
    "web.de",
    "proton.me",
    "protonmail.com",
    "pm.me",
    "yandex.ru",
    "mail.ru",
    "aol.com",
    "kernel.org",
    "linux.dev",
)


def _colleague(a: Address, b: Address) -> bool:
    """Two different people with mail at the same company domain (an obfuscated domain counts as seen)."""
    from reviewbot.rule import same_person

    da, db = a.email.rpartition("@")[2].lower(), b.email.rpartition("@")[2].lower()
    if not da or da != db or same_person(a, b):
        return False
    # the archive hides three characters after the "@": gmail.com shows as ...il.com
    return not any(da in (host, "..." + host[3:]) for host in PUBLIC_MAIL_HOSTS)


def _as_reply_to(msg: Message, patch: Patch, body: str | None = None) -> Message:
    """``msg`` read as a reply to ``patch`` (what a reviewer reading the whole series does with it)."""
    return dataclasses.replace(
        msg,
        in_reply_to=patch.message_id,
        references=(patch.message_id,),
        subject=dataclasses.replace(msg.subject, is_reply=True),
        date=patch.message.date,
        body=msg.body if body is None else body,
    )


def _series_messages(store: Any, patch: Patch, thread: Sequence[Message]) -> list[tuple[Message, str]]:
    """What else a reviewer reads before asking about the changelog of ``patch``, each with where it is:
    the other patches of its series (their changelogs) and the replies to them, and every reply on its
    earlier revisions (and their cover letters)."""
    from reviewbot.parse.threads import about_patch

    out: list[tuple[Message, str]] = []
    for msg in thread:
        if msg.message_id == patch.message_id or about_patch(msg, patch):
            continue  # the patch's own branch and its cover letter's replies: read by the thread check
        if msg.subject.is_patch:
            if msg.subject.index == 0:
                continue  # the cover letter itself: its numbers are the rule's to grade
            row = store.patch_row(msg.message_id)
            text = row.commit_message if row is not None else ""
            if text:
                out.append((_as_reply_to(msg, patch, text), f"patch {msg.subject.index or '?'} of the series"))
            continue
        out.append((_as_reply_to(msg, patch), "another patch of the series"))
    author = patch.message.from_addr
    for msg in thread:  # a colleague of the author (same company mail domain) answering on the thread
        if msg.subject.is_patch or author is None or not about_patch(msg, patch):
            continue
        if msg.from_addr is not None and _colleague(msg.from_addr, author):
            out.append((dataclasses.replace(_as_reply_to(msg, patch), from_addr=author), "a colleague's reply"))
    for sub in store.revisions_of(patch.message_id):
        if sub.message_id == patch.message_id:
            break  # revisions come oldest first: only the earlier ones
        try:
            old, old_thread_id = _load_patch(store, sub.message_id)
        except ReviewbotError:
            continue
        for msg in thread_of(store, old.message, old_thread_id):
            if not msg.subject.is_patch and about_patch(msg, old):
                out.append((_as_reply_to(msg, patch), f"the earlier revision <{old.message_id}>"))
    return out


def elsewhere_in_series(
    store: Any,
    patch: Patch,
    finding: Finding,
    thread: Sequence[Message],
    *,
    identity: Address,
    rules: Any,
    memo: dict[str, list[tuple[Message, str]]] | None = None,
) -> tuple[FindingState, str]:
    """A point on the changelog (numbers for a claim) that the rest of the series already settles:
    ``answered`` when the author gave the numbers in another patch of the series, in a reply to another
    patch, or in a reply on an earlier revision; ``raised`` when a reviewer asked there already (in the
    rule's words). Each message is judged by the rule's own thread check as if it answered this patch.
    ``(open, "")`` when nothing settles it, and for points on the code (a barrier, a struct), which are
    about their own lines."""
    if finding.hunk is not None or finding.path:
        return FindingState.OPEN, ""
    if memo is None or patch.message_id not in memo:
        found = _series_messages(store, patch, thread)
        if memo is None:
            memo = {}
        memo[patch.message_id] = found
    for msg, where in memo[patch.message_id]:
        state, reason = thread_state(finding, patch, [msg], identity=identity, rules=rules)
        if state in (FindingState.ANSWERED, FindingState.RAISED):
            return state, f"{reason} (on {where})"
    return FindingState.OPEN, ""


#: A line naming an earlier posting as an earlier version of the same work ("v1: https://lore...",
#: "Changes since RFC v1 (<id>)", "Link to v1:", "previous version"), not as something it builds on.
_VERSION_WORDS = re.compile(
    r"\b(?:v\d+|rfc|previous|prior|earlier|older|version|revision|changes|changelog|since|supersede[sd]?)\b",
    re.IGNORECASE,
)
_BUILDS_ON_WORDS = re.compile(r"\b(?:depend|based on|on top of|prerequisite|requires?|needs|applies)", re.IGNORECASE)


def later_version_naming(store: Any, patch: Patch, thread_id: str | None) -> tuple[str, str] | None:
    """(Message-ID, why) of a later posting by the same author, with a higher version number, whose text
    names this patch or its cover letter as its earlier version (b4's "Link to v1:", a changelog's
    "since RFC v1 (<id>)"): an RFC replaced by an RFC v2 under a new title. None when there is none,
    or when the line naming it says the new posting builds on it ("depends on", "based on")."""
    sender = patch.message.from_addr
    if sender is None or not sender.email:
        return None
    ids = [patch.message_id]
    if thread_id and thread_id != patch.message_id:
        ids.append(thread_id)
    version = patch.subject.version or 1
    for row in store.postings_naming(sender.email, ids):
        later = row.message
        if (later.subject.version or 1) <= version:
            continue
        if patch.message.date and later.date and later.date <= patch.message.date:
            continue
        for line in later.body.split("\n"):
            if not any(mid in line for mid in ids):
                continue
            if line.lstrip().startswith(">"):
                continue
            if _VERSION_WORDS.search(line) and not _BUILDS_ON_WORDS.search(line):
                title = " ".join(later.subject.raw.split())[:80]
                why = f"a later version by the author names this posting as its earlier one: <{later.message_id}> ({title})"
                return later.message_id, why
    return None


def later_version_in_thread(patch: Patch, thread: Sequence[Message]) -> tuple[str, str] | None:
    """(Message-ID, why) of a later patch posted in the same thread by the same author with a higher version
    number and the same place in its series (a v4 answered by the author's v5, v6, v7 in the thread, under a
    new title), else None."""
    sender = patch.message.from_addr
    if sender is None or not sender.email:
        return None
    version = patch.subject.version or 1
    for later in thread:
        subj = later.subject
        if subj.is_reply or not subj.is_patch or (subj.version or 1) <= version or subj.index != patch.subject.index:
            continue
        if later.from_addr is None or later.from_addr.email.lower() != sender.email.lower():
            continue
        if patch.message.date and later.date and later.date <= patch.message.date:
            continue
        title = " ".join(subj.raw.split())[:80]
        return later.message_id, f"the author posted a later version in this thread: <{later.message_id}> ({title})"
    return None


def newer_revision(store: Any, message_id: str) -> str | None:
    """The Message-ID of a newer revision of the same patch in the store (a higher version, or the same
    version posted again later: RESEND, a re-posted series), else None."""
    revs = store.revisions_of(message_id)
    if not revs or revs[-1].message_id == message_id:
        return None
    mine = next((r for r in revs if r.message_id == message_id), None)
    if mine is None:
        return None
    return str(revs[-1].message_id)


def code_key(finding: Finding) -> tuple[str, ...]:
    """What a finding is about, independent of the revision it was found on: the rule, the file and
    the text of the lines it names (or its symbol and claim for a commit-message finding)."""
    return (finding.rule_id, finding.path or "", *_code_lines(finding))


def _code_lines(finding: Finding) -> list[str]:
    texts: list[str] = []
    if finding.hunk is not None:
        wanted = set(finding.lines or ((finding.line,) if finding.line is not None else ()))
        texts = [" ".join(dl.text.split()) for dl in finding.hunk.lines if dl.new_no in wanted and dl.kind.value != " "]
    if not texts:
        texts = [finding.symbol.split("@", 1)[0], (finding.quote or next(iter(finding.subject_names), "")).lower()]
    return texts


#: How alike the lines a finding names must be on two revisions to count as unchanged code; a prefix
#: renamed between versions (``ibnbd_clt_put_permit`` -> ``rnbd_clt_put_permit``) still counts.
SAME_LINES_RATIO = 0.85


def same_point(a: Finding, b: Finding) -> bool:
    """True when findings ``a`` and ``b`` of two revisions make the same point about the same code: the
    same rule, and the lines they name the same (whitespace aside) or nearly so (a renamed prefix, a
    file moved: the path is not compared when the lines match)."""
    import difflib

    if a.rule_id != b.rule_id:
        return False
    if code_key(a) == code_key(b):
        return True
    la, lb = "\n".join(_code_lines(a)), "\n".join(_code_lines(b))
    if not la.strip() or not lb.strip() or (a.hunk is None) != (b.hunk is None):
        return False
    return difflib.SequenceMatcher(None, la, lb, autojunk=False).ratio() >= SAME_LINES_RATIO


def _by_a_revision(store: Any, message_id: str, reason: str) -> bool:
    """True when ``reason`` (a thread state's sentence) points at a revision of the patch itself
    ("addressed in v2 <...>"): a later posting is no reviewer's reply, the code there is judged anew."""
    return any(f"<{r.message_id}>" in reason for r in store.revisions_of(message_id) if r.message_id != message_id)


def handled_on_earlier_revision(
    store: Any, patch: Patch, findings: Sequence[Finding], *, identity: Address | None = None, rules: Any = None
) -> dict[str, str]:
    """Fingerprint -> reason, for findings whose point was already drafted, raised, answered or
    dismissed on an earlier revision of the same patch (the code it is about unchanged).

    What the store records counts first (a draft, a skip, a dismissal); a point of an earlier revision
    with no such record (left as superseded, or not handled yet) is looked up in that revision's own
    thread, so a reviewer who raised it on v1 settles it for v2..v8 whatever order the runs took."""
    revs = [r.message_id for r in store.revisions_of(patch.message_id) if r.message_id != patch.message_id]
    if not revs:
        return {}
    handled = store.handled_findings_of(revs)
    out: dict[str, str] = {}
    rest: list[Finding] = []
    for f in findings:
        hit = next(((how, h.message_id) for h, how in handled if same_point(h, f)), None)
        if hit is not None:
            out[f.fingerprint] = f"{hit[0]} on an earlier revision <{hit[1]}>, the code is unchanged"
        else:
            rest.append(f)
    seen = {h.fingerprint for h, _ in handled}
    for rev in revs:
        if not rest:
            break
        olds = [h for h in store.findings_for(rev) if h.fingerprint not in seen and any(same_point(h, f) for f in rest)]
        if not olds:
            continue
        try:
            old_patch, old_thread_id = _load_patch(store, rev)
        except ReviewbotError:
            continue
        old_thread = thread_of(store, old_patch.message, old_thread_id)
        for h in olds:
            state, reason = thread_state(h, old_patch, old_thread, identity=identity, rules=rules)
            if state not in (FindingState.RAISED, FindingState.ANSWERED) or _by_a_revision(store, rev, reason):
                continue
            for f in [f for f in rest if same_point(h, f)]:
                out[f.fingerprint] = f"{state.value} on an earlier revision <{rev}>, the code is unchanged"
                rest.remove(f)
    return out


def _series_finding(f: Finding) -> Finding:
    """A finding lifted to the cover letter: its places belong to another message, so only what it says
    is kept (the claim is found again in the cover letter's text)."""
    from dataclasses import replace

    return replace(
        f,
        hunk=None,
        line=None,
        lines=(),
        input_line=None,
        path=None,
        details={**dict(f.details or {}), SERIES_POINT_KEY: True},
    )


def series_points(
    store: Any, kept: Mapping[str, tuple[Patch, str | None, list[Message], list[Finding]]]
) -> list[tuple[str, dict[str, set[str]], str]]:
    """Points to make once, on a series' cover letter, instead of on each patch.

    A rule's point on the changelogs (findings without a hunk) is about the series when it is found on
    most of the series' patches (two or more, over half of them), or, for a speed claim (RB201), when the claim is made in the cover letter and
    neither in the patch's subject nor its changelog, or in the cover letter and again in two or more patches' changelogs. Returns (cover Message-ID, patch Message-ID ->
    fingerprints lifted, the sentence saying which patches) per point.
    """
    by_series: dict[str, list[str]] = {}
    for mid in kept:
        row = store.patch_row(mid)
        if row and row.series_key and (row.total or 0) > 1:
            by_series.setdefault(row.series_key, []).append(mid)
    out: list[tuple[str, dict[str, set[str]], str]] = []
    for key, mids in by_series.items():
        rows = store.series_rows(key)
        cover = next((r for r in rows if r.index == 0), None)
        if cover is None:
            continue
        cover_text = " ".join((cover.title + " " + cover.commit_message).lower().split())
        total = max((r.total or 0) for r in rows)
        rule_ids = dict.fromkeys(f.rule_id for m in mids for f in kept[m][3])
        for rule_id in rule_ids:
            # a point on the code stays with the patch, where its lines can be quoted; a point on the
            # changelogs (no hunk) found on most patches is made once
            on = {m: {f.fingerprint for f in kept[m][3] if f.rule_id == rule_id and f.hunk is None} for m in mids}
            on = {m: fps for m, fps in on.items() if fps}
            if len(on) >= 2 and len(on) * 2 > total:
                idx = sorted(store.patch_row(m).index or 0 for m in on)
                if len(idx) == total:
                    intro = "The same goes for every patch of this series."
                else:
                    names = ", ".join(f"{i}/{total}" for i in idx[:-1]) + f" and {idx[-1]}/{total}"
                    intro = f"The same goes for patches {names}."
                out.append((cover.message_id, on, intro))
                continue
            if rule_id != "RB201":
                continue
            lifted: dict[str, set[str]] = {}
            repeated: dict[str, set[str]] = {}  # the cover letter's claim made again in the patch's changelog
            for m, fps in on.items():
                patch = kept[m][0]
                own = " ".join((patch.subject.title + " " + patch.commit_message).lower().split())
                for f in kept[m][3]:
                    claim = f.quote.lower()
                    if f.fingerprint in fps and claim and claim in cover_text:
                        (repeated if claim in own else lifted).setdefault(m, set()).add(f.fingerprint)
            intro = ""
            if len(repeated) >= 2:
                # the cover letter's claim copied into several changelogs ("This is much simpler, and it
                # improves performance" on each conversion patch): the series' claim, asked once
                lifted.update(repeated)
                idx = sorted(store.patch_row(m).index or 0 for m in repeated)
                names = ", ".join(f"{i}/{total}" for i in idx[:-1]) + f" and {idx[-1]}/{total}"
                claims = dict.fromkeys(
                    f.quote for m, fps in repeated.items() for f in kept[m][3] if f.fingerprint in fps
                )
                said = " and ".join(f'"{c}"' for c in claims)
                intro = f"The same goes for {said} in patches {names}."
            if lifted:
                out.append((cover.message_id, lifted, intro))
    return out


_QUOTED_RE = re.compile(r'"[^"]*"')


def repeated_in_series(
    store: Any, kept: Mapping[str, tuple[Patch, str | None, list[Message], list[Finding]]], rules: Any
) -> dict[str, dict[str, str]]:
    """Patch Message-ID -> {fingerprint: reason} for points on the changelog (no hunk) that an earlier patch of
    the same series gets in the same words: the same rule, the same claim (``Finding.quote``) and the same
    question (the rule's paragraph with its quoted sentences left out). One draft asks it, on the first patch;
    the others are skipped with a reason naming that patch (two sibling ports "to improve the performance",
    each asked for "numbers before and after")."""
    from reviewbot.respond.draft import _reply_fn

    by_series: dict[str, list[tuple[int, str]]] = {}
    for mid, (_, _, _, keep) in kept.items():
        if not any(f.hunk is None and f.quote for f in keep):
            continue
        row = store.patch_row(mid)
        if row and row.series_key and (row.total or 0) > 1:
            by_series.setdefault(row.series_key, []).append((row.index or 0, mid))
    out: dict[str, dict[str, str]] = {}
    for items in by_series.values():
        if len(items) < 2:
            continue
        first: dict[tuple[str, str, str], str] = {}
        for _, mid in sorted(items):
            patch = kept[mid][0]
            for f in kept[mid][3]:
                if f.hunk is not None or not f.quote:
                    continue
                fn = _reply_fn(rules, f.rule_id)
                question = _norm(_QUOTED_RE.sub('""', fn([f], patch))) if fn is not None else ""
                key = (f.rule_id, f.quote.lower(), question)
                if key in first:
                    out.setdefault(mid, {})[f.fingerprint] = (
                        f'the same point ("{f.quote}") is asked the same way on <{first[key]}> of this series'
                    )
                else:
                    first[key] = mid
    return out


#: Lines too plain to tell a fix-up on top of the patch from a new version of it ("}", "break;").
_PLAIN_LINE = 8


def _norm(text: str) -> str:
    return " ".join(text.split())


def replaces_diff(original: Patch, repost: Patch) -> bool:
    """True when ``repost`` (a diff the author mailed in a reply) is a new version of ``original``'s diff,
    not a fix-up to apply on top of it: it touches one of the patch's files and none of its removed or
    context lines is a line the patch added (a fix-up quotes those as its old side)."""
    added: set[str] = set()
    old_side: set[str] = set()
    paths = set()
    for fd in original.files:
        paths |= {fd.path, fd.old_path, fd.new_path}
        for h in fd.hunks:
            for dl in h.lines:
                text = _norm(dl.text)
                if dl.kind.value == "+":
                    added.add(text)
                elif dl.kind.value in "- ":
                    old_side.add(text)
    added -= old_side
    touched = False
    for fd in repost.files:
        if not ({fd.path, fd.old_path, fd.new_path} & (paths - {None})):
            continue
        touched = True
        for h in fd.hunks:
            for dl in h.lines:
                text = _norm(dl.text)
                if dl.kind.value in "- " and len(text) >= _PLAIN_LINE and text in added:
                    return False
    return touched


def reposted_diff(
    patch: Patch, thread: Sequence[Message], *, authors: Sequence[Address], identity: Address | None = None
) -> Patch | None:
    """The newest diff the patch's author mailed in a reply about the patch as a new version of it (the
    reply's own lines, quotes dropped, parsed as a patch; see :func:`replaces_diff`), else None."""
    from dataclasses import replace

    from reviewbot.parse.patch import parse_patch
    from reviewbot.rule import later_replies, same_person

    newest: Patch | None = None
    for msg in later_replies(patch, thread, identity=identity):
        if msg.subject.is_patch or not any(same_person(msg.from_addr, a) for a in authors):
            continue
        own = "\n".join(line for line in msg.body.split("\n") if not line.startswith(">"))
        if "\ndiff --git " not in "\n" + own:
            continue
        try:
            repost = parse_patch(replace(msg, body=own))
        except Exception:  # a diff mangled in a reply is no new version
            continue
        if (
            repost.files
            and replaces_diff(patch, repost)
            and (newest is None or (msg.date and newest.message.date and msg.date >= newest.message.date))
        ):
            newest = repost
    return newest


def _covers(repost: Patch, finding: Finding) -> bool:
    """True when ``repost`` (a new version of the diff, on the same base) has a hunk of the finding's file
    over the lines of the original the finding's hunk changed (old-side ranges overlap)."""
    h = finding.hunk
    if h is None:
        return False
    lo, hi = h.old_start, h.old_start + max(h.old_len, 1)
    for fd in repost.files:
        if finding.path not in (fd.path, fd.old_path, fd.new_path):
            continue
        if any(r.old_start < hi and lo < r.old_start + max(r.old_len, 1) for r in fd.hunks):
            return True
    return False


def _rules_for(rules: Any, rule_ids: set[str]) -> list[Any]:
    """The loaded rules of ``rule_ids`` (the built-in ones when ``rules`` is a mapping of reply functions)."""
    loaded = (
        [r for r in (rules or ()) if getattr(getattr(r, "meta", None), "id", None) in rule_ids]
        if not isinstance(rules, Mapping)
        else []
    )
    if not loaded:
        from reviewbot.registry import load_rules

        loaded = [r for r in load_rules(entry_points=False) if r.id in rule_ids]
    return loaded


def on_reposted_diff(
    store: Any, patch: Patch, keep: list[Finding], thread: Sequence[Message], *, rules: Any, identity: Address
) -> tuple[Patch, list[Finding], dict[str, str]] | None:
    """Findings on code the author re-posted in a reply (a new version of the diff in the thread): the rules
    run again on that diff. Returns (the reply as a patch, the findings still standing there, located in
    the reply's diff and carrying the original fingerprints; fingerprint -> reason of those on the code
    the new diff fixed), or None when there is no such reply or it does not cover every finding on the code."""
    from dataclasses import replace

    from reviewbot.engine import check_patch

    sender = _header_sender(store, patch)
    authors = [a for a in (patch.message.from_addr, sender) if a is not None]
    repost = reposted_diff(patch, thread, authors=authors, identity=identity)
    if repost is None:
        return None
    on_code = [f for f in keep if f.hunk is not None]
    if not on_code or not all(_covers(repost, f) for f in on_code):
        return None  # the reply re-posts another file or another part of it: the findings stay on the patch
    again = list(check_patch(repost, _rules_for(rules, {f.rule_id for f in on_code})).findings)
    fixed: dict[str, str] = {}
    standing: list[Finding] = []
    for f in on_code:
        match = next((g for g in again if same_point(f, g)), None)
        if match is None:
            fixed[f.fingerprint] = (
                f"{f.rule_id} finds nothing there in the diff the author re-posted in <{repost.message_id}>"
            )
            continue
        again.remove(match)
        standing.append(replace(match, fingerprint=f.fingerprint, message_id=patch.message_id))
    return repost, standing, fixed


def _sort_findings(
    store: Any,
    message_id: str,
    findings: list[Finding],
    summary: DraftRunSummary,
    *,
    rules: Any,
    identity: Address,
    draft_unsure: bool = False,
) -> tuple[Patch, str | None, list[Message], list[Finding]] | None:
    """Skip what needs no draft (a newer revision, applied, handled earlier, raised/answered in the
    thread), counting it in ``summary``; returns what is left to draft, or None. Raises on failure."""
    patch, thread_id = _load_patch(store, message_id)
    newer = newer_revision(store, message_id)
    newer_why = f"a newer revision is in the store: <{newer}>"
    if newer is None:  # the patch's own next version may be missing from the archive, its series' is not
        newer = newer_series_posting(store, message_id)
        newer_why = f"a newer version of its series is in the store: <{newer}>"
    if newer is None:  # an RFC replaced by an RFC v2 under a new title: the v2 names this posting
        named = later_version_naming(store, patch, thread_id)
        if named is not None:
            newer, newer_why = named
    thread = thread_of(store, patch.message, thread_id)
    if newer is None:  # v5..v7 posted as replies in this very thread, whatever their titles
        named = later_version_in_thread(patch, thread)
        if named is not None:
            newer, newer_why = named
    if newer is not None:  # only the newest revision in the store gets a draft
        # ... but a point a reviewer raised (or the author answered) on this revision is settled for
        # the later ones too while the code is unchanged: record that, not only "superseded"
        with store.transaction():
            for finding in findings:
                state, reason = thread_state(finding, patch, thread, identity=identity, rules=rules)
                if _by_a_revision(store, message_id, reason):
                    state = FindingState.OPEN  # "addressed in v2": the newer revision is judged on its own
                if state not in (FindingState.RAISED, FindingState.ANSWERED):
                    summary.superseded += 1
                    store.record_skip(finding, SKIP_SUPERSEDED, newer_why)
                    continue
                _count_state(summary, state)
                store.record_skip(finding, state.value, reason)
        return None
    applied = applied_in_thread(patch, thread, identity=identity)
    said = said_in_thread(patch, thread, identity=identity) if applied is None else None
    backport = stable_backport(patch) if applied is None and said is None else None
    debug = not_for_merge(patch) if applied is None and said is None and backport is None else None
    unsure = unsure_settled(patch, thread, identity=identity) if not (applied or said or backport or debug) else None
    if unsure is not None:  # precision first: a draft on a settled thread costs more than a missed one
        with store.transaction():
            for finding in findings:
                store.record_skip(finding, SKIP_UNSURE, unsure)
        summary.unsure += len(findings)
        log.info("<%s>: %s, no draft", message_id, unsure)
        return None
    if applied is not None or said is not None or backport is not None or debug is not None:  # no point to send
        if applied is not None:
            skip, reason = SKIP_APPLIED, f"already applied, see <{applied}>"
        elif said is not None:
            skip = {"withdrawn": SKIP_WITHDRAWN, "rejected": SKIP_REJECTED, "moot": SKIP_MOOT}.get(
                said[0], SKIP_APPLIED
            )
            reason = said[1]
        elif backport is not None:
            skip, reason = SKIP_STABLE, backport
        else:
            skip, reason = SKIP_NOT_FOR_MERGE, str(debug)
        with store.transaction():
            for finding in findings:
                store.record_skip(finding, skip, reason)
        if skip == SKIP_APPLIED:
            summary.applied += len(findings)
        elif skip == SKIP_WITHDRAWN:
            summary.withdrawn += len(findings)
        elif skip == SKIP_REJECTED:
            summary.rejected += len(findings)
        elif skip == SKIP_MOOT:
            summary.moot += len(findings)
        elif skip == SKIP_NOT_FOR_MERGE:
            summary.not_for_merge += len(findings)
        else:
            summary.backports += len(findings)
        log.info("<%s>: %s, no draft", message_id, reason)
        return None
    earlier = handled_on_earlier_revision(store, patch, findings, identity=identity, rules=rules)
    reviewed = (
        reviewed_in_thread(patch, thread, identity=identity)
        if any(quiet_after_review(rules, f.rule_id) for f in findings)
        else None
    )
    keep: list[Finding] = []
    elsewhere: dict[str, list[tuple[Message, str]]] = {}
    with store.transaction():
        for finding in findings:
            if finding.fingerprint in earlier:
                store.record_skip(finding, SKIP_EARLIER, earlier[finding.fingerprint])
                summary.superseded += 1
                continue
            state, reason = thread_state(finding, patch, thread, identity=identity, rules=rules)
            if state is FindingState.OPEN:  # numbers or the question may be elsewhere in the series
                state, reason = elsewhere_in_series(
                    store, patch, finding, thread, identity=identity, rules=rules, memo=elsewhere
                )
            late = quiet_after_review(rules, finding.rule_id) if reviewed is not None else ""
            if state is FindingState.OPEN and late:
                store.record_skip(finding, SKIP_REVIEWED, f"{reviewed}; {late}")
                summary.reviewed += 1
                continue
            if state is FindingState.OPEN and finding.not_asked:  # raised or answered in the thread says more
                store.record_skip(finding, SKIP_NOT_ASKED, finding.not_asked)
                summary.not_asked += 1
                continue
            if state is FindingState.OPEN and finding.unsure and not draft_unsure:  # precision first: a finding only
                store.record_skip(finding, SKIP_UNSURE_POINT, finding.unsure)
                summary.unsure_points += 1
                continue
            if state is FindingState.OPEN:
                keep.append(finding)
                continue
            _count_state(summary, state)
            store.record_skip(finding, state.value, reason)
    moved = on_reposted_diff(store, patch, keep, thread, rules=rules, identity=identity) if keep else None
    if moved is not None:  # the author mailed a new version of the diff in the thread: answer that one
        repost, standing, fixed = moved
        with store.transaction():
            for finding in keep:
                if finding.fingerprint in fixed:
                    store.record_skip(finding, SKIP_REPOSTED, fixed[finding.fingerprint])
                    summary.superseded += 1
        keep = [f for f in keep if f.fingerprint not in fixed]
        if not keep:
            return None
        if any(f.hunk is None for f in keep):  # a point on the changelog: the draft stays on the patch
            return patch, thread_id, thread, keep
        log.info("<%s>: answered on the diff re-posted in <%s>", message_id, repost.message_id)
        rest = [patch.message, *(m for m in thread if m.message_id != repost.message_id)]
        return repost, thread_id, rest, standing
    return (patch, thread_id, thread, keep) if keep else None


def _count_state(summary: DraftRunSummary, state: FindingState) -> None:
    """Count a finding the thread settles: raised by a reviewer, answered by the author, else dismissed."""
    if state is FindingState.RAISED:
        summary.raised += 1
    elif state is FindingState.ANSWERED:
        summary.answered += 1
    else:
        summary.dismissed += 1


def _count_failure(summary: DraftRunSummary, message_id: str, exc: BaseException, findings: int) -> None:
    """Record one message's failure in ``summary``: the run goes on with the next message."""
    what = str(exc) if isinstance(exc, ReviewbotError) else f"{exc.__class__.__name__}: {exc}"
    log.warning("no draft for <%s>: %s", _printable(message_id), _printable(what))
    log.debug("draft failure", exc_info=True)
    summary.errors.append(f"<{_printable(message_id)}>: {_printable(what)}")
    summary.failed += findings


def _printable(text: str, limit: int = 200) -> str:
    """``text`` with non-printable characters escaped, cut to ``limit`` characters (for logs and errors)."""
    from reviewbot.textsafe import shown

    out = shown(text[:limit])
    return out + ("..." if len(text) > limit else "")


def _header_sender(store: Any, patch: Patch) -> Address | None:
    """The stored header From of ``patch``'s message (its sender; an in-body ``From:`` may name another
    author), else None."""
    message = store.load_message(patch.message_id)
    sender = message.from_addr if message is not None else None
    return sender if sender is not None and sender.email else None


def _write_one(
    store: Any,
    patch: Patch,
    keep: list[Finding],
    thread_id: str | None,
    thread: Sequence[Message],
    *,
    rules: Any,
    identity: Address,
    list_address: str,
    known: list[Address],
    clock: Callable[[], datetime],
    make_msgid: Callable[[str], str] | None,
    outbox: Path,
    maildir: Path | None,
    list_name: str | None,
    intro: str = "",
    real_headers: Callable[[Message], Message] | None = None,
) -> WrittenDraft:
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
        real_headers=real_headers,
        intro=intro,
        sender=_header_sender(store, patch),
    )
    if isinstance(store, _ReadOnly):  # --dry-run: the draft as it would be written, nothing stored
        store.previews.append(render_message(draft))
        store.decisions.extend((f, "drafted", f"in reply to <{patch.message_id}>") for f in keep)
        return WrittenDraft(
            draft,
            Path(outbox_filename(draft, patch.message.list_name or list_name or "list")),
            None,
            patch.message_id,
            draft.subject,
            tuple(dict.fromkeys(point_label(f) for f in keep)),
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
    return WrittenDraft(
        draft, path, key, patch.message_id, draft.subject, tuple(dict.fromkeys(point_label(f) for f in keep))
    )
