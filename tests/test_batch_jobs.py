"""batch --jobs N (DESIGN.md section 13, issue 26): the cases in worker processes, the output byte
for byte what one process prints (the table, --json), failing, timed-out and bad cases included;
one case that raises or whose process dies never stops the others; Ctrl-C ends the run (130) and
its workers."""
from __future__ import annotations

import contextlib
import io
import json
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
from tests.jobs_work import dies_once, half_written, work

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


@pytest.mark.parametrize("extra, part", [([], "quick"), ([], "cut"), (["--json"], "quick"), (["--json"], "cut")],
                         ids=["table-quick", "table-cut", "json-quick", "json-cut"])
def test_two_processes_print_what_one_prints(cases, extra, part):
    """Without the slow case (quick: a search cut by time is cut where the clock says), and with every
    search cut at once (cut: --timeout 1e-6, status timeout, the same in any process); each in the
    table and in JSON (SAMPLED: the quick table and the cut JSON stay in the fast tier)."""
    if part == "quick":
        quick = cases.with_name("quick.toml")
        quick.write_text(CASES.split('[[case]]\nname = "slow"')[0])
        one = run(["batch", quick, *extra, "--jobs", "1"])
        assert one[0] == 1 and "no dtype" in one[2] and one[1]
        assert run(["batch", quick, *extra, "-j", "2"]) == one
        return
    cut = ["batch", cases, *extra, "--timeout", "0.000001"]
    one = run([*cut, "--jobs", "1"])
    assert one[0] == 1 and "timeout" in one[1]
    assert run([*cut, "--jobs", "2"]) == one
    if extra:  # cases cut by --timeout: whole documents
        from test_schema import validate

        validate(json.loads(one[1]), "batch.schema.json")


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


# --- issue 39: any worker death, at any moment, ends in a complete document (or 130/143) ---------


@pytest.mark.parametrize("job", [dies_once, half_written], ids=["killed", "half-written"])
def test_a_dead_workers_case_is_run_again_alone_and_the_run_ends(tmp_path, job):
    import multiprocessing

    before = set(multiprocessing.active_children())
    outcomes = list(jobs.in_order(job, [(str(tmp_path), n) for n in range(8)], 2))
    assert outcomes == [(True, n * n) for n in range(8)]
    assert sorted(p.name for p in tmp_path.iterdir())  # a worker did die
    assert not [p for p in multiprocessing.active_children() if p not in before and p.is_alive()]


@pytest.mark.slow
def test_no_worker_is_left_and_no_lock_is_shared(tmp_path):
    """After a run with deaths, every worker has ended (nothing waits at shutdown on what a dead
    worker held: each worker has its own pipe)."""
    import multiprocessing

    before = set(multiprocessing.active_children())
    outcomes = list(jobs.in_order(dies_once, [(str(tmp_path), n) for n in range(10)], 3))
    assert [v for _, v in outcomes] == [n * n for n in range(10)]
    left = [p for p in multiprocessing.active_children() if p not in before and p.is_alive()]
    assert not left


KILL_CASES = "".join(
    f'[[case]]\nname = "m{i}"\nrows = 128\ncols = 120\ndtype = "f16"\naccess = ["8x1", "8x16", "col"]\n\n' if i in (3, 7)
    else f'[[case]]\nname = "q{i}"\nrows = 64\ncols = 64\ndtype = "f16"\naccess = ["ldmatrix.x4", "row"]\n\n'
    for i in range(10))


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (its workers, and the fork server they are forked from)."""
    parent_of = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                parent_of[int(d)] = int(Path(f"/proc/{d}/stat").read_text().rsplit(")", 1)[1].split()[1])
    out, frontier = [], [pid]
    while frontier:
        kids = [k for k, p in parent_of.items() if p in frontier]
        out += kids
        frontier = kids
    return out


def command(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return ""


def kill_runs(tmp_path: Path, runs: int, seed: int) -> list[str]:
    """``runs`` runs of batch --json --jobs 2, each with one worker (or, sometimes, every worker)
    killed at a random moment: what went outside the contract (a hang, a partial document, another
    exit code)."""
    import random

    rng = random.Random(seed)
    path = tmp_path / "kill.toml"
    path.write_text(KILL_CASES)
    argv = [sys.executable, "-m", "swizzle_solver", "batch", str(path), "--json"]
    reference = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=300)
    start = time.monotonic()
    subprocess.run([*argv, "--jobs", "2"], cwd=ROOT, capture_output=True, timeout=300)
    took = time.monotonic() - start
    wrong = []
    for trial in range(runs):
        child = subprocess.Popen([*argv, "--jobs", "2"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True, start_new_session=True)
        time.sleep(rng.uniform(0.1, took))
        below = descendants(child.pid)
        servers = [p for p in below if "forkserver" in command(p)]
        workers = [p for p in below if p not in servers and "resource_tracker" not in command(p)]
        draw = rng.random()
        victims = workers if draw < 0.2 else servers if draw < 0.3 else rng.sample(workers, min(1, len(workers)))
        for victim in victims:
            with contextlib.suppress(ProcessLookupError):
                os.kill(victim, signal.SIGKILL)
        try:
            out, err = child.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)
            child.communicate()
            wrong.append(f"trial {trial}: hung ({len(victims)} killed)")
            continue
        if "Traceback" in err:
            wrong.append(f"trial {trial}: a traceback: {err[-400:]}")
        elif child.returncode in (130, 143):
            continue
        elif child.returncode != reference.returncode:
            wrong.append(f"trial {trial}: exit {child.returncode}: {err[-300:]}")
        else:
            doc = json.loads(out)  # a complete document: every case, each with its answer or an error
            names = [c["name"] for c in doc["cases"]]
            if names != [c["name"] for c in json.loads(reference.stdout)["cases"]]:
                wrong.append(f"trial {trial}: cases {names}")
            elif out != reference.stdout and not all("error" in c or c in json.loads(reference.stdout)["cases"]
                                                      for c in doc["cases"]):
                wrong.append(f"trial {trial}: another document")
    return wrong


@pytest.mark.slow
def test_a_hundred_workers_killed_at_random_end_with_the_whole_document(tmp_path):
    assert kill_runs(tmp_path, 100, 2039) == []
