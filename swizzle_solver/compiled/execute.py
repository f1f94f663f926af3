"""What each PTX instruction does to the emulator's state (emulator.py): one handler per opcode.

A handler gets the instruction and the threads it runs for (``active``: at this PC with their
guard true; ``maybe``: at this PC with their guard unknown) and writes its results; for threads
whose guard is unknown every result is unknown. Integer arithmetic is exact on the type's bits
(``norm``/``store``); floating point and loads from memory other than initialized .global/.const
data give unknown values; an opcode not listed here is an instruction the emulator cannot execute
(bad input, naming it and its line).
"""
from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import numpy as np

from ..model import InputError
from .emulator import FLOAT, INT_TYPES, KEEP, SHARED_WINDOW, Ctx, Decoded, Emulator, Value, merge, norm, store
from .ptx import TYPE_BYTES, Instruction, Operand

SIGN = np.int64(-(1 << 63))


# --- results ------------------------------------------------------------------------------------


def put(emu: Emulator, op: Operand, value: Value, t: str, ctx: Ctx) -> None:
    """Write ``value`` to ``op`` for the active threads; unknown for those whose guard is unknown."""
    if op.kind == "vec":
        for x in op.items:
            put(emu, x, value, t, ctx)
        return
    emu.write(op, value, t, None if ctx.all else ctx.active)
    if ctx.maybe is not None:
        emu.write(op, emu.unknown(f"a guard that depends on {emu.why_guard}"), t, ctx.maybe)


def put_unknown(emu: Emulator, ins: Instruction, ctx: Ctx, why: str) -> None:
    if ins.operands and ins.operands[0].kind in ("reg", "vec", "pair"):
        put(emu, ins.operands[0], emu.unknown(f"{why} ({emu.where(ins)})"), ins.mods[-1] if ins.mods else "b32", ctx)
        if ins.operands[0].kind == "pair":
            put(emu, ins.operands[0].items[1], emu.unknown(why), "pred", ctx)


def _unknown_of(*values: Value) -> tuple[np.ndarray | None, str]:
    u, why = None, ""
    for x in values:
        if x.u is not None:
            u = x.u if u is None else u | x.u
            why = why or x.why
    return u, why


def result(v: np.ndarray, *sources: Value, shared: bool = False) -> Value:
    """``v`` unknown where a source is (the first unknown source's reason), shared if one is."""
    u, why = None, ""
    for x in sources:
        if x.u is not None:
            u = x.u if u is None else u | x.u
            why = why or x.why
        shared = shared or x.shared
    return Value(v, u, why, shared)


def type_of(ins: Instruction) -> str:
    """The instruction's (last) type modifier, or b32."""
    return _type_of_mods(ins.mods)


def _float(ins: Instruction) -> bool:
    return _float_mods(ins.mods)


# (read once per list of modifiers: a kernel has few distinct ones, and these run at every step)
@lru_cache(maxsize=4096)
def _type_of_mods(mods: tuple[str, ...]) -> str:
    return next((m for m in reversed(mods) if m in TYPE_BYTES), "b32")


@lru_cache(maxsize=4096)
def _float_mods(mods: tuple[str, ...]) -> bool:
    return any(m in FLOAT for m in mods)


# --- integer arithmetic -------------------------------------------------------------------------


def _u(v: np.ndarray) -> np.ndarray:
    return v.view(np.uint64)


def _shift(a: np.ndarray, b: np.ndarray, t: str, left: bool) -> np.ndarray:
    w = 8 * TYPE_BYTES[t]
    if w < 64 and (left or not t.startswith("s")):
        # a holds its w bits (norm, unsigned to the right): shifted by w or more it has none left; to
        # the left, the caller keeps the result's w bits (store)
        return a << np.minimum(b, 63) if left else a >> np.minimum(b, 63)
    big = b >= w
    s = np.minimum(b, w - 1)
    if left:
        return np.where(big, 0, a << s)
    if t.startswith("s"):
        return a >> s  # (a is sign-extended: >> w - 1 is the sign fill PTX asks for past the width)
    if w == 64:
        return np.where(big, 0, (_u(a) >> _u(s)).view(np.int64))
    return np.where(big, 0, a >> s)


