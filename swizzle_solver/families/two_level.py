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
from collections.abc import Sequence

import numpy as np

from ..layout import LATER, Family, columns, partial_block_invalid
from ..model import Tile
from ..value import Value
from . import cute
from .linear import OnOffset


class TwoLevel(Value, OnOffset):
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
        # as linear.invalid_on_storage, the image of one offset per 2^(lowest target bit) checked
        targets = [t for t, _ in self.terms()]
        return partial_block_invalid(self.apply, 1 << (max(targets) + 1), tile, low=min(targets))

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



class Pairs(Value, eq=False):
    """The family's members in family order, as indices into the single swizzles: a member is
    ``singles[first[k]]`` then ``singles[second[k]]``. Tens of thousands of members are screened
    as arrays (extended.failures_many); a ``TwoLevel`` is built only for the few a search keeps."""

    singles: list[cute.Swizzle]
    first: np.ndarray  # (members,) index of the first swizzle
    second: np.ndarray  # (members,) index of the second

    def __len__(self) -> int:
        return len(self.first)

    def __getitem__(self, k: int) -> TwoLevel:
        return TwoLevel(self.singles[int(self.first[k])], self.singles[int(self.second[k])])

    @classmethod
    def of(cls, members: Sequence[TwoLevel]) -> Pairs:
        """The members given as objects, as indices (into their own swizzles)."""
        singles = sorted({sw for m in members for sw in (m.first, m.second)}, key=lambda sw: sw.order)
        index = {sw: k for k, sw in enumerate(singles)}
        first = np.array([index[m.first] for m in members], dtype=np.int64)
        second = np.array([index[m.second] for m in members], dtype=np.int64)
        return cls(singles, first, second)

    def prefix(self, n: int) -> Pairs:
        """The first n members."""
        return Pairs(self.singles, self.first[:n], self.second[:n])

    def steps(self) -> np.ndarray:
        """(S1, mask1, S2, mask2) of each member, its two XOR steps p ^ ((p >> S) & mask): shape (n, 4)."""
        one = np.array([[sw.S, sw.mask] for sw in self.singles], dtype=np.int64).reshape(-1, 2)
        return np.concatenate([one[self.first], one[self.second]], axis=1)

    def grid(self, which: np.ndarray) -> np.ndarray:
        """The six parameters (as ``make`` takes them) of the members ``which``: shape (n, 6)."""
        one = np.array([[sw.B, sw.M, sw.S] for sw in self.singles], dtype=np.int64).reshape(-1, 3)
        return np.concatenate([one[self.first[which]], one[self.second[which]]], axis=1)


def _maps(top: int, steps: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """The maps on the offset bits of XOR steps p ^ ((p >> shift) & mask), applied in the order of
    ``steps`` (each a pair of arrays, one entry per map), as int64 words: equal maps, equal words.
    Shape (maps, words).

    Bit b goes to b and bits below it only (every step moves a bit down), so a map is its strictly
    lower part, bits below 2^b for bit b: packed, the top bits of a 19-bit offset fill 3 words.
    Computed in uint32, a bit at a time: numpy shifts 32-bit lanes several times faster than 64-bit
    ones, and no (bits, maps) array is built."""
    n = len(steps[0][0])
    steps = [(shift.astype(np.uint32), mask.astype(np.uint32)) for shift, mask in steps]
    words, word, used = [], np.zeros(n, dtype=np.int64), 0
    for bit in range(top):
        if used + bit > 63:
            words.append(word)
            word, used = np.zeros(n, dtype=np.int64), 0
        one = np.uint32(1 << bit)
        image = np.full(n, one, dtype=np.uint32)
        for shift, mask in steps:
            image ^= (image >> shift) & mask
        word |= (image ^ one).astype(np.int64) << used
        used += bit
    words.append(word)
    return np.stack(words, axis=1)


def pairs(tile: Tile, vector_elems: int) -> Pairs:
    """Every ordered pair of different admissible CuTe swizzles whose map on the offset bits no
    single swizzle (nor the identity) and no earlier pair has, in family order."""
    singles = cute.candidates(tile, vector_elems)
    top, n = tile.offset_bits, len(singles)
    b, s, mask = (np.array([getattr(sw, k) for sw in singles], dtype=np.int64) for k in ("B", "S", "mask"))
    # family order: B1 + B2, then the first's order, then the second's; cute.grid lists the singles
    # in their order, so that is (B1 + B2, i, j) on their indices
    i, j = np.nonzero(~np.eye(n, dtype=bool))  # every ordered pair of different swizzles
    rank = np.argsort((b[i] + b[j]) * (n * n) + i * n + j, kind="stable")
    i, j = i[rank], j[rank]
    # the identity, the singles, then the pairs: a pair is kept only if no map before it is its own
    none = np.zeros(1, dtype=np.int64)
    maps = _maps(top, [(np.concatenate([none, s, s[i]]), np.concatenate([none, mask, mask[i]])),
                       (np.concatenate([none, none.repeat(n), s[j]]), np.concatenate([none, none.repeat(n), mask[j]]))])
    words = np.ascontiguousarray(maps.T)
    by_map = np.lexsort(tuple(words))  # equal maps together, the earliest first (lexsort is stable)
    first = np.ones(len(maps), dtype=bool)
    changed = np.zeros(len(maps) - 1, dtype=bool)
    for word in words:  # a word at a time, each gathered once: the map differs from the one before it
        in_order = word[by_map]
        changed |= in_order[1:] != in_order[:-1]
    first[1:] = changed
    kept = np.sort(by_map[first]) - 1 - n  # back in family order; pairs count from 0
    kept = kept[kept >= 0]
    return Pairs(singles, i[kept], j[kept])


def candidates(tile: Tile, vector_elems: int) -> list[TwoLevel]:
    found = pairs(tile, vector_elems)
    return [TwoLevel(found.singles[x], found.singles[y]) for x, y in zip(found.first.tolist(), found.second.tolist())]


# From the first blank of a run only, and the run whole (possessive): "\s+then" tried from every
# blank of a long run of blanks re-read the rest of it each time (quadratic: 20,000 blanks took 7 s).
_THEN = re.compile(r"(?<!\s)\s++then\s++", re.IGNORECASE)


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
    code_rows=_code_rows, step_schema=(cute.STEP_SCHEMA,))  # two cute steps
