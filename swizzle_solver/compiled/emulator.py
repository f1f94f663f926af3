"""One CTA of a PTX kernel, every thread at once (DESIGN.md section 15, "Emulation").

Every thread has concrete special registers (``%tid``, ``%ntid``, ``%ctaid``, ``%laneid``,
``%warpid``); registers are numpy arrays over the CTA's threads (int64 bit patterns, a register of
w < 64 bits held as its w bits) with a per-thread *unknown* mask: a value the emulator does not
know (a load from memory other than initialized ``.global``/``.const`` data, an unnamed parameter,
floating point) is never guessed, and whatever depends on it is unknown too, with the reason.

Control flow: each thread has its own PC; a step executes the instruction at the lowest PC of any
thread, for every thread there. For one warp that is what a warp that always runs its
lowest-addressed lanes does: it diverges at a branch whose lanes disagree and reconverges where
the paths meet (the join of an if/else, the exit of a loop); running all warps in one step changes
nothing, since a step moves a warp only at its own lowest PC, and the warps share no value (shared
memory's contents are unknown). A shared-memory instruction records, per step, its threads and
their addresses (``Event``): count.py makes each warp's part the k-th instance of the instruction
by that warp.

Speed (a step costs numpy's per-call overhead on small arrays, not their length): the threads at
the lowest PC step on as one group until a branch or exit may part them or they meet the next
lowest PC (``run``); the arrays every value shares (constants, special registers, the unknown
value's) are made once, read-only; and the commonest instructions (integer add/sub/mul/and/or/xor,
narrow shifts, mov, setp on registers and immediates: most of a kernel's steps) are decoded at
their second step into a step of their own (execute.decode), which writes what the handler writes.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..model import InputError
from .ptx import TYPE_BYTES, Function, Instruction, Module, Operand

MAX_STEPS = 100_000  # executed instructions (each for every thread at its PC): a loop with no exit ends here
MAX_EVENT_LANES = 8_000_000  # recorded shared-memory lane addresses (64 MB of int64)
MAX_REGISTER_BYTES = 512 << 20  # every register's values and unknown masks for every thread
SHARED_WINDOW = 1 << 44  # generic address of shared byte 0 (cvta.shared / cvta.to.shared)
GLOBAL_BASE = 1 << 40  # where the module's .global/.const variables are placed
LOCAL_BASE = 1 << 46
ALLOC_ALIGN = 128  # each shared allocation starts at a multiple of 128 B (DESIGN.md section 1)
M64 = (1 << 64) - 1
Handler = Callable[["Emulator", Instruction, Any], None]
Decoded = Callable[[Any], bool]  # an instruction's step decoded once (execute.decode), for the threads at its PC
Decoder = Callable[["Emulator", Instruction], "Decoded | None"]

FLOAT = ("f16", "f32", "f64", "bf16", "f16x2", "bf16x2", "tf32", "e4m3", "e5m2", "e4m3x2", "e5m2x2")
INT_TYPES = {t: 8 * b for t, b in TYPE_BYTES.items() if t not in FLOAT and t != "pred"}


class Ctx:
    __slots__ = ("p", "at", "active", "maybe", "pcs", "all")

    def __init__(self, p: int, at: np.ndarray, active: np.ndarray, maybe: np.ndarray | None, pcs: np.ndarray,
                 everyone: bool) -> None:
        self.p, self.at, self.active, self.maybe, self.pcs = p, at, active, maybe, pcs
        self.all = everyone  # active is every thread


class Event:
    """One step of a shared-memory instruction: its index, the threads it ran for (the guard held;
    ascending), their shared byte addresses, which of those are unknown (data-dependent), and the unknown's reason."""

    __slots__ = ("pc", "threads", "addresses", "unknown", "reason")

    def __init__(self, pc: int, threads: np.ndarray, addresses: np.ndarray, unknown: np.ndarray, reason: str) -> None:
        self.pc, self.threads, self.addresses, self.unknown, self.reason = pc, threads, addresses, unknown, reason


class Allocation:
    """A shared-memory allocation: a ``.shared`` variable, or the dynamic shared memory (every
    ``.extern .shared`` array), at [base, base + size) of the CTA's shared window."""

    __slots__ = ("name", "base", "size", "dynamic")

    def __init__(self, name: str, base: int, size: int, dynamic: bool) -> None:
        self.name, self.base, self.size, self.dynamic = name, base, size, dynamic


