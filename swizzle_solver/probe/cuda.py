"""The CUDA probe (``--target cuda``): probe.cu, build.sh, run.sh and the Nsight Compute metrics.

One kernel per access (``probe_a<index>``), so that ncu, which counts per kernel launch, measures
each access alone. Each kernel runs one warp (one block of 32 threads) that loops over the access's
instructions; instruction i's lane addresses are row i of a table of byte offsets (computed here
from the layout's table, the simulator's own: exact, whatever the layout) in global memory, -1 for a
lane that sits the instruction out. The named instruction is inline PTX in ``asm volatile`` (never
merged, moved or dropped; ``"memory"`` keeps it after the fill), its result summed into a checksum
written to global memory so nothing is dead.

What ncu sees in a kernel, and why the prediction is exactly its counters:

- loads (``ld.shared.*``, ``ldmatrix``): the kernel first fills the tile (``st.shared.b32``, a warp
  storing 32 consecutive words per instruction: one wavefront each, no conflict), then loads. The
  fill is stores, counted under ``_op_st``; the access's loads are the only ``_op_ld`` (LDS) or
  ``_op_ldsm`` (LDSM) traffic. The fill is predicted too (a calibration row), and so is the sum over
  every shared-memory op (``l1tex__..._mem_shared.sum``: the loads plus the fill).
- stores (``st.shared.*``, ``stmatrix``, the ``mma-c`` fragment): no fill (the values stored do not
  matter), so the stores are the kernel's only shared-memory traffic.
- nothing else touches shared memory: the table and the checksum are global memory, the loop's
  registers never spill at these sizes.

ncu's counters and the model's quantities: ``..._wavefronts_..._op_X.sum`` is W, the wavefronts of
every instruction summed; ``..._bank_conflicts_..._op_X.sum`` is W minus the ideal (one wavefront per
phase, or more for a phase of more than 128 B): DESIGN.md section 10's ``counter``. The base of the
tile is aligned to 1024 B in the kernel (128 B fixes a bank; 1 KiB covers any swizzle period).
"""
from __future__ import annotations

from .. import __version__
from ..counters import l1tex, ncu_names, ncu_op
from .common import ALIGN_BYTES, c_table, comment, fill_instructions, host_program, run_probe
from .plan import Probe, ProbeAccess
from .targets import TARGETS

WAVE = 32
MAX_SHARED_BYTES = 232448  # sm_90: 227 KiB of dynamic shared memory per block (sm_80: 163 KiB)
DEFAULT_ARCH = "sm_90"
MEASUREMENT = TARGETS["cuda"].measurement
COUNTERS_NOTE = "(ncu: W is ..._wavefronts_..._op_*.sum, bank conflicts W - ideal is ..._bank_conflicts_..._op_*.sum.)"
README_NOTES = """\
How the kernels are made (swizzle_solver/probe/cuda.py): one warp per kernel loops over the access's
instructions, lane addresses from a table of byte offsets (the layout's own table), the instruction as
inline PTX in `asm volatile`. A load kernel first fills the tile with `st.shared.b32` (counted under
`_op_st`, predicted in `also`), so its `_op_ld` / `_op_ldsm` counters are the access alone; a store
kernel does not fill. The tile's base is aligned to 1024 B. Set `ARCH=sm_80` for an A100 (every probe
but stmatrix's builds there), `NVCC` and `NCU` for other binaries."""


def max_shared_bytes(hw) -> int:
    return MAX_SHARED_BYTES


def build_arch(hw) -> str:
    return DEFAULT_ARCH


def build_line(hw) -> str:
    return f"nvcc -O3 -std=c++17 -lineinfo -arch=${{ARCH:-{DEFAULT_ARCH}}} -o probe probe.cu"


def instruction_text(access: ProbeAccess, hw) -> str:
    return ptx(access)

ALL = ("l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum")


def _instructions(op: str) -> str:
    return f"smsp__sass_inst_executed_op_{op}.sum"


