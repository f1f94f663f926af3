"""Every language of the registries, each held to the same contract (issue 33 item 2; as pygments
tests every formatter): the tests are parametrised over ``emit.writers()`` and ``notation.prefixes()``,
so a new language's module is tested by them with no edit here; and the docs' tables of targets and
notations list exactly the registries.

A writer (an ``--emit`` target): its snippet names the target, starts with the header line in the
language's own comment marker, is the same on every call, agrees with ``expressible_in``, says
the user's column-major order under ``--order col`` and the 4-bit elements under ``--dtype fp4``
with no other language's comment marker, and a target its record says is unavailable on a
hardware target is refused ``--for`` there and never expressible there.

A reader (a ``--check`` notation): its documented example (docs/cli.md's table) is read as that
notation and checked (exit 0 or 1, valid JSON), and a body it cannot read is bad input: exit 2, one
line naming the prefix and the column, nothing on stdout.
"""
import json
import re
from pathlib import Path

import pytest
from clirun import solve as cli
from test_schema import validate

from swizzle_solver import emit as registry
from swizzle_solver import notation
from swizzle_solver.access import make_problem
from swizzle_solver.emit import emit, expressible_in, refuse_unavailable, writers
from swizzle_solver.families.cute import Swizzle
from swizzle_solver.families.identity import Identity
from swizzle_solver.families.padding import Padded
from swizzle_solver.hardware import TARGETS as HARDWARE
from swizzle_solver.model import InputError

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"

WRITERS = list(writers())
READERS = list(notation.prefixes())

# (rows, cols, element bytes, keyword arguments of make_problem): row order, --order col, 4-bit
# elements (packed, 2 a byte), an AMD target, Blackwell (umma's only target).
PROBLEMS = {
    "row": (64, 64, 2, {}),
    "col": (64, 64, 2, {"order": "col"}),
    "fp4": (16, 32, 1, {"elem_bits": 4}),
    "gfx942": (64, 64, 2, {"arch": "gfx942"}),
    "sm100": (64, 64, 2, {"arch": "sm100"}),
}
LAYOUTS = {"swizzle": Swizzle(3, 3, 3), "none": Identity(), "padded": Padded(72, Identity())}


def problem(name):
    rows, cols, elem, kw = PROBLEMS[name]
    return make_problem(rows, cols, ["8x8"], None, elem, **kw)


def test_the_registry_is_its_modules():
    """The registries are the folders' modules (read here from the files), in their ORDER."""
    package = ROOT / "swizzle_solver"
    modules = {p.stem for p in (package / "emit").glob("*.py") if not p.stem.startswith("_")}
    assert {writers()[t].emit.__module__.split(".")[-1] for t in WRITERS} == modules - {"common", "recognise", "views"}
    assert set(READERS) == {p.stem for p in (package / "notation").glob("*.py") if not p.stem.startswith("_")}
    assert [writers()[t].order for t in WRITERS] == sorted(writers()[t].order for t in WRITERS)
    assert [notation.reader(p).check_order for p in READERS] == sorted(notation.reader(p).check_order for p in READERS)
    assert tuple(WRITERS) == registry.TARGETS and {"hip": "cuda", "tcgen05": "umma"}.items() <= registry.ALIASES.items()
    assert all(registry.TITLES[t] == writers()[t].title for t in WRITERS)
    names = [*WRITERS, *registry.ALIASES]
    assert len(names) == len(set(names))  # no alias names another target


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("case", list(PROBLEMS))
@pytest.mark.parametrize("target", WRITERS)
def test_every_writer_keeps_the_contract(target, case, layout):
    language, p, lay = writers()[target], problem(case), LAYOUTS[layout]
    if layout == "padded" and case == "fp4":
        lay = Padded(24, Identity())  # (a pitch of the packed 16-byte rows)
    snippet = emit(target, p, lay)
    assert snippet.target == target and snippet.code
    head = snippet.code.splitlines()[0]
    assert head.startswith(f"{language.comment} {lay.name}: "), head
    assert emit(target, p, lay) == snippet  # deterministic
    assert (target in expressible_in(p, lay)) == snippet.expressible
    if case == "col":
        assert "column-major (--order col)" in head
    if case == "fp4":
        assert "4-bit elements" in snippet.code
    if language.comment == "#":  # no other language's comments leak in (the views write in its marker)
        assert not any(line.lstrip().startswith("//") for line in snippet.code.splitlines()), snippet.code


@pytest.mark.parametrize("arch", sorted(HARDWARE))
@pytest.mark.parametrize("target", WRITERS)
def test_an_unavailable_target_is_refused_and_never_expressible(target, arch):
    unavailable = writers()[target].unavailable
    why = unavailable(HARDWARE[arch]) if unavailable is not None else None
    if why is None:
        refuse_unavailable([target], HARDWARE[arch])  # no error
        return
    with pytest.raises(InputError, match=f"^--for {target}: "):
        refuse_unavailable([target], HARDWARE[arch])
    p = make_problem(64, 64, ["8x8"], None, 2, arch=arch)
    assert target not in expressible_in(p, Swizzle(3, 3, 3)) and not emit(target, p, Swizzle(3, 3, 3)).expressible


