"""No map of a struct the patch does not describe (issue 25): the type information's struct must be the one
the patch's hunks show. A hunk that shows the struct's opening line shows every member before its first
change, one that shows the closing ``};`` every member after its last; members the patch puts under
``#if``/``#else`` exist in one configuration, not both. Each gives no map, with the reason."""

from __future__ import annotations

import shutil

import pytest

from reviewbot.layout import Unresolved
from reviewbot.layout.plan import after_patch, layout_of
from reviewbot.layout.source import load
from test_layout_after import PRELUDE, compile_dwarf, first_patch, git_diff

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc to compile the test structs")

OLD = "struct u {\n\tu32 a;\n\tvoid *b;\n\tu8 c;\n\tu64 d;\n};\nstruct u v;\n"
FIRST = OLD.replace("\tu32 a;\n\tvoid *b;\n", "\tvoid *b;\n\tu32 a;\n")  # the hunk shows the opening
LAST = OLD.replace("\tu8 c;\n\tu64 d;\n", "\tu64 d;\n\tu8 c;\n")  # the hunk shows the closing


def after(tmp_path, types_source: str, new: str):
    info = load(compile_dwarf(tmp_path, "types", PRELUDE + types_source))
    return after_patch(layout_of(info, "u"), info, first_patch(git_diff(tmp_path, OLD, new)))


@pytest.mark.parametrize(
    "types_source, new",
    [
        (OLD.replace("struct u {\n", "struct u {\n\tu64 gen;\n"), FIRST),  # a member before the hunk's first
        (OLD.replace("\tu64 d;\n", "\tu64 d;\n\tu64 gen;\n"), LAST),  # a member after the hunk's last
    ],
)
def test_members_the_hunk_does_not_show_give_no_map(tmp_path, types_source, new):
    with pytest.raises(Unresolved, match=r"has members the patch's lines of it do not show \(gen: another kernel"):
        after(tmp_path, types_source, new)


def test_the_same_struct_gives_the_map(tmp_path):
    assert [m.name for m in after(tmp_path, OLD, FIRST).flat()] == ["b", "a", "c", "d"]
    assert [m.name for m in after(tmp_path, OLD, LAST).flat()] == ["a", "b", "d", "c"]


def test_members_under_if_else_give_no_map(tmp_path):
    new = LAST.replace("\tu8 c;\n", "#if PAGE_SHIFT > 16\n\tu32 c;\n#else\n\tu8 c;\n#endif\n")
    with pytest.raises(Unresolved, match=r"under '#if PAGE_SHIFT > 16': which of them exist depends on the config"):
        after(tmp_path, OLD, new)


def test_lines_in_another_order_name_the_first_that_differs(tmp_path):
    """A reader found the reason quoting the hunk's first lines, which the type information has in that very
    order; the difference was further down. The reason names the lines up to the first that differs."""
    # the type information has b and c swapped: after a it has c, where the patch's lines have b
    types_source = OLD.replace("\tvoid *b;\n\tu8 c;\n", "\tu8 c;\n\tvoid *b;\n")
    with pytest.raises(Unresolved) as err:
        after(tmp_path, types_source, LAST)
    assert "lines of struct u (a, b) are not in that order" in str(err.value)
    assert "from b on they differ" in str(err.value)
