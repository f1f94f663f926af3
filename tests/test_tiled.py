"""make_tiled_copy(Copy_Atom<ATOM, T>{}, thr, val) as --access (swizzle_solver/tiled.py).

Oracle: CuTe's own algebra run by pycute on the Copy_Traits read from the nvidia-cutlass wheel's
headers: layout_mn = raked_product(thr, val) (cute/layout.hpp: logical_product, then the modes
zipped tiler-first), layout_tv = right_inverse(layout_mn) with shape (threads, values), and
TiledCopy::tidfrg_S/D's ref2trg = right_inverse(RefLayout) o SrcLayout (DstLayout for the atoms that
store to shared memory), (atom thread, atom value) tiled over (thread group, execution) as
zipped_divide does. The counts: a per-lane brute force over those addresses with NVIDIA's phase
rules (tests/nvidia_banks.py: ldmatrix/stmatrix one phase per matrix, per-thread atoms by width).
"""
import functools
import re

import numpy as np
import pytest

from swizzle_solver import api, simulate, tiled  # noqa: F401  (tiled registers make_tiled_copy)
from swizzle_solver.access import make_hardware, make_problem, make_tile
from swizzle_solver.families.cute import Swizzle
from tests import nvidia_banks
from tests.clirun import solve

pycute = pytest.importorskip(
    "pycute", reason="pycute is missing: pip install --no-deps nvidia-cutlass==4.2.0.0 (.ci/run does)")
from tests.test_cute_atoms import _cute_layout, _headers  # noqa: E402  (after the skip)

NVIDIA = make_hardware()


def traits_layout(atom: str, which: str, bits: int = 0) -> pycute.Layout:
    """Copy_Traits<atom>'s ``which`` layout, through ``typename Copy_Traits<X>::Y`` and same-body
    aliases; a per-thread template's ``Int<sizeof_bits<S>::value>`` is ``bits``."""
    text = _headers()
    template = re.match(r"(\w+)<", atom)
    key = atom if template is None else template[1] + r"<S,\s*D>"
    body = re.search(r"struct Copy_Traits<" + key + r">\s*\{.*?\n};", text, re.S)
    assert body, atom
    value = re.search(rf"using {which}\s*=\s*(.*?);", body[0], re.S)[1].strip()
    alias = re.fullmatch(r"typename Copy_Traits<(\w+)>::(\w+)", value)
    if alias:
        return traits_layout(alias[1], alias[2], bits)
    if re.fullmatch(r"\w+", value):
        return traits_layout(atom, value, bits)
    value = re.sub(r"Int<sizeof_bits<[SD]>::value>", f"_{bits}", value)
    shape_stride = _cute_layout(value)
    if len(shape_stride) == 1 or not isinstance(shape_stride[1], tuple) or len(shape_stride) == 1:
        return pycute.Layout(shape_stride[0])
    return pycute.Layout(*shape_stride)


def raked_product(block: pycute.Layout, tiler: pycute.Layout) -> pycute.Layout:
    """CuTe's raked_product for rank-2 layouts: logical_product's modes zipped, the tiler's first."""
    inner = pycute.composition(pycute.complement(block, pycute.size(block) * pycute.cosize(tiler)), tiler)
    return pycute.Layout(((inner.shape[0], block.shape[0]), (inner.shape[1], block.shape[1])),
                         ((inner.stride[0], block.stride[0]), (inner.stride[1], block.stride[1])))


