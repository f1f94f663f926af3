"""`--svg FILE`: the figure tutorials draw by hand, written as plain SVG text (no dependency).

Panels: the logical tile before (unswizzled) and after, each element coloured by its bank with the
worst placement of the chosen access outlined (red where a bank is over-subscribed); the physical
memory of the answer as lines of one wavefront (banks across), each word labelled with the element
it holds; the footprint's lanes and their banks; and per access the wavefronts before and after.

Size: a tile has up to tens of thousands of cells, so a cell is one ``<use>`` of its bank's symbol
(a coloured square with the bank number, defined once in ``<defs>``), text takes its font from one
style rule, and each panel draws at most MAX_DRAWN cells (the note under it says what was left
out): a 256 x 256 tile's figure stays under 1 MB.
"""
from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from xml.sax.saxutils import escape

import numpy as np

from .access.inputfile import printable
from .bankmap import BankMap, bank_colour
from .model import InputError, Problem

CELL_W, CELL_H = 22, 16  # logical cell
WORD_W = 34  # physical word cell (holds an "r,c" label)
MAX_CELLS = 128  # rows and columns of the logical tile drawn
MAX_DRAWN = 8192  # cells of one logical panel drawn (a 128 x 64 tile whole; of a larger one, its first rows)
MAX_LINES = 128  # wavefront lines of the physical view drawn
FONT = "DejaVu Sans Mono, Menlo, Consolas, monospace"


def _refuse_the_other_kind(path: str, option: str) -> None:
    """--html FILE.svg, --svg FILE.html: a browser reads the file by its name, as the other kind."""
    other = {"--html": (".svg",), "--svg": (".html", ".htm")}.get(option, ())
    if os.path.splitext(path)[1].lower() in other:
        stem = os.path.splitext(path)[0]
        raise InputError(f"{option} {path!r} writes an HTML page, not SVG: name it {stem}.html (solve's --svg FILE "
                         f"writes the SVG figure)" if option == "--html" else
                         f"{option} {path!r} writes an SVG figure, not HTML: name it {stem}.svg (--html FILE writes "
                         f"the interactive page)")


def check_writable(path: str, option: str = "--svg") -> None:
    """Fail before any work when the file (``option``'s: --svg, --html) cannot be written: a directory, a device, a pipe or a
    symbolic link in its place (only a regular file is ever replaced), a name too long, no
    directory, no permission."""
    folder = os.path.dirname(os.path.abspath(path))
    suffix = "." + option.lstrip("-")  # (the temporary file's: .svg, .html)
    _refuse_the_other_kind(path, option)
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        info = None
    except (OSError, ValueError) as err:  # ValueError: a NUL in the path
        if getattr(err, "errno", None) == errno.ENAMETOOLONG:
            raise InputError(f"{option} {path!r}: the name is too long: choose a shorter path") from None
        reason = getattr(err, "strerror", None) or "invalid path"
        raise InputError(f"{option} {path!r} cannot be written ({reason}): choose a writable path") from None
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise InputError(f"{option} {path!r} is a directory: give a file name such as tile{suffix}")
    if info is not None and not stat.S_ISREG(info.st_mode):
        kind = "a symbolic link" if stat.S_ISLNK(info.st_mode) else "not a regular file (a device or a pipe)"
        raise InputError(f"{option} {path!r} is {kind}: only a regular file is written; give another path")
    if not os.path.isdir(folder):
        raise InputError(f"{option} {path!r}: directory {printable(folder)} does not exist: create it or choose "
                         f"another path")
    try:
        longest = os.pathconf(folder, "PC_NAME_MAX")
    except (OSError, ValueError):
        longest = 255
    if len(os.fsencode(os.path.basename(path))) > longest:
        raise InputError(f"{option} {path!r}: the file name is longer than {longest} bytes: choose a shorter name")
    try:
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".swizzle-solve-", suffix=suffix)
    except OSError as err:
        raise InputError(f"{option} {path!r} cannot be written ({err.strerror}): choose a writable path") from None
    os.close(fd)
    os.unlink(probe)


def write(path: str, text: str, option: str = "--svg") -> None:
    """Write whole or not at all: a temporary file in the same directory, then an atomic rename; the
    temporary file is removed on any failure, an interrupt included."""
    check_writable(path, option)  # again: the path may have changed during the search
    folder = os.path.dirname(os.path.abspath(path))
    suffix = "." + option.lstrip("-")
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".swizzle-solve-", suffix=suffix)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; a figure is an ordinary file
        os.replace(tmp, path)
        tmp = None
    except OSError as err:
        raise InputError(f"{option} {path!r} cannot be written ({err.strerror}): choose a writable "
                         f"path") from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


