"""RB101 struct-reorder-without-cacheline-comment: struct members moved for cache behaviour, layout not documented.

What it does
------------
Finds struct/union members that the patch removes and re-adds at another
position of the same struct (same member name; type and whitespace may
change). The struct is found from the hunk header's function context, the
context lines, or a struct opening inside the hunk (a ``struct x {`` at
column 0 starts a new struct even when the hunk header named another). The
relative order of the members seen on both sides must differ for it to count
as a reorder. Members inside a union (whose members share one offset) are not
counted, so members wrapped into an anonymous union (a flexible array beside
the old layout) are no reorder; members split out into a new struct keep their
order and are no reorder either.

Then it reads the changelog as a reviewer does (``_motivation``): the author's
own sentences only (no pahole output, no quoted commit titles, no trailers),
negated sentences dropped (``NEGATIONS``: "no attention was paid to
cacheline placement").

* WARNING when the order is chosen for cache behaviour: a word of
  ``CACHE_WORDS`` (cache lines, false sharing, hot/cold, read-mostly,
  locality, bouncing, "frequently used fields together"), or a speed claim
  (the RB201 claim phrases) in a sentence about the layout.
* CHECK (shown with ``--strict`` only) otherwise: packing (holes, padding,
  size, or a count of cache lines such as "from 19 to 18 cachelines"), or no
  motivation at all (a firmware, hardware or UAPI layout, an incidental move
  while adding a field). A reader cannot tell whether the new order matters;
  the CHECK suggests saying so in the struct.

Which members the finding names (``_named_members``): when the changelog places a
few members by name for cache ("we want ->comp_list in the second cacheline",
"move .bd_inode into the 1st cache line", ``PLACEMENT_VERBS`` up to the
``ANCHOR_PHRASES``), those, not the members that only shift because of it; a
member moved "to make room" (``MAKE_ROOM_PHRASES``) gets no question; a member
marked as going away (``DYING_MARKERS``: "/* will die */") needs no comment.
Members placed by name get a request for a short comment at them (a big struct
such as task_struct is not cache-line ordered as a whole); other cache reorders
a request for a comment on the struct's layout.

The rule is satisfied by layout documentation the patch adds: a comment inside
the struct (or above its opening line, also with ``#define`` lines between)
that says the layout is cache-line ordered (mentions cache lines, hot/cold or
read-mostly grouping, false sharing, "layout"); ``__cacheline_group_begin()``/
``__cacheline_group_end()`` markers (also the ``_aligned`` variants); a member
moved within or into an existing ``struct { ... } ____cacheline_aligned_in_smp;``
group (the groups are the documentation); a new
``____cacheline_aligned`` annotation with a comment of a few words on the
group; or a comment added on each moved member saying why it sits there
("accessed together with sc_qp"). A comment that only moved with its member
does not count. When the struct is marked ``__randomize_layout``, the finding
says the order only holds with ``CONFIG_RANDSTRUCT_NONE``.

The struct's existing documentation counts too (``_documented_by_context``):
a member re-added in a hunk whose unchanged lines show a comment saying where
or why members sit ("hot: read on every submission", "Keep this last, we
don't need it for the fast path"), or anywhere after such a "the rest is cold"
comment (``COLD_SECTION_PHRASES``) outside the aligned groups, is not asked
about; a member removed and re-added inside the same aligned group only
shifted within it and is not named (``_shifted_in_group``).

Userspace code in the tree (``USERSPACE_PATHS``: tools/, selftests) has no
kernel cache-line layout: no finding. Kernel test code (``KERNEL_TEST_PATHS``)
gets one only when the changelog gives a cache reason. When it does, the reply
quotes the reason back ("to avoid spanning cachelines", ``_cache_reason``)
and names every moved member up to five, "and N more" beyond.

With type information configured (``btf = "PATH"`` in the config, ``reviewbot check --btf FILE``: a BTF
blob such as ``/sys/kernel/btf/vmlinux``, or a vmlinux/.o with DWARF), the finding says which members
change cache line ("bd_inode moves from line 1 to line 0, next to bd_dev"), from the struct's layout
before and the one computed after the patch (:mod:`reviewbot.layout`), and its draft quotes the lines
that change; a reorder that moves no member across a line and only fills holes is packing (CHECK).
Where the type information lacks the struct, or the patch's struct is another version of it, nothing
is said about layout.

Why it matters
--------------
A member order chosen for cache lines is invisible in the code: the next
patch that adds a field "where it fits" silently undoes it. A reviewer of a
``struct file`` reorder asked exactly for this: a comment in the struct saying
its members are cache-line optimised.

Example
-------
::

    Subject: [PATCH] foo: keep the refcount next to the lock

    Both are written on every get/put; keep them in one cache line.

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
the diff. Members of nested anonymous structs are counted as members of the
outer struct; a reorder inside a union's arm is not seen. The motivation is
read from English wording (the word lists above); a cache reason given only in
a later reply is not seen. A ``____cacheline_aligned`` annotation is accepted
with any comment of three words or more, whether or not it explains the
cache-line grouping.

The cache-line map needs type information of the tree the patch is written against: where the
struct's unchanged lines are not in the type information's order (another kernel version or
configuration), the type information's struct has members before or after those of a hunk that shows
the struct's opening or closing line, the patch puts members under ``#if``/``#else``, a member's array
length or bit-field width is a ``#define``, or the struct is in a module whose BTF is not given, the
finding says nothing about layout (the reason, when the type information has the struct, is kept in
the finding's details as ``layout_no_map``). ``btf`` may name a directory of a build's ``-g`` objects.

References
----------
* Documentation/process/maintainer-netdev.rst (``__cacheline_group`` markers)
* include/linux/cache.h (``__cacheline_group_begin``)
* lore: review of "fs: reorder struct file" asking for a layout comment
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache
from typing import AbstractSet as Set, Any, Iterable, Iterator, Sequence

from reviewbot import lazyre
from reviewbot.cutil import STRUCT_OPEN_RE, LazyScans, member_names, scan_lines
from reviewbot.view import FileView, HunkView, PatchView, patch_view
from reviewbot.models import (
    EVIDENCE_WHERE_KEY,
    UNSURE_KEY,
    DiffLine,
    FileDiff,
    Finding,
    FindingState,
    Hunk,
    LineKind,
    Patch,
)
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

_SECTION_STRUCT_RE = lazyre.compile(r"\b(struct|union)\s+([A-Za-z_]\w*)\s*\{")
_STRUCT_END_RE = lazyre.compile(r"^\}")

# ------------------------------------------------------------------ word lists
# Each list is what a reviewer reads in the changelog or in the struct. To fix a
# false positive, add a word here and an example patch under rules/examples/RB101/.

#: The changelog says the order is chosen for cache behaviour.
CACHE_WORDS = (
    r"cache[\s-]?lines?",
    r"cachelines?",
    r"false[\s-]sharing",
    r"\bhot(?:ter|test)?\b(?![\[\s-]*(?:un\]?)?plug|[\s-]*(?:add|remove|swap|reset|spare))",  # not hot[un]plug
    r"\bcold(?:er)?\b",
    r"read[\s-]mostly",
    r"cache[\s-]?(?:usage|locality|footprint|miss|misses|friendly|hits?|behaviou?r)",
    r"\b(?:cache|memory|data|spatial|better|improved?|good|poor)\s+locality\b",  # not "locality in looking up"
    r"(?:memory|cache)\s+placement",
    r"bounc(?:e|es|ed|ing)\b",
    r"\bl[123]\b",
    r"(?:commonly|frequently|often)\s+(?:used|accessed|read|written)\s+(?:\w+\s+){0,2}(?:fields|members)?\s*together",
    r"(?:fields|members)\s+(?:\w+\s+){0,3}(?:accessed|used)\s+together",
    r"____cacheline_aligned",
    r"__cacheline_group",
)
_CACHE_MOTIVE_RE = lazyre.compile("|".join(CACHE_WORDS), re.IGNORECASE)

#: A count of cache lines is the struct's footprint (packing), not its cache behaviour:
#: "from 19 to 18 cachelines", "fit within 3 cachelines", "fewer cachelines".
FOOTPRINT_PHRASES = (
    r"(?<!between\s)(?<!across\s)\b\d+\s+cache[\s-]?lines\b",  # not "split between 2 cache lines"
    r"\b(?:fewer|less|more|one\s+less|one\s+fewer)\s+cache[\s-]?lines\b",
    r"cache[\s-]?lines\s*:\s*\d+",
    # "fits in one cache line": the struct's size after closing a hole
    r"\bfits?\s+(?:\w+\s+){0,2}(?:in|into|within)\s+(?:a\s+|one\s+|the\s+)?(?:single\s+)?cache[\s-]?line\b",
)
_FOOTPRINT_RE = lazyre.compile("|".join(FOOTPRINT_PHRASES), re.IGNORECASE)

#: A sentence holding one of these says the layout is NOT about caches.
NEGATIONS = (
    r"\bno\s+attention\b",
    r"\bnothing\s+to\s+do\s+with\b",
    r"\bnot\s+(?:for|about|because\s+of|related\s+to|meant\s+for)\b",
    r"\bno\s+(?:\w+\s+)?(?:impact|effect|change|difference|benefit)\s+(?:on|to|in)\b",
    r"\bregardless\s+of\b",
    r"\b(?:does\s+not|doesn't|did\s+not|didn't)\s+(?:matter|care)\b",
    r"\bnot\s+(?:in\s+)?(?:a|the|any)\s+hot\b",
    r"\bnot\s+(?:performance|speed|cache)[\s-]",
)
_NEGATED_RE = lazyre.compile("|".join(NEGATIONS), re.IGNORECASE)

#: pahole output quoted in a changelog: its "cacheline" words are the tool's, not the author's.
PAHOLE_LINES = (
    r"\bcachelines?\s*:\s*\d",
    r"\bcacheline\s+\d+\s+boundary\b",
    r"\blast\s+cacheline\s*:",
    r"\bXXX\s+\d+\s+bytes?\s+hole",
    r"/\*\s*\d+\s+\d+\s*\*/",
    r"\b(?:members|sum\s+members|holes|padding)\s*:\s*\d",
)
_PAHOLE_LINE_RE = lazyre.compile("|".join(PAHOLE_LINES), re.IGNORECASE)

#: Another commit's title quoted in the changelog, and trailers: the words are not this patch's.
_QUOTED_TITLE_RE = lazyre.compile(r'\b[0-9a-f]{7,40}\s*\(\s*"[^"]*"\s*\)|\("[^"]*"\)', re.IGNORECASE)
_TRAILER_LINE_RE = lazyre.compile(r"^\s*(?:Fixes|Link|Closes|Reported-by|Suggested-by|Cc|[A-Z][a-z]+-by):\s", re.I)

#: The sentence speaks of the struct's layout (a speed claim there is about the new order).
LAYOUT_WORDS = (
    r"\blayout\b",
    r"\breorder",
    r"\brearrang",
    r"\breorgani[sz]",
    r"\bregroup",
    r"\b(?:fields|members)\b",
    r"\bcloser\b",
    r"\bplacement\b",
)
_LAYOUT_SENTENCE_RE = lazyre.compile("|".join(LAYOUT_WORDS), re.IGNORECASE)

#: The layout is explained as packing: holes, padding, the struct's size.
PACKING_WORDS = (
    r"\bholes?\b",
    r"padding",
    r"\bpack(?:s|ed|ing)?\b",
    r"pahole",
    r"\bshrinks?\b",
    r"\bsize\s+of\b",
    r"\bsizeof\b",
    r"\d+\s*(?:->|to)\s*\d+\s*bytes",
    r"save[sd]?\s+\d+\s*bytes",
    r"\bbytes\b",
)
_PACKING_RE = lazyre.compile("|".join(PACKING_WORDS), re.IGNORECASE)

#: A comment in (or right above) the struct that says its layout is deliberate.
LAYOUT_COMMENT_WORDS = (
    r"cache[\s-]?lines?",
    r"cachelines?",
    r"false[\s-]sharing",
    r"\bhot\b",
    r"\bcold\b",
    r"read[\s-]mostly",
    r"write[\s-]mostly",
    r"layout",
    r"bounc\w*",
    r"same\s+line",
    r"frequently\s+(?:accessed|written|used)",
)
_LAYOUT_COMMENT_RE = lazyre.compile("|".join(LAYOUT_COMMENT_WORDS), re.IGNORECASE)

#: An existing comment the moved members are put under, that says why they sit there: "Keep this last,
#: we don't need it for the fast path", "rarely used fields", "slow path only" (the layout is documented).
EXISTING_LAYOUT_COMMENT_WORDS = LAYOUT_COMMENT_WORDS + (
    r"\b(?:fast|hot|slow|cold)[\s-]?paths?\b",
    r"\bkeep\s+(?:this|these|them|it)\s+(?:last|first|at\s+the\s+(?:end|start|top|bottom)|together)\b",
    r"\b(?:rarely|seldom|infrequently|never)\s+(?:used|accessed|touched|read|written)\b",
)
_EXISTING_LAYOUT_COMMENT_RE = lazyre.compile("|".join(EXISTING_LAYOUT_COMMENT_WORDS), re.IGNORECASE)
_COMMENT_LINE_RE = lazyre.compile(r"^\s*(?:/\*+|//|\*)\s*(.*?)\s*(?:\*+/)?\s*$")

#: "It saves a few bytes of memory and is more cache-line friendly": a vague cache word in a sentence about
#: size is a by-product of the packing, not a cache-behaviour motive (the sentence must hold a packing word).
#: ("So reducing its size improves cache usage", said of a struct in its own slab cache, is not listed here yet:
#: the corpus labels that bfq packing patch as a struct_reorder finding, counted only as a WARNING.)
VAGUE_CACHE_PHRASES = (
    r"(?:\bmore\s+)?cache[\s-]?(?:lines?[\s-]?)?friendl(?:y|ier|iness)\b",
    r"\bbetter\s+for\s+(?:the\s+)?cache\b",
)
_VAGUE_CACHE_RE = lazyre.compile("|".join(VAGUE_CACHE_PHRASES), re.IGNORECASE)
_SIZE_SENTENCE_RE = lazyre.compile(r"\bmemory\b|\bbytes?\b|\bsize\b|\bholes?\b|padding|\bshrink", re.IGNORECASE)

#: A comment added on a moved member that says why it sits there ("accessed together", "used with sc_qp").
WHY_HERE_PHRASES = (
    r"\b(?:accessed|used|read|written|touched|updated)\b[^.]*\b(?:together|with|by|during|in|on|alongside)\b",
    r"\bnext\s+to\b",
    r"\bkeep\s+(?:it\s+)?(?:near|close|with)\b",
    r"\bsits?\s+(?:here|with|next)\b",
)
_WHY_HERE_RE = lazyre.compile("|".join(WHY_HERE_PHRASES), re.IGNORECASE)

#: The changelog places a member for cache behaviour ("we want ->comp_list in the second cacheline", "move
#: .bd_inode into the 1st cache line", "put psi_flags together with in_memstall"): the members named after
#: one of these verbs, in a sentence with a cache word, are the ones placed; the finding names them.
PLACEMENT_VERBS = (
    r"\bmov(?:e|es|ed|ing)\b",
    r"\bput(?:s|ting)?\b",
    r"\bplac(?:e|es|ed|ing)\b",
    r"\bkeep(?:s|ing)?\b",
    r"\bwants?\b",
    r"\bbring(?:s|ing)?\b",
    r"\bgroup(?:s|ed|ing)?\b",
)
_PLACEMENT_VERB_RE = lazyre.compile("|".join(PLACEMENT_VERBS), re.IGNORECASE)

#: What a placed member is put next to ("next to ->lock", "together with in_memstall"): the member named
#: after these is the anchor, which stays where it was; it is not named.
ANCHOR_PHRASES = (
    r"\bnext\s+to\b",
    r"\btogether\s+with\b",
    r"\bclose(?:r)?\s+to\b",
    r"\bbeside\b",
    r"\bnear\b",
    r"\balongside\b",
    r"\bwith\b",
)
_ANCHOR_RE = lazyre.compile("|".join(ANCHOR_PHRASES), re.IGNORECASE)

#: The changelog says a member moves only to make room for another ("move ->stats down only to make room
#: for it"): no question about that member.
MAKE_ROOM_PHRASES = (
    r"\bmake\s+(?:some\s+)?(?:room|space|way)\b",
    r"\bout\s+of\s+the\s+way\b",
    r"\bfree\s+up\s+(?:the\s+)?(?:room|space|slot)\b",
)
_MAKE_ROOM_RE = lazyre.compile("|".join(MAKE_ROOM_PHRASES), re.IGNORECASE)

#: A member marked as going away ("/* will die */"): its place needs no layout comment.
DYING_MARKERS = (
    r"\bwill\s+(?:die|go\s+away|be\s+removed)\b",
    r"\bgoing\s+away\b",
    r"\bto\s+be\s+removed\b",
    r"\bdeprecated\b",
    r"\bobsolete\b",
)
_DYING_RE = lazyre.compile("|".join(DYING_MARKERS), re.IGNORECASE)

#: cache-line group markers (also the ``_aligned`` variants) and alignment annotations.
_GROUP_MARKER_RE = lazyre.compile(r"__cacheline_group_(?:begin|end)\w*\s*\(")
_ALIGNED_RE = lazyre.compile(r"\b_{2,4}cacheline_aligned\w*")
_WORD_RE = lazyre.compile(r"[A-Za-z]{2,}")


class _StructSide:
    """Members of one struct as seen in the hunks, per side, in order.

    A plain class, not a dataclass: nothing compares or prints one, and a dataclass's generated methods
    are compiled at every start of ``reviewbot check``."""

    __slots__ = (
        "kind", "name", "old", "new", "removed", "added", "added_comments", "removed_comments",
        "context_comments", "markers", "aligned", "randomized", "hunk",
    )  # fmt: skip

    def __init__(self, kind: str, name: str, hunk: Hunk | None = None) -> None:
        self.kind = kind
        self.name = name
        self.old: list[tuple[str, DiffLine]] = []
        self.new: list[tuple[str, DiffLine]] = []
        self.removed: dict[str, DiffLine] = {}
        self.added: dict[str, DiffLine] = {}
        self.added_comments: list[str] = []
        self.removed_comments: list[str] = []
        #: comments on unchanged lines inside the struct, with their hunk: the layout it already documents
        self.context_comments: list[tuple[Hunk, DiffLine, str]] = []
        self.markers = False
        self.aligned = 0  # ____cacheline_aligned annotations added minus removed
        self.randomized = False
        self.hunk = hunk


def _struct_from_section(section: str) -> tuple[str, str] | None:
    if not section or "{" not in section:  # a function's header, or none: no struct opening
        return None
    m = _SECTION_STRUCT_RE.search(section)
    return (m.group(1), m.group(2)) if m else None


class _Tracker:
    """Which struct a line is in, for one side (old or new) of a hunk.

    Keeps the stack of aggregates opened inside the struct, so a member can be
    told to sit in a union (whose members share one offset: their order is no
    layout). A ``struct x {`` at column 0 always starts a new top-level struct,
    even when the hunk header named another one (the hunk starts after it).
    """

    __slots__ = ("current", "depth", "unions")

    def __init__(self, current: tuple[str, str] | None) -> None:
        self.current = current
        self.depth = 1 if current else 0
        #: depths at which a union was opened (the outer aggregate itself when it is a union)
        self.unions: list[int] = [1] if current and current[0] == "union" else []

    def in_union(self) -> bool:
        return bool(self.unions)

    def passes_over(self, text: str) -> bool:
        """True when a line of ``text`` belongs to no struct and leaves the tracker as it is, without reading its
        code: outside every struct, a line that holds no "{" opens none (a brace of a line's code is one of its
        text). :meth:`feed` would return None for it."""
        return self.current is None and "{" not in text

    def feed(self, code: str) -> tuple[str, str] | None:
        """Advance over one line of code; return the struct the line belongs to (None: outside, or an edge)."""
        opening = STRUCT_OPEN_RE.match(code) if "{" in code else None
        if opening and (self.depth == 0 or (opening.group(2) and code[:1] not in ("", " ", "\t"))):
            if opening.group(2):
                self.current = (opening.group(1), opening.group(2))
                self.depth = 1
                self.unions = [1] if opening.group(1) == "union" else []
            return None
        if self.current is None:
            return None
        opens = code.count("{")
        closes = code.count("}")
        if not opens and not closes:  # the depth and the unions open stay as they are
            return self.current
        if closes and _STRUCT_END_RE.match(code) and not opens:
            # kernel style: the outer struct closes at column 0, nested ones are indented
            self.current = None
            self.depth = 0
            self.unions = []
            return None
        if opens and _NESTED_UNION_RE.match(code):
            self.unions.append(self.depth + 1)
        self.depth = max(1, self.depth + opens - closes)
        while self.unions and self.unions[-1] > self.depth:
            self.unions.pop()
        return self.current


_NESTED_UNION_RE = lazyre.compile(r"^\s*union\b[^;]*\{")


# A declaration-like line and the name it declares. A match lies within one line; it is searched as "\n-" (removed)
# or "\n+" (added) + the line in "\n" + the diff text: the literal start lets the regex jump from line to line of
# that kind instead of testing every position.
_DECL_NAME = r"[ \t]+(?!return\b|goto\b|break\b|continue\b)[A-Za-z_][^;(=\n]*?\b(\w+)[ \t]*(?:\[[^\]\n]*\][ \t]*)?(?::[ \t]*\w+[ \t]*)?;"
_REMOVED_DECL_RE = lazyre.compile(r"\n-" + _DECL_NAME)
_ADDED_DECL_RE = lazyre.compile(r"\n\+" + _DECL_NAME)


def _may_reorder(fd: FileView, hunks: Sequence[HunkView] | None = None) -> bool:
    """The early step: does a declaration-like line leave and come back with the same name in this file's hunks
    (``hunks``: the ones the walk would read, default all)?

    A file whose hunks do not both remove and add a line that can declare the same struct member has nothing
    for RB101: no struct walk, no scan of its lines. The removed lines are searched first (fewer), the added
    ones only when a removed line declares something.
    """
    text = "\n" + "\n".join([hv.diff_text for hv in (fd.hunks if hunks is None else hunks)])
    if "\n-" not in text:
        return False
    removed = set(_REMOVED_DECL_RE.findall(text))
    return bool(removed) and not removed.isdisjoint(_ADDED_DECL_RE.findall(text))


def _may_open_struct(hunk: HunkView) -> bool:
    """True when a line of the hunk (any side) may open a struct or union.

    A line whose code opens one (``STRUCT_OPEN_RE``) has "struct" or "union" and then "{" in its text too
    (the code is the text with comments and literal contents cut out). A ``\\`` marker line is no code.
    Such a line may still be a variable's initialiser (``struct foo_args args = {``): when its text holds no
    comment or literal (no "/" or quote), its code is its text (or nothing, inside a block comment), and the
    text itself must open the struct (:func:`_text_may_open`).
    """
    text = hunk.diff_text
    if "{" not in text:
        return False
    for word in ("struct", "union"):
        at = text.find(word)
        while at >= 0:
            start = text.rfind("\n", 0, at) + 1
            end = text.find("\n", at)
            if end < 0:
                end = len(text)
            if text.find("{", at, end) >= 0 and text[start] != "\\" and _text_may_open(text[start + 1 : end]):
                return True
            at = text.find(word, end)
    return False


def _text_may_open(text: str) -> bool:
    """Can the code of a line of ``text`` open a struct (``STRUCT_OPEN_RE``)? Surely not when the text holds no
    comment or literal its code would cut (no "/" or quote: the code is the text, or nothing) and does not open
    one itself."""
    return "/" in text or '"' in text or "'" in text or STRUCT_OPEN_RE.match(text) is not None


def _reliable_new_start(fv: FileView, hv: HunkView, start: tuple[str, str] | None) -> tuple[str, str] | None:
    """The hunk header's struct for the new side, unless an earlier hunk removed that struct's opening.

    The header comes from the old file: when the patch removed ``struct x {``
    above (splitting members out into a new struct), the new side of later
    hunks is not in ``struct x`` any more.
    """
    if start is None:
        return None
    for earlier in fv.hunks:
        if earlier is hv:
            break
        for text in earlier.removed_texts:
            m = STRUCT_OPEN_RE.match(text) if "{" in text else None
            if m and (m.group(1), m.group(2)) == start:
                return None
    return start


class _Collector:
    """Members of each struct the hunks show, per side, in order (see :class:`_StructSide`).

    A member line counts for the old side in the struct the old side is in and
    for the new side in the struct the new side is in (a context line can be in
    ``struct a`` before the patch and in a new ``struct b`` after it). Members
    inside a union are left out: they share one offset, their order is no layout.
    """

    def __init__(self) -> None:
        self.structs: dict[tuple[str, str], _StructSide] = {}
        self.order: list[tuple[str, str]] = []

    def side_of(self, where: tuple[str, str], hunk: Hunk, path: str) -> _StructSide:
        key = (path, f"{where[0]} {where[1]}")
        side = self.structs.get(key)
        if side is None:
            side = self.structs[key] = _StructSide(where[0], where[1], hunk=hunk)
            self.order.append(key)
        return side

    def result(self) -> list[tuple[str, _StructSide]]:
        return [(path, self.structs[(path, name)]) for path, name in self.order]

    def hunk(self, fv: FileView, hv: HunkView) -> None:
        """Walk one hunk, following which struct each side is in.

        The walk reads each side's texts as the view gives them; a line's code (its scan, as ``scan_lines`` of
        its side gives it) is read only where a tracker needs it: outside every struct, a line that cannot open
        one (:meth:`_Tracker.passes_over`) is passed over unscanned. The hunk's DiffLines are read only for a
        line the walk records.
        """
        fd, hunk = fv.diff, hv.hunk
        start = _struct_from_section(hunk.section)
        old_t, new_t = _Tracker(start), _Tracker(_reliable_new_start(fv, hv, start))
        old_texts, new_texts = hv.old_texts, hv.new_texts
        old_scans = LazyScans(old_texts, in_comment=False)
        new_scans = LazyScans(new_texts, in_comment=False)
        oi = ni = 0
        for at, line in enumerate(hunk.body):
            mark = line[0]  # the line's kind: "-" removed, "+" added, " " context, "\\" a marker
            if mark == "\\":
                continue
            old_where = new_where = None
            if mark == "-":
                scans, k, text = old_scans, oi, old_texts[oi]
                if not old_t.passes_over(text):
                    old_where = old_t.feed(scans[k].code)
            else:
                # a context line's code is read from the new side's scan for both trackers
                scans, k, text = new_scans, ni, new_texts[ni]
                if not new_t.passes_over(text):
                    new_where = new_t.feed(scans[k].code)
                if mark == " " and not old_t.passes_over(text):
                    old_where = old_t.feed(scans[k].code)
            oi += mark != "+"
            ni += mark != "-"
            if old_where is None and new_where is None and "__randomize_layout" not in text:
                continue  # outside every struct on both sides (and no struct's closing attribute): nothing to record
            scan = scans[k]
            if old_where is None and new_where is None and "__randomize_layout" not in scan.code:
                continue  # the attribute only in a comment or a string
            # a member inside a union shares its offset with the others: its order is no layout
            old_member = old_where is not None and not old_t.in_union()
            new_member = new_where is not None and not new_t.in_union()
            self.line(fd.path, hunk, hunk.lines[at], scan, (old_where, old_member), (new_where, new_member))

    def line(self, path: str, hunk: Hunk, dl: DiffLine, scan, old: tuple, new: tuple) -> None:
        """Record one line: comments, markers, annotations, and the member it declares on each side.

        ``old``/``new``: (the struct that side is in or None, whether a member there counts).
        """
        code = scan.code
        (old_where, old_member), (new_where, new_member) = old, new
        where = new_where or old_where
        if where is None:
            # the struct's own closing line carries its attributes
            if "__randomize_layout" in code and _STRUCT_END_RE.match(code.strip()):
                for (p, _n), side in self.structs.items():
                    if p == path and side.hunk is hunk:
                        side.randomized = True
            return
        side = self.side_of(where, hunk, path)
        if "__randomize_layout" in code:
            side.randomized = True
        if scan.comment and dl.kind is LineKind.ADDED:
            side.added_comments.append(scan.comment)
        elif scan.comment and dl.kind is LineKind.REMOVED:
            side.removed_comments.append(scan.comment)
        elif scan.comment and dl.kind is LineKind.CONTEXT:
            side.context_comments.append((hunk, dl, scan.comment))
        if "cacheline" in code:  # both the group markers and the alignment annotations say it
            if dl.kind is LineKind.ADDED and _GROUP_MARKER_RE.search(code):
                side.markers = True
            if _ALIGNED_RE.search(code) and dl.kind is not LineKind.CONTEXT:
                side.aligned += 1 if dl.kind is LineKind.ADDED else -1
        names = member_names(code)
        if not names:
            return
        member = ",".join(names)
        if old_member:
            self.side_of(old_where, hunk, path).old.append((member, dl))
            if dl.kind is LineKind.REMOVED:
                side.removed.setdefault(member, dl)
        if new_member:
            self.side_of(new_where, hunk, path).new.append((member, dl))
            if dl.kind is LineKind.ADDED:
                side.added[member] = dl


def _collect(view: PatchView) -> list[tuple[str, _StructSide]]:
    """Members of each struct the patch's C hunks show (see :class:`_Collector`).

    Early steps, cheapest first, each leaving out files that have nothing for RB101: a file that is not C, or
    has no old or no new side (a new or deleted file: nothing can move); a file that only adds lines or only
    removes them (:func:`_removes_and_adds`: a moved member is removed and added); a file none of whose hunks
    is inside a struct by its header or able to open one; a file whose hunks inside a struct do not remove and
    re-add a declaration of the same name (:func:`_may_reorder`). Only the hunks inside a struct are walked.
    """
    collector = _Collector()
    for fv in view.files:
        if not fv.path.endswith((".c", ".h")) or not _has_both_sides(fv.diff) or not _removes_and_adds(fv.diff):
            continue
        in_struct = [hv for hv in fv.hunks if _struct_from_section(hv.section) is not None or _may_open_struct(hv)]
        if not in_struct or not _may_reorder(fv, in_struct):
            continue  # a member moves when the walk sees it removed and re-added: in the hunks it walks
        for hv in in_struct:
            collector.hunk(fv, hv)
    return collector.result()


def _has_both_sides(fd: FileDiff) -> bool:
    """False for a new file (every hunk header says ``-0,0``: no removed line) or a deleted one (``+0,0``)."""
    return any(h.old_len for h in fd.hunks) and any(h.new_len for h in fd.hunks)


def _removes_and_adds(fd: FileDiff) -> bool:
    """Does the file both remove and add a line? Read from the hunks' line counts, without their text: a file
    that only adds code (or only removes it) moves no member, whatever structs its hunks show."""
    return any(h.removed_count for h in fd.hunks) and any(h.added_count for h in fd.hunks)


_FILES_AT: list[Any] = [None, {}]  # the last patch asked about, and its files by path


def _files_at(patch: Patch, path: str) -> list[FileDiff]:
    """The patch's files at ``path`` (usually one), from an index made once per patch: the steps run for each
    moved member look up its file, and going over every file of the patch each time made a patch of 2,000
    files each moving a member quadratic."""
    if _FILES_AT[0] is not patch:
        index: dict[str, list[FileDiff]] = {}
        for fd in patch.files:
            index.setdefault(fd.path, []).append(fd)
        _FILES_AT[:] = [patch, index]
    return _FILES_AT[1].get(path, [])


def _comment_above_struct(patch: Patch, path: str, side: _StructSide) -> list[str]:
    """Added comment lines above the struct's opening line, when the hunk shows them.

    ``#define`` lines between the comment and the struct (flag values that
    belong to it) do not separate them.
    """
    out: list[str] = []
    for fd in _files_at(patch, path):
        if fd.path != path:
            continue
        for hunk in fd.hunks:
            if not any(side.name in line for line in hunk.body):
                continue  # the struct's opening line names it: a hunk without the name does not open it
            # the hunk's lines but the removed ones, read from its body as their DiffLines would read them (a "\"
            # marker line too): "+" or " " and the text
            new = [line for line in hunk.body if line[0] != "-"]
            texts = [line[1:] for line in new]
            if side.name not in "\n".join(texts):
                continue  # the name only on a removed line
            scans = LazyScans(texts, in_comment=False)  # each line's scan_lines(texts) scan, made when read
            for i, text in enumerate(texts):
                if "{" not in text or side.name not in text:
                    continue  # the opening's code names the struct and opens it, and a line's code is cut from its text
                m = STRUCT_OPEN_RE.match(scans[i].code) if "{" in scans[i].code else None
                if m and m.group(2) == side.name:
                    j = i - 1
                    while j >= 0 and _DEFINE_LINE_RE.match(scans[j].code):
                        j -= 1
                    while j >= 0 and not scans[j].code.strip() and scans[j].has_comment:
                        if new[j][0] == "+":
                            out.append(scans[j].comment)
                        j -= 1
    return out


_DEFINE_LINE_RE = lazyre.compile(r"^\s*#\s*define\b")


def _member_comments(patch: Patch, path: str, added: DiffLine) -> list[str]:
    """Comments added on a member's line or in the comment block right above it."""
    for fd in _files_at(patch, path):
        if fd.path != path:
            continue
        for hunk in fd.hunks:
            new = [d for d in hunk.lines if d.kind is not LineKind.REMOVED]
            idx = next((i for i, d in enumerate(new) if d is added), None)
            if idx is None:
                continue
            scans = scan_lines([d.text for d in new])
            out = [scans[idx].comment] if scans[idx].comment else []
            j = idx - 1
            while j >= 0 and not scans[j].code.strip() and scans[j].has_comment and new[j].kind is LineKind.ADDED:
                out.append(scans[j].comment)
                j -= 1
            return out
    return []


def _prose(text: str) -> str:
    """The changelog as the author's own words: no pahole output, quoted commit titles or trailers."""
    lines = []
    for line in text.splitlines():
        if _PAHOLE_LINE_RE.search(line) or _TRAILER_LINE_RE.match(line):
            continue
        lines.append(_QUOTED_TITLE_RE.sub(" ", line))
    return "\n".join(lines)


def _sentences(text: str) -> list[str]:
    """Sentences of a changelog (a blank line or ``.``/``;``/``:`` followed by a space ends one)."""
    out = []
    for para in re.split(r"\n\s*\n", text):
        out += [s for s in re.split(r"(?<=[.;:!?])\s+", " ".join(para.split())) if s.strip()]
    return out


def _own_sentences(patch: Patch) -> tuple[str, ...]:
    """The changelog's sentences in the author's own words (:func:`_prose`, the subject first), negated ones
    dropped ("no attention was paid to cacheline placement"): what the motive, reason and placement steps read."""
    return _author_sentences(f"{patch.subject.title}\n\n{patch.commit_message}")


@lru_cache(maxsize=16)
def _author_sentences(changelog: str) -> tuple[str, ...]:
    # cached by content: several steps of one check read the same changelog
    return tuple(s for s in _sentences(_prose(changelog)) if not _NEGATED_RE.search(s))


@lru_cache(maxsize=256)
def _cache_word(sentence: str) -> re.Match[str] | None:
    """The sentence's first cache word (``CACHE_WORDS``), not counting a count of cache lines (``FOOTPRINT_PHRASES``)
    or a vague cache aside in a sentence about size. Cached by content: the motive, placement and reason steps
    each ask it of the same sentences."""
    return _CACHE_MOTIVE_RE.search(_FOOTPRINT_RE.sub(" ", _without_vague_cache(sentence)))


def _without_vague_cache(sentence: str) -> str:
    """``sentence`` without a vague cache aside ("more cache-line friendly") when it speaks of size."""
    if _SIZE_SENTENCE_RE.search(sentence):
        return _VAGUE_CACHE_RE.sub(" ", sentence)
    return sentence


def _motivation(patch: Patch) -> str:
    """``cache``, ``packing`` or ``unstated``: why the changelog says the members moved.

    Steps, as a reviewer reads it: take the author's own sentences (no pahole
    output, quoted titles, trailers), drop the negated ones ("no attention was
    paid to cacheline placement"); a cache word left (``CACHE_WORDS``, not a
    cache-line count) means ``cache``; else holes/size words mean ``packing``;
    else a speed claim in a sentence about the layout ("reorder the fields to
    make the lookup faster") means ``cache``; else ``unstated``.
    """
    sentences = _own_sentences(patch)
    if any(_cache_word(s) for s in sentences):
        return "cache"
    if any(_PACKING_RE.search(s) or _FOOTPRINT_RE.search(s) for s in sentences):
        return "packing"
    if any(_LAYOUT_SENTENCE_RE.search(s) and find_claim(s) for s in sentences):
        return "cache"
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
    old_order: list[str], new_order: list[str], candidates: list[str], unedited: Set[str] = frozenset()
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
    for fd in _files_at(patch, path):
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
    below = body[after].new_no if after < len(body) else None
    extra: list[int]
    if adjacent_added and adjacent_added[0].new_no is not None:
        extra = [adjacent_added[0].new_no]  # the quoter shows the whole change block around it
    elif below is not None and after - idx <= 3:
        # the context line below shows the member and the lines after it in the block; the
        # quote of the joined hunks keeps a [...] cut before it
        extra = [below]
    else:
        extra = [d.new_no for d in neighbours if d.new_no is not None]
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


def _moved_members(side: _StructSide) -> list[str]:
    """Step 1: the members whose position among the others changed (a type change in place is no move)."""
    moved = [m for m in side.added if m in side.removed]
    if not moved:
        return []
    common = set(m for m, _ in side.old) & set(m for m, _ in side.new)
    old_order = [m for m, _ in side.old if m in common]
    new_order = [m for m, _ in side.new if m in common]
    if old_order == new_order:
        return []
    candidates = [m for m in moved if m in common]
    unedited = {m for m in candidates if " ".join(side.removed[m].text.split()) == " ".join(side.added[m].text.split())}
    return _reordered(old_order, new_order, candidates, unedited)


def _new_comments(patch: Patch, path: str, side: _StructSide) -> list[str]:
    """Comments the patch adds in the struct or above it (not the ones that moved with a member)."""
    removed_text = set(side.removed_comments)
    return [c for c in side.added_comments if c not in removed_text] + _comment_above_struct(patch, path, side)


def _under_layout_comment(patch: Patch, path: str, added: DiffLine) -> bool:
    """True when the nearest unchanged line above the added member ``added`` (added lines, removed lines and
    blank lines skipped) is an existing comment saying why the members below it sit there."""
    for fd in _files_at(patch, path):
        if fd.path != path:
            continue
        for hunk in fd.hunks:
            at = next((k for k, d in enumerate(hunk.lines) if d is added), None)
            if at is None:
                continue
            for d in reversed(hunk.lines[:at]):
                if d.kind is not LineKind.CONTEXT or not d.text.strip():
                    continue
                comment = _COMMENT_LINE_RE.match(d.text)
                return comment is not None and _EXISTING_LAYOUT_COMMENT_RE.search(comment.group(1)) is not None
            return False
    return False


def _in_aligned_group(patch: Patch, path: str, added: DiffLine) -> bool:
    """True when the added member ``added`` lands in an existing anonymous ``struct { ... }
    ____cacheline_aligned_in_smp;`` group (its closing line is unchanged context): the struct is already split
    into cache-line groups ("/* submission data */ struct {", io_ring_ctx's SQ and CQ groups), and those
    groups are the layout's documentation. The group may close in a later hunk."""
    for fd in _files_at(patch, path):
        if fd.path != path:
            continue
        at = _place_of(fd, added)
        if at is None:
            continue
        depth = 0
        for d in _lines_after(fd, at):  # the group may close in a later hunk
            if d.kind is LineKind.REMOVED:
                continue
            text = d.text.strip()
            if text.startswith("}") and depth == 0:
                # a nested group closes indented; the outer struct's own "} ____cacheline_aligned;" at column 0
                # aligns the whole struct and says nothing of its order
                nested = d.text[:1] in (" ", "\t")
                return nested and d.kind is LineKind.CONTEXT and _ALIGNED_RE.search(text) is not None
            depth += text.count("{") - text.count("}")
        return False
    return False


def _layout_documented(patch: Patch, path: str, side: _StructSide, moved: list[str], comments: list[str]) -> bool:
    """Step 2: does the patch document the layout, as a reviewer would accept it?

    Any of: ``__cacheline_group_begin/end`` markers (also ``_aligned``); a new
    comment saying the layout is cache-line ordered; a ``____cacheline_aligned``
    annotation added with a comment of a few words on the group; a comment
    added on every moved member saying why it sits there ("accessed together").
    """
    if side.markers or any(_LAYOUT_COMMENT_RE.search(c) for c in comments):
        return True
    if moved and all(_under_layout_comment(patch, path, side.added[m]) for m in moved):
        return True  # moved under the existing "Keep this last, we don't need it for the fast path"
    if moved and all(_in_aligned_group(patch, path, side.added[m]) for m in moved):
        return True  # moved into an existing "struct { ... } ____cacheline_aligned_in_smp;" group
    if side.aligned > 0 and any(len(_WORD_RE.findall(c)) >= 3 for c in comments):
        return True
    removed_text = set(side.removed_comments)
    for m in moved:
        said = [c for c in _member_comments(patch, path, side.added[m]) if c not in removed_text]
        if not any(_WHY_HERE_RE.search(c) or _LAYOUT_COMMENT_RE.search(c) for c in said):
            return False
    return bool(moved)


def _documented_later_in_series(patch: Patch, ctx: RuleContext, path: str, struct: str) -> str | None:
    """Step 4: a later patch of the same series adds the layout comment to this struct (as step 2 reads a
    patch's own comments): "patch 4/4 of the series", else None. The finding stands for this patch, but it
    is answered: a reviewer reads the series, and asking 2/4 for the comment 4/4 adds asks for what the
    author already wrote (the drafter says so with :data:`ANSWERED_WHERE`)."""
    series, index = ctx.series, patch.subject.index
    if series is None or index is None:
        return None
    for later in series.patches:
        if (later.subject.index or 0) <= index or not any(fd.path == path for fd in later.files):
            continue
        for later_path, side in _collect(PatchView(later)):
            if later_path == path and side.name == struct:
                comments = _new_comments(later, path, side)
                if side.markers or any(_LAYOUT_COMMENT_RE.search(c) for c in comments):
                    return f"patch {later.subject.index}/{later.subject.total or series.total} of the series"
    return None


#: Why this point comes too late once another person gave Reviewed-by/Acked-by/Tested-by for the patch: the
#: drafter then records the finding as ``reviewed`` with this reason instead of drafting it
#: (``reviewbot.respond.runner.quiet_after_review``).
QUIET_AFTER_REVIEW = "a layout-comment request after the review is a late nit"


#: How the drafter says where the answer was found (``Finding.evidence_where``), for a finding this rule marks
#: answered: the layout comment a later patch of the series adds.
ANSWERED_WHERE = "the layout comment is added by {where}"


def _severity(motive: str) -> Severity:
    """Step 3: WARNING only when the order is chosen for cache behaviour; else a CHECK."""
    return Severity.WARNING if motive == "cache" else Severity.CHECK


def check(patch: Patch, ctx: RuleContext) -> Iterable[Finding]:
    """Report each struct whose members were moved without an added cache-line layout comment."""
    if not patch.files:
        return []
    findings: list[Finding] = []
    motive = None
    view = patch_view(patch, ctx)
    for path, side in _collect(view):
        if _userspace(path):
            continue  # a selftest's or tool's struct: no kernel cache-line layout to document
        moved = [m for m in _moved_members(side) if not _shifted_in_group(patch, path, side, m)]
        if not moved:
            continue
        comments = _new_comments(patch, path, side)
        # members the struct's existing comments already place ("Keep this last, ... fast path") need no question
        moved = [m for m in moved if not _documented_by_context(patch, path, side, m)]
        if not moved or _layout_documented(patch, path, side, moved, comments):
            continue
        named, placed = _named_members(patch, path, side, moved)
        if not named or all(_going_away(side, m) for m in named):
            continue  # only moved to make room, or marked "/* will die */": nothing to ask
        if motive is None:
            motive = _motivation(patch)
            if _grouped(view) and not (motive == "cache" and _names_cache(patch)):
                motive = "group"  # moved into a struct_group() to be cleared together: CHECK
        if motive != "cache" and _kernel_test(path):
            continue  # test code reordered without a cache reason: its layout is nobody's contract
        severity, this_motive = _severity(motive), motive
        mapped, no_map = _layout_map(ctx, patch, side, named)
        if mapped is not None and mapped.packing:
            severity, this_motive = Severity.CHECK, "packing"  # the map shows it: no member changes line
        finding = _finding(patch, path, side, moved, severity, this_motive, named=named, placed=placed)
        if mapped is not None:
            finding = _with_map(finding, mapped)
        elif no_map:  # the type information has the struct, but not as the patch shows it: why, no map
            finding = replace(finding, details={**finding.details, "layout_no_map": no_map})
        if mapped is None or not mapped.sentence:  # step 6: sure only when the map shows a member change line
            finding = replace(finding, details={**finding.details, UNSURE_KEY: no_map or UNSURE_NO_MAP})
        later = _documented_later_in_series(patch, ctx, path, side.name)
        if later is not None:  # the finding stands for this patch; no draft asks for what a later one adds
            finding = replace(
                finding, state=FindingState.ANSWERED, details={**finding.details, EVIDENCE_WHERE_KEY: later}
            )
        findings.append(finding)
    return findings


#: Step 6, why a reorder without a map is not drafted (``draft --unsure`` drafts it): the first thing a reviewer
#: checks is which members now share a line; without type information for the struct (config ``btf``) the rule
#: cannot show it, and read on lists it never saw, none of its 7 drafts without a map would have been sent as written.
UNSURE_NO_MAP = "no cache-line map (no type information for the struct): the reviewer checks the layout himself"


def _layout_map(ctx: RuleContext, patch: Patch, side: _StructSide, named: Sequence[str]):
    """Step 5, only with type information configured (``btf``): which members the reorder moves across a
    cache line, from the struct's layout before and the one computed after (:mod:`reviewbot.layout`): (the
    map, "") or (None, why). No map when nothing is configured or the type information does not have the
    struct as the patch shows it: the finding then says nothing about layout (the reason, when the type
    information has the struct, is kept in its details as ``layout_no_map``)."""
    btf = ctx.options.get("btf") if ctx.options else None
    if not btf:
        return None, ""
    from reviewbot.layout.review import ReorderMap, reorder_map_or_reason

    names = tuple(n for member in named for n in member.split(","))
    found = reorder_map_or_reason(str(btf), f"{side.kind} {side.name}", patch, names)
    if isinstance(found, ReorderMap):
        return found, ""
    return None, found.reason if found.struct_known else ""


def _with_map(finding: Finding, mapped) -> Finding:
    """The finding naming what moved across which line, with the short map of the lines that change."""
    if mapped.packing:
        message = finding.message + "; no member changes cache line, the new order only fills holes"
    elif mapped.sentence:
        message = f"{finding.message} ({mapped.sentence})"
    else:
        message = finding.message
    details = {
        **finding.details,
        "layout_moves": mapped.sentence,
        "layout_map": list(mapped.lines),
        "layout_source": mapped.source,
    }
    return replace(finding, message=message, details=details)


def _map_paragraph(findings: Sequence[Finding]) -> str:
    """The map a reply quotes: from the first finding that has one ("" when none has)."""
    for f in findings:
        lines = f.details.get("layout_map")
        if lines:
            sentence = f.details.get("layout_moves")
            head = f"From {f.details.get('layout_source')}" + (f": {sentence}." if sentence else ":")
            return head + "\n\n" + "\n".join(lines)
    return ""


#: Userspace code in the kernel tree (selftests, perf, bpftool, ...): a struct there has no kernel
#: cache-line layout to document, whatever the changelog says.
USERSPACE_PATHS = ("tools/",)

#: Kernel test code (KUnit tests, test modules): a reorder there is asked about only with a cache reason.
KERNEL_TEST_PATHS = (
    r"(?:^|/)lib/test_[^/]*\.c$",
    r"(?:^|/)[^/]*_kunit\.c$",
    r"(?:^|/)kunit/",
    r"(?:^|/)tests?/[^/]*\.c$",
)
_KERNEL_TEST_RE = lazyre.compile("|".join(KERNEL_TEST_PATHS))


def _userspace(path: str) -> bool:
    """True for a file of userspace code in the kernel tree (``USERSPACE_PATHS``)."""
    return path.startswith(USERSPACE_PATHS)


def _kernel_test(path: str) -> bool:
    """True for kernel test code (``KERNEL_TEST_PATHS``)."""
    return _KERNEL_TEST_RE.search(path) is not None


def _group_close(patch: Patch, path: str, line: DiffLine, skip: LineKind) -> DiffLine | None:
    """The closing context line of the existing ``struct { ... } ____cacheline_aligned_in_smp;`` group that
    ``line`` sits in on its side (``skip``: the other side's kind), or None when it sits in no such group."""
    for fd in _files_at(patch, path):
        if fd.path != path:
            continue
        at = _place_of(fd, line)
        if at is None:
            continue
        depth = 0
        for d in _lines_after(fd, at):
            if d.kind is skip or d.kind is LineKind.MARKER:
                continue
            text = d.text.strip()
            if text.startswith("}") and depth == 0:
                nested = d.text[:1] in (" ", "\t")
                aligned = nested and d.kind is LineKind.CONTEXT and _ALIGNED_RE.search(text) is not None
                return d if aligned else None
            depth += text.count("{") - text.count("}")
        return None
    return None


def _may_hold(hunk: Hunk, line: DiffLine) -> bool:
    """Can ``hunk`` hold ``line``, by the line numbers its header covers? Asked before reading the hunk's
    DiffLines: a file's other hunks are then never made into lines."""
    if line.old_no is not None and hunk.old_start <= line.old_no < hunk.old_start + hunk.old_len:
        return True
    if line.new_no is not None and hunk.new_start <= line.new_no < hunk.new_start + hunk.new_len:
        return True
    return line.old_no is None and line.new_no is None


def _place_of(fd: FileDiff, line: DiffLine) -> tuple[int, int] | None:
    """(index of the hunk, index in its lines) of ``line`` in ``fd``, or None. The hunks whose header covers the
    line's numbers are looked in first (:func:`_may_hold`), then the others (a header that does not add up)."""
    hunks = fd.hunks
    first = [k for k, h in enumerate(hunks) if _may_hold(h, line)]
    for k in first + [k for k in range(len(hunks)) if k not in first]:
        at = next((i for i, d in enumerate(hunks[k].lines) if d is line), None)
        if at is not None:
            return k, at
    return None


def _lines_after(fd: FileDiff, at: tuple[int, int]) -> Iterator[DiffLine]:
    """The lines of ``fd`` after the one at ``at`` (see :func:`_place_of`), across its later hunks, each
    hunk's lines read only when the walk reaches it."""
    k, i = at
    yield from fd.hunks[k].lines[i + 1 :]
    for hunk in fd.hunks[k + 1 :]:
        yield from hunk.lines


def _shifted_in_group(patch: Patch, path: str, side: _StructSide, member: str) -> bool:
    """Step 1b: a member removed and re-added inside the same existing cache-line aligned group only shifted
    within its group: the group, not the order inside it, is the layout (io_ring_ctx's hot group)."""
    removed, added = side.removed.get(member), side.added.get(member)
    if removed is None or added is None:
        return False
    before = _group_close(patch, path, removed, LineKind.ADDED)
    return before is not None and before is _group_close(patch, path, added, LineKind.REMOVED)


#: An existing comment saying that what follows it is off the fast path: a member added anywhere after it
#: (outside the aligned groups) sits there by that comment, even in a later hunk.
COLD_SECTION_PHRASES = (
    r"\bkeep\s+(?:this|these|them|it)\s+(?:last|at\s+the\s+end)\b",
    r"\b(?:don'?t|do\s+not|doesn'?t|does\s+not)\s+need\s+(?:it|them|this|these)\s+(?:for|on|in)\s+the\s+(?:fast|hot)\s+path\b",
    r"\bnot\s+(?:needed|used)\s+(?:for|on|in)\s+the\s+(?:fast|hot)\s+path\b",
    r"\b(?:slow[\s-]?path|setup|teardown|init)\s+only\b",
    r"\bcold\b",
)
_COLD_SECTION_RE = lazyre.compile("|".join(COLD_SECTION_PHRASES), re.IGNORECASE)


def _file_lines(patch: Patch, path: str) -> list[DiffLine]:
    return [d for fd in _files_at(patch, path) for h in fd.hunks for d in h.lines]


def _documented_by_context(patch: Patch, path: str, side: _StructSide, member: str) -> bool:
    """Step 2a: the struct already documents where ``member`` sits, in comments the hunks show unchanged.

    As a reviewer reads the hunks: an existing comment inside the struct saying where or why members sit
    (hot/cold, fast path, read-mostly: ``EXISTING_LAYOUT_COMMENT_WORDS``) in the same hunk as the re-added
    member covers it; so does a comment saying that what follows is off the fast path ("Keep this last, we
    don't need it for the fast path": ``COLD_SECTION_PHRASES``) anywhere above it, when the member is not in
    an aligned group.
    """
    added = side.added[member]
    if not side.context_comments:
        return False  # the hunks show no unchanged comment inside the struct: nothing to read the file's lines for
    lines = _file_lines(patch, path)
    at = next((k for k, d in enumerate(lines) if d is added), None)
    if at is None:
        return False
    for hunk, dl, comment in side.context_comments:
        if any(d is added for d in hunk.lines) and _EXISTING_LAYOUT_COMMENT_RE.search(comment):
            return True
        if _COLD_SECTION_RE.search(comment) and any(d is dl for d in lines[:at]):
            if _group_close(patch, path, added, LineKind.REMOVED) is None:
                return True
    return False


def _shifted_members(side: _StructSide) -> list[str]:
    """Members seen on both sides whose order against another one changed: the moved ones and those a move
    shifted (``->link`` moved below ``->comp_list`` shifts comp_list up), in their new order."""
    old_pos: dict[str, int] = {}
    for m, _ in side.old:
        old_pos.setdefault(m, len(old_pos))
    new_order = list(dict.fromkeys(m for m, _ in side.new if m in old_pos))
    new_pos = {m: i for i, m in enumerate(new_order)}
    return [
        m for m in new_order if any((old_pos[m] < old_pos[o]) != (new_pos[m] < new_pos[o]) for o in new_order if o != m)
    ]


def _mentions(text: str, member: str) -> bool:
    """True when ``text`` names the member (``->comp_list``, ``.bd_inode``, ``psi_flags``); a plain word such
    as ``link`` counts only written as ``->link`` or ``.link``."""
    for name in member.split(","):
        if name not in text:
            continue
        bare = "_" in name or any(c.isdigit() for c in name)
        prefix = r"(?:->|\.|(?<![\w>.-]))" if bare else r"(?:->|(?<![\w.])\.)"
        if re.search(prefix + re.escape(name) + r"\b", text):
            return True
    return False


#: A changelog placing more members than this by name reorders the struct as a whole: the finding names the
#: moved members and asks for a comment on the struct's layout, not one at each member.
LOCAL_MEMBERS = 3


def _named_members(patch: Patch, path: str, side: _StructSide, moved: list[str]) -> tuple[list[str], bool]:
    """Step 3: the members the finding names, and whether the changelog placed them by name.

    As a reviewer reads it: a member named after a placement verb (``PLACEMENT_VERBS``) in a sentence with a
    cache word ("we want ->comp_list in the second cacheline", "move .bd_inode into the 1st cache line", "put
    psi_flags together with in_memstall"), before the anchor it is put next to (``ANCHOR_PHRASES``), is
    placed for cache; when the changelog places a few (``LOCAL_MEMBERS``) moved or shifted members, those are
    named, not the ones that only shift because of it (more: a whole-struct reorder, the moved ones are named). A member named in a sentence saying it moves to make room
    (``MAKE_ROOM_PHRASES``) gets no question, nor one placed into an existing cache-line aligned group (the
    group documents it). Else the moved members are named.
    """
    eligible = _shifted_members(side)
    placed: set[str] = set()
    room: set[str] = set()
    for sentence in _own_sentences(patch):
        if _MAKE_ROOM_RE.search(sentence):
            room.update(m for m in eligible if _mentions(sentence, m))
            continue
        if not _cache_word(sentence):
            continue
        verbs = list(_PLACEMENT_VERB_RE.finditer(sentence))
        for verb, after in zip(verbs, verbs[1:] + [None]):
            # "group a and b with c, and move d onto the next cache line": each verb's objects up to its anchor
            rest = sentence[verb.end() : after.start() if after else len(sentence)]
            anchor = _ANCHOR_RE.search(rest)
            placed.update(m for m in eligible if _mentions(rest[: anchor.start()] if anchor else rest, m))
    named = [m for m in eligible if m in placed and m not in room]
    if named and len(named) <= LOCAL_MEMBERS:
        # placed into an existing "struct { } ____cacheline_aligned_in_smp" group: the group documents it
        line = {m: _new_line(side, m) for m in named}
        named = [m for m in named if not ((dl := line[m]) is not None and _in_aligned_group(patch, path, dl))]
        return named, True
    return [m for m in moved if m not in room], False


def _new_line(side: _StructSide, member: str) -> DiffLine | None:
    """The member's line on the new side (added, or context when only shifted)."""
    return side.added.get(member) or next((dl for m, dl in side.new if m == member), None)


def _going_away(side: _StructSide, member: str) -> bool:
    """True when the member's line says it is going away ("/* will die */", ``DYING_MARKERS``)."""
    dl = _new_line(side, member)
    if dl is None:
        return False
    comment = scan_lines([dl.text])[0].comment
    return bool(comment) and _DYING_RE.search(comment) is not None


#: Members moved into a named group so they can be cleared or copied together (``memset(&s->grp, ...)``),
#: not for cache lines: "wrap the rest of the struct in a struct group so the offset is known".
GROUP_MACROS = ("struct_group(", "struct_group_tagged(", "struct_group_attr(", "__struct_group(")


#: The changelog says the members moved so they can be cleared together ("put the members they need
#: cleared at the start of the struct", "so one memset() clears them").
CLEAR_MOTIVE_RE = lazyre.compile(r"\bmemset\b|\bneeds?\s+(?:\w+\s+)?clearing\b|\bneed\s+cleared\b", re.IGNORECASE)


def _grouped(view: PatchView) -> bool:
    """True when the patch adds a ``struct_group(...)`` or says the members moved to be cleared together."""
    if CLEAR_MOTIVE_RE.search(_prose(view.patch.commit_message)):
        return True
    # every GROUP_MACROS name holds "struct_group": a hunk without it anywhere adds none
    return any(
        any(macro in hv.added_text for macro in GROUP_MACROS)
        for fv in view.files
        for hv in fv.hunks
        if "struct_group" in hv.diff_text
    )


def _names_cache(patch: Patch) -> bool:
    """True when the changelog names cache behaviour in words ("cache line", "false sharing"), not only a
    speed claim ("unnecessary overhead")."""
    sentences = _own_sentences(patch)
    return any(_cache_word(s) for s in sentences)


def _finding(
    patch: Patch,
    path: str,
    side: _StructSide,
    moved: list[str],
    severity: Severity,
    motive: str,
    *,
    named: list[str] | None = None,
    placed: bool = False,
) -> Finding:
    """Step 4: the finding, naming ``named`` (default: the moved members) and quoting the moved member next to
    where it came from."""
    named = named or moved
    lines = sorted(n for n in (side.added[m].new_no for m in moved) if n is not None)
    first = side.added[moved[0]]
    first_line = lines[0] if lines else first.new_no
    if placed:
        at = [n for n in (getattr(_new_line(side, m), "new_no", None) for m in named) if n is not None]
        if at:
            first_line = min(at)
            lines = sorted(set(lines) | set(at))
    input_lines = [n for n in (side.added[m].input_line for m in moved) if n is not None]
    members = [m.replace(",", ", ") for m in named]
    what = f"{side.kind} {side.name}"
    # "member nr_bytes moved", "members a, b moved": one member is not "members"
    many = sum(len(m.split(",")) for m in named) > 1  # "a,b" is two members declared on one line
    who = f"member{'s' if many else ''} {', '.join(members)}"
    if placed and severity is Severity.WARNING:
        message = f"{what}: {who} placed for cache behaviour without a comment saying why"
    elif severity is Severity.WARNING:
        message = f"{what}: {who} moved without a comment documenting the cache-line layout"
    else:
        message = f"{what}: {who} reordered; consider a comment on the intended layout"
    if side.randomized:
        message += " (the struct is __randomize_layout: the order holds only with CONFIG_RANDSTRUCT_NONE)"
    hunk = None
    for fd in _files_at(patch, path):
        if fd.path == path:
            for h in fd.hunks:
                if any(d is first for d in h.lines):
                    hunk = h
    shown = next((m for m in moved if side.added[m].new_no == first_line), moved[0])
    hunk, extra = _show_removal(patch, path, hunk or side.hunk, side.added[shown], side.removed[shown])
    lines = sorted(set(lines) | set(extra))
    return RULE.finding(
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
            "reason": _cache_reason(patch) if motive == "cache" else None,
            "placed": placed,
            "randomize_layout": side.randomized,
        },
    )


