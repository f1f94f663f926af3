"""The general-linear family's search by construction (DESIGN.md section 11), as Triton's
``optimalSwizzling`` builds its layouts: the vector bits first, then the bank (slot) bits, then the
rest; and the rank proof that the construction is the best any invertible map can do.

Setting: a power-of-two tile, index space X = the bits of the logical offset p. A member L is an
invertible map of X onto the offset bits; it is built from its *preimages*: the logical offsets that
go to offset bit 0, 1, 2, ... (families.general_linear.of_columns). In that order:

- W, the vector: the preimages of the offset bits inside one vector (kept whole: bit i of a vector
  stays bit i);
- Z, the bits below a unit above the vector (a vector narrower than a bank word);
- B, the slot bits: the offset bits that choose a unit's position in a wavefront (proof.py);
- the rest.

Every phase of an access reads a coset of a subspace V_p of X (its varying directions, above the
unit). With F the slot rows of L and K = ker F inside S = V_1 + ... + V_t, the rank proof gives

    wavefronts of the phase = 2^(dim(V_p ∩ K) - dim(V_p ∩ ker U))          (U: the unit address)

and ker U = span(W, Z). Where Z is empty (vectors of at least a bank word) and no phase direction
lies inside a vector, the cost is 2^dim(V_p ∩ K), and the only condition on K is dim K >= dim S - k
(k slot bits: F has rank at most k on S); every such K is ker F of some member. So the least total
over all invertible maps with these vectors is the least over subspaces K of S of that dimension:
``kernel_search`` finds it by a depth-first search over K's reduced echelon bases (each subspace
once), bounded by the best found; when it completes, its minimum is a proven floor over the whole
family (tests/test_general.py checks it against every invertible map of small tiles). That is the
floor of one vector choice; over every choice, the accesses' widths differing, vector_search.py
enumerates the vector chains and argues the floor that orders them.

For two phase subspaces A and B this is Triton's construction: K = span(a_i ^ b_i) over bases of A
and B completing A ∩ B pairs their directions onto the same slot bits, and both are conflict-free
when each fits the slots. Sub-word offset bits are never bank bits here (Z lies below the unit):
Triton's formula counts them as bank bits and claims 0 conflicts for 2-way layouts (issue 24).
"""
from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from . import gf2
from .families.general_linear import GeneralLinear, of_columns
from .value import Value

MAX_NODES = 20_000  # subspaces tried by kernel_search before it stops (then not proven minimal)


class Kernel(Value):
    """kernel_search's answer: K's basis (in X), its weighted cost and whether the search was complete."""

    basis: tuple[int, ...]
    cost: int
    complete: bool
    nodes: int


def reduce(v: int, pivots: dict[int, int]) -> int:
    """v with every pivot's top bit cleared (pivots: top bit -> vector, an echelon basis)."""
    for top in sorted(pivots, reverse=True):
        if v >> top & 1:
            v ^= pivots[top]
    return v


def echelon(vectors: Sequence[int]) -> dict[int, int]:
    """An echelon basis of the span: top bit -> vector."""
    pivots: dict[int, int] = {}
    for v in vectors:
        v = reduce(v, pivots)
        if v:
            pivots[v.bit_length() - 1] = v
    return pivots


def kernel_search(spaces: list[list[int]], weights: Sequence[int], slots: int,
                  max_nodes: int = MAX_NODES) -> Kernel:
    """The subspace K of S = sum of ``spaces`` (each a list of independent vectors) of dimension
    dim S - ``slots`` (0 when S fits the slots) that minimises sum of weight * 2^dim(V ∩ K): the
    kernel of the slot bits on S. Depth-first over K's reduced echelon bases (each subspace once),
    children in order of their cost (greedy first), pruned by the best found; ``complete`` when
    every subspace was covered (bounded by ``max_nodes``).

    The search sees the spaces only through their coordinates in S's echelon basis, so it is run on
    those (``_local_search``), and a problem met again in those coordinates is answered from its
    cache: --vectors auto's vector chains reduce to the same few quotient problems (on gfx950's
    128 x 128 f16 blocked -> dot B, 373 chains, 11 distinct)."""
    span = [v for v in echelon([x for v in spaces for x in v]).values()]
    span.sort()
    local = tuple(tuple(gf2.coordinates(span, x) for x in v) for v in spaces)  # s-bit ints
    chosen, cost, complete, nodes = _local_search(local, tuple(int(w) for w in weights), len(span), slots, max_nodes)
    return Kernel(tuple(gf2.apply(span, x) for x in chosen), cost, complete, nodes)


