"""Explicit phases (`--phases FILE`, DESIGN.md section 1): patterns the grammar cannot say.

A file (TOML, or JSON with the same structure) lists patterns, each with a name and the complete
list of its phases; a phase is a list of lane accesses ``[row, col, bytes]``. The listed phases are
the placements: nothing is translated.

    [[pattern]]
    name = "main diagonal"
    phases = [ [[0, 0, 4], [1, 1, 4], [2, 2, 4]] ]
"""
from __future__ import annotations

import numpy as np

from ..hardware import Hardware
from ..model import MAX_VECTOR_BYTES, InputError, Pattern, Tile, is_pow2
from .inputfile import load_json, load_toml, printable, read_text
from .limits import check_count, check_size
from .warp import as_instruction, distinct_bytes, instruction_rule, other_reading, tile_pattern

MAX_LANES = 1024  # per phase; a warp phase has at most 32


def load_phases(path: str, tile: Tile, hardware: Hardware) -> list[Pattern]:
    where = f"phases file {printable(path)}"
    text = read_text(path, "phases file")
    doc = load_json(text, where) if path.lower().endswith(".json") else load_toml(text, where)
    patterns = doc.get("pattern", []) if isinstance(doc, dict) else None
    instructions = doc.get("instruction", []) if isinstance(doc, dict) else None
    if (not isinstance(patterns, list) or not isinstance(instructions, list)
            or not (patterns or instructions)):
        raise InputError(f"{where} has no patterns: write [[pattern]] tables with name and phases, or "
                         f"[[instruction]] tables with name, op and lanes")
    check_count(len(patterns) + len(instructions))
    if tile.col_major:  # --order col: lanes name the tile's (r, c), stored at (c, r); bytes run down the column
        patterns, instructions = _transposed(patterns, 3), _transposed(instructions, 2)
    return ([_pattern(p, i, printable(path), tile, hardware) for i, p in enumerate(patterns)]
            + [q for i, p in enumerate(instructions) for q in _instructions(p, i, printable(path), tile, hardware)])


def _transposed(entries: list, width: int) -> list:
    """Each entry's lanes with (row, col) swapped: ``phases`` lanes [r, c, bytes] (width 3), an
    instruction's ``lanes`` [r, c] or [r, c, r2, c2] (width 2); anything malformed is left for the
    checks that word it."""
    def swap(lane):
        if not isinstance(lane, list) or len(lane) % width:
            return lane
        out = list(lane)
        for k in range(0, len(lane) - 1, width):
            out[k], out[k + 1] = lane[k + 1], lane[k]
        return out

    out = []
    for entry in entries:
        if isinstance(entry, dict) and isinstance(entry.get("phases"), list):
            entry = {**entry, "phases": [[swap(x) for x in ph] if isinstance(ph, list) else ph
                                         for ph in entry["phases"]]}
        if isinstance(entry, dict) and isinstance(entry.get("lanes"), list):
            entry = {**entry, "lanes": [swap(x) for x in entry["lanes"]]}
        out.append(entry)
    return out


def _instructions(p, i: int, path: str, tile: Tile, hardware: Hardware) -> list[Pattern]:
    """One [[instruction]], and where its cell is disputed the same under the other reading."""
    first = _instruction(p, i, path, tile, hardware)
    return [first] + other_reading(first, lambda hw: _instruction(p, i, path, tile, hw), hardware)


def _instruction(p, i: int, path: str, tile: Tile, hardware: Hardware) -> Pattern:
    """One [[instruction]]: op and the (row, col) of the first element of each lane of the wave,
    split into the (arch, op) phases; one placement, as given (DESIGN.md section 9)."""
    where = f"phases file {path}, instruction #{i + 1}"
    if not isinstance(p, dict) or not isinstance(p.get("name"), str) or not p["name"].strip():
        raise InputError(f"{where}: every instruction needs name = \"...\", op = \"...\" and lanes = [[row, col], ...]")
    where = f"phases file {path}, instruction {p['name']!r}"
    op, lanes = p.get("op"), p.get("lanes")
    if not isinstance(op, str):
        raise InputError(f"{where}: op must be an instruction name, e.g. op = \"ds_read_b128\"")
    rule = instruction_rule(where, op, tile, hardware)
    k = rule.addresses
    lanes = _checked_lanes(lanes, k, where, tile, hardware)
    served = hardware.for_rule(rule)
    # a two-address op: every lane's first address, then every lane's second (hardware.Rule.addresses)
    # a paired load (lanes repeating in pairs, hardware.Hardware.pairs) as its merged phases: decided
    # on the lanes' elements, so the same under every layout
    request = [(x[2 * a], x[2 * a + 1], rule.lane_bytes) for a in range(k) for x in lanes]
    template = served.split_request(request, rule.write)
    paired = ", lane pairs merged" if served.pairs([(r, c) for r, c, _ in request], rule.lane_bytes, rule.write) else ""
    pattern = tile_pattern(p["name"], "instruction", template, tile.rows, tile.cols,
                           f"1 {rule.op} ({len(template)} phase{'s' if len(template) > 1 else ''}{paired})", tile, served)
    return as_instruction(pattern, hardware, rule, len(template))


