"""The tile and the hardware from the command line's numbers: element types, validation in CLI words.

Every check here is worded for the option a user typed (``--rows``, ``--dtype``, ``--banks``), so a
bad value ends as one line naming the option and the fix (exit code 2).
"""
from __future__ import annotations

import re

from ..hardware import DEFAULT, Hardware, target, target_names
from ..model import MAX_STORAGE_BYTES, MAX_VECTOR_BYTES, InputError, Tile, is_pow2
from ..value import replace

DTYPES: dict[str, int] = {
    "f64": 8,
    "f32": 4, "tf32": 4, "i32": 4, "u32": 4,
    "f16": 2, "bf16": 2, "i16": 2,
    "f8": 1, "e4m3": 1, "e5m2": 1, "i8": 1, "u8": 1,
    # 4- and 6-bit data as TMA unpacks it into shared memory (PTX ISA 5.5.1.1.1): 16 elements padded to
    # 16 bytes, so the tile is that image, one byte per element (what ldmatrix's .b4x16_p64/.b6x16_p32 read)
    "b4x16_p64": 1, "b6x16_p32": 1,
}
# The same types as PyTorch, Triton, CUTLASS and Mojo spell them. A prefix such as `torch.`, `tl.` or
# `cutlass::` and C++'s `_t` are dropped first (half_t, bfloat16_t, float_e4m3_t, int8_t).
DTYPE_ALIASES: dict[str, str] = {
    "fp64": "f64", "float64": "f64", "double": "f64",
    "fp32": "f32", "float32": "f32", "float": "f32", "tfloat32": "tf32", "int32": "i32", "uint32": "u32",
    "fp16": "f16", "float16": "f16", "half": "f16", "bfloat16": "bf16", "int16": "i16",
    "fp8": "f8", "e4m3fn": "e4m3", "float8_e4m3fn": "e4m3", "fp8e4nv": "e4m3", "float8e4nv": "e4m3",
    "float_e4m3": "e4m3", "float8_e5m2": "e5m2", "fp8e5": "e5m2", "float8e5": "e5m2", "float_e5m2": "e5m2",
    "float8_e4m3fnuz": "e4m3", "float8_e5m2fnuz": "e5m2", "fp8e4b15": "f8", "float8e4b15": "f8",
    "int8": "i8", "uint8": "u8",
    "16u4_align16b": "b4x16_p64", "16u6_align16b": "b6x16_p32",  # cuda.h's CU_TENSOR_MAP_DATA_TYPE_ names
    "float4_e2m1": "e2m1", "float4_e2m1fn": "e2m1", "float_e2m1": "e2m1", "e2m1fn": "e2m1", "mxfp4": "e2m1",
    "nvfp4": "e2m1", "int4": "i4", "int4b": "i4", "s4": "i4", "uint4": "u4", "uint4b": "u4",
}
# Elements smaller than a byte, packed two to a byte (bits per element; DESIGN.md section 10): the tile
# is solved as its packed bytes (access/subbyte.py), so that every lane, layout and line of code
# addresses whole bytes. Packed 6-bit data (4 elements in 3 bytes) does not fit: an element
# straddles two bytes and no power-of-two vector holds whole elements (TMA's padded image,
# b6x16_p32, does: one byte per element).
SUB_BYTE: dict[str, int] = {"fp4": 4, "e2m1": 4, "i4": 4, "u4": 4}
# CUDA's vector types spelled like a 4-bit type (int4 = four ints, 16 bytes): refused, not guessed; the
# prefixed spellings (cutlass::int4b_t, torch.int4) stay 4-bit
_CUDA_VECTORS = {"int4", "uint4"}
# CUDA's built-in vector types (CUDA C++ Programming Guide, "Built-in Vector Types"; cuda_fp16.h's
# half2, cuda_bf16.h's __nv_bfloat162) and CUTLASS's: a tile of them is a tile of elements of the
# vector's bytes, made of lanes of the scalar (access/vector_dtype.py). int4 and uint4 are not here:
# they are refused as ambiguous above (CUTLASS's int4b_t, torch.int4 are 4-bit).
VECTOR_DTYPES: dict[str, tuple[str, int]] = {
    **dict.fromkeys(("half2", "__half2", "nv_half2", "f16x2"), ("f16", 2)),
    **dict.fromkeys(("__nv_bfloat162", "nv_bfloat162", "bfloat162", "bf16x2"), ("bf16", 2)),
    "float2": ("f32", 2), "float4": ("f32", 4), "double2": ("f64", 2),
    "int2": ("i32", 2), "uint2": ("u32", 2),
    "short2": ("i16", 2), "ushort2": ("i16", 2), "short4": ("i16", 4), "ushort4": ("i16", 4),
    "char2": ("i8", 2), "uchar2": ("u8", 2), "char4": ("i8", 4), "uchar4": ("u8", 4),
}
_PACKED_6BIT = {"fp6", "e2m3", "e3m2", "float6_e2m3fn", "float6_e3m2fn", "float_e2m3", "float_e3m2"}

