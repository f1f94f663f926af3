"""A partitioned allocation: the tile split across gfx1250's LDS partitions (Triton's PartitionedSharedLayout).

On a target with LDS partitions (hardware.LdsPartitions: 64 KiB each on gfx1250, partition of byte
a = a // 64 KiB), two waves that issue one instruction together contend when they touch a common
partition (simulate.partition_conflicts). A layout inside one buffer cannot help when the buffer is
smaller than a partition: every wave then reads the same one. Triton's answer is an allocation
split across partitions, ``#ttg.partitioned_shared`` (TritonGPUAttrDefs.td,
PartitionedSharedEncodingAttr; Gluon ``PartitionedSharedLayout``):

    the tile is cut along ``partitionDim`` into numPartitions * numGroups pieces; piece i goes to
    partition buffer i % numPartitions, at position i // numPartitions in it; each piece has the
    same inner layout (``partitionLayout``); the buffers are placed in different physical
    partitions (Allocation.cpp: a partition neighbour is bumped to the next partition boundary).

Here the pieces are runs of ``piece_rows`` stored rows (partitionDim 0 of a row-major tile, 1 under
--order col), buffer p starts at p * 64 KiB (the allocator's placement of a lone partitioned
allocation), and the inner layout is the answer's own on the first piece, used only when the
answer repeats it on every piece (phys[r + piece_rows, c] = phys[r, c] + piece elements: XOR
swizzles on row bits below the piece, row padding), so the bank counts of the alternative are the
simulator's on the same tables. Nothing here is a new hardware model: the partition of an address
and the pairs are hardware.py's, the counts simulate.py's.
"""
from __future__ import annotations

import numpy as np

from . import simulate
from .model import Problem
from .value import Value, field


class Partitioned(Value):
    """One partitioned allocation of the tile and what the simulator measures under it."""

    num_partitions: int
    num_groups: int
    piece_rows: int  # stored rows of one piece
    table: np.ndarray = field(repr=False)  # element offsets from the start of the LDS, partition bases included
    counts: tuple = ()  # simulate.PartitionCount (or None) per pattern
    results: tuple = ()  # simulate.AccessResult per pattern (the bank counts)

    @property
    def conflicting(self) -> int:
        return sum(c.conflicting for c in self.counts if c is not None)


