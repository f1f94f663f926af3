"""index: and offset: accesses (swizzle_solver/indexed.py), stated from public kernels' source lines.

Each count is checked against a per-lane brute force written here from the source's own formula
and DESIGN.md section 1's rules (a warp's 4-byte lanes are one phase, 16-byte lanes four phases of
8 consecutive lanes; a phase costs the most distinct 4-byte words in one of the 32 banks; an
instruction costs the sum of its phases), not the tool's simulator.
"""
import numpy as np
import pytest

from swizzle_solver import api
from swizzle_solver.access import make_tile
from swizzle_solver.cli import main
from swizzle_solver.families.cute import Swizzle

TILE_DIM, BLOCK_ROWS = 32, 8  # cuda-samples 6_Performance/transpose: __shared__ float tile[TILE_DIM][TILE_DIM+1]


def _cost(words_by_phase: list[list[int]]) -> int:
    """One instruction: the sum over its phases of the most distinct words in one bank."""
    total = 0
    for words in words_by_phase:
        banks: dict[int, set[int]] = {}
        for w in words:
            banks.setdefault(w % 32, set()).add(w)
        total += max(map(len, banks.values()))
    return total


def _per_instruction(check) -> tuple[int, int]:
    (a,) = check.json()["answer"]["per_access"]
    return a["worst_wavefronts"], a["total_wavefronts"]


