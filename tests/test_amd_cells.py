"""On AMD, --vectors auto and --linear-layout count each single-address LDS op by its own cell.

A write on gfx950 is served on 32 banks in 4 phases of 16 lanes (ds_write_b64, measured), not on
the reads' 64; a ds_write_b128 on gfx942 in 8 contiguous groups of 8 lanes, not the reads'
non-contiguous groups. The counts here are recounted by a per-lane brute force written in the test
from the op's cell in hardware.py (its phase table: which lanes share a phase; its banks; dwords):
each lane's vector at the layout's physical offsets, the most distinct dwords in one bank per
phase. Each case first checks that the cell differs from the phase rule by width, so the recount
would fail under the old counting."""
from __future__ import annotations

import json
import random

import pytest

from swizzle_solver import vectors
from swizzle_solver.access import make_tile
from swizzle_solver.cli import main
from swizzle_solver.hardware import target
from tests.test_two_address import PAIRS, access_of, dword_cost, solved, vectors_of


def by_cell(access, bases, tile, hw, v, op):
    """(instructions, wavefronts) of the access's v-byte vectors issued as ``op``, counted here from
    op's cell: its phase table (lane indices) and its bank count."""
    rule = hw.rule(op)
    starts, grouping = vectors_of(access, bases, tile, v)
    reps = [g[0] for g in grouping]
    warps = 1 << len(access.warp)
    cost = sum(dword_cost([[starts[(w, lane)][r] for lane in phase] for phase in rule.phases], v, rule.banks)
               for w in range(warps) for r in reps)
    return warps * len(reps), cost


def by_width(access, bases, tile, hw, v):
    """The same under the phase rule by width and the target's banks (what the tool counted before)."""
    starts, grouping = vectors_of(access, bases, tile, v)
    reps = [g[0] for g in grouping]
    phases = hw.phase_indices(1 << len(access.lane), v)
    return sum(dword_cost([[starts[(w, lane)][r] for lane in p] for p in phases], v, hw.banks)
               for w in range(1 << len(access.warp)) for r in reps)


def mixed_layouts(n, keep, seed):
    """Offset bases of invertible layouts over n index bits that keep the low ``keep`` bits (a lane's
    vector) in place: the identity, then random XORs of the other bases."""
    rng = random.Random(seed)
    out = [[1 << i for i in range(n)]]
    for _ in range(4):
        bases = [1 << i for i in range(n)]
        for _ in range(3 * n):
            a, b = rng.sample(range(keep, n), 2)
            bases[a] ^= bases[b]
        out.append(bases)
    return out


# (arch, op, rows, cols, elem bytes, register, lane, warp, store): 64 x 64 f16, a wave of 64 lanes
CASES = [
    ("gfx950", "ds_write_b64", 4,
     [(0, 1), (0, 2), (16, 0), (32, 0)], [(0, 4), (0, 8), (0, 16), (0, 32), (1, 0), (2, 0)], [(4, 0), (8, 0)], True),
    ("gfx950", "ds_write_b64", 4,
     [(0, 1), (0, 2), (0, 4), (0, 8)], [(1, 0), (2, 0), (4, 0), (8, 0), (16, 0), (32, 0)], [(0, 16), (0, 32)], True),
    ("gfx942", "ds_write_b128", 8,
     [(0, 1), (0, 2), (0, 4), (32, 0)], [(0, 8), (0, 16), (0, 32), (1, 0), (2, 0), (4, 0)], [(8, 0), (16, 0)], True),
    ("gfx942", "ds_write_b128", 8,
     [(0, 1), (0, 2), (0, 4), (0, 8)], [(1, 0), (2, 0), (4, 0), (8, 0), (16, 0), (32, 0)], [(0, 16), (0, 32)], True),
    ("gfx950", "ds_read_b32", 2,  # 32 banks by its cell (disputed: the robust reading's first), 64 by width
     [(0, 1), (0, 2), (16, 0), (32, 0)], [(0, 4), (0, 8), (0, 16), (0, 32), (1, 0), (2, 0)], [(4, 0), (8, 0)], False),
]


@pytest.mark.parametrize("arch, op, vec, reg, lane, warp, store", CASES)
def test_single_address_ops_counted_by_their_cells(arch, op, vec, reg, lane, warp, store):
    tile, hw = make_tile(64, 64, None, 2), target(arch)
    rule = hw.rule(op)
    v = 2 * vec
    assert (rule.banks, rule.phases) != (hw.banks, tuple(map(tuple, hw.phase_indices(64, v)))), "cell = rule by width"
    a = access_of("x", tile, reg, lane, warp, store=store)
    fixed = [x for x in a.register if x < vec]  # the vector: the registers of its low elements
    differs = False
    for bases in mixed_layouts(12, (vec - 1).bit_length(), seed=len(reg) + v):
        m = vectors.moved(a, bases, tile, hw, fixed=fixed)
        assert m.instruction == op and m.vector_bytes == v
        assert (m.instructions, m.wavefronts) == by_cell(a, bases, tile, hw, v, op)
        differs |= m.wavefronts != by_width(a, bases, tile, hw, v)
    assert differs, "no layout where the cell and the rule by width disagree: the case tests nothing"


