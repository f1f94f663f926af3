"""The two views of the stored tile every target's snippet is shown in: --order col (the user's
(r, c) of a column-major tile) and sub-byte elements (the packed bytes' code, then in elements).

Each target module may define ``in_user_order(problem, body)`` and ``in_elements(problem, layout,
snippet)`` for its own syntax; without them it gets what every target can say (under --order col
nothing: its emitter writes the user's (r, c) with orient.Words;
the element identity as a comment). emit/__init__.py reads them off the module: no list of targets.

--order col.

A column-major tile is solved as its transpose (model.Tile), so an emitter writes the code of the
stored tile, whose row is the user's column: element (r, c) is the stored tile's element (c, r). Each
emitter writes that code in the user's view from the start:

- every expression and comment of the stored tile's (row, col) through orient.Words (``words(tile)``:
  the one place that says a stored row is the user's column, a stored column panel a band of its rows,
  and that the stored row index is the user's ``c``): ``r * 64 + c`` is written ``c * 64 + r``, ``rows
  40 elements apart`` is written ``columns 40 elements apart``; a family's C expression of the stored
  (r, c) gets the translation the JSON's ``expression`` gets (orient.expression);
- ``cute``, ``cute-dsl``, ``mojo`` (forms/cute.py) and ``triton`` (forms/triton.py): each declared
  record is transposed (``(R, C) : (P, 1)`` becomes ``(C, R) : (1, P)``, the GMMA K-major atom the
  MN-major one tiled with ``Step<_2, _1>``, Triton's ``order = [0, 1]``, NVMMA ``transposed``, a
  linear basis [row, col] as [col, row]); a layout that maps an offset is kept;
- ``tma`` and ``umma``: the tensor map and the descriptor describe storage, which these already are;
  their ``in_user_order`` (read here by ``for_col``) adds a line that says the box's inner dimension
  runs down the tile's column (``umma``: that the canonical layout's rows are the tile's columns).

The header line (emit.common.header) names the user's tile and its order.

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

from collections.abc import Callable

from ..layout import Layout
from ..model import Problem, Tile
from ..value import replace
from .common import Snippet


def for_col(in_user_order: Callable[[Problem, str], str] | None, problem: Problem, snippet: Snippet) -> Snippet:
    """The snippet, whose code the emitter already wrote in the user's (r, c) and words (orient.Words),
    with the target's own ``in_user_order`` note on how the tile is stored (its module's; None: none)."""
    if in_user_order is None:
        return snippet
    head, _, body = snippet.code.partition("\n")
    body = in_user_order(problem, body)
    return replace(snippet, code=f"{head}\n{body}" if body else head)


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


