"""Start-up: a plain solve of each stage-1 example as a whole process, against the bare imports.

Baseline: ``python -c "import typer, rich, numpy"`` (the least any typer + rich + numpy CLI pays).
Each example is run as ``python -m swizzle_solver --rows .. --cols .. --access ..`` with the rich
output (sent to /dev/null), each run right after a run of the baseline; the ratio is the median
over runs of (example run / its baseline run), so that slow drifts of the machine's speed, which
on a shared VM are larger than the differences measured, cancel in each pair. The examples take
turns (run k of each before run k + 1 of any), so that a burst of load hits one run of many
examples, which their medians drop, rather than every run of one. Target: every ratio <= 1.3.
For comparison it also times each example with --quiet (the same solve without the rich report),
and a reference that only imports rich.console (the report's output device) on top of the
baseline.

Before and after (issue 11: "no solve gets slower"): ``--baseline-checkout PATH`` (repeatable) also
runs another checkout's CLI on the same examples in the same round robin, each run paired with a
floor run of its own (``python -m swizzle_solver`` with that tree as the working directory and first
on PYTHONPATH, e.g. a ``git worktree add --detach /tmp/wt-before <commit>``). It prints that tree's
ratios beside this one's, and this tree's CPU time over the other's per example (the median of
the per-run quotients of the two ratios). An example the other tree rejects (exit 2: an option it
does not have yet) is shown as n/a.

Two clocks: wall time, and CPU time (user + system of the child, from getrusage), which is what
the process itself costs and stays meaningful on a loaded machine; PASS is judged on CPU time,
and both are printed.

Both run with bytecode caching on, as after `pip install` (PYTHONDONTWRITEBYTECODE is dropped and
the cache goes to a temporary PYTHONPYCACHEPREFIX, so the checkout is not written to); one
warm-up run of each fills the cache. OPENBLAS_NUM_THREADS=1 for both (numpy's BLAS threads add
CPU time at import that has nothing to do with either side).

    python3 bench/startup.py [--runs N] [--only REGEX] [--baseline-checkout PATH ...]
"""
from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = 1.3


def argv_of(case: dict) -> list[str]:
    args = ["--rows", str(case["rows"]), "--cols", str(case["cols"])]
    for key in ("row_length", "dtype", "elem_bytes", "banks", "bank_bytes", "arch"):
        if key in case:
            args += [f"--{key.replace('_', '-')}", str(case[key])]
    if case.get("keep_pitch"):
        args.append("--keep-pitch")
    for key, option in (("access", "--access"), ("phases", "--phases"), ("linear_layout", "--linear-layout")):
        values = case.get(key, [])
        for value in [values] if isinstance(values, str) else values:
            # files are named relative to examples.toml (at the root): absolute, for any checkout's cwd
            args += [option, value if key == "access" else str(ROOT / value)]
    return args


ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
ENV["PYTHONPYCACHEPREFIX"] = os.path.join(tempfile.gettempdir(), "swizzle-solve-bench-pycache")
ENV["OPENBLAS_NUM_THREADS"] = "1"  # numpy's BLAS threads spin at import: CPU noise, the same for both


