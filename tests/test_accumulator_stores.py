"""mma-c:m16n8vB: the m16n8 accumulator stored a register pair (the default) or one register (the
scalar store, e.g. mma-c:m16n8v4 on f32) at a time (access/warp.py), against a per-lane brute force
written here from the PTX ISA's accumulator fragment (c0 c1 at row l/4, columns 2(l%4) + {0, 1};
c2 c3 eight rows below) with NVIDIA's phase rule (tests/nvidia_banks.py)."""
import numpy as np
import pytest

from swizzle_solver import simulate
from swizzle_solver.access import make_hardware, make_tile, parse_access
from swizzle_solver.families.cute import Swizzle
from tests import nvidia_banks
from tests.clirun import solve

NVIDIA = make_hardware()
LAYOUTS = [None, Swizzle(3, 3, 3), Swizzle(2, 3, 3), Swizzle(2, 2, 3), Swizzle(1, 1, 4)]


def brute_force(elem: int, width: int, tile, phys) -> list[list[int]]:
    """Per 16 x 8 placement (row-major), the sorted wavefronts of each store (one per register, or
    per register pair), each a warp request of ``width``-byte lanes."""
    out = []
    for r0 in range(0, tile.rows, 16):
        for c0 in range(0, tile.cols, 8):
            costs = []
            for register in range(0, 4, width // elem):
                row, col = 8 * (register // 2), register % 2
                starts = [int(phys[r0 + row + lane // 4, c0 + 2 * (lane % 4) + col]) * elem for lane in range(32)]
                costs.append(nvidia_banks.instruction_cost(starts, width, load=False)[0])
            out.append(sorted(costs))
    return out


@pytest.mark.parametrize("elem,width", [(4, 4), (4, 8), (2, 2), (2, 4)])
def test_counts_are_the_brute_force(elem, width):
    tile = make_tile(32, 64, None, elem)
    pattern = parse_access(f"mma-c:m16n8v{width}", tile, NVIDIA)
    assert pattern.vector_bytes == width and pattern.kind == "mma-c"
    r, c = np.meshgrid(np.arange(tile.rows), np.arange(tile.cols), indexing="ij")
    per_store = pattern.phases_per_placement // (4 // (width // elem))
    for layout in LAYOUTS:
        phys = r * tile.row_length + c if layout is None else layout.phys(tile, r, c)
        costs = simulate.simulate(tile, NVIDIA, [pattern], phys)[0].costs
        stores = costs.reshape(-1, per_store).sum(axis=1).reshape(-1, 4 // (width // elem))
        assert [sorted(x) for x in stores.tolist()] == brute_force(elem, width, tile, phys), (width, layout)


@pytest.mark.parametrize("elem", [2, 4])
def test_the_default_is_the_register_pair(elem):
    tile = make_tile(64, 64, None, elem)
    plain, pair = parse_access("mma-c:m16n8", tile, NVIDIA), parse_access(f"mma-c:m16n8v{2 * elem}", tile, NVIDIA)
    assert np.array_equal(plain.lane_row, pair.lane_row) and np.array_equal(plain.lane_col, pair.lane_col)
    assert np.array_equal(plain.lane_bytes, pair.lane_bytes)


def test_the_scalar_store_conflicts_where_the_pair_does_not():
    """f32 at pitch 64: a register's 32 lanes are 8 rows x 4 columns two apart (8-way unswizzled);
    Swizzle<2,3,3>, conflict-free for the pairs, leaves the scalar stores 2-way: the tool says so."""
    pair = solve("--rows", "64", "--cols", "64", "--dtype", "f32", "--access", "mma-c:m16n8",
                 "--check", "Swizzle<2,3,3>", "-q")
    scalar = solve("--rows", "64", "--cols", "64", "--dtype", "f32", "--access", "mma-c:m16n8v4",
                   "--check", "Swizzle<2,3,3>", "-q")
    assert pair.returncode == 0 and scalar.returncode == 1, (pair.stdout, scalar.stdout)
    tile = make_tile(64, 64, None, 4)
    r, c = np.meshgrid(np.arange(64), np.arange(64), indexing="ij")
    assert max(max(x) for x in brute_force(4, 4, tile, Swizzle(2, 3, 3).phys(tile, r, c))) == 2
    assert max(max(x) for x in brute_force(4, 4, tile, r * 64 + c)) == 8


@pytest.mark.parametrize("spec,dtype,words", [
    ("mma-c:m16n8v16", "f32", "not 16 B"), ("mma-c:m16n8v2", "f32", "not 2 B"),
    ("mma-c:m16n8v8", "f16", "not 8 B"), ("mma-c:m16n4", "f32", "mma-c:m16n8"),
])
def test_bad_widths_are_one_line(spec, dtype, words):
    run = solve("--rows", "64", "--cols", "64", "--dtype", dtype, "--access", spec)
    assert run.returncode == 2 and run.stdout == "" and len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert words in run.stderr, run.stderr


def test_vectors_auto_takes_the_width_as_its_cap():
    run = solve("--rows", "64", "--cols", "64", "--dtype", "f32", "--access", "mma-c:m16n8v4", "--vectors", "auto",
                "--json")
    assert run.returncode == 0, run.stderr
