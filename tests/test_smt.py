"""Every SMT claim re-checked by exhaustive enumeration with the simulator, on small tiles.

For the linear family: z3 says UNSAT -> no member (every subset of the possible XOR terms) is
conflict-free under the simulator; z3 says SAT with w terms -> its model is conflict-free and no
member with fewer terms is. For the two-level family: z3 and plain enumeration give the same
answer (or both none). Only the targets that can matter are enumerated: XORing into a bit outside
the slot bits never changes a word's bank (separation.py), which is why the family has no others.
"""
import itertools
import json

import pytest
from hypothesis import HealthCheck, assume, given, reject, settings
from hypothesis import strategies as st

from swizzle_solver import smt
from swizzle_solver.access import make_problem, make_tile
from swizzle_solver.budget import Budget
from swizzle_solver.candidate import measure_as_given, vector_elems
from swizzle_solver.extended import later_of
from swizzle_solver.families import linear, two_level
from swizzle_solver.families.two_level import failures_many
from swizzle_solver.families.two_level import search as search_two_level
from swizzle_solver.model import InputError
from swizzle_solver.oracle import XorOracle, conflict_bits, conflict_lemmas
from swizzle_solver.search import first_conflict_free

MAX_TERMS = 12  # 4096 members, each simulated


def diagonal_file(tmp_path, n):
    lanes = [[t, t, 4] for t in range(n)]
    path = tmp_path / f"diag{n}.json"
    path.write_text(json.dumps({"pattern": [{"name": "diagonal", "phases": [lanes]}]}))
    return str(path)


def linear_space(problem):
    xor = XorOracle(problem)
    targets = xor.slot_targets()
    return xor, targets, linear.all_terms(targets, xor.top)


def refutable_space(rows, cols, banks, accesses):
    """(XorOracle, possible terms) of a problem with patterns that refute() checks, or None (no such
    pattern, or the problem is bad input)."""
    try:
        problem = make_problem(rows, cols, accesses, banks=banks)
    except InputError:
        return None
    xor, _, terms = linear_space(problem)
    return (xor, terms) if xor.rest else None


def check_linear_claim(problem):
    xor, targets, terms = linear_space(problem)
    if not xor.seps or not terms or len(terms) > MAX_TERMS:  # (search_linear skips both too)
        return None
    result = smt.min_linear(xor.seps, targets, xor.top, xor.refute, core=lambda lay: conflict_bits(xor, lay),
                            lemmas=lambda lay: conflict_lemmas(xor, lay), storage=problem.tile.size)
    assert result.status in ("sat", "unsat")
    fewest = None  # the fewest terms of a member at every target (conflict-free, or at the floors)
    for k in range(len(terms) + 1):
        for combo in itertools.combinations(terms, k):
            layout = linear.XorLinear(combo)
            if layout.invalid(problem.tile) is None and measure_as_given(problem, layout).excess == xor.excess:
                fewest = k
                break
        if fewest is not None:
            break
    if result.status == "unsat":
        assert fewest is None, "z3 said UNSAT but a member at every target exists"
    else:
        assert measure_as_given(problem, result.layout).excess == xor.excess
        assert len(result.layout.terms) == fewest
    return result.status


def test_linear_unsat_on_8x9_4x2_blocks_is_true():
    assert check_linear_claim(make_problem(4, 9, ["4x2"], banks=8)) == "unsat"


def test_linear_sat_on_the_8x8_diagonal_is_minimal(tmp_path):
    problem = make_problem(8, 8, ["row", "col"], banks=8, phases_files=[diagonal_file(tmp_path, 8)])
    assert check_linear_claim(problem) == "sat"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from([4, 8]), st.sampled_from([4, 6, 8, 9]), st.sampled_from([4, 8]),
       st.lists(st.sampled_from(["row", "col", "2x2", "4x1", "4x2", "2x1:2", "4x4", "8x2"]), min_size=1, max_size=2,
                unique=True))
def test_linear_claims_against_enumeration(rows, cols, banks, accesses):
    try:
        problem = make_problem(rows, cols, accesses, banks=banks)
    except InputError:
        reject()
    xor, _, terms = linear_space(problem)
    assume(xor.seps and terms and len(terms) <= MAX_TERMS)  # what z3 is given at all (search_linear's skips)
    assert check_linear_claim(problem) in ("sat", "unsat")


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from([8, 16]), st.sampled_from([8, 9, 12, 16]), st.sampled_from([8, 32]),
       st.lists(st.sampled_from(["row", "col", "4x2", "8x4", "2x1:2", "8x8"]), min_size=1, max_size=2, unique=True),
       st.randoms(use_true_random=False))
