"""What several rules read of one patch, worked out once: the engine's shared work per file and hunk.

The parsed :class:`~reviewbot.models.Patch` is a frozen value; the rules ask
the same questions of it again and again (the added text of a hunk, its
removed lines, its new side). A :class:`PatchView` is built once per patch by
the engine (:func:`reviewbot.engine.check_patch`) and handed to every rule as
``RuleContext.view``; each answer is computed on first use
(:class:`once`, a lock-free ``functools.cached_property``) and kept while the patch is checked. The
views are plain objects owned by one check: nothing is written into the
frozen patch, and nothing outlives the check.

A rule called on its own (a test, a benchmark) gets a fresh view from
:func:`patch_view`.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Callable, Generic, TypeVar

from reviewbot.models import DiffLine, FileDiff, Hunk, LineKind, Patch

_WORD_RE = re.compile(r"\w+")
#: Up to this many hunks a patch is read hunk by hunk for a word (:meth:`PatchView.hunks_naming`), beyond it
#: through an index of its words.
SMALL_PATCH_HUNKS = 64

if TYPE_CHECKING:  # pragma: no cover - typing only
    from reviewbot.rule import RuleContext

__all__ = ["FileView", "HunkView", "PatchView", "once", "patch_view"]

T = TypeVar("T")


class once(Generic[T]):  # noqa: N801 - used as a decorator, like the functools.cached_property it replaces
    """A property computed on first use and kept in the instance (``functools.cached_property`` without its lock).

    Python 3.11's ``cached_property`` takes one lock per property *class-wide* on every first use (3.12
    dropped it); a check makes tens of thousands of first uses, one view per patch, never shared between
    threads. After the first use the value sits in the instance's ``__dict__``, which Python reads before
    this (non-data) descriptor, so later reads cost a plain attribute lookup.
    """

    def __init__(self, func: Callable[[Any], T]) -> None:
        self.func = func
        self.name = func.__name__
        self.__doc__ = func.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, objtype: type | None = None) -> T:
        if obj is None:
            return self  # type: ignore[return-value]  # the descriptor itself, read from the class
        value = obj.__dict__[self.name] = self.func(obj)
        return value


def _side(body: tuple[str, ...], changed: str) -> tuple[list[str], list[bool]]:
    """One side of a hunk from its body: the texts of the context lines and of the lines marked
    ``changed`` (``+`` for the new side, ``-`` for the old), and for each whether it is changed."""
    marks = (" ", changed)
    return [line[1:] for line in body if line[0] in marks], [line[0] == changed for line in body if line[0] in marks]


def _texts(body: tuple[str, ...], kind: LineKind) -> list[str]:
    """The texts of the ``kind`` lines of a hunk's ``body`` (``Hunk.body``: each line with its kind's
    character in front), read without making the hunk's DiffLines."""
    mark = kind.value
    return [line[1:] for line in body if line[0] == mark]


