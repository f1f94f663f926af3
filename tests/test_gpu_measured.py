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

Runs recorded since issue 38 keep their raw material (bench/gpu_probe.py run: each probe's ncu.csv,
probe.out, device.txt, prediction.json, probe.cu and its hash, the generating commit), one folder per
set under tests/data/gpu/<run>/<set>/ with its summary.json: those are replayed from the raw ncu.csv,
read by probe-compare's own parser (``read_ncu``), not from the summary (which must say what the raw
file says). The four files above predate that and only have summaries (docs/hardware.md, "The next
device run"); there are no raw runs yet, and ``raw_replay`` is tested on a run made here.

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
import gpu_discriminate  # noqa: E402
import gpu_probe  # noqa: E402

sys.path.pop(0)

FILES = sorted((ROOT / "tests" / "data" / "gpu").glob("*.json"))
RAW_RUNS = sorted((ROOT / "tests" / "data" / "gpu").glob("*/*/summary.json"))


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
    elif doc["cases"] == "bench/gpu_discriminate.py":
        found = gpu_discriminate.cases(folder / "inputs")
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


# --- runs with their raw material (issue 38) ----------------------------------------------------------


def raw_replay(summary: Path, tmp_path: Path) -> tuple[int, list[str]]:
    """(kernels replayed, problems) of one recorded set with raw files: for every probe that ran, its
    ncu.csv read by probe-compare's parser holds exactly the values the summary recorded, and today's
    prediction for its case (the case's own --check, else the recorded layout) is what ncu printed."""
    from swizzle_solver.probe.compare import read_ncu

    doc = json.loads(summary.read_text())
    cases = _cases({"cases": doc["generated"]["cases"]}, tmp_path)
    replayed, problems = 0, []
    for i, probe in enumerate(doc["probes"]):
        if probe.get("compare") not in (0, 1):
            continue  # not run (the budget) or not measured: nothing to replay
        raw_file = summary.parent / probe["slug"] / "ncu.csv"
        assert raw_file.is_file(), f"{probe['slug']}: measured, but its ncu.csv was not kept"
        raw = read_ncu(raw_file.read_text())
        args = cases[probe["name"]]["args"]
        now = _predict(_without_check(args), probe["layout"], tmp_path / f"p{i}") if "--check" not in args else \
            _predict(args, args[args.index("--check") + 1], tmp_path / f"p{i}")
        for k in probe["kernels"]:
            where = f"{probe['slug']} {k['kernel']} ({k['access']})"
            for m, (_, recorded) in k["counters"].items():
                got = raw.get(k["kernel"], {}).get(m)
                if got != recorded:
                    problems.append(f"{where}: {m} is {got} in ncu.csv, {recorded} in summary.json")
                elif now[k["kernel"]][m] != got:
                    problems.append(f"{where}: {m} predicted {now[k['kernel']][m]} now, measured {got}")
            replayed += 1
    return replayed, problems


@pytest.mark.parametrize("summary", RAW_RUNS, ids=[f"{p.parent.parent.name}/{p.parent.name}" for p in RAW_RUNS])
def test_recorded_raw_runs_replay_from_the_profilers_own_output(summary: Path, tmp_path: Path):
    replayed, problems = raw_replay(summary, tmp_path)
    assert replayed > 0 and not problems, "\n".join(problems)


def test_the_raw_replay_reads_ncu_csv_and_catches_a_summary_or_a_model_that_differs(tmp_path: Path):
    """A run of two discriminating probes made here as `gpu_probe.py run` keeps it (summary.json, and per
    probe prediction.json and an ncu.csv of what the model predicts): it replays; an ncu.csv that says
    otherwise than its summary, or than today's model, is a problem named by kernel and metric."""
    out, run = tmp_path / "gen", tmp_path / "run" / "discriminate"
    todo = [c for c in gpu_discriminate.cases(out / "inputs") if c["name"].startswith((
        "matrices: f16 64x64, Swizzle<3,3,4>", "cp.async: f16 64x8"))]
    with contextlib.redirect_stdout(io.StringIO()):
        assert gpu_probe.write_cases(out, todo, "bench/gpu_discriminate.py") == 0
    probes = []
    for c in todo:
        doc = json.loads((out / c["slug"] / "prediction.json").read_text())
        (run / c["slug"]).mkdir(parents=True)
        rows = ['"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"']
        kernels = []
        for n, k in enumerate(doc["kernels"]):
            first = k["compare"][0]
            rows += [f'"{n}","{k["kernel"]}","{m}","","{v:,}"' for m, v in first.items()]
            kernels.append({"kernel": k["kernel"], "access": k["access"], "op": k["op"], "agree": True,
                            "checksum": k["checksum"], "counters": {m: [v, float(v)] for m, v in first.items()}})
        (run / c["slug"] / "ncu.csv").write_text("\n".join(rows) + "\n")
        probes.append({"slug": c["slug"], "name": c["name"], "args": c["args"], "compare": 0,
                       "layout": doc["layout"]["name"], "kernels": kernels})
    summary = run / "summary.json"
    summary.write_text(json.dumps({"device": {}, "generated": json.loads((out / "generated.json").read_text()),
                                   "probes": probes}))
    assert json.loads((out / "generated.json").read_text())["cases"] == "bench/gpu_discriminate.py"
    replayed, problems = raw_replay(summary, tmp_path / "a")
    assert replayed == 9 and problems == []
    # the raw file of the ldmatrix.x4 kernel says what two matrices per 16-lane phase predict (64/0)
    csv = run / todo[0]["slug"] / "ncu.csv"
    csv.write_text(csv.read_text().replace('"probe_a2","sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm'
                                           '.sum","","128"', '"probe_a2","sm__sass_l1tex_data_pipe_lsu_wavefronts_'
                                           'mem_shared_op_ldsm.sum","","64"'))
    _, problems = raw_replay(summary, tmp_path / "b")
    assert problems == [f"{todo[0]['slug']} probe_a2 (ldmatrix.x4): sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_"
                        f"shared_op_ldsm.sum is 64.0 in ncu.csv, 128.0 in summary.json"]
    # and when the summary agrees with that raw file, it is the model that differs
    probes[0]["kernels"][2]["counters"]["sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum"][1] = 64.0
    summary.write_text(json.dumps({"device": {}, "generated": {"cases": "bench/gpu_discriminate.py"}, "probes": probes}))
    _, problems = raw_replay(summary, tmp_path / "c")
    assert problems == [f"{todo[0]['slug']} probe_a2 (ldmatrix.x4): sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_"
                        f"shared_op_ldsm.sum predicted 128 now, measured 64.0"]
