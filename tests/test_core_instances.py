"""One small deterministic instance of each core property, in the default tier (issue 22, item 6).

The property tests (test_properties.py, test_families.py, test_amd.py) draw hundreds of random
cases in the slow tier. So that a change breaking a core property fails the default run too, each
is checked here on a few fixed cases chosen to give both outcomes, against the same independent
oracles (test_properties.py's brute-force counter, plain set arithmetic):

- admissibility: ``simulate.admissible`` is "every lane's elements contiguous and aligned to its
  size", on padded pitches (aligned or not) and on swizzles (keeping vectors whole or not);
- injectivity: ``simulate.is_injective`` is "distinct offsets inside [0, size)", at the bounds;
- separation vs simulator: a lane-difference verdict (separation.py) is "worst == 1" by the simulator;
- proof vs simulator: the GF(2) bank matrix's wavefronts are the brute-force counter's (NVIDIA) and
  the simulator's on AMD's non-contiguous phase tables;
- every registered family: ``phys`` is ``apply`` on the offset (offset-XOR layouts), the batch
  functions ``phys_many``/``apply_many`` are each member's, the C expression is ``phys``, a member
  ``invalid()`` passes is injective into its storage, and on an unpadded tile ``invalid()`` is None
  exactly when ``phys`` is a bijection of the storage.
"""
import numpy as np
import pytest
from test_families import check_layout, expression_table
from test_properties import Access, brute_worst_total, exact_worsts, is_valid, keeps_vectors, phys_of, solver_layout

from swizzle_solver import api, families, simulate
from swizzle_solver.access import make_problem, make_tile
from swizzle_solver.candidate import measure_as_given
from swizzle_solver.families import cute, linear, padding
from swizzle_solver.families.general_linear import GeneralLinear, of_columns
from swizzle_solver.families.identity import Identity
from swizzle_solver.layout import layout_table
from swizzle_solver.proof import bank_matrix
from swizzle_solver.separation import separations


def table_phys(table):
    return lambda r, c: int(table[r, c])


# --- admissibility ------------------------------------------------------------------------------------

def test_admissible_is_whole_and_aligned_vectors_on_padded_pitches():
    """8 x 8 f32 read as 8x4v16 and row v8 under every padded pitch 8 .. 16: a 16-byte vector is
    whole at any pitch, aligned only where the pitch is a multiple of 4 elements (pitch 10: the
    vector at (1, 0) starts at byte 40)."""
    accesses = [Access("block", 8, 8, 8, 4, 32, 4, m=8, n=4, v=16), Access("row", 8, 8, 8, 4, 32, 4, v=8)]
    problem = make_problem(8, 8, [a.spec for a in accesses], None, 4)
    seen = set()
    for pitch in range(8, 17):
        table = layout_table(problem.tile, padding.Padded(pitch, Identity()))
        for access, pattern in zip(accesses, problem.patterns, strict=True):
            ok = simulate.admissible(problem.tile, pattern, table)
            assert ok == keeps_vectors([access], table_phys(table), 4), (pitch, access.spec)
            seen.add(ok)
    assert seen == {True, False}


def test_admissible_is_whole_vectors_under_swizzles():
    """f16 16 x 32 read as 8x8 (16-byte vectors): a swizzle whose XOR lands below the vector's
    8 elements (M < 3) splits it."""
    access = Access("block", 16, 32, 32, 2, 32, 4, m=8, n=8)
    problem = make_problem(16, 32, [access.spec], None, 2)
    seen = set()
    for params in [(b, m, s) for b in (1, 2, 3) for m in (0, 2, 3, 4) for s in (3, 4, 5) if s >= b]:
        if not is_valid("cute", params, 16, 32, 32):
            continue
        table = layout_table(problem.tile, cute.Swizzle(*params))
        ok = simulate.admissible(problem.tile, problem.patterns[0], table)
        assert ok == keeps_vectors([access], phys_of("cute", params, 32), 2), params
        seen.add(ok)
    assert seen == {True, False}


# --- injectivity --------------------------------------------------------------------------------------

def brute_injective(table, size):
    flat = [int(x) for x in np.ravel(table)]
    return len(set(flat)) == len(flat) and min(flat) >= 0 and max(flat) < size


