"""mma-a / mma-b: the mma.sync operand fragments read by ld.shared (access/fragments.py).

The oracle of the fragment maps is CuTe: the ALayout / BLayout of the SM80/SM89 MMA traits, read
from the installed nvidia-cutlass wheel's headers and evaluated by pycute; the oracle of the counts
is a per-lane brute force written here from the PTX ISA's formulas (one request per register).
"""
import ast
import re
from pathlib import Path

import numpy as np
import pytest

from swizzle_solver import simulate
from swizzle_solver.access import make_hardware, make_tile, parse_access
from swizzle_solver.access.fragments import SHAPES, fragment
from swizzle_solver.families.cute import Swizzle
from swizzle_solver.hardware import TARGETS
from swizzle_solver.model import InputError

pycute = pytest.importorskip(
    "pycute", reason="pycute is missing: pip install --no-deps nvidia-cutlass==4.2.0.0 (.ci/run does)")
from tests.cute_grid import grid  # noqa: E402  (pycute's, after the skip)

CUTE_ATOM = Path(pycute.__file__).resolve().parents[1] / "cutlass_library/source/include/cute/atom"
NVIDIA = make_hardware()

# (shape, element bytes) -> the CuTe MMA atoms whose A/B fragments are that PTX fragment
TRAITS = {
    ("m16n8k8", 4): ["SM80_16x8x8_F32TF32TF32F32_TN"],
    ("m16n8k8", 2): ["SM80_16x8x8_F16F16F16F16_TN"],
    ("m16n8k16", 2): ["SM80_16x8x16_F16F16F16F16_TN"],
    ("m16n8k16", 1): ["SM80_16x8x16_S32S8S8S32_TN"],
    ("m16n8k32", 1): ["SM80_16x8x32_S32S8S8S32_TN", "SM89_16x8x32_F32E4M3E4M3F32_TN"],
}


def _headers() -> str:
    if not CUTE_ATOM.is_dir():
        pytest.skip("the nvidia-cutlass wheel's CuTe headers are missing")
    return "\n".join((CUTE_ATOM / name).read_text() for name in ("mma_traits_sm80.hpp", "mma_traits_sm89.hpp"))


def _cute_layout(text: str) -> tuple:
    """A CuTe C++ ``Layout<Shape<...>, Stride<...>>`` as pycute's (shape, stride): every template
    becomes a tuple, ``_N`` the integer N."""
    flat = re.sub(r"\s", "", text)
    flat = re.sub(r"(Layout|Shape|Stride)<", "(", flat).replace(">", ",)")
    return ast.literal_eval(re.sub(r"_(\d+)", r"\1", flat))[:2]


def cute_operand(trait: str, operand: str) -> tuple:
    """(shape, stride) of the trait's ALayout or BLayout, through the header's aliases."""
    text = _headers()
    body = re.search(r"struct MMA_Traits<" + trait + r">.*?\n};", text, re.S)
    assert body, trait
    name = re.search(rf"using {operand.upper()}Layout\s*=\s*(.*?);", body[0], re.S)[1]
    if not name.startswith("Layout<"):  # an alias of the anonymous namespace (SM80_16x8_Row, ...)
        name = re.search(rf"using {name}\s*=\s*(Layout<.*?>);", text, re.S)[1]
    return _cute_layout(name)


@pytest.mark.parametrize("operand", ["a", "b"])
@pytest.mark.parametrize("shape,elem_bytes", list(SHAPES))
def test_fragment_is_cutes(shape, elem_bytes, operand):
    """(lane, value) -> (row, k) of our fragment equals CuTe's (T32, V) -> (M, K) map, where CuTe
    numbers an A element m + 16 k (B: n + 8 k)."""
    rows = 16 if operand == "a" else 8
    ours = fragment(operand, shape, elem_bytes)
    for trait in TRAITS[shape, elem_bytes]:
        layout = pycute.Layout(*cute_operand(trait, operand))
        values = pycute.size(layout) // 32
        assert values == len(ours[0])
        table = grid(layout, 32, values)  # layout(lane, v), spot-checked against pycute's own call
        theirs = [[divmod(int(i), rows)[::-1] for i in lane] for lane in table]
        assert ours == theirs, trait


