"""The recorded GPU measurements (tests/data/gpu/*.json) replayed against the current model.

Each file is bench/gpu_probe.py run's summary.json of the NVIDIA gpu-tier set, measured on a GPU
(its `device`), with the layout each probe issued. Here every probe is written again with today's
code from its case definition in bench/gpu_probe.py (`swizzle-solve probe CASE --check LAYOUT`, no
solve) and its predicted counters are held against the measured ones:

- every kernel agrees exactly (the compared ncu counters: wavefronts and bank conflicts), except
- the file's `known_differences`, which must still differ, each counter in the same direction as
  when measured (the model over-counts: predicted > measured), so that a model change that fixes
  one (then move it out of the list, and out of docs/hardware.md) or breaks it is noticed.

No GPU is needed: the measured numbers are data.
"""
from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path

import pytest

from swizzle_solver.cli import main

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import gpu_probe  # noqa: E402

sys.path.pop(0)

FILES = sorted((ROOT / "tests" / "data" / "gpu").glob("*.json"))


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)


def _without_check(args: list[str]) -> list[str]:
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
        elif a == "--check":
            skip = True
        else:
            out.append(a)
    return out


def _predict(args: list[str], layout: str, folder: Path) -> dict[str, dict[str, float]]:
    """kernel -> {metric: value} of every compare group of today's prediction for the probe."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
        code = main(["probe", *_without_check(args), "--check", layout, "--target", "cuda", "-o", str(folder)])
    assert code == 0, err.getvalue()
    doc = json.loads((folder / "prediction.json").read_text())
    out: dict[str, dict[str, float]] = {}
    for k in doc["kernels"]:
        assert not k["reading"], "NVIDIA probes have one reading"
        out[k["kernel"]] = {m: v for g in k["compare"] for m, v in g.items()}
    return out


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_recorded_measurements_replay_against_the_current_model(path: Path, tmp_path: Path):
    doc = json.loads(path.read_text())
    assert {"gpu", "driver", "ncu", "nvcc", "date"} <= set(doc["device"])
    cases = {c["name"]: c for c in gpu_probe.cases(gpu_probe.instruction_file(tmp_path / "instructions.toml"))}
    known = {(d["probe"], d["access"]): d for d in doc["known_differences"]}
    seen_known, agree, problems = set(), 0, []
    for i, probe in enumerate(doc["probes"]):
        assert probe["name"] in cases, f"{probe['name']!r} is no longer a case of bench/gpu_probe.py"
        assert probe.get("compare") in (0, 1) and probe["kernels"], f"{probe['slug']} was not measured"
        now = _predict(cases[probe["name"]]["args"], probe["layout"], tmp_path / f"p{i}")
        for k in probe["kernels"]:
            predicted = now[k["kernel"]]
            key = (probe["name"], k["access"])
            rows = [(m, predicted[m], then, got) for m, (then, got) in k["counters"].items()]
            where = f"{probe['slug']} {k['kernel']} ({k['access']})"
            if key not in known:
                assert k["agree"], f"{where} differed when measured: list it in known_differences"
                agree += 1
                problems += [f"{where}: {m} predicted {p} now, measured {g}" for m, p, _, g in rows if p != g]
                continue
            seen_known.add(key)
            assert not k["agree"], f"{where} is listed as a known difference, but agreed when measured"
            if all(p == g for _, p, _, g in rows):
                problems.append(f"{where}: the model now agrees with the measurement ({rows}): take it out of "
                                f"known_differences and docs/hardware.md")
            elif any(_sign(p - g) != _sign(then - g) for _, p, then, g in rows):
                problems.append(f"{where}: the model now differs in another direction ({rows}; recorded "
                                f"{known[key]['model']})")
    assert seen_known == set(known), f"known differences not in the measurement: {set(known) - seen_known}"
    assert not problems, "\n".join(problems)
    assert agree > 0


def test_known_differences_are_over_counts():
    """The documented differences are the model over-counting (never under-counting) on the GPU."""
    for path in FILES:
        doc = json.loads(path.read_text())
        probes = {p["name"]: p for p in doc["probes"]}
        for d in doc["known_differences"]:
            assert d["model"] == "over-counts"
            kernel = next(k for k in probes[d["probe"]]["kernels"] if k["access"] == d["access"])
            signs = {_sign(then - got) for then, got in kernel["counters"].values()}
            assert signs <= {0, 1} and 1 in signs, (d, kernel["counters"])


def test_docs_list_every_recorded_measurement():
    """docs/hardware.md's Measured table has a row per file: its date, GPU, driver and counts."""
    docs = (ROOT / "docs" / "hardware.md").read_text()
    for path in FILES:
        doc = json.loads(path.read_text())
        device, probes = doc["device"], doc["probes"]
        kernels = sum(len(p["kernels"]) for p in probes)
        agree = sum(1 for p in probes if p["compare"] == 0)
        row = next((line for line in docs.splitlines() if line.startswith(f"| {device['date']} | {device['gpu']}")),
                   None)
        assert row is not None and f"tests/data/gpu/{path.name}" in docs, path.name
        assert f"| {device['driver']} |" in row and f"| {len(probes)} ({kernels}) | {agree} probes" in row, row
