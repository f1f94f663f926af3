"""Code to paste: one pure function per target, (problem, layout) -> Snippet.

Every emitter works for any layout through the family interface (``phys``, ``bases``,
``expression``, ``name``): a target's own form (a CuTe Swizzle, a Triton encoding, a TMA mode) is
*recognised* from the layout's GF(2) bases or its table and then checked element by element
against the layout's table before it is printed; what a target cannot express gets a snippet
that says so and why, plus the portable function where one helps. The families ``none``,
``cute`` and ``xor-cols`` get their best forms this way (an ``xor-cols`` answer on a power-of-two
pitch *is* a CuTe swizzle and is printed as one).

Published formulas the mappings follow (checked in tests/test_emit.py):

- CuTe: ``Swizzle<B,M,S>(p) = p ^ ((p & (((1<<B)-1) << (M+S))) >> S)`` (cute/swizzle.hpp; pycute).
- Triton swizzled shared encoding, offset bases (lib/Dialect/TritonGPU/IR/LinearLayoutConversions.cpp,
  ``swizzledSharedToLinearLayout``): column bit j -> (0, 2^j); row bit k ->
  (2^k, (vec * ((2^k / perPhase) % maxPhase)) % numCols).
- Triton NVMMA shared encoding (lib/Dialect/TritonGPU/IR/Dialect.cpp, ``NVMMASharedEncodingAttr::
  getVec/getPerPhase/getMaxPhase/getAlignment``): vec = 128 / elementBitWidth, perPhase =
  128 / swizzlingByteWidth, maxPhase = swizzlingByteWidth / 16, alignment = 128 * maxPhase; its core
  matrix (``getCoreMatrixLinearLayout``) is 8 rows x swizzlingByteWidth bytes with the bases above.
- Mojo (max/kernels/src/layout/swizzle.mojo): ``Swizzle(bits, base, shift)`` is CuTe's formula;
  ``make_swizzle[num_rows, row_size, access_size]()`` = ``Swizzle(log2(num_rows), log2(access_size),
  log2(row_size) - log2(access_size))``.
- TMA (CUDA driver API ``CUtensorMapSwizzle``): 32B / 64B / 128B = byte-level ``Swizzle<1|2|3,4,3>``
  (DESIGN.md section 7); the box's inner extent in bytes must not exceed the swizzle width.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .families.cute import Swizzle
from .model import InputError, Problem, Tile, is_pow2, log2
from .soundness import layout_table

TARGETS = ("cute", "cute-dsl", "cuda", "triton", "mojo", "tma")
TMA_ENUM = {32: "CU_TENSOR_MAP_SWIZZLE_32B", 64: "CU_TENSOR_MAP_SWIZZLE_64B", 128: "CU_TENSOR_MAP_SWIZZLE_128B"}
GMMA_ATOM = {32: "Layout_K_SW32_Atom", 64: "Layout_K_SW64_Atom", 128: "Layout_K_SW128_Atom"}
CPP_TYPES = {1: "cute::uint8_t (or float_e4m3_t)", 2: "cute::half_t (or bfloat16_t)", 4: "float (or tfloat32_t)",
             8: "double"}


@dataclass(frozen=True)
class Snippet:
    """One target's code; ``expressible`` is False when the target cannot say this layout."""

    target: str
    code: str
    expressible: bool


def parse_targets(values) -> list[str]:
    """`--emit` values (repeatable, comma lists, `all`) -> targets in TARGETS order, no repeats."""
    wanted = set()
    for value in values:
        for name in str(value).split(","):
            name = name.strip().lower()
            if name == "all":
                wanted.update(TARGETS)
            elif name in TARGETS:
                wanted.add(name)
            else:
                raise InputError(f"--emit {name!r} is not a target: use one of {', '.join(TARGETS)} or all")
    return [t for t in TARGETS if t in wanted]


def emit(target: str, problem: Problem, layout) -> Snippet:
    if target not in EMITTERS:
        raise InputError(f"{target!r} is not an emit target: use one of {', '.join(TARGETS)}")
    return EMITTERS[target](problem, layout)


def emit_all(targets, problem: Problem, layout) -> dict[str, Snippet]:
    return {t: emit(t, problem, layout) for t in targets}


# --- recognising a layout's shape -------------------------------------------------------------


