"""The base search for the minimal layout over none / cute / xor-cols (DESIGN.md section 2), in
the order of ``candidate.Candidate.rank_key``.

Two paths:

1. *First conflict-free member* (``first_conflict_free``). Excess 0 beats everything, so when some
   member of none / cute / xor-cols reaches every lower bound, the answer is the first such
   member in family order. All members of a family are screened at once (numpy, one row per
   member): exactly by the lane differences of separation.py where the layout is XOR-linear on
   offsets and the pattern fits one wavefront, else by simulating a few placements (one is
   enough where every placement is a coset of the same offset bits: the GF(2) bank matrix is
   then the same for all). A screen only ever rejects members that do conflict; the sound members
   it passes are simulated whole, in order, and the first conflict-free one is the answer.
2. *Branch and bound* (``search_family``), for the candidates table and when nothing is
   conflict-free: every member gets a lower bound on each pattern's worst cost, in numpy batches
   of members: exact from the first placement where one placement decides them all
   (``one_placement_decides``), else the simulated worst over a spread sample of placements. The
   batches go in family order, and members bounded at 0 are measured as they come: once k are
   conflict-free they are the family's best k (no excess is below 0). Otherwise, with every
   member bounded, candidates are taken in (bound, order), evaluated exactly until the next bound
   is worse than the family's k-th best, and the best k are kept.
   After path 1 it runs only when the caller asks for the candidates table (solving.py), and must
   find the same answer (a disagreement raises).

Every member passes the soundness check (soundness.py: a bijection that keeps vectors whole)
before it is measured. solving.py orchestrates this search and the later families (extended.py).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from .budget import Budget
from .candidate import KEEP_PER_FAMILY, Candidate, FamilyReport, found, measure, per_instruction, vector_elems
from .families import apply_many, base
from .layout import Family, Layout
from .model import Problem, Tile
from .sampling import (
    BATCH_ELEMENTS,
    one_placement_decides,
    placement_sample,
    sampled_worsts,
    simulated_worst,
)
from .soundness import sound


def screened(family: Family, tile: Tile, elems: int) -> tuple[list[tuple], Callable[..., Layout]]:
    """The family's members as parameter tuples (its ``grid``) and the layout of one tuple (``make``):
    what the batch screening needs, which every family searched on every solve has."""
    if family.grid is None or family.make is None:
        raise ValueError(f"the {family.name} family has no parameter grid: it cannot be searched on every solve")
    return list(family.grid(tile, elems)), family.make


class Screen:
    """What every member of a family is screened against, built once per problem.

    Patterns with a separation (separation.py) are decided exactly, all at once: their lane
    differences are concatenated, each with its pattern's unit shift and slot mask, and a member
    XOR-linear on offsets passes iff it sends none of them to slot 0. The other patterns (and
    families that are not XOR-linear on offsets) are screened by simulating a few placements:
    one where every placement is a coset of the same offset bits under a GF(2)-linear layout
    (power-of-two pitch), as they then all cost the same; else a spread sample.

    ``target`` (default: every lower bound) is what each pattern must reach; a pattern whose target
    is above its lower bound (a floor, floors.py) is screened by sampling, as a separation asks for
    one wavefront.
    """

    def __init__(self, problem: Problem, target: dict | None = None):
        from .separation import separations

        self.problem = problem
        self.target = target or {p: p.lower_bound for p in problem.patterns}
        seps = [s if s is not None and self.target[p] == p.lower_bound else None
                for p, s in zip(problem.patterns, separations(problem.tile, problem.hardware, problem.patterns))]
        found = [s for s in seps if s is not None]
        empty = [np.zeros(0, dtype=np.int64)]
        self.diffs = np.concatenate(empty + [s.diffs for s in found])
        self.unit_shift = np.concatenate(empty + [np.full(s.diffs.size, s.unit_shift) for s in found])
        self.slot_mask = np.concatenate(empty + [np.full(s.diffs.size, s.slot_mask) for s in found])
        self.separated = [s is not None for s in seps]

    def passes(self, family: Family, params: list[tuple]) -> np.ndarray:
        """Per member: False when it certainly misses a target; True when it may reach them all."""
        xor_linear = family.apply_many is not None  # XOR-linear on offsets: the lane differences decide
        passed = np.ones(len(params), dtype=bool)
        if not params:
            return passed
        if xor_linear and self.diffs.size:
            step = max(1, BATCH_ELEMENTS // self.diffs.size)  # members x differences: bounded temporaries
            # offsets have at most 19 bits: in uint32 (where a family's apply_many takes it) numpy shifts faster
            diffs, shift, mask = (a.astype(np.uint32) for a in (self.diffs, self.unit_shift, self.slot_mask))
            for start in range(0, len(params), step):
                images = apply_many(family, params[start:start + step], diffs)
                passed[start:start + step] &= np.all((images >> shift) & mask, axis=-1)
        for pattern, separated in zip(self.problem.patterns, self.separated):
            if not (separated and xor_linear):
                alive = np.flatnonzero(passed)  # simulated only for the members nothing has rejected yet
                if not alive.size:
                    break
                sample = placement_sample(self.problem.tile, pattern)
                worst = sampled_worsts(self.problem, family, [params[i] for i in alive.tolist()], pattern, sample)
                passed[alive] = worst <= self.target[pattern]
        return passed


def first_conflict_free(problem: Problem, families: Sequence[Family] | None = None, budget: Budget | None = None,
                        invalid: Callable[[Layout], str | None] | None = None,
                        target: dict | None = None) -> Candidate | None:
    """The first member of ``families`` (default: the every-solve families), in DESIGN.md order, that reaches every pattern's lower
    bound (or ``target``: a worst per pattern, such as its floor), sound and measured by the
    simulator; None when there is none (or time ran out). ``invalid(layout)`` is the structural
    half of the soundness check (default: the member's own ``invalid`` on the tile; padding
    checks the padded layout instead); the table half (soundness.table_soundness) always runs."""
    budget = budget or Budget()
    tile, elems = problem.tile, vector_elems(problem)
    screen = Screen(problem, target)
    for family in base() if families is None else families:
        params, make = screened(family, tile, elems)
        for i in np.flatnonzero(screen.passes(family, params)).tolist():
            if budget.expired():
                return None
            checked = sound(tile, make(*params[i]), problem.patterns, invalid=invalid)
            if checked is None:
                continue
            found = measure(problem, checked)
            if all(r.worst <= screen.target[r.pattern] for r in found.results):
                return found
    return None


FIRST_CHUNK = 32  # members bounded before the first conflict-free ones are looked for (then doubled)


def search_family(problem: Problem, family: Family, keep: int = KEEP_PER_FAMILY, budget: Budget | None = None,
                  admit: Callable[[Layout], bool] | None = None,
                  conflict_free: bool = True) -> tuple[list[Candidate], FamilyReport]:
    """The family's best ``keep`` sound members (of those ``admit`` admits: --for), and what was
    covered. ``conflict_free=False``: the caller expects no member to be conflict-free (the first
    conflict-free search found none), so the members are bounded in one batch (the answer is the
    same either way).

    Within a family the rank is (excess, family order), and no excess is below 0: the first
    ``keep`` sound members in family order that are conflict-free are the best ``keep``. So members
    are bounded a chunk at a time in family order, and those whose bound is 0 measured, until
    ``keep`` are conflict-free (on a solvable tile, for its candidates table, that is usually the
    first chunk: a sampled bound over all members at a pitch that is not a power of two costs more
    than the rest of the solve). Otherwise every member ends up bounded, and the branch and bound
    finishes: the rest in (bound, order), measured until the next bound is worse than the k-th best.
    """
    search = _FamilySearch(problem, family, keep, budget or Budget(), admit)
    if not search.in_family_order(FIRST_CHUNK if conflict_free else len(search.params)):
        search.branch_and_bound()
    report, kept = search.report, search.kept
    report.best_excess = kept[0].excess if kept else None
    return kept, report


class _FamilySearch:
    """One family's branch and bound (search_family): its members' bounds, filled a chunk at a time
    (per member and pattern: exact where one placement decides them all, else a sampled worst),
    and the best ``keep`` members measured so far, in (excess, order)."""

    def __init__(self, problem: Problem, family: Family, keep: int, budget: Budget,
                 admit: Callable[[Layout], bool] | None):
        self.problem, self.family, self.keep, self.budget, self.admit = problem, family, keep, budget, admit
        tile, patterns = problem.tile, problem.patterns
        self.params, self.make = screened(family, tile, vector_elems(problem))
        self.lower = np.array([p.lower_bound for p in patterns], dtype=np.int64)
        self.exact = [one_placement_decides(tile, p) for p in patterns]
        self.worsts = np.zeros((len(self.params), len(patterns)), dtype=np.int64)
        self.taken = np.zeros(len(self.params), dtype=bool)  # measured, or found unsound or not admitted
        self.kept: list[Candidate] = []
        self.report = FamilyReport(family.name, candidates=len(self.params), linear=all(self.exact) and bool(self.params))
        self.limits = f" ({family.bounds(tile, vector_elems(problem))})" if family.bounds is not None else ""

    def in_family_order(self, first_chunk: int) -> bool:
        """Bound the members a chunk at a time (``first_chunk``, then doubled) and measure those
        bounded at 0, until ``keep`` are conflict-free (True: they are the best) or every member is
        bounded (False); True also when time runs out (the report then says how far it got)."""
        n, patterns = len(self.params), self.problem.patterns
        samples = [placement_sample(self.problem.tile, p) for p in patterns]
        start, step = 0, max(1, first_chunk)
        while start < n:
            if self.budget.expired():
                self.report.complete = False
                self.report.covered = f"cut by the time limit after {start} of {n} members were bounded"
                return True
            self.budget.tick(self.family.name, start, n)
            stop = min(start + step, n)
            for j, pattern in enumerate(patterns):
                self.worsts[start:stop, j] = sampled_worsts(self.problem, self.family, self.params[start:stop],
                                                            pattern, samples[j])
            for i in np.flatnonzero((self.worsts[start:stop] <= self.lower).all(axis=1)).tolist():
                self.take(start + i)
                if len(self.kept) == self.keep and self.kept[-1].excess == 0:
                    self.report.covered = (
                        f"the first {self.keep} conflict-free members in family order, within its first "
                        f"{start + i + 1} of {n} admissible members{self.limits}: every member before them was "
                        f"measured or bounded above its lower bounds (exactly or by a sample of placements), and "
                        f"none after them ranks before them")
                    return True
            start, step = stop, 2 * step
        return False

    def branch_and_bound(self) -> None:
        """With every member bounded: the rest in (bound, family order), measured until the next
        bound is worse than the ``keep``-th best."""
        report, kept = self.report, self.kept
        excess_bounds = (self.worsts - self.lower).sum(axis=1).tolist()
        for i in sorted(range(len(self.params)), key=lambda i: excess_bounds[i]):  # stable: family order within a bound
            if self.taken[i]:
                continue
            if self.budget.expired():
                report.complete = False
                break
            if len(kept) == self.keep and (excess_bounds[i], self.make(*self.params[i]).order) > \
                    (kept[-1].excess, kept[-1].layout.order):
                if excess_bounds[i] > kept[-1].excess:
                    break  # every later member has a bound at least this one
                continue
            self.take(i)
        report.covered = (f"all {report.candidates} admissible members{self.limits}, each bounded exactly or by a "
                          f"sample of placements and the best measured" if report.complete
                          else f"cut by the time limit after {report.evaluated} of {report.candidates} members")

    def take(self, i: int) -> None:
        """Measure member i (its exact bounds are its worsts) and keep it if it ranks among the best."""
        problem, patterns = self.problem, self.problem.patterns
        self.taken[i] = True
        layout = self.make(*self.params[i])
        checked = sound(problem.tile, layout, patterns)
        if checked is None:
            self.report.invalid += 1
            return
        if self.admit is not None and not self.admit(layout):
            return
        self.report.evaluated += 1
        if not any(self.exact) or per_instruction(problem):
            # every pattern is simulated whole anyway (the table's recheck is then done), or the
            # excess is per instruction, which the per-phase worsts only bound: measured
            self.kept.append(measure(problem, checked))
        else:
            measured = [int(w) if x else simulated_worst(problem, layout, p)
                        for w, x, p in zip(self.worsts[i], self.exact, patterns)]
            self.kept.append(found(problem, sum(measured) - int(self.lower.sum()), layout, checked))
        self.kept.sort(key=lambda c: (c.excess, c.layout.order))
        del self.kept[self.keep:]


def search_families(problem: Problem, families: Sequence[Family] | None, budget: Budget,
                    admit: Callable[[Layout], bool] | None = None,
                    conflict_free: bool = True) -> tuple[list[Candidate], list[FamilyReport]]:
    """Branch and bound over each family (default: the every-solve families): its best few (of those
    ``admit`` admits), and reports."""
    best: list[Candidate] = []
    reports = []
    for family in base() if families is None else families:
        kept, report = search_family(problem, family, budget=budget, admit=admit, conflict_free=conflict_free)
        reports.append(report)
        best += kept
    return best, reports
