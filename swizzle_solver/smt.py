"""The SMT engine (z3, imported here only): the linear and two-level families as constraint problems.

Both families are XOR maps L that are GF(2)-linear on the bits of the logical offset p (any
pitch: the offsets of the lanes are concrete integers, so r * row_length + c is exact), and a
pattern with a Separation (separation.py) is conflict-free under L iff slot(L(d)) != 0 for each
of its differences d. These conditions are the constraints; the answer's family order is found
by tightening the objective one step at a time, so an UNSAT answer at each step is the proof that
nothing better exists in the family. What the constraints do not cover (patterns with a lower
bound above 1 or mixed lane sizes, bijectivity on a storage that is not a power of two) is
checked on each model by the caller and the model blocked when it fails (counter-example loop).
Every model returned is re-measured by the simulator like any other answer.
"""
from __future__ import annotations

import time
from collections.abc import Collection

import numpy as np
import z3

from . import balance
from .families.cute import Swizzle
from .families.linear import XorLinear, all_terms
from .families.two_level import TwoLevel
from .hardware import slot_offset_bits
from .layout import OffsetXor
from .value import Value, field

MAX_BLOCKED = 64  # counter-examples (models refuted by the caller) before giving up
Z3_MAX_MS = 2**32 - 1  # z3's timeout is an unsigned int of milliseconds (about 50 days)


class SmtResult(Value, frozen=False):
    status: str  # "sat", "unsat" (nothing in the family is conflict-free) or "unknown" (timeout)
    layout: OffsetXor | None = None  # the model found (sat), a member of the family
    variables: int = 0
    constraints: int = 0
    checks: int = 0
    blocked: int = 0
    lemmas: int = 0  # conditions learned from refuted models (min_linear's ``lemmas``)
    unsat_below: int | None = None  # no conflict-free member with fewer XOR terms / bits than this
    covered: list[str] = field(default_factory=list)
    limit: str = "the time limit"  # what the deadline was, for an unknown result

    @property
    def outcome(self) -> str:
        """The status in words: why it is unknown, when it is."""
        if self.status != "unknown":
            return self.status
        if self.blocked >= MAX_BLOCKED:
            return f"unknown (gave up after {MAX_BLOCKED} model{'s' * (MAX_BLOCKED != 1)} that the simulator refuted)"
        return f"unknown ({self.limit})"

    def proof(self) -> dict:
        return {"engine": f"z3 {z3.get_version_string()}", "result": self.status, "variables": self.variables,
                "constraints": self.constraints, "solver_checks": self.checks, "models_refuted": self.blocked,
                "lemmas_learned": self.lemmas, "no_member_below": self.unsat_below, "covered": self.covered}


