"""Triton's own conversion of a register-layout pair through shared memory, counted like the tool's.

Triton 3.9 chooses the shared layout of a ``convert_layout`` with ``optimalSwizzlingLdSt``
(lib/Tools/GenericSwizzling.cpp), which its Python package does not expose. So the conversion is
compiled (a Gluon kernel: load in the source layout, ``convert_layout`` to the destination, store;
sm_90, on the CPU, no GPU needed) and its PTX read: every ``st.shared``/``ld.shared`` (and
``stmatrix``/``ldmatrix``) is evaluated for each thread by a small interpreter of the integer
instructions that compute the addresses (``tid.x`` and constants; what the lowering emits), giving
each instruction's lanes: byte address and width. Each instruction of each warp is then split into
the target's phases (hardware.phase_indices, NVIDIA's contiguous rule) and each phase counted by the
simulator's own counter (simulate.placement_costs: the most distinct words in one bank).

``triton_counts(src, dst, rows, cols, elem_bytes, warps)`` -> (wavefronts, instructions, least
wavefronts), "no shared memory" when Triton converts with warp shuffles, or None when Triton is not
installed; raises when the PTX has something the interpreter does not know (rather than counting
wrong).
"""
from __future__ import annotations

import os
import re
import tempfile

import numpy as np

MASK = 0xFFFFFFFF
_REG = re.compile(r"%rs?\d+|%p\d+")


def _kernel():
    from triton.experimental import gluon
    from triton.experimental.gluon import language as ttgl

    @gluon.jit
    def conv(x_ptr, y_ptr, ROWS: ttgl.constexpr, COLS: ttgl.constexpr, SRC: ttgl.constexpr, DST: ttgl.constexpr):
        rows = ttgl.arange(0, ROWS, layout=ttgl.SliceLayout(1, SRC))
        cols = ttgl.arange(0, COLS, layout=ttgl.SliceLayout(0, SRC))
        tile = ttgl.load(x_ptr + rows[:, None] * COLS + cols[None, :])
        out = ttgl.convert_layout(tile, DST)
        rows2 = ttgl.arange(0, ROWS, layout=ttgl.SliceLayout(1, DST))
        cols2 = ttgl.arange(0, COLS, layout=ttgl.SliceLayout(0, DST))
        ttgl.store(y_ptr + rows2[:, None] * COLS + cols2[None, :], out)

    return conv


POINTER = {1: "*i8", 2: "*fp16", 4: "*fp32"}


def compile_ptx(src, dst, rows: int, cols: int, elem_bytes: int, warps: int) -> str:
    """The PTX of the conversion (src, dst: (register, lane, warp) bases as (row, col) pairs)."""
    return compile_kernel(src, dst, rows, cols, elem_bytes, warps)[0]


TARGETS = {"nvidia": ("cuda", 90, 32), "gfx942": ("hip", "gfx942", 64), "gfx950": ("hip", "gfx950", 64)}


