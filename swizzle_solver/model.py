"""The problem's types: a tile in shared memory, the hardware, and the access patterns that must be fast.

Everything here follows DESIGN.md section 1. Offsets are in elements unless a name says
bytes. Element (r, c) of the tile has the logical offset ``p = r * row_length + c``; a layout maps
``p`` (or ``(r, c)``) to a physical element offset in a buffer of ``rows * row_length`` elements.

A pattern is compiled once into its placements: every request phase it issues, each a list of
lanes ``(row, col, bytes)`` (the first element a lane reads and how many bytes it reads, contiguous).
The simulator, the search and the proof all read the same placements, so nothing downstream parses
specs again. The parsers that build these types from user input are the access package
(swizzle_solver/access/); the bank geometry and the phase rule are swizzle_solver/hardware.py.
"""
from __future__ import annotations

import numpy as np

from .hardware import Hardware
from .value import Value, field

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


class Tile(Value):
    """A tile as stored: ``rows`` x ``cols`` elements, each row ``row_length`` elements apart, before
    any layout. Every family, the simulator and the proof work on this storage orientation.

    ``order`` (--order) says how the user's tile maps onto it: ``"row"``, the tile itself (element
    (r, c) at ``r * row_length + c``); ``"col"``, its transpose: the user's tile has ``cols`` rows
    and ``rows`` columns and is stored column by column, element (r, c) at storage row c, column r,
    ``c * row_length + r`` (``row_length``, the leading dimension, is then the padded length of a
    column). ``logical`` and ``logical_shape`` translate back for what the user reads.

    ``elem_bits`` (0: whole bytes) is set for elements smaller than a byte (4: fp4, i4, u4): the
    tile is then their packed bytes, elem_bytes 1 and cols, row_length counting bytes
    (access/subbyte.py); every lane and layout addresses whole bytes. Under col order the bytes are
    packed down a column: the stored tile is their transpose, packed along its rows as under row order."""

    rows: int
    cols: int
    row_length: int
    elem_bytes: int
    order: str = "row"
    elem_bits: int = 0
    scalar_bytes: int = 0  # a vector element type (--dtype half2): its scalar's bytes (access/vector_dtype.py); 0: none

    @property
    def col_major(self) -> bool:
        return self.order == "col"

    @property
    def logical_shape(self) -> tuple[int, int]:
        """(rows, cols) of the user's tile."""
        return (self.cols, self.rows) if self.col_major else (self.rows, self.cols)

    def logical(self, row: int, col: int) -> tuple[int, int]:
        """The user's (r, c) of storage element (row, col) (and the storage (row, col) of the user's (r, c):
        the map is its own inverse)."""
        return (col, row) if self.col_major else (row, col)

    @property
    def size(self) -> int:
        """Elements of storage: the domain (and codomain) of every layout."""
        return self.rows * self.row_length

    @property
    def storage_bytes(self) -> int:
        return self.size * self.elem_bytes

    @property
    def offset_bits(self) -> int:
        """Bits of an element offset into the storage (at least 1): an XOR source at or above
        them is always 0."""
        return max(1, (self.size - 1).bit_length())

    @property
    def pitch_is_pow2(self) -> bool:
        return is_pow2(self.row_length)

    def describe(self) -> str:
        pad = "" if self.row_length == self.cols else f" (padded: {self.row_length - self.cols} spare)"
        rows, cols = self.logical_shape
        if self.elem_bits and self.col_major:
            per = 8 // self.elem_bits
            return (f"{rows * per} x {cols} elements of {self.elem_bits} bits, {per} a byte down a column "
                    f"(--order col): {rows} x {cols} bytes, column length {self.row_length}{pad}")
        if self.elem_bits:
            per = 8 // self.elem_bits
            return (f"{self.rows} x {self.cols * per} elements of {self.elem_bits} bits, {per} a byte: "
                    f"{self.rows} x {self.cols} bytes, row length {self.row_length}{pad}")
        if self.scalar_bytes:
            per = self.elem_bytes // self.scalar_bytes
            order = ", column-major (--order col), column length" if self.col_major else ", row length"
            return (f"{rows} x {cols} elements of {self.elem_bytes} B ({per} scalars of {self.scalar_bytes} B each)"
                    f"{order} {self.row_length}{pad}")
        if self.col_major:
            return (f"{rows} x {cols} elements of {self.elem_bytes} B, column-major (--order col), "
                    f"column length {self.row_length}{pad}")
        return (f"{rows} x {cols} elements of {self.elem_bytes} B, "
                f"row length {self.row_length}{pad}")


class Pattern(Value, eq=False):
    """One access pattern, compiled to its placements.

    Invariants: ``lane_row``, ``lane_col`` and ``lane_bytes`` have shape (placements, lanes); a
    phase with fewer lanes than the widest one is padded by repeating its first lane (a repeated
    lane reads the same words: broadcast, no cost). Every lane is inside the tile and reads a
    power-of-two number of bytes that is a multiple of elem_bytes, aligned to its own size (or, for
    AMD's 12-byte ds_read_b96/ds_write_b96 lanes, 3 dwords aligned to a dword).
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
    coset_bits: tuple | None = None  # warp-level kinds: linear_bits, found from the lanes (access.warp)
    banks: int = 0  # the instruction's bank count when it is not the target's (gfx950 writes: 32); 0: the target's
    instruction_phases: int = 0  # instruction-level forms: phases of one instruction (its cost sums them); 0: none
    warnings: tuple[str, ...] = ()  # unverified hardware cells this pattern relies on (hardware.Rule.warning)
    op: str = ""  # instruction-level forms: the instruction (hardware.Rule.op)
    # "col": compiled for a column-major tile (--order col, access.order): the lanes are in storage
    # orientation, the footprint fields (rows, cols, row_stride) are the user's, and coset_bits
    # (in storage orientation) is the only source of linear_bits
    order: str = "row"
    # "store" / "load": the direction the user named (``store:warp:...``, access.direction); "": the
    # form's own (an instruction's, mma-c a store, every other form a load)
    direction: str = ""
    # instruction-level forms issued by several waves of the workgroup together (``OP:RxC:wN``): N
    # waves, wave w issuing the w-th N-th of the instructions in placement order, one per round
    # (simulate.partition_conflicts; only on a target with LDS partitions, hardware.LdsPartitions)
    waves: int = 1

    @property
    def instruction_lower_bound(self) -> int:
        """The lower bound in the pattern's reported unit: per instruction (the sum over its phases,
        each at least ``lower_bound``) for instruction-level forms, else per phase."""
        return self.lower_bound * max(1, self.instruction_phases)

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

    def linear_bits(self, tile: Tile) -> list[tuple] | None:
        """The varying index bits of one phase, when every placement is a coset of one subspace.

        Returns ``[("r", k), ("c", k), ...]`` (row bit k, column bit k; ("x", row mask, col mask) for an
        XOR of them, AMD's non-contiguous phases: access.warp.coset_span) for the bits that vary
        inside a phase, or None when the placements are not all translates of one GF(2)
        subspace of offset bits (non-power-of-two sizes, explicit phases, a shorter last run).
        Then the rank of the layout restricted to these bits decides every placement at once.
        """
        if not tile.pitch_is_pow2:
            # Also for the warp-level kinds, whose coset_bits were found on the pitch they were
            # compiled for: padding re-reads the same patterns on another pitch.
            return None
        if self.kind not in ("block", "row") or self.order == "col":
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


class Problem(Value, eq=False):
    tile: Tile
    hardware: Hardware  # the target: banks, wavefront, phase rules, capabilities
    patterns: tuple[Pattern, ...]
