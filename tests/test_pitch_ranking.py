"""Issue 21, wrong claim 1: a given padded pitch hid a layout with less storage, and the answer still
said "minimal". The ranking (excess, then storage, then family: DESIGN.md section 2) holds over every
family at every pitch the search may choose, or the answer says it is not proven minimal and names
the pitches it did not search (``unproven``, ``unsearched_pitches``).

The oracle: a solve with --keep-pitch at each pitch the search may choose (padding.pitches and the
given one) is the best that pitch has; the answer must rank no worse on (excess, storage) than any
of them, unless it names that pitch."""
import json
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, reject, settings
from hypothesis import strategies as st

from swizzle_solver import api
from swizzle_solver.access import make_hardware, make_problem, make_tile
from swizzle_solver.access.triton_layout import load_linear_layout
from swizzle_solver.budget import Budget
from swizzle_solver.families.padding import other_pitches
from swizzle_solver.model import InputError, Problem
from swizzle_solver.names import parse_layout
from swizzle_solver.solving import solve
from swizzle_solver.value import replace
from tests import clirun

ROOT = Path(__file__).resolve().parents[1]
TRITON = ROOT / "tests" / "data" / "triton"

WARPS_72 = ["--rows", "32", "--cols", "64", "--dtype", "f32", "--access", "warp:4x8:1x8", "--access",
            "warp:32x1:1x4"]
# Triton register layouts of a tile written by one layout and read by its transpose-like partner
# (tests/data/triton: #blocked layouts as Triton's linear layouts, JSON form)
TRITON_16 = ["--rows", "16", "--cols", "16", "--dtype", "f32", "--linear-layout", str(TRITON / "blocked-16x16-t4x8.json"),
             "--linear-layout", str(TRITON / "blocked-16x16-s2x1-t8x4.json")]
TRITON_64 = ["--rows", "64", "--cols", "128", "--dtype", "i8",
             "--linear-layout", str(TRITON / "blocked-64x128-t1x32.json"),
             "--linear-layout", str(TRITON / "blocked-64x128-s2x16-t8x4-col.json")]


def cli(*args):
    out = clirun.solve(*args, env={"COLUMNS": "200"})  # in this process (tests/clirun.py)
    assert out.returncode in (0, 1), out.stderr
    return out


def cli_json(*args):
    out = cli(*args, "--json")
    return out.returncode, json.loads(out.stdout)


def at_pitch(problem: Problem, pitch: int) -> Problem:
    return Problem(replace(problem.tile, row_length=pitch), problem.hardware, problem.patterns)


def assert_ranks_first_over_every_pitch(problem: Problem):
    """The answer against the best of each pitch the search may choose (a --keep-pitch solve there):
    none ranks before it on (excess, storage), unless the answer names that pitch as not searched
    (or, at the given pitch, says what it did not cover there)."""
    solution = solve(problem, table=False)
    answer = solution.answer
    below, above = other_pitches(problem)
    for pitch in below + [problem.tile.row_length] + above:
        best = solve(at_pitch(problem, pitch), keep_pitch=True, table=False).answer
        if (best.excess, best.storage_bytes) >= (answer.excess, answer.storage_bytes):
            continue
        if pitch == problem.tile.row_length:
            assert solution.unproven, (best.layout.name, answer.layout.name)
        else:
            assert pitch in solution.unsearched_pitches, (pitch, best.layout.name, best.excess, answer.layout.name,
                                                          answer.excess, solution.unproven)
            assert solution.unproven
    return solution


# --- the reproducers ------------------------------------------------------------------------


