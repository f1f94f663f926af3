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

Then within an instruction two elements differ in no removed bit, so they share a bank and a word
in the buffer exactly when they did in the tile: every phase costs what it cost, and the counts
(wavefronts, instructions) are the layout's own. The layout is a bijection, so each round fills its
buffer exactly once. Each round is its stores, a barrier, its loads, and a barrier before the next
round's stores: 2k - 1 barriers.
"""
from __future__ import annotations

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


def rounds(bases: Sequence[int], preimages: Sequence[int], spans: Sequence[Sequence[int]], top: int) -> Rounds:
    """The most rounds the layout with offset ``bases`` (preimages: the index offset of each offset
    bit) allows, ``spans`` the index directions each instruction moves along (every access's lanes,
    vector or matrix directions and warps), ``top`` the first offset bit above a wavefront's."""
    n = len(bases)
    images = [gf2.apply(list(bases), s) for span in spans for s in span]
    bits = [b for b in range(top, n) if not any(img >> b & 1 for img in images)]
    k = 1 << len(bits)
    return Rounds(k, (1 << n) >> len(bits), 2 * k - 1, tuple(bits), tuple(preimages[b] for b in bits))
