"""Accesses of a tile of sub-byte elements (``--dtype fp4``, ``e2m1``, ``i4``, ``u4``: two per byte).

The tile is solved as its packed bytes (tile.make_tile with ``elem_bits``: cols / 2 bytes a row,
elem_bytes 1), so every lane reads whole bytes and every layout moves whole bytes. An access is
written in the kernel's elements and read here as the same access of the bytes:

    MxN[:s][vB], warp:RxC:MxN[vB], OP:RxC:MxN    N elements a row -> N / 2 bytes (an odd N would
                                                 read half a byte: bad input); vB is in bytes already
    mma-a/mma-b:m16n8k32, :m16n8k64              the PTX ISA's 4-bit fragments (.s4/.u4 on k32;
                                                 .s4/.u4/.e2m1 on k64), whose registers hold 8
                                                 elements of one row: the 8-bit fragments of K / 2
    row, col, ldmatrix/stmatrix (16-byte rows), cp.async (16-byte chunks), the Blackwell byte forms,
    OP:RxC without a block, --phases and --linear-layout     bytes as they are

    mfma-a/mfma-b:16x16x128, :32x32x64          gfx950's f8f6f4 MFMAs on fp4: lane l reads row l % M,
                                                 16 bytes from byte 16 (l // M): one ds_read_b128
                                                 (ds_read_b128:Mx(64/M):1x16:down of the bytes)

and mma-c (never 4-bit), the other mfma shapes and the CuTe MMA atoms (8 bits and up) are bad input. The pattern keeps the spec as written; its summary says what it reads
in bytes.
"""
from __future__ import annotations

import re
from collections.abc import Callable

from ..hardware import Hardware
from ..model import InputError, Pattern, Tile
from ..value import replace

# PTX ISA 9.7.14.5.10/11 (mma.m16n8k32 .s4/.u4; mma.m16n8k64 .s4/.u4/.e2m1): 4-bit shape -> the
# 8-bit shape whose fragment is the same bytes (a register: 8 elements = 4 bytes of one row)
MMA_4BIT = {"m16n8k32": ("m16n8k16", "s4, u4"), "m16n8k64": ("m16n8k32", "s4, u4, e2m1")}


