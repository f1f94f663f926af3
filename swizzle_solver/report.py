"""The answer as data: the JSON document of DESIGN.md section 5, and the evidence behind it.

Everything the rich output shows is read from these dicts, so the terminal and ``--json`` can never
disagree. Every count comes from the simulator's measurements (candidate.Candidate); the GF(2) matrices
are the proof, printed beside them.
"""
from __future__ import annotations

import numpy as np

from . import orient, partitions, simulate
from .candidate import Candidate
from .families import every_solve, record
from .hardware import DEFAULT
from .layout import layout_table
from .model import InputError, Pattern, Problem, Tile
from .proof import BankMatrix, bank_matrix
from .solving import Solution

SCHEMA_VERSION = 1


def problem_json(problem: Problem) -> dict:
    t, b = problem.tile, problem.hardware
    arch = {} if b.name == DEFAULT.name else {"arch": b.name, "wave_lanes": b.wave_lanes, "group": b.group,
                                              "per_instruction": bool(b.rules)}  # the default: as before
    rows, cols = t.logical_shape  # the user's tile; row_length is the stored leading dimension
    packed = {"elem_bits": t.elem_bits} if t.elem_bits else {}  # sub-byte: cols (col order: rows), row_length count packed bytes
    vector = {"scalar_bytes": t.scalar_bytes} if t.scalar_bytes else {}  # a vector type (half2): its scalar
    return {"rows": rows, "cols": cols, "order": t.order, "row_length": t.row_length, "elem_bytes": t.elem_bytes,
            **packed, **vector,
            "banks": b.banks, "bank_bytes": b.bank_bytes, **arch,
            "accesses": [access_json(p) for p in problem.patterns]}


def access_json(p: Pattern) -> dict:
    return {"spec": p.spec, "kind": p.kind, "rows": p.rows, "cols": p.cols, "row_stride": p.row_stride,
            "vector_bytes": p.vector_bytes, "placements": p.placements, "lower_bound": p.instruction_lower_bound,
            "footprint": p.footprint(), "phases_per_placement": p.phases_per_placement,
            **({"waves": p.waves} if p.waves > 1 else {})}  # OP:RxC:wN (gfx1250's LDS partitions)


def problem_warnings(problem: Problem) -> list[str]:
    """The document's top-level ``warnings``: what the answer rests on that the input does not say.
    Each is one sentence; the rich report prints them under the problem."""
    found: list[str] = []
    for p in problem.patterns:  # a block's phase split, then the unverified hardware cells it relies on
        for text in [*_block_split_warning(problem, p), *p.warnings]:  # (hardware.Rule.warning)
            if text not in found:
                found.append(text)
    return found


def _block_split_warning(problem: Problem, p: Pattern) -> list[str]:
    """A block (MxN) that reads more than one wavefront in one placement: the hardware splits such a
    request into phases by the instruction that issues it (ldmatrix's matrices, a vector load's
    quarter- or half-warps), which an MxN spec does not name, and the answer depends on the split."""
    wavefront = problem.hardware.wavefront_bytes
    if p.kind != "block" or p.phase_bytes <= wavefront:
        return []
    return [f"access {p.spec} reads {p.phase_bytes} B in one placement, more than one wavefront ({wavefront} B): "
            f"how the hardware splits it into phases depends on the instruction, and a layout conflict-free under "
            f"the split assumed here (lanes in {'column' if problem.tile.col_major else 'row'}-major order, "
            f"{p.vector_bytes} B each) can conflict under "
            f"another; name the instruction to say it exactly: ldmatrix.x4 (or .x2, .trans, stmatrix), "
            f"warp:RxC:MxN, or --phases FILE"]


def placement_phases(p: Pattern) -> list[list[list[int]]]:
    """The hardware phases of the first placement, each its distinct lanes [row, col, bytes]
    (as the phases of a --phases file; in the user's (r, c) under --order col)."""
    flip = p.order == "col"
    return [[[c, r, b] if flip else [r, c, b] for r, c, b in p.phase_lanes(i)] for i in range(p.phases_per_placement)]


