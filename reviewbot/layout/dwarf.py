"""Type information from an ELF file: its ``.BTF`` section, or its DWARF read with pyelftools.

DWARF entries become the same :class:`~reviewbot.layout.types.CType` records BTF gives (a type's id is its
entry's offset in ``.debug_info`` plus one, so 0 stays ``void``). Entries are decoded when asked for; the
names are indexed in one walk over the compilation units. Bit-fields are read in both DWARF forms
(``DW_AT_data_bit_offset``, and DWARF 2-4's ``DW_AT_bit_offset`` counted from the storage unit's high bit);
an explicit ``DW_AT_alignment`` is kept, so ``__aligned`` members need no inference.
"""

from __future__ import annotations

import io
from typing import Any

from reviewbot.layout import TypeInfoError
from reviewbot.layout.types import CMember, CType, TypeInfo

_KIND_OF_TAG = {
    "DW_TAG_structure_type": "struct",
    "DW_TAG_union_type": "union",
    "DW_TAG_enumeration_type": "enum",
    "DW_TAG_typedef": "typedef",
    "DW_TAG_base_type": "int",
    "DW_TAG_pointer_type": "ptr",
    "DW_TAG_reference_type": "ptr",
    "DW_TAG_array_type": "array",
    "DW_TAG_const_type": "const",
    "DW_TAG_volatile_type": "volatile",
    "DW_TAG_restrict_type": "restrict",
    "DW_TAG_atomic_type": "volatile",
    "DW_TAG_subroutine_type": "func_proto",
    "DW_TAG_unspecified_type": "void",
}
_FLOAT_ENCODINGS = (0x04, 0x03)  # DW_ATE_float, DW_ATE_complex_float


def _elf(data: bytes, name: str) -> Any:
    from elftools.common.exceptions import ELFError
    from elftools.elf.elffile import ELFFile

    try:
        return ELFFile(io.BytesIO(data))
    except (ELFError, ValueError, OSError) as exc:
        raise TypeInfoError(f"not a readable ELF file: {exc}", subject=name) from exc


def btf_section(data: bytes, name: str) -> bytes | None:
    """The file's ``.BTF`` section, or None when it has none."""
    from elftools.common.exceptions import ELFError

    try:
        section = _elf(data, name).get_section_by_name(".BTF")
        return section.data() if section is not None else None
    except (ELFError, ValueError, OSError) as exc:
        raise TypeInfoError(f"cannot read the ELF sections: {exc}", subject=name) from exc


