"""The main job: walk the archive for a day range, store every message and patch, run the rules.

The walk itself (which pages, fetched ahead, attachments, URLs) is
:class:`reviewbot.fetch.walk.ArchiveWalk`; this module stores what it fetched,
follows threads over the stored messages and runs the review
(:mod:`reviewbot.review`). One scan goes through these steps (each page in its own transaction, so a
scan killed at any point resumes where it stopped and ends with the same
database as an uninterrupted one):

1. Retry the message pages that failed last time (the ``pages`` fetch log).
2. Year pages of the range: their calendars give the number of messages of
   every day, so with ``fetch_all`` the message URLs ``.../YYYY/MM/DD/N``
   (N = 1..count) are known without the day pages. In the default mode the
   day pages are read for their subjects and only messages whose subject
   looks like a patch are fetched.
3. Message pages not stored yet (already-stored ones cost nothing), plus the
   attachment holding the diff when the body has none -> parse -> store.
4. Thread ids from the ``[<thread-prev]`` chain over stored messages (no
   extra requests): the chain's first message's Message-ID, or the URL of the
   nearest message not fetched.
5. Default mode only: the rules run on the patches alone to find the
   threads with findings; for those the ``[thread-next>]`` chain is followed
   to fetch the replies (picking threads from patches alone keeps a resumed
   scan fetching the same replies as an uninterrupted one).
6. Series grouping and the rule engine for every patch of the range, with
   the cover letter and the thread (replies included), in batches of whole
   threads; findings replace the patch's old ones (a person's "dismissed"
   stays), so findings become ``raised``/``answered`` where the thread says so.

One broken page never stops a scan: it is recorded (URL, attempts, last
error) and reported in :class:`ScanSummary`; the command exits with
``ExitStatus.PARTIAL_FAILURE`` and the next run retries it.
"""

from __future__ import annotations

import logging
from concurrent.futures import Future
from dataclasses import dataclass, field
from datetime import date, timedelta, timezone
from typing import Any, Callable, Iterable, Mapping, Sequence

from reviewbot.config import Settings
from reviewbot.context import Clock, system_clock
from reviewbot.errors import ParseError
from reviewbot.fetch.walk import ArchiveWalk, open_archive
from reviewbot.models import Message, Patch
from reviewbot.store import Store, StoredMessage, patch_from_row

log = logging.getLogger(__name__)

#: Patches checked together (whole threads per batch), bounding memory on long ranges.
CHECK_BATCH = 500

#: Patches parsed while fetching kept for the check (a cache: results never depend on it).
PATCH_CACHE_MAX = 5000

#: Most replies followed per thread in the default mode (a runaway chain stops here).
MAX_THREAD_FOLLOW = 400


ProgressFn = Callable[[int, int, str], None]


@dataclass(frozen=True)
class ScanSummary:
    """What one scan did.

    ``days``: days with mail in the range that were walked; ``pages_fetched``
    pages that came over the network, ``pages_from_cache`` from the cache,
    ``pages_failed`` pages that could not be had (listed in ``errors`` as
    (url, error)); ``requests`` HTTP requests made (retries included);
    ``messages_stored`` messages new in the store; ``messages_skipped``
    already stored, not fetched again (each message the scan comes to counts once, as stored or as
    already stored: the replies of the threads followed too, so a second scan of a range counts as
    already stored what the first counted as stored); ``patches`` patches of the range checked;
    ``findings_by_rule`` rule id -> findings of the range; ``rule_failures``
    rules that crashed on a patch; ``pages_recovered`` pages of an earlier
    failed run fetched now; ``host_unreachable`` when the archive host could
    not be reached and the cache stood in; ``pages_from_shipped`` pages (of
    ``pages_from_cache``) read from the copy of real pages shipped in
    ``archive_cache/`` (the default cache's fallback without network); their
    messages are stored like any others, marked ``shipped``.
    """

    list_name: str
    since: date
    until: date
    fetch_all: bool
    days: int = 0
    pages_fetched: int = 0
    pages_from_cache: int = 0
    pages_failed: int = 0
    requests: int = 0
    messages_stored: int = 0
    messages_skipped: int = 0
    patches: int = 0
    findings_by_rule: Mapping[str, int] = field(default_factory=dict)
    errors: tuple[tuple[str, str], ...] = ()
    rule_failures: int = 0
    pages_recovered: int = 0
    threads_followed: int = 0
    host_unreachable: bool = False
    pages_from_shipped: int = 0

    @property
    def ok(self) -> bool:
        """True when no page failed."""
        return self.pages_failed == 0

    @property
    def findings(self) -> int:
        """Total findings of the range."""
        return sum(self.findings_by_rule.values())