def periodic(phys: np.ndarray, piece_rows: int, row_length: int) -> bool:
    """The layout repeats on every run of ``piece_rows`` rows, shifted by the run's elements, and keeps
    the first run inside its own ``piece_rows * row_length`` elements: each piece can use it."""
    rows = phys.shape[0]
    first = phys[:piece_rows]
    if int(first.min()) < 0 or int(first.max()) >= piece_rows * row_length:
        return False
    runs = phys.reshape(rows // piece_rows, piece_rows, -1)
    shifts = (np.arange(rows // piece_rows) * piece_rows * row_length)[:, None, None]
    return bool(np.array_equal(runs, first[None] + shifts))


def partitioned_table(phys: np.ndarray, partition_elems: int, num_partitions: int, piece_rows: int,
                      row_length: int) -> np.ndarray:
    """Element (r, c) of piece i = r // piece_rows: partition p = i % P, group g = i // P, at
    p * partition_elems + g * piece_elems + phys[r % piece_rows, c] (TritonGPUAttrDefs.td's rule)."""
    piece = np.arange(phys.shape[0]) // piece_rows
    base = (piece % num_partitions) * partition_elems + (piece // num_partitions) * piece_rows * row_length
    return base[:, None] + phys[np.arange(phys.shape[0]) % piece_rows]


def candidates(problem: Problem, phys: np.ndarray):
    """(P, G, piece_rows) of the partitioned allocations the target can hold, fewest pieces first:
    P = 2 or 4 partitions (a power of two, Triton's verifier; at most the target's count), G
    groups, each buffer (G pieces) within one partition, the answer repeating on every piece."""
    parts, tile = problem.hardware.lds_partitions, problem.tile
    assert parts is not None
    for pieces in (2, 4, 8, 16, 32, 64):
        for p in (2, 4):
            g = pieces // p
            if g < 1 or p > parts.count or tile.rows % pieces:
                continue
            piece_rows = tile.rows // pieces
            if g * piece_rows * tile.row_length * tile.elem_bytes > parts.partition_bytes:
                continue
            if periodic(phys, piece_rows, tile.row_length):
                yield p, g, piece_rows


def measure(problem: Problem, phys: np.ndarray, p: int, g: int, piece_rows: int) -> Partitioned:
    parts, tile, hw = problem.hardware.lds_partitions, problem.tile, problem.hardware
    assert parts is not None
    table = partitioned_table(phys, parts.partition_bytes // tile.elem_bytes, p, piece_rows, tile.row_length)
    counts = tuple(simulate.partition_conflicts(tile, hw, pat, table) for pat in problem.patterns)
    return Partitioned(num_partitions=p, num_groups=g, piece_rows=piece_rows, table=table, counts=counts,
                       results=tuple(simulate.simulate(tile, hw, problem.patterns, table)))


def multi_wave(problem: Problem) -> bool:
    """The problem has an access issued by several waves on a target with LDS partitions."""
    return problem.hardware.lds_partitions is not None and any(p.waves > 1 for p in problem.patterns)


def alternative(problem: Problem, phys: np.ndarray) -> Partitioned | None:
    """The partitioned allocation with the fewest pieces that leaves no partition conflict (and the
    answer's bank counts), or None: none is needed (no conflict under ``phys``), or none the
    target can hold removes them."""
    if not multi_wave(problem):
        return None
    plain = [simulate.partition_conflicts(problem.tile, problem.hardware, p, phys) for p in problem.patterns]
    if all(c is None or c.free for c in plain):
        return None
    for p, g, piece_rows in candidates(problem, phys):
        found = measure(problem, phys, p, g, piece_rows)
        if found.conflicting == 0:
            return found
    return None


class PartitionXor(Value):
    """The other fix, in one buffer: the layout with one row bit XORed into an offset bit that picks a
    partition (element offset bit ``offset_bit``, at or above 64 KiB). That bit is far above the bank
    bits (a word's bank is its low 5 or 6 bits), so the banks of every access stay as they were (the
    simulator's counts say so); only which partition a row lands in changes."""

    offset_bit: int
    row_bit: int
    table: np.ndarray = field(repr=False)
    counts: tuple = ()
    results: tuple = ()

    @property
    def conflicting(self) -> int:
        return sum(c.conflicting for c in self.counts if c is not None)


def xor_candidates(problem: Problem, phys: np.ndarray):
    """(offset bit, row bit) pairs: an offset bit that picks a partition and lies inside the buffer (a
    power of two of elements, so the XOR stays inside it), each stored row bit."""
    parts, tile = problem.hardware.lds_partitions, problem.tile
    assert parts is not None
    size = int(phys.max()) + 1
    top = (size - 1).bit_length()
    low = (parts.partition_bytes // tile.elem_bytes).bit_length() - 1
    if size != 1 << top:
        return
    for bit in range(low, top):
        for row_bit in range((tile.rows - 1).bit_length()):
            yield bit, row_bit


def xor_alternative(problem: Problem, phys: np.ndarray) -> PartitionXor | None:
    """The single row-bit XOR into a partition bit that leaves the fewest partition conflicts (none
    needed, or none helps: None); first found among equals (lowest offset bit, then row bit)."""
    if not multi_wave(problem):
        return None
    tile, hw = problem.tile, problem.hardware
    now = sum(c.conflicting for c in (simulate.partition_conflicts(tile, hw, p, phys) for p in problem.patterns)
              if c is not None)
    best: PartitionXor | None = None
    rows = np.arange(tile.rows)[:, None]
    for bit, row_bit in xor_candidates(problem, phys) if now else ():
        table = phys ^ (((rows >> row_bit) & 1) << bit)
        if not simulate.is_injective(tile, table, int(phys.max()) + 1):
            continue
        counts = tuple(simulate.partition_conflicts(tile, hw, p, table) for p in problem.patterns)
        found = PartitionXor(offset_bit=bit, row_bit=row_bit, table=table, counts=counts)
        if found.conflicting < (now if best is None else best.conflicting):
            best = found
            if found.conflicting == 0:
                break
    if best is None:
        return None
    return PartitionXor(offset_bit=best.offset_bit, row_bit=best.row_bit, table=best.table, counts=best.counts,
                        results=tuple(simulate.simulate(tile, hw, problem.patterns, best.table)))
