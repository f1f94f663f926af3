"""Every emitted snippet, evaluated and compared with the simulator's layout table.

- `cuda`: compiled with the system C compiler into one program that prints phys(r, c) for every
  element of every tile;
- `cute`: the Swizzle triple, shape and stride read from the C++ and evaluated with pycute;
- `cute-dsl`: executed, with `cutlass.cute` stood in by pycute (make_swizzle, make_layout,
  make_composed_layout have pycute's meaning);
- `triton`: executed with Gluon stood in by recorders; the parameters turned into offset bases by Triton's own formulas
  (swizzledSharedToLinearLayout, NVMMASharedEncodingAttr getVec/getPerPhase/getMaxPhase and
  getCoreMatrixLinearLayout in lib/Dialect/TritonGPU/IR/{LinearLayoutConversions,Dialect}.cpp;
  padded_shared: `padding` elements after every `interval`), then inverted;
- `mojo`: Swizzle(bits, base, shift) and make_swizzle[num_rows, row_size, access_size] evaluated by
  the formulas of max/kernels/src/layout/swizzle.mojo;
- `tma`: the CUtensorMapSwizzle mode as the byte-level Swizzle<B,4,3> on byte offsets.

Every family is tested through its real layout class.
"""
import copy
import functools
import re
import sys
import tomllib
import types
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pycute
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from swizzle_solver.access import elem_bits_of, elem_bytes_of, make_problem
from swizzle_solver.emit import TARGETS, emit, emit_all, expressible_in, parse_targets, verdict, verdicts
from swizzle_solver.emit.recognise import as_swizzle
from swizzle_solver.families import padding
from swizzle_solver.families.cute import Swizzle
from swizzle_solver.families.general_linear import GeneralLinear
from swizzle_solver.families.identity import Identity
from swizzle_solver.families.linear import XorLinear
from swizzle_solver.families.panels import ColumnPanels
from swizzle_solver.families.row_interleave import RowInterleave
from swizzle_solver.families.two_level import TwoLevel
from swizzle_solver.families.xor_cols import XorCols
from swizzle_solver.forms.language import version
from swizzle_solver.layout import layout_table
from swizzle_solver.model import InputError, is_pow2, log2
from swizzle_solver.solving import solve
from tests import compiled_c
from tests.cute_grid import grid

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = tomllib.loads((ROOT / "examples.toml").read_text())["case"]


def problem(rows, cols, access, row_length=None, elem_bytes=4, banks=32):
    return make_problem(rows, cols, access, row_length, elem_bytes, banks=banks)


def example_cases():
    """examples.toml's row-major cases as (name, problem, the solver's answer), each solved when a
    test first asks for it (`Cases`), not when the module is imported: a run that selects none of
    them (or a worker given none) does not solve 63 problems only to collect the tests' names."""
    out = []
    for case in EXAMPLES:
        if case.get("order", "row") != "row":  # a column-major tile's snippets: tests/test_order.py
            continue
        out.append((case["name"], functools.partial(_solved_example, case)))
    return out


def _solved_example(case):
    p = make_problem(case["rows"], case["cols"], case["access"], case.get("row_length"),
                     elem_bytes_of(case.get("dtype"), case.get("elem_bytes")), banks=case.get("banks"),
                     bank_bytes=case.get("bank_bytes"), arch=case.get("arch", "nvidia"),
                     elem_bits=elem_bits_of(case.get("dtype")))
    return case["name"], p, solve(p).answer.layout


class Cases(Sequence):
    """The cases in order, each (name, problem, layout); a case given as (name, function) is made
    by the function on first use and kept."""

    def __init__(self, cases):
        self.names = [case[0] for case in cases]
        self._cases = list(cases)

    def __len__(self):
        return len(self._cases)

    def __getitem__(self, i):
        if len(self._cases[i]) == 2:
            self._cases[i] = self._cases[i][1]()
        return self._cases[i]


