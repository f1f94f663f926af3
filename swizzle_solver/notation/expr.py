"""`expr:` and `bytes:`: a layout written as the kernel's own C index arithmetic, and the one small
expression tree every notation builds (cute:, triton: and bytes:Swizzle<...> are trees of the same
nodes), evaluated with numpy over the whole tile and printed back as C.

Grammar (DESIGN.md section 10): integers (decimal, or hex with 0x), ``r``, ``c``, the binary
operators ``* / % + - << >> & ^ |`` with C's precedence (in that order, tightest first; ``<<`` and
``>>`` share a level) and left associativity, the unary ``- + ~``, and parentheses. ``/`` and ``%``
are the floor division and remainder of non-negative values (C's and Python's agree there; a
negative operand is an error, as is a division by zero or a shift by a negative amount). Nothing
else: no names, calls, casts or assignments. The parser is precedence climbing, one pass over the
tokens; the nesting depth, the number of operators, the text's length and every literal are
bounded, so hostile text is refused in time (tests/test_notations.py).

No text is ever handed to Python's ``eval``: a tree is walked by ``evaluate`` (numpy, int64, every
operation checked for overflow) and by ``c_text``.
"""
from __future__ import annotations

import re

import numpy as np

from ..model import Tile, is_pow2, log2
from ..value import Value

ORDER = 0  # this notation's place in the lists of notations (the schema's enum, messages)
WHAT = "element offsets"  # what its text gives, in the report's words

MAX_TEXT = 4000  # characters of one expression: a layout is a line of C, not a program
MAX_OPERATORS = 256  # each is one numpy pass over the tile (up to 2^19 elements)
MAX_DEPTH = 64  # nested parentheses and unary operators
MAX_LITERAL = 1 << 40  # far above any shared-memory offset; keeps int64 arithmetic exact
LIMIT = 1 << 62  # |every intermediate value| stays below this (checked): int64 never wraps


class NotationError(ValueError):
    """Text that is not a layout of its notation, or a layout undefined on the tile: one sentence,
    ``column`` (1-based) where the text is wrong, when known."""

    def __init__(self, message: str, column: int | None = None):
        super().__init__(f"column {column}: {message}" if column else message)
        self.message, self.column = message, column

    def shifted(self, by: int) -> NotationError:
        """The same error with its column counted from ``by`` characters earlier (the whole text)."""
        return NotationError(self.message, None if self.column is None else self.column + by)


# A tree node: ("num", value) | ("r",) | ("c",) | ("un", op, a, col) | ("bin", op, a, b, col).
# ``col`` is the operator's column in the user's text (0 for a node a notation made).
Node = tuple

R: Node = ("r",)
C: Node = ("c",)


def num(value: int) -> Node:
    return ("num", int(value))


def bin_(op: str, a: Node, b: Node, col: int = 0) -> Node:
    return ("bin", op, a, b, col)


def add(a: Node, b: Node) -> Node:
    return bin_("+", a, b)


def mul(a: Node, b: Node) -> Node:
    return bin_("*", a, b)


def xor(a: Node, b: Node) -> Node:
    return bin_("^", a, b)


def shr(a: Node, k: int) -> Node:
    return bin_(">>", a, num(k))


def shl(a: Node, k: int) -> Node:
    return bin_("<<", a, num(k))


def band(a: Node, k: int) -> Node:
    return bin_("&", a, num(k))


def div(a: Node, k: int) -> Node:
    return bin_("/", a, num(k))


def mod(a: Node, k: int) -> Node:
    return bin_("%", a, num(k))


def swizzle_node(x: Node, B: int, M: int, S: int) -> Node:
    """CuTe's Swizzle<B,M,S> of the tree ``x``: x ^ shiftr(x & yyy_msk, S) (cute/swizzle.hpp)."""
    if B == 0:
        return x
    mask = (1 << B) - 1
    if S >= 0:
        return xor(x, band(shr(x, S), mask << M))
    return xor(x, shl(band(x, mask << M), -S))


