"""AMD two-address and 12-byte instructions (issue 12): ds_read2/ds_write2 and ds_read_b96/ds_write_b96.

Sources are the research notes' ids, as in docs/hardware.md: S3 (nod-ai optimization guide: CDNA3
ds_read2_b64 serves every lane's first address in the 4 x 16 b64 phases, then the second), S7
(Triton's AMD backend: gfx1250 serves the two addresses of ds_load_2addr_b64 simultaneously;
gfx950 ds_read2_b64 uses 32 banks), S8 (HipKittens, gfx950 ds_read_b96 measured: 32 banks, 8 x 8
with the gfx942-b128 grouping), S11 (CK tutorial 14, variant 03 measured on MI300).
"""
from __future__ import annotations

import json
import tempfile

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from test_amd import TILES, ck_read_lanes, conflicts, instructions_file, ranges

from swizzle_solver import api, simulate
from swizzle_solver.families.cute import Swizzle
from swizzle_solver.hardware import TARGETS
from swizzle_solver.model import InputError, Tile
from swizzle_solver.proof import bank_matrix
from tests import clirun

AMD = [name for name in TARGETS if "ds_read" in TARGETS[name].instructions]  # the LDS targets
TWO = ["ds_read2_b32", "ds_read2_b64", "ds_write2_b32", "ds_write2_b64"]


def slots(lanes, address, wave=64):
    """Slots of the given lanes' address 0 or 1 (hardware.Rule.phases: slot l + a * wave)."""
    return {lane + address * wave for lane in lanes}


# --- the cells ------------------------------------------------------------------------------------

def test_gfx942_ds_read2_b64_is_two_passes_of_the_b64_phases():
    """S3 L279: 8 phases, every lane's first address in 0-15, 16-31, 32-47, 48-63, then the second."""
    rule = TARGETS["gfx942"].rule("ds_read2_b64")
    quarters = [ranges((q, q + 15)) for q in range(0, 64, 16)]
    assert [set(ph) for ph in rule.phases] == [slots(q, 0) for q in quarters] + [slots(q, 1) for q in quarters]
    assert rule.addresses == 2 and rule.banks == 32 and rule.verified and rule.warning("gfx942") is None


def test_gfx1250_serves_both_addresses_together():
    """S7: gfx1250's dual-address load serves its two addresses simultaneously: a lane's two
    addresses are in one phase (16 lanes x 2 x 8 B = one 256 B wavefront of 64 banks)."""
    rule = TARGETS["gfx1250"].rule("ds_read2_b64")
    assert [set(ph) for ph in rule.phases] == [slots(ranges((0, 15)), 0) | slots(ranges((0, 15)), 1, 32),
                                               slots(ranges((16, 31)), 0) | slots(ranges((16, 31)), 1, 32)]
    assert rule.banks == 64 and not rule.verified  # the lane sets are inferred


def test_gfx950_ds_read2_b64_has_32_banks_and_is_unverified():
    """S7 Utility.cpp: gfx950's ds_read2_b64 uses 32 banks (its plain ds_read_b64: 64); its phases
    are documented nowhere, so the cell is unverified and an access on it warns (DESIGN.md section 9)."""
    rule = TARGETS["gfx950"].rule("ds_read2_b64")
    assert rule.banks == 32 and TARGETS["gfx950"].rule("ds_read_b64").banks == 64
    doc = api.check("none", rows=64, cols=64, dtype="f16", access=["ds_read2_b64:64x1"], arch="gfx950").json()
    assert any(w.startswith("gfx950 ds_read2_b64: unverified") for w in doc["warnings"])
    quiet = api.check("none", rows=64, cols=64, dtype="f16", access=["ds_read2_b64:64x1"], arch="gfx942").json()
    assert quiet["warnings"] == []


@pytest.mark.parametrize("arch", AMD)
@pytest.mark.parametrize("op", TWO)
def test_st64_forms_are_the_same_cells(arch, op):
    hw = TARGETS[arch]
    base, st64 = hw.rule(op), hw.rule(op.replace("2_", "2st64_"))
    assert (st64.phases, st64.banks, st64.confidence, st64.lane_bytes) == (base.phases, base.banks,
                                                                            base.confidence, base.lane_bytes)


