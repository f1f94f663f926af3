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

Two clocks: wall time, and CPU time (user + system of the child, from getrusage), which is what
the process itself costs and stays meaningful on a loaded machine; PASS is judged on CPU time,
and both are printed.

Both run with bytecode caching on, as after `pip install` (PYTHONDONTWRITEBYTECODE is dropped and
the cache goes to a temporary PYTHONPYCACHEPREFIX, so the checkout is not written to); one
warm-up run of each fills the cache. OPENBLAS_NUM_THREADS=1 for both (numpy's BLAS threads add
CPU time at import that has nothing to do with either side).

    python3 bench/startup.py [--runs N]
"""
from __future__ import annotations

import argparse
import os
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
    for key, option in (("access", "--access"), ("phases", "--phases"), ("linear_layout", "--linear-layout")):
        values = case.get(key, [])
        for value in [values] if isinstance(values, str) else values:
            # files are named relative to examples.toml, which is at the root (the cwd)
            args += [option, value]
    return args


ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
ENV["PYTHONPYCACHEPREFIX"] = os.path.join(tempfile.gettempdir(), "swizzle-solve-bench-pycache")
ENV["OPENBLAS_NUM_THREADS"] = "1"  # numpy's BLAS threads spin at import: CPU noise, the same for both


def cpu_of_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(cmd: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run of cmd."""
    cpu, start = cpu_of_children(), time.perf_counter()
    subprocess.run(cmd, cwd=ROOT, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start, cpu_of_children() - cpu


def paired(runs: list[tuple[float, float]], base: list[tuple[float, float]], clock: int) -> float:
    """The median over runs of (this run / the baseline run next to it): pairs cancel slow drifts of
    the machine's speed, which on this shared VM are larger than the differences measured."""
    return statistics.median(r[clock] / b[clock] for r, b in zip(runs, base))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=11)
    runs = ap.parse_args().runs
    cases = [c for c in tomllib.loads((ROOT / "examples.toml").read_text())["case"] if c.get("stage", 1) == 1]
    baseline_cmd = [sys.executable, "-c", "import typer, rich, numpy"]
    # For reference, interleaved too: the rich module any rich output imports, and nothing else.
    rich_cmd = [sys.executable, "-c", "import typer, rich, numpy, rich.console"]
    timed(baseline_cmd)  # warm the file cache and the bytecode cache
    timed(rich_cmd)
    WALL, CPU = 0, 1
    commands = [[sys.executable, "-m", "swizzle_solver", *argv_of(case)] for case in cases]
    for cmd in commands:
        timed(cmd)
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
    worst_cpu = worst_wall = 0.0
    print(f"{'cpu ratio':>9}  {'wall ratio':>10}  {'cpu s':>6}  {'--quiet cpu ratio':>17}  example")
    for case, its_base, its_solve, its_quiet in zip(cases, base, solve, quiet):
        cpu, wall = paired(its_solve, its_base, CPU), paired(its_solve, its_base, WALL)
        worst_cpu, worst_wall = max(worst_cpu, cpu), max(worst_wall, wall)
        print(f"{cpu:9.2f}  {wall:10.2f}  {statistics.median(c for _, c in its_solve):6.3f}  "
              f"{paired(its_quiet, its_base, CPU):17.2f}  {case['name']}")
    base_all = [run for runs_of_case in base for run in runs_of_case]
    print(f"baseline (python -c 'import typer, rich, numpy'): median wall {statistics.median(w for w, _ in base_all):.3f} s, "
          f"cpu {statistics.median(c for _, c in base_all):.3f} s; {runs} runs of each example, each next to a "
          f"baseline run")
    print(f"for reference, only importing rich.console on top of the baseline: cpu ratio {statistics.median(reference):.2f}")
    print(f"worst ratio: cpu {worst_cpu:.2f}, wall {worst_wall:.2f} (target <= {TARGET}, judged on cpu): "
          f"{'PASS' if worst_cpu <= TARGET else 'FAIL'}")
    return 0 if worst_cpu <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
