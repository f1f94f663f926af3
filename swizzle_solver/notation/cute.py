"""`cute:`: a CuTe C++ layout of (row, col) -> element offset, evaluated as CuTe evaluates it.

Read (``cute::``, ``cutlass::``, ``GMMA::``, ``UMMA::`` and ``SM90::`` qualifiers and ``{}`` are
optional; ``;`` may end it):

- integers: ``_8``, ``Int<8>``, ``C<8>``, ``8``;
- shapes and strides, hierarchical: ``Shape<Shape<_4,_2>,_64>``, ``Stride<...>``, ``make_shape(...)``,
  ``make_stride(...)``, ``make_tuple(...)``, ``Step<_1,_2>``;
- layouts: ``Layout<Shape, Stride>``, ``Layout<Shape>`` and ``make_layout(shape)`` (compact
  column-major, CuTe's default), ``make_layout(shape, stride)``, ``make_layout(shape, LayoutRight{})``
  (also ``LayoutLeft``, ``GenRowMajor``, ``GenColMajor``);
- ``composition(Swizzle<B,M,S>{}, layout)`` and ``make_composed_layout(Swizzle<B,M,S>{}, 0, layout)``:
  the swizzle of the layout's offset (cute/swizzle.hpp);
- ``tile_to_shape(block, Shape<...>{}[, order])``: CuTe's ``blocked_product`` of the block with a
  compact layout of the block counts in ``order`` (``Step<_1,_2>`` or ``GenColMajor``, the default:
  down the rows first; ``Step<_2,_1>`` or ``GenRowMajor``: across first), through the block's
  ``complement`` (cute/layout.hpp); a composed block keeps its swizzle outside (layout_composed.hpp);
- CuTe's printed forms (C++ ``print``: ``(_8,_64):(_64,_1)``, ``Sw<3,3,3> o _0 o ...``, and
  ``Sw<3,4,3> o smem_ptr[16b](unset) o ...``, a swizzle of the pointer's byte addresses read as its
  element form; pycute's ``str``: ``SW_3_3_3 o 0 o (8, 64):(64, 1)``), the CuTe DSL's constructors
  (``cute.make_layout((8, 64), stride=(64, 1))``, ``cute.make_swizzle``, ``cute.make_composed_layout``)
  and Mojo's (``Layout(IntTuple(...), IntTuple(...))``, ``Layout.row_major(8, 64)``, ``Swizzle(3, 3, 3)``);
  a swizzle alone is the swizzle of the tile's row-major offsets;
- the GMMA atoms of cute/atom/mma_traits_sm90_gmma.hpp: ``Layout_{K,MN}_{INTER,SW32,SW64,SW128}_Atom<T>``
  (and ``Layout_SW128_Atom<T, Major::K>``, ...): a bit layout of 8 rows x 128/256/512/1024 bits (K:
  rows are K-contiguous; MN: the transpose), upcast to T's width, under the byte-level
  ``Swizzle<0..3,4,3>`` that GMMA applies to the shared-memory address (element form
  ``Swizzle<B, 4 - log2(sizeof(T)), 3>``). T names a CUTLASS type (``half_t``, ``bfloat16_t``,
  ``float``, ``tfloat32_t``, ``float_e4m3_t``, ``int8_t``, ...); any other name (``T``,
  ``ElementA``) is the tile's element.

Coordinates decompose as CuTe's do: a row index r over a hierarchical row mode (s0, s1, ..., sk)
is (r % s0, r / s0 % s1, ..., r / (s0...s(k-1))), colexicographically, each times its stride. The
result is an expression tree (notation/expr.py): its value is the table, its C form the expression.
"""
from __future__ import annotations

import re
from math import prod
from typing import Any

import numpy as np

from ..forms.cute import Atom, Composed, Layout, Swizzle, Tiled
from ..model import Tile, is_pow2, log2
from ..value import Value
from . import expr
from .expr import NotationError

MAX_TEXT = 4000
ORDER = 2  # this notation's place in the lists of notations
WHAT = "a CuTe layout"
MAX_DEPTH = 24
# a name may be qualified with C++'s :: or Python's . (cute.make_layout is cute::make_layout)
_TOKEN = r"(?a)(-?\d+)|([A-Za-z_]\w*(?:\s*(?:::|\.)\s*[A-Za-z_]\w*)*)|([<>(){},;:=\[\]])"
_QUALIFIERS = {"cute", "cutlass", "GMMA", "UMMA", "SM90", "SM100", "std"}