class _Solver:
    """A z3 solver that counts its checks and stops at the deadline (--timeout, wall clock) or when
    its budget of z3 resource units is spent (``rlimit``: deterministic, the same on every machine).

    Each solver has a z3 context of its own (``self.ctx``: make its terms there): z3 counts resource
    units per context, and numbers terms per context, which steers its search. In a shared context
    a batch's earlier cases would change whether a later one hits the budget.

    ``logic``: z3's solver for that logic (z3.SolverFor), else its general one. "QF_FD" (finite
    domains: Booleans and cardinality) is z3's SAT solver with native at-most constraints."""

    def __init__(self, deadline: float | None, rlimit: int | None = None, logic: str | None = None):
        self.ctx = z3.Context()
        self.s = z3.Solver(ctx=self.ctx) if logic is None else z3.SolverFor(logic, ctx=self.ctx)
        self.deadline = deadline
        self.rlimit = rlimit
        self.checks = 0
        self._rlimit_at = 0  # where z3's statistics list "rlimit count" (spent)
        self._params: dict[str, z3.ParamsRef] = {}  # (_set)

    def spent(self) -> int:
        """Resource units used by every check so far (z3 counts them per context, across checks)."""
        stats = self.s.statistics()
        ref, handle = self.ctx.ref(), stats.stats
        # the counter where it was last found first (z3 lists about 20, in the same order after each
        # check: walking them all, a call each, took as long as a check of the SAT solver)
        for i in [self._rlimit_at, *range(len(stats))]:
            if i < len(stats) and z3.Z3_stats_get_key(ref, handle, i) == "rlimit count":
                self._rlimit_at = i
                if z3.Z3_stats_is_uint(ref, handle, i):
                    return int(z3.Z3_stats_get_uint_value(ref, handle, i))
                return int(z3.Z3_stats_get_double_value(ref, handle, i))
        return 0  # no check has counted any yet

    def check(self, *assumptions) -> z3.CheckSatResult:
        if self.deadline is not None:
            left = self.deadline - time.monotonic()
            if left <= 0:
                return z3.unknown
            self._set("timeout", int(min(max(1.0, left * 1000), Z3_MAX_MS)))
        if self.rlimit is not None:
            units = self.rlimit - self.spent()
            if units <= 0:
                return z3.unknown
            self._set("rlimit", units)  # a limit per check: what is left of the family's budget
        self.checks += 1
        # z3.Solver.check(*assumptions) through its C call: the assumptions are Booleans already
        # (the wrapper cast each again, as long as a short check of the SAT solver)
        array = (z3.Ast * len(assumptions))(*(a.as_ast() for a in assumptions))
        status = z3.CheckSatResult(z3.Z3_solver_check_assumptions(self.ctx.ref(), self.s.solver, len(assumptions),
                                                                  array))
        if status == z3.unknown and self._interrupted():
            # z3 takes Ctrl-C for itself during a check and only cancels it: raise it again, so that
            # it stops the run (entry.py) rather than read as a timeout
            import signal

            signal.raise_signal(signal.SIGINT)
        return status

    def _set(self, name: str, value: int) -> None:
        """self.s.set(name, value), its parameter object made once per name (z3.Solver.set builds
        one on every call)."""
        if name not in self._params:
            self._params[name] = z3.ParamsRef(ctx=self.ctx)
        params = self._params[name]
        params.set(name, value)
        z3.Z3_solver_set_params(self.ctx.ref(), self.s.solver, params.params)

    def add(self, literal: z3.BoolRef) -> None:
        """self.s.add(literal) through its C call (the wrapper cast the Boolean again)."""
        z3.Z3_solver_assert(self.ctx.ref(), self.s.solver, literal.as_ast())

    def _interrupted(self) -> bool:
        """Whether the last check was unknown because of Ctrl-C. z3 says so ("interrupted from
        keyboard"), or on some paths only "canceled", which is then Ctrl-C when neither the deadline
        (within 50 ms: z3's timer counts whole milliseconds) nor the resource budget ran out."""
        reason = self.s.reason_unknown()
        if reason == "interrupted from keyboard":
            return True
        return (reason == "canceled" and (self.deadline is None or time.monotonic() < self.deadline - 0.05)
                and (self.rlimit is None or self.spent() < self.rlimit))


def _flows(x: Collection, d: int, b: int) -> tuple[int, tuple]:
    """What bit b of L(d) depends on, L = identity + the chosen terms (b, s): bit b of d, and the
    bits s of d that a term (b, s) may XOR into it."""
    return (d >> b) & 1, tuple(s for s in range(b + 1, d.bit_length()) if (d >> s) & 1 and (b, s) in x)


def _term(b: int, s: int) -> str:
    """The Boolean of XOR term (b, s): bit s is XORed into bit b."""
    return f"x_{b}_{s}"


def _image_bit_smtlib(b: int, own: int, sources: tuple) -> str:
    """Bit b of L(d) in SMT-LIB, from _flows(x, d, b) = (own, sources): own ^ x_b_s1 ^ x_b_s2 ^ ..."""
    if not sources:
        return "true" if own else "false"
    flow = _term(b, sources[0]) if len(sources) == 1 else f"(xor {' '.join(_term(b, s) for s in sources)})"
    return f"(not {flow})" if own else flow


