"""`general-linear`: every GF(2)-linear layout of a power-of-two tile (DESIGN.md section 11).

A member is an invertible map of the logical offset bits (p = r * row_length + c: the column bits,
then the row bits) onto the physical offset bits, given by its *offset bases* as in Triton's
LinearLayout: ``bases[i] = phys(1 << i)``, so

    phys(p) = XOR over the set bits i of p of bases[i]

Transposed storage (the column bits above the row bits), every XOR family (none, cute, xor-cols,
two-level, linear: the unitriangular members) and Triton's ``optimalSwizzling`` layouts are
members. Its name lists the bases: ``OffsetBases[1, 2, 4, 64, 8, 16, 32]`` (element offsets).

It is searched only with ``--vectors auto`` (vectors.py: each access's vector is then chosen with the
layout) and by ``general.search_general`` on request: a plain solve never sees it (stage
``VECTORS_AUTO``), so no answer of a solve without ``--vectors auto`` changes.

Order inside the family: fewest bases moved off their own bit, then the bases themselves.
"""
from __future__ import annotations

import re

from .. import gf2
from ..layout import Family, LayoutBase
from ..model import Tile, is_pow2, log2
from ..value import Value
from . import forms

VECTORS_AUTO = "vectors auto"  # the stage: searched only with --vectors auto, never by a plain solve
MAX_BASES = 19  # offsets are below 2^19 (model.MAX_STORAGE_BYTES)


class GeneralLinear(Value, LayoutBase):
    offset_bases: tuple[int, ...]  # phys(1 << i) for every offset bit i of the tile's storage
    family = "general-linear"

    @property
    def name(self) -> str:
        return "OffsetBases[" + ", ".join(str(b) for b in self.offset_bases) + "]"

    @property
    def order(self) -> tuple:
        moved = sum(b != 1 << i for i, b in enumerate(self.offset_bases))
        return (moved, self.offset_bases)

    def apply(self, p):
        out = p & 0  # an int or an array of p's shape
        for i, b in enumerate(self.offset_bases):
            out = out ^ (((p >> i) & 1) * b)
        return out

    def phys(self, tile: Tile, r, c):
        return self.apply(r * tile.row_length + c)

    def invalid(self, tile: Tile) -> str | None:
        """A bijection of the storage iff the storage is 2^n elements, there are n bases, each
        below 2^n, and they are independent (rank n)."""
        n = len(self.offset_bases)
        if not (tile.pitch_is_pow2 and is_pow2(tile.size)):
            return (f"offset bases need a power-of-two storage (rows and pitch powers of two); this one has "
                    f"{tile.size} elements")
        if 1 << n != tile.size:
            return f"{n} offset bases map 2^{n} elements, but the storage has {tile.size} (2^{log2(tile.size)})"
        if any(b >= tile.size for b in self.offset_bases):
            return f"a basis ({max(self.offset_bases)}) is outside the {tile.size}-element storage"
        if gf2.rank(list(self.offset_bases)) != n:
            kernel = gf2.kernel(list(self.offset_bases))[0]
            return f"not a bijection: offset {kernel} maps to 0, as offset 0 does (the bases are dependent)"
        return None

    def bases(self, tile: Tile) -> list[int] | None:
        return list(self.offset_bases) if self.invalid(tile) is None else None

    def expression(self, tile: Tile) -> str:
        p = f"(r * {tile.row_length} + c)"
        return " ^ ".join(f"((({p} >> {i}) & 1) * {b})" for i, b in enumerate(self.offset_bases)) or "0"

    def swizzles(self) -> list[dict]:
        return []

    def json_extras(self, tile: Tile) -> dict:
        return {"offset_bases": list(self.offset_bases), "triton_bases": forms.triton_bases(tile, self.bases(tile))}


def of_columns(preimages: list[int]) -> GeneralLinear:
    """The member that sends ``preimages[j]`` (a logical offset) to offset bit j: the inverse of the
    matrix whose columns are the preimages (they must be a basis)."""
    # The image of each unit vector x is the set of j whose preimages XOR to x.
    pivots, dependent = gf2.echelon(preimages)
    if dependent:
        raise ValueError("the preimages are not a basis")
    bases = [gf2.combination(pivots, 1 << i) for i in range(len(preimages))]
    return GeneralLinear(tuple(bases))


_NAME = re.compile(r"(?i)offset\s*bases\s*\[([^\]]*)\]")


def parse(text: str) -> GeneralLinear | None:
    """OffsetBases[1, 2, 4, 64, 8, 16, 32]: the physical offset of each logical offset bit."""
    m = _NAME.fullmatch(text.strip())
    if not m:
        return None
    parts = [x.strip() for x in m[1].split(",")] if m[1].strip() else []
    if not parts:
        raise ValueError("no offset bases: give one per offset bit, e.g. OffsetBases[1, 2, 4, 8]")
    if len(parts) > MAX_BASES:
        raise ValueError(f"{len(parts)} offset bases: at most {MAX_BASES} (offsets are below 2^19)")
    if not all(re.fullmatch(r"\d{1,7}", x) for x in parts):
        raise ValueError("each offset basis is a non-negative integer below 2^19")
    bases = tuple(int(x) for x in parts)
    if any(b >= 1 << MAX_BASES for b in bases):
        raise ValueError("each offset basis is a non-negative integer below 2^19")
    if gf2.rank(list(bases)) != len(bases):
        raise ValueError("the offset bases are dependent: not a bijection")
    return GeneralLinear(bases)


def _code_rows(answer: dict, problem: dict) -> list[tuple[str, str]]:
    return [("offset bases", ", ".join(str(b) for b in answer["offset_bases"]))]


FAMILY_RECORD = Family(
    name=GeneralLinear.family, rank=8, stage=VECTORS_AUTO, layout=GeneralLinear, parse=parse,
    printed=r"OffsetBases\[[^\]]*\]", syntax="'OffsetBases[1, 2, 64, 4, ...]'", engine="construction",
    code_rows=_code_rows, contains=("none", "cute", "xor-cols", "two-level", "linear"), smt_unit="bases")
