"""Is a layout usable at all? The one soundness check, the counterpart of Triton's
``LinearLayout::checkInvariants``: a layout is sound on a problem when it is a bijection of the
tile onto its storage and keeps every lane's vector whole (contiguous and aligned to its size).

The check has one spelling, ``sound``, and its answer is a value: a ``Sound`` (the layout bound to
its tile and patterns, with its table), which only this module makes. The measurement a search
ranks by (candidate.measure) accepts nothing else, so no search can measure a layout it has not
checked. ``soundness`` says why a layout is not sound, in words (``--check`` reports it, and
``verify`` turns a failure on an answer into an internal error); ``table_soundness`` is the table
half on its own (tests/test_soundness.py holds it to hand-made tables). ``QuickSoundness`` decides
the members of two later families from facts computed once per problem, and still answers a
``Sound``.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from . import simulate
from .families.identity import Identity
from .layout import Layout, OffsetXor, layout_table
from .model import Pattern, Problem, Tile
from .value import Value, field

_MINT = object()  # only this module holds it: a Sound made anywhere else is refused


class Sound(Value, eq=False):
    """A layout found sound on ``tile`` for ``patterns``: a bijection onto its storage that keeps
    every vector of the patterns whole, with ``table`` (its layout_table) the simulator measures.
    Made only by this module (``sound``, ``QuickSoundness``, and ``slim`` of one)."""

    tile: Tile
    layout: Layout
    patterns: tuple[Pattern, ...]
    built: np.ndarray | None = field(repr=False)  # the table checked; None once slim (rebuilt on use)
    mint: object = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.mint is not _MINT:
            raise TypeError("a Sound is made only by soundness.sound(...): check the layout first")

    @property
    def table(self) -> np.ndarray:
        """phys[r, c] of the layout on the tile: the table checked, or the same one built again
        (layout_table is a function of the tile and the layout alone)."""
        return layout_table(self.tile, self.layout) if self.built is None else self.built

    def slim(self) -> Sound:
        """The same check without its table, to be kept by a candidate not yet measured (a table is
        the tile's size; a candidate waits in the API's cache until its table is asked for)."""
        return Sound(self.tile, self.layout, self.patterns, None, _MINT)

    def of(self, problem: Problem) -> bool:
        """Whether this is the check of ``problem``'s tile and patterns (the same pattern objects: a
        problem's patterns are compiled once, and a search's padded problems share them)."""
        patterns = problem.patterns
        return self.tile == problem.tile and len(self.patterns) == len(patterns) and \
            all(a is b for a, b in zip(self.patterns, patterns))


def storage(tile: Tile, layout: Layout) -> int:
    """Elements of storage the layout may use: the tile's own, or more for padding."""
    return layout.storage(tile)


def sound(tile: Tile, layout: Layout, patterns: Sequence[Pattern], table: np.ndarray | None = None,
          invalid: Callable[[Layout], str | None] | None = None) -> Sound | None:
    """The layout as a ``Sound`` when it is a bijection of the tile onto its storage that keeps
    every vector of ``patterns`` whole; else None. ``table``: its layout_table, if already built
    (else it is built only past the structural check, which most unsound members fail);
    ``invalid``: the structural half (default: the layout's own ``invalid`` on the tile; padding's
    search checks a swizzle of the padded rows by the padded layout's)."""
    why = layout.invalid(tile) if invalid is None else invalid(layout)
    if why is not None:
        return None
    table = layout_table(tile, layout) if table is None else table
    if table_soundness(tile, table, storage(tile, layout), patterns) is not None:
        return None
    return Sound(tile, layout, tuple(patterns), table, _MINT)


def soundness(tile: Tile, layout: Layout, patterns: Sequence[Pattern], table: np.ndarray | None = None) -> str | None:
    """None when ``layout`` is sound (``sound``); else why not, in words, with its witness
    (``table``: its layout_table, if already built)."""
    why = layout.invalid(tile)  # the family's own structural reason, cheapest and most telling
    if why is not None:
        return why
    table = layout_table(tile, layout) if table is None else table
    size = storage(tile, layout)
    why = table_soundness(tile, table, size, patterns)
    return None if why is None else _detailed(why, tile, table, size, patterns, layout.bases(tile) is not None)


def table_soundness(tile: Tile, table: np.ndarray, size: int, patterns: Sequence[Pattern]) -> str | None:
    """The table half of the check: None when ``table`` (phys[r, c] of every element) sends the
    tile one-to-one into [0, size) and keeps every vector of ``patterns`` whole; else why not."""
    if not simulate.is_injective(tile, table, size):
        return f"it is not a bijection onto its {size}-element storage"
    for pattern in patterns:
        if not simulate.admissible(tile, pattern, table):
            return f"it splits the {pattern.vector_bytes}-byte vectors of {pattern.spec}"
    return None


