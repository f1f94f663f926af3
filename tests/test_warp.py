"""Warp-level accesses against hand-computed phases from the hardware rules (DESIGN.md section 7)."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swizzle_solver import simulate
from swizzle_solver.access import make_hardware, make_problem, make_tile, parse_access
from swizzle_solver.families.cute import Swizzle
from swizzle_solver.families.xor_cols import XorCols
from swizzle_solver.model import InputError
from swizzle_solver.proof import bank_matrix
from swizzle_solver.solving import solve

BANKS = make_hardware()
lanes_per_phase, split_request = BANKS.lanes_per_phase, BANKS.split_request


def access(spec, rows, cols, elem_bytes, row_length=None):
    return parse_access(spec, make_tile(rows, cols, row_length, elem_bytes), BANKS)


def first_placement(p):
    return [p.phase_lanes(i) for i in range(p.phases_per_placement)]


def all_phases(p):
    return [p.phase_lanes(i) for i in range(p.placements)]


def test_lanes_per_phase_follows_the_vector_width():
    assert [lanes_per_phase(b) for b in (1, 2, 4, 8, 16)] == [32, 32, 32, 16, 8]


def test_split_request_keeps_lane_order():
    request = [(0, 2 * i, 8) for i in range(32)]
    phases = split_request(request)
    assert phases == [request[:16], request[16:]]


def test_ldmatrix_x4_on_16x16_f16_is_four_8x16_byte_matrices():
    p = access("ldmatrix.x4", 16, 16, 2)
    assert p.placements == p.phases_per_placement == 4  # one warp placement covers the tile
    assert first_placement(p) == [
        [(r, 0, 16) for r in range(0, 8)],    # matrix 0: lanes 0-7, rows 0-7, cols 0-7
        [(r, 0, 16) for r in range(8, 16)],   # matrix 1: lanes 8-15, rows 8-15
        [(r, 8, 16) for r in range(0, 8)],    # matrix 2: lanes 16-23, cols 8-15
        [(r, 8, 16) for r in range(8, 16)],   # matrix 3: lanes 24-31
    ]
    assert p.lower_bound == 1 and p.vector_bytes == 16 and (p.rows, p.cols) == (16, 16)


@pytest.mark.parametrize("spec, phases", [
    ("ldmatrix.x1", [[(r, 0, 16) for r in range(8)]]),
    ("ldmatrix.x2", [[(r, 0, 16) for r in range(8)], [(r, 0, 16) for r in range(8, 16)]]),
    ("stmatrix.x2.trans:1x2", [[(r, 0, 16) for r in range(8)], [(r, 8, 16) for r in range(8)]]),
    ("ldmatrix.x4:1x4", [[(r, c, 16) for r in range(8)] for c in (0, 8, 16, 24)]),
    ("ldmatrix.sync.aligned.m8n8.x1.shared.b16", [[(r, 0, 16) for r in range(8)]]),
])
def test_matrix_forms_and_arrangements(spec, phases):
    assert first_placement(access(spec, 16, 32, 2)) == phases


def test_trans_reads_the_same_addresses():
    a, b = access("ldmatrix.x4", 32, 32, 2), access("ldmatrix.x4.trans", 32, 32, 2)
    assert all_phases(a) == all_phases(b)


def test_ldmatrix_b8_rows_are_16_elements():
    assert first_placement(access("ldmatrix.x1", 8, 16, 1)) == [[(r, 0, 16) for r in range(8)]]


def test_ldmatrix_placements_cover_every_aligned_position():
    p = access("ldmatrix.x4", 32, 32, 2)  # 2 x 2 placements of 16x16, 4 phases each
    assert p.placements == 16
    starts = {(p.phase_lanes(i)[0][0], p.phase_lanes(i)[0][1]) for i in range(p.placements)}
    assert starts == {(r, c) for r in range(0, 32, 8) for c in range(0, 32, 8)}


def test_1x8_f32_per_lane_splits_into_two_16_byte_ops_of_8_lanes():
    p = access("warp:4x8:1x8", 4, 64, 4)
    phases = first_placement(p)
    # Lane l = 8a + b reads row a, columns 8b .. 8b+7: op 0 is columns 8b..8b+3, op 1 is 8b+4..8b+7.
    op0 = [[(a, 8 * b, 16) for b in range(8)] for a in range(4)]
    op1 = [[(a, 8 * b + 4, 16) for b in range(8)] for a in range(4)]
    assert phases == op0 + op1
    assert p.lower_bound == 1 and p.phase_bytes == 128


def test_8_byte_lanes_give_16_lanes_per_phase():
    p = access("warp:8x4:1x2", 8, 8, 4)  # lane l = 4a + b reads (a, 2b), 8 bytes
    assert first_placement(p) == [[(a, 2 * b, 8) for a in range(4) for b in range(4)],
                                  [(a, 2 * b, 8) for a in range(4, 8) for b in range(4)]]


def test_scalar_lanes_give_one_32_lane_phase():
    p = access("warp:32x1:1x1", 64, 4, 4)  # a warp reads a column
    assert first_placement(p) == [[(r, 0, 4) for r in range(32)]]
    assert p.placements == 2 * 4


def test_2_byte_lanes_are_one_64_byte_phase():
    p = access("warp:1x32:1x1", 2, 32, 2)
    assert first_placement(p) == [[(0, c, 2) for c in range(32)]]
    assert p.phase_bytes == 64 and p.lower_bound == 1


def test_per_lane_block_rows_are_separate_instructions():
    # Lane l = 4a + b reads rows 2a, 2a+1 x columns 4b..4b+3: one 16-byte op per row, each op a
    # request of 32 lanes = 4 phases of 8 lanes (two lane rows each).
    p = access("warp:8x4:2x4", 16, 16, 4)
    rows = [sorted({r for r, _, _ in ph}) for ph in first_placement(p)]
    assert rows == [[0, 2], [4, 6], [8, 10], [12, 14], [1, 3], [5, 7], [9, 11], [13, 15]]
    assert first_placement(p)[0] == [(2 * a, 4 * b, 16) for a in range(2) for b in range(4)]


def test_explicit_vector_width_splits_further():
    p = access("warp:4x8:1x8v8", 4, 64, 4)
    assert p.phases_per_placement == 4 * 2  # four 8-byte ops, each 32 lanes = 2 phases of 16
    assert first_placement(p)[0] == [(a, 8 * b, 8) for a in range(2) for b in range(8)]


def test_default_vector_shrinks_to_keep_rows_aligned():
    p = access("warp:4x8:1x4", 4, 32, 4, row_length=34)  # 136-byte pitch: 8-byte ops stay aligned
    assert p.vector_bytes == 8 and p.phases_per_placement == 2 * 2


@pytest.mark.parametrize("elem_bytes, lanes, nbytes, phases", [(4, 16, 8, 4), (2, 32, 4, 2)])
def test_mma_accumulator(elem_bytes, lanes, nbytes, phases):
    p = access("mma-c:m16n8", 16, 8, elem_bytes)
    got = first_placement(p)
    assert len(got) == phases and all(len(ph) == lanes for ph in got)
    want = [(half + l // 4, 2 * (l % 4), nbytes) for half in (0, 8) for l in range(32)]
    assert [lane for ph in got for lane in ph] == want
    assert p.lower_bound == 1


@pytest.mark.parametrize("spec, rows, cols, e, message", [
    ("warp:4x4:1x4", 16, 16, 4, "32 lanes"),
    ("warp:4x8", 16, 16, 4, "malformed warp access"),
    ("warp:4x8:1x8", 6, 64, 4, "not a multiple"),
    ("warp:4x8:1x8", 8, 60, 4, "not a multiple"),
    ("warp:4x8:1x8v32", 8, 64, 4, "vector width"),
    ("warp:4x8:1x3v8", 8, 96, 4, "vector width"),
    ("ldmatrix.x3", 16, 16, 2, "unknown instruction form"),
    ("ldmatrix.x4.foo", 16, 16, 2, "'.foo'"),
    ("ldmatrix", 16, 16, 2, "unknown instruction form"),
    ("ldmatrix.x4:4x4", 32, 32, 2, "arrangement"),
    ("ldmatrix.x4", 8, 16, 2, "not a multiple"),
    ("mma-c:m16n16", 16, 16, 4, "unknown instruction form"),
    ("mma-c", 16, 8, 8, "f16/bf16"),
    ("mma", 16, 8, 4, "unknown instruction form"),
])
def test_bad_warp_specs(spec, rows, cols, e, message):
    with pytest.raises(InputError, match=message) as err:
        access(spec, rows, cols, e)
    assert "\n" not in str(err.value)


def test_misaligned_vectors_are_an_input_error():
    with pytest.raises(InputError, match="misaligned"):
        access("warp:4x8:1x4v16", 4, 32, 4, row_length=34)  # row 1 starts at byte 136
    with pytest.raises(InputError, match="misaligned"):
        access("ldmatrix.x1", 8, 8, 2, row_length=12)  # 24-byte pitch


swizzles = st.builds(lambda b, m, s: Swizzle(b, m, s), st.integers(1, 3), st.integers(3, 4), st.integers(3, 6))


@settings(max_examples=40, deadline=None)
@given(swizzles, st.sampled_from([(16, 64), (32, 64), (64, 32)]))
def test_ldmatrix_costs_like_its_8x8_blocks(swizzle, shape):
    """ldmatrix.x4 at every 16x16 position issues every aligned 8x8 f16 block as a phase."""
    if swizzle.S < swizzle.B:
        return
    tile = make_tile(shape[0], shape[1], None, 2)
    ld, block = parse_access("ldmatrix.x4", tile, BANKS), parse_access("8x8", tile, BANKS)
    r, c = np.meshgrid(np.arange(tile.rows), np.arange(tile.cols), indexing="ij")
    phys = swizzle.phys(tile, r, c)
    a, b = simulate.simulate(tile, BANKS, [ld, block], phys)
    assert sorted(a.costs.tolist()) == sorted(b.costs.tolist())


@settings(max_examples=30, deadline=None)
@given(st.sampled_from([(1, 32), (2, 16), (4, 8), (8, 4), (16, 2), (32, 1)]), st.sampled_from([1, 2, 4, 8]),
       st.sampled_from([2, 4]))
def test_every_warp_phase_respects_the_hardware_rule(grid, n, e):
    lr, lc = grid
    p = access(f"warp:{lr}x{lc}:1x{n}", lr * 2, lc * n * 2, e)
    for i in range(p.placements):
        lanes = p.phase_lanes(i)
        assert len(lanes) == lanes_per_phase(lanes[0][2])
        assert len({b for _, _, b in lanes}) == 1
    covered = {(r, c + k) for i in range(p.placements) for r, c, b in p.phase_lanes(i) for k in range(b // e)}
    assert covered == {(r, c) for r in range(lr * 2) for c in range(lc * n * 2)}  # every element, once a tile


def test_solver_end_to_end_on_warp_patterns():
    problem = make_problem(64, 64, ["ldmatrix.x4", "warp:4x8:1x8"], elem_bytes=2)
    solution = solve(problem)
    assert solution.status == "conflict-free"
    for result in solution.answer.results:
        assert result.worst == result.pattern.lower_bound
    assert solution.baseline.results[0].worst == 8  # unswizzled: 8 rows of 128 B all in banks 0-3


layouts = st.one_of(
    st.builds(Swizzle, st.integers(1, 3), st.integers(0, 4), st.integers(3, 7)),
    st.builds(XorCols, st.integers(1, 3), st.integers(0, 4), st.integers(0, 3)))
warp_specs = st.sampled_from(["ldmatrix.x4", "ldmatrix.x2:1x2", "warp:4x8:1x8", "warp:8x4:1x4", "warp:32x1:1x1",
                              "warp:1x32:1x2", "warp:8x4:2x2", "mma-c", "warp:16x2:1x1"])


@settings(max_examples=150, deadline=None)
@given(layouts, warp_specs, st.sampled_from([2, 4]), st.sampled_from([(32, 4), (8, 4), (16, 8)]))
def test_gf2_bank_matrix_agrees_with_the_simulator(layout, spec, elem_bytes, bank_model):
    """Warp-level phases found to be cosets get the rank proof; it must equal the measured cost."""
    tile = make_tile(32, 64, None, elem_bytes)
    banks = make_hardware(*bank_model)
    pattern = parse_access(spec, tile, banks)
    vector = pattern.vector_bytes // elem_bytes
    if isinstance(layout, Swizzle) and (layout.S < layout.B or vector > (1 << layout.M)):
        return  # rejected by CuTe, or splits the vectors: never a candidate
    if isinstance(layout, XorCols) and vector > (1 << layout.M):
        return
    if layout.invalid(tile) is not None:
        return
    matrix = bank_matrix(tile, banks, pattern, layout.bases(tile))
    assert matrix is not None  # every form above is a coset pattern on a power-of-two pitch
    r, c = np.meshgrid(np.arange(tile.rows), np.arange(tile.cols), indexing="ij")
    costs = simulate.simulate(tile, banks, [pattern], layout.phys(tile, r, c))[0].costs
    assert costs.min() == costs.max() == matrix.wavefronts


def test_non_power_of_two_pitch_has_no_rank_proof():
    tile = make_tile(8, 64, 72, 4)
    assert parse_access("warp:4x8:1x8", tile, BANKS).linear_bits(tile) is None


def test_the_most_distinct_bytes_of_a_phase_counts_each_element_once():
    """tile_pattern's phase_bytes, every phase at once (warp.most_distinct_bytes), against
    distinct_bytes phase by phase (a set of every element each lane reads): random phases of mixed
    widths, overlapping vectors and broadcasts, padded as tile_pattern pads them (the first lane
    again), and a hand case: two 16-byte f16 lanes 4 columns apart share 4 elements (24 bytes)."""
    from random import Random

    from swizzle_solver.access.warp import distinct_bytes, most_distinct_bytes

    assert most_distinct_bytes(np.array([[[0, 0, 16], [0, 4, 16], [0, 0, 16]]]), 2) == 24
    rng = Random(7)
    for _ in range(400):
        e = rng.choice([1, 2, 4, 8])
        phases = [[(rng.randint(0, 5), rng.randint(0, 20), rng.choice([1, 2, 4, 8, 12, 16]))
                   for _ in range(rng.randint(1, 8))] for _ in range(rng.randint(1, 5))]
        widest = max(map(len, phases))
        padded = np.array([ph + [ph[0]] * (widest - len(ph)) for ph in phases], dtype=np.int64)
        assert most_distinct_bytes(padded, e) == max(distinct_bytes(ph, e) for ph in phases), (phases, e)
