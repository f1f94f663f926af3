"""Every layout spelling a user pastes (issue 34 item 3), read by its language's module and checked
against an independent oracle:

- CuTe's printed forms (cute/layout.hpp ``print``: ``(_8,_64):(_64,_1)``; cute/swizzle.hpp
  ``Sw<B,M,S>``; cute/layout_composed.hpp ``A o offset o B``, with a pointer's bit width) and
  pycute's ``str()``: the table equals pycute's own layout, element for element;
- the CuTe DSL's and Mojo's constructors (``cute.make_layout(shape, stride=...)``,
  ``cute.make_swizzle``, ``cute.make_composed_layout``, ``Swizzle(B, M, S)``): equal to pycute's;
- one layout in every spelling: the same ``--check`` counts.
"""
from __future__ import annotations

import functools
import re

import numpy as np
import pycute
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from swizzle_solver.layout import layout_table
from swizzle_solver.model import InputError, Tile
from swizzle_solver.names import parse_layout
from tests import clirun
from tests.cute_grid import grid


def table_of(text: str, tile: Tile) -> np.ndarray:
    return layout_table(tile, parse_layout(text, tile=tile))


def pycute_table(layout, rows: int, cols: int) -> np.ndarray:
    return grid(layout, rows, cols)


def cute_print(t) -> str:
    """CuTe C++'s print of a static shape or stride (cute/int_tuple.hpp, cute/numeric/integral_constant.hpp):
    ``_N`` for each integer, ``(a,b)`` with no blanks."""
    return f"({','.join(cute_print(x) for x in t)})" if isinstance(t, tuple) else f"_{t}"


PYCUTE = {  # (pycute object, rows, cols)
    "row-major": (pycute.Layout((8, 64), (64, 1)), 8, 64),
    "padded": (pycute.Layout((16, 32), (40, 1)), 16, 32),
    "hierarchical": (pycute.Layout(((8, 8), 64), ((64, 512), 1)), 64, 64),
    "column-major": (pycute.Layout((32, 16), (1, 32)), 32, 16),
    "swizzled": (pycute.ComposedLayout(pycute.Swizzle(3, 3, 3), 0, pycute.Layout((8, 64), (64, 1))), 8, 64),
    "negative S": (pycute.ComposedLayout(pycute.Swizzle(2, 1, -3), 0, pycute.Layout((16, 32), (32, 1))), 16, 32),
    "nested": (pycute.ComposedLayout(pycute.Swizzle(1, 1, 4), 0,
                                     pycute.ComposedLayout(pycute.Swizzle(1, 0, 3), 0, pycute.Layout((16, 32), (32, 1)))),
               16, 32),
}


@pytest.mark.parametrize("name", PYCUTE)
def test_pycute_str_reads_back_as_pycute(name):
    """pycute's str() (``SW_3_3_3 o 0 o (8, 64):(64, 1)``) after ``cute:`` is pycute's layout."""
    layout, rows, cols = PYCUTE[name]
    tile = Tile(rows, cols, cols, 2)
    assert np.array_equal(table_of(f"cute: {layout}", tile), pycute_table(layout, rows, cols))


@pytest.mark.parametrize("name", PYCUTE)
def test_cute_print_reads_back_as_pycute(name):
    """CuTe C++'s print of the same layout (``Sw<3,3,3> o _0 o (_8,_64):(_64,_1)``)."""
    layout, rows, cols = PYCUTE[name]

    def printed(lay) -> str:
        if isinstance(lay, pycute.ComposedLayout):
            sw = lay.layoutB if isinstance(lay.layoutB, pycute.Swizzle) else lay.layoutA
            inner = lay.layoutA if sw is lay.layoutB else lay.layoutB
            return f"Sw<{sw.bits},{sw.base},{sw.shift}> o _0 o {printed(inner)}"
        return f"{cute_print(lay.shape)}:{cute_print(lay.stride)}"

    tile = Tile(rows, cols, cols, 2)
    assert np.array_equal(table_of(f"cute: {printed(layout)}", tile), pycute_table(layout, rows, cols))


