"""Triton linear layouts read as accesses (--linear-layout): known layouts, the three file forms, bad files."""
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swizzle_solver.access import make_hardware, make_tile, parse_access
from swizzle_solver.access.triton_layout import (
    linear_layout_pattern,
    load_linear_layout,
    xor_image,
)
from swizzle_solver.model import InputError

ROOT = Path(__file__).resolve().parents[1]
MMA_F32 = ROOT / "examples" / "mma-c-m16n8-f32.json"
BANKS = make_hardware()


def phases(p):
    return [p.phase_lanes(i) for i in range(p.placements)]


def write(tmp_path, text, name="layout.json"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def blocked(spt_cols, lanes_rc, warps_rows=1):
    """Bases of a Triton #blocked layout, order [1, 0], sizePerThread [1, spt_cols] (identityStandardND)."""
    lr, lc = lanes_rc
    reg = [[0, 1 << i] for i in range(spt_cols.bit_length() - 1)]
    lane = [[0, spt_cols << i] for i in range(lc.bit_length() - 1)] + [[1 << i, 0] for i in range(lr.bit_length() - 1)]
    warp = [[lr << i, 0] for i in range(warps_rows.bit_length() - 1)]
    return {"register": reg, "lane": lane, "warp": warp, "block": [],
            "out_dims": {"dim0": lr * warps_rows, "dim1": lc * spt_cols}}


@pytest.mark.parametrize("elem_bytes", [4, 2])
def test_mma_accumulator_layout_is_the_mma_c_fragment(elem_bytes):
    tile = make_tile(32, 16, None, elem_bytes)
    layout = load_linear_layout(str(MMA_F32), tile, BANKS)
    assert phases(layout) == phases(parse_access("mma-c:m16n8", tile, BANKS))
    assert layout.spec == "mma m16n8 accumulator (Triton linear layout)"
    assert layout.vector_bytes == 2 * elem_bytes  # registers 0, 1 are adjacent columns: one vector


def test_blocked_layout_with_two_warps():
    tile = make_tile(8, 32, None, 4)
    doc = blocked(4, (4, 8), warps_rows=2)
    layout = linear_layout_pattern(json.dumps(doc), "blocked", tile, BANKS)
    # Warp 0 covers rows 0-3, warp 1 rows 4-7: the same phases as warp:4x8:1x4 at its two placements.
    assert phases(layout) == phases(parse_access("warp:4x8:1x4", tile, BANKS))
    assert layout.placements == 8 and layout.phases_per_placement == 8


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([(1, 32), (2, 16), (4, 8), (8, 4), (32, 1)]), st.sampled_from([1, 2, 4, 8, 16]),
       st.sampled_from([1, 2, 4]))
def test_blocked_layouts_match_the_warp_grammar(grid, per_lane, elem_bytes):
    """sizePerThread [1, N] x threadsPerWarp [R, C] issues exactly what warp:RxC:1xN issues."""
    lr, lc = grid
    tile = make_tile(lr * 2, lc * per_lane * 2, None, elem_bytes)
    layout = linear_layout_pattern(json.dumps(blocked(per_lane, grid)), "blocked", tile, BANKS)
    assert phases(layout) == phases(parse_access(f"warp:{lr}x{lc}:1x{per_lane}", tile, BANKS))


STR_FORM = """\
 - register=1 -> (0, 1)
   register=2 -> (8, 0)
 - lane=1 -> (0, 2)
   lane=2 -> (0, 4)
   lane=4 -> (1, 0)
   lane=8 -> (2, 0)
   lane=16 -> (4, 0)
 - warp is a size 1 dimension
 - block is a size 1 dimension
where out dims are: [dim0 (size 16), dim1 (size 8)]
"""

STR_FORM_SWAPPED = STR_FORM.replace("(0, 1)", "(1, 0)").replace("(8, 0)", "(0, 8)").replace(
    "(0, 2)", "(2, 0)").replace("(0, 4)", "(4, 0)").replace("(1, 0)\n   lane=8", "(0, 1)\n   lane=8").replace(
    "(2, 0)\n   lane=16", "(0, 2)\n   lane=16").replace("(4, 0)\n - warp", "(0, 4)\n - warp").replace(
    "[dim0 (size 16), dim1 (size 8)]", "[dim1 (size 8), dim0 (size 16)]")

ATTR_FORM = ("#linear = #ttg.linear<{register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], "
             "warp = [], block = []}>")


