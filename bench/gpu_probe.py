"""The probes of issue 25's gpu tier, prepared on one machine and run on another (docs/hardware.md).

    python3 bench/gpu_probe.py gen OUT                  # here (z3 installed): one probe folder per case
    python3 bench/gpu_probe.py run OUT [--results DIR]  # on the GPU: build all, run.sh each, probe-compare each

`gen` writes OUT/<case>/ (swizzle-solve probe --target cuda) for every case of ``cases()``, and
OUT/cases.json. `run` needs only nvcc, ncu, bash and python3 with numpy, typer and rich (no z3, no
network, the package not installed: probe-compare runs from this checkout with PYTHONPATH): it builds
every probe in parallel (nvcc, --jobs), runs each probe's run.sh one after the other (the GPU and its
profiler: one at a time), each under a timeout and in its own process group (a probe that fails or
hangs stops only itself), then runs `python3 -m swizzle_solver probe-compare --json` on each. It
writes into the results folder (default OUT/results): summary.txt (the table it prints), summary.json
(with each probe's case arguments, layout, probe.cu hash and the calibration counters measured beside
the compared pair, and ``generated``: the commit that wrote the probes), and per case the raw
material: ncu.csv (rocprof.csv), probe.out, device.txt, prediction.json, probe.cu, the logs and the
comparison. Exit 0 when every probe was measured and agrees with the model, 1 otherwise.
``run --build-only`` builds every probe and stops (the dry run of a device run, no GPU).

The cases (``cases()``; ``gen --amd gfx950``: ``amd_cases``, every table cell marked unverified that a
kernel can issue, and that arch's worked examples, run with rocprofv3): the worked examples of examples.toml on the real NVIDIA bank model (the
answer, and the unswizzled tile where that is another layout: the model's conflict counts are
checked too); every ldmatrix / stmatrix form (.x1 .x2 .x4, .trans) under the 128B swizzle and
unswizzled; every NVIDIA [[instruction]] op (lds8 .. lds128, sts8 .. sts128) with lanes along a row,
down a column (conflicts) and all on one address (broadcast), unswizzled and under Swizzle<3,4,3>;
paired loads (lanes repeating in pairs, served two phases at once: phases/paired-loads.toml's
[[instruction]]s and the broadcasting linear layout examples/broadcast-rows-f32.json), unswizzled
(2-way conflicts in each group of 16 lanes) and under the swizzle that removes them.
"""
from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import os
import re
import signal
import subprocess
import sys
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NVIDIA_OPS = [f"{d}{bits}" for d in ("lds", "sts") for bits in (8, 16, 32, 64, 128)]


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:48].strip("-")


def example_cases() -> list[dict]:
    """The worked examples of examples.toml that run on NVIDIA's own banks (32 x 4 B): the answer,
    and the unswizzled tile where the answer is another layout."""
    doc = tomllib.loads((ROOT / "examples.toml").read_text())
    out = []
    for i, case in enumerate(doc["case"]):
        # (probe writes no column-major tile, --order col, yet)
        if case.get("arch", "nvidia") != "nvidia" or "banks" in case or "bank_bytes" in case or "order" in case:
            continue
        args = ["--rows", str(case["rows"]), "--cols", str(case["cols"])]
        if "row_length" in case:
            args += ["--row-length", str(case["row_length"])]
        if "dtype" in case:
            args += ["--dtype", case["dtype"]]
        if "elem_bytes" in case:
            args += ["--elem-bytes", str(case["elem_bytes"])]
        for a in case.get("access", []):
            args += ["--access", a]
        for p in case.get("phases", []):
            args += ["--phases", str(ROOT / p)]
        if case.get("keep_pitch"):
            args.append("--keep-pitch")
        for t in case.get("for", []):
            args += ["--for", t]
        name = f"ex{i + 1:02d} {case['name']}"
        if "check" in case:
            out.append({"name": name, "args": args + ["--check", case["check"]]})
            continue
        out.append({"name": name, "args": args})
        if case.get("expect") != "none":
            out.append({"name": f"ex{i + 1:02d} unswizzled: {case['name']}", "args": args + ["--check", "none"]})
    return out


MATRIX_FORMS = [f"{op}.x{k}{t}" for op in ("ldmatrix", "stmatrix") for k in (1, 2, 4) for t in ("", ".trans")]


