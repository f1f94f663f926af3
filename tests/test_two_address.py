"""--vectors auto on AMD: a lane's two vectors issued by one two-address instruction (ds_read2_b32,
ds_read2st64_b64, ds_write2_b32, ...; issue 35 item 1).

The answers are recounted by a per-lane brute force written here from the hardware's rules: each
lane's register elements at the answer's physical offsets, grouped into whole aligned vectors; every
way to pair a lane's vectors along one register direction; a pairing is one instruction only where
the second address is the first plus one distance for every lane and warp (the immediates are in the
code) that the encoding holds: two 8-bit offsets in units of the lane's width, or of 64 of them for
st64; each instruction's slots (every lane's first address, then every second) split by the op's
cell in hardware.py (its phase table and banks, the data) and counted here: the most distinct dwords
in one bank per phase. The single-address requests are split by their op's own cell too (as
--vectors auto measures them: tests/test_amd_cells.py)."""
from __future__ import annotations

import pytest

from swizzle_solver import gf2, vectors
from swizzle_solver.access import make_tile
from swizzle_solver.access.triton_layout import layout_pattern
from swizzle_solver.families.general_linear import GeneralLinear
from swizzle_solver.hardware import target
from swizzle_solver.model import Problem
from swizzle_solver.solving import solve

OFFSET_MAX = 255


def access_of(name, tile, reg, lane, warp, store=False):
    f = lambda vs: tuple(r * tile.cols + c for r, c in vs)  # noqa: E731
    return vectors.RegisterAccess(name, f(reg), f(lane), f(warp), store=store)


def span(basis):
    return [gf2.apply(list(basis), i) for i in range(1 << len(basis))]


