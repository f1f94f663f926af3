"""--emit mojo: Mojo (1.x: ``comptime``, not the removed ``alias``; ``def``, not the removed ``fn``).

The ``layout`` package is not in the ``mojo`` wheel: it comes with the MAX Mojo libraries
(``max-mojo-libs``, part of ``max`` / ``modular``). A comptime ``Layout`` used at run time needs
``materialize[smem_layout]()``; a ``Swizzle`` is called directly.
"""
from __future__ import annotations

from ..forms.cute import Declared, Ref, Swizzle, in_view, render, swizzle_upcast, upcast_records
from ..forms.cute import Layout as CuteLayout
from ..layout import Layout
from ..model import Problem, Tile
from ..orient import words
from ..value import Value, replace
from .common import Snippet, header, no_closed_form, plain, rows_apart
from .recognise import panels_of, row_bands, row_pitch, swizzled_rows, tma_width, why_not_swizzle
from .views import element_note, formula, rule

LIBS = "# needs the MAX Mojo libraries for `layout` (pip install max-mojo-libs, or max); Mojo 1.x"
TARGET = "mojo"
TITLE = "Mojo"
ORDER = 4  # place in the --emit list
COMMENT = "#"  # its comments (the sub-byte view's default note)
MOJO_DTYPES = (1, 2, 4, 8)  # element sizes of Mojo's DTypes, which make_swizzle[dtype, TensorMapSwizzle] takes


class SwizzleDeclared(Value):
    """``comptime NAME = Swizzle(B, M, S)``: Mojo's swizzle is CuTe's formula (layout/swizzle.mojo)."""

    name: str
    swizzle: Swizzle

    def transpose(self) -> SwizzleDeclared:
        return self  # (it acts on offsets)

    def upcast(self, per: int) -> SwizzleDeclared:
        return SwizzleDeclared(Ref(self.name).upcast(per).name, swizzle_upcast(self.swizzle, per))

    def text(self, syntax: str) -> str:
        sw = self.swizzle
        return f"comptime {self.name} = Swizzle({sw.B}, {sw.M}, {sw.S})  # bits, base, shift (= CuTe {sw.name})"


def emit(problem: Problem, layout: Layout) -> Snippet:
    lines, expressible = form(problem, layout)
    return Snippet("mojo", render(in_view(problem.tile.col_major, lines), "mojo"), expressible)


def form(problem: Problem, layout: Layout) -> tuple[list, bool]:
    """The stored tile's code: lines of text and declared records (forms/cute.py), and whether it
    expresses the layout."""
    tile = problem.tile
    head = header(problem, layout, "#")
    pitch = row_pitch(tile, layout)
    if pitch:
        return [head, plain(tile, pitch, "#"), LIBS, "from layout import Layout, IntTuple",
                Declared("smem_layout", CuteLayout((tile.rows, tile.cols), (pitch, 1))),
                "# at run time: var lay = materialize[smem_layout](); lay(IntTuple(r, c))"], True
    panels = panels_of(tile, layout)
    if panels is not None:
        tma = f"{panels.width}B" in problem.hardware.tma_modes and tile.elem_bytes in MOJO_DTYPES
        return _panels(tile, panels, head, tma=tma)
    bands = row_bands(tile, layout)
    if bands is not None:
        return [head, LIBS, "from layout import Layout, IntTuple",
                f"# a permutation of {words(tile).rows} in bands: a hierarchical layout",
                Declared("smem_layout", CuteLayout((bands[0], tile.cols), (bands[1], 1))),
                "# at run time: var lay = materialize[smem_layout](); lay(IntTuple(r, c))"], True
    found = swizzled_rows(tile, layout)
    if found is None:
        missing = no_closed_form(tile, layout, "#")
        function = missing or f"def smem_offset(r: Int, c: Int) -> Int:\n    return {words(tile).expression(layout.expression(tile))}"
        return [head, f"# cannot express as Mojo's Swizzle(bits, base, shift): {why_not_swizzle(tile, layout)}",
                function], False
    pitch, sw = found
    lines: list = [head, LIBS, "from layout.swizzle import Swizzle, make_swizzle", "", SwizzleDeclared("smem_swizzle", sw),
                   f"# element (r, c) is at smem_swizzle({words(tile).offset(pitch)})"
                   + (f": {rows_apart(tile, pitch)}" if pitch != tile.row_length else "")]
    if sw.S > 0 and pitch == 1 << (sw.S + sw.M):
        lines.append(f"# the same: make_swizzle[num_rows={1 << sw.B}, row_size={pitch}, "
                     f"access_size={1 << sw.M}]()")
    width = tma_width(replace(tile, row_length=pitch), sw) if tile.elem_bytes in MOJO_DTYPES else None
    if width and f"{width}B" in problem.hardware.tma_modes:  # TensorMapSwizzle: a mode of the target's TMA
        lines.append(f"# the same: make_swizzle[dtype, TensorMapSwizzle.SWIZZLE_{width}B](), with\n"
                     f"#   from layout.tma_async import TensorMapSwizzle")
    return lines, True


def _panels(tile: Tile, panels, head: str, tma: bool) -> tuple[list, bool]:
    """Column panels: the panels' hierarchical Layout ((R), (w, n)) : ((w), (1, R * w)), then the
    atom's Swizzle of its offset (as CuTe's composition of the atom): the atom's bits stay below a
    panel (rows are a multiple of its 8), so one swizzle of the whole offset swizzles each panel."""
    w, atom = panels.panel_cols(tile), panels.atom(tile)
    n = tile.cols // w
    return [
        head, LIBS, "from layout import Layout, IntTuple",
        "from layout.swizzle import Swizzle" + (", make_swizzle" if tma else ""), "",
        f"# {words(tile).panels(n, w, panels.width)}, stored one after another, each the "
        f"{panels.width}B swizzle atom",
        Declared("panel_layout", CuteLayout((tile.rows, (w, n)), (w, (1, tile.rows * w)))),
        SwizzleDeclared("smem_swizzle", atom),
        "# element (r, c) is at smem_swizzle(lay(IntTuple(r, c))), with var lay = materialize[panel_layout]()",
        *([f"# the same swizzle: make_swizzle[dtype, TensorMapSwizzle.SWIZZLE_{panels.width}B](), with\n"
           "#   from layout.tma_async import TensorMapSwizzle"] if tma else [])], True


def in_elements(problem: Problem, layout: Layout, snippet: Snippet) -> str:
    """Sub-byte elements: the declarations upcast to the elements (forms/cute.py), in the user's view,
    and where element (r, c) is."""
    tile = problem.tile
    lines, expressible = form(problem, layout)
    if not expressible:
        return f"{element_note(tile, '#')}\n{formula(tile, '#')}"
    per = 8 // tile.elem_bits
    code = upcast_records(in_view(tile.col_major, lines), per)
    names = {line.name for line in code}
    found = swizzled_rows(tile, layout)
    where = ""
    if found is not None and "smem_swizzle_4bit" in names and "panel_layout_4bit" not in names:
        where = f"\n# element (r, c) is at smem_swizzle_4bit({words(tile).offset(found[0] * per)})"
    elif "panel_layout_4bit" in names:
        where = "\n# element (r, c) is at smem_swizzle_4bit(lay(IntTuple(r, c))), with var lay = materialize[panel_layout_4bit]()"
    return f"{element_note(tile, '#')} {rule('Swizzle(B, M+1, S)')}:\n{render(code, 'mojo')}{where}"