# sizeof of the element types a GMMA atom names (CUTLASS's names, and CUDA's)
TYPE_BYTES = {
    **dict.fromkeys(("half_t", "bfloat16_t", "__half", "__nv_bfloat16", "half", "bfloat16", "int16_t", "uint16_t"), 2),
    **dict.fromkeys(("float", "tfloat32_t", "int32_t", "uint32_t", "int", "unsigned"), 4),
    **dict.fromkeys(("float_e4m3_t", "float_e5m2_t", "int8_t", "uint8_t", "char", "__nv_fp8_e4m3", "__nv_fp8_e5m2",
                     "float_ue8m0_t"), 1),
    **dict.fromkeys(("double", "int64_t", "uint64_t"), 8),
}
# the atoms' bit layouts: (swizzle B, bits per row) (cute/atom/mma_traits_sm90_gmma.hpp)
ATOMS = {"INTER": (0, 128), "SW32": (1, 256), "SW64": (2, 512), "SW128": (3, 1024)}


# --- values ----------------------------------------------------------------------------------
# Integers are ints; tuples (shapes, strides, steps) are Python tuples; layouts are forms/cute.py's records
# (one set for reading and writing CuTe), the rest these.


class Major(Value):
    right: bool  # LayoutRight / GenRowMajor: the rightmost mode has stride 1


class TypeName(Value):
    name: str


class Keyword(Value):
    """A Python keyword argument (the CuTe DSL's ``stride=(64, 1)``)."""

    name: str
    value: Any


class Cute(Value):
    """The parsed layout (a Layout, Composed, Tiled or Atom): the ``cute:`` source."""

    layout: object
    pointer_bits: int = 0  # CuTe's print named the pointer (smem_ptr[16b]): the tile's elements must be this wide
    stage: int = 0  # a staged layout (a third, stage mode): the stage this source evaluates
    notation = "cute"
    as_written = False
    unit = "element"

    @property
    def stages(self) -> int:
        """The extent of the layout's third (stage) mode; 1 for a layout of (row, col)."""
        return stages_of(self.layout)

    def at_stage(self, stage: int) -> Cute:
        """The same layout, evaluated at coordinate ``stage`` of its stage mode (api.check checks each)."""
        return Cute(self.layout, self.pointer_bits, stage)

    def written_swizzle(self) -> Swizzle | None:
        """The element-level swizzle as written (a swizzle alone, or the outer map of a composition,
        as the DSL prints it: ``S<3,4,3> o 0 o ...``); None for a pointer's byte swizzle (smem_ptr) or
        any other layout. api.Checked.hint names its element form when it is the byte form."""
        layout = self.layout
        if isinstance(layout, Composed) and not self.pointer_bits:
            layout = layout.outer
        return layout if isinstance(layout, Swizzle) else None

    def evaluate(self, tile: Tile) -> tuple[np.ndarray, object, str | None]:
        bits = tile.elem_bits or 8 * tile.elem_bytes
        if self.pointer_bits and self.pointer_bits != bits:
            raise NotationError(f"the printed layout is over a {self.pointer_bits}-bit pointer (smem_ptr["
                                f"{self.pointer_bits}b]), the tile's elements are {bits} bits: give the --dtype "
                                f"of {self.pointer_bits} bits")
        layout = self.layout
        if isinstance(layout, Swizzle):  # a swizzle alone: of the tile's row-major element offsets
            layout = Composed(layout, Layout((tile.rows, tile.cols), (tile.cols, 1)))
        node, (rows, cols) = build(layout, tile, self.stage)
        if (rows, cols) != (tile.rows, tile.cols):
            raise NotationError(f"the CuTe layout's shape is ({rows}, {cols}), the tile is {tile.rows} x {tile.cols}: "
                                f"give --rows {rows} --cols {cols}, or tile it to the tile's shape with "
                                f"tile_to_shape(..., Shape<_{tile.rows},_{tile.cols}>{{}})")
        r, c = np.arange(tile.rows, dtype=np.int64)[:, None], np.arange(tile.cols, dtype=np.int64)[None, :]
        return expr.evaluate(node, r, c, " in the CuTe layout"), node, None


# --- parsing ---------------------------------------------------------------------------------


def mojo_swizzle_print(text: str) -> str:
    """For a bare ``(B,M,S)``, the hint that it is Mojo's print of ``Swizzle(B,M,S)`` (its
    ``write_to`` writes the three numbers in parentheses: mojo 1.2, checked), else "". Not read as
    a swizzle: three numbers in parentheses are a shape too, and a printed layout is not guessed at."""
    m = re.fullmatch(r"\s*\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(-?\d+)\s*\)\s*", text)
    if not m:
        return ""
    b, base, s = m.groups()
    return (f"({b},{base},{s}) alone is not a layout; if it is Mojo's print of Swizzle({b},{base},{s}), "
            f"write Swizzle<{b},{base},{s}> (or cute: Swizzle({b},{base},{s}))")


