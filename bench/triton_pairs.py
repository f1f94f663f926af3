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
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon import language as ttgl
    from triton.experimental.gluon._runtime import GluonASTSource

    os.environ.setdefault("TRITON_CACHE_DIR", os.path.join(tempfile.gettempdir(), "swizzle-triton-pairs"))

    def lay(bases):
        reg, lane, warp = ([list(b) for b in part] for part in bases)
        return ttgl.DistributedLinearLayout(reg_bases=reg, lane_bases=lane, warp_bases=warp, block_bases=[],
                                            shape=[rows, cols])

    sig = {"x_ptr": POINTER[elem_bytes], "y_ptr": POINTER[elem_bytes], "ROWS": "constexpr", "COLS": "constexpr",
           "SRC": "constexpr", "DST": "constexpr"}
    constexprs = {"ROWS": rows, "COLS": cols, "SRC": lay(src), "DST": lay(dst)}
    compiled = triton.compile(GluonASTSource(_kernel(), signature=sig, constexprs=constexprs, attrs={}),
                              target=GPUTarget("cuda", 90, 32), options={"num_warps": warps})
    return compiled.asm["ptx"]


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