#: Where the changelog's reason for a move starts: "move members *to avoid spanning cachelines*".
PURPOSE_WORDS = (
    r"\bin\s+order\s+to\b",
    r"\bso\s+(?:that|as\s+to)\b",
    r"\bto\s+(?!(?:the|a|an|its|their|this|these|that|those|one|each)\b)[a-z]+\b",  # "to avoid", not "to the"
    r"\bfor\b",
    r"\bbecause\b",
)
_PURPOSE_RE = lazyre.compile("|".join(PURPOSE_WORDS), re.IGNORECASE)


def _cache_reason(patch: Patch) -> str | None:
    """The changelog's own cache reason for the move, to quote back ("to avoid spanning cachelines").

    Steps: the first of the author's sentences (``_prose``, negated ones dropped) with a cache word
    (``CACHE_WORDS``, not a cache-line count); from the last purpose word (``PURPOSE_WORDS``) before the
    cache word to the end of the sentence; the whole sentence when it has none. None when too long to quote.
    """
    for sentence in _own_sentences(patch):
        cache = _cache_word(sentence)
        if cache is None:
            continue
        starts = [m.start() for m in _PURPOSE_RE.finditer(sentence, 0, cache.start())]
        if not starts:
            return None  # no purpose clause to quote ("move the sqe array out of the hot group")
        reason = sentence[starts[-1] :].strip().rstrip(".;:!,")
        return reason if len(reason.split()) <= 16 else None
    return None


