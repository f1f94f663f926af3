"""CuTe MMA atoms by name, as ``--access`` (issue 34 item 2): one operand of one atom, read or stored.

    SM80_16x8x16_F32F16F16F32_TN:a      the A operand (M x K) read from the tile by ld.shared
    SM80_16x8x16_F32F16F16F32_TN:b      the B operand (N x K)
    SM80_16x8x16_F32F16F16F32_TN:c      the accumulator (M x N) stored to the tile by st.shared
    ...:a:mn, ...:b:mn, ...:c:mn        the operand stored M- (N-) major: tile row = k (C: row n)

Also written ``cute::NAME:a`` and ``MMA_Atom<NAME>:a``. The operand suffix is required: an atom
names three fragments, and the tool does not guess which one the kernel moves through shared memory.

Each atom's thread-value layout is CuTe's (MMA_Traits<NAME>::ALayout / BLayout / CLayout in
cute/atom/mma_traits_sm75.hpp, _sm80.hpp, _sm89.hpp), written below as (shape, stride) pairs of
(thread, value) -> index of the operand, column-major: A's element (m, k) is index m + M k, B's
(n, k) is n + N k, C's (m, n) is m + M n. tests/test_mma_atoms.py reads every layout back from the
headers of the nvidia-cutlass wheel and evaluates both with pycute.

The tile is the operand as stored (``:a``: row m, column k; ``:b``: row n, column k; ``:c``: row m,
column n; ``:mn`` swaps them; under ``--order col`` the operand follows the tile, as mma-a's does:
the stored tile's ``:mn``, and ``:k`` is refused, access/order.py), and each lane moves its values as access/fragments.py's
``mma-a``/``mma-b`` do: runs of consecutive columns in one row, split into the widest aligned
vectors (at most 16 bytes) that every lane's runs allow; the lanes' k-th vectors are one warp
request, split into phases by the hardware's rule (a store for ``:c``). The footprint is placed at
every aligned position of the tile.

Element sizes: ``:a``/``:b`` read the atom's own A/B type (the tile's --dtype must have its size,
e.g. f16 for F16, tf32 or f32 for TF32, i8 for S8, e4m3 for E4M3); ``:c`` stores the accumulator's
type, or 2-byte elements where the accumulator is 4-byte (the epilogue's conversion to f16/bf16
before the store). The 4-bit (S4/U4) and 1-bit (U1) atoms, and the complex ones, are refused.
"""
from __future__ import annotations

import re
from typing import Any

from ..hardware import Hardware, Lane
from ..model import InputError, Pattern, Tile
from .fragments import instruction, requests, vector_elements
from .warp import refuse, tile_pattern

LANES = 32

# The anonymous-namespace layouts of mma_traits_sm80.hpp, (T32, V) -> index.
_8x4 = (((4, 8), 1), ((8, 1), 0))
_8x8_ROW = (((4, 8), 2), ((16, 1), 8))
_8x16_ROW = (((4, 8), 4), ((32, 1), 8))
_16x8_ROW = (((4, 8), (2, 2)), ((32, 1), (16, 8)))

# (M, N, K, bits of A and B) -> (ALayout, BLayout): the traits of every atom of that shape and width.
OPERANDS: dict[tuple[int, int, int, int], tuple[Any, Any]] = {
    (16, 8, 8, 16): (_16x8_ROW, _8x8_ROW),
    (16, 8, 16, 16): ((((4, 8), (2, 2, 2)), ((32, 1), (16, 8, 128))), (((4, 8), (2, 2)), ((16, 1), (8, 64)))),
    (16, 8, 4, 32): ((((4, 8), 2), ((16, 1), 8)), _8x4),
    (16, 8, 8, 32): ((((4, 8), (2, 2)), ((16, 1), (8, 64))), (((4, 8), 2), ((8, 1), 32))),
    (8, 8, 4, 64): (_8x4, _8x4),
    (8, 8, 16, 8): (_8x16_ROW, _8x16_ROW),
    (16, 8, 16, 8): ((((4, 8), (4, 2)), ((64, 1), (16, 8))), _8x16_ROW),
    (16, 8, 32, 8): ((((4, 8), (4, 2, 2)), ((64, 1), (16, 8, 256))), (((4, 8), (4, 2)), ((32, 1), (8, 128)))),
}
C_LAYOUTS = {(16, 8): _16x8_ROW, (8, 8): _8x8_ROW}  # (M, N) -> CLayout

# the --dtype of each type of the atoms' names
DTYPE = {"f16": "f16", "bf16": "bf16", "f32": "f32", "tf32": "tf32", "f64": "f64", "s8": "i8", "u8": "u8",
         "e4m3": "e4m3", "e5m2": "e5m2", "s32": "i32"}
