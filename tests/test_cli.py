"""The command line (DESIGN.md sections 4 and 5): exit codes, JSON schema, output forms, batch, bad input.

Most runs go through ``cli.main(argv)`` in-process (the same function the entry point calls); a few
go through ``python -m swizzle_solver`` in a subprocess to cover the real process boundary.
"""
import contextlib
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from swizzle_solver import __version__
from swizzle_solver.access import make_problem
from swizzle_solver.cli import main
from swizzle_solver.families.cute import Swizzle
from swizzle_solver.families.identity import Identity
from swizzle_solver.families.xor_cols import XorCols
from swizzle_solver.layout import layout_table
from tests import clirun

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = str(ROOT / "examples.toml")


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def proc(*argv):
    """A real ``python -m swizzle_solver`` process: only where the process is what is tested."""
    return subprocess.run([sys.executable, "-m", "swizzle_solver", *argv], capture_output=True, text=True,
                          cwd=ROOT)


# --- exit codes and output forms -------------------------------------------------------------------

def test_conflict_free_exits_0_with_rich_output(capsys):
    code, out, err = run(capsys, "--rows", "8", "--cols", "24", "--access", "4x2")
    assert code == 0 and err == ""
    assert "Swizzle" in out or "none" in out


def test_conflicts_exit_1_with_best_effort():
    # f32 float4 reads keep 2 offset bits whole, so no swizzle can spread a 32-row column over 32 banks.
    r = clirun.solve("--rows", "32", "--cols", "64", "--access", "8x4", "--access", "col", "--json")
    assert r.returncode == 1 and r.stderr == ""
    doc = json.loads(r.stdout)
    assert doc["status"] == "conflicts"
    assert any(a["worst_wavefronts"] > a["lower_bound"] for a in doc["answer"]["per_access"])


def test_quiet_prints_one_line(capsys):
    code, out, err = run(capsys, "--rows", "16", "--cols", "16", "--dtype", "f16", "--access", "8x8", "--quiet")
    assert (code, out, err) == (0, "Swizzle<1,3,3>\n", "")
    code, out, _ = run(capsys, "--rows", "32", "--cols", "33", "--access", "32x1", "-q")
    assert (code, out) == (0, "none\n")


@pytest.mark.parametrize("layout,code", [
    ("Swizzle<1,3,3>", 0), ("1,3,3", 0), ("Swizzle<2,3,3>", 0),
    ("none", 1),  # 8 rows of 32 bytes: 2-way conflict unswizzled
    ("Swizzle<1,0,3>", 1),  # M = 0 splits the 16-byte (8-element) vectors: not admissible
    ("Swizzle<1,3,6>", 1),  # its XOR source, bit 9, is beyond the 256-element tile: a no-op
])
def test_check(capsys, layout, code):
    c, out, err = run(capsys, "--rows", "16", "--cols", "16", "--dtype", "f16", "--access", "8x8",
                      "--check", layout, "--json")
    assert (c, err) == (code, "")
    doc = json.loads(out)
    assert doc["check"]["passed"] is (code == 0)


def test_check_a_layout_that_leaves_the_storage(capsys):
    # 6 x 8 = 48 elements: Swizzle<1,4,1> sends offsets 32..47 (bit 5 set) to 48..63.
    code, out, _ = run(capsys, "--rows", "6", "--cols", "8", "--access", "2x1", "--check", "1,4,1", "--json")
    doc = json.loads(out)
    assert code == 1 and doc["check"]["passed"] is False
    assert isinstance(doc["check"]["invalid"], str) and "bijection" in doc["check"]["invalid"]


@pytest.mark.parametrize("layout,code,why", [
    ("XorCols<3,0,0>", 0, None),  # the pitch-24 column read: c ^ (r & 7)
    ("xorcols<1,0,0>", 1, None),  # rows 0 and 4: 0 and 96 + 0, both bank 0 (2-way)
    ("XorCols<2,3,0>", 1, "leaves the 24-column row"),  # columns 16..23 XOR 8 leave the row
    ("Swizzle<1,0,3> then Swizzle<2,0,4>", 0, None),  # column 0 of rows 0..7 -> banks 0 24 19 9 2 26 17 11
])
def test_check_xor_cols_and_two_level(capsys, layout, code, why):
    """Every family the tool prints as an answer can be checked by name (to pin it in CI)."""
    c, out, err = run(capsys, "--rows", "8", "--cols", "24", "--access", "8x1", "--check", layout, "--json")
    doc = json.loads(out)
    assert (c, err) == (code, "") and doc["check"]["passed"] is (code == 0)
    assert doc["check"]["invalid"] is None if why is None else why in doc["check"]["invalid"]
    # the printed name reads back as the same layout
    c2, out2, _ = run(capsys, "--rows", "8", "--cols", "24", "--access", "8x1", "--check", doc["answer"]["name"],
                      "--json")
    assert (c2, out2) == (c, out)


