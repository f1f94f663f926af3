"""The input side: from what a user writes to a Problem (model.py's types).

    tile.py           --rows/--cols/--dtype/--banks: the tile and the hardware, validated in CLI words
    grammar.py        --access MxN[:s][vB], row, col: blocks and their placements
    warp.py           --access warp:RxC:MxN, ldmatrix, stmatrix, mma-c: warp requests split into phases
    matrix_b8.py      --access ldmatrix.m16n16..., stmatrix.m16n8...: Blackwell's byte forms (sm_100a/sm_120a)
    fragments.py      --access mma-a:m16n8k8, mma-b:...: mma.sync operand fragments read by ld.shared
    recipes.py        --access cp.async (a warp form); tma, wgmma: bad input pointing to --for tma
    cute_atoms.py     --access SM75_U32x4_LDSM_N, UniversalCopy<uint128_t>, ...: CuTe copy atoms as their forms
    mma_atoms.py      --access SM80_16x8x16_F32F16F16F32_TN:a (:b, :c): one operand of a CuTe MMA atom
    direction.py      store: / load: before an access or a --linear-layout file
    subbyte.py        --dtype fp4, i4, u4: each access as the same access of the packed bytes
    phases_file.py    --phases FILE: explicit phases
    triton_layout.py  --linear-layout FILE: a Triton LinearLayout as an access
    inputfile.py      reading any input file safely (regular files, size, encoding, depth)
    limits.py         caps on the problem's size (--max-patterns, --max-placements, --max-lanes)

index: and offset: (swizzle_solver/indexed.py) and make_tiled_copy(...) (swizzle_solver/tiled.py),
which build on notation/, are read above this package and registered in FORMS_ABOVE when their
module is imported.

Layering: this package builds on model.py and hardware.py and nothing above them. The warp forms
and the two file readers are imported only when a spec or file needs them (start-up time).
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from ..hardware import Hardware
from ..model import InputError, Pattern, Problem, Tile
from .grammar import is_block_spec, malformed, parse_block
from .limits import check_count, check_patterns
from .tile import (
    DEFAULT_ELEM_BYTES,
    dtype_bytes,
    elem_bits_of,
    elem_bytes_of,
    find_target,
    make_hardware,
    make_tile,
    scalar_bytes_of,
)

# the forms whose element type is the instruction's (an MMA/MFMA operand or accumulator): on a tile of a
# vector type (--dtype half2) they read the vector's scalar (access/vector_dtype.py)
SCALAR_FORMS = ("mma-a", "mma-b", "mma-c", "mfma-a", "mfma-b")

__all__ = ["FORMS_ABOVE", "scalar_bytes_of", "defaulted_elem_warning", "needs_forms_above", "dtype_bytes", "elem_bits_of", "elem_bytes_of", "find_target", "make_hardware",
           "make_problem",
           "make_tile", "parse_access"]

# the words of access/recipes.py (kept here so that a plain solve imports nothing more)
_RECIPES = frozenset({"cp.async", "cp.async.cg", "cp.async.ca", "tma", "cp.async.bulk", "cp.async.bulk.tensor", "wgmma",
                      "tcgen05", "umma"})
_ATOM_PREFIXES = ("sm75_", "sm90_u", "sm80_cp_async", "universalcopy", "cute::", "copy_atom")  # access/cute_atoms.py
_MMA_ATOM_PREFIXES = ("sm75_", "sm80_", "sm89_", "mma_atom", "cute::",  # access/mma_atoms.py (SM75_ is shared)
                      "sm90_", "sm100_", "sm120_")  # (refused there in words: GMMA/UMMA read by descriptor)
_WARP_PREFIXES = ("warp:", "ldmatrix", "stmatrix", "mma", "mfma", "ds_", "lds", "sts")


def _byte_form(text: str) -> bool:
    """ldmatrix/stmatrix of a shape or type of Blackwell's byte forms (access/matrix_b8.py)."""
    name = text.partition(":")[0].split(".")
    return name[0] in ("ldmatrix", "stmatrix") and any(
        t in ("m16n16", "m8n16", "m16n8", "b8", "b8x16", "b6x16_p32", "b4x16_p64") for t in name[1:])


# Forms whose readers live above this package (they build on notation/: indexed.py's index: and
# offset:), registered by their module when it is imported (swizzle_solver.indexed.register); a
# caller that reads user text imports it when a spec starts with one of these (needs_forms_above).
FORMS_ABOVE: dict[str, Callable[[str, Tile, Hardware], Pattern]] = {}
ABOVE_PREFIXES = ("index:", "offset:", "make_tiled_copy", "cute::make_tiled_copy", "make_tiled_mma",
                  "cute::make_tiled_mma")  # indexed.py, tiled.py


def needs_forms_above(specs: Sequence[str]) -> bool:
    """Whether a spec may be a form read above this package (after a store:/load: prefix or an
    --arch selector: any spec naming one; importing the reader when not needed is harmless)."""
    return any(prefix in s.lower() for s in specs for prefix in ABOVE_PREFIXES)


