"""What docs/contributing.md's Architecture section says each extension takes, shown true:

- a layout family: one module plus its registry entry (tests/test_families.py, the toy family
  ``Rotate``: registered, then searched, written, printed, read back and emitted by unchanged code);
- an emit target: one module in swizzle_solver/emit/ (below: a copy of the package with one new
  file, run as the CLI: --emit, --emit all, the report's title and --help all pick it up; its
  documents valid under the schema the generator makes from the copy's registries, and not under
  the stale one);
- a hardware target: one ``hardware.TARGETS`` entry (below: a 16-bank, 16-lane target, picked by
  name as --arch does, solved by the unchanged pipeline, its counts checked against the
  brute-force counter of test_properties.py; it has only the capabilities it states, so it is
  refused NVIDIA's and AMD's instruction forms and gets no TMA, and its JSON is valid). An AMD
  target's per-instruction cells are also listed in docs/hardware.md (tests/test_amd.py checks the
  two agree).

Each document is validated against the schema as generated from the registries with the toy
registered (swizzle_solver/schema.py, tests/test_schema.py).
"""
import contextlib
import io
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_properties import Access, brute_worst_total
from test_schema import errors, validate

from swizzle_solver import hardware
from swizzle_solver.access import make_problem
from swizzle_solver.candidate import measure_as_given
from swizzle_solver.cli import main
from swizzle_solver.emit import emit, expressible_in, tma_mode
from swizzle_solver.families.identity import Identity
from swizzle_solver.report import solution_json
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
    shutil.copytree(ROOT / "docs" / "schema", tmp_path / "docs" / "schema")  # the schema's template
    (tmp_path / "swizzle_solver" / "emit" / "toy.py").write_text(TOY_TARGET)  # the only change

    def run(*args):
        return subprocess.run([sys.executable, "-m", "swizzle_solver", *args], cwd=tmp_path, capture_output=True,
                              text=True, env={"COLUMNS": "200", "PATH": "/usr/bin:/bin"})

    solve_args = ["--rows", "8", "--cols", "24", "--access", "4x2"]
    doc = json.loads(run(*solve_args, "--json", "--emit", "toy").stdout)
    assert doc["answer"]["emit"] == {"toy": f"toy_layout = {doc['answer']['name']!r}  # {doc['answer']['expression']}"}
    assert doc["answer"]["emit_expressible"] == {"toy": True}
    every_doc = json.loads(run(*solve_args, "--json", "--emit", "all").stdout)
    every = every_doc["answer"]["emit"]
    assert list(every)[-1] == "toy" and "cuda" in every
    report = run(*solve_args, "--emit", "toy")
    assert report.returncode == 0 and "--emit toy: Toy language" in report.stdout
    assert "umma (or tcgen05), toy or all" in " ".join(run("--help").stdout.split())
    bad = run(*solve_args, "--emit", "nonsense")
    assert bad.returncode == 2 and "toy" in bad.stderr
    # The schema the generator makes from the copy's registries lists toy and accepts its documents;
    # the committed one is stale (python -m swizzle_solver.schema --check would fail) and refuses them.
    made = subprocess.run([sys.executable, "-m", "swizzle_solver.schema", "--stdout"], cwd=tmp_path,
                          capture_output=True, text=True)
    committed = (ROOT / "docs" / "schema" / "solution.schema.json").read_text()
    schema, stale = json.loads(made.stdout), json.loads(committed)
    assert made.stdout != committed and schema["$defs"]["layout"]["properties"]["expressible_in"]["items"]["enum"][-1] == "toy"
    for document in (doc, every_doc):
        assert "toy" in document["answer"]["expressible_in"]
        assert errors(document, schema, schema) == []
        assert errors(document, stale, stale)  # the stale schema refuses it: the schema matters


# A vendor's target that is neither NVIDIA's nor AMD's: its geometry, its phase rule, the language
# of its kernels and what it calls its lanes' group; no instruction families, no copy engine.
TOY_HARDWARE = hardware.Hardware(name="toy-16", banks=16, bank_bytes=4, wave_lanes=16,
                                 phase_lanes=((4, 16), (8, 8), (16, 4)), language="OpenCL C", group="subgroup")


