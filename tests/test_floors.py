"""Floors (floors.py): wavefronts no admissible layout goes below, checked against the simulator on
random admissible layouts (random permutations of aligned chunks of the widest vector) and on every
layout the search reports."""
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st

from swizzle_solver import simulate
from swizzle_solver.api import problem
from swizzle_solver.floors import floors, placement_floors, vector_runs
from swizzle_solver.model import InputError
from swizzle_solver.solving import solve

SPECS = ["row", "col", "8x1", "4x2", "2x4", "8x4", "4x8", "2x16", "8x2:2", "1x8", "8x8", "4x4v8"]


@pytest.mark.parametrize("kw, floor", [
    (dict(rows=32, cols=32, access=["col", "8x4"]), 4),  # 32 rows at word 0 of 16 B vectors, 8 slots
    (dict(rows=64, cols=64, dtype="f16", access=["col", "8x8"]), 4),
    (dict(rows=32, cols=32, dtype="f64", access=["col", "2x2"]), 4),  # 8-byte words of 16 B vectors: 32 / 8
    (dict(rows=16, cols=32, access=["col", "8x4"]), 2),
    (dict(rows=32, cols=32, access=["col", "8x4v8"]), 2),  # 8-byte vectors: 16 slots
])
def test_a_column_under_wide_vectors(kw, floor):
    found = floors(problem(**kw))
    assert found[0].wavefronts == floor and found[0].vectors_of == kw["access"][1] and found[1] is None


def test_a_floor_is_rounded_up():
    """issue 33 item 5 (a mutation that survived every tier): a floor is ceil(n / S), not n / S
    rounded down. 24 x 8 f16: the column puts its 24 rows' 8-byte vectors (8x4 of 2-byte elements) on
    word position 0, and a wavefront has 128 / 8 = 16 slots of them: ceil(24 / 16) = 2, where floor
    division says 1; the answer meets the floor of 2, so it is proven minimal."""
    p = problem(rows=24, cols=8, dtype="f16", access=["col", "8x4"])
    found = floors(p)[0]
    assert found is not None  # (1 wavefront, the lower bound, would be no floor)
    assert (found.vectors, found.slots, found.vector_bytes) == (24, 16, 8)
    assert found.wavefronts == 2
    # each placement's floor (what an instruction's phases are held to) rounds up too: the highest is the floor
    col, vectors = p.patterns
    assert int(placement_floors(p, col, vectors, vector_runs(p, vectors)).max()) == 2
    solution = solve(p)
    assert solution.answer.results[0].worst == 2 and solution.at_floor
    from clirun import solve as cli

    doc = json.loads(cli("--rows", "24", "--cols", "8", "--dtype", "f16", "--access", "col", "--access", "8x4",
                         "--json").stdout)
    assert doc["proof"]["proven_minimal"] is True and doc["proof"]["optimal_over_all_layouts"] is True
    report = cli("--rows", "24", "--cols", "8", "--dtype", "f16", "--access", "col", "--access", "8x4").stdout
    assert "NOT proven" not in report and "meets every floor" in report


@pytest.mark.parametrize("access", [["col", "8x4v4"], ["col", "row"], ["8x8", "8x8:2"], ["8x4", "4x8"]])
def test_no_floor_where_a_layout_reaches_the_lower_bound(access):
    p = problem(32, 32, access, dtype="f16" if "8x8" in access else None)
    assert floors(p) == [None] * len(access)
    assert solve(p).answer.conflict_free


def random_problem(data):
    rows = data.draw(st.sampled_from([8, 16, 32]))
    cols = data.draw(st.sampled_from([8, 16, 24, 32, 40]))
    dtype = data.draw(st.sampled_from(["f16", "f32", "f64", "i8"]))
    pad = data.draw(st.sampled_from([0, 0, 8, 16]))
    banks = data.draw(st.sampled_from([32, 32, 16, 8]))
    access = data.draw(st.lists(st.sampled_from(SPECS), min_size=1, max_size=3, unique=True))
    try:
        return problem(rows, cols, access, row_length=cols + pad, dtype=dtype, banks=banks)
    except InputError:  # bad input (e.g. a footprint wider than the tile): rejected, not a pass
        reject()


def chunk_permutation(p, rng):
    """phys[r, c] of a random admissible layout: aligned chunks of the widest vector, permuted."""
    t = p.tile
    chunk = max(int(q.lane_bytes.max()) for q in p.patterns) // t.elem_bytes
    logical = np.arange(t.rows)[:, None] * t.row_length + np.arange(t.cols)[None, :]
    order = rng.permutation(t.size // chunk)
    return order[logical // chunk] * chunk + logical % chunk


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), st.integers(0, 2**32 - 1))
def test_no_admissible_layout_goes_below_a_floor(data, seed):
    p = random_problem(data)
    found = floors(p)
    phys = chunk_permutation(p, np.random.default_rng(seed))
    assert all(simulate.admissible(p.tile, q, phys) for q in p.patterns)
    for result, floor in zip(simulate.simulate(p.tile, p.hardware, p.patterns, phys), found):
        assert floor is None or result.worst >= floor.wavefronts > result.pattern.lower_bound


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_every_reported_layout_respects_the_floors(data):
    p = random_problem(data)
    found = floors(p)
    solution = solve(p)
    for ranked in [solution.answer] + solution.alternatives:
        for result, floor in zip(ranked.results, found):
            assert floor is None or result.worst >= floor.wavefronts
    if solution.answer.conflict_free:
        assert found == [None] * len(found)


