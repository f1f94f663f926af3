"""The traps a newcomer fell into (issue 27 items 3 to 6): a Python without the project, a new shell
without the venv, the 4-byte default under an instruction that moves 16-bit elements, batch's
--case and --list, and --help of every command."""
import json
import os
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import typer
from test_cli import EXAMPLES, ROOT, run  # the CLI tests' helpers

from swizzle_solver import entry
from swizzle_solver.access import defaulted_elem_warning
from swizzle_solver.access.warp import implied_elem_bytes
from swizzle_solver.cases import close_names, select_case
from swizzle_solver.cli import app, main
from swizzle_solver.model import InputError

# --- item 3: not installed here; a new shell ---------------------------------------------------------

BARE = ("import runpy, sys; sys.path.insert(0, sys.argv.pop(1)); "
        "runpy.run_module('swizzle_solver', run_name='__main__', alter_sys=True)")


def test_a_python_without_the_dependencies_says_so_in_one_line():
    """python3 -m swizzle_solver under a Python that has the source but not typer, rich, numpy (here
    this Python with no site-packages: -I -S): one line naming the fix, exit 2, no traceback."""
    bare = [sys.executable, "-I", "-S"]
    if subprocess.run([*bare, "-c", "import typer"], capture_output=True).returncode == 0:
        pytest.skip("typer is importable without site-packages here: no Python without the dependencies")
    r = subprocess.run([*bare, "-c", BARE, str(ROOT), "--rows", "8", "--cols", "24", "--access", "4x2"],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert r.stderr.startswith("swizzle-solve: error: swizzle-solve is not installed for this Python")
    assert "no module named 'typer'" in r.stderr and ".venv/bin/swizzle-solve" in r.stderr
    assert ". .venv/bin/activate" in r.stderr


def test_only_a_missing_dependency_is_not_installed():
    """A module of the package itself missing is a bug: it keeps its traceback."""
    assert entry._is_dependency(ModuleNotFoundError("x", name="numpy.linalg"))
    assert not entry._is_dependency(ModuleNotFoundError("x", name="swizzle_solver.gone"))
    assert not entry._is_dependency(ModuleNotFoundError("x"))


@pytest.mark.slow  # two shells and a process start
def test_the_readme_says_how_a_new_shell_finds_the_command():
    """The README's advice, run: a new shell (PATH without the venv) finds swizzle-solve after
    sourcing the venv's activate script, and not before."""
    readme = (ROOT / "README.md").read_text()
    assert "`. .venv/bin/activate`" in readme and "`.venv/bin/swizzle-solve`" in readme
    venv = ROOT / ".venv"
    if not (venv / "bin" / "swizzle-solve").exists():
        pytest.skip("no .venv in this checkout (the README's set-up makes it)")
    env = {"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/tmp")}
    before = subprocess.run(["bash", "-c", "command -v swizzle-solve"], cwd=ROOT, env=env, capture_output=True)
    after = subprocess.run(["bash", "-c", ". .venv/bin/activate && swizzle-solve --version"], cwd=ROOT, env=env,
                           capture_output=True, text=True)
    assert before.returncode != 0 or not before.stdout.startswith(str(venv).encode())
    assert after.returncode == 0 and after.stdout.startswith("swizzle-solve ")


# --- item 4: the defaulted element size --------------------------------------------------------------

LDMATRIX = ["--rows", "128", "--cols", "64", "--access", "ldmatrix.x4"]


def test_ldmatrix_without_a_dtype_warns_on_stderr_and_keeps_the_q_line(capsys):
    """The answer is still the 4-byte one (as --elem-bytes 4 gives), -q's stdout is still the
    layout's name alone; stderr has one warning line naming both sizes and the fix."""
    code, out, err = run(capsys, *LDMATRIX, "-q")
    code4, out4, err4 = run(capsys, *LDMATRIX, "--elem-bytes", "4", "-q")
    assert (code, out) == (code4, out4) and out.count("\n") == 1 and err4 == ""
    assert err.count("\n") == 1 and err.startswith("swizzle-solve: warning: access ldmatrix.x4 moves 16-bit")
    assert "solved for 4-byte elements" in err and "--dtype f16" in err
    code16, out16, err16 = run(capsys, *LDMATRIX, "--dtype", "f16", "-q")
    assert err16 == "" and out16 != out  # the size matters: another answer