def _divide(a: np.ndarray, b: np.ndarray, t: str, rem: bool) -> np.ndarray:
    safe = np.where(b == 0, 1, b)
    if t.startswith("s"):
        q = np.abs(a) // np.abs(safe) * np.sign(a) * np.sign(safe)  # C's truncation toward zero
        return a - q * safe if rem else q
    if 8 * TYPE_BYTES[t] == 64:
        ua, ub = _u(a), _u(safe)
        return ((ua % ub) if rem else (ua // ub)).view(np.int64)
    return a % safe if rem else a // safe


def _minmax(a: np.ndarray, b: np.ndarray, t: str, low: bool) -> np.ndarray:
    unsigned64 = t.startswith("u") and 8 * TYPE_BYTES.get(t, 4) == 64
    less = (a ^ SIGN) < (b ^ SIGN) if unsigned64 else a < b
    return np.where(less == low, a, b)


def _low24(v: np.ndarray, t: str) -> np.ndarray:
    """mul24/mad24 multiply the low 24 bits of their operands (sign-extended for .s32)."""
    low = v & 0xFFFFFF
    return low - ((low >> 23) << 24) if t.startswith("s") else low


_WIDENED = {"s32": "s64", "u32": "u64", "s16": "s32", "u16": "u32"}  # mul.wide's result type


def _mul(a: np.ndarray, b: np.ndarray, t: str, mods: tuple[str, ...]) -> tuple[np.ndarray, str]:
    """(product, result type): .lo, .hi or .wide of a * b."""
    w = 8 * TYPE_BYTES[t]
    if "wide" in mods:
        return a * b, _WIDENED.get(t, "b64")
    if "hi" in mods:
        if w == 64:
            signed = t.startswith("s")
            out = [((int(x) if signed else int(x) & ((1 << 64) - 1)) * (int(y) if signed else int(y) & ((1 << 64) - 1))
                    >> 64) & ((1 << 64) - 1) for x, y in zip(a.tolist(), b.tolist(), strict=True)]
            return np.array([x - (1 << 64) if x >= 1 << 63 else x for x in out], dtype=np.int64), t
        return (a * b) >> w, t
    return a * b, t


_BITWISE = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}
_ARITH: dict[str, Callable[[np.ndarray, np.ndarray, str, tuple[str, ...]], tuple[np.ndarray, str]]] = {
    "add": lambda a, b, t, m: (a + b, t),
    "sub": lambda a, b, t, m: (a - b, t),
    "mul": _mul,
    "mul24": lambda a, b, t, m: _mul(_low24(a, t), _low24(b, t), t, m),
    "div": lambda a, b, t, m: (_divide(a, b, t, False), t),
    "rem": lambda a, b, t, m: (_divide(a, b, t, True), t),
    "min": lambda a, b, t, m: (_minmax(a, b, t, True), t),
    "max": lambda a, b, t, m: (_minmax(a, b, t, False), t),
    "and": lambda a, b, t, m: (a & b, t),
    "or": lambda a, b, t, m: (a | b, t),
    "xor": lambda a, b, t, m: (a ^ b, t),
    "shl": lambda a, b, t, m: (_shift(a, b, t, True), t),
    "shr": lambda a, b, t, m: (_shift(a, b, t, False), t),
}


# the operations whose result's low w bits are a function of the operands' low w bits alone (int64
# arithmetic wraps mod 2**64): done on the registers' bits without reading them as the type first
# (norm), since the write keeps the result's w bits (store); mul.hi and mul.wide need the whole values
_LOW_BITS = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "and": np.bitwise_and, "or": np.bitwise_or,
             "xor": np.bitwise_xor}


@lru_cache(maxsize=4096)
def _low_bits(op: str, mods: tuple[str, ...]) -> Callable[[np.ndarray, np.ndarray], np.ndarray] | None:
    """The ufunc of an integer add, sub, mul.lo, and, or, xor (``_LOW_BITS``), else None."""
    if op not in _LOW_BITS or _type_of_mods(mods) not in INT_TYPES or (_float_mods(mods) and op not in _BITWISE):
        return None
    return None if op == "mul" and ("hi" in mods or "wide" in mods) else _LOW_BITS[op]


