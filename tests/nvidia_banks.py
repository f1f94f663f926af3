"""A bank counter written from NVIDIA's rules as docs/hardware.md states them (DESIGN.md sections 1
and 7), for the tests that hold `swizzle_solver.kernel` to real kernels: independent of the
package's simulator (tests/test_kernel_measured.py checks it against the H100's measurements).

- a warp instruction's lanes are served in phases by lane id: 4-byte lanes or less all 32 at once,
  8-byte lanes 16 at a time, 16-byte lanes 8 at a time; ldmatrix/stmatrix one 8 x 16-byte matrix
  (the row addresses of lanes 8i .. 8i+7) at a time;
- a load by the whole warp in which every lane reads what lane n^1 reads, or every lane what lane
  n^2 reads, has its 8- and 16-byte phases merged two by two (paired loads);
- a phase costs the most distinct 4-byte words in one of the 32 banks (the same word: broadcast),
  and ideally one wavefront per 128 distinct bytes (at least one).
"""
from __future__ import annotations

from collections import defaultdict

WARP = 32


def phase_cost(starts: list[int], width: int) -> tuple[int, int]:
    """(wavefronts, ideal) of lanes served together, each reading ``width`` bytes at its start."""
    words = {(a + b) // 4 for a in starts for b in range(width)}
    per_bank: dict[int, int] = defaultdict(int)
    for w in words:
        per_bank[w % 32] += 1
    nbytes = len({a + b for a in starts for b in range(width)})
    return max(per_bank.values()), max(1, -(-nbytes // 128))


def lane_phases(lanes: list[int], width: int, load: bool) -> list[list[int]]:
    """One warp instruction's lanes (byte addresses in lane order, -1: inactive) as the groups served
    together (see the module's docstring)."""
    size = {1: 32, 2: 32, 4: 32, 8: 16, 16: 8}[width]
    whole = len(lanes) == WARP and all(a >= 0 for a in lanes)
    if load and width in (8, 16) and whole and any(all(lanes[n] == lanes[n ^ k] for n in range(WARP))
                                                   for k in (1, 2)):
        size *= 2
    groups = [[a for a in lanes[i:i + size] if a >= 0] for i in range(0, len(lanes), size)]
    return [g for g in groups if g]


def instruction_cost(lanes: list[int], width: int, load: bool) -> tuple[int, int]:
    """(wavefronts, ideal) of one warp instruction of ``width``-byte lanes."""
    wavefronts = ideal = 0
    for g in lane_phases(lanes, width, load):
        w, i = phase_cost(g, width)
        wavefronts, ideal = wavefronts + w, ideal + i
    return wavefronts, ideal


def matrix_cost(rows: list[int], matrices: int) -> tuple[int, int]:
    """(wavefronts, ideal) of one ldmatrix/stmatrix .x1/.x2/.x4: lanes 8i .. 8i+7 address matrix i's rows."""
    wavefronts = ideal = 0
    for i in range(matrices):
        w, d = phase_cost(rows[8 * i:8 * i + 8], 16)
        wavefronts, ideal = wavefronts + w, ideal + d
    return wavefronts, ideal
