"""Layout names as the tool prints them (each family's ``name``), read back.

``parse_layout`` builds the layout a name denotes, for ``--check`` and the API's ``check``: none,
``Swizzle<B,M,S>`` (or ``B,M,S``), ``XorCols<B,M,a>`` and a two-level ``Swizzle<..> then
Swizzle<..>``. ``expect_problem`` only validates a name, for batch's ``expect``, which may also name
the families that are found rather than given (``RowInterleave<T=..,k=..>``, ``Linear[...]``,
``pitch N``).
"""
from __future__ import annotations

import re

from .model import InputError

CHECKABLE = "none, Swizzle<B,M,S>, B,M,S, XorCols<B,M,a> or 'Swizzle<B,M,S> then Swizzle<B,M,S>'"

_SWIZZLE = re.compile(r"(?:swizzle\s*<\s*(-?\d+)\s*,\s*(-?\d+)\s*,\s*(-?\d+)\s*>|(-?\d+)\s*,\s*(-?\d+)\s*,\s*(-?\d+))",
                      re.IGNORECASE)
_XOR_COLS = re.compile(r"xorcols\s*<\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*>", re.IGNORECASE)
_THEN = re.compile(r"\s+then\s+", re.IGNORECASE)

# What an answer's name may look like, spaces removed (batch's `expect` is compared that way).
_PRINTED_SWIZZLE = r"Swizzle<(\d+),(\d+),(\d+)>"
_PRINTED = [rf"none|{_PRINTED_SWIZZLE}|XorCols<\d+,\d+,\d+>|RowInterleave<T=\d+,k=\d+>|Linear\[[^\]]*\]",
            rf"{_PRINTED_SWIZZLE}then{_PRINTED_SWIZZLE}",  # two-level
            r"pitch\d+(\+.+)?"]  # padding, possibly with a swizzle inside


def parse_layout(text: str, what: str = "--check"):
    """The layout named ``text``; InputError saying ``what`` was given (e.g. "--check") otherwise."""
    from .families.identity import Identity

    s = text.strip()
    if s.lower() == "none":
        return Identity()
    m = _XOR_COLS.fullmatch(s)
    if m:
        from .families.xor_cols import XorCols

        b, mm, a = (int(x) for x in m.groups())
        if b < 1:
            raise InputError(f"{what} {text!r}: XorCols needs B >= 1 (or give none)")
        return XorCols(b, mm, a)
    parts = _THEN.split(s)
    if len(parts) == 2:
        from .families.two_level import TwoLevel

        return TwoLevel(*(_swizzle(part, text, what) for part in parts))
    return _swizzle(s, text, what)


def _swizzle(s: str, text: str, what: str):
    """Swizzle<B,M,S> or B,M,S (``text``: the whole name, for the message)."""
    from .families.cute import Swizzle

    m = _SWIZZLE.fullmatch(s)
    if not m:
        raise InputError(f"{what} {text!r} is not a layout name: write {CHECKABLE}")
    b, mm, sh = (int(x) for x in (m.groups()[:3] if m[1] is not None else m.groups()[3:]))
    if b < 1 or mm < 0:
        raise InputError(f"{what} {text!r}: B must be >= 1 and M >= 0 (or give none)")
    if sh < b:
        raise InputError(f"{what} {text!r}: CuTe rejects |S| < B (and S <= 0 is not supported here): use S >= {b}")
    return Swizzle(b, mm, sh)


def expect_problem(expect: str) -> str | None:
    """Why ``expect`` can never equal an answer's name (a typo would fail every run), or None."""
    text = expect.replace(" ", "")
    if not any(re.fullmatch(pattern, text) for pattern in _PRINTED):
        return (f"expect {expect!r} is not a layout name: write it as the tool prints it, "
                f"e.g. none, Swizzle<B,M,S> or XorCols<B,M,a>")
    for b, _, s in re.findall(_PRINTED_SWIZZLE, text):
        if int(b) < 1 or int(s) < int(b):
            return f"expect {expect!r} is never an answer: CuTe needs B >= 1 and S >= B in Swizzle<B,M,S>"
    return None
