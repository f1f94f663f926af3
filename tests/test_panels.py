"""The column-panel family (families/panels.py): the tile as panels of a TMA swizzle atom's width."""
from __future__ import annotations

import numpy as np
import pytest

from swizzle_solver import api
from swizzle_solver.families.panels import ColumnPanels
from swizzle_solver.layout import layout_table
from swizzle_solver.model import Tile


@pytest.mark.parametrize("rows, cols, elem_bytes, width", [
    (64, 128, 2, 128), (16, 64, 4, 64), (8, 96, 1, 32), (24, 192, 2, 128), (32, 256, 4, 128), (8, 16, 8, 64)])
def test_a_panel_layout_is_its_formula_and_a_bijection(rows, cols, elem_bytes, width):
    tile = Tile(rows, cols, cols, elem_bytes)
    panels = ColumnPanels(width)
    assert panels.invalid(tile) is None
    table = layout_table(tile, panels)
    assert np.array_equal(np.sort(table.ravel()), np.arange(tile.size))  # a permutation of the storage
    w = width // elem_bytes
    for r in range(rows):  # independently: panel j holds columns [j*w, j*w + w), the atom on its bytes
        for c in range(cols):
            q = (r * w + c % w) * elem_bytes
            b = {32: 1, 64: 2, 128: 3}[width]
            swizzled = q ^ ((q >> 3) & (((1 << b) - 1) << 4))
            assert table[r, c] == (c // w) * rows * w + swizzled // elem_bytes
    bases = panels.bases(tile)
    if bases is not None:  # linear: the XOR of the bases of the offset's bits
        p = np.arange(tile.size)
        span = np.zeros_like(p)
        for i, image in enumerate(bases):
            span ^= np.where((p >> i) & 1, image, 0)
        assert np.array_equal(span, table.ravel())
    expr = panels.expression(tile)
    assert all(eval(expr, {"r": r, "c": c}) == table[r, c] for r in range(rows) for c in range(cols))


def test_members_need_two_panels_a_dense_tile_and_atom_rows():
    assert ColumnPanels(128).invalid(Tile(64, 64, 64, 2))  # one panel: the Swizzle itself
    assert ColumnPanels(128).invalid(Tile(64, 128, 136, 2))  # padded rows
    assert ColumnPanels(128).invalid(Tile(12, 128, 128, 2))  # rows not a multiple of 8
    assert ColumnPanels(64).invalid(Tile(16, 48, 48, 2))  # 48 columns are not panels of 32


def test_for_tma_answers_panels_on_256_byte_rows():
    """64x128 f16 (256-byte rows): Swizzle<3,3,4> has no TMA form; panels of 64 columns in the
    128B mode are conflict-free and TMA-loadable, one box per panel."""
    free = api.solve(rows=64, cols=128, dtype="f16", access=["8x8", "row"])
    assert free.name == "Swizzle<3,3,4>" and "tma" not in free.json()["answer"]["expressible_in"]
    result = api.solve(rows=64, cols=128, dtype="f16", access=["8x8", "row"], for_targets=["tma"])
    assert result.name == "Panels<128B>" and result.conflict_free
    doc = result.json(emit=["tma", "cute", "cuda"])
    ans = doc["answer"]
    assert ans["tma_mode"] == "128B" and {"tma", "cute", "cuda"} <= set(ans["expressible_in"])
    assert ans["panels"]["count"] == 2 and ans["panels"]["panel_cols"] == 64
    assert "2 boxes" in ans["emit"]["tma"] and "tile_to_shape(cute::GMMA::Layout_K_SW128_Atom<T>" in ans["emit"]["cute"]
    assert doc["search"]["for"]["extra_wavefronts"] == 0 == doc["search"]["for"]["extra_bytes"]


def test_panels_check_by_name():
    checked = api.check("Panels<128B>", rows=64, cols=128, dtype="f16", access=["8x8", "row"])
    assert checked.passed
    assert api.check("panels < 64B >", rows=64, cols=128, dtype="f16", access=["8x8"]).layout == ColumnPanels(64)
