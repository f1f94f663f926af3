"""The `kernel` subcommand (registered by cli.py; its work is imported when run).

    swizzle-solve kernel transpose.ptx --kernel transpose_naive --block 32,8
    swizzle-solve kernel sgemm.cu --gpu-arch sm_90 -D BM=128 --param 2=4096 --iterations 4 --json

Bad input is model.InputError (cli.py turns it into exit 2 and one line on stderr).
"""
from __future__ import annotations

import sys
from typing import List, Optional

import typer

from ..model import InputError

KERNEL_EPILOG = """\b
Examples:
  swizzle-solve kernel tests/data/kernels/sgemm.ptx --param 2=32 -q
  swizzle-solve kernel tests/data/kernels/sgemm.ptx --iterations 2 --json
  swizzle-solve kernel tests/data/kernels/sgemm.ptx --iterations 2 --fix
A .cu is compiled by nvcc first (-D, -I, --gpu-arch); a .ttgir is read too.

\b
Exit codes:
  0  no shared-memory instruction above its ideal wavefronts
  1  some instruction is (the report says which, and --fix what serves it)
  2  bad input: one line on stderr

\b
Not modelled, and said so: call (refused: inline the callee), vote and
local memory (an address from them is data-dependent, not counted),
same-address atomics' serialisation (a note), clusters (one CTA is run;
.shared::cluster accesses, cp.async.bulk/TMA, wgmma and tcgen05 operands
are listed as not counted). Not read: AMD GCN/LLVM IR.
docs/checking-your-kernel.md: one command per toolchain."""


def _ints(text: str, option: str, n: int) -> tuple[int, ...]:
    try:
        values = tuple(int(x) for x in text.replace("x", ",").split(","))
    except ValueError:
        values = ()
    if not 1 <= len(values) <= n or min(values) < 0:
        raise InputError(f"{option} {text!r}: give 1 to {n} non-negative integers separated by commas, e.g. "
                         f"{option} 32,8")
    return values


def _params(given: List[str]) -> dict[str, int]:
    out = {}
    for item in given:
        name, eq, value = item.partition("=")
        try:
            out[name.strip()] = int(value, 0)
        except ValueError:
            raise InputError(f"--param {item!r}: write NAME=INTEGER (NAME: the PTX parameter's name, param_N or "
                             f"its index N; N+OFFSET for a field of a struct parameter), e.g. --param 2=1024") from None
        if not eq or not name.strip():
            raise InputError(f"--param {item!r}: write NAME=INTEGER, e.g. --param 2=1024")
    return out


def kernel_command(
    file: str = typer.Argument(..., help="A .ptx (nvcc -ptx -lineinfo, Triton, CuTe DSL, Mojo), .cu or .ttgir file."),
    kernel_names: List[str] = typer.Option([], "--kernel", help="A kernel (.entry) name, mangled or demangled; "
                                           "repeatable; default every kernel."),
    block: Optional[str] = typer.Option(None, "--block", help="X[,Y[,Z]] threads (default .reqntid, else .maxntid)."),
    cta: str = typer.Option("0,0,0", "--cta", help="The block index %ctaid: X,Y,Z."),
    param: List[str] = typer.Option([], "--param", help="NAME=VALUE of a kernel parameter (its PTX name, "
                                    "param_N or N); repeatable; an unnamed one is unknown."),
    iterations: Optional[int] = typer.Option(None, "--iterations", help="Follow each loop at most N times."),
    arch: str = typer.Option("nvidia", "--arch", help="The NVIDIA target: nvidia, sm80, sm90, sm100, ..."),
    json_out: bool = typer.Option(False, "--json", help="Print only JSON (docs/schema/kernel.schema.json)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="One line: conflict-free, or what conflicts."),
    fix: bool = typer.Option(False, "--fix", help="Per allocation with excess: the least layout that serves "
                             "every access observed, and the report under it."),
    emit: Optional[str] = typer.Option(None, "--emit", help="The fix's code for TARGET (cuda, cute, triton, ...)."),
    define: List[str] = typer.Option([], "--define", "-D", help=".cu only: a macro for nvcc (NAME or NAME=VALUE)."),
    include: List[str] = typer.Option([], "--include", "-I", help=".cu only: an include folder for nvcc."),
    gpu_arch: str = typer.Option("sm_90", "--gpu-arch", help=".cu only: nvcc's -arch (default sm_90)."),
    html: Optional[str] = typer.Option(None, "--html", metavar="FILE", help="With --fix: one interactive page, a "
                                       "view per fixed allocation (its observed accesses, before and after)."),
) -> None:
    """Count every shared-memory instruction of a compiled kernel, one CTA, on the CPU."""
    from . import kernel

    if html is not None:
        if not fix:
            raise InputError("--html draws the allocations --fix solves: add --fix")
        from ..svg import check_writable

        check_writable(html, "--html")  # before any work: bad input writes nothing
    b = _ints(block, "--block", 3) if block is not None else None
    if b is not None and min(b) < 1:
        raise InputError(f"--block {block!r}: every size must be at least 1")
    report = kernel(file if not file.startswith("\n") else file, kernels=kernel_names or None, block=b,
                    cta=_ints(cta, "--cta", 3), params=_params(param), iterations=iterations, arch=arch, fix=fix,
                    defines=tuple(define), includes=tuple(include), gpu_arch=gpu_arch, emit=emit)
    if html is not None:
        write_html(html, report)
    if json_out:
        import json

        sys.stdout.write(json.dumps(report.to_json(), indent=2) + "\n")
    elif quiet:
        sys.stdout.write(report.quiet() + "\n")
    else:
        from ..render import Console
        from .render import write

        write(report, Console(highlight=False))
    raise typer.Exit(report.exit_code)


def write_html(path: str, report) -> None:
    """kernel --fix --html: one view per allocation the fix solved, in report order: the unswizzled
    allocation, the fix's layout, its alternatives, under every instruction observed on it (each a
    ``--phases`` access named by its PTX line), as solve --html draws a tile."""
    from pathlib import Path

    from ..html import document_view, script_json, write_texts
    from .report import demangle

    texts = []
    for result in report.kernels:
        for name, problem, answer in result.solved:
            title = f"{demangle(result.name)}: {name}, {problem.tile.rows} x {problem.tile.cols} elements of " \
                    f"{problem.tile.elem_bytes} B: {answer.name} ({answer.status})"
            others = [c.layout for c in answer.solution.alternatives]
            texts.append(script_json(document_view(problem, answer.layout, answer.json(), others, "answer", title=title)))
    note = None if texts else "no allocation has excess: nothing to fix, nothing to draw"
    write_texts(path, texts, f"swizzle-solve kernel {Path(report.file).name}: {len(texts)} allocations fixed", note)
