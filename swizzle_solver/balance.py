"""The balance condition: what each slot bit of a linear member must do on every placement of a
pattern measured by the simulator, decided by GF(2) character sums without z3.

A placement of N distinct units costs the most units in one slot (separation.units); reaching a
target T puts at most T units in each of the 2^k slots. Any one slot bit, and any parity of slot
bits, is 1 on half of the slots, so it is 1 on at most T * 2^(k-1) of the N units and 0 on at
most as many:

    |W_S(v)| <= T * 2^k - N,    W_S(v) = sum over the units a of S of (-1)^parity(v & a),

where v is the *row* of that slot bit: the offset bits whose XOR gives it. For a linear member
(families/linear.py) row j is bit j plus the sources of its terms (j, s), s > j, so the slot bit
j of every member is one of at most 2^(top - j - 1) rows, and W_S of all of them is one
Walsh-Hadamard transform of S's units (bit j as the sign, the bits above it as the index).
When T * 2^k = N (the 64 words of a 16 x 4 f32 block in 32 banks, two each) the bound is 0: every
slot bit must be 1 on exactly half of every placement.

A placement here is one row of the pattern's lanes, what the simulator costs alone (a phase), and
T is the pattern's target (floors.targets), so the condition holds for every member the oracle
accepts. ``row_balance`` returns, per slot bit, which rows pass on every placement. A slot bit with
none refutes the whole family, and extended.search_linear then runs no z3 at all; the others are
asserted in z3 (smt.min_linear's ``rows``) and narrow its search to the rows that pass. Only a
necessary condition: a member whose rows all pass may still fail.
"""
from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from .hardware import slot_offset_bits
from .model import Pattern, Problem
from .separation import units
from .value import Value

MAX_CELLS = 1 << 20  # placements x candidate rows transformed per slot bit (4 MiB of int32, ~25 ms): past it,
# a sample of the placements, evenly spread (any subset gives a necessary condition, only a weaker one)
MAX_ROWS = 1 << 12  # candidate rows of one slot bit handed to z3 as a constraint (its allowed or forbidden values)


class RowBalance(Value):
    """The rows slot bit ``bit`` may have on ``pattern``: ``allowed[h]`` for the row
    bit ^ (h << (bit + 1)), h over the sources above ``bit`` (just h = 0 when ``bit`` takes no terms)."""

    pattern: Pattern
    bit: int
    allowed: np.ndarray  # bool, length 2^(top - bit - 1) (a target bit) or 1
    units: int  # the most distinct units of one placement
    most: int  # the target: units per slot
    slots: int
    placements: int

    @property
    def refuted(self) -> bool:
        return not self.allowed.any()


def walsh_rows(h: np.ndarray) -> np.ndarray:
    """The Walsh-Hadamard transform of each row of ``h`` (length a power of two), exact integers."""
    w = h
    n = w.shape[1]
    step = 1
    while step < n:
        pairs = w.reshape(w.shape[0], -1, 2, step)
        w = np.concatenate([pairs[:, :, 0] + pairs[:, :, 1], pairs[:, :, 0] - pairs[:, :, 1]], axis=2).reshape(-1, n)
        step *= 2
    return w


def placement_units(problem: Problem, pattern: Pattern) -> tuple[int, int, np.ndarray, np.ndarray] | None:
    """(u, slot mask, units, distinct) for a pattern with units (separation.units): the element
    offsets of each placement's lanes rounded down to their unit, shape (placements, lanes), each
    row sorted with repeats marked False in ``distinct``. None otherwise."""
    tile = problem.tile
    unit = units(tile, problem.bank_model, pattern)
    if unit is None:
        return None
    u, slot_mask = unit
    offsets = np.sort((pattern.lane_row * tile.row_length + pattern.lane_col) >> u << u, axis=1)
    distinct = np.ones(offsets.shape, dtype=bool)
    np.not_equal(offsets[:, 1:], offsets[:, :-1], out=distinct[:, 1:])
    return u, slot_mask, offsets, distinct


