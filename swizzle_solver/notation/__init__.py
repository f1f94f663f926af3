"""Layouts in the kernel's own notation (DESIGN.md section 10), for ``--check``, the API's
``check`` and batch's ``check =``: each prefix is one small parser that reads the text into a
``families.given.Source`` (the layout's table over a tile, and its expression tree where it has
one); the layout is a ``families.given.Given``, checked as written.

==================  ============================================================================
``expr: E``         element offset of element (r, c), C syntax (notation/expr.py)
``bytes: E``        byte offset of element (r, c), same grammar; ``bytes:Swizzle<B,M,S>`` is a
                    CuTe swizzle of byte offsets (the TMA / GMMA form)
``cute: L``         a CuTe C++ layout of (row, col) (notation/cute.py)
``triton: A``       a Triton shared encoding, MLIR attribute or Gluon constructor (notation/triton.py)
``table:FILE``      element offsets, one per (r, c): .npy, .csv or a JSON list of rows (notation/table.py)
``tilelang: F(B)``  TileLang's make_{full,half,quarter}_bank_swizzled_layout(B) (notation/tilelang.py)
``tk: T``           a ThunderKittens shared tile type, st_bf<64, 64> (notation/tk.py)
==================  ============================================================================

Also recipes under the words users type: ``128B``, ``64B``, ``32B`` and Blackwell's
``128B_ATOM_32B``, ``128B_ATOM_32B_FLIP_8B``, ``128B_ATOM_64B`` (with or without cuda.h's
``CU_TENSOR_MAP_SWIZZLE_`` prefix) are the TMA swizzle mode's layout for the tile (tma_modes.py;
families/panels.py: the mode's atom, or column panels of it when rows are wider than the mode's
span), named as the tool names that layout.

Each notation is the reader's half of a language's record (forms/language.py's ``Language``: made
from its module here by ``reader_of``, or a whole record given to ``forms.language.register``):
``reader(prefix)`` is that record, and ``prefixes()``, ``what`` and ``read`` ask it.

Nothing here calls Python's ``eval``; every parser is linear in its input and bounded in depth.
"""
from __future__ import annotations

import importlib
import re
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from ..forms.language import Language, reader_of, registered, version
from ..layout import Layout
from ..model import InputError, Tile
from ..tma_modes import NAME_PATTERN
from .expr import NotationError

_RECIPE = r"(?i)\s*(32|64|128)\s*b\s*"
_MODE = NAME_PATTERN  # a TMA mode by its cuda.h name: 128B_ATOM_32B, CU_TENSOR_MAP_SWIZZLE_64B, ...
_PREFIX = r"(?s)\s*([A-Za-z_][A-Za-z0-9_]*)\s*:(.*)"  # a word and a colon: the notation is the module of that name

PREFIXES: tuple[str, ...]  # every notation's prefix, in the modules' ORDER (module __getattr__ below)


@cache
def _modules() -> frozenset[str]:
    """The notations of this package: every module here is the notation of its name (``cute.py``
    reads ``cute:``), with ``read(body, base, allow_outside)``, ``WHAT`` (what the text gives, in the
    report's words) and ``ORDER``; a new notation is a new module. Listed without importing them
    (pkgutil reads the folder), so that telling a notation from a family's name costs no import."""
    import pkgutil

    return frozenset(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))


def _registered() -> dict[str, Language]:
    """The registered languages that read (forms/language.py's ``register``), by prefix."""
    return {lang.prefix: lang for lang in registered() if lang.prefix is not None}


def _names() -> frozenset[str]:
    """Every notation's prefix: the modules' and the registered languages'."""
    return _modules() | frozenset(_registered())


def module(prefix: str) -> ModuleType:
    """The module of the notation ``prefix`` (imported on first use)."""
    return importlib.import_module(f"{__name__}.{prefix}")


def reader(prefix: str) -> Language:
    """The reader's half of the language of ``prefix`` (forms.language.Language): a registered
    language's record, or the one its module's names make."""
    return _registered().get(prefix) or reader_of(prefix, module(prefix))


@cache
def _prefixes(registrations: int) -> tuple[str, ...]:
    return tuple(sorted(_names(), key=lambda name: (reader(name).check_order, name)))


def prefixes() -> tuple[str, ...]:
    """Every notation's prefix in ORDER (imports them all: the schema, messages)."""
    return _prefixes(version())


def what(prefix: str) -> str:
    """What a notation's text gives, in the report's words ("element offsets", "a CuTe layout")."""
    return reader(prefix).what


def __getattr__(name: str) -> Any:  # PEP 562: PREFIXES, made on first read
    if name == "PREFIXES":
        return prefixes()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _prefixed(text: str) -> re.Match | None:
    """``prefix: body`` for a notation's prefix (any case), else None."""
    m = re.match(_PREFIX, text)
    return m if m is not None and m[1].lower() in _names() else None


