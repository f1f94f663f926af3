"""Accesses of a column-major tile (--order col, DESIGN.md section 10 "Orientation").

A column-major tile is stored as its transpose (model.Tile, ``order="col"``): storage row j holds
column j of the tile. Every access is compiled to lanes in that storage orientation, so the
simulator, the families and the proof see the stored tile unchanged; the pattern keeps the user's
spec and footprint (model.Pattern, ``order="col"``), and its ``coset_bits`` in storage orientation.

What a spec means there (a vector is a run of elements contiguous in storage, which under col order
runs down a column of the tile):

- ``MxN`` (and ``MxNvB``): M rows x N columns of the tile, as always; each column's M-run is read as
  vectors (the default width and ``vB`` as for a row's run under row order, against the column
  length). It is the stored tile's ``NxM`` block.
- ``MxN:s`` (s > 1): its rows are s apart, so a column's run is not contiguous: scalar lanes (``vB``
  above the element size is refused).
- ``row`` and ``col``: as under row order, scalar lanes (``row``: one wavefront's run of a row;
  ``col``: one element from each of ``banks`` rows), each lane transposed.
- ``mma-a`` / ``mma-b`` (fragments read by ld.shared), and a CuTe MMA atom's ``:a``, ``:b``, ``:c``
  (access/mma_atoms.py), follow the tile: (r, c) is (m, k) or (n, k) as
  under row order, so on a column-major tile the read is M- (N-) major in memory, the stored tile's
  ``:mn`` read. ``:mn`` says the same and is accepted; ``:k`` (K-major in memory) contradicts the
  tile's order and is refused, naming ``--order row``.
- the other instruction forms (``warp:``, ``ldmatrix``, ``stmatrix``, ``mma-c``, ``mfma``, AMD's ops): what
  the instruction reads in memory, so in storage orientation: ``ldmatrix.x4.trans`` on a
  column-major tile reads 8 x 16-byte *storage* rows (8 columns of the tile, 16 bytes down each),
  which is how an M-major operand is read (CuTe's ``SM75_U16x8_LDSM_T``).
- sub-byte elements (``--dtype fp4``: packed down a column): ``MxN`` is the stored tile's ``NxM``
  of elements, which access/subbyte.py reads as ``N x M/2`` bytes; ``MxN:s`` (s > 1) is bad input;
  ``row``, ``col`` and the instruction forms address bytes as they are (a byte is two rows of a column).
- ``--phases`` lanes ``[row, col, bytes]`` and ``--linear-layout`` bases are the tile's (r, c), each
  lane transposed; a lane's bytes run down its column (access.phases_file, access.triton_layout).
"""
from __future__ import annotations

import re
from collections.abc import Callable

from ..hardware import Hardware
from ..model import InputError, Pattern, Tile, is_pow2
from ..value import replace
from .grammar import _SPEC

Parse = Callable[[str, Tile, Hardware], Pattern]


def logical_tile(tile: Tile) -> Tile:
    """The user's tile as a row-major one (a power-of-two pitch, so that its patterns' linear bits
    are found): where the words ``row``, ``col`` and ``MxN:s`` are placed."""
    rows, cols = tile.logical_shape
    return Tile(rows, cols, 1 << max(0, (cols - 1).bit_length()), tile.elem_bytes)


def storage_tile(tile: Tile) -> Tile:
    """The stored tile as a row-major one with a power-of-two pitch (for a pattern's linear bits)."""
    return Tile(tile.rows, tile.cols, 1 << max(0, (tile.cols - 1).bit_length()), tile.elem_bytes)


def swap_bits(bits) -> tuple | None:
    """linear_bits of the transposed lanes: a row bit becomes a column bit and back."""
    if bits is None:
        return None
    swapped: list[tuple] = []
    for bit in bits:
        if bit[0] == "x":
            swapped.append(("x", bit[2], bit[1]))
        else:
            swapped.append(("c" if bit[0] == "r" else "r", bit[1]))
    return tuple(swapped)


def transposed(p: Pattern, logical: Tile) -> Pattern:
    """A pattern of scalar lanes placed on the user's tile, its lanes moved to storage orientation."""
    return replace(p, lane_row=p.lane_col, lane_col=p.lane_row, order="col",
                   coset_bits=swap_bits(p.linear_bits(logical)))


