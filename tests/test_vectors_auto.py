"""--vectors auto (vectors.py): each register-layout access's vector chosen with the layout.

Checked against the plain solve's own measurement (the vectors as given), against a brute-force
counter of wavefronts written here from DESIGN.md section 1 (NVIDIA's contiguous phase rule), and
the objective against the vectors as given on random register layouts (hypothesis, slow tier)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swizzle_solver import gf2, vectors
from swizzle_solver.access import make_problem, make_tile
from swizzle_solver.api import solve
from swizzle_solver.candidate import measure_as_given
from swizzle_solver.families.general_linear import GeneralLinear
from swizzle_solver.hardware import target
from swizzle_solver.value import replace
from tests import clirun

ROOT = Path(__file__).resolve().parents[1]
TRITON = sorted((ROOT / "tests" / "data" / "triton").glob("*.json"))


def access_of(name, tile, reg, lane, warp):
    f = lambda vs: tuple(r * tile.cols + c for r, c in vs)  # noqa: E731
    return vectors.RegisterAccess(name, f(reg), f(lane), f(warp))


def brute_wavefronts(access, bases, tile, vector_bytes):
    """NVIDIA's contiguous rule written out: 32 lanes of 4 B, 16 of 8 B or 8 of 16 B (or narrower)
    per phase; a phase costs the most distinct 4-byte words in one of 32 banks; every warp, every
    register group, lanes in order. The vector's elements are those at consecutive physical offsets."""
    e = tile.elem_bytes
    layout = GeneralLinear(tuple(bases))
    size = 1 << len(bases)
    where = {layout.apply(x): x for x in range(size)}  # physical -> logical
    per_phase = {16: 8, 8: 16}.get(vector_bytes, 32)
    span = list(access.register)
    k = vector_bytes // e
    lanes = [gf2.apply(list(access.lane), i) for i in range(1 << len(access.lane))]
    total = 0
    seen_groups = []  # one instruction per group of registers whose vectors differ
    for w in range(1 << len(access.warp)):
        wx = gf2.apply(list(access.warp), w)
        done: set = set()
        for g in range(1 << len(span)):
            gx = wx ^ gf2.apply(span, g)
            start = layout.apply(gx) // k * k
            # the vector of lane 0 holding this register: skip registers already in a vector
            key = frozenset(where[start + i] ^ wx for i in range(k))
            if key in done:
                continue
            done.add(key)
            assert all(gf2.rank(span + [where[start + i] ^ wx]) == gf2.rank(span) for i in range(k))
            seen_groups.append(key)
            starts = [layout.apply(gx ^ x) // k * k for x in lanes]
            for p in range(0, len(starts), per_phase):
                words: dict[int, set] = {}
                for s in starts[p:p + per_phase]:
                    for b in range(s * e, s * e + vector_bytes, 4) if vector_bytes >= 4 else [s * e]:
                        words.setdefault(b // 4 % 32, set()).add(b // 4)
                total += max(len(v) for v in words.values())
    return total, len(seen_groups)


@pytest.mark.parametrize("path", TRITON, ids=[p.stem for p in TRITON])
def test_the_vectors_as_given_measure_what_the_plain_solve_measures(path):
    doc = json.loads(path.read_text())
    rows, cols = doc["out_dims"]["dim0"], doc["out_dims"]["dim1"]
    for e in (4, 2):
        problem = make_problem(rows, cols, [], elem_bytes=e, layout_files=[str(path)])
        tile, hw = problem.tile, problem.hardware
        access = vectors.read_access(path.read_text(), path.stem, tile, hw, str(path))
        answer = solve(problem).solution.answer.layout
        mine = vectors.moved(access, answer.bases(tile), tile, hw, vectors.given_vector(access, tile))
        theirs = measure_as_given(problem, answer).results[0]
        assert mine.wavefronts == theirs.total
        assert mine.vector_bytes == problem.patterns[0].vector_bytes


def test_a_transpose_is_conflict_free_in_wide_vectors_on_both_sides_where_possible():
    tile, hw = make_tile(16, 16, None, 4), target("nvidia")
    a = access_of("rowvec", tile, [(0, 1), (0, 2)], [(0, 4), (0, 8), (1, 0), (2, 0), (4, 0)], [(8, 0)])
    b = access_of("colvec", tile, [(1, 0), (2, 0)], [(4, 0), (8, 0), (0, 1), (0, 2), (0, 4)], [(0, 8)])
    auto = vectors.solve_auto([a, b], tile, hw, None)
    best = auto.answer
    assert best.wavefronts == sum(m.lower_bound for m in best.accesses)
    # no layout gives both sides 16-byte vectors (their registers share nothing): 2 + 8 instructions
    assert best.instructions == 10
    for m, acc in zip(best.accesses, (a, b)):
        assert (m.wavefronts, m.instructions) == brute_wavefronts(acc, best.layout.bases(tile), tile, m.vector_bytes)


def test_sub_word_offset_bits_are_not_bank_bits():
    """16 x 16 i8, 2-byte vectors: a layout whose lanes differ in offset bit 1 (inside one word) is
    2-way where a count of bits above the vector would call it conflict-free; the simulator, the
    brute force and the construction agree."""
    tile, hw = make_tile(16, 16, None, 1), target("nvidia")
    acc = access_of("pairs", tile, [(0, 1), (1, 0), (2, 0)], [(0, 2), (0, 4), (0, 8), (4, 0), (8, 0)], [])
    bases = [1 << i for i in range(8)]  # row-major: lane bit 0 -> offset bit 1, a sub-word bit
    m = vectors.moved(acc, bases, tile, hw)
    assert m.vector_bytes == 2
    assert (m.wavefronts, m.instructions) == brute_wavefronts(acc, bases, tile, 2)
    # the vector forms alone (the brute force counts vectors; with ldmatrix the answer is an
    # ldmatrix.x2.trans of 16-byte rows, at most as many wavefronts)
    plain_hw = replace(hw, instructions=hw.instructions - {"ldmatrix"})
    auto = vectors.solve_auto([acc], tile, plain_hw, None)
    assert auto.answer.wavefronts <= m.wavefronts
    best = auto.answer.accesses[0]
    assert not best.instruction.startswith("ldmatrix")
    assert (best.wavefronts, best.instructions) == brute_wavefronts(acc, auto.answer.layout.bases(tile), tile,
                                                                    best.vector_bytes)
    with_matrix = vectors.solve_auto([acc], tile, hw, None).answer
    assert (with_matrix.wavefronts, with_matrix.instructions) <= (auto.answer.wavefronts, auto.answer.instructions)


def random_access(draw, name, tile, n):
    """A random register layout over the whole tile: a random invertible map cut into register, lane
    and warp bases (5 lane bits, at most 3 register bits)."""
    images = draw(st.permutations(range(n)))
    mix = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=6))
    vecs = [1 << i for i in images]
    for i, j in mix:
        if i != j:
            vecs[i] ^= vecs[j]
    regs = draw(st.integers(0, min(3, n - 5)))
    to_rc = lambda x: (x // tile.cols, x % tile.cols)  # noqa: E731
    return access_of(name, tile, [to_rc(v) for v in vecs[:regs]], [to_rc(v) for v in vecs[regs:regs + 5]],
                     [to_rc(v) for v in vecs[regs + 5:]])


@settings(max_examples=30, deadline=None)
@given(st.data(), st.sampled_from([(16, 16), (8, 32), (32, 16)]), st.sampled_from([4, 2, 1]))
def test_auto_is_never_worse_than_the_vectors_as_given_and_the_brute_force_agrees(data, shape, e):
    tile, hw = make_tile(*shape, None, e), target("nvidia")
    n = (tile.size - 1).bit_length()
    accs = [random_access(data.draw, f"a{i}", tile, n) for i in range(2)]
    auto = vectors.solve_auto(accs, tile, hw, None)
    assert (auto.answer.wavefronts, auto.answer.instructions) <= (auto.given.wavefronts, auto.given.instructions)
    for m, acc in zip(auto.answer.accesses, accs):
        # no repeated lanes (no paired loads); ldmatrix forms: test_ldmatrix_where_the_lane_map_allows_it
        if gf2.rank(list(acc.lane)) == len(acc.lane) and not m.instruction.startswith("ldmatrix"):
            assert (m.wavefronts, m.instructions) == brute_wavefronts(acc, auto.answer.layout.bases(tile), tile,
                                                                      m.vector_bytes)


def run(*args):
    """The CLI in this process (tests/clirun.py): what it prints and exits with, as a process would."""
    return clirun.solve(*args)


def test_cli_json_and_bad_input(tmp_path):
    row = tmp_path / "rowvec.json"
    col = tmp_path / "colvec.json"
    row.write_text(json.dumps({"register": [[0, 1], [0, 2]], "lane": [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]],
                               "warp": [[8, 0]], "block": [], "out_dims": {"dim0": 16, "dim1": 16}}))
    col.write_text(json.dumps({"register": [[1, 0], [2, 0]], "lane": [[4, 0], [8, 0], [0, 1], [0, 2], [0, 4]],
                               "warp": [[0, 8]], "block": [], "out_dims": {"dim0": 16, "dim1": 16}}))
    got = run("--rows", "16", "--cols", "16", "--linear-layout", str(row), "--linear-layout", str(col),
              "--vectors", "auto", "--json")
    assert got.returncode == 0, got.stderr
    doc = json.loads(got.stdout)
    assert doc["vectors"] == "auto" and doc["status"] == "conflict-free"
    assert [m["vector_bytes"] for m in doc["answer"]["accesses"]] == [16, 4]
    assert [m["instruction"] for m in doc["answer"]["accesses"]] == ["ld.shared.v4.b32", "ld.shared.b32"]
    again = clirun.process("--rows", "16", "--cols", "16", "--linear-layout", str(row), "--linear-layout", str(col),
                           "--vectors", "auto", "--json")  # a fresh process: the same bytes
    assert again.stdout == got.stdout
    for bad in (["--access", "row"], ["--linear-layout", str(row), "--access", "row"],
                ["--linear-layout", str(row), "--vectors", "some"], ["--linear-layout", str(row), "--check", "none"]):
        args = ["--rows", "16", "--cols", "16", *bad] + (["--vectors", "auto"] if "--vectors" not in bad else [])
        got = run(*args)
        assert got.returncode == 2 and got.stdout == "" and len(got.stderr.strip().splitlines()) == 1, got.stderr
    got = run("--rows", "32", "--cols", "16", "--linear-layout", str(row), "--vectors", "auto")
    assert got.returncode == 2 and "whole tile" in got.stderr


