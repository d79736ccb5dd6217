"""Which stored patch submissions are revisions of one patch.

A maintainer sees ``[PATCH v3 2/5] foo: bar``, ``[PATCH 02/10] foo: bar [ver #3]``, ``[PATCH RESEND]
foo: bar`` and a series re-posted under a new cover letter as the same patch posted again. Two
submissions are linked (named steps, each a reason a person would give):

1. **same author, same title**: the From address (or name) is the same and the normalised titles
   are equal (:func:`normalised_title`: case, spaces, a trailing ``[ver #N]``/``[vN]``/``[RESEND]``
   and a final full stop do not count);
2. **same author, same code**: the titles share words and most of the changed lines are the same
   (:func:`same_code`; a good part of them when the titles are nearly the same), so a subject renamed between versions (``ibnbd: client: ...`` ->
   ``rnbd: client: ...`` -> ``block/rnbd: client: ...``) still links; names that appear on one side
   only (the renamed prefix) are read as one placeholder;
2b. **same author, the code carried into a new version under a new subject**: a patch posted alone and
   split into a series for v2 (``HQspinlock - (NUMA-aware) Hierarchical Queued spinlock`` ->
   ``[RFC PATCH v2 1/5] kernel: introduce Hierarchical Queued spinlock``), or grown by a few changes
   (``io_uring: Optimize and improve the hot path`` -> v2 ``... SQ tail and CQ head handling``): the
   version numbers differ, the titles share two words after the subsystem prefix and nearly all of the smaller side's changed lines
   are on the other side (:func:`carried_code`);
3. **same organisation, same code**: a series taken over by a colleague (dm-vdo v2 by one author,
   v4 by another at the same mail domain): the titles share words and the changed lines are nearly
   all the same.

Links are followed transitively (v4 -> v6 -> v7 even when v4 and v7 alone are too far apart).
Cover letters carry no diff: they link by step 1 only. Revisions are returned in posting order.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from reviewbot.store.rows import Submission

__all__ = ["normalised_title", "changed_lines", "same_code", "carried_code", "revisions_of", "title_words"]

#: Share of the larger side's changed lines that must match: same author / same mail domain only.
SAME_AUTHOR_LINES = 0.5
SAME_DOMAIN_LINES = 0.75
#: Same author and a title nearly the same (this share of words): a good part of the code suffices
#: (blk-crypto v5 -> v7: the fallback split into its own file, the title gained "-fallback").
CLOSE_TITLE_WORDS = 0.75
CLOSE_TITLE_LINES = 0.35
#: Share of title words (Jaccard) two titles must have in common before their code is compared.
TITLE_WORDS_SHARED = 0.45
#: Fewer significant changed lines than this: a small patch. Two small patches of one author are one
#: patch only when nearly all their lines are the same (SMALL_LINES); of two authors, never.
MIN_LINES = 8
SMALL_LINES = 0.8
#: Fewer than this: too little code to compare at all.
TINY_LINES = 3
#: Step 2b (another version, the subject renamed): share of the smaller side's changed lines found on
#: the other side, and the title words the two must share.
CARRIED_LINES = 0.75
CARRIED_TITLE_WORDS = 2

_TRAILING = re.compile(r"(?:\s*\[\s*(?:(?:ver(?:sion)?\s*#?\s*|v)\d+|resend)\s*\])+\s*$", re.IGNORECASE)
_LEADING = re.compile(r"^(?:\s*\[[^\]]*\]\s*)+")  # bracket groups left in a stored title ("[PATCH] x")
_TOKEN = re.compile(r"[A-Za-z0-9]+")
#: Words that say nothing about which patch a title names.
_TITLE_STOP = frozenset(
    {
        "a",
        "an",
        "the",
        "of",
        "for",
        "to",
        "in",
        "on",
        "and",
        "or",
        "with",
        "add",
        "fix",
        "use",
        "from",
        "by",
        "into",
        "as",
        "at",
        "is",
        "be",
        "it",
        "support",
    }
)


def normalised_title(title: str) -> str:
    """The title as a person compares it: lower case, spaces collapsed, without version tags left at
    the end (``[ver #3]``, ``[v2]``, ``[RESEND]``) or brackets at the start, without a final full stop."""
    t = _LEADING.sub("", " ".join((title or "").split()))
    t = _TRAILING.sub("", t).strip().rstrip(".").strip()
    return t.lower()


def title_words(title: str) -> set[str]:
    """The words of a normalised title that name something (``dm vdo: add the recovery journal`` ->
    dm, vdo, recovery, journal)."""
    return {w for w in _TOKEN.findall(normalised_title(title)) if w not in _TITLE_STOP}


def _summary_words(title: str) -> set[str]:
    """The title words after the subsystem prefix (``io_uring: optimize and improve the hot path`` ->
    optimize, improve, hot, path); the whole title when it has no prefix."""
    t = normalised_title(title)
    return {w for w in _TOKEN.findall(t.rsplit(": ", 1)[-1]) if w not in _TITLE_STOP}


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def changed_lines(body: str) -> list[tuple[str, ...]]:
    """The added and removed lines of a patch mail, each as its tuple of words (identifiers split at
    ``_``), without trivial lines (fewer than three words)."""
    out: list[tuple[str, ...]] = []
    in_diff = False
    for line in (body or "").splitlines():
        if line.startswith("diff --git ") or line.startswith("@@ "):
            in_diff = True
            continue
        if not in_diff or line.startswith(("+++ ", "--- ")) or line == "-- ":
            continue
        if line[:1] in ("+", "-"):
            words = tuple(_TOKEN.findall(line[1:]))
            if len(words) >= 3:
                out.append((line[0], *words))
    return out


def _placeholders(a: list[tuple[str, ...]], b: list[tuple[str, ...]]) -> tuple[Counter[tuple[str, ...]], ...]:
    """Both sides' lines with the words used on one side only read as one placeholder ``?``; lines left
    with fewer than three real words are not counted."""
    shared = {w for line in a for w in line[1:]} & {w for line in b for w in line[1:]}

    def norm(lines: list[tuple[str, ...]]) -> Counter[tuple[str, ...]]:
        out: Counter[tuple[str, ...]] = Counter()
        for line in lines:
            words = tuple(w if w in shared else "?" for w in line[1:])
            if sum(1 for w in words if w != "?") >= 3:
                out[(line[0], *words)] += 1
        return out

    return norm(a), norm(b)


def carried_code(a: list[tuple[str, ...]], b: list[tuple[str, ...]]) -> float:
    """Share of the smaller side's changed lines found on the other side (0..1): the part of a patch
    carried into a larger or split one. 0 when the smaller side has fewer than MIN_LINES lines."""
    na, nb = _placeholders(a, b)
    small = min(sum(na.values()), sum(nb.values()))
    if small < MIN_LINES:
        return 0.0
    return sum((na & nb).values()) / small


def same_code(a: list[tuple[str, ...]], b: list[tuple[str, ...]], min_lines: int = MIN_LINES) -> float:
    """Share of the larger side's changed lines found on the other side (0..1).

    Words used on one side only (a prefix renamed between versions: ``ibnbd`` -> ``rnbd``) are read as
    one placeholder, so ``ibnbd_clt_get_dev()`` and ``rnbd_clt_get_dev()`` are the same line. A line
    left with fewer than three real words is not counted."""
    if len(a) < min_lines or len(b) < min_lines:
        return 0.0
    na, nb = _placeholders(a, b)
    size = max(sum(na.values()), sum(nb.values()))
    if size < min_lines:
        return 0.0
    return sum((na & nb).values()) / size


def _domain(email: str) -> str:
    return email.rsplit("@", 1)[-1] if "@" in email else ""


def revisions_of(store: Any, message_id: str, cache: dict[str, Any] | None = None) -> list[Submission]:
    """The stored submissions of the patch ``message_id`` (itself included), oldest first. Empty when
    ``message_id`` is not a stored patch."""
    me = store.submission_row(message_id)
    if me is None or not normalised_title(me.title):
        return []
    email, name = me.from_email.lower(), me.from_name.lower()
    domain = _domain(email)
    pool: list[Submission] = []
    bodies: dict[str, str] = {}
    for sub, body in store.submissions_by(email, name, domain):
        pool.append(sub)
        bodies[sub.message_id] = body
    lines_cache: dict[str, list[tuple[str, ...]]] = cache.setdefault("lines", {}) if cache is not None else {}

    def lines_of(r: Submission) -> list[tuple[str, ...]]:
        if r.message_id not in lines_cache:
            lines_cache[r.message_id] = changed_lines(bodies.get(r.message_id, ""))
        return lines_cache[r.message_id]

    def score(x: Submission, y: Submission) -> float:
        """How surely ``y`` is another revision of ``x``: 2 for step 1, the share of same lines for
        steps 2 and 3, 0 when not linked."""
        if x.series_key and x.series_key == y.series_key:
            return 0.0  # two patches of one posted series are two patches, not two revisions
        same_author = bool(x.from_email.lower() == y.from_email.lower() and x.from_email) or bool(
            x.from_name.lower() == y.from_name.lower() and x.from_name
        )
        if same_author and normalised_title(x.title) == normalised_title(y.title):
            return 2.0  # step 1
        if x.index == 0 or y.index == 0:
            return 0.0  # a cover letter has no code to compare
        words = _jaccard(title_words(x.title), title_words(y.title))
        if words < TITLE_WORDS_SHARED:
            return _carried(x, y) if same_author else 0.0  # step 2b
        sx, sy = x.changed, y.changed
        if not sx or not sy or max(sx, sy) > 3 * min(sx, sy):
            return 0.0  # one is several times the other: not the same patch
        lx, ly = lines_of(x), lines_of(y)
        share = same_code(lx, ly, TINY_LINES if same_author else MIN_LINES)
        if same_author and min(len(lx), len(ly)) < MIN_LINES:
            need = SMALL_LINES  # a few lines: nearly all the same
        elif same_author:
            need = CLOSE_TITLE_LINES if words >= CLOSE_TITLE_WORDS else SAME_AUTHOR_LINES
        else:
            need = SAME_DOMAIN_LINES
        return share if share >= need else 0.0  # steps 2 and 3

    def _carried(x: Submission, y: Submission) -> float:
        """Step 2b: another version (the numbers differ) under a renamed subject sharing two words, nearly
        all of the smaller side's lines on the other side."""
        if (x.version or 1) == (y.version or 1):
            return 0.0
        if len(_summary_words(x.title) & _summary_words(y.title)) < CARRIED_TITLE_WORDS:
            return 0.0  # "nvme-pci: ..." and "nvme-pci: ..." share only the subsystem
        share = carried_code(lines_of(x), lines_of(y))
        return share if share >= CARRIED_LINES else 0.0

    me_full = next((r for r in pool if r.message_id == message_id), None)
    if me_full is None:
        return []
    group = {message_id: me_full}
    todo = [me_full]
    while todo:
        cur = todo.pop()
        # at most one patch of each other posting is the revision of ``cur``: the one that fits best
        best: dict[str, tuple[float, Submission]] = {}
        taken = {g.series_key or g.message_id for g in group.values()}
        for r in pool:
            key = r.series_key or r.message_id
            if r.message_id in group or key in taken:
                continue  # one revision per posting: a series posted again holds the patch once
            sc = score(cur, r)
            if sc > 0 and sc > best.get(key, (0.0, r))[0]:
                best[key] = (sc, r)
        for _, r in best.values():
            if r.message_id not in group:
                group[r.message_id] = r
                todo.append(r)
    # posting order, not the version number: an [RFC PATCH v4] may be followed by a [PATCH] (v1)
    return sorted(group.values(), key=lambda r: (r.day or "", r.seq or 0, r.version or 1, r.message_id))