def matrix_cases() -> list[dict]:
    base = ["--rows", "64", "--cols", "64", "--dtype", "f16"] + [x for f in MATRIX_FORMS for x in ("--access", f)]
    return [{"name": "ldmatrix and stmatrix forms, f16 64x64, Swizzle<3,3,3>", "args": base + ["--check", "Swizzle<3,3,3>"]},
            {"name": "ldmatrix and stmatrix forms, f16 64x64, unswizzled", "args": base + ["--check", "none"]},
            {"name": "ldmatrix.x4 and stmatrix.x4, f16 64x32 (64 B rows), unswizzled",
             "args": ["--rows", "64", "--cols", "32", "--dtype", "f16", "--access", "ldmatrix.x4",
                      "--access", "stmatrix.x4", "--check", "none"]}]


def instruction_file(path: Path) -> Path:
    """A --phases file with three [[instruction]] tables per NVIDIA op over a 64 x 64 i8 tile (64-byte
    rows): lanes along rows (consecutive vectors), down column 0 (one vector per row), and all at (0, 0)."""
    lines = ["# [[instruction]] tables of every NVIDIA op (bench/gpu_probe.py): 64 x 64 i8 tile, 64-byte rows"]
    for op in NVIDIA_OPS:
        width = int(op[3:]) // 8
        shapes = {"along rows": [divmod(lane * width, 64) for lane in range(32)],
                  "down a column": [(lane, 0) for lane in range(32)],
                  "one address": [(0, 0)] * 32}
        for what, lanes in shapes.items():
            lines += ["", "[[instruction]]", f'name = "{op} {what}"', f'op = "{op}"',
                      "lanes = [" + ", ".join(f"[{r}, {c}]" for r, c in lanes) + "]"]
    path.write_text("\n".join(lines) + "\n")
    return path


def instruction_cases(phases: Path) -> list[dict]:
    base = ["--rows", "64", "--cols", "64", "--dtype", "i8", "--phases", str(phases)]
    return [{"name": "every NVIDIA [[instruction]] op, i8 64x64, unswizzled", "args": base + ["--check", "none"]},
            {"name": "every NVIDIA [[instruction]] op, i8 64x64, Swizzle<3,4,3>",
             "args": base + ["--check", "Swizzle<3,4,3>"]}]


def amd_cases(arch: str) -> list[dict]:
    """On an AMD GPU: every (arch, instruction) cell that no vendor document or measurement backs
    (confidence without D or M: inferred, compiler-asserted, recomputed or disputed; the st64 forms are
    their ds_read2 / ds_write2 cells with scaled offsets, and are left out), down a column of an
    unswizzled u8 tile (the cell's phases decide the conflicts, so the counter tells readings apart),
    and the worked examples of that arch."""
    sys.path.insert(0, str(ROOT))
    from swizzle_solver.hardware import target

    hw = target(arch)
    if hw is None or hw.language != "HIP":
        sys.exit(f"gpu_probe gen --amd: {arch!r} is not an AMD --arch (gfx90a, gfx942, gfx950, ...)")
    wave = hw.wave_lanes
    out = []
    for rule in hw.rules:
        tags = set(rule.confidence.split("+"))
        if tags & {"D", "M"} or "st64" in rule.op:
            continue
        cols = "96" if rule.lane_bytes == 12 else "64"
        tile = ["--arch", hw.name, "--rows", "64", "--cols", cols, "--dtype", "u8"]
        out.append({"name": f"{hw.name} {rule.op} ({rule.confidence}) down a column, unswizzled",
                    "args": tile + ["--access", f"{rule.op}:{wave}x1", "--check", "none"], "target": "hip"})
    for nbytes, op in hw.mfma_reads:  # an MFMA read as counted (ds_read of its width) and as compilers issue it
        dtype = {8: "e4m3"}.get(nbytes, "f16")
        tile = ["--arch", hw.name, "--rows", "64", "--cols", "64", "--dtype", dtype, "--check", "none"]
        out.append({"name": f"{hw.name} mfma-a:16x16x32 {dtype} as ds_read_b{8 * nbytes} and as {op} "
                            f"({hw.rule(op).confidence}), unswizzled",
                    "args": tile + ["--access", "mfma-a:16x16x32", "--access", f"mfma-a:16x16x32:{op}"],
                    "target": "hip"})
    doc = tomllib.loads((ROOT / "examples.toml").read_text())
    for i, case in enumerate(doc["case"]):
        if case.get("arch") == hw.name:
            args = ["--arch", hw.name, "--rows", str(case["rows"]), "--cols", str(case["cols"]), "--dtype",
                    case["dtype"]] + (["--row-length", str(case["row_length"])] if "row_length" in case else [])
            args += [x for a in case["access"] for x in ("--access", a)] + (["--keep-pitch"] if case.get("keep_pitch")
                                                                             else [])
            out.append({"name": f"ex{i + 1:02d} {case['name']}", "args": args, "target": "hip"})
    return out


