"""The problem: a tile in shared memory, the bank model, and the access patterns that must be fast.

Everything here follows docs/design.md section 1. Offsets are in elements unless a name says
bytes. Element (r, c) of the tile has the logical offset ``p = r * row_length + c``; a layout maps
``p`` (or ``(r, c)``) to a physical element offset in a buffer of ``rows * row_length`` elements.

A pattern is compiled once into its placements: every request phase it issues, each a list of
lanes ``(row, col, bytes)`` (the first element a lane reads and how many bytes it reads, contiguous).
The simulator, the search and the proof all read the same placements, so nothing downstream parses
specs again.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import numpy as np

DTYPES: dict[str, int] = {
    "f64": 8,
    "f32": 4, "tf32": 4, "i32": 4, "u32": 4,
    "f16": 2, "bf16": 2, "i16": 2,
    "f8": 1, "e4m3": 1, "e5m2": 1, "i8": 1, "u8": 1,
}
# The same types as PyTorch, Triton, CUTLASS and Mojo spell them. A prefix such as `torch.`, `tl.` or
# `cutlass::` and C++'s `_t` are dropped first (half_t, bfloat16_t, float_e4m3_t, int8_t).
DTYPE_ALIASES: dict[str, str] = {
    "fp64": "f64", "float64": "f64", "double": "f64",
    "fp32": "f32", "float32": "f32", "float": "f32", "tfloat32": "tf32", "int32": "i32", "uint32": "u32",
    "fp16": "f16", "float16": "f16", "half": "f16", "bfloat16": "bf16", "int16": "i16",
    "fp8": "f8", "e4m3fn": "e4m3", "float8_e4m3fn": "e4m3", "fp8e4nv": "e4m3", "float8e4nv": "e4m3",
    "float_e4m3": "e4m3", "float8_e5m2": "e5m2", "fp8e5": "e5m2", "float8e5": "e5m2", "float_e5m2": "e5m2",
    "float8_e4m3fnuz": "e4m3", "float8_e5m2fnuz": "e5m2", "fp8e4b15": "f8", "float8e4b15": "f8",
    "int8": "i8", "uint8": "u8",
}

# Every tile up to 256 KiB must be solved; storage (rows * row_length * elem_bytes, padding
# included) is capped at twice that so that a padded 256 KiB tile is accepted too.
MAX_STORAGE_BYTES = 512 * 1024
MAX_VECTOR_BYTES = 16  # the widest shared-memory access a lane can issue (LDS.128)


class InputError(ValueError):
    """Bad input: the message is one line naming the problem and the fix (CLI exit code 2)."""


def is_pow2(x: int) -> bool:
    return x > 0 and x & (x - 1) == 0


def log2(x: int) -> int:
    """Exact log2 of a power of two."""
    assert is_pow2(x), x
    return x.bit_length() - 1


@dataclass(frozen=True)
class Tile:
    """A row-major tile of rows x cols elements stored row_length elements apart."""

    rows: int
    cols: int
    row_length: int
    elem_bytes: int

    @property
    def size(self) -> int:
        """Elements of storage: the domain (and codomain) of every layout."""
        return self.rows * self.row_length

    @property
    def storage_bytes(self) -> int:
        return self.size * self.elem_bytes

    @property
    def pitch_is_pow2(self) -> bool:
        return is_pow2(self.row_length)

    def describe(self) -> str:
        pad = "" if self.row_length == self.cols else f" (padded: {self.row_length - self.cols} spare)"
        return (f"{self.rows} x {self.cols} elements of {self.elem_bytes} B, "
                f"row length {self.row_length}{pad}")


@dataclass(frozen=True)
class BankModel:
    """`banks` banks of `bank_bytes` bytes; byte address a is in word a // bank_bytes."""

    banks: int = 32
    bank_bytes: int = 4

    @property
    def wavefront_bytes(self) -> int:
        return self.banks * self.bank_bytes


