"""The 4-bit element forms of `--emit cute` (emit/views.py and each target's in_elements) compiled by nvcc with CuTe's headers and run on
the host: each `smem_layout_4bit` a sub-byte snippet declares (its code, and the commented element-level
alternative), over `cutlass::float_e2m1_t` (the GMMA and UMMA atoms upcast to 4-bit elements by CuTe
itself), must give every element (r, c) the offset 2 * (the solved byte layout at its byte) + its half.

A plain layout or a composition is called as CuTe evaluates it, smem_layout_4bit(r, c); an atom tiled by
tile_to_shape is a ComposedLayout<Swizzle, smem_ptr_flag_bits<4>, L> whose swizzle CuTe applies to the
byte address of the shared-memory pointer: the element at L(r, c) is at byte L(r, c) / 2, swizzled, in
its half L(r, c) % 2 (the program evaluates exactly that: layout_a()(L(r, c) / 2), layout_b()(r, c)).
"""
from __future__ import annotations

import re
import subprocess

import numpy as np
import pytest
from test_nvcc import nvcc  # noqa: F401 (the fixture: nvcc with CuTe's include directory)

from swizzle_solver.access import make_problem
from swizzle_solver.emit import emit
from swizzle_solver.families.cute import Swizzle
from swizzle_solver.families.panels import ColumnPanels
from swizzle_solver.layout import layout_table

pytestmark = pytest.mark.toolchain


def _fp4(rows, cols, access, layout, order="row", arch="nvidia"):
    return make_problem(rows, cols, access, None, 1, arch=arch, elem_bits=4, order=order), layout


CASES = {
    "sw128 K-major (GMMA atom)": _fp4(64, 256, ["8x32"], Swizzle(3, 4, 3)),
    "sw64": _fp4(16, 128, ["8x32"], Swizzle(2, 4, 3)),
    "small swizzle": _fp4(16, 64, ["8x8"], Swizzle(2, 2, 3)),
    "panels 128B": _fp4(64, 512, ["8x32"], ColumnPanels(128)),
    "col: sw128 M-major (GMMA MN atom)": _fp4(256, 64, ["32x8"], Swizzle(3, 4, 3), order="col"),
    "sm100 UMMA atom": _fp4(64, 256, ["8x32"], Swizzle(3, 4, 3), arch="sm100"),
}


def element_truth(p, layout) -> np.ndarray:
    phys = layout_table(p.tile, layout)
    if p.tile.col_major:
        phys = phys.T
        rows = np.arange(2 * phys.shape[0])
        return 2 * phys[rows // 2, :] + (rows % 2)[:, None]
    cols = np.arange(2 * phys.shape[1])
    return 2 * phys[:, cols // 2] + cols % 2


def declarations(code: str) -> list[str]:
    """The 4-bit section's code (its lines that are not comments, which declare smem_layout_4bit), and
    each `// auto smem_layout_4bit = ...;` alternative in it, uncommented."""
    marker = re.search(r"^// (in 4-bit elements|4-bit elements, packed)", code, re.M)
    section = code[marker.start():].splitlines()[1:]
    found = ["\n".join(line for line in section if not line.lstrip().startswith("//"))]
    block: list[str] = []
    for line in section:
        text = line.strip()
        if text.startswith("//"):
            text = text[2:].strip()
            if block or re.match(r"auto smem_layout_4bit\s*=", text):
                block.append(text)
                if text.endswith(";"):
                    found.append("\n".join(block))
                    block = []
    return found


def program(cases: dict) -> tuple[str, list[tuple[str, int]]]:
    lines = ["#include <cstdio>", "#include <cute/tensor.hpp>", "#include <cute/atom/mma_traits_sm90_gmma.hpp>",
             "#include <cute/atom/mma_traits_sm100.hpp>", "using T4 = cutlass::float_e2m1_t;", "",
             "template <class L> int at(L const& l, int r, int c) { return l(r, c); }",
             "template <class S, int B, class L> int at(cute::ComposedLayout<S, cute::smem_ptr_flag_bits<B>, L> const& l, "
             "int r, int c) {",
             "  static_assert(B == 4, \"a 4-bit atom\");",
             "  int e = l.layout_b()(r, c);  // the element offset; the swizzle moves its byte",
             "  return 2 * l.layout_a()(e / 2) + e % 2;", "}", "", "int main() {"]
    order = []
    for name, (p, layout) in cases.items():
        target = "umma" if "UMMA" in name else "cute"
        rows, cols = p.tile.logical_shape
        rows, cols = (2 * rows, cols) if p.tile.col_major else (rows, 2 * cols)
        for k, decl in enumerate(declarations(emit(target, p, layout).code)):
            lines += ["  {", f"    {decl}",
                      f"    for (int r = 0; r < {rows}; ++r) for (int c = 0; c < {cols}; ++c) "
                      "std::printf(\"%d \", at(smem_layout_4bit, r, c));",
                      "    std::printf(\"\\n\");", "  }"]
            order.append((name, k))
    lines += ["  return 0;", "}"]
    return "\n".join(lines), order


def test_every_4_bit_cute_form_is_the_byte_layout(nvcc, tmp_path):  # noqa: F811
    source, order = program(CASES)
    assert {name for name, _ in order} == set(CASES)  # every case declares at least one form
    (tmp_path / "t.cu").write_text(source)
    build = subprocess.run([*nvcc, "-o", str(tmp_path / "t"), str(tmp_path / "t.cu")], capture_output=True, text=True,
                           timeout=900)
    assert build.returncode == 0, build.stderr[-4000:]
    out = subprocess.run([str(tmp_path / "t")], capture_output=True, text=True, check=True).stdout.splitlines()
    assert len(out) == len(order)
    for (name, k), line in zip(order, out, strict=True):
        p, layout = CASES[name]
        want = element_truth(p, layout)
        got = np.array(line.split(), dtype=np.int64).reshape(want.shape)
        assert np.array_equal(got, want), (name, k)
