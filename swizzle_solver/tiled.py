"""CuTe's TiledCopy and TiledMMA as ``--access`` (issue 34 item 2): every thread's shared-memory
addresses, counted per warp instruction (a TiledMMA: ``parse_tiled_mma`` below).

    make_tiled_copy(Copy_Atom<SM75_U32x4_LDSM_N, half_t>{}, Layout<Shape<_32,_4>,Stride<_4,_1>>{},
                    Layout<Shape<_1,_8>>{})

The atom is one of access/cute_atoms.py's (``SM75_*_LDSM_N/T``, ``SM90_*_STSM_N/T``,
``SM80_CP_ASYNC_CACHEGLOBAL/CACHEALWAYS<uint128_t>``, ``UniversalCopy<uint8_t .. uint128_t>``), its
value type the tile's element; the thread and value layouts are read by the ``cute:`` reader
(notation/cute.py: ``Layout<...>{}``, ``make_layout(...)``, CuTe's printed form, ...), each
(m, n) -> thread (value) index, a bijection onto its size. ``tiled_copy(atom, thr, val, value_type)``
writes the same text from pycute (or CuTe DSL) layouts, for the Python API.

What CuTe computes (cute/atom/copy_atom.hpp, ``make_tiled_copy`` and ``TiledCopy::tidfrg_S/D``):

- the tile is ``raked_product(thr, val)``: thread (tm, tn), value (vm, vn) hold element
  (vm + VM tm, vn + VN tn) of an (VM TM) x (VN TN) tile, so ``TV(tid, vid) = (m, n)`` with
  tid = thr(tm, tn), vid = val(vm, vn);
- the atom's threads are the tiled copy's in groups of its ThrID size (1 or 32), and its values
  the first of each thread's in groups of AtomNumVal; the shared-memory side of the atom (LDSM's
  and cp.async's ... Src, STSM's Dst, UniversalCopy's either) names for its thread s and bit j the
  bit ``S(s, j)`` of the atom's data, which the reference layout R (the registers' side) assigns to
  reference thread and bit ``R^-1(S(s, j))``; so atom thread s of copy thread group g, in the atom's
  k-th execution, addresses the tile element ``TV(rt + AtomNumThr g, rv + AtomNumVal k)`` with
  (rt, rb) = R^-1(S(s, 0)), rv = rb / the value's bits; its values run along the tile row.

The tile's row is the TiledCopy's m, its column n (n contiguous in memory: the vectors a thread
moves must be a run along n). One warp instruction is one execution of the atom by the 32 threads
of a warp: ldmatrix / stmatrix x1, x2, x4 issue the row addresses of lanes 8i .. 8i+7 as matrix i's
phase (access/warp.py's matrix forms), the per-thread atoms one request of 32 lanes split by the
hardware's rule. The TiledCopy's tile is placed at every aligned position of the tile, and each
warp instruction is a placement (as index:'s are). tests/test_tiled.py computes the same addresses
with pycute's right_inverse and composition from the Copy_Traits headers, and counts them with a
per-lane brute force.
"""
from __future__ import annotations

import operator
import re
import reprlib
from typing import Any

from .access.cute_atoms import form_of
from .access.mma_atoms import evaluate, size
from .access.warp import refuse, tile_pattern
from .hardware import Hardware, Lane
from .model import InputError, Pattern, Tile
from .notation.cute import TYPE_BYTES
from .notation.cute import parse as parse_cute
from .notation.expr import NotationError
from .value import Value, replace

PREFIXES = ("make_tiled_copy", "cute::make_tiled_copy")
MAX_THREADS = 1024
WARP = 32


class CopyAtom(Value):
    """A copy atom's layouts in bits: its threads, the shared-memory side S and the reference R."""

    name: str
    threads: int  # ThrID's size
    smem: Any  # (shape, stride): (thread, bit) -> bit of the atom's data, the side in shared memory
    ref: Any  # the reference (register) side
    kind: str  # the pattern's kind: ldmatrix, stmatrix, cp.async, warp
    matrices: int = 0  # ldmatrix / stmatrix: .x1, .x2, .x4


