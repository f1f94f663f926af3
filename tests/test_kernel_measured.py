"""The hardware as the oracle of `swizzle_solver.kernel` (issue 32, DESIGN.md section 15): the PTX of
every probe kernel measured on the H100 (tests/data/gpu/*.json, 308 kernels in 65 probes; the PTX in
tests/data/gpu/ptx/, written by bench/probe_ptx.py) read by `kernel` gives, per kernel and per
instruction, the Nsight Compute counters that were measured.

How a probe's launch maps to ncu's totals (swizzle_solver/probe/cuda.py writes the kernels), so that
like is compared with like:

- grid and block: the host launches each kernel once, ``<<<1, 32, SMEM_BYTES>>>``: ONE CTA of ONE
  warp (``__launch_bounds__(32)``, the PTX's ``.maxntid 32, 1, 1``). ncu replays the launch as often
  as its metrics need, but reports each metric for one launch, so its totals are one CTA's:
  ``kernel(ptx, kernels=[name], block=(32, 1, 1), cta=(0, 0, 0))``. The kernel's one parameter
  (``unsigned* out``, where each lane's checksum goes) stays unknown: it addresses global memory
  only, never shared.
- repetitions: the kernel loops over its access's instructions (``#pragma unroll 1``: one static
  copy), iteration i issuing the instruction with lane l at byte offset ``aN_offsets[32 i + l]`` of
  the tile, a ``__device__ const int`` table that is initialized ``.global`` data in the PTX (an
  all-zero table has no initializer, and trailing zeros are left out: PTX zero-fills both). A lane
  whose offset is -1 sits the instruction out (``if (off >= 0)``); ldmatrix/stmatrix are
  ``.sync.aligned`` (no guard; the .x1/.x2 forms read their row addresses from lanes 0-7 / 0-15
  only). So the access's row has as many instances as table rows with an active lane, and its
  wavefronts are the kernel's measured counter of that op.
- the fill: a load kernel first stores the whole tile (``STORAGE_BYTES``, padding included) with
  ``st.shared.b32``, 32 consecutive words per warp instruction: ceil(ceil(storage / 4) / 32)
  instances of one wavefront each, no conflict, counted by ncu under ``_op_st``, never under the
  loads' ``_op_ld`` / ``_op_ldsm``, which are the access alone. A store kernel has no fill: its
  stores are the kernel's only shared-memory traffic.
- names: ld/st under ``l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}.sum`` and
  ``l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{ld,st}.sum``; ldmatrix/stmatrix under the
  SASS-level ``sm__sass_l1tex_data_pipe_lsu_{wavefronts,data_bank_conflicts}..._op_{ldsm,stsm}.sum``
  (swizzle_solver/counters.py), as the recorded files name them; bank conflicts are wavefronts minus
  one per phase (the ideal): the row's ``excess``.
- the tile's base: ``(smem + 1023) & ~1023`` in the kernel, so the addresses are the table's
  offsets from a 1024-byte aligned base whatever address the reader gives the dynamic shared
  memory.

Two independent checks of the corpus itself run without `kernel`: every recorded kernel has its
PTX, and the lane offsets decoded from that PTX's table, counted by a bank counter written here
from NVIDIA's rules (docs/hardware.md: phases by lane width, paired loads, ldmatrix's matrices),
give the measured counters, so the PTX is the measured kernel. The toolchain tier recompiles
probes with the nvcc present and holds `kernel` to the same counts
(tests/toolchains/test_kernel_sources.py).
"""
from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
from nvidia_banks import WARP, instruction_cost, matrix_cost

import swizzle_solver

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "gpu"
PTX = DATA / "ptx"
INDEX = json.loads((PTX / "probes.json").read_text())
kernel = swizzle_solver.kernel
LANE_BYTES = {"u8": 1, "u16": 2, "b32": 4, "v2.b32": 8, "v4.b32": 16}


def ptx_file(cases: str, slug: str) -> str:
    """The corpus file of a recorded probe (bench/probe_ptx.py's naming)."""
    return f"{Path(cases).stem}/{slug}.ptx"


