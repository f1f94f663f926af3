"""batch --jobs (issue 26): the wall time of `swizzle-solve batch` over a few hundred cases with
--jobs 1 and with --jobs N (default 2), in the same run, and their ratio. Target: <= 0.75 on 2 cores.

The cases: every case of examples.toml, each also with its tile 2, 3, 4, 6 and 8 times as tall (distinct
problems, so that no process answers one from the API's cache of solved problems), expectations
dropped (a taller tile may have another answer: the bench measures time, not answers), keeping
those that compile; written to a temporary folder beside copies of the files the cases read
(phases/, examples/). Each run is a whole process (`python -m swizzle_solver batch FILE --json`,
the checkout first on PYTHONPATH, its bytecode cached as an installed package's is: a warm-up run
writes it), its output discarded after checking that both runs printed the same bytes. The runs alternate (--rounds, default 2) and each setting's time is its least, so a
burst of load on this shared machine lands on one round rather than on one setting. The machine's
load average is printed before and after, and a calibration: two CPU-bound processes at once over
the same one after the other (0.5 when two cores are free). Linux's autogroup scheduling shares the
CPUs between sessions, not processes: while other sessions keep the cores busy, this run gets the
same CPU with two processes as with one, and no ratio below the calibration's is possible.

    python3 bench/batch_jobs.py [--jobs N] [--rounds R] [--variants 1,2,3,4,6,8]
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = 0.75


def toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    raise TypeError(v)


def build_cases(folder: Path, variants: list[int]) -> int:
    """Write folder/cases.toml (and copy the files the cases read); the number of cases."""
    sys.path.insert(0, str(ROOT))
    from swizzle_solver.cases import load_cases
    from swizzle_solver.model import InputError

    for sub in ("phases", "examples"):
        if (ROOT / sub).is_dir():
            shutil.copytree(ROOT / sub, folder / sub)
    cases = tomllib.loads((ROOT / "examples.toml").read_text())["case"]
    kept = []
    for k in variants:
        for c in cases:
            t = {key: v for key, v in c.items() if key not in ("expect", "expect_status", "stage")}
            t["name"] = f"{c['name']} (rows x{k})"
            t["rows"] = c["rows"] * k
            text = "[[case]]\n" + "".join(f"{key} = {toml_value(v)}\n" for key, v in t.items())
            probe = folder / "probe.toml"
            probe.write_text(text)
            try:
                load_cases(str(probe))
            except InputError:
                continue
            kept.append(text)
    (folder / "probe.toml").unlink(missing_ok=True)
    (folder / "cases.toml").write_text("\n".join(kept))
    return len(kept)


def run(folder: Path, jobs: int) -> tuple[float, bytes, int]:
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
           "PYTHONPYCACHEPREFIX": str(folder / "pycache")}  # bytecode cached, as an installed package has it
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "swizzle_solver", "batch", str(folder / "cases.toml"), "--json",
                           "--jobs", str(jobs)], capture_output=True, env=env, cwd=ROOT)
    return time.perf_counter() - start, done.stdout, done.returncode


BURN = "s = 0\nfor k in range(6_000_000):\n    s += k"


def calibration() -> float:
    """Wall time of two CPU-bound processes at once over the same two one after the other: 0.5 when
    two cores are free for this run, 1.0 when the machine gives it no more than one. (Linux's
    autogroup scheduling, sched_autogroup_enabled, shares the CPUs between sessions, however many
    processes each runs: on a machine other sessions keep busy, a parallel run gets no more CPU.)"""
    def burn() -> subprocess.Popen:
        return subprocess.Popen([sys.executable, "-c", BURN])

    start = time.perf_counter()
    for _ in range(2):
        burn().wait()
    serial = time.perf_counter() - start
    start = time.perf_counter()
    both = [burn(), burn()]
    for p in both:
        p.wait()
    return (time.perf_counter() - start) / serial


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--variants", default="1,2,3,4,6,8", help="tile heights, as multiples of each example's")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        count = build_cases(folder, [int(x) for x in args.variants.split(",")])
        print(f"{count} cases (examples.toml, rows x {args.variants}); {os.cpu_count()} CPUs; "
              f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        run(folder, args.jobs)  # warm-up: the bytecode written, the files in the page cache
        best = {1: float("inf"), args.jobs: float("inf")}
        outputs = {}
        for r in range(args.rounds):
            for jobs in (1, args.jobs):
                seconds, out, code = run(folder, jobs)
                outputs.setdefault(jobs, (out, code))
                if (out, code) != outputs[1]:
                    print(f"--jobs {jobs} printed other bytes than --jobs 1 (exit {code})")
                    return 2
                best[jobs] = min(best[jobs], seconds)
                print(f"  round {r + 1}: --jobs {jobs}: {seconds:.2f} s wall")
        ratio = best[args.jobs] / best[1]
        calibrated = calibration()
        print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; calibration: two CPU-bound "
              f"processes at once take {calibrated:.2f} of the time of the same one after the other "
              f"(0.50: two free cores; 1.00: no more CPU for a second process)")
        print(f"--jobs 1: {best[1]:.2f} s, --jobs {args.jobs}: {best[args.jobs]:.2f} s (least of {args.rounds}); "
              f"ratio {ratio:.2f} (target <= {TARGET}), {ratio / calibrated:.2f} of the calibration's; "
              f"the same output: yes")
        return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
