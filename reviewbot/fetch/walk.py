"""The archive walk of one scan: which pages to read for a day range, reading them, and their URLs.

:class:`ArchiveWalk` plans the days from the year pages (their calendars give every day's message
count, so with ``fetch_all`` the message URLs ``.../YYYY/MM/DD/N`` are known without the day pages;
otherwise the day pages are read for their subjects and only messages whose subject looks like a
patch are fetched), fetches message pages a few ahead of the one being stored (one worker thread,
one connection), fills in the attachments that hold a patch when the body has none, and maps
stored links to message URLs of the scanned base. Every page that cannot be had is recorded in
the fetch log (the store's ``pages`` table) and kept in ``errors``; one broken page never stops a
walk. What is done with the pages (store, review) is :mod:`reviewbot.scan`'s.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import date, timedelta
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Protocol, Sequence
from urllib.parse import urlsplit

from reviewbot.config import Settings
from reviewbot.context import Clock
from reviewbot.errors import FetchError, HostUnreachable, ParseError, ReviewbotError

if TYPE_CHECKING:  # pragma: no cover - typing only
    from reviewbot.store.rows import FailedPage

log = logging.getLogger(__name__)

#: Message pages fetched ahead of the one being parsed (one worker thread, one connection).
FETCH_AHEAD = 4


_DIFF_RE = re.compile(r"^(?:diff --git |Index: |--- \S[^\n]*\n\+\+\+ \S)", re.MULTILINE)
_PATCH_TYPES = {"text/x-patch", "text/x-diff", "text/x-patch-file"}


class FetchLog(Protocol):
    """Where a walk records pages that failed and forgets them once read (the store's ``pages`` table)."""

    def page_failed(
        self, url: str, *, kind: str, error: str, attempts: int = 1, list_name: str | None = None, now: Any = None
    ) -> None: ...

    def page_ok(self, url: str) -> bool: ...

    def failed_pages(self, list_name: str | None = None) -> list[FailedPage]: ...


def _has_diff(text: str) -> bool:
    return bool(_DIFF_RE.search(text))


def _under(url: str, message_url: str | None) -> bool:
    """True when ``url`` is an attachment URL ``MESSAGE_URL/A`` of that message."""
    if not message_url or not url.startswith(message_url + "/"):
        return False
    rest = url[len(message_url) + 1 :]
    return rest.isdigit() and not rest.startswith("0")


def _is_patch_attachment(att: Any) -> bool:
    ctype = (att.content_type or "").split(";", 1)[0].strip().lower()
    name = (att.filename or "").lower()
    if not ctype.startswith("text/") and ctype not in _PATCH_TYPES and ctype != "application/octet-stream":
        return False
    return ctype in _PATCH_TYPES or name.endswith((".patch", ".diff"))


def open_archive(settings: Settings, *, offline: bool = False, clock: Clock | None = None) -> Any:
    """The Archive for ``settings``: the network and its host's cache (the shipped copy behind the default one)."""
    from reviewbot.fetch.archive import Archive

    return Archive(settings, offline=offline, clock=clock)


class ArchiveWalk:
    """The pages of ``list_name`` from ``since`` to ``until`` (arrival days) on ``settings``' base.

    ``archive`` fetches pages (an :class:`~reviewbot.fetch.archive.Archive`); ``fetch_log`` records
    failed pages; ``known``: archive URL -> Message-ID of the messages already stored (the scan adds
    to it; those pages are neither fetched nor fetched ahead). Counters: ``fetched`` (network),
    ``from_cache``, ``recovered`` (pages of an earlier failed run read now), ``errors`` (URL -> why),
    ``shipped_urls`` (pages read from the copy shipped in ``archive_cache/``).
    """

    def __init__(
        self,
        settings: Settings,
        list_name: str,
        since: date,
        until: date,
        *,
        fetch_all: bool,
        archive: Any,
        fetch_log: FetchLog,
        known: dict[str, str],
        clock: Clock,
    ) -> None:
        from reviewbot.fetch import openwall

        self.ow = openwall
        self.settings = settings
        self.list_name = openwall.validate_list_name(list_name)
        self.since, self.until = since, until
        self.fetch_all = fetch_all
        self.archive = archive
        self.fetch_log = fetch_log
        self.known = known
        self.clock = clock
        self.base = settings.base_url.rstrip("/")
        self.shipped_urls: set[str] = set()  # pages of this run read from the copy shipped in archive_cache/
        self.errors: dict[str, str] = {}
        self.fetched = 0
        self.from_cache = 0
        self.recovered = 0
        self.failed_before = {r.url for r in fetch_log.failed_pages(self.list_name)}
        # the last day of the range whose pages were read (see day_plan); the cursor never passes it
        self.read_through: date | None = None

    # ------------------------------------------------------------------ fetching
    def get(self, url: str, kind: str, ahead: Future | None = None, *, empty_ok: bool = False) -> bytes | None:
        """Fetch one page (or take the result fetched ahead); on failure record it and return None.

        ``empty_ok``: blists' "No messages for ..." answer is an empty page (b""), not a failure.
        """
        try:
            page = ahead.result() if ahead is not None else self.archive.fetch(url)
        except FetchError as exc:
            if empty_ok and str(getattr(exc, "reason", "")).lower().startswith("no messages"):
                self.ok(url)
                return b""
            error = exc.message if exc.message else str(exc)
            if isinstance(exc, HostUnreachable):
                # the request that found the host down: its cause is said once (the archive's warning);
                # the page is missing for the same reason as every later one, and counted with them
                error = "not in the cache (host unreachable)"
            self.fail(url, kind, error, getattr(exc, "attempts", 1))
            return None
        if page.from_cache:
            self.from_cache += 1
        else:
            self.fetched += 1
        if getattr(page, "shipped", False):
            self.shipped_urls.add(url)
        return page.body

    def fail(self, url: str, kind: str, error: str, attempts: int = 1) -> None:
        # once the host is known to be down (or offline), every missing page says the same: keep the log
        # short (the summary counts them in one line)
        level = logging.INFO if not getattr(self.archive, "network", True) else logging.WARNING
        log.log(level, "%s: %s", url, error)
        self.errors[url] = error
        self.fetch_log.page_failed(
            url, kind=kind, error=error, attempts=max(1, attempts), list_name=self.list_name, now=self.clock()
        )

    def ok(self, url: str) -> None:
        if url in self.failed_before and self.fetch_log.page_ok(url):
            self.recovered += 1
            self.failed_before.discard(url)
            log.info("%s: recovered", url)

    def recovered_now(self, url: str) -> None:
        """Count ``url`` as recovered when it had failed in an earlier run (its failure is forgotten
        by the caller, with what it stored)."""
        if url in self.failed_before:
            self.recovered += 1
            self.failed_before.discard(url)

    # ------------------------------------------------------------------ URLs
    def here(self, url: str | None, page_url: str | None = None) -> str | None:
        """``url`` (read from the stored page ``page_url``) as a message URL of this scan's base, or None.

        A link stored from a page of another base (the live site, a mirror, the
        shipped copy) that stays on that page's own host is the same message at the
        same path here: it is rebased (what this base's copy of the page links
        to). A link that left its page's host (a crafted page) or the archive
        scheme is not used. Either way only a debug line, never a warning.
        """
        if not url:
            return None
        if self.on_archive(url):
            return url
        parts = urlsplit(url)
        same_host = page_url is None or urlsplit(page_url).netloc == parts.netloc
        if same_host and parts.scheme in ("http", "https") and parts.path.startswith(f"/{self.list_name}/"):
            rebased = f"{self.base}{parts.path}"
            if self.on_archive(rebased):
                log.debug("%s: stored from another base, used as %s", url, rebased)
                return rebased
        log.debug("%s: not a message URL of %s/%s/, not used", url, self.base, self.list_name)
        return None

    def on_archive(self, url: str) -> bool:
        """True for a message URL of this list on the scanned host (others are never fetched)."""
        if not url.startswith(f"{self.base}/{self.list_name}/"):
            return False
        try:
            return self.ow.classify_url(url).kind == "message"
        except (ReviewbotError, ValueError):
            return False

    # ------------------------------------------------------------------ walking
    def day_plan(self) -> list[tuple[date, int | None]]:
        """Days with mail in the range and their message counts (None: unknown, read the day page).

        Sets :attr:`read_through`, how far the year pages say what the range holds: a year page read
        while the host is used (fetched now, or a copy the cache knows was fetched after the year ended)
        answers for every day of its year in the range; one read without the host (``--offline``, the host
        down: a copy of the archive, perhaps made months ago) only up to the last day it lists. A day
        after that may have mail the copy never saw: the cursor must not pass it.
        """
        plan: list[tuple[date, int | None]] = []
        through: date | None = self.since - timedelta(days=1)  # None once a year page failed
        for year in range(self.since.year, self.until.year + 1):
            url = self.ow.year_url(self.base, self.list_name, year)
            body = self.get(url, "year", empty_ok=True)
            if body is None:  # failed and recorded
                through = None
                continue
            counts: dict[date, int | None] = {}
            if body:  # b"": blists' answer for a year without mail (cron --since before the archive's first year)
                try:
                    counts = dict(self.ow.day_counts_from_year_page(body, year))
                except ParseError as exc:
                    self.fail(url, "year", exc.message)
                    through = None
                    continue
                self.ok(url)
            plan.extend((d, n) for d, n in sorted(counts.items()) if self.since <= d <= self.until)
            first, last = max(date(year, 1, 1), self.since), min(date(year, 12, 31), self.until)
            if through is None or through < first - timedelta(days=1):
                continue  # a day before this year is not known: nothing after it is either
            if getattr(self.archive, "network", True) and url not in self.shipped_urls:
                through = last
            else:
                through = max((d for d in counts if first <= d <= last), default=through)
        self.read_through = through
        return plan

    def refs_for_day(self, day: date, count: int | None) -> list[str]:
        """Message URLs of one day to look at (all of them, or those whose subject looks like a patch)."""
        day_url = self.ow.day_url(self.base, self.list_name, day)
        if self.fetch_all and count is not None:
            return [f"{day_url}{n}" for n in range(1, count + 1)]
        body = self.get(day_url, "day")
        if body is None:
            return []
        try:
            refs = self.ow.parse_day_page(body, day_url)
        except ParseError as exc:
            self.fail(day_url, "day", exc.message)
            return []
        self.ok(day_url)
        if self.fetch_all:
            return [r.url for r in refs]
        return [r.url for r in refs if self.ow.looks_like_patch(r.subject)]

    def message_page(self, url: str, ahead: Future | None = None) -> Any:
        """The RawMessage of one message page, with the text of attachments holding its patch; None when
        the page (or such an attachment) could not be had or parsed (recorded as failed).

        ``ahead`` is the page's fetch started earlier by :meth:`fetch_ahead`.
        """
        body = self.get(url, "message", ahead)
        if body is None:
            return None
        try:
            raw = self.ow.parse_message_page(body, url, self.list_name)
        except ParseError as exc:
            self.fail(url, "message", exc.message)
            cache = getattr(self.archive, "cache", None)
            if cache is not None:  # fetched again next run, not read back from the cache
                cache.discard(url)
            return None
        return self.with_patch_attachments(raw)

    def with_patch_attachments(self, raw: Any) -> Any:
        """Fill in the text of attachments that hold the patch when the body has no diff."""
        atts = tuple(getattr(raw, "attachments", ()) or ())
        if not atts or _has_diff(raw.body or ""):
            return raw
        new = []
        for att in atts:
            if att.text is None and att.url and _is_patch_attachment(att) and not _under(att.url, raw.archive_url):
                log.warning("%s: attachment link %s is not under the message, not fetched", raw.archive_url, att.url)
            elif att.text is None and att.url and _is_patch_attachment(att):
                body = self.get(att.url, "attachment")
                if body is None:
                    # keep the message out of the store so the next run fetches it whole
                    self.fail(
                        raw.archive_url or raw.source,
                        "message",
                        f"attachment {att.index} ({att.filename}) failed: {self.errors.get(att.url)}",
                    )
                    return None
                self.ok(att.url)
                att = dataclasses.replace(att, text=body.decode("utf-8", errors="replace"))
            new.append(att)
        return dataclasses.replace(raw, attachments=tuple(new))

    def plan_urls(self, plan: Sequence[tuple[date, int | None]]) -> Iterator[tuple[int, date, str | None]]:
        """(day number, day, message URL) for the plan, then (day number, day, None) when a day ends."""
        for i, (day, count) in enumerate(plan, 1):
            for url in self.refs_for_day(day, count):
                yield i, day, url
            yield i, day, None

    def fetch_ahead(
        self, items: Iterable[tuple[int, date, str | None]], window: int = FETCH_AHEAD
    ) -> Iterator[tuple[tuple[int, date, str | None], Future | None]]:
        """Pair each item with the fetch of its page, started up to ``window`` pages early.

        One worker thread fetches while this thread parses and stores, so the
        network wait overlaps the work. Requests stay one at a time on the one
        connection and under the rate limit (the session serialises them);
        the store is only touched from this thread.
        """
        if window <= 0:
            for item in items:
                yield item, None
            return
        pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="reviewbot-fetch")
        queue: deque[tuple[tuple[int, date, str | None], Future | None]] = deque()
        source = iter(items)

        def fill() -> None:
            while len(queue) < window:
                item = next(source, None)
                if item is None:
                    return
                url = item[2]
                future = pool.submit(self.archive.fetch, url) if url is not None and url not in self.known else None
                queue.append((item, future))

        try:
            fill()
            while queue:
                entry = queue.popleft()
                fill()
                yield entry
        finally:
            pool.shutdown(wait=False, cancel_futures=True)
