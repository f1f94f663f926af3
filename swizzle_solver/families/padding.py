"""`padding`: another pitch (row_length >= cols), alone or with a layout of the tile on rows that far apart.

    phys = inner.phys(tile with row_length = pitch, r, c)

The inner layout is a member of any other family (none, cute, xor-cols, two-level, linear, row
interleave; column panels only at pitch = cols, the dense tile they store), on the tile whose rows
are ``pitch`` apart. A pitch above the given row length costs rows * (pitch - row_length) more
elements of shared memory; one below it saves them (the padding a kernel gave, dropped). The
solve tries the pitches below the given row length in every family, and those above it with no
swizzle or one cute / xor-cols swizzle (docs/families.md). Pitches keep every vector aligned (pitch
* elem_bytes a multiple of the widest vector, or of its largest power-of-two factor: a 12-byte b96
lane is dword-aligned).

Order inside the family: smaller pitch (less memory), then the inner layout's family and order.
"""
from __future__ import annotations

import re

from ..layout import LATER, MAX_ROWS, Family, Layout, LayoutBase, in_range
from ..model import MAX_STORAGE_BYTES, Tile
from ..value import Value, replace
from . import FAMILY_RANK, forms, parse_name, record
from .cute import Swizzle
from .identity import Identity


class Padded(Value, LayoutBase):
    pitch: int
    inner: Layout  # a layout of any other family, on the tile with rows ``pitch`` apart
    family = "padding"

    @property
    def name(self) -> str:
        inner = "" if record(self.inner.family).baseline else f" + {self.inner.name}"
        return f"pitch {self.pitch}{inner}"

    @property
    def order(self) -> tuple:
        return (self.pitch, FAMILY_RANK[self.inner.family], self.inner.order)

    def padded(self, tile: Tile) -> Tile:
        return replace(tile, row_length=self.pitch)

    def storage(self, tile: Tile) -> int:
        """Elements of storage the layout needs (rows * pitch: more than the given row length's, or less)."""
        return tile.rows * self.pitch

    def extra_bytes(self, tile: Tile) -> int:
        """Shared memory beyond the dense rows x cols tile."""
        return tile.rows * (self.pitch - tile.cols) * tile.elem_bytes

    def phys(self, tile: Tile, r, c):
        return self.inner.phys(self.padded(tile), r, c)

    def invalid(self, tile: Tile) -> str | None:
        if self.pitch < tile.cols:
            return f"pitch {self.pitch} is below the {tile.cols} columns of a row"
        if self.inner.family == self.family:
            return "a padded pitch holds one layout, not another pitch"
        if tile.rows * self.pitch * tile.elem_bytes > MAX_STORAGE_BYTES:
            return f"pitch {self.pitch} needs more than the {MAX_STORAGE_BYTES // 1024} KiB storage limit"
        return self.inner.invalid_padded(tile, self.pitch)

    # bases: None (LayoutBase): the pitch differs from the problem's, measured by the simulator

    def padded_form(self, tile: Tile) -> tuple[int, Layout]:
        return self.pitch, self.inner

    def swizzle(self, tile: Tile) -> Swizzle | None:
        """The CuTe swizzle of the padded offset r * pitch + c that this layout is, if one is."""
        return forms.as_swizzle(self.padded(tile), self.inner)

    def expression(self, tile: Tile) -> str | None:
        return self.inner.expression(self.padded(tile))

    def swizzles(self) -> list[dict]:
        return self.inner.swizzles()

    def json_extras(self, tile: Tile) -> dict:
        found = self.swizzle(tile)
        padded = self.padded(tile)
        return {"padding": {"row_length": self.pitch, "extra_bytes": self.extra_bytes(tile),
                            "storage_bytes": self.storage(tile) * tile.elem_bytes,
                            "cute": found.name if found else None,
                            # the inner layout's own entry on the padded tile (its family's JSON extras)
                            "inner": {"family": self.inner.family, "name": self.inner.name,
                                      **self.inner.json_extras(padded)}}}


def pitches(tile: Tile, vector_bytes: int, wavefront_bytes: int) -> list[int]:
    """Every pitch from cols up to one full wavefront of residues above the given row length (the
    banks of a padded row start depend only on pitch * elem_bytes mod the wavefront, so larger
    pitches repeat these), except the given row length itself (that is the unpadded search)."""
    span = max(1, wavefront_bytes // tile.elem_bytes)
    return [p for p in range(tile.cols, tile.row_length + span + 1)
            if p != tile.row_length and (p * tile.elem_bytes) % (vector_bytes & -vector_bytes) == 0]


_NAME = r"(?i)pitch\s+(\d{1,18})(?:\s*\+\s*(.+))?"


def parse(text: str) -> Padded | None:
    """pitch N, or pitch N + <a layout of any other family>."""
    m = re.fullmatch(_NAME, text)
    if not m:
        return None
    in_range(MAX_ROWS, pitch=int(m[1]))
    if m[2] is not None and re.match(r"(?i)\s*pitch\b", m[2]):  # never recurse on a pitch inside a pitch
        raise ValueError("a padded pitch takes one layout inside, not another pitch")
    return Padded(int(m[1]), Identity() if m[2] is None else parse_name(m[2]))


def _code_rows(answer: dict, problem: dict) -> list[tuple[str, str]]:
    pad = answer["padding"]
    col = problem.get("order") == "col"  # --order col: the pitch is a column's length, the layout M-major
    rows = [("memory", f"{'column' if col else 'row'} length {pad['row_length']}: {pad['extra_bytes']} extra bytes "
                       f"of shared memory")]
    if pad["cute"]:
        stride = f"(1,{pad['row_length']})" if col else f"({pad['row_length']},1)"
        rows.append(("CuTe", f"composition({pad['cute']}, ({problem['rows']},{problem['cols']}):{stride})  "
                             f"(the swizzle of the padded offset)"))
        return rows
    inner = record(pad["inner"]["family"])
    if not inner.baseline:  # the inner layout's own lines, on the padded tile (two-level's C steps, ...)
        rows += inner.code_rows(pad["inner"], {**problem, "row_length": pad["row_length"]})
    return rows


FAMILY_RECORD = Family(
    name=Padded.family, rank=6, stage=LATER, layout=Padded, parse=parse, printed=r"pitch\d+(\+.+)?",
    syntax="'pitch 72 + <layout>'", engine="pitch", code_rows=_code_rows,
    note=lambda answer: (f" (padding: {answer['padding']['extra_bytes']} extra bytes; no swizzle of the given "
                         f"pitch works)"))
