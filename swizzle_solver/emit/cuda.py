"""--emit cuda: the C/C++ offset function, in the language of the target's kernels.

One function of (r, c) for every layout, the same C expression in each language
(hardware.Hardware.language): in CUDA (NVIDIA) it is ``static inline __host__ __device__`` (nvcc, or
any C compiler with the two qualifiers defined away); in HIP (AMD targets) the form a ROCm kernel
pastes (``static __host__ __device__ __forceinline__``, from ``hip/hip_runtime.h``, for hipcc /
amdclang++); in any other language a plain C ``static inline`` function. ``--emit hip`` names
this target.
"""
from __future__ import annotations

from ..layout import Layout
from ..model import Problem
from ..orient import words
from .common import MAX_TABLE, Snippet, header, table_body
from .recognise import swizzled_rows
from .views import byte_of, element_note, formula

TARGET = "cuda"
TITLE = "CUDA / C"
ORDER = 2  # place in the --emit list
ALIASES = ("hip",)  # --emit hip: the same function, which is HIP on an AMD --arch


def emit(problem: Problem, layout: Layout) -> Snippet:
    tile = problem.tile
    found = swizzled_rows(tile, layout)
    if found is not None:
        pitch, sw = found
        what = "logical element offset" if pitch == tile.row_length else f"offset with {words(tile).rows} padded to {pitch}"
        body = (f"  const int p = {words(tile).offset(pitch)};  // {what}\n"
                f"  return {sw.c_xor('p')};  // {sw.name}")
    elif layout.expression(tile) is not None:
        body = f"  return {words(tile).expression(layout.expression(tile))};"
    else:  # a table with no closed form: as a constant array, or too large to paste
        table = table_body(tile, layout)
        if table is None:
            return Snippet("cuda", f"{header(problem, layout, '//')}\n// cannot express: no closed form, and a "
                                   f"{tile.rows} x {tile.cols} table is above the {MAX_TABLE} elements pasted here", False)
        body = table
    return _IN.get(problem.hardware.language, _c)(problem, layout, body)


def _cuda(problem: Problem, layout: Layout, body: str) -> Snippet:
    code = (f"{header(problem, layout, '//')}\n"
            f"// phys(r, c): the physical element offset of element (r, c); index smem[phys(r, c)].\n"
            f"// Align the buffer to {problem.hardware.wavefront_bytes} bytes so that offsets and banks agree.\n"
            f"{QUALIFIERS['CUDA']}int swizzle_phys(int r, int c) {{\n{body}\n}}")
    return Snippet("cuda", code, True)


def _hip(problem: Problem, layout: Layout, body: str) -> Snippet:
    hardware = problem.hardware
    return Snippet("cuda", (
        f"{header(problem, layout, '//')}\n"
        f"// HIP for --arch {hardware.name} (hipcc / amdclang++): #include <hip/hip_runtime.h>\n"
        f"// swizzle_phys(r, c): the physical element offset of element (r, c) in the __shared__ (LDS) tile;\n"
        f"// index lds[swizzle_phys(r, c)], the buffer aligned to {hardware.wavefront_bytes} bytes so that offsets "
        f"and banks agree.\n"
        f"{QUALIFIERS['HIP']}int swizzle_phys(int r, int c) {{\n{body}\n}}"), True)


def _c(problem: Problem, layout: Layout, body: str) -> Snippet:
    """A language this target knows no form for: the plain C function, which its kernels' C dialect takes."""
    hardware = problem.hardware
    return Snippet("cuda", (
        f"{header(problem, layout, '//')}\n"
        f"// C for --arch {hardware.name} (its kernels: {hardware.language}): swizzle_phys(r, c) is the physical\n"
        f"// element offset of element (r, c) in the {hardware.shared} tile; align the buffer to "
        f"{hardware.wavefront_bytes} bytes.\n"
        f"{QUALIFIERS[None]}int swizzle_phys(int r, int c) {{\n{body}\n}}"), True)


# The function's form in each language (hardware.Hardware.language); any other: _c.
_IN = {"CUDA": _cuda, "HIP": _hip}
# How each declares it (None: plain C)
QUALIFIERS = {"CUDA": "static inline __host__ __device__ ", "HIP": "static __host__ __device__ __forceinline__ ",
              None: "static inline "}


def in_elements(problem: Problem, layout: Layout, snippet: Snippet) -> str:
    """Sub-byte elements: what this target's code of the packed bytes is in the elements (emit/views.py)."""
    tile = problem.tile
    per = 8 // tile.elem_bits
    byte, part = byte_of(tile)
    if not snippet.expressible:  # (no function: a table above the size pasted)
        return f"{element_note(tile, '//')}\n{formula(tile, '//')}"
    declared = QUALIFIERS[problem.hardware.language if problem.hardware.language in _IN else None]
    return (f"{element_note(tile, '//')} swizzle_phys_elem(r, c); the element's byte is\n"
            f"// smem[swizzle_phys_elem(r, c) / {per}], its part {part} of that byte as the kernel packs them\n"
            f"{declared}int swizzle_phys_elem(int r, int c) {{\n"
            f"  return {per} * swizzle_phys({byte}) + {part};\n}}")
