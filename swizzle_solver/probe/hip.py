"""The HIP probe (``--target hip``): probe.hip, build.sh, run.sh and the rocprofv3 counters.

The same plan as the CUDA probe (cuda.py): one kernel per access (``probe_a<index>``), one wave (one
workgroup of 64 lanes on CDNA, 32 on RDNA) looping over the access's instructions, lane byte offsets
from a table in global memory (-1: the lane sits the instruction out), the instruction as inline
assembly (``ds_read_b128``, ``ds_write_b64``, ``ds_read2_b64 ... offset0:A offset1:B``,
``ds_read_b64_tr_b16``, ...) in ``asm volatile`` with its own ``s_waitcnt`` (the compiler does not
track an inline asm's LDS traffic). A load kernel fills the tile first with ``ds_write_b32`` (a wave
writing consecutive dwords: no bank conflict on any target), so the fill adds nothing to
``SQ_LDS_BANK_CONFLICT``; a store kernel does not fill.

The counter: rocprofv3's ``SQ_LDS_BANK_CONFLICT`` counts the cycles LDS instructions stall on bank
conflicts, per kernel: DESIGN.md section 9's ``counter`` per instruction (its cost minus its phases),
summed over the instructions, W - ideal. ``SQ_LDS_IDX_ACTIVE`` (the cycles LDS is busy with indexed
instructions, fill included) is collected and shown, not predicted.

A two-address instruction (ds_read2_*, ds_write2_*) takes one address per lane and its two offsets
as immediates of the instruction: the probe can issue it only where the second address of every lane
is the first plus the same distance (in the op's units, 0 to 255), as a compiler's would be.
"""
from __future__ import annotations

import re

import numpy as np

from .. import __version__
from ..hardware import Hardware
from ..model import InputError
from .common import ALIGN_BYTES, c_table, comment, host_program, run_probe
from .plan import Probe, ProbeAccess
from .targets import TARGETS

MEASUREMENT = TARGETS["hip"].measurement
COUNTERS_NOTE = "(AMD: wavefronts are the phases' cycles, and bank conflicts are what SQ_LDS_BANK_CONFLICT counts.)"
CONFLICT = "SQ_LDS_BANK_CONFLICT"
ACTIVE = "SQ_LDS_IDX_ACTIVE"
OFFLOAD = {"rdna3": "gfx1100", "rdna4": "gfx1201"}  # a target whose name is not clang's
LDS_BYTES = {"gfx950": 160 * 1024, "gfx1250": 320 * 1024}  # per workgroup; 64 KiB elsewhere
README_NOTES = """\
How the kernels are made (swizzle_solver/probe/hip.py): one wave per kernel loops over the access's
instructions, lane addresses from a table of byte offsets (the layout's own table), the instruction as
inline assembly with its own `s_waitcnt`. A load kernel first fills the tile with `ds_write_b32` (no
bank conflict), so `SQ_LDS_BANK_CONFLICT` is the access's alone; a store kernel does not fill. The tile's
base is aligned to 1024 B. `HIPCC` and `ROCPROF` select other binaries; `ARCH` another --offload-arch."""


def offload_arch(hw: Hardware) -> str:
    return OFFLOAD.get(hw.name, hw.name)


def build_arch(hw: Hardware) -> str:
    return offload_arch(hw)


def build_line(hw: Hardware) -> str:
    return f"hipcc -O3 -std=c++17 --offload-arch=${{ARCH:-{offload_arch(hw)}}} -o probe probe.hip"


def max_shared_bytes(hw: Hardware) -> int:
    return LDS_BYTES.get(hw.name, 64 * 1024)


def gfx12(hw: Hardware) -> bool:
    """gfx11 and later spell the DS instructions ds_load_* / ds_store_* (hardware.gfx12_name's reverse)."""
    return hw.name in ("rdna3", "rdna4", "gfx1250")


_NEW_NAMES = (("ds_read2st64_", "ds_load_2addr_stride64_"), ("ds_write2st64_", "ds_store_2addr_stride64_"),
              ("ds_read2_", "ds_load_2addr_"), ("ds_write2_", "ds_store_2addr_"), ("ds_read_", "ds_load_"),
              ("ds_write_", "ds_store_"))