def is_notation(text: str) -> bool:
    """Text that names a layout in a notation or a recipe (not a family's name)."""
    return bool(_prefixed(text) or re.fullmatch(_RECIPE, text) or re.fullmatch(_MODE, text))


def recipe(text: str, tile: Tile | None = None) -> Layout | None:
    """The TMA mode's layout a recipe names (``128B``, ``128B_ATOM_32B``, ...) for the tile, or None
    when ``text`` is no recipe."""
    found = re.fullmatch(_RECIPE, text)
    if found:
        return tma_recipe(f"{found[1]}B", tile)
    mode = re.fullmatch(_MODE, text)
    return tma_recipe(mode[1].upper(), tile) if mode else None


def read(text: str, base: Path | None = None, allow_outside: bool = True) -> Any:
    """What ``prefix: body`` reads (``is_notation``, no recipe): the notation module's source (a
    ``families.given.Source``; names.py makes it the ``Given`` layout). ``base``: the folder
    ``table:`` paths are read from (default the working directory), and without ``allow_outside``
    nothing outside it. NotationError (syntax, with its column, counted in the whole text) or
    InputError."""
    m = _prefixed(text)
    assert m, text
    try:
        read_body = reader(m[1].lower()).read
        assert read_body is not None  # (a reader's record has its read)
        return read_body(m[2], base, allow_outside)
    except NotationError as err:  # columns count in the whole text given, its prefix included
        raise err.shifted(m.start(2)) from None


def tma_recipe(name: str, tile: Tile | None) -> Layout:
    """``128B`` (``64B``, ``32B``, ``128B_ATOM_32B``, ...): the layout TMA's swizzle mode of that name
    gives the tile (tma_modes.py). Rows of at most the mode's span: its byte map in element form
    (TMA writes the box densely and swizzles its byte addresses): one CuTe swizzle, or two in turn
    for 128B_ATOM_32B_FLIP_8B; wider rows: column panels of the span (Panels<128B>), one box per
    panel; padded rows: Panels too, which says that TMA stores the dense tile."""
    if tile is None:
        raise InputError(f"{name} names the {name} TMA swizzle mode's layout of a tile: give the tile's "
                         f"--rows, --cols and --dtype")
    from ..families.panels import ColumnPanels
    from ..tma_modes import MODES

    mode, e = MODES[name], tile.elem_bytes
    steps = mode.element_swizzles(e)
    if steps is None:
        piece = 1 << min(m for _, m, _ in mode.swizzles)
        raise InputError(f"{name} moves {piece}-byte pieces of a row, smaller than the tile's {e}-byte elements: "
                         f"it swizzles elements of at most {piece} bytes")
    if tile.row_length != tile.cols or tile.cols * e > mode.span:
        return ColumnPanels(mode.span, "" if mode.classic else name)
    from ..families.cute import Swizzle

    if len(steps) == 1:
        return Swizzle(*steps[0])  # (elements are 1 to 16 bytes, powers of two)
    from ..families.two_level import TwoLevel

    return TwoLevel(Swizzle(*steps[0]), Swizzle(*steps[1]))


def defined(text: str | None, items: list[str] | dict, where: str = "-D") -> str | None:
    """A layout's text with the template constants ``-D NAME=VALUE`` (``items``; a batch case's
    ``define`` table) substituted (notation/_defines.py); None stays None."""
    if text is None or not items:
        return text
    from ._defines import parse, substitute

    pairs = [f"{k}={v}" for k, v in items.items()] if isinstance(items, dict) else items
    return substitute(text, parse(pairs, where))


def defined_accesses(specs: list[str], items: list[str] | dict, where: str = "-D") -> list[str]:
    """The accesses with the template constants substituted in those stated as the kernel computes
    them (``index:``, ``offset:``, also after ``store:``/``load:``; indexed.py), as ``defined`` does
    for a layout; every other access has no names and stays."""
    if not items:
        return list(specs)
    from ._defines import ACCESS_FORM, check_thread_names, parse

    values = parse([f"{k}={v}" for k, v in items.items()] if isinstance(items, dict) else items, where)
    for s in specs:
        if re.match(ACCESS_FORM, s):
            check_thread_names(s, values, where)
    return [str(defined(s, items, where)) if re.match(ACCESS_FORM, s) else s for s in specs]


def shown(text: str, limit: int = 80) -> str:
    """A layout's text in a message: the start of a long one."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


__all__ = ["PREFIXES", "NotationError", "defined", "defined_accesses", "is_notation", "module", "prefixes", "read", "reader",
           "recipe", "shown", "what"]
