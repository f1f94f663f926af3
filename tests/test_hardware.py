"""The hardware object: every derived quantity against a brute-force computation from byte addresses,
and the rank proof's collision witness (a kernel vector) against the simulator.

The brute force below shares no code with hardware.py: it walks byte addresses, computes each byte's
word (a // bank_bytes) and bank (word mod banks), and reads the unit, slots, slot bits, words per
element and lower bound off those walks.
"""
import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from swizzle_solver import simulate
from swizzle_solver.access import make_hardware, make_problem
from swizzle_solver.families.cute import Swizzle
from swizzle_solver.families.linear import XorLinear
from swizzle_solver.hardware import DEFAULT, TARGETS, Hardware
from swizzle_solver.layout import layout_table
from swizzle_solver.model import InputError
from swizzle_solver.proof import bank_matrix

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def pow2(lo, hi):
    return st.sampled_from([1 << k for k in range(lo, hi + 1)])



# --- brute force from bytes ---------------------------------------------------------------------------

def word(hw, a):
    return a // hw.bank_bytes


def bank(hw, a):
    return word(hw, a) % hw.banks


def brute_unit(hw, lane_bytes):
    """The smallest aligned block of bytes that splits neither a lane nor a word."""
    return next(b for b in itertools.count(1) if b % lane_bytes == 0 and b % hw.bank_bytes == 0)


def brute_slots(hw, unit):
    """Distinct banks the first bytes of consecutive units land in."""
    return len({bank(hw, k * unit) for k in range(4 * hw.banks + 4)})


