"""--emit mojo: Mojo (1.x: ``comptime``, not the removed ``alias``; ``def``, not the removed ``fn``).

The ``layout`` package is not in the ``mojo`` wheel: it comes with the MAX Mojo libraries
(``max-mojo-libs``, part of ``max`` / ``modular``). A comptime ``Layout`` used at run time needs
``materialize[smem_layout]()``; a ``Swizzle`` is called directly.
"""
from __future__ import annotations

from ..layout import Layout
from ..model import Problem
from ..value import replace
from .common import Snippet, header, plain, rows_apart
from .recognise import row_bands, row_pitch, swizzled_rows, tma_width, why_not_swizzle

LIBS = "# needs the MAX Mojo libraries for `layout` (pip install max-mojo-libs, or max); Mojo 1.x"
TARGET = "mojo"
TITLE = "Mojo"
ORDER = 4  # place in the --emit list


def emit(problem: Problem, layout: Layout) -> Snippet:
    tile = problem.tile
    head = header(problem, layout, "#")
    pitch = row_pitch(tile, layout)
    if pitch:
        return Snippet("mojo", f"{head}\n{plain(tile, pitch, '#')}\n{LIBS}\nfrom layout import Layout, IntTuple\n"
                               f"comptime smem_layout = Layout(IntTuple({tile.rows}, {tile.cols}), IntTuple({pitch}, 1))\n"
                               f"# at run time: var lay = materialize[smem_layout](); lay(IntTuple(r, c))",
                       True)
    bands = row_bands(tile, layout)
    if bands is not None:
        (s0, s1, s2), (d0, d1, d2) = bands
        return Snippet("mojo", "\n".join([
            head, LIBS, "from layout import Layout, IntTuple", "# a permutation of rows in bands: a hierarchical layout",
            f"comptime smem_layout = Layout(IntTuple(IntTuple({s0}, {s1}, {s2}), {tile.cols}), "
            f"IntTuple(IntTuple({d0}, {d1}, {d2}), 1))",
            "# at run time: var lay = materialize[smem_layout](); lay(IntTuple(r, c))"]), True)
    found = swizzled_rows(tile, layout)
    if found is None:
        return Snippet("mojo", f"{head}\n# cannot express as Mojo's Swizzle(bits, base, shift): "
                               f"{why_not_swizzle(tile, layout)}\n"
                               f"def smem_offset(r: Int, c: Int) -> Int:\n    return {layout.expression(tile)}",
                       False)
    pitch, sw = found
    lines = [head, LIBS, "from layout.swizzle import Swizzle, make_swizzle", "",
             f"comptime smem_swizzle = Swizzle({sw.B}, {sw.M}, {sw.S})  # bits, base, shift (= CuTe {sw.name})",
             f"# element (r, c) is at smem_swizzle(r * {pitch} + c)"
             + (f": {rows_apart(tile, pitch)}" if pitch != tile.row_length else "")]
    if sw.S > 0 and pitch == 1 << (sw.S + sw.M):
        lines.append(f"# the same: make_swizzle[num_rows={1 << sw.B}, row_size={pitch}, "
                     f"access_size={1 << sw.M}]()")
    width = tma_width(replace(tile, row_length=pitch), sw) if not problem.bank_model.amd else None  # no TMA on AMD
    if width:
        lines.append(f"# the same: make_swizzle[dtype, TensorMapSwizzle.SWIZZLE_{width}B](), with\n"
                     f"#   from layout.tma_async import TensorMapSwizzle")
    return Snippet("mojo", "\n".join(lines), True)
