"""Issue 39 item 5: the API is safe from threads, and a result is an immutable view of the cache.

- 8 threads solving and checking at once (fresh processes: the lazy family registry's first load
  is the race the issue found) give the serial answers (made in the test's own process), document
  for document;
- every attribute reachable from a cached ``Result`` or a ``Checked`` (private ones included) is
  assigned, every list, dict, set and array reached is changed, one at a time: each either
  refuses (FrozenError, a read-only array) or changes nothing a later solve or check returns.

The acceptance run (8 threads x 250 mixed solves, in 10 fresh processes) is in the slow tier; the
fast tier keeps one process of 8 threads x 12 calls and the whole mutation walk."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Problems whose searches reach the later families (their modules load on first use, in a thread),
# the caches' shared patterns (the same access on the same tile), checks, and cache=False calls.
RACE = r'''
import hashlib, json, sys, threading
from concurrent.futures import ThreadPoolExecutor
from swizzle_solver import InputError, check, solve

PROBLEMS = [dict(rows=32, cols=64, dtype="f32", access=["warp:4x8:1x8", "warp:32x1:1x4"]),
            dict(rows=64, cols=64, dtype="f32", access=["4x8", "row", "col"]),
            dict(rows=64, cols=62, dtype="f16", access=["8x1", "8x16", "col"]),
            dict(rows=32, cols=32, dtype="f32", access=["8x4", "col", "row"]),
            dict(rows=64, cols=64, dtype="f16", access=["ldmatrix.x4", "row"]),
            dict(rows=32, cols=32, dtype="f32", access=["8x4", "col"], order="col"),
            dict(rows=16, cols=16, dtype="f16", access=["8x8"]),
            dict(rows=64, cols=64, dtype="f16", access=["ds_write_b128:8x8", "mfma-a:32x32x8"], arch="gfx942")]
CHECKS = ["Swizzle<3,3,3>", "none", "Swizzle<1,3,3>", "expr: r * 64 + (c ^ ((r & 7) << 3))"]


def call(i):
    p = PROBLEMS[i % len(PROBLEMS)]
    try:
        if i % 3 == 2:
            c = check(CHECKS[i % len(CHECKS)], **p)
            doc = c.json()
        else:
            doc = solve(**p, cache=i % 5 != 4).json()
    except InputError as err:
        return "input error: " + str(err)
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()


threads, calls = int(sys.argv[1]), int(sys.argv[2])
if threads == 1:
    out = [call(i) for i in range(calls)]
else:
    barrier = threading.Barrier(threads)

    def worker(k):
        barrier.wait()
        got = {}
        for i in range(k, calls, threads):
            try:
                got[i] = call(i)
            except Exception as err:
                got[i] = f"EXCEPTION {type(err).__name__}: {err}"
        return got

    with ThreadPoolExecutor(threads) as ex:
        merged = {}
        for got in ex.map(worker, range(threads)):
            merged.update(got)
    out = [merged[i] for i in range(calls)]
print(json.dumps(out))
'''


def run(code: str, *args: str, timeout: float = 600) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=timeout)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def serial_answers(calls: int) -> list[str]:
    """RACE's calls one after the other, in this process (the reference; the race needs the fresh
    processes, the reference does not: a wrong answer here would differ from the threads' and fail)."""
    namespace: dict = {}
    exec(RACE.split("\nthreads, calls = ")[0], namespace)
    return [namespace["call"](i) for i in range(calls)]


def threaded_equals_serial(threads: int, calls: int, processes: int) -> None:
    serial = serial_answers(calls)
    assert not any(s.startswith("EXCEPTION") for s in serial)
    for _ in range(processes):
        threaded = json.loads(run(RACE, str(threads), str(calls)))
        wrong = [(i, t) for i, (s, t) in enumerate(zip(serial, threaded)) if s != t]
        assert not wrong, wrong[:5]


def test_eight_threads_in_a_fresh_process_give_the_serial_answers():
    threaded_equals_serial(8, 24, 1)


@pytest.mark.slow
def test_eight_threads_of_250_mixed_solves_in_ten_fresh_processes():
    threaded_equals_serial(8, 250, 10)


