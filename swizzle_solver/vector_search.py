"""`--vectors auto`'s search over the vector choices of every access (issue 35 item 2), and the floor
that makes it complete when the accesses' vector widths differ.

A general-linear layout L (an invertible map of the tile's index bits onto its offset bits) is read
by each access through its *vector*: the longest run of low offset bits whose preimages
p_0, p_1, ... lie in the span R_a of the access's registers (at most 16 bytes, at most its cap).
So one layout gives access a the width j_a, and the accesses' vectors are nested: the narrower
one's vector W_{j_a} = span(p_0 .. p_{j_a - 1}) lies inside the wider's. The search covers every
layout by its *vector chain*, the subspaces W_b at the breakpoints b (each access's width j_a, the
unit of its width, and the widest width J), with W_b inside R_a for every access at least b wide.

**What the chain decides.** With W = W_J fixed, general.kernel_search's minimum over the slot
bits' kernel K is the least total wavefronts of every layout whose low J preimages span that chain
(general.py's rank proof: a phase of access a costs 2^dim(V ∩ K) over its directions V above its
unit, reduced mod W; the directions that move the wider vector's bits above a's unit are in other
slots already, vectors.phase_spaces). That cost depends only on the chain's subspaces, not on the
order of the preimages inside them (a direction's part in W is unique: the coset representative
with no bit at W's pivots; its part inside W_{u_a} decides), so one ordering per chain is built:
after W_{j_a}, first a vector outside R_a, so that a's width is exactly j_a. It is a floor over
the family (complete) only when kernel_search completes and no offset bit lies below the widest
vector's unit and above its vector (``sub_unit`` 0: then every bank bit is a slot bit above W).

**The floor of a width tuple, before any chain.** Access a at width j (v = e 2^j bytes) issues
I_a(j) = requests * 2^(rank R_a - j) instructions. Each instruction's lanes read distinct vectors
(disjoint v-byte chunks) for lanes whose index differences leave W_j, and W_j lies in R_a, so an
instruction touches at least D = 2^(rank(lanes + R_a) - rank R_a) distinct vectors, hence at least
ceil(D v / bank_bytes) distinct bank words, and the simulator's count of any split into phases
(the most distinct words in one bank, summed over phases) is at least ceil(words / banks):

    F_a(j) = I_a(j) * ceil(ceil(D v / bank_bytes) / banks)

holds for every layout that gives a the width j, whatever the other accesses' widths; the tuple's
floor is the sum. Width tuples are taken in order of (floor, instructions); a tuple whose floor key
is not below the best found so far cannot hold a better layout and is skipped whole.

**ldmatrix/stmatrix forms.** The measurement (vectors.moved) takes an access's ldmatrix/stmatrix
form wherever the layout allows one and it is cheaper, whatever its width, so F_a(j) bounds only the
layouts in which a is not such a form. A form fixes the layout's 16-byte *row*, the preimages of the
row's log2(16/e) offset bits, to a pattern (vectors.row_patterns): non-transposed, log2(4/e)
register directions of a, then lane bases 0 and 1 of a; .trans, log2(2/e) register directions,
then lane bases 2 to 4. Every layout lies in one of two kinds of item, each under a floor that holds
for it:

- no access has a form: the width tuple of its widths, F as above;
- access a has a form: a's *matrix group* of that pattern and of the widths its row gives every
  other access b (the row's head, register directions, decides them: b's width is the row's
  longest prefix in R_b, and a row is at most the widest vector, 16 bytes). Its chains are every
  such row (one per flag of the head's subspaces, then the kernel search). Its floor: for a,
  M_a = requests 2^(rank R_a - log2(4/e)) matrices, each one phase, at least one wavefront (a
  vector form, if cheaper, is at least the same bytes over a wavefront: F_a(j) >= M_a whenever
  the lanes are independent of the registers, and the lesser of the two is taken otherwise); and
  for b, F_b(j_b), unless the same row could also be one of b's own forms at width j_b: then
  min(F_b(j_b), M_b), and the lesser instructions. The row could be both only where both patterns
  fix the same lane basis at each offset bit they both fix, and where one wants a register
  direction the other's lane basis lies in those registers (vectors.could_share: a necessary
  condition, so the floor stays sound where it is loose).

Taking min(F_a(j), M_a) for every access at every width is sound too, but no longer tight: every
tuple's floor falls to the bytes over a wavefront, and on tests/test_vector_search.py's 64x64 f16
pair the search stops at its chain cap at 192/80, not complete (the answer is 128/48). The groups
lower a floor only where two accesses can share a row, as the two sides of a conversion with the
same lanes do: 32x64 i8 mma v2 -> blocked moves the tile as stmatrix.x4.trans -> ldmatrix.x4.trans
in 32/8, below the 48/36 its width floors allowed. Groups and tuples are taken together in order of
their floor key, so a matrix group is tried as soon as it could hold a better layout.

**Complete** means: every tuple and every matrix chain whose floor key is below the answer's was
enumerated, every chain of them built and its kernel search both complete and exact, and no chain's
own floor key below the answer: its kernel search's cost, then its instructions, which the chain
decides (vectors.chain_instructions: a matrix group's other access is a matrix on the chains whose
row is its form and vectors on the rest, where the group's floor counts the fewer). Anything else
(a chain cap reached, a kernel search cut short, a sub-word widest vector) says not complete.
"""
from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence

