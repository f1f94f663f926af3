"""Layout names as the tool prints them (each family's ``name``), read back.

``parse_layout`` builds the layout a name denotes, for ``--check``, batch's ``check`` and the API's
``check``: every name an answer can have, so any answer can be pinned in CI. Each family's record
(families/__init__.py) holds its parser and the pattern of the names it prints; this module only
asks them in turn. ``expect_problem`` only validates a name, for batch's ``expect``.
"""
from __future__ import annotations

import re
from pathlib import Path

from .families import parse_name, records
from .layout import MAX_BIT, MAX_ROWS, BadName, Layout
from .model import InputError, Tile

__all__ = ["MAX_BIT", "MAX_ROWS", "checkable", "compared", "expect_problem", "parse_layout"]


def checkable() -> str:
    """Every family's way of writing a name, and the notations', for messages."""
    from .notation import prefixes  # (only for this message: it imports every notation module)

    notations = ", ".join(f"{p}:FILE" if p == "table" else f"{p}:" for p in prefixes())
    syntaxes = [r.syntax for r in records()] + [f"a layout in the kernel's notation ({notations}) or a TMA mode "
                                                 "(128B, 64B, 32B)"]
    return ", ".join(syntaxes[:-1]) + f" or {syntaxes[-1]}"


def parse_layout(text: str, what: str = "--check", tile: Tile | None = None, base: Path | None = None,
                 allow_outside: bool = True) -> Layout:
    """The layout named ``text``; InputError saying ``what`` was given (e.g. "--check") otherwise.
    A layout in the kernel's notation (notation/) is read here too: ``tile`` (the problem's) lets a
    recipe (128B) resolve and evaluates the layout at once, so that one undefined on the tile is
    bad input before anything runs; ``base`` and ``allow_outside``: where ``table:`` files are read."""
    s = text.strip()
    from .notation import is_notation

    if is_notation(s):  # its text is its name, printed as given: one printable line (docs/cli.md)
        from .access.inputfile import printable_only

        return _notation(printable_only(s, what), what, tile, base, allow_outside)
    try:
        return parse_name(s)
    except BadName as err:
        named = text if err.text == s else err.text  # the user's own text, or the part at fault
        if err.why is None:
            raise InputError(f"{what} {named!r} is not a layout name: {_prefix_hint(s) or 'write ' + checkable()}") \
                from None
        raise InputError(f"{what} {named!r}: {err.why}") from None


def _prefix_hint(text: str) -> str:
    """For a CuTe, Triton, TileLang or ThunderKittens layout given without its notation's prefix: which to write (a printed or
    Python-built layout is not guessed at: docs/checking-your-kernel.md); else ""."""
    from .notation import shown
    from .notation.cute import mojo_swizzle_print

    text = shown(text)
    if triple := mojo_swizzle_print(text):
        return triple
    guessed = re.match(r"\s*(mojo|cute-?dsl|dsl|pycute|cutlass|gluon|ttgir|ttg|thunderkittens|kittens)\s*:(?!:)\s*(.*)",
                       text, re.I | re.S)
    if guessed:  # a notation's name guessed from the language: the prefix that reads it
        prefix = {"mojo": "cute", "cutedsl": "cute", "cute-dsl": "cute", "dsl": "cute", "pycute": "cute",
                  "cutlass": "cute", "gluon": "triton", "ttgir": "triton", "ttg": "triton",
                  "thunderkittens": "tk", "kittens": "tk"}[guessed[1].lower()]
        return f"write '{prefix}: {guessed[2].strip()}' (the {prefix} prefix reads {guessed[1]}'s text)"
    if re.match(r"\s*(#\w+\s*=\s*)?(#(ttg|triton_gpu)\.|(ttgl\.|gl\.)?(Swizzled|NVMMA|Padded)Shared|SharedLinearLayout)", text):
        return f"a Triton encoding: write 'triton: {text.strip()}'"
    if re.match(r"\s*(tilelang\.layout\.|T\.)?make_(full_bank|half_bank|quarter_bank)_swizzled_layout\s*\(|"
                r"\s*(tilelang\.layout\.|T\.)?make_linear_layout\s*\(", text):
        return f"a TileLang layout: write 'tilelang: {text.strip()}'"
    if re.match(r"\s*(kittens::)?st(_\w+)?\s*<", text):
        return f"a ThunderKittens tile: write 'tk: {text.strip()}'"
    if re.search(r"\):\s*\(|^\s*_?\d+\s*:|\bSW?_?\d|\bSw<|\bcute\.|make_layout|make_swizzle|\bSwizzle\(", text):
        return f"a CuTe layout: write 'cute: {text.strip()}'"
    return ""


def _notation(text: str, what: str, tile: Tile | None, base: Path | None, allow_outside: bool) -> Layout:
    from .notation import NotationError, read, recipe, shown

    try:
        layout = recipe(text, tile)
        if layout is None:  # a notation's text: checked as written (the given family)
            from .families.given import Given

            layout = Given(text.strip(), read(text, base, allow_outside))
        if tile is not None:
            layout.invalid(tile)  # evaluated now (and remembered): undefined on the tile is bad input
    except NotationError as err:
        raise InputError(f"{what} {shown(text)!r}: {err}") from None
    except InputError as err:
        raise InputError(f"{what} {shown(text)!r}: {err}") from None
    return layout


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
