"""The toolchain tier's cases and helpers: what each test compiles, and the reference it is held to.

Every case is solved (or `--check`ed) through the public CLI, `swizzle-solve ARGS --emit all --json`;
the code under test is `answer.emit[TARGET]` exactly as printed, and the reference is
`answer.expression` evaluated on every (r, c) of the tile. The tier never imports the solver's
modules, so it holds whatever the emitters become.

A toolchain that is not installed skips its tests with the reason; under CI (`CI=true`, as
`.ci/run` is run) it fails them instead, so a CI run can never pass by silently checking nothing.
`.ci/toolchains` installs every toolchain from PyPI into the CI venv.
"""
from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# 24 solved answers (c..) and 30 layouts pinned with --check (k..) on nvidia (2 more, NOT_USABLE, get no code): the families none, cute,
# xor-cols, two-level, linear, row-interleave, padding (around each of them), column-panels and general-linear; 1-, 2-, 4- and
# 8-byte elements; row lengths and pitches 9, 16, 24, 32, 33, 36, 40, 44, 48, 56, 64, 72, 80, 96, 104, 128,
# 136 and 256. Then 12 AMD cases (a..).
CASES = {
    "c01": "--rows 16 --cols 32 --dtype f16 --access 8x8 --access row",
    "c02": "--rows 64 --cols 64 --dtype f16 --access 8x8 --access row",
    "c03": "--rows 8 --cols 16 --dtype f16 --access 8x8",
    "c04": "--rows 32 --cols 40 --dtype f32 --access 8x4",
    "c05": "--rows 32 --cols 24 --dtype f32 --access col",
    "c06": "--rows 64 --cols 72 --dtype f16 --access 32x1",
    "c07": "--rows 64 --cols 64 --dtype i8 --access 8x16 --access row",
    "c08": "--rows 64 --cols 128 --dtype i8 --access 8x16 --access row",
    "c09": "--rows 64 --cols 40 --dtype i8 --access 32x4",
    "c10": "--rows 16 --cols 64 --row-length 72 --dtype f32 --access 16x1",
    "c11": "--rows 8 --cols 24 --dtype f32 --access 4x2",
    "c12": "--rows 64 --cols 96 --dtype bf16 --access 8x8 --access 8x8:2",
    "c13": "--rows 64 --cols 40 --dtype f16 --access 8x8 --access 8x8:2",
    "c14": "--rows 32 --cols 24 --dtype f16 --access 8x8 --access 8x8:2",
    "c15": "--rows 32 --cols 40 --dtype f32 --access 8x4 --access 8x4:2",
    "c16": "--rows 16 --cols 256 --dtype f16 --access 8x8 --phases phases/row-as-16x16-f16.toml",
    "c17": "--rows 32 --cols 32 --dtype f32 --access row --access col --phases phases/main-diagonal-32.toml",
    "c18": "--rows 32 --cols 72 --dtype i8 --access 8x16",
    "c19": "--rows 8 --cols 9 --banks 8 --access 4x2",
    "c20": "--rows 32 --cols 64 --dtype f32 --access 8x4 --access row",
    "c21": "--rows 32 --cols 40 --row-length 56 --dtype f16 --access mma-c --access 8x8:2",
    "k01": "--rows 8 --cols 24 --dtype f32 --access 8x1 --check XorCols<3,0,0>",
    "k02": "--rows 16 --cols 32 --dtype f32 --access 8x4 --check XorCols<3,2,0>",
    "k05": "--rows 16 --cols 32 --dtype f32 --access 8x1 --check 'Swizzle<1,0,3> then Swizzle<1,1,4>'",
    "k06": "--rows 8 --cols 24 --dtype f32 --access 8x1 --check 'Swizzle<1,0,3> then Swizzle<2,0,4>'",
    "k07": "--rows 32 --cols 64 --dtype f16 --access 8x8 --check 'Linear[b3^=b7, b4^=b8]'",
    "k08": "--rows 8 --cols 32 --dtype f32 --access 8x1 --check 'pitch 36'",
    "k09": "--rows 8 --cols 32 --dtype f32 --access 8x1 --check 'pitch 33'",
    "k10": "--rows 64 --cols 64 --dtype f16 --access 8x8 --check 'pitch 72 + Swizzle<1,3,3>'",
    "k11": "--rows 32 --cols 40 --dtype i8 --access 8x8 --check 'pitch 48'",
    "k12": "--rows 16 --cols 32 --dtype f32 --access 8x4 --check RowInterleave<T=8,k=2>",
    "k13": "--rows 8 --cols 24 --dtype f32 --access 8x1 --check 'pitch 32 + XorCols<2,0,0>'",
    "k14": "--rows 8 --cols 24 --dtype f32 --access 8x1 --check 'pitch 32 + Swizzle<2,0,3>'",
    # column panels (the tiled GMMA atom, one TMA box per panel), --for, and a dropped padding
    "c22": "--rows 64 --cols 128 --dtype f16 --access 8x8 --access row --for tma",
    "c23": "--rows 64 --cols 32 --row-length 40 --dtype f16 --access ldmatrix.x4 --access warp:8x4:1x8",
    "k15": "--rows 16 --cols 64 --dtype f32 --access 8x4 --check Panels<64B>",
    "k16": "--rows 8 --cols 96 --dtype i8 --access 8x16 --check Panels<32B>",
    "k17": "--rows 32 --cols 32 --dtype f32 --access 8x1 --check 'Linear[b0^=b5, b1^=b7, b2^=b5]'",
    # xor-cols on pitches that are not powers of two, alone and padded (C++ CuTe: a layout, a swizzle, a
    # layout back to the pitch), at 1-, 2-, 4- and 8-byte elements; and the TMA note of 8-byte elements
    "k18": "--rows 16 --cols 24 --dtype f64 --access 8x1 --check XorCols<3,0,0>",
    "k19": "--rows 32 --cols 40 --dtype f16 --access 8x2 --check XorCols<2,1,0>",
    "k20": "--rows 16 --cols 72 --dtype i8 --access 8x1 --check XorCols<3,0,1>",
    "k21": "--rows 24 --cols 96 --dtype f16 --access 8x8 --check XorCols<2,3,0>",
    "k22": "--rows 32 --cols 64 --dtype f32 --access 8x4 --check 'pitch 80 + XorCols<1,3,3>'",
    "k23": "--rows 8 --cols 24 --dtype f32 --access 8x1 --check 'pitch 40 + XorCols<3,0,0>'",
    "k24": "--rows 64 --cols 64 --dtype f16 --access 8x8 --check 'pitch 72 + XorCols<3,3,0>'",
    "k25": "--rows 16 --cols 16 --dtype f64 --access 8x2 --check Swizzle<3,1,3>",
    "k26": "--rows 16 --cols 32 --dtype f64 --access 8x2 --check Panels<128B>",
    # issue 21: a padded layout holding a later family's member, below the given pitch (the padding
    # dropped) and above it
    "c24": "--rows 32 --cols 64 --row-length 72 --dtype f32 --access warp:4x8:1x8 --access warp:32x1:1x4",
    "k27": "--rows 16 --cols 32 --dtype f32 --access 8x1 --check 'pitch 40 + Swizzle<1,0,3> then Swizzle<1,1,4>'",
    "k28": "--rows 16 --cols 32 --row-length 40 --dtype f32 --access 8x4 --check 'pitch 32 + RowInterleave<T=4,k=2>'",
    "k29": "--rows 8 --cols 32 --dtype f32 --access 8x1 --check 'pitch 36 + Linear[b0^=b5, b1^=b6]'",
    "k30": "--rows 64 --cols 128 --row-length 136 --dtype f16 --access 8x8 --check 'pitch 128 + Panels<128B>'",
    # issue 24: general-linear members (transposed storage; a --vectors auto answer), Triton's shared_linear
    "k31": "--rows 16 --cols 32 --dtype f16 --access row --check 'OffsetBases[16, 32, 64, 128, 256, 1, 2, 4, 8]'",
    "k32": "--rows 32 --cols 64 --dtype f32 --access col "
           "--check 'OffsetBases[256, 512, 260, 8, 1024, 16, 262, 36, 328, 105, 128]'",
    # AMD targets (--arch): the MFMA A-operand tile of examples.toml, read with ds_read_b128 and written
    # with ds_write_b128, on gfx942 and gfx950: swizzled (a01-a04, a10 bf16), padded (a05, a06: Triton's
    # padded_shared), linear (a07 solved, a08 checked: the shared linear layout), and a tile Triton
    # cannot say (a09, 40 columns); a11 is a wave32 target (rdna4, Triton's gfx1201); a12 column panels
    # (CuTe's element-level composition: no GMMA atom on AMD). The cuda snippet of these is the HIP
    # function (test_hip.py).
    "a01": "--arch gfx942 --rows 128 --cols 64 --dtype f16 --access mfma-a:16x16x32 --access ds_write_b128:8x8",
    "a02": "--arch gfx942 --rows 128 --cols 64 --dtype f16 --access mfma-a:32x32x16 --access ds_write_b128:8x8",
    "a03": "--arch gfx950 --rows 128 --cols 64 --dtype f16 --access mfma-a:16x16x32 --access ds_write_b128:8x8",
    "a04": "--arch gfx950 --rows 128 --cols 64 --dtype f16 --access mfma-a:32x32x16 --access ds_write_b128:8x8",
    "a05": "--arch gfx942 --rows 128 --cols 64 --row-length 72 --keep-pitch --dtype f16 --access mfma-a:32x32x16 "
           "--access ds_write_b128:8x8",
    "a06": "--arch gfx950 --rows 128 --cols 64 --row-length 80 --keep-pitch --dtype f16 --access mfma-a:16x16x32 "
           "--access ds_write_b128:8x8",
    "a07": "--arch gfx950 --rows 64 --cols 64 --dtype f16 --access mfma-a:32x32x16 --access ds_read_b64_tr_b16:16x4",
    "a08": "--arch gfx942 --rows 16 --cols 32 --dtype f32 --access ds_read_b32:16x4 "
           "--check 'Swizzle<1,0,3> then Swizzle<1,1,4>'",
    "a09": "--arch gfx950 --rows 64 --cols 40 --dtype f16 --access ds_read_b128:64x1",
    "a10": "--arch gfx942 --rows 128 --cols 64 --dtype bf16 --access mfma-a:16x16x32 --access ds_write_b128:8x8",
    "a11": "--arch rdna4 --rows 32 --cols 64 --dtype f16 --access ds_write_b128:4x8 --access ds_read_b128:32x1",
    "a12": "--arch gfx942 --rows 64 --cols 128 --dtype f16 --access ds_write_b128:8x8 --check Panels<128B>",
}


