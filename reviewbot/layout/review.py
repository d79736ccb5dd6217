"""What RB101 asks of the layout map: for one reordered struct, which members change cache line, a short map
of those lines, and whether the reorder only packs (no member changes line, no size or hole grows).

Used only when type information is configured (``btf = "PATH"`` or ``reviewbot check --btf FILE``; a
directory names the ``-g`` objects of one build, each read when it can hold the struct): the
rule's findings do not depend on what the machine running it happens to have.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from reviewbot.layout import RUNNING_KERNEL_BTF, NotInTypes, TypeInfoError, Unresolved
from reviewbot.layout.types import TypeInfo

#: the key of RuleContext.options that names the type information (set by checking.run_check and scan from
#: the ``btf`` setting; left out when nothing is configured)
OPTION = "btf"


@dataclass(frozen=True)
class ReorderMap:
    """``sentence``: what moved across which line; ``lines``: the short map; ``packing``: no member changes
    line and the struct does not grow; ``source``: the type information, as a reply names it."""

    sentence: str
    lines: tuple[str, ...]
    packing: bool
    source: str
    moved: tuple[str, ...]


@dataclass(frozen=True)
class NoMap:
    """Why a reorder gets no map. ``struct_known``: the type information has the struct (the patch shows
    another version of it, or a type the patch adds is missing), so the finding says why; otherwise the
    type information simply lacks the struct and nothing is said."""

    reason: str
    struct_known: bool = False


@lru_cache(maxsize=16)
def _types(path: str) -> TypeInfo | None:
    from reviewbot.layout.source import load

    try:
        return load(path)
    except TypeInfoError as exc:
        from reviewbot.lazylog import get_logger

        get_logger(__name__).warning("no cache-line maps: %s", exc)
        return None


def _sources(btf: str, struct: str) -> tuple[list[str], str]:
    """The files to read for ``struct`` (one, or those of a directory that can hold it), and the reason
    when there is none."""
    where = Path(btf)
    if not where.is_dir():
        return [btf], ""
    from reviewbot.layout.plan import split_struct_name
    from reviewbot.layout.source import files_holding

    try:
        files = files_holding(where, split_struct_name(struct)[1])
    except (TypeInfoError, Unresolved) as exc:
        return [], str(exc)
    return [str(f) for f in files], f"{struct} is not in the type information of {where.name}/"


def _source_name(btf: str, used: str) -> str:
    """The type information as a reply names it: the running kernel's BTF, a file's name, or a directory's
    name (the build; which of its objects held the struct says nothing to a reader: a struct of blk.h is in
    every object including it, the first in name order may be bfq-iosched.o)."""
    if btf == RUNNING_KERNEL_BTF:
        return "the running kernel's BTF"
    return Path(btf).name  # a directory: its name says which build (the object that held it is no reader's concern)


def reorder_map(btf: str, struct: str, patch, named: tuple[str, ...] = (), cacheline: int = 64) -> ReorderMap | None:
    """The map of ``struct``'s reorder in ``patch`` from the type information at ``btf``, or None when the
    type information cannot be read, does not have the struct, or the after-layout cannot be computed.
    ``named``: the members the finding names, said first (the others only shift because of them)."""
    found = reorder_map_or_reason(btf, struct, patch, named, cacheline)
    return found if isinstance(found, ReorderMap) else None


def reorder_map_or_reason(
    btf: str, struct: str, patch, named: tuple[str, ...] = (), cacheline: int = 64
) -> ReorderMap | NoMap:
    """As :func:`reorder_map`, with the reason when there is no map.

    ``btf`` may name a directory of type files (the ``-g`` objects of one build): the files that can hold
    the struct are read in name order, and the first that has it and every type the patch adds gives the
    map. A struct whose lines the patch shows differently is another version of it in every file of that
    build: no map, said once."""
    from reviewbot.layout.plan import after_patch, layout_of

    files, reason = _sources(btf, struct)
    known = False
    for used in files:
        info = _types(used)
        if info is None:
            reason = reason or f"cannot read {used}"
            continue
        try:
            before = layout_of(info, struct, cacheline)
        except NotInTypes as exc:
            reason = reason or str(exc)
            continue
        except (Unresolved, TypeInfoError) as exc:
            reason, known = str(exc), True
            continue
        known = True
        try:
            after = after_patch(before, info, patch)
        except NotInTypes as exc:  # a type the patch adds: another file of the build may have it
            reason = str(exc)
            continue
        except (Unresolved, TypeInfoError) as exc:  # no map rather than a guess
            return NoMap(str(exc), True)
        return _map(before, after, named, _source_name(btf, used))
    return NoMap(reason or f"{struct} is not in the type information", known)


def _map(before, after, named: tuple[str, ...], source: str) -> ReorderMap:
    from reviewbot.layout.plan import moves
    from reviewbot.layout.render import moves_sentence, short_map, size_change

    moved = sorted(moves(before, after), key=lambda mv: mv.name not in named)
    grows = after.size > before.size
    holes_before = sum(s for a, s in before.holes() if a + s < before.size)
    holes_after = sum(s for a, s in after.holes() if a + s < after.size)
    return ReorderMap(
        sentence=moves_sentence(moved, named) + size_change(before, after) if moved else "",
        lines=tuple(short_map(before, after)),
        packing=not moved and not grows and (after.size < before.size or holes_after < holes_before),
        source=source,
        moved=tuple(mv.name for mv in moved),
    )
