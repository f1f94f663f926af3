"""The API's cache of solved problems (api.solve): an autotuner asks for the same tile again and
again, and the answer of a problem never changes, so it is kept.

Keyed by the normalised problem, not by how it was written: the tile (rows, columns, pitch,
element size), the hardware (the target and any bank override), and each access pattern after
parsing (its spec, which the JSON prints, its kind and footprint, and the placements' lanes
themselves, byte for byte), with the solve's options (--exhaustive, --keep-pitch, --for). So
``dtype="f16"`` and ``elem_bytes=2`` share an entry, and a --phases file is keyed by what it says,
not by its name. A call with the CLI's keywords and no --phases file also finds the parsed
problem by those keywords (``keywords_key``), which skips the parsing on a repeat.

Bounded (least recently used first out): ``DEFAULT_SIZE`` entries unless resized; size 0 turns it
off. An entry holds the answer and, once built, the candidates table (api.Tabled), so the report
of a repeated problem is built once too.

What the cache shares with every caller must not change under it: the parsed problem's lane
arrays and the simulator's cost arrays are made read-only (``seal``), every record on the way to
them is frozen (value.Value), and the API hands out copies of the rest (api.Result.solution,
api.Result.json).
"""
from __future__ import annotations

import weakref

import numpy as np

from .hardware import Hardware
from .lru import LRU
from .model import Pattern, Problem, Tile
from .value import fields

DEFAULT_SIZE = 256

_ARRAYS = ("lane_row", "lane_col", "lane_bytes")


SOLVED = LRU(DEFAULT_SIZE)  # (problem_key, options) -> api.Tabled
PARSED = LRU(DEFAULT_SIZE)  # keywords_key -> (Problem, problem_key)
PATTERNS = LRU(4 * DEFAULT_SIZE)  # (spec, tile, hardware, its rules) -> Pattern


def parse_access(spec: str, tile: Tile, hardware: Hardware) -> Pattern:
    """access.parse_access, a pattern compiled before for the same spec, tile and hardware handed
    out again (access.make_problem's ``parse``). A sweep's configs share accesses ("row" on the
    same tile, with another access beside it): the pattern, and what the search derives from it
    once per pattern (its lane differences, its lane elements), are then built once. A pattern
    is immutable (its arrays sealed), so sharing it changes nothing."""
    from .access import parse_access as compile_access

    if PATTERNS.size <= 0:
        return compile_access(spec, tile, hardware)
    key = (spec, tile, hardware, hardware.rules)  # (a Hardware compares without its rules: a disputed cell's
    found = PATTERNS.get(key)                     # other reading, hardware.with_rule, is equal to it)
    if found is None:
        found = compile_access(spec, tile, hardware)
        for name in _ARRAYS:
            seal(getattr(found, name))
        # What the pattern is made from says what it is (the parser is a function of them): its key
        # for problem_key, without reading its arrays.
        _PATTERN_KEYS[found] = ("compiled", *key)
        PATTERNS.put(key, found)
    return found

_PATTERN_KEYS: weakref.WeakKeyDictionary[Pattern, tuple] = weakref.WeakKeyDictionary()


def seal(array: np.ndarray) -> np.ndarray:
    """Make ``array`` read-only (in place) and return it: shared with the cache, it must not change."""
    array.flags.writeable = False
    return array


def pattern_key(pattern: Pattern) -> tuple:
    """Everything that defines a parsed pattern: its fields, the lane arrays as bytes. The arrays are
    sealed first, so the key stays true for the pattern object (and is remembered for it)."""
    key = _PATTERN_KEYS.get(pattern)
    if key is None:
        arrays = tuple(seal(getattr(pattern, name)) for name in _ARRAYS)
        key = (tuple(getattr(pattern, name) for name in fields(pattern) if name not in _ARRAYS),
               tuple((a.dtype.str, a.shape, a.tobytes()) for a in arrays))
        _PATTERN_KEYS[pattern] = key
    return key


class Key:
    """A key that hashes once: a repeated problem's lookup then costs a dict probe, not a walk over
    the tile's, the hardware's and every pattern's fields."""

    __slots__ = ("parts", "_hash")

    def __init__(self, parts: tuple):
        self.parts, self._hash = parts, hash(parts)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, Key) and self._hash == other._hash and self.parts == other.parts)


def problem_key(problem: Problem) -> Key:
    """The normalised problem: the tile, the hardware (its rules too), the parsed patterns in order."""
    hardware = problem.hardware
    return Key((problem.tile, hardware, hardware.rules, tuple(pattern_key(p) for p in problem.patterns)))


def keywords_key(kwargs: dict) -> tuple | None:
    """The CLI's keywords of api.problem as a key, when they are plain values and name no file (a
    --phases file may change between calls: such a problem is parsed, then keyed by its content);
    None otherwise."""
    if kwargs.get("phases"):
        return None
    access = kwargs.get("access", ())
    access = (access,) if isinstance(access, str) else tuple(access)
    # the type too: 64 and 64.0 (or True and 1) hash alike, but the parser may take one and refuse the other
    key = (access, *sorted((k, type(v).__name__, v) for k, v in kwargs.items() if k not in ("access", "phases")))
    try:
        hash(key)
    except TypeError:
        return None
    return key if all(isinstance(a, str) for a in access) else None
