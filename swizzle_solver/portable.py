"""One layout for several targets (``--arch sm90,gfx942``): the matrix of a layout's counts, access by
target, and the joint solve.

*Targets.* ``--arch`` takes a comma-separated list of targets (names or aliases, hardware.py) and
groups: ``all`` (every generation and AMD target, not the generic ``nvidia``), ``nvidia-all`` (the
NVIDIA generations sm80 .. sm120), ``amd``, ``cdna`` (AMD targets with MFMA), ``rdna`` (without).
Groups are read from the targets' data (``language``, ``instructions``), never from their names.

*Accesses per target.* ``SEL:SPEC`` gives access SPEC to the targets of the list that SEL selects;
SEL is ``nvidia`` (every target whose kernels are CUDA), ``amd`` (HIP), ``cdna``, ``rdna``, a
target's name or alias, or several joined by ``+`` (``sm90+gfx942:8x8``). A spec without a
selector is every target's; a target that cannot run it is named (exit 2, one line) with the fix.

*The joint solve.* The problem of every target is compiled on its own (its banks, phases and
instructions); their patterns together, each with its own bank count and named ``TARGET:SPEC``,
are one problem, whose excess is the sum of the targets' excesses: the ordinary search over it
finds the layout that ranks first on (sum of excess over targets, storage, family, ...), with the
same families, proofs and floors. The answer is then measured on each target's own problem by the
simulator (its counts and rank proof there), beside each target's own answer. The sum of the
targets' own minima is a lower bound of every layout's sum: the joint answer reaches every
target's own minimum exactly when its sum equals it, and otherwise (its search proven) no single
layout of the searched families does.
"""
from __future__ import annotations

from collections.abc import Sequence

from .access import make_problem
from .candidate import Candidate, measure_as_given
from .hardware import ALIASES, TARGETS, Hardware, target
from .layout import Layout
from .model import InputError, Problem
from .value import Value, replace

GROUPS = ("all", "nvidia-all", "amd", "cdna", "rdna")


def _in_group(group: str, hw: Hardware) -> bool:
    """Whether ``hw`` is in ``group`` (as a selector, ``nvidia`` is the CUDA targets)."""
    if group in ("nvidia", "nvidia-all"):
        return hw.language == "CUDA"
    if group == "amd":
        return hw.language == "HIP"
    if group == "cdna":
        return hw.language == "HIP" and "mfma" in hw.instructions
    if group == "rdna":
        return hw.language == "HIP" and "mfma" not in hw.instructions
    return group == "all"


def arch_list(text: str) -> list[str]:
    """The targets ``--arch`` names (TARGETS keys, in the order given, each once). A single name
    keeps its meaning (``nvidia``: the generic target)."""
    names: list[str] = []
    for word in (w.strip().lower() for w in text.split(",")):
        if not word:
            raise InputError("--arch: an empty name in the list (two commas, or one at an end); e.g. --arch sm90,gfx942")
        if word in GROUPS:
            found = [n for n in TARGETS if n != "nvidia" and _in_group(word, TARGETS[n])]
        else:
            hw = target(word)
            if hw is None:
                raise InputError(f"--arch: unknown target {word!r}; targets: {', '.join(TARGETS)}; groups: "
                                 f"{', '.join(GROUPS)}")
            found = [ALIASES.get(word, word)]
        names += [n for n in found if n not in names]
    return names


def _selected(selector: str) -> list[str] | None:
    """The selector's parts, when every part of ``selector`` (split on +) is a selector, else None."""
    parts = [p.strip().lower() for p in selector.split("+")]
    ok = all(p in ("nvidia", "amd", "cdna", "rdna") or target(p) is not None for p in parts)
    return parts if ok and parts else None


def _selects(parts: list[str], name: str) -> bool:
    hw = TARGETS[name]
    return any(_in_group(p, hw) if p in ("nvidia", "amd", "cdna", "rdna") else
               ALIASES.get(p, p) == name for p in parts)


