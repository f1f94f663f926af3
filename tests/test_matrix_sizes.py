"""ldmatrix / stmatrix for 1- and 4-byte data (issue 35): the b16 is only the unit, a 16-byte row is
bits. Each answer is recounted here per lane from the PTX ISA's rule, not by the tool's simulator:
lane l of a (non-transposed) .m8n8 matrix receives the 32-bit word at bytes 4 (l % 4) .. + 3 of row
l / 4, the 8 rows' addresses given by lanes 8i .. 8i+7 for matrix i; one matrix is one phase, whose
cost is the most distinct 4-byte words in one of the 32 banks."""
from __future__ import annotations

import pytest

from swizzle_solver import vectors
from swizzle_solver.access import make_tile
from swizzle_solver.hardware import target


def access_of(name, tile, reg, lane, warp, store=False):
    f = lambda vs: tuple(r * tile.cols + c for r, c in vs)  # noqa: E731
    return vectors.RegisterAccess(name, f(reg), f(lane), f(warp), store=store)


def xor_span(bases, k):
    out = 0
    for i, b in enumerate(bases):
        if k >> i & 1:
            out ^= b
    return out


def matrix_recount(access, offset_bases, e):
    """(wavefronts, matrices) of the access read by non-transposed ldmatrix, recounted per lane; None
    where some lane's 32-bit register is not the word ldmatrix gives it (not contiguous, not at byte
    4 (l % 4) of a 16-byte row, or the four lanes of a row disagree on the row)."""
    per_reg = 4 // e  # elements in one 32-bit register: register-index bits below log2(per_reg)
    regs = 1 << len(access.register)
    wavefronts = matrices = 0
    for w in range(1 << len(access.warp)):
        for slot in range(regs // per_reg):
            rows = {}
            for lane in range(32):
                x0 = xor_span(access.warp, w) ^ xor_span(access.lane, lane)
                addrs = [e * xor_span(offset_bases, x0 ^ xor_span(access.register, slot * per_reg + k))
                         for k in range(per_reg)]
                first = addrs[0]
                if any(a != first + e * k for k, a in enumerate(addrs)) or first % 16 != 4 * (lane % 4):
                    return None
                if rows.setdefault(lane // 4, first - first % 16) != first - first % 16:
                    return None
            banks: dict[int, set[int]] = {}
            for start in rows.values():
                for word in range(start // 4, start // 4 + 4):
                    banks.setdefault(word % 32, set()).add(word)
            wavefronts += max(len(s) for s in banks.values())
            matrices += 1
    return wavefronts, matrices


# 32 x 32 f32: lanes 0, 1 along a row (4 elements: one 16-byte row), lanes 2 to 4 down the rows;
# 32 x 64 i8: the lane's first two registers are a 32-bit word's bytes, lanes 0, 1 the next 12 bytes
CASES = {
    "f32": (32, 32, 4,  # the stored side: 2 x 16 lanes of 4 elements along a row, registers down
            [(0, 1), (0, 2), (8, 0), (16, 0), (0, 16)], [(0, 4), (0, 8), (1, 0), (2, 0), (4, 0)],
            [(0, 4), (0, 8), (0, 16), (8, 0), (16, 0)], [(0, 1), (0, 2), (1, 0), (2, 0), (4, 0)]),
    "i8": (32, 64, 1,
           [(0, 1), (0, 2), (0, 4), (0, 8), (8, 0), (16, 0)],  # the stored side: 16-byte row vectors
           [(0, 16), (0, 32), (1, 0), (2, 0), (4, 0)],
           [(0, 1), (0, 2), (0, 16), (0, 32), (8, 0), (16, 0)], [(0, 4), (0, 8), (1, 0), (2, 0), (4, 0)]),
}


@pytest.mark.parametrize("name", ["f32", "i8"])
def test_ldmatrix_for_1_and_4_byte_data_agrees_with_a_per_lane_recount(name):
    rows, cols, e, sreg, slane, dreg, dlane = CASES[name]
    tile, hw = make_tile(rows, cols, None, e), target("nvidia")
    src = access_of("src", tile, sreg, slane, [], store=True)
    dst = access_of("dst", tile, dreg, dlane, [])
    auto = vectors.solve_auto([src, dst], tile, hw, None)
    m = auto.answer.accesses[1]
    assert m.instruction == "ldmatrix.x4"
    bases = auto.answer.layout.bases(tile)
    recount = matrix_recount(dst, bases, e)
    assert recount is not None
    assert (m.wavefronts, m.instructions) == (recount[0], recount[1] // 4)
    assert m.wavefronts == m.lower_bound == rows * cols * e // 128  # conflict-free
    # the same operand read one element a lane takes more instructions
    assert vectors.moved(dst, bases, tile, hw, fixed=[]).instructions > m.instructions
    # as a store, stmatrix (sm_90) the same way
    st = vectors.moved(vectors.RegisterAccess("dst", dst.register, dst.lane, dst.warp, store=True), bases, tile, hw)
    assert (st.instruction, st.wavefronts, st.instructions) == ("stmatrix.x4", m.wavefronts, m.instructions)


def test_no_transposed_ldmatrix_for_4_byte_data():
    """.trans moves 16-bit units between lanes: a 4-byte element would be split; so only the
    non-transposed form for f32 (the lane map of a transposed read gets ld.shared)."""
    tile, hw = make_tile(32, 32, None, 4), target("nvidia")
    dst = access_of("dst", tile, [(0, 1), (8, 0), (16, 0), (0, 8), (0, 16)], [(1, 0), (2, 0), (0, 2), (0, 4), (4, 0)],
                    [])
    pre = [1 << (5 + i) if i < 5 else 1 << (i - 5) for i in range(10)]  # column-major
    forms = vectors.matrix_forms(dst, pre, tile, hw)
    assert all(not s.endswith(".trans") for s, _, _ in forms)


def test_i8_words_from_any_register_directions_but_not_from_lanes():
    """1-byte data: the four bytes of a 32-bit word may be any of the lane's register directions (8-bit
    values are packed into words by prmt in any order, as Triton does), never a lane direction."""
    tile, hw = make_tile(32, 64, None, 1), target("nvidia")
    _, _, _, _, _, dreg, dlane = CASES["i8"]
    dst = access_of("dst", tile, dreg, dlane, [])
    rest = [dst.register[3], dst.register[4], dst.register[5], dst.lane[2], dst.lane[3], dst.lane[4]]
    swapped = [dst.register[2], dst.register[0], dst.lane[0], dst.lane[1]]
    assert vectors.matrix_forms(dst, swapped + [dst.register[1]] + rest, tile, hw)[0][0] == ""
    lane_inside = [dst.lane[2], dst.register[0], dst.lane[0], dst.lane[1]]
    assert not any(s == "" for s, _, _ in vectors.matrix_forms(dst, lane_inside + [dst.register[1]] + rest, tile, hw))