@pytest.mark.parametrize("text", [STR_FORM, STR_FORM_SWAPPED, ATTR_FORM], ids=["str", "str-swapped", "ttg-attr"])
def test_text_forms_read_like_the_json(tmp_path, text):
    tile = make_tile(16, 8, None, 4)
    got = load_linear_layout(write(tmp_path, text, "layout.txt"), tile, BANKS)
    assert phases(got) == phases(load_linear_layout(str(MMA_F32), tile, BANKS))
    assert got.spec == "layout"  # named after the file


def test_swapped_str_form_really_swaps():
    assert "register=1 -> (1, 0)" in STR_FORM_SWAPPED and "lane=4 -> (0, 1)" in STR_FORM_SWAPPED


def test_xor_image():
    lane = [(0, 2), (0, 4), (1, 0), (2, 0), (4, 0)]
    assert [xor_image(lane, l) for l in (0, 1, 3, 4, 31)] == [(0, 0), (0, 2), (0, 6), (1, 0), (7, 6)]
    assert xor_image([(1, 1), (1, 0)], 3) == (0, 1)  # images are XORed, not added


def test_gluon_keys_and_shape(tmp_path):
    doc = {"reg_bases": [[0, 1], [8, 0]], "lane_bases": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]],
           "warp_bases": [], "block_bases": [], "shape": [16, 8]}
    tile = make_tile(16, 8, None, 4)
    got = load_linear_layout(write(tmp_path, json.dumps(doc)), tile, BANKS)
    assert phases(got) == phases(load_linear_layout(str(MMA_F32), tile, BANKS))


