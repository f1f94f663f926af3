"""CuTe's layouts as records: what ``cute:`` reads (notation/cute.py) and ``--emit cute`` writes
(emit/cute.py), one set of records, with the user's two views as operations on them.

- ``Layout(shape, stride)``: CuTe's ``Layout<Shape, Stride>`` of (row, col), each an int or a nested
  tuple (a hierarchical mode);
- the swizzle is the cute family's ``Swizzle<B,M,S>`` (families/cute.py), and ``Ref(name)`` one that a
  snippet declares by name (``using SmemSwizzle = cute::Swizzle<3,3,3>;``);
- ``Composed(outer, inner)``: ``composition(swizzle, inner)`` (CuTe applies the swizzle to the inner
  layout's offset), or with ``call="make_composed_layout"`` ``make_composed_layout(outer, _0, inner)``,
  whose outer is a swizzle or a layout of offsets;
- ``Atom(major, mode, type_name)``: GMMA's ``Layout_{K,MN}_{INTER,SW32,SW64,SW128}_Atom<T>``;
  ``Tiled(block, shape, order)``: ``tile_to_shape(block, Shape<R, C>, Step<order>)``.

Views (forms/__init__.py):

- ``transpose()``: element (r, c) of a column-major tile is the stored tile's (c, r), so a layout of
  (row, col) has its two top-level modes exchanged (``(R, C) : (P, 1)`` becomes ``(C, R) : (1, P)``,
  the M-major form CUTLASS writes); GMMA's K-major atom tiled over the stored tile becomes its
  transpose, the MN-major atom (cute/atom/mma_traits_sm90_gmma.hpp), tiled over the user's tile in
  the same atom order (``Step<_2,_1>``); a swizzle, and a layout that maps offsets (the outer layout
  of ``make_composed_layout``), act on offsets and are kept.
- ``upcast(per)``: element offset p_e = per * p_b + part of the packed byte offset p_b, so every
  offset is multiplied by ``per``: ``Swizzle<B,M,S>`` of bytes is ``Swizzle<B,M+log2(per),S>`` of
  elements (mask and shift move up), a layout's unit-stride leaf (the lowest column bits) has
  ``per`` times its extent and every other leaf ``per`` times its stride; GMMA's atoms over a 4-bit
  type are the byte atoms with ``per`` times the elements along the contiguous dimension.

Printers: ``cpp`` (C++), ``dsl`` (CUTLASS's Python DSL) and ``mojo`` (Mojo's ``layout`` package), the
three languages that write CuTe; ``Declared`` and ``render``: a snippet's lines of text and records.
"""
from __future__ import annotations

from typing import Any

from ..families.cute import Swizzle
from ..model import log2
from ..value import Value


def _leaves(shape: Any, stride: Any) -> list[tuple[int, int]]:
    if isinstance(shape, tuple):
        return [leaf for s, d in zip(shape, stride, strict=True) for leaf in _leaves(s, d)]
    return [(shape, stride)]


def _rebuilt(tree: Any, values: list[int]) -> Any:
    """``tree``'s structure with its leaves taken from ``values`` in order (consumed)."""
    return tuple(_rebuilt(t, values) for t in tree) if isinstance(tree, tuple) else values.pop(0)


def _tuple(t: Any, call: str = "") -> str:
    """A shape or stride as a Python tuple (``call=""``: the CuTe DSL) or Mojo's ``IntTuple(...)``."""
    return f"{call}({', '.join(_tuple(x, call) for x in t)})" if isinstance(t, tuple) else str(t)


def _ints(t: Any, kind: str) -> str:
    """A static shape or stride in C++: ``cute::Int<8>``, ``cute::Shape<cute::Int<4>, ...>``."""
    if isinstance(t, tuple):
        return f"cute::{kind}<{', '.join(_ints(x, kind) for x in t)}>"
    return f"cute::Int<{t}>"


class Layout(Value):
    shape: Any  # an int or a nested tuple of them
    stride: Any  # congruent with shape

    def transpose(self) -> Layout:
        (s0, s1), (d0, d1) = self.shape, self.stride
        return Layout((s1, s0), (d1, d0))

    def upcast(self, per: int) -> Layout:
        pairs = [(s * per, 1) if d == 1 else (s, d * per) for s, d in _leaves(self.shape, self.stride)]
        return Layout(_rebuilt(self.shape, [s for s, _ in pairs]), _rebuilt(self.stride, [d for _, d in pairs]))

    def cpp(self) -> str:
        """``cute::Layout<Shape, Stride>{}``; a hierarchical one with its stride on a line of its own."""
        hierarchical = isinstance(self.shape, tuple) and any(isinstance(m, tuple) for m in self.shape)
        gap = "\n                 " if hierarchical else " "
        return f"cute::Layout<{_ints(self.shape, 'Shape')},{gap}{_ints(self.stride, 'Stride')}>{{}}"

    def dsl(self) -> str:
        return f"cute.make_layout({_tuple(self.shape)}, stride={_tuple(self.stride)})"

    def mojo(self) -> str:
        return f"Layout({_tuple(self.shape, 'IntTuple')}, {_tuple(self.stride, 'IntTuple')})"


class Ref(Value):
    """A swizzle a snippet declares by name (``using SmemSwizzle = cute::Swizzle<3,3,3>;``)."""

    name: str

    def transpose(self) -> Ref:
        return self

    def upcast(self, per: int) -> Ref:
        return Ref(f"{self.name}_{8 // per}bit")

    def cpp(self) -> str:
        return f"{self.name}{{}}"


def swizzle_upcast(sw: Swizzle, per: int) -> Swizzle:
    """``Swizzle<B,M,S>`` of packed bytes as the swizzle of ``per``-to-a-byte element offsets."""
    return Swizzle(sw.B, sw.M + log2(per), sw.S)