def layout_json(problem: Problem, ranked: Candidate, baseline: Candidate, verdicts: str = "all",
                counters: bool = True, fixes: bool = True) -> dict:
    """One layout's entry. ``verdicts``: "all" (every document read as JSON): its ``tma_mode`` and
    ``expressible_in``, each from the emitters' own snippets (emit.verdicts, remembered by tile,
    hardware and layout); "tma": only ``tma_mode`` (the rich report prints the answer's); "none":
    neither (the rich report's runners-up). The rich report
    never prints the others, and asking every target imports every emitter (start-up). ``counters``:
    each access's profiler counters (cost_json; the rich report prints only the answer's). ``fixes``:
    on a target with LDS partitions, the allocation and the XOR that remove the layout's partition
    conflicts (the answer's; a runner-up gives its counts only)."""
    layout, e = ranked.layout, problem.tile.elem_bytes
    sw = layout.cute_swizzle()
    targets: dict = {}
    if verdicts == "all":
        from .emit import verdicts as targets_say  # (start-up: lazy)

        mode, expressible = targets_say(problem, layout)
        targets = {"tma_mode": mode, "expressible_in": expressible}
    elif verdicts == "tma":
        from .emit import tma_mode

        targets = {"tma_mode": tma_mode(problem, layout)}
    table = layout_table(problem.tile, layout) if counters and problem.hardware.profiler else None
    per_access = [cost_json(problem, r, base, table, counters) for r, base in zip(ranked.results, baseline.results)]
    excess = reported_excess(problem, ranked)
    partitioned = {}
    if partitions.multi_wave(problem):  # gfx1250's LDS partitions: each multi-wave access's count, and the fix
        phys = layout_table(problem.tile, layout)
        for entry, pattern in zip(per_access, problem.patterns):
            count = simulate.partition_conflicts(problem.tile, problem.hardware, pattern, phys)
            if count is not None:
                entry["partition"] = partition_json(problem, count)
        if fixes:
            partitioned = {"partitioned": partitioned_json(problem, partitions.alternative(problem, phys), layout),
                           "partition_xor": partition_xor_json(problem, partitions.xor_alternative(problem, phys),
                                                               layout.expression(problem.tile))}
    return {
        "family": layout.family,
        "name": layout.name,
        "swizzles": layout.swizzles(),
        "cute": sw.name if sw else None,
        "byte_cute": sw.byte_level(e).name if sw else None,
        **targets,
        "expression": orient.expression(problem.tile, layout.expression(problem.tile)),
        "excess_wavefronts": excess,
        "storage_bytes": ranked.storage_bytes,
        **orient.extras(problem.tile, layout.json_extras(problem.tile)),  # what the family adds: XOR terms, C steps, padding's memory
        "per_access": per_access,
        **partitioned,
    }


def partition_json(problem: Problem, count: simulate.PartitionCount) -> dict:
    """An access issued by several waves, on a target with LDS partitions (hardware.LdsPartitions):
    the (pair, round)s whose two waves touch a common partition, of all, and how sure the rule is."""
    parts = problem.hardware.lds_partitions
    assert parts is not None
    return {"waves": count.waves, "pairs": count.pairs, "conflicting_pairs": count.conflicting,
            "partitions_touched": count.partitions_touched, "partition_bytes": parts.partition_bytes,
            "confidence": parts.confidence,
            "not_modelled": "the cost in cycles of a conflict, and whether the two waves of a pair issue in the "
                            "same cycle (a conflict is counted as if they do)"}


def piece_encoding(problem: Problem, layout, piece_rows: int) -> tuple[str, str]:
    """The layout's Triton shared encoding for one piece (``piece_rows`` stored rows), as --emit triton
    writes it for a tile of that shape: (MLIR attribute, Gluon constructor), or a placeholder saying why
    there is none."""
    from .emit import triton as emit_triton  # (start-up: lazy)
    from .value import replace

    piece = Problem(replace(problem.tile, rows=piece_rows), problem.hardware, ())
    try:
        snippet = emit_triton.emit(piece, layout)
    except InputError:  # a layout given for the whole tile (cute: of its shape) has no table of a piece
        return "<no Triton encoding of the piece: see --emit triton>", "<no Gluon layout of the piece>"
    mlir = [line[4:].strip() for line in snippet.code.splitlines() if line.startswith("#   #ttg.")]
    gluon = [line.split(" = ", 1)[1] for line in snippet.code.splitlines() if line.startswith("smem_layout = ")]
    if not (snippet.expressible and mlir and gluon):
        return "<no Triton encoding of the piece: see --emit triton>", "<no Gluon layout of the piece>"
    return mlir[0], gluon[0]


