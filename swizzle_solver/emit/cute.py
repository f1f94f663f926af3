"""--emit cute: CuTe (C++).

When the layout is a TMA/GMMA swizzle mode of the target (hardware.Hardware.tma_modes), the form
``make_tma_copy`` and GMMA take (the atom over a shared-memory pointer) comes first; on a target
without that mode (AMD: no TMA, no GMMA) the element-level layout is the code, and column panels
are the composition of their swizzle atom.
"""
from __future__ import annotations

from collections.abc import Sequence

from ..forms.cute import Atom, Composed, Declared, Ref, Swizzle, Tiled, in_view, swizzle_upcast, upcast_records
from ..forms.cute import Layout as CuteLayout
from ..forms.cute import render as render_in
from ..layout import Layout
from ..model import Problem, Tile
from ..orient import words
from ..value import Value, replace
from .common import CPP_TYPES, Snippet, cannot_cute, header, no_closed_form, plain, rows_apart
from .recognise import panels_of, row_bands, row_pitch, swizzle_chain, swizzled_columns, swizzled_rows, tma_width
from .views import TYPES, element_note, formula, rule

TARGET = "cute"
TITLE = "CuTe (C++)"
ORDER = 0  # place in the --emit list


# the element types of the make_tma_copy/GMMA forms, by size: CuTe's to_CUtensorMapDataType (cute/arch/
# copy_sm90_desc.hpp) knows 1-, 2-, 4- and 8-byte types only, so 16-byte elements get no TMA form
CPP_TYPE = {1: "cute::uint8_t", 2: "cute::half_t", 4: "float", 8: "double"}
GMMA_ATOM = {32: "Layout_K_SW32_Atom", 64: "Layout_K_SW64_Atom", 128: "Layout_K_SW128_Atom"}


# --- the code a snippet declares: lines of text (comments) and declarations of CuTe records ------------


class Using(Value):
    """``using NAME = cute::Swizzle<B,M,S>;``"""

    name: str
    swizzle: Swizzle

    def transpose(self) -> Using:
        return self

    def upcast(self, per: int) -> Using:
        return Using(Ref(self.name).upcast(per).name, swizzle_upcast(self.swizzle, per))

    def text(self, syntax: str) -> str:
        return f"using {self.name} = cute::{self.swizzle.name};"


