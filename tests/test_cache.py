"""The API's answer-first solve and its cache (issue 26): the documents are those of the tree before
them (the golden corpus, tests/golden.py), a cached answer is the answer, and nothing a caller does
to a result changes a later one."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swizzle_solver import api, memo
from swizzle_solver.budget import Budget
from swizzle_solver.model import InputError
from swizzle_solver.value import FrozenError
from tests.golden import GOLDEN, documents, fingerprint


@pytest.fixture(autouse=True)
def fresh_cache():
    api.cache_clear()
    yield
    api.cache_resize(memo.DEFAULT_SIZE)
    api.cache_clear()


GOLDEN_DOCS = json.loads(GOLDEN.read_text())
MAKERS = documents(api)
# The default tier: every example and extra problem and every sixth sweep config; the slow tier: all of them.
QUICK = [n for i, n in enumerate(MAKERS) if not n.startswith("sweep: ") or i % 6 == 0]


def test_the_corpus_is_the_golden_one():
    assert sorted(MAKERS) == sorted(GOLDEN_DOCS)


@pytest.mark.parametrize("name", QUICK)
def test_documents_are_the_golden_ones(name):
    """Solved answer first (the table and evidence on first use), then from the cache: each the
    document of the tree before (tests/golden.py)."""
    assert fingerprint(MAKERS[name]()) == GOLDEN_DOCS[name]
    assert fingerprint(MAKERS[name]()) == GOLDEN_DOCS[name]  # again: the cached answer's document


@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n in MAKERS if n not in QUICK])
def test_every_document_is_the_golden_one(name):
    assert fingerprint(MAKERS[name]()) == GOLDEN_DOCS[name]
    api.cache_resize(0)  # and with the cache off
    assert fingerprint(MAKERS[name]()) == GOLDEN_DOCS[name]


def eager(kwargs: dict) -> str:
    """The CLI's way: a budget, the table built with the answer, nothing cached."""
    options = {k: kwargs.pop(k) for k in ("keep_pitch", "for_targets") if k in kwargs}
    return json.dumps(api.solve(api.problem(**kwargs), budget=Budget(), table=True, **options).json())


def cached_and_uncached(kwargs: dict) -> None:
    reference = eager(dict(kwargs))
    first = api.solve(**kwargs)
    name = first.name  # the answer alone first: the table is built later, on json()
    again = api.solve(**kwargs)
    assert again.answered is first.answered  # answered from the cache
    assert again.name == name
    assert json.dumps(again.json()) == reference
    assert json.dumps(first.json()) == reference
    assert json.dumps(api.solve(**kwargs, cache=False).json()) == reference


ACCESSES = ["row", "col", "8x4", "4x8", "8x1", "2x16", "8x8", "8x4:2", "4x4", "8x2v8"]


@settings(max_examples=30, deadline=None)
@given(rows=st.sampled_from([8, 16, 32, 64]), cols=st.sampled_from([8, 16, 32, 64]),
       pad=st.sampled_from([0, 0, 1, 8]), dtype=st.sampled_from(["f32", "f16", "f8"]),
       access=st.lists(st.sampled_from(ACCESSES), min_size=1, max_size=3, unique=True),
       keep_pitch=st.booleans())
def test_cached_and_uncached_solves_give_identical_json(rows, cols, pad, dtype, access, keep_pitch):
    kwargs = {"rows": rows, "cols": cols, "row_length": cols + pad, "dtype": dtype, "access": access}
    if keep_pitch:
        kwargs["keep_pitch"] = True
    try:
        api.problem(**{k: v for k, v in kwargs.items() if k != "keep_pitch"})
    except InputError:
        return  # a pattern that does not fit the tile: bad input, nothing to cache
    cached_and_uncached(kwargs)


@pytest.mark.parametrize("kwargs", [
    {"rows": 64, "cols": 64, "dtype": "f16", "access": ["ldmatrix.x4", "row"]},  # a first conflict-free member
    {"rows": 32, "cols": 32, "dtype": "f32", "access": ["4x2", "8x2v4", "col"]},  # no conflict-free layout
    {"rows": 64, "cols": 32, "row_length": 40, "dtype": "f16", "access": ["ldmatrix.x4"]},  # a narrower pitch
    {"rows": 64, "cols": 64, "dtype": "f16", "access": ["ldmatrix.x4"], "for_targets": ["tma"]},
])
def test_cached_and_uncached_solves_give_identical_json_instances(kwargs):
    cached_and_uncached(kwargs)


def test_equivalent_problems_share_an_entry():
    """Keyed by the parsed problem: f16 and 2-byte elements, a default pitch and the same one given."""
    a = api.solve(rows=32, cols=32, dtype="f16", access=["8x8"])
    b = api.solve(rows=32, cols=32, elem_bytes=2, row_length=32, access="8x8")
    c = api.solve(api.problem(32, 32, ["8x8"], dtype="bf16"))
    assert a.answered is b.answered is c.answered
    assert api.cache_info()["hits"] == 2 and api.cache_info()["size"] == 1
    other = api.solve(rows=32, cols=32, dtype="f16", access=["8x8"], keep_pitch=True)  # options are in the key
    assert other.answered is not a.answered