MUTATE = r'''
import json, sys
import numpy as np
from swizzle_solver import api, check, solve
from swizzle_solver.value import FrozenError

A = dict(rows=64, cols=64, dtype="f16", access=["ldmatrix.x4", "row"])
B = dict(rows=32, cols=32, dtype="f32", access=["8x4", "col"])
C = dict(rows=64, cols=64, dtype="f32", access=["4x8", "row", "col"])  # conflicts: the later families, a table


def answers():
    out = []
    for p in (A, B, C):
        try:
            r = solve(**p)
            out.append([r.name, r.status, r.json(), r.emit("cuda"), check("Swizzle<3,3,3>", **p).json()])
        except Exception as err:  # a poisoned cache may raise: that is a change too
            out.append(f"{type(err).__name__}: {err}")
    return json.dumps(out, sort_keys=True)


def reachable(root):
    """(path, object) of everything reachable through attributes (private ones too), items and properties."""
    seen, out, todo = set(), [], [("root", root, 0)]
    while todo:
        path, obj, depth = todo.pop()
        if id(obj) in seen or depth > 12 or isinstance(obj, (str, bytes, int, float, bool, type(None), type)):
            continue
        if callable(obj) and not hasattr(obj, "__dict__") and not hasattr(obj, "__slots__"):
            continue
        if type(obj).__module__ in ("_thread", "threading"):
            continue
        seen.add(id(obj))
        out.append((path, obj))
        if isinstance(obj, np.ndarray):
            continue
        if isinstance(obj, dict):
            todo += [(f"{path}[{k!r}]", v, depth + 1) for k, v in list(obj.items())[:40]]
            continue
        if isinstance(obj, (list, tuple, set, frozenset)):
            todo += [(f"{path}[{i}]", v, depth + 1) for i, v in enumerate(list(obj)[:40])]
            continue
        names = set(getattr(obj, "__dict__", None) or ())
        for cls in type(obj).__mro__:
            names |= set(getattr(cls, "__slots__", ()) or ())
            names |= {k for k, v in vars(cls).items() if isinstance(v, property)}
        for name in sorted(names):
            if name.startswith("__"):
                continue
            try:
                value = getattr(obj, name)
            except Exception:
                continue
            if callable(value) and not isinstance(value, (list, dict)) and not hasattr(value, "__dict__"):
                continue
            todo.append((f"{path}.{name}", value, depth + 1))
    return out


def attempts(obj):
    """Ways to change ``obj`` in place: (what, thunk)."""
    if isinstance(obj, np.ndarray):
        return [("array", lambda: obj.__setitem__((0,) * obj.ndim, obj.flat[0] + 1 if obj.size else 0))] if obj.size else []
    if isinstance(obj, list):
        return [("list", lambda: obj.append(obj[0] if obj else None))]
    if isinstance(obj, dict):
        return [("dict", lambda: obj.__setitem__(next(iter(obj)) if obj else "x", "MUTATED"))]
    if isinstance(obj, set):
        return [("set", lambda: obj.add("MUTATED"))]
    if isinstance(obj, (tuple, frozenset)):
        return []
    names = set(getattr(obj, "__dict__", None) or ())
    for cls in type(obj).__mro__:
        names |= set(getattr(cls, "__slots__", ()) or ())
    return [(f"setattr {n}", lambda n=n: setattr(obj, n, None)) for n in sorted(names) if not n.startswith("__")]


reference = answers()
kind = sys.argv[1]
roots = {"solve": lambda: solve(**C), "check": lambda: check("Swizzle<1,3,3>", **C)}


def fresh():
    """The cache filled again, and the root's reachable objects by path (the table built first, so
    that its lazy parts are reachable)."""
    api.cache_clear()
    answers()
    root = roots[kind]()
    root.json()
    return dict(reachable(root))


found = fresh()
tried = changed = 0
bad = []
for path in list(found):
    k = 0
    while path in found and k < len(attempts(found[path])):
        what, thunk = attempts(found[path])[k]
        k += 1
        tried += 1
        try:
            thunk()
        except (FrozenError, ValueError, TypeError, AttributeError):
            continue
        changed += 1  # (a copy the caller owns may change: then nothing later may)
        if answers() != reference:
            bad.append(f"{path}: {what}")
        found = fresh()
print(json.dumps({"tried": tried, "changed": changed, "bad": bad}))
'''


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["solve", "check"])
def test_nothing_reachable_from_a_result_changes_a_later_answer(kind):
    got = json.loads(run(MUTATE, kind))
    assert got["tried"] > 40  # the walk reached the cache's records, not just the top
    assert got["bad"] == [], got["bad"]


def test_a_result_refuses_the_reported_poisoning():
    """The issue's reproducer, and the table's lists: refused, and the later solve unchanged."""
    from swizzle_solver import api
    from swizzle_solver.value import FrozenError

    a = dict(rows=64, cols=64, dtype="f32", access=["4x8", "row", "col"])
    b = dict(rows=32, cols=32, dtype="f32", access=["8x4", "col"])
    api.cache_clear()
    r1, r2 = api.solve(**a), api.solve(**b)
    before = json.dumps(r1.json())
    with pytest.raises(FrozenError):
        r1.tabled.answered = r2.tabled.answered
    with pytest.raises(FrozenError):
        r1.tabled._full = r2.tabled.full()
    full = r1.tabled.full()
    for change in (lambda: full.table.alternatives.reverse(), lambda: full.table.families.clear(),
                   lambda: setattr(full.table.families[0], "best_excess", 99),
                   lambda: r1.answered.table.families.append(None)):
        with pytest.raises(FrozenError):
            change()
    assert json.dumps(api.solve(**a).json()) == before
    # what result.solution hands out is the caller's copy: changing it changes nothing later
    mine = r1.solution
    mine.table.alternatives.reverse()
    mine.table.families[0].best_excess = 99
    assert json.dumps(api.solve(**a).json()) == before
