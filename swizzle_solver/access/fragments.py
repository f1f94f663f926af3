"""NVIDIA mma.sync operand fragments read from shared memory without ldmatrix (DESIGN.md section 10).

    mma-a:m16n8kK[:k|:mn]    the A operand (16 x K) of one mma.sync.m16n8kK, each lane loading its
    mma-b:m16n8kK[:k|:mn]    fragment registers' elements with ld.shared; B: the 8 x K operand

The fragment of each (shape, element size) is the PTX ISA's ("Matrix Fragments for mma.m16n8k8",
"... mma.m16n8k16 with floating point type", "... with integer type", "... mma.m16n8k32",
section 9.7.14.5; sourced in docs/hardware.md). Every one of them has the same shape: with
``g = lane >> 2`` and ``t = lane % 4``, each 32-bit register holds ``per = 4 / elem`` elements of one
row of the operand, consecutive along K; register j of A is at row g (+ 8 for the odd registers)
and K-block j // 2, register j of B at row g and K-block j, a K-block being 16 bytes (``4 * per``
elements):

    A register j, element i:  m = g + 8 * (j % 2),  k = 4 * per * (j // 2) + per * t + i
    B register j, element i:  n = g,                k = 4 * per * j        + per * t + i

(tf32 m16n8k8 A: a0 (g, t), a1 (g + 8, t), a2 (g, t + 4), a3 (g + 8, t + 4); f16 m16n8k16 A: a0 a1
(g, 2t ..), a2 a3 (g + 8, ..), a4 a5 (g, 2t + 8 ..), a6 a7 (g + 8, ..); i8 m16n8k32 A: a0-a3 (g, 4t ..),
a4-a7 (g + 8, ..), a8-a11 (g, 4t + 16 ..), a12-a15 (g + 8, ..).) tests/test_fragments.py checks the
(lane, value) -> (m, k) map of every shape and size against CuTe's MMA traits (mma_traits_sm80.hpp,
mma_traits_sm89.hpp) evaluated by pycute.

The tile is the operand as stored: ``:k`` (the default) K-major, tile row = m (or n), column = k, as
ldmatrix without .trans reads it; ``:mn`` M- (or N-) major, tile row = k, column = m (or n), CuTe's
MN-major atoms (CUTLASS issue 2116's tf32 operands). Each lane reads its elements with the widest
ld.shared their contiguity allows: a run of elements along a tile row, aligned, up to 16 bytes
(K-major: one 32-bit register, ld.shared.b32; MN-major: one element, ld.shared.u16/.u8/.b32). The
lanes' k-th vectors are one warp request, split into phases by the hardware's rule (32 lanes of
<= 4 bytes: one phase); the footprint (16 x K, K x 16, 8 x K or K x 8) is placed at every aligned
position of the tile, as ldmatrix's is.

Only the element size is known to the tile, so a size stands for its types (4 B: tf32; 2 B: f16,
bf16; 1 B: i8, u8, e4m3, e5m2); a shape with no type of that size in the PTX ISA is bad input, listing
the valid ones.
"""
from __future__ import annotations

import re

from ..hardware import Hardware, Lane
from ..model import MAX_VECTOR_BYTES, InputError, Pattern, Tile
from .warp import refuse, tile_pattern

LANES = 32  # an mma.sync fragment is defined over one 32-lane warp
REGISTER_BYTES = 4

# (shape, element bytes) -> the PTX types of that size the shape takes (PTX ISA 9.7.14.5.7-10 and .14:
# m16n8k8: .tf32, .f16/.bf16; m16n8k16: .f16/.bf16, .u8/.s8, .e4m3/.e5m2; m16n8k32: .u8/.s8,
# .e4m3/.e5m2 (and the sm_120a .kind::f8f6f4 types, one per byte in registers: not read here)).
SHAPES: dict[tuple[str, int], str] = {
    ("m16n8k8", 4): "tf32",
    ("m16n8k8", 2): "f16, bf16",
    ("m16n8k16", 2): "f16, bf16",
    ("m16n8k16", 1): "i8, u8, e4m3, e5m2",
    ("m16n8k32", 1): "i8, u8, e4m3, e5m2",
}
_ROWS = {"a": 16, "b": 8}  # M of A, N of B
_FORM = r"^mma-([ab]):(m16n8k\d{1,4})(?::(k|mn))?$"


def valid_forms() -> str:
    """Every valid (shape, types) pair, by shape, as a refusal lists them."""
    by_shape: dict[str, list[str]] = {}
    for (shape, _), types in SHAPES.items():
        by_shape.setdefault(shape, []).append(types)
    return "; ".join(f"{shape} on {', '.join(types)}" for shape, types in by_shape.items())


