"""What a batch case's row says beyond ok/answer/status: why a case failed, and, for the configs of
a ``[case.matrix]`` case, their outcome (which accesses conflict, with what excess, what fixes
them), by which the table groups them (render.print_batch) and the API's ``sweep`` tabulates them.

An outcome is plain data (strings and integers), so that a row crosses --jobs's process boundary
and a CSV cell as it is.
"""
from __future__ import annotations

import csv
from collections.abc import Iterable, Sequence
from itertools import chain
from typing import IO

from .candidate import Candidate
from .model import Problem


def conflicting(problem: Problem, measured: Candidate) -> str:
    """The accesses that leave excess wavefronts, each with its excess in the output's unit (per
    instruction for instruction-level forms, report.reported_excess): ``ds_read_b128 +4, row +1``;
    "" when none."""
    parts = []
    for r in measured.results:
        p = r.pattern
        excess = (int(r.instruction_costs().max()) - p.instruction_lower_bound) if p.instruction_phases \
            else r.worst - p.lower_bound
        if excess:
            parts.append(f"{p.spec} +{excess}")
    return ", ".join(parts)


def excess_of(problem: Problem, measured: Candidate) -> int:
    from .report import reported_excess

    return reported_excess(problem, measured)


def failed_check_why(name: str, invalid: str | None, minimal: str | None, better: str | None) -> str:
    """Why a checked layout failed, with the layout to use instead (the --check line's words): the
    minimal conflict-free layout, or, when none is, the search's better layout when it found one."""
    verdict = "failed" if invalid is None else f"not usable: {invalid}"
    instead = minimal or "none conflict-free"
    if minimal is None and better:
        instead += f"; best: {better}"
    return f"{name} {verdict}; minimal: {instead}"


def group_key(row: dict) -> tuple:
    """The outcome by which the table groups a matrix's configs."""
    return (row["ok"], row["status"], row.get("conflicting", ""), row.get("fix", ""))


def grouped(rows: Sequence[dict]) -> list[tuple[dict, list[dict]]]:
    """The configs of one matrix by outcome, the outcomes in order of their first config."""
    groups: dict[tuple, list[dict]] = {}
    for row in rows:
        groups.setdefault(group_key(row), []).append(row)
    return [(members[0], members) for members in groups.values()]


def values_text(row: dict) -> str:
    from .configs import shown

    return " ".join(f"{k}={shown(v)}" for k, v in row.get("config", ()))


RECORD_FIELDS = ("name", "ok", "status", "answer", "excess", "conflicting", "fix", "expected")


def write_csv(records: Iterable[dict], out: IO[str]) -> None:
    """Records (the API's sweep, or batch rows) as CSV: the config's variables first (one column
    each, in the order of the first record), then ``RECORD_FIELDS``. No pandas needed."""
    records = iter(records)
    first = next(records, None)
    if first is None:
        return
    variables = [k for k, _ in first.get("config", ())]
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([*variables, *RECORD_FIELDS])
    from .configs import shown

    for record in chain([first], records):
        values = dict(record.get("config", ()))
        writer.writerow([*(shown(values[k]) if k in values else "" for k in variables),
                         *(_cell(record.get(f, "")) for f in RECORD_FIELDS)])


def _cell(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)
