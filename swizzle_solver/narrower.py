"""A narrower pitch: when the given row length is padded, the first conflict-free layout at a
smaller one (the padding dropped, plain rows or a cute / xor-cols swizzle of the narrower tile).

Apart from extended.py, which searches every later family, because a padded tile asks this first
on every solve (solving._narrower): it needs the padding family and the every-solve search, not
two-level, linear, row interleave, the oracle nor z3's helpers (start-up: bench/README.md).
"""
from __future__ import annotations

from collections.abc import Callable

from .budget import Budget
from .candidate import Candidate, measure
from .candidate import found as found_candidate
from .families import cute, padding, xor_cols
from .families.identity import Identity
from .layout import Layout, layout_table
from .model import Problem
from .soundness import soundness
from .value import replace


def sound_measured(problem: Problem, layout: Layout) -> Candidate | None:
    """The layout measured, when it is sound (soundness.py); else None."""
    table = layout_table(problem.tile, layout)
    if soundness(problem.tile, layout, problem.patterns, table) is not None:
        return None
    return measure(problem, layout, table)


def search_narrower(problem: Problem, budget: Budget, base: Callable, admit=None) -> Candidate | None:
    """The first conflict-free layout at a pitch below the given row length (smallest pitch
    first; plain, else with a cute or xor-cols swizzle of the narrower tile), of those ``admit``
    admits (--for), or None."""
    ok = admit or (lambda layout: True)
    tile = problem.tile
    vbytes = max(int(p.lane_bytes.max()) for p in problem.patterns)
    for pitch in padding.pitches(tile, vbytes, problem.bank_model.wavefront_bytes):
        if pitch >= tile.row_length:
            break
        plain = sound_measured(problem, padding.Padded(pitch, Identity()))
        if plain is not None and plain.excess == 0 and ok(plain.layout):
            return plain
        narrower = Problem(replace(tile, row_length=pitch), problem.bank_model, problem.patterns)

        def invalid(inner, pitch=pitch):
            padded = padding.Padded(pitch, inner)
            return padded.invalid(tile) or (None if ok(padded) else "not expressible")

        first = base(narrower, (cute.FAMILY_RECORD, xor_cols.FAMILY_RECORD), budget, invalid=invalid)
        if first is not None:
            return found_candidate(problem, 0, padding.Padded(pitch, first.layout))
    return None
