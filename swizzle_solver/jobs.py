"""batch --jobs N (DESIGN.md section 13): the cases worked on by N processes, each outcome handed
back in case order, so that what batch prints is what one process prints, byte for byte.

- *Processes, never copies of the parent* (``fork`` would copy its threads' locks and its caches:
  unsafe, and a case's answer must not depend on what the parent did before): each worker is forked
  from a fresh server process that has imported the package (``forkserver``; ``spawn`` where there
  is none: a fresh interpreter each), and works on case after case.
- *In order*: at most ``WINDOW`` x N cases are handed out ahead of the first one not yet printed, so
  memory stays bounded however many cases there are; the outcomes that come back early wait.
- *One case never stops the others*: a case that raises is an outcome like any other (the caller
  decides what it means); a worker process that dies (a crash, the kernel's OOM killer) breaks the
  pool, so each case that had not come back is run again alone in a process of its own, which names
  the one that dies (``Died``), and the others go on in a new pool.
- *Stopping*: the workers ignore Ctrl-C (the terminal sends it to the whole process group); the
  parent's Ctrl-C or SIGTERM (entry.py) ends the iteration, whose clean-up terminates the workers.
"""
from __future__ import annotations

import multiprocessing
import os
import signal
import threading
from collections.abc import Callable, Generator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from .model import InputError

WINDOW = 32  # cases handed out per worker ahead of the first one not yet printed (a slow case does not idle the others)

Outcome = tuple[bool, Any]  # (True, the work's value) or (False, the exception it raised, or Died)


class Died(Exception):
    """The process working on the case ended without an answer (killed, or crashed)."""


def cpu_count() -> int:
    """The CPUs this process may run on (its affinity: a container's or taskset's limit), else all."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # (not on macOS or Windows)
        return os.cpu_count() or 1


def parse_jobs(text: str) -> int:
    """--jobs: a count of processes; 0 or ``auto``: one per CPU (``cpu_count``)."""
    if text.strip().lower() == "auto":
        return cpu_count()
    try:
        jobs = int(text)
    except ValueError:
        jobs = -1
    if jobs < 0:
        raise InputError(f"--jobs {text!r} must be a number of processes, or 0 or auto for one per CPU "
                         f"(e.g. --jobs 4)")
    return jobs or cpu_count()


def in_order(work: Callable[[Any], Any], items: Sequence[Any], jobs: int) -> Generator[Outcome, None, None]:
    """``work(item)`` of every item, in ``jobs`` spawned processes, each outcome yielded in item order.
    ``work`` and the items are pickled (a module-level function; plain data or partials of them).
    Close the iterator (``contextlib.closing``) to stop early: the workers are then terminated."""
    context = _context()
    ahead: dict[int, Future | Outcome] = {}  # handed out, or settled ahead of their turn
    pool = _pool(jobs, context)
    handed = 0
    try:
        for i in range(len(items)):
            while handed < len(items) and handed < i + WINDOW * jobs:
                try:
                    ahead[handed] = _submit(pool, work, items[handed])
                except BrokenProcessPool:  # a worker died meanwhile: the wait below finds out which
                    break
                handed += 1
            outcome = _outcome(ahead.pop(i, None))  # (None: never handed out, its pool broke first)
            if outcome is None:  # the pool broke: each case handed out that had not come back, alone
                _terminate(pool)
                outcome = _alone(work, items[i], context)
                ahead = {k: _outcome(f) or _alone(work, items[k], context) for k, f in sorted(ahead.items())}
                pool = _pool(jobs, context)
            yield outcome
        pool.shutdown(wait=True)
    finally:
        _terminate(pool)


PRELOAD = ["swizzle_solver.cli", "swizzle_solver.api", "swizzle_solver.report"]  # what every case's worker imports


def _context():
    """``forkserver`` where there is one (POSIX): a server process started fresh imports the package
    once (``PRELOAD``) and every worker is forked from it, single-threaded and clean, so no worker
    pays the imports again; else (Windows) ``spawn``, each worker importing for itself."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(PRELOAD)
    return context


def _outcome(f: Future | Outcome | None) -> Outcome | None:
    """A settled case's outcome; None when its pool broke before it came back."""
    if f is None or isinstance(f, tuple):
        return f
    try:
        return True, f.result()
    except BrokenProcessPool:
        return None
    except Exception as err:  # the case's own exception, raised again here: an outcome
        return False, err


def _alone(work: Callable[[Any], Any], item: Any, context) -> Outcome:
    """The case in a process of its own: its outcome, or Died when that process dies too."""
    pool = _pool(1, context)
    try:
        outcome = _outcome(_submit(pool, work, item))
        return outcome if outcome is not None else (False, Died("its process died before it answered"))
    finally:
        _terminate(pool)


def _submit(pool: ProcessPoolExecutor, work: Callable[[Any], Any], item: Any) -> Future:
    """pool.submit, which may start a worker: a signal's exception raised while a worker is being
    started would leave it half-started (a traceback on stderr from the child that read half its
    start-up data); so Ctrl-C and SIGTERM wait until the submit is done, then arrive as sent."""
    if threading.current_thread() is not threading.main_thread():
        return pool.submit(work, item)
    came: list[int] = []
    held = {s: signal.signal(s, lambda signum, frame: came.append(signum)) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        return pool.submit(work, item)
    finally:
        for s, handler in held.items():
            signal.signal(s, handler)
        if came:
            os.kill(os.getpid(), came[0])


def _pool(jobs: int, context) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=_ignore_interrupts)


def _ignore_interrupts() -> None:
    """In a worker: Ctrl-C is the parent's to handle (it terminates the workers)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _terminate(pool: ProcessPoolExecutor) -> None:
    """Stop the pool now: no new case starts, and the workers still running are terminated (what
    Python 3.14's ``terminate_workers`` does; its process table before)."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    manager = getattr(pool, "_executor_manager_thread", None)
    pool.shutdown(wait=False, cancel_futures=True)
    for p in processes:
        if p.is_alive():
            p.terminate()
    for p in processes:
        p.join(5)
    # Its manager thread then sees the workers gone and ends, dropping the pool's queues, whose
    # semaphores are then released here: a run stopped by a signal ends with os._exit, which runs no
    # finaliser (multiprocessing's resource tracker would report them leaked).
    if manager is not None:
        manager.join(5)
