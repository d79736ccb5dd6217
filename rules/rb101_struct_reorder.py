"""RB101 struct-reorder-without-cacheline-comment: struct members moved for cache behaviour, layout not documented.

What it does
------------
Finds struct/union members that the patch removes and re-adds at another
position of the same struct (same member name; type and whitespace may
change). The struct is found from the hunk header's function context, the
context lines, or a struct opening inside the hunk. The relative order of the
members seen on both sides must differ for it to count as a reorder.

* WARNING when the motivation is cache behaviour: the subject or commit
  message speaks of cache lines, false sharing, contention, hot or read-mostly
  fields, or claims a speed-up (the RB201 claim phrases).
* CHECK (shown with ``--strict`` only) when the text explains the reorder as
  plain packing (holes, padding, struct size) and never mentions caches.
* WARNING as well when no motivation is given at all and the struct gets no
  new comment: a reader cannot tell whether the new order matters. CHECK
  when the text does not speak of caches and the new comments in the struct
  document another grouping (by lock, immutable fields).

The rule is satisfied by a comment *added* inside the struct (or right above
its opening line) that says the layout is cache-line ordered (mentions cache
lines, hot/cold or read-mostly grouping, false sharing, "layout"), or by added
``__cacheline_group_begin()``/``__cacheline_group_end()`` markers. A comment
that only moved with its member does not count. When the struct is marked
``__randomize_layout``, the finding says the order only holds with
``CONFIG_RANDSTRUCT_NONE``.

Why it matters
--------------
A member order chosen for cache lines is invisible in the code: the next
patch that adds a field "where it fits" silently undoes it. A reviewer of a
``struct file`` reorder asked exactly for this: a comment in the struct saying
its members are cache-line optimised.

Example
-------
::

     struct foo_ctx {
    -	struct list_head	list;
     	spinlock_t		lock;
     	atomic_t		refs;
    +	struct list_head	list;

Use instead
-----------
::

     struct foo_ctx {
    +	/*
    +	 * Cache-line ordered: lock and refs are written on every
    +	 * get/put and share the first cache line; read-mostly fields follow.
    +	 */
     	spinlock_t		lock;

Known limits
------------
Reads hunks only: a struct whose opening is outside the hunk and not named by
the hunk header is not recognised, and the layout comment must be visible in
the diff. Members of nested anonymous structs/unions are counted as members of
the outer struct.

References
----------
* Documentation/process/maintainer-netdev.rst (``__cacheline_group`` markers)
* include/linux/cache.h (``__cacheline_group_begin``)
* lore: review of "fs: reorder struct file" asking for a layout comment
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from reviewbot.cutil import STRUCT_OPEN_RE, joined_text, member_names, scan_lines
from reviewbot.models import DiffLine, FileDiff, Finding, Hunk, LineKind, Patch
from reviewbot.rule import RuleContext, RuleMeta, Scope, Severity
from reviewbot.rules.rb201_perf_claim import find_claim

RULE = RuleMeta(
    id="RB101",
    name="struct-reorder-without-cacheline-comment",
    summary="Struct members reordered for cache behaviour without a comment documenting the layout",
    severity=Severity.WARNING,
    scope=Scope.HUNK,
    references=(
        "include/linux/cache.h (__cacheline_group_begin/end)",
        "Documentation/process/maintainer-netdev.rst",
    ),
)

_SECTION_STRUCT_RE = re.compile(r"\b(struct|union)\s+([A-Za-z_]\w*)\s*\{")
_STRUCT_END_RE = re.compile(r"^\}")
_CACHE_MOTIVE_RE = re.compile(
    r"cache[\s-]?lines?|cachelines?|false[\s-]sharing|contend|contention|\bhot\b|read[\s-]mostly|"
    r"cache[\s-]?(?:usage|locality|footprint|miss|misses|friendly|hit)|bounc|\bl[123]\b|"
    r"____cacheline_aligned|__cacheline_group",
    re.IGNORECASE,
)
_LAYOUT_COMMENT_RE = re.compile(
    r"cache[\s-]?lines?|cachelines?|false[\s-]sharing|\bhot\b|\bcold\b|read[\s-]mostly|write[\s-]mostly|"
    r"layout|bounc\w*|same\s+line|frequently\s+(?:accessed|written|used)",
    re.IGNORECASE,
)
_LOCK_GROUP_RE = re.compile(r"\bprotect(?:s|ed)?\b|\block(?:s|ed|ing)?\b|\bmutex\b|\bimmutable\b|\bseriali[sz]ed\b", re.I)
_GROUP_MARKER_RE = re.compile(r"__cacheline_group_(?:begin|end)\s*\(")


@dataclass
class _StructSide:
    """Members of one struct as seen in the hunks, per side, in order."""

    kind: str
    name: str
    old: list[tuple[str, DiffLine]] = field(default_factory=list)
    new: list[tuple[str, DiffLine]] = field(default_factory=list)
    removed: dict[str, DiffLine] = field(default_factory=dict)
    added: dict[str, DiffLine] = field(default_factory=dict)
    added_comments: list[str] = field(default_factory=list)
    removed_comments: list[str] = field(default_factory=list)
    markers: bool = False
    randomized: bool = False
    hunk: Hunk | None = None


def _struct_from_section(section: str) -> tuple[str, str] | None:
    m = _SECTION_STRUCT_RE.search(section or "")
    return (m.group(1), m.group(2)) if m else None


class _Tracker:
    """Which struct a line is in, for one side (old or new) of a hunk."""

    __slots__ = ("current", "depth")

    def __init__(self, current: tuple[str, str] | None) -> None:
        self.current = current
        self.depth = 1 if current else 0

    def feed(self, code: str) -> tuple[str, str] | None:
        """Advance over one line of code; return the struct the line belongs to (None: outside, or an edge)."""
        opening = STRUCT_OPEN_RE.match(code)
        if opening and self.depth == 0:
            if opening.group(2):
                self.current = (opening.group(1), opening.group(2))
                self.depth = 1
            return None
        if self.current is None:
            return None
        opens = code.count("{")
        closes = code.count("}")
        if closes and _STRUCT_END_RE.match(code) and not opens:
            # kernel style: the outer struct closes at column 0, nested ones are indented
            self.current = None
            self.depth = 0
            return None
        self.depth = max(1, self.depth + opens - closes)
        return self.current


# A match lies within one line; it is searched as "\n" + line in "\n" + text (the literal
# "\n" lets the regex jump from line to line instead of testing "^" at every position).
_DECL_NAME_RE = re.compile(
    r"\n[ \t]+(?!return\b|goto\b|break\b|continue\b)[A-Za-z_][^;(=\n]*?\b(\w+)[ \t]*(?:\[[^\]\n]*\][ \t]*)?(?::[ \t]*\w+[ \t]*)?;"
)


def _may_reorder(fd: FileDiff) -> bool:
    """Cheap test: does a declaration-like line leave and come back with the same name in this file's hunks?"""
    removed = joined_text(fd, LineKind.REMOVED)
    if not removed:
        return False
    added = joined_text(fd, LineKind.ADDED)
    names = set(_DECL_NAME_RE.findall("\n" + removed))
    return bool(names) and not names.isdisjoint(_DECL_NAME_RE.findall("\n" + added))