def linear(*terms: tuple[Node, int]) -> Node:
    """sum of node * factor, dropping zero factors and factors of one."""
    out: Node | None = None
    for node, factor in terms:
        if factor == 0:
            continue
        term = node if factor == 1 else mul(node, num(factor))
        out = term if out is None else add(out, term)
    return out if out is not None else num(0)


# --- parsing ---------------------------------------------------------------------------------

_TOKEN = r"(?a)(0[xX][0-9a-fA-F]+|\d+)|([A-Za-z_]\w*)|(<<|>>|[-+*/%&|^~()])"

# sizeof of the types a kernel's index arithmetic names (CUDA's vector types: int4 is 16 bytes)
SIZEOF = {
    **dict.fromkeys(("char", "signed char", "unsigned char", "int8_t", "uint8_t", "bool", "__nv_fp8_e4m3",
                     "__nv_fp8_e5m2", "float_e4m3_t", "float_e5m2_t", "char1", "uchar1"), 1),
    **dict.fromkeys(("short", "unsigned short", "int16_t", "uint16_t", "half", "__half", "__nv_bfloat16",
                     "half_t", "bfloat16_t", "nv_bfloat16", "char2", "uchar2", "short1", "ushort1"), 2),
    **dict.fromkeys(("int", "unsigned", "unsigned int", "signed", "int32_t", "uint32_t", "float", "half2",
                     "__half2", "__nv_bfloat162", "nv_bfloat162", "tfloat32_t", "char4", "uchar4", "short2",
                     "ushort2", "int1", "uint1", "float1"), 4),
    **dict.fromkeys(("long", "unsigned long", "long long", "unsigned long long", "int64_t", "uint64_t",
                     "size_t", "double", "float2", "int2", "uint2", "short4", "ushort4", "double1", "long1",
                     "ulong1", "longlong1"), 8),
    **dict.fromkeys(("float4", "int4", "uint4", "double2", "long2", "ulong2", "longlong2"), 16),
}
_TYPE_WORDS = {w for name in SIZEOF for w in name.split()}
# casts that keep an index's value: to the integer types (a cast to float is not index arithmetic)
INTEGER_TYPES = {"char", "signed char", "unsigned char", "int8_t", "uint8_t", "short", "unsigned short",
                 "int16_t", "uint16_t", "int", "unsigned", "unsigned int", "signed", "int32_t", "uint32_t", "long",
                 "unsigned long", "long long", "unsigned long long", "int64_t", "uint64_t", "size_t"}
BINARY = {"*": 10, "/": 10, "%": 10, "+": 9, "-": 9, "<<": 8, ">>": 8, "&": 5, "^": 4, "|": 3}


def scan(text: str, pattern: str, window: int, what: str):
    """(match, 1-based column) of each token of ``text`` (blanks between them skipped), the tokens of
    every notation's reader: ``pattern`` is tried on at most ``window`` characters from each start, so
    the reader is linear in its input; a character no token starts with is "not part of ``what``"."""
    i, n = 0, len(text)
    while i < n:
        if text[i].isspace():
            i += 1
            continue
        m = re.match(pattern, text[i:i + window])
        if not m:
            raise NotationError(f"{text[i]!r} is not part of {what}", i + 1)
        yield m, i + 1
        i += m.end()


def tokens(text: str) -> list[tuple[str, str, int]]:
    """(kind, text, 1-based column) of each token; kind "num", "name" or "op"."""
    out = []
    for m, col in scan(text, _TOKEN, 24, "the grammar (integers, r, c, + - * / % << >> & | ^ ~ and parentheses)"):
        # a token is short: nothing reads past 24 characters
        kind = "num" if m[1] else "name" if m[2] else "op"
        after = col - 1 + 24
        if kind != "op" and m.end() == 24 and after < len(text) and (text[after].isalnum() or text[after] == "_"):
            raise NotationError(f"{text[col - 1:after]}... is too long for a number or a name", col)
        out.append((kind, m[0], col))
    return out


