"""--emit mojo: Mojo (1.x: ``comptime``, not the removed ``alias``; ``def``, not the removed ``fn``).

The ``layout`` package is not in the ``mojo`` wheel: it comes with the MAX Mojo libraries
(``max-mojo-libs``, part of ``max`` / ``modular``). A comptime ``Layout`` used at run time needs
``materialize[smem_layout]()``; a ``Swizzle`` is called directly.
"""
from __future__ import annotations

import re

from ..layout import Layout
from ..model import Problem, Tile
from ..value import replace
from .common import Snippet, header, no_closed_form, plain, rows_apart
from .recognise import panels_of, row_bands, row_pitch, swizzled_rows, tma_width, why_not_swizzle
from .views import code_lines, doubled_calls, element_note, formula, int_tuple, rule, swizzles_up, transposed_calls

LIBS = "# needs the MAX Mojo libraries for `layout` (pip install max-mojo-libs, or max); Mojo 1.x"
TARGET = "mojo"
TITLE = "Mojo"
ORDER = 4  # place in the --emit list
COMMENT = "#"  # its comments (the sub-byte view's default note)
MOJO_DTYPES = (1, 2, 4, 8)  # element sizes of Mojo's DTypes, which make_swizzle[dtype, TensorMapSwizzle] takes


def emit(problem: Problem, layout: Layout) -> Snippet:
    tile = problem.tile
    head = header(problem, layout, "#")
    pitch = row_pitch(tile, layout)
    if pitch:
        return Snippet("mojo", f"{head}\n{plain(tile, pitch, '#')}\n{LIBS}\nfrom layout import Layout, IntTuple\n"
                               f"comptime smem_layout = Layout(IntTuple({tile.rows}, {tile.cols}), IntTuple({pitch}, 1))\n"
                               f"# at run time: var lay = materialize[smem_layout](); lay(IntTuple(r, c))",
                       True)
    panels = panels_of(tile, layout)
    if panels is not None:
        tma = f"{panels.width}B" in problem.hardware.tma_modes and tile.elem_bytes in MOJO_DTYPES
        return _panels(tile, panels, head, tma=tma)
    bands = row_bands(tile, layout)
    if bands is not None:
        (s0, s1, s2), (d0, d1, d2) = bands
        return Snippet("mojo", "\n".join([
            head, LIBS, "from layout import Layout, IntTuple", "# a permutation of rows in bands: a hierarchical layout",
            f"comptime smem_layout = Layout(IntTuple(IntTuple({s0}, {s1}, {s2}), {tile.cols}), "
            f"IntTuple(IntTuple({d0}, {d1}, {d2}), 1))",
            "# at run time: var lay = materialize[smem_layout](); lay(IntTuple(r, c))"]), True)
    found = swizzled_rows(tile, layout)
    if found is None:
        missing = no_closed_form(tile, layout, "#")
        function = missing or f"def smem_offset(r: Int, c: Int) -> Int:\n    return {layout.expression(tile)}"
        return Snippet("mojo", f"{head}\n# cannot express as Mojo's Swizzle(bits, base, shift): "
                               f"{why_not_swizzle(tile, layout)}\n{function}", False)
    pitch, sw = found
    lines = [head, LIBS, "from layout.swizzle import Swizzle, make_swizzle", "",
             f"comptime smem_swizzle = Swizzle({sw.B}, {sw.M}, {sw.S})  # bits, base, shift (= CuTe {sw.name})",
             f"# element (r, c) is at smem_swizzle(r * {pitch} + c)"
             + (f": {rows_apart(tile, pitch)}" if pitch != tile.row_length else "")]
    if sw.S > 0 and pitch == 1 << (sw.S + sw.M):
        lines.append(f"# the same: make_swizzle[num_rows={1 << sw.B}, row_size={pitch}, "
                     f"access_size={1 << sw.M}]()")
    width = tma_width(replace(tile, row_length=pitch), sw) if tile.elem_bytes in MOJO_DTYPES else None
    if width and f"{width}B" in problem.hardware.tma_modes:  # TensorMapSwizzle: a mode of the target's TMA
        lines.append(f"# the same: make_swizzle[dtype, TensorMapSwizzle.SWIZZLE_{width}B](), with\n"
                     f"#   from layout.tma_async import TensorMapSwizzle")
    return Snippet("mojo", "\n".join(lines), True)


def _panels(tile: Tile, panels, head: str, tma: bool) -> Snippet:
    """Column panels: the panels' hierarchical Layout ((R), (w, n)) : ((w), (1, R * w)), then the
    atom's Swizzle of its offset (as CuTe's composition of the atom): the atom's bits stay below a
    panel (rows are a multiple of its 8), so one swizzle of the whole offset swizzles each panel."""
    w, atom = panels.panel_cols(tile), panels.atom(tile)
    n = tile.cols // w
    return Snippet("mojo", "\n".join([
        head, LIBS, "from layout import Layout, IntTuple",
        "from layout.swizzle import Swizzle" + (", make_swizzle" if tma else ""), "",
        f"# {n} column panels of {w} elements ({panels.width} B), stored one after another, each the "
        f"{panels.width}B swizzle atom",
        f"comptime panel_layout = Layout(IntTuple({tile.rows}, IntTuple({w}, {n})), "
        f"IntTuple({w}, IntTuple(1, {tile.rows * w})))",
        f"comptime smem_swizzle = Swizzle({atom.B}, {atom.M}, {atom.S})  # bits, base, shift (= CuTe {atom.name})",
        "# element (r, c) is at smem_swizzle(lay(IntTuple(r, c))), with var lay = materialize[panel_layout]()",
        *([f"# the same swizzle: make_swizzle[dtype, TensorMapSwizzle.SWIZZLE_{panels.width}B](), with\n"
           "#   from layout.tma_async import TensorMapSwizzle"] if tma else [])]),
        True)


def in_user_order(problem: Problem, body: str) -> str:
    """--order col: this target's code of the stored tile, said of the user's (r, c) (emit/views.py)."""
    return transposed_calls(body, "Layout", "")


def in_elements(problem: Problem, layout: Layout, snippet: Snippet) -> str:
    """Sub-byte elements: what this target's code of the packed bytes is in the elements (emit/views.py)."""
    tile = problem.tile
    per = 8 // tile.elem_bits
    if not snippet.expressible:
        return f"{element_note(tile, '#')}\n{formula(tile, '#')}"
    code = "\n".join(line for line in code_lines(snippet.code, "#").splitlines() if line.startswith("comptime"))
    code = re.sub(r"\b(smem_swizzle|smem_layout|panel_layout)\b", r"\1_4bit", code)
    code = swizzles_up(doubled_calls(code, "Layout", per, int_tuple), per)
    found = swizzled_rows(tile, layout)
    where = ""
    if found is not None and "smem_swizzle_4bit" in code and "panel_layout_4bit" not in code:
        major, minor = ("c", "r") if tile.col_major else ("r", "c")
        where = f"\n# element (r, c) is at smem_swizzle_4bit({major} * {found[0] * per} + {minor})"
    elif "panel_layout_4bit" in code:
        where = "\n# element (r, c) is at smem_swizzle_4bit(lay(IntTuple(r, c))), with var lay = materialize[panel_layout_4bit]()"
    return f"{element_note(tile, '#')} {rule('Swizzle(B, M+1, S)')}:\n{code}{where}"