def _outer_cpp(outer: Any) -> str:
    return f"cute::{outer.name}{{}}" if isinstance(outer, Swizzle) else outer.cpp()


class Composed(Value):
    outer: Any  # a Swizzle, a Ref, or (make_composed_layout) a Layout of offsets
    inner: Any  # a Layout or a Composed
    call: str = "composition"  # or "make_composed_layout"
    broken: bool = True  # the inner layout on a line of its own

    def transpose(self) -> Composed:
        return Composed(self.outer, self.inner.transpose(), self.call, self.broken)  # (the outer map acts on offsets)

    def upcast(self, per: int) -> Composed:
        outer = swizzle_upcast(self.outer, per) if isinstance(self.outer, Swizzle) else self.outer.upcast(per)
        return Composed(outer, self.inner.upcast(per), self.call, self.broken)

    def cpp(self) -> str:
        if self.call == "composition":
            return f"cute::composition({_outer_cpp(self.outer)},{chr(10) + '    ' if self.broken else ' '}{self.inner.cpp()})"
        lead = "\n    " if isinstance(self.outer, Layout) else ""
        return f"cute::make_composed_layout({lead}{_outer_cpp(self.outer)}, cute::_0{{}},\n    {self.inner.cpp()})"

    def dsl(self) -> str:
        """The DSL's composed layout: a swizzle over an affine layout (it takes no other inner layout)."""
        sw = self.outer
        return f"cute.make_composed_layout(cute.make_swizzle({sw.B}, {sw.M}, {sw.S}), 0, {self.inner.dsl()})"


class Atom(Value):
    """GMMA's swizzle atom of shared memory (cute/atom/mma_traits_sm90_gmma.hpp)."""

    major: str  # "K" or "MN"
    mode: str  # INTER, SW32, SW64, SW128
    type_name: str  # as written; notation/cute.py's TYPE_BYTES says its size, else it is the tile's element

    def cpp(self) -> str:
        return f"cute::GMMA::Layout_{self.major}_{self.mode}_Atom<{self.type_name}>{{}}"


class Tiled(Value):
    """``tile_to_shape(block, Shape<R, C>, Step<order>)``: CuTe's blocked product of the block over
    the shape, the block counts in ``order`` (the mode of the smaller value first)."""

    block: Any  # a Layout, Composed or Atom
    shape: tuple  # (rows, cols)
    order: tuple = (1, 2)  # Step<_1,_2> (CuTe's default, printed as nothing) or Step<_2,_1>; three steps when staged
    stages: int = 1  # Shape<R, C, S>: S stages of the tile (notation/cute.py reads them; nothing emits them)

    def transpose(self) -> Tiled:
        atom = self.block
        assert isinstance(atom, Atom) and atom.major == "K", atom  # (the atoms an emitter tiles)
        rows, cols = self.shape
        return Tiled(Atom("MN", atom.mode, atom.type_name), (cols, rows), (2, 1))

    def upcast(self, per: int) -> Tiled:
        atom, (rows, cols) = self.block, self.shape
        shape = (rows, cols * per) if atom.major == "K" else (rows * per, cols)  # the contiguous dimension
        return Tiled(Atom(atom.major, atom.mode, f"{atom.type_name}{8 // per}"), shape, self.order)

    def cpp(self) -> str:
        step = ", cute::Step<cute::_2, cute::_1>{}" if self.order == (2, 1) else ""
        rows, cols = self.shape
        return (f"cute::tile_to_shape({self.block.cpp()},\n"
                f"    cute::Shape<cute::Int<{rows}>, cute::Int<{cols}>>{{}}{step})")


# --- the code a snippet declares ---------------------------------------------------------------


class Declared(Value):
    """A declaration of a record: ``auto NAME = VALUE;`` (C++; ``commented``: an alternative, each line
    commented out), ``NAME = VALUE`` (the CuTe DSL), ``comptime NAME = VALUE`` (Mojo). Its views
    are its value's; upcast, its name says so (``smem_layout_4bit``)."""

    name: str
    value: Any  # a Layout, Composed or Tiled
    commented: bool = False

    def transpose(self) -> Declared:
        return Declared(self.name, self.value.transpose(), self.commented)

    def upcast(self, per: int) -> Declared:
        return Declared(Ref(self.name).upcast(per).name, self.value.upcast(per), self.commented)

    def text(self, syntax: str) -> str:
        if syntax == "dsl":
            return f"{self.name} = {self.value.dsl()}"
        if syntax == "mojo":
            return f"comptime {self.name} = {self.value.mojo()}"
        text = f"auto {self.name} = {self.value.cpp()};"
        return "\n".join("// " + line for line in text.splitlines()) if self.commented else text


def in_view(col_major: bool, lines: list) -> list:
    """A snippet's lines (text, or records with transpose()) in the user's view: under --order col each
    record transposed (its comments and r, c: emit/views.py)."""
    return [line if isinstance(line, str) else line.transpose() for line in lines] if col_major else lines


def upcast_records(lines: list, per: int) -> list:
    """The records of a snippet's lines, upcast (its comments dropped: the byte form said them)."""
    return [line.upcast(per) for line in lines if not isinstance(line, str)]


def render(lines: list, syntax: str) -> str:
    """Lines of text and records, printed in ``syntax`` ("cpp", "dsl", "mojo")."""
    return "\n".join(line if isinstance(line, str) else line.text(syntax) for line in lines)


__all__ = ["Atom", "Composed", "Declared", "Layout", "Ref", "Swizzle", "Tiled", "in_view", "render", "swizzle_upcast",
           "upcast_records"]
