"""Sub-byte tiles (--dtype fp4, e2m1, i4, u4): each target's snippet, then its form in the 4-bit elements.

A tile of 4-bit elements is solved as its packed bytes (access/subbyte.py, model.Tile.elem_bits): the
emitters write the code of that byte tile, and the header (emit.common.header) says so: there an
element is a byte and ``c`` counts bytes (the element column / 2). Here each snippet gets the same
layout in the kernel's element units after it, from one identity: element (r, c) lies in byte
(r, c / 2), in its half c % 2, and a layout moves whole bytes, so

    phys_elem(r, c) = 2 * phys_byte(r, c / 2) + c % 2

For a layout written as swizzles of affine layouts (CuTe, the CuTe DSL, Mojo) that is the same code
with every offset doubled: ``Swizzle<B,M,S>`` on byte offsets is ``Swizzle<B,M+1,S>`` on element
offsets (p_e = 2 p_b + lo: the mask and the shift move up one bit), and each affine layout of (row,
col) has each stride doubled, except the unit-stride leaf of the column (the lowest column bits),
whose extent doubles instead (it takes the element's half of the byte). The CuTe atoms over a
4-bit type (``GMMA::Layout_K_SW128_Atom<cutlass::float_e2m1_t>``: the byte atom upcast to 4-bit
elements, cute/atom/mma_traits_sm90_gmma.hpp) are the same bytes with twice the columns.
The other targets already address bytes in the kernel's own terms: Triton holds 4-bit operands
packed, two a byte, in an 8-bit tensor; a TMA map of packed 4-bit data (CU_TENSOR_MAP_DATA_TYPE_
16U4_ALIGN8B) counts elements but swizzles bytes; a tcgen05 descriptor's strides are bytes.
"""
from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator

from ..layout import Layout
from ..model import Problem, Tile
from ..value import replace
from .common import Snippet
from .recognise import swizzled_rows

TYPES = "cutlass::float_e2m1_t, cutlass::int4b_t or cutlass::uint4b_t"


def for_packed(target: str, problem: Problem, layout: Layout, snippet: Snippet) -> Snippet:
    """The snippet of the packed bytes, then what the target's code is in the 4-bit elements."""
    tail = _TAILS[target](problem, layout, snippet)
    return replace(snippet, code=f"{snippet.code}\n{tail}") if tail else snippet


def _byte_of(tile: Tile) -> tuple[str, str]:
    """(the byte of element (r, c) in the user's (r, c), its part of the byte): packing runs along a row
    (row order) or down a column (--order col)."""
    per = 8 // tile.elem_bits
    return (f"r / {per}, c", f"r % {per}") if tile.col_major else (f"r, c / {per}", f"c % {per}")


def element_note(tile: Tile, comment: str) -> str:
    """The line every element form begins with."""
    per = 8 // tile.elem_bits
    rows, cols = tile.logical_shape
    shape, counts = (f"{rows * per} x {cols}", "r") if tile.col_major else (f"{rows} x {cols * per}", "c")
    byte, part = _byte_of(tile)
    return (f"{comment} in {tile.elem_bits}-bit elements ({shape}, {counts} counts elements): element "
            f"(r, c) is in byte phys({byte}) above, in its part {part}; as an element offset:")


def _formula(tile: Tile, comment: str) -> str:
    per = 8 // tile.elem_bits
    byte, part = _byte_of(tile)
    return f"{comment}   phys_elem(r, c) = {per} * phys({byte}) + {part}  (phys: the byte layout above)"


def _code_lines(code: str, comment: str) -> str:
    """The declarations of a snippet (its lines that are not comments), as one text."""
    return "\n".join(line for line in code.splitlines()[1:] if not line.lstrip().startswith(comment))


# --- the doubling rule on the code of each notation -------------------------------------------------------


def _leaves(shape, stride) -> Iterator[tuple[int, int]]:
    if isinstance(shape, tuple):
        for s, d in zip(shape, stride, strict=True):
            yield from _leaves(s, d)
    else:
        yield shape, stride