def test_a_refutation_core_blocks_only_refuted_members(rows, cols, banks, accesses, rng):
    """conflict_bits: every linear member that agrees with a refuted one on the terms whose source
    is a core bit is refuted too, whatever its other terms (so min_linear may block them all)."""
    space = refutable_space(rows, cols, banks, accesses)
    assume(space is not None)
    xor, terms = space
    for _ in range(5):
        layout = linear.XorLinear(tuple(sorted(t for t in terms if rng.random() < 0.2)))
        if not xor.refute(layout) or (bits := conflict_bits(xor, layout)) is None:
            continue
        kept = [t for t in layout.terms if t[1] in bits]
        free = [t for t in terms if t[1] not in bits]
        other = linear.XorLinear(tuple(sorted(kept + [t for t in free if rng.random() < 0.5])))
        assert xor.refute(other), (layout.name, sorted(bits), other.name)


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 9), st.data())
def test_storage_assertions_are_exactly_invalid_on_storage(top, data):
    """_on_storage's assertions hold for a member iff linear.invalid_on_storage finds nothing."""
    import z3

    size = data.draw(st.integers(2 ** (top - 1) + 1, 2 ** top))
    targets = sorted(data.draw(st.sets(st.integers(0, top - 2), min_size=1, max_size=3)))
    terms = linear.all_terms(targets, top)
    chosen = tuple(t for t in terms if data.draw(st.booleans()))
    ctx = z3.Context()
    solver = z3.Solver(ctx=ctx)
    x = {t: z3.Bool(smt._term(*t), ctx) for t in terms}
    solver.from_string("".join(f"(declare-const {smt._term(*t)} Bool)" for t in terms)
                       + "".join(smt._on_storage(x, targets, top, size)))
    member = [x[t] if t in chosen else z3.Not(x[t]) for t in terms]
    layout = linear.XorLinear(chosen)
    valid = linear.invalid_on_storage(layout.apply, layout.terms, make_tile(1, size)) is None
    assert (solver.check(*member) == z3.sat) == valid, (size, chosen)


def most_in_one_slot(layout, lemma) -> int:
    shift, mask, _, units = lemma
    slots = [(int(layout.apply(u)) >> shift) & mask for u in units]
    return max(slots.count(s) for s in set(slots))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from([8, 16]), st.sampled_from([8, 9, 12, 16]), st.sampled_from([8, 32]),
       st.lists(st.sampled_from(["row", "col", "4x2", "8x4", "2x1:2", "8x8", "4x4"]), min_size=1, max_size=2,
                unique=True),
       st.randoms(use_true_random=False))
def test_refutation_lemmas_hold_for_every_member_at_the_targets(rows, cols, banks, accesses, rng):
    """conflict_lemmas: a refuted member breaks one of its lemmas (so min_linear makes progress), and
    every member that refute() accepts meets all of them (so an UNSAT answer stays a proof)."""
    space = refutable_space(rows, cols, banks, accesses)
    assume(space is not None)
    xor, terms = space
    if len(terms) <= 10:  # every member: the accepted ones are all there are
        members = [linear.XorLinear(c) for k in range(len(terms) + 1) for c in itertools.combinations(terms, k)]
    else:
        members = [linear.XorLinear(tuple(sorted(t for t in terms if rng.random() < 0.2))) for _ in range(40)]
    accepted = [m for m in members if not xor.refute(m)]
    for layout in rng.sample(members, min(len(members), 40)):
        if not xor.refute(layout) or (lemmas := conflict_lemmas(xor, layout)) is None:
            continue
        assert any(most_in_one_slot(layout, lemma) > lemma[2] for lemma in lemmas), layout.name
        for other in accepted:
            assert all(most_in_one_slot(other, lemma) <= lemma[2] for lemma in lemmas), (layout.name, other.name)


