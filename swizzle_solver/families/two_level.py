"""`two-level`: two CuTe swizzles applied one after the other, each with its own shift.

    q = first(p) = p ^ ((p >> S1) & mask1);   phys = second(q) = q ^ ((q >> S2) & mask2)

CuTe cannot write one Swizzle<B,M,S> with two shifts, so the answer is emitted as two XOR steps
(JSON ``swizzles`` lists both, in application order). Each step is a bijection of every aligned
block (see cute.py), hence so is their composition; on a storage that is not a power of two the
last, partial block is checked exactly.

Order inside the family: fewest XOR bits in total, then the first swizzle's order, then the
second's. Pairs whose composition equals a single CuTe swizzle, or an earlier pair, are skipped.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..budget import Budget, smt_limits
from ..candidate import KEEP_PER_FAMILY, Candidate, FamilyReport, best, measure, per_instruction, vector_elems
from ..candidate import found as found_candidate
from ..layout import LATER, Family, columns, partial_block_invalid
from ..model import Problem, Tile
from ..oracle import XorOracle
from ..sampling import placement_sample, sampled_worsts
from ..soundness import QuickSoundness
from ..value import Value
from . import cute
from .linear import OnOffset

if TYPE_CHECKING:
    from ..oracle import Later


class TwoLevel(Value, OnOffset):
    first: cute.Swizzle
    second: cute.Swizzle
    family = "two-level"

    @property
    def name(self) -> str:
        return f"{self.first.name} then {self.second.name}"

    @property
    def order(self) -> tuple:
        return (self.first.B + self.second.B, self.first.order, self.second.order)

    def apply(self, p):
        return self.second.apply(self.first.apply(p))

    def terms(self) -> list[tuple[int, int]]:
        return [(sw.M + i, sw.M + sw.S + i) for sw in (self.first, self.second) for i in range(sw.B)]

    def invalid(self, tile: Tile) -> str | None:
        # as linear.invalid_on_storage, the image of one offset per 2^(lowest target bit) checked
        targets = [t for t, _ in self.terms()]
        return partial_block_invalid(self.apply, 1 << (max(targets) + 1), tile, low=min(targets))

    def expression(self, tile: Tile) -> str:
        p = f"(r * {tile.row_length} + c)"
        return self.second.c_xor(f"({self.first.c_xor(p)})")

    def steps(self, tile: Tile) -> list[str]:
        """The same as two C statements."""
        return [f"q = {self.first.c_xor(f'(r * {tile.row_length} + c)')};",
                f"phys = {self.second.c_xor('q')};"]

    def swizzles(self) -> list[dict]:
        return self.first.swizzles() + self.second.swizzles()

    def json_extras(self, tile: Tile) -> dict:
        return {"steps": self.steps(tile), "triton_bases": self.triton_bases(tile)}


def make(b1, m1, s1, b2, m2, s2) -> TwoLevel:
    """A member from its six parameters."""
    return TwoLevel(cute.Swizzle(b1, m1, s1), cute.Swizzle(b2, m2, s2))


def apply_many(params, p: np.ndarray) -> np.ndarray:
    """Every member of ``params`` (six parameters each, as ``make`` takes them) on p: (n, *p.shape)."""
    b1, m1, s1, b2, m2, s2 = columns(params, np.ndim(p))
    return cute.swizzle(cute.swizzle(p, b1, m1, s1), b2, m2, s2)


def phys_many(params, tile: Tile, r: np.ndarray, c: np.ndarray) -> np.ndarray:
    return apply_many(params, r * tile.row_length + c)



class Pairs(Value, eq=False):
    """The family's members in family order, as indices into the single swizzles: a member is
    ``singles[first[k]]`` then ``singles[second[k]]``. Tens of thousands of members are screened
    as arrays (failures_many); a ``TwoLevel`` is built only for the few a search keeps."""

    singles: list[cute.Swizzle]
    first: np.ndarray  # (members,) index of the first swizzle
    second: np.ndarray  # (members,) index of the second

    def __len__(self) -> int:
        return len(self.first)

    def __getitem__(self, k: int) -> TwoLevel:
        return TwoLevel(self.singles[int(self.first[k])], self.singles[int(self.second[k])])

    @classmethod
    def of(cls, members: Sequence[TwoLevel]) -> Pairs:
        """The members given as objects, as indices (into their own swizzles)."""
        singles = sorted({sw for m in members for sw in (m.first, m.second)}, key=lambda sw: sw.order)
        index = {sw: k for k, sw in enumerate(singles)}
        first = np.array([index[m.first] for m in members], dtype=np.int64)
        second = np.array([index[m.second] for m in members], dtype=np.int64)
        return cls(singles, first, second)

    def prefix(self, n: int) -> Pairs:
        """The first n members."""
        return Pairs(self.singles, self.first[:n], self.second[:n])

    def steps(self) -> np.ndarray:
        """(S1, mask1, S2, mask2) of each member, its two XOR steps p ^ ((p >> S) & mask): shape (n, 4)."""
        one = np.array([[sw.S, sw.mask] for sw in self.singles], dtype=np.int64).reshape(-1, 2)
        return np.concatenate([one[self.first], one[self.second]], axis=1)

    def grid(self, which: np.ndarray) -> np.ndarray:
        """The six parameters (as ``make`` takes them) of the members ``which``: shape (n, 6)."""
        one = np.array([[sw.B, sw.M, sw.S] for sw in self.singles], dtype=np.int64).reshape(-1, 3)
        return np.concatenate([one[self.first[which]], one[self.second[which]]], axis=1)


def _maps(top: int, steps: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """The maps on the offset bits of XOR steps p ^ ((p >> shift) & mask), applied in the order of
    ``steps`` (each a pair of arrays, one entry per map), as int64 words: equal maps, equal words.
    Shape (maps, words).

    Bit b goes to b and bits below it only (every step moves a bit down), so a map is its strictly
    lower part, bits below 2^b for bit b: packed, the top bits of a 19-bit offset fill 3 words.
    Computed in uint32, a bit at a time: numpy shifts 32-bit lanes several times faster than 64-bit
    ones, and no (bits, maps) array is built."""
    n = len(steps[0][0])
    steps = [(shift.astype(np.uint32), mask.astype(np.uint32)) for shift, mask in steps]
    words, word, used = [], np.zeros(n, dtype=np.int64), 0
    for bit in range(top):
        if used + bit > 63:
            words.append(word)
            word, used = np.zeros(n, dtype=np.int64), 0
        one = np.uint32(1 << bit)
        image = np.full(n, one, dtype=np.uint32)
        for shift, mask in steps:
            image ^= (image >> shift) & mask
        word |= (image ^ one).astype(np.int64) << used
        used += bit
    words.append(word)
    return np.stack(words, axis=1)


def pairs(tile: Tile, vector_elems: int) -> Pairs:
    """Every ordered pair of different admissible CuTe swizzles whose map on the offset bits no
    single swizzle (nor the identity) and no earlier pair has, in family order."""
    singles = cute.candidates(tile, vector_elems)
    top, n = tile.offset_bits, len(singles)
    b, s, mask = (np.array([getattr(sw, k) for sw in singles], dtype=np.int64) for k in ("B", "S", "mask"))
    # family order: B1 + B2, then the first's order, then the second's; cute.grid lists the singles
    # in their order, so that is (B1 + B2, i, j) on their indices
    i, j = np.nonzero(~np.eye(n, dtype=bool))  # every ordered pair of different swizzles
    rank = np.argsort((b[i] + b[j]) * (n * n) + i * n + j, kind="stable")
    i, j = i[rank], j[rank]
    # the identity, the singles, then the pairs: a pair is kept only if no map before it is its own
    none = np.zeros(1, dtype=np.int64)
    maps = _maps(top, [(np.concatenate([none, s, s[i]]), np.concatenate([none, mask, mask[i]])),
                       (np.concatenate([none, none.repeat(n), s[j]]), np.concatenate([none, none.repeat(n), mask[j]]))])
    words = np.ascontiguousarray(maps.T)
    by_map = np.lexsort(tuple(words))  # equal maps together, the earliest first (lexsort is stable)
    first = np.ones(len(maps), dtype=bool)
    changed = np.zeros(len(maps) - 1, dtype=bool)
    for word in words:  # a word at a time, each gathered once: the map differs from the one before it
        in_order = word[by_map]
        changed |= in_order[1:] != in_order[:-1]
    first[1:] = changed
    kept = np.sort(by_map[first]) - 1 - n  # back in family order; pairs count from 0
    kept = kept[kept >= 0]
    return Pairs(singles, i[kept], j[kept])


def candidates(tile: Tile, vector_elems: int) -> list[TwoLevel]:
    found = pairs(tile, vector_elems)
    return [TwoLevel(found.singles[x], found.singles[y]) for x, y in zip(found.first.tolist(), found.second.tolist())]


# From the first blank of a run only, and the run whole (possessive): "\s+then" tried from every
# blank of a long run of blanks re-read the rest of it each time (quadratic: 20,000 blanks took 7 s).
_THEN = re.compile(r"(?<!\s)\s++then\s++", re.IGNORECASE)


def parse(text: str) -> TwoLevel | None:
    """Swizzle<B,M,S> then Swizzle<B,M,S>."""
    parts = _THEN.split(text)
    if len(parts) != 2 or not all(cute.is_named(part) for part in parts):
        return None
    first, second = (cute.parse(part) for part in parts)
    assert first is not None and second is not None  # both have a swizzle's shape
    return TwoLevel(first, second)


def _code_rows(answer: dict, problem: dict) -> list[tuple[str, str]]:
    first, second = answer["name"].split(" then ")
    return [("CuTe", f"{first}, then {second}  (two swizzles on element offsets, in this order)"),
            *[("C steps" if i == 0 else "", step) for i, step in enumerate(answer["steps"])]]


# --- the search (extended.py runs it: Family.search) ---------------------------------------------

BEST_EFFORT = 16  # members measured exactly to find the family's best when none is conflict-free
FAILURES_BATCH = 1 << 20  # members x slot-bit subsets per batch of failures_many (4 MiB of uint32)


def walsh(diffs: np.ndarray, top: int) -> np.ndarray:
    """The Walsh-Hadamard transform of the set ``diffs`` of top-bit offsets: W(v) = sum over d in
    diffs of (-1)^popcount(v & d), for every v below 2^top (integers, exact: |W| <= len(diffs) fits
    int32, which halves the memory each butterfly streams)."""
    w: np.ndarray = np.zeros(1 << top, dtype=np.int32)
    w[diffs] = 1
    h = 1
    while h < w.size:  # one butterfly per bit, in place: (a, b) -> (a + b, a - b)
        pairs = w.reshape(-1, 2, h)
        a = pairs[:, 0].copy()
        pairs[:, 0] += pairs[:, 1]
        np.subtract(a, pairs[:, 1], out=pairs[:, 1])
        h *= 2
    return w


def failures_many(oracle: XorOracle, members: Pairs | Sequence[TwoLevel], budget: Budget | None = None) -> np.ndarray:
    """Differences sent to slot 0 by each two-level member, all members at once; when ``budget``
    runs out first, only for a prefix of them (the result is that long).

    A member L is GF(2)-linear, and so is its slot: slot(L(d)) = 0 iff parity(row_j & d) = 0 for
    each slot bit j, row_j being the offset bits whose images under L have slot bit j. Hence

        #{d in D : slot(L(d)) = 0} = 2^-k * sum over subsets S of the k slot bits of W_D(XOR of row_j, j in S)

    (the mean over S of the characters of D), W_D the Walsh-Hadamard transform of D (``walsh``),
    computed once per pattern: each member then costs 2^k lookups (k <= 5 slot bits) instead of
    one test per difference (a 512 x 506 f16 tile: 117,432 members x 9,090 differences, 1.6 s ->
    0.3 s; with the transposed steps below, in uint32, 0.04 s).

    The XOR of the rows of S is the row vector x_S L, x_S the slot bits of S: L = second . first,
    and x . (p -> p ^ ((p >> shift) & mask)) = x ^ ((x & mask) << shift) (the transposed step), so
    x_S L = first^T(second^T(x_S)), bits at or above the top dropped (no offset has them).
    """
    top = oracle.top
    # Patterns with the same slot bits look W up at the same points: their transforms add up (the
    # sum is still a multiple of 2^k), one lookup for all of them.
    transforms: dict[tuple[int, ...], np.ndarray] = {}
    for sep in oracle.seps:
        if sep.diffs.size:  # no two lanes of a phase in different units (one 8-byte lane): nothing to fail
            key = tuple(sep.slot_bits)
            transforms[key] = transforms[key] + walsh(sep.diffs, top) if key in transforms else walsh(sep.diffs, top)
    seps = []
    for key, w in transforms.items():
        slots = np.array(key, dtype=np.int64)
        subsets = np.arange(1 << len(slots))
        x = np.bitwise_or.reduce(((subsets[:, None] >> np.arange(len(slots))) & 1) << slots, axis=1)
        seps.append((w, x.astype(np.uint32), len(slots)))
    if not isinstance(members, Pairs):
        members = Pairs.of(members)
    steps = members.steps().astype(np.uint32)  # (S1, mask1, S2, mask2), uint32: numpy shifts it faster
    out = np.zeros(len(members), dtype=np.int64)
    below_top = np.uint32((1 << top) - 1)
    step = max(1, FAILURES_BATCH // 32)  # at most 5 slot bits: 32 subsets
    for start in range(0, len(members), step):
        if budget is not None and budget.expired():
            return out[:start]
        s1, m1, s2, m2 = (steps[start:start + step, i:i + 1] for i in range(4))
        for w, x, k in seps:
            v = x[None, :] ^ ((x[None, :] & m2) << s2)  # x_S L for every subset S, each member a row
            v ^= (v & m1) << s1
            v &= below_top
            out[start:start + step] += w[v].sum(axis=1) >> k
    return out


def sample_passes(oracle: XorOracle, members: Pairs, which: np.ndarray) -> np.ndarray:
    """Per two-level member of ``which`` (indices into ``members``): False when a pattern without a
    separation already exceeds its target on a sample of placements (refute would reject it);
    True when it may pass. All members at once, so that refute simulates only these; one placement
    at a time, each simulated only for the members every earlier one left (most fail on the first)."""
    passed = np.ones(len(which), dtype=bool)
    if len(which) and oracle.rest:
        grid = members.grid(which)
        for pattern in oracle.rest:
            for placement in placement_sample(oracle.problem.tile, pattern).tolist():
                alive = np.flatnonzero(passed)
                if not alive.size:
                    return passed
                worst = sampled_worsts(oracle.problem, FAMILY_RECORD, grid[alive], pattern,
                                       np.array([placement]))
                passed[alive] = worst <= oracle.target[pattern]
    return passed


def _best_effort(oracle: XorOracle, members: Pairs, failures: np.ndarray | None = None,
                 missed: np.ndarray | None = None) -> list[Candidate]:
    """No member is conflict-free: of the first BEST_EFFORT sound members in (failures, family
    order), the best KEEP_PER_FAMILY in (excess, family order), each measured by the simulator.
    ``failures``: failures_many(oracle, members), if already counted; ``missed``: the members
    known not to be at every target (default: those with failures).

    A sound member leaves at least the least excess any layout can (``oracle.excess``), and one not
    at every target at least one more. Once KEEP_PER_FAMILY measured members leave that, a missed
    member after the last of them in family order cannot displace one: it is checked for
    soundness (it counts towards BEST_EFFORT) but not measured."""
    problem = oracle.problem
    failures = failures_many(oracle, members) if failures is None else failures
    missed = failures > 0 if missed is None else missed
    kept: list[tuple[int, int, Candidate]] = []  # (excess, member, measured), best first
    # a member off a target per phase leaves one more than the least; per instruction (the unit
    # ranked, candidate.per_instruction) only the least is known of it
    above = 0 if per_instruction(problem) else 1
    sound = 0
    check = QuickSoundness(problem)
    # (failures, order): members come in family order (pairs), so a stable sort on the
    # failures alone gives it without building 56,000 order tuples
    for i in np.argsort(failures, kind="stable").tolist():
        layout = members[i]
        checked = check.xor(layout, min(t for t, _ in layout.terms()))
        if checked is None:
            continue
        sound += 1
        # (excess, order) of this member is at least (least + 1, i) when it missed a target
        cannot_enter = len(kept) == KEEP_PER_FAMILY and missed[i] and kept[-1][:2] <= (oracle.excess + above, i)
        if not cannot_enter:
            measured = measure(problem, checked)
            kept = sorted([*kept, (measured.excess, i, measured)], key=lambda t: t[:2])[:KEEP_PER_FAMILY]
        if sound == BEST_EFFORT:
            break
    return [c for _, _, c in kept]


def search(problem: Problem, budget: Budget, later: Later) -> tuple[list[Candidate], FamilyReport]:
    """Every distinct pair of admissible CuTe swizzles (``pairs``), all tested at once on the lane
    differences (``failures_many``), then sampled and refuted; or z3 (smt.min_two_level). No member
    conflict-free: the best effort (``_best_effort``)."""
    oracle, engine = later.oracle, later.engine_of(FAMILY_RECORD)
    report = FamilyReport(FAMILY_RECORD.name, method="smt" if engine == "smt" else "enumeration")
    members = pairs(problem.tile, vector_elems(problem))
    report.candidates = len(members)
    found, failures, missed = [], None, None
    if engine == "smt":
        budget.tick(f"{report.family} (z3)", 0, 1)
        result = later.smt().min_two_level(oracle.seps, oracle.top, oracle.vector_bits, oracle.refute, *smt_limits(budget))
        report.smt = result.proof()
        report.complete = result.status != "unknown"
        found = [result.layout] if result.layout is not None else []
        report.covered = (f"z3 over (B, M, S) of both swizzles, {result.constraints} constraints from "
                          f"{oracle.covered()}: {result.outcome}")
    else:
        failures = failures_many(oracle, members, budget)
        cut = len(failures) < len(members)
        members = members.prefix(len(failures))  # in family order: all of them unless time ran out
        separated = np.flatnonzero(failures == 0)  # only these can be conflict-free: sample just them
        passes = sample_passes(oracle, members, separated)
        missed = failures > 0  # known not to be at every target (for the best effort's bound)
        missed[separated[~passes]] = True
        for _, i in budget.walk(report, separated[passes].tolist()):  # family order
            if oracle.refute(members[i]):
                missed[i] = True
            else:
                found.append(members[i])
                if len(found) == KEEP_PER_FAMILY:
                    break
        report.evaluated = len(members)
        report.complete = report.complete and not cut
        extent = f"cut by the time limit after {len(members)} of" if cut else "enumerated all"
        report.covered = (f"{extent} {report.candidates} distinct pairs of admissible CuTe swizzles, each tested "
                          f"on {oracle.covered()}")
    kept = _kept(oracle, members, found, failures, missed)
    report.best_excess = kept[0].excess if kept else None
    return kept, report


def _kept(oracle: XorOracle, members: Pairs, found: list, failures: np.ndarray | None,
          missed: np.ndarray | None) -> list[Candidate]:
    """The family's best: the members ``found`` at every target, else the best effort. Where the
    excess is per instruction (the unit ranked: candidate.per_instruction) and those found leave
    more than the least, a member off a target per phase may leave less: the best effort joins."""
    problem = oracle.problem
    kept = [found_candidate(problem, oracle.excess, lay) for lay in found]
    if not kept:
        return _best_effort(oracle, members, failures, missed)
    if per_instruction(problem) and kept[0].excess > oracle.excess:
        more = [c for c in _best_effort(oracle, members, failures, missed) if all(c.layout != k.layout for k in kept)]
        kept = best([*kept, *more], KEEP_PER_FAMILY)
    return kept


FAMILY_RECORD = Family(
    name=TwoLevel.family, rank=3, stage=LATER, layout=TwoLevel, parse=parse,
    printed=rf"{cute.PRINTED}then{cute.PRINTED}", syntax="'Swizzle<B,M,S> then Swizzle<B,M,S>'",
    candidates=candidates, make=make, phys_many=phys_many, apply_many=apply_many, engine="enum", search=search,
    code_rows=_code_rows, step_schema=(cute.STEP_SCHEMA,))  # two cute steps
