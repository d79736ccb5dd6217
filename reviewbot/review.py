"""The one review pipeline: messages -> threads -> series -> rule context -> rules -> post-filters.

``scan`` (messages stored from the archive), ``check`` (local mail files,
saved archive pages) and ``eval`` (labelled mail) all review through
:func:`review`, so a rule sees the same context whatever the source:

1. **Threads** (:func:`thread_roots`): In-Reply-To/References for mail
   (``parse.threads.assign_threads``); for archive messages, which carry
   neither, the blists ``[<thread-prev]`` chain (:func:`chain_roots`, also
   what ``scan`` stores as ``thread_id``). A caller that already knows the
   threads (scan: from every stored page) passes them in.
2. **Series** (:func:`series_of`): ``[PATCH n/N]`` patches and their 0/N
   cover letter of one thread (``parse.threads.group_series``); ``git
   format-patch`` files written without ``--thread`` by author, version and
   total (:func:`unthreaded_series`); without a 0/N, a thread root by the
   patch's author with no counter and no diff is the cover letter
   (:func:`root_cover`).
3. **Context**, built once per patch: the series, its cover letter, the other
   messages of the thread (replies included) in the order given.
4. **Rules** (``engine.check_patch``: crashes isolated, CHECK only with
   ``strict``, fingerprints).
5. **Post-filters**, once: findings only about lines the archive altered
   (address obfuscation) are dropped; per-path ignores; with
   ``settle=True`` (the author's view, ``check``) a finding the thread already
   answers is dropped (CHECK with ``strict``) and a dismissed one dropped,
   while ``scan`` keeps every state for the store.

Select/ignore are applied when the rules are loaded (``registry.load_rules``).
Every input message is parsed once by the caller: patches and cover letters
come in as :class:`Patch`, other messages (replies) as :class:`Message`.
"""

from __future__ import annotations

import fnmatch
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Mapping, Sequence

from reviewbot.errors import ReviewbotError
from reviewbot.lazylog import get_logger
from reviewbot.models import (
    ALTERED_MARK,
    CheckReport,
    Finding,
    FindingState,
    LineKind,
    Message,
    Patch,
    RuleFailure,
    Series,
    Severity,
    Subject,
)

if TYPE_CHECKING:  # pragma: no cover - typing only
    from reviewbot.registry import LoadedRule

log = get_logger(__name__)  # loads logging only for a record kept (reviewbot.lazylog)

__all__ = [
    "ReviewRun",
    "LaterMessage",
    "Reviewed",
    "Reviewer",
    "chain_roots",
    "drop_altered",
    "is_reviewed",
    "path_ignored",
    "review",
    "root_cover",
    "series_of",
    "settle_states",
    "thread_roots",
    "unthreaded_series",
]


class Reviewed:
    """The review of one patch: its report after the post-filters, its series and thread root.

    A plain class, not a dataclass (whose generated methods are compiled at every start): built by
    :func:`review` and only read; nothing compares or copies one.
    """

    __slots__ = ("patch", "report", "series", "thread_id", "index", "cover")

    def __init__(
        self,
        patch: Patch,
        report: CheckReport,
        series: Series | None,
        thread_id: str,
        index: int = 0,  # position of the patch in the messages given to :func:`review`
        cover: Patch | None = None,  # the cover letter given to the rules (0/N, or a same-author root without it)
    ) -> None:
        self.patch = patch
        self.report = report
        self.series = series
        self.thread_id = thread_id
        self.index = index
        self.cover = cover

    @property
    def findings(self) -> tuple[Finding, ...]:
        return self.report.findings


class ReviewRun:
    """What :func:`review` did: the reviewed patches (in input order), and the threads and series it used.

    ``series`` maps the Message-ID of every patch and cover letter in a series
    (reviewed or not) to it; ``threads`` every message to its thread root.
    Iterating a run gives its :class:`Reviewed` patches.

    A plain class, not a dataclass (whose generated methods are compiled at every start): built once by
    :func:`review` and only read.
    """

    __slots__ = ("reviewed", "series", "threads")

    def __init__(
        self, reviewed: tuple[Reviewed, ...], series: Mapping[str, Series], threads: Mapping[str, str]
    ) -> None:
        self.reviewed = reviewed
        self.series = series
        self.threads = threads

    def __iter__(self) -> Iterator[Reviewed]:
        return iter(self.reviewed)

    def __len__(self) -> int:
        return len(self.reviewed)


