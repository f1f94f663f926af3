"""What decides an XOR-linear member (cute, two-level, linear) on one problem, for the later
families' searches (extended.py) and z3 (smt.py): the acceptance oracle (``XorOracle``: lane
differences of separation.py, then soundness and what the differences do not cover), and why a
refuted member failed (``conflict_bits``, ``conflict_lemmas``: the cores and lemmas z3 learns).
"""
from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import numpy as np

from . import simulate
from .candidate import vector_elems
from .floors import floor_excess, targets
from .layout import OffsetXor, layout_table
from .model import Problem, log2
from .proof import bank_matrix
from .separation import separations, slot_bits, units
from .soundness import sound
from .value import Value

LEMMAS_PER_PATTERN = 4  # failing placements explained per refuted model (smt.min_linear's lemmas)
LEMMA_MAX_UNITS = 96  # a lemma grows with the square of a placement's units: wider ones get none (a 256-byte
# phase has 64 units, up to 80 when its rows straddle words; a 512-byte one, 128, was too heavy for z3)


class XorOracle:
    """Accepts an XOR-linear member when it reaches every pattern's target: its lower bound, or its
    floor (floors.py) when that is above. A member at every target leaves exactly ``excess`` (0
    without floors), the least any admissible layout can. Patterns at their lower bound with a
    separation (``seps``) are decided by their lane differences; the ``rest`` (no separation, or
    bound by a floor: a separation asks for one wavefront) by GF(2) or the simulator."""

    def __init__(self, problem: Problem):
        self.problem = problem
        seps = separations(problem.tile, problem.hardware, problem.patterns)
        self.target, self.excess = targets(problem), floor_excess(problem)
        at_bound = [self.target[p] == p.lower_bound for p in problem.patterns]
        self.seps = [s for s, b in zip(seps, at_bound) if s is not None and b]
        self.rest = [p for p, s, b in zip(problem.patterns, seps, at_bound) if s is None or not b]
        self.top = problem.tile.offset_bits
        self.vector_bits = log2(vector_elems(problem))

    def separates(self, layout: OffsetXor) -> bool:
        return all(s.holds(layout.apply) for s in self.seps)

    def refute(self, layout: OffsetXor) -> bool:
        """True when the layout is not a member at every target (checks what the separations omit):
        not sound (soundness.py), or a pattern without a separation above its target (GF(2) bank
        matrix where it applies, else the simulator)."""
        tile, banks = self.problem.tile, self.problem.hardware
        checked = sound(tile, layout, self.problem.patterns)
        if checked is None:
            return True
        table = checked.table
        bases = layout.bases(tile) if self.rest else None
        for pattern in self.rest:
            matrix = bank_matrix(tile, banks, pattern, bases)
            if matrix is not None:
                worst = matrix.wavefronts
            else:
                worst = simulate.simulate(tile, banks, [pattern], table)[0].worst
            if worst > self.target[pattern]:
                return True
        return False

    def accept(self, layout: OffsetXor) -> bool:
        return self.separates(layout) and not self.refute(layout)

    def slot_targets(self) -> list[int]:
        """The bits a linear member may XOR into: every pattern's slot bits above the vectors."""
        tile, banks = self.problem.tile, self.problem.hardware
        return sorted({b for p in self.problem.patterns for b in slot_bits(tile, banks, p) if b >= self.vector_bits})

    def covered(self) -> str:
        parts = [f"{s.pattern.spec} ({len(s.diffs)} lane differences)" for s in self.seps]
        parts += [f"{p.spec} (simulated)" for p in self.rest]
        return ", ".join(parts)


def conflict_bits(oracle: XorOracle, layout: OffsetXor) -> set[int] | None:
    """For a layout refute() rejected on a pattern without a separation: the offset bits set in
    the lanes of one placement it serves above the lower bound (the placement setting the fewest).
    Every linear member that agrees with it on the XOR terms from these bits moves those lanes
    alike, so it fails the same way (smt.min_linear blocks them all). None when the rejection
    is not one placement's (the layout is not a bijection)."""
    problem = oracle.problem
    tile = problem.tile
    if layout.invalid(tile) is not None:
        return None
    table = layout_table(tile, layout)
    used = []  # per failing placement: the OR of its lanes' logical offsets
    for pattern in oracle.rest:
        costs = simulate.simulate(tile, problem.hardware, [pattern], table)[0].costs
        failing = np.flatnonzero(costs > oracle.target[pattern])
        rows, cols = simulate.lane_elements(tile, pattern)
        offsets = rows[failing] * tile.row_length + cols[failing]  # (failing, lanes, elements)
        used += np.bitwise_or.reduce(np.bitwise_or.reduce(offsets, axis=2), axis=1).tolist()
    if not used:
        return None
    fewest = min(used, key=lambda bits: bin(bits).count("1"))
    return {b for b in range(fewest.bit_length()) if fewest >> b & 1}


def conflict_lemmas(oracle: XorOracle, layout: OffsetXor) -> list[tuple[int, int, int, tuple[int, ...]]] | None:
    """For a layout refute() rejected: why, as conditions every member at the targets meets and
    this one breaks; None when a rejection has no such reason (not a bijection, lanes of mixed
    sizes) or when a placement has more than LEMMA_MAX_UNITS units.

    A placement costs the most distinct units in one slot (separation.units), and a linear
    member puts units a and b in one slot iff slot(L(a ^ b)) == 0. So every member at the
    targets meets, for each placement: no slot holds more than T (the target) of its units.
    One lemma (u, slot mask, T, the placement's distinct units) per failing placement, up to
    LEMMAS_PER_PATTERN; smt.min_linear adds them, so a refuted model excludes exactly the
    members that fail on the same placements."""
    problem = oracle.problem
    tile, hardware = problem.tile, problem.hardware
    if layout.invalid(tile) is not None:
        return None
    table = layout_table(tile, layout)
    lemmas = set()
    for pattern in oracle.rest:
        target = oracle.target[pattern]
        costs = simulate.simulate(tile, hardware, [pattern], table)[0].costs
        failing = np.flatnonzero(costs > target)[:LEMMAS_PER_PATTERN]
        if not failing.size:
            continue
        unit = units(tile, hardware, pattern)
        if unit is None:
            return None
        u, slot_mask = unit
        rows, cols = pattern.lane_row[failing], pattern.lane_col[failing]  # each lane's first element
        for offsets in ((rows * tile.row_length + cols) >> u << u).tolist():
            placement_units = tuple(sorted(set(offsets)))
            if len(placement_units) > LEMMA_MAX_UNITS:
                return None
            lemmas.add((u, slot_mask, target, placement_units))
    return sorted(lemmas) or None


class Later(Value):
    """What each later family's search (``Family.search``) is given besides the problem and the
    budget (extended.later_of makes it)."""

    oracle: XorOracle  # decides XOR-linear members (two-level, linear; padding's target)
    engine: str | None  # "smt" or "enum" for every family that has both; None: each family's own (Family.engine)
    base: Callable  # the base search's first_conflict_free (search.py), for padding's swizzled pitches
    smt: Callable[[], ModuleType]  # smt.py (z3), imported on first call (it builds on the families' layouts)
    every_member: Callable  # extended.every_member: every listed member simulated (so a family's module need not import the walker)

    def engine_of(self, family) -> str:
        return self.engine or family.engine
