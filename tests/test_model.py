"""The model of DESIGN.md section 1: access grammar, vector widths, placements, lower bounds, and
every bad input raising InputError with one line. Expected values are worked out by hand here."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swizzle_solver.access import (
    elem_bytes_of,
    make_hardware,
    make_problem,
    make_tile,
    parse_access,
)
from swizzle_solver.model import MAX_STORAGE_BYTES, InputError
from swizzle_solver.solving import solve


def pattern(spec, rows, cols, row_length=None, elem_bytes=4, banks=32, bank_bytes=4):
    return parse_access(spec, make_tile(rows, cols, row_length, elem_bytes), make_hardware(banks, bank_bytes))


def lanes(p, i):
    return list(zip(p.lane_row[i].tolist(), p.lane_col[i].tolist(), p.lane_bytes[i].tolist()))


# --- vector widths ---------------------------------------------------------------------------------

@pytest.mark.parametrize("spec,cols,row_length,elem_bytes,expected", [
    ("8x4", 64, None, 4, 16),   # 16-byte run, 256-byte pitch: float4
    ("8x4", 40, None, 4, 16),   # pitch 160 B is a multiple of 16
    ("8x4", 34, None, 4, 8),    # pitch 136 B = 8 * 17: only 8-byte vectors stay aligned in every row
    ("4x2", 24, None, 4, 8),    # 8-byte run
    ("8x1", 24, None, 4, 4),    # one element
    ("8x8", 64, None, 2, 16),   # ldmatrix rows
    ("8x8", 36, None, 2, 8),    # pitch 72 B
    ("8x8", 33, None, 2, 2),    # odd pitch: scalar f16
    ("8x8", 32, 33, 2, 2),      # padded odd pitch
    ("8x3", 24, None, 4, 4),    # 12-byte run: 4 is the largest power of two dividing it
    ("4x2", 16, None, 8, 16),   # two f64
    ("2x16", 32, None, 1, 16),  # 16 bytes of u8
    ("8x1", 8, None, 1, 1),
    ("row", 64, None, 4, 4),    # row: scalar lanes
    ("row", 64, None, 2, 2),
    ("col", 64, None, 4, 4),
    ("8x8v8", 64, None, 2, 8),  # explicit vB
    ("8x8v4", 64, None, 2, 4),
    ("8x4v16", 36, None, 4, 16),  # 144-byte pitch: 16 divides it
    ("8x2v4", 8, None, 4, 4),
])
def test_vector_width(spec, cols, row_length, elem_bytes, expected):
    assert pattern(spec, 8, cols, row_length, elem_bytes).vector_bytes == expected


# --- placements ------------------------------------------------------------------------------------

def test_block_placements_count_and_positions():
    p = pattern("4x2", 8, 24)  # bands of 4 rows at 0, 4; columns 0, 2, ..., 22; one 8-byte lane per row
    assert p.placements == 2 * 12
    assert (p.rows, p.cols, p.row_stride) == (4, 2, 1)
    assert lanes(p, 0) == [(0, 0, 8), (1, 0, 8), (2, 0, 8), (3, 0, 8)]
    placements = {tuple(lanes(p, i)) for i in range(p.placements)}
    expected = {tuple((r0 + i, c0, 8) for i in range(4)) for r0 in (0, 4) for c0 in range(0, 24, 2)}
    assert placements == expected


def test_block_with_several_lanes_per_row():
    p = pattern("2x8", 4, 16, elem_bytes=2)  # 16-byte runs of f16: one 16-byte lane; 2x16: two lanes
    assert p.placements == 2 * 2 and lanes(p, 0) == [(0, 0, 16), (1, 0, 16)]
    q = pattern("2x16", 4, 16, elem_bytes=2)
    assert q.placements == 2 and lanes(q, 0) == [(0, 0, 16), (0, 8, 16), (1, 0, 16), (1, 8, 16)]


def test_strided_placements():
    p = pattern("4x2:2", 8, 8)  # band of 8 rows holding groups r0 = 0 and r0 = 1
    assert p.placements == 1 * 2 * 4
    placements = {tuple(lanes(p, i)) for i in range(p.placements)}
    expected = {tuple((j + 2 * i, c0, 8) for i in range(4)) for j in (0, 1) for c0 in range(0, 8, 2)}
    assert placements == expected
    q = pattern("2x1:3", 12, 1)  # bands of 6 rows (0, 6), groups j < 3: rows (j, j+3), (6+j, 9+j)
    assert {tuple(lanes(q, i)) for i in range(q.placements)} == {
        ((b + j, 0, 4), (b + j + 3, 0, 4)) for b in (0, 6) for j in range(3)}


def test_columns_that_do_not_fill_the_row():
    p = pattern("1x3", 1, 8)  # starts 0, 3 (6 + 3 > 8 is not a placement)
    assert [lanes(p, i) for i in range(p.placements)] == [
        [(0, 0, 4), (0, 1, 4), (0, 2, 4)], [(0, 3, 4), (0, 4, 4), (0, 5, 4)]]


def test_row_with_a_shorter_last_run():
    p = pattern("row", 2, 40)  # W = min(40, 128 / 4) = 32: runs [0, 32) and [32, 40) in every row
    assert (p.rows, p.cols, p.vector_bytes) == (1, 32, 4)
    assert p.placements == 2 * 2
    runs = sorted(sorted({(r, c) for r, c, _ in lanes(p, i)}) for i in range(p.placements))
    assert runs == sorted([(r, c) for c in range(c0, min(c0 + 32, 40))] for r in range(2) for c0 in (0, 32))
    assert sorted(len(p.phase_lanes(i)) for i in range(p.placements)) == [8, 8, 32, 32]
    assert p.linear_bits(make_tile(2, 40)) is None  # not a coset: no GF(2) shortcut


@pytest.mark.parametrize("cols,elem_bytes,banks,width", [
    (64, 4, 32, 32), (64, 2, 32, 64), (64, 1, 32, 64), (16, 4, 32, 16), (64, 8, 32, 16), (32, 4, 8, 8)])
def test_row_width(cols, elem_bytes, banks, width):
    p = pattern("row", 4, cols, elem_bytes=elem_bytes, banks=banks)
    assert p.cols == width
    assert p.placements == 4 * -(-cols // width)


@pytest.mark.parametrize("rows,banks,k", [(64, 32, 32), (8, 32, 8), (32, 8, 8), (16, 16, 16)])
def test_col_is_k_by_1(rows, banks, k):
    p = pattern("col", rows, 6, banks=banks)
    assert (p.rows, p.cols, p.row_stride) == (k, 1, 1)
    assert p.placements == (rows // k) * 6
    assert sorted(lanes(p, 0)) == [(r, 0, 4) for r in range(k)]


# --- lower bounds ----------------------------------------------------------------------------------

@pytest.mark.parametrize("spec,cols,elem_bytes,banks,bound", [
    ("8x8", 64, 2, 32, 1),    # 128 B: one wavefront
    ("16x8", 64, 2, 32, 2),   # 256 B: wider than a wavefront
    ("8x16", 64, 4, 32, 4),   # 512 B
    ("4x2", 8, 4, 8, 1),      # 8-bank model: 32-byte wavefront
    ("8x8", 8, 4, 8, 8),      # 256 B over 32-byte wavefronts
    ("row", 32, 4, 8, 1),     # W = 8 on 8 banks
    ("row", 64, 8, 32, 1),
    ("8x1", 8, 1, 32, 1),     # 8 bytes: still at least one wavefront
    ("col", 8, 8, 8, 2),      # 8 x 8 B = 64 B over 32 B
])
def test_lower_bound(spec, cols, elem_bytes, banks, bound):
    assert pattern(spec, 16, cols, elem_bytes=elem_bytes, banks=banks).lower_bound == bound


def test_eight_bank_model():
    bm = make_hardware(8, 4)
    assert bm.wavefront_bytes == 32
    p = pattern("row", 8, 8, banks=8)
    assert (p.cols, p.placements, p.lower_bound) == (8, 8, 1)
    q = pattern("col", 8, 8, banks=8)
    assert (q.rows, q.placements) == (8, 8)


def test_dtypes():
    names = ("f64", "f32", "tf32", "bf16", "f16", "e4m3", "u8")
    assert [elem_bytes_of(d, None) for d in names] == [8, 4, 4, 2, 2, 1, 1]
    assert elem_bytes_of(None, None) == 4 and elem_bytes_of("F16", 2) == 2


@pytest.mark.parametrize("spelling, size", [
    ("fp16", 2), ("half", 2), ("torch.float16", 2), ("torch.bfloat16", 2), ("cutlass::half_t", 2),
    ("bfloat16_t", 2), ("tl.float8e4nv", 1), ("fp8e5", 1), ("torch.float8_e4m3fn", 1), ("float_e4m3_t", 1),
    ("DType.float32", 4), ("float", 4), ("torch.float", 4), ("tfloat32_t", 4), ("int8_t", 1), ("double", 8), ("Float64", 8), ("tl.float8e4b15", 1), ("torch.float8_e5m2fnuz", 1),
])
def test_dtype_aliases_as_pytorch_triton_cutlass_and_mojo_spell_them(spelling, size):
    assert elem_bytes_of(spelling, None) == size
    assert elem_bytes_of(spelling, size) == size  # agrees with --elem-bytes


@pytest.mark.parametrize("spelling", ["f128", "fp2", "e2m2", "torch.", "_t", "tl.bogus"])
def test_unknown_dtype_names_the_canonical_ones(spelling):
    with pytest.raises(InputError, match=r"use one of f64, f32.*bf16.*fp4, e2m1, i4, u4"):
        elem_bytes_of(spelling, None)


@pytest.mark.parametrize("spelling", ["fp4", "e2m1", "i4", "u4", "torch.float4_e2m1fn_x2"[:-3], "cutlass::int4b_t"])
def test_sub_byte_types_are_their_packed_byte(spelling):
    """4-bit types: the tile is their packed bytes (elem_bytes 1; access/subbyte.py)."""
    assert elem_bytes_of(spelling, None) == 1


# --- bad input -------------------------------------------------------------------------------------

def problem(rows=8, cols=8, access=("8x1",), row_length=None, elem_bytes=4, banks=32, bank_bytes=4):
    return make_problem(rows, cols, list(access), row_length, elem_bytes, banks=banks, bank_bytes=bank_bytes)


BAD = {
    "rows zero": dict(rows=0),
    "rows negative": dict(rows=-8),
    "rows float": dict(rows=8.0),
    "rows string": dict(rows="8"),
    "rows bool": dict(rows=True),
    "cols zero": dict(cols=0),
    "cols float": dict(cols=2.5),
    "pitch below cols": dict(cols=8, row_length=7),
    "pitch float": dict(row_length=8.5),
    "elem bytes 3": dict(elem_bytes=3),
    "elem bytes 0": dict(elem_bytes=0),
    "elem bytes 32": dict(elem_bytes=32),
    "banks 24": dict(banks=24),
    "banks 0": dict(banks=0),
    "bank bytes 3": dict(bank_bytes=3),
    "bank bytes 6": dict(bank_bytes=6),
    "8x": dict(access=["8x"]),
    "x2": dict(access=["x2"]),
    "0x2": dict(access=["0x2"]),
    "2x0": dict(access=["2x0"]),
    "4x2:0": dict(access=["4x2:0"]),
    "8x1v3": dict(access=["8x1v3"]),
    "8x4v32 above 16 bytes": dict(cols=64, access=["8x4v32"]),
    "vector smaller than an element": dict(access=["8x2v2"]),
    "vector not dividing the run": dict(access=["8x1v8"]),
    "vector not dividing the pitch": dict(cols=34, access=["8x4v16"]),
    "rowv3": dict(access=["rowv3"]),
    "garbage": dict(access=["diag"]),
    "empty spec": dict(access=[""]),
    "negative": dict(access=["-8x1"]),
    "no access": dict(access=[]),
    "block taller than the tile": dict(access=["16x1"]),
    "block wider than the tile": dict(access=["1x16"]),
    "strided band taller than the tile": dict(access=["4x1:4"]),
    "rows not a multiple of the band": dict(rows=12, access=["8x1"]),
    "rows not a multiple of the strided band": dict(rows=12, access=["2x1:4"]),
    "tile above the storage limit": dict(rows=512, cols=512),
    "padding above the storage limit": dict(rows=256, cols=256, row_length=513),
    "unknown dtype": None,
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_input_raises_one_line(name):
    with pytest.raises(InputError) as err:
        if BAD[name] is None:
            elem_bytes_of("f128", None)
        else:
            problem(**BAD[name])
    message = str(err.value)
    assert message and "\n" not in message


def test_dtype_and_elem_bytes_that_disagree():
    with pytest.raises(InputError):
        elem_bytes_of("f16", 4)


def test_storage_limit_boundary():
    limit_elems = MAX_STORAGE_BYTES // 4
    make_tile(1, limit_elems)  # exactly at the limit: accepted
    with pytest.raises(InputError, match=f"{MAX_STORAGE_BYTES // 1024} KiB limit"):  # the message names it
        make_tile(1, limit_elems + 1)


def test_a_256_kib_tile_is_accepted_and_solved():
    p = make_problem(256, 256, ["8x4", "row"], elem_bytes=4)  # 256 x 256 x 4 B = 256 KiB
    assert p.tile.storage_bytes == 256 * 1024
    solution = solve(p)
    assert solution.status == "conflict-free"
    assert [r.worst for r in solution.answer.results] == [p.lower_bound for p in p.patterns]


ACCESS_PIECES = ["row", "col", "warp:", "ldmatrix", "stmatrix", ".x", ".trans", "mma-c:m16n8", "x", ":", "v",
                 "0", "1", "2", "4", "8", "16", "32", "99999999999999999999", "9" * 5000, "-", " "]


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(st.text(max_size=30), st.lists(st.sampled_from(ACCESS_PIECES), max_size=8).map("".join)),
       rows=st.sampled_from([8, 16, 32]), cols=st.sampled_from([8, 16, 24]), elem_bytes=st.sampled_from([1, 2, 4, 8]))
def test_any_access_text_is_a_pattern_or_bad_input(text, rows, cols, elem_bytes):
    """--access never crashes: a compiled pattern inside the tile, or InputError in one line."""
    tile = make_tile(rows, cols, None, elem_bytes)
    try:
        pattern = parse_access(text, tile, make_hardware())
    except InputError as err:
        assert str(err) and "\n" not in str(err)
        return
    assert pattern.placements >= 1 and pattern.lower_bound >= 1
    assert (pattern.lane_row < rows).all() and (pattern.lane_col < cols).all()
