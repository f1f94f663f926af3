"""A tile of a vector element type read by an instruction of its scalar type (``--dtype half2`` read by
``mma-a:m16n8k16``, an MMA or MFMA operand).

The tile is what the kernel declares, ``half2 tile[R][C]``: R x C elements of the vector's bytes (4
for half2), and every layout and every other access counts those elements (a ``warp:``, block or
``index:`` lane reads whole vectors; ldmatrix, stmatrix and the ds_read forms read bytes). The
forms whose element type the instruction fixes (access.SCALAR_FORMS: ``mma-a``, ``mma-b``, ``mma-c``,
``mfma-a``, ``mfma-b``) read the scalar: each is compiled on the same bytes stated in scalars, an
R x (C * L) tile of the scalar (L scalars a vector, the pitch L times as many), and its lanes are
then the elements of the vector tile that hold them (column c_s is vector column c_s / L). A lane
must read whole vectors for that: a read of part of a vector (a 2-byte f16 of a half2, as the
M-major ``:mn`` fragments of 16-bit types do) is bad input that names the scalar tile to state instead.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..hardware import Hardware
from ..model import InputError, Pattern, Tile
from ..value import replace
from .warp import coset_bits

_EXAMPLE = {1: "i8, u8", 2: "f16, bf16, i16", 4: "f32, i32, u32", 8: "f64"}  # the scalars of VECTOR_DTYPES


def scalar_tile(tile: Tile) -> Tile:
    """The same bytes stated in the vector's scalars: L times the columns and the pitch."""
    per = tile.elem_bytes // tile.scalar_bytes
    return replace(tile, cols=tile.cols * per, row_length=tile.row_length * per, elem_bytes=tile.scalar_bytes,
                   scalar_bytes=0)


def parse(spec: str, tile: Tile, hardware: Hardware, parse_scalar: Callable[[str, Tile, Hardware], Pattern]
          ) -> Pattern:
    """``spec``, an instruction of the scalar type, compiled on the scalar tile, as lanes of the vector tile."""
    per, e = tile.elem_bytes // tile.scalar_bytes, tile.elem_bytes
    scalars = scalar_tile(tile)
    pattern = parse_scalar(spec, scalars, hardware)
    part = (pattern.lane_col % per != 0) | (pattern.lane_bytes % e != 0)
    if part.any():
        i = tuple(np.argwhere(part)[0])
        r, c, b = int(pattern.lane_row[i]), int(pattern.lane_col[i]), int(pattern.lane_bytes[i])
        raise InputError(f"access {spec.strip()!r}: a lane reads {b} bytes at ({r}, {c}) of the {tile.scalar_bytes}-byte "
                         f"scalars, part of a {e}-byte vector element: state the tile in its scalar type, "
                         f"{'--rows' if tile.col_major else '--cols'} {scalars.cols} and the scalar's --dtype "
                         f"({_EXAMPLE[tile.scalar_bytes]})")
    col = pattern.lane_col // per
    return replace(pattern, cols=max(1, pattern.cols // per), lane_col=col,
                   coset_bits=coset_bits(tile, pattern.lane_row, col, pattern.lane_bytes,
                                         general=hardware.general_cosets),
                   summary=f"{pattern.footprint()}, in the {tile.scalar_bytes}-byte scalars of the "
                           f"{e}-byte elements")
