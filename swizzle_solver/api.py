"""The Python API: what a kernel generator script calls; the CLI is a thin layer over it.

    from swizzle_solver import solve

    result = solve(rows=64, cols=64, dtype="f16", access=["8x8", "row"])
    assert result.conflict_free
    result.name                  # 'Swizzle<3,3,3>'
    result.emit("cuda")          # C function phys(r, c), ready to paste
    result.json(emit=["triton"]) # the CLI's --json document

    checked = check("Swizzle<3,3,3>", rows=64, cols=64, dtype="f16", access=["8x8", "row"])
    assert checked.passed        # what --check says, as an object
"""
from __future__ import annotations

from collections.abc import Iterable
from functools import cached_property
from typing import TYPE_CHECKING

from .access import elem_bytes_of, make_problem
from .budget import Budget
from .candidate import Candidate
from .layout import Layout
from .model import Problem
from .solving import Solution
from .value import Value

if TYPE_CHECKING:  # the type only: bankmap.py is imported when a picture is asked for
    from .bankmap import BankMap


def problem(rows: int, cols: int, access=(), *, row_length: int | None = None, dtype: str | None = None,
            elem_bytes: int | None = None, banks: int | None = None, bank_bytes: int | None = None, phases=(),
            arch: str = "nvidia") -> Problem:
    """A problem from the CLI's vocabulary (raises model.InputError on bad input, like the CLI)."""
    if isinstance(access, str):
        access = [access]
    return make_problem(rows, cols, list(access), row_length, elem_bytes_of(dtype, elem_bytes), banks, bank_bytes,
                        list(phases), arch=arch)


class Result(Value, eq=False):
    """A solved problem: the minimal layout, its measurements, and its code."""

    solution: Solution

    @property
    def problem(self) -> Problem:
        return self.solution.problem

    @property
    def layout(self) -> Layout:
        return self.solution.answer.layout

    @property
    def name(self) -> str:
        return self.layout.name

    @property
    def status(self) -> str:
        return self.solution.status

    @property
    def conflict_free(self) -> bool:
        return self.solution.answer.conflict_free

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
        its rich report reads, report.solution_json)."""
        from .report import solution_json

        return with_emit(solution_json(self.solution, terminal), self.problem, self.layout, emit)

    def svg(self, access: str | None = None) -> str:
        """The --svg figure as text, outlining the access given by spec or 1-based position
        (default: the one the unswizzled tile serves worst)."""
        return figure(self.problem, self.layout, self.json()["answer"]["per_access"], access)


def solve(problem_: Problem | None = None, /, *, budget: Budget | None = None, table: bool = True,
          exhaustive: bool = False, keep_pitch: bool = False, for_targets=(), **kwargs) -> Result:
    """solve(problem(...)) or solve(rows=..., cols=..., access=[...], dtype=...). ``table=False``
    skips the candidates table when a first conflict-free member answers (then ``json`` and
    ``svg`` are not available: the CLI's --quiet); ``budget`` bounds the search (--timeout);
    ``exhaustive`` searches every later family, even those that cannot rank before an answer
    already found (--exhaustive); ``keep_pitch``: only layouts of the given row length
    (--keep-pitch); ``for_targets``: only layouts every one of these emit targets expresses
    exactly (--for; a name or a list)."""
    from .solving import solve as search

    if problem_ is None:
        problem_ = problem(**kwargs)
    elif kwargs:
        raise TypeError("give a problem or keyword arguments, not both")
    targets: tuple[str, ...] = ()
    if for_targets:
        from .emit import parse_targets, refuse_unavailable

        targets = tuple(parse_targets([for_targets] if isinstance(for_targets, str) else for_targets, "--for"))
        refuse_unavailable(targets, problem_.bank_model)
    return Result(search(problem_, budget=budget, table=table, exhaustive=exhaustive, keep_pitch=keep_pitch,
                         targets=targets))


class Checked(Value, eq=False):
    """One given layout, measured by the simulator (what --check prints)."""

    problem: Problem
    measured: Candidate  # per access worst and total wavefronts
    invalid: str | None  # why the layout is not sound here (soundness.py), or None
    budget: Budget | None = None  # bounds the search for ``minimal`` (batch's timeouts)

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

    @property
    def minimal_name(self) -> str | None:
        """The minimal conflict-free layout's name when the check fails and one exists, else None
        (None too when ``budget`` cut the search short: what it found is not known to be minimal)."""
        found = self.minimal
        return found.name if found is not None and found.conflict_free and found.status != "timeout" else None

    @cached_property
    def hint(self) -> str | None:
        """When the check fails and the layout is a CuTe swizzle whose M is at least log2(elem_bytes):
        the byte form of a swizzle given where element offsets are meant (DESIGN.md section 10). If its
        element form Swizzle<B, M - log2(elem_bytes), S> passes, say so (None otherwise)."""
        sw, e = self.layout.cute_swizzle(), self.problem.tile.elem_bytes
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
        from .candidate import measure
        from .families.identity import Identity
        from .report import check_json

        doc = check_json(self.problem, self.measured, measure(self.problem, Identity()), self.invalid,
                         self.minimal_name, terminal, self.hint)
        return with_emit(doc, self.problem, self.layout, emit)


def check(layout: Layout | str, problem_: Problem | None = None, /, *, budget: Budget | None = None,
          **kwargs) -> Checked:
    """check(layout, problem(...)) or check(layout, rows=..., cols=..., access=[...]): ``layout``
    is a layout object or a name as the tool prints it (names.checkable()), or a layout in the
    kernel's own notation ("expr: r * 72 + c", "cute: ...", "triton: ...", "table:FILE", "128B").
    ``budget`` bounds the search for the layout to use instead when the check fails
    (Checked.minimal), not the check."""
    from .names import parse_layout
    from .solving import check as measure_check

    if problem_ is None:
        problem_ = problem(**kwargs)
    elif kwargs:
        raise TypeError("give a problem or keyword arguments, not both")
    if isinstance(layout, str):
        layout = parse_layout(layout, "layout", tile=problem_.tile)
    measured, why = measure_check(problem_, layout)
    return Checked(problem_, measured, why, budget)


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
