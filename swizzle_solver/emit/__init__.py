"""Code to paste: one module per target (cute, cute_dsl, cuda, triton, mojo, tma), each with its
TARGET name, TITLE, ORDER in the --emit list, optional ALIASES (other names --emit accepts for it)
and a pure ``emit(problem, layout) -> Snippet``. The modules are found here (pkgutil), so adding a
target is adding its module; what the targets share is in common.py (the Snippet, headers) and
recognise.py (a layout's recognisable forms). The problem's hardware (``problem.bank_model``) says
the arch: on an AMD ``--arch``, ``cuda`` is the HIP function, ``triton`` the AMD backend's
encodings (no NVMMA), and ``tma`` says that AMD GPUs have none.

Every emitter works for any layout through the family interface (``phys``, ``bases``,
``expression``, ``name``): a target's own form (a CuTe Swizzle, a Triton encoding, a TMA mode) is
*recognised* from the layout's GF(2) bases or its table and then checked element by element
against the layout's table before it is printed; what a target cannot express gets a snippet
that says so and why, plus the portable function where one helps. The families ``none``,
``cute`` and ``xor-cols`` get their best forms this way (an ``xor-cols`` answer on a power-of-two
pitch *is* a CuTe swizzle and is printed as one).

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
import pkgutil
from types import ModuleType

from ..layout import Layout
from ..model import InputError, Problem
from .common import Snippet

_SHARED = {"common", "recognise"}  # the modules of this package that are not targets


def _targets() -> list[ModuleType]:
    """Every target module of this package (one with TARGET, TITLE, ORDER and emit), in ORDER:
    adding a target is adding its module."""
    found = [importlib.import_module(f"{__name__}.{m.name}") for m in pkgutil.iter_modules(__path__)
             if m.name not in _SHARED and not m.name.startswith("_")]
    return sorted(found, key=lambda module: module.ORDER)


_MODULES = _targets()
TARGETS = tuple(module.TARGET for module in _MODULES)
ALIASES = {alias: module.TARGET for module in _MODULES for alias in getattr(module, "ALIASES", ())}
TITLES = {module.TARGET: module.TITLE for module in _MODULES}
EMITTERS = {module.TARGET: module.emit for module in _MODULES}


def parse_targets(values, option: str = "--emit") -> list[str]:
    """`--emit` (or `--for`) values (repeatable, comma lists, `all`) -> targets in TARGETS order, no
    repeats."""
    wanted: set[str] = set()
    for value in values:
        for name in str(value).split(","):
            name = name.strip().lower()
            if name == "all":
                wanted.update(TARGETS)
            elif name in TARGETS or name in ALIASES:
                wanted.add(ALIASES.get(name, name))
            else:
                raise InputError(f"{option} {name!r} is not a target: use one of {', '.join(TARGETS)} or all")
    return [t for t in TARGETS if t in wanted]


def emit(target: str, problem: Problem, layout: Layout) -> Snippet:
    if target not in EMITTERS:
        raise InputError(f"{target!r} is not an emit target: use one of {', '.join(TARGETS)}")
    return EMITTERS[target](problem, layout)


def emit_all(targets, problem: Problem, layout: Layout) -> dict[str, Snippet]:
    return {t: emit(t, problem, layout) for t in targets}


def expressible_in(problem: Problem, layout: Layout, targets=TARGETS) -> list[str]:
    """The targets (of ``targets``, in TARGETS order) whose snippet expresses the layout exactly:
    what the JSON's ``expressible_in`` says and ``--for`` admits, read from the emitters themselves."""
    return [t for t in TARGETS if t in targets and emit(t, problem, layout).expressible]


def tma_mode(problem: Problem, layout: Layout) -> str | None:
    """The TMA swizzle mode ``--emit tma`` uses for the layout ("32B", "64B", "128B"), or None."""
    return emit("tma", problem, layout).mode


__all__ = ["ALIASES", "EMITTERS", "TARGETS", "TITLES", "Snippet", "emit", "emit_all", "expressible_in", "parse_targets",
           "tma_mode"]
