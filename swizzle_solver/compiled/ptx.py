"""A small line-oriented PTX parser: what the emulator (emulator.py) needs, nothing more.

PTX is a sequence of statements: directives (``.version``, ``.target``, ``.file``, ``.loc``, the
``.entry``/``.func`` headers with their ``.param`` lists and ``.maxntid``/``.reqntid``), variable
declarations (``.shared``/``.global``/``.const``/``.local``, with initializers), labels (``NAME:``)
and instructions (``[@[!]%p] opcode.mod.mod operands;``). Statements end at ``;``; the header and
line directives (``.loc``, ``.file``, ...) end at a newline or at the ``{`` of a body. ``{``/``}``
open and close bodies and inline-asm scopes (their registers are read as function-wide names).

Operands: registers (``%r1``, or a scope's bare names), special registers (``%tid.x``), integer
and float literals (``0f3F800000``), symbols, labels, addresses ``[base+off]``, vectors ``{a, b}``,
``_`` (a sink) and ``!%p`` (a negated predicate).
"""
from __future__ import annotations

import re

import numpy as np

from ..model import InputError

MAX_STATEMENTS = 200_000  # statements of one file (counted by their ';' before parsing: refused at once)
MAX_DEPTH = 64  # nested { } scopes
MAX_STATEMENT_CHARS = 1 << 22  # one statement: a line or a few, but an initialized table is one (118 KB in a recorded probe)
MAX_OPERAND_DEPTH = 4  # brackets inside brackets in one operand ([%r1], {%r1, %r2}: 1)

SPECIAL = re.compile(r"%(tid|ntid|ctaid|nctaid|laneid|warpid|nwarpid|smid|nsmid|gridid|clock|clock64|globaltimer"
                     r"|lanemask_\w+|dynamic_smem_size|total_smem_size|aggr_smem_size|clusterid|nclusterid"
                     r"|cluster_ctaid|cluster_nctaid|cluster_ctarank|cluster_nctarank|is_explicit_cluster"
                     r"|envreg\d+|pm\d+|globaltimer_lo|globaltimer_hi|reserved_smem_offset_\w+)(\.[xyz])?")

TYPE_BYTES = {"b8": 1, "u8": 1, "s8": 1, "b16": 2, "u16": 2, "s16": 2, "f16": 2, "bf16": 2, "e4m3x2": 2,
              "b32": 4, "u32": 4, "s32": 4, "f32": 4, "f16x2": 4, "bf16x2": 4, "tf32": 4,
              "b64": 8, "u64": 8, "s64": 8, "f64": 8, "b128": 16, "pred": 1, "e4m3": 1, "e5m2": 1}


class Operand:
    """One operand: ``kind`` in reg, sreg, imm, fimm, sym, label, addr, vec, sink, pair; ``name``
    (reg/sreg/sym/label), ``value`` (imm: int; addr: the offset), ``base`` (addr: an Operand or
    None), ``items`` (vec, pair: Operands), ``negate`` (a ``!%p``)."""

    __slots__ = ("kind", "name", "value", "base", "items", "negate")

    def __init__(self, kind: str, name: str = "", value: int = 0, base: Operand | None = None,
                 items: tuple[Operand, ...] = (), negate: bool = False) -> None:
        self.kind, self.name, self.value, self.base, self.items, self.negate = kind, name, value, base, items, negate

    def __repr__(self) -> str:
        return f"Operand({self.kind}, {self.name or self.value}{', ' + repr(self.items) if self.items else ''})"


class Instruction:
    """One instruction: ``opcode`` (``ld``), ``mods`` (``("shared", "v4", "f32")``), operands, the
    guard (predicate register, negated), its line in the PTX file and its source (file number,
    line) from the last ``.loc`` (``Module.files`` names the file: ``.file`` may come last)."""

    __slots__ = ("opcode", "mods", "operands", "guard", "line", "source", "text")

    def __init__(self, opcode: str, mods: tuple[str, ...], operands: list[Operand], guard: tuple[str, bool] | None,
                 line: int, source: tuple[int, int] | None, text: str) -> None:
        self.opcode, self.mods, self.operands, self.guard = opcode, mods, operands, guard
        self.line, self.source, self.text = line, source, text

    def has(self, *mods: str) -> bool:
        return any(m in self.mods for m in mods)


