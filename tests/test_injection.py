"""Nothing a file or an argument holds reaches a terminal, a CI log, a table row, -q or an SVG as
anything but the text it is (issue 39 item 1; docs/cli.md "Text from the input").

- A layout's text in the kernel's notation is its name, printed as given: a line break, control or
  format character in it is bad input (exit 2, one line naming the character and where), refused
  where the text comes in (the CLI, batch, the API).
- The GitHub Action's step (swizzle_solver/github_action.py) prints nothing the runner reads as a
  command except its own annotations: the runner is emulated here as actions/runner parses a log
  line (ActionCommand.TryParseV2: `::` after leading blanks; TryParse: `##[` anywhere), and every
  command it would run is compared with the step's own.
- The step never crashes: a summary file it cannot write, a batch entry with `error`, a document cut
  short.

Files: tests/data/hostile/action/ and text/ (README there).
"""
import json
import os
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from swizzle_solver import github_action
from swizzle_solver.access.inputfile import escaped, printable, printable_only
from swizzle_solver.model import InputError
from tests.clirun import assert_input_error, solve


def run(args, cwd=None) -> subprocess.CompletedProcess:
    return solve(*args, cwd=cwd)


HOSTILE = Path(__file__).resolve().parent / "data" / "hostile"
TILE = ["--rows", "16", "--cols", "16", "--dtype", "f16", "--access", "8x8"]

# Every kind of character the issue names, and the other non-printable kinds: C0, DEL, C1, the
# Unicode line and paragraph separators, a byte-order mark, a bidi override, a no-break space.
CONTROLS = ["\n", "\r", "\v", "\f", "\x1c", "\x1d", "\x1e", "\x1f", "\x00", "\x1b", "\t", "\x7f", "\x85", "\x9b",
            "\u2028", "\u2029", "\ufeff", "\u202e", "\u00a0"]


# --- the notation's text --------------------------------------------------------------------------

@pytest.mark.parametrize("char", CONTROLS, ids=[repr(c) for c in CONTROLS])
def test_a_control_character_in_a_notation_is_bad_input(char):
    """B12: -q stays one line, table rows stay whole, the SVG well-formed, because the text never
    gets in: exit 2, one printable line naming the character (escaped) and its position."""
    line = assert_input_error(run([*TILE, "--check", f"expr: r * 16{char}+ c", "-q"]), "--check holds",
                              "at character 13", "one line")
    assert line.isprintable() and printable(char) in line


def test_leading_and_trailing_blanks_are_not_the_text():
    """A trailing newline (a value read from a file, $(cat ...)) is stripped, as before."""
    result = run([*TILE, "--check", "\n expr: r * 16 + c\n", "-q"])
    assert result.returncode == 1 and result.stdout == "expr: r * 16 + c failed; minimal: Swizzle<1,3,3>\n"


@pytest.mark.parametrize("text", ["cute: composition(Swizzle<1,3,3>{},\u2028Layout<Shape<_16,_16>,Stride<_16,_1>>{})", "triton: #ttg.swizzled_shared<{vec = 8,\x1e "
                                  "perPhase = 1, maxPhase = 8, order = [1, 0]}>", "table:a\x00b.csv", "bytes:\x0bSwizzle<1,4,3>"])
def test_every_notation_and_the_api_refuse_it(text):
    assert_input_error(run([*TILE, "--check", f"  {text} "]), "--check holds")
    from swizzle_solver import api

    with pytest.raises(InputError, match="layout holds"):
        api.check(text, api.problem(rows=16, cols=16, dtype="f16", access=["8x8"]))


@pytest.mark.parametrize("name", ["nul-table-path.toml", "expr-newline.toml"])
def test_batch_refuses_it_with_the_case_named(name):
    """B9: a NUL in a batch `check = "table:..."` path was a 74-line traceback (the path was
    resolved before it was read); B12 in a batch file."""
    case = "'t'" if name.startswith("nul") else "'pinned kernel layout'"
    assert_input_error(run(["batch", HOSTILE / "text" / name]), f"case {case}: check holds")


def test_printable_only_passes_printable_text_unchanged():
    for text in ("expr: r * 16 + (c ^ (r & 7))", "cute: Swizzle<3,4,3>{}", "table:ü ñ.csv", ""):
        assert printable_only(text, "x") is text


