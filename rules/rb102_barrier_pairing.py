"""RB102 barrier-without-pairing-comment: a new memory barrier whose comment does not say what it pairs with.

What it does
------------
Looks at every memory barrier *added* by the patch in a ``.c`` or ``.h`` file:
``smp_mb``, ``smp_rmb``, ``smp_wmb``, ``smp_store_mb``, ``smp_store_release``,
``smp_load_acquire``, ``smp_cond_load_*``, ``smp_mb__before_atomic``,
``smp_mb__after_atomic``, ``smp_mb__after_spinlock``,
``smp_acquire__after_ctrl_dep``, ``mb``, ``rmb``, ``wmb``, ``dma_mb``,
``dma_rmb``, ``dma_wmb``, the ``virt_*`` barriers and ``__smp_*`` (outside the
barrier headers). Only real calls count: not text inside comments or strings,
not context or removed lines, not ``#define`` lines that define a barrier
primitive, and not a barrier the patch merely moves unchanged (same line, or
same call with the same arguments, removed elsewhere in the patch), unless it
moves into a function the patch adds whole: that is new code.

The comment may sit on the same line or be the comment block ending on the
line directly above (C89 or C99 style, also inside a macro with
``\\`` continuations); for a barrier that is the body of an ``if``/``else``/
loop line, the comment may end directly above that line. Headers that
implement the primitives (``arch/*/include/asm/barrier.h``, ``atomic*.h``,
``cmpxchg*.h``...) and void barriers passed as arguments (tests of the
primitives) are skipped.

* An SMP barrier (``smp_*``, ``__smp_*``, ``virt_*``) needs a comment that
  says what it pairs with: "pairs with", "paired with", "see foo()",
  "implied by ...", or a named function or barrier.
* A device barrier (``mb``/``rmb``/``wmb``, ``dma_*``) needs a comment that
  says what it orders.
* ``smp_mb__before_atomic()``/``smp_mb__after_atomic()`` next to
  ``atomic_set()``/``atomic_read()``/``WRITE_ONCE()`` (not a read-modify-write
  atomic) orders nothing (Documentation/atomic_t.txt): reported whatever the
  comment says.
* Beyond checkpatch: when the comment names the other side ("pairs with
  smp_rmb() in foo()", "implied by ... from foo()", "see foo()") and foo() is
  added whole by this patch, or its hunk loses a barrier, the rule looks at
  that side; if it
  has no barrier nor an operation documented to imply one (value-returning
  atomics, ``test_and_set_bit``, ``xchg``/``cmpxchg``, lock acquire/release,
  ``wake_up``), it reports that the other side is missing.

Why it matters
--------------
A barrier orders accesses only against a matching barrier (or implied
barrier) on the other CPU. Without saying where that is, the next person
cannot check that the pairing still holds, and changes that remove "the other
side" go unnoticed. checkpatch.pl's ``MEMORY_BARRIER`` test accepts *any*
comment near the barrier, never reads it, and misses ``dma_*mb()``,
``smp_mb__after_spinlock()`` and the acquire/release family.

Example
-------
::

    +	WRITE_ONCE(req->flags, REQ_DONE);
    +	smp_mb();
    +	if (waitqueue_active(&fc->waitq))

Use instead
-----------
::

    +	/*
    +	 * Order the flag store against the waitqueue check. Pairs with the
    +	 * smp_mb() implied by test_and_set_bit() in queue_interrupt().
    +	 */
    +	smp_mb();

Known limits
------------
Reads the diff only: a comment outside the hunk's context lines is not seen,
and the "other side" check runs only when the named function is added by the
patch or visibly loses a barrier in it. Whether a named pairing is *correct*
is left to the reviewer.

References
----------
* Documentation/memory-barriers.txt, "SMP barrier pairing"
* Documentation/atomic_t.txt (which atomics imply barriers)
* Documentation/process/submitting-patches.rst and checkpatch.pl MEMORY_BARRIER
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Iterable, Sequence

from reviewbot.cutil import comment_above, joined_text, normalise, scan_lines, starts_in_comment
from reviewbot.models import Finding, Hunk, LineKind, Patch
from reviewbot.rule import RuleContext, RuleMeta, Scope, Severity

RULE = RuleMeta(
    id="RB102",
    name="barrier-without-pairing-comment",
    summary="Added memory barrier without a comment saying what it pairs with or orders",
    severity=Severity.WARNING,
    scope=Scope.HUNK,
    references=(
        "Documentation/memory-barriers.txt#smp-barrier-pairing",
        "Documentation/atomic_t.txt",
        "scripts/checkpatch.pl MEMORY_BARRIER",
    ),
)

_SMP = (
    r"smp_mb__before_atomic|smp_mb__after_atomic|smp_mb__after_spinlock|smp_acquire__after_ctrl_dep|"
    r"smp_store_mb|smp_store_release|smp_load_acquire|smp_cond_load_\w+|smp_mb|smp_rmb|smp_wmb|"
    r"__smp_\w+|virt_(?:mb|rmb|wmb|store_mb|store_release|load_acquire|mb__before_atomic|mb__after_atomic)"
)
_DEVICE = r"dma_mb|dma_rmb|dma_wmb|mb|rmb|wmb"
# a call: not a member (->mb(, .mb(), not part of a longer identifier
# (the leading lookahead names the first letters of every barrier name: a quick skip for re)
BARRIER_RE = re.compile(r"(?=[smvdrw_])(?<![\w.>$])(" + _SMP + "|" + _DEVICE + r")\s*\(")
_QUICK_RE = re.compile(r"mb\s*\(|smp_|virt_")
_MB_CALL_RE = re.compile(r"mb\s*\(")  # the regex part of _QUICK_RE (literal prefix: a fast scan)
_SMP_NAME_RE = re.compile(r"^(?:" + _SMP + r")$")
# "#define smp_foo(...)" or "static inline void smp_foo(...)": defining a barrier, not using it
_DEFINE_RE = re.compile(r"^\s*#\s*define\s+(\w+)")
_FUNC_DEF_RE = re.compile(r"^\s*(?:static\s+)?(?:inline\s+|__always_inline\s+)*[\w\s\*]*?\b(\w+)\s*\([^;]*$")
_PRIMITIVE_RE = re.compile(r"^(?:__)?(?:smp|dma|virt)_\w*(?:mb|acquire|release|barrier)\w*$")
_BARRIER_HEADER_RE = re.compile(r"(?:^|/)(?:barrier\.h|atomic[\w-]*\.h|cmpxchg[\w-]*\.h)$")
# headers that implement the primitives themselves: their barriers are the implementation
_PRIMITIVE_HEADER_RE = re.compile(
    r"^(?:arch/[^/]+/include/asm/|include/asm-generic/|tools/(?:arch/[^/]+/)?include/asm/)"
    r"(?:[\w/-]*/)?(?:barrier|atomic[\w-]*|cmpxchg[\w-]*|spinlock[\w-]*|bitops[\w-]*|qspinlock[\w-]*|"
    r"rwonce|io|mmio[\w-]*|percpu)\.h$"
)
_CONTROL_RE = re.compile(r"^\s*(?:\}\s*)?(?:if\b|else\b|for\b|while\b|do\b|switch\b|case\b|default\b)|^\s*[{}]\s*$")
_VOID_BARRIER_RE = re.compile(r"^(?:smp_mb|smp_rmb|smp_wmb|mb|rmb|wmb|dma_mb|dma_rmb|dma_wmb|smp_mb__\w+|virt_[rw]?mb\w*)$")

_PAIRING_RE = re.compile(
    r"\bpair(?:s|ed|ing)?\b|\bmatch(?:es|ing)?\b|\bimplie[sd]\b|\bimplicit\b|\bsee\s+\S|"
    r"\bcounterpart\b|\bother\s+side\b|\bpartner\b|\bagainst\b(?:(?!\bagainst\b).)*\(\)|\bsynchroni[sz]es?\s+with\b|"
    r"\border(?:s|ed|ing)?\b(?:(?!\border(?:s|ed|ing)?\b).)*\bagainst\b|\bvs\.?\s|\brac(?:e|es|ing)\s+with\b|"
    r"\b(?:reader|writer|consumer|producer|waker|waiter|read|write|update|updater|vdso|user|userspace|other|"
    r"remote|submission|completion|irq|interrupt)[\s-]+sides?\b",
    re.IGNORECASE,
)
_FUNC_NAMED_RE = re.compile(r"\b([A-Za-z_]\w*)\s*\(\)")
_BARRIER_NAMED_RE = re.compile(r"(?<![\w.>$])(?:" + _SMP + "|" + _DEVICE + r")\b")
_WORD_RE = re.compile(r"[A-Za-z]{2,}")
_TRIVIAL_RE = re.compile(r"^\s*(?:(?:full|memory|write|read|smp|dma|a|the)\s*)*(?:barrier|mb|rmb|wmb)s?\s*[.!]?\s*$", re.I)

# operations documented to imply a full barrier or acquire/release ordering
_IMPLYING_RE = re.compile(
    r"\b(?:test_and_set_bit|test_and_clear_bit|test_and_change_bit|test_and_set_bit_lock|"
    r"xchg\w*|cmpxchg\w*|try_cmpxchg\w*|atomic\w*_(?:inc|dec|add|sub|and|or|xor|fetch)\w*_return\w*|"
    r"atomic\w*_fetch_\w+|atomic\w*_(?:inc|dec|sub|add)_and_test|atomic\w*_xchg|atomic\w*_cmpxchg|"
    r"refcount_dec_and_test|spin_lock\w*|spin_unlock\w*|raw_spin_lock\w*|raw_spin_unlock\w*|mutex_lock\w*|"
    r"mutex_unlock|up_write|down_write|up_read|down_read|wake_up\w*|set_current_state|llist_add|"
    r"smp_store_release|smp_load_acquire|\w+_acquire|\w+_release|complete|wait_event\w*|try_to_wake_up)\s*\("
)


_DEFINE_BODY_RE = re.compile(r"^\s*#\s*define\s+\w+(?:\(([^()]*)\))?[ \t]*(.*)$")
_ONE_LINE_FUNC_RE = re.compile(r"^[A-Za-z_][\w\s\*]*\b\w+\s*\(([^;{}]*)\)\s*\{(.*)\}\s*$")
_HEADER_PARAMS_RE = re.compile(r"\b\w+\s*\(([^;{}()]*)\)\s*\{?\s*$")


def _param_names(params: str) -> set[str]:
    """Names of a macro's or function's parameters: ``const struct s *p, int n`` -> {p, n}."""
    out = set()
    for part in params.split(","):
        m = re.search(r"(\w+)\s*(?:\[[^\]]*\])?\s*$", part)
        if m and m.group(1) not in ("void", "..."):
            out.add(m.group(1))
    return out


def _forwarded_barrier(expr: str, params: set[str], returned: bool = False) -> bool:
    """True when ``expr`` is one call of a barrier primitive on the wrapper's own parameter.

    ``smp_cond_load_acquire_timewait(v, c, 0ULL, 1ULL, 0)`` with parameter ``v``,
    ``smp_store_release((l), 1)``, ``smp_mb()``; with ``returned``, only the
    form ``return smp_load_acquire(p);``. The text forwards the caller's object
    to the barrier (an API); a call on a fixed object
    (``smp_load_acquire(&inode->i_info)``) is a use of its own and needs a comment.
    """
    text = expr.strip()
    if returned:
        if not (text.startswith("return") and text[6:7] in (" ", "\t", "(")):
            return False
        text = text[6:].strip()
    text = text.rstrip(";").strip()
    while text.startswith("(") and text.endswith(")"):
        text = text[1:-1].strip()
    m = BARRIER_RE.match(text)
    if m is None:
        return False
    depth = 0
    args_start = m.end()
    for pos in range(m.end() - 1, len(text)):
        ch = text[pos]
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                if text[pos + 1 :].strip():
                    return False
                first = _first_arg(text[args_start:pos])
                return not first or first in params
    return False


def _first_arg(args: str) -> str:
    """The first argument of a call's argument text, without ``&`` and parentheses around it."""
    depth = 0
    end = len(args)
    for pos, ch in enumerate(args):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth == 0:
            end = pos
            break
    first = args[:end].strip()
    while True:
        if first.startswith("(") and first.endswith(")"):
            first = first[1:-1].strip()
        elif first.startswith(("&", "*")):
            first = first[1:].strip()
        else:
            return first