class _Scanner:
    """One scan's state; see :func:`scan`."""

    def __init__(
        self,
        settings: Settings,
        list_name: str,
        since: date,
        until: date,
        *,
        fetch_all: bool,
        offline: bool,
        progress: ProgressFn | None,
        clock: Clock,
        store: Store | None,
        archive: Any,
        rules: Sequence[Any] | None,
        set_cursor: bool = True,
        retry_failed: bool = True,
    ) -> None:
        from reviewbot.fetch import openwall

        self.settings = settings
        self.list_name = openwall.validate_list_name(list_name)
        self.since, self.until = since, until
        self.fetch_all = fetch_all
        self.progress = progress
        self.clock = clock
        self.own_store = store is None
        self.store = store if store is not None else Store(settings.db_path)
        if archive is None:
            archive = open_archive(settings, offline=offline, clock=clock)
        self.archive = archive
        self.rules = rules
        self.set_cursor = set_cursor
        self.retry_failed = retry_failed
        base = settings.base_url.rstrip("/")
        # URLs of this base only: pages stored from another base (a mirror, the live site) say
        # nothing about what this base has served, and their links are not this base's links
        self.known: dict[str, str] = {
            u: m for u, m in self.store.known_urls(self.list_name).items() if u.startswith(base + "/")
        }
        self.walk = ArchiveWalk(
            settings,
            self.list_name,
            since,
            until,
            fetch_all=fetch_all,
            archive=archive,
            fetch_log=self.store,
            known=self.known,
            clock=clock,
        )
        self.stored = 0
        self.skipped = 0
        # message URLs this run counted as stored or already stored: a reply reached again through its
        # thread on a later run counts as already stored, as the first run counted it as stored
        self.counted: set[str] = set()
        self.days = 0
        self.threads_followed = 0
        self.patch_cache: dict[str, Patch] = {}

    def process_message(self, url: str, ahead: Future | None = None) -> str | None:
        """Fetch, parse and store one message page (skipped when stored); returns its Message-ID.

        ``ahead`` is the page's fetch started earlier by :meth:`ArchiveWalk.fetch_ahead`.
        """
        if url in self.known:
            if url not in self.counted:  # once per run, however often the scan comes to it
                self.counted.add(url)
                self.skipped += 1
            self.walk.ok(url)
            return self.known[url]
        raw = self.walk.message_page(url, ahead)
        if raw is None:
            return None
        from reviewbot.parse.mail import parse_message
        from reviewbot.parse.patch import parse_patch

        try:
            message = parse_message(raw)
        except ParseError as exc:
            self.walk.fail(url, "message", f"cannot parse the message: {exc.message}")
            return None
        patch: Patch | None = None
        if message.subject.is_patch:
            try:
                patch = parse_patch(message)
            except ParseError as exc:
                log.warning("%s: patch not parsed: %s", url, exc)
        seen_before = bool(message.message_id) and self.store.has_message(message.message_id)
        with self.store.transaction():
            key = self.store.put_message(message, shipped=url in self.walk.shipped_urls)
            if patch is not None:
                self.store.put_patch(patch)
            self.store.page_ok(url)
        self.walk.recovered_now(url)
        if patch is not None and len(self.patch_cache) < PATCH_CACHE_MAX:
            self.patch_cache[key] = patch
        self.known[url] = key
        self.counted.add(url)
        if seen_before:  # stored earlier from another URL or base: not new (counted by Message-ID)
            self.skipped += 1
        else:
            self.stored += 1
        return key

    # ------------------------------------------------------------------ threads
    def assign_thread_ids(self) -> None:
        """thread_id of every stored message of the list, from the thread-prev chains."""
        links = self.store.thread_links(self.list_name)
        by_url = {url: (mid, prev) for url, mid, prev, _tid in links}
        for url, mid in self.known.items():  # duplicate URLs of one Message-ID
            if url not in by_url:
                stored = self.store.message_row(mid)
                by_url[url] = (mid, stored.message.thread_prev_url if stored else None)
        from reviewbot.review import chain_roots

        root = chain_roots(by_url)

        mapping = {mid: root[url] for url, mid, _prev, _tid in links}
        changed = self.store.set_thread_ids({m: t for m, t in mapping.items()})
        if changed:
            log.debug("thread ids changed for %d messages", changed)

    # ------------------------------------------------------------------ checking
    def _load_rules(self) -> Sequence[Any]:
        if self.rules is None:
            from reviewbot.registry import load_rules

            self.rules = load_rules(
                rules_dirs=self.settings.rules_dirs, select=self.settings.select, ignore=self.settings.ignore
            )
        return self.rules

    def _patch(self, mid: str, stored: StoredMessage | None, *, keep: bool = False) -> Patch | None:
        """The Patch of a stored message: parsed during this scan (then dropped unless ``keep``) or re-parsed
        from ``stored`` (loaded only for the patches not kept)."""
        if mid in self.patch_cache:
            return self.patch_cache[mid] if keep else self.patch_cache.pop(mid)
        if stored is None:
            return None
        try:
            patch = patch_from_row(stored)
        except ParseError as exc:
            log.warning("%s: patch not parsed: %s", mid, exc)
            return None
        if keep and len(self.patch_cache) < PATCH_CACHE_MAX:
            self.patch_cache[mid] = patch
        return patch

    def check(self, *, patches_only: bool = False) -> tuple[int, int, set[str]]:
        """Run the rules on the range's patches and store their findings.

        With ``patches_only`` the thread context holds only the patches (no
        replies) and nothing is stored: that run picks the threads whose
        replies are fetched, from patches alone, so an interrupted and resumed
        scan picks the same threads as an uninterrupted one.
        Returns (patches checked, rule failures, thread ids with findings).
        """
        from reviewbot.review import review

        rules = self._load_rules()
        ids = self.store.patch_ids(self.list_name, self.since, self.until)
        arrival_of = {mid: i for i, (mid, _tid) in enumerate(ids)}
        thread_ids = dict(ids)
        by_thread: dict[str, list[str]] = {}
        for mid, tid in ids:
            by_thread.setdefault(tid or mid, []).append(mid)
        checked = failures = 0
        with_findings: set[str] = set()
        now = self.clock()
        # whole threads per batch (series live inside threads), a bounded number of patches in memory
        batch: list[str] = []
        batches: list[list[str]] = []
        for mids in by_thread.values():
            batch.extend(mids)
            if len(batch) >= CHECK_BATCH:
                batches.append(batch)
                batch = []
        if batch:
            batches.append(batch)
        for batch in batches:
            patches: dict[str, Patch] = {}
            thread_of: dict[str, str] = {}
            # messages are loaded from the store only where this scan has not kept their Patch
            stored = {s.message_id: s for s in self.store.message_rows([m for m in batch if m not in self.patch_cache])}
            for mid in sorted(batch, key=arrival_of.__getitem__):
                p = self._patch(mid, stored.get(mid), keep=patches_only)
                if p is not None:
                    patches[p.message_id] = p
                    thread_of[p.message_id] = thread_ids[mid] or p.message_id
            # the review's input: each thread's stored messages in arrival order, the range's patches as Patch
            # (the rest is context); a patch without a stored thread on its own
            messages: list[Patch | Message] = []
            placed: set[str] = set()
            for tid in dict.fromkeys(thread_of.values()):
                members = [mid for mid, is_patch in self.store.thread_member_ids(tid) if is_patch or not patches_only]
                context = {
                    s.message_id: s.message for s in self.store.message_rows([m for m in members if m not in patches])
                }
                for mid in members:
                    placed.add(mid)
                    messages.append(patches[mid] if mid in patches else context[mid])
                    thread_of.setdefault(mid, tid)
            messages.extend(p for mid, p in patches.items() if mid not in placed)
            run = review(
                messages,
                rules,
                strict=self.settings.strict,
                per_path_ignores=self.settings.per_path_ignores,
                threads=thread_of,
                options={"btf": str(self.settings.btf)} if self.settings.btf else None,  # RB101's maps
            )
            arrival = {mid: i for i, mid in enumerate(patches)}
            # stored in arrival order (one finding fingerprint, one row: the last patch that has it keeps it)
            for reviewed in sorted(run, key=lambda r: arrival[r.patch.message_id]):
                findings, fails = reviewed.report.findings, reviewed.report.failures
                checked += 1
                failures += len(fails)
                if findings:
                    with_findings.add(reviewed.thread_id)
                if not patches_only:
                    self.store.replace_findings(reviewed.patch.message_id, findings, fails, now=now)
            if patches_only:
                continue
            with self.store.transaction():  # every patch and cover letter of a series, reviewed or not
                for mid in patches:
                    series = run.series.get(mid)
                    first = series.cover or (series.patches[0] if series.patches else None) if series else None
                    if series is not None and first is not None:
                        self.store.set_series_key(mid, f"v{series.version}:{first.message_id}")
        return checked, failures, with_findings

    def follow_threads(self, thread_ids: Iterable[str]) -> set[str]:
        """Fetch the replies reachable by ``[thread-next>]`` from the patches of these threads."""
        touched: set[str] = set()
        for tid in sorted(thread_ids):
            members = self.store.thread_member_ids(tid)
            first = self.store.message_row(members[0][0]) if members else None
            if first is None:
                continue
            touched.add(tid)
            self.threads_followed += 1
            url = self.walk.here(first.message.archive_url)
            seen: set[str] = set()
            steps = 0
            while url and url not in seen and steps < MAX_THREAD_FOLLOW:
                seen.add(url)
                steps += 1
                mid = self.process_message(url)  # a stored reply: counted as already stored, not fetched
                if mid is None:
                    break
                stored = self.store.message_row(mid)
                url = self.walk.here(stored.message.thread_next_url, stored.message.archive_url) if stored else None
        return touched

    # ------------------------------------------------------------------ run
    def run(self) -> ScanSummary:
        # 1. what failed last time, first
        for row in self.store.failed_pages(self.list_name) if self.retry_failed else ():
            if row.kind == "message" and self.walk.on_archive(row.url):
                self.process_message(row.url)
        # 2./3. the range
        plan = self.walk.day_plan()
        total = len(plan)
        for (i, day, url), ahead in self.walk.fetch_ahead(self.walk.plan_urls(plan)):
            if url is not None:
                self.process_message(url, ahead)
                continue
            self.days += 1
            if self.progress:
                self.progress(i, total, day.isoformat())
        # 4./5. threads, series, rules
        self.assign_thread_ids()
        # 6. replies of threads where the patches alone give findings (default mode; --all has them)
        if not self.fetch_all:
            _n, _f, with_findings = self.check(patches_only=True)
            before = self.stored
            self.follow_threads(with_findings)
            if self.stored != before:
                self.assign_thread_ids()
        checked, _failures, _with = self.check()
        # cursor: the last final day of a range scanned without failure
        # and never past a day whose pages were not read (an offline copy that ends months ago)
        read_through = self.walk.read_through
        if not self.walk.errors and self.set_cursor and read_through is not None and read_through >= self.since:
            last_final = self.clock().astimezone(timezone.utc).date() - timedelta(days=self.settings.mutable_days)
            self.store.set_cursor(self.list_name, min(self.until, last_final, read_through))
        stats = getattr(self.archive, "stats", None)
        requests = int(getattr(stats, "requests", 0)) if stats is not None else 0
        rf = self.store.rule_failure_count(self.list_name, self.since, self.until)
        return ScanSummary(
            list_name=self.list_name,
            since=self.since,
            until=self.until,
            fetch_all=self.fetch_all,
            days=self.days,
            pages_fetched=self.walk.fetched,
            pages_from_cache=self.walk.from_cache,
            pages_failed=len(self.walk.errors),
            requests=requests,
            messages_stored=self.stored,
            messages_skipped=self.skipped,
            patches=checked,
            findings_by_rule=self.store.finding_counts(self.list_name, self.since, self.until),
            errors=tuple(sorted(self.walk.errors.items())),
            rule_failures=rf,
            pages_recovered=self.walk.recovered,
            threads_followed=self.threads_followed,
            host_unreachable=getattr(self.archive, "unreachable", None) is not None,
            pages_from_shipped=len(self.walk.shipped_urls),
        )

    def close(self) -> None:
        if self.own_store:
            self.store.close()