def test_the_aliases_resolve():
    # the parser above reads an alias (SM80_16x8_Row) and a spelled-out layout alike
    assert cute_operand("SM80_16x8x8_F16F16F16F16_TN", "a") == (((4, 8), (2, 2)), ((32, 1), (16, 8)))
    assert cute_operand("SM80_16x8x8_F32TF32TF32F32_TN", "b") == (((4, 8), 2), ((8, 1), 32))


def _brute_force(shape, elem_bytes, operand, major, tile, phys) -> list[int]:
    """Wavefronts of every (placement, register) request, from the PTX ISA's formulas: lane l holds
    register j's elements at (g + 8 (j % 2), K-block j // 2) (A) or (g, K-block j) (B), g = l / 4,
    a register of 4 bytes; each register is one ld.shared of all 32 lanes (<= 4 bytes: one phase),
    costing the most distinct 4-byte words in one bank."""
    k = int(shape.split("k")[1])
    per = 4 // elem_bytes
    height = 16 if operand == "a" else 8
    registers = height * k * elem_bytes // 4 // 32
    footprint = (height, k) if major == "k" else (k, height)
    costs = []
    for r0 in range(0, tile.rows, footprint[0]):
        for c0 in range(0, tile.cols, footprint[1]):
            for j in range(registers):
                for i in range(per if major == "mn" else 1):  # MN-major: one load per element
                    banks: dict[int, set[int]] = {}
                    for lane in range(32):
                        g, t = lane // 4, lane % 4
                        row = g + 8 * (j % 2) if operand == "a" else g
                        kk = (j // 2 if operand == "a" else j) * 4 * per + t * per
                        elems = [(row, kk + e) for e in range(per)] if major == "k" else [(kk + i, row)]
                        for r, c in elems:
                            word = int(phys[r0 + r, c0 + c]) * elem_bytes // 4
                            banks.setdefault(word % 32, set()).add(word)
                    costs.append(max(map(len, banks.values())))
    return costs


LAYOUTS = [None, Swizzle(3, 2, 3), Swizzle(2, 3, 4), Swizzle(3, 3, 3), Swizzle(3, 4, 3), Swizzle(2, 2, 3)]


@pytest.mark.parametrize("major", ["k", "mn"])
@pytest.mark.parametrize("operand", ["a", "b"])
@pytest.mark.parametrize("shape,elem_bytes", list(SHAPES))
def test_counts_are_the_brute_force(shape, elem_bytes, operand, major):
    tile = make_tile(32, 64, None, elem_bytes)
    spec = f"mma-{operand}:{shape}:{major}"
    pattern = parse_access(spec, tile, NVIDIA)
    r, c = np.meshgrid(np.arange(tile.rows), np.arange(tile.cols), indexing="ij")
    for layout in LAYOUTS:
        phys = r * tile.row_length + c if layout is None else layout.phys(tile, r, c)
        ours = simulate.simulate(tile, NVIDIA, [pattern], phys)[0].costs
        expected = _brute_force(shape, elem_bytes, operand, major, tile, phys)
        assert sorted(ours.tolist()) == sorted(expected), (spec, layout)
        assert len(ours) == len(expected)


@pytest.mark.parametrize("spec,elem_bytes,width", [
    ("mma-a:m16n8k8", 4, 4), ("mma-b:m16n8k8", 2, 4), ("mma-a:m16n8k32", 1, 4),
    ("mma-a:m16n8k8:mn", 4, 4), ("mma-a:m16n8k16:mn", 2, 2), ("mma-b:m16n8k32:mn", 1, 1)])
def test_the_widest_load_the_contiguity_allows(spec, elem_bytes, width):
    """K-major: one 32-bit register is 4 contiguous bytes (ld.shared.b32); MN-major: one element."""
    p = parse_access(spec, make_tile(64, 64, None, elem_bytes), NVIDIA)
    assert p.vector_bytes == width
    assert {"ld.shared.b32" if width == 4 else f"ld.shared.u{8 * width}"} <= set(p.summary.split())


def test_an_odd_pitch_narrows_the_loads():
    # a 2-byte pitch of 65 elements leaves a register's two f16 elements unaligned: 2-byte loads
    p = parse_access("mma-a:m16n8k16", make_tile(32, 64, 65, 2), NVIDIA)
    assert p.vector_bytes == 2 and p.phases_per_placement == 8


def test_tf32_k_major_phases():
    """mma.m16n8k8 .tf32 A: a0 (g, t), a1 (g + 8, t), a2 (g, t + 4), a3 (g + 8, t + 4), PTX ISA 9.7.14.5.7."""
    p = parse_access("mma-a:m16n8k8", make_tile(16, 8, None, 4), NVIDIA)
    assert p.placements == p.phases_per_placement == 4 and p.lower_bound == 1
    assert [p.phase_lanes(i)[:5] for i in range(4)] == [
        [(0, 0, 4), (0, 1, 4), (0, 2, 4), (0, 3, 4), (1, 0, 4)],
        [(8, 0, 4), (8, 1, 4), (8, 2, 4), (8, 3, 4), (9, 0, 4)],
        [(0, 4, 4), (0, 5, 4), (0, 6, 4), (0, 7, 4), (1, 4, 4)],
        [(8, 4, 4), (8, 5, 4), (8, 6, 4), (8, 7, 4), (9, 4, 4)]]


@pytest.mark.parametrize("spec,elem_bytes,why", [
    ("mma-a:m16n8k16", 4, "PTX has no mma.sync.m16n8k16 on 4-byte elements"),
    ("mma-a:m16n8k8", 1, "m16n8k8 on tf32, f16, bf16; m16n8k16 on f16, bf16, i8"),
    ("mma-b:m16n8k32", 2, "m16n8k32 on i8, u8, e4m3, e5m2"),
    ("mma-a:m16n8k8", 8, "on 8-byte elements"),
    ("mma-a:m16n8k4", 4, "PTX has no mma.sync.m16n8k4"),
    ("mma-c:m16n8k8", 4, "mma-c:m16n8"),
    ("mma-a:m16n8k8:nm", 4, "optionally :k (K-major, the default) or :mn"),
    ("mma-a", 4, "SHAPE one of m16n8k8, m16n8k16, m16n8k32"),
])
def test_refusals(spec, elem_bytes, why):
    with pytest.raises(InputError, match=re.escape(why)):
        parse_access(spec, make_tile(32, 32, None, elem_bytes), NVIDIA)


def test_amd_has_no_mma_sync():
    gfx942 = TARGETS["gfx942"]
    with pytest.raises(InputError, match="has no mma.sync operand fragments.*--arch nvidia, sm80"):
        parse_access("mma-a:m16n8k8", make_tile(32, 32, None, 4), gfx942)


# --- the examples of the new forms (the end of examples.toml), held to oracles written here ----------

EXAMPLES = {case["name"]: case for case in __import__("tomllib").loads(
    (Path(__file__).resolve().parents[1] / "examples.toml").read_text())["case"]}


def _phase_cost(byte_ranges, phys_byte) -> int:
    """Most distinct 4-byte words in one bank among the bytes of one phase: (row, first byte, bytes)."""
    banks: dict[int, set[int]] = {}
    for r, b0, n in byte_ranges:
        for b in range(b0, b0 + n):
            word = int(phys_byte[r, b]) // 4
            banks.setdefault(word % 32, set()).add(word)
    return max(map(len, banks.values()))


def _chunk_phases(rows: int, row_bytes: int, lanes_per_row: int, lane_rows: int):
    """16-byte chunks, a warp's 32 lanes lane_rows x lanes_per_row at every aligned position, 8 lanes a phase."""
    for r0 in range(0, rows, lane_rows):
        for b0 in range(0, row_bytes, 16 * lanes_per_row):
            lanes = [(r0 + lane // lanes_per_row, b0 + 16 * (lane % lanes_per_row), 16) for lane in range(32)]
            yield from (lanes[i:i + 8] for i in range(0, 32, 8))


def _ldmatrix_phases(rows: int, row_bytes: int):
    """Every 8-row x 16-byte matrix of the tile (ldmatrix.x4 reads each as one phase)."""
    for r0 in range(0, rows, 8):
        for b0 in range(0, row_bytes, 16):
            yield [(r0 + i, b0, 16) for i in range(8)]


def _byte_table(elem_bytes: int, rows: int, row_bytes: int, element_phys) -> np.ndarray:
    """The physical byte of every byte of the tile, from an element layout."""
    out = np.zeros((rows, row_bytes), dtype=np.int64)
    for r in range(rows):
        for b in range(row_bytes):
            out[r, b] = element_phys(r, b // elem_bytes) * elem_bytes + b % elem_bytes
    return out


def _swizzle(b, m, s, cols):
    sw = pycute.Swizzle(b, m, s)
    return lambda r, c: sw(r * cols + c)


@pytest.mark.parametrize("name,elem_bytes,rows,cols,layout,costs", [
    ("mma-a m16n8k8 tf32, 32x32 K-major: each fragment register one ld.shared.b32", 4, 32, 32, (3, 2, 3),
     {"mma-a:m16n8k8": 1}),
    ("mma-a and mma-b m16n8k32 e4m3, 64x128 K-major: 32-bit loads of 4 fp8 each", 1, 64, 128, (3, 4, 3),
     {"mma-a:m16n8k32": 1, "mma-b:m16n8k32": 1}),
    ("CUTLASS issue 2116's tile: tf32 M-major, cp.async writes and mma-a:m16n8k8:mn fragment reads", 4, 32, 128,
     (2, 3, 4), {"warp:2x16:1x4": 1, "mma-a:m16n8k8:mn": 1}),
    (None, 4, 32, 128, "2116", {"warp:2x16:1x4": 1, "mma-a:m16n8k8:mn": 2}),  # the issue's own layout (docs)
    ("cp.async 64x64 f16 copy and ldmatrix.x4 reads", 2, 64, 64, (3, 3, 3), {"cp.async": 1, "ldmatrix.x4": 1}),
    ("fp4 64x256 (two a byte): cp.async copy and ldmatrix.x4 reads of the packed bytes", 1, 64, 128, (3, 4, 3),
     {"cp.async": 1, "ldmatrix.x4": 1}),
    ("i4 64x128 mma-a m16n8k64 fragments read by 32-bit loads (8 elements each), cp.async writes", 1, 64, 64,
     (2, 4, 3), {"mma-a:m16n8k64": 1, "cp.async": 1}),
])
def test_the_new_examples_hold_under_oracles(name, elem_bytes, rows, cols, layout, costs):
    """Each example's answer (or checked layout), evaluated by pycute, gives every access the worst
    phase cost stated, counted from the access's own definition (not the tool's phases); the
    example's problem and expectation are the ones in examples.toml. (cols: of the stored elements,
    bytes for the 4-bit tiles.)"""
    case = EXAMPLES[name] if name else None
    if layout == "2116":  # the atom (m, k) -> m + 32 k under Swizzle<3,2,3>, tiled m first over 128 x 32
        sw = pycute.Swizzle(3, 2, 3)
        element_phys = lambda k, m: 256 * (m // 32 + 4 * (k // 8)) + sw(m % 32 + 32 * (k % 8))  # noqa: E731
    else:
        assert case is not None and list(costs) == case["access"] and case["rows"] == rows
        assert case["cols"] == cols * (2 if case["dtype"] in ("fp4", "i4") else 1)  # 4-bit: cols here in bytes
        element_phys = _swizzle(*layout, cols)
        assert case["expect"] == f"Swizzle<{layout[0]},{layout[1]},{layout[2]}>"
    row_bytes = cols * elem_bytes
    phys = _byte_table(elem_bytes, rows, row_bytes, element_phys)
    tile = make_tile(rows, cols, None, elem_bytes)
    byte_tile = make_tile(rows, row_bytes, None, 1)
    for spec, worst in costs.items():
        if spec.startswith("mma-"):
            operand, shape, major = spec[4], spec.split(":")[1], (spec.split(":") + ["k"])[2]
            if spec == "mma-a:m16n8k64":  # 4-bit: 8 elements a register = the 8-bit fragment of K / 2 in bytes
                got = _brute_force("m16n8k32", 1, "a", "k", byte_tile, phys)
            else:
                got = _brute_force(shape, elem_bytes, operand, major, tile,
                                   np.array([[element_phys(r, c) for c in range(cols)] for r in range(rows)]))
        elif spec in ("cp.async", "warp:2x16:1x4"):  # 32 lanes on consecutive chunks; the copy: 16 a row
            per_row = 16 if spec.startswith("warp") else min(32, row_bytes // 16)
            got = [_phase_cost(p, phys) for p in _chunk_phases(rows, row_bytes, per_row, 32 // per_row)]
        else:
            got = [_phase_cost(p, phys) for p in _ldmatrix_phases(rows, row_bytes)]
        assert max(got) == worst, spec
