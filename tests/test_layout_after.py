"""The layout after a patch's reorder, computed from type information (issue 25), equals the layout gcc gives
the patched struct: both versions of each struct are compiled in the test, the patch between them is
``git diff --no-index``'s, and every member's offset (bits for a bit-field) and the size must agree."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import DATA
from reviewbot.checking import read_input
from reviewbot.cli import main
from reviewbot.layout import Unresolved
from reviewbot.layout.plan import after_patch, layout_of, moves
from reviewbot.layout.source import load
from reviewbot.parse.mail import parse_message
from reviewbot.parse.patch import parse_patch

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc to compile the test structs")

PRELUDE = """\
#include <stdint.h>
typedef uint8_t u8; typedef uint16_t u16; typedef uint32_t u32; typedef uint64_t u64;
typedef u32 dev_t; typedef u64 sector_t; typedef _Bool bool;
typedef struct { int counter; } atomic_t;
typedef struct { u32 raw; } spinlock_t;
struct list_head { struct list_head *next, *prev; };
struct mutex { atomic_t owner; spinlock_t wait_lock; struct list_head wait_list; };
#define ____cacheline_aligned __attribute__((__aligned__(64)))
#define __packed __attribute__((__packed__))
#define __cacheline_group_begin(GROUP) u8 __cacheline_group_begin__##GROUP[0]
#define __cacheline_group_end(GROUP) u8 __cacheline_group_end__##GROUP[0]
#define __cacheline_group_begin_aligned(GROUP) __cacheline_group_begin(GROUP) __attribute__((__aligned__(64)))
struct mutex prelude_mutex; /* gcc emits the types of what is used: this one needs list_head */
enum item_kind { ITEM_A, ITEM_B, ITEM_C, NR_ITEMS };
enum item_kind prelude_kind;
"""

# struct block_device as it was in November 2023 (include/linux/blk_types.h), reduced: the members of the
# corpus patch's hunk and the ones before it with their sizes; the types behind pointers left undefined.
BLOCK_DEVICE = """\
struct block_device {
	sector_t		bd_start_sect;
	sector_t		bd_nr_sectors;
	struct gendisk *	bd_disk;
	struct request_queue *	bd_queue;
	struct disk_stats *bd_stats;
	unsigned long		bd_stamp;
	bool			bd_read_only;	/* read-only policy */
	u8			bd_partno;
	bool			bd_write_holder;
	bool			bd_has_submit_bio;
	dev_t			bd_dev;
	atomic_t		bd_openers;
	spinlock_t		bd_size_lock; /* for bd_inode->i_size updates */
	struct inode *		bd_inode;	/* will die */
	void *			bd_claiming;
	void *			bd_holder;
	const struct blk_holder_ops *bd_holder_ops;
	struct mutex		bd_holder_lock;
	int			bd_holders;
	struct kobject		*bd_holder_dir;
	atomic_t		bd_fsfreeze_count;
	struct mutex		bd_fsfreeze_mutex;
};
struct block_device v;
"""


def compile_dwarf(tmp: Path, name: str, text: str) -> Path:
    src, obj = tmp / f"{name}.h", tmp / f"{name}.o"
    src.write_text(text)
    subprocess.run(["gcc", "-w", "-g", "-c", "-x", "c", src, "-o", obj], check=True)
    return obj


def places(layout) -> dict[str, tuple[int, int]]:
    """name -> (bit offset, bit-field width); a named inner struct's members as ``outer.inner`` too."""
    out = {}
    for m in layout.flat():
        out[m.name] = (m.bit_offset if m.bit_offset is not None else m.offset * 8, m.bit_size)
        for inner in m.members:
            out[f"{m.name}.{inner.name}"] = (inner.offset * 8, inner.bit_size)
    return out


