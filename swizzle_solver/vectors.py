"""`--vectors auto` (DESIGN.md section 11): each register-layout access's vector chosen with the layout.

The accesses are Triton linear layouts (``--linear-layout``) covering the whole tile: each lane's
registers hold a coset of the span of the register bases. Under a general-linear layout L (an
invertible map of the index bits of a power-of-two tile onto the offset bits), the elements of a
lane that L puts at consecutive, aligned offsets form one vector: the access's vector is the longest
run of low offset bits whose preimages lie in the span of its register bases (at most 16 bytes).
Each lane then issues one instruction per coset of the vector inside its registers, per warp.

Objective (section 11): the total wavefronts to move the whole tile through every access (each
access once over the tile), then the total instructions, then storage (the same for every member:
the tile), then the family (section 2's order), then the order inside the family.

Candidates, each measured by the exhaustive simulator on the physical addresses it gives (the lanes'
vectors at L's offsets, split into phases by the target's rule, simulate.simulate):

- the answer of the plain solve (the vectors as given), with its vectors chosen again;
- the identity (row-major storage);
- the general-linear member general.construct builds from each vector chain vector_search.search
  reaches: every chain of nested subspaces of the accesses' registers (each access's vector a
  prefix of the widest) and every ldmatrix/stmatrix row chain, in order of a floor that holds
  whatever the other accesses' widths, while a chain could beat the best found; the slot bits from
  general.kernel_search over every access's phases. The search says whether it was complete
  (vector_search.py: the floor argument).
"""
from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable, Iterator, Sequence
from functools import cache

import numpy as np

from . import general, gf2, simulate, transpose_read, vector_search
from .families.general_linear import GeneralLinear, of_columns
from .hardware import Hardware, Rule
from .layout import Layout
from .model import MAX_VECTOR_BYTES, InputError, Tile, is_pow2, log2
from .rounds import Rounds
from .rounds import rounds as rounds_of
from .value import Value, replace


class RegisterAccess(Value):
    """One register layout as index-space vectors (offset r * cols + c of each basis' image)."""

    name: str
    register: tuple[int, ...]
    lane: tuple[int, ...]
    warp: tuple[int, ...]  # warps, and the places of a warp form's footprint in the tile
    max_vector_bytes: int = MAX_VECTOR_BYTES  # the widest vector a lane may issue (a warp form's vB)
    store: bool = False  # the lanes write their vectors (st.shared, stmatrix, ds_write): never a paired load

    @property
    def direction(self) -> str:
        return "store" if self.store else "load"


# An access's direction under --vectors auto: ``store:`` or ``load:`` before the file or the warp
# form (a layout conversion stores through the source layout and loads through the destination);
# without one, a load, and mma-c (the accumulator written out) a store.
DIRECTIONS = {"load": False, "store": True}
_DIRECTION = re.compile(r"([A-Za-z][A-Za-z_-]*):(.*)", re.S)


def split_direction(text: str, what: str) -> tuple[bool | None, str]:
    """(store? or None when not said, the rest) of ``store:X`` / ``load:X`` / ``X``. A word before a
    colon that is not a direction is bad input where ``what`` is a file (a warp form's own words,
    warp: and mma-c:, are its grammar's: the form's reader refuses what it does not know)."""
    m = _DIRECTION.fullmatch(text.strip())
    if m is None:
        return None, text
    word = m[1].lower()
    if word in DIRECTIONS:
        return DIRECTIONS[word], m[2]
    if what == "file" and len(word) > 1:  # (not a drive letter)
        from pathlib import Path

        if not Path(text).exists():
            raise InputError(f"--linear-layout {text!r}: {m[1]!r} is not a direction: write store:FILE or "
                             f"load:FILE (a layout conversion stores through one layout, loads through the other)")
    return None, text


def read_access(text: str, default_name: str, tile: Tile, hardware: Hardware, where: str,
                store: bool | None = None) -> RegisterAccess:
    """A --linear-layout file as a RegisterAccess (``store``: written, else read); it must cover the
    whole tile exactly."""
    from .access.triton_layout import layout_bases

    name, bases, (rows, cols) = layout_bases(text, default_name, where)
    if (rows, cols) != (tile.rows, tile.cols):
        raise InputError(f"{where}: --vectors auto needs each layout to cover the whole tile: it covers {rows} x "
                         f"{cols}, the tile is {tile.rows} x {tile.cols}")
    if any(v != (0, 0) for v in bases.get("block", [])):
        raise InputError(f"{where}: block bases move between CTAs, which do not share this shared memory: "
                         f"give block = [] (one CTA)")
    lanes = bases.get("lane", [])
    if 1 << len(lanes) > hardware.wave_lanes:
        raise InputError(f"{where}: {len(lanes)} lane bases make {1 << len(lanes)} lanes; a {hardware.group} has "
                         f"{hardware.wave_lanes}")
    index = {dim: tuple(r * tile.cols + c for r, c in bases.get(dim, [])) for dim in ("register", "lane", "warp")}
    if gf2.rank([*index["register"], *index["lane"], *index["warp"]]) != log2(tile.size):
        raise InputError(f"{where}: its register, lane and warp bases do not reach every element of the "
                         f"{tile.rows} x {tile.cols} tile: --vectors auto moves the whole tile through each access")
    return RegisterAccess(name, index["register"], index["lane"], index["warp"], store=bool(store))


_WARP = re.compile(r"warp:(\d{1,6})x(\d{1,6}):(\d{1,6})x(\d{1,6})(?:v(\d{1,3}))?")
_MMA_C = re.compile(r"mma-c(?::m16n8)?(?:v(\d{1,3}))?")
_FORMS = "warp:RxC:MxN[vB] and mma-c[:m16n8][vB], each optionally after store: or load:"