def _is_wrapper(scans, new: list, idx: int) -> bool:
    """Does added line ``idx`` define a wrapper around a barrier primitive rather than use one?

    Two kinds: a macro whose body is only a call of a barrier primitive on
    one of its parameters (``#define res_smp_cond_load_acquire(v, c)
    smp_cond_load_acquire_timewait(v, c, 0ULL, 1ULL, 0)``, also with the body
    on the continuation line), and an inline function whose body is only
    ``return barrier(param...);``, on one line or as ``{`` / the statement /
    ``}`` at column 0. Such a line defines an API; the comment about pairing
    belongs to its callers.
    """
    code = scans[idx].code.rstrip()
    dm = _DEFINE_BODY_RE.match(code)
    if dm:
        return _forwarded_barrier(dm.group(2), _param_names(dm.group(1) or ""))
    if idx > 0 and not code.endswith("\\"):
        prev = scans[idx - 1].code.rstrip()
        pm = _DEFINE_BODY_RE.match(prev)
        if pm and prev.endswith("\\") and not pm.group(2)[:-1].strip():
            return _forwarded_barrier(code, _param_names(pm.group(1) or ""))
    fm = _ONE_LINE_FUNC_RE.match(code)
    if fm and not _CONTROL_RE.match(code):
        return _forwarded_barrier(fm.group(2), _param_names(fm.group(1)), returned=True)
    if not code.lstrip().startswith("return"):
        return False

    def neighbour(start: int, step: int) -> int | None:
        j = start + step
        while 0 <= j < len(scans):
            if scans[j].code.strip():
                return j
            j += step
        return None

    before, after = neighbour(idx, -1), neighbour(idx, 1)
    if before is None or after is None or not new[after].text.startswith("}"):
        return False
    opening = new[before].text
    if opening.startswith("{"):
        header = neighbour(before, -1)
        opening = new[header].text if header is not None else ""
    elif not (opening[:1].isalpha() and opening.rstrip().endswith("{")):
        return False
    hm = _HEADER_PARAMS_RE.search(opening)
    if hm is None or _CONTROL_RE.match(opening):
        return False
    return _forwarded_barrier(code, _param_names(hm.group(1)), returned=True)