def test_a_phases_file_is_keyed_by_what_it_says(tmp_path):
    path = tmp_path / "p.toml"
    path.write_text('[[pattern]]\nname = "d"\nphases = [[[0, 0, 4], [1, 1, 4], [2, 2, 4], [3, 3, 4]]]\n')
    diagonal = api.solve(rows=8, cols=8, phases=[str(path)])
    path.write_text('[[pattern]]\nname = "d"\nphases = [[[0, 0, 4], [1, 0, 4], [2, 0, 4], [3, 0, 4]]]\n')
    column = api.solve(rows=8, cols=8, phases=[str(path)])
    assert column.answered is not diagonal.answered
    assert column.json()["problem"] == api.solve(rows=8, cols=8, phases=[str(path)], cache=False).json()["problem"]


def test_the_cache_is_bounded_and_can_be_cleared_or_turned_off():
    api.cache_resize(2)
    for cols in (8, 16, 32):
        api.solve(rows=8, cols=cols, access=["row"])
    assert api.cache_info() == {"hits": 0, "misses": 3, "size": 2, "maxsize": 2}
    first = api.solve(rows=8, cols=8, access=["row"])  # the least recently used went first
    assert api.cache_info()["misses"] == 4
    assert api.solve(rows=8, cols=8, access=["row"]).answered is first.answered
    api.cache_clear()
    assert api.cache_info() == {"hits": 0, "misses": 0, "size": 0, "maxsize": 2}
    assert api.solve(rows=8, cols=8, access=["row"], cache=False).answered is not first.answered
    api.cache_resize(0)
    a, b = api.solve(rows=8, cols=8, access=["row"]), api.solve(rows=8, cols=8, access=["row"])
    assert a.answered is not b.answered and api.cache_info()["size"] == 0
    with pytest.raises(ValueError):
        api.cache_resize(-1)


def test_a_solve_with_a_budget_is_not_cached():
    api.solve(rows=8, cols=8, access=["row"], budget=Budget())
    assert api.cache_info()["size"] == 0


def test_a_caller_changing_a_result_changes_no_later_one():
    kwargs = {"rows": 32, "cols": 32, "dtype": "f32", "access": ["4x2", "8x2v4", "col"]}  # families with z3 records
    first = api.solve(**kwargs)
    reference = json.dumps(first.json())
    doc = first.json()
    doc["answer"]["per_access"][0]["worst_wavefronts"] = 99
    for family in doc["proof"]["families"] + doc["search"]["families"]:
        if isinstance(family.get("smt"), dict):
            family["smt"]["result"] = "poisoned"
            family["smt"].setdefault("covered", []).append("poisoned")
    solution = first.solution
    solution.alternatives.clear()
    solution.families[0].covered = "poisoned"
    with pytest.raises(ValueError):  # the arrays shared with the cache are read-only
        first.problem.patterns[0].lane_row[0, 0] = 1
    with pytest.raises(ValueError):
        solution.answer.results[0].costs[0] = 0
    with pytest.raises(FrozenError):
        first.answered = solution  # type: ignore[misc]
    with pytest.raises(FrozenError):
        solution.answer.excess = 0  # type: ignore[misc]
    again = api.solve(**kwargs)
    assert again.answered is first.answered
    assert json.dumps(again.json()) == reference
    assert json.dumps(first.json()) == reference
    assert again.solution.alternatives and again.solution.families[0].covered != "poisoned"


def test_the_table_is_built_once_per_problem(monkeypatch):
    """A solve whose first conflict-free member answers builds its table when first asked for, and
    the cache keeps it for the next caller."""
    from swizzle_solver import solving

    calls = []
    search = solving.solve
    # the table option: in the Options record passed (solving.Options), or as a keyword
    monkeypatch.setattr(solving, "solve", lambda *a, **k: calls.append(a[1].table if len(a) > 1 else k.get("table"))
                        or search(*a, **k))
    kwargs = {"rows": 64, "cols": 64, "dtype": "f16", "access": ["ldmatrix.x4", "row"]}
    assert api.solve(**kwargs).name == "Swizzle<3,3,3>"
    assert calls == [None]  # the answer only
    api.solve(**kwargs).json()
    api.solve(**kwargs).json()
    assert calls == [None, True]
    assert api.solve(**kwargs).json()["answer"]["swizzles"] == [{"B": 3, "M": 3, "S": 3, "unit": "element"}]


def test_an_access_compiled_before_is_shared_and_read_only():
    """memo.PATTERNS: the same spec on the same tile and hardware is one pattern (what the search
    derives from it is then built once); its arrays cannot be changed; another tile, dtype or
    target (or the other reading of a disputed AMD cell) is another pattern."""
    a = api.problem(64, 64, ["8x8", "row"], dtype="f16")
    b = api.problem(64, 64, ["row", "col"], dtype="f16")
    assert a.patterns[1] is b.patterns[0]
    with pytest.raises(ValueError):
        a.patterns[1].lane_col[0, 0] = 3
    assert api.problem(64, 32, ["row"], dtype="f16").patterns[0] is not a.patterns[1]
    assert api.problem(64, 64, ["row"], dtype="f32").patterns[0] is not a.patterns[1]
    assert api.problem(64, 64, ["row"], dtype="f16", arch="gfx942").patterns[0] is not a.patterns[1]
    gfx950 = api.problem(64, 64, ["ds_read_b32:64x1"], dtype="f32", arch="gfx950")
    assert [p.banks for p in gfx950.patterns] == [32, 0]  # each reading its own pattern
