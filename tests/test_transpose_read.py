"""gfx950's transposing LDS reads (ds_read_b64_tr_b16 / _b8) under --vectors auto (issue 35 item 1).

The lane map is written here again from its sources (Triton's chooseDotDsReadB64TrLayout, Modular's
ds_read_tr16_b64_row, CK's LaneGroupTransposeTraits; swizzle_solver/transpose_read.py cites them):
in each group of 16 lanes the 16 lanes' 8-byte reads, in lane order, are an n x 16 matrix (n = 8 /
element bytes), and lane i receives its column i, element r from row r. The answers are recounted
lane by lane from that map, not from the tool's code: each lane's n register elements at the
answer's physical offsets; the 8-byte address each source lane must then give (one for all the
elements it supplies, aligned, each element at its place in it); the addresses split into the op's
phases as hardware.py's cell says (the data: 2 x 32 lanes, 64 banks on gfx950) and counted here,
the most distinct dwords in one bank per phase.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from swizzle_solver import transpose_read, vectors
from swizzle_solver.access import make_tile
from swizzle_solver.families.general_linear import GeneralLinear
from swizzle_solver.hardware import target

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_two_address import access_of, brute, dword_cost, solved, span  # noqa: E402

# Triton 3.9's own layouts (to_linear_layout on the CPU), (register, lane, warp) bases as (row, col):
# a column-major tile (blocked, sizePerThread [8, 1], order [0, 1]: 16 bytes down a column) stored,
# then read as the A operand of mfma 16x16x32 (f16, kWidth 8) and of mfma 16x16x64 (i8, kWidth 16):
# K is the column, so the stored vectors run along M and the operand's registers along K.
COL_MAJOR_F16 = (((1, 0), (2, 0), (4, 0), (0, 32)), ((8, 0), (16, 0), (32, 0), (0, 1), (0, 2), (0, 4)),
                 ((0, 8), (0, 16)))
DOT_A_F16 = (((0, 1), (0, 2), (0, 4), (0, 32)), ((1, 0), (2, 0), (4, 0), (8, 0), (0, 8), (0, 16)),
             ((16, 0), (32, 0)))
COL_MAJOR_I8 = (((1, 0), (2, 0), (4, 0), (8, 0), (0, 64)), ((16, 0), (32, 0), (0, 1), (0, 2), (0, 4), (0, 8)),
                ((0, 16), (0, 32)))
DOT_A_I8 = (((0, 1), (0, 2), (0, 4), (0, 8), (0, 64)), ((1, 0), (2, 0), (4, 0), (8, 0), (0, 16), (0, 32)),
            ((16, 0), (32, 0)))
PAIRS = [("gfx950 64x64 f16 col-major->dot A", 64, 64, 2, COL_MAJOR_F16, DOT_A_F16),
         ("gfx950 64x128 i8 col-major->dot A", 64, 128, 1, COL_MAJOR_I8, DOT_A_I8)]


def received(n):
    """{(lane, r): (source lane, position)}: the map, as the sources draw it (not transpose_read)."""
    out = {}
    for g in range(4):
        matrix = [[(16 * g + (16 * row + col) // n, (16 * row + col) % n) for col in range(16)] for row in range(n)]
        for i in range(16):
            for r in range(n):
                out[(16 * g + i, r)] = matrix[r][i]
    return out


@pytest.mark.parametrize("e, n", [(2, 4), (1, 8)])
def test_the_lane_map_is_the_group_matrix_transposed(e, n):
    assert transpose_read.elements(e) == n
    want = received(n)
    assert all(transpose_read.source(lane, r, n) == want[(lane, r)] for lane in range(64) for r in range(n))
    # _b16: lane 5 gets, in its 4 elements, position 1 of source lanes 1, 5, 9, 13
    assert [transpose_read.source(5, r, 4) for r in range(4)] == [(1, 1), (5, 1), (9, 1), (13, 1)]


def recount_tr(access, bases, tile, hw, op):
    """(instructions, wavefronts) of the access as ``op``, lane by lane from ``received``: its first
    k register bases are the n elements one instruction gives a lane; None where some lane would
    need an element the read does not bring it (a shuffle)."""
    n = 8 // tile.elem_bytes
    k = n.bit_length() - 1
    layout = GeneralLinear(tuple(bases))
    regs, lanes = list(access.register), span(access.lane)
    inst, groups = regs[:k], span(regs[k:])
    rule = hw.rule(op)
    gets = received(n)
    total = count = 0
    for w in span(access.warp):
        for g in groups:
            address: dict[int, int] = {}
            for lane, lx in enumerate(lanes):
                for r, rx in enumerate(span(inst)):
                    byte = int(layout.apply(w ^ g ^ lx ^ rx)) * tile.elem_bytes
                    src, pos = gets[(lane, r)]
                    start = byte - pos * tile.elem_bytes
                    if start % 8 or address.setdefault(src, start) != start:
                        return None
            count += 1
            total += dword_cost([[address[s] for s in p] for p in rule.phases], 8, rule.banks)
    return count, total


@pytest.mark.parametrize("pair", PAIRS, ids=[p[0] for p in PAIRS])
def test_a_transposing_read_is_chosen_and_recounted_lane_by_lane(pair):
    name, rows, cols, e, src, dst = pair
    auto, accs, tile, hw = solved("gfx950", rows, cols, e, src, dst)
    bases = auto.answer.layout.bases(tile)
    store, load = auto.answer.accesses
    assert load.instruction == {2: "ds_read_b64_tr_b16", 1: "ds_read_b64_tr_b8"}[e] and load.vector_bytes == 8
    assert recount_tr(accs[1], bases, tile, hw, load.instruction) == (load.instructions, load.wavefronts)
    assert brute(accs[0], bases, tile, hw, store.vector_bytes)[0] == (store.instructions, store.wavefronts)
    # every access at its floor, the search complete: nothing better exists in the family
    assert all(m.wavefronts == m.lower_bound for m in auto.answer.accesses) and auto.kernel_complete
    # and better than the vectors as given (the read's 16 bytes along K, the store's one element)
    assert (auto.answer.wavefronts, auto.answer.instructions) < (auto.given.wavefronts, auto.given.instructions)


def test_a_read_needing_a_shuffle_is_refused_and_the_address_lanes_are_free():
    """Lane bases 0 and 1 of the read place an element in its 8 bytes (the lane receives position
    i mod 4): exchanged, the same elements sit in other lanes, which would need a shuffle, and the
    tool does not take the form (nor does the recount). Lane bases 2 and 3 only choose which source
    lane gives which address: exchanged, the form stays, with the recount's counts."""
    name, rows, cols, e, src, dst = PAIRS[0]
    auto, accs, tile, hw = solved("gfx950", rows, cols, e, src, dst)
    bases = auto.answer.layout.bases(tile)
    load = accs[1]

    def swapped(i, j):
        lane = list(load.lane)
        lane[i], lane[j] = lane[j], lane[i]
        return vectors.RegisterAccess(load.name, load.register, tuple(lane), load.warp)

    bad = swapped(0, 1)
    assert vectors.tr_moved(bad, bases, tile, hw) is None
    assert recount_tr(bad, bases, tile, hw, "ds_read_b64_tr_b16") is None
    assert not vectors.moved(bad, bases, tile, hw).instruction.startswith("ds_read_b64_tr")
    free = swapped(2, 3)
    m = vectors.tr_moved(free, bases, tile, hw)
    assert m is not None and recount_tr(free, bases, tile, hw, m.instruction) == (m.instructions, m.wavefronts)