def _is_c(path: str) -> bool:
    return path.endswith((".c", ".h"))


def _new_side(hunk: Hunk) -> list:
    return [dl for dl in hunk.lines if dl.kind in (LineKind.CONTEXT, LineKind.ADDED)]


def _is_smp(name: str) -> bool:
    return bool(_SMP_NAME_RE.match(name))


def _comment_ok(name: str, comment: str) -> bool:
    """Does ``comment`` do its job for barrier ``name``?"""
    text = comment.strip()
    if not text or _TRIVIAL_RE.match(text):
        return False
    if _is_smp(name):
        if _PAIRING_RE.search(text):
            return True
        if _FUNC_NAMED_RE.search(text) or _BARRIER_NAMED_RE.search(text):
            return True
        return False
    return len(_WORD_RE.findall(text)) >= 3


_CALL_ARGS_RE = re.compile(r"\(([^()]*(?:\([^()]*\)[^()]*)*)\)")


def _follows_open_or_comma(code: str, pos: int) -> bool:
    """True when the last non-blank character before ``pos`` is ``(`` or ``,`` (an argument position).

    Looks back over the blanks only (a slice of the line per barrier made a line of n barriers n*n).
    """
    i = pos - 1
    while i >= 0 and code[i].isspace():
        i -= 1
    return i >= 0 and code[i] in "(,"


