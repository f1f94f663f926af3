"""forms/cute.py: CuTe's records, one set for reading (`cute:`) and writing (`--emit cute`), and the
user's two views as operations on them, against pycute (NVIDIA's reference of CuTe's algebra):

- ``transpose()`` (--order col): the transposed record at (r, c) is the record at (c, r);
- ``upcast(per)`` (sub-byte elements, ``per`` to a byte): the element offset of element (r, c) is
  ``per * phys(r, c / per) + c % per``, phys the packed bytes' layout;
- ``cpp()``: the printed C++ read back by ``cute:`` is the record (pycute's table).
"""
from __future__ import annotations

import numpy as np
import pycute
import pytest

from swizzle_solver.forms.cute import Atom, Composed, Layout, Swizzle, Tiled
from swizzle_solver.layout import layout_table
from swizzle_solver.model import Tile
from swizzle_solver.names import parse_layout
from tests.cute_grid import grid


def py(record):
    """The record as pycute's object (a callable of (r, c))."""
    if isinstance(record, Layout):
        return pycute.Layout(record.shape, record.stride)
    outer = pycute.Swizzle(record.outer.B, record.outer.M, record.outer.S) if isinstance(record.outer, Swizzle) \
        else py(record.outer)
    return pycute.ComposedLayout(outer, 0, py(record.inner))


def table(fn, rows, cols):
    return grid(fn, rows, cols)


RECORDS = {  # (record, rows, cols) as --emit cute writes them for a stored tile
    "rows 40 apart": (Layout((8, 32), (40, 1)), 8, 32),
    "swizzle": (Composed(Swizzle(3, 3, 3), Layout((16, 64), (64, 1))), 16, 64),
    "negative S": (Composed(Swizzle(2, 1, -3), Layout((16, 32), (32, 1))), 16, 32),
    "panels": (Composed(Swizzle(3, 3, 3), Layout((16, (64, 2)), (64, (1, 1024)))), 16, 128),
    "bands": (Layout(((2, 2, 4), 32), ((64, 32, 128), 1)), 16, 32),
    "nested": (Composed(Swizzle(1, 1, 4), Composed(Swizzle(1, 0, 3), Layout((16, 32), (32, 1))),
                        call="make_composed_layout"), 16, 32),
    "columns, back to pitch 40": (Composed(Layout((32, 8), (1, 40)), Composed(Swizzle(3, 0, 5), Layout((8, 24), (32, 1)),
                                                                              broken=False),
                                           call="make_composed_layout"), 8, 24),
}



def one_line(cpp: str) -> str:
    """The printed C++ as a user pastes it into --check: one line (a layout's text is refused with a
    line break in it, docs/cli.md)."""
    return " ".join(cpp.split())

@pytest.mark.parametrize("name", list(RECORDS))
def test_transpose_is_the_record_at_c_r(name):
    record, rows, cols = RECORDS[name]
    assert np.array_equal(table(py(record.transpose()), cols, rows), table(py(record), rows, cols).T)


@pytest.mark.parametrize("per", [2])
@pytest.mark.parametrize("name", list(RECORDS))
def test_upcast_is_the_element_offset_of_the_packed_bytes(name, per):
    record, rows, cols = RECORDS[name]
    phys = table(py(record), rows, cols)
    want = np.array([[per * phys[r, c // per] + c % per for c in range(cols * per)] for r in range(rows)])
    assert np.array_equal(table(py(record.upcast(per)), rows, cols * per), want)


@pytest.mark.parametrize("name", list(RECORDS))
def test_upcast_of_the_transpose_packs_down_a_column(name):
    """--order col with 4-bit elements: the stored tile's bytes are the user's column pairs."""
    record, rows, cols = RECORDS[name]
    phys = table(py(record), rows, cols).T  # the user's (r, c) of bytes
    want = np.array([[2 * phys[r // 2, c] + r % 2 for c in range(rows)] for r in range(cols * 2)])
    assert np.array_equal(table(py(record.transpose().upcast(2)), cols * 2, rows), want)


@pytest.mark.parametrize("name", list(RECORDS))
def test_printed_cpp_reads_back_as_the_record(name):
    """One set of records both ways: cpp() read by cute: (notation/cute.py) is pycute's table; and the
    transposed record's print too."""
    record, rows, cols = RECORDS[name]
    for rec, r, c in ((record, rows, cols), (record.transpose(), cols, rows)):
        if isinstance(rec, Composed) and isinstance(rec.outer, Layout):
            continue  # (cute: reads a swizzle as make_composed_layout's outer map, not a layout)
        tile = Tile(r, c, c, 2)
        got = layout_table(tile, parse_layout(f"cute: {one_line(rec.cpp())}", tile=tile))
        assert np.array_equal(got, table(py(rec), r, c))


@pytest.mark.parametrize("width, e", [(128, 2), (64, 2), (32, 4), (128, 1)])
def test_gmma_atom_transpose_and_upcast(width, e):
    """tile_to_shape of GMMA's K-major atom: its transpose (the MN-major atom, Step<_2,_1>) read back by
    cute: is the K form's table transposed; its upcast to T4 has twice the columns (K) or rows (MN)."""
    atoms = {32: "SW32", 64: "SW64", 128: "SW128"}
    w = width // e
    tiled = Tiled(Atom("K", atoms[width], "T"), (16, 2 * w))
    k_tile, mn_tile = Tile(16, 2 * w, 2 * w, e), Tile(2 * w, 16, 16, e)
    k = layout_table(k_tile, parse_layout(f"cute: {one_line(tiled.cpp())}", tile=k_tile))
    mn = layout_table(mn_tile, parse_layout(f"cute: {one_line(tiled.transpose().cpp())}", tile=mn_tile))
    assert np.array_equal(mn, k.T)
    assert tiled.upcast(2) == Tiled(Atom("K", atoms[width], "T4"), (16, 4 * w))
    assert tiled.transpose().upcast(2) == Tiled(Atom("MN", atoms[width], "T4"), (4 * w, 16), (2, 1))
