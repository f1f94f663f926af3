"""Warp-level access patterns, split into hardware phases (DESIGN.md section 7).

A warp issues a request: all its lanes, each reading one vector of the same width. The hardware
serves a request in phases (hardware.Hardware.split_request: on NVIDIA, consecutive lanes, 32 of
up to 4 bytes, 16 of 8 bytes, 8 of 16 bytes; a paired load, whose lanes repeat in pairs, two of
those phases at once: hardware.Hardware.pairs), and ldmatrix / stmatrix serve each 8 x 16-byte
matrix as one phase (its 8 row addresses). The forms here give every lane its own block, so only
an [[instruction]] of a --phases file and a --linear-layout with a broadcast lane bit can be paired. A lane that reads more than 16 bytes issues several
16-byte requests, one instruction each.

Each form below builds the phases of one placement at the tile's origin (a *template*) and its
footprint; ``tile_pattern`` repeats it at every aligned position of the tile, like an MxN block.

    warp:RxC:MxN[vB]       32 lanes as R x C (lane l at lane row l // C, lane col l % C), each
                           reading an M x N block; each row of it as N*elem/V ops of V bytes
    ldmatrix.xK[.trans][:AxB]   K = 1, 2, 4 matrices of 8 rows x 16 bytes, arranged A x B
    stmatrix.xK[.trans][:AxB]   (default 1x1, 2x1, 2x2; numbered down the columns first)
    mma-c[:m16n8][vB]      the m16n8 MMA accumulator stored from registers: lane l holds rows
                           l/4 and l/4 + 8, columns 2*(l%4) + {0, 1}; one request per register
                           pair, or with vB of one element (mma-c:m16n8v4 on f32) per register
    mfma-a:MxNxK, mfma-b:MxNxK   (AMD CDNA) one MFMA operand read, K-contiguous: lane l reads
                           row l % M (A; column of B, stored N x K), K elements kl*(l // M) ..
                           + kl - 1, kl = K*M/64; MxNxK = 16x16x16, 16x16x32, 32x32x8, 32x32x16
    OP:RxC[:MxN][:down][:wN]  an instruction of the target (--arch; hardware.Rule), e.g. ds_read_b128,
                           ds_write_b64, ds_read_u16, ds_read_b64_tr_b16, lds128, sts32: the wave's
                           lanes as R x C like warp: (:down: lane l at (l % R, l // R)), each
                           covering an M x N block (default one vector: 1 x width/elem) as
                           M * N*elem/width instructions of OP. A two-address OP (ds_read2_b64,
                           ds_write2_b32, ...; hardware.Rule.addresses) takes the lane's vectors two
                           at a time in row order (default block: two consecutive vectors); any other
                           pairing is written with [[instruction]] in a --phases file.
                           :wN (gfx1250): N waves issue these instructions together, wave w the
                           w-th N-th of them in placement order, counted for LDS partition
                           conflicts between waves 2k and 2k+1 (simulate.partition_conflicts)

On an instruction (OP forms, and the warp: form on a target whose vector reads are instructions,
hardware.Hardware.vector_reads: AMD's ds_read of the vector width) the bank count and the phases
are the (arch, OP) cell's, and one instruction's cost is the sum of its phases' costs (DESIGN.md
section 9; Pattern.instruction_phases). A form of an instruction family the target lacks
(hardware.Hardware.instructions: ldmatrix on AMD, mfma on NVIDIA) is refused, naming the targets
that have it.
"""
from __future__ import annotations

import re

import numpy as np

from ..hardware import Hardware, Lane, Rule, targets_with_op
from ..model import MAX_VECTOR_BYTES, InputError, Pattern, Tile, is_pow2
from ..value import replace
from .grammar import default_vector_bytes
from .limits import check_size


def parse_warp_access(spec: str, tile: Tile, hardware: Hardware) -> Pattern:
    """Compile a warp-level `--access` spec into its phases at every placement."""
    text = spec.strip().lower()
    if text.startswith("warp:"):
        return _per_lane(spec, text, tile, hardware)
    if text.startswith(("ldmatrix", "stmatrix")):
        return _matrix(spec, text, tile, hardware)
    if text.startswith("mfma"):
        return _mfma_operand(spec, text, tile, hardware)
    if text.startswith("mma"):
        return _mma_c(spec, text, tile, hardware)
    return _instruction_form(spec, text, tile, hardware)


