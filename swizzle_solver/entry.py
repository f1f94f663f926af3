"""The process entry point (the swizzle-solve script, python -m swizzle_solver), apart from cli.py
so that it runs before numpy, rich and typer are imported.

Importing them makes hundreds of thousands of objects and no garbage, yet the cyclic collector
runs every 700 allocations meanwhile, and gets slower as the heap grows: about 25 ms of CPU, more
than the solve and its report (bench/startup.py). So the collector is off during the imports only;
the solve runs with it on, as any Python program does. Before it is turned back on, the objects
the imports made are frozen (``gc.freeze``: moved to the permanent generation): a collector off
still tracks every new object in its youngest generation, so the first collections of the solve
would otherwise walk all of them, twice (young, then middle generation): 15 to 20 ms of CPU. The
collector then walks only what the solve makes.

It also owns how the process ends when something outside the input stops it, at any moment from
main's first line on: Ctrl-C (SIGINT) exits 130 and SIGTERM 143, each with one line on stderr; a
standard output that is closed, full or gone (``| head``) ends the output without a traceback; a
closed standard input or error reads as /dev/null (the answer is still printed); running out of
memory exits 2 with one line; a dependency that cannot be imported (``python3 -m swizzle_solver``
run by a Python the project is not installed in) is one line that says which Python to use
instead, exit 2. The signals raise exceptions that no ``except Exception`` (nor
click's own Ctrl-C handling) catches, so ``finally`` blocks still remove temporary files; a z3
check, which takes Ctrl-C for itself, passes it on (smt.py). A signal whose exception is swallowed
on the way (raised inside a weakref callback or a finaliser, whose exceptions Python only reports,
or caught by a library's bare ``except``) is remembered, so the run still ends 130/143.

Before main's first line, Python's own defaults apply (docs/cli.md, "Signals, closed streams and
memory").
"""
import gc
import os
import signal
import sys

EXIT_INPUT, EXIT_INTERRUPTED, EXIT_TERMINATED = 2, 128 + signal.SIGINT, 128 + signal.SIGTERM


class Stopped(BaseException):
    """The process was told to stop by a signal; ``code`` is the exit status it ends with."""

    code = EXIT_INTERRUPTED
    what = "interrupted"


class Terminated(Stopped):
    code = EXIT_TERMINATED
    what = "terminated"


_stopped: type[Stopped] | None = None  # the first signal seen, even if its exception was swallowed


def _raise(signum: int, frame) -> None:
    global _stopped
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not cut short the clean-up
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    _stopped = Terminated if signum == signal.SIGTERM else Stopped
    raise _stopped()


def _unraisable(hook):
    """sys.unraisablehook that ends the run at once when the exception it is handed is a signal's:
    raised inside a weakref callback or a finaliser (the import system runs some), which Python
    reports and then ignores."""
    def unraisable(info) -> None:
        if isinstance(info.exc_value, Stopped):
            _end(info.exc_value.code, info.exc_value.what)
        hook(info)

    return unraisable


def main() -> int:
    try:
        signal.signal(signal.SIGINT, _raise)
        signal.signal(signal.SIGTERM, _raise)
        return _finish(_main())
    except (Stopped, KeyboardInterrupt) as stop:  # (KeyboardInterrupt: before the handler was in place)
        what = stop if isinstance(stop, Stopped) else Stopped()
        return _end(what.code, what.what)
    except MemoryError:  # cli.py catches it during the run (and says what to make smaller); this is the imports
        pass
    # here, outside the except block, whose traceback holds the memory
    return _end(EXIT_INPUT, "out of memory while starting: let the process use more memory")


def _main() -> int:
    sys.unraisablehook = _unraisable(sys.unraisablehook)
    if sys.stdout is None:  # started with stdout closed (>&-): nowhere to put the answer
        return _end(EXIT_INPUT, "standard output is closed: redirect it to a file or /dev/null")
    _fill_closed_fds()  # before anything opens a file, which would take a closed fd 0 or 2
    _watch()  # after the stdout check: with fd 1 closed, its pipe would take fd 1
    try:
        gc.disable()
        try:
            from .cli import main as cli_main
        except ModuleNotFoundError as err:
            if not _is_dependency(err):
                raise
            return _end(EXIT_INPUT, not_installed(err))
        finally:
            gc.freeze()  # the imports' objects: modules, classes, functions, kept to the end anyway
            # A solve makes few reference cycles but many young containers (rich's segments, numpy's
            # views): at the default 700 the collector runs a dozen times for nothing (~2.5 ms).
            gc.set_threshold(20_000, 10, 10)
            gc.enable()
        code = cli_main()
        try:
            sys.stdout.flush()  # here, so that a failed write is reported, not ignored at shutdown
        except BrokenPipeError:  # the reader left (| head, | true): what it read is all it wanted
            _silence_stdout()
        return code
    except BrokenPipeError:
        _silence_stdout()
        return 0
    except OSError as err:  # stdout full (> /dev/full) or failing; or a file a command made or read
        if err.filename is not None:  # not stdout, whose errors name no file: say which and why
            from .access.inputfile import printable

            return _end(EXIT_INPUT, f"cannot use {printable(str(err.filename))} ({err.strerror or err}): check that "
                                    f"path, its folder and the space on its disk")
        return _end(EXIT_INPUT, f"cannot write the output ({err.strerror or err}): check where stdout goes")