def _ldsm_rows(k: int) -> Any:
    """LDSM's SrcLayout (STSM's DstLayout) of k matrices: thread t addresses 128 bits at row t % 8k."""
    return (((8 * k, 4 // k), 128), ((128, 0), 1))


def _registers(k: int, trans: bool) -> Any:
    """LDSM's DstLayout (STSM's SrcLayout), the reference: copy_traits_sm75.hpp."""
    if trans:
        return (((4, 8), (16, 2, k)), ((256, 16), (1, 128, 1024)))
    return ((32, (32, k)), (32, (1, 1024)))


def copy_atom(spec: str, name: str) -> CopyAtom:
    """The atom ``name`` (cute_atoms' spelling) as its layouts, or bad input."""
    text = name.strip().lower()
    m = re.fullmatch(r"sm(75|90)_u(32|16)x([0-9])_(ldsm|stsm)_(n|t)", text)
    if m:
        form = form_of(text, Tile(8, 8, 8, 2))  # validates the name (its matrices)
        k = int(form.split(".x")[1][0])
        op = "ldmatrix" if m[4] == "ldsm" else "stmatrix"
        return CopyAtom(name.strip(), 32, _ldsm_rows(k), _registers(k, m[5] == "t"), op, k)
    t = re.fullmatch(r"(sm80_cp_async_cacheglobal|sm80_cp_async_cachealways|universalcopy)\s*<\s*(?:cute::)?"
                     r"uint(8|16|32|64|128)_t\s*>", text)
    if t is None:
        form_of(text, Tile(8, 8, 8, 2))  # its refusal names the atoms read
        raise InputError(f"access {_short(spec)}: {name.strip()!r} is not a copy atom of a TiledCopy here")
    bits = int(t[2])
    if t[1].startswith("sm80") and bits != 128:
        raise InputError(f"access {_short(spec)}: cp.async of {bits // 8} bytes per thread is not a form yet: use "
                         f"uint128_t")
    layout = ((1, bits), (0, 1))
    kind = "cp.async" if t[1].startswith("sm80") else "warp"
    return CopyAtom(name.strip(), 1, layout, layout, kind)


# --- the text ---------------------------------------------------------------------------------


def _short(spec: str) -> str:
    text = " ".join(spec.split())
    return repr(text if len(text) <= 60 else text[:57] + "...")


def _arguments(text: str) -> list[str]:
    """The top-level arguments of ``f(a, b<c, d>{}, ...)``'s parentheses."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += ch in "(<{["
        depth -= ch in ")>}]"
        if ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    return parts + [text[start:].strip()]


def split_spec(spec: str) -> tuple[str, str, str, str, str]:
    """(atom name, value type, thread layout text, value layout text, direction) of the spec."""
    text, direction = spec.strip(), ""
    tail = re.search(r";\s*(store|load)\s*$", text, re.I)
    if tail:
        text, direction = text[:tail.start()].strip(), tail[1].lower()
    m = re.fullmatch(r"(?:cute::)?make_tiled_copy\s*\((.*)\)\s*;?", text, re.S | re.I)
    args = _arguments(m[1]) if m else []
    atom = re.fullmatch(r"(?:cute::)?Copy_Atom\s*<(.*)>\s*(?:\{\s*\})?", args[0], re.S | re.I) if args else None
    inner = _arguments(atom[1]) if atom else []
    if m is None or atom is None or len(inner) != 2 or len(args) not in (2, 3):
        raise InputError(f"access {_short(spec)}: write make_tiled_copy(Copy_Atom<ATOM, T>{{}}, Layout<...>{{}} "
                         f"(threads), Layout<...>{{}} (values)), e.g. make_tiled_copy(Copy_Atom<SM75_U32x4_LDSM_N, "
                         f"half_t>{{}}, Layout<Shape<_32,_4>,Stride<_4,_1>>{{}}, Layout<Shape<_1,_8>>{{}})")
    name = re.sub(r"^cute::", "", inner[0].strip())
    return name, inner[1].strip(), args[1], args[2] if len(args) == 3 else "Layout<_1>{}", direction


def _layout(spec: str, text: str, what: str) -> tuple[Any, Any]:
    """A rank-2 (m, n) -> index layout (rank 1: (m) with n of size 1) read by the cute: reader."""
    try:
        layout = parse_cute(text).layout
    except NotationError as err:
        raise InputError(f"access {_short(spec)}: the {what} layout {text!r}: {err.message}") from None
    shape, stride = getattr(layout, "shape", None), getattr(layout, "stride", None)
    if shape is None or stride is None:
        raise InputError(f"access {_short(spec)}: the {what} layout is not a plain Layout<Shape, Stride> (no "
                         f"swizzle, no composition)")
    if isinstance(shape, int):
        shape, stride = (shape, 1), (stride, 0)
    if len(shape) != 2:
        raise InputError(f"access {_short(spec)}: the {what} layout has {len(shape)} modes: a TiledCopy's are "
                         f"(m, n)")
    return shape, stride


def _table(spec: str, layout: tuple[Any, Any], what: str) -> dict[int, tuple[int, int]]:
    """index -> (m, n) of a bijective (m, n) -> index layout, or bad input."""
    (s0, s1), (d0, d1) = layout
    size0, size1 = size(s0), size(s1)
    if size0 * size1 > MAX_THREADS * 64:
        raise InputError(f"access {_short(spec)}: the {what} layout has {size0 * size1} entries: state one tile")
    out = {evaluate(s0, d0, i) + evaluate(s1, d1, j): (i, j) for j in range(size1) for i in range(size0)}
    if sorted(out) != list(range(size0 * size1)):
        raise InputError(f"access {_short(spec)}: the {what} layout is not a bijection of its {size0 * size1} "
                         f"(m, n) onto 0 .. {size0 * size1 - 1} (a broadcast or a gap): make_tiled_copy's here are")
    return out


# --- the addresses ------------------------------------------------------------------------------


def thread_value_tile(thr: dict[int, tuple[int, int]], val: dict[int, tuple[int, int]], vshape: tuple[int, int]):
    """TV(tid, vid) -> (m, n) of raked_product(thr, val): (vm + VM tm, vn + VN tn)."""
    vm, vn = vshape

    def tv(tid: int, vid: int) -> tuple[int, int]:
        (tm, tn), (am, an) = thr[tid], val[vid]
        return am + vm * tm, an + vn * tn
    return tv


def _inverse(layout: Any) -> dict[int, tuple[int, int]]:
    """bit of the atom's data -> (thread, bit) of the reference layout (a bijection)."""
    (s0, s1), (d0, d1) = layout
    return {evaluate(s0, d0, t) + evaluate(s1, d1, b): (t, b) for t in range(size(s0)) for b in range(size(s1))}


def lane_addresses(atom: CopyAtom, tv, threads: int, values: int, value_bits: int, spec: str) -> list[list[Lane]]:
    """Every warp instruction's lanes (row, col, bytes), in warp then execution order: each thread's
    first value of its shared-memory side, checked to run along the tile row."""
    inverse = _inverse(atom.ref)
    (s0, s1), (d0, d1) = atom.smem
    thread_bits = size(s1)
    atom_values = size(atom.ref[0][1]) // value_bits
    per = thread_bits // value_bits
    out = []
    for warp in range(threads // WARP):
        for k in range(values // atom_values):
            lanes = []
            for lane in range(WARP):
                tid = WARP * warp + lane
                s, group = tid % atom.threads, tid // atom.threads
                cells = []
                for j in range(per):
                    rt, rb = inverse[evaluate(s0, d0, s) + evaluate(s1, d1, j * value_bits)]
                    cells.append(tv(rt + atom.threads * group, rb // value_bits + atom_values * k))
                run = [(cells[0][0], cells[0][1] + j) for j in range(per)]
                if cells != run:
                    j = next(j for j in range(per) if cells[j] != run[j])
                    raise InputError(f"access {_short(spec)}: thread {tid} moves {per} values in one {atom.name}, "
                                     f"which must be one run along a tile row (n), but its value {j} is at "
                                     f"{cells[j]} after {cells[j - 1]}: choose thread and value layouts whose "
                                     f"threads hold the atom's runs (e.g. its MMA's, make_tiled_copy_A)")
                lanes.append((cells[0][0], cells[0][1], thread_bits // 8))
            out.append(lanes)
    return out


def _phases(atom: CopyAtom, lanes: list[Lane], hardware: Hardware, write: bool) -> list[list[Lane]]:
    if atom.matrices:  # ldmatrix / stmatrix: matrix i's 8 row addresses (lanes 8i .. 8i+7) one phase
        return [lanes[8 * i:8 * i + 8] for i in range(atom.matrices)]
    return hardware.split_request(lanes, write)


def _served(spec: str, atom: CopyAtom, type_name: str, tile: Tile, hardware: Hardware) -> None:
    """Bad input unless the target has the atom's instruction and 32-lane warps, and the value type
    is the tile's element."""
    if tile.col_major or tile.elem_bits:
        raise InputError(f"access {_short(spec)}: a TiledCopy is read on a row-major tile of whole-byte elements: "
                         f"state the tile as stored (--order row), its columns the TiledCopy's n (a 4-bit tile: "
                         f"its packed bytes, --dtype u8 and half the --cols, with uint8_t values)")
    if atom.kind in ("ldmatrix", "stmatrix"):
        refuse(_short(spec), hardware, atom.kind)
    if hardware.wave_lanes != WARP:
        raise InputError(f"access {_short(spec)}: a TiledCopy is counted in warps of {WARP} threads, and a "
                         f"{hardware.group} of --arch {hardware.name} has {hardware.wave_lanes} lanes")
    value_bytes = TYPE_BYTES.get(re.sub(r"^(cute|cutlass)::", "", type_name))
    if value_bytes != tile.elem_bytes:
        raise InputError(f"access {_short(spec)}: the atom's value type {type_name!r} is "
                         f"{'unknown' if value_bytes is None else f'{value_bytes}-byte'}, the tile's elements are "
                         f"{tile.elem_bytes}-byte: give the --dtype of the value type (half_t: f16, float: f32)")
    if size(atom.smem[0][1]) < 8 * tile.elem_bytes:
        raise InputError(f"access {_short(spec)}: {atom.name} moves {size(atom.smem[0][1])} bits a thread, less than "
                         f"one {type_name}: use a wider atom")


def parse_tiled(spec: str, tile: Tile, hardware: Hardware) -> Pattern:
    """The TiledCopy ``spec`` names: every warp instruction over the tile."""
    name, type_name, thr_text, val_text, direction = split_spec(spec)
    atom = copy_atom(spec, name)
    _served(spec, atom, type_name, tile, hardware)
    thr_layout, val_layout = _layout(spec, thr_text, "thread"), _layout(spec, val_text, "value")
    thr, val = _table(spec, thr_layout, "thread"), _table(spec, val_layout, "value")
    threads, values = len(thr), len(val)
    value_bits = 8 * tile.elem_bytes
    atom_values = size(atom.ref[0][1]) // value_bits
    if threads % WARP or threads > MAX_THREADS or values % max(1, atom_values) or atom_values < 1:
        raise InputError(f"access {_short(spec)}: {threads} threads x {values} values: a TiledCopy of {atom.name} "
                         f"here is whole warps (at most {MAX_THREADS} threads) and a multiple of the atom's "
                         f"{max(1, atom_values)} values per thread")
    vshape = (size(val_layout[0][0]), size(val_layout[0][1]))
    height = vshape[0] * size(thr_layout[0][0])
    width = vshape[1] * size(thr_layout[0][1])
    tv = thread_value_tile(thr, val, vshape)
    write = atom.kind in ("stmatrix", "cp.async") or direction == "store"
    instructions = lane_addresses(atom, tv, threads, values, value_bits, spec)
    template: list[list[Lane]] = []
    for lanes in instructions:
        template += _phases(atom, lanes, hardware, write)
    per = len(template) // len(instructions)
    summary = (f"{threads // WARP} warp{'s' if threads > WARP else ''} x {len(instructions) * WARP // threads} "
               f"{atom.name} over {height} x {width}" + (f" ({per} phases)" if per > 1 else ""))
    pattern = tile_pattern(spec, atom.kind, template, height, width, summary, tile, hardware)
    return replace(pattern, phases_per_placement=per)


# --- TiledMMA -----------------------------------------------------------------------------------

MMA_PREFIXES = ("make_tiled_mma", "cute::make_tiled_mma")


def split_mma(spec: str) -> tuple[str, str, str]:
    """(the atom's spec with its operand suffix, the atom layout text, the suffix) of
    ``make_tiled_mma(ATOM{}, Layout<...>{}):a``."""
    text = re.sub(r";\s*(store|load)\s*$", "", spec.strip(), flags=re.I)
    m = re.fullmatch(r"(?:cute::)?make_tiled_mma\s*\((.*)\)\s*((?::\s*[A-Za-z]+\s*){0,2});?", text, re.S | re.I)
    args = _arguments(m[1]) if m else []
    if m is None or len(args) not in (1, 2) or not m[2].strip():
        raise InputError(f"access {_short(spec)}: write make_tiled_mma(ATOM{{}}, Layout<Shape<_WM,_WN>>{{}}) and the "
                         f"operand after it, :a, :b or :c (e.g. make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN{{}}, "
                         f"Layout<Shape<_2,_2>>{{}}):a); a permutation (a third argument) is not read")
    atom = re.sub(r"\s+", "", args[0]).removesuffix("{}")
    return atom + re.sub(r"\s+", "", m[2]), args[1] if len(args) == 2 else "Layout<Shape<_1,_1>>{}", m[2]


def _warps(spec: str, text: str) -> list[tuple[int, int]]:
    """(wm, wn) of each warp of the AtomLayoutMNK ((m, n) or (m, n, 1) -> warp), in warp order."""
    try:
        layout = parse_cute(text).layout
    except NotationError as err:
        raise InputError(f"access {_short(spec)}: the atom layout {text!r}: {err.message}") from None
    shape: Any = getattr(layout, "shape", None)
    stride: Any = getattr(layout, "stride", None)
    if isinstance(shape, int):
        shape, stride = (shape, 1), (stride, 0)
    if shape is None or stride is None or len(shape) not in (2, 3) or (len(shape) == 3 and size(shape[2]) != 1):
        raise InputError(f"access {_short(spec)}: the atom layout is (M, N) or (M, N, 1) warps (a K mode of 1)")
    table = _table(spec, (shape[:2], stride[:2]), "atom")
    return [table[w] for w in range(len(table))]


def parse_tiled_mma(spec: str, tile: Tile, hardware: Hardware) -> Pattern:
    """One operand of a TiledMMA: warp (wm, wn) moves its atom's fragment of A block wm, B block wn,
    C block (wm, wn) (CuTe's TiledMMA without a permutation), each warp's read one placement."""
    from .access.mma_atoms import operand_template, split

    atom_spec, layout_text, _ = split_mma(spec)
    if tile.col_major or tile.elem_bits:
        raise InputError(f"access {_short(spec)}: a TiledMMA is read on a row-major tile of whole-byte elements: "
                         f"state the operand as stored (--order row; :mn for an M/N-major operand)")
    _, operand, major = split(atom_spec)
    template, height, width, summary = operand_template(atom_spec, tile, hardware)
    warps = _warps(spec, layout_text)
    wm_count = 1 + max(wm for wm, _ in warps)
    wn_count = 1 + max(wn for _, wn in warps)
    blocks = {"a": lambda wm, wn: (wm, 0), "b": lambda wm, wn: (wn, 0), "c": lambda wm, wn: (wm, wn)}[operand]
    counts = {"a": (wm_count, 1), "b": (wn_count, 1), "c": (wm_count, wn_count)}[operand]
    if major == "mn":  # the stored operand is the transpose: its blocks run along the columns
        blocks = (lambda f: lambda wm, wn: f(wm, wn)[::-1])(blocks)
        counts = counts[::-1]
    whole: list[list[Lane]] = []
    for wm, wn in warps:
        br, bc = blocks(wm, wn)
        whole += [[(r + br * height, c + bc * width, b) for r, c, b in phase] for phase in template]
    kind = f"mma-{operand}"
    text = f"{len(warps)} warps ({wm_count}x{wn_count}) x {summary}"
    pattern = tile_pattern(spec, kind, whole, counts[0] * height, counts[1] * width, text, tile, hardware)
    return replace(pattern, phases_per_placement=len(template))


def tiled_copy(atom: str, thr_layout: Any, val_layout: Any, value_type: str = "half_t") -> str:
    """The ``--access`` text of ``make_tiled_copy(Copy_Atom<atom, value_type>{}, thr_layout,
    val_layout)`` from layouts with ``.shape`` and ``.stride`` (pycute's Layout, the CuTe DSL's)."""
    def layout(x: Any) -> str:
        if not (hasattr(x, "shape") and hasattr(x, "stride")):
            raise InputError(f"tiled_copy: {type(x).__name__} is not a layout: give pycute's Layout or the CuTe "
                             f"DSL's (with .shape and .stride)")
        return f"Layout<{_int_tuple(x.shape, 'Shape')},{_int_tuple(x.stride, 'Stride')}>{{}}"
    return f"make_tiled_copy(Copy_Atom<{atom}, {value_type}>{{}}, {layout(thr_layout)}, {layout(val_layout)})"


def _int_tuple(t: Any, word: str, depth: int = 0) -> str:
    """``_8`` of an integer, ``Shape<...>`` (``Stride<...>``) of a tuple of them; anything else (a
    string, None, nesting past CuTe's depth) is bad input, not a recursion without end."""
    if isinstance(t, (tuple, list)) and t and depth < 8:
        return f"{word}<{','.join(_int_tuple(x, word, depth + 1) for x in t)}>"
    if not isinstance(t, (bool, str, bytes, tuple, list)) and hasattr(t, "__index__"):
        return f"_{operator.index(t)}"
    raise InputError(f"tiled_copy: a layout's {word.lower()} is an integer or a tuple of them (at most 8 levels), "
                     f"not {reprlib.repr(t)[:40]}")  # (reprlib: a 3,000-deep tuple has no repr)


def register() -> None:
    """Make make_tiled_copy(...) readable by access.parse_access (which cannot import this module)."""
    from .access import FORMS_ABOVE

    for prefix in PREFIXES:
        FORMS_ABOVE[prefix] = parse_tiled
    for prefix in MMA_PREFIXES:
        FORMS_ABOVE[prefix] = parse_tiled_mma


register()
