"""Layouts in the kernel's own notation (--check expr:, bytes:, cute:, triton:, table:FILE; the
recipes 128B/64B/32B; the byte form of a swizzle): each against an independent evaluation (plain
Python for expr:, pycute for CuTe, Triton's own formulas and the emitter for triton:), the one
soundness check's reasons, hostile input refused in time, and the CLI, JSON, batch and API faces."""
from __future__ import annotations

import json
import math
import re
import time
from pathlib import Path

import numpy as np
import pycute
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from swizzle_solver import api
from swizzle_solver.cli import main
from swizzle_solver.families.cute import Swizzle
from swizzle_solver.families.panels import ColumnPanels
from swizzle_solver.layout import layout_table
from swizzle_solver.model import InputError, Tile
from swizzle_solver.names import parse_layout
from swizzle_solver.notation import expr as E
from tests import clirun

ROOT = Path(__file__).resolve().parents[1]
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
CUTE_HEADERS = Path(pycute.__file__).resolve().parents[1] / "cutlass_library/source/include/cute"


def table_of(text: str, tile: Tile) -> np.ndarray:
    return layout_table(tile, parse_layout(text, tile=tile))


def python_table(text: str, tile: Tile) -> np.ndarray:
    """A C expression (only literals, r, c, parentheses and + - * << >> & ^ |) evaluated by Python."""
    assert set(text) <= set("rc0123456789 ()+-*<>&^|"), text
    code = compile(text, "<expression>", "eval")
    return np.array([[eval(code, {}, {"r": r, "c": c}) for c in range(tile.cols)] for r in range(tile.rows)])


def cli(*argv: str) -> tuple[int, str, str]:
    run = clirun.solve(*argv)
    return run.returncode, run.stdout, run.stderr


# --- expr: and bytes: against plain Python -----------------------------------------------------

OPS = ["+", "-", "*", "/", "%", "<<", ">>", "&", "^", "|"]


class Undefined(Exception):
    pass


def py_value(tree, r: int, c: int) -> int:
    """The test's own evaluation of a tree of ("r",) / ("c",) / ("n", v) / (op, a, b) / ("~", a):
    Python ints, floor division of non-negative values, the C operators' meaning."""
    if tree[0] == "r":
        return r
    if tree[0] == "c":
        return c
    if tree[0] == "n":
        return tree[1]
    if tree[0] in ("~", "neg"):
        v = py_value(tree[1], r, c)
        return ~v if tree[0] == "~" else -v
    op, a, b = tree[0], py_value(tree[1], r, c), py_value(tree[2], r, c)
    if op in ("/", "%"):
        if b == 0 or a < 0 or b < 0:
            raise Undefined
        return a // b if op == "/" else a % b
    if op in ("<<", ">>"):
        if b < 0 or b >= 62:
            raise Undefined
        value = a << b if op == "<<" else a >> b
    else:
        value = {"+": a + b, "-": a - b, "*": a * b, "&": a & b, "^": a ^ b, "|": a | b}[op]
    if abs(value) >= 1 << 62:
        raise Undefined
    return value


def text_of(tree) -> str:
    """Fully parenthesised, so the test does not rely on precedence (a second test does)."""
    if tree[0] in ("r", "c"):
        return tree[0]
    if tree[0] == "n":
        return hex(tree[1]) if tree[1] % 7 == 3 else str(tree[1])
    if tree[0] == "~":
        return f"~({text_of(tree[1])})"
    if tree[0] == "neg":
        return f"-({text_of(tree[1])})"
    return f"({text_of(tree[1])} {tree[0]} {text_of(tree[2])})"


trees = st.recursive(
    st.one_of(st.just(("r",)), st.just(("c",)), st.integers(0, 70).map(lambda n: ("n", n))),
    lambda inner: st.one_of(st.tuples(st.sampled_from(OPS), inner, inner),
                            st.tuples(st.sampled_from(["~", "neg"]), inner)),
    max_leaves=12)


@SETTINGS
@given(trees, st.integers(1, 9), st.integers(1, 12))
def test_expr_evaluates_as_plain_python_and_its_c_form_agrees(tree, rows, cols):
    """Every element of a random expression, against the test's own evaluation; where that is
    undefined (a division by zero, a negative operand of / or %, a shift out of range), the
    expression is refused as bad input. Its C expression, evaluated by Python, gives the same
    table (only + - * << >> & ^ | survive)."""
    tile = Tile(rows, cols, cols, 4)
    node = E.parse(text_of(tree))
    r, c = np.arange(rows)[:, None], np.arange(cols)[None, :]
    try:
        want = np.array([[py_value(tree, i, j) for j in range(cols)] for i in range(rows)])
    except Undefined:
        with pytest.raises(E.NotationError):
            E.evaluate(node, r, c)
        return
    got = np.broadcast_to(E.evaluate(node, r, c), (rows, cols))
    assert np.array_equal(got, want)
    text = E.c_text(node, r, c)
    assume(text is not None)  # a division by r or c has no such form
    assert np.array_equal(python_table(text, tile), want), text
    assert np.array_equal(np.broadcast_to(E.evaluate(E.parse(E.render(node)), r, c), (rows, cols)), want)


