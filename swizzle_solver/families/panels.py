"""`column-panels`: the tile stored as column panels of a TMA swizzle atom's width.

A tile whose rows are wider than 128 bytes has no TMA swizzle mode of its own (a box's inner
extent may not exceed the swizzle width). What CUTLASS and TMA do instead: cut the tile into
panels of W = 32, 64 or 128 bytes of columns (w = W / elem_bytes elements), store each panel
whole, one after the other, and swizzle each with the W-byte atom (byte-level Swizzle<B,4,3>,
B = log2(W / 16); element-level Swizzle<B, 4 - log2(elem_bytes), 3>):

    phys(r, c) = (c / w) * (rows * w) + atom(r * w + c mod w)

That is CuTe's ``tile_to_shape(GMMA::Layout_K_SW{W}_Atom<T>{}, Shape<R, C>)`` (the atom repeated
down the rows first, then across the panels), loaded by one TMA box of w x rows per panel.

Members: W in (32, 64, 128), a dense tile (row length = cols) whose columns are whole panels, and
rows a multiple of 8 (the atom's rows). Order: the narrower W first (fewer XOR bits, as in cute). No
padding: the storage is the tile's. A tile of one panel (rows exactly W bytes) is the W-byte TMA
mode itself, the CuTe swizzle ``atom``: --check accepts it (the same map, element for element),
while the search lists only tiles of two or more panels (``candidates``), where the family adds a
layout that cute does not have.
"""
from __future__ import annotations

import re

from ..layout import LATER, Family, LayoutBase, const, integer, step_schema
from ..model import Tile, is_pow2, log2
from ..value import Value
from .cute import Swizzle
from .identity import nbits

WIDTHS = (32, 64, 128)  # bytes of a panel's row: the TMA swizzle modes
ATOM_ROWS = 8  # rows of a swizzle atom (its period: 8 rows of W bytes)