def test_docs_cli_shows_the_warning_as_printed(capsys):
    text = (ROOT / "docs" / "cli.md").read_text()
    shown = text[text.index("$ swizzle-solve --rows 128 --cols 64 --access ldmatrix.x4 -q\n"):].split("```")[0]
    command, warning, answer = shown.splitlines()
    code, out, err = run(capsys, *command.split()[2:])
    assert (err, out) == (warning + "\n", answer + "\n")


def test_the_warning_goes_with_every_output_form_and_never_with_bad_input(capsys):
    code, out, err = run(capsys, *LDMATRIX, "--json")
    assert json.loads(out)["problem"]["elem_bytes"] == 4 and "warning: access ldmatrix.x4" in err
    code, out, err = run(capsys, *LDMATRIX, "--access", "8x")
    assert code == 2 and out == "" and err.count("\n") == 1 and err.startswith("swizzle-solve: error:")


@pytest.mark.parametrize("spec, implied", [
    ("ldmatrix.x4", 2), ("ldmatrix.x2.trans", 2), ("stmatrix.x4:4x1", 2), ("mfma-a:16x16x16", 2),
    ("mfma-b:32x32x8", 2), ("ds_read_b64_tr_b16:64x1", 2), ("ds_read_b64_tr_b8:64x1", 1),
    ("mma-c:m16n8", None), ("mfma-a:16x16x32", None), ("warp:4x8:1x8", None), ("8x8", None), ("row", None),
])
def test_the_element_size_an_access_implies(spec, implied):
    assert (implied_elem_bytes(spec) or (None,))[0] == implied
    warned = defaulted_elem_warning([spec])
    assert (warned is not None) == (implied not in (None, 4))


def test_a_batch_case_without_a_dtype_is_warned_by_name(tmp_path, capsys):
    cases = tmp_path / "cases.toml"
    cases.write_text('[[case]]\nname = "A tile"\nrows = 64\ncols = 64\naccess = ["ldmatrix.x4"]\n\n'
                     '[[case]]\nname = "B tile"\nrows = 64\ncols = 64\ndtype = "bf16"\naccess = ["ldmatrix.x4"]\n')
    code, out, err = run(capsys, "batch", str(cases), "--json")
    assert code == 0 and len(json.loads(out)["cases"]) == 2
    assert err.splitlines() == [
        "swizzle-solve: warning: case 'A tile': access ldmatrix.x4 moves 16-bit elements (f16, bf16), but no element "
        "size was given: solved for 4-byte elements, the default; give dtype = \"f16\" (or dtype = \"f32\" to keep "
        "4-byte elements)"]


# --- item 5: batch --case, --list, --json ----------------------------------------------------------

NAMES = ["f16 ldmatrix, pitch 24 needs nothing", "f16 ldmatrix, pitch 80", "f16 ldmatrix, pitch 96",
         "f32 column read, pitch 24"]


def test_case_takes_the_name_or_a_part_only_it_has():
    assert select_case(NAMES, "f16 ldmatrix, pitch 80", "f.toml") == "f16 ldmatrix, pitch 80"
    assert select_case(NAMES, "PITCH  80", "f.toml") == "f16 ldmatrix, pitch 80"  # any case, any spacing
    assert select_case(NAMES, "column", "f.toml") == "f32 column read, pitch 24"
    assert select_case(["4x2 blocks", "4x2 blocks on every other row"], "4x2 blocks", "f") == "4x2 blocks"


def test_case_refuses_an_ambiguous_part_and_suggests_close_names():
    with pytest.raises(InputError, match=r"is part of 2 case names .*'f16 ldmatrix, pitch 24 needs nothing', "
                                         r"'f32 column read, pitch 24'.*--list"):
        select_case(NAMES, "pitch 24", "f.toml")
    with pytest.raises(InputError, match=r"did you mean 'f16 ldmatrix, pitch 96'.*batch f.toml --list"):
        select_case(NAMES, "ldmatirx, pitch 96", "f.toml")
    with pytest.raises(InputError) as nothing:
        select_case(NAMES, "zzzz", "f.toml")
    assert "did you mean" not in str(nothing.value)
    assert close_names("ptich 80", NAMES)[0] == "f16 ldmatrix, pitch 80"


