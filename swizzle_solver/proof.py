"""The GF(2) view of one access pattern under one linear layout: the bank matrix and its rank.

Setting (power-of-two pitch, sizes and strides, a layout that is GF(2)-linear on offset bits):
every placement of a pattern is a coset ``x0 + span(varying bits)`` of element offsets, and the
layout maps it to ``A x0 + A span``. Let a lane's *unit* be max(vector, bank word) bytes: all
bytes in one unit are served together (a whole vector, or lanes sharing a word: broadcast). The
*slot* of a unit is its position in the wavefront (unit index mod wavefront/unit). Then

    wavefronts of every placement = 2^(rank(A on varying bits) - rank(slot bits of A on them))

because the units of a coset form an affine space and the slot projection has fibres of equal
size on it. For a bijective layout the first rank is the number of varying bits n, so the
pattern is conflict-free iff the bank matrix (slot bits x varying bits) has rank min(n, slot
bits); a deficit of k proves a 2^k-way conflict. A witness comes from the kernel: a combination
x of varying bits that the bank matrix sends to 0 but the full unit address does not moves a lane
to another unit in the same slot, so the lanes at offsets p and p ^ x (``BankMatrix.collision``)
read different words of one bank, in every placement.

The XOR families only ever XOR higher offset bits into lower ones, so the unit bits of the
physical offset depend only on the unit bits of the logical one: the matrix below is exact.
"""
from __future__ import annotations

import weakref

from . import gf2
from .hardware import Hardware
from .model import Pattern, Tile, log2
from .value import Value


class BankMatrix(Value):
    """Slot bits (rows) as a function of a pattern's varying bits above the unit (columns)."""

    labels: list[str]  # one per column: "r2" = row bit 2, "c3" = column bit 3, "r2+r4" their XOR
    columns: list[int]  # slot bits of the image of each varying bit
    row_labels: list[str]  # one per row: "b2" = bank bit 2 of the word address
    full_rank: int  # rank of the whole physical unit address on the varying bits
    offset_bits: list[int]  # the element-offset mask of each column (one bit, or an XOR of bits)
    images: list[int]  # the physical unit address of each column's bit (the layout's image >> u)

    @property
    def rank(self) -> int:
        return gf2.rank(self.columns)

    @property
    def wavefronts(self) -> int:
        return 1 << (self.full_rank - self.rank)

    def rows(self) -> list[int]:
        return gf2.rows_of(self.columns, len(self.row_labels))

    def rref(self) -> tuple[list[int], list[int]]:
        return gf2.rref(self.rows(), len(self.columns))

    def collision(self) -> int | None:
        """A logical offset difference d (XOR of varying bits) that moves a lane to another unit in
        the same slot: from the kernel of the bank matrix, outside the kernel of the whole unit
        address. Any lane at offset p and the lane at p ^ d of the same placement then read
        different words of one bank. None when there is no conflict (no rank deficit)."""
        for combo in gf2.kernel(self.columns):
            if gf2.apply(self.images, combo):  # a different unit, in the same slot
                return gf2.apply(self.offset_bits, combo)
        return None


def bank_matrix(tile: Tile, hardware: Hardware, pattern: Pattern, bases: list[int] | None) -> BankMatrix | None:
    """The bank matrix of ``pattern`` under a layout with GF(2) ``bases`` on element-offset bits."""
    if bases is None:
        return None
    setup = _setup(tile, hardware, pattern)
    if setup is None:
        return None
    kept, indexes, (u, slot_mask, row_labels) = setup
    if max(indexes, default=0).bit_length() > len(bases):
        return None
    images = [gf2.apply(bases, mask) >> u for mask in indexes]
    return BankMatrix(labels=kept, columns=[img & slot_mask for img in images],
                      row_labels=row_labels, full_rank=gf2.rank(images), offset_bits=indexes, images=images)


_SETUPS: weakref.WeakKeyDictionary[Pattern, dict] = weakref.WeakKeyDictionary()


def _setup(tile: Tile, hardware: Hardware, pattern: Pattern):
    """What the bank matrix needs besides the layout, once per (pattern, tile, banks): the search
    builds it for every candidate layout. None when the GF(2) view does not apply."""
    per_pattern = _SETUPS.setdefault(pattern, {})
    hardware = hardware.serving(pattern.banks)  # the instruction's banks (gfx950 writes: 32)
    key = (tile, hardware)
    if key not in per_pattern:
        per_pattern[key] = _compute_setup(tile, hardware, pattern)
    return per_pattern[key]


def _compute_setup(tile: Tile, hardware: Hardware, pattern: Pattern):
    varying = pattern.linear_bits(tile)
    if varying is None:
        return None
    geometry = hardware.geometry(tile.elem_bytes, pattern.vector_bytes)
    if not geometry.fits:
        return None
    u = geometry.unit_shift  # element-offset bits below the unit
    pitch = log2(tile.row_length)
    kept, indexes = [], []  # each varying direction's label and element-offset mask
    for entry in varying:
        mask = _mask(entry, pitch)
        if mask < 1 << u:
            continue  # inside one unit: same vector or same word
        if mask & ((1 << u) - 1):
            return None  # a direction mixing in-unit and unit bits: left to the simulator
        kept.append(_label(entry, pitch))
        indexes.append(mask)
    # the slot is word-address bits above the words inside one unit: bank bits b{word_shift}...
    row_labels = [f"b{j + geometry.word_shift}" for j in range(geometry.slot_bits)]
    return kept, indexes, (u, geometry.slot_mask, row_labels)


def _mask(entry: tuple, pitch: int) -> int:
    """A varying direction as an element-offset mask: ("c", k), ("r", k) or ("x", row mask, col mask)."""
    if entry[0] == "x":
        return entry[1] << pitch | entry[2]
    return 1 << (entry[1] if entry[0] == "c" else entry[1] + pitch)


def _label(entry: tuple, pitch: int) -> str:
    mask = _mask(entry, pitch)
    bits = [i for i in range(mask.bit_length()) if mask >> i & 1]
    return "+".join(f"c{i}" if i < pitch else f"r{i - pitch}" for i in bits)