class LaterMessage:
    """A reply of a patch's thread that is parsed whole only when a rule reads more than its headers.

    Replies are most of a batch's mail, and a rule reads a reply's body only
    when the reply is about the patch (RB201, for a claim without numbers). So
    a reply read from mail comes with its threading headers and Subject (read
    cheaply from the header block); any other attribute (``body``,
    ``from_addr``...) parses the message then, once, and is read from the
    :class:`Message`. A reply that cannot be parsed reads as one with no
    sender and an empty body. Never a cover letter: only replies come this way.
    """

    __slots__ = ("message_id", "in_reply_to", "references", "subject", "_load", "_source", "_message")
    archive_url = None  # mail, never an archive page (for :func:`thread_roots`)

    def __init__(
        self,
        message_id: str,
        in_reply_to: str | None,
        references: tuple[str, ...],
        subject: Subject,
        load: Callable[[Any], Message | None],
        source: Any = None,
    ) -> None:
        """``load(source)`` parses the whole message (a batch holds thousands of replies: one shared
        function and the raw message each, rather than a closure each)."""
        self.message_id = message_id
        self.in_reply_to = in_reply_to
        self.references = references
        self.subject = subject
        self._load = load
        self._source = source
        self._message: Message | None = None

    @property
    def message(self) -> Message:
        """The whole message, parsed on first use."""
        if self._message is None:
            msg = self._load(self._source)
            if msg is None:
                msg = Message(
                    message_id=self.message_id,
                    subject=self.subject,
                    from_addr=None,
                    date=None,
                    in_reply_to=self.in_reply_to,
                    references=self.references,
                    body="",
                )
            self._message = msg
        return self._message

    def __getattr__(self, name: str) -> Any:  # only for what the slots do not hold
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.message, name)

    def __repr__(self) -> str:
        return f"LaterMessage({self.message_id!r}, parsed={self._message is not None})"


# ------------------------------------------------------------------ threads


def chain_roots(links: Mapping[str, tuple[str, str | None]]) -> dict[str, str]:
    """Thread roots from blists thread-prev links: ``{url: (message_id, prev_url)}`` -> ``{url: root}``.

    The root is the Message-ID of the chain's first message, or the URL of the
    nearest message not in ``links`` (a page not fetched, or a loop): it
    names the thread until that page is known. Linear (memoised).
    """
    root: dict[str, str] = {}
    for url in links:
        chain: list[str] = []
        seen: set[str] = set()
        cur: str | None = url
        result = url
        while cur is not None:
            if cur in root:
                result = root[cur]
                break
            if cur in seen or cur not in links:
                result = cur
                break
            seen.add(cur)
            chain.append(cur)
            mid, prev = links[cur]
            if prev is None:
                result = mid
                break
            cur = prev
        for u in chain:
            root[u] = result
    return root


def _page_key(url: str) -> str:
    """A message page's URL or saved file path, compared with the links of other pages (no ``.html``)."""
    return url[:-5] if url.endswith(".html") else url


def thread_roots(messages: Iterable[Message | LaterMessage]) -> dict[str, str]:
    """Message-ID -> thread root, for mail (In-Reply-To/References) and archive pages (thread-prev links) alike."""
    from reviewbot.parse.threads import assign_threads

    msgs = list(messages)
    roots = assign_threads(msgs)
    pages = [m for m in msgs if m.archive_url and not m.in_reply_to and not m.references]
    if pages:
        links = {
            _page_key(m.archive_url or ""): (m.message_id, _page_key(m.thread_prev_url) if m.thread_prev_url else None)
            for m in pages
        }
        by_url = chain_roots(links)
        for m in pages:
            roots[m.message_id] = by_url[_page_key(m.archive_url or "")]
    return roots


# ------------------------------------------------------------------ series


def sender_of(message: Message) -> str:
    """The author an unthreaded series is grouped by: the sender's address, lower-case ("" for none)."""
    return message.from_addr.email.lower() if message.from_addr else ""


def linked(message: Message) -> bool:
    """True when the message's thread comes from links (In-Reply-To, References, an archive page's links)."""
    return bool(message.in_reply_to or message.references or message.archive_url)


def unthreaded_key(message: Message, subject: Subject, author: str) -> tuple[str, int, int] | None:
    """(author, version, total): the messages of one unthreaded series share it; None for a message that
    cannot be one (:func:`linked`, or without ``n/N`` in its subject)."""
    if linked(message):
        return None
    if subject.total is None or subject.index is None:
        return None
    return (author, subject.version, subject.total)