class Variable:
    """A ``.shared``/``.global``/``.const``/``.local`` variable: its size in bytes (0: extern, unsized),
    alignment, and initial bytes (``.global``/``.const`` initializers; None: uninitialized)."""

    __slots__ = ("space", "name", "size", "align", "data", "extern", "line")

    def __init__(self, space: str, name: str, size: int, align: int, data: bytes | None, extern: bool,
                 line: int) -> None:
        self.space, self.name, self.size, self.align, self.data, self.extern = space, name, size, align, data, extern
        self.line = line


class Function:
    """An ``.entry`` (a kernel) or a ``.func``: parameters, launch bounds, body."""

    def __init__(self, name: str, entry: bool, params: list[tuple[str, str]], line: int) -> None:
        self.name, self.entry, self.params, self.line = name, entry, params, line
        self.reqntid: tuple[int, ...] | None = None
        self.maxntid: tuple[int, ...] | None = None
        self.code: list[Instruction] = []
        self.labels: dict[str, int] = {}
        self.variables: dict[str, Variable] = {}  # declared in the body (nvcc's demoted __shared__ arrays)
        self.returns: list[str] = []


class Module:
    def __init__(self) -> None:
        self.version = ""
        self.target = ""
        self.files: dict[int, str] = {}
        self.variables: dict[str, Variable] = {}
        self.functions: dict[str, Function] = {}


# --- statements ---------------------------------------------------------------------------------

_LINE_DIRECTIVES = (".version", ".target", ".address_size", ".file", ".loc", ".maxntid", ".reqntid",
                    ".minnctapersm", ".maxnctapersm", ".maxnreg", ".section", ".explicitcluster",
                    ".reqnctapercluster", ".maxclusterrank", ".noreturn", ".pragma", ".alias")