# CuTe C++'s own print of these layouts, as nvcc 13 printed them with CUTLASS 4.2's headers
# (cute::print of Layout<Shape<_64,_64>,Stride<_64,_1>>{}, ..., of a dynamic make_layout), each with the
# pycute layout of the same arguments
PRINTED = {
    "(_64,_64):(_64,_1)": (pycute.Layout((64, 64), (64, 1)), 64, 64),
    "((_8,_8),_64):((_64,_512),_1)": (pycute.Layout(((8, 8), 64), ((64, 512), 1)), 64, 64),
    "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)":
        (pycute.ComposedLayout(pycute.Swizzle(3, 3, 3), 0, pycute.Layout((8, 64), (64, 1))), 8, 64),
    "(8,64):(64,1)": (pycute.Layout((8, 64), (64, 1)), 8, 64),
}


@pytest.mark.parametrize("text", PRINTED)
def test_cute_cpp_print_as_printed(text):
    layout, rows, cols = PRINTED[text]
    assert np.array_equal(table_of(f"cute: {text}", Tile(rows, cols, cols, 2)), pycute_table(layout, rows, cols))


@st.composite
def pycute_layouts(draw):
    """A 2-mode pycute layout (each mode an extent or a tuple of two), strides 0 to 40, under an optional
    swizzle."""
    mode = st.one_of(st.sampled_from([1, 2, 4, 8]), st.tuples(st.sampled_from([2, 4]), st.sampled_from([1, 2, 4])))
    shape = (draw(mode), draw(mode))
    stride = tuple(draw(st.integers(0, 40)) if isinstance(m, int) else tuple(draw(st.integers(0, 40)) for _ in m)
                   for m in shape)
    layout = pycute.Layout(shape, stride)
    sw = draw(st.one_of(st.none(), st.tuples(st.integers(0, 3), st.integers(0, 4), st.integers(-6, 6))))
    if sw is None:
        return layout
    assume(abs(sw[2]) >= sw[0] and sw[2] != 0)  # (pycute's shiftr recurses forever on 0)
    return pycute.ComposedLayout(pycute.Swizzle(*sw), 0, layout)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pycute_layouts(), st.booleans())
def test_any_pycute_str_and_its_cute_print_read_back(layout, cpp):
    """Any pycute layout's str(), or CuTe C++'s print of it (_N integers, no blanks, Sw<B,M,S>), read
    after cute: is pycute's table."""
    inner = layout.layoutA if isinstance(layout, pycute.ComposedLayout) else layout
    text = str(layout)
    if cpp:
        text = f"{cute_print(inner.shape)}:{cute_print(inner.stride)}"
        if inner is not layout:
            sw = layout.layoutB
            text = f"Sw<{sw.bits},{sw.base},{sw.shift}> o _0 o {text}"
    rows, cols = pycute.size(inner.shape[0]), pycute.size(inner.shape[1])
    got = table_of(f"cute: {text}", Tile(rows, cols, cols, 4))
    assert np.array_equal(got, pycute_table(layout, rows, cols)), text


@pytest.mark.parametrize(("bits", "dtype_bytes", "byte_m"), [(16, 2, 4), (32, 4, 5), (8, 1, 3)])
def test_printed_swizzle_of_a_pointer_is_its_element_form(bits, dtype_bytes, byte_m):
    """``Sw<3,M,3> o smem_ptr[Nb](unset) o L``: the swizzle of the pointer's byte addresses, whose
    element form is ``Sw<3, M - log2(N/8), 3>``: equal to pycute's element swizzle."""
    ref = pycute.ComposedLayout(pycute.Swizzle(3, 3, 3), 0, pycute.Layout((8, 64), (64, 1)))
    text = f"cute: Sw<3,{byte_m},3> o smem_ptr[{bits}b](unset) o (_8,_64):(_64,_1)"
    assert np.array_equal(table_of(text, Tile(8, 64, 64, dtype_bytes)), pycute_table(ref, 8, 64))


