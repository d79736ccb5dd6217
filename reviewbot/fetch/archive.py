"""The archive as the scan sees it: cache first where pages are final, the network otherwise.

:class:`Archive` decides per URL whether the cached copy can be trusted
(message pages and attachments never change; a day page is final once the day
is ``settings.mutable_days`` days old in UTC, a month/year page once its last
day is, the list page never), fetches through :class:`PoliteSession`, refuses
blists error pages and cut-off pages (never cached), and stores good pages in
the :class:`ArchiveCache`. When the host cannot be reached at all it says so
once and goes on from the cache only (the default cache with the copy of real pages shipped in
``archive_cache/`` behind it).
"""

from __future__ import annotations

import calendar
import logging
import threading
import time
from dataclasses import dataclass
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Callable
from urllib.parse import urlsplit

from reviewbot.config import DEFAULT_BASE_URL, Settings, shipped_cache_dir
from reviewbot.errors import FetchError, HostUnreachable
from reviewbot.fetch.cache import ArchiveCache
from reviewbot.fetch.http import ArchivePage, PoliteSession
from reviewbot.fetch.openwall import (
    FOOTER,
    PRE_OPEN,
    ArchiveURL,
    BlistsErrorPage,
    error_reason,
)

log = logging.getLogger(__name__)

__all__ = ["Archive", "FetchStats", "check_page", "shipped_root"]


@dataclass
class FetchStats:
    """Counters of one Archive: HTTP ``requests`` (retries and robots.txt included),
    pages ``fetched`` from the network, pages served ``from_cache`` (the shipped
    copy included), pages ``failed``, and ``from_shipped``: pages of
    ``from_cache`` read from the copy shipped in ``archive_cache/``."""

    requests: int = 0
    fetched: int = 0
    from_cache: int = 0
    failed: int = 0
    from_shipped: int = 0


def shipped_root(settings: Settings) -> Path | None:
    """The real pages shipped in ``archive_cache/`` as a fallback of ``settings``' default cache, or None.

    Only the default host has them (the pages are of lists.openwall.net), and only its default cache:
    a ``--cache-dir`` names the one folder to read.
    """
    shipped = shipped_cache_dir()
    if shipped is None or settings.cache_dir is not None or settings.base_url.rstrip("/") != DEFAULT_BASE_URL:
        return None
    host_dir = shipped / (urlsplit(DEFAULT_BASE_URL).hostname or "")
    return host_dir if host_dir.is_dir() else None


def _utc_now() -> datetime:
    return datetime.now(timezone.utc)


def check_page(info: ArchiveURL, body: bytes, url: str, *, attempts: int = 1, status: int = 200) -> None:
    """Raise unless ``body`` is a complete, non-error page of ``info``'s kind.

    blists error pages (HTTP 200, "The request has failed: ...") raise
    BlistsErrorPage; HTML pages without bit's footer, or message pages without
    their ``<pre>`` / ``</pre>``, raise FetchError ("cut off"). Attachments are raw
    bytes and are not checked.
    """
    if info.kind == "attachment":
        return
    text = body.decode("utf-8", errors="replace")
    reason = error_reason(text)
    if reason:
        raise BlistsErrorPage(reason, url=url, attempts=attempts, status=status)
    if FOOTER not in text:
        raise FetchError(
            f"page cut off or not a blists page ({len(body)} bytes, no '{FOOTER}' footer)",
            url=url,
            attempts=attempts,
            status=status,
        )
    if info.kind == "message":
        start = text.find(PRE_OPEN)
        if start < 0 or text.find("</pre>", start) < 0:
            raise FetchError("message page without a complete <pre> block", url=url, attempts=attempts, status=status)


