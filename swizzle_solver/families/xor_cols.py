"""`xor-cols`: a per-row XOR of the column index, the natural form for any pitch.

    phys = r * row_length + (c ^ (((r >> a) & (2^B - 1)) << M))

It never moves an element to another row, so it works for pitches like 24, 40, 48 or 72 where a
swizzle of the flat offset p would have to untangle the carries of r * row_length. Valid when every
row's XOR maps [0, cols) onto itself; vectors of 2^M elements or fewer stay whole.
"""
from __future__ import annotations

import re

import numpy as np

from ..layout import EVERY_SOLVE, MAX_BIT, Family, LayoutBase, columns, const, in_range, integer, step_schema
from ..model import Tile, log2
from ..value import Value, replace
from .identity import nbits


def xor_of_row(r, B, M, a):
    """The column XOR of row r (ints or numpy arrays; B, M, a may be arrays that broadcast)."""
    return ((r >> a) & ((1 << B) - 1)) << M


def xor_cols(tile: Tile, r, c, B, M, a):
    return r * tile.row_length + (c ^ xor_of_row(r, B, M, a))


class XorCols(Value, LayoutBase):
    B: int
    M: int
    a: int  # row bits a .. a+B-1 are the XOR source
    family = "xor-cols"

    @property
    def name(self) -> str:
        return f"XorCols<{self.B},{self.M},{self.a}>"

    @property
    def order(self) -> tuple:
        return (self.B, -self.M, self.a)

    def xor_of_row(self, r):
        return xor_of_row(r, self.B, self.M, self.a)

    def phys(self, tile: Tile, r, c):
        return xor_cols(tile, r, c, self.B, self.M, self.a)

    def invalid(self, tile: Tile, within: int | None = None) -> str | None:
        """Why not every row's columns stay in its first ``within`` elements (default cols: onto
        themselves; padding passes its pitch, whose spare columns are storage too)."""
        within = within or tile.cols
        if self.a + self.B + self.M < 62:  # every XOR fits int64: all rows and columns at once
            used = np.zeros(tile.rows, dtype=bool)  # the distinct row bits (r >> a) & (2^B - 1) <= r, in order
            used[(np.arange(tile.rows) >> self.a) & ((1 << self.B) - 1)] = True
            xs = (np.flatnonzero(used) << self.M).tolist()
            worsts = (np.array(xs, dtype=np.int64)[:, None] ^ np.arange(tile.cols)[None, :]).max(axis=1).tolist()
        else:  # a name given by hand (--check) may reach past int64: Python's integers
            xs = sorted({self.xor_of_row(r) for r in range(tile.rows)})
            worsts = [max(c ^ x for c in range(tile.cols)) for x in xs]
        for x, worst in zip(xs, worsts, strict=True):
            if worst >= within:
                return f"column {worst ^ x} XOR {x} = {worst} leaves the {within}-column row"
        return None

    def invalid_padded(self, tile: Tile, pitch: int) -> str | None:
        # a padded row's spare columns are storage too: the XOR may move columns into them
        return self.invalid(replace(tile, row_length=pitch), within=pitch)

    def bases(self, tile: Tile) -> list[int] | None:
        if not tile.pitch_is_pow2:
            return None
        low = log2(tile.row_length)
        out = []
        for i in range(nbits(tile)):
            image = 1 << i
            k = i - low  # row bit k
            if self.a <= k < self.a + self.B:
                image |= 1 << (k - self.a + self.M)
            out.append(image)
        return out

    def expression(self, tile: Tile) -> str:
        src = "r" if self.a == 0 else f"(r >> {self.a})"
        x = f"({src} & {(1 << self.B) - 1})"
        if self.M:
            x = f"({x} << {self.M})"
        return f"r * {tile.row_length} + (c ^ {x})"

    def swizzles(self) -> list[dict]:
        # Not a CuTe swizzle of p: S is null; the XOR source is row bit `row_shift`.
        return [{"B": self.B, "M": self.M, "S": None, "row_shift": self.a, "unit": "element",
                 "applies_to": "column"}]


def bounds(tile: Tile, vector_elems: int) -> str:
    col_bits, row_bits = max(0, (tile.cols - 1).bit_length()), max(0, (tile.rows - 1).bit_length())
    return f"M >= {log2(vector_elems)}, M + B <= {col_bits} column bits, a + B <= {row_bits} row bits"


def grid(tile: Tile, vector_elems: int) -> list[tuple[int, int, int]]:
    """(B, M, a) of every choice whose XOR source bits exist in the row index and target bits in
    the column, in preference order (fewest bits, larger M, smaller a)."""
    col_bits = max(0, (tile.cols - 1).bit_length())
    row_bits = max(0, (tile.rows - 1).bit_length())
    m_min = log2(vector_elems)
    return [(b, m, a)
            for b in range(1, min(col_bits, row_bits) + 1)
            for m in range(col_bits - b, m_min - 1, -1)  # target bits M .. M+B-1 inside the column
            for a in range(row_bits - b + 1)]  # source bits a .. a+B-1 inside the row index


def candidates(tile: Tile, vector_elems: int) -> list[XorCols]:
    return [XorCols(*t) for t in grid(tile, vector_elems)]


def phys_many(params, tile: Tile, r: np.ndarray, c: np.ndarray) -> np.ndarray:
    """phys of every (B, M, a) of ``params``: shape (n, *r.shape)."""
    return xor_cols(tile, r, c, *columns(params, np.ndim(r)))


_NAME = r"(?i)xorcols\s*<\s*(\d{1,18})\s*,\s*(\d{1,18})\s*,\s*(\d{1,18})\s*>"


def parse(text: str) -> XorCols | None:
    m = re.fullmatch(_NAME, text)
    if not m:
        return None
    b, mm, a = (int(x) for x in m.groups())
    in_range(MAX_BIT, B=b, M=mm, a=a)
    if b < 1:
        raise ValueError("XorCols needs B >= 1 (or give none)")
    return XorCols(b, mm, a)


STEP_SCHEMA = step_schema("xor-cols: column XOR from row bits (not a CuTe swizzle: S is null)", B=integer(1, "XOR bits"),
                          M=integer(0, "base"), S={"type": "null"}, row_shift=integer(0, "a: the lowest row bit read"),
                          unit=const("element"), applies_to=const("column"))

FAMILY_RECORD = Family(
    name=XorCols.family, rank=2, stage=EVERY_SOLVE, layout=XorCols, parse=parse, printed=r"XorCols<\d+,\d+,\d+>",
    syntax="XorCols<B,M,a>", candidates=candidates, grid=grid, make=XorCols, phys_many=phys_many, bounds=bounds,
    step_schema=(STEP_SCHEMA,))