def table(tile: Tile, layout) -> np.ndarray:
    """phys[r, c] over the whole tile: the table the simulator measures (soundness.layout_table)."""
    return layout_table(tile, layout)


def row_pitch(tile: Tile, layout) -> int | None:
    """P when the layout is plain row-major with rows P elements apart (P = row_length: no swizzle;
    larger: padding), else None."""
    phys = table(tile, layout)
    pitch = int(phys[1, 0] - phys[0, 0]) if tile.rows > 1 else tile.row_length
    if pitch < tile.cols:
        return None
    r, c = np.meshgrid(np.arange(tile.rows), np.arange(tile.cols), indexing="ij")
    return pitch if np.array_equal(phys, r * pitch + c) else None


def as_swizzle(tile: Tile, layout) -> Swizzle | None:
    """The CuTe Swizzle<B,M,S> equal to ``layout`` on every element of the tile, if there is one.

    A swizzle's basis images are ``1<<i`` plus, for the B source bits i (contiguous), ``1<<(i-S)``.
    The triple read off the bases is then confirmed on the whole table.
    """
    if isinstance(layout, Swizzle):
        return layout
    bases = layout.bases(tile)
    if not bases:
        return None
    moved = [(i, b ^ (1 << i)) for i, b in enumerate(bases) if b != 1 << i]
    if not moved or any(not is_pow2(d) or d >= 1 << i for i, d in moved):
        return None
    shifts = {i - log2(d) for i, d in moved}
    src = [i for i, _ in moved]
    if len(shifts) != 1 or src != list(range(src[0], src[0] + len(src))):
        return None
    s, b = shifts.pop(), len(src)
    if s < b:  # CuTe rejects |S| < B
        return None
    sw = Swizzle(b, src[0] - s, s)
    return sw if np.array_equal(table(tile, sw), table(tile, layout)) else None


def swizzled_rows(tile: Tile, layout) -> tuple[int, Swizzle] | None:
    """(P, sw) with layout(r, c) = sw(r * P + c) on every element of the tile, if there is one: P is
    the row length, or the pitch of a padded layout (CuTe: composition(sw, (R, C):(P, 1)))."""
    sw = as_swizzle(tile, layout)
    if sw is not None:
        return tile.row_length, sw
    pitch, inner = getattr(layout, "pitch", None), getattr(layout, "inner", None)
    if pitch is None or inner is None:
        return None
    sw = as_swizzle(replace(tile, row_length=pitch), inner)
    if sw is None:
        return None
    r, c = np.meshgrid(np.arange(tile.rows), np.arange(tile.cols), indexing="ij")
    return (pitch, sw) if np.array_equal(sw.apply(r * pitch + c), table(tile, layout)) else None


def swizzle_chain(tile: Tile, layout) -> list[Swizzle] | None:
    """The CuTe swizzles a layout lists (``swizzles()``, applied in order), when they reproduce it."""
    try:
        listed = layout.swizzles()
        chain = [Swizzle(x["B"], x["M"], x["S"]) for x in listed]
    except (AttributeError, KeyError, TypeError):
        return None
    if len(chain) < 2 or any(x.get("unit", "element") != "element" or x.get("applies_to") for x in listed):
        return None
    r, c = np.meshgrid(np.arange(tile.rows), np.arange(tile.cols), indexing="ij")
    p = r * tile.row_length + c
    for sw in chain:
        p = sw.apply(p)
    return chain if np.array_equal(p, table(tile, layout)) else None


def tma_width(tile: Tile, sw: Swizzle | None) -> int | None:
    """Bytes of the TMA/GMMA swizzle mode that stores exactly this tile, or None.

    The byte-level triple must be a TMA mode and a tile row must be exactly the swizzle width: the
    box inner extent may not exceed it, and rows of exactly that width are the GMMA atoms' shape.
    Narrower rows are not claimed (conservative: not verified against hardware here).
    """
    if sw is None or sw.tma_mode(tile.elem_bytes) is None:
        return None
    width = 16 << sw.B
    return width if tile.row_length * tile.elem_bytes == width and tile.row_length == tile.cols else None


def _header(problem: Problem, layout, comment: str) -> str:
    t = problem.tile
    return (f"{comment} {layout.name}: {t.rows} x {t.cols} tile of {t.elem_bytes}-byte elements, "
            f"row length {t.row_length} (offsets in elements)")