def unthreaded_series(patches: Sequence[Patch]) -> list[Series]:
    """Series of ``git format-patch`` files written without ``--thread`` (no Message-ID links).

    Such files only say ``[PATCH vV n/N]`` and who wrote them, so the messages
    of one run with the same author, version and total are one series when
    exactly one cover letter (0/N) is among them and no index repeats.
    Archive messages are left out: their threads come from the page links.
    """
    by_key: dict[tuple[str, int, int], list[Patch]] = {}
    for p in patches:
        key = unthreaded_key(p.message, p.subject, sender_of(p.message))
        if key is not None:
            by_key.setdefault(key, []).append(p)
    out: list[Series] = []
    for (_, version, total), members in by_key.items():
        covers = [p for p in members if p.subject.index == 0]
        indexes = [p.subject.index for p in members]
        if len(covers) != 1 or len(set(indexes)) != len(indexes):
            continue
        numbered = sorted((p for p in members if p.subject.index), key=lambda p: p.subject.index or 0)
        have = {p.subject.index for p in numbered}
        missing = tuple(i for i in range(1, total + 1) if i not in have)
        out.append(Series(version=version, total=total, cover=covers[0], patches=tuple(numbered), missing=missing))
    return out


def series_of(patches: Sequence[Patch], roots: Mapping[str, str]) -> dict[str, Series]:
    """Message-ID -> series, for the patches and cover letters given (threaded or unthreaded)."""
    from reviewbot.parse.threads import group_series

    if not patches:
        return {}
    try:
        groups = group_series(patches, roots)
    except ReviewbotError as exc:  # grouping is a help, never a reason to fail the review
        log.info("could not group the patches into series: %s", exc)
        return {}
    out: dict[str, Series] = {}
    for series in groups:
        if series.cover is not None:
            out[series.cover.message_id] = series
        for p in series.patches:
            out[p.message_id] = series
    for merged in unthreaded_series(patches):
        for member in (merged.cover, *merged.patches):
            if member is not None and (member.message_id not in out or out[member.message_id].cover is None):
                out[member.message_id] = merged
    return out


def is_reviewed(patch: Patch) -> bool:
    """True for a patch the rules review: a submission with a diff.

    Not a reply (a reply's diff is a reviewer's suggestion, C09), and either a
    patch by its subject (``[PATCH``, ``[RFC``, a counter) or a mail that
    replies to nothing, or a mail in a thread with an untagged subject whose
    body has format-patch's diffstat. An archive page shows no In-Reply-To, so there only
    the subject can say it is a submission (a ``[tip:...]`` commit notice or a
    reply without ``Re:`` is not).
    """
    if not patch.has_diff:
        return False
    subj = patch.subject
    if subj.is_reply:
        return False
    if subj.is_patch:
        return True
    m = patch.message
    if m.archive_url is not None:
        return False
    if m.in_reply_to is None and not m.references:
        return True
    # a mail in a thread with a plain subject (no Re:, no tags) but the shape git format-patch gives
    # (a diffstat after ``---``) is a patch sent in the thread, as git am and patchwork read it, not a
    # reviewer's suggestion; a tagged notice ("[tip: ...]", "[GIT PULL]") stays unreviewed
    return not subj.tags and bool(patch.diffstat)


def root_cover(patch: Patch, root: Patch | None) -> Patch | None:
    """The thread root (parsed as a Patch) as ``patch``'s cover letter when it is one without a 0/N counter.

    Some authors send the introduction of a series with a plain subject
    ("simplify extent_buffer reading and writing v2") and the patches as
    replies to it. The root counts as the cover letter when it is not the
    patch itself, not a reply, carries no counter and no diff, and comes from
    the patch's author (same address).
    """
    if root is None or root.message_id == patch.message_id or root.has_diff:
        return None
    subj = root.subject
    if subj.is_reply or subj.index is not None or not _same_author(root, patch):
        return None
    return root


def _as_patch(item: Patch | Message | LaterMessage) -> Patch | None:
    """``item`` as a Patch (parsed when it is a Message), or None (a reply given for later, or unparseable)."""
    from reviewbot.parse.patch import parse_patch

    if isinstance(item, Patch):
        return item
    if isinstance(item, LaterMessage):
        return None
    try:
        return parse_patch(item)
    except ReviewbotError:
        return None


