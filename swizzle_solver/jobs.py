"""batch --jobs N (DESIGN.md section 13): the cases worked on by N processes, each outcome handed
back in case order, so that what batch prints is what one process prints, byte for byte.

- *Processes, never copies of the parent* (``fork`` would copy its threads' locks and its caches:
  unsafe, and a case's answer must not depend on what the parent did before): each worker is forked
  from a fresh server process that has imported the package (``forkserver``; ``spawn`` where there
  is none: a fresh interpreter each), and works on case after case.
- *In order*: at most ``WINDOW`` x N cases are handed out ahead of the first one not yet printed, so
  memory stays bounded however many cases there are; the outcomes that come back early wait.
- *One case never stops the others*: a case that raises is an outcome like any other (the caller
  decides what it means). A worker that dies (a crash, ``kill -9``, the kernel's OOM killer) was
  working on exactly one case: that case is run again alone in a process of its own, which names
  the one that dies (``Died``), and a new worker takes the dead one's place.
- *Nothing shared between workers*: each worker has its own pipe to the parent and works on one
  case at a time (issue 39: a pool whose workers share a call queue hangs when one is killed
  holding its lock, or half-way through writing a result). The parent waits on every pipe and on
  every worker's process at once (``multiprocessing.connection.wait``), so a death is seen as soon
  as it happens; a result cut short by a death reads as the death, never as a wait.
- *Stopping*: the workers ignore Ctrl-C (the terminal sends it to the whole process group); the
  parent's Ctrl-C or SIGTERM (entry.py) ends the iteration, whose clean-up terminates the workers;
  a worker whose parent is gone reads the end of its pipe and exits.
"""
from __future__ import annotations

import contextlib
import multiprocessing
import os
import pickle
import signal
import threading
import time
from collections.abc import Callable, Generator, Sequence
from multiprocessing.connection import wait
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
    """``work(item)`` of every item, in ``jobs`` worker processes, each outcome yielded in item order.
    ``work`` and the items are pickled (a module-level function; plain data or partials of them).
    Close the iterator (``contextlib.closing``) to stop early: the workers are then terminated."""
    context = _context()
    workers: list[_Worker] = []
    ahead: dict[int, Outcome] = {}  # settled ahead of their turn
    try:
        workers = [_Worker(context, work) for _ in range(min(jobs, len(items)))]
        handed = 0
        for i in range(len(items)):
            while i not in ahead:
                for w in workers:  # every idle worker gets the next case, WINDOW x jobs ahead at most
                    if w.case is None and handed < len(items) and handed < i + WINDOW * jobs:
                        w.give(handed, items[handed])
                        handed += 1
                for w in _settled(workers):
                    index, outcome = w.case, w.receive()
                    assert index is not None
                    if outcome is None:  # its process died: the case alone, and a new worker in its place
                        w.stop()
                        outcome = _alone(work, items[index], context)
                        workers[workers.index(w)] = _Worker(context, work)
                    ahead[index] = outcome
            yield ahead.pop(i)
        for w in workers:
            w.finish()
    finally:
        for w in workers:
            w.stop()


def _settled(workers: list[_Worker]) -> list[_Worker]:
    """The busy workers that have answered or died, waiting until at least one has."""
    busy = [w for w in workers if w.case is not None]
    if not busy:
        return []
    ready = set(wait([w.conn for w in busy] + [w.process.sentinel for w in busy]))
    return [w for w in busy if w.conn in ready or w.process.sentinel in ready or w.dead]


STARTS = 6  # tries to start a worker (multiprocessing starts a new fork server when it finds the last one dead)


class _Worker:
    """One worker process and its own pipe; ``case``: the index of the case it works on (one at a
    time), None when idle."""

    def __init__(self, context, work: Callable[[Any], Any]):
        for attempt in range(STARTS):
            self.conn, theirs = context.Pipe(duplex=True)
            self.process = context.Process(target=_serve, args=(theirs, work), daemon=True)
            try:
                with _signals_held():
                    self.process.start()
                break
            except (EOFError, OSError):  # the fork server died (killed too): a new one once it is seen dead
                self.conn.close()
                if attempt == STARTS - 1:
                    raise
                time.sleep(0.05 * 2 ** attempt)  # (a killed process closes its socket before it can be reaped)
            finally:
                theirs.close()  # (only the worker holds its end: its death closes the pipe)
        self.case: int | None = None
        self.dead = False

    def give(self, index: int, item: Any) -> None:
        self.case = index
        try:
            self.conn.send_bytes(pickle.dumps(item))
        except (OSError, EOFError):  # it died since its last case: receive says so
            self.dead = True

    def receive(self) -> Outcome | None:
        """The case's outcome, or None when the process died before it answered whole."""
        self.case = None
        try:
            if self.dead or not self.conn.poll():
                return None
            data = self.conn.recv_bytes()
        except (OSError, EOFError):
            return None
        try:
            return pickle.loads(data)
        except Exception as err:  # (a value or exception that does not unpickle here)
            return False, RuntimeError(f"its outcome could not be read back ({type(err).__name__}: {err})")

    def finish(self) -> None:
        """Tell an idle worker to end, and wait a little for it."""
        with contextlib.suppress(OSError):
            self.conn.send_bytes(b"")  # (no case pickles to nothing)
        self.process.join(5)

    def stop(self) -> None:
        """End the worker now (terminated, then killed if it lingers), and close its pipe."""
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(5)
            if self.process.is_alive():
                self.process.kill()
                self.process.join(5)
        self.conn.close()


def _serve(conn, work: Callable[[Any], Any]) -> None:
    """A worker's loop: read a case, work on it, send back its outcome, until told to end or the
    parent's end of the pipe closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    while True:
        try:
            data = conn.recv_bytes()
        except (EOFError, OSError):
            return
        if not data:  # no case left (finish)
            return
        item = pickle.loads(data)
        try:
            outcome: Outcome = (True, work(item))
        except Exception as err:  # the case's own exception: an outcome
            outcome = (False, err)
        try:
            answer = pickle.dumps(outcome)
        except Exception as err:  # (an exception that does not pickle: its words)
            answer = pickle.dumps((False, RuntimeError(f"{type(outcome[1]).__name__}: {outcome[1]} ({err})")))
        try:
            conn.send_bytes(answer)
        except OSError:
            return


def _alone(work: Callable[[Any], Any], item: Any, context) -> Outcome:
    """The case in a process of its own: its outcome, or Died when that process dies too."""
    worker = _Worker(context, work)
    try:
        worker.give(0, item)
        _settled([worker])
        outcome = worker.receive()
        return outcome if outcome is not None else (False, Died("its process died before it answered"))
    finally:
        worker.stop()


@contextlib.contextmanager
def _signals_held():
    """Starting a worker: a signal's exception raised while it is being started would leave it
    half-started (a traceback on stderr from the child that read half its start-up data); so
    Ctrl-C and SIGTERM wait until it is started, then arrive as sent."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    came: list[int] = []
    held = {s: signal.signal(s, lambda signum, frame: came.append(signum)) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, handler in held.items():
            signal.signal(s, handler)
        if came:
            os.kill(os.getpid(), came[0])


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
