"""The gpu tier (`pytest -m gpu`): probes built, run under the GPU's profiler and compared with the model.

Where nvcc, Nsight Compute (ncu) and an NVIDIA GPU are present, every case of bench/gpu_probe.py's
NVIDIA set (the worked examples on NVIDIA's banks, answer and unswizzled tile; every ldmatrix /
stmatrix form; every lds / sts [[instruction]] op) is written with `swizzle-solve probe --target
cuda`, run with its run.sh, and must agree: `probe-compare` exits 0. Where hipcc, rocprofv3 and an
AMD GPU are present, the same for the AMD set of the GPU's arch (every table cell no document or
measurement backs, and the arch's worked examples). Elsewhere each test is skipped, saying what is
missing. bench/gpu_probe.py runs the same cases as one script on a machine without pytest or z3.
"""
from __future__ import annotations

import contextlib
import io
import re
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from swizzle_solver.cli import main

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
import gpu_probe  # noqa: E402

sys.path.pop(0)

pytestmark = pytest.mark.gpu
PLACEHOLDER = Path("{instructions}")  # the [[instruction]] file, written per test run


def _run(argv: list[str], timeout: float = 60) -> str:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout if done.returncode == 0 else ""


@cache
def nvidia_missing() -> str | None:
    """What the NVIDIA half lacks, or None."""
    lacking = [tool for tool in ("nvcc", "ncu", "nvidia-smi") if shutil.which(tool) is None]
    if not lacking and "GPU" not in _run(["nvidia-smi", "-L"]):
        lacking.append("an NVIDIA GPU (nvidia-smi -L lists none)")
    return ", ".join(lacking) or None


@cache
def amd_arch() -> tuple[str | None, str | None]:
    """(the AMD GPU's gfx name, what the AMD half lacks)."""
    lacking = [tool for tool in ("hipcc", "rocprofv3", "rocminfo") if shutil.which(tool) is None]
    found = re.findall(r"\bgfx\d+[a-z]?\b", _run(["rocminfo"])) if not lacking else []
    if not lacking and not found:
        lacking.append("an AMD GPU (rocminfo lists none)")
    return (found[0] if found else None), (", ".join(lacking) or None)


NVIDIA_CASES = gpu_probe.cases(PLACEHOLDER)


def _probe_and_compare(tmp_path: Path, args: list[str], target: str) -> None:
    folder = tmp_path / "probe"
    argv = [str(gpu_probe.instruction_file(tmp_path / "instructions.toml")) if a == str(PLACEHOLDER) else a
            for a in args]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
        code = main(["probe", *argv, "--target", target, "-o", str(folder)])
    assert code == 0, err.getvalue()
    run = subprocess.run(["bash", "run.sh"], cwd=folder, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, f"run.sh failed:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
    compared = subprocess.run([sys.executable, "-m", "swizzle_solver", "probe-compare", str(folder)], cwd=ROOT,
                              capture_output=True, text=True, timeout=120)
    assert compared.returncode == 0, f"the GPU disagrees with the model:\n{compared.stdout}{compared.stderr}"


@pytest.mark.parametrize("case", NVIDIA_CASES, ids=[c["slug"] for c in NVIDIA_CASES])
def test_nvidia_probe_agrees_with_the_model(tmp_path, case):
    lacking = nvidia_missing()
    if lacking:
        pytest.skip(f"no NVIDIA GPU tier here: missing {lacking}")
    _probe_and_compare(tmp_path, case["args"], "cuda")


AMD_ARCHES = ("gfx90a", "gfx942", "gfx950")


@pytest.mark.parametrize("arch", AMD_ARCHES)
def test_amd_probes_agree_with_the_model(tmp_path, arch):
    found, lacking = amd_arch()
    if lacking:
        pytest.skip(f"no AMD GPU tier here: missing {lacking}")
    if found != arch:
        pytest.skip(f"the AMD GPU here is {found}, not {arch}")
    failures = []
    for i, case in enumerate(gpu_probe.amd_cases(arch)):
        try:
            _probe_and_compare(tmp_path / f"c{i}", case["args"], "hip")
        except AssertionError as err:
            failures.append(f"{case['name']}: {err}")
    assert not failures, "\n\n".join(failures)
