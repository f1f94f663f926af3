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
bits); a deficit of k proves a 2^k-way conflict, and any kernel vector gives a colliding pair.

The XOR families only ever XOR higher offset bits into lower ones, so the unit bits of the
physical offset depend only on the unit bits of the logical one: the matrix below is exact.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass

from . import gf2
from .model import BankModel, Pattern, Tile, log2


@dataclass(frozen=True)
class BankMatrix:
    """Slot bits (rows) as a function of a pattern's varying bits above the unit (columns)."""

    labels: list[str]  # one per column: "r2" = row bit 2, "c3" = column bit 3
    columns: list[int]  # slot bits of the image of each varying bit
    row_labels: list[str]  # one per row: "b2" = bank bit 2 of the word address
    full_rank: int  # rank of the whole physical unit address on the varying bits
    varying: list[tuple[str, int]]  # the same bits as labels, as (axis, bit)
    unit_shift: int  # log2 of the unit in elements

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


def bank_matrix(tile: Tile, bank_model: BankModel, pattern: Pattern, bases: list[int] | None) -> BankMatrix | None:
    """The bank matrix of ``pattern`` under a layout with GF(2) ``bases`` on element-offset bits."""
    setup = None if bases is None else _setup(tile, bank_model, pattern)
    if setup is None:
        return None
    kept, indexes, u, slot_bits, word_shift = setup
    if max(indexes, default=-1) >= len(bases):
        return None
    images = [bases[index] >> u for index in indexes]
    slot_mask = (1 << slot_bits) - 1
    return BankMatrix(labels=[f"{axis}{bit}" for axis, bit in kept],
                      columns=[img & slot_mask for img in images],
                      row_labels=[f"b{j + word_shift}" for j in range(slot_bits)],
                      full_rank=gf2.rank(images), varying=kept, unit_shift=u)


_SETUPS: "weakref.WeakKeyDictionary[Pattern, dict]" = weakref.WeakKeyDictionary()


def _setup(tile: Tile, bank_model: BankModel, pattern: Pattern):
    """What the bank matrix needs besides the layout, once per (pattern, tile, banks): the search
    builds it for every candidate layout. None when the GF(2) view does not apply."""
    per_pattern = _SETUPS.setdefault(pattern, {})
    key = (tile, bank_model)
    if key not in per_pattern:
        per_pattern[key] = _compute_setup(tile, bank_model, pattern)
    return per_pattern[key]


def _compute_setup(tile: Tile, bank_model: BankModel, pattern: Pattern):
    varying = pattern.linear_bits(tile)
    if varying is None:
        return None
    e = tile.elem_bytes
    unit = max(pattern.vector_bytes, bank_model.bank_bytes)
    if unit > bank_model.wavefront_bytes or unit < e:
        return None
    u = log2(unit // e)  # element-offset bits below the unit
    pitch = log2(tile.row_length)
    kept, indexes = [], []
    for axis, bit in varying:
        index = bit if axis == "c" else bit + pitch
        if index < u:
            continue  # inside one unit: same vector or same word
        kept.append((axis, bit))
        indexes.append(index)
    slot_bits = log2(bank_model.wavefront_bytes // unit)
    word_shift = log2(unit // bank_model.bank_bytes)  # bank bits inside one unit
    return kept, indexes, u, slot_bits, word_shift
