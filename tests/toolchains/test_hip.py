"""`--emit cuda` on an AMD --arch is the HIP offset function (`static __host__ __device__
__forceinline__ int swizzle_phys(int r, int c)`); here it is compiled the two ways a ROCm build does,
with HIP's own definitions of the qualifiers (`hip/amd_detail/host_defines.h`, from the HIP headers
that Triton's AMD backend ships in `triton/backends/amd/include`):

- device code for the case's arch (gfx942, gfx950, ...): clang in HIP mode (`-x hip
  --offload-arch=ARCH --cuda-device-only`; the clang of the `ziglang` wheel, whose LLVM has the AMDGPU
  back end), in a `__global__` kernel that stores every element's offset; the assembly must be for
  that arch, and with no call left (`__forceinline__` inlined the function);
- host code: g++ (where the same header defines the qualifiers away, as for any host compiler), one
  program that prints swizzle_phys(r, c) for every element, compared with answer.expression.

hipcc and the ROCm runtime could not be installed from PyPI: nothing here links against the HIP runtime or runs on
an AMD GPU. Neither is needed to know that the function compiles for the device and computes the
offsets: the same source is compiled for both sides.
"""
from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from toolchain_cases import CASES, defines, expected, indent, mismatches, missing

pytestmark = pytest.mark.toolchain

AMD_CASES = [case for case in CASES if case.startswith("a")]
AMD_TARGETS = {"rdna3": "gfx1100", "rdna4": "gfx1201"}  # an --arch that is not a gfx name -> clang's


def _package_dir(name: str) -> Path | None:
    spec = importlib.util.find_spec(name)
    return Path(next(iter(spec.submodule_search_locations))) if spec and spec.submodule_search_locations else None


@pytest.fixture(scope="session")  # session: checked before `answers` solves anything
def hip_include() -> Path:
    """HIP's headers, as Triton's AMD backend ships them."""
    triton = _package_dir("triton")
    include = triton / "backends" / "amd" / "include" if triton else None
    if include is None or not (include / "hip" / "amd_detail" / "host_defines.h").exists():
        missing("HIP's headers (in Triton's AMD backend)", "pip install torch==2.13.0 triton==3.9.0")
    return include


@pytest.fixture(scope="session")
def hip_clang(hip_include) -> list[str]:
    """clang in HIP mode for the device side: the `ziglang` wheel's clang, with its own resource headers."""
    zig = _package_dir("ziglang")
    if zig is None:
        missing("clang with the AMDGPU back end", "pip install ziglang==0.17.1")
    return [sys.executable, "-m", "ziglang", "clang", "-x", "hip", "--cuda-device-only", "-nogpulib", "-nogpuinc",
            "-resource-dir", str(zig / "lib"), "-D__HIP_PLATFORM_AMD__", f"-I{hip_include}", "-O2", "-S"]


def _function(case: str, doc: dict) -> str:
    snippet = doc["answer"]["emit"]["cuda"]
    assert defines(snippet, r"__device__\s+__forceinline__\s+int\s+swizzle_phys\s*\("), (
        f"{case}: no `__device__ __forceinline__ int swizzle_phys` in the HIP snippet:\n{snippet}")
    assert "hip/hip_runtime.h" in snippet, f"{case}: the snippet does not say which header it needs:\n{snippet}"
    return snippet


def _kernel(case: str, doc: dict) -> str:
    rows, cols = doc["problem"]["rows"], doc["problem"]["cols"]
    return "\n".join([
        "#include <hip/amd_detail/host_defines.h>  // HIP's __host__, __device__, __global__, __forceinline__",
        _function(case, doc),
        'extern "C" __global__ void offsets(int* out) {  // one thread per element',
        "  int i = __builtin_amdgcn_workgroup_id_x() * 256 + __builtin_amdgcn_workitem_id_x();",
        f"  if (i < {rows * cols}) out[i] = swizzle_phys(i / {cols}, i % {cols});",
        "}",
    ]) + "\n"


@pytest.mark.parametrize("case", AMD_CASES)
def test_hip_function_compiles_for_the_device_of_its_arch(hip_clang, answers, case, tmp_path):
    doc = answers[case]
    arch = doc["problem"]["arch"]
    gfx = AMD_TARGETS.get(arch, arch)
    src = tmp_path / f"{case}.hip"
    src.write_text(_kernel(case, doc))
    done = subprocess.run([*hip_clang, f"--offload-arch={gfx}", str(src), "-o", str(tmp_path / f"{case}.s")],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and not done.stderr.strip(), (
        f"clang -x hip --offload-arch={gfx} rejects the {case} function:\n{done.stderr[-3000:]}\n{src.read_text()}")
    asm = (tmp_path / f"{case}.s").read_text()
    assert f'.amdgcn_target "amdgcn-amd-amdhsa--{gfx}' in asm, f"{case}: not compiled for {gfx}"
    assert re.search(r"^offsets:", asm, re.M), f"{case}: no kernel `offsets` in the assembly"
    assert "s_swappc" not in asm and "s_setpc" not in asm, f"{case}: swizzle_phys is called, not inlined"


@pytest.fixture(scope="module")
def host_offsets(hip_include, answers, tmp_path_factory) -> dict[str, list[int]]:
    """Every AMD case's function in one host program (g++ with HIP's header), run: case -> offsets."""
    gxx = shutil.which("g++") or shutil.which("c++")
    if gxx is None:
        missing("a host C++ compiler", "apt-get install g++")
    parts = ["#include <cstdio>", "#include <hip/amd_detail/host_defines.h>  // the qualifiers, for a host compiler"]
    for case in AMD_CASES:
        doc = answers[case]
        rows, cols = doc["problem"]["rows"], doc["problem"]["cols"]
        parts += [f"namespace {case} {{", _function(case, doc), "void print() {", f'  std::printf("{case}");',
                  indent(f'for (int r = 0; r < {rows}; ++r) for (int c = 0; c < {cols}; ++c) '
                         f'std::printf(" %d", swizzle_phys(r, c));', "  "),
                  '  std::printf("\\n");', "}", f"}}  // namespace {case}"]
    parts += ["int main() {", *(f"  {case}::print();" for case in AMD_CASES), "  return 0;", "}"]
    work = tmp_path_factory.mktemp("hip-host")
    (work / "host.cpp").write_text("\n".join(parts) + "\n")
    build = subprocess.run([gxx, "-std=c++17", "-Wall", "-Werror", f"-I{hip_include}", "-o", str(work / "host"),
                            str(work / "host.cpp")], capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, f"g++ rejects the HIP functions:\n{build.stderr[-4000:]}"
    run = subprocess.run([str(work / "host")], capture_output=True, text=True, timeout=600, check=True)
    return {case: [int(n) for n in numbers] for case, *numbers in (line.split() for line in run.stdout.splitlines())}


@pytest.mark.parametrize("case", AMD_CASES)
def test_hip_function_on_the_host_matches_expression(host_offsets, answers, case):
    doc = answers[case]
    bad = mismatches(host_offsets[case], expected(doc), doc["problem"]["cols"])
    assert not bad, f"{case}: {bad}\n{doc['answer']['emit']['cuda']}"
