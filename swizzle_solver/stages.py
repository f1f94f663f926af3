"""Staged layouts: a layout with a third, stage mode (CuTe's ``tile_to_shape(atom, Shape<_128,_32,_3>{})``,
a pipeline's S buffers of one tile), checked stage by stage.

Each stage s is the layout's 2-D slice at stage coordinate s: a layout of the tile at its own place in
the allocation (its offsets are the staged layout's, so a stage that starts at an offset that is no
multiple of a bank row is counted where it lies). Every stage is checked as any layout is (the
simulator counts every access; soundness.py decides whether a kernel can use it); the check reports
the worst stage (not usable first, then the most excess wavefronts; the first of equals), and lists
every stage's verdict, stages with the same counts said once. The stages must not overlap: two stages
on one offset make the staged layout not usable, the first such pair named.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .model import InputError
from .value import Value

MAX_STAGES = 64  # a pipeline keeps 2 to 8; each stage is a whole check


class Stage(Value):
    """One stage's verdict (the JSON's ``check.stages[i]``)."""

    stage: int
    offset: int  # the stage's least element offset
    status: str  # conflict-free, conflicts or not-usable
    excess: int | None  # excess wavefronts (None: not usable)
    counts: tuple  # every access's (worst, total) wavefronts: stages with equal counts are said once

    def json(self, same_as: int | None) -> dict:
        return {"stage": self.stage, "offset": self.offset, "status": self.status, "excess": self.excess,
                "same_as": same_as}


def staged(layout: object) -> int:
    """The number of stages of a layout read from a notation (1: not staged)."""
    return int(getattr(getattr(layout, "source", None), "stages", 1))


def stage_layouts(layout) -> list:
    """The given layout's stages, each a ``Given`` of the same text whose source is that stage's slice."""
    from .families.given import Given

    n = staged(layout)
    if n > MAX_STAGES:
        raise InputError(f"the layout has {n} stages (its third mode), above the {MAX_STAGES} checked: a pipeline "
                         f"keeps a few; check a layout of fewer stages")
    return [Given(layout.text, layout.source.at_stage(s)) for s in range(n)]


def worst(stages: Sequence[Stage]) -> int:
    """The index of the stage the check reports: not usable first, then the most excess (the first)."""
    return max(range(len(stages)), key=lambda i: (stages[i].excess is None, stages[i].excess or 0, -i))


def overlap(tile, tables: Sequence[np.ndarray]) -> str | None:
    """Two stages on one offset (the first such pair in stage order), or None."""
    owner: dict[int, tuple[int, int, int]] = {}
    for s, table in enumerate(tables):
        values, first = np.unique(table, return_index=True)
        for v, i in zip(values.tolist(), first.tolist()):
            if v in owner:
                t, r, c = owner[v]
                rr, cc = tile.logical(*map(int, np.unravel_index(i, table.shape)))
                return (f"stages {t} and {s} overlap: element ({r}, {c}) of stage {t} and ({rr}, {cc}) of stage {s} "
                        f"are both at offset {v}")
        for v, i in zip(values.tolist(), first.tolist()):
            owner[v] = (s, *tile.logical(*map(int, np.unravel_index(i, table.shape))))
    return None


def _word(indices: list[int]) -> str:
    return f"stage {indices[0]}" if len(indices) == 1 else f"stages {', '.join(map(str, indices))}"


def summary(stages: Sequence[dict], reported: int) -> str:
    """The stages in words (the --check line's tail, the report's line): ``3 stages, the same counts in
    each``, or each group of equal stages with its excess and which one the check reports."""
    groups: dict[int, list[int]] = {}
    for s in stages:
        groups.setdefault(s["stage"] if s["same_as"] is None else s["same_as"], []).append(s["stage"])
    if len(groups) == 1:
        return f"{len(stages)} stages, the same counts in each"
    parts = []
    for first, members in groups.items():
        s = stages[first]
        verdict = "not usable" if s["excess"] is None else f"excess {s['excess']}"
        parts.append(f"{_word(members)} {verdict}{' (reported)' if reported in members else ''}")
    return f"{len(stages)} stages: {', '.join(parts)}"
