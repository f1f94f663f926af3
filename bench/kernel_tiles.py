"""Kernel tiles: every solve of a realistic tile as a whole process, against the bare imports.

The tiles (``TILES``): the slow tail of issue 16 (two-level, linear refutations, padding), GEMM
operand tiles read by ldmatrix and epilogue tiles stored from the accumulator, attention tiles
(head dims 64 / 80 / 96 / 128, Q/K read by rows, V transposed), fp8, and padded pitches (40, 72).
Each is solved as ``python -m swizzle_solver ... --quiet`` and with the rich report, each run right
after a run of the import floor ``python -c "import typer, rich, numpy"``; the ratio is judged on
CPU time (user + system of the child), paired as in startup.py (the VM's speed drifts by more than
the differences measured, and a pair cancels the drift). Prints every ratio, then the worst, the
median and the slowest five. Targets (issue 16): worst <= 7x, median <= 1.5x.

``--baseline-checkout PATH`` (repeatable): each solve is also run by another checkout's CLI (its
tree the working directory and first on PYTHONPATH, as in startup.py), paired with a floor run of
its own, and this tree's ratio over that one's is printed beside (< 1: faster here): issue 11's
before and after. A solve the other tree rejects (exit 2) is shown as n/a.

``--random N``: N random small tiles instead (8-64 rows, 8-128 columns, odd pitches included,
1-3 patterns, one process each, --quiet), seeded (``--seed``); prints the p90. Target: p90 <= 2x.

    python3 bench/kernel_tiles.py [--runs N] [--only REGEX] [--baseline-checkout PATH ...]
    python3 bench/kernel_tiles.py --random 40 [--seed 1]
"""
from __future__ import annotations

import argparse
import random
import re
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from startup import accepts, timed  # noqa: E402  (the same environment and clocks as startup.py)

WORST, MEDIAN, P90 = 7.0, 1.5, 2.0
FLOOR = [sys.executable, "-c", "import typer, rich, numpy"]
SOLVE = [sys.executable, "-m", "swizzle_solver"]


def tile(rows: int, cols: int, dtype: str, *access: str, pitch: int | None = None) -> list[str]:
    args = ["--rows", str(rows), "--cols", str(cols), "--dtype", dtype]
    if pitch is not None:
        args += ["--row-length", str(pitch)]
    for a in access:
        args += ["--access", a]
    return args


TILES: dict[str, list[str]] = {
    # the slow tail of issue 16
    "512x512 f16 8x8v4 row col": tile(512, 512, "f16", "8x8v4", "row", "col"),
    "512x506 f16 8x1 8x16 col": tile(512, 506, "f16", "8x1", "8x16", "col"),
    "64x96 f32 p97 16x4 8x1:2": tile(64, 96, "f32", "16x4", "8x1:2", pitch=97),
    "256x250 f16 8x1 8x16 col": tile(256, 250, "f16", "8x1", "8x16", "col"),
    "16x96 f32 p97 16x4 8x1:2": tile(16, 96, "f32", "16x4", "8x1:2", pitch=97),
    # GEMM operand tiles (ldmatrix) and epilogues (the accumulator stored, then read by rows)
    "A 128x32 f16 ldmatrix.x4": tile(128, 32, "f16", "ldmatrix.x4"),
    "A 128x64 f16 ldmatrix.x4": tile(128, 64, "f16", "ldmatrix.x4"),
    "B 64x128 f16 ldmatrix.x4.trans": tile(64, 128, "f16", "ldmatrix.x4.trans"),
    "B 32x256 bf16 ldmatrix.x4.trans": tile(32, 256, "bf16", "ldmatrix.x4.trans"),
    "A 128x64 f16 8x8 row col": tile(128, 64, "f16", "8x8", "row", "col"),
    "epilogue 128x128 f32 mma-c row": tile(128, 128, "f32", "mma-c:m16n8", "row"),
    "epilogue 64x64 f16 stmatrix row": tile(64, 64, "f16", "stmatrix.x2", "row"),
    "epilogue 128x64 f32 8x4 row": tile(128, 64, "f32", "8x4", "row"),
    # attention: Q/K rows by ldmatrix, V transposed, head dims 64/80/96/128
    "attn Q 64x64 f16": tile(64, 64, "f16", "ldmatrix.x4"),
    "attn Q 64x80 f16": tile(64, 80, "f16", "ldmatrix.x4"),
    "attn Q 64x96 f16": tile(64, 96, "f16", "ldmatrix.x4"),
    "attn Q 64x128 f16": tile(64, 128, "f16", "ldmatrix.x4"),
    "attn V 64x64 f16 trans": tile(64, 64, "f16", "ldmatrix.x4.trans"),
    "attn V 64x80 f16 trans": tile(64, 80, "f16", "ldmatrix.x4.trans"),
    "attn V 64x96 bf16 trans": tile(64, 96, "bf16", "ldmatrix.x4.trans"),
    "attn V 128x128 bf16 trans": tile(128, 128, "bf16", "ldmatrix.x4.trans"),
    "attn K 128x96 f16 8x8 row col": tile(128, 96, "f16", "8x8", "row", "col"),
    # fp8
    "fp8 128x128 16x16": tile(128, 128, "e4m3", "16x16"),
    "fp8 64x128 8x16v16 col": tile(64, 128, "e4m3", "8x16v16", "col"),
    "fp8 128x64 row col": tile(128, 64, "e4m3", "row", "col"),
    # padded pitches
    "64x32 f16 pitch 40 ldmatrix.x4": tile(64, 32, "f16", "ldmatrix.x4", pitch=40),
    "64x64 f16 pitch 72 ldmatrix.x4": tile(64, 64, "f16", "ldmatrix.x4", pitch=72),
    "64x64 f16 pitch 72 8x8 row col": tile(64, 64, "f16", "8x8", "row", "col", pitch=72),
    # bench/large.py's tile: 128 KiB, the candidates table's re-checks cost the most here
    "256x256 f16 8x8 row col": tile(256, 256, "f16", "8x8", "row", "col"),
}

