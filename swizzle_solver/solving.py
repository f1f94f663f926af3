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

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from .budget import Budget
from .candidate import Candidate, FamilyReport, Unsearched, measure_as_given, ranked, recheck
from .families import FAMILY_RANK
from .families.identity import Identity
from .layout import Family, Layout, layout_table
from .model import Problem
from .search import first_conflict_free, search_families
from .soundness import soundness
from .value import Value, replace

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
    only the answer (the API) never reads them. The families' reports are known already."""

    def __init__(self, problem: Problem, answer: Candidate, found: list[Candidate], reports: list[FamilyReport]):
        self.families = reports
        self._args: tuple | None = (problem, answer, found, reports)
        self._built: Table | None = None

    def built(self) -> Table:
        if self._built is None:
            assert self._args is not None
            built = _table(*self._args)
            assert isinstance(built, Table)
            self._built, self._args = built, None
        return self._built

    @property
    def alternatives(self) -> list[Candidate]:
        return self.built().alternatives

    @property
    def baseline(self) -> Candidate:
        return self.built().baseline


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


def _at_pitches(problem: Problem, pitches: list[int], budget: Budget, admit: Admit, engine: str | None,
                exhaustive: bool, least: int = 0, target: dict | None = None) -> PitchSearch:
    """The first layout at every target (``target``, default the lower bounds; ``least``: the excess
    it leaves) at one of ``pitches``, smallest first, in every family (narrower.py)."""
    from .narrower import search_pitches  # only for a padded tile, or an answer padded above (start-up)

    def later(at: Problem, admit_inner) -> tuple[list[Candidate], list[FamilyReport]]:
        from .extended import search_extended  # only where plain rows and one swizzle fail (start-up)

        skip = None if exhaustive else (lambda family, found: cannot_win(at, least, family, found))
        return search_extended(at, budget, first_conflict_free, engine, skip, True, admit_inner)

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


def solve(problem: Problem, families: Sequence[Family] | None = None, budget: Budget | None = None,
          extend: bool = True, engine: str | None = None, table: bool | None = True, exhaustive: bool = False,
          keep_pitch: bool = False, targets: Sequence[str] = ()) -> Solution:
    """The minimal layout over ``families`` (default: the every-solve families; and with ``extend``,
    the later families when no member
    of ``families`` is conflict-free), re-checked by the simulator; ``engine`` ("smt" or "enum")
    overrides each later family's default engine. ``table``: build the candidates table too (None:
    as False when a first conflict-free member answers, else the table is measured on first read).
    A later family that cannot rank before a candidate already found (``cannot_win``) is not
    searched, unless ``exhaustive``. ``keep_pitch``: only layouts of the given row length (no
    padding added or dropped). A tile given with a row length above its columns is also tried at
    the smaller pitches (less shared memory ranks first). ``targets`` (--for): only layouts every one
    of these emit targets expresses exactly; the solution then also holds the unrestricted answer
    (the price)."""
    budget = budget or Budget()
    if not targets:
        return _solve(problem, families, budget, extend, engine, table, exhaustive, keep_pitch, None)
    free = _solve(problem, families, budget, extend, engine, False, exhaustive, keep_pitch, None)
    found = _solve(problem, families, budget, extend, engine, table, exhaustive, keep_pitch,
                   admit_for(problem, targets))
    return replace(found, targets=tuple(targets), unrestricted=free.answer)


def _with_first(problem: Problem, first: Candidate, families, budget: Budget, table: bool | None, extend: bool,
                engine: str | None, exhaustive: bool, keep_pitch: bool, admit: Admit) -> Solution:
    """The solve when an every-solve family has a conflict-free member (``first``): it is the
    answer unless a smaller pitch has one (less storage); the table's branch and bound gives the
    runners-up."""
    budget.best = first
    # a conflict-free layout at a smaller pitch ranks before it (padding: a later family)
    below = [] if keep_pitch or not extend else _below(problem)
    narrower = _at_pitches(problem, below, budget, admit, engine, exhaustive) if below else None
    hit = narrower.found if narrower is not None else None
    open_below = narrower.open if narrower is not None else []
    timed_out = bool(open_below) and budget.expired()
    budget.best = hit or first  # a smaller pitch's, conflict-free in less storage, ranks first
    if not table:
        answer = first if hit is None else recheck(problem, hit)
        return _finish(problem, Solution(problem, answer, keep_pitch=keep_pitch, timed_out=timed_out,
                                         **_unproven(open_below)), [first] + ([hit] if hit else []))
    # The answer is known: --timeout cuts only the table's branch and bound (its runners-up),
    # which then may not hold the answer (the report says how far each family got).
    found, reports = search_families(problem, families, budget, admit)
    if all(c.layout != first.layout for c in found):
        found.append(first)
    best = ranked(found)[0]
    if best.layout != first.layout or best.excess != first.excess:
        raise AssertionError(f"internal error: the first conflict-free member is {first.layout.name}, "
                             f"the branch and bound says {best.layout.name} (excess {best.excess})")
    if hit is not None:
        found.append(recheck(problem, hit))
    best = ranked(found)[0]  # the first conflict-free member (measured already), or a narrower pitch's
    answer = first if best.layout == first.layout else best
    return _finish(problem, Solution(problem, answer, _table(problem, answer, found, reports),
                                    keep_pitch=keep_pitch, timed_out=timed_out, **_unproven(open_below)),
                   found)


