"""Traps found when real kernels were stated (issue 34, item 4): each one a test.

The counts here are checked against brute forces written from the PTX ISA's fragment formulas and
DESIGN.md section 1's bank rule (a request costs the most distinct 4-byte words in one bank), not
the tool's own simulator.
"""
import re

import numpy as np
import pytest

from swizzle_solver import api, simulate
from swizzle_solver.access import make_hardware
from swizzle_solver.families.cute import Swizzle
from swizzle_solver.model import InputError
from tests import clirun

NVIDIA = make_hardware()


def _fragment_brute_force(rows, cols, shape, operand, elem_bytes, phys_stored) -> list[int]:
    """mma-a/mma-b on a column-major tile of rows (m or n) x cols (k): lane l's register j holds
    (g + 8 (j % 2), K-block j // 2) (A) or (g, K-block j) (B), g = l / 4, t = l % 4; element (m, k)
    is stored at stored row k, column m (m contiguous), so each element is its own ld.shared."""
    k = int(shape.split("k")[1])
    per = 4 // elem_bytes
    height = 16 if operand == "a" else 8
    registers = height * k * elem_bytes // 4 // 32
    costs = []
    for m0 in range(0, rows, height):
        for k0 in range(0, cols, k):
            for j in range(registers):
                for i in range(per):
                    banks: dict[int, set[int]] = {}
                    for lane in range(32):
                        g, t = lane // 4, lane % 4
                        m = g + 8 * (j % 2) if operand == "a" else g
                        kk = (j // 2 if operand == "a" else j) * 4 * per + t * per + i
                        word = int(phys_stored[k0 + kk, m0 + m]) * elem_bytes // 4
                        banks.setdefault(word % 32, set()).add(word)
                    costs.append(max(map(len, banks.values())))
    return costs


@pytest.mark.parametrize("spec", ["mma-a:m16n8k16", "mma-b:m16n8k16", "mma-a:m16n8k8:mn"])
def test_mma_fragments_follow_the_column_major_tile(spec):
    """Under --order col the fragment's (r, c) is still (m, k): an M-major read in memory, not the
    K-major read of the stored tile (the trap: counted K-major unless :mn was added)."""
    problem = api.problem(64, 32, [spec], elem_bytes=2, order="col")
    (p,) = problem.patterns
    tile = problem.tile  # stored: 32 (k) x 64 (m)
    r, c = np.meshgrid(np.arange(tile.rows), np.arange(tile.cols), indexing="ij")
    operand, shape = spec[4], spec.split(":")[1]
    for layout in (None, Swizzle(3, 3, 3), Swizzle(2, 3, 3)):
        phys = r * tile.row_length + c if layout is None else layout.phys(tile, r, c)
        ours = simulate.simulate(tile, NVIDIA, [p], phys)[0].costs
        expected = _fragment_brute_force(64, 32, shape, operand, 2, phys)
        assert sorted(ours.tolist()) == sorted(expected), (spec, layout)
    assert "M-major" in p.summary or "N-major" in p.summary


def test_k_major_fragment_on_a_column_major_tile_is_refused():
    with pytest.raises(InputError, match=re.escape("use --order row for a K-major tile")):
        api.problem(64, 32, ["mma-a:m16n8k16:k"], elem_bytes=2, order="col")


# --- a store named as such: store:warp:..., store:FILE (counted under ncu's _op_st) ---------------

def _counter_names(doc) -> list[tuple[str, str]]:
    """(spec, the op of its counter's names) for every access of a --check document."""
    return [(x["spec"], next(iter(x["counter"])).rsplit("_op_", 1)[1].split(".")[0]) for x in _walk_accesses(doc)]


def test_a_named_store_is_counted_under_op_st(tmp_path):
    doc = api.check("none", rows=32, cols=64, elem_bytes=2,
                    access=["store:warp:4x8:1x8", "warp:4x8:1x8", "load:8x8"]).json()
    names = dict(_counter_names(doc))
    assert names == {"store:warp:4x8:1x8": "st", "warp:4x8:1x8": "ld", "load:8x8": "ld"}
    # the direction changes the counter's name, not the count
    waves = {}
    for spec, counter in ((a["spec"], a["counter"]) for a in _walk_accesses(doc)):
        waves[spec] = sorted(counter.values())
    assert waves["store:warp:4x8:1x8"] == waves["warp:4x8:1x8"]


def _walk_accesses(doc):
    found = []

    def walk(x):
        if isinstance(x, dict):
            if "spec" in x and isinstance(x.get("counter"), dict):
                found.append(x)
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
    walk(doc)
    return found


def test_a_linear_layout_store(tmp_path):
    import json

    doc = {"register": [[0, 1], [0, 2]], "lane": [[0, 4], [0, 8], [0, 16], [1, 0], [2, 0]], "warp": [], "block": [],
           "out_dims": {"dim0": 4, "dim1": 32}}
    (tmp_path / "ll.json").write_text(json.dumps(doc))
    from swizzle_solver.access import make_problem

    problem = make_problem(32, 32, [], None, 2, layout_files=[f"store:{tmp_path / 'll.json'}"])
    out = api.check("none", problem).json()
    (spec, op), *_ = _counter_names(out)
    assert spec.startswith("store:") and op == "st"


def test_a_contradicting_direction_is_one_line(capsys):
    from swizzle_solver.cli import main

    assert main(["--rows", "32", "--cols", "64", "--dtype", "f16", "--access", "load:stmatrix.x4"]) == 2
    err = capsys.readouterr()
    assert err.out == "" and len(err.err.strip().splitlines()) == 1 and "is a store itself" in err.err


def test_a_linear_layout_store_is_never_a_paired_load(tmp_path):
    """Lanes repeating in pairs (a broadcast lane bit) with 16-byte vectors: a load is served in 2
    merged phases per request, a store in 4 of 8 lanes (hardware.Hardware.pairs)."""
    import json

    from swizzle_solver.access import make_problem

    doc = {"register": [[0, 1], [0, 2]], "lane": [[0, 0], [0, 4], [0, 8], [1, 0], [2, 0]], "warp": [], "block": [],
           "out_dims": {"dim0": 4, "dim1": 16}}
    (tmp_path / "ll.json").write_text(json.dumps(doc))
    load = make_problem(4, 16, [], None, 4, layout_files=[str(tmp_path / "ll.json")]).patterns[0]
    store = make_problem(4, 16, [], None, 4, layout_files=[f"store:{tmp_path / 'll.json'}"]).patterns[0]
    assert (load.placements, store.placements) == (2, 4)
    assert store.direction == "store" and store.spec.startswith("store:")


# --- a column-major layout checked without --order col -------------------------------------------

M_MAJOR = "cute: composition(Swizzle<3,3,3>{}, Layout<Shape<_64,_64>,Stride<_1,_64>>{})"


def _invalid(doc) -> str | None:
    return doc["check"].get("invalid")


def test_a_column_major_layout_without_order_col_names_it():
    doc = api.check(M_MAJOR, rows=64, cols=64, dtype="f16", access=["ldmatrix.x4"]).json()
    assert "it looks column-major; add --order col" in _invalid(doc)
    # and with it, the same layout is sound (the vectors of ldmatrix.x4.trans run down a column)
    assert _invalid(api.check(M_MAJOR, rows=64, cols=64, dtype="f16", access=["ldmatrix.x4.trans"],
                              order="col").json()) is None


def test_a_row_major_layout_under_order_col_names_it():
    doc = api.check("expr: r * 64 + (c ^ ((r & 7) << 3))", rows=64, cols=64, dtype="f16", access=["8x8"],
                    order="col").json()
    assert "it looks row-major; drop --order col" in _invalid(doc)


def test_an_xor_that_splits_vectors_keeps_its_own_hint():
    """A layout that splits vectors both ways is not called column-major."""
    doc = api.check("Swizzle<3,2,3>", rows=64, cols=64, dtype="f16", access=["8x8"]).json()
    assert "column-major" not in _invalid(doc) and "2^M >= elements per vector" in _invalid(doc)


# --- a long --check text: abbreviated in the table, printed whole once ---------------------------

def test_a_long_check_text_keeps_the_table_whole():
    text = "cute: tile_to_shape(composition(Swizzle<3,3,3>{}, Layout<Shape<_8,_64>,Stride<_64,_1>>{}), Shape<_64,_64>{})"
    got = clirun.solve("--rows", "64", "--cols", "64", "--dtype", "f16", "--access", "ldmatrix.x4", "--access",
                       "cp.async", "--check", text, env={"COLUMNS": "80"})  # in this process, 80 columns
    assert got.returncode == 0, got.stderr
    out = got.stdout
    section = out[out.index("Checked layout"):out.index("cells: worst")]
    assert "(part" not in section  # one table, every column in it
    assert section.count(f"[1] {text}\n") == 1  # the whole text once, on one line
    row = next(line for line in section.splitlines() if line.startswith("  *"))
    assert "[1]" in row and "ldmatrix" not in row and len(row) <= 80