def parse(text: str) -> Cute:
    if len(text) > MAX_TEXT:
        raise NotationError(f"the CuTe layout has {len(text)} characters, above the limit of {MAX_TEXT}")
    toks = _unwrapped(_tokens(text))
    if _is_printed(toks):
        return _Printed(toks, len(text)).whole()
    parser = _Parser(toks, len(text))
    value = parser.value(0)
    tok = parser.peek()
    if tok is not None and tok[1] == ";":
        parser.i += 1
        tok = parser.peek()
    if tok is not None:
        raise NotationError(f"unexpected {tok[1]!r} after a complete layout", tok[2])
    if isinstance(value, Keyword) or not isinstance(value, (Layout, Composed, Tiled, Atom, Swizzle)):
        triple = mojo_swizzle_print(text)
        if triple:
            raise NotationError(triple)
        raise NotationError("this is not a layout: write Layout<Shape<...>, Stride<...>>{}, make_layout(...), "
                            "composition(Swizzle<B,M,S>{}, ...), tile_to_shape(...), a GMMA atom, CuTe's "
                            "printed (_8,_64):(_64,_1) or the DSL's cute.make_layout((8, 64), stride=(64, 1))")
    return Cute(value)


def _tokens(text: str) -> list[tuple[str, str, int]]:
    out = []
    for m, col in expr.scan(text, _TOKEN, 200, "a CuTe layout"):
        kind = "int" if m[1] else "name" if m[2] else "punct"
        value = m[0] if kind != "name" else re.sub(r"\s+", "", m[0]).replace(".", "::")
        if kind == "int" and len(value.lstrip("-")) > 9:
            raise NotationError(f"the number {value[:12]} is too large for a layout", col)
        out.append((kind, value, col))
    if not out:
        raise NotationError("the CuTe layout is empty")
    return out


def _base(name: str) -> str:
    """The name without its namespace qualifiers (cute::GMMA::Layout_K_SW128_Atom -> Layout_K_SW128_Atom)."""
    parts = name.split("::")
    unknown = [p for p in parts[:-1] if p not in _QUALIFIERS and p != "Major"]
    return "::".join(unknown + parts[-1:]) if unknown else parts[-1]


class _Parser:
    def __init__(self, toks: list[tuple[str, str, int]], end: int):
        self.toks, self.i, self.end = toks, 0, end + 1

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else None

    def expect(self, punct: str) -> None:
        tok = self.peek()
        if tok is None or tok[1] != punct:
            raise NotationError(f"expected {punct!r}" + (f", not {tok[1]!r}" if tok else " before the end"),
                                tok[2] if tok else self.end)
        self.i += 1

    def braces(self) -> None:
        """An optional {} (a value of the type)."""
        tok = self.peek()
        if tok is not None and tok[1] == "{":
            self.i += 1
            self.expect("}")

    def items(self, close: str, depth: int) -> list:
        out: list = []
        tok = self.peek()
        if tok is not None and tok[1] == close:
            self.i += 1
            return out
        while True:
            out.append(self.keyword(depth + 1))
            tok = self.peek()
            if tok is not None and tok[1] == ",":
                self.i += 1
                after = self.peek()
                if close == ")" and after is not None and after[1] == ")":  # Python's (8,)
                    self.i += 1
                    return out
                continue
            self.expect(close)
            return out

    def keyword(self, depth: int):
        """A value, or a Python keyword argument ``name=value`` (the DSL's ``stride=``)."""
        tok, nxt = self.peek(), self.toks[self.i + 1] if self.i + 1 < len(self.toks) else None
        if tok is not None and tok[0] == "name" and nxt is not None and nxt[1] == "=":
            self.i += 2
            return Keyword(tok[1], self.value(depth))
        return self.value(depth)

    def value(self, depth: int):
        tok = self.peek()
        if tok is None:
            raise NotationError("the layout ends where a value is expected", self.end)
        if depth > MAX_DEPTH:
            raise NotationError(f"nested more than {MAX_DEPTH} levels deep", tok[2])
        kind, text, col = tok
        self.i += 1
        if kind == "int":
            return int(text)
        if text == "(":  # a Python tuple (the CuTe DSL's shapes and strides)
            return tuple(self.items(")", depth))
        if kind != "name":
            raise NotationError(f"{text!r} where a value is expected", col)
        name = _base(text)
        nxt = self.peek()
        args: list | None = None
        call = False
        if nxt is not None and nxt[1] == "<":
            self.i += 1
            args = self.items(">", depth)
        elif nxt is not None and nxt[1] == "(":
            self.i += 1
            args, call = self.items(")", depth), True
        if not call:
            self.braces()
        return _meaning(name, args, call, col)


def _int(v, what: str, col: int) -> int:
    if isinstance(v, TypeName) and re.fullmatch(r"(?a)[A-Za-z_]\w*", v.name):  # kSwizzle: a template constant
        raise NotationError(f"{what} must be an integer, and {v.name!r} is a name: a template constant? give "
                            f"-D {v.name}=VALUE", col)
    if not isinstance(v, int):
        raise NotationError(f"{what} must be an integer", col)
    return v


_TUPLES = ("Shape", "Stride", "Step", "tuple", "Tuple", "make_shape", "make_stride", "make_step", "make_tuple",
           "IntTuple")