def _is_dependency(err: ModuleNotFoundError) -> bool:
    """A module from outside the package (typer, rich, numpy, ...): not a bug of ours but an
    interpreter without the dependencies."""
    return err.name is not None and err.name.partition(".")[0] != __package__


def not_installed(err: ModuleNotFoundError) -> str:
    """The one line for a Python that lacks the dependencies: usually the system's python3 in a
    shell where the README's venv is not active."""
    return (f"swizzle-solve is not installed for this Python ({sys.executable}: no module named {err.name!r}): "
            f"run .venv/bin/swizzle-solve (or activate the venv first: . .venv/bin/activate), or install it: "
            f"python3 -m venv .venv && .venv/bin/pip install -q -e .")


def _finish(code: int) -> int:
    """``code``, unless a signal came. From here on a signal ends the process at once (there is
    nothing left to clean up); one that came before, even if its exception was swallowed on the
    way, ends it as it would have."""
    signal.signal(signal.SIGINT, _end_now)
    signal.signal(signal.SIGTERM, _end_now)
    if _stopped is not None:
        return _end(_stopped.code, _stopped.what)
    return code


def _end_now(signum: int, frame) -> None:
    stop = Terminated if signum == signal.SIGTERM else Stopped
    _end(stop.code, stop.what)


def _fill_closed_fds() -> None:
    """A closed standard input or error (<&-, 2>&-) reads as /dev/null: the answer still goes to
    stdout (and an error line nowhere), and no file the run opens takes fd 0 or 2, where anything
    that writes to stderr (Python's last-resort messages, z3) would write into it."""
    for fd, name, mode in ((0, "stdin", "r"), (2, "stderr", "w")):
        try:
            os.fstat(fd)
            continue
        except OSError:
            pass
        try:
            null = os.open(os.devnull, os.O_RDWR)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
        except OSError:
            continue
        if getattr(sys, name) is None:  # (the stream is the process's, to its end: no context manager)
            stream = open(fd, mode, buffering=1, closefd=False, encoding="utf-8", errors="backslashreplace")  # noqa: SIM115
            setattr(sys, name, stream)


GRACE_SECONDS = 1.0  # for the main thread to stop by itself before the watcher stops the process


def _watch() -> None:
    """Python runs signal handlers between bytecodes of the main thread, so a long call into C (a
    z3 check, which takes only Ctrl-C for itself) would hold off SIGTERM until it returns. A thread
    hears every signal through the wakeup fd, and ends the process itself if the main thread has not
    within GRACE_SECONDS (ordinarily it has: it removes its temporary files first)."""
    import threading
    import time

    try:
        read, write = os.pipe()
        os.set_blocking(write, False)
        signal.set_wakeup_fd(write, warn_on_full_buffer=False)
    except (OSError, ValueError):
        return

    def watch() -> None:
        while True:
            try:
                data = os.read(read, 64)
            except OSError:
                return
            for signum in (signal.SIGTERM, signal.SIGINT):
                if signum in data:
                    time.sleep(GRACE_SECONDS)
                    stop = Terminated if signum == signal.SIGTERM else Stopped
                    _end(stop.code, stop.what)

    threading.Thread(target=watch, name="swizzle-solve signal watcher", daemon=True).start()


def _end(code: int, message: str) -> int:
    """Stop now: ignore further signals, drop unwritten output, one line on stderr, exit ``code``
    without running the interpreter's shutdown (whose object finalisers could still print)."""
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    except ValueError:  # called by the watcher thread: the main thread is stuck in C and prints nothing
        pass
    _silence_stdout()
    try:
        if sys.stderr is not None:
            sys.stderr.write(f"swizzle-solve: error: {message}\n")
            sys.stderr.flush()
    except (OSError, ValueError):
        pass
    os._exit(code)


def _silence_stdout() -> None:
    """Send whatever is still buffered for stdout, and anything later, to /dev/null."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.close(devnull)
    except OSError:
        pass