@functools.lru_cache(maxsize=4096)
def _local_search(local: tuple[tuple[int, ...], ...], weights: tuple[int, ...], s: int, slots: int,
                  max_nodes: int) -> tuple[tuple[int, ...], int, bool, int]:
    """kernel_search in S's coordinates: (K's basis there, its cost, complete, nodes visited)."""
    need = max(0, s - slots)
    w = np.array(weights, dtype=np.int64)
    # no K does better than each space alone: dim(V ∩ K) >= dim V - slots (V + K fits in S)
    least = sum(x << max(0, len(v) + need - s) for v, x in zip(local, weights))
    best: list = [None, ()]
    nodes = 0

    def dfs(node: _Node) -> bool:
        nonlocal nodes
        here = node.cost(w)
        if best[0] is not None and (here >= best[0] or best[0] == least):
            return True  # cost only grows as K grows; nothing is below ``least``
        if len(node.chosen) == need:
            best[0], best[1] = here, tuple(node.chosen)
            return True
        for cost, x in node.children(w, need):
            if best[0] is not None and (cost >= best[0] or best[0] == least):
                break  # children come cheapest first and cost only grows: the rest are pruned too
            nodes += 1
            if nodes > max_nodes:
                return False
            if not dfs(node.child(x)):
                return False
        return True

    root = _Node.root(local, s)
    complete = dfs(root)
    return best[1], best[0] if best[0] is not None else root.cost(w), complete, nodes


class _Node:
    """A node of kernel_search: K's reduced echelon basis so far (``chosen``, ``pivots``: top bit ->
    vector), and per space V (rows of ``member``) which of the 2^s vectors of S lie in V + K, and
    dim(V ∩ K) (``dims``). A vector x outside K grows V ∩ K by one exactly when x lies in V + K
    (dim(V ∩ K) = dim V + dim K - dim(V + K)), so every child's cost is read off ``member`` at once:
    the numbers of the formula, without a rank per child."""

    def __init__(self, chosen: list[int], pivots: dict[int, int], member: np.ndarray, dims: np.ndarray):
        self.chosen, self.pivots, self.member, self.dims = chosen, pivots, member, dims

    @classmethod
    def root(cls, local: Sequence[Sequence[int]], s: int) -> _Node:
        member = np.zeros((len(local), 1 << s), dtype=bool)
        for p, v in enumerate(local):
            member[p, _span(v)] = True
        # (a space given with dependent vectors counts them, as len(v) + dim K - dim(V + K) does)
        return cls([], {}, member, np.array([len(v) - gf2.rank(list(v)) for v in local], dtype=np.int64))

    def cost(self, w: np.ndarray) -> int:
        """sum of weight * 2^dim(V ∩ K)."""
        return int((w << self.dims).sum())

    def children(self, w: np.ndarray, need: int) -> list[tuple[int, int]]:
        """(cost, x) of each next vector x of K's reduced echelon basis, cheapest first (then by x):
        x has no bit at an earlier vector's top, and its top is above them all; and below the top
        that leaves a distinct top for each of the ``need`` - 1 vectors still to come after it (a
        child above it has no K of dimension ``need`` below it: a dead end, not visited)."""
        xs = np.arange(self.member.shape[1], dtype=np.int64)
        mask = sum(1 << t for t in self.pivots)
        top = max(self.pivots, default=-1) + 1
        last = xs.size.bit_length() - 1 - (need - len(self.chosen))  # the highest top a child may have
        xs = xs[((xs & mask) == 0) & (xs >> top != 0) & (xs >> (last + 1) == 0)]
        grown = self.dims[:, None] + self.member[:, xs]  # dim(V ∩ (K + x)) per space, per child
        cost = (w[:, None] << grown).sum(axis=0)
        order = np.lexsort((xs, cost))
        return list(zip(cost[order].tolist(), xs[order].tolist()))

    def child(self, x: int) -> _Node:
        top = x.bit_length() - 1
        reduced = {t: v ^ x if v >> top & 1 else v for t, v in self.pivots.items()}
        reduced[top] = x
        index = np.arange(self.member.shape[1], dtype=np.int64)
        member = self.member | self.member[:, index ^ x]
        return _Node(self.chosen + [x], reduced, member, self.dims + self.member[:, x])


def _span(vectors: Sequence[int]) -> np.ndarray:
    """Every XOR of ``vectors`` (with repeats where they are dependent)."""
    out = np.zeros(1, dtype=np.int64)
    for v in vectors:
        out = np.concatenate([out, out ^ v])
    return out