def _half(spec: str, n: str, elem_bits: int) -> str:
    per = 8 // elem_bits
    if int(n) % per:
        raise InputError(f"access {spec!r}: {n} {elem_bits}-bit elements a row is not a whole number of bytes (a lane "
                         f"reads whole bytes, {per} elements each): use a multiple of {per}")
    return str(int(n) // per)


def byte_spec(spec: str, elem_bits: int) -> tuple[str, str]:
    """(the access of the bytes, what it reads) for an access written in ``elem_bits``-bit elements."""
    text = spec.strip().lower()
    block = re.fullmatch(r"(\d{1,18})x(\d{1,18})((?::\d{1,18})?(?:v\d{1,18})?)", text)
    if block:
        return f"{block[1]}x{_half(spec, block[2], elem_bits)}{block[3]}", "bytes"
    warp = re.fullmatch(r"warp:(\d{1,18}x\d{1,18}):(\d{1,18})x(\d{1,18})((?:v\d{1,18})?)", text)
    if warp:
        return f"warp:{warp[1]}:{warp[2]}x{_half(spec, warp[3], elem_bits)}{warp[4]}", "bytes"
    mma = re.fullmatch(r"mma-([ab]):(m16n8k\d{1,4})((?::k|:mn)?)", text)
    if mma:
        if mma[2] not in MMA_4BIT:
            shapes = "; ".join(f"{shape} on {types}" for shape, (_, types) in MMA_4BIT.items())
            raise InputError(f"access {spec!r}: PTX has no mma.sync.{mma[2]} on {elem_bits}-bit elements; the 4-bit "
                             f"fragment reads are {shapes}")
        return f"mma-{mma[1]}:{MMA_4BIT[mma[2]][0]}{mma[3]}", f"{mma[2]} {MMA_4BIT[mma[2]][1]}"
    if text.startswith("mma-c"):
        raise InputError(f"access {spec!r}: the accumulator is never {elem_bits}-bit (f16 or f32): give its own tile "
                         f"and --dtype")
    if (f4 := re.fullmatch(r"mfma-([ab]):(16x16x128|32x32x64)", text)) is not None:
        m = int(f4[2].split("x")[0])
        return f"ds_read_b128:{m}x{64 // m}:1x16:down", f"{f4[2]} f8f6f4"
    if text.startswith("mfma"):
        raise InputError(f"access {spec!r}: the {elem_bits}-bit MFMA operand reads are gfx950's f8f6f4 shapes, "
                         f"mfma-a:16x16x128 and mfma-a:32x32x64 (mfma-b alike); write any other read as its ds_read, "
                         f"e.g. ds_read_b128:32x2:1x32:down")
    if text.startswith(("sm75_", "sm80_", "sm89_", "mma_atom", "cute::")):
        from .mma_atoms import is_mma_atom

        if is_mma_atom(text):
            raise InputError(f"access {spec!r}: the CuTe MMA atoms read here take 8- to 64-bit operands, and CuTe's "
                             f"4-bit ones (S4, U4) are not forms yet: write the read as the PTX fragment, "
                             f"mma-a:m16n8k64 or mma-a:m16n8k32 (mma-b alike)")
    op = re.fullmatch(r"([a-z0-9_]+):(\d{1,18}x\d{1,18}):(\d{1,18})x(\d{1,18})((?::down)?)", text)
    if op and not text.startswith("warp:"):
        return f"{op[1]}:{op[2]}:{op[3]}x{_half(spec, op[4], elem_bits)}{op[5]}", "bytes"
    return spec, ""


def parse(spec: str, tile: Tile, hardware: Hardware, parse_bytes: Callable[[str, Tile, Hardware], Pattern]
          ) -> Pattern:
    """``spec`` (in elements of ``tile.elem_bits`` bits) as its access of the packed bytes."""
    form, what = byte_spec(spec, tile.elem_bits)
    if what.endswith("f8f6f4"):
        return _f8f6f4(spec, form, what, tile, hardware, parse_bytes)
    try:
        pattern = parse_bytes(form, replace(tile, elem_bits=0), hardware)
    except InputError as err:
        if form == spec:
            raise
        raise InputError(f"{err} (access {spec.strip()!r} of {tile.elem_bits}-bit elements is {form} of the packed "
                         f"bytes, a {tile.rows} x {tile.cols}-byte tile)") from None
    if not what:  # a form of bytes already
        return pattern
    summary = pattern.footprint().replace("elements", "bytes").replace("element", "byte")
    if what != "bytes":  # an MMA fragment: the 4-bit shape it is
        summary = summary.replace(form.split(":")[1], what.split()[0])
    return replace(pattern, spec=spec.strip(), summary=f"{summary} (= {form} of the packed bytes)")


def _f8f6f4(spec: str, form: str, what: str, tile: Tile, hardware: Hardware,
            parse_bytes: Callable[[str, Tile, Hardware], Pattern]) -> Pattern:
    """gfx950's V_MFMA_(SCALE_)F32_16X16X128_F8F6F4 / 32X32X64 on 4-bit operands: lane l reads row l % M,
    32 elements (16 bytes) from element 32 (l // M), one ds_read_b128 (docs/hardware.md cites the
    sources); only the CDNA4 target has them."""
    from .warp import refuse

    refuse(spec.strip(), hardware, "mfma")
    if hardware.name != "gfx950":
        raise InputError(f"access {spec.strip()!r}: the f8f6f4 MFMAs ({what.split()[0]} on 4-bit operands) are "
                         f"CDNA4's: use --arch gfx950")
    pattern = parse_bytes(form, replace(tile, elem_bits=0), hardware)
    return replace(pattern, spec=spec.strip(), summary=f"{what.split()[0]} fp4 operand: 32 elements a lane, 1 "
                                                       f"ds_read_b128 (= {form} of the packed bytes)")
