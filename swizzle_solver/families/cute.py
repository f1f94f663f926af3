"""`cute`: CuTe's Swizzle<B,M,S> on the logical element offset p = r * row_length + c.

    Swizzle<B,M,S>, S >= 0                        Swizzle<B,M,S>, S < 0
    0bxxxxxxxYYYxxxxxxxZZZxxxx                    0bxxxxxxxZZZxxxxxxxYYYxxxx
               ^--^ MBase  ^--^ MBase                        ^--^ MBase
          ^-^ BBits  ^-^ BBits                          ^-^ BBits  ^-^ BBits
              ^------^ |SShift|                             ^------^ |SShift|

    yyy_msk = ((1 << B) - 1) << (M + max(0, S))
    zzz_msk = ((1 << B) - 1) << (M - min(0, S))
    Swizzle(p) = p ^ shiftr(p & yyy_msk, S)       (shiftr by a negative amount shifts left)

(cute/swizzle.hpp; pycute's swizzle.py). The B bits YYY are XORed into the B bits ZZZ; the M low
bits are never touched, so runs of 2^M elements stay whole and aligned. CuTe static_asserts
|S| >= B (YYY and ZZZ must not overlap, which makes the map an involution); ``Swizzle`` refuses
anything else, as it refuses B < 0 and M < 0. The search enumerates S >= B only (a negative S moves
low bits up, which no conflict needs); ``--check`` takes any CuTe swizzle.
"""
from __future__ import annotations

import re

import numpy as np

from ..layout import (
    EVERY_SOLVE,
    MAX_BIT,
    Family,
    LayoutBase,
    columns,
    const,
    in_range,
    integer,
    partial_block_invalid,
    step_schema,
)
from ..model import Tile, log2
from ..tma_modes import BY_SWIZZLE
from ..value import Value
from .identity import nbits

# TMA / GMMA swizzle modes as byte-level CuTe swizzles (DESIGN.md section 7; tma_modes.py): Hopper's
# 32B, 64B, 128B and Blackwell's 128B_ATOM_32B, 128B_ATOM_64B (the modes that are one swizzle).
TMA_MODES = BY_SWIZZLE


def swizzle(p, B, M, S):
    """CuTe's formula above, on ints or numpy arrays (B, M, S may be arrays that broadcast with p)."""
    low = (1 << B) - 1
    if isinstance(S, np.ndarray):
        if S.min(initial=0) >= 0:  # the search's members: the S >= 0 form, as fast as it can be
            if isinstance(p, np.ndarray) and p.dtype == np.uint32:  # numpy shifts 32-bit lanes several times faster
                return p ^ ((p >> S.astype(np.uint32)) & (low << M).astype(np.uint32))
            return p ^ ((p >> S) & (low << M))
        yyy = low << (M + np.maximum(S, 0))
        moved = p & yyy
        return p ^ np.where(S >= 0, moved >> np.maximum(S, 0), moved << np.maximum(-S, 0))
    if S >= 0:  # shift first: the YYY mask itself may not fit numpy's int64 when the bits above p are 0
        return p ^ ((p >> S) & (low << M))
    return p ^ ((p & (low << M)) << -S)


class Swizzle(Value, LayoutBase):
    B: int
    M: int
    S: int
    family = "cute"

    def __post_init__(self):
        if self.B < 0 or self.M < 0:
            raise ValueError(f"CuTe needs B >= 0 and M >= 0 in Swizzle<{self.B},{self.M},{self.S}>")
        if abs(self.S) < self.B:
            raise ValueError(f"CuTe rejects |S| < B: use S >= {self.B} or S <= -{self.B}")

    @property
    def name(self) -> str:
        return f"Swizzle<{self.B},{self.M},{self.S}>"

    @property
    def order(self) -> tuple:
        return (self.B, -self.M, self.S)

    @property
    def yyy_mask(self) -> int:
        """The source bits."""
        return ((1 << self.B) - 1) << (self.M + max(0, self.S))

    @property
    def mask(self) -> int:
        """The ZZZ bits, where YYY lands."""
        return ((1 << self.B) - 1) << (self.M - min(0, self.S))

    @classmethod
    def of_step(cls, shift: int, mask: int) -> Swizzle | None:
        """The swizzle p ^ ((p >> shift) & mask), when that is one (mask a run of B bits, shift >=
        B): the one test of "is this XOR step a CuTe swizzle"."""
        if mask <= 0:
            return None
        low, b = (mask & -mask).bit_length() - 1, bin(mask).count("1")
        if mask != ((1 << b) - 1) << low or abs(shift) < b:
            return None
        return cls(b, low + min(0, shift), shift)

    def apply(self, p):
        """The swizzle itself, on ints or numpy arrays."""
        return swizzle(p, self.B, self.M, self.S)

    def c_xor(self, p: str) -> str:
        """The swizzle of the C expression ``p`` (a variable or a parenthesised expression)."""
        if self.S >= 0:
            return f"{p} ^ (({p} >> {self.S}) & {self.mask})"
        return f"{p} ^ (({p} & {self.yyy_mask}) << {-self.S})"

    def phys(self, tile: Tile, r, c):
        return self.apply(r * tile.row_length + c)

    def invalid(self, tile: Tile) -> str | None:
        # Only the ZZZ bits change, so p stays in its aligned block of 2^(top ZZZ bit + 1), and the
        # map is an involution there ("into" is "onto"). With S >= 0 no bit below M is read or changed.
        return partial_block_invalid(self.apply, self.mask.bit_length() and 1 << self.mask.bit_length(), tile,
                                     low=self.M if self.S >= 0 else 0)

    def bases(self, tile: Tile) -> list[int] | None:
        if not tile.pitch_is_pow2:
            return None
        return [self.apply(1 << i) for i in range(nbits(tile))]

    def cute_swizzle(self) -> Swizzle:
        return self

    def byte_level(self, elem_bytes: int) -> Swizzle:
        """The same swizzle on byte offsets (the TMA / GMMA form)."""
        return Swizzle(self.B, self.M + log2(elem_bytes), self.S)

    def tma_mode(self, elem_bytes: int) -> str | None:
        b = self.byte_level(elem_bytes)
        return TMA_MODES.get((b.B, b.M, b.S))

    def expression(self, tile: Tile) -> str:
        return self.c_xor(f"(r * {tile.row_length} + c)")

    def swizzles(self) -> list[dict]:
        return [{"B": self.B, "M": self.M, "S": self.S, "unit": "element"}]


