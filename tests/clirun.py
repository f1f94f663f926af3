"""The CLI run in this process, answered as a process would be: ``subprocess.CompletedProcess``
(returncode, stdout, stderr as text).

A ``python -m swizzle_solver`` process costs about half a second of start-up (more on a loaded
machine); ``cli.main(argv)`` is the very function the entry point calls, so a test of what the
tool prints or exits with runs it here. What only a real process shows stays a process (the
``process`` function below, or the test's own ``subprocess`` call): signals (--timeout's wall-clock
alarm included: in pytest's process an exception its handler raises inside a gc callback of another
library, hypothesis', is swallowed), closed or full pipes and stderr, start-up imports and their cost, ``gc.freeze`` at exit, the entry point itself, the
same output across processes (hash seeds). docs/contributing.md, "Test tiers", says which is which.
"""
from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@contextlib.contextmanager
def _environment(env: dict[str, str] | None):
    """os.environ with ``env``'s values for as long as the run (only the variables the CLI reads
    matter: COLUMNS for rich's width); restored after."""
    if not env:
        yield
        return
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def solve(*argv, cwd: str | Path | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``swizzle-solve ARGV`` run by ``cli.main`` here, with ``cwd`` as the working directory (default
    the checkout, as the process tests had) and ``env``'s variables set (e.g. ``{"COLUMNS": "200"}``)."""
    from swizzle_solver.cli import main

    args = [str(a) for a in argv]
    out, err = io.StringIO(), io.StringIO()
    here = os.getcwd()
    try:
        os.chdir(cwd or ROOT)
        with _environment(env), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(args)
    finally:
        os.chdir(here)
    return subprocess.CompletedProcess(["swizzle-solve", *args], code, out.getvalue(), err.getvalue())


def process(*argv, cwd: str | Path | None = None, env: dict[str, str] | None = None,
            timeout: float | None = 120) -> subprocess.CompletedProcess:
    """``python -m swizzle_solver ARGV`` as a real process (the checkout's code from any ``cwd``)."""
    full = {**os.environ, **(env or {}), "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "swizzle_solver", *map(str, argv)], capture_output=True, text=True,
                          cwd=cwd or ROOT, env=full, timeout=timeout)


def assert_input_error(result, *words) -> str:
    """Exit 2, one line on stderr naming the problem (each of ``words`` in it), nothing on stdout, no
    traceback: the contract for bad input. Returns the line."""
    assert result.returncode == 2, (result.returncode, result.stdout[-300:], result.stderr[-600:])
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("swizzle-solve: error: "), result.stderr[-600:]
    for w in words:
        assert w in lines[0], (w, lines[0])
    return lines[0]
