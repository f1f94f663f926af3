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

A panel may also be swizzled by one of Blackwell's 128-byte modes of wider atoms (``mode``:
``Panels<128B_ATOM_32B>``, ``Panels<128B_ATOM_32B_FLIP_8B>``, ``Panels<128B_ATOM_64B>``; their
byte maps in tma_modes.py): what ``--check 128B_ATOM_32B`` names on rows wider than 128 bytes.
Those are checked and emitted (--emit tma on a target whose TMA has the mode), never searched: the
search's panels are the 16-byte-atom ones, which every TMA has.
"""
from __future__ import annotations

import re

from ..layout import LATER, Family, LayoutBase, const, integer, step_schema
from ..model import Tile, is_pow2, log2
from ..tma_modes import MODES, TmaMode
from ..value import Value
from .cute import Swizzle
from .identity import nbits

WIDTHS = (32, 64, 128)  # bytes of a panel's row: the TMA swizzle modes
ATOM_ROWS = 8  # rows of a swizzle atom (its period: 8 rows of W bytes)
WIDE_ATOMS = tuple(name for name, mode in MODES.items() if not mode.classic)  # Blackwell's modes, 128-byte panels


class ColumnPanels(Value, LayoutBase):
    width: int  # bytes of a panel's row, one of WIDTHS
    mode: str = ""  # a Blackwell mode of WIDE_ATOMS (128-byte panels); "": the W-byte mode of 16-byte atoms
    family = "column-panels"

    @property
    def tma(self) -> TmaMode:
        """The TMA swizzle mode of each panel."""
        return MODES[self.mode or f"{self.width}B"]

    @property
    def name(self) -> str:
        return f"Panels<{self.tma.name}>"

    @property
    def order(self) -> tuple:
        return (self.width, self.mode)

    def panel_cols(self, tile: Tile) -> int:
        """w: the columns of one panel."""
        return self.width // tile.elem_bytes

    def atom(self, tile: Tile) -> Swizzle:
        """The element-level swizzle of one panel (the W-byte TMA mode on this element size); for a
        mode of two swizzles (FLIP_8B), the first (``atom_steps`` gives both)."""
        return Swizzle(*self.atom_steps(tile)[0])

    def atom_steps(self, tile: Tile) -> tuple[tuple[int, int, int], ...]:
        """The element-level swizzles (B, M, S) of one panel, applied in turn."""
        steps = self.tma.element_swizzles(tile.elem_bytes)
        assert steps is not None, (self.name, tile.elem_bytes)  # invalid() says why first
        return steps

    def atom_apply(self, tile: Tile, p):
        for step in self.atom_steps(tile):
            p = Swizzle(*step).apply(p)
        return p

    def phys(self, tile: Tile, r, c):
        w = self.panel_cols(tile)
        return (c // w) * (tile.rows * w) + self.atom_apply(tile, r * w + c % w)

    def invalid(self, tile: Tile) -> str | None:
        if self.width not in WIDTHS:
            return f"a panel is 32, 64 or 128 bytes wide, not {self.width}"
        if self.mode and (self.mode not in WIDE_ATOMS or self.width != 128):
            return f"{self.mode} is not a 128-byte TMA mode of wide atoms ({', '.join(WIDE_ATOMS)})"
        if tile.elem_bytes > 16 or self.width % tile.elem_bytes:
            return f"{tile.elem_bytes}-byte elements do not fill a {self.width}-byte panel row"
        if self.tma.element_swizzles(tile.elem_bytes) is None:
            piece = 1 << min(m for _, m, _ in self.tma.swizzles)
            return f"{self.tma.name} moves {piece}-byte pieces, smaller than a {tile.elem_bytes}-byte element"
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
            return [int(self.atom_apply(tile, 1 << i)) for i in range(nbits(tile))] if tile.pitch_is_pow2 else None
        if not (is_pow2(tile.rows) and is_pow2(tile.cols)):
            return None
        return [int(self.phys(tile, (1 << i) // tile.cols, (1 << i) % tile.cols)) for i in range(nbits(tile))]

    def _atom_c(self, tile: Tile, p: str) -> str:
        for i, step in enumerate(self.atom_steps(tile)):
            p = Swizzle(*step).c_xor(p if i == 0 else f"({p})")
        return p

    def expression(self, tile: Tile) -> str:
        w = self.panel_cols(tile)
        if self.one_panel(tile):  # c < w: panel 0, column c (the atom's own expression)
            return self._atom_c(tile, f"(r * {w} + c)")
        q = f"(r * {w} + (c & {w - 1}))"
        return f"(c >> {log2(w)}) * {tile.rows * w} + ({self._atom_c(tile, q)})"

    def atom_name(self, tile: Tile, elem_bytes: int | None = None) -> str:
        """The atom's swizzles by name, on elements (or on bytes: ``elem_bytes`` = 1)."""
        steps = self.atom_steps(tile) if elem_bytes is None else self.tma.swizzles
        return " then ".join(Swizzle(*step).name for step in steps)

    def swizzles(self) -> list[dict]:
        # element-level M depends on the element size: the byte-level atom is given (unit "byte")
        return [{"B": b, "M": m, "S": s, "unit": "byte", "applies_to": "panel"} for b, m, s in self.tma.swizzles]

    def json_extras(self, tile: Tile) -> dict:
        w, atom = self.panel_cols(tile), self.atom(tile)
        # one panel is the atom itself: the answer's cute and byte_cute say so, as for that swizzle
        single = len(self.tma.swizzles) == 1
        same = ({"cute": atom.name, "byte_cute": atom.byte_level(tile.elem_bytes).name}
                if self.one_panel(tile) and single else {})
        return {**same, "panels": {"width_bytes": self.width, "panel_cols": w, "count": tile.cols // w,
                                   "panel_elements": tile.rows * w, "atom": self.atom_name(tile),
                                   "byte_atom": self.atom_name(tile, 1), "tma_mode": self.tma.name}}


