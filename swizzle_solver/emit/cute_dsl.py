"""--emit cute-dsl: CuTe DSL (Python)."""
from __future__ import annotations

from ..forms.cute import Composed, Declared, in_view, render, upcast_records
from ..forms.cute import Layout as CuteLayout
from ..layout import Layout
from ..model import Problem, Tile
from ..orient import words
from .common import Snippet, cannot_cute, header, no_closed_form, plain, rows_apart
from .recognise import panels_of, row_bands, row_pitch, swizzled_columns, swizzled_rows
from .views import element_note, formula, rule

TARGET = "cute-dsl"
TITLE = "CuTe DSL (Python)"
ORDER = 1  # place in the --emit list
COMMENT = "#"  # its comments (the sub-byte view's default note)


def emit(problem: Problem, layout: Layout) -> Snippet:
    lines, expressible = form(problem, layout)
    return Snippet("cute-dsl", render(in_view(problem.tile.col_major, lines), "dsl"), expressible)


def form(problem: Problem, layout: Layout) -> tuple[list, bool]:
    """The stored tile's code: lines of text and declared records (forms/cute.py), and whether it
    expresses the layout."""
    tile = problem.tile
    head = header(problem, layout, "#")
    lines: list = [head, "import cutlass.cute as cute", "", "# inside a @cute.jit function (CuTe DSL, CUTLASS 4.x):"]
    pitch = row_pitch(tile, layout)
    if pitch:
        return lines + [plain(tile, pitch, "#"), Declared("smem_layout", _dsl_layout(tile, pitch))], True
    panels = panels_of(tile, layout)
    if panels is not None:
        w, atom = panels.panel_cols(tile), panels.atom(tile)
        return lines + [f"# {words(tile).panels(tile.cols // w, w)}, each {atom.name} (the {panels.width}B atom)",
                        Declared("smem_layout", Composed(atom, CuteLayout((tile.rows, (w, tile.cols // w)),
                                                                          (w, (1, tile.rows * w)))))], True
    bands = row_bands(tile, layout)
    if bands is not None:
        return lines + [f"# a permutation of {words(tile).rows} in bands: a hierarchical layout",
                        Declared("smem_layout", CuteLayout((bands[0], tile.cols), (bands[1], 1)))], True
    found = swizzled_rows(tile, layout)
    if found is None:
        why = cannot_cute(tile, layout, "#")
        if swizzled_columns(tile, layout):  # C++ CuTe nests it; the DSL refuses a swizzle inside (CUTLASS DSL 4.8)
            why = ("# cannot express in the CuTe DSL: it is a swizzle between two layouts (--emit cute, C++), and the "
                   "DSL's make_composed_layout takes only an affine inner layout; the function below is exact")
        missing = no_closed_form(tile, layout, "#")
        function = [missing] if missing else ["def smem_offset(r, c):", f"    return {words(tile).expression(layout.expression(tile))}"]
        return [head, why, *function], False
    pitch, sw = found
    if pitch != tile.row_length:
        lines.append(f"# {rows_apart(tile, pitch)}, then {sw.name} on the offset {words(tile).offset(pitch)}")
    return lines + [Declared("smem_layout", Composed(sw, _dsl_layout(tile, pitch)))], True


def _dsl_layout(tile: Tile, pitch: int) -> CuteLayout:
    return CuteLayout((tile.rows, tile.cols), (pitch, 1))


def in_elements(problem: Problem, layout: Layout, snippet: Snippet) -> str:
    """Sub-byte elements: the declarations upcast to the elements (forms/cute.py), in the user's view."""
    tile = problem.tile
    lines, expressible = form(problem, layout)
    if not expressible:
        return f"{element_note(tile, '#')}\n{formula(tile, '#')}"
    code = upcast_records(in_view(tile.col_major, lines), 8 // tile.elem_bits)
    return f"{element_note(tile, '#')} {rule('make_swizzle(B, M+1, S)')}:\n{render(code, 'dsl')}"