def _same_author(a: Patch, b: Patch) -> bool:
    x, y = a.message.from_addr, b.message.from_addr
    return x is not None and y is not None and bool(x.email) and x.email.lower() == y.email.lower()


# ------------------------------------------------------------------ post-filters


def _altered_only(finding: Finding) -> bool:
    """True when every line a diff finding is about was changed by the archive's address obfuscation."""
    if finding.hunk is None or not finding.path:
        return False
    wanted = set(finding.lines or ((finding.line,) if finding.line is not None else ()))
    if not wanted:
        return False
    if not any(ALTERED_MARK in line for line in finding.hunk.body):
        return False  # an altered line holds the archive's mark: a hunk without one (all of a mail's) has none
    about = False  # a line the finding is about, all of them altered so far
    removed = LineKind.REMOVED
    for dl in finding.hunk.lines:
        if dl.kind is not removed and dl.new_no in wanted:
            if not dl.altered:
                return False  # the usual answer, at the first line the finding is about
            about = True
    return about


def drop_altered(report: CheckReport) -> CheckReport:
    """Leave out findings about archive-altered text only (``DiffLine.altered``: ``$@...p`` was ``$@.tmp``).

    Such text is not what the author wrote: a finding on it would ask to fix
    what the archive broke (C17).
    """
    if not any(_altered_only(f) for f in report.findings):
        return report
    return replace(report, findings=tuple(f for f in report.findings if not _altered_only(f)))


def _rule_matches(finding: Finding, selector: str) -> bool:
    """A per-path ignore entry: ``*``/``all``, an id (``RB102``), an id prefix (``RB1``) or a rule name."""
    sel = selector.strip()
    if sel in ("*", "all"):
        return True
    if sel[:2].upper() == "RB" and (sel[2:].isdigit() or sel[2:] == ""):
        return finding.rule_id.startswith(sel.upper())
    return finding.rule_name == sel.lower()


def path_ignored(path: str | None, finding: Finding, ignores: Mapping[str, Sequence[str]]) -> bool:
    """True when a per-path ignore (``{glob: [rules]}``) covers ``finding`` on ``path``."""
    if not path or not ignores:
        return False
    for pattern, rules in ignores.items():
        if fnmatch.fnmatchcase(path, pattern) or fnmatch.fnmatchcase(path, pattern.rstrip("/") + "/*"):
            for rule in rules:
                if _rule_matches(finding, rule):
                    return True
    return False


def settle_states(findings: Iterable[Finding], strict: bool) -> list[Finding]:
    """The author's view of thread state: answered findings dropped (CHECK with ``strict``), dismissed ones dropped.

    A finding the series already answers (``FindingState.ANSWERED``: e.g. the
    numbers RB201 asks for are in the cover letter) is not a problem to fix
    before sending; a maintainer may still want the numbers in the changelog,
    hence CHECK with ``strict``.
    """
    out: list[Finding] = []
    for f in findings:
        if f.state is FindingState.DISMISSED:
            continue
        if f.state is FindingState.ANSWERED:
            if not strict:
                continue
            f = replace(f, severity=Severity.CHECK)
        out.append(f)
    return out


def _post_filter(report: CheckReport, ignores: Mapping[str, Sequence[str]], settle: bool, strict: bool) -> CheckReport:
    report = drop_altered(report)
    findings: Sequence[Finding] = report.findings
    if ignores:
        findings = [f for f in findings if not path_ignored(f.path, f, ignores)]
    if settle:
        findings = settle_states(findings, strict)
    if len(findings) == len(report.findings) and all(a is b for a, b in zip(findings, report.findings)):
        return report
    return replace(report, findings=tuple(findings))


# ------------------------------------------------------------------ the review


