"""--emit umma (also tcgen05): the canonical shared-memory layouts a tcgen05.mma (UMMA) descriptor
reads, where the target has that path (hardware.Hardware.mma_operands: sm100).

A UMMA operand in shared memory is made of *swizzle atoms* (PTX ISA 9.0, 9.7.16.10.6, Table 53; the
canonical layouts of 9.7.16.3.3), each a byte-level swizzle of a dense block of h rows of W bytes,
the rows running along K (K-major) or along M/N (MN-major):

    mode (descriptor layout_type)      K-major atom         MN-major atom      byte swizzle
    no swizzle, "interleave" (0)       8 x 16 B             16 B x 8           none
    32B (6)                            8 x 32 B             32 B x 8           Swizzle<1,4,3>
    64B (4)                            8 x 64 B             64 B x 8           Swizzle<2,4,3>
    128B (2)                           8 x 128 B            128 B x 8          Swizzle<3,4,3>
    128B with 32-byte atoms (1)        (none)               128 B x 4          Swizzle<2,5,2>

CuTe names them ``UMMA::Layout_{K,MN}_{INTER,SW32,SW64,SW128}_Atom<T>`` (the GMMA atoms, re-exported
by cute/atom/mma_traits_sm100.hpp) and ``UMMA::Layout_MN_SW128_32B_Atom<T>``, and lays an operand out
with ``tile_to_shape(atom, Shape<MN, K>)``: atoms repeated along the first mode (M or N) first, then
along K. That is the layout recognised here, element by element (tests/test_generations.py holds it to
pycute's composition of the header's atoms).

The tool's tile is row-major with the columns contiguous: a K-major operand is the tile with rows
M (or N) and columns K; an MN-major one is the tile with rows K and columns M (or N).
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..hardware import Hardware
from ..layout import Layout
from ..model import Problem, Tile
from .common import CPP_TYPES, Snippet, header
from .recognise import grid, layout_table
from .views import TYPES

TARGET = "umma"
ALIASES = ("tcgen05",)
TITLE = "UMMA (tcgen05.mma shared-memory descriptor)"
ORDER = 6  # place in the --emit list

# (major, mode) -> (atom rows, atom row bytes, byte swizzle (B, M, S) or None, descriptor layout_type, CuTe atom)
ATOMS: dict[tuple[str, str], tuple[int, int, tuple[int, int, int] | None, tuple[str, int], str]] = {
    ("K", "INTER"): (8, 16, None, ("SWIZZLE_NONE", 0), "Layout_K_INTER_Atom"),
    ("K", "SW32"): (8, 32, (1, 4, 3), ("SWIZZLE_32B", 6), "Layout_K_SW32_Atom"),
    ("K", "SW64"): (8, 64, (2, 4, 3), ("SWIZZLE_64B", 4), "Layout_K_SW64_Atom"),
    ("K", "SW128"): (8, 128, (3, 4, 3), ("SWIZZLE_128B", 2), "Layout_K_SW128_Atom"),
    ("MN", "INTER"): (8, 16, None, ("SWIZZLE_NONE", 0), "Layout_MN_INTER_Atom"),
    ("MN", "SW32"): (8, 32, (1, 4, 3), ("SWIZZLE_32B", 6), "Layout_MN_SW32_Atom"),
    ("MN", "SW64"): (8, 64, (2, 4, 3), ("SWIZZLE_64B", 4), "Layout_MN_SW64_Atom"),
    ("MN", "SW128"): (8, 128, (3, 4, 3), ("SWIZZLE_128B", 2), "Layout_MN_SW128_Atom"),
    ("MN", "SW128_32B"): (4, 128, (2, 5, 2), ("SWIZZLE_128B_BASE32B", 1), "Layout_MN_SW128_32B_Atom"),
}
CPP_TYPE = {1: "cute::uint8_t", 2: "cute::half_t", 4: "float"}  # the UMMA operand sizes (8-, 16-, 32-bit)


def unavailable(hardware: Hardware) -> str | None:
    """Why --for umma is refused on this target (no tcgen05), or None."""
    if "tcgen05" in hardware.mma_operands:
        return None
    return hardware.lacks("tcgen05.mma (UMMA) shared-memory descriptors (sm_100a)",
                          lambda t: "tcgen05" in t.mma_operands)


@lru_cache(maxsize=64)
def canonical(tile: Tile, major: str, mode: str) -> np.ndarray | None:
    """phys(r, c) of CuTe's tile_to_shape(atom, Shape<MN, K>) on this tile (K-major: rows are M/N;
    MN-major: rows are K), or None where the atom does not tile it. Read-only, and remembered for the
    last few tiles: every layout listed for one tile is compared with the same nine."""
    h, width, swizzle, _, _ = ATOMS[major, mode]
    e = tile.elem_bytes
    if e not in CPP_TYPE or tile.row_length != tile.cols or width % e:
        return None
    w = width // e  # elements of an atom row
    if tile.rows % h or tile.cols % w:
        return None
    r, c = grid(tile)
    # K-major: atoms down the rows (M) first, then across the columns (K); MN-major: across the
    # columns (MN) first, then down the rows (K)
    index = r // h + (c // w) * (tile.rows // h) if major == "K" else c // w + (r // h) * (tile.cols // w)
    phys = index * (h * w) + (r % h) * w + c % w
    if swizzle is not None:  # the atom's byte swizzle, on element offsets (atoms start on its period)
        b, m, s = swizzle
        m -= e.bit_length() - 1
        phys = phys ^ ((phys >> s) & (((1 << b) - 1) << m))
    phys.setflags(write=False)
    return phys


def canonical_of(tile: Tile, layout: Layout) -> list[tuple[str, str]]:
    """(major, mode) of every canonical layout the layout equals on every element (a tile whose rows
    are exactly one atom wide is both a K-major and an MN-major one)."""
    table = None
    found = []
    for major, mode in ATOMS:
        want = canonical(tile, major, mode)
        if want is None:
            continue
        table = layout_table(tile, layout) if table is None else table
        if np.array_equal(table, want):
            found.append((major, mode))
    return found


def _strides(tile: Tile, major: str, mode: str) -> tuple[int, int]:
    """(LBO, SBO) in bytes of tile_to_shape's layout (PTX ISA 9.7.16.3.3's canonical layouts): K-major,
    SBO is the step between 8-row groups of M/N and LBO the step between the two 16-byte core matrices
    along K (no swizzle only; a swizzled K-major layout ignores it); MN-major, LBO is the step between
    atoms along M/N and SBO between atoms along K (no swizzle: the reverse)."""
    h, width, _, _, _ = ATOMS[major, mode]
    atom, e = h * width, tile.elem_bytes
    if major == "K":
        return (tile.rows // h * atom if mode == "INTER" else 0), atom
    along_mn = atom
    along_k = tile.cols * e // width * atom
    return (along_k, along_mn) if mode == "INTER" else (along_mn, along_k)


def emit(problem: Problem, layout: Layout) -> Snippet:
    tile, hardware = problem.tile, problem.hardware
    head = header(problem, layout, "//")
    why = unavailable(hardware)
    if why is not None:
        return Snippet(TARGET, f"{head}\n// not a UMMA layout: {why}", False)
    found = canonical_of(tile, layout)
    if not found:
        return Snippet(TARGET, f"{head}\n// not a UMMA layout: not one of the canonical layouts a tcgen05 "
                               f"descriptor reads (CuTe's tile_to_shape of a UMMA::Layout_*_Atom, K-major with the "
                               f"columns along K or MN-major with the columns along M/N; 1-, 2- or 4-byte elements)",
                       False)
    major, mode = found[0]
    h, width, swizzle, (type_name, type_value), atom = ATOMS[major, mode]
    also = [f"// also the MN-major {m} layout (rows K, columns M or N): UMMA::{ATOMS['MN', m][4]}, "
            f"Shape<{tile.cols}, {tile.rows}>" for j, m in found[1:] if j == "MN"]
    lbo, sbo = _strides(tile, major, mode)
    shape = (tile.rows, tile.cols) if major == "K" else (tile.cols, tile.rows)
    dims = "rows M (or N), columns K" if major == "K" else "rows K, columns M (or N)"
    lbo_text = f"LBO {lbo} B (encoded {lbo >> 4})" if lbo else "LBO unused by a swizzled K-major layout (1)"
    align = {"INTER": 16, "SW32": 256, "SW64": 512}.get(mode, 1024)  # where the pattern starts (Table 41)
    return Snippet(TARGET, "\n".join([
        head,
        f"// {major}-major ({dims}): atoms of {h} x {width} B, "
        f"{'byte swizzle Swizzle<{},{},{}>'.format(*swizzle) if swizzle else 'no swizzle'}",
        f"using T = {CPP_TYPE[tile.elem_bytes]};  // your element type: {CPP_TYPES[tile.elem_bytes]}",
        f"auto smem_layout = cute::tile_to_shape(cute::UMMA::{atom}<T>{{}},",
        f"    cute::Shape<cute::Int<{shape[0]}>, cute::Int<{shape[1]}>>{{}});  // (MN, K)",
        f"// descriptor (PTX ISA 9.7.16.4.1): layout type {type_name} ({type_value}), SBO {sbo} B (encoded "
        f"{sbo >> 4}), {lbo_text}; start address aligned to {align} B", *also]), True)


def in_user_order(problem: Problem, body: str) -> str:
    """--order col: this target's code of the stored tile, said of the user's (r, c) (emit/views.py)."""
    rows, cols = problem.tile.logical_shape
    return (f"// --order col: stored column by column, so the canonical layout below is the stored tile's: its "
            f"rows are the tile's {cols} columns (c) and its columns the {rows} elements of r down each\n{body}")


def in_elements(problem: Problem, layout: Layout, snippet: Snippet) -> str:
    """Sub-byte elements: what this target's code of the packed bytes is in the elements (emit/views.py)."""
    tile = problem.tile
    per = 8 // tile.elem_bits
    if not snippet.expressible:
        return ""
    major, mode = canonical_of(tile, layout)[0]  # the form the snippet above gives
    atom = ATOMS[major, mode][4]
    # the tile's columns are the elements: K-major (MN = rows, K = columns), MN-major (MN = columns, K = rows)
    mn, k = (tile.rows, tile.cols * per) if major == "K" else (tile.cols * per, tile.rows)
    return (f"// {tile.elem_bits}-bit elements, packed {per} a byte (tcgen05.mma kind::mxf4 / kind::mxf4nvf4; "
            f"kind::f8f6f4 reads 4-bit operands padded: --dtype b4x16_p64): the descriptor above as it is (its "
            f"addresses and strides are bytes); in CuTe over the 4-bit type, the same atom on twice the columns:\n"
            f"using T4 = cutlass::float_e2m1_t;  // your 4-bit type: {TYPES}\n"
            f"auto smem_layout_4bit = cute::tile_to_shape(cute::UMMA::{atom}<T4>{{}},\n"
            f"    cute::Shape<cute::Int<{mn}>, cute::Int<{k}>>{{}});  // (MN, K) in elements")
