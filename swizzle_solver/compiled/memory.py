"""The emulator's memory instructions (execute.py's handlers for ld, st, ldmatrix, stmatrix, cp,
atom, red, and the shared-memory instructions it lists but does not count).

A shared-memory access (``ld/st.shared``, a generic ``ld``/``st`` whose address is shared, ``ldmatrix``,
``stmatrix``, ``cp.async``'s shared side, ``atom/red.shared``) is recorded as an ``Event`` (its
threads and byte addresses; count.py counts it) and its result, if any, is unknown: the emulator
does not keep shared memory's contents. Loads from initialized ``.global``/``.const`` data are
exact; every other load is unknown.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from .emulator import SHARED_WINDOW, Ctx, Emulator, Handler, Value, some
from .execute import put, put_unknown, type_of
from .ptx import TYPE_BYTES, Instruction

SHARED_SPAN = 1 << 32  # the generic addresses [SHARED_WINDOW, + 4 GiB) are shared memory


def spaces(ins: Instruction) -> frozenset[str]:
    """The state spaces the instruction names (``shared::cta`` as ``shared``)."""
    return _spaces_of(ins.mods)


@lru_cache(maxsize=4096)  # (per list of modifiers: asked at every step of a memory instruction)
def _spaces_of(mods: tuple[str, ...]) -> frozenset[str]:
    return frozenset(m.split("::")[0] for m in mods)


def vector(ins: Instruction) -> int:
    for m in ins.mods:
        if m in ("v2", "v4", "v8"):
            return int(m[1:])
    return 1


def lane_bytes(ins: Instruction) -> int:
    """Bytes one lane moves: the vector width times the type's size."""
    return vector(ins) * TYPE_BYTES.get(type_of(ins), 4)


def _generic_shared(emu: Emulator, address: Value, ctx: Ctx) -> Value | None:
    """A generic address as a shared one, where it is proven shared: every known active lane's
    address is in the shared window, or (unknown lanes) it came from cvta.shared / a shared symbol."""
    act = ctx.active | (ctx.maybe if ctx.maybe is not None else False)
    known = act if address.u is None else act & ~address.u
    inside = (address.v >= SHARED_WINDOW) & (address.v < SHARED_WINDOW + SHARED_SPAN)
    if known.any() and not inside[known].all():
        return None
    if not known.any() and not address.shared:
        return None
    return Value(address.v - SHARED_WINDOW, address.u, address.why, True)


CLUSTER_WHY = ("distributed shared memory (.shared::cluster: an address in any CTA of the cluster, served over "
               "the SM-to-SM network; one CTA is run): not counted")


def _cluster(emu: Emulator, ins: Instruction, ctx: Ctx) -> bool:
    """A .shared::cluster access: listed as not counted (its result unknown): True."""
    if "shared::cluster" not in ins.mods:
        return False
    emu.not_counted.setdefault(ctx.p, CLUSTER_WHY)
    if ins.opcode in ("ld", "atom"):
        put_unknown(emu, ins, ctx, "a load from distributed shared memory")
    return True


def _serialised(emu: Emulator, ctx: Ctx, address: Value) -> None:
    """Lanes of one warp updating one address with an atomic: the hardware serialises them, which is
    not modelled (the count is the bank conflicts alone): the most lanes on one address, noted."""
    act = ctx.active if address.u is None else ctx.active & ~address.u
    threads = np.flatnonzero(act)
    if threads.size < 2:
        return
    keys = (emu.warp[threads].astype(np.int64) << 40) | (address.v[threads].astype(np.int64) & ((1 << 40) - 1))
    most = int(np.unique(keys, return_counts=True)[1].max())
    if most > 1:
        emu.serialised[ctx.p] = max(emu.serialised.get(ctx.p, 1), most)


def _event(emu: Emulator, ctx: Ctx, address: Value) -> None:
    emu.record(ctx.p, ctx.active | (ctx.maybe if ctx.maybe is not None else False), address, ctx.maybe)


def h_ld(emu: Emulator, ins: Instruction, ctx: Ctx) -> None:
    sp = spaces(ins)
    if _cluster(emu, ins, ctx):
        return
    d, a = ins.operands[0], ins.operands[1]
    if "param" in sp:
        if a.base is not None and a.base.kind == "param":
            put(emu, d, emu.param(a.base.name, a.value), type_of(ins), ctx)
        else:
            put_unknown(emu, ins, ctx, "a parameter")
        return
    address = emu.address(a)
    shared = address if "shared" in sp else None
    if shared is None and not sp & {"global", "const", "local"}:
        shared = _generic_shared(emu, address, ctx)
    if shared is not None:
        _event(emu, ctx, shared)
        put_unknown(emu, ins, ctx, "a shared-memory load")
        return
    if "local" in sp:  # a spilled register or a local array: local memory is not kept
        put_unknown(emu, ins, ctx, "a load from local memory (.local: not kept by the emulator)")
        return
    t = type_of(ins)
    size = TYPE_BYTES.get(t, 4)
    if some(ctx.active):
        items = d.items if d.kind == "vec" else (d,)
        for k, x in enumerate(items):
            got = emu.load_initialized(Value(address.v + k * size, address.u), size, ctx.active)
            if got is None:
                break
            put(emu, x, got, t, ctx)
        else:
            return
    put_unknown(emu, ins, ctx, "a load from memory the emulator does not know")


