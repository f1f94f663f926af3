"""The worked examples of the references (tests/data/acceptance.toml, stages 1 and 2, shipped in
examples.toml with their answers), solved in-process and through the CLI."""
import functools
import json
import tomllib
from pathlib import Path

import pytest

from swizzle_solver.access import elem_bits_of, elem_bytes_of, make_problem
from swizzle_solver.solving import solve
from tests import clirun

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = tomllib.loads((ROOT / "examples.toml").read_text())["case"]


def problem_of(case):
    e = elem_bytes_of(case.get("dtype"), case.get("elem_bytes"))
    return make_problem(case["rows"], case["cols"], case["access"], case.get("row_length"), e,
                        banks=case.get("banks"), bank_bytes=case.get("bank_bytes"),
                        phases_files=[str(ROOT / p) for p in case.get("phases", [])], arch=case.get("arch", "nvidia"),
                        elem_bits=elem_bits_of(case.get("dtype")), order=case.get("order", "row"))


@functools.cache
def solved(index: int):
    """The search's answer to example ``index`` (solved once: both tests below read it; the search is
    deterministic, and solving.solve keeps no cache of its own)."""
    case = EXAMPLES[index]
    return solve(problem_of(case), keep_pitch=case.get("keep_pitch", False), targets=tuple(case.get("for", ())))


@pytest.mark.parametrize("index", range(len(EXAMPLES)), ids=[c["name"] for c in EXAMPLES])
def test_worked_example(index):
    case, solution = EXAMPLES[index], solved(index)
    assert solution.status == case.get("expect_status", "conflict-free")
    if "expect" in case:
        assert solution.answer.layout.name == case["expect"]
    if solution.status == "conflict-free":
        for result in solution.answer.results:
            assert result.worst == result.pattern.lower_bound
    else:  # a conflict no layout removes: the answer meets every floor
        assert solution.at_floor


REFERENCE = ROOT / "tests" / "data" / "acceptance.toml"
PROBLEM_KEYS = ("rows", "cols", "row_length", "dtype", "elem_bytes", "banks", "bank_bytes", "access", "stage",
                "expect_status", "expect")


def resolved_phases(case, base):
    return [(base / p).resolve() for p in case.get("phases", [])]


def test_examples_ship_every_reference_case_with_its_answer():
    """Every reference case is in examples.toml under its name, the same problem and the same
    expectations (a reference answer may only be made more precise: an added ``expect``)."""
    by_name = {c["name"]: c for c in EXAMPLES}
    reference = tomllib.loads(REFERENCE.read_text())["case"]
    assert len(reference) == 27
    for ref in reference:
        ours = by_name.get(ref["name"])
        assert ours is not None, f"examples.toml lacks {ref['name']!r}"
        for key in PROBLEM_KEYS:
            if key in ref or key != "expect":
                assert ours.get(key) == ref.get(key), (ref["name"], key)
        assert resolved_phases(ours, ROOT) == resolved_phases(ref, REFERENCE.parent), ref["name"]


def test_stage2_cases_search_the_extended_families_and_stage1_does_not():
    """A stage-2 case needs the later families: searched at the given pitch (``extended``), or one
    of them inside the answer at another pitch (the padding dropped, issue 21)."""
    from swizzle_solver.families import record
    from swizzle_solver.layout import LATER

    for index, case in enumerate(EXAMPLES):
        solution = solved(index)
        form = solution.answer.layout.padded_form(solution.problem.tile)
        later_inside = form is not None and record(form[1].family).stage == LATER
        assert (solution.extended or later_inside) == (case.get("stage", 1) == 2), case["name"]


def test_cli_json_main_job():
    run = clirun.solve("--rows", "8", "--cols", "24", "--access", "4x2", "--json")  # in this process
    assert run.returncode == 0, run.stderr
    doc = json.loads(run.stdout)
    assert doc["schema_version"] == 1 and doc["status"] == "conflict-free"
