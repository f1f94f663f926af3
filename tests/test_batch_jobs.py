"""batch --jobs N (DESIGN.md section 13, issue 26): the cases in worker processes, the output byte
for byte what one process prints (the table, --json), failing, timed-out and bad cases included;
one case that raises or whose process dies never stops the others; Ctrl-C ends the run (130) and
its workers."""
from __future__ import annotations

import contextlib
import io
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from swizzle_solver import cli, jobs
from swizzle_solver.cli import main
from swizzle_solver.model import InputError

ROOT = Path(__file__).resolve().parents[1]

CASES = """
[[case]]
name = "quick"
rows = 8
cols = 24
access = ["4x2"]

[[case]]
name = "a kernel pinned, failing"
rows = 16
cols = 16
dtype = "f16"
access = ["8x8"]
check = "none"

[[case]]
name = "wrong expectation"
rows = 64
cols = 64
dtype = "f16"
access = ["ldmatrix.x4"]
expect = "none"

[[case]]
name = "no dtype, a warning"
rows = 64
cols = 64
access = ["ldmatrix.x4"]

[[case]]
name = "pinned, passing"
rows = 64
cols = 64
dtype = "f16"
access = ["ldmatrix.x4", "mma-c:m16n8"]
check = "Swizzle<3,3,3>"

[[case]]
name = "slow"
rows = 512
cols = 1000
dtype = "e4m3"
access = ["8x1", "8x16", "col"]
"""


def run(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def cases(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("COLUMNS", "80")
    path = tmp_path / "cases.toml"
    path.write_text(CASES)
    return path


@pytest.mark.parametrize("extra", [[], ["--json"]], ids=["table", "json"])
def test_two_processes_print_what_one_prints(cases, extra):
    """Without the slow case (a search cut by time is cut where the clock says), then with every
    search cut at once (--timeout 1e-6: status timeout, the same in any process)."""
    quick = cases.with_name("quick.toml")
    quick.write_text(CASES.split('[[case]]\nname = "slow"')[0])
    one = run(["batch", quick, *extra, "--jobs", "1"])
    assert one[0] == 1 and "no dtype" in one[2] and one[1]
    assert run(["batch", quick, *extra, "-j", "2"]) == one
    cut = ["batch", cases, *extra, "--timeout", "0.000001"]
    one = run([*cut, "--jobs", "1"])
    assert one[0] == 1 and "timeout" in one[1]
    assert run([*cut, "--jobs", "2"]) == one


def test_a_bad_case_stops_the_run_before_anything_is_solved_in_any_mode(cases):
    bad = cases.with_name("bad.toml")
    bad.write_text(CASES + '\n[[case]]\nname = "bad"\nrows = 8\ncols = 8\naccess = ["9x9x9"]\n')
    one = run(["batch", bad, "--jobs", "1"])
    assert one[0] == 2 and one[1] == "" and one[2].count("\n") == 1 and "bad" in one[2]
    assert run(["batch", bad, "--jobs", "2"]) == one


@pytest.mark.parametrize("value", ["-1", "x", "1.5", ""])
def test_jobs_must_be_a_count(cases, value):
    code, out, err = run(["batch", cases, "--jobs", value])
    assert code == 2 and out == "" and "--jobs" in err and err.count("\n") == 1


def test_jobs_zero_and_auto_are_one_per_cpu():
    assert jobs.parse_jobs("0") == jobs.parse_jobs("auto") == jobs.parse_jobs("AUTO") == jobs.cpu_count() >= 1
    assert jobs.parse_jobs("3") == 3
    with pytest.raises(InputError):
        jobs.parse_jobs("-2")


def work(x: int) -> int:
    """A worker's job for the tests below: item 2 raises, item 4 kills its process."""
    if x == 2:
        raise ValueError("two")
    if x == 4:
        os._exit(3)
    return x * x


def test_in_order_hands_back_every_outcome_in_order_whatever_happens_to_one():
    outcomes = list(jobs.in_order(work, list(range(8)), 2))
    assert [ok for ok, _ in outcomes] == [True, True, False, True, False, True, True, True]
    assert [v for ok, v in outcomes if ok] == [0, 1, 9, 25, 36, 49]
    assert isinstance(outcomes[2][1], ValueError) and isinstance(outcomes[4][1], jobs.Died)


def test_a_case_that_raises_fails_alone(cases, monkeypatch):
    """An internal error in one case (here: made to raise) is that case's failure, one line on
    stderr; the other cases go on, the JSON entry has ``error`` in place of ``result``."""
    real = cli._batch_case

    def broken(c, *args, **kw):
        if c.name == "quick":
            raise RuntimeError("boom")
        return real(c, *args, **kw)

    monkeypatch.setattr(cli, "_batch_case", broken)
    quick = cases.with_name("quick.toml")
    quick.write_text(CASES.split('[[case]]\nname = "slow"')[0])
    code, out, err = run(["batch", quick, "--json"])
    import json

    doc = json.loads(out)
    assert code == 1 and [c["ok"] for c in doc["cases"]] == [False, False, False, True, True]
    assert "result" not in doc["cases"][0] and "RuntimeError: boom" in doc["cases"][0]["error"]
    from test_schema import validate

    validate(doc, "batch.schema.json")
    assert "case 'quick' stopped with an internal error (RuntimeError: boom)" in err
    code, out, err = run(["batch", quick])
    assert code == 1 and "error" in out and "2 passed, 3 failed" in out


@pytest.mark.parametrize("signum, code", [(signal.SIGINT, 130),
                                          pytest.param(signal.SIGTERM, 143, marks=pytest.mark.slow)])
def test_ctrl_c_ends_the_run_and_its_workers(cases, signum, code):
    slow = cases.with_name("slow.toml")
    one = CASES.split("[[case]]")[-1]
    slow.write_text("".join("[[case]]" + one.replace('"slow"', f'"slow {i}"') for i in range(4)))
    child = subprocess.Popen([sys.executable, "-m", "swizzle_solver", "batch", str(slow), "--jobs", "2"], cwd=ROOT,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    time.sleep(3)  # the workers are started and busy
    child.send_signal(signum)
    out, err = child.communicate(timeout=30)
    assert child.returncode == code, err
    assert err.decode().strip().splitlines()[-1].startswith("swizzle-solve: error: ")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:  # no process of its group is left
        try:
            os.killpg(child.pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        pytest.fail("a worker outlived the run")