def test_the_svg_of_a_notation_with_xml_characters_is_well_formed(tmp_path):
    """What the notation may hold (&, <, >, quotes in a table path) is escaped in the SVG."""
    (tmp_path / "it's & <x>.csv").write_text("\n".join(",".join(str(r * 16 + c) for c in range(16))
                                                      for r in range(16)) + "\n")
    for text in ("expr: r * 16 + (c ^ (r & 7))", "cute: composition(Swizzle<1,3,3>{}, Layout<Shape<_16,_16>,Stride<_16,_1>>{})",
                 "table:it's & <x>.csv"):
        svg = tmp_path / "m.svg"
        result = run([*TILE, "--check", text, "--svg", svg], cwd=tmp_path)
        assert result.returncode in (0, 1), result.stderr
        ET.parse(svg)  # well-formed, or this raises


# --- the GitHub Action's step ---------------------------------------------------------------------

def runner_commands(log: str) -> list[str]:
    """The lines of ``log`` that actions/runner would run as workflow commands (ActionCommand.cs:
    TryParseV2, a line starting with `::` once leading whitespace is trimmed and holding a second
    `::`; else TryParse, `##[` anywhere followed by a `]`)."""
    found = []
    for line in log.splitlines():
        v2 = line.lstrip()
        v1 = "##[" in line and "]" in line[line.index("##[") + 3:]
        if (v2.startswith("::") and "::" in v2[2:]) or v1:
            found.append(line)
    return found


def action(capsys, monkeypatch, tmp_path, file, batch=None, summary="summary.md"):
    """The step in this process: (exit, stdout, stderr, summary text). ``batch``: a canned batch
    run (its --json document's file and exit code) instead of running batch."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYTHONPATH", str(HOSTILE.parents[2]))  # batch's process runs this checkout
    if batch is not None:
        doc, code = batch
        monkeypatch.setattr(github_action, "run_batch", lambda f, o: subprocess.CompletedProcess(
            [], code, stdout=Path(doc).read_text() if doc else "", stderr=""))
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / summary) if summary else "")
    code = github_action.main([str(file)])
    out, err = capsys.readouterr()
    written = tmp_path / summary if summary else None
    return code, out, err, (written.read_text() if written and written.is_file() else "")


def own_annotations(out: str, file: str) -> list[tuple[str, str | None]]:
    """The step's own commands: (level, line) each, checked to be whole ones on ``file``."""
    got = []
    for line in runner_commands(out):
        props, _, message = line[2:].partition("::")
        level, _, props = props.partition(" ")
        fields = dict(p.split("=", 1) for p in props.split(","))
        assert level in ("error", "warning") and fields["file"] == file, line
        assert set(fields) <= {"file", "line", "title"}, line
        got.append((level, fields.get("line")))
    return got


def test_case_names_cannot_forge_commands(capsys, monkeypatch, tmp_path):
    """B2, B17: names holding `::error ...`, a line break, `##[stop-commands]`, `##[add-mask]`
    and a U+2028: the runner finds only the step's own error annotations, one per failed case, each
    on its case's [[case]] line (the name with a line break too), and the summary shows the names
    as text (no link, no emphasis, no HTML)."""
    src = HOSTILE / "action" / "forged-names.toml"
    file = tmp_path / "cases.toml"
    file.write_text(src.read_text())
    code, out, err, summary = action(capsys, monkeypatch, tmp_path, "cases.toml")
    assert code == 1
    assert own_annotations(out, "cases.toml") == [("error", "1"), ("error", "9"), ("error", "17"), ("error", "25")]
    assert runner_commands(err) == []
    assert all(line.isprintable() for line in out.splitlines() + err.splitlines())
    assert out.splitlines()[4].startswith("ok    passes ##\\x5badd-mask]x\\u2028::set-output") and "(line 33)" in out
    assert "\\[link\\](https://e.x) \\*b\\* &lt;script&gt;" in summary and "<script>" not in summary
    assert "| evil\\\\n::error file=README.md,line=1,title=Approved::forged | 9 |" in summary


def test_a_table_file_name_with_line_breaks_forges_nothing(capsys, monkeypatch, tmp_path):
    """B2 as the issue found it: a `table:` file whose name holds newlines and commands. The text
    is refused (exit 2), and the one annotation saying so carries the name escaped."""
    name = "k\n::error file=README.md,line=1,title=Approved::verified\n::stop-commands::hidden\n.csv"
    (tmp_path / name).write_text("\n".join(",".join(str(r * 16 + c) for c in range(16)) for r in range(16)) + "\n")
    (tmp_path / "inj.toml").write_text('[[case]]\nname = "kernel A tile"\nrows = 16\ncols = 16\ndtype = "f16"\n'
                                       'access = ["8x8"]\ncheck = ' + json.dumps("table:" + name) + "\n")
    code, out, err, summary = action(capsys, monkeypatch, tmp_path, "inj.toml")
    assert code == 2
    assert own_annotations(out, "inj.toml") == [("error", "1")]
    assert "check holds \\n (a line break)" in out and runner_commands(err) == []
    assert summary.startswith("### swizzle-solve batch inj.toml: bad input")