@pytest.mark.parametrize("specs", [["col"], ["4x4", "row"], ["col", "4x4"], ["2x8"]])
def test_a_hardware_target_is_one_data_entry(monkeypatch, specs):
    monkeypatch.setitem(hardware.TARGETS, TOY_HARDWARE.name, TOY_HARDWARE)  # the only change
    target = hardware.TARGETS["toy-16"]
    problem = make_problem(16, 16, specs, None, 4, arch="toy-16")  # --arch toy-16
    tile, hw = problem.tile, problem.hardware
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
        assert measure_as_given(problem, Identity()).results[specs.index("col")].worst == 16
        assert solution.answer.results[specs.index("col")].worst == 1
    assert all(len(p.phase_lanes(i)) <= target.wave_lanes for p in problem.patterns
               for i in range(p.phases_per_placement))


ARGV = ["--arch", "toy-16", "--rows", "16", "--cols", "16", "--dtype", "f16"]


@pytest.mark.parametrize("spec, having", [
    ("ldmatrix.x4", "--arch nvidia"), ("stmatrix.x2", "--arch nvidia"), ("mma-c:m16n8", "--arch nvidia"),
    ("lds128:16x1", "--arch nvidia"), ("ds_read_b128:16x1", "--arch gfx90a, gfx942, gfx950, gfx1250, rdna3, rdna4"),
    ("ds_write_b64:16x1", "--arch gfx90a, gfx942, gfx950, gfx1250, rdna3, rdna4"),
    ("mfma-a:16x16x16", "--arch gfx90a, gfx942, gfx950")])
