"""--order col: each target's snippet in the user's (r, c) (DESIGN.md section 10, "Orientation").

A column-major tile is solved as its transpose (model.Tile), so an emitter writes the code of the
stored tile, whose row is the user's column. Here that code becomes the code of the user's tile:
element (r, c) is the stored tile's element (c, r), so

- ``cuda``, and every function or comment of (r, c): the names ``r`` and ``c`` exchanged (orient.swap_rc);
- ``cute`` (C++): each layout of (row, col) has its two top-level modes exchanged (``(R, C) : (P, 1)``
  becomes ``(C, R) : (1, P)``, the M-major form CUTLASS writes); the GMMA K-major atom tiled over
  the stored tile becomes the MN-major atom (its transpose, cute/atom/mma_traits_sm90_gmma.hpp)
  tiled over the user's tile with ``Step<_2, _1>`` (the same atom order); a layout that maps an
  offset (the outer layout of ``make_composed_layout``) is kept;
- ``cute-dsl``: ``make_layout`` with its two top-level modes exchanged;
- ``mojo``: ``Layout(IntTuple(...), IntTuple(...))`` with its two top-level modes exchanged;
- ``triton``: the encodings' ``order = [0, 1]`` (dim 0 contiguous), NVMMA ``transposed``, the
  padded encoding's shape, and each shared linear offset basis [row, col] as [col, row];
- ``tma`` and ``umma``: the tensor map and the descriptor describe storage, which these already
  are; a line says that the box's inner dimension runs down the tile's column (``umma``: that the
  canonical layout's rows are the tile's columns).

Every comment then says the user's words (``in_user_words``): the stored tile's rows are columns of
the tile (``columns 40 elements apart``, a box's outer extent in columns), its column panels bands
of rows (``2 row panels of 64 rows``). The header line (emit.common.header) already names the
user's tile and its order.
"""
from __future__ import annotations

import re

from ..model import Problem
from ..orient import swap_rc
from ..value import replace
from .common import Snippet


def for_col(target: str, problem: Problem, snippet: Snippet) -> Snippet:
    head, _, body = snippet.code.partition("\n")
    fix = _FIXES.get(target, _note)
    return replace(snippet, code=f"{head}\n{in_user_words(fix(problem, in_user_rc(body)))}" if body else head)


# What the emitters' comments say of the stored tile (its rows, its column panels, a box's rows), in
# the user's words: a stored row is a column of the tile, a stored column panel a band of its rows.
_WORDS = (
    (r"plain row-major, rows (\d+) elements apart", r"plain column-major, columns \1 elements apart"),
    (r"\brows (\d+) elements apart", r"columns \1 elements apart"),
    (r"spare element\(s\) per row", "spare element(s) per column"),
    (r"padding element\(s\) per row", "padding element(s) per column"),
    (r"spare per row", "spare per column"),
    (r"the given row length is", "the given column length is"),
    (r"(\d+) column panels of (\d+) elements \((\d+) B\)", r"\1 row panels of \2 rows (\3 B down each column)"),
    (r"(\d+) column panels of (\d+) elements", r"\1 row panels of \2 rows"),
    (r"a column XOR per row on", "a row XOR per column on"),
    (r"\(rows on a power-of-two pitch\)", "(columns on a power-of-two pitch)"),
    (r"\(row bits onto column bits\)", "(column bits onto row bits)"),
    (r"a permutation of rows in bands", "a permutation of columns in bands"),
    (r"\brow c = \(", "column c = ("),
    (r"column XOR \(vec \* \(\(row / perPhase\) % maxPhase\)\)",
     "row XOR (vec * ((column / perPhase) % maxPhase)), dim 0 (r) contiguous"),
    (r"box outer extent: (\d+) rows \(at most 256 per box: load taller tiles",
     r"box outer extent: \1 columns (at most 256 per box: load wider tiles"),
    (r"box: (\d+) elements x (\d+) rows", r"box: \1 elements down a column x \2 columns"),
    (r"one per column panel", "one per row panel"),
    (r"box i loads columns \[", "box i loads rows ["),
    (r"rows per box at most 256 \(load taller tiles", "columns per box at most 256 (load wider tiles"),
    (r"(\d+) rows of (\d+) B\b", r"\1 columns of \2 B"),
)


def in_user_words(body: str) -> str:
    """The emitters' comments on the stored tile's rows and column panels, said of the user's tile."""
    for pattern, words in _WORDS:
        body = re.sub(pattern, words, body)
    return body


# An (r, c) pair names the element or a function's arguments: still the user's (r, c) after the swap.
_PAIRS = (("(c, r)", "(r, c)"), ("(int c, int r)", "(int r, int c)"), ("(c: Int, r: Int)", "(r: Int, c: Int)"))


def in_user_rc(code: str) -> str:
    """The stored tile's code as the user's: ``r`` and ``c`` exchanged in every expression
    (``r * 64 + c`` becomes ``c * 64 + r``), while a function's parameters and the words "element
    (r, c)" keep naming the user's (r, c)."""
    code = swap_rc(code)
    for swapped, kept in _PAIRS:
        code = code.replace(swapped, kept)
    return code


