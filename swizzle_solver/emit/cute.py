"""--emit cute: CuTe (C++).

When the layout is a TMA/GMMA swizzle mode of the target (hardware.Hardware.tma_modes), the form
``make_tma_copy`` and GMMA take (the atom over a shared-memory pointer) comes first; on a target
without that mode (AMD: no TMA, no GMMA) the element-level layout is the code, and column panels
are the composition of their swizzle atom.
"""
from __future__ import annotations

import re

from ..layout import Layout
from ..model import Problem, Tile
from ..value import replace
from .common import CPP_TYPES, Snippet, cannot_cute, cpp_layout, header, no_closed_form, plain, rows_apart
from .recognise import panels_of, row_bands, row_pitch, swizzle_chain, swizzled_columns, swizzled_rows, tma_width
from .views import TYPES, args_of, commented_code, cpp_layouts_up, element_note, formula, rule, swapped, swizzles_up

TARGET = "cute"
TITLE = "CuTe (C++)"
ORDER = 0  # place in the --emit list


# the element types of the make_tma_copy/GMMA forms, by size: CuTe's to_CUtensorMapDataType (cute/arch/
# copy_sm90_desc.hpp) knows 1-, 2-, 4- and 8-byte types only, so 16-byte elements get no TMA form
CPP_TYPE = {1: "cute::uint8_t", 2: "cute::half_t", 4: "float", 8: "double"}
GMMA_ATOM = {32: "Layout_K_SW32_Atom", 64: "Layout_K_SW64_Atom", 128: "Layout_K_SW128_Atom"}


def emit(problem: Problem, layout: Layout) -> Snippet:
    tile, modes = problem.tile, problem.hardware.tma_modes
    head = header(problem, layout, "//")
    shaped = _shaped(tile, layout, modes, head)
    if shaped is not None:
        return shaped
    found = swizzled_rows(tile, layout)
    if found is None:
        return _not_a_row_swizzle(tile, layout, head)
    return _row_swizzle(tile, layout, modes, head, *found)


