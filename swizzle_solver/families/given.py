"""`given`: a layout the user wrote in the kernel's own notation (``--check expr:...``, ``bytes:``,
``cute:``, ``triton:``, ``table:FILE``; DESIGN.md section 10), never searched.

Every notation (swizzle_solver/notation/) reads its text into a ``Source``: how to make the table of
element offsets phys[r, c] over a tile, and where it can, the expression tree (notation/expr.py)
that the table is the value of, which gives the C ``expression``. The layout is that table; the
one soundness check (soundness.py) decides whether a kernel can use it:

- the notation's own reason first (a byte offset that is not a multiple of the element, a Triton
  linear layout that is not a bijection), then a negative offset, one beyond the modelled shared
  memory, two elements on one offset (the first such pair), and a vector split;
- the storage is the footprint: the largest offset + 1 (padding included: ``r * 72 + c`` on a
  64-column tile needs 72 elements a row but the last row's spare ones).

A notation that is undefined on the tile (a C division by zero, a CuTe layout of another shape, a
table file of another size) is bad input (model.InputError, exit 2), raised when the table is first
made: a map that does not exist cannot be measured.

The name is the user's text as given (``expr: r * 72 + c``). Its family record is not in the
search's registry (``families.records``): ``families.record("given")`` finds it for the report's
presentation only.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Protocol

import numpy as np

from ..layout import Family, LayoutBase
from ..model import MAX_STORAGE_BYTES, InputError, Tile, is_pow2, log2
from ..value import Value
from .identity import nbits

FAMILY = "given"
HUGE = 1 << 40  # an offset this large is no shared-memory offset (and words * bytes stays in int64)


class Source(Protocol):
    """What a notation reads: ``notation`` ("expr", "bytes", "cute", "triton", "table"),
    ``unit`` ("element" or "byte": what its offsets count), ``as_written``, and
    ``evaluate(tile) -> (offsets, node, invalid)``: the offsets of every element (an int64 array of
    the tile's shape, in ``unit``), the expression tree they are the value of (or None: a table, or
    a notation whose tree has no C form), and the notation's own reason the layout is not usable
    (or None). Raises model.InputError when the layout is undefined on the tile."""

    notation: str
    unit: str
    as_written: bool  # its tree is the user's own expression (expr:, bytes:): the C expression keeps its form

    def evaluate(self, tile: Tile) -> tuple[np.ndarray, object, str | None]: ...


class Evaluated(Value, eq=False):
    table: np.ndarray  # element offsets, (rows, cols), read-only
    invalid: str | None
    storage: int
    bases: list[int] | None
    expression: str | None
    no_expression: str | None  # why there is no C expression, when there is none


class Given(Value, LayoutBase, eq=False):
    text: str  # the name: the user's text as given (its notation prefix included)
    source: Source
    family = FAMILY
    order = ()

    @property
    def name(self) -> str:
        return self.text

    @property
    def notation(self) -> str:
        return self.source.notation

    def evaluated(self, tile: Tile) -> Evaluated:
        return _evaluated(self, tile)

    def phys(self, tile: Tile, r, c):
        return self.evaluated(tile).table[r, c]

    def invalid(self, tile: Tile) -> str | None:
        return self.evaluated(tile).invalid

    def bases(self, tile: Tile) -> list[int] | None:
        return self.evaluated(tile).bases

    def storage(self, tile: Tile) -> int:
        return self.evaluated(tile).storage

    def expression(self, tile: Tile) -> str | None:
        """The C expression, or None when the layout has none (a table lookup): the JSON's null."""
        return self.evaluated(tile).expression

    def swizzles(self) -> list[dict]:
        return []

    def json_extras(self, tile: Tile) -> dict:
        from . import forms

        done = self.evaluated(tile)
        sw = forms.as_swizzle(tile, self) if done.invalid is None else None
        same = {"cute": sw.name, "byte_cute": sw.byte_level(tile.elem_bytes).name} if sw is not None else {}
        return {**same, "given": {"notation": self.notation, "text": self.text, "unit": self.source.unit,
                                  "expression_unavailable": done.no_expression}}


@lru_cache(maxsize=32)
def _evaluated(layout: Given, tile: Tile) -> Evaluated:
    from ..notation.expr import NotationError

    try:
        offsets, node, own = _evaluate(layout.source, tile)
    except NotationError as err:  # undefined on this tile (a division by zero, another shape): bad input
        raise InputError(str(err)) from None
    offsets = np.ascontiguousarray(np.broadcast_to(np.asarray(offsets, dtype=np.int64), (tile.rows, tile.cols)))
    if np.abs(offsets).max(initial=0) >= HUGE:
        i = np.unravel_index(int(np.argmax(np.abs(offsets) >= HUGE)), offsets.shape)
        raise InputError(f"element {tuple(map(int, i))} is at offset {int(offsets[i])}: no shared-memory offset is "
                         f"that large")
    table, invalid = offsets, own
    if layout.source.unit == "byte":
        table = offsets // tile.elem_bytes
    table.setflags(write=False)
    invalid = invalid or _range_invalid(tile, table)
    storage = max(1, int(table.max(initial=0)) + 1)
    bases = _bases(tile, table) if invalid is None else None
    expression, missing = _expression(tile, layout, node, bases)
    return Evaluated(table, invalid, storage, bases, expression, missing)