def _transpose_brute_force(pitch: int, read: bool, phys=None) -> list[int]:
    """Every warp instruction of the transposeCoalesced kernel's shared copy: thread (x, y) of the
    32 x 8 block, loop j = 0, 8, 16, 24; the write tile[threadIdx.y + j][threadIdx.x], the read
    tile[threadIdx.x][threadIdx.y + j]; element (r, c) at word r * pitch + c (or phys[r, c])."""
    costs = []
    for j in range(0, TILE_DIM, BLOCK_ROWS):
        for warp in range(TILE_DIM * BLOCK_ROWS // 32):
            words = []
            for lane in range(32):
                tid = warp * 32 + lane
                x, y = tid % TILE_DIM, tid // TILE_DIM
                r, c = (x, y + j) if read else (y + j, x)
                words.append(int(phys[r, c]) if phys is not None else r * pitch + c)
            costs.append(_cost([words]))
    return costs


WRITE = "index: row = threadIdx.y + j, col = threadIdx.x; j in 0..TILE_DIM step BLOCK_ROWS; TILE_DIM = 32; " \
        "BLOCK_ROWS = 8; block 32x8; store"
READ = "index: row = threadIdx.x, col = threadIdx.y + j; j in 0..TILE_DIM step BLOCK_ROWS; TILE_DIM = 32; " \
       "BLOCK_ROWS = 8; block 32x8"


@pytest.mark.parametrize("pitch", [TILE_DIM + 1, TILE_DIM])
@pytest.mark.parametrize("spec,read", [(WRITE, False), (READ, True)])
def test_cuda_samples_transpose(spec, read, pitch):
    check = api.check("none", rows=TILE_DIM, cols=TILE_DIM, row_length=pitch, access=[spec])
    expected = _transpose_brute_force(pitch, read)
    assert _per_instruction(check) == (max(expected), sum(expected))
    assert check.json()["answer"]["per_access"][0]["counter"] == {
        f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{'ld' if read else 'st'}.sum": sum(expected),
        f"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{'ld' if read else 'st'}.sum": sum(expected) - 32}


def test_the_index_composes_with_the_layout_under_test():
    """An index: access is the tile's (r, c): a swizzle under test moves its elements."""
    tile = make_tile(TILE_DIM, TILE_DIM, None, 4)
    r, c = np.meshgrid(np.arange(TILE_DIM), np.arange(TILE_DIM), indexing="ij")
    layout = Swizzle(5, 0, 5)
    expected = _transpose_brute_force(TILE_DIM, True, layout.phys(tile, r, c))
    check = api.check(layout.name, rows=TILE_DIM, cols=TILE_DIM, access=[READ])
    assert _per_instruction(check) == (max(expected), sum(expected)) == (1, 32)


# SGEMM_CUDA kernel 8 (siboehm), the As store: BM = 128, BK = 8, 256 threads;
#   const uint innerRowA = threadIdx.x / (BK / 4); const uint innerColA = threadIdx.x % (BK / 4);
#   As[(innerColA * 4 + 0) * BM + innerRowA] = tmp.x; ... + 1 ... tmp.y; (+ 2, + 3)
SGEMM_AS = ("offset: (innerColA * 4 + j) * BM + innerRowA; innerRowA = threadIdx.x / (BK / 4); "
            "innerColA = threadIdx.x % (BK / 4); BM = 128; BK = 8; j in 0..4; block 256; store")


def test_sgemm_kernel8_as_store():
    bm, bk = 128, 8
    costs = []
    for j in range(4):
        for warp in range(256 // 32):
            words = []
            for lane in range(32):
                t = warp * 32 + lane
                words.append((t % (bk // 4) * 4 + j) * bm + t // (bk // 4))
            costs.append(_cost([words]))
    check = api.check("none", rows=bk, cols=bm, access=[SGEMM_AS])
    assert _per_instruction(check) == (max(costs), sum(costs)) == (2, 64)  # the 2-way conflict the issue reports
    doc = check.json()
    assert "_op_st" in next(iter(doc["answer"]["per_access"][0]["counter"]))


def test_vector_lanes_are_split_into_quarter_warp_phases():
    """v4 on f32: 16-byte lanes, four phases of 8 consecutive lanes (DESIGN.md section 1)."""
    spec = "index: row = tid / 4, col = tid % 4 * 4 + 16 * (tid / 4 % 2); block 64; v4"
    costs = []
    for warp in range(2):
        lanes = []
        for lane in range(32):
            t = warp * 32 + lane
            lanes.append((t // 4) * 32 + t % 4 * 4 + 16 * (t // 4 % 2))
        phases = [[w // 1 + e for w in lanes[8 * q:8 * q + 8] for e in range(4)] for q in range(4)]
        costs.append(_cost(phases))
    check = api.check("none", rows=16, cols=32, access=[spec])
    assert _per_instruction(check) == (max(costs), sum(costs))
    (p,) = api.problem(16, 32, [spec]).patterns
    assert p.op == "lds128" and p.instruction_phases == 4


@pytest.mark.parametrize("spec,words", [
    ("index: row = tid, col = k; block 32", "unknown name 'k'"),
    ("index: row = tid / (lane - lane), col = 0; block 32", "divides by zero at threadIdx = (0, 0, 0)"),
    ("index: row = 0, col = i; i in 0..100000; block 32", "more than 16384"),
    ("index: row = 0, col = i; i in 0..4096; block 1024", "warp instructions (loops x warps) is more than"),
    ("index: row = tid; block 32", "col is not given"),
    ("index: row = tid, col = 0; block 48", "is not whole warps of 32 lanes"),
    ("index: row = tid, col = 0; block 64", "element (32, 0) at threadIdx = (32, 0, 0) is outside the 32 x 32 tile"),
    ("offset: tid * 40; block 32", "offset 1040 at threadIdx = (26, 0, 0) is outside"),
    ("index: row = tid, col = 0; frobnicate", "'frobnicate' is not a clause"),
    ("index: row = a, col = 0; a = b; b = a", "'a' is defined in terms of itself"),
    ("index: row = 0, col = i; i in 0..tid", "a loop's range is a constant"),
    ("index: row = tid, col = 0; sts32; load", "sts32 is a store, not a load"),
    # the source's own spellings a newcomer pastes: the subscript, CUDA's index misnamed
    ("index: tile[threadIdx.x][threadIdx.y + j]; j in 0..32 step 8; block 32x8",
     "is a subscript: write the index itself, index: row = threadIdx.x, col = threadIdx.y + j;"),
    ("offset: As[tid * 32]; block 32", "is a subscript: write the index itself, offset: tid * 32;"),
    ("index: row = tid.x, col = tid.y; block 32", "unknown name 'tid.x': the thread's index is threadIdx.x"),
])
def test_bad_input_is_one_line(spec, words, capsys):
    code = main(["--rows", "32", "--cols", "32", "--access", spec])
    out = capsys.readouterr()
    assert code == 2 and out.out == "" and len(out.err.strip().splitlines()) == 1, out.err
    assert words in out.err, out.err


def test_a_batch_case_states_the_access_from_the_source(tmp_path, capsys):
    (tmp_path / "cases.toml").write_text(
        '[[case]]\nname = "transpose read"\nrows = 32\ncols = 32\nrow_length = 33\n'
        f'access = ["{READ}"]\ncheck = "none"\n')
    assert main(["batch", str(tmp_path / "cases.toml"), "--json"]) == 0, capsys.readouterr().err
    assert "transpose read" in capsys.readouterr().out


def test_long_specs_are_labelled_in_the_tables_and_printed_whole_once():
    from tests import clirun

    got = clirun.solve("--rows", "32", "--cols", "32", "--row-length", "33", "--access", WRITE, "--access", READ,
                       "--check", "none", env={"COLUMNS": "80"})  # in this process, 80 columns
    assert got.returncode == 0, got.stderr
    out = got.stdout
    assert out.count(f"[a1] {WRITE}\n") == 1 and out.count(f"[a2] {READ}\n") == 1
    checked = out[out.index("Checked layout"):out.index("cells: worst")]
    assert "(part" not in checked and "index: … [a1]" in checked
