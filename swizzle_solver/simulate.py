"""The exhaustive simulator: the ground truth for every wavefront count the tool prints.

It takes a layout as a table ``phys[r, c]`` (the physical element offset of element (r, c)) and
walks every byte of every lane of every placement, with no assumption about the layout: not
linearity, not a power-of-two pitch, not even that vectors stay whole (that is checked apart,
by ``admissible``). Cost of one placement (DESIGN.md section 1): group the distinct words it touches
by bank; the most distinct words in one bank is the number of wavefronts.
"""
from __future__ import annotations

import threading
import weakref
from collections.abc import Callable

import numpy as np

from .hardware import Hardware
from .model import Pattern, Tile
from .value import Value


def placement_costs(words: np.ndarray, banks: int) -> np.ndarray:
    """Wavefronts of each row of ``words`` (shape (placements, k)): max distinct words per bank.

    One copy of ``words`` (in int32 when every key fits: half the memory to sort and stream), sorted
    and then overwritten in place with each word's (placement, bank) index."""
    n, k = words.shape
    small = n * banks < 1 << 31 and (not words.size or int(words.max()) < 1 << 31)
    key: np.ndarray = words.astype(np.int32 if small else np.int64)
    key.sort(axis=1)
    first = np.empty((n, k), dtype=bool)  # the first occurrence of each distinct word
    first[:, 0] = True
    np.not_equal(key[:, 1:], key[:, :-1], out=first[:, 1:])
    if banks & (banks - 1) == 0:  # the bank of each word (& is %, for powers of two)
        np.bitwise_and(key, banks - 1, out=key)
    else:
        np.remainder(key, banks, out=key)
    np.add(key, (np.arange(n, dtype=key.dtype) * banks)[:, None], out=key)  # (placement, bank) as one index
    return np.bincount(key[first], minlength=n * banks).reshape(n, banks).max(axis=1)