from . import gf2
from .value import Value, field

MAX_CHAINS = 512  # chains built before the search stops (then it says it is not complete)
MAX_VISITS = 20_000  # ldmatrix row heads looked at in one group before it gives up (not complete)


class Side(Value):
    """One access as the search sees it (vectors.py builds it from a RegisterAccess)."""

    regs: tuple[int, ...]  # an independent basis of the span of its registers
    lanes: tuple[int, ...]
    requests: int  # 2^(warp bases): instructions per register group
    most: int  # the widest vector, in element bits (16 bytes, its cap, its registers)
    units: tuple[int, ...]  # units[j]: the unit of a j-bit vector, in element bits (hardware.Geometry)
    phases: tuple[int, ...] = ()  # phases[j]: the fewest phases one instruction of a j-bit vector has (() none said)
    banks: tuple[int, ...] = ()  # banks[j]: the banks of the op moving a j-bit vector (its cell); (): the target's


class Item(Value):
    """A width tuple (``widths``: its chains from ``chains``) or a group of explicit chains (``expand``
    yields them, None where it gives up: ldmatrix rows with the other accesses at one width each),
    with the floor and instructions every layout of it has at least."""

    floor: int
    instructions: int
    widths: tuple[int, ...] = ()
    expand: Callable[[], Iterator[list[int] | None]] | None = field(default=None, compare=False)
    what: str = ""

    def key(self) -> tuple[int, int]:
        return self.floor, self.instructions


def instructions(side: Side, j: int) -> int:
    """I_a(j): one instruction per request and register group (coset of the j-bit vector)."""
    return side.requests << (len(side.regs) - j)


