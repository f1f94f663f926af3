"""`--emit mojo` built by `mojo` (PyPI) with the MAX Mojo libraries (`max-mojo-libs`, which carries the
`layout` package), each snippet exactly as emitted.

Every case is one Mojo module, `CASE.mojo`: the snippet, then a `dump()` that prints the offset of
every element the way the snippet says to read it: `smem_offset(r, c)` for a fallback function, the
snippet's own `element (r, c) is at smem_swizzle(...)` for a Swizzle (after its `, with var lay =
materialize[...]()` when it names one: column panels, a Swizzle of a Layout's offset),
`materialize[smem_layout]()` called on `IntTuple(r, c)` for a Layout. A snippet is a fallback
function exactly when the answer does not claim `mojo` (`expressible_in`). Each `# the same: make_swizzle[...]()` alternative is a
module of its own, read the same way. One `main.mojo` imports them all and is built once; a module
that does not compile gets its own errors and the rest are built again without it.
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

@pytest.fixture(scope="session")  # session: checked before `answers` solves anything
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


def _prepared(snippet: str) -> str:
    """The snippet's `..., with var NAME = materialize[LAYOUT]()` after `element (r, c) is at ...`, as a
    statement (the layout the swizzle's argument is read from), or ''."""
    found = re.search(r"element \(r, c\) is at .*, with (var \w+ = materialize\[\w+\]\(\))", snippet)
    return f"{found.group(1)}\n" if found else ""


def module(case: str, doc: dict) -> str:
    """The case's Mojo module: the snippet as emitted, then `dump()`."""
    snippet, rows, cols = doc["answer"]["emit"]["mojo"], doc["problem"]["rows"], doc["problem"]["cols"]
    prepare = ""
    if re.search(r"^\s*(?:fn|def)\s+smem_offset\b", snippet, re.M):
        offset = "smem_offset(r, c)"
    elif re.search(r"^\s*\w+\s+smem_swizzle\s*=", snippet, re.M) and "is at smem_swizzle(" in snippet:
        prepare, offset = _prepared(snippet), _call_at(snippet)
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


MOJO_DTYPE = {1: "DType.int8", 2: "DType.float16", 4: "DType.float32", 8: "DType.float64"}


def alternatives(case: str, doc: dict) -> dict[str, str]:
    """One Mojo module per `# the same: make_swizzle[...]()` line of the snippet, named CASE_altI:
    the snippet's imports (and a `TensorMapSwizzle` import if the snippet gives one anywhere), the
    tile's `dtype`, `comptime alt = make_swizzle[...]()`, read like `smem_swizzle` on every element."""
    snippet, rows, cols = doc["answer"]["emit"]["mojo"], doc["problem"]["rows"], doc["problem"]["cols"]
    made = re.findall(r"^#.*?the same(?: swizzle)?: (make_swizzle\[.*?\]\(\))", snippet, re.M)
    if not made:
        return {}
    imports = [line for line in snippet.splitlines() if re.match(r"(from|import)\s", line)]
    imports += [m.group(1) for m in re.finditer(r"(from \S+ import [\w, ]*\bTensorMapSwizzle\b)", snippet)]
    layouts = [line for line in snippet.splitlines() if re.match(r"comptime \w+ = Layout\(", line)]  # read by the call
    offset = _call_at(snippet).replace("smem_swizzle(", "alt(", 1)
    modules = {}
    for i, call in enumerate(made):
        dump = (
            f"{_prepared(snippet)}"
            f'print("{case}_alt{i}", end="")\n'
            f"for r in range({rows}):\n"
            f"    for c in range({cols}):\n"
            f'        print(" ", {offset}, sep="", end="")\n'
            "print()"
        )
        modules[f"{case}_alt{i}"] = "\n".join(
            [*imports, "", f"comptime dtype = {MOJO_DTYPE[doc['problem']['elem_bytes']]}  # the tile's element type",
             *layouts, f"comptime alt = {call}", "", "", "def dump():", indent(dump, "    "), ""]
        )
    return modules


@pytest.fixture(scope="module")
def built(mojo, answers, tmp_path_factory) -> tuple[dict[str, list[int]], dict[str, str], dict[str, str]]:
    """Build every case and every make_swizzle alternative (a module each) into one program and run
    it: (module -> offsets, module -> Mojo's errors for the modules that do not compile, alternative
    module -> the make_swizzle call it checks)."""
    work = tmp_path_factory.mktemp("mojo")
    modules, calls = {}, {}
    for case, doc in answers.items():
        modules[case] = module(case, doc)
        for name, text in alternatives(case, doc).items():
            modules[name] = text
            calls[name] = re.search(r"comptime alt = (.*)", text).group(1)
    for name, text in modules.items():
        (work / f"{name}.mojo").write_text(text)
    failed: dict[str, str] = {}
    for _ in range(len(modules) + 1):
        names = [name for name in modules if name not in failed]
        # lines 1..n import the modules, line n + 4 + i calls module i: an error there is that module's
        lines = [f"import {name}" for name in names] + ["", "", "def main():"] + [f"    {name}.dump()" for name in names]
        (work / "main.mojo").write_text("\n".join(lines) + "\n")
        done = subprocess.run(
            [mojo, "build", "main.mojo", "-o", "main"], capture_output=True, text=True, cwd=work, timeout=1200
        )
        if done.returncode == 0:
            break
        blamed = _blame(done.stdout + done.stderr, names)
        if not blamed:
            pytest.fail(f"mojo build fails outside every case:\n{done.stderr[-4000:]}", pytrace=False)
        failed.update(blamed)
        if len(failed) == len(modules):
            return {}, failed, calls
    run = subprocess.run([str(work / "main")], capture_output=True, text=True, cwd=work, timeout=600)
    assert run.returncode == 0, run.stderr
    offsets = {}
    for line in run.stdout.splitlines():
        name, *numbers = line.split()
        offsets[name] = [int(n) for n in numbers]
    return offsets, failed, calls


def _blame(output: str, names: list[str]) -> dict[str, str]:
    """Mojo's errors grouped by module: an error in NAME.mojo, or on main.mojo's lines for NAME."""
    blamed: dict[str, str] = {}
    for match in re.finditer(r"^(\S*?)([^/\s]+)\.mojo:(\d+):\d+: error: .*$", output, re.M):
        stem, line = match.group(2), int(match.group(3))
        if stem == "main":
            index = line - 1 if line <= len(names) else line - len(names) - 4
            name = names[index] if 0 <= index < len(names) else None
        else:
            name = stem if stem in names else None
        if name is None:
            return {}
        blamed[name] = blamed.get(name, "") + match.group(0) + "\n"
    return blamed


@pytest.mark.parametrize("case", CASES)
def test_mojo_builds_and_run_matches_expression(mojo, built, answers, case):
    offsets, failed, _ = built
    doc = answers[case]
    snippet = doc["answer"]["emit"]["mojo"]
    assert case not in failed, f"mojo build rejects the {case} snippet:\n{failed[case]}\n{snippet}"
    bad = mismatches(offsets[case], expected(doc), doc["problem"]["cols"])
    assert not bad, f"{case} mojo: {bad}\n{snippet}"
    fallback = re.search(r"^\s*def\s+smem_offset\b", snippet, re.M) is not None
    claimed = "mojo" in doc["answer"]["expressible_in"]
    assert claimed != fallback, f"{case}: expressible_in {'claims' if claimed else 'refuses'} mojo, and the snippet is {'a fallback' if fallback else 'Mojo layout code'}:\n{snippet}"


def _check_alternatives(built, answers, tma: bool) -> None:
    offsets, failed, calls = built
    chosen = {name: call for name, call in calls.items() if ("TensorMapSwizzle" in call) == tma}
    assert chosen, "no snippet offers such a make_swizzle alternative"
    problems = []
    for name, call in chosen.items():
        doc = answers[name.split("_alt")[0]]
        if name in failed:
            problems.append(f"{name}: {call} does not build:\n{failed[name]}")
        elif bad := mismatches(offsets[name], expected(doc), doc["problem"]["cols"]):
            problems.append(f"{name}: {call}: {bad}")
    assert not problems, "\n".join(problems)


def test_mojo_make_swizzle_by_shape_is_the_same(mojo, built, answers):
    """Every `# the same: make_swizzle[num_rows=, row_size=, access_size=]()` gives the same offsets."""
    _check_alternatives(built, answers, tma=False)


def test_mojo_make_swizzle_by_tma_mode_is_the_same(mojo, built, answers):
    """Every `# the same: make_swizzle[dtype, TensorMapSwizzle.SWIZZLE_xxB]()` builds with the import
    the snippet gives, and gives the same offsets."""
    _check_alternatives(built, answers, tma=True)