def test_a_given_pitch_72_drops_its_padding_for_two_swizzles():
    """32x64 f32, warp reads of 1x8 and 1x4 vectors, given pitch 72: the answer was Swizzle<1,2,3> at
    pitch 72 (9,216 B, "the minimal layout"); two swizzles at pitch 64 are conflict-free in 8,192 B."""
    code, doc = cli_json(*WARPS_72, "--row-length", "72")
    dense_code, dense = cli_json(*WARPS_72)  # the same tile without padding
    assert code == dense_code == 0
    assert doc["answer"]["name"] == f"pitch 64 + {dense['answer']['name']}"
    assert doc["answer"]["name"] == "pitch 64 + Swizzle<1,5,3> then Swizzle<3,2,3>"
    assert doc["answer"]["storage_bytes"] == dense["answer"]["storage_bytes"] == 8192
    assert doc["answer"]["padding"]["inner"]["family"] == "two-level"
    assert doc["proof"]["proven_minimal"] and doc["proof"]["unsearched_pitches"] == []
    given = doc["search"]["given_pitch"]
    assert given["row_length"] == 72 and given["best"] == "Swizzle<1,2,3>" and given["extra_bytes"] == 1024
    # the name reads back, and --check of it passes at the given pitch
    assert parse_layout(doc["answer"]["name"]).name == doc["answer"]["name"]
    checked = cli(*WARPS_72, "--row-length", "72", "--check", doc["answer"]["name"], "-q")
    assert checked.returncode == 0
    rich = cli(*WARPS_72, "--row-length", "72").stdout
    assert "the minimal layout is pitch 64 + Swizzle<1,5,3> then" in " ".join(rich.split())
    assert "pitch 72 as given: Swizzle<1,2,3> needed, 1 KiB more" in " ".join(rich.split())
    kept = cli(*WARPS_72, "--row-length", "72", "--keep-pitch", "-q")  # --keep-pitch: no other pitch
    assert kept.returncode == 0 and kept.stdout.strip() == "Swizzle<1,2,3>"


def test_a_triton_16x16_tile_given_pitch_18_drops_its_padding():
    """The tile written by a #blocked [4, 8] layout and read by [8, 4] with 2 rows per thread: at
    pitch 18 the answer was pitch 24 + XorCols<2,2,2> (1,536 B, more than the given pitch); two
    swizzles at pitch 16 need 1,024 B."""
    code, doc = cli_json(*TRITON_16, "--row-length", "18")
    _, dense = cli_json(*TRITON_16)
    assert code == 0 and dense["answer"]["family"] == "two-level" and dense["status"] == "conflict-free"
    assert doc["answer"]["name"] == f"pitch 16 + {dense['answer']['name']}"
    assert doc["answer"]["storage_bytes"] == 1024 and doc["proof"]["proven_minimal"]


def test_a_triton_64x128_i8_tile_given_pitch_144_is_conflict_free_at_128():
    """It timed out with conflicts (z3 on the linear family at pitch 144, minutes); two swizzles at pitch
    128 are conflict-free in 8,192 B, and once they are found the later families of pitch 144 are not
    searched (they cannot rank first: more storage), so the solve takes well under the limit."""
    start = time.monotonic()
    code, doc = cli_json(*TRITON_64, "--row-length", "144", "--timeout", "120")
    assert time.monotonic() - start < 120
    assert code == 0 and doc["status"] == "conflict-free" and doc["proof"]["proven_minimal"]
    assert doc["answer"]["storage_bytes"] == 8192
    assert doc["answer"]["padding"]["row_length"] == 128 and doc["answer"]["padding"]["inner"]["family"] == "two-level"
    given = doc["search"]["given_pitch"]  # the line says what was not searched at the given pitch
    assert given["excess_wavefronts"] and "linear" in given["not_searched"]
    assert all(f["searched"] is False for f in doc["search"]["families"] if f["family"] == "linear")


def test_the_rank_holds_over_every_pitch_on_the_first_reproducer():
    """The property below, on the first reproducer (the quick version)."""
    assert_ranks_first_over_every_pitch(make_problem(32, 64, ["warp:4x8:1x8", "warp:32x1:1x4"], 72, 4))


@pytest.mark.slow  # a --keep-pitch solve at each of 34 pitches: over a second of CPU
def test_the_rank_holds_over_every_pitch_on_the_triton_tile():
    hardware = make_hardware()
    tile = make_tile(16, 16, 18, 4)
    patterns = [load_linear_layout(str(TRITON / name), tile, hardware)
                for name in ("blocked-16x16-t4x8.json", "blocked-16x16-s2x1-t8x4.json")]
    assert_ranks_first_over_every_pitch(Problem(tile, hardware, patterns))


def test_at_the_floors_a_narrower_pitch_with_less_storage_wins():
    """64x64 f16 at pitch 72, 8x8 row col: nothing is conflict-free (col's floor), and plain rows at 72
    meet every floor; so does Swizzle<3,3,3> at pitch 64, in 1 KiB less. It was "none" at 72: the
    floors' shortcut searched no other pitch."""
    result = api.solve(rows=64, cols=64, row_length=72, dtype="f16", access=["8x8", "row", "col"])
    s = result.solution
    assert s.answer.layout.padded_form(result.problem.tile)[0] == 64 and s.answer.storage_bytes == 8192
    assert s.answer.excess == s.at_given_pitch.excess > 0 and s.unproven is None
    assert result.json()["proof"]["optimal_over_all_layouts"]


