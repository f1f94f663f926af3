"""swizzle_solver/compiled/ttgir.py on TTGIR that Triton 3.9 made on the CPU (tests/data/kernels/triton,
bench/triton_corpus.py) and on a small hand-written one (tests/data/ttgir/column_store.ttgir: 32 x 32
f32 stored by threads down the columns into an unswizzled encoding), each counted row held to a
brute force written here from the encodings' definitions as Triton documents them:

- ``#ttg.blocked<{sizePerThread, threadsPerWarp, warpsPerCTA, order}>``: along each dimension, an
  element's coordinate is (register within sizePerThread) + sizePerThread x (lane's index along it)
  + sizePerThread x threadsPerWarp x (warp's index along it), the lane's and warp's indices split
  over the dimensions in ``order`` (fastest first), and the tensor larger than that repeats it;
- ``#ttg.swizzled_shared<{vec, perPhase, maxPhase, order = [1, 0]}>``: element (r, c) sits at
  r * cols + ((c / vec) ^ ((r / perPhase) % maxPhase)) * vec + c % vec (TritonGPUAttrDefs.td),

and tests/nvidia_banks.py's counter (each warp's store of one register: its 32 lanes, one element
each). The fix: the ``better`` encoding put into the TTGIR in place of the old one, read again: no
excess.
"""
from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from nvidia_banks import WARP, instruction_cost

from swizzle_solver.compiled.ttgir import blocked_bases, read_ttgir
from swizzle_solver.model import InputError

ROOT = Path(__file__).resolve().parents[1]
TRITON = ROOT / "tests" / "data" / "kernels" / "triton"
COLUMN = ROOT / "tests" / "data" / "ttgir" / "column_store.ttgir"


