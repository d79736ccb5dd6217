"""The unattended job: scan from the stored cursor to today, then draft replies. One run at a time.

``run_cron`` takes an exclusive ``fcntl.flock`` on a lock file beside the
database (``reviewbot.db.lock``); when another run holds it, it returns at
once with ``locked=True`` and does nothing. Everything it writes is
idempotent (store upserts, draft files written under a temporary name and
renamed), so a run killed at any point is completed by the next one.
"""

from __future__ import annotations

import dataclasses
import errno
import fcntl
import logging
import os
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from reviewbot.config import Settings
from reviewbot.models import Address
from reviewbot.respond.render import clean_outbox
from reviewbot.respond.runner import DraftRunSummary, draft_pending

log = logging.getLogger(__name__)

FIRST_RUN_DAYS = 7  # without a cursor or --since, the first run looks this many days back

__all__ = ["CronResult", "lock_path", "run_lock", "run_cron", "FIRST_RUN_DAYS"]


@dataclass
class CronResult:
    """What one cron run did. ``locked``: another run held the lock, nothing was done."""

    locked: bool = False
    since: date | None = None
    until: date | None = None
    scan: Any = None
    drafts: DraftRunSummary = field(default_factory=DraftRunSummary)
    removed_temp_files: int = 0

    @property
    def nothing_new(self) -> bool:
        """True when the run found nothing worth telling a person (cron mails any output)."""
        d = self.drafts
        return not (d.drafts or d.raised or d.answered or d.errors or self._scan_failed())

    def _scan_failed(self) -> bool:
        failed = getattr(self.scan, "failed", None) or getattr(self.scan, "pages_failed", None)
        return bool(failed)


def lock_path(settings: Settings) -> Path:
    """The lock file beside the database (``<db>.lock``)."""
    return settings.db_path.with_name(settings.db_path.name + ".lock")


