"""What a GF(2)-linear layout also is, read off its bases (``Layout.bases``) in one place.

The bases are the canonical form of the linear families (as Triton's LinearLayout:
bases[i] = L(1 << i) on the bits of the logical offset). From them: the CuTe swizzle they are
(``swizzle_of``), their XOR steps (``xor_steps``), Triton's per-dimension bases (``triton_bases``)
the per-row column XOR of Triton's swizzled encoding (``row_col_xor``) and the inverse's bases
(``inverse_bases``, Triton's shared linear layout). The families'
``expression``, ``json_extras`` and the emit targets all ask these.
"""
from __future__ import annotations

import numpy as np

from ..layout import Layout, layout_table
from ..model import Tile, is_pow2, log2
from .cute import Swizzle


def xor_steps(bases: list[int]) -> list[tuple[int, int]]:
    """(distance, mask) pairs with L(p) = p ^ XOR of ((p >> distance) & mask), for bases whose
    every bit i maps to itself plus lower bits (a unitriangular map: only higher bits flow into
    lower ones)."""
    masks: dict[int, int] = {}
    for s, image in enumerate(bases):
        moved = image ^ (1 << s)
        assert moved < 1 << s, "only higher bits flow into lower ones"
        for t in range(s):
            if (moved >> t) & 1:
                masks[s - t] = masks.get(s - t, 0) | (1 << t)
    return sorted(masks.items())


def swizzle_of(bases: list[int] | None) -> Swizzle | None:
    """The CuTe Swizzle<B,M,S> whose bases these are, if one is: every moved bit i maps to
    1<<i plus the single bit 1<<(i-S) (S < 0: above it), the moved bits are one run of B, and
    |S| >= B (Swizzle.of_step)."""
    if not bases:
        return None
    moved = [(i, b ^ (1 << i)) for i, b in enumerate(bases) if b != 1 << i]
    if not moved or any(not is_pow2(d) for _, d in moved):
        return None
    shifts = {i - log2(d) for i, d in moved}
    src = [i for i, _ in moved]
    if len(shifts) != 1 or src != list(range(src[0], src[0] + len(src))):
        return None
    s = shifts.pop()
    target = ((1 << len(src)) - 1) << (src[0] - s)
    return Swizzle.of_step(s, target) if src[0] - s >= 0 else None


def as_swizzle(tile: Tile, layout: Layout) -> Swizzle | None:
    """The CuTe Swizzle<B,M,S> equal to ``layout`` on every element of the tile, if there is one:
    read off its bases, then confirmed on the whole table."""
    own = layout.cute_swizzle()
    if own is not None:
        return Swizzle(own.B, own.M, own.S)
    sw = swizzle_of(layout.bases(tile))
    return sw if sw is not None and np.array_equal(layout_table(tile, sw), layout_table(tile, layout)) else None


def triton_bases(tile: Tile, bases: list[int] | None) -> dict | None:
    """Triton linear-layout style: the physical (row, col) of each logical row bit and column bit."""
    if bases is None:
        return None
    L, low = tile.row_length, log2(tile.row_length)
    return {dim: [[v // L, v % L] for v in part] for dim, part in (("row", bases[low:]), ("col", bases[:low]))}


def row_col_xor(tile: Tile, bases: list[int] | None) -> list[int] | None:
    """Per row bit k, the column XOR it adds, when the layout is a pure per-row column XOR.

    Needs a power-of-two tile without padding (Triton's shapes) and bases whose column bits map
    to themselves and whose row bits keep their row.
    """
    if bases is None or tile.row_length != tile.cols or not is_pow2(tile.rows):
        return None
    cbits = log2(tile.cols)
    if len(bases) != cbits + log2(tile.rows) or any(bases[j] != 1 << j for j in range(cbits)):
        return None
    xors = []
    for k in range(len(bases) - cbits):
        image = bases[cbits + k]
        if image >> cbits != 1 << k:
            return None
        xors.append(image & (tile.cols - 1))
    return xors


def inverse_bases(bases: list[int]) -> list[int] | None:
    """The bases of L's inverse (L^-1(1 << j) for every bit j), when L is a bijection of the n-bit
    offsets (n = len(bases)); else None. Gaussian elimination over GF(2) on (image, preimage) pairs."""
    n = len(bases)
    if any(b >> n for b in bases):
        return None  # an image outside the n bits
    pivots: dict[int, tuple[int, int]] = {}  # top bit of an image -> (image, preimage)
    for i, image in enumerate(bases):
        pre = 1 << i
        while image and image.bit_length() - 1 in pivots:
            top_image, top_pre = pivots[image.bit_length() - 1]
            image, pre = image ^ top_image, pre ^ top_pre
        if not image:
            return None  # singular: two offsets share an image
        pivots[image.bit_length() - 1] = (image, pre)
    out = []
    for j in range(n):
        x, pre = 1 << j, 0
        while x:
            image, p = pivots[x.bit_length() - 1]
            x, pre = x ^ image, pre ^ p
        out.append(pre)
    return out