class Value:
    __slots__ = ("v", "u", "why", "shared")

    def __init__(self, v: np.ndarray, u: np.ndarray | None, why: str = "", shared: bool = False) -> None:
        self.v, self.u, self.why, self.shared = v, u, why, shared


def _shown(op: Operand) -> str:
    return {"imm": "an integer", "fimm": "a float", "addr": "an address", "label": f"label {op.name}",
            "vec": "a vector"}.get(op.kind, f"{op.kind} {op.name}".strip())


def some(mask: np.ndarray) -> bool:
    """``mask.any()``, without its Python wrapper: a few microseconds a call on the emulator's small arrays."""
    return int(np.count_nonzero(mask)) > 0


def merge(old: Value, new: Value, active: np.ndarray) -> Value:
    """``new`` for the active threads, ``old`` for the others."""
    v = np.where(active, new.v, old.v)
    u = None
    if new.u is not None and new.u is old.u:  # (the same mask, e.g. every thread's unknown: as it is)
        u = new.u if some(new.u) else None
    elif new.u is not None or old.u is not None:
        u = np.where(active, new.u if new.u is not None else False, old.u if old.u is not None else False)
        u = u if some(u) else None
    return Value(v, u, new.why if new.u is not None else old.why, new.shared or old.shared)


def _frozen(v: np.ndarray) -> np.ndarray:
    """``v`` made read-only: the arrays the emulator shares between values (constants, the special
    registers, the unknown value's) are never written in place, and numpy holds it to that."""
    v.flags.writeable = False
    return v