class HunkView:
    """One hunk of one file, and its added/removed lines and texts.

    The texts are read from the hunk's ``body`` (the diff's own lines): a rule that only searches a
    hunk's text never makes its DiffLines (``Hunk.lines`` is read on first use).
    """

    def __init__(self, path: str, hunk: Hunk) -> None:
        self.path = path
        self.hunk = hunk

    @property
    def section(self) -> str:
        return self.hunk.section

    @property
    def lines(self) -> tuple[DiffLine, ...]:
        return self.hunk.lines

    @once
    def _changed(self) -> tuple[tuple[DiffLine, ...], tuple[DiffLine, ...]]:
        """(added lines, removed lines), sorted out in one pass over the hunk."""
        added: list[DiffLine] = []
        removed: list[DiffLine] = []
        for dl in self.hunk.lines:
            if dl.kind is LineKind.ADDED:
                added.append(dl)
            elif dl.kind is LineKind.REMOVED:
                removed.append(dl)
        return tuple(added), tuple(removed)

    @property
    def added(self) -> tuple[DiffLine, ...]:
        """The added lines (``Hunk.added``), in order."""
        return self._changed[0]

    @property
    def removed(self) -> tuple[DiffLine, ...]:
        """The removed lines (``Hunk.removed``), in order."""
        return self._changed[1]

    @once
    def added_texts(self) -> list[str]:
        """The texts of the added lines, in order (``[d.text for d in added]``, without the DiffLines)."""
        return _texts(self.hunk.body, LineKind.ADDED)

    @once
    def added_text(self) -> str:
        """The texts of the added lines joined by newlines: one search tells whether any line can match."""
        return "\n".join(self.added_texts)

    @once
    def removed_text(self) -> str:
        """The texts of the removed lines joined by newlines."""
        return "\n".join(self.removed_texts)

    @once
    def context_texts(self) -> list[str]:
        """The texts of the context lines, in order (``[d.text for d in lines if d.kind is CONTEXT]``, without
        the DiffLines)."""
        return _texts(self.hunk.body, LineKind.CONTEXT)

    @once
    def context_text(self) -> str:
        """The texts of the context lines joined by newlines."""
        return "\n".join(self.context_texts)

    @once
    def removed_texts(self) -> list[str]:
        """The texts of the removed lines, in order (``[d.text for d in removed]``, without the DiffLines)."""
        return _texts(self.hunk.body, LineKind.REMOVED)

    # Each side is read from the hunk's body only when asked: a barrier's steps read the new side of its hunk,
    # the old side only when they look for a removed function (and a struct walk reads both).

    @once
    def _new_side(self) -> tuple[list[str], list[bool]]:
        """(new side's texts, which of them are added), read from the hunk's body."""
        return _side(self.hunk.body, "+")

    @once
    def _old_side(self) -> tuple[list[str], list[bool]]:
        """(old side's texts, which of them are removed), read from the hunk's body."""
        return _side(self.hunk.body, "-")

    @property
    def new_texts(self) -> list[str]:
        """The texts of the new side (the context and added lines, in order), without the DiffLines."""
        return self._new_side[0]

    @property
    def new_added(self) -> list[bool]:
        """For each line of :attr:`new_texts`: is it an added line (else a context line)?"""
        return self._new_side[1]

    @property
    def old_texts(self) -> list[str]:
        """The texts of the old side (the context and removed lines, in order), without the DiffLines."""
        return self._old_side[0]

    @property
    def old_removed(self) -> list[bool]:
        """For each line of :attr:`old_texts`: is it a removed line (else a context line)?"""
        return self._old_side[1]

    @once
    def added_in_new(self) -> list[int]:
        """For each added line (in order), its index in :attr:`new_texts`."""
        return [i for i, added in enumerate(self.new_added) if added]

    @once
    def new_in_body(self) -> list[int]:
        """For each line of :attr:`new_texts` (in order), its index in the hunk's body (and in
        :attr:`diff_text`'s lines)."""
        return [k for k, line in enumerate(self.hunk.body) if line[0] in (" ", "+")]

    def new_numbers(self, i: int) -> tuple[int | None, int | None]:
        """The numbers of line ``i`` of :attr:`new_texts` as its DiffLine has them: (``new_no``, ``input_line``).

        A finding needs one line's numbers: they are counted from the hunk's new start and the input line of
        its body's first line (each body line is one input line), without making the DiffLines."""
        hunk = self.hunk
        first = hunk.body_input_line
        if first is None:  # a hunk built with its DiffLines (tests, the store): read that one
            dl = hunk.lines[self.new_in_body[i]]  # one DiffLine per body line, in order
            return dl.new_no, dl.input_line
        return hunk.new_start + i, first + self.new_in_body[i]

    @once
    def diff_text(self) -> str:
        """The hunk's lines as the diff shows them (each with its ``+``/``-``/`` `` prefix, as
        ``DiffLine.raw``), joined by newlines: one search finds a kind of line by what it holds
        (``"\n-" + ...``: a removed line), or a text on any side."""
        return "\n".join(self.hunk.body)

    def text(self, kind: LineKind) -> str:
        """The joined text of the ``kind`` lines (added, removed or context)."""
        if kind is LineKind.ADDED:
            return self.added_text
        if kind is LineKind.REMOVED:
            return self.removed_text
        if kind is LineKind.CONTEXT:
            return self.context_text
        return "\n".join(_texts(self.hunk.body, kind))

    def texts(self, kind: LineKind) -> list[str]:
        """The texts of the ``kind`` lines (added, removed or context), in order, without the DiffLines."""
        if kind is LineKind.ADDED:
            return self.added_texts
        if kind is LineKind.REMOVED:
            return self.removed_texts
        if kind is LineKind.CONTEXT:
            return self.context_texts
        return _texts(self.hunk.body, kind)


