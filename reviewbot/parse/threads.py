"""Threads and series.

Threads come from In-Reply-To/References (RFC 5322 3.6.4; the same parent
search as the archive's bindex: In-Reply-To, else the References from the
last one backwards). For archive messages, which show neither header, the
caller passes the thread mapping it built from the page's thread links.

A series is an optional cover letter ``[PATCH 0/N]`` plus ``[PATCH n/N]``
patches of one version, in one thread (C10: ``[PATCH1/3]`` forms included).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping
from typing import Protocol

from reviewbot.lazylog import get_logger
from reviewbot.models import Message, Patch, Series

log = get_logger(__name__)  # loads logging only for a record kept (reviewbot.lazylog)

__all__ = ["assign_threads", "group_series", "missing_indexes", "series_root", "MAX_MISSING_LISTED"]

# A series lists at most this many absent indexes (the longest series in the corpus has 330 parts):
# the counter comes from the subject, and ``[PATCH 1/999999]`` must not cost a million entries
# (nor an unthreaded series of n patches, each its own one-patch group, n*n).
MAX_MISSING_LISTED = 512

# git send-email Message-IDs: <date.pid-N-author@host>, N the patch index
_SEND_EMAIL_ID = re.compile(r"^(\d{14}\.\d+)-\d+-(.+)$")


class Threaded(Protocol):
    """What threading reads of a message: its Message-ID and its parents' (a Message, a lazily parsed reply)."""

    @property
    def message_id(self) -> str: ...
    @property
    def in_reply_to(self) -> str | None: ...
    @property
    def references(self) -> tuple[str, ...]: ...


def assign_threads(messages: Iterable[Threaded]) -> dict[str, str]:
    """Map every Message-ID to the Message-ID of its thread's root.

    The root is found by walking to the nearest known ancestor (In-Reply-To
    first, then References from the last one back) until a message has no
    known parent. A message whose parents are all unknown is keyed by the
    earliest id it references (``References[0]``, else In-Reply-To), so that
    replies to a message not in the set still share one thread and a late
    arrival of that message joins it. Cycles are broken. Linear in the
    number of messages (memoised).
    """
    msgs = list(messages)
    by_id: dict[str, Threaded] = {}
    for m in msgs:
        by_id.setdefault(m.message_id, m)
    roots: dict[str, str] = {}

    def parent_of(m: Threaded) -> str | None:
        cands = []
        if m.in_reply_to:
            cands.append(m.in_reply_to)
        cands.extend(reversed(m.references))
        for c in cands:
            if c != m.message_id and c in by_id:
                return c
        return None

    def orphan_key(m: Threaded) -> str:
        if m.references:
            return m.references[0]
        if m.in_reply_to:
            return m.in_reply_to
        return m.message_id

    for m in msgs:
        if m.message_id in roots:
            continue
        chain: list[str] = []
        seen: set[str] = set()
        cur = m
        while True:  # every way out is a break that has set root
            mid = cur.message_id
            if mid in roots:
                root = roots[mid]
                break
            if mid in seen:  # a cycle: the message where it closes is the root
                root = mid
                break
            seen.add(mid)
            chain.append(mid)
            p = parent_of(cur)
            if p is None:
                root = orphan_key(cur)
                break
            cur = by_id[p]
        for mid in chain:
            roots[mid] = root
    return roots


