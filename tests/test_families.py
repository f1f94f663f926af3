"""The later families (two-level, linear, row interleave, padding) against the simulator.

The simulator is the ground truth: each family's ``phys`` must be what its ``expression`` says,
``invalid`` must be exactly "not a bijection onto the storage", and the lane-difference test of
separation.py (what the search and z3 decide with) must agree with the simulator's wavefronts.
"""
import numpy as np
from hypothesis import HealthCheck, assume, example, given, reject, settings
from hypothesis import strategies as st

from swizzle_solver import simulate
from swizzle_solver.access import make_problem, make_tile
from swizzle_solver.candidate import measure_as_given
from swizzle_solver.families import (
    cute,
    general_linear,
    identity,
    linear,
    padding,
    panels,
    row_interleave,
    two_level,
)
from swizzle_solver.layout import layout_table
from swizzle_solver.model import InputError
from swizzle_solver.separation import separations

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def table(tile, layout):
    r, c = np.meshgrid(np.arange(tile.rows), np.arange(tile.cols), indexing="ij")
    return np.asarray(layout.phys(tile, r, c), dtype=np.int64)


def expression_table(tile, layout):
    """Evaluate the C expression in Python, element by element (only + - * << >> & ^ | and literals)."""
    text = layout.expression(tile)
    assert set(text) <= set("rc0123456789 ()+-*<>&^|"), text
    code = compile(text, "<expression>", "eval")
    return np.array([[eval(code, {}, {"r": r, "c": c}) for c in range(tile.cols)] for r in range(tile.rows)])


def check_layout(tile, layout):
    """expression == phys; invalid() is None exactly when phys permutes the whole storage
    (padding columns included), and then the tile's elements land on distinct storage elements."""
    phys = table(tile, layout)
    assert np.array_equal(expression_table(tile, layout), phys), layout.name
    form = layout.padded_form(tile)
    width = form[0] if form else tile.row_length
    r, c = np.meshgrid(np.arange(tile.rows), np.arange(width), indexing="ij")
    whole = np.sort(np.asarray(layout.phys(tile, r, c)).ravel())
    bijective = np.array_equal(whole, np.arange(tile.rows * width))
    assert (layout.invalid(tile) is None) == bijective, (layout.name, layout.invalid(tile))
    if bijective:
        assert simulate.is_injective(tile, phys, storage_of(tile, layout))


def storage_of(tile, layout):
    return layout.storage(tile)


tiles = st.builds(lambda rows, cols, pad, e: make_tile(rows, cols, cols + pad, e),
                  st.integers(1, 24), st.integers(1, 40), st.integers(0, 9), st.sampled_from([1, 2, 4, 8]))


@SETTINGS
@given(tiles, st.data())
def test_linear_phys_expression_and_validity(tile, data):
    top = max(1, (tile.size - 1).bit_length())
    terms = linear.all_terms(list(range(top - 1)), top)
    chosen = data.draw(st.lists(st.sampled_from(terms), max_size=5, unique=True)) if terms else []
    check_layout(tile, linear.XorLinear(tuple(sorted(chosen))))


@SETTINGS
@given(tiles, st.integers(0, 3), st.integers(0, 4), st.integers(0, 6), st.booleans())
def test_cute_phys_expression_and_validity_either_sign_of_s(tile, b, m, s, negative):
    """Any CuTe swizzle, S < 0 included (--check takes them): its C expression is its phys, and
    invalid() says exactly when it is not a bijection of the storage."""
    assume(s >= b)
    check_layout(tile, cute.Swizzle(b, m, -s if negative else s))


@SETTINGS
@given(tiles, st.data())
def test_two_level_phys_expression_and_validity(tile, data):
    singles = cute.candidates(tile, 1)
    assume(len(singles) >= 2)
    a, b = data.draw(st.lists(st.sampled_from(singles), min_size=2, max_size=2, unique=True))
    layout = two_level.TwoLevel(a, b)
    check_layout(tile, layout)
    assert np.array_equal(table(tile, layout), b.apply(a.apply(table(tile, identity.Identity()))))


