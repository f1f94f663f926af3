"""`cute:`'s compact layouts against pycute: ``LayoutLeft``/``GenColMajor`` (CuTe's default, the leftmost
leaf stride 1: pycute's prefix_product) and ``LayoutRight``/``GenRowMajor`` (the rightmost leaf stride 1:
prefix_product of the reversed shape, reversed back), flat and hierarchical, as a layout's stride and as
tile_to_shape's order. A reader that exchanged the two would read a kernel's row-major layout as
column-major (issue 33's survivor M14)."""
from __future__ import annotations

import numpy as np
import pycute
import pytest

from swizzle_solver.layout import layout_table
from swizzle_solver.model import Tile
from swizzle_solver.names import parse_layout
from tests.cute_grid import grid


def reversed_tree(t):
    return tuple(reversed([reversed_tree(x) for x in t])) if isinstance(t, tuple) else t


def pycute_strides(shape, right: bool):
    """pycute's compact strides: LayoutLeft is prefix_product; LayoutRight is the same from the right."""
    return reversed_tree(pycute.prefix_product(reversed_tree(shape))) if right else pycute.prefix_product(shape)


def cpp(t) -> str:
    return f"Shape<{','.join(cpp(x) for x in t)}>" if isinstance(t, tuple) else f"_{t}"


SHAPES = [(8, 16), ((4, 2), 8), (8, (2, 8)), ((2, 4), (4, 2)), ((2, 2, 2), 4)]
MAJORS = {"LayoutLeft": False, "GenColMajor": False, "LayoutRight": True, "GenRowMajor": True}


def size(mode) -> int:
    return int(np.prod(pycute.flatten(mode))) if isinstance(mode, tuple) else mode


def pycute_table(layout, rows: int, cols: int) -> np.ndarray:
    """layout((r, c)) over the grid, at numpy speed (tests/cute_grid.py: checked against pycute's own
    call at the corners and spread points)."""
    return grid(layout, rows, cols)


@pytest.mark.parametrize("major", list(MAJORS))
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_make_layout_with_a_major_is_pycutes_compact_layout(shape, major):
    rows, cols = size(shape[0]), size(shape[1])
    tile = Tile(rows, cols, cols, 2)
    want = pycute_table(pycute.Layout(shape, pycute_strides(shape, MAJORS[major])), rows, cols)
    for text in (f"cute: make_layout({cpp(shape)}{{}}, {major}{{}})", f"cute: cute::make_layout({cpp(shape)}{{}}, cute::{major}{{}})"):
        got = layout_table(tile, parse_layout(text, tile=tile))
        assert np.array_equal(got, want), text


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_a_layout_without_stride_is_column_major(shape):
    """Layout<Shape<...>> and make_layout(shape): CuTe's default, LayoutLeft (pycute's Layout(shape))."""
    rows, cols = size(shape[0]), size(shape[1])
    tile = Tile(rows, cols, cols, 2)
    want = pycute_table(pycute.Layout(shape), rows, cols)
    for text in (f"cute: Layout<{cpp(shape)}>{{}}", f"cute: make_layout({cpp(shape)}{{}})"):
        assert np.array_equal(layout_table(tile, parse_layout(text, tile=tile)), want), text


@pytest.mark.parametrize("major", list(MAJORS))
def test_tile_to_shape_order_by_major(major):
    """tile_to_shape(block, shape, order): CuTe's blocked_product of the block with a compact layout of
    the block counts in that order (GenColMajor: down the rows first; GenRowMajor: across first), from
    pycute's logical_product, its modes zipped (cute/layout.hpp)."""
    block = pycute.Layout((8, 8), (8, 1))
    counts = (2, 4)
    product = pycute.logical_product(block, pycute.Layout(counts, pycute_strides(counts, MAJORS[major])))
    tiled = pycute.make_layout(pycute.make_layout(product[0][0], product[1][0]),
                               pycute.make_layout(product[0][1], product[1][1]))
    tile = Tile(16, 32, 32, 2)
    text = f"cute: tile_to_shape(Layout<Shape<_8,_8>,Stride<_8,_1>>{{}}, Shape<_16,_32>{{}}, {major}{{}})"
    assert np.array_equal(layout_table(tile, parse_layout(text, tile=tile)), pycute_table(tiled, 16, 32))
