"""`two-level`: two CuTe swizzles applied one after the other, each with its own shift.

    q = first(p) = p ^ ((p >> S1) & mask1);   phys = second(q) = q ^ ((q >> S2) & mask2)

CuTe cannot write one Swizzle<B,M,S> with two shifts, so the answer is emitted as two XOR steps
(JSON ``swizzles`` lists both, in application order). Each step is a bijection of every aligned
block (see cute.py), hence so is their composition; on a storage that is not a power of two the
last, partial block is checked exactly.

Order inside the family: fewest XOR bits in total, then the first swizzle's order, then the
second's. Pairs whose composition equals a single CuTe swizzle, or an earlier pair, are skipped.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..model import Tile
from . import cute
from .linear import OnOffset, invalid_on_storage

FAMILY = "two-level"


@dataclass(frozen=True)
class TwoLevel(OnOffset):
    first: cute.Swizzle
    second: cute.Swizzle
    family = FAMILY

    @property
    def name(self) -> str:
        return f"{self.first.name} then {self.second.name}"

    @property
    def order(self) -> tuple:
        return (self.first.B + self.second.B, self.first.order, self.second.order)

    def apply(self, p):
        return self.second.apply(self.first.apply(p))

    def terms(self) -> list[tuple[int, int]]:
        return [(sw.M + i, sw.M + sw.S + i) for sw in (self.first, self.second) for i in range(sw.B)]

    def invalid(self, tile: Tile) -> str | None:
        return invalid_on_storage(self.apply, self.terms(), tile)

    def expression(self, tile: Tile) -> str:
        p = f"(r * {tile.row_length} + c)"
        q = f"({p} ^ (({p} >> {self.first.S}) & {self.first.mask}))"
        return f"{q} ^ (({q} >> {self.second.S}) & {self.second.mask})"

    def steps(self, tile: Tile) -> list[str]:
        """The same as two C statements."""
        return [f"q = (r * {tile.row_length} + c) ^ (((r * {tile.row_length} + c) >> {self.first.S}) & "
                f"{self.first.mask});",
                f"phys = q ^ ((q >> {self.second.S}) & {self.second.mask});"]

    def swizzles(self) -> list[dict]:
        return self.first.swizzles() + self.second.swizzles()


def LAYOUT(b1, m1, s1, b2, m2, s2) -> TwoLevel:
    """A member from its six parameters; numpy arrays give many members at once (search._stacked)."""
    return TwoLevel(cute.Swizzle(b1, m1, s1), cute.Swizzle(b2, m2, s2))


def params(member: TwoLevel) -> tuple:
    """The six parameters of a member, as LAYOUT takes them."""
    a, b = member.first, member.second
    return (a.B, a.M, a.S, b.B, b.M, b.S)


def candidates(tile: Tile, vector_elems: int) -> list[TwoLevel]:
    singles = cute.candidates(tile, vector_elems)
    top = max(1, (tile.size - 1).bit_length())
    one = np.array([[sw.B, sw.M, sw.S, sw.mask] for sw in singles], dtype=np.int64).reshape(-1, 4)
    i, j = np.nonzero(~np.eye(len(singles), dtype=bool))  # every ordered pair of different swizzles
    a, b = one[i], one[j]
    # family order: B1 + B2, then (B1, -M1, S1), then (B2, -M2, S2); lexsort's last key is primary
    rank = np.lexsort((b[:, 2], -b[:, 1], b[:, 0], a[:, 2], -a[:, 1], a[:, 0], a[:, 0] + b[:, 0]))
    i, j, a, b = i[rank], j[rank], a[rank], b[rank]
    # The map of each pair (and of each single swizzle) on the offset bits, all at once: a pair is
    # kept only if no single swizzle (nor the identity) and no earlier pair has the same map.
    bits = (1 << np.arange(top, dtype=np.int64))[None, :]
    q = bits ^ ((bits >> a[:, 2:3]) & a[:, 3:4])
    q = q ^ ((q >> b[:, 2:3]) & b[:, 3:4])
    maps = np.concatenate([bits, bits ^ ((bits >> one[:, 2:3]) & one[:, 3:4]), q])  # identity, singles, pairs
    by_map = np.lexsort((np.arange(len(maps)), *maps.T))  # equal maps together, the earliest first
    first = np.ones(len(maps), dtype=bool)
    first[1:] = np.any(maps[by_map[1:]] != maps[by_map[:-1]], axis=1)
    kept = np.sort(by_map[first]) - 1 - len(singles)  # back in family order; pairs count from 0
    kept = kept[kept >= 0].tolist()
    return [TwoLevel(singles[x], singles[y]) for x, y in zip(i[kept].tolist(), j[kept].tolist())]