def _shaped(tile: Tile, layout: Layout, modes: tuple[str, ...], head: str) -> Snippet | None:
    """The layouts CuTe writes as a shape rather than a swizzle: padded rows, column panels (each
    a swizzle atom), rows permuted in bands; None for any other."""
    pitch = row_pitch(tile, layout)
    if pitch:
        return Snippet("cute", f"{head}\n{plain(tile, pitch, '//')}\n"
                               f"auto smem_layout = {cpp_layout(tile, pitch)};", True)
    panels = panels_of(tile, layout)
    if panels is not None:
        atom_form = f"{panels.width}B" in modes and tile.elem_bytes in CPP_TYPE
        return _panels(tile, panels, head) if atom_form else Snippet("cute", "\n".join([
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
    return None


def _not_a_row_swizzle(tile: Tile, layout: Layout, head: str) -> Snippet:
    """A layout that is no swizzle of the rows: a chain of swizzles, a swizzle of the columns, or
    (not CuTe's) a functor computing the offset."""
    chain = swizzle_chain(tile, layout)
    if chain:
        return _nested(tile, *chain, head)
    columns = swizzled_columns(tile, layout)
    if columns:
        return _columns(tile, *columns, head)
    if (missing := no_closed_form(tile, layout, "//")) is not None:
        return Snippet("cute", f"{head}\n{cannot_cute(tile, layout, '//')}\n{missing}", False)
    why = cannot_cute(tile, layout, "//")
    return Snippet("cute", f"{head}\n{why}\n"
                           f"struct SmemLayout {{  // use as smem[SmemLayout{{}}(r, c)]\n"
                           f"  CUTE_HOST_DEVICE constexpr int operator()(int r, int c) const {{\n"
                           f"    return {layout.expression(tile)};\n  }}\n}};", False)


def _row_swizzle(tile: Tile, layout: Layout, modes: tuple[str, ...], head: str, pitch: int, sw) -> Snippet:
    """A swizzle ``sw`` of the offset r * pitch + c: the GMMA atom where a TMA/GMMA width has one,
    else the element-level composition."""
    lines = [head]
    if pitch != tile.row_length:
        lines.append(f"// {rows_apart(tile, pitch)}, then {sw.name} on the offset r * {pitch} + c")
    elif layout.cute_swizzle() is None:
        lines.append(f"// equal to {sw.name} on every element of this tile")
    byte = sw.byte_level(tile.elem_bytes)
    width = tma_width(replace(tile, row_length=pitch), sw)
    if width and tile.rows % 8 == 0 and f"{width}B" in modes and tile.elem_bytes in CPP_TYPE:  # make_tma_copy's, GMMA's first
        return Snippet("cute", "\n".join(lines + _gmma_atom(tile, pitch, sw, byte, width)), True)
    lines += [f"using SmemSwizzle = cute::{sw.name};",
              f"auto smem_layout = cute::composition(SmemSwizzle{{}},\n    {cpp_layout(tile, pitch)});",
              f"// byte form: {byte.name} on byte offsets"]
    mode = sw.tma_mode(tile.elem_bytes) if pitch == tile.row_length else None
    if mode in modes and mode not in ("32B", "64B", "128B") and tile.row_length * tile.elem_bytes == 128:
        lines.append(wide_atom_note(byte, mode, tile.elem_bytes))
    return Snippet("cute", "\n".join(lines), True)


def _gmma_atom(tile: Tile, pitch: int, sw, byte, width: int) -> list[str]:
    """The lines of a swizzle that is the ``width``-byte TMA/GMMA one: the GMMA atom tiled to the
    shape, and the same layout as an element-level swizzle (commented)."""
    return [f"// byte form {byte.name} = the {width}B TMA/GMMA swizzle; for make_tma_copy and GMMA, the atom:",
            f"using T = {CPP_TYPE[tile.elem_bytes]};  // your element type: {CPP_TYPES[tile.elem_bytes]}",
            f"auto smem_layout = cute::tile_to_shape(cute::GMMA::{GMMA_ATOM[width]}<T>{{}},",
            f"    cute::Shape<cute::Int<{tile.rows}>, cute::Int<{tile.cols}>>{{}});",
            "// index it through a shared-memory pointer (the atom swizzles byte addresses), e.g.",
            "//   auto sA = cute::make_tensor(cute::make_smem_ptr(smem), smem_layout);  // &sA(r, c) - smem == "
            "phys(r, c)",
            "// the same layout as an element-level swizzle, also for plain smem[smem_layout(r, c)] "
            f"({tma_note(sw)}):",
            *_commented(f"auto smem_layout = cute::composition(cute::{sw.name}{{}},\n    "
                        f"{cpp_layout(tile, pitch)});")]

def wide_atom_note(byte, mode: str, elem_bytes: int) -> str:
    """What CuTe does with a Blackwell TMA mode of 32- or 64-byte atoms (byte form ``byte``):
    make_tma_copy maps a byte-level Swizzle<2,5,2> to CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B
    (get_tma_swizzle_base, to_CUtensorMapSwizzle in CUTLASS 4.2), and UMMA names it in
    UMMA::Layout_MN_SW128_32B_Atom; for Swizzle<1,6,1> its static_assert wants B = 2 (no CuTe atom)."""
    if takes_for_tma(byte):
        where = ("this composition is that byte swizzle" if elem_bytes == 1 else
                 "as a byte-level swizzle of the shared-memory pointer, not this element form")
        return (f"// = the {mode} TMA swizzle (sm_100): make_tma_copy maps the byte-level {byte.name} to "
                f"CU_TENSOR_MAP_SWIZZLE_{mode} ({where}); tcgen05: UMMA::Layout_MN_SW128_32B_Atom<T> (MN-major)")
    return (f"// = the {mode} TMA swizzle (sm_100); CuTe's make_tma_copy does not take {byte.name} (CUTLASS 4.2 "
            f"asserts B = 2 for M = 6): encode the tensor map with CU_TENSOR_MAP_SWIZZLE_{mode} (--emit tma)")


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
        f"// the same layout as an element-level swizzle, also for plain smem[smem_layout(r, c)] ({tma_note(atom)}):",
        *_commented(f"auto smem_layout = cute::composition(cute::{atom.name}{{}},\n    {panel_layout(tile, panels)});")]),
        True)


def takes_for_tma(sw) -> bool:
    """Whether make_tma_copy takes a layout whose swizzle is ``sw``: it reads the swizzle of the
    layout as a byte-level one (get_swizzle_portion, then get_tma_swizzle_bits/_base in
    cute/atom/copy_traits_sm90_tma_swizzle.hpp, CUTLASS 4.2), whose static_asserts take M = 4 with
    B <= 3 and S = 3, M = 5 with B = 2 and S = 2, or M = 6 with B = 2."""
    return (sw.M == 4 and sw.B <= 3 and sw.S == 3) or (sw.M == 5 and sw.B == 2 and sw.S == 2) or (sw.M == 6 and sw.B == 2)


def tma_note(sw) -> str:
    """What make_tma_copy does with the element-level form of a TMA mode, ``sw`` = Swizzle<B, 4 -
    log2(elem_bytes), 3>: it is the byte-level Swizzle<B,4,3> only on 1-byte elements."""
    if takes_for_tma(sw):
        return "make_tma_copy takes it too: on 1-byte elements it is the byte-level Swizzle<B,4,3>"
    return (f"make_tma_copy refuses it, as it refuses this form for 2-, 4- and 8-byte elements: it reads "
            f"{sw.name} as byte-level and takes only Swizzle<B,4,3>, the form on 1-byte elements")


def _commented(code: str) -> list[str]:
    """An alternative declaration, commented out line by line."""
    return ["// " + line for line in code.splitlines()]