# A line whose code opens a struct (STRUCT_OPEN_RE) has "struct"/"union" and then "{" in its
# text too (the code is the text with comments and literal contents cut out)
_OPEN_HINT_RE = re.compile(r"(?:struct|union)[^\n]*\{")


def _may_open_struct(hunk: Hunk) -> bool:
    """True when a line of the hunk (any side) may open a struct or union."""
    for kind in (LineKind.ADDED, LineKind.REMOVED, LineKind.CONTEXT):
        text = joined_text(hunk, kind)
        if "{" in text and ("struct" in text or "union" in text) and _OPEN_HINT_RE.search(text):
            return True
    return False


def _collect(patch: Patch) -> list[tuple[str, _StructSide]]:
    structs: dict[tuple[str, str], _StructSide] = {}
    order: list[tuple[str, str]] = []
    for fd in patch.files:
        if not fd.path.endswith((".c", ".h")):
            continue
        # a hunk neither inside a struct (by its header) nor able to open one has nothing to track
        if not _may_reorder(fd):
            continue
        hunks = [h for h in fd.hunks if _struct_from_section(h.section) is not None or _may_open_struct(h)]
        for hunk in hunks:
            start = _struct_from_section(hunk.section)
            old_t, new_t = _Tracker(start), _Tracker(start)
            old_scans = scan_lines([d.text for d in hunk.lines if d.kind in (LineKind.CONTEXT, LineKind.REMOVED)])
            new_scans = scan_lines([d.text for d in hunk.lines if d.kind in (LineKind.CONTEXT, LineKind.ADDED)])
            oi = ni = 0
            for dl in hunk.lines:
                if dl.kind is LineKind.MARKER:
                    continue
                if dl.kind is LineKind.ADDED:
                    scan = new_scans[ni]
                    ni += 1
                    where = new_t.feed(scan.code)
                elif dl.kind is LineKind.REMOVED:
                    scan = old_scans[oi]
                    oi += 1
                    where = old_t.feed(scan.code)
                else:
                    scan = new_scans[ni]
                    ni += 1
                    oi += 1
                    where = new_t.feed(scan.code)
                    where_old = old_t.feed(scan.code)
                    where = where or where_old
                code = scan.code
                closing_struct = None
                if where is None:
                    # the struct's own closing line carries its attributes
                    if "__randomize_layout" in code and _STRUCT_END_RE.match(code.strip()):
                        closing_struct = True
                    else:
                        continue
                if closing_struct:
                    for (p, _n), side in structs.items():
                        if p == fd.path and side.hunk is not None and side.hunk is hunk:
                            side.randomized = True
                    continue
                key = (fd.path, f"{where[0]} {where[1]}")
                side = structs.get(key)
                if side is None:
                    side = structs[key] = _StructSide(where[0], where[1], hunk=hunk)
                    order.append(key)
                if "__randomize_layout" in code:
                    side.randomized = True
                if scan.comment and dl.kind is LineKind.ADDED:
                    side.added_comments.append(scan.comment)
                elif scan.comment and dl.kind is LineKind.REMOVED:
                    side.removed_comments.append(scan.comment)
                if dl.kind is LineKind.ADDED and _GROUP_MARKER_RE.search(code):
                    side.markers = True
                names = member_names(code)
                if not names:
                    continue
                member = ",".join(names)
                if dl.kind is not LineKind.ADDED:
                    side.old.append((member, dl))
                if dl.kind is not LineKind.REMOVED:
                    side.new.append((member, dl))
                if dl.kind is LineKind.REMOVED:
                    side.removed.setdefault(member, dl)
                elif dl.kind is LineKind.ADDED:
                    side.added[member] = dl
    return [(path, structs[(path, name)]) for path, name in order]


