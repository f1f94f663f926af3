"""The search for the minimal layout (DESIGN.md section 2), and the re-check of what it returns.

Order: fewest total excess wavefronts (sum over patterns of worst - lower bound), then the
simplest family, then the family's own order (fewest XOR bits, larger M, smaller shift).

Two paths:

1. *First conflict-free member* (``first_conflict_free``). Excess 0 beats everything, so when some
   member of none / cute / xor-cols reaches every lower bound, the answer is the first such
   member in family order. All members of a family are screened at once (numpy, one row per
   member): exactly by the lane differences of separation.py where the layout is XOR-linear on
   offsets and the pattern fits one wavefront, else by simulating a few placements (one is
   enough where every placement is a coset of the same offset bits: the GF(2) bank matrix is
   then the same for all). A screen only ever rejects members that do conflict; the members it
   passes are simulated whole, in order, and the first conflict-free one is the answer.
2. *Branch and bound* (``search_family``), for the candidates table and when nothing is
   conflict-free: every member gets a lower bound on each pattern's worst cost, the whole family
   in one numpy batch: exact from the first placement where one placement decides them all
   (``one_placement_decides``), else the simulated worst over a spread sample of placements;
   candidates are taken in (bound, order), evaluated exactly until the next bound is worse than
   the family's k-th best, and the best k are kept.
   After path 1 it runs only when the table is read (``Solution.runners_up``), and must find
   the same answer (a disagreement raises).

When no member of those first families is conflict-free, the extended families are searched too
(``extended.py``): two-level, linear, row interleave and padding.

Everything returned is measured by the exhaustive simulator on the layout's full table
(simulate.py) and checked to be a bijection that keeps vectors whole; a disagreement with a fast
path is a bug and raises.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from . import simulate
from .budget import Budget
from .families import FAMILIES, FAMILY_RANK, apply_many, phys_many
from .families.identity import Identity
from .model import Problem

KEEP_PER_FAMILY = 3  # the answer's runners-up shown in the table, per family
SAMPLE_PLACEMENTS = 8  # placements simulated to bound a member where no one placement decides


@dataclass(frozen=True, eq=False)
class Ranked:
    """A layout with its ground-truth measurements."""

    layout: object
    results: list  # simulate.AccessResult per pattern
    method: str  # how the search evaluated it: "gf2-rank" or "exhaustive"

    @property
    def excess(self) -> int:
        return sum(r.excess for r in self.results)

    @property
    def conflict_free(self) -> bool:
        return self.excess == 0

    @property
    def status(self) -> str:
        return "conflict-free" if self.conflict_free else "conflicts"

    @property
    def rank_key(self) -> tuple:
        return (self.excess, FAMILY_RANK.get(self.layout.family, len(FAMILY_RANK)), self.layout.order)


@dataclass
class FamilyReport:
    family: str
    candidates: int = 0  # members that keep vectors whole
    evaluated: int = 0  # evaluated exactly
    invalid: int = 0  # found not to be bijections while evaluating
    linear: bool = False  # every bound was exact (GF(2))
    best_excess: int | None = None
    method: str = "enumeration"  # "enumeration" or "smt"
    complete: bool = True  # the whole family was covered (False: cut by --timeout, or z3 gave up)
    covered: str = ""  # how the family was covered, in words (the bounds, or the SMT constraints)
    smt: dict | None = None  # the SMT engine's record (smt.SmtResult.proof)


@dataclass(eq=False)
class Solution:
    """The answer, re-checked by the simulator. The candidates table (runners-up, per-family
    reports) comes from the branch and bound, run when first read if the answer came from the
    first-conflict-free path; the runners-up and the baseline are re-checked when first read."""

    problem: Problem
    answer: Ranked
    searched: tuple = FAMILIES  # the family modules of the table
    found: list | None = None  # the table as the branch and bound left it; None: not run yet
    reports: list | None = None
    extended: bool = False  # the families beyond none / cute / xor-cols were searched
    timed_out: bool = False  # --timeout cut a family that could still beat the answer
    unproven: str | None = None  # why the answer is not proven minimal (a family not covered whole), or None
    at_floor: bool = False  # conflicts, but the best of ``searched`` meets every floor: nothing beyond was searched

    def _table(self) -> tuple[list, list]:
        if self.found is None:
            self.found, self.reports = search_families(self.problem, self.searched, Budget())
            best = ranked_order(self.found)[0]
            if best[1] != self.answer.layout or best[0] != self.answer.excess:
                raise AssertionError(f"internal error: the first conflict-free member is {self.answer.layout.name}, "
                                     f"the branch and bound says {best[1].name} (excess {best[0]})")
        return self.found, self.reports

    @property
    def runners_up(self) -> list[tuple]:
        """(excess, layout, method) as the search found them, in rank order, without the answer."""
        return [found for found in ranked_order(self._table()[0]) if found[1] != self.answer.layout]

    @property
    def families(self) -> list[FamilyReport]:
        return self._table()[1]

    @cached_property
    def alternatives(self) -> list[Ranked]:
        return [recheck(self.problem, *found) for found in self.runners_up]

    @cached_property
    def baseline(self) -> Ranked:
        return measure(self.problem, Identity())

    @property
    def status(self) -> str:
        if self.timed_out:
            return "timeout"
        return self.answer.status


def vector_elems(problem: Problem) -> int:
    return max(int(p.lane_bytes.max()) for p in problem.patterns) // problem.tile.elem_bytes


def exact_worsts(problem: Problem, layout) -> list[int | None]:
    """Per pattern: the worst wavefronts from the GF(2) bank matrix, or None where it does not apply."""
    from .proof import bank_matrix  # the proof's engine; a plain solve decides without it

    bases = layout.bases(problem.tile)
    out = []
    for pattern in problem.patterns:
        matrix = bank_matrix(problem.tile, problem.bank_model, pattern, bases)
        out.append(None if matrix is None else matrix.wavefronts)
    return out


def _simulated_worst(problem: Problem, layout, pattern, placements=None) -> int:
    fn = lambda r, c: layout.phys(problem.tile, r, c)  # noqa: E731
    words = simulate.lane_words(problem.tile, problem.bank_model, pattern, fn, placements)
    return int(simulate.placement_costs(words, problem.bank_model.banks).max())


BATCH_ELEMENTS = 1 << 21  # lane elements simulated in one numpy batch (about 16 MiB of offsets)


def sampled_worsts(problem: Problem, module, params: list[tuple], pattern, placements: np.ndarray) -> np.ndarray:
    """The simulated worst over some placements of each member of a family (given by its grid
    ``params``), a batch of members at a time."""
    tile, bank_model = problem.tile, problem.bank_model
    rows, cols = simulate.lane_elements(tile, pattern)
    rows, cols = rows[placements], cols[placements]
    step = max(1, BATCH_ELEMENTS // rows.size)
    out = [np.zeros(0, dtype=np.int64)]
    for start in range(0, len(params), step):
        batch = params[start:start + step]
        offsets = phys_many(module, batch, tile, rows, cols)
        offsets = np.broadcast_to(offsets, (len(batch), *rows.shape)).reshape(len(batch) * len(placements), -1)
        words = simulate.words_of(tile, bank_model, offsets)
        out.append(simulate.placement_costs(words, bank_model.banks).reshape(len(batch), -1).max(axis=1))
    return np.concatenate(out)


def one_placement_decides(tile, pattern) -> bool:
    """Every placement of ``pattern`` costs the same under any GF(2)-linear layout: the placements
    are cosets x0 + V of one subspace of offset bits (power-of-two pitch), a linear layout maps
    them to translates L(x0) ^ L(V), and XOR by a constant permutes words and banks alike."""
    return tile.pitch_is_pow2 and pattern.linear_bits(tile) is not None


def placement_sample(tile, pattern) -> np.ndarray:
    """The placements that bound a member's worst: the first, when it decides them all, else a
    spread of SAMPLE_PLACEMENTS."""
    if one_placement_decides(tile, pattern):
        return np.array([0])
    spread = np.linspace(0, pattern.placements - 1, min(pattern.placements, SAMPLE_PLACEMENTS)).astype(np.int64)
    return np.array(sorted(set(spread.tolist())), dtype=np.int64)  # not np.unique: it imports numpy.ma (16 ms)


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

    def passes(self, module, params: list[tuple]) -> np.ndarray:
        """Per member: False when it certainly misses a target; True when it may reach them all."""
        xor_linear = hasattr(module.LAYOUT, "apply")
        passed = np.ones(len(params), dtype=bool)
        if not params:
            return passed
        if xor_linear and self.diffs.size:
            step = max(1, BATCH_ELEMENTS // self.diffs.size)  # members x differences: bounded temporaries
            for start in range(0, len(params), step):
                images = apply_many(module, params[start:start + step], self.diffs)
                passed[start:start + step] &= np.all((images >> self.unit_shift) & self.slot_mask, axis=-1)
        for pattern, separated in zip(self.problem.patterns, self.separated):
            if not (separated and xor_linear):
                sample = placement_sample(self.problem.tile, pattern)
                passed &= sampled_worsts(self.problem, module, params, pattern, sample) <= self.target[pattern]
        return passed


def first_conflict_free(problem: Problem, families=FAMILIES, budget: Budget | None = None,
                        invalid=None, target: dict | None = None) -> Ranked | None:
    """The first member of ``families``, in DESIGN.md order, that reaches every pattern's lower
    bound (or ``target``: a worst per pattern, such as its floor), measured and verified by the
    simulator; None when there is none (or time ran out). ``invalid(layout)`` says why a member is
    not usable (default: its own ``invalid`` on the tile)."""
    budget = budget or Budget()
    invalid = invalid or (lambda layout: layout.invalid(problem.tile))
    tile, elems = problem.tile, vector_elems(problem)
    screen = Screen(problem, target)
    for module in families:
        params = module.grid(tile, elems)
        for i in np.flatnonzero(screen.passes(module, params)).tolist():
            if budget.expired():
                return None
            layout = module.LAYOUT(*params[i])
            if invalid(layout) is not None:
                continue
            ranked, phys = _measured(problem, layout, "exhaustive")
            if all(r.worst <= screen.target[r.pattern] for r in ranked.results):
                verify(problem, layout, phys)
                return ranked
    return None


def search_family(problem: Problem, module, keep: int = KEEP_PER_FAMILY,
                  budget: Budget | None = None) -> tuple[list[tuple], FamilyReport]:
    """The family's best ``keep`` members as (excess, order, layout, method), and what was covered."""
    budget = budget or Budget()
    tile, patterns = problem.tile, problem.patterns
    lower = [p.lower_bound for p in patterns]
    report = FamilyReport(module.FAMILY)
    params = module.grid(tile, vector_elems(problem))
    # Bound every member at once, pattern by pattern: exact where one placement decides them all.
    exact = [one_placement_decides(tile, p) for p in patterns]
    worsts = np.zeros((len(params), len(patterns)), dtype=np.int64)
    for j, pattern in budget.walk(report, patterns):
        worsts[:, j] = sampled_worsts(problem, module, params, pattern, placement_sample(tile, pattern))
    if not report.complete:
        report.covered = f"cut by the time limit before the {len(params)} members were bounded"
        return [], report
    excess_bounds = (worsts - np.array(lower, dtype=np.int64)).sum(axis=1).tolist()
    report.candidates = len(params)
    report.linear = all(exact) and bool(params)
    method = "gf2-rank" if all(exact) else "exhaustive"
    kept: list[tuple] = []
    for i in sorted(range(len(params)), key=lambda i: excess_bounds[i]):  # stable: family order within a bound
        bound, layout = excess_bounds[i], module.LAYOUT(*params[i])
        if budget.expired():
            report.complete = False
            break
        if len(kept) == keep and (bound, layout.order) > kept[-1][:2]:
            if bound > kept[-1][0]:
                break  # every later member has a bound at least this one
            continue
        if layout.invalid(tile):
            report.invalid += 1
            continue
        report.evaluated += 1
        measured = [int(w) if x else _simulated_worst(problem, layout, p)
                    for w, x, p in zip(worsts[i], exact, patterns)]
        kept.append((sum(w - lb for w, lb in zip(measured, lower)), layout.order, layout, method))
        kept.sort(key=lambda t: t[:2])
        del kept[keep:]
    report.best_excess = kept[0][0] if kept else None
    limits = f" ({module.bounds(tile, vector_elems(problem))})" if hasattr(module, "bounds") else ""
    report.covered = (f"all {report.candidates} admissible members{limits}, each bounded exactly or by a sample "
                      f"of placements and the best measured" if report.complete
                      else f"cut by the time limit after {report.evaluated} of {report.candidates} members")
    return kept, report


