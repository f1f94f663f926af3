"""The search's time budget (--timeout) and its progress reports."""
from __future__ import annotations

import time
from typing import Callable

Progress = Callable[[str, int, int], None]  # (family, members done, members in all)


class Budget:
    def __init__(self, timeout: float | None = None, progress: Progress | None = None):
        self.start = time.monotonic()
        self.deadline = None if timeout is None else self.start + timeout
        self.progress = progress

    def expired(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline

    def tick(self, family: str, done: int, total: int) -> None:
        if self.progress is not None:
            self.progress(family, done, total)
