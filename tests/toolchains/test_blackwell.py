"""Issue 28's toolchain tier: Blackwell's ldmatrix/stmatrix byte forms, as the tool reads them, are
real PTX (ptxas assembles each for sm_100a and sm_120a, and refuses them for sm_90a), and the TMA
code `--emit tma` writes for every swizzle mode compiles against CUDA 13's cuda.h, each enum being
the value its mode has there.

ptxas comes with nvcc (`nvidia-cuda-nvcc`, `.ci/toolchains`), cuda.h with `nvidia-cuda-runtime`; a
system CUDA (/usr/local/cuda*) is used where the wheels are not installed. No GPU is needed."""
from __future__ import annotations

import importlib.util
import shutil
import subprocess
from pathlib import Path

import pytest
from toolchain_cases import missing

from swizzle_solver import api
from swizzle_solver.access import matrix_b8
from swizzle_solver.emit import emit
from swizzle_solver.names import parse_layout
from swizzle_solver.tma_modes import MODES

pytestmark = pytest.mark.toolchain


def _cuda_dirs() -> list[Path]:
    spec = importlib.util.find_spec("nvidia")
    wheels = [Path(p) / sub for p in (spec.submodule_search_locations or []) for sub in ("cu13", "cu14")] if spec else []
    return [d for d in wheels + sorted(Path("/usr/local").glob("cuda-1[3-9]*")) if d.is_dir()]


@pytest.fixture(scope="module")
def ptxas() -> str:
    found = next((str(d / "bin" / "ptxas") for d in _cuda_dirs() if (d / "bin" / "ptxas").exists()), None)
    found = found or shutil.which("ptxas")
    if found is None:
        missing("ptxas", "pip install nvidia-cuda-nvcc")
    return found


@pytest.fixture(scope="module")
def cuda_include() -> Path:
    found = next((d / "include" for d in _cuda_dirs() if (d / "include" / "cuda.h").exists()), None)
    if found is None:
        missing("cuda.h of CUDA 13", "pip install nvidia-cuda-runtime")
    return found


# Every byte form the tool reads, as a user writes it, and the registers it moves.
FORMS = [f"ldmatrix.m16n16.{x}.trans.{t}" for x in ("x1", "x2") for t in ("b8", "b8x16.b6x16_p32", "b8x16.b4x16_p64")]
FORMS += [f"ldmatrix.m8n16.{x}.b8x16.{t}" for x in ("x1", "x2", "x4") for t in ("b6x16_p32", "b4x16_p64")]
FORMS += [f"stmatrix.m16n8.{x}.trans.b8" for x in ("x1", "x2", "x4")]


def _ptx(target: str) -> str:
    """One kernel issuing every form, each as matrix_b8.instruction() spells the access."""
    lines = [".version 8.8", f".target {target}", ".address_size 64", ".visible .entry probe(.param .u64 out)", "{",
             "  .reg .b32 r<9>;", "  .reg .b64 rd<2>;", "  .shared .align 1024 .b8 smem[8192];", "  mov.u32 r0, smem;"]
    for spec in FORMS:
        op, shape, count, *rest = spec.split(".")
        trans = "trans" in rest
        typ = ".".join(t for t in rest if t != "trans")
        text = matrix_b8.instruction(op, shape, int(count[1:]), trans, typ)
        regs = "{" + ", ".join(f"r{i + 1}" for i in range(matrix_b8.registers(op, shape, int(count[1:])))) + "}"
        lines.append(f"  {text} [r0], {regs};" if op == "stmatrix" else f"  {text} {regs}, [r0];")
    lines += ["  ld.param.u64 rd0, [out];", "  st.global.u32 [rd0], r1;", "  ret;", "}"]
    return "\n".join(lines) + "\n"


def test_every_form_parses_on_sm100():
    for spec in FORMS:
        api.problem(64, 128, [spec], dtype="u8", arch="sm100")


@pytest.mark.parametrize("target, ok", [("sm_100a", True), ("sm_120a", True), ("sm_100f", True), ("sm_90a", False),
                                        ("sm_100", False)])
def test_the_byte_forms_assemble_exactly_where_the_generations_have_them(ptxas, tmp_path, target, ok):
    """ptxas takes every form for sm_100a/sm_120a (and the sm_100f family), and refuses them for
    sm_90a and for plain sm_100: what hardware.py says of sm100/sm120 and of the others."""
    source = tmp_path / "forms.ptx"
    source.write_text(_ptx(target))
    done = subprocess.run([ptxas, f"-arch={target}", str(source), "-o", str(tmp_path / "forms.cubin")],
                          capture_output=True, text=True, timeout=300)
    assert (done.returncode == 0) == ok, done.stderr
    if not ok:
        assert "not supported on .target" in done.stderr


@pytest.mark.parametrize("name", list(MODES))
def test_the_emitted_tma_code_compiles_against_cuda_h(cuda_include, tmp_path, name):
    """The `CUtensorMapSwizzle swizzle = ...;` line of --emit tma for the mode's own layout, in a
    host function compiled with cuda.h; the program prints the enum's value, which must be the
    mode's place in cuda.h's enum (NONE = 0, then tma_modes.MODES in order)."""
    cxx = shutil.which("c++") or shutil.which("g++")
    if cxx is None:
        missing("a C++ compiler", "apt-get install g++")
    prob = api.problem(32, 128, ["row"], dtype="u8", arch="sm100")
    snippet = emit("tma", prob, parse_layout(name, tile=prob.tile))
    line = next(x for x in snippet.code.splitlines() if x.startswith("CUtensorMapSwizzle swizzle ="))
    source = tmp_path / "tma.cpp"
    source.write_text(f"#include <cuda.h>\n#include <cstdio>\nint main() {{\n  {line}\n"
                      f"  std::printf(\"%d\\n\", int(swizzle));\n}}\n")
    binary = tmp_path / "tma"
    built = subprocess.run([cxx, "-std=c++17", f"-I{cuda_include}", str(source), "-o", str(binary)],
                           capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    value = subprocess.run([str(binary)], capture_output=True, text=True, timeout=60).stdout.strip()
    assert int(value) == 1 + list(MODES).index(name)