def _doubled(pairs: list[tuple[int, int]], per: int) -> list[tuple[int, int]]:
    """Each (extent, stride) leaf of a layout of byte offsets as a leaf of element offsets: the
    unit-stride leaf (the lowest column bits) takes ``per`` times the extent, every other stride
    ``per`` times the stride."""
    return [(s * per, 1) if d == 1 else (s, d * per) for s, d in pairs]


def _swizzles(code: str, per: int) -> str:
    """Swizzle<B,M,S> (C++), Swizzle(B, M, S) (Mojo), make_swizzle(B, M, S) (CuTe DSL) with M + log2(per)."""
    up = per.bit_length() - 1

    def base(m: re.Match) -> str:
        return f"{m[1]}{m[2]}{m[3]}{int(m[4]) + up}{m[5]}"

    return re.sub(r"(Swizzle<|Swizzle\(|make_swizzle\()(\d+)(,\s*)(\d+)(,\s*-?\d+[>)])", base, code)


def _cpp_layouts(code: str, per: int) -> str:
    """Each cute::Layout<Shape, Stride> with its leaves doubled (its Int<n> in order: shape, then stride)."""
    from .order import _args

    out, i = [], 0
    for m in re.finditer(r"cute::Layout<", code):
        if m.start() < i:
            continue
        args, end = _args(code, m.end() - 1, "<", ">")
        shape = [int(n) for n in re.findall(r"cute::Int<(\d+)>", args[0])]
        stride = [int(n) for n in re.findall(r"cute::Int<(\d+)>", args[1])]
        pairs = _doubled(list(zip(shape, stride, strict=True)), per)
        shape_text = _ints(args[0], [s for s, _ in pairs])
        stride_text = _ints(args[1], [d for _, d in pairs])
        out.append(code[i:m.start()] + f"cute::Layout<{shape_text},{stride_text}>")
        i = end
    return "".join(out) + code[i:]


def _ints(text: str, values: list[int]) -> str:
    """``text`` with its cute::Int<n> replaced by ``values``, in order."""
    given = iter(values)
    return re.sub(r"cute::Int<\d+>", lambda _: f"cute::Int<{next(given)}>", text)


def _python_layouts(code: str, call: str, per: int, render: Callable[[object], str]) -> str:
    """Each ``call(shape, stride)`` (tuples, or Mojo's IntTuple) with its leaves doubled."""
    from .order import _args

    out, i = [], 0
    for m in re.finditer(re.escape(call) + r"\(", code):
        if m.start() < i:
            continue
        args, end = _args(code, m.end() - 1, "(", ")")
        if len(args) != 2:
            continue
        shape_text, stride_text = (a.strip() for a in args)
        keyword = "stride=" if stride_text.startswith("stride=") else ""
        shape = ast.literal_eval(shape_text.replace("IntTuple", ""))
        stride = ast.literal_eval(stride_text[len(keyword):].replace("IntTuple", ""))
        pairs = _doubled(list(_leaves(shape, stride)), per)
        new_shape = _rebuild(shape, iter(s for s, _ in pairs))
        new_stride = _rebuild(stride, iter(d for _, d in pairs))
        out.append(code[i:m.start()] + f"{call}({render(new_shape)}, {keyword}{render(new_stride)})")
        i = end
    return "".join(out) + code[i:]


def _rebuild(tree, values: Iterator[int]):
    return tuple(_rebuild(t, values) for t in tree) if isinstance(tree, tuple) else next(values)


def _tuple(tree) -> str:
    return f"({', '.join(_tuple(t) for t in tree)})" if isinstance(tree, tuple) else str(tree)


def _int_tuple(tree) -> str:
    return f"IntTuple({', '.join(_int_tuple(t) for t in tree)})" if isinstance(tree, tuple) else str(tree)


# --- each target ---------------------------------------------------------------------------------