def _docs_examples() -> dict[str, list[str]]:
    """docs/cli.md's table of notations: each row's prefix -> its examples' --check texts."""
    text = (DOCS / "cli.md").read_text()
    found: dict[str, list[str]] = {}
    for row in re.findall(r"^\| `([a-z_]+):[^\n]*", text, re.M):
        line = next(line for line in text.splitlines() if line.startswith(f"| `{row}:"))
        examples = re.findall(r"--check '([^']*)'|--check (\S+?)`", line)
        found.setdefault(row, []).extend(a or b for a, b in examples)
    return found


@pytest.mark.parametrize("prefix", READERS)
def test_every_reader_has_a_documented_example_that_checks(prefix, tmp_path):
    examples = _docs_examples()
    assert examples.get(prefix), f"docs/cli.md's table of --check forms has no row for {prefix}:"
    (tmp_path / "offsets.npy").write_bytes(b"")  # (replaced below where a table: example names it)
    for text in examples[prefix]:
        if prefix == "table":
            import numpy as np

            path = tmp_path / text.split(":", 1)[1]
            np.save(path, np.arange(128 * 64).reshape(128, 64))
        out = cli("--rows", "128", "--cols", "64", "--dtype", "f16", "--access", "8x8", "--check", text, "--json",
                  cwd=tmp_path)
        assert out.returncode in (0, 1), (text, out.stderr)
        doc = json.loads(out.stdout)
        assert doc["answer"]["given"]["notation"] == prefix
        validate(doc)


@pytest.mark.parametrize("prefix", READERS)
def test_every_reader_refuses_what_it_cannot_read(prefix):
    text = f"{prefix}: )("
    out = cli("--rows", "64", "--cols", "64", "--dtype", "f16", "--access", "8x8", "--check", text)
    assert out.returncode == 2 and out.stdout == "" and out.stderr.count("\n") == 1, out.stderr
    assert "Traceback" not in out.stderr and f"{prefix}:" in out.stderr


def _cells(line: str) -> list[str]:
    return re.findall(r"`([^`]+)`", line)


def test_the_docs_list_exactly_the_registered_targets():
    """docs/cli.md's --emit and --for rows name every target, in --emit order, and nothing else."""
    lines = (DOCS / "cli.md").read_text().splitlines()
    emit_row = next(line for line in lines if line.startswith("| `--emit TARGET`"))
    for_row = next(line for line in lines if line.startswith("| `--for TARGET`"))
    named = [c for c in _cells(emit_row)[1:] if c in WRITERS]
    assert named[:len(WRITERS)] == WRITERS and _cells(for_row)[1:] == WRITERS
    words = {w for w in _cells(emit_row)[1:] + _cells(for_row)[1:] if re.fullmatch(r"[a-z][a-z0-9-]*", w)}
    assert words == {*WRITERS, *registry.ALIASES, "all"}


def test_the_docs_list_exactly_the_registered_notations():
    """The tables of --check forms (docs/cli.md, docs/checking-your-kernel.md) and --check's row in
    docs/cli.md name every notation's prefix, in the registry's order, and no other."""
    assert list(_docs_examples()) == READERS
    kernel = (DOCS / "checking-your-kernel.md").read_text()
    assert list(dict.fromkeys(re.findall(r"^\| `([a-z_]+):", kernel, re.M))) == READERS
    cli_lines = (DOCS / "cli.md").read_text().splitlines()
    check_row = next(line for line in cli_lines if line.startswith("| `--check LAYOUT`"))
    assert [c.split(":")[0] for c in _cells(check_row)[1:] if ":" in c] == READERS


def test_the_contributing_guide_lists_every_language():
    """docs/contributing.md's table of languages: one row per language (the writers and readers
    joined by name), with its --check prefix and its --emit name."""
    text = (DOCS / "contributing.md").read_text()
    table = text[text.index("| language | `--check` | `--emit` |"):].split("\n\n")[0].splitlines()[2:]
    rows = {cells[0]: (cells[1], cells[2], cells[3], cells[4]) for cells in ([c.strip() for c in row.strip("|").split("|")] for row in table)}
    names = list(dict.fromkeys([*READERS, *WRITERS]))
    assert sorted(rows) == sorted(f"`{n}`" for n in names)
    for name in names:
        check, target, reader, writer = rows[f"`{name}`"]
        assert reader == (f"`notation/{name}.py`" if name in READERS else "")
        module = writers()[name].emit.__module__.split(".")[-1] if name in WRITERS else None
        assert writer == (f"`emit/{module}.py`" if module else "")
        assert (check == f"`{name}:`") == (name in READERS) and (check == "") == (name not in READERS)
        aliases = [a for a, t in registry.ALIASES.items() if t == name]
        assert target == (" ".join(f"`{t}`" for t in [name, *aliases]) if name in WRITERS else "")
