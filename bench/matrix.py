"""batch's [case.matrix] (issue 37): 1,000 configs of one case, time and peak memory, against the
same 1,000 configs written out as plain [[case]] tables (the baseline, in the same run), and against
a matrix of 100 configs (memory must not grow with the configs: a config is made when it is run).

The case: rows (8 .. 128, 5 values) x cols = head_dim (10 values) x dtype (f16, bf16, f32, f8, i32)
x one access (`8x8`, `8x4`, `row`, `4x8`) = 1,000 configs, each a `check` of the plain row-major
layout with the pitch substituted (`expr: r * {head_dim} + c`), so that a failed config asks the
search for the minimal layout (what the table and the JSON name). Memory: a matrix of 200 configs
(f16 and bf16, `8x8` and `8x4`) against the same matrix with a fifth variable that only names the
configs (`copy = [1 .. 5]`: 1,000 configs, each problem five times), whose peaks must be close: the
configs are made one at a time. (A plain file of different problems is not that test: the
largest tiles and the API's cache of solved problems, bounded at 256, set its peak.)

Each run is a whole process (`python -m swizzle_solver batch FILE --json`, output discarded after
checking that the matrix and the plain file print the same documents but for the entries' matrix
and config keys), its peak resident memory read from the process (ru_maxrss of a wrapper that runs
the CLI in-process). The runs alternate (--rounds, default 1) and each setting's time is its least.

    python3 bench/matrix.py [--rounds R]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from itertools import product
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

HEAD = [16, 24, 32, 40, 48, 64, 80, 96, 128, 256]
DTYPE = ["f16", "bf16", "f32", "f8", "i32"]
ACCESS = ["8x8", "8x4", "row", "4x8"]
ROWS = [8, 16, 32, 64, 128]

CASE = '''[[case]]
name = "sweep"
rows = "{rows}"
cols = "{head_dim}"
dtype = "{dtype}"
access = ["{access}"]
check = "expr: r * {head_dim} + c"
'''

RUN = ("import resource, sys; from swizzle_solver.cli import main; code = main(sys.argv[1:]); "
       "sys.stderr.write(f'maxrss {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}\\n'); sys.exit(code)")


def matrix_file(folder: Path, label: str, dtypes: list[str], access: list[str], copies: int = 0) -> Path:
    """A matrix file; ``copies``: a variable used only in the names, so that each problem repeats."""
    path = folder / f"{label}.toml"
    extra = f"copy = {list(range(1, copies + 1))}\n" if copies else ""
    path.write_text(CASE + "[case.matrix]\n" + f"rows = {ROWS}\nhead_dim = {HEAD}\n"
                    f"dtype = {json.dumps(dtypes)}\naccess = {json.dumps(access)}\n" + extra)
    return path


def plain_file(folder: Path) -> Path:
    """The same configs, written out: one [[case]] each, named as the matrix names them."""
    parts = []
    for rows, head, dtype, access in product(ROWS, HEAD, DTYPE, ACCESS):
        name = f"sweep [rows={rows}, head_dim={head}, dtype={dtype}, access={access}]"
        parts.append(f'[[case]]\nname = "{name}"\nrows = {rows}\ncols = {head}\ndtype = "{dtype}"\n'
                     f'access = ["{access}"]\ncheck = "expr: r * {head} + c"\n')
    path = folder / "plain.toml"
    path.write_text("\n".join(parts))
    return path


def run(path: Path) -> tuple[float, int, str]:
    """(wall seconds, peak RSS in KiB, stdout) of one batch --json process."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", RUN, "batch", str(path), "--json"], capture_output=True, text=True,
                          env=env, cwd=ROOT)
    wall = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"batch {path.name} exited {done.returncode}: {done.stderr[-500:]}")
    rss = int(done.stderr.rsplit("maxrss ", 1)[1].split()[0])
    return wall, rss, done.stdout


def stripped(text: str) -> list:
    return [{k: v for k, v in c.items() if k not in ("matrix", "config")} for c in json.loads(text)["cases"]]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        files = {"matrix 1000": matrix_file(folder, "m1000", DTYPE, ACCESS), "plain 1000": plain_file(folder),
                 "matrix 200": matrix_file(folder, "m200", DTYPE[:2], ACCESS[:2]),
                 "200 x 5": matrix_file(folder, "m200x5", DTYPE[:2], ACCESS[:2], copies=5)}
        best: dict[str, tuple[float, int]] = {}
        outputs: dict[str, str] = {}
        run(files["matrix 200"])  # warm-up: bytecode written
        for _ in range(args.rounds):
            for label, path in files.items():
                wall, rss, out = run(path)
                outputs[label] = out
                old = best.get(label)
                best[label] = (min(wall, old[0]) if old else wall, max(rss, old[1]) if old else rss)
        if stripped(outputs["matrix 1000"]) != stripped(outputs["plain 1000"]):
            raise SystemExit("the matrix and the plain file printed different documents")
        configs = {k: len(json.loads(v)["cases"]) for k, v in outputs.items()}
    print(f"load average now: {Path('/proc/loadavg').read_text().split()[0]}")
    for label, (wall, rss) in best.items():
        print(f"{label:12} {configs[label]:5} configs  {wall:6.2f} s  {wall / configs[label] * 1000:6.2f} ms/config  "
              f"peak {rss / 1024:6.1f} MiB")
    m, p, small, copies = best["matrix 1000"], best["plain 1000"], best["matrix 200"], best["200 x 5"]
    print(f"matrix / plain (the same 1,000 configs): time {m[0] / p[0]:.2f}x, peak memory {m[1] / p[1]:.2f}x")
    print(f"the same 200 problems as 1,000 configs / as 200: peak memory {copies[1] / small[1]:.2f}x "
          f"(bounded: close to 1)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
