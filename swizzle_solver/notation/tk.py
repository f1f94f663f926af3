"""`tk:`: a ThunderKittens shared tile type, ``st_bf<64, 64>`` (``kittens::``, ``{}`` optional), as a
kernel declares it: ``st_bf``, ``st_hf``, ``st_fl``, ``st_fp8e4m3``, ``st_fp8e5m2``, ``st_fp8e8m0``
``<ROWS, COLS[, SWIZZLE[, SWIZZLE_BYTES]]>``, or ``st<T, ROWS, COLS[, ...]>`` with T one of ``bf16``,
``half``, ``float``, ``fp8e4m3``, ``fp8e5m2``, ``fp8e8m0``.

The map is ThunderKittens' ``st::idx`` (include/types/shared/st.cuh): with ``swizzle_bytes`` (given,
or by the source's rule: 1- and 2-byte types 128 when the columns are a multiple of 4 tile columns,
64 of 2, else 32; 4-byte types 128 for 2 tile columns, else 64; a tile column is 16 elements, 32 for
1-byte types, ``TILE_COL_DIM``) and ``subtile_cols = swizzle_bytes / sizeof(T)``, element (r, c) is
at the byte address ``addr = sizeof(T) * ((c / subtile_cols) * ROWS * subtile_cols + r *
subtile_cols + c % subtile_cols)`` XOR ``((addr % (swizzle_bytes * 8)) >> 7) << 4``: column panels of
``swizzle_bytes`` a row, each the TMA swizzle of that span (``Swizzle<3,4,3>`` of bytes for 128). An
unswizzled tile (``SWIZZLE`` false) is row-major. The tile's base is taken aligned to the swizzle's
period (``swizzle_bytes * 8``), as ThunderKittens' shared allocator aligns tiles. The source's
``static_assert``s are kept: rows a multiple of 16, columns of a tile column.
"""
from __future__ import annotations

import re

import numpy as np

from ..model import Tile
from ..value import Value
from . import expr
from .expr import NotationError, coordinates, misaligned

ORDER = 6  # this notation's place in the lists of notations
WHAT = "a ThunderKittens shared tile"
# the element types of the st_* aliases and st<T, ...> (include/types/shared/st.cuh; common/base_types.cuh)
TYPES = {"bf16": 2, "half": 2, "float": 4, "fp8e4m3": 1, "fp8e5m2": 1, "fp8e8m0": 1}
ALIASES = {"bf": "bf16", "hf": "half", "fl": "float", "fp8e4m3": "fp8e4m3", "fp8e5m2": "fp8e5m2", "fp8e8m0": "fp8e8m0"}
_INT = r"\s*([0-9]{1,6})\s*"  # (ASCII: \d reads other scripts' digits, no compiler does)
_BOOL = r"\s*(true|false|1|0)\s*"
_TAIL = rf"{_INT},{_INT}(?:,{_BOOL}(?:,{_INT})?)?>\s*(?:\{{\s*\}})?\s*;?\s*"
_ALIAS = rf"(?s)\s*(?:kittens\s*::\s*)?st_(\w+?)\s*<{_TAIL}"
_GENERIC = rf"(?s)\s*(?:kittens\s*::\s*)?st\s*<\s*(?:kittens\s*::\s*)?(\w+)\s*,{_TAIL}"


class SharedTile(Value):
    type_name: str  # bf16, half, float, fp8e4m3, ...
    rows: int
    cols: int
    swizzle: bool = True
    swizzle_bytes: int = 0  # 0: the source's default for the type and columns
    notation = "tk"
    unit = "byte"
    as_written = False
    storage_level = True  # the tile as stored (row-major before the swizzle)

    @property
    def name(self) -> str:
        return f"st<{self.type_name}, {self.rows}, {self.cols}>"

    def evaluate(self, tile: Tile) -> tuple[np.ndarray, object, str | None]:
        e = TYPES[self.type_name]
        if e != tile.elem_bytes:
            raise NotationError(f"{self.name} holds {e}-byte elements, the tile's are {tile.elem_bytes} bytes: give "
                                f"--dtype {self.type_name}")
        if (self.rows, self.cols) != (tile.rows, tile.cols):
            raise NotationError(f"{self.name} is {self.rows} x {self.cols}, the tile is {tile.rows} x {tile.cols}: give "
                                f"--rows {self.rows} --cols {self.cols}")
        node = byte_offset(self.rows, self.cols, e, self.swizzle, self.swizzle_bytes)
        r, c = coordinates(tile)
        values = expr.evaluate(node, r, c, " in the ThunderKittens tile")
        return values, node, misaligned(tile, values)