def cute_addresses(atom, smem_side, bits, thr, val, value_bits):
    """Per warp instruction (warp, execution), each lane's run of tile elements (m, n), by CuTe's algebra."""
    layout_mn = raked_product(thr, val)
    threads, values = pycute.size(thr), pycute.size(val)
    tv = pycute.composition(pycute.right_inverse(layout_mn), pycute.Layout((threads, values)))
    rows = pycute.size(layout_mn.shape[0])
    ref = traits_layout(atom, "RefLayout", bits)
    smem = traits_layout(atom, smem_side, bits)
    ref2trg = pycute.composition(pycute.right_inverse(ref), smem)
    atom_threads = pycute.size(ref.shape[0])
    atom_values = pycute.size(ref.shape[1]) // value_bits
    per = pycute.size(smem.shape[1]) // value_bits
    out = []
    for warp in range(threads // 32):
        for k in range(values // atom_values):
            lanes = []
            for lane in range(32):
                tid = 32 * warp + lane
                s, g = tid % atom_threads, tid // atom_threads
                cells = []
                for j in range(per):
                    i = ref2trg(s, j * value_bits)
                    rt, rv = i % atom_threads, i // atom_threads // value_bits
                    idx = tv(rt + atom_threads * g, rv + atom_values * k)
                    cells.append((idx % rows, idx // rows))
                lanes.append(cells)
            out.append(lanes)
    return out, (rows, pycute.size(layout_mn.shape[1]))


CASES = [  # (atom, the shared-memory side, bits a thread moves, value type, bytes, thr, val, tile)
    ("UniversalCopy<uint128_t>", "SrcLayout", 128, "half_t", 2, ((32, 4), (4, 1)), ((1, 8), (1, 1)), (64, 64)),
    ("UniversalCopy<uint64_t>", "DstLayout", 64, "float", 4, (((4, 8), 4), ((1, 16), 4)), ((1, 2), (1, 1)), (64, 16)),
    ("SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>", "DstLayout", 128, "half_t", 2, ((16, 8), (8, 1)), ((1, 8), (1, 1)),
     (32, 128)),
    ("SM75_U32x4_LDSM_N", "SrcLayout", 0, "half_t", 2, ((8, 4), (4, 1)), ((4, 2), (2, 1)), (64, 64)),
    ("SM75_U32x2_LDSM_N", "SrcLayout", 0, "half_t", 2, ((4, 8), (8, 1)), ((4, 2), (2, 1)), (32, 64)),
    ("SM75_U16x8_LDSM_T", "SrcLayout", 0, "half_t", 2, ((4, 8), (1, 4)), ((8, 1), (1, 1)), (64, 64)),
    ("SM90_U32x4_STSM_N", "DstLayout", 0, "half_t", 2, ((8, 4), (4, 1)), ((4, 2), (2, 1)), (64, 64)),
    ("SM90_U16x8_STSM_T", "DstLayout", 0, "half_t", 2, ((4, 8), (1, 4)), ((8, 1), (1, 1)), (32, 64)),
]
LAYOUTS = [None, Swizzle(3, 3, 3), Swizzle(2, 3, 3), Swizzle(2, 3, 4), Swizzle(1, 3, 5)]  # 16-byte chunks whole


def _spec(atom, ctype, thr, val):
    return tiled.tiled_copy(atom, pycute.Layout(*thr), pycute.Layout(*val), ctype)


@functools.cache
def case_addresses(case):
    """cute_addresses of a CASES entry, made once a process: each case's test asks for it once and
    then once per layout (read only)."""
    atom, side, bits, _, elem, thr, val, _ = case
    return cute_addresses(atom, side, bits, pycute.Layout(*thr), pycute.Layout(*val), 8 * elem)


def brute_force(case, tile, phys) -> list[list[int]]:
    """Per placement of the TiledCopy's tile (row-major), the sorted wavefronts of each warp instruction."""
    atom, side, bits, _, elem, thr, val, _ = case
    per_thread_bits = bits or 128
    instructions, (rows, cols) = case_addresses(case)
    width = per_thread_bits // 8
    out = []
    for r0 in range(0, tile.rows, rows):
        for c0 in range(0, tile.cols, cols):
            costs = []
            for lanes in instructions:
                for cells in lanes:  # each lane's run along the row (the tool refuses any other)
                    assert cells == [(cells[0][0], cells[0][1] + j) for j in range(len(cells))]
                starts = [int(phys[r0 + c[0][0], c0 + c[0][1]]) * elem for c in lanes]
                if "LDSM" in atom or "STSM" in atom:
                    k = int(re.search(r"x(\d)", atom)[1]) // (1 if "U32" in atom else 2)
                    costs.append(nvidia_banks.matrix_cost(starts, k)[0])
                else:
                    load = side == "SrcLayout" and "CP_ASYNC" not in atom
                    costs.append(nvidia_banks.instruction_cost(starts, width, load)[0])
            out.append(sorted(costs))
    return out


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{c[5]}" for c in CASES])
def test_counts_are_cutes_addresses_brute_forced(case):
    atom, side, _, ctype, elem, thr, val, (rows, cols) = case
    spec = _spec(atom, ctype, thr, val)
    if side == "DstLayout" and atom.startswith("UniversalCopy"):
        spec = f"store:{spec}"
    tile = make_tile(rows, cols, None, elem)
    pattern = make_problem(rows, cols, [spec], elem_bytes=elem).patterns[0]
    r, c = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    per = pattern.phases_per_placement
    tile_rows, tile_cols = case_addresses(case)[1]
    instructions_per_tile = len(pattern.lane_row) // per // ((rows // tile_rows) * (cols // tile_cols))
    for layout in LAYOUTS:
        phys = r * tile.row_length + c if layout is None else layout.phys(tile, r, c)
        costs = simulate.simulate(tile, NVIDIA, [pattern], phys)[0].costs.reshape(-1, per).sum(axis=1)
        ours = [sorted(chunk) for chunk in costs.reshape(-1, instructions_per_tile).tolist()]
        assert ours == brute_force(case, tile, phys), (spec, layout)


def test_the_text_and_the_pycute_function_agree():
    spec = ("make_tiled_copy(Copy_Atom<UniversalCopy<uint128_t>, half_t>{}, Layout<Shape<_32,_4>,Stride<_4,_1>>{}, "
            "Layout<Shape<_1,_8>>{})")
    made = tiled.tiled_copy("UniversalCopy<uint128_t>", pycute.Layout((32, 4), (4, 1)), pycute.Layout((1, 8)))
    a, b = (make_problem(64, 64, [s], elem_bytes=2).patterns[0] for s in (spec, made))
    assert np.array_equal(a.lane_row, b.lane_row) and np.array_equal(a.lane_col, b.lane_col)
    # and the per-thread TiledCopy is the warp form of the same lanes: 4 x 8 threads of 8 halves a row
    warp = make_problem(64, 64, ["warp:8x4:1x8"], elem_bytes=2).patterns[0]
    doc = api.check("Swizzle<3,3,3>", rows=64, cols=64, dtype="f16", access=[spec, "warp:8x4:1x8"]).json()
    first, second = doc["answer"]["per_access"]
    assert first["total_wavefronts"] == second["total_wavefronts"] and warp.vector_bytes == a.vector_bytes


def test_an_ldmatrix_tiled_copy_whose_thread_values_are_not_one_row_is_refused_as_cute_would():
    """The brief's make_tiled_copy(LDSM_N, (32,4):(4,1), (1,8)): by CuTe's algebra thread 0's 8 values
    of one ldmatrix row are (0,0), (0,1), (0,8), ... (not one 16-byte run, which the atom's
    uint128_t source needs): refused in one line."""
    lanes, _ = cute_addresses("SM75_U32x4_LDSM_N", "SrcLayout", 0, pycute.Layout((32, 4), (4, 1)),
                              pycute.Layout((1, 8)), 16)
    assert lanes[0][0][:3] == [(0, 0), (0, 1), (0, 8)]
    run = solve("--rows", "32", "--cols", "32", "--dtype", "f16", "--access",
                _spec("SM75_U32x4_LDSM_N", "half_t", ((32, 4), (4, 1)), ((1, 8), (1, 1))))
    assert run.returncode == 2 and run.stdout == "" and len(run.stderr.strip().splitlines()) == 1
    assert "its value 2 is at (0, 8) after (0, 1)" in run.stderr


@pytest.mark.parametrize("spec,words", [
    ("make_tiled_copy(Layout<_32>{})", "write make_tiled_copy(Copy_Atom<ATOM, T>{}"),
    ("make_tiled_copy(Copy_Atom<SM75_U32x3_LDSM_N, half_t>{}, Layout<_32>{}, Layout<_8>{})", "not a CuTe copy atom"),
    ("make_tiled_copy(Copy_Atom<UniversalCopy<uint128_t>, float>{}, Layout<Shape<_32,_4>>{}, Layout<Shape<_1,_8>>{})",
     "the tile's elements are 2-byte"),
    ("make_tiled_copy(Copy_Atom<UniversalCopy<uint128_t>, half_t>{}, Layout<Shape<_32,_4>,Stride<_4,_0>>{}, "
     "Layout<Shape<_1,_8>>{})", "not a bijection"),
    ("make_tiled_copy(Copy_Atom<UniversalCopy<uint128_t>, half_t>{}, Layout<Shape<_16,_1>>{}, Layout<Shape<_1,_8>>{})",
     "whole warps"),
    ("make_tiled_copy(Copy_Atom<UniversalCopy<uint128_t>, half_t>{}, Layout<Shape<_32,_4>,Stride<_4,_1>>{}, "
     "Layout<Shape<_8,_1>>{})", "must be one run along a tile row"),
    ("make_tiled_copy(Copy_Atom<UniversalCopy<uint128_t>, half_t>{}, Layout<Shape<_32,_4>,Stride<_4,_1>>{}, "
     "Layout<Shape<_1,_8>,Stride<_1,_2>>{})", "not a bijection"),
    ("make_tiled_copy(Copy_Atom<UniversalCopy<uint128_t>, half_t>{}, Layout<Shape<_32,_4>,Stride<_4,_1>>{}, "
     "Layout<Shape<_1,_8>>{}, Layout<_1>{})", "write make_tiled_copy"),
    ("make_tiled_copy(Copy_Atom<UniversalCopy<uint128_t>, half_t>{}, Layout<Shape<_32,_4>,Stride<_4,_1>{}, "
     "Layout<Shape<_1,_8>>{})", "the thread layout"),
    ("load:make_tiled_copy(Copy_Atom<SM90_U32x4_STSM_N, half_t>{}, Layout<Shape<_8,_4>,Stride<_4,_1>>{}, "
     "Layout<Shape<_4,_2>,Stride<_2,_1>>{})", "the form is a store itself"),
    ("make_tiled_copy(Copy_Atom<UniversalCopy<uint8_t>, half_t>{}, Layout<Shape<_32,_4>,Stride<_4,_1>>{}, "
     "Layout<Shape<_1,_8>>{})", "moves 8 bits a thread, less than one half_t"),
    # the kernel's line pasted whole
    ("auto tiled_copy = make_tiled_copy(Copy_Atom<UniversalCopy<uint128_t>, half_t>{}, "
     "Layout<Shape<_32,_4>,Stride<_4,_1>>{}, Layout<Shape<_1,_8>>{});",
     "give the call alone, from make_tiled_copy( to its closing parenthesis (without 'auto tiled_copy =')"),
    ("TiledMMA mma = make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN{}, Layout<Shape<_2,_2>>{}):a",
     "give the call alone, from make_tiled_mma("),
])
def test_bad_spellings_are_one_line(spec, words):
    run = solve("--rows", "64", "--cols", "64", "--dtype", "f16", "--access", spec)
    assert run.returncode == 2 and run.stdout == "" and len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert words in run.stderr, run.stderr


def test_amd_refuses_in_one_line():
    spec = _spec("SM75_U32x4_LDSM_N", "half_t", ((8, 4), (4, 1)), ((4, 2), (2, 1)))
    run = solve("--rows", "64", "--cols", "64", "--dtype", "f16", "--arch", "gfx942", "--access", spec)
    assert run.returncode == 2 and len(run.stderr.strip().splitlines()) == 1 and "ldmatrix" in run.stderr
    per_thread = _spec("UniversalCopy<uint128_t>", "half_t", ((32, 4), (4, 1)), ((1, 8), (1, 1)))
    run = solve("--rows", "64", "--cols", "64", "--dtype", "f16", "--arch", "gfx942", "--access", per_thread)
    assert run.returncode == 2 and "warps of 32 threads" in run.stderr


def test_the_api_takes_pycute_layouts():
    copy = api.tiled_copy("SM75_U32x4_LDSM_N", pycute.Layout((8, 4), (4, 1)), pycute.Layout((4, 2), (2, 1)))
    assert copy.startswith("make_tiled_copy(Copy_Atom<SM75_U32x4_LDSM_N, half_t>{}")
    checked = api.check("Swizzle<3,3,3>", rows=64, cols=64, dtype="f16", access=[copy])
    typed = ("make_tiled_copy(Copy_Atom<SM75_U32x4_LDSM_N, half_t>{}, Layout<Shape<_8,_4>, Stride<_4,_1>>{}, "
             "Layout<Shape<_4,_2>, Stride<_2,_1>>{})")
    by_hand = api.check("Swizzle<3,3,3>", rows=64, cols=64, dtype="f16", access=[typed])
    ours, theirs = (c.json()["answer"]["per_access"][0] for c in (checked, by_hand))
    assert ours["spec"] == copy
    assert (ours["worst_wavefronts"], ours["total_wavefronts"]) == (theirs["worst_wavefronts"],
                                                                   theirs["total_wavefronts"])


# --- TiledMMA -----------------------------------------------------------------------------------

MMA = "SM80_16x8x16_F32F16F16F32_TN"


@pytest.mark.parametrize("operand,layout,warps", [
    ("a", "Layout<Shape<_2,_2>>{}", [(0, 0), (1, 0), (0, 1), (1, 1)]),
    ("b", "Layout<Shape<_2,_2>>{}", [(0, 0), (1, 0), (0, 1), (1, 1)]),
    ("c", "Layout<Shape<_2,_2>>{}", [(0, 0), (1, 0), (0, 1), (1, 1)]),
    ("c", "Layout<Shape<_2,_4,_1>,Stride<_4,_1,_0>>{}", [(w // 4, w % 4) for w in range(8)]),
    ("a", "Layout<Shape<_4,_1>>{}", [(w, 0) for w in range(4)]),
])
def test_tiled_mma_warps_move_their_blocks_of_the_atoms_fragment(operand, layout, warps):
    """Warp w (AtomLayoutMNK^-1(w) = (wm, wn), its threads 32w .. 32w + 31) moves the atom's fragment
    (CuTe's A/B/CLayout from the headers via pycute) of A block wm, B block wn, C block (wm, wn)."""
    from tests.test_mma_atoms import _cute_cells

    elem = 4 if operand == "c" else 2
    spec = f"make_tiled_mma({MMA}{{}}, {layout}):{operand}"
    p = make_problem(128, 64, [spec], elem_bytes=elem).patterns[0]
    lanes, (rows, cols) = _cute_cells(MMA, operand)
    per = p.phases_per_placement
    for w, (wm, wn) in enumerate(warps):
        br, bc = {"a": (wm, 0), "b": (wn, 0), "c": (wm, wn)}[operand]
        expected = sorted({(r + br * rows, c + bc * cols) for lane in lanes for r, c in lane})
        got = sorted({(r, c + k) for i in range(w * per, (w + 1) * per) for r, c, b in p.phase_lanes(i)
                      for k in range(b // elem)})
        assert got == expected, (spec, w)


def test_tiled_mma_counts_are_the_atoms_at_each_warps_block():
    """Every warp read costs what the atom's read at its block costs (each A block read by the
    2 warps that share it): the same counts, twice as many."""
    tile = make_tile(64, 64, None, 2)
    tiled_a = make_problem(64, 64, [f"make_tiled_mma({MMA}{{}}, Layout<Shape<_2,_2>>{{}}):a"], elem_bytes=2).patterns[0]
    atom_a = make_problem(64, 64, [f"{MMA}:a"], elem_bytes=2).patterns[0]
    r, c = np.meshgrid(np.arange(64), np.arange(64), indexing="ij")
    for layout in LAYOUTS:
        phys = r * 64 + c if layout is None else layout.phys(tile, r, c)
        ours, atoms = (simulate.simulate(tile, NVIDIA, [p], phys)[0].costs for p in (tiled_a, atom_a))
        assert sorted(ours.tolist()) == sorted(atoms.tolist() * 2), layout


@pytest.mark.parametrize("spec,words", [
    (f"make_tiled_mma({MMA}{{}}, Layout<Shape<_2,_2>>{{}})", "and the operand after it"),
    (f"make_tiled_mma({MMA}{{}}, Layout<Shape<_2,_2>>{{}}, Tile<_32,_32,_16>{{}}):a", "a permutation"),
    (f"make_tiled_mma({MMA}{{}}, Layout<Shape<_2,_2,_2>>{{}}):a", "a K mode of 1"),
    (f"make_tiled_mma({MMA}{{}}, Layout<Shape<_2,_2>,Stride<_1,_1>>{{}}):a", "not a bijection"),
    (f"make_tiled_mma({MMA}{{}}, Layout<Shape<_2,_2>>{{}}):d", "name the operand after the MMA atom"),
    (f"load:make_tiled_mma({MMA}{{}}, Layout<Shape<_2,_2>>{{}}):c", "the form is a store itself"),
])
def test_tiled_mma_refusals(spec, words):
    run = solve("--rows", "64", "--cols", "64", "--dtype", "f16", "--access", spec)
    assert run.returncode == 2 and run.stdout == "" and len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert words in run.stderr, run.stderr


@pytest.mark.parametrize("spec,op", [
    (_spec("SM75_U32x4_LDSM_N", "half_t", ((8, 4), (4, 1)), ((4, 2), (2, 1))), "ldmatrix"),
    (f"make_tiled_mma({MMA}{{}}, Layout<Shape<_2,_2>>{{}}):a", "ld.shared.b32"),
])
def test_a_probe_is_written_and_predicts_the_solves_total(spec, op, tmp_path):
    """`swizzle-solve probe` reads the forms (it registers their readers as the solve does) and
    predicts the solve's own total for the layout."""
    import json

    from swizzle_solver.cli import main

    out = tmp_path / "p"
    assert main(["probe", "--rows", "64", "--cols", "64", "--dtype", "f16", "--access", spec,
                 "--check", "Swizzle<3,3,3>", "--target", "cuda", "-o", str(out)]) == 0
    kernel = json.loads((out / "prediction.json").read_text())["kernels"][0]
    checked = api.check("Swizzle<3,3,3>", rows=64, cols=64, dtype="f16", access=[spec]).json()
    assert kernel["op"].startswith(op)
    assert kernel["access_total_wavefronts"] == checked["answer"]["per_access"][0]["total_wavefronts"]