def _strip_comments(text: str) -> str:
    """Comments replaced by spaces (newlines kept, so line numbers hold); strings left alone."""
    out, i, n = [], 0, len(text)
    pattern = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:[^"\\\n]|\\.)*"', re.S)
    for m in pattern.finditer(text):
        out.append(text[i:m.start()])
        s = m.group()
        out.append(s if s.startswith('"') else re.sub(r"[^\n]", " ", s))
        i = m.end()
    out.append(text[i:n])
    return "".join(out)


def _one_line_table(s: str) -> bool:
    """``.global .b8 NAME[N] = {1, 2, ...};`` whole on one line (a recorded probe's offset table: 118 KB):
    the statement the character scan would make of it, found with string operations only (a regular
    expression over a hostile line could backtrack)."""
    if not s.endswith("};") or s.count("{") != 1 or s.count("}") != 1 or s.count(";") != 1:
        return False
    head = s[:s.index("{")]
    if "(" in s or ")" in s or ":" in head or not head.rstrip().endswith("="):
        return False
    words = head.split()
    return ".global" in words or ".const" in words


_BODY = re.compile(r"[{}()]")  # (a line with one is read character by character)
_LABEL = re.compile(r"[$%\w]+:")  # a PTX identifier has no dot: ld.shared::cta is no label
_WHOLE_LINE = _LINE_DIRECTIVES[:5] + (".loc",)  # the line directives a line holds whole


class _Scanner:
    """Statements out of comment-free PTX, one character at a time (``statements``)."""

    def __init__(self) -> None:
        self.out: list[tuple[str, int]] = []
        self.buf: list[str] = []
        self.start = self.line = 1
        self.parens = self.inner = 0
        self.text = False  # the buffer holds a non-space character

    def emit(self) -> None:
        s = "".join(self.buf).strip()
        if s:
            self.out.append((s, self.start))
        self.buf.clear()
        self.text = False
        if len(self.out) > MAX_STATEMENTS:
            raise InputError(f"the PTX has more than {MAX_STATEMENTS} statements: give one kernel's PTX")

    def fast(self, line: str) -> bool:
        """A whole line that is one plain statement, label or line directive, taken at once (most
        lines of a PTX file): True; anything else is read character by character."""
        if self.buf or self.parens or self.inner:
            return False
        s = line.strip()
        if not s:
            return True
        if _one_line_table(s):  # a data table on one line (nvcc writes them so): no per-character scan
            return self.whole(s[:-1])
        if _BODY.search(s) or (";" in s and s.index(";") != len(s) - 1):
            return False
        if s.endswith(";"):
            self.start = self.line
            self.buf.append(s[:-1])
            self.emit()
            return True
        if s.endswith(":") and _LABEL.fullmatch(s) or s.startswith(_WHOLE_LINE):
            self.start = self.line
            self.buf.append(s)
            self.emit()
            return True
        return False

    def whole(self, statement: str) -> bool:
        """One statement taken at once (what the character scan would have gathered): True."""
        if len(statement) > MAX_STATEMENT_CHARS:
            raise InputError(f"PTX line {self.line}: a statement of more than {MAX_STATEMENT_CHARS} characters: "
                             f"is this PTX?")
        self.start = self.line
        self.buf.append(statement)
        self.emit()
        return True

    def newline(self) -> None:
        self.line += 1
        head = "".join(self.buf).lstrip()
        if self.parens == 0 and self.inner == 0 and head.startswith(_LINE_DIRECTIVES) and not head.startswith(".pragma"):
            self.emit()
        elif self.buf:
            self.buf.append(" ")

    def brace(self, ch: str) -> bool:
        """A body's { or } (a statement of its own): True; a vector's or initializer's: False."""
        if ch == "{":
            head = "".join(self.buf).strip()
            if self.inner == 0 and (not head or _is_header(head)):
                self.emit()
                self.out.append(("{", self.line))
                return True
            self.inner += 1
            return False
        if self.inner == 0:
            self.emit()
            self.out.append(("}", self.line))
            return True
        self.inner -= 1
        return False

    def char(self, ch: str) -> None:
        if not self.text and not ch.isspace():  # a statement's first character: its line
            self.start = self.line
            self.text = True
        if ch == "\n":
            self.newline()
            return
        if ch in "()":
            self.parens = self.parens + 1 if ch == "(" else max(0, self.parens - 1)
        elif self.parens == 0 and ch in "{}" and self.brace(ch):
            return
        elif ch == ";" and self.parens == 0 and self.inner == 0:
            self.emit()
            return
        elif ch == ":" and self.label():
            return
        self.buf.append(ch)
        if len(self.buf) > MAX_STATEMENT_CHARS:
            raise InputError(f"PTX line {self.start}: a statement of more than {MAX_STATEMENT_CHARS} characters: "
                             f"is this PTX?")

    def label(self) -> bool:
        """A ``NAME:`` label ends here: True."""
        if self.parens or self.inner or not _LABEL.fullmatch("".join(self.buf).strip() + ":"):
            return False
        self.buf.append(":")
        self.emit()
        return True


def statements(text: str) -> list[tuple[str, int]]:
    """(statement, line) in order; ``{`` and ``}`` as statements of their own."""
    scanner = _Scanner()
    for line in _strip_comments(text).split("\n"):
        if not scanner.fast(line):
            for ch in line:
                scanner.char(ch)
        scanner.char("\n")
    scanner.emit()
    return scanner.out


def _is_header(s: str) -> bool:
    # (the substring test first: every statement is asked, an initialized table's too, 118 KB long)
    return (".entry" in s or ".func" in s) and bool(_HEADER.search(s + " "))


_HEADER = re.compile(r"(^|\s)\.(entry|func)\s")


# --- the module ---------------------------------------------------------------------------------


def _check_size(text: str) -> None:
    if text.count(";") > MAX_STATEMENTS:
        raise InputError(f"the PTX has more than {MAX_STATEMENTS} statements: give one kernel's PTX")


def parse(text: str) -> Module:
    """The module of ``text``; InputError (one line, with its line number) on what it cannot read."""
    _check_size(text)
    module = Module()
    function: Function | None = None
    depth = 0
    source: tuple[int, int] | None = None
    for s, line in _without_sections(statements(text)):
        if s == "{":
            depth += 1
            if depth > MAX_DEPTH:
                raise InputError(f"PTX line {line}: more than {MAX_DEPTH} nested {{ }} scopes")
            continue
        if s == "}":
            depth -= 1
            if depth < 0:
                raise InputError(f"PTX line {line}: '}}' without its '{{'")
            if depth == 0:
                function = None
            continue
        if _is_header(s):
            function = _header(s, line, module)
            continue
        if s.startswith("."):
            source = _directive(s, line, module, function, depth, source)
            continue
        if function is None or depth == 0:
            raise InputError(f"PTX line {line}: {_short(s)!r} is outside a function body: is this PTX?")
        if s.endswith(":"):
            function.labels[s[:-1]] = len(function.code)
            continue
        function.code.append(_instruction(s, line, module, function, source))
    if depth:
        raise InputError("the PTX ends inside a { } body: the file is cut short")
    return module


def _without_sections(stmts: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """The statements without ``.section NAME { ... }`` blocks (DWARF data -lineinfo adds beside
    inline asm): nothing the kernel executes."""
    out: list[tuple[str, int]] = []
    skip = depth = 0
    pending = False
    for s, line in stmts:
        if skip:
            skip += {"{": 1, "}": -1}.get(s, 0)
            continue
        if pending and s == "{":
            skip, pending = 1, False
            continue
        pending = depth == 0 and s.startswith(".section")
        depth += {"{": 1, "}": -1}.get(s, 0)
        if not pending:
            out.append((s, line))
    return out


def _short(s: str) -> str:
    return s if len(s) <= 60 else s[:57] + "..."


def _ints(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", text))


def _header(s: str, line: int, module: Module) -> Function | None:
    m = re.search(r"\.(entry|func)\s+(?:\(([^)]*)\)\s*)?([$\w.]+)\s*(?:\(([^)]*)\))?(.*)$", s, re.S)
    if not m:
        raise InputError(f"PTX line {line}: cannot read the function header {_short(s)!r}")
    params = []
    for p in (m[4] or "").split(","):
        words = p.split()
        if words:
            ptype = next((w[1:] for w in words if w[1:] in TYPE_BYTES), "b64")
            params.append((re.sub(r"\[.*$", "", words[-1]), ptype))
    f = Function(m[3], m[1] == "entry", params, line)
    f.returns = [p.split()[-1] for p in (m[2] or "").split(",") if p.split()]
    rest = m[5]
    for name in ("reqntid", "maxntid"):
        d = re.search(rf"\.{name}\s+([\d,\s]+)", rest)
        if d:
            setattr(f, name, _ints(d[1]))
    if s.rstrip().endswith(";") or ".extern" in s.split(".entry")[0].split(".func")[0]:
        return None  # a declaration, no body
    module.functions[f.name] = f
    return f


def _directive(s: str, line: int, module: Module, function: Function | None, depth: int,
               source: tuple[int, int] | None) -> tuple[int, int] | None:
    word = s.split(None, 1)[0]
    if word == ".loc":
        n = _ints(s)
        return (n[0], n[1]) if len(n) >= 2 else source
    if word in (".version", ".target", ".file"):
        _module_directive(word, s, module)
    elif word in (".maxntid", ".reqntid") and function is not None and depth == 0:
        setattr(function, word[1:], _ints(s))
    elif re.search(r"(^|\s)\.(shared|global|const|local)\s", s + " ") and not s.startswith(".reg"):
        v = _variable(s, line)
        if v is not None:
            (function.variables if function is not None and depth > 0 else module.variables)[v.name] = v
    return source


def _module_directive(word: str, s: str, module: Module) -> None:
    if word == ".version":
        module.version = s.split()[1] if len(s.split()) > 1 else ""
    elif word == ".target":
        module.target = s[len(word):].strip()
    else:
        m = re.match(r'\.file\s+(\d+)\s+"([^"]*)"', s)
        if m:
            module.files[int(m[1])] = m[2]


_SPACES = ("shared", "global", "const", "local")


def _variable(s: str, line: int) -> Variable | None:
    head, eq, init = s.partition("=")
    words = head.split()
    space = next((w[1:] for w in words if w[1:] in _SPACES), None)
    if space is None:
        return None
    align = _align_of(words)
    ptype = next((w[1:] for w in words if w[1:] in TYPE_BYTES), "b8")
    elem = TYPE_BYTES[ptype]
    m = re.search(r"([$\w.]+)\s*((?:\[\s*\d*\s*\])*)\s*$", head.strip())
    if not m:
        raise InputError(f"PTX line {line}: cannot read the variable {_short(s)!r}")
    values = _initializer(init, ptype, line) if eq else None
    count, unsized = _extent(re.findall(r"\[\s*(\d*)\s*\]", m[2]), values)
    size = count * elem
    data = _initial_bytes(space, values, elem, size, unsized)
    return Variable(space, m[1], size, align or elem, data, unsized and values is None, line)


def _decimals(items: list[str]) -> list[int] | None:
    """Each item's integer where every item is a plain decimal of at most 18 digits (what ``literal``
    reads the same, without its tests per item), read at once by numpy; else None."""
    text = " ".join(items) + " "
    if not _PLAIN.fullmatch(text):
        return None
    return np.fromstring(text, dtype=np.int64, sep=" ").tolist()  # (text mode: C's decimal reading)


_PLAIN = re.compile(r"(?:(?:0|-?[1-9][0-9]{0,17}) )*")  # (18 digits: every one an int64)


def _initial_bytes(space: str, values: list[int] | None, elem: int, size: int, unsized: bool) -> bytes | None:
    """A variable's bytes before the kernel runs: its initializer's, little-endian, or zeros for a
    .global variable without one (the PTX ISA zero-fills it, and nvcc writes an all-zero __device__
    table so); None where nothing is known: .shared, .local, an unsized extern, and a .const without
    an initializer (the PTX ISA zero-fills it too, but an uninitialized __constant__ array is the
    one the host fills with cudaMemcpyToSymbol before the launch: zeros would be a guess)."""
    if values is None:
        return bytes(size) if space == "global" and not unsized else None
    modulus = 1 << (8 * elem)
    if elem == 1:  # (a byte table, as nvcc writes every __device__ array: one bytes() of them all)
        try:
            data = bytes(values)  # (every value a byte already)
        except ValueError:
            data = bytes(v % modulus for v in values)
    else:
        data = b"".join(int(v % modulus).to_bytes(elem, "little") for v in values)
    return data.ljust(size, b"\0")[:size] if size else data


def _align_of(words: list[str]) -> int:
    return next((int(words[i + 1]) for i, w in enumerate(words[:-1]) if w == ".align" and words[i + 1].isdigit()), 0)


def _extent(dims: list[str], values: list[int] | None) -> tuple[int, bool]:
    """(elements, unsized): the product of the dimensions; an unsized one ([]) is the initializer's
    length, or 0 for an extern array (dynamic shared memory)."""
    count, unsized = 1, False
    for d in dims:
        if d:
            count *= int(d)
        else:
            unsized = True
    if unsized:
        count = len(values) if values is not None else 0
    return count, unsized


_SEPARATORS = str.maketrans("{},", "   ")  # (with white space: what separates an initializer's items)


def _initializer(text: str, ptype: str, line: int) -> list[int] | None:
    """The integers of an initializer ``{1, 2, ...}`` or a scalar; None where an element is not a
    plain integer (a symbol's address, generic(...)): those bytes stay unknown."""
    items = text.translate(_SEPARATORS).split()
    plain = _decimals(items)
    if plain is not None:  # only plain decimals (a probe's offset table, 118 KB): int() each at once
        return plain
    out = []
    for item in items:
        v = literal(item)
        if v is None:
            return None
        out.append(v)
    return out


_BASES = ((r"0[fF][0-9a-fA-F]{8}", 16, 2), (r"0[dD][0-9a-fA-F]{16}", 16, 2), (r"0[xX][0-9a-fA-F]+", 16, 2),
          (r"0[bB][01]+", 2, 2), (r"0[0-7]+", 8, 0), (r"\d+", 10, 0))  # (form, base, prefix length)


def literal(text: str) -> int | None:
    """An integer literal of PTX (decimal, 0x hex, 0 octal, 0b binary, U suffix; 0f/0d floats as
    their bits), or None."""
    t = text.strip()
    if t.isdigit() and (t[0] != "0" or t == "0"):  # plain decimal: most literals
        return int(t)
    if not t or not (t[0].isdigit() or t[0] == "-"):
        return None
    neg = t.startswith("-")
    t = t[1:].rstrip("Uu") if neg else t.rstrip("Uu")
    for form, base, prefix in _BASES:
        if re.fullmatch(form, t):
            v = int(t[prefix:], base)
            return -v if neg else v
    return None


# --- instructions -------------------------------------------------------------------------------


def _instruction(s: str, line: int, module: Module, function: Function, loc: tuple[int, int] | None) -> Instruction:
    guard = None
    m = _GUARD.match(s) if s.startswith("@") else None
    if m:
        guard = (m[2], bool(m[1]))
        s = s[m.end():]
    m = _OPCODE.match(s)
    if not m:
        raise InputError(f"PTX line {line}: cannot read the instruction {_short(s)!r}")
    parts = m[1].split(".")
    _check_nesting(m[2], line)
    operands = [_operand(x.strip(), line, module, function) for x in split_top(m[2])] if m[2].strip() else []
    text = " ".join(f"{'@!' if guard and guard[1] else '@' if guard else ''}{guard[0] if guard else ''} {m[1]} {m[2]}".split())
    return Instruction(parts[0], tuple(parts[1:]), operands, guard, line, loc, text)


_GUARD = re.compile(r"@(!?)([%$\w.]+)\s+")
_OPCODE = re.compile(r"([a-z][\w.:]*)\s*(.*)$", re.S)
_BRACKET = re.compile(r"[][{}()]")  # (operands without one: nothing nested, split at every comma)


def _check_nesting(text: str, line: int) -> None:
    if not _BRACKET.search(text):
        return
    depth = deepest = 0
    for ch in text:
        if ch in "[{(":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]})":
            depth -= 1
    if deepest > MAX_OPERAND_DEPTH:
        raise InputError(f"PTX line {line}: operands nested {deepest} deep (at most {MAX_OPERAND_DEPTH}): is this PTX?")