def _plain(problem: Problem, body: str) -> str:
    return body


def _note(problem: Problem, body: str) -> str:
    rows, cols = problem.tile.logical_shape
    return (f"// --order col: stored column by column, so the box's inner dimension (boxDim[0]) runs down a column "
            f"of the tile ({rows} elements of r) and its outer one across the {cols} columns\n{body}")


def _umma(problem: Problem, body: str) -> str:
    rows, cols = problem.tile.logical_shape
    return (f"// --order col: stored column by column, so the canonical layout below is the stored tile's: its "
            f"rows are the tile's {cols} columns (c) and its columns the {rows} elements of r down each\n{body}")


def _args(text: str, start: int, open_: str, close: str) -> tuple[list[str], int]:
    """The top-level comma-separated arguments of the bracket that opens at ``text[start]``, and the
    index just after its closing bracket."""
    depth, args, begin = 0, [], start + 1
    for i in range(start, len(text)):
        ch = text[i]
        if ch in open_:
            depth += 1
        elif ch in close:
            depth -= 1
            if depth == 0:
                args.append(text[begin:i])
                return args, i + 1
        elif ch == "," and depth == 1:
            args.append(text[begin:i])
            begin = i + 1
    raise ValueError(f"unbalanced {open_!r} in emitted code")


def _swapped(pair: list[str]) -> str:
    """Two arguments exchanged, each keeping its own spacing."""
    a, b = pair
    return f"{a[:len(a) - len(a.lstrip())]}{b.strip()}, {a.strip()}"


def _cute(problem: Problem, body: str) -> str:
    out, i = [], 0
    for m in re.finditer(r"cute::Layout<", body):
        if m.start() < i:
            continue
        before = body[max(0, m.start() - 40):m.start()]
        args, end = _args(body, m.end() - 1, "<", ">")
        if re.search(r"make_composed_layout\(\s*$", before) or len(args) != 2:  # an outer map of offsets: kept
            continue
        (shape, stride), rewritten = args, []
        for part in (shape, stride):
            k = part.index("<")
            inner, _ = _args(part, k, "<", ">")
            rewritten.append(f"{part[:k]}<{_swapped(inner) if len(inner) == 2 else ', '.join(inner)}>")
        out.append(body[i:m.start()] + f"cute::Layout<{rewritten[0]},{rewritten[1]}>")
        i = end
    body = "".join(out) + body[i:]
    return re.sub(r"cute::tile_to_shape\(cute::GMMA::Layout_K_(SW\d+)_Atom<T>\{\},(\s*)"
                  r"cute::Shape<cute::Int<(\d+)>, cute::Int<(\d+)>>\{\}\)",
                  r"cute::tile_to_shape(cute::GMMA::Layout_MN_\1_Atom<T>{},\2"
                  r"cute::Shape<cute::Int<\4>, cute::Int<\3>>{}, cute::Step<cute::_2, cute::_1>{})", body)


def _python_layouts(body: str, call: str, keyword: str) -> str:
    """Each ``call(shape, stride)`` (or ``call(shape, keyword=stride)``) with both modes exchanged."""
    out, i = [], 0
    for m in re.finditer(re.escape(call) + r"\(", body):
        if m.start() < i:
            continue
        args, end = _args(body, m.end() - 1, "(", ")")
        if len(args) != 2:
            continue
        parts = []
        for a in args:
            lead = a[:len(a) - len(a.lstrip())]
            a = a.strip()
            key = a[:len(keyword)] if keyword and a.startswith(keyword) else ""
            tup = a[len(key):]
            k = tup.index("(")
            inner, _ = _args(tup, k, "(", ")")
            parts.append(f"{lead}{key}{tup[:k]}({_swapped(inner) if len(inner) == 2 else ', '.join(inner)})")
        out.append(body[i:m.start()] + f"{call}({parts[0]},{parts[1]})")
        i = end
    return "".join(out) + body[i:]


def _cute_dsl(problem: Problem, body: str) -> str:
    return _python_layouts(body, "cute.make_layout", "stride=")


def _mojo(problem: Problem, body: str) -> str:
    return _python_layouts(body, "Layout", "")


def _triton(problem: Problem, body: str) -> str:
    body = re.sub(r"order = \[1, 0\]", "order = [0, 1]", body)
    body = body.replace("order=[1, 0]", "order=[0, 1]").replace(", [1, 0])", ", [0, 1])")
    body = body.replace("transposed = false", "transposed = true").replace(", rank=2)", ", rank=2, transposed=True)")
    body = re.sub(r"shape = \[(\d+), (\d+)\]", r"shape = [\2, \1]", body)
    body = re.sub(r"\]\], \[(\d+), (\d+)\], \[0, 1\]\)", r"]], [\2, \1], [0, 1])", body)

    def bases(m: re.Match) -> str:
        return re.sub(r"\[(\d+), (\d+)\]", r"[\2, \1]", m[0])

    return re.sub(r"(offset = |offset_bases=)\[\[.*?\]\]", bases, body)


_FIXES = {"cuda": _plain, "cute": _cute, "cute-dsl": _cute_dsl, "mojo": _mojo, "triton": _triton, "umma": _umma}
