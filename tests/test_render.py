"""The report's tables drawn as aligned Text lines (render.columns / render.table), not rich Tables."""
import io
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console, Group
from rich.text import Text

from swizzle_solver.access import make_problem
from swizzle_solver.render import Wrapped, columns, print_batch, print_solution, table
from swizzle_solver.report import solution_json
from swizzle_solver.solving import solve

ROOT = Path(__file__).resolve().parents[1]


def printed(renderable, width=80, **console_options) -> str:
    """As print_solution prints: inside a Group (console.print joins bare Texts, dropping no_wrap), not cropped."""
    out = io.StringIO()
    Console(file=out, width=width, **console_options).print(Group(renderable), crop=False)
    return out.getvalue()


def test_columns_pad_to_the_widest_cell_and_justify():
    lines = columns([["a", "1", "x"], ["bbb", "100", "yy"]], right={1}, sep=" | ", indent="> ")
    assert [line.plain for line in lines] == ["> a   |   1 | x ", "> bbb | 100 | yy"]
    assert len({line.cell_len for line in lines}) == 1  # every line the same width


def test_columns_keep_cell_styles():
    line, = columns([[Text("ok", style="green"), "plain"]])
    assert line.plain == "ok   plain"
    assert [(line.plain[s.start:s.end], str(s.style)) for s in line.spans] == [("ok", "green")]


def test_table_looks_like_a_simple_head_table():
    text = printed(table("Title", ["name", "n"], [["alpha", "1"], ["b", Text("22", style="red")]], right={1}))
    assert text.splitlines() == [
        "Title",
        "",
        "  name     n",
        " ────────────",  # as rich draws it: one column past the last cell
        "  alpha    1",
        "  b       22",
        "",
    ]


def test_a_table_too_wide_breaks_between_cells_never_inside_one():
    row = ["x" * 30, "y" * 30]
    lines = printed(table("T", ["a", "b"], [row]), width=40).splitlines()
    assert f"  {'x' * 30}" in lines and f"      {'y' * 30}" in lines  # the row continues, indented
    assert all(len(line) <= 40 for line in lines) and " " + "─" * 39 in lines  # the rule stops at the edge
    lines = printed(table("T", ["a", "b"], [row]), width=20).splitlines()
    assert f"  {'x' * 30}" in lines and f"      {'y' * 30}" in lines  # a cell wider than the output stays whole
    lines = printed(table("T", ["a", "b"], [row]), width=80).splitlines()
    assert f"  {'x' * 30}   {'y' * 30}" in lines and " " + "─" * 65 in lines  # fits: one line, as before


def test_a_table_with_key_columns_splits_into_parts_that_repeat_them():
    header = ["name", *(f"access{i}" for i in range(8))]
    rows = [["layout-a", *(f"{i} / {10 * i}" for i in range(8))], ["layout-b", *(f"{i + 1} / 9" for i in range(8))]]
    text = printed(table("T", header, rows, right=set(range(1, 9)), key=1), width=40)
    lines = text.splitlines()
    assert all(len(line) <= 40 for line in lines)
    parts = [line for line in lines if line.startswith("T (part")]
    assert len(parts) > 1 and parts[-1].endswith(f"of {len(parts)})")
    for name, cells in ((r[0], r[1:]) for r in rows):  # every cell on a line of its row's key
        mine = " ".join(line for line in lines if line.startswith(f"  {name}"))
        assert all(cell in mine for cell in cells) and mine.count(name) == len(parts)


def test_colours_only_on_a_terminal():
    cell = Text("1 / 8", style="green")
    assert "\x1b" not in printed(table("T", ["a"], [[cell]]))  # a file or a pipe: plain text
    coloured = printed(table("T", ["a"], [[cell]]), force_terminal=True, color_system="standard")
    assert "\x1b[32m1 / 8\x1b[0m" in coloured and "\x1b[1ma\x1b[0m" in coloured  # green cell, bold header


def test_indented_text_wraps_under_its_indent():
    text = printed(Wrapped(Text("word " * 10), 4), width=20)
    lines = text.splitlines()
    assert len(lines) > 1 and all(line.startswith("    word") for line in lines)
    assert all(line == line.rstrip() and len(line) <= 20 for line in lines)