@SETTINGS
@given(st.integers(2, 40), st.integers(1, 5), st.integers(1, 12), st.data())
def test_row_interleave_phys_expression_and_validity(T, bands, cols, data):
    tile = make_tile(T * bands, cols, None, 4)
    k = data.draw(st.integers(2, T)) if T > 2 else 2
    layout = row_interleave.RowInterleave(T, k)
    check_layout(tile, layout)


@SETTINGS
@given(tiles, st.integers(-9, 16), st.data())
def test_padding_phys_expression_and_storage(tile, extra, data):
    """Any other family's member inside (issue 21), on pitches above and below the given one."""
    pitch = max(tile.cols, tile.row_length + extra)
    inner_tile = make_tile(tile.rows, tile.cols, pitch, tile.elem_bytes)
    inners = ([identity.Identity()] + cute.candidates(inner_tile, 1)[:20] + two_level.candidates(inner_tile, 1)[:20]
              + row_interleave.candidates(inner_tile, 1)[:10]
              + ([p for p in panels.candidates(inner_tile, 1) if p.invalid(inner_tile) is None]
                 if pitch == tile.cols else [])  # panels store dense rows only
              + [linear.XorLinear(((0, 3), (1, 4))), linear.XorLinear(((0, 5), (2, 3)))])
    layout = padding.Padded(pitch, data.draw(st.sampled_from(inners)))
    check_layout(tile, layout)
    assert layout.extra_bytes(tile) == tile.rows * (pitch - tile.cols) * tile.elem_bytes
    assert layout.storage(tile) == tile.rows * pitch


