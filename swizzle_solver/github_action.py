"""The GitHub Action's step (action.yml, docs/ci.md): `batch` over a cases file, each failed case
annotated on its own ``[[case]]`` line, and a summary table for the job's page.

    python -m swizzle_solver.github_action FILE [batch options, e.g. --exhaustive]

It runs ``swizzle-solve batch FILE --json`` as a child process, so the verdicts are batch's own, and
then prints on stdout one line per case and, for each failed case, a workflow command GitHub turns
into an annotation on that line of the file (in the job and in a pull request's diff):

    ::error file=kernels/swizzles.toml,line=17,title=swizzle-solve%3A case failed::NAME: ...

With ``GITHUB_STEP_SUMMARY`` set (as it is in a GitHub job) it appends a Markdown table of every
case to that file. Bad input (batch's exit 2) becomes one error annotation, on the line of the case
its message names when it names one; batch's warnings become warning annotations. The exit status
is batch's: 0 every case met its expectation, 1 a case failed, 2 bad input.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

# A [[case]] header line: the line a case's annotation points at.
_HEADER = r"\s*\[\[\s*case\s*\]\]\s*(#.*)?"
_PREFIX = r"swizzle-solve: (error|warning): "


def case_lines(text: str) -> list[int]:
    """The 1-based line of each ``[[case]]`` header, in file order (TOML's order of the cases)."""
    return [i for i, line in enumerate(text.splitlines(), 1) if re.fullmatch(_HEADER, line)]


def case_names(text: str) -> list[str]:
    """The cases' names in file order, unnamed ones as batch calls them (#1, #2, ...); [] when the
    file is not TOML with [[case]] tables (batch then says why)."""
    try:
        tables = tomllib.loads(text).get("case")
    except tomllib.TOMLDecodeError:
        return []
    if not isinstance(tables, list):
        return []
    return [str(t.get("name", f"#{i + 1}")) if isinstance(t, dict) else f"#{i + 1}" for i, t in enumerate(tables)]


def line_of_name(text: str) -> dict[str, int]:
    """Each case's name -> its header line, when the headers and the tables agree in number (a
    header written another way, ``[["case"]]``, leaves the annotations on the file alone)."""
    lines, names = case_lines(text), case_names(text)
    return dict(zip(names, lines)) if len(lines) == len(names) else {}


def _escaped(text: str, prop: bool = False) -> str:
    """GitHub's workflow-command escaping: %, CR and LF always; ':' and ',' also in a property."""
    out = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return out.replace(":", "%3A").replace(",", "%2C") if prop else out


def annotation(level: str, file: str, line: int | None, title: str, message: str) -> str:
    """One workflow command: ``::error file=F,line=N,title=T::MESSAGE``."""
    props = [f"file={_escaped(file, True)}"] + ([f"line={line}"] if line else []) + [f"title={_escaped(title, True)}"]
    return f"::{level} {','.join(props)}::{_escaped(message)}"


def verdict(entry: dict, expected: str) -> dict:
    """A batch --json entry as the summary shows it: answer, status (``not usable`` for a checked
    layout that is not a layout of this tile), the expectation, and why it failed."""
    result = entry["result"]
    check = result.get("check")
    answer, status = result["answer"]["name"], result["status"]
    if check and check.get("invalid"):
        status = "not usable"
    why = f"{answer} ({status}), expected {expected}"
    if check and not check.get("passed") and check.get("minimal"):
        why += f"; the minimal layout is {check['minimal']}"
    if entry.get("hint"):
        why += f"; {entry['hint']}"
    return {"name": entry["name"], "ok": entry["ok"], "answer": answer, "status": status, "expected": expected,
            "why": why}


def _cell(text: str) -> str:
    """A Markdown table cell: HTML-escaped (layout names have < and >), pipes escaped, one line."""
    text = " ".join(text.split()).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text.replace("|", "\\|")


def summary(file: str, rows: list[dict], lines: dict[str, int]) -> str:
    """The job summary: a heading with the counts, one table row per case, failures first named."""
    failed = sum(not r["ok"] for r in rows)
    out = [f"### swizzle-solve batch {_cell(file)}: {len(rows) - failed} passed, {failed} failed", "",
           "| | case | line | answer | status | expected |", "|---|---|---|---|---|---|"]
    for r in rows:
        mark = "ok" if r["ok"] else "**FAIL**"
        out.append(f"| {mark} | {_cell(r['name'])} | {lines.get(r['name'], '')} | {_cell(r['answer'])} | "
                   f"{_cell(r['status'])} | {_cell(r['expected'])} |")
    failures = [f"- {_cell(r['name'])}: {_cell(r['why'])}" for r in rows if not r["ok"]]
    return "\n".join(out + ([""] + failures if failures else [])) + "\n\n"


def _line_named(message: str, lines: dict[str, int]) -> int | None:
    """The line of the case a message names (batch quotes it: case 'NAME')."""
    for name, line in lines.items():
        if f"case {name!r}" in message:
            return line
    return None


def run_batch(file: str, options: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "swizzle_solver", "batch", file, "--json", *options],
                          capture_output=True, text=True)


