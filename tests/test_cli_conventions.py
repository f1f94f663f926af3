"""CLI conventions (issue 15 items 3 and 4): --help, shell completion, output that fits the width,
--pitch, -q with --emit, a failing check that names the minimal layout, batch's check = hint, the
SVG's size, progress on a terminal, and the warning for a block larger than one wavefront."""
import json
import os
import re
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from swizzle_solver.api import check, problem, solve
from swizzle_solver.cli import main
from swizzle_solver.emit import emit
from swizzle_solver.progress import LazyProgress

ROOT = Path(__file__).resolve().parents[1]
F16 = ["--rows", "64", "--cols", "64", "--dtype", "f16"]


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def proc(*argv, env=None):
    return subprocess.run([sys.executable, "-m", "swizzle_solver", *argv], capture_output=True, text=True,
                          cwd=ROOT, env=env)


# --- --help and completion ---------------------------------------------------------------------------

def test_help_has_examples_exit_codes_and_no_command_in_usage(capsys):
    code, out, _ = run(capsys, "--help")
    assert code == 0
    usage = out.splitlines()[0]
    assert usage == "Usage: swizzle-solve [OPTIONS] [batch FILE]" and "COMMAND" not in usage
    assert "Examples:" in out and "Exit codes:" in out
    for code_line in ("0  conflict-free", "1  no conflict-free layout", "2  bad input"):
        assert code_line in out
    assert "--pitch" in out and "--install-completion" in out
    assert max(len(line) for line in out.splitlines()) <= 80
    # every example in the help runs and exits 0 or 1 (never bad input); the whole examples.toml
    # batch (2 s) in the slow tier, below (test_cli's test_batch_json_and_case runs it in this one)
    commands = help_examples(out)
    assert len(commands) == 5 and sum(argv[0] == "batch" for argv in commands) == 1
    for argv in commands:
        if argv[0] != "batch":
            assert main(argv) in (0, 1), argv
            capsys.readouterr()


def test_the_access_help_names_each_kind_of_form_and_its_examples_run(capsys):
    """--help's --access names the source-index and AMD forms too (it once stopped at the CuTe ones),
    and the access it spells out in full runs as printed (on the README's 32 x 32 transpose tile)."""
    code, out, _ = run(capsys, "--help")
    text = " ".join(out.split())
    for form in ("index:", "offset:", "ds_read_b128:64x1", "ds_read_b128:32x1:w4", "make_tiled_copy",
                 "SM75_U32x4_LDSM_N"):
        assert form in text, form
    index = re.search(r"'(index: [^']+)'", text)[1]
    assert main(["--rows", "32", "--cols", "32", "--access", index, "-q"]) == 0
    assert main(["--arch", "gfx1250", "--rows", "256", "--cols", "256", "--dtype", "f16", "--access",
                 "ds_read_b128:32x1:w4", "-q"]) == 0


def help_examples(out: str) -> list[list[str]]:
    examples = out[out.index("Examples:"):out.index("Exit codes:")].replace("\\\n", " ").splitlines()[1:]
    return [[a.strip("'") for a in line.split("swizzle-solve", 1)[1].split()] for line in examples
            if "swizzle-solve" in line]


@pytest.mark.slow  # the whole examples.toml (2 s of CPU)
def test_the_helps_batch_example_runs(capsys):
    code, out, _ = run(capsys, "--help")
    batch = [argv for argv in help_examples(out) if argv[0] == "batch"]
    assert code == 0 and len(batch) == 1
    assert main(batch[0]) in (0, 1), batch[0]


def test_bash_completion_completes_options_and_the_batch_command():
    env = dict(os.environ, _SWIZZLE_SOLVE_COMPLETE="complete_bash", COMP_WORDS="swizzle-solve --ro", COMP_CWORD="1")
    r = proc(env=env)
    assert r.returncode == 0 and r.stdout.split() == ["--rows", "--row-length"]
    env.update(COMP_WORDS="swizzle-solve ba")
    assert proc(env=env).stdout.split() == ["batch"]


# --- --pitch ------------------------------------------------------------------------------------------