def vectors_of(access, bases, tile, v):
    """{(warp, lane): {register index: the byte its vector starts at}}, each vector checked whole
    (its v / e elements are registers of the lane at consecutive offsets) and the lane's registers
    grouped into vectors the same way in every lane and warp; and that grouping."""
    e = tile.elem_bytes
    layout = GeneralLinear(tuple(bases))
    regs = span(access.register)
    grouping = None
    out = {}
    for w, wx in enumerate(span(access.warp)):
        for lx_i, lx in enumerate(span(access.lane)):
            byte = {r: int(layout.apply(wx ^ lx ^ x)) * e for r, x in enumerate(regs)}
            starts = {r: b // v * v for r, b in byte.items()}
            classes = {}
            for r, s in starts.items():
                classes.setdefault(s, []).append(r)
            for s, members in classes.items():
                assert sorted(byte[r] for r in members) == list(range(s, s + v, e)), "a vector split"
            shape = sorted(tuple(sorted(m)) for m in classes.values())
            assert grouping in (None, shape), "registers grouped differently in another lane"
            grouping = shape
            out[(w, lx_i)] = starts
    return out, grouping


def dword_cost(phases_bytes, v, banks):
    """Sum over phases of the most distinct dwords in one bank (each phase: the start bytes of its
    slots, each reading v bytes)."""
    total = 0
    for starts in phases_bytes:
        per_bank: dict[int, set] = {}
        for s in starts:
            for b in range(s, s + v, 4):
                per_bank.setdefault(b // 4 % banks, set()).add(b // 4)
        total += max(len(x) for x in per_bank.values())
    return total


def encoded(distances, v, write):
    """The op the distances (bytes, one per instruction) are encodable in, or None."""
    kind = "ds_write2" if write else "ds_read2"
    if all(d % v == 0 and abs(d) // v <= OFFSET_MAX for d in distances):
        return f"{kind}_b{8 * v}"
    if all(d % (64 * v) == 0 and abs(d) // (64 * v) <= OFFSET_MAX for d in distances):
        return f"{kind}st64_b{8 * v}"
    return None


def pairings(access, grouping):
    """Every way to pair a lane's vectors along one register direction d (each vector with the one
    holding its registers XOR d): lists of (vector, partner), vectors by their index in ``grouping``."""
    regs = span(access.register)
    index = {x: r for r, x in enumerate(regs)}
    cls = {r: k for k, g in enumerate(grouping) for r in g}
    for d in regs[1:]:
        partner = {}
        for k, g in enumerate(grouping):
            images = {cls[index[regs[r] ^ d]] for r in g}
            if len(images) != 1 or images == {k}:
                break
            partner[k] = images.pop()
        else:
            yield [(k, partner[k]) for k in range(len(grouping)) if k < partner[k]]


def distances(starts, reps, pairs):
    """Each pair's distance (bytes from the first vector to the second), or None where it is not the
    same for every lane and warp."""
    out = []
    for a, b in pairs:
        seen = {starts[key][reps[b]] - starts[key][reps[a]] for key in starts}
        if len(seen) != 1:
            return None
        out.append(seen.pop())
    return out


def brute(access, bases, tile, hw, v):
    """(single: (instructions, wavefronts), paired: the least (wavefronts, instructions) over every
    pairing the encoding allows, with the ops that reach it, or None)."""
    starts, grouping = vectors_of(access, bases, tile, v)
    warps, wave = 1 << len(access.warp), hw.wave_lanes
    reps = [g[0] for g in grouping]
    cell = hw.rule(vectors.instruction_name(hw, v, access.store))  # the single-address op's own cell
    single = sum(dword_cost([[starts[(w, lane)][r] for lane in p] for p in cell.phases], v, cell.banks)
                 for w in range(warps) for r in reps)
    best = None
    for pairs in pairings(access, grouping):
        dist = distances(starts, reps, pairs)
        rule = hw.rule(encoded(dist, v, access.store) or "") if dist is not None else None
        if rule is None:
            continue
        cost = 0
        for w in range(warps):  # each instruction: every lane's first address (slot l), then its second
            for a, b in pairs:
                slot = [starts[(w, s % wave)][reps[a] if s < wave else reps[b]] for s in range(2 * wave)]
                cost += dword_cost([[slot[s] for s in p] for p in rule.phases], v, rule.banks)
        key = (cost, warps * len(pairs))
        if best is None or key < best[:2]:
            best = (*key, {rule.op})
        elif key == best[:2]:
            best[2].add(rule.op)
    return (warps * len(reps), single), best


def solved(arch, rows, cols, e, src, dst):
    """The --vectors auto answer of a layout conversion (src stored, dst loaded), as bench/triton_pairs.py
    solves it: the plain solve's answer first."""
    tile, hw = make_tile(rows, cols, None, e), target(arch)
    accs = [access_of("src", tile, *src, store=True), access_of("dst", tile, *dst)]
    pats = []
    for a in accs:
        rc = lambda xs: [(x // cols, x % cols) for x in xs]  # noqa: E731
        bases = {"register": rc(a.register), "lane": rc(a.lane), "warp": rc(a.warp)}
        pats.append(layout_pattern(a.name, bases, (rows, cols), tile, hw, a.name))
    plain = solve(Problem(tile, hw, tuple(pats)), table=False).answer.layout
    return vectors.solve_auto(accs, tile, hw, plain), accs, tile, hw


# Triton 3.9's own layouts (bench/triton_pairs.py's AMD pairs, their bases as to_linear_layout gives
# them): (name, arch, rows, cols, elem bytes, source (register, lane, warp), destination).
PAIRS = [
    ("gfx942 64x64 f16 mfma32->blocked", "gfx942", 64, 64, 2,
     (((0, 1), (0, 2), (0, 8), (0, 16)), ((1, 0), (2, 0), (4, 0), (8, 0), (16, 0), (0, 4)), ((0, 32), (32, 0))),
     (((0, 1), (0, 2), (0, 4), (32, 0)), ((0, 8), (0, 16), (0, 32), (1, 0), (2, 0), (4, 0)), ((8, 0), (16, 0)))),
    ("gfx950 64x128 i8 blocked->mfma16", "gfx950", 64, 128, 1,
     (((0, 1), (0, 2), (0, 4), (0, 8), (32, 0)), ((0, 16), (0, 32), (0, 64), (1, 0), (2, 0), (4, 0)),
      ((8, 0), (16, 0))),
     (((0, 1), (0, 2), (0, 16), (0, 32), (0, 64)), ((1, 0), (2, 0), (4, 0), (8, 0), (0, 4), (0, 8)),
      ((16, 0), (32, 0)))),
    ("gfx942 32x64 i8 mfma16->blocked", "gfx942", 32, 64, 1,
     (((0, 1), (0, 2), (0, 32)), ((1, 0), (2, 0), (4, 0), (8, 0), (0, 4), (0, 8)), ((0, 16), (16, 0))),
     (((0, 1), (0, 2), (0, 4)), ((0, 8), (0, 16), (1, 0), (2, 0), (4, 0), (8, 0)), ((0, 32), (16, 0)))),
    # the bench's "loss?" pair (10 s to solve while its writes were counted on the reads' 64 banks, 0.1 s
    # by their own cells: the width floors take each op's banks)
    ("gfx950 128x128 f16 blocked->dot B", "gfx950", 128, 128, 2,
     (((0, 1), (0, 2), (0, 4), (0, 32), (0, 64), (64, 0)),
      ((0, 8), (0, 16), (1, 0), (2, 0), (4, 0), (8, 0)), ((16, 0), (32, 0))),
     (((1, 0), (2, 0), (4, 0), (16, 0), (32, 0), (64, 0)),
      ((0, 1), (0, 2), (0, 4), (0, 8), (0, 16), (8, 0)), ((0, 32), (0, 64)))),
]


@pytest.mark.parametrize("name, arch, rows, cols, e, src, dst", PAIRS, ids=lambda x: x if isinstance(x, str) and
                         " " in x else None)
def test_two_address_answers_agree_with_a_per_lane_brute_force(name, arch, rows, cols, e, src, dst):
    auto, accs, tile, hw = solved(arch, rows, cols, e, src, dst)
    bases = auto.answer.layout.bases(tile)
    # (on the dot B pair a ds_read_b64_tr_b16 reaches the same counts as the two-address answer it had:
    # the tie goes by storage, family and order; tests/test_transpose_read.py recounts that form)
    assert any("2" in m.instruction.split("_")[1] or m.instruction.startswith("ds_read_b64_tr")
               for m in auto.answer.accesses), "no two-address form used"
    for m, a in zip(auto.answer.accesses, accs):
        if m.instruction.startswith("ds_read_b64_tr"):
            from test_transpose_read import recount_tr

            assert recount_tr(a, bases, tile, hw, m.instruction) == (m.instructions, m.wavefronts)
            continue
        single, paired = brute(a, bases, tile, hw, m.vector_bytes)
        if m.instruction.startswith(("ds_read2", "ds_write2")):
            assert paired is not None
            # the answer's form is the least the brute force finds, and at most the single requests
            assert (m.wavefronts, m.instructions) == paired[:2] and m.instruction in paired[2]
            assert (paired[0], paired[1]) < (single[1], single[0])
        else:
            assert (m.instructions, m.wavefronts) == single
            assert paired is None or (paired[0], paired[1]) >= (single[1], single[0])
    assert auto.answer.instructions == sum(m.instructions for m in auto.answer.accesses)


# 8 x 128 f32: lanes at columns 1 .. 32 (offset bits 0-4 and 6 under the layouts below), registers at
# column 64 (A) and row 1 (B), warps at rows 2 and 4 (offset bits 7 and 9); a layout's offset bases are
# the images of logical bits 0-5 (lanes), 6 (A), 7 (B), 8, 9 (warps). 4-byte vectors (offset bit 0
# is a lane's), 4 instructions per warp unpaired, 2 paired.
TILE = (8, 128, 4)
LANE_BITS = [1, 2, 4, 8, 16, 64]
WARP_BITS = [128, 512]


def one_access(a_image, b_image):
    tile = make_tile(*TILE[:2], None, TILE[2])
    acc = access_of("x", tile, [(0, 64), (1, 0)], [(0, 1), (0, 2), (0, 4), (0, 8), (0, 16), (0, 32)],
                    [(2, 0), (4, 0)])
    bases = LANE_BITS + [a_image, b_image] + WARP_BITS
    assert gf2.rank(bases) == 10
    return acc, bases, tile


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
@pytest.mark.parametrize("a_image, b_image, op, distance", [
    (32, 257, "ds_read2_b32", 32),  # A 32 dwords apart (B and A^B move a lane's bit 0: no)
    (256, 33, "ds_read2st64_b32", 256),  # A 256 dwords apart: 4 units of 64
])
def test_a_constant_encodable_distance_is_one_instruction(arch, a_image, b_image, op, distance):
    acc, bases, tile = one_access(a_image, b_image)
    hw = target(arch)
    m = vectors.moved(acc, bases, tile, hw)
    single, paired = brute(acc, bases, tile, hw, 4)
    assert m.instruction == op and m.instructions == 4 * 2  # 4 warps, one pair each
    assert (m.wavefronts, m.instructions, {m.instruction}) == paired
    assert m.pair == 64  # the pair moves along A (column 64)
    assert vectors.two_address_op(4, __import__("numpy").array([distance * 4, -distance * 4]), False) == op


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
@pytest.mark.parametrize("a_image, b_image, why", [
    # A: 288 dwords (+288 or -224): past 8 bits of 4 bytes, not 64 of them; B, A^B move a lane's bit 0
    (256 + 32, 257, "out of range"),
    # A moves a lane's bit 0, B its bit 1: the distance differs between lanes; A^B moves both
    (33, 258, "not the same for every lane"),
])
def test_a_distance_the_encoding_cannot_hold_is_two_instructions(arch, a_image, b_image, why):
    acc, bases, tile = one_access(a_image, b_image)
    hw = target(arch)
    m = vectors.moved(acc, bases, tile, hw)
    single, paired = brute(acc, bases, tile, hw, 4)
    assert paired is None, why
    assert (m.instruction, m.instructions, m.wavefronts) == ("ds_read_b32", single[0], single[1])
    assert m.pair == 0


def test_the_offset_encoding_limits():
    import numpy as np

    op = vectors.two_address_op
    assert op(4, np.array([255 * 4, -255 * 4]), False) == "ds_read2_b32"  # 8 bits of units
    assert op(4, np.array([256 * 4]), False) == "ds_read2st64_b32"  # 256 = 4 x 64
    assert op(4, np.array([257 * 4]), False) is None
    assert op(8, np.array([255 * 8, 8]), True) == "ds_write2_b64"
    assert op(8, np.array([255 * 64 * 8]), True) == "ds_write2st64_b64"
    assert op(8, np.array([256 * 64 * 8]), True) is None  # past 8 bits of 64 units
    assert op(8, np.array([8, 256 * 8]), True) is None  # one instruction fits only plain, the other only st64
    assert op(16, np.array([16]), False) is None and op(2, np.array([2]), False) is None  # no such forms


def test_nvidia_has_no_two_address_form_and_gfx1250s_is_not_bounded_by_its_singles():
    acc, bases, _ = one_access(32, 257)
    tile = make_tile(*TILE[:2], None, TILE[2])
    nv = vectors.moved(access_of("x", tile, [(0, 64), (1, 0)], [(0, 1), (0, 2), (0, 4), (0, 8), (0, 16)],
                                 [(0, 32), (2, 0), (4, 0)]), bases, tile, target("nvidia"))
    assert not nv.instruction.startswith("ds_") and nv.pair == 0
    for arch in ("gfx90a", "gfx942", "gfx950", "rdna3", "rdna4"):  # two passes: never fewer wavefronts
        assert all(vectors.bounded_by_singles(target(arch), f"ds_{d}2_b{b}") for d in ("read", "write")
                   for b in (32, 64))
    assert not vectors.bounded_by_singles(target("gfx1250"), "ds_read2_b32")  # both addresses in one phase
    # so a gfx1250 search where vectors may pair does not claim to be complete
    t = make_tile(32, 32, None, 4)
    a = access_of("a", t, [(0, 1), (1, 0)], [(0, 2), (0, 4), (0, 8), (0, 16), (2, 0)], [(4, 0), (8, 0), (16, 0)])
    auto = vectors.solve_auto([a], t, target("gfx1250"), None)
    assert not auto.kernel_complete and "ds_read2_b" in auto.why_not


def test_gfx1250_serves_both_addresses_in_one_phase():
    """gfx1250's cell (both addresses of every lane in one phase of 64 banks): a second address 64
    dwords after the first lands in the first's bank, 2 wavefronts an instruction, as many as its two
    single reads (one phase each) but one instruction."""
    tile, hw = make_tile(8, 128, None, 4), target("gfx1250")
    acc = access_of("x", tile, [(0, 64), (1, 0)], [(0, 1), (0, 2), (0, 4), (0, 8), (0, 16)], [(0, 32), (2, 0), (4, 0)])
    bases = [1, 2, 4, 8, 16, 128, 64, 33, 256, 512]  # A (column 64) 64 dwords on; B moves a lane's bit 0
    m = vectors.moved(acc, bases, tile, hw)
    single, paired = brute(acc, bases, tile, hw, 4)
    assert (m.wavefronts, m.instructions, {m.instruction}) == paired == (32, 16, {"ds_read2_b32"})
    assert single == (32, 32)  # (instructions, wavefronts): 8 warps x 4 registers, one phase each


def test_a_pair_stays_in_one_round():
    """gfx942 64 x 128 f16 mfma32 -> dot A (Triton's layouts; Triton converts it with shuffles): the
    answer pairs both sides' vectors and moves the tile in rounds through a smaller buffer; both
    vectors of every two-address instruction lie in one round (the offset bits that number the
    rounds are equal at both), or one instruction would need two rounds' data at once."""
    src = (((0, 1), (0, 2), (0, 8), (0, 16), (0, 32), (0, 64)), ((1, 0), (2, 0), (4, 0), (8, 0), (16, 0), (0, 4)),
           ((32, 0),))
    auto, accs, tile, hw = solved("gfx942", 64, 128, 2, src, src)
    layout = GeneralLinear(tuple(auto.answer.layout.bases(tile)))
    bits = auto.rounds.bits
    assert auto.rounds.rounds > 1
    paired = [m for m in auto.answer.accesses if m.pair]
    assert paired
    for m in paired:
        for x in range(tile.size):
            a, b = int(layout.apply(x)), int(layout.apply(x ^ m.pair))
            assert [a >> k & 1 for k in bits] == [b >> k & 1 for k in bits]