def test_row_interleave_validity_edge_cases():
    # k divides T: the transpose of a k x (T/k) grid of rows, a permutation; up to the search's
    # bound of 64 rows no other k gives one (the README says so)
    for T in range(2, row_interleave.MAX_BAND + 1):
        for k in range(2, T):
            valid = row_interleave.RowInterleave(T, k).invalid(make_tile(T, 4, None, 4)) is None
            image = sorted((r * k) % T + r // (T // k) for r in range(T))
            assert valid == (image == list(range(T))) == (T % k == 0), (T, k)
    assert row_interleave.RowInterleave(6, 4).invalid(make_tile(6, 4, None, 4))  # row 4 -> 8
    assert row_interleave.RowInterleave(8, 3).invalid(make_tile(8, 4, None, 4))
    assert row_interleave.RowInterleave(4, 2).invalid(make_tile(6, 4, None, 4))  # 6 rows: not whole bands


def test_row_interleave_divisibility_is_not_enough():
    """The published rule: k must divide T. T = 4, k = 2 is a permutation, yet 4x2 blocks on the
    8x9 tile still conflict (T is not a multiple of k x 4 rows); T = 8 is conflict-free."""
    problem = make_problem(8, 9, ["4x2"], banks=8)
    assert row_interleave.RowInterleave(4, 2).invalid(problem.tile) is None
    assert measure_as_given(problem, row_interleave.RowInterleave(4, 2)).excess > 0
    assert measure_as_given(problem, row_interleave.RowInterleave(8, 2)).excess == 0


# --- the lane-difference test (separation.py) against the simulator ----------------------------

small_problems = st.builds(
    lambda rows, cols, pad, e, banks, accesses: (rows, cols, cols + pad, e, banks, accesses),
    st.sampled_from([4, 8, 16]), st.sampled_from([4, 8, 9, 12, 16]), st.sampled_from([0, 1, 4]),
    st.sampled_from([2, 4]), st.sampled_from([4, 8, 32]),
    st.lists(st.sampled_from(["row", "col", "4x1", "2x2", "4x2", "2x4", "4x2:2"]), min_size=1, max_size=2,
             unique=True))


def _problem(args):
    """The drawn problem; a draw that is bad input (InputError: e.g. a footprint wider than the
    tile) is rejected, not counted as a pass."""
    rows, cols, pitch, e, banks, accesses = args
    try:
        return make_problem(rows, cols, accesses, pitch, e, banks=banks)
    except InputError:
        reject()


@SETTINGS
@given(small_problems, st.data())
def test_separation_agrees_with_the_simulator(args, data):
    problem = _problem(args)
    tile = problem.tile
    top = max(1, (tile.size - 1).bit_length())
    terms = linear.all_terms(list(range(top - 1)), top)
    chosen = data.draw(st.lists(st.sampled_from(terms), max_size=4, unique=True)) if terms else []
    layout = linear.XorLinear(tuple(sorted(chosen)))
    assume(layout.invalid(tile) is None)
    results = measure_as_given(problem, layout).results
    for sep, result in zip(separations(tile, problem.hardware, problem.patterns), results):
        if sep is not None and simulate.admissible(tile, result.pattern, layout_table(problem.tile, layout)):
            assert sep.holds(layout.apply) == (result.worst == 1), (layout.name, result.pattern.spec)


# --- minimality across families (DESIGN.md section 2) -----------------------------------------

@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_problems)
@example((4, 4, 4, 2, 4, ["col", "2x4"]))  # at the floor: the later families are not searched
def test_answer_is_first_by_excess_then_storage_then_family(args):
    from swizzle_solver.families import base
    from swizzle_solver.search import search_family
    from swizzle_solver.solving import solve

    problem = _problem(args)
    solution = solve(problem)
    first_cf = any(kept and kept[0].excess == 0 for kept, _ in (search_family(problem, r) for r in base()))
    assert solution.extended == (not first_cf and not solution.at_floor)
    if solution.at_floor:  # searched no further: the best meets every floor, which no layout goes below
        from swizzle_solver.floors import floors

        assert solution.answer.excess == sum(f.wavefronts - p.lower_bound
                                             for p, f in zip(problem.patterns, floors(problem)) if f) > 0
    everyone = [solution.answer] + solution.alternatives
    assert all(solution.answer.rank_key <= r.rank_key for r in everyone)
    if solution.answer.layout.family == "padding":  # only when strictly better than any swizzle: fewer
        # wavefronts, or as few in less memory (the given padding dropped)
        answer = solution.answer
        assert all((r.excess, r.storage_bytes) > (answer.excess, answer.storage_bytes)
                   for r in everyone if r.layout.family != "padding")
    for r in everyone:  # the storage ranked is the layout's own
        assert r.storage_bytes == r.layout.storage(problem.tile) * problem.tile.elem_bytes
    for r in everyone:  # every count is the simulator's
        assert r.excess == measure_as_given(problem, r.layout).excess


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_problems)
def test_padding_search_finds_the_first_padded_swizzle(args):
    """search_padding against a brute force: over the pitches above the given one, in order, every cute and
    xor-cols member of the padded tile measured whole; the first that is valid and leaves the least
    excess any layout can (0, or the floors') is the swizzled member it keeps (or there is none at
    any pitch before the first plain one that does)."""
    from swizzle_solver.budget import Budget
    from swizzle_solver.candidate import vector_elems
    from swizzle_solver.extended import later_of
    from swizzle_solver.families import xor_cols
    from swizzle_solver.families.padding import search as search_padding
    from swizzle_solver.search import first_conflict_free

    problem = _problem(args)
    from swizzle_solver.floors import floor_excess

    least = floor_excess(problem)
    kept, _ = search_padding(problem, Budget(), later_of(problem, first_conflict_free))
    got = [c.layout for c in kept if c.excess == least and c.layout.inner.family != "none"]
    vbytes = max(int(p.lane_bytes.max()) for p in problem.patterns)
    want = None
    for pitch in padding.pitches(problem.tile, vbytes, problem.hardware.wavefront_bytes):
        if pitch < problem.tile.row_length:
            continue  # the pitches below the given one are solving.py's (narrower.py), not padding's
        if measure_as_given(problem, padding.Padded(pitch, identity.Identity())).excess == least:
            break  # the search stops at the first pitch that needs no swizzle
        padded = padding.Padded(pitch, identity.Identity()).padded(problem.tile)
        members = [m for module in (cute, xor_cols) for m in module.candidates(padded, vector_elems(problem))]
        want = next((padding.Padded(pitch, m) for m in members
                     if padding.Padded(pitch, m).invalid(problem.tile) is None
                     and all(simulate.admissible(problem.tile, p, layout_table(problem.tile, padding.Padded(pitch, m)))
                             for p in problem.patterns)
                     and measure_as_given(problem, padding.Padded(pitch, m)).excess == least), None)
        if want is not None:
            break
    assert got == ([want] if want is not None else [])


