"""`linear`: a general GF(2)-linear XOR swizzle of the logical element offset p.

Each low offset bit t is XORed with a chosen set of higher bits s > t (a *term* (t, s)):

    phys = p ^ XOR over terms (t, s) of (((p >> s) & 1) << t)
         = p ^ ((p >> d1) & m1) ^ ((p >> d2) & m2) ^ ...      (terms grouped by distance d = s - t)

The matrix is unitriangular (only higher bits flow into lower ones), so the map is a bijection of
every aligned power-of-two block; on a storage that is not a power of two it must also keep the
last, partial block inside (checked exactly). Bits below the vector are never targets, so vectors
stay whole. CuTe's Swizzle<B,M,S> is the member with terms (M+i, M+S+i), i < B; the column XOR of
"a GF(2^n) multiple of the row" is the member whose terms take row bits into column bits.

Order inside the family: fewest terms (XOR gates), then the sorted term list, smallest first.
"""
from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from .. import balance
from ..budget import Budget, smt_limits
from ..candidate import Candidate, FamilyReport
from ..candidate import found as found_candidate
from ..layout import LATER, MAX_BIT, Family, LayoutBase, const, in_range, integer, partial_block_invalid, step_schema
from ..model import Problem, Tile, is_pow2
from ..oracle import XorOracle, conflict_bits, conflict_lemmas
from ..value import Value
from . import forms
from .cute import Swizzle
from .identity import nbits

if TYPE_CHECKING:
    from ..oracle import Later


class OnOffset(LayoutBase):
    """A layout that XORs bits of the logical offset p = r * row_length + c: ``self.apply(p)``.

    Such a map is GF(2)-linear on the offset bits, so its bases are the images of single bits.
    """

    def apply(self, p):
        raise NotImplementedError

    def phys(self, tile: Tile, r, c):
        return self.apply(r * tile.row_length + c)

    def bases(self, tile: Tile) -> list[int] | None:
        if not tile.pitch_is_pow2:
            return None
        return [self.apply(1 << i) for i in range(nbits(tile))]

    def triton_bases(self, tile: Tile) -> dict | None:
        return forms.triton_bases(tile, self.bases(tile))


class XorLinear(Value, OnOffset):
    terms: tuple[tuple[int, int], ...]  # (target bit, source bit), source > target, sorted
    family = "linear"

    def __post_init__(self):
        assert all(s > t >= 0 for t, s in self.terms) and list(self.terms) == sorted(set(self.terms)), self.terms

    @property
    def name(self) -> str:
        by_target: dict[int, list[int]] = {}
        for t, s in self.terms:
            by_target.setdefault(t, []).append(s)
        return "Linear[" + ", ".join(f"b{t}^=" + "^".join(f"b{s}" for s in src)
                                     for t, src in sorted(by_target.items())) + "]"

    @property
    def order(self) -> tuple:
        return (len(self.terms), self.terms)

    def offset_bases(self) -> list[int]:
        """The canonical form: bases[s] = L(1 << s) on every offset bit up to the highest source
        (whatever the tile); the terms are its off-diagonal bits, (t, s) for bit t of bases[s]."""
        top = max((s for _, s in self.terms), default=-1) + 1
        bases = [1 << s for s in range(top)]
        for t, s in self.terms:
            bases[s] |= 1 << t
        return bases

    @cached_property
    def _steps(self) -> list[tuple[int, int]]:
        return forms.xor_steps(self.offset_bases())

    def steps(self) -> list[tuple[int, int]]:
        """(distance, mask) pairs: phys = p ^ XOR of ((p >> distance) & mask)."""
        return list(self._steps)

    def apply(self, p):
        out = p
        for d, m in self._steps:
            out = out ^ ((p >> d) & m)
        return out

    def invalid(self, tile: Tile) -> str | None:
        return invalid_on_storage(self.apply, self.terms, tile)

    def cute_form(self) -> Swizzle | None:
        """The equal CuTe Swizzle<B,M,S>, when the terms have that shape (else None)."""
        return forms.swizzle_of(self.offset_bases())

    def expression(self, tile: Tile) -> str:
        p = f"(r * {tile.row_length} + c)"
        return p + "".join(f" ^ (({p} >> {d}) & {m})" for d, m in self.steps())

    def swizzles(self) -> list[dict]:
        """One XOR step per distance. All steps read the original p (they are not a chain, hence
        ``applies_to``); B, M, S where the step's mask is contiguous (a CuTe swizzle alone), else null."""
        out = []
        for d, m in self.steps():
            sw = Swizzle.of_step(d, m)
            out.append({"B": sw.B if sw else None, "M": sw.M if sw else None, "S": sw.S if sw else None,
                        "shift": d, "mask": m, "unit": "element", "kind": "xor-mask",
                        "applies_to": "original offset"})
        return out

    def json_extras(self, tile: Tile) -> dict:
        form = self.cute_form()
        return {"xor_terms": len(self.terms), "terms": [{"target_bit": t, "source_bit": s} for t, s in self.terms],
                "cute": form.name if form else None,
                "byte_cute": form.byte_level(tile.elem_bytes).name if form else None,
                "triton_bases": self.triton_bases(tile)}


