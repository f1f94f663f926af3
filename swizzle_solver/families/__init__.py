"""The registry of layout families, in the order of preference of DESIGN.md section 2.

Each family is one module of this package: its layout class (the ``layout.Layout`` face) and its
``FAMILY_RECORD`` (a ``layout.Family``: rank, stage, enumeration, bounds, name parser, printed-name
pattern, search engine, presentation). This module lists them, in rank order; everything else
(report, render, names, emit) asks the layout or its record here, never compares family names.
Adding a family is its module plus one entry in ``_ENTRIES`` (or ``register`` at run time).

The families searched on every solve are imported here; the later ones (two-level, linear,
row-interleave, padding) only when first asked for (start-up: a plain solve never needs them).
"""
from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Iterator

import numpy as np

from ..layout import EVERY_SOLVE, LATER, BadName, Family, Layout
from ..model import Tile
from ..value import Value
from . import cute, identity, xor_cols


class Lazy(Value):
    """A family whose module is imported on first use: what the registry knows before that (its
    record must agree, tests/test_families.py)."""

    name: str
    rank: int
    module: str  # the module's name inside this package
    stage: str = LATER


_ENTRIES: list[Family | Lazy] = [
    identity.FAMILY_RECORD,
    cute.FAMILY_RECORD,
    xor_cols.FAMILY_RECORD,
    Lazy("two-level", 3, "two_level"),
    Lazy("linear", 4, "linear"),
    Lazy("row-interleave", 5, "row_interleave"),
    Lazy("padding", 6, "padding"),
    Lazy("column-panels", 7, "panels"),
    Lazy("general-linear", 8, "general_linear", stage="vectors auto"),  # only with --vectors auto
]

# Layouts that are checked but never searched (--check's notations, families/given.py): their record
# gives their presentation (``record``); ``records`` never lists them, so no search sees them.
_UNSEARCHED: list[Family | Lazy] = [Lazy("given", 99, "given", stage="never")]

# Derived from the registry (kept in step by register / unregister): the rank of each family's
# name (candidate.Candidate.rank_key).
FAMILY_RANK: dict[str, int] = {e.name: e.rank for e in _ENTRIES}


# Threads share the registry (the API is safe from threads, docs/python-api.md): a lazy entry is
# replaced by its record under this lock, by the first thread to load it; the others find the
# record. Re-entrant: a family's module may read the registry while it is imported (padding).
_LOCK = threading.RLock()


def register(entry: Family | Lazy) -> None:
    """Add a family (a toy one in a test, or one of a plug-in) at its rank."""
    with _LOCK:
        _ENTRIES.append(entry)
        _ENTRIES.sort(key=lambda e: e.rank)
        FAMILY_RANK.clear()
        FAMILY_RANK.update((e.name, e.rank) for e in _ENTRIES)


def unregister(name: str) -> None:
    with _LOCK:
        _ENTRIES[:] = [e for e in _ENTRIES if e.name != name]
        FAMILY_RANK.pop(name, None)


def _load(entry: Family | Lazy) -> Family:
    if isinstance(entry, Family):
        return entry
    with _LOCK:
        found = importlib.import_module(f"{__name__}.{entry.module}").FAMILY_RECORD
        for i, e in enumerate(_ENTRIES):  # (another thread may have replaced it already)
            if e is entry or (isinstance(e, Lazy) and e.name == entry.name):
                _ENTRIES[i] = found
        return found


def records(stage: str | None = None) -> Iterator[Family]:
    """The families' records in rank order (of one stage), importing a later family's module only
    when the iteration reaches it."""
    for entry in list(_ENTRIES):  # (a copy: register may sort the list while another thread walks it)
        if stage is None or entry.stage == stage:
            yield _load(entry)


def record(name: str) -> Family:
    """The record of the family named ``name`` (KeyError if none)."""
    for entry in list(_ENTRIES):
        if entry.name == name:
            return _load(entry)
    for i, entry in enumerate(_UNSEARCHED):
        if entry.name == name:
            if isinstance(entry, Lazy):
                with _LOCK:
                    entry = _UNSEARCHED[i] = importlib.import_module(f"{__name__}.{entry.module}").FAMILY_RECORD
            return entry
    raise KeyError(name)


def unsearched() -> Iterator[Family]:
    """The records of the layouts that are checked but never searched (``given``), after every
    searched family in the JSON's lists of family names."""
    for name in [e.name for e in _UNSEARCHED]:
        yield record(name)


def baseline() -> str:
    """The name of the unswizzled layout's family (``none``)."""
    return next(r.name for r in records() if r.baseline)


def every_solve(last: str = " or ", sep: str = ", ") -> str:
    """The names of the families searched on every solve, for sentences: "none, cute or xor-cols"."""
    names = [r.name for r in records(EVERY_SOLVE)]
    return sep.join(names[:-1]) + last + names[-1] if len(names) > 1 else names[0]


def parse_name(text: str) -> Layout:
    """The layout a name denotes, asking each family's parser in rank order; BadName otherwise."""
    for rec in records():
        try:
            layout = rec.parse(text)
        except BadName:
            raise
        except ValueError as err:
            raise BadName(text, str(err)) from None
        if layout is not None:
            return layout
    raise BadName(text)


# --- many members at once: search.py's screening -------------------------------------------


def base() -> tuple[Family, ...]:
    """The records of the families searched on every solve, in rank order (search.py's default)."""
    return tuple(records(EVERY_SOLVE))


def phys_many(family: Family, params: list[tuple] | np.ndarray, tile: Tile, r: np.ndarray, c: np.ndarray) -> np.ndarray:
    """phys(tile, r, c) of every member given by its parameters (``params``, as the family's ``grid``
    gives them): shape (members, *r.shape). A family without a batch function is evaluated member
    by member (its ``make``)."""
    if family.phys_many is not None:
        return family.phys_many(params, tile, r, c)
    make = _maker(family)
    shape = np.broadcast(r, c).shape
    return np.stack([np.broadcast_to(make(*p).phys(tile, r, c), shape) for p in params]).reshape(-1, *shape)


def apply_many(family: Family, params: list[tuple], p: np.ndarray) -> np.ndarray:
    """The map of every member of an XOR-on-offset family (one with ``apply_many``) on offsets p:
    (members, *p.shape)."""
    if family.apply_many is None:
        raise ValueError(f"the {family.name} family is not XOR-linear on offsets (no apply_many)")
    return family.apply_many(params, p)


def _maker(family: Family) -> Callable[..., Layout]:
    if family.make is None:
        raise ValueError(f"the {family.name} family has no parameter grid (no make)")
    return family.make


__all__ = ["EVERY_SOLVE", "FAMILY_RANK", "LATER", "Family", "Lazy", "apply_many", "base", "baseline",
           "every_solve", "parse_name", "phys_many", "record", "records", "register", "unregister"]