def partitioned_json(problem: Problem, found: partitions.Partitioned | None, layout) -> dict | None:
    """The partitioned allocation (Triton's #ttg.partitioned_shared) that removes the partition
    conflicts of the layout above, with the simulator's bank counts under it; None when the layout has
    none, or no allocation the target can hold removes them. Its partitionLayout is the layout's own
    encoding of one piece (piece_encoding)."""
    if found is None:
        return None
    tile = problem.tile
    dim = 1 if tile.col_major else 0
    inner, inner_gluon = piece_encoding(problem, layout, found.piece_rows)
    return {"num_partitions": found.num_partitions, "num_groups": found.num_groups, "partition_dim": dim,
            "piece_rows": found.piece_rows, "conflicting_pairs": found.conflicting,
            "worst_wavefronts": [int(r.instruction_costs().max()) for r in found.results],
            "excess_wavefronts": max(r.excess for r in found.results),
            "triton": (f"#ttg.partitioned_shared<{{numPartitions = {found.num_partitions}, numGroups = "
                       f"{found.num_groups}, partitionDim = {dim}, partitionLayout = {inner}}}>"),
            "gluon": (f"ttgl.amd.cdna5.PartitionedSharedLayout({found.num_partitions}, {found.num_groups}, {dim}, "
                      f"{inner_gluon})")}


def partition_xor_json(problem: Problem, found: partitions.PartitionXor | None, expression: str | None) -> dict | None:
    """The same buffer with one stored row bit XORed into a partition bit (partitions.xor_alternative):
    the partition conflicts it leaves, the banks the simulator measures under it (unchanged: the bit is
    above the bank bits), and its C expression; None when there is nothing to remove or no such XOR helps."""
    if found is None:
        return None
    tile = problem.tile
    term = f"(((r >> {found.row_bit}) & 1) << {found.offset_bit})"
    text = None if expression is None else f"({expression}) ^ {term}"
    return {"offset_bit": found.offset_bit, "row_bit": found.row_bit, "conflicting_pairs": found.conflicting,
            "worst_wavefronts": [int(r.instruction_costs().max()) for r in found.results],
            "excess_wavefronts": max(r.excess for r in found.results),
            "expression": orient.expression(tile, text)}


def reported_excess(problem: Problem, ranked: Candidate) -> int:
    """A measured layout's excess as the output reports it: per instruction for instruction-level
    accesses (the unit of per_access, cost_json), else per phase; the search ranks by the same
    (simulate.AccessResult.excess)."""
    return ranked.excess


def cost_json(problem: Problem, r: simulate.AccessResult, base: simulate.AccessResult,
              table: np.ndarray | None = None, counters: bool = True) -> dict:
    """One access's cost, per instruction for instruction-level forms (the sum over its phases;
    DESIGN.md section 9), and its ``counter`` in the profiler's words: on a target whose profiler
    counts bank conflicts per instruction (hardware.Hardware.counter: AMD's SQ_LDS_BANK_CONFLICT,
    rocprof) that count for its worst instruction (worst - lower bound: the stall cycles beyond one
    per phase); on one whose profiler names a counter module (hardware.Hardware.profiler: counters.py,
    Nsight Compute's), its per-kernel wavefronts and bank conflicts for one pass over the tile (DESIGN.md section 10) on
    the layout whose element table is ``table``. ``counters`` False: neither (layout_json)."""
    worst, lower = int(r.instruction_costs().max()), r.pattern.instruction_lower_bound
    out = {"spec": r.pattern.spec, "worst_wavefronts": worst, "total_wavefronts": r.total, "lower_bound": lower,
           "baseline_worst_wavefronts": int(base.instruction_costs().max()), "baseline_total_wavefronts": base.total}
    hw = problem.hardware
    if not counters:
        pass
    elif hw.counter is not None:
        out["counter"] = {hw.counter: worst - lower}
    elif hw.profiler and table is not None:  # the profiler's counter module, imported when first asked
        from importlib import import_module

        counter = import_module(hw.profiler).counter(problem, r.pattern, table)
        if counter is not None:
            out["counter"] = counter
    return out