def _moved_keys(code: str) -> list[str]:
    """Keys that identify the barrier(s) of one line for "moved unchanged" matching.

    A barrier with arguments is identified by its call text (``smp_load_acquire(&b->state)``),
    so rewriting the condition around it does not make it new; one without
    arguments (``smp_mb()``) by the whole normalised line.
    """
    keys = []
    line_key = ""  # made once: a line of n smp_mb() calls must not normalise the line n times
    for m in BARRIER_RE.finditer(code):
        am = _CALL_ARGS_RE.match(code, m.end() - 1)
        args = normalise(am.group(1)) if am else ""
        line_key = line_key or ("" if args else "line:" + normalise(code))
        keys.append(f"{m.group(1)}({args})" if args else line_key)
    return keys


def _removed_counter(patch: Patch) -> Counter:
    counter: Counter = Counter()
    for fd in patch.files:
        for hunk in fd.hunks:
            if not BARRIER_RE.search(joined_text(hunk, LineKind.REMOVED)):
                continue  # no removed line holds a barrier (one search over the hunk's removed text)
            removed = [d.text for d in hunk.lines if d.kind is LineKind.REMOVED]
            if not removed or not any(BARRIER_RE.search(t) for t in removed):
                continue
            for scan in scan_lines(removed):
                for key in _moved_keys(scan.code):
                    counter[key] += 1
    return counter


