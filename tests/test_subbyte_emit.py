"""Emitted code for tiles of 4-bit elements (emit/views.py and each target's in_elements): each target's code of the packed bytes, then
its form in the kernel's elements, evaluated as tests/test_emit.py and tests/test_order.py evaluate the
byte forms (C compiled and run, CuTe through pycute, the CuTe DSL executed against pycute, Mojo's Swizzle
by its formula): the element form of element (r, c) must be 2 * (the solved layout's byte offset of the
byte (r, c / 2)) + c % 2, or under --order col (packed down a column) of the byte (r / 2, c), + r % 2."""
import ast
import re
import sys
import types

import numpy as np
import pycute
import pytest
from test_emit import _stub_cute, mojo_swizzle, pycute_layout
from test_order import pycute_col_layout

from swizzle_solver.access import make_problem
from swizzle_solver.emit import TARGETS, emit
from swizzle_solver.families import padding
from swizzle_solver.families.cute import Swizzle
from swizzle_solver.families.identity import Identity
from swizzle_solver.families.linear import XorLinear
from swizzle_solver.families.panels import ColumnPanels
from swizzle_solver.families.row_interleave import RowInterleave
from swizzle_solver.families.two_level import TwoLevel
from swizzle_solver.families.xor_cols import XorCols
from swizzle_solver.layout import layout_table
from swizzle_solver.solving import solve
from tests import compiled_c
from tests.cute_grid import grid


def fp4(rows, cols, access, row_length=None, arch="nvidia", order="row"):
    """A tile of rows x cols 4-bit elements (cols, row_length in elements)."""
    return make_problem(rows, cols, access, row_length, 1, arch=arch, elem_bits=4, order=order)


def col(rows, cols, access, row_length=None):
    return fp4(rows, cols, access, row_length, order="col")


CASES = [
    ("sw128", fp4(64, 256, ["8x32"]), Swizzle(3, 4, 3)),
    ("sw64", fp4(16, 128, ["8x32"]), Swizzle(2, 4, 3)),
    ("sw32", fp4(16, 64, ["8x32"]), Swizzle(1, 4, 3)),
    ("small swizzle", fp4(16, 64, ["8x8"]), Swizzle(2, 2, 3)),
    ("negative S", fp4(16, 64, ["8x8"]), Swizzle(2, 1, -3)),
    ("identity", fp4(8, 64, ["8x2"]), Identity()),
    ("identity padded", fp4(8, 64, ["8x2"], row_length=72), Identity()),
    ("xor-cols pitch 72 bytes", fp4(16, 144, ["8x16"]), XorCols(3, 0, 1)),
    ("xor-cols pow2", fp4(16, 64, ["8x8"]), XorCols(3, 2, 0)),
    ("two-level", fp4(16, 64, ["8x8"]), TwoLevel(Swizzle(1, 0, 3), Swizzle(1, 1, 4))),
    ("linear", fp4(16, 64, ["8x8"]), XorLinear(((0, 5), (1, 7), (2, 5)))),
    ("row interleave", fp4(16, 64, ["8x8"]), RowInterleave(4, 2)),
    ("padding + cute", fp4(8, 48, ["8x2"]), padding.Padded(32, Swizzle(2, 0, 3))),
    ("padding odd", fp4(8, 64, ["8x2"]), padding.Padded(33, Identity())),
    ("padding + xor-cols", fp4(8, 48, ["8x2"]), padding.Padded(40, XorCols(3, 0, 0))),
    ("panels 32B, 3 panels", fp4(8, 192, ["8x32"]), ColumnPanels(32)),
    ("panels 128B", fp4(64, 512, ["8x32"]), ColumnPanels(128)),
    ("panels 128B on AMD", fp4(64, 512, ["8x32"], arch="gfx942"), ColumnPanels(128)),
    ("sw128 on sm100", fp4(64, 256, ["8x32"], arch="sm100"), Swizzle(3, 4, 3)),
    ("solved: ldmatrix and cp.async", fp4(64, 256, ["ldmatrix.x4", "cp.async"]), None),
    ("solved: mma-a m16n8k64", fp4(64, 128, ["mma-a:m16n8k64", "cp.async"]), None),
    # --order col: packed down a column (the stored tile is the transposed bytes)
    ("col: sw128 M-major", col(256, 64, ["32x8"]), Swizzle(3, 4, 3)),
    ("col: solved", col(128, 32, ["32x8", "16x16"]), None),
    ("col: padded column", col(64, 16, ["16x4"], row_length=80), Swizzle(2, 2, 3)),
    ("col: panels 128B", col(512, 16, ["32x8"]), ColumnPanels(128)),
    ("col: xor-cols", col(64, 16, ["16x4"]), XorCols(3, 2, 0)),
    ("col: two-level", col(64, 16, ["16x4"]), TwoLevel(Swizzle(1, 0, 3), Swizzle(1, 1, 4))),
    ("col: linear", col(64, 16, ["16x4"]), XorLinear(((0, 5), (1, 7), (2, 5)))),
    ("col: padding odd", col(64, 8, ["16x4"]), padding.Padded(33, Identity())),
]
CASES = [(name, p, solve(p).answer.layout if layout is None else layout) for name, p, layout in CASES]
IDS = [name for name, _, _ in CASES]


