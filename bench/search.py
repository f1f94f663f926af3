"""Search speed: the in-process solve of every stage-1 example against a naive search.

Naive baseline (written here): every candidate of the `none`, `cute` and `xor-cols` families
(families.*.candidates, the same enumeration the solver covers), each checked for validity and
measured with the plain exhaustive simulator (candidate.measure: every placement of every pattern),
then the minimum taken in the DESIGN.md order. Both searches must agree on the answer; the ratio
is naive time / solver time over all examples together, both measured here.

Targets (issue 16; bench/README.md says why): on the kernel-scale tiles (KERNEL_TILES) the ratio
>= 50; on the tutorial-sized stage-1 examples, where simulating and verifying the answer alone costs
1/27 to 1/82 of the naive search (so 50x there is out of reach for any design), the solve within
FLOOR_FACTOR of that floor.

Every run of either side gets freshly built problems, so nothing cached on a pattern by an
earlier run helps. Also printed: the floor (simulating and verifying only each answer, which any
solver must do) and the solve with its candidates table read (what the report prints).

KERNEL_TILES: shared-memory tiles of the size GEMM kernels use (64 to 256 rows; the stage-1
examples are tutorial-sized, 8 to 64 rows, where numpy's per-call overhead dominates both sides).
Every one has a conflict-free answer among none, cute and xor-cols, so both sides search the same
families.

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

from swizzle_solver import candidate, solving  # noqa: E402
from swizzle_solver.cases import load_cases  # noqa: E402
from swizzle_solver.families import base  # noqa: E402

TARGET = 50.0  # naive / solver on KERNEL_TILES
FLOOR_FACTOR = 2.5  # solver / floor (the answers' own simulation and verification) on the stage-1 examples


KERNEL_TILES = [  # (rows, cols, row_length, dtype, accesses): A/B operand tiles, epilogues, padded pitches
    (128, 64, None, "f16", ["ldmatrix.x4", "8x8"]),
    (64, 128, None, "f16", ["ldmatrix.x4.trans", "8x8"]),
    (128, 128, None, "f16", ["8x8", "row"]),
    (256, 64, None, "f16", ["8x8", "row"]),
    (128, 128, None, "f32", ["mma-c:m16n8", "1x4"]),
    (128, 32, None, "f32", ["8x4", "row"]),
    (128, 40, None, "f32", ["8x4"]),
    (128, 48, None, "f32", ["col"]),
    (128, 64, 72, "f16", ["8x8"]),
    (128, 128, None, "e4m3", ["8x16", "row"]),
]


def kernel_problems():
    from swizzle_solver.api import problem

    return [(f"{r}x{c}{f' pitch {rl}' if rl else ''} {dt} {' '.join(acc)}",
             problem(r, c, acc, row_length=rl, dtype=dt)) for r, c, rl, dt, acc in KERNEL_TILES]


def problems():
    """(name, problem) of every stage-1 case, built exactly as `batch` builds them."""
    stage1 = {c["name"] for c in tomllib.loads((ROOT / "examples.toml").read_text())["case"] if c.get("stage", 1) == 1}
    return [(c.name, c.problem) for c in load_cases(str(ROOT / "examples.toml")) if c.name in stage1]


def naive_solve(problem):
    """Every candidate, measured whole by the simulator; the minimum in the DESIGN.md order."""
    best = None
    for family in base():
        for layout in family.candidates(problem.tile, candidate.vector_elems(problem)):
            if layout.invalid(problem.tile) is not None:
                continue
            ranked = candidate.measure_as_given(problem, layout)
            if best is None or ranked.rank_key < best.rank_key:
                best = ranked
    return best


def answer_floor(problem, layout):
    """What any solve must spend whatever its search does: simulate its answer over every
    placement and verify it (a bijection that keeps vectors whole)."""
    candidate.recheck(problem, candidate.Candidate(0, layout))


def plain_solve(problem):
    """A solve without the candidates table (what --quiet runs)."""
    return solving.solve(problem, table=False)


def with_table(problem):
    """A solve whose candidates table is read too (what the rich report and --json print)."""
    solution = solving.solve(problem, table=True)
    return solution


def timed(fn, make_items, repeat):
    """The fastest of ``repeat`` runs of fn over fresh items (nothing cached from an earlier run)."""
    best, out = float("inf"), None
    for _ in range(repeat):
        items = make_items()
        start = time.perf_counter()
        out = [fn(p) for _, p in items]
        best = min(best, time.perf_counter() - start)
    return best, out


def simulations(fn) -> int:
    """Whole layouts simulated exhaustively (every placement of every pattern) by fn over the
    examples, counted in a run of its own (not a timed one)."""
    from swizzle_solver import simulate

    calls, plain = [0], simulate.simulate

    def counted(*args, **kwargs):
        calls[0] += 1
        return plain(*args, **kwargs)

    simulate.simulate = counted
    try:
        for _, problem in problems():
            fn(problem)
    finally:
        simulate.simulate = plain
    return calls[0]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="runs of each side; the fastest is kept")
    repeat = ap.parse_args().repeat
    items = problems()
    solve_s, solutions = timed(plain_solve, problems, repeat)
    naive_s, naive = timed(naive_solve, problems, repeat)
    table_s = timed(with_table, problems, repeat)[0]
    answers = {name: s.answer.layout for (name, _), s in zip(items, solutions)}
    floor_s = timed(lambda item: answer_floor(item[1], answers[item[0]]),
                    lambda: [(None, item) for item in problems()], repeat)[0]
    disagree = [name for (name, _), s, n in zip(items, solutions, naive) if s.answer.layout != n.layout]
    for name in disagree:
        print(f"DISAGREE: {name}")
    ratio = naive_s / solve_s
    candidates = sum(len(m.candidates(p.tile, candidate.vector_elems(p))) for _, p in items for m in base())
    print(f"{len(items)} stage-1 examples: solver {solve_s * 1e3:.1f} ms, naive {naive_s * 1e3:.1f} ms "
          f"(all {candidates} candidates simulated)")
    print(f"  layouts simulated whole: solver {simulations(plain_solve)}, naive {simulations(naive_solve)}")
    print(f"  floor: simulating and verifying just the {len(items)} answers takes {floor_s * 1e3:.1f} ms, "
          f"which caps any design at {naive_s / floor_s:.0f}x")
    print(f"  with the candidates table (runners-up of each family, read by the report and --json): "
          f"{table_s * 1e3:.1f} ms, {naive_s / table_s:.1f}x")
    kernel_solve_s, kernel_solutions = timed(plain_solve, kernel_problems, repeat)
    kernel_naive_s, kernel_naive = timed(naive_solve, kernel_problems, repeat)
    kernel_items = kernel_problems()
    for (name, _), s, n in zip(kernel_items, kernel_solutions, kernel_naive):
        if s.answer.layout != n.layout or not s.answer.conflict_free:
            disagree.append(name)
            print(f"DISAGREE or not conflict-free: {name}")
    kernel_ratio = kernel_naive_s / kernel_solve_s
    print(f"{len(kernel_items)} kernel-scale tiles (KERNEL_TILES): solver {kernel_solve_s * 1e3:.1f} ms, naive "
          f"{kernel_naive_s * 1e3:.1f} ms")
    ok = kernel_ratio >= TARGET and solve_s <= FLOOR_FACTOR * floor_s and not disagree
    print(f"kernel tiles {kernel_ratio:.1f}x (target >= {TARGET:g}); stage-1 examples {ratio:.1f}x, "
          f"{solve_s / floor_s:.2f}x their floor (target <= {FLOOR_FACTOR:g}): {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
