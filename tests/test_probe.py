"""`swizzle-solve probe` and `probe-compare` (DESIGN.md section 12), without a GPU.

- The prediction is the tool's: every kernel's wavefronts equal the access's total_wavefronts of
  the solve's (or --check's) own JSON, where one placement is one instruction's phase(s).
- The tables in probe.cu issue the model's phases: an independent counter here reads the C tables
  and applies NVIDIA's phase rule (32 / 16 / 8 lanes by width, one matrix of ldmatrix per phase;
  a 64/128-bit load whose 32 byte offsets repeat in lane pairs n^1 or n^2: two phases as one)
  and the bank rule; it must give prediction.json's W and ideal. The load checksum the host checks
  is recomputed from the tables and the fill formula, ldmatrix's fragment layout included.
- probe-compare on recorded (synthetic) ncu files that agree, differ, lack a kernel or are not ncu's.
- run.sh and bench/gpu_probe.py end to end with stand-ins for nvcc and ncu (bash scripts).
- Bad input: exit 2, one line on stderr, nothing on stdout, nothing written.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from swizzle_solver.cli import main

ROOT = Path(__file__).resolve().parents[1]

CASES = {
    "ldmatrix-mma-c": ["--rows", "64", "--cols", "64", "--dtype", "f16", "--access", "ldmatrix.x4",
                       "--access", "mma-c:m16n8"],
    "warp-float4": ["--rows", "32", "--cols", "32", "--dtype", "f32", "--access", "warp:4x8:1x4",
                    "--access", "warp:32x1:1x4"],
    "matrix-forms-unswizzled": ["--rows", "32", "--cols", "32", "--dtype", "f16", "--access", "ldmatrix.x1",
                                "--access", "ldmatrix.x2.trans", "--access", "stmatrix.x4",
                                "--access", "stmatrix.x1.trans", "--check", "none"],
    "ops-column": ["--rows", "64", "--cols", "64", "--dtype", "i8", "--access", "lds8:32x1", "--access", "lds16:32x1",
                   "--access", "lds64:32x1", "--access", "sts128:32x1", "--access", "sts32:4x8", "--check", "none"],
    "blocks-pitch-40": ["--rows", "32", "--cols", "40", "--dtype", "f32", "--access", "8x4", "--access", "32x1",
                        "--access", "col"],
    "f32-mma-c-unswizzled": ["--rows", "32", "--cols", "16", "--dtype", "f32", "--access", "mma-c", "--check", "none"],
    "padded": ["--rows", "64", "--cols", "96", "--dtype", "bf16", "--access", "8x8", "--access", "8x8:2",
               "--check", "pitch 104 + XorCols<1,3,3>"],
    "phases-diagonal": ["--rows", "32", "--cols", "32", "--dtype", "f32", "--phases",
                        str(ROOT / "phases" / "main-diagonal-32.toml"), "--check", "none"],
    "linear-layout": ["--rows", "32", "--cols", "16", "--dtype", "f32", "--linear-layout",
                      str(ROOT / "examples" / "mma-c-m16n8-f32.json"), "--check", "Swizzle<2,1,3>"],
    # paired loads (lanes n, n ^ 1 on one address): [[instruction]]s and a broadcasting linear layout
    "paired-unswizzled": ["--rows", "32", "--cols", "32", "--dtype", "f32", "--phases",
                          str(ROOT / "phases" / "paired-loads.toml"), "--linear-layout",
                          str(ROOT / "examples" / "broadcast-rows-f32.json"), "--check", "none"],
    "paired-swizzled": ["--rows", "32", "--cols", "32", "--dtype", "f32", "--phases",
                        str(ROOT / "phases" / "paired-loads.toml"), "--linear-layout",
                        str(ROOT / "examples" / "broadcast-rows-f32.json"), "--check", "Swizzle<1,4,1>"],
    # --order col: the probe issues the stored tile's lanes (an M-major operand read by ldmatrix.trans,
    # blocks whose vectors run down a column), and the 4-bit elements packed down a column
    "col-m-major": ["--rows", "128", "--cols", "32", "--order", "col", "--dtype", "f16", "--access",
                    "ldmatrix.x4.trans", "--access", "8x8", "--access", "row"],
    "col-unswizzled": ["--rows", "64", "--cols", "32", "--order", "col", "--dtype", "f32", "--access", "4x8",
                       "--access", "col", "--check", "none"],
    "col-fp4": ["--rows", "256", "--cols", "64", "--order", "col", "--dtype", "fp4", "--access", "32x8",
                "--access", "cp.async"],
}


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def probe(capsys, tmp_path, name: str, args: list[str] | None = None) -> Path:
    folder = tmp_path / name
    code, out, err = run(capsys, "probe", *(args if args is not None else CASES[name]), "--target", "cuda",
                         "-o", str(folder))
    assert code == 0 and err == "", err
    assert out.startswith(f"wrote {folder}")
    return folder


def prediction(folder: Path) -> dict:
    return json.loads((folder / "prediction.json").read_text())


def tables(folder: Path) -> dict[str, list[int]]:
    """kernel -> the lane byte offsets of its table in probe.cu."""
    text = (folder / "probe.cu").read_text()
    found = re.findall(r"__device__ const int a(\d+)_offsets\[(\d+)\] = \{(.*?)\};", text, re.S)
    out = {f"probe_a{k}": [int(x) for x in body.replace("\n", " ").split(",")] for k, n, body in found}
    assert all(len(v) == int(n) for (_, n, _), v in zip(found, out.values()))
    return out


# --- an independent model of what NVIDIA serves --------------------------------------------------------


def phases(row: list[int], op: str, width: int) -> list[list[int]]:
    """The phases of one warp instruction (its 32 slot offsets): the offsets of each phase's active lanes."""
    matrices = re.search(r"matrix\.x(\d)", op)
    if matrices:
        return [row[8 * i:8 * i + 8] for i in range(int(matrices[1]))]
    size = {1: 32, 2: 32, 4: 32, 8: 16, 16: 8}[width]
    paired = any(all(row[n] == row[n ^ k] for n in range(32)) for k in (1, 2))
    if op.startswith("ld.") and width >= 8 and min(row) >= 0 and paired:
        size *= 2  # a paired load: phases 2i and 2i + 1 served together (consecutive lanes)
    groups = [[x for x in row[i:i + size] if x >= 0] for i in range(0, 32, size)]
    return [g for g in groups if g]


