"""A parsed hunk keeps its body as text and makes its DiffLines on first use: both readings must agree.

The rules' early steps read the hunk's text (``Hunk.body``, the view's texts and counts) and only some
hunks' DiffLines (``Hunk.lines``); every answer read from the text must be the one the DiffLines give.
The diff below has the odd lines a mail can carry: an empty context line whose space the mailer ate, a
line starting with a bare CR, a ``\\ No newline`` marker inside a body and one after it, and an address
the archive obfuscated (``@...``).
"""

from __future__ import annotations

import copy
from dataclasses import FrozenInstanceError

import pytest

from reviewbot.models import FileDiff, Hunk, LineKind, Patch
from reviewbot.parse.patch import parse_diff
from reviewbot.view import PatchView

DIFF = (
    "diff --git a/lib/x.c b/lib/x.c\n"
    "--- a/lib/x.c\n"
    "+++ b/lib/x.c\n"
    "@@ -1,5 +1,6 @@ struct x {\n"
    " \tint a;\n"
    "-\tint b;\n"
    "+\tint c;\n"
    "\n"
    "+\t/* mail ada@...mple.org */\n"
    "\r\tint d;\n"
    " };\n"
    "@@ -10,2 +11,2 @@ static int f(void)\n"
    "-\treturn 0;\n"
    "\\ No newline at end of file\n"
    "+\treturn 1;\n"
    " }\n"
    "\\ No newline at end of file\n"
)


def _hunks() -> tuple[Hunk, ...]:
    (fd,) = parse_diff(DIFF.split("\n")[:-1], obfuscated=True)
    return fd.hunks


def test_the_body_text_and_counts_are_those_of_the_lines() -> None:
    hunks = _hunks()
    assert [len(h.body) for h in hunks] == [7, 5]
    for h in hunks:
        assert h.body == tuple(dl.raw for dl in h.lines)
        kinds = [dl.kind for dl in h.lines]
        assert (h.context_count, h.added_count, h.removed_count) == (
            kinds.count(LineKind.CONTEXT),
            kinds.count(LineKind.ADDED),
            kinds.count(LineKind.REMOVED),
        )
    first, second = hunks
    assert first.body[3] == " " and first.body[5] == " \r\tint d;"  # the eaten space given back
    assert [dl.altered for dl in first.lines] == [False, False, False, False, True, False, False]
    assert [dl.input_line for dl in second.lines] == [13, 14, 15, 16, 17]
    assert second.lines[-1].kind is LineKind.MARKER and second.lines[-1].new_no is None


def test_lines_are_made_once_and_the_hunk_is_a_value() -> None:
    h = _hunks()[0]
    assert h.lines is h.lines  # rules compare lines with ``is``
    same = Hunk(h.header, h.old_start, h.old_len, h.new_start, h.new_len, h.section, tuple(h.lines))
    assert same == h and hash(same) == hash(h) and same.body == h.body
    assert copy.deepcopy(h) == h
    assert h != Hunk(h.header, h.old_start, h.old_len, h.new_start, h.new_len, h.section, h.lines[:-1])
    with pytest.raises(FrozenInstanceError):
        h.header = "@@ -1 +1 @@"  # type: ignore[misc]


def test_the_views_texts_are_the_lines_texts() -> None:
    hunks = _hunks()
    fd = FileDiff("lib/x.c", "lib/x.c", "lib/x.c", hunks)
    patch = Patch(message=None, commit_message="", files=(fd,))  # type: ignore[arg-type]  # no mail needed
    (fv,) = PatchView(patch).files
    for hv in fv.hunks:
        lines = hv.hunk.lines
        new = [dl for dl in lines if dl.kind in (LineKind.CONTEXT, LineKind.ADDED)]
        old = [dl for dl in lines if dl.kind in (LineKind.CONTEXT, LineKind.REMOVED)]
        assert hv.new_texts == [dl.text for dl in new]
        assert hv.new_added == [dl.kind is LineKind.ADDED for dl in new]
        assert hv.old_texts == [dl.text for dl in old]
        assert hv.old_removed == [dl.kind is LineKind.REMOVED for dl in old]
        assert [new[i] for i in hv.added_in_new] == list(hv.added)
        assert hv.added_texts == [dl.text for dl in hv.added]
        assert hv.removed_texts == [dl.text for dl in hv.removed]
        assert hv.context_text == "\n".join(dl.text for dl in lines if dl.kind is LineKind.CONTEXT)
        assert hv.text(LineKind.MARKER) == "\n".join(dl.text for dl in lines if dl.kind is LineKind.MARKER)
        assert hv.diff_text == "\n".join(dl.raw for dl in lines)
        for kind in LineKind:
            assert hv.texts(kind) == [dl.text for dl in lines if dl.kind is kind]
        assert hv.context_texts == hv.texts(LineKind.CONTEXT)
    assert fv.added_text == "\n".join(dl.text for h in hunks for dl in h.added)
    assert fv.removed_text == "\n".join(dl.text for h in hunks for dl in h.removed)
    assert (fd.added_count, fd.removed_count) == (3, 2)


def test_a_new_side_lines_numbers_are_counted_without_the_lines() -> None:
    hunks = _hunks()
    fd = FileDiff("lib/x.c", "lib/x.c", "lib/x.c", hunks)
    patch = Patch(message=None, commit_message="", files=(fd,))  # type: ignore[arg-type]  # no mail needed
    (fv,) = PatchView(patch).files
    counted = [[hv.new_numbers(i) for i in range(len(hv.new_texts))] for hv in fv.hunks]  # before any DiffLine
    assert [h.body_input_line for h in hunks] == [5, 13]
    for hv, numbers in zip(fv.hunks, counted):
        new = [dl for dl in hv.hunk.lines if dl.kind in (LineKind.CONTEXT, LineKind.ADDED)]
        assert numbers == [(dl.new_no, dl.input_line) for dl in new]
        built = Hunk(hv.hunk.header, hv.hunk.old_start, hv.hunk.old_len, hv.hunk.new_start, hv.hunk.new_len,
                     hv.hunk.section, hv.hunk.lines)  # fmt: skip
        assert built.body_input_line is None  # a hunk built with its lines: the numbers are its DiffLines'
        (other,) = PatchView(Patch(message=None, commit_message="", files=(FileDiff("x", "x", "x", (built,)),))).files  # type: ignore[arg-type]
        assert [other.hunks[0].new_numbers(i) for i in range(len(new))] == numbers
