"""--emit triton: Triton, in Gluon and as the MLIR attribute (Triton 3.9's syntax).

The backend is the one for the language of the target's kernels (hardware.Hardware.language,
as Triton's ``GPUTarget("cuda" | "hip", ...)``): on NVIDIA the swizzled, NVMMA, padded and linear
shared encodings; on an AMD ``--arch`` the forms Triton's AMD backend (``GPUTarget("hip", "gfx942",
64)``, ...) uses for LDS: ``#ttg.swizzled_shared``, ``#ttg.padded_shared`` for row padding, and the
shared linear layout. NVMMA (the wgmma/TMA encoding) only for a TMA mode the target has
(``tma_modes``); a target of another language: Triton has no backend for it. ``#ttg.padded_shared`` can carry a linear remapping too, but Triton
requires each of its offset bases to move along one dimension (a permutation of rows or columns,
no XOR), so a swizzle on padded rows stays inexpressible on every target.
"""
from __future__ import annotations

from collections.abc import Callable

from ..forms.triton import Nvmma, Padded, SharedLinear, Swizzled
from ..layout import Layout
from ..model import Problem, Tile, is_pow2
from ..orient import words
from .common import Snippet, header
from .recognise import (
    as_stored,
    as_swizzle,
    linear_offset_bases,
    padding_of,
    row_bands,
    row_pitch,
    tma_width,
    triton_swizzled_params,
)
from .views import byte_of

TARGET = "triton"
TITLE = "Triton"
ORDER = 3  # place in the --emit list
COMMENT = "#"  # its comments

# Triton's backend for each language of kernels (hardware.Hardware.language): the NVIDIA one is
# Triton's default (no note); the others are named in the snippet's head.
BACKENDS = {"CUDA": "", "HIP": "Triton's AMD backend"}
Encoding = Swizzled | Nvmma | Padded | SharedLinear


def emit(problem: Problem, layout: Layout) -> Snippet:
    tile = problem.tile
    head = header(problem, layout, "#")
    hardware = problem.hardware
    backend = BACKENDS.get(hardware.language)
    if backend is None:
        return Snippet("triton", f"{head}\n# cannot express in Triton: it has no backend for --arch {hardware.name} "
                                 f"({hardware.language} kernels)", False)
    if backend:  # which backend the encodings are for, and the named target's shared memory
        head += (f"\n# for {backend} (--arch {hardware.name}: {hardware.shared}, {hardware.wave_lanes}-lane "
                 f"{hardware.group}s): the layout of ttgl.allocate_shared_memory")
    gl = "import triton.experimental.gluon.language as ttgl  # Gluon; the MLIR attribute is given beside it"
    view = _view(tile)
    parts = []
    params = triton_swizzled_params(tile, layout)
    if params is not None:
        swizzled = view(Swizzled(*params))
        w = words(tile)
        contiguous = ", dim 0 (r) contiguous" if tile.col_major else ""  # order = [0, 1]
        parts.append(f"# swizzled shared encoding: {w.col} XOR (vec * (({w.row} / perPhase) % maxPhase)){contiguous}\n"
                     f"#   {swizzled.mlir()}\nsmem_layout = {swizzled.gluon()}")
    width = tma_width(*_swizzle_stored(tile, layout))
    if width and tile.rows % 8 == 0 and f"{width}B" in hardware.tma_modes:  # NVMMA: the wgmma/TMA encoding
        nvmma = view(Nvmma(width, 8 * tile.elem_bytes))
        parts.append(f"# = the {width}-byte NVMMA (TMA/wgmma) encoding: vec {16 // tile.elem_bytes}, perPhase "
                     f"{128 // width}, maxPhase {width // 16}; buffer aligned to {128 * (width // 16)} B\n"
                     f"#   {nvmma.mlir()}\nnvmma_layout = {nvmma.gluon()}")
    if parts:
        return Snippet("triton", "\n".join([head, gl] + parts), True)
    pad = padding_of(tile, layout)
    if pad is not None:
        interval, padding = pad
        padded = view(Padded(interval, padding, (tile.rows, tile.cols)))
        return Snippet("triton", "\n".join([
            head, gl, f"# padded shared encoding: {padding} spare element(s) after every {interval}",
            f"#   {padded.mlir()}", f"smem_layout = {padded.gluon()}"]), True)
    bases = linear_offset_bases(tile, layout)
    if bases is not None:
        linear = view(SharedLinear(tuple((r, c) for r, c in bases)))
        return Snippet("triton", "\n".join([
            head, gl, f"# not a swizzled{'/NVMMA' if hardware.tma_modes else ''} shape: a shared linear layout; offset bit i -> [row, col]",
            f"#   {linear.mlir()}", f"smem_layout = {linear.gluon()}"]), True)
    return Snippet("triton", "\n".join([head, "# cannot express in Triton: " + _triton_why(tile, layout)]), False)


def _view(tile: Tile) -> Callable[[Encoding], Encoding]:
    """An encoding of the stored tile in the user's view: transposed under --order col (forms/triton.py)."""
    return (lambda encoding: encoding.transpose()) if tile.col_major else (lambda encoding: encoding)


def _swizzle_stored(tile: Tile, layout: Layout):
    """(the tile as the layout stores it, the CuTe swizzle the layout is there, or None)."""
    stored, inner = as_stored(tile, layout)
    return stored, as_swizzle(stored, inner)


def _triton_why(tile: Tile, layout: Layout) -> str:
    if not (is_pow2(tile.rows) and is_pow2(tile.cols)):
        return f"Triton's shared encodings need power-of-two shapes, the tile is {tile.rows} x {tile.cols}"
    pitch = row_pitch(tile, layout)
    if pitch:
        return (f"its padding of {pitch - tile.cols} element(s) per {words(tile).row} is not a power of two "
                f"(Triton's padded encoding needs one)")
    stored, _ = as_stored(tile, layout)  # a padded layout's pitch
    if stored.row_length != tile.cols:
        spare, w = stored.row_length - tile.cols, words(tile)
        if row_bands(tile, layout) is not None:
            return (f"the {spare} spare element(s) per {w.row} are padding mixed with a permutation of {w.rows}: this tool "
                    f"writes #ttg.padded_shared only without a remapping")
        return (f"the {spare} spare element(s) per {w.row} are padding mixed with a swizzle: "
                f"no swizzled, padded or linear encoding says both")
    return "the layout is not GF(2)-linear on the offset bits (no swizzled, NVMMA or linear encoding)"


def in_elements(problem: Problem, layout: Layout, snippet: Snippet) -> str:
    """Sub-byte elements: what this target's code of the packed bytes is in the elements (emit/views.py)."""
    tile = problem.tile
    return (f"# {tile.elem_bits}-bit elements: Triton holds them packed, {8 // tile.elem_bits} a byte, in an 8-bit "
            f"tensor (tl.dot_scaled's e2m1 operands are uint8), so the encoding above is of that packed tensor, "
            f"{' x '.join(map(str, tile.logical_shape))}, as written: element (r, c) is its byte ({byte_of(tile)[0]})")