PATTERNS = ["row", "col", "8x4", "4x8", "8x1", "16x2", "2x16", "8x8", "8x4:2", "4x4", "8x2v8", "16x1:2", "1x32"]


def random_tiles(n: int, seed: int) -> dict[str, list[str]]:
    rng = random.Random(seed)
    out = {}
    while len(out) < n:
        rows, cols = rng.randint(8, 64), rng.randint(8, 128)
        pitch = cols + rng.choice([0, 0, 1, 3, 8]) if rng.random() < 0.4 else None
        dtype = rng.choice(["f32", "f16", "f32"])
        access = rng.sample(PATTERNS, rng.randint(1, 3))
        out[f"{rows}x{cols}{f' p{pitch}' if pitch else ''} {dtype} {' '.join(access)}"] = tile(
            rows, cols, dtype, *access, pitch=pitch)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=1, help="paired runs per tile and output form (median)")
    ap.add_argument("--only", default=None, help="only tiles whose name matches this regular expression")
    ap.add_argument("--random", type=int, default=0, help="this many random small tiles, --quiet only")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--baseline-checkout", type=Path, action="append", default=[], metavar="PATH",
                    help="another checkout whose CLI solves the same tiles in the same run, for before/after")
    args = ap.parse_args()
    others = [path.resolve() for path in args.baseline_checkout]
    tiles = random_tiles(args.random, args.seed) if args.random else TILES
    if args.only:
        tiles = {k: v for k, v in tiles.items() if re.search(args.only, k)}
    forms = [("quiet", ["--quiet"])] if args.random else [("quiet", ["--quiet"]), ("rich", [])]
    timed(FLOOR)  # warm-up: fills the bytecode cache
    timed(SOLVE + ["--rows", "8", "--cols", "8", "--access", "row", "--quiet"])
    ratios: dict[tuple[str, str], float] = {}
    for name, argv in tiles.items():
        for form, extra in forms:
            pairs = []
            theirs: list[list[float] | None] = [[] if accepts(SOLVE + argv + extra, tree) else None for tree in others]
            for _ in range(args.runs):
                floor = timed(FLOOR)[1]
                pairs.append(timed(SOLVE + argv + extra)[1] / floor)
                for tree, its in zip(others, theirs):
                    if its is not None:
                        floor = timed(FLOOR)[1]
                        its.append(timed(SOLVE + argv + extra, tree)[1] / floor)
            ratios[name, form] = statistics.median(pairs)
            beside = "".join(f"  | {tree.name}: n/a" if its is None else
                             f"  | {tree.name}: {statistics.median(its):.2f}x, here/there "
                             f"{statistics.median(h / t for h, t in zip(pairs, its)):.2f}"
                             for tree, its in zip(others, theirs))
            print(f"{ratios[name, form]:7.2f}x  {form:5}  {name}{beside}", flush=True)
    values = sorted(ratios.values())
    slowest = sorted(ratios.items(), key=lambda kv: -kv[1])[:5]
    print(f"\nworst {values[-1]:.2f}x, median {statistics.median(values):.2f}x over {len(values)} solves")
    print("slowest five: " + "; ".join(f"{n} ({f}) {r:.2f}x" for (n, f), r in slowest))
    if args.random:
        p90 = values[min(len(values) - 1, int(0.9 * len(values)))]
        ok = p90 <= P90
        print(f"p90 {p90:.2f}x (target <= {P90}): {'PASS' if ok else 'FAIL'}")
    else:
        ok = values[-1] <= WORST and statistics.median(values) <= MEDIAN
        print(f"targets: worst <= {WORST}x, median <= {MEDIAN}x: {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