def mnemonic(op: str, hw: Hardware) -> str:
    if not gfx12(hw):
        return op
    for old, new in _NEW_NAMES:
        if op.startswith(old):
            return new + op[len(old):]
    return op


def wait(hw: Hardware) -> str:
    return "s_wait_dscnt 0x0" if hw.name in ("rdna4", "gfx1250") else "s_waitcnt lgkmcnt(0)"


def instruction_text(access: ProbeAccess, hw: Hardware) -> str:
    return mnemonic(access.op.name, hw)


def metrics(access: ProbeAccess, storage_bytes: int, reading: int = 0) -> tuple[list[dict], dict]:
    r = access.readings[reading]
    return [{CONFLICT: r.conflicts}], {ACTIVE: None}


# --- two-address instructions --------------------------------------------------------------------------

def _unit(op: str, lane_bytes: int) -> int:
    """Bytes per unit of a ds_read2 / ds_write2 immediate offset (st64: 64 of them)."""
    return lane_bytes * (64 if "st64" in op else 1)


def two_address(access: ProbeAccess, wave: int) -> tuple[np.ndarray, int, int]:
    """(base per lane and instruction, offset0, offset1) of a ds_read2 / ds_write2 access; InputError
    where one instruction form cannot issue it (the distance is not the same for every lane)."""
    first, second = access.offsets[:, :wave], access.offsets[:, wave:]
    active = (first >= 0) & (second >= 0)
    distance = set((second - first)[active].tolist())
    unit = _unit(access.op.name, access.op.lane_bytes)
    if len(distance) != 1 or next(iter(distance)) % unit or abs(next(iter(distance))) // unit > 255:
        shown = ", ".join(f"{d} B" for d in sorted(distance)[:4])
        raise InputError(f"access {access.spec!r}: {access.op.name} takes its two offsets as immediates, so every "
                         f"lane's second address must be its first plus one distance (a multiple of {unit} B, at "
                         f"most 255 of them); here the distances are {shown}: probe it with "
                         f"{re.sub(r'2(st64)?_', '_', access.op.name)} instead")
    d = next(iter(distance))
    base = np.where(active, np.minimum(first, second), -1)
    return base, (0 if d >= 0 else -d // unit), (d // unit if d >= 0 else 0)


# --- probe.hip -----------------------------------------------------------------------------------------

_REGS = {1: 1, 2: 1, 4: 1, 8: 2, 12: 3, 16: 4}
_TYPES = {1: "unsigned", 2: "u32x2", 3: "u32x3", 4: "u32x4"}


def _registers(access: ProbeAccess) -> int:
    op = access.op
    if "_tr_" in op.name:
        return 2  # ds_read_b64_tr_*: 64 bits per lane
    return _REGS[op.lane_bytes] * op.addresses


def _sum(var: str, n: int, bits: int) -> str:
    parts = [var] if n == 1 else [f"{var}.{'xyzw'[k]}" for k in range(n)]
    fn = {16: "halves", 8: "bytes", 4: "nibbles"}[bits]
    return "sum += " + " + ".join(f"{fn}({p})" for p in parts) + ";"


def kernel_source(access: ProbeAccess, hw: Hardware) -> str:
    a, op = access, access.op
    name, wave = f"a{a.index}", hw.wave_lanes
    table = a.offsets
    imm = ""
    if op.addresses == 2:
        table, offset0, offset1 = two_address(a, wave)
        imm = f" offset0:{offset0} offset1:{offset1}"
    slots = table.shape[1]
    r = a.readings[0]
    n = _registers(a)
    vtype = _TYPES[n]
    text = mnemonic(op.name, hw)
    bits = 8 if op.lane_bytes == 1 else op.checksum_bits
    if op.store:
        k = n // op.addresses  # registers of one data operand (ds_write2: two operands)
        dtype = _TYPES[k]
        data = "value" if k == 1 else f"{dtype}{{{', '.join(f'value + {j}u' for j in range(k))}}}"
        operands = ", ".join(f"%{j + 1}" for j in range(op.addresses))
        values = ", ".join('"v"(data)' for _ in range(op.addresses))
        body = ["const unsigned value = unsigned(i) * 131u + lane * 8u;",
                f"const {dtype} data = {data};",
                f'asm volatile("{text} %0, {operands}{imm}" :: "v"(base + off), {values} : "memory");', "sum += 1;"]
    else:
        body = [f"{vtype} v;",
                f'asm volatile("{text} %0, %1{imm}\\n\\t{wait(hw)}" : "=v"(v) : "v"(base + off) : "memory");',
                _sum("v", n, bits)]
    lines = [
        f"// access {a.index}: {comment(a.spec)}: {text}, {a.instructions} instruction(s) for {a.placements} "
        f"placement(s);",
        f"// predicted: {r.wavefronts} cycles, ideal {r.ideal}, {CONFLICT} {r.conflicts}"
        + "".join(f"; {x.label}: {x.conflicts}" for x in a.readings[1:]),
        f"// lane byte offsets into the tile, {slots} per instruction (-1: the lane sits it out)",
        f"__device__ const int {name}_offsets[{table.size}] = {{",
        c_table(table, 16),
        "};",
        f'extern "C" __global__ void PROBE_BOUNDS probe_{name}(unsigned* out) {{',
        "  const unsigned lane = PROBE_LANE;",
        "  const unsigned base = tile_base();",
        "  unsigned sum = 0;",
    ]
    if not op.store:
        lines.append("  fill(base, lane);")
    lines += ["#pragma unroll 1  // one copy of the instruction in the assembly: what the toolchain tier checks",
              f"  for (int i = 0; i < {a.instructions}; ++i) {{",
              f"    const int off = {name}_offsets[i * {slots} + lane];",
              "    if (off >= 0) {",
              *("      " + s for s in body),
              "    }", "  }", "  out[lane] = sum;", "}", ""]
    return "\n".join(lines)


def _prelude(probe: Probe) -> str:
    hw, t = probe.problem.hardware, probe.problem.tile
    wave = hw.wave_lanes
    return f"""\
// Probe kernels of swizzle-solve {__version__} (DESIGN.md section 12), generated: do not edit.
// Tile: {comment(t.describe())}; layout {comment(probe.layout.name)}; --arch {hw.name}
// Build: bash build.sh ({build_line(hw)}); run: bash run.sh
// Each kernel is one access: one wave loops over its instructions, lane l of instruction i at byte
// offset aN_offsets[i * {wave} + l] of the tile (the layout's table, as the simulator reads it).
// PROBE_DEVICE_ONLY: the kernels alone, with only HIP's qualifiers (the toolchain tier's clang).
#if defined(PROBE_DEVICE_ONLY)
#include <hip/amd_detail/host_defines.h>
#define PROBE_LANE __builtin_amdgcn_workitem_id_x()
#else
#include <hip/hip_runtime.h>
#include <cstdio>
#include <cstdlib>
#define PROBE_LANE threadIdx.x
#endif
#define PROBE_BOUNDS __attribute__((amdgpu_flat_work_group_size({wave}, {wave})))

typedef unsigned u32x2 __attribute__((ext_vector_type(2)));
typedef unsigned u32x3 __attribute__((ext_vector_type(3)));
typedef unsigned u32x4 __attribute__((ext_vector_type(4)));

constexpr unsigned WAVE = {wave};
constexpr unsigned STORAGE_BYTES = {probe.storage_bytes};  // the tile's LDS, padding included
constexpr unsigned ALIGN = {ALIGN_BYTES};  // the tile's base is aligned to this
constexpr unsigned SMEM_BYTES = STORAGE_BYTES + ALIGN;
constexpr unsigned FILL_WORDS = (STORAGE_BYTES + 3) / 4;

__device__ __forceinline__ unsigned tile_base() {{  // LDS address of the aligned tile
  extern __shared__ __attribute__((aligned(16))) unsigned char smem[];
  const unsigned raw = static_cast<unsigned>(reinterpret_cast<unsigned long>(
      (__attribute__((address_space(3))) unsigned char*)smem));
  return (raw + ALIGN - 1) & ~(ALIGN - 1);
}}

__device__ __forceinline__ unsigned fill_half(unsigned h) {{ return (h * 40503u + 12345u) & 0xffffu; }}

// The tile's contents before the loads: halfword h holds (h * 40503 + 12345) mod 2^16. The wave writes
// consecutive dwords with ds_write_b32 (no bank conflict), then waits for them.
__device__ __forceinline__ void fill(unsigned base, unsigned lane) {{
  for (unsigned w = lane; w < FILL_WORDS; w += WAVE) {{
    const unsigned value = fill_half(2 * w) | (fill_half(2 * w + 1) << 16);
    asm volatile("{mnemonic('ds_write_b32', hw)} %0, %1" :: "v"(base + 4 * w), "v"(value) : "memory");
  }}
  asm volatile("{wait(hw)}" ::: "memory");
}}

__device__ __forceinline__ unsigned halves(unsigned v) {{ return (v & 0xffffu) + (v >> 16); }}
__device__ __forceinline__ unsigned bytes(unsigned v) {{
  return (v & 0xffu) + ((v >> 8) & 0xffu) + ((v >> 16) & 0xffu) + (v >> 24);
}}
__device__ __forceinline__ unsigned nibbles(unsigned v) {{
  unsigned s = 0;
  for (int k = 0; k < 8; ++k) s += (v >> (4 * k)) & 0xfu;
  return s;
}}

"""


def _host(probe: Probe) -> str:
    return host_program(probe, TARGETS["hip"].host, probe.problem.hardware.wave_lanes)


def source(probe: Probe) -> str:
    hw = probe.problem.hardware
    return _prelude(probe) + "\n".join(kernel_source(a, hw) for a in probe.accesses) + "\n" + _host(probe)


def build_script(hw: Hardware) -> str:
    return f"""\
#!/usr/bin/env bash
# Builds ./probe from probe.hip: hipcc from $HIPCC or PATH, for $ARCH (default {offload_arch(hw)}).
set -euo pipefail
cd "$(dirname "$0")"
"${{HIPCC:-hipcc}}" -O3 -std=c++17 --offload-arch="${{ARCH:-{offload_arch(hw)}}}" -o probe probe.hip
"""


def run_script() -> str:
    return f"""\
#!/usr/bin/env bash
# Runs the probe under rocprofv3 and writes {MEASUREMENT} (its counter collection: {CONFLICT} and {ACTIVE}
# of every kernel), which `swizzle-solve probe-compare .` compares with prediction.json; device.txt says
# what ran it. $ROCPROF: the rocprofv3 to use (default: rocprofv3 on PATH). Builds the probe if needed.
set -uo pipefail
cd "$(dirname "$0")"
ROCPROF="${{ROCPROF:-rocprofv3}}"
{run_probe("probe.hip")}rm -rf rocprof.out
if ! "$ROCPROF" --pmc {CONFLICT} {ACTIVE} --kernel-include-regex '^probe_a[0-9]+' --output-format csv \\
    -d rocprof.out -o probe -- ./probe profile > rocprof.stdout 2> rocprof.stderr; then
  echo "run.sh: rocprofv3 failed:" >&2; tail -n 20 rocprof.stderr >&2; exit 1
fi
found=$(find rocprof.out -name '*counter_collection.csv' | head -n 1)
[ -n "$found" ] || {{ echo "run.sh: rocprofv3 wrote no counter_collection.csv" >&2; exit 1; }}
cp "$found" {MEASUREMENT}
{{
  echo "gpu: $(rocminfo 2>/dev/null | grep -m 1 -o 'Marketing Name:.*' | sed 's/Marketing Name: *//')"
  echo "driver: $(cat /sys/module/amdgpu/version 2>/dev/null)"
  echo "rocprofv3: $("$ROCPROF" --version 2>/dev/null | head -n 1)"
  echo "date: $(date -u +%Y-%m-%d)"
}} > device.txt
echo "run.sh: wrote {MEASUREMENT}; compare: swizzle-solve probe-compare $(pwd)"
"""


def files(probe: Probe) -> dict[str, str]:
    hw = probe.problem.hardware
    return {"probe.hip": source(probe), "build.sh": build_script(hw), "run.sh": run_script()}
