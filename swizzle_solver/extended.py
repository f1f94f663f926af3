"""The families beyond one swizzle (DESIGN.md section 2, item 4), searched only when none, cute
and xor-cols have no conflict-free member: two-level, linear, row interleave, padding.

The four searches share one signature, ``search(problem, budget, later) -> (candidates, report)``
(``Later``: the XOR oracle, the engine override, the base search): their best sound members as
candidate.Candidate, and a FamilyReport saying how the family was covered: the enumeration bounds,
or the SMT problem and its result. Every member is checked by soundness.py before it is measured,
and every member returned is re-measured by the simulator in solving.py.

Engines (chosen by bench/two_level.py, see the README): two-level is enumerated (all distinct
pairs of admissible CuTe swizzles, each tested at once on the lane differences of
separation.py); linear goes to z3 (smt.py), as its members are too many to list. ``engine``
overrides both ("smt" or "enum").
"""
from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

import numpy as np

from . import balance, simulate
from .budget import Budget
from .candidate import (
    KEEP_PER_FAMILY,
    Candidate,
    FamilyReport,
    best,
    measure,
    vector_elems,
)
from .candidate import found as found_candidate
from .families import cute, linear, padding, records, row_interleave, two_level, xor_cols
from .families.identity import Identity
from .families.two_level import Pairs, TwoLevel
from .layout import LATER, Family, Layout, layout_table
from .model import Problem, is_pow2
from .narrower import other_pitches
from .oracle import XorOracle, conflict_bits, conflict_lemmas
from .sampling import placement_sample, sampled_worsts
from .soundness import storage, table_soundness
from .value import Value, replace

BEST_EFFORT = 16  # members measured exactly to find a family's best when none is conflict-free
# Without --timeout, z3 gets this many resource units per family (about 9 s on a 2-core VM of 2026):
# disjunctions of XOR parities are hard for its SAT core, and a rare instance runs for minutes (32 x
# 200 f32, 4x2 8x2v4 col: 21 s to prove UNSAT). Past it the family is reported unknown and the answer
# not proven minimal; --timeout allows more. Units, not seconds: the output must not depend on the
# machine's speed or load (the same input gives the same bytes).
SMT_RLIMIT = 30_000_000
FAILURES_BATCH = 1 << 20  # members x slot-bit subsets per batch of failures_many (4 MiB of uint32)


class Later(Value):
    """What each later-family search is given besides the problem and the budget."""

    oracle: XorOracle  # decides XOR-linear members (two-level, linear; padding's target)
    engine: str | None  # "smt" or "enum" for every family that has both; None: each family's own (Family.engine)
    base: Callable  # the base search's first_conflict_free (search.py), for padding's swizzled pitches

    def engine_of(self, family: Family) -> str:
        return self.engine or family.engine


def later_of(problem: Problem, base: Callable, engine: str | None = None) -> Later:
    return Later(XorOracle(problem), engine, base)


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
                worst = sampled_worsts(oracle.problem, two_level.FAMILY_RECORD, grid[alive], pattern,
                                       np.array([placement]))
                passed[alive] = worst <= oracle.target[pattern]
    return passed


def smt_limits(budget: Budget) -> tuple[float | None, int | None, str]:
    """z3's (deadline, resource budget, description): --timeout's deadline, else SMT_RLIMIT units."""
    if budget.deadline is not None:
        return budget.deadline, None, "the time limit"
    return None, SMT_RLIMIT, (f"z3 spent its default budget of {SMT_RLIMIT:,} resource units (a count, not "
                              f"seconds); --timeout SECONDS allows more")


def _sound_table(problem: Problem, layout: Layout) -> np.ndarray | None:
    """The layout's table, when it is sound (soundness.py); else None. The table is built only past
    the family's structural check (most row-interleave members fail it)."""
    tile = problem.tile
    if layout.invalid(tile) is not None:
        return None
    table = layout_table(tile, layout)
    return None if table_soundness(tile, table, storage(tile, layout), problem.patterns) is not None else table