ORDERS = ("row", "col")


def make_tile(rows: int, cols: int, row_length: int | None = None, elem_bytes: int = 4, order: str = "row",
              elem_bits: int = 0, scalar_bytes: int = 0) -> Tile:
    """The stored tile of the user's rows x cols tile (model.Tile), checked: under ``order="col"``
    (--order col) its transpose, with ``row_length`` the leading dimension (elements between
    consecutive columns, >= rows; default rows). ``elem_bits`` (4: SUB_BYTE): ``cols`` and
    ``row_length`` count those elements, and the tile is their packed bytes (cols * elem_bits / 8 a
    row, elem_bytes 1)."""
    if elem_bits:
        return _packed_tile(rows, cols, row_length, elem_bits, order)
    for name, value in (("rows", rows), ("cols", cols), ("elem-bytes", elem_bytes)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise InputError(f"--{name} must be a positive integer, got {value!r}")
    if order not in ORDERS:
        raise InputError(f"--order {order!r} is not a storage order: use row (row-major, the default) or col "
                         f"(column-major: CuTe's M-major atoms, Triton's order = [0, 1])")
    if order == "col":
        rows, cols = cols, rows  # stored: one storage row per column of the tile
    row_length = _checked_pitch(cols if row_length is None else row_length, cols, order)
    if not is_pow2(elem_bytes) or elem_bytes > MAX_VECTOR_BYTES:
        raise InputError(f"--elem-bytes {elem_bytes} is not a power of two from 1 to 16: use 1, 2, 4 or 8 "
                         f"(or --dtype)")
    tile = Tile(rows, cols, row_length, elem_bytes, order, 0, scalar_bytes if scalar_bytes != elem_bytes else 0)
    if tile.storage_bytes > MAX_STORAGE_BYTES:
        raise InputError(f"tile storage {tile.storage_bytes} B (rows x row-length x elem-bytes) is above the "
                         f"{MAX_STORAGE_BYTES // 1024} KiB limit: analyse one shared-memory tile, not a whole buffer")
    return tile


def _checked_pitch(row_length: int, cols: int, order: str) -> int:
    """The stored pitch, at least a stored row (``cols``: under --order col, the user's rows)."""
    if not isinstance(row_length, int) or isinstance(row_length, bool) or row_length < cols:
        if order == "col":
            raise InputError(f"--row-length {row_length!r} is below --rows {cols}: under --order col the pitch is "
                             f"the column length (the leading dimension), an integer >= rows")
        raise InputError(f"--row-length {row_length!r} is below --cols {cols}: the pitch must be an "
                         f"integer >= cols (a larger pitch is padding)")
    return row_length


def _packed_tile(rows: int, cols: int, row_length: int | None, elem_bits: int, order: str = "row") -> Tile:
    """The packed bytes of a tile of ``elem_bits``-bit elements: packing runs along the contiguous
    dimension, a row under row order (cols and row_length count elements: / per), a column under
    col order (rows and the column length: / per; the stored tile is then the transpose of the
    bytes, packed along its rows, as under row order)."""
    per = 8 // elem_bits  # elements a byte holds
    packed = "rows" if order == "col" else "cols"
    for name, value in ((packed, rows if order == "col" else cols), ("row-length", row_length)):
        if isinstance(value, int) and not isinstance(value, bool) and value % per:
            run = "a column" if order == "col" else "a row"
            raise InputError(f"--{name} {value} of {elem_bits}-bit elements is not a whole number of bytes: use a "
                             f"multiple of {per} (the tile is solved as its packed bytes, {per} elements a byte "
                             f"along {run})")

    def bytes_of(value):
        return value // per if isinstance(value, int) and not isinstance(value, bool) else value

    if order == "col":
        tile = make_tile(bytes_of(rows), cols, bytes_of(row_length), 1, order)
    else:
        tile = make_tile(rows, bytes_of(cols), bytes_of(row_length), 1, order)
    return replace(tile, elem_bits=elem_bits)


def find_target(arch: str) -> Hardware:
    """The ``--arch`` target by name or alias (hardware.TARGETS, hardware.ALIASES)."""
    found = target(arch) if isinstance(arch, str) else None
    if found is None:
        raise InputError(f"unknown --arch {arch!r}: use one of {target_names()} "
                         f"(or an alias: ampere, h100, blackwell, rtx50, cdna3, mi300x, mi355x, gfx1100, ...)")
    return found


def make_hardware(banks: int = DEFAULT.banks, bank_bytes: int = DEFAULT.bank_bytes,
                  target: Hardware = DEFAULT) -> Hardware:
    """``target`` with the bank geometry of ``--banks`` / ``--bank-bytes``, checked."""
    for name, value in (("banks", banks), ("bank-bytes", bank_bytes)):
        if not isinstance(value, int) or isinstance(value, bool) or not is_pow2(value):
            raise InputError(f"--{name} must be a power of two (e.g. 32 banks of 4 bytes), got {value!r}")
    if banks > 1024 or bank_bytes > 64:
        raise InputError(f"--banks {banks} x --bank-bytes {bank_bytes} is not a shared-memory bank model: "
                         f"use at most 1024 banks of at most 64 bytes")
    return target.with_banks(banks, bank_bytes)

def _canonical(dtype: str) -> str:
    name = re.sub(r"^(torch|tl|triton\.language|cutlass|cute|np|numpy|dtype)(\.|::)", "", dtype.strip().lower())
    name = name.removesuffix("_t")
    return DTYPE_ALIASES.get(name, name)


def dtype_bytes(dtype: str) -> int | None:
    """Bytes of a named element type (a DTYPES name or an alias; a SUB_BYTE type: 1, its packed
    byte; a VECTOR_DTYPES type: the vector's), or None if unknown."""
    name = _canonical(dtype)
    if name in VECTOR_DTYPES:
        scalar, lanes = VECTOR_DTYPES[name]
        return DTYPES[scalar] * lanes
    return 1 if name in SUB_BYTE else DTYPES.get(name)


def scalar_bytes_of(dtype: str | None) -> int:
    """Bytes of the scalar of a vector element type (2 for half2, 4 for float4); 0 for any other."""
    if dtype is None or dtype.strip().lower() in _CUDA_VECTORS:
        return 0
    found = VECTOR_DTYPES.get(_canonical(dtype))
    return DTYPES[found[0]] if found else 0


def elem_bits_of(dtype: str | None) -> int:
    """Bits of a SUB_BYTE element type named by ``dtype`` (4 for fp4, e2m1, i4, u4); 0 for any other
    (whole bytes). Packed 6-bit types are bad input saying why."""
    if dtype is None:
        return 0
    if dtype.strip().lower() in _CUDA_VECTORS:
        raise InputError(f"--dtype {dtype} is ambiguous: CUDA's {dtype.strip()} is a vector of four 32-bit integers "
                         f"(16 bytes), CUTLASS's int4b_t a 4-bit integer: write i4 (or s4, int4b, u4, fp4) for 4-bit "
                         f"elements, or --elem-bytes 16 for the vector")
    name = _canonical(dtype)
    if name in _PACKED_6BIT:
        raise InputError(f"--dtype {dtype}: packed 6-bit elements (4 in 3 bytes) straddle bytes, which no "
                         f"power-of-two vector holds whole: not modelled; for the padded image TMA writes (16 "
                         f"elements in 16 bytes, one byte each) use --dtype b6x16_p32")
    return SUB_BYTE.get(name, 0)

DEFAULT_ELEM_BYTES = 4  # one element per bank word; access.defaulted_elem_warning says when an access disagrees


def elem_bytes_of(dtype: str | None, elem_bytes: int | None) -> int:
    """Resolve --dtype / --elem-bytes (default 4 bytes: one element per bank word)."""
    if dtype is None:
        return DEFAULT_ELEM_BYTES if elem_bytes is None else elem_bytes
    elem_bits_of(dtype)  # packed 6-bit types: bad input saying why
    size = dtype_bytes(dtype)
    if size is None:
        names = ", ".join([*DTYPES, *SUB_BYTE, "half2", "__nv_bfloat162", "float2", "float4", "uint2", "char4"])
        raise InputError(f"unknown --dtype {dtype!r}: use one of {names} (or fp16, bfloat16, float32, ...), "
                         f"or --elem-bytes")
    if elem_bytes is not None and elem_bytes != size:
        raise InputError(f"--dtype {dtype} and --elem-bytes {elem_bytes} disagree: give only one")
    return size
