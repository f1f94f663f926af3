"""The whole pipeline on AMD targets (issue 12, item 5): the worked example of docs/hardware.md, the
MFMA A-operand tile read with ds_read_b128 and written with ds_write_b128 on gfx942 and gfx950,
solved end to end through the CLI (answer, proof, picture, code), and what the emit targets say on an
AMD --arch: the HIP function, Triton's AMD-backend encodings (padded_shared for padding, no NVMMA),
no TMA. The compilers' own checks of this code are in tests/toolchains (test_triton.py, test_hip.py).
"""
import json
import re
import tomllib
from pathlib import Path
from xml.etree import ElementTree

import pytest

from swizzle_solver import check
from swizzle_solver.access import make_problem
from swizzle_solver.cli import main
from swizzle_solver.emit import emit, expressible_in, parse_targets, tma_mode
from swizzle_solver.families import padding
from swizzle_solver.families.cute import Swizzle
from swizzle_solver.families.identity import Identity

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = tomllib.loads((ROOT / "examples.toml").read_text())["case"]
WORKED = [c for c in EXAMPLES if c["rows"] == 128 and c.get("arch") in ("gfx942", "gfx950")
          and any(a.startswith("mfma-a") for a in c["access"])]


def _argv(case: dict) -> list[str]:
    argv = ["--arch", case["arch"], "--rows", str(case["rows"]), "--cols", str(case["cols"]), "--dtype", case["dtype"]]
    if "row_length" in case:
        argv += ["--row-length", str(case["row_length"])]
    if case.get("keep_pitch"):
        argv.append("--keep-pitch")
    for spec in case["access"]:
        argv += ["--access", spec]
    return argv


def test_the_worked_example_covers_both_targets_both_shapes_and_padding():
    assert {(c["arch"], c["access"][0], "row_length" in c) for c in WORKED} >= {
        (arch, f"mfma-a:{shape}", False) for arch in ("gfx942", "gfx950") for shape in ("16x16x32", "32x32x16")}
    assert {c["arch"] for c in WORKED if "row_length" in c} == {"gfx942", "gfx950"}


