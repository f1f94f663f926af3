"""--emit cuda: the C/C++ offset function, as CUDA on NVIDIA and as HIP on an AMD ``--arch``.

One function of (r, c) for every layout. On NVIDIA it is ``static inline __host__ __device__``
(nvcc, or any C compiler with the two qualifiers defined away). On AMD targets it is the HIP form
a ROCm kernel pastes (``static __host__ __device__ __forceinline__``, from ``hip/hip_runtime.h``,
for hipcc / amdclang++); the body is the same C expression. ``--emit hip`` names this target.
"""
from __future__ import annotations

from ..layout import Layout
from ..model import Problem
from .common import MAX_TABLE, Snippet, header, table_body
from .recognise import swizzled_rows

TARGET = "cuda"
TITLE = "CUDA / C"
ORDER = 2  # place in the --emit list
ALIASES = ("hip",)  # --emit hip: the same function, which is HIP on an AMD --arch


def emit(problem: Problem, layout: Layout) -> Snippet:
    tile, hardware = problem.tile, problem.bank_model
    wave = hardware.wavefront_bytes
    found = swizzled_rows(tile, layout)
    if found is not None:
        pitch, sw = found
        what = "logical element offset" if pitch == tile.row_length else f"offset with rows padded to {pitch}"
        body = (f"  const int p = r * {pitch} + c;  // {what}\n"
                f"  return {sw.c_xor('p')};  // {sw.name}")
    elif layout.expression(tile) is not None:
        body = f"  return {layout.expression(tile)};"
    else:  # a table with no closed form: as a constant array, or too large to paste
        table = table_body(tile, layout)
        if table is None:
            return Snippet("cuda", f"{header(problem, layout, '//')}\n// cannot express: no closed form, and a "
                                   f"{tile.rows} x {tile.cols} table is above the {MAX_TABLE} elements pasted here", False)
        body = table
    if hardware.amd:
        return Snippet("cuda", (
            f"{header(problem, layout, '//')}\n"
            f"// HIP for --arch {hardware.name} (hipcc / amdclang++): #include <hip/hip_runtime.h>\n"
            f"// swizzle_phys(r, c): the physical element offset of element (r, c) in the __shared__ (LDS) tile;\n"
            f"// index lds[swizzle_phys(r, c)], the buffer aligned to {wave} bytes so that offsets and banks agree.\n"
            f"static __host__ __device__ __forceinline__ int swizzle_phys(int r, int c) {{\n{body}\n}}"), True)
    code = (f"{header(problem, layout, '//')}\n"
            f"// phys(r, c): the physical element offset of element (r, c); index smem[phys(r, c)].\n"
            f"// Align the buffer to {wave} bytes so that offsets and banks agree.\n"
            f"static inline __host__ __device__ int swizzle_phys(int r, int c) {{\n{body}\n}}")
    return Snippet("cuda", code, True)