@dataclass(frozen=True, eq=False)
class Pattern:
    """One access pattern, compiled to its placements.

    Invariants: ``lane_row``, ``lane_col`` and ``lane_bytes`` have shape (placements, lanes); a
    phase with fewer lanes than the widest one is padded by repeating its first lane (a repeated
    lane reads the same words: broadcast, no cost). Every lane is inside the tile and reads a
    power-of-two number of bytes that is a multiple of elem_bytes, aligned to its own size.
    """

    spec: str
    kind: str  # "block" (MxN[:s]), "row", or "phases" (explicit)
    rows: int  # M: rows in one phase's footprint
    cols: int  # N: elements per row in the footprint
    row_stride: int  # s: rows between the footprint's rows
    vector_bytes: int  # V: bytes per lane (the largest one, for explicit phases)
    lower_bound: int
    lane_row: np.ndarray = field(repr=False)
    lane_col: np.ndarray = field(repr=False)
    lane_bytes: np.ndarray = field(repr=False)
    phase_bytes: int = 0  # bytes one (largest) phase reads
    phases_per_placement: int = 1  # hardware phases one placement issues (warp-level kinds)
    summary: str = ""  # what one placement reads, when the footprint fields cannot say it
    coset_bits: tuple | None = None  # warp-level kinds: linear_bits, found from the lanes (warp.coset_bits)

    @property
    def placements(self) -> int:
        return self.lane_row.shape[0]

    def phase_lanes(self, i: int) -> list[tuple[int, int, int]]:
        """The distinct lanes of placement i, in lane order."""
        seen: list[tuple[int, int, int]] = []
        for lane in zip(self.lane_row[i].tolist(), self.lane_col[i].tolist(),
                        self.lane_bytes[i].tolist()):
            if lane not in seen:
                seen.append(lane)
        return seen

    def footprint(self) -> str:
        if self.summary:
            return self.summary
        if self.kind == "phases":
            return "1 explicit phase" if self.placements == 1 else f"{self.placements} explicit phases"
        stride = f", every {self.row_stride} rows" if self.row_stride > 1 else ""
        rows = "1 row" if self.rows == 1 else f"{self.rows} rows"
        cols = "1 element" if self.cols == 1 else f"{self.cols} elements"
        return f"{rows} x {cols}{stride}"

    def linear_bits(self, tile: Tile) -> list[tuple[str, int]] | None:
        """The varying index bits of one phase, when every placement is a coset of one subspace.

        Returns ``[("r", k), ("c", k), ...]`` (row bit k, column bit k) for the bits that vary
        inside a phase, or None when the placements are not all translates of one GF(2)
        subspace of offset bits (non-power-of-two sizes, explicit phases, a shorter last run).
        Then the rank of the layout restricted to these bits decides every placement at once.
        """
        if not tile.pitch_is_pow2:
            # Also for the warp-level kinds, whose coset_bits were found on the pitch they were
            # compiled for: padding re-reads the same patterns on another pitch.
            return None
        if self.kind not in ("block", "row"):
            # (row, col) bits: the same coset under any power-of-two pitch >= cols, where an
            # offset XOR is the row XOR above the column XOR.
            return None if self.coset_bits is None else list(self.coset_bits)
        m, n, s = self.rows, self.cols, self.row_stride
        if not (is_pow2(m) and is_pow2(n) and is_pow2(s)):
            return None
        if self.kind == "row" and tile.cols % n:
            return None
        bits = [("r", log2(s) + k) for k in range(log2(m))]
        bits += [("c", k) for k in range(log2(n))]
        return bits


@dataclass(frozen=True, eq=False)
class Problem:
    tile: Tile
    bank_model: BankModel
    patterns: tuple[Pattern, ...]


# --- construction and parsing -------------------------------------------------------------