def byte_truth(p, layout):
    """The byte offset of each byte (r, c) of the user's tile (under --order col: the stored table turned back)."""
    table = layout_table(p.tile, layout)
    return table.T if p.tile.col_major else table


def element_shape(p):
    rows, cols = p.tile.logical_shape
    return (2 * rows, cols) if p.tile.col_major else (rows, 2 * cols)


def element_truth(p, layout):
    """2 * phys(byte of (r, c)) + its half, over the user's 4-bit elements."""
    phys = byte_truth(p, layout)
    if p.tile.col_major:
        rows = np.arange(2 * phys.shape[0])
        return 2 * phys[rows // 2, :] + (rows % 2)[:, None]
    cols = np.arange(2 * phys.shape[1])
    return 2 * phys[:, cols // 2] + cols % 2


def element_section(code: str, comment: str) -> str:
    head, marker, tail = code.partition(f"{comment} in 4-bit elements")
    assert marker, code
    return marker + tail


def element_problem(p):
    """A stand-in problem of the element tile's shape, for the pycute readers of test_emit and test_order."""
    rows, cols = element_shape(p)
    t = p.tile
    stored = (cols, rows) if t.col_major else (rows, cols)
    return types.SimpleNamespace(tile=types.SimpleNamespace(rows=stored[0], cols=stored[1], logical_shape=(rows, cols),
                                                            elem_bytes=1, col_major=t.col_major))


def table_of(fn, shape):
    rows, cols = shape
    if isinstance(fn, (pycute.Layout, pycute.ComposedLayout)):
        return grid(fn, rows, cols)
    return np.array([[fn(r, c) for c in range(cols)] for r in range(rows)], dtype=np.int64)


FORMULA = {False: "phys_elem(r, c) = 2 * phys(r, c / 2) + c % 2", True: "phys_elem(r, c) = 2 * phys(r / 2, c) + r % 2"}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("i", range(len(CASES)), ids=IDS)
def test_every_header_says_4_bit_and_bytes(i, target):
    _, p, layout = CASES[i]
    head = emit(target, p, layout).code.splitlines()[0]
    assert "{} x {} tile of 4-bit elements".format(*element_shape(p)) in head
    assert "an element is a byte" in head and "1-byte elements" not in head


@pytest.fixture(scope="module")
def c_tables(tmp_path_factory):
    functions = [emit("cuda", p, layout).code.replace("swizzle_phys", f"swizzle_phys_{i}")
                 for i, (_, p, layout) in enumerate(CASES)]
    calls = []
    for i, (_, p, _) in enumerate(CASES):  # each case's byte function, then its element function
        calls += [(f"swizzle_phys_{i}", *p.tile.logical_shape), (f"swizzle_phys_{i}_elem", *element_shape(p))]
    return compiled_c.tables(tmp_path_factory.mktemp("cc4"), functions, calls)


@pytest.mark.parametrize("i", range(len(CASES)), ids=IDS)
def test_cuda_element_function_compiled(i, c_tables):
    _, p, layout = CASES[i]
    assert np.array_equal(c_tables[2 * i], byte_truth(p, layout).ravel())
    assert np.array_equal(c_tables[2 * i + 1], element_truth(p, layout).ravel())


def _panels_composition(code: str):
    """composition(Swizzle<B,M,S>{}, Layout<Shape<...>, Stride<...>>{}) of any hierarchy, through pycute
    (test_order's reader takes the column panels of a column-major tile by their atom only)."""
    found = re.search(r"composition\(cute::Swizzle<(\d+),(\d+),(-?\d+)>\{\},[\s/]*cute::Layout<(.*?)>\{\}\);",
                      code, re.S)
    if found is None:
        return None
    text = re.sub(r"[\s/]+", "", found[4])
    text = re.sub(r"cute::Int<(\d+)>", r"\1", text).replace("cute::Shape<", "(").replace("cute::Stride<", "(")
    shape, stride = ast.literal_eval("(" + text.replace(">", ",)") + ")")
    return pycute.ComposedLayout(pycute.Swizzle(*map(int, found.groups()[:3])), 0, pycute.Layout(shape, stride))


@pytest.mark.parametrize("i", range(len(CASES)), ids=IDS)
def test_cute_element_layout_is_pycutes(i):
    _, p, layout = CASES[i]
    snippet = emit("cute", p, layout)
    section = element_section(snippet.code, "//")
    t = p.tile
    if not snippet.expressible:
        assert FORMULA[t.col_major] in section
        return
    assert "smem_layout_4bit" in section
    read = pycute_col_layout if t.col_major else pycute_layout
    rebuilt = read(element_problem(p), section.replace("_4bit", "")) or _panels_composition(section)
    assert rebuilt is not None, section
    assert np.array_equal(table_of(rebuilt, element_shape(p)), element_truth(p, layout))
    atom = re.search(r"tile_to_shape\(cute::GMMA::Layout_(K|MN)_SW(\d+)_Atom<T4>\{\},\s*"
                     r"cute::Shape<cute::Int<(\d+)>, cute::Int<(\d+)>>", section)
    if atom:  # the atom over a 4-bit type: the byte atom's Swizzle<B,4,3> on the bytes of its element tiling
        major, width, rows, cols = atom[1], *map(int, atom.groups()[1:])
        assert (rows, cols) == element_shape(p) and "using T4 = cutlass::float_e2m1_t;" in section
        assert major == ("MN" if t.col_major else "K")
        w = 2 * width  # elements of an atom's contiguous run
        if t.col_major:  # W bytes of M x 8 K, M contiguous, tiled K first (Step<_2, _1>)
            dense = lambda r, c: (r % w) + (c % 8) * w + 8 * w * (c // 8 + (r // w) * (cols // 8))  # noqa: E731
        else:
            dense = pycute.Layout((rows, (w, cols // w)), (w, (1, rows * w)))
        byte_sw = Swizzle({32: 1, 64: 2, 128: 3}[width], 4, 3)
        offsets = table_of(dense, (rows, cols))
        got = 2 * byte_sw.apply(offsets // 2) + offsets % 2
        assert np.array_equal(got, element_truth(p, layout))


@pytest.mark.parametrize("i", range(len(CASES)), ids=IDS)
def test_cute_dsl_element_layout_executes(i, monkeypatch):
    _, p, layout = CASES[i]
    snippet = emit("cute-dsl", p, layout)
    for name, module in _stub_cute().items():
        monkeypatch.setitem(sys.modules, name, module)
    scope: dict = {}
    exec(snippet.code, scope)
    t = p.tile
    if not snippet.expressible:
        assert FORMULA[t.col_major] in element_section(snippet.code, "#")
        return
    assert np.array_equal(table_of(scope["smem_layout"], t.logical_shape), byte_truth(p, layout))
    assert np.array_equal(table_of(scope["smem_layout_4bit"], element_shape(p)), element_truth(p, layout))


def _mojo_layout(text: str):
    shape, stride = (ast.literal_eval(x.replace("IntTuple", "")) for x in
                     re.fullmatch(r"Layout\((IntTuple\(.*\)), (IntTuple\(.*\))\)", text).groups())
    return pycute.Layout(shape, stride)


@pytest.mark.parametrize("i", range(len(CASES)), ids=IDS)
def test_mojo_element_form(i):
    _, p, layout = CASES[i]
    snippet = emit("mojo", p, layout)
    section = element_section(snippet.code, "#")
    t = p.tile
    expected, shape = element_truth(p, layout), element_shape(p)
    if not snippet.expressible:
        assert FORMULA[t.col_major] in section
        return
    sw = re.search(r"smem_swizzle_4bit = Swizzle\((\d+), (\d+), (-?\d+)\)", section)
    lay = re.search(r"comptime (?:smem|panel)_layout_4bit = (Layout\(.*\))$", section, re.M)
    if sw and lay:  # column panels: the swizzle of the hierarchical layout's offset
        fn, inner = mojo_swizzle(*map(int, sw.groups())), _mojo_layout(lay[1])
        assert np.array_equal(table_of(lambda r, c: fn(inner(r, c)), shape), expected)
    elif sw:
        fn = mojo_swizzle(*map(int, sw.groups()))
        if t.col_major:
            pitch = int(re.search(r"smem_swizzle_4bit\(c \* (\d+) \+ r\)", section)[1])
            assert np.array_equal(table_of(lambda r, c: fn(c * pitch + r), shape), expected)
        else:
            pitch = int(re.search(r"smem_swizzle_4bit\(r \* (\d+) \+ c\)", section)[1])
            assert np.array_equal(table_of(lambda r, c: fn(r * pitch + c), shape), expected)
    else:
        assert np.array_equal(table_of(_mojo_layout(lay[1]), shape), expected)


@pytest.mark.parametrize("i", range(len(CASES)), ids=IDS)
def test_triton_says_the_encoding_is_of_the_packed_tensor(i):
    _, p, layout = CASES[i]
    code = emit("triton", p, layout).code
    assert "Triton holds them packed, 2 a byte, in an 8-bit tensor" in code
    assert ("its byte (r / 2, c)" if p.tile.col_major else "its byte (r, c / 2)") in code
    assert "elementBitWidth = 4" not in code and "element_bitwidth=4" not in code


@pytest.mark.parametrize("i", range(len(CASES)), ids=IDS)
def test_tma_names_the_packed_4_bit_type(i):
    _, p, layout = CASES[i]
    snippet = emit("tma", p, layout)
    if not snippet.expressible:
        assert "16U4" not in snippet.code
        return
    box = re.search(r"box inner extent:? (\d+) elements|box: (\d+) elements", snippet.code)
    inner = int(box[1] or box[2])
    assert "tensorDataType = CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B" in snippet.code
    assert f"boxDim[0] = {2 * inner} elements = the {inner} B above" in snippet.code


@pytest.mark.parametrize("i", [i for i, (name, _, _) in enumerate(CASES) if "sm100" in name])
def test_umma_atom_over_the_4_bit_type(i):
    _, p, layout = CASES[i]
    snippet = emit("umma", p, layout)
    assert snippet.expressible
    byte_shape = re.search(r"UMMA::Layout_K_SW128_Atom<T>\{\},\s*cute::Shape<cute::Int<(\d+)>, cute::Int<(\d+)>>",
                           snippet.code)
    elem_shape = re.search(r"UMMA::Layout_K_SW128_Atom<T4>\{\},\s*cute::Shape<cute::Int<(\d+)>, cute::Int<(\d+)>>",
                           snippet.code)
    assert (int(elem_shape[1]), int(elem_shape[2])) == (int(byte_shape[1]), 2 * int(byte_shape[2]))
    assert "kind::mxf4" in snippet.code
