"""`cute`: CuTe's Swizzle<B,M,S> on the logical element offset p = r * row_length + c.

    p ^ ((p & (((1 << B) - 1) << (M + S))) >> S)          (cute/swizzle.hpp, S > 0)

The B bits at M+S (YYY) are XORed into the B bits at M (ZZZ); the M low bits are never touched, so
runs of 2^M elements stay whole and aligned. CuTe static_asserts |S| >= B (YYY and ZZZ must not
overlap, which makes the map an involution); triples with S < B are never candidates.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..model import Tile, log2
from .identity import nbits

FAMILY = "cute"

# TMA / GMMA swizzle modes as byte-level CuTe swizzles (DESIGN.md section 7).
TMA_MODES = {(1, 4, 3): "32B", (2, 4, 3): "64B", (3, 4, 3): "128B"}


@dataclass(frozen=True)
class Swizzle:
    B: int
    M: int
    S: int
    family = FAMILY

    @property
    def name(self) -> str:
        return f"Swizzle<{self.B},{self.M},{self.S}>"

    @property
    def order(self) -> tuple:
        return (self.B, -self.M, self.S)

    @property
    def mask(self) -> int:
        """The ZZZ bits, where YYY lands."""
        return ((1 << self.B) - 1) << self.M

    def apply(self, p):
        """The swizzle itself, on ints or numpy arrays (equal to CuTe's formula above)."""
        return p ^ ((p >> self.S) & self.mask)

    def phys(self, tile: Tile, r, c):
        return self.apply(r * tile.row_length + c)

    def invalid(self, tile: Tile) -> str | None:
        # Only bits M..M+B-1 change, so p stays in its aligned block of 2^(M+B); only the last,
        # partial block of the storage can leave [0, size). The map is an involution, so
        # "into" is "onto".
        block = 1 << (self.M + self.B)
        start = tile.size - tile.size % block
        for p in range(start, tile.size):
            if self.apply(p) >= tile.size:
                return (f"not a bijection of the {tile.size}-element storage: "
                        f"offset {p} maps to {self.apply(p)}")
        return None

    def bases(self, tile: Tile) -> list[int] | None:
        if not tile.pitch_is_pow2:
            return None
        return [self.apply(1 << i) for i in range(nbits(tile))]

    def byte_level(self, elem_bytes: int) -> "Swizzle":
        """The same swizzle on byte offsets (the TMA / GMMA form)."""
        return Swizzle(self.B, self.M + log2(elem_bytes), self.S)

    def tma_mode(self, elem_bytes: int) -> str | None:
        b = self.byte_level(elem_bytes)
        return TMA_MODES.get((b.B, b.M, b.S))

    def expression(self, tile: Tile) -> str:
        p = f"(r * {tile.row_length} + c)"
        return f"{p} ^ (({p} >> {self.S}) & {self.mask})"

    def swizzles(self) -> list[dict]:
        return [{"B": self.B, "M": self.M, "S": self.S, "unit": "element"}]


def bounds(tile: Tile, vector_elems: int) -> str:
    top = max(1, (tile.size - 1).bit_length())
    return f"B >= 1, M >= {log2(vector_elems)}, S >= B, M + S + B <= {top} offset bits"


def grid(tile: Tile, vector_elems: int) -> list[tuple[int, int, int]]:
    """(B, M, S) of every triple whose YYY bits are inside the storage's offsets and that keeps
    vectors whole, in preference order (fewest bits, larger M, smaller S).

    A YYY bit at or above the top offset bit is always 0, so such a triple equals one with
    fewer bits: it can never be minimal.
    """
    top = max(1, (tile.size - 1).bit_length())
    m_min = log2(vector_elems)
    return [(b, m, s)
            for b in range(1, top)
            for m in range(top - 2 * b, m_min - 1, -1)  # M + S + B <= top with S >= B
            for s in range(b, top - m - b + 1)]


LAYOUT = Swizzle


def candidates(tile: Tile, vector_elems: int) -> list[Swizzle]:
    return [Swizzle(*t) for t in grid(tile, vector_elems)]