@pytest.mark.parametrize("extra", [["--html", "page.html"], ["--explain"], ["--svg", "map.svg"]])
def test_outputs_it_does_not_make_are_refused_not_dropped(tmp_path, extra):
    """--html and --explain went unheeded under --vectors auto (exit 0, no page written, no sentences):
    refused as --show and --svg are, and nothing written."""
    got = clirun.solve("--rows", "32", "--cols", "64", "--access", "warp:4x8:1x4", "--vectors", "auto",
                       *[str(tmp_path / a) if a.endswith((".html", ".svg")) else a for a in extra])
    clirun.assert_input_error(got, "--vectors auto cannot go with", extra[0])
    assert list(tmp_path.iterdir()) == []


def test_the_document_validates_against_its_schema():
    from tests.test_schema import validate

    for dtype in ("f32", "i8"):
        got = run("--rows", "16", "--cols", "16", "--dtype", dtype, "--linear-layout",
                  "examples/blocked-16x16-rows-v16.json", "--linear-layout", "examples/blocked-16x16-cols-v16.json",
                  "--vectors", "auto", "--json", "--emit", "triton")
        assert got.returncode == 0, got.stderr
        validate(json.loads(got.stdout), "vectors-auto.schema.json")


@pytest.mark.parametrize("rows, cols, e, spec", [
    (32, 32, 4, "warp:4x8:1x4"), (32, 32, 4, "warp:32x1:1x4"), (64, 64, 2, "warp:8x4:2x8"), (32, 16, 2, "mma-c"),
    (32, 32, 4, "mma-c:m16n8"), (32, 64, 1, "warp:2x16:4x4v4"), (16, 64, 2, "warp:1x32:2x2")])