def families_json(solution: Solution) -> list[dict]:
    """Per searched family: did it reach the lower bound, how it was covered, and for a family that
    did not, why (the enumeration bounds or the SMT result) and a witness for its best member."""
    best: dict[str, Candidate] = {}
    for r in [solution.answer] + solution.alternatives:
        best.setdefault(r.layout.family, r)
    return [_family_json(solution.problem, f, best) for f in solution.families]


def _family_json(problem: Problem, f, best: dict[str, Candidate]) -> dict:
    """One family's entry of families_json (``best``: the best measured candidate of each family)."""
    ranked = best.get(f.family)
    entry = {"family": f.family, "method": f.method, "complete": f.complete, "covered": f.covered,
             "reaches_lower_bound": ranked is not None and ranked.conflict_free,
             "best": ranked.layout.name if ranked else None,
             "best_excess_wavefronts": ranked.excess if ranked else None}
    if not f.searched:  # skipped: no member could rank before the answer (solving.cannot_win)
        entry["searched"] = False
    if f.smt is not None:
        entry["smt"] = f.smt
    contains = record(f.family).contains
    if ranked is None and contains and (f.smt or {}).get("result") == "unsat":
        # No model to show: its best member is at least as good as the best of the families it
        # contains (for linear: cute and two-level swizzles), which is the witness given.
        ranked = min((best[k] for k in contains if k in best), key=lambda r: r.excess, default=None)
        if ranked is not None:
            entry["best_known_member"] = ranked.layout.name
    if ranked is not None and not ranked.conflict_free:
        entry["witness"] = _witness(problem, ranked)
    return entry


def _witness(problem: Problem, ranked: Candidate) -> dict:
    """Where a family's best member conflicts: its first access above the lower bound, and a collision there."""
    i = next(i for i, res in enumerate(ranked.results) if res.excess)
    return {"layout": ranked.layout.name, "access": ranked.results[i].pattern.spec,
            "worst_wavefronts": ranked.results[i].instruction_worst, "collision": collision_json(problem, ranked, i)}


def search_json(f) -> dict:
    """A family's search record; ``searched`` only when False (a skipped family), so that the
    documents of searched families keep their shape."""
    return {k: v for k, v in vars(f).items() if k != "searched" or not v}


def matrix_json(m: BankMatrix, tile: Tile | None = None) -> dict:
    """The rank proof's matrix; its column labels in the user's (r, c) of ``tile`` (orient.py)."""
    rows = m.rows()
    reduced, pivots = m.rref()

    def bits(row: int) -> list[int]:
        return [(row >> i) & 1 for i in range(len(m.labels))]

    labels = m.labels if tile is None else [orient.label(tile, x) for x in m.labels]
    return {"varying_bits": labels, "bank_bits": m.row_labels, "matrix": [bits(r) for r in rows],
            "rref": [bits(r) for r in reduced], "pivots": [labels[i] for i in pivots], "rank": m.rank,
            "varying": len(m.labels), "wavefronts": m.wavefronts}