def test_an_answer_with_conflicts_beyond_the_floors_says_what_other_pitches_were_not_searched_for():
    """Pitches other than the given one are searched only for a layout at every target (here: no
    conflict); an answer that leaves more says so, and names them. (32 x 19 f16 at pitch 23 on 8
    banks: nothing conflict-free is found, and the best, plain rows at 23, leaves 2.)"""
    p = make_problem(32, 19, ["16x1:2", "8x4:2"], 23, 2, banks=8)
    s = solve(p)
    assert s.answer.excess > 0 and s.status == "conflicts" and not s.timed_out
    assert "the other pitches were searched only for a layout conflict-free" in s.unproven
    below, above = other_pitches(p)
    assert below and above and s.unsearched_pitches == tuple(below + above)
    kept = solve(p, keep_pitch=True)  # at the given pitch alone, every family was searched: proven
    assert kept.unproven is None and kept.answer.excess == s.answer.excess


def test_the_pitches_between_the_given_one_and_a_wider_answer_are_searched_in_every_family():
    """48x82 f32 at pitch 83: nothing at 82 or 83 is conflict-free; the padding family's plain rows and
    single swizzles first reach it at pitch 112 (the old answer, pitch 112 + Swizzle<1,3,2>), and a
    row interleave does at pitch 88, in 4,608 B less."""
    p = make_problem(48, 82, ["2x16", "row", "4x8"], 83, 4)
    s = solve(p)
    pitch, inner = s.answer.layout.padded_form(p.tile)
    assert s.answer.conflict_free and pitch == 88 and inner.family == "row-interleave"
    assert s.unproven is None and s.unsearched_pitches == ()
    wider = solve(at_pitch(p, 112), keep_pitch=True).answer
    assert wider.conflict_free and wider.storage_bytes - s.answer.storage_bytes == 48 * 24 * 4


def test_keep_pitch_searches_no_other_pitch():
    s = solve(make_problem(32, 64, ["warp:4x8:1x8", "warp:32x1:1x4"], 72, 4), keep_pitch=True)
    assert s.answer.layout.padded_form(s.problem.tile) is None and s.unsearched_pitches == ()
    assert all(c.layout.padded_form(s.problem.tile) is None for c in s.alternatives)


def test_the_time_limit_bounds_the_narrower_pitches_and_names_what_it_cut(monkeypatch):
    """--timeout falls while the pitches below the given one are searched: the answer (the given
    pitch's conflict-free layout) is not proven minimal, and the pitches not covered are named."""
    from swizzle_solver import narrower

    real = narrower._at_pitch

    def then_the_time_is_up(problem, pitch, budget, *rest):  # the time limit falls after the first pitch
        found = real(problem, pitch, budget, *rest)
        budget.deadline = time.monotonic()
        return None, found[1]  # (as if nothing were found there before the limit)

    monkeypatch.setattr(narrower, "_at_pitch", then_the_time_is_up)
    p = make_problem(32, 64, ["warp:4x8:1x8", "warp:32x1:1x4"], 72, 4)
    s = solve(p, budget=Budget(timeout=3600), table=False)
    assert s.timed_out and s.status == "timeout" and s.answer.layout.name == "Swizzle<1,2,3>"
    assert "(the time limit)" in s.unproven and s.unsearched_pitches == (64, 68)


# --- the property ------------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(rows=st.sampled_from([4, 8, 16, 32]), cols=st.integers(4, 24), pad=st.integers(1, 8), elem=st.sampled_from([2, 4]),
       banks=st.sampled_from([8, 16, 32]),
       accesses=st.lists(st.sampled_from(["row", "col", "4x1", "2x2", "4x2", "2x4", "4x2:2", "8x1", "8x2", "2x8",
                                          "16x1:2", "8x4", "4x8"]),
                         min_size=1, max_size=3, unique=True))
def test_the_answer_ranks_first_over_every_pitch_the_search_may_choose(rows, cols, pad, elem, banks, accesses):
    try:
        problem = make_problem(rows, cols, accesses, cols + pad, elem, banks=banks)
    except InputError:
        reject()
    assume(other_pitches(problem)[0])  # a pitch below the given one
    assert_ranks_first_over_every_pitch(problem)