def measurements() -> dict[str, list[dict]]:
    """PTX file -> every measurement of its kernels: {"file", "kernel", "access", "counters"}; a probe
    measured twice (the broadcast experiment's two runs) has both, and both must hold."""
    out: dict[str, list[dict]] = defaultdict(list)
    for path in sorted(DATA.glob("*.json")):
        doc = json.loads(path.read_text())
        for probe in doc["probes"]:
            for k in probe["kernels"]:
                out[ptx_file(doc["cases"], probe["slug"])].append(
                    {"file": path.name, "probe": probe["name"], "layout": probe["layout"], "kernel": k["kernel"],
                     "access": k["access"], "counters": {m: got for m, (_, got) in k["counters"].items()}})
    return dict(out)


MEASURED = measurements()
FILES = sorted(MEASURED)


def offsets(text: str, kernel_name: str) -> np.ndarray:
    """The kernel's lane offsets, (instructions, 32), decoded from its initialized .global table."""
    name = kernel_name.removeprefix("probe_")
    m = re.search(rf"\.global \.align 4 \.b8 {name}_offsets\[(\d+)\](?: = \{{([^}}]*)\}})?;", text)
    assert m, f"no table {name}_offsets"
    values = [int(x) for x in m.group(2).split(",")] if m.group(2) else []
    values += [0] * (int(m.group(1)) - len(values))  # PTX zero-fills what the initializer leaves out
    return np.array(values, dtype=np.uint8).view("<i4").reshape(-1, WARP).astype(np.int64)