def _struct_request(struct: str, which: str, reason: str | None) -> str:
    """Ask for a comment on a struct whose members were moved for cache behaviour; when the changelog gives
    the reason, quote it back instead of asking whether the move is about caches."""
    if reason:
        opening = (
            f'The changelog moves {which} "{reason}", but nothing in {struct} says so. Could you put that in '
            "a comment in the struct, saying that its members are cache-line ordered and which ones are kept "
            "together?"
        )
    else:
        opening = (
            f"Since the members moved in {struct} ({which}) are placed for cache behaviour, could you add "
            "a comment to the struct saying that its members are cache-line ordered and which fields "
            "are hot or read-mostly?"
        )
    return (
        opening
        + " Otherwise the next change that adds a field without thinking about cache lines will quietly undo this."
    )


#: A changelog reason that says which cache line or what shares it ("to retain needing only cacheline 0 and 1",
#: "within the first cache line", "together with in_memstall") can be quoted back as the comment to write; one
#: that does not ("for cacheline benefits") is quoted with the question which line, and what shares it.
WHICH_LINE_WORDS = (
    "first",
    "second",
    "third",
    "last",
    "same",
    "single",
    "one",
    "together",
    "next to",
    "alongside",
)
_WHICH_LINE_RE = lazyre.compile(r"\b(?:" + "|".join(WHICH_LINE_WORDS) + r")\b|\d", re.IGNORECASE)


