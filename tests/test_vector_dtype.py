"""Vector element types as --dtype (issue 34 item 3): ``half2``, ``__nv_bfloat162``, ``float2``,
``float4``, ``uint2``, ``char4``, ... A tile of them counts in its vector elements, except the MMA/MFMA
operand forms, which read the scalar (access/vector_dtype.py):

- ``mma-a:m16n8k16`` on a half2 tile against a per-lane brute force written here from the PTX ISA's
  fragment (lane 4g + t holds a0a1 at row g, k = 2t, 2t+1: one half2; a2a3 row g + 8; a4a5 and a6a7
  at k + 8), for random bijections of the tile;
- every count equal to the same bytes stated in the scalar with twice the columns (the layout's
  table L * phys(r, c / L) + c % L), for mma-a, mma-b and an MFMA operand on gfx942;
- the other forms count vectors: a half2 tile is a 4-byte tile for them;
- a read of part of a vector, int4/uint4 (ambiguous) and unknown names are one line.
"""
from __future__ import annotations

import numpy as np
import pytest

from swizzle_solver import api
from swizzle_solver.access.tile import VECTOR_DTYPES, dtype_bytes, scalar_bytes_of
from tests import clirun


def saved(tmp_path, name: str, table: np.ndarray) -> str:
    path = tmp_path / f"{name}.npy"
    np.save(path, table)
    return f"table:{path}"


def counts(layout: str, **problem) -> list[tuple[int, int]]:
    checked = api.check(layout, **problem)
    assert checked.invalid is None, checked.invalid
    return [(r.worst, r.total) for r in checked.measured.results]


