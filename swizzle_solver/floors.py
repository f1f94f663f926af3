"""Floors: wavefronts that no admissible layout can go below, beyond DESIGN.md's byte-count bound.

An admissible layout keeps every V-byte vector of every pattern contiguous and V-aligned (DESIGN.md
section 1; the buffer is aligned). So byte o of a vector stays byte o of some V-aligned chunk, its
word stays at word position o // bank_bytes of that chunk, and that word's bank,

    (chunk * V / bank_bytes + o // bank_bytes) mod banks,

takes only S = banks * bank_bytes / V values as the chunk varies (at least 1). Distinct vectors land
in distinct chunks, whatever the layout. Hence a phase whose lanes touch n distinct vectors at one
word position is served in at least ceil(n / S) wavefronts under every admissible layout: a column
read from a tile whose rows are also read as 16-byte vectors (32 rows at word 0 of their vectors,
8 chunks of 16 B per wavefront) costs at least 4, swizzled or padded however.

A floor above a pattern's lower bound says that no layout in any family can make it conflict-free
while the vectors stay as wide as they are; when the answer meets every floor it is the best any
admissible layout can do.
"""
from __future__ import annotations

import weakref

import numpy as np

from . import simulate
from .model import Problem
from .value import Value


class Floor(Value):
    wavefronts: int  # ceil(vectors / slots)
    vectors_of: str  # spec of the pattern whose vectors force it
    vector_bytes: int  # V
    slots: int  # S: chunks of V bytes one wavefront serves at one word position
    vectors: int  # n: distinct vectors one phase touches at one word position
    word_position: int  # that position, in bank words from the start of the vector

    def json(self) -> dict:
        return {"wavefronts": self.wavefronts, "vectors_of": self.vectors_of, "vector_bytes": self.vector_bytes,
                "slots_per_wavefront": self.slots, "vectors_at_one_position": self.vectors,
                "word_position": self.word_position}