BITS = {"f16": 16, "bf16": 16, "f32": 32, "tf32": 32, "f64": 64, "s8": 8, "u8": 8, "e4m3": 8, "e5m2": 8, "s32": 32}
_INT8 = ("S32S8S8S32", "S32S8U8S32", "S32U8S8S32", "S32U8U8S32")
_FP8 = ("E4M3E4M3", "E4M3E5M2", "E5M2E5M2", "E5M2E4M3")

# Every atom of CuTe's mma_traits_sm75/80/89.hpp this reader knows, by name (upper case, no _TN).
ATOMS: frozenset[str] = frozenset(
    ["SM75_16x8x8_F32F16F16F32", "SM75_8x8x16_S32S8S8S32",
     "SM80_16x8x8_F16F16F16F16", "SM80_16x8x16_F16F16F16F16", "SM80_16x8x8_F32F16F16F32",
     "SM80_16x8x16_F32F16F16F32", "SM80_16x8x8_F32BF16BF16F32", "SM80_16x8x16_F32BF16BF16F32",
     "SM80_16x8x4_F32TF32TF32F32", "SM80_16x8x8_F32TF32TF32F32", "SM80_8x8x4_F64F64F64F64"]
    + [f"SM80_{shape}_{t}{sat}" for shape in ("8x8x16", "16x8x16", "16x8x32") for t in _INT8
       for sat in ("", "_SATURATE")]
    + [f"SM89_16x8x32_{d}{ab}{d}" for d in ("F32", "F16") for ab in _FP8])

_NAME = re.compile(r"^(sm\d\d_(\d+)x(\d+)x(\d+)_([a-z0-9]+?))_tn(_saturate)?$")
_TYPES = re.compile("(f16|bf16|f32|tf32|f64|s32|s8|u8|s4|u4|u1|e4m3|e5m2|c64|gc64)" * 4)


def _cut(spec: str) -> str:
    """The spec as a message names it (a long one cut)."""
    text = " ".join(spec.split())
    return text if len(text) <= 80 else text[:77] + "..."


def _short(spec: str) -> str:
    return repr(_cut(spec))


def is_mma_atom(text: str) -> bool:
    """``text`` (stripped, lower case) names an MMA atom (not a copy atom: SM75_U32x4_LDSM_N)."""
    return _NAME.match(_bare(_plain(text).partition(":")[0])) is not None


def _plain(text: str) -> str:
    """``text`` without blanks and ``cute::`` qualifiers (lower case)."""
    return re.sub(r"\s+", "", text.lower()).replace("cute::", "")


def _bare(name: str) -> str:
    """NAME of ``MMA_Atom<NAME>`` and ``NAME{}``."""
    m = re.fullmatch(r"mma_atom<(.+)>", name)
    return (m[1] if m else name).removesuffix("{}")


def split(spec: str) -> tuple[str, str, str]:
    """(atom name, operand a/b/c, major k/mn) of ``spec``, or bad input naming the suffix."""
    name, *suffix = _plain(spec).split(":")
    traits(spec, _bare(name))  # an unknown name first
    operand, major = (suffix + ["", ""])[:2]
    if operand not in ("a", "b", "c") or len(suffix) > 2 or major not in ("", "k", "mn"):
        raise InputError(f"access {_short(spec)}: name the operand after the MMA atom: NAME:a or NAME:b (the A or "
                         f"B operand read) or NAME:c (the accumulator store), optionally :mn (tile row = k; C: n)")
    return _bare(name), operand, major or "k"


def traits(spec: str, name: str) -> tuple[tuple[int, int, int], dict[str, str]]:
    """((M, N, K), the types of d, a, b, c) of the atom ``name`` (lower case), or bad input."""
    m = _NAME.match(name)
    types = _TYPES.fullmatch(m[5]) if m else None
    key = None if m is None else f"{m[1].upper().replace('X', 'x')}{'_SATURATE' if m[6] else ''}"
    if m is None or types is None or key not in ATOMS:
        _descriptor_atom(spec, name)
        if types is not None and any(t in ("s4", "u4", "u1", "c64", "gc64") for t in types.groups()):
            raise InputError(f"access {_short(spec)}: the 4-bit, 1-bit and complex MMA atoms are not forms yet: "
                             f"state the operand's reads as an index: access or a --phases file")
        raise InputError(f"access {_short(spec)}: not an MMA atom of CuTe's mma_traits_sm75/80/89.hpp: e.g. "
                         f"SM80_16x8x16_F32F16F16F32_TN:a, SM80_16x8x8_F32TF32TF32F32_TN:b, "
                         f"SM80_16x8x32_S32S8S8S32_TN:a, SM89_16x8x32_F32E4M3E4M3F32_TN:b, ...:c")
    return (int(m[2]), int(m[3]), int(m[4])), dict(zip("dabc", types.groups(), strict=True))