def extra_cases():
    f16 = lambda r, c, a: problem(r, c, a, elem_bytes=2)  # noqa: E731
    return [
        ("sw128 f16", f16(64, 64, ["8x8"]), Swizzle(3, 3, 3)),
        ("sw64 f16", f16(16, 32, ["8x8"]), Swizzle(2, 3, 3)),
        ("sw32 f16", f16(16, 16, ["8x8"]), Swizzle(1, 3, 3)),
        ("sw128 f32", problem(16, 32, ["8x4"]), Swizzle(3, 2, 3)),
        ("xor-cols pow2", problem(16, 32, ["8x4"]), XorCols(3, 2, 0)),
        ("xor-cols pitch 24", problem(8, 24, ["8x1"]), XorCols(2, 0, 0)),
        ("xor-cols padded pitch 40", problem(8, 32, ["8x1"], row_length=40), XorCols(2, 1, 1)),
        ("identity padded pow2", problem(8, 32, ["8x1"], row_length=36), Identity()),
        ("two-level", problem(16, 32, ["8x4"]), TwoLevel(Swizzle(1, 0, 3), Swizzle(1, 1, 4))),
        ("two-level on pitch 40", problem(16, 32, ["8x4"], row_length=40), TwoLevel(Swizzle(1, 0, 3), Swizzle(1, 1, 4))),
        ("linear", problem(16, 32, ["8x4"]), XorLinear(((0, 5), (1, 7), (2, 5)))),
        ("linear, one CuTe swizzle", problem(16, 32, ["8x4"]), XorLinear(((2, 5), (3, 6)))),
        ("row interleave, a linear permutation", problem(16, 32, ["8x4"]), RowInterleave(4, 2)),
        ("row interleave, not linear", problem(24, 32, ["8x4"]), RowInterleave(6, 2)),
        ("negative S", problem(16, 32, ["8x4"]), Swizzle(2, 1, -3)),
        ("padding pow2", problem(8, 32, ["8x1"]), padding.Padded(36, Identity())),
        ("padding odd", problem(8, 32, ["8x1"]), padding.Padded(33, Identity())),
        ("cute on pitch 40", problem(32, 40, ["8x4"]), Swizzle(1, 2, 3)),
        ("padding + cute", f16(64, 64, ["8x8"]), padding.Padded(72, Swizzle(1, 3, 3))),
        ("padding + cute, pow2 pitch", problem(8, 24, ["8x1"]), padding.Padded(32, Swizzle(2, 0, 3))),
        ("padding + xor-cols", f16(64, 96, ["8x8", "8x8:2"]), padding.Padded(104, XorCols(1, 3, 3))),
        ("padding + xor-cols, pow2 pitch", problem(8, 24, ["8x1"]), padding.Padded(32, XorCols(2, 0, 0))),
        # xor-cols on pitches that are not powers of two, and padded: C++ CuTe's layout, swizzle, layout back
        ("xor-cols pitch 40 f16", f16(32, 40, ["8x2"]), XorCols(2, 1, 0)),
        ("xor-cols pitch 72 i8", problem(16, 72, ["8x8"], elem_bytes=1), XorCols(3, 0, 1)),
        ("xor-cols pitch 24 f64", problem(8, 24, ["8x1"], elem_bytes=8), XorCols(3, 0, 0)),
        ("xor-cols pitch 96 f16", f16(24, 96, ["8x8"]), XorCols(2, 3, 0)),
        ("padding 40 + xor-cols on 24 columns", problem(8, 24, ["8x1"]), padding.Padded(40, XorCols(3, 0, 0))),
        ("padding 72 + xor-cols f16", f16(64, 64, ["8x8"]), padding.Padded(72, XorCols(3, 3, 0))),
        ("padding 32 + xor-cols into the spare columns", problem(8, 24, ["8x1"]), padding.Padded(32, XorCols(2, 3, 0))),
        ("panels 128B f16", f16(64, 128, ["8x8"]), ColumnPanels(128)),
        ("panels 64B f32", problem(16, 64, ["8x4"]), ColumnPanels(64)),
        ("panels 32B i8, 3 panels", problem(8, 96, ["8x16"], elem_bytes=1), ColumnPanels(32)),
        ("panels 128B f16, 24 rows", f16(24, 192, ["8x8"]), ColumnPanels(128)),
        ("panels 128B f64", problem(16, 32, ["8x2"], elem_bytes=8), ColumnPanels(128)),
        ("sw128 f64", problem(16, 16, ["8x2"], elem_bytes=8), Swizzle(3, 1, 3)),
        ("sw128 16-byte elements", problem(16, 8, ["8x1"], elem_bytes=16), Swizzle(3, 0, 3)),
        ("panels 128B 16-byte elements", problem(16, 16, ["8x1"], elem_bytes=16), ColumnPanels(128)),
        # a padded layout holds any other family's member (issue 21): below the given pitch (the
        # padding dropped) and above it
        *PADDED_INNERS,
        # general-linear (issue 24): transposed storage, and a --vectors auto answer
        ("general-linear transposed f16", f16(16, 32, ["row"]),
         GeneralLinear((16, 32, 64, 128, 256, 1, 2, 4, 8))),
        ("general-linear 32x64 f32", problem(32, 64, ["col"]),
         GeneralLinear((256, 512, 260, 8, 1024, 16, 262, 36, 328, 105, 128))),
    ]


PADDED_INNERS = [
    ("padding + two-level, the given padding dropped",
     problem(32, 64, ["warp:4x8:1x8", "warp:32x1:1x4"], row_length=72),
     padding.Padded(64, TwoLevel(Swizzle(1, 5, 3), Swizzle(3, 2, 3)))),
    ("padding + two-level, pitch 40", problem(16, 32, ["8x4"]), padding.Padded(40, TwoLevel(Swizzle(1, 0, 3), Swizzle(1, 1, 4)))),
    ("padding + linear, the given padding dropped", problem(16, 16, ["4x4"], row_length=18),
     padding.Padded(16, XorLinear(((0, 5), (1, 7), (2, 5))))),
    ("padding + linear, one swizzle at pitch 36", problem(8, 32, ["8x1"]), padding.Padded(36, XorLinear(((0, 5), (1, 6))))),
    ("padding + row interleave, the given padding dropped", problem(16, 32, ["8x4"], row_length=40),
     padding.Padded(32, RowInterleave(4, 2))),
    ("padding + row interleave, pitch 40, not linear", problem(24, 32, ["8x4"]), padding.Padded(40, RowInterleave(6, 2))),
    ("padding + panels, the given padding dropped", problem(64, 128, ["8x8"], row_length=136, elem_bytes=2),
     padding.Padded(128, ColumnPanels(128))),
    ("padding + cute, the given padding dropped", problem(64, 32, ["8x4"], row_length=40), padding.Padded(32, Swizzle(3, 2, 3))),
    ("padding + xor-cols, the given padding dropped", problem(16, 32, ["8x4"], row_length=40),
     padding.Padded(32, XorCols(3, 2, 0))),
]


