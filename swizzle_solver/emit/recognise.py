"""Recognising a layout's shape for the emit targets, in one place: the forms a target can say (a
CuTe swizzle, a swizzle of padded rows, a chain of swizzles, a TMA mode, Triton's swizzled, padded
and linear encodings) read off the layout's GF(2) bases (families/forms.py) or its table, and
always confirmed element by element on the table.
"""
from __future__ import annotations

from collections.abc import Callable, Hashable
from functools import lru_cache, wraps
from typing import TYPE_CHECKING, TypeVar, cast

import numpy as np

from ..families import forms
from ..families.cute import Swizzle
from ..families.forms import inverse_bases, row_col_xor
from ..layout import Layout
from ..layout import layout_table as _layout_table
from ..model import Tile, is_pow2, log2
from ..orient import words
from ..value import replace

if TYPE_CHECKING:  # a later family, imported by panels_of when it is used
    from ..families.panels import ColumnPanels

__all__ = [
    "as_swizzle",
    "as_stored",
    "grid",
    "linear_offset_bases",
    "listed_swizzles",
    "padding_of",
    "panels_of",
    "row_bands",
    "row_pitch",
    "swizzle_chain",
    "swizzled_columns",
    "swizzled_rows",
    "tma_mode_of",
    "tma_width",
    "triton_swizzled_params",
    "triton_swizzled_xors",
    "why_not_swizzle",
]


T = TypeVar("T")


def grid(tile: Tile) -> tuple[np.ndarray, np.ndarray]:
    """(r, c) of every element as a column and a row that broadcast to the tile's shape: an
    expression in both is the tile's table (np.meshgrid's, without its two full copies)."""
    return np.arange(tile.rows)[:, None], np.arange(tile.cols)[None, :]


def _per_layout(ask: Callable[[Tile, Layout], T]) -> Callable[[Tile, Layout], T]:
    """``ask(tile, layout)``, remembered for the last few (tile, layout) pairs: every target asks
    these questions of each layout the report lists (expressible_in), and most answers cost a table
    of the whole tile. Pure functions of their arguments (tiles and layouts are frozen values); a
    layout that cannot be hashed is asked every time."""
    remembered = lru_cache(maxsize=64)(ask)

    @wraps(ask)
    def answer(tile: Tile, layout: Layout) -> T:
        try:
            return remembered(tile, cast(Hashable, layout))
        except TypeError:  # unhashable
            return ask(tile, layout)

    return answer


@_per_layout
def layout_table(tile: Tile, layout: Layout) -> np.ndarray:
    """The layout's table (layout.layout_table), read-only: it is shared by every question asked here."""
    table = _layout_table(tile, layout)
    table.setflags(write=False)
    return table


as_swizzle = _per_layout(forms.as_swizzle)


def as_stored(tile: Tile, layout: Layout) -> tuple[Tile, Layout]:
    """The tile as the layout stores it, and the layout there: a padded layout is its inner layout
    on the tile whose rows are its pitch apart (the same table, element by element), so a form
    recognised there is the layout's own, written with that pitch; any other layout is itself."""
    form = layout.padded_form(tile)
    return (tile, layout) if form is None else (replace(tile, row_length=form[0]), form[1])


@_per_layout
def row_pitch(tile: Tile, layout: Layout) -> int | None:
    """P when the layout is plain row-major with rows P elements apart (P = row_length: no swizzle;
    larger: padding), else None."""
    phys = layout_table(tile, layout)
    pitch = int(phys[1, 0] - phys[0, 0]) if tile.rows > 1 else tile.row_length
    if pitch < tile.cols:
        return None
    r, c = grid(tile)
    return pitch if np.array_equal(phys, r * pitch + c) else None


@_per_layout
def swizzled_rows(tile: Tile, layout: Layout) -> tuple[int, Swizzle] | None:
    """(P, sw) with layout(r, c) = sw(r * P + c) on every element of the tile, if there is one: P is
    the row length, or the pitch of a padded layout (CuTe: composition(sw, (R, C):(P, 1))). Read
    off the bases (a power-of-two P), else off the layout's own listed steps (any P)."""
    sw = as_swizzle(tile, layout)
    if sw is not None:
        return tile.row_length, sw
    stored, inner = as_stored(tile, layout)
    sw = as_swizzle(stored, inner) if inner is not layout else None
    if sw is not None:
        r, c = grid(tile)
        if np.array_equal(sw.apply(r * stored.row_length + c), layout_table(tile, layout)):
            return stored.row_length, sw
    listed = listed_swizzles(tile, layout)
    return (listed[0], listed[1][0]) if listed is not None and len(listed[1]) == 1 else None


