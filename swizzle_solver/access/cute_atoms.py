"""CuTe copy atoms by name, as ``--access`` (issue 34): each is the access form it issues.

    SM75_U32x{1,2,4}_LDSM_N     ldmatrix.x1 / .x2 / .x4         (thread t addresses 16-byte row t % 8K)
    SM75_U16x{2,4,8}_LDSM_T     ldmatrix.x1 / .x2 / .x4 .trans
    SM90_U32x{1,2,4}_STSM_N     stmatrix.x1 / .x2 / .x4
    SM90_U16x{2,4,8}_STSM_T     stmatrix.x1 / .x2 / .x4 .trans
    SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, SM80_CP_ASYNC_CACHEALWAYS<uint128_t>    cp.async
    UniversalCopy<T>            one T per thread (T: uint8_t .. uint128_t), the warp's lanes along the
                                rows as cp.async's are (access.recipes.cp_async_form): a load, or a
                                store with store: before it

Also written ``cute::NAME`` and ``Copy_Atom<NAME, T>``. The atom's own thread-value layout fixes
which thread addresses which 16-byte row (LDSM, STSM) or how many bits a thread moves (cp.async,
UniversalCopy): tests/test_access_traps.py reads both from CuTe's Copy_Traits headers (the
nvidia-cutlass wheel) and evaluates them with pycute. Where a TiledCopy places the atom's rows in
the tile is the form's placement (the 2x2 arrangement of ldmatrix.x4's matrices, cp.async's lanes
along the rows); a kernel's own placement is its make_tiled_copy(...) (swizzle_solver/tiled.py), or a
warp:, --phases or index: access.
"""
from __future__ import annotations

import re

from ..hardware import Hardware
from ..model import InputError, Pattern, Tile
from ..value import replace

_MATRIX = re.compile(r"^sm(75|90)_u(32|16)x([0-9])_(ldsm|stsm)_(n|t)$")
_TEMPLATE = re.compile(r"^(sm80_cp_async_cacheglobal|sm80_cp_async_cachealways|universalcopy)\s*<\s*(?:cute::)?"
                       r"(uint(8|16|32|64|128)_t)\s*>$")
_BITS = {"uint8_t": 8, "uint16_t": 16, "uint32_t": 32, "uint64_t": 64, "uint128_t": 128}
PREFIXES = ("sm75_", "sm90_u", "sm80_cp_async", "universalcopy", "cute::", "copy_atom")


def is_atom(text: str) -> bool:
    """``text`` (stripped, lower case) names a CuTe copy atom (this module's reader)."""
    return text.startswith(PREFIXES)


def _bare(text: str) -> str:
    """NAME of ``cute::NAME`` and ``Copy_Atom<NAME, T>`` (lower case)."""
    text = re.sub(r"\s+", " ", text.strip())
    m = re.fullmatch(r"(?:cute::)?copy_atom\s*<\s*(.+?)\s*,\s*[\w:]+\s*>", text)
    if m:
        text = m[1]
    return text.removeprefix("cute::").strip()


def form_of(spec: str, tile: Tile) -> str:
    """The access form the atom issues (a bad input line for an atom this reader does not know)."""
    name = _bare(spec.lower())
    m = _MATRIX.match(name)
    if m:
        arch, unit, count, op, major = m.groups()
        k = int(count) // (1 if unit == "32" else 2)  # U32x4 and U16x8: 4 matrices of 8 x 16 bytes
        if k not in (1, 2, 4) or (op == "ldsm") != (arch == "75") or (unit == "16") != (major == "t"):
            raise _unknown(spec)
        return f"{'ldmatrix' if op == 'ldsm' else 'stmatrix'}.x{k}{'.trans' if major == 't' else ''}"
    m = _TEMPLATE.match(name)
    if m is None:
        raise _unknown(spec)
    nbytes = _BITS[m[2]] // 8
    if m[1].startswith("sm80_cp_async"):
        if nbytes != 16:
            raise InputError(f"access {spec.strip()!r}: cp.async of {nbytes} bytes per thread is not a form yet: "
                             f"write it as store:warp:RxC:1xN v{nbytes} (lanes along the rows), or use uint128_t")
        return "cp.async"
    from .recipes import cp_async_form

    if nbytes < tile.elem_bytes:
        raise InputError(f"access {spec.strip()!r}: {m[2]} is narrower than one {tile.elem_bytes}-byte element")
    return cp_async_form(spec.strip(), tile, nbytes)


def _unknown(spec: str) -> InputError:
    return InputError(f"access {spec.strip()!r}: not a CuTe copy atom of this reader: SM75_U32x{{1,2,4}}_LDSM_N, "
                      f"SM75_U16x{{2,4,8}}_LDSM_T, SM90_U32x{{1,2,4}}_STSM_N, SM90_U16x{{2,4,8}}_STSM_T, "
                      f"SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, UniversalCopy<uint32_t/uint64_t/uint128_t>")


def parse(spec: str, tile: Tile, hardware: Hardware, parse_form) -> Pattern:
    """The atom's form compiled by ``parse_form`` (access.parse_access), under the atom's name."""
    form = form_of(spec, tile)
    pattern = parse_form(form, tile, hardware)
    said = pattern.footprint()
    return replace(pattern, spec=spec.strip(), summary=f"= {form}{' ' if said.startswith('= ') else ': '}{said}")
