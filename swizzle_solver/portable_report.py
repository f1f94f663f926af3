"""What ``--arch A,B,...`` prints (portable.py): the matrix (access x target: worst/total and excess),
each target's own minimum beside the joint answer, the verdict, and the joint answer's code for each
target's language; ``--json``: the joint problem's usual document (its accesses named
``TARGET:SPEC``) with ``targets``, ``matrix`` and ``joint`` beside it (docs/json.md).
"""
from __future__ import annotations

import json
import textwrap
from collections.abc import Sequence
from typing import Any

from .layout import Layout
from .model import Problem
from .portable import Joint, OnTarget, matrix_rows


def target_json(view: OnTarget, emit: Sequence[str] = ()) -> dict:
    """One target's view of the layout: its counts and rank proof on the target's own problem, its
    own minimum (a solve), and the layout's code in the target's language (``emit``)."""
    from .report import cost_json, evidence_json

    entry: dict[str, Any] = {"arch": view.arch, "status": "conflict-free" if view.excess == 0 else "conflicts",
             "excess_wavefronts": view.excess,
             "per_access": [cost_json(view.problem, r, r, counters=False) for r in view.measured.results],
             "proof": evidence_json(view.problem, view.measured)}
    for access in entry["per_access"]:  # (the baseline is the target's unswizzled tile in the usual document)
        del access["baseline_worst_wavefronts"], access["baseline_total_wavefronts"]
    if view.own is not None:
        entry["own_minimum"] = {"answer": view.own.layout.name, "excess_wavefronts": view.own_excess,
                                "unproven": view.own_unproven}
        entry["at_own_minimum"] = view.at_minimum
    if emit:
        from .emit import emit_all

        entry["emit"] = {t: s.code for t, s in emit_all(emit, view.problem, view.measured.layout).items()}
    return entry


def joint_json(doc: dict, views: Sequence[OnTarget], joint: Joint | None, emit: Sequence[str] = ()) -> dict:
    """``doc`` (the joint problem's --json or --check document) with the targets' parts added."""
    doc["targets"] = [target_json(v, emit) for v in views]
    doc["matrix"] = {"targets": [v.arch for v in views], "rows": matrix_rows(views)}
    if joint is not None:
        doc["joint"] = {"at_every_minimum": joint.at_every_minimum, "proven": joint.proven,
                        "excess_sum": sum(v.excess for v in views),
                        "own_minimum_sum": sum(v.own_excess or 0 for v in views), "floor_excess": joint.floor,
                        "verdict": joint.verdict()}
    return doc


def matrix_text(views: Sequence[OnTarget]) -> str:
    """The matrix as text: one row per access, a column per target, ``worst/total`` and the excess
    (``+N``), ``-`` where the target has no such access."""
    rows = matrix_rows(views)
    header = ["access", *(v.arch for v in views)]
    body = [[r["access"], *("-" if c is None else f"{c['worst']}/{c['total']}" + (f" +{c['excess']}" if c["excess"]
                                                                                  else "") for c in r["cells"])]
            for r in rows]
    body.append(["excess", *(str(v.excess) for v in views)])
    widths = [max(len(line[i]) for line in [header, *body]) for i in range(len(header))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(line, widths)).rstrip() for line in [header, *body]) + "\n"


def joint_text(joint: Joint, emit: Sequence[str] = ()) -> str:
    views = joint.targets
    lines = [f"Joint answer for {', '.join(v.arch for v in views)}: {joint.layout.name}",
             f"sum of excess over the targets: {sum(v.excess for v in views)}; each cell: worst/total wavefronts, "
             f"+excess", "", matrix_text(views)]
    own = [[v.arch, str(v.excess), str(v.own_excess), v.own.layout.name if v.own else "-",
            "" if v.own_unproven is None else "not proven"] for v in views]
    head = ["target", "joint", "own min", "own answer", ""]
    widths = [max(len(x[i]) for x in [head, *own]) for i in range(len(head))]
    lines += ["\n".join("  ".join(c.ljust(w) for c, w in zip(line, widths)).rstrip() for line in [head, *own]), ""]
    lines += [textwrap.fill(f"proof on each target's own problem ({proof_words(views)}); --json: targets[].proof",
                            80, break_long_words=False), ""]
    lines += [textwrap.fill(joint.verdict() + ("" if joint.proven else " (a search was not covered whole: not "
                                               "proven)"), 80, break_long_words=False, break_on_hyphens=False), ""]
    lines += code_text(views, joint.layout, emit)
    return "\n".join(lines).rstrip("\n") + "\n"


