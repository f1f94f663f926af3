"""The probe targets (`--target`): one record per kernel language, the language's differences as data.

A target writes the probe of a hardware target whose kernels are in its language
(``hardware.Hardware.language``). What differs between CUDA and HIP is here, as fields: which
instruction a lane width is issued with, the profiler's file and probe-compare's reader of it, and
the host program's runtime spelling (common.py's ``host_program`` is the one template both fill).
What cannot be data, the kernels' instructions (inline PTX against ``ds_*`` assembly), is the
target's generator module (cuda.py, hip.py), named here and imported only when a probe is written.

A new target is one entry of ``TARGETS`` plus its generator module (with ``files``, ``metrics``,
``instruction_text``, ``build_line``, ``build_arch``, ``max_shared_bytes``, ``README_NOTES``).
"""
from __future__ import annotations

import importlib
from types import ModuleType

from ..value import Value


class Host(Value):
    """How the host program spells its runtime (common.host_program)."""

    runtime: str  # the API prefix: cudaMalloc / hipMalloc
    header: str  # the includes of the host program, before the kernels
    prop: str  # the device properties' type
    device: str  # printf of the device line: its format and the prop fields
    attribute: str  # how a kernel is passed to ...FuncSetAttribute (HIP takes a const void*)
    guard: str = ""  # a macro that leaves the host program out (HIP's device-only compile)


class ProbeTarget(Value):
    """One probe target: a kernel language and everything its probes do differently."""

    name: str  # --target
    language: str  # the hardware.Hardware.language whose kernels it writes
    module: str  # the generator, swizzle_solver.probe.<module>
    measurement: str  # the profiler's file that run.sh writes and probe-compare reads
    reader: str  # probe-compare's parser of it (compare.py: read_ncu, read_rocprof)
    loads: dict  # lane bytes -> the load a lane of that width issues
    stores: dict  # lane bytes -> the store
    by_width: bool  # an instruction-level op (lds128, sts32) is issued as the load/store of its width
    warp_groups: bool  # whole-warp forms (warp:, mma-c, a linear layout) issued as their own phases
    host: Host
    profiler: str  # what run.sh runs the probe under
    about: str  # for --target's refusal: "NVIDIA, nvcc and Nsight Compute"

    def generator(self) -> ModuleType:
        return importlib.import_module(f"{__package__}.{self.module}")


_CUDA_LOADS = {1: "ld.shared.u8", 2: "ld.shared.u16", 4: "ld.shared.b32", 8: "ld.shared.v2.b32", 16: "ld.shared.v4.b32"}

TARGETS: dict[str, ProbeTarget] = {
    "cuda": ProbeTarget(
        "cuda", "CUDA", "cuda", "ncu.csv", "read_ncu", _CUDA_LOADS,
        {w: op.replace("ld.", "st.") for w, op in _CUDA_LOADS.items()}, by_width=True, warp_groups=True,
        host=Host("cuda", "#include <cstdio>\n#include <cstdlib>\n#include <cuda_runtime.h>", "cudaDeviceProp",
                  '"device: %s (sm_%d%d)\\n", prop.name, prop.major, prop.minor', "k.fn"),
        profiler="Nsight Compute (ncu)", about="NVIDIA, nvcc and Nsight Compute"),
    "hip": ProbeTarget(
        "hip", "HIP", "hip", "rocprof.csv", "read_rocprof",
        {1: "ds_read_u8", 2: "ds_read_u16", 4: "ds_read_b32", 8: "ds_read_b64", 12: "ds_read_b96", 16: "ds_read_b128"},
        {w: f"ds_write_b{8 * w}" for w in (1, 2, 4, 8, 12, 16)}, by_width=False, warp_groups=False,
        host=Host("hip", "", "hipDeviceProp_t", '"device: %s (%s)\\n", prop.name, prop.gcnArchName',
                  "reinterpret_cast<const void*>(k.fn)", guard="PROBE_DEVICE_ONLY"),
        profiler="rocprofv3", about="AMD, hipcc and rocprofv3"),
}


def for_language(language: str) -> ProbeTarget | None:
    """The probe target whose kernels are in ``language`` (a hardware target's), or None."""
    return next((t for t in TARGETS.values() if t.language == language), None)
