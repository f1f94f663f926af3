"""``[case.matrix]``: one batch case written once for every config of a kernel template.

    [[case]]
    name = "FA K tile"
    rows = 64
    cols = "{head_dim}"                  # exactly one variable: its value, with its type
    dtype = "{dtype}"
    arch = "{arch}"
    access = ["ldmatrix.x4"]
    check = "expr: r * {head_dim} + c"   # inside longer text: substituted
    [case.matrix]
    head_dim = [64, 80, 96, 128, 256]
    dtype = ["f16", "bf16"]
    arch = ["sm80", "sm90"]
    exclude = [{head_dim = 80, arch = "sm90"}]
    include = [{head_dim = 192, dtype = "f16", arch = "sm90"}]

The configs are the product of the variables' value lists, in the order written (the last variable
varies fastest), less every config that matches all the keys of an ``exclude`` entry, then each
``include`` entry (which gives every variable a value) not already there. A matrix of ``include``
alone is exactly its entries. Each config is a case named by its values: ``FA K tile [head_dim=64,
dtype=f16, arch=sm80]`` (a name that holds ``{var}`` itself gets it substituted, and only the
variables it does not name are appended).

Nothing here builds a case: ``Matrix`` is the variables and the configs' positions in the product
(4 bytes each), and ``config(i)`` gives the i-th config's values on demand, so a matrix of many
configs holds one at a time (cases.py compiles it only when it is run). A matrix of more than
``MAX_CONFIGS`` configs is refused before any is built (issue 39).
"""
from __future__ import annotations

import re
from array import array
from collections.abc import Iterator
from itertools import product
from math import prod

from .model import InputError
from .value import Value

MAX_CONFIGS = 100_000  # configs of one batch file, all its matrices together
SPECIAL = ("include", "exclude")
_VARIABLE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


class Matrix(Value, eq=False):
    """The variables (name, values) in the order written, and the configs: the product's positions
    kept (``kept``, mixed-radix, the last variable fastest), then the ``include`` entries added."""

    variables: tuple[tuple[str, tuple], ...]
    kept: array  # positions in the product, ascending
    added: tuple[tuple, ...]  # include entries not in the product: a value per variable

    def __len__(self) -> int:
        return len(self.kept) + len(self.added)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.variables)

    def config(self, i: int) -> dict:
        """The i-th config: variable -> value."""
        if i >= len(self.kept):
            return dict(zip(self.names, self.added[i - len(self.kept)]))
        position, values = self.kept[i], []
        for _, choices in reversed(self.variables):
            position, k = divmod(position, len(choices))
            values.append(choices[k])
        return dict(zip(self.names, reversed(values)))

    def __iter__(self) -> Iterator[dict]:
        return (self.config(i) for i in range(len(self)))


def _value_ok(value) -> bool:
    """A variable's value: a string, integer, boolean or float, or a list of them (an access list)."""
    if isinstance(value, list):
        return all(_value_ok(v) and not isinstance(v, list) for v in value)
    return isinstance(value, (str, int, float, bool))


def read_matrix(table: object, where: str, budget: int = MAX_CONFIGS) -> Matrix:
    """The ``[case.matrix]`` table of a case, checked: variable names, value lists, ``include`` and
    ``exclude`` entries; refused (exit 2, one line) when its configs would be more than ``budget``,
    before any is built."""
    if not isinstance(table, dict) or not table:
        raise InputError(f"{where}: matrix must be a table of variables, e.g. [case.matrix] head_dim = [64, 128]")
    variables = _variables(table, where)
    include = _entries(table, "include", where)
    exclude = _entries(table, "exclude", where)
    names = [n for n, _ in variables] or list(dict.fromkeys(k for entry in include for k in entry))
    if not names:
        raise InputError(f"{where}: matrix has no variables: give lists (head_dim = [64, 128]) or include entries")
    _known_keys(include + exclude, names, where)
    total = (prod(len(v) for _, v in variables) if variables else 0) + len(include)
    if total > budget:
        left = "" if budget == MAX_CONFIGS else f"{budget:,} left of "
        raise InputError(f"{where}: matrix makes {total:,} configs, more than the {left}{MAX_CONFIGS:,} a batch file "
                         f"may have: shorten the value lists or split the file")
    matrix = _configs(tuple(variables), names, include, exclude, where)
    if not len(matrix):
        raise InputError(f"{where}: matrix has no config left: exclude removes every one (drop an exclude entry)")
    return matrix