def _runs(mask: int) -> list[tuple[int, int]]:
    """(low bit, length) of each run of ones in ``mask``."""
    out, i = [], 0
    while mask >> i:
        if mask >> i & 1:
            n = 0
            while mask >> (i + n) & 1:
                n += 1
            out.append((i, n))
            i += n
        else:
            i += 1
    return out


def _listed_chains(layout: Layout) -> list[list[Swizzle]]:
    """_chains of the layout's listed steps ([] when they are no swizzles: a row permutation, a toy
    family's own kind of step)."""
    try:
        return _chains(layout.swizzles())
    except (AttributeError, KeyError, TypeError, ValueError):
        return []


def _chains(listed: list[dict]) -> list[list[Swizzle]]:
    """Swizzle chains the listed steps may be: a chain as listed (two-level), or for XOR steps that
    each read the original offset (linear), one swizzle per run of each mask, in the listed order and
    reversed (either may equal the simultaneous steps; the table decides)."""
    if all(x.get("unit", "element") == "element" and not x.get("applies_to") for x in listed):
        return [[Swizzle(x["B"], x["M"], x["S"]) for x in listed]]
    if not all(x.get("kind") == "xor-mask" and x.get("shift", 0) > 0 for x in listed):
        return []
    steps = []
    for x in listed:
        for low, n in _runs(x["mask"]):
            if x["shift"] < n:
                return []
            steps.append(Swizzle(n, low, x["shift"]))
    return [steps, steps[::-1]]


@_per_layout
def listed_swizzles(tile: Tile, layout: Layout) -> tuple[int, list[Swizzle]] | None:
    """(P, chain): CuTe swizzles that, applied in turn to r * P + c, reproduce the layout on every
    element of the tile, read from its listed steps (``swizzles()``); P is the row length, or the
    pitch of a padded layout."""
    stored, inner = as_stored(tile, layout)
    chains = _listed_chains(inner)
    r, c = grid(tile)
    table = layout_table(tile, layout)
    for chain in chains:
        if not chain:
            continue
        p = r * stored.row_length + c
        for sw in chain:
            p = sw.apply(p)
        if np.array_equal(p, table):
            return stored.row_length, chain
    return None


@_per_layout
def swizzled_columns(tile: Tile, layout: Layout) -> tuple[int, int, Swizzle] | None:
    """(P, Q, sw) with layout(r, c) = back(sw(r * Q + c)), back(i) = (i mod Q) + (i div Q) * P, on
    every element of the tile, if there is one: a per-row column XOR (xor-cols, or one of padded
    rows: its listed step, ``swizzles()``) on rows P elements apart, as a CuTe swizzle of rows
    stored Q = 2^n elements apart (row bit a is offset bit n + a: Swizzle<B, M, n + a - M>), mapped
    back to the pitch. Q holds every column before and after the XOR (n >= column bits, M + B), so
    back() undoes r * Q exactly, and S = n + a - M >= B as CuTe requires. C++ CuTe says it as
    make_composed_layout((Q, R):(1, P), 0, composition(sw, (R, C):(Q, 1)))."""
    try:
        (step,) = layout.swizzles()
    except (AttributeError, TypeError, ValueError):
        return None
    if step.get("applies_to") != "column" or step.get("row_shift") is None or step.get("unit", "element") != "element":
        return None
    B, M, a = step["B"], step["M"], step["row_shift"]
    form = layout.padded_form(tile)
    pitch = form[0] if form else tile.row_length
    n = max((tile.cols - 1).bit_length(), M + B)
    if n + a + B + (tile.rows - 1).bit_length() > 62:  # a name given by hand (--check) past int64
        return None
    sw = Swizzle(B, M, n + a - M)
    r, c = grid(tile)
    i = sw.apply(r * (1 << n) + c)
    back = (i & ((1 << n) - 1)) + (i >> n) * pitch
    return (pitch, 1 << n, sw) if np.array_equal(back, layout_table(tile, layout)) else None


def swizzle_chain(tile: Tile, layout: Layout) -> tuple[int, list[Swizzle]] | None:
    """(P, chain) of ``listed_swizzles`` when the chain is two or more swizzles: C++ CuTe nests
    them as composed layouts."""
    listed = listed_swizzles(tile, layout)
    return listed if listed is not None and len(listed[1]) > 1 else None


