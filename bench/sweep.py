"""Autotuner sweep: ``swizzle_solver.solve`` called for every candidate config in one process.

The configs (``CONFIGS``, 216): tiles of 64 / 128 / 256 rows x 32 / 64 / 128 columns, in f16, bf16,
f32 and f8, each read by six forms: ldmatrix (``ldmatrix.x4``), a block of one 16-byte vector per
row for 8 rows plus a row read, the row read alone on gfx942, the column read plus the row read,
a warp form (``warp:RxC:1xV``), and the gfx942 instruction ``ds_read_b128`` (64 lanes) plus the row
read on gfx942. Each config is solved as a kernel generator would: ``solve(rows=.., cols=..,
dtype=.., access=[..], arch=..).name``, with keywords built fresh each time.

Per config it times the first solve (nothing of it cached; every other config was solved before
it in the same process, as in a sweep) and the same solve again (what an autotuner pays when it
asks twice: answered from the cache where the API has one). It prints the median, the p99 and the
worst of the first solves, the median of the repeated ones, and the slowest configs.

One sweep runs in a child process per checkout (the checkout first on PYTHONPATH, its tree the
working directory, as in startup.py), so that the checkouts never share a process or a cache;
with ``--baseline-checkout PATH`` (repeatable) the checkouts take turns, round after round
(``--rounds``, default 5), and each config's time is its least over the rounds (as timeit
reports): a burst of load on this shared VM lands on one round of every checkout rather than on
every round of one, and only ever adds time. It prints each
checkout's figures and this tree's over the other's (< 1: faster here), per config (median of the
quotients) and of the summary figures. Targets (issue 26): median <= 1 ms, p99 <= 20 ms, the same
problem again <= 0.05 ms; exit 0 when all three are met, else 1.

Times are process CPU time (``time.process_time``: what the solve itself costs, meaningful on a
loaded machine) and wall time (``time.perf_counter``); the targets are judged on CPU time.

    python3 bench/sweep.py [--rounds N] [--only REGEX] [--baseline-checkout PATH ...] [--json-too]
"""
from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MEDIAN_MS, P99_MS, AGAIN_MS = 1.0, 20.0, 0.05

ELEM_BYTES = {"f16": 2, "bf16": 2, "f32": 4, "f8": 1}


def configs() -> dict[str, dict]:
    """The 216 configs, by name: each the keywords of one solve call."""
    out = {}
    for rows, cols, dtype in itertools.product((64, 128, 256), (32, 64, 128), ELEM_BYTES):
        v = 16 // ELEM_BYTES[dtype]  # elements of one 16-byte vector
        lanes_across = min(8, cols // v)  # a warp's lanes across the columns: its footprint fits the tile
        amd_across = min(4, cols // v)  # and a 64-lane wave's
        forms = {
            "ldmatrix": (["ldmatrix.x4"], "nvidia"),
            "blocks": ([f"8x{v}", "row"], "nvidia"),
            "rows": (["row"], "gfx942"),
            "cols": (["col", "row"], "nvidia"),
            "warp": ([f"warp:{32 // lanes_across}x{lanes_across}:1x{v}"], "nvidia"),
            "ds_read_b128": ([f"ds_read_b128:{64 // amd_across}x{amd_across}", "row"], "gfx942"),
        }
        for form, (access, arch) in forms.items():
            name = f"{rows}x{cols} {dtype} {form}{'' if arch == 'nvidia' else ' ' + arch}"
            out[name] = {"rows": rows, "cols": cols, "dtype": dtype, "access": access, "arch": arch}
    return out


CONFIGS = configs()


def child(names: list[str], json_too: bool) -> None:
    """One sweep in this process: per config (cpu, wall) of the first solve, of the same again, and
    with ``json_too`` of the first ``json()`` of the answer (the report a caller may also want),
    as one JSON line on stdout."""
    from swizzle_solver import solve

    def answer(config: dict) -> str:
        return solve(**_fresh(config)).name

    for warm in ({"rows": 16, "cols": 16, "access": ["row", "col"]}, {"rows": 16, "cols": 16, "dtype": "f16",
                 "access": ["ldmatrix.x1", "warp:8x4:1x4"]}, {"rows": 64, "cols": 16, "dtype": "f32", "arch": "gfx942",
                 "access": ["ds_read_b128:16x4", "row"]}):
        answer(warm)  # imports and first-use set-up (a tile not in the sweep, each kind of form), outside every timing
    from swizzle_solver import api

    hits = getattr(api, "cache_info", lambda: {"hits": 0})
    out: dict[str, dict] = {}
    for name in names:
        config = CONFIGS[name]
        before = hits()["hits"]
        first = _timed(answer, config)
        equivalent = hits()["hits"] > before
        entry = {"first": first, "again": _timed(answer, config), "equivalent": equivalent}
        if json_too:
            entry["json"] = _timed(lambda result: result.json(), solve(**_fresh(config)))
        out[name] = entry
    import swizzle_solver

    print(json.dumps({"package": swizzle_solver.__file__, "times": out}))


def _fresh(config: dict) -> dict:
    """The keywords as a generator builds them for each call: new lists, nothing shared."""
    return {**config, "access": list(config["access"])}


def _timed(fn, arg) -> tuple[float, float]:
    cpu, wall = time.process_time(), time.perf_counter()
    fn(arg)
    return time.process_time() - cpu, time.perf_counter() - wall


ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
ENV["PYTHONPYCACHEPREFIX"] = os.path.join(tempfile.gettempdir(), "swizzle-solve-bench-pycache")
ENV["OPENBLAS_NUM_THREADS"] = "1"  # numpy's BLAS threads spin: noise, the same for every checkout


def run_child(tree: Path, names: list[str], json_too: bool) -> dict:
    env = {**ENV, "PYTHONPATH": str(tree)}
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", "--only-names", json.dumps(names)]
    if json_too:
        cmd.append("--json-too")
    done = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"the sweep failed in {tree}:\n{done.stderr[-2000:]}")
    doc = json.loads(done.stdout.strip().splitlines()[-1])
    if not Path(doc["package"]).resolve().is_relative_to(tree):
        raise SystemExit(f"{tree}: the child imported {doc['package']}, not the checkout's package")
    return doc["times"]


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile, nearest rank (p99 of 216: the third slowest)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))]


