"""--emit cute-dsl: CuTe DSL (Python)."""
from __future__ import annotations

from ..layout import Layout
from ..model import Problem, Tile
from .common import Snippet, cannot_cute, header, no_closed_form, plain, rows_apart
from .recognise import panels_of, row_bands, row_pitch, swizzled_columns, swizzled_rows
from .views import code_lines, doubled_calls, element_note, formula, py_tuple, rule, swizzles_up, transposed_calls

TARGET = "cute-dsl"
TITLE = "CuTe DSL (Python)"
ORDER = 1  # place in the --emit list
COMMENT = "#"  # its comments (the sub-byte view's default note)


def emit(problem: Problem, layout: Layout) -> Snippet:
    tile = problem.tile
    head = header(problem, layout, "#")
    lines = [head, "import cutlass.cute as cute", "", "# inside a @cute.jit function (CuTe DSL, CUTLASS 4.x):"]
    pitch = row_pitch(tile, layout)
    if pitch:
        lines += [plain(tile, pitch, "#"), f"smem_layout = {_dsl_layout(tile, pitch)}"]
        return Snippet("cute-dsl", "\n".join(lines), True)
    panels = panels_of(tile, layout)
    if panels is not None:
        w, atom = panels.panel_cols(tile), panels.atom(tile)
        lines += [f"# {tile.cols // w} column panels of {w} elements, each {atom.name} (the {panels.width}B atom)",
                  f"smem_layout = cute.make_composed_layout(cute.make_swizzle({atom.B}, {atom.M}, {atom.S}), 0, "
                  f"cute.make_layout(({tile.rows}, ({w}, {tile.cols // w})), stride=({w}, (1, {tile.rows * w}))))"]
        return Snippet("cute-dsl", "\n".join(lines), True)
    bands = row_bands(tile, layout)
    if bands is not None:
        (s0, s1, s2), (d0, d1, d2) = bands
        lines += ["# a permutation of rows in bands: a hierarchical layout",
                  f"smem_layout = cute.make_layout((({s0}, {s1}, {s2}), {tile.cols}), stride=(({d0}, {d1}, {d2}), 1))"]
        return Snippet("cute-dsl", "\n".join(lines), True)
    found = swizzled_rows(tile, layout)
    if found is None:
        why = cannot_cute(tile, layout, "#")
        if swizzled_columns(tile, layout):  # C++ CuTe nests it; the DSL refuses a swizzle inside (CUTLASS DSL 4.8)
            why = ("# cannot express in the CuTe DSL: it is a swizzle between two layouts (--emit cute, C++), and the "
                   "DSL's make_composed_layout takes only an affine inner layout; the function below is exact")
        missing = no_closed_form(tile, layout, "#")
        function = [missing] if missing else ["def smem_offset(r, c):", f"    return {layout.expression(tile)}"]
        return Snippet("cute-dsl", "\n".join([head, why, *function]), False)
    pitch, sw = found
    if pitch != tile.row_length:
        lines.append(f"# {rows_apart(tile, pitch)}, then {sw.name} on the offset r * {pitch} + c")
    lines.append(f"smem_layout = cute.make_composed_layout(cute.make_swizzle({sw.B}, {sw.M}, {sw.S}), 0, "
                 f"{_dsl_layout(tile, pitch)})")
    return Snippet("cute-dsl", "\n".join(lines), True)


def _dsl_layout(tile: Tile, pitch: int) -> str:
    return f"cute.make_layout(({tile.rows}, {tile.cols}), stride=({pitch}, 1))"


def in_user_order(problem: Problem, body: str) -> str:
    """--order col: this target's code of the stored tile, said of the user's (r, c) (emit/views.py)."""
    return transposed_calls(body, "cute.make_layout", "stride=")


def in_elements(problem: Problem, layout: Layout, snippet: Snippet) -> str:
    """Sub-byte elements: what this target's code of the packed bytes is in the elements (emit/views.py)."""
    tile = problem.tile
    per = 8 // tile.elem_bits
    if not snippet.expressible:
        return f"{element_note(tile, '#')}\n{formula(tile, '#')}"
    code = "\n".join(line for line in code_lines(snippet.code, "#").splitlines() if line.startswith("smem_layout"))
    code = code.replace("smem_layout =", "smem_layout_4bit =")
    code = swizzles_up(doubled_calls(code, "cute.make_layout", per, py_tuple), per)
    return f"{element_note(tile, '#')} {rule('make_swizzle(B, M+1, S)')}:\n{code}"
