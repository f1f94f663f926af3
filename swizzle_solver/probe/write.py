"""`swizzle-solve probe`: write a probe folder (DESIGN.md section 12).

The folder holds the target's source, build.sh, run.sh, prediction.json (what the model predicts
for every kernel, in the profiler's counter names) and a README. It is written only into a new or
empty folder, and only after every check has passed, so bad input writes nothing. The files are
written into a temporary sibling folder, renamed to the folder's name at the end: a disk that fills
up, a read-only file system or a signal leaves no half-written probe (and no parent folder it made).
"""
from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
from pathlib import Path

from .. import __version__, orient
from ..access.inputfile import printable
from ..layout import Layout
from ..model import InputError, Problem
from .common import ALIGN_BYTES, checksum
from .plan import Probe, ProbeAccess, plan
from .targets import TARGETS, for_language

PREDICTION = "prediction.json"


def check_folder(out: str) -> Path:
    """The output folder: new (created with its parents) or empty; anything else is bad input."""
    path, shown = Path(out), printable(out)
    try:
        there = path.exists() or path.is_symlink()
    except (OSError, ValueError) as err:  # a name too long, a NUL (ValueError), a loop of links
        reason = getattr(err, "strerror", None) or "not a path"
        raise InputError(f"-o {shown}: {reason}: give a new or empty folder") from None
    if there:
        if not path.is_dir():
            raise InputError(f"-o {shown}: exists and is not a folder: give a new or empty folder")
        try:
            if any(path.iterdir()):
                raise InputError(f"-o {shown}: the folder is not empty: give a new or empty folder "
                                 f"(a probe never overwrites files)")
        except OSError:
            raise InputError(f"-o {shown}: cannot read the folder: give a new or empty folder you can "
                             f"write") from None
    return path


def target_module(target: str, problem: Problem):
    """The generator of ``target`` (probe/targets.py's module: cuda.py, hip.py), checked against the
    problem's hardware."""
    name = target.strip().lower()
    hw = problem.hardware
    if name not in TARGETS:
        raise InputError(f"--target {target!r}: use " + " or ".join(f"{t.name} ({t.about})" for t in TARGETS.values()))
    want = for_language(hw.language)  # a probe is a kernel in the target's own language
    if want is None:
        raise InputError(f"--arch {hw.name} has no probe target: its kernels are {hw.language}, and a probe is "
                         f"{' or '.join(t.language for t in TARGETS.values())}")
    if name != want.name:
        raise InputError(f"--target {name} does not run --arch {hw.name}: use --target {want.name}, or an --arch "
                         f"whose kernels are {TARGETS[name].language} ({TARGETS[name].about.split(',')[0]})")
    if hw.fixed_banks:
        raise InputError(f"--banks/--bank-bytes set a bank model ({hw.banks} x {hw.bank_bytes} B) that no GPU has: "
                         f"a probe measures the GPU of --arch {hw.name}; drop --banks and --bank-bytes")
    return want.generator()


def write_probe(problem: Problem, layout: Layout, target: str, out: str, solved: str) -> Path:
    """Write the probe of ``problem`` over ``layout`` into ``out``; ``solved`` says where the layout
    came from (for the README). Returns the folder."""
    module = target_module(target, problem)
    path = check_folder(out)
    probe = plan(problem, layout)
    limit = module.max_shared_bytes(problem.hardware)
    if probe.storage_bytes + ALIGN_BYTES > limit:
        raise InputError(f"the tile needs {probe.storage_bytes} B of shared memory, and the probe {ALIGN_BYTES} B "
                         f"more to align it: above the {limit} B a block can have on --arch "
                         f"{problem.hardware.name}; probe a smaller tile")
    files = module.files(probe)
    files[PREDICTION] = json.dumps(prediction(probe, module, target.strip().lower()), indent=2) + "\n"
    files["README.md"] = readme(probe, module, solved)
    made: list[Path] = []
    try:
        final = path.resolve() if path.is_symlink() else path  # a link to an empty folder: its target
        made = _parents(final.parent)
        _write_whole(final, files)
    except OSError as err:
        for folder in reversed(made):  # the parents this run made, deepest first, as they were
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise InputError(f"-o {printable(out)}: cannot write the probe folder ({err.strerror or err}): give a new or "
                         f"empty folder you can write, on a file system with space") from None
    return path