def compile_kernel(src, dst, rows: int, cols: int, elem_bytes: int, warps: int, arch: str = "nvidia"
                   ) -> tuple[str, int]:
    """(the assembly: PTX for NVIDIA, AMDGCN for AMD; the shared memory Triton allocates, bytes, from
    the compiled kernel's metadata) of the conversion; src, dst: (register, lane, warp) bases as
    (row, col) pairs, or Gluon layout objects (compiled as they are: BlockedLayout, NVMMADistributed,
    DotOperand, Slice, AMDMFMA...)."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon import language as ttgl
    from triton.experimental.gluon._runtime import GluonASTSource

    os.environ.setdefault("TRITON_CACHE_DIR", os.path.join(tempfile.gettempdir(), "swizzle-triton-pairs"))
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")  # (silences 3.9's warning; no float math here)

    def lay(bases):
        if not isinstance(bases, (tuple, list)):
            return bases  # a Gluon layout
        reg, lane, warp = ([list(b) for b in part] for part in bases)
        return ttgl.DistributedLinearLayout(reg_bases=reg, lane_bases=lane, warp_bases=warp, block_bases=[],
                                            shape=[rows, cols])

    sig = {"x_ptr": POINTER[elem_bytes], "y_ptr": POINTER[elem_bytes], "ROWS": "constexpr", "COLS": "constexpr",
           "SRC": "constexpr", "DST": "constexpr"}
    constexprs = {"ROWS": rows, "COLS": cols, "SRC": lay(src), "DST": lay(dst)}
    compiled = triton.compile(GluonASTSource(_kernel(), signature=sig, constexprs=constexprs, attrs={}),
                              target=GPUTarget(*TARGETS[arch]), options={"num_warps": warps})
    asm = compiled.asm["ptx" if arch == "nvidia" else "amdgcn"]
    return asm, int(compiled.metadata.shared)


def _value(token: str, regs: dict, tid: int):
    token = token.strip()
    if token.startswith("%"):
        if token == "%tid.x":
            return tid
        return regs.get(token)
    if token == "global_smem":
        return 0
    if re.fullmatch(r"-?0x[0-9a-fA-F]+U?|-?\d+U?", token):
        return int(token.rstrip("U"), 0) & MASK
    return None


def _signed(x: int) -> int:
    return x - (1 << 32) if x & 0x80000000 else x


def _prmt(a: int, b: int, selector: int) -> int:
    """PTX prmt.b32 (default mode): byte i of the result is byte (nibble i & 7) of {b, a}, or that
    byte's sign replicated when the nibble's bit 3 is set."""
    source = (b << 32 | a)
    out = 0
    for i in range(4):
        nib = selector >> (4 * i) & 0xF
        byte = source >> (8 * (nib & 7)) & 0xFF
        if nib & 8:
            byte = 0xFF if byte & 0x80 else 0
        out |= byte << (8 * i)
    return out


def _bfe(x: int, pos: int, length: int, signed: bool) -> int:
    v = (x >> pos) & ((1 << length) - 1)
    if signed and length and v >> (length - 1) & 1:
        v -= 1 << length
    return v & MASK


_BINARY = {
    "and": lambda a, b: a & b, "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b,
    "shl": lambda a, b: (a << b) & MASK if b < 32 else 0, "add": lambda a, b: (a + b) & MASK,
    "sub": lambda a, b: (a - b) & MASK, "mul": lambda a, b: (a * b) & MASK,
}
_MEM = re.compile(r"^(st|ld)\.shared(?:\.(v\d))?\.b(\d+)\s+(.*);$")
_MATRIX = re.compile(r"^(stmatrix|ldmatrix)\.sync\.aligned\.m8n8\.x(\d)(?:\.trans)?\.shared\.b16\s+(.*);$")
_ADDR = re.compile(r"\[\s*(%r\d+|global_smem)\s*(?:\+\s*(-?\d+))?\s*\]")


def _binary(f):
    """A two-operand rule of _BINARY (the low 32 bits; .wide and .hi forms are not address arithmetic)."""
    return lambda op, v: f(v[0], v[1]) if ".wide" not in op and ".hi" not in op else None


_OPS = {  # (base op, operands) -> value of (op, operands); 32-bit unless the op says 16
    ("mov", 1): lambda op, v: v[0],
    ("neg", 1): lambda op, v: -v[0] & MASK,
    ("not", 1): lambda op, v: ~v[0] & MASK,
    ("shr", 2): lambda op, v: (_signed(v[0]) >> v[1]) & MASK if ".s" in op else v[0] >> v[1],
    ("mad", 3): lambda op, v: (v[0] * v[1] + v[2]) & MASK if ".lo" in op else None,
    ("bfe", 3): lambda op, v: _bfe(v[0], v[1], v[2], ".s" in op),
    ("setp", 2): lambda op, v: _compare(op, v),
    ("selp", 3): lambda op, v: v[0] if v[2] else v[1],
    ("prmt", 3): lambda op, v: _prmt(v[0], v[1], v[2]) if op == "prmt.b32" else None,
    ("cvt", 1): lambda op, v: (v[0] & (0xFFFF if ".u16.u32" in op else MASK)
                               if re.fullmatch(r"cvt\.u(16|32)\.u(16|32)", op) else None),
    **{(name, 2): _binary(f) for name, f in _BINARY.items()},
}


def _evaluate(op: str, vals: list):
    """The value of one integer instruction (None: not one the interpreter knows, or an unknown input)."""
    rule = _OPS.get((op.split(".")[0], len(vals)))
    if rule is None or None in vals:
        return None
    result = rule(op, vals)
    if result is not None and op.endswith("16") and not op.startswith("cvt"):  # 16-bit registers (%rs)
        result &= 0xFFFF
    return result


def _compare(op: str, vals: list):
    a, b = (_signed(v) for v in vals) if ".s" in op else vals
    tests = {"eq": a == b, "ne": a != b, "lt": a < b, "le": a <= b, "gt": a > b, "ge": a >= b}
    cmp = op.split(".")[1]
    return int(tests[cmp]) if cmp in tests else None


def _memory(line: str, pred, states: list[dict]):
    """(kind, bytes per lane, per thread its byte address or None) of a shared-memory instruction,
    or None when ``line`` is not one."""
    mem, mat = _MEM.match(line), _MATRIX.match(line)
    if mem:
        kind, width, text, with_address = mem[1], int(mem[3]) // 8 * (int(mem[2][1:]) if mem[2] else 1), mem[4], 32
    elif mat:  # 8 row addresses per matrix, from lanes 8i .. 8i + 7
        kind, width, text, with_address = ("st" if mat[1] == "stmatrix" else "ld"), 16, mat[3], 8 * int(mat[2])
    else:
        return None
    a = _ADDR.search(text)
    if a is None:
        raise ValueError(f"cannot read the address of: {line}")
    per_thread = []
    for tid, regs in enumerate(states):
        on = True
        if pred is not None:
            if regs.get(pred[1]) is None:
                raise ValueError(f"unknown predicate in: {line}")
            on = bool(regs[pred[1]]) != pred[0]
        base = _value(a[1], regs, tid)
        if base is None:
            raise ValueError(f"unknown address in: {line}")
        per_thread.append((base + int(a[2] or 0)) & MASK if on and tid % 32 < with_address else None)
    if kind == "ld":  # the loaded registers: data, never an address
        for regs in states:
            for r in _REG.findall(text.split("[")[0]):
                regs[r] = None
    return kind, width, per_thread


def accesses(ptx: str, threads: int) -> list[tuple[str, int, list]]:
    """Every shared-memory instruction in program order: (kind, bytes per lane, per thread its byte
    address or None when predicated off / not a row-address lane)."""
    out = []
    states: list[dict] = [{} for _ in range(threads)]
    for line in (raw.split("//")[0].strip() for raw in ptx.splitlines()):
        if not line or line.startswith((".", "$", "}", "{", "ret")):
            continue
        pred = None
        m = re.match(r"^@(!?)(%p\d+)\s+(.*)$", line)
        if m:
            pred, line = (m[1] == "!", m[2]), m[3]
        found = _memory(line, pred, states)
        if found is not None:
            out.append(found)
            continue
        parts = re.match(r"^([\w.]+)\s+(.*);$", line)
        if not parts:
            continue
        op, args = parts[1], [x.strip() for x in parts[2].split(",")]
        if not _REG.fullmatch(args[0]):
            continue  # 64-bit and other registers: global addresses and data, never a shared address
        for tid, regs in enumerate(states):
            regs[args[0]] = _evaluate(op, [_value(x, regs, tid) for x in args[1:]])
    return out


def count(ptx: str, warps: int, hardware=None) -> tuple[int, int, int] | None:
    """(wavefronts, instructions, the least wavefronts those phases could take: bytes / 128 each, at
    least 1) of every shared-memory instruction of every warp, each split into the target's phases and
    counted by the simulator's counter; None when the conversion uses no shared memory."""
    from swizzle_solver.hardware import target
    from swizzle_solver.simulate import placement_costs

    hw = hardware or target("nvidia")
    wavefronts = instructions = least = 0
    found = accesses(ptx, 32 * warps)
    if not found:
        return None  # no shared memory: Triton converts within each warp (shuffles)
    # a check of the interpreter: the loads read back exactly the bytes the stores wrote
    touched = {kind: sorted(a + k for w, per in [(w, p) for kk, w, p in found if kk == kind] for a in per
                            if a is not None for k in range(w)) for kind in ("st", "ld")}
    if not touched["st"] or touched["st"] != touched["ld"]:
        raise ValueError("the PTX's shared loads do not read what its stores wrote: not interpreted right")
    for kind, width, per_thread in found:
        for w in range(warps):
            lanes = per_thread[32 * w:32 * w + 32]
            if all(a is None for a in lanes):
                continue
            instructions += 1
            active = [i for i, a in enumerate(lanes) if a is not None]
            starts = [lanes[i] for i in active]
            paired = kind == "ld" and hw.pairs([(s, 0) for s in starts], width, False)
            for phase in hw.phase_indices(len(active), width, paired):
                words = [starts[i] // 4 + k for i in phase for k in range(max(1, width // 4))]
                wavefronts += int(placement_costs(np.array([words], dtype=np.int64), hw.banks)[0])
                least += hw.lower_bound(len({starts[i] + k for i in phase for k in range(width)}))
    return wavefronts, instructions, least


def triton_counts(src, dst, rows: int, cols: int, elem_bytes: int, warps: int):
    """Triton's conversion counted, or None when Triton is not installed."""
    try:
        import triton  # noqa: F401
    except ImportError:
        return None
    return count(compile_ptx(src, dst, rows, cols, elem_bytes, warps), warps) or "no shared memory"


# --- issue 35: pairs of Triton's own layouts ------------------------------------------------------
# Each pair: (name, rows, cols, element bytes, target, source, destination), the layouts Gluon objects
# (their register/lane/warp bases read back by Triton's own to_linear_layout) or bases as (row, col)
# pairs (linear layouts). Kinds: blocked, mma v2 (mma.sync's accumulator), mma v3 (wgmma's),
# dot operands of either, slices of 3-d blocked layouts, linear (random bases), and AMD's mfma
# layouts on gfx942/gfx950 (wave 64).

_BUILDER: list = []


def gluon_bases(layout, rows: int, cols: int):
    """(register, lane, warp) bases of a Gluon layout over the tile, by Triton's to_linear_layout."""
    if isinstance(layout, (tuple, list)):
        return layout
    from triton._C.libtriton import gluon_ir, ir

    if not _BUILDER:
        context = ir.context()
        ir.load_dialects(context)
        _BUILDER.extend([context, gluon_ir.GluonOpBuilder(context)])
    ll = _BUILDER[1].to_linear_layout(layout._to_ir(_BUILDER[1]), [rows, cols])
    return tuple(tuple(tuple(b) for b in part) for part in (ll.reg_bases, ll.lane_bases, ll.warp_bases))


def new_pairs() -> list[tuple]:
    """Issue 35's pairs (docstring above); needs Triton."""
    import random

    import linear_pairs as lp
    from triton.experimental.gluon import language as ttgl
    from triton.experimental.gluon.language import amd

    def b(spt, tpw, wpc, order=(1, 0)):
        return ttgl.BlockedLayout(list(spt), list(tpw), list(wpc), list(order))

    def v2(wpc):
        return ttgl.NVMMADistributedLayout(version=[2, 0], warps_per_cta=list(wpc), instr_shape=[16, 8])

    def v3(wpc, n):
        return ttgl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=list(wpc), instr_shape=[16, n, 16])

    def dot(i, parent, k):
        return ttgl.DotOperandLayout(operand_index=i, parent=parent, k_width=k)

    def sl(dim, spt, tpw, wpc, order):
        return ttgl.SliceLayout(dim, b(spt, tpw, wpc, order))

    def mfma(version, instr, wpc, transposed=True):
        return amd.AMDMFMALayout(version=version, instr_shape=list(instr), transposed=transposed,
                                 warps_per_cta=list(wpc))

    nv = [
        ("32x32 f32 blocked->mma v2", 32, 32, 4, b((1, 4), (8, 4), (4, 1)), v2((2, 2))),
        ("64x64 f16 blocked->mma v2", 64, 64, 2, b((1, 8), (8, 4), (4, 1)), v2((4, 1))),
        ("128x64 f32 blocked->mma v2", 128, 64, 4, b((1, 4), (4, 8), (4, 1)), v2((2, 2))),
        ("16x64 i8 blocked->mma v2", 16, 64, 1, b((1, 8), (4, 8), (4, 1)), v2((1, 4))),
        ("64x128 f16 mma v2->blocked", 64, 128, 2, v2((2, 2)), b((1, 8), (4, 8), (4, 1))),
        ("128x128 f32 mma v2->blocked", 128, 128, 4, v2((4, 1)), b((1, 4), (2, 16), (4, 1))),
        ("32x64 i8 mma v2->blocked", 32, 64, 1, v2((2, 2)), b((1, 16), (8, 4), (4, 1))),
        ("64x32 f32 mma v2->col-major", 64, 32, 4, v2((4, 1)), b((4, 1), (16, 2), (1, 4), (0, 1))),
        ("64x64 f16 mma v3->blocked", 64, 64, 2, v3((4, 1), 64), b((1, 8), (8, 4), (4, 1))),
        ("128x128 f16 mma v3->blocked", 128, 128, 2, v3((4, 1), 128), b((1, 8), (4, 8), (4, 1))),
        ("64x256 f16 mma v3->blocked", 64, 256, 2, v3((4, 1), 256), b((1, 8), (2, 16), (4, 1))),
        ("128x64 f32 mma v3->blocked", 128, 64, 4, v3((4, 1), 64), b((1, 4), (4, 8), (4, 1))),
        ("64x32 i8 mma v3->blocked", 64, 32, 1, v3((4, 1), 32), b((1, 16), (16, 2), (4, 1))),
        ("128x64 f16 mma v3->col-major", 128, 64, 2, v3((4, 1), 64), b((8, 1), (16, 2), (1, 4), (0, 1))),
        ("64x64 f16 blocked->dot A kw2", 64, 64, 2, b((1, 8), (8, 4), (4, 1)), dot(0, v2((4, 1)), 2)),
        ("128x32 i8 blocked->dot A kw4", 128, 32, 1, b((1, 16), (16, 2), (4, 1)), dot(0, v2((4, 1)), 4)),
        ("64x32 f32 blocked->dot A kw1", 64, 32, 4, b((1, 4), (8, 4), (4, 1)), dot(0, v2((4, 1)), 1)),
        ("32x64 f16 blocked->dot B kw2", 32, 64, 2, b((1, 8), (4, 8), (4, 1)), dot(1, v2((1, 4)), 2)),
        ("64x128 i8 blocked->dot B kw4", 64, 128, 1, b((1, 16), (8, 4), (4, 1)), dot(1, v2((1, 4)), 4)),
        ("32x32 f32 blocked->dot B kw1", 32, 32, 4, b((1, 4), (8, 4), (4, 1)), dot(1, v2((1, 4)), 1)),
        ("64x64 f16 col-major->dot B kw2", 64, 64, 2, b((8, 1), (8, 4), (1, 4), (0, 1)), dot(1, v2((1, 4)), 2)),
        ("128x64 f16 blocked->dot A v3", 128, 64, 2, b((1, 8), (8, 4), (4, 1)), dot(0, v3((4, 1), 64), 2)),
        ("64x64 f16 mma v2->dot A kw2", 64, 64, 2, v2((4, 1)), dot(0, v2((4, 1)), 2)),
        ("128x64 f16 mma v3->dot A v3", 128, 64, 2, v3((4, 1), 64), dot(0, v3((4, 1), 64), 2)),
        ("64x64 f32 mma v2->dot B kw1", 64, 64, 4, v2((4, 1)), dot(1, v2((1, 4)), 1)),
        ("64x64 f16 mma v2->dot B kw2", 64, 64, 2, v2((4, 1)), dot(1, v2((1, 4)), 2)),
        ("64x32 i8 mma v2->dot A kw4", 64, 32, 1, v2((4, 1)), dot(0, v2((4, 1)), 4)),
        ("64x32 f32 slice->col-major", 64, 32, 4, sl(2, (1, 4, 1), (4, 8, 1), (4, 1, 1), (2, 1, 0)),
         b((4, 1), (8, 4), (1, 4), (0, 1))),
        ("32x128 f16 slice->mma v2", 32, 128, 2, sl(1, (1, 1, 8), (2, 1, 16), (4, 1, 1), (2, 1, 0)), v2((2, 2))),
        ("16x256 i8 slice->blocked", 16, 256, 1, sl(0, (1, 1, 16), (1, 2, 16), (1, 4, 1), (2, 1, 0)),
         b((1, 4), (16, 2), (1, 4))),
        ("64x64 f16 slice->col-major", 64, 64, 2, sl(2, (1, 8, 1), (8, 4, 1), (2, 2, 1), (1, 0, 2)),
         b((8, 1), (4, 8), (1, 4), (0, 1))),
        ("128x16 f32 blocked->slice", 128, 16, 4, b((1, 4), (8, 4), (4, 1)),
         sl(1, (4, 1, 1), (4, 1, 8), (4, 1, 1), (0, 2, 1))),
        ("256x32 f16 rows->cols", 256, 32, 2, lp.blocked(256, 32, 8, (4, 8)), lp.blocked(256, 32, 8, (4, 8), False)),
        ("32x256 i8 rows->cols", 32, 256, 1, lp.blocked(32, 256, 16, (16, 2)),
         lp.blocked(32, 256, 16, (2, 16), False)),
        ("16x128 f32 rows->cols", 16, 128, 4, lp.blocked(16, 128, 4, (8, 4)), lp.blocked(16, 128, 4, (4, 8), False)),
        ("128x16 f16 rows->cols", 128, 16, 2, lp.blocked(128, 16, 8, (2, 16)), lp.blocked(128, 16, 8, (16, 2), False)),
        ("256x64 i8 rows->cols", 256, 64, 1, lp.blocked(256, 64, 16, (4, 8)), lp.blocked(256, 64, 16, (16, 2), False)),
        ("128x128 i8 rows->cols", 128, 128, 1, lp.blocked(128, 128, 16, (8, 4)),
         lp.blocked(128, 128, 16, (8, 4), False)),
        ("64x64 f16 vec1->vec8", 64, 64, 2, b((1, 1), (1, 32), (4, 1)), b((1, 8), (8, 4), (4, 1))),
        ("128x64 f32 vec4->vec1 8 warps", 128, 64, 4, b((1, 4), (4, 8), (8, 1)), b((1, 1), (1, 32), (8, 1))),
    ]
    rng = random.Random(35)
    for k, (rows, cols, e) in enumerate([(256, 16, 2), (16, 256, 4), (128, 32, 1), (32, 128, 4), (256, 32, 1),
                                         (64, 128, 2)]):
        regs = (rows * cols).bit_length() - 1 - 5 - 2
        nv.append((f"linear {k} {rows}x{cols} e{e}", rows, cols, e, lp.random_layout(rng, rows, cols, regs),
                   lp.random_layout(rng, rows, cols, regs)))
    out = [(name, rows, cols, e, "nvidia", s, d) for name, rows, cols, e, s, d in nv]
    amd_pairs = [
        ("gfx942 64x64 f16 mfma32->blocked", "gfx942", 64, 64, 2, mfma(3, (32, 32, 8), (2, 2)),
         b((1, 8), (8, 8), (4, 1))),
        ("gfx942 64x64 f32 mfma16->blocked", "gfx942", 64, 64, 4, mfma(3, (16, 16, 16), (2, 2)),
         b((1, 4), (4, 16), (4, 1))),
        ("gfx942 128x64 f16 blocked->dot A", "gfx942", 128, 64, 2, b((1, 8), (8, 8), (4, 1)),
         dot(0, mfma(3, (32, 32, 8), (4, 1)), 4)),
        ("gfx942 64x128 f16 mfma32->dot A", "gfx942", 64, 128, 2, mfma(3, (32, 32, 8), (2, 1)),
         dot(0, mfma(3, (32, 32, 8), (2, 1)), 4)),
        ("gfx942 32x64 i8 mfma16->blocked", "gfx942", 32, 64, 1, mfma(3, (16, 16, 32), (2, 2)),
         b((1, 8), (16, 4), (2, 2))),
        ("gfx942 64x64 f16 rows->cols", "gfx942", 64, 64, 2, b((1, 8), (8, 8), (4, 1)),
         b((8, 1), (8, 8), (1, 4), (0, 1))),
        ("gfx950 64x64 f16 mfma32->blocked", "gfx950", 64, 64, 2, mfma(4, (32, 32, 16), (2, 2)),
         b((1, 8), (8, 8), (4, 1))),
        ("gfx950 128x128 f16 blocked->dot B", "gfx950", 128, 128, 2, b((1, 8), (16, 4), (4, 1)),
         dot(1, mfma(4, (32, 32, 16), (1, 4)), 8)),
        ("gfx950 64x64 f32 mfma16->blocked", "gfx950", 64, 64, 4, mfma(4, (16, 16, 32), (2, 2), False),
         b((1, 4), (4, 16), (4, 1))),
        ("gfx950 64x128 i8 blocked->mfma16", "gfx950", 64, 128, 1, b((1, 16), (8, 8), (4, 1)),
         mfma(4, (16, 16, 32), (4, 1))),
        # (issue 35, 2026-11-28: a column-major A read as the MFMA operand: K runs across the lanes,
        # the case ds_read_b64_tr_b16 is for)
        ("gfx950 64x64 f16 col-major->dot A", "gfx950", 64, 64, 2, b((8, 1), (8, 8), (1, 4), (0, 1)),
         dot(0, mfma(4, (16, 16, 32), (4, 1)), 8)),
    ]
    out += [(name, rows, cols, e, arch, s, d) for name, arch, rows, cols, e, s, d in amd_pairs]
    return out