@pytest.mark.parametrize("name, change, size", [
    ("identity", lambda t: t, 0), ("one past the end", lambda t: t + 1, 0), ("shifted, room for it", lambda t: t + 1, 1),
    ("a collision", lambda t: np.where(t == 5, 4, t), 0), ("negative", lambda t: t - 1, 0),
    ("reversed", lambda t: t.max() - t, 0), ("padded pitch 13", lambda t: (t // 12) * 13 + t % 12, 0),
    ("padded, its storage", lambda t: (t // 12) * 13 + t % 12, 8)])
def test_is_injective_is_distinct_offsets_in_the_storage(name, change, size):
    """8 x 12 f16: the plain table changed; ``size`` extra elements of storage beyond the tile's."""
    tile = make_tile(8, 12, None, 2)
    table = change(layout_table(tile, Identity()))
    storage = tile.size + size
    assert simulate.is_injective(tile, table, storage) == brute_injective(table, storage), name


def test_is_injective_has_both_outcomes_at_the_bound():
    tile = make_tile(8, 12, None, 2)
    table = layout_table(tile, Identity())
    assert simulate.is_injective(tile, table) and not simulate.is_injective(tile, table + 1)
    assert simulate.is_injective(tile, table + 1, tile.size + 1)


# --- separation vs the simulator ------------------------------------------------------------------------

SEPARATION_PROBLEMS = [(8, 8, 8, 4, 32, ["row", "col"]), (8, 16, 16, 2, 8, ["4x2", "col"]),
                       (16, 12, 12, 4, 32, ["2x4", "4x1"]), (8, 9, 13, 2, 4, ["4x2:2"])]


@pytest.mark.parametrize("rows, cols, pitch, e, banks, specs", SEPARATION_PROBLEMS)
def test_separation_is_the_simulators_verdict(rows, cols, pitch, e, banks, specs):
    """The lane differences decide "conflict-free" for an XOR-linear layout exactly as the simulator
    counts it: every linear layout of one or two terms (the first 40 in term order)."""
    problem = make_problem(rows, cols, specs, pitch, e, banks=banks)
    tile = problem.tile
    top = max(1, (tile.size - 1).bit_length())
    terms = linear.all_terms(list(range(top - 1)), top)
    chosen = [(t,) for t in terms] + [(a, b) for i, a in enumerate(terms) for b in terms[i + 1:]]
    seps = separations(tile, problem.hardware, problem.patterns)
    assert any(s is not None for s in seps)
    verdicts = set()
    for term_list in chosen[:40]:
        layout = linear.XorLinear(tuple(sorted(term_list)))
        if layout.invalid(tile) is not None:
            continue
        table = layout_table(tile, layout)
        for sep, result in zip(seps, measure_as_given(problem, layout).results, strict=True):
            if sep is not None and simulate.admissible(tile, result.pattern, table):
                assert sep.holds(layout.apply) == (result.worst == 1), (layout.name, result.pattern.spec)
                verdicts.add(result.worst == 1)
    assert verdicts  # the instance checked something


# --- the rank proof vs the counters ---------------------------------------------------------------------

@pytest.mark.parametrize("rows, cols, e, banks, bank_bytes, blocks", [
    (32, 64, 4, 32, 4, [(8, 4), (1, 64)]), (16, 32, 2, 32, 4, [(8, 8), (16, 1)]), (16, 16, 8, 16, 8, [(4, 2), (2, 4)])])
def test_rank_proof_is_the_brute_force_count(rows, cols, e, banks, bank_bytes, blocks):
    """The GF(2) bank matrix's wavefronts against the brute-force counter, for every valid cute
    swizzle of 1 or 2 bits and every xor-cols of 1 bit on power-of-two tiles."""
    accesses = [Access("block", rows, cols, cols, e, banks, bank_bytes, m, n) for m, n in blocks]
    problem = make_problem(rows, cols, [a.spec for a in accesses], None, e, banks=banks, bank_bytes=bank_bytes)
    members = [("none", ())] + [("cute", (b, m, s)) for b in (1, 2) for m in range(4) for s in range(b, 6)]
    members += [("xor-cols", (1, m, a)) for m in range(3) for a in range(3)]
    answered = set()
    for family, params in members:
        if not is_valid(family, params, rows, cols, cols):
            continue
        phys = phys_of(family, params, cols)
        for access, exact in zip(accesses, exact_worsts(problem, solver_layout(family, params)), strict=True):
            if exact is not None:
                assert exact == brute_worst_total(access, phys, e, banks, bank_bytes)[0], (family, params, access.spec)
                answered.add(exact == access.lower_bound)
    assert answered == {True, False}


@pytest.mark.parametrize("arch, op", [("gfx942", "ds_read_b128"), ("gfx950", "ds_read_b128"), ("gfx90a", "ds_read_b64"),
                                      ("rdna4", "ds_write_b32")])
def test_rank_proof_is_the_simulators_count_on_amd_phase_tables(arch, op):
    """Non-contiguous phase tables (cosets of XORed lane bits): the bank matrix's verdict is every
    phase's simulated count, under a few cute swizzles."""
    wave = api.problem(8, 8, ["8x8"], arch=arch).hardware.wave_lanes
    p = api.problem(64, 64, [f"{op}:{wave}x1"], dtype="f16", arch=arch)
    tile, pattern = p.tile, p.patterns[0]
    r, c = np.meshgrid(np.arange(64), np.arange(64), indexing="ij")
    counts = set()
    for b, m, s in [(1, 3, 3), (2, 3, 6), (3, 3, 6), (3, 4, 5), (2, 3, 3)]:
        layout = cute.Swizzle(b, m, s)
        matrix = bank_matrix(tile, p.hardware, pattern, layout.bases(tile))
        assert matrix is not None
        costs = simulate.simulate(tile, p.hardware, [pattern], layout.phys(tile, r, c))[0].costs
        assert costs.min() == costs.max() == matrix.wavefronts, (arch, op, layout.name)
        counts.add(matrix.wavefronts)
    assert len(counts) > 1


# --- every registered family -----------------------------------------------------------------------

# Members of the families whose records list none (searched by an engine), and the parameters of
# the members of a family with a batch function but no grid (two-level: its six).
SAMPLES = {
    "linear": lambda tile: [linear.XorLinear(t) for t in [((2, 5),), ((0, 3), (1, 4)), ((3, 6), (4, 7), (5, 6))]],
    "padding": lambda tile: [padding.Padded(tile.row_length + k, inner) for k in (1, 4)
                             for inner in (Identity(), cute.Swizzle(1, 1, 3))],
    # every rotation of the offset bits (a transpose among them) and one with XORs
    "general-linear": lambda tile: [GeneralLinear(tuple(1 << ((i + k) % tile.offset_bits)
                                                        for i in range(tile.offset_bits)))
                                    for k in range(tile.offset_bits)] + [
        of_columns([1 << i | (1 << (i + 1) if i + 1 < tile.offset_bits else 0) for i in range(tile.offset_bits)])],
}
PARAMS = {"two-level": lambda layout: (layout.first.B, layout.first.M, layout.first.S, layout.second.B,
                                       layout.second.M, layout.second.S)}
TILES = [(8, 16, 16, 4), (8, 12, 13, 2), (16, 8, 8, 1)]


def members(record, tile):
    """(layouts, their parameters or None): a spread of at most 12 of the members the record lists."""
    if record.grid is not None:
        params = list(record.grid(tile, 1))
        params = params[::max(1, len(params) // 12)]
        return [record.make(*p) for p in params], params
    listed = record.candidates(tile, 1) if record.candidates is not None else SAMPLES[record.name](tile)
    layouts = list(listed)[::max(1, len(listed) // 12)]
    return layouts, [PARAMS[record.name](m) for m in layouts] if record.name in PARAMS else None


@pytest.mark.parametrize("rows, cols, pitch, e", TILES)
def test_every_family_phys_is_its_apply_its_batch_and_its_expression(rows, cols, pitch, e):
    tile = make_tile(rows, cols, pitch, e)
    r, c = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    offsets = r * tile.row_length + c
    names = []
    for record in families.records():
        layouts, params = members(record, tile)
        assert layouts, f"no member of {record.name} to check: list some in SAMPLES"
        names.append(record.name)
        tables = [np.asarray(layout.phys(tile, r, c), dtype=np.int64) for layout in layouts]
        for layout, table in zip(layouts, tables, strict=True):
            assert np.array_equal(table, layout_table(tile, layout))
            assert np.array_equal(expression_table(tile, layout), table), layout.name
            if tile.row_length == tile.cols:  # invalid() is None iff a bijection of the storage
                check_layout(tile, layout)
            if layout.invalid(tile) is None:
                assert brute_injective(table, layout.storage(tile)), layout.name
            if getattr(layout, "apply", None) is not None:  # an offset-XOR layout: phys is apply(offset)
                assert np.array_equal(np.asarray(layout.apply(offsets)), table), layout.name
        if params is not None:
            assert np.array_equal(families.phys_many(record, params, tile, r, c), np.stack(tables)), record.name
            if record.apply_many is not None:
                assert np.array_equal(families.apply_many(record, params, offsets),
                                      np.stack([layout.apply(offsets) for layout in layouts])), record.name
    assert names == [r.name for r in families.records()]