# the instruction counters whose names do not follow _instructions(op): LDS / STS count as shared_ld /
# shared_st, and LDGSTS's warp instructions are smsp__inst_executed_op_ldgsts (as profiled cp.async kernels name it)
_INSTRUCTIONS = {"ld": _instructions("shared_ld"), "st": _instructions("shared_st"),
                 "ldgsts": "smsp__inst_executed_op_ldgsts.sum"}


def _kind(access: ProbeAccess) -> str:
    """ncu's name of the op: ld (LDS), st (STS), ldsm (LDSM), stsm (STSM), ldgsts (LDGSTS: cp.async)."""
    return ncu_op(access.op)


def metrics(access: ProbeAccess, storage_bytes: int, reading: int = 0) -> tuple[list[dict], dict]:
    """(groups, also): the counters ncu prints for the access's kernel. probe-compare compares the
    first group whose metrics were all measured (DESIGN.md section 10's names first; ncu versions
    differ in which exist), and shows ``also`` (the fill, the instruction counts) beside it."""
    r = access.readings[reading]
    kind = _kind(access)
    own = ncu_names(kind)  # the names the report's counter uses (counters.py) first
    fill_w = 0 if access.op.store else fill_instructions(storage_bytes, WAVE)
    groups = [{w: r.wavefronts, c: r.conflicts} for w, c in own]
    if not access.op.copy:  # (whether ncu's every-op total holds LDGSTS is not known: not predicted)
        groups.append({ALL[0]: r.wavefronts + fill_w, ALL[1]: r.conflicts})  # every shared op: the fill has no conflict
    also = {_INSTRUCTIONS.get(kind, _instructions(kind)): access.instructions}
    if fill_w:
        w, c = l1tex("st")
        also.update({w: fill_w, c: 0, _instructions("shared_st"): fill_w})
    return groups, also


def metric_names(probe: Probe) -> list[str]:
    """Every metric the run script asks ncu for, in a stable order."""
    names: list[str] = []
    for access in probe.accesses:
        groups, also = metrics(access, probe.storage_bytes)
        for name in [n for g in groups for n in g] + list(also):
            if name not in names:
                names.append(name)
    return names


# --- probe.cu ----------------------------------------------------------------------------------

_LOAD_REGS = {1: 1, 2: 1, 4: 1, 8: 2, 16: 4}


def ptx(access: ProbeAccess) -> str:
    """The PTX instruction (without operands)."""
    op = access.op
    if op.matrices:
        what = "stmatrix" if op.store else "ldmatrix"
        return f"{what}.sync.aligned.m8n8.x{op.matrices}{'.trans' if op.trans else ''}.shared.b16"
    if op.copy:
        return f"{op.name}.L2::128B"  # as CUTLASS's SM80_CP_ASYNC_CACHEGLOBAL writes it
    return op.name


def _registers(access: ProbeAccess) -> int:
    return access.op.matrices or _LOAD_REGS[access.op.lane_bytes]


def _asm(access: ProbeAccess) -> list[str]:
    """The loop body's statements for one instruction (``off``: this lane's byte offset)."""
    if access.op.copy:  # 16 bytes of global memory (lane l's own chunk of probe_src) to this lane's chunk
        return [f'asm volatile("{ptx(access)} [%0], [%1], {access.op.lane_bytes};" :: "r"(base + off), '
                f'"l"(probe_src + 4 * threadIdx.x) : "memory");']
    n = _registers(access)
    vector = n > 1 or access.op.matrices
    regs = ", ".join(f"%{k + (1 if access.op.store else 0)}" for k in range(n))
    regs = "{" + regs + "}" if vector else regs
    if access.op.store:
        values = ", ".join(f'"r"(value + {k}u)' for k in range(n))
        return [f'asm volatile("{ptx(access)} [%0], {regs};" :: "r"(base + off), {values} : "memory");']
    outs = ", ".join(f'"=r"(v{k})' for k in range(n))
    return [f"unsigned {', '.join(f'v{k}' for k in range(n))};",
            f'asm volatile("{ptx(access)} {regs}, [%{n}];" : {outs} : "r"(base + off) : "memory");',
            "sum += " + " + ".join(f"halves(v{k})" for k in range(n)) + ";"]


