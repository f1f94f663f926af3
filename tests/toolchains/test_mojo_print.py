"""Mojo's print of a `layout.Layout` (mojo with the MAX Mojo libraries, on the CPU) reads back under
`cute:` as the layout it built: Mojo writes `Layout.row_major(64, 64)` as `((64, 64):(64, 1))`, the
CuTe print inside one more pair of parentheses. Each printed text checks to the same table as the
constructor text it was printed from (which the tool reads as Mojo's `layout` package defines it)."""
from __future__ import annotations

import subprocess

import numpy as np
import pytest
from test_mojo import mojo  # noqa: F401  (the fixture: mojo and the `layout` package, or skipped)

from swizzle_solver.layout import layout_table
from swizzle_solver.model import Tile
from swizzle_solver.names import parse_layout

pytestmark = pytest.mark.toolchain

BUILT = ["Layout.row_major(64, 64)", "Layout.col_major(64, 64)",
         "Layout(IntTuple(IntTuple(8, 8), 64), IntTuple(IntTuple(64, 512), 1))",
         "Layout(IntTuple(64, IntTuple(8, 8)), IntTuple(64, IntTuple(1, 8)))"]


@pytest.fixture(scope="module")
def printed(mojo, tmp_path_factory) -> list[str]:  # noqa: F811
    source = tmp_path_factory.mktemp("mojo_print") / "main.mojo"
    source.write_text("from layout import Layout, IntTuple\n\ndef main():\n"
                      + "".join(f"    print({text})\n" for text in BUILT))
    done = subprocess.run([mojo, "run", str(source)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-4000:]
    lines = [line for line in done.stdout.splitlines() if line.startswith("(")]
    assert len(lines) == len(BUILT), done.stdout
    return lines


@pytest.mark.parametrize("index", range(len(BUILT)), ids=BUILT)
def test_mojo_print_reads_as_the_layout_built(printed, index):
    tile = Tile(rows=64, cols=64, row_length=64, elem_bytes=2)
    shown = printed[index]
    assert shown.startswith("((") or shown.startswith("((("), shown  # the extra parentheses Mojo writes
    ours = layout_table(tile, parse_layout(f"cute: {shown}", tile=tile))
    built = layout_table(tile, parse_layout(f"cute: {BUILT[index]}", tile=tile))
    assert np.array_equal(ours, built), (shown, BUILT[index])
