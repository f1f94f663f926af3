"""Property tests: everything the solver counts, against a brute-force counter written here.

The counter below is deliberately plain (loops, sets, dicts) and shares no code with the package:
it re-derives placements, vector widths, lower bounds and layouts from DESIGN.md sections 1 and 2.
Checked against it, on random tiles (power-of-two and other pitches, padding, element sizes 1 to 8,
8 to 32 banks) and random patterns:

- every worst and total that ``candidate.measure`` reports, for random layouts of every family, and
  for explicit phases files of random lanes;
- the GF(2) bank matrix of the rank proof (``exact_worsts`` below) wherever it applies;
- ``solve.solve``: its counts, and that its answer is a bijection keeping every vector whole, also
  on phases files whose lanes are aligned in address but not in column (odd pitches);
- the claim the search bounds whole families with: where one placement decides, all cost the same;
- ``simulate.admissible`` (part of every re-check) against the counter's own vector test;
- the screen of the first-conflict-free path: it never rejects a conflict-free member, and is
  exact where the lane-difference conditions apply;
- minimality: on small tiles, every member of none / cute / xor-cols enumerated naively, and the
  solver's answer is the one with the smallest (excess, family, B, -M, S) key.
"""
import math
from collections import Counter

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from swizzle_solver import candidate, sampling, search, soundness
from swizzle_solver.access import make_problem
from swizzle_solver.families.cute import Swizzle
from swizzle_solver.families.identity import Identity
from swizzle_solver.families.xor_cols import XorCols
from swizzle_solver.proof import bank_matrix
from swizzle_solver.solving import solve

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FAMILY_ORDER = {"none": 0, "cute": 1, "xor-cols": 2}


# --- the brute-force counter ------------------------------------------------------------------------

def default_vector(run_bytes, pitch_bytes, elem_bytes):
    v = 16
    while run_bytes % v or pitch_bytes % v:
        v //= 2
    return max(v, elem_bytes)