def test_batch_case_and_list_through_the_cli(capsys):
    code, out, err = run(capsys, "batch", EXAMPLES, "--list")
    names = [c["name"] for c in tomllib.loads(Path(EXAMPLES).read_text())["case"]]
    assert code == 0 and out.splitlines() == names and err == ""
    code, out, err = run(capsys, "batch", EXAMPLES, "--case", "pitch 80", "--json")
    assert code == 0 and [c["name"] for c in json.loads(out)["cases"]] == ["f16 ldmatrix, pitch 80"]
    code, out, err = run(capsys, "batch", EXAMPLES, "--case", "pitch")
    assert code == 2 and out == "" and err.count("\n") == 1 and "case names in" in err
    code, out, err = run(capsys, "batch", EXAMPLES, "--list", "--json")
    assert code == 2 and out == "" and err.count("\n") == 1


def test_batch_json_is_one_document_as_the_readme_says(tmp_path, capsys):
    cases = tmp_path / "cases.toml"
    cases.write_text('[[case]]\nname = "a"\nrows = 8\ncols = 24\naccess = ["4x2"]\n\n'
                     '[[case]]\nname = "b"\nrows = 8\ncols = 8\naccess = ["col"]\n')
    code, out, _ = run(capsys, "batch", str(cases), "--json")
    doc = json.loads(out)  # the whole of stdout is one document
    assert [c["name"] for c in doc["cases"]] == ["a", "b"]
    readme = (ROOT / "README.md").read_text()
    assert "`batch --json` prints one document too" in readme and "one per case" not in readme


# --- item 6: --help of every command ---------------------------------------------------------------

COMMANDS = sorted(typer.main.get_command(app).commands)


def test_there_are_commands_to_check():
    assert "batch" in COMMANDS


def help_examples(capsys, name: str) -> list[str]:
    code, out, _ = run(capsys, name, "--help")
    assert code == 0 and "Examples:" in out and "Exit codes:" in out
    examples = out[out.index("Examples:"):out.index("Exit codes:")].splitlines()[1:]
    return [line.split("swizzle-solve", 1)[1] for line in examples if "swizzle-solve" in line]


@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_help_has_examples_and_exit_codes(name, capsys, monkeypatch):
    """Like the main command's: examples, then the exit codes, within 80 columns; the examples that
    run one case or none run here (exit 0 or 1, never bad input), the others in the slow tier."""
    code, out, _ = run(capsys, name, "--help")
    assert max(len(line) for line in out.splitlines()) <= 80
    for line in ("0  ", "1  ", "2  bad input"):
        assert f"\n    {line}" in out
    commands = help_examples(capsys, name)
    assert len(commands) >= 3 and all(c.split()[0] == name for c in commands)
    monkeypatch.chdir(ROOT)  # the examples name examples.toml, as a user in the checkout runs them
    for argv in commands:
        if "--case" in argv or "--list" in argv:
            assert main(shlex.split(argv)) in (0, 1), argv
            capsys.readouterr()


@pytest.mark.slow  # whole batch files: a few seconds
@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_help_example_runs(name, capsys, monkeypatch, tmp_path):
    """probe writes its folders into a scratch folder, where probe-compare then finds them without a
    measurement: bad input that says to run run.sh on the GPU first."""
    examples = help_examples(capsys, name)
    if name.startswith("probe"):
        monkeypatch.chdir(tmp_path)
        for argv in help_examples(capsys, "probe") if name == "probe-compare" else []:
            assert main(shlex.split(argv)) == 0, argv
        capsys.readouterr()
    else:
        monkeypatch.chdir(ROOT)
    for argv in examples:
        code = main(shlex.split(argv))
        _, err = capsys.readouterr()
        assert code in (0, 1) or (name == "probe-compare" and code == 2 and "run.sh" in err), argv