def h_binary(emu: Emulator, ins: Instruction, ctx: Ctx) -> None:
    d, x, y = ins.operands[0], ins.operands[1], ins.operands[2]
    t = type_of(ins)
    low = _low_bits(ins.opcode, ins.mods)
    if low is not None:  # (on the bits as they are: the write keeps t's, store)
        a, b = emu.read(x, t), emu.read(y, t)
        put(emu, d, result(low(a.v, b.v), a, b), t, ctx)
        return
    op = ins.opcode
    if _float(ins) and op not in _BITWISE:
        put_unknown(emu, ins, ctx, "floating-point arithmetic")
        return
    if t == "pred":
        a, b = emu.read(x), emu.read(y)
        put(emu, d, result(_BITWISE[op](a.v, b.v) & 1, a, b), "pred", ctx)
        return
    bt = "u32" if op in ("shl", "shr") else t  # a shift amount is a u32
    a, b = emu.read(x, t), emu.read(y, bt)
    av, bv = norm(a.v, t), norm(b.v, bt)
    v, out_t = _ARITH[op](av, bv, t, ins.mods)
    value = result(store(v, out_t), a, b, shared=op in ("add", "sub", "or") and (a.shared or b.shared))
    if op in ("div", "rem") and (bv == 0).any():  # a division by zero: unknown, not C's undefined value
        zero = bv == 0
        value = Value(value.v, zero if value.u is None else value.u | zero, value.why or "a division by zero")
    put(emu, d, value, out_t, ctx)


def decode(emu: Emulator, ins: Instruction) -> Decoded | None:
    """The commonest steps decoded once (``_form``: integer add/sub/mul.lo/mul.wide/and/or/xor, a
    narrow shl and unsigned shr, mov, a plain integer setp) where every operand is a register or an
    immediate and the destination a register, with no guard: the handler's step for the threads
    ``at`` its PC (None: every thread), without its layers (step's Ctx, read, put, write). The step
    returns False, having done nothing, where a register it reads or writes has no value yet (the
    handler then writes the unknown and checks the register budget); None: not one of those forms."""
    form = _form(ins.opcode, ins.mods)
    ops = ins.operands
    if form is None or ins.guard is not None or len(ops) <= form.arity or ops[0].kind != "reg":
        return None
    if any(op.kind not in ("reg", "imm") or op.negate for op in ops[1:1 + form.arity]):
        return None
    d, fn, mask = ops[0].name, form.fn, KEEP.get(form.out)  # (mask: the write's store)
    x, y = (op.name if op.kind == "reg" else emu.read(op) for op in (ops[1], ops[form.arity]))  # a name or a constant
    regs, unary = emu.regs, form.arity == 1

    def decoded(at: np.ndarray | None) -> bool:
        a = regs.get(x) if isinstance(x, str) else x
        b = regs.get(y) if isinstance(y, str) else y  # (one source: the same)
        old = regs.get(d)
        if a is None or b is None or old is None:
            return False
        v = fn(a.v, b.v)
        v = v if mask is None else v & mask
        value = result(v, a) if unary else result(v, a, b)
        regs[d] = value if at is None else merge(old, value, at)
        return True

    return decoded


class _Form:
    """A decoded step's computation: ``fn`` of the two sources' bits (``arity`` 1: the first, given
    twice), its result's type."""

    __slots__ = ("fn", "arity", "out")

    def __init__(self, fn: Callable[..., np.ndarray], arity: int, out: str) -> None:
        self.fn, self.arity, self.out = fn, arity, out


@lru_cache(maxsize=4096)
def _form(op: str, mods: tuple[str, ...]) -> _Form | None:
    """What h_binary / h_mov compute for these modifiers, where decode takes it; else None."""
    t = _type_of_mods(mods)
    if op == "mov":
        return _Form(lambda a, _: a, 1, t)  # (one source, given twice)
    if t not in INT_TYPES or _float_mods(mods):
        return None
    if op == "setp":
        return _setp_form(mods, t)
    low = _low_bits(op, mods)
    if low is not None:
        return _Form(low, 2, t)
    if op == "mul" and "wide" in mods:  # the whole values' product, of the wide type
        return _Form(lambda a, b: norm(a, t) * norm(b, t), 2, _WIDENED.get(t, "b64"))
    return _shift_form(op, t)


def _setp_form(mods: tuple[str, ...], t: str) -> _Form | None:
    """A plain comparison into one predicate (compare): no BoolOp."""
    cmp = _CMP.get(mods[0]) if mods else None
    if cmp is None or any(m in ("and", "or", "xor") for m in mods):
        return None
    return _Form(lambda a, b: cmp(*_ordered(a, b, t, mods[0])).astype(np.int64), 2, "pred")


