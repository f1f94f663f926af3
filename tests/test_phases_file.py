"""Explicit phases files (--phases, docs/design.md section 1): TOML and JSON, the repository's phases/ files, bad files."""
import json
from pathlib import Path

import numpy as np
import pytest

from swizzle_solver import simulate
from swizzle_solver.access import make_hardware, make_tile
from swizzle_solver.access.phases_file import load_phases
from swizzle_solver.families.cute import Swizzle
from swizzle_solver.families.identity import Identity
from swizzle_solver.model import InputError

PHASES = Path(__file__).resolve().parents[1] / "phases"  # the repository's example files
BANKS = make_hardware()

TOML = """
[[pattern]]
name = "two rows"
phases = [ [[0, 0, 16], [1, 0, 16]], [[0, 4, 16]] ]
"""


def worst(tile, pattern, layout):
    r, c = np.meshgrid(np.arange(tile.rows), np.arange(tile.cols), indexing="ij")
    return simulate.simulate(tile, BANKS, [pattern], layout.phys(tile, r, c))[0].worst


def write(tmp_path, text, name):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("name, text", [
    ("p.toml", TOML),
    ("p.json", json.dumps({"pattern": [{"name": "two rows",
                                        "phases": [[[0, 0, 16], [1, 0, 16]], [[0, 4, 16]]]}]})),
])
def test_toml_and_json_give_the_same_pattern(tmp_path, name, text):
    [p] = load_phases(write(tmp_path, text, name), make_tile(4, 8, None, 4), BANKS)
    assert p.spec == "two rows" and p.kind == "phases" and p.placements == 2
    assert p.phase_lanes(0) == [(0, 0, 16), (1, 0, 16)]
    assert p.phase_lanes(1) == [(0, 4, 16)]  # the shorter phase is padded by repeating its lane
    assert p.phase_bytes == 32 and p.lower_bound == 1 and p.vector_bytes == 16
    assert p.footprint() == "2 explicit phases"


def test_lower_bound_is_over_the_largest_phase(tmp_path):
    text = '[[pattern]]\nname = "wide"\nphases = [[' + ", ".join(f"[0, {c}, 16]" for c in range(0, 64, 4)) + "]]\n"
    [p] = load_phases(write(tmp_path, text, "w.toml"), make_tile(1, 64, None, 4), BANKS)
    assert p.phase_bytes == 256 and p.lower_bound == 2
    assert p.footprint() == "1 explicit phase"


def test_broadcast_lanes_are_counted_once(tmp_path):
    text = '[[pattern]]\nname = "same word"\nphases = [[[0, 0, 4], [0, 0, 4], [0, 1, 4]]]\n'
    [p] = load_phases(write(tmp_path, text, "b.toml"), make_tile(1, 4, None, 4), BANKS)
    assert p.phase_bytes == 8


def test_phases_main_diagonal():
    tile = make_tile(32, 32, None, 4)
    [p] = load_phases(str(PHASES / "main-diagonal-32.toml"), tile, BANKS)
    assert p.spec == "main diagonal" and p.placements == 1 and p.lower_bound == 1
    assert p.phase_lanes(0) == [(t, t, 4) for t in range(32)]
    assert worst(tile, p, Identity()) == 1  # (t, t) is word 33t: bank t
    assert worst(tile, p, Swizzle(5, 0, 5)) == 32  # col ^= row sends every (t, t) to column 0


def test_phases_row_as_16x16():
    tile = make_tile(16, 256, None, 2)
    [p] = load_phases(str(PHASES / "row-as-16x16-f16.toml"), tile, BANKS)
    assert p.placements == 16 * 4 and p.lower_bound == 1
    assert p.phase_lanes(1) == [(0, 8 + 16 * j, 16) for j in range(8)]
    # Unswizzled, lanes 32 bytes apart: 16-byte units at banks 0-3, 8-11, 16-19, 24-27, twice.
    assert worst(tile, p, Identity()) == 2


@pytest.mark.parametrize("text, message", [
    ("[[pattern]\nname = 1", "not valid TOML"),
    ("title = 'x'", "has no patterns"),
    ("[[pattern]]\nphases = [[[0, 0, 4]]]", "needs a name"),
    ("[[pattern]]\nname = 'x'\nphases = []", "non-empty list of phases"),
    ("[[pattern]]\nname = 'x'\nphases = [[]]", "non-empty list of lanes"),
    ("[[pattern]]\nname = 'x'\nphases = [[[0, 0]]]", "is not \\[row, col, bytes\\]"),
    ("[[pattern]]\nname = 'x'\nphases = [[[0, true, 4]]]", "is not \\[row, col, bytes\\]"),
    ("[[pattern]]\nname = 'x'\nphases = [[[0, 0, 12]]]", "power of two"),
    ("[[pattern]]\nname = 'x'\nphases = [[[0, 0, 32]]]", "power of two"),
    ("[[pattern]]\nname = 'x'\nphases = [[[8, 0, 4]]]", "outside the 8 x 8 tile"),
    ("[[pattern]]\nname = 'x'\nphases = [[[0, 6, 16]]]", "outside the 8 x 8 tile"),
    ("[[pattern]]\nname = 'x'\nphases = [[[0, 2, 16]]]", "misaligned"),
    ("[[pattern]]\nname = 'x'\nphases = [[" + ", ".join(["[0, 0, 4]"] * 1025) + "]]", "more than 1024"),
    ("[[pattern]]\nname = 'x'\nphases = [[[0, " + "9" * 5000 + ", 4]]]", "not valid TOML"),  # Python will not read it
])
def test_bad_toml_files(tmp_path, text, message):
    with pytest.raises(InputError, match=message) as err:
        load_phases(write(tmp_path, text, "bad.toml"), make_tile(8, 8, None, 4), BANKS)
    assert "\n" not in str(err.value)


def test_bad_json_file(tmp_path):
    with pytest.raises(InputError, match="not valid JSON"):
        load_phases(write(tmp_path, "{", "bad.json"), make_tile(8, 8, None, 4), BANKS)


def test_missing_file():
    with pytest.raises(InputError, match="cannot read phases file"):
        load_phases("/nonexistent/phases.toml", make_tile(8, 8, None, 4), BANKS)
