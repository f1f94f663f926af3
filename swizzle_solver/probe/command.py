"""The `probe` and `probe-compare` subcommands (registered by cli.py; their work is imported when run).

    swizzle-solve probe --rows 64 --cols 64 --dtype f16 --access ldmatrix.x4 --target cuda -o probe64
    swizzle-solve probe-compare probe64

Bad input is model.InputError (cli.py turns it into exit 2 and one line on stderr).
"""
from __future__ import annotations

import sys
from typing import List, Optional

import typer

from ..model import InputError

# --help of each command: examples and exit codes, as the main command's (cli.EPILOG); "\b" keeps
# click from re-flowing a paragraph.
PROBE_EPILOG = """\b
Examples:
  swizzle-solve probe --rows 8 --cols 32 --access 8x4 --target cuda -o p8
  swizzle-solve probe --rows 8 --cols 24 --access 4x2 --target cuda -o p24
  swizzle-solve probe --rows 8 --cols 8 --access col --target cuda -o c8
On an AMD --arch (gfx942, gfx950, ...): --target hip.
Then, on the GPU: bash p8/run.sh, and probe-compare p8.

\b
Exit codes:
  0  the probe folder was written (build.sh, run.sh, prediction.json)
  1  not used by probe (probe-compare exits 1 when the GPU disagrees)
  2  bad input: one line on stderr, nothing written

\b
docs/hardware.md: what a probe measures, and results measured so far."""

PROBE_COMPARE_EPILOG = """\b
Examples:
  swizzle-solve probe-compare p8
  swizzle-solve probe-compare p8 --json
  swizzle-solve probe-compare ./p24

\b
Exit codes:
  0  every access measured as predicted
  1  an access differs (the table says which counter)
  2  bad input: no measurement in the folder yet (run bash DIR/run.sh on
     the GPU first), or a folder that is not a probe's"""


def probe_command(
    rows: Optional[int] = typer.Option(None, "--rows", help="Tile rows."),
    cols: Optional[int] = typer.Option(None, "--cols", help="Tile columns (elements)."),
    row_length: Optional[int] = typer.Option(None, "--row-length", "--pitch", help="Pitch in elements (>= cols)."),
    dtype: Optional[str] = typer.Option(None, "--dtype", help="Element type (f16, f32, ...)."),
    elem_bytes: Optional[int] = typer.Option(None, "--elem-bytes", help="Element size in bytes (default 4)."),
    banks: Optional[int] = typer.Option(None, "--banks", help="Refused: a probe measures the GPU's own banks."),
    bank_bytes: Optional[int] = typer.Option(None, "--bank-bytes", help="Refused, as --banks."),
    arch: str = typer.Option("nvidia", "--arch", help="The GPU: nvidia, gfx942, gfx950, ... (as for a solve)."),
    order: str = typer.Option("row", "--order", help="Storage order of the tile: row or col (as for a solve)."),
    access: List[str] = typer.Option([], "--access", help="Access pattern, as for a solve; repeatable."),
    phases: List[str] = typer.Option([], "--phases", help="TOML/JSON file of explicit phases; repeatable."),
    linear_layout: List[str] = typer.Option([], "--linear-layout", help="Triton linear layout file; repeatable."),
    check_layout: Optional[str] = typer.Option(None, "--check", help="Probe this layout instead of the solved "
                                               "answer (any form --check takes)."),
    keep_pitch: bool = typer.Option(False, "--keep-pitch", help="Solve with the given row length only."),
    for_targets: List[str] = typer.Option([], "--for", help="Solve for layouts this emit target expresses."),
    timeout: Optional[float] = typer.Option(None, "--timeout", help="Bound the solve to SECONDS."),
    target: str = typer.Option(..., "--target", help="cuda (nvcc, Nsight Compute) or hip (hipcc/clang, rocprofv3)."),
    out: str = typer.Option(..., "--out", "-o", help="A new or empty folder to write the probe into."),
) -> None:
    """Write a microbenchmark of the accesses over the layout, with the model's prediction."""
    from ..access import elem_bits_of, elem_bytes_of, make_problem, needs_forms_above, scalar_bytes_of
    from .write import check_folder, target_module, write_probe

    if rows is None or cols is None:
        raise InputError("missing --rows or --cols: e.g. swizzle-solve probe --rows 64 --cols 64 --dtype f16 "
                         "--access ldmatrix.x4 --target cuda -o probe64")
    if timeout is not None and not 0 < timeout < float("inf"):
        raise InputError(f"--timeout {timeout} must be a positive, finite number of seconds (e.g. --timeout 5)")
    if needs_forms_above(access):
        from .. import indexed, tiled  # noqa: F401  (index:, offset: and make_tiled_copy register their readers)
    problem = make_problem(rows, cols, list(access), row_length, elem_bytes_of(dtype, elem_bytes), banks=banks,
                           bank_bytes=bank_bytes, phases_files=list(phases), layout_files=list(linear_layout), arch=arch,
                           elem_bits=elem_bits_of(dtype), scalar_bytes=scalar_bytes_of(dtype), order=order)
    target_module(target, problem)  # every input checked before any solving or writing
    check_folder(out)
    if check_layout is not None:
        from ..api import check
        from ..names import parse_layout

        checked = check(parse_layout(check_layout), problem)
        if checked.invalid is not None:
            raise InputError(f"--check {check_layout!r} is not usable here ({checked.invalid}): a probe issues the "
                             f"accesses over the layout as stored, so it needs a usable one")
        layout, solved = checked.layout, f"--check {checked.layout.name}"
    else:
        from ..api import solve
        from ..budget import Budget

        result = solve(problem, budget=Budget(timeout), table=False, keep_pitch=keep_pitch, for_targets=for_targets)
        layout, solved = result.layout, f"the solved answer, {result.status}"
    path = write_probe(problem, layout, target, out, solved)
    import json

    from .write import PREDICTION

    doc = json.loads((path / PREDICTION).read_text())
    from ..access.inputfile import printable

    lines = [f"wrote {printable(str(path))}: layout {layout.name}, {len(doc['kernels'])} kernel(s) "
             f"({', '.join(sorted(p.name for p in path.iterdir()))})"]
    for k in doc["kernels"]:
        reading = f" {k['reading']}" if k["reading"] else ""
        lines.append(f"  {k['kernel']}  {k['access']}{reading}: {k['instructions']} x {k['op']}, predicted "
                     f"{k['wavefronts']} wavefronts, {k['bank_conflicts']} bank conflicts")
    shown = printable(str(path))  # a folder's name may hold anything: one line, no CI command
    lines.append(f"on the GPU: bash {shown}/run.sh && swizzle-solve probe-compare {shown}")
    sys.stdout.write("\n".join(lines) + "\n")


def probe_compare_command(
    folder: str = typer.Argument(..., help="The folder `swizzle-solve probe -o` wrote, after `bash run.sh` there."),
    json_out: bool = typer.Option(False, "--json", help="Print only JSON."),
) -> None:
    """Predicted vs measured counters per access; exit 0 only when every access agrees."""
    from pathlib import Path

    from .compare import as_json, compare, text

    result = compare(Path(folder))
    if json_out:
        import json

        sys.stdout.write(json.dumps(as_json(result), indent=2) + "\n")
    else:
        sys.stdout.write(text(result))
    raise typer.Exit(0 if result["agree"] else 1)