def test_pitch_is_row_length(capsys, tmp_path):
    a = run(capsys, "--rows", "8", "--cols", "24", "--pitch", "28", "--access", "4x2", "--json")
    b = run(capsys, "--rows", "8", "--cols", "24", "--row-length", "28", "--access", "4x2", "--json")
    assert a == b and json.loads(a[1])["problem"]["row_length"] == 28
    case = '[[case]]\nname = "p"\nrows = 8\ncols = 24\n{}\naccess = ["4x2"]\n'
    path = tmp_path / "cases.toml"
    path.write_text(case.format("pitch = 28"))
    code, out, _ = run(capsys, "batch", str(path), "--json")
    assert code == 0 and json.loads(out)["cases"][0]["result"]["problem"]["row_length"] == 28
    path.write_text(case.format("pitch = 28\nrow_length = 28"))
    code, out, err = run(capsys, "batch", str(path))
    assert (code, out) == (2, "") and "pitch or row_length" in err


# --- -q with --emit -----------------------------------------------------------------------------------

def test_quiet_with_emit_prints_the_answer_then_the_code(capsys):
    code, out, err = run(capsys, *F16, "--access", "8x8", "-q", "--emit", "cuda", "--emit", "triton")
    p = problem(64, 64, ["8x8"], dtype="f16")
    layout = solve(p).layout
    expected = "\n".join(emit(t, p, layout).code.rstrip("\n") + "\n" for t in ("cuda", "triton"))
    assert (code, err) == (0, "") and out == "Swizzle<3,3,3>\n\n" + expected
    assert "swizzle_phys" in out and "SwizzledSharedLayout" in out


# --- a failing check names the minimal layout -------------------------------------------------------

def test_failing_check_names_the_minimal_layout_that_passes(capsys):
    argv = (*F16, "--access", "8x8", "--access", "row", "--check", "none")
    code, out, _ = run(capsys, *argv, "-q")
    minimal = solve(problem(64, 64, ["8x8", "row"], dtype="f16")).name
    assert (code, out) == (1, f"none failed; minimal: {minimal}\n")
    assert check(minimal, rows=64, cols=64, dtype="f16", access=["8x8", "row"]).passed  # it does pass
    code, out, _ = run(capsys, *argv, "--json")
    assert json.loads(out)["check"]["minimal"] == minimal
    code, out, _ = run(capsys, *argv)
    assert f"minimal: {minimal}" in out and "CHECK FAILED" in out
    code, out, _ = run(capsys, *F16, "--access", "8x8", "--check", minimal, "--json")
    assert code == 0 and json.loads(out)["check"]["minimal"] is None


def test_failing_check_where_nothing_is_conflict_free(capsys):
    # f32 float4 reads and a column: no layout keeping the vectors whole is conflict-free
    code, out, _ = run(capsys, "--rows", "32", "--cols", "64", "--access", "8x4", "--access", "col",
                       "--check", "none", "--json")
    assert code == 1 and json.loads(out)["check"]["minimal"] is None


def test_batch_expect_of_a_valid_non_minimal_layout_suggests_check(capsys, tmp_path):
    path = tmp_path / "cases.toml"
    case = '[[case]]\nname = "pinned"\nrows = 64\ncols = 64\ndtype = "f16"\naccess = ["8x8"]\nexpect = "{}"\n'
    assert check("XorCols<3,3,0>", rows=64, cols=64, dtype="f16", access=["8x8"]).passed  # valid, not minimal
    path.write_text(case.format("XorCols<3,3,0>"))
    code, out, _ = run(capsys, "batch", str(path))
    assert code == 1 and 'check = "XorCols<3,3,0>"' in " ".join(out.split())
    code, out, _ = run(capsys, "batch", str(path), "--json")
    assert 'check = "XorCols<3,3,0>"' in json.loads(out)["cases"][0]["hint"]
    path.write_text(case.format("Swizzle<3,3,4>"))  # conflicts: a plain failure, no hint
    assert not check("Swizzle<3,3,4>", rows=64, cols=64, dtype="f16", access=["8x8"]).passed
    code, out, _ = run(capsys, "batch", str(path), "--json")
    assert code == 1 and "hint" not in json.loads(out)["cases"][0]


