"""`swizzle-solve probe` compiled by the real toolchains, and the named instruction found in what they emit.

- CUDA (`--target cuda`): each probe is built exactly as its build.sh does (nvcc from the
  `nvidia-cuda-nvcc` wheel, sm_90), and compiled again for sm_80 (`-cubin`; a probe with stmatrix must
  stop there with its own #error: stmatrix is sm_90's). In the SASS (`cuobjdump -sass`, from the
  `nvidia-cuda-cuobjdump` and `nvidia-cuda-nvdisasm` wheels) every kernel has the instruction its
  access names exactly once (the loop is not unrolled), and no other shared-memory instruction but
  the fill's 32-bit STS in a load kernel: what ncu counts is the access alone. Without cuobjdump the
  PTX (`nvcc -ptx`) is checked for the instruction instead.
- HIP (`--target hip`): the probe's kernels compiled by clang in HIP mode for the probe's gfx target
  (the `ziglang` wheel's clang, device code only, as tests/toolchains/test_hip.py compiles the HIP
  function), and the assembly read the same way: each kernel issues its ds_read/ds_write and, in a
  load kernel, the fill's ds_write_b32, and no other LDS instruction.

No GPU is needed: running the probes is the gpu tier's (tests/gpu, bench/gpu_probe.py).
"""
from __future__ import annotations

import importlib.util
import json
import re
import shlex
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from toolchain_cases import ROOT, missing

pytestmark = pytest.mark.toolchain

# NVIDIA: every ld.shared width, every ldmatrix / stmatrix form, every lds / sts op, the warp forms,
# blocks, explicit phases, a Triton linear layout, padding and column panels; solved answers and
# --check'ed layouts (unswizzled ones have conflicts: the prediction is not always 0).
CUDA_CASES = {
    "n01-ldmatrix-mma-c": "--rows 64 --cols 64 --dtype f16 --access ldmatrix.x4 --access mma-c:m16n8",
    "n02-warp-float4": "--rows 32 --cols 32 --dtype f32 --access warp:4x8:1x4 --access warp:32x1:1x4",
    "n03-matrix-forms": "--rows 64 --cols 64 --dtype f16 " + " ".join(
        f"--access {op}.x{k}{t}" for op in ("ldmatrix", "stmatrix") for k in (1, 2, 4) for t in ("", ".trans"))
        + " --check none",
    "n04-lds-sts-ops": "--rows 64 --cols 64 --dtype i8 " + " ".join(
        f"--access {d}{b}:32x1" for d in ("lds", "sts") for b in (8, 16, 32, 64, 128)) + " --check Swizzle<3,4,3>",
    "n05-f32-blocks": "--rows 32 --cols 40 --dtype f32 --access 8x4 --access 32x1 --access col --access row",
    "n06-f64": "--rows 32 --cols 32 --dtype f64 --access 8x1 --access row --check none",
    "n07-f16-row": "--rows 32 --cols 64 --dtype f16 --access row --access 8x1 --access 8x8",
    "n08-diagonal-phases": "--rows 32 --cols 32 --dtype f32 --access row --access col "
                           "--phases phases/main-diagonal-32.toml",
    "n09-linear-layout": "--rows 32 --cols 16 --dtype f32 --linear-layout examples/mma-c-m16n8-f32.json",
    "n10-padded": "--rows 64 --cols 96 --dtype bf16 --access 8x8 --access 8x8:2 --check 'pitch 104 + XorCols<1,3,3>'",
    "n11-f32-mma-c": "--rows 32 --cols 32 --dtype f32 --access mma-c --check none",
    "n12-two-level": "--rows 16 --cols 256 --dtype f16 --access 8x8 --phases phases/row-as-16x16-f16.toml",
    "n13-tma-panels": "--rows 64 --cols 128 --dtype f16 --access 8x8 --access row --for tma",
    "n14-i8-row-col": "--rows 64 --cols 64 --dtype i8 --access row --access col --access 8x16 --check none",
    "n15-col-m-major": "--rows 128 --cols 32 --order col --dtype f16 --access ldmatrix.x4.trans --access 8x8",
    "n16-col-fp4": "--rows 256 --cols 64 --order col --dtype fp4 --access 32x8 --access cp.async",
    # cp.async issued as itself (SASS LDGSTS, counted by ncu under _op_ldgsts), unswizzled: 4-way conflicts
    "n17-cp-async": "--rows 64 --cols 64 --dtype f16 --access cp.async --access ldmatrix.x2 --check none",
}