def group_series(patches: Iterable[Patch], threads: Mapping[str, str] | None = None) -> list[Series]:
    """Group patches into :class:`Series`, in order of first appearance.

    Replies (``Re:``) are skipped. Numbered patches and the cover letter of
    one thread, version, counter total and RESEND flag form one series,
    ordered by index, with the absent indexes 1..total in ``missing``. Other
    patch submissions (no counter) form one-patch series. ``threads`` maps
    Message-ID -> thread root (required for archive messages, which have no
    In-Reply-To); without it the threads are computed with
    :func:`assign_threads`. Numbered patches that share no thread but carry
    ``git send-email`` Message-IDs of one run (``<stamp.pid-N-...>``) are
    grouped as well. Of two messages with the same index the first is kept.
    """
    items = [p for p in patches if not p.message.subject.is_reply]
    if threads is None:
        threads = assign_threads(p.message for p in items)
    groups: dict[tuple, list[Patch]] = {}
    order: list[tuple] = []
    singles: list[tuple[int, Series]] = []
    for pos, p in enumerate(items):
        subj = p.message.subject
        if subj.total is None or subj.index is None or subj.index > subj.total:
            if subj.is_patch or p.has_diff:
                singles.append((pos, Series(version=subj.version, total=1, cover=None, patches=(p,))))
            continue
        mid = p.message_id
        key = (series_root(threads.get(mid, mid)), subj.version, subj.total, subj.resend)
        if key not in groups:
            groups[key] = []
            order.append((pos, key))
        groups[key].append(p)
    out: list[tuple[int, Series]] = list(singles)
    for pos, key in order:
        members = groups[key]
        cover = None
        by_index: dict[int, Patch] = {}
        for p in members:
            idx = p.message.subject.index
            assert idx is not None  # grouped above only when numbered
            if idx == 0:
                if cover is None:
                    cover = p
                continue
            if idx in by_index:
                log.debug("duplicate patch %s/%s in %s; keeping the first", idx, key[2], p.message_id)
                continue
            by_index[idx] = p
        total = key[2]
        ordered = tuple(by_index[i] for i in sorted(by_index))
        missing = missing_indexes(by_index, total)
        out.append((pos, Series(version=key[1], total=total, cover=cover, patches=ordered, missing=missing)))
    out.sort(key=lambda t: t[0])
    return [s for _, s in out]


def series_root(root: str) -> str:
    """What numbered patches of one series share: their thread root, or the ``git send-email`` run its
    Message-ID names (``<stamp.pid-N-author@host>``), so patches of one run group threaded or not."""
    m = _SEND_EMAIL_ID.match(root)
    return root if m is None else f"send-email:{m.group(1)}-{m.group(2)}"


def missing_indexes(have: Collection[int], total: int) -> tuple[int, ...]:
    """The indexes 1..``total`` not in ``have``, the first :data:`MAX_MISSING_LISTED` of them.

    Work is bounded by ``len(have)`` plus the cap, whatever ``total`` says.
    """
    out: list[int] = []
    i = 1
    while i <= total and len(out) < MAX_MISSING_LISTED:
        if i not in have:
            out.append(i)
        i += 1
    return tuple(out)


def norm_title(text: str) -> str:
    """A subject title compared loosely: lower case, runs of whitespace as one space."""
    return " ".join(text.lower().split())


def about_patch(msg: Message, patch: Patch) -> bool:
    """True when ``msg`` (another message of the thread) is about ``patch``.

    It is when it replies below the patch (In-Reply-To/References), replies to
    the series' cover letter (0/N, or the message a numbered patch answers when the reply's own
    subject carries no number), or, for archive messages, which carry no
    In-Reply-To/References, when it has the patch's subject title. Used by
    rules and drafting alike to ignore replies to other patches of a series.
    """
    if patch.message_id and (patch.message_id == msg.in_reply_to or patch.message_id in msg.references):
        return True
    if msg.subject.index == 0:
        return True
    parent = patch.message.in_reply_to
    if (
        parent
        and patch.subject.index is not None
        and msg.in_reply_to == parent
        and msg.subject.index is None
        and not msg.subject.is_patch
    ):
        # a reply to the cover letter the patch answers, when the cover's subject has no 0/N
        # ("[PATCH v2] x: series title"): b4's "Applied, thanks! [08/13] ..." or "for all: Reviewed-by"
        return True
    if msg.in_reply_to or msg.references:
        return False  # threaded mail that replies elsewhere in the series
    return bool(patch.subject.title) and norm_title(msg.subject.title) == norm_title(patch.subject.title)