class _Canvas:
    def __init__(self):
        self.parts: list[str] = []
        self.symbols: dict[str, str] = {}  # id -> its <g> in <defs>

    def rect(self, x, y, w, h, fill, stroke="#ffffff", width=0.5):
        self.parts.append(f"<rect x='{x}' y='{y}' width='{w}' height='{h}' fill='{fill}' stroke='{stroke}' "
                          f"stroke-width='{width}'/>")

    def text(self, x, y, s, size=10, anchor="start", weight="normal", fill="#000000"):
        extra = "".join(f" {k}='{v}'" for k, v, default in (("text-anchor", anchor, "start"),
                                                            ("font-weight", weight, "normal"),
                                                            ("fill", fill, "#000000")) if v != default)
        self.parts.append(f"<text x='{x}' y='{y}' font-size='{size}'{extra}>{escape(str(s))}</text>")

    def cell(self, x, y, w, h, fill, label=None):
        """A coloured cell with an optional label that repeats (a bank number): one <use> of a symbol."""
        key = f"s{len(self.symbols)}"
        body = (f"<rect width='{w}' height='{h}' fill='{fill}' stroke='#ffffff' stroke-width='0.5'/>"
                + ("" if label is None else f"<text x='{w / 2:g}' y='11' font-size='8' "
                                            f"text-anchor='middle'>{escape(str(label))}</text>"))
        key = self.symbols.setdefault(body, key)
        self.parts.append(f"<use href='#{key}' x='{x:g}'" + (f" y='{y:g}'/>" if y else "/>"))

    def row(self, y) -> None:
        """Start a row of cells at height y (their own y is then 0); end it with end_row."""
        self.parts.append(f"<g transform='translate(0,{y:g})'>")

    def end_row(self) -> None:
        self.parts.append("</g>")

    def label(self, x, y, s):
        """A small centred label (a physical word's element), styled by the `l` class."""
        self.parts.append(f"<text x='{x:g}' y='{y:g}' class='l'>{escape(str(s))}</text>")

    def svg(self, width, height) -> str:
        defs = "".join(f"<g id='{key}'>{body}</g>\n" for body, key in self.symbols.items())
        return (f"<?xml version='1.0' encoding='UTF-8'?>\n"
                f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' "
                f"viewBox='0 0 {width} {height}'>\n"
                f"<style>text {{ font-family: {FONT}; }} .l {{ font-size: 7px; text-anchor: middle; }}</style>\n"
                f"<defs>\n{defs}</defs>\n"
                f"<rect x='0' y='0' width='{width}' height='{height}' fill='#ffffff'/>\n"
                + "\n".join(self.parts) + "\n</svg>\n")


def _outline(cv: _Canvas, x, y, w, h, conflict: bool):
    cv.rect(x + 1, y + 1, w - 2, h - 2, "none", "#d00000" if conflict else "#000000", 2)


def _tile(cv: _Canvas, view: BankMap, banks: int, x0: int, y0: int, heading: str) -> tuple[int, int]:
    rows, cols = drawn(view.banks.shape)
    cv.text(x0, y0 + 12, f"{heading}: {view.layout}", 12, weight="bold")
    ok = view.worst == view.lower_bound
    if view.spec:
        cv.text(x0, y0 + 27, f"{view.spec}: worst placement {view.worst} wavefront(s), lower bound "
                             f"{view.lower_bound}", 10, fill="#007000" if ok else "#c00000")
    else:  # a layout drawn alone (bankmap.layout_map)
        cv.text(x0, y0 + 27, "no access named: cells show the bank; nothing counted", 10, fill="#666666")
    top = y0 + 44
    for c in range(cols):
        if c % 4 == 0:
            cv.text(x0 + 24 + c * CELL_W + CELL_W / 2, top - 3, c, 8, "middle", fill="#666666")
    for r in range(rows):
        y = top + r * CELL_H
        cv.text(x0 + 20, y + 11, r, 8, "end", fill="#666666")
        cv.row(y)
        for c in range(cols):
            bank = int(view.banks[r, c])
            x = x0 + 24 + c * CELL_W
            cv.cell(x, 0, CELL_W, CELL_H, bank_colour(bank, banks), bank)
            if (r, c) in view.footprint:
                _outline(cv, x, 0, CELL_W, CELL_H, (r, c) in view.conflicted)
        cv.end_row()
    return 24 + cols * CELL_W, 44 + rows * CELL_H