def wavefronts(phase: list[int], width: int) -> tuple[int, int]:
    """(wavefronts, ideal) of one phase: the most distinct 4-byte words in one of 32 banks, and one
    per 128 distinct bytes."""
    words = {(a + b) // 4 for a in phase for b in range(width)}
    per_bank: dict[int, int] = {}
    for w in words:
        per_bank[w % 32] = per_bank.get(w % 32, 0) + 1
    distinct = len({a + b for a in phase for b in range(width)})
    return max(per_bank.values()), max(1, -(-distinct // 128))


def fill(byte: int) -> int:
    h = byte // 2
    half = (h * 40503 + 12345) & 0xFFFF
    return half >> (8 * (byte % 2)) & 0xFF


def units(offset: int, n: int) -> int:
    """The sum of the 16-bit units of ``n`` bytes at ``offset`` (one byte: the byte)."""
    if n == 1:
        return fill(offset)
    return sum(fill(offset + 2 * k) | fill(offset + 2 * k + 1) << 8 for k in range(n // 2))


def lane_receives(row: list[int], op: str, width: int, lane: int) -> int:
    """The sum of the units lane ``lane`` loads from one instruction (ldmatrix: PTX's m8n8 fragment)."""
    matrices = re.search(r"matrix\.x(\d)", op)
    if not matrices:
        return units(row[lane], width) if row[lane] >= 0 else 0
    total = 0
    for i in range(int(matrices[1])):
        rows = row[8 * i:8 * i + 8]
        if op.endswith(".trans"):  # the stored matrix's column lane // 4, rows 2 (lane % 4) and the next
            total += units(rows[2 * (lane % 4)] + 2 * (lane // 4), 2) + units(rows[2 * (lane % 4) + 1] + 2 * (lane // 4), 2)
        else:  # row lane // 4, word lane % 4
            total += units(rows[lane // 4] + 4 * (lane % 4), 4)
    return total


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_tables_issue_the_phases_the_model_counts(capsys, tmp_path, name):
    folder = probe(capsys, tmp_path, name)
    doc, offsets = prediction(folder), tables(folder)
    storage = doc["layout"]["storage_bytes"]
    rows = r'\{"(probe_a\d+)", "[^"]*", probe_a\d+, true, true, (\d+)u\}'  # loads, weighted, the checksum
    host = dict(re.findall(rows, (folder / "probe.cu").read_text()))
    for k in doc["kernels"]:
        table, width, op = offsets[k["kernel"]], k["lane_bytes"], k["op"]
        rows = [table[i:i + 32] for i in range(0, len(table), 32)]
        assert len(rows) == k["instructions"]
        active = [x for x in table if x >= 0]
        assert all(0 <= x <= storage - width and x % width == 0 for x in active), k["kernel"]
        counted = [wavefronts(ph, width) for r in rows for ph in phases(r, op, width)]
        assert sum(w for w, _ in counted) == k["wavefronts"], (k["kernel"], k["access"])
        assert sum(i for _, i in counted) == k["ideal_wavefronts"] == k["wavefronts"] - k["bank_conflicts"]
        if k["direction"] == "load":
            sums = [sum(lane_receives(r, op, width, lane) for r in rows) % 2**32 for lane in range(32)]
            expected = sum((2 * lane + 1) * s for lane, s in enumerate(sums)) % 2**32
            assert int(host[k["kernel"]]) == expected == k["checksum"], k["kernel"]
        else:
            assert k["checksum"] is None and k["kernel"] not in host


def solve_json(capsys, args: list[str]) -> dict:
    code, out, _ = run(capsys, *args, "--json")
    assert code in (0, 1)
    return json.loads(out)


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_prediction_is_the_access_total_of_the_tools_own_json(capsys, tmp_path, name):
    folder = probe(capsys, tmp_path, name)
    doc, solved = prediction(folder), solve_json(capsys, CASES[name])
    assert doc["layout"]["name"] == solved["answer"]["name"]
    assert doc["layout"]["expression"] == solved["answer"]["expression"]
    per_access = {a["spec"]: a for a in solved["answer"]["per_access"]}
    for k in doc["kernels"]:
        access = per_access[k["access"]]
        assert k["access_total_wavefronts"] == access["total_wavefronts"]
        if not k["notes"]:  # a placement is one phase (or a whole instruction): the same count
            assert k["wavefronts"] == access["total_wavefronts"], k["access"]
        counters = k["compare"][0]
        assert list(counters.values()) == [k["wavefronts"], k["bank_conflicts"]]
        kind = "st" if k["direction"] == "store" else "ld"
        if "matrix" in k["op"]:
            kind += "sm"
        if k["op"].startswith("cp.async"):  # a store to shared memory that ncu counts as LDGSTS, not STS
            assert k["direction"] == "store" and k["instruction"] == "cp.async.cg.shared.global.L2::128B"
            kind = "ldgsts"
        assert all(name.endswith(f"_op_{kind}.sum") for name in counters), counters


def test_a_column_major_probe_describes_the_users_tile(capsys, tmp_path):
    """probe --order col: the stored tile's lanes are issued (the tests above count them); the prediction
    and the README describe the tile as given, and a bad order is bad input."""
    folder = probe(capsys, tmp_path, "col-m-major")
    doc = prediction(folder)
    assert {k: doc["problem"][k] for k in ("rows", "cols", "order", "row_length")} == {
        "rows": 128, "cols": 32, "order": "col", "row_length": 128}
    assert "column-major (--order col)" in (folder / "README.md").read_text()
    code, out, err = run(capsys, "probe", *CASES["col-m-major"][:-6], "--order", "diag", "--access", "8x8",
                         "--target", "cuda", "-o", str(tmp_path / "bad"))
    assert code == 2 and out == "" and "--order 'diag'" in err and not (tmp_path / "bad").exists()


def test_a_placement_wider_than_a_phase_is_issued_as_the_hardware_can_and_said(capsys, tmp_path):
    # f16 `row`: 64 lanes of 2 B in one placement (one wavefront in the model), two ld.shared.u16 of 32 lanes
    folder = probe(capsys, tmp_path, "row", ["--rows", "16", "--cols", "64", "--dtype", "f16", "--access", "row",
                                            "--check", "none"])
    (k,) = prediction(folder)["kernels"]
    assert (k["wavefronts"], k["access_total_wavefronts"], k["instructions"]) == (32, 16, 32)
    assert k["notes"] and "more than one phase" in k["notes"][0]
    assert "more than one phase" in (folder / "README.md").read_text()


def test_the_same_input_writes_the_same_files(capsys, tmp_path):
    a = probe(capsys, tmp_path, "a", CASES["ldmatrix-mma-c"])
    b = probe(capsys, tmp_path, "b", CASES["ldmatrix-mma-c"])
    names = sorted(p.name for p in a.iterdir())
    assert names == sorted(p.name for p in b.iterdir()) == ["README.md", "build.sh", "prediction.json", "probe.cu",
                                                             "run.sh"]
    assert all((a / n).read_bytes() == (b / n).read_bytes() for n in names)
    assert all(os.access(a / n, os.X_OK) for n in ("build.sh", "run.sh"))


def test_the_probe_names_the_build_and_the_counters(capsys, tmp_path):
    folder = probe(capsys, tmp_path, "ldmatrix-mma-c")
    assert "-arch=\"${ARCH:-sm_90}\"" in (folder / "build.sh").read_text()
    run_sh = (folder / "run.sh").read_text()
    for metric in ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
                   "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
                   "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum"):
        assert metric in run_sh
    assert "--csv" in run_sh and "ncu.csv" in run_sh
    source = (folder / "probe.cu").read_text()
    assert "ldmatrix.sync.aligned.m8n8.x4.shared.b16" in source and "st.shared.b32" in source
    assert source.count('extern "C" __global__') == 2


# --- probe-compare on recorded measurements -------------------------------------------------------------

NCU_HEADER = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size",'
              '"Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"')


def ncu_csv(doc: dict, change: dict | None = None, drop: tuple = (), skip_kernels: tuple = ()) -> str:
    """An ncu --csv --log-file recording of the prediction (as ncu prints it: ==PROF== lines, quoted
    cells, thousands separators), with ``change`` {(kernel, metric): value} and ``drop`` metrics."""
    lines = ["==PROF== Connected to process 4242 (/probe/probe)", NCU_HEADER]
    for i, k in enumerate(doc["kernels"]):
        if k["kernel"] in skip_kernels:
            continue
        values = {m: v for group in k["compare"] for m, v in group.items()} | k["also"]
        for metric, v in values.items():
            if metric in drop:
                continue
            v = (change or {}).get((k["kernel"], metric), v)
            lines.append(f'"{i}","4242","probe","host","{k["kernel"]}","1","7","(32, 1, 1)","(1, 1, 1)","0","9.0",'
                         f'"Command line profiler metrics","{metric}","","{v:,}"')
    lines.append("==PROF== Disconnected from process 4242")
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> Path:
    """A probe of a 128 x 64 f16 tile (wavefront counts over 1,000) with a recording that agrees."""
    folder = tmp_path_factory.mktemp("recorded") / "big"
    with contextlib.redirect_stdout(io.StringIO()):
        code = main(["probe", "--rows", "128", "--cols", "64", "--dtype", "f16", "--access", "8x1", "--access",
                     "ldmatrix.x4", "--access", "sts64:32x1", "--check", "none", "--target", "cuda", "-o", str(folder)])
    assert code == 0
    (folder / "ncu.csv").write_text(ncu_csv(prediction(folder)))
    return folder


@pytest.fixture
def measured(recorded, tmp_path) -> Path:
    """A copy of ``recorded`` the test may change."""
    return Path(shutil.copytree(recorded, tmp_path / "big"))


def test_compare_agrees_with_a_recording_that_agrees(capsys, measured):
    doc = prediction(measured)
    assert max(k["wavefronts"] for k in doc["kernels"]) >= 1000  # the recording prints "1,024"-style numbers
    code, out, err = run(capsys, "probe-compare", str(measured))
    assert (code, err) == (0, "")
    assert out.splitlines()[-1] == "all 3 access(es) agree with the model"
    assert "DIFFERS" not in out


def test_compare_exits_1_and_says_which_counter_differs(capsys, measured):
    doc = prediction(measured)
    k = doc["kernels"][1]
    metric = "sm__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm.sum"
    assert metric in k["compare"][0]
    (measured / "ncu.csv").write_text(ncu_csv(doc, change={(k["kernel"], metric): k["bank_conflicts"] + 16}))
    code, out, err = run(capsys, "probe-compare", str(measured))
    assert (code, err) == (1, "")
    assert "DIFFERS" in out and f"1 of 3 access(es) differ from the model: {k['kernel']} (ldmatrix.x4)" in out
    code, out, _ = run(capsys, "probe-compare", "--json", str(measured))
    result = json.loads(out)
    assert code == 1 and result["agree"] is False
    (bad,) = [x for x in result["kernels"] if not x["agree"]]
    assert bad["readings"][0]["compared"][metric] == [k["bank_conflicts"], k["bank_conflicts"] + 16]


def test_an_also_row_that_differs_is_shown_and_does_not_decide(capsys, measured):
    doc = prediction(measured)
    fill = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
    (measured / "ncu.csv").write_text(ncu_csv(doc, change={("probe_a0", fill): 1}))
    code, out, _ = run(capsys, "probe-compare", str(measured))
    assert code == 0 and "differs" in out


def test_compare_falls_back_to_the_counters_this_ncu_has(capsys, measured):
    doc = prediction(measured)
    gone = ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum")
    (measured / "ncu.csv").write_text(ncu_csv(doc, drop=gone))
    code, out, _ = run(capsys, "probe-compare", str(measured))
    assert code == 0 and "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum" in out


def test_compare_reads_the_raw_page_too(capsys, measured):
    doc = prediction(measured)
    metrics = sorted({m for k in doc["kernels"] for g in k["compare"] for m in g})
    lines = ['"ID","Kernel Name",' + ",".join(f'"{m}"' for m in metrics), '"","",' + ",".join('""' for _ in metrics)]
    for i, k in enumerate(doc["kernels"]):
        values = {m: v for g in k["compare"] for m, v in g.items()}
        lines.append(f'"{i}","{k["kernel"]}",' + ",".join(f'"{values.get(m, "n/a")}"' for m in metrics))
    (measured / "ncu.csv").write_text("\n".join(lines) + "\n")
    code, out, _ = run(capsys, "probe-compare", str(measured))
    assert code == 0, out


def test_a_checksum_mismatch_in_the_probes_output_fails_the_kernel(capsys, measured):
    (measured / "probe.out").write_text("device: X\nprobe_a0 (8x1): ran, checksum ok\n"
                                        "probe_a1 (ldmatrix.x4): checksum MISMATCH 1, expected 2: ...\n")
    code, out, _ = run(capsys, "probe-compare", str(measured))
    assert code == 1 and "MISMATCH" in out and "probe_a1 (ldmatrix.x4)" in out.splitlines()[-1]


@pytest.mark.parametrize("damage, words", [
    ("missing kernel", "has no counters of kernel probe_a2"),
    ("no file", "no ncu.csv: run `bash run.sh`"),
    ("not ncu", "not ncu --csv output"),
    ("no counters", "none of the counters"),
    ("bad prediction", "prediction.json: not JSON"),
])
def test_compare_of_an_incomplete_folder_is_bad_input(capsys, measured, damage, words):
    doc = prediction(measured)
    if damage == "missing kernel":
        (measured / "ncu.csv").write_text(ncu_csv(doc, skip_kernels=("probe_a2",)))
    elif damage == "no file":
        (measured / "ncu.csv").unlink()
    elif damage == "not ncu":
        (measured / "ncu.csv").write_text("hello,world\n1,2\n")
    elif damage == "no counters":
        (measured / "ncu.csv").write_text(ncu_csv(doc, drop=tuple(m for k in doc["kernels"] for g in k["compare"]
                                                                   for m in g)))
    else:
        (measured / "prediction.json").write_text("{")
    code, out, err = run(capsys, "probe-compare", str(measured))
    assert code == 2 and out == "" and err.count("\n") == 1 and words in err, err


def test_probe_compare_runs_without_z3_from_the_checkout(capsys, measured):
    code = ("import sys; sys.modules['z3'] = None\n"
            "from swizzle_solver.cli import main\n"
            f"rc = main(['probe-compare', {str(measured)!r}])\n"
            "assert 'z3' not in [m for m in sys.modules if sys.modules[m] is not None]\n"
            "sys.exit(rc)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    assert "agree with the model" in done.stdout


ROCPROF_HEADER = ('"Correlation_Id","Dispatch_Id","Agent_Id","Queue_Id","Process_Id","Thread_Id","Grid_Size",'
                  '"Kernel_Id","Kernel_Name","Workgroup_Size","LDS_Block_Size","Scratch_Size","VGPR_Count",'
                  '"Accum_VGPR_Count","SGPR_Count","Counter_Name","Counter_Value","Start_Timestamp","End_Timestamp"')


def rocprof_csv(values: dict[str, float]) -> str:
    """rocprofv3's counter collection: each counter of each kernel in two rows (two dimension
    instances, summed by probe-compare), in its floating-point notation."""
    rows = [ROCPROF_HEADER]
    for i, (kernel, conflicts) in enumerate(values.items()):
        for counter, value in (("SQ_LDS_BANK_CONFLICT", conflicts), ("SQ_LDS_IDX_ACTIVE", 5000.0)):
            for half in (value / 2, value - value / 2):
                rows.append(f'{i},{i + 1},1,0,77,77,64,{i + 9},"{kernel}",64,10240,0,16,0,24,"{counter}",{half:.8e},1,2')
    return "\n".join(rows) + "\n"


def test_compare_of_a_disputed_cell_says_which_reading_the_gpu_agrees_with(capsys, tmp_path):
    # gfx950 ds_read_b32 down a column: the tool's 32-bank reading and the other (64-bank) differ
    folder = tmp_path / "b32"
    code, out, _ = run(capsys, "probe", "--arch", "gfx950", "--rows", "64", "--cols", "64", "--dtype", "f32",
                       "--access", "ds_read_b32:64x1", "--check", "none", "--target", "hip", "-o", str(folder))
    assert code == 0
    doc = prediction(folder)
    assert doc["measurement"]["file"] == "rocprof.csv" and doc["build_arch"] == "gfx950"
    ours, other = doc["kernels"]
    assert ours["kernel"] == other["kernel"] == "probe_a0" and other["reading"] == "[64-bank reading]"
    assert ours["bank_conflicts"] != other["bank_conflicts"]
    (folder / "rocprof.csv").write_text(rocprof_csv({"probe_a0": other["bank_conflicts"]}))
    code, out, _ = run(capsys, "probe-compare", str(folder))
    assert code == 0 and "agrees with [64-bank reading]" in out and "SQ_LDS_IDX_ACTIVE" in out
    (folder / "rocprof.csv").write_text(rocprof_csv({"probe_a0": ours["bank_conflicts"] + other["bank_conflicts"]}))
    code, out, _ = run(capsys, "probe-compare", str(folder))
    assert code == 1 and "1 of 1 access(es) differ" in out


def test_a_two_address_op_whose_distance_varies_cannot_be_probed(capsys, tmp_path):
    # Swizzle<3,3,3> on fp8 moves each lane's second 8-byte vector before or after its first, row by row
    code, out, err = run(capsys, "probe", "--arch", "gfx950", "--rows", "64", "--cols", "64", "--dtype", "e4m3",
                         "--access", "ds_read2_b64:64x1", "--check", "Swizzle<3,3,3>", "--target", "hip",
                         "-o", str(tmp_path / "x"))
    assert code == 2 and out == "" and "takes its two offsets as immediates" in err and not (tmp_path / "x").exists()
    code, _, _ = run(capsys, "probe", "--arch", "gfx950", "--rows", "64", "--cols", "64", "--dtype", "e4m3",
                     "--access", "ds_read2_b64:64x1", "--check", "none", "--target", "hip", "-o", str(tmp_path / "y"))
    assert code == 0 and "ds_read2_b64 %0, %1 offset0:0 offset1:1" in (tmp_path / "y" / "probe.hip").read_text()


# --- run.sh and bench/gpu_probe.py, with stand-ins for nvcc and ncu ---------------------------------------

FAKE_NVCC = """#!/usr/bin/env bash
# stand-in for nvcc: the "probe" it builds prints what the real one prints when every checksum holds
out=""; while [ $# -gt 0 ]; do [ "$1" = "-o" ] && out="$2"; shift; done
cat > "$out" <<'EOS'
#!/usr/bin/env bash
python3 - <<'PY'
import json
for k in json.load(open("prediction.json"))["kernels"]:
    print(f"{k['kernel']} ({k['access']}): ran" + (", checksum ok" if k["checksum"] is not None else ""))
PY
EOS
chmod +x "$out"
"""

FAKE_NCU = """#!/usr/bin/env bash
# stand-in for ncu: --version, --query-metrics, and a profile that records exactly the prediction
case "$1" in --version) echo "NVIDIA (R) Nsight Compute Command Line Profiler"; echo "Version 0.0 (fake)"; exit 0;;
  --query-metrics) exit 1;; esac
log=""; while [ $# -gt 0 ]; do [ "$1" = "--log-file" ] && log="$2"; shift; done
python3 - "$log" <<'PY'
import json, sys
doc = json.load(open("prediction.json"))
rows = ['==PROF== Connected', '"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"']
for i, k in enumerate(doc["kernels"]):
    for m, v in ({m: v for g in k["compare"] for m, v in g.items()} | k["also"]).items():
        rows.append(f'"{i}","{k["kernel"]}","{m}","","{v:,}"')
open(sys.argv[1], "w").write("\\n".join(rows) + "\\n")
PY
"""


@pytest.fixture
def fake_tools(tmp_path) -> dict:
    bin_dir = tmp_path / "fake-bin"
    bin_dir.mkdir()
    for name, text in (("nvcc", FAKE_NVCC), ("ncu", FAKE_NCU), ("nvidia-smi", "#!/usr/bin/env bash\necho 'Fake GPU'\n")):
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    return {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}


def test_run_sh_writes_what_probe_compare_reads(capsys, tmp_path, fake_tools):
    folder = probe(capsys, tmp_path, "ldmatrix-mma-c")
    done = subprocess.run(["bash", "run.sh"], cwd=folder, capture_output=True, text=True, env=fake_tools, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert {"ncu.csv", "device.txt", "probe.out", "probe"} <= {p.name for p in folder.iterdir()}
    assert "gpu: Fake GPU" in (folder / "device.txt").read_text()
    code, out, _ = run(capsys, "probe-compare", str(folder))
    assert code == 0 and "measured on: gpu Fake GPU" in out


@pytest.mark.slow  # about 10 s: four probes generated and run through the script in subprocesses
def test_gpu_probe_script_generates_runs_and_summarizes(tmp_path, fake_tools):
    out = tmp_path / "probes"
    gen = subprocess.run([sys.executable, "bench/gpu_probe.py", "gen", str(out), "--only", "^ex01 |^ex14 16x16|instruction.*Swizzle"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert gen.returncode == 0, gen.stdout + gen.stderr
    cases = json.loads((out / "cases.json").read_text())
    assert len(cases) == 4 and all(c["written"] for c in cases)
    # one probe that cannot build must not stop the others
    (out / cases[1]["slug"] / "build.sh").write_text("#!/usr/bin/env bash\nexit 3\n")
    done = subprocess.run([sys.executable, "bench/gpu_probe.py", "run", str(out), "--jobs", "2"], cwd=ROOT,
                          capture_output=True, text=True, env=fake_tools, timeout=300)
    assert done.returncode == 1, done.stdout + done.stderr
    summary = (out / "results" / "summary.txt").read_text()
    assert "3 of 4 probes agree with the model; 0 differ; 1 failed to build, run or compare" in summary
    assert "BUILD FAILED" in summary and "gpu Fake GPU" in summary
    assert json.loads((out / "results" / "summary.json").read_text())["probes"][0]["compare"] == 0


@pytest.mark.slow  # about 10 s: the repeated-address experiment generated, run and analyzed in subprocesses
def test_gpu_broadcast_runs_through_the_probe_script(tmp_path, fake_tools):
    out = tmp_path / "bc"
    env = {**fake_tools, "PYTHON": sys.executable}
    gen = subprocess.run(["bash", "bench/gpu_probe.sh", "gen-broadcast", str(out)], cwd=ROOT, capture_output=True,
                         text=True, env=env, timeout=300)
    assert gen.returncode == 0, gen.stdout + gen.stderr
    done = subprocess.run([sys.executable, "bench/gpu_probe.py", "run", str(out), "--results", str(tmp_path / "r"),
                           "--timeout", "60", "--budget", "240"], cwd=ROOT, capture_output=True, text=True,
                          env=fake_tools, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr  # the stand-in ncu measures the model's prediction
    cases = json.loads((out / "cases.json").read_text())
    assert f"{len(cases)} of {len(cases)} probes agree" in (tmp_path / "r" / "summary.txt").read_text()
    shown = subprocess.run(["bash", "bench/gpu_probe.sh", "analyze-broadcast", str(out), str(tmp_path / "r")],
                           cwd=ROOT, capture_output=True, text=True, env=env, timeout=120)
    # the stand-in ncu measures today's model: the paired-load rule for loads, fixed phases for stores
    kernels = json.loads((out / "hypotheses.json").read_text())["kernels"].values()
    ops = list(dict.fromkeys(k["op"] for k in kernels))
    rows = {line.split("|")[1].strip(): line.split("|")[2:-1] for line in shown.stdout.splitlines()
            if line.startswith("| ") and line.count("|") == len(ops) + 2}
    assert shown.returncode == 0, shown.stdout + shown.stderr
    for i, op in enumerate(ops):
        today = "pairs" if op.startswith("ld") else "model"
        assert int(rows[today][i]) == sum(1 for k in kernels if k["op"] == op), (op, shown.stdout)


def test_the_instruction_file_has_every_nvidia_op_and_parses(tmp_path):
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import gpu_probe
    finally:
        sys.path.pop(0)
    path = gpu_probe.instruction_file(tmp_path / "i.toml")
    from swizzle_solver.access.phases_file import load_phases
    from swizzle_solver.access.tile import make_tile
    from swizzle_solver.hardware import DEFAULT

    patterns = load_phases(str(path), make_tile(64, 64, None, 1), DEFAULT)
    assert sorted({p.op for p in patterns}) == sorted(DEFAULT.op_names())
    assert len(patterns) == 3 * len(DEFAULT.op_names())


# --- bad input ----------------------------------------------------------------------------------------------

TILE = ["--rows", "64", "--cols", "64", "--dtype", "f16", "--access", "ldmatrix.x4"]


@pytest.mark.parametrize("args, words", [
    (TILE + ["--target", "cuda", "-o", "{file}"], "is not a folder"),
    (TILE + ["--target", "cuda", "-o", "{full}"], "not empty"),
    (TILE + ["--banks", "8", "--target", "cuda", "-o", "{new}"], "no GPU has"),
    (TILE + ["--target", "hip", "-o", "{new}"], "--target hip does not run --arch nvidia"),
    (["--rows", "64", "--cols", "64", "--dtype", "f16", "--access", "8x8", "--arch", "gfx942", "--target", "cuda",
      "-o", "{new}"], "--target cuda does not run --arch gfx942"),
    (TILE + ["--target", "metal", "-o", "{new}"], "--target 'metal'"),
    (TILE + ["-o", "{new}"], "--target"),
    (TILE + ["--target", "cuda"], "--out"),
    (TILE + ["--check", "Swizzle<3,0,3>", "--target", "cuda", "-o", "{new}"], "not usable here"),
    (TILE + ["--check", "Swizzle<9", "--target", "cuda", "-o", "{new}"], "--check"),
    (["--rows", "256", "--cols", "256", "--dtype", "f32", "--access", "8x4", "--check", "none", "--target", "cuda",
      "-o", "{new}"], "above the 232448 B"),
    (["--rows", "64", "--cols", "64", "--dtype", "f16", "--access", "9x9", "--target", "cuda", "-o", "{new}"], "9x9"),
    (["--cols", "64", "--access", "8x8", "--target", "cuda", "-o", "{new}"], "--rows"),
    (TILE + ["--json", "--target", "cuda", "-o", "{new}"], "--json"),
    (["--rows", "8", "--cols", "8", "--phases", "{mixed}", "--check", "none", "--target", "cuda", "-o", "{new}"],
     "mixes lane widths"),
])
def test_bad_input_exits_2_with_one_line_and_writes_nothing(capsys, tmp_path, args, words):
    (tmp_path / "a-file").write_text("x")
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "keep.txt").write_text("mine")
    (tmp_path / "mixed.toml").write_text('[[pattern]]\nname = "mixed"\nphases = [[[0, 0, 4], [1, 0, 8]]]\n')
    paths = {"{file}": tmp_path / "a-file", "{full}": tmp_path / "full", "{new}": tmp_path / "new",
             "{mixed}": tmp_path / "mixed.toml"}
    argv = [str(paths.get(a, a)) for a in args]
    before = sorted(p.name for p in tmp_path.rglob("*"))
    code, out, err = run(capsys, "probe", *argv)
    assert code == 2 and out == "" and err.count("\n") == 1 and err.startswith("swizzle-solve: error:"), err
    assert words in err, err
    assert sorted(p.name for p in tmp_path.rglob("*")) == before
    assert (tmp_path / "full" / "keep.txt").read_text() == "mine"


# --- the JSON documents against their schemas ------------------------------------------------------------


def test_prediction_and_compare_json_validate(capsys, tmp_path, measured):
    from test_schema import validate

    for name, args, target in (("cuda", CASES["ldmatrix-mma-c"], "cuda"),
                               ("hip", ["--arch", "gfx950", "--rows", "64", "--cols", "64", "--dtype", "f32",
                                        "--access", "ds_read_b32:64x1", "--check", "none"], "hip")):
        code, _, _ = run(capsys, "probe", *args, "--target", target, "-o", str(tmp_path / name))
        assert code == 0
        validate(prediction(tmp_path / name), "probe.schema.json")
    validate(prediction(measured), "probe.schema.json")
    code, out, _ = run(capsys, "probe-compare", "--json", str(measured))
    assert code == 0
    validate(json.loads(out), "probe-compare.schema.json")


def test_an_explicit_phase_is_issued_as_listed_a_partial_warp(capsys, tmp_path):
    """A [[pattern]] phase of 16 lanes whose lanes n and n ^ 1 share a 16-byte chunk: the probe issues
    the 16 lanes as listed (the repeats included, in slots 0-15) and the other 16 sit out; a request of
    fewer lanes than the warp is never paired (docs/hardware.md), so the fixed phases: 2 phases of 8
    lanes, 4 chunks each (1 wavefront each). Only the padding of a shorter phase is dropped."""
    path = tmp_path / "partial.toml"
    lanes = ", ".join(f"[0, {16 * (n // 2)}, 16]" for n in range(16))
    path.write_text(f'[[pattern]]\nname = "partial"\nphases = [[{lanes}], [[1, 0, 16], [1, 16, 16]]]\n')
    folder = probe(capsys, tmp_path, "partial", ["--rows", "32", "--cols", "128", "--dtype", "i8", "--phases",
                                                 str(path), "--check", "none"])
    (k,) = prediction(folder)["kernels"]
    first, second = [tables(folder)["probe_a0"][i:i + 32] for i in (0, 32)]
    assert first == [16 * (n // 2) for n in range(16)] + [-1] * 16
    assert second == [128, 144] + [-1] * 30  # the shorter phase's padding (copies of its first lane) dropped
    assert (k["wavefronts"], k["bank_conflicts"], k["instructions"]) == (3, 0, 2)


def test_a_probe_target_is_one_registry_entry(capsys, tmp_path, monkeypatch):
    """probe/targets.py drives --target, the language check, the ops by width and probe-compare's
    reader, with nothing else edited: a toy target for a toy hardware target whose kernels are in the
    toy's language (the CUDA generator and profiler, its loads spelled as the 32-bit load for every
    width) writes a probe that issues the toy's ops, and probe-compare reads its measurement."""
    from swizzle_solver import hardware
    from swizzle_solver.probe import targets
    from swizzle_solver.value import replace

    monkeypatch.setitem(hardware.TARGETS, "toy-gpu", replace(hardware.DEFAULT, name="toy-gpu", language="TOY"))
    cuda = targets.TARGETS["cuda"]
    toy = replace(cuda, name="toy", language="TOY", about="a toy GPU", loads={**cuda.loads, 8: "ld.shared.v2.u32"})
    monkeypatch.setitem(targets.TARGETS, "toy", toy)
    args = ["--arch", "toy-gpu", "--rows", "32", "--cols", "32", "--dtype", "f32", "--access", "row",
            "--access", "warp:8x4:1x2", "--check", "none"]
    code, _, err = run(capsys, "probe", *args, "--target", "cuda", "-o", str(tmp_path / "x"))
    assert code == 2 and "--target cuda does not run --arch toy-gpu: use --target toy" in err
    code, _, err = run(capsys, "probe", *args, "--target", "metal", "-o", str(tmp_path / "y"))
    assert code == 2 and "toy (a toy GPU)" in err
    folder = tmp_path / "toy"
    code, _, err = run(capsys, "probe", *args, "--target", "toy", "-o", str(folder))
    assert code == 0, err
    doc = prediction(folder)
    assert doc["target"] == "toy" and [k["op"] for k in doc["kernels"]] == ["ld.shared.b32", "ld.shared.v2.u32"]
    assert "ld.shared.v2.u32 {%0, %1}" in (folder / "probe.cu").read_text()
    (folder / "ncu.csv").write_text(ncu_csv(doc))
    code, out, _ = run(capsys, "probe-compare", str(folder))
    assert code == 0 and out.splitlines()[-1] == "all 2 access(es) agree with the model"