def parse(text: str) -> Node:
    """The tree of an expression in r and c; NotationError (with the column) for anything else."""
    if len(text) > MAX_TEXT:
        raise NotationError(f"the expression has {len(text)} characters, above the limit of {MAX_TEXT}: "
                            f"write the layout's index arithmetic, not a table")
    toks = tokens(text)
    if not toks:
        raise NotationError("the expression is empty: write the offset of element (r, c), e.g. r * 64 + c")
    if sum(kind == "op" and value not in "()" for kind, value, _ in toks) > MAX_OPERATORS:
        raise NotationError(f"the expression has more than {MAX_OPERATORS} operators")
    parser = _Parser(toks, len(text))
    node = parser.expression(0, 0)
    if parser.i < len(toks):
        _, value, col = toks[parser.i]
        raise NotationError(f"unexpected {value!r} after a complete expression", col)
    return node


def literal(value: str, col: int) -> int:
    """A decimal or 0x hex literal, below MAX_LITERAL; no octal (C reads 010 as eight)."""
    if value[:2] in ("0x", "0X"):
        n = int(value, 16)
    elif len(value) > 1 and value[0] == "0":
        raise NotationError(f"{value} has a leading zero (C reads it as octal): write it without", col)
    else:
        n = int(value)
    if n >= MAX_LITERAL:
        raise NotationError(f"the number {value} is too large (at most {MAX_LITERAL - 1})", col)
    return n


class _Parser:
    def __init__(self, toks: list[tuple[str, str, int]], end: int):
        self.toks, self.i, self.end = toks, 0, end + 1

    def peek(self) -> tuple[str, str, int] | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def expression(self, min_prec: int, depth: int) -> Node:
        """Precedence climbing: operands joined by binary operators of precedence >= min_prec."""
        left = self.unary(depth)
        while (tok := self.peek()) is not None and tok[0] == "op" and BINARY.get(tok[1], -1) >= min_prec:
            op, col = tok[1], tok[2]
            self.i += 1
            right = self.expression(BINARY[op] + 1, depth + 1)  # left-associative
            left = bin_(op, left, right, col)
        return left

    def unary(self, depth: int) -> Node:
        tok = self.peek()
        if depth > MAX_DEPTH:
            raise NotationError(f"nested more than {MAX_DEPTH} levels deep", tok[2] if tok else self.end)
        if tok is None:
            raise NotationError("the expression ends where an operand (a number, r, c or '(') is expected", self.end)
        kind, value, col = tok
        self.i += 1
        if kind == "num":
            return num(literal(value, col))
        if kind == "name":
            return self.name(value, col)
        if value in ("-", "+", "~"):
            return ("un", value, self.unary(depth + 1), col)
        if value == "(" and self.type_name() is not None:  # a C cast: (int) x
            return self.cast(col, depth)
        if value == "(":
            inner = self.expression(0, depth + 1)
            close = self.peek()
            if close is None or close[1] != ")":
                raise NotationError("'(' is not closed", close[2] if close else self.end)
            self.i += 1
            return inner
        raise NotationError(f"{value!r} where an operand (a number, r, c or '(') is expected", col)


    def name(self, value: str, col: int) -> Node:
        """A name operand: r, c, or sizeof(T)."""
        if value in ("r", "c"):
            return R if value == "r" else C
        if value == "sizeof":
            return num(self.sizeof(col))
        raise NotationError(f"unknown name {value!r}: only r (the row) and c (the column) may appear "
                            f"(a template constant: give -D {value}=VALUE)", col)

    def type_name(self) -> str | None:
        """The type name (one or more words: ``unsigned int``) that starts here and is closed by ')',
        or None; the position is kept."""
        j, words = self.i, []
        while j < len(self.toks) and self.toks[j][0] == "name" and self.toks[j][1] in _TYPE_WORDS:
            words.append(self.toks[j][1])
            j += 1
        if words and j < len(self.toks) and self.toks[j][1] == ")":
            return " ".join(words)
        return None

    def closed_type(self, col: int) -> str:
        """A type name and its ')' (after a '('): the name."""
        name = self.type_name()
        if name is None or name not in SIZEOF:
            raise NotationError("expected a type known here (int, float, half2, float4, ...) and ')'", col)
        self.i += len(name.split()) + 1
        return name

    def sizeof(self, col: int) -> int:
        """``sizeof(T)`` of a type SIZEOF knows: its bytes."""
        tok = self.peek()
        if tok is None or tok[1] != "(":
            raise NotationError("sizeof takes a type in parentheses: sizeof(half2)", col)
        self.i += 1
        return SIZEOF[self.closed_type(col)]

    def cast(self, col: int, depth: int) -> Node:
        """``(int) x``: a cast to an integer type keeps an index's value (below 2^31, as the evaluation
        checks no value reaches 2^62); a cast to a floating type is refused."""
        name = self.closed_type(col)
        if name not in INTEGER_TYPES:
            raise NotationError(f"a cast to {name} is not index arithmetic: cast to an integer type", col)
        return self.unary(depth + 1)


