"""The PTX of every probe kernel measured on the GPU (tests/data/gpu/*.json), for `swizzle-solve kernel`.

    python3 bench/probe_ptx.py            # (re)write tests/data/gpu/ptx/ (needs nvcc 13.0 and z3)
    python3 bench/probe_ptx.py --check    # recompile into a temporary folder: the committed files still?

Each recorded probe (its case in bench/gpu_probe.py or bench/gpu_broadcast.py, the layout it issued)
is written again with today's code (`swizzle-solve probe CASE --check LAYOUT --target cuda`, as
tests/test_gpu_measured.py does) and its probe.cu compiled once, the way its build.sh built the
measured binary but stopping at the PTX:

    nvcc -ptx -lineinfo -O3 -std=c++17 -arch=sm_90 SLUG.cu -o SLUG.ptx

into tests/data/gpu/ptx/<cases module>/<recorded slug>.ptx (gpu_probe/, gpu_broadcast/: the two
modules number their slugs independently), and tests/data/gpu/ptx/probes.json: per file, the probe's
name, layout and cases module, and what it issues (the tile's storage in bytes, which the load
kernels' fill stores whole; per kernel its access, PTX instruction, direction and loop count). The `.file` line naming the source is rewritten from the
temporary folder's absolute path to ``SLUG.cu`` so that the files are the same on every machine;
nothing else is changed. The measurements used nvcc 13.0 (the files' `device.nvcc`); the nvcc used
is $NVCC, else /usr/local/bin/nvcc, else nvcc on PATH, and its version is checked against that.

tests/test_kernel_measured.py runs `swizzle_solver.kernel` on these files and holds its counters to
what Nsight Compute measured for each kernel.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "gpu"
PTX = DATA / "ptx"
INDEX = "probes.json"
FLAGS = ["-ptx", "-lineinfo", "-O3", "-std=c++17", "-arch=sm_90"]
sys.path.insert(0, str(ROOT / "bench"))
import gpu_broadcast  # noqa: E402
import gpu_probe  # noqa: E402

sys.path.pop(0)


def module_dir(cases: str) -> str:
    """The folder of a recorded file's probes: its cases module's stem (gpu_probe, gpu_broadcast)."""
    return Path(cases).stem


def recorded() -> dict[tuple[str, str], dict]:
    """(module folder, slug) -> {"name", "layout", "cases"} of every probe measured, over every file;
    a probe recorded in two files (the broadcast experiment's reruns) once, the same layout both times."""
    out: dict[tuple[str, str], dict] = {}
    for path in sorted(DATA.glob("*.json")):
        doc = json.loads(path.read_text())
        for probe in doc["probes"]:
            key = (module_dir(doc["cases"]), probe["slug"])
            seen = out.setdefault(key, {"name": probe["name"], "layout": probe["layout"], "cases": doc["cases"]})
            assert (seen["name"], seen["layout"]) == (probe["name"], probe["layout"]), (path.name, key, seen)
    return out


def case_args(cases: str, folder: Path) -> dict[str, list[str]]:
    """name -> argv of every case of the module (the --phases files they need written into ``folder``)."""
    folder.mkdir(parents=True, exist_ok=True)
    if cases == "bench/gpu_probe.py":
        found = gpu_probe.cases(gpu_probe.instruction_file(folder / "instructions.toml"))
    else:
        found = gpu_broadcast.cases(folder / "phases")
    return {c["name"]: c["args"] for c in found}


def without_check(args: list[str]) -> list[str]:
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
        elif a == "--check":
            skip = True
        else:
            out.append(a)
    return out


def nvcc() -> str:
    found = os.environ.get("NVCC") or (Path("/usr/local/bin/nvcc").is_file() and "/usr/local/bin/nvcc") \
        or shutil.which("nvcc")
    if not found:
        sys.exit("probe_ptx: no nvcc (set NVCC)")
    version = subprocess.run([found, "--version"], capture_output=True, text=True).stdout
    if "release 13.0" not in version:
        print(f"probe_ptx: warning: {found} is not nvcc 13.0, which built the measured probes", file=sys.stderr)
    return found


def compile_probe(args: list[str], layout: str, slug: str, work: Path, compiler: str) -> tuple[str, dict]:
    """The PTX of the probe ``swizzle-solve probe ARGS --check LAYOUT`` writes, its source named SLUG.cu,
    and what the probe issues (``issued``)."""
    sys.path.insert(0, str(ROOT))
    from swizzle_solver.cli import main

    folder = work / slug
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
        code = main(["probe", *without_check(args), "--check", layout, "--target", "cuda", "-o", str(folder)])
    if code:
        sys.exit(f"probe_ptx: {slug}: probe failed: {err.getvalue().strip()}")
    source = folder / f"{slug}.cu"
    shutil.copy(folder / "probe.cu", source)
    done = subprocess.run([compiler, *FLAGS, source.name, "-o", f"{slug}.ptx"], cwd=folder, capture_output=True,
                          text=True, timeout=300)
    if done.returncode:
        sys.exit(f"probe_ptx: {slug}: nvcc failed: {done.stderr.strip()}")
    text = (folder / f"{slug}.ptx").read_text()
    text = re.sub(r'(\.file\s+1\s+)"[^"]*"', lambda m: f'{m.group(1)}"{slug}.cu"', text, count=1)
    return text, issued(json.loads((folder / "prediction.json").read_text()))


def issued(prediction: dict) -> dict:
    """What the probe's kernels do, not what the model predicts of it: the tile's storage (the load
    kernels' fill stores all of it) and per kernel its access, PTX instruction, direction and how many
    times its loop issues the instruction (the rows of its offset table)."""
    return {"storage_bytes": prediction["layout"]["storage_bytes"],
            "kernels": {k["kernel"]: {"access": k["access"], "instruction": k["instruction"],
                                      "direction": k["direction"], "loop": k["instructions"]}
                        for k in prediction["kernels"]}}


def build(into: Path) -> list[Path]:
    """Write every recorded probe's PTX under ``into`` and ``into``/probes.json (per file: its probe's
    name, layout, cases module and what it issues); the paths written."""
    compiler = nvcc()
    written, index = [], {}
    # a fixed folder: nvcc names the sources' internal symbols (in the -lineinfo strings) after a hash
    # of the source's path, so a temporary folder's random name would change every file
    work = Path("/tmp/swizzle-solve-probe-ptx")
    shutil.rmtree(work, ignore_errors=True)
    try:
        args: dict[str, dict[str, list[str]]] = {}
        for (folder, slug), probe in sorted(recorded().items()):
            if probe["cases"] not in args:
                args[probe["cases"]] = case_args(probe["cases"], work / module_dir(probe["cases"]))
            text, what = compile_probe(args[probe["cases"]][probe["name"]], probe["layout"], slug, work / folder,
                                       compiler)
            path = into / folder / f"{slug}.ptx"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            written.append(path)
            index[f"{folder}/{slug}.ptx"] = {**probe, **what}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    (into / INDEX).write_text(json.dumps(index, indent=1, sort_keys=True) + "\n")
    return [*written, into / INDEX]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compile into a temporary folder and compare")
    check = parser.parse_args().check
    if not check:
        shutil.rmtree(PTX, ignore_errors=True)
        written = build(PTX)
        size = sum(p.stat().st_size for p in written)
        print(f"probe_ptx: {len(written) - 1} PTX files and {INDEX}, {size / 1e6:.2f} MB in {PTX.relative_to(ROOT)}")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        fresh = build(Path(tmp))
        stale = [p for p in fresh if not (PTX / p.relative_to(tmp)).is_file()
                 or (PTX / p.relative_to(tmp)).read_text() != p.read_text()]
        extra = ({p.relative_to(PTX) for p in PTX.rglob("*.ptx")} | {Path(INDEX)}) - {p.relative_to(tmp) for p in fresh}
        for p in stale:
            print(f"probe_ptx: differs: {p.relative_to(tmp)}")
        for p in sorted(extra):
            print(f"probe_ptx: not a recorded probe: {p}")
        print(f"probe_ptx: {len(fresh) - len(stale)} of {len(fresh)} files as committed")
        return 1 if stale or extra else 0


if __name__ == "__main__":
    sys.exit(main())
