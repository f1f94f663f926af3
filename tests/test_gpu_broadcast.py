"""bench/gpu_broadcast.py: the repeated-address experiment for NVIDIA's 64- and 128-bit accesses.

- Every pattern is one warp instruction of 32 aligned lanes inside the tile; names are unique in the
  first 40 characters (what gpu_probe's summary.txt shows); at most 40 probe folders.
- The experiment discriminates: every two load hypotheses predict different counts on some lds128
  kernel and on some lds64 kernel (the two that coincide by definition for 8-byte lanes excepted).
- The adopted hypothesis (`pairs` for loads, `model` for stores: gpu_broadcast.adopted) is the tool's
  own prediction: the probes written by `gen` predict exactly it for every kernel (the simulator,
  independent of the counting here).
- `analyze` on a synthetic measurement: the hypothesis that made it matches every kernel.
"""
from __future__ import annotations

import contextlib
import io
import itertools
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import gpu_broadcast  # noqa: E402

sys.path.pop(0)


def test_patterns_are_whole_aligned_warp_instructions_with_distinct_names():
    kernels = gpu_broadcast.kernels()
    assert len({k["name"][:40] for k in kernels}) == len(kernels)
    assert len({k["folder"] for k in kernels}) <= 40
    for k in kernels:
        assert len(k["offsets"]) == 32 and all(o % k["width"] == 0 and 0 <= o < 32 * 128 for o in k["offsets"])


def test_every_two_hypotheses_are_told_apart_on_each_width():
    kernels = gpu_broadcast.kernels()
    for op in ("lds128", "lds64"):
        table = [gpu_broadcast.hypotheses(k["offsets"], k["width"]) for k in kernels if k["op"] == op]
        for a, b in itertools.combinations(gpu_broadcast.HYPOTHESES, 2):
            if op == "lds64" and {a, b} == {"half-warp", "warp"}:
                continue  # 8-byte lanes: half-warp units are 32 lanes, the warp
            assert any(h[a] != h[b] for h in table), (op, a, b)


def test_one_address_reproduces_the_first_measurement_under_the_pairs_rule():
    """The H100's recorded counts (tests/data/gpu): one 8-byte address 1 wavefront, one 16-byte 2."""
    assert gpu_broadcast.hypotheses([0] * 32, 8)["pairs"] == (1, 0)
    assert gpu_broadcast.hypotheses([0] * 32, 16)["pairs"] == (2, 0)
    assert gpu_broadcast.hypotheses([0] * 32, 16)["model"] == (4, 0)


def _gen(tmp_path: Path) -> Path:
    out = tmp_path / "bc"
    with contextlib.redirect_stdout(io.StringIO()):
        assert gpu_broadcast.gen(out) == 0
    return out


def test_gen_writes_probes_that_predict_the_adopted_column(tmp_path):
    out = _gen(tmp_path)
    cases = json.loads((out / "cases.json").read_text())
    table = json.loads((out / "hypotheses.json").read_text())["kernels"]
    assert all(c["written"] for c in cases) and len(table) == len(gpu_broadcast.kernels())
    for c in cases:
        doc = json.loads((out / c["slug"] / "prediction.json").read_text())
        for k in doc["kernels"]:
            mine = table[f"{c['slug']}/{k['kernel']}"]
            assert k["access"] == mine["name"] and k["instructions"] == 1
            assert [k["wavefronts"], k["bank_conflicts"]] == mine["hypotheses"][gpu_broadcast.adopted(mine["op"])], \
                mine["name"]
    assert sum(f.stat().st_size for f in out.rglob("*") if f.is_file()) < 5 << 20


def test_analyze_finds_the_hypothesis_that_made_the_measurement(tmp_path, capsys):
    out = _gen(tmp_path)
    table = json.loads((out / "hypotheses.json").read_text())["kernels"]
    probes: dict[str, dict] = {}
    for k in table.values():
        w, c = k["hypotheses"]["half-warp"]
        probe = probes.setdefault(k["slug"], {"slug": k["slug"], "name": k["folder"], "kernels": []})
        probe["kernels"].append({"kernel": k["kernel"], "access": k["name"], "counters": {
            "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": [0, float(w)],
            "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": [0, float(c)]}})
    results = tmp_path / "results"
    results.mkdir()
    (results / "summary.json").write_text(json.dumps({"device": {}, "probes": list(probes.values())}))
    capsys.readouterr()
    assert gpu_broadcast.analyze(out, results) == 0
    text = capsys.readouterr().out
    counts = {op: sum(1 for k in table.values() if k["op"] == op) for op in gpu_broadcast.WIDTH}
    row = next(line for line in text.splitlines() if line.startswith("| half-warp |"))
    assert row == "| half-warp | " + " | ".join(str(counts[op]) for op in
                                                 dict.fromkeys(k["op"] for k in table.values())) + " |"
    model = next(line for line in text.splitlines() if line.startswith("| model |"))
    assert model != row.replace("half-warp", "model")