def split_top(text: str) -> list[str]:
    """``text`` split at the commas outside brackets, braces and parentheses."""
    if not _BRACKET.search(text):
        return text.split(",")
    out: list[str] = []
    cur: list[str] = []
    depth = 0
    for ch in text:
        if ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur))
    return out


def _operand(x: str, line: int, module: Module, function: Function) -> Operand:
    if _is_register(x):
        return Operand("name", name=x)  # a register (the common case, first)
    if x[:1] + x[-1:] in ("[]", "{}", "()"):
        return _bracketed(x, line, module, function)
    if "|" in x:
        return Operand("pair", items=tuple(_operand(y.strip(), line, module, function) for y in x.split("|")))
    if x.startswith("!") or x == "_":
        return _negated_or_sink(x, line, module, function)
    v = literal(x)
    if v is not None:
        return Operand("fimm" if re.match(r"-?0[fFdD]", x) else "imm", value=v)
    if re.fullmatch(r"[%$\w.]+", x):  # a register, a symbol or a label (resolved by the emulator), or %tid.x
        return Operand("sreg" if SPECIAL.fullmatch(x) else "name", name=x)
    m = re.fullmatch(r"([$\w.]+)\s*\+\s*(-?\w+)", x)
    if m and literal(m[2]) is not None:
        return Operand("sym", name=m[1], value=literal(m[2]) or 0)
    raise InputError(f"PTX line {line}: cannot read the operand {_short(x)!r}")


