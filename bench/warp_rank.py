"""Warp-level patterns: the search with the coset path (phases found to be cosets of one set of
offset bits, so one phase decides them all) against the same search with that path switched off
(every candidate bounded on a spread sample of phases, then simulated whole). Both must give the
same answer; the ratio is off / on, both measured here.

    python3 bench/warp_rank.py [--repeat N]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from swizzle_solver.access import make_problem  # noqa: E402
from swizzle_solver.model import Problem  # noqa: E402
from swizzle_solver.solving import solve  # noqa: E402
from swizzle_solver.value import replace  # noqa: E402

CASES = [  # (rows, cols, elem_bytes, accesses)
    (64, 64, 2, ["ldmatrix.x4", "mma-c:m16n8"]),
    (256, 256, 2, ["ldmatrix.x4", "warp:4x8:1x8", "row"]),
    (128, 128, 4, ["warp:4x8:1x4", "warp:32x1:1x4", "mma-c"]),
    (512, 512, 1, ["warp:1x32:1x16", "ldmatrix.x4"]),
]


def without_rank_path(problem: Problem) -> Problem:
    patterns = tuple(replace(p, coset_bits=None) if p.coset_bits else p for p in problem.patterns)
    return Problem(problem.tile, problem.hardware, patterns)


def timed(problem: Problem, repeat: int) -> tuple[float, str]:
    start = time.perf_counter()
    for _ in range(repeat):
        answer = solve(problem).answer
    return (time.perf_counter() - start) / repeat, f"{answer.layout.name} excess {answer.excess}"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    total_on = total_off = 0.0
    for rows, cols, e, accesses in CASES:
        problem = make_problem(rows, cols, accesses, elem_bytes=e)
        on, a = timed(problem, args.repeat)
        off, b = timed(without_rank_path(problem), args.repeat)
        if a != b:
            print(f"DISAGREE on {rows}x{cols}: {a} vs {b}")
            return 1
        total_on, total_off = total_on + on, total_off + off
        print(f"{rows}x{cols} {e} B {' '.join(accesses)}: rank path {on * 1000:.0f} ms, "
              f"simulator only {off * 1000:.0f} ms, ratio {off / on:.1f}  ({a})")
    print(f"all cases: ratio {total_off / total_on:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