def _comment_above_struct(patch: Patch, path: str, side: _StructSide) -> list[str]:
    """Added comment lines directly above the struct's opening line, when the hunk shows them."""
    out: list[str] = []
    for fd in patch.files:
        if fd.path != path:
            continue
        for hunk in fd.hunks:
            new = [d for d in hunk.lines if d.kind is not LineKind.REMOVED]
            scans = scan_lines([d.text for d in new])
            for i, scan in enumerate(scans):
                m = STRUCT_OPEN_RE.match(scan.code)
                if m and m.group(2) == side.name:
                    j = i - 1
                    while j >= 0 and not scans[j].code.strip() and scans[j].has_comment:
                        if new[j].kind is LineKind.ADDED:
                            out.append(scans[j].comment)
                        j -= 1
    return out


_PACKING_RE = re.compile(
    r"\bholes?\b|padding|\bpack(?:s|ed|ing)?\b|pahole|\bshrinks?\b|\bsize\s+of\b|\bsizeof\b|"
    r"\d+\s*(?:->|to)\s*\d+\s*bytes|save[sd]?\s+\d+\s*bytes|\bbytes\b",
    re.IGNORECASE,
)


def _motivation(patch: Patch) -> str:
    """``cache`` (the text speaks of cache behaviour), ``packing`` (only of holes/size), or ``unstated``."""
    text = f"{patch.subject.title}\n{patch.commit_message}"
    if _CACHE_MOTIVE_RE.search(text) or find_claim(text):
        return "cache"
    if _PACKING_RE.search(text):
        return "packing"
    return "unstated"


