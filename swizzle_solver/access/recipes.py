"""Access recipes under the words kernel authors type (DESIGN.md section 10, "More access forms").

    cp.async (.cg, .ca)    a warp's 16-byte global-to-shared copies of the tile, one chunk per lane,
                           lanes along the rows: the warp form warp:RxC:1xN it stands for (C = the
                           row's 16-byte chunks, at most 32; R = 32 / C; N = 16 bytes of elements),
                           which the report prints beside it
    tma, wgmma, ...        no lane access: TMA writes the tile and wgmma / tcgen05 read it through a
                           descriptor, in the layouts --for tma (--for umma) gives; bad input saying so

Imported only when a spec is one of these words (start-up time).
"""
from __future__ import annotations

from ..hardware import Hardware
from ..model import InputError, Pattern, Tile
from ..value import replace

CHUNK = 16  # bytes of one cp.async.cg copy (the widest, and CUTLASS's SM80_CP_ASYNC_CACHE*<uint128_t>)
CP_ASYNC = ("cp.async", "cp.async.cg", "cp.async.ca")
# word -> what to give instead (one line each)
_DESCRIPTOR = ("--for tma (its layouts are the ones TMA writes and GMMA descriptors accept), or --check 128B "
               "to check the TMA mode")
NOT_ACCESSES = {
    "tma": "TMA writes the tile itself, in one of its swizzle modes: there is no lane access to describe; "
           "give the tile's reads (ldmatrix.x4, warp:...) and add " + _DESCRIPTOR,
    "cp.async.bulk": "a bulk copy (TMA) writes the tile itself: give the tile's reads and add " + _DESCRIPTOR,
    "cp.async.bulk.tensor": "a bulk tensor copy (TMA) writes the tile itself: give the tile's reads and add "
                            + _DESCRIPTOR,
    "wgmma": "wgmma reads its operands through a shared-memory matrix descriptor, not lanes: give the tile's "
             "other accesses and add " + _DESCRIPTOR,
    "tcgen05": "tcgen05.mma reads its operands through a shared-memory matrix descriptor, not lanes: give the "
               "tile's other accesses and add --for umma (--arch sm100)",
    "umma": "UMMA (tcgen05.mma) reads its operands through a shared-memory matrix descriptor, not lanes: give "
            "the tile's other accesses and add --for umma (--arch sm100)",
}


def is_recipe(text: str) -> bool:
    """``text`` (stripped, lower case) is one of the words above."""
    return text in CP_ASYNC or text in NOT_ACCESSES


def cp_async_form(spec: str, tile: Tile, chunk: int = CHUNK) -> str:
    """The warp form one warp of 16-byte cp.async copies is on this tile (lanes along the rows);
    ``chunk``: another width per lane, laid out alike (CuTe's UniversalCopy<T>, access.cute_atoms)."""
    row_bytes = tile.cols * tile.elem_bytes
    chunks = row_bytes // chunk
    if row_bytes % chunk:
        raise InputError(f"access {spec!r}: a row of {row_bytes} bytes is not a whole number of {chunk}-byte chunks: "
                         f"write the copy's thread map as warp:RxC:MxN with vB, a --linear-layout or a --phases file")
    if not (32 % chunks == 0 or chunks % 32 == 0):
        raise InputError(f"access {spec!r}: a row of {row_bytes} bytes is {chunks} chunks of {chunk} bytes, which 32 "
                         f"lanes along the rows do not tile (1, 2, 4, 8, 16 or a multiple of 32 chunks a row): write "
                         f"the copy's thread map as a --linear-layout or a --phases file")
    across = min(32, chunks)
    return f"warp:{32 // across}x{across}:1x{chunk // tile.elem_bytes}"


def parse(spec: str, tile: Tile, hardware: Hardware) -> Pattern:
    """The pattern a recipe word stands for, or bad input for the words that are not accesses."""
    text = spec.strip().lower()
    if text in NOT_ACCESSES:
        raise InputError(f"access {spec!r}: {NOT_ACCESSES[text]}")
    from .warp import parse_warp_access, refuse

    refuse(spec, hardware, "sts")  # cp.async writes shared memory as an st.shared of its width does (NVIDIA's)
    form = cp_async_form(spec, tile)
    pattern = parse_warp_access(form, tile, hardware)
    # its own kind: the lanes are the warp form's, the instruction is cp.async (SASS LDGSTS), whose shared
    # writes Nsight Compute counts under _op_ldgsts (counters.py) and a probe issues as such (probe/plan.py)
    return replace(pattern, spec=spec.strip(), kind="cp.async", summary=f"= {form}: {pattern.summary}")
