"""Issue 37, item 2: [case.matrix] in batch files, and the traps of issue 34 item 4 (a failed
batch case says why; --check names the search's better layout when none is conflict-free)."""
from __future__ import annotations

import io
import json
import tracemalloc
from itertools import product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swizzle_solver import configs
from swizzle_solver.cases import case_makers
from swizzle_solver.model import InputError
from tests.clirun import solve as cli

CASE = '''[[case]]
name = "tile"
rows = 16
cols = "{cols}"
dtype = "{dtype}"
access = ["8x8"]
check = "expr: r * {cols} + c"
[case.matrix]
cols = [32, 64]
dtype = ["f16", "f32"]
'''


def _file(tmp_path, text, name="m.toml"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_the_configs_are_the_product_in_order_each_named_by_its_values(tmp_path):
    makers = case_makers(_file(tmp_path, CASE))
    cases = [make() for make in makers]
    assert [c.name for c in cases] == [f"tile [cols={c}, dtype={d}]" for c, d in product([32, 64], ["f16", "f32"])]
    assert [(c.problem.tile.cols, c.problem.tile.elem_bytes) for c in cases] == [(32, 2), (32, 4), (64, 2), (64, 4)]
    assert cases[2].check.name == "expr: r * 64 + c"  # substituted inside longer text
    assert cases[1].config == (("cols", 32), ("dtype", "f32")) and cases[1].matrix == "tile"


def test_a_string_that_is_one_variable_takes_its_type():
    config = {"n": 64, "flag": True, "specs": ["8x8", "row"]}
    assert configs.substituted("{n}", config, "w") == 64
    assert configs.substituted("{flag}", config, "w") is True
    assert configs.substituted(["{specs}"], config, "w") == [["8x8", "row"]]
    assert configs.substituted("{specs}", config, "w") == ["8x8", "row"]
    assert configs.substituted("r * {n} + c", config, "w") == "r * 64 + c"
    # braces that are no variable reference stay as they are (CuTe's {} and Triton's {vec = 8, ...})
    text = "cute: composition(Swizzle<3,3,3>{}, Layout<Shape<_8,_64>,Stride<_64,_1>>{})"
    assert configs.substituted(text, config, "w") == text
    assert configs.substituted("triton: #ttg.swizzled_shared<{vec = 8, perPhase = 1}>", config, "w").endswith("1}>")
    with pytest.raises(InputError, match=r"\{m\} in 'r \* \{m\}' is not a variable"):
        configs.substituted("r * {m}", config, "w")


def test_include_and_exclude(tmp_path):
    text = CASE.replace('dtype = ["f16", "f32"]\n', 'dtype = ["f16", "f32"]\nexclude = [{cols = 32, dtype = "f32"}]\n'
                        'include = [{cols = 128, dtype = "f16"}, {cols = 64, dtype = "f16"}]\n')
    names = [make().name for make in case_makers(_file(tmp_path, text))]
    assert names == ["tile [cols=32, dtype=f16]", "tile [cols=64, dtype=f16]", "tile [cols=64, dtype=f32]",
                     "tile [cols=128, dtype=f16]"]  # (64, f16) was in the product already: once
    only = '[[case]]\nname = "t {cols}"\nrows = 16\ncols = "{cols}"\naccess = ["8x4"]\n' \
           '[case.matrix]\ninclude = [{cols = 16}, {cols = 48}]\n'
    assert [make().name for make in case_makers(_file(tmp_path, only, "o.toml"))] == ["t 16", "t 48"]


@pytest.mark.parametrize("matrix, words", [
    ("cols = 32", "must be a non-empty list"),
    ("cols = []", "must be a non-empty list"),
    ('"bad name" = [1]', "is not a name"),
    ("cols = [32]\nexclude = [{rows = 1}]", "'rows', which is not one of its variables"),
    ("cols = [32]\ninclude = [{}]", "include must be a list of tables"),
    ("cols = [32]\nexclude = [{cols = 32}]", "matrix has no config left"),
    ("cols = [[1, [2]]]", "must be a non-empty list of values"),
    ("cols = [32]\ninclude = 3", "include must be a list of tables"),
    ("cols = [32]\ndtype2 = [1]\ninclude = [{cols = 16}]", "gives no value for 'dtype2'"),
    ("a = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\nb = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\nc = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n"
     "d = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\ne = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\nf = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]",
     "makes 1,000,000 configs, more than the 100,000 a batch file may have"),
])
def test_bad_matrices_are_one_line(tmp_path, matrix, words):
    text = '[[case]]\nname = "t"\nrows = 16\ncols = 32\naccess = ["8x4"]\n[case.matrix]\n' + matrix + "\n"
    run = cli("batch", _file(tmp_path, text))
    assert run.returncode == 2 and run.stdout == "" and words in run.stderr and run.stderr.count("\n") == 1


def test_a_million_configs_are_refused_before_any_is_built(tmp_path):
    """issue 39 item 7: the count is a product of the lists' lengths, refused before the product is
    walked (in well under a second, with little memory)."""
    lists = "\n".join(f"v{i} = [{', '.join(str(k) for k in range(10))}]" for i in range(6))
    text = '[[case]]\nname = "t"\nrows = 16\ncols = 32\naccess = ["8x4"]\n[case.matrix]\n' + lists + "\n"
    tracemalloc.start()
    with pytest.raises(InputError, match="1,000,000 configs"):
        case_makers(_file(tmp_path, text))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 5_000_000


def test_an_unknown_variable_in_a_value_is_one_line(tmp_path):
    run = cli("batch", _file(tmp_path, CASE.replace("r * {cols} + c", "r * {col} + c")))
    assert run.returncode == 2 and "{col} in 'expr: r * {col} + c' is not a variable" in run.stderr


def test_the_makers_hold_no_case_and_index_any_config(tmp_path):
    lists = 'a = [' + ", ".join(str(k) for k in range(100)) + ']\nb = [' + ", ".join(str(k) for k in range(100)) + ']'
    text = '[[case]]\nname = "t"\nrows = 16\ncols = 32\naccess = ["8x4"]\n[case.matrix]\n' + lists + "\n"
    from swizzle_solver.cases import _makers

    makers = _makers(_file(tmp_path, text), None, False)
    assert len(makers) == 10_000
    assert makers[4321]().name == "t [a=43, b=21]" and makers[-1]().name == "t [a=99, b=99]"
    assert makers.entries[0][2].kept.itemsize == 4  # positions, 4 bytes a config


def test_the_table_groups_configs_by_outcome(tmp_path):
    """rows changes no count here (a worst per placement): each outcome holds both heights."""
    text = CASE.replace('rows = 16\n', 'rows = "{rows}"\n').replace("[case.matrix]\n", "[case.matrix]\nrows = [16, 32]\n")
    run = cli("batch", _file(tmp_path, text), env={"COLUMNS": "200"})
    assert run.returncode == 1
    lines = run.stdout.splitlines()
    assert "tile: 8 configs, 0 passed, 8 failed (expected check: conflict-free)" in lines
    groups = [i for i, line in enumerate(lines) if line.startswith("  FAIL")]
    assert [lines[i] for i in groups[:1]] == ["  FAIL  conflicts: 8x8 +3; minimal: Swizzle<2,3,3> (2 configs)"]
    assert lines[groups[0] + 1].split() == ["rows=16", "cols=32", "dtype=f16;", "rows=32", "cols=32", "dtype=f16"]
    assert len(groups) == 4 and all("(2 configs)" in lines[i] for i in groups)
    # each group's numbers are the --check of one of its configs
    one = json.loads(cli("--rows", "32", "--cols", "32", "--dtype", "f16", "--access", "8x8", "--check",
                         "expr: r * 32 + c", "--json").stdout)
    assert (one["answer"]["excess_wavefronts"], one["check"]["minimal"]) == (3, "Swizzle<2,3,3>")


def test_jobs_and_json_per_config(tmp_path):
    path = _file(tmp_path, CASE)
    one, two = cli("batch", path, "--json"), cli("batch", path, "--json", "--jobs", "2")
    assert one.stdout == two.stdout and one.returncode == two.returncode == 1
    doc = json.loads(one.stdout)
    assert [c["config"] for c in doc["cases"]] == [{"cols": c, "dtype": d} for c, d in product([32, 64], ["f16", "f32"])]
    assert cli("batch", path).stdout == cli("batch", path, "--jobs", "2").stdout


def test_case_and_list_reach_configs(tmp_path):
    path = _file(tmp_path, CASE)
    assert cli("batch", path, "--list").stdout.splitlines()[1] == "tile [cols=32, dtype=f32]"
    run = cli("batch", path, "--case", "cols=64, dtype=f32", "--json")
    assert [c["name"] for c in json.loads(run.stdout)["cases"]] == ["tile [cols=64, dtype=f32]"]


def test_accesses_per_target_in_a_matrix_over_arch(tmp_path):
    text = ('[[case]]\nname = "k"\nrows = 64\ncols = 64\ndtype = "f16"\narch = "{arch}"\n'
            'access = ["nvidia:ldmatrix.x4", "amd:ds_read_b128:64x1"]\ncheck = "Swizzle<3,3,3>"\n'
            '[case.matrix]\narch = ["sm90", "gfx942"]\n')
    doc = json.loads(cli("batch", _file(tmp_path, text), "--json").stdout)
    specs = [[a["spec"] for a in c["result"]["problem"]["accesses"]] for c in doc["cases"]]
    assert specs == [["ldmatrix.x4"], ["ds_read_b128:64x1"]]
    bad = text.replace('"{arch}"', '"sm90,gfx942"').replace("[case.matrix]\narch = [\"sm90\", \"gfx942\"]\n", "")
    run = cli("batch", _file(tmp_path, bad, "b.toml"))
    assert run.returncode == 2 and "a batch case has one target" in run.stderr


def test_the_llama_sweep_example_shows_which_configs_conflict():
    from tests.clirun import ROOT

    run = cli("batch", str(ROOT / "examples" / "llama-fattn-sweep.toml"), "--json")
    doc = json.loads(run.stdout)
    failed = {(c["config"]["head_dim"], c["config"]["arch"]) for c in doc["cases"] if not c["ok"]}
    assert len(doc["cases"]) == 6 * 2 * 3 - 2 * 2  # head_dim 80 and 112 left out on gfx942
    # every failed config is a conflict the simulator counts, and the check names what fixes it
    for c in doc["cases"]:
        if not c["ok"]:
            assert c["result"]["check"]["minimal"] and c["result"]["answer"]["excess_wavefronts"] > 0
    assert failed == {(96, "gfx942")}


# --- the traps of issue 34 item 4 -------------------------------------------------------------------
def test_the_plain_batch_table_says_why_a_check_failed(tmp_path):
    text = '[[case]]\nname = "pinned"\nrows = 16\ncols = 16\ndtype = "f16"\naccess = ["8x8"]\ncheck = "none"\n'
    run = cli("batch", _file(tmp_path, text), env={"COLUMNS": "120"})
    assert run.returncode == 1
    assert "pinned: none failed; minimal: Swizzle<1,3,3>" in " ".join(run.stdout.split())


def test_check_names_the_better_layout_when_none_is_conflict_free():
    """A tile no layout serves conflict-free (the floors leave excess): "minimal: none
    conflict-free" used to hide the search's answer, which leaves less than the layout checked."""
    argv = ["--rows", "32", "--cols", "32", "--access", "col", "--access", "8x4", "--access", "4x8", "--access", "row"]
    # find the search's answer and excess, then check the plain layout against it
    solved = json.loads(cli(*argv, "--json").stdout)
    best, least = solved["answer"]["name"], solved["answer"]["excess_wavefronts"]
    checked = json.loads(cli(*argv, "--check", "none", "--json").stdout)
    assert least > 0 and checked["answer"]["excess_wavefronts"] > least, "the instance must have a better layout"
    line = cli(*argv, "--check", "none", "-q")
    assert line.stdout == f"none failed; minimal: none conflict-free; best: {best}\n"
    assert checked["check"]["minimal"] is None and checked["check"]["better"] == best
    assert f"the search's best, {best}" in cli(*argv, "--check", "none", env={"COLUMNS": "200"}).stdout


def test_sweep_records_and_csv():
    from swizzle_solver import sweep, write_csv

    records = sweep({"cols": [32, 64], "dtype": ["f16"]}, check="expr: r * {cols} + c", rows=16, cols="{cols}",
                    dtype="{dtype}", access=["8x8"])
    assert [r["name"] for r in records] == ["sweep [cols=32, dtype=f16]", "sweep [cols=64, dtype=f16]"]
    batch = json.loads(cli("--rows", "16", "--cols", "64", "--dtype", "f16", "--access", "8x8", "--check",
                           "expr: r * 64 + c", "--json").stdout)
    assert records[1]["excess"] == batch["answer"]["excess_wavefronts"] and records[1]["fix"] == batch["check"]["minimal"]
    assert records[1]["conflicting"] == f"8x8 +{records[1]['excess']}"
    out = io.StringIO()
    write_csv(records, out)
    lines = out.getvalue().splitlines()
    assert lines[0] == "cols,dtype,name,ok,status,answer,excess,conflicting,fix,expected"
    assert lines[2].startswith("64,f16,") and len(lines) == 3
    solved = sweep({"n": [16]}, rows=16, cols="{n}", dtype="f16", access=["8x8"])
    assert solved[0]["answer"] == solved[0]["fix"] and solved[0]["ok"]


def _toml(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {_toml(v)}" for k, v in value.items()) + "}"
    return str(value)


_scalar = st.one_of(st.integers(-3, 300), st.sampled_from(["f16", "f32", "8x4", "row", "{n}", "x{n}y", "{zz}", "",
                                                           "sm90", "gfx942"]), st.booleans())
_values = st.lists(st.one_of(_scalar, st.lists(_scalar, max_size=3)), max_size=4)
_keys = st.sampled_from(["n", "dtype", "arch", "include", "exclude", "bad name", "n2"])


@settings(max_examples=60, deadline=None)
@given(matrix=st.dictionaries(_keys, st.one_of(_values, _scalar, st.lists(st.dictionaries(_keys, _scalar, max_size=2),
                                                                            max_size=2)), max_size=4),
       cols=st.sampled_from(['"{n}"', "32", '"{dtype}"']), dtype=st.sampled_from(['"{dtype}"', '"f16"', "7"]))
def test_any_matrix_table_is_a_result_or_one_line(tmp_path_factory, matrix, cols, dtype):
    """Hostile [case.matrix] tables (issue 39 item 7): exit 0/1 with a document, or exit 2 with one
    line and nothing on stdout; never a traceback."""
    path = tmp_path_factory.mktemp("m") / "m.toml"
    body = "\n".join(f"{json.dumps(k)} = {_toml(v)}" for k, v in matrix.items())
    path.write_text(f'[[case]]\nname = "t"\nrows = 16\ncols = {cols}\ndtype = {dtype}\naccess = ["8x4"]\n'
                    f"[case.matrix]\n{body}\n")
    run = cli("batch", str(path), "--json")
    if run.returncode == 2:
        assert run.stdout == "" and run.stderr.count("\n") == 1 and "Traceback" not in run.stderr
    else:
        assert run.returncode in (0, 1) and json.loads(run.stdout)["cases"]


def test_ci_md_shows_what_the_llama_sweep_prints():
    """docs/ci.md's grouped table (lines elided with ...) is the real run's, line for line, in a pipe
    of 80 columns."""
    import re

    from tests.clirun import ROOT

    text = (ROOT / "docs" / "ci.md").read_text()
    shown = re.search(r"that have it under it:\n\n```\n(.*?)```", text, re.S).group(1).splitlines()
    real = cli("batch", str(ROOT / "examples" / "llama-fattn-sweep.toml"), env={"COLUMNS": "80"}).stdout.splitlines()
    real = [line for line in real if line.strip()]
    kept = [line for line in shown if line.strip() != "..."]
    assert all(line in real for line in kept) and kept[0] == real[0] and kept[-1] == real[-1]
    assert [real.index(line) for line in kept] == sorted(real.index(line) for line in kept)
