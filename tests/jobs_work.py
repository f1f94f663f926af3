"""The workers' jobs of tests/test_batch_jobs.py (jobs.in_order pickles a job by its module and name):
in a module of their own that imports nothing heavy, because every worker, each worker started
again after a death, and each case run again alone imports the job's module. Importing the test
module there (pytest and the test's own imports: 0.13 s) took 1.1 s of the eight cases with three
deaths; this module, 0.1 s in all."""
from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path


def work(x: int) -> int:
    """A worker's job for the tests below: item 2 raises, item 4 kills its process."""
    if x == 2:
        raise ValueError("two")
    if x == 4:
        os._exit(3)
    return x * x


def dies_once(task: tuple[str, int]) -> int:
    """A worker's job: the first time item ``n`` is worked on (a marker file says so), its process
    is killed with SIGKILL in the middle of it; the run again alone answers."""
    folder, n = task
    marker = Path(folder) / f"died-{n}"
    if n % 3 == 1 and not marker.exists():
        marker.write_text("")
        os.kill(os.getpid(), signal.SIGKILL)
    return n * n


def half_written(task: tuple[str, int]) -> int:
    """A worker's job: the first time, the process writes the start of a result frame (a length
    of 1000 bytes, 10 of them) to its pipe to the parent, then dies: a result cut short."""
    import struct

    folder, n = task
    marker = Path(folder) / f"half-{n}"
    if n == 3 and not marker.exists():
        marker.write_text("")
        for fd in os.listdir("/proc/self/fd"):  # the worker's socket: its pipe to the parent
            with contextlib.suppress(OSError):
                if os.readlink(f"/proc/self/fd/{fd}").startswith("socket:"):
                    os.write(int(fd), struct.pack("!i", 1000) + b"x" * 10)
        os._exit(0)
    return n * n
