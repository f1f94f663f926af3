"""--timeout over the whole run: a wall-clock alarm, so that no step after the search (building
the report of thousands of patterns took 11 s past a 0.5 s --timeout) can outlast it by much.

When it fires in a solve or a check, the CLI prints the short form of the best layout known
(overtime.py); only while the input is still being read is there nothing to print, and the run
ends with one line on stderr (exit 1)."""
from __future__ import annotations


class RunTimeout(Exception):
    """--timeout and its grace ran out before anything was printed (arm_deadline)."""


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

    if (timeout is None or timeout > MAX_ALARM_SECONDS or not hasattr(signal, "setitimer")
            or threading.current_thread() is not threading.main_thread()):
        return
    grace = report_grace(timeout)

    def expire(signum, frame):
        disarm_deadline()
        raise RunTimeout(f"--timeout {timeout:g}: the run went {grace:g} s past it while reading the input, before "
                         f"any layout was measured: raise --timeout or give fewer patterns")

    signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, timeout + grace)


def disarm_deadline() -> None:
    import signal

    if hasattr(signal, "setitimer") and signal.getsignal(signal.SIGALRM) not in (signal.SIG_DFL, signal.SIG_IGN, None):
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
