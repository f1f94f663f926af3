"""Triton kernels compiled on the CPU for sm_80 and sm_90 (no GPU), their PTX and TTGIR committed to
tests/data/kernels/triton/ for `swizzle-solve kernel` (tests/test_kernel_sources.py).

    python3 bench/triton_corpus.py           # (re)write the files (Triton 3.9)
    python3 bench/triton_corpus.py --check   # the committed files are what this Triton makes?

- matmul: the tutorial-shaped f16 GEMM (64 x 64 x 32 blocks, 4 warps, 3 stages): on sm_80 its
  operands go through shared memory to ldmatrix; on sm_90 to wgmma (descriptors, not counted).
- convert: a Gluon ``convert_layout`` of a 64 x 64 f16 tile between two register layouts (threads
  along the rows, 8 f16 per thread; then threads down the columns: a transpose of the distribution),
  which Triton does through shared memory with the layout its optimalSwizzlingLdSt picks
  (bench/triton_pairs.py's kernel).

The PTX's `.file` lines and the TTGIR's `loc(...)` paths name this script by its file name only, so
the files are the same wherever the checkout is.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "data" / "kernels" / "triton"
ARCHS = (80, 90)
WARPS = 4
# (row, col) bases of the convert's two register layouts over a 64 x 64 tile, 4 warps
CONVERT_SRC = ([(0, 1), (0, 2), (0, 4), (16, 0), (32, 0)], [(0, 8), (0, 16), (0, 32), (1, 0), (2, 0)],
               [(4, 0), (8, 0)])
CONVERT_DST = ([(1, 0), (2, 0), (4, 0), (0, 16), (0, 32)], [(8, 0), (16, 0), (32, 0), (0, 1), (0, 2)],
               [(0, 4), (0, 8)])


def _matmul():
    import triton
    import triton.language as tl

    @triton.jit
    def matmul(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        pid_m = tl.program_id(0)
        pid_n = tl.program_id(1)
        rm = pid_m * BM + tl.arange(0, BM)
        rn = pid_n * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, K, BK):
            a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
            b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
            acc = tl.dot(a, b, acc)
        tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16))

    return matmul


def compiled(kind: str, cap: int):
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    target = GPUTarget("cuda", cap, 32)
    if kind == "matmul":
        sig = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
               "BM": "constexpr", "BN": "constexpr", "BK": "constexpr"}
        src = ASTSource(_matmul(), signature=sig, constexprs={"BM": 64, "BN": 64, "BK": 32})
        return triton.compile(src, target=target, options={"num_warps": WARPS, "num_stages": 3})
    from triton.experimental.gluon import language as ttgl
    from triton.experimental.gluon._runtime import GluonASTSource

    sys.path.insert(0, str(ROOT / "bench"))
    import triton_pairs

    def lay(bases):
        reg, lane, warp = ([list(b) for b in part] for part in bases)
        return ttgl.DistributedLinearLayout(reg_bases=reg, lane_bases=lane, warp_bases=warp, block_bases=[],
                                            shape=[64, 64])

    sig = {"x_ptr": "*fp16", "y_ptr": "*fp16", "ROWS": "constexpr", "COLS": "constexpr", "SRC": "constexpr",
           "DST": "constexpr"}
    constexprs = {"ROWS": 64, "COLS": 64, "SRC": lay(CONVERT_SRC), "DST": lay(CONVERT_DST)}
    return triton.compile(GluonASTSource(triton_pairs._kernel(), signature=sig, constexprs=constexprs, attrs={}),
                          target=target, options={"num_warps": WARPS})


def portable(text: str) -> str:
    """Paths of Python sources (this script, triton_pairs.py, Triton's own) by file name only."""
    return re.sub(r'"(/[^"]*/)([^"/]+\.py)"', r'"\2"', text)


def files() -> dict[str, str]:
    os.environ.setdefault("TRITON_CACHE_DIR", os.path.join(tempfile.gettempdir(), "swizzle-triton-corpus"))
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    out = {}
    for kind in ("matmul", "convert"):
        for cap in ARCHS:
            c = compiled(kind, cap)
            for ext in ("ptx", "ttgir"):
                out[f"{kind}_sm{cap}.{ext}"] = portable(c.asm[ext])
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true")
    check = parser.parse_args().check
    stale = 0
    for name, text in files().items():
        path = OUT / name
        if check:
            same = path.is_file() and path.read_text() == text
            stale += not same
            print(f"triton_corpus: {name}: {'as committed' if same else 'DIFFERS'}")
        else:
            OUT.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            print(f"triton_corpus: wrote {path.relative_to(ROOT)} ({len(text) / 1e3:.0f} kB)")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
