"""`swizzle-solve kernel` on PTX nvcc compiles now (toolchain tier): the committed PTX of
tests/data/kernels is what nvcc makes of the .cu (the same counts), so the default tier's tests,
which read the committed files, test the current compiler's output too."""
import shutil
import subprocess
from pathlib import Path

import pytest

from swizzle_solver import kernel

KERNELS = Path(__file__).resolve().parents[1] / "data" / "kernels"
NVCC = shutil.which("nvcc") or ("/usr/local/bin/nvcc" if Path("/usr/local/bin/nvcc").exists() else None)

pytestmark = [pytest.mark.toolchain, pytest.mark.skipif(NVCC is None, reason="nvcc is not installed")]


def counts(report) -> list[tuple]:
    return [(k.name, Path(r.file).name, r.line, r.counted.kind.op, r.counted.instances, r.counted.wavefronts, r.counted.ideal)
            for k in report.kernels for r in k.rows]


@pytest.mark.parametrize("name, options", [
    ("transpose", {"kernels": ["transpose_naive", "transpose_padded"], "block": (32, 8)}),
    ("sgemm", {"params": {"2": 32}}),
    ("cp_async_ldmatrix", {}),
])
def test_recompiled_cu_counts_as_the_committed_ptx(tmp_path, name, options):
    out = tmp_path / f"{name}.ptx"
    subprocess.run([NVCC, "-ptx", "-lineinfo", "-arch=sm_90", f"{name}.cu", "-o", str(out)], cwd=KERNELS, check=True)
    fresh = kernel(out.read_text(), **options)
    committed = kernel(KERNELS / f"{name}.ptx", **options)
    assert counts(fresh) == counts(committed) and counts(fresh)
