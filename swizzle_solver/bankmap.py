"""The data behind the pictures: which bank each element lands in, and one access's worst placement.

The terminal picture (picture.py) and the SVG (svg.py) only draw a BankMap; every number in them
comes from the simulator (the worst placement is the one simulate.py measured as worst).
"""
from __future__ import annotations

import numpy as np

from . import simulate
from .layout import Layout, layout_table
from .model import InputError, Problem
from .value import Value


class BankMap(Value, eq=False):
    """A tile under one layout, seen from one access pattern."""

    layout: str  # the layout's name
    spec: str  # the access whose worst placement is marked
    phys: np.ndarray  # [rows, cols] physical element offset
    banks: np.ndarray  # [rows, cols] bank of the element's first word
    footprint: frozenset  # (r, c) of every element the worst placement reads
    conflicted: frozenset  # footprint elements in a bank holding more distinct words than the bound allows
    worst: int  # wavefronts of that placement (the pattern's worst)
    total: int  # wavefronts over all placements
    lower_bound: int
    lanes: tuple  # ((r, c, bytes), banks) per distinct lane of the worst placement
    storage: str = ""  # how storage runs, for a tile that is not row-major (--order col); "" for row-major


def choose_access(problem: Problem, which: str | None) -> int:
    """`--show-access`: a pattern by its spec (as written) or by its 1-based position.

    Default: the access the unswizzled tile serves worst (most wavefronts above its lower bound;
    the first on a tie), the one whose before/after shows what the layout fixes.
    """
    if which is None:
        from .families.identity import Identity

        results = simulate.simulate(problem.tile, problem.hardware, problem.patterns,
                                    layout_table(problem.tile, Identity()))
        excess = [r.excess for r in results]
        return excess.index(max(excess))
    specs = [p.spec for p in problem.patterns]
    if which.strip() in specs:
        return specs.index(which.strip())
    if which.strip().isdigit() and 1 <= int(which) <= len(specs):
        return int(which) - 1
    raise InputError(f"--show-access {which!r} names no access: use one of {', '.join(specs)} "
                     f"or its position 1..{len(specs)}")


def bank_map(problem: Problem, layout: Layout, index: int) -> BankMap:
    pattern = problem.patterns[index]
    tile, model = problem.tile, problem.hardware.serving(pattern.banks)
    phys = layout_table(problem.tile, layout)
    result = simulate.simulate(tile, model, [pattern], phys)[0]
    lanes = simulate.bank_list(tile, model, pattern, phys, result.worst_placement)
    words_in_bank: dict[int, set] = {}
    for _, words, banks in lanes:
        for w, b in zip(words, banks):
            words_in_bank.setdefault(b, set()).add(w)
    crowded = {b for b, ws in words_in_bank.items() if len(ws) > pattern.lower_bound}
    footprint, conflicted = set(), set()
    for (r, c, nbytes), _, banks in lanes:
        for k in range(nbytes // tile.elem_bytes):
            footprint.add(tile.logical(r, c + k))  # the user's (r, c): under --order col a vector runs down a column
            if crowded.intersection(banks):
                conflicted.add(tile.logical(r, c + k))
    bank_of = model.bank(model.first_word(phys, tile.elem_bytes))
    drawn = [((*tile.logical(r, c), nbytes), tuple(banks)) for (r, c, nbytes), _, banks in lanes]
    storage = ""
    if tile.col_major:  # drawn as the user's tile: the stored transpose turned back
        phys, bank_of = phys.T, bank_of.T
        storage = (f"column-major (--order col): storage runs down each column, element (r, c) at "
                   f"c * {tile.row_length} + r before the layout")
    return BankMap(layout.name, pattern.spec, phys, bank_of, frozenset(footprint), frozenset(conflicted),
                   result.worst, result.total, pattern.lower_bound, tuple(drawn), storage)


def layout_map(problem: Problem, layout: Layout) -> BankMap:
    """A layout drawn alone (no access named): every element's offset and bank, nothing outlined or
    counted (``spec`` empty)."""
    tile, model = problem.tile, problem.hardware
    phys = layout_table(tile, layout)
    bank_of = model.bank(model.first_word(phys, tile.elem_bytes))
    storage = ""
    if tile.col_major:
        phys, bank_of = phys.T, bank_of.T
        storage = (f"column-major (--order col): storage runs down each column, element (r, c) at "
                   f"c * {tile.row_length} + r before the layout")
    return BankMap(layout.name, "", phys, bank_of, frozenset(), frozenset(), 0, 0, 0, (), storage)


def bank_colour(bank: int, banks: int) -> str:
    """A stable colour per bank: 8 hues around the circle, 4 lightness steps for the groups of 8."""
    hue = (bank % 8) / 8
    group = (bank // 8) % 4 if banks > 8 else 1
    light = (0.78, 0.66, 0.54, 0.42)[group]
    return _hsl(hue, 0.55, light)


def _hsl(h: float, s: float, l: float) -> str:
    import colorsys

    r, g, b = colorsys.hls_to_rgb(h, l, s)
    return f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}"