def _meaning(name: str, args: list | None, call: bool, col: int):
    """The value a name (with its template or call arguments) denotes."""
    found = _bare_meaning(name) if args is None else _given_meaning(name, args, call, col)
    if found is not None:
        return found
    raise NotationError(f"{name}{'(...)' if call else '<...>' if args is not None else ''} is not a CuTe construct "
                        f"read here (Layout, make_layout, Shape, Stride, composition, Swizzle, tile_to_shape, "
                        f"GMMA::Layout_*_Atom<T>, Int<N>, _N)", col)


def _bare_meaning(name: str):
    """A name written without arguments: _N, an empty tuple, a major order, or a type's name (None: none)."""
    m = re.fullmatch(r"(?a)_(\d{1,9})", name)
    if m:
        return int(m[1])
    if name in _TUPLES:
        return ()
    if name in ("LayoutLeft", "GenColMajor", "LayoutRight", "GenRowMajor"):
        return Major(name in ("LayoutRight", "GenRowMajor"))
    if re.fullmatch(r"(?a)[A-Za-z_][\w:]*", name) and name not in _KNOWN:
        return TypeName(name)  # an element type (a GMMA atom's T), or a Major::K
    return None


def _given_meaning(name: str, args: list, call: bool, col: int):
    """A name with template or call arguments: Int<N>, a tuple, a layout, a swizzle or an atom (None: none)."""
    if name in ("Int", "C") and not call and len(args) == 1:
        return _int(args[0], f"{name}<...>", col)
    if name in _TUPLES:
        return tuple(args)
    return _layout_meaning(name, args, call, col)


def _layout_meaning(name: str, args: list, call: bool, col: int):
    """The layouts, swizzles and atoms among the names (None: not one of them)."""
    known = _MEANINGS.get((name, call))
    if known is not None:
        counts, meaning = known
        return meaning(args, col) if len(args) in counts else None
    return None if call or name in _CALLED else _atom_meaning(name, args)


def _swizzle(args: list, col: int) -> Swizzle:
    B, M, S = (_int(a, "Swizzle<B,M,S>'s parameters", col) for a in args)
    if B < 0 or M < 0 or abs(S) < B or max(B, M, abs(S)) > 31:
        raise NotationError(f"Swizzle<{B},{M},{S}> is not a CuTe swizzle (B >= 0, M >= 0, |S| >= B)", col)
    return Swizzle(B, M, S)


def _atom_meaning(name: str, args: list) -> Atom | None:
    """GMMA's atoms, Layout_K_SW128_Atom<T> and Layout_SW128_Atom<T, Major::K>; None: not one."""
    atom = re.fullmatch(r"Layout_(K|MN)_(INTER|SW32|SW64|SW128)_Atom", name)
    if atom and len(args) == 1 and isinstance(args[0], TypeName):
        return Atom(atom[1], atom[2], args[0].name)
    atom = re.fullmatch(r"Layout_(INTER|SW32|SW64|SW128)_Atom", name)
    if atom and len(args) == 2 and isinstance(args[0], TypeName) and isinstance(args[1], TypeName) \
            and args[1].name in ("Major::K", "Major::MN"):
        return Atom(args[1].name.split("::")[1], atom[1], args[0].name)
    return None


def _plain(args: list, col: int) -> Layout:
    """Layout<Shape, Stride>, make_layout(shape, stride), the DSL's make_layout(shape, stride=...)."""
    if isinstance(args[-1], Keyword):
        if args[-1].name != "stride" or len(args) != 2:
            raise NotationError(f"make_layout(shape, stride=...) takes no {args[-1].name}=", col)
        args = [args[0], args[1].value]
    return _layout(args[0], args[1] if len(args) == 2 else Major(False), col)


def _mojo_major(right: bool):
    """Mojo's Layout.row_major(8, 64) / Layout.col_major(8, 64) (layout/layout.mojo)."""
    return lambda args, col: _layout(tuple(args), Major(right), col)


# (name, written as a call) -> (its counts of arguments, its meaning from them). Calls: C++'s
# make_*, the CuTe DSL's cute.make_layout / cute.make_swizzle / cute.make_composed_layout, and Mojo's
# Layout(IntTuple(...), IntTuple(...)) and Swizzle(B, M, S).
_MEANINGS: dict[tuple[str, bool], tuple[tuple[int, ...], Any]] = {
    ("Layout", False): ((1, 2), _plain),
    ("Layout", True): ((1, 2), _plain),
    ("make_layout", True): ((1, 2), _plain),
    ("Layout::row_major", True): ((2,), _mojo_major(True)),
    ("Layout::col_major", True): ((2,), _mojo_major(False)),
    ("Swizzle", False): ((3,), _swizzle),
    ("Swizzle", True): ((3,), _swizzle),
    ("make_swizzle", True): ((3,), _swizzle),
    ("composition", True): ((2, 3), lambda a, col: _composed(a[0], a[-1], 0 if len(a) == 2 else a[1], col)),
    ("make_composed_layout", True): ((3,), lambda a, col: _composed(a[0], a[2], a[1], col)),
    ("tile_to_shape", True): ((2, 3), lambda a, col: _tiled(a[0], a[1], a[2] if len(a) == 3 else Major(False), col)),
}
_CALLED = {name for name, _ in _MEANINGS}