# --- evaluation ------------------------------------------------------------------------------


def evaluate(node: Node, r: np.ndarray, c: np.ndarray, where: str = "") -> np.ndarray:
    """The node's value at every (r, c) (int64 arrays that broadcast); NotationError where C would
    be undefined or differ from the value: a division by zero, a negative operand of / or %, a
    shift by a negative amount or by 62 or more, a value of 2^62 or more. ``where`` ends the
    message (e.g. " in the CuTe layout").

    A tree is a DAG: a swizzle uses its operand twice (``x ^ ((x >> S) & mask)``), so nested
    swizzles share subtrees, 2^n paths for n levels. Each node is evaluated once (memo by node
    identity, for this call), so the time is linear in the number of distinct nodes, which is linear
    in the text a notation was read from."""
    return _evaluate(node, r, c, where, {})


def _evaluate(node: Node, r: np.ndarray, c: np.ndarray, where: str, memo: dict[int, np.ndarray]) -> np.ndarray:
    kind = node[0]
    if kind == "num":
        return np.asarray(node[1], dtype=np.int64)
    if kind == "r":
        return r
    if kind == "c":
        return c
    done = memo.get(id(node))
    if done is None:
        done = memo[id(node)] = _operation(node, r, c, where, memo)
    return done


def _operation(node: Node, r: np.ndarray, c: np.ndarray, where: str, memo: dict[int, np.ndarray]) -> np.ndarray:
    """The value of a unary or binary node (evaluate), its operands through ``memo``."""
    if node[0] == "un":
        a = _evaluate(node[2], r, c, where, memo)
        return -a if node[1] == "-" else ~a if node[1] == "~" else a
    op, col = node[1], node[4]
    a, b = _evaluate(node[2], r, c, where, memo), _evaluate(node[3], r, c, where, memo)

    def refuse(bad, what: str) -> None:
        bad = np.asarray(bad)
        if bad.any():
            shape = np.broadcast(r, c).shape
            first = np.unravel_index(int(np.argmax(np.broadcast_to(bad, shape))), shape)
            row, column = (int(np.broadcast_to(x, shape)[first]) for x in (r, c))
            raise NotationError(f"{what} at element (r, c) = ({row}, {column}){where}", col or None)

    return _binary(op, a, b, refuse)