def h_st(emu: Emulator, ins: Instruction, ctx: Ctx) -> None:
    sp = spaces(ins)
    if sp & {"global", "local", "param"} or _cluster(emu, ins, ctx):
        return
    address = emu.address(ins.operands[0])
    shared = address if "shared" in sp else _generic_shared(emu, address, ctx)
    if shared is not None:
        _event(emu, ctx, shared)


def h_matrix(emu: Emulator, ins: Instruction, ctx: Ctx) -> None:
    """ldmatrix / stmatrix: every lane gives an address (count.py keeps lanes 8i .. 8i + 7 of matrix i)."""
    a = ins.operands[1] if ins.opcode == "ldmatrix" else ins.operands[0]
    if any(m in ("m16n16", "m8n16", "m16n8") for m in ins.mods):
        emu.not_counted.setdefault(ctx.p, f"{ins.opcode}'s byte forms (.m16n16, .m8n16, .m16n8; sm_100a/sm_120a) are "
                                          f"not counted yet")
    else:
        _event(emu, ctx, emu.address(a))
    if ins.opcode == "ldmatrix":
        put_unknown(emu, ins, ctx, "an ldmatrix load")


def h_cp(emu: Emulator, ins: Instruction, ctx: Ctx) -> None:
    """cp.async (its shared side is the event); cp.async.bulk / TMA: listed as not counted."""
    mods = ins.mods
    if any(m in ("commit_group", "wait_group", "wait_all", "mbarrier", "prefetch") for m in mods):
        return  # the copies' bookkeeping
    if "bulk" in mods:  # cp.async.bulk[.tensor], cp.reduce.async.bulk: the TMA's copies
        emu.not_counted.setdefault(ctx.p, "cp.async.bulk (TMA): the copy engine writes shared memory in its own "
                                          "pattern (hardware-swizzled by the tensor map); not counted")
        return
    if not mods or mods[0] != "async":
        put_unknown(emu, ins, ctx, f"the result of {ins.opcode}")
        return
    dst = ins.operands[0]
    _event(emu, ctx, emu.address(dst))


def h_atom(emu: Emulator, ins: Instruction, ctx: Ctx) -> None:
    sp = spaces(ins)
    if _cluster(emu, ins, ctx):
        return
    a = ins.operands[1] if ins.opcode == "atom" else ins.operands[0]
    if ins.opcode == "atom":
        put_unknown(emu, ins, ctx, "an atomic's old value")
    if sp & {"global"}:
        return
    address = emu.address(a)
    shared = address if "shared" in sp else _generic_shared(emu, address, ctx)
    if shared is not None:
        _event(emu, ctx, shared)
        _serialised(emu, ctx, shared)


def h_descriptor(emu: Emulator, ins: Instruction, ctx: Ctx) -> None:
    """wgmma / tcgen05: the tensor core reads shared memory through matrix descriptors."""
    mode = ""
    for op in ins.operands:
        if op.kind == "reg":
            r = emu.regs.get(op.name)
            if r is not None and r.u is None and "mma_async" in ins.mods:
                bits = int(r.v[np.flatnonzero(ctx.active)[0]] if ctx.active.any() else r.v[0]) >> 62 & 3
                mode = {1: "128B", 2: "64B", 3: "32B"}.get(bits, mode)
    why = (f"{ins.opcode} reads shared memory through matrix descriptors (hardware-swizzled"
           f"{', swizzle mode ' + mode if mode else ''}); not counted")
    if any(m in ("mma_async", "mma", "cp", "ld", "st", "shift", "copy") for m in ins.mods):  # not fence/commit/wait
        emu.not_counted.setdefault(ctx.p, why)
    put_unknown(emu, ins, ctx, f"the result of {ins.opcode}")


def memory_handlers() -> dict[str, Handler]:
    return {"ld": h_ld, "ldu": h_ld, "st": h_st, "ldmatrix": h_matrix, "stmatrix": h_matrix, "cp": h_cp,
            "atom": h_atom, "red": h_atom, "wgmma": h_descriptor, "tcgen05": h_descriptor}