_AMD_LDS = re.compile(r"^\s*(ds_(?:read|write|load|store)\w*)", re.M)


def amd_instructions(asm: str, warps: int) -> tuple[int, int]:
    """(LDS instructions issued, LDS accesses) of the AMDGCN, times the warps: every ds_read*/ds_write*
    is one instruction; the two-address forms LLVM merges pairs into (ds_read2*, ds_write2*, their
    st64 variants) are two accesses. The kernel has no loop (Triton unrolls the conversion)."""
    if re.search(r"s_cbranch\w*\s+\.LBB", asm) and re.search(r"^\.LBB\d+_\d+:", asm, re.M):
        raise ValueError("the AMDGCN has branches: instructions per warp cannot be read by counting lines")
    found = _AMD_LDS.findall(asm)
    return warps * len(found), warps * sum(2 if re.match(r"ds_(read|write)2", op) else 1 for op in found)


def amd_least(asm: str, warps: int, arch: str) -> int:
    """The least wavefronts Triton's LDS instructions could take under the tool's own counting, whatever
    their addresses: every op by its own cell (hardware.Rule: its phases, over both addresses of a
    two-address op, and its banks: gfx950's writes 32; as --vectors auto measures each op,
    hardware.Hardware.by_vector), each phase at least one wavefront and its bytes over one. Every lane of
    the wave active (the conversion's are). _d16/_d16_hi (which half of a register) count as the op."""
    from swizzle_solver.hardware import target

    hw = target(arch)
    total = 0
    for op in _AMD_LDS.findall(asm):
        rule = hw.rule(re.sub(r"_d16(_hi)?$", "", op))
        if rule is None:
            raise ValueError(f"{op}: not an instruction of --arch {arch}")
        served = hw.for_rule(rule)
        total += sum(served.lower_bound(len(p) * rule.lane_bytes) for p in rule.phases)
    return warps * total


