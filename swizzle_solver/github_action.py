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
is batch's: 0 every case met its expectation, 1 a case failed, 2 bad input (also a
``GITHUB_STEP_SUMMARY`` that cannot be written: one line on stderr, nothing on stdout).

Everything printed comes from files a pull request can change (case names, file names, layouts), so
none of it may be read by the runner as a command (docs/cli.md, "Text from the input"): a
workflow command's message and properties are escaped as GitHub's toolkit (``@actions/core``)
escapes them, and every other line is one printable line in which the runner finds no command (it
takes a line whose first non-blank characters are ``::``, or any line holding ``##[``, the old
syntax). The summary is Markdown whose cells are HTML- and Markdown-escaped.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

from .access.inputfile import escaped, printable
from .cases import shown_name
from .model import InputError

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
    """GitHub's workflow-command escaping (``@actions/core``'s escapeData and escapeProperty): %, CR
    and LF always; ':' and ',' also in a property. Other control characters then become their
    Python escapes (``escaped``), so the command is one line a terminal shows as written. (The
    runner reads the old syntax, ``##[``, only in a line that is not a ``::`` command.)"""
    out = escaped(text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))
    return out.replace(":", "%3A").replace(",", "%2C") if prop else out


def plain(text: str) -> str:
    """A log line that is not a workflow command, whatever ``text`` holds: one printable line
    (``printable``) in which the runner finds no command. The runner reads a line as a command when
    it starts with ``::`` after blanks, or holds ``##[`` anywhere (actions/runner ActionCommand
    TryParseV2 and TryParse); those become ``\\x3a:`` and ``##\\x5b``, Python's escapes of ':' and
    '[', as printable writes control characters."""
    return printable(text)


def annotation(level: str, file: str, line: int | None, title: str, message: str) -> str:
    """One workflow command: ``::error file=F,line=N,title=T::MESSAGE``."""
    props = [f"file={_escaped(file, True)}"] + ([f"line={line}"] if line else []) + [f"title={_escaped(title, True)}"]
    return f"::{level} {','.join(props)}::{_escaped(message)}"


def verdict(entry: dict, expected: str) -> dict:
    """A batch --json entry as the summary shows it: answer, status (``not usable`` for a checked
    layout that is not a layout of this tile), the expectation, and why it failed. An entry with
    ``error`` in place of ``result`` (a case that stopped with an internal error, or whose worker
    died: docs/json.md) fails with that error as its reason."""
    if "result" not in entry:
        return {"name": entry["name"], "ok": False, "answer": "-", "status": "error", "expected": expected,
                "why": str(entry.get("error", "no result"))}
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
    """A Markdown table cell: one printable line, HTML-escaped (layout names have < and >), pipes
    and Markdown's emphasis, code and link characters backslash-escaped (shown as written: a case
    name cannot add a link, an image or formatting to the job's page)."""
    text = printable(" ".join(text.split())).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return re.sub(r"([\\|*_`\[\]~])", r"\\\1", text)


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
    """The line of the case a message names (batch quotes it: case 'NAME', the name as the file
    has it while the file is read, as batch prints it once the cases run: cases.shown_name)."""
    for name, line in lines.items():
        if printable(f"case {name!r}") in message or f"case {shown_name(name)!r}" in message:
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
    """batch's error and warning lines as annotations."""
    out = []
    for text in stderr.splitlines():
        found = re.match(_PREFIX, text)
        if found:
            message = text[found.end():]
            out.append(annotation(found[1], file, _line_named(message, lines), f"swizzle-solve {found[1]}", message))
    return out