def _variables(table: dict, where: str) -> list[tuple[str, tuple]]:
    """The matrix's variables (name, values), in the order written."""
    variables = []
    for name, values in table.items():
        if name in SPECIAL:
            continue
        if not _NAME.match(name):
            raise InputError(f"{where}: matrix variable {name!r} is not a name (letters, digits and _, "
                             f"used as {{name}} in the case's values)")
        if not isinstance(values, list) or not values or not all(_value_ok(v) for v in values):
            raise InputError(f"{where}: matrix variable {name!r} must be a non-empty list of values, e.g. "
                             f"{name} = [64, 128]")
        variables.append((name, tuple(values)))
    return variables


def _entries(table: dict, key: str, where: str) -> list[dict]:
    entries = table.get(key, [])
    if not isinstance(entries, list) or not all(isinstance(e, dict) and e and all(_value_ok(v) for v in e.values())
                                                for e in entries):
        raise InputError(f"{where}: matrix {key} must be a list of tables of variable values, e.g. "
                         f"{key} = [{{head_dim = 64, dtype = \"bf16\"}}]")
    return entries


def _known_keys(entries: list[dict], names: list[str], where: str) -> None:
    for entry in entries:
        unknown = sorted(set(entry) - set(names))
        if unknown:
            raise InputError(f"{where}: matrix include/exclude names {unknown[0]!r}, which is not one of its "
                             f"variables ({', '.join(names)})")


def _configs(variables: tuple, names: list[str], include: list[dict], exclude: list[dict], where: str) -> Matrix:
    kept = array("I")
    if variables:
        for position, values in enumerate(product(*(v for _, v in variables))):
            config = dict(zip(names, values))
            if not any(all(config[k] == v for k, v in e.items()) for e in exclude):
                kept.append(position)
    added = _added(variables, names, include, kept, where)
    if variables:
        return Matrix(variables, kept, tuple(added))
    return Matrix(tuple((n, ()) for n in names), kept, tuple(added))


def _added(variables: tuple, names: list[str], include: list[dict], kept: array, where: str) -> list[tuple]:
    """The include entries, each a value per variable, that the product did not keep already."""
    added: list[tuple] = []
    for entry in include:
        missing = [n for n in names if n not in entry]
        if missing:
            raise InputError(f"{where}: matrix include entry {entry} gives no value for {missing[0]!r}: an include "
                             f"entry gives every variable ({', '.join(names)})")
        values = tuple(entry[n] for n in names)
        if values not in added and not _in_product(variables, values, kept):
            added.append(values)
    return added


def _in_product(variables: tuple, values: tuple, kept: array) -> bool:
    """Whether ``values`` is a config the product kept (an include entry already there)."""
    if not variables:
        return False
    position = 0
    for (_, choices), v in zip(variables, values):
        matches = [k for k, c in enumerate(choices) if c == v and type(c) is type(v)]
        if not matches:
            return False
        position = position * len(choices) + matches[0]
    from bisect import bisect_left

    i = bisect_left(kept, position)
    return i < len(kept) and kept[i] == position


def shown(value) -> str:
    """A value as it appears in a name or in substituted text."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ",".join(shown(v) for v in value)
    return str(value)


def substituted(value, config: dict, where: str):
    """``value`` (a case's value: a string, a list, a table, a number) with every ``{var}`` of
    ``config`` in it replaced: a string that is exactly ``{var}`` becomes the variable's value, of
    its type; elsewhere in text, its text. A ``{name}`` that is no variable is refused (a typo would
    otherwise reach the case's own parser as text)."""
    if isinstance(value, list):
        return [substituted(v, config, where) for v in value]
    if isinstance(value, dict):
        return {k: substituted(v, config, where) for k, v in value.items()}
    if not isinstance(value, str):
        return value
    whole = _VARIABLE.fullmatch(value)
    if whole and whole.group(1) in config:
        return config[whole.group(1)]

    def one(match: re.Match) -> str:
        name = match.group(1)
        if name not in config:
            raise InputError(f"{where}: {{{name}}} in {value!r} is not a variable of the case's matrix "
                             f"({', '.join(config)})")
        return shown(config[name])

    return _VARIABLE.sub(one, value)


def config_name(name: str, config: dict, where: str) -> str:
    """A config's case name: ``name`` with its ``{var}`` substituted, and the variables it does not
    name appended as ``[var=value, ...]``."""
    named = set(_VARIABLE.findall(name))
    text = substituted(name, config, where) if named else name
    rest = [f"{k}={shown(v)}" for k, v in config.items() if k not in named]
    return f"{text} [{', '.join(rest)}]" if rest else str(text)
