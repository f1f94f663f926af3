"""Progress on stderr, for a terminal: nothing for a run under a second, then a line that moves.

A timer thread shows the line once DELAY has passed, whether or not the search has reported
anything (z3 reports nothing while it works), and rich's refresh thread keeps the spinner and the
elapsed time moving. A family that reports members (``done`` of ``total``) shows a bar; a phase
that cannot say how far it is (z3: one opaque call, reported as 0 of 1) shows a pulsing bar and
the time it has taken, never a "100%" it has not reached. ``batch`` adds a line of cases.
"""
from __future__ import annotations

import threading
from typing import Any

DELAY = 1.0  # seconds before the line appears: a fast run prints nothing extra


class LazyProgress:
    """Use as a context manager; ``update`` is the search's progress callback (budget.Progress)."""

    def __init__(self, enabled: bool = True, delay: float = DELAY):
        self.enabled, self.delay = enabled, delay
        self.lock = threading.Lock()
        self.bar: Any = None  # rich.progress.Progress once shown
        self.search: Any = None  # its task for the current family
        self.cases: Any = None  # batch: its task for the cases
        self.state: tuple[str, int, int | None] = ("", 0, None)  # the latest report
        self.case_state: tuple[str, int, int] | None = None
        self.timer: threading.Timer | None = None
        self.shown: tuple[str, int | None] | None = None  # the (family, total) its search task shows

    def __enter__(self) -> LazyProgress:
        if self.enabled:
            self.timer = threading.Timer(self.delay, self._show)
            self.timer.daemon = True
            self.timer.start()
        return self

    def __exit__(self, *exc) -> None:
        if self.timer is not None:
            self.timer.cancel()
        with self.lock:
            if self.bar is not None:
                self.bar.stop()
            self.enabled = False  # a timer that fires now shows nothing

    def update(self, family: str, done: int, total: int) -> None:
        """A family's progress: ``done`` of ``total`` members; a z3 phase reports 0 of 1."""
        indeterminate = family.endswith("(z3)") or total <= 1
        with self.lock:
            self.state = (family, done + 1, None if indeterminate else total)
            if self.bar is not None:
                self._draw()

    def case(self, name: str, index: int, count: int) -> None:
        """batch: case ``index`` (0-based) of ``count`` has started."""
        with self.lock:
            self.case_state = (name, index, count)
            self.state = ("", 0, None)
            if self.bar is not None:
                self._draw()

    def _show(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, Progress, SpinnerColumn, TaskProgressColumn, TextColumn, TimeElapsedColumn

        with self.lock:
            if not self.enabled or self.bar is not None:
                return
            self.bar = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                                TaskProgressColumn(), TimeElapsedColumn(),
                                console=Console(stderr=True), transient=True)
            if self.case_state is not None:
                self.cases = self.bar.add_task("cases", total=self.case_state[2])
            self.bar.start()
            self._draw()

    def _draw(self) -> None:
        family, done, total = self.state
        if self.shown != (family, total):  # a new phase: its own task, so its time starts at 0
            if self.search is not None:
                self.bar.remove_task(self.search)
            what = f"solving with {family}" if family.endswith("(z3)") else f"searching {family}" if family \
                else "solving"
            self.search = self.bar.add_task(what, total=total)
            self.shown = (family, total)
        if total is not None:
            self.bar.update(self.search, completed=done)
        if self.cases is not None and self.case_state is not None:
            name, index, count = self.case_state
            self.bar.update(self.cases, description=f"case {index + 1}/{count}: {name[:40]}", completed=index,
                            total=count)