def parse_col(spec: str, tile: Tile, hardware: Hardware, parse: Parse) -> Pattern:
    """Compile ``spec`` for the column-major ``tile`` (its storage orientation; see the module)."""
    text = spec.strip().lower()
    match = re.match(_SPEC, text)
    if match is None and text.startswith(("mma-a", "mma-b")):
        return _fragment(spec, text, tile, hardware, parse)
    if match is None and _mma_atom(text):  # a CuTe MMA atom's operand (access/mma_atoms.py): as mma-a
        return _fragment(spec, text, tile, hardware, parse)
    if match is None:  # an instruction form: in storage orientation as written
        return replace(parse(spec, tile, hardware), order="col")
    v = None if match["v"] is None else int(match["v"])
    if match["word"] is None and int(match["s"] or 1) == 1:
        return _block(spec, match, v, tile, hardware, parse)
    _check_scalar_lanes(spec, match, v, tile)
    logical = logical_tile(tile)
    scalar = text if v is not None or match["word"] is not None else f"{text}v{tile.elem_bytes}"
    p = parse(scalar, logical, hardware)
    return replace(transposed(p, logical), spec=spec.strip())


def _block(spec: str, match: re.Match, v: int | None, tile: Tile, hardware: Hardware, parse: Parse) -> Pattern:
    """An MxN block of the user's tile: the stored tile's NxM block, its vectors down a column."""
    m, n = int(match["m"]), int(match["n"])
    try:
        stored = parse(f"{n}x{m}" + ("" if v is None else f"v{v}"), tile, hardware)
    except InputError as err:  # its words are the stored tile's: say so
        raise InputError(f"access {spec!r} under --order col is the stored (transposed) tile's {n}x{m} "
                         f"block: {str(err).partition(': ')[2]}") from None
    bits = _bits(stored, tile)
    if tile.elem_bits:  # packed down a column: say what it reads in the user's words, then in bytes
        per = 8 // tile.elem_bits
        stored = replace(stored, summary=f"{m} rows x {n} columns = {n} columns x {m // per} bytes (the stored "
                                         f"{n}x{m // per} of the packed bytes)")
    return replace(stored, spec=spec.strip(), rows=m, cols=n, order="col", coset_bits=bits)


def _fragment(spec: str, text: str, tile: Tile, hardware: Hardware, parse: Parse) -> Pattern:
    """An mma.sync operand fragment on a column-major tile: (r, c) = (m or n, k) as always, so the
    elements run down k in memory only under row order; here it is the stored tile's ``:mn`` read."""
    name, _, major = text.rpartition(":")
    if major not in ("k", "mn"):
        name, major = text, ""
    if major == "k":
        raise InputError(f"access {spec!r}: ':k' reads a K-major operand (k contiguous in memory), but under "
                         f"--order col the tile's rows (m or n) are contiguous: drop ':k' (the fragment follows the "
                         f"tile's order: an M/N-major read), or use --order row for a K-major tile")
    return replace(parse(f"{name}:mn", tile, hardware), spec=spec.strip(), order="col")


def _mma_atom(text: str) -> bool:
    if not text.startswith(("sm75_", "sm80_", "sm89_", "mma_atom", "cute::")):
        return False
    from .mma_atoms import is_mma_atom

    return is_mma_atom(text)


def _check_scalar_lanes(spec: str, match: re.Match, v: int | None, tile: Tile) -> None:
    """Strided rows and whole rows or columns read scalar lanes under col order: refuse what cannot."""
    if tile.elem_bits and match["word"] is None:
        # its rows are s apart, and a column's bytes hold rows in pairs: read the rows it reads as an MxN block
        per = 8 // tile.elem_bits
        raise InputError(f"access {spec!r}: under --order col {tile.elem_bits}-bit elements are packed {per} a byte "
                         f"down a column, so rows {match['s']} apart are not a block of bytes: use an MxN block")
    if v is not None and v != tile.elem_bytes and is_pow2(v):
        what = "its rows are s apart" if match["word"] is None else f"'{match['word']}' reads scalar lanes"
        raise InputError(f"access {spec!r}: under --order col a vector runs down a column, and {what}: "
                         f"drop v{v} (scalar lanes), or use an MxN block (consecutive rows)")


def _bits(p: Pattern, tile: Tile) -> tuple | None:
    """A storage-orientation pattern's linear bits, found as for a row-major tile of a power-of-two pitch."""
    bits = p.linear_bits(storage_tile(tile))
    return None if bits is None else tuple(bits)

