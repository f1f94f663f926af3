"""`--emit mojo` built by `mojo` (PyPI) with the MAX Mojo libraries (`max-mojo-libs`, which carries the
`layout` package), each snippet exactly as emitted.

Every case is one Mojo module, `CASE.mojo`: the snippet, then a `dump()` that prints the offset of
every element the way the snippet says to read it: `smem_offset(r, c)` for a fallback function, the
snippet's own `element (r, c) is at smem_swizzle(...)` for a Swizzle, `materialize[smem_layout]()`
called on `IntTuple(r, c)` for a Layout. One `main.mojo` imports them all and is built once; a case
whose module does not compile gets its own errors and the rest are built again without it.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from toolchain_cases import CASES, expected, indent, mismatches, missing

pytestmark = pytest.mark.toolchain

ISSUE_13_MOJO = (
    "issue 13: Mojo 1.2 has no `alias` (now `comptime`) and no `fn` (now `def`), so every emitted "
    "snippet fails to parse; fix emit_mojo (swizzle_solver/emit.py) to print `comptime` and `def`"
)


@pytest.fixture(scope="module")
def mojo() -> str:
    here = Path(sys.executable).parent / "mojo"
    binary = str(here) if here.exists() else shutil.which("mojo")
    if binary is None:
        missing("mojo", "pip install mojo==1.2.0")
    # max-mojo-libs puts the `layout` package (layout.mojoc) beside the standard library
    libraries = [Path(p) / "modular" / "lib" / "mojo" / "layout.mojoc" for p in sys.path if p]
    if not any(p.exists() for p in libraries):
        missing("the MAX Mojo libraries (the `layout` package)", "pip install --no-deps max-mojo-libs==26.7.0")
    return binary


def _call_at(snippet: str) -> str:
    """`smem_swizzle(...)` from the snippet's `element (r, c) is at smem_swizzle(...)` line."""
    start = re.search(r"element \(r, c\) is at (smem_swizzle\()", snippet).start(1)
    depth = 0
    for end in range(start, len(snippet)):
        depth += {"(": 1, ")": -1}.get(snippet[end], 0)
        if snippet[end] == ")" and depth == 0:
            return snippet[start : end + 1]
    raise ValueError("unbalanced parentheses")


def module(case: str, doc: dict) -> str:
    """The case's Mojo module: the snippet as emitted, then `dump()`."""
    snippet, rows, cols = doc["answer"]["emit"]["mojo"], doc["problem"]["rows"], doc["problem"]["cols"]
    prepare = ""
    if re.search(r"^\s*(?:fn|def)\s+smem_offset\b", snippet, re.M):
        offset = "smem_offset(r, c)"
    elif re.search(r"^\s*\w+\s+smem_swizzle\s*=", snippet, re.M) and "is at smem_swizzle(" in snippet:
        offset = _call_at(snippet)
    elif re.search(r"^\s*\w+\s+smem_layout\s*=", snippet, re.M):
        prepare, offset = "var lay = materialize[smem_layout]()\n", "lay(IntTuple(r, c))"
    else:
        raise AssertionError(f"{case}: the mojo snippet defines no smem_offset, smem_swizzle or smem_layout:\n{snippet}")
    dump = (
        f"{prepare}"
        f'print("{case}", end="")\n'
        f"for r in range({rows}):\n"
        f"    for c in range({cols}):\n"
        f'        print(" ", {offset}, sep="", end="")\n'
        "print()"
    )
    return f"{snippet}\n\n\ndef dump():\n{indent(dump, '    ')}\n"


@pytest.fixture(scope="module")
def built(mojo, answers, tmp_path_factory) -> tuple[dict[str, list[int]], dict[str, str]]:
    """Build every case into one program and run it: (case -> offsets, case -> Mojo's errors for the
    cases that do not compile)."""
    work = tmp_path_factory.mktemp("mojo")
    for case, doc in answers.items():
        (work / f"{case}.mojo").write_text(module(case, doc))
    failed: dict[str, str] = {}
    for _ in range(len(answers) + 1):
        cases = [case for case in answers if case not in failed]
        # line 2i+1 imports case i, line 2i+2 of main's body calls it: an error there is the case's
        lines = [f"import {case}" for case in cases] + ["", "", "def main():"] + [f"    {case}.dump()" for case in cases]
        (work / "main.mojo").write_text("\n".join(lines) + "\n")
        done = subprocess.run(
            [mojo, "build", "main.mojo", "-o", "main"], capture_output=True, text=True, cwd=work, timeout=1200
        )
        if done.returncode == 0:
            break
        blamed = _blame(done.stdout + done.stderr, cases)
        if not blamed:
            pytest.fail(f"mojo build fails outside every case:\n{done.stderr[-4000:]}", pytrace=False)
        failed.update(blamed)
        if len(failed) == len(answers):
            return {}, failed
    run = subprocess.run([str(work / "main")], capture_output=True, text=True, cwd=work, timeout=600)
    assert run.returncode == 0, run.stderr
    offsets = {}
    for line in run.stdout.splitlines():
        case, *numbers = line.split()
        offsets[case] = [int(n) for n in numbers]
    return offsets, failed


def _blame(output: str, cases: list[str]) -> dict[str, str]:
    """Mojo's errors grouped by case: an error in CASE.mojo, or on main.mojo's lines for CASE."""
    blamed: dict[str, str] = {}
    for match in re.finditer(r"^(\S*?)([^/\s]+)\.mojo:(\d+):\d+: error: .*$", output, re.M):
        stem, line = match.group(2), int(match.group(3))
        if stem == "main":
            index = line - 1 if line <= len(cases) else line - len(cases) - 4
            case = cases[index] if 0 <= index < len(cases) else None
        else:
            case = stem if stem in cases else None
        if case is None:
            return {}
        blamed[case] = blamed.get(case, "") + match.group(0) + "\n"
    return blamed


@pytest.mark.parametrize("case", [pytest.param(case, marks=pytest.mark.xfail(strict=True, reason=ISSUE_13_MOJO)) for case in CASES])
def test_mojo_builds_and_run_matches_expression(built, answers, case):
    offsets, failed = built
    doc = answers[case]
    snippet = doc["answer"]["emit"]["mojo"]
    assert case not in failed, f"mojo build rejects the {case} snippet:\n{failed[case]}\n{snippet}"
    bad = mismatches(offsets[case], expected(doc), doc["problem"]["cols"])
    assert not bad, f"{case} mojo: {bad}\n{snippet}"
