"""`reviewbot layout` against the compiler (issue 25): every member of the structs of tests/data/layout/structs.h
where gcc puts it, read from gcc's own DWARF, from gcc's BTF (an ELF .BTF section and the bare blob), and
printed by a compiled C program (offsetof, and a bit-field's bits found by setting it to all ones)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import DATA
from reviewbot.cli import main

LAYOUT = DATA / "layout"
pytestmark = [
    pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc to compile the test structs"),
    pytest.mark.skipif(shutil.which("objcopy") is None, reason="needs binutils' objcopy for the bare BTF blob"),
]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict:
    """The test structs compiled three ways, and gcc's offsets of every member."""
    out = tmp_path_factory.mktemp("layout")
    dwarf, btf_elf, btf_blob, prog = out / "dwarf.o", out / "btf.o", out / "structs.btf", out / "offsets"
    subprocess.run(["gcc", "-g", "-c", LAYOUT / "structs.c", "-o", dwarf], check=True)
    subprocess.run(["gcc", "-gbtf", "-c", LAYOUT / "structs.c", "-o", btf_elf], check=True)
    subprocess.run(["objcopy", f"--dump-section=.BTF={btf_blob}", btf_elf, out / "copy.o"], check=True)
    subprocess.run(["gcc", "-w", LAYOUT / "offsets.c", "-o", prog], check=True)
    truth: dict[str, dict] = {}
    for line in subprocess.run([prog], check=True, capture_output=True, text=True).stdout.splitlines():
        struct, member, bit_offset, bit_size, size = line.split()
        entry = truth.setdefault(struct, {"size": int(size), "members": {}})
        entry["members"][member] = (int(bit_offset), int(bit_size))
    return {"sources": {"DWARF": dwarf, "BTF section": btf_elf, "BTF blob": btf_blob}, "truth": truth}


def layout_json(source: Path, struct: str) -> dict:
    result = CliRunner().invoke(main, ["layout", "--format", "json", "--btf", str(source), struct])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def flat(members: list[dict]) -> dict[str, tuple[int, int]]:
    """name -> (bit offset, bit-field width or 0), anonymous structs/unions' members included."""
    out: dict[str, tuple[int, int]] = {}
    for m in members:
        if m.get("members") is not None and not m["name"]:
            out.update(flat(m["members"]))
        elif m["name"]:
            out[m["name"]] = (m["bit_offset"], m["bit_size"]) if "bit_offset" in m else (m["offset"] * 8, 0)
    return out


def test_the_test_file_has_enough_structs(built):
    truth = built["truth"]
    assert len(truth) >= 20
    kinds = {"bit-fields": "s03_bits", "anonymous union": "s05_anon_union", "aligned": "s07_aligned"}
    for what, struct in kinds.items():
        assert struct in truth, what


@pytest.mark.parametrize("source", ["DWARF", "BTF section", "BTF blob"])
def test_every_member_where_gcc_puts_it(built, source):
    for struct, expected in built["truth"].items():
        got = layout_json(built["sources"][source], struct)
        assert got["struct"] == f"struct {struct}"
        assert got["size"] == expected["size"], struct
        members = flat(got["members"])
        assert set(members) >= set(expected["members"]), (struct, set(expected["members"]) - set(members))
        for name, place in expected["members"].items():
            assert members[name] == place, (source, struct, name)


@pytest.mark.parametrize("source", ["DWARF", "BTF blob"])
def test_alignments_explicit_natural_and_packed(built, source):
    """BTF records no alignment: the one an aligned struct's padding shows, a packed struct's 1."""
    where = built["sources"][source]
    got = {name: layout_json(where, name)["align"] for name in ("s22_aligned_struct", "s07_aligned", "s10_packed")}
    assert got == {"s22_aligned_struct": 64, "s07_aligned": 64, "s10_packed": 1}
    assert layout_json(where, "s01_plain")["align"] == 8