def invalid_on_storage(apply: Callable[[np.ndarray], np.ndarray], terms, tile: Tile) -> str | None:
    """A unitriangular XOR map changes only target bits: the blocks of 2^(top target + 1) elements
    (layout.partial_block_invalid)."""
    return partial_block_invalid(apply, 1 << (max(t for t, _ in terms) + 1) if terms else 0, tile)


def all_terms(targets: list[int], top: int) -> list[tuple[int, int]]:
    """Every term (t, s) with t a target bit and t < s < top, in the family's order."""
    return [(t, s) for t in sorted(targets) for s in range(t + 1, top)]


_NAME = r"(?i)linear\s*\[(.*)\]"
_TARGET = r"b(\d{1,18})\s*\^=\s*(b\d{1,18}(?:\s*\^\s*b\d{1,18})*)"


def parse(text: str) -> XorLinear | None:
    """Linear[b0^=b1^b6, b1^=b7]: bit t of the offset XORed with bits s > t."""
    m = re.fullmatch(_NAME, text)
    if not m:
        return None
    terms = set()
    for part in filter(None, (x.strip() for x in m[1].split(","))):
        t = re.fullmatch(_TARGET, part)
        if not t:
            raise ValueError(f"{part!r} is not a term: write b<target>^=b<source>^b<source>...")
        target = int(t[1])
        for source in (int(b.strip()[1:]) for b in t[2].split("^")):
            in_range(MAX_BIT, bit=source)
            if source <= target:
                raise ValueError(f"b{target}^=b{source}: a source bit must be above its target")
            terms.add((target, source))
    if not terms:
        raise ValueError("no XOR terms (check 'none' for the identity)")
    return XorLinear(tuple(sorted(terms)))


def _code_rows(answer: dict, problem: dict) -> list[tuple[str, str]]:
    return [("XOR terms", f"{answer['xor_terms']}: " + ", ".join(
        f"bit {x['target_bit']} ^= bit {x['source_bit']}" for x in answer["terms"]))]


STEP_SCHEMA = step_schema(
    "linear: one XOR step per distance, each reading the original offset",
    B={"type": ["integer", "null"], "description": "bits, when the mask is contiguous (a CuTe swizzle alone)"},
    M={"type": ["integer", "null"], "description": "base, likewise"},
    S={"type": ["integer", "null"], "description": "shift, likewise"},
    shift=integer(1, "distance: source bit - target bit"), mask=integer(1, "the target bits"), unit=const("element"),
    kind=const("xor-mask"), applies_to=const("original offset"))

# --- the search (extended.py runs it: Family.search) ---------------------------------------------


