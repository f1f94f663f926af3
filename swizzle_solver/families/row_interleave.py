"""`row-interleave`: a permutation of rows inside bands of T rows ("treat 8x9 as 4x18").

Logical row r of a band is stored at physical row  (r * k) mod T + r div (T / k)  of the band
(integer division), and columns are untouched:

    phys = (band * T + (r' * k) mod T + r' div (T div k)) * row_length + c,   r' = r mod T

For k dividing T this is the transpose of a k x (T/k) grid of rows, a permutation. The rule
published with it claims validity from divisibility alone and is wrong when T is not a multiple of
k times the block height; here validity is checked exactly: the formula must permute [0, T)
(``invalid``), and the wavefronts are measured by the simulator, never assumed.

Order inside the family: smaller band T first, then smaller k.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np

from ..layout import LATER, MAX_ROWS, Family, LayoutBase, const, in_range, integer, step_schema
from ..model import Problem, Tile, is_pow2, log2
from ..value import Value
from .identity import nbits

if TYPE_CHECKING:
    from ..budget import Budget
    from ..candidate import Candidate, FamilyReport
    from ..oracle import Later

MAX_BAND = 64  # bands searched: T <= 64 rows (enumeration bound, reported)


class RowInterleave(Value, LayoutBase):
    T: int  # rows per band
    k: int  # interleave factor
    family = "row-interleave"

    @property
    def name(self) -> str:
        return f"RowInterleave<T={self.T},k={self.k}>"

    @property
    def order(self) -> tuple:
        return (self.T, self.k)

    def row_of(self, r):
        """The physical row of logical row r (ints or numpy arrays)."""
        local = r % self.T
        return (r - local) + (local * self.k) % self.T + local // (self.T // self.k)

    def phys(self, tile: Tile, r, c):
        return self.row_of(r) * tile.row_length + c

    def invalid(self, tile: Tile) -> str | None:
        if tile.rows % self.T:
            return f"the {tile.rows} rows are not a whole number of {self.T}-row bands"
        image = self.row_of(np.arange(self.T))
        seen: dict[int, int] = {}
        for r, pr in enumerate(image.tolist()):
            if pr >= self.T:
                return f"row {r} would be stored at row {pr}, outside its {self.T}-row band"
            if pr in seen:
                return f"rows {seen[pr]} and {r} would both be stored at row {pr}"
            seen[pr] = r
        return None

    def bases(self, tile: Tile) -> list[int] | None:
        """GF(2)-linear when the pitch, the rows, T and k are powers of two (and k divides T): the
        physical row is then a rotation of the band's row bits, (r' * k) mod T the low bits moved
        up and r' div (T / k) the top ones moved down, so each offset bit goes to one bit."""
        if not (tile.pitch_is_pow2 and is_pow2(tile.rows) and is_pow2(self.T) and is_pow2(self.k)) \
                or self.invalid(tile) is not None:
            return None
        return [int(self.phys(tile, (1 << i) // tile.row_length, (1 << i) % tile.row_length))
                for i in range(nbits(tile))]

    def expression(self, tile: Tile) -> str:
        """Only + - * << >> & ^ |: mod and div by a power of two are masks and shifts; by any
        other constant, a multiply-and-shift that is exact for every row of this tile (checked)."""
        T, q = self.T, self.T // self.k
        local = "r" if tile.rows == T else _mod("r", T, tile.rows - 1)
        band = "" if tile.rows == T else f"(r - {local}) + "
        row = f"({band}{_mod(f'{local} * {self.k}', T, (T - 1) * self.k)} + {_div(local, q, T - 1)})"
        return f"{row} * {tile.row_length} + c"

    def swizzles(self) -> list[dict]:
        return [{"kind": "row-permutation", "T": self.T, "k": self.k, "unit": "row"}]


def _div(x: str, d: int, xmax: int) -> str:
    """x div d for 0 <= x <= xmax, in the allowed operators."""
    if d == 1:
        return f"({x})"
    if is_pow2(d):
        return f"(({x}) >> {log2(d)})"
    s = xmax.bit_length()
    while True:  # the first exact magic multiplier (Granlund-Montgomery), checked on every x
        m = -(-(1 << s) // d)
        if all((x_ * m) >> s == x_ // d for x_ in range(xmax + 1)):
            return f"((({x}) * {m}) >> {s})"
        s += 1


def _mod(x: str, d: int, xmax: int) -> str:
    if is_pow2(d):
        return f"(({x}) & {d - 1})"
    return f"(({x}) - {d} * {_div(x, d, xmax)})"


def candidates(tile: Tile, vector_elems: int) -> list[RowInterleave]:
    return [RowInterleave(T, k) for T in range(2, min(tile.rows, MAX_BAND) + 1) if tile.rows % T == 0
            for k in range(2, T)]


_NAME = r"(?i)rowinterleave\s*<\s*t\s*=\s*(\d{1,18})\s*,\s*k\s*=\s*(\d{1,18})\s*>"


def parse(text: str) -> RowInterleave | None:
    m = re.fullmatch(_NAME, text)
    if not m:
        return None
    t, k = int(m[1]), int(m[2])
    in_range(MAX_ROWS, T=t)
    if not 2 <= k < t:
        raise ValueError("RowInterleave needs 2 <= k < T")
    return RowInterleave(t, k)


STEP_SCHEMA = step_schema("row-interleave: a row permutation", kind=const("row-permutation"),
                          T=integer(2, "band of rows"), k=integer(2, "interleave factor"), unit=const("row"))

# --- the search (extended.py runs it: Family.search) ---------------------------------------------


def search(problem: Problem, budget: Budget, later: Later) -> tuple[list[Candidate], FamilyReport]:
    """Every band and factor, each sound one simulated on a sample of placements, and measured
    whole when it can enter the family's best (extended.best_bounded, through ``later.every_member``).
    (A row permutation moves a lane
    to a row that may start elsewhere modulo its vector when the pitch is not a multiple of it:
    explicit phases allow that, and the soundness check refuses it.)"""
    from ..soundness import QuickSoundness

    kept, report = later.every_member(problem, budget, FAMILY_RECORD, QuickSoundness(problem).rows)
    report.covered = (f"every band T (dividing {problem.tile.rows} rows, T <= {MAX_BAND}) and "
                      f"factor 2 <= k < T: {report.candidates} members, {report.invalid} not permutations or "
                      f"splitting vectors, the rest simulated")
    return kept, report


FAMILY_RECORD = Family(
    name=RowInterleave.family, rank=5, stage=LATER, layout=RowInterleave, parse=parse, printed=r"RowInterleave<T=\d+,k=\d+>",
    syntax="'RowInterleave<T=8,k=2>'", candidates=candidates, engine="enum", search=search,
    step_schema=(STEP_SCHEMA,))