def _heaviest_order(seq: list[int], weight: list[int], skip: int = -1) -> int:
    """Weight of the heaviest increasing subsequence of ``seq`` (old positions in new order), without ``skip``."""
    best: list[int] = []
    total = 0
    for i, v in enumerate(seq):
        if v == skip:
            best.append(0)
            continue
        top = 0
        for j in range(i):
            if seq[j] < v and best[j] > top:
                top = best[j]
        best.append(top + weight[v])
        total = max(total, best[-1])
    return total


def _reordered(
    old_order: list[str], new_order: list[str], candidates: list[str], unedited: set[str] = frozenset()
) -> list[str]:
    """The candidates (members removed and re-added) whose order among the other members changed.

    The members that kept their place are the largest set whose relative order is the
    same on both sides; context members (never removed) weigh more than any number of
    re-added ones, since they cannot have moved. A candidate is moved when some such
    largest set leaves it out: in ``a b c`` -> ``c a b`` with all three re-added only
    ``c`` moved, a swap ``a b`` -> ``b a`` names both, and a member re-added at its old
    place with another type (``struct list_head x;`` -> ``unsigned long x;``) none.
    A candidate in ``unedited`` (re-added with the same text: the author cut and pasted
    the line) is also moved when its order against any other member changed.
    """
    old_pos: dict[str, int] = {}
    for name in old_order:
        old_pos.setdefault(name, len(old_pos))
    seen: set[str] = set()
    seq: list[int] = []
    for name in new_order:
        if name in old_pos and name not in seen:
            seen.add(name)
            seq.append(old_pos[name])
    movable = set(candidates)
    heavy = len(old_pos) + 1
    weight = [0] * len(old_pos)
    for name, pos in old_pos.items():
        weight[pos] = 1 if name in movable else heavy
    full = _heaviest_order(seq, weight)
    new_pos = {old_at: i for i, old_at in enumerate(seq)}

    def inverted(m: str) -> bool:
        a = old_pos[m]
        return any((a < b) != (new_pos[a] < new_pos[b]) for b in new_pos if b != a)

    return [
        m
        for m in candidates
        if (m in unedited and inverted(m)) or _heaviest_order(seq, weight, skip=old_pos[m]) == full
    ]


def _show_removal(
    patch: Patch, path: str, hunk: Hunk | None, added: DiffLine, removed: DiffLine
) -> tuple[Hunk | None, list[int]]:
    """The hunk to quote and extra new-side lines, so a draft shows where a moved member came from.

    The quoter shows one hunk around new-side line numbers, and a re-added line
    together with the removed lines of the same text in that hunk. When the
    member's removal is elsewhere (another hunk, as with ``psi_flags`` moved
    from the end of ``struct task_struct`` to its psi bit fields) or its text
    changed (``unsigned int psi_flags;`` -> ``unsigned psi_flags:5;``), the
    finding names a line next to the removal too (the added line of the same
    change block, else the context line below when the member is among the
    block's last three lines, else the context lines on both sides), and when the removal is
    in another hunk the two hunks are joined into one to quote (its ``@@`` line
    spans both; the quoter marks the gap with ``[...]``).
    """
    if hunk is None:
        return hunk, []
    same_text = " ".join(added.text.split()) == " ".join(removed.text.split())
    home = None
    for fd in patch.files:
        if fd.path == path:
            home = next((h for h in fd.hunks if any(d is removed for d in h.lines)), None)
    if home is None or (home is hunk and same_text):
        return hunk, []
    body = home.lines
    idx = next(i for i, d in enumerate(body) if d is removed)
    after = idx
    while after < len(body) and body[after].kind is LineKind.REMOVED:
        after += 1
    before = idx
    while before >= 0 and body[before].kind is LineKind.REMOVED:
        before -= 1
    neighbours = [body[i] for i in (before, after) if 0 <= i < len(body) and body[i].new_no is not None]
    adjacent_added = [d for d in neighbours if d.kind is LineKind.ADDED]
    if adjacent_added:
        extra = [adjacent_added[0].new_no]  # the quoter shows the whole change block around it
    elif after < len(body) and body[after].new_no is not None and after - idx <= 3:
        # the context line below shows the member and the lines after it in the block; the
        # quote of the joined hunks keeps a [...] cut before it
        extra = [body[after].new_no]
    else:
        extra = [d.new_no for d in neighbours]
    if home is hunk:
        return hunk, extra
    first, last = (hunk, home) if hunk.new_start <= home.new_start else (home, hunk)
    old_len = last.old_start + last.old_len - first.old_start
    new_len = last.new_start + last.new_len - first.new_start
    header = f"@@ -{first.old_start},{old_len} +{first.new_start},{new_len} @@"
    if first.section:
        header += f" {first.section}"
    joined = Hunk(
        header=header,
        old_start=first.old_start,
        old_len=old_len,
        new_start=first.new_start,
        new_len=new_len,
        section=first.section,
        lines=first.lines + last.lines,
    )
    return joined, extra