_KNOWN = {"Int", "C", "Shape", "Stride", "Step", "tuple", "Tuple", "IntTuple", "make_shape", "make_stride",
          "make_tuple", *_CALLED}


def _is_int_tree(v) -> bool:
    return isinstance(v, int) or (isinstance(v, tuple) and all(_is_int_tree(x) for x in v))


def _layout(shape, stride, col: int) -> Layout:
    if not _is_int_tree(shape) or (isinstance(shape, tuple) and not shape):
        raise NotationError("a layout's shape is an integer or a tuple of them (Shape<_8,_64>)", col)
    if not _flat(shape) or min(_flat(shape)) < 1:
        raise NotationError("a layout's shape has extents of at least 1", col)
    if isinstance(stride, Major):
        return Layout(shape, compact(shape, stride.right))
    if not _is_int_tree(stride) or not _congruent(shape, stride):
        raise NotationError("the stride must have the shape's structure (Stride<_64,_1> for Shape<_8,_64>)", col)
    return Layout(shape, stride)


def _composed(sw, inner, offset, col: int) -> Composed:
    if not isinstance(sw, Swizzle):
        raise NotationError("composition(...) reads a swizzle first: composition(Swizzle<B,M,S>{}, layout)", col)
    if offset != 0:
        raise NotationError("a composed layout's offset must be 0 (_0{}) here", col)
    if not isinstance(inner, (Layout, Composed, Tiled, Atom)):
        raise NotationError("composition(Swizzle<B,M,S>{}, ...) takes a layout second", col)
    return Composed(sw, inner)


def _tiled(block, shape, order, col: int) -> Tiled:
    """tile_to_shape(block, Shape<R, C>[, order]), or with a third, stage mode Shape<R, C, S> (a
    pipeline's S stages of the tile, CuTe's usual SmemLayout): the order then has three steps."""
    if not isinstance(block, (Layout, Composed, Atom)):
        raise NotationError("tile_to_shape(...) takes a layout (or a GMMA atom) first", col)
    if not (isinstance(shape, tuple) and len(shape) in (2, 3) and _is_int_tree(shape)):
        raise NotationError("tile_to_shape's target is a shape of two modes, Shape<_128,_64>{} (or three: "
                            "Shape<_128,_64,_3>{}, the third the stages)", col)
    rank = len(shape)
    if isinstance(order, Major):
        steps = tuple(range(rank, 0, -1)) if order.right else tuple(range(1, rank + 1))
    elif isinstance(order, tuple) and len(order) == rank and all(isinstance(x, int) for x in order):
        steps = order
    else:
        example = "Step<_1,_2,_3>{}" if rank == 3 else "Step<_1,_2>{}"
        raise NotationError(f"tile_to_shape's order is {example} (one step a mode of the target, or GenColMajor{{}} "
                            f"/ GenRowMajor{{}})", col)
    sizes = tuple(prod(_flat(m)) for m in shape)
    return Tiled(block, sizes[:2], steps, sizes[2] if rank == 3 else 1)


def _flat(t) -> list[int]:
    return [t] if isinstance(t, int) else [x for part in t for x in _flat(part)]


def _congruent(a, b) -> bool:
    if isinstance(a, int) or isinstance(b, int):
        return isinstance(a, int) and isinstance(b, int)
    return len(a) == len(b) and all(_congruent(x, y) for x, y in zip(a, b))


def compact(shape, right: bool):
    """CuTe's compact strides (compact_major): LayoutLeft, the leftmost leaf stride 1 and each next one
    the product of those before; LayoutRight, the same from the right (nested modes too)."""
    leaves = _flat(shape)
    order = range(len(leaves) - 1, -1, -1) if right else range(len(leaves))
    strides, current = [0] * len(leaves), 1
    for i in order:
        strides[i] = current
        current *= leaves[i]
    it = iter(strides)

    def rebuild(t):
        return next(it) if isinstance(t, int) else tuple(rebuild(x) for x in t)

    return rebuild(shape)


# --- evaluation: the expression tree ---------------------------------------------------------


def build(layout, tile: Tile, stage: int = 0) -> tuple[tuple, tuple[int, int]]:
    """(tree of the element offset in r and c, (rows, cols) of the layout's shape); a staged layout
    (a third mode) at coordinate ``stage`` of its stage mode."""
    return _build(layout, tile, expr.R, expr.C, stage)


def stages_of(layout) -> int:
    """The extent of a layout's third (stage) mode: 1 when it has two."""
    if isinstance(layout, Composed):
        return stages_of(layout.inner)
    if isinstance(layout, Tiled):
        return layout.stages
    if isinstance(layout, Layout) and isinstance(layout.shape, tuple) and len(layout.shape) == 3:
        return prod(_flat(layout.shape[2]))
    return 1