def hier_layout(tile: Tile, shape: tuple[int, ...], stride: tuple[int, ...]) -> str:
    """((s0, s1, s2), C) : ((d0, d1, d2), 1) as a static CuTe layout."""
    ints = lambda xs: ", ".join(f"cute::Int<{x}>" for x in xs)  # noqa: E731
    return (f"cute::Layout<cute::Shape<cute::Shape<{ints(shape)}>, cute::Int<{tile.cols}>>,\n"
            f"                 cute::Stride<cute::Stride<{ints(stride)}>, cute::Int<1>>>{{}}")


def _columns(tile: Tile, pitch: int, pow2: int, sw, head: str) -> Snippet:
    """A per-row column XOR on rows ``pitch`` apart: rows laid ``pow2`` apart (a power of two, so
    row bits are offset bits), the swizzle moves row bits onto column bits, and a layout maps the
    offset back to rows ``pitch`` apart: make_composed_layout(back, 0, composition(sw, rows))."""
    ints = lambda *xs: ", ".join(f"cute::Int<{x}>" for x in xs)  # noqa: E731
    padded = f" (padded: {pitch - tile.cols} spare per row)" if pitch > tile.cols else ""
    return Snippet("cute", "\n".join([
        head,
        f"// a column XOR per row on rows {pitch} elements apart{padded}: (r, c) -> r * {pow2} + c (rows on a "
        f"power-of-two pitch), {sw.name} (row bits onto column bits), then i -> i % {pow2} + (i / {pow2}) * {pitch} "
        f"(back to the pitch)",
        f"using SmemSwizzle = cute::{sw.name};",
        "auto smem_layout = cute::make_composed_layout(",
        f"    cute::Layout<cute::Shape<{ints(pow2, tile.rows)}>, cute::Stride<{ints(1, pitch)}>>{{}}, cute::_0{{}},",
        f"    cute::composition(SmemSwizzle{{}}, {cpp_layout(tile, pow2)}));"]), True)


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


def in_user_order(problem: Problem, body: str) -> str:
    """--order col: this target's code of the stored tile, said of the user's (r, c) (emit/views.py)."""
    out, i = [], 0
    for m in re.finditer(r"cute::Layout<", body):
        if m.start() < i:
            continue
        before = body[max(0, m.start() - 40):m.start()]
        args, end = args_of(body, m.end() - 1, "<", ">")
        if re.search(r"make_composed_layout\(\s*$", before) or len(args) != 2:  # an outer map of offsets: kept
            continue
        (shape, stride), rewritten = args, []
        for part in (shape, stride):
            k = part.index("<")
            inner, _ = args_of(part, k, "<", ">")
            rewritten.append(f"{part[:k]}<{swapped(inner) if len(inner) == 2 else ', '.join(inner)}>")
        out.append(body[i:m.start()] + f"cute::Layout<{rewritten[0]},{rewritten[1]}>")
        i = end
    body = "".join(out) + body[i:]
    return re.sub(r"cute::tile_to_shape\(cute::GMMA::Layout_K_(SW\d+)_Atom<T>\{\},(\s*)"
                  r"cute::Shape<cute::Int<(\d+)>, cute::Int<(\d+)>>\{\}\)",
                  r"cute::tile_to_shape(cute::GMMA::Layout_MN_\1_Atom<T>{},\2"
                  r"cute::Shape<cute::Int<\4>, cute::Int<\3>>{}, cute::Step<cute::_2, cute::_1>{})", body)


def in_elements(problem: Problem, layout: Layout, snippet: Snippet) -> str:
    """Sub-byte elements: what this target's code of the packed bytes is in the elements (emit/views.py)."""
    tile = problem.tile
    per = 8 // tile.elem_bits
    if not snippet.expressible:
        return f"{element_note(tile, '//')}\n{formula(tile, '//')}"
    code = "\n".join(line for line in snippet.code.splitlines()[1:]
                     if not line.lstrip().startswith("//") or commented_code(line))
    code = re.sub(r"using T = [^;]*;.*", f"using T4 = cutlass::float_e2m1_t;  // your 4-bit type: {TYPES}", code)
    code = code.replace("<T>", "<T4>")
    code = re.sub(r"\bsmem_layout\b", "smem_layout_4bit", code)
    code = re.sub(r"\bSmemSwizzle(\d*)\b", r"SmemSwizzle\1_4bit", code)
    code = swizzles_up(cpp_layouts_up(code, per), per)
    # tile_to_shape's (rows, cols) of the atom over the 4-bit type: the packed dimension counts elements now
    # (the columns of a K-major atom's tile, the rows of an MN-major one's: --order col)
    code = re.sub(r"(tile_to_shape\(cute::GMMA::Layout_(K|MN)_\w+<T4>\{\},\s*cute::Shape<cute::Int<)(\d+)(>, cute::Int<)"
                  r"(\d+)(>>)", lambda m: f"{m[1]}{int(m[3]) * (per if m[2] == 'MN' else 1)}{m[4]}"
                                      f"{int(m[5]) * (per if m[2] == 'K' else 1)}{m[6]}", code)
    return (f"{element_note(tile, '//')} {rule('Swizzle<B,M+1,S>')}; CuTe indexes a tensor of a 4-bit type by "
            f"element:\n"
            f"{code}")
