"""The access grammar (DESIGN.md section 1): ``MxN[:s][vB]``, ``row`` and ``col``, and their placements.

An MxN:s block is M rows s apart by N elements, each row read as N*elem/V lanes of V bytes; its
placements tile the whole tile: bands of M*s rows, s interleaved groups, columns 0, N, 2N, ...
``row`` reads each row in runs of one wavefront, ``col`` one element from each of ``banks`` rows.
"""
from __future__ import annotations

import math
import re

import numpy as np

from ..hardware import Hardware
from ..model import MAX_VECTOR_BYTES, InputError, Pattern, Tile, is_pow2

# Numbers in specs and names have at most 18 digits (they fit int64; more can only be a typo, and
# Python refuses to read an int of over 4300 digits): a longer one is a malformed spec.
_SPEC = r"^(?:(?P<m>\d{1,18})x(?P<n>\d{1,18})(?::(?P<s>\d{1,18}))?|(?P<word>row|col))(?:v(?P<v>\d{1,18}))?$"
GRAMMAR = ("MxN, MxN:s, row or col, optionally with a vector suffix vB (e.g. 8x4, 4x2:2, row, 8x8v16), "
           "or a warp-level form: warp:RxC:MxN, ldmatrix.x4, stmatrix.x2, mma-c:m16n8, mma-a:m16n8k8, "
           "mma-b:m16n8k16, cp.async")


def default_vector_bytes(run_bytes: int, pitch_bytes: int) -> int:
    """The largest power of two <= 16 dividing both the run and the pitch (aligned in every row)."""
    v = MAX_VECTOR_BYTES
    while run_bytes % v or pitch_bytes % v:
        v //= 2
    return v


def is_block_spec(text: str) -> bool:
    """``text`` (stripped, lower case) is in this grammar (MxN[:s], row, col, with vB)."""
    return re.match(_SPEC, text) is not None


def malformed(spec: str) -> InputError:
    return InputError(f"malformed access spec {spec!r}: expected {GRAMMAR}")


def parse_block(spec: str, tile: Tile, hardware: Hardware) -> Pattern:
    """Compile one `MxN[:s][vB]`, `row` or `col` spec into its placements."""
    match = re.match(_SPEC, spec.strip().lower())
    if not match:
        raise malformed(spec)
    e, word = tile.elem_bytes, match["word"]
    m, n, s = _footprint(spec, match, tile, hardware)
    v = _vector_bytes(spec, match, tile, n)
    _check_fits(spec, tile, m, n, s)
    if word == "row":
        rows_, cols_, bytes_ = _row_runs(tile, n, v)
    else:
        rows_, cols_ = _block_placements(tile.rows, tile.cols, m, n, s, v // e, n * e // v)
        bytes_ = np.full_like(rows_, v)
    return Pattern(spec=spec.strip(), kind="row" if word == "row" else "block", rows=m, cols=n, row_stride=s,
                   vector_bytes=v, lower_bound=hardware.lower_bound(m * n * e), lane_row=rows_, lane_col=cols_,
                   lane_bytes=bytes_, phase_bytes=m * n * e)


def _footprint(spec: str, match: re.Match, tile: Tile, hardware: Hardware) -> tuple[int, int, int]:
    """(M, N, s): `row` is one wavefront of a row, `col` one element in each of `banks` rows."""
    if match["word"] == "row":
        return 1, min(tile.cols, max(1, hardware.wavefront_bytes // tile.elem_bytes)), 1
    if match["word"] == "col":
        return min(tile.rows, hardware.banks), 1, 1
    m, n, s = int(match["m"]), int(match["n"]), int(match["s"] or 1)
    if m < 1 or n < 1:
        raise InputError(f"access {spec!r}: M and N must be at least 1 (M rows x N elements)")
    if s < 1:
        raise InputError(f"access {spec!r}: the row stride s must be at least 1 (MxN:s with s >= 1)")
    return m, n, s


def _vector_bytes(spec: str, match: re.Match, tile: Tile, n: int) -> int:
    """V: the vB suffix, checked; else scalar lanes for `row` and the widest aligned one otherwise."""
    e, pitch_bytes, word = tile.elem_bytes, tile.row_length * tile.elem_bytes, match["word"]
    if match["v"] is not None:
        v = int(match["v"])
        if not is_pow2(v) or v > MAX_VECTOR_BYTES or v < e:
            raise InputError(f"access {spec!r}: vector width {v} B must be a power of two from the "
                             f"element size ({e} B) to 16 B")
        run = n * e if word != "row" else math.gcd(n * e, tile.cols * e)
        if run % v or pitch_bytes % v:
            raise InputError(f"access {spec!r}: {'an' if v == 8 else 'a'} {v}-byte vector does not divide the "
                             f"{n * e}-byte run and the "
                             f"{pitch_bytes}-byte pitch: use a smaller vB, or drop it for the default")
        return v
    if word == "row":
        return e  # scalar lanes
    v = max(default_vector_bytes(n * e, pitch_bytes), e)  # an element is never split between lanes
    if (n * e) % v or pitch_bytes % v:
        raise InputError(f"access {spec!r}: {e}-byte elements cannot be read whole with this pitch "
                         f"({pitch_bytes} B)")
    return v


def _check_fits(spec: str, tile: Tile, m: int, n: int, s: int) -> None:
    if n > tile.cols or m * s > tile.rows:
        raise InputError(f"access {spec!r}: its footprint ({m * s - s + 1} rows x {n} columns) is larger than the "
                         f"{tile.rows} x {tile.cols} tile: use a smaller block or a larger tile")
    band = m * s
    if tile.rows % band:
        raise InputError(f"access {spec!r}: rows ({tile.rows}) is not a multiple of its band of {band} rows "
                         f"(M*s): use a multiple of {band} rows")


def _block_placements(rows: int, cols: int, m: int, n: int, s: int, step: int, lanes_per_row: int):
    """Aligned placements of an MxN:s block: bands of m*s rows, s interleaved groups, columns 0, N, ..."""
    bands = np.arange(0, rows, m * s)
    groups = np.arange(s)
    starts = np.arange(0, cols - n + 1, n)
    i = np.arange(m)
    k = np.arange(lanes_per_row)
    # axes: band, group, column start | row in block, lane in row
    r = bands[:, None, None, None, None] + groups[None, :, None, None, None] + (i * s)[None, None, None, :, None]
    c = starts[None, None, :, None, None] + (k * step)[None, None, None, None, :]
    shape = (len(bands), len(groups), len(starts), m, lanes_per_row)
    r, c = np.broadcast_to(r, shape), np.broadcast_to(c, shape)
    placements = len(bands) * len(groups) * len(starts)
    return (np.ascontiguousarray(r).reshape(placements, m * lanes_per_row).astype(np.int64),
            np.ascontiguousarray(c).reshape(placements, m * lanes_per_row).astype(np.int64))


def _row_runs(tile: Tile, w: int, v: int):
    """`row`: runs of w elements from column 0 in every row; the last run may be shorter."""
    step = v // tile.elem_bytes
    lanes = w // step
    starts = np.arange(0, tile.cols, w)
    k = np.arange(lanes) * step
    col = starts[:, None] + k[None, :]
    # A shorter last run repeats its first lane where it has no more elements (a broadcast).
    col = np.where(col < tile.cols, col, starts[:, None])
    r = np.repeat(np.arange(tile.rows), len(starts))[:, None] + np.zeros((1, lanes), np.int64)
    c = np.tile(col, (tile.rows, 1))
    return r.astype(np.int64), c.astype(np.int64), np.full(r.shape, v, np.int64)
