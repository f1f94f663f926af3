"""Blackwell's byte forms of ldmatrix and stmatrix (PTX ISA 8.6+, sm_100a/sm_120a), as access forms.

    ldmatrix.m16n16.x1|x2.trans.b8                       a 16 x 16 matrix of bytes per .xN, transposed
    ldmatrix.m16n16.x1|x2.trans.b8x16.b6x16_p32|b4x16_p64     the same of 6-/4-bit data, 16 B per row
    ldmatrix.m8n16.x1|x2|x4.b8x16.b6x16_p32|b4x16_p64    an 8 x 16 matrix of 6-/4-bit data per .xN
    stmatrix.m16n8.x1|x2|x4.trans.b8                     a 16 x 8 matrix of bytes per .xN, stored transposed

(``.sync``, ``.aligned``, ``.shared``/``.shared::cta`` may be written too; ``:AxB`` arranges the
matrices A x B, numbered down the columns first, as the .m8n8 forms do in warp.py.)

What reaches shared memory is the same for all of them: each lane gives the address of one row of
16 bytes. A 16 x 8 byte matrix stored with ``.trans`` is 8 rows of 16 bytes (CuTe's
``SM100_U8x*_STSM_T`` write 8 addresses of 128 bits per matrix, cute/atom/copy_traits_sm100.hpp); a
16 x 16 byte matrix is 16 rows of 16 bytes; a sub-byte row (16 elements of 6 or 4 bits) is stored
padded to 16 bytes (``.b6x16_p32``: 12 bytes of data and 4 of padding; ``.b4x16_p64``: 8 and 8;
PTX ISA 5.5.1.1.1, as TMA writes them). So the tile is the shared-memory image in bytes: one byte per
element (``--dtype u8``, ``e4m3``, or ``b4x16_p64``/``b6x16_p32`` for the padded sub-byte image).

Lane i gives the address of row i of the matrices in order (lanes 16j .. 16j + 15 the 16 rows of
matrix j for .m16n16; 8j .. 8j + 7 the 8 rows of matrix j otherwise: PTX ISA 9.7.14.5.15/16,
"addresses addr0-addr7 correspond to the rows of the first matrix"). Each group of 8 row addresses
(128 bytes) is one phase, as for every ldmatrix/stmatrix form (hardware.py): the PTX ISA says
nothing of the phases of these forms and nothing here is measured, so every such access carries
a warning that its phases are inferred.
"""
from __future__ import annotations

import re

from ..hardware import Hardware
from ..model import InputError, Pattern, Tile
from ..value import replace
from .warp import arrangement_of, refuse, tile_pattern

ROW_BYTES = 16  # every row address of these forms moves 16 bytes of shared memory
PHASE_ROWS = 8  # row addresses served together: 8 x 16 B = one 128-byte wavefront

_OPTIONAL = {"sync", "aligned", "shared", "shared__cta"}
_SUB_BYTE = {"b6x16_p32", "b4x16_p64"}


# (op, shape) -> (matrix rows, the counts it takes, whether .trans is required, the types it takes)
FORMS = {
    ("ldmatrix", "m16n16"): (16, ("x1", "x2"), True, ("b8", "b8x16.b6x16_p32", "b8x16.b4x16_p64")),
    ("ldmatrix", "m8n16"): (8, ("x1", "x2", "x4"), False, ("b8x16.b6x16_p32", "b8x16.b4x16_p64")),
    ("stmatrix", "m16n8"): (8, ("x1", "x2", "x4"), True, ("b8",)),
}
FAMILY = {"ldmatrix": "ldmatrix-b8", "stmatrix": "stmatrix-b8"}
IMPLIED = (1, "u8, e4m3, b4x16_p64, b6x16_p32")  # the element size these forms move (access.defaulted_elem_warning)


def instruction(op: str, shape: str, count: int, trans: bool, typ: str) -> str:
    """The PTX instruction, as the PTX ISA writes it (what a probe kernel assembles)."""
    return f"{op}.sync.aligned.{shape}.x{count}{'.trans' if trans else ''}.shared.{typ}"


def registers(op: str, shape: str, count: int) -> int:
    """32-bit registers the instruction loads or stores: two per .m16n16 matrix, else one."""
    return count * (2 if (op, shape) == ("ldmatrix", "m16n16") else 1)


