"""examples.toml (DESIGN.md section 6): named cases with optional expectations, for `batch`.

A case either states what the search must answer (``expect``, ``expect_status``) or gives the layout
a kernel uses (``check``, like --check), which must then be usable and reach ``expect_status``
(default conflict-free): the form for pinning a kernel's tiles in CI.
"""
from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from itertools import accumulate
from pathlib import Path
from typing import overload

from .access import (
    defaulted_elem_warning,
    elem_bits_of,
    elem_bytes_of,
    make_problem,
    needs_forms_above,
    scalar_bytes_of,
)
from .access.inputfile import load_toml, printable, read_text
from .configs import MAX_CONFIGS, Matrix, config_name, read_matrix, substituted
from .layout import Layout
from .model import InputError, Problem
from .names import compared, expect_problem, parse_layout
from .value import Value, replace

KEYS = {"name", "rows", "cols", "row_length", "dtype", "elem_bytes", "banks", "bank_bytes", "arch", "access",
        "phases", "linear_layout", "expect", "expect_status", "check", "stage", "pitch", "keep_pitch", "for",
        "order", "matrix", "define"}
STATUSES = ("conflict-free", "conflicts")


class Case(Value, eq=False):
    name: str
    problem: Problem
    expect: str | None  # "Swizzle<B,M,S>", "none", or another layout name
    expect_status: str | None
    check: Layout | None = None  # a layout to check instead of searching (names.parse_layout)
    keep_pitch: bool = False  # only layouts of the given row length (--keep-pitch)
    for_targets: tuple[str, ...] = ()  # only layouts these emit targets express (--for)
    warning: str | None = None  # no dtype, and an access that moves another size (access.defaulted_elem_warning)
    matrix: str | None = None  # a config of a [case.matrix] case: that case's name (configs.py)
    config: tuple[tuple[str, object], ...] = ()  # and its values: (variable, value), in order

    def meets(self, status: str, answer: str, usable: bool = True) -> bool:
        """A search's answer (or, with ``check``, the checked layout and whether it is usable)."""
        if self.check is not None:
            return usable and status == (self.expect_status or "conflict-free")
        return ((self.expect_status is None or status == self.expect_status)
                and (self.expect is None or compared(answer) == compared(self.expect)))

    def expectation(self) -> str:
        if self.check is not None:
            return f"check: {self.expect_status or 'conflict-free'}"
        parts = [x for x in (self.expect, self.expect_status) if x]
        return ", ".join(parts) or "-"


def load_cases(path: str, only: str | None = None, allow_outside: bool = False) -> list[Case]:
    """Parse and compile every case (so that a bad one fails before anything is printed). The files
    a case names are read relative to the examples file and, unless ``allow_outside``, from inside
    its folder only (a shared examples file must not read the rest of the disk)."""
    return [make() for make in _makers(path, only, allow_outside)]


def case_makers(path: str, only: str | None = None, allow_outside: bool = False) -> Makers:
    """load_cases for batch: every case is compiled now (a bad one fails before anything is
    printed) and dropped, and compiled again when its maker is called, so that a batch holds one
    compiled case at a time: a case's access patterns take up to megabytes, and a file may have
    thousands of cases (its files are then read twice). A ``[case.matrix]`` case is its configs,
    each made from the matrix when asked for (configs.py): none is held."""
    makers = _makers(path, only, allow_outside)
    for make in makers:
        make()
    return makers


class Makers(Sequence):
    """The cases of a file in order, each a maker (a function of no arguments that compiles it),
    made on demand: a plain case is its table, a ``[case.matrix]`` case one entry per config."""

    def __init__(self, entries: list[tuple[dict, str, Matrix | None]], path: str, allow_outside: bool):
        self.entries, self.path, self.allow_outside = entries, path, allow_outside
        self.starts = list(accumulate((len(m) if m is not None else 1 for _, _, m in entries), initial=0))

    def __len__(self) -> int:
        return self.starts[-1]

    @overload
    def __getitem__(self, i: int) -> Callable[[], Case]: ...
    @overload
    def __getitem__(self, i: slice) -> list[Callable[[], Case]]: ...

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        e = bisect_right(self.starts, i) - 1
        table, name, matrix = self.entries[e]
        if matrix is None:
            return partial(_case, table, name, self.path, self.allow_outside)
        return partial(_config_case, table, name, matrix.config(i - self.starts[e]), self.path, self.allow_outside)

    def names(self) -> Iterator[str]:
        """Every case's name, in order, without compiling any."""
        for _table, name, matrix in self.entries:
            if matrix is None:
                yield name
            else:
                where = f"{printable(self.path)}: case {name!r}"
                yield from (printable(config_name(name, config, where)) for config in matrix)


