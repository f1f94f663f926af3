"""Layouts in the kernel's own notation (DESIGN.md section 10), for ``--check``, the API's
``check`` and batch's ``check =``: each prefix is one small parser that reads the text into a
``families.given.Source`` (the layout's table over a tile, and its expression tree where it has
one); the layout is a ``families.given.Given``, checked as written.

==================  ============================================================================
``expr: E``         element offset of element (r, c), C syntax (notation/expr.py)
``bytes: E``        byte offset of element (r, c), same grammar; ``bytes:Swizzle<B,M,S>`` is a
                    CuTe swizzle of byte offsets (the TMA / GMMA form)
``cute: L``         a CuTe C++ layout of (row, col) (notation/cute.py)
``triton: A``       a Triton shared encoding, MLIR attribute or Gluon constructor (notation/triton.py)
``table:FILE``      element offsets, one per (r, c): .npy, .csv or a JSON list of rows (notation/table.py)
==================  ============================================================================

Also recipes under the words users type: ``128B``, ``64B``, ``32B`` and Blackwell's
``128B_ATOM_32B``, ``128B_ATOM_32B_FLIP_8B``, ``128B_ATOM_64B`` (with or without cuda.h's
``CU_TENSOR_MAP_SWIZZLE_`` prefix) are the TMA swizzle mode's layout for the tile (tma_modes.py;
families/panels.py: the mode's atom, or column panels of it when rows are wider than the mode's
span), named as the tool names that layout.

Nothing here calls Python's ``eval``; every parser is linear in its input and bounded in depth.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from ..layout import Layout
from ..model import InputError, Tile
from ..tma_modes import NAME_PATTERN
from ..value import Value
from . import expr
from .expr import NotationError

PREFIXES = ("expr", "bytes", "cute", "triton", "table")
_PREFIX = r"(?is)\s*(expr|bytes|cute|triton|table)\s*:(.*)"
_RECIPE = r"(?i)\s*(32|64|128)\s*b\s*"
_MODE = NAME_PATTERN  # a TMA mode by its cuda.h name: 128B_ATOM_32B, CU_TENSOR_MAP_SWIZZLE_64B, ...
_BYTE_SWIZZLE = r"(?as)\s*(?:cute::)?Swizzle\s*<\s*(-?\d{1,3})\s*,\s*(-?\d{1,3})\s*,\s*(-?\d{1,3})\s*>\s*(?:\{\s*\})?\s*"


def is_notation(text: str) -> bool:
    """Text that names a layout in a notation or a recipe (not a family's name)."""
    return bool(re.match(r"(?i)\s*(expr|bytes|cute|triton|table)\s*:", text) or re.fullmatch(_RECIPE, text)
                or re.fullmatch(_MODE, text))


def parse_notation(text: str, tile: Tile | None = None, base: Path | None = None,
                   allow_outside: bool = True) -> Layout:
    """The layout ``text`` names (``is_notation``). ``tile``: the problem's (a recipe needs it; a
    notation is then evaluated at once, so that a layout undefined on the tile is bad input here);
    ``base``: the folder ``table:`` paths are read from (default the working directory), and without
    ``allow_outside`` nothing outside it. NotationError (syntax, with its column) or InputError."""
    recipe = re.fullmatch(_RECIPE, text)
    if recipe:
        return tma_recipe(f"{recipe[1]}B", tile)
    mode = re.fullmatch(_MODE, text)
    if mode:
        return tma_recipe(mode[1].upper(), tile)
    m = re.match(_PREFIX, text)
    assert m, text
    try:
        return _parse(m[1].lower(), m[2], text, base, allow_outside)
    except NotationError as err:  # columns count in the whole text given, its prefix included
        raise err.shifted(m.start(2)) from None


def _parse(notation: str, body: str, text: str, base: Path | None, allow_outside: bool) -> Layout:
    if notation in ("expr", "bytes"):
        sw = re.fullmatch(_BYTE_SWIZZLE, body) if notation == "bytes" else None
        source: object = ByteSwizzle(*map(int, sw.groups())) if sw else Expression(notation, expr.parse(body))
    elif notation == "cute":
        from .cute import parse as parse_cute

        source = parse_cute(body)
    elif notation == "triton":
        from .triton import parse as parse_triton

        source = parse_triton(body)
    else:
        from .table import load

        source = load(body.strip(), base, allow_outside)
    from ..families.given import Given

    return Given(text.strip(), source)  # type: ignore[arg-type]  # (each source is a given.Source)


class Expression(Value):
    """``expr:`` (element offsets) or ``bytes:`` (byte offsets): one expression tree."""

    notation: str
    node: tuple
    as_written = True

    @property
    def unit(self) -> str:
        return "byte" if self.notation == "bytes" else "element"

    def evaluate(self, tile: Tile) -> tuple[np.ndarray, object, str | None]:
        r, c = coordinates(tile)
        values = expr.evaluate(self.node, r, c)
        return values, self.node, misaligned(tile, values) if self.unit == "byte" else None


class ByteSwizzle(Value):
    """``bytes:Swizzle<B,M,S>``: CuTe's swizzle of the byte offset (r * row_length + c) * elem_bytes,
    as TMA and GMMA apply it; on elements it is Swizzle<B, M - log2(elem_bytes), S> when M is at
    least log2(elem_bytes), else it moves bytes inside elements (not usable)."""

    B: int
    M: int
    S: int
    notation = "bytes"
    unit = "byte"
    as_written = False
    storage_level = True  # a swizzle of the stored offset: under --order col, c * row_length + r (families/given.py)

    def __post_init__(self):
        if self.B < 0 or self.M < 0 or abs(self.S) < self.B or max(self.B, self.M, abs(self.S)) > 31:
            raise NotationError(f"Swizzle<{self.B},{self.M},{self.S}> is not a CuTe swizzle (CuTe needs B >= 0, "
                                f"M >= 0 and |S| >= B; bits above 31 are no shared-memory offset)")

    def evaluate(self, tile: Tile) -> tuple[np.ndarray, object, str | None]:
        node = expr.swizzle_node(expr.mul(expr.linear((expr.R, tile.row_length), (expr.C, 1)), expr.num(tile.elem_bytes))
                            if tile.elem_bytes > 1 else expr.linear((expr.R, tile.row_length), (expr.C, 1)),
                            self.B, self.M, self.S)
        r, c = coordinates(tile)
        values = expr.evaluate(node, r, c)
        return values, node, misaligned(tile, values)


def coordinates(tile: Tile) -> tuple[np.ndarray, np.ndarray]:
    """r (a column of rows) and c (a row of columns), int64, broadcasting to the tile."""
    return np.arange(tile.rows, dtype=np.int64)[:, None], np.arange(tile.cols, dtype=np.int64)[None, :]


def misaligned(tile: Tile, byte_offsets: np.ndarray) -> str | None:
    """A byte offset that is not a multiple of the element size: the element would straddle two."""
    e = tile.elem_bytes
    bad = np.broadcast_to(np.asarray(byte_offsets) % e != 0, (tile.rows, tile.cols))
    if not bad.any():
        return None
    r, c = np.unravel_index(int(np.argmax(bad)), bad.shape)
    value = int(np.broadcast_to(byte_offsets, bad.shape)[r, c])
    return f"element ({r}, {c}) is at byte {value}, not a multiple of its {e} bytes (it would straddle two elements)"


def tma_recipe(name: str, tile: Tile | None) -> Layout:
    """``128B`` (``64B``, ``32B``, ``128B_ATOM_32B``, ...): the layout TMA's swizzle mode of that name
    gives the tile (tma_modes.py). Rows of at most the mode's span: its byte map in element form
    (TMA writes the box densely and swizzles its byte addresses): one CuTe swizzle, or two in turn
    for 128B_ATOM_32B_FLIP_8B; wider rows: column panels of the span (Panels<128B>), one box per
    panel; padded rows: Panels too, which says that TMA stores the dense tile."""
    if tile is None:
        raise InputError(f"{name} names the {name} TMA swizzle mode's layout of a tile: give the tile's "
                         f"--rows, --cols and --dtype")
    from ..families.panels import ColumnPanels
    from ..tma_modes import MODES

    mode, e = MODES[name], tile.elem_bytes
    steps = mode.element_swizzles(e)
    if steps is None:
        piece = 1 << min(m for _, m, _ in mode.swizzles)
        raise InputError(f"{name} moves {piece}-byte pieces of a row, smaller than the tile's {e}-byte elements: "
                         f"it swizzles elements of at most {piece} bytes")
    if tile.row_length != tile.cols or tile.cols * e > mode.span:
        return ColumnPanels(mode.span, "" if mode.classic else name)
    from ..families.cute import Swizzle

    if len(steps) == 1:
        return Swizzle(*steps[0])  # (elements are 1 to 16 bytes, powers of two)
    from ..families.two_level import TwoLevel

    return TwoLevel(Swizzle(*steps[0]), Swizzle(*steps[1]))


def shown(text: str, limit: int = 80) -> str:
    """A layout's text in a message: the start of a long one."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


__all__ = ["PREFIXES", "NotationError", "is_notation", "parse_notation", "shown"]