def test_only_gfx950_loads_of_one_or_two_byte_data_by_a_whole_wave():
    name, rows, cols, e, src, dst = PAIRS[0]
    tile = make_tile(rows, cols, None, e)
    load = access_of("dst", tile, *dst)
    assert vectors.tr_op(load, tile, target("gfx950")) == ("ds_read_b64_tr_b16", 2)
    assert vectors.tr_op(load, tile, target("gfx942")) is None  # no cell: not an instruction there
    assert vectors.tr_op(access_of("dst", tile, *dst, store=True), tile, target("gfx950")) is None
    wide = make_tile(rows, cols, None, 4)
    assert vectors.tr_op(access_of("dst", wide, *dst), wide, target("gfx950")) is None
    byte = make_tile(rows, cols, None, 1)
    assert vectors.tr_op(access_of("dst", byte, *dst), byte, target("gfx950")) == ("ds_read_b64_tr_b8", 3)


def test_addresses_refuse_a_misplaced_element():
    offsets = np.array([[transpose_read.source(lane, r, 4)[0] * 4 + transpose_read.source(lane, r, 4)[1]
                         for r in range(4)] for lane in range(64)])
    assert (transpose_read.addresses(offsets, 4) == np.arange(64) * 4).all()
    offsets[3, 2] += 1  # one element one place off
    assert transpose_read.addresses(offsets, 4) is None


