"""--order col (DESIGN.md section 10, "Orientation"): a column-major tile.

- its counts are the transposed problem's, with each access transposed (an MxN block is the
  transposed tile's NxM block; `row` the transposed tile's Wx1 scalar column; `col` its 1xK scalar
  row; an instruction form is in storage orientation, the same spec; --phases lanes transposed);
- an independent counter written here from the definition (element (r, c) stored at
  c * pitch + r, vectors down a column, pycute's Swizzle, NVIDIA's banks) agrees with the tool;
- every emitted snippet indexes the user's (r, c): the C function compiled and run, CuTe rebuilt
  with pycute, the CuTe DSL executed with pycute standing in, Triton through Triton's formulas with
  the dimensions in its `order`, and read back through `triton:`, Mojo by swizzle.mojo's formula;
- the CLI, JSON (schema), batch, pictures and the refusals.

The hypothesis forms are in the slow tier (tests/conftest.py); one small deterministic instance of
each runs in the default tier.
"""
import json
import re
import sys
import types

import numpy as np
import pycute
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from swizzle_solver import api
from swizzle_solver.access import make_problem
from swizzle_solver.emit import TARGETS, emit
from swizzle_solver.families import padding
from swizzle_solver.families.cute import Swizzle
from swizzle_solver.families.identity import Identity
from swizzle_solver.families.linear import XorLinear
from swizzle_solver.families.panels import ColumnPanels
from swizzle_solver.families.row_interleave import RowInterleave
from swizzle_solver.families.xor_cols import XorCols
from swizzle_solver.layout import layout_table
from swizzle_solver.model import InputError, log2
from swizzle_solver.orient import swap_rc
from tests import compiled_c
from tests.clirun import solve as proc  # in-process: the batch runs need no process
from tests.cute_grid import grid
from tests.test_cli import EXAMPLES, run
from tests.test_schema import validate

# --- the counts are the transposed problem's -----------------------------------------------------


def transposed_access(spec: str, rows: int, cols: int, elem_bytes: int) -> str:
    """The row-order spec of the transposed tile (cols x rows) that reads what ``spec`` reads of the
    column-major rows x cols tile."""
    m = re.fullmatch(r"(\d+)x(\d+)(v\d+)?", spec)
    if m:
        return f"{m[2]}x{m[1]}{m[3] or ''}"
    if spec == "row":  # one wavefront of a row, scalar lanes: a scalar column run of the transposed tile
        return f"{min(cols, 128 // elem_bytes)}x1"
    if spec == "col":  # one element of `banks` rows: a scalar row run of the transposed tile
        return f"1x{min(rows, 32)}v{elem_bytes}"
    return spec  # an instruction form: in storage orientation


def per_access(doc: dict) -> list[tuple]:
    return [(a["worst_wavefronts"], a["total_wavefronts"], a["lower_bound"]) for a in doc["answer"]["per_access"]]


def same_counts(rows, cols, pitch, e, access, layouts):
    col = dict(rows=rows, cols=cols, row_length=pitch, elem_bytes=e, access=access, order="col")
    row = dict(rows=cols, cols=rows, row_length=pitch, elem_bytes=e,
               access=[transposed_access(a, rows, cols, e) for a in access])
    for layout in layouts:
        a, b = api.check(layout, **col), api.check(layout, **row)
        assert a.status == b.status, layout
        assert per_access(a.json()) == per_access(b.json()), layout
    a, b = api.solve(**col), api.solve(**row)
    assert (a.name, a.status) == (b.name, b.status)
    assert per_access(a.json()) == per_access(b.json())
    assert a.json()["problem"]["order"] == "col" and b.json()["problem"]["order"] == "row"
    assert (a.json()["problem"]["rows"], a.json()["problem"]["cols"]) == (rows, cols)


@pytest.mark.parametrize("rows, cols, pitch, e, access", [
    (16, 8, 16, 4, ["4x8", "col"]),
    (32, 16, 40, 2, ["8x8", "row"]),
    (64, 16, 64, 2, ["ldmatrix.x4.trans", "16x1"]),
    (8, 32, 8, 4, ["8x4v16", "2x8"]),
])
def test_col_counts_are_the_transposed_problems(rows, cols, pitch, e, access):
    same_counts(rows, cols, pitch, e, access, ["none", "Swizzle<1,2,3>", "Swizzle<3,1,3>", "XorCols<2,0,0>"])


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([4, 8, 16, 32]), st.sampled_from([4, 8, 16, 32]), st.sampled_from([0, 4, 8]),
       st.sampled_from([1, 2, 4, 8]), st.data())