def check(patch: Patch, ctx: RuleContext) -> Iterable[Finding]:
    """Report each struct whose members were moved without an added cache-line layout comment."""
    if not patch.files:
        return []
    findings: list[Finding] = []
    motive = None
    for path, side in _collect(patch):
        moved = [m for m in side.added if m in side.removed]
        if not moved:
            continue
        common = set(m for m, _ in side.old) & set(m for m, _ in side.new)
        old_order = [m for m, _ in side.old if m in common]
        new_order = [m for m, _ in side.new if m in common]
        if old_order == new_order:
            continue
        # only members whose position among the others changed count as moved: a member
        # removed and re-added in the same place (a type change) is a change, not a move
        candidates = [m for m in moved if m in common]
        unedited = {
            m for m in candidates if " ".join(side.removed[m].text.split()) == " ".join(side.added[m].text.split())
        }
        moved = _reordered(old_order, new_order, candidates, unedited)
        if not moved:
            continue
        removed_text = set(side.removed_comments)
        new_comments = [c for c in side.added_comments if c not in removed_text]
        new_comments += _comment_above_struct(patch, path, side)
        if side.markers or any(_LAYOUT_COMMENT_RE.search(c) for c in new_comments):
            continue
        if motive is None:
            motive = _motivation(patch)
        severity = Severity.CHECK if motive == "packing" else Severity.WARNING
        if motive != "packing" and not _CACHE_MOTIVE_RE.search(f"{patch.subject.title}\n{patch.commit_message}"):
            if any(_LOCK_GROUP_RE.search(c) for c in new_comments) or (motive == "unstated" and new_comments):
                # the new member comments document the grouping (by lock); cache intent is not claimed
                severity = Severity.CHECK
        lines = sorted(side.added[m].new_no for m in moved if side.added[m].new_no is not None)
        first = side.added[moved[0]]
        first_line = lines[0] if lines else first.new_no
        input_lines = [side.added[m].input_line for m in moved if side.added[m].input_line is not None]
        members = [m.replace(",", ", ") for m in moved]
        what = f"{side.kind} {side.name}"
        message = (
            f"{what}: members {', '.join(members)} moved without a comment documenting the cache-line layout"
            if severity is Severity.WARNING
            else f"{what}: members {', '.join(members)} reordered; consider a comment on the intended layout"
        )
        if side.randomized:
            message += " (the struct is __randomize_layout: the order holds only with CONFIG_RANDSTRUCT_NONE)"
        hunk = None
        for fd in patch.files:
            if fd.path == path:
                for h in fd.hunks:
                    if any(d is first for d in h.lines):
                        hunk = h
        shown = next((m for m in moved if side.added[m].new_no == first_line), moved[0])
        hunk, extra = _show_removal(patch, path, hunk or side.hunk, side.added[shown], side.removed[shown])
        lines = sorted(set(lines) | set(extra))
        findings.append(
            RULE.finding(
                patch,
                message,
                severity=severity,
                path=path,
                line=first_line,
                lines=lines,
                input_line=min(input_lines) if input_lines else None,
                hunk=hunk or side.hunk,
                symbol=what,
                details={
                    "struct": what,
                    "members": members,
                    "motivation": motive,
                    "randomize_layout": side.randomized,
                },
            )
        )
    return findings


