"""The one typed face of every layout (``Layout``) and of every layout family (``Family``).

A layout maps a tile's logical element (r, c) to a physical element offset in shared memory. Every
family's layout class (families/*.py) has this face; nothing outside a family's module asks a
layout which family it is in order to decide what to do with it: it asks the layout (the methods
below) or the family's registry record (``Family``, registered in families/__init__.py).

The GF(2) bases are the ONE canonical form of the linear families, as in Triton's LinearLayout
(``bases[inDim][i] = L(2^i)``): here ``bases[i] = phys(1 << i)`` on the bits of the logical offset
p = r * row_length + c. Everything a linear layout is "also" (a CuTe swizzle, a Triton swizzled or
linear encoding, a per-row column XOR) is read off them in one place: families/forms.py.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np

from .model import Tile
from .value import Value, field, replace


class CuteForm(Protocol):
    """What a layout that is, by its definition, one CuTe Swizzle<B,M,S> says of itself
    (families/cute.py's ``Swizzle``; a protocol here, as the families build on this module)."""

    @property
    def B(self) -> int: ...

    @property
    def M(self) -> int: ...

    @property
    def S(self) -> int: ...

    @property
    def name(self) -> str: ...

    def byte_level(self, elem_bytes: int) -> CuteForm: ...

    def tma_mode(self, elem_bytes: int) -> str | None: ...


class Layout(Protocol):
    """A layout of one tile. Invariants (each family's class keeps them; tests/test_families.py
    checks them on every family):

    - ``family``: the family's name as in the JSON and the registry (``none``, ``cute``, ...).
    - ``name``: how a kernel author writes it; ``names.parse_layout(name)`` reads it back to an
      equal layout (each family's registry record holds that parser).
    - ``order``: its rank inside its family (a sort key; smaller is preferred).
    - ``phys(tile, r, c)``: physical element offsets, elementwise over numpy arrays (or ints) r, c.
    - ``invalid(tile)``: None when ``phys`` is a bijection of the tile onto its storage, else one
      sentence saying why not. Only a valid layout is measured.
    - ``bases(tile)``: when the layout is GF(2)-linear on the bits of the logical offset (a
      power-of-two pitch), ``bases[i] = phys of offset 1 << i`` for every offset bit of the
      tile (``identity.nbits``), so phys(p) = XOR of bases[i] over the set bits i of p; else None
      (then the simulator measures it and no rank proof applies).
    - ``storage(tile)``: elements of storage the layout needs: ``tile.size`` unless padding.
    - ``expression(tile)``: ``phys`` as a C expression in ``r`` and ``c`` (only + - * << >> & ^ |);
      None only for a layout given as a table with no closed form (families/given.py).
    - ``swizzles()``: the JSON ``swizzles`` list (DESIGN.md section 5).
    - ``cute_swizzle()``: the layout itself when it is, by its definition, one CuTe Swizzle<B,M,S>
      (the JSON's ``cute``, ``byte_cute``, ``tma_mode``), else None. A layout that merely equals a
      swizzle on some tile is recognised from its bases (families/forms.py), not here.
    - ``padded_form(tile)``: (pitch, inner) when the layout is ``inner`` on rows ``pitch`` elements
      apart, a pitch other than the tile's (padding), else None.
    - ``invalid_padded(tile, pitch)``: ``invalid`` of the layout on the tile's rows ``pitch`` elements
      apart (padding's inner layout): a padded row's spare columns are storage too.
    - ``json_extras(tile)``: what the family adds to the answer's JSON beyond the common keys
      (the keys and their order are part of the JSON schema; {} for none).
    """

    @property
    def family(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def order(self) -> tuple: ...

    def phys(self, tile: Tile, r: Any, c: Any) -> Any: ...

    def invalid(self, tile: Tile) -> str | None: ...

    def bases(self, tile: Tile) -> list[int] | None: ...

    def storage(self, tile: Tile) -> int: ...

    def expression(self, tile: Tile) -> str | None: ...

    def swizzles(self) -> list[dict]: ...

    def cute_swizzle(self) -> CuteForm | None: ...

    def padded_form(self, tile: Tile) -> tuple[int, Layout] | None: ...

    def invalid_padded(self, tile: Tile, pitch: int) -> str | None: ...

    def json_extras(self, tile: Tile) -> dict: ...


class OffsetXor(Layout, Protocol):
    """A layout that XORs bits of the logical offset p = r * row_length + c (two-level, linear):
    ``apply(p)`` is the map on offsets, so phys(tile, r, c) = apply(r * row_length + c)."""

    def apply(self, p: Any) -> Any: ...


class LayoutBase:
    """Defaults of the Layout face: no bases (measured by the simulator), the tile's own storage,
    no JSON extras."""

    def invalid(self, tile: Tile) -> str | None:
        raise NotImplementedError  # every family's class says why its members are or are not bijections

    def bases(self, tile: Tile) -> list[int] | None:
        return None

    def storage(self, tile: Tile) -> int:
        return tile.size

    def cute_swizzle(self) -> CuteForm | None:
        return None

    def padded_form(self, tile: Tile) -> tuple[int, Layout] | None:
        return None

    def invalid_padded(self, tile: Tile, pitch: int) -> str | None:
        return self.invalid(replace(tile, row_length=pitch))

    def json_extras(self, tile: Tile) -> dict:
        return {}


class BadName(ValueError):
    """Text that is not a layout's name: ``text`` is the name (or the part of it) at fault, ``why``
    one sentence saying why, or None when the text has the shape of no family's names."""

    def __init__(self, text: str, why: str | None = None):
        super().__init__(f"{text!r}: {why}" if why else f"{text!r} is not a layout name")
        self.text, self.why = text, why


# Offsets are below 2^19 (model.MAX_STORAGE_BYTES): in a name, a bit position or shift above 31, or
# a pitch or band above 2^20, can only be a typo, and would overflow numpy's int64 arithmetic.
MAX_BIT = 31
MAX_ROWS = 1 << 20


def in_range(limit: int, **values: int) -> None:
    """For the name parsers: ValueError when a number of a name is above ``limit``."""
    for name, value in values.items():
        if value > limit:
            raise ValueError(f"{name} = {value} is out of range (at most {limit}; offsets are below 2^19)")


def _no_rows(answer: dict, problem: dict) -> list[tuple[str, str]]:
    return []


def _minimal(answer: dict) -> str:
    return f"the minimal layout is {answer['name']}"


def _nothing(answer: dict) -> str:
    return ""


class Family(Value):
    """One layout family, as the registry (families/__init__.py) holds it. Defined in the family's
    own module; adding a family is that module plus its registry entry.

    - ``name``, ``rank`` (DESIGN.md section 2's order of preference, 0 = most preferred), ``stage``
      (``EVERY_SOLVE``: searched on every solve; ``LATER``: only when no member of the every-solve
      families is conflict-free).
    - ``layout``: the layout class; ``candidates(tile, vector_elems)``: every member that can matter,
      in family order (None: too large to list, searched by ``engine``); ``grid`` and ``make``:
      the same members as parameter tuples and the layout of one tuple (the every-solve families,
      screened a batch at a time by ``phys_many`` / ``apply_many`` over an (n, k) array of tuples).
    - ``bounds(tile, vector_elems)``: the enumeration bounds in words (None: nothing to say).
    - ``parse(text) -> layout | None``: the layout a name denotes, None when the text does not have
      this family's shape; raises ValueError (one sentence, without the name: names.py adds it) when it has the
      shape but not valid values.
      ``printed``: a regex of the names its members print, spaces removed (batch's ``expect``);
      ``never_printed(text)``: why a printed name holding this family's members (alone, or inside
      another family's name) can never be an answer's, or None.
      ``syntax``: how to write a name, for the message listing every family's.
    - ``engine``: the default search engine (``screen``: every-solve screening and branch and
      bound; ``enum``; ``smt``; ``pitch``).
    - A later family's search (extended.py runs it): ``search(problem, budget, later) ->
      (candidates, report)`` (None: every member ``candidates`` lists is simulated);
      ``changes_pitch``: its members store the tile at another row length (not searched under
      --keep-pitch); ``least_storage(problem)``: the least storage (elements) a member needs (None:
      the tile's own).
    - Presentation (render.py asks these, never the family's name): ``code_rows(answer, problem)``
      (the family's lines of the Code section, from the answer's JSON), ``found(answer)`` (what the
      verdict says when it is the answer, proven minimal), ``note(answer)`` (added to the
      verdict whenever it is the conflict-free answer), ``baseline`` (the unswizzled layout's family),
      ``contains`` (families whose every member is also a member of this one: its witness when
      the SMT engine proves there is no model) and ``smt_unit`` (what z3 counted).
    - ``step_schema``: the JSON Schema of each shape of step its layouts' ``swizzles()`` write
      (``step_schema()`` below makes one); ``python -m swizzle_solver.schema`` gathers every
      family's into docs/schema/solution.schema.json, so a family's JSON is valid once it is
      registered (a family that writes only another family's steps may leave it empty).
    """

    name: str
    rank: int
    stage: str
    layout: type
    parse: Callable[[str], Layout | None]
    printed: str
    syntax: str
    never_printed: Callable[[str], str | None] | None = None
    candidates: Callable[[Tile, int], Sequence[Layout]] | None = None
    grid: Callable[[Tile, int], Sequence[tuple]] | None = None
    make: Callable[..., Layout] | None = None
    phys_many: Callable[[Sequence[tuple] | np.ndarray, Tile, np.ndarray, np.ndarray], np.ndarray] | None = None
    apply_many: Callable[[Sequence[tuple] | np.ndarray, np.ndarray], np.ndarray] | None = None
    bounds: Callable[[Tile, int], str] | None = None
    engine: str = "screen"
    search: Callable[..., tuple] | None = None
    changes_pitch: bool = False
    least_storage: Callable[[Any], int] | None = None
    code_rows: Callable[[dict, dict], list[tuple[str, str]]] = _no_rows
    found: Callable[[dict], str] = _minimal
    note: Callable[[dict], str] = _nothing
    baseline: bool = False
    contains: Sequence[str] = ()
    smt_unit: str = "bits"
    step_schema: Sequence[dict] = field(default=(), compare=False, repr=False)


def step_schema(description: str, **properties: dict) -> dict:
    """The JSON Schema of one shape of step (``Family.step_schema``): an object with ``properties``,
    every one required."""
    return {"type": "object", "description": description, "required": list(properties), "properties": properties}


def integer(minimum: int, description: str) -> dict:
    """A step property: an integer of at least ``minimum``."""
    return {"type": "integer", "minimum": minimum, "description": description}


def const(value: Any) -> dict:
    """A step property that is always ``value``."""
    return {"const": value}


EVERY_SOLVE = "every solve"
LATER = "later"


def columns(params, ndim: int) -> list[np.ndarray]:
    """For a family's ``phys_many`` / ``apply_many``: the k columns of n parameter tuples, each of
    shape (n, 1, ..., 1) with ``ndim`` ones, so that they broadcast against offsets of ``ndim``
    dimensions with the member along axis 0."""
    array = np.asarray(params, dtype=np.int64).reshape(len(params), -1)
    return [col.reshape(-1, *[1] * ndim) for col in array.T]


def partial_block_invalid(apply: Callable[[np.ndarray], np.ndarray], block: int, tile: Tile, low: int = 0) -> str | None:
    """Why an XOR map of offsets that changes only bits below ``block`` (a power of two; 0: it
    changes none) is not a bijection of the tile's storage [0, size), or None. Such a map keeps
    each aligned block of ``block`` offsets, and is a bijection of it (an involution: CuTe's
    swizzle; unitriangular: two-level, linear), so only the last, partial block can leave the
    storage (smt._on_storage asserts the same in SMT-LIB).

    ``low`` (at most log2(block)): the map changes no bit below it and reads none (every XOR goes
    from a higher bit to a lower one, into bits ``low`` and up), so p = q + l (q a multiple of
    2^low, l below it) goes to apply(q) + l: one image per 2^low offsets decides the block, and
    the first offset that leaves the storage is q + max(0, size - apply(q))."""
    size = tile.size
    start = size - size % block if block else size
    if start == size:
        return None
    step = 1 << low
    q = np.arange(start, size, step, dtype=np.int64)  # start is a multiple of block, hence of step
    image = apply(q)  # a multiple of step too
    first = np.maximum(size - image, 0)  # the least l with image + l outside the storage
    bad = np.flatnonzero(first < np.minimum(step, size - q))  # ... that q + l still has in the storage
    if bad.size:
        i = int(bad[0])
        return (f"not a bijection of the {size}-element storage: offset {int(q[i] + first[i])} maps to "
                f"{int(image[i] + first[i])}")
    return None


def layout_table(tile: Tile, layout: Layout) -> np.ndarray:
    """phys[r, c] over the whole tile: the table the simulator measures."""
    r, c = np.arange(tile.rows)[:, None], np.arange(tile.cols)[None, :]  # the formulas broadcast
    return np.ascontiguousarray(np.broadcast_to(layout.phys(tile, r, c), (tile.rows, tile.cols)), dtype=np.int64)