# AMD: the instructions and MFMA operand reads of the worked examples, every cell the tables mark
# unverified that a kernel can issue (gfx950 ds_read_b32's disputed reading, ds_read2_b64, ds_write_b128,
# b96), the transposing read, and a block form.
HIP_CASES = {
    "h01-gfx942-b128": "--arch gfx942 --rows 64 --cols 64 --dtype f16 --access ds_write_b128:8x8 "
                       "--access ds_read_b128:64x1",
    "h02-gfx950-b128": "--arch gfx950 --rows 64 --cols 64 --dtype f16 --access ds_write_b128:8x8 "
                       "--access ds_read_b128:64x1",
    "h03-gfx950-b32-disputed": "--arch gfx950 --rows 64 --cols 64 --dtype f32 --access ds_read_b32:64x1",
    "h04-gfx942-mfma-a": "--arch gfx942 --rows 64 --cols 64 --dtype f16 --access ds_write_b64:4x16 "
                         "--access mfma-a:32x32x8",
    "h05-gfx950-mfma-a": "--arch gfx950 --rows 128 --cols 64 --dtype f16 --access mfma-a:16x16x32 "
                         "--access ds_write_b128:8x8",
    "h06-gfx950-read2": "--arch gfx950 --rows 64 --cols 64 --dtype e4m3 --access ds_read2_b64:64x1 --check none",
    "h07-gfx942-b96-u16-u8": "--arch gfx942 --rows 64 --cols 96 --dtype f32 --access ds_read_b96:64x1 "
                             "--access ds_write_b96:64x1 --check none",
    "h08-gfx950-tr16-narrow": "--arch gfx950 --rows 64 --cols 64 --dtype f16 --access ds_read_b64_tr_b16:16x4 "
                              "--access ds_read_u16:64x1 --access ds_write_b16:64x1 --check none",
    "h09-gfx942-block": "--arch gfx942 --rows 64 --cols 64 --dtype f16 --access 8x8 --access row --check none",
    "h10-rdna4-b128": "--arch rdna4 --rows 32 --cols 64 --dtype f16 --access ds_write_b128:4x8 --access ds_read_b128:32x1",
    # gfx950's 8-byte MFMA reads as compilers issue them (ds_read2_b64, two K-steps: offset1 = K / 8)
    "h11-gfx950-mfma-read2": "--arch gfx950 --rows 64 --cols 64 --dtype e4m3 --access mfma-a:16x16x32:ds_read2_b64 "
                             "--access mfma-b:32x32x16:ds_read2_b64 --access mfma-a:16x16x32 --check none",
}

SASS = {"u8": ".U8", "u16": ".U16", "b32": "", "v2.b32": ".64", "v4.b32": ".128"}


def sass_name(op: str) -> str:
    """The SASS mnemonic of a probe's op (prediction.json's ``op``); cp.async's LDGSTS is matched by its
    name alone (``_named``: its qualifiers, .E.BYPASS.LTC128B.128, say the cache path)."""
    if op == "cp.async.cg.shared.global":
        return "LDGSTS"
    m = re.fullmatch(r"(ldmatrix|stmatrix)\.x(\d)(\.trans)?", op)
    if m:
        return f"{'LDSM' if m[1] == 'ldmatrix' else 'STSM'}.16.{'MT88' if m[3] else 'M88'}{'' if m[2] == '1' else '.' + m[2]}"
    m = re.fullmatch(r"(ld|st)\.shared\.(.+)", op)
    assert m, op
    return ("LDS" if m[1] == "ld" else "STS") + SASS[m[2]]


def _package_dir(name: str) -> Path | None:
    spec = importlib.util.find_spec(name)
    return Path(next(iter(spec.submodule_search_locations))) if spec and spec.submodule_search_locations else None


