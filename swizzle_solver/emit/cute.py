"""--emit cute: CuTe (C++)."""
from __future__ import annotations

from ..layout import Layout
from ..model import Problem, Tile
from .common import CPP_TYPES, Snippet, cannot_cute, cpp_layout, header, plain
from .recognise import panels_of, row_pitch, swizzle_chain, swizzled_rows, tma_width

TARGET = "cute"
TITLE = "CuTe (C++)"
ORDER = 0  # place in the --emit list


CPP_TYPE = {1: "cute::uint8_t", 2: "cute::half_t", 4: "float", 8: "double"}
GMMA_ATOM = {32: "Layout_K_SW32_Atom", 64: "Layout_K_SW64_Atom", 128: "Layout_K_SW128_Atom"}


def emit(problem: Problem, layout: Layout) -> Snippet:
    tile = problem.tile
    head = header(problem, layout, "//")
    pitch = row_pitch(tile, layout)
    if pitch:
        return Snippet("cute", f"{head}\n{plain(tile, pitch, '//')}\n"
                               f"auto smem_layout = {cpp_layout(tile, pitch)};", True)
    panels = panels_of(tile, layout)
    if panels is not None:
        return _panels(tile, panels, head)
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


def panel_layout(tile: Tile, panels) -> str:
    """The panels' element layout before the swizzle: ((R), (w, n)) : ((w), (1, R * w))."""
    w = panels.panel_cols(tile)
    n = tile.cols // w
    return (f"cute::Layout<cute::Shape<cute::Int<{tile.rows}>, cute::Shape<cute::Int<{w}>, cute::Int<{n}>>>,\n"
            f"                 cute::Stride<cute::Int<{w}>, cute::Stride<cute::Int<1>, cute::Int<{tile.rows * w}>>>>{{}}")


def _panels(tile: Tile, panels, head: str) -> Snippet:
    """The GMMA atom tiled over the tile (make_tma_copy-ready, through a shared-memory pointer), then
    the same layout on element offsets (for plain integer indexing)."""
    w, width = panels.panel_cols(tile), panels.width
    atom = panels.atom(tile)
    return Snippet("cute", "\n".join([
        head,
        f"// {tile.cols // w} column panels of {w} elements ({width} B), each the {width}B swizzle atom "
        f"(byte form {atom.byte_level(tile.elem_bytes).name}); for make_tma_copy and GMMA:",
        f"using T = {CPP_TYPE[tile.elem_bytes]};  // {CPP_TYPES[tile.elem_bytes]}",
        f"auto smem_layout = cute::tile_to_shape(cute::GMMA::{GMMA_ATOM[width]}<T>{{}},",
        f"    cute::Shape<cute::Int<{tile.rows}>, cute::Int<{tile.cols}>>{{}});",
        "// index it through a shared-memory pointer (the atom swizzles byte addresses), e.g.",
        "//   auto sA = cute::make_tensor(cute::make_smem_ptr(smem), smem_layout);  // &sA(r, c) - smem == phys(r, c)",
        "// the same layout on element offsets, for smem[smem_layout_elems(r, c)]:",
        f"using SmemSwizzle = cute::{atom.name};",
        f"auto smem_layout_elems = cute::composition(SmemSwizzle{{}},\n    {panel_layout(tile, panels)});"]), True)
