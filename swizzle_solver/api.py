"""The Python API: what a kernel generator script calls; the CLI is a thin layer over it.

    from swizzle_solver import solve

    result = solve(rows=64, cols=64, dtype="f16", access=["8x8", "row"])
    assert result.conflict_free
    result.name                  # 'Swizzle<3,3,3>'
    result.emit("cuda")          # C function phys(r, c), ready to paste
    result.json(emit=["triton"]) # the CLI's --json document

    checked = check("Swizzle<3,3,3>", rows=64, cols=64, dtype="f16", access=["8x8", "row"])
    assert checked.passed        # what --check says, as an object

    copy = tiled_copy("UniversalCopy<uint128_t>", pycute.Layout((32, 4), (4, 1)), pycute.Layout((1, 8)))
    check("Swizzle<3,3,3>", rows=64, cols=64, dtype="f16", access=[copy])   # a CuTe TiledCopy, counted
"""
from __future__ import annotations

import reprlib
from collections.abc import Iterable
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Any

from . import solving
from .access import elem_bits_of, elem_bytes_of, make_problem, needs_forms_above, scalar_bytes_of
from .budget import Budget
from .candidate import Candidate
from .layout import Layout
from .model import InputError, Problem
from .solving import Options, Solution
from .value import FrozenError, Value, field, replace

if TYPE_CHECKING:  # the type only: bankmap.py is imported when a picture is asked for
    from .bankmap import BankMap


def problem(rows: int, cols: int, access=(), *, row_length: int | None = None, dtype: str | None = None,
            elem_bytes: int | None = None, banks: int | None = None, bank_bytes: int | None = None, phases=(),
            arch: str = "nvidia", order: str = "row", define: dict | None = None) -> Problem:
    """A problem from the CLI's vocabulary (raises model.InputError on bad input, like the CLI). An
    access compiled before for the same tile and hardware is reused (memo.parse_access): patterns
    are immutable, and solve's cache knows them. ``order``: "row" (default) or "col", the tile's
    storage order (--order; a column-major tile's row_length is its column length). ``define``:
    template constants ``{"BM": 128}``, substituted in index:/offset: accesses as the CLI's -D."""
    from .memo import parse_access

    if isinstance(access, str):
        access = [access]
    for spec in access:
        if not isinstance(spec, str):
            raise InputError(f"access {reprlib.repr(spec)[:40]}: an access is a string, e.g. '8x8' or 'ldmatrix.x4'")
    if define:
        from .notation import defined_accesses

        access = defined_accesses(list(access), _define_items(define), "define")
    if needs_forms_above(access):
        from . import indexed, tiled  # noqa: F401  (index:, offset: and make_tiled_copy register their readers)
    return make_problem(rows, cols, list(access), row_length, elem_bytes_of(dtype, elem_bytes), banks=banks,
                        bank_bytes=bank_bytes, phases_files=list(phases), arch=arch, parse=parse_access,
                        elem_bits=elem_bits_of(dtype), scalar_bytes=scalar_bytes_of(dtype), order=order)


def tiled_copy(atom: str, thr_layout: Any, val_layout: Any, value_type: str = "half_t") -> str:
    """The access of CuTe's ``make_tiled_copy(Copy_Atom<atom, value_type>{}, thr_layout, val_layout)``
    from layouts with ``.shape`` and ``.stride`` (pycute's, the CuTe DSL's): a spec for ``access=``
    (tiled.py evaluates every thread's addresses and counts each warp instruction)."""
    from .tiled import tiled_copy as text

    return text(atom, thr_layout, val_layout, value_type)