def _cpp_layout(tile: Tile, pitch: int | None = None) -> str:
    return (f"cute::Layout<cute::Shape<cute::Int<{tile.rows}>, cute::Int<{tile.cols}>>, "
            f"cute::Stride<cute::Int<{pitch or tile.row_length}>, cute::Int<1>>>{{}}")


def _plain(tile: Tile, pitch: int, comment: str) -> str:
    spare = f", padded: {pitch - tile.cols} spare element(s) per row" if pitch > tile.cols else ""
    return f"{comment} no swizzle: plain row-major, rows {pitch} elements apart{spare}"


# --- targets ----------------------------------------------------------------------------------


def emit_cute(problem: Problem, layout) -> Snippet:
    tile = problem.tile
    head = _header(problem, layout, "//")
    pitch = row_pitch(tile, layout)
    if pitch:
        return Snippet("cute", f"{head}\n{_plain(tile, pitch, '//')}\n"
                               f"auto smem_layout = {_cpp_layout(tile, pitch)};", True)
    found = swizzled_rows(tile, layout)
    if found is None:
        chain = swizzle_chain(tile, layout)
        why = _cannot_cute(tile, layout, "//")
        if chain:
            why = (f"// cannot express as one CuTe layout: {' then '.join(x.name for x in chain)}, applied in turn to "
                   f"r * {tile.row_length} + c,\n// compose to no single Swizzle<B,M,S>, and composition(Swizzle, "
                   f"Layout) takes one; the function below is exact")
        return Snippet("cute", f"{head}\n{why}\n"
                               f"struct SmemLayout {{  // use as smem[SmemLayout{{}}(r, c)]\n"
                               f"  CUTE_HOST_DEVICE constexpr int operator()(int r, int c) const {{\n"
                               f"    return {layout.expression(tile)};\n  }}\n}};", False)
    pitch, sw = found
    lines = [head]
    if pitch != tile.row_length:
        lines.append(f"// rows padded to {pitch} elements ({pitch - tile.cols} spare per row), then {sw.name} "
                     f"on the padded offset r * {pitch} + c")
    elif not isinstance(layout, Swizzle):
        lines.append(f"// equal to {sw.name} on every element of this tile")
    lines += [f"using SmemSwizzle = cute::{sw.name};",
              f"auto smem_layout = cute::composition(SmemSwizzle{{}},\n    {_cpp_layout(tile, pitch)});"]
    byte = sw.byte_level(tile.elem_bytes)
    width = tma_width(tile, sw) if pitch == tile.row_length else None
    if width and tile.rows % 8 == 0:
        lines += [f"// byte form {byte.name} = the {width}B TMA/GMMA swizzle; the same layout as the GMMA atom",
                  f"// (T: {CPP_TYPES[tile.elem_bytes]}):",
                  f"// auto smem_layout = cute::tile_to_shape(cute::GMMA::{GMMA_ATOM[width]}<T>{{}},",
                  f"//     cute::Shape<cute::Int<{tile.rows}>, cute::Int<{tile.cols}>>{{}});"]
    else:
        lines.append(f"// byte form: {byte.name} on byte offsets")
    return Snippet("cute", "\n".join(lines), True)


def _why_not_swizzle(tile: Tile, layout) -> str:
    if layout.bases(tile) is None:
        pitch = getattr(layout, "pitch", tile.row_length)  # a padded layout's rows are this far apart
        return (f"with row length {pitch} the layout is not GF(2)-linear on the flat offset "
                f"r * {pitch} + c (carries), so no Swizzle<B,M,S> of that offset equals it")
    return ("it is not a single Swizzle<B,M,S> (one contiguous run of B source bits, one shift), "
            "so CuTe's composition(Swizzle, Layout) cannot express it")


def _cannot_cute(tile: Tile, layout, comment: str) -> str:
    return f"{comment} cannot express as a CuTe layout: {_why_not_swizzle(tile, layout)}; the function below is exact"