def _whole_functions(lines: list, kind: LineKind) -> list[tuple[int, int, bool]]:
    """Functions written whole in ``kind`` lines of one side of a hunk: ``(brace, end, closed)``.

    A function counts when its header line at column 0 and its opening ``{``
    are ``kind`` lines; its body runs from ``brace + 1`` up to ``end``, the
    ``kind`` line starting with ``}`` (``closed``), or the first line of
    another kind (not ``closed``).
    """
    spans: list[tuple[int, int, bool]] = []
    i = 0
    n = len(lines)
    while i < n:
        dl = lines[i]
        if (
            dl.kind is kind
            and dl.text[:1].isalpha()
            and _FUNC_DEF_RE.match(dl.text)
            and "=" not in dl.text
            and not dl.text.rstrip().endswith(";")
        ):
            j = i
            while j < n and lines[j].kind is kind and "{" not in lines[j].text:
                j += 1
            if j < n and lines[j].kind is kind and lines[j].text.rstrip().endswith("{"):
                k = j
                while k < n and lines[k].kind is kind and not lines[k].text.startswith("}"):
                    k += 1
                spans.append((j, k, k < n and lines[k].kind is kind))
                i = k + 1
                continue
        i += 1
    return spans


def _body_key(lines: list, brace: int, end: int) -> tuple[str, ...]:
    """A function body's lines modulo whitespace, blank lines left out."""
    return tuple(t for t in (normalise(lines[b].text) for b in range(brace + 1, end)) if t)


def _in_new_function(new: list, removed_bodies: frozenset = frozenset()) -> list[bool]:
    """For each new-side line of a hunk: is it inside a function the patch adds whole?

    A function counts as added whole when its header line at column 0 and its
    opening ``{`` are added lines; it ends at the added ``}`` at column 0. A
    function whose body (modulo whitespace) is the body of a function the patch
    removes whole (``removed_bodies``, any file) is moved, not new: its lines
    are False. A function moved to another header, renamed or not, keeps its
    barriers' meaning; a helper holding lines cut out of a bigger function, or
    a body that changed, does not.
    """
    flags = [False] * len(new)
    for brace, end, closed in _whole_functions(new, LineKind.ADDED):
        if closed and _body_key(new, brace, end) in removed_bodies:
            continue
        for b in range(brace, end):
            flags[b] = True
    return flags


def _removed_bodies(patch: Patch) -> frozenset:
    """Bodies (see :func:`_body_key`) of the functions the patch removes whole, in its C files."""
    out = set()
    for fd in patch.files:
        if not _is_c(fd.path):
            continue
        for hunk in fd.hunks:
            old = [d for d in hunk.lines if d.kind in (LineKind.CONTEXT, LineKind.REMOVED)]
            for brace, end, closed in _whole_functions(old, LineKind.REMOVED):
                if closed:
                    out.add(_body_key(old, brace, end))
    return frozenset(out)


def _function_bodies(patch: Patch) -> dict[str, list[str]]:
    """Functions the patch adds whole: name -> code lines of the body (new side).

    A function counts when its header (at column 0, possibly over several
    lines) and everything up to the closing ``}`` at column 0 are added lines;
    a function interleaved with context lines is not judged.
    """
    bodies: dict[str, list[str]] = {}
    for fd in patch.files:
        if not _is_c(fd.path):
            continue
        for hunk in fd.hunks:
            added = joined_text(hunk, LineKind.ADDED)
            if "(" not in added or "{" not in added or "}" not in added:
                continue  # no added header "name(", opening "{" and closing "}": no whole function
            new = [d for d in hunk.lines if d.kind in (LineKind.CONTEXT, LineKind.ADDED)]
            n = len(new)
            i = 0
            while i < n:
                dl = new[i]
                m = _FUNC_DEF_RE.match(dl.text) if dl.kind is LineKind.ADDED and dl.text[:1].isalpha() else None
                if m is None or "=" in dl.text or dl.text.rstrip().endswith(";"):
                    i += 1
                    continue
                j = i
                while j < n and new[j].kind is LineKind.ADDED and "{" not in new[j].text and ";" not in new[j].text:
                    j += 1
                if not (j < n and new[j].kind is LineKind.ADDED and new[j].text.rstrip().endswith("{")):
                    i = j + 1
                    continue
                k = j + 1
                body: list[str] = []
                while k < n and new[k].kind is LineKind.ADDED and not new[k].text.startswith("}"):
                    body.append(new[k].text)
                    k += 1
                if k < n and new[k].kind is LineKind.ADDED:
                    bodies[m.group(1)] = body
                i = k + 1
    return bodies


