"""The PTX of `swizzle-solve kernel` made by the real nvcc (the `nvidia-cuda-nvcc` wheel in CI, any nvcc
here): swizzle_solver/compiled/nvcc.py's ptx_of_cu on a real source (-D, -I, a compile error), the
real-kernel corpus (tests/data/kernels/*.cu) and a sample of the H100-measured probes compiled again,
whatever nvcc's version, and held to the same brute force and measurements as their committed PTX
(tests/test_kernel_sources.py, tests/test_kernel_measured.py). The committed PTX itself is nvcc 13.0's
(bench/kernel_corpus.py --check and bench/probe_ptx.py --check compare it byte for byte)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest
from toolchain_cases import ROOT, missing

from swizzle_solver.compiled.nvcc import find_nvcc, ptx_of_cu
from swizzle_solver.model import InputError

sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))
import probe_ptx  # noqa: E402
import test_kernel_measured as measured  # noqa: E402
import test_kernel_sources as sources  # noqa: E402

sys.path.pop(0)
sys.path.pop(0)

pytestmark = pytest.mark.toolchain

# one probe of each kind: every ldmatrix/stmatrix form, every lds/sts op (two layouts), paired loads,
# the broadcast experiment's random lanes
PROBES = ["gpu_probe/49-ldmatrix-and-stmatrix-forms-f16-64x64-swizzle-3.ptx",
          "gpu_probe/52-every-nvidia-instruction-op-i8-64x64-unswizzled.ptx",
          "gpu_probe/53-every-nvidia-instruction-op-i8-64x64-swizzle-3-4.ptx",
          "gpu_probe/55-paired-loads-f32-32x32-unswizzled.ptx",
          "gpu_broadcast/08-lds128-random-lanes.ptx"]


@pytest.fixture(scope="module")
def nvcc() -> str:
    found = find_nvcc()
    if found is None:
        missing("nvcc", "pip install nvidia-cuda-nvcc")
    return found


def test_ptx_of_cu_compiles_with_defines_and_includes(nvcc, tmp_path):
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "tile.h").write_text("#define TILE 32\n")
    source = tmp_path / "k.cu"
    source.write_text('#include "tile.h"\n'
                      "extern \"C\" __global__ void k(float* out) {\n"
                      "  __shared__ float t[TILE][TILE + PAD];\n"
                      "  t[threadIdx.y][threadIdx.x] = threadIdx.x;\n"
                      "  __syncthreads();\n"
                      "  out[threadIdx.x] = t[threadIdx.x][threadIdx.y];\n"
                      "}\n")
    ptx = ptx_of_cu(source, defines=["PAD=1"], includes=[tmp_path / "inc"], nvcc=nvcc)
    assert ".entry k(" in ptx and ".target sm_90" in ptx and "_ZZ1kE1t[4224]" in ptx  # 32 x 33 floats
    assert f'"{source}"' in ptx and "\t.loc\t1 4 " in ptx and "\t.loc\t1 6 " in ptx  # -lineinfo: the .cu's lines
    assert ptx.count("st.shared.f32") == 1 and ptx.count("ld.shared.f32") == 1
    assert ".target sm_80" in ptx_of_cu(source, defines=["PAD=0"], includes=[tmp_path / "inc"], arch="ampere",
                                        nvcc=nvcc)
    with pytest.raises(InputError) as e:
        ptx_of_cu(source, includes=[tmp_path / "inc"], nvcc=nvcc)  # PAD undefined
    assert "\n" not in str(e.value) and 'k.cu(3): error: identifier "PAD" is undefined' in str(e.value)


@pytest.fixture(scope="module")
def corpus(nvcc, tmp_path_factory) -> dict[str, Path]:
    """tests/data/kernels/*.cu compiled by this nvcc: name -> PTX file."""
    out = {}
    for source in ("cuda_samples_transpose", "sgemm_cuda"):
        path = tmp_path_factory.mktemp("ptx") / f"{source}.ptx"
        path.write_text(ptx_of_cu(sources.KERNELS / f"{source}.cu", nvcc=nvcc))
        out[source] = path
    return out


@pytest.mark.parametrize("k", sources.KERNELS_WITH_SHARED, ids=sources.IDS)
def test_the_corpus_compiled_again_is_modelled_and_its_fixes_hold(k, corpus):
    counts = {s.first_line: count for s, _, count in sources.expected(k, corpus[k.source].read_text())}
    for line in k.fixed:
        assert counts[line]["excess"] == 0, (k.name, line)
    if sources.kernel is not None:
        sources.check_report(k, corpus[k.source])


@pytest.mark.parametrize("name", PROBES)
def test_probes_compiled_again_give_what_the_h100_measured(name, nvcc, tmp_path):
    entry = measured.INDEX[name]
    folder, slug = name.split("/")
    args = probe_ptx.case_args(entry["cases"], tmp_path / "cases")
    text, issued = probe_ptx.compile_probe(args[entry["name"]], entry["layout"], slug.removesuffix(".ptx"),
                                           tmp_path / folder, nvcc)
    assert issued["storage_bytes"] == entry["storage_bytes"]
    assert {k: v["loop"] for k, v in issued["kernels"].items()} == {k: v["loop"] for k, v in entry["kernels"].items()}
    for m in measured.MEASURED[name]:
        instruction = entry["kernels"][m["kernel"]]["instruction"]
        _, wavefronts, conflicts = measured.brute_force(text, m["kernel"], instruction)
        assert (wavefronts, conflicts) == measured.split(m["counters"]), (name, m["kernel"])
    if measured.kernel is not None:
        path = tmp_path / "fresh.ptx"
        path.write_text(text)
        for m in measured.MEASURED[name]:
            report = measured.kernel(path, kernels=[m["kernel"]], block=(32, 1, 1)).to_json()
            measured.check_kernel(report["kernels"][0], text, entry, m)


def test_the_sample_covers_every_instruction_the_probes_issue():
    every = {k["instruction"] for e in measured.INDEX.values() for k in e["kernels"].values()}
    covered = {k["instruction"] for n in PROBES for k in measured.INDEX[n]["kernels"].values()}
    assert covered == every, every - covered