#: A reply names at most this many moved members, then "and N more" (a reviewer quotes a few, not 22).
REPLY_MEMBERS = 4


def _some_members(members: Sequence[str]) -> str:
    """ "a, b and c"; for a long list the first REPLY_MEMBERS and "and N more"."""
    if not members:
        return "these members"
    if len(members) > REPLY_MEMBERS + 1:
        return ", ".join(members[:REPLY_MEMBERS]) + f" and {len(members) - REPLY_MEMBERS} more"
    return (", ".join(members[:-1]) + f" and {members[-1]}") if len(members) > 1 else members[0]


def _why_they_sit(struct: str, which: str, members: Sequence[str]) -> str:
    """The question for a reorder whose purpose is not cache lines (a CHECK): one member "sits where it
    does", several "sit where they do"."""
    many = sum(len(m.split(",")) for m in members) > 1
    sits = "sit where they do" if many else "sits where it does"
    return (
        f"Would it be worth a short comment in {struct} saying why {which} {sits} now, so a later change "
        f"does not move {'them' if many else 'it'} back?"
    )


def _local_comment_request(struct: str, members: Sequence[str], reason: str | None = None) -> str:
    """The changelog placed these members by name (one cache line of a big struct not ordered as a whole):
    ask for a short comment at them, not for a whole-struct "cache-line ordered" comment. The changelog's
    reason is quoted back: as the comment to write when it says which cache line (``WHICH_LINE_WORDS``),
    with the question which line and what shares it when it does not."""
    which = _some_members(members)
    many = len(members) > 1
    them = "them" if many else "it"
    undo = " Otherwise the next change that adds a field without thinking about cache lines will quietly undo this."
    where = f"which cache line {'they sit' if many else 'it sits'} in, and what {'they share' if many else 'it shares'} it with"
    if reason and _WHICH_LINE_RE.search(reason):
        return (
            f'The changelog places {which} "{reason}", but nothing at {them} in {struct} says so. Could you put '
            f"that in a short comment at {them} (or a marker at the cache-line boundary)?" + undo
        )
    if reason:
        return (
            f'The changelog places {which} in {struct} "{reason}". Could you add a short comment at {them} (or a '
            f"marker at the cache-line boundary) saying {where}?" + undo
        )
    return (
        f"Since {which} {'are' if many else 'is'} placed in {struct} for cache behaviour, could you add a "
        f"short comment at {them} (or a marker at the cache-line boundary) saying why "
        f"{'they sit' if many else 'it sits'} there: which cache line, and what "
        f"{'they share' if many else 'it shares'} it with?" + undo
    )