@SETTINGS
@given(tiles, st.sampled_from([1, 2, 4, 8, 16]))
def test_grids_list_every_member_in_preference_order(tile, vector_elems):
    """cute and xor-cols generate their members in order directly (no sort, no filter, as the
    search reads them at every solve): the same list as filtering the whole box and sorting."""
    from swizzle_solver.families import xor_cols
    from swizzle_solver.model import log2

    top = max(1, (tile.size - 1).bit_length())
    m_min = log2(vector_elems)
    box = [(b, m, s) for b in range(0, top + 2) for m in range(0, top + 2) for s in range(0, top + 2)]
    want = sorted([(b, m, s) for b, m, s in box if b >= 1 and m >= m_min and s >= b and m + s + b <= top],
                  key=lambda x: (x[0], -x[1], x[2]))
    assert cute.grid(tile, vector_elems) == want
    col_bits, row_bits = max(0, (tile.cols - 1).bit_length()), max(0, (tile.rows - 1).bit_length())
    want = sorted([(b, m, a) for b, m, a in box
                   if b >= 1 and m >= m_min and m + b <= col_bits and a + b <= row_bits],
                  key=lambda x: (x[0], -x[1], x[2]))
    assert xor_cols.grid(tile, vector_elems) == want


def test_family_order_names_every_module():
    # FAMILY_RANK spells the later families by name so that their modules load only when used
    from swizzle_solver.families import FAMILY_RANK, LATER, base, records

    later = [r.name for r in records(LATER)]
    assert later == [m.FAMILY_RECORD.name for m in (two_level, linear, row_interleave, padding, panels)]
    auto = [r.name for r in records("vectors auto")]  # searched only with --vectors auto
    assert auto == [general_linear.FAMILY_RECORD.name]
    assert list(FAMILY_RANK) == [r.name for r in base()] + later + auto


# --- the registry -----------------------------------------------------------------------------

DESIGN_ORDER = ["none", "cute", "xor-cols", "two-level", "linear", "row-interleave", "padding", "column-panels",
                "general-linear"]


def test_registry_ranks_are_design_order():
    """DESIGN.md section 2's order; what the registry knows before importing a later family's
    module (its rank and stage) is what the module's own record says."""
    from swizzle_solver import families
    from swizzle_solver.layout import EVERY_SOLVE, LATER

    lazy = {e.name: e for e in families._ENTRIES if isinstance(e, families.Lazy)}
    recs = list(families.records())
    assert [r.name for r in recs] == DESIGN_ORDER
    assert [r.rank for r in recs] == list(range(len(DESIGN_ORDER)))
    assert {name: i for i, name in enumerate(DESIGN_ORDER)} == families.FAMILY_RANK
    assert [r.stage for r in recs] == [EVERY_SOLVE] * 3 + [LATER] * 5 + ["vectors auto"]
    for name, entry in lazy.items():
        r = families.record(name)
        assert (r.rank, r.stage) == (entry.rank, entry.stage)
    assert [r.name for r in families.records(LATER)] == DESIGN_ORDER[3:-1]
    for r in recs:
        assert r.layout.family == r.name


