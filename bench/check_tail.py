"""A failing --check where no layout is conflict-free: the search for the layout to use instead.

The reproducer of issue 26: a 64 x 64 f32 tile on gfx942 read by one ds_read_b32 whose 64 lanes
start at random elements (a --phases file with one [[instruction]], ``lanes_file``, one per seed),
checked with ``--check none``. No layout serves 32 random lanes of a phase in 32 banks, and the
check names no alternative; before the span condition (balance.py) z3 spent its whole budget on
the linear family to say so (13-21 s). Each seed is run as a whole process (``--quiet``), each run
right after a run of the import floor ``python -c "import typer, rich, numpy"``, CPU time, paired
as in startup.py. Target: every ratio <= 10x.

``--baseline-checkout PATH`` (repeatable): the same runs of another checkout, paired with floor
runs of their own, and this tree's time over that one's.

    python3 bench/check_tail.py [--seeds N] [--runs N] [--baseline-checkout PATH ...]
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from startup import timed  # noqa: E402  (the same environment and clocks as startup.py)

TARGET = 10.0
FLOOR = [sys.executable, "-c", "import typer, rich, numpy"]
ROWS = COLS = 64


def lanes_file(seed: int, rows: int = ROWS, cols: int = COLS) -> str:
    """The --phases file: one ds_read_b32 of 64 lanes, each at a random element (seeded)."""
    rng = random.Random(seed)
    lanes = [[rng.randrange(rows), rng.randrange(cols)] for _ in range(64)]
    return (f'[[instruction]]\nname = "random ds_read_b32 lanes, seed {seed}"\nop = "ds_read_b32"\n'
            f"lanes = {lanes}\n")


def command(path: Path) -> list[str]:
    return [sys.executable, "-m", "swizzle_solver", "--arch", "gfx942", "--rows", str(ROWS), "--cols", str(COLS),
            "--dtype", "f32", "--phases", str(path), "--check", "none", "--quiet"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--runs", type=int, default=3, help="paired runs per seed (median)")
    ap.add_argument("--baseline-checkout", type=Path, action="append", default=[], metavar="PATH")
    args = ap.parse_args()
    others = [p.resolve() for p in args.baseline_checkout]
    folder = Path(tempfile.mkdtemp(prefix="check-tail-"))
    timed(FLOOR)
    worst = 0.0
    for seed in range(1, args.seeds + 1):
        path = folder / f"random-{seed}.toml"
        path.write_text(lanes_file(seed))
        cmd = command(path)
        timed(cmd)  # warm-up: the bytecode cache
        here, theirs = [], [[] for _ in others]
        seconds = []
        for _ in range(args.runs):
            floor = timed(FLOOR)[1]
            cpu = timed(cmd)[1]
            here.append(cpu / floor)
            seconds.append(cpu)
            for tree, its in zip(others, theirs):
                floor = timed(FLOOR)[1]
                its.append(timed(cmd, tree)[1] / floor)
        ratio = statistics.median(here)
        worst = max(worst, ratio)
        beside = "".join(f"  | {tree.name}: {statistics.median(its):.1f}x, here/there "
                         f"{statistics.median(h / t for h, t in zip(here, its)):.3f}"
                         for tree, its in zip(others, theirs))
        print(f"seed {seed}: {ratio:6.2f}x the import floor ({statistics.median(seconds):.2f} s CPU){beside}", flush=True)
    ok = worst <= TARGET
    print(f"worst {worst:.2f}x (target <= {TARGET}x): {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
