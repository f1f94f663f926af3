"""The CLI on the later families: their JSON, --timeout, and bad --timeout input."""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from tests import clirun

ROOT = Path(__file__).resolve().parents[1]
DIAGONAL = ["--rows", "32", "--cols", "32", "--access", "row", "--access", "col",
            "--phases", str(ROOT / "phases" / "main-diagonal-32.toml")]
TWO_LEVEL = ["--rows", "16", "--cols", "256", "--dtype", "f16", "--access", "8x8",
             "--phases", str(ROOT / "phases" / "row-as-16x16-f16.toml")]
INTERLEAVE = ["--rows", "8", "--cols", "9", "--banks", "8", "--access", "4x2"]


def run(*args):
    """The CLI in this process (tests/clirun.py); the determinism test below runs real processes."""
    return clirun.solve(*args)


def solve_json(args):
    out = run(*args, "--json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def evaluate(expression, rows, cols):
    code = compile(expression, "<expression>", "eval")
    return np.array([[eval(code, {}, {"r": r, "c": c}) for c in range(cols)] for r in range(rows)])


def test_two_level_json():
    doc = solve_json(TWO_LEVEL)
    ans = doc["answer"]
    assert doc["status"] == "conflict-free" and ans["family"] == "two-level"
    first, second = ans["swizzles"]  # application order
    phys = evaluate(ans["expression"], 16, 256)
    p = np.arange(16)[:, None] * 256 + np.arange(256)[None, :]
    q = p ^ ((p >> first["S"]) & (((1 << first["B"]) - 1) << first["M"]))
    assert np.array_equal(phys, q ^ ((q >> second["S"]) & (((1 << second["B"]) - 1) << second["M"])))
    assert len(ans["steps"]) == 2
    assert doc["search"]["extended"] is True
    single = next(f for f in doc["proof"]["families"] if f["family"] == "cute")
    assert not single["reaches_lower_bound"] and single["witness"]["collision"]


def test_linear_json_has_terms_bases_and_a_correct_expression():
    doc = solve_json(DIAGONAL)
    ans = doc["answer"]
    assert doc["status"] == "conflict-free" and ans["family"] == "linear"
    assert ans["xor_terms"] == len(ans["terms"])
    phys = evaluate(ans["expression"], 32, 32)
    # the Triton bases span the layout: phys of (r, c) is the XOR of the bases of its set bits
    bases = ans["triton_bases"]
    for r in range(32):
        for c in range(32):
            row = col = 0
            for k in range(5):
                if (r >> k) & 1:
                    row, col = row ^ bases["row"][k][0], col ^ bases["row"][k][1]
                if (c >> k) & 1:
                    row, col = row ^ bases["col"][k][0], col ^ bases["col"][k][1]
            assert phys[r, c] == row * 32 + col
    smt = next(f for f in doc["proof"]["families"] if f["family"] == "linear")["smt"]
    assert smt["result"] == "sat" and smt["no_member_below"] == ans["xor_terms"]
    two = next(f for f in doc["proof"]["families"] if f["family"] == "two-level")
    assert not two["reaches_lower_bound"] and "witness" in two


def test_row_interleave_json_and_padding_alternative():
    doc = solve_json(INTERLEAVE)
    ans = doc["answer"]
    assert ans["family"] == "row-interleave"
    phys = evaluate(ans["expression"], 8, 9)
    assert sorted(phys.ravel().tolist()) == list(range(72))
    # padding cannot rank before a conflict-free row interleave in the tile's own storage: not
    # searched (solving.cannot_win), unless --exhaustive
    skipped = next(f for f in doc["proof"]["families"] if f["family"] == "padding")
    assert skipped["searched"] is False and not any(a["family"] == "padding" for a in doc["alternatives"])
    doc = solve_json([*INTERLEAVE, "--exhaustive"])
    assert doc["answer"]["name"] == ans["name"]
    pads = [a for a in doc["alternatives"] if a["family"] == "padding"]
    assert pads and pads[0]["padding"]["extra_bytes"] == 8 * (pads[0]["padding"]["row_length"] - 9) * 4
    # padding reaches the same wavefronts but is never the answer over a swizzle that does
    assert pads[0]["excess_wavefronts"] == 0


def test_timeout_prints_the_best_found_and_exits_1():
    out = run(*DIAGONAL, "--timeout", "0.001", "--json")
    assert out.returncode == 1, out.stderr
    doc = json.loads(out.stdout)
    assert doc["status"] == "timeout" and doc["proof"]["proven_minimal"] is False
    assert doc["answer"]["name"]
    rich = run(*DIAGONAL, "--timeout", "0.001")
    assert rich.returncode == 1 and "NOT proven minimal" in rich.stdout


@pytest.mark.slow  # over a second of CPU: in the slow tier (tests/conftest.py)
def test_bad_timeout_is_an_input_error():
    for bad in ("0", "-3", "inf", "nan"):  # a non-number is click's usage error (main's handler)
        out = run(*INTERLEAVE, "--timeout", bad)
        assert out.returncode == 2 and out.stdout == ""
        assert len(out.stderr.strip().splitlines()) == 1 and "--timeout" in out.stderr


@pytest.mark.slow  # over a second of CPU: in the slow tier (tests/conftest.py)
def test_a_huge_timeout_reaches_z3_as_its_largest():
    """1e308 s is finite: z3 gets its largest timeout (an unsigned int of ms), not an OverflowError."""
    out = run(*DIAGONAL, "--timeout", "1e308", "--quiet")
    assert out.returncode == 0 and out.stdout.startswith("Linear[") and out.stderr == ""


LATER = ["z3", "swizzle_solver.extended", "swizzle_solver.families.two_level", "swizzle_solver.families.linear",
         "swizzle_solver.families.row_interleave", "swizzle_solver.families.padding", "swizzle_solver.floors"]


@pytest.mark.parametrize("form, unused, emitters", [
    (["--quiet"], LATER + ["swizzle_solver.report", "swizzle_solver.proof", "swizzle_solver.access.warp",
                           "rich.console"], None),
    # (the rich report of a plain solve draws no table: rich.table, rich.box, rich.padding, fractions;
    # and of the emit targets it imports only tma, for the answer's TMA mode: one process checks all
    # three, as test_render's own processes did)
    ([], LATER + ["swizzle_solver.access.warp", "rich.table", "rich.box", "rich.padding", "fractions"],
     ["common", "recognise", "tma"]),
])
def test_plain_solve_imports_only_what_it_uses(form, unused, emitters):
    # start-up: the later families, z3, the warp forms, the report and the proof engine (for
    # --quiet) are imported only by the solves that use them
    code = ("import sys, io, contextlib; from swizzle_solver.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    rc = main(['--rows', '8', '--cols', '24', '--access', '4x2', *{form!r}])\n"
            f"print([m for m in {unused!r} if m in sys.modules])\n"
            "print(sorted(m.rsplit('.', 1)[1] for m in sys.modules if m.startswith('swizzle_solver.emit.')))\n"
            "sys.exit(rc)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0 and out.stdout.splitlines()[0] == "[]", out.stdout + out.stderr
    if emitters is not None:
        assert out.stdout.splitlines()[1] == repr(emitters), out.stdout


def test_padding_is_the_answer_only_when_no_swizzle_reaches_its_wavefronts():
    args = ["--rows", "4", "--cols", "5", "--banks", "8", "--access", "4x2"]
    doc = solve_json(args)
    ans = doc["answer"]
    assert ans["family"] == "padding" and ans["excess_wavefronts"] == 0
    assert ans["padding"]["extra_bytes"] == 4 * (ans["padding"]["row_length"] - 5) * 4
    assert all(a["excess_wavefronts"] > 0 for a in doc["alternatives"] if a["family"] != "padding")
    offsets = evaluate(ans["expression"], 4, 5).ravel().tolist()
    assert len(set(offsets)) == 20 and max(offsets) < 4 * ans["padding"]["row_length"]
    rich = run(*args)
    assert rich.returncode == 0 and "extra bytes" in rich.stdout


@pytest.mark.slow  # over a second of CPU: in the slow tier (tests/conftest.py)
def test_padding_tries_xor_cols_on_the_padded_tile():
    """bf16 rows of 96 (12 chunks of 16 B) read 8 rows apart by 1 and by 2: no swizzle of pitch 96
    serves both (xor-cols can only move chunk bits 0 and 1, the row's parity decides bit 2), and no
    cute swizzle of pitch 104 does either; XOR of row bit 3 into chunk bit 0 at pitch 104 does."""
    args = ["--rows", "64", "--cols", "96", "--dtype", "bf16", "--access", "8x8", "--access", "8x8:2"]
    ans = solve_json(args)["answer"]
    assert ans["name"] == "pitch 104 + XorCols<1,3,3>" and ans["excess_wavefronts"] == 0
    offsets = evaluate(ans["expression"], 64, 96)
    assert len(set(offsets.ravel().tolist())) == 64 * 96 and offsets.max() < 64 * 104
    assert ans["padding"]["cute"] is None  # XOR on the columns of rows 104 apart: no CuTe swizzle of r * 104 + c
    assert run(*args, "--check", "pitch 104 + Swizzle<1,3,3>").returncode == 1


def test_padding_xor_cols_may_use_the_spare_columns():
    """A padded row's spare columns are storage: XorCols<1,3,3> sends column 39 to 47, beyond the 40
    columns but inside pitch 72, and serves the rows 2 apart that pitch 56 (7 chunks) cannot."""
    from swizzle_solver.access import make_tile
    from swizzle_solver.families.padding import Padded
    from swizzle_solver.families.xor_cols import XorCols

    tile = make_tile(32, 40, 56, 2)
    assert "leaves the 40-column row" in XorCols(1, 3, 3).invalid(tile)
    assert Padded(72, XorCols(1, 3, 3)).invalid(tile) is None
    assert "leaves the 44-column row" in Padded(44, XorCols(1, 3, 3)).invalid(tile)  # 39 ^ 8 = 47 >= 44
    args = ["--rows", "32", "--cols", "40", "--row-length", "56", "--dtype", "f16", "--access", "mma-c",
            "--access", "8x8:2"]
    checked = run(*args, "--check", "pitch 72 + XorCols<1,3,3>", "--json")
    ans = json.loads(checked.stdout)["answer"]
    assert checked.returncode == 0 and ans["excess_wavefronts"] == 0
    offsets = evaluate(ans["expression"], 32, 40)
    assert len(set(offsets.ravel().tolist())) == 32 * 40 and offsets.max() < 32 * 72
    # It was the answer; two swizzles of pitch 64 (searched since issue 21: every family at the
    # pitches between the given one and the first padded answer) serve both in 512 bytes less.
    best = solve_json(args)["answer"]
    assert best["name"] == "pitch 64 + Swizzle<1,6,3> then Swizzle<3,3,3>" and best["excess_wavefronts"] == 0
    assert best["storage_bytes"] == ans["storage_bytes"] - 512


def test_padding_with_a_cute_swizzle_names_its_composition():
    args = ["--rows", "64", "--cols", "64", "--dtype", "f16", "--access", "8x8", "--check", "pitch 72 + Swizzle<1,3,3>"]
    ans = json.loads(run(*args, "--json").stdout)["answer"]
    assert ans["padding"]["cute"] == "Swizzle<1,3,3>" and ans["cute"] is None  # not a swizzle of r * 64 + c
    rich = run(*args)
    assert "composition(Swizzle<1,3,3>, (64,64):(72,1))" in rich.stdout


@pytest.mark.slow  # long: in the slow tier (tests/conftest.py)
@pytest.mark.parametrize("args", [DIAGONAL, TWO_LEVEL], ids=["linear (z3)", "two-level"])
def test_extended_search_is_deterministic(args):
    """Byte for byte, z3's models included: the SMT input is sorted and the model is fixed by the
    family order, not by whatever model z3 happens to find first."""
    first, second = clirun.process(*args, "--json"), clirun.process(*args, "--json")  # processes: no cache, fresh hash seeds
    assert first.returncode == 0 and first.stdout and first.stdout == second.stdout
    assert clirun.process(*args).stdout == clirun.process(*args).stdout


def test_a_pattern_with_no_lane_differences_in_the_extended_search():
    """1x8 of f8 is one 8-byte lane: its separation has no differences (nothing can conflict). With
    patterns no single swizzle serves, the two-level search must still run (it divided by zero).
    (The CLI no longer searches beyond xor-cols here, as the best meets its floor: the extended
    search is run directly too.)"""
    from swizzle_solver.api import problem
    from swizzle_solver.budget import Budget
    from swizzle_solver.extended import search_extended
    from swizzle_solver.search import first_conflict_free

    args = ["--rows", "32", "--cols", "96", "--dtype", "f8", "--access", "16x1:2", "--access", "2x16",
            "--access", "1x8"]
    r = run(*args, "--json")
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    doc = json.loads(r.stdout)
    assert doc["status"] == "conflicts"
    one_lane = next(a for a in doc["answer"]["per_access"] if a["spec"] == "1x8")
    assert one_lane["worst_wavefronts"] == one_lane["lower_bound"] == 1
    found, reports = search_extended(problem(32, 96, ["16x1:2", "2x16", "1x8"], dtype="f8"), Budget(),
                                     first_conflict_free)
    assert [r.family for r in reports] == ["two-level", "linear", "row-interleave", "padding",
                                                "column-panels"] and found


@pytest.mark.slow  # long: in the slow tier (tests/conftest.py)
def test_z3_giving_up_is_not_a_timeout(monkeypatch, capsys):
    """z3 gives up on linear after smt.MAX_BLOCKED refuted models (1 here: without the balance rows,
    with the lemmas learned from refuted models this case is settled after one, unsat). The answer
    (a row interleave) is conflict-free, so exit 0 and status conflict-free, but it is marked not
    proven minimal."""
    from swizzle_solver import balance, smt
    from swizzle_solver.cli import main

    args = ["--rows", "64", "--cols", "250", "--access", "8x8", "--access", "8x16", "--access", "1x8"]

    def linear_smt():
        assert main([*args, "--json"]) == 0
        found = next(f for f in json.loads(capsys.readouterr().out)["proof"]["families"] if f["family"] == "linear")
        assert found["complete"] and found["smt"]["result"] == "unsat"
        return found["smt"]

    assert linear_smt()["models_refuted"] == 0  # bank bit 4 cannot split every 8x8 placement evenly: no model
    monkeypatch.setattr(balance, "MAX_CELLS", 0)  # no balance rows: z3 finds a model, refuted, then unsat
    monkeypatch.setattr(balance, "span_refutation", lambda *a: None)  # (nor the span condition, issue 26)
    assert linear_smt()["models_refuted"] == 1

    monkeypatch.setattr(smt, "MAX_BLOCKED", 1)
    assert main([*args, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["status"] == "conflict-free"
    assert doc["proof"]["proven_minimal"] is False and "linear" in doc["proof"]["unproven"]
    linear = next(f for f in doc["proof"]["families"] if f["family"] == "linear")
    assert not linear["complete"] and "gave up after 1 model that" in linear["covered"]
    assert doc["search"]["timed_out"] is False
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "NOT proven minimal" in text and "Time limit" not in text


def test_linear_family_with_no_possible_term():
    """4 banks of 4 B: a 16-byte lane fills the wavefront, so no slot bit lies above the vectors and
    the linear family is the identity alone; z3 was handed an empty cardinality constraint."""
    from swizzle_solver.api import problem
    from swizzle_solver.budget import Budget
    from swizzle_solver.extended import search_extended
    from swizzle_solver.search import first_conflict_free

    r = run("--rows", "64", "--cols", "64", "--dtype", "f16", "--banks", "4", "--access", "1x8", "--access", "16x1:2",
            "--json")
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    assert json.loads(r.stdout)["proof"]["optimal_over_all_layouts"]  # so the CLI searches no further
    _, reports = search_extended(problem(64, 64, ["1x8", "16x1:2"], dtype="f16", banks=4), Budget(),
                                 first_conflict_free)
    linear = next(f for f in reports if f.family == "linear")
    assert linear.complete and "no XOR term can move a unit" in linear.covered


def test_padding_reads_warp_patterns_on_its_own_pitch():
    """Padding re-reads the patterns on another pitch: a warp pattern's coset bits, found on pitch 64,
    must not claim that one placement decides them all on pitch 96 (they made the padding search
    call pitch 96 + Swizzle<4,2,4> conflict-free, and the report died on the re-check)."""
    from swizzle_solver.access import make_problem
    from swizzle_solver.candidate import measure_as_given
    from swizzle_solver.families.cute import Swizzle
    from swizzle_solver.model import Problem
    from swizzle_solver.oracle import XorOracle
    from swizzle_solver.value import replace

    problem = make_problem(64, 64, ["warp:4x8:1x4", "16x1:2"], None, 2)
    padded = Problem(replace(problem.tile, row_length=96), problem.hardware, problem.patterns)
    assert problem.patterns[0].linear_bits(problem.tile) is not None
    assert problem.patterns[0].linear_bits(padded.tile) is None
    assert XorOracle(padded).accept(Swizzle(4, 2, 4)) == measure_as_given(padded, Swizzle(4, 2, 4)).conflict_free
    r = run("--rows", "64", "--cols", "64", "--dtype", "f16", "--access", "warp:4x8:1x4", "--access", "16x1:2")
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr


@pytest.mark.slow  # over a second of CPU: in the slow tier (tests/conftest.py)
def test_row_interleave_keeps_explicit_vectors_whole(tmp_path):
    """Pitch 20 f16 = 40-byte rows: a 16-byte lane at row 30 is aligned (byte 1200), but moved to a
    row starting 8 bytes off a 16-byte boundary it would be split. Such members are not valid."""
    phases = tmp_path / "p.json"
    phases.write_text(json.dumps({"pattern": [{"name": "p0", "phases": [
        [[25, 4, 8], [18, 2, 2], [19, 5, 2], [28, 4, 8], [14, 8, 8]], [[13, 0, 4], [6, 0, 4], [0, 6, 2]],
        [[8, 4, 8], [3, 0, 4], [12, 7, 2], [5, 0, 8]],
        [[30, 0, 16], [26, 2, 2], [8, 5, 2], [1, 8, 8], [2, 8, 8], [4, 0, 16], [24, 11, 2], [2, 1, 2], [1, 6, 2],
         [15, 4, 2], [20, 0, 8]]]}]}))
    r = run("--rows", "32", "--cols", "12", "--elem-bytes", "2", "--row-length", "20", "--phases", str(phases),
            "--access", "4x1", "--keep-pitch", "--json")  # (a narrower pitch ranks first without it)
    assert r.returncode in (0, 1) and "Traceback" not in r.stderr, r.stderr
    interleave = next(f for f in json.loads(r.stdout)["proof"]["families"] if f["family"] == "row-interleave")
    assert "splitting vectors" in interleave["covered"]


@pytest.mark.parametrize("accesses, conflict_free", [(["8x8", "row"], True), (["8x8", "16x1:2", "row"], False)])
def test_a_solution_is_complete_when_returned(monkeypatch, accesses, conflict_free):
    """The candidates table is built by the solve when asked for (the rich report, --json), and
    skipped for a plain answer (--quiet) when a first conflict-free member answers; once returned,
    writing the JSON searches nothing again."""
    from swizzle_solver import search, solving
    from swizzle_solver.api import problem
    from swizzle_solver.report import solution_json

    calls = []
    real = search.search_families
    monkeypatch.setattr(solving, "search_families", lambda *a, **k: calls.append(1) or real(*a, **k))
    prob = problem(64, 64, accesses, dtype="f16")
    plain = solving.solve(prob, table=False)
    assert plain.answer.conflict_free == conflict_free
    assert len(calls) == (0 if conflict_free else 1) and plain.table is None  # --quiet: no table, no extra search
    with pytest.raises(ValueError, match="without its candidates table"):
        solution_json(plain)
    calls.clear()
    full = solving.solve(prob)
    assert calls == [1] and full.answer.layout == plain.answer.layout

    def searched(*args, **kwargs):
        raise AssertionError("the report searched again")

    for module, name in ((solving, "search_families"), (solving, "first_conflict_free"), (search, "search_family"),
                         (search, "search_families"), (search, "first_conflict_free")):
        monkeypatch.setattr(module, name, searched)
    doc = solution_json(full)
    assert doc["answer"]["name"] == plain.answer.layout.name and doc["alternatives"]
    assert [f["family"] for f in doc["search"]["families"]][:3] == ["none", "cute", "xor-cols"]
    assert all(a["excess_wavefronts"] >= doc["answer"]["excess_wavefronts"] for a in doc["alternatives"])


def test_the_base_and_later_searches_do_not_import_each_other():
    """solving.py joins search.py (none / cute / xor-cols) and extended.py (the later families);
    neither imports the other, at module level or inside a function."""
    import ast

    for module, other in (("search", "extended"), ("extended", "search"), ("search", "solving"),
                          ("extended", "solving")):
        tree = ast.parse((ROOT / "swizzle_solver" / f"{module}.py").read_text())
        imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module is None
                     for a in n.names}
        assert other not in imported, (module, other)
