"""The cuts that make --vectors auto's search fast (issue 35 item 4) keep its answers and its
completeness claims: general.kernel_search against every subspace of the right dimension
(brute force written here), its cache in S's coordinates, and vector_search's phase floor (one
wavefront per phase of an instruction) against every layout the simulator measures."""
from __future__ import annotations

import random

import pytest

from swizzle_solver import general, gf2, vector_search, vectors
from swizzle_solver.access import make_tile
from swizzle_solver.hardware import target
from swizzle_solver.model import log2


def brute_least(spaces: list[list[int]], weights: list[int], slots: int) -> int:
    """The least sum of weight * 2^dim(V ∩ K) over every K inside S = sum of the spaces with
    dim K = dim S - slots, each K enumerated (vector_search.subspaces), dimensions by rank."""
    basis = vector_search.independent([x for v in spaces for x in v])
    need = max(0, len(basis) - slots)
    return min(cost(spaces, weights, k) for k in vector_search.subspaces(basis, need))


def cost(spaces: list[list[int]], weights: list[int], k: list[int]) -> int:
    return sum(w << (gf2.rank(v) + gf2.rank(k) - gf2.rank(v + k)) for v, w in zip(spaces, weights))


def random_problem(rng: random.Random) -> tuple[list[list[int]], list[int], int]:
    n = rng.randint(1, 6)
    spaces = []
    for _ in range(rng.randint(1, 3)):
        v: list[int] = []
        while len(v) < rng.randint(1, n):
            x = rng.randrange(1, 1 << n)
            if gf2.rank(v + [x]) > len(v):
                v.append(x)
        spaces.append(v)
    return spaces, [rng.choice([1, 2, 3, 8]) for _ in spaces], rng.randint(0, n)


@pytest.mark.parametrize("seed", range(4))
def test_kernel_search_is_the_least_over_every_subspace(seed):
    """Every K of the dimension enumerated: the search's cost is the least, its K has that cost and
    that dimension, and it says complete."""
    rng = random.Random(seed)
    for _ in range(25):
        spaces, weights, slots = random_problem(rng)
        kern = general.kernel_search(spaces, weights, slots)
        s = gf2.rank([x for v in spaces for x in v])
        assert kern.complete
        assert gf2.rank(list(kern.basis)) == len(kern.basis) == max(0, s - slots)
        assert kern.cost == cost(spaces, weights, list(kern.basis)) == brute_least(spaces, weights, slots)


def test_a_search_that_ran_out_of_nodes_now_completes():
    """Before the dead-end cut this search visited 20,001 nodes without reaching a K of dimension 6
    (its answer the empty K at the cost of K = 0, not complete): children whose top leaves too few
    tops for the vectors still to come have nothing of that dimension below them. (Every 6-dim K of
    this 9-dim S is too many to enumerate here; test_kernel_search_is_the_least_over_every_subspace
    holds the search to the brute force where it can.)"""
    spaces = [[413], [469, 8, 48, 369, 431, 205, 364, 402, 1], [424, 445, 171, 125, 374, 167, 361, 446]]
    kern = general.kernel_search(spaces, [1, 1, 8], 3)
    assert kern.complete and len(kern.basis) == 6 and kern.nodes < general.MAX_NODES
    assert kern.cost == cost(spaces, [1, 1, 8], list(kern.basis))
    assert kern.cost >= sum(w << max(0, len(v) + 6 - 9) for v, w in zip(spaces, [1, 1, 8]))  # the floor


def test_the_cache_answers_in_the_callers_coordinates():
    """The same problem in other coordinates (the index bits permuted): the cached search's K is
    mapped back through the caller's own S, with the same cost."""
    spaces, weights = [[1, 2, 4], [8, 16, 32]], [1, 1]
    first = general.kernel_search(spaces, weights, 3)
    moved = [[x << 1 for x in v] for v in spaces]
    second = general.kernel_search(moved, weights, 3)
    assert second.cost == first.cost == brute_least(spaces, weights, 3)
    assert second.basis == tuple(x << 1 for x in first.basis)
    assert second.cost == cost(moved, weights, list(second.basis))


def _amd_pair(tile):
    """A store along the rows and a load down the columns of a 16 x 8 tile, 64 lanes, one register."""
    src = vectors.RegisterAccess("src", (1,), (2, 4, 8, 16, 32, 64), (), store=True)
    dst = vectors.RegisterAccess("dst", (8,), (1, 2, 4, 16, 32, 64), ())
    return [src, dst]


def test_the_phase_floor_holds_for_random_layouts():
    """gfx942 (32 banks, 64 lanes: two phases an instruction up to 4 bytes): 150 random invertible
    maps of the index bits, each access's wavefronts as the simulator counts them at least
    vector_search.floor at the width the layout gives it; the phase term is what binds on some of
    them (over the words' ceil(words / banks)). (Every layout up to relabelled banks: the slow test
    below.)"""
    from swizzle_solver.families.general_linear import of_columns

    tile, hw = make_tile(16, 8, None, 2), target("gfx942")
    accs = _amd_pair(tile)
    sides = vectors.search_sides(accs, tile, hw)
    assert [s.phases for s in sides] == [(2, 2), (2, 2)]
    rng = random.Random(7)
    bound = 0
    for _ in range(150):
        cols: list[int] = []
        while len(cols) < 7:
            x = rng.randrange(1, 128)
            if gf2.rank(cols + [x]) > len(cols):
                cols.append(x)
        c = vectors.measure_choice(of_columns(cols), accs, tile, hw, "random")
        for a, m, side in zip(accs, c.accesses, sides):
            if m.instruction != vectors.instruction_name(hw, m.vector_bytes, a.store):
                continue  # (the floor bounds the single-address vector form, one instruction a vector)
            j = log2(m.vector_bytes // tile.elem_bytes)
            floor = vector_search.floor(side, j, tile.elem_bytes, hw.bank_bytes, hw.banks)
            without = vector_search.floor(vector_search.Side(side.regs, side.lanes, side.requests, side.most,
                                                             side.units), j, tile.elem_bytes, hw.bank_bytes, hw.banks)
            assert m.wavefronts >= floor >= without
            bound += floor > without
    assert bound > 0


def test_an_access_that_may_be_ldmatrix_gets_no_phase_floor():
    """The ldmatrix/stmatrix form is measured too, each matrix a phase of its own: the vector form's
    phases are no floor for such an access (vectors.search_sides leaves them out)."""
    tile, hw = make_tile(8, 64, None, 2), target("nvidia")
    acc = vectors.RegisterAccess("a", (1, 2, 4), (8, 16, 32, 64, 128), ())
    assert vectors.has_matrix(acc, tile, hw)
    assert vectors.search_sides([acc], tile, hw)[0].phases == ()


@pytest.mark.slow
def test_the_amd_pair_against_every_layout():
    """The same pair, every layout up to relabelled banks (8,127): --vectors auto is never worse,
    equal where it says complete; with the phase floor it builds no chain below the plain start and
    says complete."""
    from test_vector_search import check

    tile, hw = make_tile(16, 8, None, 2), target("gfx942")
    auto, found = check(_amd_pair(tile), tile, hw)
    assert auto.kernel_complete and (auto.answer.wavefronts, auto.answer.instructions) == found[0]