def test_printed_pointer_of_another_width_is_refused():
    with pytest.raises(InputError, match="16-bit pointer.*32 bits"):
        table_of("cute: Sw<3,4,3> o smem_ptr[16b](0x7f0000) o (_8,_64):(_64,_1)", Tile(8, 64, 64, 4))
    for bits in (0, 12, 256):  # 0 bits would read as no pointer (an element swizzle): refused like the others
        with pytest.raises(InputError, match=f"a {bits}-bit pointer: elements of 1 to 128 bits"):
            table_of(f"cute: Sw<3,4,3> o smem_ptr[{bits}b](unset) o (_8,_64):(_64,_1)", Tile(8, 64, 64, 2))


DSL = {  # the CuTe DSL's (and Mojo's) constructors, each against pycute's layout of the same arguments
    "cute.make_layout((8, 64), stride=(64, 1))": pycute.Layout((8, 64), (64, 1)),
    "cute.make_layout(((8, 8), 64), stride=((64, 512), 1))": pycute.Layout(((8, 8), 64), ((64, 512), 1)),
    "cute.make_composed_layout(cute.make_swizzle(3, 3, 3), 0, cute.make_layout((64, 64), stride=(64, 1)))":
        pycute.ComposedLayout(pycute.Swizzle(3, 3, 3), 0, pycute.Layout((64, 64), (64, 1))),
    "Layout(IntTuple(64, 64), IntTuple(64, 1))": pycute.Layout((64, 64), (64, 1)),
    "Layout.row_major(64, 64)": pycute.Layout((64, 64), (64, 1)),
    "Layout.col_major(64, 64)": pycute.Layout((64, 64), (1, 64)),
    # a swizzle alone: of the tile's row-major element offsets (as the family Swizzle<B,M,S> is)
    "cute.make_swizzle(3, 3, 3)": pycute.ComposedLayout(pycute.Swizzle(3, 3, 3), 0, pycute.Layout((64, 64), (64, 1))),
    "Swizzle(2, 4, 3)": pycute.ComposedLayout(pycute.Swizzle(2, 4, 3), 0, pycute.Layout((64, 64), (64, 1))),
    # their prints (tests/toolchains/test_dsl_print.py and test_mojo_print.py make them): the DSL's S<...>,
    # Mojo's CuTe print inside one more pair of parentheses
    "S<2,4,3> o 0 o (64,64):(64,1)": pycute.ComposedLayout(pycute.Swizzle(2, 4, 3), 0, pycute.Layout((64, 64), (64, 1))),
    "((64, 64):(1, 64))": pycute.Layout((64, 64), (1, 64)),
    "(((8, 8), 64):((64, 512), 1))": pycute.Layout(((8, 8), 64), ((64, 512), 1)),
}


@pytest.mark.parametrize("text", DSL)
def test_dsl_and_mojo_constructors_are_pycutes(text):
    ref = DSL[text]
    rows, cols = (pycute.size(ref.shape[0]), pycute.size(ref.shape[1])) if isinstance(ref, pycute.Layout) else (64, 64)
    assert np.array_equal(table_of(f"cute: {text}", Tile(rows, cols, cols, 2)), pycute_table(ref, rows, cols))


@pytest.mark.parametrize("text", [
    "(_8,_64):(_64)",  # stride not congruent
    "Sw<3,3,3> o _4 o (_8,_64):(_64,_1)",  # an offset
    "(_8,_64):(_64,_1) o _0 o (_8,_64):(_64,_1)",  # a layout outside
    "Sw<3,4,3> o smem_ptr[16](unset) o (_8,_64):(_64,_1)",  # no b
    "cute.make_layout((8, 64), order=(1, 0))",
    "(_8,_64):",
])
def test_bad_printed_forms_are_one_line_errors(text):
    run = clirun.solve("--rows", "8", "--cols", "64", "--dtype", "f16", "--access", "warp:4x8:1x8", "--check", f"cute: {text}")
    err = run.stderr
    assert run.returncode == 2 and run.stdout == "" and len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err and "cute:" in err and "warp" not in err


# --- template constants (-D NAME=VALUE, define = {...}) and sizeof / casts in expr: ------------------