def measure(problem: Problem, layout, method: str = "exhaustive") -> Ranked:
    """The ground truth for one layout: every placement of every pattern, simulated."""
    return _measured(problem, layout, method)[0]


def _measured(problem: Problem, layout, method: str) -> tuple[Ranked, np.ndarray]:
    """measure(), and the layout's table phys[r, c] it simulated (for verify)."""
    phys = layout_table(problem, layout)
    return Ranked(layout, simulate.simulate(problem.tile, problem.bank_model, problem.patterns, phys), method), phys


def layout_table(problem: Problem, layout) -> np.ndarray:
    """phys[r, c] over the whole tile."""
    tile = problem.tile
    r, c = np.arange(tile.rows)[:, None], np.arange(tile.cols)[None, :]  # the formulas broadcast
    return np.ascontiguousarray(np.broadcast_to(layout.phys(tile, r, c), (tile.rows, tile.cols)), dtype=np.int64)


def storage(problem: Problem, layout) -> int:
    """Elements of storage the layout may use: the tile's own, or more for padding."""
    return layout.storage(problem.tile) if hasattr(layout, "storage") else problem.tile.size


def verify(problem: Problem, layout, phys: np.ndarray | None = None) -> None:
    """Insist the layout is sound: a bijection onto its storage that keeps every vector whole
    (``phys``: its table, if already built)."""
    phys = layout_table(problem, layout) if phys is None else phys
    if not simulate.is_injective(problem.tile, phys, storage(problem, layout)):
        raise AssertionError(f"internal error: {layout.name} is not injective on the tile")
    for pattern in problem.patterns:
        if not simulate.admissible(problem.tile, pattern, phys):
            raise AssertionError(f"internal error: {layout.name} splits the vectors of {pattern.spec}")


