"""The search for the minimal layout (DESIGN.md section 2), and the re-check of what it returns.

Order: fewest total excess wavefronts (sum over patterns of worst - lower bound), then the
simplest family, then the family's own order (fewest XOR bits, larger M, smaller shift).

Each family is searched whole, by branch and bound:

1. every candidate gets a lower bound on each pattern's worst cost: exact from the GF(2) bank
   matrix where the pattern and layout are linear (proof.py), else the simulated worst over a
   spread sample of placements (a true lower bound: the worst over all is at least that);
2. candidates are taken in (bound, order); each is checked for validity and then evaluated
   exactly (simulating every placement where the GF(2) path does not apply), until the next
   bound is worse than the family's k-th best; the family's best k are kept for the table.

Everything returned is then measured again by the exhaustive simulator on the layout's full
table (simulate.py) and checked to be a bijection that keeps vectors whole; a disagreement
with the fast path is a bug and raises.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import simulate
from .families import FAMILIES, FAMILY_RANK
from .families.identity import Identity
from .model import Problem
from .proof import bank_matrix

KEEP_PER_FAMILY = 3  # the answer's runners-up shown in the table, per family
SAMPLE_PLACEMENTS = 8  # placements simulated to bound a non-linear candidate


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


@dataclass
class Solution:
    problem: Problem
    answer: Ranked
    alternatives: list[Ranked]
    baseline: Ranked
    families: list[FamilyReport] = field(default_factory=list)

    @property
    def status(self) -> str:
        return "conflict-free" if self.answer.conflict_free else "conflicts"


def vector_elems(problem: Problem) -> int:
    return max(int(p.lane_bytes.max()) for p in problem.patterns) // problem.tile.elem_bytes


def exact_worsts(problem: Problem, layout) -> list[int | None]:
    """Per pattern: the worst wavefronts from the GF(2) bank matrix, or None where it does not apply."""
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


def _sample(placements: int) -> np.ndarray:
    spread = np.linspace(0, placements - 1, min(placements, SAMPLE_PLACEMENTS)).astype(np.int64)
    return np.array(sorted(set(spread.tolist())), dtype=np.int64)  # not np.unique: it imports numpy.ma (16 ms)


def search_family(problem: Problem, module, keep: int = KEEP_PER_FAMILY) -> tuple[list[tuple], FamilyReport]:
    """The family's best ``keep`` members as (excess, order, layout, method), and what was covered."""
    patterns = problem.patterns
    lower = [p.lower_bound for p in patterns]
    samples = [_sample(p.placements) for p in patterns]
    report = FamilyReport(module.FAMILY)
    bounded = []
    all_exact = True
    for layout in module.candidates(problem.tile, vector_elems(problem)):
        exact = exact_worsts(problem, layout)
        bound = [x if x is not None else _simulated_worst(problem, layout, p, s)
                 for x, p, s in zip(exact, patterns, samples)]
        all_exact &= all(x is not None for x in exact)
        bounded.append((sum(b - lb for b, lb in zip(bound, lower)), layout.order, layout, exact))
    report.candidates = len(bounded)
    report.linear = all_exact and bool(bounded)
    bounded.sort(key=lambda t: (t[0], t[1]))
    kept: list[tuple] = []
    for bound, order, layout, exact in bounded:
        if len(kept) == keep and (bound, order) > kept[-1][:2]:
            if bound > kept[-1][0]:
                break
            continue
        if layout.invalid(problem.tile):
            report.invalid += 1
            continue
        report.evaluated += 1
        worsts = [x if x is not None else _simulated_worst(problem, layout, p) for x, p in zip(exact, patterns)]
        method = "gf2-rank" if all(x is not None for x in exact) else "exhaustive"
        kept.append((sum(w - lb for w, lb in zip(worsts, lower)), order, layout, method))
        kept.sort(key=lambda t: t[:2])
        del kept[keep:]
    report.best_excess = kept[0][0] if kept else None
    return kept, report


def measure(problem: Problem, layout, method: str = "exhaustive") -> Ranked:
    """The ground truth for one layout: every placement of every pattern, simulated."""
    phys = layout_table(problem, layout)
    return Ranked(layout, simulate.simulate(problem.tile, problem.bank_model, problem.patterns, phys), method)


def layout_table(problem: Problem, layout) -> np.ndarray:
    """phys[r, c] over the whole tile."""
    tile = problem.tile
    r, c = np.meshgrid(np.arange(tile.rows), np.arange(tile.cols), indexing="ij")
    return np.asarray(layout.phys(tile, r, c), dtype=np.int64)


def recheck(problem: Problem, excess: int, layout, method: str) -> Ranked:
    """Measure with the simulator and insist the fast path agreed and the layout is sound."""
    ranked = measure(problem, layout, method)
    phys = layout_table(problem, layout)
    if not simulate.is_injective(problem.tile, phys):
        raise AssertionError(f"internal error: {layout.name} is not injective on the tile")
    for pattern in problem.patterns:
        if not simulate.admissible(problem.tile, pattern, phys):
            raise AssertionError(f"internal error: {layout.name} splits the vectors of {pattern.spec}")
    if ranked.excess != excess:
        raise AssertionError(f"internal error: the search says {layout.name} has excess {excess}, "
                             f"the simulator says {ranked.excess}")
    return ranked


def solve(problem: Problem, families=FAMILIES) -> Solution:
    """The minimal layout over ``families`` with runners-up, all re-checked by the simulator."""
    found: list[tuple] = []
    reports = []
    for module in families:
        kept, report = search_family(problem, module)
        reports.append(report)
        found += kept
    ranked = sorted((recheck(problem, excess, layout, method) for excess, _, layout, method in found),
                    key=lambda x: x.rank_key)
    return Solution(problem, ranked[0], ranked[1:], measure(problem, Identity()), reports)


def check(problem: Problem, layout) -> tuple[Ranked, str | None]:
    """One given layout, measured; the second value says why it is not a usable layout, if it is not."""
    why = layout.invalid(problem.tile)
    if why is None:
        phys = layout_table(problem, layout)
        for pattern in problem.patterns:
            if not simulate.admissible(problem.tile, pattern, phys):
                why = (f"it splits the {pattern.vector_bytes}-byte vectors of {pattern.spec} "
                       f"(a CuTe swizzle keeps vectors whole only when 2^M >= elements per vector)")
                break
    exact = exact_worsts(problem, layout)
    method = "gf2-rank" if all(x is not None for x in exact) else "exhaustive"
    return measure(problem, layout, method), why
