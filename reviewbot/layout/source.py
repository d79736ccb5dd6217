"""Which type information to read: a BTF blob, an ELF file's ``.BTF`` section or its DWARF, or the
running kernel's BTF."""

from __future__ import annotations

from pathlib import Path

from reviewbot.layout import RUNNING_KERNEL_BTF, TypeInfoError
from reviewbot.layout.types import TypeInfo

_ELF_MAGIC = b"\x7fELF"


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