def test_broadcast_lanes_count_their_bytes_once(tmp_path):
    # Lanes 16-31 repeat lanes 0-15 (lane bit 4 has a zero image): a broadcast, half the bytes.
    doc = {"register": [], "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 0]], "out_dims": {"dim0": 1, "dim1": 16}}
    p = load_linear_layout(write(tmp_path, json.dumps(doc)), make_tile(1, 16, None, 4), BANKS)
    assert p.phase_bytes == 64 and len(p.phase_lanes(0)) == 16


@pytest.mark.parametrize("text, message", [
    ("{not json", "not valid JSON"),
    ("[1, 2]", "not a linear layout"),
    ('{"register": [], "lanes": [[0, 1]]}', "unknown key 'lanes'"),
    ('{"register": []}', "no lane bases"),
    ('{"lane": [[0, "1"]]}', "integer tuples"),
    ('{"lane": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 0]]}', "a warp has 32"),
    ('{"lane": [[0, 1]], "block": [[1, 0]]}', "block bases"),
    ('{"lane": [[0, 1], [0, 32]], "out_dims": {"dim0": 1, "dim1": 32}}', "outside the layout"),
    ('{"lane": [[0, 1]], "out_dims": {"dim0": 1, "dim1": 12}}', "not a power of two"),
    ('{"lane": [[0, 1, 0]], "out_dims": [1, 2, 1]}', "3 out dims"),
    ('{"lane": [[0, 1]], "out_dims": "16x16"}', "out_dims must be"),
    ('{"lane": [[0, 64]]}', "outside the 16 x 16 tile"),
    (" - lane=1 -> (0, 1)\n   lane=4 -> (0, 2)\nwhere out dims are: [dim0 (size 1), dim1 (size 4)]", "out of order"),
    (" - lane=1 -> (0, 1)\n", "not a linear layout"),
    (" - lane=1 -> (0, 1)\nwhere out dims are: []", "missing or empty"),
    (" - thread=1 -> (0, 1)\nwhere out dims are: [dim0 (size 1), dim1 (size 2)]", "unknown key 'thread'"),
    ("#ttg.linear<{register = [[0, 1], lane = []}>", "cannot read the #ttg.linear"),
    ('{"register": ' + json.dumps([[0, 0]] * 16) + ', "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0]]}',
     "more than 2\\^20"),
    # integers Python will not read (over 4300 digits), in each form
    ('{"lane": [[0, ' + "9" * 5000 + ']]}', "not valid JSON"),
    ("#ttg.linear<{register = [[0, " + "9" * 5000 + "]], lane = []}>", "cannot read the #ttg.linear"),
    (" - lane=1 -> (0, " + "9" * 5000 + ")\nwhere out dims are: [dim0 (size 1), dim1 (size 2)]", "cannot read the image"),
    (" - lane=" + "9" * 5000 + " -> (0, 1)\nwhere out dims are: [dim0 (size 1), dim1 (size 2)]", "cannot read line"),
])
def test_bad_layout_files(tmp_path, text, message):
    with pytest.raises(InputError, match=message) as err:
        load_linear_layout(write(tmp_path, text), make_tile(16, 16, None, 4), BANKS)
    assert "\n" not in str(err.value)


def test_a_run_from_an_odd_column_is_not_a_vector(tmp_path):
    """register=1 -> (0, 1) from lane 1 at column 1 reads columns 1 then 0 (XOR): not one 2-element
    vector, so each register is its own request of scalar lanes (it was a misaligned vector, and
    from column 7 of an 8-column tile, a crash)."""
    p = load_linear_layout(write(tmp_path, '{"register": [[0, 1]], "lane": [[0, 1]]}'), make_tile(16, 16, None, 4),
                           BANKS)
    assert p.vector_bytes == 4 and set(p.lane_bytes.ravel().tolist()) == {4}
    assert p.phase_lanes(0) == [(0, 0, 4), (0, 1, 4)] and p.phase_lanes(1) == [(0, 1, 4), (0, 0, 4)]
    aligned = load_linear_layout(write(tmp_path, '{"register": [[0, 1]], "lane": [[0, 2]]}'),
                                 make_tile(16, 16, None, 4), BANKS)
    assert aligned.vector_bytes == 8
    crossing = '{"register": [[0, 1], [2, 0]], "lane": [[0, 2], [4, 0], [2, 0], [0, 2], [11, 7]], "warp": []}'
    q = load_linear_layout(write(tmp_path, crossing), make_tile(16, 8, 9, 1), BANKS)
    assert (q.lane_col + q.lane_bytes // 1 <= 8).all()


def test_missing_file():
    with pytest.raises(InputError, match="cannot read linear layout file"):
        load_linear_layout("/nonexistent/layout.json", make_tile(16, 16, None, 4), BANKS)


@st.composite
def bijective_layouts(draw):
    """A random distributed layout of a 2^a x 2^b tile: the unit vectors shuffled over 5 lane bits,
    some register bits and some warp bits (every element held once)."""
    row_bits, col_bits = draw(st.integers(0, 4)), draw(st.integers(1, 5))
    units = [[1 << i, 0] for i in range(row_bits)] + [[0, 1 << i] for i in range(col_bits)]
    units = draw(st.permutations(units))
    lanes = min(5, len(units))
    regs = draw(st.integers(0, len(units) - lanes))
    doc = {"lane": units[:lanes], "register": units[lanes:lanes + regs], "warp": units[lanes + regs:],
           "out_dims": {"dim0": 1 << row_bits, "dim1": 1 << col_bits}}
    return doc, 1 << row_bits, 1 << col_bits


@settings(max_examples=80, deadline=None)
@given(bijective_layouts(), st.sampled_from([1, 2, 4, 8]))
def test_a_bijective_layout_reads_every_element_once_in_hardware_phases(layout, elem_bytes):
    doc, rows, cols = layout
    p = linear_layout_pattern(json.dumps(doc), "random", make_tile(rows, cols, None, elem_bytes), BANKS)
    read = []
    for i in range(p.placements):
        lanes = p.phase_lanes(i)
        width = lanes[0][2]
        assert all(b == width for _, _, b in lanes)
        assert len(lanes) == min(32 * 4 // max(4, width), 1 << len(doc["lane"]))  # the hardware rule
        read += [(r, c + k) for r, c, b in lanes for k in range(b // elem_bytes)]
    assert sorted(read) == [(r, c) for r in range(rows) for c in range(cols)]


def test_a_64_lane_layout_on_a_cdna_wave(tmp_path):
    """--linear-layout takes the arch's wave: six lane bases (64 lanes) are one wave on gfx942 and
    too many for NVIDIA's 32-lane warp; every lane's first element is where the bases send it."""
    from swizzle_solver.hardware import TARGETS

    lane = [[0, 8], [1, 0], [2, 0], [4, 0], [8, 0], [16, 0]]
    path = write(tmp_path, json.dumps({"register": [[0, 1], [0, 2], [0, 4]], "lane": lane}))
    tile = make_tile(32, 16, None, 2)  # the layout's own extent: one wave, no translates
    p = load_linear_layout(path, tile, make_hardware(target=TARGETS["gfx942"]))
    assert p.lane_row.size == 64 and set(p.lane_bytes.ravel().tolist()) == {16}  # 8 f16 registers: one 16 B vector
    firsts = sorted((int(r), int(c)) for r, c in zip(p.lane_row.ravel(), p.lane_col.ravel()))
    assert firsts == sorted(xor_image([tuple(b) for b in lane], lane_id) for lane_id in range(64))
    with pytest.raises(InputError, match="a warp has 32"):
        load_linear_layout(path, tile, BANKS)