def _covered(seps) -> list[str]:
    return [f"{sep.pattern.spec}: {len(sep.diffs)} lane differences, slot bits "
            f"{', '.join(f'b{b}' for b in sep.slot_bits)} not all zero" for sep in seps]


def _below(x: Collection, p: int, size: int, top: int) -> str:
    """SMT-LIB for L(p) < size (L = identity + the chosen terms), built from bit 0 up:
    L[i:0] < size[i:0] iff bit i of L(p) is below size's, or equal and L[i-1:0] < size[i-1:0]."""
    less = "false"  # L[-1:0] < size[-1:0]: no bits, not less
    for i in range(top):
        bit = _image_bit_smtlib(i, *_flows(x, p, i))
        less = f"(or (not {bit}) {less})" if (size >> i) & 1 else f"(and (not {bit}) {less})"
    return less


def _on_storage(x: Collection, targets: list[int], top: int, size: int) -> list[str]:
    """Assertions that L maps the storage [0, size) onto itself (families/linear.invalid_on_storage:
    only the last partial block of 2^(top target + 1) offsets can leave it)."""
    block = 1 << (max(targets) + 1)
    return [f"(assert {_below(x, p, size, top)})" for p in range(size - size % block, size)]


def _row_literals(bit: int, h: int, width: int) -> list[str]:
    """The terms (bit, bit + 1 + i) chosen or not as bit i of h says: the row bit ^ (h << (bit + 1))."""
    return [_term(bit, bit + 1 + i) if h >> i & 1 else f"(not {_term(bit, bit + 1 + i)})" for i in range(width)]


def _negated(literal: str) -> str:
    return literal[5:-1] if literal.startswith("(not ") else f"(not {literal})"