def test_warp_forms_read_as_register_layouts_measure_what_the_plain_solve_measures(rows, cols, e, spec):
    problem = make_problem(rows, cols, [spec], elem_bytes=e)
    tile, hw = problem.tile, problem.hardware
    access = vectors.warp_access(spec, tile, hw)
    for layout in (solve(problem).solution.answer.layout, GeneralLinear(tuple(1 << i for i in range(
            (tile.size - 1).bit_length())))):
        mine = vectors.moved(access, layout.bases(tile), tile, hw, vectors.given_vector(access, tile))
        assert mine.wavefronts == measure_as_given(problem, layout).results[0].total, layout.name
        assert mine.vector_bytes == problem.patterns[0].vector_bytes


def test_warp_forms_refused_in_one_line():
    tile, hw = make_tile(32, 32, None, 4), target("nvidia")
    for spec in ("warp:4x4:1x4", "warp:4x8:3x4", "row", "warp:4x8:1x4v32", "ldmatrix.x4"):
        with pytest.raises(ValueError):
            vectors.warp_access(spec, tile, hw)
    with pytest.raises(ValueError):
        vectors.warp_access("warp:4x8:4x8", make_tile(8, 32, None, 4), hw)  # a 16 x 64 footprint


def test_ldmatrix_where_the_lane_map_allows_it():
    """64 x 32 f16, blocked (8 elements a thread along rows) -> mma.m16n8k16's A operand: the
    operand side reads 16-byte rows by ldmatrix.x4 (its lanes 0, 1 and register pair along a row),
    conflict-free, in the fewest instructions 16-byte lanes allow; a layout that breaks the row (row-
    major storage keeps it; a transposed one does not) gets no ldmatrix."""
    tile, hw = make_tile(64, 32, None, 2), target("nvidia")
    src = access_of("blocked", tile, [(0, 1), (0, 2), (0, 4), (32, 0)], [(0, 8), (0, 16), (1, 0), (2, 0), (4, 0)],
                    [(8, 0), (16, 0)])
    mma = access_of("mma-a", tile, [(0, 1), (8, 0), (0, 8), (0, 16)], [(0, 2), (0, 4), (1, 0), (2, 0), (4, 0)],
                    [(16, 0), (32, 0)])
    auto = vectors.solve_auto([src, mma], tile, hw, None)
    m = auto.answer.accesses[1]
    # (a 16-byte vector of the register directions (0, 1), (0, 8), (0, 16) ties with ldmatrix.x4 here)
    assert m.instruction in ("ldmatrix.x4", "ld.shared.v4.b32")
    assert m.wavefronts == m.lower_bound == tile.size * 2 // 128
    assert m.instructions == tile.size * 2 // (32 * 16)
    row_major = [1 << i for i in range(11)]
    assert vectors.moved(mma, row_major, tile, hw).instruction == "ldmatrix.x4"
    transposed = [1 << ((i + 5) % 11) for i in range(11)]  # columns above rows
    assert not vectors.moved(mma, transposed, tile, hw).instruction.startswith("ldmatrix")


