"""A struct's layout as the type information records it, and as it will be after a patch's reorder.

The "before" layout is read, not computed: each member's offset is the one the type information gives. The
"after" layout is computed the way the compiler lays a struct out (the C rules of the kernel's 64-bit
targets): each member, in the patch's new order, at the next offset its alignment allows; a bit-field in the
storage unit of its type where it fits, else at the next one; the struct's size rounded up to its largest
alignment. Sizes and alignments come from the same type information: a member the patch moves keeps its
type; a member it adds is looked up by its type's name. What cannot be resolved (a type the type information
does not have, an array length that is a macro, a patch whose lines are not the struct's) raises
:class:`~reviewbot.layout.Unresolved` with the reason: no map is better than a guessed offset.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from reviewbot.layout import NotInTypes, Unresolved
from reviewbot.layout.types import AGGREGATES, CType, TypeInfo

DEFAULT_CACHELINE = 64


@dataclass(frozen=True)
class Placed:
    """One member where it sits: ``offset`` and ``size`` in bytes from the struct's start (a bit-field: the
    bytes its bits touch, with ``bit_offset`` from the struct's start and ``bit_size``); ``members`` for an
    anonymous struct or union (``kind``), placed from the same start."""

    name: str
    type_name: str
    offset: int
    size: int
    align: int = 1
    bit_offset: int | None = None
    bit_size: int = 0
    kind: str = ""
    members: tuple["Placed", ...] = ()
    type_id: int = 0

    @property
    def end(self) -> int:
        """First byte after the member."""
        if self.bit_offset is not None:
            return (self.bit_offset + self.bit_size + 7) // 8
        return self.offset + self.size

    def shifted(self, delta: int) -> "Placed":
        return replace(
            self,
            offset=self.offset + delta,
            bit_offset=None if self.bit_offset is None else self.bit_offset + 8 * delta,
            members=tuple(m.shifted(delta) for m in self.members),
        )


@dataclass(frozen=True)
class Layout:
    """A struct's members in order with their places, for lines of ``cacheline`` bytes."""

    struct: str
    size: int
    cacheline: int
    members: tuple[Placed, ...]
    align: int = 1
    packed: bool = False
    source: str = ""

    def line(self, offset: int) -> int:
        return offset // self.cacheline

    def lines_of(self, m: Placed) -> tuple[int, int]:
        """The cache lines a member starts and ends on (a zero-size member: the one its offset is on)."""
        return self.line(m.offset), self.line(max(m.offset, m.end - 1))

    def flat(self) -> list[Placed]:
        """Every named member, those of anonymous structs/unions in their place."""
        out: list[Placed] = []
        for m in self.members:
            if m.kind and not m.name:
                out.extend(Layout(self.struct, self.size, self.cacheline, m.members).flat())
            else:
                out.append(m)
        return out

    def holes(self) -> list[tuple[int, int]]:
        """(offset, bytes) of each gap between top-level members, and the padding at the end."""
        out = []
        end = 0
        for m in self.members:
            if m.offset > end:
                out.append((end, m.offset - end))
            end = max(end, m.end)
        if self.size > end:
            out.append((end, self.size - end))
        return out


# ---------------------------------------------------------------- before: from the type information


def split_struct_name(name: str) -> tuple[str, str]:
    """``"struct foo"``, ``"union foo"`` or ``"foo"`` (a struct) as (kind, name)."""
    words = name.split()
    if len(words) == 2 and words[0] in AGGREGATES and re.fullmatch(r"[A-Za-z_]\w*", words[1]):
        return words[0], words[1]
    if len(words) == 1 and re.fullmatch(r"[A-Za-z_]\w*", words[0]):
        return "struct", words[0]
    raise Unresolved(f"{name!r} is not a struct name (expected NAME, 'struct NAME' or 'union NAME')")


def find_struct(info: TypeInfo, name: str) -> tuple[int, CType]:
    kind, bare = split_struct_name(name)
    for tid in info.find(kind, bare):
        t = info.get(tid)
        if t.kind == kind:
            return tid, t
    raise NotInTypes(f"{kind} {bare} is not in {info.source}")


def layout_of(info: TypeInfo, name: str, cacheline: int = DEFAULT_CACHELINE) -> Layout:
    """The struct's recorded layout (offsets as the type information gives them)."""
    tid, t = find_struct(info, name)
    members = _placed_members(info, t, 0)
    return Layout(
        f"{t.kind} {t.name}",
        info.size_of(tid),
        cacheline,
        members,
        align=info.align_of(tid),
        packed=info.packed(t),
        source=info.source,
    )


