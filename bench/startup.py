"""Start-up: a plain solve of each stage-1 example as a whole process, against the bare imports.

Baseline: ``python -c "import typer, rich, numpy"`` (the least any typer + rich + numpy CLI pays).
Each example is run as ``python -m swizzle_solver --rows .. --cols .. --access ..`` with the rich
output (sent to /dev/null); the ratio is median(example) / median(baseline), both measured here,
interleaved so that machine noise hits both alike. Target: every ratio <= 1.3.

    python3 bench/startup.py [--runs N]
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = 1.3


def argv_of(case: dict) -> list[str]:
    args = ["--rows", str(case["rows"]), "--cols", str(case["cols"])]
    for key in ("row_length", "dtype", "elem_bytes", "banks", "bank_bytes"):
        if key in case:
            args += [f"--{key.replace('_', '-')}", str(case[key])]
    for spec in case["access"]:
        args += ["--access", spec]
    return args


def wall(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=11)
    runs = ap.parse_args().runs
    cases = [c for c in tomllib.loads((ROOT / "examples.toml").read_text())["case"] if c.get("stage", 1) == 1]
    baseline_cmd = [sys.executable, "-c", "import typer, rich, numpy"]
    wall(baseline_cmd)  # warm the file cache and the bytecode caches
    worst = 0.0
    print(f"{'ratio':>6}  {'median s':>8}  example")
    base_all = []
    for case in cases:
        cmd = [sys.executable, "-m", "swizzle_solver", *argv_of(case)]
        wall(cmd)
        base, solve = [], []
        for _ in range(runs):
            base.append(wall(baseline_cmd))
            solve.append(wall(cmd))
        ratio = statistics.median(solve) / statistics.median(base)
        base_all += base
        worst = max(worst, ratio)
        print(f"{ratio:6.2f}  {statistics.median(solve):8.3f}  {case['name']}")
    print(f"baseline median {statistics.median(base_all):.3f} s (python -c 'import typer, rich, numpy'), "
          f"{runs} runs each")
    print(f"worst ratio {worst:.2f} (target <= {TARGET}): {'PASS' if worst <= TARGET else 'FAIL'}")
    return 0 if worst <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