class _Dwarf:
    def __init__(self, data: bytes, name: str) -> None:
        from elftools.common.exceptions import DWARFError, ELFError

        self.name = name
        elf = _elf(data, name)
        if not elf.has_dwarf_info():
            raise TypeInfoError("no type information: no .BTF section and no DWARF (build with -g)", subject=name)
        self.pointer_size = 8 if elf.elfclass == 64 else 4
        self._errors = (DWARFError, ELFError, KeyError, ValueError, AttributeError, IndexError)
        try:
            self.dwarf = elf.get_dwarf_info()
            self.names: dict[tuple[str, str], list[int]] = {}
            self.constants: dict[str, int] = {}
            for cu in self.dwarf.iter_CUs():
                for die in cu.iter_DIEs():
                    if die.tag == "DW_TAG_enumerator" and "DW_AT_const_value" in die.attributes:
                        value = die.attributes["DW_AT_const_value"].value
                        if "DW_AT_name" in die.attributes and isinstance(value, int):
                            self.constants.setdefault(_text(die.attributes["DW_AT_name"].value), value)
                        continue
                    kind = _KIND_OF_TAG.get(die.tag)
                    if kind is None or "DW_AT_name" not in die.attributes:
                        continue
                    if kind == "int" and die.attributes.get("DW_AT_encoding") is not None:
                        if die.attributes["DW_AT_encoding"].value in _FLOAT_ENCODINGS:
                            kind = "float"
                    if kind in ("struct", "union", "enum") and "DW_AT_declaration" in die.attributes:
                        kind = "fwd:" + kind
                    self.names.setdefault((kind, _text(die.attributes["DW_AT_name"].value)), []).append(die.offset + 1)
        except self._errors as exc:
            raise TypeInfoError(f"cannot read its DWARF: {exc}", subject=name) from exc
        self._decoded: dict[int, CType] = {0: CType("void")}

    def find(self, kind: str, name: str) -> list[int]:
        return self.names.get((kind, name), []) + self.names.get(("fwd:" + kind, name), [])

    def get(self, type_id: int) -> CType:
        cached = self._decoded.get(type_id)
        if cached is None:
            try:
                cached = self._decode(self.dwarf.get_DIE_from_refaddr(type_id - 1))
            except self._errors as exc:
                raise TypeInfoError(
                    f"cannot read the DWARF entry at {type_id - 1:#x}: {exc}", subject=self.name
                ) from exc
            self._decoded[type_id] = cached
        return cached

    def _decode(self, die: Any) -> CType:
        a = die.attributes
        kind = _KIND_OF_TAG.get(die.tag, "void")
        name = _text(a["DW_AT_name"].value) if "DW_AT_name" in a else ""
        ref = _ref(die, "DW_AT_type")
        align = a["DW_AT_alignment"].value if "DW_AT_alignment" in a else None
        size = a["DW_AT_byte_size"].value if "DW_AT_byte_size" in a else None
        if kind in ("struct", "union", "enum") and "DW_AT_declaration" in a:
            return CType("fwd", name)
        if kind == "int":
            if "DW_AT_encoding" in a and a["DW_AT_encoding"].value in _FLOAT_ENCODINGS:
                kind = "float"
            return CType(kind, name, size=size, align=align)
        if kind == "ptr":
            return CType("ptr", name, ref=ref, align=align)
        if kind == "array":
            count = 1
            for sub in die.iter_children():
                if sub.tag != "DW_TAG_subrange_type":
                    continue
                sa = sub.attributes
                if "DW_AT_count" in sa and isinstance(sa["DW_AT_count"].value, int):
                    count *= sa["DW_AT_count"].value
                elif "DW_AT_upper_bound" in sa and isinstance(sa["DW_AT_upper_bound"].value, int):
                    count *= sa["DW_AT_upper_bound"].value + 1
                else:
                    count = 0  # a flexible array member
            return CType("array", name, ref=ref, nelems=count, align=align)
        if kind in ("struct", "union"):
            members = []
            for child in die.iter_children():
                if child.tag != "DW_TAG_member":
                    continue
                members.append(self._member(child))
            return CType(kind, name, size=size or 0, members=tuple(members), align=align)
        if kind == "enum":
            return CType("enum", name, size=size, align=align)
        return CType(kind, name, ref=ref, size=size, align=align)

    def _member(self, die: Any) -> CMember:
        a = die.attributes
        name = _text(a["DW_AT_name"].value) if "DW_AT_name" in a else ""
        type_id = _ref(die, "DW_AT_type")
        byte_offset = 0
        if "DW_AT_data_member_location" in a:
            value = a["DW_AT_data_member_location"].value
            if isinstance(value, int):
                byte_offset = value
            elif isinstance(value, list) and len(value) == 2 and value[0] == 0x23:  # DW_OP_plus_uconst N
                byte_offset = value[1]
            else:
                raise TypeInfoError(f"member {name}: an offset the map cannot read ({value!r})", subject=self.name)
        bit_size = a["DW_AT_bit_size"].value if "DW_AT_bit_size" in a else 0
        if "DW_AT_data_bit_offset" in a:
            return CMember(name, type_id, a["DW_AT_data_bit_offset"].value, bit_size)
        if bit_size and "DW_AT_bit_offset" in a:  # DWARF 2-4, little-endian: counted from the unit's top bit
            unit = a["DW_AT_byte_size"].value if "DW_AT_byte_size" in a else 4
            return CMember(name, type_id, byte_offset * 8 + unit * 8 - a["DW_AT_bit_offset"].value - bit_size, bit_size)
        return CMember(name, type_id, byte_offset * 8, bit_size)


def _ref(die: Any, attr: str) -> int:
    """The id of the type an attribute refers to (0: void)."""
    if attr not in die.attributes:
        return 0
    value = die.attributes[attr]
    offset = value.value + (
        die.cu.cu_offset
        if value.form in ("DW_FORM_ref1", "DW_FORM_ref2", "DW_FORM_ref4", "DW_FORM_ref8", "DW_FORM_ref_udata")
        else 0
    )
    return offset + 1


def _text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def type_info_from_dwarf(data: bytes, name: str) -> TypeInfo:
    """A :class:`TypeInfo` over the DWARF of the ELF file ``data``."""
    reader = _Dwarf(data, name)
    return TypeInfo(
        decode=reader.get,
        find=reader.find,
        source=name,
        pointer_size=reader.pointer_size,
        constant=reader.constants.get,
    )