def test_the_plain_line_escapes(capsys):
    assert github_action.plain("  ::error::x ##[warning]y\n") == "  \\x3a:error::x ##\\x5bwarning]y\\n"
    assert runner_commands(github_action.plain(" \t::x::y")) == []
    assert github_action.annotation("error", "a", 1, "t", "m\x1b%\r\n") == "::error file=a,line=1,title=t::m\\x1b%25%0D%0A"


def test_an_entry_with_error_is_annotated(capsys, monkeypatch, tmp_path):
    """B8: a case that stopped with an internal error (or whose worker died) has `error` and no
    `result`; the step raised KeyError and printed nothing. Now it fails on its line, with the
    error as its reason."""
    (tmp_path / "c.toml").write_text((HOSTILE / "action" / "error-entry.toml").read_text())
    code, out, err, summary = action(capsys, monkeypatch, tmp_path, "c.toml",
                                     batch=(HOSTILE / "action" / "error-entry.json", 1))
    assert code == 1 and err == ""
    assert own_annotations(out, "c.toml") == [("error", "11")]
    assert "FAIL  crashed ##\\x5bstop-commands]t (line 11): case 'crashed" in out
    assert "stopped with an internal error (Died" in out and "1 passed, 1 failed" in out
    assert "| **FAIL** | crashed ##\\\\x5bstop-commands\\]t | 11 | - | error |" in summary


@pytest.mark.parametrize("doc", ["cut-document.json", None])
def test_a_batch_that_died_without_its_document_is_one_annotation(capsys, monkeypatch, tmp_path, doc):
    (tmp_path / "c.toml").write_text((HOSTILE / "action" / "error-entry.toml").read_text())
    code, out, err, summary = action(capsys, monkeypatch, tmp_path, "c.toml",
                                     batch=(HOSTILE / "action" / doc if doc else None, 1))
    assert code == 2 and own_annotations(out, "c.toml") == [("error", None)]
    assert "batch stopped without its document" in out and "bad input" in summary


