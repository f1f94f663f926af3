"""--emit cute: CuTe (C++)."""
from __future__ import annotations

from ..layout import Layout
from ..model import Problem
from .common import CPP_TYPES, Snippet, cannot_cute, cpp_layout, header, plain
from .recognise import row_pitch, swizzle_chain, swizzled_rows, tma_width

TARGET = "cute"
TITLE = "CuTe (C++)"
ORDER = 0  # place in the --emit list


GMMA_ATOM = {32: "Layout_K_SW32_Atom", 64: "Layout_K_SW64_Atom", 128: "Layout_K_SW128_Atom"}


def emit(problem: Problem, layout: Layout) -> Snippet:
    tile = problem.tile
    head = header(problem, layout, "//")
    pitch = row_pitch(tile, layout)
    if pitch:
        return Snippet("cute", f"{head}\n{plain(tile, pitch, '//')}\n"
                               f"auto smem_layout = {cpp_layout(tile, pitch)};", True)
    found = swizzled_rows(tile, layout)
    if found is None:
        chain = swizzle_chain(tile, layout)
        why = cannot_cute(tile, layout, "//")
        if chain:
            why = (f"// cannot express as one CuTe layout: {' then '.join(x.name for x in chain)}, applied in turn to "
                   f"r * {tile.row_length} + c,\n// compose to no single Swizzle<B,M,S>, and composition(Swizzle, "
                   f"Layout) takes one; the function below is exact")
        return Snippet("cute", f"{head}\n{why}\n"
                               f"struct SmemLayout {{  // use as smem[SmemLayout{{}}(r, c)]\n"
                               f"  CUTE_HOST_DEVICE constexpr int operator()(int r, int c) const {{\n"
                               f"    return {layout.expression(tile)};\n  }}\n}};", False)
    pitch, sw = found
    lines = [head]
    if pitch != tile.row_length:
        lines.append(f"// rows padded to {pitch} elements ({pitch - tile.cols} spare per row), then {sw.name} "
                     f"on the padded offset r * {pitch} + c")
    elif layout.cute_swizzle() is None:
        lines.append(f"// equal to {sw.name} on every element of this tile")
    lines += [f"using SmemSwizzle = cute::{sw.name};",
              f"auto smem_layout = cute::composition(SmemSwizzle{{}},\n    {cpp_layout(tile, pitch)});"]
    byte = sw.byte_level(tile.elem_bytes)
    width = tma_width(tile, sw) if pitch == tile.row_length else None
    if width and tile.rows % 8 == 0:
        lines += [f"// byte form {byte.name} = the {width}B TMA/GMMA swizzle; the same layout as the GMMA atom",
                  f"// (T: {CPP_TYPES[tile.elem_bytes]}):",
                  f"// auto smem_layout = cute::tile_to_shape(cute::GMMA::{GMMA_ATOM[width]}<T>{{}},",
                  f"//     cute::Shape<cute::Int<{tile.rows}>, cute::Int<{tile.cols}>>{{}});"]
    else:
        lines.append(f"// byte form: {byte.name} on byte offsets")
    return Snippet("cute", "\n".join(lines), True)
