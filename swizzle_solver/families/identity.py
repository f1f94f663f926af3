"""`none`: the identity layout, p = r * row_length + c. "No swizzle needed" is an answer."""
from __future__ import annotations

from dataclasses import dataclass

from ..model import Tile, log2

FAMILY = "none"


@dataclass(frozen=True)
class Identity:
    family = FAMILY
    name = "none"
    order = ()

    def apply(self, p):
        return p

    def phys(self, tile: Tile, r, c):
        return r * tile.row_length + c

    def invalid(self, tile: Tile) -> str | None:
        return None

    def bases(self, tile: Tile) -> list[int] | None:
        if not tile.pitch_is_pow2:
            return None
        return [1 << i for i in range(nbits(tile))]

    def expression(self, tile: Tile) -> str:
        return f"r * {tile.row_length} + c"

    def swizzles(self) -> list[dict]:
        return []


def nbits(tile: Tile) -> int:
    """Bits of an element offset in the tile's storage (pitch a power of two)."""
    return log2(tile.row_length) + max(0, (tile.rows - 1).bit_length())


def grid(tile: Tile, vector_elems: int) -> list[tuple]:
    return [()]


LAYOUT = Identity


def candidates(tile: Tile, vector_elems: int) -> list[Identity]:
    return [Identity()]