def _cuda(problem: Problem, layout: Layout, snippet: Snippet) -> str:
    tile = problem.tile
    per = 8 // tile.elem_bits
    declared = re.search(r"^(.*)int swizzle_phys\(int r, int c\) \{$", snippet.code, re.M)
    byte, part = _byte_of(tile)
    if not snippet.expressible or declared is None:
        return f"{element_note(tile, '//')}\n{_formula(tile, '//')}"
    return (f"{element_note(tile, '//')} swizzle_phys_elem(r, c); the element's byte is\n"
            f"// smem[swizzle_phys_elem(r, c) / {per}], its part {part} of that byte as the kernel packs them\n"
            f"{declared[1]}int swizzle_phys_elem(int r, int c) {{\n"
            f"  return {per} * swizzle_phys({byte}) + {part};\n}}")


def _cute(problem: Problem, layout: Layout, snippet: Snippet) -> str:
    tile = problem.tile
    per = 8 // tile.elem_bits
    if not snippet.expressible:
        return f"{element_note(tile, '//')}\n{_formula(tile, '//')}"
    code = "\n".join(line for line in snippet.code.splitlines()[1:]
                     if not line.lstrip().startswith("//") or _commented_code(line))
    code = re.sub(r"using T = [^;]*;.*", f"using T4 = cutlass::float_e2m1_t;  // your 4-bit type: {TYPES}", code)
    code = code.replace("<T>", "<T4>")
    code = re.sub(r"\bsmem_layout\b", "smem_layout_4bit", code)
    code = re.sub(r"\bSmemSwizzle(\d*)\b", r"SmemSwizzle\1_4bit", code)
    code = _swizzles(_cpp_layouts(code, per), per)
    # tile_to_shape's (rows, cols) of the atom over the 4-bit type: the packed dimension counts elements now
    # (the columns of a K-major atom's tile, the rows of an MN-major one's: --order col)
    code = re.sub(r"(tile_to_shape\(cute::GMMA::Layout_(K|MN)_\w+<T4>\{\},\s*cute::Shape<cute::Int<)(\d+)(>, cute::Int<)"
                  r"(\d+)(>>)", lambda m: f"{m[1]}{int(m[3]) * (per if m[2] == 'MN' else 1)}{m[4]}"
                                      f"{int(m[5]) * (per if m[2] == 'K' else 1)}{m[6]}", code)
    return (f"{element_note(tile, '//')} {_rule('Swizzle<B,M+1,S>')}; CuTe indexes a tensor of a 4-bit type by "
            f"element:\n"
            f"{code}")


def _rule(swizzle: str) -> str:
    return (f"the same layout with every offset doubled (the byte swizzle as {swizzle}, the unit-stride extent "
            f"and every other stride x2)")


def _commented_code(line: str) -> bool:
    """A declaration given commented out (CuTe's element-level alternative of a GMMA atom)."""
    text = line.lstrip()[2:].lstrip()
    return text.startswith(("auto smem_layout", "cute::"))


def _cute_dsl(problem: Problem, layout: Layout, snippet: Snippet) -> str:
    tile = problem.tile
    per = 8 // tile.elem_bits
    if not snippet.expressible:
        return f"{element_note(tile, '#')}\n{_formula(tile, '#')}"
    code = "\n".join(line for line in _code_lines(snippet.code, "#").splitlines() if line.startswith("smem_layout"))
    code = code.replace("smem_layout =", "smem_layout_4bit =")
    code = _swizzles(_python_layouts(code, "cute.make_layout", per, _tuple), per)
    return f"{element_note(tile, '#')} {_rule('make_swizzle(B, M+1, S)')}:\n{code}"


