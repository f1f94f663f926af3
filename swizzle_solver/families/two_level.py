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

import re
from dataclasses import dataclass

import numpy as np

from ..layout import LATER, Family, columns
from ..model import Tile
from . import cute
from .linear import OnOffset, invalid_on_storage


@dataclass(frozen=True)
class TwoLevel(OnOffset):
    first: cute.Swizzle
    second: cute.Swizzle
    family = "two-level"

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
        return self.second.c_xor(f"({self.first.c_xor(p)})")

    def steps(self, tile: Tile) -> list[str]:
        """The same as two C statements."""
        return [f"q = {self.first.c_xor(f'(r * {tile.row_length} + c)')};",
                f"phys = {self.second.c_xor('q')};"]

    def swizzles(self) -> list[dict]:
        return self.first.swizzles() + self.second.swizzles()

    def json_extras(self, tile: Tile) -> dict:
        return {"steps": self.steps(tile), "triton_bases": self.triton_bases(tile)}


def make(b1, m1, s1, b2, m2, s2) -> TwoLevel:
    """A member from its six parameters."""
    return TwoLevel(cute.Swizzle(b1, m1, s1), cute.Swizzle(b2, m2, s2))


def apply_many(params, p: np.ndarray) -> np.ndarray:
    """Every member of ``params`` (six parameters each, as ``make`` takes them) on p: (n, *p.shape)."""
    b1, m1, s1, b2, m2, s2 = columns(params, np.ndim(p))
    return cute.swizzle(cute.swizzle(p, b1, m1, s1), b2, m2, s2)


def phys_many(params, tile: Tile, r: np.ndarray, c: np.ndarray) -> np.ndarray:
    return apply_many(params, r * tile.row_length + c)



def params(member: TwoLevel) -> tuple:
    """The six parameters of a member, as ``make`` takes them."""
    a, b = member.first, member.second
    return (a.B, a.M, a.S, b.B, b.M, b.S)


def candidates(tile: Tile, vector_elems: int) -> list[TwoLevel]:
    singles = cute.candidates(tile, vector_elems)
    top = tile.offset_bits
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


_THEN = re.compile(r"\s+then\s+", re.IGNORECASE)


def parse(text: str) -> TwoLevel | None:
    """Swizzle<B,M,S> then Swizzle<B,M,S>."""
    parts = _THEN.split(text)
    if len(parts) != 2 or not all(cute.is_named(part) for part in parts):
        return None
    first, second = (cute.parse(part) for part in parts)
    assert first is not None and second is not None  # both have a swizzle's shape
    return TwoLevel(first, second)


def _code_rows(answer: dict, problem: dict) -> list[tuple[str, str]]:
    first, second = answer["name"].split(" then ")
    return [("CuTe", f"{first}, then {second}  (two swizzles on element offsets, in this order)"),
            *[("C steps" if i == 0 else "", step) for i, step in enumerate(answer["steps"])]]


FAMILY_RECORD = Family(
    name=TwoLevel.family, rank=3, stage=LATER, layout=TwoLevel, parse=parse,
    printed=rf"{cute.PRINTED}then{cute.PRINTED}", syntax="'Swizzle<B,M,S> then Swizzle<B,M,S>'",
    candidates=candidates, make=make, phys_many=phys_many, apply_many=apply_many, engine="enum",
    code_rows=_code_rows)
