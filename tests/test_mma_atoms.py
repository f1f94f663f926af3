"""CuTe MMA atoms by name as --access (access/mma_atoms.py): SM80_16x8x16_F32F16F16F32_TN:a, :b, :c.

Oracles: the atoms' ALayout / BLayout / CLayout, Shape_MNK and value types read from CuTe's
MMA_Traits headers in the installed nvidia-cutlass wheel (through their aliases and base traits)
and evaluated by pycute; the counts from a per-lane brute force written here (each register's
values one warp instruction, tests/nvidia_banks.py's phase rule); and the mma-a / mma-b / mma-c
forms where an atom's operand is the same PTX fragment.
"""
import ast
import re
from pathlib import Path

import numpy as np
import pytest

from swizzle_solver import simulate
from swizzle_solver.access import make_hardware, make_problem, make_tile, parse_access
from swizzle_solver.access.mma_atoms import ATOMS, thread_values, traits
from swizzle_solver.families.cute import Swizzle
from swizzle_solver.model import InputError
from tests import nvidia_banks
from tests.clirun import solve

pycute = pytest.importorskip(
    "pycute", reason="pycute is missing: pip install --no-deps nvidia-cutlass==4.2.0.0 (.ci/run does)")
from tests.cute_grid import grid  # noqa: E402 (pycute first: skipped without it)

CUTE_ATOM = Path(pycute.__file__).resolve().parents[1] / "cutlass_library/source/include/cute/atom"
NVIDIA = make_hardware()
CPP_TYPES = {"half_t": "f16", "bfloat16_t": "bf16", "float": "f32", "cutlass::tfloat32_t": "tf32", "double": "f64",
             "int8_t": "s8", "uint8_t": "u8", "int32_t": "s32", "float_e4m3_t": "e4m3", "float_e5m2_t": "e5m2"}
DTYPE_BYTES = {"f16": 2, "bf16": 2, "f32": 4, "tf32": 4, "f64": 8, "s8": 1, "u8": 1, "e4m3": 1, "e5m2": 1, "s32": 4}


def _headers() -> str:
    if not CUTE_ATOM.is_dir():
        pytest.skip("the nvidia-cutlass wheel's CuTe headers are missing")
    return "\n".join((CUTE_ATOM / f"mma_traits_sm{n}.hpp").read_text() for n in (75, 80, 89))


def _cute_tuple(text: str):
    flat = re.sub(r"\s", "", text)
    flat = re.sub(r"(Layout|Shape|Stride)<", "(", flat).replace(">", ",)")
    return ast.literal_eval(re.sub(r"_(\d+)", r"\1", flat))


def header_field(atom: str, field: str) -> str:
    """The text of MMA_Traits<atom>'s ``using field = ...``, through base traits and layout aliases."""
    text = _headers()
    body = re.search(r"struct MMA_Traits<" + atom + r">\s*(:\s*MMA_Traits<(\w+)>)?\s*\{([^{}]*)\}\s*;", text)
    assert body, atom
    value = re.search(rf"using {field}\s*=\s*(.*?);", body[3], re.S)
    if value is None:
        assert body[2], (atom, field)
        return header_field(body[2], field)
    value = value[1].strip()
    alias = re.search(rf"using {value}\s*=\s*(Layout<.*?>);", text, re.S) if re.fullmatch(r"\w+", value) else None
    return alias[1] if alias else value


def header_atoms() -> list[str]:
    return sorted(set(re.findall(r"struct MMA_Traits<(SM\d\d_\w+_TN(?:_SATURATE)?)>", _headers())))


def test_every_header_atom_is_read_or_refused():
    """Every MMA_Traits of mma_traits_sm75/80/89.hpp is an atom here, but the 4-bit, 1-bit and complex
    ones, which are refused in one line; and every atom here is in the headers."""
    names = header_atoms()
    assert len(names) > 40
    ours = {f"{a}_TN" if not a.endswith("_SATURATE") else a.replace("_SATURATE", "_TN_SATURATE") for a in ATOMS}
    assert ours <= set(names)
    for name in set(names) - ours:
        assert re.search(r"S4|U4|U1|C64", name), name
        with pytest.raises(InputError, match="4-bit, 1-bit and complex"):
            parse_access(f"{name}:a", make_tile(64, 64, None, 1), NVIDIA)