def fragment(operand: str, shape: str, elem_bytes: int) -> list[list[tuple[int, int]]]:
    """The PTX ISA's fragment: for each lane, its values in register order as (row, k), row being m
    (A) or n (B): the formula of the module docstring."""
    k = int(shape.split("k")[1])
    per = REGISTER_BYTES // elem_bytes  # elements of one 32-bit register
    registers = _ROWS[operand] * k * elem_bytes // REGISTER_BYTES // LANES
    out = []
    for lane in range(LANES):
        g, t = lane >> 2, lane % 4
        values = []
        for j in range(registers):
            row, block = (g + 8 * (j % 2), j // 2) if operand == "a" else (g, j)
            values += [(row, 4 * per * block + per * t + i) for i in range(per)]
        out.append(values)
    return out


def _runs(cells: list[tuple[int, int]]) -> list[tuple[int, int, int]]:
    """(row, first col, length): the maximal runs of consecutive columns in one row, in register
    order (of their first element)."""
    runs: list[tuple[int, int, int]] = []
    for r, c in sorted(cells):
        if runs and runs[-1][0] == r and runs[-1][1] + runs[-1][2] == c:
            runs[-1] = (r, runs[-1][1], runs[-1][2] + 1)
        else:
            runs.append((r, c, 1))
    return sorted(runs, key=lambda run: cells.index(run[:2]))


def vector_elements(lanes: list[list[tuple[int, int]]], tile: Tile) -> int:
    """The widest vector (elements) every lane's runs split into: a power of two, at most 16 bytes,
    dividing each run's length and start and the pitch (so each vector is aligned in every row)."""
    p = MAX_VECTOR_BYTES // tile.elem_bytes
    while p > 1 and (tile.row_length % p or any(n % p or c % p for cells in lanes for _, c, n in _runs(cells))):
        p //= 2
    return p


def requests(lanes: list[list[tuple[int, int]]], p: int, elem_bytes: int) -> list[list[Lane]]:
    """One warp request per vector: the k-th vector of every lane (each lane's vectors in the
    order of their first element), as lanes (row, col, bytes)."""
    vectors = [[(r, c + i, p * elem_bytes) for r, c, n in _runs(cells) for i in range(0, n, p)] for cells in lanes]
    return [[v[k] for v in vectors] for k in range(len(vectors[0]))]


def instruction(vector_bytes: int) -> str:
    """The ld.shared of one lane's vector."""
    return {1: "ld.shared.u8", 2: "ld.shared.u16", 4: "ld.shared.b32", 8: "ld.shared.v2.b32",
            16: "ld.shared.v4.b32"}[vector_bytes]


def parse(spec: str, tile: Tile, hardware: Hardware) -> Pattern:
    """The fragment read ``spec`` names, its phases at every placement (warp.py's tile_pattern)."""
    text = spec.strip().lower()
    match = re.match(_FORM, text)
    if not match:
        raise InputError(f"unknown access {spec!r}: the MMA operand fragment reads are mma-a:SHAPE or mma-b:SHAPE, "
                         f"optionally :k (K-major, the default) or :mn (M/N-major), SHAPE one of m16n8k8, m16n8k16, "
                         f"m16n8k32 (or mma-c:m16n8, the accumulator)")
    operand, shape, major = match[1], match[2], match[3] or "k"
    refuse(spec, hardware, "mma-ab")
    e = tile.elem_bytes
    if (shape, e) not in SHAPES:
        raise InputError(f"access {spec!r}: PTX has no mma.sync.{shape} on {e}-byte elements; the fragment reads "
                         f"are {valid_forms()} (give the --dtype)")
    lanes = fragment(operand, shape, e)
    if major == "mn":
        lanes = [[(k, row) for row, k in cells] for cells in lanes]
    p = vector_elements(lanes, tile)
    loads = requests(lanes, p, e)
    template: list[list[Lane]] = []
    for request in loads:
        template += hardware.split_request(request)
    k = int(shape.split("k")[1])
    height, width = (_ROWS[operand], k) if major == "k" else (k, _ROWS[operand])
    name = operand.upper()
    order = "K" if major == "k" else {"a": "M", "b": "N"}[operand]
    summary = f"{shape} {name} fragment, {order}-major: {len(loads)} {instruction(p * e)} per lane"
    return tile_pattern(spec, f"mma-{operand}", template, height, width, summary, tile, hardware)