def _shift_form(op: str, t: str) -> _Form | None:
    """A shift of a narrow type, to the right of an unsigned one: _shift's first case (past w bits
    nothing is left of a, once stored), the amount read as the handler reads it (a u32)."""
    if 8 * TYPE_BYTES[t] >= 64:
        return None
    if op == "shl":
        return _Form(lambda a, b: _shift(a, norm(b, "u32"), t, True), 2, t)
    if op == "shr" and not t.startswith("s"):
        return _Form(lambda a, b: _shift(norm(a, t), norm(b, "u32"), t, False), 2, t)
    return None


def h_mad(emu: Emulator, ins: Instruction, ctx: Ctx) -> None:
    if _float(ins):
        put_unknown(emu, ins, ctx, "floating-point arithmetic")
        return
    t = type_of(ins)
    d, x, y, z = ins.operands[:4]
    a, b = emu.read(x, t), emu.read(y, t)
    av, bv = norm(a.v, t), norm(b.v, t)
    if ins.opcode == "mad24":
        av, bv = _low24(av, t), _low24(bv, t)
    v, out_t = _mul(av, bv, t, ins.mods)
    c = emu.read(z, out_t)
    put(emu, d, result(store(v + norm(c.v, out_t), out_t), a, b, c, shared=c.shared), out_t, ctx)


def _bits(f: Callable[[int, int], int]) -> Callable[[np.ndarray, int], np.ndarray]:
    return lambda av, w: np.array([f(x & ((1 << w) - 1), w) for x in av.tolist()], dtype=np.int64)


_UNARY: dict[str, Callable[[np.ndarray, int], np.ndarray]] = {
    "neg": lambda av, w: -av,
    "abs": lambda av, w: np.abs(av),
    "not": lambda av, w: ~av,
    "cnot": lambda av, w: (av == 0).astype(np.int64),
    "popc": _bits(lambda x, w: bin(x).count("1")),
    "clz": _bits(lambda x, w: w - x.bit_length()),
    "brev": _bits(lambda x, w: int(format(x, f"0{w}b")[::-1], 2)),
}


def h_unary(emu: Emulator, ins: Instruction, ctx: Ctx) -> None:
    t = type_of(ins)
    if _float(ins):
        put_unknown(emu, ins, ctx, "floating-point arithmetic")
        return
    a = emu.read(ins.operands[1], t)
    op = ins.opcode
    if t == "pred":
        v = 1 - (a.v & 1) if op in ("not", "cnot") else a.v & 1
        put(emu, ins.operands[0], result(v, a), "pred", ctx)
        return
    av = norm(a.v, t) if t in INT_TYPES else a.v
    out_t = "u32" if op in ("popc", "clz") else t
    v = _UNARY[op](av, 8 * TYPE_BYTES.get(t, 4))
    put(emu, ins.operands[0], result(store(v, out_t), a), out_t, ctx)


def h_mov(emu: Emulator, ins: Instruction, ctx: Ctx) -> None:
    t = type_of(ins)
    d, s = ins.operands[0], ins.operands[1]
    w = 8 * TYPE_BYTES.get(t, 4)
    if s.kind == "vec":  # pack: the first element in the low bits
        parts = [emu.read(x) for x in s.items]
        k = w // len(parts)
        v = np.zeros(emu.n, dtype=np.int64)
        for i, part in enumerate(parts):
            v |= (part.v & ((1 << k) - 1)) << (i * k)
        put(emu, d, result(v, *parts), t, ctx)
        return
    a = emu.read(s, t)
    if d.kind == "vec":  # unpack
        k = w // len(d.items)
        for i, x in enumerate(d.items):
            piece = (a.v >> (i * k)) & ((1 << k) - 1) if i * k < 64 else np.zeros_like(a.v)
            put(emu, x, result(piece, a), "b64", ctx)
        return
    put(emu, d, result(a.v, a, shared=a.shared), t, ctx)


