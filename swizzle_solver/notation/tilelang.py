"""`tilelang:`: TileLang's swizzled shared-memory layouts, as a kernel annotates a buffer with them
(``T.annotate_layout({A_shared: make_full_bank_swizzled_layout(A_shared)})``).

Read: ``make_full_bank_swizzled_layout(BUF)`` (128-byte swizzle), ``make_half_bank_swizzled_layout(BUF)``
(64-byte), ``make_quarter_bank_swizzled_layout(BUF)`` (32-byte), each optionally qualified
(``tilelang.layout.``, ``T.``), and ``make_linear_layout(BUF)`` (row-major). BUF names the shared
buffer, whose shape and element are the tile's (``--rows``, ``--cols``, ``--dtype``): TileLang reads
them from the buffer (tilelang/layout/swizzle.py hands it to the C++ below).

The map is TileLang's (src/layout/gemm_layouts.cc, ``MakeFullBankSwizzleLayout2D`` and its half and
quarter kin): with ``vector_size = 128 / element bits`` (16 bytes) and n = 8, 4, 2 vectors a row of
the atom, row i = 8 ts + s and column j = (n tc + c) vector_size + vec map to the output index
(tc, ts, vec + ((c ^ s / (8 / n)) + s n) vector_size), ``xor8x8``/``xor4x4``/``xor2x2`` being the XOR
of 3-, 2- and 1-bit values; the buffer's offset is that index linearised row-major over the output
shape (``LayoutNode::GetLinearizedForwardIndex``, src/layout/layout.cc), whose extents TileLang's
analyzer bounds as ceil(rows / 8), n min(rows, 8) vector_size (and the panels). The checks are the
source's ``ICHECK``s: rows 4 or a multiple of 8, columns a multiple of n vectors.

The layout is of the buffer as stored (under ``--order col``, the stored tile: its last dimension is
the contiguous one).
"""
from __future__ import annotations

import re

import numpy as np

from ..model import Tile
from ..value import Value
from . import expr
from .expr import NotationError, coordinates

ORDER = 5  # this notation's place in the lists of notations
WHAT = "a TileLang layout"
_CALL = (r"(?s)\s*(?:(?:tilelang\s*\.\s*)?layout\s*\.\s*|T\s*\.\s*)?make_(full_bank|half_bank|quarter_bank|linear)"
         r"(?:_swizzled)?_layout\s*\(\s*([A-Za-z_][\w.]*)\s*\)\s*;?\s*")
# vectors of 16 bytes a row of the swizzle's atom: full bank 128 B (Swizzle<3,4,3> of bytes), half 64 B, quarter 32 B
VECTORS = {"full_bank": 8, "half_bank": 4, "quarter_bank": 2}


def _div(x: tuple, k: int) -> tuple:
    return x if k == 1 else expr.div(x, k)


def _mod(x: tuple, k: int) -> tuple:
    return expr.num(0) if k == 1 else expr.mod(x, k)


class TileLang(Value):
    kind: str  # full_bank, half_bank, quarter_bank or linear
    buffer: str
    notation = "tilelang"
    unit = "element"
    as_written = False
    storage_level = True  # the buffer as stored: its last dimension contiguous

    def evaluate(self, tile: Tile) -> tuple[np.ndarray, object, str | None]:
        node = swizzled(self.kind, tile.rows, tile.cols, tile.elem_bytes) if self.kind != "linear" \
            else expr.linear((expr.R, tile.cols), (expr.C, 1))
        r, c = coordinates(tile)
        return expr.evaluate(node, r, c, " in the TileLang layout"), node, None


def swizzled(kind: str, rows: int, cols: int, elem_bytes: int) -> tuple:
    """TileLang's Make{Full,Half,Quarter}BankSwizzleLayout2D of a rows x cols buffer, linearised."""
    n, vs = VECTORS[kind], 16 // elem_bytes  # vector_size = 128 / element bits
    name = "Make" + "".join(w.title() for w in kind.split("_")) + "SwizzleLayout2D"
    if vs < 1:
        raise NotationError(f"TileLang's {name} moves 16-byte vectors: the tile's elements are {elem_bytes} bytes")
    if not (rows == 4 or rows % 8 == 0):
        raise NotationError(f"TileLang's {name} needs the buffer's rows to be 4 or a multiple of 8 (its ICHECK); "
                            f"the tile has {rows}")
    if cols % (vs * n):
        raise NotationError(f"TileLang's {name} needs the buffer's columns to be a multiple of {vs * n} (vector_size "
                            f"{vs} x {n}, its ICHECK); the tile has {cols}")
    ts, s = _div(expr.R, 8), expr.R if rows <= 8 else expr.mod(expr.R, 8)
    v = _div(expr.C, vs)
    tc, c, vec = expr.div(v, n), expr.mod(v, n), _mod(expr.C, vs)
    c_swizzle = expr.xor(c, expr.shr(s, {8: 0, 4: 1, 2: 2}[n]))  # xor8x8(c, s), xor4x4(c, s/2), xor2x2(c, s/4)
    index = expr.linear((vec, 1), (c_swizzle, vs), (s, n * vs))
    panel_rows, index_extent = -(-rows // 8), n * min(rows, 8) * vs  # the output shape's extents (ts, index)
    return expr.add(expr.linear((tc, panel_rows * index_extent if cols > n * vs else 0),
                                (ts, index_extent if rows > 8 else 0)), index)


def read(body: str, base=None, allow_outside: bool = True) -> TileLang:
    """The notation's entry (notation/__init__.py): ``tilelang: make_full_bank_swizzled_layout(A_shared)``."""
    m = re.fullmatch(_CALL, body)
    if m is None:
        raise NotationError("a TileLang layout is read as make_full_bank_swizzled_layout(BUF), "
                            "make_half_bank_swizzled_layout(BUF), make_quarter_bank_swizzled_layout(BUF) or "
                            "make_linear_layout(BUF), BUF the shared buffer (the tile: --rows, --cols, --dtype)")
    if m[1] == "linear" and "swizzled" in body:
        raise NotationError("TileLang's linear layout is make_linear_layout(BUF)")
    if m[1] != "linear" and "swizzled" not in body:
        raise NotationError(f"TileLang's helper is make_{m[1]}_swizzled_layout(BUF)")
    return TileLang(m[1], m[2])