class ColumnPanels(Value, LayoutBase):
    width: int  # bytes of a panel's row, one of WIDTHS
    family = "column-panels"

    @property
    def name(self) -> str:
        return f"Panels<{self.width}B>"

    @property
    def order(self) -> tuple:
        return (self.width,)

    def panel_cols(self, tile: Tile) -> int:
        """w: the columns of one panel."""
        return self.width // tile.elem_bytes

    def atom(self, tile: Tile) -> Swizzle:
        """The element-level swizzle of one panel (the W-byte TMA mode on this element size)."""
        return Swizzle(log2(self.width // 16), 4 - log2(tile.elem_bytes), 3)

    def phys(self, tile: Tile, r, c):
        w = self.panel_cols(tile)
        return (c // w) * (tile.rows * w) + self.atom(tile).apply(r * w + c % w)

    def invalid(self, tile: Tile) -> str | None:
        if self.width not in WIDTHS:
            return f"a panel is 32, 64 or 128 bytes wide, not {self.width}"
        if tile.elem_bytes > 16 or self.width % tile.elem_bytes:
            return f"{tile.elem_bytes}-byte elements do not fill a {self.width}-byte panel row"
        if tile.row_length != tile.cols:
            return "the rows are padded: panels store the dense tile"
        w = self.panel_cols(tile)
        if tile.cols % w:
            return f"the {tile.cols} columns are not whole panels of {w}"
        if tile.rows % ATOM_ROWS:
            return f"the {tile.rows} rows are not a multiple of the atom's {ATOM_ROWS}"
        return None

    def one_panel(self, tile: Tile) -> bool:
        """The tile is a single panel: the layout is its atom, the W-byte TMA mode, on the whole tile."""
        return tile.cols == self.panel_cols(tile)

    def bases(self, tile: Tile) -> list[int] | None:
        """GF(2)-linear when rows and columns are powers of two: the panel index moves above the
        row bits (a permutation of offset bits), then the atom XORs inside a panel. One panel: the
        atom's own bases (any number of rows), so that the emitters see the CuTe swizzle it is."""
        if self.invalid(tile):
            return None
        if self.one_panel(tile):
            return self.atom(tile).bases(tile)
        if not (is_pow2(tile.rows) and is_pow2(tile.cols)):
            return None
        return [int(self.phys(tile, (1 << i) // tile.cols, (1 << i) % tile.cols)) for i in range(nbits(tile))]

    def expression(self, tile: Tile) -> str:
        w = self.panel_cols(tile)
        if self.one_panel(tile):  # c < w: panel 0, column c (the atom's own expression)
            return self.atom(tile).c_xor(f"(r * {w} + c)")
        q = f"(r * {w} + (c & {w - 1}))"
        return f"(c >> {log2(w)}) * {tile.rows * w} + ({self.atom(tile).c_xor(q)})"

    def swizzles(self) -> list[dict]:
        # element-level M depends on the element size: the byte-level atom is given (unit "byte")
        return [{"B": log2(self.width // 16), "M": 4, "S": 3, "unit": "byte", "applies_to": "panel"}]

    def json_extras(self, tile: Tile) -> dict:
        w, atom = self.panel_cols(tile), self.atom(tile)
        # one panel is the atom itself: the answer's cute and byte_cute say so, as for that swizzle
        same = {"cute": atom.name, "byte_cute": atom.byte_level(tile.elem_bytes).name} if self.one_panel(tile) else {}
        return {**same, "panels": {"width_bytes": self.width, "panel_cols": w, "count": tile.cols // w,
                                   "panel_elements": tile.rows * w, "atom": atom.name,
                                   "byte_atom": atom.byte_level(tile.elem_bytes).name}}


def candidates(tile: Tile, vector_elems: int) -> list[ColumnPanels]:
    """Two or more panels: one panel is its atom, a cute member the search has already measured."""
    return [ColumnPanels(w) for w in WIDTHS if tile.cols != ColumnPanels(w).panel_cols(tile)]


def bounds(tile: Tile, vector_elems: int) -> str:
    return "panel widths 32, 64 and 128 bytes"


_NAME = r"(?i)panels\s*<\s*(\d{1,4})\s*b\s*>"


def parse(text: str) -> ColumnPanels | None:
    m = re.fullmatch(_NAME, text)
    if not m:
        return None
    if int(m[1]) not in WIDTHS:
        raise ValueError("a panel is 32, 64 or 128 bytes wide (the TMA swizzle modes)")
    return ColumnPanels(int(m[1]))


def _code_rows(answer: dict, problem: dict) -> list[tuple[str, str]]:
    p = answer["panels"]
    if p["count"] == 1:  # the CuTe and bytes rows that follow name the swizzle and its TMA mode
        return [("panels", f"one panel of {p['panel_cols']} columns ({p['width_bytes']} B rows): the "
                           f"{p['width_bytes']}B TMA swizzle mode itself, {p['atom']} on element offsets")]
    return [("panels", f"{p['count']} panels of {p['panel_cols']} columns ({p['width_bytes']} B rows), each "
                       f"{p['atom']} on element offsets ({p['byte_atom']} on bytes): the {p['width_bytes']}B TMA "
                       f"swizzle mode, one box per panel")]


STEP_SCHEMA = step_schema("column-panels: the byte-level TMA atom Swizzle<B,4,3> applied inside each panel",
                          B=integer(1, "XOR bits: 1, 2, 3 for 32B, 64B, 128B"), M=const(4), S=const(3),
                          unit=const("byte"), applies_to=const("panel"))

FAMILY_RECORD = Family(
    name=ColumnPanels.family, rank=7, stage=LATER, layout=ColumnPanels, parse=parse, printed=r"Panels<(32|64|128)B>",
    syntax="'Panels<128B>'", candidates=candidates, bounds=bounds, engine="enum", code_rows=_code_rows,
    step_schema=(STEP_SCHEMA,))