def h_selp(emu: Emulator, ins: Instruction, ctx: Ctx) -> None:
    t = type_of(ins)
    d, x, y, c = ins.operands[:4]
    a, b, p = emu.read(x, t), emu.read(y, t), emu.read(c)
    v = np.where((p.v & 1).astype(bool), a.v, b.v)
    u, why = _unknown_of(p)
    if a.u is not None or b.u is not None:  # only the selected source's unknowns count
        ua = a.u if a.u is not None else np.zeros(emu.n, bool)
        ub = b.u if b.u is not None else np.zeros(emu.n, bool)
        sel = np.where((p.v & 1).astype(bool), ua, ub)
        u = sel if u is None else u | sel
        why = why or a.why or b.why
    put(emu, d, Value(v, u if u is None or u.any() else None, why, a.shared or b.shared), t, ctx)


_CMP = {
    "eq": lambda a, b: a == b, "ne": lambda a, b: a != b, "lt": lambda a, b: a < b, "le": lambda a, b: a <= b,
    "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b, "lo": lambda a, b: a < b, "ls": lambda a, b: a <= b,
    "hi": lambda a, b: a > b, "hs": lambda a, b: a >= b,
}


def _ordered(a: np.ndarray, b: np.ndarray, t: str, cmp: str) -> tuple[np.ndarray, np.ndarray]:
    """a and b read as t, as int64s that compare as t's values do (an unsigned 64-bit one: its sign flipped)."""
    av, bv = norm(a, t), norm(b, t)
    if 8 * TYPE_BYTES.get(t, 4) == 64 and (t.startswith("u") or t.startswith("b") or cmp in ("lo", "ls", "hi", "hs")):
        av, bv = av ^ SIGN, bv ^ SIGN
    return av, bv


def compare(emu: Emulator, ins: Instruction, a: Value, b: Value, t: str, cmp: str) -> Value:
    if t in FLOAT:
        return result(np.zeros(emu.n, np.int64), emu.unknown("a floating-point comparison"), a, b)
    av, bv = _ordered(a.v, b.v, t, cmp)
    fn = _CMP.get(cmp)
    if fn is None:
        raise InputError(f"{emu.where(ins)}: unknown comparison {cmp!r} in {ins.text!r}")
    return result(fn(av, bv).astype(np.int64), a, b)


def h_setp(emu: Emulator, ins: Instruction, ctx: Ctx) -> None:
    t = type_of(ins)
    cmp = ins.mods[0]
    d = ins.operands[0]
    r = compare(emu, ins, emu.read(ins.operands[1], t), emu.read(ins.operands[2], t), t, cmp)
    combine = next((m for m in ins.mods if m in ("and", "or", "xor")), None)
    c = emu.read(ins.operands[3]) if combine is not None else None
    put(emu, d.items[0] if d.kind == "pair" else d, _combined(r, combine, c), "pred", ctx)
    if d.kind == "pair":  # (the second predicate: the comparison's negation, combined)
        put(emu, d.items[1], _combined(Value(1 - r.v, r.u, r.why), combine, c), "pred", ctx)


def _combined(r: Value, combine: str | None, c: Value | None) -> Value:
    """setp's BoolOp: ``r`` and/or/xor the predicate ``c``."""
    if combine is None or c is None:
        return r
    f = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[combine]
    return result(f(r.v, c.v & 1), r, c)


def h_set(emu: Emulator, ins: Instruction, ctx: Ctx) -> None:
    types = [m for m in ins.mods if m in TYPE_BYTES]
    if len(types) < 2 or types[0] in FLOAT:
        put_unknown(emu, ins, ctx, "a floating-point set")
        return
    r = compare(emu, ins, emu.read(ins.operands[1], types[1]), emu.read(ins.operands[2], types[1]), types[1], ins.mods[0])
    put(emu, ins.operands[0], result(-r.v, r), types[0], ctx)


def h_bfe(emu: Emulator, ins: Instruction, ctx: Ctx) -> None:
    t = type_of(ins)
    w = 8 * TYPE_BYTES[t]
    a, b, c = emu.read(ins.operands[1], t), emu.read(ins.operands[2], "u32"), emu.read(ins.operands[3], "u32")
    av = norm(a.v, t)
    pos, length = b.v & 0xFF, c.v & 0xFF
    field = np.where(pos >= w, (av >> (w - 1)) if t.startswith("s") else 0, av >> np.minimum(pos, w - 1))
    mask = np.where(length >= 64, -1, (np.int64(1) << np.minimum(length, 63)) - 1)
    v = field & mask
    if t.startswith("s"):  # sign-extend from the field's top bit (PTX: the sign of bit pos + len - 1)
        top = np.minimum(pos + length - 1, w - 1)
        sign = np.where(length == 0, 0, (av >> top) & 1)
        v = np.where((sign == 1) & (length < w), v | ~mask, v)
    put(emu, ins.operands[0], result(store(v, t), a, b, c), t, ctx)