class FileView:
    """One file's diff and the views of its hunks."""

    def __init__(self, diff: FileDiff) -> None:
        self.diff = diff
        self.path = diff.path
        self.hunks = tuple(HunkView(diff.path, h) for h in diff.hunks)

    @once
    def added_text(self) -> str:
        """The texts of the file's added lines (all hunks) joined by newlines.

        Read in one pass over the hunks' bodies, not through each hunk's ``added_text``: most files are asked
        only this (a word search over the whole file first), and their hunks' own texts are then never made."""
        return self._joined(LineKind.ADDED)

    @once
    def removed_text(self) -> str:
        """The texts of the file's removed lines (all hunks) joined by newlines, in one pass (as
        :attr:`added_text`)."""
        return self._joined(LineKind.REMOVED)

    def text(self, kind: LineKind) -> str:
        """The joined text of the file's ``kind`` lines."""
        if kind is LineKind.ADDED:
            return self.added_text
        if kind is LineKind.REMOVED:
            return self.removed_text
        return self._joined(kind)

    def _joined(self, kind: LineKind) -> str:
        """The texts of the file's ``kind`` lines, read from its hunks' bodies in one pass, joined by newlines."""
        return "\n".join([t for h in self.diff.hunks for t in _texts(h.body, kind)])


class PatchView:
    """A patch and the views of its files, for one check of it."""

    def __init__(self, patch: Patch) -> None:
        self.patch = patch
        self.files = tuple(FileView(fd) for fd in patch.files)

    @once
    def _by_path(self) -> dict[str, tuple[FileView, ...]]:
        out: dict[str, list[FileView]] = {}
        for fv in self.files:
            out.setdefault(fv.path, []).append(fv)
        return {path: tuple(views) for path, views in out.items()}

    @once
    def _hunks_by_word(self) -> dict[str, list[HunkView]]:
        out: dict[str, list[HunkView]] = {}
        for fv in self.files:
            for hv in fv.hunks:
                for word in set(_WORD_RE.findall(hv.diff_text)):
                    out.setdefault(word, []).append(hv)
        return out

    @once
    def _all_hunks(self) -> list[HunkView]:
        return [hv for fv in self.files for hv in fv.hunks]

    def hunks_naming(self, word: str) -> list[HunkView]:
        """The hunks (in patch order) whose lines, of any kind, may hold ``word`` (an identifier): in a patch of
        many hunks those holding it as a whole word, from an index made once per check, so asking it for each
        barrier or member costs what the answer holds, not the patch's number of hunks; in a small patch simply
        every hunk (no index to make). Callers still look for the word in each hunk given."""
        if len(self._all_hunks) <= SMALL_PATCH_HUNKS:
            return self._all_hunks
        return self._hunks_by_word.get(word, [])

    def files_at(self, path: str | None) -> tuple[FileView, ...]:
        """The views of the patch's files at ``path`` (usually one), found without going over every file:
        a step run once per barrier or member must not cost the patch's number of files each time."""
        return self._by_path.get(path, ()) if path is not None else ()


def patch_view(patch: Patch, ctx: "RuleContext | None" = None) -> PatchView:
    """The engine's view of ``patch`` from ``ctx``, or a new one when the rule runs on its own."""
    view = ctx.view if ctx is not None else None
    if view is not None and view.patch is patch:
        return view
    return PatchView(patch)