@pytest.mark.parametrize("layout,code,why", [
    ("pitch 33", 0, None),  # an odd pitch spreads the 32 rows of a column over the 32 banks
    ("pitch 40", 1, None),
    ("pitch 16", 1, "below the 32 columns"),
    ("pitch 9999", 1, "storage limit"),
    ("RowInterleave<T=8,k=2>", 1, None),  # rows permuted: a column still meets 32 rows 32 words apart
    ("Linear[b0^=b5, b1^=b6, b2^=b7, b3^=b8, b4^=b9]", 0, None),  # bank bits ^= row bits: col ^= row
])
def test_check_the_other_families_by_name(capsys, layout, code, why):
    c, out, err = run(capsys, "--rows", "32", "--cols", "32", "--access", "col", "--access", "row", "--check", layout,
                      "--json")
    doc = json.loads(out)
    assert (c, err) == (code, "") and doc["check"]["passed"] is (code == 0)
    assert doc["check"]["invalid"] is None if why is None else why in doc["check"]["invalid"]


def test_check_quiet(capsys):
    code, out, _ = run(capsys, "--rows", "16", "--cols", "16", "--dtype", "f16", "--access", "8x8",
                       "--check", "none", "-q")
    assert code == 1 and out.count("\n") == 1 and "failed" in out


def test_json_prints_only_json(capsys):
    code, out, err = run(capsys, "--rows", "32", "--cols", "40", "--dtype", "f32", "--access", "8x4", "--json")
    assert code == 0 and err == ""
    assert json.loads(out)["answer"]["cute"] == "Swizzle<1,2,3>"


def test_python_dash_m_and_version():
    r = proc("--version")
    assert (r.returncode, r.stdout, r.stderr) == (0, f"swizzle-solve {__version__}\n", "")


@pytest.mark.slow  # long: in the slow tier (tests/conftest.py)
def test_determinism():
    argv = ("--rows", "8", "--cols", "24", "--access", "4x2", "--access", "row")
    first, second = proc(*argv), proc(*argv)
    assert first.returncode == 0 and first.stdout and first.stdout == second.stdout
    a, b = proc(*argv, "--json"), proc(*argv, "--json")
    assert a.stdout == b.stdout


# --- JSON schema (DESIGN.md section 5) -------------------------------------------------------------

OPT_STR = (str, type(None))


def check_layout_doc(layout, n_access):
    assert layout["family"] in ("none", "cute", "xor-cols")
    assert isinstance(layout["swizzles"], list)
    assert (layout["swizzles"] == []) == (layout["family"] == "none")
    for sw in layout["swizzles"]:
        assert isinstance(sw["B"], int) and isinstance(sw["M"], int) and sw["unit"] == "element"
        assert isinstance(sw["S"], int) or (sw["S"] is None and layout["family"] != "cute")
    assert isinstance(layout["cute"], OPT_STR) and isinstance(layout["byte_cute"], OPT_STR)
    assert (layout["cute"] is None) == (layout["family"] != "cute")
    assert isinstance(layout["expression"], str)
    assert len(layout["per_access"]) == n_access
    for a in layout["per_access"]:
        assert isinstance(a["spec"], str)
        for key in ("worst_wavefronts", "total_wavefronts", "lower_bound", "baseline_worst_wavefronts"):
            assert isinstance(a[key], int) and a[key] >= 1


