"""issue 38's probes for the next device run (bench/gpu_discriminate.py), without a GPU.

- Every kernel's ``model`` hypothesis, computed by the module's own bank counter from the lane byte
  offsets of probe.cu's tables (one ldmatrix matrix per phase, NVIDIA's fixed phases, paired loads),
  is exactly the tool's prediction (prediction.json): the probes issue what the model counts. A
  change that serves ldmatrix / stmatrix as two matrices per 16-lane phase changes the prediction
  and fails here.
- The sets discriminate: on every .x2 / .x4 ldmatrix and stmatrix kernel "one matrix per phase"
  and "two matrices per 16-lane phase" predict different counts (an .x1 is one matrix: the same);
  a partial warp of paired loads (a [[pattern]] phase of 16 or 24 lanes, issued as listed) is
  paired under "all active threads" and not under the model's rule;
  every 8/16-bit kernel whose lanes share words has a ``bytes`` prediction that differs; the
  partial-broadcast kernels a ``no-broadcast`` one; the randomly placed cp.async chunks a
  ``half-warp`` and a ``warp`` one.
- cp.async kernels issue cp.async and are compared under ncu's ``_op_ldgsts`` names.
- ``analyze`` reads the raw ncu.csv through probe-compare's parser and scores each hypothesis.
"""
from __future__ import annotations

import contextlib
import io
import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import gpu_discriminate  # noqa: E402

sys.path.pop(0)


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("discriminate") / "d"
    with contextlib.redirect_stdout(io.StringIO()):
        assert gpu_discriminate.gen(out) == 0
    return out


def kernels(out: Path) -> dict[str, dict]:
    return json.loads((out / "hypotheses.json").read_text())["kernels"]


def test_the_model_hypothesis_is_the_tools_prediction(written):
    table = kernels(written)
    assert len(table) >= 70
    for key, k in table.items():
        assert k["hypotheses"]["model"] == k["predicted"], key
    ops = {k["op"] for k in table.values()}
    assert {"ldmatrix.x1", "ldmatrix.x2", "ldmatrix.x4", "ldmatrix.x2.trans", "ldmatrix.x4.trans", "stmatrix.x2",
            "stmatrix.x4", "stmatrix.x4.trans", "cp.async.cg.shared.global"} <= ops
    widths = {f"{d}.shared.{t}" for d in ("ld", "st") for t in ("u8", "u16", "b32", "v2.b32", "v4.b32")}
    assert widths <= ops


def test_each_matrix_probe_tells_one_matrix_per_phase_from_two(written):
    """On the layouts whose two 8-row halves differ, .x2 and .x4 predict other counts under the
    two groupings; the .x1 (one matrix) is the control, the same under both."""
    matrix = [k for k in kernels(written).values() if re.fullmatch(r"(ld|st)matrix\.x\d(\.trans)?", k["op"])]
    assert len(matrix) == 4 * 8
    for k in matrix:
        one, two = k["hypotheses"]["model"], k["hypotheses"]["half-warp"]
        if k["op"] == "ldmatrix.x1":
            assert one == two, k
        else:
            assert one != two and one[0] > two[0], k  # two matrices at once share their banks' passes


def test_the_other_sets_discriminate(written):
    for k in kernels(written).values():
        h, op = k["hypotheses"], k["op"]
        if k["case"].startswith("subword"):
            assert h["bytes"] != h["model"], k
        elif k["case"].startswith("broadcast"):
            assert h["no-broadcast"] != h["model"], k
        elif k["case"].startswith("partial"):  # the 64-bit kernels of 16 lanes are one phase either way
            assert (h["active-pairs"] != h["model"]) == (not k["access"].startswith("64-bit loads, 16")), k
        elif op.startswith("cp.async") and "permuted" in k["case"]:
            assert len({tuple(h[x]) for x in ("model", "half-warp", "warp")}) == 3, k