def _makers(path: str, only: str | None, allow_outside: bool) -> Makers:
    text = read_text(path, "examples file")
    doc = load_toml(text, printable(path))
    tables = doc.get("case")
    if not isinstance(tables, list) or not tables or not all(isinstance(t, dict) for t in tables):
        raise InputError(f"{path} has no [[case]] tables: write one [[case]] per example")
    names = [t.get("name", f"#{i + 1}") for i, t in enumerate(tables)]
    seen: set[str] = set()  # (a set: ``name in names[:i]`` is quadratic in the number of cases)
    for i, name in enumerate(names):
        if not isinstance(name, str):
            raise InputError(f"{path}: case #{i + 1} has name = {name!r}; a name must be a string")
        if name in seen:
            raise InputError(f"{path}: two cases are named {name!r}; give every case its own name")
        seen.add(name)
    entries, left = [], MAX_CONFIGS
    for table, name in zip(tables, names):
        matrix = None
        if "matrix" in table:
            matrix = read_matrix(table["matrix"], f"{printable(path)}: case {name!r}", left)
            left -= len(matrix)
        entries.append((table, name, matrix))
    makers = Makers(entries, path, allow_outside)
    if only is None:
        return makers
    all_names = list(makers.names())
    only = select_case(all_names, only, path)
    return Makers([_only(makers, all_names.index(only))], path, allow_outside)


def _only(makers: Makers, i: int) -> tuple[dict, str, Matrix | None]:
    """The one entry of ``makers`` that makes its i-th case (a config: a matrix of that config alone)."""
    e = bisect_right(makers.starts, i) - 1
    table, name, matrix = makers.entries[e]
    if matrix is None:
        return table, name, None
    values = tuple(matrix.config(i - makers.starts[e]).values())
    return table, name, Matrix(matrix.variables, array("I"), (values,))


def _config_case(t: dict, name: str, config: dict, path: str, allow_outside: bool = False) -> Case:
    """One config of a ``[case.matrix]`` case: the table with the config's values substituted."""
    where = f"{printable(path)}: case {name!r}"
    table = {k: substituted(v, config, where) for k, v in t.items() if k not in ("matrix", "name")}
    case = _case(table, config_name(name, config, where), path, allow_outside)
    return replace(case, matrix=printable(name), config=tuple(config.items()))


def shown_name(name: str) -> str:
    """A case's name as batch prints it (table, --list, JSON, messages): one printable line holding
    nothing a CI runner would run (``printable``)."""
    return printable(name)


def _folded(text: str) -> str:
    return " ".join(text.lower().split())


def select_case(names: list[str], wanted: str, path: str) -> str:
    """--case: the case of that name, else the one case whose name contains ``wanted`` (any case,
    any spacing: names run to 60-130 characters, and a unique part is enough). More than one such
    name, or none, is bad input that lists them, or the closest names."""
    if wanted in names:
        return wanted
    key = _folded(wanted)
    hits = [n for n in names if key and key in _folded(n)]
    if len(hits) == 1:
        return hits[0]
    listing = f"batch {printable(path)} --list prints every name"
    if hits:
        shown = ", ".join(repr(n) for n in hits[:3]) + (", ..." if len(hits) > 3 else "")
        raise InputError(f"--case {wanted!r} is part of {len(hits)} case names in {printable(path)} ({shown}): "
                         f"give more of the name; {listing}")
    close = close_names(key, names)
    maybe = f"did you mean {' or '.join(repr(n) for n in close)}? " if close else ""
    raise InputError(f"no case name in {printable(path)} contains {wanted!r}: {maybe}{listing}")