class ElementType(Value):
    """``using T = ...;``: the element type a GMMA atom is instantiated with (``T4``: sub-byte)."""

    elem_bytes: int
    bits: int = 0  # 4: the 4-bit types

    def transpose(self) -> ElementType:
        return self

    def upcast(self, per: int) -> ElementType:
        return ElementType(self.elem_bytes, 8 // per)

    def text(self, syntax: str) -> str:
        if self.bits:
            return f"using T{self.bits} = cutlass::float_e2m1_t;  // your {self.bits}-bit type: {TYPES}"
        return f"using T = {CPP_TYPE[self.elem_bytes]};  // your element type: {CPP_TYPES[self.elem_bytes]}"


Line = str | Using | ElementType | Declared  # (a str: a comment, or code that is no CuTe record)
Form = tuple[list[Line], bool]  # the snippet's lines (the header first) and whether it expresses the layout


def render(lines: Sequence[Line]) -> str:
    return render_in(list(lines), "cpp")


def _layout(tile: Tile, pitch: int | None = None) -> CuteLayout:
    """The tile's rows ``pitch`` (default: the row length) apart: (R, C) : (P, 1)."""
    return CuteLayout((tile.rows, tile.cols), (pitch or tile.row_length, 1))


def emit(problem: Problem, layout: Layout) -> Snippet:
    lines, expressible = form(problem, layout)
    return Snippet("cute", render(in_view(problem.tile.col_major, lines)), expressible)


def form(problem: Problem, layout: Layout) -> Form:
    """The stored tile's code: its lines, and whether it expresses the layout."""
    tile, modes = problem.tile, problem.hardware.tma_modes
    head = header(problem, layout, "//")
    shaped = _shaped(tile, layout, modes, head)
    if shaped is not None:
        return shaped
    found = swizzled_rows(tile, layout)
    if found is None:
        return _not_a_row_swizzle(tile, layout, head)
    return _row_swizzle(tile, layout, modes, head, *found)


def _shaped(tile: Tile, layout: Layout, modes: tuple[str, ...], head: str) -> Form | None:
    """The layouts CuTe writes as a shape rather than a swizzle: padded rows, column panels (each
    a swizzle atom), rows permuted in bands; None for any other."""
    pitch = row_pitch(tile, layout)
    if pitch:
        return [head, plain(tile, pitch, "//"), Declared("smem_layout", _layout(tile, pitch))], True
    panels = panels_of(tile, layout)
    if panels is not None:
        if f"{panels.width}B" in modes and tile.elem_bytes in CPP_TYPE:
            return _panels(tile, panels, head)
        return [head, f"// {words(tile).panels(tile.cols // panels.panel_cols(tile), panels.panel_cols(tile))}, "
                      f"each the swizzle {panels.atom(tile).name}",
                Declared("smem_layout", Composed(panels.atom(tile), panel_layout(tile, panels)))], True
    bands = row_bands(tile, layout)
    if bands is not None:
        w = words(tile)
        return [head, f"// a permutation of {w.rows} in bands: a hierarchical layout, {w.row} {w.r} = ({w.r}0, {w.r}1, "
                      f"band) with {w.r}0 < {bands[0][0]}, {w.r}1 < {bands[0][1]}",
                Declared("smem_layout", CuteLayout((bands[0], tile.cols), (bands[1], 1)))], True
    return None


def _not_a_row_swizzle(tile: Tile, layout: Layout, head: str) -> Form:
    """A layout that is no swizzle of the rows: a chain of swizzles, a swizzle of the columns, or
    (not CuTe's) a functor computing the offset."""
    chain = swizzle_chain(tile, layout)
    if chain:
        return _nested(tile, *chain, head)
    columns = swizzled_columns(tile, layout)
    if columns:
        return _columns(tile, *columns, head)
    if (missing := no_closed_form(tile, layout, "//")) is not None:
        return [head, cannot_cute(tile, layout, "//"), missing], False
    return [head, cannot_cute(tile, layout, "//"),
            f"struct SmemLayout {{  // use as smem[SmemLayout{{}}(r, c)]\n"
            f"  CUTE_HOST_DEVICE constexpr int operator()(int r, int c) const {{\n"
            f"    return {words(tile).expression(layout.expression(tile))};\n  }}\n}};"], False


def _row_swizzle(tile: Tile, layout: Layout, modes: tuple[str, ...], head: str, pitch: int, sw) -> Form:
    """A swizzle ``sw`` of the offset r * pitch + c: the GMMA atom where a TMA/GMMA width has one,
    else the element-level composition."""
    lines: list[Line] = [head]
    if pitch != tile.row_length:
        lines.append(f"// {rows_apart(tile, pitch)}, then {sw.name} on the offset {words(tile).offset(pitch)}")
    elif layout.cute_swizzle() is None:
        lines.append(f"// equal to {sw.name} on every element of this tile")
    byte = sw.byte_level(tile.elem_bytes)
    width = tma_width(replace(tile, row_length=pitch), sw)
    if width and tile.rows % 8 == 0 and f"{width}B" in modes and tile.elem_bytes in CPP_TYPE:  # make_tma_copy's, GMMA's first
        return lines + _gmma_atom(tile, pitch, sw, byte, width), True
    lines += [Using("SmemSwizzle", sw), Declared("smem_layout", Composed(Ref("SmemSwizzle"), _layout(tile, pitch))),
              f"// byte form: {byte.name} on byte offsets"]
    mode = sw.tma_mode(tile.elem_bytes) if pitch == tile.row_length else None
    if mode in modes and mode not in ("32B", "64B", "128B") and tile.row_length * tile.elem_bytes == 128:
        lines.append(wide_atom_note(byte, mode, tile.elem_bytes))
    return lines, True


def _gmma_atom(tile: Tile, pitch: int, sw, byte, width: int) -> list[Line]:
    """The lines of a swizzle that is the ``width``-byte TMA/GMMA one: the GMMA atom tiled to the
    shape, and the same layout as an element-level swizzle (commented)."""
    return [f"// byte form {byte.name} = the {width}B TMA/GMMA swizzle; for make_tma_copy and GMMA, the atom:",
            ElementType(tile.elem_bytes),
            Declared("smem_layout", Tiled(Atom("K", f"SW{width}", "T"), (tile.rows, tile.cols))),
            "// index it through a shared-memory pointer (the atom swizzles byte addresses), e.g.",
            "//   auto sA = cute::make_tensor(cute::make_smem_ptr(smem), smem_layout);  // &sA(r, c) - smem == "
            "phys(r, c)",
            "// the same layout as an element-level swizzle, also for plain smem[smem_layout(r, c)] "
            f"({tma_note(sw)}):",
            Declared("smem_layout", Composed(sw, _layout(tile, pitch)), commented=True)]


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


def panel_layout(tile: Tile, panels) -> CuteLayout:
    """The panels' element layout before the swizzle: ((R), (w, n)) : ((w), (1, R * w))."""
    w = panels.panel_cols(tile)
    return CuteLayout((tile.rows, (w, tile.cols // w)), (w, (1, tile.rows * w)))


def _panels(tile: Tile, panels, head: str) -> Form:
    """The GMMA atom tiled over the tile (make_tma_copy-ready, through a shared-memory pointer), then
    the same layout on element offsets (for plain integer indexing)."""
    w, width = panels.panel_cols(tile), panels.width
    atom = panels.atom(tile)
    return [
        head,
        f"// {words(tile).panels(tile.cols // w, w, width)}, each the {width}B swizzle atom "
        f"(byte form {atom.byte_level(tile.elem_bytes).name}); for make_tma_copy and GMMA:",
        ElementType(tile.elem_bytes),
        Declared("smem_layout", Tiled(Atom("K", f"SW{width}", "T"), (tile.rows, tile.cols))),
        "// index it through a shared-memory pointer (the atom swizzles byte addresses), e.g.",
        "//   auto sA = cute::make_tensor(cute::make_smem_ptr(smem), smem_layout);  // &sA(r, c) - smem == phys(r, c)",
        f"// the same layout as an element-level swizzle, also for plain smem[smem_layout(r, c)] ({tma_note(atom)}):",
        Declared("smem_layout", Composed(atom, panel_layout(tile, panels)), commented=True)], True


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


def _columns(tile: Tile, pitch: int, pow2: int, sw, head: str) -> Form:
    """A per-row column XOR on rows ``pitch`` apart: rows laid ``pow2`` apart (a power of two, so
    row bits are offset bits), the swizzle moves row bits onto column bits, and a layout maps the
    offset back to rows ``pitch`` apart: make_composed_layout(back, 0, composition(sw, rows))."""
    w = words(tile)
    padded = f" (padded: {pitch - tile.cols} spare per {w.row})" if pitch > tile.cols else ""
    back = CuteLayout((pow2, tile.rows), (1, pitch))  # a map of offsets: kept under --order col
    return [
        head,
        f"// a {w.col} XOR per {w.row} on {w.rows} {pitch} elements apart{padded}: (r, c) -> {w.offset(pow2)} ({w.rows} "
        f"on a power-of-two pitch), {sw.name} ({w.row} bits onto {w.col} bits), then i -> i % {pow2} + (i / {pow2}) * {pitch} "
        f"(back to the pitch)",
        Using("SmemSwizzle", sw),
        Declared("smem_layout", Composed(back, Composed(Ref("SmemSwizzle"), _layout(tile, pow2), broken=False),
                                         call="make_composed_layout"))], True


def _nested(tile: Tile, pitch: int, chain, head: str) -> Form:
    """Swizzles applied in turn to r * pitch + c: each composed around the previous (C++ CuTe
    evaluates a nested composed layout; the CuTe DSL does not take one)."""
    where = "" if pitch == tile.row_length else f", {rows_apart(tile, pitch)}"
    lines: list[Line] = [head, f"// {' then '.join(x.name for x in chain)}, applied in turn to {words(tile).offset(pitch)}"
                               f"{where}: "
                               f"nested composed layouts (C++ CuTe; the CuTe DSL takes one swizzle only)"]
    lines += [Using(f"SmemSwizzle{i}", sw) for i, sw in enumerate(chain, 1)]
    value = Composed(Ref("SmemSwizzle1"), _layout(tile, pitch))
    for i in range(2, len(chain) + 1):
        value = Composed(Ref(f"SmemSwizzle{i}"), value, call="make_composed_layout")
    return lines + [Declared("smem_layout", value)], True


def in_elements(problem: Problem, layout: Layout, snippet: Snippet) -> str:
    """Sub-byte elements: the same declarations upcast to the elements (forms/cute.py), in the user's
    view; the comments of the byte form are not repeated."""
    tile = problem.tile
    lines, expressible = form(problem, layout)
    if not expressible:
        return f"{element_note(tile, '//')}\n{formula(tile, '//')}"
    per = 8 // tile.elem_bits
    code = upcast_records(in_view(tile.col_major, lines), per)
    return (f"{element_note(tile, '//')} {rule('Swizzle<B,M+1,S>')}; CuTe indexes a tensor of a 4-bit type by "
            f"element:\n"
            f"{render(code)}")