def test_lines_and_holes_follow_the_offsets(built):
    got = layout_json(built["sources"]["DWARF"], "s07_aligned")
    by_name = {m["name"]: m for m in got["members"]}
    assert by_name["c"]["line"] == 0 and by_name["refs"]["line"] == 1  # ____cacheline_aligned starts line 1
    assert got["holes"][0] == {"offset": 1, "size": 63}
    big = layout_json(built["sources"]["DWARF"], "s15_big")
    a = {m["name"]: m for m in big["members"]}["a"]
    assert (a["offset"], a["size"], a["line"], a["end_line"]) == (16, 72, 0, 1)


def test_config_btf_names_the_type_information(built, tmp_path, monkeypatch):
    """`btf = "PATH"` in the config: `reviewbot layout` reads that file without --btf."""
    config = tmp_path / "config.toml"
    config.write_text(f'btf = "{built["sources"]["BTF blob"]}"\n')
    monkeypatch.setenv("REVIEWBOT_CONFIG", str(config))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["layout", "--format", "json", "s01_plain"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert doc["source"] == str(built["sources"]["BTF blob"]) and doc["size"] == built["truth"]["s01_plain"]["size"]


def test_cacheline_128(built):
    result = CliRunner().invoke(
        main, ["layout", "--format", "json", "--cacheline", "128", "--btf", str(built["sources"]["DWARF"]), "s15_big"]
    )
    got = json.loads(result.output)
    assert got["cacheline"] == 128
    assert {m["name"]: m["line"] for m in got["members"]}["node"] == 0  # offset 96: line 1 of 64, line 0 of 128


def test_text_output_like_pahole(built, tmp_path):
    """The installed command, in its own process: pahole's shape of text."""
    exe = Path(sys.executable).with_name("reviewbot")
    run = subprocess.run(
        [exe, "layout", "--btf", built["sources"]["BTF section"], "s07_aligned"], capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == "struct s07_aligned {" and lines[-1] == "};"
    assert "/* XXX 63 bytes hole */" in [line.strip() for line in lines]
    assert "/* --- cacheline 1 boundary (64 bytes) --- */" in [line.strip() for line in lines]
    assert any(
        line.strip().startswith("atomic_t") and "refs;" in line and "/*    64     4 */" in line for line in lines
    )


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["no_such_struct"], "struct no_such_struct is not in"),
        (["struct 9x"], "is not a struct name"),
        (["--btf", "{missing}", "s01_plain"], "no such file"),
        (["--btf", "{text}", "s01_plain"], "not BTF"),
        (["--btf", "{truncated}", "s01_plain"], "truncated BTF"),
        (["--cacheline", "96", "s01_plain"], "power of two"),
    ],
)
def test_bad_input_is_one_clear_line(built, tmp_path, args, words):
    text = tmp_path / "notes.txt"
    text.write_text("just some words, not type information\n")
    truncated = tmp_path / "short.btf"
    truncated.write_bytes(built["sources"]["BTF blob"].read_bytes()[:200])
    paths = {"missing": tmp_path / "nope.btf", "text": text, "truncated": truncated}
    args = [a.format(**paths) for a in args]
    if "--btf" not in args:
        args = ["--btf", str(built["sources"]["DWARF"]), *args]
    result = CliRunner().invoke(main, ["layout", *args])
    assert result.exit_code == 2
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert words in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("source", ["DWARF", "BTF section", "BTF blob"])
def test_enumerators_by_name(built, source):
    """Array lengths a patch writes as enumerators are read from the type information's enums."""
    from reviewbot.layout.source import load

    info = load(built["sources"][source])
    assert (info.constant("E_A"), info.constant("E_B")) == (0, 1)
    if source == "DWARF":  # gcc 12's -gbtf writes the 64-bit enum with no entries (no ENUM64): DWARF only
        assert info.constant("F_A") == 0x100000000
    assert info.constant("NOT_AN_ENUMERATOR") is None
