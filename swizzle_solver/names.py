"""Layout names as the tool prints them (each family's ``name``), read back.

``parse_layout`` builds the layout a name denotes, for ``--check``, batch's ``check`` and the API's
``check``: every name an answer can have, so any answer can be pinned in CI. Each family's record
(families/__init__.py) holds its parser and the pattern of the names it prints; this module only
asks them in turn. ``expect_problem`` only validates a name, for batch's ``expect``.
"""
from __future__ import annotations

import re

from .families import parse_name, records
from .layout import MAX_BIT, MAX_ROWS, BadName, Layout
from .model import InputError

__all__ = ["MAX_BIT", "MAX_ROWS", "checkable", "compared", "expect_problem", "parse_layout"]


def checkable() -> str:
    """Every family's way of writing a name, for messages."""
    syntaxes = [r.syntax for r in records()]
    return ", ".join(syntaxes[:-1]) + f" or {syntaxes[-1]}" if len(syntaxes) > 1 else syntaxes[0]


def parse_layout(text: str, what: str = "--check") -> Layout:
    """The layout named ``text``; InputError saying ``what`` was given (e.g. "--check") otherwise."""
    s = text.strip()
    try:
        return parse_name(s)
    except BadName as err:
        named = text if err.text == s else err.text  # the user's own text, or the part at fault
        if err.why is None:
            raise InputError(f"{what} {named!r} is not a layout name: write {checkable()}") from None
        raise InputError(f"{what} {named!r}: {err.why}") from None


def compared(name: str) -> str:
    """A name as batch compares it with an answer's: spaces do not count."""
    return name.replace(" ", "")


def expect_problem(expect: str) -> str | None:
    """Why ``expect`` can never equal an answer's name (a typo would fail every run), or None."""
    text = compared(expect)
    if not any(re.fullmatch(r.printed, text) for r in records()):
        return (f"expect {expect!r} is not a layout name: write it as the tool prints it, "
                f"e.g. none, Swizzle<B,M,S> or XorCols<B,M,a>")
    for rec in records():
        why = rec.never_printed(text) if rec.never_printed else None
        if why:
            return f"expect {expect!r} is never an answer: {why}"
    return None