def parse_access(spec: str, tile: Tile, hardware: Hardware) -> Pattern:
    """Compile one `--access` spec into its placements (DESIGN.md sections 1 and 7)."""
    _ascii_digits(spec)
    text = spec.strip().lower()
    if text.startswith(("store:", "load:")):  # a direction named before the form (access/direction.py)
        return _directed(spec, tile, hardware, parse_access)
    if text.startswith(ABOVE_PREFIXES):
        return _above(spec, text)(spec, tile, hardware)
    if tile.scalar_bytes and text.startswith(SCALAR_FORMS):  # a vector type read by its scalar's instruction
        from .vector_dtype import parse as parse_scalar

        return parse_scalar(spec, tile, hardware, parse_access)
    if tile.elem_bits:  # sub-byte elements: the same access of the packed bytes
        from .subbyte import parse as parse_packed

        return parse_packed(spec, tile, hardware, parse_access)
    if is_block_spec(text):
        return parse_block(spec, tile, hardware)
    if text.startswith(_ATOM_PREFIXES + _MMA_ATOM_PREFIXES):
        return _cute_atom(spec, text, tile, hardware)
    if text.startswith(("ldmatrix.", "stmatrix.")) and _byte_form(text):
        from .matrix_b8 import parse  # Blackwell's .m16n16 / .m8n16 / .m16n8 byte forms

        return parse(spec, tile, hardware)
    if text in _RECIPES:
        from .recipes import parse as parse_recipe  # cp.async; tma, wgmma: bad input pointing to --for tma

        return parse_recipe(spec, tile, hardware)
    if text.startswith(("mma-a", "mma-b")):
        from .fragments import parse as parse_fragment  # the mma.sync operands read by ld.shared

        return parse_fragment(spec, tile, hardware)
    if text.startswith(_WARP_PREFIXES):
        from .warp import parse_warp_access

        return parse_warp_access(spec, tile, hardware)
    call = re.search(r"\b(make_tiled_copy|make_tiled_mma)\s*\(", spec)
    if call:  # a line of C++ pasted whole: `auto tiled_copy = make_tiled_copy(...);`
        cut = " ".join(spec.split())
        raise InputError(f"access {cut if len(cut) <= 60 else cut[:57] + '...'!r}: give the call alone, from {call[1]}( to its closing "
                         f"parenthesis (without '{spec[:call.start()].strip()}')")
    raise malformed(spec)


def _ascii_digits(spec: str) -> None:
    """Refuse another script's digits: the forms' regular expressions (``\\d``) and ``int()`` read
    ``:w٤`` as ``:w4`` and ``SM75_U32x٤_LDSM_N`` as x4, but no compiler or library reads them."""
    if spec.isascii():  # (the usual case, at C speed: a long spec was walked in Python per character)
        return
    for i, ch in enumerate(spec):
        if ch.isdecimal() and not ch.isascii():
            text = " ".join(spec.split())
            raise InputError(f"access {text if len(text) <= 60 else text[:57] + '...'!r}: {ch!r} (character {i + 1}) "
                             f"is not an ASCII digit: write numbers with 0-9")


def _above(spec: str, text: str) -> Callable[[str, Tile, Hardware], Pattern]:
    """The registered reader of a form read above this package (FORMS_ABOVE), or bad input saying
    which modules register them."""
    reader = FORMS_ABOVE.get(next(p for p in ABOVE_PREFIXES if text.startswith(p)))
    if reader is None:
        raise InputError(f"access {spec.strip()!r}: import swizzle_solver.indexed and swizzle_solver.tiled to "
                         f"read index:, offset:, make_tiled_copy and make_tiled_mma forms (the CLI and the API do)")
    return reader


def _cute_atom(spec: str, text: str, tile: Tile, hardware: Hardware) -> Pattern:
    """A CuTe atom by name: an MMA atom's operand (access/mma_atoms.py), else a copy atom as the form
    it issues (access/cute_atoms.py)."""
    from .mma_atoms import is_mma_atom
    from .mma_atoms import parse as parse_mma

    if is_mma_atom(text) or not text.replace("cute::", "").startswith(_ATOM_PREFIXES):
        return parse_mma(spec, tile, hardware)
    from .cute_atoms import parse as parse_atom

    return parse_atom(spec, tile, hardware, parse_access)


def _directed(spec: str, tile: Tile, hardware: Hardware, parse: Callable[[str, Tile, Hardware], Pattern]) -> Pattern:
    """``store:X`` / ``load:X``: X compiled by ``parse``, marked with the direction (access/direction.py)."""
    from .direction import directed, split

    direction, rest = split(spec)
    if split(rest)[0]:
        raise InputError(f"access {spec.strip()!r}: one direction at most (store: or load:, once)")
    if rest.strip().lower().startswith(ABOVE_PREFIXES):  # its instruction is chosen by its direction
        rest = f"{rest}; {direction}"
    p = parse(rest, tile, hardware)
    rule = hardware.rule(p.op) if p.op else None
    return directed(p, direction, spec, None if rule is None else rule.write)