def row_balance(problem: Problem, pattern: Pattern, most: int, targets: list[int], top: int) -> Iterator[RowBalance]:
    """Per slot bit of ``pattern`` (the highest first, the cheapest), the rows that keep at most
    ``most`` units of each placement in each slot, as far as the balance bound can tell: on every
    placement, or on MAX_CELLS / 2^(sources) of them spread evenly when they are more (a slot bit
    with more sources than MAX_CELLS is left out: no condition). Nothing when the pattern has no
    units (mixed lane sizes, units wider than a wavefront)."""
    found = placement_units(problem, pattern)
    if found is None:
        return
    u, slot_mask, offsets, distinct = found
    k = slot_mask.bit_length()
    n = distinct.sum(axis=1)  # distinct units per placement
    slack = (most << k) - n  # the bound on |W_S(v)| of each placement
    for bit in reversed(slot_offset_bits(u, slot_mask)):
        width = max(0, top - bit - 1) if bit in targets else 0  # sources above the bit a term may take
        take = min(offsets.shape[0], MAX_CELLS >> width)  # placements transformed: all, or evenly spread
        if not take:
            continue
        pick = np.arange(take) * offsets.shape[0] // take
        units_, ones = offsets[pick], distinct[pick]
        sign = np.where((units_ >> bit) & 1, -1, 1) * ones
        index = (np.arange(take)[:, None] << width) | ((units_ >> (bit + 1)) & ((1 << width) - 1))  # (placement, bits above)
        h = np.bincount(index.ravel(), weights=sign.ravel(), minlength=take << width).astype(np.int32)
        w = walsh_rows(h.reshape(take, 1 << width))
        allowed = (np.abs(w) <= slack[pick, None]).all(axis=0)
        yield RowBalance(pattern, bit, allowed, int(n[pick].max()), most, 1 << k, take)


def family_rows(problem: Problem, patterns, target: dict, targets: list[int], top: int) -> list[RowBalance]:
    """row_balance of every pattern (at its ``target``), stopping at the first slot bit that
    refutes the family: nothing after it can change the answer."""
    out = []
    for pattern in patterns:
        for rows in row_balance(problem, pattern, target[pattern], targets, top):
            out.append(rows)
            if rows.refuted:
                return out
    return out


def _share(r: RowBalance) -> str:
    """How many of a placement's units each slot bit must be 1 on."""
    half = r.most * r.slots // 2  # units in the slots where a slot bit is 1 (or 0), at most
    return f"exactly {half}" if 2 * half == r.units else f"{max(0, r.units - half)} to {half}"


def covered(rows: list[RowBalance]) -> list[str]:
    """The conditions in words, one line per pattern."""
    by_pattern: dict[str, list[RowBalance]] = {}
    for r in rows:
        by_pattern.setdefault(r.pattern.spec, []).append(r)
    lines = []
    for spec, rs in by_pattern.items():
        r = rs[0]
        passing = ", ".join(f"b{x.bit} {int(x.allowed.sum())} of {x.allowed.size}" for x in rs)
        lines.append(f"{spec}: at most {r.most} of a placement's {r.units} units in one of {r.slots} slots, so each "
                     f"slot bit is 1 on {_share(r)} of them, on each of its {r.placements} placements (rows that can: "
                     f"{passing})")
    return lines


def refuted_because(r: RowBalance) -> str:
    """Why no member passes, for a slot bit that refutes the family (``r.refuted``)."""
    moved = (f"slot bit b{r.bit}, which no XOR term can change," if r.allowed.size == 1 else
             f"whatever offset bits above it are XORed into slot bit b{r.bit} ({r.allowed.size} choices), it")
    return (f"{r.pattern.spec} keeps at most {r.most} of a placement's {r.units} units in each of {r.slots} slots only "
            f"if each slot bit is 1 on {_share(r)} of them; {moved} misses that on some of the {r.placements} "
            f"placements")


def refutation(r: RowBalance, variables: int) -> dict:
    """The family's proof record when slot bit ``r`` refutes it, in the shape of z3's record
    (smt.SmtResult.proof): no solver ran, the condition is the whole proof."""
    return {"engine": "balance condition (balance.py), no z3", "result": "unsat", "variables": variables,
            "constraints": 1, "solver_checks": 0, "models_refuted": 0, "lemmas_learned": 0, "no_member_below": None,
            "covered": covered([r])}
