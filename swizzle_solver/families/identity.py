"""`none`: the identity layout, p = r * row_length + c. "No swizzle needed" is an answer."""
from __future__ import annotations

import numpy as np

from ..layout import EVERY_SOLVE, Family, LayoutBase
from ..model import Tile, log2
from ..value import Value


class Identity(Value, LayoutBase):
    family = "none"
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


def candidates(tile: Tile, vector_elems: int) -> list[Identity]:
    return [Identity()]


def apply_many(params, p: np.ndarray) -> np.ndarray:
    return np.broadcast_to(p, (len(params), *np.shape(p)))


def phys_many(params, tile: Tile, r: np.ndarray, c: np.ndarray) -> np.ndarray:
    return apply_many(params, r * tile.row_length + c)


def parse(text: str) -> Identity | None:
    return Identity() if text.lower() == "none" else None


FAMILY_RECORD = Family(
    name=Identity.family, rank=0, stage=EVERY_SOLVE, layout=Identity, parse=parse, printed="none", syntax="none",
    candidates=candidates, grid=grid, make=Identity, phys_many=phys_many, apply_many=apply_many,
    code_rows=lambda answer, problem: [("CuTe", "no swizzle: use the plain row-major layout")],
    found=lambda answer: "no swizzle is needed", baseline=True)