class Tabled:
    """One solved problem as the API keeps it: the answer (``answered``, solving.solve with
    table=None), and the solution with its candidates table, built on first use and kept (a caller
    that wants the answer never pays for the report). Shared by every Result of the problem that
    the cache (memo.py) hands out, and by threads: read-only (assignment raises FrozenError), its
    solutions frozen (``frozen``), the table built once under a lock."""

    __slots__ = ("answered", "_options", "_full", "_lock")
    answered: Solution
    _options: Options
    _full: Solution | None
    _lock: Any

    def __init__(self, answered: Solution, options: Options):
        import threading

        answered = frozen(answered)
        for name, value in (("answered", answered), ("_options", options), ("_lock", threading.Lock()),
                            ("_full", answered if answered.table is not None else None)):
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenError(f"cannot assign to {name!r}: a solved problem is shared with the cache")

    def __delattr__(self, name: str) -> None:
        raise FrozenError(f"cannot delete {name!r}: a solved problem is shared with the cache")

    def full(self) -> Solution:
        if self._full is None:
            with self._lock:
                if self._full is None:
                    object.__setattr__(self, "_full", frozen(self._with_table()))
        assert self._full is not None
        return self._full

    def _with_table(self) -> Solution:
        full = solving.solve(self.answered.problem, replace(self._options, table=True))
        answered = self.answered.answer
        if full.answer.layout != answered.layout or full.answer.excess != answered.excess:
            raise AssertionError(f"internal error: the answer is {answered.layout.name} (excess {answered.excess}), "
                                 f"the solve with its table says {full.answer.layout.name} "
                                 f"(excess {full.answer.excess})")
        return full


class Result(Value, eq=False):
    """A solved problem: the minimal layout, its measurements, and its code. ``answered`` is the
    search's answer; the candidates table and the evidence are built when first asked for
    (``solution``, ``json``, ``svg``)."""

    answered: Solution
    tabled: Tabled | None = field(default=None, repr=False)  # None: ``answered`` is the whole solution

    @property
    def solution(self) -> Solution:
        """The full search result, the candidates table included (built on first use). A copy when
        the solution is shared with the cache: changing it changes no later result."""
        if self.tabled is None:
            return self.answered
        return detached(self.tabled.full())

    def _solution(self) -> Solution:
        """The full solution itself (not a copy): what this module reads."""
        return self.answered if self.tabled is None else self.tabled.full()

    @property
    def problem(self) -> Problem:
        return self.answered.problem

    @property
    def layout(self) -> Layout:
        return self.answered.answer.layout

    @property
    def name(self) -> str:
        return self.layout.name

    @property
    def status(self) -> str:
        return self.answered.status

    @property
    def conflict_free(self) -> bool:
        return self.answered.answer.conflict_free

    @property
    def expression(self) -> str | None:
        """phys(r, c) as a C expression (also valid Python); a search's answer always has one."""
        return self.layout.expression(self.problem.tile)

    def emit(self, target: str) -> str:
        """The snippet for one target of emit.TARGETS (a 'cannot express' note when it cannot)."""
        from .emit import emit

        return emit(target.strip().lower(), self.problem, self.layout).code

    def json(self, emit=(), terminal: bool = False) -> dict:
        """The CLI's --json document, with answer.emit for the targets asked (``terminal``: the one
        its rich report reads, report.solution_json). A new document on every call."""
        from .report import solution_json

        doc = with_emit(solution_json(self._solution(), terminal), self.problem, self.layout, emit)
        return doc if self.tabled is None else plain_copy(doc)  # nothing in it shared with the cache

    def svg(self, access: str | None = None) -> str:
        """The --svg figure as text, outlining the access given by spec or 1-based position
        (default: the one the unswizzled tile serves worst)."""
        return figure(self.problem, self.layout, self.json()["answer"]["per_access"], access)