def _align(x: int, a: int) -> int:
    return -(-x // a) * a


def width_of(t: str) -> int:
    return 8 * TYPE_BYTES[t]


# per type: (the mask of its bits, its sign bit: 0 for unsigned) where it is narrower than 64 bits
_NARROW = {t: ((1 << 8 * b) - 1, (1 << 8 * b - 1) if t.startswith("s") else 0)
           for t, b in TYPE_BYTES.items() if b < 8}
_B32 = _NARROW["b32"]  # (a type without a width: 32 bits)


def norm(v: np.ndarray, t: str) -> np.ndarray:
    """``v`` read as type ``t``: its low bits, sign-extended for a signed type."""
    if t in _WIDE:
        return v
    mask, sign = _NARROW.get(t, _B32)
    if sign:  # two's complement of the low bits: (x ^ sign) - sign
        return ((v & mask) ^ sign) - sign
    return v & mask


def store(v: np.ndarray, t: str) -> np.ndarray:
    return v if t in _WIDE else v & _NARROW.get(t, _B32)[0]


_WIDE = frozenset(t for t, b in TYPE_BYTES.items() if b >= 8)
KEEP = {t: _NARROW[t][0] for t in (*INT_TYPES, "pred") if t not in _WIDE}  # store's mask, per type that has one


def little_endian(data: bytes, offsets: np.ndarray, nbytes: int) -> np.ndarray:
    """The ``nbytes``-byte little-endian integer at each offset of ``data`` (of 8 bytes: its int64 bits)."""
    buf = np.frombuffer(data, dtype=np.uint8)
    word = _WORDS.get(nbytes)
    if word is not None:  # each offset's bytes gathered as a row, read as one word
        return buf[offsets[:, None] + np.arange(nbytes)].view(word)[:, 0].astype(np.int64)
    out = np.zeros(offsets.size, dtype=np.int64)
    for k in range(nbytes):
        out |= buf[offsets + k].astype(np.int64) << (8 * k)
    return out


_WORDS: dict[int, np.dtype] = {1: np.dtype("<u1"), 2: np.dtype("<u2"), 4: np.dtype("<u4"), 8: np.dtype("<i8")}


class Emulator:
    """One CTA of ``function``: ``run`` executes it, ``events`` holds its shared-memory steps."""

    def __init__(self, module: Module, function: Function, block: tuple[int, int, int], cta: tuple[int, int, int],
                 params: dict[str, int], iterations: int | None, max_steps: int = MAX_STEPS) -> None:
        self.module, self.f, self.block, self.cta = module, function, block, cta
        self.iterations, self.max_steps = iterations, max_steps
        self.n = n = block[0] * block[1] * block[2]
        i = np.arange(n, dtype=np.int64)
        self.tid = (_frozen(i % block[0]), _frozen(i // block[0] % block[1]), _frozen(i // (block[0] * block[1])))
        self.lane, self.warp = _frozen(i % 32), _frozen(i // 32)
        self._consts: dict[int, np.ndarray] = {}  # x -> every thread's x (one array per constant, read-only)
        self._none, self._every = _frozen(np.zeros(n, dtype=np.int64)), _frozen(np.ones(n, dtype=bool))
        self.params = params
        self.regs: dict[str, Value] = {}
        self.events: list[Event] = []
        self.event_lanes = 0
        self.capped: dict[int, int] = {}  # pc of a backward branch -> times its loop was cut at --iterations
        self.assumed: dict[int, str] = {}  # pc of a branch on an unknown value followed by --iterations
        self.not_counted: dict[int, str] = {}  # pc -> why it touches shared memory uncounted
        self.serialised: dict[int, int] = {}  # pc of an atomic -> the most lanes of a warp on one address
        self.counters: dict[int, np.ndarray] = {}
        self.why_guard = ""
        self._layout()
        self._resolve()

    # --- memory layout -------------------------------------------------------------------------

    def _layout(self) -> None:
        self.symbols: dict[str, tuple[str, int]] = {}  # name -> (space, address in that space)
        self.allocations: list[Allocation] = []
        variables = {**self.module.variables, **self.f.variables}
        shared = 0
        for v in variables.values():
            if v.space == "shared" and not v.extern:
                shared = _align(shared, max(v.align, ALLOC_ALIGN))
                self.symbols[v.name] = ("shared", shared)
                self.allocations.append(Allocation(v.name, shared, v.size, False))
                shared += v.size
        dynamic = _align(shared, ALLOC_ALIGN)
        names = [v.name for v in variables.values() if v.space == "shared" and v.extern]
        for name in names:
            self.symbols[name] = ("shared", dynamic)
        if names:
            self.allocations.append(Allocation(" ".join(names) + " (dynamic shared memory)", dynamic, 1 << 40, True))
        self.initialized: list[tuple[int, bytes]] = []
        g = GLOBAL_BASE
        for v in variables.values():
            if v.space in ("global", "const"):
                g = _align(g, max(v.align, 16))
                self.symbols[v.name] = (v.space, g)
                if v.data is not None:
                    self.initialized.append((g, v.data))
                g += max(v.size, 1)
            elif v.space == "local":
                self.symbols[v.name] = ("local", LOCAL_BASE)

    def _resolve(self) -> None:
        """Each bare name operand as what it is: a label, a variable, a parameter or a register."""
        params = {p for p, _ in self.f.params}
        for ins in self.f.code:
            for op in ins.operands:
                self._resolve_one(op, params)

    def _resolve_one(self, op: Operand, params: set[str]) -> None:
        if op.kind == "name":
            op.kind = ("label" if op.name in self.f.labels else "sym" if op.name in self.symbols
                       else "param" if op.name in params else "reg")
        if op.base is not None:
            self._resolve_one(op.base, params)
        for x in op.items:
            self._resolve_one(x, params)

    # --- values --------------------------------------------------------------------------------

    def const(self, x: int, why: str = "") -> Value:
        v = self._consts.get(x)
        if v is None:
            v = self._consts[x] = _frozen(np.full(self.n, x, dtype=np.int64))
        return Value(v, None, why)

    def unknown(self, why: str) -> Value:
        return Value(self._none, self._every, why)

    def read(self, op: Operand, t: str = "b64") -> Value:
        if op.kind == "reg":
            r = self.regs.get(op.name)
            if r is None:
                return self.unknown(f"register {op.name} read before it is written")
            if op.negate:
                return Value(1 - (r.v & 1), r.u, r.why)
            return r
        if op.kind in ("imm", "fimm"):
            v = op.value & M64
            return self.const(v - (1 << 64) if v >= 1 << 63 else v)
        if op.kind == "sreg":
            return self.special(op.name)
        if op.kind == "sym":
            space, address = self.symbols[op.name]
            return Value(self.const(address + op.value).v, None, "", space == "shared")
        if op.kind == "param":
            return self.param(op.name, 0)
        raise InputError(f"{_shown(op)} cannot be read as a value")

    def special(self, name: str) -> Value:
        reg, _, axis = name[1:].partition(".")
        k = "xyz".index(axis) if axis else 0
        if reg == "tid":
            return Value(self.tid[k], None)
        if reg == "ntid":
            return self.const(self.block[k])
        if reg == "ctaid":
            return self.const(self.cta[k])
        if reg == "laneid":
            return Value(self.lane, None)
        if reg == "warpid":
            return Value(self.warp, None)
        masks = {"lanemask_eq": lambda lane: 1 << lane, "lanemask_lt": lambda lane: (1 << lane) - 1,
                 "lanemask_le": lambda lane: (2 << lane) - 1, "lanemask_gt": lambda lane: 0xFFFFFFFF ^ ((2 << lane) - 1),
                 "lanemask_ge": lambda lane: 0xFFFFFFFF ^ ((1 << lane) - 1)}
        if reg in masks:
            return Value(masks[reg](self.lane), None)
        return self.unknown(f"{name} (not known on a CPU)" if reg != "nctaid" else "%nctaid (the grid size is not given)")

    def param(self, name: str, offset: int) -> Value:
        """A kernel parameter's value (``--param``: by its PTX name, ``param_N`` or ``N``; a field of a
        struct parameter, e.g. CuTe DSL's, as ``N+OFFSET``), or unknown."""
        names = [p for p, _ in self.f.params]
        if name not in names:
            return self.unknown(f"parameter {name}+{offset}")
        index = names.index(name)
        at = f"+{offset}" if offset else ""
        for key in (f"{name}{at}", f"param_{index}{at}", f"{index}{at}"):
            if key in self.params:
                return self.const(self.params[key])
        return self.unknown(f"parameter {name}{at} (give --param {index}{at}=VALUE)")

    def address(self, op: Operand) -> Value:
        """The address an [base+off] operand names (in the instruction's state space)."""
        if op.kind != "addr":
            return self.read(op)
        if op.base is None:
            return self.const(op.value)
        if op.base.kind == "param":
            return self.param(op.base.name, op.value)
        base = self.read(op.base)
        if not op.value:
            return base
        return Value(base.v + op.value, base.u, base.why, base.shared)

    def write(self, op: Operand, value: Value, t: str, active: np.ndarray | None) -> None:
        """``value`` into register ``op`` for the ``active`` threads (None: all of them)."""
        if op.kind != "reg":
            if op.kind == "pair":
                self.write(op.items[0], value, t, active)
            elif op.kind != "sink":
                raise InputError(f"its result cannot be written to {_shown(op)}")
            return
        mask = KEEP.get(t)  # (store: an integer register keeps its type's bits)
        v = value.v if mask is None or value.v is self._none else value.v & mask  # (the unknown's zeros kept)
        old = self.regs.get(op.name)
        if active is None:
            if old is None:
                self._check_registers()
            self.regs[op.name] = Value(v, value.u, value.why, value.shared)
        elif old is None:  # the threads not written keep an unknown (unwritten) value
            self._check_registers()
            u = ~active if value.u is None else (value.u | ~active)
            self.regs[op.name] = Value(v, u, value.why or f"register {op.name} read before it is written", value.shared)
        else:
            self.regs[op.name] = merge(old, Value(v, value.u, value.why, value.shared), active)

    def _check_registers(self) -> None:
        if (len(self.regs) + 1) * self.n * 17 > MAX_REGISTER_BYTES:
            raise InputError(f"the kernel writes more than {len(self.regs)} registers for {self.n} threads "
                             f"({MAX_REGISTER_BYTES >> 20} MiB): give a smaller --block")

    # --- memory --------------------------------------------------------------------------------

    def load_initialized(self, address: Value, nbytes: int, active: np.ndarray) -> Value | None:
        """A load of ``nbytes`` from initialized .global/.const data, when every active thread's
        address is known and inside one initialized variable; else None."""
        if address.u is not None and address.u[active].any():
            return None
        a = address.v if active is self._every else address.v[active]
        if not a.size:
            return None
        lo, hi = int(a.min()), int(a.max())
        for base, data in self.initialized:
            if lo >= base and hi + nbytes <= base + len(data):
                offsets = np.minimum(np.maximum(address.v - base, 0), len(data) - nbytes)  # (np.clip: slower)
                return Value(little_endian(data, offsets, nbytes), None)
        return None

    def record(self, pc: int, active: np.ndarray, address: Value, unknown_guard: np.ndarray | None) -> None:
        threads = np.flatnonzero(active)
        u = address.u[threads] if address.u is not None else np.zeros(threads.size, bool)
        if unknown_guard is not None:
            u = u | unknown_guard[threads]
        self.events.append(Event(pc, threads.astype(np.int32), address.v[threads], u, address.why or "the guard"))
        self.event_lanes += threads.size
        if self.event_lanes > MAX_EVENT_LANES:
            raise InputError(f"the kernel made more than {MAX_EVENT_LANES} shared-memory lane accesses: follow loops "
                             f"fewer times (--iterations N) or give a smaller --block")

    # --- running -------------------------------------------------------------------------------

    def run(self, handlers: dict[str, Handler], decoders: dict[str, Decoder] | None = None) -> None:
        """Every thread from the first instruction to its ret/exit (``handlers``: isa.HANDLERS; ``decoders``:
        isa.DECODERS, the opcodes whose common forms are decoded once into a step of their own, the same
        as the handler's, taken where it applies).

        The threads at the lowest PC ``p`` (``at``; ``together``: all of them, a converged CTA, most
        of a kernel's steps) stay the threads at the lowest PC while they step on, until a branch or
        an exit (``MOVES_PCS``) may part them or they reach ``others``, the lowest PC of a thread
        not at ``p``, and join it: only then are the PCs written back and searched again."""
        code = self.f.code
        end = len(code)
        pcs = np.zeros(self.n, dtype=np.int64)
        p, at, together, others = self._lowest(pcs, end)
        steps = 0
        decoded: dict[int, Decoded | None] = {}  # pc -> its decoded step (None: the handler's)
        once: set[int] = set()  # the PCs stepped once: decoded at their second step (most run once: not worth it)
        while p < end:
            ins = code[p]
            steps += 1
            if steps > self.max_steps:
                raise InputError(f"the kernel ran more than {self.max_steps} instructions (at PTX line {ins.line}: "
                                 f"a loop that does not end?): give --iterations N to follow each loop at most "
                                 f"N times, or the --param values its loops depend on")
            moves = ins.opcode in MOVES_PCS
            if moves:  # (the handler writes the PCs of the threads it sends elsewhere)
                pcs[at] = p + 1
            fast = decoded.get(p)
            if fast is None and p not in decoded:
                if p in once:
                    fast = decoded[p] = self._decode(decoders, ins)
                else:
                    once.add(p)
            if fast is None or not fast(None if together else at):
                step(self, handlers, ins, p, at, pcs, together)
            p += 1
            if moves or p == others:
                if not moves:
                    pcs[at] = p
                p, at, together, others = self._lowest(pcs, end)

    def _decode(self, decoders: dict[str, Decoder] | None, ins: Instruction) -> Decoded | None:
        decoder = decoders.get(ins.opcode) if decoders else None
        return decoder(self, ins) if decoder is not None else None

    def _lowest(self, pcs: np.ndarray, end: int) -> tuple[int, np.ndarray, bool, int]:
        """(the lowest PC, the threads at it, whether that is every thread, the next lowest PC or ``end``)."""
        p = int(pcs.min())
        at = pcs == p
        if np.count_nonzero(at) == at.size:
            return p, self._every, True, end
        return p, at, False, int(pcs[~at].min())

    def where(self, ins: Instruction) -> str:
        src = ""
        if ins.source is not None:
            src = f" ({self.module.files.get(ins.source[0], '?')}:{ins.source[1]})"
        return f"PTX line {ins.line}{src}"


MOVES_PCS = frozenset(("bra", "exit", "ret"))  # the opcodes whose handlers write a PC other than the next one


def step(emu: Emulator, handlers: dict[str, Handler], ins: Instruction, p: int, at: np.ndarray, pcs: np.ndarray,
         together: bool = False) -> None:
    """``ins`` at PC ``p`` for the threads ``at`` it (``together``: every thread)."""
    active, maybe = at, None
    if ins.guard is not None:
        name, negate = ins.guard
        g = emu.regs.get(name)
        if g is None:
            raise InputError(f"{emu.where(ins)}: predicate {name} is read before it is written")
        truth = (g.v & 1).astype(bool) ^ negate
        if g.u is not None and some(g.u & at):
            maybe = at & g.u
            truth = truth & ~g.u
            emu.why_guard = g.why
        active = at & truth
    handler = handlers.get(ins.opcode)
    if handler is None:
        raise InputError(f"{emu.where(ins)}: the emulator cannot execute {ins.text!r} ({ins.opcode} is not an "
                         f"instruction it knows): the kernel is refused rather than guessed")
    every = together and (ins.guard is None or (maybe is None and np.count_nonzero(active) == active.size))
    try:
        handler(emu, ins, Ctx(p, at, active, maybe, pcs, every))
    except InputError as err:
        if str(err).startswith("PTX line"):
            raise
        raise InputError(f"{emu.where(ins)}: {ins.text!r}: {err}") from None
    except (IndexError, KeyError, AttributeError, TypeError):  # too few operands, or of the wrong kind
        raise InputError(f"{emu.where(ins)}: {ins.text!r} is not a form of {ins.opcode} the emulator knows "
                         f"(its operands): the kernel is refused rather than guessed") from None


