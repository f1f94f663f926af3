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