def _physical(cv: _Canvas, problem: Problem, view: BankMap, x0: int, y0: int) -> tuple[int, int]:
    tile, model = problem.tile, problem.hardware
    e, bb = tile.elem_bytes, model.bank_bytes
    owner: dict[int, tuple[int, int]] = {}  # word -> first logical element stored in it
    for (r, c), p in sorted(np.ndenumerate(view.phys), key=lambda t: t[1]):
        for word in model.words_of_element(int(p), e):
            owner.setdefault(word, (r, c))
    read = {w for (r, c) in view.footprint for w in model.words_of_element(int(view.phys[r, c]), e)}
    hot = {w for w in read if (owner.get(w) in view.conflicted)}
    lines = min(MAX_LINES, -(-tile.storage_bytes // model.wavefront_bytes))
    cv.text(x0, y0 + 12, f"physical memory under {view.layout}: one line = {model.wavefront_bytes} B "
                         f"(one wavefront), bank across; a cell = one {bb}-byte word, labelled row,col", 12,
            weight="bold")
    top = y0 + 30
    for b in range(model.banks):
        cv.text(x0 + 30 + b * WORD_W + WORD_W / 2, top - 3, b, 8, "middle", fill="#666666")
    for line in range(lines):
        y = top + line * CELL_H
        cv.text(x0 + 26, y + 11, line * model.wavefront_bytes, 7, "end", fill="#666666")
        cv.row(y)
        for b in range(model.banks):
            word = line * model.banks + b
            x = x0 + 30 + b * WORD_W
            cell = owner.get(word)
            cv.cell(x, 0, WORD_W, CELL_H, bank_colour(b, model.banks) if cell else "#f4f4f4")
            if cell:
                cv.label(x + WORD_W // 2, 11, f"{cell[0]},{cell[1]}")
            if word in read:
                _outline(cv, x, 0, WORD_W, CELL_H, word in hot)
        cv.end_row()
    note = "" if lines * model.wavefront_bytes >= tile.storage_bytes else f" (first {lines} lines shown)"
    cv.text(x0, top + lines * CELL_H + 14, f"byte offset at the left{note}", 9, fill="#666666")
    return 30 + model.banks * WORD_W, 30 + lines * CELL_H + 20


def _lanes(cv: _Canvas, view: BankMap, x0: int, y0: int, width: int) -> int:
    cv.text(x0, y0 + 12, f"footprint of the worst placement of {view.spec} under {view.layout}: "
                         f"lane (row,col) -> banks", 11, weight="bold")
    items = [f"({r},{c})->{'/'.join(map(str, banks))}" for (r, c, _), banks in view.lanes]
    per_line = max(1, width // 110)
    y = y0 + 28
    for i in range(0, len(items), per_line):
        cv.text(x0, y, "   ".join(items[i:i + per_line]), 9)
        y += 13
    return y - y0


def _table(cv: _Canvas, per_access: list[dict], answer: str, x0: int, y0: int) -> int:
    heads = ["access", "lower bound", "unswizzled worst / total", f"{answer} worst / total"]
    xs = [x0, x0 + 130, x0 + 240, x0 + 440]
    cv.text(x0, y0 + 12, "wavefronts per access (worst placement / sum over placements)", 11, weight="bold")
    for x, h in zip(xs, heads):
        cv.text(x, y0 + 30, h, 10, weight="bold")
    y = y0 + 46
    for a in per_access:
        ok = a["worst_wavefronts"] == a["lower_bound"]
        base_ok = a["baseline_worst_wavefronts"] == a["lower_bound"]
        cv.text(xs[0], y, a["spec"], 10)
        cv.text(xs[1], y, a["lower_bound"], 10)
        cv.text(xs[2], y, f"{a['baseline_worst_wavefronts']} / {a['baseline_total_wavefronts']}", 10,
                fill="#007000" if base_ok else "#c00000")
        cv.text(xs[3], y, f"{a['worst_wavefronts']} / {a['total_wavefronts']}", 10,
                fill="#007000" if ok else "#c00000")
        y += 15
    return y - y0


def drawn(shape: tuple[int, int]) -> tuple[int, int]:
    """(rows, cols) of a logical panel drawn: at most MAX_CELLS each way and MAX_DRAWN cells in all."""
    cols = min(shape[1], MAX_CELLS)
    return min(shape[0], MAX_CELLS, MAX_DRAWN // cols), cols


def svg_text(problem: Problem, before: BankMap, after: BankMap, per_access: list[dict]) -> str:
    """The whole figure as SVG text."""
    t, banks = problem.tile, problem.hardware.banks
    cv = _Canvas()
    shape = t.logical_shape  # the user's tile (bankmap.py draws a column-major one turned back)
    pitch = f"column length {t.row_length}" if t.col_major else f"row length {t.row_length}"
    cv.text(10, 20, f"{shape[0]} x {shape[1]} tile of {t.elem_bytes}-byte elements, {pitch}; "
                    f"{banks} banks x {problem.hardware.bank_bytes} B; cells show the bank", 13, weight="bold")
    top = 34
    if after.storage:  # which way storage runs, when it is not along the rows drawn
        cv.text(10, 36, after.storage, 11)
        top = 48
    w1, h1 = _tile(cv, before, banks, 10, top, "before")
    w2, h2 = _tile(cv, after, banks, 10 + w1 + 30, top, "after")
    y = top + max(h1, h2) + 20
    rows, cols = drawn(shape)
    if (rows, cols) != shape:
        cv.text(10, y, f"(logical tiles: the first {rows} rows and {cols} columns shown)", 9, fill="#666666")
        y += 16
    w3, h3 = _physical(cv, problem, after, 10, y)
    y += h3 + 10
    width = max(w1 + w2 + 30, w3, 640) + 20
    if after.spec:  # (a layout drawn alone has no footprint and no counts)
        y += _lanes(cv, after, 10, y, width) + 10
        y += _table(cv, per_access, after.layout, 10, y) + 10
    return cv.svg(width, y)
