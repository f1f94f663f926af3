"""--vectors auto's search over vector chains (vector_search.py) against exhaustive enumeration.

The enumerator here is written from the bank model, not from general.py: a layout's counts depend
only on the preimages of the offset bits below ``top`` (the bits that choose a byte inside one
wavefront's banks; bits above choose only the word's row in its bank, and two different elements
never share an offset); of those, the low J are the widest vector (ordered: they decide each access's
vector and an ldmatrix row), the next up to the unit are the positions inside a bank word (ordered),
and the rest, the slot bits, count only through the kernel of the map onto them: any invertible
change of the slot bits relabels the banks, which changes no count. So every layout is measured,
up to relabelled banks, by enumerating (vector chain, sub-unit preimages, slot kernel), each built
into a layout and measured by the tool's own measurement (vectors.measure_choice, the simulator).
The answer must be no worse (wavefronts, then instructions) than every one of them; where the search
says it is complete that is its claim, and where it is the least it must be found.
"""
from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swizzle_solver import gf2, vector_search, vectors
from swizzle_solver.access import make_tile
from swizzle_solver.families.general_linear import of_columns
from swizzle_solver.hardware import target
from swizzle_solver.model import log2


def span(vectors_: list[int]) -> list[int]:
    out = [0]
    for v in vectors_:
        out += [x ^ v for x in out]
    return out


def ordered(pool: list[int], k: int, base: list[int]) -> list[list[int]]:
    """Every ordered list of k vectors of ``pool`` independent of each other and of ``base``."""
    if k == 0:
        return [[]]
    out = []
    for x in pool:
        if gf2.rank(base + [x]) > gf2.rank(base):
            out += [[x] + rest for rest in ordered(pool, k - 1, base + [x])]
    return out


def reduced_pool(n: int, base: list[int]) -> list[int]:
    """One representative of each nonzero coset of span(base) in the n-bit space."""
    seen, out = set(), []
    for x in range(1, 1 << n):
        if gf2.rank(base + [x]) == gf2.rank(base):
            continue
        key = min(x ^ y for y in span(base))
        if key not in seen:
            seen.add(key)
            out.append(x)
    return out