def review(
    messages: Sequence[Patch | Message | LaterMessage],
    rules: Sequence["LoadedRule"],
    *,
    strict: bool = False,
    options: Mapping[str, Any] | None = None,
    per_path_ignores: Mapping[str, Sequence[str]] | None = None,
    settle: bool = False,
    threads: Mapping[str, str] | None = None,
) -> ReviewRun:
    """Review every submission among ``messages`` (:func:`is_reviewed`): one :class:`Reviewed` each, in input order.

    ``messages`` are parsed once by the caller: patches and cover letters as
    :class:`Patch`, replies and other messages as :class:`Message` (thread
    context only), or a reply as :class:`LaterMessage` (parsed only if a rule
    reads its body). Replies given as Patch are context too, never reviewed.
    ``threads`` maps Message-ID -> thread root when the caller knows it (scan);
    else :func:`thread_roots` computes it. A cover letter is not reviewed: it
    is the ``cover`` of its series' patches. The thread given to a rule is the
    other messages with the same root, in the order of ``messages``.
    ``settle`` applies :func:`settle_states` (the author's view, ``check``);
    without it findings keep their state (the store keeps them).
    """
    return Reviewer(rules, strict=strict, options=options, per_path_ignores=per_path_ignores, settle=settle)(
        messages, threads
    )


class Reviewer:
    """:func:`review` with its rules and settings fixed, for a caller that reviews a run in parts.

    ``check`` reviews a batch one group of messages at a time (a group holds
    whole threads and series, so each part is reviewed as in one call), and
    lets each part's patches go once their results are taken: a batch then
    never holds every patch's diff at once. Calling it is :func:`review` on
    those messages.
    """

    def __init__(
        self,
        rules: Sequence["LoadedRule"],
        *,
        strict: bool = False,
        options: Mapping[str, Any] | None = None,
        per_path_ignores: Mapping[str, Sequence[str]] | None = None,
        settle: bool = False,
    ) -> None:
        from reviewbot.rule import RuleContext

        self.rules = rules
        self.strict = strict
        self.settle = settle
        self.base = RuleContext(strict=strict, options=dict(options or {}))
        self.ignores = dict(per_path_ignores or {})
        # a bare diff (C18) has no commit message: only the rules that read hunks run on it, as checkpatch.pl does
        self.diff_rules = [r for r in rules if getattr(r.meta.scope, "value", r.meta.scope) == "hunk"]

    def __call__(
        self, messages: Sequence[Patch | Message | LaterMessage], threads: Mapping[str, str] | None = None
    ) -> ReviewRun:
        from reviewbot.engine import check_patch
        from reviewbot.view import PatchView

        rules, strict, settle, ignores, base = self.rules, self.strict, self.settle, self.ignores, self.base
        patches: list[tuple[int, Patch]] = []
        msgs: list[Message | LaterMessage] = []  # each message once, for threads and context
        first: dict[str, Patch | Message | LaterMessage] = {}  # Message-ID -> the item given for it
        for i, item in enumerate(messages):
            msg = item.message if isinstance(item, Patch) else item
            if isinstance(item, Patch):
                patches.append((i, item))
            if msg.message_id in first:
                continue
            first[msg.message_id] = item
            msgs.append(msg)
        roots = dict(threads) if threads is not None else thread_roots(msgs)
        series_by_id = series_of([p for _, p in patches if not p.subject.is_reply], roots)
        by_root: dict[str, list[Message | LaterMessage]] = {}
        for m in msgs:
            by_root.setdefault(roots.get(m.message_id, m.message_id), []).append(m)
        out: list[Reviewed] = []
        root_patches: dict[str, Patch | None] = {}  # thread roots, parsed once
        for index, patch in patches:
            if not is_reviewed(patch):
                continue  # a cover letter (evidence for its series) or a reply (context)
            mid = patch.message_id
            root = roots.get(mid, mid)
            series = series_by_id.get(mid)
            cover = series.cover if series is not None else None
            if cover is None and root in first:
                if root not in root_patches:
                    root_patches[root] = _as_patch(first[root])
                cover = root_cover(patch, root_patches[root])
            ctx = base.with_(
                series=series,
                cover=cover if cover is not None and cover.message_id != mid else None,
                thread=tuple([m for m in by_root.get(root, ()) if m.message_id != mid]),
                view=PatchView(patch),  # made here with the rest: check_patch then copies no context
            )
            try:
                report = check_patch(patch, self.diff_rules if patch.message.bare_diff else rules, ctx)
            except Exception as exc:  # the engine isolates rules; this guards the engine itself
                log.error("%s: checking failed: %s", mid, exc)
                failure = RuleFailure("engine", mid, f"{type(exc).__name__}: {exc}")
                report = CheckReport(patch=patch, findings=(), failures=(failure,))
            out.append(Reviewed(patch, _post_filter(report, ignores, settle, strict), series, root, index, ctx.cover))
        return ReviewRun(tuple(out), series_by_id, roots)
