"""Issue 37, item 1: --arch lists. The matrix of a real HIP-and-CUDA layout against a per-lane brute
force written here (the phases from hardware.py's tables, the banks counted here), the joint
answer against each target's own minimum, the selector grammar and its refusals."""
from __future__ import annotations

import json
from collections import Counter

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from swizzle_solver import portable
from swizzle_solver.hardware import TARGETS
from swizzle_solver.model import InputError
from tests.clirun import solve as cli


def _phase_cost(addresses: list[tuple[int, int]], banks: int = 32) -> int:
    """One phase: the most distinct 4-byte words in one bank, over (byte address, bytes) lane reads."""
    words = {w for a, n in addresses for w in range(a // 4, (a + n) // 4)}
    return max(Counter(w % banks for w in words).values())


# --- flashinfer's k128B permuted smem on CDNA3 ---------------------------------------------------
# flashinfer include/flashinfer/permuted_smem.cuh, get_permuted_offset (k128B): column j of row i, in
# uint2 (8-byte) units, at i * stride + (j ^ (i % 8)); AMD-Ecosystem/flashinfer PR 207: HEAD_DIM 128
# fp16 (stride 32 units), read with ds_read_b64 by 16 rows per phase, found conflicted on CDNA3 and
# fixed with i % 16 (research amd_lds.md V11: 2-way per 16-lane phase by recomputation).
FLASHINFER = "bytes: 8 * (r * 32 + ((c * 2 / 8) ^ (r % {m}))) + c * 2 % 8"


def _flashinfer_worst(m: int) -> int:
    """16 lanes, lane i on row i, 8 bytes at unit j, every j of the 16 x 128 f16 tile (one phase
    each: 16 x 8 bytes = 128 bytes, one wavefront when conflict-free)."""
    return max(_phase_cost([(8 * (i * 32 + (j ^ (i % m))), 8) for i in range(16)]) for j in range(32))


def test_flashinfer_k128b_matrix_equals_the_brute_force_on_sm90_and_gfx942():
    run = cli("--arch", "sm90,gfx942", "--rows", "16", "--cols", "128", "--dtype", "f16", "--access", "16x4",
              "--check", FLASHINFER.format(m=8), "--json")
    assert run.returncode == 1
    doc = json.loads(run.stdout)
    cells = doc["matrix"]["rows"][0]["cells"]
    assert doc["matrix"]["targets"] == ["sm90", "gfx942"]
    assert [c["worst"] for c in cells] == [_flashinfer_worst(8)] * 2 == [2, 2]  # 2-way per 16-row phase
    assert [t["excess_wavefronts"] for t in doc["targets"]] == [1, 1]
    fixed = cli("--arch", "sm90,gfx942", "--rows", "16", "--cols", "128", "--dtype", "f16", "--access", "16x4",
                "--check", FLASHINFER.format(m=16), "--json")
    assert fixed.returncode == 0 and _flashinfer_worst(16) == 1
    assert [c["worst"] for c in json.loads(fixed.stdout)["matrix"]["rows"][0]["cells"]] == [1, 1]


def _instruction_costs(arch: str, op: str, lanes: list[tuple[int, int]]) -> int:
    """One instruction: the sum over the target's phases of ``op`` (hardware.py's table) of each
    phase's most distinct dwords in one bank, counted here."""
    rule = TARGETS[arch].rule(op)
    return sum(_phase_cost([lanes[lane] for lane in phase], rule.banks) for phase in rule.phases)


def test_flashinfer_k128b_as_the_instructions_read_it():
    """The lanes of amd_lds.md V11: lane l on row l % 16, uint2 unit l / 16 (+ the placement's), one
    64-lane ds_read_b64 on gfx942, one 32-lane ld.shared.v2 (lds64) on sm90. The research's
    recomputation: 2-way per 16-lane phase, 4 extra cycles per ds_read_b64 (SQ_LDS_BANK_CONFLICT 4)."""
    run = cli("--arch", "sm90,gfx942", "--rows", "16", "--cols", "128", "--dtype", "f16",
              "--access", "nvidia:lds64:16x2:1x4:down", "--access", "amd:ds_read_b64:16x4:1x4:down",
              "--check", FLASHINFER.format(m=8), "--json")
    doc = json.loads(run.stdout)
    cells = {r["access"]: r["cells"] for r in doc["matrix"]["rows"]}

    def brute(arch: str, op: str, units: int) -> tuple[int, int]:
        costs = [_instruction_costs(arch, op, [(8 * ((l % 16) * 32 + ((j0 + l // 16) ^ (l % 16 % 8))), 8)
                                               for l in range(16 * units)]) for j0 in range(0, 32, units)]
        return max(costs), sum(costs)

    sm, amd = cells["lds64:16x2:1x4:down"][0], cells["ds_read_b64:16x4:1x4:down"][1]
    assert (sm["worst"], sm["total"]) == brute("sm90", "lds64", 2) and sm["excess"] == 2
    assert (amd["worst"], amd["total"]) == brute("gfx942", "ds_read_b64", 4) and amd["excess"] == 4
    counter = doc["targets"][1]["per_access"][0]
    assert counter["worst_wavefronts"] - counter["lower_bound"] == 4  # the research's 4 extra per instruction
    joint = json.loads(cli("--arch", "sm90,gfx942", "--rows", "16", "--cols", "128", "--dtype", "f16",
                           "--access", "nvidia:lds64:16x2:1x4:down", "--access", "amd:ds_read_b64:16x4:1x4:down",
                           "--json").stdout)
    assert joint["answer"]["name"] == "Swizzle<4,2,5>" and joint["joint"]["at_every_minimum"]
    assert [t["excess_wavefronts"] for t in joint["targets"]] == [0, 0]


def test_flashinfer_joint_answer_is_at_the_floor_on_both_targets():
    run = cli("--arch", "sm90,gfx942", "--rows", "16", "--cols", "128", "--dtype", "f16", "--access", "16x4", "--json")
    doc = json.loads(run.stdout)
    assert run.returncode == 0 and doc["joint"]["at_every_minimum"] and doc["joint"]["proven"]
    assert all(t["excess_wavefronts"] == t["own_minimum"]["excess_wavefronts"] == 0 for t in doc["targets"])
    assert doc["answer"]["name"] == "Swizzle<4,2,5>"  # four row bits into the 8-byte unit: the PR's i % 16


# --- llama.cpp's flash-attention K/V tile ---------------------------------------------------------
# ggml-org/llama.cpp ggml/src/ggml-cuda/fattn-swizzle.cuh: bytes_rc(row, col_h2) =
# ((row * stride_h2 + col_h2) * sizeof(half2)) ^ ((row & 7) << 4) for a power-of-two stride_h2 >= 32
# (else +4 half2 padding; HIP: always the padding); lane_addr: row = lane % 16, col_h2 = (lane / 16) * 4,
# one ldmatrix.x4 of tile<16, 8, half2> per lane group. On CDNA3 the same lanes as a 64-lane
# ds_read_b128 (lane l at row l % 16, 16-byte chunk l / 16: OP:16x4:1x8:down).
LLAMA = "bytes: ((r * {d} + c) * 2) ^ ((r % 8) << 4)"


def _llama_byte(r: int, c: int, d: int) -> int:
    return ((r * d + c) * 2) ^ ((r % 8) << 4)


def _llama_ldmatrix(rows: int, d: int) -> tuple[int, int]:
    """(worst, total) of ldmatrix.x4 over every 16 x 16 block: each 8 x 16-byte matrix a phase."""
    costs = [_phase_cost([(_llama_byte(r0 + h * 8 + i, c0 + k * 8, d), 16) for i in range(8)])
             for r0 in range(0, rows, 16) for c0 in range(0, d, 16) for h in (0, 1) for k in (0, 1)]
    return max(costs), sum(costs)


def _llama_ds_read_b128(rows: int, d: int) -> int:
    """Worst instruction of the 64-lane ds_read_b128 on gfx942: its phases from hardware.py's table,
    each costing its most distinct dwords in one bank (counted here), summed per instruction."""
    phases = TARGETS["gfx942"].rule("ds_read_b128").phases
    worst = 0
    for r0 in range(0, rows, 16):
        for c0 in range(0, d, 32):
            lane = [(_llama_byte(r0 + l % 16, c0 + (l // 16) * 8, d), 16) for l in range(64)]
            worst = max(worst, sum(_phase_cost([lane[l] for l in phase]) for phase in phases))
    return worst


@pytest.mark.parametrize("d", [64, 128, 256])
def test_llama_fattn_swizzle_matrix_equals_the_brute_force(d):
    run = cli("--arch", "sm80,sm90,gfx942", "--rows", "32", "--cols", str(d), "--dtype", "f16",
              "--access", "nvidia:ldmatrix.x4", "--access", "amd:ds_read_b128:16x4:1x8:down",
              "--check", LLAMA.format(d=d), "--json")
    doc = json.loads(run.stdout)
    rows = {r["access"]: r["cells"] for r in doc["matrix"]["rows"]}
    worst, total = _llama_ldmatrix(32, d)
    assert [(c["worst"], c["total"]) for c in rows["ldmatrix.x4"][:2]] == [(worst, total)] * 2
    assert rows["ldmatrix.x4"][2] is None and rows["ds_read_b128:16x4:1x8:down"][:2] == [None, None]
    assert rows["ds_read_b128:16x4:1x8:down"][2]["worst"] == _llama_ds_read_b128(32, d)
    assert worst == 1  # the swizzle's purpose on NVIDIA: one wavefront per matrix
    assert run.returncode == (0 if rows["ds_read_b128:16x4:1x8:down"][2]["excess"] == 0 else 1)


def test_llama_padded_stride_is_what_the_matrix_counts_on_every_target():
    """The layout llama.cpp ships on HIP (and for non-power-of-two strides): +4 half2 a row, i.e.
    pitch D + 8 halves (D = 96: 48 half2, not a power of two)."""
    run = cli("--arch", "sm80,gfx942", "--rows", "32", "--cols", "96", "--pitch", "104", "--dtype", "f16",
              "--access", "nvidia:ldmatrix.x4", "--access", "amd:ds_read_b128:16x4:1x8:down", "--check", "none",
              "--json")
    doc = json.loads(run.stdout)
    lds = [c for c in doc["matrix"]["rows"][0]["cells"] if c][0]

    def byte(r, c):
        return (r * 104 + c) * 2

    costs = [_phase_cost([(byte(r0 + h * 8 + i, c0 + k * 8), 16) for i in range(8)])
             for r0 in (0, 16) for c0 in range(0, 96, 16) for h in (0, 1) for k in (0, 1)]
    assert (lds["worst"], lds["total"]) == (max(costs), sum(costs))


# --- the joint answer against every target's own minimum ----------------------------------------
def _joint(rows, cols, dtype, access, archs):
    names = portable.arch_list(",".join(archs))
    parts = portable.problems(names, rows, cols, access, elem_bytes={"f16": 2, "f32": 4}[dtype])
    return portable.solve_joint(parts)


def _never_below(j):
    for t in j.targets:
        assert t.excess >= t.own_excess, (t.arch, t.excess, t.own_excess)
        assert t.measured.excess >= 0
    if j.at_every_minimum:
        assert all(t.excess == t.own_excess for t in j.targets)
    assert sum(t.measured.excess for t in j.targets) == j.solution.answer.excess


def test_joint_never_below_own_minimum_instance():
    j = _joint(64, 64, "f16", ["nvidia:ldmatrix.x4", "amd:ds_read_b128:64x1"], ["sm90", "gfx942", "gfx950"])
    _never_below(j)
    assert j.at_every_minimum and j.conflict_free
    m = _joint(16, 32, "f32", ["8x4", "row"], ["sm90", "gfx950"])
    _never_below(m)


@settings(max_examples=15, deadline=None)
@given(rows=st.sampled_from([8, 16, 32]), cols=st.sampled_from([16, 32, 64]), dtype=st.sampled_from(["f16", "f32"]),
       access=st.lists(st.sampled_from(["8x4", "4x8", "row", "col", "16x2", "amd:ds_read_b64:64x1",
                                        "nvidia:lds128:32x1", "8x8"]), min_size=1, max_size=3, unique=True),
       archs=st.lists(st.sampled_from(["sm80", "sm90", "gfx942", "gfx950", "rdna4"]), min_size=2, max_size=3,
                      unique=True))
def test_joint_never_below_own_minimum(rows, cols, dtype, access, archs):
    try:
        j = _joint(rows, cols, dtype, access, archs)
    except InputError:
        assume(False)  # (an access a target cannot take: the refusal is tested below)
        return
    _never_below(j)


# --- the grammar and its refusals -----------------------------------------------------------------
def test_arch_groups_come_from_the_targets_data():
    assert portable.arch_list("amd") == [n for n in TARGETS if TARGETS[n].language == "HIP"]
    assert portable.arch_list("nvidia-all") == ["sm80", "sm89", "sm90", "sm100", "sm120"]
    assert "nvidia" not in portable.arch_list("all") and len(portable.arch_list("all")) == len(TARGETS) - 1
    assert portable.arch_list("h100, mi300x,sm90") == ["sm90", "gfx942"]
    assert portable.arch_list("cdna") == ["gfx90a", "gfx942", "gfx950"]


def test_selectors():
    assert portable.split_access("nvidia:ldmatrix.x4") == (["nvidia"], "ldmatrix.x4")
    assert portable.split_access("warp:8x4:1x8") == (None, "warp:8x4:1x8")
    assert portable.split_access("ds_read_b128:64x1") == (None, "ds_read_b128:64x1")
    assert portable.accesses_for("gfx942", ["sm90+gfx942:8x8", "amd:row", "nvidia:col", "4x8"]) == ["8x8", "row", "4x8"]
    assert portable.accesses_for("sm90", ["sm90+gfx942:8x8", "amd:row", "nvidia:col", "4x8"]) == ["8x8", "col", "4x8"]


@pytest.mark.parametrize("argv, words", [
    (["--arch", "sm90,gfx942", "--access", "ldmatrix.x4"], "--arch gfx942: access 'ldmatrix.x4': --arch gfx942 has no"),
    (["--arch", "sm90,gfx942", "--access", ":8x8"], "--arch sm90: malformed access spec ':8x8'"),
    (["--arch", "sm90,gfx942", "--access", "rdna:row", "--access", "8x8"], "selects no target"),
    (["--arch", "sm90,nosuch", "--access", "8x8"], "unknown target 'nosuch'"),
    (["--arch", "sm90,,gfx942", "--access", "8x8"], "empty name"),
    (["--arch", "sm90,gfx942", "--access", "nvidia:8x8"], "--arch gfx942 has no access of its own"),
    (["--arch", "sm90,gfx942", "--access", "8x8", "--svg", "x.svg"], "take one target"),
    (["--arch", "sm90,gfx942", "--access", "8x8", "--explain"], "--explain, --show-phases and --for take one target"),
])
def test_bad_lists_are_one_line(argv, words):
    run = cli("--rows", "16", "--cols", "64", "--dtype", "f16", *argv)
    assert run.returncode == 2 and run.stdout == "" and words in run.stderr and run.stderr.count("\n") == 1


def test_one_target_after_selection_is_the_plain_solve():
    one = cli("--arch", "gfx942", "--rows", "64", "--cols", "64", "--dtype", "f16", "--access", "nvidia:ldmatrix.x4",
              "--access", "amd:ds_read_b128:64x1", "-q")
    plain = cli("--arch", "gfx942", "--rows", "64", "--cols", "64", "--dtype", "f16", "--access",
                "ds_read_b128:64x1", "-q")
    assert one.returncode == plain.returncode == 0 and one.stdout == plain.stdout


def test_text_matrix_emit_per_language_and_quiet():
    argv = ["--arch", "sm90,gfx942", "--rows", "64", "--cols", "64", "--dtype", "f16", "--access",
            "nvidia:ldmatrix.x4", "--access", "amd:ds_read_b128:64x1"]
    text = cli(*argv, "--emit", "cuda")
    assert text.returncode == 0
    assert "access" in text.stdout and "sm90" in text.stdout and "own answer" in text.stdout
    assert "--emit cuda for --arch sm90:" in text.stdout and "--emit cuda for --arch gfx942:" in text.stdout
    assert "hip_runtime" in text.stdout.split("--arch gfx942:")[1]
    methods = [t["proof"]["method"] for t in json.loads(cli(*argv, "--json").stdout)["targets"]]
    words = {"gf2-rank": "rank proof", "exhaustive": "exhaustive check"}
    assert f"(sm90: {words[methods[0]]}, gfx942: {words[methods[1]]})" in " ".join(text.stdout.split())
    quiet = cli(*argv, "-q")
    assert quiet.stdout == json.loads(cli(*argv, "--json").stdout)["answer"]["name"] + "\n"
    assert text.stdout.startswith(cli(*argv).stdout.rstrip("\n"))


def test_api_solve_arch_list():
    from swizzle_solver import solve

    j = solve(rows=64, cols=64, dtype="f16", access=["nvidia:ldmatrix.x4", "amd:ds_read_b128:64x1"],
              arch=["sm90", "gfx942"])
    assert j.at_every_minimum and [t.arch for t in j.targets] == ["sm90", "gfx942"]
    assert j.layout.name == json.loads(cli("--arch", "sm90,gfx942", "--rows", "64", "--cols", "64", "--dtype", "f16",
                                           "--access", "nvidia:ldmatrix.x4", "--access", "amd:ds_read_b128:64x1",
                                           "--json").stdout)["answer"]["name"]


def test_no_single_layout_reaches_every_minimum_and_the_reason_is_stated():
    """f32 rows read by columns (col) and, on NVIDIA only, by ldmatrix.x4: ldmatrix's 16-byte
    vectors must stay whole, which costs gfx942's col read 1 wavefront that its own answer
    (Swizzle<4,1,4>, which splits them) does not pay. The joint floors prove the sum for every
    layout that keeps the vectors whole."""
    from swizzle_solver.floors import floor_excess

    argv = ["--arch", "sm90,gfx942", "--rows", "16", "--cols", "32", "--dtype", "f32", "--access", "col",
            "--access", "nvidia:ldmatrix.x4"]
    run = cli(*argv, "--json")
    doc = json.loads(run.stdout)
    assert run.returncode == 1
    j = doc["joint"]
    assert not j["at_every_minimum"] and j["proven"] and j["excess_sum"] == j["floor_excess"] == 2
    assert j["own_minimum_sum"] == 1
    own = {t["arch"]: t["own_minimum"] for t in doc["targets"]}
    assert own["gfx942"]["answer"] == "Swizzle<4,1,4>" and own["gfx942"]["excess_wavefronts"] == 0
    assert [t["at_own_minimum"] for t in doc["targets"]] == [True, False]
    parts = portable.problems(["sm90", "gfx942"], 16, 32, ["col", "nvidia:ldmatrix.x4"], elem_bytes=4)
    assert floor_excess(portable.joint_problem(parts)) == 2  # (the floors, computed again here)
    text = cli(*argv, env={"COLUMNS": "200"}).stdout
    assert "no layout reaches every target's own minimum" in " ".join(text.split())
    assert "its own answer Swizzle<4,1,4> leaves 0" in " ".join(text.split())


def test_hostile_arch_lists_are_one_line_and_quick():
    """issue 39 item 7: --arch lists. A 200 KB list of unknown names, one of 10,000 repeats (one target
    after dedup: the plain solve), a group whose targets cannot all run an access."""
    import time

    base = ["--rows", "16", "--cols", "64", "--dtype", "f16", "--access", "8x8"]
    start = time.monotonic()
    run = cli("--arch", ",".join(["sm9x"] * 40_000), *base)
    assert run.returncode == 2 and run.stderr.count("\n") == 1 and "unknown target 'sm9x'" in run.stderr
    assert time.monotonic() - start < 5
    same = cli("--arch", ",".join(["h100"] * 10_000), *base, "-q")
    assert same.returncode == 0 and same.stdout == cli("--arch", "sm90", *base, "-q").stdout
    lacks = cli("--arch", "all", "--rows", "64", "--cols", "64", "--dtype", "f16", "--access", "ldmatrix.x4")
    assert lacks.returncode == 2 and "--arch gfx90a:" in lacks.stderr and lacks.stderr.count("\n") == 1


def test_a_layout_not_usable_is_said_so_on_the_matrix():
    argv = ["--arch", "sm90,gfx942", "--rows", "16", "--cols", "16", "--dtype", "f16", "--access", "8x8",
            "--check", "expr: r * 8 + c", "--emit", "cuda"]
    text = cli(*argv)
    assert text.returncode == 1 and "is not usable: it is not a bijection" in text.stdout
    assert "passed" not in text.stdout and "--emit cuda" not in text.stdout
    doc = json.loads(cli(*argv, "--json").stdout)
    assert doc["status"] == "not-usable" and all("emit" not in t for t in doc["targets"])
    assert cli(*argv, "-q").stdout == "expr: r * 8 + c not usable\n"


def test_hardware_md_shows_what_the_tool_prints():
    """docs/hardware.md's --arch examples (section "Several targets at once") are the tool's output."""
    import re
    import shlex

    from tests.clirun import ROOT

    text = (ROOT / "docs" / "hardware.md").read_text()
    section = text[text.index("## Several targets at once"):text.index("## Probes")]
    blocks = re.findall(r"```console\n\$ (.*?)```", section, re.S)
    assert len(blocks) == 2
    for block in blocks:
        lines = block.split("\n")
        n = next(i for i, line in enumerate(lines) if not line.endswith("\\"))
        argv = shlex.split(" ".join(line.rstrip("\\") for line in lines[:n + 1]))[1:]
        assert cli(*argv).stdout == "\n".join(lines[n + 1:])