def paired_cases() -> list[dict]:
    """Paired loads (docs/hardware.md, "Paired loads") in the forms that issue them: two [[instruction]]s
    (A operand: 8 lanes per float4, paired; B operand: partners n ^ 8, not paired) and a linear layout
    with broadcast lane bits, on a 32 x 32 f32 tile, unswizzled and under Swizzle<1,4,1>."""
    base = ["--rows", "32", "--cols", "32", "--dtype", "f32", "--phases", str(ROOT / "phases" / "paired-loads.toml"),
            "--linear-layout", str(ROOT / "examples" / "broadcast-rows-f32.json")]
    return [{"name": "paired loads, f32 32x32, unswizzled", "args": base + ["--check", "none"]},
            {"name": "paired loads, f32 32x32, Swizzle<1,4,1>", "args": base + ["--check", "Swizzle<1,4,1>"]}]


def cases(phases: Path, amd: str | None = None) -> list[dict]:
    found = (amd_cases(amd) if amd else
             example_cases() + matrix_cases() + instruction_cases(phases) + paired_cases())
    for i, c in enumerate(found):
        c["slug"] = f"{i + 1:02d}-{_slug(c['name'])}"
    return found


# --- gen ------------------------------------------------------------------------------------------


def gen(out: Path, only: str | None, amd: str | None = None) -> int:
    sys.path.insert(0, str(ROOT))
    out.mkdir(parents=True, exist_ok=True)
    if any(out.iterdir()):
        sys.exit(f"gpu_probe gen: {out} is not empty: give a new or empty folder")
    todo = [c for c in cases(instruction_file(out / "instructions.toml"), amd) if not only or re.search(only, c["name"])]
    return write_cases(out, todo)


def write_cases(out: Path, todo: list[dict], module: str = "bench/gpu_probe.py") -> int:
    """Write each case's probe (``swizzle-solve probe ARGS --target cuda|hip -o OUT/<slug>``),
    OUT/cases.json, which `run` reads, and OUT/generated.json (``module``, whose ``cases()`` made them,
    and the commit); 1 if one failed. Also bench/gpu_broadcast.py's and gpu_discriminate.py's writer."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from swizzle_solver.cli import main

    failed = 0
    for c in todo:
        t = time.perf_counter()
        stdout, stderr = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            code = main(["probe", *c["args"], "--target", c.get("target", "cuda"), "-o", str(out / c["slug"])])
        c["written"] = code == 0
        c["error"] = stderr.getvalue().strip() if code else ""
        failed += code != 0
        print(f"{'wrote' if code == 0 else 'FAILED'} {c['slug']} ({time.perf_counter() - t:.1f} s)"
              + (f": {c['error']}" if code else ""))
    (out / "cases.json").write_text(json.dumps(todo, indent=2) + "\n")
    (out / GENERATED).write_text(json.dumps({"cases": module, **provenance()}, indent=2) + "\n")
    print(f"gpu_probe gen: {len(todo) - failed} of {len(todo)} probes in {out}; on the GPU machine, from the "
          f"checkout: python3 bench/gpu_probe.py run {out}")
    return 1 if failed else 0


GENERATED = "generated.json"  # the commit that wrote a set's probes (the GPU machine may have no .git)


def provenance() -> dict:
    """What wrote the probes: the checkout's commit and whether it had uncommitted changes."""
    def git(*args: str) -> str:
        try:
            done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            return ""
        return done.stdout.strip() if done.returncode == 0 else ""

    commit = git("rev-parse", "HEAD")
    return {"commit": commit or None, "dirty": bool(git("status", "--porcelain", "--", "swizzle_solver", "bench"))
            if commit else None, "date": time.strftime("%Y-%m-%d", time.gmtime())}


def sha256(path: Path) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None


