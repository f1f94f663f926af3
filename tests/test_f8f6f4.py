"""gfx950's f8f6f4 MFMAs on fp4 operands: mfma-a/mfma-b:16x16x128 and :32x32x64 with --dtype fp4
(access/subbyte.py). Oracles: the lane maps of the sources docs/hardware.md cites, written here as
they state them (AMD's ROCm blog kernel for 32x32x64 fp4: ``A + (t % 32) * 32 + (t / 32) * 16``
bytes, 16 bytes a lane; Modular's mxfp4_matmul_amd for 16x16x128: ``lane_row = lane % 16,
lane_chunk = lane / 16, offset = lane_row * row_stride + lane_chunk * 16``); the counts from a
per-lane brute force with gfx950's ds_read_b128 cell (hardware.py's phase lane lists and bank count,
the counter written here)."""
import numpy as np
import pytest

from swizzle_solver import api, simulate
from swizzle_solver.access import make_tile
from swizzle_solver.families.cute import Swizzle
from swizzle_solver.hardware import target
from tests.clirun import solve

GFX950 = target("gfx950")
RULE = GFX950.rule("ds_read_b128")


def sources_lanes(shape: str) -> list[tuple[int, int]]:
    """(row, first byte) of each of the 64 lanes' 16-byte read, as the cited sources write it."""
    if shape == "32x32x64":  # AMD blog: ldg_a = A + (threadIdx.x % 32) * 32 + (threadIdx.x / 32) * 16 (fp4x2 bytes)
        return [divmod((t % 32) * 32 + (t // 32) * 16, 32) for t in range(64)]
    return [(lane % 16, (lane // 16) * 16) for lane in range(64)]  # Modular: lane_row, lane_chunk * 16


def brute_force(shape, tile, phys) -> list[int]:
    """Per placement (row-major over the packed bytes), the wavefronts of its one ds_read_b128: each
    phase (hardware.py's lane lists for the cell) costs the most distinct 4-byte words in a bank."""
    m = int(shape.split("x")[0])
    width = 64 // m * 16  # bytes of the footprint's row
    lanes = sources_lanes(shape)
    out = []
    for r0 in range(0, tile.rows, m):
        for c0 in range(0, tile.cols, width):
            total = 0
            for phase in RULE.phases:
                banks: dict[int, set[int]] = {}
                for lane in phase:
                    r, c = lanes[lane]
                    for b in range(0, 16, 4):
                        word = int(phys[r0 + r, c0 + c + b]) // 4  # bytes: 1-byte elements of the packed tile
                        banks.setdefault(word % RULE.banks, set()).add(word)
                total += max(map(len, banks.values()))
            out.append(total)
    return out


@pytest.mark.parametrize("shape", ["16x16x128", "32x32x64"])
@pytest.mark.parametrize("operand", ["a", "b"])
def test_lanes_are_the_sources(shape, operand):
    m = int(shape.split("x")[0])
    p = api.problem(m, 128 if m == 16 else 64, [f"mfma-{operand}:{shape}"], dtype="fp4", arch="gfx950").patterns[0]
    assert p.op == "ds_read_b128" and p.vector_bytes == 16
    lanes = sorted((r, c) for i in range(p.instruction_phases) for r, c, _ in p.phase_lanes(i))
    assert lanes == sorted(sources_lanes(shape))


@pytest.mark.parametrize("shape", ["16x16x128", "32x32x64"])
def test_counts_are_the_brute_force(shape):
    p = api.problem(64, 256, [f"mfma-a:{shape}"], dtype="fp4", arch="gfx950").patterns[0]
    tile = make_tile(64, 128, None, 1)  # the packed bytes
    r, c = np.meshgrid(np.arange(64), np.arange(128), indexing="ij")
    for layout in (None, Swizzle(3, 4, 3), Swizzle(2, 4, 3), Swizzle(2, 5, 3), Swizzle(3, 4, 4)):
        phys = r * 128 + c if layout is None else layout.phys(tile, r, c)
        costs = simulate.simulate(tile, GFX950, [p], phys)[0].costs
        ours = costs.reshape(-1, p.instruction_phases).sum(axis=1).tolist()
        assert ours == brute_force(shape, tile, phys), (shape, layout)


def test_the_same_as_the_ds_read_it_stands_for():
    fp4 = solve("--arch", "gfx950", "--rows", "64", "--cols", "256", "--dtype", "fp4", "--access", "mfma-a:16x16x128",
                "-q")
    u8 = solve("--arch", "gfx950", "--rows", "64", "--cols", "128", "--dtype", "u8", "--access",
               "ds_read_b128:16x4:1x16:down", "-q")
    assert fp4.returncode == u8.returncode == 0 and fp4.stdout == u8.stdout


@pytest.mark.parametrize("args,words", [
    (["--arch", "gfx942", "--dtype", "fp4", "--access", "mfma-a:16x16x128"], "use --arch gfx950"),
    (["--arch", "gfx950", "--dtype", "e4m3", "--access", "mfma-a:16x16x128"], "no source here states the others'"),
    (["--arch", "gfx950", "--dtype", "f16", "--access", "mfma-b:32x32x64"], "no source here states the others'"),
    (["--arch", "gfx942", "--dtype", "e4m3", "--access", "mfma-a:32x32x64"], "use --arch gfx950"),
    (["--arch", "nvidia", "--dtype", "fp4", "--access", "mfma-b:32x32x64"], "has no MFMA operand reads"),
    (["--arch", "gfx950", "--dtype", "fp4", "--access", "mfma-a:16x16x64"], "ds_read_b128:32x2:1x32:down"),
])
def test_refusals_are_one_line(args, words):
    run = solve("--rows", "64", "--cols", "256", *args)
    assert run.returncode == 2 and run.stdout == "" and len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert words in run.stderr, run.stderr


# --- 8-bit operands: 32x32x64 only -----------------------------------------------------------------


def blog_fp8_lanes() -> list[list[tuple[int, int]]]:
    """AMD's blog, FP8 32x32x64: ldg_a = A + (t % 32) * 64 + (t / 32) * 16; a_reg[i * 16 + j] =
    ldg_a[i * 32 + j]: per read i, each lane's (row, first byte) of its 16 bytes."""
    return [[divmod((t % 32) * 64 + (t // 32) * 16 + i * 32, 64) for t in range(64)] for i in range(2)]


@pytest.mark.parametrize("operand", ["a", "b"])
def test_fp8_32x32x64_lanes_are_amds(operand):
    p = api.problem(32, 64, [f"mfma-{operand}:32x32x64"], dtype="e4m3", arch="gfx950").patterns[0]
    assert p.op == "ds_read_b128" and p.placements == 2 * p.instruction_phases and p.vector_bytes == 16
    for i, reads in enumerate(blog_fp8_lanes()):
        lanes = sorted((r, c) for k in range(i * p.instruction_phases, (i + 1) * p.instruction_phases)
                       for r, c, _ in p.phase_lanes(k))
        assert lanes == sorted(reads)


def test_fp8_counts_are_the_brute_force():
    p = api.problem(64, 128, ["mfma-a:32x32x64"], dtype="e4m3", arch="gfx950").patterns[0]
    tile = make_tile(64, 128, None, 1)
    r, c = np.meshgrid(np.arange(64), np.arange(128), indexing="ij")
    for layout in (None, Swizzle(3, 4, 3), Swizzle(2, 4, 4), Swizzle(3, 4, 4)):
        phys = r * 128 + c if layout is None else layout.phys(tile, r, c)
        ours = simulate.simulate(tile, GFX950, [p], phys)[0].costs.reshape(-1, p.instruction_phases).sum(axis=1)
        expected = []
        for r0 in range(0, 64, 32):
            for c0 in range(0, 128, 64):
                for reads in blog_fp8_lanes():
                    total = 0
                    for phase in RULE.phases:
                        banks: dict[int, set[int]] = {}
                        for lane in phase:
                            rr, cc = reads[lane]
                            for b in range(0, 16, 4):
                                word = int(phys[r0 + rr, c0 + cc + b]) // 4
                                banks.setdefault(word % RULE.banks, set()).add(word)
                        total += max(map(len, banks.values()))
                    expected.append(total)
        assert ours.tolist() == expected, layout