def solve(problem_: Problem | None = None, /, *, budget: Budget | None = None, table: bool | None = None,
          exhaustive: bool = False, keep_pitch: bool = False, for_targets=(), cache: bool = True,
          **kwargs) -> Result:
    """solve(problem(...)) or solve(rows=..., cols=..., access=[...], dtype=...).

    The answer is searched now; the candidates table and the evidence (``json``, ``svg``,
    ``solution``) on first use, unless ``table`` is True (build it now) or a ``budget`` is given.
    ``budget`` bounds the search (--timeout): the solve then runs as the CLI's, the table built now
    unless ``table`` is False (then ``json`` and ``svg`` are not available: the CLI's --quiet).
    ``exhaustive`` searches every later family, even those that cannot rank before an answer
    already found (--exhaustive); ``keep_pitch``: only layouts of the given row length
    (--keep-pitch); ``for_targets``: only layouts every one of these emit targets expresses
    exactly (--for; a name or a list).

    ``cache`` (default on): a problem solved before in this process, with the same options, is
    answered from the cache (memo.py: keyed by the parsed problem, bounded; ``cache_clear``,
    ``cache_info``, ``cache_resize``). A solve with a ``budget`` is never cached (its answer
    depends on the time)."""
    if problem_ is not None and kwargs:
        raise TypeError("give a problem or keyword arguments, not both")
    if problem_ is None and not isinstance(kwargs.get("arch", "nvidia"), str):
        return solve_targets(budget=budget, exhaustive=exhaustive, keep_pitch=keep_pitch, **kwargs)
    targets: tuple[str, ...] = ()
    if for_targets:
        from .emit import parse_targets, refuse_unavailable

        targets = tuple(parse_targets([for_targets] if isinstance(for_targets, str) else for_targets, "--for"))
        problem_, kwargs = (problem(**kwargs) if problem_ is None else problem_), {}
        refuse_unavailable(targets, problem_.hardware)
    if budget is not None:
        problem_ = problem(**kwargs) if problem_ is None else problem_
        options = Options(table=table is not False, exhaustive=exhaustive, keep_pitch=keep_pitch, targets=targets)
        return Result(solving.solve(problem_, options, budget=budget))
    # the solve's options (solving.Options' fields) as plain values: a cached answer is found by them
    # without building the record (the sweep's repeated solve: 0.023 ms)
    chosen: dict[str, Any] = {"exhaustive": exhaustive, "keep_pitch": keep_pitch, "targets": targets}
    tabled = _solved(problem_, kwargs, chosen) if cache else None
    if tabled is None:
        problem_ = problem(**kwargs) if problem_ is None else problem_
        options = _options(**chosen)
        tabled = Tabled(solving.solve(problem_, options), options)
    if table:
        tabled.full()
    return Result(tabled.answered, tabled)


def solve_targets(*, arch, budget: Budget | None = None, exhaustive: bool = False, keep_pitch: bool = False,
                  **kwargs):
    """solve(..., arch=["sm90", "gfx942"]): the joint answer over several targets (portable.py), a
    ``portable.Joint``: ``layout``, ``at_every_minimum``, ``verdict()``, and ``targets`` (each
    target's counts and own minimum). ``arch`` is a list of names and groups (or one comma-separated
    string); an access may be given per target (``"nvidia:ldmatrix.x4"``)."""
    from .portable import arch_list, problems, solve_joint

    names = arch_list(",".join(arch) if not isinstance(arch, str) else arch)
    rows, cols, access = kwargs.pop("rows"), kwargs.pop("cols"), kwargs.pop("access", ())
    access = [access] if isinstance(access, str) else list(access)
    dtype, elem_bytes = kwargs.pop("dtype", None), kwargs.pop("elem_bytes", None)
    parts = problems(names, rows, cols, access, elem_bytes=elem_bytes_of(dtype, elem_bytes),
                     elem_bits=elem_bits_of(dtype), scalar_bytes=scalar_bytes_of(dtype), phases_files=list(kwargs.pop("phases", ())), **kwargs)
    return solve_joint(parts, Options(table=False, exhaustive=exhaustive, keep_pitch=keep_pitch), budget)