CASES = Cases(example_cases() + extra_cases())
IDS = CASES.names


def truth(p, layout):
    return layout_table(p.tile, layout)


# --- cuda: one C program for every case --------------------------------------------------------


@pytest.fixture(scope="module")
def c_tables(tmp_path_factory):
    functions = [emit("cuda", p, layout).code.replace("swizzle_phys", f"swizzle_phys_{i}")
                 for i, (_, p, layout) in enumerate(CASES)]
    calls = [(f"swizzle_phys_{i}", p.tile.rows, p.tile.cols) for i, (_, p, _) in enumerate(CASES)]
    return compiled_c.tables(tmp_path_factory.mktemp("cc"), functions, calls)


@pytest.mark.parametrize("i", range(len(CASES)), ids=IDS)
def test_cuda_function_compiled_matches_simulator(i, c_tables):
    _, p, layout = CASES[i]
    assert np.array_equal(c_tables[i], truth(p, layout).ravel())


# --- cute (C++) and CuTe DSL, against pycute ---------------------------------------------------


def pycute_layout(p, code):
    """The layout a cute snippet declares, rebuilt with pycute (None if it declares none)."""
    panels = re.search(r"Shape<cute::Int<(\d+)>, cute::Shape<cute::Int<(\d+)>, cute::Int<(\d+)>>>,[\s/]*"
                       r"cute::Stride<cute::Int<(\d+)>, cute::Stride<cute::Int<1>, cute::Int<(\d+)>>>", code)
    if panels is not None:  # column panels: ((R), (w, n)) : ((w), (1, R * w)) under the atom's swizzle
        r, w, n, a, b = map(int, panels.groups())
        sw = re.search(r"Swizzle<(\d+),(\d+),(-?\d+)>(?:;|\{\})", code)
        return pycute.ComposedLayout(pycute.Swizzle(*map(int, sw.groups())), 0, pycute.Layout((r, (w, n)), (a, (1, b))))
    bands = re.search(r"Shape<cute::Shape<cute::Int<(\d+)>, cute::Int<(\d+)>, cute::Int<(\d+)>>, cute::Int<(\d+)>>,\s*"
                      r"cute::Stride<cute::Stride<cute::Int<(\d+)>, cute::Int<(\d+)>, cute::Int<(\d+)>>, cute::Int<1>>", code)
    if bands is not None:  # rows permuted in bands: ((T/k, k, R/T), C) : ((kP, P, TP), 1)
        s0, s1, s2, c, d0, d1, d2 = map(int, bands.groups())
        assert (s0 * s1 * s2, c) == (p.tile.rows, p.tile.cols)
        return pycute.Layout(((s0, s1, s2), c), ((d0, d1, d2), 1))
    shape = re.search(r"Shape<cute::Int<(\d+)>, cute::Int<(\d+)>>, cute::Stride<cute::Int<(\d+)>, cute::Int<1>>",
                      code)
    if shape is None or "cannot express" in code:
        return None
    r, c, pitch = map(int, shape.groups())
    assert (r, c) == (p.tile.rows, p.tile.cols)
    plain = pycute.Layout((r, c), (pitch, 1))
    back = re.search(r"Shape<cute::Int<(\d+)>, cute::Int<(\d+)>>, cute::Stride<cute::Int<1>, cute::Int<(\d+)>>", code)
    if back is not None:  # make_composed_layout((Q, R):(1, P), 0, composition(Swizzle, (R, C):(Q, 1)))
        q, rows, pitch_back = map(int, back.groups())
        assert rows == p.tile.rows and pitch == q  # rows laid Q apart, then mapped back to P apart
        sw = re.search(r"Swizzle<(\d+),(\d+),(-?\d+)>;", code)
        inner = pycute.ComposedLayout(pycute.Swizzle(*map(int, sw.groups())), 0, plain)
        return pycute.ComposedLayout(pycute.Layout((q, rows), (1, pitch_back)), 0, inner)
    nested = re.findall(r"using SmemSwizzle\d+ = cute::Swizzle<(\d+),(\d+),(-?\d+)>;", code)
    if nested:  # make_composed_layout(Sw2, 0, composition(Sw1, layout)): Sw1 first, then Sw2
        layout = plain
        for triple in nested:
            layout = pycute.ComposedLayout(pycute.Swizzle(*map(int, triple)), 0, layout)
        return layout
    sw = re.search(r"Swizzle<(\d+),(\d+),(-?\d+)>(?:;|\{\})", code)
    return plain if sw is None else pycute.ComposedLayout(pycute.Swizzle(*map(int, sw.groups())), 0, plain)


def table_of(fn, p):
    if isinstance(fn, (pycute.Layout, pycute.ComposedLayout)):
        return grid(fn, p.tile.rows, p.tile.cols)
    return np.array([[fn(r, c) for c in range(p.tile.cols)] for r in range(p.tile.rows)], dtype=np.int64)


