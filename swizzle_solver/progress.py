"""The search's progress bar: rich, on stderr, shown only once a search has run for a second."""
from __future__ import annotations

import time

DELAY = 1.0  # seconds before a bar appears: a fast solve prints nothing extra


class LazyProgress:
    def __init__(self):
        self.start, self.bar, self.tasks = time.monotonic(), None, {}

    def update(self, family: str, done: int, total: int) -> None:
        if self.bar is None:
            if time.monotonic() - self.start < DELAY:
                return
            from rich.console import Console
            from rich.progress import Progress
            self.bar = Progress(console=Console(stderr=True), transient=True)
            self.bar.start()
        if family not in self.tasks:
            self.tasks[family] = self.bar.add_task(f"searching {family}", total=total)
        self.bar.update(self.tasks[family], completed=done + 1, total=total)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.stop()
        return False
