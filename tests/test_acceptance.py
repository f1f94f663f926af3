"""The worked examples of ../shared/acceptance.toml (stages 1 and 2), solved in-process and through the CLI."""
import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from swizzle_solver.access import elem_bytes_of, make_problem
from swizzle_solver.search import solve

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = tomllib.loads((ROOT / "examples.toml").read_text())["case"]


def problem_of(case):
    e = elem_bytes_of(case.get("dtype"), case.get("elem_bytes"))
    return make_problem(case["rows"], case["cols"], case["access"], case.get("row_length"), e,
                        case.get("banks", 32), case.get("bank_bytes", 4),
                        [str(ROOT / p) for p in case.get("phases", [])])


@pytest.mark.parametrize("case", EXAMPLES, ids=[c["name"] for c in EXAMPLES])
def test_worked_example(case):
    solution = solve(problem_of(case))
    assert solution.status == case.get("expect_status", "conflict-free")
    if "expect" in case:
        assert solution.answer.layout.name == case["expect"]
    for result in solution.answer.results:
        assert result.worst == result.pattern.lower_bound


def test_examples_ship_every_reference_case():
    shared = ROOT.parent / "shared" / "acceptance.toml"
    if not shared.exists():
        pytest.skip("../shared is not beside the checkout")
    names = {c["name"] for c in EXAMPLES}
    reference = tomllib.loads(shared.read_text())["case"]
    missing = [c["name"] for c in reference if c["name"] not in names]
    assert not missing


def test_stage2_cases_search_the_extended_families_and_stage1_does_not():
    for case in EXAMPLES:
        solution = solve(problem_of(case))
        assert solution.extended == (case.get("stage", 1) == 2), case["name"]


def test_cli_json_main_job():
    run = subprocess.run([sys.executable, "-m", "swizzle_solver", "--rows", "8", "--cols", "24", "--access", "4x2",
                          "--json"], capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    doc = json.loads(run.stdout)
    assert doc["schema_version"] == 1 and doc["status"] == "conflict-free"