def _write(case: str, args: str, target: str, out: Path) -> Path:
    folder = out / case
    done = subprocess.run([sys.executable, "-m", "swizzle_solver", "probe", *shlex.split(args), "--target", target,
                           "-o", str(folder)], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert done.returncode == 0, f"{case}: {done.stderr}"
    return folder


# --- CUDA ------------------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def cuda_bin() -> Path:
    nvidia = _package_dir("nvidia")
    found = [nvidia / sub / "bin" for sub in ("cu13", "cu14")] if nvidia else []
    bin_dir = next((p for p in found if (p / "nvcc").exists()), None)
    if bin_dir is None and shutil.which("nvcc"):
        bin_dir = Path(shutil.which("nvcc")).parent
    if bin_dir is None:
        missing("nvcc", "pip install nvidia-cuda-nvcc nvidia-cuda-runtime nvidia-cuda-cccl")
    return bin_dir


@pytest.fixture(scope="module")
def cuda_built(cuda_bin, tmp_path_factory) -> dict[str, dict]:
    """Every CUDA case written, built by its build.sh (sm_90) and compiled for sm_80: case -> record."""
    out = tmp_path_factory.mktemp("probes-cuda")
    folders = {case: _write(case, args, "cuda", out) for case, args in CUDA_CASES.items()}
    env = {"PATH": f"{cuda_bin}:/usr/bin:/bin", "NVCC": str(cuda_bin / "nvcc")}

    def build(case: str) -> dict:
        folder = folders[case]
        sm90 = subprocess.run(["bash", "build.sh"], cwd=folder, capture_output=True, text=True, env=env, timeout=900)
        sm80 = subprocess.run([str(cuda_bin / "nvcc"), "-O3", "-std=c++17", "-arch=sm_80", "-cubin", "-o",
                               "probe.sm_80.cubin", "probe.cu"], cwd=folder, capture_output=True, text=True,
                              timeout=900)
        return {"folder": folder, "sm90": sm90, "sm80": sm80, "prediction": json.loads(
            (folder / "prediction.json").read_text())}

    with ThreadPoolExecutor(2) as pool:
        return dict(zip(folders, pool.map(build, folders)))


def _sass(cuda_bin: Path, binary: Path) -> dict[str, list[str]] | None:
    """kernel -> its shared-memory instructions in order, from cuobjdump -sass; None without cuobjdump."""
    if not (cuda_bin / "cuobjdump").exists() or not (cuda_bin / "nvdisasm").exists():
        return None
    done = subprocess.run([str(cuda_bin / "cuobjdump"), "-sass", str(binary)], capture_output=True, text=True,
                          env={"PATH": f"{cuda_bin}:/usr/bin:/bin"}, timeout=600)
    assert done.returncode == 0, done.stderr
    out: dict[str, list[str]] = {}
    kernel = None
    for line in done.stdout.splitlines():
        m = re.search(r"Function : (\w+)", line)
        if m:
            kernel = m[1]
            out[kernel] = []
        elif kernel and "@!PT" not in line:  # (@!PT: never executed; ptxas pads cp.async's kernels with @!PT LDS)
            found = re.findall(r"\b((?:LDS|STS|LDSM|STSM|ATOMS|LDGSTS)(?:\.[A-Z0-9]+)*)\s", line)
            out[kernel] += ["LDGSTS" if x.startswith("LDGSTS") else x for x in found]
    return out


def _ptx(cuda_bin: Path, folder: Path, arch: str) -> str:
    done = subprocess.run([str(cuda_bin / "nvcc"), "-std=c++17", f"-arch={arch}", "-ptx", "-o", "-", "probe.cu"],
                          cwd=folder, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _uses_stmatrix(record: dict) -> bool:
    return any(k["op"].startswith("stmatrix") for k in record["prediction"]["kernels"])


@pytest.mark.parametrize("case", sorted(CUDA_CASES))
def test_cuda_probe_builds_for_sm90_and_issues_the_named_instruction(cuda_bin, cuda_built, case):
    record = cuda_built[case]
    assert record["sm90"].returncode == 0, f"{case}: build.sh (nvcc -arch=sm_90) fails:\n{record['sm90'].stderr[-3000:]}"
    kernels = record["prediction"]["kernels"]
    sass = _sass(cuda_bin, record["folder"] / "probe")
    if sass is None:  # no cuobjdump: the PTX has each kernel's instruction
        ptx = _ptx(cuda_bin, record["folder"], "sm_90")
        for k in kernels:
            body = ptx.split(f".entry {k['kernel']}(", 1)[1].split(".entry", 1)[0]
            assert k["instruction"] in body, (case, k["kernel"], k["instruction"])
        return
    for k in kernels:
        got = sass[k["kernel"]]
        want = sass_name(k["op"])
        assert got.count(want) == 1, f"{case} {k['kernel']} ({k['access']}): {want} x {got.count(want)} in {got}"
        others = {x for x in got if x != want}
        allowed = {"STS"} if k["direction"] == "load" else set()  # a load kernel's fill: st.shared.b32
        assert others <= allowed, f"{case} {k['kernel']}: other shared-memory instructions {others - allowed}"
        if k["direction"] == "load" and want != "STS":
            assert "STS" in got, f"{case} {k['kernel']}: no fill before the loads"


@pytest.mark.parametrize("case", sorted(CUDA_CASES))
def test_cuda_probe_compiles_for_sm80_unless_it_needs_stmatrix(cuda_bin, cuda_built, case):
    record = cuda_built[case]
    sm80 = record["sm80"]
    if _uses_stmatrix(record):
        assert sm80.returncode != 0 and "stmatrix needs sm_90" in sm80.stderr, (case, sm80.stderr[-2000:])
        return
    assert sm80.returncode == 0, f"{case}: nvcc -arch=sm_80 fails:\n{sm80.stderr[-3000:]}"
    sass = _sass(cuda_bin, record["folder"] / "probe.sm_80.cubin")
    if sass is not None:
        for k in record["prediction"]["kernels"]:
            assert sass[k["kernel"]].count(sass_name(k["op"])) == 1, (case, k["kernel"], sass[k["kernel"]])


def test_the_cuda_cases_cover_every_op():
    ops = set()
    for args in CUDA_CASES.values():
        ops |= set(re.findall(r"--access (\S+)", args))
    assert {f"{d}{b}:32x1" for d in ("lds", "sts") for b in (8, 16, 32, 64, 128)} <= ops
    assert {f"{op}.x{k}{t}" for op in ("ldmatrix", "stmatrix") for k in (1, 2, 4) for t in ("", ".trans")} <= ops
    assert len(CUDA_CASES) + len(HIP_CASES) >= 20


# --- HIP -------------------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def hip_clang() -> list[str]:
    """clang in HIP mode for the device side (the `ziglang` wheel's), with HIP's qualifiers from Triton's
    AMD backend; the probe's kernels alone (PROBE_DEVICE_ONLY), as assembly."""
    zig, triton = _package_dir("ziglang"), _package_dir("triton")
    if zig is None:
        missing("clang with the AMDGPU back end", "pip install ziglang==0.17.1")
    include = triton / "backends" / "amd" / "include" if triton else None
    if include is None or not (include / "hip" / "amd_detail" / "host_defines.h").exists():
        missing("HIP's headers (in Triton's AMD backend)", "pip install torch==2.13.0 triton==3.9.0")
    return [sys.executable, "-m", "ziglang", "clang", "-x", "hip", "--cuda-device-only", "-nogpulib", "-nogpuinc",
            "-resource-dir", str(zig / "lib"), "-D__HIP_PLATFORM_AMD__", "-DPROBE_DEVICE_ONLY", f"-I{include}",
            "-O2", "-S"]


def _kernels_asm(asm: str) -> dict[str, list[str]]:
    """kernel -> its LDS instructions in order (ds_* mnemonics), from the assembly."""
    out: dict[str, list[str]] = {}
    for m in re.finditer(r"^(probe_a\d+):(.*?)^\.Lfunc_end", asm, re.S | re.M):
        out[m[1]] = re.findall(r"^\s+(ds_\w+)", m[2], re.M)
    return out


@pytest.mark.parametrize("case", sorted(HIP_CASES))
def test_hip_probe_compiles_for_its_gfx_and_issues_the_named_instruction(hip_clang, tmp_path, case):
    folder = _write(case, HIP_CASES[case], "hip", tmp_path)
    doc = json.loads((folder / "prediction.json").read_text())
    gfx = doc["build_arch"]
    assert f"--offload-arch=\"${{ARCH:-{gfx}}}\"" in (folder / "build.sh").read_text()
    asm = folder / "probe.s"
    done = subprocess.run([*hip_clang, f"--offload-arch={gfx}", str(folder / "probe.hip"), "-o", str(asm)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and not done.stderr.strip(), f"{case}: clang -x hip rejects the probe:\n{done.stderr[-3000:]}"
    # the inline assembly is only text in a .s: assembling it checks that gfx has every instruction
    assembled = subprocess.run([sys.executable, "-m", "ziglang", "clang", "-x", "assembler", "-target",
                                "amdgcn-amd-amdhsa", f"-mcpu={gfx}", "-c", str(asm), "-o", str(folder / "probe.o")],
                               capture_output=True, text=True, timeout=600)
    assert assembled.returncode == 0, f"{case}: {gfx} lacks an instruction:\n{assembled.stderr[-3000:]}"
    text = asm.read_text()
    assert f'.amdgcn_target "amdgcn-amd-amdhsa--{gfx}' in text
    kernels = _kernels_asm(text)
    fill = "ds_store_b32" if gfx.startswith("gfx1") else "ds_write_b32"
    for k in doc["kernels"]:
        got, want = kernels[k["kernel"]], k["instruction"]
        assert got.count(want) == 1, f"{case} {k['kernel']} ({k['access']}): {want} x {got.count(want)} in {got}"
        allowed = {fill} if k["direction"] == "load" else set()
        assert {x for x in got if x != want} <= allowed, f"{case} {k['kernel']}: other LDS instructions in {got}"
        assert k["compare"] == [{"SQ_LDS_BANK_CONFLICT": k["bank_conflicts"]}]


# --- the next device run's dry run (bench/gpu_probe.sh dry-run; docs/hardware.md, "The next device run") --


def test_the_discriminating_probes_build_for_sm90_and_issue_their_instructions(cuda_bin, tmp_path):
    """bench/gpu_discriminate.py's probes (issue 38) built by `gpu_probe.py run --build-only`, as the dry run
    does, and in each kernel's SASS its own instruction exactly once (LDSM, STSM, LDS/STS of each width,
    LDGSTS for cp.async), no other shared-memory instruction but a load kernel's fill."""
    out = tmp_path / "d"
    gen = subprocess.run([sys.executable, "bench/gpu_discriminate.py", "gen", str(out)], cwd=ROOT,
                         capture_output=True, text=True, timeout=600)
    assert gen.returncode == 0, gen.stderr
    assert "half-warp" in gen.stdout  # the plan printed both predictions where they differ
    env = {"PATH": f"{cuda_bin}:/usr/bin:/bin", "NVCC": str(cuda_bin / "nvcc")}
    built = subprocess.run([sys.executable, "bench/gpu_probe.py", "run", str(out), "--build-only", "--jobs", "2"],
                           cwd=ROOT, capture_output=True, text=True, env=env, timeout=900)
    assert built.returncode == 0 and "12 of 12 probes built" in built.stdout, built.stdout + built.stderr
    ops = set()
    for folder in sorted(out.glob("[0-9][0-9]-*")):
        sass = _sass(cuda_bin, folder / "probe")
        if sass is None:
            pytest.skip("no cuobjdump: the builds were checked, not the SASS")
        for k in json.loads((folder / "prediction.json").read_text())["kernels"]:
            got, want = sass[k["kernel"]], sass_name(k["op"])
            assert got.count(want) == 1, (folder.name, k["kernel"], got)
            allowed = {"STS"} if k["direction"] == "load" else set()
            assert {x for x in got if x != want} <= allowed, (folder.name, k["kernel"], got)
            ops.add(want)
    assert {"LDSM.16.M88.4", "STSM.16.MT88.4", "LDGSTS", "LDS.U8", "STS.128"} <= ops, ops
