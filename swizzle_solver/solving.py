"""The solve: the base search (search.py) over none / cute / xor-cols, then, when none of them is
conflict-free, the later families (extended.py); the answer and the candidates table re-checked by
the simulator. Neither search imports the other: this module joins them.

A ``Solution`` is complete when returned: writing the JSON or the report reads it and never
searches. The candidates table (runners-up, per-family reports, the unswizzled baseline) is built
when the caller asks for it (``table=True``: the rich report and --json show it); a plain answer
(--quiet) skips the branch and bound when a first conflict-free member exists.

(Not named solve.py: a submodule ``swizzle_solver.solve`` would shadow the API's ``solve``, which
the package loads lazily under that name.)
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from .budget import Budget
from .candidate import Candidate, FamilyReport, Unsearched, frozen_report, measure_as_given, ranked, recheck
from .families import FAMILY_RANK
from .families.identity import Identity
from .layout import Family, Layout, layout_table
from .model import Problem
from .search import first_conflict_free, search_families
from .soundness import soundness
from .value import FrozenError, FrozenList, Value, replace

if TYPE_CHECKING:  # narrower.py is imported only for a padded tile (start-up)
    from .narrower import PitchSearch

Admit = Callable[[Any], bool] | None  # --for: which layouts may be candidates (None: all)


class Table(Value):
    """What the report shows beside the answer, every layout measured by the simulator."""

    alternatives: list[Candidate]  # the runners-up in rank order, without the answer
    families: list[FamilyReport]  # how each searched family was covered
    baseline: Candidate  # the unswizzled tile


class Solution(Value):
    """The answer, measured by the simulator, and (when asked for) the candidates table."""

    problem: Problem
    answer: Candidate
    table: Table | LazyTable | None = None  # None: solved with table=False
    extended: bool = False  # the families beyond none / cute / xor-cols were searched
    timed_out: bool = False  # --timeout cut a family that could still beat the answer
    unproven: str | None = None  # why the answer is not proven minimal (a family not covered whole), or None
    # the row lengths other than the given one that the search did not cover whole where a layout
    # there could still rank before the answer (named in ``unproven``); () when none
    unsearched_pitches: tuple[int, ...] = ()
    at_floor: bool = False  # conflicts, but the best of the base families meets every floor: nothing beyond searched
    keep_pitch: bool = False  # --keep-pitch: no layout that changes the given row length was a candidate
    # When the answer changes the given row length: the best layout found at the given one (None
    # when the search found none there), for the report's "pitch P as given: ..." line.
    at_given_pitch: Candidate | None = None
    changes_pitch: bool = False
    # the families of the given row length not searched whole (skipped: a narrower pitch's layout
    # ranks first; or cut) that could do better there than at_given_pitch
    given_unsearched: tuple[str, ...] = ()
    # --for: the targets every candidate had to be expressible in, and the answer without that
    # restriction (the price of the restriction is the difference); () and None without --for.
    targets: tuple[str, ...] = ()
    unrestricted: Candidate | None = None

    def _table(self) -> Table | LazyTable:
        if self.table is None:
            raise ValueError("this solution was solved without its candidates table: solve(problem, table=True)")
        return self.table

    @property
    def alternatives(self) -> list[Candidate]:
        return self._table().alternatives

    @property
    def families(self) -> list[FamilyReport]:
        return self._table().families

    @property
    def baseline(self) -> Candidate:
        return self._table().baseline

    @property
    def status(self) -> str:
        if self.timed_out:
            return "timeout"
        return self.answer.status


class LazyTable:
    """A Table whose runners-up are measured on first read (``_table(..., lazy=True)``): their
    re-checks by the simulator cost as much as the search that found them, and a caller that wants
    only the answer (the API) never reads them. The families' reports are known already.

    Threads may read one at once (the API's cache shares it): the first builds the table, under a
    lock, the others wait for it. Once ``freeze`` is called (api.frozen: it is about to be shared)
    nothing in it can be changed: its attributes, its lists and the reports refuse assignment."""

    __slots__ = ("families", "_args", "_built", "_lock", "_frozen")
    families: list[FamilyReport]
    _args: tuple | None
    _built: Table | None
    _lock: Any
    _frozen: bool

    def __init__(self, problem: Problem, answer: Candidate, found: list[Candidate], reports: list[FamilyReport]):
        for name, value in (("families", reports), ("_args", (problem, answer, found, reports)), ("_built", None),
                            ("_lock", threading.Lock()), ("_frozen", False)):
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: object) -> None:
        if self._frozen:
            raise FrozenError(f"cannot assign to {name!r}: the table is shared (a copy: result.solution)")
        object.__setattr__(self, name, value)

    def freeze(self) -> LazyTable:
        with self._lock:
            object.__setattr__(self, "families", FrozenList(frozen_report(f) for f in self.families))
            if self._built is not None:
                object.__setattr__(self, "_built", frozen_table(self._built))
            object.__setattr__(self, "_frozen", True)
        return self

    def built(self) -> Table:
        with self._lock:
            if self._built is None:
                assert self._args is not None
                built = _table(*self._args)
                assert isinstance(built, Table)
                object.__setattr__(self, "_built", frozen_table(built) if self._frozen else built)
                object.__setattr__(self, "_args", None)
            assert self._built is not None
            return self._built

    @property
    def alternatives(self) -> list[Candidate]:
        return self.built().alternatives

    @property
    def baseline(self) -> Candidate:
        return self.built().baseline


def frozen_table(table: Table) -> Table:
    """``table`` with its lists and reports read-only (api.frozen: shared by the cache)."""
    return Table(FrozenList(table.alternatives), FrozenList(frozen_report(f) for f in table.families),
                 table.baseline)


def _table(problem: Problem, answer: Candidate, found: list[Candidate], reports: list[FamilyReport],
           lazy: bool = False) -> Table | LazyTable:
    """Every runner-up re-checked (soundness.sound) and measured, its count checked; ``lazy``:
    measured on first read (LazyTable)."""
    if lazy:
        return LazyTable(problem, answer, found, reports)
    runners_up = [recheck(problem, c) for c in ranked(found) if c.layout != answer.layout]
    # the baseline is the identity measured: the answer or a runner-up already is, when it is one
    measured = [c for c in (answer, *runners_up) if c.layout == Identity()]
    return Table(runners_up, reports, measured[0] if measured else measure_as_given(problem, Identity()))


def _changes_pitch(problem: Problem, candidate: Candidate) -> bool:
    return candidate.layout.padded_form(problem.tile) is not None


def _at_pitches(problem: Problem, pitches: list[int], budget: Budget, admit: Admit, options: Options,
                least: int = 0, target: dict | None = None) -> PitchSearch:
    """The first layout at every target (``target``, default the lower bounds; ``least``: the excess
    it leaves) at one of ``pitches``, smallest first, in every family (narrower.py)."""
    from .narrower import search_pitches  # only for a padded tile, or an answer padded above (start-up)

    def later(at: Problem, admit_inner) -> tuple[list[Candidate], list[FamilyReport]]:
        from .extended import search_extended  # only where plain rows and one swizzle fail (start-up)

        skip = None if options.exhaustive else (lambda family, found: cannot_win(at, least, family, found))
        return search_extended(at, budget, first_conflict_free, options.engine, skip, True, admit_inner)

    return search_pitches(problem, pitches, budget, first_conflict_free, least, target, admit, later)


def _below(problem: Problem) -> list[int]:
    """The pitches below the given row length (none for a dense tile: no import, start-up)."""
    if problem.tile.row_length == problem.tile.cols:
        return []
    from .families.padding import other_pitches

    return other_pitches(problem)[0]


def _between(problem: Problem, answer: Candidate, least: int) -> list[int]:
    """The pitches above the given one and below an answer padded above it at every target: the
    padding family tried them with plain rows and one swizzle only."""
    from .families.padding import other_pitches  # the padding family was searched (start-up)

    form = answer.layout.padded_form(problem.tile)
    if answer.excess != least or form is None:
        return []
    return [p for p in other_pitches(problem)[1] if p < form[0]]


def _only_for_targets(problem: Problem, answer: Candidate, least: int) -> list[Unsearched]:
    """An answer that leaves more than every target (conflicts beyond the floors) could be beaten
    at another pitch: those were searched only for a layout at every target (docs/families.md),
    the ones above the given pitch with plain rows or one cute or xor-cols swizzle."""
    from .families.padding import other_pitches  # the padding family was searched (start-up)
    from .narrower import pitch_list

    below, above = other_pitches(problem)
    if answer.excess == least or not below + above:
        return []
    goal = "at every floor" if least else "conflict-free"
    where = f"; {pitch_list(above)} above {problem.tile.row_length} with plain rows or one cute or xor-cols swizzle" \
        if above else ""
    return [Unsearched(f"the other pitches were searched only for a layout {goal} (below {problem.tile.row_length} "
                       f"in every family{where})", tuple(below + above))]


def _unproven(missed: list[Unsearched]) -> dict:
    """The Solution's ``unproven`` and ``unsearched_pitches`` for what was not covered whole."""
    return {"unproven": f"not covered whole: {', '.join(m.what for m in missed)}" if missed else None,
            "unsearched_pitches": tuple(sorted({p for m in missed for p in m.pitches}))}


def _finish(problem: Problem, solution: Solution, found: list[Candidate], reports: Sequence[FamilyReport] = (),
            least: int = 0) -> Solution:
    """Say what the given pitch needs when the answer changes it: its best layout found, and the
    families of the given pitch not searched whole (``reports``: skipped, as a narrower pitch's
    layout ranks first, or cut) that could still do better there than that best."""
    if not _changes_pitch(problem, solution.answer):
        return solution
    given = [c for c in ranked(found) if not _changes_pitch(problem, c)]
    at_given = recheck(problem, given[0]) if given else None
    open_here = tuple(r.family for r in reports if (not r.searched or not r.complete)
                      and _at_given_pitch(problem, r.family)
                      and (at_given is None or at_given.excess > least or FAMILY_RANK[r.family] < at_given.family_rank))
    return replace(solution, changes_pitch=True, at_given_pitch=at_given, given_unsearched=open_here)


def _at_given_pitch(problem: Problem, family: str) -> bool:
    """Whether the family's search was of the given row length (padding's: of the pitches above it)."""
    from .extended import min_storage  # a family was skipped or cut: a later one, or the time limit

    return min_storage(problem, family) == problem.tile.size


def admit_for(problem: Problem, targets) -> Admit:
    """--for: the layouts every target of ``targets`` expresses exactly, as its emitter says (the
    same code that prints the snippet and the JSON's expressible_in); None: every layout."""
    if not targets:
        return None
    from .emit import expressible_in  # only with --for (start-up)

    wanted = tuple(targets)
    return lambda layout: len(expressible_in(problem, layout, wanted)) == len(wanted)


def cannot_win(problem: Problem, least: int, family: str, found: list[Candidate]) -> str | None:
    """Why no member of the later ``family`` can rank before a candidate already ``found``, or None.

    The rule is written against a lower bound on every member's rank key: a member leaves at least
    ``least`` excess (0, or the floors'), needs at least the family's least storage
    (extended.min_storage), and has the family's rank. A found candidate at that excess, in less
    storage (a narrower pitch's), or in no more storage and of an earlier family, ranks strictly
    before every member (DESIGN.md section 2: excess, then storage, then family).
    """
    from .extended import min_storage

    rank, storage = FAMILY_RANK[family], min_storage(problem, family)
    for c in ranked(found):
        if c.excess != least:
            break
        used = c.layout.storage(problem.tile)
        if used < storage or (used == storage and FAMILY_RANK[c.layout.family] < rank):
            what = "is conflict-free" if least == 0 else f"leaves the least excess any layout can ({least})"
            less = "less" if used < storage else "no more"
            return (f"{c.layout.name} ({c.layout.family}) {what} in {less} storage and ranks before every "
                    f"{family} member (--exhaustive searches it)")
    return None


class Options(Value):
    """How a solve searches: the CLI's flags and the API's keywords, one record (``solve`` takes its
    fields as keywords). A new option is one field here, with its default the behaviour without it.

    - ``families``: the every-solve families searched first (None: the registry's);
    - ``extend``: search the later families when none of them is conflict-free;
    - ``engine``: "smt" or "enum" for every later family that has both (None: each family's own);
    - ``table``: build the candidates table (None: only on first read, or not at all when a first
      conflict-free member answers);
    - ``exhaustive``: search every later family, even one that cannot rank before a candidate
      already found (``cannot_win``);
    - ``keep_pitch``: only layouts of the given row length (no padding added or dropped);
    - ``targets`` (--for): only layouts every one of these emit targets expresses exactly.
    """

    families: Sequence[Family] | None = None
    extend: bool = True
    engine: str | None = None
    table: bool | None = True
    exhaustive: bool = False
    keep_pitch: bool = False
    targets: tuple[str, ...] = ()


_DEFAULT = Options()


def solve(problem: Problem, options: Options | None = None, /, *, budget: Budget | None = None,
          **changes: Any) -> Solution:
    """The minimal layout (``options``, or ``Options`` with ``changes``: its fields by name),
    re-checked by the simulator. A tile given with a row length above its columns is also tried at
    the smaller pitches (less shared memory ranks first). With ``targets`` (--for) the solution also
    holds the unrestricted answer (the price)."""
    options = options or _DEFAULT
    options = replace(options, **changes) if changes else options
    budget = budget or Budget()
    if not options.targets:
        return _Solve(problem, options, budget, None).run()
    free = _Solve(problem, replace(options, table=False), budget, None).run()
    found = _Solve(problem, options, budget, admit_for(problem, options.targets)).run()
    return replace(found, targets=tuple(options.targets), unrestricted=free.answer)


class _Solve:
    """One solve's steps (``run``), with what they hand each other: the candidates ``found`` and the
    families' ``reports``, what was not covered whole (``missed``), the least excess any layout
    leaves (``least``: 0, or the floors') and each pattern's ``target``. budget.best follows the
    best candidate known (for --timeout's alarm: overtime.py)."""

    def __init__(self, problem: Problem, options: Options, budget: Budget, admit: Admit):
        self.problem, self.options, self.budget, self.admit = problem, options, budget, admit
        self.found: list[Candidate] = []
        self.reports: list[FamilyReport] = []
        self.missed: list[Unsearched] = []
        self.least = 0
        self.target: dict | None = None

    @property
    def other_pitches(self) -> bool:
        """Whether the pitches other than the given one are searched."""
        return self.options.extend and not self.options.keep_pitch

    def run(self) -> Solution:
        problem, admit = self.problem, self.admit
        invalid = None if admit is None else (
            lambda layout: layout.invalid(problem.tile) or (None if admit(layout) else "not expressible"))
        self.budget.best = None  # (--for solves twice: the unrestricted answer is no answer of the second)
        first = first_conflict_free(problem, self.options.families, self.budget, invalid=invalid)
        if first is not None:
            return self.with_first(first)
        return self.without_first()

    def pitches(self, pitches: list[int]) -> None:
        """Search ``pitches`` in every family for a layout at every target: its first, and what was
        not covered, join the solve's."""
        if pitches:
            at = _at_pitches(self.problem, pitches, self.budget, self.admit, self.options, self.least, self.target)
            self.found += [recheck(self.problem, at.found)] if at.found is not None else []
            self.missed += at.open

    def with_first(self, first: Candidate) -> Solution:
        """An every-solve family has a conflict-free member (``first``): it is the answer unless a
        smaller pitch has one (less storage); the table's branch and bound gives the runners-up."""
        problem, options, budget = self.problem, self.options, self.budget
        budget.best = first
        # a conflict-free layout at a smaller pitch ranks before it (padding: a later family)
        below = _below(problem) if self.other_pitches else []
        self.pitches(below)
        hit = self.found[0] if self.found else None
        timed_out = bool(self.missed) and budget.expired()
        budget.best = hit or first  # a smaller pitch's, conflict-free in less storage, ranks first
        done = {"keep_pitch": options.keep_pitch, "timed_out": timed_out, **_unproven(self.missed)}
        if not options.table:
            return _finish(problem, Solution(problem, hit or first, **done), [first] + ([hit] if hit else []))
        # The answer is known: --timeout cuts only the table's branch and bound (its runners-up),
        # which then may not hold the answer (the report says how far each family got).
        found, reports = search_families(problem, options.families, budget, self.admit)
        _insist_first(first, found)
        found += [hit] if hit is not None else []
        best = ranked(found)[0]  # the first conflict-free member (measured already), or a narrower pitch's
        answer = first if best.layout == first.layout else best
        return _finish(problem, Solution(problem, answer, _table(problem, answer, found, reports), **done), found)

    def without_first(self) -> Solution:
        """No every-solve family is conflict-free: their best, the narrower pitches, then the later
        families (unless the best already meets every floor), every answer re-measured."""
        problem, options = self.problem, self.options
        self.found, self.reports = search_families(problem, options.families, self.budget, self.admit,
                                                   conflict_free=False)
        self.budget.best = ranked(self.found)[0] if self.found else None
        best_excess = min((c.excess for c in self.found), default=None)
        self.least = _least(problem, best_excess)
        # The later families are searched when nothing here is conflict-free, unless the best already
        # meets every floor: then no admissible layout of any family leaves fewer wavefronts.
        at_floor = bool(best_excess) and best_excess == self.least
        if self.other_pitches:
            from .floors import targets  # (start-up: only on this path)

            self.target = targets(problem)
            # The pitches below the given one first, in every family, for a layout at every target:
            # one there ranks before every layout of the given pitch but these (less storage), so the
            # later families are then not searched at the given pitch (cannot_win).
            self.pitches(_below(problem))
        needed = options.extend and best_excess != 0 and not at_floor
        extended = needed and not self.budget.expired()
        if extended:
            self.later_families()
        answer = self.answer()
        cut = self.not_covered(answer, needed, extended)
        table = _table(problem, answer, self.found, self.reports, lazy=options.table is None) \
            if options.table is not False else None
        return _finish(problem, Solution(problem, answer, table, extended, cut, at_floor=at_floor,
                                         keep_pitch=options.keep_pitch, **_unproven(self.missed)),
                       self.found, self.reports, self.least)

    def later_families(self) -> None:
        """The later families at the given pitch (extended.py and its families are imported only
        here: start-up); then, when the answer is padded above the given pitch, the pitches between
        in every family."""
        from .extended import search_extended

        problem, options, least = self.problem, self.options, self.least
        skip = None if options.exhaustive else (lambda family, found: cannot_win(problem, least, family, found))
        more, more_reports = search_extended(problem, self.budget, first_conflict_free, options.engine, skip,
                                             options.keep_pitch, self.admit, self.found)
        self.found += more
        self.reports += more_reports
        if self.other_pitches and self.found:
            self.pitches(_between(problem, ranked(self.found)[0], least))

    def answer(self) -> Candidate:
        """The best found, ranked on the search's exact counts and re-measured (recheck insists the
        simulator agrees); the identity when the time limit cut every search."""
        order = ranked(self.found)
        self.budget.best = order[0] if order else None
        answer = recheck(self.problem, order[0]) if order else measure_as_given(self.problem, Identity())
        self.budget.best = answer
        return answer

    def not_covered(self, answer: Candidate, needed: bool, extended: bool) -> bool:
        """Add to ``missed`` what could still beat ``answer``: a family that could rank before it
        (or any, when it leaves more than the least excess) not covered whole (cut by --timeout, or
        left "unknown" by z3), the later families when the time limit left them unsearched, and
        pitches searched only for a layout at every target. True when the time limit cut the
        search (status "timeout")."""
        problem = self.problem
        self.missed += [Unsearched(r.family) for r in self.reports
                        if not r.complete and _could_rank_before(problem, r.family, answer, self.least)]
        if needed and not extended:  # (padding's pitches included)
            from .families.padding import other_pitches

            above = () if self.options.keep_pitch else tuple(other_pitches(problem)[1])
            self.missed.append(Unsearched("the families beyond none / cute / xor-cols", above))
        cut = bool(self.missed) and self.budget.expired()
        if extended and self.other_pitches:
            self.missed += _only_for_targets(problem, answer, self.least)
        return cut


def _least(problem: Problem, best_excess: int | None) -> int:
    """The least excess any admissible layout leaves: 0, or the floors' (floors.py) when the best
    of the every-solve families has conflicts (floors.py is imported only then: start-up)."""
    if not best_excess:
        return 0
    from .floors import floor_excess

    return floor_excess(problem)


def _insist_first(first: Candidate, found: list[Candidate]) -> None:
    """The branch and bound's best must be the first conflict-free member (added when it cut
    before reaching it)."""
    if all(c.layout != first.layout for c in found):
        found.append(first)
    best = ranked(found)[0]
    if best.layout != first.layout or best.excess != first.excess:
        raise AssertionError(f"internal error: the first conflict-free member is {first.layout.name}, "
                             f"the branch and bound says {best.layout.name} (excess {best.excess})")


def _could_rank_before(problem: Problem, family: str, answer: Candidate, least: int) -> bool:
    """Whether a member of ``family`` at the given pitch (padding: above it) could rank before
    ``answer``: it leaves fewer wavefronts, or as few (the least any layout can) in less storage,
    or the same storage and an earlier family."""
    if answer.excess > least:
        return True
    from .extended import min_storage  # a later family was searched (start-up)

    storage = min_storage(problem, family) * problem.tile.elem_bytes
    assert answer.storage_bytes is not None
    return (storage, FAMILY_RANK[family]) <= (answer.storage_bytes, answer.family_rank)


def check(problem: Problem, layout: Layout) -> tuple[Candidate, str | None]:
    """One given layout, measured; the second value says why it is not sound here (soundness.py),
    if it is not."""
    table = layout_table(problem.tile, layout)
    return measure_as_given(problem, layout, table), soundness(problem.tile, layout, problem.patterns, table)