def test_cp_async_is_issued_and_compared_as_ldgsts(written):
    for folder in written.glob("[0-9]*-cp-async-*"):
        doc = json.loads((folder / "prediction.json").read_text())
        (k, *rest) = doc["kernels"]
        assert k["instruction"] == "cp.async.cg.shared.global.L2::128B" and k["direction"] == "store"
        assert all(m.endswith("_op_ldgsts.sum") for g in k["compare"] for m in g), k["compare"]
        assert "cp.async.cg.shared.global.L2::128B [%0], [%1], 16;" in (folder / "probe.cu").read_text()


def test_the_plan_prints_both_predictions(written):
    text = (written / "README.md").read_text()
    assert re.search(r"\| ldmatrix\.x4 \| 128/64 \| half-warp 64/0 \|", text), text[:2000]
    assert "kernels have a hypothesis that predicts otherwise" in text


def _ncu_csv(doc: dict, value) -> str:
    rows = ['"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"']
    for i, k in enumerate(doc["kernels"]):
        for g in k["compare"]:
            for m, v in g.items():
                rows.append(f'"{i}","{k["kernel"]}","{m}","","{value(k, m, v):,}"')
    return "\n".join(rows) + "\n"


def test_analyze_reads_the_raw_csv_and_scores_each_hypothesis(written, tmp_path, capsys):
    """A results folder as `gpu_probe.py run` keeps it (prediction.json and ncu.csv per probe): where the
    GPU served ldmatrix as two matrices per phase, analyze says the model missed those kernels."""
    table = kernels(written)
    results = tmp_path / "results"
    for folder in sorted(written.glob("[0-9][0-9]-*")):
        doc = json.loads((folder / "prediction.json").read_text())
        keep = results / folder.name
        keep.mkdir(parents=True)
        (keep / "prediction.json").write_text(json.dumps(doc))

        def half_warp(k, m, v, slug=folder.name):
            w, c = table[f"{slug}/{k['kernel']}"]["hypotheses"].get("half-warp", [None, None])
            if w is None or not k["op"].startswith(("ldmatrix", "stmatrix")):
                return v
            return w if "wavefronts" in m else c

        (keep / "ncu.csv").write_text(_ncu_csv(doc, half_warp))
    assert gpu_discriminate.analyze(written, results) == 1
    out = capsys.readouterr().out
    matrix = sum(1 for k in table.values() if k["op"].startswith(("ldmatrix", "stmatrix")))
    x1 = sum(1 for k in table.values() if k["op"] == "ldmatrix.x1")
    assert f"- model: {len(table) - matrix + x1} of {len(table)}" in out
    has = [k for k in table.values() if "half-warp" in k["hypotheses"]]
    hits = sum(1 for k in has if k["op"].startswith(("ldmatrix", "stmatrix"))
               or k["hypotheses"]["half-warp"] == k["hypotheses"]["model"])
    assert f"- half-warp: {hits} of {len(has)}" in out and hits >= matrix


def test_the_docs_name_the_cells_a_rocprof_run_settles():
    """docs/hardware.md's list of the AMD cells a rocprof run would settle is the probes gen --amd writes."""
    sys.path.insert(0, str(ROOT / "bench"))
    import gpu_probe

    sys.path.pop(0)
    docs = (ROOT / "docs" / "hardware.md").read_text()
    for arch in ("gfx942", "gfx950"):
        row = next(line for line in docs.splitlines() if line.startswith(f"| {arch} | `"))
        listed = re.findall(r"`([a-z0-9_]+)` \(([A-Za-z+]+)\)", row)
        made = []
        for case in gpu_probe.amd_cases(arch):
            m = re.match(rf"{arch} (\S+) \(([^)]+)\) down a column", case["name"]) or \
                re.match(rf"{arch} mfma-a:\S+ \S+ as \S+ and as (\S+) \(([^)]+)\)", case["name"])
            if m:
                made.append((m[1], m[2]))
        assert listed == made, (arch, listed, made)