def sweep(matrix: dict, check: str | None = None, **case) -> list[dict]:
    """Every config of a kernel template, solved (or ``check``-ed) one after the other: one record
    per config, as batch's ``[case.matrix]`` makes them (configs.py): ``matrix`` maps variables to
    value lists (and ``include``/``exclude``), ``case`` gives solve's keywords, any value holding
    ``{var}``. A record: ``name``, ``config`` ((variable, value) pairs), ``ok``, ``status``,
    ``answer``, ``excess``, ``conflicting`` (the accesses that conflict, with their excess), ``fix``
    (the layout to use: the answer, or for a failed check the minimal one). ``write_csv(records,
    file)`` writes them as CSV (no pandas)."""
    from .configs import config_name, read_matrix, substituted
    from .outcomes import conflicting, failed_check_why
    from .report import reported_excess

    where = "sweep"
    grid = read_matrix(matrix, where)
    records = []
    for config in grid:
        words = {k: substituted(v, config, where) for k, v in case.items()}
        layout = substituted(check, config, where) if check is not None else None
        base = {"name": config_name(words.pop("name", "sweep"), config, where),
                "config": tuple(config.items())}
        if layout is None:
            result = solve(**words)
            measured, answer, ok = result.answered.answer, result.name, result.conflict_free
            record = {"ok": ok, "status": result.status, "answer": answer, "fix": answer}
        else:
            checked = _check_layout(layout, **words)
            measured, answer, ok = checked.measured, checked.layout.name, checked.passed
            fix = "" if ok else checked.minimal_name or checked.better_name or ""
            record = {"ok": ok, "status": checked.status, "answer": answer, "fix": fix,
                      **({} if ok else {"why": failed_check_why(answer, checked.invalid, checked.minimal_name,
                                                                checked.better_name)})}
        prob = result.problem if layout is None else checked.problem
        records.append({**base, **record, "excess": reported_excess(prob, measured),
                        "conflicting": conflicting(prob, measured)})
    return records


@lru_cache(maxsize=64)
def _options(**chosen: Any) -> Options:
    """The record of the options chosen, the table built on first read: one per distinct choice (a
    record costs more to build than a cached solve takes, and a sweep asks with the same few)."""
    return Options(table=None, **chosen)


def _solved(problem_: Problem | None, kwargs: dict, chosen: dict[str, Any]) -> Tabled | None:
    """The cached Tabled of this problem and options (solved and cached now when it is not)."""
    from . import memo
    if memo.SOLVED.size <= 0:
        return None
    if problem_ is None:
        words = memo.keywords_key(kwargs)
        parsed = None if words is None else memo.PARSED.get(words)
        if parsed is None:
            problem_ = problem(**kwargs)
            parsed = (problem_, memo.problem_key(problem_))
            if words is not None:
                memo.PARSED.put(words, parsed)
        problem_, key = parsed
    else:
        key = memo.problem_key(problem_)
    key = (key, *chosen.values())  # every option chosen (in the same order on every call)
    tabled = memo.SOLVED.get(key)
    if tabled is None:
        options = _options(**chosen)
        tabled = Tabled(solving.solve(problem_, options), options)
        memo.SOLVED.put(key, tabled)
    return tabled


def cache_clear() -> None:
    """Empty solve's cache (and its counts)."""
    from . import memo

    memo.SOLVED.clear()
    memo.PARSED.clear()
    memo.PATTERNS.clear()


def cache_info() -> dict[str, int]:
    """solve's cache: ``hits``, ``misses``, ``size`` (problems held) and ``maxsize``."""
    from . import memo

    return {"hits": memo.SOLVED.hits, "misses": memo.SOLVED.misses, "size": len(memo.SOLVED),
            "maxsize": memo.SOLVED.size}


def cache_resize(maxsize: int) -> None:
    """Hold at most ``maxsize`` solved problems (least recently used out first); 0 turns the cache off."""
    from . import memo

    if maxsize < 0:
        raise ValueError("the cache size is a count of problems, 0 or more")
    memo.SOLVED.resize(maxsize)
    memo.PARSED.resize(maxsize)
    memo.PATTERNS.resize(4 * maxsize)


def sealed(solution: Solution) -> Solution:
    """The solution with the simulator's arrays it holds made read-only (it is about to be shared)."""
    from .memo import seal

    for c in (solution.answer, solution.at_given_pitch, solution.unrestricted):
        for r in c.results if c is not None else ():
            seal(r.costs)
    return solution


def frozen(solution: Solution) -> Solution:
    """The solution as the cache shares it: its arrays read-only (``sealed``), its candidates
    table's lists and family reports read-only (solving.frozen_table, LazyTable.freeze); the
    records on the way (Solution, Candidate, Problem, layouts) are frozen values already."""
    from .solving import LazyTable, Table, frozen_table

    solution = sealed(solution)
    if isinstance(solution.table, LazyTable):
        solution.table.freeze()
    elif isinstance(solution.table, Table):
        solution = replace(solution, table=frozen_table(solution.table))
    return solution


