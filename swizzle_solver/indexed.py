"""Accesses stated as the kernel computes them: an index into the tile, or an offset into the
allocation, as C expressions of the thread and of loop variables (docs/access-patterns.md,
"Accesses from index expressions").

    index: row = threadIdx.y + j, col = threadIdx.x; j in 0..32 step 8; block 32x8
    offset: (innerColA * 4 + j) * BM + innerRowA; innerRowA = tid / (BK / 4); innerColA = tid % (BK / 4);
            BM = 128; BK = 8; j in 0..4; block 256; store

Clauses, separated by ``;``: the address (``row = E, col = E`` for ``index:``, the element offset
``E`` for ``offset:``); ``NAME = E`` (a constant or a value derived from the thread, used by name);
``NAME in A..B [step S]`` (a loop: A, A + S, ... below B; loops nest in the order given, the first
outermost); ``block X[xY[xZ]]`` (the thread block; default one warp); the lanes' width, ``scalar``
(the default), ``v2``, ``v4``, ``v8``, or an instruction of the target (``lds64``, ``sts32``,
``ds_read_b128``); ``store`` or ``load`` (the default). Expressions are the ``expr:`` grammar
(notation/expr.py's parser and evaluator, unchanged) with names: ``tid`` (threadIdx.x + X *
(threadIdx.y + Y * threadIdx.z)), ``threadIdx.x/y/z``, ``blockDim.x/y/z``, ``lane`` and ``warp``
(tid % and / the warp's lanes), the loops and the definitions.

How the hardware issues it: the block is cut into warps of consecutive ``tid`` (x fastest, as CUDA
linearises threads), and every loop iteration is one instruction of every warp; each warp
instruction (its lanes' addresses) is split into phases by the target's rule for the instruction
and costed as one instruction, as an ``[[instruction]]`` of a ``--phases`` file is
(access.phases_file: hardware.Hardware.split_request, access.warp.as_instruction). The access is
one pattern whose placements are those warp instructions, in loop order then warp order.

Every name is replaced by its expression in one index ``r`` (r = iteration * threads + tid), so the
whole text is one ``expr:`` expression evaluated over every (iteration, thread) at once.
"""
from __future__ import annotations

import re

import numpy as np

from .access.limits import check_size
from .access.warp import as_instruction, instruction_rule, tile_pattern
from .hardware import Hardware
from .model import InputError, Pattern, Tile
from .notation.expr import MAX_TEXT, NotationError, evaluate, parse
from .value import replace

MAX_THREADS = 1024  # a CUDA thread block's limit
MAX_INSTRUCTIONS = 1 << 14  # warp instructions of one access: the largest tile (512 KiB) read a byte a lane by
# one warp; each is split into phases in Python (65536 took 3.5 s and 420 MB)
MAX_DEFINITION_DEPTH = 32
MAX_LOOPS = 16  # more of two iterations or more are over MAX_INSTRUCTIONS anyway
PREFIXES = ("index:", "offset:")
_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[xyz])?")
_LOOP = re.compile(r"^([A-Za-z_]\w*)\s+in\s+(.+?)\.\.(.+?)(?:\s+step\s+(.+))?$", re.S)
_DEFINE = re.compile(r"^([A-Za-z_]\w*)\s*=(?!=)(.*)$", re.S)
_BLOCK = re.compile(r"^block\s+(\d{1,4})(?:\s*x\s*(\d{1,4}))?(?:\s*x\s*(\d{1,4}))?$")
_WIDTH = re.compile(r"^(?:scalar|v(\d{1,2}))$")
_THREAD = ("tid", "lane", "warp", "threadIdx.x", "threadIdx.y", "threadIdx.z", "blockDim.x", "blockDim.y", "blockDim.z")


class Statement:
    """A parsed spec: the address texts, the definitions, the loops, the block, the width."""

    def __init__(self) -> None:
        self.address: dict[str, str] = {}  # "row"/"col" or "offset" -> expression text
        self.defined: dict[str, str] = {}
        self.loops: list[tuple[str, str, str, str]] = []  # (name, first, end, step) as texts
        self.looped: set[str] = set()  # the loops' names
        self.block = (32, 1, 1)
        self.width = ""  # "v4", "scalar", an instruction name; "" not said
        self.direction = ""


