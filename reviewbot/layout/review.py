"""What RB101 asks of the layout map: for one reordered struct, which members change cache line, a short map
of those lines, and whether the reorder only packs (no member changes line, no size or hole grows).

Used only when type information is configured (``btf = "PATH"`` or ``reviewbot check --btf FILE``): the
rule's findings do not depend on what the machine running it happens to have.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from reviewbot.layout import RUNNING_KERNEL_BTF, TypeInfoError, Unresolved
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


@lru_cache(maxsize=4)
def _types(path: str) -> TypeInfo | None:
    from reviewbot.layout.source import load

    try:
        return load(path)
    except TypeInfoError as exc:
        from reviewbot.lazylog import get_logger

        get_logger(__name__).warning("no cache-line maps: %s", exc)
        return None


def reorder_map(btf: str, struct: str, patch, named: tuple[str, ...] = (), cacheline: int = 64) -> ReorderMap | None:
    """The map of ``struct``'s reorder in ``patch`` from the type information at ``btf``, or None when the
    type information cannot be read, does not have the struct, or the after-layout cannot be computed.
    ``named``: the members the finding names, said first (the others only shift because of them)."""
    from reviewbot.layout.plan import after_patch, layout_of, moves
    from reviewbot.layout.render import moves_sentence, short_map

    info = _types(btf)
    if info is None:
        return None
    try:
        before = layout_of(info, struct, cacheline)
        after = after_patch(before, info, patch)
    except (Unresolved, TypeInfoError):  # no map rather than a guess; a damaged file says so once, above
        return None
    moved = sorted(moves(before, after), key=lambda mv: mv.name not in named)
    grows = after.size > before.size
    holes_before = sum(s for a, s in before.holes() if a + s < before.size)
    holes_after = sum(s for a, s in after.holes() if a + s < after.size)
    source = "the running kernel's BTF" if btf == RUNNING_KERNEL_BTF else Path(btf).name
    return ReorderMap(
        sentence=moves_sentence(moved),
        lines=tuple(short_map(before, after)),
        packing=not moved and not grows and (after.size < before.size or holes_after < holes_before),
        source=source,
        moved=tuple(mv.name for mv in moved),
    )