def existing_pairs() -> list[tuple]:
    """bench/linear_pairs.py's pairs (seed 1's 20, seed 2's 25 new ones), all NVIDIA."""
    import linear_pairs as lp

    old = lp.pairs(12, 1) + [(f"seed 2 {p[0]}", *p[1:]) for p in lp.pairs(24, 2)[7:]]
    return [(name, rows, cols, e, "nvidia", s, d) for name, rows, cols, e, s, d in old]


def tool_answer(rows: int, cols: int, e: int, arch: str, src, dst):
    """The tool's --vectors auto answer of the pair (linear_pairs' in-process solve) and its seconds."""
    import time

    import linear_pairs as lp

    from swizzle_solver import general, vectors
    from swizzle_solver.access import make_tile
    from swizzle_solver.hardware import target
    from swizzle_solver.solving import solve

    hw = target(arch)
    tile = make_tile(rows, cols, None, e)
    accs = [lp.access("src", rows, cols, *src, store=True), lp.access("dst", rows, cols, *dst)]
    # each pair timed as a fresh process would solve it: nothing cached from the pairs before it
    for module, name in ((general, "_local_search"), (vectors, "_lane_offsets"), (vectors, "_phase_directions")):
        if hasattr(module, name):  # (a tree before these caches: nothing to clear)
            getattr(module, name).cache_clear()
    t = time.perf_counter()
    plain = solve(lp._problem(accs, tile, hw), table=False).answer.layout
    auto = vectors.solve_auto(accs, tile, hw, plain)
    return auto, time.perf_counter() - t


