"""What a probe issues, and what the model predicts for it (DESIGN.md section 12), for any target.

A probe performs each access of a problem over a layout, every placement once, with the
instruction the access names, and the profiler counts what the hardware served. This module turns
each access (``model.Pattern``: its placements, each a phase of lanes) into *instructions*: for each,
the (row, col) of the element every lane slot starts at (-1: the slot is inactive), and the model's
prediction for exactly those instructions.

How the pattern's phases become instructions, by the pattern's kind:

- ldmatrix / stmatrix: the placement's K matrices are one instruction; matrix i's 8 rows are given
  by lanes 8i .. 8i + 7 (the other lanes of a .x1 / .x2 give addresses the instruction ignores).
- an instruction of the target (``lds128:32x1``, ``[[instruction]]``, every AMD form): the phases
  of one instruction are the (arch, op) cell's lane sets (hardware.Rule.phases, not always
  contiguous; a paired load's merged two by two, hardware.Hardware.pairs), so pattern phase k,
  lane j goes to slot ``sets[k][j]``.
- a whole-warp request (``warp:``, ``mma-c``, ``mma-a``/``mma-b``, a linear layout): its phases are the consecutive lane
  groups of the contiguous rule (a paired load's: two of them each), so ``warp / lanes`` phases
  make one instruction.
- a block (``MxN``, ``row``, ``col``) or an explicit phase: each placement is its own instruction,
  its lanes put in the slots of the hardware's first phase(s) for that width (on NVIDIA lanes 0 ..
  n-1; on gfx942 b128 lanes {0-3, 20-23} first), the other slots inactive.

The prediction is the simulator's (the ground truth) on the phases the hardware makes of exactly
these instructions: the instructions are re-split into phases by the same rule (``issued``)
and measured by ``simulate.pattern_costs``; whether an issued instruction is a paired load is
decided again from its own slots, as the hardware does. Where the access's placement is one hardware phase (or
one instruction) that is the access's own ``total_wavefronts``; where it is not (a block of more
than one phase's bytes, a ``row`` of 64 2-byte lanes, more lanes than a warp), the probe says so
(``note``) and predicts the instructions it issues; the access's own figure is kept beside it.
"""
from __future__ import annotations

import weakref

import numpy as np

from .. import simulate
from ..hardware import Hardware, Rule, merge_pairs
from ..layout import Layout, layout_table
from ..model import InputError, Pattern, Problem
from ..value import Value, replace
from .targets import TARGETS, ProbeTarget, for_language

MAX_SLOTS = 1 << 20  # lane slots in all the tables of one probe (4 MiB of int32): a kernel tile, not a buffer


class Op(Value):
    """The instruction a probe issues for one access."""

    name: str  # as the target writes it: "ld.shared.v4.b32", "ldmatrix.x4.trans", "ds_read_b128"
    store: bool
    lane_bytes: int  # bytes each slot moves (a matrix row: 16)
    matrices: int = 0  # ldmatrix / stmatrix: K (.x1, .x2, .x4); 0 for every other op
    trans: bool = False
    addresses: int = 1  # ds_read2 / ds_write2: two addresses per lane
    checksum_bits: int = 16  # the unit summed by the load checksum: b16 elements (tr_b8: bytes, tr_b4: nibbles)
    copy: bool = False  # a global-to-shared copy (cp.async, SASS LDGSTS): its shared side is a write, counted apart


class Reading(Value):
    """One reading of the model for an access (AMD's disputed cells have two): the wavefronts the
    issued instructions take, their lower bound, and the access's own total."""

    label: str  # "" for the access's reading; "[64-bank reading]" for the other
    wavefronts: int  # W: sum over the issued phases of the distinct words in the busiest bank
    ideal: int  # sum over the issued phases of max(1, ceil(distinct bytes / wavefront bytes))
    access_total: int  # the access's total_wavefronts as the tool reports it (per placement, summed)
    per_instruction: tuple[int, ...]  # wavefronts of each instruction (for the README's table)

    @property
    def conflicts(self) -> int:
        return self.wavefronts - self.ideal


