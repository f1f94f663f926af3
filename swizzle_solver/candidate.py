"""What the searches hand each other and the report: a ``Candidate`` (a layout, the excess a search
found for it, and once measured the simulator's per-pattern results), how a family was covered
(``FamilyReport``), and the measurement that is the ground truth (``measure``, ``recheck``).

Order (DESIGN.md section 2): fewest total excess wavefronts (sum over patterns of worst - lower
bound), then the fewest bytes of shared memory (the layout's storage, padding included: dropping a
padding the user gave and swizzling instead wins), then the simplest family, then the family's own
order (fewest XOR bits, larger M, smaller shift): ``Candidate.rank_key``.
"""
from __future__ import annotations

import numpy as np

from . import simulate
from .families import FAMILY_RANK
from .layout import Layout, layout_table
from .model import Problem
from .soundness import Sound, sound, verify
from .value import Value, field, frozen_json

KEEP_PER_FAMILY = 3  # the answer's runners-up shown in the table, per family


class Candidate(Value):
    """A layout a search found, with its excess wavefronts; ``results`` (simulate.AccessResult per
    pattern) once the simulator has measured it, else empty (the search's fast path counted it)."""

    excess: int
    layout: Layout  # a member of a family (families/*)
    results: tuple = ()  # a problem has at least one pattern, so measured ones are never empty
    # Shared memory the layout needs on the problem's tile (layout.storage(tile) * elem_bytes):
    # build with ``found`` or ``measure``, which know the tile; the rank needs it.
    storage_bytes: int | None = None
    # The soundness check a search ran on the layout (soundness.Sound, slim), so that its measurement
    # (recheck) need not run it again; None: not checked yet.
    sound: Sound | None = field(default=None, compare=False, repr=False)

    @property
    def measured(self) -> bool:
        return bool(self.results)

    @property
    def conflict_free(self) -> bool:
        return self.excess == 0

    @property
    def status(self) -> str:
        return "conflict-free" if self.conflict_free else "conflicts"

    @property
    def family_rank(self) -> int:
        return FAMILY_RANK.get(self.layout.family, len(FAMILY_RANK))

    @property
    def rank_key(self) -> tuple:
        """(excess, storage bytes, family rank, family order): smaller is preferred."""
        if self.storage_bytes is None:
            raise AssertionError(f"internal error: {self.layout.name} was ranked without its storage (candidate.found)")
        return (self.excess, self.storage_bytes, self.family_rank, self.layout.order)


def storage_bytes(problem: Problem, layout) -> int:
    """Bytes of shared memory ``layout`` needs for the problem's tile (padding included)."""
    return layout.storage(problem.tile) * problem.tile.elem_bytes


def per_instruction(problem: Problem) -> bool:
    """Whether some access is instruction-level with several phases per instruction: its excess is
    then per instruction (simulate.AccessResult.excess), which the searches' fast paths (per-phase
    counts: lane differences, one placement's GF(2) rank, z3, the floors) only bound from below."""
    return any(p.instruction_phases > 1 for p in problem.patterns)


def found(problem: Problem, excess: int, layout, checked: Sound | None = None) -> Candidate:
    """A layout a search found with ``excess`` (not yet measured by the simulator); ``checked``:
    its soundness check, when the search ran it (kept slim, without its table).

    A search's ``excess`` is per phase; where the output's unit is per instruction
    (``per_instruction``) and the layout has conflicts, the two can differ, so the layout is
    measured now and ranks by the count the document reports (0 is 0 in both units)."""
    if excess and per_instruction(problem):
        whole = sound(problem.tile, layout, problem.patterns) if checked is None else checked
        if whole is not None:
            return measure(problem, whole)
    return Candidate(excess, layout, storage_bytes=storage_bytes(problem, layout),
                     sound=None if checked is None else checked.slim())


