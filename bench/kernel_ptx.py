"""`swizzle-solve kernel` on an SGEMM-class kernel (issue 32, "Speed and limits"): the whole report
in at most 2 s.

The kernel: tests/data/kernels/sgemm.cu (SGEMM_CUDA's 2-D block tiling shape: 128 x 128 x 8 tiles,
256 threads, 8 x 8 results per thread), compiled once with `nvcc -ptx -lineinfo -arch=sm_90`
(tests/data/kernels/sgemm.ptx), run with K = 32, so that its K loop is followed 4 times.

Each run is a whole process, `python -m swizzle_solver kernel sgemm.ptx --param 2=32 --json`,
paired with a run of the baseline `python -c "import typer, rich, numpy"` just before it; printed:
the median wall and CPU (user + system, getrusage) time of each, and the median of the per-pair
ratios. Target: the kernel's median wall time <= 2 s.

    python bench/kernel_ptx.py [--runs 5]
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PTX = ROOT / "tests" / "data" / "kernels" / "sgemm.ptx"
KERNEL = [sys.executable, "-m", "swizzle_solver", "kernel", str(PTX), "--kernel", "sgemm2d", "--param", "2=32", "--json"]
BASELINE = [sys.executable, "-c", "import typer, rich, numpy"]


def timed(argv: list[str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          env={**os.environ, "OPENBLAS_NUM_THREADS": "1"})
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        sys.exit(f"{' '.join(argv)} failed: {done.stderr.decode()}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    timed(BASELINE), timed(KERNEL)  # warm-up: bytecode caches
    base, kern = [], []
    for _ in range(runs):
        base.append(timed(BASELINE))
        kern.append(timed(KERNEL))
    wall = statistics.median(k[0] for k in kern)
    cpu = statistics.median(k[1] for k in kern)
    ratio = statistics.median(k[0] / b[0] for k, b in zip(kern, base))
    print(f"baseline (import typer, rich, numpy): wall {statistics.median(b[0] for b in base):.3f} s, "
          f"cpu {statistics.median(b[1] for b in base):.3f} s")
    print(f"kernel sgemm.ptx (256 threads, K loop 4 times): wall {wall:.3f} s, cpu {cpu:.3f} s, "
          f"{ratio:.2f}x the baseline (median of {runs} pairs)")
    ok = wall <= 2.0
    print(f"{'PASS' if ok else 'FAIL'}: whole report in at most 2 s")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
