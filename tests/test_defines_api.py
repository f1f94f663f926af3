"""Template constants everywhere a kernel's text goes in (issue 34 item 3): ``-D NAME=VALUE`` on the
command line, ``define = {...}`` in a batch case and ``define={...}`` in the Python API's ``check``
and ``problem``, each substituted in the layout's text and in ``index:``/``offset:`` accesses, with
the same counts as the text written with the values by hand."""
from __future__ import annotations

import json

import pytest

from swizzle_solver import api
from swizzle_solver.model import InputError
from swizzle_solver.notation._defines import substitute
from tests import clirun

# cuda-samples' padded transpose, its constants as template parameters
ACCESS = "index: row = threadIdx.x, col = threadIdx.y + j; j in 0..TILE step ROWS; block 32x8"
LAYOUT = "expr: r * (TILE + PAD) + c"
BY_HAND = ("index: row = threadIdx.x, col = threadIdx.y + j; j in 0..32 step 8; block 32x8", "expr: r * (32 + 1) + c")
DEFINE = {"TILE": 32, "ROWS": 8, "PAD": 1}


def per_access(checked) -> list[tuple[int, int]]:
    return [(r.worst, r.total) for r in checked.measured.results]


def test_api_define_is_the_text_written_with_the_values():
    access = ACCESS
    got = api.check(LAYOUT, rows=32, cols=32, access=[access], define=DEFINE)
    want = api.check(BY_HAND[1], rows=32, cols=32, access=[BY_HAND[0]])
    assert got.layout.name == BY_HAND[1] and got.passed and per_access(got) == per_access(want)
    assert [p.spec for p in got.problem.patterns] == [BY_HAND[0]]
    unpadded = api.check(LAYOUT, rows=32, cols=32, access=[access], define={**DEFINE, "PAD": 0})
    assert not unpadded.passed and per_access(unpadded)[0][0] == 32  # the naive transpose: 32-way


def test_api_define_of_a_cute_layout_is_the_clis():
    text = ("cute: composition(Swizzle<kSwizzle,3,3>{}, Layout<Shape<_16,Int<kBlockKSmem>>,"
            "Stride<Int<kBlockKSmem>,_1>>{})")
    checked = api.check(text, rows=16, cols=64, dtype="f16", access=["ldmatrix.x4"],
                        define={"kSwizzle": 2, "kBlockKSmem": 64})
    r = clirun.solve("--rows", "16", "--cols", "64", "--dtype", "f16", "--access", "ldmatrix.x4", "-D", "kSwizzle=2",
                     "-D", "kBlockKSmem=64", "--check", text, "--json")
    doc = json.loads(r.stdout)
    assert doc["check"]["layout"] == checked.layout.name and doc["check"]["passed"] == checked.passed is False
    assert [a["worst_wavefronts"] for a in doc["answer"]["per_access"]] == [w for w, _ in per_access(checked)]


def test_cli_define_reaches_index_accesses():
    access = ACCESS
    r = clirun.solve("--rows", "32", "--cols", "32", "-D", "TILE=32", "-D", "ROWS=8", "-D", "PAD=1", "--access", access,
                     "--check", LAYOUT, "-q")
    assert (r.returncode, r.stdout) == (0, "expr: r * (32 + 1) + c passed\n")


def test_a_batch_case_states_an_index_access_with_define(tmp_path):
    access = ACCESS
    (tmp_path / "b.toml").write_text(
        f'[[case]]\nname = "transpose"\nrows = 32\ncols = 32\naccess = [{json.dumps(access)}]\n'
        f'check = {json.dumps(LAYOUT)}\ndefine = {{TILE = 32, ROWS = 8, PAD = 1}}\nexpect_status = "conflict-free"\n'
        f'[[case]]\nname = "naive"\nrows = 32\ncols = 32\naccess = [{json.dumps(access)}]\n'
        f'check = {json.dumps(LAYOUT)}\ndefine = {{TILE = 32, ROWS = 8, PAD = 0}}\nexpect_status = "conflicts"\n')
    r = clirun.solve("batch", str(tmp_path / "b.toml"), "--json")
    assert r.returncode == 0, r.stdout[-400:] + r.stderr[-400:]
    cases = json.loads(r.stdout)["cases"]
    want = api.check(BY_HAND[1], rows=32, cols=32, access=[BY_HAND[0]])
    assert [c["ok"] for c in cases] == [True, True]
    assert [a["worst_wavefronts"] for a in cases[0]["result"]["answer"]["per_access"]] == [w for w, _ in per_access(want)]
    assert cases[0]["result"]["problem"]["accesses"][0]["spec"] == BY_HAND[0]


def test_substitution_spares_members_but_not_ranges():
    assert substitute("j in 0..N step S; threadIdx.x + N; cfg.N; Cfg::N", {"N": 4, "S": 2, "x": 9}) == \
        "j in 0..4 step 2; threadIdx.x + 4; cfg.N; Cfg::N"


@pytest.mark.parametrize("define", [{"r": 3}, {"k": "3"}, {"k": True}, [("k", 3)]])
def test_bad_api_defines_are_input_errors(define):
    with pytest.raises(InputError):
        api.check("expr: r * 32 + c", rows=32, cols=32, access=["row"], define=define)


def test_an_undefined_name_in_an_access_names_the_define():
    r = clirun.solve("--rows", "32", "--cols", "32", "--access", "index: row = lane, col = 0; block TILE", "-q")
    clirun.assert_input_error(r)
    r = clirun.solve("--rows", "32", "--cols", "32", "--access", "index: row = lane, col = K", "-q")
    clirun.assert_input_error(r, "-D K=VALUE")


@pytest.mark.parametrize("layout, name", [
    ("cute: composition(Swizzle<kSwizzle,3,3>{}, Layout<Shape<_16,_64>,Stride<_64,_1>>{})", "kSwizzle"),
    ("cute: Layout<Shape<_16,Int<kBlockKSmem>>,Stride<Int<kBlockKSmem>,_1>>{}", "kBlockKSmem"),
])
def test_an_undefined_name_in_a_cute_layout_names_the_define(layout, name):
    """The kernel's CuTe text with its template constants, -D forgotten: the line says which -D to give,
    as expr: does (it said only "must be an integer")."""
    r = clirun.solve("--rows", "16", "--cols", "64", "--dtype", "f16", "--access", "ldmatrix.x4", "--check", layout)
    clirun.assert_input_error(r, f"give -D {name}=VALUE")
