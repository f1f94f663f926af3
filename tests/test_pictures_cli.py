"""--emit, --show and --svg through the CLI, the SVG as XML and as a rendered PNG, and the Python API."""
import json
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from rich.console import Console

from swizzle_solver import solve
from swizzle_solver.api import bank_maps
from swizzle_solver.bankmap import choose_access
from swizzle_solver.emit import TARGETS
from swizzle_solver.layout import layout_table
from swizzle_solver.model import InputError
from swizzle_solver.picture import picture
from tests import clirun

ROOT = Path(__file__).resolve().parents[1]
TILE = ["--rows", "16", "--cols", "32", "--dtype", "f16", "--access", "8x8", "--access", "row"]
SVG = "{http://www.w3.org/2000/svg}"


def cli(*args, cwd=ROOT):
    return clirun.solve(*args, cwd=cwd, env={"COLUMNS": "200"})  # in this process (tests/clirun.py)


def test_emit_all_in_json_and_rich():
    run = cli(*TILE, "--emit", "all", "--json")
    assert run.returncode == 0, run.stderr
    answer = json.loads(run.stdout)["answer"]
    assert list(answer["emit"]) == list(TARGETS)
    assert "Swizzle<2,3,3>" in answer["emit"]["cute"]
    assert "CU_TENSOR_MAP_SWIZZLE_64B" in answer["emit"]["tma"]
    expressible = dict(answer["emit_expressible"])
    assert expressible.pop("umma") is False and "has no tcgen05" in answer["emit"]["umma"]  # --arch nvidia: sm100's
    assert all(expressible.values())
    rich = cli(*TILE, "--emit", "cuda", "--emit", "triton")
    assert rich.returncode == 0
    assert "--emit cuda: CUDA / C" in rich.stdout and "--emit triton: Triton" in rich.stdout
    assert "--emit mojo" not in rich.stdout
    # code is printed whole, never wrapped: the JSON snippet appears verbatim
    assert answer["emit"]["cuda"] in rich.stdout


@pytest.mark.parametrize("args, words", [
    (["--emit", "nonsense"], "--emit 'nonsense' is not a target"),
    (["--svg", "/nonexistent-dir/tile.svg"], "does not exist"),
    (["--svg", "."], "is a directory"),
    (["--svg", "tile.HTML"], "writes an SVG figure, not HTML: name it tile.svg"),  # a browser reads the name
    (["--html", "tile.svg"], "writes an HTML page, not SVG: name it tile.html"),
    (["--show", "--json"], "cannot go with --json"),
    (["--show-access", "4x4"], "names no access"),
])
def test_bad_output_options_exit_2_with_one_line(args, words, tmp_path):
    run = cli(*TILE, *args)
    assert run.returncode == 2
    assert run.stdout == ""
    assert run.stderr.count("\n") == 1 and words in run.stderr


def test_svg_not_half_written_on_bad_input(tmp_path):
    target = tmp_path / "tile.svg"
    run = cli(*TILE, "--svg", str(target), "--emit", "nonsense")
    assert run.returncode == 2 and not target.exists()
    assert list(tmp_path.iterdir()) == []  # no temporary file left behind either


def test_show_marks_worst_placement_before_and_after():
    run = cli(*TILE, "--show")
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "Bank map" in out and "before (unswizzled): none" in out and "after: Swizzle<2,3,3>" in out
    # default access: the one the unswizzled tile serves worst (8x8, not the first given 'row' here)
    assert "8x8: worst 4 wavefront(s), bound 1" in out and "8x8: worst 1 wavefront(s), bound 1" in out
    cells = out[out.index("before (unswizzled)"):out.index("Conflict-free")]
    assert cells.count("!") == 64  # the 8x8 footprint conflicts before, all 64 elements marked
    assert cells.count("*") == 64  # and is clean after


def test_show_access_by_position_and_wide_tiles_point_to_svg():
    assert "row: worst 1 wavefront(s)" in cli(*TILE, "--show-access", "2").stdout
    wide = cli("--rows", "8", "--cols", "128", "--access", "8x4", "--show")
    assert wide.returncode == 0 and "use --svg FILE" in wide.stdout


