"""Caps on the size of a problem, so that no input can take the machine's memory or hours to read.

No kernel tile comes near them: a tile has a handful of accesses, and the largest tile (512 KiB,
model.MAX_STORAGE_BYTES) read whole by 1-byte lanes is 2^19 placements of one lane. Each cap names
the option that raises it (--max-patterns, --max-placements, --max-lanes).

    patterns     256     access patterns in all (--access, every --phases pattern, --linear-layout)
    placements   2^21    placements (phases) of all the patterns together
    lanes        2^23    lane accesses of all the placements together (placements x widest phase),
                         about 200 MB of lane arrays
"""
from __future__ import annotations

from ..model import InputError
from ..value import Value


class Limits(Value):
    patterns: int = 256
    placements: int = 1 << 21
    lanes: int = 1 << 23


DEFAULT = Limits()
current = DEFAULT  # set by the command line's --max-* options for the run (reset() after it)


def reset() -> None:
    """Back to the default caps (the command line's main is also called in-process)."""
    global current
    current = DEFAULT


def check_count(patterns: int, limits: Limits | None = None) -> None:
    """Before any pattern is built: how many there will be."""
    limits = limits or current
    if patterns > limits.patterns:
        raise InputError(f"{patterns} access patterns is more than the limit of {limits.patterns}: give fewer, or "
                         f"raise it with --max-patterns")


def check_patterns(patterns, limits: Limits | None = None) -> None:
    """After each pattern is built: the placements and lanes of all of them so far."""
    check_count(len(patterns), limits)
    check_size(sum(p.lane_row.shape[0] for p in patterns), sum(p.lane_row.size for p in patterns), limits)


def check_size(placements: int, lanes: int, limits: Limits | None = None) -> None:
    """Before a pattern's lane arrays are built (``lanes``: placements x widest phase), or after."""
    limits = limits or current
    if placements > limits.placements:
        raise InputError(f"the access patterns have {placements} placements, more than the limit of "
                         f"{limits.placements}: give a smaller tile or fewer patterns, or raise it with --max-placements")
    if lanes > limits.lanes:
        raise InputError(f"the access patterns have {lanes} lane accesses, more than the limit of {limits.lanes}: "
                         f"give a smaller tile or fewer patterns, or raise it with --max-lanes")


def limits_of(patterns: int, placements: int, lanes: int) -> Limits:
    for option, value in (("--max-patterns", patterns), ("--max-placements", placements), ("--max-lanes", lanes)):
        if value < 1:
            raise InputError(f"{option} {value} must be a positive number")
    return Limits(patterns, placements, lanes)
