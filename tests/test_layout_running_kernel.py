"""The running kernel's BTF (issue 25): well-known structs read from /sys/kernel/btf/vmlinux sit where gcc puts
the same definitions (tests/data/layout/structs.h: list_head, hlist_node, callback_head)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import DATA
from reviewbot.layout import RUNNING_KERNEL_BTF
from reviewbot.layout.plan import layout_of
from reviewbot.layout.source import load

pytestmark = [
    pytest.mark.skipif(not Path(RUNNING_KERNEL_BTF).exists(), reason="this machine's kernel publishes no BTF"),
    pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc for the reference offsets"),
]


def gcc_offsets(tmp_path: Path) -> dict[tuple[str, str], tuple[int, int]]:
    prog = tmp_path / "offsets"
    subprocess.run(["gcc", "-w", DATA / "layout" / "offsets.c", "-o", prog], check=True)
    out = {}
    for line in subprocess.run([prog], check=True, capture_output=True, text=True).stdout.splitlines():
        struct, member, bit_offset, _bits, size = line.split()
        out[(struct, member)] = (int(bit_offset) // 8, int(size))
    return out


@pytest.mark.parametrize("struct", ["list_head", "hlist_node", "callback_head"])
def test_well_known_struct_as_gcc_lays_it_out(tmp_path, struct):
    layout = layout_of(load(None), struct)
    reference = {m: v for (s, m), v in gcc_offsets(tmp_path).items() if s == struct}
    assert [m.name for m in layout.members] == list(reference)
    for m in layout.members:
        assert (m.offset, layout.size) == reference[m.name], m.name
    assert layout.source == RUNNING_KERNEL_BTF


def test_a_big_struct_reads_whole(tmp_path):
    """task_struct: hundreds of members, bit-fields, aligned groups; every offset inside the size, in order."""
    layout = layout_of(load(None), "task_struct")
    members = layout.members
    assert len(members) > 100
    assert all(0 <= m.offset <= layout.size for m in members)
    assert [m.offset for m in members] == sorted(m.offset for m in members)
