"""Code to paste: one module per target (cute, cute_dsl, cuda, triton, mojo, tma), each with its
TARGET name, TITLE, ORDER in the --emit list, optional ALIASES (other names --emit accepts for it),
a pure ``emit(problem, layout) -> Snippet`` and optionally ``unavailable(hardware)``: why ``--for``
that target is refused on a target that cannot have its layouts at all (None: it can). The modules are found here (pkgutil), so adding a
target is adding its module; what the targets share is in common.py (the Snippet, headers) and
recognise.py (a layout's recognisable forms). The problem's hardware (``problem.hardware``) says
what the target has (hardware.Hardware's capabilities), and the emitters read only that: ``cuda``
writes the function in the target's ``language`` (the HIP function on AMD targets), ``triton``
picks Triton's backend by that language (the AMD backend's encodings for HIP) and offers NVMMA
only for the target's ``tma_modes``, as ``cute`` (make_tma_copy, the GMMA atom) and ``mojo``
(TensorMapSwizzle) do, and ``tma`` says so where the target has no TMA (``copy_engines``).

Each target is the writer's half of a language's record (forms/language.py's ``Language``, made
from its module's names by ``writer_of``, or a whole record given to ``forms.language.register``):
``writers()`` is the registry, and TARGETS, ALIASES, TITLES and EMITTERS are read from it. The
target modules are found and imported when the registry is first read, not with this package: the rich report of a plain solve prints only the answer's
TMA mode (``tma_mode``, which imports the tma module alone), so it does not import the other
targets (start-up). A JSON document's ``expressible_in`` and ``tma_mode`` are each target's
verdict on its own snippet (``verdict``, ``verdicts``), remembered by (tile, hardware, layout) for
the package's targets: the same layouts come back in one process (each document that lists them,
--for's test of a candidate and then its report), and only the two verdicts are kept, not the code.

Every emitter works for any layout through the family interface (``phys``, ``bases``,
``expression``, ``name``): a target's own form (a CuTe Swizzle, a Triton encoding, a TMA mode) is
*recognised* from the layout's GF(2) bases or its table and then checked element by element
against the layout's table before it is printed; what a target cannot express gets a snippet
that says so and why, plus the portable function where one helps. The families ``none``,
``cute`` and ``xor-cols`` get their best forms this way (an ``xor-cols`` answer on a power-of-two
pitch *is* a CuTe swizzle and is printed as one; on another pitch, C++ CuTe composes a swizzle of
rows laid a power of two apart with a layout back to the pitch: recognise.swizzled_columns).

Published formulas the mappings follow (checked in tests/test_emit.py):

- CuTe: ``Swizzle<B,M,S>(p) = p ^ ((p & (((1<<B)-1) << (M+S))) >> S)`` (cute/swizzle.hpp; pycute).
- Triton swizzled shared encoding, offset bases (lib/Dialect/TritonGPU/IR/LinearLayoutConversions.cpp,
  ``swizzledSharedToLinearLayout``): column bit j -> (0, 2^j); row bit k ->
  (2^k, (vec * ((2^k / perPhase) % maxPhase)) % numCols).
- Triton NVMMA shared encoding (lib/Dialect/TritonGPU/IR/Dialect.cpp, ``NVMMASharedEncodingAttr::
  getVec/getPerPhase/getMaxPhase/getAlignment``): vec = 128 / elementBitWidth, perPhase =
  128 / swizzlingByteWidth, maxPhase = swizzlingByteWidth / 16, alignment = 128 * maxPhase; its core
  matrix (``getCoreMatrixLinearLayout``) is 8 rows x swizzlingByteWidth bytes with the bases above.
- Mojo (max/kernels/src/layout/swizzle.mojo): ``Swizzle(bits, base, shift)`` is CuTe's formula;
  ``make_swizzle[num_rows, row_size, access_size]()`` = ``Swizzle(log2(num_rows), log2(access_size),
  log2(row_size) - log2(access_size))``.
- TMA (CUDA driver API ``CUtensorMapSwizzle``): 32B / 64B / 128B = byte-level ``Swizzle<1|2|3,4,3>``
  (DESIGN.md section 7); the box's inner extent in bytes must not exceed the swizzle width.
"""
from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import cache
from typing import Any

