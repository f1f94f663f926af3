"""What a run prints when --timeout's alarm (alarm.py) stops it before it has printed anything: the
short form of its answer. The search itself stops at --timeout (budget.py); the alarm fires
report_grace later, when a step that no budget bounds (measuring the runners-up of thousands of
accesses, building or printing their report, --check's search for the minimal layout) is still
running. The run then still prints the best layout it knows, in the form asked, and says that the
time limit was reached (exit 1):

- the layout: the solve's answer when it had finished, else the best candidate the search had
  noted (``Budget.best``), else the unswizzled tile (the first layout any search measures); with
  --check, the checked layout. It is measured here if it was not yet, and the unswizzled baseline
  too: at most two measurements past the alarm, and nothing else here grows with the tile;
- ``--json``: report.short_json, a document of the same schema with status "timeout" and
  ``short_report`` saying what it leaves out; ``-q``: the line with "time limit reached" after the
  name (``timeout_line``); the rich report: the C expression and the verdict (render.print_short).
"""
from __future__ import annotations

from collections.abc import Callable

from .budget import Budget
from .candidate import Candidate
from .layout import Layout
from .model import Problem
from .solving import Solution


def timeout_line(name: str, excess: int, proven: bool) -> str:
    """The -q line of a run that reached --timeout: the layout's name first (as every -q line), then
    that the time limit was reached, so that a bare name never reads as a finished answer."""
    what = "proven minimal" if proven else "the best found, not proven minimal"
    return f"{name}; time limit reached: {what}, {excess} excess wavefront(s)"


def _why(timeout: float, where: str, left_out: str) -> str:
    from .alarm import report_grace

    return (f"--timeout {timeout:g}: the run was still in {where} {report_grace(timeout):g} s past the time limit, "
            f"so this is its short form: the layout and its measurements, without {left_out}, the floors, the "
            f"profiler's counters, the targets' verdicts and --emit's code; raise --timeout for the full report")


def _baseline(problem: Problem, best: Candidate) -> Candidate:
    from .candidate import measure_as_given
    from .families.identity import Identity

    return best if best.layout == Identity() else measure_as_given(problem, Identity())


def short_doc(problem: Problem, budget: Budget, solution: Solution | None, timeout: float) -> dict:
    """The short document (report.short_json) of the best layout a solve knew when the alarm fired."""
    from .candidate import measure_as_given, recheck
    from .families.identity import Identity
    from .report import short_json

    known = solution.answer if solution is not None else budget.best
    best = measure_as_given(problem, Identity()) if known is None else recheck(problem, known)
    baseline = solution.baseline if solution is not None and solution.table is not None else _baseline(problem, best)
    where = "building its report" if solution is not None else "the search"
    return short_json(problem, best, baseline, _why(timeout, where, "the runners-up, the families' proof"), solution)


def short_check_doc(problem: Problem, layout: Layout, measured: tuple[Candidate, str | None] | None,
                    timeout: float) -> dict:
    """The short --check document: the checked layout (``measured``: its measurement and why it is
    not usable, if the check got that far), without the minimal layout (not searched)."""
    from .report import short_json
    from .solving import check

    ranked, invalid = check(problem, layout) if measured is None else measured
    why = _why(timeout, "the check", "the minimal layout (not searched)")
    return short_json(problem, ranked, _baseline(problem, ranked), why, invalid=invalid, checked=True)


def print_doc(doc: dict, json_out: bool, quiet: bool, write: Callable[[str], None]) -> None:
    """Print a short document in the output form asked (``write``: the CLI's plain output)."""
    if json_out:
        import json

        write(json.dumps(doc, indent=2) + "\n")
    elif quiet:
        answer, check = doc["answer"], doc.get("check")
        if check is None:
            write(timeout_line(answer["name"], answer["excess_wavefronts"], doc["proof"]["proven_minimal"]) + "\n")
        else:
            verdict = "passed" if check["passed"] else "failed" if check["invalid"] is None \
                else f"not usable: {check['invalid']}"
            write(f"{check['layout']} {verdict}; time limit reached: minimal not searched\n")
    else:
        from .render import print_short

        print_short(doc)