class ProbeAccess(Value, eq=False):
    """One access of the problem as the probe issues it."""

    index: int
    spec: str
    op: Op
    rows: np.ndarray  # (instructions, slots): the row of each slot's first element, -1 inactive
    cols: np.ndarray  # same shape: its column
    offsets: np.ndarray  # same shape: its byte offset in the tile's storage, -1 inactive
    readings: tuple[Reading, ...]
    placements: int  # the access's placements (phases), as the tool counts them
    notes: tuple[str, ...] = ()

    @property
    def instructions(self) -> int:
        return self.rows.shape[0]


class Probe(Value, eq=False):
    """Everything a target's generator writes: the problem, the layout, and each access."""

    problem: Problem
    layout: Layout
    storage_bytes: int
    accesses: tuple[ProbeAccess, ...]


# --- building -------------------------------------------------------------------------------------


def plan(problem: Problem, layout: Layout) -> Probe:
    """The probe of ``problem``'s accesses over ``layout`` (a sound layout: soundness is the caller's)."""
    tile = problem.tile
    table = layout_table(tile, layout)
    accesses: list[ProbeAccess] = []
    patterns = list(problem.patterns)
    slots = 0
    i = 0
    while i < len(patterns):
        p = patterns[i]
        others = []  # the same instruction under the other reading of a disputed cell (access.warp.other_reading)
        while i + 1 < len(patterns) and _is_other_reading(p, patterns[i + 1]):
            others.append(patterns[i + 1])
            i += 1
        access = _access(len(accesses), p, others, problem, table)
        slots += access.rows.size
        if slots > MAX_SLOTS:
            raise InputError(f"the probe would issue more than {MAX_SLOTS} lane accesses (at access {p.spec!r}): "
                             f"probe one kernel tile, e.g. fewer rows, or fewer accesses at a time")
        accesses.append(access)
        i += 1
    return Probe(problem, layout, layout.storage(tile) * tile.elem_bytes, tuple(accesses))


def _is_other_reading(p: Pattern, q: Pattern) -> bool:
    return bool(p.op) and q.op == p.op and q.spec.startswith(p.spec + " [") and q.spec.endswith(" reading]")


def _access(index: int, p: Pattern, others: list[Pattern], problem: Problem, table: np.ndarray) -> ProbeAccess:
    tile, hw = problem.tile, problem.hardware
    op = op_of(p, problem)
    rows, cols, grouped, _ = _slots(p, op, hw)
    offsets = np.where(rows >= 0, table[np.maximum(rows, 0), np.maximum(cols, 0)] * tile.elem_bytes, -1)
    readings, notes = [], []
    for q in [p, *others]:
        phases = issued(rows, cols, op, q, hw, _rule_of(q, hw))
        if grouped and q is p:
            _same_phases(p, phases)  # the instructions are the access's own: the same phases, in order
        readings.append(_reading(q, p, phases, problem, table))
        if q is p and len(phases.instruction) != p.placements:  # (grouped: equal by _same_phases)
            notes.append(_split_note(p, op, len(phases.instruction), readings[0]))
    return ProbeAccess(index, p.spec, op, rows, cols, offsets, tuple(readings), p.placements, tuple(notes))


def _rule_of(p: Pattern, hw: Hardware) -> Rule | None:
    """The (arch, op) cell an instruction-level pattern was built under: the other reading's for the
    pattern of a disputed cell's other reading."""
    if not p.op:
        return None
    rule = hw.rule(p.op)
    assert rule is not None, p.op
    if p.spec.endswith(" reading]") and rule.alternative is not None:
        return rule.alternative
    return rule


def probe_target(hw: Hardware) -> ProbeTarget:
    """The probe target of ``hw``'s kernels' language (hardware.Hardware.language; probe/targets.py)."""
    target = for_language(hw.language)
    if target is None:
        raise InputError(f"--arch {hw.name} has no probe target: its kernels are {hw.language}, and a probe is "
                         f"{' or '.join(t.language for t in TARGETS.values())}")
    return target


CP_ASYNC = "cp.async.cg.shared.global"  # the 16-byte form (.cg takes only 16), as CUTLASS's SM80_CP_ASYNC_CACHEGLOBAL