def emit_cute_dsl(problem: Problem, layout) -> Snippet:
    tile = problem.tile
    head = _header(problem, layout, "#")
    lines = [head, "import cutlass.cute as cute", "", "# inside a @cute.jit function (CuTe DSL, CUTLASS 4.x):"]
    pitch = row_pitch(tile, layout)
    if pitch:
        lines += [_plain(tile, pitch, "#"), f"smem_layout = {_dsl_layout(tile, pitch)}"]
        return Snippet("cute-dsl", "\n".join(lines), True)
    found = swizzled_rows(tile, layout)
    if found is None:
        return Snippet("cute-dsl", "\n".join(
            [head, _cannot_cute(tile, layout, "#"), "def smem_offset(r, c):",
             f"    return {layout.expression(tile)}"]), False)
    pitch, sw = found
    if pitch != tile.row_length:
        lines.append(f"# rows padded to {pitch} elements, then {sw.name} on the padded offset r * {pitch} + c")
    lines.append(f"smem_layout = cute.make_composed_layout(cute.make_swizzle({sw.B}, {sw.M}, {sw.S}), 0, "
                 f"{_dsl_layout(tile, pitch)})")
    return Snippet("cute-dsl", "\n".join(lines), True)


def _dsl_layout(tile: Tile, pitch: int) -> str:
    return f"cute.make_layout(({tile.rows}, {tile.cols}), stride=({pitch}, 1))"


def emit_cuda(problem: Problem, layout) -> Snippet:
    tile, wave = problem.tile, problem.bank_model.wavefront_bytes
    found = swizzled_rows(tile, layout)
    if found is not None:
        pitch, sw = found
        what = "logical element offset" if pitch == tile.row_length else f"offset with rows padded to {pitch}"
        body = (f"  const int p = r * {pitch} + c;  // {what}\n"
                f"  return p ^ ((p >> {sw.S}) & {sw.mask});  // {sw.name}")
    else:
        body = f"  return {layout.expression(tile)};"
    code = (f"{_header(problem, layout, '//')}\n"
            f"// phys(r, c): the physical element offset of element (r, c); index smem[phys(r, c)].\n"
            f"// Align the buffer to {wave} bytes so that offsets and banks agree.\n"
            f"static inline __host__ __device__ int swizzle_phys(int r, int c) {{\n{body}\n}}")
    return Snippet("cuda", code, True)


def _row_col_xor(tile: Tile, layout) -> list[int] | None:
    """Per row bit k, the column XOR it adds, when the layout is a pure per-row column XOR.

    Needs a power-of-two tile without padding (Triton's shapes) and a linear layout whose column
    bits map to themselves and whose row bits keep their row.
    """
    bases = layout.bases(tile)
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


def triton_swizzled_params(tile: Tile, layout) -> tuple[int, int, int] | None:
    """(vec, perPhase, maxPhase) whose Triton bases equal the layout's, or None."""
    xors = _row_col_xor(tile, layout)
    if xors is None:
        return None
    live = [k for k, x in enumerate(xors) if x]
    if not live:
        return (1, 1, 1)
    a, vec = live[0], xors[live[0]]
    params = (vec, 1 << a, 1 << len(live))
    return params if xors == triton_swizzled_xors(tile, *params) else None


