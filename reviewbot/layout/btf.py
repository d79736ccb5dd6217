"""A reader of the BTF format (the kernel's Documentation/bpf/btf.rst): what reviewbot needs of it.

Layout of a blob: a header (magic 0xeB9F, version 1, flags, header length, then the type section's and the
string section's offset and length, counted from the header's end); the type section, one record per type
id from 1 on (``struct btf_type``: name offset, info word, size-or-type word) followed by the kind's own
data; the string section, NUL-terminated names.

The reader walks the type section once, keeping each record's place (a few bytes per type); a type is
decoded when it is asked for, and a name is looked up by finding the string's offset in the string section
and then the records that carry it. The running kernel's BTF (about 130,000 types, 5 MB) is read this way
in a fraction of the time a full decode takes.
"""

from __future__ import annotations

import struct
from array import array
from pathlib import Path

from reviewbot.layout import TypeInfoError
from reviewbot.layout.types import CMember, CType, TypeInfo

MAGIC = 0xEB9F
#: kind numbers (the info word's bits 24-28) and the names the type model uses
KINDS = {
    1: "int",
    2: "ptr",
    3: "array",
    4: "struct",
    5: "union",
    6: "enum",
    7: "fwd",
    8: "typedef",
    9: "volatile",
    10: "const",
    11: "restrict",
    12: "func",
    13: "func_proto",
    14: "var",
    15: "datasec",
    16: "float",
    17: "decl_tag",
    18: "type_tag",
    19: "enum64",
}
_HEADER = "HBBIIIII"


def _trailer_size(kind: int, vlen: int) -> int:
    """Bytes of kind-specific data after a type's 12-byte record."""
    if kind == 1:  # INT: one encoding word
        return 4
    if kind == 3:  # ARRAY: element type, index type, number of elements
        return 12
    if kind in (4, 5):  # STRUCT, UNION: vlen members of name, type, offset
        return 12 * vlen
    if kind == 6:  # ENUM: vlen (name, value) pairs
        return 8 * vlen
    if kind == 13:  # FUNC_PROTO: vlen parameters (name, type)
        return 8 * vlen
    if kind == 14:  # VAR: linkage
        return 4
    if kind == 15:  # DATASEC: vlen (type, offset, size)
        return 12 * vlen
    if kind == 17:  # DECL_TAG: component index
        return 4
    if kind == 19:  # ENUM64: vlen (name, low 32 bits, high 32 bits)
        return 12 * vlen
    if kind in (2, 7, 8, 9, 10, 11, 12, 16, 18):
        return 0
    raise ValueError(f"unknown kind {kind}")