# --- stores (store: before the access; mma-c) -------------------------------------------------------


def test_a_conversion_stores_through_one_layout_and_loads_through_the_other(tmp_path):
    """16 x 16 f32, row vectors -> column vectors through shared memory: the stored side writes
    16-byte vectors (st.shared.v4.b32), the loaded side reads its column layout (ld.shared.b32), both
    at their least wavefronts; the same files unmarked are both loads, and store:/load: change no count
    here (no lane repeats an address)."""
    row = tmp_path / "rowvec.json"
    col = tmp_path / "colvec.json"
    row.write_text(json.dumps({"register": [[0, 1], [0, 2]], "lane": [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]],
                               "warp": [[8, 0]], "block": [], "out_dims": {"dim0": 16, "dim1": 16}}))
    col.write_text(json.dumps({"register": [[1, 0], [2, 0]], "lane": [[4, 0], [8, 0], [0, 1], [0, 2], [0, 4]],
                               "warp": [[0, 8]], "block": [], "out_dims": {"dim0": 16, "dim1": 16}}))
    base = ["--rows", "16", "--cols", "16", "--vectors", "auto", "--json"]
    got = run(*base, "--linear-layout", f"store:{row}", "--linear-layout", f"load:{col}")
    assert got.returncode == 0, got.stderr
    doc = json.loads(got.stdout)
    stored, loaded = doc["answer"]["accesses"]
    assert (stored["direction"], stored["instruction"]) == ("store", "st.shared.v4.b32")
    assert (loaded["direction"], loaded["instruction"]) == ("load", "ld.shared.b32")
    plain = json.loads(run(*base, "--linear-layout", str(row), "--linear-layout", str(col)).stdout)
    assert [m["direction"] for m in plain["answer"]["accesses"]] == ["load", "load"]
    assert plain["answer"]["accesses"][0]["instruction"] == "ld.shared.v4.b32"
    assert [m["wavefronts"] for m in plain["answer"]["accesses"]] == [stored["wavefronts"], loaded["wavefronts"]]
    from tests.test_schema import validate

    validate(doc, "vectors-auto.schema.json")
    text = run(*base[:-1], "--linear-layout", f"store:{row}", "--linear-layout", str(col)).stdout
    assert "(store): 16-byte vectors (st.shared.v4.b32)" in text