# The element size an instruction form moves, where it has one (bytes, the --dtype names): ldmatrix
# and stmatrix move b16 elements; the f16/bf16 MFMAs read 2-byte operands (the 8-bit and K = 32 / 16
# forms are refused on 4-byte elements anyway); the transposing ds_read_b64_tr_bN moves N-bit ones.
# mma-c has none: the accumulator is f16 or f32, and the default 4 bytes is the f32 one.
_IMPLIED_SIZES = ((r"^(ldmatrix|stmatrix)\b", 2, "f16, bf16"), (r"^mfma-[ab]:(16x16x16|32x32x8)$", 2, "f16, bf16"),
                  (r"^ds_read_b64_tr_b16\b", 2, "f16, bf16"), (r"^ds_read_b64_tr_b8\b", 1, "f8, i8"))


def implied_elem_bytes(spec: str) -> tuple[int, str] | None:
    """(bytes, dtypes) of the elements ``spec``'s instruction moves, or None when it moves any size."""
    text = spec.strip().lower()
    for pattern, size, dtypes in _IMPLIED_SIZES:
        if re.match(pattern, text):
            return size, dtypes
    return None


def refuse(spec: str, hardware: Hardware, family: str) -> None:
    """Bad input when the target lacks the instruction family (hardware.Hardware.instructions)."""
    why = hardware.refusal(family)
    if why is not None:
        raise InputError(f"access {spec!r}: {why}")


def instruction_rule(spec: str, op: str, tile: Tile, hardware: Hardware) -> Rule:
    """The (arch, op) cell, checked against the element size."""
    rule = hardware.rule(op)
    if rule is None:
        having, ops = targets_with_op(op), hardware.op_names()
        where = f" (it is an instruction of --arch {', '.join(having)})" if having else ""
        use = (f"use one of {', '.join(ops)}" if ops else
               "it has no instruction forms: use the generic ones (MxN, row, col, warp:RxC:MxN, --phases)")
        raise InputError(f"access {spec!r}: {op!r} is not an instruction of --arch {hardware.name}{where}: {use}")
    if rule.lane_bytes % tile.elem_bytes:
        raise InputError(f"access {spec!r}: {op} moves {rule.lane_bytes} B per lane, less than one "
                         f"{tile.elem_bytes}-byte element: use a wider instruction or a narrower --dtype")
    return rule


def as_instruction(pattern: Pattern, hardware: Hardware, rule: Rule, phases: int) -> Pattern:
    """``pattern`` (built under ``hardware.for_rule(rule)``) marked as instructions of ``phases`` phases each."""
    warning = rule.warning(hardware.name)
    banks = 0 if hardware.fixed_banks or rule.banks == hardware.banks else rule.banks
    return replace(pattern, banks=banks, instruction_phases=phases, warnings=(warning,) if warning else (),
                   op=rule.op)


def other_reading(pattern: Pattern, parse, hardware: Hardware) -> list[Pattern]:
    """Where the sources disagree on an instruction's cell (hardware.Rule.alternative: gfx950
    ds_read_b32), the same access under the other reading too, so an answer meets both (the
    robust reading); with --banks there is one bank count and nothing to add."""
    rule = hardware.rule(pattern.op) if pattern.op else None
    if rule is None or rule.alternative is None or hardware.fixed_banks:
        return []
    other = parse(hardware.with_rule(rule.alternative))
    return [replace(other, spec=f"{pattern.spec} [{rule.alternative.banks}-bank reading]")]


_MFMA = r"^mfma-([ab]):(16x16x16|16x16x32|32x32x8|32x32x16)(?::([a-z0-9_]+))?$"


