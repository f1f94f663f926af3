"""`mma-a`/`mma-b` fragment reads (access/fragments.py) against Triton 3.9's own dot-operand layouts.

Triton lays an NVIDIA mma.sync (MMA v2) operand out in registers by ``DotOperandLayout(operand,
NVMMADistributedLayout(version=[2, 0], instr_shape=[16, 8]), k_width)``, with ``k_width = 4 / element
bytes`` (32 bits of K per register); run_triton_fragments.py turns that into its linear layout by
Triton's C++ conversion, one warp on one instruction's operand (A: [16, K], B: [K, 8]). Each lane's
elements there must be exactly the elements the tool's fragment read gives that lane (its ld.shared
lanes over every phase, on a tile that is the operand, K-major or `:mn`), for every shape and element
size Triton issues as one mma.sync: tf32 m16n8k8, f16/bf16 m16n8k16, i8/f8 m16n8k32.
"""
import importlib.util

import pytest
from toolchain_cases import run_driver

from swizzle_solver.access import make_problem

pytestmark = pytest.mark.toolchain

# (shape, element bytes): Triton's MMA v2 instruction for that size (K = 8 * 4 / elem_bytes)
SHAPES = [("m16n8k8", 4), ("m16n8k16", 2), ("m16n8k32", 1)]
CASES = {f"{operand}-{shape}-{e}B": (operand, shape, e) for operand in ("a", "b") for shape, e in SHAPES}


@pytest.fixture(scope="module")
def triton_lanes(tmp_path_factory) -> dict:
    if importlib.util.find_spec("triton") is None:
        from toolchain_cases import missing

        missing("Triton", "pip install torch==2.13.0 triton==3.9.0")
    payload = {}
    for case, (operand, shape, e) in CASES.items():
        k = int(shape.split("k")[1])
        payload[case] = {"operand": 0 if operand == "a" else 1, "shape": [16, k] if operand == "a" else [k, 8],
                         "k_width": 4 // e}
    return run_driver("run_triton_fragments.py", payload, tmp_path_factory.mktemp("triton-fragments"))


def our_lanes(operand: str, shape: str, e: int, major: str) -> list[set[tuple[int, int]]]:
    """Each lane's elements, as (m or n, k), of the fragment read on a tile that is the operand."""
    k = int(shape.split("k")[1])
    height = 16 if operand == "a" else 8
    rows, cols = (height, k) if major == "k" else (k, height)
    p = make_problem(rows, cols, [f"mma-{operand}:{shape}:{major}"], elem_bytes=e).patterns[0]
    assert p.placements == p.phases_per_placement  # one placement: the whole operand
    lanes: list[set[tuple[int, int]]] = [set() for _ in range(32)]
    for phase in range(p.phases_per_placement):
        for lane in range(32):
            r, c, nbytes = int(p.lane_row[phase, lane]), int(p.lane_col[phase, lane]), int(p.lane_bytes[phase, lane])
            for i in range(nbytes // e):
                lanes[lane].add((r, c + i) if major == "k" else (c + i, r))
    return lanes


@pytest.mark.parametrize("major", ["k", "mn"])
@pytest.mark.parametrize("case", list(CASES))
def test_fragment_lanes_are_tritons_dot_operand_layout(triton_lanes, case, major):
    operand, shape, e = CASES[case]
    result = triton_lanes[case]
    assert "error" not in result, result.get("error")
    # Triton's A is [m, k]; its B is [k, n]: as (n, k) for the comparison
    theirs = [{(r, c) if operand == "a" else (c, r) for r, c in lane} for lane in result["lanes"]]
    ours = our_lanes(operand, shape, e, major)
    for lane in range(32):
        assert ours[lane] == theirs[lane], (case, major, lane, sorted(ours[lane]), sorted(theirs[lane]), result["repr"])
