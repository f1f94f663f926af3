"""`--check 'triton: ...'` against Triton 3.9 itself (run_triton_notation.py, on the CPU): for every
shared encoding the notation reads, the offset of every element of the tile, as Triton's C++
`to_linear_layout` gives it (inverted over the tile), equals the table the tool checks.
#ttg.amd_rotating_shared is not here: Gluon has no layout for it, so Triton 3.9's Python cannot ask
for its linear layout (get_gluon_layout_from_memdesc: "Unhandled encoding"); it is checked against
the attribute's documented tables in tests/test_notations.py."""
import importlib.util

import numpy as np
import pytest
from toolchain_cases import missing, run_driver

from swizzle_solver.layout import layout_table
from swizzle_solver.model import Tile
from swizzle_solver.names import parse_layout

pytestmark = pytest.mark.toolchain

SWIZZLED = [(vec, per, top, order) for vec, per, top in [(8, 1, 8), (8, 2, 4), (4, 4, 2), (1, 1, 8), (2, 1, 4),
                                                       (16, 1, 8), (8, 1, 16)]
            for order in ([1, 0], [0, 1])]
CASES = {}
for rows, cols, e in [(64, 64, 2), (32, 128, 2), (16, 32, 4), (128, 16, 1)]:
    for vec, per, top, order in SWIZZLED:
        CASES[f"swizzled {vec},{per},{top} {order} {rows}x{cols}"] = (
            f"#ttg.swizzled_shared<{{vec = {vec}, perPhase = {per}, maxPhase = {top}, order = {order}}}>", rows, cols, e)
    CASES[f"gluon swizzled {rows}x{cols}"] = ("SwizzledSharedLayout(8, 2, 4, [1, 0])", rows, cols, e)
for rows, cols, e in [(64, 64, 2), (64, 128, 2), (8, 64, 2), (32, 32, 4), (16, 256, 1), (128, 64, 2)]:
    for width in (32, 64, 128):
        for transposed in ("false", "true"):
            if (cols if transposed == "false" else rows) * e < width or (rows if transposed == "false" else cols) < 8:
                continue
            CASES[f"nvmma {width} {transposed} {rows}x{cols}x{e}"] = (
                f"#ttg.nvmma_shared<{{swizzlingByteWidth = {width}, transposed = {transposed}, "
                f"elementBitWidth = {8 * e}}}>", rows, cols, e)
    CASES[f"gluon nvmma {rows}x{cols}x{e}"] = (
        f"NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth={8 * e}, rank=2)", rows, cols, e)
for rows, cols, pairs in [(64, 64, "[64:+8]"), (32, 64, "[32:+4, 64:+8]"), (16, 128, "[128:+1]")]:
    CASES[f"padded {pairs} {rows}x{cols}"] = (
        f"#ttg.padded_shared<{pairs} {{order = [1, 0], shape = [{rows}, {cols}]}}>", rows, cols, 2)
    CASES[f"padded {pairs} {rows}x{cols} col"] = (
        f"#ttg.padded_shared<{pairs} {{order = [0, 1], shape = [{rows}, {cols}]}}>", rows, cols, 2)
CASES["shared_linear swizzle"] = (
    "#ttg.shared_linear<{offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], "
    "[8, 0], [16, 0], [32, 0]]}, alignment = 16>", 64, 64, 2)
CASES["shared_linear rows"] = (
    "#ttg.shared_linear<{offset = [[0, 1], [0, 2], [2, 0], [1, 0], [4, 0]]}, alignment = 16>", 8, 4, 4)
CASES["gluon shared_linear"] = ("SharedLinearLayout(offset_bases=[[0, 1], [0, 2], [1, 4], [2, 0], [1, 0]])", 4, 8, 4)


@pytest.fixture(scope="module")
def triton_offsets(tmp_path_factory) -> dict:
    if importlib.util.find_spec("triton") is None:
        missing("Triton", "pip install torch==2.13.0 triton==3.9.0")
    payload = {case: {"text": text, "rows": rows, "cols": cols, "elem_bytes": e}
               for case, (text, rows, cols, e) in CASES.items()}
    return run_driver("run_triton_notation.py", payload, tmp_path_factory.mktemp("triton-notation"))


@pytest.mark.parametrize("case", list(CASES))
def test_triton_encodings_are_tritons_own_offsets(triton_offsets, case):
    text, rows, cols, e = CASES[case]
    result = triton_offsets[case]
    assert "error" not in result, f"Triton rejects {text}:\n{result['error']}"
    tile = Tile(rows, cols, cols, e)
    ours = layout_table(tile, parse_layout(f"triton: {text}", tile=tile))
    theirs = np.array(result["offsets"]).reshape(rows, cols)
    assert np.array_equal(ours, theirs), f"{text} ({result['read']}):\nours\n{ours[:8, :16]}\nTriton\n{theirs[:8, :16]}"
