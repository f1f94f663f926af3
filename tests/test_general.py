"""The general-linear family (families/general_linear.py) and its construction (general.py):
the construction's best and its floor against every invertible map of small tiles, measured by the
simulator; its best against the XOR families' (hypothesis, slow tier)."""
from __future__ import annotations

import itertools

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from swizzle_solver import general, gf2, simulate
from swizzle_solver.access import make_problem
from swizzle_solver.api import solve
from swizzle_solver.families.general_linear import GeneralLinear, of_columns
from swizzle_solver.layout import layout_table
from swizzle_solver.soundness import soundness


def every_member(problem):
    """Every admissible general-linear member: the low (vector) bits fixed, any invertible map of the rest."""
    st_ = general.setting(problem)
    v, n = len(st_.vector), st_.n
    for images in itertools.product(range(1, 1 << (n - v)), repeat=n - v):
        if gf2.rank(list(images)) == n - v:
            yield GeneralLinear(tuple([1 << i for i in range(v)] + [x << v for x in images]))


def excess(problem, layout) -> int:
    results = simulate.simulate(problem.tile, problem.hardware, problem.patterns,
                                layout_table(problem.tile, layout))
    return sum(r.worst - r.pattern.lower_bound for r in results)


SMALL = [  # (rows, cols, accesses, banks): 3 bits above the vector, every member enumerated
    (4, 4, ["col", "row"], 4),
    (4, 4, ["4x1", "2x2"], 4),
    (2, 8, ["2x1", "1x4", "2x2"], 4),
    (4, 4, ["col", "2x2v8"], 4),
    (8, 4, ["8x1", "1x4v16"], 4),
    (4, 8, ["4x1", "2x4v8"], 8),
]


@pytest.mark.parametrize("rows, cols, accesses, banks", SMALL)
def test_construction_is_the_least_over_every_invertible_map(rows, cols, accesses, banks):
    problem = make_problem(rows, cols, accesses, banks=banks)
    found, kern = general.search_general(problem)
    assert found is not None, kern
    assert soundness(problem.tile, found.layout, problem.patterns) is None
    best = None
    for member in every_member(problem):
        assert soundness(problem.tile, member, problem.patterns) is None, member.name
        e = excess(problem, member)
        best = e if best is None else min(best, e)
    assert found.excess == excess(problem, found.layout) == best
    floor = general.floor_excess_general(problem)
    assert floor is None or floor == best


def test_the_floor_is_proven_below_every_member_on_a_larger_tile():
    """8 x 4 f32 on 8 banks, 4 bits above no vector (20,160 members would be slow): a spread of
    members never goes below the floor, and the construction reaches it."""
    problem = make_problem(8, 4, ["8x1", "1x4", "2x2"], banks=8)
    floor = general.floor_excess_general(problem)
    found, _ = general.search_general(problem)
    assert floor is not None and found.excess == floor
    for i, member in enumerate(every_member(problem)):
        if i % 97 == 0:
            assert excess(problem, member) >= floor


def test_of_columns_sends_each_preimage_to_its_bit():
    cols = [8, 16, 32, 1, 3, 6]
    layout = of_columns(cols)
    for j, x in enumerate(cols):
        assert layout.apply(x) == 1 << j


def test_kernel_search_pairs_two_spaces_as_triton_does():
    """Two 5-dimensional spaces in 10 bits, 5 slots: both conflict-free (K = span(a_i ^ b_i))."""
    a, b = [1 << i for i in range(5)], [1 << (i + 5) for i in range(5)]
    kern = general.kernel_search([a, b], [1, 1], 5)
    assert kern.complete and kern.cost == 2
    assert gf2.rank(a + list(kern.basis)) == 10 and gf2.rank(b + list(kern.basis)) == 10


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([(8, 8), (16, 8), (8, 16), (16, 16), (32, 8)]),
       st.lists(st.sampled_from(["col", "row", "2x4", "4x2", "8x1", "1x8", "4x4", "2x8", "8x2", "4x1:2"]),
                min_size=1, max_size=3, unique=True),
       st.sampled_from([4, 8, 32]))
def test_general_linear_is_never_worse_than_the_xor_families(shape, accesses, banks):
    try:
        problem = make_problem(*shape, accesses, banks=banks)
    except ValueError:
        assume(False)
    found, kern = general.search_general(problem)
    assume(found is not None)
    assert found.excess == excess(problem, found.layout)  # re-measured by the simulator
    xor_best = solve(problem).solution.answer
    assert found.excess <= xor_best.excess
    floor = general.floor_excess_general(problem)
    if floor is not None:
        assert floor <= found.excess and floor <= xor_best.excess
        if kern.complete:
            assert found.excess == floor
