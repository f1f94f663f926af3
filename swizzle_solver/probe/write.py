"""`swizzle-solve probe`: write a probe folder (DESIGN.md section 12).

The folder holds the target's source, build.sh, run.sh, prediction.json (what the model predicts
for every kernel, in the profiler's counter names) and a README. It is written only into a new or
empty folder, and only after every check has passed, so bad input writes nothing.
"""
from __future__ import annotations

import json
from pathlib import Path

from .. import __version__, orient
from ..layout import Layout
from ..model import InputError, Problem
from .common import ALIGN_BYTES, checksum
from .plan import Probe, ProbeAccess, plan
from .targets import TARGETS, for_language

PREDICTION = "prediction.json"


def check_folder(out: str) -> Path:
    """The output folder: new (created with its parents) or empty; anything else is bad input."""
    path = Path(out)
    if path.exists() or path.is_symlink():
        if not path.is_dir():
            raise InputError(f"-o {out}: exists and is not a folder: give a new or empty folder")
        try:
            if any(path.iterdir()):
                raise InputError(f"-o {out}: the folder is not empty: give a new or empty folder "
                                 f"(a probe never overwrites files)")
        except PermissionError:
            raise InputError(f"-o {out}: cannot read the folder: give a new or empty folder you can write") from None
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
    path.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (path / name).write_text(text)
        if name.endswith(".sh"):
            (path / name).chmod(0o755)
    return path


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
