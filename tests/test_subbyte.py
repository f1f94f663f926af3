"""Sub-byte elements (--dtype fp4, e2m1, i4, u4: two per byte), solved as their packed bytes
(access/subbyte.py): counts against a per-byte brute force of the same accesses written in 4-bit
elements, the 4-bit MMA fragments against CuTe's, and what the outputs say of the element size."""
import json

import numpy as np
import pytest

from swizzle_solver import api, simulate
from swizzle_solver.access import make_problem
from swizzle_solver.cli import main
from swizzle_solver.families.cute import Swizzle
from swizzle_solver.model import InputError

LAYOUTS = [None, Swizzle(3, 4, 3), Swizzle(2, 4, 3), Swizzle(3, 3, 4), Swizzle(1, 4, 3), Swizzle(3, 2, 5)]


def _brute_force_blocks(m: int, n: int, s: int, rows: int, cols: int, phys_byte) -> list[int]:
    """An m x n:s block of 4-bit elements at every aligned placement of a rows x cols tile of them:
    the bytes its elements lie in (element c in byte c // 2), each a 4-byte word of the layout's
    byte address; one placement is one phase, costing the most distinct words in one bank."""
    costs = []
    for band in range(0, rows, m * s):
        for group in range(s):
            for c0 in range(0, cols - n + 1, n):
                banks: dict[int, set[int]] = {}
                for i in range(m):
                    for c in range(c0, c0 + n):
                        word = int(phys_byte[band + group + i * s, c // 2]) // 4
                        banks.setdefault(word % 32, set()).add(word)
                costs.append(max(map(len, banks.values())))
    return costs


@pytest.mark.parametrize("spec,m,n,s", [("8x32", 8, 32, 1), ("4x64", 4, 64, 1), ("8x16:2", 8, 16, 2),
                                        ("16x8", 16, 8, 1), ("32x2", 32, 2, 1)])
@pytest.mark.parametrize("dtype", ["fp4", "e2m1", "i4", "u4", "torch.float4_e2m1fn"])
def test_block_counts_are_the_per_byte_brute_force(spec, m, n, s, dtype):
    rows, cols = 64, 256
    problem = api.problem(rows, cols, [spec], dtype=dtype)
    tile = problem.tile
    assert (tile.cols, tile.row_length, tile.elem_bytes, tile.elem_bits) == (128, 128, 1, 4)
    r, c = np.meshgrid(np.arange(tile.rows), np.arange(tile.cols), indexing="ij")
    for layout in LAYOUTS:
        phys = r * tile.row_length + c if layout is None else layout.phys(tile, r, c)
        ours = simulate.simulate(tile, problem.hardware, problem.patterns, phys)[0].costs
        assert sorted(ours.tolist()) == sorted(_brute_force_blocks(m, n, s, rows, cols, phys)), (spec, layout)


@pytest.mark.parametrize("packed,byte", [("8x32", "8x16"), ("warp:4x8:1x32", "warp:4x8:1x16"),
                                         ("warp:8x4:1x8v4", "warp:8x4:1x4v4"), ("ldmatrix.x4", "ldmatrix.x4"),
                                         ("cp.async", "cp.async"), ("row", "row"), ("mma-a:m16n8k64", "mma-a:m16n8k32"),
                                         ("mma-b:m16n8k32:mn", "mma-b:m16n8k16:mn")])
def test_an_access_of_4_bit_elements_is_that_access_of_the_bytes(packed, byte):
    four = make_problem(32, 256, [packed], elem_bytes=1, elem_bits=4).patterns[0]
    eight = make_problem(32, 128, [byte], elem_bytes=1).patterns[0]
    assert four.spec == packed
    for name in ("lane_row", "lane_col", "lane_bytes"):
        assert np.array_equal(getattr(four, name), getattr(eight, name))


@pytest.mark.parametrize("operand", ["a", "b"])
@pytest.mark.parametrize("shape,trait", [("m16n8k32", "SM80_16x8x32_S32S4S4S32_TN"),
                                         ("m16n8k64", "SM80_16x8x64_S32S4S4S32_TN")])
def test_4_bit_fragments_are_cutes(shape, trait, operand):
    """Each 32-bit load of a lane reads the bytes of 8 consecutive 4-bit elements of one row, as
    CuTe's ALayout/BLayout of the s4 atoms place them (m + 16 k, n + 8 k in 4-bit elements)."""
    from test_fragments import cute_operand, pycute

    height = 16 if operand == "a" else 8
    k = int(shape.split("k")[1])
    p = make_problem(height, k, [f"mma-{operand}:{shape}"], elem_bytes=1, elem_bits=4).patterns[0]
    assert p.placements == p.phases_per_placement  # one placement: the whole operand
    layout = pycute.Layout(*cute_operand(trait, operand))
    per_lane = pycute.size(layout) // 32
    if (shape, operand) == ("m16n8k32", "b"):
        # CUTLASS 4.2.0's SM80_16x8x32_S32S4S4S32_TN BLayout strides the thread in the group by 32
        # (k = 4 t + i), which maps two lanes to the same elements and leaves others unread: not a
        # fragment. The PTX ISA (9.7.14.5.10, .s4/.u4 B: row = threadID_in_group * 8 + i) is what
        # this form follows; the A layout of the same atom and both of m16n8k64 agree with it.
        images = [layout(lane, v) for lane in range(32) for v in range(per_lane)]
        assert len(set(images)) < len(images)
        layout = pycute.Layout(((4, 8), 8), ((64, 1), 8))  # k = 8 t + i: the PTX ISA's
    for lane in range(32):
        cute_bytes = set()
        for v in range(per_lane):
            kk, row = divmod(layout(lane, v), height)
            cute_bytes.add((row, kk // 2))
        ours = set()
        for phase in range(p.phases_per_placement):
            r, c, nbytes = int(p.lane_row[phase, lane]), int(p.lane_col[phase, lane]), int(p.lane_bytes[phase, lane])
            ours |= {(r, c + b) for b in range(nbytes)}
        assert ours == cute_bytes, lane


def test_json_and_report_state_the_element_size(capsys):
    main(["--rows", "64", "--cols", "256", "--dtype", "fp4", "--access", "8x32", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert {k: doc["problem"][k] for k in ("cols", "row_length", "elem_bytes", "elem_bits")} == {
        "cols": 128, "row_length": 128, "elem_bytes": 1, "elem_bits": 4}
    main(["--rows", "64", "--cols", "256", "--dtype", "fp4", "--access", "8x32"])
    out = " ".join(capsys.readouterr().out.split())
    assert "64 x 256 elements of 4 bits, 2 a byte: solved as 64 x 128 bytes" in out
    main(["--rows", "64", "--cols", "128", "--dtype", "u8", "--access", "8x16", "--json"])
    assert "elem_bits" not in json.loads(capsys.readouterr().out)["problem"]  # whole bytes: as before


def test_same_answer_as_the_byte_tile():
    four = api.solve(rows=64, cols=256, access=["8x32", "warp:4x8:1x32"], dtype="fp4")
    eight = api.solve(rows=64, cols=128, access=["8x16", "warp:4x8:1x16"], dtype="u8")
    assert four.answered.answer.layout.name == eight.answered.answer.layout.name


@pytest.mark.parametrize("args,why", [
    (["--cols", "127", "--access", "8x32"], "--cols 127 of 4-bit elements is not a whole number of bytes"),
    (["--cols", "128", "--row-length", "129", "--access", "8x32"], "--row-length 129 of 4-bit elements"),
    (["--cols", "128", "--access", "8x33"], "33 4-bit elements a row is not a whole number of bytes"),
    (["--cols", "128", "--access", "warp:4x8:1x1"], "1 4-bit elements a row"),
    (["--cols", "128", "--access", "mma-a:m16n8k16"], "PTX has no mma.sync.m16n8k16 on 4-bit elements"),
    (["--cols", "128", "--access", "mma-c:m16n8"], "the accumulator is never 4-bit"),
    (["--cols", "128", "--access", "mfma-a:16x16x32", "--arch", "gfx950"], "ds_read_b128:32x2:1x32:down"),
    (["--cols", "128", "--access", "8x32", "--dtype", "fp6"], "packed 6-bit elements"),
    (["--cols", "128", "--access", "8x32", "--dtype", "e3m2"], "use --dtype b6x16_p32"),
    (["--cols", "128", "--access", "8x32:2", "--order", "col"], "packed 2 a byte down a column, so rows 2 apart"),
    (["--rows", "63", "--cols", "128", "--access", "8x32", "--order", "col"], "--rows 63 of 4-bit elements"),
    (["--cols", "128", "--row-length", "65", "--access", "8x32", "--order", "col"], "--row-length 65 of 4-bit"),
    (["--cols", "128", "--access", "7x32", "--order", "col"], "7 4-bit elements a row is not a whole number"),
])
def test_bad_sub_byte_input(args, why, capsys):
    argv = ([] if "--rows" in args else ["--rows", "64"]) + [*args] + ([] if "--dtype" in args else ["--dtype", "fp4"])
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and why in err and err.count("\n") == 1


def test_make_problem_refuses_half_bytes_directly():
    with pytest.raises(InputError, match="not a whole number of bytes"):
        make_problem(16, 64, ["4x3"], elem_bytes=1, elem_bits=4)


# --- --order col: packed down a column --------------------------------------------------------------


def _brute_force_col_blocks(m: int, n: int, rows: int, cols: int, phys_byte) -> list[int]:
    """An m x n block of 4-bit elements of a column-major rows x cols tile (element (r, c) in byte
    (c, r // 2) of the stored bytes, phys_byte[stored row, stored byte]) at every aligned placement,
    one phase each: the most distinct 4-byte words in one bank."""
    costs = []
    for c0 in range(0, cols, n):
        for r0 in range(0, rows, m):
            banks: dict[int, set[int]] = {}
            for r in range(r0, r0 + m):
                for c in range(c0, c0 + n):
                    word = int(phys_byte[c, r // 2]) // 4
                    banks.setdefault(word % 32, set()).add(word)
            costs.append(max(map(len, banks.values())))
    return costs


@pytest.mark.parametrize("m,n", [(32, 8), (16, 16), (8, 32), (64, 4), (2, 64)])
def test_col_block_counts_are_the_element_brute_force_and_the_transposed_problem(m, n):
    """--order col with fp4: each block is one 128-byte phase, counted element by element on the
    column-major tile, and equal to the row-order problem of the transposed tile and access."""
    rows, cols = 256, 64
    col = api.problem(rows, cols, [f"{m}x{n}"], dtype="fp4", order="col")
    row = api.problem(cols, rows, [f"{n}x{m}"], dtype="fp4")
    tile = col.tile
    assert (tile.rows, tile.cols, tile.row_length, tile.elem_bits, tile.order) == (64, 128, 128, 4, "col")
    assert (row.tile.rows, row.tile.cols) == (tile.rows, tile.cols)
    r, c = np.meshgrid(np.arange(tile.rows), np.arange(tile.cols), indexing="ij")
    for layout in LAYOUTS:
        phys = r * tile.row_length + c if layout is None else layout.phys(tile, r, c)
        ours = simulate.simulate(tile, col.hardware, col.patterns, phys)[0].costs
        transposed = simulate.simulate(row.tile, row.hardware, row.patterns, phys)[0].costs
        assert np.array_equal(ours, transposed), layout
        assert sorted(ours.tolist()) == sorted(_brute_force_col_blocks(m, n, rows, cols, phys)), (m, n, layout)


def test_col_report_and_json_count_the_packed_rows(capsys):
    main(["--rows", "256", "--cols", "64", "--dtype", "fp4", "--order", "col", "--access", "32x8", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert {k: doc["problem"][k] for k in ("rows", "cols", "row_length", "elem_bits", "order")} == {
        "rows": 128, "cols": 64, "row_length": 128, "elem_bits": 4, "order": "col"}
    assert doc["problem"]["accesses"][0]["footprint"].startswith("32 rows x 8 columns = 8 columns x 16 bytes")
    main(["--rows", "256", "--cols", "64", "--dtype", "fp4", "--order", "col", "--access", "32x8"])
    out = " ".join(capsys.readouterr().out.split())
    assert "256 x 64 elements of 4 bits, 2 a byte down a column (--order col): solved as 128 x 64 bytes" in out


@pytest.mark.parametrize("dtype", ["int4", "uint4", "INT4"])
def test_cudas_vector_int4_is_refused_as_ambiguous(dtype):
    """CUDA's int4/uint4 are 16-byte vectors, CUTLASS's int4b_t a 4-bit integer (issue 34): the bare
    name is refused in one line naming both readings, never guessed; the prefixed ones stay 4-bit."""
    from tests.clirun import solve

    run = solve("--rows", "8", "--cols", "8", "--dtype", dtype, "--access", "8x2", "-q")
    assert run.returncode == 2 and run.stdout == "" and run.stderr.count("\n") == 1
    assert "ambiguous" in run.stderr and "i4" in run.stderr and "--elem-bytes 16" in run.stderr
    assert solve("--rows", "8", "--cols", "8", "--dtype", "cutlass::int4b_t", "--access", "8x2", "-q").returncode == 0