def _mojo(problem: Problem, layout: Layout, snippet: Snippet) -> str:
    tile = problem.tile
    per = 8 // tile.elem_bits
    if not snippet.expressible:
        return f"{element_note(tile, '#')}\n{_formula(tile, '#')}"
    code = "\n".join(line for line in _code_lines(snippet.code, "#").splitlines() if line.startswith("comptime"))
    code = re.sub(r"\b(smem_swizzle|smem_layout|panel_layout)\b", r"\1_4bit", code)
    code = _swizzles(_python_layouts(code, "Layout", per, _int_tuple), per)
    found = swizzled_rows(tile, layout)
    where = ""
    if found is not None and "smem_swizzle_4bit" in code and "panel_layout_4bit" not in code:
        major, minor = ("c", "r") if tile.col_major else ("r", "c")
        where = f"\n# element (r, c) is at smem_swizzle_4bit({major} * {found[0] * per} + {minor})"
    elif "panel_layout_4bit" in code:
        where = "\n# element (r, c) is at smem_swizzle_4bit(lay(IntTuple(r, c))), with var lay = materialize[panel_layout_4bit]()"
    return f"{element_note(tile, '#')} {_rule('Swizzle(B, M+1, S)')}:\n{code}{where}"


def _triton(problem: Problem, layout: Layout, snippet: Snippet) -> str:
    tile = problem.tile
    return (f"# {tile.elem_bits}-bit elements: Triton holds them packed, {8 // tile.elem_bits} a byte, in an 8-bit "
            f"tensor (tl.dot_scaled's e2m1 operands are uint8), so the encoding above is of that packed tensor, "
            f"{' x '.join(map(str, tile.logical_shape))}, as written: element (r, c) is its byte ({_byte_of(tile)[0]})")


def _tma(problem: Problem, layout: Layout, snippet: Snippet) -> str:
    tile = problem.tile
    if not snippet.expressible:
        return ""
    per = 8 // tile.elem_bits
    box = re.search(r"box inner extent:? (\d+) elements|box: (\d+) elements", snippet.code)
    inner = int(box[1] or box[2]) if box else tile.cols
    return (f"// {tile.elem_bits}-bit elements, packed: tensorDataType = CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B (cuda.h, "
            f"CUDA 12.8+: 16 x U4 in 8 bytes, no gaps), whose globalDim[0] and boxDim[0] count elements: boxDim[0] = "
            f"{inner * per} elements = the {inner} B above, and the swizzle moves those bytes as written "
            f"(16U4_ALIGN16B is the padded image: --dtype b4x16_p64)")


def _umma(problem: Problem, layout: Layout, snippet: Snippet) -> str:
    tile = problem.tile
    per = 8 // tile.elem_bits
    if not snippet.expressible:
        return ""
    from .umma import ATOMS, canonical_of

    major, mode = canonical_of(tile, layout)[0]  # the form the snippet above gives
    atom = ATOMS[major, mode][4]
    # the tile's columns are the elements: K-major (MN = rows, K = columns), MN-major (MN = columns, K = rows)
    mn, k = (tile.rows, tile.cols * per) if major == "K" else (tile.cols * per, tile.rows)
    return (f"// {tile.elem_bits}-bit elements, packed {per} a byte (tcgen05.mma kind::mxf4 / kind::mxf4nvf4; "
            f"kind::f8f6f4 reads 4-bit operands padded: --dtype b4x16_p64): the descriptor above as it is (its "
            f"addresses and strides are bytes); in CuTe over the 4-bit type, the same atom on twice the columns:\n"
            f"using T4 = cutlass::float_e2m1_t;  // your 4-bit type: {TYPES}\n"
            f"auto smem_layout_4bit = cute::tile_to_shape(cute::UMMA::{atom}<T4>{{}},\n"
            f"    cute::Shape<cute::Int<{mn}>, cute::Int<{k}>>{{}});  // (MN, K) in elements")


_TAILS: dict[str, Callable[[Problem, Layout, Snippet], str]] = {
    "cuda": _cuda, "cute": _cute, "cute-dsl": _cute_dsl, "mojo": _mojo, "triton": _triton, "tma": _tma,
    "umma": _umma}
