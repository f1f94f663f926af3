"""`padding`: another pitch (row_length >= cols), alone or with a swizzle on the padded tile.

    phys = inner.phys(tile with row_length = pitch, r, c)

It costs rows * (pitch - cols) elements of shared memory, so it is ranked last and shown as
an alternative the user chooses knowingly; the search reports the smallest pitch that needs no
swizzle and the smallest pitch that works with a swizzle (cute or xor-cols) on the padded tile.
Pitches keep every vector aligned (pitch * elem_bytes a multiple of the widest vector).

Order inside the family: smaller pitch (less memory), then the inner layout's family and order.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from ..model import MAX_STORAGE_BYTES, Tile

FAMILY = "padding"


@dataclass(frozen=True)
class Padded:
    pitch: int
    inner: object  # a none / cute / xor-cols layout on the padded tile
    family = FAMILY

    @property
    def name(self) -> str:
        inner = "" if self.inner.family == "none" else f" + {self.inner.name}"
        return f"pitch {self.pitch}{inner}"

    @property
    def order(self) -> tuple:
        from . import FAMILY_RANK
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
        if self.inner.family == "xor-cols":  # a padded row's spare columns are storage too: XOR may use them
            return self.inner.invalid(self.padded(tile), within=self.pitch)
        return self.inner.invalid(self.padded(tile))

    def bases(self, tile: Tile) -> list[int] | None:
        return None  # the pitch differs from the problem's: measured by the simulator

    def expression(self, tile: Tile) -> str:
        return self.inner.expression(self.padded(tile))

    def swizzles(self) -> list[dict]:
        return self.inner.swizzles()


def pitches(tile: Tile, vector_bytes: int, wavefront_bytes: int) -> list[int]:
    """Every pitch from cols up to one full wavefront of residues above the given row length (the
    banks of a padded row start depend only on pitch * elem_bytes mod the wavefront, so larger
    pitches repeat these), except the given row length itself (that is the unpadded search)."""
    span = max(1, wavefront_bytes // tile.elem_bytes)
    return [p for p in range(tile.cols, tile.row_length + span + 1)
            if p != tile.row_length and (p * tile.elem_bytes) % vector_bytes == 0]
