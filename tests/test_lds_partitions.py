"""gfx1250's LDS partitions (issue 38 item 5; docs/hardware.md, "LDS partitions (gfx1250)").

The rules, as the sources state them (cited in docs/hardware.md), written here again from the text
and not from the tool's code:

- byte address a of the workgroup's LDS is in partition a // 65536 (Triton Allocation.cpp
  getPartitionIndex = offset / partitionSize; AMD TargetInfo.cpp getSharedMemoryPartitionSize:
  GFX1250 -> 64 KiB), 320 KiB / 64 KiB = 5 partitions;
- waves 2k and 2k + 1 of the workgroup that issue one instruction together conflict when they
  touch a common partition (inferred from Gluon's make_partitioned_dot_layouts, which keeps w0/w1
  and w2/w3 on different operand blocks "in a single instruction");
- ``OP:RxC:wN``: N waves issue the access's instructions, wave w the w-th N-th of them in the
  access's order (footprint positions row-major), one per round;
- a partitioned allocation (TritonGPUAttrDefs.td, PartitionedSharedEncodingAttr): the tile cut along
  dim 0 into P * G pieces, piece i in buffer i % P at position i // P, buffer p in partition p.

The brute force below walks every lane of every wave's instruction, byte by byte, and is compared with
simulate.partition_conflicts on random layouts (hypothesis in the slow tier; a fixed instance here).
"""
from __future__ import annotations

import json
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swizzle_solver import api, partitions, simulate
from swizzle_solver.access import make_problem
from swizzle_solver.hardware import TARGETS
from tests import clirun

PARTITION = 64 * 1024  # bytes, the cited rule
WIDTH = {"ds_read_b128": 16, "ds_read_b64": 8, "ds_read_b32": 4, "ds_write_b128": 16, "ds_write_b64": 8}


