"""Search speed: the in-process solve of every stage-1 example against a naive search.

Naive baseline (written here): every candidate of the `none`, `cute` and `xor-cols` families
(families.*.candidates, the same enumeration the solver covers), each checked for validity and
measured with the plain exhaustive simulator (search.measure: every placement of every pattern),
then the minimum taken in the DESIGN.md order. Both searches must agree on the answer; the ratio
is naive time / solver time over all examples together, both measured here. Target: >= 50.

    python3 bench/search.py [--repeat N]
"""
from __future__ import annotations

import argparse
import sys
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from swizzle_solver import search  # noqa: E402
from swizzle_solver.families import FAMILIES  # noqa: E402
from swizzle_solver.cases import load_cases  # noqa: E402

TARGET = 50.0


def problems():
    """(name, problem) of every stage-1 case, built exactly as `batch` builds them."""
    stage1 = {c["name"] for c in tomllib.loads((ROOT / "examples.toml").read_text())["case"] if c.get("stage", 1) == 1}
    return [(c.name, c.problem) for c in load_cases(str(ROOT / "examples.toml")) if c.name in stage1]


def naive_solve(problem):
    """Every candidate, measured whole by the simulator; the minimum in the DESIGN.md order."""
    best = None
    for module in FAMILIES:
        for layout in module.candidates(problem.tile, search.vector_elems(problem)):
            if layout.invalid(problem.tile) is not None:
                continue
            ranked = search.measure(problem, layout)
            if best is None or ranked.rank_key < best.rank_key:
                best = ranked
    return best


def recheck_floor(solution):
    """What solve must spend whatever its search does: one simulation of each layout it reports."""
    for ranked in [solution.answer, *solution.alternatives, solution.baseline]:
        search.measure(solution.problem, ranked.layout)


def timed(fn, make_items, repeat):
    """The fastest of ``repeat`` runs of fn over fresh items (nothing cached from an earlier run)."""
    best, out = float("inf"), None
    for _ in range(repeat):
        items = make_items()
        start = time.perf_counter()
        out = [fn(p) for _, p in items]
        best = min(best, time.perf_counter() - start)
    return best, out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="runs of each side; the fastest is kept")
    repeat = ap.parse_args().repeat
    items = problems()
    solve_s, solutions = timed(search.solve, problems, repeat)
    naive_s, naive = timed(naive_solve, problems, max(1, repeat // 3))
    floor_s = timed(recheck_floor, lambda: [(None, s) for s in solutions], repeat)[0]
    reported = sum(2 + len(s.alternatives) for s in solutions)
    disagree = [name for (name, _), s, n in zip(items, solutions, naive) if s.answer.layout != n.layout]
    for name in disagree:
        print(f"DISAGREE: {name}")
    ratio = naive_s / solve_s
    candidates = sum(len(m.candidates(p.tile, search.vector_elems(p))) for _, p in items for m in FAMILIES)
    print(f"{len(items)} stage-1 examples: solver {solve_s * 1e3:.1f} ms, naive {naive_s * 1e3:.1f} ms "
          f"(all {candidates} candidates simulated)")
    print(f"  the solver's floor, re-simulating the {reported} layouts it reports (answer, runners-up, "
          f"baseline): {floor_s * 1e3:.1f} ms, so this design caps the ratio near {naive_s / floor_s:.0f}x")
    print(f"ratio {ratio:.1f}x (target >= {TARGET:g}): {'PASS' if ratio >= TARGET and not disagree else 'FAIL'}")
    return 0 if ratio >= TARGET and not disagree else 1


if __name__ == "__main__":
    sys.exit(main())
