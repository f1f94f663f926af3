"""pycute layouts evaluated over a whole (rows, cols) grid at numpy speed, spot-checked by pycute.

The oracle tests build a layout with pycute's algebra (products, compositions, slices: the part CuTe
defines and the tool must match) and compare its table with the tool's element by element. pycute
evaluates one coordinate at a time in recursive Python (crd2idx), which cost the fast tier about 8 s
of CPU over a few hundred thousand calls. Here the layout's table is the formula of crd2idx on the
flattened modes (pycute's ``flatten`` of its shape and stride): an integer coordinate of a mode is
split colexicographically over its sub-shapes, each digit times its stride, the last sub-shape taking
what is left (int_tuple.py's crd2idx, "int" tuple tuple). The table is then checked against pycute's
own ``layout((r, c))`` at the corners and at a spread of interior points, so a difference between the
two evaluations fails here, not as a wrong verdict in the test that uses it.
"""
from __future__ import annotations

import numpy as np
import pycute

SPOTS = 24  # interior points checked against pycute, besides the four corners


def _mode(x: np.ndarray, shape, stride) -> np.ndarray:
    """crd2idx of integer coordinates ``x`` in one mode (possibly nested)."""
    shapes, strides = pycute.flatten(shape), pycute.flatten(stride)
    out = np.zeros_like(x)
    for i, (s, d) in enumerate(zip(shapes, strides)):
        digit = x if i == len(shapes) - 1 else x % s
        out += digit * d
        x = x // s
    return out


def _apply(layout, x: np.ndarray) -> np.ndarray:
    """A 1-D pycute function (Layout, Swizzle, ComposedLayout) of integer offsets ``x``."""
    if isinstance(layout, pycute.Layout):
        return _mode(x, layout.shape, layout.stride)
    if isinstance(layout, pycute.ComposedLayout):  # layoutB(offset + layoutA(x))
        return _apply(layout.layoutB, layout.offset + _apply(layout.layoutA, x))
    return np.vectorize(layout, otypes=[np.int64])(x)  # a Swizzle: pycute's own bit formula, per value


def grid(layout, rows: int, cols: int) -> np.ndarray:
    """``layout((r, c))`` for every r < rows, c < cols, as an int64 array (rows, cols)."""
    r, c = np.meshgrid(np.arange(rows, dtype=np.int64), np.arange(cols, dtype=np.int64), indexing="ij")
    if isinstance(layout, pycute.ComposedLayout):
        table = _apply(layout.layoutB, layout.offset + grid(layout.layoutA, rows, cols))
    else:
        table = _mode(r, layout.shape[0], layout.stride[0]) + _mode(c, layout.shape[1], layout.stride[1])
    points = {(0, 0), (0, cols - 1), (rows - 1, 0), (rows - 1, cols - 1)}
    points |= {((7 * i) % rows, (13 * i + 5) % cols) for i in range(SPOTS)}
    for i, j in sorted(points):
        assert table[i, j] == layout((i, j)), (layout, (i, j), int(table[i, j]))
    return table