def triton_swizzled_xors(tile: Tile, vec: int, per_phase: int, max_phase: int) -> list[int]:
    """The column part of each row basis: (vec * ((row / perPhase) % maxPhase)) % numCols."""
    return [(vec * (((1 << k) // per_phase) % max_phase)) % tile.cols for k in range(log2(tile.rows))]


def linear_offset_bases(tile: Tile, layout) -> list[list[int]] | None:
    """Triton's offset -> (row, col) bases: the inverse of the layout, when it is GF(2)-linear."""
    if tile.row_length != tile.cols or not (is_pow2(tile.rows) and is_pow2(tile.cols)):
        return None
    phys = table(tile, layout).ravel()
    if not np.array_equal(np.sort(phys), np.arange(phys.size)):
        return None  # not a permutation of the dense storage (padding, gaps)
    inverse = np.empty_like(phys)
    inverse[phys] = np.arange(phys.size)
    bits = log2(phys.size)
    images = [int(inverse[1 << i]) for i in range(bits)]
    x = np.arange(phys.size)
    span = np.zeros_like(x)
    for i, image in enumerate(images):
        span ^= np.where((x >> i) & 1, image, 0)
    if not np.array_equal(span, inverse):
        return None
    return [[p // tile.cols, p % tile.cols] for p in images]


def emit_triton(problem: Problem, layout) -> Snippet:
    tile = problem.tile
    head = _header(problem, layout, "#")
    gl = "import triton.experimental.gluon.language as ttgl  # Gluon; the MLIR attribute is given beside it"
    parts = []
    params = triton_swizzled_params(tile, layout)
    if params is not None:
        vec, per_phase, max_phase = params
        parts.append(f"# swizzled shared encoding: column XOR (vec * ((row / perPhase) % maxPhase))\n"
                     f"#   #ttg.swizzled_shared<{{vec = {vec}, perPhase = {per_phase}, maxPhase = {max_phase}, "
                     f"order = [1, 0]}}>\n"
                     f"smem_layout = ttgl.SwizzledSharedLayout(vec={vec}, per_phase={per_phase}, "
                     f"max_phase={max_phase}, order=[1, 0])")
    width = tma_width(tile, as_swizzle(tile, layout))
    if width and tile.rows % 8 == 0:
        parts.append(f"# = the {width}-byte NVMMA (TMA/wgmma) encoding: vec {16 // tile.elem_bytes}, perPhase "
                     f"{128 // width}, maxPhase {width // 16}; buffer aligned to {128 * (width // 16)} B\n"
                     f"#   #ttg.nvmma_shared<{{swizzlingByteWidth = {width}, transposed = false, "
                     f"elementBitWidth = {8 * tile.elem_bytes}}}>\n"
                     f"nvmma_layout = ttgl.NVMMASharedLayout(swizzle_byte_width={width}, "
                     f"element_bitwidth={8 * tile.elem_bytes}, rank=2)")
    if parts:
        return Snippet("triton", "\n".join([head, gl] + parts), True)
    pad = padding_of(tile, layout)
    if pad is not None:
        interval, padding = pad
        return Snippet("triton", "\n".join([
            head, gl, f"# padded shared encoding: {padding} spare element(s) after every {interval}",
            f"#   #ttg.padded_shared<[{interval}:+{padding}] {{order = [1, 0], shape = [{tile.rows}, {tile.cols}]}}>",
            f"smem_layout = ttgl.PaddedSharedLayout.with_identity_for([[{interval}, {padding}]], "
            f"[{tile.rows}, {tile.cols}], [1, 0])"]), True)
    bases = linear_offset_bases(tile, layout)
    if bases is not None:
        return Snippet("triton", "\n".join([
            head, gl, "# not a swizzled/NVMMA shape: a shared linear layout; offset bit i -> [row, col]",
            f"smem_layout = ttgl.SharedLinearLayout(offset_bases={bases})"]), True)
    return Snippet("triton", "\n".join([head, "# cannot express in Triton: " + _triton_why(tile, layout)]), False)


def _triton_why(tile: Tile, layout) -> str:
    if not (is_pow2(tile.rows) and is_pow2(tile.cols)):
        return f"Triton's shared encodings need power-of-two shapes, the tile is {tile.rows} x {tile.cols}"
    pitch = row_pitch(tile, layout)
    if pitch:
        return (f"its padding of {pitch - tile.cols} element(s) per row is not a power of two "
                f"(Triton's padded encoding needs one)")
    if tile.row_length != tile.cols:
        return (f"the {tile.row_length - tile.cols} spare element(s) per row are padding mixed with a swizzle: "
                f"no swizzled, padded or linear encoding says both")
    return "the layout is not GF(2)-linear on the offset bits (no swizzled, NVMMA or linear encoding)"


def padding_of(tile: Tile, layout) -> tuple[int, int] | None:
    """(interval, padding) of Triton's padded encoding when the layout is row-major with padding:
    ``padding`` spare elements after every ``interval`` (= cols) elements, both powers of two."""
    pitch = row_pitch(tile, layout)
    if pitch is None or pitch == tile.cols or not all(map(is_pow2, (tile.rows, tile.cols, pitch - tile.cols))):
        return None
    return tile.cols, pitch - tile.cols


def emit_mojo(problem: Problem, layout) -> Snippet:
    tile = problem.tile
    head = _header(problem, layout, "#")
    pitch = row_pitch(tile, layout)
    if pitch:
        return Snippet("mojo", f"{head}\n{_plain(tile, pitch, '#')}\nfrom layout import Layout, IntTuple\n"
                               f"alias smem_layout = Layout(IntTuple({tile.rows}, {tile.cols}), IntTuple({pitch}, 1))",
                       True)
    found = swizzled_rows(tile, layout)
    if found is None:
        return Snippet("mojo", f"{head}\n# cannot express as Mojo's Swizzle(bits, base, shift): "
                               f"{_why_not_swizzle(tile, layout)}\n"
                               f"fn smem_offset(r: Int, c: Int) -> Int:\n    return {layout.expression(tile)}",
                       False)
    pitch, sw = found
    lines = [head, "from layout.swizzle import Swizzle, make_swizzle", "",
             f"alias smem_swizzle = Swizzle({sw.B}, {sw.M}, {sw.S})  # bits, base, shift (= CuTe {sw.name})",
             f"# element (r, c) is at smem_swizzle(r * {pitch} + c)"
             + (f": rows padded to {pitch} elements" if pitch != tile.row_length else "")]
    if 1 << (sw.S + sw.M) == pitch:
        lines.append(f"# the same: make_swizzle[num_rows={1 << sw.B}, row_size={pitch}, "
                     f"access_size={1 << sw.M}]()")
    width = tma_width(tile, sw) if pitch == tile.row_length else None
    if width:
        lines.append(f"# the same: make_swizzle[dtype, TensorMapSwizzle.SWIZZLE_{width}B]()")
    return Snippet("mojo", "\n".join(lines), True)


def emit_tma(problem: Problem, layout) -> Snippet:
    tile = problem.tile
    head = _header(problem, layout, "//")
    row_bytes = tile.cols * tile.elem_bytes
    pitch = row_pitch(tile, layout)
    rows_apart = pitch or getattr(layout, "pitch", tile.cols)  # plain rows, or a padded layout's
    if rows_apart != tile.cols:
        return Snippet("tma", f"{head}\n// not a TMA layout: TMA writes a box densely, it cannot leave the "
                              f"{rows_apart - tile.cols} padding element(s) per row", False)
    if pitch:
        if row_bytes % 16:
            return Snippet("tma", f"{head}\n// not a TMA layout: the box's inner extent ({row_bytes} B) must be "
                                  f"a multiple of 16 bytes", False)
        return Snippet("tma", f"{head}\nCUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_NONE;\n"
                              f"// box inner extent {tile.cols} elements ({row_bytes} B, a multiple of 16 B); "
                              f"shared buffer aligned to 128 B", True)
    sw = as_swizzle(tile, layout)
    width = tma_width(tile, sw)
    if width is None:
        if sw is None:
            why = "the layout is not a single CuTe swizzle, and TMA modes are byte-level Swizzle<1|2|3,4,3>"
        elif sw.tma_mode(tile.elem_bytes) is None:
            why = (f"its byte form {sw.byte_level(tile.elem_bytes).name} is not a TMA mode "
                   f"(32B = Swizzle<1,4,3>, 64B = Swizzle<2,4,3>, 128B = Swizzle<3,4,3>)")
        else:
            w = 16 << sw.B
            why = (f"its byte form {sw.byte_level(tile.elem_bytes).name} is the {w}B mode only for rows of "
                   f"exactly {w} B, and this tile's rows are {tile.row_length * tile.elem_bytes} B")
        return Snippet("tma", f"{head}\n// not a TMA swizzle mode: {why}", False)
    return Snippet("tma", "\n".join([
        head,
        f"CUtensorMapSwizzle swizzle = {TMA_ENUM[width]};  // byte form {sw.byte_level(tile.elem_bytes).name}",
        f"// box inner extent: {tile.cols} elements x {tile.elem_bytes} B = {row_bytes} B "
        f"<= {width} B (the swizzle width)",
        f"// box outer extent: {tile.rows} rows (at most 256 per box: load taller tiles as several boxes)",
        f"// shared buffer aligned to {8 * width} B (the {8 * width}-byte swizzle period: 8 rows of {width} B)"]), True)


EMITTERS = {"cute": emit_cute, "cute-dsl": emit_cute_dsl, "cuda": emit_cuda, "triton": emit_triton,
            "mojo": emit_mojo, "tma": emit_tma}
