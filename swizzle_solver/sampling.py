"""Many members of a family evaluated at once: their simulated worst over a sample of placements
(numpy, one row per member), the bound the base search and the two-level screen start from.
"""
from __future__ import annotations

import numpy as np

from . import simulate
from .families import phys_many
from .layout import Family, Layout
from .model import Pattern, Problem, Tile

SAMPLE_PLACEMENTS = 8  # placements simulated to bound a member where no one placement decides
BATCH_ELEMENTS = 1 << 21  # lane elements simulated in one numpy batch (about 16 MiB of offsets)


def simulated_worst(problem: Problem, layout: Layout, pattern: Pattern, placements: np.ndarray | None = None) -> int:
    """One member's simulated worst over ``placements`` (default all) of ``pattern``."""
    fn = lambda r, c: layout.phys(problem.tile, r, c)  # noqa: E731
    words = simulate.lane_words(problem.tile, problem.hardware, pattern, fn, placements)
    return int(simulate.pattern_costs(problem.tile, problem.hardware, pattern, words).max())


def sampled_worsts(problem: Problem, family: Family, params: list[tuple] | np.ndarray, pattern: Pattern,
                   placements: np.ndarray) -> np.ndarray:
    """The simulated worst over some placements of each member of a family (given by its grid
    ``params``), a batch of members at a time."""
    tile, hardware = problem.tile, problem.hardware
    rows, cols = simulate.lane_elements(tile, pattern)
    rows, cols = rows[placements], cols[placements]
    step = max(1, BATCH_ELEMENTS // rows.size)
    out = [np.zeros(0, dtype=np.int64)]
    for start in range(0, len(params), step):
        batch = params[start:start + step]
        offsets = phys_many(family, batch, tile, rows, cols)
        offsets = np.broadcast_to(offsets, (len(batch), *rows.shape)).reshape(len(batch) * len(placements), -1)
        words = simulate.words_of(tile, hardware, offsets)
        out.append(simulate.pattern_costs(tile, hardware, pattern, words).reshape(len(batch), -1).max(axis=1))
    return np.concatenate(out)


def one_placement_decides(tile: Tile, pattern: Pattern) -> bool:
    """Every placement of ``pattern`` costs the same under any GF(2)-linear layout: the placements
    are cosets x0 + V of one subspace of offset bits (power-of-two pitch), a linear layout maps
    them to translates L(x0) ^ L(V), and XOR by a constant permutes words and banks alike."""
    return tile.pitch_is_pow2 and pattern.linear_bits(tile) is not None


def placement_sample(tile: Tile, pattern: Pattern) -> np.ndarray:
    """The placements that bound a member's worst: the first, when it decides them all, else a
    spread of SAMPLE_PLACEMENTS."""
    if one_placement_decides(tile, pattern):
        return np.array([0])
    spread = np.linspace(0, pattern.placements - 1, min(pattern.placements, SAMPLE_PLACEMENTS)).astype(np.int64)
    return np.array(sorted(set(spread.tolist())), dtype=np.int64)  # not np.unique: it imports numpy.ma (16 ms)