def reply(findings: Sequence[Finding], patch: Patch) -> str:
    """Ask for a layout comment, as the ``struct file`` reviewer did."""
    parts: list[str] = []
    for f in findings:
        struct = f.details.get("struct", "the struct")
        members = f.details.get("members", [])
        which = _some_members(members)
        motive = f.details.get("motivation")
        if f.severity is Severity.WARNING and motive == "cache" and f.details.get("placed"):
            text = _local_comment_request(struct, members, f.details.get("reason"))
        elif f.severity is Severity.WARNING and motive == "cache":
            text = _struct_request(struct, which, f.details.get("reason"))
        elif motive == "unstated":
            text = (
                f"Is the new position of {which} in {struct} meant to matter (cache lines, padding)? If "
                "so, could you say why in the changelog and add a comment to the struct, so a later "
                f"change does not move {'them' if len(members) > 1 else 'it'} back by accident?"
            )
        else:
            text = _why_they_sit(struct, which, members)
        if f.details.get("randomize_layout"):
            text += (
                f" Also, {struct} is __randomize_layout, so as far as I can tell this order only holds "
                "with CONFIG_RANDSTRUCT_NONE; maybe worth mentioning in the changelog."
            )
        layout = _map_paragraph([f])
        if layout:
            text += "\n\n" + layout
        if text not in parts:  # several structs moved for the same reason: say it once
            parts.append(text)
    return "\n\n".join(parts)