def pattern_costs(tile: Tile, hardware: Hardware, pattern: Pattern, words: np.ndarray) -> np.ndarray:
    """placement_costs of ``words`` (rows in lane_words order) on the banks ``pattern`` uses.

    A 12-byte lane (ds_read_b96, 3 dwords, dword-aligned) is counted per dword position: its k-th
    dword competes only with the other lanes' k-th dwords (equivalently: two such lanes conflict
    iff they start in the same bank). HipKittens' gfx950 ds_read_b96 bank sweep (S8) measured
    exactly that: lane 0 at dword 0 and lane 1 at dword N conflict only for N = 32, 64, 96, not for
    N = 30, 31, 33, 34 where their dwords overlap in banks at different positions. For aligned
    power-of-two lanes the two readings agree (a dword's bank fixes its position), so they keep
    the plain count."""
    banks = hardware.serving(pattern.banks).banks
    width = int(pattern.lane_bytes.max())
    if width & (width - 1) == 0:
        return placement_costs(words, banks)
    per_lane = width // hardware.bank_bytes  # dword positions in one lane
    elems = width // tile.elem_bytes  # lane_elements: every lane of such a pattern has this width
    position = (np.arange(words.shape[1]) % elems) * tile.elem_bytes // hardware.bank_bytes
    keys = (words // banks) * (banks * per_lane) + position * banks + words % banks  # (position, bank) slots
    return placement_costs(keys, banks * per_lane)


PhysFn = Callable[[np.ndarray, np.ndarray], np.ndarray]  # (r, c) -> physical element offsets


class Table:
    """A layout given as a table phys[r, c], as a function of (r, c) (a PhysFn). It gathers with one
    take from the flat table, several times faster than numpy's indexing by a pair of arrays;
    ``lane_words`` and ``admissible`` take the lanes' flat indices, computed once per pattern."""

    __slots__ = ("phys", "flat", "cols")

    def __init__(self, phys: np.ndarray):
        self.phys, self.flat, self.cols = phys, phys.ravel(), phys.shape[1]

    def __call__(self, r: np.ndarray, c: np.ndarray) -> np.ndarray:
        return self.flat.take(np.asarray(r) * self.cols + c)


def table(phys: np.ndarray) -> Table:
    """A layout given as a table phys[r, c], as a function of (r, c)."""
    return Table(phys)


_STEPS: weakref.WeakKeyDictionary[Pattern, tuple] = weakref.WeakKeyDictionary()
_ELEMENTS: weakref.WeakKeyDictionary[Pattern, tuple] = weakref.WeakKeyDictionary()
_FLAT: weakref.WeakKeyDictionary[Pattern, tuple] = weakref.WeakKeyDictionary()


def _steps(tile: Tile, pattern: Pattern) -> np.ndarray:
    """Each lane element's column after its lane's first (0, 1, ..., n - 1, then n - 1 repeated: a
    narrower lane repeats its last element), shape (placements, lanes, widest lane); once per pattern."""
    return _per_pattern(tile, pattern)[1]


def _per_pattern(tile: Tile, pattern: Pattern) -> tuple[int, np.ndarray, np.ndarray]:
    """(elem bytes, _steps, each lane's alignment in elements - 1: its size, or a 12-byte lane's
    largest power-of-two factor, a dword), computed once per pattern."""
    cached = _STEPS.get(pattern)
    if cached is None or cached[0] != tile.elem_bytes:
        nbytes = pattern.lane_bytes
        widest = int(nbytes.max())
        if widest == int(nbytes.min()):  # one lane size (the usual case): 0, 1, ..., n - 1 for every lane, a view
            steps = np.broadcast_to(np.arange(widest // tile.elem_bytes), (*nbytes.shape, widest // tile.elem_bytes))
            align = np.int64(max(1, (widest & -widest) // tile.elem_bytes))
        else:
            elems = nbytes // tile.elem_bytes  # elements per lane
            steps = np.minimum(np.arange(widest // tile.elem_bytes), elems[..., None] - 1)
            align = np.maximum(1, (nbytes & -nbytes) // tile.elem_bytes)
        cached = _STEPS[pattern] = (tile.elem_bytes, steps, align - 1)
    return cached


def _flat_elements(tile: Tile, pattern: Pattern, cols: int) -> np.ndarray:
    """lane_elements as flat indices into a table of ``cols`` columns, computed once per pattern."""
    cached = _FLAT.get(pattern)
    if cached is None or cached[:2] != (tile.elem_bytes, cols):
        first = pattern.lane_row * cols + pattern.lane_col
        cached = _FLAT[pattern] = (tile.elem_bytes, cols, first[..., None] + _steps(tile, pattern))
    return cached[2]


def lane_elements(tile: Tile, pattern: Pattern) -> tuple[np.ndarray, np.ndarray]:
    """(row, col) of element k of every lane of every placement, shape (placements, lanes, widest lane).

    A narrower lane repeats its last element (same words). Computed once per pattern: the search
    simulates the same placements under many layouts.
    """
    cached = _ELEMENTS.get(pattern)
    if cached is None or cached[0] != tile.elem_bytes:
        cols = pattern.lane_col[..., None] + _steps(tile, pattern)
        rows = np.ascontiguousarray(np.broadcast_to(pattern.lane_row[..., None], cols.shape))
        cached = _ELEMENTS[pattern] = (tile.elem_bytes, rows, cols)
    return cached[1], cached[2]


def lane_words(tile: Tile, hardware: Hardware, pattern: Pattern, phys: PhysFn,
               placements: np.ndarray | None = None) -> np.ndarray:
    """Every word each placement touches, shape (placements, n): all bytes of all lanes.

    ``placements`` selects some placements by index (the search screens a sample); default all.
    """
    if isinstance(phys, Table):
        got = _gathered(tile, pattern, phys.phys) if placements is None else None
        if got is None:
            index = _flat_elements(tile, pattern, phys.cols)
            got = phys.flat.take(index if placements is None else index[placements])
        return words_of(tile, hardware, got.reshape(got.shape[0], -1))
    rows, cols = lane_elements(tile, pattern)
    if placements is not None:
        rows, cols = rows[placements], cols[placements]
    return words_of(tile, hardware, phys(rows, cols).reshape(rows.shape[0], -1))


def words_of(tile: Tile, hardware: Hardware, offsets: np.ndarray) -> np.ndarray:
    """The words of physical element offsets (shape (n, k)), row by row: shape (n, k * words per element)."""
    return hardware.words(offsets, tile.elem_bytes)


class AccessResult(Value):
    """One pattern under one layout, as the simulator measured it."""

    pattern: Pattern
    costs: np.ndarray  # wavefronts of every placement

    @property
    def worst(self) -> int:
        return int(self.costs.max())

    @property
    def total(self) -> int:
        return int(self.costs.sum())

    @property
    def worst_placement(self) -> int:
        return int(self.costs.argmax())

    @property
    def excess(self) -> int:
        """Wavefronts above the lower bound in the unit the output reports, the one measure every
        search ranks by: per instruction (the sum over its phases, DESIGN.md section 9) for
        instruction-level forms, else per phase. Each phase costs at least its lower bound, so the
        per-phase excess (``worst - lower_bound``, what the search's fast paths bound) is never
        above it, and both are 0 together."""
        if self.pattern.instruction_phases <= 1:
            return self.worst - self.pattern.lower_bound
        return self.instruction_worst - self.pattern.instruction_lower_bound

    @property
    def instruction_worst(self) -> int:
        """The worst instruction's cost (the worst phase's for forms that are not instruction-level)."""
        return int(self.instruction_costs().max())

    def instruction_costs(self) -> np.ndarray:
        """Cost of each instruction (DESIGN.md section 9): the sum over its phases; for forms
        that are not instruction-level, the phases themselves."""
        k = self.pattern.instruction_phases
        return self.costs if k <= 1 else self.costs.reshape(-1, k).sum(axis=1)


def simulate(tile: Tile, hardware: Hardware, patterns, phys: np.ndarray) -> list[AccessResult]:
    """Every placement of every pattern under the layout ``phys[r, c]``."""
    fn = table(phys)
    return [AccessResult(p, pattern_costs(tile, hardware, p, lane_words(tile, hardware, p, fn))) for p in patterns]


def is_injective(tile: Tile, phys: np.ndarray, size: int | None = None) -> bool:
    """Every element of the tile lands on its own element of the buffer [0, size) (default
    rows * row_length; padding needs more)."""
    size = tile.size if size is None else size
    flat = phys.ravel()
    if flat.min() < 0 or flat.max() >= size:
        return False
    return int(np.bincount(flat, minlength=tile.size).max()) <= 1  # (np.unique would import numpy.ma)


def admissible(tile: Tile, pattern: Pattern, phys: np.ndarray) -> bool:
    """Every lane's elements stay contiguous and aligned to the lane's size (a 12-byte lane: to
    4 bytes, its largest power-of-two factor) after the layout."""
    if int(pattern.lane_bytes.max()) == tile.elem_bytes:
        return True  # one element per lane: nothing to keep together, and every offset is aligned to 1
    _, steps, below_align = _per_pattern(tile, pattern)  # element k of each lane at column first + min(k, n - 1)
    got = phys.ravel().take(_flat_elements(tile, pattern, phys.shape[1]))
    _remember(tile, pattern, phys, got)
    return not np.any(got[..., 0] & below_align) and np.array_equal(got, got[..., :1] + steps)


# The last few gathers of every lane element under a table (admissible's), for the simulator's next
# look at the same pattern under the same table: a search checks a member's soundness, then
# measures it. Few, so that the memory they hold stays small; keyed by the table object itself
# (a table is never changed in place: layout_table builds a new one for every layout).
_GATHERS: list[tuple[weakref.ref, Pattern, int, np.ndarray]] = []
GATHERS_KEPT = 8
_GATHERS_LOCK = threading.Lock()  # threads share the list (the API is safe from threads)


def _remember(tile: Tile, pattern: Pattern, phys: np.ndarray, got: np.ndarray) -> None:
    with _GATHERS_LOCK:
        _GATHERS.append((weakref.ref(phys), pattern, tile.elem_bytes, got))
        del _GATHERS[:-GATHERS_KEPT]


def _gathered(tile: Tile, pattern: Pattern, phys: np.ndarray) -> np.ndarray | None:
    """The gather ``admissible`` made of this pattern's lane elements under this very table, if
    kept (taken out: each gather serves one measurement). A table is one thread's (each solve
    builds its own), so a gather found is of the table asked for."""
    with _GATHERS_LOCK:
        for k, (table, kept, elem_bytes, got) in enumerate(_GATHERS):
            if kept is pattern and table() is phys and elem_bytes == tile.elem_bytes:
                del _GATHERS[k]
                return got
    return None


def first_split(tile: Tile, pattern: Pattern, phys: np.ndarray) -> tuple[int, int, int, list[int]] | None:
    """The first lane whose vector ``admissible`` finds split or misaligned: (row, col, bytes, the
    physical offsets of its elements), or None. For messages only: never on a search's path."""
    if int(pattern.lane_bytes.max()) == tile.elem_bytes:
        return None
    rows, cols = lane_elements(tile, pattern)
    steps = _steps(tile, pattern)
    align = np.maximum(1, (pattern.lane_bytes & -pattern.lane_bytes) // tile.elem_bytes)
    got = phys[rows, cols]
    bad = (got[..., 0] % align != 0) | np.any(got != got[..., :1] + steps, axis=-1)
    if not bad.any():
        return None
    i = np.unravel_index(int(np.argmax(bad)), bad.shape)
    n = int(pattern.lane_bytes[i]) // tile.elem_bytes
    return int(rows[i][0]), int(cols[i][0]), int(pattern.lane_bytes[i]), [int(x) for x in got[i][:n]]


def first_collision(tile: Tile, phys: np.ndarray, size: int) -> str | None:
    """Why ``phys`` is not injective into [0, size), in words: the first element (row-major) outside
    it, or the first two elements on one offset; None when it is injective. For messages only."""
    flat = phys.ravel()
    outside = np.flatnonzero((flat < 0) | (flat >= size))
    if outside.size:
        r, c = tile.logical(*divmod(int(outside[0]), tile.cols))  # (the user's (r, c) under --order col)
        return f"element ({r}, {c}) is at offset {int(flat[outside[0]])}, outside [0, {size})"
    order = np.argsort(flat, kind="stable")
    same = np.flatnonzero(flat[order][1:] == flat[order][:-1])
    if not same.size:
        return None
    pairs = sorted((int(order[k]), int(order[k + 1])) for k in same)  # each duplicate with the one before it
    later = min(pairs, key=lambda pair: pair[1])  # the first element (row-major) that lands on a taken offset
    (r0, c0), (r1, c1) = (tile.logical(*divmod(k, tile.cols)) for k in later)
    return f"elements ({r0}, {c0}) and ({r1}, {c1}) are both at offset {int(flat[later[0]])}"


def bank_list(tile: Tile, hardware: Hardware, pattern: Pattern, phys: np.ndarray, placement: int):
    """For one placement: each distinct lane (row, col, bytes) with the banks of its words."""
    e, hardware = tile.elem_bytes, hardware.serving(pattern.banks)
    out = []
    for r, c, nbytes in pattern.phase_lanes(placement):
        words = sorted({w for k in range(nbytes // e) for w in hardware.words_of_element(int(phys[r, c + k]), e)})
        out.append(((r, c, nbytes), words, [hardware.bank(w) for w in words]))
    return out


class PartitionCount(Value):
    """An access issued by several waves together (``Pattern.waves``), under one layout: the wave
    pairs that touch a common LDS partition in one round (hardware.LdsPartitions)."""

    conflicting: int  # (pair, round)s whose two waves touch a common partition
    pairs: int  # (pair, round)s: waves // pair * instructions per wave
    waves: int
    partitions_touched: int  # distinct partitions the access touches

    @property
    def free(self) -> bool:
        return self.conflicting == 0


def instruction_partitions(tile: Tile, hardware: Hardware, pattern: Pattern, phys: np.ndarray) -> np.ndarray:
    """The partitions each instruction of ``pattern`` touches under the layout ``phys[r, c]`` (element
    offsets from the start of the workgroup's LDS), as a bit mask per instruction, in placement order.
    Every byte of every lane counts (an element never straddles a partition: partitions are whole
    elements)."""
    parts = hardware.lds_partitions
    assert parts is not None
    rows, cols = lane_elements(tile, pattern)
    first_byte = phys[rows, cols].astype(np.int64) * tile.elem_bytes
    index = parts.index(first_byte).reshape(pattern.placements, -1)
    masks = np.bitwise_or.reduce(np.left_shift(1, index), axis=1)
    k = max(1, pattern.instruction_phases)
    return np.bitwise_or.reduce(masks.reshape(-1, k), axis=1)


def partition_conflicts(tile: Tile, hardware: Hardware, pattern: Pattern, phys: np.ndarray) -> PartitionCount | None:
    """LDS partition conflicts of an access issued by ``pattern.waves`` waves together, under the layout
    ``phys``; None where the target has no partitions or one wave issues the access.

    The waves split the access's instructions in placement order: wave w issues instructions
    [w n/W, (w + 1) n/W), its t-th in round t. In each round, waves 2k and 2k + 1 (a pair,
    hardware.LdsPartitions.pair) conflict when the partitions their instructions touch intersect."""
    parts = hardware.lds_partitions
    if parts is None or pattern.waves < 2:
        return None
    masks = instruction_partitions(tile, hardware, pattern, phys)
    per_wave = masks.size // pattern.waves
    by_wave = masks.reshape(pattern.waves, per_wave)  # [wave, round]
    grouped = by_wave.reshape(pattern.waves // parts.pair, parts.pair, per_wave)
    shared = np.bitwise_and.reduce(grouped, axis=1) != 0  # a partition every wave of the pair touches
    touched = int(np.bitwise_or.reduce(masks))
    return PartitionCount(conflicting=int(shared.sum()), pairs=int(shared.size), waves=pattern.waves,
                          partitions_touched=bin(touched).count("1"))