def test_the_cli_names_the_transposing_read(tmp_path):
    import json

    from test_schema import validate

    from tests import clirun

    name, rows, cols, e, src, dst = PAIRS[0]
    files = []
    for tag, (reg, lane, warp) in (("store", src), ("load", dst)):
        path = tmp_path / f"{tag}.json"
        path.write_text(json.dumps({"name": tag, "register": reg, "lane": lane, "warp": warp, "block": [],
                                    "out_dims": {"dim0": rows, "dim1": cols}}))
        files += ["--linear-layout", f"{tag}:{path}"]
    argv = ["--rows", str(rows), "--cols", str(cols), "--dtype", "f16", "--arch", "gfx950", "--vectors", "auto", *files]
    text = clirun.solve(*argv)
    assert text.returncode == 0, text.stderr
    assert "load: 8-byte reads transposed in 16-lane groups (ds_read_b64_tr_b16)" in text.stdout
    doc = json.loads(clirun.solve(*argv, "--json").stdout)
    validate(doc, "vectors-auto.schema.json")
    load = doc["answer"]["accesses"][1]
    assert (load["instruction"], load["vector_bytes"], load["direction"]) == ("ds_read_b64_tr_b16", 8, "load")


@pytest.mark.parametrize("seed", range(6))
def test_random_layouts_recounted_and_a_mixed_element_bit_refused(seed):
    """Layouts drawn at random with the read's lane bases 0, 1 at offset bits 0, 1 and every other
    base of the operand mixed at random above them: the tool's count is the per-lane recount's; then
    lane base 0 mixed into one base above: no layout keeps each element in its place (both refuse)."""
    import random

    from swizzle_solver.families.general_linear import of_columns

    rng = random.Random(seed)
    name, rows, cols, e, src, dst = PAIRS[0]
    tile, hw = make_tile(rows, cols, None, e), target("gfx950")
    load = access_of("dst", tile, *dst)
    rest = [*load.lane[2:], *load.register, *load.warp]
    rng.shuffle(rest)
    for i in range(len(rest)):  # an invertible mix of the others among themselves
        for j in range(i):
            if rng.random() < 0.3:
                rest[i] ^= rest[j]
    for broken in (False, True):
        pre = list(load.lane[:2]) + rest
        if broken:
            pre[2 + rng.randrange(len(rest))] ^= load.lane[0]
        bases = list(of_columns(pre).offset_bases)  # the layout sending pre[b] to offset bit b
        m = vectors.tr_moved(load, bases, tile, hw)
        counted = recount_tr(load, bases, tile, hw, "ds_read_b64_tr_b16")
        if broken:
            assert m is None and counted is None
        else:
            assert m is not None and counted == (m.instructions, m.wavefronts)