def search(problem: Problem, budget: Budget, later: Later) -> tuple[list[Candidate], FamilyReport]:
    """z3 over every possible XOR term (smt.min_linear), after the balance condition (balance.py),
    which may refute the family with no z3; or every term subset in order (``enum``)."""
    oracle, engine = later.oracle, later.engine_of(FAMILY_RECORD)
    report = FamilyReport(FAMILY_RECORD.name, method="smt" if engine == "smt" else "enumeration")
    targets = oracle.slot_targets()
    terms = all_terms(targets, oracle.top)
    report.candidates = 2 ** len(terms)
    if not oracle.seps:
        report.covered = ("not searched: no access gives z3 lane differences (each reads more than one "
                          "wavefront, mixes lane sizes, or is bound by a floor)")
        return [], report
    if not terms:
        report.covered = ("not searched: no slot bit lies above the vectors, so no XOR term can move a unit; "
                          "the only member is the identity (none)")
        return [], report
    found = _by_z3(problem, budget, later, terms, report) if engine == "smt" else \
        _enumerated(later.oracle, budget, terms, report)
    kept = [found_candidate(problem, oracle.excess, found)] if found is not None else []
    report.best_excess = kept[0].excess if kept else None  # (per instruction, measured: candidate.found)
    return kept, report


def _by_z3(problem: Problem, budget: Budget, later: Later, terms: list, report: FamilyReport) -> XorLinear | None:
    """The first member with the fewest terms by z3 (smt.min_linear), unless the balance condition
    refutes the family first; the report says which."""
    oracle = later.oracle
    targets = oracle.slot_targets()
    # what each slot bit's row must do on the simulated patterns: often enough to refute the
    # family outright (issue 16: 3 s of z3 on odd pitches), else it narrows z3's search
    rows = balance.family_rows(problem, oracle.rest, oracle.target, targets, oracle.top)
    if rows and rows[-1].refuted:
        report.smt = balance.refutation(rows[-1], len(terms))
        report.complete = True
        report.covered = (f"none of the members over {len(terms)} possible XOR terms (target bits {targets}, "
                          f"sources up to bit {oracle.top - 1}) can reach the targets: "
                          f"{balance.refuted_because(rows[-1])} (the balance condition, no z3 needed): unsat")
        return None
    budget.tick(f"{report.family} (z3)", 0, 1)
    result = later.smt().min_linear(oracle.seps, targets, oracle.top, oracle.refute, *smt_limits(budget),
                                    core=lambda layout: conflict_bits(oracle, layout),
                                    lemmas=lambda layout: conflict_lemmas(oracle, layout), storage=problem.tile.size,
                                    rows=rows)
    report.smt = result.proof()
    report.complete = result.status != "unknown"
    found = result.layout
    storage = "" if is_pow2(problem.tile.size) else f" and the {problem.tile.size}-element storage kept whole"
    report.covered = (f"z3 over {len(terms)} possible XOR terms (target bits {targets}, sources up to bit "
                      f"{oracle.top - 1}), {result.constraints} constraints from {oracle.covered()}{storage}: "
                      f"{result.outcome}")
    return found


def _enumerated(oracle: XorOracle, budget: Budget, terms: list, report: FamilyReport) -> XorLinear | None:
    """The first member with the fewest terms, every subset of ``terms`` in order (the ``enum``
    engine), until the time limit."""
    found = None
    tried, cut, k = 0, False, 0
    for k in range(len(terms) + 1):
        for combo in itertools.combinations(terms, k):
            tried += 1
            if tried % 1024 == 0 and budget.expired():
                cut = True
                break
            layout = XorLinear(combo)
            if oracle.accept(layout):
                found = layout
                break
        if found is not None or cut:
            break
    report.evaluated = tried
    report.complete = not cut
    report.covered = (f"enumerated {tried} members with at most {k} of {len(terms)} possible XOR terms, "
                      f"each tested on {oracle.covered()}")
    return found


FAMILY_RECORD = Family(
    name=XorLinear.family, rank=4, stage=LATER, layout=XorLinear, parse=parse, printed=r"Linear\[[^\]]*\]",
    syntax="'Linear[b0^=b5^b6, b1^=b7]'", engine="smt", search=search, code_rows=_code_rows, contains=("cute", "two-level"),
    smt_unit="terms", step_schema=(STEP_SCHEMA,))
