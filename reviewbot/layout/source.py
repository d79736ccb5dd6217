"""Which type information to read: a BTF blob, an ELF file's ``.BTF`` section or its DWARF, the running
kernel's BTF, or a directory of such files (the objects of one build compiled with ``-g``: each file is one
source of types, see :func:`files_holding`)."""

from __future__ import annotations

from pathlib import Path

from reviewbot.layout import RUNNING_KERNEL_BTF, TypeInfoError
from reviewbot.layout.types import TypeInfo

_ELF_MAGIC = b"\x7fELF"
_BTF_MAGICS = (b"\x9f\xeb", b"\xeb\x9f")
#: files of a directory larger than this are not read for a name (a whole vmlinux is named as a file)
_MAX_DIR_FILE = 512 * 1024 * 1024


def load(path: Path | str | None) -> TypeInfo:
    """Type information from ``path`` (None: the running kernel's BTF).

    A BTF blob is read as it is; an ELF file (a vmlinux, a ``.o``, a ``.ko``) by its ``.BTF`` section when
    it has one, else by its DWARF. Raises :class:`TypeInfoError` naming the file and what is wrong with it.
    """
    from reviewbot.layout.btf import type_info_from_btf

    where = Path(path) if path is not None else Path(RUNNING_KERNEL_BTF)
    try:
        data = where.read_bytes()
    except FileNotFoundError as exc:
        if path is None:
            raise TypeInfoError(
                "this machine's kernel publishes no BTF; name a BTF or DWARF file with --btf", subject=str(where)
            ) from exc
        raise TypeInfoError("no such file", subject=str(where)) from exc
    except OSError as exc:
        raise TypeInfoError(f"cannot read: {exc.strerror}", subject=str(where)) from exc
    if data[:4] == _ELF_MAGIC:
        from reviewbot.layout.dwarf import btf_section, type_info_from_dwarf

        section = btf_section(data, str(where))
        if section is not None:
            return type_info_from_btf(section, f"{where} (.BTF)")
        return type_info_from_dwarf(data, str(where))
    return type_info_from_btf(data, str(where))


def type_files(directory: Path | str) -> list[Path]:
    """The files of ``directory`` and its subdirectories that hold type information (ELF files, BTF blobs),
    in name order. Raises :class:`TypeInfoError` when there is none."""
    where = Path(directory)
    out = []
    try:
        candidates = sorted(p for p in where.rglob("*") if p.is_file())
    except OSError as exc:
        raise TypeInfoError(f"cannot list: {exc.strerror}", subject=str(where)) from exc
    for p in candidates:
        try:
            with p.open("rb") as fh:
                head = fh.read(4)
        except OSError:
            continue
        if head == _ELF_MAGIC or head[:2] in _BTF_MAGICS:
            out.append(p)
    if not out:
        raise TypeInfoError("no ELF file or BTF blob in this directory", subject=str(where))
    return out


def files_holding(directory: Path | str, name: str) -> list[Path]:
    """The type files of ``directory`` (:func:`type_files`) whose bytes hold ``name`` as a whole string of
    their string tables (NUL-terminated, not the tail of a longer identifier): the only ones that can
    describe a type of that name. A cheap test before a file's DWARF is read; a file that passes may
    still not define the type (a member or function of that name)."""
    wanted = name.encode() + b"\0"
    out = []
    for p in type_files(directory):
        try:
            if p.stat().st_size > _MAX_DIR_FILE:
                continue
            data = p.read_bytes()
        except OSError:
            continue
        at = data.find(wanted)
        while at >= 0:
            before = data[at - 1 : at] if at else b"\0"
            if not (before.isalnum() or before == b"_"):
                out.append(p)
                break
            at = data.find(wanted, at + 1)
    return out