def triton_side(pair) -> dict:
    """Triton's conversion of the pair: its counts (NVIDIA: wavefronts, instructions, least; AMD:
    instructions, accesses and the least wavefronts they could take, amd_least), its shared allocation and its compile's seconds (a fresh cache)."""
    import time

    name, rows, cols, e, arch, src, dst = pair
    warps = 1 << len(gluon_bases(src, rows, cols)[2])
    with tempfile.TemporaryDirectory() as cache:
        before = os.environ.get("TRITON_CACHE_DIR")
        os.environ["TRITON_CACHE_DIR"] = cache
        try:
            t = time.perf_counter()
            asm, shared = compile_kernel(src, dst, rows, cols, e, warps, arch)
            seconds = time.perf_counter() - t
        finally:
            os.environ.pop("TRITON_CACHE_DIR")
            if before is not None:
                os.environ["TRITON_CACHE_DIR"] = before
    out = {"shared_bytes": shared, "compile_s": round(seconds, 3)}
    if arch == "nvidia":
        counted = count(asm, warps)
        if counted is not None:
            out.update(wavefronts=counted[0], instructions=counted[1], least=counted[2])
    elif _AMD_LDS.search(asm):
        out["instructions"], out["accesses"] = amd_instructions(asm, warps)
        out["least"] = amd_least(asm, warps, arch)
    return out