_PAIR_TARGET_RE = re.compile(
    r"(?:\bpair(?:s|ed|ing)?\b|\bpair\s+is\b|\bmatch(?:es|ing)?\b|\bimplied\s+by\b|\bsee\b|\bcorresponding\b|"
    r"\bcounterpart\b|\bother\s+side\b)([^.;]*)",
    re.IGNORECASE,
)


def _pair_targets(comment: str) -> list[str]:
    """Functions named as the other side: the first non-barrier ``foo()`` after a pairing phrase."""
    out: list[str] = []
    for m in _PAIR_TARGET_RE.finditer(comment):
        for name in _FUNC_NAMED_RE.findall(m.group(1)):
            if BARRIER_RE.match(name + "(") or _IMPLYING_RE.match(name + "("):
                continue
            out.append(name)
            break
    return list(dict.fromkeys(out))


def _hunks_losing_barrier(patch: Patch) -> dict[str, bool]:
    """Function name (from hunk sections) -> True when its hunks remove a barrier and add none."""
    result: dict[str, bool] = {}
    for fd in patch.files:
        for hunk in fd.hunks:
            m = re.search(r"\b(\w+)\s*\(", hunk.section or "")
            if not m:
                continue
            removed = bool(BARRIER_RE.search(joined_text(hunk, LineKind.REMOVED))) and any(
                BARRIER_RE.search(d.text) for d in hunk.removed
            )
            # "kept" only matters for a hunk that loses a barrier
            kept = removed and any(
                BARRIER_RE.search(d.text) or _IMPLYING_RE.search(d.text) for d in _new_side(hunk)
            )
            name = m.group(1)
            result[name] = result.get(name, False) or (removed and not kept)
    return result


_NON_RMW_RE = re.compile(r"\b(atomic(?:64|_long)?_(?:set|read)(?:_release|_acquire)?|WRITE_ONCE|READ_ONCE)\s*\(")
_RMW_RE = re.compile(
    r"\b(?:atomic(?:64|_long)?_(?!set\b|read\b)\w+|(?:__)?(?:set|clear|change)_bit|test_and_\w+|refcount_\w+|"
    r"\w*xchg\w*|\w+_inc|\w+_dec)\s*\("
)


def _neighbour_op(scans, idx: int, step: int) -> str | None:
    """The non-RMW access (``atomic_set``, ``atomic_read``, ``WRITE_ONCE``...) on the code line next to ``idx``.

    ``step`` is -1 for the line above (smp_mb__after_atomic), +1 for the one
    below (smp_mb__before_atomic); blank and comment-only lines are skipped.
    None when that line holds an RMW atomic or bitop, or no such access.
    """
    j = idx + step
    while 0 <= j < len(scans):
        code = scans[j].code.strip().rstrip("\\").strip()
        if code and code not in ("{", "}"):
            if _RMW_RE.search(code):
                return None
            m = _NON_RMW_RE.search(code)
            return m.group(1) if m else None
        j += step
    return None


