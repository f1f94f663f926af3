"""docs/kernel-toolchains.md's Mojo command run as printed: its ```mojo block (imports and `main`,
`compile_info[my_kernel, emission_kind="asm", target=get_gpu_target["sm_90"]()]().asm`) around a
Mojo kernel written here, built by `mojo run` on this CPU (no GPU: mojo 1.2 with the MAX runtime,
`max-core`, whose libmax.so carries the NVPTX back end), and the PTX it prints read by
`swizzle-solve kernel`, each shared-memory row held to a per-lane brute force of the kernel's index
expressions (tests/nvidia_banks.py's counter).

The kernel: a 32 x 32 f32 transpose through a tile of ``PITCH`` floats a row, block 32 x 8, each
thread four rows apart (``j`` = 0, 8, 16, 24): it stores ``tile[(ty + j) * PITCH + tx]`` and loads
``tile[tx * PITCH + ty + j]``: with PITCH 32 the load's 32 lanes share one bank, with 33 none do.
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from nvidia_banks import WARP, instruction_cost
from toolchain_cases import ROOT, missing

from swizzle_solver import kernel

pytestmark = pytest.mark.toolchain

BLOCK = (32, 8)
KERNEL = """
from max.gpu import thread_idx, barrier
from max.gpu.memory import AddressSpace
from std.memory import stack_allocation


def my_kernel(dst: UnsafePointer[Float32, MutAnyOrigin], src: UnsafePointer[Float32, MutAnyOrigin]):
    var tile = stack_allocation[32 * PITCH, Float32, address_space = AddressSpace.SHARED]()
    var x = Int(thread_idx.x)
    var y = Int(thread_idx.y)
    for j in range(0, 32, 8):
        tile[(y + j) * PITCH + x] = src[(y + j) * 32 + x]
    barrier()
    for j in range(0, 32, 8):
        dst[(y + j) * 32 + x] = tile[x * PITCH + y + j]
"""


def documented() -> str:
    """The ```mojo block of docs/kernel-toolchains.md, as printed."""
    text = (ROOT / "docs" / "kernel-toolchains.md").read_text()
    (block,) = re.findall(r"```mojo\n(.*?)```", text, flags=re.S)
    assert 'compile_info[my_kernel, emission_kind="asm", target=get_gpu_target["sm_90"]()]().asm' in block
    return block


@pytest.fixture(scope="module")
def mojo() -> str:
    binary = Path(sys.executable).parent / "mojo"
    if not binary.exists():
        missing("mojo", "pip install mojo==1.2.0")
    site = Path(subprocess.run([sys.executable, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    if not (site / "modular" / "lib" / "libmax.so").exists():
        missing("the MAX runtime (modular/lib/libmax.so: without it mojo has no NVPTX back end and "
                "compile_info for a GPU target stops with 'please install MAX for accelerator support')",
                "pip install --no-deps max-core==26.7.0")
    return str(binary)


def ptx_of(mojo: str, pitch: int, tmp_path: Path) -> str:
    """The documented program, with the kernel above, run."""
    imports, _, rest = documented().partition("\ndef main")
    source = tmp_path / f"transpose_{pitch}.mojo"
    source.write_text(imports + KERNEL.replace("PITCH", str(pitch)) + "\n\ndef main" + rest)
    done = subprocess.run([mojo, "run", str(source)], capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert ".entry" in done.stdout and ".target sm_90" in done.stdout, done.stdout[:500]
    return done.stdout


def brute(pitch: int) -> dict[str, tuple[int, int, int]]:
    """op -> (instances, wavefronts, ideal) over the block's warps (warp w: ty = w, lanes tx)."""
    out = {}
    for op, index in (("st", lambda x, y, j: (y + j) * pitch + x), ("ld", lambda x, y, j: x * pitch + y + j)):
        inst = waves = ideal = 0
        for w in range(BLOCK[0] * BLOCK[1] // WARP):
            for j in range(0, 32, 8):
                cost = instruction_cost([index(x, w, j) * 4 for x in range(WARP)], 4, op == "ld")
                inst, waves, ideal = inst + 1, waves + cost[0], ideal + cost[1]
        out[op] = (inst, waves, ideal)
    return out


@pytest.mark.parametrize("pitch", [32, 33])
def test_the_documented_mojo_command_gives_ptx_that_kernel_counts(mojo, tmp_path, pitch):
    ptx = ptx_of(mojo, pitch, tmp_path)
    report = kernel(ptx, block=(*BLOCK, 1))
    (k,) = report.to_json()["kernels"]
    rows = k["instructions"]
    want = brute(pitch)
    assert {r["op"] for r in rows} == set(want)
    for op, (inst, waves, ideal) in want.items():
        mine = [r for r in rows if r["op"] == op]
        assert (sum(r["instances"] for r in mine), sum(r["wavefronts"] for r in mine),
                sum(r["ideal_wavefronts"] for r in mine)) == (inst, waves, ideal), op
        for r in mine:  # every instance of an op costs the same here: each row in proportion
            assert r["wavefronts"] * inst == waves * r["instances"], (op, r["ptx"])
    assert report.status == ("conflicts" if pitch == 32 else "conflict-free")
    assert want["ld"][1] == (8 * 4 * 32 if pitch == 32 else 8 * 4)  # the brute force itself: 32-way, or none