# --- counts ---------------------------------------------------------------------------------------

def two_address_conflicts(arch, tmp_path, second_words):
    """Lanes 0..W-1 each read 8 bytes at dword 2 l (their first address: conflict-free) and 8 bytes
    `second_words` dwords further (their second); SQ_LDS_BANK_CONFLICT of the one ds_read2_b64."""
    wave = TARGETS[arch].wave_lanes
    lanes = [(0, 2 * lane, 0, 2 * lane + second_words) for lane in range(wave)]
    cols = 2 * wave + second_words
    p = api.problem(1, cols, dtype="f32", arch=arch,
                    phases=[instructions_file(tmp_path, [("read2", "ds_read2_b64", lanes)])])
    return conflicts(p)[0]


def test_second_address_a_bank_period_away(tmp_path):
    """S3 vs S7: with the second address 64 dwords after the first (the same banks, other dwords),
    CDNA3's separate passes see no conflict; gfx1250, serving both at once on 64 banks, sees a
    2-way conflict in each of its 2 phases ("requires the full 4-dword stride separation", S7)."""
    assert two_address_conflicts("gfx942", tmp_path, 64) == 0
    assert two_address_conflicts("gfx1250", tmp_path, 64) == 2
    assert two_address_conflicts("gfx1250", tmp_path, 32) == 0  # 16 lanes x 2 dwords apart: banks 32-63
    assert two_address_conflicts("gfx942", tmp_path, 32) == 0


