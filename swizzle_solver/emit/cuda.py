"""--emit cuda: CUDA / C."""
from __future__ import annotations

from ..layout import Layout
from ..model import Problem
from .common import Snippet, header
from .recognise import swizzled_rows

TARGET = "cuda"
TITLE = "CUDA / C"
ORDER = 2  # place in the --emit list


def emit(problem: Problem, layout: Layout) -> Snippet:
    tile, wave = problem.tile, problem.bank_model.wavefront_bytes
    found = swizzled_rows(tile, layout)
    if found is not None:
        pitch, sw = found
        what = "logical element offset" if pitch == tile.row_length else f"offset with rows padded to {pitch}"
        body = (f"  const int p = r * {pitch} + c;  // {what}\n"
                f"  return {sw.c_xor('p')};  // {sw.name}")
    else:
        body = f"  return {layout.expression(tile)};"
    code = (f"{header(problem, layout, '//')}\n"
            f"// phys(r, c): the physical element offset of element (r, c); index smem[phys(r, c)].\n"
            f"// Align the buffer to {wave} bytes so that offsets and banks agree.\n"
            f"static inline __host__ __device__ int swizzle_phys(int r, int c) {{\n{body}\n}}")
    return Snippet("cuda", code, True)