def warp_access(spec: str, tile: Tile, hardware: Hardware, store: bool | None = None) -> RegisterAccess:
    """A warp form as a register layout (``store``: written, else read; not said: mma-c a store, the
    rest loads): ``warp:RxC:MxN[vB]`` (lane l at lane row l // C, lane column
    l % C, each holding an M x N block; vB: the widest vector it may use) or ``mma-c[:m16n8]`` (the
    m16n8 accumulator: lane l holds rows l/4 and l/4 + 8, columns 2*(l%4) + {0, 1}); the footprint's
    places in the tile are further "warp" bases (access/warp.py reads the same forms)."""
    text = spec.strip().lower()
    if (c := _MMA_C.fullmatch(text)) is not None:
        reg, lane, foot, cap = _mma_c(spec, hardware)
        cap = cap if c[1] is None else _vector_cap(spec, int(c[1]), tile)
    elif (m := _WARP.fullmatch(text)) is not None:
        reg, lane, foot, cap = _warp_blocks(spec, m, tile, hardware)
    else:
        raise InputError(f"access {spec!r}: --vectors auto takes --linear-layout files and the warp forms {_FORMS}")
    if tile.rows % foot[0] or tile.cols % foot[1]:
        raise InputError(f"access {spec!r}: its {foot[0]} x {foot[1]} footprint does not tile the "
                         f"{tile.rows} x {tile.cols} tile")
    # the footprint's places in the tile: row steps first, then column steps (the "warp" bases)
    places = ([(foot[0] << i, 0) for i in range(log2(tile.rows // foot[0]))]
              + [(0, foot[1] << i) for i in range(log2(tile.cols // foot[1]))])
    f = lambda vs: tuple(a * tile.cols + b for a, b in vs)  # noqa: E731
    written = text.startswith("mma-c") if store is None else store
    return RegisterAccess(spec.strip(), f(reg), f(lane), f(places), cap, written)


_Form = tuple[list[tuple[int, int]], list[tuple[int, int]], tuple[int, int], int]
"""A warp form's register and lane bases as (row, column) steps, its footprint, its vector cap."""


def _mma_c(spec: str, hardware: Hardware) -> _Form:
    """The m16n8 accumulator: lane l holds rows l/4 and l/4 + 8, columns 2*(l%4) + {0, 1}."""
    if hardware.wave_lanes != 32:
        raise InputError(f"access {spec!r}: the mma accumulator is a 32-lane warp's")
    return [(0, 1), (8, 0)], [(0, 2), (0, 4), (1, 0), (2, 0), (4, 0)], (16, 8), MAX_VECTOR_BYTES


def _warp_blocks(spec: str, m: re.Match, tile: Tile, hardware: Hardware) -> _Form:
    """``warp:RxC:MxN[vB]``: lane l at lane row l // C, lane column l % C, each holding an M x N
    block (its registers step along the block's columns, then its rows)."""
    r, c, mm, nn = (int(x) for x in m.groups()[:4])
    if not all(is_pow2(x) for x in (r, c, mm, nn)) or r * c != hardware.wave_lanes:
        raise InputError(f"access {spec!r}: --vectors auto needs R x C = {hardware.wave_lanes} lanes and M, N, "
                         f"R, C powers of two")
    cap = MAX_VECTOR_BYTES if m[5] is None else _vector_cap(spec, int(m[5]), tile)
    reg = [(0, 1 << i) for i in range(log2(nn))] + [(1 << i, 0) for i in range(log2(mm))]
    lane = [(0, nn << i) for i in range(log2(c))] + [(mm << i, 0) for i in range(log2(r))]
    return reg, lane, (r * mm, c * nn), cap


def _vector_cap(spec: str, cap: int, tile: Tile) -> int:
    """A form's ``vB``: the widest vector --vectors auto may choose, checked."""
    if not is_pow2(cap) or cap > MAX_VECTOR_BYTES or cap < tile.elem_bytes:
        raise InputError(f"access {spec!r}: v{cap} must be a power of two from the element size to "
                         f"{MAX_VECTOR_BYTES} bytes (the widest vector --vectors auto may choose)")
    return cap

def check_tile(tile: Tile) -> None:
    if not (is_pow2(tile.rows) and is_pow2(tile.cols) and tile.row_length == tile.cols):
        raise InputError(f"--vectors auto needs a power-of-two tile without padding: {tile.rows} x {tile.cols}, "
                         f"row length {tile.row_length}")


# --- one access under one layout -------------------------------------------------------------------


class Moved(Value):
    """One access under one layout, measured: its vector, instructions and wavefronts."""

    name: str
    vector_bytes: int
    instruction: str  # a store's is a store's: st.shared, stmatrix, ds_write
    instructions: int  # per whole tile (every warp, every register group)
    wavefronts: int  # the simulator's total over every phase of every instruction
    lower_bound: int  # the least wavefronts its phases could take (bytes / wavefront, per phase)
    direction: str = "load"  # or "store"
    pair: int = 0  # a two-address instruction (ds_read2): the index direction from a lane's first vector to its second

    def json(self) -> dict:
        return {"name": self.name, "direction": self.direction, "vector_bytes": self.vector_bytes,
                "instruction": self.instruction,
                "instructions": self.instructions, "wavefronts": self.wavefronts,
                "lower_bound_wavefronts": self.lower_bound}


def _span_all(bases: list[int]) -> np.ndarray:
    """Every XOR of ``bases``, index k the XOR of the bases of k's set bits (Triton's order)."""
    out = np.zeros(1, dtype=np.int64)
    for b in bases:
        out = np.concatenate([out, out ^ b])
    return out


def vector_bits(access: RegisterAccess, preimages: list[int], elem_bytes: int, limit: int = MAX_VECTOR_BYTES) -> int:
    """How many low offset bits form the access's vector: the longest prefix of ``preimages`` (the
    logical offsets of offset bits 0, 1, ...) inside the span of its registers, at most ``limit`` bytes."""
    span = list(access.register)
    most = log2(max(1, min(limit, access.max_vector_bytes) // elem_bytes))
    j = 0
    while j < min(most, len(preimages)) and gf2.rank(span + preimages[:j + 1]) == gf2.rank(span):
        j += 1
    return j


def instruction_name(hardware: Hardware, vector_bytes: int, write: bool = False) -> str:
    """The instruction a lane's vector of so many bytes implies on the target."""
    amd = hardware.vector_op(vector_bytes, write)  # AMD LDS
    if amd is not None:
        return amd
    op = "st.shared" if write else "ld.shared"
    if vector_bytes <= 4:
        return f"{op}.b{8 * vector_bytes}"
    return f"{op}.v{vector_bytes // 4}.b32"


def preimages_of(layout_bases: list[int]) -> list[int]:
    """The logical offset that goes to each offset bit (the inverse map's bases)."""
    inverse = of_columns(list(layout_bases))  # of_columns(bases) sends bases[j] to bit j: that is L^-1
    return list(inverse.offset_bases)


def given_vector(access: RegisterAccess, tile: Tile) -> list[int]:
    """The vector as the plain solve reads it (access/triton_layout.py): the register bases that step
    along a row one element at a time, up to 16 bytes, provided every lane's run starts aligned."""
    reg, e = access.register, tile.elem_bytes
    vec = 0
    while vec < len(reg) and reg[vec] == 1 << vec and (2 << vec) * e <= access.max_vector_bytes and 1 << vec < tile.cols:
        vec += 1
    starts = [x % tile.cols for x in access.lane + access.warp + reg[vec:]]
    while vec and any(c % (1 << vec) for c in starts):
        vec -= 1
    return list(reg[:vec])


def _measure(starts: np.ndarray, v: int, tile: Tile, hardware: Hardware) -> tuple[int, int]:
    """(wavefronts, least wavefronts) of phases whose lanes read ``v`` bytes from the physical element
    offsets ``starts`` (shape (phases, lanes)), by the simulator's count: every word of every lane,
    grouped by bank, the most distinct words in one bank per phase (simulate.placement_costs); the
    least: each phase's distinct bytes over a wavefront, at least 1."""
    elements = (starts[..., None] + np.arange(max(1, v // tile.elem_bytes))).reshape(starts.shape[0], -1)
    words = hardware.words(elements, tile.elem_bytes)
    costs = simulate.placement_costs(words, hardware.banks)
    ordered = np.sort(starts, axis=1)
    distinct = 1 + np.count_nonzero(ordered[:, 1:] != ordered[:, :-1], axis=1)
    least = np.maximum(1, -(-distinct * v // hardware.wavefront_bytes))
    return int(costs.sum()), int(least.sum())


def moved(access: RegisterAccess, bases: list[int], tile: Tile, hardware: Hardware,
          fixed: list[int] | None = None) -> Moved:
    """The access under the layout with offset ``bases``: its vector from the layout (``fixed``: these
    logical offsets' span instead, the vectors as given), its requests (one per warp and register
    group) at the physical addresses, split into the target's phases and measured by the simulator;
    with the vectors chosen, also ldmatrix where the lane map allows it (``matrix_moved``), the
    fewer wavefronts, then instructions, of the two. Each op is measured by its own cell
    (hardware.Hardware.by_vector: on AMD a ds_write by the write's banks and phases, not the reads')."""
    e = tile.elem_bytes
    if fixed is None:
        pre = preimages_of(bases)
        j = vector_bits(access, pre, e)
        vector = pre[:j]
    else:
        vector, j = fixed, len(fixed)
    v = e << j
    groups = vector_search.independent_mod(list(access.register), vector)  # one register group per coset of the vector
    layout = GeneralLinear(tuple(bases))
    lanes = _span_all(list(access.lane))  # every lane's index, in lane order
    # every (warp, register group) request's lanes at once; the vector's start: its low bits cleared
    firsts = (_span_all(list(access.warp))[:, None] ^ _span_all(groups)[None, :]).reshape(-1)
    starts = layout.apply(firsts[:, None] ^ lanes[None, :]) & ~((1 << j) - 1)
    # a linear layout repeats a lane's start in every request alike: one phase split serves them all
    first = [(int(x) // tile.cols, int(x) % tile.cols) for x in starts[0]]
    # (a store is never paired: its lanes' repeats cost their own phases)
    op = instruction_name(hardware, v, access.store)
    served = hardware.by_vector(v, access.store)
    phases = served.phase_indices(len(lanes), v, served.pairs(first, v, access.store))
    # every phase of every request, a phase shorter than the widest repeating its first lane (no cost)
    widest = max(map(len, phases))
    index = np.array([phase + [phase[0]] * (widest - len(phase)) for phase in phases])
    instructions = (1 << len(access.warp)) * (1 << len(groups))
    wavefronts, lower = _measure(starts[:, index].reshape(-1, widest), v, tile, served)
    best = Moved(access.name, v, op, instructions, wavefronts, lower, access.direction)
    if fixed is None:
        others = [matrix_moved(access, bases, tile, hardware), tr_moved(access, bases, tile, hardware),
                  two_address_moved(access, starts.reshape(1 << len(access.warp), 1 << len(groups), -1), groups, v,
                                    tile, hardware, best.wavefronts)]
        for other in others:
            if other is not None and (other.wavefronts, other.instructions) < (best.wavefronts, best.instructions):
                best = other
    return best


# --- AMD's two-address instructions (ds_read2_b32/_b64, ds_write2_*, their st64 forms) ----------------
# One instruction, two addresses a lane: a base register and two 8-bit immediate offsets, offset0 and
# offset1, in units of the lane's width (4 or 8 bytes), or of 64 of them for the st64 forms (the ISA's
# encoding; probe/hip.py's two_address issues them so). So a lane may move two of its vectors with one
# instruction when the second starts a fixed distance after the first, the same for every lane and
# every warp (the immediates are in the code every warp runs): d = (a1 - a0) / unit with |d| <= 255.
# Served as hardware.py's cell of that op says (Rule.addresses = 2: its phases are sets of slots,
# slot l + a * wave the a-th address of lane l): two passes on CDNA and RDNA, both addresses together
# on gfx1250; the cells' banks and confidence are docs/hardware.md's tables.
TWO_ADDRESS_WIDTHS = (4, 8)  # ds_read2_b32 / ds_read2_b64 (and writes): no b8, b16 or b128 forms
OFFSET_MAX = 255  # offset0, offset1: 8 bits each
ST64 = 64  # the st64 forms scale both offsets by 64 units


def two_address_op(v: int, distances: np.ndarray, write: bool) -> str | None:
    """The two-address op that issues pairs of ``v``-byte vectors whose second starts ``distances``
    bytes after its first (one per instruction; every lane's and warp's the same), or None: the
    plain form where every distance fits 8 bits of ``v``-byte units, else the st64 form where every
    distance is a multiple of 64 units that fits 8 bits of them; else none."""
    if v not in TWO_ADDRESS_WIDTHS or not distances.size:
        return None
    kind = "ds_write2" if write else "ds_read2"
    units = np.abs(distances)
    if not (units % v).any() and int(units.max()) // v <= OFFSET_MAX:
        return f"{kind}_b{8 * v}"
    if not (units % (ST64 * v)).any() and int(units.max()) // (ST64 * v) <= OFFSET_MAX:
        return f"{kind}st64_b{8 * v}"
    return None


def two_address_name(v: int, write: bool, st64: bool = False) -> str:
    """The two-address op of ``v``-byte vectors (a store's: ds_write2)."""
    return f"{'ds_write2' if write else 'ds_read2'}{'st64' if st64 else ''}_b{8 * v}"


def two_address_widths(access: RegisterAccess, side: vector_search.Side, tile: Tile, hardware: Hardware
                       ) -> list[int]:
    """The widths (element bits) at which the access may issue two of a lane's vectors with one
    instruction: 4- or 8-byte vectors, a register direction left to pair them along, and the
    target's cell of the op."""
    e = tile.elem_bytes
    return [j for j in range(side.most + 1) if (e << j) in TWO_ADDRESS_WIDTHS and len(side.regs) > j
            and hardware.rule(two_address_name(e << j, access.store)) is not None]


def bounded_by_singles(hardware: Hardware, op: str) -> bool:
    """Whether the cell of two-address ``op`` never takes fewer wavefronts than its two addresses as
    two single-address requests measured by the single op's own cell (moved, Hardware.by_vector): each
    of its phases holds one address of its lanes, within one phase of that cell, on a bank count
    dividing the single's (a bank of the pair's is then a union of the single's banks, and a phase
    split further costs no less). Two passes (CDNA, RDNA) are; gfx1250's, both addresses in one
    phase, are not."""
    rule = hardware.rule(op)
    assert rule is not None and rule.addresses == 2, op
    wave = hardware.wave_lanes
    banks = hardware.banks if hardware.fixed_banks else rule.banks
    served = hardware.by_vector(rule.lane_bytes, rule.write)
    single = [set(p) for p in served.phase_indices(wave, rule.lane_bytes)]
    return served.banks % banks == 0 and all(
        len({s // wave for s in phase}) == 1 and any({s % wave for s in phase} <= g for g in single)
        for phase in rule.phases)


_bounded = cache(lambda hardware, op: bounded_by_singles(hardware, op))


@cache
def _two_pass(hardware: Hardware, op: str) -> bool:
    """Whether the cell of two-address ``op`` serves every lane's first address, then its second, in
    the same lane sets (CDNA, RDNA). Every pairing then costs the same: the second pass of an
    instruction is its first moved by one distance, the same for every lane, which only renames the
    banks (bank = dword mod banks), so each instruction costs its two groups' first passes, whichever
    groups pair."""
    rule = hardware.rule(op)
    assert rule is not None and rule.addresses == 2, op
    wave = hardware.wave_lanes
    passes = [[p for p in rule.phases if p[0] // wave == a] for a in (0, 1)]
    return (all(len({s // wave for s in p}) == 1 for p in rule.phases)
            and sorted(tuple(s % wave for s in p) for p in passes[0])
            == sorted(tuple(s % wave for s in p) for p in passes[1]))


Forms = dict[tuple[int, ...], list[tuple[int, int]]]
"""Per width tuple: (wavefront floor, instructions) of each choice of single or two-address forms."""


def two_address_floor(access: RegisterAccess, side: vector_search.Side, j: int, tile: Tile,
                      hardware: Hardware) -> int:
    """The least wavefronts of the access at width j with every pair of its vectors one two-address
    instruction: half vector_search.instructions of them, each costing at least one wavefront per
    phase of its cell that holds a lane, and at least the distinct words of its first addresses
    (vector_search.floor's D vectors) over the cell's banks."""
    e = tile.elem_bytes
    rule = hardware.rule(two_address_name(e << j, access.store))
    assert rule is not None
    lanes, wave = 1 << len(side.lanes), hardware.wave_lanes
    phases = sum(1 for p in rule.phases if any(x % wave < lanes for x in p))
    banks = hardware.banks if hardware.fixed_banks else rule.banks
    distinct = 1 << (gf2.rank(list(side.lanes) + list(side.regs)) - len(side.regs))
    words = -(-(distinct * (e << j)) // hardware.bank_bytes)
    return vector_search.instructions(side, j) // 2 * max(phases, -(-words // banks))


def with_two_address(items: list[vector_search.Item], accesses: Sequence[RegisterAccess],
                     sides: Sequence[vector_search.Side], widths: Sequence[Sequence[int]], tile: Tile,
                     hardware: Hardware) -> tuple[list[vector_search.Item], Forms]:
    """The width tuples' floors where an access may pair its vectors (``widths``: per access,
    two_address_widths): each access single (vector_search's floor and instructions) or paired
    (two_address_floor, half the instructions); the tuple's key the least of every choice, and every
    choice's (floor, instructions) kept for _judged. The wavefront floors hold where the two-address
    cells are bounded by the single requests (bounded_by_singles; solve_auto says not complete
    otherwise)."""
    forms: Forms = {}
    if not any(widths):
        return items, forms
    e, bb, banks = tile.elem_bytes, hardware.bank_bytes, hardware.banks
    out = []
    for it in items:
        if it.expand is not None:
            out.append(it)
            continue
        options = [[(vector_search.floor(s, j, e, bb, banks), vector_search.instructions(s, j))]
                   + ([(two_address_floor(a, s, j, tile, hardware), vector_search.instructions(s, j) // 2)]
                      if j in ok else [])
                   for a, s, j, ok in zip(accesses, sides, it.widths, widths)]
        choices = [(sum(f for f, _ in c), sum(i for _, i in c)) for c in itertools.product(*options)]
        forms[it.widths] = choices
        floor, count = min(choices)
        out.append(replace(it, floor=floor, instructions=count))
    return out, forms


def two_address_moved(access: RegisterAccess, starts: np.ndarray, groups: list[int], v: int, tile: Tile,
                      hardware: Hardware, singles: int = 0) -> Moved | None:
    """The access with each lane's vectors issued two at a time by a two-address instruction
    (two_address_op), where the target has it: ``starts`` (shape (warps, register groups, lanes)) are
    the physical element offsets of each request's vectors, group k holding the XOR of the group bases
    of k's set bits (``groups``). Each pairing is a register-group direction t (group k with group k ^ t, the lower
    first); one whose distances differ between lanes or warps, or that no op encodes, is not issued.
    Every pairing that is, measured by its op's cell (hardware.Rule: its banks, its phases over both
    addresses); the fewest wavefronts, then the first pairing. Where the cell is bounded by its single
    requests (bounded_by_singles), the first pairing at ``singles`` (the single requests' wavefronts)
    is the least; where it serves the second addresses in the first ones' phases, after them
    (_two_pass), every pairing costs the same."""
    count, n = starts.shape[1], starts.shape[2]
    if count < 2 or v not in TWO_ADDRESS_WIDTHS or not hardware.rules:
        return None
    best = None
    for t in range(1, count):
        low = np.array([k for k in range(count) if k < k ^ t])
        first, second = starts[:, low, :], starts[:, low ^ t, :]
        distance = (second - first) * tile.elem_bytes  # bytes, per (warp, pair, lane)
        if (distance != distance[:1, :, :1]).any():  # not one distance per instruction for every lane and warp
            continue
        op = two_address_op(v, distance[0, :, 0], access.store)
        rule = hardware.rule(op) if op is not None else None
        if rule is None:
            continue
        found = _two_address_cost(access, np.concatenate([first, second], axis=2).reshape(-1, 2 * n), rule, tile,
                                  hardware)
        if best is None or found.wavefronts < best.wavefronts:
            best = replace(found, pair=gf2.apply(groups, t))
        if (found.wavefronts <= singles and _bounded(hardware, rule.op)) or _two_pass(hardware, rule.op):
            break
    return best


def _two_address_cost(access: RegisterAccess, slots: np.ndarray, rule: Rule, tile: Tile, hardware: Hardware) -> Moved:
    """One two-address instruction per row of ``slots`` (every lane's first address, then every lane's
    second), split into the rule's phases of slots and measured by the simulator on its banks."""
    n, wave = slots.shape[1] // 2, hardware.wave_lanes
    # rule.phases number slot l + a * wave; this request holds the n lanes present, slot l + a * n
    phases = [[(s // wave) * n + s % wave for s in phase if s % wave < n] for phase in rule.phases]
    phases = [p for p in phases if p]
    widest = max(map(len, phases))
    index = np.array([p + [p[0]] * (widest - len(p)) for p in phases])
    wavefronts, lower = _measure(slots[:, index].reshape(-1, widest), rule.lane_bytes, tile, hardware.for_rule(rule))
    return Moved(access.name, rule.lane_bytes, rule.op, slots.shape[0], wavefronts, lower, access.direction)


# ldmatrix / stmatrix (.m8n8 .b16, PTX ISA): the lanes 8i .. 8i+7 give the 8 row addresses (16 bytes
# each) of matrix i; lane l receives, of each matrix, the 32-bit register holding the two 16-bit units
# of row l / 4 at unit columns 2 (l % 4) and + 1 (with .trans: unit rows 2 (l % 4) and + 1, unit
# column l / 4). The b16 is only the unit: a 16-byte row is bits, so 1-, 2- and 4-byte data move the
# same way (Triton 3.9 compiles them so). In offset bits of a 16-byte row (e-byte elements):
#   non-transposed: the element bits inside the lane's 32-bit register (log2(4/e) of them), then lane
#     bits 0 and 1; the 8 rows are lane bits 2 to 4;
#   .trans (e <= 2 only: a 4-byte element would be split into two units of different lanes): the
#     element bits inside a unit (log2(2/e)), then lane bits 2 to 4; the rows are the register
#     direction holding the register's second unit, and lane bits 0 and 1.
# The element bits inside one 32-bit register may be any register directions, as a vector's are: the
# kernel packs its registers into 32-bit words (8-bit data is held one element a register and packed
# by prmt whatever the order; Triton 3.9 does so), and which 32-bit registers are the x2 / x4
# matrices is its choice too (whole registers are named freely): any further register direction.
MATRIX_ROW_BYTES = 16


def matrix_op(access: RegisterAccess) -> str:
    """ldmatrix for a load, stmatrix (the same lane map, written) for a store."""
    return "stmatrix" if access.store else "ldmatrix"


MatrixForm = tuple[str, list[int], list[int]]
"""(name suffix, the 8 rows' directions, the register directions inside one 32-bit register)."""


def has_matrix(access: RegisterAccess, tile: Tile, hardware: Hardware) -> bool:
    """Whether the access may be an ldmatrix (stmatrix) at all: the target has it, a 32-lane warp,
    1-, 2- or 4-byte data, registers to pair below 4 bytes."""
    e = tile.elem_bytes
    return (e in (1, 2, 4) and matrix_op(access) in hardware.instructions and len(access.lane) == 5
            and bool(access.register or e == 4))


def matrix_forms(access: RegisterAccess, pre: list[int], tile: Tile, hardware: Hardware) -> list[MatrixForm]:
    """The ldmatrix (stmatrix: a store) forms the layout's preimages ``pre`` allow, one per choice of
    the register that holds a register's second unit where it is free; none where the target lacks
    the instruction (stmatrix: sm_90 on) or the element is not 1, 2 or 4 bytes."""
    e = tile.elem_bytes
    if not has_matrix(access, tile, hardware):
        return []
    row_bits = log2(MATRIX_ROW_BYTES // e)
    if len(pre) < row_bits:
        return []
    lane, regs = list(access.lane), vector_search.independent(list(access.register))
    inreg = log2(4 // e)  # element bits inside one 32-bit register
    out: list[MatrixForm] = []
    if pre[inreg:row_bits] == lane[0:2] and _in_register(pre[:inreg], regs):
        out.append(("", lane[2:5], pre[:inreg]))
    unit = log2(2 // e) if e <= 2 else -1  # element bits inside a 16-bit unit
    if unit >= 0 and pre[unit:row_bits] == lane[2:5] and _in_register(pre[:unit], regs):
        out += [(".trans", [p, lane[0], lane[1]], pre[:unit] + [p]) for p in regs
                if gf2.rank(pre[:unit] + [p]) == unit + 1]
    return out


def _in_register(bits: list[int], regs: list[int]) -> bool:
    """The row's low element bits lie in the lane's registers (one 32-bit word of them)."""
    return gf2.rank(regs + bits) == len(regs)


def matrix_moved(access: RegisterAccess, bases: list[int], tile: Tile, hardware: Hardware) -> Moved | None:
    """The access as ldmatrix.x1/x2/x4[.trans] (a store: stmatrix) under the layout, when its lane map
    allows it: each instruction reads 2^k matrices (k <= 2 of the lane's register directions beyond
    those inside one 32-bit register), each matrix one phase of 8 rows of 16 bytes, measured by the
    simulator; the best form."""
    best = None
    for form in matrix_forms(access, preimages_of(bases), tile, hardware):
        found = form_moved(access, bases, form, tile, hardware)
        if best is None or (found.wavefronts, found.instructions) < (best.wavefronts, best.instructions):
            best = found
    return best


def form_moved(access: RegisterAccess, bases: list[int], form: MatrixForm, tile: Tile, hardware: Hardware) -> Moved:
    """The access as one ldmatrix (stmatrix) form of matrix_forms, measured."""
    suffix, rows, inreg = form
    layout = GeneralLinear(tuple(bases))
    row_elems = MATRIX_ROW_BYTES // tile.elem_bytes
    rest = vector_search.independent_mod(list(access.register), inreg)
    k = min(2, len(rest))
    matrices, groups = rest[:k], rest[k:]
    firsts = (_span_all(list(access.warp))[:, None, None] ^ _span_all(groups)[None, :, None]
              ^ _span_all(matrices)[None, None, :]).reshape(-1)
    starts = layout.apply(firsts[:, None] ^ _span_all(rows)[None, :]) & ~(row_elems - 1)
    wavefronts, lower = _measure(starts, MATRIX_ROW_BYTES, tile, hardware)
    instructions = (1 << len(access.warp)) * (1 << len(groups))
    return Moved(access.name, MATRIX_ROW_BYTES, f"{matrix_op(access)}.x{1 << k}{suffix}", instructions,
                 wavefronts, lower, access.direction)


# --- gfx950's transposing reads: ds_read_b64_tr_b16 / _b8 (transpose_read.py's lane map) ---------------
# Lane i of each 16-lane group receives, as its n = 8 / e register elements, column i of the n x 16
# matrix its group's 8-byte reads make in lane order. In the access's terms: the n elements of one
# instruction are its first log2(n) register directions (the lane's registers in Triton's order, no
# shuffle: the result's elements are taken as they come); the position of a lane's element in its
# 8 bytes is its lane bits 0 .. log2(n) - 1, so under a layout L those lane bases must be L's offset
# bits 0 .. log2(n) - 1 (the 8 bytes' element bits) and no other register, lane or warp base may
# touch those bits; the source lanes' addresses are then whatever L puts there (any, one 8-byte
# chunk each). transpose_read.addresses checks exactly that, lane by lane.


def tr_op(access: RegisterAccess, tile: Tile, hardware: Hardware) -> tuple[str, int] | None:
    """(op, k = log2 of the elements a lane receives) where the access may be a transposing read: a
    load of 2-byte (_b16) or 1-byte (_b8) data by a whole 64-lane wave, whose lanes are independent of
    its registers, on a target with that op's cell (gfx950); else None."""
    op = transpose_read.OPS.get(tile.elem_bytes)
    if access.store or op is None or hardware.rule(op) is None or len(access.lane) != 6:
        return None
    k = log2(transpose_read.elements(tile.elem_bytes))
    regs = vector_search.independent(list(access.register))
    if len(regs) < k or gf2.rank(regs + list(access.lane)) != len(regs) + len(access.lane):
        return None
    return op, k


def tr_moved(access: RegisterAccess, bases: list[int], tile: Tile, hardware: Hardware) -> Moved | None:
    """The access as ds_read_b64_tr_bN under the layout, where its lane map is exactly what the read
    delivers (transpose_read.addresses): one instruction per warp and register group beyond the first
    k register directions, each source lane's 8-byte address split into the op's phases (its cell in
    hardware.py: 64 banks, 2 x 32 lanes on gfx950) and counted by the simulator; else None."""
    found = tr_op(access, tile, hardware)
    if found is None:
        return None
    op, k = found
    regs = vector_search.independent(list(access.register))
    inst, groups = regs[:k], regs[k:]
    firsts = (_span_all(list(access.warp))[:, None] ^ _span_all(groups)[None, :]).reshape(-1)
    logical = firsts[:, None, None] ^ _span_all(list(access.lane))[None, :, None] ^ _span_all(inst)[None, None, :]
    offsets = GeneralLinear(tuple(bases)).apply(logical)
    starts = transpose_read.addresses(offsets, 1 << k)
    if starts is None:
        return None
    rule = hardware.rule(op)
    assert rule is not None
    index = np.array(rule.phases)
    wavefronts, lower = _measure(starts[:, index].reshape(-1, index.shape[1]), transpose_read.LANE_BYTES, tile,
                                 hardware.for_rule(rule))
    return Moved(access.name, transpose_read.LANE_BYTES, op, starts.shape[0], wavefronts, lower, access.direction)


def tr_floor(access: RegisterAccess, side: vector_search.Side, tile: Tile, hardware: Hardware) -> tuple[int, int]:
    """(wavefronts, instructions) at least, of the access as a transposing read: each instruction
    one per phase of its cell at least (and its bytes over a wavefront); requests 2^(rank R - k)."""
    found = tr_op(access, tile, hardware)
    assert found is not None
    op, k = found
    rule = hardware.rule(op)
    assert rule is not None
    served = hardware.for_rule(rule)
    each = sum(served.lower_bound(len(p) * rule.lane_bytes) for p in rule.phases)
    count = side.requests << (len(side.regs) - k)
    return count * each, count


TR_ITEM = " as a transposing read"  # the what of a tr_items group (solve_auto's evaluate knows it by it)


def tr_items(accesses: Sequence[RegisterAccess], sides: Sequence[vector_search.Side], paired: list[list[int]],
             tile: Tile, hardware: Hardware) -> list[vector_search.Item]:
    """Per access that may be a transposing read (tr_op) and per width of every other access: the
    chains whose first k preimages are its lane bases 0 .. k-1 (the 8 bytes' element bits), then
    what gives the others those widths. Floor: tr_floor for it (or its width-0 vectors, if fewer);
    for each other, its width floor, or its two-address one where it may pair, or its own
    transposing read where it has the same lane bits (all three taken as the least: sound)."""
    out = []
    for a, side in zip(accesses, sides):
        found = tr_op(a, tile, hardware)
        if found is None:
            continue
        k = found[1]
        pattern = list(a.lane[:k])
        f0, i0 = tr_floor(a, side, tile, hardware)
        own = (min(f0, vector_search.floor(side, 0, tile.elem_bytes, hardware.bank_bytes, hardware.banks)),
               min(i0, vector_search.instructions(side, 0)))
        others = [(b, s, ok) for b, s, ok in zip(accesses, sides, paired) if s is not side]
        for widths in itertools.product(*[range(s.most + 1) for _, s, _ in others]):
            floor, count = own
            for (b, s, ok), j in zip(others, widths):
                f, i = _tr_other_floor(b, s, j, ok, pattern, tile, hardware)
                floor, count = floor + f, count + i
            sides_b = tuple(s for _, s, _ in others)
            what = f"{a.name}{TR_ITEM}, the others " + "/".join(str(tile.elem_bytes << j) for j in widths)
            out.append(vector_search.Item(floor, count, (), functools.partial(_tr_chains, pattern, sides_b, widths),
                                          what))
    return out


def _tr_other_floor(b: RegisterAccess, s: vector_search.Side, j: int, ok: list[int], pattern: list[int], tile: Tile,
                    hardware: Hardware) -> tuple[int, int]:
    """(wavefronts, instructions) at least of another access at width j in a transposing read's group."""
    f = vector_search.floor(s, j, tile.elem_bytes, hardware.bank_bytes, hardware.banks)
    i = vector_search.instructions(s, j)
    if j in ok:
        f, i = min(f, two_address_floor(b, s, j, tile, hardware)), i // 2
    mine = tr_op(b, tile, hardware)
    if mine is not None and list(b.lane[:mine[1]]) == pattern:
        tf, ti = tr_floor(b, s, tile, hardware)
        f, i = min(f, tf), min(i, ti)
    return f, i


def _tr_chains(pattern: list[int], sides: tuple[vector_search.Side, ...], widths: tuple[int, ...]
               ) -> Iterator[list[int] | None]:
    """Every chain that starts with ``pattern`` and gives each other access exactly its width (a
    width at its widest: at least it), as vector_search.chains grows them past the pattern."""
    k = len(pattern)
    for s, j in zip(sides, widths):
        if _prefix(s, pattern) != min(j, k):
            return
    top = max([k, *widths])
    marks = set(widths) | {min(s.units[j], top) for s, j in zip(sides, widths)} | {top}
    points = sorted(b for b in marks if b > k)
    if not points:
        yield pattern
        return
    yield from vector_search._grow(list(sides), list(widths), points, list(pattern), k)


# --- the search -----------------------------------------------------------------------------------


class Choice(Value):
    """One layout with every access's vector chosen with it, measured."""

    layout: Layout
    accesses: tuple[Moved, ...]
    how: str  # where the candidate came from

    @property
    def wavefronts(self) -> int:
        return sum(m.wavefronts for m in self.accesses)

    @property
    def instructions(self) -> int:
        return sum(m.instructions for m in self.accesses)

    def key(self, tile: Tile) -> tuple:
        from .families import FAMILY_RANK

        return (self.wavefronts, self.instructions, self.layout.storage(tile), FAMILY_RANK[self.layout.family],
                self.layout.order)

    def json(self, tile: Tile) -> dict:
        return {"layout": self.layout.name, "family": self.layout.family, "from": self.how,
                "total_wavefronts": self.wavefronts, "total_instructions": self.instructions,
                "storage_bytes": self.layout.storage(tile) * tile.elem_bytes,
                "accesses": [m.json() for m in self.accesses]}


def measure_choice(layout: Layout, accesses: Sequence[RegisterAccess], tile: Tile, hardware: Hardware,
                   how: str, given: bool = False) -> Choice | None:
    """The layout with every access's vector chosen with it (``given``: the vectors as given)."""
    bases = layout.bases(tile)
    if bases is None or layout.invalid(tile) is not None:
        return None
    return Choice(layout, tuple(moved(a, bases, tile, hardware, given_vector(a, tile) if given else None)
                                for a in accesses), how)


def candidate_vectors(accesses: Sequence[RegisterAccess], elem_bytes: int) -> list[tuple[str, list[int]]]:
    """(what, vector preimages) to build from: the registers every access shares, then each access's
    own, each at every length from the widest (16 bytes) down to 1 element; distinct ones only."""
    most = log2(max(1, MAX_VECTOR_BYTES // elem_bytes))
    shared = _intersection([list(a.register) for a in accesses])
    out: list[tuple[str, list[int]]] = []
    seen = set()
    # the shared registers, then each access's own after them (that access's vector runs on past the
    # shared part), then each access's own alone
    own = [(f"{a.name}'s registers after the shared ones", shared + list(a.register)) for a in accesses]
    alone = [(f"{a.name}'s registers", list(a.register)) for a in accesses]
    matrix = [(f"{a.name}'s ldmatrix{suffix} rows", rows) for a in accesses
              for suffix, rows in matrix_rows(a, elem_bytes, shared)]
    for what, basis in [("every access's registers", shared)] + own + alone + matrix:
        basis = vector_search.independent(basis)
        for j in range(min(most, len(basis)), -1, -1):
            key = tuple(basis[:j])
            if key not in seen:
                seen.add(key)
                out.append((what, basis[:j]))
    return out


def matrix_rows(access: RegisterAccess, e: int, shared: Sequence[int] = ()) -> list[tuple[str, list[int]]]:
    """The preimages of a 16-byte ldmatrix/stmatrix row the access's lane map gives (matrix_forms):
    non-transposed, register directions inside a 32-bit word (those every access shares first, then
    its own first ones) and lane bits 0, 1; transposed (e <= 2), the register directions inside a
    16-bit unit and lane bits 2 to 4."""
    if len(access.lane) != 5 or e not in (1, 2, 4):
        return []
    regs, lane = vector_search.independent(list(access.register)), list(access.lane)
    inreg, unit = log2(4 // e), (log2(2 // e) if e <= 2 else -1)
    mine = vector_search.independent([x for x in shared if x in _span_set(regs)] + regs)
    # (the forms the tool had for 2-byte data first: its answers there stay as they were)
    heads = ([[p] for p in regs[:3]] if inreg == 1 else [regs[:inreg]]) + [mine[:inreg]]
    out: list[tuple[str, list[int]]] = []
    for h in heads:
        if len(h) == inreg and ("", h + lane[0:2]) not in out:
            out.append(("", h + lane[0:2]))
    for h in ([regs[:unit], mine[:unit]] if unit >= 0 else []):
        if len(h) == unit and (".trans", h + lane[2:5]) not in out:
            out.append((".trans", h + lane[2:5]))
    return out


def _span_set(vectors: list[int]) -> set[int]:
    return {int(x) for x in _span_all(vectors)}


def _intersection(spans: list[list[int]]) -> list[int]:
    """A basis of the intersection of the spans, preferring the first span's own vectors in order."""
    first = vector_search.independent(spans[0]) if spans else []
    common = first
    for other in spans[1:]:
        other = vector_search.independent(other)
        # x in span(common) ∩ span(other): combos of common + other in the kernel
        kern = gf2.kernel(common + other)
        common = vector_search.independent([gf2.apply(common, c & ((1 << len(common)) - 1)) for c in kern])
    # prefer the first span's own bases where they lie in the intersection
    pref = [v for v in first if gf2.rank(common + [v]) == len(common)]
    return vector_search.independent(pref + common)


def phase_spaces(access: RegisterAccess, vector: list[int], tile: Tile, hardware: Hardware
                 ) -> list[tuple[list[int], int]]:
    """Per distinct phase of the access's requests with the vector ``vector`` (its j_p-prefix that
    lies in its registers): the phase's directions above its unit that leave the vector bits of its
    slots alone, as (space mod the vector, phases of it per tile)."""
    e = tile.elem_bytes
    special = _form_spaces(access, vector, tile, hardware)
    if special is not None:
        return special
    jp = vector_bits(access, vector, e)
    vbytes = e << jp
    wpiv = general.echelon(vector)
    up = hardware.geometry(e, vbytes).unit_shift
    lanes = _lane_offsets(access.lane)
    pivots = general.echelon(vector[:jp])
    starts = [general.reduce(x, pivots) for x in lanes]
    served = hardware.by_vector(vbytes, access.store)  # the op's own phases (moved measures so)
    paired = served.pairs(starts, vbytes, access.store)
    groups = 1 << (gf2.rank(list(access.register)) - jp)
    requests = (1 << len(access.warp)) * groups
    out: dict[tuple[int, ...], int] = {}
    rule = tuple(tuple(phase) for phase in served.phase_indices(len(lanes), vbytes, paired))
    for dirs, count in _phase_directions(access.lane, rule):
        # the vector coordinates of each direction: x = w + c, c reduced mod W
        coords = [gf2.coordinates(vector, d ^ general.reduce(d, wpiv)) if d != general.reduce(d, wpiv) else 0
                  for d in dirs]
        sep = [(c >> up) for c in coords]  # coordinates at vector bits at or above its unit: other slots
        keep = [gf2.apply(list(dirs), k) for k in gf2.kernel(sep)] if any(sep) else list(dirs)
        space = [y for y in general.echelon([general.reduce(x, wpiv) for x in keep]).values()]
        key = tuple(sorted(space))
        out[key] = out.get(key, 0) + requests * count
    return [(list(k), w) for k, w in out.items()]


def _form_spaces(access: RegisterAccess, vector: list[int], tile: Tile, hardware: Hardware
                 ) -> list[tuple[list[int], int]] | None:
    """phase_spaces where the chain makes the access an instruction of its own lane map: ldmatrix
    (each matrix one phase, its 8 rows) or a transposing read (tr_space); else None."""
    forms = matrix_forms(access, vector, tile, hardware)
    if forms:
        _, rows, inreg = forms[0]
        wpiv = general.echelon(vector)
        space = list(general.echelon([general.reduce(x, wpiv) for x in rows]).values())
        phases = (1 << len(access.warp)) << (len(vector_search.independent(list(access.register))) - len(inreg))
        return [(space, phases)]
    tr = tr_op(access, tile, hardware)
    if tr is not None and list(vector[:tr[1]]) == list(access.lane[:tr[1]]):
        return [tr_space(access, vector, tr[1])]
    return None


def tr_space(access: RegisterAccess, vector: list[int], k: int) -> tuple[list[int], int]:
    """A transposing read's phase (32 source lanes: lane bits k .. 3 pick the chunk of a register
    element, lane bit 4 the second group, the k register directions the rows) as phase_spaces gives
    it: its directions mod the vector, and the phases of it per tile (2 an instruction)."""
    wpiv = general.echelon(vector)
    regs = vector_search.independent(list(access.register))
    dirs = list(access.lane[k:5]) + regs[:k]
    space = list(general.echelon([general.reduce(x, wpiv) for x in dirs]).values())
    return space, (1 << len(access.warp)) << (len(regs) - k) << (len(access.lane) - 5)


@functools.lru_cache(maxsize=256)
def _lane_offsets(lane: tuple[int, ...]) -> tuple[int, ...]:
    """Every lane's index offset (lane l: the XOR of the lane bases of l's set bits), in lane order."""
    return tuple(gf2.apply(list(lane), i) for i in range(1 << len(lane)))


@functools.lru_cache(maxsize=1024)
def _phase_directions(lane: tuple[int, ...], phases: tuple[tuple[int, ...], ...]
                      ) -> tuple[tuple[tuple[int, ...], int], ...]:
    """Each phase's independent lane differences (from its first lane), the distinct ones in the
    order they first come, with how many phases have them: they depend on the lanes and the phase
    rule alone, not on the layout (phase_spaces asks them again for every vector chain)."""
    lanes = _lane_offsets(lane)
    found: dict[tuple[int, ...], int] = {}
    for phase in phases:
        dirs = tuple(vector_search.independent([lanes[i] ^ lanes[phase[0]] for i in phase]))
        found[dirs] = found.get(dirs, 0) + 1
    return tuple(found.items())


def op_banks(accesses: Sequence[RegisterAccess], vector: list[int], tile: Tile, hardware: Hardware
             ) -> dict[str, int]:
    """Each access's op under the vector chain ``vector`` (its width: vector_bits) -> the banks its
    own cell serves it on (hardware.Hardware.by_vector): on gfx950 a ds_write on 32 banks, a
    ds_read_b128 on 64."""
    out = {}
    for a in accesses:
        v = tile.elem_bytes << vector_bits(a, vector, tile.elem_bytes)
        out[instruction_name(hardware, v, a.store)] = hardware.by_vector(v, a.store).banks
    return out


def construct_for(accesses: Sequence[RegisterAccess], vector: list[int], tile: Tile, hardware: Hardware,
                  max_nodes: int = general.MAX_NODES) -> tuple[GeneralLinear, general.Kernel, bool]:
    """general.construct with the vector ``vector`` and every access's phases weighted by their count;
    and whether its kernel cost is exact (no offset bit between the vector and its unit: the rank
    formula holds, vector_search.py; and every access's op served on a bank count b dividing
    ``hardware``'s B, op_banks: then word mod B decides word mod b, so a phase's count on b banks is
    at least its count on B, and the kernel cost on B is a floor of the chain, exact where every b is B)."""
    e = tile.elem_bytes
    j = len(vector)
    one_bank_count = all(hardware.banks % b == 0 for b in op_banks(accesses, vector, tile, hardware).values())
    geometry = hardware.geometry(e, e << j)
    u = geometry.unit_shift
    spaces: list[list[int]] = []
    weights: list[int] = []
    for a in accesses:
        for space, w in phase_spaces(a, vector, tile, hardware):
            spaces.append(space)
            weights.append(w)
    layout, kern = general.construct(log2(tile.size), vector, max(0, u - j), geometry.slot_bits, spaces, weights,
                                     max_nodes)
    return layout, kern, u <= j and one_bank_count


OTHER_BANKS_NODES = 200  # kernel_search nodes of a chain's construction on another bank count than the target's


class Auto(Value):
    """The --vectors auto answer and what it was compared with."""

    answer: Choice
    given: Choice  # the plain solve's answer with the vectors as given (from the register order)
    candidates: tuple[Choice, ...]  # every candidate measured, best first
    kernel_complete: bool  # the search over every vector chain was complete (vector_search.py)
    chains: int = 0  # vector chains built
    why_not: str | None = None  # why the search is not complete
    rounds: Rounds | None = None  # the answer through a smaller buffer (rounds.py)


def search_sides(accesses: Sequence[RegisterAccess], tile: Tile, hardware: Hardware) -> list[vector_search.Side]:
    """Each access as vector_search sees it: its register basis, lanes, requests, widest vector
    (vector_bits' cap) and the unit of each width."""
    e = tile.elem_bytes
    out = []
    for a in accesses:
        regs = vector_search.independent(list(a.register))
        most = min(len(regs), log2(max(1, min(MAX_VECTOR_BYTES, a.max_vector_bytes) // e)))
        units = tuple(hardware.geometry(e, e << j).unit_shift for j in range(most + 1))
        # (an access that may be an ldmatrix/stmatrix is measured in that form too, whose matrices
        # are phases of their own: its vector form's phases are no floor for it)
        phases = () if has_matrix(a, tile, hardware) else tuple(least_phases(a, e << j, hardware)
                                                                   for j in range(most + 1))
        # the floors' banks: each width's op's own (gfx950: a ds_write's 32), as moved measures it
        banks = tuple(hardware.by_vector(e << j, a.store).banks for j in range(most + 1)) if hardware.rules else ()
        out.append(vector_search.Side(tuple(regs), tuple(a.lane), 1 << len(a.warp), most, units, phases, banks))
    return out


def least_phases(access: RegisterAccess, vector_bytes: int, hardware: Hardware) -> int:
    """The fewest phases one instruction of the access has at this width, whatever the layout: the
    target's phases of its lanes, halved where a load of this width may be paired (Hardware.pairs:
    whether it is depends on where the lanes start, so the floor takes the fewer)."""
    lanes = 1 << len(access.lane)
    served = hardware.by_vector(vector_bytes, access.store)  # the op's own cell (AMD: a write's phases)
    phases = len(served.phase_indices(lanes, vector_bytes))
    may_pair = not access.store and vector_bytes in served.paired_loads and lanes == served.wave_lanes
    return phases // 2 if may_pair else phases


def matrix_items(accesses: Sequence[RegisterAccess], sides: Sequence[vector_search.Side], tile: Tile,
                 hardware: Hardware) -> list[vector_search.Item]:
    """The ldmatrix/stmatrix row chains (row_patterns), grouped by the width the row's prefix gives
    every other access: non-transposed, any independent register directions inside a 32-bit word,
    then lane bits 0 and 1; transposed (1- and 2-byte data), any register directions inside a 16-bit
    unit, then lane bits 2 to 4. Each group's floor (vector_search.py): one wavefront a matrix for the
    matrix access; for every other, F_b at its width, or one wavefront a matrix where the same row
    could be one of its own forms at that width (``other_floor``); its chains made only when it is
    reached."""
    out = []
    for a, side in zip(accesses, sides):
        others = [(b, s) for b, s in zip(accesses, sides) if s is not side]
        for suffix, pattern in row_patterns(a, side, tile, hardware):
            for widths in itertools.product(*[range(min(s.most, len(pattern)) + 1) for _, s in others]):
                out.append(_matrix_group(a, side, suffix, pattern, others, widths, tile, hardware))
    return out


RowPattern = list[int | None]
"""What each offset bit of a 16-byte ldmatrix/stmatrix row must be the preimage of: None, one of the
lane's register directions (inside its 32-bit word, or its 16-bit unit); else that lane basis."""


def row_patterns(access: RegisterAccess, side: vector_search.Side, tile: Tile, hardware: Hardware
                 ) -> list[tuple[str, RowPattern]]:
    """The access's ldmatrix/stmatrix forms (matrix_forms) as row patterns: non-transposed, log2(4/e)
    register directions then lane bits 0, 1; .trans (e <= 2), log2(2/e) register directions then lane
    bits 2 to 4 (and one more register direction for the register's second unit). Only those its
    registers can fill: a matrix's lane holds log2(4/e) register directions either way."""
    e = tile.elem_bytes
    if not has_matrix(access, tile, hardware) or log2(4 // e) > len(side.regs):
        return []
    lane: RowPattern = list(access.lane)
    free: RowPattern = [None] * log2(4 // e)
    out = [("", free + lane[0:2])]
    if e <= 2:
        out.append((".trans", free[1:] + lane[2:5]))
    return out


def matrix_floor(side: vector_search.Side, tile: Tile) -> tuple[int, int]:
    """(wavefronts, instructions) at least, of the access as ldmatrix/stmatrix in any form: each
    matrix one phase, at least one wavefront; 2^(its register directions beyond one 32-bit word)
    matrices a request, .x4 (or as many as there are) an instruction."""
    rest = len(side.regs) - log2(4 // tile.elem_bytes)
    return side.requests << rest, side.requests << (rest - min(2, rest))


def _in_span(x: int, basis: Sequence[int]) -> bool:
    return gf2.rank(list(basis) + [x]) == gf2.rank(list(basis))


def could_share(pattern: RowPattern, regs: Sequence[int], other: RowPattern, other_regs: Sequence[int]) -> bool:
    """Whether one row's preimages could fit both patterns (a necessary condition): where both fix a
    lane basis the two are equal; where one fixes a lane basis and the other wants a register
    direction, that basis lies in the other's registers."""
    for x, y in zip(pattern, other):
        if (x is not None and y is not None and x != y) or (x is None and y is not None and not _in_span(y, regs)) \
                or (y is None and x is not None and not _in_span(x, other_regs)):
            return False
    return True


def pattern_width(side: vector_search.Side, pattern: RowPattern) -> int | None:
    """The width a row of this pattern gives the access itself: its register directions (at most its
    widest), the lane basis after them outside its registers; None where that basis lies in them (a
    lane repeating a register's data: any width, as far as this says)."""
    k, first = next((i, x) for i, x in enumerate(pattern) if x is not None)
    return None if _in_span(first, side.regs) else min(side.most, k)


def other_floor(b: RegisterAccess, side: vector_search.Side, j: int, pattern: RowPattern, regs: Sequence[int],
                tile: Tile, hardware: Hardware) -> tuple[int, int]:
    """(wavefronts, instructions) at least, of access ``b`` at width j under a row of ``pattern`` (the
    registers ``regs``'): F_b(j) and I_b(j) as vectors; the lesser of those and matrix_floor where the
    row could also be one of b's own forms at width j (vectors.moved takes b's matrix form then, if
    it is cheaper)."""
    f = vector_search.floor(side, j, tile.elem_bytes, hardware.bank_bytes, hardware.banks)
    i = vector_search.instructions(side, j)
    for _, mine in row_patterns(b, side, tile, hardware):
        if pattern_width(side, mine) in (None, j) and could_share(pattern, regs, mine, side.regs):
            mf, mi = matrix_floor(side, tile)
            f, i = min(f, mf), min(i, mi)
    return f, i


def own_floor(side: vector_search.Side, pattern: RowPattern, tile: Tile, hardware: Hardware) -> tuple[int, int]:
    """(wavefronts, instructions) at least, of an access under a row of its own ``pattern``: matrix_floor,
    or F and I at the width the row gives it where vectors would be fewer (never, unless its lanes
    repeat its registers' data: F_a(j) is at least the tile's bytes over a wavefront, as is this)."""
    f, i = matrix_floor(side, tile)
    w = pattern_width(side, pattern)
    for j in range(side.most + 1) if w is None else [w]:
        f = min(f, vector_search.floor(side, j, tile.elem_bytes, hardware.bank_bytes, hardware.banks))
        i = min(i, vector_search.instructions(side, j))
    return f, i


def _matrix_group(a: RegisterAccess, side: vector_search.Side, suffix: str, pattern: RowPattern,
                  others: list[tuple[RegisterAccess, vector_search.Side]], widths: tuple[int, ...], tile: Tile,
                  hardware: Hardware) -> vector_search.Item:
    """The group of row chains of access ``a`` that give the other accesses ``widths``."""
    e = tile.elem_bytes
    floor, count = own_floor(side, pattern, tile, hardware)
    for (b, s), j in zip(others, widths):
        f, i = other_floor(b, s, j, pattern, side.regs, tile, hardware)
        floor, count = floor + f, count + i
    inreg = pattern.count(None)
    tail = [x for x in pattern if x is not None]
    sides = [s for _, s in others]

    # head position i lies in the registers of every other access wider than i, and outside those
    # of an access exactly i wide (which could run on)
    pools = [vector_search.intersection([list(side.regs)] + [list(s.regs) for s, j in zip(sides, widths) if j > i])
             for i in range(inreg)]
    stops = [[list(s.regs) for s, j in zip(sides, widths) if j == i < s.most] for i in range(inreg)]

    def expand() -> Iterator[list[int] | None]:
        for seen, head in enumerate(_ordered(pools, stops)):
            if seen >= vector_search.MAX_VISITS:
                yield None
                return
            vector = head + tail
            if tuple(_prefix(s, vector) for s in sides) == widths:
                yield vector

    what = f"{a.name}'s {matrix_op(a)}{suffix} rows, the others " + "/".join(str(e << j) for j in widths)
    return vector_search.Item(floor, count, (), expand, what)


def chain_instructions(accesses: Sequence[RegisterAccess], sides: Sequence[vector_search.Side], vector: list[int],
                       tile: Tile, hardware: Hardware) -> int:
    """The instructions of every layout of the chain at its item's widths: an access whose form the
    chain's row gives is an ldmatrix/stmatrix (fewer wavefronts or the same in fewer instructions
    than its vectors), matrix_floor's; the others' vectors at the width the chain gives them. (A
    matrix group's others may be matrices or not, chain by chain: its item counts the fewer.)"""
    return sum(matrix_floor(s, tile)[1] if matrix_forms(a, vector, tile, hardware)
               else vector_search.instructions(s, _prefix(s, vector)) for a, s in zip(accesses, sides))


def _prefix(side: vector_search.Side, vector: list[int]) -> int:
    """The width ``vector`` gives the access: its longest prefix in the registers, at most its widest."""
    j = 0
    while j < min(side.most, len(vector)) and gf2.rank(list(side.regs) + vector[:j + 1]) == len(side.regs):
        j += 1
    return j


def _ordered(pools: list[list[int]], stops: list[list[list[int]]], base: tuple[int, ...] = ()
             ) -> Iterator[list[int]]:
    """Every ordered list of independent vectors, the i-th from span(pools[i]) and outside every
    span of stops[i], one per flag of subspaces: each vector the representative of its coset of the
    span of those before it (no bit at their pivots)."""
    i = len(base)
    if i == len(pools):
        yield []
        return
    pivots = general.echelon(list(base))
    for x in _span_all(pools[i])[1:]:
        x = int(x)
        if general.reduce(x, pivots) == x and all(gf2.rank(t + [x]) > gf2.rank(t) for t in stops[i]):
            for rest in _ordered(pools, stops, base + (x,)):
                yield [x] + rest


def solve_auto(accesses: Sequence[RegisterAccess], tile: Tile, hardware: Hardware, plain: Layout | None,
               max_chains: int = vector_search.MAX_CHAINS) -> Auto:
    """Every candidate measured, ranked by the objective: the plain solve's answer (the vectors as
    given, ``plain``) with its vectors chosen again, row-major storage, and the layout built from
    every vector chain vector_search.search reaches (each width tuple and ldmatrix row chain in order
    of its floor, while it could beat the best found)."""
    from .families.identity import Identity

    found: list[Choice] = []
    for layout, how in [(plain, "the plain solve's answer"), (Identity(), "row-major storage")]:
        if layout is not None:
            c = measure_choice(layout, accesses, tile, hardware, how)
            if c is not None:
                found.append(c)
    sides = search_sides(accesses, tile, hardware)
    items, paired, forms = search_items(accesses, sides, tile, hardware)

    built: list[tuple[list[int], vector_search.Item, vector_search.Outcome]] = []

    def evaluate(vector: list[int], item: vector_search.Item) -> vector_search.Outcome:
        # one construction per bank count the accesses' ops are served on (op_banks: gfx950's writes
        # on 32 banks, its wide reads on 64), each measured by every op's own cell: the fewer counts;
        # the floor: the proven kernel costs' most (construct_for), or the item's where a chain reaches it
        keys, floors = [], [0]
        for banks in sorted(set(op_banks(accesses, vector, tile, hardware).values()) | {hardware.banks},
                            key=lambda b: (b != hardware.banks, b)):
            # (a construction on another bank count is a candidate, never the proof: a short kernel search)
            nodes = general.MAX_NODES if banks == hardware.banks else OTHER_BANKS_NODES
            layout, kern, exact = construct_for(accesses, vector, tile, hardware.serving(banks), nodes)
            c = measure_choice(layout, accesses, tile, hardware, f"built from the vector chain {vector} ({item.what})")
            assert c is not None  # (the construction keeps every vector whole: a bijection)
            found.append(c)
            keys.append((c.wavefronts, c.instructions))
            floors += [kern.cost] if kern.complete and exact else []
        proven = len(floors) > 1 or min(keys) == item.key()
        # the chain's own instructions decide where its row makes matrices; where vectors may pair
        # (two-address forms) the item's halved floor stays (chain_instructions counts single ones)
        own = None if any(paired) else chain_instructions(accesses, sides, vector, tile, hardware)
        if TR_ITEM in item.what:  # (the kernel search's phases are no floor of a transposing read's:
            proven, floors, own = True, [0], None  # the chain claims its item's floor, no more)
        outcome = vector_search.Outcome(min(keys), proven, max(floors + ([item.floor] if proven else [])), own)
        built.append((vector, item, outcome))
        return outcome

    start = min((c.wavefronts, c.instructions) for c in found) if found else (1 << 62, 1 << 62)
    searched = vector_search.search(items, sides, evaluate, start, max_chains)
    if searched.chains == 0:  # the start is at every floor: one chain still, for the third objective
        _first_chain(items, sides, evaluate)
    distinct: dict[str, Choice] = {}
    for c in sorted(found, key=lambda c: c.key(tile)):
        distinct.setdefault(c.layout.name, c)
    ranked = list(distinct.values())
    # storage, the third objective: of the layouts at the best counts, the one with the most rounds
    tied = [c for c in ranked if (c.wavefronts, c.instructions) == (ranked[0].wavefronts, ranked[0].instructions)]
    split = [choice_rounds(c, accesses, tile, hardware) for c in tied]
    buffers = [r.buffer_elements if r is not None else tile.size for r in split]
    pick = min(range(len(tied)), key=lambda i: (buffers[i], i))
    ranked.insert(0, ranked.pop(pick))
    given = measure_choice(plain or Identity(), accesses, tile, hardware, "the plain solve's answer, vectors as given",
                           given=True)
    assert given is not None
    complete, why = _two_address_verdict(searched, built, forms, ranked[0], accesses, paired, tile, hardware,
                                         max_chains)
    return Auto(ranked[0], given, tuple(ranked), complete, searched.chains, why, split[pick])


def search_items(accesses: Sequence[RegisterAccess], sides: list[vector_search.Side], tile: Tile,
                 hardware: Hardware) -> tuple[list[vector_search.Item], list[list[int]], Forms]:
    """The search's items (every width tuple, with_two_address's instruction floors, and the ldmatrix
    row chains) and the widths at which each access may pair its vectors (two_address_widths)."""
    paired = [two_address_widths(a, s, tile, hardware) for a, s in zip(accesses, sides)]
    items, forms = with_two_address(vector_search.width_items(sides, tile.elem_bytes, hardware.bank_bytes,
                                                              hardware.banks), accesses, sides, paired, tile, hardware)
    return items + matrix_items(accesses, sides, tile, hardware) + tr_items(accesses, sides, paired, tile, hardware), \
        paired, forms


def _two_address_verdict(searched: vector_search.Searched,
                         built: list[tuple[list[int], vector_search.Item, vector_search.Outcome]], forms: Forms,
                         answer: Choice,
                         accesses: Sequence[RegisterAccess], paired: list[list[int]], tile: Tile, hardware: Hardware,
                         max_chains: int) -> tuple[bool, str | None]:
    """(complete, why not) of the search; where some access may pair its vectors (``paired``:
    two_address_widths), judged against the answer's counts (_judged) unless the chain cap stopped
    it; never complete where a two-address cell is not bounded by its single requests (gfx1250)."""
    complete, why = searched.complete, searched.why_not
    if not any(paired):  # (the search's own verdict: its instruction floors are exact)
        return complete, why
    if not complete and searched.chains < max_chains:
        complete, why = _judged(built, forms, (answer.wavefronts, answer.instructions))
    loose = sorted({two_address_name(tile.elem_bytes << j, a.store) for a, ok in zip(accesses, paired) for j in ok
                    if not bounded_by_singles(hardware, two_address_name(tile.elem_bytes << j, a.store))})
    if complete and loose:
        complete, why = False, (f"{', '.join(loose)} on {hardware.name} serve both addresses of a lane in one phase: "
                                f"fewer wavefronts than two single requests, which the chains' floors do not bound")
    return complete, why


def _judged(built: list[tuple[list[int], vector_search.Item, vector_search.Outcome]], forms: Forms,
            best: tuple[int, int]) -> tuple[bool, str | None]:
    """Whether the search was complete, judged against the answer's counts ``best`` (vector_search.search
    judges each chain against the best found when it was built, which is exact while an item's
    instruction floor is every layout's count; with two-address forms it is half of them where pairs
    may merge, and a chain built before the answer may miss it harmlessly): every chain built proven,
    and none whose floor lies below the answer: of each choice of single or paired forms (``forms``), the
    chain's wavefront floor (a pair costs no less than its two single requests: bounded_by_singles)
    or that choice's, whichever is more, with its instructions."""
    for vector, item, out in built:
        if not out.proven:
            return False, f"the chain {vector} of {item.what} is not proven (kernel search cut short or sub-word)"
        choices = forms.get(item.widths, [(item.floor, item.instructions)]) if item.expand is None else [
            (item.floor, item.instructions)]
        floor = min((max(out.floor, f), i) for f, i in choices)
        if floor < best:
            return False, (f"the chain {vector} of {item.what} reaches {out.key[0]} wavefronts in {out.key[1]} "
                           f"instructions, its floor {floor[0]} in {floor[1]} (two-address instructions where its "
                           f"vectors pair)")
    return True, None


def _first_chain(items: list[vector_search.Item], sides: list[vector_search.Side],
                 evaluate: Callable[[list[int], vector_search.Item], vector_search.Outcome]) -> None:
    """Build the first chain of the item of the least floor: when the plain answer is already at
    every floor the search builds none, but the construction may reach the same counts through a
    smaller buffer (storage, the third objective: the bank bits it picks leave more directions above
    the wavefront to number rounds, as Triton's layouts do)."""
    item = min(items, key=lambda it: (it.key(), it.widths, it.what))
    for vector in item.expand() if item.expand is not None else vector_search.chains(sides, item.widths):
        if vector is not None:
            evaluate(vector, item)
        return


def choice_rounds(choice: Choice, accesses: Sequence[RegisterAccess], tile: Tile, hardware: Hardware
                  ) -> Rounds | None:
    """The most rounds the choice's layout allows with its accesses as measured (rounds.py), or None
    where the layout has no offset bases."""
    bases = choice.layout.bases(tile)
    if bases is None:
        return None
    pre = preimages_of(bases)
    top = log2(max(1, hardware.wavefront_bytes // tile.elem_bytes))
    best = None
    # an ldmatrix access may have several forms of the measured counts (.trans: which register holds
    # a register's second unit): each is a kernel the counts hold for, the most rounds of any
    for chosen in itertools.product(*[instruction_spans(a, m, bases, pre, tile, hardware)
                                      for a, m in zip(accesses, choice.accesses)]):
        spans = [span for span, _ in chosen]
        free = [f for _, matrices in chosen for f in matrices]
        found = rounds_of(bases, pre, spans, top, free)
        if best is None or found.rounds > best.rounds:
            best = found
    return best


def instruction_spans(access: RegisterAccess, m: Moved, bases: list[int], pre: list[int], tile: Tile,
                      hardware: Hardware) -> list[tuple[list[int], list[tuple[list[int], int]]]]:
    """The index directions one instruction of the access moves along, with its warps: lanes and the
    vector; an ldmatrix's (stmatrix's) lanes, rows and the register directions inside one 32-bit
    register, with (its register directions beyond those, how many group its matrices: the kernel
    picks which, rounds.py; the counts are the same whichever), one entry per form of the measured
    instruction and counts."""
    out = list(access.lane) + list(access.warp)
    if m.instruction.startswith("ds_read_b64_tr"):  # its lanes and the k register directions it fills
        k = log2(transpose_read.elements(tile.elem_bytes))
        return [(out + vector_search.independent(list(access.register))[:k], [])]
    if not m.instruction.startswith(("ldmatrix", "stmatrix")):  # a two-address one also moves to its second vector
        return [(out + pre[:log2(max(1, m.vector_bytes // tile.elem_bytes))] + ([m.pair] if m.pair else []), [])]
    found = []
    for form in matrix_forms(access, pre, tile, hardware):
        if form_moved(access, bases, form, tile, hardware) == m:
            _, rows, inreg = form
            rest = vector_search.independent_mod(list(access.register), inreg)
            found.append((out + list(rows) + list(inreg), [(rest, min(2, len(rest)))]))
    return found


# --- output ---------------------------------------------------------------------------------------


def auto_json(auto: Auto, problem, emit_targets=()) -> dict:
    """The --vectors auto JSON document (docs/json.md, docs/schema/vectors-auto.schema.json)."""
    from .emit import emit_all, expressible_in

    tile, hw = problem.tile, problem.hardware
    answer = auto.answer
    layout = answer.layout
    lower = sum(m.lower_bound for m in answer.accesses)
    doc: dict = {
        "schema_version": 1,
        "vectors": "auto",
        "problem": {"rows": tile.rows, "cols": tile.cols, "elem_bytes": tile.elem_bytes, "arch": hw.name,
                    "banks": hw.banks, "bank_bytes": hw.bank_bytes,
                    "accesses": [m.name for m in answer.accesses]},
        "status": "conflict-free" if answer.wavefronts == lower else "conflicts",
        "answer": {"name": layout.name, "family": layout.family, **answer.json(tile),
                   "lower_bound_wavefronts": lower, "expression": layout.expression(tile),
                   "offset_bases": layout.bases(tile), "expressible_in": expressible_in(problem, layout),
                   "kernel_search_complete": auto.kernel_complete,
                   "rounds": (auto.rounds.json(tile.elem_bytes) if auto.rounds else
                              {"rounds": 1, "buffer_bytes": tile.size * tile.elem_bytes, "barriers": 1,
                               "offset_bits": []})},
        "vectors_as_given": auto.given.json(tile),
        "candidates": [c.json(tile) for c in auto.candidates],
    }
    if emit_targets:
        doc["answer"]["emit"] = {t: s.code for t, s in emit_all(emit_targets, problem, layout).items()}
    return doc


def _unit(m: dict) -> str:
    """What one lane address reads: a vector, or an ldmatrix row; two vectors a two-address instruction;
    a transposing read's 8 bytes, which the lanes of its group share out."""
    if m["instruction"].startswith(("ds_read2", "ds_write2")):
        return f"{m['vector_bytes']}-byte vectors, two a lane in each instruction"
    if m["instruction"].startswith("ds_read_b64_tr"):  # a lane's address: 8 bytes another lane receives
        return f"{m['vector_bytes']}-byte reads transposed in 16-lane groups"
    return f"{m['vector_bytes']}-byte " + ("rows" if m["instruction"].startswith(("ldmatrix", "stmatrix")) else "vectors")


def _named(m: dict) -> str:
    """An access's name, and "(store)" when it writes (a load is not marked)."""
    return m["name"] + (" (store)" if m["direction"] == "store" else "")


def auto_text(doc: dict) -> str:
    """The report: the answer, each access's vector and instruction, against the vectors as given."""
    a, g, p = doc["answer"], doc["vectors_as_given"], doc["problem"]
    lines = [f"{p['rows']} x {p['cols']} tile of {p['elem_bytes']}-byte elements, {p['arch']}, --vectors auto",
             f"answer: {a['name']} ({a['family']}), {doc['status']}",
             f"  moves the tile in {a['total_wavefronts']} wavefronts and {a['total_instructions']} instructions "
             f"(least possible wavefronts: {a['lower_bound_wavefronts']})"]
    for m in a["accesses"]:
        lines.append(f"  {_named(m)}: {_unit(m)} ({m['instruction']}), {m['instructions']} "
                     f"instructions, {m['wavefronts']} wavefronts (least {m['lower_bound_wavefronts']})")
    r = a["rounds"]
    if r["rounds"] > 1:
        lines.append(f"  through a {r['buffer_bytes']}-byte buffer in {r['rounds']} rounds ({r['barriers']} barriers; "
                     f"offset bits {', '.join(map(str, r['offset_bits']))} number the rounds)")
    lines.append(f"vectors as given ({g['layout']}): {g['total_wavefronts']} wavefronts, "
                 f"{g['total_instructions']} instructions")
    for m in g["accesses"]:
        lines.append(f"  {_named(m)}: {_unit(m)} ({m['instruction']}), {m['instructions']} "
                     f"instructions, {m['wavefronts']} wavefronts")
    if a.get("expression"):
        lines.append(f"C: phys(r, c) = {a['expression']}")
    for code in a.get("emit", {}).values():
        lines += ["", code.rstrip("\n")]
    return "\n".join(lines) + "\n"


def run_auto(problem, layout_files: Sequence[str], specs: Sequence[str] = (),
             stores: Sequence[bool | None] = ()):
    """The --vectors auto solve of a problem whose accesses are exactly the warp forms ``specs`` and
    ``layout_files``, in that order (make_problem's); ``stores``: each one's direction in that order
    (True: a store, False: a load, None or absent: not said, split_direction)."""
    from pathlib import Path

    from .access.inputfile import printable, read_text
    from .api import solve

    check_tile(problem.tile)
    said = list(stores) + [None] * (len(specs) + len(layout_files) - len(stores))
    accesses = [warp_access(spec, problem.tile, problem.hardware, store) for spec, store in zip(specs, said)]
    for path, store in zip(layout_files, said[len(specs):]):
        text = read_text(path, "linear layout file")
        accesses.append(read_access(text, Path(path).stem, problem.tile, problem.hardware,
                                    f"linear layout file {printable(path)}", store))
    plain = solve(problem).solution.answer.layout
    return solve_auto(accesses, problem.tile, problem.hardware, plain)