class BtfBlob:
    """One BTF blob, read lazily (see the module's notes). ``name`` names it in messages."""

    def __init__(self, data: bytes, name: str) -> None:
        self.name = name
        if len(data) < 24:
            raise TypeInfoError("not BTF: shorter than a BTF header", subject=name)
        magic = struct.unpack_from("<H", data)[0]
        if magic == MAGIC:
            self.endian = "<"
        elif magic == 0x9FEB:
            self.endian = ">"
        else:
            raise TypeInfoError(f"not BTF: magic {magic:#06x}, expected {MAGIC:#06x}", subject=name)
        _m, version, _flags, hdr_len, type_off, type_len, str_off, str_len = struct.unpack_from(
            self.endian + _HEADER, data
        )
        if version != 1:
            raise TypeInfoError(f"BTF version {version}: only version 1 is known", subject=name)
        types_start, strings_start = hdr_len + type_off, hdr_len + str_off
        if types_start + type_len > len(data) or strings_start + str_len > len(data):
            raise TypeInfoError(
                f"truncated BTF: the header says {strings_start + str_len} bytes, the file has {len(data)}",
                subject=name,
            )
        self.data = data
        self.types = data[types_start : types_start + type_len]
        self.strings = data[strings_start : strings_start + str_len]
        self._index()
        self._decoded: dict[int, CType] = {0: CType("void")}

    def _index(self) -> None:
        """One walk over the type section: where each type's record starts, its info word and name offset."""
        types = self.types
        end = len(types)
        record = struct.Struct(self.endian + "III")
        unpack = record.unpack_from
        places = array("I", [0])  # type id 0 is void: no record
        infos = array("I", [0])
        names = array("I", [0])
        at = 0
        sizes = {k: _trailer_size(k, 1) for k in KINDS}  # per-member bytes for the kinds with vlen
        fixed = {1: 4, 3: 12, 14: 4, 17: 4}
        try:
            while at < end:
                name_off, info, _size = unpack(types, at)
                places.append(at)
                infos.append(info)
                names.append(name_off)
                kind = (info >> 24) & 0x1F
                at += 12
                if kind in fixed:
                    at += fixed[kind]
                elif kind in (4, 5, 6, 13, 15, 19):
                    at += sizes[kind] * (info & 0xFFFF)
                elif kind not in KINDS:
                    raise TypeInfoError(
                        f"type {len(places) - 1}: unknown BTF kind {kind} (a newer format than this reader knows)",
                        subject=self.name,
                    )
        except struct.error as exc:
            raise TypeInfoError(f"truncated BTF type section at byte {at}", subject=self.name) from exc
        if at != end:
            raise TypeInfoError(f"BTF type section ends inside a type record (byte {at} of {end})", subject=self.name)
        self.places, self.infos, self.names = places, infos, names

    def string(self, offset: int) -> str:
        if offset >= len(self.strings):
            raise TypeInfoError(f"string offset {offset} past the string section", subject=self.name)
        end = self.strings.find(b"\0", offset)
        return self.strings[offset : end if end >= 0 else len(self.strings)].decode("utf-8", "replace")

    def get(self, type_id: int) -> CType:
        cached = self._decoded.get(type_id)
        if cached is not None:
            return cached
        if not 0 < type_id < len(self.places):
            raise TypeInfoError(f"type id {type_id} out of range (1..{len(self.places) - 1})", subject=self.name)
        t = self._decode(type_id)
        self._decoded[type_id] = t
        return t

    def _decode(self, type_id: int) -> CType:
        e, types = self.endian, self.types
        at = self.places[type_id]
        name_off, info, size_or_type = struct.unpack_from(e + "III", types, at)
        kind_no = (info >> 24) & 0x1F
        kind, vlen, kind_flag = KINDS[kind_no], info & 0xFFFF, info >> 31
        name = self.string(name_off) if name_off else ""
        data = at + 12
        if kind == "int":
            encoding = struct.unpack_from(e + "I", types, data)[0]
            return CType(kind, name, size=size_or_type, encoding_bits=encoding & 0xFF)
        if kind == "array":
            elem, _index_type, nelems = struct.unpack_from(e + "III", types, data)
            return CType(kind, name, ref=elem, nelems=nelems)
        if kind in ("struct", "union"):
            members = []
            for k in range(vlen):
                m_name, m_type, m_offset = struct.unpack_from(e + "III", types, data + 12 * k)
                bit_size = (m_offset >> 24) if kind_flag else 0
                bit_offset = (m_offset & 0xFFFFFF) if kind_flag else m_offset
                members.append(CMember(self.string(m_name) if m_name else "", m_type, bit_offset, bit_size))
            return CType(kind, name, size=size_or_type, members=tuple(members))
        if kind in ("enum", "enum64", "float"):
            return CType("enum" if kind == "enum64" else kind, name, size=size_or_type)
        if kind in ("ptr", "typedef", "volatile", "const", "restrict", "type_tag", "func", "var", "decl_tag"):
            return CType(kind, name, ref=size_or_type)
        return CType(kind, name, size=size_or_type if kind == "datasec" else None)

    def find(self, kind: str, name: str) -> list[int]:
        """Ids of the types of ``kind`` named ``name``: complete ones before forward declarations."""
        wanted = name.encode()
        offsets = set()
        at = self.strings.find(b"\0" + wanted + b"\0")
        while at >= 0:
            offsets.add(at + 1)
            at = self.strings.find(b"\0" + wanted + b"\0", at + 1)
        if self.strings.startswith(wanted + b"\0"):
            offsets.add(0)
        if not offsets:
            return []
        kinds = {n for n, k in KINDS.items() if k == kind or (kind == "enum" and k == "enum64")}
        if kind in ("struct", "union"):
            kinds.add(7)  # FWD: a declaration, listed after the definitions
        infos, names = self.infos, self.names
        found = [i for i, off in enumerate(names) if off in offsets and ((infos[i] >> 24) & 0x1F) in kinds]
        complete = [i for i in found if ((infos[i] >> 24) & 0x1F) != 7]
        return complete + [i for i in found if i not in complete]

    def constant(self, name: str) -> int | None:
        """The value of the enumerator ``name`` (ENUM and ENUM64 entries), or None."""
        wanted = b"\0" + name.encode() + b"\0"
        at = self.strings.find(wanted)
        if at < 0:
            return None
        offsets = set()
        while at >= 0:
            offsets.add(at + 1)
            at = self.strings.find(wanted, at + 1)
        e, types, infos = self.endian, self.types, self.infos
        for type_id, info in enumerate(infos):
            kind, vlen = (info >> 24) & 0x1F, info & 0xFFFF
            if kind not in (6, 19):
                continue
            data = self.places[type_id] + 12
            step = 8 if kind == 6 else 12
            for k in range(vlen):
                if struct.unpack_from(e + "I", types, data + step * k)[0] in offsets:
                    if kind == 6:
                        return struct.unpack_from(e + "i", types, data + step * k + 4)[0]
                    low, high = struct.unpack_from(e + "II", types, data + step * k + 4)
                    return (high << 32) | low
        return None


def type_info_from_btf(data: bytes, name: str) -> TypeInfo:
    """A :class:`TypeInfo` over one BTF blob (its pointers as wide as its ``long``)."""
    blob = BtfBlob(data, name)
    info = TypeInfo(decode=blob.get, find=blob.find, source=name, constant=blob.constant)
    for tid in blob.find("int", "long int"):
        info.pointer_size = blob.get(tid).size or 8
        break
    return info


def read_btf_file(path: Path) -> TypeInfo:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise TypeInfoError(f"cannot read: {exc.strerror}", subject=str(path)) from exc
    return type_info_from_btf(data, str(path))