# Layouts that are not usable on their tile (not bijections of a row): they get no code at all
# (issue 21: status not-usable), so no toolchain has anything to compile; test_nvcc checks that.
NOT_USABLE = {
    "k03": "--rows 64 --cols 72 --dtype f16 --access 8x8 --check XorCols<2,3,0>",
    "k04": "--rows 32 --cols 40 --dtype i8 --access 8x8 --check XorCols<1,3,1>",
}

def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def missing(what: str, install: str) -> None:
    """A toolchain is absent: skip locally, fail under CI (where `.ci/toolchains` must have installed it)."""
    message = f"{what} is not installed ({install}; `.ci/toolchains` installs it into .venv)"
    if in_ci():
        pytest.fail(f"CI=true and {message}", pytrace=False)
    pytest.skip(message)


def solve(case: str) -> dict:
    """`swizzle-solve ARGS --emit all --json` for one case, as a user runs it (exit 0, or 1 for a
    --check that finds conflicts)."""
    argv = [sys.executable, "-m", "swizzle_solver", *shlex.split(CASES[case]), "--emit", "all", "--json"]
    done = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert done.returncode in (0, 1), f"{case}: exit {done.returncode}\n{done.stderr}"
    return json.loads(done.stdout)


def solve_all() -> dict[str, dict]:
    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip(CASES, pool.map(solve, CASES)))


