"""``reviewbot layout STRUCT [--btf FILE] [--patch FILE]``: a struct's members by cache line, from type
information (the running kernel's BTF, or a BTF blob or ELF file with BTF or DWARF), and with a patch the
layout before and after its reorder side by side."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from reviewbot.commands import fail
from reviewbot.errors import ReviewbotError


@click.command("layout")
@click.argument("struct")
@click.option(
    "--btf",
    "btf_path",
    type=click.Path(path_type=Path),
    default=None,
    help="Type information: a BTF blob, a vmlinux/.o/.ko with BTF or DWARF, or a directory of them (the first "
    "that has STRUCT; default: the config's btf, else the running kernel's /sys/kernel/btf/vmlinux).",
)
@click.option("--patch", "patch_path", default=None, help="A patch (mail or diff) that reorders the struct.")
@click.option("--cacheline", type=click.IntRange(8, 4096), default=64, show_default=True, help="Cache line bytes.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def command(struct: str, btf_path: Path | None, patch_path: str | None, cacheline: int, fmt: str) -> None:
    """Show STRUCT's members grouped by cache line (offset, size, holes), before and after --patch."""
    from reviewbot.config import load_settings
    from reviewbot.layout import Unresolved
    from reviewbot.layout.plan import moves
    from reviewbot.layout.render import side_by_side, to_json, to_text

    if cacheline & (cacheline - 1):
        fail("layout", f"--cacheline {cacheline}: expected a power of two (64, 128)")
    try:
        if btf_path is None:
            btf_path = getattr(load_settings(), "btf", None)
        patch = _read_patch(patch_path) if patch_path is not None else None
        before, after = _layouts(btf_path, struct, cacheline, patch)
    except Unresolved as exc:
        fail("layout", f"no map: {exc}", status=None)
    except ReviewbotError as exc:
        fail("layout", exc)
    if fmt == "json":
        data: dict[str, Any] = (
            to_json(before) if after is None else {"before": to_json(before), "after": to_json(after)}
        )
        if after is not None:  # the members that change cache line, as RB101 names them
            data["moves"] = [
                {"name": mv.name, "before": mv.before, "after": mv.after, "beside": list(mv.beside)}
                for mv in moves(before, after)
            ]
        click.echo(json.dumps(data, indent=2))
    elif after is None:
        click.echo(to_text(before))
    else:
        click.echo(side_by_side(before, after))


def _layouts(btf_path: Path | None, struct: str, cacheline: int, patch):
    """(before, after or None) from the type information at ``btf_path``. A directory: its files that can
    hold STRUCT, in name order; the first that has it (and, with a patch, every type the patch adds) wins,
    as RB101 reads it."""
    from reviewbot.layout import NotInTypes
    from reviewbot.layout.plan import after_patch, layout_of, split_struct_name
    from reviewbot.layout.source import files_holding, load

    if btf_path is None or not btf_path.is_dir():
        info = load(btf_path)
        before = layout_of(info, struct, cacheline)
        return before, (after_patch(before, info, patch) if patch is not None else None)
    why: NotInTypes | None = None  # a type the patch adds that no file with the struct has
    for used in files_holding(btf_path, split_struct_name(struct)[1]):
        info = load(used)
        try:
            before = layout_of(info, struct, cacheline)
        except NotInTypes:
            continue
        try:
            return before, (after_patch(before, info, patch) if patch is not None else None)
        except NotInTypes as exc:
            why = why or exc
    kind, bare = split_struct_name(struct)
    raise why or NotInTypes(f"{kind} {bare} is not in the type information of {btf_path.name}/")


def _read_patch(name: str):
    """The first patch of the input ``name`` (a mail, an mbox, a bare diff, ``-``)."""
    from reviewbot.checking import read_input
    from reviewbot.errors import InputError
    from reviewbot.parse.mail import parse_message
    from reviewbot.parse.patch import parse_patch

    for item in read_input(name):
        patch = parse_patch(parse_message(item.raw))
        if patch.files:
            return patch
    raise InputError("holds no diff", subject=name)