class FamilyReport(Value, frozen=False):
    family: str
    candidates: int = 0  # members that keep vectors whole
    evaluated: int = 0  # evaluated exactly
    invalid: int = 0  # found not to be sound (soundness.py) while evaluating
    linear: bool = False  # every bound was exact (GF(2))
    best_excess: int | None = None
    method: str = "enumeration"  # "enumeration" or "smt"
    complete: bool = True  # the whole family was covered (False: cut by --timeout, or z3 gave up)
    covered: str = ""  # how the family was covered, in words (the bounds, or the SMT constraints)
    smt: dict | None = None  # the SMT engine's record (smt.SmtResult.proof)
    searched: bool = True  # False: skipped, as no member can rank before the answer found (``covered`` says why)


class FrozenReport(FamilyReport, frozen=True):  # type: ignore[misc]  # (Value: frozen after building)
    """A family's report once shared (the API's cache, api.frozen): any assignment raises."""


def frozen_report(report: FamilyReport) -> FamilyReport:
    """``report`` as a read-only FrozenReport, its z3 record read-only too."""
    if isinstance(report, FrozenReport):
        return report
    return FrozenReport(**{**vars(report), "smt": frozen_json(report.smt)})


class Unsearched(Value):
    """Something a search did not cover whole where a layout could still rank before the answer:
    ``what`` in words (for the answer's ``unproven``), and the row lengths it concerns other than the
    given one (() for a family of the given row length)."""

    what: str
    pitches: tuple[int, ...] = ()


def vector_elems(problem: Problem) -> int:
    """Elements in the widest lane of any pattern, rounded up to a power of two (a 12-byte b96 lane:
    the XOR families keep it whole only with chunks of 4 dwords or more)."""
    elems = max(int(p.lane_bytes.max()) for p in problem.patterns) // problem.tile.elem_bytes
    return 1 << (elems - 1).bit_length()


def measure(problem: Problem, checked: Sound) -> Candidate:
    """The ground truth for one layout found sound (soundness.sound: nothing else is measured for
    a search): every placement of every pattern, simulated on its table."""
    if not isinstance(checked, Sound) or not checked.of(problem):
        raise TypeError("internal error: measure takes the soundness check of the same problem (soundness.sound)")
    return _simulated(problem, checked.layout, checked.table)


def measure_as_given(problem: Problem, layout: Layout, table: np.ndarray | None = None) -> Candidate:
    """A layout measured whether or not it is sound: the one a user gives to ``--check`` and the
    unswizzled baseline, whose soundness the report states beside their counts. Never a search's
    candidate (those go through ``measure``)."""
    return _simulated(problem, layout, layout_table(problem.tile, layout) if table is None else table)


def _simulated(problem: Problem, layout: Layout, table: np.ndarray) -> Candidate:
    results = tuple(simulate.simulate(problem.tile, problem.hardware, problem.patterns, table))
    return Candidate(sum(r.excess for r in results), layout, results, storage_bytes(problem, layout))


def recheck(problem: Problem, found: Candidate) -> Candidate:
    """Measure a found candidate with the simulator and insist it is sound (the search's check, when
    it ran one on this problem, else the check now) and the search's count agrees (a disagreement
    is a bug in a fast path)."""
    if found.measured:
        return found
    checked = found.sound if found.sound is not None and found.sound.of(problem) else \
        sound(problem.tile, found.layout, problem.patterns)
    if checked is None:
        verify(problem.tile, found.layout, problem.patterns)  # raises, saying why
        raise AssertionError(f"internal error: {found.layout.name} is unsound")  # (verify disagrees with sound)
    measured = measure(problem, checked)
    if measured.excess != found.excess:
        raise AssertionError(f"internal error: the search says {found.layout.name} has excess {found.excess}, "
                             f"the simulator says {measured.excess}")
    return measured


def ranked(found: list[Candidate]) -> list[Candidate]:
    """Everything found, best first in the DESIGN.md order."""
    return sorted(found, key=lambda c: c.rank_key)


def best(found: list[Candidate], keep: int) -> list[Candidate]:
    """The best ``keep`` of one family, in (excess, order)."""
    return sorted(found, key=lambda c: (c.excess, c.layout.order))[:keep]
