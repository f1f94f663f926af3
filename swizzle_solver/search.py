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
   conflict-free: every member gets a lower bound on each pattern's worst cost, the whole family
   in one numpy batch: exact from the first placement where one placement decides them all
   (``one_placement_decides``), else the simulated worst over a spread sample of placements;
   candidates are taken in (bound, order), evaluated exactly until the next bound is worse than
   the family's k-th best, and the best k are kept.
   After path 1 it runs only when the caller asks for the candidates table (solving.py), and must
   find the same answer (a disagreement raises).

Every member passes the soundness check (soundness.py: a bijection that keeps vectors whole)
before it is measured. solving.py orchestrates this search and the later families (extended.py).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from .budget import Budget
from .candidate import KEEP_PER_FAMILY, Candidate, FamilyReport, found, measure, vector_elems
from .families import apply_many, base
from .layout import Family, Layout, layout_table
from .model import Problem, Tile
from .sampling import (
    BATCH_ELEMENTS,
    one_placement_decides,
    placement_sample,
    sampled_worsts,
    simulated_worst,
)
from .soundness import soundness, storage, table_soundness


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
                for p, s in zip(problem.patterns, separations(problem.tile, problem.bank_model, problem.patterns))]
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
    invalid = invalid or (lambda layout: layout.invalid(problem.tile))
    tile, elems = problem.tile, vector_elems(problem)
    screen = Screen(problem, target)
    for family in base() if families is None else families:
        params, make = screened(family, tile, elems)
        for i in np.flatnonzero(screen.passes(family, params)).tolist():
            if budget.expired():
                return None
            layout = make(*params[i])
            if invalid(layout) is not None:
                continue
            table = layout_table(tile, layout)
            if table_soundness(tile, table, storage(tile, layout), problem.patterns) is not None:
                continue
            found = measure(problem, layout, table)
            if all(r.worst <= screen.target[r.pattern] for r in found.results):
                return found
    return None


def search_family(problem: Problem, family: Family, keep: int = KEEP_PER_FAMILY, budget: Budget | None = None,
                  admit: Callable[[Layout], bool] | None = None) -> tuple[list[Candidate], FamilyReport]:
    """The family's best ``keep`` sound members (of those ``admit`` admits: --for), and what was
    covered."""
    budget = budget or Budget()
    tile, patterns = problem.tile, problem.patterns
    lower = [p.lower_bound for p in patterns]
    report = FamilyReport(family.name)
    params, make = screened(family, tile, vector_elems(problem))
    # Bound every member at once, pattern by pattern: exact where one placement decides them all.
    exact = [one_placement_decides(tile, p) for p in patterns]
    worsts = np.zeros((len(params), len(patterns)), dtype=np.int64)
    for j, pattern in budget.walk(report, patterns):
        worsts[:, j] = sampled_worsts(problem, family, params, pattern, placement_sample(tile, pattern))
    if not report.complete:
        report.covered = f"cut by the time limit before the {len(params)} members were bounded"
        return [], report
    excess_bounds = (worsts - np.array(lower, dtype=np.int64)).sum(axis=1).tolist()
    report.candidates = len(params)
    report.linear = all(exact) and bool(params)
    kept: list[Candidate] = []
    for i in sorted(range(len(params)), key=lambda i: excess_bounds[i]):  # stable: family order within a bound
        bound, layout = excess_bounds[i], make(*params[i])
        if budget.expired():
            report.complete = False
            break
        if len(kept) == keep and (bound, layout.order) > (kept[-1].excess, kept[-1].layout.order):
            if bound > kept[-1].excess:
                break  # every later member has a bound at least this one
            continue
        if soundness(tile, layout, patterns) is not None:
            report.invalid += 1
            continue
        if admit is not None and not admit(layout):
            continue
        report.evaluated += 1
        if not any(exact):  # every pattern is simulated whole anyway: measured (the table's recheck is then done)
            kept.append(measure(problem, layout))
        else:
            measured = [int(w) if x else simulated_worst(problem, layout, p)
                        for w, x, p in zip(worsts[i], exact, patterns)]
            kept.append(found(problem, sum(w - lb for w, lb in zip(measured, lower)), layout))
        kept.sort(key=lambda c: (c.excess, c.layout.order))
        del kept[keep:]
    report.best_excess = kept[0].excess if kept else None
    limits = f" ({family.bounds(tile, vector_elems(problem))})" if family.bounds is not None else ""
    report.covered = (f"all {report.candidates} admissible members{limits}, each bounded exactly or by a sample "
                      f"of placements and the best measured" if report.complete
                      else f"cut by the time limit after {report.evaluated} of {report.candidates} members")
    return kept, report


def search_families(problem: Problem, families: Sequence[Family] | None, budget: Budget,
                    admit: Callable[[Layout], bool] | None = None) -> tuple[list[Candidate], list[FamilyReport]]:
    """Branch and bound over each family (default: the every-solve families): its best few (of those
    ``admit`` admits), and reports."""
    best: list[Candidate] = []
    reports = []
    for family in base() if families is None else families:
        kept, report = search_family(problem, family, budget=budget, admit=admit)
        reports.append(report)
        best += kept
    return best, reports
