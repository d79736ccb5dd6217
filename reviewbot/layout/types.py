"""The type model both readers fill, and the C layout rules' sizes and alignments over it.

A :class:`TypeInfo` holds types by id (0 is ``void``), each a :class:`CType` of one kind (the BTF kinds'
names, which DWARF's tags map onto). Types are decoded on first use: the running kernel's BTF holds over
100,000 of them and one struct's map reads a few hundred.

Alignment: BTF records sizes and offsets, not alignments. A type's alignment is its natural one (a scalar's
size, an array's element's, an aggregate's largest member's), raised where the recorded offsets show an
explicit one (a member placed further than its natural place: ``____cacheline_aligned``; a struct padded past
its natural size) and lowered to 1 where they show a packed struct (a member off its natural alignment).
DWARF gives explicit alignments where the source wrote them (``DW_AT_alignment``); those are used as given.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterator

AGGREGATES = ("struct", "union")
#: the alignment an explicit one inferred from an offset is taken to be when several would land there:
#: ``____cacheline_aligned`` on x86-64 and arm64 (the layout map's numbers do not depend on it for members
#: that stay in place; a moved aligned member's marker is read from the patch's own text)
LIKELY_EXPLICIT_ALIGN = 64
#: kinds that only qualify or rename the type they refer to: size and alignment are that type's
TRANSPARENT = ("typedef", "volatile", "const", "restrict", "type_tag")


@dataclass(frozen=True)
class CMember:
    """One member of a struct or union: ``bit_offset`` from the aggregate's start, ``bit_size`` for a
    bit-field (0 otherwise); ``name`` is "" for an anonymous struct/union member."""

    name: str
    type_id: int
    bit_offset: int
    bit_size: int = 0


@dataclass(frozen=True)
class CType:
    """One type. ``size`` in bytes (None where the kind has none: pointer, array, typedef...); ``ref`` the
    type this one refers to (pointer target, array element, typedef'd type); ``nelems`` an array's length;
    ``align`` an explicit alignment the type information records (DWARF), else None."""

    kind: str
    name: str = ""
    size: int | None = None
    ref: int = 0
    nelems: int = 0
    members: tuple[CMember, ...] = ()
    align: int | None = None
    encoding_bits: int = 0  # an INT's bit width (a bool is 8 bits of a 1-byte int)


@dataclass
class TypeInfo:
    """Types of one source (a BTF blob or one file's DWARF), looked up by id and by name.

    ``get(id)`` decodes a type on demand; ``find(kind, name)`` returns the ids of the named types of a kind
    ("struct", "union", "enum", "typedef", "int", "float"), the complete ones first. ``pointer_size`` is the
    target's (8 on 64-bit kernels). ``source`` names where the types came from, for messages.
    """

    decode: Callable[[int], CType]
    find: Callable[[str, str], list[int]]
    source: str
    pointer_size: int = 8
    #: an enumerator's value by name (None: not one the source has): array lengths such as ``[NR_LRU_LISTS]``
    constant: Callable[[str], int | None] = lambda name: None
    #: types the after-layout needs that the source may not list (a pointer, an array of N of a type), under
    #: negative ids: never one of the source's own
    extra: dict[int, CType] = field(default_factory=dict)
    _align_cache: dict[int, int] = field(default_factory=dict)
    _size_cache: dict[int, int] = field(default_factory=dict)

    def get(self, type_id: int) -> CType:
        return self.extra[type_id] if type_id < 0 else self.decode(type_id)

    def add(self, t: CType) -> int:
        """An id for ``t``, made up for the after-layout (the same one for an equal type)."""
        for tid, known in self.extra.items():
            if known == t:
                return tid
        tid = -1 - len(self.extra)
        self.extra[tid] = t
        return tid

    # ------------------------------------------------------------------ sizes and alignments

    def resolve(self, type_id: int) -> tuple[int, CType]:
        """Through typedefs and qualifiers to the type that has the layout."""
        seen = 0
        t = self.get(type_id)
        while t.kind in TRANSPARENT and seen < 64:
            type_id, t = t.ref, self.get(t.ref)
            seen += 1
        return type_id, t

    def size_of(self, type_id: int) -> int:
        """Size in bytes; raises :class:`reviewbot.layout.NotInTypes` for a type without one (a declared but
        never defined struct, void, a function)."""
        cached = self._size_cache.get(type_id)
        if cached is not None:
            return cached
        from reviewbot.layout import NotInTypes

        rid, t = self.resolve(type_id)
        if t.kind == "ptr":
            size = self.pointer_size
        elif t.kind == "array":
            size = t.nelems * self.size_of(t.ref)
        elif t.size is not None and t.kind not in ("fwd", "void", "func", "func_proto"):
            size = t.size
        else:
            raise NotInTypes(f"{self.describe(type_id)} has no size in {self.source} (declared, not defined)")
        self._size_cache[type_id] = size
        return size

    def align_of(self, type_id: int) -> int:
        """Alignment in bytes under the C rules for this target (see the module's notes)."""
        cached = self._align_cache.get(type_id)
        if cached is not None:
            return cached
        t = self.get(type_id)
        if t.align:  # an explicit alignment on the typedef or the type itself (DWARF)
            align = t.align
        elif t.kind in TRANSPARENT:
            align = self.align_of(t.ref)
        elif t.kind == "ptr":
            align = self.pointer_size
        elif t.kind == "array":
            align = self.align_of(t.ref)
        elif t.kind in AGGREGATES:
            align = self._aggregate_align(t)
        else:  # int, float, enum: their size, a power of two on every target the kernel has
            align = max(1, t.size or 1)
        self._align_cache[type_id] = align
        return align

    def _aggregate_align(self, t: CType) -> int:
        if not t.members:
            return 1
        natural = 1
        for m in t.members:
            natural = max(natural, self.align_of(m.type_id))
        if self.packed(t):
            return 1
        align = natural
        # an explicit alignment shows as a member placed past where the natural rules put it...
        for explicit in self._explicit_member_aligns(t):
            if explicit:
                align = max(align, explicit)
        # ... or as a size padded past the natural end (an aligned attribute on the struct itself)
        size = t.size or 0
        if size % align:
            return align
        natural_end = self._natural_end(t)
        if size > _round_up(natural_end, align):
            smallest = align
            while smallest < 4096 and _round_up(natural_end, smallest) != size:
                smallest *= 2
            if _round_up(natural_end, smallest) == size:
                largest = size & -size  # every alignment from smallest to largest pads to this size
                align = min(max(smallest, LIKELY_EXPLICIT_ALIGN), largest)
        return align

    def packed(self, t: CType) -> bool:
        """Does the recorded layout show a packed aggregate (a member off its natural alignment, or a size
        that is not a multiple of the members' alignment)?"""
        if t.kind != "struct":
            return False
        natural = 1
        for m in t.members:
            a = self.align_of(m.type_id)
            natural = max(natural, a)
            if not m.bit_size and (m.bit_offset % 8 or (m.bit_offset // 8) % a):
                return True
        return bool(t.size) and (t.size or 0) % natural != 0

    def _natural_end(self, t: CType) -> int:
        """Bytes up to the end of the last member, as recorded."""
        end = 0
        for m in t.members:
            if m.bit_size:
                end = max(end, (m.bit_offset + m.bit_size + 7) // 8)
            else:
                end = max(end, m.bit_offset // 8 + self.size_of(m.type_id))
        return end

    def _explicit_member_aligns(self, t: CType) -> Iterator[int]:
        """Per member: the alignment its recorded offset shows beyond its type's natural one (0: none)."""
        if t.kind != "struct":
            yield from (0 for _ in t.members)
            return
        end_bits = 0
        for m in t.members:
            if m.bit_size:
                end_bits = max(end_bits, m.bit_offset + m.bit_size)
                yield 0
                continue
            offset = m.bit_offset // 8
            natural = _round_up((end_bits + 7) // 8, self.align_of(m.type_id))
            explicit = 0
            if offset > natural and offset:
                largest = offset & -offset  # the largest power of two the offset is a multiple of
                smallest = largest
                while smallest > 1 and _round_up(natural, smallest // 2) == offset:
                    smallest //= 2  # the smallest alignment that lands here
                # every alignment from smallest to largest lands here; the kernel's is a cache line's
                explicit = min(max(smallest, LIKELY_EXPLICIT_ALIGN), largest)
            yield explicit
            end_bits = max(end_bits, (offset + self.size_of(m.type_id)) * 8)

    def member_align(self, t: CType, index: int) -> int:
        """The alignment member ``index`` of ``t`` has in ``t``'s recorded layout (its type's, or the explicit
        one its offset shows, or 1 in a packed struct)."""
        if self.packed(t):
            return 1
        explicit = list(self._explicit_member_aligns(t))[index]
        return max(self.align_of(t.members[index].type_id), explicit)

    # ------------------------------------------------------------------ names

    def describe(self, type_id: int, depth: int = 0) -> str:
        """The type as C spells it in a declaration (``struct inode *``, ``char[16]``, ``u64``)."""
        if type_id == 0:
            return "void"
        t = self.get(type_id)
        if depth > 8:
            return "..."
        if t.kind in AGGREGATES or t.kind == "enum" or t.kind == "fwd":
            word = "enum" if t.kind == "enum" else (t.kind if t.kind != "fwd" else "struct")
            return f"{word} {t.name}" if t.name else f"{word} {{...}}"
        if t.kind in ("typedef", "int", "float"):
            return t.name
        if t.kind in ("const", "volatile", "restrict"):
            return f"{t.kind} {self.describe(t.ref, depth + 1)}"
        if t.kind == "type_tag":
            return self.describe(t.ref, depth + 1)
        if t.kind == "ptr":
            target = self.get(t.ref) if t.ref else None
            if target is not None and target.kind == "func_proto":
                return "fn *"
            inner = self.describe(t.ref, depth + 1)
            return inner + ("*" if inner.endswith("*") else " *")
        if t.kind == "array":
            return f"{self.describe(t.ref, depth + 1)}[{t.nelems}]"
        return t.name or t.kind


def _round_up(value: int, align: int) -> int:
    return -(-value // align) * align if align > 1 else value
