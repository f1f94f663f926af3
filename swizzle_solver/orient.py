"""What the user reads of a column-major tile (--order col): the storage orientation translated back.

A column-major tile is solved as its transpose (model.Tile, ``order="col"``; access/order.py): the
stored tile's row j is the user's column j. Everything the user reads names the user's (r, c): the
problem's shape, each lane, the rank proof's index bits, the C expression and every emitted snippet.
Under row order each function here returns its input unchanged.
"""
from __future__ import annotations

import re

from .model import Tile
from .value import Value

_RC = re.compile(r"\b([rc])(?=\b|\d)")


def swap_rc(text: str) -> str:
    """``text`` (C code, or proof labels such as ``r2+c3``) with the identifiers ``r`` and ``c``
    exchanged: the stored tile's function of (row, col) becomes the user's function of (r, c), since
    element (r, c) is stored at row c, column r."""
    return _RC.sub(lambda m: "c" if m[1] == "r" else "r", text)


def expression(tile: Tile, text: str | None) -> str | None:
    """A C expression of the stored tile's (r, c), in the user's (r, c)."""
    return text if text is None or not tile.col_major else swap_rc(text)


def label(tile: Tile, text: str) -> str:
    """A rank-proof column label (``r2``, ``c3``, ``r2+c4``) in the user's (r, c)."""
    return swap_rc(text) if tile.col_major else text


def lane(tile: Tile, row: int, col: int) -> tuple[int, int]:
    """The user's (r, c) of a lane's first element (stored at (row, col))."""
    return tile.logical(row, col)


def storage_note(tile: Tile) -> str | None:
    """One sentence on how a column-major tile is stored (None under row order)."""
    if not tile.col_major:
        return None
    return (f"column-major (--order col): element (r, c) is stored at c * {tile.row_length} + r before the "
            f"layout; a vector runs down a column")


def extras(tile: Tile, found: dict) -> dict:
    """A family's JSON extras (layout.Layout.json_extras) in the user's (r, c): its C ``steps`` with
    r and c exchanged, its ``triton_bases`` (the image of each row bit and column bit, [row, col])
    with rows and columns exchanged, and the same inside a padded layout's ``inner``. The rest
    (XOR terms on offset bits, swizzle triples, padding's pitch) is of the stored offset, which is
    what a layout applies to under either order."""
    if not tile.col_major:
        return found
    out = dict(found)
    if isinstance(out.get("steps"), list):
        out["steps"] = [swap_rc(s) if isinstance(s, str) else s for s in out["steps"]]
    bases = out.get("triton_bases")
    if isinstance(bases, dict) and set(bases) == {"row", "col"}:
        out["triton_bases"] = {"row": [list(b)[::-1] for b in bases["col"]], "col": [list(b)[::-1] for b in bases["row"]]}
    if isinstance(out.get("padding"), dict) and isinstance(out["padding"].get("inner"), dict):
        out["padding"] = {**out["padding"], "inner": extras(tile, out["padding"]["inner"])}
    return out


class Words(Value):
    """What the emitted code and its comments call the stored tile's rows, columns and indices, in the
    user's view: the one place that says a stored row is a column of a column-major tile. Emitters
    write the stored tile's code with these (``f"{w.r} * {pitch} + {w.c}"``, ``f"{w.rows} {pitch}
    elements apart"``), so their text is the user's from the start.

    Row order: row/column, r/c. --order col: a stored row is the user's column (element (r, c) is
    stored at row c, column r), so the stored row index is the user's ``c`` and a stored column panel
    is a band of the user's rows."""

    row: str = "row"  # a stored row, in the user's words
    col: str = "column"  # a stored column
    r: str = "r"  # the user's name of the stored tile's row index
    c: str = "c"  # ... and of its column index
    order: str = "row-major"  # the stored tile's order, as the user's tile has it
    taller: str = "taller"  # a tile with more stored rows

    @property
    def rows(self) -> str:
        return f"{self.row}s"

    @property
    def cols(self) -> str:
        return f"{self.col}s"

    def offset(self, pitch: int) -> str:
        """The stored tile's flat offset, stored rows ``pitch`` apart, in the user's (r, c)."""
        return f"{self.r} * {pitch} + {self.c}"

    def expression(self, text: str | None) -> str | None:
        """A family's C expression of the stored tile's (r, c) (layout.Layout.expression), in the user's:
        the same translation the JSON's ``expression`` gets (orient.expression)."""
        return text if text is None or self.r == "r" else swap_rc(text)

    def panels(self, n: int, w: int, width: int | None = None) -> str:
        """``n`` stored column panels of ``w`` elements (``width`` bytes wide), in the user's words."""
        if self.row == "row":
            return f"{n} column panels of {w} elements" + (f" ({width} B)" if width else "")
        return f"{n} row panels of {w} rows" + (f" ({width} B down each column)" if width else "")


ROW_ORDER = Words()
COL_ORDER = Words("column", "row", "c", "r", "column-major", "wider")


def words(tile: Tile) -> Words:
    """The words of the tile's view (Words)."""
    return COL_ORDER if tile.col_major else ROW_ORDER