SCHEMA_CASES = [
    ("--rows", "8", "--cols", "24", "--access", "4x2"),
    ("--rows", "32", "--cols", "40", "--dtype", "f32", "--access", "8x4", "--access", "row"),
    ("--rows", "64", "--cols", "64", "--dtype", "f16", "--access", "8x8", "--access", "row"),
    ("--rows", "8", "--cols", "8", "--banks", "8", "--access", "row", "--access", "4x2:2"),
    ("--rows", "16", "--cols", "24", "--row-length", "27", "--elem-bytes", "2", "--access", "8x1", "--access", "col",
     "--keep-pitch"),  # without it, the padding is dropped (less memory): a padding answer
    ("--rows", "32", "--cols", "48", "--bank-bytes", "8", "--dtype", "f64", "--access", "4x2"),
]


@pytest.mark.parametrize("argv", SCHEMA_CASES, ids=[" ".join(a) for a in SCHEMA_CASES])
def test_json_schema(capsys, argv):
    code, out, _ = run(capsys, *argv, "--json")
    doc = json.loads(out)
    assert doc["schema_version"] == 1
    problem = doc["problem"]
    for key in ("rows", "cols", "row_length", "elem_bytes", "banks", "bank_bytes"):
        assert isinstance(problem[key], int)
    for a in problem["accesses"]:
        assert isinstance(a["spec"], str)
        for key in ("rows", "cols", "row_stride", "vector_bytes", "placements", "lower_bound"):
            assert isinstance(a[key], int) and a[key] >= 1
    assert doc["status"] in ("conflict-free", "conflicts")
    assert code == (0 if doc["status"] == "conflict-free" else 1)
    n = len(problem["accesses"])
    check_layout_doc(doc["answer"], n)
    assert isinstance(doc["alternatives"], list)
    for alt in doc["alternatives"]:
        check_layout_doc(alt, n)
    assert doc["proof"]["method"] in ("gf2-rank", "exhaustive", "smt")
    assert doc["status"] == ("conflict-free" if all(a["worst_wavefronts"] == a["lower_bound"]
                                                    for a in doc["answer"]["per_access"]) else "conflicts")


def layout_of(doc):
    if doc["family"] == "none":
        return Identity()
    sw = doc["swizzles"][0]
    return Swizzle(sw["B"], sw["M"], sw["S"]) if doc["family"] == "cute" else XorCols(sw["B"], sw["M"], sw["row_shift"])


C_EXPRESSION = re.compile(r"^[rc0-9\s()+\-*<>&^|]+$")


@pytest.mark.parametrize("argv", SCHEMA_CASES, ids=[" ".join(a) for a in SCHEMA_CASES])
def test_expression_equals_the_simulated_offsets(capsys, argv):
    _, out, _ = run(capsys, *argv, "--json")
    doc = json.loads(out)
    p = doc["problem"]
    problem = make_problem(p["rows"], p["cols"], [a["spec"] for a in p["accesses"]], p["row_length"],
                           p["elem_bytes"], banks=p["banks"], bank_bytes=p["bank_bytes"])
    layouts = [doc["answer"], *doc["alternatives"]]
    # both expression forms are exercised (runners-up of each family), unless no swizzle is needed
    assert {x["family"] for x in layouts} >= {"cute", "xor-cols"} or doc["answer"]["family"] == "none"
    for layout in layouts:
        expr = layout["expression"]
        assert C_EXPRESSION.match(expr), expr
        code = compile(expr, "<expression>", "eval")
        phys = layout_table(problem.tile, layout_of(layout))
        got = [[eval(code, {"__builtins__": {}}, {"r": r, "c": c}) for c in range(p["cols"])] for r in range(p["rows"])]
        assert got == phys.tolist(), layout["expression"]


def test_quiet_builds_no_json_document(capsys, monkeypatch):
    # --quiet prints one name: neither the document nor the rich report is made (start-up)
    def unused(*args):
        raise AssertionError("the JSON document was built")

    monkeypatch.setattr("swizzle_solver.report.solution_json", unused)
    monkeypatch.setattr("swizzle_solver.report.check_json", unused)
    assert run(capsys, "--rows", "16", "--cols", "16", "--dtype", "f16", "--access", "8x8", "-q") == \
        (0, "Swizzle<1,3,3>\n", "")
    assert run(capsys, "--rows", "16", "--cols", "16", "--dtype", "f16", "--access", "8x8", "--check", "none",
               "-q") == (1, "none failed; minimal: Swizzle<1,3,3>\n", "")
    code, out, _ = run(capsys, "batch", EXAMPLES, "--case", "4x2 blocks")
    assert code == 0 and "Swizzle<2,1,2>" in out