def expected(doc: dict) -> list[int]:
    """`answer.expression` (C and Python read it alike) at every (r, c), row-major."""
    rows, cols = doc["problem"]["rows"], doc["problem"]["cols"]
    code = compile(doc["answer"]["expression"], "answer.expression", "eval")
    return [eval(code, {}, {"r": r, "c": c}) for r in range(rows) for c in range(cols)]


def mismatches(got: list[int], want: list[int], cols: int) -> str:
    """'' when equal, else how many elements differ and the first few, as (r, c): got != want."""
    if len(got) != len(want):
        return f"{len(got)} offsets printed for {len(want)} elements"
    bad = [(i // cols, i % cols, g, w) for i, (g, w) in enumerate(zip(got, want)) if g != w]
    if not bad:
        return ""
    shown = ", ".join(f"({r}, {c}): {g} != {w}" for r, c, g, w in bad[:6])
    return f"{len(bad)} of {len(want)} elements differ from answer.expression: {shown}"


def code_lines(snippet: str, comment: str) -> list[str]:
    """The snippet's lines that are code, not comments."""
    return [line for line in snippet.splitlines() if line.strip() and not line.lstrip().startswith(comment)]


def indent(text: str, by: str) -> str:
    return "\n".join(by + line if line.strip() else line for line in text.splitlines())


def defines(snippet: str, pattern: str) -> bool:
    return re.search(pattern, snippet, re.M) is not None


def run_driver(script: str, payload: dict, work: Path, timeout: int = 1200) -> dict:
    """Run tests/toolchains/SCRIPT IN.json OUT.json in its own Python process (a toolchain that
    aborts, or leaves state behind, cannot take the test session with it) and read OUT.json."""
    src, dst = work / f"{script}.in.json", work / f"{script}.out.json"
    src.write_text(json.dumps(payload))
    done = subprocess.run(
        [sys.executable, str(Path(__file__).with_name(script)), str(src), str(dst)],
        capture_output=True, text=True, cwd=work, timeout=timeout,
    )
    assert done.returncode == 0 and dst.exists(), f"{script} exit {done.returncode}:\n{done.stderr[-4000:]}"
    return json.loads(dst.read_text())
