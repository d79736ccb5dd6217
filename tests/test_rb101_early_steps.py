"""RB101's early steps (issue 9) leave out only what the struct walk would find nothing in.

The steps are cheap tests in front of the walk: a new or deleted file, a hunk that is neither in a struct
by its header nor able to open one, a file that does not remove and re-add a declaration of one name, a
patch that adds no ``struct_group``. Each is checked here against what the walk and the word lists say,
on the rule's own example patches (rules/examples/RB101/), so a word added to one list and not the other
fails here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewbot.cutil import STRUCT_OPEN_RE, scan_lines
from reviewbot.models import DiffLine, FileDiff, Hunk, LineKind
from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.rule import RuleContext
from reviewbot.rules import rb101_struct_reorder as rb101
from reviewbot.view import PatchView

EXAMPLES = Path(rb101.__file__).resolve().parent / "examples" / "RB101"
PATCHES = sorted(EXAMPLES.glob("*.patch"))


def _patch(path: Path):
    return parse_patch(parse_rfc822(path.read_bytes(), str(path)))


def test_the_examples_are_there() -> None:
    assert len(PATCHES) >= 30
    assert any(p.name.startswith("bad-") for p in PATCHES) and any(p.name.startswith("good-") for p in PATCHES)


def test_every_group_macro_holds_the_word_the_prefilter_looks_for() -> None:
    # _grouped looks at a hunk's added lines only when "struct_group" is somewhere in it
    assert all("struct_group" in macro for macro in rb101.GROUP_MACROS)


@pytest.mark.parametrize("path", PATCHES, ids=lambda p: p.name)
def test_a_hunk_with_a_struct_opening_passes_the_opening_test(path: Path) -> None:
    for fv in PatchView(_patch(path)).files:
        for hv in fv.hunks:
            for kinds in ((LineKind.CONTEXT, LineKind.REMOVED), (LineKind.CONTEXT, LineKind.ADDED)):
                codes = [s.code for s in scan_lines([d.text for d in hv.lines if d.kind in kinds])]
                if any(STRUCT_OPEN_RE.match(code) for code in codes):
                    assert rb101._may_open_struct(hv), (path.name, hv.hunk.header)


@pytest.mark.parametrize("path", [p for p in PATCHES if p.name.startswith("bad-")], ids=lambda p: p.name)
def test_a_file_with_a_finding_passes_every_early_step(path: Path) -> None:
    patch = _patch(path)
    findings = list(rb101.check(patch, RuleContext(strict=True)))
    assert findings, path.name
    view = PatchView(patch)
    for f in findings:
        [fv] = [fv for fv in view.files if fv.path == f.path]
        assert rb101._has_both_sides(fv.diff) and rb101._removes_and_adds(fv.diff)
        assert any(rb101._struct_from_section(hv.section) or rb101._may_open_struct(hv) for hv in fv.hunks)
        assert rb101._may_reorder(fv)


def test_a_new_file_has_no_old_side() -> None:
    # a function moved from zed.h into a new header: the new file's only hunk is "@@ -0,0 +1,21 @@"
    patch = _patch(EXAMPLES.parent / "RB102" / "good-function-moved-to-new-header.patch")
    old, new = patch.files
    assert (old.path, new.path) == ("drivers/zed/zed.h", "drivers/zed/zed_ticket.h")
    assert rb101._has_both_sides(old)
    assert [(h.old_start, h.old_len) for h in new.hunks] == [(0, 0)]
    assert not rb101._has_both_sides(new)
    assert not any(d.kind is LineKind.REMOVED for h in new.hunks for d in h.lines)


MARKER_ONLY = b"""From: A <a@example.org>
Subject: [PATCH] zed: a marker line that reads like a struct opening

Only the marker line says "struct ... {"; no line of code opens a struct.

Signed-off-by: A <a@example.org>
---
diff --git a/drivers/zed/zed.c b/drivers/zed/zed.c
--- a/drivers/zed/zed.c
+++ b/drivers/zed/zed.c
@@ -1,2 +1,2 @@ int zed_init(void)
 \tint a;
