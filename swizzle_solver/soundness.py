"""Is a layout usable at all? The one soundness check, the counterpart of Triton's
``LinearLayout::checkInvariants``: a layout is sound on a problem when it is a bijection of the
tile onto its storage and keeps every lane's vector whole (contiguous and aligned to its size).

Every layout a search proposes passes it before it is measured (search.py, extended.py);
``--check`` reports its reason, and ``verify`` turns a failure on an answer into an internal error.
Here too: ``storage``; the table phys[r, c] the simulator measures is ``layout.layout_table``.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from . import simulate
from .layout import Layout, layout_table
from .model import Pattern, Tile


def storage(tile: Tile, layout: Layout) -> int:
    """Elements of storage the layout may use: the tile's own, or more for padding."""
    return layout.storage(tile)


def soundness(tile: Tile, layout: Layout, patterns: Sequence[Pattern], table: np.ndarray | None = None) -> str | None:
    """None when ``layout`` is a bijection of the tile onto its storage that keeps every vector of
    ``patterns`` whole; else why not, in words (``table``: its layout_table, if already built)."""
    why = layout.invalid(tile)  # the family's own structural reason, cheapest and most telling
    if why is not None:
        return why
    table = layout_table(tile, layout) if table is None else table
    size = storage(tile, layout)
    why = table_soundness(tile, table, size, patterns)
    return None if why is None else _detailed(why, tile, table, size, patterns, layout.bases(tile) is not None)


def table_soundness(tile: Tile, table: np.ndarray, size: int, patterns: Sequence[Pattern]) -> str | None:
    """soundness() of a layout given by its table and storage size, past its structural check."""
    if not simulate.is_injective(tile, table, size):
        return f"it is not a bijection onto its {size}-element storage"
    for pattern in patterns:
        if not simulate.admissible(tile, pattern, table):
            return f"it splits the {pattern.vector_bytes}-byte vectors of {pattern.spec}"
    return None


def _detailed(why: str, tile: Tile, table: np.ndarray, size: int, patterns: Sequence[Pattern], xor: bool) -> str:
    """table_soundness's reason with its witness (the search asks only whether there is one): the
    first two elements that collide, or the first vector split, and for an XOR layout (``xor``) what
    keeps vectors whole."""
    collision = simulate.first_collision(tile, table, size)
    if collision is not None:
        return f"{why}: {collision}"
    for pattern in patterns:
        split = simulate.first_split(tile, pattern, table)
        if split is None:
            continue
        r, c, nbytes, offsets = split
        r, c = tile.logical(r, c)  # the user's (r, c) under --order col
        align = (nbytes & -nbytes) // tile.elem_bytes
        where = (f"starts at offset {offsets[0]}, not a multiple of {align}" if offsets[0] % align and offsets ==
                 list(range(offsets[0], offsets[0] + len(offsets))) else f"lands at offsets {', '.join(map(str, offsets))}")
        hint = " (an XOR into bits M and up keeps them whole only when 2^M >= elements per vector)" if xor else ""
        return (f"it splits the {pattern.vector_bytes}-byte vectors of {pattern.spec}: the {nbytes}-byte vector at "
                f"({r}, {c}) {where}{hint}")
    return why


def verify(tile: Tile, layout: Layout, patterns: Sequence[Pattern], table: np.ndarray | None = None) -> None:
    """Insist a layout the search returns is sound: a failure here is a bug in a search."""
    why = soundness(tile, layout, patterns, table)
    if why is not None:
        raise AssertionError(f"internal error: {layout.name} is unsound: {why}")