def kernel_source(access: ProbeAccess) -> str:
    a, op = access, access.op
    name = f"a{a.index}"
    slots = a.offsets.shape[1]
    r = a.readings[0]
    guard = not op.matrices  # ldmatrix / stmatrix are .sync.aligned: every lane executes them
    lines = [
        f"// access {a.index}: {comment(a.spec)}: {ptx(a)}, {a.instructions} instruction(s) for "
        f"{a.placements} placement(s);",
        f"// predicted: {r.wavefronts} wavefronts, ideal {r.ideal}, bank conflicts {r.conflicts}",
        f"// lane byte offsets into the tile, {slots} per instruction (-1: the lane sits it out)",
        f"__device__ const int {name}_offsets[{a.offsets.size}] = {{",
        c_table(a.offsets, slots if slots <= 16 else 16),
        "};",
        f'extern "C" __global__ void __launch_bounds__({WAVE}) probe_{name}(unsigned* out) {{',
    ]
    if op.matrices and op.store:
        lines += ["#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900",
                  '#error "stmatrix needs sm_90 or later: build with ARCH=sm_90"',
                  "#endif"]
    lines.append("  const unsigned base = tile_base();")
    lines.append("  unsigned sum = 0;" if not op.store else "  unsigned sum = 0;  // (stores: counts the lanes that stored)")
    if not op.store:
        lines.append("  fill(base);")
    lines.append("#pragma unroll 1  // one copy of the instruction in the SASS: what the toolchain tier checks")
    lines.append(f"  for (int i = 0; i < {a.instructions}; ++i) {{")
    lines.append(f"    const int off = {name}_offsets[i * {slots} + threadIdx.x];")
    body = _asm(a)
    if op.store:
        value = [] if op.copy else ["const unsigned value = unsigned(i) * 131u + threadIdx.x * 8u;"]
        body = [*value, *body, "sum += 1;"]
    if guard:
        lines.append("    if (off >= 0) {")
        lines += ["      " + s for s in body]
        lines.append("    }")
    else:
        lines += ["    " + s for s in body]
    lines.append("  }")
    if op.copy:  # every copy complete before the kernel ends (commits and waits for them all)
        lines.append('  asm volatile("cp.async.wait_all;" ::: "memory");')
    lines += ["  out[threadIdx.x] = sum;", "}", ""]
    return "\n".join(lines)


def _prelude(probe: Probe) -> str:
    t = probe.problem.tile
    return f"""\
// Probe kernels of swizzle-solve {__version__} (DESIGN.md section 12), generated: do not edit.
// Tile: {comment(t.describe())}; layout {comment(probe.layout.name)}
// Build: bash build.sh (nvcc -O3 -std=c++17 -arch=$ARCH, default {DEFAULT_ARCH}); run: bash run.sh
// Each kernel is one access: one warp loops over its instructions, lane l of instruction i at byte
// offset aN_offsets[i * 32 + l] of the tile (the layout's table, as the simulator reads it).
{TARGETS["cuda"].host.header}

constexpr unsigned WAVE = {WAVE};
constexpr unsigned STORAGE_BYTES = {probe.storage_bytes};  // the tile's shared memory, padding included
constexpr unsigned ALIGN = {ALIGN_BYTES};  // the tile's base is aligned to this (a bank needs 128 B)
constexpr unsigned SMEM_BYTES = STORAGE_BYTES + ALIGN;
constexpr unsigned FILL_WORDS = (STORAGE_BYTES + 3) / 4;

__device__ __forceinline__ unsigned tile_base() {{  // shared-state address of the aligned tile
  extern __shared__ __align__(16) unsigned char smem[];
  const unsigned raw = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  return (raw + ALIGN - 1) & ~(ALIGN - 1);
}}

__device__ __forceinline__ unsigned fill_half(unsigned h) {{ return (h * 40503u + 12345u) & 0xffffu; }}

// The tile's contents before the loads: halfword h holds (h * 40503 + 12345) mod 2^16. One warp stores
// 32 consecutive words per instruction (one wavefront each, no conflict); counted under _op_st.
__device__ __forceinline__ void fill(unsigned base) {{
  for (unsigned w = threadIdx.x; w < FILL_WORDS; w += 32) {{
    const unsigned value = fill_half(2 * w) | (fill_half(2 * w + 1) << 16);
    asm volatile("st.shared.b32 [%0], %1;" :: "r"(base + 4 * w), "r"(value) : "memory");
  }}
  __syncwarp();
}}

__device__ __forceinline__ unsigned halves(unsigned v) {{ return (v & 0xffffu) + (v >> 16); }}

// cp.async's source: 16 bytes of global memory per lane (global memory: no shared-memory traffic)
__device__ __align__(16) unsigned probe_src[4 * 32];

"""


