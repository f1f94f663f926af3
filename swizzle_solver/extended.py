"""The families beyond one swizzle (DESIGN.md section 2, item 4), searched only when none, cute
and xor-cols have no conflict-free member: two-level, linear, row interleave, padding.

Each search returns its best members as (excess, order, layout, method) like search.search_family,
and a FamilyReport saying how the family was covered: the enumeration bounds, or the SMT problem
and its result. Every member returned is re-measured by the simulator in search.solve.

Engines (chosen by bench/two_level.py, see the README): two-level is enumerated (all distinct
pairs of admissible CuTe swizzles, each tested at once on the lane differences of
separation.py); linear goes to z3 (smt.py), as its members are too many to list. ``engine``
overrides both ("smt" or "enum").
"""
from __future__ import annotations

import itertools

import numpy as np

from . import simulate
from .budget import Budget
from .families import cute, linear, padding, row_interleave, two_level
from .floors import floor_excess, targets
from .model import Problem, is_pow2, log2
from .proof import bank_matrix
from .search import (KEEP_PER_FAMILY, FamilyReport, first_conflict_free, layout_table, measure, placement_sample,
                     sampled_worsts, vector_elems)
from .separation import separations, slot_bits, units

DEFAULT_ENGINE = {two_level.FAMILY: "enum", linear.FAMILY: "smt"}
BEST_EFFORT = 16  # members measured exactly to find a family's best when none is conflict-free
# Without --timeout, z3 gets this many resource units per family (about 9 s on a 2-core VM of 2026):
# disjunctions of XOR parities are hard for its SAT core, and a rare instance runs for minutes (32 x
# 200 f32, 4x2 8x2v4 col: 21 s to prove UNSAT). Past it the family is reported unknown and the answer
# not proven minimal; --timeout allows more. Units, not seconds: the output must not depend on the
# machine's speed or load (the same input gives the same bytes).
SMT_RLIMIT = 30_000_000
LEMMAS_PER_PATTERN = 4  # failing placements explained per refuted model (smt.min_linear's lemmas)
LEMMA_MAX_UNITS = 96  # a lemma grows with the square of a placement's units: wider ones get none (a 256-byte
# phase has 64 units, up to 80 when its rows straddle words; a 512-byte one, 128, was too heavy for z3)
FAILURES_BATCH = 1 << 18  # members x differences per batch of failures_many (1 MiB of int32)


