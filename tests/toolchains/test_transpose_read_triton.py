"""gfx950's transposing read against Triton's own code (issue 35 item 1's oracle; toolchain tier).

Triton 3.9 compiles, on the CPU, a Gluon kernel that stores a tile to shared memory in a layout
whose order is not the operand's K (M contiguous) and loads it as an MFMA dot operand: it issues
ds_read_b64_tr_b16 (f16) or ds_read_b64_tr_b8 (i8). A small interpreter of the AMDGCN integer
instructions that compute the addresses (per thread, from the thread id) gives every lane's 8-byte
address in each of those instructions. swizzle_solver/transpose_read.py's map, applied to Triton's
own linear layout of the operand (to_linear_layout) and the shared tile's offsets (order [0, 1],
no swizzle: element (m, k) at m + rows * k), must give the same addresses, instruction by
instruction and warp by warp; and the tool's vectors.tr_moved must take the form with as many
instructions as Triton issues.
"""
from __future__ import annotations

import os
import re
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
pytestmark = pytest.mark.toolchain
triton = pytest.importorskip("triton")

from swizzle_solver import transpose_read, vectors  # noqa: E402
from swizzle_solver.access import make_tile  # noqa: E402
from swizzle_solver.families.general_linear import GeneralLinear  # noqa: E402
from swizzle_solver.hardware import target  # noqa: E402

THREADS = 256  # 4 waves of 64
_OPS = {
    "v_and_b32": lambda a, b: a & b, "s_and_b32": lambda a, b: a & b, "v_or_b32": lambda a, b: a | b,
    "v_xor_b32": lambda a, b: a ^ b, "v_lshlrev_b32": lambda a, b: b << a, "v_lshrrev_b32": lambda a, b: b >> a,
    "s_lshr_b32": lambda a, b: a >> b, "s_lshl_b32": lambda a, b: a << b, "v_add_u32": lambda a, b: a + b,
    "s_add_i32": lambda a, b: a + b, "v_add3_u32": lambda a, b, c: a + b + c,
    "v_and_or_b32": lambda a, b, c: (a & b) | c, "v_lshl_or_b32": lambda a, b, c: (a << b) | c,
    "v_lshl_add_u32": lambda a, b, c: (a << b) + c, "v_or3_b32": lambda a, b, c: a | b | c,
    "v_xor3_b32": lambda a, b, c: a ^ b ^ c, "v_bfe_u32": lambda a, b, c: (a >> b) & ((1 << c) - 1),
    "v_mov_b32": lambda a: a, "s_mov_b32": lambda a: a, "s_movk_i32": lambda a: a,
}


def tr_addresses(asm: str) -> list[np.ndarray]:
    """Each ds_read_b64_tr_* of the kernel: every thread's byte address (base register + offset)."""
    regs: dict[str, np.ndarray] = {"v0": np.arange(THREADS, dtype=np.int64)}

    def value(tok):
        tok = tok.strip()
        if re.fullmatch(r"-?(0x[0-9a-f]+|\d+)", tok):
            return np.full(THREADS, int(tok, 0), dtype=np.int64)
        return regs.get(tok)

    out = []
    for line in asm.splitlines():
        m = re.match(r"\s*([a-z0-9_]+?)(?:_e32|_e64)?\s+([^;]*)", line)
        if not m or line.lstrip().startswith((";", ".")):
            continue
        op, args = m[1], [a.strip() for a in m[2].split(",")]
        if op.startswith("ds_read_b64_tr"):
            base, offset = args[1].split()[0], re.search(r"offset:(\d+)", line)
            assert regs.get(base) is not None, f"{base}: not computed from the thread id"
            out.append(regs[base] + (int(offset[1]) if offset else 0))
        elif op == "v_readfirstlane_b32" and value(args[1]) is not None:
            regs[args[0]] = np.repeat(value(args[1])[::64], 64)
        elif op in _OPS and all(value(a) is not None for a in args[1:]):
            regs[args[0]] = _OPS[op](*[value(a) for a in args[1:]]) & 0xFFFFFFFF
        elif args and re.fullmatch(r"[sv]\d+", args[0]):
            regs.pop(args[0], None)  # written by something not interpreted: unknown
    return out


