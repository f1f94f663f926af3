"""Counters in the profiler's words (DESIGN.md section 10): each access's ``counter`` in solve and
check JSON on NVIDIA targets is Nsight Compute's wavefronts and bank conflicts for one pass over the
tile, recomputed here from the layout's element table by a bank counter written in the test (the
recorded H100 measurements: tests/test_gpu_measured.py)."""
from __future__ import annotations

import contextlib
import io
import json

import pytest

from swizzle_solver.access import make_problem
from swizzle_solver.cli import main
from swizzle_solver.layout import layout_table
from swizzle_solver.names import parse_layout
from swizzle_solver.report import solution_json
from swizzle_solver.solving import solve

LD = ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum")
ST = ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum")
LDSM = ("sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum",
        "sm__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm.sum")
STSM = ("sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum",
        "sm__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_stsm.sum")
# cp.async (SASS LDGSTS): ncu counts its shared-memory writes under their own op, neither _op_ld nor _op_st
LDGSTS = ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum",
          "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum")

# (rows, cols, elem_bytes, accesses, the names each access's counter has): every placement of
# these accesses is one phase of the instruction that makes it (a block within one phase, the warp
# forms, ldmatrix's matrices), so one pass over the tile is the sum over the placements
CASES = [
    (64, 64, 2, ["ldmatrix.x4", "mma-c:m16n8"], [LDSM, ST]),
    (64, 64, 2, ["stmatrix.x4", "ldmatrix.x2.trans"], [STSM, LDSM]),
    (8, 24, 4, ["4x2"], [LD]),
    (32, 40, 4, ["8x4"], [LD]),
    (32, 32, 4, ["row", "col"], [LD, LD]),
    (64, 64, 2, ["warp:4x8:1x8", "8x8"], [LD, LD]),
    (16, 64, 4, ["lds128:8x4", "sts32:1x32", "lds64:4x8"], [LD, ST, LD]),
    (64, 64, 2, ["cp.async", "ldmatrix.x4"], [LDGSTS, LDSM]),
]


