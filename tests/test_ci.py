"""Where CI meets the tool (issue 27 item 1, DESIGN.md section 13): the pre-commit hook
(.pre-commit-hooks.yaml), the composite GitHub Action (action.yml, its step's logic in
swizzle_solver/github_action.py) and every recipe of docs/ci.md, each run on a sample repository
folder that holds docs/ci.md's own kernels/swizzles.toml (two passing cases and a failing one).

What cannot run here is said so: the Action's set-up steps (setup-python, a pip install from the
network) are read, not run; make and cmake recipes are skipped where the tool is missing. Each run
starts processes (about half a second each), so the default tier runs each integration on the
failing sample once and the slow tier (CI) adds the passing runs and the GitLab, make and CMake
recipes.
"""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from swizzle_solver import github_action
from swizzle_solver.cli import main

ROOT = Path(__file__).resolve().parents[1]
CI_DOC = (ROOT / "docs" / "ci.md").read_text()
BIN = Path(sys.executable).parent  # the venv the tests run in: its swizzle-solve script
CASES = "kernels/swizzles.toml"


def doc_block(after: str, lang: str) -> str:
    """The first ```lang block of docs/ci.md after the text ``after``."""
    return re.search(rf"```{lang}\n(.*?)```", CI_DOC[CI_DOC.index(after):], re.S).group(1)


SAMPLE = doc_block("keeps its cases in `kernels/swizzles.toml`", "toml")
FAILING = "B tile: the 64B swizzle, too small for ldmatrix.x4"


def sample_repo(tmp_path: Path, passing_only: bool = False) -> Path:
    """A repository folder with docs/ci.md's cases file (without its failing case if asked)."""
    text = SAMPLE
    if passing_only:
        text = "\n[[case]]".join(part for part in SAMPLE.split("\n[[case]]") if FAILING not in part)
        assert FAILING not in text and text.count("[[case]]") == 2
    repo = tmp_path / ("passing" if passing_only else "repo")
    (repo / "kernels").mkdir(parents=True)
    (repo / CASES).write_text(text)
    return repo


def header_line(text: str, name: str) -> int:
    """The [[case]] line of the case named ``name``: the nearest header above its name line."""
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("name") and repr(name)[1:-1] in line)
    return max(i for i in range(at) if lines[i].strip().startswith("[[case]]")) + 1


def env_with_tool(**extra) -> dict:
    """The environment of a CI shell where swizzle-solve is installed: this venv's bin first."""
    if not (BIN / "swizzle-solve").exists():
        pytest.skip(f"no swizzle-solve script beside {sys.executable}: install the checkout (pip install -e .)")
    return dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", PYTHONPATH=str(ROOT),
                COLUMNS="80", **extra)