def _placed_members(info: TypeInfo, t: CType, base: int) -> tuple[Placed, ...]:
    out = []
    for k, m in enumerate(t.members):
        _rid, mt = info.resolve(m.type_id)
        offset = base + m.bit_offset // 8
        if m.bit_size:
            out.append(
                Placed(
                    m.name,
                    info.describe(m.type_id),
                    offset,
                    (m.bit_offset % 8 + m.bit_size + 7) // 8,
                    align=info.align_of(m.type_id),
                    bit_offset=base * 8 + m.bit_offset,
                    bit_size=m.bit_size,
                    type_id=m.type_id,
                )
            )
            continue
        size = info.size_of(m.type_id)
        nested: tuple[Placed, ...] = ()
        kind = ""
        direct = info.get(m.type_id)  # not through a typedef: a typedef'd struct is written by its name
        if direct.kind in AGGREGATES and (not m.name or not direct.name):  # struct { ... } [name];
            kind, nested = direct.kind, _placed_members(info, direct, offset)
        out.append(
            Placed(
                m.name,
                info.describe(m.type_id),
                offset,
                size,
                align=info.member_align(t, k),
                kind=kind,
                members=nested,
                type_id=m.type_id,
            )
        )
    return tuple(out)


# ---------------------------------------------------------------- after: the patch's order, laid out


@dataclass
class _Item:
    """One entry of the struct on one side of a hunk, in source order: a member (one declarator) or a
    cache-line group marker (``tag`` "member"), the opening of a nested struct/union ("open", ``name`` its
    kind) or its closing ("close", ``name`` the declarator after it, "" for an anonymous one). ``code`` is
    the line without comments; ``mark`` the line's diff mark (" ", "-", "+")."""

    name: str
    code: str
    mark: str
    tag: str = "member"

    @property
    def key(self) -> tuple[str, str]:
        return (self.tag, self.name)


@dataclass
class _HunkSides:
    old: list[_Item] = field(default_factory=list)
    new: list[_Item] = field(default_factory=list)
    #: the struct's opening line when the patch writes it anew (an alignment attribute between the
    #: struct keyword and its name applies to the struct)
    new_opening: str = ""
    #: the old side shows the struct's opening line / its closing ``};``: nothing of the struct comes
    #: before / after the entries shown
    shows_opening: bool = False
    shows_closing: bool = False
    #: a preprocessor conditional the patch adds inside the struct (``#if PAGE_SHIFT > 16``): which of its
    #: members exist depends on a configuration the type information shows only one of
    new_conditional: str = ""


@dataclass
class _Before:
    """An entry of the struct as the type information has it, flattened like :class:`_Item`: ``placed`` is
    the member, or the nested struct/union an "open"/"close" entry belongs to."""

    tag: str
    name: str
    placed: Placed

    @property
    def key(self) -> tuple[str, str]:
        return (self.tag, self.name)


_GROUP_MARKER_RE = re.compile(r"\b__cacheline_group_(begin|end)(_aligned)?\s*\(\s*(\w+)")
_ALIGNED_ATTR_RE = re.compile(r"\b_{2,4}cacheline_aligned\w*|\b__aligned\s*\(([^()]*(?:\([^()]*\))?[^()]*)\)")
_ATTR_WORDS = re.compile(
    r"\b(?:const|volatile|restrict|__rcu|__percpu|__iomem|__user|__kernel|__force|__data_racy|"
    r"__randomize_layout|__packed|__private|__guarded_by\s*\([^)]*\)|__counted_by\w*\s*\([^)]*\)|"
    r"_{2,4}cacheline_aligned\w*|__aligned\s*\([^()]*(?:\([^()]*\))?[^()]*\)|"
    r"__attribute__\s*\(\(.*?\)\))"
)
_NESTED_OPEN_RE = re.compile(r"^(struct|union)\b[^;{}]*\{$")