def test_the_report_names_the_floor_and_stops_at_it():
    """col under 8x4's 16-byte vectors: floor 4, met by Swizzle<3,2,3>; nothing beyond xor-cols is searched."""
    import json

    from tests.clirun import solve

    args = ["--rows", "32", "--cols", "32", "--access", "col", "--access", "8x4"]
    doc = json.loads(solve(*args, "--json").stdout)
    col, blocks = doc["problem"]["accesses"]
    assert col["floor"]["wavefronts"] == 4 and col["floor"]["vectors_of"] == "8x4" and blocks["floor"] is None
    assert doc["status"] == "conflicts" and doc["proof"]["optimal_over_all_layouts"]
    assert not doc["search"]["extended"] and "floor" in doc["search"]["not_extended_reason"]
    assert [a["worst_wavefronts"] for a in doc["answer"]["per_access"]] == [4, 1]
    rich = solve(*args)
    assert rich.returncode == 1
    assert "col: at least 4 wavefronts under any layout that keeps the 16-byte vectors of 8x4" in " ".join(
        rich.stdout.split())
    assert "the least any such layout leaves" in " ".join(rich.stdout.split())
    assert "yellow: at the access's floor" in rich.stdout


def test_cells_at_a_floor_are_yellow():
    from swizzle_solver.render import BAD, FLOOR, OK, _wf

    assert [_wf(w, 0, 1, 4).style for w in (1, 4, 5)] == [OK, FLOOR, BAD]
    assert _wf(4, 0, 1).style == BAD  # no floor known: above the bound is red


def test_floors_only_where_the_layout_conflicts():
    """A conflict-free answer needs no floor (none can exceed its bounds); a checked layout that is
    not usable is never called optimal."""
    import json

    from tests.clirun import solve

    base = ["--rows", "32", "--cols", "32", "--json"]
    ok = json.loads(solve(*base, "--access", "8x4").stdout)
    assert ok["problem"]["accesses"][0]["floor"] is None and ok["proof"]["optimal_over_all_layouts"]
    at_floor = solve(*base[:-1], "--access", "col", "--access", "8x4", "--check", "Swizzle<3,2,3>")
    assert at_floor.returncode == 1 and "no layout that keeps the vectors whole leaves fewer" in " ".join(
        at_floor.stdout.split())
    bad = json.loads(solve(*base, "--access", "col", "--access", "8x4", "--check", "Swizzle<3,1,3>").stdout)
    assert bad["check"]["invalid"] and not bad["proof"]["optimal_over_all_layouts"]
    assert bad["problem"]["accesses"][0]["floor"]["wavefronts"] == 4


def test_the_later_families_aim_at_the_floors():
    """64x40 f64, pitch 48: col's floor (4) is above its lower bound (2), and the best of none / cute /
    xor-cols leaves 3 excess, above the floors' 2. The later families then look for members at every
    floor (col at 4, the others at their lower bounds) rather than for conflict-free ones, which
    cannot exist: two swizzles reach it, and so does a linear member (z3: sat). (Two-level at the
    floors ranks before every later member in no less storage: a plain solve skips those families,
    --exhaustive searches them.)"""
    from swizzle_solver.solving import solve

    p = problem(64, 40, ["2x2:2", "2x8:2", "col"], row_length=48, elem_bytes=8)
    # the given pitch (without --keep-pitch, a narrower pitch reaching the floors wins: below)
    plain = solve(p, keep_pitch=True)
    # two-level at the floors ranks before every later member in no less storage: skipped
    assert [f.family for f in plain.families if not f.searched] == ["linear", "row-interleave", "column-panels"]
    assert all("least excess any layout can (2)" in f.covered for f in plain.families if not f.searched)
    s = solve(p, exhaustive=True, keep_pitch=True)
    assert s.answer.layout == plain.answer.layout
    families = {f.family: f for f in s.families}
    assert s.extended and s.answer.layout.family == "two-level"
    assert [r.worst for r in s.answer.results] == [1, 1, 4] and s.answer.excess == 2 and s.unproven is None
    assert families["cute"].best_excess == 3
    assert families["linear"].complete and families["linear"].best_excess == 2
    assert "padding" not in families  # --keep-pitch: no other row length is a candidate
    free = solve(p)
    # the pitches below 48 are searched in every family for a layout at every floor: at pitch 40 (no
    # padding) two swizzles reach them (issue 21: a swizzle alone needs pitch 44); the pitches above
    # 48 (padding's) need more storage than two-level at 48 and are not searched
    assert free.answer.excess == 2 and free.answer.storage_bytes < s.answer.storage_bytes  # the padding dropped
    pitch, inner = free.answer.layout.padded_form(p.tile)
    assert pitch == 40 and inner.family == "two-level"
    assert not {f.family: f for f in free.families}["padding"].searched and free.unproven is None
    # at 48 the later families are then not searched (pitch 40 ranks first): the best found there is
    # a swizzle that leaves 3, and the "pitch 48 as given" line names the families not searched
    assert free.at_given_pitch is not None and free.at_given_pitch.excess == 3
    assert "two-level" in free.given_unsearched


def test_a_pattern_at_its_floor_is_not_asked_for_one_wavefront():
    """col (f64, 16-byte vectors of warp:4x8:1x4) has a separation but a floor of 4: the two-level
    search checks it against its floor, and finds the pair that also serves the warp in one."""
    from swizzle_solver.solving import solve

    s = solve(problem(32, 64, ["col", "warp:4x8:1x4"], elem_bytes=8))
    assert s.answer.layout.name == "Swizzle<1,1,3> then Swizzle<3,1,5>"
    assert [r.worst for r in s.answer.results] == [4, 1]