def test_report_tables_align_and_colour_the_bound():
    doc = solution_json(solve(make_problem(64, 64, ["8x8", "row"], None, 2, banks=32, bank_bytes=4)))
    out = io.StringIO()
    print_solution(doc, Console(file=out, width=100, force_terminal=True, color_system="standard"))
    coloured = out.getvalue()
    assert "\x1b[32m1 / 64\x1b[0m" in coloured and "\x1b[31m8 / 512\x1b[0m" in coloured  # answer; unswizzled
    out = io.StringIO()
    print_solution(doc, Console(file=out, width=100))
    lines = out.getvalue().splitlines()
    assert all(line == line.rstrip() for line in lines)
    header = next(line for line in lines if "layout" in line and "excess" in line)
    answer = next(line for line in lines if line.startswith("  *"))
    # right-justified numbers end under the end of their header
    for label, cell in (("8x8", "1 / 64"), ("excess", "0")):
        assert answer.index(cell, header.index("family")) + len(cell) == header.index(label) + len(label)


BATCH = [{"name": "one", "answer": "none", "status": "conflict-free", "expected": "none", "ok": True},
         {"name": "second case", "answer": "Swizzle<1,2,3>", "status": "conflicts", "expected": "-", "ok": False}]


def test_batch_table():
    out = io.StringIO()
    print_batch(BATCH, Console(file=out, width=80))
    lines = out.getvalue().splitlines()
    assert lines[2].split() == ["ok", "answer", "status", "expected", "case"]
    assert lines[5].split() == ["FAIL", "Swizzle<1,2,3>", "conflicts", "-", "second", "case"]  # whole, not wrapped
    assert lines[4].index("none") == lines[5].index("Swizzle") and lines[4].rindex("one") == lines[5].index("second")
    assert lines[-1] == "1 passed, 1 failed"


def test_batch_table_narrower_than_its_rows_puts_expectation_and_case_under_each_row():
    out = io.StringIO()
    print_batch(BATCH, Console(file=out, width=40))
    lines = out.getvalue().splitlines()
    assert all(len(line) <= 40 for line in lines)
    assert lines[2].split() == ["ok", "status", "answer"]
    fail = lines.index(next(line for line in lines if line.startswith("  FAIL")))
    assert lines[fail].split() == ["FAIL", "conflicts", "Swizzle<1,2,3>"]  # grep FAIL: the answer on the line
    assert lines[fail + 1] == "      no expectation: second case"
    assert lines[-1] == "1 passed, 1 failed"


# (that a plain solve's rich report imports no rich.table, rich.box, rich.padding nor fractions is checked
# by the one process of test_cli_families' test_plain_solve_imports_only_what_it_uses, rich form)


def without_verdicts(doc: dict, answer_keeps_tma: bool) -> dict:
    """``doc`` without what the emit targets say of each layout (report.layout_json's verdicts) and
    the runners-up's counters (its ``counters``)."""
    out = {**doc, "answer": dict(doc["answer"]), "alternatives": [dict(a) for a in doc["alternatives"]]}
    out["answer"].pop("expressible_in")
    if not answer_keeps_tma:
        out["answer"].pop("tma_mode")
    for alt in out["alternatives"]:
        alt.pop("expressible_in")
        alt.pop("tma_mode")
        # nor the runners-up's counters in the profiler's words (it prints the answer's)
        alt["per_access"] = [{k: v for k, v in a.items() if k != "counter"} for a in alt["per_access"]]
    return out


@pytest.mark.parametrize("rows, cols, elem, access", [
    (64, 64, 2, ["ldmatrix.x4", "mma-c:m16n8"]), (8, 8, 4, ["row", "8x1"]), (32, 40, 4, ["8x4"]),
    (16, 16, 2, ["8x8"]), (64, 128, 2, ["8x8", "row"]),
])
def test_the_terminal_document_is_the_json_one_without_the_verdicts_it_never_prints(rows, cols, elem, access):
    """The rich report reads a document without the emit targets' verdicts (start-up: a plain solve
    imports only the tma target): apart from them, it is the --json document, key for key."""
    solution = solve(make_problem(rows, cols, access, elem_bytes=elem))
    full, terminal = solution_json(solution), solution_json(solution, terminal=True)
    assert terminal == without_verdicts(full, answer_keeps_tma=True)
    assert "expressible_in" in full["answer"] and all("tma_mode" in a for a in full["alternatives"])
    assert report_text(terminal) == report_text(full)


def report_text(doc: dict) -> str:
    out = io.StringIO()
    print_solution(doc, Console(file=out, width=80, force_terminal=True, color_system="standard"), [])
    return out.getvalue()


def test_a_plain_solve_imports_one_emit_target():
    code = ("import sys, io, contextlib; from swizzle_solver.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    main(['--rows', '64', '--cols', '64', '--dtype', 'f16', '--access', 'ldmatrix.x4'])\n"
            "print(sorted(m.rsplit('.', 1)[1] for m in sys.modules if m.startswith('swizzle_solver.emit.')))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0 and run.stdout.splitlines()[-1] == "['common', 'recognise', 'tma']", run.stdout
