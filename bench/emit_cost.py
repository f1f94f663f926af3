"""What --emit all and --svg cost on top of a solve, as ratios against the solve measured in the same run.

    python3 bench/emit_cost.py
"""
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from swizzle_solver.api import figure, problem, with_emit  # noqa: E402
from swizzle_solver.emit import TARGETS, emit_all  # noqa: E402
from swizzle_solver.report import solution_json  # noqa: E402
from swizzle_solver.solving import solve  # noqa: E402

CASES = [
    dict(rows=16, cols=32, dtype="f16", access=["8x8", "row"]),
    dict(rows=32, cols=40, access=["8x4"]),
    dict(rows=128, cols=128, dtype="f16", access=["8x8", "row"]),
    dict(rows=512, cols=1024, dtype="u8", access=["8x16"]),
]


def best(fn, repeat=3):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


for case in CASES:
    prob = problem(**case)
    solution = solve(prob)
    layout = solution.answer.layout
    doc = solution_json(solution)
    t_solve = best(lambda: solve(prob))
    t_emit = best(lambda: emit_all(TARGETS, prob, layout))
    t_svg = best(lambda: figure(prob, layout, doc["answer"]["per_access"]), repeat=1)
    with_emit(doc, prob, layout, TARGETS)
    print(f"{case['rows']}x{case['cols']} {case.get('dtype', 'f32')} {case['access']}: solve {t_solve * 1e3:.1f} ms, "
          f"emit all x{t_emit / t_solve:.2f}, svg x{t_svg / t_solve:.2f}")
