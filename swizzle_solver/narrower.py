"""Pitches other than the given one, searched in every family: below a padded row length (the
padding dropped, DESIGN.md section 2: less shared memory ranks first), and above it up to the
first pitch where the padding family found plain rows or one swizzle good enough. At each pitch,
smallest first: plain rows, then the first cute or xor-cols swizzle of the tile at that pitch,
then the later families (two-level, linear, row interleave, column panels at pitch = cols)
searched as at a given pitch (--keep-pitch). The first layout at every target (conflict-free, or
at every floor) wins: nothing at a larger pitch can rank before it, as it needs more storage and
leaves no fewer wavefronts.

Apart from extended.py, because a padded tile asks this on every solve (solving._at_pitches): it
needs the padding family and the every-solve search; the later families, the oracle and z3's
helpers are imported (by ``later``, solving.py's) only at a pitch where plain rows and one swizzle
both fail (start-up: bench/README.md).
"""
from __future__ import annotations

from collections.abc import Callable

from .budget import Budget
from .candidate import Candidate, FamilyReport, Unsearched, measure, ranked
from .candidate import found as found_candidate
from .families import cute, padding, xor_cols
from .families.identity import Identity
from .layout import Layout
from .model import Problem
from .soundness import sound
from .value import Value, replace

Admit = Callable[[Layout], bool]
# The later families on the tile at another pitch: (its problem, which of their layouts to keep) ->
# (their best few candidates, how each family was covered); solving.py's, over extended.search_extended.
Later = Callable[[Problem, Admit], tuple[list[Candidate], list[FamilyReport]]]


class PitchSearch(Value):
    """What a search of other pitches gave."""

    found: Candidate | None  # the first layout at every target, at the smallest pitch that has one
    # what was not covered whole below it (or at all, without one): a family that z3 left unknown
    # or the time limit cut, or pitches the time limit left unsearched
    open: list[Unsearched]


def sound_measured(problem: Problem, layout: Layout) -> Candidate | None:
    """The layout measured, when it is sound (soundness.py); else None."""
    checked = sound(problem.tile, layout, problem.patterns)
    return None if checked is None else measure(problem, checked)


def pitch_list(pitches: list[int]) -> str:
    """``pitch 68`` or ``pitches 64, 68, ..., 100`` (for a sentence)."""
    if len(pitches) == 1:
        return f"pitch {pitches[0]}"
    shown = pitches if len(pitches) <= 4 else [pitches[0], pitches[1], "...", pitches[-1]]
    return "pitches " + ", ".join(map(str, shown))


def search_pitches(problem: Problem, pitches: list[int], budget: Budget, base: Callable, least: int = 0,
                   target: dict | None = None, admit: Admit | None = None, later: Later | None = None) -> PitchSearch:
    """The first layout at every target (``target``: a worst per pattern, default the lower bounds;
    ``least``: the excess that leaves) at one of ``pitches`` (smallest first), of those ``admit``
    admits (--for); ``later`` (None: not searched) searches the later families on the tile at a
    pitch. ``base`` is the base search's first_conflict_free (search.py)."""
    ok = admit or (lambda layout: True)
    missed: list[Unsearched] = []
    for i, pitch in enumerate(pitches):
        hit, open_here = _at_pitch(problem, pitch, budget, base, least, target, ok, later)
        if hit is not None:
            return PitchSearch(hit, missed + open_here)
        if budget.expired():  # this pitch may have been cut short, and the rest were not reached
            return PitchSearch(None, missed + [Unsearched(f"{pitch_list(pitches[i:])} (the time limit)",
                                                       tuple(pitches[i:]))])
        missed += open_here
    return PitchSearch(None, missed)


def _at_pitch(problem: Problem, pitch: int, budget: Budget, base: Callable, least: int, target: dict | None,
              ok: Admit, later: Later | None) -> tuple[Candidate | None, list[Unsearched]]:
    """The first layout at every target at this pitch: plain rows, one cute or xor-cols swizzle,
    then the later families' best; and what of this pitch was not covered whole."""
    tile = problem.tile
    plain = sound_measured(problem, padding.Padded(pitch, Identity()))
    if plain is not None and plain.excess == least and ok(plain.layout):
        return plain, []
    at = Problem(replace(tile, row_length=pitch), problem.hardware, problem.patterns)

    def invalid(inner):  # the padded layout's own check: a padded row's spare columns are storage too
        padded = padding.Padded(pitch, inner)
        return padded.invalid(tile) or (None if ok(padded) else "not expressible")

    first = base(at, (cute.FAMILY_RECORD, xor_cols.FAMILY_RECORD), budget, invalid=invalid, target=target)
    if first is not None:
        return found_candidate(problem, least, padding.Padded(pitch, first.layout)), []
    if later is None or budget.expired():
        return None, []
    kept, reports = later(at, lambda inner: ok(padding.Padded(pitch, inner)))
    missed = [Unsearched(f"{r.family} at pitch {pitch}", (pitch,)) for r in reports if not r.complete]
    hits = [c for c in ranked(kept) if c.excess == least]
    return (found_candidate(problem, least, padding.Padded(pitch, hits[0].layout)) if hits else None), missed