def brute_mma_a_half2(table: np.ndarray) -> tuple[int, int]:
    """(worst, total) wavefronts of mma-a:m16n8k16 on a half2 tile under ``table`` (element offsets,
    4 bytes each: the offset is the word): each 16 x 8-half2 block, each register one instruction of
    32 lanes; an instruction's wavefronts are the most distinct words in one of the 32 banks."""
    rows, cols = table.shape
    costs = []
    for r0 in range(0, rows, 16):
        for c0 in range(0, cols, 8):
            for dr, dc in ((0, 0), (8, 0), (0, 4), (8, 4)):  # a0a1, a2a3, a4a5, a6a7
                words = {int(table[r0 + lane // 4 + dr, c0 + lane % 4 + dc]) for lane in range(32)}
                banks = np.bincount([w % 32 for w in words], minlength=32)
                costs.append(int(banks.max()))
    return max(costs), sum(costs)


@pytest.mark.parametrize("seed", range(4))
def test_mma_a_on_half2_is_the_brute_force_and_the_f16_tile(seed, tmp_path):
    rng = np.random.default_rng(seed)
    table = rng.permutation(64 * 16).reshape(64, 16) if seed else np.arange(64 * 16).reshape(64, 16)
    got = counts(saved(tmp_path, "v", table), rows=64, cols=16, dtype="half2", access=["mma-a:m16n8k16"])
    assert got == [brute_mma_a_half2(table)]
    c = np.arange(32)
    scalar = 2 * table[:, c // 2] + c % 2  # the same bytes in f16 elements
    assert got == counts(saved(tmp_path, "s", scalar), rows=64, cols=32, dtype="f16", access=["mma-a:m16n8k16"])


@pytest.mark.parametrize("dtype, scalar, per, arch, access", [
    ("half2", "f16", 2, "nvidia", "mma-b:m16n8k16"),
    ("__nv_bfloat162", "bf16", 2, "nvidia", "mma-a:m16n8k16"),
    ("char4", "i8", 4, "nvidia", "mma-a:m16n8k32"),
    ("half2", "f16", 2, "gfx942", "mfma-a:16x16x16"),
    ("float2", "f32", 2, "nvidia", "8x4"),
])
def test_scalar_forms_count_the_same_bytes_as_the_scalar_tile(dtype, scalar, per, arch, access, tmp_path):
    rows, cols = 64, 32 // per * 2 if per == 2 else 16
    rng = np.random.default_rng(7)
    k = 16 // dtype_bytes(dtype)  # 16-byte chunks moved whole: no vector of any lane is split
    table = (k * rng.permutation(rows * cols // k)[:, None] + np.arange(k)).reshape(rows, cols)
    c = np.arange(cols * per)
    scalar_table = per * table[:, c // per] + c % per
    vector = counts(saved(tmp_path, "v", table), rows=rows, cols=cols, dtype=dtype, access=[access], arch=arch)
    plain = counts(saved(tmp_path, "s", scalar_table), rows=rows, cols=cols * per, dtype=scalar, access=[access if
                   access.startswith(("mma", "mfma")) else "8x8"], arch=arch)
    assert vector == plain


def test_the_other_forms_count_vector_elements():
    """A half2 tile is a tile of 4-byte elements for every form but the operands': the same answer and
    counts as --dtype f32, and the vector's scalar named in the problem."""
    for access in (["8x4"], ["ldmatrix.x4"], ["row", "col"]):
        v = api.solve(rows=64, cols=32, dtype="half2", access=access)
        f = api.solve(rows=64, cols=32, dtype="f32", access=access)
        assert v.name == f.name and v.json()["answer"]["per_access"] == f.json()["answer"]["per_access"]
    assert api.solve(rows=64, cols=32, dtype="half2", access=["row"]).json()["problem"]["scalar_bytes"] == 2


def test_vector_type_names():
    assert {n: dtype_bytes(n) for n in ("half2", "__half2", "__nv_bfloat162", "float2", "float4", "uint2", "int2",
                                        "char4", "uchar4", "short4", "double2", "cutlass::half2")} == {
        "half2": 4, "__half2": 4, "__nv_bfloat162": 4, "float2": 8, "float4": 16, "uint2": 8, "int2": 8, "char4": 4,
        "uchar4": 4, "short4": 8, "double2": 16, "cutlass::half2": 4}
    assert all(scalar_bytes_of(n) * lanes == dtype_bytes(n) for n, (_, lanes) in VECTOR_DTYPES.items())
    assert scalar_bytes_of("f16") == scalar_bytes_of("int4") == scalar_bytes_of(None) == 0


def test_the_line_shows_the_vector_units():
    r = clirun.solve("--rows", "64", "--cols", "16", "--dtype", "half2", "--access", "mma-a:m16n8k16", "-q")
    f = clirun.solve("--rows", "64", "--cols", "32", "--dtype", "f16", "--access", "mma-a:m16n8k16", "-q")
    assert (r.returncode, r.stdout, f.stdout) == (0, "Swizzle<2,2,3>\n", "Swizzle<2,3,3>\n")  # M one lower: 4-byte units
    r = clirun.solve("--rows", "64", "--cols", "16", "--dtype", "half2", "--access", "mma-a:m16n8k16")
    assert "(2 scalars of 2 B: MMA/MFMA operands read them)" in r.stdout


@pytest.mark.parametrize("argv, words", [
    (["--dtype", "half2", "--access", "mma-b:m16n8k16:mn"], ["part of a 4-byte vector element", "--cols 32", "f16"]),
    (["--dtype", "half2", "--order", "col", "--access", "mma-a:m16n8k16"], ["--rows 32"]),
    (["--dtype", "float2", "--access", "mma-a:m16n8k8"], ["part of a 8-byte vector", "f32"]),
    (["--dtype", "int4", "--access", "row"], ["ambiguous", "i4"]),
    (["--dtype", "uint4", "--access", "row"], ["ambiguous"]),
    (["--dtype", "half3", "--access", "row"], ["unknown --dtype", "half2"]),
])
def test_bad_vector_reads_are_one_line(argv, words):
    clirun.assert_input_error(clirun.solve("--rows", "16", "--cols", "16", *argv, "-q"), *words)