def git_diff(tmp: Path, old: str, new: str) -> Path:
    a, b = tmp / "a" / "include" / "x.h", tmp / "b" / "include" / "x.h"
    for path, text in ((a, old), (b, new)):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    run = subprocess.run(
        ["git", "diff", "--no-index", "--no-prefix", "a/include/x.h", "b/include/x.h"],
        cwd=tmp,
        capture_output=True,
        text=True,
    )
    diff = tmp / "reorder.diff"
    diff.write_text(
        run.stdout.replace("--- a/include/x.h", "--- a/include/x.h").replace("+++ b/include/x.h", "+++ b/include/x.h")
    )
    return diff


def first_patch(path: Path):
    return parse_patch(parse_message(read_input(str(path))[0].raw))


def check_after(tmp: Path, struct: str, old: str, new: str, patch=None) -> tuple:
    before_obj = compile_dwarf(tmp, "before", PRELUDE + old)
    after_obj = compile_dwarf(tmp, "after", PRELUDE + new)
    info = load(before_obj)
    before = layout_of(info, struct)
    after = after_patch(before, info, patch if patch is not None else first_patch(git_diff(tmp, old, new)))
    truth = layout_of(load(after_obj), struct)
    assert places(after) == places(truth)
    assert after.size == truth.size
    return before, after


def test_the_corpus_bd_inode_move_as_gcc_lays_it_out(tmp_path):
    """The real patch (tests/data/layout/bd_inode.mbox) on the struct it was written against."""
    patched = BLOCK_DEVICE.replace("\tstruct inode *\t\tbd_inode;\t/* will die */\n", "").replace(
        "\tdev_t\t\t\tbd_dev;\n", "\tdev_t\t\t\tbd_dev;\n\tstruct inode\t\t*bd_inode;\t/* will die */\n\n"
    )
    assert patched != BLOCK_DEVICE
    patch = first_patch(DATA / "layout" / "bd_inode.mbox")
    before, after = check_after(tmp_path, "block_device", BLOCK_DEVICE, patched, patch)
    moved = moves(before, after)
    # the swap the changelog describes: bd_inode into line 0, bd_openers and bd_size_lock out to line 1
    assert [(m.name, m.before, m.after) for m in moved] == [
        ("bd_inode", 1, 0),
        ("bd_openers", 0, 1),
        ("bd_size_lock", 0, 1),
    ]
    assert moved[0].beside == ("bd_dev",)  # the next member, bd_openers, is on line 1 now