@pytest.mark.parametrize("where", ["a directory", "a missing folder", "/dev/full", "read-only", "a FIFO"])
def test_a_summary_it_cannot_write_is_one_line(capsys, monkeypatch, tmp_path, where):
    """B8: GITHUB_STEP_SUMMARY a directory, in a missing folder, full or on a read-only file system
    was a traceback after the per-case lines (exit 1 when every case passed). Now: exit 2, one line
    naming the variable, the reason and the fix, nothing on stdout."""
    (tmp_path / "c.toml").write_text((HOSTILE / "action" / "error-entry.toml").read_text())
    target = {"a directory": tmp_path / "d", "a missing folder": tmp_path / "no" / "s.md", "/dev/full": Path("/dev/full"),
              "read-only": tmp_path / "ro.md", "a FIFO": tmp_path / "fifo"}[where]
    if where == "a FIFO":  # without a reader: refused, not waited on
        os.mkfifo(target)
    if where == "a directory":
        target.mkdir()
    if where == "/dev/full" and not target.exists():
        pytest.skip("no /dev/full here")
    if where == "read-only":
        real_open = os.open

        def read_only(path, flags, *a, **k):
            if str(path) == str(target) and flags & os.O_WRONLY:
                raise OSError(30, "Read-only file system", str(path))
            return real_open(path, flags, *a, **k)
        monkeypatch.setattr(os, "open", read_only)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(github_action, "run_batch", lambda f, o: subprocess.CompletedProcess(
        [], 1, stdout=(HOSTILE / "action" / "error-entry.json").read_text(), stderr=""))
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(target))
    code = github_action.main(["c.toml"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    (line,) = err.splitlines()
    assert line.startswith("swizzle-solve: error: cannot append the job summary to GITHUB_STEP_SUMMARY=")
    assert line.endswith("set it to a writable file, or unset it")


def test_batch_table_and_list_show_a_case_name_escaped(tmp_path):
    """The pre-commit hook, GitLab, make and CMake show batch's table: a name with CR, ESC (a
    GitLab section starts with ESC [0K) and U+2028 stays on its row, escaped."""
    (tmp_path / "c.toml").write_text('[[case]]\nname = "a\\rb\\u001b[0Ksection_start:1:x\\u2028d"\nrows = 16\n'
                                     'cols = 16\ndtype = "f16"\naccess = ["8x8"]\n')
    for args in (["batch", "c.toml"], ["batch", "c.toml", "--list"]):
        result = run(args, cwd=tmp_path)
        assert result.returncode == 0 and all(line.isprintable() for line in result.stdout.splitlines())
        assert "a\\rb\\x1b[0Ksection_start:1:x\\u2028d" in result.stdout


@pytest.mark.parametrize("text", ["table:a ::error::b.csv", "table:x##[stop-commands]y.csv", "table: ::warning::z.csv",
                                  "cute: composition(cute :: Swizzle<1,3,3>{}, Layout<Shape<_16,_16>,Stride<_16,_1>>{})"])
def test_a_notation_a_runner_would_read_as_a_command_is_bad_input(text):
    """A report wraps a long name at a blank, so ' ::' could start a line of the log; '##[' is a
    command anywhere in it. Both are refused in a notation's text; cute::X (no blank) is fine."""
    line = assert_input_error(run([*TILE, "--check", text]), "--check holds", "CI runner")
    assert runner_commands(line) == [] and github_action.plain(line) == line


def test_names_and_messages_are_inert(tmp_path):
    """A case name cannot be refused: batch shows it with '##[' and a '::' after a blank escaped,
    in the table, --list, JSON and messages; an error line quoting a hostile --check is inert."""
    (tmp_path / "c.toml").write_text('[[case]]\nname = "a ::error::x ##[add-mask]y"\nrows = 16\ncols = 16\n'
                                     'dtype = "f16"\naccess = ["8x8"]\n')
    shown = "a \\x3a:error::x ##\\x5badd-mask]y"
    for args in (["batch", "c.toml"], ["batch", "c.toml", "--list"], ["batch", "c.toml", "--json"]):
        result = run(args, cwd=tmp_path)
        assert result.returncode == 0 and runner_commands(result.stdout) == []
        assert shown in (json.loads(result.stdout)["cases"][0]["name"] if "--json" in args else result.stdout)
    line = assert_input_error(run([*TILE, "--check", "##[stop-commands]x"]), "is not a layout name")
    assert runner_commands(line) == [] and "##\\x5bstop-commands]x" in line
    assert run([*TILE, "--check", "cute: composition(cute::Swizzle<1,3,3>{}, cute::Layout<cute::Shape<_16,_16>,"
                                  "cute::Stride<_16,_1>>{})", "-q"]).returncode == 0


# --- properties over any text (hypothesis: the slow tier) ---------------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

# Text rich in what matters: the command syntaxes, blanks, '%', line breaks and other controls.
HOSTILE_TEXT = st.lists(st.one_of(st.sampled_from(["::", "##[", "]", " ", "%", "%0A", "\r", "\n", "\t", ":", ",",
                                                   "\x1b", "\u2028", "error", "stop-commands", "\\"]),
                                  st.text(max_size=3)), max_size=30).map("".join)


def unescape_data(data: str) -> str:
    """actions/runner ActionCommand.UnescapeData, in its order."""
    return data.replace("%0D", "\r").replace("%0A", "\n").replace("%25", "%")


def unescape_property(value: str) -> str:
    """actions/runner ActionCommand.UnescapeProperty, in its order."""
    return value.replace("%0D", "\r").replace("%0A", "\n").replace("%3A", ":").replace("%2C", ",").replace("%25", "%")


@settings(max_examples=300, deadline=None)
@given(HOSTILE_TEXT)
def test_printable_and_plain_lines_hold_no_command(text):
    for line in (printable(text), github_action.plain(text)):
        assert line.isprintable() and "\n" not in line and runner_commands(line) == []
    assert printable(printable(text)) == printable(text)  # what batch printed is printed again unchanged


@settings(max_examples=300, deadline=None)
@given(HOSTILE_TEXT, HOSTILE_TEXT)
def test_an_annotation_is_one_command_that_reads_back(name, message):
    """Whatever a file name, a title and a message hold, the annotation is one line the runner
    parses as one error command on that file, whose message reads back as the text given (its
    control characters other than CR and LF shown as Python escapes)."""
    line = github_action.annotation("error", name, 3, name, message)
    assert "\n" not in line and "\r" not in line and runner_commands(line) == [line]
    head, _, data = line[2:].partition("::")
    assert head.startswith("error ") and "::" not in head
    fields = dict(p.split("=", 1) for p in head[len("error "):].split(","))
    assert set(fields) == {"file", "line", "title"} and fields["line"] == "3"
    assert unescape_property(fields["file"]) == unescape_property(fields["title"]) == shown(name)
    assert unescape_data(data) == shown(message)


def shown(text: str) -> str:
    """What an annotation shows of ``text``: CR and LF as they are, other controls escaped."""
    return "".join(c if c in "\r\n" else escaped(c) for c in text)
