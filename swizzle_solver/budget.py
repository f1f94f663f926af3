"""The search's time budget (--timeout) and its progress reports."""
from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

T = TypeVar("T")

Progress = Callable[[str, int, int], None]  # (family, members done, members in all)


class Budget:
    def __init__(self, timeout: float | None = None, progress: Progress | None = None):
        self.start = time.monotonic()
        self.deadline = None if timeout is None else self.start + timeout
        self.progress = progress
        # The best candidate.Candidate the solve knows so far (solving.py notes it as it goes): what
        # a run prints when --timeout's alarm (alarm.py) stops the rest of it (overtime.py).
        self.best: Any = None

    def expired(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline

    def tick(self, family: str, done: int, total: int) -> None:
        if self.progress is not None:
            self.progress(family, done, total)

    def walk(self, report, items: Iterable[T]) -> Iterator[tuple[int, T]]:
        """(index, item) for each item while time remains, reporting progress as the family's;
        when time runs out first, ``report.complete`` becomes False and the walk stops."""
        items = list(items)
        for i, item in enumerate(items):
            if self.expired():
                report.complete = False
                return
            self.tick(report.family, i, len(items))
            yield i, item


# Without --timeout, z3 gets this many resource units per family (about 9 s on a 2-core VM of 2026):
# disjunctions of XOR parities are hard for its SAT core, and a rare instance runs for minutes (32 x
# 200 f32, 4x2 8x2v4 col: 21 s to prove UNSAT). Past it the family is reported unknown and the answer
# not proven minimal; --timeout allows more. Units, not seconds: the output must not depend on the
# machine's speed or load (the same input gives the same bytes).
SMT_RLIMIT = 30_000_000


def smt_limits(budget: Budget) -> tuple[float | None, int | None, str]:
    """z3's (deadline, resource budget, description): --timeout's deadline, else SMT_RLIMIT units."""
    if budget.deadline is not None:
        return budget.deadline, None, "the time limit"
    return None, SMT_RLIMIT, (f"z3 spent its default budget of {SMT_RLIMIT:,} resource units (a count, not "
                              f"seconds); --timeout SECONDS allows more")