def _host(probe: Probe) -> str:
    return host_program(probe, TARGETS["cuda"].host, WAVE)


def source(probe: Probe) -> str:
    return _prelude(probe) + "\n".join(kernel_source(a) for a in probe.accesses) + "\n" + _host(probe)


def build_script() -> str:
    return f"""\
#!/usr/bin/env bash
# Builds ./probe from probe.cu: nvcc from $NVCC or PATH, for $ARCH (default {DEFAULT_ARCH}; sm_80 for
# an A100: every probe but stmatrix's builds there).
set -euo pipefail
cd "$(dirname "$0")"
"${{NVCC:-nvcc}}" -O3 -std=c++17 -lineinfo -arch="${{ARCH:-{DEFAULT_ARCH}}}" -o probe probe.cu
"""


def run_script(probe: Probe) -> str:
    names = " \\\n  ".join(metric_names(probe))
    return f"""\
#!/usr/bin/env bash
# Runs the probe under Nsight Compute and writes {MEASUREMENT} (every kernel's counters, ncu --csv), which
# `swizzle-solve probe-compare .` compares with prediction.json; device.txt says what ran it.
# $NCU: the ncu to use (default: ncu on PATH). Builds the probe first if needed (build.sh).
set -uo pipefail
cd "$(dirname "$0")"
NCU="${{NCU:-ncu}}"
{run_probe("probe.cu")}WANTED=(
  {names}
)
run_ncu() {{
  rm -f {MEASUREMENT}.part
  "$NCU" --csv --print-units base --kernel-name regex:'^probe_a[0-9]+' --metrics "$(IFS=,; echo "$*")" \\
    --log-file {MEASUREMENT}.part ./probe profile > ncu.stdout 2> ncu.stderr && grep -q probe_a {MEASUREMENT}.part
}}
if ! run_ncu "${{WANTED[@]}}"; then
  # an ncu that lacks one of the metrics stops at it: keep those its --query-metrics lists, try again
  KNOWN=$("$NCU" --query-metrics 2>/dev/null || true)
  USE=()
  for m in "${{WANTED[@]}}"; do
    if grep -qE "(^|[[:space:]])${{m%.sum}}([[:space:]]|$)" <<<"$KNOWN"; then USE+=("$m"); fi
  done
  if [ ${{#USE[@]}} -eq 0 ] || ! run_ncu "${{USE[@]}}"; then
    echo "run.sh: ncu failed:" >&2; tail -n 20 ncu.stderr {MEASUREMENT}.part >&2 2>/dev/null; exit 1
  fi
fi
mv {MEASUREMENT}.part {MEASUREMENT}
{{
  echo "gpu: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)"
  echo "driver: $(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n 1)"
  echo "ncu: $("$NCU" --version 2>/dev/null | tail -n 1)"
  echo "nvcc: $("${{NVCC:-nvcc}}" --version 2>/dev/null | tail -n 1)"
  echo "date: $(date -u +%Y-%m-%d)"
}} > device.txt
echo "run.sh: wrote {MEASUREMENT}; compare: swizzle-solve probe-compare $(pwd)"
"""


def files(probe: Probe) -> dict[str, str]:
    return {"probe.cu": source(probe), "build.sh": build_script(), "run.sh": run_script(probe)}