@pytest.mark.slow  # the whole CLI with --emit all on a 128 x 64 tile: about 0.5 s a case (the fast tier
# solves the same examples in test_acceptance.py and checks their code in test_emit.py)
@pytest.mark.parametrize("case", WORKED, ids=[c["name"] for c in WORKED])
def test_worked_example_end_to_end(case, capsys):
    """Answer, proof, counters and every target's code in one --json document (the pictures: below)."""
    assert main([*_argv(case), "--emit", "all", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    answer = doc["answer"]
    assert doc["status"] == "conflict-free" and answer["name"] == case["expect"]
    assert doc["problem"]["arch"] == case["arch"] and doc["problem"]["wave_lanes"] == 64
    for result in answer["per_access"]:
        assert result["worst_wavefronts"] == result["lower_bound"]
        assert result["counter"] == {"SQ_LDS_BANK_CONFLICT": 0}
    assert doc["proof"], "no proof in the document"
    assert answer["tma_mode"] is None and "tma" not in answer["expressible_in"]
    assert {"cuda", "triton"} <= set(answer["expressible_in"])
    hip, triton = answer["emit"]["cuda"], answer["emit"]["triton"]
    assert "static __host__ __device__ __forceinline__ int swizzle_phys(int r, int c)" in hip
    assert f"HIP for --arch {case['arch']}" in hip and "hip/hip_runtime.h" in hip
    assert "nvmma" not in triton.lower()
    padded = "row_length" in case
    assert ("#ttg.padded_shared<" in triton) == padded and ("#ttg.swizzled_shared<" in triton) == (not padded)
    assert "not a TMA layout" in answer["emit"]["tma"]


@pytest.mark.slow  # drawing a 128 x 64 tile twice, in the terminal and as SVG: about 1.5 s a case
@pytest.mark.parametrize("case", WORKED, ids=[c["name"] for c in WORKED])
def test_worked_example_pictures(case, capsys, tmp_path):
    svg = tmp_path / "tile.svg"
    assert main([*_argv(case), "--show", "--svg", str(svg)]) == 0
    shown = capsys.readouterr().out
    assert re.search(rf"after: {re.escape(case['expect'])}[,\s]", shown), shown[-2000:]
    figure = ElementTree.fromstring(svg.read_text())
    assert figure.tag == "{http://www.w3.org/2000/svg}svg" and case["expect"] in "".join(figure.itertext())


# Triton's AMD backend pads an MFMA operand read with ds_read_b128 by 2 kWidth elements for MFMA 16
# and kWidth for MFMA 32 (composePaddedLayoutForAsyncCopyCDNA4, lib/Dialect/TritonGPU/Transforms/
# Utility.cpp; kWidth = 8 f16 elements, 16 B): an independent choice that the simulator must find.
TRITON_CDNA4_PAD = {"16x16x32": 16, "32x32x16": 8}


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
@pytest.mark.parametrize("shape", sorted(TRITON_CDNA4_PAD))
def test_the_only_conflict_free_power_of_two_row_padding_is_tritons(arch, shape):
    passing = [pad for pad in (1, 2, 4, 8, 16, 32)
               if check(f"pitch {64 + pad}", rows=128, cols=64, dtype="f16", arch=arch,
                        access=[f"mfma-a:{shape}", "ds_write_b128:8x8"]).passed]
    assert passing == [TRITON_CDNA4_PAD[shape]]


def _problem(arch: str, rows=64, cols=64, access=("ds_write_b128:8x8", "ds_read_b128:64x1"), row_length=None):
    return make_problem(rows, cols, list(access), row_length, 2, arch=arch)


def test_the_same_layout_on_nvidia_keeps_its_nvidia_forms():
    """NVIDIA output is unchanged: NVMMA and TMA for the 128B swizzle; on gfx942 neither."""
    layout = Swizzle(3, 3, 3)
    nvidia, amd = _problem("nvidia", access=["ldmatrix.x4"]), _problem("gfx942")
    assert "#ttg.nvmma_shared<" in emit("triton", nvidia, layout).code
    assert tma_mode(nvidia, layout) == "128B" and "tma" in expressible_in(nvidia, layout)
    assert "static inline __host__ __device__ int swizzle_phys" in emit("cuda", nvidia, layout).code
    assert "HIP" not in emit("cuda", nvidia, layout).code
    assert "#ttg.nvmma_shared<" not in emit("triton", amd, layout).code
    assert "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>" in emit("triton", amd, layout).code
    assert tma_mode(amd, layout) is None and "tma" not in expressible_in(amd, layout)


def test_emit_hip_is_the_c_function():
    assert parse_targets(["hip"]) == ["cuda"] and parse_targets(["hip,triton", "cuda"]) == ["cuda", "triton"]


def test_amd_padding_is_padded_shared_and_a_swizzle_on_padded_rows_is_refused_in_one_line():
    """Triton's padded_shared may remap offsets only by bases that each move along one dimension (its
    verifier), so padding plus an XOR cannot be said; a power-of-two padding can."""
    p = _problem("gfx950", rows=128, row_length=80)
    snippet = emit("triton", p, padding.Padded(80, Identity()))
    assert snippet.expressible and "#ttg.padded_shared<[64:+16] {order = [1, 0], shape = [128, 64]}>" in snippet.code
    refused = emit("triton", p, padding.Padded(80, Swizzle(1, 3, 3)))
    assert not refused.expressible
    lines = refused.code.splitlines()
    assert lines[-1].startswith("# cannot express in Triton: ") and "padding mixed with a swizzle" in lines[-1]
    assert sum("cannot express" in line for line in lines) == 1 and "= ttgl." not in refused.code


def test_no_nvidia_hardware_forms_on_amd_in_cute_and_mojo():
    """The GMMA atom and make_tma_copy (CuTe), TensorMapSwizzle (Mojo) are NVIDIA's TMA/wgmma forms:
    on an AMD --arch the element-level layout is the code (test_emit.py evaluates it)."""
    nvidia, amd = _problem("nvidia", access=["ldmatrix.x4"]), _problem("gfx942")
    for target, nvidia_only in (("cute", "GMMA::Layout_K_SW128_Atom"), ("mojo", "TensorMapSwizzle")):
        assert nvidia_only in emit(target, nvidia, Swizzle(3, 3, 3)).code
        assert nvidia_only not in emit(target, amd, Swizzle(3, 3, 3)).code
    cute = emit("cute", amd, Swizzle(3, 3, 3)).code
    assert re.search(r"^auto smem_layout = cute::composition\(SmemSwizzle\{\},", cute, re.M)
