"""The two views of the stored tile every target's snippet is shown in: --order col (the user's
(r, c) of a column-major tile) and sub-byte elements (the packed bytes' code, then in elements).

Each target module may define ``in_user_order(problem, body)`` and ``in_elements(problem, layout,
snippet)`` for its own syntax; without them it gets what every target can say (r and c exchanged;
the element identity as a comment). emit/__init__.py reads them off the module: no list of targets.

--order col.

A column-major tile is solved as its transpose (model.Tile), so an emitter writes the code of the
stored tile, whose row is the user's column. Here that code becomes the code of the user's tile:
element (r, c) is the stored tile's element (c, r), so

- ``cuda``, and every function or comment of (r, c): the names ``r`` and ``c`` exchanged (orient.swap_rc);
- ``cute`` (C++): each layout of (row, col) has its two top-level modes exchanged (``(R, C) : (P, 1)``
  becomes ``(C, R) : (1, P)``, the M-major form CUTLASS writes); the GMMA K-major atom tiled over
  the stored tile becomes the MN-major atom (its transpose, cute/atom/mma_traits_sm90_gmma.hpp)
  tiled over the user's tile with ``Step<_2, _1>`` (the same atom order); a layout that maps an
  offset (the outer layout of ``make_composed_layout``) is kept;
- ``cute-dsl``: ``make_layout`` with its two top-level modes exchanged;
- ``mojo``: ``Layout(IntTuple(...), IntTuple(...))`` with its two top-level modes exchanged;
- ``triton``: the encodings' ``order = [0, 1]`` (dim 0 contiguous), NVMMA ``transposed``, the
  padded encoding's shape, and each shared linear offset basis [row, col] as [col, row];
- ``tma`` and ``umma``: the tensor map and the descriptor describe storage, which these already
  are; a line says that the box's inner dimension runs down the tile's column (``umma``: that the
  canonical layout's rows are the tile's columns).

Every comment then says the user's words (``in_user_words``): the stored tile's rows are columns of
the tile (``columns 40 elements apart``, a box's outer extent in columns), its column panels bands
of rows (``2 row panels of 64 rows``). The header line (emit.common.header) already names the
user's tile and its order.

Sub-byte elements.

A tile of 4-bit elements is solved as its packed bytes (access/subbyte.py, model.Tile.elem_bits): the
emitters write the code of that byte tile, and the header (emit.common.header) says so: there an
element is a byte and ``c`` counts bytes (the element column / 2). Here each snippet gets the same
layout in the kernel's element units after it, from one identity: element (r, c) lies in byte
(r, c / 2), in its half c % 2, and a layout moves whole bytes, so

    phys_elem(r, c) = 2 * phys_byte(r, c / 2) + c % 2

For a layout written as swizzles of affine layouts (CuTe, the CuTe DSL, Mojo) that is the same code
with every offset doubled: ``Swizzle<B,M,S>`` on byte offsets is ``Swizzle<B,M+1,S>`` on element
offsets (p_e = 2 p_b + lo: the mask and the shift move up one bit), and each affine layout of (row,
col) has each stride doubled, except the unit-stride leaf of the column (the lowest column bits),
whose extent doubles instead (it takes the element's half of the byte). The CuTe atoms over a
4-bit type (``GMMA::Layout_K_SW128_Atom<cutlass::float_e2m1_t>``: the byte atom upcast to 4-bit
elements, cute/atom/mma_traits_sm90_gmma.hpp) are the same bytes with twice the columns.
The other targets already address bytes in the kernel's own terms: Triton holds 4-bit operands
packed, two a byte, in an 8-bit tensor; a TMA map of packed 4-bit data (CU_TENSOR_MAP_DATA_TYPE_
16U4_ALIGN8B) counts elements but swizzles bytes; a tcgen05 descriptor's strides are bytes.
"""
from __future__ import annotations

import re
from collections.abc import Callable

from ..layout import Layout
from ..model import Problem, Tile
from ..orient import swap_rc
from ..value import replace
from .common import Snippet


def for_col(in_user_order: Callable[[Problem, str], str] | None, problem: Problem, snippet: Snippet) -> Snippet:
    """The snippet of the stored tile in the user's (r, c): r and c exchanged, then the target's own
    ``in_user_order`` (its module's; None: nothing else), then the comments in the user's words."""
    head, _, body = snippet.code.partition("\n")
    body = in_user_rc(body)
    if in_user_order is not None:
        body = in_user_order(problem, body)
    return replace(snippet, code=f"{head}\n{in_user_words(body)}" if body else head)


