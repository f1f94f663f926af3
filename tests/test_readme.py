"""The README and docs/ stay true: the main job's output, the Python API example, the test command CI
runs, and every command they print with its answer."""
import re
import shlex
from pathlib import Path

import pytest

from swizzle_solver.cli import main

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()


def test_main_job_output_in_readme_is_current(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")  # a file or pipe: rich's default width
    shown = re.search(r"```\n(Tile 8 x 24 elements.*?)```", README, re.S).group(1)
    assert main(["--rows", "8", "--cols", "24", "--access", "4x2"]) == 0
    assert capsys.readouterr().out == shown


def test_kernel_output_in_readme_is_current(capsys, monkeypatch):
    """The first screen's compiled kernel: the report the README shows is what `kernel` prints."""
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.chdir(Path(__file__).resolve().parents[1])
    command, shown = re.search(r"```\n\$ swizzle-solve (kernel .*?)\n(.*?)```", README, re.S).groups()
    assert main(shlex.split(command)) == 1  # conflicts: exit 1
    assert capsys.readouterr().out == shown


def test_setup_commands_are_what_ci_runs():
    """The README's set-up and test command is a line of .ci/run, verbatim; CI then runs the long
    tiers and the linters."""
    ci = (Path(__file__).resolve().parents[1] / ".ci" / "run").read_text().strip().splitlines()
    command = next(line for line in ci if line.startswith("python3 -m venv"))
    assert f"```bash\n{command}\n```" in README
    later = ci[ci.index(command) + 1:]
    assert ".venv/bin/python -m pytest -q -m 'slow or fuzz or toolchain'" in later
    assert ".venv/bin/mypy" in later  # the linters run after the tests


def test_python_api_example_prints_what_readme_says(capsys, tmp_path, monkeypatch):
    section = README[re.search(r"^#+ Python API$", README, re.M).start():]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    shown = re.search(r"prints\n\n```\n(.*?)```", section, re.S).group(1)
    monkeypatch.chdir(tmp_path)  # it writes tile.svg
    exec(compile(code, "README.md", "exec"), {})
    assert capsys.readouterr().out == shown
    assert "<svg" in (tmp_path / "tile.svg").read_text()


DOCS = [README] + [p.read_text() for p in sorted((Path(__file__).resolve().parents[1] / "docs").glob("*.md"))]
# A documented command with its answer: `swizzle-solve ARGS   # -> WHAT -q PRINTS[, exit N][ (note)]`
ANSWERED = re.compile(r"^swizzle-solve (.+?)\s+# -> (.+?)(?:, exit (\d))?(?: \(.*\))?$", re.M)
COMMANDS = [m.groups() for text in DOCS for m in ANSWERED.finditer(text)]


def test_the_docs_show_answered_commands():
    assert len(COMMANDS) >= 14


@pytest.mark.parametrize("args, shown, code", COMMANDS, ids=[c[0] for c in COMMANDS])
def test_documented_answers_are_current(args, shown, code, capsys, monkeypatch):
    """Every command the README and docs/ print with `# -> ANSWER` gives that answer (its -q line)
    and exit code (0 unless the comment says otherwise)."""
    monkeypatch.chdir(Path(__file__).resolve().parents[1])  # paths in the docs are relative to the checkout
    argv = [a for a in shlex.split(args) if a not in ("-q", "--show-phases")] + ["-q"]
    assert main(argv) == int(code or 0)
    assert capsys.readouterr().out == shown + "\n"


def test_checking_your_kernel_console_runs_from_the_checkout(capsys, monkeypatch):
    """docs/checking-your-kernel.md's console session, run from the checkout's root as a newcomer does:
    the .cu it compiles exists there, and each `swizzle-solve kernel` line prints the lines shown
    (`...` stands for lines left out), on the committed PTX of that .cu."""
    root = Path(__file__).resolve().parents[1]
    monkeypatch.chdir(root)
    monkeypatch.setenv("COLUMNS", "80")
    text = (root / "docs" / "checking-your-kernel.md").read_text()
    block = re.search(r"```console\n(\$ nvcc .*?)```", text, re.S).group(1)
    sessions = re.split(r"^\$ ", block, flags=re.M)[1:]
    nvcc = shlex.split(sessions[0].splitlines()[0])
    assert (root / nvcc[nvcc.index("-o") - 1]).is_file()
    ptx = nvcc[nvcc.index("-o") - 1].replace(".cu", ".ptx")  # the committed compile of that .cu
    for session in sessions[1:]:
        command, *shown = session.rstrip("\n").split("\n")
        argv = [ptx if a == nvcc[nvcc.index("-o") + 1] else a for a in shlex.split(command)[1:]]
        assert main(argv) == 1
        out = capsys.readouterr().out.rstrip("\n").split("\n")
        kept = [line for line in shown if line != "..."]
        if "..." not in shown:
            assert out == kept
        else:
            it = iter(out)  # the lines shown appear in this order
            assert all(any(line == got for got in it) for line in kept), (command, kept)
            assert shown[-1] == "..." or out[-1] == shown[-1]


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_readme_is_under_16_kib_and_its_contents_table_lists_every_section():
    """The README stays short (contributor material is in docs/contributing.md), and the contents
    table links every section after it, each to a heading that exists."""
    assert len(README.encode()) < 16_384, f"README.md is {len(README.encode())} bytes"
    contents = README[README.index("## Contents\n"):].split("\n## ", 1)[0]
    linked = re.findall(r"^- \[(.+?)\]\(#(.+?)\)$", contents, re.M)
    after = re.findall(r"^## (.+)$", README[README.index("## Contents\n") + 1:], re.M)
    assert [title for title, _ in linked] == after
    assert [anchor for _, anchor in linked] == [slug(h) for h in after]


def _anchors(text: str) -> set[str]:
    """GitHub's anchors of a page's headings (backticks and tags dropped; a repeated one gets -1, -2)."""
    count: dict[str, int] = {}
    out = set()
    for line in re.sub(r"^```.*?^```", "", text, flags=re.S | re.M).splitlines():
        m = re.match(r"#{1,6}\s+(.*?)\s*$", line)
        if m:
            s = slug(re.sub(r"<[^>]+>", "", m[1].replace("`", "")))
            out.add(f"{s}-{count[s]}" if s in count else s)
            count[s] = count.get(s, 0) + 1
    return out


def test_every_relative_link_of_the_docs_resolves():
    """Every relative link in README.md and docs/*.md names a file that exists, and a heading of it
    (docs/cli.md once linked docs/docs/cli.md: rows copied from the README keep its paths)."""
    root = Path(__file__).resolve().parents[1]
    bad = []
    for page in [root / "README.md", *sorted((root / "docs").glob("*.md"))]:
        text = re.sub(r"`[^`\n]*`", "", re.sub(r"^```.*?^```", "", page.read_text(), flags=re.S | re.M))
        for link in re.findall(r"\]\(([^)\s]+)\)", text):
            if link.startswith(("http://", "https://", "mailto:")):
                continue
            path, _, anchor = link.partition("#")
            target = page.parent / path if path else page
            if not target.exists() or (anchor and target.suffix == ".md"
                                       and anchor not in _anchors(target.read_text())):
                bad.append(f"{page.relative_to(root)}: {link}")
    assert not bad, bad
