"""Template constants as a compiler takes them (``-D kSwizzle=3``, ``define = {kSwizzle = 3}`` in a
batch case; ``define=`` in the API): each NAME, a whole word of a layout's text (or of an ``index:``/``offset:`` access), is its integer VALUE before the text is read,
as the preprocessor (or a template's instantiation) would make it. ``cute:`` reads
``Swizzle<kSwizzle, 3, 3>{}`` and ``expr:`` reads ``r * kBlockKSmem + c`` with them."""
from __future__ import annotations

import re

from ..model import InputError

_NAME = r"(?a)[A-Za-z_]\w*"
_VALUE = r"(?a)-?(?:0[xX][0-9a-fA-F]+|\d+)"
RESERVED = {"r", "c"}  # expr:'s row and column
ACCESS_FORM = r"(?i)\s*(?:(?:store|load)\s*:\s*)?(?:index|offset)\s*:"  # the accesses with names (indexed.py)
THREAD = ("tid", "lane", "warp", "threadIdx", "blockDim")  # index:'s names of the thread (indexed.py's _THREAD)


def parse(items: list[str], where: str = "-D") -> dict[str, int]:
    """``NAME=VALUE`` (or ``NAME``: 1, as cc -D) of each item; InputError on anything else."""
    out: dict[str, int] = {}
    for item in items:
        name, _, value = item.strip().partition("=")
        name, value = name.strip(), value.strip() or "1"
        if not re.fullmatch(_NAME, name) or name in RESERVED:
            raise InputError(f"{where} {item!r}: write NAME=VALUE with NAME a C identifier other than r and c "
                             f"(e.g. -D kSwizzle=3)")
        if not re.fullmatch(_VALUE, value) or len(value) > 12:
            raise InputError(f"{where} {item!r}: the value is an integer (decimal or 0x hex), e.g. -D {name}=3")
        out[name] = int(value, 0) if not re.fullmatch(r"-?0\d+", value) else int(value)
    return out


def substitute(text: str, defines: dict[str, int]) -> str:
    """``text`` with each whole word that ``defines`` names replaced by its value (a word after ``.``
    or ``::`` is a member, not a constant, and stays)."""
    if not defines:
        return text

    def value(m: re.Match) -> str:
        member = m[1] is not None  # (obj.name, ns::name)
        return m[0] if member or m[2] not in defines else m[0][:m.start(2) - m.start()] + str(defines[m[2]])

    # (a range's ``0..N`` is no member access: a dot after a dot is not one)
    return re.sub(r"(?a)((?<!\.)\.\s*|::\s*)?\b([A-Za-z_]\w*)\b", value, text)


def check_thread_names(text: str, defines: dict[str, int], where: str = "-D") -> None:
    """A constant named as index:'s thread (``-D tid=3``) would make every lane one thread in the
    access ``text`` (``-D threadIdx=3``: ``3.x``): bad input, not a silent change of the access."""
    for name in THREAD:
        if name in defines and re.search(rf"(?a)(?<![\w.]){name}\b", text):
            raise InputError(f"{where} '{name}={defines[name]}': {name} is the thread in an index:/offset: access "
                             f"(tid, lane, warp, threadIdx, blockDim), not a constant: rename the constant")