def test_v2_03_padded_transpose_counter(tmp_path):
    """CK tutorial-14 03 (S11 assets/bank_conflict_numbers.csv): f16 tile 64 x 32 at a 34-element row
    pitch (byte 2 (34 m + k)); SQ_INSTS_LDS 327,680 = 262,144 loads + 65,536 stores, i.e. 8 ds_read_u16
    and 2 stores per wave. The 68 B pitch leaves a lane's 16 B chunk only dword-aligned, so each store
    is read here as ds_write2_b32 (two dwords per lane: the slides do not show the opcode). Measured
    SQ_LDS_BANK_CONFLICT 786,432 = reads 8192 x 64 + writes 8192 x 32: 2 per ds_read_u16 (half-wave
    phases) and 4 per ds_write2_b32 (two passes of two half-waves, each 2-way)."""
    items = []
    for w in range(4):
        for first in (0, 4):  # elements 0-3 of the lane's 8, then 4-7: two dwords per instruction
            lanes = [(16 * w + lane // 4, 8 * (lane % 4) + first, 16 * w + lane // 4, 8 * (lane % 4) + first + 2)
                     for lane in range(64)]
            items.append((f"w{w}.{first}", "ds_write2_b32", lanes))
    items += [(f"r{w}.{r}", "ds_read_u16", ck_read_lanes(w, r)) for w in range(4) for r in range(8)]
    p = api.problem(64, 32, row_length=34, dtype="f16", arch="gfx942", phases=[instructions_file(tmp_path, items)])
    got = conflicts(p)
    assert got[:8] == [4] * 8 and set(got[8:]) == {2}
    assert TILES * sum(got) == 786_432
    assert TILES * sum(got[8:]) == 524_288  # the reads alone, as the research recomputes them


def test_instruction_form_pairs_consecutive_vectors(tmp_path):
    """`ds_read2_b64:64x1` (default block: two vectors) is the [[instruction]] whose lane l has its
    addresses at (l, 0) and (l, 4) (f16); `:32x2:2x4:down` pairs rows 2 (l % 32) and 2 (l % 32) + 1."""
    cases = {
        "ds_read2_b64:64x1": [(lane, 0, lane, 4) for lane in range(64)],
        "ds_read2_b64:32x2:2x4:down": [(2 * (lane % 32), 4 * (lane // 32), 2 * (lane % 32) + 1, 4 * (lane // 32))
                                       for lane in range(64)],
    }
    for spec, lanes in cases.items():
        p = api.problem(64, 8, [spec], dtype="f16", arch="gfx942").patterns[0]
        q = api.problem(64, 8, dtype="f16", arch="gfx942",
                        phases=[instructions_file(tmp_path, [("pairs", "ds_read2_b64", lanes)])]).patterns[0]
        assert p.instruction_phases == q.instruction_phases == p.placements == 8
        assert np.array_equal(p.lane_row, q.lane_row) and np.array_equal(p.lane_col, q.lane_col), spec


def test_two_address_lanes_need_four_numbers(tmp_path):
    path = instructions_file(tmp_path, [("bad", "ds_read2_b32", [(0, 0)] * 64)])
    with pytest.raises(InputError, match=r"\[row, col, row2, col2\]"):
        api.problem(8, 8, dtype="f32", arch="gfx942", phases=[path])
    run = clirun.solve("--arch", "gfx942", "--rows", "8", "--cols", "8", "--phases", path)
    assert run.returncode == 2 and "row2, col2" in run.stderr and "Traceback" not in run.stderr


def test_odd_vector_count_for_a_pair_exits_2():
    with pytest.raises(InputError, match="addresses of one instruction"):
        api.problem(64, 12, ["ds_read2_b64:64x1:1x12"], dtype="f16", arch="gfx942")


# --- the rank proof where the phases are cosets -------------------------------------------------

@settings(max_examples=150, deadline=None)
@given(st.sampled_from(AMD), st.sampled_from(TWO + [op.replace("2_", "2st64_") for op in TWO]),
       st.integers(0, 6), st.booleans(), st.integers(0, 4), st.integers(0, 4), st.integers(0, 4),
       st.sampled_from([2, 4]))
def test_rank_proof_equals_exhaustive_count_for_two_address_forms(arch, op, lane_rows_log, by_rows, b, m, s,
                                                                   elem_bytes):
    """Both addresses of a ds_read2 lane are in the tile's GF(2) offset space (the next vector of its
    row, or the next row), so each phase (two passes, or both addresses at once) is a coset: the bank
    matrix's verdict equals the simulator's per-phase count under any CuTe swizzle."""
    hw = TARGETS[arch]
    wave = hw.wave_lanes
    lr = 1 << min(lane_rows_log, wave.bit_length() - 1)
    width = hw.rule(op).lane_bytes
    assume(width % elem_bytes == 0)
    step = width // elem_bytes
    mm, nn = (2, step) if by_rows else (1, 2 * step)  # the lane's block: its two vectors
    assume(64 % (lr * mm) == 0 and 64 % ((wave // lr) * nn) == 0)
    tile = Tile(64, 64, 64, elem_bytes)
    p = api.problem(64, 64, [f"{op}:{lr}x{wave // lr}:{mm}x{nn}"], dtype={2: "f16", 4: "f32"}[elem_bytes],
                    arch=arch)
    pattern = p.patterns[0]
    layout = Swizzle(b, m, max(s, b))
    assume(step <= (1 << layout.M) and layout.invalid(tile) is None)
    matrix = bank_matrix(tile, p.hardware, pattern, layout.bases(tile))
    assert matrix is not None
    r, c = np.meshgrid(np.arange(64), np.arange(64), indexing="ij")
    costs = simulate.simulate(tile, p.hardware, [pattern], layout.phys(tile, r, c))[0].costs
    assert costs.min() == costs.max() == matrix.wavefronts


# --- 12-byte lanes (b96) ----------------------------------------------------------------------------

def brute_force(words_per_lane, phases, banks, by_position=True):
    """Extra cycles of one instruction, from first principles: per phase, the most distinct dwords
    in one bank, minus 1; ``by_position``: a lane's k-th dword competes only with other lanes' k-th
    dwords (the reading S8's b96 bank sweep measured, simulate.pattern_costs)."""
    extra = 0
    for ph in phases:
        per_slot: dict[tuple[int, int], set[int]] = {}
        for lane in ph:
            for k, w in enumerate(words_per_lane[lane]):
                per_slot.setdefault((k if by_position else 0, w % banks), set()).add(w)
        extra += max(map(len, per_slot.values())) - 1
    return extra


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(["gfx942", "gfx950", "gfx90a", "rdna3", "rdna4", "gfx1250"]),
       st.sampled_from(["ds_read_b96", "ds_write_b96"]), st.integers(3, 40), st.integers(0, 7))
def test_b96_counts_equal_brute_force(arch, op, pitch_words, rotate):
    """ds_read_b96 / ds_write_b96: lane l reads 3 dwords at row (l * 5 + rotate) % wave of an f32 tile
    of `pitch_words` dwords per row: the simulator's count equals the brute-force count over the
    (arch, op) phases and banks; with 16-byte-aligned rows it is also the plain dword count."""
    hw = TARGETS[arch]
    rule, wave = hw.rule(op), hw.wave_lanes
    rows = [(lane * 5 + rotate) % wave for lane in range(wave)]
    p = api.problem(wave, 3, row_length=pitch_words, dtype="f32", arch=arch,
                    phases=[_file([("b96", op, [(r, 0) for r in rows])])])
    words = [[r * pitch_words + j for j in range(3)] for r in rows]
    assert conflicts(p) == [brute_force(words, rule.phases, rule.banks)]
    if pitch_words % 4 == 0:
        assert conflicts(p) == [brute_force(words, rule.phases, rule.banks, by_position=False)]


def test_s8_b96_bank_sweep():
    """S8 (HipKittens gfx950 ds_read_b96 bank_results.txt): lane 0 reads dwords 0-2, lane 1 dwords N..N+2
    for N = 3 .. 127 (the other lanes idle): measured conflicts at N = 32, 64, 96 only. Reproduced; the
    plain dword count would also flag N = 30, 31, 33, 34, ... where the dwords share banks at other
    positions, which the hardware did not count."""
    hw = TARGETS["gfx950"]
    rule = hw.rule("ds_read_b96")
    found = []
    for n in range(3, 128):
        lanes = [(0, 0)] + [(0, n)] + [(0, 0)] * 62  # idle lanes repeat lane 0 (same dwords: no cost)
        p = api.problem(1, 131, dtype="f32", arch="gfx950", phases=[_file([("sweep", "ds_read_b96", lanes)])])
        if conflicts(p) != [0]:
            found.append(n)
        words = [[0, 1, 2], [n, n + 1, n + 2]] + [[0, 1, 2]] * 62
        assert brute_force(words, rule.phases, rule.banks) == conflicts(p)[0]
    assert found == [32, 64, 96]
    plain = [n for n in range(3, 128)
             if brute_force([[0, 1, 2], [n, n + 1, n + 2]] + [[0, 1, 2]] * 62, rule.phases, rule.banks, False)]
    assert plain == [30, 31, 32, 33, 34, 62, 63, 64, 65, 66, 94, 95, 96, 97, 98, 126, 127]


_FILES = tempfile.TemporaryDirectory()  # removed at exit: the property tests write thousands of files


def _file(items):
    f = tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False, dir=_FILES.name)
    for name, op, lanes in items:
        f.write(f'[[instruction]]\nname = "{name}"\nop = "{op}"\nlanes = {json.dumps([list(x) for x in lanes])}\n')
    f.close()
    return f.name


def test_gfx950_b96_measured_groups_in_the_simulator():
    """S8 (HipKittens, gfx950 ds_read_b96): 32 banks, lanes {0-3, 20-23}, ... conflict pairwise. Lane i
    at dword 0 and lane j at dword 32 (same bank, other dword) cost one extra cycle iff the published
    groups put them together; now simulated with 12-byte lanes, not only checked as a table."""
    groups = [ranges((0, 3), (20, 23)), ranges((4, 7), (16, 19)), ranges((8, 11), (28, 31)), ranges((12, 15), (24, 27))]
    groups += [{i + 32 for i in g} for g in groups]
    for i, j in ((0, 20), (0, 4), (5, 17), (8, 29), (12, 27), (3, 35), (36, 48), (40, 60), (1, 2)):
        rows = [1 if lane == j else 0 for lane in range(64)]
        cols = [0 if lane in (i, j) else 3 for lane in range(64)]  # the idle lanes read dwords 3-5 of row 0
        lanes = [(r, c) for r, c in zip(rows, cols, strict=True)]
        p = api.problem(2, 6, row_length=32, dtype="f32", arch="gfx950", phases=[_file([("pair", "ds_read_b96", lanes)])])
        together = any(i in g and j in g for g in groups)
        # dwords 0-2 (lane i) and 32-34 (lane j) share banks 0-2; the idle lanes' dwords 3-5 conflict with nobody
        assert conflicts(p) == [int(together)], (i, j)


@pytest.mark.parametrize("cols", [48, 96])  # 96: the slow tier (tests/conftest.py), 48 the same in a third of the time
def test_b96_search_and_evidence(cols):
    """A b96 access is solved (the simulator is the ground truth), and the evidence says why there is
    no rank proof; the answer keeps every 12-byte lane whole and dword-aligned."""
    r = api.solve(api.problem(64, cols, ["ds_read_b96:64x1"], dtype="f32", arch="gfx942"))
    assert r.conflict_free
    doc = r.json()
    acc = doc["proof"]["accesses"][0]
    assert "gf2" not in acc and "not a power of two" in acc["gf2_unavailable"]


def test_b96_needs_whole_elements():
    with pytest.raises(InputError, match="less than one"):
        api.problem(64, 96, ["ds_read_b96:64x1"], dtype="f64", arch="gfx942")


def test_b96_and_two_address_json_validate():
    """The JSON of a b96 solve (gf2_unavailable) and of a ds_read2 check follow the published schema."""
    from test_schema import cli_json, validate

    for argv in (["--arch", "gfx950", "--rows", "64", "--cols", "96", "--dtype", "f32", "--access", "ds_read_b96:64x1"],
                 ["--arch", "gfx1250", "--rows", "64", "--cols", "64", "--dtype", "f16", "--access",
                  "ds_read2_b64:32x1", "--check", "none"]):
        code, doc = cli_json(*argv)
        validate(doc)
        assert code in (0, 1)


def test_gfx1250_transposed_loads(tmp_path):
    """S7: on gfx1250 two shuffle groups of 8 lanes (16 lanes) load per cycle, on 64 banks: 32 lanes of
    ds_load_tr16_b128 reading 16 B at a 256 B stride are 16-way in each of the 2 phases (30 extra);
    at a 272 B stride (one 16 B column of padding) they are conflict-free. The 12-byte form simulates."""
    for pitch, expected in ((64, 30), (68, 0)):
        p = api.problem(32, 4, ["ds_load_tr16_b128:32x1"], row_length=pitch, dtype="f32", arch="gfx1250")
        assert conflicts(p) == [expected]
    p = api.problem(32, 3, ["ds_load_tr6_b96:32x1"], row_length=64, dtype="f32", arch="gfx1250")
    assert conflicts(p) == [30]  # 3 dwords per lane, every lane at bank 0-2: 16-way per phase
    with pytest.raises(InputError, match="not an instruction of --arch gfx950"):
        api.problem(32, 4, ["ds_load_tr16_b128:64x1"], dtype="f32", arch="gfx950")


@pytest.mark.parametrize("arch,gfx12,name", [("gfx1250", "ds_load_2addr_b64", "ds_read2_b64"),
                                             ("rdna4", "ds_store_2addr_stride64_b32", "ds_write2st64_b32"),
                                             ("gfx1250", "ds_load_b128", "ds_read_b128"),
                                             ("rdna3", "ds_store_b16", "ds_write_b16")])
def test_gfx12_assembler_names(arch, gfx12, name):
    """LLVM spells the DS instructions ds_load_*/ds_store_* (and _2addr_, _2addr_stride64_) from gfx11 on;
    both names give the same cell and the same placements."""
    wave = TARGETS[arch].wave_lanes
    a = api.problem(64, 64, [f"{gfx12}:{wave}x1"], dtype="f16", arch=arch).patterns[0]
    b = api.problem(64, 64, [f"{name}:{wave}x1"], dtype="f16", arch=arch).patterns[0]
    assert a.op == b.op == name and a.instruction_phases == b.instruction_phases
    assert np.array_equal(a.lane_row, b.lane_row) and np.array_equal(a.lane_col, b.lane_col)


# --- gfx950's 8-byte MFMA operand reads: ds_read_b64 counted, ds_read2_b64 what compilers issue (issue 38) ---


def _read2_brute_force(m: int, k: int, pitch: int) -> int:
    """Wavefronts of every ds_read2_b64 of mfma-a:MxNxK (fp8, 8 B a lane) over an unswizzled rows x pitch
    u8 tile, written from the rule: lane l's addresses (row l % M + R, col 8 (l // M) + C) and K bytes
    after; 8 phases: lanes 0-15, ..., 48-63 of the first addresses, then the same of the second; a phase
    costs the most distinct 4-byte words in one of 32 banks."""
    total = 0
    for r0 in range(0, 64, m):
        for c0 in range(0, pitch, 2 * k):
            first = [(r0 + lane % m) * pitch + c0 + 8 * (lane // m) for lane in range(64)]
            for addresses in (first, [a + k for a in first]):
                for q in range(4):
                    words = {(a + b) // 4 for a in addresses[16 * q:16 * q + 16] for b in range(8)}
                    total += max(sum(1 for w in words if w % 32 == bank) for bank in range(32))
    return total


@pytest.mark.parametrize("shape", ["16x16x32", "32x32x16"])
def test_gfx950_fp8_mfma_read_says_what_it_counts_and_offers_ds_read2(shape):
    m, _, k = (int(x) for x in shape.split("x"))
    args = ["--arch", "gfx950", "--rows", "64", "--cols", "64", "--dtype", "e4m3", "--check", "none", "--json"]
    done = clirun.solve(*args, "--access", f"mfma-a:{shape}")
    doc = json.loads(done.stdout)
    (note,) = [w for w in doc["warnings"] if "compilers issue" in w]
    assert f"is counted as ds_read_b64 (2 phase(s) of 32 lanes, 64 banks, D+M)" in note
    assert "compilers issue ds_read2_b64" in note and "phase rule is inferred" in note
    assert f"--access mfma-a:{shape}:ds_read2_b64 counts it that way" in note
    # the offered form: its count from the inferred rule, against the brute force above
    done = clirun.solve(*args, "--access", f"mfma-a:{shape}:ds_read2_b64")
    doc = json.loads(done.stdout)
    (access,) = doc["answer"]["per_access"]
    assert access["total_wavefronts"] == _read2_brute_force(m, k, 64)
    assert any(w.startswith("gfx950 ds_read2_b64: unverified") for w in doc["warnings"])


def test_the_compiled_form_is_only_where_a_target_lists_it():
    tile = ["--rows", "64", "--cols", "64", "--dtype", "e4m3", "-q"]
    for arch in ("gfx942", "gfx950"):  # f16 16x16x16: 4 f16 = 8 B a lane, but only gfx950 lists it
        done = clirun.solve("--arch", arch, *tile[:4], "--dtype", "f16", "--access", "mfma-a:16x16x16", "--json")
        warned = any("compilers issue" in w for w in json.loads(done.stdout)["warnings"])
        assert warned == (arch == "gfx950"), arch
    done = clirun.solve("--arch", "gfx942", *tile, "--access", "mfma-a:16x16x32:ds_read2_b64")
    assert done.returncode == 2 and "is ds_read_b64 (the default) on --arch gfx942, not ds_read2_b64" in done.stderr
    done = clirun.solve("--arch", "gfx950", *tile, "--access", "mfma-b:16x16x32:ds_read_b128")
    assert done.returncode == 2 and ":ds_read2_b64 (what compilers issue for it)" in done.stderr
    # 16-byte reads (f16 16x16x32) are ds_read_b128 on gfx950, nothing else offered
    done = clirun.solve("--arch", "gfx950", "--rows", "64", "--cols", "64", "--dtype", "f16", "--access",
                        "mfma-a:16x16x32", "--json")
    assert not any("compilers issue" in w for w in json.loads(done.stdout)["warnings"])