def _binary(op: str, a: np.ndarray, b: np.ndarray, refuse) -> np.ndarray:
    """``a op b`` as C computes it, ``refuse(where, why)`` called first where C's value would be
    undefined or differ (evaluate)."""
    if op in "+-*":
        wide = np.float64(1) * a
        refuse(np.abs(wide + b if op == "+" else wide - b if op == "-" else wide * b) >= LIMIT,
               f"'{op}' reaches 2^62 or more")
        return a + b if op == "+" else a - b if op == "-" else a * b
    if op in ("<<", ">>"):
        refuse(b < 0, f"'{op}' shifts by a negative amount")
        refuse(b >= 62, f"'{op}' shifts by 62 bits or more")
        if op == ">>":
            return a >> b
        refuse(np.abs(np.float64(1) * a) * np.exp2(b) >= LIMIT, "'<<' reaches 2^62 or more")
        return a << b
    if op in "/%":
        refuse(b == 0, f"'{op}' divides by zero")
        refuse((a < 0) | (b < 0), f"'{op}' has a negative operand (C truncates where Python floors: "
                                  f"write / and % of non-negative values)")
        return a // b if op == "/" else a % b
    return a & b if op == "&" else a ^ b if op == "^" else a | b


# --- printing as C ---------------------------------------------------------------------------

_ASSOCIATIVE = {"+", "*", "&", "^", "|"}


class _NoForm(Exception):
    pass


def c_text(node: Node, r: np.ndarray | None = None, c: np.ndarray | None = None, limit: int = 1 << 16) -> str | None:
    """The node as a C expression with only integer literals, r, c, parentheses and
    ``+ - * << >> & ^ |`` (so it evaluates the same in C, C++ and Python): ``/`` and ``%`` by a
    power of two become ``>>`` and ``&``, by another constant a multiply and shift that is exact over
    the values the tile gives (``r``, ``c``: the tile's coordinates, to know them), ``~x`` becomes
    ``x ^ -1``. None when there is no such form (a division by a variable), or it would be longer
    than ``limit`` characters."""
    try:
        return _Printer(r, c, limit, keep_division=False).text(node)[0]
    except _NoForm:
        return None


def render(node: Node) -> str:
    """The node as the user would write it (``/``, ``%`` and ``~`` kept), parenthesised where an
    operator's precedence is not obvious: the name an ``expr:`` layout prints."""
    return _Printer(None, None, 1 << 30, keep_division=True).text(node)[0]


class _Printer:
    def __init__(self, r, c, limit: int, keep_division: bool):
        self.r, self.c, self.budget, self.keep = r, c, limit, keep_division

    def text(self, node: Node) -> tuple[str, str | None]:
        """(C text, its top-level operator: None for an operand that needs no parentheses)."""
        out = self._text(node)
        self.budget -= len(out[0])
        if self.budget < 0:
            raise _NoForm
        return out

    def _text(self, node: Node) -> tuple[str, str | None]:
        kind = node[0]
        if kind == "num":
            return str(node[1]), None
        if kind in ("r", "c"):
            return kind, None
        if kind == "un":
            inner, top = self.text(node[2])
            inner = inner if top is None else f"({inner})"
            if node[1] == "~":
                return (f"~{inner}", None) if self.keep else (f"({inner} ^ -1)", None)
            return (inner, None) if node[1] == "+" else (f"-{inner}", None)
        op, a, b = node[1], node[2], node[3]
        if op in "/%" and not self.keep:
            return self._division(op, a, b)
        return f"{self.operand(a, op, True)} {op} {self.operand(b, op, False)}", op

    def operand(self, node: Node, parent: str, left: bool) -> str:
        """A child, parenthesised unless it reads plainly: a product (or quotient) under a sum, or
        the same operator on the left (left associativity) or an associative one on either side.
        Anything else is parenthesised even where C would not need it (``a & (b + c)``,
        ``(a << 3) + b``), as compilers warn and readers misread."""
        text, top = self.text(node)
        if top is None:
            return text
        plain = (top == parent and (left or top in _ASSOCIATIVE)) or (top in "*/%" and parent in "+-"
                                                                      and (left or top == "*"))
        return text if plain else f"({text})"

    def _division(self, op: str, a: Node, b: Node) -> tuple[str, str | None]:
        if b[0] != "num":
            raise _NoForm  # a division by a variable has no form in these operators
        d = b[1]
        if is_pow2(d):
            k = log2(d)
            if op == "/":
                return (f"{self.operand(a, '>>', True)} >> {k}", ">>") if k else self.text(a)
            return f"{self.operand(a, '&', True)} & {d - 1}", "&"
        magic = _magic(a, d, self.r, self.c)
        if magic is None:
            raise _NoForm
        m, s = magic
        x = self.operand(a, "*", True)
        quotient = f"({x} * {m}) >> {s}"
        return (quotient, ">>") if op == "/" else (f"{x} - ((({x} * {m}) >> {s}) * {d})", "-")


