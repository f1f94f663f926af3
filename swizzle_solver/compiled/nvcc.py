"""A CUDA source compiled to PTX with nvcc (DESIGN.md section 15): what `swizzle-solve kernel FILE.cu`
reads. The line is the one a user would type to look at the PTX themselves:

    nvcc -ptx -lineinfo -arch=sm_90 [-DNAME[=VALUE] ...] [-IDIR ...] FILE.cu -o FILE.ptx

``-lineinfo`` keeps the `.loc` lines that map each instruction back to its line of FILE.cu. The
compiler is ``nvcc`` given by the caller, else $NVCC, else `nvcc` on PATH, else the one of the
`nvidia-cuda-nvcc` wheel (``nvidia/cu*/bin/nvcc``), so that a pip install is enough. Everything that
goes wrong is a ``model.InputError`` of one line: no compiler, a compiler that fails (its first error
line), one that does not finish within ``timeout`` seconds (killed with everything it started).
"""
from __future__ import annotations

import contextlib
import importlib.util
import os
import re
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterable
from pathlib import Path

from ..hardware import target
from ..model import InputError

TIMEOUT_S = 300.0  # a CuTe mainloop takes about a minute of nvcc on two cores
DEFAULT_ARCH = "sm_90"
INSTALL = "set NVCC=/path/to/nvcc, put nvcc on PATH, or pip install nvidia-cuda-nvcc"
NVCC_ARCH = r"(sm|compute)_(\d{2,3})([af]?)"
DEFINE = r"[A-Za-z_][A-Za-z0-9_]*(=.*)?"


def find_nvcc(nvcc: str | None = None) -> str | None:
    """The nvcc to run: ``nvcc`` (a path or a name on PATH), else $NVCC, else PATH, else the wheel's."""
    for name in (nvcc, os.environ.get("NVCC")):
        if name:
            return shutil.which(name) or name
    return shutil.which("nvcc") or _wheel_nvcc()


def _wheel_nvcc() -> str | None:
    """nvcc of the `nvidia-cuda-nvcc` wheel (site-packages/nvidia/cu13/bin/nvcc), newest CUDA first."""
    spec = importlib.util.find_spec("nvidia")
    if spec is None or not spec.submodule_search_locations:
        return None
    for root in spec.submodule_search_locations:
        for found in sorted(Path(root).glob("cu*/bin/nvcc"), reverse=True):
            if os.access(found, os.X_OK):
                return str(found)
    return None


def nvcc_arch(arch: str) -> str:
    """nvcc's ``-arch`` value for ``arch``: nvcc's own forms (sm_90, sm_90a, sm_100f, compute_90) as
    given, sm90 / sm90a as sm_90 / sm_90a, and a --arch target name of the tool (hopper, h100, ampere, ...;
    the generic ``nvidia``: sm_90) as its generation."""
    text = arch.strip().lower()
    if re.fullmatch(NVCC_ARCH, text):
        return text
    short = re.fullmatch(r"sm(\d{2,3})([af]?)", text)
    if short:
        return f"sm_{short.group(1)}{short.group(2)}"
    hw = target(text)
    if hw is not None and hw.language == "CUDA":
        named = re.fullmatch(r"sm(\d{2,3})", hw.name)
        return f"sm_{named.group(1)}" if named else DEFAULT_ARCH
    if hw is not None:
        raise InputError(f"--gpu-arch {arch}: {hw.name} is not an NVIDIA target, and a .cu file is compiled by nvcc "
                         f"for one: give an NVIDIA generation (sm_80, sm_90, hopper, ...)")
    raise InputError(f"--gpu-arch {arch!r} is not an NVIDIA architecture: give sm_80, sm_90, sm_90a, sm_100a, ... "
                     f"or a generation name (ampere, hopper, blackwell)")


def command(path: Path, out: Path, nvcc: str, *, arch: str, defines: Iterable[str] = (),
            includes: Iterable[str | Path] = ()) -> list[str]:
    """nvcc's argv for ``path`` (no shell: each define and include is one argument, as given)."""
    argv = [nvcc, "-ptx", "-lineinfo", f"-arch={nvcc_arch(arch)}"]
    for d in defines:
        if not re.fullmatch(DEFINE, d, flags=re.DOTALL) or "\n" in d:
            raise InputError(f"-D {d!r} is not a macro definition: give NAME or NAME=VALUE (one line)")
        argv.append(f"-D{d}")
    argv += [f"-I{i}" for i in includes]
    return [*argv, str(path), "-o", str(out)]


def first_error(stderr: str, code: int) -> str:
    """The line that says what went wrong: nvcc's (or the front end's) first error, else its first
    line, else the exit status."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    errors = [line for line in lines if re.search(r"\b(error|fatal)\b", line, flags=re.IGNORECASE)
              and not re.search(r"errors? detected in the compilation", line)]  # (the summary line)
    if errors:
        more = len(errors) - 1
        return errors[0] + (f" (and {more} more error line{'s' * (more > 1)})" if more else "")
    return lines[0] if lines else f"exit status {code}"


def _run(argv: list[str], timeout: float) -> tuple[int, str]:
    """(exit status, stderr) of ``argv`` in its own process group, killed whole past ``timeout``."""
    process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               start_new_session=True)
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        raise
    except BaseException:  # Ctrl-C while nvcc runs: nvcc and its children end too
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        raise
    return process.returncode, (err or out).decode(errors="replace")


def ptx_of_cu(path: str | Path, *, defines: Iterable[str] = (), includes: Iterable[str | Path] = (),
              arch: str = DEFAULT_ARCH, nvcc: str | None = None, timeout: float = TIMEOUT_S) -> str:
    """The PTX text nvcc makes of the CUDA source ``path`` (``-ptx -lineinfo -arch``, ``-D``/``-I``)."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such file (the .cu to compile with nvcc)")
    compiler = find_nvcc(nvcc)
    if compiler is None:
        raise InputError(f"{path.name} must be compiled to PTX first, and no nvcc was found: {INSTALL}; or "
                         f"give the PTX itself (nvcc -ptx -lineinfo -arch=sm_90 {path.name})")
    with tempfile.TemporaryDirectory(prefix="swizzle-solve-nvcc-") as tmp:
        out = Path(tmp) / (path.stem + ".ptx")
        argv = command(path, out, compiler, arch=arch, defines=defines, includes=includes)
        try:
            code, stderr = _run(argv, timeout)
        except FileNotFoundError:
            raise InputError(f"nvcc {compiler!r} not found: {INSTALL}") from None
        except OSError as e:  # not executable, not a program
            raise InputError(f"nvcc {compiler!r} cannot be run ({e.strerror or e}): {INSTALL}") from None
        except subprocess.TimeoutExpired:
            raise InputError(f"nvcc did not finish compiling {path.name} within {timeout:g} s (stopped): give "
                             f"a longer timeout, or compile it yourself and give the PTX") from None
        if code != 0 or not out.is_file():
            raise InputError(f"nvcc could not compile {path.name}: {first_error(stderr, code)}")
        return out.read_text(errors="replace")
