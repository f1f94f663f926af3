"""`bytes:`: the byte offset of element (r, c) as a C expression (the grammar of notation/expr.py), or
``bytes:Swizzle<B,M,S>``, a CuTe swizzle of byte offsets (the TMA / GMMA form)."""
from __future__ import annotations

import re

import numpy as np

from ..model import Tile
from ..value import Value
from . import expr
from .expr import Expression, NotationError, coordinates, misaligned

ORDER = 1
WHAT = "byte offsets"
_BYTE_SWIZZLE = r"(?as)\s*(?:cute::)?Swizzle\s*<\s*(-?\d{1,3})\s*,\s*(-?\d{1,3})\s*,\s*(-?\d{1,3})\s*>\s*(?:\{\s*\})?\s*"


class ByteSwizzle(Value):
    """``bytes:Swizzle<B,M,S>``: CuTe's swizzle of the byte offset (r * row_length + c) * elem_bytes,
    as TMA and GMMA apply it; on elements it is Swizzle<B, M - log2(elem_bytes), S> when M is at
    least log2(elem_bytes), else it moves bytes inside elements (not usable)."""

    B: int
    M: int
    S: int
    notation = "bytes"
    unit = "byte"
    as_written = False
    storage_level = True  # a swizzle of the stored offset: under --order col, c * row_length + r (families/given.py)

    def __post_init__(self):
        if self.B < 0 or self.M < 0 or abs(self.S) < self.B or max(self.B, self.M, abs(self.S)) > 31:
            raise NotationError(f"Swizzle<{self.B},{self.M},{self.S}> is not a CuTe swizzle (CuTe needs B >= 0, "
                                f"M >= 0 and |S| >= B; bits above 31 are no shared-memory offset)")

    def evaluate(self, tile: Tile) -> tuple[np.ndarray, object, str | None]:
        node = expr.swizzle_node(expr.mul(expr.linear((expr.R, tile.row_length), (expr.C, 1)), expr.num(tile.elem_bytes))
                            if tile.elem_bytes > 1 else expr.linear((expr.R, tile.row_length), (expr.C, 1)),
                            self.B, self.M, self.S)
        r, c = coordinates(tile)
        values = expr.evaluate(node, r, c)
        return values, node, misaligned(tile, values)


def read(body: str, base=None, allow_outside: bool = True) -> ByteSwizzle | Expression:
    sw = re.fullmatch(_BYTE_SWIZZLE, body)
    return ByteSwizzle(*map(int, sw.groups())) if sw else Expression("bytes", expr.parse(body))