def _layout_file(path: str, tile: Tile, hardware: Hardware) -> Pattern:
    """One --linear-layout file, optionally after store: or load: (access/direction.py)."""
    from .direction import directed, split
    from .triton_layout import load_linear_layout

    direction, file = split(path)
    loaded = load_linear_layout(file, tile, hardware, write=direction == "store")
    return directed(loaded, direction, path, None) if direction else loaded


def defaulted_elem_warning(accesses: Sequence[str], fix: str = "--dtype {}") -> str | None:
    """When no element size was given (the default is 4 bytes) and an access names an instruction that
    moves elements of another size, the sentence that says so: the answer is right for 4-byte
    elements, which such a kernel rarely has (ldmatrix.x4 with no --dtype). A warning, not an
    error: ldmatrix does serve 4-byte data (tf32 operands read as pairs of b16), so the default may
    be meant. ``fix`` names the option or key that sets the size."""
    for spec in accesses:
        if not spec.strip().lower().startswith(_WARP_PREFIXES):
            continue
        from .warp import implied_elem_bytes  # (already imported: the spec is a warp form)

        implied = implied_elem_bytes(spec)
        if _byte_form(spec.strip().lower()):
            from .matrix_b8 import IMPLIED

            implied = IMPLIED
        if implied is not None and implied[0] != DEFAULT_ELEM_BYTES:
            size, dtypes = implied
            first = dtypes.split(",")[0]
            return (f"access {spec} moves {8 * size}-bit elements ({dtypes}), but no element size was given: "
                    f"solved for {DEFAULT_ELEM_BYTES}-byte elements, the default; give {fix.format(first)} "
                    f"(or {fix.format('f32')} to keep 4-byte elements)")
    return None


def _some_access(given: bool, phases_files: Sequence[str], layout_files: Sequence[str]) -> None:
    """A problem names at least one access (a layout drawn alone, ``given`` too, needs none)."""
    if not (given or phases_files or layout_files):
        raise InputError("no access pattern given: add at least one --access (e.g. --access 8x4 --access row)")


def make_problem(rows: int, cols: int, accesses: list[str], row_length: int | None = None,
                 elem_bytes: int = 4, *, banks: int | None = None, bank_bytes: int | None = None,
                 phases_files: Sequence[str] = (), layout_files: Sequence[str] = (), arch: str = "nvidia",
                 parse: Callable[[str, Tile, Hardware], Pattern] = parse_access, elem_bits: int = 0,
                 order: str = "row", drawing: bool = False, scalar_bytes: int = 0) -> Problem:
    """The whole problem (the tile's shape, row length and element size, then the rest by name):
    `--access` specs, the patterns of each `--phases` file, then each
    `--linear-layout` file (their readers are imported only when used). ``parse``: how one spec
    is compiled (parse_access; the API's cache hands out a pattern it compiled before, memo.py).
    ``elem_bits``: elements smaller than a byte (elem_bits_of: 4 for fp4, i4, u4), cols and
    row_length counting them; the tile is their packed bytes. ``order``: --order, the tile's storage
    order (a column-major tile is stored as its transpose and its accesses compiled for that:
    access/order.py). ``drawing``: a layout drawn alone (--show, --svg, --html without an access)
    needs none. ``scalar_bytes``: a vector element type's scalar (scalar_bytes_of: 2 for half2): the
    instructions of the scalar type read it in their units (access/vector_dtype.py)."""
    tile = make_tile(rows, cols, row_length, elem_bytes, order, elem_bits, scalar_bytes)
    if tile.col_major:
        from .order import parse_col

        plain = parse

        def parse(spec: str, t: Tile, hw: Hardware) -> Pattern:  # (a column-major tile's accesses)
            if spec.strip().lower().startswith(("store:", "load:")):
                return _directed(spec, t, hw, lambda rest, t2, hw2: parse_col(rest, t2, hw2, plain))
            return parse_col(spec, t, hw, plain)
    target = find_target(arch)
    hardware = target if banks is None and bank_bytes is None else make_hardware(
        target.banks if banks is None else banks, target.bank_bytes if bank_bytes is None else bank_bytes, target)
    _some_access(bool(accesses) or drawing, phases_files, layout_files)
    check_count(len(accesses) + len(layout_files))  # caps on the problem's size, checked as it grows
    patterns = []
    for spec in accesses:
        patterns.append(parse(spec, tile, hardware))
        if patterns[-1].op:  # an instruction: where its cell is disputed, the other reading too
            from .warp import other_reading

            patterns += other_reading(patterns[-1], lambda hw, spec=spec: parse(spec, tile, hw), hardware)
        check_patterns(patterns)
    if phases_files:
        from .phases_file import load_phases

        for path in phases_files:
            patterns += load_phases(path, tile, hardware)
            check_patterns(patterns)
    for path in layout_files:
        patterns.append(_layout_file(path, tile, hardware))
        check_patterns(patterns)
    return Problem(tile, hardware, tuple(patterns))