def detached(solution: Solution) -> Solution:
    """A copy of a shared solution that a caller may change: new lists and family reports, the
    arrays read-only, the frozen records (candidates, layouts, the problem) shared."""
    from .candidate import FamilyReport
    from .solving import Table

    if solution.table is None:
        return sealed(replace(solution))
    t = solution.table
    alternatives = list(t.alternatives)
    for c in [t.baseline, *alternatives]:
        for r in c.results:
            r.costs.flags.writeable = False
    families = [FamilyReport(**{**vars(f), "smt": plain_copy(f.smt)}) for f in t.families]
    return sealed(replace(solution, table=Table(alternatives, families, t.baseline)))


def plain_copy(value):
    """A deep copy of a JSON value (dicts, lists, scalars), faster than copy.deepcopy."""
    if isinstance(value, dict):
        return {k: plain_copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain_copy(v) for v in value]
    return value


class Checked(Value, eq=False):
    """One given layout, measured by the simulator (what --check prints)."""

    problem: Problem
    measured: Candidate  # per access worst and total wavefronts
    invalid: str | None  # why the layout is not sound here (soundness.py), or None
    budget: Budget | None = None  # bounds the search for ``minimal`` (batch's timeouts)
    stages: tuple = ()  # a staged layout (stages.py): every stage's Stage; measured is the reported one's

    @property
    def layout(self) -> Layout:
        return self.measured.layout

    @property
    def passed(self) -> bool:
        """Usable and conflict-free (the CLI's exit code 0)."""
        from .report import check_passed

        return check_passed(self.measured, self.invalid)

    @property
    def status(self) -> str:
        """"not-usable" (``invalid`` says why), "conflict-free" or "conflicts": the JSON's status."""
        from .report import check_status

        return check_status(self.measured, self.invalid)

    @cached_property
    def minimal(self) -> Result | None:
        """When the check fails: the search's answer for the same problem, which names the layout
        to use instead (None when the check passes; solved once, on first use)."""
        return None if self.passed else solve(self.problem, table=False, budget=self.budget)

    @cached_property
    def _alternative(self) -> tuple[str | None, str | None]:
        """(minimal_name, minimal_unproven). A floor proof ends it: when the floors (floors.py) leave
        an excess no admissible layout avoids, none is conflict-free and nothing is searched.
        Otherwise the solve (``minimal``, bounded as every solve: a later family that cannot rank
        before a conflict-free member found is not searched, the balance conditions refute before
        z3) names it, and says when a family that could still hold a conflict-free layout ranking
        first was not covered whole."""
        if self.passed:
            return None, None
        from .floors import floor_excess

        if floor_excess(self.problem) > 0:
            return None, None
        found = self.minimal
        assert found is not None
        cut = found.status == "timeout"  # (batch's budget cut it: what it found is not known minimal)
        return (found.name if found.conflict_free and not cut else None), found.answered.unproven

    @property
    def minimal_name(self) -> str | None:
        """The minimal conflict-free layout's name when the check fails and one exists, else None."""
        return self._alternative[0]

    @cached_property
    def better_name(self) -> str | None:
        """When the check fails and no layout is conflict-free (``minimal_name`` is None): the
        search's answer, when it leaves fewer excess wavefronts than the layout checked (the --check
        line names it: "none conflict-free" alone hid it); None otherwise, or when the search was
        cut short. A layout checked at the floors (floors.py) has none better: nothing is searched."""
        if self.passed or self.minimal_name is not None:
            return None
        from .floors import floor_excess
        from .report import reported_excess

        if self.invalid is None and self.measured.excess == floor_excess(self.problem):
            return None

        found = self.minimal
        if found is None or found.status == "timeout":
            return None
        mine = reported_excess(self.problem, self.measured) if self.invalid is None else None
        theirs = reported_excess(self.problem, found.answered.answer)
        return found.name if mine is None or theirs < mine else None

    @property
    def minimal_unproven(self) -> str | None:
        """When the check fails and the search for the layout to use instead left a family that could
        hold a conflict-free layout ranking before it (or any, when it names none) not covered whole:
        which (the solve's ``unproven``); None when the name, or that none is conflict-free, is proven."""
        return self._alternative[1]

    @cached_property
    def hint(self) -> str | None:
        """When the check fails and the layout is a CuTe swizzle whose M is at least log2(elem_bytes):
        the byte form of a swizzle given where element offsets are meant (DESIGN.md section 10). If its
        element form Swizzle<B, M - log2(elem_bytes), S> passes, say so (None otherwise)."""
        sw, e = self.layout.cute_swizzle() or _written_swizzle(self.layout, self.problem.tile), self.problem.tile.elem_bytes
        if self.passed or sw is None or e == 1 or e.bit_length() - 1 > sw.M:
            return None
        from .families.cute import Swizzle

        element = Swizzle(sw.B, sw.M - (e.bit_length() - 1), sw.S)
        if not check(element, self.problem).passed:
            return None
        mode = element.tma_mode(e)
        return (f"{sw.name} is the byte form of {element.name} on {e}-byte elements"
                f"{f' (the {mode} TMA swizzle)' if mode else ''}, which passes: CuTe's Swizzle here acts on "
                f"element offsets; write {element.name}, or bytes:{sw.name} for the byte form")

    @property
    def worst(self) -> dict[str, int]:
        """Worst wavefronts of each access, by spec."""
        return {r.pattern.spec: r.worst for r in self.measured.results}

    def json(self, emit=(), terminal: bool = False) -> dict:
        """The CLI's --check --json document, with answer.emit for the targets asked (``terminal``:
        the one its rich report reads, report.solution_json)."""
        from .candidate import measure_as_given
        from .families.identity import Identity
        from .report import check_json

        doc = check_json(self.problem, self.measured, measure_as_given(self.problem, Identity()), self.invalid,
                         self.minimal_name, terminal, self.hint, self.minimal_unproven, self.better_name)
        if self.stages:  # a staged layout: every stage's verdict, and the one reported
            doc["check"].update(stage=self.stage, stages=self.stages_json())
        return with_emit(doc, self.problem, self.layout, emit)

    @property
    def stage(self) -> int | None:
        """A staged layout: the stage whose counts the check reports (stages.worst); None otherwise."""
        from .stages import worst

        return worst(self.stages) if self.stages else None

    def stages_json(self) -> list[dict]:
        """Every stage's verdict; ``same_as``: the first earlier stage with the same counts."""
        first: dict[tuple, int] = {}
        out = []
        for s in self.stages:
            key = (s.status, s.counts)
            out.append(s.json(first.get(key)))
            first.setdefault(key, s.stage)
        return out

    @property
    def stages_summary(self) -> str | None:
        """The stages in words (stages.summary), or None for a layout of one stage."""
        from .stages import summary, worst

        return summary(self.stages_json(), worst(self.stages)) if self.stages else None