def tma_width(tile: Tile, sw: Swizzle | None) -> int | None:
    """Bytes of the TMA/GMMA swizzle mode that stores exactly this tile, or None.

    The byte-level triple must be a TMA mode of 16-byte atoms (32B, 64B, 128B: the modes GMMA,
    Triton's NVMMA and Mojo's TensorMapSwizzle also name; Blackwell's wider atoms: tma_mode_of) and a
    tile row must be exactly the swizzle width: the box inner extent may not exceed it, and rows of
    exactly that width are the GMMA atoms' shape. Narrower rows are not claimed (conservative: not
    verified against hardware here).
    """
    if sw is None or sw.tma_mode(tile.elem_bytes) not in ("32B", "64B", "128B"):
        return None
    width = 16 << sw.B
    return width if tile.row_length * tile.elem_bytes == width and tile.row_length == tile.cols else None


@lru_cache(maxsize=64)
def _mode_table(tile: Tile, name: str) -> tuple[np.ndarray, bool] | None:
    """The layout TMA's mode ``name`` gives a dense box of the tile's rows (tma_modes.py), and
    whether it is column panels (rows wider than the mode's span; else rows of exactly the span, the
    boxes TMA swizzles as documented), or None where the mode cannot store the tile."""
    from ..families.panels import ColumnPanels  # a later family: loaded only when emitting
    from ..tma_modes import MODES

    mode = MODES[name]
    row_bytes = tile.cols * tile.elem_bytes
    steps = mode.element_swizzles(tile.elem_bytes)
    if tile.row_length != tile.cols or row_bytes < mode.span or row_bytes % mode.span or steps is None:
        return None
    if row_bytes > mode.span:  # one box per panel of the span
        panels = ColumnPanels(mode.span, "" if mode.classic else name)
        if panels.invalid(tile) is not None:
            return None
        table = _layout_table(tile, panels)
    else:  # one box: the mode's map of the dense offsets
        table = np.arange(tile.rows * tile.cols, dtype=np.int64).reshape(tile.rows, tile.cols)
        for step in steps:
            table = Swizzle(*step).apply(table)
    table.setflags(write=False)
    return table, row_bytes > mode.span


@_per_layout
def tma_mode_of(tile: Tile, layout: Layout) -> tuple[str, bool] | None:
    """(mode, panels) when a TMA swizzle mode (any of tma_modes.MODES: the caller asks whether the
    target has it) stores exactly this layout: rows of exactly the mode's span (one box), or column
    panels of that span (one box per panel, ``panels`` True); confirmed on every element."""
    from ..tma_modes import MODES

    table = None
    for name in MODES:
        found = _mode_table(tile, name)
        if found is None:
            continue
        table = layout_table(tile, layout) if table is None else table
        if np.array_equal(table, found[0]):
            return name, found[1]
    return None


@_per_layout
def panels_of(tile: Tile, layout: Layout) -> ColumnPanels | None:
    """The column panels of TMA swizzle atoms (families/panels.py) the layout equals on every
    element of the tile, if any: then TMA loads it as one box per panel. Two or more panels: one
    panel is its atom, a single swizzle, which the targets say as such (as_swizzle)."""
    from ..families.panels import WIDTHS, ColumnPanels  # a later family: loaded only when emitting

    table = None
    stored, _ = as_stored(tile, layout)  # a padded layout at pitch = cols stores the dense tile
    for width in WIDTHS:
        panels = ColumnPanels(width)
        if panels.invalid(stored) is None and not panels.one_panel(stored):
            table = layout_table(tile, layout) if table is None else table
            if np.array_equal(table, layout_table(tile, panels)):
                return panels
    return None


