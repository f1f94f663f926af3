"""Traps found when real kernels were stated (issue 34, item 4): each one a test.

The counts here are checked against brute forces written from the PTX ISA's fragment formulas and
DESIGN.md section 1's bank rule (a request costs the most distinct 4-byte words in one bank), not
the tool's own simulator.
"""
import re

import numpy as np
import pytest

from swizzle_solver import api, simulate
from swizzle_solver.access import make_hardware
from swizzle_solver.families.cute import Swizzle
from swizzle_solver.model import InputError

NVIDIA = make_hardware()


def _fragment_brute_force(rows, cols, shape, operand, elem_bytes, phys_stored) -> list[int]:
    """mma-a/mma-b on a column-major tile of rows (m or n) x cols (k): lane l's register j holds
    (g + 8 (j % 2), K-block j // 2) (A) or (g, K-block j) (B), g = l / 4, t = l % 4; element (m, k)
    is stored at stored row k, column m (m contiguous), so each element is its own ld.shared."""
    k = int(shape.split("k")[1])
    per = 4 // elem_bytes
    height = 16 if operand == "a" else 8
    registers = height * k * elem_bytes // 4 // 32
    costs = []
    for m0 in range(0, rows, height):
        for k0 in range(0, cols, k):
            for j in range(registers):
                for i in range(per):
                    banks: dict[int, set[int]] = {}
                    for lane in range(32):
                        g, t = lane // 4, lane % 4
                        m = g + 8 * (j % 2) if operand == "a" else g
                        kk = (j // 2 if operand == "a" else j) * 4 * per + t * per + i
                        word = int(phys_stored[k0 + kk, m0 + m]) * elem_bytes // 4
                        banks.setdefault(word % 32, set()).add(word)
                    costs.append(max(map(len, banks.values())))
    return costs


@pytest.mark.parametrize("spec", ["mma-a:m16n8k16", "mma-b:m16n8k16", "mma-a:m16n8k8:mn"])
def test_mma_fragments_follow_the_column_major_tile(spec):
    """Under --order col the fragment's (r, c) is still (m, k): an M-major read in memory, not the
    K-major read of the stored tile (the trap: counted K-major unless :mn was added)."""
    problem = api.problem(64, 32, [spec], elem_bytes=2, order="col")
    (p,) = problem.patterns
    tile = problem.tile  # stored: 32 (k) x 64 (m)
    r, c = np.meshgrid(np.arange(tile.rows), np.arange(tile.cols), indexing="ij")
    operand, shape = spec[4], spec.split(":")[1]
    for layout in (None, Swizzle(3, 3, 3), Swizzle(2, 3, 3)):
        phys = r * tile.row_length + c if layout is None else layout.phys(tile, r, c)
        ours = simulate.simulate(tile, NVIDIA, [p], phys)[0].costs
        expected = _fragment_brute_force(64, 32, shape, operand, 2, phys)
        assert sorted(ours.tolist()) == sorted(expected), (spec, layout)
    assert "M-major" in p.summary or "N-major" in p.summary


def test_k_major_fragment_on_a_column_major_tile_is_refused():
    with pytest.raises(InputError, match=re.escape("use --order row for a K-major tile")):
        api.problem(64, 32, ["mma-a:m16n8k16:k"], elem_bytes=2, order="col")
