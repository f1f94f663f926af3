"""`padding`: another pitch (row_length >= cols), alone or with a swizzle on the padded tile.

    phys = inner.phys(tile with row_length = pitch, r, c)

It costs rows * (pitch - cols) elements of shared memory, so it is ranked last and shown as
an alternative the user chooses knowingly; the search reports the smallest pitch that needs no
swizzle and the smallest pitch that works with a swizzle (cute or xor-cols) on the padded tile.
Pitches keep every vector aligned (pitch * elem_bytes a multiple of the widest vector, or of its
largest power-of-two factor: a 12-byte b96 lane is dword-aligned).

Order inside the family: smaller pitch (less memory), then the inner layout's family and order.
"""
from __future__ import annotations

import re

from ..layout import EVERY_SOLVE, LATER, MAX_ROWS, Family, Layout, LayoutBase, in_range
from ..model import MAX_STORAGE_BYTES, Tile
from ..value import Value, replace
from . import FAMILY_RANK, forms, parse_name, record
from .cute import Swizzle
from .identity import Identity


class Padded(Value, LayoutBase):
    pitch: int
    inner: Layout  # a layout of a family searched on every solve (none / cute / xor-cols), on the padded tile
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
        """Elements of storage the layout needs (more than the tile's own)."""
        return tile.rows * self.pitch

    def extra_bytes(self, tile: Tile) -> int:
        """Shared memory beyond the dense rows x cols tile."""
        return tile.rows * (self.pitch - tile.cols) * tile.elem_bytes

    def phys(self, tile: Tile, r, c):
        return self.inner.phys(self.padded(tile), r, c)

    def invalid(self, tile: Tile) -> str | None:
        if self.pitch < tile.cols:
            return f"pitch {self.pitch} is below the {tile.cols} columns of a row"
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
        return {"padding": {"row_length": self.pitch, "extra_bytes": self.extra_bytes(tile),
                            "storage_bytes": self.storage(tile) * tile.elem_bytes,
                            "cute": found.name if found else None}}


def pitches(tile: Tile, vector_bytes: int, wavefront_bytes: int) -> list[int]:
    """Every pitch from cols up to one full wavefront of residues above the given row length (the
    banks of a padded row start depend only on pitch * elem_bytes mod the wavefront, so larger
    pitches repeat these), except the given row length itself (that is the unpadded search)."""
    span = max(1, wavefront_bytes // tile.elem_bytes)
    return [p for p in range(tile.cols, tile.row_length + span + 1)
            if p != tile.row_length and (p * tile.elem_bytes) % (vector_bytes & -vector_bytes) == 0]


_NAME = r"(?i)pitch\s+(\d{1,18})(?:\s*\+\s*(.+))?"


def parse(text: str) -> Padded | None:
    """pitch N, or pitch N + <a layout of a family searched on every solve>."""
    m = re.fullmatch(_NAME, text)
    if not m:
        return None
    in_range(MAX_ROWS, pitch=int(m[1]))
    if m[2] is not None and re.fullmatch(_NAME, m[2].strip()):  # refused below anyway: never recurse on it
        raise ValueError("a padded pitch takes none, a Swizzle or an XorCols inside")
    inner = Identity() if m[2] is None else parse_name(m[2])
    if record(inner.family).stage != EVERY_SOLVE:
        raise ValueError("a padded pitch takes none, a Swizzle or an XorCols inside")
    return Padded(int(m[1]), inner)


def _code_rows(answer: dict, problem: dict) -> list[tuple[str, str]]:
    pad = answer["padding"]
    rows = [("memory", f"row length {pad['row_length']}: {pad['extra_bytes']} extra bytes of shared memory")]
    if pad["cute"]:
        rows.append(("CuTe", f"composition({pad['cute']}, ({problem['rows']},{problem['cols']}):({pad['row_length']},1))  "
                             f"(the swizzle of the padded offset)"))
    return rows


FAMILY_RECORD = Family(
    name=Padded.family, rank=6, stage=LATER, layout=Padded, parse=parse, printed=r"pitch\d+(\+.+)?",
    syntax="'pitch 72 + <layout>'", engine="pitch", code_rows=_code_rows,
    note=lambda answer: (f" (padding: {answer['padding']['extra_bytes']} extra bytes; no swizzle of the given "
                         f"pitch works)"))