from ..forms.language import Language, registered, version, writer_of
from ..hardware import Hardware
from ..layout import Layout
from ..lru import LRU
from ..model import InputError, Problem
from .common import Snippet

_SHARED = {"common", "recognise", "views"}  # the modules of this package that are not targets

Emitter = Callable[[Problem, Layout], Snippet]

# The registry, made on first read (module __getattr__ below), again after a language is registered:
TARGETS: tuple[str, ...]  # every target's name, in ORDER
ALIASES: dict[str, str]  # other names --emit accepts -> the target
TITLES: dict[str, str]
EMITTERS: dict[str, Emitter]


@cache
def _modules() -> tuple[Language, ...]:
    """The writer's half of the language of every target module of this package (one with TARGET,
    TITLE, ORDER and emit; forms/language.py's ``writer_of``): adding a target is adding its module."""
    import pkgutil

    return tuple(writer_of(importlib.import_module(f"{__name__}.{m.name}")) for m in pkgutil.iter_modules(__path__)
                 if m.name not in _SHARED and not m.name.startswith("_"))


@cache
def _writers(registrations: int) -> dict[str, Language]:
    """Every writer (the modules', then the registered languages that write), by name in ORDER."""
    found = {w.name: w for w in _modules()}
    found.update((lang.name, lang) for lang in registered() if lang.emit is not None)
    return {w.name: w for w in sorted(found.values(), key=lambda w: (w.order, w.name))}


def writers() -> dict[str, Language]:
    """The --emit targets' languages (forms.language.Language), by name, in --emit order."""
    return _writers(version())


def _registry() -> tuple[tuple[str, ...], dict[str, str], dict[str, str], dict[str, Emitter]]:
    """(TARGETS, ALIASES, TITLES, EMITTERS), read from the writers' records."""
    return _lists(version())


@cache
def _lists(registrations: int) -> tuple[tuple[str, ...], dict[str, str], dict[str, str], dict[str, Emitter]]:
    made = _writers(registrations)
    return (tuple(made), {alias: w.name for w in made.values() for alias in w.aliases},
            {w.name: w.title for w in made.values()}, {w.name: w.emit for w in made.values() if w.emit is not None})


def __getattr__(name: str) -> Any:  # PEP 562: the registry's lists, read from the records each time
    names = ("TARGETS", "ALIASES", "TITLES", "EMITTERS")
    if name in names:
        return _registry()[names.index(name)]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def parse_targets(values, option: str = "--emit") -> list[str]:
    """`--emit` (or `--for`) values (repeatable, comma lists, `all`) -> targets in TARGETS order, no
    repeats."""
    targets, aliases, _, _ = _registry()
    wanted: set[str] = set()
    for value in values:
        for name in str(value).split(","):
            name = name.strip().lower()
            if name == "all":
                wanted.update(targets)
            elif name in targets or name in aliases:
                wanted.add(aliases.get(name, name))
            else:
                raise InputError(f"{option} {name!r} is not a target: use one of {', '.join(targets)} or all")
    return [t for t in targets if t in wanted]


def refuse_unavailable(targets, hardware: Hardware, option: str = "--for") -> None:
    """Bad input when a target ``--for`` asks for cannot store a layout on ``hardware`` at all (its
    module's ``unavailable(hardware)``: ``tma`` on a target without a TMA, ``umma`` without tcgen05):
    one line naming the targets that can. A target without that function is available everywhere."""
    known = writers()
    for target in targets:
        unavailable = known[target].unavailable
        why = unavailable(hardware) if unavailable is not None else None
        if why is not None:
            raise InputError(f"{option} {target}: {why}")


def emit(target: str, problem: Problem, layout: Layout) -> Snippet:
    return _made(_writer(target), problem, layout)


