"""api.tiled_copy from the CuTe DSL's own layouts (nvidia-cutlass-dsl, on the CPU): inside a
`@cute.jit` function, `cute.make_layout(...)` layouts handed to `api.tiled_copy` give the access
that the same TiledCopy's C++ text gives (the same lanes, the same counts)."""
import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from toolchain_cases import ROOT, missing

from swizzle_solver import api

pytestmark = pytest.mark.toolchain

DRIVER = """
import json, sys
import cutlass.cute as cute
from swizzle_solver import api
out = {}

@cute.jit
def build():
    out["ldsm"] = api.tiled_copy("SM75_U32x4_LDSM_N", cute.make_layout((8, 4), stride=(4, 1)),
                                 cute.make_layout((4, 2), stride=(2, 1)))
    out["copy"] = api.tiled_copy("UniversalCopy<uint128_t>", cute.make_layout((32, 4), stride=(4, 1)),
                                 cute.make_layout((1, 8)))

build()
print(json.dumps(out))
"""
TEXT = {
    "ldsm": "make_tiled_copy(Copy_Atom<SM75_U32x4_LDSM_N, half_t>{}, Layout<Shape<_8,_4>,Stride<_4,_1>>{}, "
            "Layout<Shape<_4,_2>,Stride<_2,_1>>{})",
    "copy": "make_tiled_copy(Copy_Atom<UniversalCopy<uint128_t>, half_t>{}, Layout<Shape<_32,_4>,Stride<_4,_1>>{}, "
            "Layout<Shape<_1,_8>>{})",
}


@pytest.fixture(scope="module")
def from_the_dsl(tmp_path_factory) -> dict:
    if importlib.util.find_spec("cutlass") is None or importlib.util.find_spec("cutlass.cute") is None:
        missing("the CuTe DSL", "pip install nvidia-cutlass-dsl==4.8.1")
    driver = tmp_path_factory.mktemp("tiled_dsl") / "driver.py"  # the DSL compiles from a source file
    driver.write_text(DRIVER)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, str(driver)], capture_output=True, text=True, cwd=ROOT, env=env,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("name", list(TEXT))
def test_the_dsl_layouts_give_the_texts_access(from_the_dsl, name):
    ours = api.problem(64, 64, [from_the_dsl[name]], dtype="f16").patterns[0]
    text = api.problem(64, 64, [TEXT[name]], dtype="f16").patterns[0]
    assert np.array_equal(ours.lane_row, text.lane_row) and np.array_equal(ours.lane_col, text.lane_col)
    a, b = (api.check("Swizzle<3,3,3>", rows=64, cols=64, dtype="f16", access=[s]).json()["answer"]["per_access"][0]
            for s in (from_the_dsl[name], TEXT[name]))
    assert (a["worst_wavefronts"], a["total_wavefronts"]) == (b["worst_wavefronts"], b["total_wavefronts"])
