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
none refutes the whole family, and the linear family's search (families/linear.py) then runs no z3 at all; the others are
asserted in z3 (smt.min_linear's ``rows``) and narrow its search to the rows that pass. Only a
necessary condition: a member whose rows all pass may still fail.

The span condition (``span_refutation``): the bound holds for every parity of slot bits, and the
row of a parity is the XOR of its bits' rows, so the rows a member gives a pattern's k slot bits
must put all 2^k - 1 of their nonzero XORs among the vectors that pass. One transform per pattern
scores every vector of offset bits (on every placement, or an even sample of them); a search over
the slot bits' rows, the highest bit first, keeps only rows whose XORs with the rows already chosen
pass too. When no choice survives, no linear member can reach the targets: the family is refuted
without z3. Where every placement has exactly T * 2^k distinct units the condition is also
sufficient for those placements (the slots are filled evenly iff every character sums to 0): 32
random lanes of a 64-lane ds_read_b32 mapped onto 32 banks is such a case, and z3 could spend its
whole budget on it (issue 26). Every pattern with units takes part, those z3 reads as lane
differences too.
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
MAX_TOP = 20  # offset bits past which the span condition is not tried (a transform of 2^top cells per placement)
MAX_NODES = 1 << 15  # rows tried by the span condition's search before it gives up (no condition then)
SPAN_BLOCK = 1 << 10  # rows of one slot bit the span condition's search tests at once


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
    unit = units(tile, problem.hardware, pattern)
    if unit is None:
        return None
    u, slot_mask = unit
    offsets = np.sort((pattern.lane_row * tile.row_length + pattern.lane_col) >> u << u, axis=1)
    distinct = np.ones(offsets.shape, dtype=bool)
    np.not_equal(offsets[:, 1:], offsets[:, :-1], out=distinct[:, 1:])
    return u, slot_mask, offsets, distinct


def translates_once(offsets: np.ndarray, distinct: np.ndarray) -> np.ndarray:
    """The index of the first placement of each class of XOR translates (rows of placement_units,
    in order). |W_S(v)| of a placement S and of S ^ a are the same for every vector v (the XOR with a
    only multiplies each character by (-1)^parity(v & a)), and so is the number of distinct units:
    one transform per class decides the bound for all of them. A placement's class is read as its
    distinct units XORed with its least one, sorted (every placement of a pattern tiled at aligned
    bases falls in one class: 128 placements -> 1 on a 64 x 64 tile); two translates read apart are
    both kept, which only costs a transform."""
    canonical = np.sort(np.where(distinct, offsets ^ offsets[:, :1], -1), axis=1)
    return np.sort(np.unique(canonical, axis=0, return_index=True)[1])


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
    every = translates_once(offsets, distinct)  # (the same bound: one placement of each class)
    for bit in reversed(slot_offset_bits(u, slot_mask)):
        width = max(0, top - bit - 1) if bit in targets else 0  # sources above the bit a term may take
        take = min(offsets.shape[0], MAX_CELLS >> width)  # placements transformed: all, or evenly spread
        if not take:
            continue
        pick = np.arange(take) * offsets.shape[0] // take
        pick = every if take == offsets.shape[0] else pick[translates_once(offsets[pick], distinct[pick])]
        units_, ones = offsets[pick], distinct[pick]
        sign = np.where((units_ >> bit) & 1, -1, 1) * ones
        index = (np.arange(pick.size)[:, None] << width) | ((units_ >> (bit + 1)) & ((1 << width) - 1))  # (placement, bits above)
        h = np.bincount(index.ravel(), weights=sign.ravel(), minlength=pick.size << width).astype(np.int32)
        w = walsh_rows(h.reshape(pick.size, 1 << width))
        allowed = (np.abs(w) <= slack[pick, None]).all(axis=0)
        yield RowBalance(pattern, bit, allowed, int(n[pick].max()), most, 1 << k, take)


class SpanBalance(Value):
    """The span condition refuted the family (``span_refutation``): no choice of the slot bits' rows
    puts every XOR of them among the vectors that pass on ``patterns``."""

    patterns: tuple[str, ...]  # the specs of the patterns that took part
    bits: tuple[int, ...]  # the slot bits whose rows were searched, highest first
    placements: int  # placements transformed, over all the patterns
    tried: int  # rows tried by the search

    @property
    def refuted(self) -> bool:
        return True


def family_rows(problem: Problem, patterns, target: dict, targets: list[int],
                top: int) -> list[RowBalance | SpanBalance]:
    """row_balance of every pattern (at its ``target``), stopping at the first slot bit that
    refutes the family: nothing after it can change the answer. When no single slot bit does, the
    span condition over every pattern with units (``span_refutation``) may: then it comes last."""
    out: list[RowBalance | SpanBalance] = []
    for pattern in patterns:
        for rows in row_balance(problem, pattern, target[pattern], targets, top):
            out.append(rows)
            if rows.refuted:
                return out
    span = span_refutation(problem, target, targets, top)
    return out if span is None else [*out, span]


def passing_vectors(problem: Problem, pattern: Pattern, most: int, top: int) -> tuple[list[int], np.ndarray, int] | None:
    """(the pattern's slot bits, which vectors v of ``top`` offset bits keep |W_S(v)| within the
    bound on every placement transformed, how many placements that is); None when the pattern has
    no units or ``top`` is past MAX_TOP. Past MAX_CELLS, an even sample of the placements (any
    subset gives a necessary condition)."""
    found = placement_units(problem, pattern)
    if found is None or top > MAX_TOP:
        return None
    u, slot_mask, offsets, distinct = found
    n = distinct.sum(axis=1)
    slack = (most << slot_mask.bit_length()) - n
    take = min(offsets.shape[0], max(1, MAX_CELLS >> top))
    pick = np.arange(take) * offsets.shape[0] // take
    pick = pick[translates_once(offsets[pick], distinct[pick])]  # (the same bound: one of each class)
    h = np.zeros((pick.size, 1 << top), dtype=np.int32)
    rows = np.broadcast_to(np.arange(pick.size)[:, None], (pick.size, offsets.shape[1]))
    h[rows[distinct[pick]], offsets[pick][distinct[pick]]] = 1
    ok = (np.abs(walsh_rows(h)) <= slack[pick, None]).all(axis=0)
    return slot_offset_bits(u, slot_mask), ok, take


def _rows_passing(b: int, target: bool, top: int, owners: list[tuple[int, np.ndarray]]) -> list[int]:
    """The rows slot bit ``b`` may have that pass alone on every pattern owning it (``owners``: the
    pattern's index and its passing vectors): b plus any sources above it when it is a ``target``
    bit, else b alone; bits at or above the top dropped (no offset has them)."""
    rows = (np.arange(1 << max(0, top - b - 1), dtype=np.int64) << (b + 1)) | (1 << b) if target \
        else np.array([1 << b], dtype=np.int64)
    rows &= (1 << top) - 1
    for _, ok in owners:
        rows = rows[ok[rows]]
    return rows.tolist()


def span_refutation(problem: Problem, target: dict, targets: list[int], top: int) -> SpanBalance | None:
    """A SpanBalance when no linear member's slot rows pass the span condition on every pattern
    with units (module docstring); None when some choice passes, or the search was not tried or
    gave up (MAX_NODES): no refutation.

    A linear member's row of bit b is b plus any sources above it when b is a target bit (a term
    (b, s), s > b), else b alone. The bits are chosen highest first; a row is kept only when, for
    every pattern that has b among its slot bits, it and its XOR with every XOR of the rows already
    chosen for that pattern's slot bits pass."""
    found = [(p, r) for p in problem.patterns if (r := passing_vectors(problem, p, target[p], top)) is not None]
    if not found:
        return None
    bits = sorted({b for _, (slot_bits, _, _) in found for b in slot_bits}, reverse=True)
    owners = {b: [(i, ok) for i, (_, (slot_bits, ok, _)) in enumerate(found) if b in slot_bits] for b in bits}
    choices = {b: np.array(_rows_passing(b, b in targets, top, owners[b]), dtype=np.int64) for b in bits}
    search = _SpanSearch(bits, owners, choices)
    empty = np.zeros(0, dtype=np.int64)
    if search.level(0, {i: empty for i in range(len(found))}) is not False:
        return None
    return SpanBalance(tuple(p.spec for p, _ in found), tuple(bits), sum(r[2] for _, r in found), search.tried)


class _SpanSearch:
    """span_refutation's search over the slot bits' rows, the highest bit first (``bits``), each bit's
    candidate rows in order (``choices``), kept when they pass with every XOR of the rows chosen for
    the patterns owning the bit (``owners``: pattern index, its passing vectors). ``tried`` counts
    every row of a level in order, as one by one; a block of SPAN_BLOCK rows is tested at once."""

    def __init__(self, bits: list[int], owners: dict, choices: dict[int, np.ndarray]):
        self.bits, self.owners, self.choices = bits, owners, choices
        self.tried = 0

    def passing(self, b: int, rows: np.ndarray, spans: dict[int, np.ndarray]) -> np.ndarray:
        """Which ``rows`` pass with every XOR of the rows chosen so far, on each pattern owning b."""
        out = np.ones(rows.size, dtype=bool)
        for i, ok in self.owners[b]:
            if spans[i].size:
                out &= ok[rows[:, None] ^ spans[i][None, :]].all(axis=1)
        return out

    def level(self, level: int, spans: dict[int, np.ndarray]) -> bool | None:
        """True when a choice for bits[level:] passes, False when none does, None past MAX_NODES."""
        if level == len(self.bits):
            return True
        b = self.bits[level]
        rows = self.choices[b]
        for start in range(0, rows.size, SPAN_BLOCK):
            block = rows[start:start + SPAN_BLOCK]
            counted = 0  # rows of the block counted in ``tried``
            for j in np.flatnonzero(self.passing(b, block, spans)).tolist():
                self.tried += j + 1 - counted
                counted = j + 1
                if self.tried > MAX_NODES:
                    return None
                done = self.level(level + 1, self.grown(b, int(block[j]), spans))
                if done is not False:
                    return done
            self.tried += block.size - counted
            if self.tried > MAX_NODES:
                return None
        return False

    def grown(self, b: int, row: int, spans: dict[int, np.ndarray]) -> dict[int, np.ndarray]:
        """The spans with ``row`` chosen: each owning pattern's XORs of chosen rows, with and without it."""
        out = dict(spans)
        for i, _ in self.owners[b]:
            out[i] = np.concatenate([spans[i], row ^ spans[i], [row]])
        return out


def _share(r: RowBalance) -> str:
    """How many of a placement's units each slot bit must be 1 on."""
    half = r.most * r.slots // 2  # units in the slots where a slot bit is 1 (or 0), at most
    return f"exactly {half}" if 2 * half == r.units else f"{max(0, r.units - half)} to {half}"


def covered(rows: list[RowBalance | SpanBalance]) -> list[str]:
    """The conditions in words, one line per pattern (and the span condition's refutation last)."""
    by_pattern: dict[str, list[RowBalance]] = {}
    spans = [refuted_because(r) for r in rows if isinstance(r, SpanBalance)]
    for r in rows:
        if isinstance(r, RowBalance):
            by_pattern.setdefault(r.pattern.spec, []).append(r)
    lines = []
    for spec, rs in by_pattern.items():
        r = rs[0]
        passing = ", ".join(f"b{x.bit} {int(x.allowed.sum())} of {x.allowed.size}" for x in rs)
        lines.append(f"{spec}: at most {r.most} of a placement's {r.units} units in one of {r.slots} slots, so each "
                     f"slot bit is 1 on {_share(r)} of them, on each of its {r.placements} placements (rows that can: "
                     f"{passing})")
    return lines + spans


def refuted_because(r: RowBalance | SpanBalance) -> str:
    """Why no member passes, for a slot bit that refutes the family (``r.refuted``), or the span
    condition."""
    if isinstance(r, SpanBalance):
        return (f"{', '.join(r.patterns)} can keep at most T of a placement's N units in each of the 2^k slots (T "
                f"the target) only if every parity of slot bits is 1 on N - T 2^(k-1) to T 2^(k-1) of them; no "
                f"choice of the rows of slot bits {', '.join(f'b{b}' for b in r.bits)} (each its bit and any offset "
                f"bits above it) gives every XOR of them that share on the {r.placements} placements transformed "
                f"({r.tried} rows tried)")
    moved = (f"slot bit b{r.bit}, which no XOR term can change," if r.allowed.size == 1 else
             f"whatever offset bits above it are XORed into slot bit b{r.bit} ({r.allowed.size} choices), it")
    return (f"{r.pattern.spec} keeps at most {r.most} of a placement's {r.units} units in each of {r.slots} slots only "
            f"if each slot bit is 1 on {_share(r)} of them; {moved} misses that on some of the {r.placements} "
            f"placements")


def refutation(r: RowBalance | SpanBalance, variables: int) -> dict:
    """The family's proof record when slot bit ``r`` refutes it, in the shape of z3's record
    (smt.SmtResult.proof): no solver ran, the condition is the whole proof."""
    return {"engine": "balance condition (balance.py), no z3", "result": "unsat", "variables": variables,
            "constraints": 1, "solver_checks": 0, "models_refuted": 0, "lemmas_learned": 0, "no_member_below": None,
            "covered": [refuted_because(r)] if isinstance(r, SpanBalance) else covered([r])}