def brute_force(rows: int, cols: int, row_length: int, elem: int, op: str, lr: int, lc: int, waves: int,
                phys: np.ndarray) -> tuple[int, int]:
    """(conflicting, pairs) of ``op:LRxLC:wWAVES`` (default block: one vector per lane) under ``phys``."""
    vec = WIDTH[op] // elem  # elements per lane
    height, width = lr, lc * vec  # one instruction's footprint
    positions = [(r0, c0) for r0 in range(0, rows, height) for c0 in range(0, cols, width)]
    touched = []
    for r0, c0 in positions:  # one instruction per position (one vector per lane)
        parts = set()
        for lane in range(lr * lc):
            r, c = r0 + lane // lc, c0 + (lane % lc) * vec
            for k in range(vec):
                for byte in range(elem):
                    parts.add((int(phys[r, c + k]) * elem + byte) // PARTITION)
        touched.append(parts)
    per_wave = len(touched) // waves
    conflicting = pairs = 0
    for t in range(per_wave):
        for w in range(0, waves, 2):
            pairs += 1
            conflicting += bool(touched[w * per_wave + t] & touched[(w + 1) * per_wave + t])
    return conflicting, pairs


def tool_count(rows, cols, elem, spec, phys):
    problem = make_problem(rows, cols, [spec], elem_bytes=elem, arch="gfx1250")
    count = simulate.partition_conflicts(problem.tile, problem.hardware, problem.patterns[0], phys)
    return count.conflicting, count.pairs


def random_layout(rng: np.random.Generator, rows: int, cols: int, elem: int, vec: int, block: int) -> np.ndarray:
    """Runs of ``block`` rows permuted, and whole vectors permuted anywhere inside each run: with runs
    at least an instruction high, each instruction stays in one run (one partition or two), so pairs
    both collide and do not; with short runs an instruction is spread over the storage."""
    order = rng.permutation(rows // block)
    per_run = block * cols // vec  # vector slots in one run
    phys = np.empty((rows, cols), dtype=np.int64)
    for i, run in enumerate(order):
        slots = rng.permutation(per_run) + run * per_run
        phys[i * block:(i + 1) * block] = (slots.reshape(block, cols // vec, 1) * vec + np.arange(vec)).reshape(block, cols)
    return phys


def test_count_equals_the_brute_force_on_a_fixed_random_layout():
    rng = np.random.default_rng(1250)
    rows, cols, elem = 256, 256, 2  # 128 KiB: two partitions
    seen = []
    for op, lr, lc, waves in (("ds_read_b128", 32, 1, 4), ("ds_read_b64", 16, 2, 2), ("ds_write_b128", 4, 8, 8)):
        phys = random_layout(rng, rows, cols, elem, WIDTH[op] // elem, 32)
        expected = brute_force(rows, cols, cols, elem, op, lr, lc, waves, phys)
        assert tool_count(rows, cols, elem, f"{op}:{lr}x{lc}:w{waves}", phys) == expected
        seen.append(expected)
    assert any(c > 0 for c, _ in seen) and any(c < p for c, p in seen)  # pairs that collide, and pairs that do not


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), rows=st.sampled_from([128, 256, 512]),
       form=st.sampled_from([("ds_read_b128", 32, 1), ("ds_read_b64", 32, 1), ("ds_read_b32", 8, 4),
                             ("ds_write_b128", 4, 8)]),
       waves=st.sampled_from([2, 4, 8]), block=st.sampled_from([1, 4, 32, 64]))
def test_count_equals_the_brute_force_on_random_layouts(seed, rows, form, waves, block):
    op, lr, lc = form
    cols, elem = 256, 2
    phys = random_layout(np.random.default_rng(seed), rows, cols, elem, WIDTH[op] // elem, block)
    assert tool_count(rows, cols, elem, f"{op}:{lr}x{lc}:w{waves}", phys) == \
        brute_force(rows, cols, cols, elem, op, lr, lc, waves, phys)


def test_row_major_tile_pairs_in_one_partition_and_triton_partitioning_frees_them():
    """256 x 256 f16 (128 KiB), 4 waves each reading 64 rows: waves 0 and 1 both read rows below
    128 (partition 0), waves 2 and 3 both above (partition 1), so every pair collides; Triton's
    partitioned_shared with 2 partitions and 2 groups (pieces of 64 rows, alternating) frees them."""
    problem = api.problem(256, 256, ["ds_read_b128:32x1:w4"], dtype="f16", arch="gfx1250")
    tile = problem.tile
    identity = np.arange(tile.size).reshape(tile.rows, tile.cols)
    assert tool_count(256, 256, 2, "ds_read_b128:32x1:w4", identity) == (128, 128)
    found = partitions.alternative(problem, identity)
    assert (found.num_partitions, found.num_groups, found.piece_rows, found.conflicting) == (2, 2, 64, 0)
    # the table is TritonGPUAttrDefs.td's rule: piece i -> buffer i % P at position i // P, buffer p at p * 64 KiB
    for r in range(0, 256, 17):
        piece = r // 64
        expected = (piece % 2) * PARTITION // 2 + (piece // 2) * 64 * 256 + (r % 64) * 256
        assert found.table[r, 3] == expected + 3
    assert brute_force(256, 256, 256, 2, "ds_read_b128", 32, 1, 4, found.table) == (0, 128)


def test_a_tile_within_one_partition_always_conflicts_and_a_partitioned_one_does_not():
    """Any layout of a 32 KiB buffer keeps both waves of a pair in partition 0."""
    solved = api.solve(api.problem(128, 128, ["ds_read_b128:32x1:w2"], dtype="f16", arch="gfx1250"))
    doc = solved.json()
    entry = doc["answer"]["per_access"][0]["partition"]
    assert (entry["conflicting_pairs"], entry["pairs"], entry["partitions_touched"]) == (32, 32, 1)
    alt = doc["answer"]["partitioned"]
    assert alt["conflicting_pairs"] == 0 and alt["num_partitions"] == 2
    assert alt["excess_wavefronts"] == 0  # the answer's banks hold on every piece
    assert alt["triton"].startswith("#ttg.partitioned_shared<{numPartitions = 2, numGroups = ")


def test_a_row_bit_xored_into_the_partition_bit_frees_them_in_one_buffer():
    """128 KiB in one buffer: XORing row bit 6 into element offset bit 15 (byte bit 16, the partition bit)
    sends rows 64-127 to partition 1 and rows 192-255 to partition 0, so each pair splits; the C
    expression the JSON gives, evaluated here, has no pair sharing a partition (the brute force) and
    the answer's bank counts (the bit is far above the bank bits)."""
    doc = api.solve(api.problem(256, 256, ["ds_read_b128:32x1:w4"], dtype="f16", arch="gfx1250")).json()
    answer, xor = doc["answer"], doc["answer"]["partition_xor"]
    assert (xor["offset_bit"], xor["row_bit"], xor["conflicting_pairs"]) == (15, 6, 0)
    assert xor["worst_wavefronts"] == [a["worst_wavefronts"] for a in answer["per_access"]]
    r, c = np.meshgrid(np.arange(256), np.arange(256), indexing="ij")
    table = eval(xor["expression"], {"r": r, "c": c})  # C's ^, >>, &, << on ints: Python's
    assert sorted(table.ravel().tolist()) == list(range(256 * 256))  # one buffer, a bijection
    assert brute_force(256, 256, 256, 2, "ds_read_b128", 32, 1, 4, table) == (0, 128)
    small = api.solve(api.problem(128, 128, ["ds_read_b128:32x1:w2"], dtype="f16", arch="gfx1250")).json()
    assert small["answer"]["partition_xor"] is None  # 32 KiB: every offset is in partition 0


def test_json_and_text_say_it_only_where_the_target_has_partitions():
    args = ("--rows", "256", "--cols", "256", "--dtype", "f16")
    run = clirun.solve("--arch", "gfx1250", *args, "--access", "ds_read_b128:32x1:w4", "--json")
    assert run.returncode == 0, run.stderr
    doc = json.loads(run.stdout)
    assert doc["problem"]["accesses"][0]["waves"] == 4
    part = doc["answer"]["per_access"][0]["partition"]
    assert part["confidence"] == "C+I" and part["partition_bytes"] == PARTITION and "cycles" in part["not_modelled"]
    assert any("LDS partitions" in w and "inferred" in w for w in doc["warnings"])
    text = clirun.solve("--arch", "gfx1250", *args, "--access", "ds_read_b128:32x1:w4", env={"COLUMNS": "200"})
    assert "128 of 128 wave-pair instructions share a partition" in text.stdout
    assert "partitioned allocation without partition conflicts: 2 partitions x 2 groups" in text.stdout
    assert "LDS partitions: 128 wave-pair instruction(s) share a partition (inferred rule); a partitioned" in text.stdout
    from tests.test_schema import validate

    validate(doc)  # the partition entry and the partitioned allocation, in docs/schema/solution.schema.json
    checked = clirun.solve("--arch", "gfx1250", *args, "--access", "ds_read_b128:32x1:w4", "--check", "Swizzle<4,3,5>",
                           "--json")
    validate(json.loads(checked.stdout))
    assert json.loads(checked.stdout)["answer"]["partitioned"]["num_groups"] == 2
    plain = clirun.solve("--arch", "gfx1250", *args, "--access", "ds_read_b128:32x1", "--json")
    assert "partition" not in json.dumps(json.loads(plain.stdout)["answer"])  # one wave: nothing to count


@pytest.mark.parametrize("arch", ["gfx942", "gfx950", "rdna4", "nvidia"])
def test_waves_on_a_target_without_partitions_exit_2(arch):
    op = "lds128" if arch == "nvidia" else "ds_read_b128"
    lanes = "32x1" if arch in ("rdna4", "nvidia") else "64x1"
    run = clirun.solve("--arch", arch, "--rows", "256", "--cols", "256", "--dtype", "f16", "--access",
                       f"{op}:{lanes}:w2")
    text = clirun.assert_input_error(run, "no LDS partitions", "gfx1250")
    assert re.search(r"targets that have it: --arch gfx1250", text)


@pytest.mark.parametrize("waves", ["w1", "w3", "w6", "w512"])
def test_waves_that_are_not_whole_pairs_dividing_the_instructions_exit_2(waves):
    run = clirun.solve("--arch", "gfx1250", "--rows", "256", "--cols", "256", "--dtype", "f16", "--access",
                       f"ds_read_b128:32x1:{waves}")
    clirun.assert_input_error(run, "whole pairs")


@pytest.mark.parametrize("spec", ["ds_read_b128:32x1:4w", "ds_read_b128:32x1:waves4", "ds_read_b128:32x1:w4:w2"])
def test_a_misspelt_wave_suffix_is_told_the_spelling(spec):
    run = clirun.solve("--arch", "gfx1250", "--rows", "256", "--cols", "256", "--dtype", "f16", "--access", spec)
    clirun.assert_input_error(run, "[:wN]", "ds_read_b128:32x1:w4")


def test_the_capability_matches_the_docs_table():
    """docs/hardware.md's partition rows say what hardware.TARGETS holds."""
    from pathlib import Path

    parts = TARGETS["gfx1250"].lds_partitions
    assert parts is not None and (parts.partition_bytes, parts.count, parts.pair) == (PARTITION, 5, 2)
    assert all(TARGETS[n].lds_partitions is None for n in TARGETS if n != "gfx1250")
    text = (Path(__file__).resolve().parents[1] / "docs" / "hardware.md").read_text()
    section = text.split("#### gfx1250 LDS partitions\n", 1)[1].split("\n#", 1)[0]
    assert "| partition size | 64 KiB |" in section and "| partitions | 5 |" in section
    assert "| which waves collide | waves 2k and 2k+1 issuing one instruction together | I |" in section
    assert "not modelled" in section


MLIR = ("#ttg.partitioned_shared<{numPartitions = 2, numGroups = 2, partitionDim = 0, partitionLayout = "
        "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 16, order = [1, 0]}>}>")
GLUON = "ttgl.amd.cdna5.PartitionedSharedLayout(2, 2, 0, ttgl.SwizzledSharedLayout(8, 1, 16, [1, 0]))"


def test_check_reads_the_partitioned_encoding_and_counts_it():
    """`--check 'triton: #ttg.partitioned_shared<...>'` (and its Gluon spelling) is the allocation
    TritonGPUAttrDefs.td describes (buffer p at p * 64 KiB), and the brute force finds no pair sharing a
    partition under it, where the plain swizzle of the same inner layout has every pair sharing one."""
    args = ("--arch", "gfx1250", "--rows", "256", "--cols", "256", "--dtype", "f16", "--access",
            "ds_read_b128:32x1:w4", "--json")
    docs = [json.loads(clirun.solve(*args, "--check", f"triton: {text}").stdout) for text in (MLIR, GLUON)]
    assert docs[0]["answer"]["expression"] == docs[1]["answer"]["expression"]
    for doc in docs:
        assert doc["check"]["passed"] and doc["answer"]["per_access"][0]["partition"]["conflicting_pairs"] == 0
        assert doc["answer"]["partitioned"] is None  # nothing to remove
    from swizzle_solver.notation import triton

    table = triton.parse(MLIR).evaluate(make_problem(256, 256, ["row"], elem_bytes=2).tile)[0]
    assert brute_force(256, 256, 256, 2, "ds_read_b128", 32, 1, 4, table) == (0, 128)
    r, c = np.meshgrid(np.arange(256), np.arange(256), indexing="ij")
    inner = (r % 64) * 256 + (c ^ ((r % 16) * 8))  # swizzled_shared vec 8, maxPhase 16 on a 64 x 256 piece
    piece = r // 64
    assert np.array_equal(table, (piece % 2) * (PARTITION // 2) + (piece // 2) * 64 * 256 + inner)
    plain = json.loads(clirun.solve(*args, "--check", "triton: " + MLIR.split("partitionLayout = ")[1][:-2]).stdout)
    assert plain["answer"]["per_access"][0]["partition"]["conflicting_pairs"] == 128


@pytest.mark.parametrize("rows, cols, accesses, order", [
    (256, 256, ["ds_read_b128:32x1:w4"], "row"),
    (256, 256, ["ds_read_b128:32x1:w4"], "col"),
    (128, 128, ["ds_read_b128:32x1:w2", "ds_write_b128:4x8"], "row"),
    (128, 64, ["ds_read_b64:32x1:w2"], "row"),
])
def test_the_partitioned_encoding_printed_reads_back_as_the_allocation_measured(rows, cols, accesses, order):
    """The answer's `partitioned.triton` (its partitionLayout: --emit triton's encoding of one piece),
    read back by `triton:`, is the table the counts were measured on: TritonGPUAttrDefs.td's rule over
    the answer's own expression, evaluated here; and --check of that text finds what the answer says."""
    from swizzle_solver.notation import triton

    doc = api.solve(api.problem(rows, cols, accesses, dtype="f16", arch="gfx1250", order=order)).json()
    alt = doc["answer"]["partitioned"]
    read = triton.parse(alt["triton"]).evaluate(make_problem(rows, cols, ["row"], elem_bytes=2).tile)[0]
    r, c = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    answer = eval(doc["answer"]["expression"], {"r": r, "c": c})  # the user's (r, c)
    along, other = (r, c) if order == "row" else (c, r)  # pieces run along the stored rows
    height = (rows if order == "row" else cols) // (alt["num_partitions"] * alt["num_groups"])
    piece = along // height
    first = (along % height) * (cols if order == "row" else rows) + other  # the plain offset in a piece
    inner = eval(doc["answer"]["expression"], {"r": first // cols, "c": first % cols}) if order == "row" else \
        eval(doc["answer"]["expression"], {"r": first % rows, "c": first // rows})
    expected = (piece % alt["num_partitions"]) * (PARTITION // 2) + (piece // alt["num_partitions"]) * height * \
        (cols if order == "row" else rows) + inner
    assert np.array_equal(read, expected)
    assert not np.array_equal(read, answer)  # a different allocation from the one buffer
    args = ["--arch", "gfx1250", "--rows", str(rows), "--cols", str(cols), "--dtype", "f16", "--order", order, "--json"]
    for a in accesses:
        args += ["--access", a]
    checked = json.loads(clirun.solve(*args, "--check", "triton: " + alt["triton"]).stdout)
    assert [a["worst_wavefronts"] for a in checked["answer"]["per_access"]] == alt["worst_wavefronts"]
    assert all(a.get("partition", {}).get("conflicting_pairs", 0) == 0 for a in checked["answer"]["per_access"])


@pytest.mark.parametrize("text, words", [
    (MLIR.replace("numPartitions = 2", "numPartitions = 3"), "numPartitions must be a power of two"),
    (MLIR.replace("partitionDim = 0", "partitionDim = 2"), "partitionDim must be 0 or 1"),
    (MLIR.replace("numGroups = 2", "numGroups = 256"), "not a multiple of numPartitions * numGroups"),
    ("#ttg.partitioned_shared<{numPartitions = 2, numGroups = 2, partitionDim = 0, partitionLayout = " + MLIR + "}>",
     "partitionLayout is one level"),
    (MLIR.replace("partitionLayout = ", "partitionLayout = 3, x = "), "not a parameter"),
    ("#ttg.partitioned_shared<{numPartitions = 2, numGroups = 1, partitionDim = 0}>", "partitionLayout must be given"),
    ("#ttg.partitioned_shared<{numPartitions = 2, numGroups = 1, partitionDim = 1, partitionLayout = "
     "#ttg.padded_shared<[512:+8] {order = [1, 0], shape = [256, 128]}>}>", "larger than a 64 KiB partition"),
])
def test_bad_partitioned_encodings_exit_2(text, words):
    run = clirun.solve("--arch", "gfx1250", "--rows", "256", "--cols", "256", "--dtype", "f16", "--access",
                       "ds_read_b128:32x1:w4", "--check", f"triton: {text}")
    clirun.assert_input_error(run, words)


_TRITON = """
import json, sys
from triton._C.libtriton import ir, gluon_ir
from triton.experimental.gluon.language._layouts import SwizzledSharedLayout
from triton.experimental.gluon.language.amd.cdna5 import PartitionedSharedLayout
ctx = ir.context(); ir.load_dialects(ctx)
builder = gluon_ir.GluonOpBuilder(ctx)
layout = PartitionedSharedLayout(2, 2, 0, SwizzledSharedLayout(8, 1, 16, [1, 0]))
ll = builder.to_linear_layout(layout._to_ir(builder), [256, 256])
sys.stdout.write(json.dumps(ll.offset_bases))
"""


@pytest.mark.toolchain
def test_partitioned_table_is_tritons_own_linear_layout():
    """Triton 3.9's to_linear_layout of PartitionedSharedLayout(2, 2, 0, SwizzledSharedLayout(8, 1, 16))
    on 256 x 256 f16 (its offsets inside a partition buffer) equals the tool's partitioned table of the
    same inner layout (Swizzle<4,3,5>: column chunk ^= row % 16) less the buffer's partition base."""
    import subprocess
    import sys

    pytest.importorskip("triton")
    run = subprocess.run([sys.executable, "-c", _TRITON], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    bases = json.loads(run.stdout)
    within = {}
    for offset in range(1 << len(bases)):  # Triton's offsets -> (row, col); the partition bit has no basis
        r = c = 0
        for bit, (br, bc) in enumerate(bases):
            if offset >> bit & 1:
                r, c = r ^ br, c ^ bc
        within[(r, c)] = offset
    problem = api.problem(256, 256, ["ds_read_b128:32x1:w4"], dtype="f16", arch="gfx1250")
    r, c = np.meshgrid(np.arange(256), np.arange(256), indexing="ij")
    p = r * 256 + c
    swizzled = p ^ ((p >> 5) & 120)  # Swizzle<4,3,5>
    found = partitions.measure(problem, swizzled, 2, 2, 64)
    base = ((r // 64) % 2) * (PARTITION // 2)  # buffer p at p * 64 KiB, in f16 elements
    # row bit 6 picks the partition (piece i % 2): Triton's offsets have no basis for it
    assert len(within) == 1 << 15 and all((i & 64) == 0 for i, _ in within)
    assert all(found.table[i, j] - base[i, j] == within[(i & ~64, j)] for i in range(256) for j in range(256))
    assert found.conflicting == 0
    from swizzle_solver.notation import triton  # the same encoding as --check reads it

    assert np.array_equal(triton.parse(MLIR).evaluate(problem.tile)[0], found.table)


_VERIFY = """
import sys
from triton._C.libtriton import ir
ctx = ir.context(); ir.load_dialects(ctx)
attribute, rows, cols = sys.argv[1], sys.argv[2], sys.argv[3]
open("m.mlir", "w").write(f\"\"\"#shared = {attribute}
#smem = #ttg.shared_memory
module attributes {{"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "hip:gfx1250"}} {{
  tt.func public @tile() {{
    %0 = ttg.local_alloc : () -> !ttg.memdesc<{rows}x{cols}xf16, #shared, #smem, mutable>
    tt.return
  }}
}}
\"\"\")
module = ir.parse_mlir_module("m.mlir", ctx)
module.context = ctx
sys.stdout.write("verified" if module.verify() else "rejected")
"""


@pytest.mark.toolchain
@pytest.mark.parametrize("rows, cols, accesses", [(256, 256, ["ds_read_b128:32x1:w4"]),
                                                  (128, 128, ["ds_read_b128:32x1:w2", "ds_write_b128:4x8"])])
def test_triton_parses_and_verifies_the_partitioned_encoding_printed(rows, cols, accesses, tmp_path):
    """The answer's `partitioned.triton` is a #ttg attribute Triton 3.9 parses and verifies on a
    hip:gfx1250 module (its partitionLayout one of each kind --emit triton prints here)."""
    import subprocess
    import sys

    pytest.importorskip("triton")
    attribute = api.solve(api.problem(rows, cols, accesses, dtype="f16", arch="gfx1250")).json()["answer"][
        "partitioned"]["triton"]
    run = subprocess.run([sys.executable, "-c", _VERIFY, attribute, str(rows), str(cols)], capture_output=True,
                         text=True, timeout=300, cwd=tmp_path)
    assert run.returncode == 0 and run.stdout == "verified", (attribute, run.stderr[-2000:])