def floor(side: Side, j: int, elem_bytes: int, bank_bytes: int, banks: int) -> int:
    """F_a(j), the module's floor: per instruction at least D distinct vectors of v bytes, so
    ceil(D v / bank_bytes) words, at least ceil(words / banks) wavefronts; and at least one
    wavefront per phase of it (``Side.phases``: a 64-lane AMD instruction of narrow vectors is two
    phases or more however few its words)."""
    distinct = 1 << (gf2.rank(list(side.lanes) + list(side.regs)) - len(side.regs))
    words = -(-(distinct * (elem_bytes << j)) // bank_bytes)
    phases = side.phases[j] if side.phases else 1
    return instructions(side, j) * max(1, phases, -(-words // (side.banks[j] if side.banks else banks)))


def width_items(sides: Sequence[Side], elem_bytes: int, bank_bytes: int, banks: int) -> list[Item]:
    """Every width tuple (each access 0 .. its widest), with its floor and instructions."""
    out = []
    for widths in itertools.product(*[range(s.most + 1) for s in sides]):
        f = sum(floor(s, j, elem_bytes, bank_bytes, banks) for s, j in zip(sides, widths))
        i = sum(instructions(s, j) for s, j in zip(sides, widths))
        out.append(Item(f, i, tuple(widths), None, "widths " + "/".join(str(elem_bytes << j) for j in widths)))
    return out


# --- subspaces ------------------------------------------------------------------------------------


def independent(vectors: Sequence[int]) -> list[int]:
    """The vectors that add to the span of those before them, in order (a basis of their span)."""
    return independent_mod(vectors, ())


def independent_mod(vectors: Sequence[int], base: Sequence[int]) -> list[int]:
    """The vectors that add to span(base) and to the span of those before them, in order: with
    ``base``, a basis of span(base + vectors). (An echelon basis kept as it grows: top bit -> vector.)"""
    pivots: dict[int, int] = {}
    out: list[int] = []
    for k, v in enumerate([*base, *vectors]):
        for top in sorted(pivots, reverse=True):
            if v >> top & 1:
                v ^= pivots[top]
        if v:
            pivots[v.bit_length() - 1] = v
            if k >= len(base):
                out.append(vectors[k - len(base)])
    return out


def intersection(spans: Sequence[Sequence[int]]) -> list[int]:
    """A basis of the intersection of the spans."""
    common = independent(spans[0]) if spans else []
    for other in spans[1:]:
        other = independent(other)
        kern = gf2.kernel(common + other)
        common = independent([gf2.apply(common, c & ((1 << len(common)) - 1)) for c in kern])
    return common


def subspaces(basis: Sequence[int], dim: int) -> Iterator[list[int]]:
    """Every subspace of span(basis) (independent) of dimension ``dim``, once each: its reduced
    echelon form in the basis' coordinates (pivot columns, then the free entries right of each)."""
    d = len(basis)
    for piv in itertools.combinations(range(d), dim):
        free = [(i, c) for i, p in enumerate(piv) for c in range(p + 1, d) if c not in piv]
        for bits in range(1 << len(free)):
            rows = [1 << p for p in piv]
            for k, (i, c) in enumerate(free):
                if bits >> k & 1:
                    rows[i] |= 1 << c
            yield [gf2.apply(list(basis), r) for r in rows]


def _exact_order(ext: list[int], base: list[int], avoid: list[list[int]]) -> list[int] | None:
    """``ext`` reordered (replaced by an equivalent basis of span(base + ext) mod base) so that its
    first vector lies outside every span in ``avoid`` (each containing base), or None when every
    vector of span(base + ext) outside base lies in one of them."""
    if not avoid or not ext:
        return ext
    for c in range(1, 1 << len(ext)):
        x = gf2.apply(ext, c)
        if all(gf2.rank(a + [x]) > len(independent(a)) for a in avoid):
            rest = [v for v in ext if gf2.rank(base + [x, v]) > gf2.rank(base + [x])]
            return [x] + independent_mod(rest, base + [x])
    return None


def chains(sides: Sequence[Side], widths: Sequence[int]) -> Iterator[list[int]]:
    """Every vector chain that gives each access exactly its width in ``widths`` (capped widths
    excepted: a vector at its access's widest cannot run on), as one ordered vector each."""
    top = max(widths, default=0)
    if top == 0:
        yield []
        return
    marks = set(widths) | {min(s.units[j], top) for s, j in zip(sides, widths)} | {top}
    points = sorted(b for b in marks if b > 0)
    yield from _grow(sides, widths, points, [], 0)


def _grow(sides: Sequence[Side], widths: Sequence[int], points: list[int], vector: list[int],
          here: int) -> Iterator[list[int]]:
    if not points:
        yield vector
        return
    b = points[0]
    alive = [list(s.regs) for s, j in zip(sides, widths) if j >= b]
    room = intersection(alive) if alive else []
    # the accesses whose width ends here (and could run on) must not take the next preimage
    ending = [list(s.regs) for s, j in zip(sides, widths) if j == here and j < s.most]
    if gf2.rank(room + vector) != len(room):
        return  # (never: the chain so far lies in every access still growing)
    for ext in subspaces(independent_mod(room, vector), b - here):
        ordered = _exact_order(ext, vector, ending)
        if ordered is not None:
            yield from _grow(sides, widths, points[1:], vector + ordered, b)


# --- the search -----------------------------------------------------------------------------------


class Outcome(Value):
    """What evaluating one chain gave: the measured key of its layout and whether the chain's
    construction is a proven floor over every layout with that chain."""

    key: tuple[int, int]  # (wavefronts, instructions) measured
    proven: bool
    floor: int  # the chain's least wavefronts (kernel_search's cost), when proven
    instructions: int | None = None  # the chain's instructions (its row decides the matrix forms); None: the item's


class Searched(Value):
    complete: bool
    chains: int
    why_not: str | None = None


def search(items: Sequence[Item], sides: Sequence[Side], evaluate: Callable[[list[int], Item], Outcome],
           best: tuple[int, int], max_chains: int = MAX_CHAINS) -> Searched:
    """Every item in order of its floor key, each item's chains evaluated while the item could still
    hold a layout better than ``best`` (updated from each outcome). Complete when every chain of
    every item below the answer was evaluated with a proven floor, or skipped by it."""
    built = 0
    why: str | None = None
    for item in sorted(items, key=lambda it: (it.key(), it.widths, it.what)):
        if item.key() >= best:
            break
        todo = item.expand() if item.expand is not None else chains(sides, item.widths)
        for vector in todo:
            if (item.floor, item.instructions) >= best:
                break
            if vector is None:
                why = why or f"{item.what}: more row chains than {MAX_VISITS} looked at"
                break
            built += 1
            if built > max_chains:
                return Searched(False, built - 1, f"more than {max_chains} vector chains below the answer")
            out = evaluate(vector, item)
            best = min(best, out.key)
            if not out.proven and why is None:
                why = f"the chain {vector} of {item.what} is not proven (kernel search cut short or sub-word)"
            elif out.proven and (out.floor, _or(out.instructions, item.instructions)) < best and why is None:
                why = f"the chain {vector} of {item.what} was not built to its floor {out.floor}"
    return Searched(why is None, built, why)


def _or(x: int | None, y: int) -> int:
    return y if x is None else x
