"""Issue 16: the later families stop when nothing can win, and the two-level failure counts
through the Walsh-Hadamard transform agree with a direct count."""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from swizzle_solver.access import make_problem
from swizzle_solver.candidate import vector_elems
from swizzle_solver.families import two_level
from swizzle_solver.families.two_level import failures_many, walsh
from swizzle_solver.model import InputError
from swizzle_solver.oracle import XorOracle
from tests import clirun

ROOT = Path(__file__).resolve().parents[1]
# two-level answers conflict-free: linear, row-interleave and padding cannot rank before it
TWO_LEVEL = ["--rows", "64", "--cols", "64", "--dtype", "f16", "--access", "8x8v4", "--access", "row",
             "--access", "col"]


def problem_or_reject(*args, **kwargs):
    """make_problem(...), or hypothesis rejects the example (an access larger than the tile)."""
    try:
        return make_problem(*args, **kwargs)
    except InputError:
        assume(False)


def run(*args):
    return clirun.solve(*args)  # in this process (tests/clirun.py)


def direct_failures(oracle, members):
    out = []
    for m in members:
        out.append(sum(int(np.count_nonzero(((m.apply(s.diffs) >> s.unit_shift) & s.slot_mask) == 0))
                       for s in oracle.seps))
    return np.array(out, dtype=np.int64)


@settings(max_examples=15, deadline=None)
@given(rows=st.sampled_from([8, 16, 32]), cols=st.sampled_from([8, 12, 16, 24, 32]), pad=st.sampled_from([0, 1, 4]),
       accesses=st.lists(st.sampled_from(["row", "col", "4x2", "8x1", "2x8", "8x4:2", "4x4"]), min_size=1,
                         max_size=3, unique=True))
def test_failures_many_counts_what_each_member_sends_to_slot_zero(rows, cols, pad, accesses):
    problem = problem_or_reject(rows, cols, accesses, row_length=cols + pad, elem_bytes=4)
    oracle = XorOracle(problem)
    assume(any(s.diffs.size for s in oracle.seps))
    members = two_level.candidates(problem.tile, vector_elems(problem))[:300]
    assert np.array_equal(failures_many(oracle, members), direct_failures(oracle, members))


def test_walsh_is_the_sum_of_characters():
    diffs = np.array([1, 5, 6, 13])
    w = walsh(diffs, 4)
    assert w.tolist() == [sum((-1) ** bin(v & d).count("1") for d in diffs.tolist()) for v in range(16)]