def collision_json(problem: Problem, ranked: Candidate, index: int) -> dict | None:
    """Two lanes of the worst placement whose distinct words share a bank; None when no conflict
    remains (at the lower bound, words must share banks: a pair then would only alarm).

    Where the rank proof applies, the pair comes from it: a kernel vector of the bank matrix
    (proof.BankMatrix.collision) pairs the placement's first lane with the lane it shares a bank
    with, and the simulator's words confirm it. Elsewhere the simulator's words are searched."""
    result = ranked.results[index]
    if result.worst <= result.pattern.lower_bound:
        return None
    tile, hardware = problem.tile, problem.hardware.serving(result.pattern.banks)
    phys = layout_table(tile, ranked.layout)
    lanes = simulate.bank_list(tile, hardware, result.pattern, phys, result.worst_placement)
    matrix = bank_matrix(tile, hardware, result.pattern, ranked.layout.bases(tile))
    d = None if matrix is None else matrix.collision()
    if d is not None:
        (r0, c0, _), words0, _ = lanes[0]
        r1, c1 = divmod((r0 * tile.row_length + c0) ^ d, tile.row_length)
        words1 = next((words for (r, c, _), words, _ in lanes if (r, c) == (r1, c1)), None)
        # the proof's witness, when the simulator confirms it: different words of one bank. It does
        # for every usable layout; one that splits the vectors (not usable, checked as given) maps
        # a vector's elements apart, so the GF(2) view of whole units need not hold: search instead
        if words1 is not None and words0[0] != words1[0] and hardware.bank(words1[0]) == hardware.bank(words0[0]):
            w0, w1 = words0[0], words1[0]  # the first word of each unit: same position, same slot
            return {"bank": hardware.bank(w0), "a": _lane(tile, r0, c0, w0), "b": _lane(tile, r1, c1, w1)}
    # (position, bank) -> (lane, word) first seen; the position counts only for 12-byte lanes, whose
    # k-th dwords compete only with each other (simulate.pattern_costs)
    by_position = result.pattern.vector_bytes & (result.pattern.vector_bytes - 1) != 0
    owner: dict[tuple[int, int], tuple] = {}
    for lane, words, banks in lanes:
        for w, b in zip(words, banks):
            key = (w - words[0] if by_position else 0, b)
            if key in owner and owner[key][1] != w:
                (r0, c0, _), w0 = owner[key]
                return {"bank": b, "a": _lane(tile, r0, c0, w0), "b": _lane(tile, lane[0], lane[1], w)}
            owner.setdefault(key, (lane, w))
    return None


def _lane(tile: Tile, row: int, col: int, word: int) -> dict:
    """A lane of a collision, at the user's (r, c) (orient.py: --order col)."""
    r, c = orient.lane(tile, row, col)
    return {"row": r, "col": c, "word": word}


def evidence_json(problem: Problem, ranked: Candidate) -> dict:
    """DESIGN.md section 3: the rank proof where it applies, and always the exhaustive check."""
    bases = ranked.layout.bases(problem.tile)
    phys = layout_table(problem.tile, ranked.layout)
    accesses = []
    for i, result in enumerate(ranked.results):
        p = result.pattern
        entry = {"spec": p.spec, "placements_checked": p.placements, "worst_wavefronts": result.worst,
                 "lower_bound": p.lower_bound, "worst_placement": {
                     "lanes": [{"row": r, "col": c, "bytes": nb, "banks": banks} if not problem.tile.col_major
                               else {"row": c, "col": r, "bytes": nb, "banks": banks}
                               for (r, c, nb), _, banks in simulate.bank_list(
                                   problem.tile, problem.hardware, p, phys, result.worst_placement)]}}
        matrix = bank_matrix(problem.tile, problem.hardware, p, bases)
        if matrix is not None and matrix.wavefronts != result.worst:  # (issue 39, B7)
            entry["gf2_unavailable"] = ("the layout does not keep the vectors whole, so the GF(2) view of whole "
                                        "units does not describe it: the exhaustive count is the proof")
        elif matrix is not None:
            entry["gf2"] = matrix_json(matrix, problem.tile)
        elif p.vector_bytes & (p.vector_bytes - 1):  # ds_read_b96: say why there is no rank proof
            entry["gf2_unavailable"] = (f"{p.vector_bytes}-byte lanes are not a power of two bytes, so a phase is "
                                        f"not a coset of unit addresses: the exhaustive count is the proof")
        collision = collision_json(problem, ranked, i)
        if collision is not None:
            entry["collision"] = collision
        accesses.append(entry)
    method = "gf2-rank" if all("gf2" in a for a in accesses) else "exhaustive"
    return {"method": method, "layout": ranked.layout.name, "accesses": accesses}