def reply(findings: Sequence[Finding], patch: Patch) -> str:
    """Ask for a layout comment, as the ``struct file`` reviewer did."""
    parts: list[str] = []
    for f in findings:
        struct = f.details.get("struct", "the struct")
        members = f.details.get("members", [])
        which = ", ".join(members[:4]) + (" ..." if len(members) > 4 else "")
        if f.severity is Severity.CHECK:
            text = (
                f"Would it be worth a short comment in {struct} saying why {which} sit where they do "
                "now, so a later change does not move them back?"
            )
        elif f.details.get("motivation") == "cache":
            text = (
                f"Since the new order of {struct} ({which}) is chosen for cache behaviour, could you add "
                "a comment to the struct saying that its members are cache-line ordered and which fields "
                "are hot or read-mostly? Otherwise the next change that adds a field without thinking "
                "about cache lines will quietly undo this."
            )
        elif f.details.get("motivation") == "unstated":
            text = (
                f"Is the new position of {which} in {struct} meant to matter (cache lines, padding)? If "
                "so, could you say why in the changelog and add a comment to the struct, so a later "
                f"change does not move {'them' if len(members) > 1 else 'it'} back by accident?"
            )
        else:
            text = (
                f"Would it be worth a short comment in {struct} saying why {which} sit where they do "
                "now, so a later change does not move them back?"
            )
        if f.details.get("randomize_layout"):
            text += (
                f" Also, {struct} is __randomize_layout, so as far as I can tell this order only holds "
                "with CONFIG_RANDSTRUCT_NONE; maybe worth mentioning in the changelog."
            )
        parts.append(text)
    return "\n\n".join(parts)


# How reviewers make this point in a thread (reviewbot.rule.point_in_thread): a draft never repeats them.
from reviewbot.rule import ThreadWords  # noqa: E402

THREAD_WORDS = ThreadWords(
    topic=("cache line", "cacheline", "cache-line", "layout", "reorder", "false shar", "__cacheline_group",
           "randstruct", "randomize_layout", "hot field", "read-mostly", "read mostly"),
    asks=("add a comment to the struct", "comment about the layout", "comment explaining the layout",
          "why this order", "cache-line ordered", "cacheline ordered"),
)


def reply_point(findings: Sequence[Finding], patch: Patch) -> str:
    """One paragraph per struct, naming the struct and each moved member once (the drafter prefers it to
    reply()); with __randomize_layout, says the order only holds with CONFIG_RANDSTRUCT_NONE."""
    structs: dict[str, list[Finding]] = {}
    for f in findings:
        structs.setdefault(str(f.details.get("struct", "the struct")), []).append(f)
    parts: list[str] = []
    for struct, fs in structs.items():
        members = list(dict.fromkeys(m for f in fs for m in (f.details.get("members") or ())))
        which = (", ".join(members[:-1]) + f" and {members[-1]}") if len(members) > 1 else \
            (members[0] if members else "these members")
        them = "them" if len(members) > 1 else "it"
        motivation = {f.details.get("motivation") for f in fs}
        if all(f.severity is Severity.CHECK for f in fs):
            text = (f"Would it be worth a short comment in {struct} saying why {which} sit where they do now, "
                    f"so a later change does not move {them} back?")
        elif "cache" in motivation:
            text = (f"Since the new order of {struct} ({which}) is chosen for cache behaviour, could you add a "
                    "comment to the struct saying that its members are cache-line ordered and which fields are "
                    "hot or read-mostly? Otherwise the next change that adds a field without thinking about "
                    "cache lines will quietly undo this.")
        elif "unstated" in motivation:
            text = (f"Is the new position of {which} in {struct} meant to matter (cache lines, padding)? If so, "
                    "could you say why in the changelog and add a comment to the struct, so a later change "
                    f"does not move {them} back by accident?")
        else:
            text = (f"Would it be worth a short comment in {struct} saying why {which} sit where they do now, "
                    f"so a later change does not move {them} back?")
        if any(f.details.get("randomize_layout") for f in fs):
            text += (f" Also, {struct} is __randomize_layout, so this order only holds with "
                     "CONFIG_RANDSTRUCT_NONE; maybe worth saying in the changelog.")
        parts.append(text)
    return "\n\n".join(parts)