def proof_words(views: Sequence[OnTarget]) -> str:
    """Each target's evidence for the layout's counts (report.evidence_json's method): the rank proof
    of every access, or the exhaustive check."""
    from .report import evidence_json

    words = {"gf2-rank": "rank proof", "exhaustive": "exhaustive check"}
    return ", ".join(f"{v.arch}: {words[evidence_json(v.problem, v.measured)['method']]}" for v in views)


def check_text(layout: Layout, views: Sequence[OnTarget], invalid: str | None = None) -> str:
    """The --check matrix and its verdict (``invalid``: why the layout is not usable on this tile)."""
    bad = [v.arch for v in views if v.excess or v.measured.excess]
    verdict = f"{layout.name} passed on every target" if not bad else f"{layout.name} failed on {', '.join(bad)}"
    if invalid is not None:
        verdict = f"{layout.name} is not usable: {invalid}"
    return f"{layout.name} on {', '.join(v.arch for v in views)}\neach cell: worst/total wavefronts, +excess\n\n" \
        f"{matrix_text(views)}\n{verdict}\n"


def code_text(views: Sequence[OnTarget], layout: Layout, emit: Sequence[str]) -> list[str]:
    """The layout's code per emit target, once per distinct snippet, headed by the targets it is for."""
    if not emit:
        return []
    from .emit import emit_all

    out: list[str] = []
    for target in emit:
        seen: dict[str, list[str]] = {}
        for v in views:
            code = emit_all([target], v.problem, layout)[target].code
            seen.setdefault(code, []).append(v.arch)
        for code, archs in seen.items():
            out += [f"--emit {target} for --arch {','.join(archs)}:", code.rstrip("\n"), ""]
    return out


def print_json(doc: dict, write) -> None:
    write(json.dumps(doc, indent=2) + "\n")


def run(parts: list[Problem], check_layout: Layout | None, json_out: bool, quiet: bool, emit: Sequence[str],
        write, budget=None, exhaustive: bool = False, keep_pitch: bool = False) -> int:
    """The --arch list's run: the --check matrix, or the joint solve. Exit 0: conflict-free on every
    target (the check passed on every target); 1 otherwise."""
    if check_layout is not None:
        return run_check(parts, check_layout, json_out, quiet, emit, write)
    from . import portable
    from .solving import Options

    joint = portable.solve_joint(parts, Options(table=json_out, exhaustive=exhaustive, keep_pitch=keep_pitch),
                                 budget)
    if json_out:
        from .report import solution_json

        print_json(joint_json(solution_json(joint.solution), joint.targets, joint, emit), write)  # type: ignore
    elif quiet:
        codes = code_text(joint.targets, joint.layout, emit)
        write(joint.layout.name + "\n" + ("\n" + "\n".join(codes) if codes else ""))
    else:
        write(joint_text(joint, emit))
    return 0 if joint.conflict_free else 1


def _stages_summary(checks) -> str:
    """A staged layout's stages in words (stages.summary), each distinct summary of the targets once."""
    return "; ".join(dict.fromkeys(f"{c.stages_summary}" for c in checks if c.stages))


def run_check(parts: list[Problem], layout: Layout, json_out: bool, quiet: bool, emit: Sequence[str], write) -> int:
    """--check with several targets: the matrix; exit 0 only when the layout passes on every target.
    A layout that is not usable on the tile says so and gets no code."""
    from . import portable
    from .api import check

    checks = [check(layout, p) for p in parts]
    # (a staged layout, stages.py: each target's matrix column is its worst stage, the one its check reports)
    views = tuple(portable.on_target(p, c.layout) for p, c in zip(parts, checks))
    passed = all(c.passed for c in checks)
    invalid = next((c.invalid for c in checks if c.invalid is not None), None)
    emit = emit if invalid is None else ()
    staged = _stages_summary(checks)
    if json_out:
        print_json(joint_json(check(layout, portable.joint_problem(parts)).json(), views, None, emit), write)
    elif quiet:
        verdict = 'passed' if passed else 'failed' if invalid is None else 'not usable'
        write(f"{layout.name} {verdict}{f'; {staged}' if staged else ''}\n")
    else:
        text = check_text(layout, views, invalid) + (f"{staged}\n" if staged else "")
        write(text + "\n".join(code_text(views, layout, emit)))
    return 0 if passed else 1
