"""`table:FILE`: the layout as a table of element offsets, one per (r, c), row by row.

Formats, by the file's extension: ``.npy`` (numpy's format, read with ``allow_pickle=False``: an
integer array of shape (rows, cols)), ``.csv`` (one row of the tile per line, offsets separated by
commas; blank lines and lines starting with # are skipped) or ``.json`` (a list of rows, each a list
of integers). The file is read through access/inputfile.py (a regular file, at most its size limit);
the table must have the tile's shape. It has no C expression unless it is GF(2)-linear on the
offset bits (families/given.py): ``--emit cuda`` writes it as a constant array.
"""
from __future__ import annotations

import io
from pathlib import Path

import numpy as np

from ..access.inputfile import decode, load_json, printable, read_bytes
from ..model import InputError, Tile
from ..value import Value
from .expr import NotationError

MAX_ELEMENTS = 1 << 19  # the largest tile (512 KiB of 1-byte elements)
MAX_OFFSET = 1 << 40
ORDER = 4  # this notation's place in the lists of notations
WHAT = "a table of element offsets"


class Table(Value, eq=False):
    path: str  # as given
    offsets: np.ndarray  # int64, 2-D
    notation = "table"
    as_written = False
    unit = "element"

    def evaluate(self, tile: Tile) -> tuple[np.ndarray, object, str | None]:
        if self.offsets.shape != (tile.rows, tile.cols):
            rows, cols = self.offsets.shape
            raise NotationError(f"the table {printable(self.path)} is {rows} x {cols}, the tile is "
                                f"{tile.rows} x {tile.cols}: give --rows {rows} --cols {cols}, or the tile's table")
        return self.offsets, None, None


def load(path: str, base: Path | None = None, allow_outside: bool = True) -> Table:
    if not path:
        raise NotationError("table: needs a file: table:offsets.npy (.npy, .csv, or .json: a list of rows)")
    where = f"table file {printable(path)}"
    full = Path(path) if base is None else base / path
    if not allow_outside and base is not None and (Path(path).is_absolute() or
                                                   not full.resolve().is_relative_to(base.resolve())):
        raise InputError(f"table path {printable(path)!r} leaves the folder of the examples file: give a path inside "
                         f"it, or run batch --allow-outside")
    suffix = full.suffix.lower()
    if suffix not in (".npy", ".csv", ".json"):
        raise InputError(f"{where}: the extension says the format: .npy, .csv or .json (a list of rows)")
    data = read_bytes(str(full), "table file")
    if suffix == ".npy":
        offsets = _npy(data, where)
    elif suffix == ".csv":
        offsets = _rows(_csv(decode(data, where), where), where)
    else:
        offsets = _rows(load_json(decode(data, where), where), where)
    if offsets.size > MAX_ELEMENTS:
        raise InputError(f"{where} has {offsets.size} offsets, above the {MAX_ELEMENTS} of the largest tile")
    if offsets.size and int(np.abs(offsets).max()) >= MAX_OFFSET:
        raise InputError(f"{where} has an offset of 2^40 or more: no shared-memory offset is that large")
    return Table(path, offsets)


def _declared(data: bytes, where: str) -> None:
    """The .npy header's shape, checked before any array is made: a header may declare any number
    of elements (10^11 in 128 bytes), and numpy allocates what it declares before it finds the
    data short. The file's problem is named, not the memory it would take."""
    from numpy.lib import format as npy_format

    stream = io.BytesIO(data)
    try:
        version = npy_format.read_magic(stream)
        read = npy_format.read_array_header_1_0 if version == (1, 0) else npy_format.read_array_header_2_0
        shape, _, dtype = read(stream)
    except (ValueError, OSError, EOFError) as err:
        raise InputError(f"{where} is not a .npy array of integers ({printable(str(err))[:120]})") from None
    if len(shape) != 2:
        raise InputError(f"{where}: the array must have two dimensions (rows, cols), not {len(shape)}")
    elements = shape[0] * shape[1]
    if elements > MAX_ELEMENTS:
        raise InputError(f"{where}: its header declares {shape[0]} x {shape[1]} = {elements} offsets, above the "
                         f"{MAX_ELEMENTS} of the largest tile")
    if len(data) - stream.tell() < elements * dtype.itemsize:
        raise InputError(f"{where}: its header declares {shape[0]} x {shape[1]} offsets of {dtype.itemsize} bytes, "
                         f"but the file holds {len(data) - stream.tell()} bytes of data (cut short?)")


def _npy(data: bytes, where: str) -> np.ndarray:
    _declared(data, where)
    try:
        array = np.load(io.BytesIO(data), allow_pickle=False)
    except (ValueError, OSError, EOFError) as err:
        raise InputError(f"{where} is not a .npy array of integers ({printable(str(err))[:120]})") from None
    if not isinstance(array, np.ndarray) or array.ndim != 2:
        raise InputError(f"{where}: the array must have two dimensions (rows, cols), not {getattr(array, 'ndim', '?')}")
    if array.dtype.kind not in "iu":
        if array.dtype.kind == "f" and np.all(np.isfinite(array)) and np.all(array == np.round(array)):
            array = array.astype(np.int64)
        else:
            raise InputError(f"{where}: the offsets must be integers, not {array.dtype}")
    if array.dtype.kind == "u" and array.size and int(array.max()) >= MAX_OFFSET:
        raise InputError(f"{where} has an offset of 2^40 or more: no shared-memory offset is that large")
    return array.astype(np.int64)


def _csv(text: str, where: str) -> list:
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        cells = [x.strip() for x in line.rstrip(",").split(",")]
        try:
            rows.append([int(x) for x in cells])
        except ValueError:
            raise InputError(f"{where}: line {number} is not integers separated by commas") from None
    return rows


def _rows(rows, where: str) -> np.ndarray:
    if not (isinstance(rows, list) and rows and all(isinstance(r, list) and r for r in rows)):
        raise InputError(f"{where}: give a list of rows, each a list of offsets ([[0, 1, ...], [64, 65, ...]])")
    if len({len(r) for r in rows}) != 1:
        raise InputError(f"{where}: the rows have different lengths")
    if not all(isinstance(x, int) and not isinstance(x, bool) and abs(x) < MAX_OFFSET for r in rows for x in r):
        raise InputError(f"{where}: every offset must be an integer below 2^40")
    if len(rows) * len(rows[0]) > MAX_ELEMENTS:
        raise InputError(f"{where} has more offsets than the {MAX_ELEMENTS} of the largest tile")
    return np.array(rows, dtype=np.int64)


def read(body: str, base: Path | None = None, allow_outside: bool = True) -> Table:
    """The notation's entry (notation/__init__.py): ``table:FILE``."""
    return load(body.strip(), base, allow_outside)


__all__ = ["NotationError", "Table", "load", "read"]