def bash(script: str, cwd: Path, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-e", "-c", script], cwd=cwd, env=env, capture_output=True, text=True)


# --- the batch table of docs/ci.md -------------------------------------------------------------------

def test_the_docs_batch_table_is_a_real_80_column_run(tmp_path, capsys, monkeypatch):
    """docs/ci.md's table is what batch prints for its sample file in a pipe (80 columns). If batch's
    table changes, regenerate it: COLUMNS=80 swizzle-solve batch kernels/swizzles.toml."""
    monkeypatch.setenv("COLUMNS", "80")
    repo = sample_repo(tmp_path)
    shown = doc_block("exit 1, since a case failed:", "")
    assert main(["batch", str(repo / CASES)]) == 1
    assert capsys.readouterr().out == shown


# --- the GitHub Action -----------------------------------------------------------------------------

ACTION = yaml.safe_load((ROOT / "action.yml").read_text())


def action_step(name: str) -> dict:
    return next(step for step in ACTION["runs"]["steps"] if step.get("name") == name)


def run_action_step(repo: Path, tmp_path: Path, cases: str = CASES, args: str = "") -> tuple:
    """action.yml's batch step, as the runner runs it: its `run` script in bash, in the repository,
    with its env (the inputs) and the venv the install step made (here: this Python)."""
    step = action_step("swizzle-solve batch")
    assert step["shell"] == "bash" and set(step["env"]) == {"CASES", "ARGS"}
    runner_temp = tmp_path / "runner"
    python = runner_temp / "swizzle-solve" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    summary = tmp_path / "summary.md"
    env = env_with_tool(RUNNER_TEMP=str(runner_temp), CASES=cases, ARGS=args, GITHUB_STEP_SUMMARY=str(summary))
    run = bash(step["run"], repo, env)
    return run, (summary.read_text() if summary.exists() else "")


def annotations(stdout: str) -> list[tuple[str, dict, str]]:
    """The workflow commands on stdout: (level, properties, message)."""
    out = []
    for line in stdout.splitlines():
        found = re.fullmatch(r"::(error|warning) ([^:]*)::(.*)", line)
        if found:
            props = dict(p.split("=", 1) for p in found[2].split(","))
            out.append((found[1], props, found[3]))
    return out


def test_the_action_is_composite_and_the_docs_use_its_inputs():
    assert ACTION["runs"]["using"] == "composite"
    steps = ACTION["runs"]["steps"]
    assert steps[0]["uses"].startswith("actions/setup-python@") and steps[0]["with"]["update-environment"] is False
    install = action_step("Install swizzle-solve")["run"]
    assert "pip\" install -q \"$PACKAGE\"" in install and "$RUNNER_TEMP/swizzle-solve" in install
    assert {"file", "args", "python-version", "package"} <= set(ACTION["inputs"])
    workflow = yaml.safe_load(doc_block("### GitHub Actions", "yaml"))
    used = [s for job in workflow["jobs"].values() for s in job["steps"] if "swizzle-solve@" in s.get("uses", "")]
    assert len(used) == 1 and set(used[0]["with"]) <= set(ACTION["inputs"])
    assert used[0]["with"]["file"] == CASES


def test_the_action_annotates_each_failed_case_on_its_line_and_writes_the_summary(tmp_path):
    repo = sample_repo(tmp_path)
    run, summary = run_action_step(repo, tmp_path)
    assert run.returncode == 1, run.stderr
    found = annotations(run.stdout)
    assert [(level, props["file"], props["line"]) for level, props, _ in found] == [
        ("error", CASES, str(header_line(SAMPLE, FAILING)))]
    assert found[0][2].startswith(f"{FAILING}: Swizzle<2,3,3> (conflicts), expected check: conflict-free")
    assert "minimal layout is Swizzle<3,3,3>" in found[0][2]
    # docs/ci.md shows this very command
    shown = doc_block("for the sample repository:", "")
    assert shown.strip() in run.stdout.splitlines()
    # the summary: a heading with the counts, one row per case with its line, the failure's reason
    assert summary.startswith(f"### swizzle-solve batch {CASES}: 2 passed, 1 failed\n")
    rows = [line for line in summary.splitlines() if line.startswith("| ") and "---" not in line][1:]
    assert len(rows) == 3
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split(" | ")]
        name = cells[1]
        assert cells[2] == str(header_line(SAMPLE, name))
        assert (cells[0] == "**FAIL**") == (name == FAILING)
    assert "Swizzle&lt;2,3,3&gt;" in rows[2] and f"- {FAILING}: " in summary


@pytest.mark.slow
def test_the_action_passes_a_good_file_without_annotations(tmp_path):
    run, summary = run_action_step(sample_repo(tmp_path, passing_only=True), tmp_path)
    assert run.returncode == 0 and annotations(run.stdout) == []
    assert ": 2 passed, 0 failed" in summary and "FAIL" not in summary


TRICKY = '''# cases of a kernel library
title = "not a case"

[[case]]   # the A tile
rows = 64
name = "a | tile"
cols = 64
dtype = "f16"
access = ["ldmatrix.x4"]
check = "Swizzle<3,3,3>"

  [[ case ]]
name = "pinned with expect"
notes_are_not_keys = 1
'''


def test_annotation_lines_follow_the_toml_not_the_layout_of_the_file():
    """Headers with comments and spaces, a name that is not the first key, a key before the first
    case: each case's line is its own [[case]] line; a header TOML reads but the scan does not
    (quoted) gives no lines rather than wrong ones."""
    assert github_action.case_lines(TRICKY) == [4, 12]
    assert github_action.line_of_name(TRICKY) == {"a | tile": 4, "pinned with expect": 12}
    assert github_action.line_of_name(TRICKY + '\n[["case"]]\nname = "quoted"\n') == {}


@pytest.mark.slow
def test_bad_input_is_annotated_on_the_case_it_names(tmp_path):
    (tmp_path / "cases.toml").write_text(TRICKY + 'rows = 8\ncols = 24\naccess = ["4x2"]\n')
    run, summary = run_action_step(tmp_path, tmp_path, "cases.toml")
    assert run.returncode == 2
    (level, props, message), = annotations(run.stdout)
    assert (level, props["file"], props["line"]) == ("error", "cases.toml", "12")
    assert "unknown key 'notes_are_not_keys'" in message
    assert summary.startswith("### swizzle-solve batch cases.toml: bad input")