def test_stmatrix_where_the_lane_map_allows_it():
    """The mma.m16n8k16 A-operand register layout of test_ldmatrix_where_the_lane_map_allows_it,
    written out (an epilogue storing it, the blocked layout loading it back): the store side is
    stmatrix.x4 (the same lane map, mirrored), conflict-free; on a target without stmatrix it is a
    vector store."""
    tile, hw = make_tile(64, 32, None, 2), target("nvidia")
    src = access_of("blocked", tile, [(0, 1), (0, 2), (0, 4), (32, 0)], [(0, 8), (0, 16), (1, 0), (2, 0), (4, 0)],
                    [(8, 0), (16, 0)])
    mma = access_of("mma-a", tile, [(0, 1), (8, 0), (0, 8), (0, 16)], [(0, 2), (0, 4), (1, 0), (2, 0), (4, 0)],
                    [(16, 0), (32, 0)])
    mma = replace(mma, store=True)
    auto = vectors.solve_auto([mma, src], tile, hw, None)
    m = auto.answer.accesses[0]
    # (a 16-byte vector store of (0, 1), (0, 8), (0, 16) ties with stmatrix.x4: the same counts)
    assert (m.instruction, m.direction) in (("stmatrix.x4", "store"), ("st.shared.v4.b32", "store"))
    assert m.instructions == tile.size * 2 // (32 * 16)
    assert m.wavefronts == m.lower_bound == tile.size * 2 // 128
    row_major = [1 << i for i in range(11)]
    assert vectors.moved(mma, row_major, tile, hw).instruction == "stmatrix.x4"
    assert vectors.moved(replace(mma, store=False), row_major, tile, hw).instruction == "ldmatrix.x4"
    without = replace(hw, instructions=hw.instructions - {"stmatrix"})
    assert vectors.moved(mma, row_major, tile, without).instruction.startswith("st.shared")