def blocked_elements(spt, tpw, wpc, order, shape):
    """(warp, register) -> the 32 lanes' (row, col), from the definition (see the module's docstring)."""
    def split(index, sizes):  # an index over the dimensions in `order`, fastest first
        out = [0, 0]
        for d in order:
            out[d], index = index % sizes[d], index // sizes[d]
        return out

    per_dim = [spt[d] * tpw[d] * wpc[d] for d in range(2)]
    reps = [max(1, shape[d] // per_dim[d]) for d in range(2)]
    registers = spt[0] * spt[1] * reps[0] * reps[1]
    out = {}
    for w, r in itertools.product(range(wpc[0] * wpc[1]), range(registers)):
        wi = split(w, wpc)
        inner, rep = r % (spt[0] * spt[1]), r // (spt[0] * spt[1])
        ri, pi = split(inner, spt), split(rep, reps)
        lanes = []
        for lane in range(WARP):
            li = split(lane, tpw)
            lanes.append(tuple((ri[d] + spt[d] * (li[d] + tpw[d] * wi[d]) + per_dim[d] * pi[d]) % shape[d]
                               for d in range(2)))
        out[(w, r)] = lanes
    return out


def swizzled(r, c, cols, vec, per, top):
    return r * cols + ((c // vec) ^ ((r // per) % top)) * vec + c % vec


def brute_force(spt, tpw, wpc, order, shape, elem_bytes, vec, per, top) -> dict[str, int]:
    phases = wavefronts = ideal = 0
    for lanes in blocked_elements(spt, tpw, wpc, order, shape).values():
        addresses = [swizzled(r, c, shape[1], vec, per, top) * elem_bytes for r, c in lanes]
        w, i = instruction_cost(addresses, elem_bytes, load=False)
        phases, wavefronts, ideal = phases + 1, wavefronts + w, ideal + i
    return {"phases": phases, "wavefronts": wavefronts, "ideal_wavefronts": ideal, "excess": wavefronts - ideal}


@pytest.fixture(scope="module")
def matmul_rows() -> dict[str, list[dict]]:
    return {cap: read_ttgir((TRITON / f"matmul_{cap}.ttgir").read_text()) for cap in ("sm80", "sm90")}


def test_every_shared_memory_op_is_a_row(matmul_rows):
    sm80, sm90 = matmul_rows["sm80"], matmul_rows["sm90"]
    assert [(r["op"], r["allocation"], r["counted"]) for r in sm80] == [
        ("ttg.local_alloc", "%a_27", True), ("ttg.local_alloc", "%b_34", True),
        ("ttg.local_load", "%a_27", True), ("ttg.local_load", "%b_34", True)]
    assert [r["access"] for r in sm80] == ["st", "st", "ldsm", "ldsm"]  # the dot operands: ldmatrix
    assert all(r["file"] == "triton_corpus.py" and r["line"] in (50, 51) for r in sm80)  # the tl.load lines
    wgmma = [r for r in sm90 if r["op"] == "ttng.warp_group_dot"]
    assert len(wgmma) == 1 and "descriptor" in wgmma[0]["why_not"] and not wgmma[0]["counted"]


@pytest.mark.parametrize("cap", ["sm80", "sm90"])
def test_the_matmuls_operand_stores_are_the_brute_force(matmul_rows, cap):
    """A: 64 x 32 f16 from #blocked (1 x 32 threads a warp, 4 x 1 warps) into vec 8 / perPhase 2 /
    maxPhase 4; B: 32 x 64 from #blocked1 (2 x 2 warps) into vec 8 / perPhase 1 / maxPhase 8 (sm80);
    on sm90 the NVMMA encodings with 64- and 128-byte swizzles, whose rows are exactly one swizzle
    width (Swizzle<2,4,3> and <3,4,3> on bytes: the same formula). The encodings are read from the
    file; the brute force from the definitions."""
    text = (TRITON / f"matmul_{cap}.ttgir").read_text()
    for row in (r for r in matmul_rows[cap] if r["counted"] and r["op"] == "ttg.local_alloc"):
        assert row["register_encoding"].startswith("#ttg.blocked<")
        enc = row["register_encoding"]
        spt, tpw, wpc, order = (_ints(enc, k) for k in ("sizePerThread", "threadsPerWarp", "warpsPerCTA", "order"))
        shared = row["shared_encoding"]
        assert shared in text and spt == [1, 1]
        if shared.startswith("#ttg.swizzled_shared<"):
            vec, per, top = (_int(shared, k) for k in ("vec", "perPhase", "maxPhase"))
        else:  # the TMA/GMMA byte swizzle of W-byte rows: 16-byte chunk ^= (row / (128 / W)) % (W / 16)
            width = _int(shared, "swizzlingByteWidth")
            assert shared.startswith("#ttg.nvmma_shared<") and row["shape"][1] * 2 == width  # one W-byte row a row
            vec, per, top = 8, 128 // width, width // 16
        want = brute_force(spt, tpw, wpc, order, row["shape"], 2, vec, per, top)
        assert {k: row[k] for k in want} == want, (cap, row["allocation"])


def _ints(attribute: str, key: str) -> list[int]:
    import re

    return [int(x) for x in re.search(rf"{key} = \[([^\]]*)\]", attribute)[1].split(",")]


def _int(attribute: str, key: str) -> int:
    import re

    return int(re.search(rf"{key} = (\d+)", attribute)[1])


def test_a_column_store_conflicts_and_the_better_encoding_fixes_it():
    text = COLUMN.read_text()
    (row,) = [r for r in read_ttgir(text) if r["counted"]]
    assert {k: row[k] for k in ("phases", "wavefronts", "ideal_wavefronts", "excess")} == \
        brute_force([1, 1], [32, 1], [1, 4], [0, 1], [32, 32], 4, 1, 1, 1) == \
        {"phases": 32, "wavefronts": 32 * 32, "ideal_wavefronts": 32, "excess": 31 * 32}
    better = row["better"]
    assert better and better.startswith("#ttg.")
    fixed_text = text.replace(row["shared_encoding"], better)
    (fixed,) = [r for r in read_ttgir(fixed_text) if r["counted"]]
    assert fixed["excess"] == 0 and fixed["better"] is None
    if better.startswith("#ttg.swizzled_shared<"):
        vec, per, top = (_int(better, k) for k in ("vec", "perPhase", "maxPhase"))
        assert brute_force([1, 1], [32, 1], [1, 4], [0, 1], [32, 32], 4, vec, per, top)["excess"] == 0


def test_an_amd_target_counts_with_its_own_banks():
    (row,) = [r for r in read_ttgir(COLUMN.read_text(), arch="gfx942") if r["counted"]]
    assert row["excess"] > 0 and row["better"]
    (fixed,) = [r for r in read_ttgir(COLUMN.read_text().replace(row["shared_encoding"], row["better"]),
                                      arch="gfx942") if r["counted"]]
    assert fixed["excess"] == 0


@pytest.mark.parametrize(("attribute", "shape", "bases"), [
    ("#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>", [64, 64],
     {"register": [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0]], "lane": [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]],
      "warp": [[4, 0], [8, 0]]}),
    ("#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>", [16, 4],
     {"register": [], "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [0, 0]], "warp": [[0, 1], [0, 2]]}),
])
def test_blocked_bases(attribute, shape, bases):
    """Larger tensors repeat the layout in registers; smaller ones broadcast (a 0 basis)."""
    assert blocked_bases(attribute, shape) == bases


@pytest.mark.parametrize("text", ["x" * 20_000_001])
def test_a_huge_ttgir_is_refused(text):
    with pytest.raises(InputError, match="not read"):
        read_ttgir(text)


def test_kernel_entries_are_design_section_15s():
    """kernel_entries: one entry per tt.func with the schema's required fields; the counted rows are its
    instructions (counters in ncu's names adding up), the unread accesses and descriptors not_counted,
    the better encoding its fix."""
    from swizzle_solver.compiled.ttgir import kernel_entries

    (col,) = kernel_entries(COLUMN.read_text())
    assert col["name"] == "colstore" and col["block"] == [128, 1, 1] and col["excess"] == 31 * 32
    (ins,) = col["instructions"]
    assert {"file", "line", "ptx_line", "ptx", "op", "allocation", "instances", "wavefronts", "ideal_wavefronts",
            "excess", "counters", "status"} <= set(ins)
    assert ins["op"] == "st" and ins["allocation"] == {"name": "%0", "dynamic": False, "bytes": [0, 4096]}
    assert col["counters"] == ins["counters"] == {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum": 1024,
                                                  "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum": 992}
    assert col["fix"]["allocations"][0]["allocation"] == "%0"
    (sm80,) = kernel_entries((TRITON / "matmul_sm80.ttgir").read_text())
    assert sm80["name"] == "matmul" and len(sm80["instructions"]) == 4 and sm80["fix"] is None
    assert sm80["not_counted"] == []  # the two dot-operand local_loads are counted (ldsm)
    assert [i["op"] for i in sm80["instructions"]] == ["st", "st", "ldsm", "ldsm"]
    from swizzle_solver import kernel
    from tests.test_schema import validate

    validate(kernel(TRITON / "matmul_sm80.ttgir").to_json(), "kernel.schema.json")  # op ldsm, its counters
    assert "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum" in sm80["instructions"][2]["counters"]
    (sm90,) = kernel_entries((TRITON / "matmul_sm90.ttgir").read_text())
    assert len(sm90["not_counted"]) == 1 and "descriptor" in sm90["not_counted"][0]["reason"]


# --- dot operands: a local_load into #ttg.dot_op of an mma.sync v2 parent, as ldmatrix reads ----------------


def dot_brute_force(text: str, op_index: int) -> dict[str, int]:
    """The ldmatrix phases of one dot operand's local_load from the PTX ISA's definitions: a warp
    needs, of A (M x K, its M / WM rows), every 8 x 8 matrix (8 consecutive rows m, 8 consecutive k),
    of B (K x N, its N / WN columns) every 8 x 8 matrix (8 consecutive k, 8 consecutive n); a matrix
    is one phase, its 8 rows of 16 bytes at their swizzled_shared offsets, counted by nvidia_banks;
    every warp (WM x WN of them) reads its share."""
    import re

    from nvidia_banks import phase_cost

    mma = re.search(r"#ttg\.nvidia_mma<\{versionMajor = 2, .*warpsPerCTA = \[(\d+), (\d+)\]", text)
    wm, wn = int(mma[1]), int(mma[2])
    allocs = re.findall(r"ttg\.local_alloc %\w+ : \(tensor<(\d+)x(\d+)xf16, #\w+>\) -> "
                        r"!ttg\.memdesc<\d+x\d+xf16, (#\w+),", text)
    rows, cols, shared = allocs[op_index]
    rows, cols = int(rows), int(cols)
    enc = re.search(rf"^{shared} = (.*)$", text, flags=re.M)[1]
    vec, per, top = (_int(enc, k) for k in ("vec", "perPhase", "maxPhase"))

    def byte(r, c):
        return swizzled(r, c, cols, vec, per, top) * 2

    phases = wavefronts = ideal = 0
    for w in range(wm * wn):
        mine = w // wn if op_index == 0 else w % wn  # which share: any order of the warps gives the same sum
        if op_index == 0:  # A: rows m of the warp's share, 16 bytes along k
            share = rows // wm
            starts = [(mine * share + m0, k0) for m0 in range(0, share, 8) for k0 in range(0, cols, 8)]
        else:  # B: rows k, 16 bytes along the warp's n
            share = cols // wn
            starts = [(k0, mine * share + n0) for k0 in range(0, rows, 8) for n0 in range(0, share, 8)]
        for r0, c0 in starts:
            w_, i_ = phase_cost([byte(r0 + i, c0) for i in range(8)], 16)
            phases, wavefronts, ideal = phases + 1, wavefronts + w_, ideal + i_
    return {"phases": phases, "wavefronts": wavefronts, "ideal_wavefronts": ideal, "excess": wavefronts - ideal}


def _unswizzled(text: str) -> str:
    """The same matmul with both operands stored row after row (maxPhase 1): ldmatrix's 8 rows of a
    matrix then fall 64 / 128 bytes apart, in 2 / 1 banks groups: conflicts."""
    import re

    return re.sub(r"(#shared1? = #ttg\.swizzled_shared<\{vec = 8, perPhase = )\d+(, maxPhase = )\d+", r"\g<1>1\g<2>1", text)


@pytest.mark.parametrize("variant", ["as compiled", "unswizzled"])
def test_the_dot_operand_loads_are_the_ldmatrix_brute_force(variant):
    text = (TRITON / "matmul_sm80.ttgir").read_text()
    if variant == "unswizzled":
        text = _unswizzled(text)
        assert text.count("perPhase = 1, maxPhase = 1,") == 2
    loads = [r for r in read_ttgir(text) if r["op"] == "ttg.local_load"]
    assert [r["counted"] for r in loads] == [True, True]
    for op_index, row in enumerate(loads):
        want = dot_brute_force(text, op_index)
        assert {k: row[k] for k in want} == want, (variant, op_index)
        if variant == "unswizzled":
            assert row["excess"] > 0 and row["better"]  # and the solver's encoding for the allocation
        else:
            assert row["excess"] == 0


def test_the_dot_operand_loads_are_the_ptx_ldmatrix_of_one_trip():
    """The same compile's PTX, emulated by `kernel` (K = 128: 4 trips of the K loop), has for each operand
    4 ldmatrix.x4 lines: their wavefronts over the 4 trips are 4 times the TTGIR row's (one pass)."""
    from swizzle_solver import kernel

    loads = [r for r in read_ttgir((TRITON / "matmul_sm80.ttgir").read_text()) if r["op"] == "ttg.local_load"]
    ptx = kernel(TRITON / "matmul_sm80.ptx", params={"matmul_param_5": 128}).to_json()["kernels"][0]
    for row, form in zip(loads, ("x4.shared", "x4.trans.shared")):
        lines = [i for i in ptx["instructions"] if i["op"] == "ldsm" and f".{form}." in i["ptx"]]
        assert len(lines) == 4
        assert sum(i["wavefronts"] for i in lines) == 4 * row["wavefronts"]
        assert sum(i["instances"] for i in lines) * 4 == 4 * row["phases"]  # an .x4 is 4 phases


@pytest.mark.parametrize("change, reason", [
    (("xf16", "xf32"), "2-byte elements"),
    (("order = [1, 0]}>\n#shared1", "order = [0, 1]}>\n#shared1"), "column-major"),
    (("versionMajor = 2", "versionMajor = 3"), "not an mma.sync"),
])
def test_a_dot_operand_not_read_says_why(change, reason):
    text = (TRITON / "matmul_sm80.ttgir").read_text()
    assert change[0] in text
    rows = read_ttgir(text.replace(*change))
    a = [r for r in rows if r["op"] == "ttg.local_load"][0]
    assert not a["counted"] and reason in a["why_not"], a["why_not"]