def _all(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else f"(and {' '.join(parts)})"


def _any(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else f"(or {' '.join(parts)})"


def _rows_in(rows) -> list[str]:
    """Assertions that each slot bit's row is one the balance condition lets pass (balance.py):
    row j is bit j plus the sources s of the chosen terms (j, s), so h's bit i is term (j, j + 1 + i).
    Rows of one slot bit from several patterns must pass all of them. A slot bit with no passing row
    is false; one whose passing (or failing) rows are too many to list gets no assertion. The span
    condition's refutation (balance.SpanBalance) is false too."""
    passing: dict[int, np.ndarray] = {}
    out = []
    for r in rows:
        if isinstance(r, balance.SpanBalance):
            out.append("(assert false)")
            continue
        passing[r.bit] = passing[r.bit] & r.allowed if r.bit in passing else r.allowed
    for bit, allowed in sorted(passing.items(), reverse=True):
        ok, bad = np.flatnonzero(allowed).tolist(), np.flatnonzero(~allowed).tolist()
        if not bad:
            continue
        if not ok:
            out.append("(assert false)")
            continue
        if min(len(ok), len(bad)) > balance.MAX_ROWS:
            continue
        width = allowed.size.bit_length() - 1
        if len(ok) <= len(bad):  # one of the passing rows
            out.append(f"(assert {_any([_all(_row_literals(bit, h, width)) for h in ok])})")
        else:  # none of the failing rows
            out += [f"(assert {_any([_negated(lit) for lit in _row_literals(bit, h, width)])})" for h in bad]
    return out


def _at_most(order: list, ctx: z3.Context):
    """k -> the constraint "at most k of ``order`` are true": the term z3.AtMost(*order, k) makes,
    with the argument array built once (z3.AtMost coerces every argument again on each call: 6 ms
    for 45 terms, as long as a check)."""
    args = (z3.Ast * len(order))(*(v.as_ast() for v in order))
    return lambda k: z3.BoolRef(z3.Z3_mk_atmost(ctx.ref(), len(order), args, k), ctx)


SAT_SHARE = 4  # min_linear: the SAT solver's first attempt gets this fraction of the resource budget


def min_linear(seps, targets: list[int], top: int, refute, deadline: float | None = None,
               rlimit: int | None = None, limit: str = "the time limit", core=None, lemmas=None,
               storage: int | None = None, rows=()) -> SmtResult:
    """The first linear member in family order (fewest terms, then sorted terms) meeting every
    Separation, whose model ``refute`` (layout -> bool: True = not acceptable) does not reject.

    Two sessions of the same search (_linear_session), the first on z3's SAT solver (QF_FD: the
    constraints are Booleans and at-most constraints), which settles each check 3 to 5 times faster
    than its general solver in 4 to 8 times fewer resource units (linear 3 32 x 128 of
    bench/triton_pairs.py: 53 checks, 0.20 -> 0.04 s). It stops at the first model ``refute``
    rejects: the lemmas learned from it (at-most constraints over Booleans defined by XORs) slow the
    SAT solver 8 times (2.0 s against 0.28 s on the last check of test_smt's capped case); and at a
    1/SAT_SHARE share of the resource budget. Then the search runs again, whole, on z3's general
    solver, in a context of its own, with the whole budget: as it ran before the SAT solver came.
    Only each check's sat/unsat is read (never a model), so where the first session settles, its
    member, checks and proof are those the second would give."""
    args = (seps, targets, top, refute, deadline)
    options = {"limit": limit, "core": core, "lemmas": lemmas, "storage": storage, "rows": rows}
    first = _linear_session(*args, None if rlimit is None else rlimit // SAT_SHARE, **options, logic="QF_FD",
                            stop_at_refuted=True)
    if first.status != "unknown" or (deadline is not None and time.monotonic() >= deadline):
        return first
    return _linear_session(*args, rlimit, **options)


def _linear_constraints(seps, terms: list, known: set, targets: list[int], top: int, storage: int | None,
                        rows) -> tuple[str, int, list[str]]:
    """min_linear's input as one SMT-LIB text (the terms' declarations, then every constraint), how
    many constraints, and what they cover."""
    # Differences that agree on every bit a slot bit depends on give the same constraint: add it once.
    distinct = {tuple((b, *_flows(known, d, b)) for b in sep.slot_bits) for sep in seps for d in sep.diffs.tolist()}
    # Thousands of constraints go in as one SMT-LIB text (sorted: the same solver input, and so the
    # same model, every run): z3 parses it 6x faster than the Python API builds the same terms.
    declarations = "".join(f"(declare-const {_term(*t)} Bool)" for t in terms)
    bijective = _on_storage(known, targets, top, storage) if storage is not None and targets else []
    balanced = _rows_in(rows)
    text = declarations + "".join(bijective) + "".join(balanced) + "".join(
        f"(assert (or {' '.join(_image_bit_smtlib(*bit) for bit in key)}))" for key in sorted(distinct))
    covered = _covered(seps) + ([f"storage: offsets {storage - len(bijective)}..{storage - 1} stay below {storage}"]
                                if bijective and storage is not None else []) + (balance.covered(rows) if balanced else [])
    return text, len(distinct) + len(bijective) + len(balanced), covered


def _linear_session(seps, targets: list[int], top: int, refute, deadline: float | None = None,  # noqa: C901 (one z3 session; issue 16 reworks it)
                    rlimit: int | None = None, limit: str = "the time limit", core=None, lemmas=None,
                    storage: int | None = None, rows=(), logic: str | None = None,
                    stop_at_refuted: bool = False) -> SmtResult:
    """min_linear's search in one z3 session on the solver for ``logic`` (_Solver); with
    ``stop_at_refuted``, unknown at the first model ``refute`` rejects (min_linear then goes on).

    ``core`` (layout -> set of offset bits, or None), for a refuted model: bits such that every
    member agreeing with the model on the XOR terms from them is refuted too. One clause then
    blocks them all, instead of the model alone.

    ``lemmas`` (layout -> list of (unit shift, slot mask, most, units), or None), for a refuted
    model: placements it serves above their target, each as "no slot holds more than ``most`` of
    these units", which every acceptable member meets (oracle.conflict_lemmas). They are
    added with the blocking clause, so one refuted model excludes every member that fails on the
    same placements, and an UNSAT answer stays a proof.

    ``storage`` (elements): members must map [0, storage) onto itself, asserted exactly, so that no
    model is refuted for leaving it.

    ``rows`` (balance.RowBalance): the rows each slot bit may have on a pattern measured by the
    simulator, a condition every acceptable member meets (balance.py), asserted up front: when one
    slot bit has none, the first check is UNSAT and no model is ever refuted."""
    terms = all_terms(targets, top)
    solver = _Solver(deadline, rlimit, logic)
    known = set(terms)
    # the terms' Booleans: for the SAT solver made after the text below declared them (the same
    # constants; made before it, it numbers its variables otherwise and spends 2.5 times the units on
    # linear 3), for the general solver before it (as it always ran: the same resource counts)
    x = {t: z3.Bool(_term(*t), solver.ctx) for t in terms} if logic is None else {}
    text, n, covered = _linear_constraints(seps, terms, known, targets, top, storage, rows)
    solver.s.from_string(text)
    result = SmtResult("unknown", variables=len(terms), constraints=n, covered=covered, limit=limit)
    x = x or {t: z3.Bool(_term(*t), solver.ctx) for t in terms}
    order = [x[t] for t in terms]
    at_most = _at_most(order, solver.ctx)

    def first_model():
        """The fewest terms (each UNSAT below is part of the proof), then the first sorted term list."""
        k = 0
        while (status := solver.check(at_most(k))) == z3.unsat:
            result.unsat_below = k + 1
            k += 1
        if status != z3.sat:
            return None
        chosen = []
        solver.s.push()
        solver.add(at_most(k))
        for var, term in zip(order, terms):
            status = solver.check(var)
            if status == z3.unknown:
                break
            solver.add(var if status == z3.sat else z3.BoolRef(z3.Z3_mk_not(solver.ctx.ref(), var.as_ast()), solver.ctx))
            if status == z3.sat:
                chosen.append(term)
        solver.s.pop()
        return None if status == z3.unknown else XorLinear(tuple(chosen))

    together: dict[tuple, str] = {}  # (shift, mask, d) -> a Boolean defined as slot(L(d)) == 0

    def learn(shift: int, mask: int, most: int, units: tuple[int, ...]) -> str:
        """SMT-LIB for "no slot holds more than ``most`` of ``units``": each unit shares its slot
        with at most most - 1 others (units a, b share it iff slot(L(a ^ b)) == 0)."""
        text = []
        for d in sorted({a ^ b for a in units for b in units if a != b}):
            if (shift, mask, d) not in together:
                name = together[shift, mask, d] = f"t_{shift}_{mask}_{d}"
                bits = " ".join(_image_bit_smtlib(b, *_flows(x, d, b)) for b in slot_offset_bits(shift, mask))
                text.append(f"(declare-const {name} Bool)(assert (= {name} (not (or {bits}))))")
        for a in units:
            others = " ".join(together[shift, mask, a ^ b] for b in units if b != a)
            text.append(f"(assert ((_ at-most {most - 1}) {others}))")
        return "".join(text)

    def block(layout: XorLinear) -> None:
        learned = None if lemmas is None else lemmas(layout)
        if learned:  # the solver's parser keeps the declarations made before
            solver.s.from_string("".join(learn(*lemma) for lemma in learned))
            result.lemmas += len(learned)
        bits = None if core is None else core(layout)
        relevant = terms if bits is None else [t for t in terms if t[1] in bits]
        clause = [z3.Not(x[t]) if t in layout.terms else x[t] for t in relevant]
        solver.s.add(z3.Or(clause) if clause else z3.BoolVal(False, solver.ctx))  # no term moves it: every member fails

    _refine(solver, result, first_model, refute, block, stop_at_refuted)
    return result


def _refine(solver: _Solver, result: SmtResult, first_model, refute, block, stop_at_refuted: bool = False) -> None:
    """Counter-example loop: take the first model in family order; if the caller refutes it, block
    it and go on (``stop_at_refuted``: stop, unknown). UNSAT at any round proves that no acceptable
    member exists (every blocked model was refuted); a timeout or too many refuted models leave the
    result unknown."""
    while result.blocked < MAX_BLOCKED:
        status = solver.check()
        if status == z3.unsat:
            result.status = "unsat"
            break
        layout = first_model() if status == z3.sat else None
        if layout is None:
            break
        if not refute(layout):
            result.status, result.layout = "sat", layout
            break
        result.blocked += 1
        if stop_at_refuted:
            break
        block(layout)
    result.checks = solver.checks


def min_two_level(seps, top: int, vector_bits: int, refute, deadline: float | None = None,  # noqa: C901 (one z3 session; issue 16 reworks it)
                  rlimit: int | None = None, limit: str = "the time limit") -> SmtResult:
    """The first two-level member in family order meeting every Separation (see two_level.py).

    Unknowns: (B, M, S) of both swizzles, as bit-vectors; the shifts are symbolic, the lane
    offsets concrete. Objective, tightened in turn: B1 + B2, then B1, M1 (larger first), S1,
    B2, M2 (larger first), S2."""
    w = max(8, top.bit_length() + 2, top + 2)
    names = ("B1", "M1", "S1", "B2", "M2", "S2")
    solver = _Solver(deadline, rlimit)
    v = {nm: z3.BitVec(nm, w, solver.ctx) for nm in names}
    for i in "12":
        b, m, s = v["B" + i], v["M" + i], v["S" + i]
        # each bounded first, so that the sum cannot wrap around
        solver.s.add(z3.ULE(b, top), z3.ULE(m, top), z3.ULE(s, top),
                     z3.UGE(b, 1), z3.UGE(s, b), z3.UGE(m, vector_bits), z3.ULE(m + s + b, top))
    solver.s.add(z3.Or(v["B1"] != v["B2"], v["M1"] != v["M2"], v["S1"] != v["S2"]))

    def swz(p, i):
        b, m, s = v["B" + i], v["M" + i], v["S" + i]
        mask = ((z3.BitVecVal(1, w, solver.ctx) << b) - 1) << m
        return p ^ (z3.LShR(p, s) & mask)

    n = 0
    for sep in seps:
        for d in sep.diffs.tolist():
            image = swz(swz(z3.BitVecVal(d, w, solver.ctx), "1"), "2")
            solver.s.add(z3.LShR(image, sep.unit_shift) & sep.slot_mask != 0)
            n += 1
    result = SmtResult("unknown", variables=6, constraints=n, covered=_covered(seps), limit=limit)
    total = v["B1"] + v["B2"]
    goals = ((total, range(2, top + 1)),
             (v["B1"], range(1, top)), (v["M1"], range(top, -1, -1)), (v["S1"], range(1, top + 1)),
             (v["B2"], range(1, top)), (v["M2"], range(top, -1, -1)), (v["S2"], range(1, top + 1)))

    def first_model():
        fixed = []
        solver.s.push()
        for goal, values in goals:
            for value in values:
                status = solver.check(goal == value)
                if status != z3.unsat:
                    break
            if status != z3.sat:
                break
            if goal is total and value > 2:
                result.unsat_below = value  # no member with fewer XOR bits in all
            solver.s.add(goal == value)
            fixed.append(value)
        solver.s.pop()
        if status != z3.sat:
            return None
        _, b1, m1, s1, b2, m2, s2 = fixed
        return TwoLevel(Swizzle(b1, m1, s1), Swizzle(b2, m2, s2))

    def block(layout: TwoLevel) -> None:
        values = (layout.first.B, layout.first.M, layout.first.S, layout.second.B, layout.second.M, layout.second.S)
        solver.s.add(z3.Or([v[nm] != val for nm, val in zip(names, values)]))

    _refine(solver, result, first_model, refute, block)
    return result