def _build(layout, tile: Tile, row: tuple, col: tuple, stage: int = 0) -> tuple[tuple, tuple[int, int]]:
    if isinstance(layout, Atom):
        return _build(atom_layout(layout, tile), tile, row, col)
    if isinstance(layout, Composed):
        inner, shape = _build(layout.inner, tile, row, col, stage)
        sw = layout.outer
        return expr.swizzle_node(inner, sw.B, sw.M, sw.S), shape
    if isinstance(layout, Tiled):
        return _tiled_node(layout, tile, row, col, stage)
    modes = _two_modes(layout.shape, layout.stride)
    (s0, d0), (s1, d1) = modes[:2]
    node = expr.add(mode_node(row, s0, d0), mode_node(col, s1, d1))
    base = mode_value(stage, *modes[2]) if len(modes) == 3 else 0
    return (expr.add(node, expr.num(base)) if base else node), (prod(_flat(s0)), prod(_flat(s1)))


def _two_modes(shape, stride) -> list[tuple]:
    """The (row, col) modes, and a third (the stages) where the layout has one."""
    if isinstance(shape, int) or len(shape) not in (2, 3):
        rank = 1 if isinstance(shape, int) else len(shape)
        raise NotationError(f"a layout of (row, col) has two modes (or three: the third the stages); this one has "
                            f"{rank}: write Shape<rows, cols> (a mode may itself be a Shape)")
    return [(s, d) for s, d in zip(shape, stride)]


def mode_value(x: int, shape, stride) -> int:
    """CuTe's offset of the integer coordinate x in one mode (mode_node's arithmetic on a number)."""
    out, before = 0, 1
    leaves = list(zip(_flat(shape), _flat(stride)))
    for i, (s, d) in enumerate(leaves):
        part = x // before
        out += (part % s if i < len(leaves) - 1 else part) * d
        before *= s
    return out


def mode_node(x: tuple, shape, stride) -> tuple:
    """CuTe's offset of coordinate x in one mode: x decomposed colexicographically over the mode's
    leaves (the last leaf takes the rest), each part times its stride."""
    leaves = list(zip(_flat(shape), _flat(stride)))
    terms, before = [], 1
    for i, (s, d) in enumerate(leaves):
        part = x if before == 1 else expr.div(x, before)
        if i < len(leaves) - 1 and s != 1:
            part = expr.mod(part, s)
        if s != 1 and d != 0:
            terms.append((part, d))
        before *= s
    return expr.linear(*terms)


def atom_layout(atom: Atom, tile: Tile) -> Composed:
    """The atom's element layout under its swizzle, for the tile's element (or T's, when CUTLASS
    names it: then it must be the tile's)."""
    e = TYPE_BYTES.get(atom.type_name.split("::")[-1])
    if e is None:
        e = tile.elem_bytes
    elif e != tile.elem_bytes:
        raise NotationError(f"GMMA::Layout_{atom.major}_{atom.mode}_Atom<{atom.type_name}> is for {e}-byte elements, "
                            f"the tile's are {tile.elem_bytes} bytes: give --dtype to match")
    B, bits = ATOMS[atom.mode]
    if not is_pow2(e) or e > 16:
        raise NotationError(f"no GMMA atom for {e}-byte elements")
    width = bits // (8 * e)  # upcast: the stride-1 mode's extent in elements
    shape, stride = ((8, width), (width, 1)) if atom.major == "K" else ((width, 8), (1, width))
    return Composed(Swizzle(B, 4 - log2(e), 3), Layout(shape, stride))


def _appended(shape: Any, stride: Any) -> tuple[Any, Any]:
    """A block of one mode gets a second, (1):(0) (CuTe's append<2>(block)); two modes stay."""
    if isinstance(shape, int) or len(shape) == 1:
        return ((shape if isinstance(shape, int) else shape[0]), 1), ((stride if isinstance(stride, int) else stride[0]), 0)
    return shape, stride


