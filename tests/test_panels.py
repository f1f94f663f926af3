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


def test_members_need_whole_panels_a_dense_tile_and_atom_rows():
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


@pytest.mark.parametrize("rows, cols, elem_bytes, width", [
    (64, 64, 2, 128), (24, 64, 2, 128), (16, 8, 4, 32), (8, 64, 1, 64), (40, 16, 8, 128), (8, 32, 4, 128)])
def test_one_panel_is_the_tma_mode_itself(rows, cols, elem_bytes, width):
    """A tile of one panel: Panels<W> is the W-byte TMA swizzle (byte-level Swizzle<log2(W/16),4,3>)
    element for element, so --check accepts it and measures what the cute family's member measures;
    the search does not list it (the cute member is the same layout, found first)."""
    from swizzle_solver.families.cute import Swizzle
    from swizzle_solver.families.panels import candidates

    tile = Tile(rows, cols, cols, elem_bytes)
    panels = ColumnPanels(width)
    assert panels.invalid(tile) is None and panels.one_panel(tile)
    b = {32: 1, 64: 2, 128: 3}[width]
    swizzle = Swizzle(b, 4 - {1: 0, 2: 1, 4: 2, 8: 3}[elem_bytes], 3)  # the byte-level mode on elements
    assert swizzle.byte_level(elem_bytes) == Swizzle(b, 4, 3)
    table = layout_table(tile, panels)
    r, c = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    q = (r * cols + c) * elem_bytes  # independently: the TMA mode on byte offsets
    assert np.array_equal(table * elem_bytes, q ^ ((q >> 3) & (((1 << b) - 1) << 4)))
    assert np.array_equal(table, layout_table(tile, swizzle))
    assert all(eval(panels.expression(tile), {"r": i, "c": j}) == table[i, j] for i in range(rows) for j in range(cols))
    assert panels not in candidates(tile, 1)
    dtype = {1: "u8", 2: "f16", 4: "f32", 8: "f64"}[elem_bytes]
    access = ["row", f"8x{16 // elem_bytes}"]
    checked = api.check(panels, rows=rows, cols=cols, dtype=dtype, access=access)
    same = api.check(swizzle, rows=rows, cols=cols, dtype=dtype, access=access)
    assert checked.invalid is None and checked.status == same.status
    assert checked.worst == same.worst and checked.passed == same.passed
    ans, twin = checked.json()["answer"], same.json()["answer"]
    for key in ("cute", "byte_cute", "tma_mode", "expressible_in", "per_access", "storage_bytes"):
        assert ans[key] == twin[key], key


def test_check_one_panel_passes_on_the_cli(capsys):
    """The issue's run: the layout at the bound in the table, then CHECK FAILED (one panel). Now it
    passes, and the code is the 128B mode's."""
    from swizzle_solver.cli import main

    code = main(["--rows", "64", "--cols", "64", "--dtype", "f16", "--access", "8x8", "--check", "Panels<128B>",
                 "--emit", "tma"])
    out = capsys.readouterr().out
    assert code == 0 and "CHECK PASSED" in out and "CHECK FAILED" not in out and "not usable" not in out
    assert "CU_TENSOR_MAP_SWIZZLE_128B" in out and "per column panel" not in out