@pytest.mark.parametrize("args", [
    dict(rows=8, cols=9, accesses=["4x2"], banks=8),
    dict(rows=8, cols=8, accesses=["row", "4x2"], banks=8),
    dict(rows=16, cols=16, accesses=["8x1", "2x4"], banks=8),
    dict(rows=8, cols=16, accesses=["col", "row"], banks=8),
])
def test_two_level_smt_agrees_with_enumeration(args):
    problem = make_problem(args["rows"], args["cols"], args["accesses"], banks=args["banks"])
    xor = XorOracle(problem)
    by_enum, _ = search_two_level(problem, Budget(), later_of(problem, first_conflict_free, "enum"))
    by_smt, report = search_two_level(problem, Budget(), later_of(problem, first_conflict_free, "smt"))
    # members at every target: conflict-free, or at the floors (xor.excess, the least any layout leaves)
    enum_cf = [c.layout for c in by_enum if c.excess == xor.excess]
    smt_cf = [c.layout for c in by_smt if c.excess == xor.excess]
    assert (enum_cf[0] if enum_cf else None) == (smt_cf[0] if smt_cf else None)
    for lay in smt_cf:
        assert measure_as_given(problem, lay).excess == xor.excess
    if not smt_cf:  # the UNSAT claim, against the simulator on every member
        assert report.smt["result"] == "unsat"
        for layout in two_level.candidates(problem.tile, vector_elems(problem)):
            assert layout.invalid(problem.tile) is not None or measure_as_given(problem, layout).excess > xor.excess


@pytest.mark.slow  # long: in the slow tier (tests/conftest.py)
def test_z3_is_capped_without_a_timeout(monkeypatch):
    """Without --timeout, z3 stops at budget.SMT_RLIMIT resource units: the family is unknown, the
    answer is what it measures and marked not proven minimal, the status is not "timeout", and the
    outcome is the same however fast the machine or whatever ran before (a z3 context per search)."""
    from swizzle_solver import balance
    from swizzle_solver import budget as extended  # (the z3 budget, SMT_RLIMIT)
    from swizzle_solver.report import solution_json
    from swizzle_solver.solving import solve

    monkeypatch.setattr(extended, "SMT_RLIMIT", 200_000)  # z3 needs more to settle linear here
    monkeypatch.setattr(balance, "MAX_CELLS", 0)  # (the balance condition settles it before z3: off)
    monkeypatch.setattr(balance, "span_refutation", lambda *a: None)  # (nor the span condition, issue 26)
    args = (64, 250, ["8x8", "8x16", "1x8"], None, 4)  # answered by a row interleave, ranked after linear
    problem = make_problem(*args)
    solution = solve(problem)
    linear_report = next(r for r in solution.families if r.family == "linear")
    assert not linear_report.complete and "default budget" in linear_report.covered
    assert solution.answer.layout.family == "row-interleave"
    assert solution.status == "conflict-free" and not solution.timed_out and "linear" in solution.unproven
    assert solution.answer.excess == measure_as_given(problem, solution.answer.layout).excess == 0
    again = solve(make_problem(*args))  # the same bytes, second time round
    assert solution_json(again) == solution_json(solution)


def test_conflict_bits_when_only_one_pattern_fails():
    """Two patterns without a separation (8 banks: both need 2 wavefronts); the identity serves 2x8
    at its bound and 16x1 above its floor (all 16 rows in one bank; 2x8's 16-byte vectors leave 16x1
    two banks, a floor of 8): the core comes from 16x1's placements."""
    problem = make_problem(16, 8, ["2x8", "16x1"], banks=8)
    xor = XorOracle(problem)
    assert [p.spec for p in xor.rest] == ["2x8", "16x1"] and xor.excess == 6
    assert not xor.refute(linear.XorLinear(((2, 3),)))  # rows alternate two banks: 8 per bank, the floor
    assert xor.refute(linear.XorLinear(((0, 3),)))  # the same banks, but it splits 2x8's 16-byte vectors: unsound
    layout = linear.XorLinear(())
    assert xor.refute(layout)
    assert conflict_bits(xor, layout) == {3, 4, 5, 6}  # column 0 of rows 0..15: offsets 8r


