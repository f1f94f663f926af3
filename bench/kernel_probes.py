"""`swizzle_solver.kernel()` on the 65 recorded probe PTX files (issue 33 item 6): CPU time and the
reports' hash, this tree against another checkout's in the same run.

The files: ``tests/data/gpu/ptx/**/*.ptx`` (what tests/test_kernel_measured.py reads), each read
by ``kernel(text, block=(32, 1, 1), cta=(0, 0, 0))``: every kernel of the file, one CTA of one warp.
A child process per checkout runs them all (the checkout first on PYTHONPATH, its tree the working
directory, as in sweep.py) and prints the CPU time (``time.process_time``) and wall time of the 65
calls, after one warm-up call outside the timing (imports, first-use set-up), and the sha256 of
the JSON of every report (``to_json()``, keys sorted, in file order): the same hash is the same
reports, byte for byte.

``--baseline-checkout PATH`` (e.g. ``git worktree add --detach /tmp/wt-before <commit>``): its
children take turns with this tree's, round after round (``--rounds``, default 3); each checkout's
time is its least over the rounds (a burst of load on this shared VM lands on one round, and only
ever adds time). Prints each checkout's CPU and wall, this tree's speed-up over it (its CPU / this
tree's), and whether the hashes agree; exit 1 where they differ.

    python3 bench/kernel_probes.py [--rounds N] [--baseline-checkout PATH]
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PTX = Path("tests") / "data" / "gpu" / "ptx"


def files(tree: Path) -> list[Path]:
    return sorted((tree / PTX).rglob("*.ptx"))


def child() -> None:
    """The 65 files through ``kernel()`` in this process: one JSON line on stdout."""
    import swizzle_solver

    texts = [p.read_text() for p in files(Path.cwd())]
    swizzle_solver.kernel(texts[0], block=(32, 1, 1), cta=(0, 0, 0))  # warm-up, not timed
    digest = hashlib.sha256()
    cpu, wall = time.process_time(), time.perf_counter()
    reports = [swizzle_solver.kernel(t, block=(32, 1, 1), cta=(0, 0, 0)) for t in texts]
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    for r in reports:
        digest.update(json.dumps(r.to_json(), sort_keys=True).encode())
    print(json.dumps({"package": swizzle_solver.__file__, "files": len(texts), "cpu": cpu, "wall": wall,
                      "sha256": digest.hexdigest()}))


ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
ENV["PYTHONPYCACHEPREFIX"] = os.path.join(tempfile.gettempdir(), "swizzle-solve-bench-pycache")
ENV["OPENBLAS_NUM_THREADS"] = "1"


def run_child(tree: Path) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child"]
    done = subprocess.run(cmd, cwd=tree, env={**ENV, "PYTHONPATH": str(tree)}, capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        raise SystemExit(f"kernel() failed in {tree}:\n{done.stderr[-2000:]}")
    doc = json.loads(done.stdout.strip().splitlines()[-1])
    if not Path(doc["package"]).resolve().is_relative_to(tree):
        raise SystemExit(f"{tree}: the child imported {doc['package']}, not the checkout's package")
    return doc


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--baseline-checkout", type=Path, default=None, metavar="PATH",
                    help="another checkout run in the same rounds, for before/after")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child()
        return 0
    trees = [ROOT] + ([args.baseline_checkout.resolve()] if args.baseline_checkout else [])
    runs: list[list[dict]] = [[] for _ in trees]
    for _ in range(args.rounds):  # the checkouts take turns
        for tree, its in zip(trees, runs):
            its.append(run_child(tree))
    best = [{"cpu": min(r["cpu"] for r in its), "wall": min(r["wall"] for r in its), "sha256": its[0]["sha256"],
             "files": its[0]["files"], "same": len({r["sha256"] for r in its}) == 1} for its in runs]
    ok = all(b["same"] for b in best)
    print(f"kernel() over {best[0]['files']} recorded probe files, least of {args.rounds} rounds:")
    for tree, b in zip(trees, best):
        print(f"  {tree.name}: cpu {b['cpu']:.2f} s, wall {b['wall']:.2f} s, reports sha256 {b['sha256'][:16]}"
              f"{'' if b['same'] else ' (differs between rounds!)'}")
    if len(trees) > 1:
        here, there = best
        same = here["sha256"] == there["sha256"]
        ok = ok and same
        print(f"  {trees[1].name} / {ROOT.name}: cpu {there['cpu'] / here['cpu']:.2f}x, wall "
              f"{there['wall'] / here['wall']:.2f}x faster here; reports {'identical' if same else 'DIFFER'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
