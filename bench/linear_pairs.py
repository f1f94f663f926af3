#!/usr/bin/env python3
"""Register-layout pairs moved through shared memory (issue 24): --vectors auto against the vectors
as given, and Triton's optimalSwizzlingLdSt layout where Triton is installed.

    python3 bench/linear_pairs.py [--arch nvidia] [--random 12] [--seed 1]

Per pair (a conversion: the tile stored through the first layout and read through the second, each
once over the tile), three layouts, each counted by the simulator (vectors.moved):

- auto: the tool's --vectors auto answer (each access's vector chosen with the layout);
- given: the tool's plain answer, the vectors as given (from the register order), as before issue 24;
- triton: Triton's own conversion (its optimalSwizzlingLdSt layout and instructions, read from the PTX
  it compiles for sm_90: bench/triton_pairs.py), when Triton is installed; else "-".

The first layout is a store (st.shared, stmatrix), the second a load, as in Triton's convert_layout.
Columns: total wavefronts / total instructions for each, then the --vectors auto solve's time (the plain
solve and the vector search, in process), with --time Triton's whole compile of the conversion (fresh
cache) and the ratio of the two, then
the auto answer's instruction on each side (stored -> loaded). Random
pairs get the same number of warps on both sides (Triton converts within one CTA of num_warps).
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from swizzle_solver import gf2, vectors  # noqa: E402
from swizzle_solver.access import make_tile  # noqa: E402
from swizzle_solver.hardware import target  # noqa: E402
from swizzle_solver.model import Problem  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
from triton_pairs import triton_counts  # noqa: E402


def access(name, rows, cols, reg, lane, warp, store=False):
    f = lambda vs: tuple(r * cols + c for r, c in vs)  # noqa: E731
    assert all(r < rows and c < cols for r, c in [*reg, *lane, *warp]), (name, reg, lane, warp)
    assert gf2.rank(list(f(reg) + f(lane) + f(warp))) == (rows * cols).bit_length() - 1, (name, reg, lane, warp)
    return vectors.RegisterAccess(name, f(reg), f(lane), f(warp), store=store)


def blocked(rows, cols, per_thread, lanes, order_row=True):
    """A blocked layout: per_thread elements along the fast axis (columns if order_row, else rows),
    lanes (along the fast axis, along the slow one), up to 4 warps along the slow axis, registers
    for what is left (as Triton's BlockedEncoding)."""
    fast, slow = ((lambda k: (0, k)), (lambda k: (k, 0))) if order_row else ((lambda k: (k, 0)), (lambda k: (0, k)))
    nfast, nslow = (cols, rows) if order_row else (rows, cols)
    tf, ts = lanes
    reg = [fast(1 << i) for i in range(per_thread.bit_length() - 1)]
    f = per_thread
    lane = []
    for _ in range(tf.bit_length() - 1):
        lane.append(fast(f))
        f *= 2
    s = 1
    for _ in range(ts.bit_length() - 1):
        lane.append(slow(s))
        s *= 2
    warp = []
    while s < nslow and len(warp) < 2:
        warp.append(slow(s))
        s *= 2
    while f < nfast:
        reg.append(fast(f))
        f *= 2
    while s < nslow:
        reg.append(slow(s))
        s *= 2
    return reg, lane, warp


def mma_a(rows, cols):
    """mma.m16n8k16's A operand fragment (f16), warps along M, registers for the rest."""
    reg, lane = [(0, 1), (8, 0), (0, 8)], [(0, 2), (0, 4), (1, 0), (2, 0), (4, 0)]
    warp, r = [], 16
    while r < rows and len(warp) < 2:
        warp.append((r, 0))
        r *= 2
    c = 16
    while c < cols:
        reg.append((0, c))
        c *= 2
    while r < rows:
        reg.append((r, 0))
        r *= 2
    return reg, lane, warp


def random_layout(rng, rows, cols, regs):
    """A random register layout: the index bits (row and column bits) dealt at random to registers,
    lanes (5) and warps; each basis moves along one dimension, as Triton requires of registers and lanes."""
    n = (rows * cols).bit_length() - 1
    vecs = [1 << i for i in range(n)]
    rng.shuffle(vecs)
    rc = [(v // cols, v % cols) for v in vecs]
    return rc[:regs], rc[regs:regs + 5], rc[regs + 5:]


def pairs(nrandom, seed):
    out = []
    out.append(("16x16 f32 rows->cols", 16, 16, 4, blocked(16, 16, 4, (4, 8)), blocked(16, 16, 4, (4, 8), False)))
    out.append(("64x64 f16 rows->cols", 64, 64, 2, blocked(64, 64, 8, (8, 4)), blocked(64, 64, 8, (8, 4), False)))
    out.append(("16x16 i8 row-major->col-major", 16, 16, 1, blocked(16, 16, 8, (2, 16)),
                blocked(16, 16, 8, (2, 16), False)))
    out.append(("64x32 f16 blocked->mma A", 64, 32, 2, blocked(64, 32, 8, (4, 8)), mma_a(64, 32)))
    out.append(("128x64 f16 blocked->mma A", 128, 64, 2, blocked(128, 64, 8, (8, 4)), mma_a(128, 64)))
    out.append(("128x128 f32 rows->cols", 128, 128, 4, blocked(128, 128, 4, (4, 8)),
                blocked(128, 128, 4, (4, 8), False)))
    out.append(("128x128 f16 rows->cols", 128, 128, 2, blocked(128, 128, 8, (8, 4)),
                blocked(128, 128, 8, (8, 4), False)))
    rng = random.Random(seed)
    out.append(("32x64 f32 random->random", 32, 64, 4, random_layout(rng, 32, 64, 4), random_layout(rng, 32, 64, 4)))
    for k in range(nrandom):
        rows, cols, e = rng.choice([(32, 64, 4), (64, 64, 2), (32, 32, 4), (64, 32, 1), (16, 64, 2)])
        n = (rows * cols).bit_length() - 1
        regs = n - 5 - rng.randrange(0, 3)
        out.append((f"random {k} {rows}x{cols} e{e}", rows, cols, e, random_layout(rng, rows, cols, regs),
                    random_layout(rng, rows, cols, regs)))
    return out


def warps_of(bases) -> int:
    return 1 << len(bases[2])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--arch", default="nvidia")
    ap.add_argument("--random", type=int, default=12)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--time", action="store_true",
                    help="also time Triton's compile of each conversion (a fresh cache each) against the solve")
    args = ap.parse_args()
    hw = target(args.arch)
    from swizzle_solver.access.warp import tile_pattern  # noqa: F401
    from swizzle_solver.solving import solve

    print(f"{'pair':34} {'auto wf/instr':>14} {'given wf/instr':>15} {'triton':>10} {'time s':>7}"
          + (f" {'triton s':>8} {'ratio':>6}" if args.time else ""))
    wins = ties = 0
    vs_triton: list[bool] = []
    ratios: list[float] = []
    if args.time:
        compile_time(*pairs(0, args.seed)[0])  # Triton's first compile loads its passes: not counted
    for name, rows, cols, e, a, b in pairs(args.random, args.seed):
        tile = make_tile(rows, cols, None, e)
        accs = [access("src", rows, cols, *a, store=True), access("dst", rows, cols, *b)]
        problem = _problem(accs, tile, hw)
        t = time.perf_counter()
        plain = solve(problem, table=False).answer.layout
        auto = vectors.solve_auto(accs, tile, hw, plain)
        dt = time.perf_counter() - t
        g, x = auto.given, auto.answer
        tri = triton_counts(a, b, rows, cols, e, warps_of(a)) if warps_of(a) == warps_of(b) else None
        better = (x.wavefronts, x.instructions) < (g.wavefronts, g.instructions)
        wins += better
        ties += not better
        timed = ""
        if args.time and warps_of(a) == warps_of(b):
            tc = compile_time(name, rows, cols, e, a, b)
            ratios.append(dt / tc)
            timed = f" {tc:>8.2f} {dt / tc:>6.2f}"
        print(f"{name:34} {x.wavefronts:>6}/{x.instructions:<7} {g.wavefronts:>7}/{g.instructions:<7} "
              f"{'-' if tri is None else 'shuffles' if isinstance(tri, str) else f'{tri[0]}/{tri[1]}':>10} {dt:>7.2f}"
              f"{timed}  {' -> '.join(m.instruction for m in x.accesses)}")
        if tri is not None and not isinstance(tri, str):
            vs_triton.append((x.wavefronts, x.instructions) <= tri[:2])
    print(f"auto better than the vectors as given on {wins} pairs, equal on {ties}")
    if vs_triton:
        print(f"auto at or below Triton's (wavefronts, then instructions) on {sum(vs_triton)} of {len(vs_triton)} pairs")
    if ratios:
        print(f"solve / Triton compile: worst {max(ratios):.2f}x, median {sorted(ratios)[len(ratios) // 2]:.2f}x, "
              f"{sum(r <= 0.5 for r in ratios)} of {len(ratios)} pairs at or under 0.5x")


def compile_time(name, rows, cols, e, a, b) -> float:
    """Seconds of Triton's whole compile of the conversion (triton_pairs.compile_ptx: Gluon source to
    PTX and cubin for sm_90), in a fresh cache so that nothing is reused."""
    import os
    import tempfile

    from triton_pairs import compile_ptx

    with tempfile.TemporaryDirectory() as cache:
        before = os.environ.get("TRITON_CACHE_DIR")
        os.environ["TRITON_CACHE_DIR"] = cache
        try:
            t = time.perf_counter()
            compile_ptx(a, b, rows, cols, e, warps_of(a))
            return time.perf_counter() - t
        finally:
            if before is None:
                os.environ.pop("TRITON_CACHE_DIR")
            else:
                os.environ["TRITON_CACHE_DIR"] = before


def _problem(accs, tile, hw):
    """The plain problem of the pair: each layout read as the plain solve reads it (access/triton_layout)."""
    from swizzle_solver.access.triton_layout import layout_pattern

    pats = []
    for a in accs:
        to_rc = lambda x: (x // tile.cols, x % tile.cols)  # noqa: E731
        bases = {"register": [to_rc(x) for x in a.register], "lane": [to_rc(x) for x in a.lane],
                 "warp": [to_rc(x) for x in a.warp]}
        pats.append(layout_pattern(a.name, bases, (tile.rows, tile.cols), tile, hw, a.name))
    return Problem(tile, hw, tuple(pats))


if __name__ == "__main__":
    main()
