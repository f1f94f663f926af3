"""Access recipes under the words users type (access/recipes.py): cp.async, and tma / wgmma pointing to --for tma."""
import numpy as np
import pytest

from swizzle_solver.access import make_hardware, make_tile, parse_access
from swizzle_solver.cli import main
from swizzle_solver.model import InputError

NVIDIA = make_hardware()


@pytest.mark.parametrize("rows,cols,elem_bytes", [(64, 64, 2), (32, 32, 4), (64, 128, 1), (16, 512, 2), (64, 8, 2),
                                                  (64, 4, 4), (8, 1024, 4)])
@pytest.mark.parametrize("word", ["cp.async", "cp.async.cg", "CP.ASYNC.CA"])
def test_cp_async_is_one_chunk_per_lane_along_the_rows(rows, cols, elem_bytes, word):
    """Warp w's lane l copies chunk 32 w + l of the tile in row-major order (16 bytes each): the
    placements are those chunks, 32 at a time, served 8 lanes a phase (16-byte lanes)."""
    tile = make_tile(rows, cols, None, elem_bytes)
    p = parse_access(word, tile, NVIDIA)
    chunk = 16 // elem_bytes
    per_row = cols // chunk
    lanes = np.stack([p.lane_row.ravel(), p.lane_col.ravel()], axis=1)
    # every chunk of the tile exactly once, 16 bytes each
    assert sorted(map(tuple, lanes.tolist())) == [(r, c) for r in range(rows) for c in range(0, cols, chunk)]
    assert set(p.lane_bytes.ravel().tolist()) == {16} and p.lane_row.shape[1] == 8
    # one warp: 32 consecutive chunks of the row-major order, in lane order
    first = [(r, c) for phase in range(4) for r, c, _ in p.phase_lanes(phase)]
    start = first[0][0] * per_row + first[0][1] // chunk
    assert [r * per_row + c // chunk for r, c in first] == list(range(start, start + 32))
    assert p.spec == word and p.summary.startswith("= warp:")


def test_cp_async_prints_the_form_it_stands_for():
    p = parse_access("cp.async", make_tile(64, 64, None, 2), NVIDIA)
    assert p.summary.startswith("= warp:4x8:1x8: ")


@pytest.mark.parametrize("cols,why", [(20, "not a whole number of 16-byte chunks"), (24, "3 chunks of 16 bytes")])
def test_cp_async_refuses_rows_no_lane_grid_tiles(cols, why):
    with pytest.raises(InputError, match=why):
        parse_access("cp.async", make_tile(64, cols, None, 2), NVIDIA)


@pytest.mark.parametrize("word,points_to", [("tma", "--for tma"), ("TMA", "--for tma"), ("wgmma", "--for tma"),
                                            ("cp.async.bulk.tensor", "--for tma"), ("umma", "--for umma"),
                                            ("tcgen05", "--for umma")])
def test_descriptor_words_are_bad_input_pointing_to_for(word, points_to, capsys):
    code = main(["--rows", "64", "--cols", "64", "--dtype", "f16", "--access", word, "--access", "ldmatrix.x4"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and points_to in err and "Traceback" not in err


@pytest.mark.parametrize("arch", ["gfx942", "rdna4"])
def test_cp_async_is_nvidias(arch, capsys):
    assert main(["--arch", arch, "--rows", "64", "--cols", "64", "--dtype", "f16", "--access", "cp.async"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and f"--arch {arch} has no st.shared ops" in err and "--arch nvidia" in err