def test_col_counts_are_the_transposed_problems_property(rows, cols, spare, e, data):
    pitch = rows + spare
    m = data.draw(st.sampled_from([d for d in (1, 2, 4, 8) if d <= rows]))
    n = data.draw(st.sampled_from([d for d in (1, 2, 4, 8) if cols % d == 0]))
    access = [f"{m}x{n}"] + data.draw(st.lists(st.sampled_from(["row", "col"]), max_size=1))
    assume("row" not in access or cols % min(cols, 128 // e) == 0)
    b, mm, s = data.draw(st.integers(1, 3)), data.draw(st.integers(0, 3)), data.draw(st.integers(3, 5))
    same_counts(rows, cols, pitch, e, access, ["none", f"Swizzle<{b},{mm},{s}>"])


def test_phases_file_lanes_are_transposed(tmp_path):
    """A --phases lane [r, c, bytes] of the column-major tile is the transposed tile's [c, r, bytes]."""
    lanes = [[r, c, 8] for c in range(4) for r in (0, 4)]
    (tmp_path / "col.toml").write_text(f'[[pattern]]\nname = "p"\nphases = [{json.dumps(lanes)}]\n')
    (tmp_path / "row.toml").write_text(f'[[pattern]]\nname = "p"\nphases = [{json.dumps([[c, r, b] for r, c, b in lanes])}]\n')
    for layout in ("none", "Swizzle<2,1,3>"):
        a = api.check(layout, rows=8, cols=4, elem_bytes=2, phases=[str(tmp_path / "col.toml")], order="col")
        b = api.check(layout, rows=4, cols=8, elem_bytes=2, phases=[str(tmp_path / "row.toml")])
        assert per_access(a.json()) == per_access(b.json())


def test_linear_layout_bases_are_transposed(tmp_path):
    """A --linear-layout access of the column-major tile is the transposed tile's with each basis
    [row, col] as [col, row] (its vectors, consecutive registers in storage, now down a column)."""
    doc = {"register": [[1, 0], [0, 8]], "lane": [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], "warp": [], "block": [],
           "out_dims": {"dim0": 8, "dim1": 16}}
    flip = {k: [b[::-1] for b in v] for k, v in doc.items() if k != "out_dims"}
    flip["out_dims"] = {"dim0": 16, "dim1": 8}
    (tmp_path / "col.json").write_text(json.dumps(doc))
    (tmp_path / "row.json").write_text(json.dumps(flip))
    col = make_problem(64, 32, [], None, 4, layout_files=[str(tmp_path / "col.json")], order="col")
    row = make_problem(32, 64, [], None, 4, layout_files=[str(tmp_path / "row.json")])
    assert col.patterns[0].vector_bytes == 8  # registers 0 and 1 are consecutive down a column
    for layout in ("none", "Swizzle<2,1,3>"):
        assert per_access(api.check(layout, col).json()) == per_access(api.check(layout, row).json())


# --- an independent counter ----------------------------------------------------------------------


def brute_worst(rows, cols, pitch, e, m, n, sw):
    """Worst and total wavefronts of the MxN block over the column-major tile under the CuTe swizzle
    ``sw`` (pycute), from the definition: element (r, c) at sw(c * pitch + r); each column's M-run
    read as V-byte vectors (the largest power of two <= 16 dividing M*e and pitch*e); placements:
    columns in bands of N, rows from 0 in steps of M; one phase per placement (<= 128 B, <= 32
    lanes); cost = most distinct 4-byte words in one of 32 banks."""
    v = 16
    while (m * e) % v or (pitch * e) % v:
        v //= 2
    v = max(v, e)
    worst = total = 0
    for c0 in range(0, cols, n):
        for r0 in range(0, rows - m + 1, m):
            words: dict[int, set] = {}
            for c in range(c0, c0 + n):
                for k in range(m * e // v):
                    start = sw(c * pitch + r0 + k * v // e) * e
                    for b in range(start, start + v):
                        words.setdefault(b // 4 % 32, set()).add(b // 4)
            cost = max(len(w) for w in words.values())
            worst, total = max(worst, cost), total + cost
    return worst, total


def check_brute(rows, cols, pitch, e, m, n, triple) -> bool:
    """The tool's counts against brute_worst; False when the swizzle is not usable on the tile (not a
    bijection of its storage, or it splits a vector): nothing to compare."""
    name = "none" if triple[0] == 0 else f"Swizzle<{triple[0]},{triple[1]},{triple[2]}>"
    got = api.check(name, rows=rows, cols=cols, row_length=pitch, elem_bytes=e, access=[f"{m}x{n}"], order="col")
    if got.invalid is not None:
        return False
    (worst, total, _), = per_access(got.json())
    assert (worst, total) == brute_worst(rows, cols, pitch, e, m, n, pycute.Swizzle(*triple))
    return True


@pytest.mark.parametrize("rows, cols, pitch, e, m, n, triple", [
    (16, 8, 16, 4, 4, 8, (1, 2, 3)), (16, 8, 16, 4, 4, 8, (0, 2, 3)), (32, 8, 32, 2, 8, 8, (3, 3, 3)),
    (32, 8, 32, 2, 8, 8, (0, 3, 3)), (8, 16, 8, 4, 8, 4, (2, 2, 3)), (64, 4, 64, 1, 16, 4, (2, 4, 4))])
def test_col_counts_match_an_independent_counter(rows, cols, pitch, e, m, n, triple):
    assert check_brute(rows, cols, pitch, e, m, n, triple)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([8, 16, 32, 64]), st.sampled_from([4, 8, 16]), st.sampled_from([1, 2, 4]), st.data())
def test_col_counts_match_an_independent_counter_property(rows, cols, e, data):
    m = data.draw(st.sampled_from([d for d in (1, 2, 4, 8, 16, 32) if d <= rows]))
    n = data.draw(st.sampled_from([d for d in (1, 2, 4, 8) if cols % d == 0]))
    assume(m * n * e <= 128)
    v = 16
    while (m * e) % v or (rows * e) % v:
        v //= 2
    assume(m * n * e // max(v, e) <= 32)
    triple = (data.draw(st.integers(0, 3)), data.draw(st.integers(0, 4)), data.draw(st.integers(3, 6)))
    assume(triple[0] <= triple[2])
    assume(check_brute(rows, cols, rows, e, m, n, triple))


# --- the accesses: what a spec means under col order, and what is refused -----------------------


def test_a_block_reads_vectors_down_a_column():
    p = api.problem(16, 8, ["8x4"], elem_bytes=2, order="col")
    (a,) = p.patterns
    assert (a.rows, a.cols, a.vector_bytes) == (8, 4, 16)  # the user's footprint; one 8-element vector per column
    assert a.footprint() == "8 rows x 4 elements"
    lanes = a.phase_lanes(0)  # stored orientation: stored row = the tile's column
    assert [(r, c) for r, c, _ in lanes] == [(0, 0), (1, 0), (2, 0), (3, 0)]


@pytest.mark.parametrize("spec, words", [
    ("4x2:2v8", "under --order col a vector runs down a column"),
    ("rowv8", "under --order col a vector runs down a column"),
    ("4x3", "under --order col is the stored (transposed) tile's 3x4 block"),
])
def test_refused_under_col_order(spec, words):
    with pytest.raises(InputError, match=re.escape(words)):
        api.problem(16, 8, [spec], elem_bytes=2, order="col")


def test_strided_rows_read_scalar_lanes():
    (a,) = api.problem(16, 8, ["4x2:2"], elem_bytes=2, order="col").patterns
    assert a.vector_bytes == 2 and (a.rows, a.cols, a.row_stride) == (4, 2, 2)


def test_bad_order_and_pitch_are_one_line(capsys):
    code, out, err = run(capsys, "--rows", "8", "--cols", "8", "--order", "diag", "--access", "4x4")
    assert code == 2 and out == "" and err.count("\n") == 1 and "--order 'diag'" in err
    code, out, err = run(capsys, "--rows", "16", "--cols", "8", "--order", "col", "--row-length", "12",
                         "--access", "4x4")
    assert code == 2 and out == "" and "under --order col the pitch is the column length" in err


# --- the report, JSON, pictures, batch -----------------------------------------------------------


def test_json_describes_the_users_tile(capsys):
    code, out, _ = run(capsys, "--rows", "16", "--cols", "8", "--order", "col", "--row-length", "20",
                       "--access", "4x8", "--json", "--emit", "all")
    doc = json.loads(out)
    validate(doc)
    p = doc["problem"]
    assert (p["rows"], p["cols"], p["order"], p["row_length"]) == (16, 8, "col", 20)
    for lane in doc["proof"]["accesses"][0]["worst_placement"]["lanes"]:
        assert 0 <= lane["row"] < 16 and 0 <= lane["col"] < 8
    expression = doc["answer"]["expression"]  # a C expression of the user's (r, c)
    table = layout_table(api.problem(16, 8, ["4x8"], row_length=20, order="col").tile,
                         api.solve(rows=16, cols=8, row_length=20, access=["4x8"], order="col").layout)
    c_expr = expression.replace("/", "//")
    got = np.array([[eval(c_expr, {"r": r, "c": c}) for c in range(8)] for r in range(16)])  # noqa: S307 (our own output)
    assert np.array_equal(got, table.T)


def test_family_extras_name_the_users_rc():
    """A two-level layout's C steps and Triton bases under col order are the transposed problem's,
    with r and c (rows and columns) exchanged; its C steps evaluate to the user's table."""
    layout = "Swizzle<1,0,3> then Swizzle<1,1,4>"
    a = api.check(layout, rows=32, cols=16, access=["4x8"], order="col").json()["answer"]
    b = api.check(layout, rows=16, cols=32, access=["8x4"]).json()["answer"]
    assert a["triton_bases"] == {"row": [x[::-1] for x in b["triton_bases"]["col"]],
                                 "col": [x[::-1] for x in b["triton_bases"]["row"]]}
    assert len(a["steps"]) == 2 and "c * 32 + r" in a["steps"][0]
    p = api.problem(32, 16, ["4x8"], order="col")
    table = truth(p, api.check(layout, p).layout)
    for r in range(32):
        for c in range(16):
            scope = {"r": r, "c": c}
            for step in a["steps"]:
                exec(step.rstrip(";"), scope)  # noqa: S102 (our own output: C steps that are Python too)
            assert scope["phys"] == table[r, c]


def test_rank_proof_names_the_users_bits(capsys):
    code, out, _ = run(capsys, "--rows", "32", "--cols", "8", "--order", "col", "--dtype", "f16",
                       "--access", "8x8", "--json")
    gf2 = json.loads(out)["proof"]["accesses"][0]["gf2"]
    # 8 rows x 8 columns read as one 16-byte vector per column: the varying bits are the columns'
    assert gf2["varying_bits"] == ["c0", "c1", "c2"]


def test_pictures_say_which_way_storage_runs(capsys, tmp_path):
    code, out, _ = run(capsys, "--rows", "16", "--cols", "8", "--order", "col", "--access", "4x8", "--show")
    assert code == 0 and "storage runs down each column" in out
    svg = tmp_path / "f.svg"
    code, _, _ = run(capsys, "--rows", "16", "--cols", "8", "--order", "col", "--access", "4x8", "--svg", str(svg), "-q")
    assert code == 0 and "storage runs down each column" in svg.read_text()
    before, after = api.bank_maps(api.problem(16, 8, ["4x8"], order="col"), Swizzle(2, 2, 3), None)
    assert after.banks.shape == (16, 8) and all(r < 16 and c < 8 for r, c in after.footprint)


def test_batch_case_with_order(tmp_path):
    (tmp_path / "cases.toml").write_text(
        '[[case]]\nname = "m-major"\nrows = 16\ncols = 8\norder = "col"\naccess = ["4x8"]\nexpect = "Swizzle<2,2,3>"\n'
        '[[case]]\nname = "bad"\nrows = 16\ncols = 8\norder = "sideways"\naccess = ["4x8"]\n')
    done = proc("batch", str(tmp_path / "cases.toml"), "--case", "m-major")
    assert done.returncode == 0, done.stdout + done.stderr
    bad = proc("batch", str(tmp_path / "cases.toml"))
    assert bad.returncode == 2 and "--order 'sideways'" in bad.stderr


def test_the_cutlass_3172_example_in_one_command():
    done = proc("batch", EXAMPLES, "--case", "CUTLASS issue 3172: Swizzle<3,3,4> on an M-major atom, ldmatrix.trans")
    assert done.returncode == 0, done.stdout + done.stderr


# --- notations: a full (r, c) -> offset map needs no order, and reads the same ------------------


@pytest.mark.parametrize("text", [
    "expr: (c * 16 + r) ^ ((c & 7) << 1)",
    "cute: composition(Swizzle<3,1,4>{}, Layout<Shape<_16,_32>,Stride<_1,_16>>{})",
    "triton: #ttg.swizzled_shared<{vec = 2, perPhase = 1, maxPhase = 8, order = [0, 1]}>",
])
def test_a_notation_is_the_same_map_in_either_order(text):
    """The counts of a layout that gives every (r, c)'s offset do not depend on --order, except
    through the accesses (a vector runs along the stored order): with scalar accesses they agree."""
    access = ["4x4:2v4", "col", "row"]
    a = api.check(text, rows=16, cols=32, elem_bytes=4, access=access, order="col")
    b = api.check(text, rows=16, cols=32, elem_bytes=4, access=access)
    assert a.invalid is None and b.invalid is None
    assert per_access(a.json()) == per_access(b.json())


def test_byte_swizzle_is_of_the_stored_offset():
    """bytes:Swizzle<B,M,S> swizzles the stored byte offset (c * pitch + r) * e under col order."""
    a = api.check("bytes:Swizzle<3,4,3>", rows=64, cols=8, dtype="f16", access=["8x8"], order="col")
    b = api.check("Swizzle<3,3,3>", rows=64, cols=8, dtype="f16", access=["8x8"], order="col")
    assert a.passed and per_access(a.json()) == per_access(b.json())


# --- the emitted code indexes the user's (r, c) -------------------------------------------------


def col_case(rows, cols, access, layout=None, row_length=None, e=4):
    p = api.problem(rows, cols, access, row_length=row_length, elem_bytes=e, order="col")
    return p, (layout or api.solve(p).layout)


COL_CASES = {
    "sw128 f16 M-major": col_case(64, 64, ["8x8"], e=2),
    "swizzle, padded column": col_case(40, 32, ["4x8"], row_length=40),
    "gmma, two atoms each way": col_case(128, 16, ["8x8"], ColumnPanels(128), e=2),
    "xor-cols": col_case(32, 16, ["4x8"], XorCols(3, 2, 0)),
    "plain padded": col_case(8, 16, ["1x16"], row_length=9),
    "negative S": col_case(32, 16, ["4x8"], Swizzle(2, 1, -3)),
    "padding, a power of two": col_case(8, 32, ["1x1"], padding.Padded(12, Identity())),
    "linear": col_case(32, 16, ["1x1"], XorLinear(((0, 5), (1, 7), (2, 5)))),
}


def _examples() -> dict:
    """examples.toml's column-major cases: the layout each checks, or its answer."""
    from tests.golden import examples

    out = {}
    for case in examples():
        if case.problem.tile.col_major:
            out[f"example: {case.name}"] = (case.problem, case.check or api.solve(case.problem).layout)
    return out


COL_CASES.update(_examples())


def truth(p, layout):
    """The user's phys[r, c]: the stored tile's table, turned back."""
    return layout_table(p.tile, layout).T


def table_of(fn, p):
    """fn(r, c) over the user's tile: a pycute layout at numpy speed (tests/cute_grid.py, checked
    against pycute's own call at spread points), any other function element by element."""
    rows, cols = p.tile.logical_shape
    if isinstance(fn, (pycute.Layout, pycute.ComposedLayout)):
        return grid(fn, rows, cols)
    return np.array([[fn(r, c) for c in range(cols)] for r in range(rows)], dtype=np.int64)


def test_swizzle_truth_is_the_swizzle_of_the_column_major_offset():
    p, layout = COL_CASES["sw128 f16 M-major"]
    sw = pycute.Swizzle(3, 3, 3)
    assert layout.name == "Swizzle<3,3,3>"
    assert np.array_equal(truth(p, layout), table_of(lambda r, c: sw(c * 64 + r), p))


@pytest.fixture(scope="module")
def c_tables(tmp_path_factory):
    cases = list(COL_CASES.values())
    functions = [emit("cuda", p, layout).code.replace("swizzle_phys", f"swizzle_phys_{i}")
                 for i, (p, layout) in enumerate(cases)]
    calls = [(f"swizzle_phys_{i}", *p.tile.logical_shape) for i, (p, _) in enumerate(cases)]
    return dict(zip(COL_CASES, compiled_c.tables(tmp_path_factory.mktemp("cc"), functions, calls)))


@pytest.mark.parametrize("name", list(COL_CASES))
def test_cuda_function_indexes_the_users_rc(name, c_tables):
    p, layout = COL_CASES[name]
    assert np.array_equal(c_tables[name], truth(p, layout).ravel())


def pycute_col_layout(p, code):
    """The layout a col-order cute snippet declares, rebuilt with pycute (None: it declares none)."""
    rows, cols = p.tile.logical_shape
    atom = re.search(r"tile_to_shape\(cute::GMMA::Layout_MN_SW(\d+)_Atom<T>\{\},\s*cute::Shape<cute::Int<(\d+)>, "
                     r"cute::Int<(\d+)>>\{\}, cute::Step<cute::_2, cute::_1>\{\}\)", code)
    if atom:  # the MN-major atom (W bytes of M x 8 K, M contiguous), tiled K first (Step<_2,_1>), then bytes swizzled
        width, m, k = map(int, atom.groups())
        assert (m, k) == (rows, cols)
        w = width // p.tile.elem_bytes
        size = w * 8
        byte_sw = pycute.Swizzle({32: 1, 64: 2, 128: 3}[width], 4, 3)
        e = p.tile.elem_bytes
        return lambda r, c: byte_sw(((r % w) + (c % 8) * w + size * (c // 8 + (r // w) * (cols // 8))) * e) // e
    plain = re.search(r"cute::Layout<cute::Shape<cute::Int<(\d+)>, cute::Int<(\d+)>>,\s*cute::Stride<cute::Int<1>, "
                      r"cute::Int<(\d+)>>>", code)
    if plain is None or "cannot express" in code:
        return None
    back = None
    if "make_composed_layout(\n" in code:  # an outer map of offsets (xor-cols on a padded pitch), kept as emitted
        q, stored_rows, pitch_back = map(int, plain.groups())
        back = pycute.Layout((q, stored_rows), (1, pitch_back))
        plain = re.search(r"cute::Layout<cute::Shape<cute::Int<(\d+)>, cute::Int<(\d+)>>,\s*cute::Stride<cute::Int<1>, "
                          r"cute::Int<(\d+)>>>", code[plain.end():])
    r_, c_, pitch = map(int, plain.groups())
    assert (r_, c_) == (rows, cols)
    inner = pycute.Layout((rows, cols), (1, pitch))
    nested = re.findall(r"using SmemSwizzle\d+ = cute::Swizzle<(\d+),(\d+),(-?\d+)>;", code)
    if nested:  # make_composed_layout(Sw2, 0, composition(Sw1, layout)): Sw1 first, then Sw2
        for triple in nested:
            inner = pycute.ComposedLayout(pycute.Swizzle(*map(int, triple)), 0, inner)
        return inner
    sw = re.search(r"Swizzle<(\d+),(\d+),(-?\d+)>(?:;|\{\})", code)
    swizzled = inner if sw is None else pycute.ComposedLayout(pycute.Swizzle(*map(int, sw.groups())), 0, inner)
    return swizzled if back is None else pycute.ComposedLayout(back, 0, swizzled)


@pytest.mark.parametrize("name", list(COL_CASES))
def test_cute_snippet_indexes_the_users_rc(name):
    p, layout = COL_CASES[name]
    snippet = emit("cute", p, layout)
    rebuilt = pycute_col_layout(p, snippet.code)
    assert (rebuilt is not None) == snippet.expressible
    assert np.array_equal(table_of(rebuilt, p), truth(p, layout))


def test_cute_m_major_atom_for_gmma():
    p, layout = COL_CASES["gmma, two atoms each way"]
    code = emit("cute", p, layout).code
    assert "Layout_MN_SW128_Atom<T>" in code and "Layout_K_" not in code


@pytest.mark.parametrize("name", list(COL_CASES))
def test_cute_dsl_snippet_indexes_the_users_rc(name, monkeypatch):
    p, layout = COL_CASES[name]
    snippet = emit("cute-dsl", p, layout)
    cute = types.SimpleNamespace(make_swizzle=pycute.Swizzle, make_layout=lambda shape, stride: pycute.Layout(shape, stride),
                                 make_composed_layout=lambda inner, offset, outer: pycute.ComposedLayout(inner, offset, outer))
    cutlass = types.ModuleType("cutlass")
    cutlass.cute = cute
    monkeypatch.setitem(sys.modules, "cutlass", cutlass)
    monkeypatch.setitem(sys.modules, "cutlass.cute", cute)
    scope: dict = {}
    exec(snippet.code, scope)  # noqa: S102 (our own output)
    fn = scope["smem_layout"] if snippet.expressible else scope["smem_offset"]
    assert np.array_equal(table_of(fn, p), truth(p, layout))


def triton_swizzled_col(p, vec, per_phase, max_phase):
    """swizzledSharedToLinearLayout (lib/Dialect/TritonGPU/IR/LinearLayoutConversions.cpp) with order
    [0, 1]: dim 0 (r) is the contiguous dimension, dim 1 (c) the swizzled rows; offset -> (r, c)."""
    rows, cols = p.tile.logical_shape
    bases = [(1 << j, 0) for j in range(log2(rows))]
    bases += [((vec * ((1 << k) // per_phase % max_phase)) % rows, 1 << k) for k in range(log2(cols))]
    phys = np.zeros((rows, cols), np.int64)
    for off in range(rows * cols):
        r = c = 0
        for i, (br, bc) in enumerate(bases):
            if off >> i & 1:
                r, c = r ^ br, c ^ bc
        phys[r, c] = off
    return phys


@pytest.mark.parametrize("name", list(COL_CASES))
def test_triton_snippet_indexes_the_users_rc(name):
    p, layout = COL_CASES[name]
    snippet = emit("triton", p, layout)
    code = snippet.code
    assert bool(re.findall(r"#   (#ttg\.\w+<.*>)", code)) == snippet.expressible
    found = re.search(r"#ttg\.swizzled_shared<\{vec = (\d+), perPhase = (\d+), maxPhase = (\d+), order = \[0, 1\]\}>",
                      code)
    if found:
        assert np.array_equal(triton_swizzled_col(p, *map(int, found.groups())), truth(p, layout))
    for attribute in re.findall(r"#   (#ttg\.\w+<.*>)", code):  # each encoding read back under --order col
        rows, cols = p.tile.logical_shape
        back = api.check(f"triton: {attribute}", rows=rows, cols=cols, elem_bytes=p.tile.elem_bytes,
                         access=["1x1"], order="col")
        assert np.array_equal(layout_table(p.tile, back.layout).T, truth(p, layout)), attribute


@pytest.mark.parametrize("name", list(COL_CASES))
def test_mojo_snippet_indexes_the_users_rc(name):
    p, layout = COL_CASES[name]
    code = emit("mojo", p, layout).code
    sw = re.search(r"Swizzle\((\d+), (\d+), (-?\d+)\)", code)
    at = re.search(r"element \(r, c\) is at smem_swizzle\(c \* (\d+) \+ r\)", code)
    plain = re.search(r"Layout\(IntTuple\((\d+), (\d+)\), IntTuple\(1, (\d+)\)\)", code)
    panels = re.search(r"Layout\(IntTuple\(IntTuple\((\d+), (\d+)\), (\d+)\), IntTuple\(IntTuple\(1, (\d+)\), (\d+)\)\)", code)
    if panels:  # the stored panels' Layout with its modes exchanged: ((w, n), R) : ((1, R * w), w), then the Swizzle
        w, n, r_, b, a = map(int, panels.groups())
        lay = pycute.Layout(((w, n), r_), ((1, b), a))
        fn = pycute.Swizzle(*map(int, sw.groups()))
        assert "smem_swizzle(lay(IntTuple(r, c)))" in code
        assert np.array_equal(table_of(pycute.ComposedLayout(fn, 0, lay), p), truth(p, layout))  # fn(lay(r, c))
    elif sw and at:
        b, m, s = map(int, sw.groups())
        yyy = ((1 << b) - 1) << (m + max(0, s))  # max/kernels/src/layout/swizzle.mojo
        fn = lambda i: i ^ ((i & yyy) >> s if s >= 0 else (i & yyy) << -s)  # noqa: E731
        assert np.array_equal(table_of(lambda r, c: fn(c * int(at[1]) + r), p), truth(p, layout))
    elif plain:
        assert np.array_equal(table_of(pycute.Layout((int(plain[1]), int(plain[2])), (1, int(plain[3]))), p),
                              truth(p, layout))
    else:
        assert not emit("mojo", p, layout).expressible


def test_emit_notes_storage_for_tma():
    p, layout = COL_CASES["sw128 f16 M-major"]
    code = emit("tma", p, layout).code
    assert "--order col" in code and "CU_TENSOR_MAP_SWIZZLE_128B" in code


STORED_WORDS = re.compile(r"column panels|\brows \d+ elements apart|spare per row|element\(s\) per row|row length is|box row|\d+ rows \(at most|"
                          r"column XOR per row|permutation of rows|loads columns|\d+ rows of \d+ B|plain row-major|rows padded to")


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", [*COL_CASES, "panels, padded", "xor-cols, padded", "bands"])
def test_comments_speak_of_the_users_tile(name, target):
    """Under --order col a snippet's comments say the user's orientation: a stored row is a column of
    the tile (columns P elements apart, a box's outer extent in columns), stored column panels are
    bands of rows."""
    extra = {"panels, padded": col_case(128, 16, ["8x8"], padding.Padded(136, ColumnPanels(128)), e=2),
             "xor-cols, padded": col_case(32, 16, ["4x8"], padding.Padded(40, XorCols(2, 1, 0))),
             "bands": col_case(32, 16, ["1x1"], RowInterleave(8, 2)),
             "bands, padded": col_case(32, 16, ["1x1"], padding.Padded(40, RowInterleave(8, 2))),
             "padding of 6": col_case(32, 16, ["1x1"], padding.Padded(38, Identity()))}
    p, layout = COL_CASES[name] if name in COL_CASES else extra[name]
    code = emit(target, p, layout).code
    body = "\n".join(code.splitlines()[1:])
    assert not STORED_WORDS.search(body), STORED_WORDS.search(body)[0]
    rows, cols = p.tile.logical_shape
    if target == "tma" and emit(target, p, layout).expressible:
        assert f"across the {cols} columns" in code


def test_column_panels_are_row_panels_of_the_users_tile():
    p, layout = COL_CASES["gmma, two atoms each way"]
    assert "2 row panels of 64 rows (128 B down each column)" in emit("cute", p, layout).code
    tma = emit("tma", p, layout).code
    assert "box: 64 elements down a column x 16 columns" in tma and "box i loads rows [64 * i" in tma


ORIENTATION_WORDS = [  # (case, target, the user's words, the stored tile's words they replace): every comment
    ("padding, a power of two", "cute", "plain column-major, columns 12 elements apart", "plain row-major"),
    ("plain padded", "cute", "columns 8 elements apart (no padding", "rows 8 elements apart"),
    ("padding, a power of two", "cute", "spare element(s) per column", "spare element(s) per row"),
    ("padding, a power of two", "tma", "padding element(s) per column", "padding element(s) per row"),
    ("xor-cols, padded", "cute", "spare per column", "spare per row"),
    ("plain padded", "cute", "the given column length is", "the given row length is"),
    ("gmma, two atoms each way", "cute", "2 row panels of 64 rows (128 B down each column)", "column panels"),
    ("gmma, two atoms each way", "cute-dsl", "2 row panels of 64 rows", "column panels"),
    ("xor-cols, padded", "cute", "a row XOR per column on", "a column XOR per row"),
    ("xor-cols, padded", "cute", "(columns on a power-of-two pitch)", "(rows on a power-of-two pitch)"),
    ("xor-cols, padded", "cute", "(column bits onto row bits)", "(row bits onto column bits)"),
    ("bands", "cute", "a permutation of columns in bands", "a permutation of rows in bands"),
    ("bands", "cute", "column c = (", "row c = ("),
    ("sw128 f16 M-major", "triton", "row XOR (vec * ((column / perPhase) % maxPhase)), dim 0 (r) contiguous",
     "column XOR (vec"),
    ("sw128 f16 M-major", "tma", "box outer extent: 64 columns (at most 256 per box: load wider tiles", "64 rows ("),
    ("gmma, two atoms each way", "tma", "box: 64 elements down a column x 16 columns", "x 16 rows"),
    ("gmma, two atoms each way", "tma", "one per row panel", "one per column panel"),
    ("gmma, two atoms each way", "tma", "box i loads rows [", "box i loads columns ["),
    ("gmma, two atoms each way", "tma", "columns per box at most 256 (load wider tiles", "rows per box at most 256"),
    ("sw128 f16 M-major", "tma", "8 columns of 128 B", "8 rows of 128 B"),
    ("xor-cols, padded", "triton", "the 8 spare element(s) per column are padding mixed with a swizzle", "per row"),
    ("bands, padded", "triton", "spare element(s) per column are padding mixed with a permutation of columns",
     "per row"),
    ("padding of 6", "triton", "its padding of 6 element(s) per column is not a power of two", "per row"),
]


@pytest.mark.parametrize("name, target, users, stored", ORIENTATION_WORDS,
                         ids=[f"{n}-{t}-{u[:24]}" for n, t, u, _ in ORIENTATION_WORDS])
def test_every_orientation_comment_says_the_users_words(name, target, users, stored):
    """Each comment an emitter writes about the stored tile's rows, column panels or boxes, said of the
    user's column-major tile (a stored row is a column of it): the exact words, one case per comment
    (test_comments_speak_of_the_users_tile only lists words that must not remain)."""
    extra = {"panels, padded": col_case(128, 16, ["8x8"], padding.Padded(136, ColumnPanels(128)), e=2),
             "xor-cols, padded": col_case(32, 16, ["4x8"], padding.Padded(40, XorCols(2, 1, 0))),
             "bands": col_case(32, 16, ["1x1"], RowInterleave(8, 2)),
             "bands, padded": col_case(32, 16, ["1x1"], padding.Padded(40, RowInterleave(8, 2))),
             "padding of 6": col_case(32, 16, ["1x1"], padding.Padded(38, Identity()))}
    p, layout = COL_CASES[name] if name in COL_CASES else extra[name]
    code = emit(target, p, layout).code
    assert users in code and stored not in code


def _stored_terms_cases(tmp_path) -> dict:
    """Column-major cases whose snippets print an offset, an expression or a table of (r, c): the
    comments and code of each must say the user's (r, c), never the stored tile's."""
    import numpy as np

    from swizzle_solver.families.two_level import TwoLevel
    from swizzle_solver.names import parse_layout

    offsets = np.random.default_rng(5).permutation(32 * 16).reshape(32, 16)  # no closed form: a table
    np.save(tmp_path / "t.npy", offsets)
    p = api.problem(32, 16, ["1x1"], elem_bytes=4, order="col")
    table = parse_layout(f"table:{tmp_path / 't.npy'}", tile=p.tile)
    return {**COL_CASES,
            "padded swizzle": col_case(32, 16, ["4x8"], padding.Padded(40, Swizzle(2, 1, 3))),
            "two swizzles, padded": col_case(32, 32, ["4x8"], padding.Padded(40, TwoLevel(Swizzle(1, 0, 3),
                                                                                          Swizzle(2, 1, 4)))),
            "bands": col_case(32, 16, ["1x1"], RowInterleave(8, 2)),
            "bands, not linear": col_case(32, 16, ["1x1"], RowInterleave(8, 3)),  # (CuTe: a functor; why: carries)
            "panels 64": col_case(64, 16, ["8x8"], ColumnPanels(64), e=2),
            "panels without a TMA": (api.problem(64, 16, ["8x8"], elem_bytes=2, order="col", arch="gfx942"),
                                     ColumnPanels(64)),
            "a table": (p, table)}


@pytest.mark.parametrize("target", TARGETS)
def test_no_snippet_keeps_the_stored_tiles_terms(target, tmp_path):
    """issue 33 item 5 (every orientation comment): under --order col, no target prints the stored
    tile's offset (r * pitch + c: the user's is c * pitch + r), the stored tile's expression (the
    user's has r and c exchanged), its table indexed kPhys[r][c] or its column panels; every one of these is printed
    somewhere in the cases, so each check can fail."""
    seen = set()
    for name, (p, layout) in _stored_terms_cases(tmp_path).items():
        code = emit(target, p, layout).code
        assert not re.search(r"\br \* \d+ \+ c\b", code), (name, code)
        # (a stored column panel is a row panel of the user's tile)
        assert "kPhys[r][c]" not in code and "column panel" not in code, (name, code)
        stored = layout.expression(p.tile)
        if stored and swap_rc(stored) != stored:
            assert stored not in code, (name, code)
            seen.add("expression") if swap_rc(stored) in code else None
        seen |= {"offset"} if re.search(r"\bc \* \d+ \+ r\b", code) else set()
        seen |= {"table"} if "kPhys[c][r]" in code else set()
    want = {"cuda": {"offset", "expression", "table"}, "cute": {"offset"}, "cute-dsl": {"offset"}, "mojo": {"offset"}}
    assert seen >= want.get(target, set()), seen


VIEWS = {  # the four views of a stored tile, on a target with a TMA and tcgen05 (sm100) and on AMD
    "row": make_problem(64, 64, ["8x8"], None, 2, arch="sm100"),
    "col": make_problem(64, 64, ["8x8"], None, 2, arch="sm100", order="col"),
    "fp4": make_problem(64, 128, ["8x32"], None, 1, arch="sm100", elem_bits=4),
    "col fp4": make_problem(128, 64, ["32x8"], None, 1, arch="sm100", elem_bits=4, order="col"),
    "gfx942 col": make_problem(64, 64, ["8x8"], None, 2, arch="gfx942", order="col"),
}


@pytest.mark.parametrize("view", list(VIEWS))
@pytest.mark.parametrize("target", TARGETS)
def test_every_target_serves_every_view(target, view):
    """Every registered target (pygments' test_formatter_public_api, over emit's registry): each view
    of a Swizzle<3,3,3> (or its byte form) answered with a snippet of that target whose header names
    the user's tile, deterministic, and for sub-byte elements an element form; a refusal says why."""
    p = VIEWS[view]
    layout = Swizzle(3, 3, 3) if not p.tile.elem_bits else Swizzle(3, 4, 3)
    snippet = emit(target, p, layout)
    assert snippet.target == target and snippet == emit(target, p, layout)
    head, _, body = snippet.code.partition("\n")
    rows, cols = p.tile.logical_shape
    per = 8 // p.tile.elem_bits if p.tile.elem_bits else 1
    shape = f"{rows * per} x {cols}" if p.tile.col_major else f"{rows} x {cols * per}"
    assert layout.name in head and shape in head and ("column-major" in head) == p.tile.col_major
    assert body.strip()
    if p.tile.elem_bits and snippet.expressible and target != "triton":  # (Triton holds the packed bytes as written)
        assert f"in {p.tile.elem_bits}-bit elements" in body or f"{p.tile.elem_bits}-bit elements, packed" in body