# --- the output fits the width ----------------------------------------------------------------------

WIDE = [
    ["--rows", "32", "--cols", "32", "--access", "8x4", "--access", "col", "--access", "row", "--access", "16x1:2"],
    ["--rows", "16", "--cols", "32", "--access", "row", "--access", "col", "--show"],
    [*F16, "--access", "16x16"],
    ["batch", str(ROOT / "examples.toml")],
]


def _cells(text: str) -> list[str]:
    """The words of an output, for comparing what two widths show."""
    return sorted(w for w in re.split(r"[\s─]+", text) if w and not re.fullmatch(r"\(part|\d+|of|\d+\)", w))


@pytest.mark.parametrize("argv", WIDE, ids=["4 accesses", "--show", "warning", "batch"])
def test_piped_output_fits_80_columns(argv, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    code, out, _ = run(capsys, *argv)
    assert code in (0, 1)
    assert max(len(line) for line in out.splitlines()) <= 80


def widest_examples() -> str:
    """The cases of examples.toml whose rows are the widest in batch's table: the longest answer (a
    Triton layout checked, wider than a line) and the three longest names (wrapped under their row)."""
    import tomllib

    cases = [c for c in tomllib.loads((ROOT / "examples.toml").read_text())["case"] if "phases" not in c]
    picked = [max(cases, key=lambda c: len(c.get("check", "")))]
    picked += sorted(cases, key=lambda c: -len(c["name"]))[:3]
    return "".join("[[case]]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in c.items()) + "\n"
                   for c in picked)


def test_a_batch_table_of_the_widest_examples_fits_80_columns(capsys, monkeypatch, tmp_path):
    """The fast tier's instance of the batch table at 80 columns (the whole examples.toml, as
    test_piped_output_fits_80_columns[batch] runs it, is in the slow tier; test_cli's
    test_batch_json_and_case solves the whole file in the fast tier)."""
    path = tmp_path / "widest.toml"
    path.write_text(widest_examples())
    monkeypatch.setenv("COLUMNS", "80")
    code, out, _ = run(capsys, "batch", str(path))
    lines = out.splitlines()
    assert code == 0 and sum(line.startswith("  ok   conflict-free") for line in lines) == 4
    assert max(len(line) for line in lines) <= 80 and max(len(line) for line in lines if line.startswith(" " * 6)) > 70


def test_narrow_candidates_keep_every_number(capsys, monkeypatch):
    """Split into parts, the candidates table still shows every cell, each row on one line with
    its layout's name."""
    argv = WIDE[0]
    doc = json.loads(run(capsys, *argv, "--json")[1])
    monkeypatch.setenv("COLUMNS", "80")
    narrow = run(capsys, *argv)[1]
    for lay in [doc["answer"], *doc["alternatives"]]:
        lines = [line for line in narrow.splitlines() if re.search(rf"\s{re.escape(lay['name'])}\s", line)]
        cells = " ".join(lines)
        for a in lay["per_access"]:
            assert f"{a['worst_wavefronts']} / {a['total_wavefronts']}" in cells, lay["name"]


def test_a_batch_answer_wider_than_the_line_wraps_under_its_row(capsys, monkeypatch, tmp_path):
    """A `check =` in the kernel's CuTe text is the answer printed; wider than 80 columns it wraps
    indented under its row (it once ran on at column 0, where the next row's `ok` is read)."""
    layout = "cute: composition(Swizzle<3,3,3>{}, Layout<Shape<_16,Int<64>>,Stride<Int<64>,_1>>{})"
    cases = tmp_path / "k.toml"
    cases.write_text(f'[[case]]\nname = "wide"\nrows = 16\ncols = 64\ndtype = "f16"\naccess = ["ldmatrix.x4"]\n'
                     f'check = "{layout}"\n')
    monkeypatch.setenv("COLUMNS", "80")
    code, out, _ = run(capsys, "batch", str(cases))
    body = out[out.index("─"):out.index("1 passed")].splitlines()[1:]
    assert code == 0 and max(len(line) for line in out.splitlines()) <= 80
    assert all(line.startswith("  ") for line in body if line), body
    assert " ".join(line.strip() for line in body[1:-2]) == layout, body


def test_show_splits_wide_tiles_into_bands_not_cut_cells(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    out = run(capsys, *WIDE[1])[1]
    assert "columns 0-" in out and "columns 24-31" in out
    monkeypatch.setenv("COLUMNS", "300")
    wide = run(capsys, *WIDE[1])[1]
    assert "columns 0-" not in wide


# --- the SVG's size -----------------------------------------------------------------------------------

def test_svg_of_a_256x256_tile_is_under_1_mb(capsys, tmp_path):
    path = tmp_path / "big.svg"
    assert run(capsys, "--rows", "256", "--cols", "256", "--dtype", "f16", "--access", "row", "--access", "col",
               "--svg", str(path), "-q")[0] in (0, 1)
    assert path.stat().st_size < 1_000_000
    root = ET.parse(path).getroot()
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert any(t and t.startswith("(logical tiles: the first") for t in texts)  # says what is left out
    uses = list(root.iter("{http://www.w3.org/2000/svg}use"))
    ids = {g.get("id") for g in root.iter("{http://www.w3.org/2000/svg}g") if g.get("id")}
    assert uses and {u.get("href")[1:] for u in uses} <= ids  # every cell refers to a defined symbol


# --- warnings -----------------------------------------------------------------------------------------

def test_a_block_above_one_wavefront_is_warned(capsys):
    code, out, _ = run(capsys, *F16, "--access", "16x16", "--json")
    doc = json.loads(out)
    assert len(doc["warnings"]) == 1
    warning = doc["warnings"][0]
    for form in ("16x16", "512 B", "ldmatrix.x4", "warp:RxC:MxN", "--phases"):
        assert form in warning
    # why it matters: the answer for 16x16 need not hold for the instruction that reads 16x16 blocks
    answer = doc["answer"]["name"]
    assert not check(answer, rows=64, cols=64, dtype="f16", access=["ldmatrix.x4"]).passed
    rich = run(capsys, *F16, "--access", "16x16")[1]
    assert "warning: access 16x16" in rich


@pytest.mark.parametrize("access", [["8x8"], ["ldmatrix.x4"], ["row"], ["warp:8x4:1x8"]])
def test_no_warning_where_the_phase_split_is_said(access, capsys):
    argv = [*F16]
    for a in access:
        argv += ["--access", a]
    code, out, _ = run(capsys, *argv, "--json")
    assert json.loads(out)["warnings"] == []
    code, out, _ = run(capsys, *argv, "--check", "none", "--json")
    assert json.loads(out)["warnings"] == []


# --- progress -----------------------------------------------------------------------------------------

class _Recorder:
    def __init__(self):
        self.added, self.updates = [], []

    def add_task(self, what, total=None):
        self.added.append((what, total))
        return len(self.added) - 1

    def remove_task(self, task):
        pass

    def update(self, task, **kw):
        self.updates.append((task, kw))

    def start(self):
        pass

    def stop(self):
        pass


def test_progress_is_indeterminate_for_z3_and_counts_members_otherwise():
    progress = LazyProgress(enabled=True, delay=0)
    progress.bar = _Recorder()  # as if shown
    progress.update("cute", 4, 10)
    progress.update("linear (z3)", 0, 1)
    assert progress.bar.added == [("searching cute", 10), ("solving with linear (z3)", None)]
    assert progress.bar.updates == [(0, {"completed": 5})]  # z3's task gets no completion: no false 100%


def test_progress_appears_after_the_delay_without_any_report():
    with LazyProgress(enabled=True, delay=0.05) as progress:
        deadline = time.monotonic() + 5  # (shown after 0.05 s: waited for, not slept a fixed 0.5 s)
        while progress.bar is None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert progress.bar is not None  # shown by the timer, although nothing was reported
    quiet = LazyProgress(enabled=False, delay=0.0)
    with quiet:
        time.sleep(0.1)
    assert quiet.bar is None