class Archive:
    """Fetch archive pages politely, from the cache whenever a page cannot have changed.

    ``settings``: base URL, cache dir, rate, retries, ``mutable_days``...
    ``offline``: never use the network (missing pages raise FetchError).
    ``clock``: returns the current time as an aware datetime (tests pass a fixed one).
    ``cache``: an ArchiveCache (default: ``settings.host_cache_dir()``, read-only when
    offline; for the default host and cache, the real pages shipped in ``archive_cache/`` are its
    read-only fallback, used only when the network is not, so they never mask the live site).
    ``session``: a PoliteSession (default: built from settings on first use).
    ``reuse_mutable``: serve an index page that can still change from this
    object's own earlier fetch (one fetch per run, for cron's day-by-day scans).
    Safe to call from several threads: requests stay serial on the session's one
    connection, counters and the unreachable state are updated under a lock.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        offline: bool = False,
        clock: Callable[[], datetime] | None = None,
        cache: ArchiveCache | None = None,
        session: PoliteSession | None = None,
        reuse_mutable: bool = False,
    ) -> None:
        self.settings = settings
        self.reuse_mutable = reuse_mutable
        self.offline = offline
        self.clock = clock or _utc_now
        if cache is None:
            host_dir = shipped_root(settings)
            fallbacks: tuple[Path, ...] = (host_dir,) if host_dir is not None else ()
            cache = ArchiveCache(
                settings.host_cache_dir(), base_url=settings.base_url, readonly=offline, fallbacks=fallbacks
            )
        self.cache = cache
        self._session = session
        self.unreachable: HostUnreachable | None = None
        self._stats = FetchStats()
        self._lock = threading.Lock()  # fetch() may be called from a fetch-ahead worker thread too
        # index pages that can still change, as fetched by this Archive: one fetch per run (cron
        # scans day by day with one Archive; the current year's page is not fetched for every day)
        self._fresh: dict[str, ArchivePage] = {}

    # -- public
    @property
    def stats(self) -> FetchStats:
        """Counters so far (``requests`` is the session's real HTTP request count)."""
        if self._session is not None:
            self._stats.requests = self._session.requests_made
        return self._stats

    @property
    def session(self) -> PoliteSession:
        """The HTTP session, created on first use."""
        with self._lock:
            if self._session is None:
                self._session = PoliteSession(self.settings)
            return self._session

    def _count(self, field: str, delta: int = 1) -> None:
        with self._lock:
            setattr(self._stats, field, getattr(self._stats, field) + delta)

    @property
    def network(self) -> bool:
        """False when offline or after the host was found unreachable."""
        return not self.offline and self.unreachable is None

    def today(self) -> date:
        """Today's date in UTC by ``clock``."""
        now = self.clock()
        if now.tzinfo is not None:
            now = now.astimezone(timezone.utc)
        return now.date()

    def is_final(self, url: str) -> bool:
        """True when the page at ``url`` can no longer change.

        Messages and attachments: always. Day pages: when the day is at least
        ``mutable_days`` days before today (UTC); month/year pages: when their
        last day is; the list page: never. Raises BadArchiveURL for foreign URLs.
        """
        info = self.cache.info(url)
        return self._final_from(info, self.today())

    def _last_day(self, info: ArchiveURL) -> date | None:
        if info.kind in ("message", "attachment", "day"):
            return info.date
        if info.kind == "month" and info.year is not None and info.month is not None:
            return date(info.year, info.month, calendar.monthrange(info.year, info.month)[1])
        if info.kind == "year" and info.year is not None:
            return date(info.year, 12, 31)
        return None

    def _final_from(self, info: ArchiveURL, today: date) -> bool:
        if info.kind in ("message", "attachment"):
            return True
        last = self._last_day(info)
        if last is None:
            return False
        return (today - last).days >= self.settings.mutable_days

    def _cached_copy_final(self, info: ArchiveURL, url: str) -> bool:
        """A cached index page is trusted only if it was fetched after its last day became final."""
        if info.kind in ("message", "attachment"):
            return True
        last = self._last_day(info)
        if last is None:
            return False
        mtime = self.cache.mtime(url)
        if mtime is None:
            return False
        fetched_day = datetime.fromtimestamp(mtime, timezone.utc).date()
        return (fetched_day - last).days >= self.settings.mutable_days

    def fetch(self, url: str) -> ArchivePage:
        """The page at ``url`` (absolute, on the base host), from the cache or the network.

        Raises BadArchiveURL for URLs off the archive scheme or host,
        BlistsErrorPage for blists error pages, FetchError for pages that could
        not be fetched (or are not cached when offline / the host is unreachable),
        HostUnreachable on the first request that finds the host down. With
        ``reuse_mutable`` an index page that can still change is fetched once
        per Archive (cron scans day by day with one Archive).
        """
        info = self.cache.info(url)
        final = self._final_from(info, self.today())
        if final:
            page = self._from_cache(
                info, url, fallbacks=not self.network, trust=self._cached_copy_final(info, url) or not self.network
            )
            if page is not None:
                return page
        with self._lock:
            fresh = self._fresh.get(url) if self.reuse_mutable else None
        if fresh is not None:
            self._count("from_cache")
            return ArchivePage(
                url=url,
                status=fresh.status,
                body=fresh.body,
                from_cache=True,
                fetched_at=fresh.fetched_at,
                content_type=fresh.content_type,
            )
        if not self.network:
            page = self._from_cache(info, url, fallbacks=True, trust=True)
            if page is not None:
                return page
            self._count("failed")
            why = "offline" if self.offline else "host unreachable"
            raise FetchError(f"not in the cache ({why})", url=url, attempts=0)
        return self._from_network(info, url)

    # -- internals
    def _from_cache(self, info: ArchiveURL, url: str, *, fallbacks: bool, trust: bool) -> ArchivePage | None:
        if not trust:
            # index page cached while it could still grow: only the main root's copy is suspect
            return None
        path = self.cache.locate(url, fallbacks=fallbacks)
        if path is None:
            return None
        try:
            body = path.read_bytes()
        except OSError as exc:
            log.warning("%s: cannot read cached copy %s: %s", url, path, exc.strerror)
            return None
        try:
            check_page(info, body, url, attempts=0)
        except FetchError as exc:
            log.warning("%s: ignoring bad cached copy %s: %s", url, path, exc.message)
            return None
        self._count("from_cache")
        from_shipped = self.cache.is_fallback(path)
        if from_shipped:
            self._count("from_shipped")
        content_type = None
        if info.kind == "attachment":
            content_type = self.cache.headers(url).get("Content-Type")
        else:
            content_type = "text/html; charset=utf-8"
        return ArchivePage(
            url=url,
            status=200,
            body=body,
            from_cache=True,
            fetched_at=datetime.fromtimestamp(path.stat().st_mtime, timezone.utc),
            content_type=content_type,
            shipped=from_shipped,
        )

    def _from_network(self, info: ArchiveURL, url: str) -> ArchivePage:
        session = self.session
        try:
            page = session.get(url)
        except HostUnreachable as exc:
            with self._lock:
                first = self.unreachable is None
                if first:
                    self.unreachable = exc
            if first:
                log.warning(
                    "%s cannot be reached (%s); continuing from the cache only", self.settings.base_url, exc.message
                )
            fallback = self._from_cache(info, url, fallbacks=True, trust=True)
            if fallback is not None:
                return fallback
            self._count("failed")
            raise
        except FetchError:
            self._count("failed")
            raise
        try:
            check_page(info, page.body, url, attempts=1, status=page.status)
        except FetchError:
            self._count("failed")
            raise
        self._count("fetched")
        headers = None
        if info.kind == "attachment" and page.content_type:
            headers = {"Content-Type": page.content_type, "Content-Length": str(len(page.body))}
        fetched = self.clock()
        mtime = fetched.timestamp() if fetched.tzinfo is not None else time.time()
        try:
            self.cache.put(url, page.body, headers=headers, mtime=mtime)
        except OSError as exc:
            log.warning("%s: could not write the cache: %s", url, exc)
        # keep the requested URL (same page after a missing-slash redirect)
        result = ArchivePage(
            url=url,
            status=page.status,
            body=page.body,
            from_cache=False,
            fetched_at=fetched,
            content_type=page.content_type,
        )
        if self.reuse_mutable and info.kind not in ("message", "attachment"):
            with self._lock:
                self._fresh[url] = result
        return result
