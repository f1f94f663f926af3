"""Each dynamic instance of a shared-memory instruction counted by the hardware model.

An instance is the k-th execution of one instruction by one warp (emulator.Event, split by warp):
its active lanes' byte addresses are one instruction of the probe's kind (probe/plan.py: an
(instructions x 32) table of each slot's first element, -1 inactive), and ``plan.serve`` splits
it into the phases the hardware serves (the phase rule by width, ldmatrix's 8-row matrices,
paired loads, broadcast) and measures every phase with the simulator: the same model as every
``[[instruction]]`` of a phases file and every probe's prediction, no second one.

Shared memory is read as one row of elements of ``e`` bytes (the lane width, at most a bank word)
under the identity layout, or under a fix's layout of one allocation (``remap``: each lane's
first byte moved where the layout puts it; an admissible layout keeps every lane's bytes together).
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..counters import ncu_names
from ..hardware import Hardware
from ..model import Pattern, Problem, Tile
from ..probe.plan import Op, serve
from .emulator import Emulator, Event, some
from .memory import lane_bytes
from .ptx import Instruction

WAVE = 32
MAX_SHARED = 1 << 24  # a known shared address past 16 MiB is not one the hardware has


class Kind:
    """What one static instruction is to the counter: ncu's op (ld, st, ldsm, stsm, ldgsts, atom), the
    bytes each lane moves, a store or not, and ldmatrix/stmatrix's matrices."""

    __slots__ = ("op", "width", "store", "matrices")

    def __init__(self, op: str, width: int, store: bool, matrices: int = 0) -> None:
        self.op, self.width, self.store, self.matrices = op, width, store, matrices

    @property
    def key(self) -> tuple[str, int, bool, int]:
        return (self.op, self.width, self.store, self.matrices)


def kind_of(ins: Instruction) -> Kind:
    if ins.opcode in ("ldmatrix", "stmatrix"):
        k = next((int(m[1:]) for m in ins.mods if m in ("x1", "x2", "x4")), 1)
        return Kind("ldsm" if ins.opcode == "ldmatrix" else "stsm", 16, ins.opcode == "stmatrix", k)
    if ins.opcode == "cp":
        size = next((o.value for o in ins.operands[2:3] if o.kind == "imm"), 16)
        return Kind("ldgsts", int(size), True)
    if ins.opcode in ("atom", "red"):
        return Kind("atom", lane_bytes(ins), True)
    return Kind("st" if ins.opcode == "st" else "ld", lane_bytes(ins), ins.opcode == "st")


class Instances:
    """Every instance of one static instruction: the warp, each lane's byte address (-1: inactive),
    and whether an active lane's address (or guard) is unknown: data-dependent, never counted."""

    __slots__ = ("pc", "kind", "parts", "why", "outside")

    def __init__(self, pc: int, kind: Kind) -> None:
        self.pc, self.kind = pc, kind
        self.parts: list[tuple[np.ndarray, np.ndarray]] = []  # per event: (instances x 32 addresses, unknown)
        self.why = ""
        self.outside = 0

    def table(self) -> np.ndarray:
        return np.concatenate([t for t, _ in self.parts]) if self.parts else np.zeros((0, WAVE), np.int64)

    @property
    def unknown(self) -> np.ndarray:
        return np.concatenate([u for _, u in self.parts]) if self.parts else np.zeros(0, bool)


def instances(emu: Emulator) -> dict[int, Instances]:
    """The events of a run split by warp, per static instruction, in program order."""
    out: dict[int, Instances] = {}
    for e in emu.events:
        got = out.get(e.pc)
        if got is None:
            got = out[e.pc] = Instances(e.pc, kind_of(emu.f.code[e.pc]))
        _split(e, got)
    return dict(sorted(out.items()))