def unpaired_wavefronts(starts_by_request, vector_bytes, elem_bytes, per_phase):
    """Every request's lanes in phases of ``per_phase`` consecutive lanes; a phase costs the most
    distinct 4-byte words in one of 32 banks (DESIGN.md section 1), written out here."""
    total = 0
    for starts in starts_by_request:
        for p in range(0, len(starts), per_phase):
            words: dict[int, set] = {}
            for s in starts[p:p + per_phase]:
                for b in range(s * elem_bytes, s * elem_bytes + vector_bytes, 4):
                    words.setdefault(b // 4 % 32, set()).add(b // 4)
            total += max(len(v) for v in words.values())
    return total


def test_a_repeated_address_costs_a_load_less_than_a_store():
    """Lane bit 0 broadcast (lanes n and n ^ 1 move the same 16-byte vector): a load is paired (its
    phases merged two by two: 16 lanes, 8 distinct vectors, 128 bytes a wavefront), a store is not (8
    lanes a phase, 4 distinct vectors, 64 bytes, still a wavefront each): the store takes twice the
    load's wavefronts, counted here without the simulator."""
    tile, hw = make_tile(16, 16, None, 4), target("nvidia")
    load = access_of("broadcast", tile, [(0, 1), (0, 2)], [(0, 0), (0, 4), (0, 8), (1, 0), (2, 0)], [(4, 0), (8, 0)])
    store = replace(load, store=True)
    row_major = [1 << i for i in range(8)]
    got_load = vectors.moved(load, row_major, tile, hw)
    got_store = vectors.moved(store, row_major, tile, hw)
    assert got_load.vector_bytes == got_store.vector_bytes == 16
    assert (got_load.instruction, got_store.instruction) == ("ld.shared.v4.b32", "st.shared.v4.b32")
    # each warp's one request: lane l at row (l >> 3 & 3) + warp rows, column 4 * (l >> 1 & 3)
    requests = [[(w * 4 + (lane >> 3 & 3)) * 16 + 4 * (lane >> 1 & 3) for lane in range(32)] for w in range(4)]
    assert got_load.wavefronts == unpaired_wavefronts(requests, 16, 4, 16) == 8
    assert got_store.wavefronts == unpaired_wavefronts(requests, 16, 4, 8) == 16
    assert got_load.wavefronts < got_store.wavefronts


def test_mma_c_is_a_store_unless_said():
    tile, hw = make_tile(32, 32, None, 4), target("nvidia")
    assert vectors.warp_access("mma-c", tile, hw).store
    assert not vectors.warp_access("mma-c", tile, hw, store=False).store
    assert not vectors.warp_access("warp:4x8:1x4", tile, hw).store
    assert vectors.warp_access("warp:4x8:1x4", tile, hw, store=True).store


def test_directions_spelled_wrong_are_refused_in_one_line(tmp_path):
    row = ROOT / "examples" / "blocked-16x16-rows-v16.json"
    for bad in (["--linear-layout", f"stroe:{row}", "--vectors", "auto"],
                ["--access", "stroe:warp:4x8:1x4", "--vectors", "auto"],
                ["--access", "store:load:warp:4x8:1x4", "--vectors", "auto"],
                ["--access", "store:load:warp:4x8:1x4"]):
        got = run("--rows", "16", "--cols", "16", "--dtype", "f32", *bad)
        assert got.returncode == 2 and got.stdout == "" and len(got.stderr.strip().splitlines()) == 1, (bad, got.stderr)
    for good in (["--access", "store:warp:8x4:1x4"], ["--linear-layout", f"store:{row}"]):  # the plain solve too
        got = run("--rows", "16", "--cols", "16", "--dtype", "f32", "-q", *good)
        assert got.returncode == 0 and got.stderr == "", (good, got.stderr)


def test_amd_stores_are_ds_write():
    tile, hw = make_tile(16, 16, None, 4), target("cdna3")
    store = access_of("rows", tile, [(0, 1), (0, 2)], [(0, 4), (0, 8), (1, 0), (2, 0), (4, 0), (8, 0)], [])
    store = replace(store, store=True)
    got = vectors.moved(store, [1 << i for i in range(8)], tile, hw)
    assert (got.instruction, got.direction) == ("ds_write_b128", "store")
    assert vectors.moved(replace(store, store=False), [1 << i for i in range(8)], tile, hw).instruction == "ds_read_b128"
    assert [vectors.instruction_name(hw, v, True) for v in (1, 2, 8)] == ["ds_write_b8", "ds_write_b16", "ds_write_b64"]


# Triton 3.9's own layouts of bench/triton_pairs.py, written out as (register, lane, warp) bases in
# (row, column) steps: (name, rows, cols, elem_bytes, store side, load side).
MATRIX_PAIRS = [
    ("32x64 i8 mma v2->blocked", 32, 64, 1,
     (((0, 1), (8, 0), (0, 16), (0, 32)), ((0, 2), (0, 4), (1, 0), (2, 0), (4, 0)), ((0, 8), (16, 0))),
     (((0, 1), (0, 2), (0, 4), (0, 8)), ((0, 16), (0, 32), (1, 0), (2, 0), (4, 0)), ((8, 0), (16, 0)))),
    ("16x64 i8 blocked->mma v2", 16, 64, 1,
     (((0, 1), (0, 2), (0, 4)), ((0, 8), (0, 16), (0, 32), (1, 0), (2, 0)), ((4, 0), (8, 0))),
     (((0, 1), (8, 0), (0, 32)), ((0, 2), (0, 4), (1, 0), (2, 0), (4, 0)), ((0, 8), (0, 16)))),
    ("64x64 f16 mma v2->dot A kw2", 64, 64, 2,
     (((0, 1), (8, 0), (0, 8), (0, 16), (0, 32)), ((0, 2), (0, 4), (1, 0), (2, 0), (4, 0)), ((16, 0), (32, 0))),
     (((0, 1), (8, 0), (0, 8), (0, 16), (0, 32)), ((0, 2), (0, 4), (1, 0), (2, 0), (4, 0)), ((16, 0), (32, 0)))),
    ("32x64 f16 blocked->dot B kw2", 32, 64, 2,
     (((0, 1), (0, 2), (0, 4), (16, 0)), ((0, 8), (0, 16), (0, 32), (1, 0), (2, 0)), ((4, 0), (8, 0))),
     (((1, 0), (8, 0), (16, 0), (0, 32)), ((2, 0), (4, 0), (0, 1), (0, 2), (0, 4)), ((0, 8), (0, 16)))),
    ("64x32 f32 blocked->dot A kw1", 64, 32, 4,
     (((0, 1), (0, 2), (0, 16), (32, 0)), ((0, 4), (0, 8), (1, 0), (2, 0), (4, 0)), ((8, 0), (16, 0))),
     (((8, 0), (0, 4), (0, 8), (0, 16)), ((0, 1), (0, 2), (1, 0), (2, 0), (4, 0)), ((16, 0), (32, 0)))),
]


def _matrix_answer(name, rows, cols, e, src, dst):
    tile, hw = make_tile(rows, cols, None, e), target("nvidia")
    accs = [access_of("src", tile, *src), access_of("dst", tile, *dst)]
    accs[0] = replace(accs[0], store=True)
    auto = vectors.solve_auto(accs, tile, hw, None)
    doc = {"answer": {"offset_bases": auto.answer.layout.bases(tile), "rounds": auto.rounds.json(e) if auto.rounds
                      else {"rounds": 1, "buffer_bytes": rows * cols * e, "offset_bits": []},
                      "accesses": [m.json() for m in auto.answer.accesses]}}
    return auto, doc


@pytest.mark.parametrize("pair", MATRIX_PAIRS, ids=[p[0] for p in MATRIX_PAIRS])
def test_every_vector_and_matrix_is_the_lanes_own_registers(pair):
    """Issue 35 item 1's register order: no answer needs a shuffle. A vector is a run of one lane's
    own registers (vector_bits: its preimages in the register span; the order of a lane's registers
    is only their names), and an ldmatrix/stmatrix form fixes which lane holds which element (the
    PTX ISA's fragment: lane l the 32-bit word l % 4 of row l / 4; .trans the 16-bit units of rows
    2 (l % 4) and + 1 at unit column l / 4). tests/lane_counter.py, written from those rules and not
    from vectors.py, recounts each answer from the operand layouts as they are (each lane's elements
    from its own bases) and asserts every vector whole in the lane and every matrix element where
    the fragment puts it: its counts equal the answer's, so nothing crosses lanes."""
    sys.path.insert(0, str(ROOT / "tests"))
    from lane_counter import recount

    name, rows, cols, e, src, dst = pair
    auto, doc = _matrix_answer(*pair)
    assert any(m.instruction.startswith(("ldmatrix", "stmatrix")) for m in auto.answer.accesses)
    assert recount(doc, [src, dst], rows, cols, e) == [(m.wavefronts, m.instructions) for m in auto.answer.accesses]


@pytest.mark.parametrize("pair", MATRIX_PAIRS[:3], ids=[p[0] for p in MATRIX_PAIRS[:3]])
def test_the_lane_counter_refuses_a_matrix_whose_lanes_are_not_the_fragments(pair):
    """The counter above can fail: the same answer recounted with two lane bases of its matrix side
    exchanged where the fragment fixes them (non-transposed: lanes 0 and 1, the word in the row;
    .trans: lanes 2 and 3, the unit column) holds the same elements in other lanes, which would need
    shuffles: refused as not ldmatrix's lane map. Exchanged where they only choose which lane gives
    which row's address (non-transposed: lanes 2 and 3; .trans: lanes 0 and 1; the row addresses are
    the lanes' own), the counts are the same."""
    sys.path.insert(0, str(ROOT / "tests"))
    from lane_counter import recount

    name, rows, cols, e, src, dst = pair
    auto, doc = _matrix_answer(*pair)
    side = next(k for k, m in enumerate(auto.answer.accesses) if m.instruction.startswith(("ldmatrix", "stmatrix")))
    trans = ".trans" in auto.answer.accesses[side].instruction
    counts = [(m.wavefronts, m.instructions) for m in auto.answer.accesses]

    def swapped(i, j):
        bases = [list(src), list(dst)]
        lane = list(bases[side][1])
        lane[i], lane[j] = lane[j], lane[i]
        bases[side][1] = tuple(lane)
        return [tuple(b) for b in bases]

    fixed, free = ((2, 3), (0, 1)) if trans else ((0, 1), (2, 3))
    with pytest.raises(AssertionError, match="lane map"):
        recount(doc, swapped(*fixed), rows, cols, e)
    assert recount(doc, swapped(*free), rows, cols, e) == counts