def h_bfi(emu: Emulator, ins: Instruction, ctx: Ctx) -> None:
    t = type_of(ins)
    a, b = emu.read(ins.operands[1], t), emu.read(ins.operands[2], t)
    c, e = emu.read(ins.operands[3], "u32"), emu.read(ins.operands[4], "u32")
    pos, length = np.minimum(c.v & 0xFF, 63), np.minimum(e.v & 0xFF, 63)
    mask = ((np.int64(1) << length) - 1) << pos
    v = (b.v & ~mask) | ((a.v << pos) & mask)
    put(emu, ins.operands[0], result(store(v, t), a, b, c, e), t, ctx)


def h_prmt(emu: Emulator, ins: Instruction, ctx: Ctx) -> None:
    if any(m in ("f4e", "b4e", "rc8", "ecl", "ecr", "rc16") for m in ins.mods):
        put_unknown(emu, ins, ctx, "a prmt mode the emulator does not follow")
        return
    a, b, c = emu.read(ins.operands[1], "b32"), emu.read(ins.operands[2], "b32"), emu.read(ins.operands[3], "b32")
    both = (a.v & 0xFFFFFFFF) | ((b.v & 0xFFFFFFFF) << 32)
    v = np.zeros(emu.n, dtype=np.int64)
    for k in range(4):
        sel = (c.v >> (4 * k)) & 0xF
        byte = (both >> ((sel & 7) * 8)) & 0xFF
        byte = np.where(sel & 8, np.where(byte & 0x80, 0xFF, 0), byte)
        v |= byte << (8 * k)
    put(emu, ins.operands[0], result(v, a, b, c), "b32", ctx)


def h_lop3(emu: Emulator, ins: Instruction, ctx: Ctx) -> None:
    t = type_of(ins)
    ops = ins.operands
    if ops[0].kind == "pair" or len(ops) < 5:
        put_unknown(emu, ins, ctx, "a lop3 form the emulator does not follow")
        return
    a, b, c, lut = emu.read(ops[1], t), emu.read(ops[2], t), emu.read(ops[3], t), emu.read(ops[4], "u32")
    if lut.u is not None:
        put_unknown(emu, ins, ctx, "lop3 with an unknown table")
        return
    table = int(lut.v[0]) & 0xFF
    v = np.zeros(emu.n, dtype=np.int64)
    for k in range(8):  # minterm k: a = bit 2, b = bit 1, c = bit 0 of k (PTX's 0xF0, 0xCC, 0xAA)
        if table >> k & 1:
            v |= (a.v if k & 4 else ~a.v) & (b.v if k & 2 else ~b.v) & (c.v if k & 1 else ~c.v)
    put(emu, ops[0], result(store(v, t), a, b, c), t, ctx)


def h_shf(emu: Emulator, ins: Instruction, ctx: Ctx) -> None:
    a, b, c = emu.read(ins.operands[1], "b32"), emu.read(ins.operands[2], "b32"), emu.read(ins.operands[3], "u32")
    n = c.v & 31 if "wrap" in ins.mods else np.minimum(c.v & 0xFFFFFFFF, 32)
    both = (a.v & 0xFFFFFFFF) | ((b.v & 0xFFFFFFFF) << 32)
    left = "l" in ins.mods
    v = ((both << n) >> 32) & 0xFFFFFFFF if left else (_u(both) >> _u(n)).view(np.int64) & 0xFFFFFFFF
    put(emu, ins.operands[0], result(v, a, b, c), "b32", ctx)


def h_cvt(emu: Emulator, ins: Instruction, ctx: Ctx) -> None:
    types = [m for m in ins.mods if m in TYPE_BYTES]
    if len(types) < 2 or types[0] in FLOAT or types[1] in FLOAT:
        put_unknown(emu, ins, ctx, "a floating-point conversion")
        return
    d, s = types[0], types[1]
    a = emu.read(ins.operands[1], s)
    v = norm(a.v, s)
    if "sat" in ins.mods:
        w = 8 * TYPE_BYTES[d]
        lo, hi = (-(1 << (w - 1)), (1 << (w - 1)) - 1) if d.startswith("s") else (0, (1 << w) - 1 if w < 64 else 1 << 62)
        v = np.clip(v, lo, hi)
    put(emu, ins.operands[0], result(store(v, d), a, shared=a.shared), d, ctx)


