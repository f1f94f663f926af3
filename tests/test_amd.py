"""AMD targets (issue 12, DESIGN.md section 9) against published hardware counts.

Each test names its source: the vectors of docs/hardware.md ("V1" ... from the research notes on
AMD LDS, section 6). The simulator computes every count from the phase tables of hardware.py; the
expected numbers are the published rocprof SQ_LDS_BANK_CONFLICT values.
"""
from __future__ import annotations

import json
import re

import numpy as np
import pytest

from swizzle_solver import api, simulate
from swizzle_solver.access.phases_file import load_phases
from swizzle_solver.access.tile import find_target
from swizzle_solver.hardware import ALIASES, TARGETS, contiguous
from swizzle_solver.model import InputError, Tile
from tests import clirun


def conflicts(problem, phys=None) -> list[int]:
    """SQ_LDS_BANK_CONFLICT of every instruction of every access: cost - phases."""
    tile = problem.tile
    if phys is None:
        r, c = np.meshgrid(np.arange(tile.rows), np.arange(tile.cols), indexing="ij")
        phys = r * tile.row_length + c
    out = []
    for res in simulate.simulate(tile, problem.hardware, problem.patterns, phys):
        out += (res.instruction_costs() - res.pattern.instruction_lower_bound).tolist()
    return out


def instructions_file(tmp_path, items) -> str:
    """A phases file of [[instruction]] tables: (name, op, lanes)."""
    text = ""
    for name, op, lanes in items:
        text += f'[[instruction]]\nname = "{name}"\nop = "{op}"\nlanes = {json.dumps([list(x) for x in lanes])}\n'
    path = tmp_path / "instr.toml"
    path.write_text(text)
    return str(path)


# --- V1: nod-ai MI300X strided sweeps (S4 docs/empirical-lds/cdna3info.md), per instruction -------

V1 = {
    ("ds_read_b32", 4): [(4, 0), (8, 2), (16, 6), (32, 14), (64, 30), (128, 62), (256, 62), (512, 62)],
    ("ds_read_b64", 8): [(8, 0), (16, 4), (32, 12), (64, 28), (128, 60), (256, 60), (512, 60)],
    ("ds_read_b128", 16): [(16, 0), (32, 8), (64, 24), (128, 56), (256, 56), (512, 56)],
}


@pytest.mark.parametrize("op,width,stride,expected",
                         [(op, w, s, e) for (op, w), pts in V1.items() for s, e in pts])