def op_of(p: Pattern, problem: Problem) -> Op:
    """The instruction of an access: the one it names, else a load of its lane width."""
    hw = problem.hardware
    target = probe_target(hw)
    width = int(p.lane_bytes.min())
    if int(p.lane_bytes.max()) != width:
        raise InputError(f"access {p.spec!r} mixes lane widths {sorted(set(np.unique(p.lane_bytes).tolist()))} B: one "
                         f"instruction moves one width per lane; probe each width as its own pattern")
    if p.kind in ("ldmatrix", "stmatrix"):
        # the form's own words; a CuTe atom's name (access.cute_atoms) prints its form first: "= ldmatrix.x4.trans: ..."
        form = p.summary[2:].split(":")[0] if p.summary.startswith("= ") else p.spec
        if any(t in ("m16n16", "m8n16", "m16n8") for t in form.lower().split(":")[0].split(".")):
            raise InputError(f"access {p.spec!r}: probes of Blackwell's byte forms of {p.kind} are not written "
                             f"(their phases are inferred; probe the same rows as {p.kind}.x4 on sm_90)")
        trans = "trans" in form.lower().split(":")[0].split(".")
        return Op(f"{p.kind}.x{p.phases_per_placement}{'.trans' if trans else ''}", p.kind == "stmatrix", width,
                  matrices=p.phases_per_placement, trans=trans)
    if p.op:  # an instruction of the target
        rule = hw.rule(p.op)
        assert rule is not None
        if target.by_width:  # lds128 / sts32: the PTX of that width
            return Op((target.stores if rule.write else target.loads)[rule.lane_bytes], rule.write, rule.lane_bytes)
        bits = {"ds_read_b64_tr_b8": 8, "ds_read_b64_tr_b4": 4}.get(rule.op, 16)
        return Op(rule.op, rule.write, rule.lane_bytes, addresses=rule.addresses, checksum_bits=bits)
    if p.kind == "cp.async":  # 16 bytes from global memory to each lane's chunk, bypassing L1 (.cg)
        return Op(CP_ASYNC, True, width, copy=True)
    # the accumulator fragment stored from registers (access.warp._mma_c), or a store the user named
    store = p.kind == "mma-c" if not p.direction else p.direction == "store"
    return Op((target.stores if store else target.loads)[width], store, width)