def _expectations(file: str) -> dict[str, str]:
    """Each case's expectation in batch's words (cases.Case.expectation). The file is known good:
    batch has just read it (with --allow-outside if asked; here it only names the cases)."""
    from .cases import load_cases

    return {c.name: c.expectation() for c in load_cases(file, allow_outside=True)}


def _messages(stderr: str, file: str, lines: dict[str, int]) -> list[str]:
    """batch's error and warning lines as annotations (and on stderr, as batch wrote them)."""
    out = []
    for text in stderr.splitlines():
        sys.stderr.write(text + "\n")
        found = re.match(_PREFIX, text)
        if found:
            message = text[found.end():]
            out.append(annotation(found[1], file, _line_named(message, lines), f"swizzle-solve {found[1]}", message))
    return out


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0].startswith("-"):
        sys.stderr.write("usage: python -m swizzle_solver.github_action FILE [batch options]\n")
        return 2
    file, options = args[0], args[1:]
    shown = os.path.relpath(file) if os.path.isabs(file) and Path(file).resolve().is_relative_to(Path.cwd()) else file
    try:
        text = Path(file).read_text(encoding="utf-8", errors="replace")
    except OSError:
        text = ""  # batch says why in its own words
    lines = line_of_name(text)
    run = run_batch(file, options)
    commands = _messages(run.stderr, shown, lines)
    if run.returncode in (0, 1) and run.stdout:
        summary_text = _cases(file, shown, lines, json.loads(run.stdout)["cases"], commands)
    else:
        message = next((m for m in run.stderr.splitlines() if m.startswith("swizzle-solve: error")), "no output")
        summary_text = f"### swizzle-solve batch {_cell(shown)}: bad input\n\n{_cell(message)}\n\n"
    for command in commands:
        print(command)
    target = os.environ.get("GITHUB_STEP_SUMMARY")
    if target:
        with open(target, "a", encoding="utf-8") as f:
            f.write(summary_text)
    return run.returncode


def _cases(file: str, shown: str, lines: dict[str, int], cases: list[dict], commands: list[str]) -> str:
    """Print each case's verdict and the count, add an error annotation per failed case to
    ``commands``; the job summary's text."""
    expected = _expectations(file)
    rows = [verdict(e, expected.get(e["name"], "-")) for e in cases]
    for r in rows:
        where = f" (line {lines[r['name']]})" if r["name"] in lines else ""
        print(f"{'ok  ' if r['ok'] else 'FAIL'}  {r['name']}{where}" + ("" if r["ok"] else f": {r['why']}"))
        if not r["ok"]:
            commands.append(annotation("error", shown, lines.get(r["name"]), "swizzle-solve: case failed",
                                       f"{r['name']}: {r['why']}"))
    failed = sum(not r["ok"] for r in rows)
    print(f"{len(rows) - failed} passed, {failed} failed")
    return summary(shown, rows, lines)


if __name__ == "__main__":
    sys.exit(main())