# What the emitters' comments say of the stored tile (its rows, its column panels, a box's rows), in
# the user's words: a stored row is a column of the tile, a stored column panel a band of its rows.
_WORDS = (
    (r"plain row-major, rows (\d+) elements apart", r"plain column-major, columns \1 elements apart"),
    (r"\brows (\d+) elements apart", r"columns \1 elements apart"),
    (r"spare element\(s\) per row", "spare element(s) per column"),
    (r"padding element\(s\) per row", "padding element(s) per column"),
    (r"spare per row", "spare per column"),
    (r"the given row length is", "the given column length is"),
    (r"(\d+) column panels of (\d+) elements \((\d+) B\)", r"\1 row panels of \2 rows (\3 B down each column)"),
    (r"(\d+) column panels of (\d+) elements", r"\1 row panels of \2 rows"),
    (r"a column XOR per row on", "a row XOR per column on"),
    (r"\(rows on a power-of-two pitch\)", "(columns on a power-of-two pitch)"),
    (r"\(row bits onto column bits\)", "(column bits onto row bits)"),
    (r"a permutation of rows in bands", "a permutation of columns in bands"),
    (r"\brow c = \(", "column c = ("),
    (r"column XOR \(vec \* \(\(row / perPhase\) % maxPhase\)\)",
     "row XOR (vec * ((column / perPhase) % maxPhase)), dim 0 (r) contiguous"),
    (r"box outer extent: (\d+) rows \(at most 256 per box: load taller tiles",
     r"box outer extent: \1 columns (at most 256 per box: load wider tiles"),
    (r"box: (\d+) elements x (\d+) rows", r"box: \1 elements down a column x \2 columns"),
    (r"one per column panel", "one per row panel"),
    (r"box i loads columns \[", "box i loads rows ["),
    (r"rows per box at most 256 \(load taller tiles", "columns per box at most 256 (load wider tiles"),
    (r"(\d+) rows of (\d+) B\b", r"\1 columns of \2 B"),
)


def in_user_words(body: str) -> str:
    """The emitters' comments on the stored tile's rows and column panels, said of the user's tile."""
    for pattern, words in _WORDS:
        body = re.sub(pattern, words, body)
    return body


# An (r, c) pair names the element or a function's arguments: still the user's (r, c) after the swap.
_PAIRS = (("(c, r)", "(r, c)"), ("(int c, int r)", "(int r, int c)"), ("(c: Int, r: Int)", "(r: Int, c: Int)"))


def in_user_rc(code: str) -> str:
    """The stored tile's code as the user's: ``r`` and ``c`` exchanged in every expression
    (``r * 64 + c`` becomes ``c * 64 + r``), while a function's parameters and the words "element
    (r, c)" keep naming the user's (r, c)."""
    code = swap_rc(code)
    for swapped, kept in _PAIRS:
        code = code.replace(swapped, kept)
    return code


TYPES = "cutlass::float_e2m1_t, cutlass::int4b_t or cutlass::uint4b_t"


def for_packed(in_elements: Callable[[Problem, Layout, Snippet], str] | None, comment: str, problem: Problem,
               layout: Layout, snippet: Snippet) -> Snippet:
    """The snippet of the packed bytes, then what the target's code is in the 4-bit elements: its
    module's ``in_elements``, or (None) the identity every target can state, in its ``comment``."""
    tail = in_elements(problem, layout, snippet) if in_elements is not None else formula_note(problem.tile, comment)
    return replace(snippet, code=f"{snippet.code}\n{tail}") if tail else snippet


def formula_note(tile: Tile, comment: str) -> str:
    """The element form any target's code has: the note, then phys_elem from the byte layout's phys."""
    return f"{element_note(tile, comment)}\n{formula(tile, comment)}"


def byte_of(tile: Tile) -> tuple[str, str]:
    """(the byte of element (r, c) in the user's (r, c), its part of the byte): packing runs along a row
    (row order) or down a column (--order col)."""
    per = 8 // tile.elem_bits
    return (f"r / {per}, c", f"r % {per}") if tile.col_major else (f"r, c / {per}", f"c % {per}")


def element_note(tile: Tile, comment: str) -> str:
    """The line every element form begins with."""
    per = 8 // tile.elem_bits
    rows, cols = tile.logical_shape
    shape, counts = (f"{rows * per} x {cols}", "r") if tile.col_major else (f"{rows} x {cols * per}", "c")
    byte, part = byte_of(tile)
    return (f"{comment} in {tile.elem_bits}-bit elements ({shape}, {counts} counts elements): element "
            f"(r, c) is in byte phys({byte}) above, in its part {part}; as an element offset:")


def formula(tile: Tile, comment: str) -> str:
    per = 8 // tile.elem_bits
    byte, part = byte_of(tile)
    return f"{comment}   phys_elem(r, c) = {per} * phys({byte}) + {part}  (phys: the byte layout above)"


# --- the doubling rule on the code of each notation -------------------------------------------------------


def rule(swizzle: str) -> str:
    return (f"the same layout with every offset doubled (the byte swizzle as {swizzle}, the unit-stride extent "
            f"and every other stride x2)")