def brute_slot_of_element(hw, e, unit, slots, p):
    """The slot of the unit holding element p: the rank of its first byte's bank among the slots."""
    first_banks = sorted({bank(hw, k * unit) for k in range(slots)})
    return first_banks.index(bank(hw, (p * e) // unit * unit))


geometries = st.tuples(pow2(0, 7), pow2(0, 5), pow2(0, 4), pow2(0, 4))  # banks, bank bytes, elem, lane


@SETTINGS
@given(geometries)
def test_geometry_matches_a_byte_level_walk(g):
    banks, bank_bytes, e, lane = g
    assume(lane >= e)
    hw = make_hardware(banks, bank_bytes)
    geo = hw.geometry(e, lane)
    unit = brute_unit(hw, lane)
    assert geo.unit_bytes == unit
    assert geo.fits == (e <= unit <= banks * bank_bytes)
    assert geo.slots == brute_slots(hw, unit)
    assert geo.unit_words == len({word(hw, a) for a in range(unit)})
    assert hw.element_words(e) == len({word(hw, a) for a in range(e)})
    for p in (0, 1, 5, 37, 1000):
        assert list(hw.words_of_element(p, e)) == sorted({word(hw, a) for a in range(p * e, p * e + e)})
        assert hw.first_word(p, e) == word(hw, p * e)
    assume(geo.fits)  # the slot view: a unit of whole elements inside one wavefront
    assert geo.unit_shift == (unit // e).bit_length() - 1 and 1 << geo.unit_shift == unit // e
    assert 1 << geo.word_shift == geo.unit_words
    elems = range(4 * banks * bank_bytes // e + 8)
    for p in elems:  # the slot is bits [unit_shift, unit_shift + slot_bits) of the element offset
        assert (p >> geo.unit_shift) & geo.slot_mask == brute_slot_of_element(hw, e, unit, geo.slots, p)
    # ... and exactly those bits: flipping any other bit leaves the slot of some offset unchanged
    changing = {b for b in range(12) if any((p >> geo.unit_shift) & geo.slot_mask
                                            != ((p ^ 1 << b) >> geo.unit_shift) & geo.slot_mask for p in elems)}
    assert changing == set(geo.slot_offset_bits) and len(changing) == geo.slot_bits
    # the bank of a unit's first word: its slot, shifted past the word positions inside the unit
    for k in range(2 * geo.slots):
        assert bank(hw, k * unit) == ((k % geo.slots) << geo.word_shift) % banks


@SETTINGS
@given(pow2(0, 7), pow2(0, 5), pow2(0, 4), st.integers(1, 6), st.integers(1, 5))
def test_words_match_bytes(banks, bank_bytes, e, n, k):
    hw = make_hardware(banks, bank_bytes)
    offsets = np.arange(n * k, dtype=np.int64).reshape(n, k) * 3 + 1
    got = hw.words(offsets, e)
    for i in range(n):
        want = [w for p in offsets[i].tolist() for w in sorted({word(hw, a) for a in range(p * e, p * e + e)})]
        assert got[i].tolist() == want
        assert len(got[i]) == k * hw.element_words(e)


@SETTINGS
@given(pow2(0, 7), pow2(0, 5), st.integers(0, 5000))
def test_lower_bound_is_the_fewest_wavefronts_holding_the_bytes(banks, bank_bytes, nbytes):
    hw = make_hardware(banks, bank_bytes)
    want = next(w for w in itertools.count(1) if w * banks * bank_bytes >= nbytes)
    assert hw.lower_bound(nbytes) == want


@pytest.mark.parametrize("name", sorted(TARGETS))
@pytest.mark.parametrize("lane_bytes", [1, 2, 4, 8, 16])
def test_every_target_splits_a_wave_into_phases_that_partition_it(name, lane_bytes):
    hw = TARGETS[name]
    request = [(0, i, lane_bytes) for i in range(hw.wave_lanes)]
    phases = hw.split_request(request)
    assert sorted(lane for ph in phases for lane in ph) == sorted(request)
    assert all(ph for ph in phases)


@pytest.mark.parametrize("lane_bytes, lanes", [(1, 32), (2, 32), (4, 32), (8, 16), (16, 8)])
def test_nvidia_phases_are_consecutive_lanes_of_at_most_one_wavefront(lane_bytes, lanes):
    hw = TARGETS["nvidia"]
    assert hw is DEFAULT and (hw.banks, hw.bank_bytes, hw.wave_lanes) == (32, 4, 32)
    request = [(0, i, lane_bytes) for i in range(32)]
    phases = hw.split_request(request)
    assert [len(ph) for ph in phases] == [lanes] * (32 // lanes)
    assert [lane for ph in phases for lane in ph] == request  # lane order kept
    assert all(len(ph) * max(4, lane_bytes) <= hw.wavefront_bytes for ph in phases)


def test_a_target_with_non_contiguous_phases_is_data():
    """The shape an AMD entry will take: 64 lanes, phases that are not lane ranges (here the gfx942
    ds_read_b128 sets of issue 12: {0-3, 20-23}, {4-7, 16-19}, {8-11, 28-31}, {12-15, 24-27}, +32)."""
    base = [(0, 1, 2, 3, 20, 21, 22, 23), (4, 5, 6, 7, 16, 17, 18, 19), (8, 9, 10, 11, 28, 29, 30, 31),
            (12, 13, 14, 15, 24, 25, 26, 27)]
    sets = tuple(tuple(i + half for i in s) for half in (0, 32) for s in base)
    hw = Hardware(name="test-64", banks=64, wave_lanes=64, phase_lanes=((16, 64),), phase_sets=((16, sets),))
    request = [(0, 4 * i, 16) for i in range(64)]
    phases = hw.split_request(request)
    assert [[lane[1] // 4 for lane in ph] for ph in phases] == [list(s) for s in sets]
    assert len(hw.split_request([(0, i, 4) for i in range(64)])) == 1  # other widths: the contiguous rule


# --- the rank proof's collision witness ---------------------------------------------------------------

SPECS = ["1x32", "32x1", "8x4", "4x8", "8x8", "4x4:2", "16x2", "row", "col", "8x2v4", "2x16"]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from([8, 16, 32, 64]), st.sampled_from([8, 16, 32, 64]), st.sampled_from([1, 2, 4, 8]),
       st.sampled_from(SPECS), st.sampled_from([(32, 4), (16, 4), (32, 8), (8, 4)]), st.data())
def test_the_kernel_pair_really_collides(rows, cols, e, spec, banks, data):
    try:
        problem = make_problem(rows, cols, [spec], elem_bytes=e, banks=banks[0], bank_bytes=banks[1])
    except InputError:
        assume(False)  # a spec that does not fit this tile
    tile, hw = problem.tile, problem.hardware
    [pattern] = problem.patterns
    nbits = (tile.size - 1).bit_length()
    if data.draw(st.booleans()):
        b = data.draw(st.integers(0, 4))
        layout = Swizzle(b, data.draw(st.integers(0, 4)), data.draw(st.integers(max(1, b), 6)))  # CuTe: S >= B
    else:
        terms = data.draw(st.sets(st.tuples(st.integers(0, nbits - 1), st.integers(1, nbits - 1))
                                  .filter(lambda t: t[1] > t[0]), max_size=4))
        layout = XorLinear(tuple(sorted(terms)))
    assume(layout.invalid(tile) is None)
    matrix = bank_matrix(tile, hw, pattern, layout.bases(tile))
    assume(matrix is not None)
    phys = layout_table(problem.tile, layout)
    d = matrix.collision()
    assert (d is None) == (matrix.wavefronts == 1)
    assume(d is not None)
    # every placement: its first lane and the lane at offset ^ d read different words of one bank
    for placement in range(0, pattern.placements, max(1, pattern.placements // 7)):
        lanes = {(r, c): words for (r, c, _), words, _ in simulate.bank_list(tile, hw, pattern, phys, placement)}
        (r0, c0) = next(iter(lanes))
        r1, c1 = divmod((r0 * tile.row_length + c0) ^ d, tile.row_length)
        assert (r1, c1) in lanes  # a lane of the same placement
        w0, w1 = lanes[(r0, c0)][0], lanes[(r1, c1)][0]
        assert w0 != w1 and w0 % hw.banks == w1 % hw.banks


def test_collision_json_takes_the_pair_from_the_proof():
    from swizzle_solver.candidate import measure_as_given
    from swizzle_solver.report import collision_json

    problem = make_problem(32, 32, ["32x1"])
    ranked = measure_as_given(problem, Swizzle(0, 0, 1))  # the identity: the column is one bank, 32-way
    got = collision_json(problem, ranked, 0)
    d = bank_matrix(problem.tile, problem.hardware, problem.patterns[0],
                    Swizzle(0, 0, 1).bases(problem.tile)).collision()
    a, b = got["a"], got["b"]
    assert (a["row"] * 32 + a["col"]) ^ (b["row"] * 32 + b["col"]) == d
    assert a["word"] != b["word"] and a["word"] % 32 == b["word"] % 32 == got["bank"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from([16, 32, 64]), st.sampled_from([8, 16, 32]), st.sampled_from([1, 2, 4, 8]),
       st.lists(st.sampled_from(SPECS), min_size=1, max_size=3, unique=True),
       st.integers(0, 4), st.integers(0, 4), st.integers(1, 6))
def test_the_reported_pair_shares_a_bank_in_different_words(rows, cols, e, specs, b, m, s):
    """collision_json, on the proof's path and on the simulator's: the pair it prints collides."""
    from swizzle_solver.candidate import measure_as_given
    from swizzle_solver.report import collision_json

    try:
        problem = make_problem(rows, cols, specs, elem_bytes=e)
    except InputError:
        assume(False)  # a spec that does not fit this tile
    assume(s >= b)  # CuTe rejects |S| < B
    layout = Swizzle(b, m, s)
    assume(layout.invalid(problem.tile) is None)
    ranked = measure_as_given(problem, layout)
    phys = layout_table(problem.tile, layout)
    hw, tile = problem.hardware, problem.tile
    for i, result in enumerate(ranked.results):
        pair = collision_json(problem, ranked, i)
        assert (pair is None) == (result.worst <= result.pattern.lower_bound)
        if pair is not None:
            a, b_ = pair["a"], pair["b"]
            assert a["word"] != b_["word"] and hw.bank(a["word"]) == hw.bank(b_["word"]) == pair["bank"]
            lanes = {(r, c): words for (r, c, _), words, _ in
                     simulate.bank_list(tile, hw, result.pattern, phys, result.worst_placement)}
            for lane in (a, b_):  # two lanes of the worst placement, each word one that lane reads
                assert lane["word"] in lanes[(lane["row"], lane["col"])]


def test_docs_list_what_each_target_has():
    """docs/hardware.md's capability table is hardware.TARGETS, row by row (so a new target, or a
    capability changed, is written there too)."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "hardware.md").read_text()
    section = text.split("## What each target has\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    assert rows == [f"| `{name}` | {', '.join(sorted(hw.instructions))} | {', '.join(hw.tma_modes) or 'none'} | "
                    f"{', '.join(hw.mma_operands) or 'none'} | {hw.language} | {hw.group} of {hw.wave_lanes} |"
                    for name, hw in TARGETS.items()]