class Access:
    """One pattern as DESIGN.md section 1 defines it: its spec, and its placements as lane lists."""

    def __init__(self, kind, rows, cols, pitch, e, banks, bank_bytes, m=1, n=1, s=1, v=None):
        wavefront = banks * bank_bytes
        if kind == "row":
            m, n, s = 1, min(cols, max(1, wavefront // e)), 1
            self.spec, self.vector = "row" + (f"v{v}" if v else ""), v or e
        elif kind == "col":
            m, n, s = min(rows, banks), 1, 1
            self.spec, self.vector = "col", default_vector(e, pitch * e, e)
        else:
            self.spec = f"{m}x{n}" + (f":{s}" if s > 1 else "") + (f"v{v}" if v else "")
            self.vector = v or default_vector(n * e, pitch * e, e)
        self.lower_bound = max(1, -(-(m * n * e) // wavefront))
        step = self.vector // e  # elements per lane
        self.placements = []  # each a list of lanes (row, first column, elements)
        if kind == "row":
            for r in range(rows):
                for c0 in range(0, cols, n):
                    self.placements.append([(r, c, step) for c in range(c0, min(c0 + n, cols), step)])
        else:
            for band in range(0, rows, m * s):
                for j in range(s):
                    for c0 in range(0, cols - n + 1, n):
                        self.placements.append([(band + j + i * s, c0 + k, step)
                                                for i in range(m) for k in range(0, n, step)])


def brute_cost(lanes, phys, e, banks, bank_bytes):
    """Distinct words touched, grouped by bank: the most in one bank."""
    words = set()
    for r, c, k in lanes:
        for j in range(k):
            q = phys(r, c + j)
            for byte in range(q * e, q * e + e):
                words.add(byte // bank_bytes)
    return max(Counter(w % banks for w in words).values())


def brute_worst_total(access, phys, e, banks, bank_bytes):
    costs = [brute_cost(p, phys, e, banks, bank_bytes) for p in access.placements]
    return max(costs), sum(costs)


def phys_of(family, params, pitch):
    """The layouts of DESIGN.md section 2, from their formulas."""
    if family == "none":
        return lambda r, c: r * pitch + c
    if family == "cute":
        b, m, s = params

        def cute(r, c):
            p = r * pitch + c
            return p ^ ((p & (((1 << b) - 1) << (m + s))) >> s)
        return cute
    b, m, a = params
    return lambda r, c: r * pitch + (c ^ (((r >> a) & ((1 << b) - 1)) << m))


def solver_layout(family, params):
    if family == "none":
        return Identity()
    return (Swizzle if family == "cute" else XorCols)(*params)


def params_of(layout):
    if layout.family == "none":
        return ()
    return (layout.B, layout.M, layout.S if layout.family == "cute" else layout.a)


def keeps_vectors(accesses, phys, e):
    """Every lane's elements stay contiguous and aligned to the lane's bytes."""
    for access in accesses:
        for lanes in access.placements:
            for r, c, k in lanes:
                first = phys(r, c)
                if (first * e) % (k * e) or any(phys(r, c + j) != first + j for j in range(k)):
                    return False
    return True


def is_valid(family, params, rows, cols, pitch):
    """cute: a bijection of [0, rows * pitch) onto itself; xor-cols: every row's columns onto themselves."""
    if family == "cute":
        f = phys_of("cute", params, pitch)
        size = rows * pitch
        return sorted(f(0, p) for p in range(size)) == list(range(size))  # f(0, p): the swizzle of offset p
    if family == "xor-cols":
        f = phys_of("xor-cols", params, pitch)
        return all(sorted(f(r, c) - r * pitch for c in range(cols)) == list(range(cols)) for r in range(rows))
    return True


def exact_worsts(problem, layout):
    """Per pattern: the worst wavefronts from the GF(2) bank matrix, or None where it does not apply."""
    bases = layout.bases(problem.tile)
    return [None if (m := bank_matrix(problem.tile, problem.hardware, p, bases)) is None else m.wavefronts
            for p in problem.patterns]


# --- random problems ---------------------------------------------------------------------------------

@st.composite
def problems(draw, max_elems=2048, widths=(1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 40, 48, 64, 72, 96)):
    e = draw(st.sampled_from([1, 2, 4, 8]))
    banks = draw(st.sampled_from([8, 16, 32]))
    bank_bytes = draw(st.sampled_from([4, 4, 8]))
    rows = draw(st.sampled_from([r for r in (1, 2, 3, 4, 6, 8, 12, 16, 24, 32) if r * min(widths) <= max_elems]))
    cols = draw(st.sampled_from([c for c in widths if rows * c <= max_elems]))
    pad = draw(st.sampled_from([0, 0, 0, 1, 3, 8]))
    pitch = cols + pad
    assume(rows * pitch <= max_elems)
    accesses = []
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["block", "block", "block", "row", "col"]))
        if kind == "col":
            if rows % min(rows, banks):
                continue
            accesses.append(Access("col", rows, cols, pitch, e, banks, bank_bytes))
        elif kind == "row":
            width = min(cols, max(1, banks * bank_bytes // e))
            # vB must divide every run (the last may be shorter) and the pitch
            vectors = [v for v in (1, 2, 4, 8, 16)
                       if v >= e and math.gcd(width * e, cols * e) % v == 0 and (pitch * e) % v == 0]
            v = draw(st.sampled_from([None, None] + vectors))
            accesses.append(Access("row", rows, cols, pitch, e, banks, bank_bytes, v=v))
        else:
            m, s = draw(st.sampled_from([(m, s) for m in range(1, rows + 1) for s in range(1, 5)
                                         if rows % (m * s) == 0]))
            n = draw(st.sampled_from([n for n in (1, 2, 3, 4, 6, 8, 16, 32) if n <= cols]))
            vectors = [v for v in (1, 2, 4, 8, 16) if v >= e and (n * e) % v == 0 and (pitch * e) % v == 0]
            v = draw(st.sampled_from([None, None] + vectors))
            accesses.append(Access("block", rows, cols, pitch, e, banks, bank_bytes, m, n, s, v))
    assume(accesses)
    problem = make_problem(rows, cols, [a.spec for a in accesses], pitch, e, banks=banks, bank_bytes=bank_bytes)
    return problem, accesses


@st.composite
def layouts(draw, problem):
    t = problem.tile
    bits = max(1, (t.size - 1).bit_length())
    family = draw(st.sampled_from(["none", "cute", "xor-cols"]))
    if family == "none":
        return family, ()
    b = draw(st.integers(1, 4))
    m = draw(st.integers(0, bits))
    third = draw(st.integers(b, max(b, bits + 1))) if family == "cute" else draw(st.integers(0, 5))
    return family, (b, m, third)


def check_counts(problem, accesses, ranked, phys):
    t, bm = problem.tile, problem.hardware
    for access, pattern, result in zip(accesses, problem.patterns, ranked.results):
        assert (pattern.placements, pattern.lower_bound, pattern.vector_bytes) == (
            len(access.placements), access.lower_bound, access.vector)
        assert (result.worst, result.total) == brute_worst_total(access, phys, t.elem_bytes, bm.banks, bm.bank_bytes)


# --- properties ----------------------------------------------------------------------------------------

@SETTINGS
@given(data=st.data())
def test_measure_counts_every_placement(data):
    problem, accesses = data.draw(problems())
    family, params = data.draw(layouts(problem))
    ranked = candidate.measure_as_given(problem, solver_layout(family, params))
    check_counts(problem, accesses, ranked, phys_of(family, params, problem.tile.row_length))


@SETTINGS
@given(data=st.data())
def test_gf2_fast_path_agrees_where_it_answers(data):
    problem, accesses = data.draw(problems(widths=(1, 2, 4, 8, 16, 32, 64)))
    family, params = data.draw(layouts(problem))
    t, bm = problem.tile, problem.hardware
    # The fast path is a claim about layouts the search can answer with: an xor-cols that pushes
    # columns out of their row is not linear (the carry into r * row_length) and is never used.
    assume(is_valid(family, params, t.rows, t.cols, t.row_length))
    phys = phys_of(family, params, t.row_length)
    for access, exact in zip(accesses, exact_worsts(problem, solver_layout(family, params))):
        if exact is not None:
            assert exact == brute_worst_total(access, phys, t.elem_bytes, bm.banks, bm.bank_bytes)[0]


@SETTINGS
@given(data=st.data())
def test_solve_answer_is_measured_right_and_sound(data):
    problem, accesses = data.draw(problems())
    t = problem.tile
    solution = solve(problem, extend=False)  # the base families, which this file models
    for ranked in [solution.answer, solution.baseline, *solution.alternatives]:
        family, params = ranked.layout.family, params_of(ranked.layout)
        check_counts(problem, accesses, ranked, phys_of(family, params, t.row_length))
    family, params = solution.answer.layout.family, params_of(solution.answer.layout)
    phys = phys_of(family, params, t.row_length)
    images = {phys(r, c) for r in range(t.rows) for c in range(t.cols)}
    assert len(images) == t.rows * t.cols and min(images) >= 0 and max(images) < t.rows * t.row_length
    assert is_valid(family, params, t.rows, t.cols, t.row_length)
    assert keeps_vectors(accesses, phys, t.elem_bytes)
    assert solution.status == ("conflict-free" if solution.answer.excess == 0 else "conflicts")


@SETTINGS
@given(data=st.data())
def test_admissible_is_keeping_vectors_whole(data):
    """simulate.admissible (the re-check of every answer) against the counter's keeps_vectors, on
    layouts that keep vectors whole and layouts that do not."""
    from swizzle_solver import simulate

    problem, accesses = data.draw(problems())
    family, params = data.draw(layouts(problem))
    t = problem.tile
    assume(is_valid(family, params, t.rows, t.cols, t.row_length))
    phys = phys_of(family, params, t.row_length)
    table = soundness.layout_table(problem.tile, solver_layout(family, params))
    for access, pattern in zip(accesses, problem.patterns):
        assert simulate.admissible(t, pattern, table) == keeps_vectors([access], phys, t.elem_bytes)


def test_admissible_on_every_small_swizzle_of_vector_reads():
    # 16-byte and 8-byte vectors under every cute triple with small M: both outcomes occur
    from swizzle_solver import simulate

    seen = set()
    for rows, cols, e, m, n, v in ((8, 32, 4, 8, 4, None), (16, 24, 2, 4, 8, None), (8, 16, 4, 2, 4, 8)):
        a = Access("block", rows, cols, cols, e, 32, 4, m, n, v=v)
        problem = make_problem(rows, cols, [a.spec], cols, e)
        t = problem.tile
        for params in ((b, m, s) for b in (1, 2) for m in (0, 1, 2) for s in range(b, 6)):
            if not is_valid("cute", params, rows, cols, cols):
                continue
            table = soundness.layout_table(problem.tile, Swizzle(*params))
            ok = simulate.admissible(t, problem.patterns[0], table)
            assert ok == keeps_vectors([a], phys_of("cute", params, cols), e), (a.spec, params)
            seen.add(ok)
    assert seen == {True, False}


@SETTINGS
@given(data=st.data())
def test_one_placement_decides_where_the_search_says_so(data):
    """Where the search bounds a whole family from the first placement alone (power-of-two pitch,
    placements that are cosets of one set of offset bits), every placement costs the same under
    every valid layout of the base families, by the brute-force counter."""
    problem, accesses = data.draw(problems(widths=(1, 2, 4, 8, 16, 32, 64)))
    family, params = data.draw(layouts(problem))
    t, bm = problem.tile, problem.hardware
    assume(is_valid(family, params, t.rows, t.cols, t.row_length))
    phys = phys_of(family, params, t.row_length)
    decided = [sampling.one_placement_decides(t, p) for p in problem.patterns]
    assume(any(decided))
    for access, one in zip(accesses, decided):
        if one:
            costs = {brute_cost(lanes, phys, t.elem_bytes, bm.banks, bm.bank_bytes) for lanes in access.placements}
            assert len(costs) == 1, (access.spec, family, params, costs)


@SETTINGS
@given(data=st.data())
def test_screen_never_rejects_a_conflict_free_member(data):
    """The first-conflict-free path's screen, member by member, against the brute-force counter:
    a member it rejects must conflict; where every pattern has lane differences (separation.py)
    the screen is exact for the XOR-linear families (none, cute), so it passes exactly the
    conflict-free members."""
    from swizzle_solver.families import cute, identity, xor_cols

    problem, accesses = data.draw(problems(max_elems=512))
    t, bm = problem.tile, problem.hardware
    screen = search.Screen(problem)
    elems = candidate.vector_elems(problem)
    for record in (identity.FAMILY_RECORD, cute.FAMILY_RECORD, xor_cols.FAMILY_RECORD):
        params = record.grid(t, elems)[:40]
        passed = screen.passes(record, params)
        for member, ok in zip(params, passed.tolist()):
            family = record.name
            if not is_valid(family, member, t.rows, t.cols, t.row_length):
                continue
            phys = phys_of(family, member, t.row_length)
            free = all(brute_worst_total(a, phys, t.elem_bytes, bm.banks, bm.bank_bytes)[0] == a.lower_bound
                       for a in accesses)
            assert ok or not free, (family, member)
            if family != "xor-cols" and all(screen.separated):
                assert ok == free, (family, member)


def naive_minimum(problem, accesses):
    """Every member of none / cute / xor-cols, enumerated past any bound that can matter."""
    t, bm = problem.tile, problem.hardware
    top = max(1, (t.size - 1).bit_length())
    col_bits, row_bits = max(0, (t.cols - 1).bit_length()), max(0, (t.rows - 1).bit_length())
    members = [("none", ())]
    members += [("cute", (b, m, s)) for b in range(1, top + 1) for m in range(top + 1) for s in range(b, top + 2)]
    members += [("xor-cols", (b, m, a)) for b in range(1, col_bits + 2) for m in range(col_bits + 1)
                for a in range(row_bits + 1)]
    best = None
    for family, params in members:
        if not is_valid(family, params, t.rows, t.cols, t.row_length):
            continue
        phys = phys_of(family, params, t.row_length)
        if not keeps_vectors(accesses, phys, t.elem_bytes):
            continue
        excess = sum(brute_worst_total(a, phys, t.elem_bytes, bm.banks, bm.bank_bytes)[0] - a.lower_bound
                     for a in accesses)
        key = (excess, FAMILY_ORDER[family], *order_of(params))
        if best is None or key < best:
            best = key
    return best


def order_of(params):
    return (params[0], -params[1], params[2]) if params else ()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_solve_is_minimal_over_the_whole_families(data):
    problem, accesses = data.draw(problems(max_elems=128))
    answer = solve(problem, extend=False).answer  # the base families, which this file models
    key = (answer.excess, FAMILY_ORDER[answer.layout.family], *order_of(params_of(answer.layout)))
    assert key == naive_minimum(problem, accesses)


def test_brute_force_counter_on_hand_cases():
    """The counter itself, on cases worked out by hand (so that it can be trusted above)."""
    # 8 x 8 f32 on 8 banks, column read: all 8 rows in bank 0 unswizzled; Swizzle<3,0,3> spreads them.
    col = Access("block", 8, 8, 8, 4, 8, 4, m=8, n=1)
    assert brute_worst_total(col, phys_of("none", (), 8), 4, 8, 4) == (8, 64)
    assert brute_worst_total(col, phys_of("cute", (3, 0, 3), 8), 4, 8, 4) == (1, 8)
    # f64 on 4-byte banks: W = 128 / 8 = 16 elements (two words each), so a 32-column row is two
    # runs of one wavefront each.
    row = Access("row", 1, 32, 32, 8, 32, 4)
    assert (row.lower_bound, brute_worst_total(row, phys_of("none", (), 32), 8, 32, 4)) == (1, (1, 2))
    # pitch 24 f32, 8 rows x 16 B on 32 banks: gcd(24 * 4 / 16, 8) = 2-way conflict.
    block = Access("block", 8, 24, 24, 4, 32, 4, m=8, n=4)
    assert brute_worst_total(block, phys_of("none", (), 24), 4, 32, 4)[0] == 2
    assert math.gcd(24 * 4 // 16, 8) == 2


def test_gf2_fast_path_answers_on_a_linear_case():
    """So that the GF(2) property above is not vacuous: it does answer for power-of-two tiles."""
    problem = make_problem(32, 64, ["8x4", "row"], elem_bytes=4)
    assert exact_worsts(problem, Identity()) == [8, 1]  # 8 rows 256 B apart: the same 4 banks
    assert exact_worsts(problem, Swizzle(3, 2, 4)) == [1, 1]
    assert exact_worsts(make_problem(32, 40, ["8x4"], elem_bytes=4), Identity()) == [None]


@st.composite
def explicit_phases(draw):
    """A tile and a phases file's pattern: random aligned lanes, grouped into random phases."""
    e = draw(st.sampled_from([1, 2, 4, 8]))
    banks, bank_bytes = draw(st.sampled_from([8, 16, 32])), draw(st.sampled_from([4, 8]))
    rows, cols = draw(st.sampled_from([1, 4, 8, 16])), draw(st.sampled_from([4, 8, 16, 24, 40, 64]))
    pitch = cols + draw(st.sampled_from([0, 1, 8]))
    widths = [v for v in (1, 2, 4, 8, 16) if v >= e and (pitch * e) % v == 0 and v // e <= cols]
    lane = st.sampled_from(widths).flatmap(lambda v: st.tuples(
        st.integers(0, rows - 1), st.integers(0, cols // (v // e) - 1).map(lambda k: k * (v // e)), st.just(v)))
    phases = draw(st.lists(st.lists(lane, min_size=1, max_size=12), min_size=1, max_size=5))
    return rows, cols, pitch, e, banks, bank_bytes, phases


@SETTINGS
@given(case=explicit_phases(), layout=st.sampled_from([("none", ()), ("cute", (2, 1, 3)), ("cute", (3, 0, 4))]))
def test_measure_counts_explicit_phases(tmp_path_factory, case, layout):
    rows, cols, pitch, e, banks, bank_bytes, phases = case
    path = tmp_path_factory.mktemp("phases") / "p.toml"
    path.write_text('[[pattern]]\nname = "random"\nphases = [' + ", ".join(
        "[" + ", ".join(f"[{r}, {c}, {v}]" for r, c, v in phase) + "]" for phase in phases) + "]\n")
    problem = make_problem(rows, cols, [], pitch, e, banks=banks, bank_bytes=bank_bytes, phases_files=[str(path)])
    phys = phys_of(*layout, pitch)
    costs = [brute_cost([(r, c, v // e) for r, c, v in phase], phys, e, banks, bank_bytes) for phase in phases]
    largest = max(len({(r, c + k) for r, c, v in phase for k in range(v // e)}) * e for phase in phases)
    result = candidate.measure_as_given(problem, solver_layout(*layout)).results[0]
    assert (result.worst, result.total) == (max(costs), sum(costs))
    assert result.pattern.lower_bound == max(1, -(-largest // (banks * bank_bytes)))


@st.composite
def unaligned_phases(draw):
    """1 to 3 phases files' patterns of random lanes whose addresses are aligned to their vectors but
    whose columns need not be (r * pitch + c is a multiple of the lane's elements: at an odd pitch
    the column of an odd row is odd), on odd and even pitches."""
    e = draw(st.sampled_from([1, 2, 4]))
    banks, bank_bytes = draw(st.sampled_from([(8, 4), (32, 4), (16, 8)]))
    rows, cols = draw(st.sampled_from([4, 8, 16])), draw(st.sampled_from([8, 9, 16, 24]))
    pitch = cols + draw(st.sampled_from([0, 1, 3, 8]))
    assume(rows * pitch * e <= 4096)
    widths = [v for v in (1, 2, 4, 8, 16) if v >= e and v // e <= cols]

    @st.composite
    def lane(draw):
        v = draw(st.sampled_from(widths))
        k = v // e
        r = draw(st.integers(0, rows - 1))
        starts = [c for c in range(cols - k + 1) if (r * pitch + c) % k == 0]
        assume(starts)
        return r, draw(st.sampled_from(starts)), v

    patterns = draw(st.lists(st.lists(st.lists(lane(), min_size=1, max_size=8), min_size=1, max_size=3),
                             min_size=1, max_size=3))
    return rows, cols, pitch, e, banks, bank_bytes, patterns


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=unaligned_phases())
def test_solve_on_random_phases_files_is_sound_and_counted_right(tmp_path_factory, case):
    """Issue 14: every layout a search proposes passes the soundness check before it is measured,
    so the solve never fails its internal re-check on valid input; its answer and runners-up are
    sound, and their counts are the brute-force counter's on their own tables."""
    from swizzle_solver.report import solution_json

    rows, cols, pitch, e, banks, bank_bytes, patterns = case
    folder = tmp_path_factory.mktemp("phases")
    files = []
    for i, phases in enumerate(patterns):
        path = folder / f"p{i}.toml"
        path.write_text(f'[[pattern]]\nname = "random{i}"\nphases = [' + ", ".join(
            "[" + ", ".join(f"[{r}, {c}, {v}]" for r, c, v in phase) + "]" for phase in phases) + "]\n")
        files.append(str(path))
    problem = make_problem(rows, cols, [], pitch, e, banks=banks, bank_bytes=bank_bytes, phases_files=files)
    solution = solve(problem)
    solution_json(solution)  # the report builds without error, and without searching again
    assert solve(problem, table=False).answer.layout == solution.answer.layout  # --quiet answers the same
    for found in [solution.answer, *solution.alternatives]:
        assert soundness.soundness(problem.tile, found.layout, problem.patterns) is None, found.layout.name
        table = soundness.layout_table(problem.tile, found.layout)
        phys = lambda r, c: int(table[r, c])  # noqa: E731
        for phases, result in zip(patterns, found.results):
            costs = [brute_cost([(r, c, v // e) for r, c, v in phase], phys, e, banks, bank_bytes) for phase in phases]
            assert (result.worst, result.total) == (max(costs), sum(costs)), found.layout.name