def close_names(key: str, names: list[str], n: int = 3) -> list[str]:
    """Up to ``n`` names with a part most like ``key`` (difflib's ratio over each window of the
    name as long as ``key``, at least 0.75: a typo or two in a part of a long name)."""
    from difflib import SequenceMatcher

    def score(name: str) -> float:
        folded = _folded(name)
        width = min(len(key), len(folded))
        matcher = SequenceMatcher(None, key, autojunk=False)
        best = 0.0
        for start in range(len(folded) - width + 1):
            matcher.set_seq2(folded[start:start + width])
            best = max(best, matcher.ratio())
        return best

    scored = sorted(((score(name), i) for i, name in enumerate(names)), key=lambda x: (-x[0], x[1]))
    return [names[i] for s, i in scored[:n] if s >= 0.75]


def _pitch_as_row_length(t: dict, where: str) -> dict:
    """``pitch`` is row_length's other name (the CLI's --pitch)."""
    if "pitch" not in t:
        return t
    if "row_length" in t:
        raise InputError(f"{where}: give pitch or row_length (the same thing), not both")
    return {**{k: v for k, v in t.items() if k != "pitch"}, "row_length": t["pitch"]}


def _case(t: dict, name: str, path: str, allow_outside: bool = False) -> Case:
    where = f"{printable(path)}: case {name!r}"
    _check_keys(t, where)
    t = _pitch_as_row_length(t, where)
    access = _selected(_defined_accesses(t, where), t.get("arch", "nvidia"), where)
    files = {key: _file_list(t, key, where) for key in ("phases", "linear_layout")}
    base = Path(path).resolve().parent  # phases paths are relative to the examples file
    _check_paths(files, base, where, allow_outside)
    status = t.get("expect_status")
    keep_pitch, targets = _restrictions(t, where)
    if needs_forms_above(access):
        from . import indexed, tiled  # noqa: F401  (index:, offset: and make_tiled_copy register their readers)
    try:
        e = elem_bytes_of(t.get("dtype"), t.get("elem_bytes"))
        problem = make_problem(t["rows"], t["cols"], access, t.get("row_length"), e, banks=t.get("banks"),
                               bank_bytes=t.get("bank_bytes"), phases_files=[str(base / p) for p in files["phases"]],
                               layout_files=[str(base / p) for p in files["linear_layout"]],
                               arch=t.get("arch", "nvidia"), elem_bits=elem_bits_of(t.get("dtype")), scalar_bytes=scalar_bytes_of(t.get("dtype")),
                               order=t.get("order", "row"))
    except InputError as err:
        raise InputError(f"{where}: {err}") from None
    check = parse_layout(_defined(t, where), f"{where}: check", problem.tile, base, allow_outside) \
        if "check" in t else None
    given = "dtype" in t or "elem_bytes" in t
    warning = None if given else defaulted_elem_warning(access, 'dtype = "{}"')
    return Case(shown_name(name), problem, t.get("expect"), status, check, keep_pitch, targets, warning)


def _defines(t: dict, where: str) -> dict:
    defines = t.get("define", {})
    if not isinstance(defines, dict):
        raise InputError(f"{where}: define is a table of constants, define = {{kSwizzle = 3}}")
    return defines


def _defined(t: dict, where: str) -> str:
    """The case's check with its ``define = {NAME = VALUE, ...}`` constants substituted (as -D)."""
    from .notation import defined

    return str(defined(t["check"], _defines(t, where), f"{where}: define"))


def _defined_accesses(t: dict, where: str) -> list[str]:
    """The case's access specs with its ``define`` constants substituted in index:/offset: accesses."""
    from .notation import defined_accesses

    return defined_accesses(_access_specs(t, where), _defines(t, where), f"{where}: define")


def _access_specs(t: dict, where: str) -> list[str]:
    """The case's access specs: a list of strings (one string alone is a list of one)."""
    access = t.get("access", [])
    if isinstance(access, str):
        access = [access]
    if not isinstance(access, list) or not all(isinstance(a, str) for a in access):
        raise InputError(f"{where}: access must be a list of specs, e.g. access = [\"8x4\", \"row\"]")
    return access