def chains(accesses, tile, hardware) -> list[list[int]]:
    """Every ordered vector a layout can give its accesses: each preimage in the registers of an
    access whose registers hold every preimage before it (up to 16 bytes), and each access's
    ldmatrix rows (register bits inside a 32-bit word then lane bits 0, 1; .trans: inside a 16-bit
    unit, then lane bits 2 to 4), written from the PTX description, not from vectors.py."""
    e = tile.elem_bytes
    most = log2(16 // e)
    out = [[]]
    frontier = [[]]
    for _ in range(most):
        grown = []
        for c in frontier:
            for a in accesses:
                regs = list(a.register)
                if gf2.rank(regs + c) != gf2.rank(regs):
                    continue
                for x in span(regs)[1:]:
                    if gf2.rank(c + [x]) > len(c) and c + [x] not in grown:
                        grown.append(c + [x])
        out += grown
        frontier = grown
    for a in accesses:
        if len(a.lane) != 5 or e not in (1, 2, 4):
            continue
        regs = [r for r in a.register if r]
        heads = [(log2(4 // e), list(a.lane[0:2]))] + ([(log2(2 // e), list(a.lane[2:5]))] if e <= 2 else [])
        for k, tail in heads:
            for h in ordered(span(regs)[1:], k, []):
                if gf2.rank(h + tail) == len(h) + len(tail) and h + tail not in out:
                    out.append(h + tail)
    return out


def every_layout(accesses, tile, hardware):
    """Every layout up to relabelled banks (the module's argument), as offset bases."""
    e, n = tile.elem_bytes, log2(tile.size)
    top = log2(hardware.banks * hardware.bank_bytes // e)
    for chain in chains(accesses, tile, hardware):
        u = hardware.geometry(e, e << len(chain)).unit_shift
        for z in ordered(reduced_pool(n, chain), u - len(chain), chain):
            base = chain + z
            rest = [x for x in (1 << i for i in range(n)) if gf2.rank(base + [x]) > gf2.rank(base)]
            quotient = []
            for x in rest:
                if gf2.rank(base + quotient + [x]) > len(base) + len(quotient):
                    quotient.append(x)
            kdim = n - max(top, len(base))
            for kern in vector_search.subspaces(quotient, kdim):
                slots = [x for x in quotient if gf2.rank(base + kern + [x]) > len(base) + len(kern)]
                cols = base + _independent_mod(slots, base + kern) + kern
                yield of_columns(cols)


def _independent_mod(vs, base):
    out = []
    for v in vs:
        if gf2.rank(base + out + [v]) > len(base) + len(out):
            out.append(v)
    return out


def best_by_enumeration(accesses, tile, hardware):
    best = None
    for layout in every_layout(accesses, tile, hardware):
        c = vectors.measure_choice(layout, accesses, tile, hardware, "enumerated")
        if c is not None and (best is None or (c.wavefronts, c.instructions) < best[0]):
            best = ((c.wavefronts, c.instructions), layout)
    return best


def access_of(name, tile, reg, lane, warp, store=False):
    return vectors.RegisterAccess(name, tuple(reg), tuple(lane), tuple(warp), store=store)


def check(accesses, tile, hardware):
    auto = vectors.solve_auto(accesses, tile, hardware, None)
    found = best_by_enumeration(accesses, tile, hardware)
    assert found is not None
    mine = (auto.answer.wavefronts, auto.answer.instructions)
    assert mine <= found[0], (mine, found, auto.answer.how)
    if auto.kernel_complete:
        assert mine == found[0]  # complete: nothing enumerated is better, and the least is found
    return auto, found


def test_a_store_and_a_load_of_different_widths_against_every_layout():
    """8 x 8 f32, 32 lanes: a store whose registers run along a row, a load whose register runs
    down a column; every layout up to relabelled banks."""
    tile, hw = make_tile(8, 8, None, 4), target("nvidia")
    src = access_of("src", tile, [1], [2, 4, 8, 16, 32], [], store=True)
    dst = access_of("dst", tile, [8], [1, 2, 4, 16, 32], [])
    auto, found = check([src, dst], tile, hw)
    assert auto.kernel_complete


def test_the_pair_the_prefix_candidates_missed():
    """bench/linear_pairs.py seed 1 random 5 (64 x 64 f16): before the chain search the answer was
    128 wavefronts in 64 instructions (8-byte vectors both sides), complete per construction; a
    16-byte vector on one side over an 8-byte one on the other takes 48 (the third vector bit a sum of
    two register bases)."""
    tile, hw = make_tile(64, 64, None, 2), target("nvidia")
    src = access_of("src", tile, (128, 8, 32, 1, 1024), (16, 64, 2, 2048, 512), (256, 4), store=True)
    dst = access_of("dst", tile, (512, 32, 8, 64, 256), (4, 2048, 16, 1024, 128), (1, 2))
    auto = vectors.solve_auto([src, dst], tile, hw, None)
    assert (auto.answer.wavefronts, auto.answer.instructions) == (128, 48)
    assert sorted(m.vector_bytes for m in auto.answer.accesses) == [8, 16]  # one side 16 bytes, the other 8
    assert auto.kernel_complete


def test_a_chain_cap_says_not_complete():
    tile, hw = make_tile(64, 64, None, 2), target("nvidia")
    src = access_of("src", tile, (128, 8, 32, 1, 1024), (16, 64, 2, 2048, 512), (256, 4), store=True)
    dst = access_of("dst", tile, (512, 32, 8, 64, 256), (4, 2048, 16, 1024, 128), (1, 2))
    auto = vectors.solve_auto([src, dst], tile, hw, None, max_chains=1)
    assert not auto.kernel_complete and "vector chains" in auto.why_not


def test_the_width_floor_holds_for_every_enumerated_layout():
    """vector_search.floor: every layout's measured wavefronts are at least the sum of its accesses'
    floors at the widths it gives them."""
    tile, hw = make_tile(8, 8, None, 4), target("nvidia")
    accs = [access_of("src", tile, [1], [2, 4, 8, 16, 32], [], store=True),
            access_of("dst", tile, [8], [1, 2, 4, 16, 32], [])]
    sides = vectors.search_sides(accs, tile, hw)
    for layout in itertools.islice(every_layout(accs, tile, hw), 0, None, 7):
        c = vectors.measure_choice(layout, accs, tile, hw, "enumerated")
        for m, side in zip(c.accesses, sides):
            if m.instruction.startswith(("ldmatrix", "stmatrix")):
                continue
            j = log2(m.vector_bytes // tile.elem_bytes)
            assert m.wavefronts >= vector_search.floor(side, j, 4, hw.bank_bytes, hw.banks)
            assert m.instructions == vector_search.instructions(side, j)


def test_both_sides_as_matrices_against_every_layout():
    """4 x 16 f16, a store and a load with the same lanes and different registers (the store's a
    row step, the load's a column step): both .trans rows are the lanes 2 to 4, so one row is an
    stmatrix.x1.trans of the store and an ldmatrix.x1.trans of the load, 2 wavefronts in 2
    instructions. The width floors alone (each side's other access bounded as vectors) put every
    matrix group at 3 and stopped at the plain 3/3, claiming complete; the exhaustive enumeration
    (ldmatrix rows included, written from the PTX description) finds 2/2."""
    tile, hw = make_tile(4, 16, None, 2), target("nvidia")
    lanes = [8, 16, 2, 2 * 16 + 12, 1]  # (0, 8), (1, 0), (0, 2), (2, 12), (0, 1)
    src = access_of("src", tile, [2 * 16], lanes, [], store=True)
    dst = access_of("dst", tile, [4], lanes, [])
    auto, found = check([src, dst], tile, hw)
    assert found[0] == (2, 2) and auto.kernel_complete
    assert [m.instruction for m in auto.answer.accesses] == ["stmatrix.x1.trans", "ldmatrix.x1.trans"]


def test_the_matrix_floor_holds_for_every_enumerated_layout():
    """vectors.matrix_floor: an access moved as ldmatrix/stmatrix in any enumerated layout of the
    4 x 16 f16 pair takes at least its matrices' wavefronts and its .xN's instructions; and where
    both accesses are matrices, their rows could be shared (vectors.could_share says so)."""
    tile, hw = make_tile(4, 16, None, 2), target("nvidia")
    lanes = [8, 16, 2, 2 * 16 + 12, 1]
    accs = [access_of("src", tile, [2 * 16], lanes, [], store=True), access_of("dst", tile, [4], lanes, [])]
    sides = vectors.search_sides(accs, tile, hw)
    both = 0
    for layout in every_layout(accs, tile, hw):
        c = vectors.measure_choice(layout, accs, tile, hw, "enumerated")
        kinds = []
        for a, m, side in zip(accs, c.accesses, sides):
            forms = vectors.matrix_forms(a, vectors.preimages_of(layout.bases(tile)), tile, hw)
            if m.instruction.startswith(("ldmatrix", "stmatrix")):
                assert (m.wavefronts, m.instructions) >= vectors.matrix_floor(side, tile)
                kinds.append(forms[0][0])
        if len(kinds) == 2:
            both += 1
            patterns = [dict(vectors.row_patterns(a, s, tile, hw))[k] for a, s, k in zip(accs, sides, kinds)]
            assert vectors.could_share(patterns[0], sides[0].regs, patterns[1], sides[1].regs)
    assert both  # (the case the floor is for occurs)


@st.composite
def small_pair(draw):
    """A random pair on a 128-element tile (7 index bits, 32 lanes, 2 register bits) of 4-, 2- or
    1-byte data, or a 64-element one of 2-byte data (1 register bit: the least an ldmatrix of it
    needs); the load's lanes all, some or none of the store's (a conversion whose two sides share
    lanes can move one ldmatrix/stmatrix row on both sides)."""
    e, n = draw(st.sampled_from([(4, 7), (2, 7), (2, 6), (1, 7)]))
    rows = draw(st.sampled_from([8, 16] if n == 7 else [4, 8]))
    tile = make_tile(rows, (1 << n) // rows, None, e)
    r = n - 5  # register bits

    def mixed():
        images = draw(st.permutations(range(n)))
        vecs = [1 << i for i in images]
        for i, j in draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3)):
            if i != j:
                vecs[i] ^= vecs[j]
        return vecs

    src = mixed()
    vecs = mixed()
    share = draw(st.sampled_from(["none", "all", "low", "high"]))
    lanes = {"none": vecs[r:], "all": src[r:], "low": src[r:r + 2] + vecs[r + 2:],
             "high": vecs[r:r + 2] + src[r + 2:]}[share]
    regs = []
    for x in vecs:  # registers that complete the shared lanes to every index bit
        if gf2.rank(lanes + regs + [x]) > len(lanes) + len(regs):
            regs.append(x)
    if gf2.rank(lanes) < 5:  # the shared lanes do not fit with these: none shared
        lanes, regs = vecs[r:], vecs[:r]
    return tile, [access_of("src", tile, src[:r], src[r:], [], store=True),
                  access_of("dst", tile, regs[:r], lanes, [])]


@pytest.mark.slow
@settings(max_examples=5, deadline=None)
@given(small_pair())
def test_never_worse_than_exhaustive_enumeration(pair):
    tile, accs = pair
    check(accs, tile, target("nvidia"))


# --- rounds (rounds.py) ------------------------------------------------------------------------------


def compress(offset: int, bits) -> int:
    """The offset with ``bits`` removed (the bits above each move down)."""
    for b in sorted(bits, reverse=True):
        offset = (offset & ((1 << b) - 1)) | ((offset >> (b + 1)) << b)
    return offset


def test_a_transpose_in_rounds_through_a_quarter_buffer():
    """128 x 128 f32, blocked rows -> blocked columns (16-byte vectors both sides): the answer moves
    the tile in 4 rounds through a 16 KiB buffer. Checked element by element here: each instruction
    (warp, register group) of each access lies in one round, each round fills the buffer exactly
    once, and the wavefronts counted on the buffer's addresses (NVIDIA's rule written out: 8 lanes of
    16 bytes a phase, the most distinct words in one of 32 banks) are the answer's."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    from linear_pairs import access, blocked

    tile, hw = make_tile(128, 128, None, 4), target("nvidia")
    accs = [access("src", 128, 128, *blocked(128, 128, 4, (4, 8)), store=True),
            access("dst", 128, 128, *blocked(128, 128, 4, (4, 8), False))]
    auto = vectors.solve_auto(accs, tile, hw, None)
    r = auto.rounds
    assert (r.rounds, r.buffer_elements, r.barriers) == (4, 4096, 7)
    assert r.json(4) == {"rounds": 4, "buffer_bytes": 16384, "barriers": 7, "offset_bits": list(r.bits)}
    bases = auto.answer.layout.bases(tile)
    where = lambda x: gf2.apply(bases, x)  # noqa: E731
    filled = [set() for _ in range(r.rounds)]
    for a, m in zip(accs, auto.answer.accesses):
        assert m.vector_bytes == 16
        k = 4  # elements a vector
        total = 0
        for w in span(list(a.warp)):
            for g in span(list(a.register)):
                # every register of the lane, each as the vector that holds it (a vector: 4 registers)
                starts = [where(w ^ g ^ x) for x in span(list(a.lane))]
                rounds_here = {tuple(s >> b & 1 for b in r.bits) for s in starts}
                assert len(rounds_here) == 1  # one instruction, one round
                (rnd,) = rounds_here
                number = sum(bit << i for i, bit in enumerate(rnd))
                buffer = [compress(s // k * k, r.bits) for s in starts]
                filled[number].update(b + i for b in buffer for i in range(k))
                for p in range(0, len(buffer), 8):
                    words: dict[int, set] = {}
                    for b in buffer[p:p + 8]:
                        for byte in range(b * 4, b * 4 + 16, 4):
                            words.setdefault(byte // 4 % 32, set()).add(byte // 4)
                    total += max(len(v) for v in words.values())
        # each instruction was counted once for each of its vector's 4 registers
        assert total == 4 * m.wavefronts
    assert all(cells == set(range(r.buffer_elements)) for cells in filled)


def test_ldmatrix_rounds_leave_the_kernel_its_matrices():
    """128 x 128 f16, blocked rows -> blocked columns: stored as 16-byte vectors, read by
    ldmatrix.x4.trans. Which 4 matrices one x4 reads is the kernel's choice (the counts do not
    change), so the round bits need not stay clear of the answer's first matrix registers: 4 rounds
    through 8 KiB, as Triton 3.9 compiles it (before: one round, 32 KiB). The per-lane counter of
    tests/lane_counter.py (NVIDIA's rules, not the simulator) recounts the answer and checks every
    vector and matrix in one round, and in each warp each round a whole number of x4's."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    from lane_counter import recount
    from linear_pairs import access, blocked

    tile, hw = make_tile(128, 128, None, 2), target("nvidia")
    src, dst = blocked(128, 128, 8, (8, 4)), blocked(128, 128, 8, (8, 4), False)
    accs = [access("src", 128, 128, *src, store=True), access("dst", 128, 128, *dst)]
    auto = vectors.solve_auto(accs, tile, hw, None)
    assert [m.instruction for m in auto.answer.accesses] == ["st.shared.v4.b32", "ldmatrix.x4.trans"]
    assert (auto.rounds.rounds, auto.rounds.buffer_elements * 2) == (4, 8192)
    doc = {"answer": {"offset_bases": auto.answer.layout.bases(tile), "rounds": auto.rounds.json(2),
                      "accesses": [m.json() for m in auto.answer.accesses]}}
    assert recount(doc, [src, dst], 128, 128, 2) == [(m.wavefronts, m.instructions) for m in auto.answer.accesses]


def test_a_matrix_form_below_the_vector_floor_is_found_or_the_search_is_not_complete():
    """bench/triton_pairs.py's "32x64 i8 mma v2->blocked" (Triton 3.9's own layouts, written out):
    from the plain solve's answer (48 wavefronts, 36 instructions) the search once built no chain and
    said complete, yet stmatrix.x4.trans -> ldmatrix.x4.trans moves the tile in 32/8 (found when the
    search starts from row-major storage): the width floors bound the store as vectors (2-byte, 16
    wavefronts at least), but the same row is the store's own .trans form (one wavefront a matrix).
    Either the answer is that, or it must not claim complete; it is found now."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    from linear_pairs import _problem, access

    from swizzle_solver.solving import solve

    src = (((0, 1), (8, 0), (0, 16), (0, 32)), ((0, 2), (0, 4), (1, 0), (2, 0), (4, 0)), ((0, 8), (16, 0)))
    dst = (((0, 1), (0, 2), (0, 4), (0, 8)), ((0, 16), (0, 32), (1, 0), (2, 0), (4, 0)), ((8, 0), (16, 0)))
    tile, hw = make_tile(32, 64, None, 1), target("nvidia")
    accs = [access("src", 32, 64, *src, store=True), access("dst", 32, 64, *dst)]
    exists = vectors.solve_auto(accs, tile, hw, None).answer
    assert (exists.wavefronts, exists.instructions) == (32, 8)
    plain = solve(_problem(accs, tile, hw), table=False).answer.layout
    auto = vectors.solve_auto(accs, tile, hw, plain)
    assert (auto.answer.wavefronts, auto.answer.instructions) == (32, 8) or not auto.kernel_complete
    assert (auto.answer.wavefronts, auto.answer.instructions) == (32, 8) and auto.kernel_complete
    assert [m.instruction for m in auto.answer.accesses] == ["stmatrix.x4.trans", "ldmatrix.x4.trans"]


def test_independent_mod_is_a_basis_of_the_span_modulo_the_base():
    """vector_search.independent_mod (the one complement of the search, vectors.py's register
    groups and matrix rows): the vectors kept, with the base, are independent and span every vector
    given; the first vector that adds to the span is kept, in order. Random inputs against ranks."""
    import random

    independent, independent_mod = vector_search.independent, vector_search.independent_mod
    rng = random.Random(7)
    for _ in range(300):
        base = [rng.randrange(1 << 8) for _ in range(rng.randrange(4))]  # zeros and repeats included
        vectors = [rng.randrange(1 << 8) for _ in range(rng.randrange(7))]
        kept = independent_mod(vectors, base)
        assert gf2.rank(base + kept) == gf2.rank(base) + len(kept) == gf2.rank(base + vectors)
        greedy = [v for i, v in enumerate(vectors)
                  if gf2.rank(base + vectors[:i + 1]) > gf2.rank(base + vectors[:i])]
        assert kept == greedy and independent(vectors) == independent_mod(vectors, [])
