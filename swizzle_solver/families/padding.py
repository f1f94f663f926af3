"""`padding`: another pitch (row_length >= cols), alone or with a layout of the tile on rows that far apart.

    phys = inner.phys(tile with row_length = pitch, r, c)

The inner layout is a member of any other family (none, cute, xor-cols, two-level, linear, row
interleave; column panels only at pitch = cols, the dense tile they store), on the tile whose rows
are ``pitch`` apart. A pitch above the given row length costs rows * (pitch - row_length) more
elements of shared memory; one below it saves them (the padding a kernel gave, dropped). The
solve tries the pitches below the given row length in every family, and those above it with no
swizzle or one cute / xor-cols swizzle (docs/families.md). Pitches keep every vector aligned (pitch
* elem_bytes a multiple of the widest vector, or of its largest power-of-two factor: a 12-byte b96
lane is dword-aligned).

Order inside the family: smaller pitch (less memory), then the inner layout's family and order.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np

from ..layout import LATER, MAX_ROWS, Family, Layout, LayoutBase, in_range
from ..model import MAX_STORAGE_BYTES, Problem, Tile
from ..value import Value, replace
from . import FAMILY_RANK, cute, forms, parse_name, record, xor_cols
from .cute import Swizzle
from .identity import Identity

if TYPE_CHECKING:
    from ..budget import Budget
    from ..candidate import Candidate, FamilyReport
    from ..oracle import Later


class Padded(Value, LayoutBase):
    pitch: int
    inner: Layout  # a layout of any other family, on the tile with rows ``pitch`` apart
    family = "padding"

    @property
    def name(self) -> str:
        inner = "" if record(self.inner.family).baseline else f" + {self.inner.name}"
        return f"pitch {self.pitch}{inner}"

    @property
    def order(self) -> tuple:
        return (self.pitch, FAMILY_RANK[self.inner.family], self.inner.order)

    def padded(self, tile: Tile) -> Tile:
        return replace(tile, row_length=self.pitch)

    def storage(self, tile: Tile) -> int:
        """Elements of storage the layout needs (rows * pitch: more than the given row length's, or less)."""
        return tile.rows * self.pitch

    def extra_bytes(self, tile: Tile) -> int:
        """Shared memory beyond the dense rows x cols tile."""
        return tile.rows * (self.pitch - tile.cols) * tile.elem_bytes

    def phys(self, tile: Tile, r, c):
        return self.inner.phys(self.padded(tile), r, c)

    def invalid(self, tile: Tile) -> str | None:
        if self.pitch < tile.cols:
            return f"pitch {self.pitch} is below the {tile.cols} columns of a row"
        if self.inner.family == self.family:
            return "a padded pitch holds one layout, not another pitch"
        if tile.rows * self.pitch * tile.elem_bytes > MAX_STORAGE_BYTES:
            return f"pitch {self.pitch} needs more than the {MAX_STORAGE_BYTES // 1024} KiB storage limit"
        return self.inner.invalid_padded(tile, self.pitch)

    # bases: None (LayoutBase): the pitch differs from the problem's, measured by the simulator

    def padded_form(self, tile: Tile) -> tuple[int, Layout]:
        return self.pitch, self.inner

    def swizzle(self, tile: Tile) -> Swizzle | None:
        """The CuTe swizzle of the padded offset r * pitch + c that this layout is, if one is."""
        return forms.as_swizzle(self.padded(tile), self.inner)

    def expression(self, tile: Tile) -> str | None:
        return self.inner.expression(self.padded(tile))

    def swizzles(self) -> list[dict]:
        return self.inner.swizzles()

    def json_extras(self, tile: Tile) -> dict:
        found = self.swizzle(tile)
        padded = self.padded(tile)
        return {"padding": {"row_length": self.pitch, "extra_bytes": self.extra_bytes(tile),
                            "storage_bytes": self.storage(tile) * tile.elem_bytes,
                            "cute": found.name if found else None,
                            # the inner layout's own entry on the padded tile (its family's JSON extras)
                            "inner": {"family": self.inner.family, "name": self.inner.name,
                                      **self.inner.json_extras(padded)}}}


def pitches(tile: Tile, vector_bytes: int, wavefront_bytes: int) -> list[int]:
    """Every pitch from cols up to one full wavefront of residues above the given row length (the
    banks of a padded row start depend only on pitch * elem_bytes mod the wavefront, so larger
    pitches repeat these), except the given row length itself (that is the unpadded search)."""
    span = max(1, wavefront_bytes // tile.elem_bytes)
    return [p for p in range(tile.cols, tile.row_length + span + 1)
            if p != tile.row_length and (p * tile.elem_bytes) % (vector_bytes & -vector_bytes) == 0]


_NAME = r"(?i)pitch\s+(\d{1,18})(?:\s*\+\s*(.+))?"


def parse(text: str) -> Padded | None:
    """pitch N, or pitch N + <a layout of any other family>."""
    m = re.fullmatch(_NAME, text)
    if not m:
        return None
    in_range(MAX_ROWS, pitch=int(m[1]))
    if m[2] is not None and re.match(r"(?i)\s*pitch\b", m[2]):  # never recurse on a pitch inside a pitch
        raise ValueError("a padded pitch takes one layout inside, not another pitch")
    return Padded(int(m[1]), Identity() if m[2] is None else parse_name(m[2]))


def _code_rows(answer: dict, problem: dict) -> list[tuple[str, str]]:
    pad = answer["padding"]
    col = problem.get("order") == "col"  # --order col: the pitch is a column's length, the layout M-major
    rows = [("memory", f"{'column' if col else 'row'} length {pad['row_length']}: {pad['extra_bytes']} extra bytes "
                       f"of shared memory")]
    if pad["cute"]:
        stride = f"(1,{pad['row_length']})" if col else f"({pad['row_length']},1)"
        rows.append(("CuTe", f"composition({pad['cute']}, ({problem['rows']},{problem['cols']}):{stride})  "
                             f"(the swizzle of the padded offset)"))
        return rows
    inner = record(pad["inner"]["family"])
    if not inner.baseline:  # the inner layout's own lines, on the padded tile (two-level's C steps, ...)
        rows += inner.code_rows(pad["inner"], {**problem, "row_length": pad["row_length"]})
    return rows


def other_pitches(problem: Problem) -> tuple[list[int], list[int]]:
    """The aligned pitches (``pitches``) below the given row length and above it, smallest first:
    below, every family is searched (narrower.py); above, this family's plain rows and one swizzle
    (``search``), then every family (narrower.py) at those below the first pitch they serve."""
    tile = problem.tile
    vbytes = max(int(p.lane_bytes.max()) for p in problem.patterns)
    found = pitches(tile, vbytes, problem.hardware.wavefront_bytes)
    return [p for p in found if p < tile.row_length], [p for p in found if p > tile.row_length]


def least_storage(problem: Problem) -> int:
    """The least storage (elements) a member searched above the given row length needs: the
    smallest aligned pitch above it (the tile's own storage when there is none)."""
    above = other_pitches(problem)[1]
    return problem.tile.rows * min(above) if above else problem.tile.size


# --- the search (extended.py runs it: Family.search) ---------------------------------------------


def _at_targets(problem: Problem, table: np.ndarray, target: dict) -> bool:
    """Every pattern simulated at or below its target, the smallest pattern first, stopping at the
    first above it. No sound layout leaves a pattern below its target (floors.targets), so this is
    the layout leaving the least excess any layout can."""
    from .. import simulate

    tile, banks = problem.tile, problem.hardware
    for pattern in sorted(problem.patterns, key=lambda p: p.lane_row.size):  # stable: the given order within a size
        if simulate.simulate(tile, banks, [pattern], table)[0].worst > target[pattern]:
            return False
    return True


def search(problem: Problem, budget: Budget, later: Later) -> tuple[list[Candidate], FamilyReport]:
    """Above the given row length (more shared memory): the smallest pitch that needs no swizzle,
    and the smallest that works with one (the first cute or xor-cols member of the padded tile, in
    their order, by the base search). "Works" is every pattern at its target: its lower bound, or
    its floor (floors.py) when that is above. A pitch at which a lane's vector no longer starts
    aligned is not sound, and skipped. (The later families are not searched at these pitches:
    solving._other_pitches says so when that leaves the answer unproven.)

    A plain pitch is simulated pattern by pattern until one misses its target; the pitches that
    miss are measured whole only when neither a plain nor a swizzled pitch works (then the closest
    is kept)."""
    from ..candidate import FamilyReport, best, measure
    from ..candidate import found as found_candidate
    from ..soundness import sound

    report = FamilyReport(FAMILY_RECORD.name)
    tile = problem.tile
    target, least = later.oracle.target, later.oracle.excess  # least: 0 without floors
    vbytes = max(int(p.lane_bytes.max()) for p in problem.patterns)
    pitches = other_pitches(problem)[1]  # those below are solving.py's, every family at each (narrower.py)
    report.candidates = len(pitches)
    plain = swizzled = None
    missed = []  # sound plain pitches above some target, in order
    for _, pitch in budget.walk(report, pitches):
        layout = Padded(pitch, Identity())
        checked = sound(tile, layout, problem.patterns)
        if checked is None:
            report.invalid += 1
            continue
        report.evaluated += 1
        if _at_targets(problem, checked.table, target):
            plain = measure(problem, checked)
            break
        missed.append(checked)
        if swizzled is None:
            padded = Problem(replace(tile, row_length=pitch), problem.hardware, problem.patterns)
            first = later.base(padded, (cute.FAMILY_RECORD, xor_cols.FAMILY_RECORD), budget, target=target,
                               invalid=lambda inner, pitch=pitch: Padded(pitch, inner).invalid(tile))
            if first is not None:
                swizzled = found_candidate(problem, least, Padded(pitch, first.layout))
    kept = [c for c in (swizzled, plain) if c is not None]
    if not kept:  # nothing works: the closest plain pitch
        kept = best([measure(problem, checked) for checked in missed], 1)
    report.best_excess = kept[0].excess if kept else None
    goal = "every floor" if least else "no conflict"
    report.covered = (f"pitches {pitches[0]}..{pitches[-1]} above {tile.row_length} (one wavefront of residues) "
                      f"aligned to {vbytes}-byte vectors, in order until one needs no swizzle; plain and with a "
                      f"cute or xor-cols swizzle of the padded tile, aiming at {goal}"
                      if pitches else "no aligned pitch")
    return kept, report


FAMILY_RECORD = Family(
    name=Padded.family, rank=6, stage=LATER, layout=Padded, parse=parse, printed=r"pitch\d+(\+.+)?",
    syntax="'pitch 72 + <layout>'", engine="pitch", search=search, changes_pitch=True, least_storage=least_storage,
    code_rows=_code_rows,
    note=lambda answer: (f" (padding: {answer['padding']['extra_bytes']} extra bytes; no swizzle of the given "
                         f"pitch works)"))