# --- run ------------------------------------------------------------------------------------------


def sh(command: list[str], cwd: Path, timeout: float, log: Path, env: dict | None = None) -> tuple[int, float]:
    """Run ``command`` in its own process group (killed whole on timeout: 124); (exit status, seconds)."""
    t = time.perf_counter()
    with open(log, "w") as f:
        p = subprocess.Popen(command, cwd=cwd, stdout=f, stderr=subprocess.STDOUT, start_new_session=True,
                             env=env)
        try:
            code = p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            f.write(f"\ngpu_probe: killed after {timeout:.0f} s\n")
            code = 124
    return code, time.perf_counter() - t


def _copy(src: Path, dst: Path) -> None:
    if src.is_file():
        dst.write_bytes(src.read_bytes())


def run(out: Path, results: Path, jobs: int, timeout: float, only: str | None, budget: float | None = None,
        build_only: bool = False) -> int:
    started = time.perf_counter()
    todo = [c for c in json.loads((out / "cases.json").read_text())
            if c.get("written") and (not only or re.search(only, c["name"]))]
    results.mkdir(parents=True, exist_ok=True)
    for c in todo:
        (results / c["slug"]).mkdir(exist_ok=True)
    print(f"gpu_probe run: building {len(todo)} probes ({jobs} at a time)", flush=True)
    with ThreadPoolExecutor(jobs) as pool:
        builds = list(pool.map(lambda c: sh(["bash", "build.sh"], out / c["slug"], timeout,
                                            results / c["slug"] / "build.log"), todo))
    if build_only:  # the dry run: every kernel compiles (nvcc for the probes' arch), nothing runs
        failed = [c["slug"] for c, (code, _) in zip(todo, builds) if code]
        print(f"gpu_probe run --build-only: {len(todo) - len(failed)} of {len(todo)} probes built"
              + (f"; FAILED: {', '.join(failed)} (see {results}/<slug>/build.log)" if failed else ""))
        return 1 if failed else 0
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    generated = json.loads((out / GENERATED).read_text()) if (out / GENERATED).is_file() else {}
    rows = []
    for c, (built, build_s) in zip(todo, builds):
        folder, keep = out / c["slug"], results / c["slug"]
        row = {"slug": c["slug"], "name": c["name"], "args": c["args"], "build": built, "build_s": round(build_s, 1),
               "probe_sha256": sha256(folder / "probe.cu") or sha256(folder / "probe.hip")}
        with contextlib.suppress(OSError, ValueError, KeyError):
            row["layout"] = json.loads((folder / "prediction.json").read_text())["layout"]["name"]
        if budget is not None and time.perf_counter() - started > budget:
            row["run"] = "budget"  # not started: the time asked for is spent (run again with --only)
        elif built == 0:
            code, seconds = sh(["bash", "run.sh"], folder, timeout, keep / "run.log")
            row.update(run=code, run_s=round(seconds, 1))
            if code == 0:
                compared, _ = sh([sys.executable, "-m", "swizzle_solver", "probe-compare", "--json", str(folder)],
                                 ROOT, 120, keep / "compare.json", env)
                row["compare"] = compared
                sh([sys.executable, "-m", "swizzle_solver", "probe-compare", str(folder)], ROOT, 120,
                   keep / "compare.txt", env)
                with contextlib.suppress(ValueError):
                    row["kernels"] = _kernels(json.loads((keep / "compare.json").read_text()))
        # the raw material beside the summary: what the profiler and the probe printed, and what was run
        for name in ("prediction.json", "ncu.csv", "rocprof.csv", "probe.out", "device.txt", "ncu.stderr",
                     "rocprof.stderr", "probe.cu", "probe.hip"):
            _copy(folder / name, keep / name)
        rows.append(row)
        print(f"  {c['slug']}: {_verdict(row)}", flush=True)
        summarize(rows, results, quiet=True, generated=generated)  # after every probe: a run cut short keeps its summary
    return summarize(rows, results, generated=generated)


def _kernels(doc: dict) -> list[dict]:
    out = []
    for k in doc["kernels"]:
        for r in k["readings"]:
            pairs = list(r["compared"].items())
            out.append({"kernel": k["kernel"], "access": k["access"], "op": k["op"], "agree": r["agree"],
                        "checksum": k["checksum"],
                        "counters": {m: v for m, v in pairs},
                        # the calibration counters measured beside the compared pair (the fill, instruction counts)
                        "also": dict(r.get("also", {}))})
    return out