def check(patch: Patch, ctx: RuleContext) -> Iterable[Finding]:
    """Report added barriers without a (good) comment, and named other sides lacking a barrier."""
    if not patch.files:
        return []
    added_text = "\n".join([joined_text(fd, LineKind.ADDED) for fd in patch.files if _is_c(fd.path)])
    if not ("smp_" in added_text or "virt_" in added_text or _MB_CALL_RE.search(added_text)):
        return []  # _QUICK_RE, split into substring tests and a literal-prefix regex
    # (no BARRIER_RE search over the whole text: each hunk below is searched anyway, and
    # a hunk's match is a match of the whole text, so it only repeated that work)
    moved = _removed_counter(patch)
    removed_bodies: frozenset | None = None
    findings: list[Finding] = []
    bodies: dict[str, list[str]] | None = None
    losing: dict[str, bool] | None = None
    for fd in patch.files:
        if not _is_c(fd.path) or _PRIMITIVE_HEADER_RE.match(fd.path):
            continue
        barrier_header = bool(_BARRIER_HEADER_RE.search(fd.path))
        for hunk in fd.hunks:
            hunk_added = joined_text(hunk, LineKind.ADDED)
            if "mb" not in hunk_added and "smp_" not in hunk_added and "virt_" not in hunk_added:
                continue  # _QUICK_RE needs one of these
            if not (
                "smp_" in hunk_added or "virt_" in hunk_added or _MB_CALL_RE.search(hunk_added)
            ) or not BARRIER_RE.search(hunk_added):
                continue  # no added line can hold a barrier call (the first test is _QUICK_RE)
            new = _new_side(hunk)
            if not any(dl.kind is LineKind.ADDED and _QUICK_RE.search(dl.text) and BARRIER_RE.search(dl.text) for dl in new):
                continue
            texts = [dl.text for dl in new]
            scans = scan_lines(texts, starts_in_comment(texts))
            fresh = None
            for idx, dl in enumerate(new):
                if dl.kind is not LineKind.ADDED:
                    continue
                text = dl.text
                if "mb" not in text and "smp_" not in text and "virt_" not in text:
                    continue  # every barrier name holds one of these, and the code is cut from the text
                code = scans[idx].code
                calls = [
                    m.group(1)
                    for m in BARRIER_RE.finditer(code)
                    if not (_VOID_BARRIER_RE.match(m.group(1)) and _follows_open_or_comma(code, m.start()))
                ]  # a void barrier passed as an argument is a test of the primitive, not a use
                if not calls:
                    continue
                dm = _DEFINE_RE.match(code)
                if dm and (barrier_header or BARRIER_RE.match(dm.group(1) + "(") or _PRIMITIVE_RE.match(dm.group(1))):
                    continue  # defines a barrier primitive
                fm = _FUNC_DEF_RE.match(code)
                if fm and BARRIER_RE.match(fm.group(1) + "(") and not dl.text.startswith((" ", "\t")):
                    continue
                if _is_wrapper(scans, new, idx):
                    continue  # a macro or inline function forwarding to a barrier: an API, not a use
                calls = [c for c in calls if not (c.startswith("__smp_") and barrier_header)]
                if not calls:
                    continue
                keys = _moved_keys(code)
                if keys and all(moved.get(k, 0) > 0 for k in keys):
                    if fresh is None:
                        if removed_bodies is None:
                            removed_bodies = _removed_bodies(patch)
                        fresh = _in_new_function(new, removed_bodies)
                    if not fresh[idx]:
                        for k in keys:
                            moved[k] -= 1
                        continue  # moved unchanged (a barrier moved into a new function is new code)
                name = calls[0]
                if name in ("smp_mb__after_atomic", "smp_mb__before_atomic"):
                    step = -1 if name == "smp_mb__after_atomic" else 1
                    op = _neighbour_op(scans, idx, step)
                    if op is not None:
                        where = "follows" if step < 0 else "precedes"
                        findings.append(
                            RULE.finding(
                                patch,
                                f"{name}() at line {dl.new_no} {where} {op}(), which is not a read-modify-write "
                                "atomic: it orders nothing here",
                                path=fd.path,
                                line=dl.new_no,
                                input_line=dl.input_line,
                                hunk=hunk,
                                symbol=f"{name}@{(hunk.section or '').strip()[:60]}:non-rmw",
                                details={"barrier": name, "problem": "not-after-rmw", "op": op, "smp": True},
                            )
                        )
                        continue
                comment = scans[idx].comment
                above = comment_above(scans, idx)
                if above is None and idx > 0 and _CONTROL_RE.match(scans[idx - 1].code) and not scans[idx - 1].comment:
                    above = comment_above(scans, idx - 1)  # comment above "if (cond)" for a conditional barrier
                text = " ".join(c for c in (comment, above or "") if c)
                symbol = f"{name}@{(hunk.section or '').strip()[:60]}"
                if not text.strip():
                    findings.append(
                        RULE.finding(
                            patch,
                            f"{name}() at line {dl.new_no} added without a comment saying what it "
                            + ("pairs with" if _is_smp(name) else "orders"),
                            path=fd.path,
                            line=dl.new_no,
                            input_line=dl.input_line,
                            hunk=hunk,
                            symbol=symbol,
                            details={"barrier": name, "problem": "no-comment", "smp": _is_smp(name)},
                        )
                    )
                    continue
                if not _comment_ok(name, text):
                    want = "what it pairs with" if _is_smp(name) else "what it orders"
                    findings.append(
                        RULE.finding(
                            patch,
                            f"{name}() at line {dl.new_no} has a comment, but it does not say {want}",
                            path=fd.path,
                            line=dl.new_no,
                            input_line=dl.input_line,
                            hunk=hunk,
                            symbol=symbol,
                            details={"barrier": name, "problem": "comment-without-pairing", "comment": text[:200],
                                     "smp": _is_smp(name)},
                        )
                    )
                    continue
                if not _is_smp(name):
                    continue
                # beyond checkpatch: look at the named other side when the patch shows it
                if bodies is None:
                    bodies = _function_bodies(patch)
                    losing = _hunks_losing_barrier(patch)
                for other in _pair_targets(text):
                    body = bodies.get(other)
                    missing = False
                    if body is not None:
                        body_scans = scan_lines(body)
                        missing = not any(
                            BARRIER_RE.search(s.code) or _IMPLYING_RE.search(s.code) for s in body_scans
                        )
                    elif losing and losing.get(other):
                        missing = True
                    if missing:
                        findings.append(
                            RULE.finding(
                                patch,
                                f"{name}() says it pairs with {other}(), but {other}() in this patch has no "
                                "barrier or implied barrier",
                                path=fd.path,
                                line=dl.new_no,
                                input_line=dl.input_line,
                                hunk=hunk,
                                symbol=f"{symbol}->{other}",
                                details={"barrier": name, "problem": "other-side-missing", "other": other,
                                         "comment": text[:200], "smp": True},
                            )
                        )
                        break
    return findings


