"""Large tile: a 256 x 256 f16 tile (128 KiB) with three access patterns, solved in-process.

Prints the solve time (the fastest of a few runs, after one warm-up) and its ratio to the
1-second budget of issue 2. Target: ratio < 1.

    python3 bench/large.py [--repeat N]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from swizzle_solver import search  # noqa: E402
from swizzle_solver.model import make_problem  # noqa: E402

BUDGET_S = 1.0
ACCESSES = ["8x8", "row", "col"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    repeat = ap.parse_args().repeat
    times = []
    for _ in range(repeat + 1):
        start = time.perf_counter()
        problem = make_problem(256, 256, ACCESSES, elem_bytes=2)
        solution = search.solve(problem)
        times.append(time.perf_counter() - start)
    best = min(times[1:])
    worst = [(r.pattern.spec, r.worst) for r in solution.answer.results]
    print(f"256 x 256 f16, access {' '.join(ACCESSES)}: {solution.answer.layout.name} ({solution.status}), "
          f"worst per access {worst}")
    print(f"solve {best * 1e3:.0f} ms (first run {times[0] * 1e3:.0f} ms); ratio to the {BUDGET_S:g} s budget "
          f"{best / BUDGET_S:.2f}: {'PASS' if best < BUDGET_S else 'FAIL'}")
    return 0 if best < BUDGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
