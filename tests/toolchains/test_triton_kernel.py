"""`swizzle-solve kernel` on the PTX that Triton 3.9 writes on this CPU, compiled here and now
(bench/triton_corpus.py's kernels, for a named target: no GPU), each shared-memory instruction's row
held to a per-lane brute force written here:

- the Gluon ``convert_layout`` of a 64 x 64 f16 tile (sm_80 and sm_90): every instruction (st.shared.v4
  and ldmatrix.trans) per PTX line, its lanes' addresses decoded from the PTX's integer instructions
  by bench/triton_pairs.py's own interpreter (not the package's emulator), counted by
  tests/nvidia_banks.py;
- the f16 matmul (sm_80; 64 x 64 x 32 blocks, 4 warps, K = 128: four trips of the K loop): the
  operand stores into shared memory (``ttg.local_alloc`` of a ``#ttg.blocked`` value, one
  ``st.shared.b16`` per register) from the encodings in the TTGIR of the same compile, by their
  definitions (tests/test_compiled_ttgir.py's ``blocked_elements`` and ``swizzled``); the
  ``ldmatrix`` reads of the A (``.x4``) and B (``.x4.trans``) operands from the mma.m16n8k16
  fragments' definition (PTX ISA: matrix i of an ``.x4`` is lanes 8i .. 8i+7's row addresses; an A
  block of 16 x 16 is its four 8 x 8 matrices, rows m0 .. m0+7 / m0+8 .. m0+15 at k0 and k0+8; a B
  pair of n8 tiles is four 8 x 8 matrices of k rows, 16 B of n each), each matrix's rows at their
  ``#ttg.swizzled_shared`` offsets.

- the matmul again, every shared-memory line (the epilogue's convert_layout of the accumulator
  included, whose shared layout Triton picks while lowering to LLVM: not in the TTGIR), its lanes
  decoded by triton_pairs' interpreter, which reads the K loop's body once (one trip: the operands
  are single-buffered, so each trip's addresses are the first's), a loop line's counts being
  K_TRIPS times that.

Not held line by line by the layout brute force: which 16 x 16 block a given ldmatrix line loads
(Triton's lowering's choice), so those rows are compared there as a multiset (the costs per line,
sorted); the decoded-lanes test holds each line. Not covered: the sm_90 matmul (its operands reach
wgmma through descriptors: listed under not_counted, tests/test_kernel_sources.py) and a
multi-buffered (cp.async) pipeline, which this Triton does not emit for this kernel (its loads are
not vectorized: no alignment hint), so the test says so if that changes.
"""
from __future__ import annotations

import os
import re
import sys

import pytest
from nvidia_banks import WARP, instruction_cost, matrix_cost
from toolchain_cases import ROOT, missing

from swizzle_solver import kernel

sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))
import test_compiled_ttgir as ttgir_brute  # noqa: E402
import test_kernel_sources as sources  # noqa: E402

sys.path.pop(0)
sys.path.pop(0)

pytestmark = pytest.mark.toolchain

K_TRIPS = 4  # K = 128 over BK = 32
WARPS = 4


@pytest.fixture(scope="module")
def compiled(tmp_path_factory) -> dict[str, tuple[str, str]]:
    """name -> (PTX, TTGIR), compiled now into a fresh Triton cache."""
    try:
        import triton  # noqa: F401
    except ImportError:
        missing("Triton", "pip install torch==2.13.0 triton==3.9.0")
    saved = {k: os.environ.get(k) for k in ("TRITON_CACHE_DIR", "TRITON_DEFAULT_FP_FUSION")}
    os.environ["TRITON_CACHE_DIR"] = str(tmp_path_factory.mktemp("triton-cache"))
    os.environ["TRITON_DEFAULT_FP_FUSION"] = "1"
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import triton_corpus

        out = {}
        for kind, cap in (("convert", 80), ("convert", 90), ("matmul", 80)):
            c = triton_corpus.compiled(kind, cap)
            out[f"{kind}_sm{cap}"] = (c.asm["ptx"], c.asm["ttgir"])
        return out
    finally:
        sys.path.pop(0)
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def shared_ops(ptx: str) -> list[tuple[int, re.Match]]:
    """(PTX line, match) of every ld/st.shared and ldmatrix/stmatrix, in program order."""
    found = [(n, re.match(sources.TRITON_SHARED, line)) for n, line in enumerate(ptx.splitlines(), 1)]
    return [(n, m) for n, m in found if m]