def test_families_that_cannot_win_are_not_searched_and_z3_is_not_imported():
    code = ("import sys; from swizzle_solver.api import solve\n"
            "r = solve(rows=64, cols=64, dtype='f16', access=['8x8v4', 'row', 'col'])\n"
            "print(r.solution.answer.layout.family, 'z3' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["two-level", "False"]  # linear (z3) was not searched
    doc = json.loads(run(*TWO_LEVEL, "--json").stdout)
    entries = {f["family"]: f for f in doc["proof"]["families"]}
    assert entries["two-level"]["reaches_lower_bound"] and entries["two-level"].get("searched", True)
    for family in ("linear", "row-interleave", "padding", "column-panels"):
        assert entries[family]["searched"] is False
        assert entries[family]["covered"].startswith("not searched: ") and "ranks before every" in entries[family]["covered"]
    rich = run(*TWO_LEVEL).stdout
    assert sum("not searched:" in line for line in rich.splitlines()) == 4


def test_exhaustive_searches_every_family_and_keeps_the_answer():
    plain, full = (json.loads(run(*TWO_LEVEL, *extra, "--json").stdout) for extra in ([], ["--exhaustive"]))
    assert plain["answer"]["name"] == full["answer"]["name"]
    assert all(f.get("searched", True) for f in full["proof"]["families"])
    assert {f["family"] for f in full["proof"]["families"]} == {f["family"] for f in plain["proof"]["families"]}


@pytest.mark.parametrize("exhaustive", [False, True])
def test_api_exhaustive(exhaustive):
    from swizzle_solver.api import solve

    result = solve(rows=64, cols=64, dtype="f16", access=["8x8v4", "row", "col"], exhaustive=exhaustive)
    skipped = [f.family for f in result.solution.families if not f.searched]
    assert skipped == ([] if exhaustive else ["linear", "row-interleave", "padding", "column-panels"])


@pytest.mark.slow  # over a second of CPU: in the slow tier (tests/conftest.py)
def test_a_layout_in_less_storage_skips_the_later_families_of_the_given_pitch():
    # 16 x 96 f32 at pitch 97: pitch 96 + Swizzle<3,2,4> (the pitches below the given one are
    # searched first) needs less storage than any member of pitch 97, so, storage ranking before the
    # family, no later family there can rank first (nor padding's, above it): each is skipped and
    # says why; --exhaustive searches them, and the answer stays
    from swizzle_solver.api import solve

    result = solve(rows=16, cols=96, row_length=97, dtype="f32", access=["16x4", "8x1:2"])
    assert result.name == "pitch 96 + Swizzle<3,2,4>"
    families = {f.family: f for f in result.solution.families}
    for name in ("two-level", "linear", "row-interleave", "padding", "column-panels"):
        assert not families[name].searched and "in less storage" in families[name].covered, name
    exhaustive = solve(rows=16, cols=96, row_length=97, dtype="f32", access=["16x4", "8x1:2"], exhaustive=True)
    assert exhaustive.name == result.name and all(f.searched for f in exhaustive.solution.families)


def test_two_level_members_come_in_family_order():
    # two_level._best_effort's stable sort on failures relies on it
    problem = make_problem(64, 60, ["8x1", "8x16", "col"], elem_bytes=2)
    members = two_level.candidates(problem.tile, vector_elems(problem))
    orders = [m.order for m in members]
    assert len(members) > 1000 and all(a < b for a, b in zip(orders, orders[1:], strict=False))


# The two-level screen's fast paths (issue 16), each against the direct computation.

def tiles(max_rows=64, max_cols=64):
    return st.tuples(st.sampled_from([8, 16, 24, 32, 64]).filter(lambda r: r <= max_rows),
                     st.integers(8, max_cols), st.integers(0, 9), st.sampled_from([1, 2, 4]))


def direct_pairs(tile, vector_elems):
    """Every ordered pair of different swizzles in family order, kept when its map on the offset
    bits (Python ints, bit by bit) is new: the family's definition, without numpy."""
    from swizzle_solver.families import cute

    singles = cute.candidates(tile, vector_elems)
    bits = [1 << b for b in range(tile.offset_bits)]
    seen = {tuple(bits)} | {tuple(sw.apply(b) for b in bits) for sw in singles}
    out = []
    for a, b in sorted(((a, b) for a in singles for b in singles if a != b),
                       key=lambda ab: (ab[0].B + ab[1].B, ab[0].order, ab[1].order)):
        image = tuple(b.apply(a.apply(x)) for x in bits)
        if image not in seen:
            seen.add(image)
            out.append(two_level.TwoLevel(a, b))
    return out


@settings(max_examples=12, deadline=None)
@given(shape=tiles(max_rows=32, max_cols=40), vector=st.sampled_from([1, 2, 4]))
def test_two_level_pairs_are_the_distinct_maps_in_family_order(shape, vector):
    rows, cols, pad, elem = shape
    tile = make_problem(rows, cols, ["row"], row_length=cols + pad, elem_bytes=elem).tile
    assert two_level.candidates(tile, vector) == direct_pairs(tile, vector)


@settings(max_examples=15, deadline=None)
@given(shape=tiles(), accesses=st.lists(st.sampled_from(["row", "col", "4x2", "8x1", "2x8", "8x4:2", "4x4", "8x8"]),
                                         min_size=1, max_size=3, unique=True), data=st.data())
def test_failures_many_on_any_members(shape, accesses, data):
    # members from anywhere in the family (the cross terms of the later pairs), not only its start
    rows, cols, pad, elem = shape
    problem = problem_or_reject(rows, cols, accesses, row_length=cols + pad, elem_bytes=elem)
    oracle = XorOracle(problem)
    assume(any(s.diffs.size for s in oracle.seps))
    members = two_level.pairs(problem.tile, vector_elems(problem))
    assume(len(members))
    which = data.draw(st.lists(st.integers(0, len(members) - 1), min_size=1, max_size=200))
    picked = [members[i] for i in which]
    assert np.array_equal(failures_many(oracle, picked), direct_failures(oracle, picked))


@settings(max_examples=25, deadline=None)
@given(shape=tiles(max_rows=64, max_cols=100), data=st.data())
def test_partial_block_reads_one_offset_per_low_block(shape, data):
    # invalid() of two-level (and cute) checks one offset per 2^(lowest target bit): the same
    # answer and the same first offset as every offset of the partial block
    from swizzle_solver.families import cute
    from swizzle_solver.layout import partial_block_invalid

    rows, cols, pad, elem = shape
    tile = make_problem(rows, cols, ["row"], row_length=cols + pad, elem_bytes=elem).tile
    members = two_level.candidates(tile, 1)
    assume(members)
    for i in data.draw(st.lists(st.integers(0, len(members) - 1), min_size=1, max_size=30)):
        m = members[i]
        targets = [t for t, _ in m.terms()]
        assert m.invalid(tile) == partial_block_invalid(m.apply, 1 << (max(targets) + 1), tile)
    for sw in cute.candidates(tile, 1):
        assert sw.invalid(tile) == partial_block_invalid(sw.apply, 1 << sw.mask.bit_length(), tile)


@settings(max_examples=25, deadline=None)
@given(shape=tiles(max_rows=64, max_cols=100), within=st.integers(0, 16))
def test_xor_cols_invalid_is_the_direct_check(shape, within):
    from swizzle_solver.families import xor_cols

    rows, cols, pad, elem = shape
    tile = make_problem(rows, cols, ["row"], row_length=cols + pad, elem_bytes=elem).tile
    for m in xor_cols.candidates(tile, 1):
        limit = cols + within
        expected = None
        for x in sorted({m.xor_of_row(r) for r in range(rows)}):
            worst = max(c ^ x for c in range(cols))
            if worst >= limit:
                expected = f"column {worst ^ x} XOR {x} = {worst} leaves the {limit}-column row"
                break
        assert m.invalid(tile, within=limit) == expected


NO_TWO_LEVEL = st.lists(st.sampled_from(["8x1", "8x16", "col", "row", "16x2", "8x4:2", "4x8"]), min_size=2, max_size=3,
                        unique=True)


@settings(max_examples=12, deadline=None)
@given(rows=st.sampled_from([16, 32, 64]), cols=st.integers(20, 64), accesses=NO_TWO_LEVEL)
def test_two_level_screens_and_best_effort_match_the_direct_search(rows, cols, accesses):
    # the search (failures, the placement-at-a-time sample, the best effort's bound) against the
    # same search done directly: every sampled placement at once, every best-effort member measured
    from swizzle_solver.budget import Budget
    from swizzle_solver.candidate import KEEP_PER_FAMILY, best
    from swizzle_solver.extended import later_of
    from swizzle_solver.families.two_level import BEST_EFFORT, sample_passes
    from swizzle_solver.families.two_level import search as search_two_level
    from swizzle_solver.narrower import sound_measured
    from swizzle_solver.sampling import placement_sample, sampled_worsts
    from swizzle_solver.search import first_conflict_free

    problem = problem_or_reject(rows, cols, accesses, elem_bytes=2)
    later = later_of(problem, first_conflict_free)
    oracle = later.oracle
    members = two_level.pairs(problem.tile, vector_elems(problem))
    failures = failures_many(oracle, members)
    separated = np.flatnonzero(failures == 0)
    direct = np.ones(len(separated), dtype=bool)
    for pattern in oracle.rest:
        worst = sampled_worsts(problem, two_level.FAMILY_RECORD, members.grid(separated), pattern,
                               placement_sample(problem.tile, pattern))
        direct &= worst <= oracle.target[pattern]
    assert np.array_equal(sample_passes(oracle, members, separated), direct)
    kept, _ = search_two_level(problem, Budget(), later)
    found = [members[i] for i in separated[direct].tolist() if not oracle.refute(members[i])]
    assume(not found)  # the best effort's case
    picked = []
    for i in np.argsort(failures, kind="stable").tolist():
        measured = sound_measured(problem, members[i])
        if measured is not None:
            picked.append(measured)
            if len(picked) == BEST_EFFORT:
                break
    want = best(picked, KEEP_PER_FAMILY)
    assert [(c.layout, c.excess) for c in kept] == [(c.layout, c.excess) for c in want]
    assert all(c.measured for c in kept)


# Padding (issue 16 item 2) and the lane differences, against the direct computation.

def direct_padding(problem, later):
    """Padding's search as first written: every sound plain pitch measured whole, in order."""
    from swizzle_solver.candidate import best
    from swizzle_solver.candidate import found as found_candidate
    from swizzle_solver.families import cute, padding, xor_cols
    from swizzle_solver.families.identity import Identity
    from swizzle_solver.model import Problem
    from swizzle_solver.narrower import sound_measured
    from swizzle_solver.value import replace

    tile, target, least = problem.tile, later.oracle.target, later.oracle.excess
    vbytes = max(int(p.lane_bytes.max()) for p in problem.patterns)
    plain = swizzled = None
    closest, invalid, evaluated = [], 0, 0
    for pitch in padding.pitches(tile, vbytes, problem.hardware.wavefront_bytes):
        if pitch < tile.row_length:
            continue  # the pitches below the given one are solving.py's (narrower.py), not padding's
        measured = sound_measured(problem, padding.Padded(pitch, Identity()))
        if measured is None:
            invalid += 1
            continue
        evaluated += 1
        if measured.excess == least:
            plain = measured
            break
        closest.append(measured)
        if swizzled is None:
            padded = Problem(replace(tile, row_length=pitch), problem.hardware, problem.patterns)
            first = later.base(padded, (cute.FAMILY_RECORD, xor_cols.FAMILY_RECORD), None, target=target,
                               invalid=lambda inner, pitch=pitch: padding.Padded(pitch, inner).invalid(tile))
            if first is not None:
                swizzled = found_candidate(problem, least, padding.Padded(pitch, first.layout))
    kept = [c for c in (swizzled, plain) if c is not None] or best(closest, 1)
    return [(c.layout, c.excess) for c in kept], invalid, evaluated


@settings(max_examples=20, deadline=None)
@given(rows=st.sampled_from([8, 16, 32]), cols=st.integers(8, 48), pad=st.integers(0, 5), elem=st.sampled_from([2, 4]),
       accesses=st.lists(st.sampled_from(["row", "col", "8x1", "4x8", "16x2", "8x4:2", "8x16", "2x16", "8x2v8"]),
                         min_size=1, max_size=3, unique=True))
def test_padding_search_is_the_direct_search(rows, cols, pad, elem, accesses):
    from swizzle_solver.budget import Budget
    from swizzle_solver.extended import later_of
    from swizzle_solver.families.padding import search as search_padding
    from swizzle_solver.search import first_conflict_free

    problem = problem_or_reject(rows, cols, accesses, row_length=cols + pad, elem_bytes=elem)
    later = later_of(problem, first_conflict_free)
    kept, report = search_padding(problem, Budget(), later)
    assert ([(c.layout, c.excess) for c in kept], report.invalid, report.evaluated) == direct_padding(problem, later)
    assert all(c.measured for c in kept if c.layout.inner.family == "none")


@settings(max_examples=25, deadline=None)
@given(rows=st.sampled_from([8, 16, 32, 64, 128]), cols=st.integers(8, 130), pad=st.integers(0, 9),
       elem=st.sampled_from([1, 2, 4]),
       access=st.sampled_from(["row", "col", "8x1", "4x8", "16x2", "8x4:2", "2x16", "1x32", "8x8"]))
def test_lane_differences_of_distinct_placements_are_all_of_them(rows, cols, pad, elem, access):
    from swizzle_solver import separation

    problem = problem_or_reject(rows, cols, [access], row_length=cols + pad, elem_bytes=elem)
    tile, pattern = problem.tile, problem.patterns[0]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(separation, "DISTINCT_FIRST", 1 << 62)
        direct = separation._separation(tile, problem.hardware, pattern)
        assume(direct is not None)
        patch.setattr(separation, "DISTINCT_FIRST", 0)
        assert np.array_equal(separation._separation(tile, problem.hardware, pattern).diffs, direct.diffs)


def test_distinct_rows_keeps_rows_whose_hashes_collide(monkeypatch):
    from swizzle_solver import separation

    rows = np.array([[0, 1, 2], [0, 2, 1], [0, 1, 2], [0, 3, 0]], dtype=np.int64)
    monkeypatch.setattr(separation, "_WEIGHTS", np.ones(8, dtype=np.int64))  # every row above sums to 3
    got = {tuple(r) for r in separation.distinct_rows(rows).tolist()}
    assert got == {(0, 1, 2), (0, 2, 1), (0, 3, 0)}


@settings(max_examples=20, deadline=None)
@given(rows=st.sampled_from([8, 16, 32, 64]), cols=st.integers(8, 96), pad=st.integers(0, 5), elem=st.sampled_from([2, 4]),
       accesses=st.lists(st.sampled_from(["row", "col", "8x1", "4x8", "16x2", "8x16", "8x2v8"]), min_size=1, max_size=3,
                         unique=True))
def test_base_screen_is_the_direct_screen(rows, cols, pad, elem, accesses):
    # Screen.passes (uint32 differences, sampling only the members still alive) against every
    # member screened on every pattern in int64
    from swizzle_solver.families import apply_many, base
    from swizzle_solver.sampling import placement_sample, sampled_worsts
    from swizzle_solver.search import Screen, screened

    problem = problem_or_reject(rows, cols, accesses, row_length=cols + pad, elem_bytes=elem)
    screen = Screen(problem)
    for family in base():
        params, _ = screened(family, problem.tile, vector_elems(problem))
        want = np.ones(len(params), dtype=bool)
        if family.apply_many is not None and screen.diffs.size and params:
            images = apply_many(family, params, screen.diffs)
            want &= np.all((images >> screen.unit_shift) & screen.slot_mask, axis=-1)
        for pattern, separated in zip(problem.patterns, screen.separated, strict=True):
            if params and not (separated and family.apply_many is not None):
                sample = placement_sample(problem.tile, pattern)
                want &= sampled_worsts(problem, family, params, pattern, sample) <= screen.target[pattern]
        assert np.array_equal(screen.passes(family, params), want)


def test_xor_cols_invalid_of_names_past_int64():
    # --check takes B, M, a up to 31 each: the vectorised check must not allocate by 2^(B + M) nor overflow
    from swizzle_solver.families.xor_cols import XorCols
    from swizzle_solver.model import Tile

    tile = Tile(8, 24, 24, 4)
    assert XorCols(4, 31, 0).invalid(tile) == "column 23 XOR 2147483648 = 2147483671 leaves the 24-column row"
    assert XorCols(31, 31, 31).invalid(tile) is None  # every row's bits above 31 are 0: XOR 0
    assert XorCols(3, 2, 1).invalid(tile) == "column 23 XOR 8 = 31 leaves the 24-column row"


# The tail of the 512-row tiles (issue 16): two-level's soundness without tables, row interleave
# measuring only the members that can enter its best three.

ACCESSES = st.lists(st.sampled_from(["row", "col", "8x1", "8x16", "8x4:2", "4x8", "2x8", "8x8v4", "16x4", "1x8"]),
                    min_size=1, max_size=3, unique=True)
ROW_INTERLEAVE_TILES = dict(rows=st.sampled_from([8, 16, 24, 32, 48, 64]), cols=st.integers(8, 80),
                            pad=st.sampled_from([0, 1, 2, 6]), elem=st.sampled_from([1, 2, 4]))


@settings(max_examples=40, deadline=None)
@given(shape=tiles(max_rows=64, max_cols=100), accesses=ACCESSES, data=st.data())
def test_quick_soundness_is_the_table_check(shape, accesses, data):
    from swizzle_solver.families import row_interleave
    from swizzle_solver.soundness import QuickSoundness, soundness

    rows, cols, pad, elem = shape
    problem = problem_or_reject(rows, cols, accesses, cols + pad, elem)
    check = QuickSoundness(problem)
    members = two_level.pairs(problem.tile, 1)  # vector 1: members that split vectors too
    picks = data.draw(st.lists(st.integers(0, max(0, len(members) - 1)), max_size=30)) if len(members) else []
    for k in picks:
        m = members[k]
        low = min(t for t, _ in m.terms())
        assert (check.xor(m, low) is not None) == (soundness(problem.tile, m, problem.patterns) is None), m.name
    for m in row_interleave.candidates(problem.tile, 1):
        assert (check.rows(m) is not None) == (soundness(problem.tile, m, problem.patterns) is None), m.name


@settings(max_examples=25, deadline=None)
@given(**ROW_INTERLEAVE_TILES, accesses=ACCESSES)
def test_row_interleave_best_is_every_sound_member_measured(rows, cols, pad, elem, accesses):
    from swizzle_solver.budget import Budget
    from swizzle_solver.candidate import KEEP_PER_FAMILY, best
    from swizzle_solver.extended import later_of, sampled_excess
    from swizzle_solver.families import row_interleave
    from swizzle_solver.families.row_interleave import search as search_row_interleave
    from swizzle_solver.layout import layout_table
    from swizzle_solver.narrower import sound_measured
    from swizzle_solver.search import first_conflict_free

    problem = problem_or_reject(rows, cols, accesses, cols + pad, elem)
    kept, report = search_row_interleave(problem, Budget(), later_of(problem, first_conflict_free))
    every = [sound_measured(problem, m) for m in row_interleave.candidates(problem.tile, vector_elems(problem))]
    measured = [c for c in every if c is not None]
    assume(measured)
    want = best(measured, KEEP_PER_FAMILY)
    assert [(c.layout, c.excess) for c in kept] == [(c.layout, c.excess) for c in want]
    assert all(c.measured for c in kept) and report.evaluated == len(measured)
    for c in measured:  # the bound the search orders by is one
        assert sampled_excess(problem, layout_table(problem.tile, c.layout)) <= c.excess


def test_quick_soundness_of_row_permutations_on_an_odd_pitch(tmp_path):
    # 4-byte lanes on an odd pitch of f16 are aligned only where r * 9 + c is even: a row
    # permutation keeps them whole only if it sends rows 0 and 3 to rows of their parity
    from swizzle_solver.families import row_interleave
    from swizzle_solver.soundness import QuickSoundness, soundness

    lanes = "[0, 0, 4], [3, 1, 4]"  # offsets 0 and 28
    (tmp_path / "p.toml").write_text(f'[[pattern]]\nname = "odd"\nphases = [[{lanes}]]\n')
    problem = make_problem(8, 9, [], None, 2, phases_files=[str(tmp_path / "p.toml")])
    check = QuickSoundness(problem)
    answers = {m.name: check.rows(m) is not None for m in row_interleave.candidates(problem.tile, 1)}
    assert answers == {m.name: soundness(problem.tile, m, problem.patterns) is None
                       for m in row_interleave.candidates(problem.tile, 1)}
    assert True in answers.values() and False in answers.values()


@settings(max_examples=30, deadline=None)
@given(words=st.lists(st.lists(st.integers(-64, 1 << 12), min_size=1, max_size=40), min_size=1, max_size=20),
       banks=st.sampled_from([1, 2, 3, 8, 32, 64, 96]))
def test_placement_costs_count_distinct_words_per_bank(words, banks):
    # the simulator's count (a bank by & for powers of two) against the definition, row by row
    from swizzle_solver.simulate import placement_costs

    k = min(len(row) for row in words)
    rows = [row[:k] for row in words]
    direct = [max(len({w for w in row if w % banks == b}) for b in range(banks)) for row in rows]
    assert placement_costs(np.array(rows, dtype=np.int64), banks).tolist() == direct


@pytest.mark.parametrize("access", [["8x1", "8x16", "col"], ["row", "col"], ["8x8"]])
def test_the_tables_baseline_is_the_identity_measured(access):
    # the table reuses the identity's measurement when the answer or a runner-up is the identity
    from swizzle_solver import api
    from swizzle_solver.candidate import measure_as_given
    from swizzle_solver.families.identity import Identity

    solution = api.solve(rows=64, cols=58, dtype="f16", access=access).solution
    direct = measure_as_given(solution.problem, Identity())
    got = solution.baseline
    assert got.layout == Identity() and got.excess == direct.excess and got.storage_bytes == direct.storage_bytes
    assert [r.costs.tolist() for r in got.results] == [r.costs.tolist() for r in direct.results]


@settings(max_examples=20, deadline=None)
@given(shape=tiles(max_rows=64, max_cols=100), accesses=ACCESSES)
def test_base_search_hands_on_what_it_measured(shape, accesses):
    # where no pattern is decided by one placement, the branch and bound simulates every kept
    # member whole: it hands on the measurement (the table does not repeat it), equal to measure_as_given()
    from swizzle_solver.candidate import measure_as_given
    from swizzle_solver.families import base
    from swizzle_solver.sampling import one_placement_decides
    from swizzle_solver.search import search_family

    rows, cols, pad, elem = shape
    problem = problem_or_reject(rows, cols, accesses, cols + pad, elem)
    whole = not any(one_placement_decides(problem.tile, p) for p in problem.patterns)
    for family in base():
        kept, _ = search_family(problem, family)
        for c in kept:
            direct = measure_as_given(problem, c.layout)
            assert c.measured == whole and c.excess == direct.excess
            if whole:
                assert [r.costs.tolist() for r in c.results] == [r.costs.tolist() for r in direct.results]


@settings(max_examples=25, deadline=None)
@given(shape=tiles(max_rows=64, max_cols=100), accesses=ACCESSES, keep=st.sampled_from([1, 3, 5]),
       conflict_free=st.booleans())
def test_base_family_search_keeps_the_best_members_measured_one_by_one(shape, accesses, keep, conflict_free):
    # search_family stops in family order once `keep` members are conflict-free, else bounds every
    # member: either way its kept members are the best `keep` of every sound member, each measured
    from swizzle_solver.candidate import measure_as_given
    from swizzle_solver.families import base
    from swizzle_solver.search import search_family
    from swizzle_solver.soundness import soundness

    rows, cols, pad, elem = shape
    problem = problem_or_reject(rows, cols, accesses, cols + pad, elem)
    for family in base():
        members = [family.make(*t) for t in family.grid(problem.tile, vector_elems(problem))]
        direct = sorted((measure_as_given(problem, m).excess, m.order, m.name) for m in members
                         if soundness(problem.tile, m, problem.patterns) is None)[:keep]
        kept, report = search_family(problem, family, keep=keep, conflict_free=conflict_free)  # (only the batching differs)
        assert [(c.excess, c.layout.order, c.layout.name) for c in kept] == direct
        # it stops early exactly when `keep` sound members are conflict-free; else it covered them all
        stopped = len(direct) == keep and direct[-1][0] == 0
        assert report.covered.startswith("the first" if stopped else "all"), report.covered


def test_base_family_search_stops_at_the_first_conflict_free_members():
    # 32 x 33 f32, a warp reads a column: cute's first 3 conflict-free members are among its first 5
    # of 125; the search measures no more than those and keeps what measuring every member keeps
    from swizzle_solver.candidate import measure_as_given
    from swizzle_solver.families import record
    from swizzle_solver.search import search_family
    from swizzle_solver.soundness import soundness

    problem = make_problem(32, 33, ["32x1"], 33, 4)
    family = record("cute")
    kept, report = search_family(problem, family)
    members = [family.make(*t) for t in family.grid(problem.tile, vector_elems(problem))]
    direct = sorted((measure_as_given(problem, m).excess, m.order) for m in members
                    if soundness(problem.tile, m, problem.patterns) is None)[:3]
    assert [(c.excess, c.layout.order) for c in kept] == direct and direct[-1][0] == 0
    assert report.covered.startswith("the first 3 conflict-free members") and report.evaluated <= 5 < len(members)


@settings(max_examples=20, deadline=None)
@given(**ROW_INTERLEAVE_TILES, accesses=ACCESSES)
def test_best_bounded_keeps_the_best_under_the_weakest_bound(rows, cols, pad, elem, accesses):
    # With every bound 0 (a true lower bound, but one that orders nothing), _best_bounded may skip no
    # member that could enter the best: it must still return the best `keep` of every member
    # measured. A search that stopped after `keep` measured members would return the first ones.
    from unittest import mock

    from swizzle_solver import extended
    from swizzle_solver.candidate import KEEP_PER_FAMILY, best, measure
    from swizzle_solver.families import row_interleave
    from swizzle_solver.soundness import sound as check

    problem = problem_or_reject(rows, cols, accesses, cols + pad, elem)
    checked = [check(problem.tile, m, problem.patterns) for m in row_interleave.candidates(problem.tile, vector_elems(problem))]
    sound = [s for s in checked if s is not None]
    assume(len(sound) > KEEP_PER_FAMILY)
    want = best([measure(problem, s) for s in sound], KEEP_PER_FAMILY)
    with mock.patch.object(extended, "sampled_excess", lambda problem, table: 0):
        got = extended.best_bounded(problem, sound, KEEP_PER_FAMILY)
    assert [(c.layout, c.excess) for c in got] == [(c.layout, c.excess) for c in want]
