"""What every emit target shares: the Snippet it returns and the lines every snippet begins with."""
from __future__ import annotations

from ..layout import Layout
from ..model import Problem, Tile
from ..orient import words
from ..value import Value
from .recognise import why_not_swizzle

CPP_TYPES = {1: "cute::uint8_t (or float_e4m3_t)", 2: "cute::half_t (or bfloat16_t)", 4: "float (or tfloat32_t)",
             8: "double", 16: "cute::uint128_t (any 16-byte type)"}


class Snippet(Value):
    """One target's code; ``expressible`` is False when the target cannot say this layout (then the
    code says why, and gives the exact function where one helps). ``mode``: the TMA swizzle mode
    the snippet uses ("32B", "64B", "128B"), None otherwise: the JSON's ``tma_mode`` is read from
    here, so that it and ``--emit tma`` never disagree."""

    target: str
    code: str
    expressible: bool
    mode: str | None = None


def header(problem: Problem, layout: Layout, comment: str) -> str:
    t = problem.tile
    if t.elem_bits and t.col_major:  # packed down a column: r counts bytes (emit/views.py: the user's order, then the elements)
        per = 8 // t.elem_bits
        rows, cols = t.logical_shape
        return (f"{comment} {layout.name}: {rows * per} x {cols} tile of {t.elem_bits}-bit elements, {per} a byte down "
                f"a column, column-major (--order col), solved as its packed bytes: in the code below an element is a "
                f"byte ({rows} x {cols}, byte (r, c) at c * {t.row_length} + r before the layout; r counts bytes, the "
                f"element row / {per}; offsets in bytes)")
    if t.elem_bits:  # sub-byte: the code addresses the packed bytes; emit/views.py adds the element form
        per = 8 // t.elem_bits
        return (f"{comment} {layout.name}: {t.rows} x {t.cols * per} tile of {t.elem_bits}-bit elements, {per} a byte, "
                f"solved as its packed bytes: in the code below an element is a byte ({t.rows} x {t.cols}, row length "
                f"{t.row_length}; c counts bytes, the element column / {per}; offsets in bytes)")
    if t.col_major:  # the user's tile, and how it is stored (emit/views.py turns the rest into its (r, c))
        rows, cols = t.logical_shape
        return (f"{comment} {layout.name}: {rows} x {cols} tile of {t.elem_bytes}-byte elements, column-major "
                f"(--order col): element (r, c) at c * {t.row_length} + r before the layout (offsets in elements)")
    return (f"{comment} {layout.name}: {t.rows} x {t.cols} tile of {t.elem_bytes}-byte elements, "
            f"row length {t.row_length} (offsets in elements)")


def cpp_layout(tile: Tile, pitch: int | None = None) -> str:
    return (f"cute::Layout<cute::Shape<cute::Int<{tile.rows}>, cute::Int<{tile.cols}>>, "
            f"cute::Stride<cute::Int<{pitch or tile.row_length}>, cute::Int<1>>>{{}}")


def plain(tile: Tile, pitch: int, comment: str) -> str:
    w = words(tile)
    spare = f", padded: {pitch - tile.cols} spare element(s) per {w.row}" if pitch > tile.cols else ""
    return f"{comment} no swizzle: plain {w.order}, {w.rows} {pitch} elements apart{spare}"


def rows_apart(tile: Tile, pitch: int) -> str:
    """How far apart a layout stores rows that are not the given row length apart (a padded layout)."""
    w = words(tile)
    spare = f"{pitch - tile.cols} spare per {w.row}" if pitch > tile.cols else "no padding"
    return f"{w.rows} {pitch} elements apart ({spare}; the given {w.row} length is {tile.row_length})"


def cannot_cute(tile: Tile, layout: Layout, comment: str) -> str:
    return f"{comment} cannot express as a CuTe layout: {why_not_swizzle(tile, layout)}; the function below is exact"




MAX_TABLE = 1 << 16  # elements of the constant table --emit cuda writes for a layout with no closed form


def no_closed_form(tile: Tile, layout: Layout, comment: str) -> str | None:
    """For a layout with no C expression (a table given with --check table:FILE, say): the line that
    says so, for the targets that would print the function; None when it has one."""
    if layout.expression(tile) is not None:
        return None
    return f"{comment} no closed form: the layout is a table of offsets (--emit cuda writes it as a constant array)"


def table_body(tile: Tile, layout: Layout) -> str | None:
    """A C function body returning phys(r, c) from a constant table, or None when the table would be
    larger than MAX_TABLE elements."""
    from ..layout import layout_table

    if tile.rows * tile.cols > MAX_TABLE:
        return None
    table = layout_table(tile, layout)
    kind = "unsigned short" if int(table.max(initial=0)) < 1 << 16 else "int"
    rows = ",\n".join("    {" + ", ".join(map(str, row)) + "}" for row in table.tolist())
    return (f"  // no closed form: the offsets as a constant table\n"
            f"  static const {kind} kPhys[{tile.rows}][{tile.cols}] = {{\n{rows}}};\n"
            f"  return kPhys[{words(tile).r}][{words(tile).c}];")
