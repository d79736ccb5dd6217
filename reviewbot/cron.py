"""The unattended job: scan from the stored cursor to today, then draft replies. One run at a time.

``run_cron`` takes an exclusive ``fcntl.flock`` on a lock file beside the
database (``reviewbot.db.lock``); when another run holds it, it returns at
once with ``locked=True`` and does nothing. Everything it writes is
idempotent (store upserts, draft files written under a temporary name and
renamed), so a run killed at any point is completed by the next one.
"""

from __future__ import annotations

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
def run_lock(path: Path) -> Iterator[bool]:
    """Hold an exclusive non-blocking flock on ``path``; yields False when another process holds it.

    The lock is released when the process ends, however it ends (SIGKILL
    included): the kernel drops flock locks with the file descriptor.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                yield False
                return
            raise
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        try:
            yield True
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


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
) -> CronResult:
    """Scan ``list_name`` from the stored cursor (or ``since``) to today, then draft. Returns counts.

    ``now`` fixes the clock (today's date and the drafts' Date); the first
    run without a cursor starts ``FIRST_RUN_DAYS`` before today unless
    ``since`` is given. ``scan_fn`` defaults to :func:`reviewbot.scan.scan`.
    ``addresses_from``: local mail files whose full addresses may complete
    obfuscated ones.
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
        start = since or cursor or (today - timedelta(days=FIRST_RUN_DAYS))
        result.since, result.until = start, today
        if scan_fn is None:
            from reviewbot.scan import scan as scan_fn  # type: ignore[no-redef]
        kwargs: dict[str, Any] = {"fetch_all": False, "offline": offline, "clock": lambda: now}
        if progress is not None:
            kwargs["progress"] = progress
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
            )
        return result