def _descriptor_atom(spec: str, name: str) -> None:
    """A Hopper GMMA atom (``SM90_64x64x16_F32F16F16_SS``) or a Blackwell UMMA one (``SM100_MMA_*``):
    its operands are read through a matrix descriptor, not by lanes, so it is no access (bad input
    saying what to give instead, as the words ``wgmma`` and ``umma`` are)."""
    from .recipes import NOT_ACCESSES

    name = name.removeprefix("mma_atom<")  # (its template arguments' '::' cut the name short)
    if re.match(r"sm90_(\d+x\d+x\d+|ss|rs|sparse)", name):
        raise InputError(f"access {_short(spec)}: a GMMA atom: {NOT_ACCESSES['wgmma']}")
    if re.match(r"sm10\d_", name):
        raise InputError(f"access {_short(spec)}: a UMMA atom: {NOT_ACCESSES['umma']}")


def evaluate(shape: Any, stride: Any, i: int) -> int:
    """CuTe's layout function at index ``i``: its colexicographic coordinate times the strides."""
    if isinstance(shape, int):
        return (i % shape) * stride
    out = 0
    for s, d in zip(shape, stride, strict=True):
        extent = size(s)
        out += evaluate(s, d, i % extent)
        i //= extent
    return out


def size(shape: Any) -> int:
    """The number of coordinates of a (nested) CuTe shape: the product of its leaves."""
    if isinstance(shape, int):
        return shape
    n = 1
    for s in shape:
        n *= size(s)
    return n


def thread_values(layout: Any) -> list[list[int]]:
    """For each of the 32 threads, the operand index of each of its values, in value order."""
    (t_shape, v_shape), (t_stride, v_stride) = layout
    return [[evaluate(t_shape, t_stride, t) + evaluate(v_shape, v_stride, v) for v in range(size(v_shape))]
            for t in range(size(t_shape))]


def operand_layout(mnk: tuple[int, int, int], types: dict[str, str], operand: str) -> Any:
    """The atom's ALayout, BLayout or CLayout."""
    m, n, k = mnk
    if operand == "c":
        return C_LAYOUTS[m, n]
    return OPERANDS[m, n, k, BITS[types["a"]]][0 if operand == "a" else 1]


def cells(mnk: tuple[int, int, int], types: dict[str, str], operand: str) -> list[list[tuple[int, int]]]:
    """Each lane's values as (tile row, tile column) of the operand stored row-major: A (m, k), B (n, k),
    C (m, n); CuTe's index i is row i % rows, column i // rows."""
    rows = {"a": mnk[0], "b": mnk[1], "c": mnk[0]}[operand]
    return [[(i % rows, i // rows) for i in lane] for lane in thread_values(operand_layout(mnk, types, operand))]


def _check_size(spec: str, tile: Tile, types: dict[str, str], operand: str) -> None:
    """The tile's elements are the operand's type (:c: also 2-byte ones for a 4-byte accumulator)."""
    want = BITS[types[operand]] // 8
    sizes = [want, 2] if operand == "c" and want == 4 else [want]
    if tile.elem_bytes not in sizes:
        named = [DTYPE[types[operand]]] + (["f16"] if len(sizes) > 1 else [])
        what = "stores its accumulator" if operand == "c" else f"reads its {operand.upper()} operand"
        raise InputError(f"access {_short(spec)}: the atom {what} as {types[operand]} ({want}-byte elements), and "
                         f"the tile's elements are {tile.elem_bytes}-byte: give --dtype {' or '.join(named)}")


def operand_template(spec: str, tile: Tile, hardware: Hardware) -> tuple[list[list[Lane]], int, int, str]:
    """One warp's phases of the operand ``spec`` names at the origin, its footprint (height, width)
    and summary."""
    name, operand, major = split(spec)
    mnk, types = traits(spec, name)
    refuse(_cut(spec), hardware, "mma-c" if operand == "c" else "mma-ab")
    _check_size(spec, tile, types, operand)
    lanes = cells(mnk, types, operand)
    height, width = {"a": (mnk[0], mnk[2]), "b": (mnk[1], mnk[2]), "c": (mnk[0], mnk[1])}[operand]
    if major == "mn":
        lanes = [[(c, r) for r, c in lane] for lane in lanes]
        height, width = width, height
    p = vector_elements(lanes, tile)
    moves = requests(lanes, p, tile.elem_bytes)
    write = operand == "c"
    template: list[list[Lane]] = []
    for request in moves:
        template += hardware.split_request(request, write)
    op = instruction(p * tile.elem_bytes)
    summary = (f"{'x'.join(map(str, mnk))} {operand.upper()} "
               f"{'accumulator' if write else 'operand'}{', M/N-major' if major == 'mn' else ''}: {len(moves)} "
               f"{op.replace('ld.', 'st.') if write else op} per lane")
    return template, height, width, summary


def parse(spec: str, tile: Tile, hardware: Hardware) -> Pattern:
    """The operand ``spec`` names, its phases at every placement (warp.py's tile_pattern)."""
    template, height, width, summary = operand_template(spec, tile, hardware)
    return tile_pattern(spec, f"mma-{split(spec)[1]}", template, height, width, summary, tile, hardware)