def _slots(p: Pattern, op: Op, hw: Hardware, compact: bool = False) -> tuple[np.ndarray, np.ndarray, bool, np.ndarray | None]:
    """(rows, cols, grouped, slot_ids): the slots of every instruction; grouped when each
    instruction is a group of the pattern's own phases (then the re-split must give them back
    exactly). ``compact`` (one_pass, which needs no kernel's addresses): an access of fewer active
    lanes than a wave keeps only the columns of the slots it uses, ``slot_ids`` naming each
    column's slot (None: every slot, in order)."""
    wave = hw.wave_lanes
    if op.matrices:
        return (*_matrix_slots(p, wave), True, None)
    if p.op:
        rule = hw.rule(p.op)
        assert rule is not None
        return (*_rule_slots(p, rule, wave), True, None)
    if p.kind in ("warp", "cp.async", "mma-c", "mma-a", "mma-b", "linear-layout"):
        lpp = hw.lanes_per_phase(op.lane_bytes)
        # a paired load's phases are two of the rule's (a linear layout with a broadcast lane bit)
        sizes = (lpp, 2 * lpp) if op.lane_bytes in hw.paired_loads and not op.store else (lpp,)
        size = p.lane_row.shape[1]
        group = max(1, wave // size)
        if size in sizes and wave % size == 0 and p.placements % group == 0 and probe_target(hw).warp_groups:
            rows = p.lane_row.reshape(-1, group * size)
            cols = p.lane_col.reshape(-1, group * size)
            return rows.astype(np.int64), cols.astype(np.int64), True, None
    rows, cols, slot_ids = _block_slots(p, op, hw, compact)
    return rows, cols, False, slot_ids


def _matrix_slots(p: Pattern, wave: int) -> tuple[np.ndarray, np.ndarray]:
    k = p.phases_per_placement
    rows = p.lane_row.reshape(-1, k * 8)  # matrix i = phase i of the placement, its 8 row addresses
    cols = p.lane_col.reshape(-1, k * 8)
    reps = -(-wave // (k * 8))
    # lanes 8K .. 31 give addresses a .x1 / .x2 ignores: the same as lane l mod 8K, valid and harmless
    return np.tile(rows, (1, reps))[:, :wave].astype(np.int64), np.tile(cols, (1, reps))[:, :wave].astype(np.int64)


def _rule_slots(p: Pattern, rule: Rule, wave: int) -> tuple[np.ndarray, np.ndarray]:
    # a paired load (an [[instruction]] whose lanes repeat in pairs): the rule's phases two by two
    paired = p.instruction_phases * 2 == len(rule.phases)
    sets = merge_pairs([list(s) for s in rule.phases]) if paired else [list(s) for s in rule.phases]
    k = len(sets)
    slots = wave * rule.addresses
    if p.placements % k or any(len(s) != p.lane_row.shape[1] for s in sets):
        raise AssertionError(f"{p.spec}: {p.placements} phases of {p.lane_row.shape[1]} lanes do not make "
                             f"instructions of {rule.op} ({k} phases of {len(sets[0])})")
    n = p.placements // k
    rows = np.full((n, slots), -1, np.int64)
    cols = np.full((n, slots), -1, np.int64)
    lane_row = p.lane_row.reshape(n, k, -1)
    lane_col = p.lane_col.reshape(n, k, -1)
    for phase, members in enumerate(sets):
        rows[:, list(members)] = lane_row[:, phase, :]
        cols[:, list(members)] = lane_col[:, phase, :]
    assert (rows >= 0).all(), f"{p.spec}: {rule.op}'s phases do not cover every slot"
    return rows, cols


def _block_slots(p: Pattern, op: Op, hw: Hardware, compact: bool = False) -> tuple[np.ndarray, np.ndarray,
                                                                                   np.ndarray | None]:
    """Each placement its own instruction(s): its distinct lanes in the slots of the hardware's
    phases for that width, first phase first (a placement of more lanes than a wave: as many
    instructions as it fills, in lane order). ``compact``: only the slots used (_slots)."""
    wave = hw.wave_lanes
    order = np.array([s for phase in hw.serving(p.banks).phase_indices(wave, op.lane_bytes) for s in phase])
    first = _as_listed(p) if p.kind == "phases" else _first_occurrences(p)
    count = first.sum(axis=1)  # distinct lanes of each placement
    per = -(-count // wave)  # its instructions
    start = np.concatenate(([0], np.cumsum(per)[:-1]))
    rank = np.cumsum(first, axis=1) - 1  # a distinct lane's position among its placement's
    placement, lane = np.nonzero(first)
    k = rank[placement, lane]
    # (int32 where every row and column fits: a 1-byte access of the largest tile is 512 Ki
    # instructions of one active slot in 32, and these are the largest arrays of its report)
    kind = np.int32 if max(int(p.lane_row.max()), int(p.lane_col.max())) < 1 << 30 else np.int64
    width = min(wave, int(count.max())) if compact else wave
    column = np.arange(wave) if compact else order  # the column of the k-th slot filled
    rows = np.full((int(per.sum()), width), -1, kind)
    cols = np.full((int(per.sum()), width), -1, kind)
    rows[start[placement] + k // wave, column[k % wave]] = p.lane_row[placement, lane]
    cols[start[placement] + k // wave, column[k % wave]] = p.lane_col[placement, lane]
    return rows, cols, (order[:width] if compact and width < wave else None)


def _as_listed(p: Pattern) -> np.ndarray:
    """(placements, lanes) bool: an explicit phase's lanes as its file lists them, lanes on one address
    included (as in the kernel: they may make a paired load, decided on the issued slots, ``issued``),
    less the padding (the trailing copies of the first lane, model.Pattern): a [[pattern]] phase of
    fewer lanes than a warp is a partial warp, the other lanes sitting out."""
    same = (p.lane_row == p.lane_row[:, :1]) & (p.lane_col == p.lane_col[:, :1]) & (p.lane_bytes == p.lane_bytes[:, :1])
    trailing = np.cumprod(same[:, ::-1], axis=1)[:, ::-1].astype(bool)  # in the run of lane-0 copies at the end
    trailing[:, 0] = False
    return ~trailing


def _first_occurrences(p: Pattern) -> np.ndarray:
    """(placements, lanes) bool: the lane is the first of its placement with its (row, col, bytes)
    (Pattern.phase_lanes's distinct lanes, for every placement at once)."""
    row, col, width = (np.asarray(a, np.int64) for a in (p.lane_row, p.lane_col, p.lane_bytes))
    key = (row * (int(col.max()) + 1) + col) * (int(width.max()) + 1) + width
    by = np.argsort(key, axis=1, kind="stable")  # equal keys keep lane order: the run's first is the earliest
    ranked = np.take_along_axis(key, by, axis=1)
    starts = np.ones(key.shape, bool)
    starts[:, 1:] = ranked[:, 1:] != ranked[:, :-1]
    first = np.zeros(key.shape, bool)
    np.put_along_axis(first, by, starts, axis=1)
    return first


# --- what the hardware makes of them ------------------------------------------------------------


class Issued(Value, eq=False):
    """The phases the hardware makes of a probe's instructions, instruction by instruction, each
    phase's slots in slot order; -1 where a slot is inactive (every phase has an active slot)."""

    rows: np.ndarray  # (phases, widest phase): the row of each slot's first element, -1 inactive
    cols: np.ndarray
    instruction: np.ndarray  # (phases,): the instruction each phase is of
    instructions: int


def issued(rows: np.ndarray, cols: np.ndarray, op: Op, p: Pattern, hw: Hardware, rule: Rule | None,
           slot_ids: np.ndarray | None = None) -> Issued:
    """The phases of every instruction as the model serves them: ldmatrix / stmatrix: one phase per
    matrix (lanes 8i .. 8i + 7); an instruction of the target: the rule's slot sets; any other: the
    target's phases for the width. An instruction whose slots are all active and make a paired
    load (hardware.Hardware.pairs, decided on these slots as the hardware does): those sets two by
    two. Phases without an active slot are dropped. ``slot_ids``: the slot of each column, when
    the columns are only the slots used (_slots' ``compact``)."""
    sets = _phase_sets(op, p, hw, rule, rows.shape[1] if slot_ids is None else hw.wave_lanes)
    paired = _paired(rows, cols, op, hw) if slot_ids is None else np.zeros(rows.shape[0], bool)
    sets = _in_use(rows, sets, slot_ids)
    pairs = merge_pairs(sets) if paired.any() else []
    widest = max(1, *(len(m) for m in sets + pairs))
    parts = [_part(rows, cols, which, k, members, widest)  # the unpaired instructions' phases, then the paired ones'
             for which, groups in ((np.nonzero(~paired)[0], sets), (np.nonzero(paired)[0], pairs))
             for k, members in enumerate(groups) if members]
    instruction = np.concatenate([x[0] for x in parts])
    index = np.concatenate([x[1] for x in parts])
    out_r = np.concatenate([x[2] for x in parts])
    out_c = np.concatenate([x[3] for x in parts])
    keep = (out_r >= 0).any(axis=1)
    order = np.lexsort((index[keep], instruction[keep]))  # instruction by instruction, its phases in order
    return Issued(out_r[keep][order], out_c[keep][order], instruction[keep][order], rows.shape[0])


def _in_use(rows: np.ndarray, sets: list[list[int]], slot_ids: np.ndarray | None) -> list[list[int]]:
    """Each phase's columns of ``rows``: its slots (``slot_ids``: the slot of each column, when the
    columns are only the slots used; then no instruction is a paired load, as not every slot is
    active) that are active in some instruction. A slot inactive in every instruction is left out
    of every phase (it moves nothing: the phases' costs and ideals are those of their active
    slots), so the phases are only as wide as their widest active part: one byte per instruction
    is one column, not 32."""
    if slot_ids is not None:
        column = {int(slot): j for j, slot in enumerate(slot_ids)}
        sets = [[column[m] for m in members if m in column] for members in sets]
    used: np.ndarray = np.asarray((rows >= 0).any(axis=0))
    return [[m for m in members if used[m]] for members in sets]


def _phase_sets(op: Op, p: Pattern, hw: Hardware, rule: Rule | None, slots: int) -> list[list[int]]:
    """The slots of each phase of one instruction: ldmatrix / stmatrix one per matrix, an
    instruction of the target its rule's sets, any other the target's phases for the width."""
    if op.matrices:
        return [list(range(8 * i, 8 * i + 8)) for i in range(op.matrices)]
    if rule is not None:
        return [list(s) for s in rule.phases]
    return [list(s) for s in hw.serving(p.banks).phase_indices(slots, op.lane_bytes)]


def _part(rows: np.ndarray, cols: np.ndarray, which: np.ndarray, k: int, members: list[int],
          widest: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(instruction, phase index, rows, cols) of phase ``k`` (its slots ``members``) of the
    instructions ``which``, each phase ``widest`` slots wide (-1 beyond its own)."""
    r = np.full((len(which), widest), -1, np.int64)
    c = np.full((len(which), widest), -1, np.int64)
    at = np.ix_(which, np.asarray(members, np.int64))
    r[:, :len(members)] = rows[at]
    c[:, :len(members)] = cols[at]
    return which, np.full(len(which), k), r, c


def _paired(rows: np.ndarray, cols: np.ndarray, op: Op, hw: Hardware) -> np.ndarray:
    """(instructions,) bool: the instruction is a paired load (hardware.Hardware.pairs, asked of
    each instruction whose slots are all active and each equal to its partner's, n^1 or n^2)."""
    out = np.zeros(rows.shape[0], bool)
    n = rows.shape[1]
    if op.matrices or op.addresses != 1 or op.store or op.lane_bytes not in hw.paired_loads or n % 4:
        return out
    lanes = np.arange(n)
    same = [((rows == rows[:, lanes ^ k]) & (cols == cols[:, lanes ^ k])).all(axis=1) for k in (1, 2)]
    for i in np.nonzero((rows >= 0).all(axis=1) & (same[0] | same[1]))[0]:
        out[i] = hw.pairs(list(zip(rows[i].tolist(), cols[i].tolist())), op.lane_bytes, op.store)
    return out


def phases_of(p: Pattern) -> list[list[tuple[int, int]]]:
    """The pattern's own phases, each its lanes' (row, col) in lane order (padding included)."""
    return [list(zip(r, c)) for r, c in zip(p.lane_row.tolist(), p.lane_col.tolist())]


def _same_phases(p: Pattern, phases: Issued) -> None:
    flat = [[(r, c) for r, c in zip(rs, cs) if r >= 0] for rs, cs in zip(phases.rows.tolist(), phases.cols.tolist())]
    if flat != phases_of(p):
        raise AssertionError(f"internal error: the probe's instructions for {p.spec} are not its phases")


def one_pass(p: Pattern, problem: Problem, table: np.ndarray) -> tuple[Op, int, int]:
    """(op, wavefronts, ideal) of a kernel that makes access ``p`` once over the tile (every
    placement once) on the layout whose element table is ``table``: the instructions the probe
    issues and the simulator on the phases the hardware makes of them, exactly the figures of the
    probe's prediction (``ProbeAccess.readings[0]``); report.py writes them in the profiler's names
    (counters.py). InputError where no probe issues the access (mixed lane widths, the byte forms
    of ldmatrix)."""
    hw = problem.hardware
    known = _ISSUED.get(p)
    if known is None or known[0] != hw:  # the instructions and their phases do not depend on the layout
        op = op_of(p, problem)
        rows, cols, _, slot_ids = _slots(p, op, hw, compact=True)
        phases = issued(rows, cols, op, p, hw, _rule_of(p, hw), slot_ids)
        del rows, cols
        known = _ISSUED[p] = (hw, op, *_phase_lanes(p, p, phases, problem))
    _, op, served, ideal = known
    costs = _costs(served, problem, table)
    return op, int(costs.sum()), int(ideal.sum())


# one_pass's instructions of a pattern, for every layout a document measures it on
_ISSUED: weakref.WeakKeyDictionary[Pattern, tuple[Hardware, Op, Pattern, np.ndarray]] = weakref.WeakKeyDictionary()


def _phase_lanes(q: Pattern, p: Pattern, phases: Issued, problem: Problem) -> tuple[Pattern, np.ndarray]:
    """(the issued phases as a pattern under the reading ``q``, each phase's ideal): the ideal of
    a phase is the lower bound of its distinct bytes (Hardware.lower_bounds, every phase at once)."""
    tile, hw = problem.tile, problem.hardware
    width = int(p.lane_bytes.flat[0])
    active = phases.rows >= 0
    first = np.argmax(active, axis=1)[:, None]  # an inactive slot repeats the phase's first lane: the same words, no cost
    lane_row = np.where(active, phases.rows, np.take_along_axis(phases.rows, first, axis=1))
    lane_col = np.where(active, phases.cols, np.take_along_axis(phases.cols, first, axis=1))
    served = replace(q, lane_row=lane_row, lane_col=lane_col, lane_bytes=np.full(lane_row.shape, width, np.int64))
    per_lane = max(1, width // tile.elem_bytes)  # the elements each lane moves
    elements = ((lane_row * (int(lane_col.max()) + per_lane + 1) + lane_col)[:, :, None]
                + np.arange(per_lane)).reshape(len(lane_row), -1)
    ranked = np.sort(elements, axis=1)
    distinct = 1 + (ranked[:, 1:] != ranked[:, :-1]).sum(axis=1)
    return served, hw.serving(q.banks).lower_bounds(distinct * tile.elem_bytes)  # (the model's lower bound)


def _costs(served: Pattern, problem: Problem, table: np.ndarray) -> np.ndarray:
    """The simulator's cost of each issued phase on the layout whose element table is ``table``."""
    tile, hw = problem.tile, problem.hardware
    return simulate.pattern_costs(tile, hw, served, simulate.lane_words(tile, hw, served, simulate.table(table)))


def _reading(q: Pattern, p: Pattern, phases: Issued, problem: Problem, table: np.ndarray) -> Reading:
    """The simulator on the issued phases, under the reading ``q`` (its banks)."""
    served, ideal = _phase_lanes(q, p, phases, problem)
    costs = _costs(served, problem, table)
    per_instruction = np.bincount(phases.instruction, weights=costs, minlength=phases.instructions)
    access_total = int(simulate.simulate(problem.tile, problem.hardware, [q], table)[0].total)
    label = q.spec[len(p.spec):].strip() if q is not p else ""
    return Reading(label, int(costs.sum()), int(ideal.sum()), access_total, tuple(int(x) for x in per_instruction))


def _split_note(p: Pattern, op: Op, phases: int, r: Reading) -> str:
    """Why the prediction is of more phases than the access has placements."""
    return (f"{p.spec}: a placement ({p.phase_bytes} B in {p.lane_row.shape[1]} lanes) is more than one phase of "
            f"{op.name}; the probe issues its lanes in order as {phases} phases for {p.placements} placements and "
            f"predicts those ({r.wavefronts} wavefronts), where the access's own count is {r.access_total}")


def serve(rows: np.ndarray, cols: np.ndarray, op: Op, pattern: Pattern, problem: Problem,
          table: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(cost, ideal, instruction) of every phase the hardware makes of the instructions ``rows``,
    ``cols`` (instructions x slots, -1 inactive) of ``op`` over the layout ``table``: exactly what
    ``one_pass`` measures for a probe's instructions (``issued``, the simulator), for instructions
    given directly (``swizzle-solve kernel``: compiled/count.py). ``pattern`` gives the banks and
    the lane width."""
    phases = issued(rows, cols, op, pattern, problem.hardware, None)
    served, ideal = _phase_lanes(pattern, pattern, phases, problem)
    return _costs(served, problem, table), ideal, phases.instruction
