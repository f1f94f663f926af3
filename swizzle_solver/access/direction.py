"""An access's direction, named before it: ``store:warp:8x4:1x8``, ``load:8x4``, ``store:FILE``.

The counts do not depend on it for the forms that take one (each lane its own vector: never a
paired load); what does is what the profiler counts it under (counters.py: ``_op_st`` for a store,
``_op_ld`` for a load) and what a probe issues. Without a prefix a form keeps its own direction: an
instruction's (stmatrix, sts128, ds_write_b64: stores), mma-c and cp.async stores, every other
form a load. A prefix that contradicts the instruction it names is bad input.
"""
from __future__ import annotations

import re

from ..model import InputError, Pattern
from ..value import replace

DIRECTIONS = ("store", "load")
_PREFIX = re.compile(r"\s*(store|load)\s*:(.*)", re.S | re.I)


def split(text: str) -> tuple[str, str]:
    """("store" / "load" / "", the rest) of ``store:X`` / ``load:X`` / ``X``."""
    m = _PREFIX.fullmatch(text)
    return ("", text) if m is None else (m[1].lower(), m[2])


def own_direction(p: Pattern, rule_write: bool | None) -> str:
    """The direction the form itself says ("" when it says none): ``rule_write`` is the write flag
    of the instruction it names (hardware.Rule.write), None when it names none."""
    if rule_write is not None:
        return "store" if rule_write else "load"
    return {"stmatrix": "store", "mma-c": "store", "cp.async": "store", "ldmatrix": "load"}.get(p.kind, "")


def directed(p: Pattern, direction: str, spec: str, rule_write: bool | None) -> Pattern:
    """``p`` (compiled from the rest of ``spec``) with the direction ``spec`` names, checked against
    its own; its spec keeps the prefix, so every report names the direction."""
    own = own_direction(p, rule_write)
    if own and own != direction:
        raise InputError(f"access {spec.strip()!r}: the form is a {own} itself: drop '{direction}:' (a prefix "
                         f"names the direction of the forms that have none: warp:, MxN, --linear-layout)")
    return replace(p, spec=spec.strip(), direction=direction)