def _is_register(x: str) -> bool:
    return x.startswith("%") and _REGISTER.fullmatch(x) is not None and not SPECIAL.fullmatch(x)


_REGISTER = re.compile(r"%[a-z]+\d+")


def _negated_or_sink(x: str, line: int, module: Module, function: Function) -> Operand:
    if x == "_":
        return Operand("sink")
    inner = _operand(x[1:].strip(), line, module, function)
    inner.negate = True
    return inner


def _bracketed(x: str, line: int, module: Module, function: Function) -> Operand:
    """An address [..], a vector {..} or a call's list (..)."""
    if x.startswith("["):
        return _address(x[1:-1].strip(), line, module, function)
    return Operand("vec", items=tuple(_operand(y.strip(), line, module, function) for y in split_top(x[1:-1])
                                      if y.strip()))


def _address(x: str, line: int, module: Module, function: Function) -> Operand:
    m = re.fullmatch(r"([%$\w.]+)?\s*(?:([+-])\s*(-?[\w]+))?", x)
    if m and (m[1] is None or literal(m[1]) is None):
        off = literal(m[3]) if m[3] else 0
        if off is None:
            raise InputError(f"PTX line {line}: cannot read the address [{_short(x)}]")
        off = -off if m[2] == "-" else off
        return Operand("addr", value=off, base=Operand("name", name=m[1]) if m[1] else None)
    v = literal(x)
    if v is not None:
        return Operand("addr", value=v)
    raise InputError(f"PTX line {line}: cannot read the address [{_short(x)}]")