def summary(times: dict[str, dict], clock: int) -> dict[str, float]:
    """Milliseconds: median, p99 and worst of the first solves; median of the repeated ones."""
    first = [t["first"][clock] * 1e3 for t in times.values()]
    again = [t["again"][clock] * 1e3 for t in times.values()]
    out = {"median": statistics.median(first), "p99": percentile(first, 99), "worst": max(first),
           "again": statistics.median(again), "again_p99": percentile(again, 99)}
    if all("json" in t for t in times.values()):
        out["json"] = statistics.median(t["json"][clock] * 1e3 for t in times.values())
    return out


def merged(rounds: list[dict]) -> dict[str, dict]:
    """Per config and measurement, the least over rounds of (cpu, wall): what the solve costs, as
    timeit reports it; the load of this shared VM only ever adds to a run (a round's burst of other
    work shows in that round's times, not in the least)."""
    out: dict[str, dict] = {}
    for name in rounds[0]:
        out[name] = {key: tuple(min(r[name][key][i] for r in rounds) for i in (0, 1))
                     for key in rounds[0][name] if key != "equivalent"}
        out[name]["equivalent"] = rounds[0][name].get("equivalent", False)
    return out


def line(label: str, s: dict[str, float]) -> str:
    extra = f", json() {s['json']:.3f}" if "json" in s else ""
    return (f"{label}: median {s['median']:.3f} ms, p99 {s['p99']:.2f} ms, worst {s['worst']:.1f} ms; "
            f"again: median {s['again']:.4f} ms (p99 {s['again_p99']:.4f}){extra}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--only", default=None, help="only configs whose name matches this regular expression")
    ap.add_argument("--baseline-checkout", type=Path, action="append", default=[], metavar="PATH",
                    help="another checkout swept in the same run, for before/after")
    ap.add_argument("--json-too", action="store_true", help="also time the first json() of each answer")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--only-names", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(json.loads(args.only_names), args.json_too)
        return 0
    names = [n for n in CONFIGS if args.only is None or re.search(args.only, n)]
    trees = [ROOT] + [p.resolve() for p in args.baseline_checkout]
    rounds: list[list[dict]] = [[] for _ in trees]
    for _ in range(args.rounds):  # the checkouts take turns
        for tree, its in zip(trees, rounds):
            its.append(run_child(tree, names, args.json_too))
    times = [merged(r) for r in rounds]
    CPU, WALL = 0, 1
    here = summary(times[0], CPU)
    print(f"{len(names)} configs, {args.rounds} rounds, CPU time (wall in brackets):")
    print(line(f"  {ROOT.name} (this tree)", here) + f"  [wall median {summary(times[0], WALL)['median']:.3f} ms]")
    for tree, its in zip(trees[1:], times[1:]):
        there = summary(its, CPU)
        print(line(f"  {tree.name}", there) + f"  [wall median {summary(its, WALL)['median']:.3f} ms]")
        per = [times[0][n]["first"][CPU] / its[n]["first"][CPU] for n in names if its[n]["first"][CPU] > 0]
        print(f"  here / {tree.name}: median {here['median'] / there['median']:.3f}, p99 {here['p99'] / there['p99']:.3f}, "
              f"again {here['again'] / there['again']:.4f}; per config (first solve) median "
              f"{statistics.median(per):.3f}, from {min(per):.3f} to {max(per):.3f}")
    new = {n: t for n, t in times[0].items() if not t["equivalent"]}
    if len(new) < len(names):  # configs whose first solve found an equivalent problem's answer (f16 and bf16)
        print(f"  {ROOT.name}, the {len(new)} configs whose problem was new to the process (the other "
              f"{len(names) - len(new)} equivalent to one before, answered from the cache): median "
              f"{statistics.median(t['first'][CPU] * 1e3 for t in new.values()):.3f} ms, "
              f"p99 {percentile([t['first'][CPU] * 1e3 for t in new.values()], 99):.2f} ms")
    slowest = sorted(names, key=lambda n: -times[0][n]["first"][CPU])[:8]
    print("slowest here: " + "; ".join(f"{n} {times[0][n]['first'][CPU] * 1e3:.1f} ms" for n in slowest))
    ok = here["median"] <= MEDIAN_MS and here["p99"] <= P99_MS and here["again"] <= AGAIN_MS
    print(f"targets: median <= {MEDIAN_MS} ms, p99 <= {P99_MS} ms, again <= {AGAIN_MS} ms: {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