def test_picture_cells_are_the_simulators_banks():
    result = solve(rows=16, cols=32, dtype="f16", access=["8x8"])
    before, after = bank_maps(result.problem, result.layout, None)
    expected = layout_table(result.problem.tile, result.layout) * 2 // 4 % 32
    assert np.array_equal(after.banks, expected)
    console = Console(width=300, record=True, color_system=None)
    console.print(picture(before, after, 32, console.width))
    text = console.export_text()
    row3 = next(line for line in text.splitlines() if line.lstrip().startswith("3 "))
    # side by side: row 3 of before, then row 3 of after, every cell its bank
    cells = row3.replace("*", " ").replace("!", " ").split()
    assert [int(x) for x in cells[1:33]] == before.banks[3].tolist()
    assert [int(x) for x in cells[34:66]] == after.banks[3].tolist()


def test_choose_access():
    p = solve(rows=8, cols=8, banks=8, access=["row", "8x1"]).problem
    assert choose_access(p, None) == 1  # 8x1 conflicts when unswizzled
    assert choose_access(p, "row") == 0 and choose_access(p, "2") == 1
    with pytest.raises(InputError):
        choose_access(p, "3")


def _svg(tmp_path, *extra):
    path = tmp_path / "tile.svg"
    run = cli(*TILE, "--svg", str(path), "--quiet", *extra)
    assert run.returncode == 0, run.stderr
    assert run.stdout == "Swizzle<2,3,3>\n"
    return path


def test_svg_parses_and_holds_the_figure(tmp_path):
    path = _svg(tmp_path)
    root = ET.parse(path).getroot()
    assert root.tag == f"{SVG}svg"
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert "before: none" in texts and "after: Swizzle<2,3,3>" in texts
    assert any(t.startswith("physical memory under Swizzle<2,3,3>") for t in texts)
    assert "4 / 32" in texts and "1 / 8" in texts  # 8x8 worst / total, before and after
    rects = list(root.iter(f"{SVG}rect"))
    outlined_red = [r for r in rects if r.get("stroke") == "#d00000"]
    assert len(outlined_red) == 64  # the conflicting 8x8 footprint, before
    assert path.read_bytes() == _svg(tmp_path).read_bytes()  # deterministic


def _renderer():
    if shutil.which("rsvg-convert"):
        return lambda src, dst: [shutil.which("rsvg-convert"), str(src), "-o", str(dst)]
    for exe in ("magick", "convert", "inkscape"):
        path = shutil.which(exe)
        if path and subprocess.run([path, "--version"], capture_output=True).returncode == 0 \
                and b"ImageMagick" in subprocess.run([path, "--version"], capture_output=True).stdout:
            return lambda src, dst, path=path: [path, str(src), str(dst)]
    return None


def test_svg_renders_to_png(tmp_path):
    render = _renderer()
    if render is None:
        pytest.skip("no SVG renderer installed (rsvg-convert or ImageMagick)")
    path = _svg(tmp_path)
    png = tmp_path / "tile.png"
    run = subprocess.run(render(path, png), capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_python_api():
    result = solve(rows=64, cols=64, dtype="f16", access=["8x8", "row"])
    assert result.conflict_free and result.name == "Swizzle<3,3,3>"
    assert "CU_TENSOR_MAP_SWIZZLE_128B" in result.emit("tma")
    doc = result.json(emit=["cuda"])
    assert doc["status"] == "conflict-free" and "swizzle_phys" in doc["answer"]["emit"]["cuda"]
    assert ET.fromstring(result.svg("row")).tag == f"{SVG}svg"
    with pytest.raises(InputError):
        result.emit("fortran")


def test_python_api_check():
    """check() is --check as an object: the same verdict and JSON, from a name or a layout."""
    from swizzle_solver import check, problem
    from swizzle_solver.families.xor_cols import XorCols

    good = check("Swizzle<3,3,3>", rows=64, cols=64, dtype="f16", access=["8x8", "row"])
    assert good.passed and good.worst == {"8x8": 1, "row": 1} and good.invalid is None
    assert good.json(emit=["cuda"])["check"] == {"layout": "Swizzle<3,3,3>", "passed": True, "invalid": None,
                                                  "minimal": None, "hint": None}
    plain = check("none", problem(64, 64, ["8x8"], dtype="f16"))
    assert not plain.passed and plain.worst == {"8x8": 8}  # 64 f16 = 128 B rows: all 8 rows in one bank group
    torn = check(XorCols(2, 3, 0), rows=8, cols=24, access="8x1")
    assert not torn.passed and "leaves the 24-column row" in torn.invalid
    with pytest.raises(InputError):
        check("Swizzle<1,2>", rows=8, cols=8, access="8x1")


def test_import_stays_cheap():
    code = "import sys, swizzle_solver; print('numpy' in sys.modules, 'rich' in sys.modules)"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert run.stdout.split() == ["False", "False"]