def recheck(problem: Problem, excess: int, layout, method: str) -> Ranked:
    """Measure with the simulator and insist the fast path agreed and the layout is sound."""
    ranked, phys = _measured(problem, layout, method)
    verify(problem, layout, phys)
    if ranked.excess != excess:
        raise AssertionError(f"internal error: the search says {layout.name} has excess {excess}, "
                             f"the simulator says {ranked.excess}")
    return ranked


def ranked_order(found: list[tuple]) -> list[tuple]:
    """(excess, layout, method) of everything found, best first in the DESIGN.md order."""
    order = sorted(found, key=lambda f: (f[0], FAMILY_RANK.get(f[2].family, len(FAMILY_RANK)), f[2].order))
    return [(excess, layout, method) for excess, _, layout, method in order]


def search_families(problem: Problem, families, budget: Budget) -> tuple[list[tuple], list[FamilyReport]]:
    """Branch and bound over each family: its best few as (excess, order, layout, method), and reports."""
    found: list[tuple] = []
    reports = []
    for module in families:
        kept, report = search_family(problem, module, budget=budget)
        reports.append(report)
        found += kept
    return found, reports


def solve(problem: Problem, families=FAMILIES, budget: Budget | None = None, extend: bool = True,
          engine: str | None = None) -> Solution:
    """The minimal layout over ``families`` with runners-up, all re-checked by the simulator.

    With ``extend``, the extended families are searched too when no member of ``families`` is
    conflict-free; ``engine`` ("smt" or "enum") overrides each extended family's default engine.
    """
    budget = budget or Budget()
    first = first_conflict_free(problem, families, budget)
    if first is not None:
        return Solution(problem, first, families)
    found, reports = search_families(problem, families, budget)
    best = min((excess for excess, *_ in found), default=None)
    least = 0  # the least excess any admissible layout leaves: 0, or the floors' (floors.py)
    if best:  # conflicts (floors.py is imported only on this path: start-up)
        from .floors import floor_excess

        least = floor_excess(problem)
    # The later families are searched when nothing here is conflict-free, unless the best already
    # meets every floor: then no admissible layout of any family leaves fewer wavefronts.
    at_floor = bool(best) and best == least
    needed = extend and best != 0 and not at_floor
    extended = needed and not budget.expired()
    if extended:
        from .extended import search_extended
        more, more_reports = search_extended(problem, budget, engine)
        found += more
        reports += more_reports
    # Rank on the search's exact counts (recheck insists the simulator agrees), then re-check the
    # answer now and the runners-up when they are read.
    ranked = ranked_order(found)
    if ranked:
        answer = recheck(problem, *ranked[0])
    else:  # cut by the time limit before any member was evaluated
        answer = measure(problem, Identity())
    # The answer is not proven minimal if a family that could still beat it (ranked before it, or
    # any family when it leaves more than the least excess any layout can) was not covered whole:
    # cut by --timeout (status "timeout"), or left "unknown" by z3 (too many models refuted; the
    # status stays what the answer measures).
    open_families = [r.family for r in reports
                     if not r.complete and (answer.excess > least or FAMILY_RANK[r.family] <= answer.rank_key[1])]
    if needed and not extended:
        open_families.append("the families beyond none / cute / xor-cols")
    unproven = f"not covered whole: {', '.join(open_families)}" if open_families else None
    timed_out = unproven is not None and budget.expired()
    return Solution(problem, answer, families, found, reports, extended, timed_out, unproven, at_floor)


def check(problem: Problem, layout) -> tuple[Ranked, str | None]:
    """One given layout, measured; the second value says why it is not a usable layout, if it is not."""
    why = layout.invalid(problem.tile)
    if why is None:
        phys = layout_table(problem, layout)
        if not simulate.is_injective(problem.tile, phys, storage(problem, layout)):
            why = f"it is not a bijection onto its {storage(problem, layout)}-element storage"
        for pattern in problem.patterns if why is None else ():
            if not simulate.admissible(problem.tile, pattern, phys):
                why = (f"it splits the {pattern.vector_bytes}-byte vectors of {pattern.spec} "
                       f"(an XOR into bits M and up keeps them whole only when 2^M >= elements per vector)")
                break
    exact = exact_worsts(problem, layout)
    method = "gf2-rank" if all(x is not None for x in exact) else "exhaustive"
    return measure(problem, layout, method), why
