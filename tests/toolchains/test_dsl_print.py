"""The CuTe DSL's own print of a layout (nvidia-cutlass-dsl, on the CPU) reads back under `cute:` as
the layout the DSL built: `print(cute.make_swizzle(3, 4, 3))` is `S<3,4,3>`, a composed layout
`S<3,4,3> o 0 o (64,64):(64,1)` (the C++ print's `Sw<...>` is `S<...>` in the DSL). Each printed text
checks to the same table as the constructor text it was printed from (which tests/test_spellings.py
holds to pycute)."""
import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from toolchain_cases import ROOT, missing

from swizzle_solver.layout import layout_table
from swizzle_solver.model import Tile
from swizzle_solver.names import parse_layout

pytestmark = pytest.mark.toolchain

BUILT = [  # (the DSL's constructor, as the tool reads it, in cute: too)
    "cute.make_composed_layout(cute.make_swizzle(3, 3, 3), 0, cute.make_layout((64, 64), stride=(64, 1)))",
    "cute.make_composed_layout(cute.make_swizzle(2, 3, 3), 0, cute.make_layout((64, 64), stride=(64, 1)))",
    "cute.make_composed_layout(cute.make_swizzle(3, 4, 3), 0, cute.make_layout((64, 64), stride=(64, 1)))",
    "cute.make_layout((64, 64), stride=(64, 1))",
    "cute.make_layout(((8, 8), 64), stride=((64, 512), 1))",
    "cute.make_swizzle(3, 3, 3)",
]
DRIVER = """
import json
import cutlass.cute as cute
out = []

@cute.jit
def build():
""" + "".join(f"    out.append(str({text}))\n" for text in BUILT) + """
build()
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def printed(tmp_path_factory) -> list[str]:
    if importlib.util.find_spec("cutlass") is None or importlib.util.find_spec("cutlass.cute") is None:
        missing("the CuTe DSL", "pip install nvidia-cutlass-dsl==4.8.1")
    driver = tmp_path_factory.mktemp("dsl_print") / "driver.py"  # the DSL compiles from a source file
    driver.write_text(DRIVER)
    done = subprocess.run([sys.executable, str(driver)], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=600)
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("index", range(len(BUILT)), ids=BUILT)
def test_the_dsl_print_reads_as_the_layout_built(printed, index):
    tile = Tile(rows=64, cols=64, row_length=64, elem_bytes=2)
    shown = printed[index]
    assert shown and "Sw<" not in shown, shown  # the DSL's spelling (S<...>), not the C++ print's
    ours = layout_table(tile, parse_layout(f"cute: {shown}", tile=tile))
    built = layout_table(tile, parse_layout(f"cute: {BUILT[index]}", tile=tile))
    assert np.array_equal(ours, built), (shown, BUILT[index])