def _parents(folder: Path) -> list[Path]:
    """Make ``folder`` and its missing parents, outermost first, one level at a time (Path.mkdir
    and os.makedirs recurse once per level: 1,000 levels exhaust Python's stack); the folders made."""
    missing = []
    while not folder.exists():
        missing.append(folder)
        if folder.parent == folder:
            break
        folder = folder.parent
    made = []
    for f in reversed(missing):
        f.mkdir()
        made.append(f)
    return made


def _write_whole(final: Path, files: dict[str, str]) -> None:
    """Write ``files`` into a temporary folder beside ``final`` and rename it to ``final`` (which is
    new or an empty folder, whose mode it keeps): the probe appears whole or not at all."""
    mode = final.stat().st_mode & 0o7777 if final.is_dir() else None
    temp = _temporary(final.parent)
    try:
        for name, text in files.items():
            (temp / name).write_text(text)
            if name.endswith(".sh"):
                (temp / name).chmod(0o755)
        if mode is not None:
            temp.chmod(mode)
        os.replace(temp, final)  # atomic; replaces an empty folder
    except BaseException:
        shutil.rmtree(temp, ignore_errors=True)
        raise


def _temporary(parent: Path) -> Path:
    """A new folder in ``parent`` with a short random name (the probe's own name may be as long as a
    name can be), made with the mode a new folder gets (the umask applies, as to ``mkdir``)."""
    while True:
        temp = parent / f".probe-{secrets.token_hex(6)}"
        try:
            temp.mkdir()
            return temp
        except FileExistsError:
            continue


def prediction(probe: Probe, module, target: str) -> dict:
    from ..report import problem_json

    problem = probe.problem
    kernels = []
    for a in probe.accesses:
        for k, reading in enumerate(a.readings):
            groups, also = module.metrics(a, probe.storage_bytes, k)
            kernels.append({
                "kernel": f"probe_a{a.index}", "access": a.spec, "reading": reading.label,
                "op": a.op.name, "instruction": module.instruction_text(a, problem.hardware),
                "direction": "store" if a.op.store else "load", "lane_bytes": a.op.lane_bytes,
                "instructions": a.instructions, "placements": a.placements,
                "wavefronts": reading.wavefronts, "ideal_wavefronts": reading.ideal,
                "bank_conflicts": reading.conflicts, "access_total_wavefronts": reading.access_total,
                "compare": groups, "also": also,
                "checksum": checksum(a, probe.storage_bytes, problem.hardware.wave_lanes),
                "notes": list(a.notes)})
    return {
        "schema_version": 1,
        "generator": f"swizzle-solve {__version__} probe",
        "target": target,
        "build_arch": module.build_arch(problem.hardware),
        "problem": problem_json(problem),
        "layout": {"name": probe.layout.name, "family": probe.layout.family,
                   "expression": orient.expression(problem.tile, probe.layout.expression(problem.tile)),
                   "storage_bytes": probe.storage_bytes},
        "tile_base_alignment_bytes": ALIGN_BYTES,
        "measurement": {"file": module.MEASUREMENT, "made_by": "bash run.sh"},
        "kernels": kernels,
    }


def readme(probe: Probe, module, solved: str) -> str:
    t = probe.problem.tile
    rows = [_readme_row(a) for a in probe.accesses]
    notes = [f"- {n}" for a in probe.accesses for n in a.notes]
    return "\n".join([
        f"# Probe: {t.describe()}, layout {probe.layout.name}",
        "",
        f"Written by swizzle-solve {__version__} ({solved}). Each access of the problem is one kernel that "
        f"performs it over the layout, every placement once, with the instruction it names; the profiler "
        f"counts what the hardware served, and `prediction.json` holds what the model predicts for exactly "
        f"those instructions.",
        "",
        "```bash",
        f"bash build.sh            # {module.build_line(probe.problem.hardware)}",
        f"bash run.sh              # runs the probe, then the profiler: writes {module.MEASUREMENT} and device.txt",
        "swizzle-solve probe-compare .   # predicted vs measured; exit 0 only when every access agrees",
        "```",
        "",
        "| kernel | access | instruction | instructions | wavefronts | ideal | bank conflicts |",
        "|---|---|---|---|---|---|---|",
        *rows,
        "",
        module.COUNTERS_NOTE,
        "",
        *(["Notes:", "", *notes, ""] if notes else []),
        module.README_NOTES,
    ]) + "\n"


def _readme_row(a: ProbeAccess) -> str:
    r = a.readings[0]
    return (f"| probe_a{a.index} | `{a.spec}` | `{a.op.name}` | {a.instructions} | {r.wavefronts} | {r.ideal} | "
            f"{r.conflicts} |")