def _written_swizzle(layout: Layout, tile) -> Any:
    """The swizzle a ``cute:`` layout writes (``S<3,4,3> o 0 o (8,64):(64,1)``, as the DSL prints it)
    when the layout is exactly that swizzle of the tile's row-major offsets, for Checked.hint; else None."""
    written = getattr(getattr(layout, "source", None), "written_swizzle", None)
    sw = written() if written is not None else None
    if sw is None:
        return None
    from .layout import layout_table

    try:
        same = bool((layout_table(tile, layout) == layout_table(tile, sw)).all())
    except InputError:
        return None
    return sw if same else None


def check(layout: Layout | str, problem_: Problem | None = None, /, *, budget: Budget | None = None,
          define: dict | None = None, **kwargs) -> Checked:
    """check(layout, problem(...)) or check(layout, rows=..., cols=..., access=[...]): ``layout``
    is a layout object or a name as the tool prints it (names.checkable()), or a layout in the
    kernel's own notation ("expr: r * 72 + c", "cute: ...", "triton: ...", "table:FILE", "128B").
    ``budget`` bounds the search for the layout to use instead when the check fails
    (Checked.minimal), not the check. ``define``: template constants, ``{"kSwizzle": 3}``, as the
    CLI's ``-D kSwizzle=3``: substituted in the layout's text and, with keyword arguments, in the
    index:/offset: accesses (problem's ``define``)."""
    from .names import parse_layout
    from .solving import check as measure_check

    if problem_ is None:
        problem_ = problem(**kwargs, define=define)
    elif kwargs:
        raise TypeError("give a problem or keyword arguments, not both")
    if not isinstance(layout, str) and not hasattr(layout, "phys"):  # (Layout is a Protocol: its method)
        raise InputError(f"layout {reprlib.repr(layout)[:40]}: give a layout's name or notation as a string (e.g. "
                         f"'Swizzle<3,3,3>', 'cute: ...') or a layout object")
    if isinstance(layout, str):
        if define:
            from .notation import defined

            layout = str(defined(layout, _define_items(define), "define"))
        layout = parse_layout(layout, "layout", tile=problem_.tile)
    from .stages import staged

    if staged(layout) > 1:
        return _check_stages(layout, problem_, budget)
    measured, why = measure_check(problem_, layout)
    return Checked(problem_, measured, why, budget)