def test_define_substitutes_template_constants_in_cute_and_expr():
    """``Swizzle<kSwizzle, 3, 3>`` with -D kSwizzle=3 is Swizzle<3,3,3> (pycute), and an expr: constant
    is its value; a member (``Config::kSwizzle``, ``cfg.kSwizzle``) is not a macro's name and stays."""
    from swizzle_solver.notation import defined

    tile = Tile(8, 64, 64, 2)
    text = defined("cute: composition(Swizzle<kSwizzle, kM, 3>{}, Layout<Shape<_8,_64>,Stride<_64,_1>>{})",
                   ["kSwizzle=3", "kM=0x3"])
    ref = pycute.ComposedLayout(pycute.Swizzle(3, 3, 3), 0, pycute.Layout((8, 64), (64, 1)))
    assert np.array_equal(table_of(str(text), tile), pycute_table(ref, 8, 64))
    got = table_of(str(defined("expr: r * kPitch + c", {"kPitch": 72})), Tile(8, 64, 72, 2))
    assert np.array_equal(got, np.arange(8)[:, None] * 72 + np.arange(64)[None, :])
    assert defined("cute: Config::kS + cfg.kS + kS", ["kS=2"]) == "cute: Config::kS + cfg.kS + 2"


def test_define_on_the_command_line_and_in_a_batch_case(tmp_path):
    args = ("--rows", "16", "--cols", "64", "--dtype", "f16", "--access", "ldmatrix.x4")
    run = clirun.solve(*args, "-D", "kSwizzle=3", "--define", "kBlockKSmem=64", "--check",
                       "cute: composition(Swizzle<kSwizzle,3,3>{}, Layout<Shape<_16,Int<kBlockKSmem>>,"
                       "Stride<Int<kBlockKSmem>,_1>>{})", "-q")
    assert run.returncode == 0 and "passed" in run.stdout, run.stdout + run.stderr
    unswizzled = clirun.solve(*args, "-D", "kSwizzle=0", "--check", "cute: composition(Swizzle<kSwizzle,3,3>{}, "
                              "Layout<Shape<_16,_64>,Stride<_64,_1>>{})", "-q")
    assert unswizzled.returncode == 1, unswizzled.stdout  # (the constant is used: B = 0 conflicts)
    cases = tmp_path / "cases.toml"
    cases.write_text('[[case]]\nname = "k"\nrows = 16\ncols = 64\ndtype = "f16"\naccess = ["ldmatrix.x4"]\n'
                     'check = "expr: r * kPitch + (c ^ ((r & 7) << 3))"\ndefine = {kPitch = 64}\n')
    batch = clirun.solve("batch", str(cases))
    assert batch.returncode == 0, batch.stdout + batch.stderr


@pytest.mark.parametrize("define", ["k-1=3", "r=3", "kS=three", "=4"])
def test_bad_define_is_one_line(define):
    run = clirun.solve("--rows", "16", "--cols", "64", "--dtype", "f16", "--access", "ldmatrix.x4", "-D", define,
                       "--check", "expr: r * 64 + c")
    assert run.returncode == 2 and run.stdout == "" and len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert run.stderr.startswith("swizzle-solve: error: -D "), run.stderr