def compile_load(rows, cols, elem, dot, order):
    from triton.backends.compiler import GPUTarget
    from triton.experimental import gluon
    from triton.experimental.gluon import language as ttgl
    from triton.experimental.gluon._runtime import GluonASTSource

    os.environ.setdefault("TRITON_CACHE_DIR", os.path.join(tempfile.gettempdir(), "swizzle-triton-tr"))
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")

    @gluon.jit
    def load(x_ptr, y_ptr, ROWS: ttgl.constexpr, COLS: ttgl.constexpr, SRC: ttgl.constexpr, SH: ttgl.constexpr,
             DST: ttgl.constexpr):
        r = ttgl.arange(0, ROWS, layout=ttgl.SliceLayout(1, SRC))
        c = ttgl.arange(0, COLS, layout=ttgl.SliceLayout(0, SRC))
        smem = ttgl.allocate_shared_memory(x_ptr.dtype.element_ty, [ROWS, COLS], SH,
                                           ttgl.load(x_ptr + r[:, None] * COLS + c[None, :]))
        out = smem.load(DST)
        r2 = ttgl.arange(0, ROWS, layout=ttgl.SliceLayout(1, DST))
        c2 = ttgl.arange(0, COLS, layout=ttgl.SliceLayout(0, DST))
        ttgl.store(y_ptr + r2[:, None] * COLS + c2[None, :], out)

    src = ttgl.BlockedLayout([1, 8], [8, 8], [4, 1], [1, 0])
    sh = ttgl.SwizzledSharedLayout(1, 1, 1, list(order))
    ptr = {2: "*fp16", 1: "*i8"}[elem]
    sig = {"x_ptr": ptr, "y_ptr": ptr, "ROWS": "constexpr", "COLS": "constexpr", "SRC": "constexpr",
           "SH": "constexpr", "DST": "constexpr"}
    compiled = triton.compile(GluonASTSource(load, signature=sig, constexprs={
        "ROWS": rows, "COLS": cols, "SRC": src, "SH": sh, "DST": dot}, attrs={}),
        target=GPUTarget("hip", "gfx950", 64), options={"num_warps": THREADS // 64})
    return compiled.asm["amdgcn"]


def dot_a(elem):
    from triton.experimental.gluon import language as ttgl
    from triton.experimental.gluon.language import amd

    k = {2: (32, 8), 1: (64, 16)}[elem]
    parent = amd.AMDMFMALayout(version=4, instr_shape=[16, 16, k[0]], transposed=True, warps_per_cta=[4, 1])
    return ttgl.DotOperandLayout(operand_index=0, parent=parent, k_width=k[1])


@pytest.mark.parametrize("rows, cols, elem", [(64, 64, 2), (64, 128, 1)])
def test_tritons_transposing_reads_are_the_maps_addresses(rows, cols, elem):
    from triton_pairs import gluon_bases

    dot = dot_a(elem)
    asm = compile_load(rows, cols, elem, dot, (0, 1))
    op = transpose_read.OPS[elem]
    assert re.search(rf"^\s*{op}\b", asm, re.M), f"Triton issued no {op}"
    theirs = tr_addresses(asm)
    reg, lane, warp = gluon_bases(dot, rows, cols)
    tile, hw = make_tile(rows, cols, None, elem), target("gfx950")
    # the tool's view: (row, col) = (m, k) at index m * cols + k; the shared tile's offsets (M
    # contiguous): the layout sending index bit b to m + rows * k
    index = lambda vs: tuple(r * cols + c for r, c in vs)  # noqa: E731
    access = vectors.RegisterAccess("dot", index(reg), index(lane), index(warp))
    offset_of = [((1 << b) // cols) + rows * ((1 << b) % cols) for b in range((rows * cols).bit_length() - 1)]
    m = vectors.tr_moved(access, offset_of, tile, hw)
    assert m is not None and m.instruction == op
    assert m.instructions == len(theirs) * (THREADS // 64)
    # every instruction's lane addresses, warp by warp: the map's and Triton's the same sets
    n = transpose_read.elements(elem)
    regs = list(access.register)
    k = n.bit_length() - 1
    span = lambda vs: [int(np.bitwise_xor.reduce([v for j, v in enumerate(vs) if i >> j & 1] or [0]))  # noqa: E731
                       for i in range(1 << len(vs))]
    layout = GeneralLinear(tuple(offset_of))
    for w, wx in enumerate(span(list(access.warp))):
        mine = set()
        for g in span(regs[k:]):
            logical = np.array([[wx ^ g ^ lx ^ rx for rx in span(regs[:k])] for lx in span(list(access.lane))])
            starts = transpose_read.addresses(layout.apply(logical), n)
            assert starts is not None
            mine.add(tuple(int(x) * elem for x in starts))
        assert mine == {tuple(int(x) for x in a[64 * w:64 * w + 64]) for a in theirs}


def test_a_k_contiguous_tile_is_no_transposing_read_for_either():
    asm = compile_load(64, 64, 2, dot_a(2), (1, 0))
    assert not re.search(r"^\s*ds_read_b64_tr", asm, re.M)