-\tint b;
\\ struct zed_odd {
+\tint b;
--
2.43.0
"""


def test_a_marker_line_is_no_struct_opening() -> None:
    patch = parse_patch(parse_rfc822(MARKER_ONLY.replace(b"\\t", b"\t"), "marker.patch"))
    [hv] = PatchView(patch).files[0].hunks
    assert [d.kind for d in hv.lines] == [LineKind.CONTEXT, LineKind.REMOVED, LineKind.MARKER, LineKind.ADDED]
    assert "struct zed_odd {" in hv.diff_text
    assert not rb101._may_open_struct(hv)


@pytest.mark.parametrize("path", PATCHES, ids=lambda p: p.name)
def test_every_line_is_found_where_the_file_has_it(path: Path) -> None:
    # _place_of looks in the hunks whose header covers the line's numbers first: it must find every line, at
    # the place the file's lines in order give it
    for fd in _patch(path).files:
        flat = [(k, i) for k, h in enumerate(fd.hunks) for i in range(len(h.lines))]
        for k, i in flat:
            line = fd.hunks[k].lines[i]
            assert rb101._place_of(fd, line) == (k, i)
            assert (
                list(rb101._lines_after(fd, (k, i))) == [d for h in fd.hunks for d in h.lines][flat.index((k, i)) + 1 :]
            )


def test_a_line_is_found_when_its_hunk_header_does_not_add_up() -> None:
    member = DiffLine(LineKind.ADDED, "\tint b;", None, 40, 7)  # a line number outside its header's range
    hunks = (
        Hunk("@@ -1,1 +1,1 @@", 1, 1, 1, 1, "", (DiffLine(LineKind.CONTEXT, "\tint a;", 1, 1, 3),)),
        Hunk("@@ -5,1 +5,2 @@", 5, 1, 5, 2, "", (DiffLine(LineKind.CONTEXT, "};", 5, 5, 6), member)),
    )
    fd = FileDiff("lib/x.c", "lib/x.c", "lib/x.c", hunks)
    assert rb101._place_of(fd, member) == (1, 1)
    assert rb101._place_of(fd, DiffLine(LineKind.ADDED, "\tint b;", None, 40, 7)) is None  # equal, not the same


def test_a_file_that_only_adds_lines_moves_nothing() -> None:
    # the line-count step agrees with the text step behind it: no removed (or no added) line, no re-declared name
    for path in PATCHES:
        for fv in PatchView(_patch(path)).files:
            if not rb101._removes_and_adds(fv.diff):
                assert not rb101._may_reorder(fv), path.name


def _one_hunk_file(lines: str):
    """The view of a one-file, one-hunk patch whose hunk has ``lines``."""
    text = (
        "From: A <a@example.org>\nSubject: [PATCH] zed: one hunk\n\nA hunk.\n\nSigned-off-by: A <a@example.org>\n"
        "---\ndiff --git a/drivers/zed/zed.c b/drivers/zed/zed.c\n--- a/drivers/zed/zed.c\n+++ b/drivers/zed/zed.c\n"
        f"@@ -1,3 +1,3 @@ int zed_init(void)\n{lines}--\n2.43.0\n"
    )
    return PatchView(parse_patch(parse_rfc822(text.encode(), "one.patch"))).files[0]


@pytest.mark.parametrize(
    ("line", "opens"),
    [
        ("\tstruct zed_args args = {", False),  # a variable's initialiser: its code is its text, no opening
        ("static const struct zed_ops zed_ops = {", False),
        ("struct zed_odd {", True),
        ("struct zed_odd /* hot fields */ {", True),  # the code without the comment opens it
        ('struct zed_odd __attr("x") {', True),  # a literal the code cuts: read as an opening
    ],
)
def test_an_initialiser_opens_no_struct(line: str, opens: bool) -> None:
    [hv] = _one_hunk_file(f" \tint a;\n-\tint b;\n+\tint b;\n {line}\n").hunks
    assert rb101._may_open_struct(hv) is opens
    codes = [s.code for s in scan_lines(hv.new_texts)]
    assert any(STRUCT_OPEN_RE.match(code) for code in codes) is opens  # what the walk's tracker would see


def test_the_reorder_step_reads_the_hunks_it_is_given() -> None:
    # "b" is removed and re-added in the one hunk: given no hunk to read (none is walked), no name comes back
    fv = _one_hunk_file(" \tint a;\n-\tint b;\n+\tint b;\n \tint c;\n")
    assert rb101._may_reorder(fv) and rb101._may_reorder(fv, fv.hunks)
    assert not rb101._may_reorder(fv, ())