@contextmanager
def run_lock(path: Path, on_wait: Callable[[], None] | None = None) -> Iterator[bool]:
    """Hold an exclusive flock on ``path``; yields False when another process holds it.

    ``on_wait``: instead of giving up, call it (to say so) and wait until the other process lets go
    (``reviewbot draft`` waits for a cron run: two drafting runs at once wrote the same drafts twice).
    The lock is released when the process ends, however it ends (SIGKILL
    included): the kernel drops flock locks with the file descriptor.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise
            if on_wait is None:
                yield False
                return
            on_wait()
            fcntl.flock(fd, fcntl.LOCK_EX)
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        try:
            yield True
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def day_chunks(start: date, today: date, mutable_days: int) -> list[tuple[date, date]]:
    """The ranges one cron run scans, in order: each final day alone, then the days that can still change.

    A day is final once it is ``mutable_days`` days before ``today``; the
    cursor moves to each final day as soon as its scan is complete, so a run
    killed during a long catch-up resumes after the last finished day.
    """
    last_final = today - timedelta(days=mutable_days)
    chunks: list[tuple[date, date]] = []
    day = start
    while day <= min(last_final, today):
        chunks.append((day, day))
        day += timedelta(days=1)
    if day <= today:
        chunks.append((day, today))
    return chunks


def _scan_by_day(
    settings: Settings,
    list_name: str,
    start: date,
    today: date,
    *,
    now: datetime,
    offline: bool,
    rules: Any,
    progress: Any,
) -> Any:
    """Scan ``start`` .. ``today`` day by day (see :func:`day_chunks`); returns one combined ScanSummary.

    One Archive serves every day (an index page that can still change, such as
    the current year's, is fetched once). Failed message pages are retried by
    the first day's scan only; after a day with failed pages the cursor stays
    before it (the next run starts there).
    """
    from reviewbot.fetch.archive import Archive
    from reviewbot.scan import ScanSummary, scan
    from reviewbot.store import Store

    archive = Archive(settings, offline=offline, clock=lambda: now, reuse_mutable=True)
    summaries: list[Any] = []
    failed = False
    with Store(settings.db_path) as store:
        for first, last in day_chunks(start, today, settings.mutable_days):
            summary = scan(
                settings,
                list_name,
                first,
                last,
                fetch_all=False,
                offline=offline,
                clock=lambda: now,
                store=store,
                archive=archive,
                rules=rules,
                progress=progress,
                set_cursor=not failed,
                retry_failed=not summaries,
            )
            summaries.append(summary)
            failed = failed or not summary.ok
            if not summary.ok:
                log.info(
                    "%s .. %s: %d page(s) failed; the cursor stays before %s", first, last, summary.pages_failed, first
                )
        findings = store.finding_counts(list_name, start, today)
    if not summaries:
        return ScanSummary(list_name=list_name, since=start, until=today, fetch_all=False)
    total = ScanSummary(
        list_name=list_name,
        since=start,
        until=today,
        fetch_all=False,
        findings_by_rule=findings,
        errors=tuple(sorted({url: err for s in summaries for url, err in s.errors}.items())),
        requests=summaries[-1].requests,  # the one Archive's running count
        host_unreachable=any(s.host_unreachable for s in summaries),
        **{
            name: sum(getattr(s, name) for s in summaries)
            for name in (
                "days",
                "pages_fetched",
                "pages_from_cache",
                "messages_stored",
                "messages_skipped",
                "patches",
                "rule_failures",
                "pages_recovered",
                "threads_followed",
                "pages_from_shipped",
            )
        },
    )
    return dataclasses.replace(total, pages_failed=len(total.errors))


def run_cron(
    settings: Settings,
    list_name: str,
    *,
    rules: Any,
    identity: Address,
    since: date | None = None,
    now: datetime | None = None,
    offline: bool = False,
    maintainers: Path | None = None,
    make_msgid: Callable[[str], str] | None = None,
    progress: Any = None,
    scan_fn: Callable[..., Any] | None = None,
    addresses_from: Sequence[Path] = (),
    real_headers: Callable[..., Any] | None = None,
    draft_progress: Callable[[str], None] | None = None,
) -> CronResult:
    """Scan ``list_name`` from the stored cursor (or ``since``) to today, then draft. Returns counts.

    ``now`` fixes the clock (today's date and the drafts' Date). A run starts
    the day after the stored cursor (the last day scanned completely and
    final); the first run, without a cursor, starts at ``since`` or
    ``FIRST_RUN_DAYS`` before today. The range is scanned day by day and the
    cursor advances after each final day (see :func:`day_chunks`), so a long
    catch-up killed midway resumes after the last finished day.
    ``scan_fn`` replaces that day-by-day scan with one call
    ``scan_fn(settings, list_name, start, today, **kwargs)``.
    ``addresses_from``: local mail files whose full addresses may complete
    obfuscated ones; ``real_headers``: lore's AddressCompleter (real headers
    of archived messages); ``draft_progress``: told what drafting is doing.
    """
    from reviewbot.store import Store

    now = now or datetime.now(timezone.utc)
    today = now.astimezone(timezone.utc).date()
    with run_lock(lock_path(settings)) as held:
        if not held:
            return CronResult(locked=True)
        result = CronResult()
        result.removed_temp_files = len(clean_outbox(settings.outbox_dir))
        with Store(settings.db_path) as store:
            cursor = store.get_cursor(list_name)
        if cursor is not None:
            start = min(cursor + timedelta(days=1), today)
        else:
            start = since or (today - timedelta(days=FIRST_RUN_DAYS))
        result.since, result.until = start, today
        kwargs: dict[str, Any] = {"fetch_all": False, "offline": offline, "clock": lambda: now}
        if progress is not None:
            kwargs["progress"] = progress
        if scan_fn is None:
            result.scan = _scan_by_day(
                settings, list_name, start, today, now=now, offline=offline, rules=rules, progress=progress
            )
        else:
            result.scan = scan_fn(settings, list_name, start, today, **kwargs)
        with Store(settings.db_path) as store:
            result.drafts = draft_pending(
                store,
                rules=rules,
                identity=identity,
                list_address=settings.list_address,
                outbox=settings.outbox_dir,
                list_name=list_name,
                maildir=settings.maildir,
                maintainers=maintainers or settings.maintainers,
                clock=lambda: now,
                make_msgid=make_msgid,
                addresses_from=addresses_from,
                real_headers=real_headers,
                progress=draft_progress,
                unsure=settings.draft_unsure,
            )
        return result
