"""`kernel --fix` (DESIGN.md section 15, "Fix"): per allocation with excess, the least layout that
serves every access the kernel was seen to make of it, and the report recomputed under it.

The allocation is a tile of rows of one wavefront (128 B) of ``e``-byte elements (``e`` the
narrowest lane, at most a bank word): its byte b is element b // e at (row, col) = divmod(b // e,
128 // e). Each counted instance of each instruction touching it becomes its hardware phases (the
phase rule by width, ldmatrix's matrices, paired loads: the same split the count made), each phase
the [row, col, bytes] of its lanes: a ``--phases`` pattern per instruction. The solver answers the
least layout that serves them all (its proof, its code for ``--emit``), and every instruction is
counted again with its lanes' addresses moved where the layout puts them.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..hardware import Hardware
from ..model import MAX_STORAGE_BYTES, InputError, Problem, Tile
from .count import Instances, count
from .emulator import Allocation

WAVEFRONT = 128


def _phases(table: np.ndarray, matrices: int, width: int, store: bool, hw: Hardware) -> list[list[int]]:
    """Each instance's phases as lists of lane indices (as plan.issued splits them)."""
    out = []
    for row in table:
        active = [n for n in range(len(row)) if row[n] >= 0]
        if matrices:
            sets = [list(range(8 * i, 8 * i + 8)) for i in range(matrices)]
        else:
            paired = len(active) == hw.wave_lanes and hw.pairs([(0, int(a)) for a in row], width, store)
            sets = hw.phase_indices(hw.wave_lanes, width, paired)
        out += [[n for n in s if row[n] >= 0] for s in sets if any(row[n] >= 0 for n in s)]
    return out


def _lanes(found: Instances, a: Allocation, e: int, cols: int, hw: Hardware) -> list[list[list[int]]]:
    table = found.table()[~found.unknown]
    k = found.kind
    seen: dict[tuple, list[list[int]]] = {}
    for row in table:
        for phase in _phases(row[None, :], k.matrices, k.width, k.store, hw):
            lanes = []
            for n in phase:
                r, c = divmod((int(row[n]) - a.base) // e, cols)
                lanes.append([r, c, k.width])
            seen.setdefault(tuple(map(tuple, lanes)), lanes)
    return list(seen.values())


def fix_kernel(result, found: dict[int, Instances], hw: Hardware, emit: str | None) -> dict[str, Any]:
    """The fix of every allocation of ``result`` (report.KernelResult) with excess. Each solved
    allocation's name, problem and answer are kept in ``result.solved`` (what ``--html`` draws)."""
    fixes = []
    result.solved = []
    for a in _with_excess(result):
        fixes.append(_fix_allocation(result, a, found, hw, emit))
    lines = [f["summary"] for f in fixes] or ["no allocation has excess: nothing to fix"]
    return {"allocations": fixes, "lines": lines}


def _with_excess(result) -> list[Allocation]:
    out: list[Allocation] = []
    for r in result.rows:
        if r.counted.excess > 0 and r.allocation is not None and r.allocation not in out:
            out.append(r.allocation)
    return out


def _fix_allocation(result, a: Allocation, found: dict[int, Instances], hw: Hardware,
                    emit: str | None) -> dict[str, Any]:
    from ..access.phases_file import phases_pattern
    from ..api import solve
    from .render import short_name

    rows = [r for r in result.rows if r.allocation is a]
    name = short_name(a.name.split(" (")[0])
    dependent = [r.ptx_line for r in rows if r.counted.data_dependent]
    tile = _tile(a, rows, hw)
    if tile is None:
        return _cannot(a, f"{name}: more bytes than a tile the solver takes ({MAX_STORAGE_BYTES})")
    e, cols, height = tile.elem_bytes, tile.cols, tile.rows
    named = [(f"PTX line {r.ptx_line}: {r.ptx}", _lanes(found[r.pc], a, e, cols, hw)) for r in rows]
    patterns = [phases_pattern(n, lanes, tile, hw) for n, lanes in named if lanes]
    try:
        answer = solve(Problem(tile, hw, tuple(patterns)))
    except InputError as err:
        return _cannot(a, f"{name}: no layout can be searched ({err})")
    after = count(found, hw, _remap(answer.layout, tile, a.base))
    result.solved.append((name, answer.problem, answer))
    before_excess = sum(r.counted.excess for r in rows)
    after_excess = sum(after[r.pc].excess for r in rows)
    out: dict[str, Any] = {
        "allocation": name, "tile": {"rows": height, "cols": cols, "elem_bytes": e}, "layout": answer.name,
        "status": answer.status, "expression": answer.expression,
        "storage_bytes": int(answer.layout.storage(tile)) * e, "excess_before": before_excess,
        "excess_after": after_excess,
        "instructions": [{"ptx_line": r.ptx_line, "wavefronts": after[r.pc].wavefronts,
                          "ideal_wavefronts": after[r.pc].ideal, "excess": after[r.pc].excess} for r in rows],
        "data_dependent": dependent, "emit": answer.emit(emit) if emit else None}
    out.update(_evidence(answer))
    out["summary"] = _summary(name, tile, answer, before_excess, after_excess, dependent)
    return out


def _evidence(answer) -> dict[str, Any]:
    """The solve's family, targets and proof, each access's line of it (the full document: a solve
    with --phases of the same lanes)."""
    doc = answer.json()
    proof = doc["proof"]
    keep = ("spec", "placements_checked", "worst_wavefronts", "lower_bound", "rank", "varying_bits")
    return {"family": doc["answer"]["family"], "expressible_in": doc["answer"]["expressible_in"],
            "proof": {"method": proof["method"],
                      "accesses": [{k: a[k] for k in keep if k in a} for a in proof.get("accesses", [])]}}


def _tile(a: Allocation, rows: list, hw: Hardware) -> Tile | None:
    """The allocation as rows of one wavefront of the narrowest lane's elements (at most a word)."""
    e = min(min(r.counted.kind.width for r in rows), hw.bank_bytes)
    size = a.size if not a.dynamic else max(r.counted.hi for r in rows) - a.base
    height = -(-size // WAVEFRONT)
    if height * WAVEFRONT > MAX_STORAGE_BYTES:
        return None
    return Tile(height, WAVEFRONT // e, WAVEFRONT // e, e)


def _summary(name: str, tile: Tile, answer, before: int, after: int, dependent: list[int]) -> str:
    helps = "" if answer.conflict_free else (" (no layout the solver searches serves every access at its ideal: "
                                               "this is the least excess it found)")
    dd = f"; data-dependent at PTX lines {dependent} not included" if dependent else ""
    return (f"{name} as {tile.rows} x {tile.cols} elements of {tile.elem_bytes} B: {answer.name}, excess {before} "
            f"-> {after} wavefronts{helps}{dd}")


def _remap(layout, tile: Tile, base: int):
    """Byte address -> where ``layout`` puts it: the element's physical offset, the same byte in it."""
    e = tile.elem_bytes
    table = layout.phys(tile, np.arange(tile.rows)[:, None], np.arange(tile.cols)[None, :])
    flat = np.broadcast_to(table, (tile.rows, tile.cols)).ravel().astype(np.int64)

    def remap(addresses: np.ndarray) -> np.ndarray:
        off = addresses - base
        inside = (off >= 0) & (off < flat.size * e)
        p = np.clip(off // e, 0, flat.size - 1)
        return np.where(inside, base + flat[p] * e + off % e, addresses)

    return remap


def _cannot(a: Allocation, why: str) -> dict[str, Any]:
    return {"allocation": a.name, "layout": None, "status": "not fixed", "summary": why}