def split_access(spec: str) -> tuple[list[str] | None, str]:
    """(the selector's parts or None, the spec without it)."""
    head, colon, rest = spec.partition(":")
    if not colon:
        return None, spec
    parts = _selected(head)
    return (parts, rest.strip()) if parts else (None, spec)


def accesses_for(name: str, specs: Sequence[str]) -> list[str]:
    """The access specs target ``name`` runs: those without a selector, and those SEL selects it."""
    out = []
    for spec in specs:
        parts, rest = split_access(spec)
        if parts is None or _selects(parts, name):
            out.append(rest)
    return out


def unselected(names: Sequence[str], specs: Sequence[str]) -> list[str]:
    """The specs whose selector selects no target of the list (bad input: named by the caller)."""
    return [s for s in specs if (p := split_access(s)[0]) is not None and not any(_selects(p, n) for n in names)]


def problems(names: Sequence[str], rows: int, cols: int, specs: Sequence[str], **kwargs) -> list[Problem]:
    """Each target's own problem (make_problem's keywords), its accesses chosen by selector. A
    spec a target cannot run is bad input naming the target and the fix."""
    lost = unselected(names, specs)
    if lost:
        raise InputError(f"--access {lost[0]!r} selects no target of --arch {','.join(names)}: name one of them "
                         f"(nvidia:, amd:, cdna:, rdna: or a target's name)")
    out = []
    for name in names:
        mine = accesses_for(name, specs)
        if not mine and not kwargs.get("phases_files") and not kwargs.get("layout_files"):
            raise InputError(f"--arch {name} has no access of its own: every --access is given to other targets "
                             f"(give it one, e.g. {name}:8x8, or drop it from --arch)")
        try:
            out.append(make_problem(rows, cols, mine, arch=name, **kwargs))
        except InputError as err:
            raise InputError(f"--arch {name}: {err}; an access that only some targets of the list can run is given to "
                             f"them with a selector (nvidia:ldmatrix.x4, amd:ds_read_b128:64x1)") from None
    return out


def joint_problem(parts: Sequence[Problem]) -> Problem:
    """Every target's patterns as one problem: each pattern named ``TARGET:SPEC`` and served by its
    own target's bank count; the hardware the first target's, with the rank proof's general cosets
    when any target needs them (a superset: contiguous phases are cosets too), and no profiler
    counters (each target's own problem reports its own)."""
    first = parts[0].hardware
    hw = replace(first, name="+".join(p.hardware.name for p in parts), profiler="", counter=None,
                 general_cosets=any(p.hardware.general_cosets for p in parts))
    patterns = []
    for p in parts:
        for pattern in p.patterns:
            banks = pattern.banks or p.hardware.banks
            patterns.append(replace(pattern, spec=f"{p.hardware.name}:{pattern.spec}",
                                    banks=0 if banks == hw.banks else banks))
    return Problem(parts[0].tile, hw, tuple(patterns))


class OnTarget(Value, eq=False):
    """A layout on one target: measured on the target's own problem, and the target's own answer."""

    problem: Problem
    measured: Candidate  # the layout on this target (simulator)
    excess: int  # in the output's unit (report.reported_excess)
    own: Candidate | None  # the target's own answer (None: a check, no solve)
    own_excess: int | None
    own_unproven: str | None = None

    @property
    def arch(self) -> str:
        return self.problem.hardware.name

    @property
    def at_minimum(self) -> bool:
        return self.own_excess is not None and self.excess == self.own_excess


def on_target(problem: Problem, layout: Layout, own=None) -> OnTarget:
    """``layout`` measured on one target; ``own``: the target's own solving.Solution, if solved."""
    from .report import reported_excess

    measured = measure_as_given(problem, layout)
    if own is None:
        return OnTarget(problem, measured, reported_excess(problem, measured), None, None)
    return OnTarget(problem, measured, reported_excess(problem, measured), own.answer,
                    reported_excess(problem, own.answer), own.unproven)