class _Xor:
    """What decides an XOR-linear member (cute, two-level, linear) on this problem: the lane
    differences of separation.py, and for the patterns they do not cover, GF(2) or the simulator.

    The goal is every pattern at its target: its lower bound, or its floor (floors.py) when that is
    above. A member at every target leaves exactly ``excess`` (0 without floors), the least any
    admissible layout can. A pattern bound by a floor cannot reach the one wavefront its separation
    asks for, so it is checked against its floor with the patterns that have no separation."""

    def __init__(self, problem: Problem):
        self.problem = problem
        seps = separations(problem.tile, problem.bank_model, problem.patterns)
        self.target, self.excess = targets(problem), floor_excess(problem)
        at_bound = [self.target[p] == p.lower_bound for p in problem.patterns]
        self.seps = [s for s, b in zip(seps, at_bound) if s is not None and b]
        self.rest = [p for p, s, b in zip(problem.patterns, seps, at_bound) if s is None or not b]
        self.top = max(1, (problem.tile.size - 1).bit_length())
        self.vector_bits = log2(vector_elems(problem))

    def separates(self, layout) -> bool:
        return all(s.holds(layout.apply) for s in self.seps)

    def refute(self, layout) -> bool:
        """True when the layout is not a member at every target (checks what the separations omit):
        not a bijection, or a pattern without a separation above its target (GF(2) bank matrix
        where it applies, else the simulator)."""
        tile, banks = self.problem.tile, self.problem.bank_model
        if layout.invalid(tile) is not None:
            return True
        if not self.rest:
            return False
        bases = layout.bases(tile)
        table = None
        for pattern in self.rest:
            matrix = bank_matrix(tile, banks, pattern, bases)
            if matrix is not None:
                worst = matrix.wavefronts
            else:
                table = layout_table(self.problem, layout) if table is None else table
                worst = simulate.simulate(tile, banks, [pattern], table)[0].worst
            if worst > self.target[pattern]:
                return True
        return False

    def conflict_bits(self, layout) -> set[int] | None:
        """For a layout refute() rejected on a pattern without a separation: the offset bits set in
        the lanes of one placement it serves above the lower bound (the placement setting the fewest).
        Every linear member that agrees with it on the XOR terms from these bits moves those lanes
        alike, so it fails the same way (smt.min_linear blocks them all). None when the rejection
        is not one placement's (the layout is not a bijection)."""
        tile = self.problem.tile
        if layout.invalid(tile) is not None:
            return None
        table = layout_table(self.problem, layout)
        used = []  # per failing placement: the OR of its lanes' logical offsets
        for pattern in self.rest:
            costs = simulate.simulate(tile, self.problem.bank_model, [pattern], table)[0].costs
            failing = np.flatnonzero(costs > self.target[pattern])
            rows, cols = simulate.lane_elements(tile, pattern)
            offsets = rows[failing] * tile.row_length + cols[failing]  # (failing, lanes, elements)
            used += np.bitwise_or.reduce(np.bitwise_or.reduce(offsets, axis=2), axis=1).tolist()
        if not used:
            return None
        fewest = min(used, key=lambda bits: bin(bits).count("1"))
        return {b for b in range(fewest.bit_length()) if fewest >> b & 1}

    def conflict_lemmas(self, layout) -> list[tuple[int, int, int, tuple[int, ...]]] | None:
        """For a layout refute() rejected: why, as conditions every member at the targets meets and
        this one breaks; None when a rejection has no such reason (not a bijection, lanes of mixed
        sizes) or when a placement has more than LEMMA_MAX_UNITS units.

        A placement costs the most distinct units in one slot (separation.units), and a linear
        member puts units a and b in one slot iff slot(L(a ^ b)) == 0. So every member at the
        targets meets, for each placement: no slot holds more than T (the target) of its units.
        One lemma (u, slot mask, T, the placement's distinct units) per failing placement, up to
        LEMMAS_PER_PATTERN; smt.min_linear adds them, so a refuted model excludes exactly the
        members that fail on the same placements."""
        tile, bank_model = self.problem.tile, self.problem.bank_model
        if layout.invalid(tile) is not None:
            return None
        table = layout_table(self.problem, layout)
        lemmas = set()
        for pattern in self.rest:
            target = self.target[pattern]
            costs = simulate.simulate(tile, bank_model, [pattern], table)[0].costs
            failing = np.flatnonzero(costs > target)[:LEMMAS_PER_PATTERN]
            if not failing.size:
                continue
            unit = units(tile, bank_model, pattern)
            if unit is None:
                return None
            u, slot_mask = unit
            rows, cols = pattern.lane_row[failing], pattern.lane_col[failing]  # each lane's first element
            for offsets in ((rows * tile.row_length + cols) >> u << u).tolist():
                placement_units = tuple(sorted(set(offsets)))
                if len(placement_units) > LEMMA_MAX_UNITS:
                    return None
                lemmas.add((u, slot_mask, target, placement_units))
        return sorted(lemmas) or None

    def targets(self) -> list[int]:
        """The bits a linear member may XOR into: every pattern's slot bits above the vectors."""
        tile, banks = self.problem.tile, self.problem.bank_model
        return sorted({b for p in self.problem.patterns for b in slot_bits(tile, banks, p) if b >= self.vector_bits})

    def accept(self, layout) -> bool:
        return self.separates(layout) and not self.refute(layout)

    def failures_many(self, members, budget: Budget | None = None) -> np.ndarray:
        """Differences sent to slot 0 by each two-level member, all members at once; when ``budget``
        runs out first, only for a prefix of them (the result is that long).

        Offsets are below 2^19 (model.MAX_STORAGE_BYTES), so int32 holds them, and the members x
        differences temporaries are updated in place in cache-sized batches: on a 256 x 250 tile
        (56,000 members, 5,600 differences) that is 7x faster than fresh int64 arrays.
        """
        params = np.array([[m.first.S, m.first.mask, m.second.S, m.second.mask] for m in members],
                          dtype=np.int32).reshape(-1, 4)
        out = np.zeros(len(members), dtype=np.int64)
        seps = [(sep, sep.diffs.astype(np.int32)[None, :]) for sep in self.seps
                if sep.diffs.size]  # no two lanes of a phase in different units (one 8-byte lane): nothing to fail
        step = max(1, FAILURES_BATCH // max([d.size for _, d in seps], default=1))
        for start in range(0, len(members), step):
            if budget is not None and budget.expired():
                return out[:start]
            s1, m1, s2, m2 = (params[start:start + step, i:i + 1] for i in range(4))
            for sep, diffs in seps:
                q = diffs >> s1
                q &= m1
                q ^= diffs  # the first swizzle
                slot = q >> s2
                slot &= m2
                slot ^= q  # the second
                slot >>= sep.unit_shift
                slot &= sep.slot_mask
                out[start:start + step] += diffs.size - np.count_nonzero(slot, axis=1)
        return out

    def sample_passes(self, members) -> np.ndarray:
        """Per two-level member: False when a pattern without a separation already exceeds its lower
        bound on a sample of placements (refute would reject it); True when it may pass. All members
        at once, so that refute simulates only these."""
        passed = np.ones(len(members), dtype=bool)
        if members and self.rest:
            params = [two_level.params(m) for m in members]
            for pattern in self.rest:
                sample = placement_sample(self.problem.tile, pattern)
                passed &= sampled_worsts(self.problem, two_level, params, pattern, sample) <= self.target[pattern]
        return passed

    def covered(self) -> str:
        parts = [f"{s.pattern.spec} ({len(s.diffs)} lane differences)" for s in self.seps]
        parts += [f"{p.spec} (simulated)" for p in self.rest]
        return ", ".join(parts)


def smt_limits(budget: Budget) -> tuple[float | None, int | None, str]:
    """z3's (deadline, resource budget, description): --timeout's deadline, else SMT_RLIMIT units."""
    if budget.deadline is not None:
        return budget.deadline, None, "the time limit"
    return None, SMT_RLIMIT, (f"z3 spent its default budget of {SMT_RLIMIT:,} resource units (a count, not "
                              f"seconds); --timeout SECONDS allows more")


def _measured(problem: Problem, layouts, keep: int = KEEP_PER_FAMILY) -> list[tuple]:
    out = []
    for layout in layouts:
        ranked = measure(problem, layout)
        out.append((ranked.excess, layout.order, layout, "exhaustive"))
    return sorted(out, key=lambda t: t[:2])[:keep]


def _best_effort(xor: _Xor, members, failures: np.ndarray | None = None) -> list[tuple]:
    """No member is conflict-free: measure the valid members that fail the fewest differences
    (``failures``: xor.failures_many(members), if already counted)."""
    failures = (xor.failures_many(members) if failures is None else failures).tolist()
    picked = []
    for i in sorted(range(len(members)), key=lambda i: (failures[i], members[i].order)):
        if members[i].invalid(xor.problem.tile) is None:
            picked.append(members[i])
            if len(picked) == BEST_EFFORT:
                break
    return _measured(xor.problem, picked)


def search_two_level(problem: Problem, budget: Budget, engine: str, xor: _Xor):
    report = FamilyReport(two_level.FAMILY, method="smt" if engine == "smt" else "enumeration")
    members = two_level.candidates(problem.tile, vector_elems(problem))
    report.candidates = len(members)
    found, failures = [], None
    if engine == "smt":
        from . import smt
        budget.tick(f"{report.family} (z3)", 0, 1)
        result = smt.min_two_level(xor.seps, xor.top, xor.vector_bits, xor.refute, *smt_limits(budget))
        report.smt = result.proof()
        report.complete = result.status != "unknown"
        found = [result.layout] if result.layout is not None else []
        report.covered = (f"z3 over (B, M, S) of both swizzles, {result.constraints} constraints from "
                          f"{xor.covered()}: {result.outcome}")
    else:
        failures = xor.failures_many(members, budget)
        cut = len(failures) < len(members)
        members = members[:len(failures)]  # a prefix in family order: all of them unless time ran out
        separated = np.flatnonzero(failures == 0)  # only these can be conflict-free: sample just them
        maybe = separated[xor.sample_passes([members[i] for i in separated.tolist()])].tolist()
        for _, i in budget.walk(report, maybe):  # family order
            if not xor.refute(members[i]):
                found.append(members[i])
                if len(found) == KEEP_PER_FAMILY:
                    break
        report.evaluated = len(members)
        report.complete = report.complete and not cut
        extent = f"cut by the time limit after {len(members)} of" if cut else "enumerated all"
        report.covered = (f"{extent} {report.candidates} distinct pairs of admissible CuTe swizzles, each tested "
                          f"on {xor.covered()}")
    kept = [(xor.excess, lay.order, lay, "separation") for lay in found] or _best_effort(xor, members, failures)
    report.best_excess = kept[0][0] if kept else None
    return kept, report


def search_linear(problem: Problem, budget: Budget, engine: str, xor: _Xor):
    report = FamilyReport(linear.FAMILY, method="smt" if engine == "smt" else "enumeration")
    targets = xor.targets()
    terms = linear.all_terms(targets, xor.top)
    report.candidates = 2 ** len(terms)
    if not xor.seps:
        report.covered = ("not searched: no access gives z3 lane differences (each reads more than one "
                          "wavefront, mixes lane sizes, or is bound by a floor)")
        return [], report
    if not terms:
        report.covered = ("not searched: no slot bit lies above the vectors, so no XOR term can move a unit; "
                          "the only member is the identity (none)")
        return [], report
    found = None
    if engine == "smt":
        from . import smt
        budget.tick(f"{report.family} (z3)", 0, 1)
        result = smt.min_linear(xor.seps, targets, xor.top, xor.refute, *smt_limits(budget),
                                core=xor.conflict_bits, lemmas=xor.conflict_lemmas, storage=problem.tile.size)
        report.smt = result.proof()
        report.complete = result.status != "unknown"
        found = result.layout
        storage = "" if is_pow2(problem.tile.size) else f" and the {problem.tile.size}-element storage kept whole"
        report.covered = (f"z3 over {len(terms)} possible XOR terms (target bits {targets}, sources up to bit "
                          f"{xor.top - 1}), {result.constraints} constraints from {xor.covered()}{storage}: "
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
                if xor.accept(layout):
                    found = layout
                    break
            if found is not None or cut:
                break
        report.evaluated = tried
        report.complete = not cut
        report.covered = (f"enumerated {tried} members with at most {k} of {len(terms)} possible XOR terms, "
                          f"each tested on {xor.covered()}")
    kept = [(xor.excess, found.order, found, "separation")] if found is not None else []
    report.best_excess = xor.excess if found is not None else None
    return kept, report


def _keeps_vectors(problem: Problem, layout) -> bool:
    """Every lane stays whole and aligned. A row permutation moves a lane to a row that may start
    elsewhere modulo its vector when the pitch is not a multiple of it (explicit phases allow that)."""
    table = layout_table(problem, layout)
    return all(simulate.admissible(problem.tile, pattern, table) for pattern in problem.patterns)


def search_row_interleave(problem: Problem, budget: Budget):
    report = FamilyReport(row_interleave.FAMILY)
    members = row_interleave.candidates(problem.tile, vector_elems(problem))
    report.candidates = len(members)
    valid = []
    for _, layout in budget.walk(report, members):
        if layout.invalid(problem.tile) is None and _keeps_vectors(problem, layout):
            valid.append(layout)
        else:
            report.invalid += 1
    report.evaluated = len(valid)
    kept = _measured(problem, valid)
    report.best_excess = kept[0][0] if kept else None
    report.covered = (f"every band T (dividing {problem.tile.rows} rows, T <= {row_interleave.MAX_BAND}) and "
                      f"factor 2 <= k < T: {len(members)} members, {report.invalid} not permutations or "
                      f"splitting vectors, the rest simulated")
    return kept, report


def search_padding(problem: Problem, budget: Budget):
    """The smallest pitch that needs no swizzle, and the smallest that works with one (the first
    cute or xor-cols member of the padded tile, in their order). "Works" is every pattern at its
    target: its lower bound, or its floor (floors.py) when that is above."""
    from dataclasses import replace
    from .families import xor_cols
    from .families.identity import Identity

    report = FamilyReport(padding.FAMILY)
    tile = problem.tile
    target, least = targets(problem), floor_excess(problem)  # least: 0 without floors
    vbytes = max(int(p.lane_bytes.max()) for p in problem.patterns)
    pitches = padding.pitches(tile, vbytes, problem.bank_model.wavefront_bytes)
    report.candidates = len(pitches)
    plain = swizzled = None
    closest = []
    for _, pitch in budget.walk(report, pitches):
        layout = padding.Padded(pitch, Identity())
        excess = measure(problem, layout).excess
        report.evaluated += 1
        if excess == least:
            plain = layout
            break
        closest.append((excess, layout.order, layout, "exhaustive"))
        if swizzled is None:
            padded = Problem(replace(tile, row_length=pitch), problem.bank_model, problem.patterns)
            first = first_conflict_free(padded, (cute, xor_cols), budget, target=target,
                                        invalid=lambda inner: padding.Padded(pitch, inner).invalid(tile))
            if first is not None:
                swizzled = padding.Padded(pitch, first.layout)
    kept = [(least, lay.order, lay, "exhaustive") for lay in (swizzled, plain) if lay is not None]
    if not kept:
        kept = sorted(closest, key=lambda t: t[:2])[:1]
    report.best_excess = kept[0][0] if kept else None
    goal = "every floor" if least else "no conflict"
    report.covered = (f"pitches {pitches[0]}..{pitches[-1]} other than {tile.row_length} (one wavefront of residues "
                      f"above it) aligned to {vbytes}-byte vectors, in order until one needs no swizzle; plain and "
                      f"with a cute or xor-cols swizzle of the padded tile, aiming at {goal}"
                      if pitches else "no aligned pitch")
    return kept, report


def search_extended(problem: Problem, budget: Budget, engine: str | None = None):
    xor = _Xor(problem)
    found, reports = [], []
    for family, search in ((two_level.FAMILY, search_two_level), (linear.FAMILY, search_linear)):
        kept, report = search(problem, budget, engine or DEFAULT_ENGINE[family], xor)
        found += kept
        reports.append(report)
    for search in (search_row_interleave, search_padding):
        kept, report = search(problem, budget)
        found += kept
        reports.append(report)
    return found, reports