def _selected(access: list[str], arch: str, where: str) -> list[str]:
    """The specs the case's one target runs: an access given per target (``nvidia:ldmatrix.x4``,
    ``amd:ds_read_b128:64x1``; portable.py) is the case's only when its selector selects the target,
    so that one access list serves a matrix over ``arch``. A list of targets is the CLI's."""
    if not any(":" in a for a in access):
        return access
    from .hardware import ALIASES, target
    from .portable import accesses_for

    if "," in arch or target(arch) is None:
        raise InputError(f"{where}: arch = {arch!r}: a batch case has one target (the joint solve over several "
                         f"is --arch A,B on the command line; a [case.matrix] arch = [...] runs each)")
    key = arch.strip().lower()
    mine = accesses_for(ALIASES.get(key, key), access)
    if not mine:
        raise InputError(f"{where}: no access of the case is given to arch {arch!r}: give one without a selector "
                         f"or with one that selects it")
    return mine


def _file_list(t: dict, key: str, where: str) -> list[str]:
    """The case's file paths under ``key``: a list of strings (one string alone is a list of one)."""
    paths = t.get(key, [])
    paths = [paths] if isinstance(paths, str) else paths
    if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
        raise InputError(f"{where}: {key} must be a list of file paths, e.g. {key} = [\"examples/x.json\"]")
    return paths


def _check_paths(files: dict[str, list[str]], base: Path, where: str, allow_outside: bool) -> None:
    """Every file path a real path inside ``base``, the examples file's folder (unless
    --allow-outside): a batch file may not read files elsewhere on its own say."""
    for key, paths in files.items():
        for p in paths:
            if "\0" in p:  # (no file has one: the path checks below would fail with ValueError)
                raise InputError(f"{where}: {key} path {p!r} holds a NUL character: give the file's path")
            if not allow_outside and (Path(p).is_absolute() or not (base / p).resolve().is_relative_to(base)):
                raise InputError(f"{where}: {key} path {p!r} leaves the folder of the examples file: give a path "
                                 f"inside it, or run batch --allow-outside")

def _check_keys(t: dict, where: str) -> None:
    """The case's keys: known, rows and cols present, the strings strings, expect a printable name,
    not both check and expect."""
    unknown = sorted(set(t) - KEYS)
    if unknown:
        raise InputError(f"{where}: unknown key {unknown[0]!r}; the keys are {', '.join(sorted(KEYS))}")
    for key in ("rows", "cols"):
        if key not in t:
            raise InputError(f"{where}: missing {key!r}; every case needs rows, cols and access")
    status = t.get("expect_status")
    if status is not None and status not in STATUSES:
        raise InputError(f"{where}: expect_status must be one of {', '.join(STATUSES)}, got {status!r}")
    for key in ("expect", "dtype", "check", "arch", "order"):
        if key in t and not isinstance(t[key], str):
            raise InputError(f"{where}: {key} must be a string")
    why = expect_problem(t["expect"]) if "expect" in t else None
    if why:
        raise InputError(f"{where}: {why}")
    if "check" in t and "expect" in t:
        raise InputError(f"{where}: give check (the layout your kernel uses must be conflict-free) or expect "
                         f"(what the search must answer), not both")


def _restrictions(t: dict, where: str) -> tuple[bool, tuple[str, ...]]:
    """keep_pitch (--keep-pitch) and for (--for) of a case."""
    keep_pitch = t.get("keep_pitch", False)
    if not isinstance(keep_pitch, bool):
        raise InputError(f"{where}: keep_pitch must be true or false")
    targets = t.get("for", [])
    targets = [targets] if isinstance(targets, str) else targets
    if not isinstance(targets, list) or not all(isinstance(x, str) for x in targets):
        raise InputError(f"{where}: for must be a list of emit targets, e.g. for = [\"tma\"]")
    if not targets:
        return keep_pitch, ()
    from .emit import parse_targets

    try:
        return keep_pitch, tuple(parse_targets(targets, "for"))
    except InputError as err:
        raise InputError(f"{where}: {err}") from None