def make_tile(rows: int, cols: int, row_length: int | None = None, elem_bytes: int = 4) -> Tile:
    for name, value in (("rows", rows), ("cols", cols), ("elem-bytes", elem_bytes)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise InputError(f"--{name} must be a positive integer, got {value!r}")
    if row_length is None:
        row_length = cols
    if not isinstance(row_length, int) or isinstance(row_length, bool) or row_length < cols:
        raise InputError(f"--row-length {row_length!r} is below --cols {cols}: the pitch must be an "
                         f"integer >= cols (a larger pitch is padding)")
    if not is_pow2(elem_bytes) or elem_bytes > MAX_VECTOR_BYTES:
        raise InputError(f"--elem-bytes {elem_bytes} is not a power of two from 1 to 16: use 1, 2, 4 or 8 "
                         f"(or --dtype)")
    tile = Tile(rows, cols, row_length, elem_bytes)
    if tile.storage_bytes > MAX_STORAGE_BYTES:
        raise InputError(f"tile storage {tile.storage_bytes} B (rows x row-length x elem-bytes) is above the "
                         f"{MAX_STORAGE_BYTES // 1024} KiB limit: analyse one shared-memory tile, not a whole buffer")
    return tile


def make_bank_model(banks: int = 32, bank_bytes: int = 4) -> BankModel:
    for name, value in (("banks", banks), ("bank-bytes", bank_bytes)):
        if not isinstance(value, int) or isinstance(value, bool) or not is_pow2(value):
            raise InputError(f"--{name} must be a power of two (e.g. 32 banks of 4 bytes), got {value!r}")
    if banks > 1024 or bank_bytes > 64:
        raise InputError(f"--banks {banks} x --bank-bytes {bank_bytes} is not a shared-memory bank model: "
                         f"use at most 1024 banks of at most 64 bytes")
    return BankModel(banks, bank_bytes)


def dtype_bytes(dtype: str) -> int | None:
    """Bytes of a named element type (a DTYPES name or an alias), or None if unknown."""
    name = re.sub(r"^(torch|tl|triton\.language|cutlass|cute|np|numpy|dtype)(\.|::)", "", dtype.strip().lower())
    name = name.removesuffix("_t")
    return DTYPES.get(DTYPE_ALIASES.get(name, name))


def elem_bytes_of(dtype: str | None, elem_bytes: int | None) -> int:
    """Resolve --dtype / --elem-bytes (default 4 bytes: one element per bank word)."""
    if dtype is None:
        return 4 if elem_bytes is None else elem_bytes
    size = dtype_bytes(dtype)
    if size is None:
        names = ", ".join(DTYPES)
        raise InputError(f"unknown --dtype {dtype!r}: use one of {names} (or fp16, bfloat16, float32, ...), "
                         f"or --elem-bytes")
    if elem_bytes is not None and elem_bytes != size:
        raise InputError(f"--dtype {dtype} and --elem-bytes {elem_bytes} disagree: give only one")
    return size


# Numbers in specs and names have at most 18 digits (they fit int64; more can only be a typo, and
# Python refuses to read an int of over 4300 digits): a longer one is a malformed spec.
_SPEC = re.compile(r"^(?:(?P<m>\d{1,18})x(?P<n>\d{1,18})(?::(?P<s>\d{1,18}))?|(?P<word>row|col))(?:v(?P<v>\d{1,18}))?$")
_GRAMMAR = ("MxN, MxN:s, row or col, optionally with a vector suffix vB (e.g. 8x4, 4x2:2, row, 8x8v16), "
            "or a warp-level form: warp:RxC:MxN, ldmatrix.x4, stmatrix.x2, mma-c:m16n8")


def default_vector_bytes(run_bytes: int, pitch_bytes: int) -> int:
    """The largest power of two <= 16 dividing both the run and the pitch (aligned in every row)."""
    v = MAX_VECTOR_BYTES
    while run_bytes % v or pitch_bytes % v:
        v //= 2
    return v


def parse_access(spec: str, tile: Tile, bank_model: BankModel) -> Pattern:
    """Compile one `--access` spec into its placements (DESIGN.md section 1)."""
    text = spec.strip().lower()
    match = _SPEC.match(text)
    if not match:
        from .warp import is_warp_spec, parse_warp_access  # warp.py builds on this module

        if is_warp_spec(text):
            return parse_warp_access(spec, tile, bank_model)
        raise InputError(f"malformed access spec {spec!r}: expected {_GRAMMAR}")
    e, pitch_bytes = tile.elem_bytes, tile.row_length * tile.elem_bytes
    word = match["word"]
    if word == "row":
        m, n, s = 1, min(tile.cols, max(1, bank_model.wavefront_bytes // e)), 1
    elif word == "col":
        m, n, s = min(tile.rows, bank_model.banks), 1, 1
    else:
        m, n, s = int(match["m"]), int(match["n"]), int(match["s"] or 1)
        if m < 1 or n < 1:
            raise InputError(f"access {spec!r}: M and N must be at least 1 (M rows x N elements)")
        if s < 1:
            raise InputError(f"access {spec!r}: the row stride s must be at least 1 (MxN:s with s >= 1)")
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
    elif word == "row":
        v = e  # scalar lanes
    else:
        v = default_vector_bytes(n * e, pitch_bytes)
        v = max(v, e)  # an element is never split between lanes
        if (n * e) % v or pitch_bytes % v:
            raise InputError(f"access {spec!r}: {e}-byte elements cannot be read whole with this pitch "
                             f"({pitch_bytes} B)")
    if n > tile.cols or m * s > tile.rows:
        raise InputError(f"access {spec!r}: its footprint ({m * s - s + 1} rows x {n} columns) is larger than the "
                         f"{tile.rows} x {tile.cols} tile: use a smaller block or a larger tile")
    band = m * s
    if tile.rows % band:
        raise InputError(f"access {spec!r}: rows ({tile.rows}) is not a multiple of its band of {band} rows "
                         f"(M*s): use a multiple of {band} rows")
    lanes_per_row = n * e // v
    step = v // e  # elements per lane
    if word == "row":
        rows_, cols_, bytes_ = _row_runs(tile, n, v)
    else:
        rows_, cols_ = _block_placements(tile.rows, tile.cols, m, n, s, step, lanes_per_row)
        bytes_ = np.full_like(rows_, v)
    lower = max(1, -(-(m * n * e) // bank_model.wavefront_bytes))
    return Pattern(spec=spec.strip(), kind="row" if word == "row" else "block", rows=m, cols=n, row_stride=s,
                   vector_bytes=v, lower_bound=lower, lane_row=rows_, lane_col=cols_, lane_bytes=bytes_,
                   phase_bytes=m * n * e)


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


def make_problem(rows: int, cols: int, accesses: list[str], row_length: int | None = None,
                 elem_bytes: int = 4, banks: int = 32, bank_bytes: int = 4,
                 phases_files: list[str] = (), layout_files: list[str] = ()) -> Problem:
    """The whole problem: `--access` specs, the patterns of each `--phases` file, then each
    `--linear-layout` file (their readers are imported only when used)."""
    tile = make_tile(rows, cols, row_length, elem_bytes)
    bank_model = make_bank_model(banks, bank_bytes)
    if not accesses and not phases_files and not layout_files:
        raise InputError("no access pattern given: add at least one --access (e.g. --access 8x4 --access row)")
    from .limits import check_count, check_patterns  # caps on the problem's size, checked as it grows

    check_count(len(accesses) + len(layout_files))
    patterns = []
    for spec in accesses:
        patterns.append(parse_access(spec, tile, bank_model))
        check_patterns(patterns)
    if phases_files:
        from .phases import load_phases

        for path in phases_files:
            patterns += load_phases(path, tile, bank_model)
            check_patterns(patterns)
    if layout_files:
        from .triton_layout import load_linear_layout

        for path in layout_files:
            patterns.append(load_linear_layout(path, tile, bank_model))
            check_patterns(patterns)
    return Problem(tile, bank_model, tuple(patterns))