def _evaluate(source: Source, tile: Tile) -> tuple[np.ndarray, object, str | None]:
    """The source's offsets over the stored tile. Under --order col (a stored transpose, model.Tile) a
    notation of the user's (r, c) is evaluated on the user's tile and its table transposed; its tree
    stays in the user's (r, c) (``_expression`` names it in the stored tile's). A form of the stored
    offset itself (``storage_level``: bytes:Swizzle<B,M,S>, the swizzle of the stored byte offset)
    is evaluated on the stored tile as it is."""
    if not tile.col_major or getattr(source, "storage_level", False):
        return source.evaluate(tile)
    rows, cols = tile.logical_shape
    offsets, node, own = source.evaluate(Tile(rows, cols, cols, tile.elem_bytes))
    offsets = np.broadcast_to(np.asarray(offsets, dtype=np.int64), (rows, cols)).T
    return offsets, node, own


def _range_invalid(tile: Tile, table: np.ndarray) -> str | None:
    """A negative offset, or one past the shared memory the tool models."""
    low = int(table.min(initial=0))
    if low < 0:
        r, c = tile.logical(*map(int, np.unravel_index(int(np.argmin(table)), table.shape)))
        return f"element ({r}, {c}) is at offset {low}: offsets start at 0"
    top = int(table.max(initial=0))
    if (top + 1) * tile.elem_bytes > MAX_STORAGE_BYTES:
        r, c = tile.logical(*map(int, np.unravel_index(int(np.argmax(table)), table.shape)))
        return (f"element ({r}, {c}) is at offset {top}: the layout needs {(top + 1) * tile.elem_bytes} bytes, above "
                f"the {MAX_STORAGE_BYTES // 1024} KiB the tool models")
    return None


def _bases(tile: Tile, table: np.ndarray) -> list[int] | None:
    """The layout's GF(2) bases (layout.Layout.bases) when its table is linear on the offset bits:
    a power-of-two pitch with no padding columns (every offset bit below the tile is an element),
    and phys(p) the XOR of the bases of p's set bits for every element."""
    if not (tile.pitch_is_pow2 and tile.row_length == tile.cols):
        return None
    bits = nbits(tile)
    flat = table.ravel()
    bases = [int(flat[1 << i]) for i in range(bits)]
    if int(flat[0]) != 0:
        return None
    p = np.arange(flat.size, dtype=np.int64)
    span = np.zeros_like(p)
    for i, b in enumerate(bases):
        span ^= np.where((p >> i) & 1, b, 0)
    return bases if np.array_equal(span, flat) else None


def _expression(tile: Tile, layout: Given, node, bases: list[int] | None) -> tuple[str | None, str | None]:
    """(C expression, None) or (None, why there is none)."""
    from ..notation.expr import c_text, shr

    if node is not None:
        if layout.source.unit == "byte":
            if not is_pow2(tile.elem_bytes):
                return None, f"the byte offset is divided by {tile.elem_bytes}, which is not a power of two"
            node = shr(node, log2(tile.elem_bytes)) if tile.elem_bytes > 1 else node
        user = tile.col_major and not getattr(layout.source, "storage_level", False)
        rows, cols = tile.logical_shape if user else (tile.rows, tile.cols)
        r, c = np.arange(rows, dtype=np.int64)[:, None], np.arange(cols, dtype=np.int64)[None, :]
        text = c_text(node, r, c)
        if text is not None and user:  # the user's (r, c) in the stored tile's names (orient.py swaps back)
            from ..orient import swap_rc

            text = swap_rc(text)
        if text is not None:  # expr:/bytes: as written (normalised); a CuTe or Triton tree, or its bases' XOR form if shorter
            if bases is None or layout.source.as_written:
                return text, None
            return min(text, xor_expression(tile, bases), key=len), None
    if bases is not None:
        return xor_expression(tile, bases), None
    if node is not None:
        return None, ("it divides by a value that is not a constant, or by a constant no multiply and shift "
                      "replaces exactly in C's int")
    return None, "the offsets are a table with no closed form here (not GF(2)-linear on the offset bits)"


def xor_expression(tile: Tile, bases: list[int]) -> str:
    """phys(p) as p XOR its moved bits, p = r * row_length + c: for bases whose every bit maps to
    itself plus lower bits, grouped by distance ((p >> d) & mask); else one term per moved bit."""
    from .forms import xor_steps

    p = f"(r * {tile.row_length} + c)"
    moved = [(i, b ^ (1 << i)) for i, b in enumerate(bases) if b != 1 << i]
    if not moved:
        return f"r * {tile.row_length} + c"
    if all(d < 1 << i for i, d in moved):
        return p + "".join(f" ^ (({p} >> {d}) & {mask})" for d, mask in xor_steps(bases))
    return p + "".join(f" ^ ((({p} >> {i}) & 1) * {d})" for i, d in moved)


def _code_rows(answer: dict, problem: dict) -> list[tuple[str, str]]:
    given = answer["given"]
    from ..notation import what as notation_what

    what = notation_what(given["notation"])
    rows = [("given", f"{given['text']}  ({what}, checked as written)")]
    if answer["expression"] is None:
        rows.append(("C", f"no closed form: {given['expression_unavailable']}; --emit cuda gives the table"))
    return rows


FAMILY_RECORD = Family(
    name=FAMILY, rank=99, stage="never", layout=Given, parse=lambda text: None, printed=r"(?!)",
    syntax="'expr: r * 64 + c' (or bytes:, cute:, triton:, table:FILE)", code_rows=_code_rows)