def _mfma_operand(spec: str, text: str, tile: Tile, hardware: Hardware) -> Pattern:
    """The A (or B) operand of one MFMA MxNxK, K-contiguous, read from the tile by one wave: lane l
    holds A[l % M][kl * (l // M) ... + kl - 1], kl = K * M / 64 (the AMD Matrix Instruction
    Calculator's register layout of the A and B matrices; B, stored N x K, is read alike). The
    lane's kl elements are one ds_read of kl * elem bytes; ``:OP`` names the instruction a compiler
    issues instead where the target lists one (hardware.Hardware.mfma_reads: gfx950's 8-byte reads,
    ds_read2_b64, ``_compiled``)."""
    match = re.match(_MFMA, text)
    if re.match(r"^mfma-[ab]:(16x16x128|32x32x64)\b", text):
        return _f8f6f4_fp8(spec, text, tile, hardware)
    if not match:
        raise InputError(f"unknown access {spec!r}: the MFMA operand reads are mfma-a:MxNxK or mfma-b:MxNxK with "
                         f"MxNxK one of 16x16x16, 16x16x32, 32x32x8, 32x32x16 (16x16x128, 32x32x64 on --dtype fp4)")
    refuse(spec, hardware, "mfma")
    if hardware.wave_lanes != 64:  # the lane map below is the 64-lane wave's
        raise InputError(f"access {spec!r}: the MFMA operand reads are defined for 64-lane waves, and a "
                         f"{hardware.group} of --arch {hardware.name} has {hardware.wave_lanes} lanes")
    m, _, k = (int(x) for x in match[2].split("x"))
    kl = k * m // 64
    nbytes = kl * tile.elem_bytes
    if nbytes not in (4, 8, 16):
        raise InputError(f"access {spec!r}: {kl} elements of {tile.elem_bytes} B per lane is not one ds_read "
                         f"(4, 8 or 16 B): use --dtype f16/bf16 or fp8 as the instruction takes")
    plain, compiled = f"ds_read_b{8 * nbytes}", dict(hardware.mfma_reads).get(nbytes)
    if match[3] not in (None, plain, compiled):
        also = f" or :{compiled} (what compilers issue for it)" if compiled else ""
        raise InputError(f"access {spec!r}: this read of {nbytes} B per lane is {plain} (the default){also} on "
                         f"--arch {hardware.name}, not {match[3]}")
    if compiled is not None and match[3] == compiled:
        return _compiled(spec, tile, hardware, compiled, m, k, kl)
    rule = instruction_rule(spec, plain, tile, hardware)
    pattern = _lanes_as_instructions(spec, tile, hardware, rule, m, 64 // m, 1, kl, down=True)
    if compiled is None or match[3] is not None:
        return pattern
    other = hardware.rule(compiled)
    assert other is not None, compiled
    form = f"{text.split(':')[0]}:{match[2]}:{compiled}"
    note = (f"{spec.strip()} on --arch {hardware.name} is counted as {rule.op} ({len(rule.phases)} phase(s) of "
            f"{len(rule.phases[0])} lanes, {rule.banks} banks, {rule.confidence}); compilers issue {compiled} for "
            f"it (two K-steps of a lane per instruction, where the layout keeps them a constant distance apart: "
            f"Triton's AMD backend), whose phase rule is inferred ({len(other.phases)} phase(s) of "
            f"{len(other.phases[0])} lane addresses, {other.banks} banks, {other.confidence}): --access {form} "
            f"counts it that way")
    return replace(pattern, warnings=(*pattern.warnings, note))


def _f8f6f4_fp8(spec: str, text: str, tile: Tile, hardware: Hardware) -> Pattern:
    """gfx950's V_MFMA_(SCALE_)F32_32X32X64_F8F6F4 on 8-bit operands, as AMD's ROCm blog loads them
    (docs/hardware.md): lane l reads row l % 32, two 16-byte runs at K elements 16 (l / 32) and 32
    more, two ds_read_b128. Its 4-bit operands are access/subbyte.py's; 16x16x128 on 8-bit operands,
    whose map no source here states, and 6-bit ones are refused."""
    refuse(spec, hardware, "mfma")
    if text.split(":")[1] != "32x32x64" or tile.elem_bytes != 1 or text.count(":") > 1:
        raise InputError(f"access {spec!r}: the f8f6f4 shapes are read here on 4-bit operands (16x16x128, 32x32x64, "
                         f"--dtype fp4) and 8-bit ones as 32x32x64 (--dtype e4m3/e5m2); no source here states the "
                         f"others' lane map: write the read as its ds_read (OP:RxC:MxN:down)")
    if hardware.name != "gfx950":
        raise InputError(f"access {spec!r}: the f8f6f4 MFMAs are CDNA4's: use --arch gfx950")
    rule = instruction_rule(spec, "ds_read_b128", tile, hardware)
    served = hardware.for_rule(rule)
    template: list[list[Lane]] = []
    for run in (0, 32):  # a_reg[i * 16 + j] = A[row][16 (l / 32) + 32 i + j]
        template += served.split_request([(lane % 32, 16 * (lane // 32) + run, 16) for lane in range(64)])
    summary = "32x32x64 fp8 operand: 32 elements a lane, 2 ds_read_b128"
    pattern = tile_pattern(spec, "instruction", template, 32, 64, summary, tile, served)
    return as_instruction(pattern, hardware, rule, len(template) // 2)


def _compiled(spec: str, tile: Tile, hardware: Hardware, op: str, m: int, k: int, kl: int) -> Pattern:
    """The MFMA operand read as the two-address instruction ``op`` a compiler issues for it
    (hardware.Hardware.mfma_reads): lane l reads row l % M at K-chunk l // M for two consecutive
    MFMAs, its second address K elements after its first; one instruction covers M x 2K."""
    rule = instruction_rule(spec, op, tile, hardware)
    assert rule.addresses == 2, op
    check_footprint(spec, m, 2 * k, tile)
    served = hardware.for_rule(rule)
    first = [(lane % m, kl * (lane // m), rule.lane_bytes) for lane in range(hardware.wave_lanes)]
    request = first + [(r, c + k, b) for r, c, b in first]  # every lane's first address, then its second
    template = served.split_request(request, rule.write)
    summary = f"1 {op} of two MFMA K-steps ({len(template)} phases)"
    pattern = tile_pattern(spec, "instruction", template, m, 2 * k, summary, tile, served)
    return as_instruction(pattern, hardware, rule, len(template))


_INSTRUCTION = r"^([a-z0-9_]+):(\d{1,18})x(\d{1,18})(?::(\d{1,18})x(\d{1,18}))?(:down)?(?::w(\d{1,18}))?$"


def _instruction_form(spec: str, text: str, tile: Tile, hardware: Hardware) -> Pattern:
    match = re.match(_INSTRUCTION, text)
    if not match:
        raise InputError(f"unknown access {spec!r}: write an instruction as OP:RxC[:MxN][:down][:wN] (e.g. "
                         f"ds_read_b128:64x1, lds128:32x1:1x8, ds_read_b128:32x1:w4 for 4 waves on gfx1250), or "
                         f"warp:RxC:MxN, ldmatrix.x4, mma-c:m16n8, MxN, row, col")
    rule = instruction_rule(spec, match[1], tile, hardware)
    lr, lc = int(match[2]), int(match[3])
    step = rule.lane_bytes // tile.elem_bytes
    # default: one instruction per lane (a ds_read2 form: its two addresses are consecutive vectors)
    m, n = (int(match[4]), int(match[5])) if match[4] else (1, step * rule.addresses)
    pattern = _lanes_as_instructions(spec, tile, hardware, rule, lr, lc, m, n, down=bool(match[6]))
    return pattern if match[7] is None else with_waves(spec, pattern, int(match[7]), hardware)


def with_waves(spec: str, pattern: Pattern, waves: int, hardware: Hardware) -> Pattern:
    """``OP:RxC[:MxN]:wN``: the instructions issued by N waves of the workgroup together, wave w
    taking the w-th N-th of them in placement order (one per round), counted for LDS partition
    conflicts between waves 2k and 2k + 1 (hardware.LdsPartitions; simulate.partition_conflicts). Only
    on a target with LDS partitions: elsewhere no source says waves contend, and bank conflicts are
    per wave."""
    refusal = hardware.partitions_refusal()
    if refusal is not None:
        raise InputError(f"access {spec!r}: {refusal}")
    assert hardware.lds_partitions is not None
    pair = hardware.lds_partitions.pair
    instructions = pattern.placements // max(1, pattern.instruction_phases)
    if waves < pair or waves % pair or instructions % waves:
        raise InputError(f"access {spec!r}: :w{waves} needs a multiple of {pair} waves (whole pairs) that divides "
                         f"the access's {instructions} instructions over the tile: e.g. :w{pair}")
    return replace(pattern, waves=waves, warnings=(*pattern.warnings, hardware.lds_partitions.warning(hardware.name)))


def _check_wave(spec: str, hardware: Hardware, lr: int, lc: int) -> None:
    """R x C lanes must be the whole warp (NVIDIA, 32) or wave (AMD: 64 on CDNA, 32 on RDNA)."""
    wave = hardware.wave_lanes
    if lr * lc != wave:
        unit = f"a {hardware.group} of --arch {hardware.name}"
        shapes = ", ".join(dict.fromkeys((f"{wave // 8}x8", f"8x{wave // 8}", f"{wave}x1")))  # 8x8 once
        raise InputError(f"access {spec!r}: {unit} has {wave} lanes, but {lr}x{lc} lays out {lr * lc}: "
                         f"use R x C = {wave} (e.g. {shapes})")


def _lanes_as_instructions(spec: str, tile: Tile, hardware: Hardware, rule: Rule, lr: int, lc: int,
                           m: int, n: int, down: bool = False) -> Pattern:
    _check_wave(spec, hardware, lr, lc)
    wave = hardware.wave_lanes
    v, e, k = rule.lane_bytes, tile.elem_bytes, rule.addresses
    if m < 1 or n < 1 or (n * e) % v or (m * n * e // v) % k:
        pairs = f", and M * N * {e} B a multiple of {k * v} B (the addresses of one instruction)" if k > 1 else ""
        raise InputError(f"access {spec!r}: each lane covers M x N elements with M, N >= 1 and N * {e} B a "
                         f"multiple of the instruction's {v} B{pairs}")
    check_footprint(spec, lr * m, lc * n, tile)
    served = hardware.for_rule(rule)
    # :down numbers the lanes down the lane columns (lane l at (l % R, l // R)), e.g. the
    # K-contiguous MFMA operand shapes, where lane l reads row l % M and K-chunk l // M.
    lanes = [(i % lr, i // lr) if down else (i // lc, i % lc) for i in range(wave)]
    template = _block_phases(lanes, m, n, v, e, served, k, rule.write)
    ops = m * n * e // v // k
    summary = f"{lr}x{lc} lanes x {m}x{n} elements, {ops} {rule.op} each"
    pattern = tile_pattern(spec, "instruction", template, lr * m, lc * n, summary, tile, served)
    # (each lane covers its own block, so no two lanes start at one element: never a paired load)
    return as_instruction(pattern, hardware, rule, len(template) // ops)


def _block_phases(lanes: list[tuple[int, int]], m: int, n: int, v: int, e: int,
                  hardware: Hardware, addresses: int = 1, write: bool = False) -> list[list[Lane]]:
    """Lane (a, b) of the wave reads rows a*m .. a*m + m-1, columns b*n .. b*n + n-1, as ``v``-byte
    ops: one request per row of the block and per op in that row, split into the hardware's phases.
    A two-address instruction (ds_read2) takes the lane's vectors two at a time in that order (the
    next vector of the row, or the next row): its request lists every lane's first address, then
    every lane's second (slot l + a * wave, as hardware.Rule.phases number them)."""
    vectors = [(row, op * (v // e)) for row in range(m) for op in range(n * e // v)]
    phases: list[list[Lane]] = []
    for i in range(0, len(vectors), addresses):
        phases += hardware.split_request([(a * m + r, b * n + c, v) for r, c in vectors[i:i + addresses]
                                          for a, b in lanes], write)
    return phases


# --- the forms ----------------------------------------------------------------------------------

_PER_LANE = r"^warp:(\d{1,18})x(\d{1,18}):(\d{1,18})x(\d{1,18})(?:v(\d{1,18}))?$"


def _per_lane(spec: str, text: str, tile: Tile, hardware: Hardware) -> Pattern:
    match = re.match(_PER_LANE, text)
    if not match:
        raise InputError(f"malformed warp access {spec!r}: write warp:RxC:MxN[vB], e.g. warp:4x8:1x8 "
                         f"(4x8 lanes, each reading 1 row x 8 elements)")
    lr, lc, m, n = (int(x) for x in match.groups()[:4])
    _check_wave(spec, hardware, lr, lc)
    wave = hardware.wave_lanes
    if m < 1 or n < 1:
        raise InputError(f"access {spec!r}: each lane reads M x N elements with M, N >= 1")
    e, run = tile.elem_bytes, n * tile.elem_bytes
    if match[5] is not None:
        v = int(match[5])
        if not (is_pow2(v) and e <= v <= MAX_VECTOR_BYTES and run % v == 0):
            raise InputError(f"access {spec!r}: vector width {v} B must be a power of two from the element size "
                             f"({e} B) to 16 B that divides the lane's {run}-byte row")
    else:
        # Like MxN: the widest op that divides the lane's row and keeps every row aligned.
        v = max(e, default_vector_bytes(run, tile.row_length * e))
    read = hardware.read_op(v)
    if read is not None:  # the wave's reads are instructions of the vector width (AMD: ds_read_*), costed as such
        return _lanes_as_instructions(spec, tile, hardware, instruction_rule(spec, read, tile, hardware),
                                      lr, lc, m, n)
    check_footprint(spec, lr * m, lc * n, tile)  # before building a template of that size
    lanes = [(i // lc, i % lc) for i in range(wave)]
    template = _block_phases(lanes, m, n, v, e, hardware)
    ops = m * run // v
    summary = f"{lr}x{lc} lanes x {m}x{n} elements, {ops} op{'s' if ops > 1 else ''} each"  # ops of the vector width
    return tile_pattern(spec, "warp", template, lr * m, lc * n, summary, tile, hardware)


_MATRIX_TOKENS = {"sync", "aligned", "m8n8", "shared", "shared::cta", "b16", "trans"}
_DEFAULT_ARRANGEMENT = {1: (1, 1), 2: (2, 1), 4: (2, 2)}


def _matrix_form(spec: str, name: str) -> tuple[str, int]:
    """(op, matrices) of ``ldmatrix``/``stmatrix`` with one of .x1, .x2, .x4 and optional tokens
    (_MATRIX_TOKENS), or bad input naming the token that is not part of it."""
    op, *tokens = name.split(".")
    counts = [t for t in tokens if re.fullmatch(r"x\d{1,18}", t)]
    unknown = [t for t in tokens if t not in _MATRIX_TOKENS and t not in counts]
    if op not in ("ldmatrix", "stmatrix") or unknown or counts not in (["x1"], ["x2"], ["x4"]):
        what = f" ('.{unknown[0]}' is not part of it)" if unknown else ""
        raise InputError(f"unknown instruction form {spec!r}{what}: write ldmatrix or stmatrix with .x1, .x2 or "
                         f".x4, optionally .trans and :AxB (matrices arranged A x B), e.g. ldmatrix.x4.trans")
    return op, int(counts[0][1:])


def arrangement_of(spec: str, arrangement: str, k: int) -> tuple[int, int]:
    """The ``k`` matrices' arrangement, A x B (down, across): ``:AxB`` as given, else the default."""
    if not arrangement:
        return _DEFAULT_ARRANGEMENT[k]
    shape = re.fullmatch(r"(\d{1,18})x(\d{1,18})", arrangement)
    if not shape or int(shape[1]) * int(shape[2]) != k:
        raise InputError(f"access {spec!r}: arrangement {arrangement!r} must be A x B matrices with "
                         f"A*B = {k} (e.g. :{'x'.join(map(str, _DEFAULT_ARRANGEMENT[k]))})")
    return int(shape[1]), int(shape[2])


def _matrix(spec: str, text: str, tile: Tile, hardware: Hardware) -> Pattern:
    name, _, arrangement = text.partition(":")
    op, k = _matrix_form(spec, name)
    refuse(spec, hardware, op)
    down, across = arrangement_of(spec, arrangement, k)
    height, row_bytes = hardware.matrix_rows, hardware.matrix_row_bytes  # one matrix: one phase
    width = row_bytes // tile.elem_bytes  # elements in one matrix row
    # Lanes 8i..8i+7 give the row addresses of matrix i; .trans moves data between lanes, not addresses.
    template = [[(a * height + j, b * width, row_bytes) for j in range(height)]
                for b in range(across) for a in range(down)]
    summary = f"{k} matri{'x' if k == 1 else 'ces'} of {height} x {width} elements ({down}x{across})"
    return tile_pattern(spec, op, template, down * height, across * width, summary, tile, hardware)


MMA_LANES = 32  # the m16n8 accumulator fragment is defined over one 32-lane warp


_MMA_C = re.compile(r"^mma-c(?::m16n8)?(?:v(\d{1,3}))?$")


def _mma_c(spec: str, text: str, tile: Tile, hardware: Hardware) -> Pattern:
    """The m16n8 accumulator stored from registers: lane l holds c0 c1 at row l/4, columns
    2*(l%4) + {0, 1}, and c2 c3 at row l/4 + 8. Each register pair is one store of 2 elements (the
    default, ``v`` twice the element), or ``v`` one element: each register its own scalar store."""
    match = _MMA_C.match(text)
    if match is None:
        raise InputError(f"unknown instruction form {spec!r}: the MMA accumulator fragment is mma-c:m16n8, "
                         f"optionally vB (bytes a lane stores at once: one or two elements), e.g. mma-c:m16n8v4")
    refuse(spec, hardware, "mma-c")
    e = tile.elem_bytes
    if e not in (2, 4):
        raise InputError(f"access {spec!r}: the m16n8 accumulator holds f16/bf16 (2 B) or f32/i32 (4 B) "
                         f"elements, not {e}-byte ones: use --dtype f16 or f32")
    v = 2 * e if match[1] is None else int(match[1])
    if v not in (e, 2 * e):
        raise InputError(f"access {spec!r}: a lane stores its accumulator {e} B (one element, v{e}) or {2 * e} B "
                         f"(a register pair, v{2 * e}, the default) at a time, not {v} B")
    per = v // e  # elements of one store
    template = []
    for half in (0, 8):  # registers {c0, c1} hold row l/4, {c2, c3} row l/4 + 8
        for first in range(0, 2, per):  # one request per store: the pair, or c(2h), then c(2h + 1)
            template += hardware.split_request(
                [(half + lane // 4, 2 * (lane % 4) + first, v) for lane in range(MMA_LANES)], write=True)
    stores = 4 // per
    summary = f"m16n8 accumulator, {stores} requests"  # the lane width is the table's vector column
    return tile_pattern(spec, "mma-c", template, 16, 8, summary, tile, hardware)


# --- placements ---------------------------------------------------------------------------------


def check_footprint(spec: str, height: int, width: int, tile: Tile) -> None:
    if tile.rows % height or tile.cols % width:
        raise InputError(f"access {spec!r}: the tile ({tile.rows} x {tile.cols}) is not a multiple of its "
                         f"{height} x {width}-element footprint: use rows and cols that are multiples of it")


SMALL_TEMPLATE = 256  # elements read by a template whose phases' distinct bytes are counted with sets (faster there)


def tile_pattern(spec: str, kind: str, template: list[list[Lane]], height: int, width: int, summary: str,
                 tile: Tile, hardware: Hardware) -> Pattern:
    """The template's phases at every aligned position (multiples of height x width) of the tile."""
    check_footprint(spec, height, width, tile)
    widest = max(map(len, template))  # once: per phase it was quadratic in the phases (512 x 1024 u8: 24 s)
    check_size(len(template) * (tile.rows // height) * (tile.cols // width),
               len(template) * (tile.rows // height) * (tile.cols // width) * widest)  # before building
    padded = [phase + [phase[0]] * (widest - len(phase)) for phase in template]
    lanes = np.array(padded, dtype=np.int64)  # (phases, lanes, 3)
    starts_r, starts_c = np.meshgrid(np.arange(0, tile.rows, height), np.arange(0, tile.cols, width),
                                     indexing="ij")
    placements = starts_r.size
    row = (starts_r.reshape(-1, 1, 1) + lanes[None, :, :, 0]).reshape(placements * len(template), -1)
    col = (starts_c.reshape(-1, 1, 1) + lanes[None, :, :, 1]).reshape(row.shape)
    nbytes = np.broadcast_to(lanes[None, :, :, 2], (placements,) + lanes.shape[:2]).reshape(row.shape).copy()
    past = col + nbytes // tile.elem_bytes > tile.cols
    if past.any():
        i = np.argwhere(past)[0]
        r, c, b = int(row[tuple(i)]), int(col[tuple(i)]), int(nbytes[tuple(i)])
        raise InputError(f"access {spec!r}: the {b}-byte vector at ({r}, {c}) runs past the tile's {tile.cols} "
                         f"columns: use a vector width that ends inside the row")
    align = nbytes & -nbytes  # a vector's alignment: its size, or its largest power-of-two factor (b96: 4)
    misaligned = ((row * tile.row_length + col) * tile.elem_bytes) % align != 0
    if misaligned.any():
        i = np.argwhere(misaligned)[0]
        r, c, b = int(row[tuple(i)]), int(col[tuple(i)]), int(nbytes[tuple(i)])
        raise InputError(f"access {spec!r}: the {b}-byte vector at ({r}, {c}) is misaligned (byte "
                         f"{(r * tile.row_length + c) * tile.elem_bytes} is not a multiple of {b & -b}): "
                         f"use a pitch or vector width that keeps every vector aligned")
    # (a set per phase where the template reads few elements: numpy's fixed cost is larger there)
    phase_bytes = most_distinct_bytes(lanes, tile.elem_bytes) if lanes[..., 2].sum() > SMALL_TEMPLATE * tile.elem_bytes \
        else max(distinct_bytes(phase, tile.elem_bytes) for phase in template)
    return Pattern(coset_bits=coset_bits(tile, row, col, nbytes, general=hardware.general_cosets), spec=spec.strip(), kind=kind, rows=height,
                   cols=width, row_stride=1,
                   vector_bytes=int(lanes[..., 2].max()),
                   lower_bound=hardware.lower_bound(phase_bytes),
                   lane_row=row, lane_col=col, lane_bytes=nbytes, phase_bytes=phase_bytes,
                   phases_per_placement=len(template), summary=summary)


def coset_bits(tile: Tile, row: np.ndarray, col: np.ndarray, nbytes: np.ndarray,
               general: bool = False) -> tuple | None:
    """The varying offset bits when every phase is a coset of one subspace spanned by offset bits.

    Then the GF(2) bank matrix (proof.py) decides every phase at once, as for MxN blocks. With a
    power-of-two pitch, a phase's lane offsets x_i are such a coset exactly when the XORs
    x_i ^ x_0 take 2^k distinct values inside a mask of k bits (the same mask for every phase).
    Returns ``(("c", k), ("r", k), ...)`` or None (other pitches, mixed widths, other shapes).
    """
    if not tile.pitch_is_pow2 or np.any(nbytes != nbytes[0, 0]):
        return None
    offsets = row * tile.row_length + col
    diffs = np.sort(offsets ^ offsets[:, :1], axis=1)
    masks = np.bitwise_or.reduce(diffs, axis=1)
    if np.any(masks != masks[0]):
        return None
    distinct = 1 + np.count_nonzero(diffs[:, 1:] != diffs[:, :-1], axis=1)
    mask, pitch_bits = int(masks[0]), tile.row_length.bit_length() - 1
    if np.any(distinct != 1 << mask.bit_count()):
        return coset_span(diffs, distinct, pitch_bits) if general else None
    bits = [i for i in range(mask.bit_length()) if mask >> i & 1]
    return tuple(("c", i) if i < pitch_bits else ("r", i - pitch_bits) for i in bits)


def coset_span(diffs: np.ndarray, distinct: np.ndarray, pitch_bits: int) -> tuple | None:
    """Phases that are cosets of one subspace not spanned by single offset bits (AMD's
    non-contiguous phases, e.g. lanes {0-3, 20-23}: span(l0, l1, l2 ^ l4)): its reduced basis as
    ("x", row mask, col mask) entries, or None. Each phase's XORs must be the whole subspace
    (2^rank distinct values) and every phase must span the same one."""
    spans = set()
    rows = _distinct_rows(diffs)  # placements repeat a few phases' XORs: each reduced once (a sweep's AMD tiles)
    for row, n in zip(diffs[rows].tolist(), distinct[rows].tolist(), strict=True):
        basis = _reduced_basis(row)
        if 1 << len(basis) != n:
            return None
        spans.add(tuple(basis))
    if len(spans) != 1:
        return None
    low = (1 << pitch_bits) - 1
    return tuple(("x", v >> pitch_bits, v & low) for v in spans.pop())


def _distinct_rows(rows: np.ndarray) -> np.ndarray:
    """Indices of rows that include every distinct row of ``rows`` (a 2-D int array): one per value
    of a hash of the row, when every row equals its hash group's (else all of them: exact either way)."""
    weights = (np.arange(1, rows.shape[1] + 1, dtype=np.int64) * np.int64(-0x61C8864680B583EB)) | 1
    _, first, group = np.unique((rows * weights).sum(axis=1), return_index=True, return_inverse=True)
    return first if np.array_equal(rows, rows[first[group]]) else np.arange(rows.shape[0])


def _reduced_basis(vectors: list[int]) -> list[int]:
    """The reduced row echelon basis of span(vectors) over GF(2), highest pivot first (unique)."""
    basis: list[int] = []
    for v in vectors:
        for b in basis:
            v = min(v, v ^ b)
        if v:
            basis = [min(b, b ^ v) for b in basis] + [v]
            basis.sort(reverse=True)
    return basis


def most_distinct_bytes(lanes: np.ndarray, elem_bytes: int) -> int:
    """The most distinct_bytes of one phase, every phase at once: ``lanes`` (phases, lanes, 3), each
    lane (row, col, bytes); a lane repeated in its phase counts once (tile_pattern pads a phase with
    its first lane). Each element a lane reads is a key row * span + col, span past every column; the
    elements past a lane's bytes are -1, not counted."""
    row, col, count = lanes[..., 0], lanes[..., 1], lanes[..., 2] // elem_bytes
    k = np.arange(max(1, int(count.max())))
    span = int(col.max()) + k.size + 1
    keys = np.where(k < count[..., None], (row * span + col)[..., None] + k, -1).reshape(lanes.shape[0], -1)
    keys.sort(axis=1)
    distinct = (keys[:, 0] >= 0) + np.count_nonzero((keys[:, 1:] != keys[:, :-1]) & (keys[:, 1:] >= 0), axis=1)
    return int(distinct.max()) * elem_bytes


def distinct_bytes(lanes: list[Lane], elem_bytes: int) -> int:
    """Bytes a phase reads, counting an element read by several lanes (a broadcast) once."""
    elems = {(r, c + k) for r, c, b in lanes for k in range(b // elem_bytes)}
    return len(elems) * elem_bytes
