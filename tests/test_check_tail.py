"""A failing --check names the layout to use instead (issue 26): bounded as the solve is, a floor
proof ends it, the span condition refutes the linear family before z3, and the output says when
the name (or "none conflict-free") is not proven."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from swizzle_solver import api, balance, smt
from swizzle_solver import budget as extended  # (the z3 budget, SMT_RLIMIT)
from swizzle_solver.cli import main
from tests.test_schema import validate

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from check_tail import lanes_file  # noqa: E402  (the bench's reproducer)


@pytest.fixture(autouse=True)
def fresh_cache():
    api.cache_clear()
    yield
    api.cache_clear()


@pytest.fixture
def random_lanes(tmp_path) -> list[str]:
    """The issue's reproducer: one gfx942 ds_read_b32 of 64 lanes at random elements (seed 3) of a
    64 x 64 f32 tile: 32 random lanes of a phase in 32 banks, which no layout serves."""
    path = tmp_path / "random.toml"
    path.write_text(lanes_file(3))
    return ["--arch", "gfx942", "--rows", "64", "--cols", "64", "--dtype", "f32", "--phases", str(path)]


def no_z3(*args, **kwargs):
    raise AssertionError("z3 was called")


def checked(argv: list[str], layout: str = "none") -> api.Checked:
    options = dict(zip(argv[::2], argv[1::2]))
    return api.check(layout, rows=int(options["--rows"]), cols=int(options["--cols"]), dtype=options["--dtype"],
                     arch=options["--arch"], phases=[options["--phases"]])


def test_random_lanes_name_no_alternative_without_z3(random_lanes, monkeypatch, capsys):
    monkeypatch.setattr(smt, "min_linear", no_z3)
    monkeypatch.setattr(smt, "min_two_level", no_z3)
    found = checked(random_lanes)
    # every family at the given pitch is covered; what stays open is the other pitches' later
    # families above it (issue 21: searched for a conflict-free layout with one swizzle at most)
    assert not found.passed and found.minimal_name is None
    assert found.minimal_unproven is not None and found.minimal_unproven.startswith(
        "not covered whole: the other pitches") and "above 64 with plain rows or one cute or xor-cols" in found.minimal_unproven
    doc = found.json()
    validate(doc)
    assert doc["check"]["minimal"] is None and doc["check"]["minimal_unproven"] == found.minimal_unproven
    linear = next(f for f in found.minimal.solution.families if f.family == "linear")
    assert linear.complete and linear.smt["result"] == "unsat" and linear.smt["engine"].endswith("no z3")
    assert "no choice of the rows of slot bits b4, b3, b2, b1, b0" in linear.covered
    assert main([*random_lanes, "--check", "none", "--quiet"]) == 1
    # (a layout better than the checked one, found on the way, is named: issue 34's trap)
    best = f"; best: {found.better_name}" if found.better_name else ""
    assert capsys.readouterr().out == f"none failed; minimal: none conflict-free{best} (not proven: {found.minimal_unproven})\n"


def test_the_check_says_when_none_conflict_free_is_not_proven(random_lanes, monkeypatch, capsys):
    """Without the span condition, and z3 given almost no budget, the linear family is not covered
    whole: "none conflict-free" is then not proven, and the line, the JSON and the report say so."""
    monkeypatch.setattr(balance, "span_refutation", lambda *args: None)
    monkeypatch.setattr(extended, "SMT_RLIMIT", 1000)
    found = checked(random_lanes)
    assert found.minimal_name is None and found.minimal_unproven.startswith("not covered whole: linear, ")
    doc = found.json()
    validate(doc)
    assert doc["check"]["minimal_unproven"] == found.minimal_unproven
    api.cache_clear()
    assert main([*random_lanes, "--check", "none", "--quiet"]) == 1
    # (a layout better than the checked one, found on the way, is named: issue 34's trap)
    best = f"; best: {found.better_name}" if found.better_name else ""
    assert capsys.readouterr().out == f"none failed; minimal: none conflict-free{best} (not proven: {found.minimal_unproven})\n"
    api.cache_clear()
    assert main([*random_lanes, "--check", "none"]) == 1
    better = f"; the search's best, {found.better_name}, leaves fewer excess wavefronts" if found.better_name else ""
    assert (f"minimal: none (no layout of the searched families is conflict-free){better}, NOT proven minimal "
            f"({found.minimal_unproven})") in " ".join(capsys.readouterr().out.split())


def test_a_floor_proof_ends_the_search(monkeypatch):
    """4x2, 8x2v4 and col on 32 x 32 f32: the floors leave an excess no layout keeping the vectors
    whole avoids, so no layout is conflict-free, and the check searches nothing to say so; the
    search runs only to name a better layout (issue 34 item 4), which a layout at the floors has not."""
    from swizzle_solver.floors import floor_excess

    kwargs = {"rows": 32, "cols": 32, "dtype": "f32", "access": ["4x2", "8x2v4", "col"]}
    floor = floor_excess(api.problem(**kwargs))
    best = api.solve(**kwargs)
    assert floor > 0 and best.answered.answer.excess == floor

    def no_solve(*args, **kwargs):
        raise AssertionError("the check searched")

    monkeypatch.setattr(api, "solve", no_solve)
    found = api.check(best.layout, **kwargs)  # at the floors: nothing better, nothing searched
    assert not found.passed and found.minimal_name is None and found.minimal_unproven is None
    assert found.better_name is None
    doc = found.json()
    assert doc["check"]["minimal"] is None and "better" not in doc["check"]
    assert doc["proof"]["optimal_over_all_layouts"] is True
    monkeypatch.undo()
    plain = api.check("none", **kwargs)  # above the floors: the search names the better layout
    assert plain.minimal_name is None and plain.better_name == best.name
    assert plain.json()["proof"]["optimal_over_all_layouts"] is False


def test_a_failing_check_names_the_solve_answer():
    """Where a conflict-free layout exists the check names the solve's answer, proven."""
    kwargs = {"rows": 64, "cols": 64, "dtype": "f16", "access": ["8x8v4", "row", "col"]}
    found = api.check("none", **kwargs)
    assert found.minimal_name == api.solve(**kwargs).name == "Swizzle<2,1,8> then Swizzle<3,3,3>"
    assert found.minimal_unproven is None
    assert json.dumps(found.json()["check"]) == json.dumps(
        {"layout": "none", "passed": False, "invalid": None, "minimal": "Swizzle<2,1,8> then Swizzle<3,3,3>",
         "hint": None})