def h_cvta(emu: Emulator, ins: Instruction, ctx: Ctx) -> None:
    t = type_of(ins)
    a = emu.read(ins.operands[1], t)
    if "shared" in _spaces(ins):
        v = a.v - SHARED_WINDOW if "to" in ins.mods else a.v + SHARED_WINDOW
        put(emu, ins.operands[0], Value(store(v, t), a.u, a.why, True), t, ctx)
        return
    put(emu, ins.operands[0], Value(a.v, a.u, a.why, False), t, ctx)


def _spaces(ins: Instruction) -> set[str]:
    return {m.split("::")[0] for m in ins.mods}


# --- control flow -------------------------------------------------------------------------------


def h_bra(emu: Emulator, ins: Instruction, ctx: Ctx) -> None:
    target = ins.operands[-1]
    if target.kind != "label":
        raise InputError(f"{emu.where(ins)}: {ins.text!r}: the branch target is not a label of the kernel")
    dest = emu.f.labels[target.name]
    taken = ctx.active
    if ctx.maybe is not None:
        # --iterations: a branch on an unknown value is followed into the loop (a backward one taken,
        # until the cap; a forward one, such as a loop's entry test, not taken), and the report says so
        if emu.iterations is None:
            raise InputError(f"{emu.where(ins)}: the branch {ins.text!r} depends on {emu.why_guard}: give that value "
                             f"(--param), or --iterations N to follow a loop at most N times")
        emu.assumed[ctx.p] = emu.why_guard
        if dest <= ctx.p or (enters_loop(emu, dest) and not enters_loop(emu, ctx.p + 1)):
            taken = taken | ctx.maybe
    if dest <= ctx.p and emu.iterations is not None:  # a loop's back edge: followed at most --iterations times
        count = emu.counters.setdefault(ctx.p, np.zeros(emu.n, dtype=np.int64))
        over = taken & (count >= emu.iterations - 1)
        if over.any():
            emu.capped[ctx.p] = emu.capped.get(ctx.p, 0) + 1
            taken = taken & ~over
        count[taken] += 1
        count[ctx.at & ~taken] = 0  # the loop is left: a later entry counts afresh
    ctx.pcs[taken] = dest


def enters_loop(emu: Emulator, pc: int, limit: int = 4096) -> bool:
    """Whether the path from ``pc`` (following unconditional branches, stepping over conditional
    forward ones) meets a loop's back edge before a ret/exit: where --iterations follows a branch
    on an unknown value (a loop's entry test, written either way round by compilers)."""
    code, seen = emu.f.code, set[int]()
    while pc < len(code) and pc not in seen and len(seen) < limit:
        seen.add(pc)
        ins = code[pc]
        if ins.opcode in ("ret", "exit") and ins.guard is None:
            return False
        if ins.opcode == "bra" and ins.operands and ins.operands[-1].kind == "label":
            dest = emu.f.labels[ins.operands[-1].name]
            if dest <= pc:
                return True
            if ins.guard is None:
                pc = dest
                continue
        pc += 1
    return False


def h_exit(emu: Emulator, ins: Instruction, ctx: Ctx) -> None:
    if ctx.maybe is not None:
        raise InputError(f"{emu.where(ins)}: {ins.text!r} depends on {emu.why_guard}: give that value (--param)")
    ctx.pcs[ctx.active] = len(emu.f.code)


def h_nothing(emu: Emulator, ins: Instruction, ctx: Ctx) -> None:
    """Barriers, fences, hints, commits: nothing the emulator's values depend on."""


def h_unknown(emu: Emulator, ins: Instruction, ctx: Ctx) -> None:
    put_unknown(emu, ins, ctx, f"the result of {ins.opcode}")


def h_true(emu: Emulator, ins: Instruction, ctx: Ctx) -> None:
    """mbarrier.try_wait / test_wait: the wait completes (the emulator follows the kernel past it)."""
    d = ins.operands[0]
    if d.kind == "reg":
        put(emu, d, emu.const(1), "pred", ctx)


