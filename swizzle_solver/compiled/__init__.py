"""`swizzle-solve kernel FILE` (DESIGN.md section 15): a compiled kernel's shared-memory
instructions counted on the CPU, one CTA, by the hardware model of sections 1, 9 and 10.

The Python API (exported lazily as ``swizzle_solver.kernel``)::

    from swizzle_solver import kernel
    report = kernel("transpose.ptx", block=(32, 8), params={"width": 1024})
    report.status          # "conflict-free" | "conflicts"
    report.exit_code       # 0 | 1, as the CLI exits
    report.kernels         # [KernelResult]: .name, .block, .rows (one per static instruction), .counters, ...
    report.to_json()       # the DESIGN.md section 15 document (docs/schema/kernel.schema.json)

    kernel(source, *, kernels=None, block=None, cta=(0, 0, 0), params=None, iterations=None,
           arch="nvidia", fix=False, defines=(), includes=(), gpu_arch="sm_90", emit=None) -> KernelReport

- ``source``: a path (``.ptx``, ``.cu``, ``.ttgir``) or the PTX text itself (a str holding a newline
  or starting with ``//``/``.version`` is text, anything else a path);
- ``kernels``: ``.entry`` names to keep (mangled or demangled), default every kernel;
- ``block``: (x[, y[, z]]) threads; default the kernel's ``.reqntid``, else ``.maxntid``;
- ``cta``: the block index ``%ctaid`` (x, y, z);
- ``params``: {name: int}, name the PTX parameter's name, its ``param_N`` suffix, or its index N;
  an unnamed parameter is an unknown value;
- ``iterations``: each loop followed at most this many times (the report says where the cap was met);
- ``arch``: the hardware target (``--arch``, an NVIDIA one);
- ``fix``: per allocation with excess, the least layout that serves every observed access;
- ``defines``/``includes``/``gpu_arch``: for ``.cu`` only, passed to nvcc (``-D``, ``-I``,
  ``-arch=``; the CLI's ``--define/-D``, ``--include/-I``, ``--gpu-arch``).

Bad input raises ``model.InputError`` (the CLI: exit 2 and one line).

Modules: ``ptx.py`` (the parser), ``emulator.py`` (one CTA, warps vectorised with numpy),
``count.py`` (each dynamic instance through probe/plan.py's issued phases and the simulator),
``report.py`` (rows, totals, JSON, text), ``fix.py`` (the least layout per allocation),
``command.py`` (the CLI). ``nvcc.py`` (``.cu``) and ``ttgir.py`` (``.ttgir``) are read by suffix.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..model import InputError

if TYPE_CHECKING:
    from .report import KernelReport


def _is_text(source: str | Path) -> bool:
    if isinstance(source, Path):
        return False
    head = source.lstrip()[:200]
    return "\n" in source or head.startswith(("//", ".version", ".target"))


def kernel(source: str | Path, *, kernels=None, block=None, cta=(0, 0, 0), params=None, iterations=None,
           arch: str = "nvidia", fix: bool = False, defines=(), includes=(), gpu_arch: str = "sm_90",
           emit: str | None = None) -> KernelReport:
    """The report of every kernel of ``source`` (see the module's docstring)."""
    from .report import analyse

    name = "<text>"
    cuda = not _is_text(source) and Path(source).suffix.lower() in (".cu", ".cuh")
    if (defines or includes) and not cuda:  # an ignored -D would look like a tested configuration
        raise InputError(f"-D/-I are nvcc's, for a .cu file: {'the text' if _is_text(source) else repr(str(source))} "
                         f"is compiled already; compile it with them (or give the .cu), and drop -D/-I")
    if _is_text(source):
        text = str(source)
    else:
        path = Path(source)
        name = str(source)
        suffix = path.suffix.lower()
        if suffix in _NOT_READ:
            raise InputError(f"kernel file {str(path)!r}: {_NOT_READ[suffix]}; docs/kernel-toolchains.md has the "
                             f"command for each toolchain")
        if suffix == ".ttgir":
            from .report import from_ttgir  # (the ttgir reader builds its own rows)

            return from_ttgir(_read(path), name, arch=arch)
        if suffix in (".cu", ".cuh"):
            from .nvcc import ptx_of_cu

            text = ptx_of_cu(path, defines=tuple(defines), includes=tuple(includes), arch=gpu_arch, timeout=NVCC_SECONDS)
        else:
            text = _read(path)
    return analyse(text, name, kernels=kernels, block=block, cta=cta, params=params, iterations=iterations,
                   arch=arch, fix=fix, emit=emit)


# kernel files of the toolchains that are not what is read: what to give instead
_NOT_READ = {".py": "a Python file is the kernel's source: give the .ptx or .ttgir Triton, Gluon or the CuTe DSL "
                    "compile it to",
             ".mojo": "a Mojo file is the kernel's source: give the PTX its compile_info prints",
             ".ttir": "Triton's first IR has no layouts yet: give the .ttgir or the .ptx",
             ".llir": "LLVM IR is not read: give the .ptx (or Triton's .ttgir)",
             ".cubin": "a cubin is machine code: give the .ptx (nvcc -ptx, or the PTX the toolchain keeps)"}

NVCC_SECONDS = 300  # nvcc's time on one .cu (a CUTLASS kernel takes about a minute)
MAX_FILE_BYTES = 50 * 1024 * 1024  # 50 MB of PTX: issue 32's hostile bound


def _read(path: Path) -> str:
    try:
        size = path.stat().st_size
        if not path.is_file():
            raise InputError(f"kernel file {str(path)!r} is not a regular file: give a .ptx, .cu or .ttgir file")
        if size > MAX_FILE_BYTES:
            raise InputError(f"kernel file {str(path)!r} is {size} bytes, more than {MAX_FILE_BYTES}: "
                             f"give one kernel's PTX")
        data = path.read_bytes()
    except OSError as err:
        raise InputError(f"cannot read kernel file {str(path)!r}: {err.strerror or err}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"kernel file {str(path)!r} is not UTF-8 text: give the PTX (nvcc -ptx) or .ttgir") from None
