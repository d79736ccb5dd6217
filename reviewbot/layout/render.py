"""Layouts as text (like pahole's), as JSON, and side by side before and after a patch."""

from __future__ import annotations

from typing import Any

from reviewbot.layout.plan import Layout, Placed

_NAME_COLUMN = 32


def to_json(layout: Layout) -> dict[str, Any]:
    """``{"struct", "size", "cacheline", "members": [...]}``; each member ``{"name", "type", "offset",
    "size", "line", "end_line"}`` (bytes from the struct's start), a bit-field with ``bit_offset`` and
    ``bit_size``, an anonymous struct/union with ``kind`` and its own ``members``."""
    return {
        "struct": layout.struct,
        "size": layout.size,
        "align": layout.align,
        "cacheline": layout.cacheline,
        "cachelines": -(-layout.size // layout.cacheline),
        "members": [_member_json(layout, m) for m in layout.members],
        "holes": [{"offset": at, "size": size} for at, size in layout.holes()],
        "source": layout.source,
    }


def _member_json(layout: Layout, m: Placed) -> dict[str, Any]:
    first, last = layout.lines_of(m)
    out: dict[str, Any] = {
        "name": m.name,
        "type": m.type_name,
        "offset": m.offset,
        "size": m.size,
        "line": first,
        "end_line": last,
    }
    if m.bit_offset is not None:
        out["bit_offset"] = m.bit_offset
        out["bit_size"] = m.bit_size
    if m.kind:
        out["kind"] = m.kind
        out["members"] = [_member_json(layout, inner) for inner in m.members]
    return out


def to_text(layout: Layout) -> str:
    """The struct as pahole prints it: each member with ``/* offset size */``, a rule at every cache-line
    boundary, holes, and a summary."""
    out = [f"{layout.struct} {{"]
    state = {"line": 0}
    _text_members(layout, layout.members, 1, out, state, top=True)
    padding = layout.size - max((m.end for m in layout.members), default=0)
    summary = f"size: {layout.size}, cachelines: {-(-layout.size // layout.cacheline)}, members: {len(layout.flat())}"
    inner = [h for h in layout.holes() if h[0] + h[1] < layout.size]
    if inner:
        summary += f", holes: {len(inner)}, sum holes: {sum(s for _a, s in inner)}"
    if padding > 0:
        summary += f", padding: {padding}"
    out.append(f"\t/* {summary} */")
    if layout.size % layout.cacheline:
        out.append(f"\t/* last cacheline: {layout.size % layout.cacheline} bytes */")
    out.append("};")
    return "\n".join(out)


def _text_members(layout: Layout, members: tuple[Placed, ...], depth: int, out: list[str], state, top: bool) -> None:
    indent = "\t" * depth
    end = members[0].offset if members else 0
    for m in members:
        if top and m.offset > end:
            out.append(f"{indent}/* XXX {m.offset - end} byte{'s' if m.offset - end != 1 else ''} hole */")
        line = layout.line(m.offset)
        if line > state["line"]:
            state["line"] = line
            out.append(f"{indent}/* --- cacheline {line} boundary ({line * layout.cacheline} bytes) --- */")
        if m.kind and not m.name:
            out.append(f"{indent}{m.kind} {{")
            _text_members(layout, m.members, depth + 1, out, state, top=m.kind == "struct")
            out.append(f"{indent}{'};':<{_NAME_COLUMN + 24 - 4 * (depth - 1)}} /* {m.offset:5} {m.size:5} */")
        else:
            decl = f"{m.type_name:<{_NAME_COLUMN - 4 * (depth - 1)}} {m.name}"
            if m.bit_offset is not None:
                decl += f":{m.bit_size}"
                where = f"{m.offset:5}:{m.bit_offset % 8:2} {m.size:3}"
            else:
                where = f"{m.offset:5} {m.size:5}"
            out.append(f"{indent}{decl + ';':<{_NAME_COLUMN + 24 - 4 * (depth - 1)}} /* {where} */")
        end = max(end, m.end)


def side_by_side(before: Layout, after: Layout) -> str:
    """Each member in the new order with its offset, size and cache line before and after; ``<<`` marks a
    member that changed line."""
    from reviewbot.layout.plan import moves

    moved = {mv.name for mv in moves(before, after)}
    was = {m.name: m for m in before.flat()}
    width = max([len(m.name) for m in after.flat()] + [len("member")])
    out = [
        f"{after.struct}: before -> after ({after.cacheline}-byte cache lines)",
        f"  {'member':<{width}}  {'offset':>6} {'size':>5} {'line':>4}  ->  {'offset':>6} {'size':>5} {'line':>4}",
    ]
    line = -1
    for m in after.flat():
        now = after.line(m.offset)
        if now != line:
            out.append(f"  --- line {now} (bytes {now * after.cacheline}..{(now + 1) * after.cacheline - 1}) ---")
            line = now
        old = was.get(m.name)
        left = f"{old.offset:>6} {old.size:>5} {before.line(old.offset):>4}" if old else f"{'(new)':>6} {'':>5} {'':>4}"
        mark = "  << moved line" if m.name in moved else ""
        out.append(f"  {m.name:<{width}}  {left}  ->  {m.offset:>6} {m.size:>5} {now:>4}{mark}")
    gone = [name for name in was if name not in {m.name for m in after.flat()}]
    if gone:
        out.append(f"  removed: {', '.join(gone)}")
    holes_b = sum(s for a, s in before.holes() if a + s < before.size)
    holes_a = sum(s for a, s in after.holes() if a + s < after.size)
    out.append(
        f"  size: {before.size} -> {after.size}, cachelines: {-(-before.size // before.cacheline)} -> "
        f"{-(-after.size // after.cacheline)}, holes: {holes_b} -> {holes_a} bytes"
    )
    return "\n".join(out)


def short_map(before: Layout, after: Layout, limit: int = 4, width: int = 72) -> list[str]:
    """The cache lines whose members change, before and after, for a reply or under a finding: never the
    whole struct. A run of three or more members that stays the same at a line's start or end is shown as
    ``first .. last``."""
    from reviewbot.layout.plan import changed_lines

    def names(layout: Layout, line: int) -> list[str]:
        return [m.name for m in layout.flat() if layout.line(m.offset) == line and m.name]

    out: list[str] = []
    for line in changed_lines(before, after)[:limit]:
        b, a = names(before, line), names(after, line)
        label = f"line {line}"
        for side, mine, other, layout in (("before", b, a, before), ("after", a, b, after)):
            past = layout.line(max(layout.size - 1, 0)) < line
            text = _abbreviated(mine, other) or ("(past the struct's end)" if past else "(no member starts here)")
            out.extend(_wrapped(f"  {label} {side + ':':<7} {text}", width, " " * (len(label) + 11)))
    return out


def _abbreviated(mine: list[str], other: list[str]) -> str:
    head = 0
    while head < min(len(mine), len(other)) and mine[head] == other[head]:
        head += 1
    tail = 0
    while tail < min(len(mine), len(other)) - head and mine[-1 - tail] == other[-1 - tail]:
        tail += 1
    parts: list[str] = []
    if head >= 3:
        parts.append(f"{mine[0]} .. {mine[head - 1]}")
    else:
        parts.extend(mine[:head])
    parts.extend(mine[head : len(mine) - tail])
    if tail >= 3:
        parts.append(f"{mine[len(mine) - tail]} .. {mine[-1]}")
    else:
        parts.extend(mine[len(mine) - tail :])
    return ", ".join(parts)


def _wrapped(text: str, width: int, indent: str) -> list[str]:
    import textwrap

    return textwrap.wrap(text, width, subsequent_indent=indent, break_on_hyphens=False, break_long_words=False) or [""]


def size_change(before: Layout, after: Layout) -> str:
    """``; the struct goes from 80 to 64 bytes, 2 cache lines to 1``: the first thing pahole's summary shows,
    said when the size or the number of lines changes ("" when neither does)."""
    lines_before, lines_after = (-(-x.size // x.cacheline) for x in (before, after))
    if before.size == after.size and lines_before == lines_after:
        return ""
    text = f"; the struct goes from {before.size} to {after.size} bytes"
    if lines_before != lines_after:
        text += f", {lines_before} cache line{'s' if lines_before != 1 else ''} to {lines_after}"
    return text


def moves_sentence(moved: list, named: tuple[str, ...] = (), limit: int = 2) -> str:
    """``bd_inode moves from line 1 to line 0, next to bd_dev; bd_openers and bd_size_lock move from line 0 to
    line 1``: the members that change cache line, grouped by where from and where to. With ``named`` (the
    members the patch moves), they are said first, then the others, which only follow them or a member that
    changed size: "...; not moved by the patch but changing line: flush_rq moves from line 1 to line 0"."""
    own = [mv for mv in moved if mv.name in named]
    if own and len(own) < len(moved):  # the others follow a moved member or one that changed size
        others = [mv for mv in moved if mv.name not in named]
        return f"{moves_sentence(own, (), limit)}; not moved by the patch but changing line: " + moves_sentence(
            others, (), limit
        )
    groups: dict[tuple[int, int], list] = {}
    for mv in moved:
        groups.setdefault((mv.before, mv.after), []).append(mv)
    parts = []
    for (old, new), mvs in list(groups.items())[:limit]:
        names = [mv.name for mv in mvs]
        who = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
        if len(names) > 4:
            who = ", ".join(names[:3]) + f" and {len(names) - 3} more"
        text = f"{who} {'moves' if len(names) == 1 else 'move'} from line {old} to line {new}"
        if len(names) == 1 and mvs[0].beside:
            text += ", next to " + " and ".join(mvs[0].beside)
        parts.append(text)
    rest = sum(len(mvs) for mvs in list(groups.values())[limit:])
    if rest:
        parts.append(f"{rest} more member{'s' if rest > 1 else ''} change{'' if rest > 1 else 's'} line")
    return "; ".join(parts)