def _cases_of(run: subprocess.CompletedProcess) -> list[dict] | None:
    """The entries of batch's --json document, or None when it printed none whole (it stopped with
    bad input, or died: its stderr says why)."""
    if run.returncode not in (0, 1) or not run.stdout:
        return None
    try:
        cases = json.loads(run.stdout)["cases"]
    except (ValueError, KeyError, TypeError):
        return None
    ok = isinstance(cases, list) and all(isinstance(e, dict) and isinstance(e.get("name"), str) for e in cases)
    return cases if ok else None


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0].startswith("-"):
        sys.stderr.write("usage: python -m swizzle_solver.github_action FILE [batch options]\n")
        return 2
    file, options = args[0], args[1:]
    shown = os.path.relpath(file) if os.path.isabs(file) and Path(file).resolve().is_relative_to(Path.cwd()) else file
    try:
        text = Path(file).read_text(encoding="utf-8", errors="replace")
    except (OSError, ValueError):  # ValueError: a NUL in the name
        text = ""  # batch says why in its own words
    lines = line_of_name(text)
    run = run_batch(file, options)
    commands = _messages(run.stderr, shown, lines)
    cases, code = _cases_of(run), run.returncode
    if cases is not None:
        printed, summary_text = _cases(file, shown, lines, cases, commands)
    else:
        printed, summary_text, code = [], *_bad_input(run, shown, commands)
    problem = write_summary(os.environ.get("GITHUB_STEP_SUMMARY"), summary_text)
    if problem is not None:
        sys.stderr.write(f"swizzle-solve: error: {plain(problem)}\n")
        return 2
    for text in run.stderr.splitlines():
        sys.stderr.write(plain(text) + "\n")
    for text in printed:
        print(plain(text))
    for command in commands:
        print(command)
    return code


def _bad_input(run: subprocess.CompletedProcess, shown: str, commands: list[str]) -> tuple[str, int]:
    """The summary of a batch that printed no document, and the exit status: batch's own (2: bad
    input, already annotated), or 2 with an annotation saying so when it died without a line."""
    message = next((m for m in run.stderr.splitlines() if m.startswith("swizzle-solve: error")), None)
    code = run.returncode
    if message is None:  # no line of batch's own: it died (a traceback's last line says how)
        last = (run.stderr.strip().splitlines() or [f"exit {run.returncode}"])[-1]
        message = f"swizzle-solve: error: batch stopped without its document ({last})"
        commands.append(annotation("error", shown, None, "swizzle-solve error", message))
        code = code if code not in (0, 1) else 2
    return f"### swizzle-solve batch {_cell(shown)}: bad input\n\n{_cell(message)}\n\n", code


def write_summary(target: str | None, text: str) -> str | None:
    """Append ``text`` to the job summary file ``target`` (none when unset or empty); what went
    wrong, as a message naming the problem and the fix, or None."""
    if not target:
        return None
    try:  # (non-blocking: a FIFO without a reader is refused rather than waited on)
        fd = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NONBLOCK", 0), 0o666)
        with os.fdopen(fd, "a", encoding="utf-8") as f:
            f.write(text)
    except (OSError, ValueError) as err:  # ValueError: a NUL in the name
        reason = getattr(err, "strerror", None) or str(err)
        return (f"cannot append the job summary to GITHUB_STEP_SUMMARY={target!r} ({reason}): set it to a "
                f"writable file, or unset it")
    return None


def _cases(file: str, shown: str, lines: dict[str, int], cases: list[dict],
           commands: list[str]) -> tuple[list[str], str]:
    """Each case's verdict line and the count (to print), an error annotation per failed case added
    to ``commands``, and the job summary's text. batch names the cases as cases.shown_name does."""
    try:
        expected = _expectations(file)
    except (InputError, OSError, ValueError):  # the file changed since batch read it: the verdicts stand
        expected = {}
    at = {shown_name(name): line for name, line in lines.items()}
    rows = [verdict(e, expected.get(e["name"], "-")) for e in cases]
    printed = []
    for r in rows:
        where = f" (line {at[r['name']]})" if r["name"] in at else ""
        printed.append(f"{'ok  ' if r['ok'] else 'FAIL'}  {r['name']}{where}" + ("" if r["ok"] else f": {r['why']}"))
        if not r["ok"]:
            commands.append(annotation("error", shown, at.get(r["name"]), "swizzle-solve: case failed",
                                       f"{r['name']}: {r['why']}"))
    failed = sum(not r["ok"] for r in rows)
    printed.append(f"{len(rows) - failed} passed, {failed} failed")
    return printed, summary(shown, rows, at)


if __name__ == "__main__":
    sys.exit(main())