def test_sizeof_and_integer_casts_in_expr():
    """CUDA's vector types have the bytes of their members (half2: 4, float4: 16, int4: 16, the CUDA
    Programming Guide's built-in vector types); an integer cast keeps an index's value."""
    tile = Tile(8, 64, 64, 2)
    r, c = np.arange(8)[:, None], np.arange(64)[None, :]
    got = table_of("expr: r * 64 * (int) sizeof(half2) / 4 + (unsigned int)(c ^ ((r & 7) << 3))", tile)
    assert np.array_equal(got, r * 64 * 4 // 4 + (c ^ ((r & 7) << 3)))
    got = table_of("expr: (r * (int)sizeof(float4) / (int)sizeof(__half)) + c", Tile(8, 8, 8, 2))
    assert np.array_equal(got, np.arange(8)[:, None] * 8 + np.arange(8)[None, :])


@pytest.mark.parametrize(("text", "says"), [("expr: (float) r + c", "not index arithmetic"),
                                            ("expr: sizeof(widget) + c", "a type known here"),
                                            ("expr: r * kPitch + c", "-D kPitch=VALUE")])
def test_bad_sizeof_cast_or_constant_says_why(text, says):
    with pytest.raises(InputError, match=re.escape(says)):
        table_of(text, Tile(8, 64, 64, 2))


# --- Triton's spellings of versions 3.0 to today ----------------------------------------------------


@functools.cache
def gluon_prints() -> list[str]:
    """Gluon's own print (repr of its dataclasses) of the 64 x 64 f16 layouts, from the installed
    Triton when there is one, else as Triton 3.9 prints them. Asked when a test reads them (GLUON):
    importing Triton at collection cost every worker half a second, for two cases."""
    try:
        from triton.experimental.gluon import language as gl
    except ImportError:  # (Triton is a test toolchain, not a dependency)
        return ["SwizzledSharedLayout(vec=8, per_phase=1, max_phase=8, order=[1, 0], cga_layout=[])",
                "NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=16, rank=2, transposed=False, "
                "fp4_padded=False, cga_layout=[])"]
    return [repr(gl.SwizzledSharedLayout(8, 1, 8, [1, 0])),
            repr(gl.NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=16, rank=2))]


GLUON = ["triton: <Gluon's print of SwizzledSharedLayout>", "triton: <Gluon's print of NVMMASharedLayout>"]


def spelled(text: str) -> str:
    """``text``, or for a GLUON case the installed Gluon's print it stands for."""
    return f"triton: {gluon_prints()[GLUON.index(text)]}" if text in GLUON else text


SAME = [  # one layout (64 x 64 f16, rows of 128 bytes, 16-byte chunks XORed with the row mod 8) in each spelling
    "Swizzle<3,3,3>",  # the tool's own name
    "cute: composition(Swizzle<3,3,3>{}, Layout<Shape<_64,_64>,Stride<_64,_1>>{})",  # CuTe C++ source
    "cute: Sw<3,3,3> o _0 o (_64,_64):(_64,_1)",  # CuTe C++ print
    "cute: Sw<3,4,3> o smem_ptr[16b](unset) o (_64,_64):(_64,_1)",  # CuTe C++ print of the byte swizzle
    f"cute: {pycute.ComposedLayout(pycute.Swizzle(3, 3, 3), 0, pycute.Layout((64, 64), (64, 1)))}",  # pycute str
    "cute: cute.make_composed_layout(cute.make_swizzle(3, 3, 3), 0, cute.make_layout((64, 64), stride=(64, 1)))",
    "cute: Swizzle(3, 3, 3)",  # Mojo, the DSL
    "cute: S<3,3,3> o 0 o (64,64):(64,1)",  # the CuTe DSL's print (tests/toolchains/test_dsl_print.py makes it)
    "triton: #triton_gpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], hasLeadingOffset = false}>",
    "triton: #triton_gpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], CTAsPerCGA = [1, 1], "
    "CTASplitNum = [1, 1], CTAOrder = [0, 1], hasLeadingOffset = true}>",  # Triton 3.0's wgmma operand (128B)
    "triton: #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>",  # Triton 3.3 to 3.9
    "triton: #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>",
    "triton: SwizzledSharedLayout(8, 1, 8, [1, 0])",  # Gluon's constructor
    "triton: SwizzledSharedLayout(vec=8, per_phase=1, max_phase=8, order=[1, 0], ctas_per_cga=[1, 1], "
    "cta_split_num=[1, 1], cta_order=[1, 0])",  # Gluon's print before cga_layout
    "triton: SwizzledSharedLayout(vec=8, per_phase=1, max_phase=8, order=[1, 0], ctas_per_cga=None, "
    "cta_split_num=None, cta_order=None)",  # ... of one built without them (None: _realize_cta_layout's ones)
    *GLUON,  # Gluon's print today
    "expr: r * 64 + (c ^ ((r & 7) << 3))",
    "bytes:Swizzle<3,4,3>",
]
ACCESSES = ("--access", "ldmatrix.x4", "--access", "warp:4x8:1x8", "--access", "warp:32x1:1x8")