def _check_stages(layout: Layout, problem_: Problem, budget: Budget | None) -> Checked:
    """A staged layout (stages.py): every stage checked; the worst reported, every stage listed; two
    stages on one offset make it not usable."""
    from .layout import layout_table
    from .report import check_status
    from .solving import check as measure_check
    from .stages import Stage, overlap, stage_layouts, worst

    parts = [(one, *measure_check(problem_, one)) for one in stage_layouts(layout)]
    stages = tuple(Stage(s, int(layout_table(problem_.tile, one).min()), check_status(m, why),
                         None if why is not None else m.excess, tuple((r.worst, r.total) for r in m.results))
                   for s, (one, m, why) in enumerate(parts))
    _, measured, why = parts[worst(stages)]
    shared = overlap(problem_.tile, [layout_table(problem_.tile, one) for one, _, _ in parts])
    return Checked(problem_, measured, why or shared, budget, stages)


def _define_items(define: dict) -> list[str]:
    """The API's ``define`` (a dict of names to integers) as -D's NAME=VALUE items, checked as -D's are."""
    if not isinstance(define, dict):
        raise InputError(f"define must be a dict of template constants, e.g. define={{'kSwizzle': 3}}, not "
                         f"{type(define).__name__}")
    items = []
    for name, value in define.items():
        if not isinstance(name, str) or isinstance(value, bool) or not isinstance(value, int):
            raise InputError(f"define {name!r}: {value!r}: each constant is a name and an integer, e.g. "
                             f"define={{'kSwizzle': 3}}")
        items.append(f"{name}={value}")
    return items


_check_layout = check  # (sweep's keyword ``check`` hides the function there)


def with_emit(doc: dict, prob: Problem, layout: Layout, targets: Iterable[str]) -> dict:
    """Add answer.emit.TARGET (the snippet) and answer.emit_expressible.TARGET to a JSON document;
    none to a --check document of a layout that is not usable (no code for a map no kernel can use:
    its check.invalid says why)."""
    if not targets:  # emit.py is imported only when code is asked for (start-up)
        return doc
    from .report import NOT_USABLE

    if doc["status"] == NOT_USABLE:
        return doc
    from .emit import emit_all, parse_targets

    targets = parse_targets(targets)
    if targets:
        snippets = emit_all(targets, prob, layout)
        doc["answer"]["emit"] = {t: s.code for t, s in snippets.items()}
        doc["answer"]["emit_expressible"] = {t: s.expressible for t, s in snippets.items()}
    return doc


def bank_maps(prob: Problem, layout: Layout, access: str | None) -> tuple[BankMap, BankMap]:
    """(before, after) bank maps for the chosen access: the unswizzled tile and the layout."""
    from .bankmap import bank_map, choose_access
    from .families.identity import Identity

    index = choose_access(prob, access)
    return bank_map(prob, Identity(), index), bank_map(prob, layout, index)


def figure(prob: Problem, layout: Layout, per_access: list[dict], access: str | None = None) -> str:
    from .svg import svg_text

    before, after = bank_maps(prob, layout, access)
    return svg_text(prob, before, after, per_access)
