"""The recorded GPU measurements (tests/data/gpu/*.json) replayed against the current model.

Each file is bench/gpu_probe.py run's summary.json of one set of probes measured on a GPU (its
`device`), with the layout each probe issued; its `cases` names the module whose case definitions
made the probes (bench/gpu_probe.py: the gpu tier; bench/gpu_broadcast.py: the repeated-address
experiment, whose kernels also record every lane's byte offset). Here every probe is written again
with today's code from its case (`swizzle-solve probe CASE --check LAYOUT`, no solve) and its
predicted counters are held against the measured ones:

- every kernel agrees exactly (the compared ncu counters: wavefronts and bank conflicts), whatever
  the model predicted when it was measured (the counters' first value, kept as recorded), except
- the file's `known_differences`, which must still differ, each counter in the same direction as
  when measured (the model over-counts: predicted > measured), so that a model change that fixes
  one (then move it out of the list, and out of docs/hardware.md) or breaks it is noticed. All
  the H100 files have none since paired loads are modelled (hardware.Hardware.pairs).

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
import gpu_broadcast  # noqa: E402
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


def _cases(doc: dict, folder: Path) -> dict[str, dict]:
    """name -> case (its args) of the module that made the file's probes."""
    if doc["cases"] == "bench/gpu_probe.py":
        found = gpu_probe.cases(gpu_probe.instruction_file(folder / "instructions.toml"))
    else:
        assert doc["cases"] == "bench/gpu_broadcast.py", doc["cases"]
        found = gpu_broadcast.cases(folder / "phases")
    return {c["name"]: c for c in found}


def _lanes(doc: dict) -> dict[tuple[str, str], list[int]]:
    """(probe name, access) -> every lane's byte offset as the module makes them now (the broadcast
    experiment: one unswizzled [[instruction]] per kernel, whose offsets the file recorded)."""
    if doc["cases"] != "bench/gpu_broadcast.py":
        return {}
    return {(f"broadcast: {k['folder']}", k["name"]): k["offsets"] for k in gpu_broadcast.kernels()}


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_recorded_measurements_replay_against_the_current_model(path: Path, tmp_path: Path):
    doc = json.loads(path.read_text())
    assert {"gpu", "driver", "ncu", "nvcc", "date"} <= set(doc["device"])
    cases, lanes = _cases(doc, tmp_path), _lanes(doc)
    known = {(d["probe"], d["access"]): d for d in doc["known_differences"]}
    seen_known, agree, problems = set(), 0, []
    for i, probe in enumerate(doc["probes"]):
        assert probe["name"] in cases, f"{probe['name']!r} is no longer a case of {doc['cases']}"
        assert probe.get("compare") in (0, 1) and probe["kernels"], f"{probe['slug']} was not measured"
        now = _predict(cases[probe["name"]]["args"], probe["layout"], tmp_path / f"p{i}")
        for k in probe["kernels"]:
            predicted = now[k["kernel"]]
            key = (probe["name"], k["access"])
            rows = [(m, predicted[m], then, got) for m, (then, got) in k["counters"].items()]
            where = f"{probe['slug']} {k['kernel']} ({k['access']})"
            assert k["agree"] == all(then == got for _, _, then, got in rows), f"{where}: 'agree' is not its counters'"
            if "offsets" in k:  # the case still issues the lanes that were measured
                assert lanes.get(key) == k["offsets"], f"{where}: bench/gpu_broadcast.py no longer makes these lanes"
            if key not in known:
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
    """docs/hardware.md's Measured table has a row per file: its date, GPU, driver, data file, counts
    when measured, and what today's model gives (all its kernels when it lists no known difference)."""
    docs = (ROOT / "docs" / "hardware.md").read_text()
    for path in FILES:
        doc = json.loads(path.read_text())
        device, probes = doc["device"], doc["probes"]
        kernels = sum(len(p["kernels"]) for p in probes)
        agree = sum(1 for p in probes if p["compare"] == 0)
        agreed = sum(1 for p in probes for k in p["kernels"] if k["agree"])
        row = next((line for line in docs.splitlines() if line.startswith(f"| {device['date']} | {device['gpu']}")
                    and f"(`{path.name}`)" in line), None)
        assert row is not None, path.name
        assert f"| {device['driver']} |" in row, row
        assert f"| {len(probes)} ({kernels}) | {agree} probes ({agreed} kernels) |" in row, row
        now = f"all {kernels} kernels agree" if not doc["known_differences"] else \
            f"{kernels - len(doc['known_differences'])} of {kernels} kernels agree"
        assert row.endswith(f"| {now} |"), row


def _counters(args: list[str], layout: str) -> list[dict | None]:
    """Each access's ``counter`` in today's --check JSON of the probe's case (report.cost_json)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()) as err:
        code = main([*_without_check(args), "--check", layout, "--json"])
    assert code in (0, 1), err.getvalue()
    return [a.get("counter") for a in json.loads(out.getvalue())["answer"]["per_access"]]


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_the_reported_counters_are_what_the_h100_measured(path: Path, tmp_path: Path):
    """DESIGN.md section 10: each access's ``counter`` in solve/check JSON is what Nsight Compute
    printed for the probe kernel that made exactly that access once over the tile (the kernel of
    the access's index), metric by metric, for every recorded kernel (none differs: see above)."""
    doc = json.loads(path.read_text())
    cases, compared = _cases(doc, tmp_path), 0
    assert not doc["known_differences"]
    for probe in doc["probes"]:
        counters = _counters(cases[probe["name"]]["args"], probe["layout"])
        for k in probe["kernels"]:
            measured = {m: got for m, (_, got) in k["counters"].items()}
            reported = counters[int(k["kernel"].removeprefix("probe_a"))]
            assert reported == measured, f"{probe['slug']} {k['kernel']} ({k['access']}): {reported} != {measured}"
            compared += 1
    assert compared == sum(len(p["kernels"]) for p in doc["probes"])