def test_an_answers_write_and_read_recounted_by_their_cells():
    """gfx942 64x64 f16 mfma32->blocked: the answer's ds_write_b128 (8 contiguous lanes a phase, not the
    reads' groups) recounted from its cell; every single-address access of the answer likewise."""
    name, arch, rows, cols, e, src, dst = PAIRS[0]
    auto, accs, tile, hw = solved(arch, rows, cols, e, src, dst)
    bases = auto.answer.layout.bases(tile)
    ops = [m.instruction for m in auto.answer.accesses]
    assert "ds_write_b128" in ops
    for m, a in zip(auto.answer.accesses, accs):
        if not m.instruction.startswith(("ds_read2", "ds_write2")):
            assert (m.instructions, m.wavefronts) == by_cell(a, bases, tile, hw, m.vector_bytes, m.instruction)


def test_a_gfx950_answer_read_by_its_cell():
    """gfx950 64x128 i8 blocked->mfma16: the answer's ds_read_b128 recounted from its cell (64 banks,
    non-contiguous groups of 16)."""
    name, arch, rows, cols, e, src, dst = PAIRS[1]
    auto, accs, tile, hw = solved(arch, rows, cols, e, src, dst)
    bases = auto.answer.layout.bases(tile)
    singles = [(m, a) for m, a in zip(auto.answer.accesses, accs) if m.instruction == "ds_read_b128"]
    assert singles
    for m, a in singles:
        assert (m.instructions, m.wavefronts) == by_cell(a, bases, tile, hw, m.vector_bytes, m.instruction)


def _totals(capsys, *argv):
    code = main(["--rows", "64", "--cols", "64", "--dtype", "f16", "--arch", "gfx950", *argv, "--json"])
    out, err = capsys.readouterr()
    assert code in (0, 1) and err == ""  # 1: the checked layout has conflicts
    [acc] = json.loads(out)["answer"]["per_access"]
    return acc["total_wavefronts"], acc["baseline_total_wavefronts"]


@pytest.mark.parametrize("layout", ["none", "Swizzle<3,2,3>", "Swizzle<2,2,5>"])
def test_a_linear_layout_store_on_gfx950_counts_as_its_op_form(tmp_path, capsys, layout):
    """--linear-layout store: on gfx950 (lane l writes 8 bytes at row l: ds_write_b64) counts what the
    OP form ds_write_b64:64x1 counts for the same addresses: 32 banks, 4 phases of 16 lanes."""
    path = tmp_path / "ll.json"
    path.write_text(json.dumps({"register": [[0, 1], [0, 2]], "lane": [[1 << i, 0] for i in range(6)]}))
    linear = _totals(capsys, "--linear-layout", f"store:{path}", "--check", layout)
    op_form = _totals(capsys, "--access", "ds_write_b64:64x1", "--check", layout)
    assert linear == op_form
    if layout == "none":  # every row 128 bytes apart: 16 lanes of a phase on one pair of 32 banks
        assert linear[0] == 16 * 16 * 4  # 16 instructions (64 x 64 / (64 lanes x 4)), 4 phases, 16-way


def test_a_chain_of_32_and_64_bank_ops_has_a_floor_on_64_banks():
    """gfx950, 32 x 64 f16: a store of 8-byte vectors (ds_write_b64, 32 banks) and a load of 16-byte ones
    (ds_read_b128, 64 banks). The chain's kernel cost on the target's 64 banks is a floor of every layout
    with that chain (a phase on 32 banks costs at least what it costs on 64), not exact: checked here
    against the two constructions and 60 layouts near them, every op counted by its cell."""
    from swizzle_solver import gf2
    from swizzle_solver.families.general_linear import of_columns

    tile, hw = make_tile(32, 64, None, 2), target("gfx950")
    src = ([(0, 1), (0, 2), (16, 0)], [(0, 4), (0, 8), (0, 16), (0, 32), (1, 0), (2, 0)], [(4, 0), (8, 0)])
    dst = ([(0, 1), (0, 2), (0, 4)], [(1, 0), (2, 0), (4, 0), (8, 0), (0, 8), (0, 16)], [(16, 0), (0, 32)])
    accs = [access_of("src", tile, *src, store=True), access_of("dst", tile, *dst)]
    vector = [1, 2, 4]  # offsets 1, 2 in both accesses' registers, 4 only in the load's
    assert vectors.op_banks(accs, vector, tile, hw) == {"ds_write_b64": 32, "ds_read_b128": 64}
    built, kern, floor_holds = vectors.construct_for(accs, vector, tile, hw)
    assert kern.complete and floor_holds
    other, _, exact = vectors.construct_for(accs, vector, tile, hw.serving(32))
    assert not exact  # the 32-bank construction proves nothing of the 64-bank load
    rng = random.Random(7)
    seen = []
    for layout in (built, other):
        columns = vectors.preimages_of(layout.bases(tile))
        assert columns[:3] == vector
        for _ in range(30):
            moved = list(columns)
            i, k = rng.sample(range(3, len(moved)), 2)
            moved[i] ^= moved[k]
            assert gf2.rank(moved) == len(moved)
            choice = vectors.measure_choice(of_columns(moved), accs, tile, hw, "near")
            if [m.vector_bytes for m in choice.accesses] == [8, 16]:  # the same chain
                seen.append(choice.wavefronts)
        c = vectors.measure_choice(layout, accs, tile, hw, "built")
        seen.append(c.wavefronts)
    assert len(seen) > 10 and min(seen) >= kern.cost
