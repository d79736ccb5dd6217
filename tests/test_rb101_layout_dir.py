"""RB101's cache-line map from a directory of type files (the ``-g`` objects of one build, issue 25), and no
map where the type information's struct has members the patch's lines do not show.

The objects are compiled here from the tests' own C (gcc -g -c), never a kernel's."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from reviewbot.cli import main
from reviewbot.layout.review import NoMap, ReorderMap, reorder_map_or_reason
from reviewbot.rules import rb101_struct_reorder as rb101
from test_rb101_layout_map import BEFORE, HOT_MOVE, PRELUDE, findings, make_patch

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc to compile the test structs")

HOT = "The ring pointer is read with depth on every submission; keep them in the same cache line."
MOVED = "ring moves from line 1 to line 0, next to depth; not moved by the patch but changing line: owner moves from line 0 to line 1, next to flags"


def compile_to(directory: Path, name: str, source: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    src, obj = directory / f"{name}.c", directory / f"{name}.o"
    src.write_text(source)
    subprocess.run(["gcc", "-g", "-c", src, "-o", obj], check=True)
    src.unlink()  # the directory holds objects only, as a build's would
    return obj


@pytest.fixture
def objects(tmp_path) -> Path:
    """``objs/``: one object without the struct (first in name order), one with it, and a text file."""
    objs = tmp_path / "objs"
    compile_to(objs, "a_other", PRELUDE + "struct other { u64 a; } o;\n")
    compile_to(objs / "sub", "foo", PRELUDE + BEFORE + "struct foo_queue q;\n")
    (objs / "README").write_text("not type information\n")
    return objs


def test_a_directory_gives_the_map_of_the_object_that_has_the_struct(tmp_path, objects):
    mail = make_patch(tmp_path, BEFORE, HOT_MOVE, "keep ring next to depth", HOT)
    patch, [f] = findings(mail, objects)
    _patch, [single] = findings(mail, objects / "sub" / "foo.o")
    assert f.message == single.message and MOVED in f.message
    assert f.details["layout_map"] == single.details["layout_map"]
    assert f.details["layout_source"] == "objs"  # the directory's name says which build, not which object held it
    assert f"From objs: {MOVED}." in rb101.reply_point([f], patch)


def test_check_and_layout_take_a_directory(tmp_path, objects):
    mail = make_patch(tmp_path, BEFORE, HOT_MOVE, "keep ring next to depth", HOT)
    checked = CliRunner().invoke(main, ["check", "--btf", str(objects), str(mail)])
    assert checked.exit_code == 1 and "ring moves from line 1 to line 0" in checked.output
    shown = CliRunner().invoke(main, ["layout", "--btf", str(objects), "--patch", str(mail), "foo_queue"])
    assert shown.exit_code == 0, shown.output
    assert "ring" in shown.output and "<< moved line" in shown.output
    missing = CliRunner().invoke(main, ["layout", "--btf", str(objects), "nosuch"])
    assert missing.exit_code == 2 and "struct nosuch is not in the type information of objs/" in missing.output
    empty = tmp_path / "empty"
    empty.mkdir()
    nothing = CliRunner().invoke(main, ["layout", "--btf", str(empty), "foo_queue"])
    assert nothing.exit_code == 2 and "no ELF file or BTF blob" in nothing.output


def test_a_type_the_patch_adds_is_looked_up_in_the_other_objects(tmp_path):
    """The first object has the struct but not the type of the member the patch adds; the second has both."""
    added = HOT_MOVE.replace("\tu32\t\t\ttail;\n", "\tu32\t\t\ttail;\n\tstruct foo_stats\tstats;\n")
    objs = tmp_path / "objs"
    compile_to(objs, "a_foo", PRELUDE + BEFORE + "struct foo_queue q;\n")
    compile_to(objs, "b_foo", PRELUDE + "struct foo_stats { u64 n[2]; } s;\n" + BEFORE + "struct foo_queue q;\n")
    mail = make_patch(tmp_path, BEFORE, added, "keep ring next to depth", HOT)
    patch, [f] = findings(mail, objs)
    assert f.details["layout_source"] == "objs" and f.details["layout_map"]  # from b_foo.o: a_foo.o lacks foo_stats
    only_first, [g] = findings(mail, objs / "a_foo.o")
    assert "layout_map" not in g.details and "foo_stats" in g.details["layout_no_map"]


def _extra_member_case(tmp_path, where: str):
    """The type information's struct has a member the patch's hunk does not show, at its start (the hunk
    shows the opening line: lock moved first) or its end (the hunk shows the closing line: ring moved)."""
    if where == "start":
        other = BEFORE.replace("struct foo_queue {\n", "struct foo_queue {\n\tu64\t\t\tgen;\n")
        new = BEFORE.replace("\tspinlock_t\t\tlock;\n", "").replace(
            "struct foo_queue {\n", "struct foo_queue {\n\tspinlock_t\t\tlock;\n"
        )
    else:
        other = BEFORE.replace("\tu32\t\t\ttail;\n", "\tu32\t\t\ttail;\n\tu64\t\t\tgen;\n")
        new = HOT_MOVE
    obj = compile_to(tmp_path / "objs", "foo", PRELUDE + other + "struct foo_queue q;\n")
    mail = make_patch(tmp_path, BEFORE, new, "keep ring next to depth", HOT)
    return obj, mail


@pytest.mark.parametrize("where", ["start", "end"])
def test_members_the_patch_does_not_show_give_no_map_and_say_why(tmp_path, where):
    """The hunk shows the struct from its opening line to its closing one: a struct with another member
    there is another version of it. No map (never one of a struct the patch does not describe); the finding
    says why in its details, its message and draft are those without type information."""
    obj, mail = _extra_member_case(tmp_path, where)
    patch, [f] = findings(mail, obj)
    _patch, [plain] = findings(mail, None)
    assert f.message == plain.message and f.severity is plain.severity
    assert "layout_map" not in f.details
    why = f.details["layout_no_map"]
    assert "gen" in why and "do not show" in why and "another kernel version" in why
    assert rb101.reply_point([f], patch) == rb101.reply_point([plain], patch)
    got = reorder_map_or_reason(str(obj), "struct foo_queue", patch)
    assert isinstance(got, NoMap) and got.struct_known
    shown = CliRunner().invoke(main, ["layout", "--btf", str(obj), "--patch", str(mail), "foo_queue"])
    assert shown.exit_code == 2 and "no map" in shown.output and "gen" in shown.output


def test_a_struct_the_type_information_lacks_says_nothing(tmp_path, objects):
    """Without the struct there is nothing to say in the finding, not even why."""
    mail = make_patch(tmp_path, BEFORE, HOT_MOVE, "keep ring next to depth", HOT)
    _patch, [f] = findings(mail, objects / "a_other.o")
    assert "layout_no_map" not in f.details and "layout_map" not in f.details
    got = reorder_map_or_reason(str(objects / "a_other.o"), "struct foo_queue", _patch)
    assert isinstance(got, NoMap) and not got.struct_known and "not in" in got.reason
    assert isinstance(reorder_map_or_reason(str(objects), "struct foo_queue", _patch), ReorderMap)


def test_members_the_patch_puts_under_if_else_give_no_map(tmp_path):
    """memcg's obj_stock_pcp: nr_bytes moved into '#if PAGE_SHIFT > 16 ... #else ... #endif', one declaration
    per branch. Laid out as two members the map would be wrong; the type information knows one
    configuration, not which branch the patch's readers build: no map, said why."""
    obj = compile_to(tmp_path / "objs", "foo", PRELUDE + BEFORE + "struct foo_queue q;\n")
    branches = "#if PAGE_SHIFT > 16\n\tu64\t\t\tcold[4];\n#else\n\tu32\t\t\tcold[4];\n#endif\n"
    new = HOT_MOVE.replace("\tu64\t\t\tcold[4];\n", branches)
    mail = make_patch(tmp_path, BEFORE, new, "keep ring next to depth", HOT)
    _patch, [f] = findings(mail, obj)
    assert "layout_map" not in f.details
    assert "#if PAGE_SHIFT > 16" in f.details["layout_no_map"] and "configuration" in f.details["layout_no_map"]