def h_elect(emu: Emulator, ins: Instruction, ctx: Ctx) -> None:
    """elect.sync: the lowest active lane of each warp is elected."""
    first = np.zeros(emu.n, dtype=np.int64)
    act = np.flatnonzero(ctx.active)
    warps = emu.warp[act]
    _, idx = np.unique(warps, return_index=True)
    first[act[idx]] = 1
    d = ins.operands[0]
    target = d.items[1] if d.kind == "pair" else d
    if d.kind == "pair" and d.items[0].kind != "sink":
        put(emu, d.items[0], Value(emu.lane.copy(), None), "b32", ctx)
    put(emu, target, Value(first, None), "pred", ctx)


def h_call(emu: Emulator, ins: Instruction, ctx: Ctx) -> None:
    raise InputError(f"{emu.where(ins)}: {ins.text!r}: calls are not emulated (compile with the callee inlined, "
                     f"e.g. __forceinline__)")


def h_shfl(emu: Emulator, ins: Instruction, ctx: Ctx) -> None:
    """shfl.sync.{up,down,bfly,idx}.b32 d[|p], a, b, c, mask: lane l reads a from lane j of its warp
    (the PTX ISA's pseudocode: c's low 5 bits the clamp, bits 8-12 the segment mask, maxLane and
    minLane from them); an out-of-range j reads its own a and sets p false. A source lane that is not
    active gives an unknown value."""
    mode = ins.mods[1] if len(ins.mods) > 1 else ""
    a, b, c = (emu.read(ins.operands[k], "b32") for k in (1, 2, 3))
    lane, bval = emu.lane, b.v & 0x1F
    clamp, seg = c.v & 0x1F, (c.v >> 8) & 0x1F
    low = lane & seg
    high = low | (clamp & ~seg)  # maxLane
    j = {"up": lane - bval, "down": lane + bval, "bfly": lane ^ bval, "idx": low | (bval & ~seg & 0x1F)}.get(mode)
    if j is None:
        put_unknown(emu, ins, ctx, "a shfl mode the emulator does not follow")
        return
    ok = j >= high if mode == "up" else j <= high
    j = np.where(ok, j, lane)
    src = np.clip(emu.warp * 32 + j, 0, emu.n - 1)
    inactive = ~(ctx.active[src]) | (emu.warp * 32 + j >= emu.n)
    u = inactive if a.u is None else inactive | a.u[src]
    u = u | b.u if b.u is not None else u
    u = u | c.u if c.u is not None else u
    d = ins.operands[0]
    value = Value(a.v[src], u if u.any() else None, a.why or "a shfl from a lane that is not active")
    put(emu, d.items[0] if d.kind == "pair" else d, value, "b32", ctx)
    if d.kind == "pair":
        put(emu, d.items[1], Value(ok.astype(np.int64), value.u, value.why), "pred", ctx)


def h_mbarrier(emu: Emulator, ins: Instruction, ctx: Ctx) -> None:
    if ins.mods and ins.mods[0] in ("try_wait", "test_wait"):
        h_true(emu, ins, ctx)
    elif ins.operands and ins.operands[0].kind == "reg":
        h_unknown(emu, ins, ctx)



NOTHING = ("bar", "barrier", "membar", "fence", "griddepcontrol", "prefetch", "prefetchu", "applypriority",
           "discard", "nanosleep", "pmevent", "setmaxnreg", "trap", "brkpt", "bar.warp", "wgmma_fence_placeholder",
           "cp", "stackrestore", "tensormap")
# opcodes whose results the emulator does not compute (floating point, warp-collective, tensor core,
# texture, clocks): their destinations become unknown values
UNKNOWN = ("fma", "rcp", "sqrt", "rsqrt", "ex2", "lg2", "sin", "cos", "tanh", "copysign", "testp", "mma", "wmma",
           "vote", "activemask", "match", "redux", "tex", "tld4", "txq", "suld", "suq", "istypep", "slct",
           "dp4a", "dp2a", "sad", "addc", "subc", "madc", "fns", "bmsk", "szext", "createpolicy", "isspacep",
           "alloca", "stacksave", "getctarank", "mapa", "movmatrix", "cvt_pack", "ld_placeholder", "vabsdiff",
           "vadd", "vsub", "vmin", "vmax", "vshl", "vshr", "vmad", "vset", "mul_hi_placeholder", "bfind", "fmax",
           "fmin", "nanosleep_placeholder", "clusterlaunchcontrol")