def with_floors(doc: dict, problem: Problem, ranked: Candidate, usable: bool = True) -> dict:
    """Each access's floor (floors.py: the least any layout keeping the vectors whole can reach, when
    above its lower bound; computed only when ``ranked`` leaves a conflict, as none can exist
    otherwise), and whether ``ranked`` meets every floor: then no admissible layout does better."""
    found: list = [None] * len(problem.patterns)
    target = {p: p.lower_bound for p in problem.patterns}
    if not ranked.conflict_free:
        from .floors import floors, targets

        found, target = floors(problem), targets(problem)
    for access, floor in zip(doc["problem"]["accesses"], found):
        access["floor"] = floor.json() if floor else None
    doc["proof"]["optimal_over_all_layouts"] = usable and all(r.worst == target[r.pattern] for r in ranked.results)
    return doc


def solution_json(solution: Solution, terminal: bool = False) -> dict:
    """The document (DESIGN.md section 5). ``terminal``: the one the rich report reads, without the
    emit targets' verdicts it never prints (layout_json's ``verdicts``); the same otherwise."""
    problem = solution.problem
    return with_floors({
        "schema_version": SCHEMA_VERSION,
        "problem": problem_json(problem),
        "warnings": problem_warnings(problem),
        "status": solution.status,
        "answer": layout_json(problem, solution.answer, solution.baseline, "tma" if terminal else "all"),
        "alternatives": [layout_json(problem, r, solution.baseline, "none" if terminal else "all", not terminal,
                                     fixes=False) for r in solution.alternatives],
        "proof": {**evidence_json(problem, solution.answer), "families": families_json(solution),
                  "proven_minimal": solution.unproven is None, "unproven": solution.unproven,
                  "unsearched_pitches": list(solution.unsearched_pitches)},
        "search": {"families": [search_json(f) for f in solution.families], "extended": solution.extended,
                   "extended_reason": (f"no member of {every_solve()} is conflict-free"
                                       if solution.extended else None),
                   "not_extended_reason": (f"the best of {every_solve(' and ')} meets every floor, so no layout of "
                                           "any family leaves fewer wavefronts" if solution.at_floor else None),
                   "timed_out": solution.timed_out,
                   "keep_pitch": solution.keep_pitch,
                   "given_pitch": given_pitch_json(solution),
                   "for": for_json(solution)},
    }, problem, solution.answer)


def short_json(problem: Problem, best: Candidate, baseline: Candidate, why: str, solution: Solution | None = None,
               invalid: str | None = None, checked: bool = False) -> dict:
    """The short document of a run that --timeout's alarm stopped before it printed (overtime.py):
    status "timeout", the best layout known (``best``, measured: ``solution``'s answer when the solve
    had finished; with ``checked``, the --check layout, ``invalid`` saying why it is not usable)
    with its counts, expression and exhaustive check, and ``short_report`` (``why``) saying what it
    leaves out: the runners-up, the families' proof, the floors (null here: not computed), the
    profiler's counters (per_access without ``counter``), the targets' verdicts (``tma_mode`` null, ``expressible_in`` empty: not asked), --emit's code, and
    for --check the minimal layout (null: not searched). Every part is linear in the accesses and
    needs no layout but these two measured."""
    answer = layout_json(problem, best, baseline, "none", counters=False)  # (no pass over the tile re-issued)
    answer.update(tma_mode=None, expressible_in=[])
    proven = solution is not None and solution.unproven is None
    proof: dict = {**evidence_json(problem, best), "optimal_over_all_layouts": False}
    doc: dict = {
        "schema_version": SCHEMA_VERSION,
        "problem": problem_json(problem),
        "warnings": problem_warnings(problem),
        "status": "timeout",
        "short_report": why,
        "answer": answer,
        "alternatives": [],
        "proof": proof,
    }
    for access in doc["problem"]["accesses"]:
        access["floor"] = None
    if checked:
        doc["check"] = {"layout": best.layout.name, "passed": check_passed(best, invalid), "invalid": invalid,
                        "minimal": None}
        return doc
    proof.update(families=[], proven_minimal=proven, unproven=None if proven else (
        solution.unproven if solution is not None and solution.unproven else "the search was cut by --timeout"),
        unsearched_pitches=list(solution.unsearched_pitches) if solution is not None else [])
    doc["search"] = {"families": [search_json(f) for f in solution.families]
                     if solution is not None and solution.table is not None else [],
                     "extended": solution is not None and solution.extended, "extended_reason": None,
                     "not_extended_reason": None, "timed_out": not proven,
                     "keep_pitch": solution is not None and solution.keep_pitch, "given_pitch": None, "for": None}
    return doc