def cpu_of_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(cmd: list[str], tree: Path = ROOT) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run of cmd, in the checkout ``tree`` (its package first)."""
    env = ENV if tree == ROOT else {**ENV, "PYTHONPATH": str(tree)}
    cpu, start = cpu_of_children(), time.perf_counter()
    subprocess.run(cmd, cwd=tree, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start, cpu_of_children() - cpu


def accepts(cmd: list[str], tree: Path) -> bool:
    """Whether the checkout ``tree`` takes this command line (not exit 2: an option it lacks)."""
    env = {**ENV, "PYTHONPATH": str(tree)}
    return subprocess.run(cmd, cwd=tree, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                          check=False).returncode != 2


def paired(runs: list[tuple[float, float]], base: list[tuple[float, float]], clock: int) -> float:
    """The median over runs of (this run / the baseline run next to it): pairs cancel slow drifts of
    the machine's speed, which on this shared VM are larger than the differences measured."""
    return statistics.median(r[clock] / b[clock] for r, b in zip(runs, base))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--baseline-checkout", type=Path, action="append", default=[], metavar="PATH",
                    help="another checkout whose CLI runs the same examples in the same run, for before/after")
    ap.add_argument("--only", default=None, help="only examples whose name matches this regular expression")
    options = ap.parse_args()
    runs, others = options.runs, [path.resolve() for path in options.baseline_checkout]
    cases = [c for c in tomllib.loads((ROOT / "examples.toml").read_text())["case"] if c.get("stage", 1) == 1
             and (options.only is None or re.search(options.only, c["name"]))]
    baseline_cmd = [sys.executable, "-c", "import typer, rich, numpy"]
    # For reference, interleaved too: the rich module any rich output imports, and nothing else.
    rich_cmd = [sys.executable, "-c", "import typer, rich, numpy, rich.console"]
    timed(baseline_cmd)  # warm the file cache and the bytecode cache
    timed(rich_cmd)
    WALL, CPU = 0, 1
    commands = [[sys.executable, "-m", "swizzle_solver", *argv_of(case)] for case in cases]
    for cmd in commands:
        timed(cmd)
    # other[j][i]: checkout j's (base, solve, quiet) runs of example i; None when it rejects the example
    other: list[list] = [[([], [], []) if accepts(cmd, tree) else None for cmd in commands] for tree in others]
    for tree, its in zip(others, other):
        for cmd, runs_of in zip(commands, its):
            if runs_of is not None:
                timed(cmd, tree)
    base: list[list] = [[] for _ in cases]
    solve: list[list] = [[] for _ in cases]
    quiet: list[list] = [[] for _ in cases]
    reference: list[float] = []
    # Round robin: run k of every example before run k + 1 of any, so that a burst of load on the
    # machine lands on one run of many examples (which the median drops), not on all of one.
    for _ in range(runs):
        for i, cmd in enumerate(commands):
            base[i].append(timed(baseline_cmd))
            solve[i].append(timed(cmd))
            quiet[i].append(timed(cmd + ["--quiet"]))  # the same solve without the rich report
            reference.append(timed(rich_cmd)[CPU] / base[i][-1][CPU])
            for tree, its in zip(others, other):
                if its[i] is not None:
                    its[i][0].append(timed(baseline_cmd))
                    its[i][1].append(timed(cmd, tree))
                    its[i][2].append(timed(cmd + ["--quiet"], tree))
    worst_cpu = worst_wall = 0.0
    print(f"{'cpu ratio':>9}  {'wall ratio':>10}  {'cpu s':>6}  {'--quiet cpu ratio':>17}  example")
    for case, its_base, its_solve, its_quiet in zip(cases, base, solve, quiet):
        cpu, wall = paired(its_solve, its_base, CPU), paired(its_solve, its_base, WALL)
        worst_cpu, worst_wall = max(worst_cpu, cpu), max(worst_wall, wall)
        print(f"{cpu:9.2f}  {wall:10.2f}  {statistics.median(c for _, c in its_solve):6.3f}  "
              f"{paired(its_quiet, its_base, CPU):17.2f}  {case['name']}")
    base_all = [run for runs_of_case in base for run in runs_of_case]
    for tree, its in zip(others, other):
        print_other(tree, cases, its, solve, quiet, base)
    print(f"baseline (python -c 'import typer, rich, numpy'): median wall {statistics.median(w for w, _ in base_all):.3f} s, "
          f"cpu {statistics.median(c for _, c in base_all):.3f} s; {runs} runs of each example, each next to a "
          f"baseline run")
    print(f"for reference, only importing rich.console on top of the baseline: cpu ratio {statistics.median(reference):.2f}")
    print(f"worst ratio: cpu {worst_cpu:.2f}, wall {worst_wall:.2f} (target <= {TARGET}, judged on cpu): "
          f"{'PASS' if worst_cpu <= TARGET else 'FAIL'}")
    return 0 if worst_cpu <= TARGET else 1


def print_other(tree: Path, cases: list[dict], its: list, solve: list, quiet: list, base: list) -> None:
    """Another checkout's ratios to the floor (CPU), and this tree's over that tree's (< 1: faster here)."""
    CPU = 1
    print(f"\n{tree}: cpu ratio to the floor (rich, --quiet), and this checkout over it (rich, --quiet)")
    print(f"{'its cpu':>7}  {'its -q':>6}  {'here/its':>8}  {'-q here/its':>11}  example")
    mine, mine_q, theirs, theirs_q = [], [], [], []
    for case, runs_of, its_solve, its_quiet, its_base in zip(cases, its, solve, quiet, base):
        if runs_of is None:
            print(f"{'n/a':>7}  {'n/a':>6}  {'n/a':>8}  {'n/a':>11}  {case['name']} (rejected there)")
            continue
        o_base, o_solve, o_quiet = runs_of
        r, rq = paired(o_solve, o_base, CPU), paired(o_quiet, o_base, CPU)
        here = statistics.median((s[CPU] / b[CPU]) / (o[CPU] / ob[CPU])
                                 for s, b, o, ob in zip(its_solve, its_base, o_solve, o_base))
        here_q = statistics.median((s[CPU] / b[CPU]) / (o[CPU] / ob[CPU])
                                   for s, b, o, ob in zip(its_quiet, its_base, o_quiet, o_base))
        mine.append(paired(its_solve, its_base, CPU))
        mine_q.append(paired(its_quiet, its_base, CPU))
        theirs.append(r)
        theirs_q.append(rq)
        print(f"{r:7.2f}  {rq:6.2f}  {here:8.2f}  {here_q:11.2f}  {case['name']}")
    if theirs:
        print(f"over the {len(theirs)} examples both run: median ratio here {statistics.median(mine):.2f} "
              f"(--quiet {statistics.median(mine_q):.2f}), there {statistics.median(theirs):.2f} "
              f"(--quiet {statistics.median(theirs_q):.2f}); worst here {max(mine):.2f}, there {max(theirs):.2f}")


if __name__ == "__main__":
    sys.exit(main())