@pytest.mark.parametrize("text, value", [
    ("1 + 2 * 3", 7), ("(1 + 2) * 3", 9), ("1 << 2 + 1", 8), ("6 & 3 ^ 1", 3), ("6 | 1 ^ 1", 6),
    ("7 - 2 - 1", 4), ("64 / 4 / 2", 8), ("-1 + 3", 2), ("~0 & 15", 15), ("0x10 + 1", 17), ("10 % 4 * 3", 6),
    ("1 | 2 & 3 ^ 4", 7), ("2 * 3 % 4", 2), ("1 << 3 >> 1", 4),
])
def test_c_precedence_and_associativity(text, value):
    """C's (and Python's) precedence: * / % over + - over << >> over & over ^ over |, left to right."""
    assert int(E.evaluate(E.parse(text), np.int64(0), np.int64(0))) == value == eval(text.replace("/", "//"))


@pytest.mark.parametrize("text, column, words", [
    ("r +* c", 4, "'*' where an operand"), ("r + x", 5, "unknown name 'x'"), ("(r + c", 7, "'(' is not closed"),
    ("r c", 3, "unexpected 'c'"), ("r + 1.5", 6, "'.'"), ("f(r)", 1, "unknown name 'f'"), ("r = 3", 3, "'='"),
    ("010 + r", 1, "leading zero"), ("", None, "empty"), ("r +", 4, "ends where an operand"),
    ("r + 0x10000000000", 5, "too large"), ("r + `c`", 5, "'`'"),
])
def test_bad_expressions_name_the_column(text, column, words):
    with pytest.raises(E.NotationError) as err:
        E.parse(text)
    assert words in str(err.value)
    assert err.value.column == column


def test_division_by_zero_and_negative_operands_are_bad_input_at_their_element():
    tile = Tile(4, 8, 8, 4)
    with pytest.raises(InputError, match=r"column 4: '/' divides by zero at element \(r, c\) = \(0, 0\)"):
        parse_layout("expr: r / c", tile=tile)
    with pytest.raises(InputError, match="negative operand"):
        parse_layout("expr: (r - 2) % 4 + c", tile=tile)
    with pytest.raises(InputError, match="2\\^62"):
        parse_layout("expr: (r + 1) << 61", tile=tile)


def test_expr_name_prints_back_as_given_and_expression_normalises():
    tile = Tile(8, 64, 64, 2)
    layout = parse_layout("expr:  r*64 + (c ^ (r % 8 << 3)) ", tile=tile)
    assert layout.name == "expr:  r*64 + (c ^ (r % 8 << 3))"
    assert layout.expression(tile) == "r * 64 + (c ^ ((r & 7) << 3))"
    assert np.array_equal(layout_table(tile, layout), layout_table(tile, Swizzle(3, 3, 3)))


def test_a_division_by_another_constant_is_a_multiply_and_shift_in_c():
    tile = Tile(16, 96, 96, 4)
    layout = parse_layout("expr: r * 96 + (c / 3) * 3 + (2 - c % 3)", tile=tile)
    text = layout.expression(tile)
    assert "/" not in text and "%" not in text
    assert np.array_equal(python_table(text, tile), layout_table(tile, layout))


def test_bytes_is_the_byte_offset_divided_by_the_element():
    """flashinfer's `i * stride + (j ^ (i % 8))` in uint2 (8-byte) units: bytes: 8 * (...) + the
    element's byte inside its 8-byte unit, equal to the same layout as element offsets."""
    tile = Tile(16, 128, 128, 2)  # rows of 32 uint2 = 128 halves
    by_bytes = table_of("bytes: 8 * (r * 32 + ((c * 2 / 8) ^ (r % 8))) + c * 2 % 8", tile)
    by_elements = table_of("expr: (r * 32 + ((c / 4) ^ (r % 8))) * 4 + c % 4", tile)
    assert np.array_equal(by_bytes, by_elements)
    assert np.array_equal(by_bytes, layout_table(tile, Swizzle(3, 2, 5)))


def test_a_byte_offset_inside_an_element_is_not_usable():
    checked = api.check("bytes: r * 128 + c", rows=8, cols=64, dtype="f16", access=["8x8"])
    assert checked.status == "not-usable"
    assert checked.invalid == "element (0, 1) is at byte 1, not a multiple of its 2 bytes (it would straddle two elements)"


# --- the soundness check's reasons --------------------------------------------------------------

@pytest.mark.parametrize("layout, access, words", [
    ("expr: (r * 64 + c) & 63", "8x8", "elements (0, 0) and (1, 0) are both at offset 0"),
    ("expr: r * 64 + c - 5", "8x8", "element (0, 0) is at offset -5: offsets start at 0"),
    ("expr: r * 64 + (c ^ (r & 7))", "8x8", "the 16-byte vector at (1, 0) lands at offsets 65, 64, 67, 66"),
    ("expr: r * 64 + c + 4", "8x8", "the 16-byte vector at (0, 0) starts at offset 4, not a multiple of 8"),
    ("expr: r * 100000 + c", "8x1", "above the 512 KiB the tool models"),
])
def test_an_unsound_layout_names_its_witness(layout, access, words):
    checked = api.check(layout, rows=8, cols=64, dtype="f16", access=[access])
    assert checked.status == "not-usable" and not checked.passed
    assert words in checked.invalid