def _writer(target: str) -> Language:
    known = writers()
    language = known.get(target)
    if language is None or language.emit is None:
        raise InputError(f"{target!r} is not an emit target: use one of {', '.join(known)}")
    return language


def _made(language: Language, problem: Problem, layout: Layout) -> Snippet:
    """The language's snippet: its emitter's code of the stored tile, in the user's order and elements."""
    assert language.emit is not None
    snippet = language.emit(problem, layout)
    if problem.tile.col_major:  # --order col: the stored tile's code, in the user's (r, c)
        from .views import for_col

        snippet = for_col(language.in_user_order, problem, snippet)
    if problem.tile.elem_bits:  # sub-byte elements: the code of the packed bytes (user's (r, c)), then in the elements
        from .views import for_packed

        snippet = for_packed(language.in_elements, language.comment, problem, layout, snippet)
    return snippet


# Every target's (expressible, mode) on the last ~500 layouts (a few hundred KB), by (registrations,
# target, tile, hardware, layout): a JSON document asks every target of each layout it lists, and
# the same layouts come back (each document that shows the answer, --for's test of a candidate then
# its report, a library caller's repeated tile). The package's emitters are pure functions of the
# tile, the hardware and the layout (a value, hashed by its fields), so an equal key is the same
# verdict. Only the two verdicts are kept, never the code (a table snippet can be 400 KB).
_VERDICTS = LRU(4096)


def verdict(target: str, problem: Problem, layout: Layout) -> tuple[bool, str | None]:
    """(``expressible``, ``mode``) of the target's snippet of the layout, remembered for a target of
    this package (its emitter reads only the tile and the hardware). A registered language's emitter
    may read more of the problem, and a layout compared by identity (a table read from a file) or
    that cannot be hashed would hold its table for nothing: made every time."""
    language = _writer(target)
    remember = language in _modules() and type(layout).__hash__ not in (None, object.__hash__)
    key = (version(), target, problem.tile, problem.hardware, layout) if remember else None
    try:
        found = _VERDICTS.get(key) if key is not None else None
    except TypeError:  # a field that cannot be hashed
        key, found = None, None
    if found is None:
        snippet = _made(language, problem, layout)
        found = (snippet.expressible, snippet.mode)
        if key is not None:
            _VERDICTS.put(key, found)
    return found


def emit_all(targets, problem: Problem, layout: Layout) -> dict[str, Snippet]:
    return {t: emit(t, problem, layout) for t in targets}


def expressible_in(problem: Problem, layout: Layout, targets=None) -> list[str]:
    """The targets (of ``targets``, default all, in TARGETS order) whose snippet expresses the layout
    exactly: what the JSON's ``expressible_in`` says and ``--for`` admits, read from the emitters
    (``verdict``: remembered)."""
    return [t for t in writers() if (targets is None or t in targets) and verdict(t, problem, layout)[0]]


def verdicts(problem: Problem, layout: Layout) -> tuple[str | None, list[str]]:
    """(``tma_mode``, ``expressible_in``) of the layout, as a JSON document says them: the tma
    target's mode and every target whose snippet expresses the layout (``verdict``: remembered)."""
    found = {t: verdict(t, problem, layout) for t in writers()}
    return found["tma"][1], [t for t, (expressible, _) in found.items() if expressible]


def tma_mode(problem: Problem, layout: Layout) -> str | None:
    """The TMA swizzle mode ``--emit tma`` uses for the layout ("32B", "64B", "128B"), or None: from
    the tma target's own snippet (its module alone is imported: the rich report's answer)."""
    from . import tma

    return tma.emit(problem, layout).mode  # (the mode of the stored tile: the same under --order col)


__all__ = ["ALIASES", "EMITTERS", "TARGETS", "TITLES", "Snippet", "emit", "emit_all", "expressible_in", "parse_targets",
           "refuse_unavailable", "tma_mode", "verdict", "verdicts", "writers"]