def candidates(tile: Tile, vector_elems: int) -> list[ColumnPanels]:
    """Two or more panels: one panel is its atom, a cute member the search has already measured."""
    return [ColumnPanels(w) for w in WIDTHS if tile.cols != ColumnPanels(w).panel_cols(tile)]


def bounds(tile: Tile, vector_elems: int) -> str:
    return "panel widths 32, 64 and 128 bytes"


_NAME = r"(?i)panels\s*<\s*(\d{1,4})\s*b((?:_atom_\d{1,3}b)?(?:_flip_8b)?)\s*>"


def parse(text: str) -> ColumnPanels | None:
    m = re.fullmatch(_NAME, text)
    if not m:
        return None
    if int(m[1]) not in WIDTHS:
        raise ValueError("a panel is 32, 64 or 128 bytes wide (the TMA swizzle modes)")
    mode = f"{m[1]}B{m[2]}".upper() if m[2] else ""
    if mode and mode not in WIDE_ATOMS:
        raise ValueError(f"the 128-byte modes of wide atoms are {', '.join(WIDE_ATOMS)}")
    return ColumnPanels(int(m[1]), mode)


def _code_rows(answer: dict, problem: dict) -> list[tuple[str, str]]:
    p = answer["panels"]
    mode = p["tma_mode"]
    # --order col: the panels are of the stored tile, whose rows are the tile's columns
    cols, rows = ("rows", "columns") if problem.get("order") == "col" else ("columns", "rows")
    if p["count"] == 1:  # the CuTe and bytes rows that follow name the swizzle and its TMA mode
        return [("panels", f"one panel of {p['panel_cols']} {cols} ({p['width_bytes']} B {rows}): the "
                           f"{mode} TMA swizzle mode itself, {p['atom']} on element offsets")]
    return [("panels", f"{p['count']} panels of {p['panel_cols']} {cols} ({p['width_bytes']} B {rows}), each "
                       f"{p['atom']} on element offsets ({p['byte_atom']} on bytes): the {mode} TMA "
                       f"swizzle mode, one box per panel")]


STEP_SCHEMA = step_schema("column-panels: a byte-level TMA atom swizzle applied inside each panel (Swizzle<B,4,3> "
                          "for 32B, 64B, 128B; Blackwell's 128B_ATOM_* modes: Swizzle<2,5,2>, then Swizzle<1,3,4> "
                          "for FLIP_8B, or Swizzle<1,6,1>)",
                          B=integer(1, "XOR bits: 1, 2, 3 for 32B, 64B, 128B"), M=integer(3, "base"),
                          S=integer(1, "shift"), unit=const("byte"), applies_to=const("panel"))

FAMILY_RECORD = Family(
    name=ColumnPanels.family, rank=7, stage=LATER, layout=ColumnPanels, parse=parse,
    printed=r"Panels<(32|64|128)B(_ATOM_32B|_ATOM_32B_FLIP_8B|_ATOM_64B)?>",
    syntax="'Panels<128B>'", candidates=candidates, bounds=bounds, engine="enum", code_rows=_code_rows,
    step_schema=(STEP_SCHEMA,))