def rows_of(doc: dict) -> dict[int, dict]:
    (k,) = doc["kernels"]
    assert k["not_counted"] == []  # sm_80 and the convert: every shared-memory instruction is counted
    return {r["ptx_line"]: r for r in k["instructions"]}


# --- convert_layout: every instruction ------------------------------------------------------------


def convert_brute_force(ptx: str) -> dict[int, dict[str, int]]:
    """PTX line -> instances, wavefronts, ideal, excess, from triton_pairs' decoded lane addresses."""
    import triton_pairs

    threads = int(re.search(r"\.(?:reqntid|maxntid) (\d+)", ptx).group(1))
    ops = shared_ops(ptx)
    found = triton_pairs.accesses(ptx, threads)
    assert len(found) == len(ops) > 0
    out = {}
    for (line, m), (kind, width, per) in zip(ops, found):
        total = {"instances": 0, "wavefronts": 0, "ideal_wavefronts": 0}
        for w in range(threads // WARP):
            lanes = [-1 if a is None else a for a in per[w * WARP:(w + 1) * WARP]]
            if all(a < 0 for a in lanes):
                continue
            x = m.group(2)
            cost = matrix_cost(lanes, int(x)) if x else instruction_cost(lanes, width, kind == "ld")
            total["instances"] += 1
            total["wavefronts"] += cost[0]
            total["ideal_wavefronts"] += cost[1]
        total["excess"] = total["wavefronts"] - total["ideal_wavefronts"]
        out[line] = total
    return out


@pytest.mark.parametrize("name", ["convert_sm80", "convert_sm90"])
def test_convert_layout_every_instruction_as_the_brute_force(compiled, name):
    ptx, _ = compiled[name]
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        want = convert_brute_force(ptx)
    finally:
        sys.path.pop(0)
    rows = rows_of(kernel(ptx).to_json())
    assert set(rows) == set(want), (sorted(rows), sorted(want))
    for line, count in want.items():
        got = {key: rows[line][key] for key in count}
        assert got == count, (name, line, rows[line]["ptx"])
    ops = {rows[line]["op"] for line in rows}
    assert ops == {"st", "ldsm"}, ops  # st.shared.v4 then ldmatrix.trans


# --- matmul (sm_80): the operand stores and the ldmatrix reads ------------------------------------


def encodings(ttgir: str) -> dict[str, str]:
    return dict(re.findall(r"^#(\w+) = (#ttg\.\w+<\{.*\}>)\s*$", ttgir, flags=re.M))


def ints(attribute: str, key: str) -> list[int]:
    found = re.search(rf"\b{key} = (?:\[([\d, ]+)\]|(\d+))", attribute)
    assert found, (key, attribute)
    return [int(x) for x in (found.group(1) or found.group(2)).split(",")]


def allocations(ttgir: str) -> list[tuple[list[int], str, str]]:
    """([rows, cols], register encoding, shared encoding) of each ttg.local_alloc of a value, in order."""
    pattern = r"ttg\.local_alloc %\w+ : \(tensor<(\d+)x(\d+)xf16, #(\w+)>\) -> !ttg\.memdesc<\d+x\d+xf16, #(\w+),"
    return [([int(m[1]), int(m[2])], m[3], m[4]) for m in re.finditer(pattern, ttgir)]


def swizzle_of(attribute: str):
    assert attribute.startswith("#ttg.swizzled_shared") and ints(attribute, "order") == [1, 0], attribute
    vec, per, top = (ints(attribute, k)[0] for k in ("vec", "perPhase", "maxPhase"))
    return lambda r, c, cols: ttgir_brute.swizzled(r, c, cols, vec, per, top) * 2  # f16: bytes


def store_costs(shape: list[int], blocked: str, place) -> list[tuple[int, int, int]]:
    """Per register of the blocked value: (instances, wavefronts, ideal) over the K loop's trips."""
    spt, tpw, wpc, order = (ints(blocked, k) for k in ("sizePerThread", "threadsPerWarp", "warpsPerCTA", "order"))
    per_register: dict[int, list[int]] = {}
    for (_, r), lanes in ttgir_brute.blocked_elements(spt, tpw, wpc, order, shape).items():
        w, i = instruction_cost([place(row, col, shape[1]) for row, col in lanes], 2, load=False)
        total = per_register.setdefault(r, [0, 0, 0])
        total[0], total[1], total[2] = total[0] + K_TRIPS, total[1] + K_TRIPS * w, total[2] + K_TRIPS * i
    return [tuple(v) for v in per_register.values()]


def ldmatrix_costs(rows_of_matrix, instructions, warps_along: int) -> list[tuple[int, int, int]]:
    """Per ldmatrix line: (instances, wavefronts, ideal) over the warps and trips; ``rows_of_matrix``
    (part, instruction, matrix) -> the matrix's 8 row addresses, ``part`` the warp's half of the
    operand (the 2 x 2 warps: each half read by 2 warps)."""
    out = []
    for j in instructions:
        w = i = 0
        for part in range(warps_along):
            lanes = [a for q in range(4) for a in rows_of_matrix(part, j, q)]
            cw, ci = matrix_cost(lanes, 4)
            w, i = w + cw * (WARPS // warps_along), i + ci * (WARPS // warps_along)
        out.append((WARPS * K_TRIPS, K_TRIPS * w, K_TRIPS * i))
    return out


def test_matmul_operand_stores_and_ldmatrix_as_the_brute_force(compiled):
    ptx, ttgir = compiled["matmul_sm80"]
    enc = encodings(ttgir)
    mma = re.search(r"#ttg\.nvidia_mma<\{versionMajor = 2, .*warpsPerCTA = \[2, 2\], instrShape = \[16, 8\]\}>", ttgir)
    assert mma, "the sm_80 matmul is no longer mma.v2 with 2 x 2 warps: redo this brute force"
    (a_shape, a_reg, a_smem), (b_shape, b_reg, b_smem) = allocations(ttgir)
    assert (a_shape, b_shape) == ([64, 32], [32, 64])
    place_a, place_b = swizzle_of(enc[a_smem]), swizzle_of(enc[b_smem])
    base_b = 64 * 32 * 2  # B after A (each allocation a multiple of 128 B: where it starts does not change a bank)

    def a_rows(half, j, q):  # A 16 x 16 block j of the warp's 32 rows: matrix q = rows +8 (q % 2), k +8 (q // 2)
        m0, k0 = 32 * half + 16 * (j % 2) + 8 * (q % 2), 16 * (j // 2) + 8 * (q // 2)
        return [place_a(m0 + r, k0, 32) for r in range(8)]

    def b_rows(half, j, q):  # B: k16 tile j // 2, n8 tiles 2 (j % 2) and +1 of the warp's 32 columns
        k0, n0 = 16 * (j // 2) + 8 * (q % 2), 32 * half + 16 * (j % 2) + 8 * (q // 2)
        return [base_b + place_b(k0 + r, n0, 64) for r in range(8)]

    want = {
        "st.shared.b16": store_costs(a_shape, enc[a_reg], place_a)
        + store_costs(b_shape, enc[b_reg], lambda r, c, cols: base_b + place_b(r, c, cols)),
        "ldmatrix.sync.aligned.m8n8.x4.shared.b16": ldmatrix_costs(a_rows, range(4), 2),
        "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16": ldmatrix_costs(b_rows, range(4), 2),
    }
    rows = list(rows_of(kernel(ptx, params={"matmul_param_5": 32 * K_TRIPS}).to_json()).values())
    for head, costs in want.items():
        got = sorted((r["instances"], r["wavefronts"], r["ideal_wavefronts"]) for r in rows if r["ptx"].startswith(head + " "))
        assert got == sorted(costs), head
    # the whole operand traffic: 64 x 32 + 32 x 64 halves stored once a trip, each read once by 2 warps
    ldsm = [r for r in rows if r["op"] == "ldsm"]
    assert sum(r["instances"] for r in ldsm) == 8 * WARPS * K_TRIPS


def loop_lines(ptx: str) -> range:
    """The PTX lines of the K loop: from the label of the one backward branch to that branch."""
    lines = ptx.splitlines()
    labels = {m[1]: n for n, line in enumerate(lines, 1) if (m := re.match(r"^(\$\w+):", line))}
    back = [(labels[m[1]], n) for n, line in enumerate(lines, 1)
            if (m := re.search(r"\bbra(?:\.uni)?\s+(\$\w+);", line)) and labels.get(m[1], n + 1) < n]
    assert len(back) == 1, back
    return range(back[0][0], back[0][1] + 1)


def test_matmul_every_instruction_as_the_decoded_lanes(compiled):
    """Every shared-memory line of the matmul, per line, the epilogue included: its lanes decoded from
    the PTX by triton_pairs' straight-line interpreter (the loop's body read once: one trip; the
    operands are single-buffered, no cp.async and no ttg.memdesc_index, so every trip's addresses
    are the first's), a loop line's counts K_TRIPS times one trip's."""
    ptx, ttgir = compiled["matmul_sm80"]
    assert "cp.async" not in ptx and "ttg.memdesc_index" not in ttgir, "multi-buffered now: trips differ"
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        want = convert_brute_force(ptx)
    finally:
        sys.path.pop(0)
    loop = loop_lines(ptx)
    rows = rows_of(kernel(ptx, params={"matmul_param_5": 32 * K_TRIPS}).to_json())
    assert set(rows) == set(want)
    inside = [line for line in want if line in loop]
    assert {rows[line]["op"] for line in inside} == {"st", "ldsm"} and len(inside) < len(want)
    for line, count in want.items():
        trips = K_TRIPS if line in loop else 1
        assert {key: rows[line][key] for key in count} == {key: trips * v for key, v in count.items()}, (
            line, rows[line]["ptx"])


def test_the_fresh_ttgir_dot_operand_loads_are_the_ptx_ldmatrix(compiled):
    """The TTGIR of the same compile, read by `kernel FILE.ttgir`'s reader: each dot-operand local_load
    (counted as ldmatrix, compiled/ttgir_dot.py) is one trip of the PTX's ldmatrix lines of its form."""
    from swizzle_solver.compiled.ttgir import read_ttgir

    ptx, ttgir = compiled["matmul_sm80"]
    loads = [r for r in read_ttgir(ttgir) if r["op"] == "ttg.local_load"]
    assert [r["access"] for r in loads] == ["ldsm", "ldsm"], [r["why_not"] for r in loads]
    rows = rows_of(kernel(ptx, params={"matmul_param_5": 32 * K_TRIPS}).to_json()).values()
    for row, form in zip(loads, (".x4.shared.", ".x4.trans.shared.")):
        lines = [r for r in rows if r["op"] == "ldsm" and form in r["ptx"]]
        assert sum(r["wavefronts"] for r in lines) == K_TRIPS * row["wavefronts"]
        assert sum(r["ideal_wavefronts"] for r in lines) == K_TRIPS * row["ideal_wavefronts"]
        assert sum(4 * r["instances"] for r in lines) == K_TRIPS * row["phases"]