@pytest.mark.slow
def test_a_failed_expect_and_a_warning_are_annotated_with_their_lines(tmp_path):
    text = TRICKY.replace("notes_are_not_keys = 1\n", 'rows = 16\ncols = 16\ndtype = "f16"\naccess = ["8x8"]\n'
                          'expect = "Swizzle<2,3,3>"\n\n[[case]]\nname = "no dtype"\nrows = 64\ncols = 64\n'
                          'access = ["ldmatrix.x4"]\n')
    (tmp_path / "cases.toml").write_text(text)
    run, summary = run_action_step(tmp_path, tmp_path, "cases.toml")
    assert run.returncode == 1
    got = annotations(run.stdout)
    assert [(level, props["line"]) for level, props, _ in got] == [("warning", "20"), ("error", "12")]
    assert "moves 16-bit elements" in got[0][2]
    assert got[1][2].startswith("pinned with expect: Swizzle<1,3,3> (conflict-free), expected Swizzle<2,3,3>")
    assert "write check = " in got[1][2]  # batch's hint
    assert "| a \\| tile | 4 | Swizzle&lt;3,3,3&gt; |" in summary  # a pipe in a name stays in its cell


def test_workflow_command_escaping():
    line = github_action.annotation("error", "dir,x/a:b.toml", 3, "t: x", "50% off\nnext")
    assert line == "::error file=dir%2Cx/a%3Ab.toml,line=3,title=t%3A x::50%25 off%0Anext"


# --- pre-commit --------------------------------------------------------------------------------------

HOOKS = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())


@pytest.mark.parametrize("passing", [False, pytest.param(True, marks=pytest.mark.slow)], ids=["failing case", "all pass"])
def test_the_pre_commit_hook_runs_batch_over_the_configured_file(tmp_path, passing):
    """The hook's entry with the args of docs/ci.md's .pre-commit-config.yaml, as pre-commit runs it
    (pass_filenames false: no file names appended), fails the commit exactly when a case fails."""
    hook, = HOOKS
    assert hook["id"] == "swizzle-solve-batch" and hook["language"] == "python" and hook["pass_filenames"] is False
    config = yaml.safe_load(doc_block("### pre-commit", "yaml"))
    used, = [h for repo in config["repos"] for h in repo["hooks"]]
    assert used["id"] == hook["id"]
    assert re.search(used["files"], CASES) and re.search(hook["files"], CASES)
    argv = hook["entry"].split() + used.get("args", hook["args"])
    repo = sample_repo(tmp_path, passing_only=passing)
    run = subprocess.run(argv, cwd=repo, env=env_with_tool(), capture_output=True, text=True)
    assert run.returncode == (0 if passing else 1), run.stderr
    assert ("FAIL" in run.stdout) == (not passing)


# --- GitLab CI, Makefile, CMake ------------------------------------------------------------------------

@pytest.mark.slow
def test_the_gitlab_job_runs_batch(tmp_path):
    """The job's script lines, each run as GitLab runs them (bash -e), after the install line, which
    needs the network: swizzle-solve is already on the PATH here."""
    job, = yaml.safe_load(doc_block("### GitLab CI", "yaml")).values()
    install, *lines = job["script"]
    assert install.startswith("pip install") and lines
    for passing in (False, True):
        run = bash("\n".join(lines), sample_repo(tmp_path, passing_only=passing), env_with_tool())
        assert run.returncode == (0 if passing else 1), run.stderr


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed here")
def test_the_makefile_target_fails_when_a_case_fails(tmp_path):
    for passing in (False, True):
        repo = sample_repo(tmp_path, passing_only=passing)
        (repo / "Makefile").write_text(doc_block("### Makefile", "make"))
        run = subprocess.run(["make", "-s", "check-swizzles", f"SWIZZLE_SOLVE={BIN / 'swizzle-solve'}"], cwd=repo,
                             env=env_with_tool(), capture_output=True, text=True)
        assert (run.returncode == 0) == passing, run.stdout + run.stderr
        assert ("FAIL" in run.stdout) == (not passing)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed here")
def test_the_cmake_custom_command_fails_the_build_when_a_case_fails(tmp_path):
    """docs/ci.md's snippet in a CMakeLists.txt of its own: configure (find_program), then build the
    default target, which runs batch."""
    for passing in (False, True):
        repo = sample_repo(tmp_path, passing_only=passing)
        (repo / "CMakeLists.txt").write_text("cmake_minimum_required(VERSION 3.18)\nproject(sample NONE)\n"
                                             + doc_block("### CMake", "cmake"))
        env = env_with_tool()
        configure = subprocess.run(["cmake", "-S", ".", "-B", "build", f"-DSWIZZLE_SOLVE={BIN / 'swizzle-solve'}"],
                                   cwd=repo, env=env, capture_output=True, text=True)
        assert configure.returncode == 0, configure.stdout + configure.stderr
        build = subprocess.run(["cmake", "--build", "build"], cwd=repo, env=env, capture_output=True, text=True)
        assert (build.returncode == 0) == passing, build.stdout + build.stderr
        assert ("FAIL" in build.stdout) == (not passing)
