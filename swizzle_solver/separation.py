"""Conflict-freedom of an XOR-linear layout as a finite set of GF(2) conditions, one per pattern.

A layout L that XORs higher bits of the logical element offset p into lower ones is GF(2)-linear
on the bits of p, for any pitch: L(p ^ q) = L(p) ^ L(q). Take a pattern whose phases read at
most one wavefront (lower bound 1) with lanes of one size, and let a *unit* be max(lane, bank
word) bytes: the bytes of one unit are served together, and the units of a wavefront are told
apart by their *slot*, bits [u, u + log2(slots)) of the element offset (u = log2 of the unit in
elements). A phase is then served in one wavefront iff its distinct units have distinct slots,
i.e. iff for every two lanes with offsets p, q in different units

    slot(L(p ^ q)) != 0.

(Bits below u never flow upwards, as every XOR goes from a higher bit to a lower one, so the slot
of L(p) depends only on the unit of p.) The set of differences p ^ q over all placements is small
(for a block pattern it is the span of its varying bits), so one vectorised test decides every
placement at once, and the same conditions are what the SMT engine (smt.py) solves for.
Patterns outside this setting (lower bound above 1, mixed lane sizes) have no Separation and
are measured by the simulator.
"""
from __future__ import annotations

import weakref

import numpy as np

from .hardware import Hardware, slot_offset_bits
from .model import Pattern, Tile
from .value import Value


class Separation(Value):
    pattern: Pattern
    unit_shift: int  # u: log2 of the unit in elements
    slot_mask: int  # slots - 1
    diffs: np.ndarray  # distinct XORs of the offsets of two lanes of one phase, in different units

    @property
    def slot_bits(self) -> list[int]:
        """The element-offset bits that choose the slot."""
        return slot_offset_bits(self.unit_shift, self.slot_mask)

    def holds(self, apply) -> bool:
        """``apply`` (an XOR-linear map on offsets) sends no difference to slot 0."""
        return not np.any(((apply(self.diffs) >> self.unit_shift) & self.slot_mask) == 0)


def slot_bits(tile: Tile, hardware: Hardware, pattern: Pattern) -> list[int]:
    """The offset bits that choose the slot of the pattern's widest lanes (where XORs can help)."""
    geometry = hardware.serving(pattern.banks).geometry(tile.elem_bytes, int(pattern.lane_bytes.max()))
    return geometry.slot_offset_bits if geometry.fits else []


def units(tile: Tile, hardware: Hardware, pattern: Pattern) -> tuple[int, int] | None:
    """(u, slot mask) of a pattern whose lanes have one size and whose units fit a wavefront: the
    placement's cost is then the most distinct units in one slot (under a layout keeping units
    whole). None otherwise."""
    width = int(pattern.lane_bytes[0, 0])
    geometry = hardware.serving(pattern.banks).geometry(tile.elem_bytes, width)
    if not geometry.fits or (pattern.lane_bytes != width).any():
        return None
    return geometry.unit_shift, geometry.slot_mask


DISTINCT_FIRST = 1 << 16  # lane differences (placements x lanes^2) above which distinct placements are found first
_WEIGHTS = (np.arange(1, 1025, dtype=np.int64) * np.int64(-0x61C8864680B583EB)) | 1  # odd: a hash of a row of offsets


def distinct_rows(rows: np.ndarray) -> np.ndarray:
    """The distinct rows of an int64 matrix (each at least once; a row may repeat), in no
    particular order. Rows are grouped by a hash (a weighted sum, wrapping); a row that differs
    from its group's first is kept too, so a collision costs work, never a row."""
    h = (rows * _WEIGHTS[:rows.shape[1]]).sum(axis=1)
    order = np.argsort(h, kind="stable")
    first = np.ones(len(h), dtype=bool)
    first[1:] = h[order[1:]] != h[order[:-1]]
    heads = order[first]
    same = np.all(rows[order] == rows[heads[np.cumsum(first) - 1]], axis=1)
    return np.concatenate([rows[heads], rows[order[~same]]])


# The last separation of each pattern, with the tile and bank model it was built for: the base
# search's screen and the later families' oracle ask for the same ones on one solve. Held without
# its pattern: a value that refers to its key keeps the key alive for good (a batch of thousands
# of cases kept every case's patterns).
_BUILT: weakref.WeakKeyDictionary[Pattern, tuple[Tile, Hardware, tuple | None]] = weakref.WeakKeyDictionary()


def separation(tile: Tile, hardware: Hardware, pattern: Pattern) -> Separation | None:
    built = _BUILT.get(pattern)
    if built is None or built[0] != tile or built[1] is not hardware:
        found = _separation(tile, hardware, pattern)
        built = _BUILT[pattern] = (tile, hardware, None if found is None else
                                   (found.unit_shift, found.slot_mask, found.diffs))
    return None if built[2] is None else Separation(pattern, *built[2])


def _separation(tile: Tile, hardware: Hardware, pattern: Pattern) -> Separation | None:
    unit = units(tile, hardware, pattern)
    if pattern.lower_bound != 1 or unit is None:
        return None
    u, slot_mask = unit
    rows, cols = pattern.lane_row, pattern.lane_col  # (placements, lanes)
    if pattern.linear_bits(tile) is not None:
        # every placement is a translate of the first by bits it does not vary: the same XORs
        rows, cols = rows[:1], cols[:1]
    p = (rows * tile.row_length + cols) >> u << u
    if p.size * p.shape[1] > DISTINCT_FIRST and p.shape[1] <= _WEIGHTS.size:
        # p_i ^ p_j = (p_i ^ p_0) ^ (p_j ^ p_0): placements whose lanes have the same offsets XOR
        # their first lane's have the same differences, and far fewer are distinct (a 512 x 508 f16
        # tile: 8096 placements of a column, 1066 distinct; 32384 of 8x1, 692)
        p = distinct_rows(p ^ p[:, :1])
    d = (p[:, :, None] ^ p[:, None, :]).ravel()
    seen = np.zeros(int(d.max()) + 1, dtype=bool)  # offsets are < 2^20: a bitmap beats sorting millions
    seen[d] = True
    seen[0] = False
    return Separation(pattern, u, slot_mask, np.flatnonzero(seen))


def separations(tile: Tile, hardware: Hardware, patterns) -> list[Separation | None]:
    return [separation(tile, hardware, p) for p in patterns]
