"""The CLI on the warp-level forms, --linear-layout, --phases and --show-phases, and their bad inputs."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from swizzle_solver.cli import main

ROOT = Path(__file__).resolve().parents[1]


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def solve_json(capsys, *argv):
    code, out, err = run(capsys, *argv, "--json")
    assert err == ""
    return code, json.loads(out)


def test_ldmatrix_solves_with_phases_in_json(capsys):
    code, doc = solve_json(capsys, "--rows", "16", "--cols", "64", "--dtype", "f16", "--access", "ldmatrix.x4",
                           "--show-phases")
    assert code == 0 and doc["status"] == "conflict-free"
    [acc] = doc["problem"]["accesses"]
    assert acc["kind"] == "ldmatrix" and acc["phases_per_placement"] == 4 and acc["placements"] == 16
    assert acc["phases"][0] == [[r, 0, 16] for r in range(8)]
    assert acc["phases"][3] == [[r, 8, 16] for r in range(8, 16)]
    [per] = doc["answer"]["per_access"]
    assert per["worst_wavefronts"] == 1 and per["baseline_worst_wavefronts"] == 8


def test_phases_only_on_request(capsys):
    _, doc = solve_json(capsys, "--rows", "16", "--cols", "16", "--dtype", "f16", "--access", "ldmatrix.x4")
    assert "phases" not in doc["problem"]["accesses"][0]


def test_show_phases_in_the_terminal(capsys):
    code, out, _ = run(capsys, "--rows", "4", "--cols", "64", "--access", "warp:4x8:1x8", "--show-phases")
    assert code == 0
    assert "the 8 hardware phase(s) of the first placement" in out
    assert "phase 4: (0,4,16) (0,12,16)" in out


def test_show_phases_on_explicit_and_block_patterns(capsys):
    _, doc = solve_json(capsys, "--rows", "8", "--cols", "8", "--access", "4x2", "--show-phases")
    assert doc["problem"]["accesses"][0]["phases"] == [[[r, 0, 8] for r in range(4)]]


def test_mma_accumulator_and_its_triton_layout_agree(capsys):
    _, doc = solve_json(capsys, "--rows", "32", "--cols", "32", "--access", "mma-c:m16n8", "--linear-layout",
                        str(ROOT / "examples" / "mma-c-m16n8-f32.json"), "--show-phases")
    a, b = doc["problem"]["accesses"]
    assert a["phases"] == b["phases"] and a["placements"] == b["placements"] == 32
    assert b["spec"] == "mma m16n8 accumulator (Triton linear layout)"
    per = doc["answer"]["per_access"]
    assert per[0]["worst_wavefronts"] == per[1]["worst_wavefronts"]
    # Unswizzled, a phase is rows 0-3 x columns 0-7 and every 128-byte row starts at bank 0: 4-way.
    assert per[0]["baseline_worst_wavefronts"] == per[1]["baseline_worst_wavefronts"] == 4


def test_check_with_warp_access(capsys):
    # Column read by a warp (32 lanes x 4 B) on a 32x32 f32 tile: col ^= row makes it conflict-free.
    code, doc = solve_json(capsys, "--rows", "32", "--cols", "32", "--access", "warp:32x1:1x1", "--check",
                           "Swizzle<5,0,5>")
    assert code == 0 and doc["check"]["passed"]
    code, doc = solve_json(capsys, "--rows", "32", "--cols", "32", "--access", "warp:32x1:1x1", "--check", "none")
    assert code == 1 and doc["answer"]["per_access"][0]["worst_wavefronts"] == 32


def test_phases_files_on_the_cli(capsys):
    code, doc = solve_json(capsys, "--rows", "32", "--cols", "32", "--phases",
                           str(ROOT / "phases" / "main-diagonal-32.toml"), "--access", "row")
    assert code == 0 and doc["problem"]["accesses"][1]["spec"] == "main diagonal"
    assert doc["answer"]["family"] == "none"  # both are conflict-free unswizzled


@pytest.mark.parametrize("argv", [
    ["--rows", "16", "--cols", "16", "--access", "ldmatrix.x3"],
    ["--rows", "16", "--cols", "16", "--access", "ldmatrix.x4.bogus"],
    ["--rows", "16", "--cols", "16", "--access", "stmatrix.x4:1x2"],
    ["--rows", "16", "--cols", "16", "--access", "mma-c:m16n16"],
    ["--rows", "16", "--cols", "16", "--access", "warp:4x4:1x1"],
    ["--rows", "16", "--cols", "16", "--access", "warp:4x8:1x8"],
    ["--rows", "4", "--cols", "64", "--row-length", "66", "--access", "warp:4x8:1x8v16"],
    ["--rows", "16", "--cols", "16", "--elem-bytes", "8", "--access", "mma-c"],
    ["--rows", "16", "--cols", "16", "--linear-layout", "/nonexistent.json"],
    ["--rows", "8", "--cols", "8", "--linear-layout", str(ROOT / "examples" / "mma-c-m16n8-f32.json")],
    ["--rows", "16", "--cols", "16", "--phases", "/nonexistent.toml"],
    ["--rows", "8", "--cols", "8", "--phases", str(ROOT / "README.md")],
])
def test_bad_inputs_exit_2_with_one_line(capsys, argv):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith("swizzle-solve: error: ") and err.count("\n") == 1


def test_bad_layout_file_on_the_cli(capsys, tmp_path):
    path = tmp_path / "l.json"
    path.write_text('{"lane": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], "out_dims": {"dim0": 1, "dim1": 64}}')
    code, out, err = run(capsys, "--rows", "4", "--cols", "32", "--linear-layout", str(path))
    assert code == 2 and out == "" and "outside the 4 x 32 tile" in err and err.count("\n") == 1


def test_batch_case_with_linear_layout(capsys, tmp_path):
    (tmp_path / "cases.toml").write_text(
        '[[case]]\nname = "mma"\nrows = 16\ncols = 8\nlinear_layout = ["layout.json"]\naccess = ["mma-c"]\n')
    (tmp_path / "layout.json").write_text((ROOT / "examples" / "mma-c-m16n8-f32.json").read_text())
    code, out, _ = run(capsys, "batch", str(tmp_path / "cases.toml"), "--json")
    doc = json.loads(out)
    assert code == 0 and doc["cases"][0]["ok"]
    assert [a["kind"] for a in doc["cases"][0]["result"]["problem"]["accesses"]] == ["mma-c", "linear-layout"]


def test_subprocess_warp_form():
    run_ = subprocess.run([sys.executable, "-m", "swizzle_solver", "--rows", "16", "--cols", "16", "--dtype", "f16",
                           "--access", "ldmatrix.x4.trans", "-q"], capture_output=True, text=True, cwd=ROOT)
    assert run_.returncode == 0 and run_.stdout.strip().startswith("Swizzle<")