@pytest.mark.parametrize("form", [[], ["--json"], ["--quiet"]])
@pytest.mark.parametrize("argv, status", [(["--rows", "8", "--cols", "24", "--access", "4x2"], 0),
                                          (["--rows", "32", "--cols", "64", "--access", "8x4", "--access", "col"], 1)])
def test_a_reader_that_stops_reading_keeps_the_exit_code(argv, status, form):
    # `swizzle-solve ... | head -1`: the pipe is closed before anything is written; the output
    # goes nowhere, nothing is said on stderr, and the exit code still says what was found
    # (rich's default for a broken pipe is exit 1, which here would mean "conflicts")
    child = subprocess.Popen([sys.executable, "-m", "swizzle_solver", *argv, *form], cwd=ROOT,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    child.stdout.close()
    err = child.stderr.read()
    assert child.wait() == status and err == b""


def test_only_the_process_entry_freezes_the_heap(capsys):
    # main() without argv ends the process and freezes the collector's heap (cheaper shutdown);
    # called with argv, in-process, it leaves the collector alone
    import gc

    frozen = gc.get_freeze_count()
    assert run(capsys, "--rows", "8", "--cols", "8", "--access", "8x1", "-q")[0] == 0
    assert gc.get_freeze_count() == frozen


# --- batch -----------------------------------------------------------------------------------------

def test_batch_examples(capsys):
    code, out, err = run(capsys, "batch", EXAMPLES)
    assert (code, err) == (0, "") and out


def test_batch_json_and_case(capsys):
    code, out, _ = run(capsys, "batch", EXAMPLES, "--json")
    doc = json.loads(out)
    assert code == 0 and doc["schema_version"] == 1
    assert all(isinstance(c["name"], str) and c["ok"] is True and c["result"]["schema_version"] == 1
               for c in doc["cases"])
    name = doc["cases"][3]["name"]
    code, out, _ = run(capsys, "batch", EXAMPLES, "--case", name, "--json")
    one = json.loads(out)
    assert code == 0 and [c["name"] for c in one["cases"]] == [name]
    assert one["cases"][0]["result"] == doc["cases"][3]["result"]


def test_batch_failing_expectation(capsys, tmp_path):
    f = tmp_path / "cases.toml"
    f.write_text('[[case]]\nname = "good"\nrows = 16\ncols = 16\ndtype = "f16"\naccess = ["8x8"]\n'
                 'expect = "Swizzle<1,3,3>"\n\n'
                 '[[case]]\nname = "wrong"\nrows = 16\ncols = 16\ndtype = "f16"\naccess = ["8x8"]\nexpect = "none"\n')
    code, out, _ = run(capsys, "batch", str(f), "--json")
    assert code == 1
    assert [(c["name"], c["ok"]) for c in json.loads(out)["cases"]] == [("good", True), ("wrong", False)]
    code, _, _ = run(capsys, "batch", str(f), "--case", "good")
    assert code == 0


def test_batch_check_cases(capsys, tmp_path):
    """A case with check = LAYOUT passes when that layout is usable and reaches expect_status
    (default conflict-free): a kernel's own tiles pinned in CI."""
    f = tmp_path / "kernels.toml"
    f.write_text('[[case]]\nname = "tma128"\nrows = 64\ncols = 64\ndtype = "f16"\naccess = ["ldmatrix.x4", "row"]\n'
                 'check = "Swizzle<3,3,3>"\n\n'
                 '[[case]]\nname = "plain, known 2-way"\nrows = 16\ncols = 16\ndtype = "f16"\naccess = ["8x8"]\n'
                 'check = "none"\nexpect_status = "conflicts"\n\n'
                 '[[case]]\nname = "leaves the row"\nrows = 8\ncols = 24\naccess = ["8x1"]\ncheck = "XorCols<2,3,0>"\n\n'
                 '[[case]]\nname = "conflicts"\nrows = 16\ncols = 16\ndtype = "f16"\naccess = ["8x8"]\ncheck = "none"\n')
    code, out, _ = run(capsys, "batch", str(f), "--json")
    cases = json.loads(out)["cases"]
    assert code == 1
    assert [(c["name"], c["ok"]) for c in cases] == [("tma128", True), ("plain, known 2-way", True),
                                                     ("leaves the row", False), ("conflicts", False)]
    assert cases[0]["result"]["check"] == {"layout": "Swizzle<3,3,3>", "passed": True, "invalid": None,
                                           "minimal": None, "hint": None}
    assert "leaves the 24-column row" in cases[2]["result"]["check"]["invalid"]
    code, out, _ = run(capsys, "batch", str(f), "--case", "tma128")
    assert code == 0 and "check: conflict-free" in out
    code, out, _ = run(capsys, "batch", str(f), "--case", "leaves the row")
    assert code == 1 and "not-usable" in out


# --- bad input: exit 2, one line on stderr, nothing on stdout -----------------------------------------

TILE = ("--rows", "8", "--cols", "8")
BAD = {
    "rows 0": ("--rows", "0", "--cols", "8", "--access", "8x1"),
    "rows negative": ("--rows", "-8", "--cols", "8", "--access", "8x1"),
    "rows float": ("--rows", "2.5", "--cols", "8", "--access", "8x1"),
    "rows word": ("--rows", "eight", "--cols", "8", "--access", "8x1"),
    "cols 0": ("--rows", "8", "--cols", "0", "--access", "8x1"),
    "missing cols": ("--rows", "8", "--access", "8x1"),
    "pitch below cols": (*TILE, "--row-length", "4", "--access", "8x1"),
    "unknown dtype": (*TILE, "--dtype", "f128", "--access", "8x1"),
    "dtype and elem bytes disagree": (*TILE, "--dtype", "f16", "--elem-bytes", "4", "--access", "8x1"),
    "elem bytes 3": (*TILE, "--elem-bytes", "3", "--access", "8x1"),
    "banks 24": (*TILE, "--banks", "24", "--access", "8x1"),
    "bank bytes 3": (*TILE, "--bank-bytes", "3", "--access", "8x1"),
    "8x": (*TILE, "--access", "8x"),
    "x2": (*TILE, "--access", "x2"),
    "0x2": (*TILE, "--access", "0x2"),
    "4x2:0": (*TILE, "--access", "4x2:0"),
    "8x1v3": (*TILE, "--access", "8x1v3"),
    "8x4v32": (*TILE, "--access", "8x4v32"),
    "block larger than the tile": (*TILE, "--access", "16x1"),
    "rows not a multiple of the band": ("--rows", "12", "--cols", "8", "--access", "8x1"),
    "no access": TILE,
    "tile too large": ("--rows", "1024", "--cols", "1024", "--access", "8x1"),
    "check malformed": (*TILE, "--access", "8x1", "--check", "Swizzle<1,2>"),
    "check S below B": (*TILE, "--access", "8x1", "--check", "Swizzle<3,0,2>"),
    "check word": (*TILE, "--access", "8x1", "--check", "xor"),
    "check xor-cols B 0": (*TILE, "--access", "8x1", "--check", "XorCols<0,1,0>"),
    "check two-level malformed": (*TILE, "--access", "8x1", "--check", "Swizzle<1,0,3> then xor"),
    "check two-level S below B": (*TILE, "--access", "8x1", "--check", "1,0,3 then 3,0,2"),
    "check linear source below target": (*TILE, "--access", "8x1", "--check", "Linear[b3^=b1]"),
    "check linear no terms": (*TILE, "--access", "8x1", "--check", "Linear[]"),
    "check linear malformed term": (*TILE, "--access", "8x1", "--check", "Linear[b3=b5]"),
    "check row interleave k 0": (*TILE, "--access", "8x1", "--check", "RowInterleave<T=8,k=0>"),
    "check pitch around a pitch": (*TILE, "--access", "8x1", "--check", "pitch 12 + pitch 10 + 1,0,3"),
    # numbers Python will not read (over 4300 digits) or that overflow int64 are malformed, not a traceback
    "access with a 5000-digit number": (*TILE, "--access", "9" * 5000 + "x1"),
    "warp access with a 5000-digit number": (*TILE, "--access", "warp:" + "9" * 5000 + "x1:1x1"),
    "check with a 5000-digit number": (*TILE, "--access", "8x1", "--check", "Swizzle<" + "9" * 5000 + ",1,1>"),
    "check with a 20-digit number": (*TILE, "--access", "8x1", "--check", "Swizzle<1,3,99999999999999999999>"),
    "json and quiet": (*TILE, "--access", "8x1", "--json", "--quiet"),
    "unknown option": (*TILE, "--access", "8x1", "--bogus"),
    "option without value": (*TILE, "--access"),
    "missing phases file": (*TILE, "--phases", "/nonexistent/phases.toml"),
    "batch without file": ("batch",),
    "batch missing file": ("batch", "/nonexistent/examples.toml"),
    "batch unknown case": ("batch", EXAMPLES, "--case", "no such case"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_input(capsys, name):
    code, out, err = run(capsys, *BAD[name])
    assert code == 2
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].strip(), err
    assert "Traceback" not in err


@pytest.mark.parametrize("text", [
    "this is not toml [[[",
    "[[case]]\nname = 'x'\nrows = 8\n",  # missing cols
    "[[case]]\nname = 'x'\nrows = 8\ncols = 8\naccess = ['8x']\n",
    "[[case]]\nname = 'x'\nrows = 8\ncols = 8\naccess = 5\n",
    "[[case]]\nname = 'x'\nrows = 8\ncols = 8\naccess = ['8x1']\ncolour = 'red'\n",
    "[[case]]\nname = 'x'\nrows = 8\ncols = 8\naccess = ['8x1']\nexpect_status = 'fast'\n",
    "title = 'no cases'\n",
    "[[case]]\nname = 'x'\nrows = 8\ncols = 8\naccess = ['8x1']\nexpect = 'Swizzle<1,2>'\n",  # can never match
    "[[case]]\nname = 'x'\nrows = 8\ncols = 8\naccess = ['8x1']\nexpect = 'Swizzle<3,0,2>'\n",  # CuTe rejects it
    "[[case]]\nname = 'x'\nrows = 8\ncols = 8\naccess = ['8x1']\n[[case]]\nname = 'x'\nrows = 8\ncols = 8\n"
    "access = ['row']\n",  # two cases with one name: --case could not tell them apart
    "[[case]]\nname = 3\nrows = 8\ncols = 8\naccess = ['8x1']\n",
    "[[case]]\nname = 'x'\nrows = 8\ncols = 8\naccess = ['8x1']\ncheck = 'Swizzle<1,2>'\n",
    "[[case]]\nname = 'x'\nrows = 8\ncols = 8\naccess = ['8x1']\ncheck = 'none'\nexpect = 'none'\n",
    "[[case]]\nname = 'x'\nrows = 8\ncols = 8\naccess = ['8x1']\ncheck = 3\n",
    "[[case]]\nname = 'x'\nrows = " + "9" * 5000 + "\ncols = 8\naccess = ['8x1']\n",  # Python will not read it
])
def test_batch_malformed_file(capsys, tmp_path, text):
    f = tmp_path / "bad.toml"
    f.write_text(text)
    code, out, err = run(capsys, "batch", str(f))
    assert code == 2 and out == "" and len(err.splitlines()) == 1


def test_every_printed_layout_name_is_a_valid_expectation_and_reads_back():
    """`expect` is checked against the names the families print: none of them may be refused; and
    --check reads each back as the same layout."""
    from swizzle_solver.families import (
        cute,
        linear,
        padding,
        row_interleave,
        two_level,
        xor_cols,
    )
    from swizzle_solver.families.identity import Identity
    from swizzle_solver.names import expect_problem, parse_layout

    layouts = [Identity(), cute.Swizzle(3, 3, 3), xor_cols.XorCols(2, 3, 1), row_interleave.RowInterleave(8, 2),
               two_level.TwoLevel(cute.Swizzle(1, 3, 3), cute.Swizzle(3, 3, 5)),
               linear.XorLinear(((0, 6), (0, 7), (1, 7))),
               padding.Padded(72, Identity()), padding.Padded(72, cute.Swizzle(1, 3, 3))]
    names = [layout.name for layout in layouts]
    assert len(set(names)) == len(layouts)
    for name, layout in zip(names, layouts):
        assert expect_problem(name) is None, name
        assert parse_layout(name) == layout and parse_layout(name.lower().replace(",", ", ")).name == name


@pytest.mark.parametrize("name", ["rows word", "unknown option", "8x1v3", "batch missing file"])
def test_bad_input_as_a_process(name):
    r = proc(*BAD[name])
    assert r.returncode == 2 and r.stdout == ""
    assert len(r.stderr.splitlines()) == 1 and "Traceback" not in r.stderr


def test_a_colliding_pair_is_shown_only_when_a_conflict_remains(capsys):
    """8 rows x 6 f32 read as 8-byte vectors need 2 wavefronts (192 B): words share banks at the
    bound, which is no conflict. Read by column, the unswizzled 8 x 8 f32 tile does conflict."""
    code, out, _ = run(capsys, "--rows", "8", "--cols", "6", "--access", "8x6v8", "--json")
    access = json.loads(out)["proof"]["accesses"][0]
    assert code == 0 and access["worst_wavefronts"] == access["lower_bound"] == 2 and "collision" not in access
    code, out, _ = run(capsys, "--rows", "8", "--cols", "8", "--access", "8x1", "--check", "none", "--json")
    access = json.loads(out)["proof"]["accesses"][0]
    assert code == 1 and access["worst_wavefronts"] == 2 > access["lower_bound"]  # rows 8 words apart: 2-way
    pair = access["collision"]
    assert pair["a"]["word"] != pair["b"]["word"] and pair["a"]["word"] % 32 == pair["b"]["word"] % 32 == pair["bank"]


def test_entry_runs_the_solve_with_the_collector_on(monkeypatch):
    """entry.py turns the cyclic collector off only while the CLI's imports run."""
    import gc

    import swizzle_solver.cli as cli
    from swizzle_solver import entry

    seen = []
    monkeypatch.setattr(cli, "main", lambda: seen.append(gc.isenabled()) or 0)
    assert entry.main() == 0 and seen == [True] and gc.isenabled()


@pytest.mark.parametrize("args,phrase", [
    # 4 banks of 2 B: one 8-byte lane fills the wavefront, so the bank matrix has no rows (it crashed)
    (("--rows", "64", "--cols", "64", "--dtype", "f8", "--banks", "4", "--bank-bytes", "2", "--access", "8x8",
      "--access", "1x1"), "so each unit is a wavefront of its own"),
    # 8 rows x 32 B = 2 wavefronts: full rank on the 3 bank bits spreads 16 units 2 per bank, not "distinct"
    (("--rows", "64", "--cols", "64", "--dtype", "f16", "--access", "8x16"),
     "spread evenly over the banks (2 wavefronts, the lower bound)"),
    (("--rows", "16", "--cols", "16", "--dtype", "f16", "--access", "8x8"),
     "land in distinct banks (1 wavefront, the lower bound)"),
])
def test_rank_proof_sentence(capsys, monkeypatch, args, phrase):
    monkeypatch.setenv("COLUMNS", "200")  # one line per sentence
    code, out, err = run(capsys, *args)
    assert code == 0 and err == "" and phrase in out


SPECS = ["row", "col", "8x1", "4x2", "8x8", "8x4", "2x2:3", "1x8", "4x4", "8x2v4", "2x16", "8x16", "4x1:2", "16x1",
         "ldmatrix.x1", "ldmatrix.x2.trans", "warp:4x8:1x1", "warp:8x4:1x2", "mma-c:m16n8", "1x1", "2x8:2"]
CHECKS = ["none", "Swizzle<3,3,3>", "2,0,3", "XorCols<2,1,0>", "pitch 40", "RowInterleave<T=8,k=2>", "Linear[b3^=b7]",
          "1,0,3 then 2,1,5", "pitch 36 + XorCols<1,1,1>"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=st.sampled_from([8, 16, 32, 1, 4]), cols=st.sampled_from([8, 16, 24, 32, 12, 1, 4]),
       pad=st.sampled_from([0, 0, 1, 2, 4, 8]), dtype=st.sampled_from(["f8", "f16", "f32", "f64"]),
       banks=st.sampled_from([[], [], ["--banks", "8"], ["--banks", "4", "--bank-bytes", "2"]]),
       accesses=st.lists(st.sampled_from(SPECS), min_size=1, max_size=3),
       extra=st.sampled_from([[], ["--json"], ["--quiet"], ["--emit", "all"], ["--show-phases"], ["--show"]]),
       check=st.one_of(st.none(), st.sampled_from(CHECKS)))
def test_the_cli_never_crashes(rows, cols, pad, dtype, banks, accesses, extra, check):
    """Any tile, bank model, set of accesses and output form: an answer (exit 0 or 1) or one line of
    bad input (exit 2, nothing on stdout). Six crashes of this kind were found by such a fuzz."""
    argv = ["--rows", str(rows), "--cols", str(cols), "--row-length", str(cols + pad), "--dtype", dtype, *banks,
            *[a for spec in accesses for a in ("--access", spec)], *extra]
    if check is not None:
        argv += ["--check", check]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    assert code in (0, 1, 2)
    if code == 2:
        assert out.getvalue() == "" and len(err.getvalue().strip().splitlines()) == 1


def test_dtype_as_kernel_code_spells_it_gives_the_same_output(capsys):
    args = ("--rows", "64", "--cols", "64", "--access", "ldmatrix.x4", "--access", "row", "--json")
    assert run(capsys, *args, "--dtype", "torch.float16") == run(capsys, *args, "--dtype", "f16")


@pytest.mark.parametrize("lanes, args", [
    ([[1, 1, 2]], ["--rows", "16", "--cols", "8", "--row-length", "9", "--dtype", "u8", "--access", "col"]),
    ([[1, 3, 8]], ["--rows", "4", "--cols", "72", "--row-length", "73", "--dtype", "f32", "--access", "row"]),
])
def test_a_lane_aligned_in_address_but_not_in_column_is_screened(capsys, tmp_path, lanes, args):
    """Issue 14: at an odd pitch a lane may start at an odd column and still be aligned in memory.
    Padding, xor-cols and cute members that split it used to reach the internal re-check
    ("internal error: ... splits the vectors"), and --quiet answered differently from the report.
    Every proposed layout now passes the soundness check first: an answer, the same in every form."""
    from swizzle_solver.soundness import soundness

    path = tmp_path / "odd.json"
    path.write_text(json.dumps({"pattern": [{"name": "odd", "phases": [lanes]}]}))
    argv = [*args, "--phases", str(path)]
    code, out, err = run(capsys, *argv, "--json")
    assert code in (0, 1) and err == "", err
    doc = json.loads(out)
    quiet_code, quiet, _ = run(capsys, *argv, "--quiet")
    assert (quiet_code, quiet) == (code, doc["answer"]["name"] + "\n")
    assert code == (0 if doc["status"] == "conflict-free" else 1)
    rich_code, rich, _ = run(capsys, *argv)
    assert rich_code == code and doc["answer"]["name"] in rich
    from swizzle_solver.api import problem as make
    from swizzle_solver.names import parse_layout

    problem = make(int(args[1]), int(args[3]), [args[-1]], row_length=int(args[5]), dtype=args[7], phases=[str(path)])
    for entry in [doc["answer"], *doc["alternatives"]]:
        assert soundness(problem.tile, parse_layout(entry["name"]), problem.patterns) is None, entry["name"]


def test_soundness_is_one_check_with_one_reason_each(capsys):
    """soundness.soundness (the counterpart of Triton's checkInvariants): None for a sound layout,
    else the reason --check prints; verify turns a reason into an internal error."""
    from swizzle_solver.families.padding import Padded
    from swizzle_solver.soundness import soundness, storage, verify

    problem = make_problem(32, 64, ["8x4", "row"], None, 4)  # 16-byte vectors: 4 elements
    tile, patterns = problem.tile, problem.patterns
    assert soundness(tile, Identity(), patterns) is None and soundness(tile, Swizzle(3, 2, 3), patterns) is None
    assert soundness(tile, Swizzle(3, 1, 3), patterns).startswith("it splits the 16-byte vectors of 8x4")
    assert soundness(tile, XorCols(3, 5, 0), patterns).startswith("column ")  # the family's own reason first
    padded = Padded(68, Identity())
    assert storage(tile, padded) == 32 * 68 and soundness(tile, padded, patterns) is None
    verify(tile, Swizzle(3, 2, 3), patterns)
    with pytest.raises(AssertionError, match="internal error: Swizzle<3,1,3> is unsound: it splits"):
        verify(tile, Swizzle(3, 1, 3), patterns)
    code, out, _ = run(capsys, "--rows", "32", "--cols", "64", "--access", "8x4", "--access", "row",
                       "--check", "Swizzle<3,1,3>", "--json")
    assert code == 1 and json.loads(out)["check"]["invalid"] == soundness(tile, Swizzle(3, 1, 3), patterns)
