"""TileLang's layout helpers (``tilelang:``) and ThunderKittens' shared tiles (``tk:``), issue 34 item 3:
each table against the source's formula rewritten here as the source writes it (not the notation's
XOR shortcuts), and against the TMA swizzle modes they are built to match.

- TileLang (src/layout/gemm_layouts.cc at tile-ai/tilelang a35008a4): ``xor2x2(i, j) = (i + j) % 2``,
  ``xor4x4``/``xor8x8`` built from it, ``MakeFullBankSwizzleLayout2D`` (and half, quarter) giving the
  output index (tc, ts, index), linearised row-major over the output shape (layout.cc's
  ``GetLinearizedForwardIndex``), the shape's extents the index's bounds (max + 1);
- ThunderKittens (include/types/shared/st.cuh at HazyResearch/ThunderKittens 0b55588d): ``st::idx``'s
  byte address and its XOR, the default ``swizzle_bytes`` from the type and the columns.
"""
from __future__ import annotations

import numpy as np
import pytest

from swizzle_solver.layout import layout_table
from swizzle_solver.model import Tile
from swizzle_solver.names import parse_layout
from swizzle_solver.notation import tma_recipe
from tests import clirun


def table_of(text: str, tile: Tile) -> np.ndarray:
    return layout_table(tile, parse_layout(text, tile=tile))


# --- TileLang, as gemm_layouts.cc writes it ----------------------------------------------------------

def xor2x2(i, j):
    return (i + j) % 2