def bounds(tile: Tile, vector_elems: int) -> str:
    top = tile.offset_bits
    return f"B >= 1, M >= {log2(vector_elems)}, S >= B, M + S + B <= {top} offset bits"


def grid(tile: Tile, vector_elems: int) -> list[tuple[int, int, int]]:
    """(B, M, S) of every triple whose YYY bits are inside the storage's offsets and that keeps
    vectors whole, in preference order (fewest bits, larger M, smaller S).

    A YYY bit at or above the top offset bit is always 0, so such a triple equals one with
    fewer bits: it can never be minimal.
    """
    top = tile.offset_bits
    m_min = log2(vector_elems)
    return [(b, m, s)
            for b in range(1, top)
            for m in range(top - 2 * b, m_min - 1, -1)  # M + S + B <= top with S >= B
            for s in range(b, top - m - b + 1)]


def apply_many(params, p: np.ndarray) -> np.ndarray:
    """Swizzle<B,M,S>(p) for every (B, M, S) of ``params``: shape (n, *p.shape)."""
    return swizzle(p, *columns(params, np.ndim(p)))


def phys_many(params, tile: Tile, r: np.ndarray, c: np.ndarray) -> np.ndarray:
    return apply_many(params, r * tile.row_length + c)


def candidates(tile: Tile, vector_elems: int) -> list[Swizzle]:
    return [Swizzle(*t) for t in grid(tile, vector_elems)]


_TRIPLE = r"\s*(-?\d{1,18})\s*,\s*(-?\d{1,18})\s*,\s*(-?\d{1,18})\s*"
_NAME = rf"(?i)(?:swizzle\s*<{_TRIPLE}>|{_TRIPLE})"
PRINTED = r"Swizzle<(\d{1,18}),(\d{1,18}),(\d{1,18})>"


def is_named(text: str) -> bool:
    """Whether ``text`` has the shape of a swizzle's name (its values unchecked)."""
    return re.fullmatch(_NAME, text) is not None


def parse(text: str) -> Swizzle | None:
    """Swizzle<B,M,S> or B,M,S."""
    m = re.fullmatch(_NAME, text)
    if not m:
        return None
    b, mm, sh = (int(x) for x in (m.groups()[:3] if m[1] is not None else m.groups()[3:]))
    in_range(MAX_BIT, B=b, M=mm, **({"S": sh} if sh >= 0 else {"|S|": -sh}))
    if b < 1 or mm < 0:
        raise ValueError("B must be >= 1 and M >= 0 (or give none)")
    return Swizzle(b, mm, sh)


def never_an_answer(printed: str) -> str | None:
    """Why a printed name (spaces removed) holding Swizzle<B,M,S> can never be an answer's."""
    for b, _, s in re.findall(PRINTED, printed):
        if int(b) < 1 or int(s) < int(b):
            return "CuTe needs B >= 1 and S >= B in Swizzle<B,M,S>"
    return None


# The step swizzles() writes, as docs/schema/solution.schema.json states it (python -m swizzle_solver.schema).
STEP_SCHEMA = step_schema("cute: Swizzle<B,M,S> on the element offset", B=integer(1, "XOR bits"), M=integer(0, "base"),
                          S=integer(1, "shift"), unit=const("element"))

FAMILY_RECORD = Family(
    name=Swizzle.family, rank=1, stage=EVERY_SOLVE, layout=Swizzle, parse=parse, printed=PRINTED,
    syntax="Swizzle<B,M,S>, B,M,S", candidates=candidates, grid=grid, make=Swizzle, phys_many=phys_many,
    apply_many=apply_many, bounds=bounds, never_printed=never_an_answer, step_schema=(STEP_SCHEMA,))