def _checked_lanes(lanes, k: int, where: str, tile: Tile, hardware: Hardware) -> list[list[int]]:
    """An instruction's ``lanes``: one entry per lane of the wave, each the (row, col) of its ``k``
    addresses, every one inside the tile."""
    wave = hardware.wave_lanes
    if not isinstance(lanes, list) or len(lanes) != wave or not all(_addresses(x, k) for x in lanes):
        entry = "[row, col]" if k == 1 else "[row, col, row2, col2] (its two addresses)"
        raise InputError(f"{where}: lanes must list {entry} for each of the {wave} lanes of a {hardware.name} "
                         f"{hardware.group}, lane 0 first")
    for x in lanes:
        for r, c in zip(x[::2], x[1::2], strict=True):
            if not (0 <= r < tile.rows and 0 <= c < tile.cols):
                raise InputError(f"{where}: lane start ({r}, {c}) is outside the {tile.rows} x {tile.cols} tile")
    return lanes


def _addresses(x, k: int) -> bool:
    """Whether ``x`` is a lane's entry of ``k`` addresses: 2k integers."""
    return isinstance(x, list) and len(x) == 2 * k and all(_is_int(v) for v in x)

def _pattern(p, i: int, path: str, tile: Tile, hardware: Hardware) -> Pattern:
    where = f"phases file {path}, pattern #{i + 1}"
    if not isinstance(p, dict) or not isinstance(p.get("name"), str) or not p["name"].strip():
        raise InputError(f"{where}: every pattern needs a name = \"...\" and phases = [...]")
    where = f"phases file {path}, pattern {p['name']!r}"
    phases = p.get("phases")
    if not isinstance(phases, list) or not phases:
        raise InputError(f"{where}: phases must be a non-empty list of phases, each a list of [row, col, bytes]")
    check_size(len(phases), len(phases))
    lanes = [_phase(ph, j, where, tile) for j, ph in enumerate(phases)]
    width = max(len(ph) for ph in lanes)
    check_size(len(lanes), len(lanes) * width)  # before the padded arrays are built
    # Pad shorter phases by repeating their first lane: the same words, no cost (model.Pattern).
    padded = np.array([ph + [ph[0]] * (width - len(ph)) for ph in lanes], dtype=np.int64)
    phase_bytes = max(distinct_bytes(ph, tile.elem_bytes) for ph in lanes)
    largest = max(lanes, key=lambda ph: distinct_bytes(ph, tile.elem_bytes))
    rows_used = sorted({r for r, _, _ in largest})
    return Pattern(spec=printable(p["name"].strip()), kind="phases", rows=len(rows_used),
                   cols=max(sum(b for r2, _, b in set(largest) if r2 == r) for r in rows_used) // tile.elem_bytes,
                   row_stride=1, vector_bytes=int(padded[..., 2].max()),
                   lower_bound=hardware.lower_bound(phase_bytes),
                   lane_row=padded[..., 0].copy(), lane_col=padded[..., 1].copy(),
                   lane_bytes=padded[..., 2].copy(), phase_bytes=phase_bytes)


def _phase(ph, j: int, where: str, tile: Tile) -> list[tuple[int, int, int]]:
    if not isinstance(ph, list) or not ph:
        raise InputError(f"{where}, phase {j}: a phase is a non-empty list of lanes [row, col, bytes]")
    if len(ph) > MAX_LANES:
        raise InputError(f"{where}, phase {j}: {len(ph)} lanes is more than {MAX_LANES}: split the phase")
    return [_lane(lane, k, f"{where}, phase {j}", tile) for k, lane in enumerate(ph)]


def _is_int(x) -> bool:
    """An integer of TOML's or JSON's (true and false are not)."""
    return isinstance(x, int) and not isinstance(x, bool)


def _lane(lane, k: int, where: str, tile: Tile) -> tuple[int, int, int]:
    """Lane #k+1 of a phase, [row, col, bytes], checked: a vector of a power of two bytes inside the
    tile, aligned to its width (as a load of that width must be)."""
    if not isinstance(lane, list) or len(lane) != 3 or not all(_is_int(x) for x in lane):
        raise InputError(f"{where}: lane #{k + 1} is not [row, col, bytes] of integers")
    r, c, b = lane
    e = tile.elem_bytes
    if not (is_pow2(b) and e <= b <= MAX_VECTOR_BYTES):
        raise InputError(f"{where}: lane {lane}: bytes must be a power of two from the element "
                         f"size ({e}) to 16")
    n = b // e
    if not (0 <= r < tile.rows and c >= 0 and c + n <= tile.cols):
        raise InputError(f"{where}: lane {lane} is outside the {tile.rows} x {tile.cols} tile")
    if ((r * tile.row_length + c) * e) % b:
        raise InputError(f"{where}: lane {lane} is misaligned: "
                         f"{'an' if b == 8 else 'a'} {b}-byte vector must start at a "
                         f"multiple of {b} bytes (row {r} starts at byte {r * tile.row_length * e})")
    return (r, c, b)


def phases_pattern(name: str, phases: list[list[list[int]]], tile: Tile, hardware: Hardware) -> Pattern:
    """One [[pattern]] given in code (name and phases of [row, col, bytes] lanes), checked as a
    phases file's (swizzle-solve kernel --fix: the lanes a kernel's instruction was seen to read)."""
    return _pattern({"name": name, "phases": phases}, 0, "(kernel)", tile, hardware)