def _members(name, tile):
    from swizzle_solver.families import record
    from swizzle_solver.families.cute import Swizzle
    from swizzle_solver.families.identity import Identity
    from swizzle_solver.families.xor_cols import XorCols

    rec = record(name)
    if rec.candidates is not None:
        return rec.candidates(tile, 1)
    if name == "linear":
        terms = linear.all_terms([0, 1, 2, 3], 9)
        return [linear.XorLinear(tuple(sorted(terms[i::k]))) for k in (1, 3, 7, 11) for i in range(k)]
    if name == "general-linear":  # a transpose, a rotation of the bits, and the identity's bases
        return [general_linear.GeneralLinear(tuple(1 << ((i + k) % 6) for i in range(6))) for k in range(6)] + [
            general_linear.of_columns([8, 16, 32, 1, 3, 6])]
    assert name == "padding"
    return [padding.Padded(p, inner) for p in (33, 36, 40)
            for inner in (Identity(), Swizzle(1, 2, 3), Swizzle(2, 0, -3), XorCols(1, 0, 1),
                          two_level.TwoLevel(Swizzle(1, 0, 3), Swizzle(1, 1, 4)), linear.XorLinear(((0, 5), (1, 7))),
                          row_interleave.RowInterleave(8, 2), panels.ColumnPanels(64))]


def test_every_family_reads_back_every_name_it_prints():
    """Each family's parser (via names.parse_layout) reads back every name its members print, and
    its printed-name pattern (batch's expect) accepts them."""
    import re

    from swizzle_solver.families import records
    from swizzle_solver.names import compared, expect_problem, parse_layout

    tile = make_tile(16, 32, None, 2)
    for rec in records():
        members = _members(rec.name, tile)
        assert members, rec.name
        for m in members[:400]:
            assert parse_layout(m.name) == m, m.name
            assert re.fullmatch(rec.printed, compared(m.name)), (rec.name, m.name)
            if "-" not in m.name:  # a negative S is never an answer
                assert expect_problem(m.name) is None, m.name


def test_negative_shift_is_checked():
    """issue 13: --check takes any CuTe swizzle, S < 0 included (pycute's meaning, tests/test_pycute.py)."""
    from swizzle_solver.names import parse_layout
    from swizzle_solver.solving import check

    layout = parse_layout("Swizzle<3,0,-3>")
    assert layout == cute.Swizzle(3, 0, -3) and layout.name == "Swizzle<3,0,-3>"
    measured, why = check(make_problem(8, 64, ["row"], None, 4), layout)
    assert why is None and measured.results