def scan(
    settings: Settings,
    list_name: str,
    since: date,
    until: date,
    *,
    fetch_all: bool = False,
    offline: bool = False,
    progress: ProgressFn | None = None,
    clock: Clock | None = None,
    store: Store | None = None,
    archive: Any = None,
    rules: Sequence[Any] | None = None,
    set_cursor: bool = True,
    retry_failed: bool = True,
) -> ScanSummary:
    """Scan ``list_name`` from ``since`` to ``until`` (inclusive, arrival days) into the store.

    ``fetch_all`` fetches every message (else patches plus the replies of
    threads with findings); ``offline`` never uses the network (cache only).
    ``progress(done_days, total_days, day)`` is called after each day.
    ``clock`` returns "now" in UTC (what pages are final; finding stamps).
    ``store``/``archive``/``rules`` may be passed in (else opened from
    ``settings``: ``db_path``, the archive with its cache, the rules with
    ``select``/``ignore``). ``set_cursor``: move the list's cursor to the
    last final day of the range when no page failed (cron turns it off after
    a failed day, so the cursor never passes it); ``retry_failed``: first
    retry the message pages that failed before (cron does it once per run).
    Failures of single pages are recorded and
    returned in the summary, never raised. Raises UsageError for a bad list
    name or range, StoreError for an unusable database, RuleLoadError for
    broken rules.
    """
    from reviewbot.errors import UsageError

    if until < since:
        raise UsageError(f"--until {until} is before --since {since}")
    scanner = _Scanner(
        settings,
        list_name,
        since,
        until,
        fetch_all=fetch_all,
        offline=offline,
        progress=progress,
        clock=clock or system_clock,
        store=store,
        archive=archive,
        rules=rules,
        set_cursor=set_cursor,
        retry_failed=retry_failed,
    )
    try:
        return scanner.run()
    finally:
        scanner.close()


def review_range(
    settings: Settings,
    list_name: str,
    since: date,
    until: date,
    *,
    store: Store,
    rules: Sequence[Any] | None = None,
    clock: Clock | None = None,
) -> tuple[int, int]:
    """Review what is stored for ``list_name`` from ``since`` to ``until``: the scan's last step alone.

    For messages stored by another source (lore's git epochs, with real
    In-Reply-To/References and thread ids already set): series grouping and
    the rules for every patch of the range, findings stored as a scan does.
    Returns (patches checked, rule failures).
    """
    scanner = _Scanner(
        settings,
        list_name,
        since,
        until,
        fetch_all=True,
        offline=True,
        progress=None,
        clock=clock or system_clock,
        store=store,
        archive=False,
        rules=rules,
    )
    checked, failures, _with = scanner.check()
    return checked, failures
