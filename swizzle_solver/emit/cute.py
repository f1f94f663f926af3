"""--emit cute: CuTe (C++).

When the layout is a TMA/GMMA swizzle mode, the form ``make_tma_copy`` and GMMA take (the atom
over a shared-memory pointer) comes first; on an AMD ``--arch`` (no TMA, no GMMA) the element-level
layout is the code, and column panels are the composition of their swizzle atom.
"""
from __future__ import annotations

from ..layout import Layout
from ..model import Problem, Tile
from ..value import replace
from .common import CPP_TYPES, Snippet, cannot_cute, cpp_layout, header, plain, rows_apart
from .recognise import panels_of, row_bands, row_pitch, swizzle_chain, swizzled_rows, tma_width

TARGET = "cute"
TITLE = "CuTe (C++)"
ORDER = 0  # place in the --emit list


CPP_TYPE = {1: "cute::uint8_t", 2: "cute::half_t", 4: "float", 8: "double"}
GMMA_ATOM = {32: "Layout_K_SW32_Atom", 64: "Layout_K_SW64_Atom", 128: "Layout_K_SW128_Atom"}


def emit(problem: Problem, layout: Layout) -> Snippet:
    tile, amd = problem.tile, problem.bank_model.amd
    head = header(problem, layout, "//")
    pitch = row_pitch(tile, layout)
    if pitch:
        return Snippet("cute", f"{head}\n{plain(tile, pitch, '//')}\n"
                               f"auto smem_layout = {cpp_layout(tile, pitch)};", True)
    panels = panels_of(tile, layout)
    if panels is not None:
        return _panels(tile, panels, head) if not amd else Snippet("cute", "\n".join([
            head, f"// {tile.cols // panels.panel_cols(tile)} column panels of {panels.panel_cols(tile)} elements, "
                  f"each the swizzle {panels.atom(tile).name}",
            f"auto smem_layout = cute::composition(cute::{panels.atom(tile).name}{{}},\n    {panel_layout(tile, panels)});"]),
            True)
    bands = row_bands(tile, layout)
    if bands is not None:
        return Snippet("cute", "\n".join([
            head, "// a permutation of rows in bands: a hierarchical layout, row r = (r0, r1, band) with "
                  f"r0 < {bands[0][0]}, r1 < {bands[0][1]}",
            f"auto smem_layout = {hier_layout(tile, *bands)};"]), True)
    found = swizzled_rows(tile, layout)
    chain = swizzle_chain(tile, layout) if found is None else None
    if chain:
        return _nested(tile, *chain, head)
    if found is None:
        why = cannot_cute(tile, layout, "//")
        return Snippet("cute", f"{head}\n{why}\n"
                               f"struct SmemLayout {{  // use as smem[SmemLayout{{}}(r, c)]\n"
                               f"  CUTE_HOST_DEVICE constexpr int operator()(int r, int c) const {{\n"
                               f"    return {layout.expression(tile)};\n  }}\n}};", False)
    pitch, sw = found
    lines = [head]
    if pitch != tile.row_length:
        lines.append(f"// {rows_apart(tile, pitch)}, then {sw.name} on the offset r * {pitch} + c")
    elif layout.cute_swizzle() is None:
        lines.append(f"// equal to {sw.name} on every element of this tile")
    byte = sw.byte_level(tile.elem_bytes)
    width = tma_width(replace(tile, row_length=pitch), sw)
    if width and tile.rows % 8 == 0 and not amd:  # the form make_tma_copy and GMMA take first
        lines += [f"// byte form {byte.name} = the {width}B TMA/GMMA swizzle; for make_tma_copy and GMMA, the atom:",
                  f"using T = {CPP_TYPE[tile.elem_bytes]};  // your element type: {CPP_TYPES[tile.elem_bytes]}",
                  f"auto smem_layout = cute::tile_to_shape(cute::GMMA::{GMMA_ATOM[width]}<T>{{}},",
                  f"    cute::Shape<cute::Int<{tile.rows}>, cute::Int<{tile.cols}>>{{}});",
                  "// index it through a shared-memory pointer (the atom swizzles byte addresses), e.g.",
                  "//   auto sA = cute::make_tensor(cute::make_smem_ptr(smem), smem_layout);  // &sA(r, c) - smem == "
                  "phys(r, c)",
                  "// the same layout as an element-level swizzle, also for plain smem[smem_layout(r, c)] "
                  "(make_tma_copy refuses it" + (")" if tile.elem_bytes == 1 else " for 16- and 32-bit types)") + ":",
                  *_commented(f"auto smem_layout = cute::composition(cute::{sw.name}{{}},\n    "
                              f"{cpp_layout(tile, pitch)});")]
        return Snippet("cute", "\n".join(lines), True)
    lines += [f"using SmemSwizzle = cute::{sw.name};",
              f"auto smem_layout = cute::composition(SmemSwizzle{{}},\n    {cpp_layout(tile, pitch)});",
              f"// byte form: {byte.name} on byte offsets"]
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
        f"using T = {CPP_TYPE[tile.elem_bytes]};  // your element type: {CPP_TYPES[tile.elem_bytes]}",
        f"auto smem_layout = cute::tile_to_shape(cute::GMMA::{GMMA_ATOM[width]}<T>{{}},",
        f"    cute::Shape<cute::Int<{tile.rows}>, cute::Int<{tile.cols}>>{{}});",
        "// index it through a shared-memory pointer (the atom swizzles byte addresses), e.g.",
        "//   auto sA = cute::make_tensor(cute::make_smem_ptr(smem), smem_layout);  // &sA(r, c) - smem == phys(r, c)",
        "// the same layout as an element-level swizzle, also for plain smem[smem_layout(r, c)]:",
        *_commented(f"auto smem_layout = cute::composition(cute::{atom.name}{{}},\n    {panel_layout(tile, panels)});")]),
        True)


def _commented(code: str) -> list[str]:
    """An alternative declaration, commented out line by line."""
    return ["// " + line for line in code.splitlines()]


def hier_layout(tile: Tile, shape: tuple[int, ...], stride: tuple[int, ...]) -> str:
    """((s0, s1, s2), C) : ((d0, d1, d2), 1) as a static CuTe layout."""
    ints = lambda xs: ", ".join(f"cute::Int<{x}>" for x in xs)  # noqa: E731
    return (f"cute::Layout<cute::Shape<cute::Shape<{ints(shape)}>, cute::Int<{tile.cols}>>,\n"
            f"                 cute::Stride<cute::Stride<{ints(stride)}>, cute::Int<1>>>{{}}")


def _nested(tile: Tile, pitch: int, chain, head: str) -> Snippet:
    """Swizzles applied in turn to r * pitch + c: each composed around the previous (C++ CuTe
    evaluates a nested composed layout; the CuTe DSL does not take one)."""
    where = "" if pitch == tile.row_length else f", {rows_apart(tile, pitch)}"
    lines = [head, f"// {' then '.join(x.name for x in chain)}, applied in turn to r * {pitch} + c{where}: "
                   f"nested composed layouts (C++ CuTe; the CuTe DSL takes one swizzle only)"]
    lines += [f"using SmemSwizzle{i} = cute::{sw.name};" for i, sw in enumerate(chain, 1)]
    expr = f"cute::composition(SmemSwizzle1{{}},\n    {cpp_layout(tile, pitch)})"
    for i in range(2, len(chain) + 1):
        expr = f"cute::make_composed_layout(SmemSwizzle{i}{{}}, cute::_0{{}},\n    {expr})"
    lines.append(f"auto smem_layout = {expr};")
    return Snippet("cute", "\n".join(lines), True)