def compare(ours: dict, theirs: dict) -> str:
    """'win', 'tie' or 'loss: <objective>' under wavefronts, then instructions, then storage; on AMD
    Triton's wavefronts are not read: the tool's count there decides only where it is at its floor."""
    keys = ["wavefronts", "instructions", "storage"]
    mine = {"wavefronts": ours["wavefronts"], "instructions": ours["instructions"], "storage": ours["buffer_bytes"]}
    other = {"wavefronts": theirs.get("wavefronts"), "instructions": theirs["instructions"],
             "storage": theirs["shared_bytes"]}
    if other["wavefronts"] is None:  # AMD
        if theirs.get("least", 0) > ours["wavefronts"]:  # Triton's instructions cannot take as few
            return "win: wavefronts (the least Triton's instructions could take, under the tool's counting)"
        if ours["wavefronts"] > ours["least"]:
            return "open: wavefronts (Triton's not counted on AMD, the tool's above its floor)"
        if mine["instructions"] > other["instructions"]:  # Triton may have paid for them in wavefronts
            return "loss?: instructions (unless Triton's wavefronts are above the tool's floor)"
        other["wavefronts"] = mine["wavefronts"]  # the floor: Triton cannot take fewer
    for k in keys:
        if mine[k] != other[k]:
            return "win" if mine[k] < other[k] else f"loss: {k}"
    return "tie"