def whole_tile(problem, pattern, table) -> tuple[int, int]:
    """(wavefronts, ideal) of one pass: for each placement, its distinct lanes' bytes at their
    physical byte addresses, the most distinct words in one bank (at least 1), and the ideal
    max(1, ceil(distinct bytes / 128))."""
    tile, hw = problem.tile, problem.hardware
    waves = ideal = 0
    for i in range(pattern.placements):
        words: dict[int, set[int]] = {}
        elements = set()
        for r, c, width in pattern.phase_lanes(i):
            for e in range(width // tile.elem_bytes):
                elements.add((r, c + e))
                base = int(table[r, c + e]) * tile.elem_bytes
                for b in range(tile.elem_bytes):
                    word = (base + b) // hw.bank_bytes
                    words.setdefault(word % hw.banks, set()).add(word)
        waves += max(len(w) for w in words.values())
        ideal += max(1, -(-len(elements) * tile.elem_bytes // (hw.banks * hw.bank_bytes)))
    return waves, ideal


@pytest.mark.parametrize("rows, cols, elem, access, names", CASES, ids=[" ".join(c[3]) for c in CASES])
def test_the_counter_is_one_pass_over_the_tile(rows, cols, elem, access, names):
    problem = make_problem(rows, cols, access, elem_bytes=elem)
    solution = solve(problem)
    doc = solution_json(solution)
    layouts = [solution.answer, *solution.alternatives]
    entries = [doc["answer"], *doc["alternatives"]]
    assert len(layouts) > 1
    for ranked, entry in zip(layouts, entries):
        table = layout_table(problem.tile, ranked.layout)
        for pattern, cost, (waves_name, conflicts_name) in zip(problem.patterns, entry["per_access"], names):
            waves, ideal = whole_tile(problem, pattern, table)
            assert cost["counter"] == {waves_name: waves, conflicts_name: waves - ideal}, (entry["name"], cost)
            assert waves == cost["total_wavefronts"]  # each placement is one phase: the simulator's total


def test_a_conflicting_check_reports_its_conflicts():
    """The unswizzled ldmatrix.x4 of a 64-wide f16 tile: 8-way, every phase (as measured on an H100:
    512 wavefronts, 448 bank conflicts; tests/data/gpu)."""
    problem = make_problem(64, 64, ["ldmatrix.x4"], elem_bytes=2)
    table = layout_table(problem.tile, parse_layout("none", problem.tile))
    waves, ideal = whole_tile(problem, problem.patterns[0], table)
    assert (waves, ideal) == (512, 64)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["--rows", "64", "--cols", "64", "--dtype", "f16", "--access", "ldmatrix.x4", "--check", "none",
                     "--json"]) == 1
    assert json.loads(out.getvalue())["answer"]["per_access"][0]["counter"] == {LDSM[0]: 512, LDSM[1]: 448}


def test_cp_async_is_counted_as_ldgsts_in_json_and_the_rich_report(capsys):
    """cp.async's shared writes are LDGSTS wavefronts (ncu's _op_ldgsts), never LDS or STS ones: 64 rows
    of one 16-byte f16 chunk at a 128-byte pitch, unswizzled: each phase of 8 lanes is 8 chunks in banks
    0-3, 8-way (64 wavefronts for 8 phases, 56 of them conflicts)."""
    args = ["--rows", "64", "--cols", "8", "--row-length", "64", "--dtype", "f16", "--access", "cp.async",
            "--check", "none"]
    assert main([*args, "--json"]) == 1
    entry = json.loads(capsys.readouterr().out)["answer"]["per_access"][0]
    assert entry["counter"] == {LDGSTS[0]: 64, LDGSTS[1]: 56}
    main(args)
    assert "(op_ldgsts): 64 wavefronts, 56 bank conflicts" in " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize("arch", ["sm80", "sm90", "sm120"])
def test_every_nvidia_generation_reports_ncu_counters(arch):
    problem = make_problem(32, 32, ["row"], elem_bytes=4, arch=arch)
    entry = solution_json(solve(problem))["answer"]["per_access"][0]
    assert entry["counter"] == {LD[0]: 32, LD[1]: 0}


def counter(problem, pattern, table) -> dict:
    """A toy profiler's counter module (this test module): what each access reports where a target names it."""
    return {"toy_wavefronts": int(table.size), "toy_access": pattern.spec}


def test_the_profiler_is_a_capability_naming_its_counter_module():
    """hardware.Hardware.profiler names the module whose ``counter`` the report calls: a toy target
    naming this module reports the toy's counters, with nothing else edited; the JSON document asks
    for them, the rich report's terminal document only for the answer."""
    from swizzle_solver.hardware import DEFAULT
    from swizzle_solver.value import replace

    toy = replace(DEFAULT, name="toy", profiler=__name__)
    problem = make_problem(32, 32, ["row", "col"], elem_bytes=4)
    problem = replace(problem, hardware=toy)
    solution = solve(problem)
    doc = solution_json(solution)
    # (the element table of a 32 x 32 tile has 1024 entries under every layout)
    assert [a["counter"] for a in doc["answer"]["per_access"]] == [
        {"toy_wavefronts": 1024, "toy_access": s} for s in ("row", "col")]
    assert all("counter" in a for alt in doc["alternatives"] for a in alt["per_access"])
    terminal = solution_json(solution, terminal=True)
    assert all("counter" in a for a in terminal["answer"]["per_access"])
    assert not any("counter" in a for alt in terminal["alternatives"] for a in alt["per_access"])


def test_no_counter_where_no_profiler_measures_the_model():
    """--banks / --bank-bytes make a model of their own (the tutorials' 8 banks): no profiler counts
    it, so no counter; AMD keeps section 9's per-instruction SQ_LDS_BANK_CONFLICT."""
    problem = make_problem(8, 8, ["row"], elem_bytes=4, banks=8)
    assert "counter" not in solution_json(solve(problem))["answer"]["per_access"][0]
    amd = make_problem(32, 32, ["ds_read_b64:8x8"], elem_bytes=2, arch="gfx942")
    assert set(solution_json(solve(amd))["answer"]["per_access"][0]["counter"]) == {"SQ_LDS_BANK_CONFLICT"}


def test_the_ideal_of_a_phase_above_one_wavefront_rounds_up(tmp_path):
    """issue 33 item 5 (a mutation that survived every tier): the probe's ideal of a phase, the
    ncu counters' W - bank conflicts, is ceil(distinct bytes / 128), not rounded down. One explicit
    phase of 48 consecutive 4-byte words (192 B, above one wavefront and not a multiple of it) needs
    2 wavefronts under any layout, and the unswizzled tile serves it in 2 (words 0..47 on banks
    0..31 then 0..15, two at most in a bank): lower bound 2, ncu wavefronts 2, 0 bank conflicts."""
    from clirun import solve as cli

    lanes = ", ".join(f"[0, {c}, 4]" for c in range(48))
    (tmp_path / "p.toml").write_text(f'[[pattern]]\nname = "48 words"\nphases = [[{lanes}]]\n')
    doc = json.loads(cli("--rows", "64", "--cols", "64", "--phases", str(tmp_path / "p.toml"), "--check", "none",
                         "--json").stdout)
    access = doc["answer"]["per_access"][0]
    banks = [c % 32 for c in range(48)]
    assert max(banks.count(b) for b in set(banks)) == 2 == -(-48 * 4 // 128)  # (by hand)
    assert access["lower_bound"] == 2 and access["worst_wavefronts"] == 2
    assert access["counter"] == {LD[0]: 2, LD[1]: 0}
