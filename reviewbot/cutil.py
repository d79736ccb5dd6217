"""Small C helpers shared by the review rules: comments, literals, struct members.

These are line-based approximations of the C lexer, enough for diff hunks
(which start anywhere in a file and never show a whole translation unit):

* :func:`scan_line` splits one line into its *code* (comments and the insides
  of string/char literals removed) and its *comment text*, carrying the
  "inside a block comment" state from one line to the next, so the ``//`` in
  ``"https://example.org"`` is not taken for a comment (case C14);
* :func:`scan_lines` does that for a sequence of lines; :class:`LazyScans` gives the
  same scans line by line as a rule reads them (a barrier's neighbours, not the other
  3,000 lines of a new file);
* :func:`comment_above` finds the comment block that ends on the line directly
  above a given line (C89 ``/* */`` or C99 ``//`` style, also inside a macro
  whose lines end with ``\\``);
* :func:`member_names` recognises a member declaration in a struct/union body.

Everything is linear in the length of the input; the regexes are compiled once.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence as SequenceABC
from functools import lru_cache
from typing import NamedTuple, Sequence, overload

from reviewbot import lazyre

__all__ = [
    "LineScan",
    "scan_line",
    "scan_lines",
    "comment_above",
    "is_comment_only",
    "starts_in_comment",
    "member_names",
    "normalise",
    "STRUCT_OPEN_RE",
]

# One token at a time: a string literal, a char literal, or a comment opener.
# Literals may be unterminated on this line (the regex then stops at the line end).
_TOKEN_RE = lazyre.compile(r'"(?:[^"\\]|\\.)*"?|\'(?:[^\'\\]|\\.)*\'?|/\*|//')
_BLOCK_END_RE = lazyre.compile(r"\*/")
_WS_RE = lazyre.compile(r"\s+")


class LineScan(NamedTuple):
    """One line split for rules.

    ``code``: the line with comments removed and string/char literal contents
    replaced by ``""``/``''`` (so no barrier name inside a string is seen).
    ``comment``: the text of every comment (or comment part) on the line.
    ``in_comment_after``: True when a ``/*`` block is still open at the end.
    ``started_in_comment``: True when the line began inside a block comment.
    """

    code: str
    comment: str
    in_comment_after: bool
    started_in_comment: bool = False

    @property
    def has_comment(self) -> bool:
        return bool(self.comment.strip()) or self.started_in_comment or self.in_comment_after


def scan_line(text: str, in_comment: bool = False) -> LineScan:
    """Split ``text`` (one line, no newline) into code and comment, given the block state.

    ``in_comment`` says whether the line starts inside a ``/* ... */`` block.
    Returns a :class:`LineScan`; never raises.
    """
    if in_comment:
        if "*/" not in text:  # a line inside a block comment
            return LineScan("", text.strip().lstrip("*").strip(), True, True)
    elif '"' not in text and "'" not in text and ("/" not in text or ("/*" not in text and "//" not in text)):
        return LineScan(text, "", False, False)  # the common case: plain code (a "/" may divide)
    if '"' not in text and "'" not in text:
        return _scan_comments(text, in_comment)
    started = in_comment
    code: list[str] = []
    comment: list[str] = []
    pos = 0
    n = len(text)
    while pos < n:
        if in_comment:
            m = _BLOCK_END_RE.search(text, pos)
            if m is None:
                comment.append(text[pos:])
                pos = n
                break
            comment.append(text[pos : m.start()])
            pos = m.end()
            in_comment = False
            code.append(" ")
            continue
        m = _TOKEN_RE.search(text, pos)
        if m is None:
            code.append(text[pos:])
            break
        code.append(text[pos : m.start()])
        tok = m.group(0)
        if tok == "//":
            comment.append(text[m.end() :])
            pos = n
            break
        if tok == "/*":
            in_comment = True
            pos = m.end()
            continue
        # a literal: keep its quotes, drop its contents
        code.append(tok[0] * 2)
        pos = m.end()
    parts = (c.strip().lstrip("*").strip() for c in comment)
    return LineScan("".join(code), " ".join(p for p in parts if p), in_comment, started)


def _scan_comments(text: str, in_comment: bool) -> LineScan:
    """:func:`scan_line` for a line without literals: only the comment markers to find.

    The most common line that needs scanning (``int x; /* ... */``, a comment's first or
    last line), done with plain ``str.find`` instead of the token loop.
    """
    started = in_comment
    code: list[str] = []
    comment: list[str] = []
    pos = 0
    line = -2  # where the next "//" is, looked for again only once a comment has passed it (else quadratic)
    while True:
        if in_comment:
            end = text.find("*/", pos)
            if end < 0:
                comment.append(text[pos:])
                break
            comment.append(text[pos:end])
            code.append(" ")
            pos = end + 2
            in_comment = False
            continue
        block = text.find("/*", pos)
        if line == -2 or 0 <= line < pos:
            line = text.find("//", pos)
        if line >= 0 and (block < 0 or line < block):  # a // comment runs to the end of the line
            code.append(text[pos:line])
            comment.append(text[line + 2 :])
            break
        if block < 0:
            code.append(text[pos:])
            break
        code.append(text[pos:block])
        pos = block + 2
        in_comment = True
    if len(comment) == 1:
        said = comment[0].strip().lstrip("*").strip()
    else:
        said = " ".join(p for p in (c.strip().lstrip("*").strip() for c in comment) if p)
    return tuple.__new__(LineScan, ("".join(code), said, in_comment, started))


def scan_lines(lines: Sequence[str], in_comment: bool = False) -> list[LineScan]:
    """:func:`scan_line` over consecutive lines, carrying the block-comment state.

    Cached by content: several rules, and several steps of one rule, scan the
    same side of the same hunk.
    """
    return list(_scan_lines(tuple(lines), in_comment))


@lru_cache(maxsize=512)
def _scan_lines(lines: tuple[str, ...], in_comment: bool) -> tuple[LineScan, ...]:
    out: list[LineScan] = []
    append = out.append
    plain = tuple.__new__  # LineScan(text, "", False, False) without the NamedTuple call
    for text in lines:
        if not in_comment and "/" not in text and '"' not in text and "'" not in text:
            append(plain(LineScan, (text, "", False, False)))  # the common case: plain code
            continue
        if in_comment and "*/" not in text:  # inside a block comment: the state carries on
            append(plain(LineScan, ("", text.strip().lstrip("*").strip(), True, True)))
            continue
        scan = scan_line(text, in_comment)
        in_comment = scan.in_comment_after
        append(scan)
    return tuple(out)


def starts_in_comment(lines: Sequence[str]) -> bool:
    """Guess whether a hunk's first line is inside a block comment opened above the hunk.

    True when the first comment delimiter in ``lines`` (ignoring ``//`` lines) is
    a ``*/``, or when the first non-blank line starts with ``*`` (a comment
    continuation line) before any ``/*`` is seen.
    """
    first_text = True
    for text in lines:
        stripped = text.strip()
        if first_text and stripped:
            first_text = False
            if stripped.startswith("*") and not stripped.startswith("*/") and "/*" not in stripped:
                return True
        o = text.find("/*")
        c = text.find("*/")
        if c >= 0 and (o < 0 or c < o):
            return True
        if o >= 0:
            return False
    return False


def _bare_code(code: str) -> str:
    """Code with a macro continuation backslash and whitespace removed."""
    stripped = code.strip()
    if stripped.endswith("\\"):
        stripped = stripped[:-1].rstrip()
    return stripped


def is_comment_only(scan: LineScan) -> bool:
    """True when the line holds a comment (or part of one) and no code (a trailing ``\\`` is allowed)."""
    return not _bare_code(scan.code) and scan.has_comment


def comment_above(scans: Sequence[LineScan], index: int) -> str | None:
    """The comment block ending on the line directly above ``scans[index]``, or None.

    The line above must hold only a comment (or the end of one). The block
    extends upward over lines that are inside the same ``/* */`` comment or are
    further comment-only lines (consecutive ``//`` lines). Returns the joined
    comment text (may be empty for a bare ``/*``/``*/`` frame) or None when the
    line above is code, blank, or missing.
    """
    i = index - 1
    if i < 0 or not is_comment_only(scans[i]):
        return None
    parts: list[str] = []
    while i >= 0 and is_comment_only(scans[i]):
        parts.append(scans[i].comment)
        # a line that starts inside a block continues the block above it
        if not scans[i].started_in_comment and not _continues_line_comments(scans, i):
            break
        i -= 1
    parts.reverse()
    return " ".join(p for p in parts if p)


def _continues_line_comments(scans: Sequence[LineScan], i: int) -> bool:
    """True when line ``i`` and the line above are both comment-only lines (a ``//`` run)."""
    return i - 1 >= 0 and is_comment_only(scans[i - 1]) and not scans[i - 1].in_comment_after


def normalise(text: str) -> str:
    """Collapse whitespace runs to one space and strip (for 'unchanged modulo whitespace')."""
    return _WS_RE.sub(" ", text).strip()


# --------------------------------------------------------------- struct bodies

STRUCT_OPEN_RE = lazyre.compile(
    r"^\s*(?:typedef\s+)?(?:static\s+)?(struct|union)\s+([A-Za-z_]\w*)?\s*(?:__\w+(?:\([^)]*\))?\s*)*\{"
)
_ATTR_CALL_RE = lazyre.compile(r"__\w+\s*\([^()]*\)")
_FUNC_PTR_RE = lazyre.compile(r"\(\s*\*\s*([A-Za-z_]\w*)\s*\)\s*\(")
_DECL_START_RE = lazyre.compile(r"^[A-Za-z_]")
_NOT_DECL_RE = lazyre.compile(
    r"^(?:return|if|else|for|while|do|switch|case|goto|break|continue|default|#)\b|^[A-Za-z_]\w*\s*(?:\(|=[^=]|\+\+|--|\+=|-=|->|\.)"
)
# The name is searched from each word's first letter only ("(?<![A-Za-z_])"): a match starting inside
# a word would also match from that word's first letter, which the search tries first, so the guard
# changes no result; it spares trying every letter of every word of the line.
_NAME_AT_END_RE = lazyre.compile(
    r"(?<![A-Za-z_])([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)*(?::\s*\w+)?\s*(?:__\w+(?:\([^)]*\))?\s*)*$"
)
_KEYWORDS = frozenset(
    "struct union enum const volatile unsigned signed int long short char void bool u8 u16 u32 u64 "
    "s8 s16 s32 s64 __u8 __u16 __u32 __u64 __s8 __s16 __s32 __s64 __le16 __le32 __le64 __be16 __be32 __be64".split()
)


@lru_cache(maxsize=4096)
def member_names(code: str) -> tuple[str, ...] | None:
    """The member name(s) declared by one struct/union body line, or None if it is not a declaration.

    ``code`` is the comment-free code of the line (see :func:`scan_line`).
    Handles ``type name;``, ``type *name;``, ``type name[N];``, bit fields
    ``type name:3;``, several declarators ``int a, b;`` and function pointers
    ``int (*fn)(void *);``. Attributes in ``__x(...)`` form after the name are
    skipped. A line without the closing ``;`` is not a declaration.

    Cached by content: a struct's lines come back in every hunk and patch that shows them.
    """
    text = code.strip()
    if not text.endswith(";") or not _DECL_START_RE.match(text):
        return None
    text = text[:-1].rstrip()
    m = _FUNC_PTR_RE.search(text) if "(" in text else None  # the pattern starts with "("
    if m and not text.startswith(("return", "if", "while")):
        return (m.group(1),)
    if _NOT_DECL_RE.match(text) or text.startswith("}"):
        return None
    if "(" in text:
        # attributes such as __aligned(8) or ____cacheline_aligned_in_smp(...)
        text = _ATTR_CALL_RE.sub("", text).strip()
        if "(" in text:
            return None
    # drop initialisers (rare in struct bodies but harmless)
    parts = [p.strip() for p in text.split(",")]
    names: list[str] = []
    for k, part in enumerate(parts):
        m = _NAME_AT_END_RE.search(part)
        if m is None:
            return None
        name = m.group(1)
        if name in _KEYWORDS:
            return None
        if k == 0:
            head = part[: m.start(1)].rstrip()
            if not head or not (head[-1].isalnum() or head[-1] in "_*]"):
                return None  # a single word is not a declaration
        names.append(name)
    return tuple(names)


class LazyScans(SequenceABC):
    """``scan_lines(texts, starts_in_comment(texts))`` of one side of a hunk, each line scanned when a rule first
    reads it.

    A barrier's steps read the lines around it (its comment, the statements beside it, its function's
    header), not the other 3,000 lines of a new file. The block-comment state a line starts in changes only
    on a line holding ``/*`` or ``*/``, so only those lines are read to carry it (:meth:`_state_after`):
    each scan is the one :func:`scan_lines` gives.
    """

    def __init__(self, texts: Sequence[str], in_comment: bool | None = None) -> None:
        self.texts = texts
        self._in_comment = in_comment  # the state the first line starts in; None: starts_in_comment(texts)
        self._marks: list[int] | None = None  # the lines holding "/*" or "*/", in order
        self._start = False  # the state the first line starts in (starts_in_comment)
        self._after: list[bool] = []  # the state after each of the first marks, as far as carried yet
        self._scans: dict[int, LineScan] = {}

    def __len__(self) -> int:
        return len(self.texts)

    @overload
    def __getitem__(self, i: int) -> LineScan: ...

    @overload
    def __getitem__(self, i: slice) -> list[LineScan]: ...

    def __getitem__(self, i: int | slice) -> LineScan | list[LineScan]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self.texts)))]
        if i < 0:
            i += len(self.texts)
        if not 0 <= i < len(self.texts):
            raise IndexError(i)
        scan = self._scans.get(i)
        if scan is None:
            scan = self._scans[i] = scan_line(self.texts[i], self._state(i))
        return scan

    @staticmethod
    def _state_after(text: str, state: bool) -> bool:
        """The block-comment state after a line, given the state it starts in: from its delimiters alone when
        it holds no quote (no literal can hide one), read as scan_line() reads them, else by scan_line()."""
        if '"' in text or "'" in text:
            return scan_line(text, state).in_comment_after
        pos = 0
        while True:
            if state:
                end = text.find("*/", pos)
                if end < 0:
                    return True
                state, pos = False, end + 2
            else:
                opening = text.find("/*", pos)
                if opening < 0 or 0 <= text.find("//", pos, opening + 1):
                    return False  # no comment opens, or a // comment runs to the end of the line first
                state, pos = True, opening + 2

    def _state(self, i: int) -> bool:
        """Whether line ``i`` starts inside a block comment."""
        marks = self._marks
        if marks is None:
            texts = self.texts
            marks = self._marks = [k for k, text in enumerate(texts) if "/*" in text or "*/" in text]
            # starts_in_comment() decides on the first line holding a mark at the latest, or on the first
            # non-blank line when none holds one
            last = (
                0
                if self._in_comment is not None
                else marks[0]
                if marks
                else next((k for k, t in enumerate(texts) if t.strip()), len(texts))
            )
            self._start = starts_in_comment(texts[: last + 1]) if self._in_comment is None else self._in_comment
        after = self._after
        before = bisect_left(marks, i)  # the marks on lines above line i
        while len(after) < before:
            j = marks[len(after)]
            state = after[-1] if after else self._start
            if ("*/" if state else "/*") in self.texts[j]:  # else the line cannot end or open a block comment
                state = self._state_after(self.texts[j], state)
            after.append(state)
        return after[before - 1] if before else self._start