CASES = {
    "pointer across a line": (
        "big",
        "struct big {\n\tu64 a[7];\n\tu32 x;\n\tu32 y;\n\tvoid *hot;\n\tu64 b[6];\n};\nstruct big v;\n",
        "struct big {\n\tu64 a[7];\n\tvoid *hot;\n\tu32 x;\n\tu32 y;\n\tu64 b[6];\n};\nstruct big v;\n",
    ),
    "bit-fields moved": (
        "flags",
        "struct flags {\n\tu8 a;\n\tunsigned int on:1;\n\tunsigned int mode:3;\n\tu64 count;\n"
        "\tu16 w;\n};\nstruct flags v;\n",
        "struct flags {\n\tu8 a;\n\tu16 w;\n\tu64 count;\n\tunsigned int on:1;\n\tunsigned int mode:3;\n"
        "};\nstruct flags v;\n",
    ),
    "new members by type name": (
        "grow",
        "struct grow {\n\tu32 id;\n\tvoid *p;\n\tu8 tail;\n};\nstruct grow v;\n",
        "struct grow {\n\tu32 id;\n\tunsigned short extra;\n\tvoid *p;\n\tstruct list_head node;\n"
        "\tunsigned long big[3];\n\tu8 tail;\n\tint (*fn)(void *);\n};\nstruct grow v;\n",
    ),
    "cache-line aligned member": (
        "hot",
        "struct hot {\n\tspinlock_t lock;\n\tu64 stats[4];\n\tatomic_t refs;\n\tu8 flag;\n};\nstruct hot v;\n",
        "struct hot {\n\tspinlock_t lock;\n\tu8 flag;\n\tu64 stats[4];\n\tatomic_t refs ____cacheline_aligned;\n"
        "};\nstruct hot v;\n",
    ),
    "cache-line group markers": (
        "grp",
        "struct grp {\n\tu64 cold;\n\tvoid *rx;\n\tu32 seq;\n\tstruct mutex m;\n};\nstruct grp v;\n",
        "struct grp {\n\tu64 cold;\n\tstruct mutex m;\n\t__cacheline_group_begin_aligned(read);\n\tvoid *rx;\n"
        "\tu32 seq;\n\t__cacheline_group_end(read);\n};\nstruct grp v;\n",
    ),
    "a moved member whose type changes": (
        "retyped",
        "struct retyped {\n\tu8 a;\n\tu64 b;\n\tunsigned int flags;\n\tu8 c;\n};\nstruct retyped v;\n",
        "struct retyped {\n\tu8 a;\n\tunsigned int flags:5;\n\tu64 b;\n\tu8 c;\n};\nstruct retyped v;\n",
    ),
    "array lengths from enumerators and suffixed numbers": (
        "counted",
        "struct counted {\n\tu8 a;\n\tvoid *p;\n\tu16 w;\n};\nstruct counted v;\n",
        "struct counted {\n\tu8 a;\n\tu16 w;\n\tu32 counts[NR_ITEMS];\n\tu8 pad[2UL * NR_ITEMS];\n\tvoid *p;\n"
        "};\nstruct counted v;\n",
    ),
    "inside cache-line aligned anonymous groups, hunk starting in one": (
        "ring",
        "struct ring {\n\tstruct {\n\t\tu32 flags;\n\t\tu64 a1;\n\t\tu64 a2;\n\t\tu64 a3;\n\t\tu64 a4;\n"
        "\t\tu64 a5;\n\t\tvoid *a;\n\t} ____cacheline_aligned;\n\tstruct {\n\t\tspinlock_t lock;\n"
        "\t\tu32 seq;\n\t\tvoid *c;\n\t} ____cacheline_aligned;\n\tu8 tail;\n};\nstruct ring v;\n",
        "struct ring {\n\tstruct {\n\t\tu32 flags;\n\t\tu64 a1;\n\t\tu64 a2;\n\t\tu64 a3;\n\t\tu64 a4;\n"
        "\t\tu64 a5;\n\t\tvoid *c;\n\t\tvoid *a;\n\t} ____cacheline_aligned;\n\tstruct {\n\t\tu32 seq;\n"
        "\t\tspinlock_t lock;\n\t} ____cacheline_aligned;\n\tu8 tail;\n};\nstruct ring v;\n",
    ),
    "a new aligned group and a named inner struct": (
        "grouped",
        "struct grouped {\n\tu8 a;\n\tstruct {\n\t\tu64 hits;\n\t\tu32 misses;\n\t} stats;\n\tvoid *p;\n"
        "\tunion { u64 l; u32 w[3]; } v;\n\tu16 z;\n};\nstruct grouped v;\n",
        "struct grouped {\n\tu8 a;\n\tstruct {\n\t\tu32 misses;\n\t\tu64 hits;\n\t} stats;\n"
        "\tunion { u64 l; u32 w[3]; } v;\n\tstruct {\n\t\tvoid *p;\n\t\tu16 z;\n\t} ____cacheline_aligned;\n"
        "};\nstruct grouped v;\n",
    ),
    "an alignment attribute moved to where it applies (only the opening line changes)": (
        "attrs",
        "____cacheline_aligned\nstruct attrs {\n\tvoid *a;\n\tu32 b;\n\tu64 c;\n};\nstruct attrs v;\n",
        "struct ____cacheline_aligned attrs {\n\tvoid *a;\n\tu32 b;\n\tu64 c;\n};\nstruct attrs v;\n",
    ),
    "packed struct": (
        "pk",
        "struct pk {\n\tu8 a;\n\tu32 b;\n\tu16 c;\n\tu64 d;\n} __packed;\nstruct pk v;\n",
        "struct pk {\n\tu64 d;\n\tu8 a;\n\tu16 c;\n\tu32 b;\n} __packed;\nstruct pk v;\n",
    ),
    "around an anonymous union": (
        "anon",
        "struct anon {\n\tu8 tag;\n\tunion {\n\t\tu64 l;\n\t\tu32 w[3];\n\t};\n\tu16 len;\n\tvoid *p;\n};\n"
        "struct anon v;\n",
        "struct anon {\n\tvoid *p;\n\tu8 tag;\n\tunion {\n\t\tu64 l;\n\t\tu32 w[3];\n\t};\n\tu16 len;\n};\n"
        "struct anon v;\n",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_after_layout_as_gcc_lays_it_out(tmp_path, case):
    struct, old, new = CASES[case]
    before, after = check_after(tmp_path, struct, old, new)
    # the reorder moved something (or, for the attribute, changed the size)
    assert places(before) != places(after) or before.size != after.size


def test_cli_before_and_after_json_and_text(tmp_path):
    obj = compile_dwarf(tmp_path, "before", PRELUDE + BLOCK_DEVICE)
    patch = DATA / "layout" / "bd_inode.mbox"
    result = CliRunner().invoke(
        main, ["layout", "--format", "json", "--btf", str(obj), "--patch", str(patch), "block_device"]
    )
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    before = {m["name"]: m for m in doc["before"]["members"]}
    after = {m["name"]: m for m in doc["after"]["members"]}
    assert (before["bd_inode"]["offset"], before["bd_inode"]["line"]) == (64, 1)
    assert (after["bd_inode"]["offset"], after["bd_inode"]["line"]) == (56, 0)
    assert doc["moves"][0] == {"name": "bd_inode", "before": 1, "after": 0, "beside": ["bd_dev"]}
    text = CliRunner().invoke(main, ["layout", "--btf", str(obj), "--patch", str(patch), "block_device"]).output
    moved = [line for line in text.splitlines() if "<< moved line" in line]
    assert [line.split()[0] for line in moved] == ["bd_inode", "bd_openers", "bd_size_lock"]


@pytest.mark.parametrize(
    ("new_line", "reason"),
    [
        ("\tchar name[TASK_COMM_LEN];\n", "TASK_COMM_LEN"),
        ("\tstruct not_defined_here thing;\n", "struct not_defined_here"),
        ("\tmystery_t what;\n", "mystery_t"),
        ("\tunsigned int a:NR_BITS;\n", "bit-field width"),  # a moved member re-declared with a macro width
    ],
)
def test_unresolved_types_give_no_map(tmp_path, new_line, reason):
    old = "struct u {\n\tu32 a;\n\tvoid *b;\n\tu8 c;\n};\nstruct u v;\n"
    keep_a = "" if " a:" in new_line else "\tu32 a;\n"  # the macro-width line re-declares a itself
    new = "struct u {\n\tu8 c;\n" + new_line + keep_a + "\tvoid *b;\n};\nstruct u v;\n"
    info = load(compile_dwarf(tmp_path, "before", PRELUDE + old))
    with pytest.raises(Unresolved, match=reason):
        after_patch(layout_of(info, "u"), info, first_patch(git_diff(tmp_path, old, new)))


def test_a_patch_for_another_version_of_the_struct_gives_no_map(tmp_path):
    """Type information where the struct has other members than the patch's context: no map, said why."""
    other = BLOCK_DEVICE.replace("\tspinlock_t\t\tbd_size_lock; /* for bd_inode->i_size updates */\n", "")
    obj = compile_dwarf(tmp_path, "before", PRELUDE + other)
    result = CliRunner().invoke(
        main, ["layout", "--btf", str(obj), "--patch", str(DATA / "layout" / "bd_inode.mbox"), "block_device"]
    )
    assert result.exit_code == 2
    assert "no map" in result.output and "another kernel version" in result.output