def swizzle_bytes_of(e: int, cols: int) -> int:
    """st's default swizzle_bytes: by how many tile columns (TILE_COL_DIM<T>) the columns hold."""
    tiles = cols // (32 if e == 1 else 16)
    if e in (1, 2):
        return 128 if tiles % 4 == 0 else 64 if tiles % 2 == 0 else 32
    return 128 if tiles % 2 == 0 else 64


def byte_offset(rows: int, cols: int, e: int, swizzle: bool, given_bytes: int) -> tuple:
    """The byte address of element (r, c) in st<T, rows, cols, swizzle, given_bytes> (st::idx)."""
    col_dim = 32 if e == 1 else 16
    if swizzle and rows % 16:
        raise NotationError(f"ThunderKittens' st needs rows divisible by the tile dimension, 16; the tile has {rows}")
    if cols % (col_dim if swizzle else 16):
        raise NotationError(f"ThunderKittens' st needs columns divisible by the tile dimension, "
                            f"{col_dim if swizzle else 16}; the tile has {cols}")
    if not swizzle:
        return expr.mul(expr.linear((expr.R, cols), (expr.C, 1)), expr.num(e)) if e > 1 else \
            expr.linear((expr.R, cols), (expr.C, 1))
    sb = given_bytes or swizzle_bytes_of(e, cols)
    sub = sb // e  # subtile_cols
    if cols % sub:
        raise NotationError(f"ThunderKittens' st with swizzle_bytes {sb} needs columns in whole {sub}-column "
                            f"panels; the tile has {cols}")
    outer = expr.div(expr.C, sub) if cols > sub else None
    inner = expr.linear((expr.R, sub), (expr.mod(expr.C, sub) if cols > sub else expr.C, 1))
    lin = inner if outer is None else expr.add(expr.mul(outer, expr.num(rows * sub)), inner)
    addr = expr.mul(lin, expr.num(e)) if e > 1 else lin
    swz = expr.shl(expr.shr(expr.mod(addr, sb * 8), 7), 4)  # ((addr % swizzle_repeat) >> 7) << 4
    return expr.xor(addr, swz)


def read(body: str, base=None, allow_outside: bool = True) -> SharedTile:
    """The notation's entry (notation/__init__.py): ``tk: st_bf<64, 64>``."""
    alias = re.fullmatch(_ALIAS, body)
    generic = None if alias else re.fullmatch(_GENERIC, body)
    m = alias or generic
    if m is None:
        raise NotationError("a ThunderKittens shared tile is read as st_bf<ROWS, COLS> (st_hf, st_fl, st_fp8e4m3, "
                            "st_fp8e5m2, st_fp8e8m0; optionally <..., SWIZZLE, SWIZZLE_BYTES>) or st<T, ROWS, COLS>")
    type_name = ALIASES.get(m[1]) if alias else m[1]
    if type_name not in TYPES:
        raise NotationError(f"{'st_' + m[1] if alias else m[1]!r} is not a ThunderKittens element type read here: "
                            f"{', '.join('st_' + a for a in ALIASES)} or st<T, ...> with T one of {', '.join(TYPES)}")
    swizzle = m[4] in (None, "true", "1")
    sb = int(m[5]) if m[5] else 0
    if sb not in (0, 32, 64, 128):
        raise NotationError(f"ThunderKittens' swizzle_bytes is 0 (its default), 32, 64 or 128, not {sb}")
    return SharedTile(type_name, int(m[2]), int(m[3]), swizzle, sb)
