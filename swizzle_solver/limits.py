"""Caps on the size of a problem, so that no input can take the machine's memory or hours to read.

No kernel tile comes near them: a tile has a handful of accesses, and the largest tile (512 KiB,
model.MAX_STORAGE_BYTES) read whole by 1-byte lanes is 2^19 placements of one lane. Each cap names
the option that raises it (--max-patterns, --max-placements, --max-lanes).

    patterns     256     access patterns in all (--access, every --phases pattern, --linear-layout)
    placements   2^21    placements (phases) of all the patterns together
    lanes        2^23    lane accesses of all the placements together (placements x widest phase),
                         about 200 MB of lane arrays
"""
from __future__ import annotations

from dataclasses import dataclass

from .model import InputError


@dataclass(frozen=True)
class Limits:
    patterns: int = 256
    placements: int = 1 << 21
    lanes: int = 1 << 23


DEFAULT = Limits()
current = DEFAULT  # set by the command line's --max-* options for the run


def check_count(patterns: int, limits: Limits | None = None) -> None:
    """Before any pattern is built: how many there will be."""
    limits = limits or current
    if patterns > limits.patterns:
        raise InputError(f"{patterns} access patterns is more than the limit of {limits.patterns}: give fewer, or "
                         f"raise it with --max-patterns")


def check_patterns(patterns, limits: Limits | None = None) -> None:
    """After each pattern is built: the placements and lanes of all of them so far."""
    check_count(len(patterns), limits)
    check_size(sum(p.lane_row.shape[0] for p in patterns), sum(p.lane_row.size for p in patterns), limits)


def check_size(placements: int, lanes: int, limits: Limits | None = None) -> None:
    """Before a pattern's lane arrays are built (``lanes``: placements x widest phase), or after."""
    limits = limits or current
    if placements > limits.placements:
        raise InputError(f"the access patterns have {placements} placements, more than the limit of "
                         f"{limits.placements}: give a smaller tile or fewer patterns, or raise it with --max-placements")
    if lanes > limits.lanes:
        raise InputError(f"the access patterns have {lanes} lane accesses, more than the limit of {limits.lanes}: "
                         f"give a smaller tile or fewer patterns, or raise it with --max-lanes")


class RunTimeout(Exception):
    """--timeout ran out after the search, while the report was being built (run_deadline)."""


MAX_ALARM_SECONDS = 10**6  # a longer --timeout (1e308 is allowed) is no bound the alarm needs to keep


def report_grace(timeout: float) -> float:
    """How long past --timeout the whole run may go: the search stops at the timeout and prints
    the best layout found; building that report gets half as long again, at least half a second."""
    return max(0.5, timeout / 2)


def arm_deadline(timeout: float | None) -> None:
    """Raise RunTimeout once timeout + report_grace(timeout) have passed: a wall-clock alarm, so
    that no step of the run, the report included, can outlast --timeout by more. Disarm it before
    printing starts (so that the output is never cut in half) and when the run ends."""
    import signal
    import threading

    if timeout is None or timeout > MAX_ALARM_SECONDS or not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        return
    grace = report_grace(timeout)

    def expire(signum, frame):
        disarm_deadline()
        raise RunTimeout(f"--timeout {timeout:g}: the run went {grace:g} s past it while building the report, so "
                         f"nothing was printed: raise --timeout or give fewer patterns")

    signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, timeout + grace)


def end_run() -> None:
    """Back to the default caps, no alarm: what a run of the command line set is undone."""
    global current
    current = DEFAULT
    disarm_deadline()


def disarm_deadline() -> None:
    import signal

    if hasattr(signal, "setitimer") and signal.getsignal(signal.SIGALRM) not in (signal.SIG_DFL, signal.SIG_IGN, None):
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)


def limits_of(patterns: int, placements: int, lanes: int) -> Limits:
    for option, value in (("--max-patterns", patterns), ("--max-placements", placements), ("--max-lanes", lanes)):
        if value < 1:
            raise InputError(f"{option} {value} must be a positive number")
    return Limits(patterns, placements, lanes)
