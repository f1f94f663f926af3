"""Real kernels from source (issue 32's acceptance): cuda-samples' transposes and SGEMM_CUDA's kernels
1-10 (tests/data/kernels/*.cu, compiled to the committed .ptx by bench/kernel_corpus.py), each
shared-memory instruction `swizzle_solver.kernel` counts held to a per-lane brute force written here
from the kernel's own index lines, counted by tests/nvidia_banks.py (NVIDIA's rules, not the
package's simulator).

How the brute force meets the report. Each access below is a statement of the .cu (the substring
of its first line within its kernel, and how many lines it spans) with the element offset it
touches for every thread of the CTA, once per execution in source order (the unrolled loops'
iterations, innermost last). nvcc may merge consecutive executions of one thread into a vector
instruction (``ld.shared.v4.f32``) and unroll loops into several static instructions; the width
of the instructions at the statement's lines is read from the PTX here (its `.loc` lines), and
the executions are merged accordingly (each merged run must be contiguous, or the test says the
compiler did something this brute force does not model). The report's rows at those lines
(its ``line`` field, from the same `.loc`) must then add up, over their static instructions, to the
brute force: instances (warps x merged executions x trips of the K loop), wavefronts, ideal
wavefronts and excess. A statement with two accesses (``As[...] * Bs[...]``) is compared as one.

The launches: the block of each kernel as its source's host code launches it (cuda-samples:
TILE_DIM x BLOCK_ROWS = 32 x 16; SGEMM_CUDA's runner.cu), CTA (0, 0, 0), and M = N = the block
tile, K = 4 x BK through the kernel's parameters (by their PTX names), so the K loop runs 4 times.
The "fixed" kernels (the padded transpose, the transpose under the layout swizzle-solve answers for
its two accesses, SGEMM's kernel 8 padding Bs) are held to 0 excess on the lines the fix is about.
"""
from __future__ import annotations

import json
import re
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from nvidia_banks import WARP, instruction_cost, matrix_cost

import swizzle_solver

ROOT = Path(__file__).resolve().parents[1]
KERNELS = ROOT / "tests" / "data" / "kernels"
kernel = swizzle_solver.kernel

Elements = Callable[[np.ndarray, np.ndarray], list[np.ndarray]]  # (x, y) of every thread -> offsets per execution


class Access:
    """One shared-memory access of a statement: its array, direction, the bytes one execution of one
    thread touches, and its element offsets (4-byte units) per execution."""

    def __init__(self, array: str, store: bool, elements: Elements, width: int = 4):
        self.array, self.store, self.elements, self.width = array, store, elements, width


class Statement:
    def __init__(self, first_line: str, *accesses: Access, span: int = 1):
        self.first_line, self.accesses, self.span = first_line, accesses, span


class Kernel:
    def __init__(self, source: str, name: str, block: tuple[int, int, int], statements: list[Statement], *,
                 sizes: tuple[int, int, int] = (0, 0, 0), trips: int = 1, fixed: tuple[str, ...] = ()):
        self.source, self.name, self.block, self.statements = source, name, block, statements
        # sizes: (M, N, K); fixed: the statements (their first lines) that a fix made conflict-free
        self.sizes, self.trips, self.fixed = sizes, trips, fixed


def loads(array: str, f: Elements, width: int = 4) -> Access:
    return Access(array, False, f, width)


def stores(array: str, f: Elements, width: int = 4) -> Access:
    return Access(array, True, f, width)


def each(values, f) -> list[np.ndarray]:
    return [f(v) for v in values]


def swizzle(p):
    """Swizzle<5,0,5> on element offsets, as transposeSwizzled's swizzle_phys."""
    return p ^ ((p >> 5) & 31)


# --- the kernels: their index lines, as the sources write them ------------------------------------

TILE, ROWS = 32, 16  # cuda-samples' TILE_DIM, BLOCK_ROWS


def transpose(name: str, pitch: int, phys=lambda p: p, fixed: bool = False) -> Kernel:
    store_line = "tile[swizzle_phys(threadIdx.y + i, threadIdx.x)] =" if name == "transposeSwizzled" else \
        "tile[threadIdx.y + i][threadIdx.x] = idata"
    load_line = "= tile[swizzle_phys(threadIdx.x, threadIdx.y + i)]" if name == "transposeSwizzled" else \
        "= tile[threadIdx.x][threadIdx.y + i];"
    return Kernel("cuda_samples_transpose", name, (TILE, ROWS, 1), [
        Statement(store_line, stores("tile", lambda x, y: each(range(0, TILE, ROWS), lambda i: phys((y + i) * pitch + x)))),
        Statement(load_line, loads("tile", lambda x, y: each(range(0, TILE, ROWS), lambda i: phys(x * pitch + y + i)))),
    ], fixed=(store_line, load_line) if fixed else ())


