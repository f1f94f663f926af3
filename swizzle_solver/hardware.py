"""The hardware: shared-memory banks, and how an instruction's lanes are served in phases.

Everything the tool knows about a GPU's shared memory is one ``Hardware`` value (DESIGN.md
sections 1 and 7): ``banks`` banks of ``bank_bytes`` bytes (byte address a is in word
a // bank_bytes, and word w in bank w mod banks), so one wavefront serves ``banks * bank_bytes``
bytes; a wave of ``wave_lanes`` lanes; and the *phase rule*, which lanes of one request the
hardware serves together. On NVIDIA GPUs:

    <= 4-byte lanes: 32 lanes per phase;  8-byte: 16;  16-byte: 8   (consecutive lanes)

and ldmatrix / stmatrix serve each matrix of 8 rows x 16 bytes as one phase. A *paired* load (an
8- or 16-byte load of the whole warp in which every lane reads what lane n^1 reads, or every lane
what lane n^2 reads) is served with its phases merged two by two (``paired_loads``, ``pairs``).

Every module that needs a unit, a slot, the words of an element, the lanes of a wave or the
wavefront size asks this object (or the ``Geometry`` it derives for one lane width), so the rule
is stated once. A new target is one entry of ``TARGETS``: its bank geometry, its wave size, and
its phase rule as data (``phase_lanes`` for the contiguous rule by lane width; a target whose
phases are not contiguous lane ranges lists them per lane width in ``phase_sets``, e.g. 64 lanes
served as {0-3, 20-23}, {4-7, 16-19}, ...). Where a rule differs by instruction (a bank count or
phase sets of one ds_read form), the entry for that instruction is again a ``Hardware`` (made with
``dataclasses.replace``), so every consumer keeps asking the same questions of the same type.

What a target *has* is data too, its capabilities (``Hardware.instructions``, ``copy_engines``,
``tma_modes``, ``language``, ...): the access forms read them (an instruction form the target
lacks is refused, naming the targets that have it: ``refusal``), and so do the emitters (TMA
code only where ``tma_modes`` has the mode; the HIP function where ``language`` is HIP). No module
asks which vendor a target is; a new target states what it has, and has nothing it does not state.

This module imports nothing from the package: it is the bottom layer.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator, MutableMapping
from functools import cache

import numpy as np

from .value import Value, field, replace

Lane = tuple[int, int, int]  # (row, col, bytes): the first element a lane reads, and how many bytes


def _log2(x: int) -> int:
    assert x > 0 and x & (x - 1) == 0, x
    return x.bit_length() - 1


def slot_offset_bits(unit_shift: int, slot_mask: int) -> list[int]:
    """The element-offset bits that choose a unit's slot: ``slot_mask`` (slots - 1) above bit
    ``unit_shift`` (the unit's log2 in elements)."""
    return [unit_shift + j for j in range(slot_mask.bit_length())]


class Geometry(Value):
    """The bank geometry seen by lanes of one width (DESIGN.md section 3; proof.py, separation.py).

    A lane's *unit* is max(lane, bank word) bytes: the bytes of one unit are served together (a
    whole vector, or lanes sharing a word: broadcast). The units of one wavefront are told apart
    by their *slot*, unit index mod ``slots``; in element offsets the slot is bits
    [unit_shift, unit_shift + slot_bits).
    """

    elem_bytes: int
    lane_bytes: int
    bank_bytes: int
    wavefront_bytes: int

    @property
    def unit_bytes(self) -> int:
        return max(self.lane_bytes, self.bank_bytes)

    @property
    def fits(self) -> bool:
        """A unit is whole elements, a power of two of them, and fits one wavefront: the slot view
        applies. (A 12-byte ds_read_b96 lane is 3 words: no slot view, no rank proof; the simulator
        counts it.)"""
        return (self.elem_bytes <= self.unit_bytes <= self.wavefront_bytes
                and self.unit_bytes & (self.unit_bytes - 1) == 0)

    @property
    def unit_shift(self) -> int:
        """u: log2 of the unit in elements (element-offset bits below the unit)."""
        return _log2(self.unit_bytes // self.elem_bytes)

    @property
    def slots(self) -> int:
        """Units one wavefront serves side by side (at least 1: a unit wider than a wavefront)."""
        return max(1, self.wavefront_bytes // self.unit_bytes)

    @property
    def slot_bits(self) -> int:
        return _log2(self.slots)

    @property
    def slot_mask(self) -> int:
        return self.slots - 1

    @property
    def slot_offset_bits(self) -> list[int]:
        """The element-offset bits that choose a unit's slot."""
        return slot_offset_bits(self.unit_shift, self.slot_mask)

    @property
    def unit_words(self) -> int:
        """Bank words in one unit (the word positions inside it)."""
        return self.unit_bytes // self.bank_bytes

    @property
    def word_shift(self) -> int:
        """Word-address bits inside one unit: the slot is word-address bits above them."""
        return _log2(self.unit_words)


# --- capabilities ---------------------------------------------------------------------------------

# The instruction families a target may have (``Hardware.instructions``), each with the words a
# refusal uses. An access form or an op of a family the target lacks is bad input, naming the
# targets that have it (``Hardware.refusal``). The generic forms (MxN, row, col, warp:RxC:MxN,
# --phases patterns, --linear-layout) need none: every target serves them by its phase rule.
INSTRUCTIONS: dict[str, str] = {
    "ldmatrix": "ldmatrix (.m8n8 .b16: x1, x2, x4, .trans)",
    "stmatrix": "stmatrix (.m8n8 .b16: x1, x2, x4, .trans; sm_90 on)",
    "ldmatrix-b8": "ldmatrix's byte forms (.m16n16 .trans .b8, .m16n16/.m8n16 .b8x16.b6x16_p32/.b4x16_p64; "
                   "sm_100a/sm_120a)",
    "stmatrix-b8": "stmatrix's byte form (.m16n8 .trans .b8: x1, x2, x4; sm_100a/sm_120a)",
    "mma-c": "mma.sync accumulator fragments (mma-c:m16n8)",
    "mma-ab": "mma.sync operand fragments read by ld.shared (mma-a, mma-b)",
    "lds": "ld.shared ops (lds8 .. lds128, served by the contiguous phase rule)",
    "sts": "st.shared ops (sts8 .. sts128, served by the contiguous phase rule)",
    "ds_read": "LDS reads (ds_read_*, ds_read2_*, ds_load_*)",
    "ds_write": "LDS writes (ds_write_*, ds_write2_*, ds_store_*)",
    "mfma": "MFMA operand reads (mfma-a, mfma-b)",
}
# The copy engines a target may have (``Hardware.copy_engines``): "tma", the tensor memory
# accelerator (CUtensorMap), with the swizzle modes of ``Hardware.tma_modes``.
COPY_ENGINES = ("tma",)
# The paths by which an MMA reads its operands from shared memory (``Hardware.mma_operands``), each
# with the words a refusal uses: registers loaded by ldmatrix (mma.sync), or a shared-memory matrix
# descriptor read by the tensor core itself (wgmma on sm_90a, tcgen05.mma on sm_100a), whose
# canonical layouts are the ones `--for` can ask for.
MMA_OPERANDS: dict[str, str] = {
    "ldmatrix": "mma.sync operands loaded by ldmatrix",
    "wgmma": "wgmma shared-memory matrix descriptors (sm_90a)",
    "tcgen05": "tcgen05.mma (UMMA) shared-memory matrix descriptors (sm_100a)",
}


class LdsPartitions(Value):
    """The LDS partitions of a target (gfx1250; docs/hardware.md, "LDS partitions"), as its
    compiler states them:

    - byte address a of the workgroup's LDS is in partition ``a // partition_bytes``: Triton's
      allocator (lib/Analysis/Allocation.cpp, ``getPartitionIndex``: ``offset / partitionSize``),
      with ``partition_bytes`` = 64 KiB on gfx1250 (third_party/amd TargetInfo.cpp,
      ``getSharedMemoryPartitionSize``), and ``count`` = 320 KiB / 64 KiB partitions
      (``getSharedMemorySize``; LLVM's gfx1250 limit 327680 B): confidence C;
    - which accesses collide: waves 2k and 2k + 1 of the workgroup issuing one instruction
      together touch a common partition (``pair`` = 2 waves). Triton's Gluon helper
      (``make_partitioned_dot_layouts``, cdna5/_layouts.py) builds its WMMA layouts so that "w0 and
      w1 as well as w2 and w3 ... read different A/B operand data blocks in a single instruction,
      which is necessary precondition for avoiding LDS partition conflicts": the pairing is read from
      that, and no source gives the cost in cycles or the timing: confidence I (``inferred``).
    """

    partition_bytes: int
    count: int
    pair: int
    source: str
    confidence: str

    def index(self, byte_addresses: np.ndarray) -> np.ndarray:
        """The partition of each byte address."""
        return byte_addresses // self.partition_bytes

    def warning(self, arch: str) -> str:
        return (f"{arch} LDS partitions: the {self.partition_bytes // 1024} KiB partitions are the compiler's "
                f"(C), but which waves collide (waves 2k and 2k+1 issuing one instruction together) is inferred "
                f"(I) and the cost in cycles is not modelled [{self.source}]")


class Hardware(Value):
    """One shared-memory target. Immutable and hashable (the proof caches per (tile, hardware)).

    The bank geometry and phase rule say how a request is served; the capabilities say what the
    target has, and a target has nothing it does not list (the defaults are empty: a new entry
    never inherits another vendor's instructions or copy engine):

    - ``instructions``: the instruction families of ``INSTRUCTIONS`` it has (``lds``/``sts`` ops
      are derived from the phase rule; ``ds_read``/``ds_write`` ops are the cells of ``rules``);
    - ``copy_engines`` (``COPY_ENGINES``) and ``tma_modes``, the swizzle modes of its TMA
      ("32B", "64B", "128B", and from sm_100 "128B_ATOM_32B", "128B_ATOM_32B_FLIP_8B",
      "128B_ATOM_64B"; tma_modes.py): ``--emit tma``, ``tma_mode``, CuTe's make_tma_copy/GMMA
      atom, Triton's NVMMA encoding and Mojo's TensorMapSwizzle are offered only for a mode listed here;
    - ``mma_operands`` (``MMA_OPERANDS``): how its MMAs read shared memory (ldmatrix into
      registers, wgmma or tcgen05 descriptors): ``--for umma`` needs "tcgen05";
    - ``language``: the language its kernels are written in (``--emit cuda`` writes the function
      in it: "CUDA", "HIP"; any other, plain C), and the words its documentation uses: ``group``
      for its lanes' group (warp, wave), ``shared`` for its shared memory (LDS);
    - ``vector_reads``: the op that a lane's read of so many bytes is (the generic warp: form is
      then costed per instruction by that op's cell); empty: the contiguous phase rule by width;
    - ``counter``: the per-instruction bank-conflict counter its profiler reports (written beside
      each access's cost as worst - lower bound), or None;
    - ``profiler``: the counter module of the profiler whose per-kernel counters each access
      reports for one pass over the tile, in that profiler's metric names: the module whose
      ``counter(problem, pattern, table)`` gives them ("swizzle_solver.counters": Nsight
      Compute's), imported only when a document asks for counters; or "";
    - ``mfma_reads``: where compilers issue an MFMA operand read of so many bytes per lane with
      another instruction than the ds_read of that width, that instruction (gfx950: 8 bytes ->
      ds_read2_b64, two K-steps per instruction, Triton's AMD backend): the operand forms are
      counted as the ds_read of the width and also as that instruction (access.warp.compiled_reading);
    - ``general_cosets``: the rank proof also takes phases that are cosets of XORs of offset bits
      (non-contiguous phase tables); otherwise only cosets of single offset bits;
    - ``paired_loads``: the lane widths (bytes) at which a load whose lanes repeat in pairs is
      served with its phases merged two by two (``pairs``; NVIDIA: 8 and 16, docs/hardware.md);
    - ``lds_partitions``: the LDS is split into partitions that the waves of a workgroup contend
      for (gfx1250: ``LdsPartitions``); an instruction form issued by several waves together
      (``OP:RxC:wN``) is then also counted for partition conflicts (simulate.partition_conflicts);
    - ``without_tma``: what ``--emit tma`` says on a target without a TMA (why, and what writes
      its tiles instead); empty: a sentence made from the targets that have one.
    """

    name: str
    banks: int = 32
    bank_bytes: int = 4
    wave_lanes: int = 32  # lanes of one warp / wave
    # Contiguous phase rule: (widest lane bytes, lanes per phase), narrowest first.
    phase_lanes: tuple[tuple[int, int], ...] = ((4, 32), (8, 16), (16, 8))
    # Non-contiguous phase rule, per lane width: (lane bytes, (lane indices of each phase, ...)).
    # A width listed here takes precedence over phase_lanes (for targets that need it).
    phase_sets: tuple[tuple[int, tuple[tuple[int, ...], ...]], ...] = ()
    matrix_rows: int = 8  # ldmatrix / stmatrix: one matrix of 8 rows x 16 bytes is one phase
    matrix_row_bytes: int = 16
    # Per-instruction rules (AMD: the bank count and the phases depend on (arch, op)); see Rule.
    rules: tuple[Rule, ...] = field(default=(), compare=False, repr=False)
    fixed_banks: bool = False  # --banks/--bank-bytes given: they override every rule's bank count
    # Capabilities (the class docstring):
    instructions: frozenset[str] = frozenset()
    copy_engines: tuple[str, ...] = ()
    tma_modes: tuple[str, ...] = ()
    mma_operands: tuple[str, ...] = ()
    language: str = "C"
    group: str = "wave"
    shared: str = "shared memory"
    vector_reads: tuple[tuple[int, str], ...] = ()
    counter: str | None = None
    profiler: str = ""
    mfma_reads: tuple[tuple[int, str], ...] = ()
    general_cosets: bool = False
    paired_loads: tuple[int, ...] = ()
    without_tma: str = ""
    lds_partitions: LdsPartitions | None = None

    def partitions_refusal(self) -> str | None:
        """None when this target has LDS partitions (``lds_partitions``); else the one line that
        refuses a multi-wave access (``:wN``), naming the targets that have them."""
        if self.lds_partitions is not None:
            return None
        return self.lacks("LDS partitions (the :wN suffix counts partition conflicts between the waves of "
                          "a workgroup)", lambda hw: hw.lds_partitions is not None)

    def __post_init__(self) -> None:
        unknown = ((set(self.instructions) - set(INSTRUCTIONS)) | (set(self.copy_engines) - set(COPY_ENGINES))
                   | (set(self.mma_operands) - set(MMA_OPERANDS)))
        if unknown:
            raise ValueError(f"target {self.name}: unknown capabilities {sorted(unknown)} (hardware.INSTRUCTIONS, "
                             f"COPY_ENGINES, MMA_OPERANDS)")
        if self.tma_modes and "tma" not in self.copy_engines:
            raise ValueError(f"target {self.name}: TMA swizzle modes without a TMA (copy_engines)")

    @property
    def wavefront_bytes(self) -> int:
        """Bytes one wavefront serves: one word from every bank."""
        return self.banks * self.bank_bytes

    def with_banks(self, banks: int, bank_bytes: int) -> Hardware:
        """The same target with another bank geometry (``--banks``/``--bank-bytes``). Paired loads
        (``pairs``) are a fact of the target's own banks, measured there: another geometry (the
        tutorials' 8 banks) is a model of its own, served by the plain phase rule, and no profiler
        measures it (``profiler``)."""
        if (banks, bank_bytes) == (self.banks, self.bank_bytes):
            return self
        return replace(self, banks=banks, bank_bytes=bank_bytes, fixed_banks=True, paired_loads=(), profiler="")

    def serving(self, banks: int) -> Hardware:
        """This target as seen by a pattern whose instruction uses ``banks`` banks (0: the target's)."""
        return self if not banks or banks == self.banks else replace(self, banks=banks)

    # --- instructions ----------------------------------------------------------------------------

    def rule(self, op: str) -> Rule | None:
        """How instruction ``op`` is served here (None: not an instruction of this target): a cell
        of its table (by its ds_read name or its gfx11+ ds_load name), or an op of a family served
        by the contiguous phase rule (lds/sts) that it has."""
        op = op.strip().lower()
        for name in (op, gfx12_name(op)):
            for r in self.rules:
                if r.op == name:
                    return r
        family, width = _RULE_OPS.get(op, ("", 0))
        if family not in self.instructions:
            return None
        return Rule(op, width, op.startswith("st"), self.banks,
                    contiguous(self.wave_lanes, self.lanes_per_phase(width)),
                    "DESIGN.md section 7 (NVIDIA phase rule)", "D")

    def op_names(self) -> list[str]:
        return [r.op for r in self.rules] + sorted(op for op, (family, _) in _RULE_OPS.items()
                                                   if family in self.instructions)

    def refusal(self, family: str) -> str | None:
        """None when this target has the instruction family ``family`` (INSTRUCTIONS); else why
        not, naming the targets that have it (building their tables: an error path)."""
        if family in self.instructions:
            return None
        having = [name for name in TARGETS if family in TARGETS[name].instructions]
        where = f"targets that have them: --arch {', '.join(having)}" if having else "no target has them"
        return f"--arch {self.name} has no {INSTRUCTIONS[family]}; {where}"

    def lacks(self, what: str, have: Callable[[Hardware], bool]) -> str:
        """The one line that refuses ``what`` on this target, naming the targets for which
        ``have(target)`` holds (building their tables: an error path)."""
        having = [name for name in TARGETS if have(TARGETS[name])]
        where = f"targets that have it: --arch {', '.join(having)}" if having else "no target has it"
        return f"--arch {self.name} has no {what}; {where}"

    def read_op(self, vector_bytes: int) -> str | None:
        """The op a lane's read of ``vector_bytes`` bytes is on this target (``vector_reads``), or
        None: the contiguous phase rule serves it."""
        return dict(self.vector_reads).get(vector_bytes)

    def vector_op(self, vector_bytes: int, write: bool = False) -> str | None:
        """The single-address instruction that moves a lane's vector of ``vector_bytes`` bytes where
        the target serves each instruction by its own cell (AMD: ds_read_u8 .. ds_read_b128,
        ds_write_b8 .. ds_write_b128), or None (NVIDIA: the phase rule by width is its ops' rule)."""
        if "ds_read" not in self.instructions:
            return None
        return ("ds_write_b" if write else "ds_read_u" if vector_bytes < 4 else "ds_read_b") + str(8 * vector_bytes)

    def by_vector(self, vector_bytes: int, write: bool = False) -> Hardware:
        """The target as the instruction moving a lane's ``vector_bytes``-byte vector sees it: that
        op's own cell (``for_rule``: its banks and phases, as the OP:RxC forms count it) where it has
        one, else the target (its phase rule by width). The one place a width picks the phase rule of
        a single-address access (--vectors auto, --linear-layout)."""
        op = self.vector_op(vector_bytes, write)
        rule = self.rule(op) if op is not None else None
        return self if rule is None else self.for_rule(rule)

    def with_rule(self, rule: Rule) -> Hardware:
        """This target with ``rule`` in place of the rule of the same op."""
        return replace(self, rules=tuple(rule if r.op == rule.op else r for r in self.rules))

    def for_rule(self, rule: Rule) -> Hardware:
        """The target as one instruction sees it: its bank count (unless --banks) and its phases."""
        banks = self.banks if self.fixed_banks else rule.banks
        return replace(self, banks=banks, phase_sets=((rule.lane_bytes, rule.phases),))

    # --- the lower bound -----------------------------------------------------------------------

    def lower_bound(self, phase_bytes: int) -> int:
        """Wavefronts a phase reading ``phase_bytes`` distinct bytes needs under any layout: at least
        one, and ceil(bytes / wavefront). The one formula: the probe's ideal takes it too, for every
        phase at once (``lower_bounds``)."""
        return int(self.lower_bounds(phase_bytes))

    def lower_bounds(self, phase_bytes: np.ndarray | int) -> np.ndarray:
        """``lower_bound`` of each phase (an integer array of distinct bytes)."""
        return np.maximum(1, -(-phase_bytes // self.wavefront_bytes))

    # --- the phase rule ------------------------------------------------------------------------

    def lanes_per_phase(self, lane_bytes: int) -> int:
        """Lanes served in one phase under the contiguous rule, by the bytes each lane reads."""
        for widest, lanes in self.phase_lanes:
            if lane_bytes <= widest:
                return lanes
        raise ValueError(f"{self.name}: no phase rule for {lane_bytes}-byte lanes")

    def phase_indices(self, lanes: int, lane_bytes: int, paired: bool = False) -> list[list[int]]:
        """The lane indices of each phase of one request of ``lanes`` lanes of one width; ``paired``
        (a paired load, ``pairs``): those phases merged two by two."""
        for width, sets in self.phase_sets:
            if width == lane_bytes:
                found = [[i for i in s if i < lanes] for s in sets if any(i < lanes for i in s)]
                break
        else:
            size = self.lanes_per_phase(lane_bytes)
            found = [list(range(i, min(i + size, lanes))) for i in range(0, lanes, size)]
        return merge_pairs(found) if paired else found

    def pairs(self, starts: list, lane_bytes: int, write: bool) -> bool:
        """A paired load: a load of ``lane_bytes``-byte lanes (a width of ``paired_loads``) by the whole
        wave in which every lane starts where lane n ^ 1 does, or every lane where lane n ^ 2 does
        (``starts``: each lane's first element, lane 0 first). The hardware then serves its phases two
        by two (phase i with phase i ^ 1: NVIDIA's 16-byte lanes in 2 groups of 16 lanes instead of 4 of
        8, its 8-byte lanes in one group of 32 instead of 2 of 16), each group costing the most distinct
        words in one bank (DESIGN.md section 1) and at least one wavefront (docs/hardware.md, "Paired
        loads": NVIDIA's statement for compute capability 7.x, measured on sm_90).

        Decided on logical positions: under any layout (a bijection of elements) two lanes start at
        the same address exactly when they start at the same element, so whether a load is paired does
        not depend on the layout, and is known when the access is parsed."""
        n = len(starts)
        if write or lane_bytes not in self.paired_loads or n != self.wave_lanes:
            return False
        return any(all(starts[i] == starts[i ^ k] for i in range(n)) for k in (1, 2))

    def split_request(self, request: list[Lane], write: bool = False) -> list[list[Lane]]:
        """One request (every lane the same width) as its phases, each in lane order; a paired load
        (``pairs``; ``write``: the request is a store, never paired) as its merged phases."""
        width = request[0][2]
        paired = self.pairs([(r, c) for r, c, _ in request], width, write)
        return [[request[i] for i in phase] for phase in self.phase_indices(len(request), width, paired)]

    # --- words and banks -----------------------------------------------------------------------

    def geometry(self, elem_bytes: int, lane_bytes: int) -> Geometry:
        return Geometry(elem_bytes, lane_bytes, self.bank_bytes, self.wavefront_bytes)

    def element_words(self, elem_bytes: int) -> int:
        """Bank words one element spans (1 when a word holds one or more elements)."""
        return max(1, elem_bytes // self.bank_bytes)

    def first_word(self, offsets, elem_bytes: int):
        """The word holding the first byte of each element at physical element ``offsets``."""
        return offsets * elem_bytes // self.bank_bytes

    def bank(self, words):
        return words % self.banks

    def words_of_element(self, offset: int, elem_bytes: int) -> range:
        """Every word the element at physical offset ``offset`` touches."""
        first = offset * elem_bytes // self.bank_bytes
        return range(first, first + self.element_words(elem_bytes))

    def words(self, offsets: np.ndarray, elem_bytes: int) -> np.ndarray:
        """The words of physical element offsets (shape (n, k)), row by row:
        shape (n, k * element_words)."""
        e, bb = elem_bytes, self.bank_bytes
        if e <= bb:  # one word holds bb // e elements (both powers of two: a shift, which numpy does faster)
            return offsets >> (bb // e).bit_length() - 1
        span = e // bb  # words spanned by one element
        return (offsets[..., None] * span + np.arange(span)).reshape(offsets.shape[0], -1)


# --- instruction rules (AMD LDS: research notes amd_lds.md, copied in docs/hardware.md) -----------

Phases = tuple[tuple[int, ...], ...]

# Confidence tags (docs/hardware.md): D documented by the vendor, M measured on hardware by a third
# party, R a published hardware counter recomputed exactly, C asserted only by a compiler/library
# model, I inference (no source states it), "disputed" sources disagree (the robust reading is used).
VERIFIED = ("D", "M", "R", "C")


class Rule(Value):
    """One (arch, instruction) cell: bytes per lane, read or write, banks, the lane sets of its phases,
    and where that comes from. The phases of every rule below are the cosets of a GF(2) subspace of
    lane-id bits (``cosets``; for a two-address op, of slot bits: the address index is the bit above
    the lane id), so the rank proof carries over (research section 4)."""

    op: str
    lane_bytes: int
    write: bool
    banks: int
    phases: Phases
    source: str
    confidence: str  # a tag above, e.g. "D+M"; "I" and "disputed" are reported as warnings
    # "disputed": the other reading (gfx950 ds_read_b32: 64 banks, one 64-lane phase). The robust
    # answer meets both (research section 4), so an access of this op is also checked under it.
    alternative: Rule | None = None
    # ds_read2/ds_write2: each lane gives ``addresses`` addresses, and ``phases`` are sets of *slots*,
    # slot l + a * wave being address a of lane l (research section 9: two single-address accesses).
    addresses: int = 1

    @property
    def verified(self) -> bool:
        return any(tag in VERIFIED for tag in self.confidence.split("+"))

    def warning(self, arch: str) -> str | None:
        if self.verified:
            return None
        why = ("sources disagree; the access is also checked under the other reading, so the answer meets both"
               if self.confidence == "disputed"
               else "no source documents or measures it; the contiguous default or an inference is used")
        what = "lanes" if self.addresses == 1 else "lane addresses"
        return (f"{arch} {self.op}: unverified ({why}): {len(self.phases)} phase(s) of "
                f"{len(self.phases[0])} {what}, {self.banks} banks [{self.source}]")


# LLVM's gfx11+/gfx12 assembler names of the same DS instructions (ds_load_2addr_b64 = ds_read2_b64, ...).
_GFX12_NAMES = (("ds_load_2addr_stride64_", "ds_read2st64_"), ("ds_store_2addr_stride64_", "ds_write2st64_"),
                ("ds_load_2addr_", "ds_read2_"), ("ds_store_2addr_", "ds_write2_"), ("ds_load_", "ds_read_"),
                ("ds_store_", "ds_write_"))


def gfx12_name(op: str) -> str:
    """The ds_read/ds_write name of an instruction given by its gfx11+ name (ds_load_b128 ->
    ds_read_b128, ds_store_2addr_b32 -> ds_write2_b32); other names unchanged."""
    for new, old in _GFX12_NAMES:
        if op.startswith(new):
            return old + op[len(new):]
    return op


@cache  # the tables share a few shapes (contiguous 16 or 32 of 64, ...): built once each at import
def cosets(wave: int, basis: tuple[int, ...]) -> Phases:
    """The cosets of span(``basis``) (lane-id bit masks) among lanes 0..wave-1, each sorted, in
    order of their smallest lane: one phase each."""
    span = {0}
    for b in basis:
        span |= {x ^ b for x in span}
    seen: set[int] = set()
    out = []
    for lane in range(wave):
        if lane not in seen:
            coset = tuple(sorted(lane ^ x for x in span))
            seen.update(coset)
            out.append(coset)
    return tuple(out)


def merge_pairs(phases: list[list[int]]) -> list[list[int]]:
    """Phases merged two by two, phase 2i with phase 2i + 1 (a paired load, Hardware.pairs)."""
    assert len(phases) % 2 == 0, phases
    return [list(phases[i]) + list(phases[i + 1]) for i in range(0, len(phases), 2)]


def contiguous(wave: int, size: int) -> Phases:
    """Phases of ``size`` consecutive lanes: span(l0 .. l_{log2 size - 1})."""
    return cosets(wave, tuple(1 << k for k in range(_log2(min(size, wave)))))


def default_phases(wave: int, banks: int, lane_bytes: int) -> Phases:
    """The contiguous default for a cell no source documents: one wavefront's bytes of lanes."""
    return contiguous(wave, max(1, banks * 4 // max(4, 1 << (lane_bytes - 1).bit_length())))


# gfx942 ds_read_b128 (and gfx950 ds_read_b96): V0 = span(l0, l1, l2^l4); cosets by l2, l3, l5.
NC8 = (0b1, 0b10, 0b10100)
# gfx950 ds_read_b128: V0 = span(l0, l1, l2^l3, l2^l4); cosets by l2, l5.
NC16 = (0b1, 0b10, 0b1100, 0b10100)

_WIDTHS = {"b8": 1, "u8": 1, "i8": 1, "b16": 2, "u16": 2, "i16": 2, "b32": 4, "b64": 8, "b96": 12, "b128": 16}
# The ops served by the contiguous phase rule of their width (no per-instruction table): op ->
# (instruction family, bytes per lane). A target has them when it has the family.
_RULE_OPS = {f"{d}{bits}": (d, bits // 8) for d in ("lds", "sts") for bits in (8, 16, 32, 64, 128)}


def targets_with_op(op: str) -> list[str]:
    """The names of the targets that have instruction ``op`` (building their tables: an error path)."""
    return [name for name in TARGETS if TARGETS[name].rule(op) is not None]


def _disputed(rule: Rule, banks: int, phases: int, source: str) -> Rule:
    """``rule`` (the reading used) with the other reading as its alternative."""
    other = Rule(rule.op, rule.lane_bytes, rule.write, banks, contiguous(64, phases), source, "disputed")
    return replace(rule, alternative=other)


def _rule(wave: int, banks: int, op: str, phases: Phases | int | None, source: str, confidence: str) -> Rule:
    """A rule: ``phases`` as lane (slot) sets, as a contiguous phase size, or None (the default).
    For a two-address op (ds_read2_*) a contiguous size or the default serves the first addresses
    of every lane, then the second ones: two passes (slots l + a * wave, research section 3.1)."""
    width = _WIDTHS[op.rsplit("_", 1)[-1]] if "_tr_" not in op else 8
    addresses = 2 if op.startswith(("ds_read2", "ds_write2")) else 1
    if phases is None:
        phases = contiguous(wave * addresses, len(default_phases(wave, banks, width)[0]))
    elif isinstance(phases, int):
        phases = contiguous(wave * addresses, phases)
    return Rule(op, width, op.startswith("ds_write"), banks, phases, source, confidence, addresses=addresses)


def _st64(rules: tuple[Rule, ...]) -> tuple[Rule, ...]:
    """Each ds_read2/ds_write2 rule, and its st64 form (offsets scaled by 64 elements: the same
    phases, as the tool takes every lane's addresses as given)."""
    out = []
    for r in rules:
        out.append(r)
        if r.addresses == 2:
            out.append(replace(r, op=r.op.replace("2_", "2st64_"),
                               source=f"as {r.op} (st64 only scales the immediate offsets by 64): {r.source}"))
    return tuple(out)


_Cell = tuple[str, int, Phases | int | None, str, str]  # (op, banks, phases, source, confidence)


# What every AMD target has (_amd_target): LDS reads and writes (its table), HIP, waves; a lane's
# read of a vector is the ds_read of that width; rocprof's per-instruction counter; phases that are
# cosets of XORed lane bits (gfx942's ds_read_b128); no TMA. CDNA adds the MFMA operand reads.
_AMD_READS = ((1, "ds_read_u8"), (2, "ds_read_u16"), (4, "ds_read_b32"), (8, "ds_read_b64"), (16, "ds_read_b128"))
_AMD_NO_TMA = ("AMD GPUs have no TMA (CUtensorMap is NVIDIA's, sm_90 on); the layout is written by ds_write or "
               "direct-to-LDS loads")
RDNA = frozenset({"ds_read", "ds_write"})
CDNA = RDNA | {"mfma"}


def _amd(name: str, wave: int, banks: int, cells: list[_Cell], instructions: frozenset[str] = RDNA,
         mfma_reads: tuple[tuple[int, str], ...] = (), partitions: LdsPartitions | None = None
         ) -> Callable[[], Hardware]:
    """The recipe of one AMD target: its rules are built when the target is first read (TARGETS)."""
    return lambda: _amd_target(name, wave, banks, cells, instructions, mfma_reads, partitions)


def _amd_target(name: str, wave: int, banks: int, cells: list[_Cell], instructions: frozenset[str],
                mfma_reads: tuple[tuple[int, str], ...] = (), partitions: LdsPartitions | None = None) -> Hardware:
    rules = _st64(tuple(_rule(wave, b, op, ph, src, conf) for op, b, ph, src, conf in cells))
    if name == "gfx950":  # research section 5-Q1: the other reading of the narrow reads
        rules = tuple(_disputed(r, 64, 64, "S3 L326, S4 cdna4info (single phase T0-T63), S5 CDNA4_B32_Contiguous")
                      if r.confidence == "disputed" else r for r in rules)
    # The contiguous rule by width for the generic forms (MxN, warp:...), from the b32/b64/b128 reads.
    by_op = {r.op: r for r in rules}
    sizes = tuple((w, len(by_op[f"ds_read_b{8 * w}"].phases[0])) for w in (4, 8, 16))
    sets = ((16, by_op["ds_read_b128"].phases),) if by_op["ds_read_b128"].banks == banks else ()
    return Hardware(name=name, banks=banks, wave_lanes=wave, phase_lanes=sizes, phase_sets=sets,
                    rules=rules, instructions=instructions, language="HIP", group="wave", shared="LDS",
                    vector_reads=_AMD_READS, counter="SQ_LDS_BANK_CONFLICT", general_cosets=True,
                    without_tma=_AMD_NO_TMA, mfma_reads=mfma_reads, lds_partitions=partitions)


class Targets(MutableMapping[str, Hardware]):
    """Target name -> Hardware, in the order listed. An entry may be a recipe (a function of no
    arguments, as ``_amd`` gives): it is built the first time it is read and kept, so a solve
    builds only the tables of the target it uses (start-up: bench/startup.py)."""

    def __init__(self, entries: dict[str, Hardware | Callable[[], Hardware]]) -> None:
        self._entries = dict(entries)

    def __getitem__(self, name: str) -> Hardware:
        entry = self._entries[name]
        if not isinstance(entry, Hardware):
            entry = self._entries[name] = entry()
        return entry

    def __setitem__(self, name: str, hardware: Hardware) -> None:
        self._entries[name] = hardware

    def __delitem__(self, name: str) -> None:
        del self._entries[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)


_GCN = "S14 AMD APP guide (GCN half-wave); S13 omniperf MI200 N-1 example"
_CK = "S1 CK lds_bank_conflicts.rst, S2 rocm-blogs lds-bank-conflict"
_NOD = "S3 nod-ai amdgpu_kernel_optimization_guide.md"
_EMP = "S4 nod-ai empirical-lds"
_HK = "S8 HipKittens phases (gfx950 pairwise SQ_LDS_BANK_CONFLICT)"
_NONE = "no source (contiguous default)"
# ds_read2/ds_write2 (research sections 3.1, 3.4, 9): two single-address accesses, served one after the
# other on CDNA3 (S3 L279, ds_read2_b64), both at once on gfx1250 (S7 Utility.cpp, ds_load_2addr_b64).
_TWO_PASS = "two passes (every lane's first address, then its second)"
_TR1250 = ("S7 Triton Utility.cpp: each cycle two shuffle groups of 8 lanes (16 lanes) load (C); the groups "
           "taken as consecutive lanes; names from LLVM PR #163900")
_BOTH = "S7 Triton Utility.cpp: gfx1250 serves the two addresses simultaneously (ds_load_2addr_b64, C); lane sets inferred"

# gfx1250's LDS partitions (LdsPartitions; docs/hardware.md, "LDS partitions"): 5 of 64 KiB, by address // 64 KiB
# (C: Triton Allocation.cpp getPartitionIndex, TargetInfo.cpp getSharedMemoryPartitionSize/getSharedMemorySize);
# waves 2k and 2k+1 issuing one instruction together collide in one (I: read from Gluon's
# make_partitioned_dot_layouts, which keeps w0/w1 and w2/w3 in different partitions).
GFX1250_PARTITIONS = LdsPartitions(
    partition_bytes=64 * 1024, count=5, pair=2, confidence="C+I",
    source="S7 Triton lib/Analysis/Allocation.cpp getPartitionIndex, third_party/amd TargetInfo.cpp "
           "getSharedMemoryPartitionSize (64 KiB), Gluon cdna5/_layouts.py make_partitioned_dot_layouts (pairs)")

_WRITES = ("ds_write_b8", "ds_write_b16", "ds_write_b32", "ds_write_b64", "ds_write_b96", "ds_write_b128")
_TWO_ADDRESS = ("ds_read2_b32", "ds_read2_b64", "ds_write2_b32", "ds_write2_b64")


def _no_source(banks: int, ops: tuple[str, ...], note: str = _NONE) -> list[_Cell]:
    """Cells no source documents or measures: the contiguous default at confidence I, which every
    output reports as unverified."""
    return [(op, banks, None, note, "I") for op in ops]


# The generic NVIDIA target (sm_70 to sm_120): ld/st.shared, ldmatrix/stmatrix, the mma.sync
# accumulator, the TMA and its three swizzle modes (sm_90 on), CUDA; 64- and 128-bit loads whose
# lanes repeat in pairs served two phases at once (NVIDIA's forum statement for compute capability
# 7.x; measured on an H100: docs/hardware.md, "Paired loads").
NVIDIA = Hardware(name="nvidia", instructions=frozenset({"lds", "sts", "ldmatrix", "stmatrix", "mma-c", "mma-ab"}),
                  copy_engines=("tma",), tma_modes=("32B", "64B", "128B"), mma_operands=("ldmatrix", "wgmma"),
                  language="CUDA", group="warp", paired_loads=(8, 16), profiler="swizzle_solver.counters")

# NVIDIA generations (DESIGN.md section 14; sources in docs/hardware.md, "NVIDIA generations"): the
# banks and phase rule are the generic target's (32 x 4 B since compute capability 5.x); what
# differs is what each has. ldmatrix and mma.sync from sm_75; stmatrix (.m8n8 .b16), the TMA
# (CUtensorMap, 32B/64B/128B) and wgmma descriptors from sm_90 (PTX ISA: stmatrix, cp.async.bulk.tensor,
# wgmma: sm_90a only); the byte forms of ldmatrix/stmatrix and the TMA's swizzle atomicity modes on
# sm_100a and sm_120a (PTX ISA 8.6+: ldmatrix .m16n16/.m8n16, stmatrix .m16n8, tensormap.replace
# .swizzle_atomicity); tcgen05 descriptors on sm_100a only (sm_120 has no tcgen05).
_HOPPER_TMA = ("32B", "64B", "128B")
_BLACKWELL_TMA = _HOPPER_TMA + ("128B_ATOM_32B", "128B_ATOM_32B_FLIP_8B", "128B_ATOM_64B")
_AMPERE = replace(NVIDIA, name="sm80", instructions=NVIDIA.instructions - {"stmatrix"}, copy_engines=(),
                  tma_modes=(), mma_operands=("ldmatrix",),
                  without_tma="the TMA (CUtensorMap) is sm_90 on; on sm_80/sm_89 the tile is written by "
                              "cp.async or st.shared")
_HOPPER = replace(NVIDIA, name="sm90", mma_operands=("ldmatrix", "wgmma"))
_BLACKWELL = replace(NVIDIA, name="sm100", instructions=NVIDIA.instructions | {"ldmatrix-b8", "stmatrix-b8"},
                     tma_modes=_BLACKWELL_TMA, mma_operands=("ldmatrix", "tcgen05"))

TARGETS = Targets({
    "nvidia": NVIDIA,
    "sm80": _AMPERE,
    "sm89": replace(_AMPERE, name="sm89"),
    "sm90": _HOPPER,
    "sm100": _BLACKWELL,
    "sm120": replace(_BLACKWELL, name="sm120", mma_operands=("ldmatrix",)),
    "gfx90a": _amd("gfx90a", 64, 32, [
        ("ds_read_b32", 32, 32, _GCN, "D+M"),
        ("ds_read_u8", 32, 32, _GCN + " (b32 and narrower reads)", "D"),
        ("ds_read_u16", 32, 32, _GCN + " (b32 and narrower reads)", "D"),
        ("ds_read_b64", 32, 16, "S14 GCN quarter-wave float2, inferred for gfx90a", "I"),
        ("ds_read_b96", 32, None, _NONE, "I"),
        ("ds_read_b128", 32, 8, "grouping unknown; contiguous 8x8 (Triton tiles only CDNA3 non-contiguous)", "I"),
        ("ds_write_b8", 32, 32, "assumed as reads", "I"),
        ("ds_write_b16", 32, 32, "assumed as reads", "I"),
        ("ds_write_b32", 32, 32, "assumed as reads", "I"),
        ("ds_write_b64", 32, 16, "assumed as reads", "I"),
        ("ds_write_b96", 32, None, _NONE, "I"),
        ("ds_write_b128", 32, 8, "assumed as gfx942", "I"),
        ("ds_read2_b32", 32, 32, _TWO_PASS + " (b32 half-waves)", "I"),
        ("ds_read2_b64", 32, 16, _TWO_PASS + " (b64 quarter-waves), as gfx942 (S3 L279)", "I"),
        ("ds_write2_b32", 32, 32, _TWO_PASS + " (b32 half-waves)", "I"),
        ("ds_write2_b64", 32, 16, _TWO_PASS + " (b64 quarter-waves)", "I"),
    ], CDNA),
    "gfx942": _amd("gfx942", 64, 32, [
        ("ds_read_b32", 32, 32, f"{_NOD} L273, {_GCN}; {_EMP} cdna3 sweep (V1)", "D+M+R"),
        ("ds_read_u8", 32, 32, f"{_NOD} L273 (b32 and narrower reads)", "D"),
        ("ds_read_u16", 32, 32, f"{_NOD} L273; CK tutorial-14 01 counter (V2)", "D+R"),
        ("ds_read_b64", 32, 16, f"{_NOD} L276; {_EMP} (V1); S10 pyhip pairwise", "D+M+R"),
        ("ds_read_b96", 32, cosets(64, NC8), "inferred from gfx950's measured b96 (S8)", "I"),
        ("ds_read_b128", 32, cosets(64, NC8), f"{_CK}; {_NOD} L284; S9 CK LDS probe, S10 pyhip (V6)", "D+M"),
        ("ds_write_b8", 32, 32, "assumed as ds_write_b16", "I"),
        ("ds_write_b16", 32, 32, "CK tutorial-14 02 counter (V2)", "R"),
        ("ds_write_b32", 32, 32, "hipBLASLt PR #1180 comment (32 threads per cycle)", "C"),
        ("ds_write_b64", 32, 16, "inferred from gfx950's measured ds_write_b64 (S8) and GCN", "I"),
        ("ds_write_b96", 32, None, _NONE, "I"),
        ("ds_write_b128", 32, 8, f"{_CK}; {_NOD} L294; CK tutorial-14 01 writes (V2)", "D+R"),
        ("ds_read2_b32", 32, 32, _TWO_PASS + " of ds_read_b32's half-waves, as S3 L279 says of ds_read2_b64", "I"),
        ("ds_read2_b64", 32, 16, f"{_NOD} L279 (first addresses in 4x16, then the second addresses)", "D"),
        ("ds_write2_b32", 32, 32, _TWO_PASS + " of b32 half-waves; CK tutorial-14 03 counter consistent (V2-03)",
         "I"),
        ("ds_write2_b64", 32, 16, _TWO_PASS + " of b64 quarter-waves, as S3 L279 says of ds_read2_b64", "I"),
    ], CDNA),
    "gfx950": _amd("gfx950", 64, 64, [
        ("ds_read_b32", 32, 32, "disputed: 64 banks 1x64 (S3, S4, S5) vs 32 banks (S12, S7); "
         "32 banks per half-wave used, see docs/hardware.md", "disputed"),
        ("ds_read_u8", 32, 32, "as ds_read_b32 (disputed)", "disputed"),
        ("ds_read_u16", 32, 32, "as ds_read_b32 (disputed)", "disputed"),
        ("ds_read_b64", 64, 32, f"{_NOD} L326; {_HK} (V5)", "D+M"),
        ("ds_read_b96", 32, cosets(64, NC8), f"{_HK} ds_read_b96 (V5)", "M"),
        ("ds_read_b128", 64, cosets(64, NC16), f"S5 IREE (internal LDS spec), {_NOD} L329; {_HK} (V5)", "D+M"),
        ("ds_read_b64_tr_b4", 64, 32, "S7 Triton Utility.cpp (64 banks, 2 groups)", "C"),
        ("ds_read_b64_tr_b8", 64, 32, "S7 Triton Utility.cpp (64 banks, 2 groups)", "C"),
        ("ds_read_b64_tr_b16", 64, 32, "S7 Triton Utility.cpp (64 banks, 2 groups)", "C"),
        ("ds_write_b8", 32, 32, "S12 rocRoller, S7 Triton (32 banks); phases inferred", "I"),
        ("ds_write_b16", 32, 32, "S12 rocRoller, S7 Triton (32 banks); phases inferred", "I"),
        ("ds_write_b32", 32, 32, "S12 rocRoller, S7 Triton (32 banks); phases inferred", "I"),
        ("ds_write_b64", 32, 16, f"{_HK} ds_write_b64 (V5)", "M"),
        ("ds_write_b96", 32, None, _NONE, "I"),
        ("ds_write_b128", 32, 8, "S12 rocRoller (writes: 32 banks); S17 8x8 (second-hand)", "C"),
        ("ds_read2_b32", 32, 32, "32 banks (S12, S7 'others'); phases unknown: " + _TWO_PASS, "I"),
        ("ds_read2_b64", 32, 16, "32 banks: S7 Triton Utility.cpp (ds_read2_b64 uses 32 banks); phases "
         "unknown on CDNA4: " + _TWO_PASS + " of 16 lanes, as gfx942 (S3 L279)", "I"),
        ("ds_write2_b32", 32, 32, "32 banks (writes, S12, S7); phases unknown: " + _TWO_PASS, "I"),
        ("ds_write2_b64", 32, 16, "32 banks (writes, S12, S7); phases unknown: " + _TWO_PASS, "I"),
    # Triton's AMD backend (S7 Utility.cpp, composePaddedLayoutForAsyncCopyCDNA4): "for isKContig &&
    # kWidthBytes == 8 we do use ds_read2_b64 which uses 32 banks": an 8-byte MFMA operand read (fp8
    # 16x16x32, 32x32x16) compiles to ds_read2_b64, two K-steps of the lane per instruction
    ], CDNA, mfma_reads=((8, "ds_read2_b64"),)),
    "gfx1250": _amd("gfx1250", 32, 64, [
        ("ds_read_b32", 64, None, "S7 Triton (64 banks); phases: contiguous default", "I"),
        ("ds_read_u8", 64, None, "S7 Triton (64 banks); phases: contiguous default", "I"),
        ("ds_read_u16", 64, None, "S7 Triton (64 banks); phases: contiguous default", "I"),
        ("ds_read_b64", 64, None, "S7 Triton (64 banks); phases: contiguous default", "I"),
        ("ds_read_b96", 64, 16, "GFX12 sequential ordering (S7 PR #11365 quote), 16 lanes inferred", "I"),
        ("ds_read_b128", 64, 16, "GFX12 sequential ordering (S7 PR #11365 quote), 2x16 inferred", "I"),
        *_no_source(64, _WRITES),
        ("ds_load_tr4_b64", 64, 16, _TR1250, "I"),
        ("ds_load_tr8_b64", 64, 16, _TR1250, "I"),
        ("ds_load_tr16_b128", 64, 16, _TR1250, "I"),
        ("ds_load_tr6_b96", 64, 16, _TR1250, "I"),
        ("ds_read2_b32", 64, cosets(64, (1, 2, 4, 8, 16, 32)), _BOTH + "; 32 lanes x 2 x 4 B per phase", "I"),
        ("ds_read2_b64", 64, cosets(64, (1, 2, 4, 8, 32)), _BOTH + "; 16 lanes x 2 x 8 B per phase", "I"),
        ("ds_write2_b32", 64, cosets(64, (1, 2, 4, 8, 16, 32)), _BOTH + " (as the load); 32 lanes per phase", "I"),
        ("ds_write2_b64", 64, cosets(64, (1, 2, 4, 8, 32)), _BOTH + " (as the load); 16 lanes per phase", "I"),
    ], partitions=GFX1250_PARTITIONS),
    "rdna3": _amd("rdna3", 32, 32, [
        ("ds_read_b32", 32, 32, f"{_EMP} rdna3info (W7900)", "M"),
        ("ds_read_u8", 32, None, _NONE, "I"),
        ("ds_read_u16", 32, None, _NONE, "I"),
        ("ds_read_b64", 32, 16, f"{_EMP} rdna3info (W7900)", "M"),
        ("ds_read_b96", 32, None, _NONE, "I"),
        ("ds_read_b128", 32, cosets(32, NC8), f"{_EMP} rdna3info (W7900, pairwise latency)", "M"),
        *_no_source(32, _WRITES),
        *_no_source(32, _TWO_ADDRESS, _NONE + ", " + _TWO_PASS),
    ]),
    "rdna4": _amd("rdna4", 32, 32, [
        ("ds_read_b32", 32, 32, f"{_EMP} rdna4info (RX 9070 XT)", "M"),
        ("ds_read_u8", 32, None, _NONE, "I"),
        ("ds_read_u16", 32, None, _NONE, "I"),
        ("ds_read_b64", 32, 16, f"{_EMP} rdna4info (RX 9070 XT)", "M"),
        ("ds_read_b96", 32, 8, "GFX12 sequential ordering (S7 PR #11365 quote)", "C"),
        ("ds_read_b128", 32, 8, f"{_EMP} rdna4info; S7 PR #11365 GFX12 quote", "M+D"),
        *_no_source(32, _WRITES),
        *_no_source(32, _TWO_ADDRESS, _NONE + ", " + _TWO_PASS),
    ]),
})
DEFAULT = TARGETS["nvidia"]

ALIASES: dict[str, str] = {
    "cdna2": "gfx90a", "mi200": "gfx90a", "mi250": "gfx90a", "mi250x": "gfx90a",
    "cdna3": "gfx942", "mi300": "gfx942", "mi300x": "gfx942", "mi300a": "gfx942", "mi325x": "gfx942",
    "cdna4": "gfx950", "mi350x": "gfx950", "mi355x": "gfx950",
    **{f"gfx{n}": "rdna3" for n in (1100, 1101, 1102, 1103, 1150, 1151)},
    "gfx1200": "rdna4", "gfx1201": "rdna4", "rdna3.5": "rdna3", "sm_70": "nvidia", "cuda": "nvidia",
    # NVIDIA generations by their other names (a variant with the same capabilities: the nearest)
    **{name: "sm80" for name in ("sm_80", "sm80a", "sm_86", "sm86", "sm_87", "sm87", "ampere", "a100", "a30",
                                 "a10", "a40", "rtx30", "rtx3090")},
    **{name: "sm89" for name in ("sm_89", "ada", "lovelace", "l4", "l40", "l40s", "rtx40", "rtx4090")},
    **{name: "sm90" for name in ("sm_90", "sm_90a", "sm90a", "hopper", "h100", "h200", "h800", "h20", "gh200")},
    **{name: "sm100" for name in ("sm_100", "sm_100a", "sm100a", "sm_100f", "sm_103", "sm_103a", "sm103",
                                  "blackwell", "b100", "b200", "gb200", "b300", "gb300")},
    **{name: "sm120" for name in ("sm_120", "sm_120a", "sm120a", "sm_121", "sm_121a", "sm121", "rtx50",
                                  "rtx5090", "rtx-pro-6000", "gb10", "dgx-spark")},
}


def target(name: str) -> Hardware | None:
    """The target called ``name`` (a TARGETS key or an alias, any case), or None."""
    key = name.strip().lower()
    return TARGETS.get(ALIASES.get(key, key))


def target_names() -> str:
    return ", ".join(TARGETS)