def test_padding_in_an_expression_is_storage():
    """r * 72 + c on 64 columns: usable, the storage its footprint (the last row's spare elements
    are not needed)."""
    checked = api.check("expr: r * 72 + c", rows=8, cols=64, dtype="f16", access=["8x8"])
    assert checked.passed
    doc = checked.json()
    assert doc["answer"]["storage_bytes"] == (7 * 72 + 64) * 2
    assert doc["answer"]["family"] == "given" and doc["answer"]["expression"] == "r * 72 + c"


# --- CuTe against pycute ---------------------------------------------------------------------------


def cute_int(n: int, style: int) -> str:
    return [f"_{n}", f"Int<{n}>", f"cute::Int<{n}>{{}}", f"_{n}{{}}"][style % 4]


def tree_text(t, kind: str, style: int) -> str:
    if isinstance(t, int):
        return cute_int(t, style)
    inner = ",".join(tree_text(x, kind, style + i) for i, x in enumerate(t))
    return f"{kind}<{inner}>" if style % 2 == 0 else f"make_{kind.lower()}({inner})"


modes = st.one_of(st.integers(1, 6), st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple))


@st.composite
def layouts(draw):
    shape = (draw(modes), draw(modes))
    flat = [x for m in shape for x in ((m,) if isinstance(m, int) else m)]
    strides = iter(draw(st.lists(st.integers(0, 40), min_size=len(flat), max_size=len(flat))))
    stride = tuple(next(strides) if isinstance(m, int) else tuple(next(strides) for _ in m) for m in shape)
    return shape, stride


@SETTINGS
@given(layouts(), st.integers(0, 7), st.one_of(st.none(), st.tuples(st.integers(0, 3), st.integers(0, 4),
                                                                     st.integers(-6, 6))))
def test_cute_layouts_evaluate_as_pycute(layout, style, swizzle):
    """Hierarchical shapes and strides (in every spelling), with or without a swizzle composed
    outside, element for element against pycute."""
    shape, stride = layout
    if swizzle is not None:
        assume(abs(swizzle[2]) >= swizzle[0] and swizzle[2] != 0)  # (pycute's shiftr recurses forever on 0)
    rows, cols = (math.prod(m) if isinstance(m, tuple) else m for m in shape)
    if style % 2 == 0:
        text = f"Layout<{tree_text(shape, 'Shape', style)},{tree_text(stride, 'Stride', style)}>{{}}"
    else:
        text = f"make_layout({tree_text(shape, 'Shape', style)}, {tree_text(stride, 'Stride', style)})"
    ref = pycute.Layout(shape, stride)
    if swizzle is not None:
        text = f"composition(Swizzle<{swizzle[0]},{swizzle[1]},{swizzle[2]}>{{}}, {text})"
        ref = pycute.ComposedLayout(pycute.Swizzle(*swizzle), 0, ref)
    tile = Tile(rows, cols, cols, 4)
    got = table_of(f"cute: {text}", tile)
    assert all(got[r, c] == ref(r, c) for r in range(rows) for c in range(cols))