@functools.cache  # the two references are the same two checks for every spelling: run once a process
def check_counts(text: str) -> tuple:
    import json

    run = clirun.solve("--rows", "64", "--cols", "64", "--dtype", "f16", *ACCESSES, "--check", text, "--json")
    assert run.returncode in (0, 1), run.stderr
    doc = json.loads(run.stdout)
    return doc["check"]["passed"], [(a["spec"], a["worst_wavefronts"], a["total_wavefronts"])
                                     for a in doc["answer"]["per_access"]]


@pytest.mark.parametrize("text", SAME)
def test_every_spelling_of_one_layout_checks_to_the_same_counts(text):
    """The acceptance of issue 34: the spellings CuTe, pycute, the CuTe DSL, Mojo, Triton 3.0 to 3.9 and
    Gluon print for one layout all --check to the counts of the tool's own name for it, which differ
    from the unswizzled tile's (so a misread spelling would show)."""
    want = check_counts("Swizzle<3,3,3>")
    assert want != check_counts("cute: (_64,_64):(_64,_1)")
    assert check_counts(spelled(text)) == want


def test_leading_offset_is_nvmma_and_checks_its_parameters():
    """hasLeadingOffset = true is nvmma_shared of swizzlingByteWidth 16 * maxPhase (64 B here: 8 x 32
    tiles down the rows, then across), and refuses a vec that is not 16 bytes of the tile's element."""
    tile = Tile(16, 64, 64, 2)
    old = "triton: #triton_gpu.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0], hasLeadingOffset = true}>"
    new = "triton: #ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16}>"
    assert np.array_equal(table_of(old, tile), table_of(new, tile))
    assert not np.array_equal(table_of(old, tile), table_of(old.replace("true", "false"), tile))
    with pytest.raises(InputError, match="no wgmma swizzle of 32-bit"):
        table_of(old, Tile(16, 64, 64, 4))


@pytest.mark.parametrize(("text", "prefix"), [("(_64,_64):(_64,_1)", "cute"), ("Swizzle(3, 3, 3)", "cute"),
                                              ("SW_3_3_3 o 0 o (64, 64):(64, 1)", "cute"),
                                              ("cute.make_swizzle(3, 3, 3)", "cute"),
                                              ("#triton_gpu.shared<{vec = 8}>", "triton"),
                                              ("SwizzledSharedLayout(vec=8, per_phase=1)", "triton")])
def test_a_spelling_without_its_prefix_is_refused_naming_it(text, prefix):
    """Bare text is a family's name: a CuTe or Triton spelling is not guessed at, but the one line
    says which prefix reads it (and the text with it works: the tests above)."""
    run = clirun.solve("--rows", "64", "--cols", "64", "--dtype", "f16", "--access", "ldmatrix.x4", "--check", text)
    assert run.returncode == 2 and run.stdout == "" and len(run.stderr.strip().splitlines()) == 1
    assert f"write '{prefix}: {text}'" in run.stderr, run.stderr


@pytest.mark.parametrize("text", ["(3,3,3)", "cute: (3, 3, 3)", "cute: (2,4,-3)"])
def test_mojos_print_of_a_swizzle_is_told_the_swizzles_spelling(text):
    """Mojo prints ``Swizzle(3, 3, 3)`` as ``(3,3,3)`` (mojo 1.2: ``print(Swizzle(3, 3, 3))``). Three
    numbers in parentheses are a shape too, so they are not read as a swizzle; the one line names the
    spelling that is, and that spelling checks."""
    run = clirun.solve("--rows", "64", "--cols", "64", "--dtype", "f16", "--access", "8x8", "--check", text)
    assert run.returncode == 2 and run.stdout == "" and len(run.stderr.strip().splitlines()) == 1
    b, m, s = text.removeprefix("cute:").strip(" ()").replace(" ", "").split(",")
    assert f"Mojo's print of Swizzle({b},{m},{s}), write Swizzle<{b},{m},{s}>" in run.stderr, run.stderr
    spelled = clirun.solve("--rows", "64", "--cols", "64", "--dtype", "f16", "--access", "8x8", "--check",
                           f"Swizzle<{b},{m},{s}>", "-q")
    assert spelled.returncode in (0, 1) and spelled.stderr == ""