def run_pair(pair) -> dict:
    name, rows, cols, e, arch, src, dst = pair
    a, b = gluon_bases(src, rows, cols), gluon_bases(dst, rows, cols)
    row: dict = {"pair": name, "arch": arch, "rows": rows, "cols": cols, "elem_bytes": e}
    theirs = triton_side(pair)
    row["triton"] = theirs
    auto, seconds = tool_answer(rows, cols, e, arch, a, b)
    x = auto.answer
    r = auto.rounds
    row["tool"] = {"wavefronts": x.wavefronts, "instructions": x.instructions,
                   "least": sum(m.lower_bound for m in x.accesses),
                   "buffer_bytes": (r.buffer_elements if r else rows * cols) * e, "rounds": r.rounds if r else 1,
                   "instructions_used": [m.instruction for m in x.accesses], "solve_s": round(seconds, 3),
                   "complete": auto.kernel_complete}
    row["verdict"] = compare(row["tool"], theirs) if "instructions" in theirs else "no shared memory"
    return row


def _line(row: dict) -> str:
    t, tr = row["tool"], row["triton"]
    theirs = ("shuffles" if "instructions" not in tr else
              f"{tr.get('wavefronts', '>=' + str(tr.get('least', '?')))}/{tr['instructions']}/{tr['shared_bytes']}"
              + (f" ({tr['accesses']})" if "accesses" in tr else ""))
    return (f"{row['pair']:38} {t['wavefronts']:>5}/{t['instructions']}/{t['buffer_bytes']:<7} {theirs:>16} "
            f"{t['solve_s']:>6.2f} {tr['compile_s']:>6.2f}  {' -> '.join(t['instructions_used'])}  {row['verdict']}"
            )