def _solve(problem: Problem, families, budget: Budget, extend: bool, engine: str | None, table: bool | None,
           exhaustive: bool, keep_pitch: bool, admit: Admit) -> Solution:
    """budget.best follows the best candidate known (for --timeout's alarm: overtime.py)."""
    invalid = None if admit is None else (
        lambda layout: layout.invalid(problem.tile) or (None if admit(layout) else "not expressible"))
    budget.best = None  # (--for solves twice: the unrestricted answer is no answer of the second)
    first = first_conflict_free(problem, families, budget, invalid=invalid)
    if first is not None:
        return _with_first(problem, first, families, budget, table, extend, engine, exhaustive, keep_pitch, admit)
    found, reports = search_families(problem, families, budget, admit, conflict_free=False)  # the first search found none
    budget.best = ranked(found)[0] if found else None
    best_excess = min((c.excess for c in found), default=None)
    least = 0  # the least excess any admissible layout leaves: 0, or the floors' (floors.py)
    if best_excess:  # conflicts (floors.py is imported only on this path: start-up)
        from .floors import floor_excess

        least = floor_excess(problem)
    # The later families are searched when nothing here is conflict-free, unless the best already
    # meets every floor: then no admissible layout of any family leaves fewer wavefronts.
    at_floor = bool(best_excess) and best_excess == least
    # The pitches below the given one first, in every family, for a layout at every target: one
    # there ranks before every layout of the given pitch but these (less storage), so the later
    # families are then not searched at the given pitch (cannot_win).
    other = extend and not keep_pitch  # the other pitches are searched
    target = None
    if other:
        from .floors import targets  # (start-up: only on this path)

        target = targets(problem)
    missed: list[Unsearched] = []
    below = _below(problem) if other else []
    if below:
        narrower = _at_pitches(problem, below, budget, admit, engine, exhaustive, least, target)
        found += [recheck(problem, narrower.found)] if narrower.found is not None else []
        missed += narrower.open
    needed = extend and best_excess != 0 and not at_floor
    extended = needed and not budget.expired()
    if extended:  # extended.py and its families are imported only here (start-up)
        from .extended import search_extended

        skip = None if exhaustive else (lambda family, found: cannot_win(problem, least, family, found))
        more, more_reports = search_extended(problem, budget, first_conflict_free, engine, skip, keep_pitch, admit,
                                             found)
        found += more
        reports += more_reports
        # an answer padded above the given pitch: the pitches between, in every family
        between = _between(problem, ranked(found)[0], least) if other and found else []
        if between:
            wider = _at_pitches(problem, between, budget, admit, engine, exhaustive, least, target)
            found += [recheck(problem, wider.found)] if wider.found is not None else []
            missed += wider.open
    # Rank on the search's exact counts (recheck insists the simulator agrees).
    order = ranked(found)
    budget.best = order[0] if order else None
    answer = recheck(problem, order[0]) if order else measure_as_given(problem, Identity())  # empty: cut by the time limit
    budget.best = answer
    # The answer is not proven minimal if a family that could still beat it (ranked before it, or
    # any family when it leaves more than the least excess any layout can) was not covered whole:
    # cut by --timeout (status "timeout"), or left "unknown" by z3 (too many models refuted; the
    # status stays what the answer measures); nor if a pitch the search may choose was not searched
    # whole where a layout there could rank before it.
    missed += [Unsearched(r.family) for r in reports
               if not r.complete and _could_rank_before(problem, r.family, answer, least)]
    if needed and not extended:  # (padding's pitches included)
        from .families.padding import other_pitches

        above = () if keep_pitch else tuple(other_pitches(problem)[1])
        missed.append(Unsearched("the families beyond none / cute / xor-cols", above))
    cut = bool(missed) and budget.expired()
    if extended and other:
        missed += _only_for_targets(problem, answer, least)
    return _finish(problem, Solution(problem, answer, _table(problem, answer, found, reports,
                                                             lazy=table is None) if table is not False else None,
                                     extended, cut, at_floor=at_floor, keep_pitch=keep_pitch,
                                     **_unproven(missed)), found, reports, least)


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