@_per_layout
def row_bands(tile: Tile, layout: Layout) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """(shape, stride) of the row mode when the layout is a permutation of rows inside bands that a
    hierarchical layout says: logical row r = r0 + (T/k) r1 + T r2 (r0 < T/k, r1 < k) stored at
    row k r0 + r1 + T r2, i.e. the row mode (T/k, k, R/T) : (k P, P, T P) with columns (C) : (1),
    P the row length (a padded layout's pitch).
    Read off the layout's listed row permutation (``swizzles()``) and checked on every element."""
    steps = [x for x in layout.swizzles() if x.get("kind") == "row-permutation"]
    if len(steps) != 1 or len(layout.swizzles()) != 1:
        return None
    T, k, P = steps[0]["T"], steps[0]["k"], as_stored(tile, layout)[0].row_length  # a padded layout's pitch
    if T % k or tile.rows % T:
        return None
    shape, stride = (T // k, k, tile.rows // T), (k * P, P, T * P)
    r, c = grid(tile)
    r0, r1, r2 = r % shape[0], r // shape[0] % k, r // T
    phys = r0 * stride[0] + r1 * stride[1] + r2 * stride[2] + c
    return (shape, stride) if np.array_equal(phys, layout_table(tile, layout)) else None


@_per_layout
def triton_swizzled_params(tile: Tile, layout: Layout) -> tuple[int, int, int] | None:
    """(vec, perPhase, maxPhase) whose Triton bases equal the layout's, or None."""
    stored, inner = as_stored(tile, layout)  # Triton's encodings store the dense tile: a pitch = cols
    xors = row_col_xor(stored, inner.bases(stored))
    if xors is None:
        return None
    live = [k for k, x in enumerate(xors) if x]
    if not live:
        return (1, 1, 1)
    a, vec = live[0], xors[live[0]]
    params = (vec, 1 << a, 1 << len(live))
    return params if xors == triton_swizzled_xors(tile, *params) else None


def triton_swizzled_xors(tile: Tile, vec: int, per_phase: int, max_phase: int) -> list[int]:
    """The column part of each row basis: (vec * ((row / perPhase) % maxPhase)) % numCols."""
    return [(vec * (((1 << k) // per_phase) % max_phase)) % tile.cols for k in range(log2(tile.rows))]


@_per_layout
def linear_offset_bases(tile: Tile, layout: Layout) -> list[list[int]] | None:
    """Triton's offset -> (row, col) bases: the inverse of the layout, when it is GF(2)-linear: from
    its bases when it has them, else (a permutation of rows, say) from its table, checked whole."""
    stored, inner = as_stored(tile, layout)  # the dense tile: the given one, or a padded layout at pitch = cols
    if stored.row_length != tile.cols or not (is_pow2(tile.rows) and is_pow2(tile.cols)):
        return None
    bases = inner.bases(stored)
    if bases is not None:
        images = inverse_bases(bases)
        return None if images is None else [[p // tile.cols, p % tile.cols] for p in images]
    phys = layout_table(tile, layout).ravel()
    if not np.array_equal(np.sort(phys), np.arange(phys.size)):
        return None  # not a permutation of the dense storage (padding, gaps)
    inverse = np.empty_like(phys)
    inverse[phys] = np.arange(phys.size)
    bits = log2(phys.size)
    images = [int(inverse[1 << i]) for i in range(bits)]
    x = np.arange(phys.size)
    span = np.zeros_like(x)
    for i, image in enumerate(images):
        span ^= np.where((x >> i) & 1, image, 0)
    if not np.array_equal(span, inverse):
        return None
    return [[p // tile.cols, p % tile.cols] for p in images]


@_per_layout
def padding_of(tile: Tile, layout: Layout) -> tuple[int, int] | None:
    """(interval, padding) of Triton's padded encoding when the layout is row-major with padding:
    ``padding`` spare elements after every ``interval`` (= cols) elements, both powers of two."""
    pitch = row_pitch(tile, layout)
    if pitch is None or pitch == tile.cols or not all(map(is_pow2, (tile.rows, tile.cols, pitch - tile.cols))):
        return None
    return tile.cols, pitch - tile.cols


def why_not_swizzle(tile: Tile, layout: Layout) -> str:
    stored, inner = as_stored(tile, layout)  # a padded layout's rows are its pitch apart
    pitch = stored.row_length
    chain = swizzle_chain(tile, layout)
    if chain is not None:
        return (f"it is {len(chain[1])} swizzles applied in turn to {words(tile).offset(pitch)} "
                f"({' then '.join(sw.name for sw in chain[1])}), not a single Swizzle<B,M,S>")
    if inner.bases(stored) is None and not _listed_chains(inner):  # no XOR steps of the offset either
        return (f"with row length {pitch} the layout is not GF(2)-linear on the flat offset "
                f"{words(tile).offset(pitch)} (carries), so no Swizzle<B,M,S> of that offset equals it")
    return ("it is not a single Swizzle<B,M,S> (one contiguous run of B source bits, one shift), "
            "so CuTe's composition(Swizzle, Layout) cannot express it")