def test_a_new_target_is_refused_the_forms_it_does_not_state(monkeypatch, capsys, spec, having):
    """NVIDIA's instruction forms (ldmatrix, stmatrix, the mma.sync fragment, lds/sts) and AMD's
    (ds_read/ds_write, the MFMA operand reads) are bad input on a target that does not list them:
    exit 2, one line naming the targets that have them, nothing on stdout."""
    monkeypatch.setitem(hardware.TARGETS, TOY_HARDWARE.name, TOY_HARDWARE)
    assert main([*ARGV, "--access", spec]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "--arch toy-16" in err and having in err, err


def test_a_new_target_solves_with_valid_json_and_no_tma(monkeypatch, tmp_path):
    """Issue 22's acceptance: the toy target (one data entry, neither NVIDIA nor AMD) solves the
    generic forms, its document is valid under the schema, and it gets no TMA: no tma_mode, tma in
    no expressible_in, --emit tma says it has none; nor TMA's relatives (CuTe's make_tma_copy/GMMA
    atom, Triton's NVMMA, Mojo's TensorMapSwizzle), nor a profiler counter it did not state. Its
    C function is written in plain C (its language is neither CUDA nor HIP), and compiles."""
    from swizzle_solver.families.cute import Swizzle

    monkeypatch.setitem(hardware.TARGETS, TOY_HARDWARE.name, TOY_HARDWARE)
    problem = make_problem(16, 32, ["4x4", "row", "warp:4x4:1x8"], None, 4, arch="toy-16")
    solution = solve(problem)
    doc = solution_json(solution)
    validate(doc)
    assert (doc["problem"]["arch"], doc["problem"]["wave_lanes"], doc["status"]) == ("toy-16", 16, "conflict-free")
    for layout in [doc["answer"], *doc["alternatives"]]:
        assert layout["tma_mode"] is None and "tma" not in layout["expressible_in"]
        assert all("counter" not in a for a in layout["per_access"])
    # A 128-byte-row swizzle is NVIDIA's 128B TMA mode; on the toy no target offers it.
    sw, nvidia = Swizzle(3, 2, 3), make_problem(16, 32, ["4x4"], None, 4)
    assert tma_mode(nvidia, sw) == "128B" and tma_mode(problem, sw) is None
    refused = emit("tma", problem, sw)
    assert not refused.expressible and "not a TMA layout on --arch toy-16: it has no TMA" in refused.code
    assert "--arch nvidia, sm90, sm100, sm120 have one" in refused.code
    assert "GMMA" in emit("cute", nvidia, sw).code and "GMMA" not in emit("cute", problem, sw).code
    assert "TensorMapSwizzle" in emit("mojo", nvidia, sw).code and "TensorMapSwizzle" not in emit("mojo", problem, sw).code
    triton = emit("triton", problem, sw)
    assert not triton.expressible and "no backend for --arch toy-16 (OpenCL C kernels)" in triton.code
    assert expressible_in(problem, sw) == ["cute", "cute-dsl", "cuda", "mojo"]
    c = emit("cuda", problem, sw).code
    assert "static inline int swizzle_phys(int r, int c)" in c and "__device__" not in c and "HIP" not in c
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler (cc/gcc) installed")
    (tmp_path / "t.c").write_text("#include <stdio.h>\n" + c + "\nint main(void) {\n  for (int r = 0; r < 16; ++r)"
                                  " for (int c = 0; c < 32; ++c) printf(\"%d \", swizzle_phys(r, c));\n  return 0;\n}\n")
    subprocess.run([cc, "-std=c99", "-Wall", "-Werror", "-o", str(tmp_path / "t"), str(tmp_path / "t.c")], check=True)
    table = [int(x) for x in subprocess.run([str(tmp_path / "t")], capture_output=True, text=True).stdout.split()]
    assert table == [int(sw.phys(problem.tile, r, c)) for r in range(16) for c in range(32)]


def test_a_new_target_with_a_tma_lists_its_modes(monkeypatch):
    """A copy engine is data too: the toy with a TMA of the 64B mode only gets --emit tma for a
    64-byte-row swizzle, not for the 128B one, and the schema's tma_mode enum is the targets' modes."""
    from swizzle_solver import schema
    from swizzle_solver.families.cute import Swizzle

    monkeypatch.setitem(hardware.TARGETS, "toy-tma", hardware.Hardware(
        name="toy-tma", banks=16, wave_lanes=16, phase_lanes=((4, 16), (8, 8), (16, 4)), copy_engines=("tma",),
        tma_modes=("64B",), language="CUDA"))
    rows128, rows64 = (make_problem(16, n, ["4x4"], None, 4, arch="toy-tma") for n in (32, 16))
    assert tma_mode(rows64, Swizzle(2, 2, 3)) == "64B" and tma_mode(rows128, Swizzle(3, 2, 3)) is None
    assert "its TMA has 64B, not 128B" in emit("tma", rows128, Swizzle(3, 2, 3)).code
    assert schema.tma_modes() == ["32B", "64B", "128B", "128B_ATOM_32B", "128B_ATOM_32B_FLIP_8B", "128B_ATOM_64B", None]
    with pytest.raises(ValueError, match="without a TMA"):
        hardware.Hardware(name="bad", tma_modes=("64B",))
    with pytest.raises(ValueError, match="unknown capabilities"):
        hardware.Hardware(name="bad", instructions=frozenset({"ldmatrix.m16n16"}))


# A new language, both ways: a --check notation (one module in notation/, named by its prefix) and an
# --emit target (one module in emit/). Neither says anything about --order col or 4-bit elements: the
# views every target gets (emit/views.py) serve them.
TOY_NOTATION = '''"""`swz: B,M,S`: CuTe's Swizzle<B,M,S> on the element offset r * row_length + c (a toy notation)."""
from __future__ import annotations

import re

import numpy as np

from ..model import Tile
from ..value import Value
from . import expr
from .expr import NotationError

ORDER = 9
WHAT = "a toy swizzle"


class Swz(Value):
    B: int
    M: int
    S: int
    notation = "swz"
    unit = "element"
    as_written = False
    storage_level = True  # of the stored offset: under --order col, c * row_length + r (as bytes:Swizzle<...>)

    def evaluate(self, tile: Tile):
        node = expr.swizzle_node(expr.linear((expr.R, tile.row_length), (expr.C, 1)), self.B, self.M, self.S)
        r, c = np.arange(tile.rows, dtype=np.int64)[:, None], np.arange(tile.cols, dtype=np.int64)[None, :]
        return expr.evaluate(node, r, c), node, None


def read(body: str, base=None, allow_outside: bool = True) -> Swz:
    m = re.fullmatch(r"\\s*([0-9]{1,2})\\s*,\\s*([0-9]{1,2})\\s*,\\s*(-?[0-9]{1,2})\\s*", body)
    if not m:
        raise NotationError("swz: takes B,M,S (three integers)", 1)
    return Swz(int(m[1]), int(m[2]), int(m[3]))
'''

TOY_PYTHON = '''"""--emit numpy: the layout as a Python function of (r, c) (a toy target)."""
from __future__ import annotations

from ..layout import Layout
from ..model import Problem
from ..orient import words
from .common import Snippet, header

TARGET = "numpy"
TITLE = "Python / numpy"
ORDER = 9
COMMENT = "#"


def emit(problem: Problem, layout: Layout) -> Snippet:
    expression = words(problem.tile).expression(layout.expression(problem.tile))  # in the user's (r, c)
    head = header(problem, layout, "#")
    if expression is None:
        return Snippet("numpy", f"{head}\\n# cannot express: the layout has no closed form", False)
    return Snippet("numpy", f"{head}\\ndef swizzle_phys(r, c):\\n    return {expression}", True)
'''


def test_a_language_is_one_module_each_way(tmp_path):
    """issue 33: a notation and an emit target added as one module each, with no other edit, go
    through --check, --emit, --order col, --dtype fp4, --json (valid under the schema generated from
    the copy's registries, refused by the stale one), batch and --help."""
    import pycute

    shutil.copytree(ROOT / "swizzle_solver", tmp_path / "swizzle_solver", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "docs" / "schema", tmp_path / "docs" / "schema")
    (tmp_path / "swizzle_solver" / "notation" / "swz.py").write_text(TOY_NOTATION)  # the only two changes
    (tmp_path / "swizzle_solver" / "emit" / "numpy.py").write_text(TOY_PYTHON)

    stale = json.loads((ROOT / "docs" / "schema" / "solution.schema.json").read_text())
    tile = ["--rows", "64", "--cols", "64", "--dtype", "f16", "--access", "8x8"]
    (tmp_path / "cases.toml").write_text('[[case]]\nname = "toy"\nrows = 64\ncols = 64\ndtype = "f16"\n'
                                         'access = ["8x8"]\ncheck = "swz: 3,3,3"\nfor = ["numpy"]\n')
    report, as_json, bad, col_run, fp4, batch, helped, made = in_the_copy(
        tmp_path, [*tile, "--check", "swz: 3,3,3"], [*tile, "--check", "swz: 3,3,3", "--json", "--emit", "all"],
        [*tile, "--check", "swz: 3,3"], [*tile, "--order", "col", "--check", "swz: 3,3,3", "--json", "--emit", "numpy"],
        ["--rows", "16", "--cols", "64", "--dtype", "fp4", "--access", "8x8", "--json", "--emit", "numpy"],
        ["batch", str(tmp_path / "cases.toml"), "--json"], ["--help"])
    schema = json.loads(made)
    # --check in the new notation: the rich report says what it is, the JSON is valid (and not under the stale schema)
    assert report.returncode == 0 and "a toy swizzle, checked as written" in report.stdout, report.stderr
    doc = json.loads(as_json.stdout)
    assert doc["answer"]["given"]["notation"] == "swz" and "numpy" in doc["answer"]["expressible_in"]
    assert errors(doc, schema, schema) == [] and errors(doc, stale, stale)
    assert bad.returncode == 2 and bad.stdout == "" and "column 5: swz: takes B,M,S" in bad.stderr
    # --order col: the new target's function is of the user's (r, c) (pycute: the swizzle of the column-major offset)
    col = json.loads(col_run.stdout)
    scope: dict = {}
    exec(col["answer"]["emit"]["numpy"], scope)  # noqa: S102 (the toy's own output)
    sw = pycute.Swizzle(3, 3, 3)
    assert all(scope["swizzle_phys"](r, c) == sw(c * 64 + r) for r in range(64) for c in range(64))
    assert "box" not in col["answer"]["emit"]["numpy"]  # (no other target's note)
    assert errors(col, schema, schema) == []
    # 4-bit elements: the packed bytes' function, then the element identity in the target's comments
    assert fp4.returncode in (0, 1) and "Traceback" not in fp4.stderr, fp4.stderr
    code = json.loads(fp4.stdout)["answer"]["emit"]["numpy"]
    assert "#   phys_elem(r, c) = 2 * phys(r, c / 2) + c % 2" in code and "//" not in code
    # batch, with both
    assert batch.returncode == 0 and '"swz"' in batch.stdout, batch.stderr
    # --help names both, from the registries
    help_text = " ".join(helped.stdout.split())
    assert "tk:, swz:" in help_text and "umma (or tcgen05), numpy;" in help_text


IN_THE_COPY = r"""
import contextlib, io, json, os, sys
from swizzle_solver import schema
from swizzle_solver.cli import main
answers = []
for argv in json.loads(sys.argv[1]):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    answers.append([code, out.getvalue(), err.getvalue()])
made = io.StringIO()
with contextlib.redirect_stdout(made):
    schema.main(["--stdout"])
print(json.dumps({"runs": answers, "schema": made.getvalue()}))
"""


def in_the_copy(tmp_path, *runs: list[str]) -> list:
    """Each argv of ``runs`` given to the copy's ``cli.main`` in turn, then the copy's schema generator
    (python -m swizzle_solver.schema --stdout), all in ONE fresh process in ``tmp_path`` (so the
    copy's package is the one imported, its registries found from its own folders, the first run on
    a cold start): each run as a CompletedProcess, then the schema's text. (A process per run cost 2 s
    for what one process shows: that the copy's new modules are found and used.)"""
    done = subprocess.run([sys.executable, "-c", IN_THE_COPY, json.dumps(runs)], cwd=tmp_path, capture_output=True,
                          text=True, env={"COLUMNS": "200", "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr[-2000:]
    answer = json.loads(done.stdout)
    return [subprocess.CompletedProcess(["swizzle-solve", *argv], code, out, err)
            for argv, (code, out, err) in zip(runs, answer["runs"], strict=True)] + [answer["schema"]]


# A language as one record (forms/language.py), registered in-process: no module in notation/ or
# emit/, no other edit. It reads `rot: K` (the element offset r * row_length + c with its column
# rotated by K * r within the row: a permutation of each row) and writes --emit rot (the function of
# (r, c) in Python).
def _rot_read(body: str, base=None, allow_outside: bool = True):
    import re

    import numpy as np

    from swizzle_solver.notation import expr
    from swizzle_solver.notation.expr import NotationError
    from swizzle_solver.value import Value

    m = re.fullmatch(r"\s*([0-9]{1,2})\s*", body)
    if not m:
        raise NotationError("rot: takes K, a rotation per row (an integer)", 1)
    k = int(m[1])

    class Rot(Value):
        notation = "rot"
        unit = "element"
        as_written = False

        def evaluate(self, tile):
            r, c = np.arange(tile.rows, dtype=np.int64)[:, None], np.arange(tile.cols, dtype=np.int64)[None, :]
            table = r * tile.row_length + (c + k * r) % tile.cols
            return table, None, None

    assert expr  # (the toy needs no tree: its table is the layout)
    return Rot()


def _rot_emit(problem, layout):
    from swizzle_solver.emit.common import Snippet
    from swizzle_solver.orient import words

    text = words(problem.tile).expression(layout.expression(problem.tile))  # in the user's (r, c)
    if text is None:
        return Snippet("rot", "# cannot express: the layout has no closed form", False)
    return Snippet("rot", f"def swizzle_phys(r, c):\n    return {text}", True)


@pytest.fixture
def rot_language():
    from swizzle_solver import api
    from swizzle_solver.forms.language import Language, register, unregister

    toy = Language(name="rot", title="Rotated rows (a toy)", order=50, emit=_rot_emit, comment="#",
                   prefix="rot", what="a toy rotation", check_order=50, read=_rot_read, aliases=("rotate",))
    api.cache_clear()
    register(toy)
    yield toy
    unregister("rot")
    api.cache_clear()


def test_a_language_is_one_record(rot_language, tmp_path):
    """issue 33 item 2: a language registered as one record (forms.language.register), with no
    module and no other edit, goes through --check, --emit (and its alias), --for, --order col,
    --dtype fp4, --json valid under the schema the live registries make (and refused by the
    committed one), batch and --help; and it leaves with unregister."""
    import numpy as np
    from clirun import solve as cli
    from test_schema import load

    from swizzle_solver import emit as emit_registry
    from swizzle_solver import notation, schema

    assert emit_registry.TARGETS[-1] == "rot" and emit_registry.ALIASES["rotate"] == "rot"
    assert notation.prefixes()[-1] == "rot" and notation.what("rot") == "a toy rotation"
    stale = json.loads((ROOT / "docs" / "schema" / "solution.schema.json").read_text())
    live = load("solution.schema.json")
    assert schema.emit_targets()[-1] == "rot" and schema.notations()[-1] == "rot"
    tile = ["--rows", "16", "--cols", "16", "--dtype", "f32", "--access", "col"]
    # --check in the toy: the report says what it is; rotating row r by r makes a column conflict-free
    report = cli(*tile, "--check", "rot: 1", env={"COLUMNS": "200"})
    assert report.returncode == 0 and "a toy rotation, checked as written" in report.stdout, report.stderr
    assert "0 excess" in report.stdout or "conflict-free" in report.stdout
    doc = json.loads(cli(*tile, "--check", "rot: 1", "--json", "--emit", "all").stdout)
    assert doc["answer"]["given"]["notation"] == "rot" and doc["answer"]["per_access"][0]["worst_wavefronts"] == 1
    assert errors(doc, live, live) == [] and errors(doc, stale, stale)
    bad = cli(*tile, "--check", "rot: x")
    assert bad.returncode == 2 and bad.stdout == "" and "column 5: rot: takes K" in bad.stderr
    # --emit rot (and its alias) on a solve: the function is the layout (against the answer's own table)
    solved = json.loads(cli(*tile, "--json", "--emit", "rotate").stdout)
    assert list(solved["answer"]["emit"]) == ["rot"] and solved["answer"]["emit_expressible"] == {"rot": True}
    scope: dict = {}
    exec(solved["answer"]["emit"]["rot"], scope)  # noqa: S102 (the toy's own output)
    from swizzle_solver.names import parse_layout

    answer = parse_layout(solved["answer"]["name"])
    from swizzle_solver.access import make_problem

    problem = make_problem(16, 16, ["col"], None, 4)
    table = answer.phys(problem.tile, *np.meshgrid(np.arange(16), np.arange(16), indexing="ij"))
    assert [[scope["swizzle_phys"](r, c) for c in range(16)] for r in range(16)] == table.tolist()
    assert errors(solved, live, live) == []
    # --for rot: only layouts it expresses (all that have a closed form)
    assert cli(*tile, "--for", "rot").returncode == 0
    # --order col: its function is of the user's (r, c): the user's element (r, c) is stored at (c, r)
    col = json.loads(cli(*tile, "--order", "col", "--json", "--emit", "rot").stdout)
    scope = {}
    exec(col["answer"]["emit"]["rot"], scope)  # noqa: S102
    answer = parse_layout(col["answer"]["name"])
    assert all(scope["swizzle_phys"](r, c) == int(answer.phys(problem.tile, np.int64(c), np.int64(r)))
               for r in range(16) for c in range(16))
    assert "box" not in col["answer"]["emit"]["rot"] and errors(col, live, live) == []
    # 4-bit elements: the packed bytes' function, then the element identity in its comments
    fp4 = cli("--rows", "16", "--cols", "64", "--dtype", "fp4", "--access", "8x8", "--json", "--emit", "rot")
    assert fp4.returncode in (0, 1), fp4.stderr
    fp4_doc = json.loads(fp4.stdout)
    code = fp4_doc["answer"]["emit"]["rot"]
    assert "#   phys_elem(r, c) = 2 * phys(r, c / 2) + c % 2" in code and "//" not in code
    assert errors(fp4_doc, live, live) == []
    # batch, with both halves
    (tmp_path / "cases.toml").write_text('[[case]]\nname = "toy"\nrows = 16\ncols = 16\ndtype = "f32"\n'
                                         'access = ["col"]\ncheck = "rot: 1"\nfor = ["rot"]\n')
    batch = cli("batch", str(tmp_path / "cases.toml"), "--json")
    assert batch.returncode == 0 and '"rot"' in batch.stdout, batch.stderr
    # --help names both, from the registries
    help_text = " ".join(cli("--help", env={"COLUMNS": "200"}).stdout.split())
    assert "tk:, rot:" in help_text and "rot (or rotate);" in help_text


def test_a_registered_language_leaves_with_unregister():
    from swizzle_solver import emit as emit_registry
    from swizzle_solver import notation
    from swizzle_solver.forms.language import Language, register, unregister

    before = (emit_registry.TARGETS, notation.prefixes())
    register(Language(name="gone", title="Gone", emit=_rot_emit, prefix="gone", read=_rot_read))
    try:
        assert "gone" in emit_registry.TARGETS and "gone" in notation.prefixes() and notation.is_notation("gone: 1")
    finally:
        unregister("gone")
    assert (emit_registry.TARGETS, notation.prefixes()) == before and not notation.is_notation("gone: 1")
    with pytest.raises(ValueError, match="neither reads nor writes"):
        Language(name="mute")
    with pytest.raises(ValueError, match="both a prefix and read"):
        Language(name="half", prefix="half")


def test_the_help_names_a_language_registered_after_an_earlier_help():
    """cli.main makes typer's command once per process (cli._command): the options' help that names
    the registries is written from its template at each --help, so a language registered since the
    last one is named (and gone once unregistered)."""
    from swizzle_solver.forms.language import Language, register, unregister

    def help_text() -> str:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert main(["--help"]) == 0
        return " ".join(out.getvalue().split())

    assert "later:" not in help_text()
    register(Language(name="later", title="Later", emit=_rot_emit, prefix="later", read=_rot_read))
    try:
        text = help_text()
        assert "later:," in text and re.search(r"--emit <str> Code for [^;]*\blater\b", text), text
    finally:
        unregister("later")
    assert "later:" not in help_text()