class QuickSoundness:
    """soundness.soundness(...) is None for members of two kinds of family, without building each
    member's table: the member's structural check, then facts about each pattern's lanes and the
    identity's table, computed once per problem. Where a fact does not apply, the member's table is
    checked as soundness.py does. (tests/test_speed.py: the same answer as the table check.)

    XOR maps of offsets (``xor``; two-level: ``OnOffset`` maps whose XORs go from higher bits into
    bits ``low`` and up). The structural check (``invalid``: partial_block_invalid) passing says L
    is a bijection of the storage [0, size); the tile's offsets p = r * row_length + c are distinct
    and in it when cols <= row_length, so the table is injective into the storage. L reads and
    changes no bit below ``low``, so L(q + l) = L(q) + l for q a multiple of 2^low and l below it,
    and L(p) = p modulo 2^low. A lane of n elements from offset p that stays inside one block of
    2^low therefore stays contiguous under L, and its start's alignment (a power of two dividing
    2^low) is p's: when every lane of a pattern is like that, L keeps the pattern's vectors whole
    exactly when the identity does.

    Row permutations (``rows``; row interleave: row r stored at row pi(r), columns kept). The
    structural check passing says pi permutes the tile's rows, so with cols <= row_length the
    table is injective into the storage. A lane stays in its row, so it stays contiguous, and its
    start pi(r) * row_length + c has the alignment of r * row_length + c when the row length is a
    multiple of the alignment: then pi keeps the pattern's vectors whole exactly when the identity
    does."""

    def __init__(self, problem: Problem):
        self.problem = problem
        self.identity = layout_table(problem.tile, Identity())
        self._by_pattern: list[tuple[int, int, bool]] | None = None

    def by_pattern(self) -> list[tuple[int, int, bool]]:
        """Per pattern: the least ``low`` at which every lane lies inside one block of 2^low and
        every alignment divides it (a lane from p to e = p + n - 1 lies inside one such block iff
        p ^ e < 2^low), its largest alignment (elements, a power of two), and whether the identity
        keeps its vectors whole."""
        if self._by_pattern is None:
            tile, self._by_pattern = self.problem.tile, []
            for pattern in self.problem.patterns:
                rows, cols = simulate.lane_elements(tile, pattern)
                first, last = self.identity[rows[..., 0], cols[..., 0]], self.identity[rows[..., -1], cols[..., -1]]
                align = int(np.max(np.maximum(1, (pattern.lane_bytes & -pattern.lane_bytes) // tile.elem_bytes)))
                least = max(int(np.bitwise_or.reduce(first ^ last, axis=None)).bit_length(), align.bit_length() - 1)
                self._by_pattern.append((least, align, simulate.admissible(tile, pattern, self.identity)))
        return self._by_pattern

    def _decided(self, layout: Layout, applies: bool) -> bool:
        tile = self.problem.tile
        if layout.invalid(tile) is not None:
            return False
        if tile.cols > tile.row_length or not applies:
            return _sound_table(self.problem, layout) is not None
        return all(whole for _, _, whole in self.by_pattern())

    def xor(self, layout: TwoLevel) -> bool:
        low = min(t for t, _ in layout.terms())
        return self._decided(layout, all(least <= low for least, _, _ in self.by_pattern()))

    def rows(self, layout: Layout) -> bool:
        pitch = self.problem.tile.row_length
        return self._decided(layout, all(pitch % align == 0 for _, align, _ in self.by_pattern()))


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
    sound = 0
    check = QuickSoundness(problem)
    # (failures, order): members come in family order (two_level.pairs), so a stable sort on the
    # failures alone gives it without building 56,000 order tuples
    for i in np.argsort(failures, kind="stable").tolist():
        layout = members[i]
        if not check.xor(layout):
            continue
        sound += 1
        # (excess, order) of this member is at least (least + 1, i) when it missed a target
        cannot_enter = len(kept) == KEEP_PER_FAMILY and missed[i] and kept[-1][:2] <= (oracle.excess + 1, i)
        if not cannot_enter:
            measured = measure(problem, layout)
            kept = sorted([*kept, (measured.excess, i, measured)], key=lambda t: t[:2])[:KEEP_PER_FAMILY]
        if sound == BEST_EFFORT:
            break
    return [c for _, _, c in kept]


def search_two_level(problem: Problem, budget: Budget, later: Later) -> tuple[list[Candidate], FamilyReport]:
    oracle, engine = later.oracle, later.engine_of(two_level.FAMILY_RECORD)
    report = FamilyReport(two_level.FAMILY_RECORD.name, method="smt" if engine == "smt" else "enumeration")
    members = two_level.pairs(problem.tile, vector_elems(problem))
    report.candidates = len(members)
    found, failures, missed = [], None, None
    if engine == "smt":
        from . import smt
        budget.tick(f"{report.family} (z3)", 0, 1)
        result = smt.min_two_level(oracle.seps, oracle.top, oracle.vector_bits, oracle.refute, *smt_limits(budget))
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
    kept = [found_candidate(problem, oracle.excess, lay) for lay in found] or _best_effort(oracle, members, failures, missed)
    report.best_excess = kept[0].excess if kept else None
    return kept, report


def search_linear(problem: Problem, budget: Budget, later: Later) -> tuple[list[Candidate], FamilyReport]:
    oracle, engine = later.oracle, later.engine_of(linear.FAMILY_RECORD)
    report = FamilyReport(linear.FAMILY_RECORD.name, method="smt" if engine == "smt" else "enumeration")
    targets = oracle.slot_targets()
    terms = linear.all_terms(targets, oracle.top)
    report.candidates = 2 ** len(terms)
    if not oracle.seps:
        report.covered = ("not searched: no access gives z3 lane differences (each reads more than one "
                          "wavefront, mixes lane sizes, or is bound by a floor)")
        return [], report
    if not terms:
        report.covered = ("not searched: no slot bit lies above the vectors, so no XOR term can move a unit; "
                          "the only member is the identity (none)")
        return [], report
    found = None
    if engine == "smt":
        # what each slot bit's row must do on the simulated patterns: often enough to refute the
        # family outright (issue 16: 3 s of z3 on odd pitches), else it narrows z3's search
        rows = balance.family_rows(problem, oracle.rest, oracle.target, targets, oracle.top)
        if rows and rows[-1].refuted:
            report.smt = balance.refutation(rows[-1], len(terms))
            report.complete = True
            report.covered = (f"none of the members over {len(terms)} possible XOR terms (target bits {targets}, "
                              f"sources up to bit {oracle.top - 1}) can reach the targets: "
                              f"{balance.refuted_because(rows[-1])} (the balance condition, no z3 needed): unsat")
            return [], report
        from . import smt
        budget.tick(f"{report.family} (z3)", 0, 1)
        result = smt.min_linear(oracle.seps, targets, oracle.top, oracle.refute, *smt_limits(budget),
                                core=lambda layout: conflict_bits(oracle, layout),
                                lemmas=lambda layout: conflict_lemmas(oracle, layout), storage=problem.tile.size,
                                rows=rows)
        report.smt = result.proof()
        report.complete = result.status != "unknown"
        found = result.layout
        storage = "" if is_pow2(problem.tile.size) else f" and the {problem.tile.size}-element storage kept whole"
        report.covered = (f"z3 over {len(terms)} possible XOR terms (target bits {targets}, sources up to bit "
                          f"{oracle.top - 1}), {result.constraints} constraints from {oracle.covered()}{storage}: "
                          f"{result.outcome}")
    else:
        tried, cut, k = 0, False, 0
        for k in range(len(terms) + 1):
            for combo in itertools.combinations(terms, k):
                tried += 1
                if tried % 1024 == 0 and budget.expired():
                    cut = True
                    break
                layout = linear.XorLinear(combo)
                if oracle.accept(layout):
                    found = layout
                    break
            if found is not None or cut:
                break
        report.evaluated = tried
        report.complete = not cut
        report.covered = (f"enumerated {tried} members with at most {k} of {len(terms)} possible XOR terms, "
                          f"each tested on {oracle.covered()}")
    kept = [found_candidate(problem, oracle.excess, found)] if found is not None else []
    report.best_excess = oracle.excess if found is not None else None
    return kept, report


def search_row_interleave(problem: Problem, budget: Budget, later: Later) -> tuple[list[Candidate], FamilyReport]:
    """Every band and factor, each sound one simulated on a sample of placements, and measured
    whole when it can enter the family's best (``_best_bounded``). (A row permutation moves a lane
    to a row that may start elsewhere modulo its vector when the pitch is not a multiple of it:
    explicit phases allow that, and the soundness check refuses it.)"""
    kept, report = _every_member(problem, budget, row_interleave.FAMILY_RECORD, QuickSoundness(problem).rows)
    report.covered = (f"every band T (dividing {problem.tile.rows} rows, T <= {row_interleave.MAX_BAND}) and "
                      f"factor 2 <= k < T: {report.candidates} members, {report.invalid} not permutations or "
                      f"splitting vectors, the rest simulated")
    return kept, report


def _every_member(problem: Problem, budget: Budget, family: Family,
                  is_sound: Callable[[Layout], bool] | None = None) -> tuple[list[Candidate], FamilyReport]:
    """Every member the family lists (its ``candidates``), each sound one simulated (on a sample,
    measured whole when it can enter the best: ``_best_bounded``): the search of a later family that
    has no engine of its own. Its best KEEP_PER_FAMILY in (excess, order).
    ``is_sound``: the family's own exact soundness check (QuickSoundness), else soundness.py's."""
    report = FamilyReport(family.name)
    members = family.candidates(problem.tile, vector_elems(problem)) if family.candidates else []
    report.candidates = len(members)
    sound = []
    for _, layout in budget.walk(report, members):
        table = _sound_table(problem, layout) if is_sound is None else \
            (layout_table(problem.tile, layout) if is_sound(layout) else None)
        if table is None:
            report.invalid += 1
        else:
            sound.append((layout, table))
    report.evaluated = len(sound)
    kept = _best_bounded(problem, sound, KEEP_PER_FAMILY)
    report.best_excess = kept[0].excess if kept else None
    report.covered = (f"every listed member: {len(members)}, {report.invalid} not sound (not a bijection or "
                      f"splitting vectors), the rest simulated")
    return kept, report


def sampled_excess(problem: Problem, table: np.ndarray) -> int:
    """A lower bound on a layout's excess (given by its table): the sum over patterns of the worst
    over a sample of placements (placement_sample) minus the pattern's lower bound. The true worst
    is the maximum over all placements, so it is at least the sampled one, pattern by pattern."""
    fn = simulate.table(table)
    tile, banks = problem.tile, problem.bank_model
    total = 0
    for pattern in problem.patterns:
        words = simulate.lane_words(tile, banks, pattern, fn, placement_sample(tile, pattern))
        total += int(simulate.pattern_costs(tile, banks, pattern, words).max()) - pattern.lower_bound
    return total


def _best_bounded(problem: Problem, sound: list[tuple[Layout, np.ndarray]], keep: int) -> list[Candidate]:
    """best(every member of ``sound`` measured, keep), measuring only the members that can enter it.

    Each member's excess is bounded below by ``sampled_excess``; members are measured in (bound,
    order), and once ``keep`` are measured, a member whose (bound, order) comes after the last
    kept one's (excess, order) cannot displace it: its own (excess, order) comes after too, and so
    do those of every member after it (their bounds are no smaller). On 512 x 506 f16 `8x1 8x16
    col`, 3 of the 15 sound row-interleave members measured instead of all."""
    bounded = sorted(((sampled_excess(problem, table), layout.order, k) for k, (layout, table) in enumerate(sound)),
                     key=lambda t: t[:2])
    kept: list[Candidate] = []
    for bound, order, k in bounded:
        if len(kept) == keep and (bound, order) > (kept[-1].excess, kept[-1].layout.order):
            break
        kept = best([*kept, measure(problem, *sound[k])], keep)
    return kept


def _at_targets(problem: Problem, table: np.ndarray, target: dict) -> bool:
    """Every pattern simulated at or below its target, the smallest pattern first, stopping at the
    first above it. No sound layout leaves a pattern below its target (floors.targets), so this is
    the layout leaving the least excess any layout can."""
    tile, banks = problem.tile, problem.bank_model
    for pattern in sorted(problem.patterns, key=lambda p: p.lane_row.size):  # stable: the given order within a size
        if simulate.simulate(tile, banks, [pattern], table)[0].worst > target[pattern]:
            return False
    return True


def search_padding(problem: Problem, budget: Budget, later: Later) -> tuple[list[Candidate], FamilyReport]:
    """Above the given row length (more shared memory): the smallest pitch that needs no swizzle,
    and the smallest that works with one (the first cute or xor-cols member of the padded tile, in
    their order, by the base search). "Works" is every pattern at its target: its lower bound, or
    its floor (floors.py) when that is above. A pitch at which a lane's vector no longer starts
    aligned is not sound, and skipped. (The later families are not searched at these pitches:
    solving._other_pitches says so when that leaves the answer unproven.)

    A plain pitch is simulated pattern by pattern until one misses its target; the pitches that
    miss are measured whole only when neither a plain nor a swizzled pitch works (then the closest
    is kept)."""
    report = FamilyReport(padding.FAMILY_RECORD.name)
    tile = problem.tile
    target, least = later.oracle.target, later.oracle.excess  # least: 0 without floors
    vbytes = max(int(p.lane_bytes.max()) for p in problem.patterns)
    pitches = other_pitches(problem)[1]  # those below are solving.py's, every family at each (narrower.py)
    report.candidates = len(pitches)
    plain = swizzled = None
    missed = []  # sound plain pitches above some target, in order
    for _, pitch in budget.walk(report, pitches):
        layout = padding.Padded(pitch, Identity())
        table = _sound_table(problem, layout)
        if table is None:
            report.invalid += 1
            continue
        report.evaluated += 1
        if _at_targets(problem, table, target):
            plain = measure(problem, layout, table)
            break
        missed.append(layout)
        if swizzled is None:
            padded = Problem(replace(tile, row_length=pitch), problem.bank_model, problem.patterns)
            first = later.base(padded, (cute.FAMILY_RECORD, xor_cols.FAMILY_RECORD), budget, target=target,
                               invalid=lambda inner, pitch=pitch: padding.Padded(pitch, inner).invalid(tile))
            if first is not None:
                swizzled = found_candidate(problem, least, padding.Padded(pitch, first.layout))
    kept = [c for c in (swizzled, plain) if c is not None]
    if not kept:  # nothing works: the closest plain pitch
        kept = best([measure(problem, layout) for layout in missed], 1)
    report.best_excess = kept[0].excess if kept else None
    goal = "every floor" if least else "no conflict"
    report.covered = (f"pitches {pitches[0]}..{pitches[-1]} above {tile.row_length} (one wavefront of residues) "
                      f"aligned to {vbytes}-byte vectors, in order until one needs no swizzle; plain and with a "
                      f"cute or xor-cols swizzle of the padded tile, aiming at {goal}"
                      if pitches else "no aligned pitch")
    return kept, report


# The later families with an engine of their own; any other later family of the registry has
# every member it lists simulated (_every_member).
SEARCHES: dict[str, Callable[[Problem, Budget, Later], tuple[list[Candidate], FamilyReport]]] = {
    two_level.FAMILY_RECORD.name: search_two_level, linear.FAMILY_RECORD.name: search_linear,
    row_interleave.FAMILY_RECORD.name: search_row_interleave, padding.FAMILY_RECORD.name: search_padding}


def min_storage(problem: Problem, family: str) -> int:
    """The least storage (elements) any member a family searches at the given row length needs:
    padding's smallest aligned pitch above it, the tile's own storage for the others."""
    if family != padding.FAMILY_RECORD.name:
        return problem.tile.size
    pitches = other_pitches(problem)[1]
    return problem.tile.rows * min(pitches) if pitches else problem.tile.size


Skip = Callable[[str, list], "str | None"]  # (family, candidates found so far) -> why it cannot win, or None


def search_extended(problem: Problem, budget: Budget, base: Callable, engine: str | None = None,
                    skip: Skip | None = None, keep_pitch: bool = False,
                    admit: Callable[[Layout], bool] | None = None,
                    before: Sequence[Candidate] = ()) -> tuple[list[Candidate], list[FamilyReport]]:
    """Every later family of the registry in rank order: their best few, and reports. ``base`` is
    the base search's first_conflict_free (padding asks it for a swizzle of each padded tile).
    ``skip`` (solving.py's rule) says why a family need not be searched, given what was found
    before it (``before``: by the searches before this one; then each family's): such a family gets
    a report with ``searched`` False. ``keep_pitch``: padding (another row length) is not searched.
    ``admit`` (--for): only the members it admits are kept; a family whose best members it refuses
    all is reported as not covered whole (its search looks for the best members, not for the best
    expressible ones)."""
    later = later_of(problem, base, engine)
    found: list[Candidate] = []
    reports: list[FamilyReport] = []
    for family in records(LATER):
        if keep_pitch and family.name == padding.FAMILY_RECORD.name:
            continue
        why = skip(family.name, [*before, *found]) if skip is not None else None
        if why is not None:
            method = "smt" if later.engine_of(family) == "smt" else "enumeration"
            reports.append(FamilyReport(family.name, method=method, searched=False, covered=f"not searched: {why}"))
            continue
        search = SEARCHES.get(family.name)
        kept, report = search(problem, budget, later) if search else _every_member(problem, budget, family)
        if admit is not None:
            admitted = [c for c in kept if admit(c.layout)]
            if kept and not admitted:
                report.complete = False
                report.covered += "; --for: its best members are not expressible in the targets, none searched further"
            kept = admitted
        found += kept
        reports.append(report)
    return found, reports