def parse_indexed(spec: str, tile: Tile, hardware: Hardware) -> Pattern:
    """The access ``spec`` (index: or offset:) states: every warp instruction the block issues."""
    kind, _, body = spec.strip().partition(":")
    kind = kind.lower()
    st = _statement(spec, kind, body)
    wave = hardware.wave_lanes
    threads = st.block[0] * st.block[1] * st.block[2]
    if not threads or threads > MAX_THREADS or threads % wave:
        raise InputError(f"access {_short(spec)}: a block of {threads} threads is not whole {hardware.group}s of "
                         f"{wave} lanes (at most {MAX_THREADS} threads): give block XxYxZ with X*Y*Z a multiple "
                         f"of {wave}")
    env = _Env(spec, st, threads, wave)
    iterations = env.iterations
    instructions = iterations * (threads // wave)
    if instructions > MAX_INSTRUCTIONS:
        raise InputError(f"access {_short(spec)}: {instructions} warp instructions (loops x warps) is more than "
                         f"{MAX_INSTRUCTIONS}: state one tile's copy (smaller loops or block)")
    flat = np.arange(iterations * threads, dtype=np.int64)
    if kind == "index":
        row, col = env.value("row", flat), env.value("col", flat)
    else:
        offset = env.value("offset", flat)
        _check_offsets(spec, env, offset, tile)
        row, col = offset // tile.row_length, offset % tile.row_length
    rule = instruction_rule(spec, _op(spec, st, tile, hardware), tile, hardware)
    if rule.addresses != 1:
        raise InputError(f"access {_short(spec)}: {rule.op} takes two addresses per lane: state it as an "
                         f"[[instruction]] of a --phases file")
    elems = rule.lane_bytes // tile.elem_bytes
    if kind == "index" and tile.col_major:
        if elems > 1:
            raise InputError(f"access {_short(spec)}: under --order col a lane's vector runs down a column: use "
                             f"scalar lanes, or an offset: form (offsets are the storage's)")
        row, col = col, row
    _check_inside(spec, env, row, col, elems, tile)
    return _pattern(spec, row.reshape(-1, wave), col.reshape(-1, wave), rule, tile, hardware, threads, iterations)


def _pattern(spec: str, row: np.ndarray, col: np.ndarray, rule, tile: Tile, hardware: Hardware, threads: int,
             iterations: int) -> Pattern:
    """Each warp instruction's lanes split into the rule's phases (as [[instruction]] does)."""
    served = hardware.for_rule(rule)
    check_size(row.shape[0], row.size)
    template, counts = [], set()
    for r, c in zip(row.tolist(), col.tolist(), strict=True):
        phases = served.split_request([(a, b, rule.lane_bytes) for a, b in zip(r, c, strict=True)], rule.write)
        counts.add(len(phases))
        template += phases
    if len(counts) > 1:
        raise InputError(f"access {_short(spec)}: its warp instructions split into {sorted(counts)} phases (some "
                         f"lanes repeat in pairs, a paired load): state the two kinds as two accesses")
    (per,) = counts
    warps = threads // hardware.wave_lanes
    summary = (f"{warps} {hardware.group}{'s' if warps > 1 else ''} x {iterations} iteration"
               f"{'s' if iterations > 1 else ''} of {rule.op}" + (f" ({per} phases)" if per > 1 else ""))
    pattern = tile_pattern(spec, "instruction", template, tile.rows, tile.cols, summary, tile, served)
    # a placement is one warp instruction, as an [[instruction]]'s is (its phases summed)
    return as_instruction(replace(pattern, phases_per_placement=per), hardware, rule, per)


# --- the statement --------------------------------------------------------------------------------


def _short(spec: str) -> str:
    text = " ".join(spec.split())
    return repr(text if len(text) <= 60 else text[:57] + "...")


def _statement(spec: str, kind: str, body: str) -> Statement:
    st = Statement()
    clauses = [c.strip() for c in body.split(";")]
    if not clauses or not clauses[0]:
        raise InputError(f"access {_short(spec)}: the address is missing: write " + _example(kind))
    first, rest = clauses[0], clauses[1:]
    if kind == "index":
        for part in _split_commas(first):
            _clause(spec, st, part, address=True)
    else:
        m = _DEFINE.match(first)
        st.address["offset"] = m[2].strip() if m and m[1] == "offset" else first
        _subscript(spec, st.address["offset"], address=False)
    for clause in rest:
        if clause:
            _clause(spec, st, clause, address=kind == "index")
    wanted = ("row", "col") if kind == "index" else ("offset",)
    missing = [w for w in wanted if w not in st.address]
    if missing:
        raise InputError(f"access {_short(spec)}: {' and '.join(missing)} {'is' if len(missing) == 1 else 'are'} "
                         f"not given: write " + _example(kind))
    return st


def _example(kind: str) -> str:
    return ("index: row = threadIdx.y + j, col = threadIdx.x; j in 0..32 step 8; block 32x8" if kind == "index"
            else "offset: tid * 4 + j; j in 0..4; block 256")


def _split_commas(text: str) -> list[str]:
    """``row = E, col = F`` at its top-level commas (C's comma is no operator of the grammar)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    return parts + [text[start:].strip()]


def _clause(spec: str, st: Statement, clause: str, address: bool) -> None:
    low = clause.lower()
    for reader in (_setting, _loop, _definition):
        if reader(spec, st, clause, low, address):
            return
    _subscript(spec, clause, address)
    raise InputError(f"access {_short(spec)}: {_short(clause)} is not a clause: write NAME = EXPR, NAME in A..B "
                     f"[step S], block XxY, scalar/v2/v4/v8 or an instruction (lds32, sts128), store or load")


def _subscript(spec: str, clause: str, address: bool) -> None:
    """The C source's ``tile[i][j]`` (or ``As[i]``) as written: bad input saying the clause it is."""
    subscript = re.fullmatch(r"\s*[A-Za-z_]\w*\s*((?:\[[^\[\]]+\]\s*)+)", clause)
    if subscript is None:
        return
    indices = [i.strip() for i in re.findall(r"\[([^\[\]]+)\]", subscript[1])]
    said = (f"index: row = {indices[0]}, col = {indices[1]}" if len(indices) == 2 and address
            else f"offset: {indices[0]}" if len(indices) == 1 else "index: row = ..., col = ...")
    raise InputError(f"access {_short(spec)}: {clause.strip()!r} is a subscript: write the index itself, "
                     f"{said}; ... (the array's shape is --rows/--cols)")


def _setting(spec: str, st: Statement, clause: str, low: str, address: bool) -> bool:
    """store / load, block XxYxZ, the lanes' width: True when ``clause`` is one."""
    if low in ("store", "load"):
        if st.direction and st.direction != low:
            raise InputError(f"access {_short(spec)}: it is said to be a store and a load: keep one")
        st.direction = low
    elif (b := _BLOCK.match(low)) is not None:
        st.block = (int(b[1]), int(b[2] or 1), int(b[3] or 1))
    elif _WIDTH.match(low) or re.fullmatch(r"(lds|sts)\d+|ds_(read|write)\w*", low):
        st.width = low
    else:
        return False
    return True


def _loop(spec: str, st: Statement, clause: str, low: str, address: bool) -> bool:
    if (m := _LOOP.match(clause)) is None:
        return False
    if m[1] in st.defined or m[1] in st.looped:  # (a set: 60,000 loops were quadratic)
        raise InputError(f"access {_short(spec)}: {_short(m[1])} is given twice")
    if len(st.loops) == MAX_LOOPS:
        raise InputError(f"access {_short(spec)}: more than {MAX_LOOPS} loops: a kernel's copy nests a few (each "
                         f"of two or more iterations multiplies the instructions)")
    st.looped.add(m[1])
    st.loops.append((m[1], m[2].strip(), m[3].strip(), (m[4] or "1").strip()))
    return True


def _definition(spec: str, st: Statement, clause: str, low: str, address: bool) -> bool:
    if (d := _DEFINE.match(clause)) is None:
        return False
    name = d[1]
    if name in _THREAD or name in st.defined:
        raise InputError(f"access {_short(spec)}: {_short(name)} is "
                         f"{'given twice' if name in st.defined else 'the thread'}")
    if name in ("row", "col") and address:
        st.address[name] = d[2].strip()
    else:
        st.defined[name] = d[2].strip()
    return True


def _op(spec: str, st: Statement, tile: Tile, hardware: Hardware) -> str:
    """The instruction: the one named, else the target's load (store) of ``vN`` elements."""
    if st.width and not _WIDTH.match(st.width):
        return _named_op(spec, st, hardware)
    m = _WIDTH.match(st.width or "scalar")
    nbytes = int(m[1] or 1) * tile.elem_bytes if m else tile.elem_bytes
    store = st.direction == "store"
    named = (f"{'sts' if store else 'lds'}{8 * nbytes}",  # NVIDIA's, then AMD's (u8/u16 for narrow reads)
             f"ds_{'write' if store else 'read'}_{'b' if store or nbytes >= 4 else 'u'}{8 * nbytes}")
    found = [op for op in named if op in hardware.op_names()]
    if not found:
        raise InputError(f"access {_short(spec)}: --arch {hardware.name} has no {'store' if store else 'load'} of "
                         f"{nbytes} B per lane: use a width of 1 to 16 bytes (scalar, v2, v4) or name the instruction")
    return found[0]


def _named_op(spec: str, st: Statement, hardware: Hardware) -> str:
    """The instruction the spec names, checked against the direction it says."""
    rule = hardware.rule(st.width)
    if rule is not None and st.direction and rule.write != (st.direction == "store"):
        raise InputError(f"access {_short(spec)}: {st.width} is a {'store' if rule.write else 'load'}, not a "
                         f"{st.direction}")
    return st.width


# --- evaluation: every name as an expression of the one index r ----------------------------------


class _Env:
    def __init__(self, spec: str, st: Statement, threads: int, wave: int):
        self.spec, self.st, self.threads = spec, st, threads
        self.expanded: dict[str, str] = {}  # a definition's text in r, made once (A = B + B; B = C + C: 2^n)
        x, y, z = st.block
        self.names: dict[str, str] = {
            "tid": f"(r % {threads})", "threadIdx.x": f"(r % {threads} % {x})",
            "threadIdx.y": f"(r % {threads} / {x} % {y})", "threadIdx.z": f"(r % {threads} / {x * y})",
            "lane": f"(r % {threads} % {wave})", "warp": f"(r % {threads} / {wave})",
            "blockDim.x": str(x), "blockDim.y": str(y), "blockDim.z": str(z)}
        self.loops: list[tuple[str, int, int, int]] = []  # (name, first, step, count)
        for name, first, end, step in st.loops:
            a, b, s = (self.constant(t, f"the range of {name}") for t in (first, end, step))
            if s <= 0 or b <= a:  # (0..0 has no iteration: an access of no instruction)
                raise InputError(f"access {_short(spec)}: the loop {name} in {first}..{end} step {step} is empty or "
                                 f"runs backwards: write A..B with A <= B and a positive step")
            count = -(-(b - a) // s)
            if count > MAX_INSTRUCTIONS:
                raise InputError(f"access {_short(spec)}: the loop {name} has {count} iterations, more than "
                                 f"{MAX_INSTRUCTIONS}: state one tile's copy")
            self.loops.append((name, a, s, count))
        self.iterations = 1
        for _, _, _, count in self.loops:
            self.iterations *= count
            if self.iterations > MAX_INSTRUCTIONS:
                raise InputError(f"access {_short(spec)}: the loops make more than {MAX_INSTRUCTIONS} iterations: "
                                 f"state one tile's copy")
        inner = threads
        for name, a, s, count in reversed(self.loops):
            self.names[name] = f"({a} + {s} * (r / {inner} % {count}))"
            inner *= count

    def text(self, expr: str, depth: int = 0, seen: tuple[str, ...] = ()) -> str:
        """``expr`` with every name replaced by its expression in r (definitions recursively, each
        once), at most the expression grammar's MAX_TEXT characters: a definition used twice in the
        next doubles the text, so 30 of them would make 2^30 characters."""
        length = len(expr)

        def name(m: re.Match) -> str:
            nonlocal length
            word = m[0]
            if word in self.names:
                text = self.names[word]
            elif word in self.st.defined:
                if word in seen or depth > MAX_DEFINITION_DEPTH:
                    raise InputError(f"access {_short(self.spec)}: {_short(word)} is defined in terms of itself")
                if word not in self.expanded:
                    self.expanded[word] = "(" + self.text(self.st.defined[word], depth + 1, seen + (word,)) + ")"
                text = self.expanded[word]
            else:
                raise self.unknown(word)
            length += len(text) - len(word)
            if length > MAX_TEXT:
                raise InputError(f"access {_short(self.spec)}: its names, each replaced by its definition, make "
                                 f"an expression of over {MAX_TEXT} characters: define fewer levels of names")
            return text
        return _NAME.sub(name, expr)

    def unknown(self, word: str) -> InputError:
        if re.fullmatch(r"(tid|threadidx|thread_idx)\.?[xyz]", word.lower()):  # a near miss of CUDA's name
            return InputError(f"access {_short(self.spec)}: unknown name {word!r}: the thread's index is "
                              f"threadIdx.{word[-1].lower()} (or tid, the linear one)")
        constant = "" if word in ("r", "c") else f"give it as a template constant (-D {word}=VALUE), "  # (-D refuses r, c)
        return InputError(f"access {_short(self.spec)}: unknown name {_short(word)}: define it (NAME = EXPR), loop it "
                          f"(NAME in A..B), {constant}or use the thread (tid, threadIdx.x/y/z, lane, warp, "
                          f"blockDim.x/y/z)")

    def tree(self, expr: str, what: str):
        try:
            return parse(self.text(expr))
        except NotationError as err:
            raise InputError(f"access {_short(self.spec)}: {what} {_short(expr)}: {err.message}") from None

    def constant(self, expr: str, what: str) -> int:
        if re.search(r"\br\b", self.text(expr)):
            raise InputError(f"access {_short(self.spec)}: {what} {_short(expr)} depends on the thread or a loop: "
                             f"a loop's range is a constant")
        node = self.tree(expr, what)
        zero = np.zeros(1, dtype=np.int64)
        try:
            values = evaluate(node, zero, zero)
        except NotationError as err:
            raise InputError(f"access {_short(self.spec)}: {what} {_short(expr)}: {err.message.split(' at element')[0]}") \
                from None
        return int(np.asarray(values).reshape(-1)[0])

    def value(self, what: str, flat: np.ndarray) -> np.ndarray:
        expr = self.st.address[what]
        node = self.tree(expr, f"the {what}")
        try:
            values = evaluate(node, flat, np.zeros_like(flat))
        except NotationError as err:
            raise InputError(f"access {_short(self.spec)}: the {what} {_short(expr)}: {self.located(err.message)}") from None
        return np.broadcast_to(values, flat.shape).astype(np.int64)

    def where(self, k: int) -> str:
        """The thread and loop values of flat index ``k``, in the user's words."""
        x, y, _ = self.st.block
        t, q = k % self.threads, k // self.threads
        words = [f"threadIdx = ({t % x}, {t // x % y}, {t // (x * y)})"]
        inner = 1
        for name, a, s, count in reversed(self.loops):
            words.append(f"{name} = {a + s * (q // inner % count)}")
            inner *= count
        return ", ".join(words)

    def located(self, message: str) -> str:
        m = re.search(r" at element \(r, c\) = \((\d+), \d+\)", message)
        return message if m is None else message[:m.start()] + " at " + self.where(int(m[1]))


def _check_offsets(spec: str, env: _Env, offset: np.ndarray, tile: Tile) -> None:
    size = tile.rows * tile.row_length
    bad = (offset < 0) | (offset >= size) | (offset % tile.row_length >= tile.cols)
    if bad.any():
        k = int(np.argmax(bad))
        raise InputError(f"access {_short(spec)}: offset {int(offset[k])} at {env.where(k)} is outside the "
                         f"{tile.rows} x {tile.cols} tile (row length {tile.row_length}): give --rows/--cols/"
                         f"--row-length of the allocation")


def _check_inside(spec: str, env: _Env, row: np.ndarray, col: np.ndarray, elems: int, tile: Tile) -> None:
    bad = (row < 0) | (row >= tile.rows) | (col < 0) | (col + elems > tile.cols)
    if bad.any():
        k = int(np.argmax(bad))
        r, c = (int(col[k]), int(row[k])) if tile.col_major else (int(row[k]), int(col[k]))
        raise InputError(f"access {_short(spec)}: element ({r}, {c}) at {env.where(k)} is outside the "
                         f"{tile.logical_shape[0]} x {tile.logical_shape[1]} tile")


def register() -> None:
    """Make index: and offset: readable by access.parse_access (which cannot import this module)."""
    from .access import FORMS_ABOVE

    for prefix in PREFIXES:
        FORMS_ABOVE[prefix] = parse_indexed


register()