class _Basis:
    """Preimages taken one by one, each only if independent of those taken before."""

    def __init__(self, first: Sequence[int]):
        self.pivots = echelon(list(first))

    def take(self, v: int, into: list[int]) -> bool:
        r = reduce(v, self.pivots)
        if not r:
            return False
        self.pivots[r.bit_length() - 1] = r
        into.append(v)
        return True

    def fill(self, into: list[int], count: int, candidates: Sequence[int]) -> None:
        for v in candidates:
            if len(into) >= count:
                break
            self.take(v, into)


def construct(n: int, vector: Sequence[int], sub_unit: int, slots: int, spaces: list[list[int]],
              weights: Sequence[int], max_nodes: int = MAX_NODES) -> tuple[GeneralLinear, Kernel]:
    """The member built as Triton builds its layouts: ``vector`` (preimages of the low offset bits,
    in order), then ``sub_unit`` bits below the unit, then the slot bits, then the rest, over the
    n-bit index space; the slot bits' kernel on the phases' span from ``kernel_search``.

    ``spaces``: each phase class's varying directions above the unit (index-space vectors);
    ``weights``: how many phases of each class (the objective is the weighted total). Every
    preimage but the vector's is reduced modulo the vector (no bit at its pivots), so a logical
    offset's coordinates along the vector are those of its part in the vector's span."""
    w_piv = echelon(vector)
    quotient = [list(echelon([reduce(x, w_piv) for x in v]).values()) for v in spaces]
    slots = max(0, min(slots, n - len(vector) - sub_unit))
    kern = kernel_search(quotient, weights, slots, max_nodes)
    span = sorted(echelon([x for v in quotient for x in v]).values())
    units = [reduce(1 << i, w_piv) for i in range(n)]  # any direction, reduced modulo the vector
    basis = _Basis(vector)
    z = _sub_unit_columns(basis, sub_unit, kern, quotient, units)
    b = _slot_columns(basis, slots, kern, span, units)
    rest: list[int] = []
    basis.fill(rest, n, list(kern.basis) + units)
    columns = list(vector) + z + b + rest
    assert len(columns) == n, columns
    return of_columns(columns), kern


def _sub_unit_columns(basis: _Basis, sub_unit: int, kern: Kernel, quotient: list[list[int]],
                      units: list[int]) -> list[int]:
    """Z, the ``sub_unit`` preimages below the unit (taken into ``basis``): kernel directions inside
    some phase first (lanes that then share a unit: a broadcast, not a conflict), then the rest of
    K, then any direction."""
    in_phase = [x for x in kern.basis if any(gf2.rank(v + [x]) == len(v) for v in quotient)]
    z: list[int] = []
    basis.fill(z, sub_unit, in_phase + list(kern.basis) + units)
    return z


def _slot_columns(basis: _Basis, slots: int, kern: Kernel, span: list[int], units: list[int]) -> list[int]:
    """The ``slots`` slot bits' preimages (taken into ``basis``): S's directions outside K (a
    complement of K in S, so that F = the slot rows has kernel K on S), then any direction outside
    S, then any direction."""
    outside_k = _Basis(kern.basis)
    b: list[int] = []
    for v in span:
        if len(b) < slots and reduce(v, outside_k.pivots) and basis.take(v, b):
            outside_k.take(v, [])
    basis.fill(b, slots, [u for u in units if gf2.rank(span + [u]) > len(span)] + units)
    return b


# --- a problem with the vectors as given (its patterns' own) --------------------------------------


class Setting(Value):
    """What the construction needs of a problem whose vectors are fixed (why not, when it does not apply)."""

    n: int  # offset bits of the tile
    vector: tuple[int, ...]  # preimages of the vector's bits: the low column bits
    sub_unit: int
    slots: int
    spaces: tuple[tuple[int, ...], ...]  # per pattern, its varying directions above the unit
    why_not: str | None = None