def test_a_storage_that_is_not_a_power_of_two_refutes_no_model():
    """16 x 24 i8 at pitch 25: 400 elements. Both patterns have separations, so every model z3 gave
    used to be refuted only for leaving the storage, 64 times, and the answer was not proven minimal.
    With the bijection asserted exactly, z3 proves at once that no linear member is conflict-free."""
    from swizzle_solver.report import solution_json
    from swizzle_solver.solving import solve

    problem = make_problem(16, 24, ["4x4:4", "8x4"], row_length=25, elem_bytes=1)
    free = solve(problem)
    assert free.status == "conflict-free" and free.unproven is None
    assert free.answer.layout.name == "pitch 24"  # the dense rows: the given pitch of 25 is what conflicts
    # the linear family of pitch 25 (without --keep-pitch pitch 24 ranks first, and it is not searched)
    solution = solve(problem, keep_pitch=True)
    assert solution.unproven is None
    smt_proof = next(f for f in solution_json(solution)["proof"]["families"] if f["family"] == "linear")["smt"]
    assert smt_proof["result"] == "unsat" and smt_proof["models_refuted"] == 0
    assert any(c.startswith("storage: offsets 384..399 stay below 400") for c in smt_proof["covered"])


def test_two_level_enumeration_stops_at_the_deadline():
    """--timeout: the enumeration tests members in family order, a batch at a time, until time runs
    out; the family is then incomplete and says how far it got, and its best is among those tested."""
    problem = make_problem(8, 9, ["4x2"], banks=8)
    xor = XorOracle(problem)
    members = two_level.candidates(problem.tile, vector_elems(problem))
    assert len(failures_many(xor, members, Budget())) == len(members)
    expired = Budget(timeout=0.0)
    assert len(failures_many(xor, members, expired)) == 0
    kept, report = search_two_level(problem, expired, later_of(problem, first_conflict_free, "enum"))
    assert not report.complete and report.evaluated == 0 and kept == []
    assert report.covered.startswith(f"cut by the time limit after 0 of {len(members)} distinct pairs")
    full, full_report = search_two_level(problem, Budget(), later_of(problem, first_conflict_free, "enum"))
    assert full_report.complete and full_report.covered.startswith("enumerated all")


def _both_solvers(problem):
    """min_linear (z3's SAT solver first) and the same search on z3's general solver alone
    (smt._linear_session, as it ran before the SAT solver came), each with the default budget."""
    from swizzle_solver.budget import SMT_RLIMIT

    xor, targets, _ = linear_space(problem)
    args = (xor.seps, targets, xor.top, xor.refute)
    options = {"rlimit": SMT_RLIMIT, "core": lambda lay: conflict_bits(xor, lay),
               "lemmas": lambda lay: conflict_lemmas(xor, lay), "storage": problem.tile.size}
    return smt.min_linear(*args, **options), smt._linear_session(*args, **options)


def test_the_sat_solver_finds_what_the_general_solver_finds():
    """Which z3 solver answers changes nothing the search reports: the same member, status, checks
    and proof (min_linear reads only each check's sat/unsat). A 32 x 32 f32 tile read by rows, by
    columns and along the diagonal (examples.toml): 6 terms, 43 checks, no model refuted, so the SAT solver settles it."""
    from tests.golden import ROOT

    problem = make_problem(32, 32, ["row", "col"], phases_files=[str(ROOT / "phases/main-diagonal-32.toml")])
    sat, general = _both_solvers(problem)
    assert sat.status == "sat" and sat.blocked == 0 and sat.checks == 43 and len(sat.layout.terms) == 6
    assert sat.proof() == general.proof() and sat.layout == general.layout


def test_a_refuted_model_hands_the_search_to_the_general_solver(monkeypatch):
    """Past the first refuted model the lemmas slow z3's SAT solver (8 times here), so min_linear
    runs the search again on the general solver: the result is that search's, checks and lemmas
    included. The case of test_z3_is_capped_without_a_timeout (balance conditions off), whole."""
    from swizzle_solver import balance

    monkeypatch.setattr(balance, "MAX_CELLS", 0)
    monkeypatch.setattr(balance, "span_refutation", lambda *a: None)
    sessions = []
    start = smt._Solver.__init__
    monkeypatch.setattr(smt._Solver, "__init__", lambda self, *a: (sessions.append(a[2:]), start(self, *a))[1])
    problem = make_problem(64, 250, ["8x8", "8x16", "1x8"], None, 4)
    sat, general = _both_solvers(problem)
    assert sessions == [("QF_FD",), (None,), (None,)]  # min_linear's two sessions, then _linear_session's
    assert sat.status == "unsat" and sat.blocked >= 1 and sat.lemmas >= 1
    assert sat.proof() == general.proof()
