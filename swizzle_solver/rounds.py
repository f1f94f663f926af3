"""A conversion through a buffer smaller than the tile, in rounds (issue 35 item 3; Triton's
``repShape``): the tile's elements split by some offset bits of the layout into k = 2^r rounds, each
round stored into and loaded from one buffer of size/k elements.

An offset bit b can number the rounds when
- it lies above every bit that chooses a bank or a byte in a wavefront (b >= top, top = log2 of a
  wavefront's elements): removing it from every offset (the bits above it move down one) changes
  no element's bank and no word's position in it; and
- every instruction of every access, in every warp, keeps it fixed: no direction of one instruction
  (its lanes, its vector or ldmatrix rows and matrices) and no warp direction moves it, so each
  instruction lies in one round and every warp works in every round.

An ldmatrix/stmatrix .x2/.x4 groups 2 or 4 matrices (each one phase of its 8 rows) by register
directions the kernel chooses (vectors.py: which 32-bit registers are the matrices is its choice): the
counts do not depend on that choice, so those directions are not fixed. The bits must then leave
such an access k independent matrix directions among its register directions beyond one 32-bit
register (``free``: those directions and k) whose images keep every chosen bit clear; the matrices
are taken there, the register groups of the rest number the rounds.

Then within an instruction two elements differ in no removed bit, so they share a bank and a word
in the buffer exactly when they did in the tile: every phase costs what it cost, and the counts
(wavefronts, instructions) are the layout's own. The layout is a bijection, so each round fills its
buffer exactly once. Each round is its stores, a barrier, its loads, and a barrier before the next
round's stores: 2k - 1 barriers.
"""
from __future__ import annotations

import itertools
from collections.abc import Sequence

from . import gf2
from .value import Value


class Rounds(Value):
    rounds: int  # k
    buffer_elements: int  # size / k
    barriers: int  # 2k - 1
    bits: tuple[int, ...]  # the offset bits that number the rounds
    directions: tuple[int, ...]  # their preimages: the index directions that step from round to round

    def json(self, elem_bytes: int) -> dict:
        return {"rounds": self.rounds, "buffer_bytes": self.buffer_elements * elem_bytes, "barriers": self.barriers,
                "offset_bits": list(self.bits)}


def rounds(bases: Sequence[int], preimages: Sequence[int], spans: Sequence[Sequence[int]], top: int,
           free: Sequence[tuple[Sequence[int], int]] = ()) -> Rounds:
    """The most rounds the layout with offset ``bases`` (preimages: the index offset of each offset
    bit) allows, ``spans`` the index directions each instruction moves along (every access's lanes,
    vector or matrix rows and warps), ``top`` the first offset bit above a wavefront's, ``free`` per
    ldmatrix/stmatrix access (its register directions that may group its matrices, how many it needs)."""
    n = len(bases)
    images = [gf2.apply(list(bases), s) for span in spans for s in span]
    candidates = [b for b in range(top, n) if not any(img >> b & 1 for img in images)]
    bits = _most_bits(list(bases), candidates, free)
    k = 1 << len(bits)
    return Rounds(k, (1 << n) >> len(bits), 2 * k - 1, tuple(bits), tuple(preimages[b] for b in bits))


def _most_bits(bases: list[int], candidates: list[int], free: Sequence[tuple[Sequence[int], int]]) -> list[int]:
    """The largest set of ``candidates`` (the first in combination order among equals) that leaves
    every ``free`` access its k matrix directions with every chosen bit clear."""
    for size in range(len(candidates), 0, -1):
        for bits in itertools.combinations(candidates, size):
            if all(_clear_dimension(bases, dirs, bits) >= k for dirs, k in free):
                return list(bits)
    return []


def _clear_dimension(bases: list[int], dirs: Sequence[int], bits: Sequence[int]) -> int:
    """The dimension of the directions in span(dirs) whose images have every bit of ``bits`` clear:
    the kernel of the projection of their images onto those bits."""
    projected = [sum((gf2.apply(bases, d) >> b & 1) << i for i, b in enumerate(bits)) for d in dirs]
    return gf2.rank(list(dirs)) - gf2.rank(projected)