def setting(problem) -> Setting:
    """The construction's view of ``problem`` (a model.Problem): every pattern a coset of one
    subspace (proof.py's linear bits) on a power-of-two tile without padding, one wavefront for all,
    and either one unit geometry for all, or units of whole vectors of at least a bank word (then
    the widest vector's bits are fixed, and a narrower pattern's directions that move those bits are
    in different slots already: only its directions that leave them alone need the slot bits above).
    ``why_not`` says what is missing otherwise."""
    from .model import is_pow2, log2

    tile, hw = problem.tile, problem.hardware
    if not (tile.row_length == tile.cols and is_pow2(tile.cols) and is_pow2(tile.rows)):
        return _refusal(0, "the tile is not power-of-two rows x columns without padding")
    n = log2(tile.size)
    geometries = [hw.serving(p.banks).geometry(tile.elem_bytes, p.vector_bytes) for p in problem.patterns]
    why = _served_why_not(problem, geometries)
    if why is not None:
        return _refusal(n, why)
    vbits = [log2(max(1, p.vector_bytes // tile.elem_bytes)) for p in problem.patterns]
    tops = {g.unit_shift + g.slot_bits for g in geometries}  # the slot bits' top, per geometry
    if not _one_unit(geometries, vbits, tops):
        return _refusal(n, "the accesses' units differ and some vector is narrower than a bank word")
    v = max(vbits)
    u = max(g.unit_shift for g in geometries)
    spaces = []
    for p, g, vp in zip(problem.patterns, geometries, vbits):
        space, why = _pattern_space(p, tile, g.unit_shift, vp, v)
        if why is not None:
            return _refusal(n, why)
        spaces.append(space)
    slots = tops.pop() - u if len(tops) == 1 else geometries[0].slot_bits
    return Setting(n, tuple(1 << i for i in range(v)), u - v, slots, tuple(spaces))


def _refusal(n: int, why: str) -> Setting:
    """The setting of a problem the construction does not apply to, saying why."""
    return Setting(n, (), 0, 0, (), why)


def _served_why_not(problem, geometries) -> str | None:
    """Why the patterns' units cannot share one construction (each vector in a wavefront, one bank
    model serving all), or None."""
    if any(not g.fits for g in geometries):
        return "a vector is wider than a wavefront"
    if len({problem.hardware.serving(p.banks) for p in problem.patterns}) != 1:
        return "the accesses are served by different banks"
    return None


def _one_unit(geometries, vbits: list[int], tops: set[int]) -> bool:
    """Whether the patterns' units agree: one geometry for all, or units of whole vectors whose slot
    bits end at the same offset bit (then the widest vector's bits are fixed, and the slot bits
    above them are common)."""
    whole = all(g.unit_shift == v for g, v in zip(geometries, vbits))  # units are whole vectors
    return len(set(geometries)) == 1 or (whole and len(tops) == 1)


def _pattern_space(p, tile, unit_shift: int, vp: int, v: int) -> tuple[tuple[int, ...], str | None]:
    """Pattern ``p``'s varying directions above its unit (units of ``2^unit_shift`` elements, its
    vector of ``2^vp``, the widest of ``2^v``), or () and why they are not a subspace above the unit."""
    from .model import log2
    from .proof import _mask

    bits = p.linear_bits(tile)
    if bits is None:
        return (), f"{p.spec}'s placements are not cosets of one subspace"
    masks = [m for m in (_mask(b, log2(tile.row_length)) for b in bits) if m >= 1 << unit_shift]
    if any(m & ((1 << unit_shift) - 1) for m in masks):
        return (), f"{p.spec} mixes bits inside and above a unit"
    # only the directions that leave the wider vector's bits [vp, v) alone share the slots above
    low = [(m >> vp) & ((1 << (v - vp)) - 1) for m in masks]
    keep = [gf2.apply(masks, combo) for combo in gf2.kernel(low)] if any(low) else masks
    return tuple(keep), None

def search_general(problem, max_nodes: int = MAX_NODES):
    """The general-linear family's best member for ``problem`` with its vectors as given:
    (candidate measured by the simulator, Kernel, the excess the construction predicts) or None
    with the reason. The candidate is checked for soundness (a bijection that keeps vectors whole)."""
    from .candidate import measure
    from .soundness import sound, soundness

    st = setting(problem)
    if st.why_not is not None:
        return None, st.why_not
    layout, kern = construct(st.n, st.vector, st.sub_unit, st.slots, [list(s) for s in st.spaces],
                             [1] * len(st.spaces), max_nodes)
    checked = sound(problem.tile, layout, problem.patterns)
    if checked is None:  # (never expected: the construction keeps the vector bits in place)
        return None, f"the construction is not sound here: {soundness(problem.tile, layout, problem.patterns)}"
    return measure(problem, checked), kern


def floor_excess_general(problem, max_nodes: int = MAX_NODES) -> int | None:
    """The least excess (sum over patterns of worst - lower bound) of any general-linear member with
    the vectors as given, proven by kernel_search when it completes and the cost formula is exact
    (vectors of at least a bank word: no bits below the unit above the vector); else None."""
    st = setting(problem)
    if st.why_not is not None or st.sub_unit:
        return None
    quotient = [list(s) for s in st.spaces]
    kern = kernel_search(quotient, [1] * len(quotient), max(0, min(st.slots, st.n - len(st.vector))), max_nodes)
    # each pattern's phases cost 2^dim(V ∩ K) at least its lower bound (a phase over a wavefront)
    if not kern.complete:
        return None
    return kern.cost - sum(p.lower_bound for p in problem.patterns)
