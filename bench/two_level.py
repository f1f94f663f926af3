#!/usr/bin/env python3
"""Stage-2 cases: time to answer, and the z3 engine against plain enumeration, in one run.

    python3 bench/two_level.py [--repeat 3] [--enum-limit 20]

For every stage-2 case of examples.toml: the whole solve with the default engines (the
requirement: under 2 s each), then the two-level and linear families searched alone by each
engine on the same case. Ratios are z3 time / enumeration time measured here (< 1: z3 faster).
Linear enumeration lists members by number of XOR terms and is cut after --enum-limit seconds.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from swizzle_solver.budget import Budget  # noqa: E402
from swizzle_solver.cases import load_cases  # noqa: E402
from swizzle_solver.extended import later_of  # noqa: E402
from swizzle_solver.families.linear import search as search_linear  # noqa: E402
from swizzle_solver.families.two_level import search as search_two_level  # noqa: E402
from swizzle_solver.search import first_conflict_free  # noqa: E402
from swizzle_solver.solving import solve  # noqa: E402


def timed(fn, repeat):
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def answer(kept):
    best = [c.layout.name for c in kept if c.excess == 0]
    return best[0] if best else "none conflict-free"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--enum-limit", type=float, default=20.0)
    args = ap.parse_args()
    import z3  # noqa: F401  (imported once before timing, as a solve that uses it pays it once)

    stage2 = {c["name"] for c in tomllib.loads((ROOT / "examples.toml").read_text())["case"] if c.get("stage") == 2}
    cases = [c for c in load_cases(str(ROOT / "examples.toml")) if c.name in stage2]
    print(f"{'case':44} {'solve':>8}  {'family':10} {'enum':>9} {'z3':>9} {'z3/enum':>8}  answers")
    for case in cases:
        problem = case.problem
        t_solve, solution = timed(lambda: solve(problem), args.repeat)
        flag = "" if t_solve < 2 else "  (over 2 s!)"
        print(f"{case.name[:44]:44} {t_solve:7.3f}s  -> {solution.answer.layout.name}{flag}")
        enum, smt = later_of(problem, first_conflict_free, "enum"), later_of(problem, first_conflict_free, "smt")
        for family, search, repeat in (("two-level", search_two_level, args.repeat), ("linear", search_linear, 1)):
            t_enum, (kept_enum, rep_enum) = timed(
                lambda: search(problem, Budget(args.enum_limit), enum), repeat)
            t_smt, (kept_smt, _) = timed(lambda: search(problem, Budget(), smt), args.repeat)
            enum_txt = f"{t_enum:8.3f}s" if rep_enum.complete else f">{args.enum_limit:7.1f}s"
            print(f"{'':44} {'':8}  {family:10} {enum_txt:>9} {t_smt:8.3f}s {t_smt / t_enum:8.2f}  "
                  f"enum: {answer(kept_enum)}{'' if rep_enum.complete else ' (cut)'}; z3: {answer(kept_smt)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