def test_v1_mi300x_strided_sweep(op, width, stride, expected):
    """Lane i reads `width` bytes at byte i * stride (one 64-lane wave): 21 published points."""
    words = width // 4
    p = api.problem(64, words, [f"{op}:64x1"], row_length=stride // 4, dtype="f32", arch="gfx942")
    assert conflicts(p) == [expected]


# --- V2: CK tutorial-14 transpose counters on MI300 (S11 assets/bank_conflict_numbers.csv) --------

TILES = 8192  # 1024 blocks x 8 k-iterations


def ck_write_lanes(w):  # MakeDistributionMK: lane l -> m = 16w + l/4, k = 8 (l%4) .. +7
    return [(16 * w + lane // 4, 8 * (lane % 4)) for lane in range(64)]


def ck_read_lanes(w, r):  # MakeDistributionKM: lane l -> k = 8w + l/8, m = 8 (l%8) + r
    return [(8 * (lane % 8) + r, 8 * w + lane // 8) for lane in range(64)]


def test_v2_01_row_major(tmp_path):
    """01 row-major (byte 2 (32m + k)): ds_write_b128 x1 and ds_read_u16 x8 per wave; measured 3,670,016."""
    items = [(f"w{w}", "ds_write_b128", ck_write_lanes(w)) for w in range(4)]
    items += [(f"r{w}.{r}", "ds_read_u16", ck_read_lanes(w, r)) for w in range(4) for r in range(8)]
    p = api.problem(64, 32, dtype="f16", arch="gfx942", phases=[instructions_file(tmp_path, items)])
    got = conflicts(p)
    assert got[:4] == [0] * 4 and set(got[4:]) == {14}
    assert TILES * sum(got) == 3_670_016


def test_v2_02_column_major(tmp_path):
    """02 column-major (byte 2 (m + 64k)): ds_write_b16 x8, ds_read_b128 x1; measured 1,572,864."""
    items = [(f"w{w}.{r}", "ds_write_b16", [(k + r, m) for m, k in ck_write_lanes(w)])
             for w in range(4) for r in range(8)]
    items += [(f"r{w}", "ds_read_b128", [(k, m) for m, k in ck_read_lanes(w, 0)]) for w in range(4)]
    p = api.problem(32, 64, dtype="f16", arch="gfx942", phases=[instructions_file(tmp_path, items)])
    got = conflicts(p)
    assert set(got[:32]) == {6} and got[32:] == [0] * 4
    assert TILES * sum(got) == 1_572_864


def test_v2_08_xor_layout(tmp_path):
    """08 XOR (MLdsLayer=2): phys byte 128 b + 16 (a ^ (b % 8)) + 2 (k % 8), a = 4 (m%2) + k/8,
    b = m/2; ds_write_b128 writes and ds_read_b128 reads (lane l: row l, K-chunk w); measured 0."""
    m, k = np.meshgrid(np.arange(64), np.arange(32), indexing="ij")
    a, b = 4 * (m % 2) + k // 8, m // 2
    phys = (128 * b + 16 * (a ^ (b % 8)) + 2 * (k % 8)) // 2
    items = [(f"w{w}", "ds_write_b128", ck_write_lanes(w)) for w in range(4)]
    items += [(f"r{w}", "ds_read_b128", [(lane, 8 * w) for lane in range(64)]) for w in range(4)]
    p = api.problem(64, 32, dtype="f16", arch="gfx942", phases=[instructions_file(tmp_path, items)])
    assert conflicts(p, phys) == [0] * 8
    assert conflicts(p) != [0] * 8  # the row-major layout does conflict: the XOR is what removes it


# --- V4: omniperf MI200 example (S13 profiling-by-example, LDS): N lanes at dword 32 tid -----------

@pytest.mark.parametrize("n", [1, 2, 5, 13, 20, 32, 33, 64])
def test_v4_omniperf_mi200_n_minus_1(tmp_path, n):
    """`index = threadIdx.x * 32`, one ds_read_b32, N active lanes: measured N-1 for N <= 20; the model
    continues with 31 for N = 32..33 and 62 for 64 (V1's saturation). An inactive lane repeats an
    active lane of its own half-wave (same dword: no cost), as an idle lane costs nothing."""
    lanes = [(i if i < n else (32 if n > 32 and i >= 32 else 0), 0) for i in range(64)]
    p = api.problem(64, 1, row_length=32, dtype="f32", arch="gfx90a",
                    phases=[instructions_file(tmp_path, [("conflicts", "ds_read_b32", lanes)])])
    assert conflicts(p) == [{32: 31, 33: 31, 64: 62}.get(n, n - 1)]


# --- V5/V6: pairwise lane-conflict groups (S8 HipKittens gfx950, S9 CK LDS probe gfx942) ----------

def ranges(*spans):
    return {i for a, b in spans for i in range(a, b + 1)}


PUBLISHED = {  # the groups as the sources list them (ranges), not as hardware.py builds them
    ("gfx942", "ds_read_b128"): [ranges((0, 3), (20, 23)), ranges((4, 7), (16, 19)), ranges((8, 11), (28, 31)),
                                 ranges((12, 15), (24, 27))],
    ("gfx950", "ds_read_b128"): [ranges((0, 3), (12, 15), (20, 27)), ranges((4, 11), (16, 19), (28, 31))],
    ("gfx950", "ds_read_b96"): [ranges((0, 3), (20, 23)), ranges((4, 7), (16, 19)), ranges((8, 11), (28, 31)),
                                ranges((12, 15), (24, 27))],
    ("gfx950", "ds_read_b64"): [ranges((0, 31))],
    ("gfx950", "ds_write_b64"): [ranges((0, 15)), ranges((16, 31))],
    ("gfx942", "ds_read_b64"): [ranges((0, 15)), ranges((16, 31))],
}


@pytest.mark.parametrize("arch,op", list(PUBLISHED))
def test_v5_v6_pairwise_matrix(tmp_path, arch, op):
    """Two active lanes i, j hitting one bank at different dwords (the probes' 256 B stride... here
    any same-bank pair) conflict iff the published table puts them in one group (+32: the same)."""
    groups = PUBLISHED[arch, op] + [{i + 32 for i in g} for g in PUBLISHED[arch, op]]
    rule = TARGETS[arch].rule(op)
    hw = TARGETS[arch].for_rule(rule)
    span = rule.banks * 4 // 4  # words: lane j one bank-period after lane i
    tile = Tile(2, rule.lane_bytes // 4, span, 4)
    for i in range(64):
        for j in range(i + 1, 64):
            # lane i at word 0, lane j at word span (same bank, other dword); the other lanes idle
            words = [[(lane == j) * tile.row_length + w for lane in ph if lane in (i, j)
                      for w in range(rule.lane_bytes // 4)] or [0]
                     for ph in hw.phase_indices(64, rule.lane_bytes)]
            extra = sum(int(simulate.placement_costs(np.array([w]), rule.banks)[0]) - 1 for w in words)
            assert extra == int(any(i in g and j in g for g in groups)), (arch, op, i, j)


# --- the targets and their names ------------------------------------------------------------------

def test_every_alias_and_unknown_arch():
    for alias, name in ALIASES.items():
        assert find_target(alias) is TARGETS[name]
    with pytest.raises(InputError, match="gfx942"):
        find_target("gfx9999")


def test_unknown_arch_exits_2():
    run = clirun.solve("--arch", "sm_999", "--rows", "8", "--cols", "8", "--access", "row")
    assert run.returncode == 2 and "gfx950" in run.stderr and "Traceback" not in run.stderr


def test_every_cell_is_a_partition_of_the_wave_with_a_source():
    for name, hw in TARGETS.items():
        for rule in hw.rules:
            lanes = sorted(i for ph in rule.phases for i in ph)  # ds_read2: slots l + a * wave (Rule.addresses)
            assert lanes == list(range(hw.wave_lanes * rule.addresses)), (name, rule.op)
            assert len({len(ph) for ph in rule.phases}) == 1 and rule.source and rule.confidence


def test_counter_and_warnings_in_json():
    """On AMD each access reports SQ_LDS_BANK_CONFLICT = worst - lower bound; an unverified cell
    is a top-level warning; NVIDIA output has no warning, and its counter is Nsight Compute's for one
    pass over the tile (DESIGN.md section 10, tests/test_counters.py)."""
    doc = api.check("none", rows=64, cols=64, dtype="f16", access=["ds_read_b128:64x1", "ds_write_b64:64x1"],
                    arch="gfx942").json()
    acc = doc["answer"]["per_access"]
    assert acc[0]["counter"] == {"SQ_LDS_BANK_CONFLICT": 56} and acc[0]["lower_bound"] == 8
    assert any("gfx942 ds_write_b64: unverified" in w for w in doc["warnings"])
    nv = api.check("none", rows=8, cols=32, access=["row"]).json()
    assert nv["warnings"] == [] and "SQ_LDS_BANK_CONFLICT" not in nv["answer"]["per_access"][0]["counter"]


def test_banks_override_every_rule():
    p = api.problem(64, 64, ["ds_read_b128:64x1"], dtype="f16", arch="gfx950", banks=32)
    assert p.hardware.banks == 32 and p.patterns[0].banks == 0


def test_instruction_lanes_must_fill_the_wave(tmp_path):
    path = instructions_file(tmp_path, [("short", "ds_read_b32", [(0, 0)] * 32)])
    with pytest.raises(InputError, match="64 lanes"):
        load_phases(path, Tile(8, 8, 8, 4), TARGETS["gfx942"])


def test_contiguous_is_coset_of_low_bits():
    assert contiguous(64, 16)[1] == tuple(range(16, 32))


# --- the rank proof on every target (hypothesis) ------------------------------------------------

from hypothesis import assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from swizzle_solver.families.cute import Swizzle  # noqa: E402
from swizzle_solver.proof import bank_matrix  # noqa: E402

AMD = [name for name in TARGETS if "ds_read" in TARGETS[name].instructions]  # the LDS targets
OPS = ["ds_read_b32", "ds_read_b64", "ds_read_b128", "ds_write_b32", "ds_write_b64", "ds_write_b128", "ds_read_u16",
       "ds_write_b16"]


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(AMD), st.sampled_from(OPS), st.integers(0, 6), st.integers(0, 4), st.integers(0, 4),
       st.integers(0, 4), st.sampled_from([2, 4]))
def test_rank_proof_equals_exhaustive_count_on_every_target(arch, op, lane_rows_log, b, m, s, elem_bytes):
    """Where the phases of an instruction form are cosets (every table here is), the bank matrix's
    verdict equals the simulator's count for every phase, under any CuTe swizzle."""
    hw = TARGETS[arch]
    wave = hw.wave_lanes
    lr = 1 << min(lane_rows_log, wave.bit_length() - 1)
    width = TARGETS[arch].rule(op).lane_bytes
    assume(width % elem_bytes == 0)
    tile = Tile(64, 64, 64, elem_bytes)
    assume(64 % lr == 0 and (wave // lr) * width // elem_bytes <= 64)
    p = api.problem(64, 64, [f"{op}:{lr}x{wave // lr}"], dtype={2: "f16", 4: "f32"}[elem_bytes], arch=arch)
    pattern = p.patterns[0]
    layout = Swizzle(b, m, max(s, b))
    assume(width // elem_bytes <= (1 << layout.M) and layout.invalid(tile) is None)
    matrix = bank_matrix(tile, p.hardware, pattern, layout.bases(tile))
    assert matrix is not None  # every AMD phase table is a set of cosets
    r, c = np.meshgrid(np.arange(64), np.arange(64), indexing="ij")
    costs = simulate.simulate(tile, p.hardware, [pattern], layout.phys(tile, r, c))[0].costs
    assert costs.min() == costs.max() == matrix.wavefronts


def test_gfx950_ds_read_b32_robust_reading():
    """Research section 5-Q1: gfx950 ds_read_b32 is 64 banks x 1 phase (S3, S4, S5) or 32 banks per
    half-wave (S12, S7). The robust answer meets both; the discriminating pattern of Q1 (lane i at
    dword 2 (i mod 32) + i // 32) is free under the 64-bank reading and 2-way under the other."""
    p = api.problem(64, 64, ["ds_read_b32:64x1"], dtype="f32", arch="gfx950")
    assert [q.spec for q in p.patterns] == ["ds_read_b32:64x1", "ds_read_b32:64x1 [64-bank reading]"]
    assert [q.banks for q in p.patterns] == [32, 0]
    solved = api.solve(p)
    assert solved.conflict_free and solved.name == "Swizzle<6,0,6>"  # <5,0,6> is 2-way on 64 banks
    lanes = [(0, 2 * (i % 32) + i // 32) for i in range(64)]
    hw = TARGETS["gfx950"]
    rule = hw.rule("ds_read_b32")
    for r, expected in ((rule, 2), (rule.alternative, 0)):
        served = hw.for_rule(r)
        extra = sum(int(simulate.placement_costs(np.array([[c for _, c in (lanes[i] for i in ph)]]), r.banks)[0]) - 1
                    for ph in served.phase_indices(64, 4))
        assert extra == expected


def test_docs_tables_match_the_targets():
    """docs/hardware.md lists every cell of every AMD target as hardware.TARGETS holds it."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "hardware.md").read_text()
    for name, hw in TARGETS.items():
        if not hw.rules:  # a target with a per-instruction table (the AMD ones)
            continue
        section = text.split(f"#### {name}\n", 1)[1].split("####", 1)[0]
        for rule in hw.rules:
            row = f"| `{rule.op}` | {rule.banks} | {len(rule.phases)} x {len(rule.phases[0])} |"
            assert row in section and rule.confidence in section.split(row, 1)[1].split("\n", 1)[0], (name, rule.op)


def test_down_numbers_lanes_down_the_columns():
    """`:down`: lane l at (l % R, l // R), the K-contiguous operand shape (lane l: row l % 16, chunk l // 16)."""
    p = api.problem(16, 32, ["ds_read_b128:16x4:1x8:down"], dtype="f16", arch="gfx950").patterns[0]
    first = [lane for i in range(p.instruction_phases) for lane in p.phase_lanes(i)]
    assert sorted(first) == sorted((lane % 16, 8 * (lane // 16), 16) for lane in range(64))
    assert p.phase_lanes(0)[:5] == [(0, 0, 16), (1, 0, 16), (2, 0, 16), (3, 0, 16), (12, 0, 16)]


def test_cli_rich_output_shows_unverified_cells_and_the_phases():
    run = clirun.solve("--arch", "rdna3", "--rows", "32", "--cols", "64",
                       "--dtype", "f16", "--access", "ds_write_b128:4x8", "--access", "ds_read_b128:32x1",
                       "--show-phases", "--check", "Swizzle<3,3,3>")
    assert run.returncode == 0, run.stderr
    text = " ".join(run.stdout.split())
    assert "warning: rdna3 ds_write_b128: unverified" in text
    assert "phase 0: (0,0,16) (1,0,16) (2,0,16) (3,0,16) (20,0,16)" in text  # the non-contiguous b128 read


def test_instruction_not_of_the_target_exits_2():
    run = clirun.solve("--arch", "gfx942", "--rows", "64", "--cols", "64", "--access", "ds_read_b64_tr_b16:64x1")
    assert run.returncode == 2 and "not an instruction of --arch gfx942" in run.stderr


@pytest.mark.parametrize("shape,op", [("16x16x16", "ds_read_b64"), ("32x32x8", "ds_read_b64"),
                                      ("16x16x32", "ds_read_b128"), ("32x32x16", "ds_read_b128")])
def test_mfma_operand_reads(shape, op):
    """mfma-a:MxNxK (f16): lane l reads A[l % M][kl (l // M) ...], kl = K M / 64 (AMD Matrix
    Instruction Calculator register layout), as one ds_read of kl * 2 bytes; B is read alike."""
    m, _, k = (int(x) for x in shape.split("x"))
    kl = k * m // 64
    for operand in "ab":
        p = api.problem(m, k, [f"mfma-{operand}:{shape}"], dtype="f16", arch="gfx950").patterns[0]
        assert p.op == op and p.placements == p.instruction_phases  # one instruction covers the M x K tile
        lanes = sorted(lane for i in range(p.instruction_phases) for lane in p.phase_lanes(i))
        assert lanes == sorted((lane % m, kl * (lane // m), 2 * kl) for lane in range(64))


@pytest.mark.parametrize("arch", ["rdna4", "gfx1250", "nvidia"])
def test_mfma_operand_needs_a_cdna_target(arch):
    """A target without the MFMA operand reads (hardware.Hardware.instructions) refuses them, naming
    the targets that have them."""
    with pytest.raises(InputError, match=f"--arch {arch} has no MFMA operand reads .*; targets that have them: "
                                         f"--arch gfx90a, gfx942, gfx950$"):
        api.problem(16, 16, ["mfma-a:16x16x16"], dtype="f16", arch=arch)


@pytest.mark.parametrize("spec", ["ldmatrix.x4", "stmatrix.x2.trans", "mma-c:m16n8", "lds128:64x1"])
def test_nvidia_forms_are_refused_on_amd(spec):
    """ldmatrix, stmatrix, the mma.sync fragment and ld.shared are NVIDIA's: an AMD target does not
    list them (hardware.Hardware.instructions), so they are bad input naming --arch nvidia."""
    with pytest.raises(InputError, match=r"--arch gfx942\b.*--arch nvidia"):
        api.problem(64, 64, [spec], dtype="f16", arch="gfx942")


# --- MFMA lane maps against AMD's Matrix Instruction Calculator -----------------------------------

MFMA_DATA = "mfma_register_layout.json"  # tests/data: its "source" names the calculator commit and command


def _calculator_layouts():
    from pathlib import Path

    doc = json.loads((Path(__file__).resolve().parent / "data" / MFMA_DATA).read_text())
    return doc["layouts"]


@pytest.mark.parametrize("entry", _calculator_layouts(), ids=lambda e: f"{e['arch']}-{e['instruction']}-{e['matrix']}")
def test_mfma_lane_maps_equal_amds_calculator(entry):
    """mfma-a / mfma-b read, per lane, exactly the elements AMD's calculator (ROCm/amd_matrix_instruction_calculator
    2ef9189, `--matrix-layout --csv`) puts in that lane's A / B registers, in register order, as one contiguous
    ds_read (lane l: [i, k_0, k_1, ...] means A[i][k_j], or B[k_j][i] for B stored N x K)."""
    shape = re.search(r"_(\d+x\d+x\d+)", entry["instruction"])[1]
    dtype = "f16" if re.search(r"f16|bf16", entry["instruction"].rsplit("_", 1)[-1]) else "i8"
    elem = {"f16": 2, "i8": 1}[dtype]
    arch = {"CDNA2": "gfx90a", "CDNA3": "gfx942"}[entry["arch"]]
    m, n, k = (int(x) for x in shape.split("x"))
    rows = m if entry["matrix"] == "A" else n
    p = api.problem(rows, k, [f"mfma-{entry['matrix'].lower()}:{shape}"], dtype=dtype, arch=arch).patterns[0]
    assert p.placements == p.instruction_phases  # the tile is one operand: one instruction
    hw = TARGETS[arch]
    phases = hw.for_rule(hw.rule(p.op)).phase_indices(64, int(p.lane_bytes.max()))
    got = {}
    for j, phase in enumerate(phases):
        for slot, lane in enumerate(phase):
            got[lane] = (int(p.lane_row[j, slot]), int(p.lane_col[j, slot]), int(p.lane_bytes[j, slot]))
    for lane, (i, k0, *ks) in enumerate(entry["lanes"]):
        ks = [k0, *ks]
        assert ks == list(range(k0, k0 + len(ks))), (lane, ks)  # contiguous in register order: one ds_read
        assert got[lane] == (i, k0, len(ks) * elem), (lane, got[lane], (i, k0, len(ks)))


def _hipkittens_matrices():
    from pathlib import Path

    return json.loads((Path(__file__).resolve().parent / "data" / "hipkittens_gfx950_phase_matrices.json").read_text())


@pytest.mark.parametrize("op", sorted(_hipkittens_matrices()["matrices"]))
def test_v5_gfx950_measured_conflict_matrix(op):
    """V5 with the raw data: HipKittens' measured 64 x 64 pairwise conflict matrix on gfx950 (S8,
    tests/data/hipkittens_gfx950_phase_matrices.json: its source names the commit and files), lanes i
    and j active at byte 256 i and 256 j, all others idle. The (gfx950, op) cell reproduces every
    entry: extra cycles = 1 exactly where the hardware counted a conflict."""
    rows = [int(x, 16) for x in _hipkittens_matrices()["matrices"][op]]
    hw = TARGETS["gfx950"]
    rule = hw.rule(op)
    per_lane = rule.lane_bytes // 4
    for i in range(64):
        for j in range(i + 1, 64):
            words = [[64 * lane + w for lane in ph if lane in (i, j) for w in range(per_lane)] or [0]
                     for ph in hw.for_rule(rule).phase_indices(64, rule.lane_bytes)]
            extra = sum(int(simulate.placement_costs(np.array([w]), rule.banks)[0]) - 1 for w in words)
            assert extra == rows[i] >> j & 1, (op, i, j)


def test_v6_gfx942_measured_conflict_matrix():
    """V6 with the raw data: the CK LDS probe's measured 64 x 64 ds_read_b128 conflict matrix on
    gfx942 (S9, tests/data/ck_lds_probe_gfx942_ds_read_b128.json names the commit and file): lanes
    i and j active in one bank (one bank period apart), all others idle. The (gfx942,
    ds_read_b128) cell reproduces every entry, and the data is a conflict relation (symmetric,
    no lane conflicting with itself)."""
    from pathlib import Path

    data = json.loads((Path(__file__).resolve().parent / "data" / "ck_lds_probe_gfx942_ds_read_b128.json").read_text())
    conflicts = [set(row) for row in data["conflicts"]]
    assert len(conflicts) == 64 and all(i not in c and all(i in conflicts[j] for j in c) for i, c in enumerate(conflicts))
    hw = TARGETS["gfx942"]
    rule = hw.rule("ds_read_b128")
    per_lane, period = rule.lane_bytes // 4, rule.banks  # words: one bank period apart = the same bank
    for i in range(64):
        for j in range(i + 1, 64):
            words = [[period * lane + w for lane in ph if lane in (i, j) for w in range(per_lane)] or [0]
                     for ph in hw.for_rule(rule).phase_indices(64, rule.lane_bytes)]
            extra = sum(int(simulate.placement_costs(np.array([w]), rule.banks)[0]) - 1 for w in words)
            assert extra == int(j in conflicts[i]), (i, j)


@pytest.mark.parametrize("access", ["warp:4x8:1x1", "ds_read_b128:32x1"])
def test_a_32_lane_form_on_a_64_lane_wave_names_the_wave(access):
    """Both lane forms check R x C against the arch's wave in one place, and suggest shapes of that
    wave (a CDNA wave has 64 lanes: never 32x1)."""
    with pytest.raises(InputError, match="wave of --arch gfx942 has 64 lanes") as err:
        api.solve(arch="gfx942", rows=64, cols=64, dtype="f16", access=[access])
    suggestion = str(err.value).split("use R x C")[1]
    assert "64x1" in suggestion and "32x1" not in suggestion