def pycute_tile_to_shape(block, target, order):
    """CuTe's tile_to_shape from pycute's own algebra: blocked_product(block, make_ordered_layout(
    counts, order)) = zip of logical_product's modes (cute/layout.hpp)."""
    counts = tuple(t // pycute.size(block[i]) for i, t in enumerate(target))
    first = 0 if order[0] <= order[1] else 1
    tiler = pycute.Layout(counts, (1, counts[0]) if first == 0 else (counts[1], 1))
    product = pycute.logical_product(block, tiler)
    return pycute.make_layout(pycute.make_layout(product[0][0], product[1][0]),
                              pycute.make_layout(product[0][1], product[1][1]))


@SETTINGS
@given(st.sampled_from([(8, 64), (4, 8), (8, 16), (2, 32), (16, 8)]), st.booleans(), st.integers(1, 4),
       st.integers(1, 3), st.sampled_from([(1, 2), (2, 1)]), st.booleans(), st.integers(0, 3))
def test_tile_to_shape_is_pycutes_blocked_product(block, right, n0, n1, order, swizzled, b):
    """tile_to_shape(block, (n0 R, n1 C), Step) with a compact row- or column-major block, with or
    without a swizzle outside, against pycute's logical_product (independent of the complement and
    composition written here)."""
    rows, cols = block[0] * n0, block[1] * n1
    stride = (block[1], 1) if right else (1, block[0])
    inner = f"Layout<Shape<_{block[0]},_{block[1]}>,Stride<_{stride[0]},_{stride[1]}>>{{}}"
    ref = pycute_tile_to_shape(pycute.Layout(block, stride), (rows, cols), order)
    sw = (b, 1, 3)
    if swizzled:
        inner = f"composition(Swizzle<{sw[0]},{sw[1]},{sw[2]}>{{}}, {inner})"
        ref = pycute.ComposedLayout(pycute.Swizzle(*sw), 0, ref)
    text = f"cute: tile_to_shape({inner}, Shape<_{rows},_{cols}>{{}}, Step<_{order[0]},_{order[1]}>{{}})"
    tile = Tile(rows, cols, cols, 2)
    got = table_of(text, tile)
    assert all(got[r, c] == ref(r, c) for r in range(rows) for c in range(cols))


def gmma_atoms() -> dict[str, tuple]:
    """The GMMA atoms' bit layouts as cute/atom/mma_traits_sm90_gmma.hpp defines them, read from
    the header (nvidia-cutlass's copy): name -> (B, M, S, shape, stride)."""
    text = (CUTE_HEADERS / "atom/mma_traits_sm90_gmma.hpp").read_text()
    found = {}
    for m in re.finditer(r"using (Layout_\w+_Atom)_Bits\s*=\s*ComposedLayout<Swizzle<(\d),(\d),(\d)>,\s*smem_ptr_flag,"
                         r"\s*Layout<Shape<\s*_(\d+),\s*_(\d+)>,\s*Stride<\s*_(\d+),\s*_(\d+)>>>;", text):
        found[m[1]] = (int(m[2]), int(m[3]), int(m[4]), (int(m[5]), int(m[6])), (int(m[7]), int(m[8])))
    assert len(found) == 8, found
    return found


@pytest.mark.parametrize("type_name, e", [("half_t", 2), ("cutlass::bfloat16_t", 2), ("float", 4),
                                          ("tfloat32_t", 4), ("float_e4m3_t", 1), ("T", 2), ("ElementA", 4)])
def test_gmma_atoms_are_the_headers_upcast_with_the_byte_swizzle(type_name, e):
    """Each atom: the header's bit layout upcast to the element (the stride-1 mode's extent and the
    other strides divided by its bits), under the header's swizzle of byte addresses (element form:
    M - log2(e)), against pycute; a type the header does not name is the tile's element."""
    for name, (B, M, S, shape, stride) in gmma_atoms().items():
        bits = 8 * e
        shape = tuple(s // bits if d == 1 else s for s, d in zip(shape, stride))
        stride = tuple(d if d == 1 else d // bits for d in stride)
        ref = pycute.ComposedLayout(pycute.Swizzle(B, M - int(math.log2(e)), S), 0, pycute.Layout(shape, stride))
        tile = Tile(shape[0], shape[1], shape[1], e)
        got = table_of(f"cute: cute::GMMA::{name}<{type_name}>{{}}", tile)
        assert all(got[r, c] == ref(r, c) for r in range(shape[0]) for c in range(shape[1])), name


@pytest.mark.parametrize("width", [32, 64, 128])
@pytest.mark.parametrize("e, rows, cols", [(2, 64, 128), (2, 128, 64), (4, 32, 64), (1, 16, 256)])
def test_tile_to_shape_of_a_k_atom_is_column_panels(width, e, rows, cols):
    """The column-panels family's definition (families/panels.py) is CuTe's tile_to_shape of the
    K-major atom: checked here, element for element."""
    tile = Tile(rows, cols, cols, e)
    text = f"cute: tile_to_shape(GMMA::Layout_K_SW{width}_Atom<T>{{}}, Shape<Int<{rows}>, Int<{cols}>>{{}})"
    panels = ColumnPanels(width)
    want = layout_table(tile, panels if not panels.one_panel(tile) else panels.atom(tile))
    assert np.array_equal(table_of(text, tile), want)


@pytest.mark.parametrize("text, words", [
    ("cute: Layout<Shape<_8,_64>,Stride<_64>>{}", "the stride must have the shape's structure"),
    ("cute: Layout<Shape<_8,_64>,Stride<_64,_1>", "expected '>'"),
    ("cute: foo(Layout<Shape<_8,_64>>{})", "is not a CuTe construct"),
    ("cute: composition(Layout<_8>{}, Layout<_8>{})", "reads a swizzle first"),
    ("cute: Shape<_8,_64>{}", "this is not a layout"),  # (a swizzle alone is one: of the row-major tile)
    ("cute: composition(Swizzle<3,3,1>{}, Layout<Shape<_8,_64>>{})", "not a CuTe swizzle"),
    ("cute: tile_to_shape(Layout<Shape<_8,_64>,Stride<_64,_1>>{}, Shape<_12,_64>{})", "does not divide"),
    ("cute: Layout<Shape<_8,_64>,Stride<_64,_1>>{}", "the CuTe layout's shape is (8, 64), the tile is 16 x 64"),
    ("cute: Layout<_64>{}", "has two modes"),
    ("cute: GMMA::Layout_K_SW128_Atom<float>{}", "for 4-byte elements, the tile's are 2 bytes"),
])
def test_bad_cute_is_bad_input(text, words):
    with pytest.raises(InputError, match=re.escape(words)):
        parse_layout(text, tile=Tile(16, 64, 64, 2))


# --- Triton ------------------------------------------------------------------------------------


def triton_lines(code: str) -> list[str]:
    """Every encoding an --emit triton snippet prints: the MLIR attributes and the Gluon calls."""
    found = [m[0] for m in re.finditer(r"#ttg\.\w+<.*>", code)]
    found += [m[1] for m in re.finditer(r"= ttgl\.(\w+(?:\.\w+)?\(.*\))$", code, re.MULTILINE)]
    return found


@SETTINGS
@given(st.sampled_from([(8, 64, 2), (64, 64, 2), (16, 32, 4), (32, 128, 1), (64, 128, 2), (16, 16, 4)]),
       st.integers(0, 3), st.integers(0, 4), st.integers(1, 5))
def test_triton_encodings_read_back_the_emitters(shape, b, m, s):
    """Emit, then parse: every encoding --emit triton prints for a swizzle (swizzled, NVMMA, shared
    linear) reads back as the same table."""
    rows, cols, e = shape
    assume(s >= b)
    layout = Swizzle(b, m, s)
    prob = api.problem(rows, cols, ["row"], elem_bytes=e)
    assume(layout.invalid(prob.tile) is None)
    from swizzle_solver.emit import emit

    snippet = emit("triton", prob, layout)
    assume(snippet.expressible)
    want = layout_table(prob.tile, layout)
    for text in triton_lines(snippet.code):
        assert np.array_equal(table_of(f"triton: {text}", prob.tile), want), text


@pytest.mark.parametrize("pitch_pad", [8, 16])
def test_triton_padded_encoding_reads_back_the_emitters(pitch_pad):
    prob = api.problem(32, 64, ["8x4"], row_length=64 + pitch_pad, elem_bytes=4)
    from swizzle_solver.emit import emit
    from swizzle_solver.families.identity import Identity
    from swizzle_solver.families.padding import Padded

    layout = Padded(64 + pitch_pad, Identity())
    dense = Tile(32, 64, 64, 4)
    lines = triton_lines(emit("triton", prob, layout).code)
    assert lines
    for text in lines:
        assert np.array_equal(table_of(f"triton: {text}", dense), layout_table(prob.tile, layout)), text


# TritonGPUAttrDefs.td, AMDRotatingSharedEncodingAttr's examples (vec = 1, order = [1, 0], 8 x 4)
ROTATING = {
    (1, 2): [[0, 1, 2, 3], [5, 4, 7, 6], [9, 8, 11, 10], [12, 13, 14, 15], [16, 17, 18, 19], [21, 20, 23, 22],
             [25, 24, 27, 26], [28, 29, 30, 31]],
    (2, 2): [[0, 1, 2, 3], [4, 5, 6, 7], [9, 8, 11, 10], [13, 12, 15, 14], [17, 16, 19, 18], [21, 20, 23, 22],
             [24, 25, 26, 27], [28, 29, 30, 31]],
    (1, 4): [[0, 1, 2, 3], [5, 4, 7, 6], [10, 11, 8, 9], [15, 14, 13, 12], [17, 16, 19, 18], [20, 21, 22, 23],
             [27, 26, 25, 24], [30, 31, 28, 29]],
}


@pytest.mark.parametrize("per, top", list(ROTATING))
def test_amd_rotating_shared_is_its_documented_table(per, top):
    """The attribute's own examples: the element stored at each position, so the layout (position of
    each element) is the inverse: element value v is at position of v in the table."""
    tile = Tile(8, 4, 4, 2)
    got = table_of(f"triton: #ttg.amd_rotating_shared<{{vec = 1, perPhase = {per}, maxPhase = {top}, "
                   f"order = [1, 0]}}>", tile)
    stored = np.array(ROTATING[per, top]).ravel()  # stored[position] = element
    position = np.empty_like(stored)
    position[stored] = np.arange(stored.size)
    assert np.array_equal(got.ravel(), position)


def test_triton_forms_agree_and_order_01_is_column_major():
    tile = Tile(64, 64, 64, 2)
    sw = layout_table(tile, Swizzle(3, 3, 3))
    for text in ["#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>",
                 "SwizzledSharedLayout(8, 1, 8, [1, 0])",
                 "ttgl.SwizzledSharedLayout(vec=8, per_phase=1, max_phase=8, order=[1, 0])",
                 "#shared = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], "
                 "CTAsPerCGA = [1, 1], CTASplitNum = [1, 1], CTAOrder = [1, 0]}>",
                 "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>",
                 "NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=16, rank=2)"]:
        assert np.array_equal(table_of(f"triton: {text}", tile), sw), text
    col = table_of("triton: #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1]}>", tile)
    assert np.array_equal(col, sw.T)
    nv = table_of("triton: #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16}>",
                  tile)
    assert np.array_equal(nv, sw.T)


def test_a_shared_linear_layout_that_is_no_bijection_is_not_usable():
    bases = [[0, 1], [0, 2], [0, 1]]
    checked = api.check(f"triton: #ttg.shared_linear<{{offset = {bases}}}, alignment = 16>", rows=2, cols=4,
                        access=["1x4"])
    assert checked.status == "not-usable"
    assert "offsets 0 and 5 are both element (0, 1)" in checked.invalid or "both element" in checked.invalid


@pytest.mark.parametrize("text, words", [
    ("triton: #ttg.blocked<{sizePerThread = [1, 1]}>", "is not a shared encoding read here"),
    ("triton: #shared1", "#shared1 is the TTGIR's alias of an encoding: give what it names, from the line "
                         "'#shared1 = #ttg....'"),  # the name a memdesc type carries, copied
    ("triton: #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], foo = 1}>",
     "foo is not a parameter"),
    ("triton: #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 32}>",
     "elementBitWidth = 32, the tile's elements are 16 bits"),
    ("triton: #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], CTAsPerCGA = [2, 1]}>",
     "one CTA"),
    ("triton: #ttg.padded_shared<[32:+4] {order = [1, 0], shape = [32, 64]}>", "the encoding's shape is [32, 64]"),
    ("triton: Foo(1, 2)", "is not a Gluon shared layout"),
    ("triton: #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}", "expected '>'"),
])
def test_bad_triton_is_bad_input(text, words):
    with pytest.raises(InputError, match=re.escape(words)):
        parse_layout(text, tile=Tile(64, 64, 64, 2))


# --- table:FILE ------------------------------------------------------------------------------------


def test_table_files_in_every_format(tmp_path):
    tile = Tile(16, 64, 64, 2)
    want = layout_table(tile, Swizzle(3, 3, 3))
    np.save(tmp_path / "t.npy", want)
    (tmp_path / "t.csv").write_text("# offsets\n" + "\n".join(",".join(map(str, row)) for row in want.tolist()))
    (tmp_path / "t.json").write_text(json.dumps(want.tolist()))
    for name in ("t.npy", "t.csv", "t.json"):
        layout = parse_layout(f"table:{tmp_path / name}", tile=tile)
        assert np.array_equal(layout_table(tile, layout), want)
        assert layout.expression(tile) is not None  # linear: the XOR form of its bases
    rotation = (np.arange(16)[:, None] * 64 + (np.arange(64)[None, :] + 8 * np.arange(16)[:, None]) % 64)
    np.save(tmp_path / "rot.npy", rotation)
    layout = parse_layout(f"table:{tmp_path / 'rot.npy'}", tile=tile)
    assert layout.expression(tile) is None


def test_bad_table_files_are_bad_input(tmp_path):
    tile = Tile(16, 64, 64, 2)
    np.save(tmp_path / "obj.npy", np.array([[1, None]], dtype=object), allow_pickle=True)
    np.save(tmp_path / "small.npy", np.zeros((8, 64), dtype=np.int32))
    np.save(tmp_path / "flat.npy", np.zeros(64, dtype=np.int32))
    (tmp_path / "ragged.json").write_text("[[1, 2], [3]]")
    (tmp_path / "deep.json").write_text("[" * 100 + "]" * 100)
    (tmp_path / "text.csv").write_text("1, 2, x\n")
    cases = {"obj.npy": "not a .npy array of integers", "small.npy": "is 8 x 64, the tile is 16 x 64",
             "flat.npy": "two dimensions", "ragged.json": "different lengths", "deep.json": "levels deep",
             "text.csv": "line 1 is not integers", "missing.npy": "No such file", "t.txt": ".npy, .csv or .json"}
    for name, words in cases.items():
        with pytest.raises(InputError, match=re.escape(words)):
            parse_layout(f"table:{tmp_path / name}", tile=tile)


# --- hostile input, in time -------------------------------------------------------------------------

HOSTILE = {
    "deep parentheses": "expr: " + "(" * 100_000 + "r" + ")" * 100_000,
    "deep unary": "expr: " + "~" * 100_000 + "r",
    "200 KB expression": "expr: " + "r + " * 50_000 + "c",
    "huge number": "expr: r + " + "9" * 5000,
    "huge hex": "bytes: 0x" + "f" * 5000,
    "deep cute": "cute: " + "Shape<" * 50_000 + "_1" + ">" * 50_000,
    "long cute": "cute: Layout<Shape<" + ",".join(["_2"] * 60_000) + ">>{}",
    "deep triton": "triton: #ttg.shared_linear<{offset = " + "[" * 50_000 + "]" * 50_000 + "}>",
    "long triton": "triton: SwizzledSharedLayout(" + "1, " * 60_000 + ")",
    # under the length limit: the depth limits answer
    "nested parentheses": "expr: " + "(" * 1500 + "r" + ")" * 1500,
    "nested unary": "expr: " + "-~" * 1000 + "r",
    "nested cute": "cute: " + "Shape<" * 600 + "_1" + ">" * 600,
    "nested triton": "triton: #ttg.shared_linear<{offset = " + "[" * 1500 + "]" * 1500 + "}>",
    "many operators": "expr: " + "r+" * 300 + "c",
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_layouts_are_refused_within_a_second(name):
    tile = Tile(64, 64, 64, 2)
    start = time.process_time()
    with pytest.raises(InputError):
        parse_layout(HOSTILE[name], tile=tile)
    assert time.process_time() - start < 1.0


@pytest.mark.parametrize("name", ["200 KB expression", "deep cute"])
def test_hostile_layouts_exit_2_with_one_line(tmp_path, name):
    """Through batch's check = (an argument of the command line is at most 128 KiB on Linux)."""
    (tmp_path / "cases.toml").write_text(f'[[case]]\nrows = 64\ncols = 64\ndtype = "f16"\naccess = ["8x8"]\n'
                                         f'check = "{HOSTILE[name]}"\n')
    start = time.monotonic()
    code, out, err = cli("batch", str(tmp_path / "cases.toml"))
    assert code == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err
    assert time.monotonic() - start < 5  # the whole run (in this process); the parse itself: the test above


def test_no_eval_of_user_text_anywhere():
    """The notations walk their own trees: no eval, exec or compile in them."""
    for path in (ROOT / "swizzle_solver/notation").glob("*.py"):
        assert not re.search(r"\b(eval|exec|compile)\s*\(", path.read_text()), path
    assert not re.search(r"\b(eval|exec)\s*\(", (ROOT / "swizzle_solver/families/given.py").read_text())


# --- recipes and the byte form ------------------------------------------------------------------


@pytest.mark.parametrize("recipe, rows, cols, dtype, want", [
    ("128B", 64, 64, "f16", "Swizzle<3,3,3>"), ("128B", 64, 128, "f16", "Panels<128B>"),
    ("64B", 32, 32, "f16", "Swizzle<2,3,3>"), ("64B", 32, 64, "f16", "Panels<64B>"),
    ("32B", 16, 8, "f32", "Swizzle<1,2,3>"), ("128B", 16, 128, "e4m3", "Swizzle<3,4,3>"),
    ("128b", 16, 16, "f16", "Swizzle<3,3,3>"), ("64B", 16, 64, "f16", "Panels<64B>"),
])
def test_tma_recipes_are_the_modes_layout_for_the_tile(recipe, rows, cols, dtype, want):
    prob = api.problem(rows, cols, ["row"], dtype=dtype)
    layout = parse_layout(recipe, tile=prob.tile)
    assert layout.name == want
    if want.startswith("Swizzle"):  # the byte-level Swizzle<B,4,3> of the mode, in element form
        assert layout.tma_mode(prob.tile.elem_bytes) == recipe.upper()
    else:  # each panel is the mode's atom
        assert layout.atom(prob.tile).tma_mode(prob.tile.elem_bytes) == recipe.upper()


def test_a_recipe_on_padded_rows_is_not_usable_and_says_why():
    checked = api.check("128B", rows=16, cols=64, row_length=72, dtype="f16", access=["8x8"])
    assert checked.status == "not-usable" and "padded" in checked.invalid


def test_byte_form_given_as_elements_is_checked_as_written_and_the_message_names_its_element_form(capsys):
    checked = api.check("Swizzle<3,4,3>", rows=64, cols=64, dtype="f16", access=["8x8"])
    assert not checked.passed and checked.layout.name == "Swizzle<3,4,3>"
    assert "byte form of Swizzle<3,3,3> on 2-byte elements" in checked.hint
    assert api.check("bytes:Swizzle<3,4,3>", rows=64, cols=64, dtype="f16", access=["8x8"]).passed
    code = main(["--rows", "64", "--cols", "64", "--dtype", "f16", "--access", "8x8", "--check", "Swizzle<3,4,3>",
                 "-q"])
    assert code == 1 and "byte form of Swizzle<3,3,3>" in capsys.readouterr().out
    code = main(["--rows", "64", "--cols", "64", "--dtype", "f16", "--access", "8x8", "--check", "Swizzle<3,4,3>",
                 "--json"])
    assert json.loads(capsys.readouterr().out)["check"]["hint"] == checked.hint
    # no hint where the element form fails too, or for a layout that passes
    assert api.check("Swizzle<3,4,3>", rows=64, cols=64, dtype="f16", access=["col"]).hint is None
    assert api.check("Swizzle<3,3,3>", rows=64, cols=64, dtype="f16", access=["8x8"]).hint is None


def test_the_byte_form_written_in_cute_notation_gets_the_same_hint():
    """The DSL prints a composed swizzle as ``S<3,4,3> o 0 o (8,64):(64,1)``: pasted as ``cute:``, the
    byte form is named as for a bare Swizzle<3,4,3>; a pointer's byte swizzle (smem_ptr) passes, and a
    composition over another layout (its table not the swizzle's) gets no hint."""
    tile = {"rows": 8, "cols": 64, "dtype": "f16", "access": ["8x8"]}
    for text in ("cute: S<3,4,3> o 0 o (8,64):(64,1)", "cute: Swizzle<3,4,3>"):
        checked = api.check(text, **tile)
        assert not checked.passed and "byte form of Swizzle<3,3,3> on 2-byte elements" in checked.hint
    assert api.check("cute: Sw<3,4,3> o smem_ptr[16b](unset) o (8,64):(64,1)", **tile).passed
    assert api.check("cute: S<3,4,3> o 0 o (8,64):(1,8)", **tile).hint is None


# --- CLI, JSON, batch -------------------------------------------------------------------------------

CHECKS = [
    "expr: r * 64 + (c ^ ((r & 7) << 3))", "bytes:Swizzle<3,4,3>",
    "cute: composition(Swizzle<3,3,3>{}, Layout<Shape<_64,_64>,Stride<_64,_1>>{})",
    "triton: #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>",
    "expr: (r * 64 + c) & 63", "expr: r * 64 + ((c + 8 * r) & 63)",
]


@pytest.mark.parametrize("layout", CHECKS)
def test_given_layouts_json_validates_and_its_expression_is_the_table(capsys, layout):
    from tests.test_schema import validate

    code = main(["--rows", "64", "--cols", "64", "--dtype", "f16", "--access", "8x8", "--check", layout, "--json",
                 "--emit", "all"])
    doc = json.loads(capsys.readouterr().out)
    validate(doc)
    ans = doc["answer"]
    assert ans["family"] == "given" and ans["name"] == layout and ans["given"]["text"] == layout
    assert code == (0 if doc["status"] == "conflict-free" else 1)
    tile = Tile(64, 64, 64, 2)
    if doc["status"] != "not-usable":
        assert np.array_equal(python_table(ans["expression"], tile), table_of(layout, tile))


def test_a_table_without_a_closed_form_emits_a_constant_array_and_null_expression(tmp_path, capsys):
    from tests.test_schema import validate

    rotation = (np.arange(16)[:, None] * 64 + (np.arange(64)[None, :] + 8 * np.arange(16)[:, None]) % 64)
    np.save(tmp_path / "rot.npy", rotation)
    code = main(["--rows", "16", "--cols", "64", "--dtype", "f16", "--access", "8x8", "--check",
                 f"table:{tmp_path / 'rot.npy'}", "--json", "--emit", "all"])
    doc = json.loads(capsys.readouterr().out)
    validate(doc)
    assert code == 0 and doc["answer"]["expression"] is None
    assert doc["answer"]["given"]["expression_unavailable"]
    assert doc["answer"]["emit_expressible"]["cuda"] is True
    assert "kPhys[16][64]" in doc["answer"]["emit"]["cuda"]
    code = main(["--rows", "16", "--cols", "64", "--dtype", "f16", "--access", "8x8", "--check",
                 f"table:{tmp_path / 'rot.npy'}", "--show"])
    out = capsys.readouterr().out
    assert code == 0 and "no closed form" in out and "None" not in out


def test_batch_check_takes_notations_and_reads_tables_beside_the_file(tmp_path, capsys):
    tile = Tile(64, 64, 64, 2)
    np.save(tmp_path / "sw.npy", layout_table(tile, Swizzle(3, 3, 3)))
    (tmp_path / "cases.toml").write_text(
        '[[case]]\nname = "expr"\nrows = 64\ncols = 64\ndtype = "f16"\naccess = ["8x8"]\n'
        'check = "expr: r * 64 + (c ^ ((r & 7) << 3))"\n'
        '[[case]]\nname = "table"\nrows = 64\ncols = 64\ndtype = "f16"\naccess = ["8x8"]\ncheck = "table:sw.npy"\n'
        '[[case]]\nname = "recipe"\nrows = 64\ncols = 64\ndtype = "f16"\naccess = ["8x8"]\ncheck = "128B"\n')
    code = main(["batch", str(tmp_path / "cases.toml"), "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0 and [c["ok"] for c in doc["cases"]] == [True, True, True]
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "out.toml").write_text(
        '[[case]]\nname = "out"\nrows = 64\ncols = 64\ndtype = "f16"\naccess = ["8x8"]\ncheck = "table:../sw.npy"\n')
    assert main(["batch", str(tmp_path / "sub" / "out.toml")]) == 2
    assert "leaves the folder of the examples file" in capsys.readouterr().err
    assert main(["batch", str(tmp_path / "sub" / "out.toml"), "--allow-outside"]) == 0


def test_a_bad_notation_in_batch_names_the_case(tmp_path, capsys):
    (tmp_path / "cases.toml").write_text(
        '[[case]]\nname = "bad"\nrows = 8\ncols = 8\naccess = ["row"]\ncheck = "expr: r +* c"\n')
    assert main(["batch", str(tmp_path / "cases.toml")]) == 2
    err = capsys.readouterr().err
    assert "case 'bad': check 'expr: r +* c': column 10" in err


NOTATION_TEXT = st.text(alphabet="rc0123456789x_+-*/%<>&|^~(){}[],;:=#. abSwizleLayoutShapeStrd", max_size=60)


@SETTINGS
@given(st.sampled_from(["expr:", "bytes:", "cute:", "triton:", "bytes:Swizzle<"]), NOTATION_TEXT)
def test_any_notation_text_is_a_layout_or_one_bad_input_line(prefix, text):
    """Whatever follows a prefix: a layout, or InputError (exit 2, one line); never another
    exception."""
    tile = Tile(8, 16, 16, 2)
    try:
        layout = parse_layout(prefix + text, tile=tile)
    except InputError as err:
        assert "\n" not in str(err)
        return
    assert layout_table(tile, layout).shape == (8, 16)