def main() -> None:
    import argparse
    import json
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    sys.path.insert(0, str(root))
    sys.path.insert(0, str(root / "bench"))
    ap = argparse.ArgumentParser(description="the tool's --vectors auto against Triton's compiled conversions")
    ap.add_argument("--which", choices=["new", "existing", "all"], default="all")
    ap.add_argument("--only", default="", help="a regular expression: the pairs whose name it finds")
    ap.add_argument("--json", help="write every pair's row here")
    args = ap.parse_args()
    todo = (new_pairs() if args.which != "existing" else []) + (existing_pairs() if args.which != "new" else [])
    todo = [p for p in todo if re.search(args.only, p[0])]
    triton_side(todo[0])  # Triton's first compile loads its passes: not timed
    # and the tool's first solve loads its modules, z3 (the linear family's engine) with them: not
    # timed either, so that each pair's two times are of the same kind (warm, in process)
    import swizzle_solver.smt  # noqa: F401

    run_pair(todo[0])
    print(f"{'pair':38} {'tool wf/instr/bytes':>19} {'triton':>16} {'tool s':>6} {'tri s':>6}  (AMD: Triton's "
          "wavefronts not read: >= the least its instructions could take; its LDS accesses in parentheses: ds_*2 forms are two)")
    rows = []
    for pair in todo:
        try:
            row = run_pair(pair)
        except Exception as err:  # a pair the interpreter or the tool cannot do: said, not hidden
            row = {"pair": pair[0], "arch": pair[4], "error": f"{type(err).__name__}: {err}"[:300]}
            print(f"{pair[0]:38} error: {row['error']}", flush=True)
        else:
            print(_line(row), flush=True)
        rows.append(row)
    fresh = {p[0] for p in new_pairs()}
    for group, mine in (("new", [r for r in rows if r["pair"] in fresh]),
                        ("existing", [r for r in rows if r["pair"] not in fresh])):
        verdicts = [r.get("verdict", "error").split(" (")[0] for r in mine]
        print(f"{group}: {len(mine)} pairs: " + ", ".join(f"{v} {verdicts.count(v)}" for v in sorted(set(verdicts))))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