def test_a_plain_solve_imports_no_later_family():
    import subprocess
    import sys

    code = ("import sys\nfrom swizzle_solver.access import make_problem\nfrom swizzle_solver.solving import solve\n"
            "from swizzle_solver.report import solution_json\nfrom swizzle_solver import render\n"
            "doc = solution_json(solve(make_problem(8, 32, ['8x4'], None, 4)))\n"
            "late = [m for m in ('two_level', 'linear', 'row_interleave', 'padding') "
            "if 'swizzle_solver.families.' + m in sys.modules]\n"
            "print(doc['status'], late, 'z3' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["conflict-free", "[]", "False"]


# --- a toy family: one class and one registry entry, nothing else edited ---------------------


from swizzle_solver.layout import LATER as _LATER  # noqa: E402
from swizzle_solver.layout import Family, LayoutBase, const, integer, step_schema  # noqa: E402
from swizzle_solver.value import Value  # noqa: E402


class Rotate(Value, LayoutBase):
    """Row r's columns rotated by k * r: phys = r * row_length + (c + k * r) mod cols."""

    k: int
    family = "toy-rotate"

    @property
    def name(self) -> str:
        return f"Rot<{self.k}>"

    @property
    def order(self) -> tuple:
        return (self.k,)

    def phys(self, tile, r, c):
        return r * tile.row_length + (c + self.k * r) % tile.cols

    def invalid(self, tile):
        return None

    def expression(self, tile):
        return f"r * {tile.row_length} + ((c + {self.k} * r) - {tile.cols} * ((c + {self.k} * r) / {tile.cols}))"

    def swizzles(self):
        return [{"kind": "rotation", "k": self.k, "unit": "element"}]


def _parse_rotate(text):
    import re

    m = re.fullmatch(r"rot\s*<\s*(\d{1,3})\s*>", text, re.IGNORECASE)
    return Rotate(int(m[1])) if m else None


TOY = Family(name="toy-rotate", rank=7, stage=_LATER, layout=Rotate, parse=_parse_rotate, printed=r"Rot<\d+>",
             syntax="Rot<k>", candidates=lambda tile, v: [Rotate(k) for k in range(1, 4)],
             grid=lambda tile, v: [(k,) for k in range(1, 4)], make=Rotate,
             bounds=lambda tile, v: "1 <= k <= 3",
             step_schema=(step_schema("toy-rotate: row r's columns rotated by k * r", kind=const("rotation"),
                                      k=integer(1, "the rotation per row"), unit=const("element")),))


def test_a_toy_family_is_searched_printed_and_named_with_no_other_edit():
    """The acceptance line of issue 11: adding a family is one module plus its registry entry. The
    toy family above is registered, then searched (search, and as a later family extended), written
    (report) as a document the schema (generated from the registries) accepts, printed (render), read
    back (names) and emitted (emit) by the unchanged code."""
    import io

    from test_schema import validate

    from swizzle_solver import families, render
    from swizzle_solver.budget import Budget
    from swizzle_solver.emit import TARGETS, emit_all
    from swizzle_solver.extended import search_extended
    from swizzle_solver.names import checkable, expect_problem, parse_layout
    from swizzle_solver.report import solution_json
    from swizzle_solver.search import first_conflict_free
    from swizzle_solver.solving import solve

    families.register(TOY)
    try:
        problem = make_problem(32, 32, ["32x1"], None, 4)  # a column: 32-way conflict unswizzled
        solution = solve(problem, families=(identity.FAMILY_RECORD, TOY), extend=False)
        assert solution.answer.layout == Rotate(1) and solution.answer.conflict_free
        doc = solution_json(solution)
        assert doc["answer"]["family"] == "toy-rotate" and doc["answer"]["name"] == "Rot<1>"
        assert doc["answer"]["swizzles"] == [{"kind": "rotation", "k": 1, "unit": "element"}]
        validate(doc)  # its name in the family enums, its step's shape in the swizzle's
        out = io.StringIO()
        render.print_solution(doc, render.Console(file=out, width=120))
        text = out.getvalue()
        assert "Rot<1>" in text and "Conflict-free: the minimal layout is Rot<1>." in text
        assert parse_layout("Rot<2>") == Rotate(2) and expect_problem("Rot<2>") is None
        assert "Rot<k>" in checkable()
        snippets = emit_all(TARGETS, problem, Rotate(1))
        assert snippets["cuda"].expressible and Rotate(1).expression(problem.tile) in snippets["cuda"].code
        # a later family (stage LATER) is searched by extended.py with no edit there: every member it lists
        small = make_problem(8, 8, ["8x1"], None, 4)
        found, reports = search_extended(small, Budget(), first_conflict_free)
        toy = next(r for r in reports if r.family == "toy-rotate")
        assert (toy.candidates, toy.evaluated, toy.complete) == (3, 3, True)
        assert any(c.layout == Rotate(1) and c.conflict_free for c in found)
    finally:
        families.unregister("toy-rotate")
    assert "toy-rotate" not in families.FAMILY_RANK


@SETTINGS
@given(st.integers(1, 8), st.data())
def test_inverse_bases_is_the_inverse(n, data):
    """forms.inverse_bases (Triton's shared linear layout reads the inverse): None exactly when the
    bases are not a bijection of the n-bit offsets, else L^-1(L(x)) = x for every x."""
    from swizzle_solver import gf2
    from swizzle_solver.families import forms

    bases = data.draw(st.lists(st.integers(0, (1 << n) - 1), min_size=n, max_size=n))
    images = [gf2.apply(bases, x) for x in range(1 << n)]
    inverse = forms.inverse_bases(bases)
    assert (inverse is not None) == (sorted(images) == list(range(1 << n)))
    if inverse is not None:
        assert [gf2.apply(inverse, y) for y in images] == list(range(1 << n))