def reply(findings: Sequence[Finding], patch: Patch) -> str:
    """A reviewer's question under the quoted barrier(s)."""
    no_comment = [f for f in findings if f.details.get("problem") == "no-comment"]
    weak = [f for f in findings if f.details.get("problem") == "comment-without-pairing"]
    other = [f for f in findings if f.details.get("problem") == "other-side-missing"]
    non_rmw = [f for f in findings if f.details.get("problem") == "not-after-rmw"]
    parts: list[str] = []
    for f in non_rmw:
        op = str(f.details.get("op", ""))
        kind = "load" if ("read" in op.lower()) else "store"
        parts.append(
            f"As far as I understand Documentation/atomic_t.txt, {f.details.get('barrier')}() only orders "
            f"against a read-modify-write atomic, and {op}() is a plain {kind}. "
            "Should this be smp_mb() (or an RMW atomic / a release-acquire pair), and could the comment "
            "say what it pairs with?"
        )

    def names(fs: Sequence[Finding]) -> str:
        items = sorted({f"{f.details.get('barrier', 'barrier')}()" for f in fs})
        return ", ".join(items)

    if no_comment:
        smp = any(f.details.get("smp") for f in no_comment)
        if smp:
            if len(no_comment) == 1:
                ask = (f"Could you add a comment to the {names(no_comment)} here saying which barrier it "
                       "pairs with, and what ordering it provides? I could not find the other side from "
                       "the patch, and I might be missing it,")
            else:
                ask = (f"Could you add a comment to each of the new barriers here ({names(no_comment)}) "
                       "saying which barrier it pairs with, and what ordering it provides? I could not "
                       "find the other sides from the patch, and I might be missing them,")
            parts.append(
                ask + " but a comment like \"Pairs with smp_rmb() in foo()\" would help the next person "
                "who touches this code."
            )
        else:
            parts.append(
                f"Could you add a short comment to the {names(no_comment)} saying which accesses it "
                "orders (e.g. the descriptor writes against the doorbell write)? It is not obvious to "
                "me from the patch alone."
            )
    if weak:
        parts.append(
            f"The comment at {names(weak)} says why a barrier is wanted, but not what it pairs "
            "with. Would you mind naming the matching barrier (or the operation that implies it) and "
            "the function where it lives?"
        )
    for f in other:
        target = f.details.get("other", "the other side")
        parts.append(
            f"The comment says this pairs with {target}(), but I do not see a barrier, or an operation "
            f"that implies one, in {target}() as changed by this patch. Am I missing something, or is "
            "the other half still to be added?"
        )
    return "\n\n".join(parts)