@pytest.mark.parametrize("atom", sorted(ATOMS))
def test_layouts_are_cutes(atom):
    """Shape_MNK, the value types and (thread, value) -> index of A, B and C equal the headers'."""
    name = atom.replace("_SATURATE", "_TN_SATURATE") if atom.endswith("_SATURATE") else f"{atom}_TN"
    mnk, types = traits(name, name.lower())
    assert _cute_tuple(header_field(name, "Shape_MNK")) == mnk
    for letter in "dabc":
        assert CPP_TYPES[header_field(name, f"ValType{letter.upper()}").removeprefix("cutlass::").replace("tfloat32_t", "cutlass::tfloat32_t")] == types[letter], (name, letter)
    from swizzle_solver.access.mma_atoms import operand_layout
    for operand in "abc":
        layout = pycute.Layout(*_cute_tuple(header_field(name, f"{operand.upper()}Layout"))[:2])
        ours = thread_values(operand_layout(mnk, types, operand))
        values = pycute.size(layout) // 32
        assert grid(layout, 32, values).tolist() == ours, (name, operand)


def test_an_atom_with_a_base_trait_is_read_through_it():
    assert header_field("SM80_16x8x16_F32F16F16F32_TN", "ALayout") == header_field(
        "SM80_16x8x16_F16F16F16F16_TN", "ALayout")
    assert "Stride<_16,_8,_128>" in header_field("SM80_16x8x16_F32F16F16F32_TN", "ALayout").replace(" ", "")


# --- counts against a per-lane brute force ------------------------------------------------------