def _magic(a: Node, d: int, r, c) -> tuple[int, int] | None:
    """(m, s) with x / d == (x * m) >> s for every value x of ``a`` over the tile (a multiply and
    shift, as compilers divide by a constant), every product below 2^31 (C's int); None when the
    tile is not known or no such pair fits."""
    if r is None or c is None:
        return None
    values = np.asarray(evaluate(a, r, c))
    top = int(values.max()) if values.size else 0
    if top < 0 or int(values.min()) < 0:
        return None
    for s in range(max(1, top.bit_length()), 31):
        m = -(-(1 << s) // d)
        if top * m >= 1 << 31:
            return None
        if _exact_below(top, d, m, s):
            return m, s
    return None


def _exact_below(top: int, d: int, m: int, s: int) -> bool:
    """Whether (x * m) >> s == x // d for every 0 <= x <= top, m = ceil(2^s / d), in O(1) (no table
    of the values: its size would be the offset's value, not the tile's). With x = q d + t (t < d) and
    m d = 2^s + e, x m = q 2^s + (q e + t m), so the two agree exactly when q e + t m < 2^s; that
    sum grows with q and t, so the largest is at x = top (q = top // d, t = top % d) or at the last
    x before it with t = d - 1 (q = top // d - 1)."""
    e = m * d - (1 << s)
    q, t = divmod(top, d)
    worst = q * e + t * m
    if q >= 1:
        worst = max(worst, (q - 1) * e + (d - 1) * m)
    return worst < 1 << s


# --- the `expr:` notation: the tree's value over the tile -----------------------------------------


class Expression(Value):
    """``expr:`` (element offsets) or ``bytes:`` (byte offsets): one expression tree."""

    notation: str
    node: tuple
    as_written = True

    @property
    def unit(self) -> str:
        return "byte" if self.notation == "bytes" else "element"

    def evaluate(self, tile: Tile) -> tuple[np.ndarray, object, str | None]:
        r, c = coordinates(tile)
        values = evaluate(self.node, r, c)
        return values, self.node, misaligned(tile, values) if self.unit == "byte" else None


def read(body: str, base=None, allow_outside: bool = True) -> Expression:
    """``expr: E``: element offsets as a C expression in r and c."""
    return Expression("expr", parse(body))


def coordinates(tile: Tile) -> tuple[np.ndarray, np.ndarray]:
    """r (a column of rows) and c (a row of columns), int64, broadcasting to the tile."""
    return np.arange(tile.rows, dtype=np.int64)[:, None], np.arange(tile.cols, dtype=np.int64)[None, :]


def misaligned(tile: Tile, byte_offsets: np.ndarray) -> str | None:
    """A byte offset that is not a multiple of the element size: the element would straddle two."""
    e = tile.elem_bytes
    bad = np.broadcast_to(np.asarray(byte_offsets) % e != 0, (tile.rows, tile.cols))
    if not bad.any():
        return None
    r, c = np.unravel_index(int(np.argmax(bad)), bad.shape)
    value = int(np.broadcast_to(byte_offsets, bad.shape)[r, c])
    return f"element ({r}, {c}) is at byte {value}, not a multiple of its {e} bytes (it would straddle two elements)"