def vector_runs(problem: Problem, q) -> tuple[np.ndarray, np.ndarray] | None:
    """For every element of the tile: the first element (flat index r * cols + c) of the vector of
    ``q`` that covers it, or -1, and its byte position in that vector. Only q's widest lanes count
    (V = q.vector_bytes), and only when a vector spans more than one bank word. None when two
    vectors of q overlap at different positions (then no layout keeps both whole)."""
    tile, bb = problem.tile, problem.hardware.bank_bytes
    v = q.vector_bytes
    if v <= bb or v & (v - 1):
        return None  # one word per vector: its position fixes nothing; b96 (3 words): no slot view
    wide = q.lane_bytes == v
    rows, cols = q.lane_row[wide], q.lane_col[wide]  # first element of each vector
    k = np.arange(v // tile.elem_bytes)
    start = rows * tile.cols + cols
    flat = (start[:, None] + k).ravel()
    first = np.full(tile.rows * tile.cols, -1, dtype=np.int64)
    first[flat] = np.repeat(start, k.size)
    if not np.array_equal(first[flat], np.repeat(start, k.size)):
        return None
    position = np.zeros_like(first)
    position[flat] = np.tile(k * tile.elem_bytes, start.size)
    return first.reshape(tile.rows, tile.cols), position.reshape(tile.rows, tile.cols)


def floor_of(problem: Problem, p, q, runs: tuple[np.ndarray, np.ndarray]) -> Floor:
    """The floor the vectors of ``q`` (``runs``: their vector_runs) put on pattern ``p``."""
    counts, slots = _vector_counts(problem, p, q, runs)
    placement, position = np.unravel_index(int(counts.argmax()), counts.shape)
    most = int(counts[placement, position])
    return Floor(-(-most // slots), q.spec, q.vector_bytes, slots, most, int(position))


def placement_floors(problem: Problem, p, q, runs: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """The floor the vectors of ``q`` put on each placement (phase) of ``p``: ceil(n / S) with n the
    most vectors that phase touches at one word position (``floor_of`` is the highest)."""
    counts, slots = _vector_counts(problem, p, q, runs)
    return -(-counts.max(axis=1) // slots)


def _vector_counts(problem: Problem, p, q, runs: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, int]:
    """Per placement of ``p`` and word position: the distinct vectors of ``q`` it touches there;
    and S, the chunks one wavefront serves at one position."""
    tile, hardware = problem.tile, problem.hardware.serving(p.banks)
    bb, v = hardware.bank_bytes, q.vector_bytes
    geometry = hardware.geometry(tile.elem_bytes, v)  # a vector is a unit (v > bb: vector_runs)
    positions = geometry.unit_words  # word positions in one vector
    rows, cols = simulate.lane_elements(tile, p)  # (placements, lanes, elements per lane)
    n = rows.shape[0]
    first, byte = runs[0][rows, cols].reshape(n, -1), runs[1][rows, cols].reshape(n, -1)
    span = hardware.element_words(tile.elem_bytes)  # words one element covers
    word = (byte // bb)[..., None] + np.arange(span)  # word position of each word of each element
    vector = np.broadcast_to(first[..., None], word.shape)
    word, vector = word.reshape(n, -1), vector.reshape(n, -1)
    # distinct (vector, word position) per placement; uncovered elements (vector -1) are left out
    key = np.sort(np.where(vector >= 0, vector * positions + word, -1), axis=1)
    new = np.ones(key.shape, dtype=bool)
    new[:, 1:] = key[:, 1:] != key[:, :-1]
    new &= key >= 0
    slot = key % positions + (np.arange(n) * positions)[:, None]
    return np.bincount(slot[new], minlength=n * positions).reshape(n, positions), geometry.slots


_FLOORS: weakref.WeakKeyDictionary[Problem, tuple] = weakref.WeakKeyDictionary()


def floors(problem: Problem) -> list[Floor | None]:
    """Per pattern, its highest floor when it is above the pattern's lower bound, else None
    (computed once per problem: the search and the report both ask)."""
    cached = _FLOORS.get(problem)
    if cached is None:
        vectors = [(q, runs) for q in problem.patterns if (runs := vector_runs(problem, q)) is not None]
        out = []
        for p in problem.patterns:
            best = max((floor_of(problem, p, q, runs) for q, runs in vectors), key=lambda f: f.wavefronts,
                       default=None)
            out.append(best if best is not None and best.wavefronts > p.lower_bound else None)
        cached = _FLOORS[problem] = tuple(out)
    return list(cached)


def targets(problem: Problem) -> dict:
    """Per pattern, the least worst any admissible layout gives it: its floor, else its lower bound."""
    return {p: f.wavefronts if f else p.lower_bound for p, f in zip(problem.patterns, floors(problem))}


def floor_excess(problem: Problem) -> int:
    """The least total excess (sum over patterns of worst - lower bound, in the unit the output
    reports: simulate.AccessResult.excess) any admissible layout leaves. For an instruction-level
    pattern the unit is one instruction: each of its phases costs at least that phase's own floor
    (and its lower bound), so the least is the worst instruction's sum of them."""
    total = 0
    for p, worst in targets(problem).items():
        if p.instruction_phases <= 1 or worst == p.lower_bound:
            total += worst - p.lower_bound
        else:
            total += _instruction_floor(problem, p)
    return total


_INSTRUCTION_FLOORS: weakref.WeakKeyDictionary[Problem, dict] = weakref.WeakKeyDictionary()


def _instruction_floor(problem: Problem, p) -> int:
    """The least excess of instruction-level pattern ``p`` per instruction: the most, over its
    instructions, of the sum over their phases of (the phase's floor - its lower bound)."""
    known = _INSTRUCTION_FLOORS.setdefault(problem, {})
    if p not in known:
        each = np.full(p.placements, p.lower_bound, dtype=np.int64)
        for q in problem.patterns:
            runs = vector_runs(problem, q)
            if runs is not None:
                each = np.maximum(each, placement_floors(problem, p, q, runs))
        known[p] = int((each - p.lower_bound).reshape(-1, p.instruction_phases).sum(axis=1).max())
    return known[p]
