"""The later families (DESIGN.md section 2, item 4: two-level, linear, row interleave, padding, ...),
searched only when none, cute and xor-cols have no conflict-free member: ``search_extended`` walks
the registry's later families in rank order and runs each one's search.

A family's search is on its record (``Family.search``, in its own module, with its engine: the
batch evaluator of two-level, z3 for linear, the pitches of padding), with one signature,
``search(problem, budget, later) -> (candidates, report)`` (``Later``: what every search is
given); a family without one has every member it lists simulated (``every_member``, here). Every
member is checked by soundness.py before it is measured, and every member returned is re-measured
by the simulator in solving.py.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from types import ModuleType

import numpy as np

from . import simulate
from .budget import Budget
from .candidate import KEEP_PER_FAMILY, Candidate, FamilyReport, best, measure, vector_elems
from .families import record, records
from .layout import LATER, Family, Layout
from .model import Problem
from .oracle import Later, XorOracle
from .sampling import placement_sample
from .soundness import Sound, sound


def later_of(problem: Problem, base: Callable, engine: str | None = None) -> Later:
    """What each later search of ``problem`` is given (oracle.Later): ``base`` is the base search's
    first_conflict_free (search.py), ``engine`` the --engine override."""
    return Later(XorOracle(problem), engine, base, _smt, every_member)


def _smt() -> ModuleType:
    """smt.py (z3), imported when a search first asks for it (start-up; and smt.py builds on the
    families' layout classes, so a family's module does not import it: Later.smt)."""
    from . import smt

    return smt


def every_member(problem: Problem, budget: Budget, family: Family,
                 is_sound: Callable[[Layout], Sound | None] | None = None) -> tuple[list[Candidate], FamilyReport]:
    """Every member the family lists (its ``candidates``), each sound one simulated (on a sample,
    measured whole when it can enter the best: ``best_bounded``): the search of a later family that
    has no engine of its own. Its best KEEP_PER_FAMILY in (excess, order).
    ``is_sound``: the family's own exact soundness check (soundness.QuickSoundness), else ``sound``."""
    report = FamilyReport(family.name)
    members = family.candidates(problem.tile, vector_elems(problem)) if family.candidates else []
    report.candidates = len(members)
    found: list[Sound] = []
    for _, layout in budget.walk(report, members):
        checked = sound(problem.tile, layout, problem.patterns) if is_sound is None else is_sound(layout)
        if checked is None:
            report.invalid += 1
        else:
            found.append(checked)
    report.evaluated = len(found)
    kept = best_bounded(problem, found, KEEP_PER_FAMILY)
    report.best_excess = kept[0].excess if kept else None
    report.covered = (f"every listed member: {len(members)}, {report.invalid} not sound (not a bijection or "
                      f"splitting vectors), the rest simulated")
    return kept, report


def sampled_excess(problem: Problem, table: np.ndarray) -> int:
    """A lower bound on a layout's excess (given by its table): the sum over patterns of the worst
    over a sample of placements (placement_sample) minus the pattern's lower bound. The true worst
    is the maximum over all placements, so it is at least the sampled one, pattern by pattern."""
    fn = simulate.table(table)
    tile, banks = problem.tile, problem.hardware
    total = 0
    for pattern in problem.patterns:
        words = simulate.lane_words(tile, banks, pattern, fn, placement_sample(tile, pattern))
        total += int(simulate.pattern_costs(tile, banks, pattern, words).max()) - pattern.lower_bound
    return total


def best_bounded(problem: Problem, sound: list[Sound], keep: int) -> list[Candidate]:
    """best(every member of ``sound`` measured, keep), measuring only the members that can enter it.

    Each member's excess is bounded below by ``sampled_excess``; members are measured in (bound,
    order), and once ``keep`` are measured, a member whose (bound, order) comes after the last
    kept one's (excess, order) cannot displace it: its own (excess, order) comes after too, and so
    do those of every member after it (their bounds are no smaller). On 512 x 506 f16 `8x1 8x16
    col`, 3 of the 15 sound row-interleave members measured instead of all."""
    bounded = sorted(((sampled_excess(problem, s.table), s.layout.order, k) for k, s in enumerate(sound)),
                     key=lambda t: t[:2])
    kept: list[Candidate] = []
    for bound, order, k in bounded:
        if len(kept) == keep and (bound, order) > (kept[-1].excess, kept[-1].layout.order):
            break
        kept = best([*kept, measure(problem, sound[k])], keep)
    return kept


def min_storage(problem: Problem, family: str) -> int:
    """The least storage (elements) any member a family searches at the given row length needs:
    its record's ``least_storage`` (padding: its smallest aligned pitch above it), else the tile's."""
    least = record(family).least_storage
    return problem.tile.size if least is None else least(problem)


Skip = Callable[[str, list], "str | None"]  # (family, candidates found so far) -> why it cannot win, or None


def search_extended(problem: Problem, budget: Budget, base: Callable, engine: str | None = None,
                    skip: Skip | None = None, keep_pitch: bool = False,
                    admit: Callable[[Layout], bool] | None = None,
                    before: Sequence[Candidate] = ()) -> tuple[list[Candidate], list[FamilyReport]]:
    """Every later family of the registry in rank order: their best few, and reports. ``base`` is
    the base search's first_conflict_free (padding asks it for a swizzle of each padded tile).
    ``skip`` (solving.py's rule) says why a family need not be searched, given what was found
    before it (``before``: by the searches before this one; then each family's): such a family gets
    a report with ``searched`` False. ``keep_pitch``: padding (another row length) is not searched.
    ``admit`` (--for): only the members it admits are kept; a family whose best members it refuses
    all is reported as not covered whole (its search looks for the best members, not for the best
    expressible ones)."""
    later = later_of(problem, base, engine)
    found: list[Candidate] = []
    reports: list[FamilyReport] = []
    for family in records(LATER):
        if keep_pitch and family.changes_pitch:
            continue
        why = skip(family.name, [*before, *found]) if skip is not None else None
        if why is not None:
            method = "smt" if later.engine_of(family) == "smt" else "enumeration"
            reports.append(FamilyReport(family.name, method=method, searched=False, covered=f"not searched: {why}"))
            continue
        kept, report = family.search(problem, budget, later) if family.search else every_member(problem, budget, family)
        if admit is not None:
            admitted = [c for c in kept if admit(c.layout)]
            if kept and not admitted:
                report.complete = False
                report.covered += "; --for: its best members are not expressible in the targets, none searched further"
            kept = admitted
        found += kept
        reports.append(report)
    return found, reports