# How reviewers make this point in a thread (reviewbot.rule.point_in_thread): a draft never repeats them.
from reviewbot.rule import ThreadWords  # noqa: E402

THREAD_WORDS = ThreadWords(
    topic=(
        "cache line",
        "cacheline",
        "cache-line",
        "layout",
        "reorder",
        "false shar",
        "__cacheline_group",
        "randstruct",
        "randomize_layout",
        "hot field",
        "read-mostly",
        "read mostly",
    ),
    asks=(
        "add a comment to the struct",
        "comment about the layout",
        "comment explaining the layout",
        "why this order",
        "cache-line ordered",
        "cacheline ordered",
    ),
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
        which = _some_members(members)
        them = "them" if len(members) > 1 else "it"
        motivation = {f.details.get("motivation") for f in fs}
        if all(f.severity is Severity.CHECK for f in fs):
            text = _why_they_sit(struct, which, members)
        elif "cache" in motivation and all(f.details.get("placed") for f in fs if f.severity is Severity.WARNING):
            reason = next((f.details.get("reason") for f in fs if f.details.get("reason")), None)
            text = _local_comment_request(struct, members, reason)
        elif "cache" in motivation:
            reason = next((f.details.get("reason") for f in fs if f.details.get("reason")), None)
            text = _struct_request(struct, which, reason)
        elif "unstated" in motivation:
            text = (
                f"Is the new position of {which} in {struct} meant to matter (cache lines, padding)? If so, "
                "could you say why in the changelog and add a comment to the struct, so a later change "
                f"does not move {them} back by accident?"
            )
        else:
            text = _why_they_sit(struct, which, members)
        if any(f.details.get("randomize_layout") for f in fs):
            text += (
                f" Also, {struct} is __randomize_layout, so this order only holds with "
                "CONFIG_RANDSTRUCT_NONE; maybe worth saying in the changelog."
            )
        layout = _map_paragraph(fs)
        if layout:
            text += "\n\n" + layout
        parts.append(text)
    return "\n\n".join(parts)
