"""The exhaustive simulator: the ground truth for every wavefront count the tool prints.

It takes a layout as a table ``phys[r, c]`` (the physical element offset of element (r, c)) and
walks every byte of every lane of every placement, with no assumption about the layout: not
linearity, not a power-of-two pitch, not even that vectors stay whole (that is checked apart,
by ``admissible``). Cost of one placement (DESIGN.md section 1): group the distinct words it touches
by bank; the most distinct words in one bank is the number of wavefronts.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from .model import BankModel, Pattern, Tile


def placement_costs(words: np.ndarray, banks: int) -> np.ndarray:
    """Wavefronts of each row of ``words`` (shape (placements, k)): max distinct words per bank."""
    words = np.sort(words, axis=1)
    first = np.ones(words.shape, dtype=bool)  # the first occurrence of each distinct word
    first[:, 1:] = words[:, 1:] != words[:, :-1]
    placement = np.broadcast_to(np.arange(words.shape[0])[:, None], words.shape)
    key = placement[first] * banks + words[first] % banks
    counts = np.bincount(key, minlength=words.shape[0] * banks).reshape(words.shape[0], banks)
    return counts.max(axis=1)


PhysFn = Callable[[np.ndarray, np.ndarray], np.ndarray]  # (r, c) -> physical element offsets


def table(phys: np.ndarray) -> PhysFn:
    """A layout given as a table phys[r, c], as a function of (r, c)."""
    return lambda r, c: phys[r, c]


def lane_words(tile: Tile, bank_model: BankModel, pattern: Pattern, phys: PhysFn,
               placements: np.ndarray | None = None) -> np.ndarray:
    """Every word each placement touches, shape (placements, n): all bytes of all lanes.

    ``placements`` selects some placements by index (the search screens a sample); default all.
    """
    e, bb = tile.elem_bytes, bank_model.bank_bytes
    rows, cols, nbytes = pattern.lane_row, pattern.lane_col, pattern.lane_bytes
    if placements is not None:
        rows, cols, nbytes = rows[placements], cols[placements], nbytes[placements]
    elems = nbytes // e  # elements per lane
    k = np.arange(int(elems.max()))
    # element k of each lane (a narrower lane repeats its last element: same words)
    cols = cols[..., None] + np.minimum(k, elems[..., None] - 1)
    offsets = phys(np.broadcast_to(rows[..., None], cols.shape), cols)  # physical element offsets
    t = np.arange(max(1, e // bb))  # words spanned by one element
    words = (offsets[..., None] * e + t * bb) // bb
    return words.reshape(words.shape[0], -1)


@dataclass(frozen=True, eq=False)
class AccessResult:
    """One pattern under one layout, as the simulator measured it."""

    pattern: Pattern
    costs: np.ndarray  # wavefronts of every placement

    @property
    def worst(self) -> int:
        return int(self.costs.max())

    @property
    def total(self) -> int:
        return int(self.costs.sum())

    @property
    def worst_placement(self) -> int:
        return int(self.costs.argmax())

    @property
    def excess(self) -> int:
        return self.worst - self.pattern.lower_bound


def simulate(tile: Tile, bank_model: BankModel, patterns, phys: np.ndarray) -> list[AccessResult]:
    """Every placement of every pattern under the layout ``phys[r, c]``."""
    fn = table(phys)
    return [AccessResult(p, placement_costs(lane_words(tile, bank_model, p, fn), bank_model.banks))
            for p in patterns]


def is_injective(tile: Tile, phys: np.ndarray, size: int | None = None) -> bool:
    """Every element of the tile lands on its own element of the buffer [0, size) (default
    rows * row_length; padding needs more)."""
    size = tile.size if size is None else size
    flat = phys.ravel()
    if flat.min() < 0 or flat.max() >= size:
        return False
    return len(np.unique(flat)) == flat.size


def admissible(tile: Tile, pattern: Pattern, phys: np.ndarray) -> bool:
    """Every lane's elements stay contiguous and aligned to the lane's size after the layout."""
    elems = pattern.lane_bytes // tile.elem_bytes
    first = phys[pattern.lane_row, pattern.lane_col]
    if np.any(first % elems):
        return False
    for k in range(1, int(elems.max())):
        inside = elems > k
        cols = np.where(inside, pattern.lane_col + k, pattern.lane_col)
        if np.any(phys[pattern.lane_row, cols][inside] != first[inside] + k):
            return False
    return True


def bank_list(tile: Tile, bank_model: BankModel, pattern: Pattern, phys: np.ndarray, placement: int):
    """For one placement: each distinct lane (row, col, bytes) with the banks of its words."""
    e, bb = tile.elem_bytes, bank_model.bank_bytes
    out = []
    for r, c, nbytes in pattern.phase_lanes(placement):
        words = sorted({(int(phys[r, c + k]) * e + t * bb) // bb
                        for k in range(nbytes // e) for t in range(max(1, e // bb))})
        out.append(((r, c, nbytes), words, [w % bank_model.banks for w in words]))
    return out