def fill_instances(storage_bytes: int) -> int:
    words = -(-storage_bytes // 4)
    return -(-words // WARP)


# --- the independent count (tests/nvidia_banks.py) ------------------------------------------------------


def brute_force(text: str, kernel_name: str, instruction: str) -> tuple[int, int, int]:
    """(instances, wavefronts, bank conflicts) of the kernel's access, from its table and the rules."""
    table = offsets(text, kernel_name)
    instances = wavefronts = ideal = 0
    matrix = re.fullmatch(r"(ld|st)matrix\.sync\.aligned\.m8n8\.x(\d)(\.trans)?\.shared\.b16", instruction)
    op = re.fullmatch(r"(ld|st)\.shared\.(u8|u16|b32|v2\.b32|v4\.b32)", instruction)
    assert matrix or op, instruction
    for row in table:
        lanes = [int(a) for a in row]
        if matrix:  # ldmatrix/stmatrix are .sync.aligned: every lane executes them
            w, i = matrix_cost(lanes, int(matrix.group(2)))
        elif any(a >= 0 for a in lanes):  # (a warp whose lanes all sit out does not issue it)
            w, i = instruction_cost(lanes, LANE_BYTES[op.group(2)], op.group(1) == "ld")
        else:
            continue
        instances, wavefronts, ideal = instances + 1, wavefronts + w, ideal + i
    return instances, wavefronts, wavefronts - ideal


def split(counters: dict[str, float]) -> tuple[float, float]:
    """(wavefronts, bank conflicts) of one op's measured pair."""
    (w,) = [v for m, v in counters.items() if "_wavefronts_" in m]
    (c,) = [v for m, v in counters.items() if "_bank_conflicts_" in m]
    return w, c


# --- the corpus -----------------------------------------------------------------------------------------


def test_every_recorded_kernel_has_its_ptx():
    """65 PTX files, 308 measured kernels (256 distinct: 52 measured twice), each kernel an .entry of its
    file with its instruction inline, its table one row of 32 lanes per loop iteration."""
    assert set(MEASURED) == set(INDEX), set(MEASURED) ^ set(INDEX)
    assert len(FILES) == 65 and sum(len(v) for v in MEASURED.values()) == 308
    assert sum(len(e["kernels"]) for e in INDEX.values()) == 256
    for name in FILES:
        entry, text = INDEX[name], (PTX / name).read_text()
        assert text.startswith("//\n// Generated by NVIDIA NVVM Compiler") and ".target sm_90" in text
        assert f'.file\t1 "{Path(name).stem}.cu"' in text
        for m in MEASURED[name]:
            assert (m["probe"], m["layout"]) == (entry["name"], entry["layout"]), name
            k = entry["kernels"][m["kernel"]]
            assert k["access"] == m["access"]
            assert f".visible .entry {m['kernel']}(" in text
            assert f"\t{k['instruction']} " in text, (name, k["instruction"])
            assert offsets(text, m["kernel"]).shape[0] == k["loop"]


@pytest.mark.parametrize("name", FILES)
def test_the_ptx_tables_give_what_the_h100_measured(name):
    """The lanes the committed PTX issues, counted by the brute force above, are ncu's counters."""
    text, entry = (PTX / name).read_text(), INDEX[name]
    for m in MEASURED[name]:
        k = entry["kernels"][m["kernel"]]
        _, wavefronts, conflicts = brute_force(text, m["kernel"], k["instruction"])
        assert (wavefronts, conflicts) == split(m["counters"]), (name, m["kernel"], m["access"])


# --- kernel() ---------------------------------------------------------------------------------------------


def row_of(rows: list[dict], instruction: str) -> dict:
    found = [r for r in rows if re.search(rf"(^|\s){re.escape(instruction)}(\s|$)", r["ptx"])]
    assert len(found) == 1, (instruction, [r["ptx"] for r in rows])
    return found[0]


def check_kernel(doc: dict, text: str, entry: dict, m: dict) -> None:
    """One measured kernel against its `kernel` report (the mapping in the module's docstring)."""
    k = entry["kernels"][m["kernel"]]
    assert doc["name"] == m["kernel"] and list(doc["block"]) == [32, 1, 1]
    assert doc["not_counted"] == []
    rows, totals = doc["instructions"], doc["counters"]
    where = f"{m['kernel']} ({m['access']})"
    # the access: the kernel's measured counters, and its one static instruction's row
    for metric, value in m["counters"].items():
        assert totals.get(metric) == value, f"{where}: {metric} {totals.get(metric)} != measured {value}"
        assert sum(r["counters"].get(metric, 0) for r in rows) == value, f"{where}: rows' {metric}"
    access = row_of(rows, k["instruction"])
    instances, wavefronts, conflicts = brute_force(text, m["kernel"], k["instruction"])
    assert (access["wavefronts"], access["excess"]) == split(m["counters"]), where
    assert access["ideal_wavefronts"] == access["wavefronts"] - access["excess"], where
    assert access["instances"] == instances, where
    assert {metric: access["counters"].get(metric) for metric in m["counters"]} == m["counters"], where
    assert access["op"] == {("load", False): "ld", ("store", False): "st", ("load", True): "ldsm",
                            ("store", True): "stsm"}[(k["direction"], "matrix" in k["instruction"])]
    # the rest: the fill of a load kernel (st.shared.b32 over the whole storage, no conflict), else nothing
    others = [r for r in rows if r is not access]
    if k["direction"] == "store":
        assert others == [], f"{where}: a store kernel has no other shared-memory instruction"
        return
    fill = fill_instances(entry["storage_bytes"])
    assert {r["op"] for r in others} == {"st"} and all(r["ptx"].lstrip("@%p0123456789! \t").startswith(
        "st.shared.b32") for r in others), where
    assert sum(r["instances"] for r in others) == fill and sum(r["wavefronts"] for r in others) == fill, where
    assert sum(r["excess"] for r in others) == 0, where
    assert totals["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"] == fill, where
    assert totals["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"] == 0, where


@pytest.mark.parametrize("name", FILES)
def test_kernel_gives_what_the_h100_measured(name):
    """One read of the file for all its kernels (each launched alone: block 32 x 1 x 1, CTA 0)."""
    text, entry = (PTX / name).read_text(), INDEX[name]
    wanted = sorted({m["kernel"] for m in MEASURED[name]})
    report = kernel(PTX / name, kernels=wanted, block=(32, 1, 1), cta=(0, 0, 0)).to_json()
    assert report["schema_version"] == 1 and sorted(k["name"] for k in report["kernels"]) == wanted
    docs = {k["name"]: k for k in report["kernels"]}
    for m in MEASURED[name]:
        check_kernel(docs[m["kernel"]], text, entry, m)


def test_the_block_defaults_to_maxntid_and_every_kernel_is_read():
    """Without --kernel and --block: every .entry of the file, each at its .maxntid (32)."""
    name = "gpu_probe/01-ex01-f16-64-wide-tile-ldmatrix-x4-and-the-f16-ac.ptx"
    report = kernel((PTX / name).read_text()).to_json()
    assert [k["name"] for k in report["kernels"]] == sorted(INDEX[name]["kernels"])
    text = (PTX / name).read_text()
    for doc, m in zip(report["kernels"], sorted(MEASURED[name], key=lambda m: m["kernel"]), strict=True):
        check_kernel(doc, text, INDEX[name], m)