def _usage(spec: str, why: str) -> InputError:
    return InputError(f"access {spec!r}: {why}; the byte forms are ldmatrix.m16n16.x1|x2.trans.b8 (or "
                      f".b8x16.b6x16_p32, .b8x16.b4x16_p64), ldmatrix.m8n16.x1|x2|x4.b8x16.b6x16_p32 (or "
                      f".b4x16_p64) and stmatrix.m16n8.x1|x2|x4.trans.b8")


def read_form(spec: str) -> tuple[str, str, int, str]:
    """(op, shape, count, arrangement) of a well-formed byte form, checked against the PTX ISA's
    rules (FORMS), or bad input naming what is wrong."""
    text = spec.strip().lower().replace("::", "__")  # .shared::cta: its colons are not the arrangement's
    name, _, arrangement = text.partition(":")
    op, *tokens = name.split(".")
    shapes, counts, types = _sorted_tokens(spec, tokens)
    if shapes == ["m8n8"]:
        raise _usage(spec, f"{op}.m8n8 moves .b16 (write it as {op}.x4 and so on)")
    if len(shapes) != 1 or (op, shapes[0]) not in FORMS:
        raise _usage(spec, f"{op} has no such byte shape" if shapes else "give the shape")
    _check_modifiers(spec, op, shapes[0], counts, tokens.count("trans"), types)
    return op, shapes[0], int(counts[0][1:]), arrangement


def _sorted_tokens(spec: str, tokens: list[str]) -> tuple[list[str], list[str], list[str]]:
    """The form's dotted tokens after the op as (shapes, counts, types), refusing any token that is
    none of these, .trans or an optional one (_OPTIONAL)."""
    shapes = [t for t in tokens if t in ("m16n16", "m8n16", "m16n8", "m8n8")]
    counts = [t for t in tokens if re.fullmatch(r"x\d{1,18}", t)]
    types = [t for t in tokens if t in ("b8", "b8x16", "b16", *_SUB_BYTE)]
    unknown = [t for t in tokens if t not in _OPTIONAL and t not in shapes + counts + types and t != "trans"]
    if unknown:
        raise _usage(spec, f"'.{unknown[0]}' is not part of it")
    return shapes, counts, types


def _check_modifiers(spec: str, op: str, shape: str, counts: list[str], trans: int, types: list[str]) -> None:
    """The count, .trans and type of an (op, shape) of FORMS: exactly as the PTX ISA allows them."""
    _, allowed_counts, needs_trans, allowed_types = FORMS[op, shape]
    if len(counts) != 1 or counts[0] not in allowed_counts:
        raise _usage(spec, f".{shape} takes .{', .'.join(allowed_counts)}")
    if trans != int(needs_trans):
        raise _usage(spec, f"{op}.{shape} {'requires' if needs_trans else 'takes no'} .trans")
    if ".".join(types) not in allowed_types:
        raise _usage(spec, f"{op}.{shape} moves .{' or .'.join(allowed_types)}")


def parse(spec: str, tile: Tile, hardware: Hardware) -> Pattern:
    """The access ``spec`` names, its phases at every placement (warp.py's tile_pattern)."""
    op, shape, k, arrangement = read_form(spec)
    refuse(spec, hardware, FAMILY[op])
    down, across = arrangement_of(spec, arrangement, k)
    rows = FORMS[op, shape][0]
    if ROW_BYTES % tile.elem_bytes:
        raise InputError(f"access {spec!r}: a row of it is {ROW_BYTES} bytes, less than one {tile.elem_bytes}-byte "
                         f"element")
    width = ROW_BYTES // tile.elem_bytes  # elements of one row address
    # lanes in order: matrix j (numbered down the columns first) gives its rows top to bottom; every
    # 8 row addresses are one phase
    template = []
    for b in range(across):
        for a in range(down):
            for first in range(0, rows, PHASE_ROWS):
                template.append([(a * rows + first + i, b * width, ROW_BYTES) for i in range(PHASE_ROWS)])
    what = "matrix" if k == 1 else "matrices"
    summary = f"{k} {what} of {rows} rows x {ROW_BYTES} B ({down}x{across}), {len(template)} phases"
    pattern = tile_pattern(spec, op, template, down * rows, across * width, summary, tile, hardware)
    warning = (f"{hardware.name} {op}.{shape}: unverified (the PTX ISA does not say how these forms are "
               f"served; 8 row addresses of 16 B per phase, as the .m8n8 forms, is inferred)")
    return replace(pattern, warnings=(warning,))