def for_json(solution: Solution) -> dict | None:
    """--for: the targets, whether the answer is expressible in each (false only when no layout
    searched is), and the price of the restriction against the unrestricted answer."""
    if not solution.targets:
        return None
    from .emit import expressible_in

    free, answer = solution.unrestricted, solution.answer
    assert free is not None and free.storage_bytes is not None and answer.storage_bytes is not None
    wanted = solution.targets
    return {"targets": list(wanted),
            "expressible": len(expressible_in(solution.problem, answer.layout, wanted)) == len(wanted),
            "unrestricted": free.layout.name,
            "unrestricted_excess_wavefronts": free.excess,
            "unrestricted_storage_bytes": free.storage_bytes,
            "extra_wavefronts": answer.excess - free.excess,
            "extra_bytes": answer.storage_bytes - free.storage_bytes}


def given_pitch_json(solution: Solution) -> dict | None:
    """When the answer changes the given row length: what the given one needs (its best layout
    found, or None), how many more bytes it takes than the answer, and the families not searched
    whole there that could do better than that best (skipped once a narrower pitch's layout ranked
    first, or cut by the time limit)."""
    if not solution.changes_pitch:
        return None
    tile, given, answer = solution.problem.tile, solution.at_given_pitch, solution.answer
    return {"row_length": tile.row_length, "best": given.layout.name if given else None,
            "family": given.layout.family if given else None,
            "excess_wavefronts": given.excess if given else None,
            "storage_bytes": tile.storage_bytes,
            "extra_bytes": tile.storage_bytes - (answer.storage_bytes or 0),
            "not_searched": list(solution.given_unsearched)}


NOT_USABLE = "not-usable"  # the status of a checked layout that fails the soundness check (soundness.py)


def check_passed(ranked: Candidate, why: str | None) -> bool:
    """--check passes when the layout is usable (why is None) and conflict-free."""
    return why is None and ranked.conflict_free


def check_status(ranked: Candidate, why: str | None) -> str:
    """A checked layout's status: "not-usable" when it is not a bijection onto its storage or splits a
    vector (``why`` says which; its wavefront counts then describe a map no kernel can use), else
    what the simulator measures."""
    return NOT_USABLE if why is not None else ranked.status


def check_json(problem: Problem, ranked: Candidate, baseline: Candidate, why: str | None,
               minimal: str | None = None, terminal: bool = False, hint: str | None = None,
               minimal_unproven: str | None = None, better: str | None = None) -> dict:
    """``minimal``: when the check fails, the minimal conflict-free layout the search finds (or None);
    ``minimal_unproven``: why that (or that none is conflict-free) is not proven (the document has
    ``check.minimal_unproven`` only then, so that the documents of proven answers keep their shape);
    ``better``: when no layout is conflict-free, the search's answer that leaves fewer excess
    wavefronts than the layout checked (``check.better``, only then);
    ``terminal``: as in solution_json; ``hint``: what else the failure means (api.Checked.hint). A
    layout that is not usable gets no code: its answer claims no
    target (``tma_mode`` null, ``expressible_in`` empty) and --emit adds none (api.with_emit)."""
    passed = check_passed(ranked, why)
    answer = layout_json(problem, ranked, baseline, "none" if why is not None else "tma" if terminal else "all")
    if why is not None:
        answer.update(tma_mode=None, expressible_in=[])
    return with_floors({
        "schema_version": SCHEMA_VERSION,
        "problem": problem_json(problem),
        "warnings": problem_warnings(problem),
        "status": check_status(ranked, why),
        "check": {"layout": ranked.layout.name, "passed": passed, "invalid": why, "minimal": minimal,
                  "hint": hint, **({"minimal_unproven": minimal_unproven} if minimal_unproven else {}),
                  **({"better": better} if better else {})},
        "answer": answer,
        "alternatives": [],
        "proof": evidence_json(problem, ranked),
    }, problem, ranked, usable=why is None)