def _split(e: Event, got: Instances) -> None:
    """One event as one instance per warp with an active lane (every warp at once)."""
    first, last = (int(e.threads[0]) // WAVE, int(e.threads[-1]) // WAVE) if e.threads.size else (0, -1)
    if first == last:  # one warp (every event of a one-warp CTA; its threads ascend): no grouping
        table, unknown, bad = _one_warp(e)
    else:
        table, unknown, bad = _warps(e, e.threads // WAVE)
    got.outside += int(bad.sum())
    unknown |= bad
    if got.kind.matrices:  # ldmatrix/stmatrix .xK: lanes 8K .. 31 give no address
        table[:, 8 * got.kind.matrices:] = -1
    got.parts.append((table, unknown))
    if not got.why and some(unknown):
        got.why = e.reason


def _one_warp(e: Event) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """_warps of an event whose threads are all in one warp."""
    table = np.full((1, WAVE), -1, dtype=np.int64)
    table[0, e.threads % WAVE] = e.addresses
    unknown = np.array([some(e.unknown)])
    bad = ~unknown & some((e.addresses < 0) | (e.addresses >= MAX_SHARED))
    return table, unknown, bad


def _warps(e: Event, warp: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per warp with an active lane: its lanes' addresses (-1: inactive), whether an address is
    unknown, and whether a known one is outside shared memory."""
    warps, which = np.unique(warp, return_inverse=True)
    table = np.full((len(warps), WAVE), -1, dtype=np.int64)
    table[which, e.threads % WAVE] = e.addresses
    unknown = np.zeros(len(warps), dtype=bool)
    np.logical_or.at(unknown, which, e.unknown)
    bad = np.zeros(len(warps), dtype=bool)
    np.logical_or.at(bad, which, (e.addresses < 0) | (e.addresses >= MAX_SHARED))
    return table, unknown, bad & ~unknown


class Counted:
    """One static instruction as counted: instances, the data-dependent ones, and the model's
    wavefronts and ideal over the counted ones."""

    __slots__ = ("pc", "kind", "instances", "data_dependent", "wavefronts", "ideal", "lo", "hi")

    def __init__(self, pc: int, kind: Kind, n: int, dd: int, wavefronts: int, ideal: int, lo: int, hi: int) -> None:
        self.pc, self.kind, self.instances, self.data_dependent = pc, kind, n, dd
        self.wavefronts, self.ideal, self.lo, self.hi = wavefronts, ideal, lo, hi

    @property
    def excess(self) -> int:
        return self.wavefronts - self.ideal

    def counters(self) -> dict[str, int]:
        waves, conflicts = ncu_names(self.kind.op)[0]
        return {waves: self.wavefronts, conflicts: self.excess}


Remap = Callable[[np.ndarray], np.ndarray]


def count(found: dict[int, Instances], hardware: Hardware, remap: Remap | None = None) -> dict[int, Counted]:
    """Every static instruction counted, all instances of one kind of instruction measured at once."""
    groups: dict[tuple, list[Instances]] = {}
    for got in found.values():
        groups.setdefault(got.kind.key, []).append(got)
    out: dict[int, Counted] = {}
    for members in groups.values():
        out.update(_count_group(members, hardware, remap))
    return dict(sorted(out.items()))


def _count_group(members: list[Instances], hardware: Hardware, remap: Remap | None) -> dict[int, Counted]:
    kind = members[0].kind
    tables, owners = [], []
    for i, got in enumerate(members):
        t = got.table()[~got.unknown]
        tables.append(t)
        owners.append(np.full(len(t), i))
    addresses = np.concatenate(tables) if tables else np.zeros((0, WAVE), np.int64)
    owner = np.concatenate(owners) if owners else np.zeros(0, np.int64)
    known = addresses[addresses >= 0]
    lo_hi = [(int(t[t >= 0].min()), int(t[t >= 0].max()) + kind.width) if (t >= 0).any() else (0, 0) for t in tables]
    if remap is not None and known.size:
        addresses = np.where(addresses >= 0, remap(addresses), -1)
    costs = np.zeros(len(members), dtype=np.int64)
    ideals = np.zeros(len(members), dtype=np.int64)
    if addresses.size and (addresses >= 0).any():
        cost, ideal, which = _measure(addresses, kind, hardware)
        np.add.at(costs, owner[which], cost)
        np.add.at(ideals, owner[which], ideal)
    return {got.pc: Counted(got.pc, kind, len(got.unknown), int(got.unknown.sum()), int(costs[i]), int(ideals[i]),
                            *lo_hi[i]) for i, got in enumerate(members)}


def _measure(addresses: np.ndarray, kind: Kind, hardware: Hardware) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """plan.serve on the instances: shared memory as one row of ``e``-byte elements, identity layout."""
    e = min(kind.width, hardware.bank_bytes)
    top = int(addresses.max()) + kind.width
    cols = -(-top // e)
    tile = Tile(1, cols, cols, e)
    problem = Problem(tile, hardware, ())
    rows = np.where(addresses >= 0, 0, -1)
    col = np.where(addresses >= 0, addresses // e, -1)
    pattern = Pattern(spec="kernel", kind="phases", rows=1, cols=kind.width // e, row_stride=1,
                      vector_bytes=kind.width, lower_bound=1, lane_row=rows, lane_col=col,
                      lane_bytes=np.full(rows.shape, kind.width, np.int64))
    op = Op(kind.op, kind.store, kind.width, matrices=kind.matrices)
    identity = np.arange(cols, dtype=np.int64).reshape(1, cols)
    cost, ideal, which = serve(rows, col, op, pattern, problem, identity)
    return cost, ideal, which