@pytest.mark.parametrize("i", range(len(CASES)), ids=IDS)
def test_cute_snippet_matches_pycute(i):
    _, p, layout = CASES[i]
    snippet = emit("cute", p, layout)
    rebuilt = pycute_layout(p, snippet.code)
    assert (rebuilt is not None) == snippet.expressible
    if rebuilt is not None:
        assert np.array_equal(table_of(rebuilt, p), truth(p, layout))
        atom = re.search(r"tile_to_shape\(cute::GMMA::Layout_K_SW(\d+)_Atom<T>", snippet.code)
        if atom:  # the GMMA atom swizzles byte addresses: Swizzle<B,4,3> of the bytes of its K-major tiling
            width = int(atom[1])
            t = p.tile
            w = width // t.elem_bytes
            dense = pycute.Layout((t.rows, (w, t.cols // w)), (w, (1, t.rows * w)))  # tile_to_shape's order
            byte_sw = Swizzle({32: 1, 64: 2, 128: 3}[width], 4, 3)
            got = byte_sw.apply(table_of(dense, p) * t.elem_bytes) // t.elem_bytes
            assert np.array_equal(got, truth(p, layout))
    else:
        assert "operator()(int r, int c)" in snippet.code


def _stub_cute():
    """`cutlass.cute` for executing snippets: the functions they call, with pycute's meaning."""
    cute = types.SimpleNamespace(
        make_swizzle=pycute.Swizzle,
        make_layout=lambda shape, stride: pycute.Layout(shape, stride),
        make_composed_layout=lambda inner, offset, outer: pycute.ComposedLayout(inner, offset, outer))
    cutlass = types.ModuleType("cutlass")
    cutlass.cute = cute
    return {"cutlass": cutlass, "cutlass.cute": cute}


@pytest.mark.parametrize("i", range(len(CASES)), ids=IDS)
def test_cute_dsl_snippet_executes_to_the_layout(i, monkeypatch):
    _, p, layout = CASES[i]
    snippet = emit("cute-dsl", p, layout)
    for name, module in _stub_cute().items():
        monkeypatch.setitem(sys.modules, name, module)
    scope: dict = {}
    exec(snippet.code, scope)
    fn = scope["smem_layout"] if snippet.expressible else scope["smem_offset"]
    assert np.array_equal(table_of(fn, p), truth(p, layout))


# --- triton --------------------------------------------------------------------------------------


def _invert_offset_bases(p, bases):
    """Triton's offset -> (row, col) bases, extended by XOR, inverted to phys[r, c]."""
    t = p.tile
    phys = np.zeros((t.rows, t.cols), np.int64)
    for off in range(t.rows * t.cols):
        r = c = 0
        for i, (br, bc) in enumerate(bases):
            if off >> i & 1:
                r, c = r ^ br, c ^ bc
        phys[r, c] = off
    return phys


def triton_swizzled_bases(p, vec, per_phase, max_phase):
    """lib/Dialect/TritonGPU/IR/LinearLayoutConversions.cpp, swizzledSharedToLinearLayout."""
    rows, cols = p.tile.rows, p.tile.cols
    bases = [[0, 1 << j] for j in range(log2(cols))]
    bases += [[1 << k, (vec * ((1 << k) // per_phase % max_phase)) % cols] for k in range(log2(rows))]
    return bases


def triton_nvmma_bases(p, width):
    """NVMMASharedEncodingAttr: vec = 128 / bits, perPhase = 128 / width, maxPhase = width / 16;
    core matrix 8 rows x width bytes (getCoreMatrixLinearLayout), more rows by identity."""
    bits = 8 * p.tile.elem_bytes
    vec, per_phase, max_phase = 128 // bits, 128 // width, width // 16
    tile_cols = 8 * width // bits
    assert tile_cols == p.tile.cols
    bases = [[0, 1 << j] for j in range(log2(tile_cols))]
    bases += [[1 << k, vec * ((1 << k) // per_phase % max_phase)] for k in range(3)]
    bases += [[1 << k, 0] for k in range(3, log2(p.tile.rows))]
    return bases


def _stub_gluon():
    """`triton.experimental.gluon.language` for executing snippets: each layout records its arguments."""
    record = lambda kind: lambda *a, **k: (kind, a, k)  # noqa: E731
    padded = types.SimpleNamespace(with_identity_for=record("padded"))
    ttgl = types.SimpleNamespace(SwizzledSharedLayout=record("swizzled"), NVMMASharedLayout=record("nvmma"),
                                 SharedLinearLayout=record("linear"), PaddedSharedLayout=padded)
    modules = {name: types.ModuleType(name) for name in ("triton", "triton.experimental", "triton.experimental.gluon")}
    modules["triton.experimental.gluon"].language = ttgl
    modules["triton.experimental.gluon.language"] = ttgl
    return modules


@pytest.mark.parametrize("i", range(len(CASES)), ids=IDS)
def test_triton_snippet_follows_tritons_formulas(i, monkeypatch):
    """The snippet is executed; every encoding it builds is turned into offsets by Triton's formulas."""
    _, p, layout = CASES[i]
    snippet = emit("triton", p, layout)
    for name, module in _stub_gluon().items():
        monkeypatch.setitem(sys.modules, name, module)
    scope: dict = {}
    exec(snippet.code, scope)
    built = [v for v in scope.values() if isinstance(v, tuple) and len(v) == 3]
    assert bool(built) == snippet.expressible
    expected = truth(p, layout)
    for kind, args, kw in built:
        if kind == "swizzled":
            assert kw["order"] == [1, 0]
            bases = triton_swizzled_bases(p, kw["vec"], kw["per_phase"], kw["max_phase"])
            assert np.array_equal(_invert_offset_bases(p, bases), expected)
        elif kind == "nvmma":
            assert kw["element_bitwidth"] == 8 * p.tile.elem_bytes and kw["rank"] == 2
            assert np.array_equal(_invert_offset_bases(p, triton_nvmma_bases(p, kw["swizzle_byte_width"])), expected)
        elif kind == "padded":
            [[interval, padding]], shape, order = args
            assert shape == [p.tile.rows, p.tile.cols] and order == [1, 0]
            logical = np.arange(p.tile.rows * p.tile.cols).reshape(p.tile.rows, p.tile.cols)
            assert np.array_equal(logical + logical // interval * padding, expected)
        else:
            assert np.array_equal(_invert_offset_bases(p, kw["offset_bases"]), expected)


# --- mojo and tma --------------------------------------------------------------------------------


def mojo_swizzle(bits, base, shift):
    """max/kernels/src/layout/swizzle.mojo: Swizzle(bits, base, shift), CuTe's formula:
    yyy_mask = ((1 << bits) - 1) << (base + max(0, shift)); idx ^ shiftr(idx & yyy_mask, shift), where
    shiftr by a negative amount shifts left."""
    yyy = ((1 << bits) - 1) << (base + max(0, shift))
    return lambda idx: idx ^ ((idx & yyy) >> shift if shift >= 0 else (idx & yyy) << -shift)


def mojo_make_swizzle(num_rows, row_size, access_size):
    """make_swizzle[num_rows, row_size, access_size]: bits = log2(num_rows), base = log2(access_size),
    shifts = log2(row_size) - base."""
    base = log2(access_size)
    return log2(num_rows), base, log2(row_size) - base


@pytest.mark.parametrize("i", range(len(CASES)), ids=IDS)
def test_mojo_swizzle_matches(i):
    _, p, layout = CASES[i]
    snippet = emit("mojo", p, layout)
    expected = truth(p, layout)
    sw = re.search(r"Swizzle\((\d+), (\d+), (-?\d+)\)", snippet.code)
    plain = re.search(r"IntTuple\((\d+), 1\)", snippet.code)
    bands = re.search(r"Layout\(IntTuple\(IntTuple\((\d+), (\d+), (\d+)\), (\d+)\), "
                      r"IntTuple\(IntTuple\((\d+), (\d+), (\d+)\), 1\)\)", snippet.code)
    panels = re.search(r"Layout\(IntTuple\((\d+), IntTuple\((\d+), (\d+)\)\), IntTuple\((\d+), IntTuple\(1, (\d+)\)\)\)",
                       snippet.code)
    if panels:  # column panels: the atom's Swizzle of the hierarchical Layout's offset
        r, w, n, a, b = map(int, panels.groups())
        fn, lay = mojo_swizzle(*map(int, sw.groups())), pycute.Layout((r, (w, n)), (a, (1, b)))
        assert "smem_swizzle(lay(IntTuple(r, c))), with var lay = materialize[panel_layout]()" in snippet.code
        assert np.array_equal(fn(table_of(lay, p)), expected)
    elif bands:  # Mojo's Layout maps a coordinate as CuTe does (colexicographic): pycute evaluates it
        s0, s1, s2, c, d0, d1, d2 = map(int, bands.groups())
        assert np.array_equal(table_of(pycute.Layout(((s0, s1, s2), c), ((d0, d1, d2), 1)), p), expected)
    elif sw:
        fn = mojo_swizzle(*map(int, sw.groups()))
        pitch = int(re.search(r"smem_swizzle\(r \* (\d+) \+ c\)", snippet.code)[1])
        assert np.array_equal(table_of(lambda r, c: fn(r * pitch + c), p), expected)
        made = re.search(r"make_swizzle\[num_rows=(\d+), row_size=(\d+), access_size=(\d+)\]", snippet.code)
        if made:
            assert mojo_make_swizzle(*map(int, made.groups())) == tuple(map(int, sw.groups()))
    elif plain:
        assert np.array_equal(table_of(lambda r, c: r * int(plain[1]) + c, p), expected)
    else:
        assert not snippet.expressible and "cannot express" in snippet.code


@pytest.mark.parametrize("i", range(len(CASES)), ids=IDS)
def test_tma_mode_is_the_byte_swizzle(i):
    _, p, layout = CASES[i]
    snippet = emit("tma", p, layout)
    t = p.tile
    mode = re.search(r"CU_TENSOR_MAP_SWIZZLE_(\w+);", snippet.code)
    assert (mode is not None) == snippet.expressible
    if mode is None:
        assert "not a TMA" in snippet.code
        return
    # TMA writes a box densely: rows cols apart (a padded layout at pitch = cols, given a wider row length)
    logical_bytes = (np.arange(t.rows)[:, None] * t.cols + np.arange(t.cols)[None, :]) * t.elem_bytes
    boxes = re.search(r"box: (\d+) elements x (\d+) rows .*; (\d+) boxes", snippet.code)
    if boxes is not None:  # one box per column panel, stored one after another, each swizzled
        w, rows, n = map(int, boxes.groups())
        width = int(mode[1][:-1])
        assert w * t.elem_bytes == width and rows == t.rows and n * w == t.cols
        assert f"aligned to {8 * width} B" in snippet.code
        r, c = np.arange(t.rows)[:, None], np.arange(t.cols)[None, :]
        panel_bytes = (r * w + c % w) * t.elem_bytes  # each box is written densely
        phys_bytes = (c // w) * rows * width + Swizzle({32: 1, 64: 2, 128: 3}[width], 4, 3).apply(panel_bytes)
        assert np.array_equal(phys_bytes // t.elem_bytes, truth(p, layout))
        return
    if mode[1] == "NONE":
        phys_bytes = logical_bytes
    else:
        width = int(mode[1][:-1])
        assert t.cols * t.elem_bytes <= width  # box inner extent <= swizzle width
        assert f"aligned to {8 * width} B" in snippet.code
        phys_bytes = Swizzle({32: 1, 64: 2, 128: 3}[width], 4, 3).apply(logical_bytes)
    assert np.array_equal(phys_bytes // t.elem_bytes, truth(p, layout))


# --- recognising forms, properties -------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([8, 16, 32]), st.sampled_from([8, 16, 32, 64]), st.sampled_from([1, 2, 4]), st.data())
def test_swizzle_recognised_from_any_equal_layout(rows, cols, e, data):
    """An XorCols equal to a CuTe swizzle on the tile is emitted as that swizzle. Drawn so that the
    swizzle reads row bits a .. a+B-1 of this tile and writes column bits M .. M+B-1."""
    b = data.draw(st.integers(1, min(3, log2(rows), log2(cols))))
    m = data.draw(st.integers(0, min(3, log2(cols) - b)))
    a = data.draw(st.integers(0, log2(rows) - b))  # the row bit the swizzle reads
    s = a + log2(cols) - m  # its shift: from row bit a (offset bit a + log2(cols)) down to bit M
    assert s >= b  # as M + B <= log2(cols): a CuTe swizzle
    p = make_problem(rows, cols, ["1x1"], None, e)
    sw = Swizzle(b, m, s)
    as_cols = XorCols(b, m, a)
    assert np.array_equal(layout_table(p.tile, as_cols), layout_table(p.tile, sw))
    found = as_swizzle(p.tile, as_cols)
    assert found == sw
    assert f"Swizzle({b}, {m}, {s})" in emit("mojo", p, as_cols).code


def test_two_level_is_not_called_one_swizzle():
    """Two swizzles are no single Swizzle<B,M,S>: C++ CuTe nests the composed layouts (checked against
    pycute above); the CuTe DSL, Mojo's Swizzle and TMA take one swizzle."""
    p = problem(16, 32, ["8x4"])
    layout = TwoLevel(Swizzle(1, 0, 3), Swizzle(1, 1, 4))
    assert as_swizzle(p.tile, layout) is None
    snippets = emit_all(TARGETS, p, layout)
    assert snippets["cute"].expressible and "make_composed_layout(SmemSwizzle2{}, cute::_0{}" in snippets["cute"].code
    assert not snippets["cute-dsl"].expressible
    assert not snippets["mojo"].expressible and not snippets["tma"].expressible
    assert snippets["triton"].expressible and "SharedLinearLayout" in snippets["triton"].code


def test_a_swizzle_of_padded_rows_is_composed_with_the_padded_stride():
    """CuTe composes a swizzle with any layout: pitch P + Swizzle is composition(Swizzle, (R,C):(P,1))."""
    cases = {name: (p, layout) for name, p, layout in CASES}
    for name in ("padding + cute", "padding + xor-cols, pow2 pitch"):
        p, layout = cases[name]
        snippets = emit_all(TARGETS, p, layout)
        assert snippets["cute"].expressible
        assert f"cute::Stride<cute::Int<{layout.pitch}>, cute::Int<1>>" in snippets["cute"].code
        assert snippets["cute-dsl"].expressible and snippets["mojo"].expressible
        assert not snippets["tma"].expressible and "padding" in snippets["tma"].code
    dense = emit("tma", problem(64, 32, ["8x4"], row_length=40), padding.Padded(32, Swizzle(3, 2, 3)))
    assert "padding element" not in dense.code  # pitch 32 = cols: nothing left out, not "0 padding elements"
    p, layout = cases["padding + xor-cols"]
    snippets = emit_all(TARGETS, p, layout)  # a swizzle between two layouts: C++ CuTe only
    assert snippets["cute"].expressible and "make_composed_layout(" in snippets["cute"].code
    assert "cute::Stride<cute::Int<1>, cute::Int<104>>" in snippets["cute"].code
    assert not snippets["cute-dsl"].expressible and "affine inner layout" in snippets["cute-dsl"].code
    assert not snippets["mojo"].expressible and "r * 104 + c" in snippets["mojo"].code


def test_a_padded_layout_is_written_as_its_inner_layout_at_its_pitch():
    """A padded layout is its inner layout on the tile with rows its pitch apart (the same table), so
    each target writes what it writes for that layout at that pitch: nested swizzles, bands and
    panels with the pitch as the row stride; at pitch = cols (the given padding dropped) the dense
    tile's forms (a Triton linear layout, TMA). What a target cannot write, it says (the snippets
    themselves are checked against the table above, case by case)."""
    expected = {  # the targets that express each case
        "padding + two-level, the given padding dropped": {"cute", "cuda", "triton"},
        "padding + two-level, pitch 40": {"cute", "cuda"},
        "padding + linear, the given padding dropped": {"cute", "cuda", "triton"},
        "padding + linear, one swizzle at pitch 36": {"cute", "cute-dsl", "cuda", "mojo"},
        "padding + row interleave, the given padding dropped": {"cute", "cute-dsl", "cuda", "triton", "mojo"},
        "padding + row interleave, pitch 40, not linear": {"cute", "cute-dsl", "cuda", "mojo"},
        "padding + panels, the given padding dropped": {"cute", "cute-dsl", "cuda", "triton", "tma", "mojo"},
        "padding + cute, the given padding dropped": set(TARGETS) - {"umma"},  # (umma: sm100 only)
        "padding + xor-cols, the given padding dropped": set(TARGETS) - {"umma"},
    }
    for name, p, layout in PADDED_INNERS:
        assert layout.invalid(p.tile) is None, name
        snippets = emit_all(TARGETS, p, layout)
        assert {t for t, s in snippets.items() if s.expressible} == expected[name], name
        for t, s in snippets.items():
            if not s.expressible:
                assert any(why in s.code for why in ("cannot express", "not a TMA", "has no")), (name, t)
    two_level = emit("cute", *dict((n, (p, lay)) for n, p, lay in PADDED_INNERS)["padding + two-level, pitch 40"])
    assert "r * 40 + c" in two_level.code and "cute::Stride<cute::Int<40>, cute::Int<1>>" in two_level.code
    refused = emit("triton", problem(16, 32, ["8x4"]), padding.Padded(40, RowInterleave(4, 2)))
    assert not refused.expressible and "padding mixed with a permutation of rows" in refused.code


def test_parse_targets():
    assert parse_targets(["all"]) == list(TARGETS)
    assert parse_targets(["tma", "cuda,cute", "cuda"]) == ["cute", "cuda", "tma"]
    with pytest.raises(InputError, match="nonsense"):
        parse_targets(["nonsense"])


def test_emit_is_deterministic():
    p = problem(16, 32, ["8x4"])
    assert emit_all(TARGETS, p, Swizzle(3, 2, 3)) == emit_all(TARGETS, p, Swizzle(3, 2, 3))


def test_the_remembered_verdicts_are_the_snippets():
    """The JSON's expressible_in and tma_mode are remembered by (tile, hardware, layout) (emit.verdict):
    on every case, every target's verdict is its snippet's (expressible, mode), the first time and
    for another problem of the same tile and hardware with an equal layout (another object), which
    finds it remembered."""
    from swizzle_solver import emit as emit_module

    for name, p, layout in CASES:
        again = p if p.tile.elem_bits or p.tile.col_major else make_problem(
            p.tile.rows, p.tile.cols, ["8x1"], p.tile.row_length, p.tile.elem_bytes, banks=p.hardware.banks,
            bank_bytes=p.hardware.bank_bytes, arch=p.hardware.name)
        snippets = emit_all(TARGETS, p, layout)
        assert verdicts(p, layout) == (snippets["tma"].mode, [t for t, s in snippets.items() if s.expressible]), name
        for t in TARGETS:
            assert verdict(t, again, copy.copy(layout)) == (snippets[t].expressible, snippets[t].mode), (name, t)
        if type(layout).__hash__ is not object.__hash__:
            key = (version(), "cute", again.tile, again.hardware, copy.copy(layout))
            assert emit_module._VERDICTS.get(key) == (snippets["cute"].expressible, None), name


def test_a_registered_languages_verdict_is_made_every_time():
    """A language given to register may read more of the problem than its tile and hardware: its
    emitter is asked for each verdict; the package's targets' verdicts stay their snippets'."""
    from swizzle_solver.emit.common import Snippet
    from swizzle_solver.forms.language import Language, register, unregister

    calls = []

    def counted(problem, layout):
        calls.append(layout)
        return Snippet("counted", f"// {len(problem.patterns)} accesses", len(problem.patterns) == 1)

    p, layout = problem(16, 32, ["8x4"]), Swizzle(3, 2, 3)
    register(Language(name="counted", title="Counted", order=99, emit=counted))
    try:
        assert "counted" in expressible_in(p, layout)
        assert "counted" not in expressible_in(problem(16, 32, ["8x4", "row"]), layout)
        assert len(calls) == 2
        assert verdict("cute", p, layout) == (emit("cute", p, layout).expressible, None)
    finally:
        unregister("counted")


def test_gmma_atom_only_for_whole_swizzle_rows():
    wide = emit("cute", problem(16, 128, ["8x4"], elem_bytes=2), Swizzle(3, 3, 3)).code
    assert "GMMA" not in wide  # 128 B swizzle on 128-element (256 B) rows is not the K-major atom
    exact = emit("cute", problem(16, 64, ["8x8"], elem_bytes=2), Swizzle(3, 3, 3)).code
    assert "GMMA::Layout_K_SW128_Atom<T>" in exact


def test_every_case_is_pow2_where_triton_says_so():
    for _, p, layout in CASES:
        code = emit("triton", p, layout).code
        if not (is_pow2(p.tile.rows) and is_pow2(p.tile.cols)):
            assert "cannot express in Triton" in code


@pytest.mark.parametrize("i", range(len(CASES)), ids=IDS)
def test_mojo_snippet_is_current_mojo(i):
    """Mojo 1.x removed `alias` (now `comptime`) and `fn` (now `def`); `layout` comes with the MAX
    Mojo libraries, which the snippet names."""
    _, p, layout = CASES[i]
    code = emit("mojo", p, layout).code
    assert not re.search(r"^\s*(alias|fn)\s", code, re.M)
    if "from layout" in code:
        assert "max-mojo-libs" in code
    if "TensorMapSwizzle" in code:
        assert "from layout.tma_async import TensorMapSwizzle" in code


# --- what each target claims, per family (issue 21 item 4) ------------------------------------

EVERY = set(TARGETS) - {"umma"}  # these cases are on --arch nvidia; umma is sm100's (tests/test_generations.py)
CLAIMS = {  # a case of CASES -> the targets whose snippet expresses it exactly (answer.expressible_in)
    "sw128 f16": EVERY,  # a TMA mode: every target
    "cute on pitch 40": EVERY - {"triton", "tma"},  # Triton: powers of two only; TMA: rows of the swizzle width
    "xor-cols pow2": EVERY,  # a CuTe swizzle on a power-of-two pitch
    "xor-cols pitch 24": {"cute", "cuda"},  # C++ CuTe: layout, swizzle, layout back to the pitch
    "xor-cols pitch 40 f16": {"cute", "cuda"},
    "xor-cols pitch 72 i8": {"cute", "cuda"},
    "xor-cols pitch 24 f64": {"cute", "cuda"},
    "xor-cols pitch 96 f16": {"cute", "cuda"},
    "padding + xor-cols": {"cute", "cuda"},  # pitch 104 + XorCols: the same, back to the padded pitch
    "padding 40 + xor-cols on 24 columns": {"cute", "cuda"},
    "padding 72 + xor-cols f16": {"cute", "cuda"},
    "padding + cute": EVERY - {"triton", "tma"},
    "padding pow2": EVERY - {"tma"},  # Triton's padded_shared; TMA writes a box densely
    "padding odd": EVERY - {"tma"},
    "two-level": {"cute", "cuda", "triton"},  # nested composed layouts; the DSL and Mojo take one swizzle
    "linear": {"cute", "cuda", "triton"},
    "row interleave, not linear": EVERY - {"triton", "tma"},
    "panels 128B f16": EVERY,  # Mojo: the atom's Swizzle over the panels' Layout
    "panels 32B i8, 3 panels": EVERY - {"triton"},  # 96 columns: not a power of two
    "panels 128B f64": EVERY,
}


@pytest.mark.parametrize("name", CLAIMS)
def test_expressible_in_per_family_and_target(name):
    """The claims the toolchain tier checks in the real toolchains (tests/toolchains), pinned here
    without them: a claim that grows or shrinks is a decision, made here and there together."""
    _, p, layout = next(case for case in CASES if case[0] == name)
    assert set(expressible_in(p, layout)) == CLAIMS[name]


def test_column_panels_on_amd_are_claimed_without_tma():
    """On an AMD --arch the panels are CuTe's composition of the atom and Mojo's Swizzle over the
    panels' Layout (no GMMA atom, no TensorMapSwizzle), and TMA does not exist."""
    p = make_problem(64, 128, ["ds_write_b128:8x8"], None, 2, arch="gfx942")
    snippets = emit_all(TARGETS, p, ColumnPanels(128))
    assert set(expressible_in(p, ColumnPanels(128))) == EVERY - {"tma"}
    assert "TensorMapSwizzle" not in snippets["mojo"].code and "GMMA" not in snippets["cute"].code


@pytest.mark.parametrize("name", ["sw128 f16", "sw128 f32", "sw128 f64", "panels 128B f16", "panels 128B f64",
                                  "panels 32B i8, 3 panels"])
def test_tma_note_names_every_element_size_make_tma_copy_refuses(name):
    """make_tma_copy reads a layout's swizzle as byte-level and takes Swizzle<B,4,3> only (CuTe's
    get_tma_swizzle_bits/_base): the element-level alternative is refused for 2-, 4- and 8-byte
    elements and taken for 1-byte ones; the toolchain tier compiles both ways."""
    _, p, layout = next(case for case in CASES if case[0] == name)
    code = emit("cute", p, layout).code
    if p.tile.elem_bytes == 1:
        assert "make_tma_copy takes it too" in code and "refuses" not in code
    else:
        assert "make_tma_copy refuses it, as it refuses this form for 2-, 4- and 8-byte elements" in code


def test_sixteen_byte_elements_get_no_make_tma_copy_form():
    """CuTe's make_tma_copy knows no 16-byte element type (to_CUtensorMapDataType): such a tile's
    CuTe code is the element-level layout, and Mojo offers no make_swizzle[dtype, ...] (no such DType)."""
    for name in ("sw128 16-byte elements", "panels 128B 16-byte elements"):
        _, p, layout = next(case for case in CASES if case[0] == name)
        snippets = emit_all(TARGETS, p, layout)
        assert "GMMA" not in snippets["cute"].code and "make_tma_copy" not in snippets["cute"].code
        assert "TensorMapSwizzle" not in snippets["mojo"].code


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 64), st.integers(2, 100), st.integers(0, 40), st.sampled_from([1, 2, 4, 8]), st.data())
def test_xor_cols_on_any_pitch_is_a_cute_layout(rows, cols, spare, e, data):
    """Any valid XorCols, on its own row length or a padded pitch, is claimed by C++ CuTe, and the
    layout its snippet declares (rebuilt with pycute: a layout, a swizzle, a layout back) equals the
    simulator's table on every element."""
    col_bits, row_bits = (cols - 1).bit_length(), max(1, (rows - 1).bit_length())
    b = data.draw(st.integers(1, max(1, min(3, col_bits))))
    m = data.draw(st.integers(0, max(0, col_bits - b)))
    a = data.draw(st.integers(0, row_bits))
    layout = XorCols(b, m, a)
    p = make_problem(rows, cols, ["1x1"], None, e)
    if spare:
        layout = padding.Padded(cols + spare, layout)
    assume(layout.invalid(p.tile) is None)
    snippet = emit("cute", p, layout)
    assert snippet.expressible
    rebuilt = pycute_layout(p, snippet.code)
    assert np.array_equal(table_of(rebuilt, p), truth(p, layout))