def _verdict(row: dict) -> str:
    if row["build"]:
        return "BUILD FAILED" if row["build"] != 124 else "BUILD TIMED OUT"
    if row.get("run") == "budget":
        return "NOT RUN (--budget spent)"
    if row.get("run"):
        return "RUN FAILED" if row["run"] != 124 else "RUN TIMED OUT"
    return {0: "agrees", 1: "DIFFERS", 2: "COMPARE FAILED (bad input)"}.get(row.get("compare", 2), "COMPARE FAILED")


def summarize(rows: list[dict], results: Path, quiet: bool = False, generated: dict | None = None) -> int:
    device = {}
    for row in rows:
        path = results / row["slug"] / "device.txt"
        if path.is_file():
            device = dict(line.split(": ", 1) for line in path.read_text().splitlines() if ": " in line)
            break
    lines = ["gpu_probe: " + (", ".join(f"{k} {v}" for k, v in device.items()) or "no device.txt (nothing ran)"), ""]
    table = [("case", "kernel", "access", "op", "predicted W/conflicts", "measured W/conflicts", "")]
    for row in rows:
        if not row.get("kernels"):
            table.append((row["slug"], "", "", "", "", "", _verdict(row)))
            continue
        for i, k in enumerate(row["kernels"]):
            values = list(k["counters"].values())
            predicted = "/".join(str(_int(p)) for p, _ in values)
            measured = "/".join(str(_int(g)) for _, g in values)
            mark = "ok" if k["agree"] else "DIFFERS"
            if k["checksum"] is False:
                mark += " (checksum MISMATCH)"
            table.append((row["slug"] if i == 0 else "", k["kernel"], k["access"][:40], k["op"], predicted, measured,
                          mark))
    widths = [max(len(t[i]) for t in table) for i in range(6)]
    for t in table:
        lines.append("  ".join(t[i].ljust(widths[i]) for i in range(6)) + "  " + t[6])
    agree = sum(1 for r in rows if r.get("compare") == 0)
    lines += ["", f"{agree} of {len(rows)} probes agree with the model; "
              f"{sum(1 for r in rows if r.get('compare') == 1)} differ; "
              f"{sum(1 for r in rows if r.get('compare') not in (0, 1))} failed to build, run or compare"]
    text = "\n".join(lines) + "\n"
    (results / "summary.txt").write_text(text)
    (results / "summary.json").write_text(json.dumps({"device": device, "generated": generated or {}, "probes": rows},
                                                     indent=2) + "\n")
    if quiet:
        return 0
    print("\n" + text, end="")
    print(f"gpu_probe: results in {results} (summary.txt, summary.json, one folder per probe)")
    return 0 if agree == len(rows) else 1


def _int(x) -> int | float:
    return int(x) if float(x).is_integer() else x


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="step", required=True)
    g = sub.add_parser("gen", help="write the probe folders (needs the package's dependencies, z3 included)")
    g.add_argument("out", type=Path)
    g.add_argument("--only", help="only the cases whose name matches this regex")
    g.add_argument("--amd", metavar="ARCH", help="the AMD cases of this --arch (gfx942, gfx950, ...) instead of "
                   "NVIDIA's: every unverified table cell, and the worked examples")
    r = sub.add_parser("run", help="build, run and compare every probe (on the GPU machine)")
    r.add_argument("out", type=Path)
    r.add_argument("--results", type=Path, help="where to write the results (default OUT/results)")
    r.add_argument("--jobs", type=int, default=os.cpu_count() or 4, help="parallel builds (default: CPUs)")
    r.add_argument("--timeout", type=float, default=120, help="seconds per build and per run.sh (default 120)")
    r.add_argument("--budget", type=float, help="start no probe after this many seconds (the rest: NOT RUN)")
    r.add_argument("--only", help="only the cases whose name matches this regex")
    r.add_argument("--build-only", action="store_true", help="build every probe and stop (the dry run, no GPU)")
    args = parser.parse_args()
    if args.step == "gen":
        return gen(args.out, args.only, args.amd)
    return run(args.out, args.results or args.out / "results", args.jobs, args.timeout, args.only, args.budget,
               args.build_only)


if __name__ == "__main__":
    sys.exit(main())