def sgemm3() -> Kernel:
    S = 32  # BLOCKSIZE
    return Kernel("sgemm_cuda", "sgemm3_shared_mem_block", (1024, 1, 1), [
        Statement("As[threadRow * BLOCKSIZE + threadCol] = A[", stores("As", lambda t, _: [(t // S) * S + t % S])),
        Statement("Bs[threadRow * BLOCKSIZE + threadCol] = B[", stores("Bs", lambda t, _: [(t // S) * S + t % S])),
        Statement("tmp += As[threadRow * BLOCKSIZE + dotIdx] *",
                  loads("As", lambda t, _: each(range(S), lambda d: (t // S) * S + d)),
                  loads("Bs", lambda t, _: each(range(S), lambda d: d * S + t % S)), span=2),
    ], sizes=(S, S, 4 * S), trips=4)


def sgemm4() -> Kernel:
    BM, BN, BK, TM = 64, 64, 8, 8
    return Kernel("sgemm_cuda", "sgemm4_1d_blocktiling", (BM * BN // TM, 1, 1), [
        Statement("As[innerRowA * BK + innerColA] = A[", stores("As", lambda t, _: [(t // BK) * BK + t % BK])),
        Statement("Bs[innerRowB * BN + innerColB] = B[", stores("Bs", lambda t, _: [(t // BN) * BN + t % BN])),
        Statement("float tmpB = Bs[dotIdx * BN + threadCol];",
                  loads("Bs", lambda t, _: each(range(BK), lambda d: d * BN + t % BN))),
        Statement("As[(threadRow * TM + resIdx) * BK + dotIdx] * tmpB;", loads("As", lambda t, _: [
            ((t // BN) * TM + r) * BK + d for d in range(BK) for r in range(TM)])),
    ], sizes=(BM, BN, 4 * BK), trips=4)


def sgemm5() -> Kernel:
    BM, BN, BK, TM, TN = 128, 128, 8, 8, 8
    threads = BM * BN // (TM * TN)
    strideA, strideB = threads // BK, threads // BN
    return Kernel("sgemm_cuda", "sgemm5_2d_blocktiling", (threads, 1, 1), [
        Statement("As[(innerRowA + loadOffset) * BK + innerColA] =", stores("As", lambda t, _: each(
            range(0, BM, strideA), lambda o: (t // BK + o) * BK + t % BK))),
        Statement("Bs[(innerRowB + loadOffset) * BN + innerColB] =", stores("Bs", lambda t, _: each(
            range(0, BK, strideB), lambda o: (t // BN + o) * BN + t % BN))),
        Statement("regM[i] = As[(threadRow * TM + i) * BK + dotIdx];", loads("As", lambda t, _: [
            ((t // (BN // TN)) * TM + i) * BK + d for d in range(BK) for i in range(TM)])),
        Statement("regN[i] = Bs[dotIdx * BN + threadCol * TN + i];", loads("Bs", lambda t, _: [
            d * BN + (t % (BN // TN)) * TN + i for d in range(BK) for i in range(TN)])),
    ], sizes=(BM, BN, 4 * BK), trips=4)


def cute_swizzle(b: int, m: int, s: int):
    """CuTe's Swizzle<b,m,s> on element offsets, from pycute (numpy arrays elementwise)."""
    pycute = pytest.importorskip("pycute", reason="pycute comes with nvidia-cutlass (docs/contributing.md)")
    f = pycute.Swizzle(b, m, s)
    return lambda p: np.vectorize(f)(p) if isinstance(p, np.ndarray) else f(p)


def transposed_a_stores(BM: int, BK: int, offsets: range) -> list[Statement]:
    """Kernels 6-10: A's float4 stored transposed, one statement per component k (x, y, z, w)."""
    tail = " + offset" if len(offsets) > 1 or offsets[0] else ""
    return [Statement(f"As[(innerColA * 4 + {k}) * BM + innerRowA{tail}] = tmp.{'xyzw'[k]};", stores(
        "As", lambda t, _, k=k: each(offsets, lambda o: (t % (BK // 4) * 4 + k) * BM + t // (BK // 4) + o)))
        for k in range(4)]


def sgemm6_to_8(name: str) -> Kernel:
    BM, BN, BK, TM, TN = 128, 128, 8, 8, 8
    cols = BN // TN  # threads across a row of C

    def row(t):
        return t // cols

    def col(t):
        return t % cols

    if name == "sgemm6_swizzled":  # Bs under the solver's Swizzle<1,2,3> (pycute's, here)
        swz = cute_swizzle(1, 2, 3)
        b = [Statement("reinterpret_cast<float4 *>(&Bs[swizzle_phys(innerRowB, innerColB * 4)])[0] =", stores(
                 "Bs", lambda t, _: [swz((t // (BN // 4)) * BN + (t % (BN // 4)) * 4)], width=16), span=2),
             Statement("regN[i] = Bs[swizzle_phys(dotIdx, threadCol * TN + i)];", loads("Bs", lambda t, _: [
                 swz(d * BN + col(t) * TN + i) for d in range(BK) for i in range(TN)]))]
    elif name == "sgemm6_vectorize":
        b = [Statement("reinterpret_cast<float4 *>(&Bs[innerRowB * BN + innerColB * 4])[0] =", stores(
                 "Bs", lambda t, _: [(t // (BN // 4)) * BN + (t % (BN // 4)) * 4], width=16), span=2),
             Statement("regN[i] = Bs[dotIdx * BN + threadCol * TN + i];", loads("Bs", lambda t, _: [
                 d * BN + col(t) * TN + i for d in range(BK) for i in range(TN)]))]
    elif name == "sgemm7_resolve_bank_conflicts":
        b = [Statement(f"Bs[((innerColB % 2) * 4 + innerRowB * 8 + {k}) * 16 + innerColB / 2] = tmp.{'xyzw'[k]};",
                       stores("Bs", lambda t, _, k=k: [((t % 32 % 2) * 4 + (t // 32) * 8 + k) * 16 + (t % 32) // 2]))
             for k in range(4)]
        b.append(Statement("regN[i] = Bs[(dotIdx * 8 + i) * 16 + threadCol];", loads("Bs", lambda t, _: [
            (d * 8 + i) * 16 + col(t) for d in range(BK) for i in range(TN)])))
    else:
        P = BN + 5  # extraCols
        b = [Statement(f"Bs[innerRowB * (BN + extraCols) + innerColB * 4 + {k}] = tmp.{'xyzw'[k]};",
                       stores("Bs", lambda t, _, k=k: [(t // 32) * P + (t % 32) * 4 + k])) for k in range(4)]
        b.append(Statement("regN[i] = Bs[dotIdx * (BN + extraCols) + threadCol * TN + i];", loads("Bs", lambda t, _: [
            d * P + col(t) * TN + i for d in range(BK) for i in range(TN)])))
    a = [*transposed_a_stores(BM, BK, range(1)),
         Statement("regM[i] = As[dotIdx * BM + threadRow * TM + i];", loads("As", lambda t, _: [
             d * BM + row(t) * TM + i for d in range(BK) for i in range(TM)]))]
    fixed = ("regN[i] = Bs[(dotIdx * 8 + i) * 16 + threadCol];",) if name == "sgemm7_resolve_bank_conflicts" else ()
    return Kernel("sgemm_cuda", name, (256, 1, 1), a + b, sizes=(BM, BN, 4 * BK), trips=4, fixed=fixed)


def sgemm9() -> Kernel:
    BM, BN, BK, TM, TN, threads = 128, 128, 16, 8, 8, 256
    strideA, strideB = threads * 4 // BK, threads // (BN // 4)
    return Kernel("sgemm_cuda", "sgemm9_autotuned", (threads, 1, 1), [
        *transposed_a_stores(BM, BK, range(0, BM, strideA)),
        Statement("&Bs[(innerRowB + offset) * BN + innerColB * 4])[0] =", stores("Bs", lambda t, _: each(
            range(0, BK, strideB), lambda o: (t // (BN // 4) + o) * BN + (t % (BN // 4)) * 4), width=16), span=2),
        Statement("regM[i] = As[dotIdx * BM + (wmIdx * WM) + threadRow * TM + i];", loads("As", lambda t, _: [
            d * BM + (t // 16) * TM + i for d in range(BK) for i in range(TM)])),
        Statement("regN[i] = Bs[dotIdx * BN + (wnIdx * WN) + threadCol * TN + i];", loads("Bs", lambda t, _: [
            d * BN + (t % 16) * TN + i for d in range(BK) for i in range(TN)])),
    ], sizes=(BM, BN, 4 * BK), trips=4)


def sgemm10() -> Kernel:
    BM, BN, BK, WM, WN, WNITER, TM, TN, threads = 128, 128, 16, 64, 64, 4, 8, 4, 128
    WSUBN = WN // WNITER
    strideA, strideB = threads * 4 // BK, threads // (BN // 4)

    def warp_row(t):
        return (t // WARP) // (BN // WN)

    def warp_col(t):
        return (t // WARP) % (BN // WN)

    return Kernel("sgemm_cuda", "sgemm10_warptiling", (threads, 1, 1), [
        *transposed_a_stores(BM, BK, range(0, BM, strideA)),
        Statement("&Bs[(innerRowB + offset) * BN + innerColB * 4])[0] =", stores("Bs", lambda t, _: each(
            range(0, BK, strideB), lambda o: (t // (BN // 4) + o) * BN + (t % (BN // 4)) * 4), width=16), span=2),
        Statement("As[(dotIdx * BM) + warpRow * WM + wSubRowIdx * WSUBM +", loads("As", lambda t, _: [
            d * BM + warp_row(t) * WM + (t % WARP) // (WSUBN // TN) * TM + i for d in range(BK) for i in range(TM)]),
            span=2),
        Statement("Bs[(dotIdx * BN) + warpCol * WN + wSubColIdx * WSUBN +", loads("Bs", lambda t, _: [
            d * BN + warp_col(t) * WN + s * WSUBN + (t % WARP) % (WSUBN // TN) * TN + i
            for d in range(BK) for s in range(WNITER) for i in range(TN)]), span=2),
    ], sizes=(BM, BN, 4 * BK), trips=4)


KERNELS_WITH_SHARED = [
    transpose("transposeCoalesced", TILE),
    transpose("transposeNoBankConflicts", TILE + 1, fixed=True),
    transpose("transposeSwizzled", TILE, swizzle, fixed=True),
    sgemm3(), sgemm4(), sgemm5(),
    *(sgemm6_to_8(n) for n in ("sgemm6_vectorize", "sgemm7_resolve_bank_conflicts", "sgemm8_bank_extra_col",
                               "sgemm6_swizzled")),
    sgemm9(), sgemm10(),
]
WITHOUT_SHARED = [("cuda_samples_transpose", "transposeNaive", (TILE, ROWS, 1)), ("sgemm_cuda", "sgemm1_naive", (32, 32, 1)),
                  ("sgemm_cuda", "sgemm2_coalesce", (1024, 1, 1))]
IDS = [k.name for k in KERNELS_WITH_SHARED]


# --- the source and the PTX: where each statement is, and what nvcc made of it ------------------------


def kernel_lines(source: str, name: str) -> tuple[list[str], int, int]:
    """The .cu's lines and the 1-based range of kernel ``name``'s body (to the next kernel)."""
    lines = (KERNELS / f"{source}.cu").read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if re.search(rf"\b{name}\(", line)) + 1
    ends = [i for i, line in enumerate(lines) if i >= start and "__global__" in line]
    return lines, start, (ends[0] if ends else len(lines)) + 1


def statement_lines(k: Kernel, s: Statement) -> list[int]:
    """The 1-based lines of statement ``s`` in kernel ``k``: its first line (the one line of the
    kernel that contains ``first_line``) and the ``span`` - 1 lines after it."""
    lines, start, end = kernel_lines(k.source, k.name)
    found = [i + 1 for i in range(start - 1, end - 1) if s.first_line in lines[i]]
    assert len(found) == 1, (k.name, s.first_line, found)
    return list(range(found[0], found[0] + s.span))


WIDTH = {"u8": 1, "s8": 1, "b8": 1, "u16": 2, "b16": 2, "f16": 2, "f32": 4, "u32": 4, "s32": 4, "b32": 4,
         "f64": 8, "u64": 8, "b64": 8}


def shared_instructions(text: str, name: str) -> list[tuple[int, bool, int]]:
    """(source line, store, bytes per lane) of every ld/st.shared in ``.entry name`` of the PTX
    ``text``, the line from the `.loc` before it (read here, not by the package)."""
    body = text[text.index(f".entry {name}("):]
    nxt = body.find(".entry", 1)
    body = body[:nxt] if nxt > 0 else body
    line, out = 0, []
    for raw in body.splitlines():
        loc = re.match(r"\s*\.loc\s+1\s+(\d+)\s", raw)
        if loc:
            line = int(loc.group(1))
            continue
        op = re.match(r"\s*(?:@!?%p\d+\s+)?(ld|st)\.shared\.(?:v(\d)\.)?(\w+)\s", raw)
        if op:
            out.append((line, op.group(1) == "st", int(op.group(2) or 1) * WIDTH[op.group(3)]))
    return out


def brute_force(k: Kernel, s: Statement, widths: set[int]) -> dict[str, int]:
    """instances, wavefronts, ideal_wavefronts and excess of statement ``s`` over the CTA."""
    bx, by, bz = k.block
    tid = np.arange(bx * by * bz)
    x, y = tid % bx, tid // bx % by
    if len(s.accesses) > 1:
        assert widths == {4} and all(a.width == 4 for a in s.accesses), (k.name, s.first_line, widths)
    (width,) = widths
    total = {"instances": 0, "wavefronts": 0, "ideal_wavefronts": 0}
    for a in s.accesses:
        executions = a.elements(x, y) if by > 1 else a.elements(tid, tid)
        merge = width // a.width
        assert merge >= 1 and len(executions) % merge == 0, (k.name, s.first_line, width, len(executions))
        for first in range(0, len(executions), merge):
            run = executions[first:first + merge]
            for step, later in enumerate(run):  # each thread's merged executions are one contiguous vector
                assert np.array_equal(later, run[0] + step * (a.width // 4)), (k.name, s.first_line)
            for w in range(len(tid) // WARP):
                lanes = [int(v) * 4 for v in run[0][w * WARP:(w + 1) * WARP]]
                assert all(v % width == 0 for v in lanes), (k.name, s.first_line, "misaligned vector")
                wavefronts, ideal = instruction_cost(lanes, width, not a.store)
                total["instances"] += k.trips
                total["wavefronts"] += k.trips * wavefronts
                total["ideal_wavefronts"] += k.trips * ideal
    total["excess"] = total["wavefronts"] - total["ideal_wavefronts"]
    return total


def committed_ptx(source: str) -> str:
    return (KERNELS / f"{source}.ptx").read_text()


_EXPECTED: dict[int, list] = {}


def expected(k: Kernel, ptx: str | None = None) -> list[tuple[Statement, list[int], dict[str, int]]]:
    """Each statement, its lines and its brute force, the vector widths from ``ptx`` (default: the
    committed PTX, counted once per kernel)."""
    if ptx is None:
        if id(k) not in _EXPECTED:
            _EXPECTED[id(k)] = expected(k, committed_ptx(k.source))
        return _EXPECTED[id(k)]
    static = shared_instructions(ptx, k.name)
    out, seen = [], set()
    for s in k.statements:
        lines = statement_lines(k, s)
        mine = [(store, width) for line, store, width in static if line in lines]
        assert mine, f"{k.name}: no ld/st.shared at lines {lines} ({s.first_line!r})"
        assert {store for store, _ in mine} == {a.store for a in s.accesses}, (k.name, s.first_line)
        out.append((s, lines, brute_force(k, s, {w for _, w in mine})))
        seen |= set(lines)
    missing = sorted({line for line, _, _ in static} - seen)
    assert not missing, f"{k.name}: shared-memory instructions at lines {missing} the test does not model"
    return out


# --- the tests ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("k", KERNELS_WITH_SHARED, ids=IDS)
def test_every_shared_instruction_is_modelled(k):
    """Every ld/st.shared nvcc emitted for the kernel is on a modelled statement, each statement's
    executions merge into the PTX's vector width, and the brute force is positive."""
    for s, _, count in expected(k):
        assert count["instances"] > 0 and count["wavefronts"] >= count["ideal_wavefronts"] > 0, s.first_line


@pytest.mark.parametrize("k", [k for k in KERNELS_WITH_SHARED if k.fixed], ids=[k.name for k in KERNELS_WITH_SHARED
                                                                                if k.fixed])
def test_the_fixed_statements_have_no_excess(k):
    counts = {s.first_line: count for s, _, count in expected(k)}
    for line in k.fixed:
        assert counts[line]["excess"] == 0, (k.name, line, counts[line])


def test_the_brute_force_sees_the_known_conflicts():
    """What the kernels' authors say of them: the coalesced transpose's column read is 32-way (16 warps
    x 2 reads, 32 wavefronts each), the padding and the swizzle remove it; SGEMM kernel 6's
    transposed As stores and its regN loads of Bs conflict, and kernel 7's "linearized" Bs serves
    those loads conflict-free. (Kernel 8's 5 extra columns do not: nvcc 13.0 loads regN with scalar
    ld.shared.f32 here, 16 threads 8 words apart: 4-way, as in kernel 6; and its Bs stores, 4 words
    apart, become 4-way.)"""
    by = {k.name: {s.first_line: c for s, _, c in expected(k)} for k in KERNELS_WITH_SHARED}
    read = by["transposeCoalesced"]["= tile[threadIdx.x][threadIdx.y + i];"]
    assert (read["instances"], read["wavefronts"], read["excess"]) == (32, 32 * 32, 31 * 32)
    assert by["transposeNoBankConflicts"]["= tile[threadIdx.x][threadIdx.y + i];"]["wavefronts"] == 32
    assert by["transposeSwizzled"]["= tile[swizzle_phys(threadIdx.x, threadIdx.y + i)]"]["wavefronts"] == 32
    a_store = by["sgemm6_vectorize"]["As[(innerColA * 4 + 0) * BM + innerRowA] = tmp.x;"]
    assert (a_store["instances"], a_store["wavefronts"]) == (32, 64)  # 8 warps x 4 trips, 2-way each
    regn = "regN[i] = Bs[dotIdx * BN + threadCol * TN + i];"
    assert by["sgemm6_vectorize"][regn]["wavefronts"] == 4 * by["sgemm6_vectorize"][regn]["instances"]
    assert by["sgemm7_resolve_bank_conflicts"]["regN[i] = Bs[(dotIdx * 8 + i) * 16 + threadCol];"]["excess"] == 0
    swizzled = by["sgemm6_swizzled"]  # the solver's answer: regN at its proven floor, 2 a load, stores whole
    assert swizzled["regN[i] = Bs[swizzle_phys(dotIdx, threadCol * TN + i)];"]["wavefronts"] == 2 * 2048
    assert swizzled["reinterpret_cast<float4 *>(&Bs[swizzle_phys(innerRowB, innerColB * 4)])[0] ="]["excess"] == 0
    extra = by["sgemm8_bank_extra_col"]
    assert extra["regN[i] = Bs[dotIdx * (BN + extraCols) + threadCol * TN + i];"]["excess"] == 6144
    assert extra["Bs[innerRowB * (BN + extraCols) + innerColB * 4 + 0] = tmp.x;"]["wavefronts"] == 4 * 32


def bs_phases_file(path: Path) -> Path:
    """Kernel 6's two Bs accesses as a --phases file, from the same index lines as its brute force:
    regN's loads (one phase a (dotIdx, i): lane l at row dotIdx, column (l % 16) * 8 + i) and the
    float4 store of row innerRowB (8 lanes a phase)."""
    lines = ['[[pattern]]', 'name = "regN loads"', "phases = ["]
    lines += [f"  {[[d, (lane % 16) * 8 + i, 4] for lane in range(WARP)]}," for d in range(8) for i in range(8)]
    lines += ["]", "", "[[pattern]]", 'name = "float4 stores"', "phases = ["]
    lines += [f"  {[[w, 4 * lane, 16] for lane in range(8 * q, 8 * q + 8)]}," for w in range(8) for q in range(4)]
    path.write_text("\n".join([*lines, "]"]) + "\n")
    return path


def test_the_swizzled_kernel_6_carries_the_solvers_answer(tmp_path, capsys):
    """swizzle-solve on kernel 6's Bs accesses answers Swizzle<1,2,3>, the layout sgemm6_swizzled's
    source applies, with the floor its brute force meets (2 wavefronts a regN load)."""
    from swizzle_solver.cli import main

    code = main(["--rows", "8", "--cols", "128", "--dtype", "f32", "--phases", str(bs_phases_file(tmp_path / "bs.toml")),
                 "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 1 and doc["answer"]["name"] == "Swizzle<1,2,3>"  # 1: not conflict-free (at the floor)
    source = (KERNELS / "sgemm_cuda.cu").read_text()
    assert "return p ^ ((p >> 3) & 4);  // Swizzle<1,2,3>" in source


def report_of(source: str | Path, name: str, block, sizes: dict[int, int] | tuple[int, ...] = ()) -> dict:
    """`kernel`'s report of kernel ``name`` of the PTX ``source`` (a corpus name, or a PTX file), the
    integer parameters ``sizes`` ({index: value}, or M, N, K as the first three) given by their PTX
    names (``NAME_param_INDEX``); the others (pointers, alpha, beta) stay unknown."""
    path = source if isinstance(source, Path) else KERNELS / f"{source}.ptx"
    sizes = sizes if isinstance(sizes, dict) else dict(enumerate(sizes))
    params = {f"{name}_param_{i}": v for i, v in sizes.items()} or None
    doc = kernel(path, kernels=[name], block=block, cta=(0, 0, 0), params=params).to_json()
    assert doc["schema_version"] == 1 and [x["name"] for x in doc["kernels"]] == [name]
    return doc["kernels"][0]


@pytest.mark.parametrize("k", KERNELS_WITH_SHARED, ids=IDS)
def test_kernel_counts_each_statement_as_the_brute_force(k):
    check_report(k)


def check_report(k: Kernel, ptx: Path | None = None) -> None:
    """`kernel`'s rows of ``k`` (in ``ptx``, default the committed PTX), statement by statement, against
    the brute force (also tests/toolchains/test_kernel_sources.py's, on freshly compiled PTX)."""
    doc = report_of(ptx or k.source, k.name, k.block, k.sizes)
    assert list(doc["block"]) == list(k.block) and doc["not_counted"] == []
    rows_at: dict[int, list[dict]] = defaultdict(list)
    for row in doc["instructions"]:
        assert row["file"].endswith(f"{k.source}.cu"), row["file"]
        rows_at[row["line"]].append(row)
    modelled = set()
    for s, lines, count in expected(k, ptx.read_text() if ptx else None):
        rows = [r for line in lines for r in rows_at.get(line, [])]
        modelled |= set(lines)
        got = {key: sum(r[key] for r in rows) for key in count}
        assert got == count, f"{k.name} {s.first_line!r}: kernel {got} != brute force {count}"
        arrays = {a.array for a in s.accesses}
        assert all(any(a in r["allocation"]["name"] for a in arrays) for r in rows), (k.name, [r["allocation"] for r in rows])
    assert set(rows_at) <= modelled, f"{k.name}: rows at lines {sorted(set(rows_at) - modelled)}"
    for metric in ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
                   "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"):
        store = metric.endswith("_st.sum")
        assert doc["counters"].get(metric, 0) == sum(r["wavefronts"] for r in doc["instructions"]
                                                     if r["op"] == ("st" if store else "ld"))


@pytest.mark.parametrize(("source", "name", "block"), WITHOUT_SHARED, ids=[w[1] for w in WITHOUT_SHARED])
def test_kernels_without_shared_memory_have_no_rows(source, name, block):
    doc = report_of(source, name, block, (64, 64, 64))
    assert doc["instructions"] == [] and not any(doc["counters"].values())


def test_the_fix_serves_the_coalesced_transposes_accesses():
    """--fix on the conflicting transpose proposes a layout of `tile`, and the report recomputed under it
    has no excess (the source fixed by hand with the solver's answer, transposeSwizzled, has none
    either: test_the_fixed_statements_have_no_excess)."""
    doc = kernel(KERNELS / "cuda_samples_transpose.ptx", kernels=["transposeCoalesced"], block=(TILE, ROWS, 1),
                 fix=True).to_json()["kernels"][0]
    assert any(r["excess"] > 0 for r in doc["instructions"])
    assert doc["fix"], "no fix proposed for a 32-way conflict"


# --- the CuTe SM80 mainloop: cp.async and ldmatrix through CuTe's atoms and layouts ---------------------

CUTE = "cute_sm80_mainloop"
CUTE_WARPS, CUTE_TRIPS = 4, 4  # 128 threads; K = 128: four 32-wide K tiles


def cute_element(swizzled: bool):
    """The smem layout's element offset of (row, col), from pycute (CuTe's Python reference): the
    128 x 32 f16 tile row-major, under Swizzle<2,3,3> for mainloop_swizzled (its 8 x 32 atom tiled
    down the rows continues the row-major offset, and the swizzle only moves bits 3-7)."""
    pycute = pytest.importorskip("pycute", reason="pycute comes with nvidia-cutlass (docs/contributing.md)")
    swz = pycute.Swizzle(2, 3, 3) if swizzled else (lambda p: p)
    return lambda r, c: swz(r * 32 + c)


def cute_brute_force(swizzled: bool) -> dict[str, dict[str, int]]:
    """op -> instances, wavefronts, ideal_wavefronts, excess of the kernel's cp.async (ldgsts) and
    ldmatrix.x4 (ldsm), from the source's thread maps; 2-byte elements, byte addresses."""
    at = cute_element(swizzled)
    out = {}
    for op in ("ldgsts", "ldsm"):
        total = {"instances": 0, "wavefronts": 0, "ideal_wavefronts": 0}
        for w in range(CUTE_WARPS):
            if op == "ldgsts":  # thread t copies row t / 4 + 32 i, elements 8 (t % 4) ..: 16 bytes
                issued = [[2 * at((32 * w + lane) // 4 + 32 * i, 8 * (lane % 4)) for lane in range(WARP)]
                          for i in range(4)]
                costs = [instruction_cost(lanes, 16, load=False) for lanes in issued]
            else:  # lane l addresses row 64 m + 16 w + l % 16, column 16 k + 8 (l / 16)
                issued = [[2 * at(64 * m + 16 * w + lane % 16, 16 * k + 8 * (lane // 16)) for lane in range(WARP)]
                          for m in range(2) for k in range(2)]
                costs = [matrix_cost(lanes, 4) for lanes in issued]
            for wavefronts, ideal in costs:
                total["instances"] += CUTE_TRIPS
                total["wavefronts"] += CUTE_TRIPS * wavefronts
                total["ideal_wavefronts"] += CUTE_TRIPS * ideal
        total["excess"] = total["wavefronts"] - total["ideal_wavefronts"]
        out[op] = total
    return out


def test_the_cute_mainloop_ptx_issues_cp_async_and_ldmatrix_only():
    text = committed_ptx(CUTE)
    for name in ("mainloop_swizzled", "mainloop_rowmajor"):
        body = text[text.index(f".entry {name}("):]
        body = body[:body.find(".entry", 1)] if ".entry" in body[1:] else body
        copies, reads = body.count("cp.async.ca.shared.global.L2::128B"), body.count("ldmatrix.sync.aligned.x4.m8n8")
        assert copies == reads and copies % 4 == 0 and copies  # one K tile's 4 + 4 (unrolled), again where nvcc peels
        assert not re.search(r"\b(ld|st)\.shared\.", body)


def test_the_cute_swizzle_is_what_serves_ldmatrix():
    """Unswizzled, each ldmatrix phase reads 8 rows 64 bytes apart: 4-way; CUTLASS's Swizzle<2,3,3>
    makes it 1 wavefront a matrix. The cp.async stores are conflict-free either way."""
    plain, swizzled = cute_brute_force(False), cute_brute_force(True)
    assert plain["ldsm"]["instances"] == swizzled["ldsm"]["instances"] == 64
    assert plain["ldsm"]["wavefronts"] == 4 * plain["ldsm"]["ideal_wavefronts"] == 4 * 256
    assert swizzled["ldsm"]["excess"] == 0
    assert plain["ldgsts"]["excess"] == swizzled["ldgsts"]["excess"] == 0


@pytest.mark.parametrize("name", ["mainloop_swizzled", "mainloop_rowmajor"])
def test_kernel_counts_the_cute_mainloop_as_the_brute_force(name):
    """Rows compared by op (their lines are CuTe's headers', inlined into the kernel's)."""
    doc = report_of(CUTE, name, (128, 1, 1), {1: CUTE_TRIPS * 32})  # (A, K, out)
    want = cute_brute_force(name == "mainloop_swizzled")
    assert {r["op"] for r in doc["instructions"]} == set(want)
    for op, count in want.items():
        rows = [r for r in doc["instructions"] if r["op"] == op]
        assert {key: sum(r[key] for r in rows) for key in count} == count, (name, op)


# --- Triton (compiled on the CPU by bench/triton_corpus.py) ------------------------------------------------

TRITON = KERNELS / "triton"
TRITON_SHARED = r"^\s*(?:@!?%p\d+\s+)?((?:ld|st)\.shared\.[\w.]+|(?:ld|st)matrix\.sync\.aligned\.m8n8\.x(\d)[\w.]*)\s"


def triton_brute_force(name: str) -> dict[str, dict[str, int]]:
    """op (st, ld, ldsm, stsm) -> instances, wavefronts, ideal, excess of a straight-line Triton kernel,
    the lanes' addresses from bench/triton_pairs.py's interpreter of the PTX's integer instructions
    (its own code, not the package's), counted by tests/nvidia_banks.py."""
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import triton_pairs
    finally:
        sys.path.pop(0)
    text = (TRITON / f"{name}.ptx").read_text()
    threads = int(re.search(r"\.(?:reqntid|maxntid) (\d+)", text).group(1))
    ops = [m for m in re.finditer(TRITON_SHARED, text, flags=re.M)]
    found = triton_pairs.accesses(text, threads)
    assert len(found) == len(ops) > 0, name
    written = {a + k for kind, width, per in found if kind == "st" for a in per if a is not None for k in range(width)}
    read = {a + k for kind, width, per in found if kind == "ld" for a in per if a is not None for k in range(width)}
    assert written == read, f"{name}: the loads do not read what the stores wrote: not interpreted right"
    out: dict[str, dict[str, int]] = {}
    for m, (kind, width, per) in zip(ops, found):
        op = ("stsm" if kind == "st" else "ldsm") if m.group(2) else kind
        total = out.setdefault(op, {"instances": 0, "wavefronts": 0, "ideal_wavefronts": 0})
        for w in range(threads // WARP):
            lanes = [-1 if a is None else a for a in per[w * WARP:(w + 1) * WARP]]
            if all(a < 0 for a in lanes):
                continue
            cost = matrix_cost(lanes, int(m.group(2))) if m.group(2) else instruction_cost(lanes, width, kind == "ld")
            total["instances"] += 1
            total["wavefronts"] += cost[0]
            total["ideal_wavefronts"] += cost[1]
    for total in out.values():
        total["excess"] = total["wavefronts"] - total["ideal_wavefronts"]
    return out


@pytest.mark.parametrize("name", ["convert_sm80", "convert_sm90"])
def test_tritons_convert_layout_goes_through_shared_memory_conflict_free(name):
    """Triton's optimalSwizzlingLdSt: st.shared.v4 then ldmatrix.trans, every phase one wavefront."""
    count = triton_brute_force(name)
    assert set(count) == {"st", "ldsm"}
    assert count["st"]["instances"] == count["ldsm"]["instances"] == 16  # 4 of each per warp, 4 warps
    assert all(c["excess"] == 0 for c in count.values()), count


@pytest.mark.parametrize("name", ["convert_sm80", "convert_sm90"])
def test_kernel_counts_tritons_convert_layout_as_the_brute_force(name):
    doc = kernel(TRITON / f"{name}.ptx").to_json()
    (k,) = doc["kernels"]
    assert list(k["block"]) == [128, 1, 1]
    for op, count in triton_brute_force(name).items():
        rows = [r for r in k["instructions"] if r["op"] == op]
        assert {key: sum(r[key] for r in rows) for key in count} == count, (name, op)


def test_kernel_reads_tritons_matmul():
    """sm_80: the operands reach the MMA through ldmatrix (counted, each a row); sm_90: through wgmma's
    descriptors, listed under not_counted (DESIGN.md section 15), never guessed."""
    params = {"matmul_param_5": 4 * 32}  # K: the K loop runs 4 times
    sm80 = kernel(TRITON / "matmul_sm80.ptx", params=params).to_json()["kernels"][0]
    assert any(r["op"] == "ldsm" for r in sm80["instructions"]) and sm80["not_counted"] == []
    sm90 = kernel(TRITON / "matmul_sm90.ptx", params=params).to_json()["kernels"][0]
    assert any("wgmma" in str(n) for n in sm90["not_counted"])