def xor4x4(i, j):
    return 2 * xor2x2(i // 2, j // 2) + xor2x2(i % 2, j % 2)


def xor8x8(i, j):
    return 2 * xor4x4(i // 2, j // 2) + xor2x2(i % 2, j % 2)


def tilelang_index(kind: str, i: int, j: int, element_bits: int) -> tuple[int, int, int]:
    vector_size = 128 // element_bits
    n, swizzle = {"full": (8, lambda c, s: xor8x8(c, s)), "half": (4, lambda c, s: xor4x4(c, s // 2)),
                  "quarter": (2, lambda c, s: xor2x2(c, s // 4))}[kind]
    ts, s = i // 8, i % 8
    tc, c = (j // vector_size) // n, (j // vector_size) % n
    vec = j % vector_size
    return tc, ts, vec + (swizzle(c, s) + s * n) * vector_size


def tilelang_table(kind: str, rows: int, cols: int, element_bits: int) -> np.ndarray:
    index = np.array([[tilelang_index(kind, i, j, element_bits) for j in range(cols)] for i in range(rows)])
    shape = index.reshape(-1, 3).max(axis=0) + 1  # OutputShape: each output's bound
    return (index[..., 0] * shape[1] + index[..., 1]) * shape[2] + index[..., 2]


TILELANG_CASES = [(kind, rows, cols, bits) for kind, n in (("full", 8), ("half", 4), ("quarter", 2))
                  for rows, cols, bits in ((64, 64, 16), (8, 128, 16), (32, 64, 32), (4, 128, 8), (16, 256, 16),
                                           (24, 32, 32), (4, 64, 16)) if cols % (128 // bits * n) == 0]


@pytest.mark.parametrize("kind, rows, cols, bits", TILELANG_CASES)
def test_tilelang_is_its_source(kind, rows, cols, bits):
    """Every shape the source's ICHECKs admit among these (rows 4 or a multiple of 8, whole atoms a row)."""
    tile = Tile(rows, cols, cols, bits // 8)
    got = table_of(f"tilelang: tilelang.layout.make_{kind}_bank_swizzled_layout(A_shared)", tile)
    assert np.array_equal(got, tilelang_table(kind, rows, cols, bits))


@pytest.mark.parametrize("kind, mode", [("full", "128B"), ("half", "64B"), ("quarter", "32B")])
def test_tilelang_is_the_tma_mode_it_matches(kind, mode):
    """TileLang's copy lowering takes its bank layouts for TMA's swizzle modes (src/cuda/op/copy.cc
    compares a buffer's layout with each): the same table as the tool's TMA recipe, panels included."""
    for rows, cols, e in ((64, 64, 2), (64, 128, 2), (32, 64, 4), (16, 256, 1)):
        tile = Tile(rows, cols, cols, e)
        assert np.array_equal(table_of(f"tilelang: make_{kind}_bank_swizzled_layout(B)", tile),
                              layout_table(tile, tma_recipe(mode, tile))), (rows, cols, e)


def test_tilelang_linear_and_the_check_line():
    tile = Tile(16, 32, 32, 2)
    assert np.array_equal(table_of("tilelang: make_linear_layout(A_shared)", tile), np.arange(16 * 32).reshape(16, 32))
    text = "tilelang: T.make_full_bank_swizzled_layout(A_shared)"
    r = clirun.solve("--rows", "64", "--cols", "64", "--dtype", "f16", "--access", "ldmatrix.x4", "--check", text, "-q")
    assert (r.returncode, r.stdout) == (0, f"{text} passed\n")
    r = clirun.solve("--rows", "64", "--cols", "64", "--dtype", "f16", "--access", "ldmatrix.x4", "--check",
                     "tilelang: make_linear_layout(A_shared)", "-q")
    assert r.returncode == 1 and "failed; minimal: Swizzle<3,3,3>" in r.stdout


# --- ThunderKittens, as st.cuh writes it ------------------------------------------------------------

def tk_swizzle_bytes(e: int, cols: int) -> int:
    tile_col_dim = 32 if e == 1 else 16
    if e in (1, 2):
        return 128 if (cols // tile_col_dim) % 4 == 0 else 64 if (cols // tile_col_dim) % 2 == 0 else 32
    return 128 if (cols // tile_col_dim) % 2 == 0 else 64


def tk_idx(r: int, c: int, rows: int, e: int, swizzle_bytes: int) -> int:
    """st::idx(uint32_t ptr = 0, {r, c}): the byte address."""
    swizzle_repeat = swizzle_bytes * 8
    subtile_cols = swizzle_bytes // e
    outer_idx = c // subtile_cols
    addr = e * (outer_idx * rows * subtile_cols + r * subtile_cols + c % subtile_cols)
    swizzle = ((addr % swizzle_repeat) >> 7) << 4
    return addr ^ swizzle


TK_CASES = [(text, e, rows, cols) for text, e in (("st_bf<{r}, {c}>", 2), ("st_hf<{r}, {c}>", 2), ("st_fl<{r}, {c}>", 4),
                                                 ("st_fp8e4m3<{r}, {c}>", 1), ("kittens::st<bf16, {r}, {c}>{{}}", 2))
            for rows, cols in ((16, 32), (64, 64), (32, 96), (16, 128), (64, 256), (48, 160), (16, 16), (32, 48))
            if cols % (32 if e == 1 else 16) == 0]


@pytest.mark.parametrize("text, e, rows, cols", TK_CASES)
def test_thunderkittens_is_its_source(text, e, rows, cols):
    """Every shape the source's static_asserts admit among these (each default swizzle_bytes: 32, 64, 128)."""
    tile = Tile(rows, cols, cols, e)
    sb = tk_swizzle_bytes(e, cols)
    want = np.array([[tk_idx(r, c, rows, e, sb) // e for c in range(cols)] for r in range(rows)])
    assert np.array_equal(table_of("tk: " + text.format(r=rows, c=cols), tile), want)


@pytest.mark.parametrize("sb", [32, 64, 128])
def test_thunderkittens_explicit_swizzle_bytes_and_unswizzled(sb):
    tile = Tile(32, 128, 128, 2)
    want = np.array([[tk_idx(r, c, 32, 2, sb) // 2 for c in range(128)] for r in range(32)])
    assert np.array_equal(table_of(f"tk: st_bf<32, 128, true, {sb}>", tile), want)
    assert np.array_equal(table_of("tk: st_bf<32, 128, false>", tile), np.arange(32 * 128).reshape(32, 128))
    assert np.array_equal(table_of("tk: st_bf<32, 128>", tile), layout_table(tile, tma_recipe("128B", tile)))


@pytest.mark.parametrize("argv, words", [
    (["--rows", "64", "--cols", "64", "--dtype", "f16", "--check", "tk: st_fl<64, 64>"], ["4-byte", "--dtype float"]),
    (["--rows", "64", "--cols", "64", "--dtype", "f16", "--check", "tk: st_bf<64, 128>"], ["--rows 64 --cols 128"]),
    (["--rows", "8", "--cols", "64", "--dtype", "f16", "--check", "tk: st_bf<8, 64>"], ["divisible", "16"]),
    (["--rows", "16", "--cols", "64", "--dtype", "f16", "--check", "tk: st_bf<16, 64, true, 48>"], ["32, 64 or 128"]),
    (["--rows", "16", "--cols", "64", "--dtype", "f16", "--check", "tk: rt_bf<16, 64>"], ["st_bf<ROWS, COLS>"]),
    (["--rows", "12", "--cols", "64", "--dtype", "f16", "--check", "tilelang: make_full_bank_swizzled_layout(A)"],
     ["4 or a multiple of 8"]),
    (["--rows", "16", "--cols", "32", "--dtype", "f16", "--check", "tilelang: make_full_bank_swizzled_layout(A)"],
     ["multiple of 64"]),
    (["--rows", "16", "--cols", "64", "--dtype", "f16", "--check", "tilelang: make_swizzled_layout(A)"],
     ["make_full_bank_swizzled_layout(BUF)"]),
])
def test_bad_spellings_are_one_line(argv, words):
    clirun.assert_input_error(clirun.solve(*argv, "--access", "row", "-q"), *words)


@pytest.mark.parametrize("text, prefix", [
    ("make_full_bank_swizzled_layout(A_shared)", "tilelang"), ("T.make_linear_layout(A_shared)", "tilelang"),
    ("st_bf<64, 64>", "tk"), ("kittens::st<bf16, 64, 64>", "tk"),
    ("(_64,_64):(_64,_1)", "cute"), ("#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>",
                                     "triton"),
])
def test_a_layout_without_its_prefix_is_told_the_prefix(text, prefix):
    """The texts these pages show, pasted without their `tilelang:` / `tk:` (or `cute:`, `triton:`)
    prefix: the one line names the prefix that reads them, as checking-your-kernel.md says."""
    clirun.assert_input_error(clirun.solve("--rows", "64", "--cols", "64", "--dtype", "bf16", "--access", "row",
                                           "--check", text, "-q"), f"write '{prefix}: {text}'")


@pytest.mark.parametrize("text, want", [
    ("mojo: Layout.row_major(64, 64)", "write 'cute: Layout.row_major(64, 64)'"),
    ("cute-dsl: cute.make_swizzle(3, 3, 3)", "write 'cute: cute.make_swizzle(3, 3, 3)'"),
    ("gluon: SwizzledSharedLayout(8, 1, 8, [1, 0])", "write 'triton: SwizzledSharedLayout(8, 1, 8, [1, 0])'"),
    ("#shared = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>", "write 'triton: #shared"),
])
def test_a_language_named_as_the_prefix_is_told_the_prefix(text, want):
    """`mojo:`, `gluon:`, `cute-dsl:`: the prefix a user guesses from the language is answered with the
    one that reads it (and a TTGIR alias line without `triton:` too)."""
    clirun.assert_input_error(clirun.solve("--rows", "64", "--cols", "64", "--dtype", "f16", "--access", "row",
                                           "--check", text, "-q"), want)
