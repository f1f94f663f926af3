"""Bit matrices over GF(2): rank, reduced echelon form, kernel.

A vector is a Python int (bit i is coordinate i). A linear map is given, as in Triton's
LinearLayout, by its *bases*: the list of images of the input basis vectors, so
``apply(bases, x) = XOR of bases[i] for every set bit i of x``. Its matrix has one column per
basis vector; ``rows_of`` turns bases into that matrix's rows for printing and elimination.

Invariant used everywhere: a map is injective on the span of its inputs iff rank == len(bases).
"""
from __future__ import annotations


def apply(bases: list[int], x: int) -> int:
    """The image of x: the XOR of bases[i] for every set bit i of x."""
    out = 0
    i = 0
    while x:
        if x & 1:
            out ^= bases[i]
        x >>= 1
        i += 1
    return out


def rank(vectors: list[int]) -> int:
    """Dimension of the span (Gaussian elimination on the highest set bit)."""
    pivots: dict[int, int] = {}  # highest bit -> reduced vector with that highest bit
    for v in vectors:
        while v:
            top = v.bit_length() - 1
            if top not in pivots:
                pivots[top] = v
                break
            v ^= pivots[top]
    return len(pivots)


def echelon(vectors: list[int]) -> tuple[dict[int, tuple[int, int]], list[int]]:
    """Gaussian elimination that remembers how each row was made: ``pivots`` maps a pivot's top bit
    to (the reduced vector, the mask of input indices XORed into it); ``dependent`` holds, for each
    input that reduced to zero, the mask of inputs whose XOR is zero (a basis of the kernel)."""
    pivots: dict[int, tuple[int, int]] = {}
    dependent: list[int] = []
    for i, v in enumerate(vectors):
        combo = 1 << i
        while v:
            top = v.bit_length() - 1
            if top not in pivots:
                pivots[top] = (v, combo)
                break
            pv, pc = pivots[top]
            v, combo = v ^ pv, combo ^ pc
        if not v:
            dependent.append(combo)
    return pivots, dependent


def combination(pivots: dict[int, tuple[int, int]], v: int) -> int:
    """The mask of input indices whose XOR is ``v`` (echelon's pivots); ValueError outside their span."""
    out = 0
    while v:
        top = v.bit_length() - 1
        if top not in pivots:
            raise ValueError("not in the span")
        pv, pc = pivots[top]
        v, out = v ^ pv, out ^ pc
    return out


def coordinates(basis: list[int], v: int) -> int:
    """The coordinates of v in ``basis`` (v in its span), as a bit mask over the basis' indices."""
    return combination(echelon(basis)[0], v)


def kernel(bases: list[int]) -> list[int]:
    """A basis of {x : apply(bases, x) == 0}, each x a mask over the input indices."""
    return echelon(bases)[1]


def rows_of(bases: list[int], nrows: int) -> list[int]:
    """The matrix of the map, row j as an int whose bit i is bit j of bases[i]."""
    return [sum(((b >> j) & 1) << i for i, b in enumerate(bases)) for j in range(nrows)]


def rref(rows: list[int], ncols: int) -> tuple[list[int], list[int]]:
    """Reduced row echelon form; pivot columns scanned from column 0. Returns (rows, pivots)."""
    rows = list(rows)
    pivots: list[int] = []
    r = 0
    for col in range(ncols):
        bit = 1 << col
        pick = next((i for i in range(r, len(rows)) if rows[i] & bit), None)
        if pick is None:
            continue
        rows[r], rows[pick] = rows[pick], rows[r]
        for i in range(len(rows)):
            if i != r and rows[i] & bit:
                rows[i] ^= rows[r]
        pivots.append(col)
        r += 1
    return rows, pivots
