"""``scan LIST --source lore``: read a list from lore's git epochs, store, then review.

Steps of one run:

1. The inbox's epochs (manifest, or probing); only those that can hold the
   range are used (:func:`reviewbot.fetch.lore.pick_epochs`).
2. Each epoch is cloned once and fetched only when the manifest says it
   changed (:meth:`InboxMirror.sync`); when the host cannot be reached, the
   clones already here are read and the run says so.
3. Commits are picked by their author date (the message's Date) without
   reading a message. A cursor per epoch (last commit read, and the days it
   covers) makes the next run read only what arrived since, when the asked
   range lies inside the covered one; otherwise the whole epoch is walked
   (git history only, locally) for the asked days. A history rewritten on the
   server (the cursor is no longer an ancestor) means a full walk too.
4. The picked messages are parsed and stored (real From/To/Cc,
   In-Reply-To, References); messages already stored are skipped. Thread ids
   come from In-Reply-To/References (:func:`reviewbot.parse.threads.assign_threads`).
5. The review is the scan's own last step (:func:`reviewbot.scan.review_range`).
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass, field
from datetime import date, timedelta, timezone
from typing import Any, Callable, Mapping, Sequence

from reviewbot.config import Settings
from reviewbot.context import Clock, system_clock
from reviewbot.errors import FetchError, ParseError
from reviewbot.fetch import lore
from reviewbot.store import Store

log = logging.getLogger(__name__)

__all__ = ["LoreScanSummary", "scan_lore"]


@dataclass(frozen=True)
class LoreScanSummary:
    """What one lore scan did.

    ``epochs``: epochs read; ``git_operations``: clones, fetches and probes
    over the network (retries included); ``git_new_objects``: those of them
    that brought new objects; ``http_requests``: plain HTTP requests (the
    manifest); ``commits_read``: messages read from the clones (the picked
    ones only); ``messages_stored`` new in the store, ``messages_skipped``
    already there; ``errors``: (what, why) of epochs that could not be
    brought up to date; ``host_unreachable``: the host could not be reached
    and the local clones stood in.
    """

    list_name: str
    inbox: str
    since: date
    until: date | None
    lore_url: str
    epochs: int = 0
    git_operations: int = 0
    git_new_objects: int = 0
    http_requests: int = 0
    commits_read: int = 0
    messages_stored: int = 0
    messages_skipped: int = 0
    patches: int = 0
    findings_by_rule: Mapping[str, int] = field(default_factory=dict)
    rule_failures: int = 0
    errors: tuple[tuple[str, str], ...] = ()
    host_unreachable: bool = False
    passed: tuple[tuple[str, str], ...] = ()  # (message, why) of messages not read (too large); the cursor moves on

    @property
    def pages_failed(self) -> int:
        """Epochs that could not be brought up to date (named like the archive scan's failed pages)."""
        return len(self.errors)

    @property
    def ok(self) -> bool:
        return not self.errors

    @property
    def findings(self) -> int:
        return sum(self.findings_by_rule.values())

    @property
    def requests(self) -> int:
        """Network operations: HTTP requests plus git operations."""
        return self.http_requests + self.git_operations


def _cursor_key(lore_url: str, inbox: str, number: int) -> str:
    return f"lore:{lore_url}/{inbox}/{number}"


def _in(day: date, since: date, until: date | None) -> bool:
    return since <= day and (until is None or day <= until)


def scan_lore(
    settings: Settings,
    list_name: str,
    since: date,
    until: date | None,
    *,
    store: Store | None = None,
    rules: Sequence[Any] | None = None,
    clock: Clock | None = None,
    offline: bool = False,
    mirror: lore.InboxMirror | None = None,
    set_cursor: bool = True,
    progress: Callable[[int, int, str], None] | None = None,
    **_ignored: Any,
) -> LoreScanSummary:
    """Read ``list_name``'s messages dated ``since`` .. ``until`` (None: up to the newest) from lore.

    ``offline``: read the clones already here, no network. ``set_cursor``:
    move the list's day cursor (for cron) when every epoch was brought up to
    date. Raises UsageError for a bad list name or lore URL, StoreError for an
    unusable database; a failed epoch is reported in the summary, not raised.
    """
    from reviewbot.errors import UsageError
    from reviewbot.fetch.openwall import validate_list_name

    if until is not None and until < since:
        raise UsageError(f"--until {until} is before --since {since}")
    clock = clock or system_clock
    list_name = validate_list_name(list_name)
    inbox = lore.inbox_for(list_name)
    if mirror is None:
        from reviewbot.fetch.lore_local import open_inbox  # a folder here (file:///DIR or a path), or a host

        mirror = open_inbox(settings, inbox)
    own_store = store is None
    store = store if store is not None else Store(settings.db_path)
    errors: dict[str, str] = {}
    read = stored = skipped = 0
    mids: list[str] = []
    try:
        epochs: list[lore.Epoch] = []
        if not offline:
            try:
                epochs = lore.pick_epochs(mirror.epochs(), since, until)
            except FetchError as exc:
                errors[exc.url] = exc.message
                log.warning("%s: %s; reading the clones already here", exc.url, exc.message)
        if not epochs:
            epochs = lore.pick_epochs(mirror.local_epochs(), since, until)
        for i, epoch in enumerate(epochs, 1):
            if not offline and mirror.unreachable is None and epoch.url not in errors:
                try:
                    mirror.sync(epoch)
                except FetchError as exc:
                    errors[exc.url] = exc.message
                    log.warning("%s: %s", exc.url, exc.message)
                except OSError as exc:  # the cache's disk: full, or not writable
                    errors[epoch.url] = f"cannot write the clone: {exc.strerror or exc}"
                    log.warning("%s: %s", epoch.url, errors[epoch.url])
            tip = mirror.head(epoch.number)
            if tip is None:
                continue
            got = _read_epoch(settings, store, mirror, epoch.number, tip, list_name, since, until)
            read += got[0]
            stored += got[1]
            skipped += got[2]
            mids.extend(got[3])
            if progress:
                progress(i, len(epochs), f"epoch {epoch.number}")
        _assign_threads(store, mids)
        today = clock().astimezone(timezone.utc).date()
        last = until if until is not None else max(today, since)
        from reviewbot.scan import review_range

        checked, _failures = review_range(settings, list_name, since, last, store=store, rules=rules, clock=clock)
        if not errors and set_cursor:
            store.set_cursor(list_name, min(last, today - timedelta(days=settings.mutable_days)))
        return LoreScanSummary(
            list_name=list_name,
            inbox=inbox,
            since=since,
            until=until,
            lore_url=mirror.lore_url,
            epochs=len(epochs),
            git_operations=mirror.git_operations,
            git_new_objects=mirror.git_new_objects,
            http_requests=mirror.http_requests,
            commits_read=read,
            messages_stored=stored,
            messages_skipped=skipped,
            patches=checked,
            findings_by_rule=store.finding_counts(list_name, since, last),
            rule_failures=store.rule_failure_count(list_name, since, last),
            errors=tuple(sorted(errors.items())),
            host_unreachable=mirror.unreachable is not None,
            passed=tuple(mirror.passed),
        )
    finally:
        mirror.close()
        if own_store:
            store.close()


def _read_epoch(
    settings: Settings,
    store: Store,
    mirror: lore.InboxMirror,
    number: int,
    tip: str,
    list_name: str,
    since: date,
    until: date | None,
) -> tuple[int, int, int, list[str]]:
    """Pick, read, parse and store one epoch's messages of the range; move its cursor.

    Returns (messages read, stored new, already stored, their Message-IDs).
    """
    key = _cursor_key(mirror.lore_url, mirror.inbox, number)
    cursor = store.source_cursor(key)
    cov_since = date.fromisoformat(cursor["since"]) if cursor else None
    cov_until = date.fromisoformat(cursor["until"]) if cursor and cursor.get("until") else None
    inside = (
        cursor is not None
        and cov_since is not None
        and cov_since <= since
        and (cursor.get("until") is None or (until is not None and cov_until is not None and until <= cov_until))
    )
    if cursor is not None and inside and cursor["commit"] == tip:  # (inside implies a cursor)
        return 0, 0, 0, []
    if cursor is not None and inside and mirror.is_ancestor(number, cursor["commit"], tip):
        # only what arrived since; picked by the covered days, so the cursor's coverage stays whole
        assert cov_since is not None
        pick_since, pick_until, after = cov_since, cov_until, cursor["commit"]
    else:
        if cursor is not None and inside:
            log.warning("%s epoch %d: history rewritten on the server; reading the range again", mirror.inbox, number)
        pick_since, pick_until, after = since, until, None
    picked = [c for c in mirror.commits(number, tip, after) if _in(c.day, pick_since, pick_until)]
    read = stored = skipped = 0
    mids: list[str] = []
    from reviewbot.parse.mail import parse_message
    from reviewbot.parse.patch import parse_patch

    for commit, data in mirror.read(number, picked):
        read += 1
        raw = lore.raw_message(mirror.lore_url, mirror.inbox, number, commit, data, list_name)
        try:
            message = parse_message(raw)
        except ParseError as exc:
            log.warning("%s: cannot parse the message: %s", raw.source, exc.message)
            continue
        message = dataclasses.replace(
            message, source=lore.message_url(mirror.lore_url, mirror.inbox, message.message_id)
        )
        mids.append(message.message_id)
        if store.has_message(message.message_id):
            skipped += 1
            continue
        patch = None
        if message.subject.is_patch:
            try:
                patch = parse_patch(message)
            except ParseError as exc:
                log.warning("%s: patch not parsed: %s", message.message_id, exc)
        with store.transaction():
            store.put_message(message, day=commit.day, seq=commit.ct)
            if patch is not None:
                store.put_patch(patch)
        stored += 1
    store.set_source_cursor(
        key,
        {
            "commit": tip,
            "since": pick_since.isoformat(),
            "until": pick_until.isoformat() if pick_until is not None else None,
        },
    )
    return read, stored, skipped, mids


def _assign_threads(store: Store, mids: Sequence[str]) -> None:
    """thread_id of the messages read, from In-Reply-To/References over them and their stored ancestors."""
    if not mids:
        return
    from reviewbot.parse.threads import assign_threads

    rows = {r.message_id: r for r in store.message_rows(list(dict.fromkeys(mids)))}
    wanted = set(rows)
    todo = {ref for r in rows.values() for ref in [r.message.in_reply_to, *r.message.references] if ref}
    # stored ancestors (from either source) join, so a reply threads under a patch read earlier
    while todo - set(rows):
        found = store.message_rows(sorted(todo - set(rows)))
        if not found:
            break
        todo = set()
        for r in found:
            rows[r.message_id] = r
            todo.update(ref for ref in [r.message.in_reply_to, *r.message.references] if ref)
    messages = [r.message for r in rows.values()]
    threads = assign_threads(messages)
    known_threads = {mid: r.thread_id for mid, r in rows.items() if mid not in wanted and r.thread_id}
    mapping = {}
    for mid in wanted:
        root = threads.get(mid, mid)
        mapping[mid] = known_threads.get(root, root)
    store.set_thread_ids(mapping)