class Joint(Value, eq=False):
    """The joint solve: the answer (a solution of the joint problem) and the targets' views of it."""

    solution: object  # solving.Solution of joint_problem
    targets: tuple[OnTarget, ...]
    # when the answer misses a target's own minimum: the joint problem's floors (floors.py), the
    # least excess summed over the targets that any layout keeping every target's vectors whole
    # leaves; None otherwise
    floor: int | None = None

    @property
    def layout(self) -> Layout:
        return self.solution.answer.layout  # type: ignore[attr-defined]

    @property
    def at_every_minimum(self) -> bool:
        return all(t.at_minimum for t in self.targets)

    @property
    def proven(self) -> bool:
        """The joint search and every target's own search covered their families whole."""
        return self.solution.unproven is None and all(t.own_unproven is None for t in self.targets)  # type: ignore

    @property
    def conflict_free(self) -> bool:
        return all(t.excess == 0 and t.measured.excess == 0 for t in self.targets)

    @property
    def status(self) -> str:
        return "conflict-free" if self.conflict_free else "conflicts"

    def verdict(self) -> str:
        """One sentence: at every target's minimum, or which targets it misses and their own answers."""
        names = ", ".join(t.arch for t in self.targets)
        if self.at_every_minimum:
            what = "conflict-free on every target" if self.conflict_free else "at every target's own minimum"
            return f"{self.layout.name} is {what} ({names})"
        missed = [t for t in self.targets if not t.at_minimum]
        own = "; ".join(f"{t.arch}: {t.excess} excess, its own answer {t.own.layout.name} leaves "  # type: ignore
                        f"{t.own_excess}" for t in missed)
        total = sum(t.excess for t in self.targets)
        proof = "no single layout of the searched families reaches every target's own minimum" if self.proven \
            else "not proven that no single layout reaches every target's own minimum"
        if self.floor is not None and self.floor == total:
            proof = (f"no layout reaches every target's own minimum (the floors: every layout that keeps each "
                     f"target's vectors whole leaves at least {total} in all)")
        return f"{self.layout.name} ranks first on the sum of excess over targets, but {proof} ({own})"


def solve_joint(parts: Sequence[Problem], options=None, budget=None) -> Joint:
    """The joint answer over ``parts`` (each target's problem) and each target's own answer."""
    from . import solving

    options = options or solving.Options(table=False)
    joint = joint_problem(parts)
    solution = solving.solve(joint, options, budget=budget)
    layout = solution.answer.layout
    views = tuple(on_target(p, layout, solving.solve(p, replace(options, table=False), budget=budget)) for p in parts)
    total = sum(v.measured.excess for v in views)
    if total != solution.answer.excess:  # the joint problem's count is the sum of the targets' (simulator)
        raise AssertionError(f"internal error: {layout.name} leaves {solution.answer.excess} excess over the joint "
                             f"problem and {total} over the targets")
    if all(v.at_minimum for v in views):
        return Joint(solution, views)
    from .floors import floor_excess

    return Joint(solution, views, floor_excess(joint))


def check_targets(parts: Sequence[Problem], layout: Layout) -> tuple[OnTarget, ...]:
    """A given layout measured on each target (the --check matrix)."""
    return tuple(on_target(p, layout) for p in parts)


def matrix_rows(views: Sequence[OnTarget]) -> list[dict]:
    """The matrix: one row per access spec (in order of first appearance), a cell per target:
    ``{"worst", "total", "lower_bound", "excess"}`` in the output's unit, or None where the target
    has no such access."""
    from .report import cost_json

    order: list[str] = []
    cells: dict[tuple[str, str], dict] = {}
    for v in views:
        for r in v.measured.results:
            spec = r.pattern.spec
            if spec not in order:
                order.append(spec)
            cost = cost_json(v.problem, r, r, counters=False)
            cell = {"worst": cost["worst_wavefronts"], "total": cost["total_wavefronts"],
                    "lower_bound": cost["lower_bound"]}
            cells[(spec, v.arch)] = {**cell, "excess": cell["worst"] - cell["lower_bound"]}
    return [{"access": spec, "cells": [cells.get((spec, v.arch)) for v in views]} for spec in order]