def _tiled_node(t: Tiled, tile: Tile, row: tuple, col: tuple, stage: int = 0) -> tuple[tuple, tuple[int, int]]:
    block = atom_layout(t.block, tile) if isinstance(t.block, Atom) else t.block
    if isinstance(block, Composed):  # the swizzle stays outside (layout_composed.hpp's tile_to_shape)
        inner, size = _tiled_node(Tiled(block.inner, t.shape, t.order, t.stages), tile, row, col, stage)
        return expr.swizzle_node(inner, block.outer.B, block.outer.M, block.outer.S), size
    assert isinstance(block, Layout), block  # (_tiled admits layouts, composed layouts and atoms only)
    modes = _two_modes(*_appended(block.shape, block.stride))
    if len(modes) != 2:
        raise NotationError("tile_to_shape's block is a layout of (row, col), two modes: the target's third mode "
                            "makes the stages")
    (s0, d0), (s1, d1) = modes
    b0, b1 = prod(_flat(s0)), prod(_flat(s1))
    if t.shape[0] % b0 or t.shape[1] % b1:
        raise NotationError(f"tile_to_shape: the block's shape ({b0}, {b1}) does not divide the target "
                            f"({t.shape[0]}, {t.shape[1]})")
    counts = (t.shape[0] // b0, t.shape[1] // b1, t.stages)[:len(t.order)]
    tstride = ordered_strides(counts, t.order)  # make_ordered_layout(counts, order)
    within = expr.add(mode_node(expr.mod(row, b0) if b0 != t.shape[0] else row, s0, d0),
                      mode_node(expr.mod(col, b1) if b1 != t.shape[1] else col, s1, d1))
    count = expr.linear((expr.div(row, b0), tstride[0] if counts[0] > 1 else 0),
                        (expr.div(col, b1), tstride[1] if counts[1] > 1 else 0))
    if stage:  # the stage mode is the block count's third coordinate (the block itself has no stage mode)
        count = expr.add(count, expr.num(stage * tstride[2]))
    shapes, strides = complement(list(zip(_flat(s0) + _flat(s1), _flat(d0) + _flat(d1))), b0 * b1 * prod(counts))
    return expr.add(within, mode_node(count, tuple(shapes), tuple(strides))), t.shape


def ordered_strides(counts: tuple[int, ...], order: tuple[int, ...]) -> tuple[int, ...]:
    """CuTe's make_ordered_layout(counts, order): compact, the mode of the smallest order value first
    (ties: the leftmost first)."""
    strides, current = [0] * len(counts), 1
    for i in sorted(range(len(counts)), key=lambda i: (order[i], i)):
        strides[i] = current
        current *= counts[i]
    return tuple(strides)


def complement(modes: list[tuple[int, int]], cotarget: int) -> tuple[list[int], list[int]]:
    """CuTe's complement(layout, cotarget) of a flat layout's (shape, stride) modes
    (cute/layout.hpp, detail::complement): the layout, sorted by stride, whose offsets fill the gaps
    of the given one and then continue up to the cotarget. Modes of extent 1 or stride 0 are
    filtered out first, as CuTe's ``filter`` does."""
    live = sorted(((d, s) for s, d in modes if s != 1 and d != 0), key=lambda m: m[0])
    if any(d < 0 for d, _ in live):
        raise NotationError("tile_to_shape of a block with a negative stride is not read here")
    if not live:
        return [cotarget], [1]
    shapes, strides = [], [1]
    for d, s in live:
        if d % strides[-1]:
            raise NotationError(f"tile_to_shape: the block's stride {d} is not a multiple of {strides[-1]}: CuTe's "
                                f"complement of it is not a layout")
        gap = d // strides[-1]
        if gap == 0:
            raise NotationError("tile_to_shape: the block maps two coordinates to one offset (CuTe: non-injective "
                                "layout in complement)")
        shapes.append(gap)
        strides.append(d * s)
    rest = -(-cotarget // strides[-1])
    return shapes + [rest], strides


# --- CuTe's printed forms ---------------------------------------------------------------------


def _unwrapped(toks: list[tuple[str, str, int]]) -> list[tuple[str, str, int]]:
    """Mojo's print of a Layout, ``((64, 64):(64, 1))``: the ``shape:stride`` inside one more pair of
    parentheses, which are dropped (a ``:`` directly inside the outer pair, closed by the last token)."""
    depth, colon = 0, False
    for i, (_, text, _) in enumerate(toks):
        depth += (text == "(") - (text == ")")
        colon = colon or (text == ":" and depth == 1)
        if depth == 0:
            return toks[1:-1] if colon and i == len(toks) - 1 and toks[0][1] == "(" else toks
    return toks


def _is_printed(toks: list[tuple[str, str, int]]) -> bool:
    """CuTe's print (a ``:`` between shape and stride, or a swizzle ``Sw<...> o``, the DSL's ``S<...> o``)
    or pycute's str."""
    return any(t[1] == ":" for t in toks) or toks[0][1] in _PRINTED_SW or bool(re.fullmatch(_PYCUTE_SW, toks[0][1]))


_PRINTED_SW = ("Sw", "S")  # the C++ print's Sw<B,M,S>; the CuTe DSL's print(swizzle): S<B,M,S>


_PYCUTE_SW = r"(?a)SW_(\d+)_(\d+)_(\d*)"  # pycute's Swizzle.__str__: SW_3_3_3 (a negative S: SW_2_1_ then -3)


class _Printed(_Parser):
    """CuTe's print (cute/layout.hpp: ``shape:stride``, static integers as ``_8``, tuples ``(a,b)``;
    cute/swizzle.hpp: ``Sw<B,M,S>``; cute/layout_composed.hpp: ``outer o offset o inner``, the offset
    ``_0``, or ``smem_ptr[16b](unset)`` where the swizzle is of the pointer's byte addresses) and
    pycute's str (``SW_3_3_3 o 0 o (8, 64):(64, 1)``)."""

    def whole(self) -> Cute:
        layout, bits = self.composed(0)
        tok = self.peek()
        if tok is not None and tok[1] == ";":
            self.i += 1
            tok = self.peek()
        if tok is not None:
            raise NotationError(f"unexpected {tok[1]!r} after a complete printed layout", tok[2])
        return Cute(layout, bits)

    def composed(self, depth: int) -> tuple[Any, int]:
        """(the record, the pointer's bits or 0): ``A o O o B`` nests to the right."""
        tok = self.peek()
        if depth > MAX_DEPTH or tok is None:
            raise NotationError("the printed layout ends where a layout is expected" if tok is None
                                else f"nested more than {MAX_DEPTH} levels deep", tok[2] if tok else self.end)
        first = self.part(depth)
        if not self.o():
            return first, 0
        if not isinstance(first, Swizzle):
            raise NotationError("a printed composed layout is read here with a swizzle outside (Sw<B,M,S> o ...)", tok[2])
        bits = self.offset()
        if not self.o():
            raise NotationError("expected ' o ' and the inner layout after the offset", self.end)
        inner, inner_bits = self.composed(depth + 1)
        if bits:  # a swizzle of byte addresses: its element form (M less log2 of the element's bytes)
            first = _element_swizzle(first, bits, tok[2])
        return Composed(first, inner), bits or inner_bits

    def o(self) -> bool:
        tok = self.peek()
        if tok is not None and tok[1] == "o":
            self.i += 1
            return True
        return False

    def part(self, depth: int):
        kind, text, col = self.toks[self.i]
        if text in _PRINTED_SW:
            self.i += 1
            self.expect("<")
            return _swizzle(self.items(">", depth), col)
        pycute = re.fullmatch(_PYCUTE_SW, text)
        if pycute:
            self.i += 1
            shift = int(pycute[3]) if pycute[3] else _int(self.value(depth), "SW_B_M_S's S", col)
            return _swizzle([int(pycute[1]), int(pycute[2]), shift], col)
        shape = self.tree(depth)
        self.expect(":")
        return _layout(shape, self.tree(depth), col)

    def tree(self, depth: int):
        """An integer (``_8`` or ``8``) or a tuple of them, nested."""
        tok = self.peek()
        if tok is None or depth > MAX_DEPTH:
            raise NotationError("the printed layout ends where a shape or stride is expected" if tok is None
                                else f"nested more than {MAX_DEPTH} levels deep", tok[2] if tok else self.end)
        self.i += 1
        if tok[1] == "(":
            out = [self.tree(depth + 1)]
            while self.peek() is not None and self.peek()[1] == ",":
                self.i += 1
                if self.peek() is not None and self.peek()[1] == ")":
                    break  # pycute's (8,)
                out.append(self.tree(depth + 1))
            self.expect(")")
            return tuple(out)
        value = int(tok[1]) if tok[0] == "int" else _bare_meaning(tok[1]) if tok[0] == "name" else None
        if not isinstance(value, int):
            raise NotationError(f"{tok[1]!r} where an integer (_8) or a tuple of them is expected", tok[2])
        return value

    def offset(self) -> int:
        """The composed layout's offset: 0 (``_0``, ``0``), or a pointer ``smem_ptr[16b](...)``: its bits."""
        kind, text, col = self.toks[self.i] if self.i < len(self.toks) else ("", "", self.end)
        self.i += 1
        if text in ("0", "_0"):
            return 0
        if text not in ("smem_ptr", "gmem_ptr", "rmem_ptr", "ptr"):
            raise NotationError(f"a composed layout's offset must be 0 or a pointer (smem_ptr[16b](unset)), "
                                f"not {text!r}", col)
        self.expect("[")
        bits = self.value(0)
        tok = self.peek()
        if not isinstance(bits, int) or tok is None or tok[1] != "b":
            raise NotationError("a pointer is printed smem_ptr[16b]: its element's bits, then b", col)
        if not is_pow2(bits) or bits > 128:  # (0 would read as no pointer at all)
            raise NotationError(f"a {bits}-bit pointer: elements of 1 to 128 bits, powers of two", col)
        self.i += 1
        self.expect("]")
        if self.peek() is not None and self.peek()[1] == "(":  # the address: (unset), (0x7f00...)
            while self.peek() is not None and self.peek()[1] != ")":
                self.i += 1
            self.expect(")")
        return bits


def _element_swizzle(sw: Swizzle, bits: int, col: int) -> Swizzle:
    """A swizzle of byte addresses as the swizzle of ``bits``-bit element offsets (the mask moves down)."""
    m = sw.M - log2(bits // 8) if bits >= 8 else sw.M + log2(8 // bits)
    if m < 0:
        raise NotationError(f"Sw<{sw.B},{sw.M},{sw.S}> moves pieces of {1 << sw.M} bytes, smaller than the "
                            f"pointer's {bits}-bit elements", col)
    return Swizzle(sw.B, m, sw.S)


def read(body: str, base=None, allow_outside: bool = True) -> Cute:
    """The notation's entry (notation/__init__.py): ``cute: body``."""
    return parse(body)
