"""Staged layouts (issue 34 item 3): a CuTe layout with a third, stage mode, every stage checked.

- each stage's table is pycute's slice of the same layout at that stage (``slice_and_offset``, the
  layout of the remaining modes plus the stage's offset), for ``tile_to_shape`` of three modes (both
  orders, swizzled or not), a three-mode ``Layout<...>``, CuTe's print and pycute's ``str``;
- each stage's verdict is the check of that stage's table given alone (``table:`` of its offsets),
  the check reports the worst, and stages with the same counts are said once;
- stages on one offset are not usable; a stage mode where none can be is bad input.
"""
from __future__ import annotations

import json

import numpy as np
import pycute
import pytest

from swizzle_solver import api
from swizzle_solver.layout import layout_table
from swizzle_solver.model import Tile
from swizzle_solver.names import parse_layout
from tests import clirun
from tests.cute_grid import grid
from tests.test_schema import validate


def cute_print(t) -> str:
    return f"({','.join(cute_print(x) for x in t)})" if isinstance(t, tuple) else f"_{t}"


def pycute_tile_to_shape3(block, target, order):
    """CuTe's tile_to_shape(block, Shape<R, C, S>, order) from pycute's algebra: the block appended to
    three modes ((1):(0) for the stages), blocked_product with make_ordered_layout(counts, order) =
    the zip of logical_product's modes (cute/layout.hpp)."""
    counts = (target[0] // pycute.size(block[0]), target[1] // pycute.size(block[1]), target[2])
    strides, current = [0, 0, 0], 1
    for i in sorted(range(3), key=lambda i: (order[i], i)):
        strides[i], current = current, current * counts[i]
    tiler = pycute.Layout(counts, tuple(strides))
    product = pycute.logical_product(pycute.make_layout(block[0], block[1], pycute.Layout(1, 0)), tiler)
    return pycute.make_layout(*[pycute.make_layout(product[0][i], product[1][i]) for i in range(3)])


def stage_tables(text: str, tile: Tile) -> list[np.ndarray]:
    from swizzle_solver.stages import stage_layouts

    return [layout_table(tile, one) for one in stage_layouts(parse_layout(text, tile=tile))]


def pycute_stages(layout, rows: int, cols: int, stages: int) -> list[np.ndarray]:
    out = []
    for s in range(stages):
        sliced, offset = pycute.slice_and_offset((None, None, s), layout)
        out.append(grid(sliced, rows, cols) + offset)
    return out


@pytest.mark.parametrize("order", [(1, 2, 3), (2, 1, 3), (3, 2, 1), (1, 3, 2)])
@pytest.mark.parametrize("swizzled", [False, True])
def test_tile_to_shape_with_stages_is_pycutes_slices(order, swizzled):
    block = pycute.Layout((8, 32), (32, 1))
    ref = pycute_tile_to_shape3(block, (32, 64, 3), order)
    inner = "Layout<Shape<_8,_32>,Stride<_32,_1>>{}"
    if swizzled:
        inner = f"composition(Swizzle<2,3,3>{{}}, {inner})"
    step = f", Step<_{order[0]},_{order[1]},_{order[2]}>{{}}"
    text = f"cute: tile_to_shape({inner}, Shape<_32,_64,_3>{{}}{step})"
    want = pycute_stages(ref, 32, 64, 3)
    if swizzled:
        sw = pycute.Swizzle(2, 3, 3)
        want = [np.vectorize(sw)(t) for t in want]
    got = stage_tables(text, Tile(32, 64, 64, 2))
    assert len(got) == 3 and all(np.array_equal(g, w) for g, w in zip(got, want))
    if order == (1, 2, 3):  # CuTe's default order: the same as written without it
        plain = stage_tables(text.replace(step, ""), Tile(32, 64, 64, 2))
        assert all(np.array_equal(g, w) for g, w in zip(plain, want))


def test_printed_staged_layouts_are_pycutes_slices():
    """The staged layout as CuTe's print and pycute's str write it (a third top-level mode), and as
    Layout<Shape<...>, Stride<...>>, each stage pycute's slice."""
    ref = pycute_tile_to_shape3(pycute.Layout((8, 64), (64, 1)), (64, 64, 4), (1, 2, 3))
    want = pycute_stages(ref, 64, 64, 4)
    shape, stride = ref.shape, ref.stride
    for text in (f"cute: {cute_print(shape)}:{cute_print(stride)}", f"cute: {ref}",
                 "cute: Layout<Shape<_64,_64,_4>,Stride<_64,_1,_4096>>{}",
                 "cute: Sw<3,3,3> o _0 o " + f"{cute_print(shape)}:{cute_print(stride)}"):
        got = stage_tables(text, Tile(64, 64, 64, 2))
        if "Sw<" in text:
            assert all(np.array_equal(g, np.vectorize(pycute.Swizzle(3, 3, 3))(w)) for g, w in zip(got, want))
        else:
            assert all(np.array_equal(g, w) for g, w in zip(got, want)), text


def test_each_stage_counts_as_its_own_table(tmp_path):
    """Every stage's verdict is the check of its own offsets given as a table; the check reports
    the worst (a stage of split vectors here), and the stages' offsets are their least offsets."""
    text = "cute: Layout<Shape<_64,_64,_3>,Stride<_64,_1,_4100>>{}"
    tile = Tile(64, 64, 64, 2)
    checked = api.check(text, rows=64, cols=64, dtype="f16", access=["ldmatrix.x4"])
    alone = []
    for s, table in enumerate(stage_tables(text, tile)):
        np.save(tmp_path / f"s{s}.npy", table)
        alone.append(api.check(f"table:{tmp_path / f's{s}.npy'}", rows=64, cols=64, dtype="f16",
                               access=["ldmatrix.x4"]))
    assert [s.status for s in checked.stages] == [a.status for a in alone] == ["conflicts", "not-usable", "conflicts"]
    assert [s.excess for s in checked.stages] == [alone[0].measured.excess, None, alone[2].measured.excess]
    assert [s.offset for s in checked.stages] == [0, 4100, 8200]
    assert checked.stage == 1 and checked.invalid == alone[1].invalid and not checked.passed
    assert [s["same_as"] for s in checked.stages_json()] == [None, None, 0]
    assert checked.stages_summary == "3 stages: stages 0, 2 excess 7, stage 1 not usable (reported)"


def test_the_line_says_the_stages_once():
    staged = "cute: tile_to_shape(composition(Swizzle<3,3,3>{}, Layout<Shape<_8,_64>,Stride<_64,_1>>{}), Shape<_64,_64,_3>{})"
    r = clirun.solve("--rows", "64", "--cols", "64", "--dtype", "f16", "--access", "ldmatrix.x4", "--check", staged, "-q")
    assert r.returncode == 0 and r.stdout == f"{staged} passed; 3 stages, the same counts in each\n"
    plain = "cute: Layout<Shape<_64,_64,_2>,Stride<_64,_1,_4096>>{}"
    r = clirun.solve("--rows", "64", "--cols", "64", "--dtype", "f16", "--access", "ldmatrix.x4", "--check", plain, "-q")
    assert r.returncode == 1 and r.stdout == f"{plain} failed; minimal: Swizzle<3,3,3>; 2 stages, the same counts in each\n"
    r = clirun.solve("--rows", "64", "--cols", "64", "--dtype", "f16", "--access", "ldmatrix.x4", "--check", plain)
    assert "2 stages, the same counts in each; the counts are stage 0's" in " ".join(r.stdout.split())


def test_overlapping_stages_are_not_usable():
    text = "cute: Layout<Shape<_64,_64,_2>,Stride<_64,_1,_64>>{}"
    checked = api.check(text, rows=64, cols=64, dtype="f16", access=["row"])
    assert checked.status == "not-usable"
    assert checked.invalid == "stages 0 and 1 overlap: element (1, 0) of stage 0 and (0, 0) of stage 1 are both at offset 64"


def test_staged_json_validates():
    text = "cute: Layout<Shape<_64,_64,_2>,Stride<_64,_1,_4100>>{}"
    r = clirun.solve("--rows", "64", "--cols", "64", "--dtype", "f16", "--access", "ldmatrix.x4", "--check", text, "--json")
    doc = json.loads(r.stdout)
    assert r.returncode == 1 and doc["check"]["stage"] == 1 and len(doc["check"]["stages"]) == 2
    assert doc["status"] == "not-usable"
    validate(doc)


def test_batch_checks_a_staged_layout(tmp_path):
    (tmp_path / "b.toml").write_text(
        '[[case]]\nname = "stages"\nrows = 64\ncols = 64\ndtype = "f16"\naccess = ["ldmatrix.x4"]\n'
        'check = "cute: tile_to_shape(composition(Swizzle<3,3,3>{}, Layout<Shape<_8,_64>,Stride<_64,_1>>{}), '
        'Shape<_64,_64,_2>{})"\nexpect_status = "conflict-free"\n')
    r = clirun.solve("batch", str(tmp_path / "b.toml"), "--json")
    doc = json.loads(r.stdout)
    assert r.returncode == 0, r.stdout[-500:]
    assert [s["same_as"] for s in doc["cases"][0]["result"]["check"]["stages"]] == [None, 0]


@pytest.mark.parametrize("text, words", [
    ("cute: Layout<Shape<_8,_8,_2,_2>,Stride<_8,_1,_64,_128>>{}", ["two modes (or three"]),
    ("cute: tile_to_shape(Layout<Shape<_8,_8,_2>,Stride<_8,_1,_64>>{}, Shape<_16,_16,_2>{})", ["block is a layout"]),
    ("cute: tile_to_shape(Layout<Shape<_8,_8>,Stride<_8,_1>>{}, Shape<_16,_16,_2>{}, Step<_1,_2>{})",
     ["Step<_1,_2,_3>"]),
    ("cute: Layout<Shape<_16,_16,_65>,Stride<_16,_1,_256>>{}", ["65 stages", "64"]),
])
def test_bad_stage_modes_are_one_line(text, words):
    r = clirun.solve("--rows", "16", "--cols", "16", "--access", "row", "--check", text, "-q")
    clirun.assert_input_error(r, *words)


def test_a_gmma_atom_tiled_with_stages():
    """CUTLASS's usual SmemLayout: tile_to_shape(GMMA atom, make_shape(M, K, Stages)); each stage is
    pycute's slice of the atom (Swizzle<3,3,3> over (8,64):(64,1) for half_t K SW128) tiled to (M, K, S)."""
    ref = pycute_tile_to_shape3(pycute.Layout((8, 64), (64, 1)), (128, 64, 4), (1, 2, 3))
    want = [np.vectorize(pycute.Swizzle(3, 3, 3))(t) for t in pycute_stages(ref, 128, 64, 4)]
    text = "cute: tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>{}, make_shape(Int<128>{}, Int<64>{}, Int<4>{}))"
    got = stage_tables(text, Tile(128, 64, 64, 2))
    assert len(got) == 4 and all(np.array_equal(g, w) for g, w in zip(got, want))


def test_several_targets_check_every_stage():
    """--arch sm90,gfx942: each target's verdict is its staged check's, and the line says the stages."""
    text = "cute: Layout<Shape<_64,_64,_2>,Stride<_64,_1,_4100>>{}"
    r = clirun.solve("--rows", "64", "--cols", "64", "--dtype", "f16", "--access", "8x8", "--arch", "sm90,gfx942",
                     "--check", text, "-q")
    assert r.returncode == 1 and r.stdout.startswith(f"{text} not usable; 2 stages: ")
    for arch in ("sm90", "gfx942"):
        one = api.check(text, rows=64, cols=64, dtype="f16", access=["8x8"], arch=arch)
        assert one.stage == 1 and one.status == "not-usable" and one.stages_summary in r.stdout