def _line_items(code: str, mark: str) -> list[_Item]:
    """The entries one line of a struct's body holds (none for a blank line, a comment, a directive)."""
    from reviewbot.cutil import member_names

    if not code or code.startswith("#"):
        return []
    if code.startswith("}"):
        label = re.sub(r"[^\w].*", "", " ".join(_ATTR_WORDS.sub(" ", code[1:]).split()))
        return [_Item(label, code, mark, tag="close")]
    opening = _NESTED_OPEN_RE.match(code)
    if opening:
        return [_Item(opening.group(1), code, mark, tag="open")]
    one_line = re.match(r"^(struct|union)\s*\{(.*)\}(.*);$", code)
    if one_line:  # union { u64 a; u32 b[2]; } name;
        inner = [part.strip() + ";" for part in one_line.group(2).split(";") if part.strip()]
        items = [_Item(one_line.group(1), code, mark, tag="open")]
        for decl in inner:
            items.extend(_Item(n, decl, mark) for n in member_names(decl) or ())
        return items + _line_items("}" + one_line.group(3) + ";", mark)
    if "{" in code or "}" in code:
        return []
    marker = _GROUP_MARKER_RE.search(code)
    if marker:
        items = [_Item(f"__cacheline_group_{marker.group(1)}__{marker.group(3)}", code, mark)]
        if marker.group(1) == "end" and marker.group(2):
            items.append(_Item(f"__cacheline_group_pad__{marker.group(3)}", code, mark))
        return items
    return [_Item(n, code, mark) for n in member_names(code) or ()]


def _struct_hunks(patch, kind: str, name: str) -> list[_HunkSides]:
    """The entries of ``kind name`` each hunk shows, per side, in order (nested structs/unions as their
    opening and closing entries, so a hunk that starts inside one is read too).

    A hunk is in the struct when its header names it (``@@ ... @@ struct foo {``) or it shows the opening
    line; the struct ends at a ``}`` in column 0 (kernel style)."""
    from reviewbot.cutil import scan_lines

    # struct foo {, struct ____cacheline_aligned foo {, ____cacheline_aligned struct foo {
    opening = re.compile(rf"^[^;{{}}]*\b{kind}\s+(?:\w+(?:\s*\([^()]*\))?\s+)*{re.escape(name)}\s*\{{")
    out: list[_HunkSides] = []
    for fd in patch.files:
        if not fd.path.endswith((".h", ".c")):
            continue
        for hunk in fd.hunks:
            inside = bool(re.search(rf"\b{kind}\s+{re.escape(name)}\s*\{{", hunk.section or ""))
            lines = [line for line in hunk.lines if line.kind.value in " -+"]
            if not inside and not any(opening.match(line.text) for line in lines):
                continue
            scans = scan_lines([line.text for line in lines])
            sides = _HunkSides()
            state = {"-": "in" if inside else "before", "+": "in" if inside else "before"}
            for line, scan in zip(lines, scans):
                mark = line.kind.value
                code = scan.code.strip()
                for side in ("-", "+"):
                    if mark not in (" ", side) or state[side] == "after":
                        continue
                    if state[side] == "before":
                        if opening.match(line.text):
                            state[side] = "in"
                            if mark == "+":
                                sides.new_opening = scan.code
                            if side == "-":
                                sides.shows_opening = True
                        continue
                    if code.startswith("}") and line.text.startswith("}"):
                        state[side] = "after"  # the struct's own closing line
                        if side == "-":
                            sides.shows_closing = True
                        continue
                    if mark == "+" and re.match(r"#\s*(?:if|ifdef|ifndef|elif|else)\b", line.text.strip()):
                        sides.new_conditional = sides.new_conditional or line.text.strip()
                    (sides.old if side == "-" else sides.new).extend(_line_items(code, mark))
            if sides.old or sides.new:
                out.append(sides)
    return out


def _flatten(members: tuple[Placed, ...]) -> list[_Before]:
    out: list[_Before] = []
    for m in members:
        if m.kind:
            out.append(_Before("open", m.kind, m))
            out.extend(_flatten(m.members))
            out.append(_Before("close", m.name, m))
        else:
            out.append(_Before("member", m.name, m))
    return out


@dataclass
class _Group:
    """A nested struct/union of the after-layout: its entries, its opening and closing entries."""

    kind: str
    opening: _Before | _Item
    closing: _Before | _Item
    entries: list