class QuickSoundness:
    """``sound(...)`` for members of two kinds of family, without building each
    member's table: the member's structural check, then facts about each pattern's lanes and the
    identity's table, computed once per problem. Where a fact does not apply, the member's table is
    checked as soundness.py does. (tests/test_speed.py: the same answer as the table check.)

    XOR maps of offsets (``xor``; two-level: ``OnOffset`` maps whose XORs go from higher bits into
    bits ``low`` and up). The structural check (``invalid``: partial_block_invalid) passing says L
    is a bijection of the storage [0, size); the tile's offsets p = r * row_length + c are distinct
    and in it when cols <= row_length, so the table is injective into the storage. L reads and
    changes no bit below ``low``, so L(q + l) = L(q) + l for q a multiple of 2^low and l below it,
    and L(p) = p modulo 2^low. A lane of n elements from offset p that stays inside one block of
    2^low therefore stays contiguous under L, and its start's alignment (a power of two dividing
    2^low) is p's: when every lane of a pattern is like that, L keeps the pattern's vectors whole
    exactly when the identity does.

    Row permutations (``rows``; row interleave: row r stored at row pi(r), columns kept). The
    structural check passing says pi permutes the tile's rows, so with cols <= row_length the
    table is injective into the storage. A lane stays in its row, so it stays contiguous, and its
    start pi(r) * row_length + c has the alignment of r * row_length + c when the row length is a
    multiple of the alignment: then pi keeps the pattern's vectors whole exactly when the identity
    does."""

    def __init__(self, problem: Problem):
        self.problem = problem
        self.identity = layout_table(problem.tile, Identity())
        self._by_pattern: list[tuple[int, int, bool]] | None = None

    def by_pattern(self) -> list[tuple[int, int, bool]]:
        """Per pattern: the least ``low`` at which every lane lies inside one block of 2^low and
        every alignment divides it (a lane from p to e = p + n - 1 lies inside one such block iff
        p ^ e < 2^low), its largest alignment (elements, a power of two), and whether the identity
        keeps its vectors whole."""
        if self._by_pattern is None:
            tile, self._by_pattern = self.problem.tile, []
            for pattern in self.problem.patterns:
                rows, cols = simulate.lane_elements(tile, pattern)
                first, last = self.identity[rows[..., 0], cols[..., 0]], self.identity[rows[..., -1], cols[..., -1]]
                align = int(np.max(np.maximum(1, (pattern.lane_bytes & -pattern.lane_bytes) // tile.elem_bytes)))
                least = max(int(np.bitwise_or.reduce(first ^ last, axis=None)).bit_length(), align.bit_length() - 1)
                self._by_pattern.append((least, align, simulate.admissible(tile, pattern, self.identity)))
        return self._by_pattern

    def _decided(self, layout: Layout, applies: bool) -> Sound | None:
        tile, patterns = self.problem.tile, self.problem.patterns
        if layout.invalid(tile) is not None:
            return None
        if tile.cols > tile.row_length or not applies:
            return sound(tile, layout, patterns)
        if not all(whole for _, _, whole in self.by_pattern()):
            return None
        return Sound(tile, layout, tuple(patterns), None, _MINT)  # its table built when it is measured

    def xor(self, layout: OffsetXor, low: int) -> Sound | None:
        """A member XORing from higher bits into bits ``low`` and up (two-level: its least target bit)."""
        return self._decided(layout, all(least <= low for least, _, _ in self.by_pattern()))

    def rows(self, layout: Layout) -> Sound | None:
        pitch = self.problem.tile.row_length
        return self._decided(layout, all(pitch % align == 0 for _, align, _ in self.by_pattern()))



def _detailed(why: str, tile: Tile, table: np.ndarray, size: int, patterns: Sequence[Pattern], xor: bool) -> str:
    """table_soundness's reason with its witness (the search asks only whether there is one): the
    first two elements that collide, or the first vector split, and for an XOR layout (``xor``) what
    keeps vectors whole."""
    collision = simulate.first_collision(tile, table, size)
    if collision is not None:
        return f"{why}: {collision}"
    for pattern in patterns:
        split = simulate.first_split(tile, pattern, table)
        if split is None:
            continue
        r, c, nbytes, offsets = split
        r, c = tile.logical(r, c)  # the user's (r, c) under --order col
        align = (nbytes & -nbytes) // tile.elem_bytes
        where = (f"starts at offset {offsets[0]}, not a multiple of {align}" if offsets[0] % align and offsets ==
                 list(range(offsets[0], offsets[0] + len(offsets))) else f"lands at offsets {', '.join(map(str, offsets))}")
        hint = " (an XOR into bits M and up keeps them whole only when 2^M >= elements per vector)" if xor else ""
        if _whole_down_columns(table, nbytes // tile.elem_bytes):
            hint = (" (the layout keeps such vectors whole down the columns: it looks column-major; add --order col"
                    if not tile.col_major else " (the layout keeps such vectors whole along the rows: it looks "
                    "row-major; drop --order col") + ", which says the tile is stored that way)"
        return (f"it splits the {pattern.vector_bytes}-byte vectors of {pattern.spec}: the {nbytes}-byte vector at "
                f"({r}, {c}) {where}{hint}")
    return why


def _whole_down_columns(table: np.ndarray, n: int) -> bool:
    """Whether the layout stores every run of ``n`` elements down a column, from a row that is a
    multiple of n, at n consecutive offsets from a multiple of n: the transposed orientation keeps
    n-element vectors whole (a column-major layout given without --order col, or the reverse)."""
    rows = table.shape[0]
    if n < 2 or rows % n:
        return False
    runs = table.reshape(rows // n, n, -1).astype(np.int64)  # (run, element in run, column)
    return bool(np.all(runs[:, 0] % n == 0) and np.all(runs - runs[:, :1] == np.arange(n)[None, :, None]))


def verify(tile: Tile, layout: Layout, patterns: Sequence[Pattern], table: np.ndarray | None = None) -> None:
    """Insist a layout the search returns is sound: a failure here is a bug in a search."""
    why = soundness(tile, layout, patterns, table)
    if why is not None:
        raise AssertionError(f"internal error: {layout.name} is unsound: {why}")
