"""Layout names as the tool prints them (each family's ``name``), read back.

``parse_layout`` builds the layout a name denotes, for ``--check``, batch's ``check`` and the API's
``check``: every name an answer can have (none, ``Swizzle<B,M,S>`` or ``B,M,S``, ``XorCols<B,M,a>``,
a two-level ``Swizzle<..> then Swizzle<..>``, ``Linear[b0^=b5, ...]``, ``RowInterleave<T=..,k=..>``,
``pitch N`` or ``pitch N + <one of the first three>``), so any answer can be pinned in CI.
``expect_problem`` only validates a name, for batch's ``expect``.
"""
from __future__ import annotations

import re

from .model import InputError

CHECKABLE = ("none, Swizzle<B,M,S>, B,M,S, XorCols<B,M,a>, 'Swizzle<B,M,S> then Swizzle<B,M,S>', "
             "'Linear[b0^=b5^b6, b1^=b7]', 'RowInterleave<T=8,k=2>' or 'pitch 72 + <layout>'")

_TRIPLE = r"\s*(-?\d{1,18})\s*,\s*(-?\d{1,18})\s*,\s*(-?\d{1,18})\s*"
_SWIZZLE = re.compile(rf"(?:swizzle\s*<{_TRIPLE}>|{_TRIPLE})", re.IGNORECASE)
_XOR_COLS = re.compile(r"xorcols\s*<\s*(\d{1,18})\s*,\s*(\d{1,18})\s*,\s*(\d{1,18})\s*>", re.IGNORECASE)
_THEN = re.compile(r"\s+then\s+", re.IGNORECASE)
_ROW_INTERLEAVE = re.compile(r"rowinterleave\s*<\s*t\s*=\s*(\d{1,18})\s*,\s*k\s*=\s*(\d{1,18})\s*>", re.IGNORECASE)
_LINEAR = re.compile(r"linear\s*\[(.*)\]", re.IGNORECASE)
_LINEAR_TARGET = re.compile(r"b(\d{1,18})\s*\^=\s*(b\d{1,18}(?:\s*\^\s*b\d{1,18})*)")
_PITCH = re.compile(r"pitch\s+(\d{1,18})(?:\s*\+\s*(.+))?", re.IGNORECASE)

# Offsets are below 2^19 (model.MAX_STORAGE_BYTES): a bit position or shift above 31, or a pitch or
# band above 2^20, can only be a typo, and would overflow numpy's int64 arithmetic.
MAX_BIT = 31
MAX_ROWS = 1 << 20

# What an answer's name may look like, spaces removed (batch's `expect` is compared that way).
_PRINTED_SWIZZLE = r"Swizzle<(\d{1,18}),(\d{1,18}),(\d{1,18})>"
_PRINTED = [rf"none|{_PRINTED_SWIZZLE}|XorCols<\d+,\d+,\d+>|RowInterleave<T=\d+,k=\d+>|Linear\[[^\]]*\]",
            rf"{_PRINTED_SWIZZLE}then{_PRINTED_SWIZZLE}",  # two-level
            r"pitch\d+(\+.+)?"]  # padding, possibly with a swizzle inside


def _in_range(text: str, what: str, limit: int, **values: int) -> None:
    for name, value in values.items():
        if value > limit:
            raise InputError(f"{what} {text!r}: {name} = {value} is out of range (at most {limit}; offsets are "
                             f"below 2^19)")


def parse_layout(text: str, what: str = "--check"):
    """The layout named ``text``; InputError saying ``what`` was given (e.g. "--check") otherwise."""
    from .families.identity import Identity

    s = text.strip()
    if s.lower() == "none":
        return Identity()
    m = _PITCH.fullmatch(s)
    if m:
        from .families.padding import Padded

        _in_range(text, what, MAX_ROWS, pitch=int(m[1]))
        if m[2] is not None and _PITCH.fullmatch(m[2].strip()):  # refused below anyway: never recurse on it
            raise InputError(f"{what} {text!r}: a padded pitch takes none, a Swizzle or an XorCols inside")
        inner = Identity() if m[2] is None else parse_layout(m[2], what)
        if inner.family not in ("none", "cute", "xor-cols"):
            raise InputError(f"{what} {text!r}: a padded pitch takes none, a Swizzle or an XorCols inside")
        return Padded(int(m[1]), inner)
    m = _ROW_INTERLEAVE.fullmatch(s)
    if m:
        from .families.row_interleave import RowInterleave

        t, k = int(m[1]), int(m[2])
        _in_range(text, what, MAX_ROWS, T=t)
        if not 2 <= k < t:
            raise InputError(f"{what} {text!r}: RowInterleave needs 2 <= k < T")
        return RowInterleave(t, k)
    m = _LINEAR.fullmatch(s)
    if m:
        return _linear(m[1], text, what)
    m = _XOR_COLS.fullmatch(s)
    if m:
        from .families.xor_cols import XorCols

        b, mm, a = (int(x) for x in m.groups())
        _in_range(text, what, MAX_BIT, B=b, M=mm, a=a)
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
    _in_range(text, what, MAX_BIT, B=b, M=mm, S=sh)
    if b < 1 or mm < 0:
        raise InputError(f"{what} {text!r}: B must be >= 1 and M >= 0 (or give none)")
    if sh < b:
        raise InputError(f"{what} {text!r}: CuTe rejects |S| < B (and S <= 0 is not supported here): use S >= {b}")
    return Swizzle(b, mm, sh)


def _linear(body: str, text: str, what: str):
    """Linear[b0^=b1^b6, b1^=b7]: bit t of the offset XORed with bits s > t."""
    from .families.linear import XorLinear

    terms = set()
    for part in filter(None, (x.strip() for x in body.split(","))):
        m = _LINEAR_TARGET.fullmatch(part)
        if not m:
            raise InputError(f"{what} {text!r}: {part!r} is not a term: write b<target>^=b<source>^b<source>...")
        target = int(m[1])
        for source in (int(b.strip()[1:]) for b in m[2].split("^")):
            _in_range(text, what, MAX_BIT, bit=source)
            if source <= target:
                raise InputError(f"{what} {text!r}: b{target}^=b{source}: a source bit must be above its target")
            terms.add((target, source))
    if not terms:
        raise InputError(f"{what} {text!r}: no XOR terms (check 'none' for the identity)")
    return XorLinear(tuple(sorted(terms)))


def compared(name: str) -> str:
    """A name as batch compares it with an answer's: spaces do not count."""
    return name.replace(" ", "")


def expect_problem(expect: str) -> str | None:
    """Why ``expect`` can never equal an answer's name (a typo would fail every run), or None."""
    text = compared(expect)
    if not any(re.fullmatch(pattern, text) for pattern in _PRINTED):
        return (f"expect {expect!r} is not a layout name: write it as the tool prints it, "
                f"e.g. none, Swizzle<B,M,S> or XorCols<B,M,a>")
    for b, _, s in re.findall(_PRINTED_SWIZZLE, text):
        if int(b) < 1 or int(s) < int(b):
            return f"expect {expect!r} is never an answer: CuTe needs B >= 1 and S >= B in Swizzle<B,M,S>"
    return None
