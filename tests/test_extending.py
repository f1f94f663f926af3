"""What docs/contributing.md's Architecture section says each extension takes, shown true:

- a layout family: one module plus its registry entry (tests/test_families.py, the toy family
  ``Rotate``: registered, then searched, written, printed, read back and emitted by unchanged code);
- an emit target: one module in swizzle_solver/emit/ (below: a copy of the package with one new
  file, run as the CLI: --emit, --emit all, the report's title and --help all pick it up);
- a hardware target: one ``hardware.TARGETS`` entry (below: a 16-bank, 16-lane target, picked by
  name as --arch does, solved by the unchanged pipeline, its counts checked against the
  brute-force counter of test_properties.py). An AMD target's per-instruction cells are also
  listed in docs/hardware.md (tests/test_amd.py checks the two agree).
"""
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_properties import Access, brute_worst_total

from swizzle_solver import hardware
from swizzle_solver.access import make_problem
from swizzle_solver.candidate import measure
from swizzle_solver.families.identity import Identity
from swizzle_solver.solving import solve

ROOT = Path(__file__).resolve().parents[1]

TOY_TARGET = '''"""--emit toy: a target that only names the layout (a test's stand-in for a new language)."""
from __future__ import annotations

from ..layout import Layout
from ..model import Problem
from .common import Snippet

TARGET = "toy"
TITLE = "Toy language"
ORDER = 99


def emit(problem: Problem, layout: Layout) -> Snippet:
    return Snippet("toy", f"toy_layout = {layout.name!r}  # {layout.expression(problem.tile)}", True)
'''


def test_an_emit_target_is_one_module(tmp_path):
    shutil.copytree(ROOT / "swizzle_solver", tmp_path / "swizzle_solver",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "swizzle_solver" / "emit" / "toy.py").write_text(TOY_TARGET)  # the only change

    def run(*args):
        return subprocess.run([sys.executable, "-m", "swizzle_solver", *args], cwd=tmp_path, capture_output=True,
                              text=True, env={"COLUMNS": "200", "PATH": "/usr/bin:/bin"})

    solve_args = ["--rows", "8", "--cols", "24", "--access", "4x2"]
    doc = json.loads(run(*solve_args, "--json", "--emit", "toy").stdout)
    assert doc["answer"]["emit"] == {"toy": f"toy_layout = {doc['answer']['name']!r}  # {doc['answer']['expression']}"}
    assert doc["answer"]["emit_expressible"] == {"toy": True}
    every = json.loads(run(*solve_args, "--json", "--emit", "all").stdout)["answer"]["emit"]
    assert list(every)[-1] == "toy" and "cuda" in every
    report = run(*solve_args, "--emit", "toy")
    assert report.returncode == 0 and "--emit toy: Toy language" in report.stdout
    assert "tma, toy or all" in " ".join(run("--help").stdout.split())
    bad = run(*solve_args, "--emit", "nonsense")
    assert bad.returncode == 2 and "toy" in bad.stderr


TOY_HARDWARE = hardware.Hardware(name="toy-16", banks=16, bank_bytes=4, wave_lanes=16,
                                 phase_lanes=((4, 16), (8, 8), (16, 4)))


@pytest.mark.parametrize("specs", [["col"], ["4x4", "row"], ["col", "4x4"], ["2x8"]])
def test_a_hardware_target_is_one_data_entry(monkeypatch, specs):
    monkeypatch.setitem(hardware.TARGETS, TOY_HARDWARE.name, TOY_HARDWARE)  # the only change
    target = hardware.TARGETS["toy-16"]
    problem = make_problem(16, 16, specs, None, 4, arch="toy-16")  # --arch toy-16
    tile, hw = problem.tile, problem.bank_model
    assert (hw.name, hw.banks, hw.wave_lanes) == ("toy-16", 16, 16)
    solution = solve(problem)
    layout = solution.answer.layout
    # The counts under the new target, against the brute-force counter (DESIGN.md section 1 with
    # 16 banks: every placement here is one phase of at most 16 lanes, one wavefront of bytes).
    phys = lambda r, c: int(eval(layout.expression(tile), {}, {"r": r, "c": c}))  # noqa: E731
    for pattern, result in zip(problem.patterns, solution.answer.results):
        kind = pattern.spec if pattern.spec in ("row", "col") else "block"
        m, n = (pattern.rows, pattern.cols)
        access = Access(kind, 16, 16, 16, 4, hw.banks, hw.bank_bytes, m, n)
        assert access.lower_bound == pattern.lower_bound == 1
        assert brute_worst_total(access, phys, 4, hw.banks, hw.bank_bytes)[0] == result.worst
    assert solution.answer.conflict_free or solution.at_floor  # minimal: no layout does better
    if specs == ["col"]:  # 16 rows of 16 elements: every row starts in bank 0 of this target's 16
        assert measure(problem, Identity()).results[specs.index("col")].worst == 16
        assert solution.answer.results[specs.index("col")].worst == 1
    assert all(len(p.phase_lanes(i)) <= target.wave_lanes for p in problem.patterns
               for i in range(p.phases_per_placement))