def _cute_cells(atom: str, operand: str) -> tuple[list[list[tuple[int, int]]], tuple[int, int]]:
    """From the header via pycute: each thread's values (tile row, tile col) in value order, and the
    operand's (rows, cols) as stored K-major (A: M x K, B: N x K, C: M x N)."""
    m, n, k = _cute_tuple(header_field(atom, "Shape_MNK"))
    rows, cols = {"a": (m, k), "b": (n, k), "c": (m, n)}[operand]
    layout = pycute.Layout(*_cute_tuple(header_field(atom, f"{operand.upper()}Layout"))[:2])
    values = pycute.size(layout) // 32
    index = grid(layout, 32, values)
    return [[(int(i) % rows, int(i) // rows) for i in lane] for lane in index], (rows, cols)


def brute_force(atom, operand, major, width, tile, phys) -> list[list[int]]:
    """Per placement (row-major over the tile), the sorted wavefronts of every phase: each lane's
    values in CuTe's value order cut into ``width``-byte vectors (each a run along a stored row), the
    lanes' j-th vectors one warp instruction, served by NVIDIA's phase rule (nvidia_banks)."""
    lanes, (rows, cols) = _cute_cells(atom, operand)
    if major == "mn":
        lanes, rows, cols = [[(c, r) for r, c in lane] for lane in lanes], cols, rows
    per = width // tile.elem_bytes
    out = []
    for r0 in range(0, tile.rows, rows):
        for c0 in range(0, tile.cols, cols):
            costs = []
            for j in range(0, len(lanes[0]), per):
                starts = []
                for lane in lanes:
                    run = lane[j:j + per]
                    assert run == [(run[0][0], run[0][1] + i) for i in range(per)], (atom, lane)
                    starts.append(int(phys[r0 + run[0][0], c0 + run[0][1]]) * tile.elem_bytes)
                for group in nvidia_banks.lane_phases(starts, width, load=operand != "c"):
                    costs.append(nvidia_banks.phase_cost(group, width)[0])
            out.append(sorted(costs))
    return out


LAYOUTS = [None, Swizzle(3, 3, 3), Swizzle(2, 3, 3), Swizzle(3, 2, 3), Swizzle(2, 2, 4)]
CASES = [  # (atom, operand, major, element bytes, the lane's vector width in bytes)
    ("SM80_16x8x8_F16F16F16F16_TN", "a", "k", 2, 4), ("SM80_16x8x8_F16F16F16F16_TN", "b", "k", 2, 4),
    ("SM80_16x8x16_F32F16F16F32_TN", "a", "k", 2, 4), ("SM80_16x8x16_F32F16F16F32_TN", "b", "k", 2, 4),
    ("SM80_16x8x16_F32F16F16F32_TN", "c", "k", 4, 8), ("SM80_16x8x16_F32F16F16F32_TN", "c", "k", 2, 4),
    ("SM80_16x8x16_F32BF16BF16F32_TN", "a", "mn", 2, 2), ("SM80_16x8x4_F32TF32TF32F32_TN", "a", "k", 4, 4),
    ("SM80_16x8x8_F32TF32TF32F32_TN", "b", "k", 4, 4), ("SM80_16x8x8_F32TF32TF32F32_TN", "a", "mn", 4, 4),
    ("SM80_16x8x32_S32S8S8S32_TN", "a", "k", 1, 4), ("SM80_16x8x16_S32U8S8S32_TN", "b", "k", 1, 4),
    ("SM80_8x8x16_S32S8S8S32_TN", "c", "k", 4, 8), ("SM80_8x8x4_F64F64F64F64_TN", "a", "k", 8, 8),
    ("SM75_16x8x8_F32F16F16F32_TN", "b", "k", 2, 4), ("SM89_16x8x32_F32E4M3E5M2F32_TN", "b", "mn", 1, 1),
    ("SM80_16x8x16_F16F16F16F16_TN", "c", "mn", 2, 2),
]


@pytest.mark.parametrize("atom,operand,major,elem,width", CASES)
def test_counts_are_the_brute_force(atom, operand, major, elem, width):
    tile = make_tile(32, 64, None, elem)
    spec = f"{atom}:{operand}" + (":mn" if major == "mn" else "")
    pattern = parse_access(spec, tile, NVIDIA)
    assert pattern.vector_bytes == width
    r, c = np.meshgrid(np.arange(tile.rows), np.arange(tile.cols), indexing="ij")
    for layout in LAYOUTS:
        phys = r * tile.row_length + c if layout is None else layout.phys(tile, r, c)
        costs = simulate.simulate(tile, NVIDIA, [pattern], phys)[0].costs.reshape(-1, pattern.phases_per_placement)
        assert [sorted(row) for row in costs.tolist()] == brute_force(atom, operand, major, width, tile, phys), \
            (spec, layout)


@pytest.mark.parametrize("atom,form,elem", [
    ("SM80_16x8x8_F16F16F16F16_TN:a", "mma-a:m16n8k8", 2), ("SM80_16x8x16_F32F16F16F32_TN:a", "mma-a:m16n8k16", 2),
    ("SM80_16x8x16_F32BF16BF16F32_TN:b", "mma-b:m16n8k16", 2), ("SM80_16x8x8_F32TF32TF32F32_TN:a", "mma-a:m16n8k8", 4),
    ("SM80_16x8x8_F32TF32TF32F32_TN:b:mn", "mma-b:m16n8k8:mn", 4),
    ("SM80_16x8x32_S32S8S8S32_TN:a", "mma-a:m16n8k32", 1), ("SM80_16x8x16_S32S8S8S32_TN:b", "mma-b:m16n8k16", 1),
    ("SM89_16x8x32_F16E5M2E5M2F16_TN:a", "mma-a:m16n8k32", 1),
    ("SM80_16x8x16_F32F16F16F32_TN:c", "mma-c:m16n8", 4), ("SM80_16x8x8_F16F16F16F16_TN:c", "mma-c:m16n8", 2),
])
def test_the_same_fragment_as_the_ptx_forms(atom, form, elem):
    """Where an atom's operand is an mma-a / mma-b / mma-c fragment: the same lanes, and equal counts
    on a few layouts through the whole solve (the per-access worst and total of --check)."""
    tile = make_tile(64, 64, None, elem)
    ours, theirs = parse_access(atom, tile, NVIDIA), parse_access(form, tile, NVIDIA)
    assert ours.kind == theirs.kind and ours.phases_per_placement == theirs.phases_per_placement
    assert np.array_equal(np.sort(ours.lane_row, axis=None), np.sort(theirs.lane_row, axis=None))
    r, c = np.meshgrid(np.arange(tile.rows), np.arange(tile.cols), indexing="ij")
    for layout in LAYOUTS:
        phys = r * tile.row_length + c if layout is None else layout.phys(tile, r, c)
        a, b = simulate.simulate(tile, NVIDIA, [ours, theirs], phys)
        assert (a.worst, a.total) == (b.worst, b.total), (atom, layout)
        assert sorted(a.costs.tolist()) == sorted(b.costs.tolist())


def test_order_col_follows_the_tile():
    """Under --order col the operand is the stored tile's :mn read, as mma-a's is; :k is refused."""
    col = make_problem(64, 64, ["SM80_16x8x16_F32F16F16F32_TN:a"], elem_bytes=2, order="col").patterns[0]
    mn = make_problem(64, 64, ["SM80_16x8x16_F32F16F16F32_TN:a:mn"], elem_bytes=2).patterns[0]
    assert np.array_equal(col.lane_row, mn.lane_row) and np.array_equal(col.lane_col, mn.lane_col)
    assert col.order == "col"
    with pytest.raises(InputError, match="':k' reads a K-major operand"):
        make_problem(64, 64, ["SM80_16x8x16_F32F16F16F32_TN:a:k"], elem_bytes=2, order="col")


def test_spellings_and_the_store_counter():
    plain = make_problem(64, 64, ["SM80_16x8x16_F32F16F16F32_TN:b"], elem_bytes=2).patterns[0]
    for spec in ("cute::SM80_16x8x16_F32F16F16F32_TN:b", "MMA_Atom<cute::SM80_16x8x16_F32F16F16F32_TN>:b",
                 "MMA_Atom<SM80_16x8x16_F32F16F16F32_TN> : B", "SM80_16x8x16_F32F16F16F32_TN{}:b"):
        p = make_problem(64, 64, [spec], elem_bytes=2).patterns[0]
        assert np.array_equal(p.lane_row, plain.lane_row) and np.array_equal(p.lane_col, plain.lane_col), spec
    run = solve("--rows", "64", "--cols", "64", "--dtype", "f32", "--access", "SM80_16x8x16_F32F16F16F32_TN:c",
                "--check", "Swizzle<2,3,3>", "--json")
    assert run.returncode in (0, 1), run.stderr
    import json
    counter = json.loads(run.stdout)["answer"]["per_access"][0]["counter"]
    assert all("_op_st" in name for name in counter)


@pytest.mark.parametrize("spec,dtype,words", [
    ("SM80_16x8x16_F32F16F16F32_TN", "f16", "name the operand after the MMA atom"),
    ("SM80_16x8x16_F32F16F16F32_TN:d", "f16", "name the operand after the MMA atom"),
    ("SM80_16x8x16_F32F16F16F32_TN:a:x", "f16", "name the operand after the MMA atom"),
    ("SM80_16x8x16_F32F16F16F16_TN:a", "f16", "not an MMA atom of CuTe's"),
    ("SM80_16x8x64_S32S4S4S32_TN:a", "i8", "the 4-bit, 1-bit and complex MMA atoms are not forms yet"),
    ("SM80_16x8x16_F32F16F16F32_TN:a", "f32", "give --dtype f16"),
    ("SM80_16x8x16_F32F16F16F32_TN:c", "i8", "give --dtype f32 or f16"),
    ("SM80_16x8x8_F32TF32TF32F32_TN:b", "f16", "give --dtype tf32"),
    ("load:SM80_16x8x16_F32F16F16F32_TN:c", "f32", "the form is a store itself"),
    # Hopper's and Blackwell's atoms, the names a user of those GEMMs has: said to be descriptor reads
    ("SM90_64x64x16_F32F16F16_SS:a", "f16", "a GMMA atom: wgmma reads its operands through a shared-memory"),
    ("cute::SM90_64x128x16_F32BF16BF16_RS:b", "bf16", "a GMMA atom: wgmma reads"),
    ("MMA_Atom<SM90_64x64x16_F32F16F16_SS<GMMA::Major::K,GMMA::Major::K>>:a", "f16", "a GMMA atom"),
    ("SM100_MMA_F16BF16_SS:a", "f16", "a UMMA atom: UMMA (tcgen05.mma) reads its operands"),
    ("SM120_16x8x32_TN:a", "f16", "not an MMA atom of CuTe's mma_traits_sm75/80/89.hpp"),
])
def test_bad_spellings_are_one_line(spec, dtype, words):
    run = solve("--rows", "64", "--cols", "64", "--dtype", dtype, "--access", spec)
    assert run.returncode == 2 and run.stdout == "" and len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert words in run.stderr, run.stderr


def test_a_target_without_mma_sync_refuses():
    run = solve("--rows", "64", "--cols", "64", "--dtype", "f16", "--arch", "gfx942", "--access",
                "SM80_16x8x16_F32F16F16F32_TN:a")
    assert run.returncode == 2 and "targets that have them" in run.stderr


def test_a_4_bit_tile_is_not_read_by_an_8_bit_atom():
    run = solve("--rows", "64", "--cols", "128", "--dtype", "fp4", "--access", "SM80_16x8x32_S32S8S8S32_TN:a")
    assert run.returncode == 2 and run.stdout == "" and len(run.stderr.strip().splitlines()) == 1
    assert "4-bit ones (S4, U4) are not forms yet" in run.stderr