def after_patch(before: Layout, info: TypeInfo, patch) -> Layout:
    """The layout ``before``'s struct has after ``patch``: its members in the patch's order, laid out with
    the C rules. Raises :class:`Unresolved` saying why when that cannot be done without guessing."""
    kind, name = before.struct.split()
    hunks = _struct_hunks(patch, kind, name)
    if not hunks:
        raise Unresolved(f"the patch does not change {before.struct}")
    flat: list[_Before | _Item] = list(_flatten(before.members))
    moved_from = {it.name: it for h in hunks for it in h.old if it.mark == "-" and it.tag == "member"}
    by_name = {b.name: b.placed for b in flat if isinstance(b, _Before) and b.tag == "member" and b.name}
    at = 0
    for h in hunks:
        keys = [e.key for e in flat]
        start = _match(keys, [it.key for it in h.old], at)
        if start is None:  # name the first of the patch's lines the type information does not have there
            first = next(j for j in range(1, len(h.old) + 1) if _match(keys, [it.key for it in h.old[:j]], at) is None)
            shown = ", ".join(_shown(it) for it in h.old[max(0, first - 3) : first])
            raise Unresolved(
                f"the patch's lines of {before.struct} ({shown}) are not in that order in {before.source}'s "
                f"{before.struct}: from {_shown(h.old[first - 1])} on they differ (another kernel version or "
                "configuration)"
            )
        _whole_struct_shown(flat, start, h, before)
        old_slice = flat[start : start + len(h.old)]
        if sum(it.mark == " " for it in h.old) != sum(it.mark == " " for it in h.new):
            raise Unresolved(f"the hunk's unchanged lines of {before.struct} differ between its two sides")
        context = iter(old_slice[k] for k, it in enumerate(h.old) if it.mark == " ")
        new_part: list[_Before | _Item] = []
        for it in h.new:
            if it.mark == " ":
                same = next(context, None)
                if same is None or same.key != it.key:
                    raise Unresolved(f"the hunk's unchanged lines of {before.struct} differ between its two sides")
                new_part.append(same)
            else:  # a moved member (its type from the type information) or a new one: see _added()
                new_part.append(it)
        flat[start : start + len(h.old)] = new_part
        at = start + len(new_part)
    # after the hunks are matched: a struct the patch does not show is said first, as the bigger difference
    conditional = next((h.new_conditional for h in hunks if h.new_conditional), "")
    if conditional:
        raise Unresolved(
            f"the patch puts members of {before.struct} under '{conditional}': which of them exist depends on "
            "the configuration"
        )
    entries = _tree(flat, before.struct)
    placed, size, align = _lay_out(before, info, entries, kind, by_name, moved_from, packed=before.packed)
    # the struct's own alignment attribute (} ____cacheline_aligned;) is on a line the patch keeps: the
    # alignment before beyond its members' is kept
    own = before.align if before.align > max((m.align for m in before.members), default=1) else 1
    for h in hunks:
        written = re.search(rf"\b{kind}\s+(.*?)\b{re.escape(name)}\s*\{{", h.new_opening)
        if written and written.group(1).strip():
            own = max(own, _explicit_align(written.group(1), before.cacheline, info) or 1)
    if own > align:
        align, size = own, -(-size // own) * own
    return Layout(
        before.struct, size, before.cacheline, placed, align=align, packed=before.packed, source=before.source
    )


def _whole_struct_shown(flat: list, start: int, h: _HunkSides, before: Layout) -> None:
    """A hunk that shows the struct's opening line shows every member up to its first changed line, and one
    that shows the closing ``};`` every member after its last: where the type information has members
    there that the patch does not show (or lacks some it shows), it is another version of the struct and
    its map would not be the patch's. Raises :class:`Unresolved` naming them."""
    extra: list = []
    if h.shows_opening and start:
        extra = flat[:start]
    end = start + len(h.old)
    if h.shows_closing and end < len(flat):
        extra = extra + flat[end:]
    named = [e.name for e in extra if e.tag == "member" and e.name] or [_shown(e) for e in extra]
    if extra:
        raise Unresolved(
            f"{before.source}'s {before.struct} has members the patch's lines of it do not show "
            f"({', '.join(named[:6])}{', ...' if len(named) > 6 else ''}: another kernel version or configuration)"
        )


def _shown(it: _Item) -> str:
    if it.tag == "open":
        return f"{it.name} {{"
    if it.tag == "close":
        return f"}} {it.name}".rstrip()
    return it.name


def _tree(flat: list, struct: str) -> list:
    """The flattened entries as a tree: :class:`_Group` for each nested struct/union."""
    stack: list[tuple[_Before | _Item | None, list]] = [(None, [])]
    for e in flat:
        if e.tag == "open":
            stack.append((e, []))
        elif e.tag == "close":
            if len(stack) == 1:
                raise Unresolved(f"the patch closes a nested struct/union of {struct} it does not open")
            opening, entries = stack.pop()
            assert opening is not None
            stack[-1][1].append(_Group(opening.name, opening, e, entries))
        else:
            stack[-1][1].append(e)
    if len(stack) != 1:
        raise Unresolved(f"the patch opens a nested struct/union of {struct} it does not close")
    return stack[0][1]


def _match(keys: list, wanted: list, start: int) -> int | None:
    """Where ``wanted`` runs in ``keys``, at or after ``start``."""
    if not wanted:
        return start
    for k in range(start, len(keys) - len(wanted) + 1):
        if keys[k : k + len(wanted)] == wanted:
            return k
    return None


def _lay_out(
    before: Layout,
    info: TypeInfo,
    entries: list,
    kind: str,
    by_name: dict[str, Placed],
    moved_from: dict[str, _Item],
    packed: bool = False,
) -> tuple[tuple[Placed, ...], int, int]:
    """Entries laid out from offset 0 with the C rules: (placed members, size, alignment)."""
    cacheline = before.cacheline
    is_union = kind == "union"
    bits = 0
    biggest = 1
    placed: list[Placed] = []
    template: Placed | None
    for entry in entries:
        nested: tuple[Placed, ...] = ()
        if isinstance(entry, _Group):
            nested, size, align = _lay_out(before, info, entry.entries, entry.kind, by_name, moved_from)
            closing = entry.closing
            if isinstance(closing, _Before):  # the closing line unchanged: its alignment as the offsets showed
                align = max(align, closing.placed.align)
            else:
                align = max(align, _explicit_align(closing.code, cacheline, info) or 1)
            size = -(-size // align) * align
            bit_size, type_id, template = 0, 0, None
        elif isinstance(entry, _Before):  # an unchanged line: the member as it was, its alignment as it showed
            p0 = entry.placed
            size, align, bit_size, type_id, template = p0.size, p0.align, p0.bit_size, p0.type_id, p0
            if p0.bit_offset is not None:
                size = info.size_of(p0.type_id)
        else:
            size, align, bit_size, type_id, template = _added(before, info, entry, by_name, moved_from)
        if packed and not _explicit_align(entry.code if isinstance(entry, _Item) else "", cacheline, info):
            align = 1
        biggest = max(biggest, align)
        if is_union:
            start_bits = 0
        elif bit_size:
            unit = max(1, align) * 8
            start_bits = bits
            if not packed and (start_bits % unit) + bit_size > size * 8:
                start_bits = _round_up_bits(bits, unit)
        else:
            start_bits = _round_up_bits(bits, max(1, align) * 8)
        offset = start_bits // 8
        if isinstance(entry, _Group):
            label = entry.closing.name
            p = Placed(
                label,
                f"{entry.kind} {{...}}",
                offset,
                size,
                align=align,
                kind=entry.kind,
                members=tuple(m.shifted(offset) for m in nested),
            )
        elif template is not None:
            if bit_size:
                p = replace(
                    template,
                    offset=offset,
                    size=(start_bits % 8 + bit_size + 7) // 8,
                    bit_offset=start_bits,
                    bit_size=bit_size,
                    align=align,
                )
            else:
                p = replace(template, offset=offset, align=align)
        else:
            assert isinstance(entry, _Item)
            p = Placed(
                entry.name,
                info.describe(type_id) if type_id else "u8[0]",
                offset,
                size if not bit_size else (start_bits % 8 + bit_size + 7) // 8,
                align=align,
                bit_offset=start_bits if bit_size else None,
                bit_size=bit_size,
                type_id=type_id,
            )
        placed.append(p)
        end_bits = start_bits + (bit_size if bit_size else size * 8)
        bits = end_bits if not is_union else max(bits, end_bits)
    end = (bits + 7) // 8
    return tuple(placed), (end if packed else -(-end // biggest) * biggest), biggest


def _round_up_bits(bits: int, unit: int) -> int:
    return -(-bits // unit) * unit


def _added(
    before: Layout, info: TypeInfo, item: _Item, by_name: dict[str, Placed], moved_from: dict[str, _Item]
) -> tuple[int, int, int, int, Placed | None]:
    """(size, align, bit_size, type_id, the member as it was) of a member on an added line."""
    explicit = _explicit_align(item.code, before.cacheline, info)
    if item.name.startswith("__cacheline_group_"):
        if item.name.startswith("__cacheline_group_pad__"):
            return 0, before.cacheline, 0, 0, None
        aligned = "_aligned" in item.code
        align = (before.cacheline if item.name.startswith("__cacheline_group_begin") else 8) if aligned else 1
        return 0, align, 0, 0, None
    if item.name in by_name and item.name in moved_from and _same_declaration(moved_from[item.name].code, item.code):
        was = by_name[item.name]
        old_code = moved_from[item.name].code
        natural = info.align_of(was.type_id) if was.type_id else was.align
        if _explicit_align(old_code, before.cacheline, info) is None and explicit is None:
            align = was.align  # no alignment written on either line: as the type information showed it
        else:
            align = max(natural, explicit or 1)
        size = info.size_of(was.type_id) if was.type_id else was.size
        return size, align, was.bit_size, was.type_id, was
    type_id, bit_size = _declared_type(info, item)
    natural = info.align_of(type_id)
    return info.size_of(type_id), max(natural, explicit or 1), bit_size, type_id, None


def _same_declaration(old: str, new: str) -> bool:
    """Do two lines declare the member with the same type (spacing and alignment attributes aside)? A member
    whose type or bit-field width the patch changes is laid out from its new declaration."""

    def key(code: str) -> str:
        return re.sub(r"\s+", "", _ALIGNED_ATTR_RE.sub("", code))

    return key(old) == key(new)


def _explicit_align(code: str, cacheline: int, info: TypeInfo) -> int | None:
    if not code or ("aligned" not in code):
        return None
    m = _ALIGNED_ATTR_RE.search(code)
    if m is None:
        return None
    if m.group(0).lstrip("_").startswith("cacheline_aligned"):
        return cacheline
    value = _int_expr((m.group(1) or "").strip(), info)
    if value is None or value <= 0 or value & (value - 1):
        raise Unresolved(f"cannot read the alignment in {code!r}")
    return value


def _int_expr(text: str, info: TypeInfo) -> int | None:
    """A constant the map can read: a number, an enumerator the type information has, ``sizeof(long)``-like
    of a known type, or a product/sum of them."""
    text = re.sub(r"sizeof\s*\(\s*([^()]+?)\s*\)", lambda m: str(_sizeof_text(m.group(1), info)), text)
    text = re.sub(r"\b(\d+)[uUlL]+\b", r"\1", text)  # 64UL
    text = re.sub(r"\b[A-Za-z_]\w*\b", lambda m: _constant_text(m.group(0), info), text)
    if not re.fullmatch(r"[\d\s+*()\-]+", text or "x"):
        return None
    try:
        return int(eval(text, {"__builtins__": {}}, {}))  # digits and + - * ( ) only, checked above
    except (SyntaxError, ValueError, TypeError):
        return None


def _constant_text(name: str, info: TypeInfo) -> str:
    """An enumerator's value as text (the type information's own), else the name (then no number)."""
    value = info.constant(name)
    return f"({value})" if value is not None else name


def _sizeof_text(text: str, info: TypeInfo) -> str:
    try:
        return str(info.size_of(_lookup_type(info, text)))
    except Unresolved:
        return "x"


_DECLARATOR_RE = re.compile(
    r"^(?P<type>.*?)(?P<stars>[\s*]*)\b(?P<name>\w+)\s*(?P<dims>(?:\[[^\]]*\]\s*)*)(?::\s*(?P<bits>[^;]+))?$"
)
_FUNC_PTR_RE = re.compile(r"\(\s*\*\s*\w+\s*\)\s*\(")


def _declared_type(info: TypeInfo, item: _Item) -> tuple[int, int]:
    """(type id, bit-field width) of the member ``item`` declares, from its type's name."""
    code = item.code.rstrip(";").strip()
    if _FUNC_PTR_RE.search(code):
        return _pointer(info), 0
    code = _ATTR_WORDS.sub(" ", code)
    declarators = [d.strip() for d in code.split(",")]
    first = _DECLARATOR_RE.match(declarators[0])
    if first is None:
        raise Unresolved(f"cannot read the declaration {item.code!r}")
    base_text = first.group("type").strip()
    for d in declarators:
        m = _DECLARATOR_RE.match(d if d is declarators[0] else f"{base_text} {d}")
        if m is None or m.group("name") != item.name:
            continue
        stars = m.group("stars").count("*")
        type_id = _pointer(info) if stars else _lookup_type(info, base_text)
        dims = re.findall(r"\[([^\]]*)\]", m.group("dims") or "")
        bit_size = 0
        if m.group("bits"):
            width = _int_expr(m.group("bits").strip(), info)
            if width is None:
                raise Unresolved(f"cannot read the bit-field width in {item.code!r}")
            bit_size = width
        if dims:
            size = info.size_of(type_id)
            count = 1
            for dim in dims:
                n = _int_expr(dim.strip(), info) if dim.strip() else 0
                if n is None:
                    raise Unresolved(f"{item.name}: the array length {dim.strip()!r} is not a number the map can read")
                count *= n
            return _array_type(info, type_id, count, size), bit_size
        return type_id, bit_size
    raise Unresolved(f"cannot read the declaration {item.code!r}")


_BASE_WORDS = {"signed", "unsigned", "short", "long", "int", "char", "_Bool", "float", "double"}


def _canonical_base(text: str) -> str:
    """A C base type's words in the order gcc names them (``unsigned long`` -> ``long unsigned int``)."""
    words = text.split()
    if words == ["char"] or words in (["signed", "char"], ["unsigned", "char"]):
        return " ".join(words)
    if words in (["_Bool"], ["float"], ["double"], ["long", "double"]):
        return " ".join(words)
    longs = words.count("long")
    unsigned = "unsigned" in words
    short = "short" in words
    out = (["short"] if short else []) + ["long"] * longs + (["unsigned"] if unsigned else []) + ["int"]
    if "char" in words:
        return ("unsigned " if unsigned else "") + "char"
    return " ".join(out)


def _lookup_type(info: TypeInfo, text: str) -> int:
    text = " ".join(_ATTR_WORDS.sub(" ", text).split())
    if text.endswith("*"):
        return _pointer(info)
    words = text.split()
    if len(words) == 2 and words[0] in ("struct", "union", "enum"):
        for tid in info.find(words[0], words[1]):
            t = info.get(tid)
            if t.kind != "fwd":
                return tid
        raise NotInTypes(f"{text} is not in {info.source}")
    if words and set(words) <= _BASE_WORDS:
        for kind in ("int", "float"):
            for tid in info.find(kind, _canonical_base(text)):
                return tid
        raise NotInTypes(f"the base type {text!r} is not in {info.source}")
    if len(words) == 1:
        for tid in info.find("typedef", words[0]):
            return tid
        for tid in info.find("int", words[0]):
            return tid
    raise NotInTypes(f"the type {text!r} is not in {info.source}")


def _pointer(info: TypeInfo) -> int:
    """A pointer type's id (every pointer has the pointer's size and alignment)."""
    return info.add(CType("ptr", ref=0))


def _array_type(info: TypeInfo, elem: int, count: int, size: int) -> int:
    del size
    return info.add(CType("array", ref=elem, nelems=count))


@dataclass(frozen=True)
class Move:
    """A member whose cache line the patch changes (``before``/``after``: the line it starts on), with the
    members it sits next to afterwards on its new line (``beside``)."""

    name: str
    before: int
    after: int
    beside: tuple[str, ...] = ()


def moves(before: Layout, after: Layout) -> list[Move]:
    """The members that start on another cache line after the patch, in the new order."""
    was = {m.name: m for m in before.flat() if m.name}
    flat = [m for m in after.flat() if m.name and not m.name.startswith("__cacheline_group_")]
    out = []
    for k, m in enumerate(flat):
        old = was.get(m.name)
        if old is None or before.line(old.offset) == after.line(m.offset):
            continue
        line = after.line(m.offset)
        beside = [n.name for n in flat[max(0, k - 1) : k] + flat[k + 1 : k + 2] if after.line(n.offset) == line]
        out.append(Move(m.name, before.line(old.offset), line, tuple(beside)))
    return out


def changed_lines(before: Layout, after: Layout) -> list[int]:
    """Cache lines whose set of members differs between the two layouts."""

    def by_line(layout: Layout) -> dict[int, set[str]]:
        out: dict[int, set[str]] = {}
        for m in layout.flat():
            out.setdefault(layout.line(m.offset), set()).add(m.name)
        return out

    a, b = by_line(before), by_line(after)
    return sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
