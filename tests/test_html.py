"""--html (issue 36): the page's embedded data against the simulator, the escaping of user text, bad
output paths, a layout drawn alone (--show, --svg, --html without an access), batch --html. The page
in a real browser: tests/test_html_browser.py (the toolchain tier)."""
from __future__ import annotations

import base64
import json
import os
import re
from pathlib import Path

import numpy as np
import pytest

from swizzle_solver import simulate
from swizzle_solver.access import make_problem
from swizzle_solver.families.identity import Identity
from swizzle_solver.html import page, script_json, view
from swizzle_solver.layout import layout_table
from swizzle_solver.names import parse_layout
from tests.clirun import solve


def data_of(text: str) -> dict:
    parts = re.findall(r'<script type="application/json" class="swizzle-data">(.*?)</script>', text, re.S)
    assert parts, "no embedded data"
    return json.loads("".join(parts))


def ints(b64: str) -> np.ndarray:
    return np.frombuffer(base64.b64decode(b64), dtype="<i4")


def test_the_page_carries_the_simulators_counts_and_banks(tmp_path):
    path = tmp_path / "p.html"
    run = solve("--rows", "32", "--cols", "32", "--access", "8x4", "--access", "col", "--html", str(path), "-q")
    assert run.returncode == 1 and run.stdout.strip() == "Swizzle<3,2,3>"
    text = path.read_text()
    assert "http://" not in text.replace("http://www.w3.org", "") and "https://" not in text  # nothing fetched
    data = data_of(text)
    (v,) = data["views"]
    problem = make_problem(32, 32, ["8x4", "col"], None, 4)
    names = [x["name"] for x in v["layouts"]]
    assert names[:2] == ["none", "Swizzle<3,2,3>"] and len(names) > 2  # before, answer, the other candidates
    for i, entry in enumerate(v["layouts"]):
        layout = Identity() if i == 0 else parse_layout(entry["name"], tile=problem.tile)
        phys = layout_table(problem.tile, layout)
        assert (ints(entry["phys"]) == phys.ravel()).all()
        assert (ints(entry["bank"]) == (phys * 4 // 4 % 32).ravel()).all()
        for a, pattern in zip(v["accesses"], problem.patterns):
            costs = simulate.simulate(problem.tile, problem.hardware, [pattern], phys)[0].costs
            assert (ints(a["costs"][i]) == costs).all()
            assert a["worst"][i] == int(costs.max()) and a["total"][i] == int(costs.sum())
    doc = v["doc"]
    assert doc["answer"]["name"] == "Swizzle<3,2,3>" and set(doc["answer"]["emit"]) >= {"cuda", "cute", "triton"}
    assert [a["worst"][1] for a in v["accesses"]] == [p["worst_wavefronts"] for p in doc["answer"]["per_access"]]
    assert (ints(v["accesses"][0]["row"]).reshape(-1, v["accesses"][0]["lanes"]) == problem.patterns[0].lane_row).all()


def test_user_text_cannot_end_the_script_or_become_markup():
    hostile = 'x</script><script>alert(1)</script>"\'&<!--\u2028'
    text = page([{"title": hostile, "tile": {}, "layouts": [], "accesses": [], "doc": None, "explain": None}], hostile)
    assert text.count("</script>") == 2  # the data's and the page script's own ends, nothing more
    assert "<script>alert" not in text
    assert "\u2028" not in text.split('class="swizzle-data">')[1].split("</script>")[0]
    assert data_of(text)["views"][0]["title"] == hostile  # read back unchanged
    assert "<title>x&lt;/script&gt;" in text
    assert json.loads(script_json(hostile)) == hostile


def test_bad_paths_are_one_line_and_write_nothing(tmp_path):
    for path, words in ((tmp_path / "none" / "p.html", "does not exist"), (tmp_path, "is a directory")):
        run = solve("--rows", "8", "--cols", "8", "--access", "8x1", "--html", str(path))
        assert run.returncode == 2 and run.stdout == "" and words in run.stderr and len(run.stderr.splitlines()) == 1
        assert run.stderr.startswith("swizzle-solve: error: --html")
    assert os.listdir(tmp_path) == []


def test_a_layout_is_drawn_without_an_access(tmp_path):
    run = solve("--rows", "8", "--cols", "8", "--banks", "8", "--check", "Swizzle<3,0,3>", "--show")
    assert run.returncode == 0 and "no access named" in run.stdout
    lines = [x.split()[-8:] for x in run.stdout.splitlines() if re.fullmatch(r"\s*\d( +\d){8}\s+\d( +\d){8}\s*", x)]
    after = [[int(b) for b in x] for x in lines]
    problem = make_problem(8, 8, [], None, 4, banks=8, drawing=True)
    phys = layout_table(problem.tile, parse_layout("Swizzle<3,0,3>", tile=problem.tile))
    assert after == (phys % 8).tolist()
    svg, html = tmp_path / "a.svg", tmp_path / "a.html"
    run = solve("--rows", "8", "--cols", "8", "--check", "Swizzle<3,0,3>", "--svg", str(svg), "--html", str(html))
    assert run.returncode == 0 and svg.read_text().startswith("<?xml") and "no access named" in svg.read_text()
    v = data_of(html.read_text())["views"][0]
    assert v["accesses"] == [] and v["doc"] is None and (ints(v["layouts"][0]["phys"]) == phys.ravel()).all()
    for bad in (["--json"], ["--emit", "cuda"], ["--explain"]):  # (--explain was dropped: exit 0, no sentence)
        run = solve("--rows", "8", "--cols", "8", "--svg", str(svg), *bad)
        assert run.returncode == 2 and run.stdout == "" and "need an access" in run.stderr


def test_the_view_keeps_only_the_worst_instructions_of_a_huge_access(monkeypatch):
    import swizzle_solver.html as h

    monkeypatch.setattr(h, "MAX_LANES", 16)
    problem = make_problem(16, 16, ["8x4"], None, 4)
    v = view(problem, [("before", Identity())], None, "t")
    (a,) = v["accesses"]
    costs = simulate.simulate(problem.tile, problem.hardware, problem.patterns, layout_table(problem.tile, Identity()))
    assert list(ints(a["index"])) == [int(costs[0].costs.argmax())]


@pytest.mark.slow
def test_a_128_by_128_page_is_at_most_three_times_the_svg(tmp_path):
    svg, html = tmp_path / "t.svg", tmp_path / "t.html"
    run = solve("--rows", "128", "--cols", "128", "--dtype", "f16", "--access", "8x8", "--access", "row",
                "--svg", str(svg), "--html", str(html), "-q")
    assert run.returncode == 0
    assert html.stat().st_size <= 3 * svg.stat().st_size, (html.stat().st_size, svg.stat().st_size)


BATCH = """
[[case]]
name = "solved"
rows = 16
cols = 16
elem_bytes = 4
access = ["8x4", "col"]

[[case]]
name = "checked, passes"
rows = 8
cols = 8
elem_bytes = 4
banks = 8
access = ["row", "8x1"]
check = "Swizzle<3,0,3>"

[[case]]
name = "checked, fails </script>"
rows = 8
cols = 8
elem_bytes = 4
banks = 8
access = ["row", "8x1"]
check = "none"
"""


def test_batch_html_is_one_view_per_case_with_the_json_counts(tmp_path):
    cases = tmp_path / "cases.toml"
    cases.write_text(BATCH)
    path = tmp_path / "b.html"
    run = solve("batch", str(cases), "--html", str(path), "--json")
    assert run.returncode == 1  # the failing check fails its (default) expectation
    doc = json.loads(run.stdout)
    data = data_of(path.read_text())
    assert data["title"] == "swizzle-solve batch cases.toml: 3 of 3 cases"
    assert [v["title"].split(":")[0] for v in data["views"]] == ["solved", "checked, passes", "checked, fails </script>"]
    assert [c["ok"] for c in doc["cases"]] == [True, True, False]
    assert data["views"][2]["title"].endswith("FAILED its expectation)")
    roles = [[x["role"] for x in v["layouts"]] for v in data["views"]]
    assert roles[0][:2] == ["before", "answer"] and roles[1] == ["before", "checked"]
    # the failing check draws the unswizzled tile (its layout, "none", once) and the minimal layout
    assert [x["name"] for x in data["views"][2]["layouts"]] == ["none", "Swizzle<3,0,3>"]
    for case, v in zip(doc["cases"], data["views"]):
        result = case["result"]
        i = [x["name"] for x in v["layouts"]].index(result["answer"]["name"])  # the answer or the checked layout
        got = [(a["worst"][i], a["total"][i]) for a in v["accesses"]]
        assert got == [(p["worst_wavefronts"], p["total_wavefronts"]) for p in result["answer"]["per_access"]]
        assert v["doc"]["answer"]["per_access"] == result["answer"]["per_access"]


@pytest.mark.slow
def test_batch_html_from_worker_processes_is_the_same_page(tmp_path):
    cases = tmp_path / "cases.toml"
    cases.write_text(BATCH)
    path, again = tmp_path / "b.html", tmp_path / "j.html"
    assert solve("batch", str(cases), "--html", str(path)).returncode == 1
    assert solve("batch", str(cases), "--html", str(again), "-j", "2").returncode == 1
    assert again.read_bytes() == path.read_bytes()


def test_batch_html_bad_input_writes_nothing(tmp_path):
    cases = tmp_path / "cases.toml"
    cases.write_text(BATCH)
    for argv, words in ((["--list", "--html", str(tmp_path / "x.html")], "--list and --html"),
                        (["--html", str(tmp_path / "no" / "x.html")], "does not exist"),
                        (["--html", str(tmp_path)], "is a directory")):
        run = solve("batch", str(cases), *argv)
        assert run.returncode == 2 and run.stdout == "" and words in run.stderr and len(run.stderr.splitlines()) == 1
    assert sorted(os.listdir(tmp_path)) == ["cases.toml"]


TRANSPOSE = Path(__file__).resolve().parent / "data" / "kernels" / "transpose.ptx"


def test_kernel_fix_html_draws_each_fixed_allocation(tmp_path):
    path = tmp_path / "k.html"
    argv = ["kernel", str(TRANSPOSE), "--kernel", "transpose_naive", "--block", "32,8", "--fix"]
    run = solve(*argv, "--html", str(path), "--json")
    assert run.returncode == 1
    (fix,) = json.loads(run.stdout)["kernels"][0]["fix"]["allocations"]
    data = data_of(path.read_text())
    (v,) = data["views"]
    assert v["title"].startswith("transpose_naive: ") and fix["layout"] in v["title"]
    assert [x["name"] for x in v["layouts"][:2]] == ["none", fix["layout"]]
    t = v["tile"]
    assert (t["rows"], t["cols"], t["elem_bytes"]) == (fix["tile"]["rows"], fix["tile"]["cols"], fix["tile"]["elem_bytes"])
    phys = ints(v["layouts"][1]["phys"]).reshape(t["rows"], t["cols"])
    code = compile(fix["expression"], "<expression>", "eval")
    assert phys.tolist() == [[eval(code, {"__builtins__": {}}, {"r": r, "c": c}) for c in range(t["cols"])]
                             for r in range(t["rows"])]
    # one access per instruction seen on the allocation, each at its lower bound under the fix, as the proof says
    assert [a["spec"] for a in v["accesses"]] == [a["spec"] for a in fix["proof"]["accesses"]]
    assert [a["worst"][1] for a in v["accesses"]] == [a["worst_wavefronts"] for a in fix["proof"]["accesses"]]
    assert sum(a["total"][0] - a["total"][1] for a in v["accesses"]) == fix["excess_before"] - fix["excess_after"]
    bad = solve(*argv[:-1], "--html", str(tmp_path / "n.html"))  # without --fix
    assert bad.returncode == 2 and bad.stdout == "" and "add --fix" in bad.stderr and len(bad.stderr.splitlines()) == 1
    bad = solve(*argv, "--html", str(tmp_path / "no" / "n.html"))
    assert bad.returncode == 2 and bad.stdout == "" and "does not exist" in bad.stderr
    none = tmp_path / "none.html"
    assert solve("kernel", str(TRANSPOSE), "--kernel", "transpose_padded", "--block", "32,8", "--fix", "--html",
                 str(none), "-q").returncode == 0
    data = data_of(none.read_text())
    assert data["views"] == [] and "nothing to fix" in data["note"]
    assert sorted(os.listdir(tmp_path)) == ["k.html", "none.html"]
