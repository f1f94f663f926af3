"""`triton:`: a Triton shared-memory encoding, as the MLIR attribute (TTGIR) or the Gluon constructor.

The encoding is of a tensor of the tile's shape [rows, cols]; ``order`` names the dimensions from
the fastest: [1, 0] is row-major (the tile's columns contiguous), [0, 1] column-major. Below, a
"memory row" and "memory column" are the tile's row and column for order [1, 0], its column and
row for [0, 1]; numCols is the memory row's length. Each encoding's offset of element (r, c) is the
inverse of Triton's ``toLinearLayout`` (lib/Dialect/TritonGPU/IR/LinearLayoutConversions.cpp):

- ``#ttg.swizzled_shared<{vec = V, perPhase = P, maxPhase = X, order = [1, 0]}>``,
  ``SwizzledSharedLayout(V, P, X, [1, 0])``: offset = row * numCols + (col ^ x(row)), x the XOR over
  the row's set bits 2^k of (V * ((2^k / P) % X)) % numCols (``swizzledSharedToLinearLayout``).
- ``#ttg.amd_rotating_shared<{vec, perPhase, maxPhase, order}>``: the same with the phase of bit
  2^k XORed with its block number ((2^k / (P * X)) % X) (TritonGPUAttrDefs.td: the pattern
  rotates every P * X rows).
- ``#ttg.nvmma_shared<{swizzlingByteWidth = W, transposed = false, elementBitWidth = E}>``,
  ``NVMMASharedLayout(swizzle_byte_width=W, element_bitwidth=E, rank=2)``: 8-row x W-byte tiles
  (vec = 128 / E, perPhase = 128 / W, maxPhase = W / 16), repeated down the rows, then across
  (``sharedToLinearLayoutLeadingOffset``); transposed = true is order [0, 1]. W is 32, 64 or 128.
- ``#ttg.padded_shared<[I:+P, ...] {order = [1, 0], shape = [R, C]}>``,
  ``PaddedSharedLayout.with_identity_for([[I, P]], [R, C], [1, 0])``: the row-major (in ``order``)
  offset x, plus P elements after every I: x + sum of (x / I) * P (PaddedSharedEncodingAttr);
  also with a linear component ``{offset = [[...]], block = []}`` in place of order and shape.
- ``#ttg.shared_linear<{offset = [[r, c], ...]}, alignment = A>``, ``SharedLinearLayout([[r, c],
  ...])``: offset bit i goes to element offset[i]; the layout is its inverse, and it must be a
  bijection of the tile (else not usable).

- ``#ttg.partitioned_shared<{numPartitions = P, numGroups = G, partitionDim = D, partitionLayout =
  #ttg.swizzled_shared<...>}>``, ``PartitionedSharedLayout(P, G, D, inner)`` (AMD gfx1250;
  TritonGPUAttrDefs.td PartitionedSharedEncodingAttr): the tile cut along D into P * G pieces, piece
  i in buffer i % P at position i // P (offset (i // P) * piece elements, then the inner encoding
  of the piece's shape), buffer p at p * 64 KiB, gfx1250's partition size (Allocation.cpp places
  each buffer in its own partition; hardware.LdsPartitions). The inner encoding may be any read
  here but a partitioned one; a padded one pads the buffer's offset (pieces of at least one interval).

Older spellings: Triton 3.0-3.2's ``#triton_gpu.shared<{vec, perPhase, maxPhase, order,
hasLeadingOffset}>`` is ``swizzled_shared``, or with ``hasLeadingOffset = true`` the ``nvmma_shared`` of
swizzlingByteWidth 16 * maxPhase for the tile's element; Gluon's dataclass print
(``SwizzledSharedLayout(vec=8, per_phase=1, ..., ctas_per_cga=[1, 1], ...)`` or ``cga_layout=[]``).

Shapes must be powers of two (Triton's). The CTA layout must be one CTA (the tile is one CTA's).
"""
from __future__ import annotations

import re

import numpy as np

from ..hardware import GFX1250_PARTITIONS
from ..model import Tile, is_pow2, log2
from ..value import Value
from . import expr
from .expr import NotationError

MAX_TEXT = 4000
MAX_DEPTH = 8
ORDER = 3  # this notation's place in the lists of notations
WHAT = "a Triton shared encoding"
_TOKEN = r"(?a)(#[A-Za-z_][\w.]*)|(-?\d+)|([A-Za-z_][\w.]*)|([<>{}\[\](),=:+])"


class Triton(Value, eq=False):
    """The ``triton:`` source: the encoding's kind and its parameters (as read)."""

    kind: str  # swizzled, amd_rotating, nvmma, padded, linear
    params: tuple  # ((name, value), ...)
    notation = "triton"
    as_written = False
    unit = "element"

    def get(self, name: str, default=None):
        return dict(self.params).get(name, default)

    def evaluate(self, tile: Tile) -> tuple[np.ndarray, object, str | None]:
        if not (is_pow2(tile.rows) and is_pow2(tile.cols)):
            raise NotationError(f"Triton's shared encodings are of power-of-two shapes; the tile is "
                                f"{tile.rows} x {tile.cols}")
        r, c = np.arange(tile.rows, dtype=np.int64)[:, None], np.arange(tile.cols, dtype=np.int64)[None, :]
        if self.kind == "partitioned":
            return partitioned_table(self, tile)
        if self.kind == "linear":
            return linear_table(tile, self.get("offset"))
        if self.kind == "padded" and self.get("offset") is not None:
            table, _, why = linear_table(tile, self.get("offset"))
            return padded(table, self.get("intervals")), None, why
        node = self.node(tile)
        return expr.evaluate(node, r, c, " in the Triton encoding"), node, None

    def node(self, tile: Tile) -> tuple:
        order = self.get("order", [1, 0])
        if self.kind == "nvmma":
            order = [0, 1] if self.get("transposed") else [1, 0]
        if order not in ([1, 0], [0, 1]):
            raise NotationError(f"order = {order}: a tile's order is [1, 0] (rows contiguous) or [0, 1]")
        mrow, mcol, num_cols, num_rows = (expr.R, expr.C, tile.cols, tile.rows) if order == [1, 0] else \
            (expr.C, expr.R, tile.rows, tile.cols)
        if self.kind in ("swizzled", "amd_rotating"):
            vec, per, top = (self.get(k) for k in ("vec", "perPhase", "maxPhase"))
            xors = [row_xor(1 << k, vec, per, top, num_cols, self.kind == "amd_rotating") for k in range(log2(num_rows))]
            return expr.add(expr.mul(mrow, expr.num(num_cols)), expr.xor(mcol, xor_node(mrow, xors)))
        if self.kind == "nvmma":
            return nvmma_node(tile, self, mrow, mcol, num_cols, num_rows)
        if self.kind == "leading":
            return leading_as_nvmma(self, tile).node(tile)
        shape = self.get("shape")
        if shape is not None and list(shape) != [tile.rows, tile.cols]:
            raise NotationError(f"the encoding's shape is {list(shape)}, the tile is {tile.rows} x {tile.cols}")
        raw = expr.add(expr.mul(mrow, expr.num(num_cols)), mcol)
        return padded_node(raw, self.get("intervals"))


def partitioned_table(enc: Triton, tile: Tile) -> tuple[np.ndarray, None, str | None]:
    """``#ttg.partitioned_shared``: piece i (of P * G along partitionDim) at buffer i % P, position i // P;
    within a buffer, offset (i // P) * E + inner(piece), E the piece's elements (a padded inner encoding
    pads that offset: (i // P) * (E + its padding of E elements) + inner); buffer p at p * 64 KiB."""
    parts, groups, dim, inner = (enc.get(k) for k in ("numPartitions", "numGroups", "partitionDim", "partitionLayout"))
    pieces = parts * groups
    along = tile.rows if dim == 0 else tile.cols
    if along % pieces:
        raise NotationError(f"partitionDim {dim} has {along} elements, not a multiple of numPartitions * numGroups "
                            f"= {pieces}")
    piece = Tile(along // pieces, tile.cols, tile.cols, tile.elem_bytes) if dim == 0 else \
        Tile(tile.rows, along // pieces, along // pieces, tile.elem_bytes)
    table, _, why = inner.evaluate(piece)
    elems = piece.rows * piece.cols
    stride = elems
    for interval, pad in inner.get("intervals", None) or () if inner.kind == "padded" else ():
        if elems % interval:
            raise NotationError(f"a piece has {elems} elements, less than the padding interval {interval}: its "
                                f"padding across pieces is not read here")
        stride += elems // interval * pad
    partition = GFX1250_PARTITIONS.partition_bytes // tile.elem_bytes  # elements
    if groups * stride > partition:
        raise NotationError(f"a partition buffer ({groups} piece(s) of {stride * tile.elem_bytes} B) is larger than a "
                            f"{GFX1250_PARTITIONS.partition_bytes // 1024} KiB partition: where Triton's allocator puts "
                            f"the next buffer is not read here; use more partitions")
    index = np.arange(along) // (along // pieces)
    base = (index % parts) * partition + (index // parts) * stride
    within = np.arange(along) % (along // pieces)
    if dim == 0:
        return base[:, None] + table[within, :], None, why
    return base[None, :] + table[:, within], None, why


def row_xor(row: int, vec: int, per: int, top: int, num_cols: int, rotating: bool) -> int:
    """The column XOR of one row basis 2^k (Triton's swizzled formula; rotating: with its block)."""
    phase = (row // per) % top
    if rotating:
        phase ^= (row // (per * top)) % top
    return (vec * phase) % num_cols


def xor_node(row: tuple, xors: list[int]) -> tuple:
    """XOR over the row's bits k of xors[k]: a shift and mask when the xors are one run of bits
    moving with the row bits, else one term per bit."""
    live = [(k, x) for k, x in enumerate(xors) if x]
    if not live:
        return expr.num(0)
    k0, x0 = live[0]
    run = is_pow2(x0) and all(x == x0 << (k - k0) for k, x in live) and [k for k, _ in live] == list(
        range(k0, k0 + len(live)))
    if run:
        shift = log2(x0) - k0
        bits = ((1 << len(live)) - 1) << k0
        masked = expr.band(row, bits)
        return expr.shl(masked, shift) if shift > 0 else expr.shr(masked, -shift) if shift < 0 else masked
    terms = [expr.mul(expr.band(expr.shr(row, k), 1), expr.num(x)) for k, x in live]
    out = terms[0]
    for term in terms[1:]:
        out = expr.xor(out, term)
    return out


def nvmma_node(tile: Tile, enc: Triton, mrow: tuple, mcol: tuple, num_cols: int, num_rows: int) -> tuple:
    width, bits = enc.get("swizzlingByteWidth"), enc.get("elementBitWidth")
    if width not in (32, 64, 128):
        raise NotationError(f"swizzlingByteWidth = {width}: read here are 32, 64 and 128")
    if bits != 8 * tile.elem_bytes:
        raise NotationError(f"elementBitWidth = {bits}, the tile's elements are {8 * tile.elem_bytes} bits: give "
                            f"--dtype to match")
    if enc.get("fp4Padded"):
        raise NotationError("fp4Padded = true is not read here")
    vec, per, top = 128 // bits, 128 // width, width // 16
    w = 8 * width // bits  # the tile's columns
    if num_cols < w or num_rows < 8:
        raise NotationError(f"Triton needs a shape of at least [8, {w}] for this encoding (its tile)")
    xors = [row_xor(1 << k, vec, per, top, w, False) for k in range(3)]
    inside = expr.xor(expr.band(mcol, w - 1) if num_cols > w else mcol, xor_node(mrow, xors))  # (xors: bits 0-2)
    node = expr.add(expr.mul(mrow, expr.num(w)), inside)
    if num_cols > w:  # panels of w columns, each num_rows rows deep
        node = expr.add(node, expr.mul(expr.shr(mcol, log2(w)), expr.num(num_rows * w)))
    return node


def leading_as_nvmma(enc: Triton, tile: Tile) -> Triton:
    """Triton 3.0 to 3.2's ``#triton_gpu.shared<{..., hasLeadingOffset = true}>`` (the wgmma operand
    layout, before nvmma_shared replaced it): the same 8-row x W-byte tiles as ``nvmma_shared`` of
    swizzlingByteWidth W = 16 * maxPhase (both go through sharedToLinearLayoutLeadingOffset), for the
    tile's element, whose vec and perPhase it fixes: vec = 128 / bits, perPhase = 128 / W."""
    vec, per, top = (enc.get(k) for k in ("vec", "perPhase", "maxPhase"))
    bits, width = 8 * tile.elem_bytes, 16 * top
    if vec * bits != 128 or per * width != 128:
        raise NotationError(f"hasLeadingOffset = true with vec = {vec}, perPhase = {per}, maxPhase = {top} is no "
                            f"wgmma swizzle of {bits}-bit elements (vec = 128 / bits, perPhase = 128 / (16 * "
                            f"maxPhase)): check --dtype")
    return Triton("nvmma", (("elementBitWidth", bits), ("swizzlingByteWidth", width),
                            ("transposed", enc.get("order", [1, 0]) == [0, 1])))


def padded_node(raw: tuple, intervals) -> tuple:
    node = raw
    for interval, pad in intervals:
        node = expr.add(node, expr.mul(expr.shr(raw, log2(interval)), expr.num(pad)))
    return node


def padded(table: np.ndarray, intervals) -> np.ndarray:
    out = table.copy()
    for interval, pad in intervals:
        out += (table >> log2(interval)) * pad
    return out


def linear_table(tile: Tile, bases) -> tuple[np.ndarray, None, str | None]:
    """The inverse of the offset bases: table[r, c] = the offset whose image is (r, c); the reason
    it is not a bijection of the tile, if it is not."""
    size = tile.rows * tile.cols
    if 1 << len(bases) != size:
        return (np.zeros((tile.rows, tile.cols), dtype=np.int64), None,
                f"its {len(bases)} offset bases address {1 << len(bases)} elements, the tile has {size}")
    images = np.zeros(size, dtype=np.int64)  # flat r * cols + c of each offset
    offsets = np.arange(size, dtype=np.int64)
    for i, (dr, dc) in enumerate(bases):
        if not (0 <= dr < tile.rows and 0 <= dc < tile.cols):
            raise NotationError(f"offset basis {i} is [{dr}, {dc}], outside the {tile.rows} x {tile.cols} tile")
        images ^= np.where((offsets >> i) & 1, dr * tile.cols + dc, 0)
    table = np.full(size, -1, dtype=np.int64)
    table[images] = offsets
    counts = np.bincount(images, minlength=size)
    why = None
    if counts.max() > 1:
        e = int(np.argmax(counts > 1))
        hits = np.flatnonzero(images == e)[:2]
        why = (f"offsets {int(hits[0])} and {int(hits[1])} are both element ({e // tile.cols}, {e % tile.cols}): the "
               f"offset bases are not a bijection of the tile")
    return table.reshape(tile.rows, tile.cols), None, why


# --- parsing ---------------------------------------------------------------------------------

_KINDS = {"shared": "legacy", "swizzled_shared": "swizzled", "amd_rotating_shared": "amd_rotating", "nvmma_shared": "nvmma",
          "padded_shared": "padded", "shared_linear": "linear", "partitioned_shared": "partitioned"}
_GLUON = {"SwizzledSharedLayout": ("swizzled", ("vec", "per_phase", "max_phase", "order")),
          "NVMMASharedLayout": ("nvmma", ("swizzle_byte_width", "element_bitwidth", "rank", "transposed",
                                          "fp4_padded")),
          "SharedLinearLayout": ("linear", ("offset_bases", "block_bases", "alignment")),
          "PaddedSharedLayout.with_identity_for": ("padded", ("interval_padding_pairs", "shape", "order")),
          "PartitionedSharedLayout": ("partitioned", ("num_partitions", "num_groups", "partition_dim",
                                                      "partition_layout"))}
_GLUON_NAMES = {"ctas_per_cga": "CTAsPerCGA", "cta_split_num": "CTASplitNum", "cta_order": "CTAOrder",
                "per_phase": "perPhase", "max_phase": "maxPhase", "swizzle_byte_width": "swizzlingByteWidth",
                "element_bitwidth": "elementBitWidth", "fp4_padded": "fp4Padded", "offset_bases": "offset",
                "block_bases": "block", "interval_padding_pairs": "intervals", "num_partitions": "numPartitions",
                "num_groups": "numGroups", "partition_dim": "partitionDim", "partition_layout": "partitionLayout"}
_KEYS = {"swizzled": {"vec", "perPhase", "maxPhase", "order"}, "leading": {"vec", "perPhase", "maxPhase", "order"}, "amd_rotating": {"vec", "perPhase", "maxPhase", "order"},
         "nvmma": {"swizzlingByteWidth", "transposed", "elementBitWidth", "fp4Padded", "rank"},
         "padded": {"intervals", "order", "shape", "offset", "block"}, "linear": {"offset", "block", "alignment"},
         "partitioned": {"numPartitions", "numGroups", "partitionDim", "partitionLayout"}}
_CGA = {"CTAsPerCGA", "CTASplitNum", "CTAOrder", "cga_layout", "CGALayout"}


def parse(text: str) -> Triton:
    if len(text) > MAX_TEXT:
        raise NotationError(f"the Triton encoding has {len(text)} characters, above the limit of {MAX_TEXT}")
    toks = _tokens(text)
    p = _Parser(toks, len(text))
    body = re.sub(r"^\s*#?\w+\s*=\s*(?=#)", "", text)  # "#shared = #ttg.swizzled_shared<...>": the alias is dropped
    if body != text:
        p = _Parser(_tokens(body), len(body))
    first = p.peek()
    if first is None:
        raise NotationError("the Triton encoding is empty")
    if first[0] == "attr":
        kind, params = p.attribute()
    else:
        kind, params = p.gluon()
    if p.peek() is not None:
        raise NotationError(f"unexpected {p.peek()[1]!r} after the encoding", p.peek()[2])
    return _checked(kind, params)


def _tokens(text: str) -> list[tuple[str, str, int]]:
    out = []
    for m, col in expr.scan(text, _TOKEN, 100, "a Triton encoding"):
        kind = "attr" if m[1] else "int" if m[2] else "name" if m[3] else "punct"
        if kind == "int" and len(m[0].lstrip("-")) > 9:
            raise NotationError(f"the number {m[0][:12]} is too large", col)
        out.append((kind, m[0], col))
    return out


class _Parser:
    def __init__(self, toks, end: int):
        self.toks, self.i, self.end = toks, 0, end + 1
        self.nested = 0  # encodings read inside another (partitioned_shared's partitionLayout): one level

    def inner(self, read, col: int):
        """An encoding inside an encoding (``read``: attribute or gluon), at most one level deep."""
        if self.nested:
            raise NotationError("an encoding nested in an encoding nested in another: partitionLayout is one level",
                                col)
        self.nested += 1
        try:
            return _checked(*read())
        finally:
            self.nested -= 1

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self, want: str | None = None):
        tok = self.peek()
        if tok is None or (want is not None and tok[1] != want):
            raise NotationError(f"expected {want!r}" + (f", not {tok[1]!r}" if tok else " before the end")
                                if want else "the encoding ends too early", tok[2] if tok else self.end)
        self.i += 1
        return tok

    def attribute(self) -> tuple[str, dict]:
        _, name, col = self.take()
        kind = _KINDS.get(name.split(".")[-1])
        if "." not in name and self.peek() is None:  # `#shared`, as a memdesc type names it
            raise NotationError(f"{name} is the TTGIR's alias of an encoding: give what it names, from the line "
                                f"'{name} = #ttg....' at the top of the TTGIR", col)
        if kind is None or not re.fullmatch(r"#(ttg|triton_gpu)\.\w+", name):
            raise NotationError(f"{name} is not a shared encoding read here (#ttg.swizzled_shared, #ttg.nvmma_shared, "
                                f"#ttg.padded_shared, #ttg.shared_linear, #ttg.amd_rotating_shared, "
                                f"#ttg.partitioned_shared)", col)
        self.take("<")
        params: dict = {}
        while (tok := self.peek()) is not None and tok[1] != ">":
            if tok[1] == ",":
                self.i += 1
            elif tok[1] == "{":
                params.update(self.value(0))
            elif tok[1] == "[":
                params["intervals"] = self.value(0)
            elif tok[0] == "name":
                self.i += 1
                self.take("=")
                params[tok[1]] = self.value(0)
            else:
                raise NotationError(f"unexpected {tok[1]!r} in the attribute", tok[2])
        self.take(">")
        return kind, params

    def gluon(self) -> tuple[str, dict]:
        _, name, col = self.take()
        base = re.sub(r"^(ttgl|gl|triton\.experimental\.gluon\.language|language)\.", "", name)
        base = re.sub(r"^(nvidia\.(hopper|blackwell|ampere)\.|amd\.(cdna5\.|gfx1250\.)?)", "", base)
        if base not in _GLUON:
            raise NotationError(f"{name}(...) is not a Gluon shared layout read here ({', '.join(_GLUON)})", col)
        kind, positional = _GLUON[base]
        self.take("(")
        params: dict = {}
        k = 0
        while (tok := self.peek()) is not None and tok[1] != ")":
            if tok[1] == ",":
                self.i += 1
                continue
            nxt = self.toks[self.i + 1] if self.i + 1 < len(self.toks) else None
            if tok[0] == "name" and nxt is not None and nxt[1] == "=":
                self.i += 2
                key = tok[1]
            else:
                if k >= len(positional):
                    raise NotationError(f"{base} takes at most {len(positional)} positional arguments", tok[2])
                key, k = positional[k], k + 1
            if _GLUON_NAMES.get(key, key) in params:  # (Python: "got multiple values for argument")
                raise NotationError(f"{base} is given {key} twice", tok[2])
            params[_GLUON_NAMES.get(key, key)] = self.value(0)
        self.take(")")
        if kind == "padded" and "intervals" in params:
            params["intervals"] = [tuple(x) if isinstance(x, list) else x for x in params["intervals"]]
        return kind, params

    def value(self, depth: int):
        if depth > MAX_DEPTH:
            tok = self.peek()
            raise NotationError(f"nested more than {MAX_DEPTH} levels deep", tok[2] if tok else self.end)
        kind, text, col = self.take()
        if kind == "attr":  # an encoding inside one (partitioned_shared's partitionLayout)
            self.i -= 1
            return self.inner(self.attribute, col)
        if kind == "int":
            return int(text)
        if kind == "name" and (nxt := self.peek()) is not None and nxt[1] == "(":  # a Gluon layout inside one
            self.i -= 1
            return self.inner(self.gluon, col)
        if kind == "name":
            if text.lower() in ("true", "false"):
                return text.lower() == "true"
            return text
        if text == "[":
            return self.listed(depth)
        if text == "{":
            return self.entries(depth)
        raise NotationError(f"{text!r} where a value is expected", col)

    def listed(self, depth: int) -> list:
        """A list's items after its '[' (an item ``I:+P`` is the pair (I, P): padded_shared)."""
        items = []
        while (tok := self.peek()) is not None and tok[1] != "]":
            if tok[1] == ",":
                self.i += 1
                continue
            item = self.value(depth + 1)
            if isinstance(item, int) and (nxt := self.peek()) is not None and nxt[1] == ":":
                self.i += 1
                self.take("+")
                item = (item, self.value(depth + 1))
            items.append(item)
        self.take("]")
        return items

    def entries(self, depth: int) -> dict:
        """A dictionary's ``key = value`` entries after its '{'."""
        out = {}
        while (tok := self.peek()) is not None and tok[1] != "}":
            if tok[1] == ",":
                self.i += 1
                continue
            if tok[0] != "name":
                raise NotationError(f"expected a key, not {tok[1]!r}", tok[2])
            self.i += 1
            self.take("=")
            out[tok[1]] = self.value(depth + 1)
        self.take("}")
        return out


def _ints(v, n: int | None = None) -> bool:
    return isinstance(v, list) and all(isinstance(x, int) and not isinstance(x, bool) for x in v) and (
        n is None or len(v) == n)


def _checked(kind: str, params: dict) -> Triton:
    """The parameters, checked against the encoding's; one CTA only."""
    if kind == "legacy":  # Triton 3.0-3.2's #triton_gpu.shared: swizzled, or with a leading offset, wgmma's
        leading = params.pop("hasLeadingOffset", False)
        if not isinstance(leading, bool):
            raise NotationError("hasLeadingOffset is true or false")
        kind = "leading" if leading else "swizzled"
    _drop_default_cga(params)
    for key in sorted(set(params) - _KEYS[kind] - _CGA):
        raise NotationError(f"{key} is not a parameter of this encoding (its parameters: "
                            f"{', '.join(sorted(_KEYS[kind]))})")
    value = params.get("CTAsPerCGA", [1])
    if not (_ints(value) and all(x == 1 for x in value)):
        raise NotationError(f"CTAsPerCGA = {value}: the tile is one CTA's shared memory (give all ones)")
    _check_values(kind, params)
    frozen = {k: (tuple(tuple(x) if isinstance(x, list) else x for x in v) if isinstance(v, list) else v)
              for k, v in params.items() if k not in _CGA}
    if "order" in frozen:
        frozen["order"] = list(frozen["order"])
    return Triton(kind, tuple(sorted(frozen.items(), key=lambda kv: kv[0])))


def _drop_default_cga(params: dict) -> None:
    """Gluon's ``ctas_per_cga=None`` (and the other two): its default, ones (one CTA), as Gluon's
    ``_realize_cta_layout`` fills it in; dropped, as an absent key is."""
    for key in [k for k in _CGA if params.get(k) == "None"]:
        del params[key]


def _check_values(kind: str, params: dict) -> None:
    if kind in ("swizzled", "amd_rotating", "leading"):
        for key in ("vec", "perPhase", "maxPhase"):
            if not (isinstance(params.get(key), int) and params[key] >= 1):
                raise NotationError(f"{key} must be a positive integer")
    if "order" in params and not _ints(params["order"], 2):
        raise NotationError("order must be [1, 0] or [0, 1] (a 2-D tile)")
    if kind == "nvmma":
        for key in ("swizzlingByteWidth", "elementBitWidth"):
            if not isinstance(params.get(key), int):
                raise NotationError(f"{key} is missing (an integer)")
        if params.get("rank", 2) != 2:
            raise NotationError("rank must be 2 (a 2-D tile)")
    _check_padded_and_linear(kind, params)
    if kind == "partitioned":
        _check_partitioned(params)


def _check_partitioned(params: dict) -> None:
    for key in ("numPartitions", "numGroups"):
        if not (isinstance(params.get(key), int) and is_pow2(params[key])):
            raise NotationError(f"{key} must be a power of two (Triton's verifier)")
    if params.get("partitionDim") not in (0, 1):
        raise NotationError("partitionDim must be 0 or 1 (a 2-D tile)")
    inner = params.get("partitionLayout")
    if not isinstance(inner, Triton) or inner.kind == "partitioned":
        raise NotationError("partitionLayout must be given, a shared encoding (swizzled_shared, padded_shared, "
                            "shared_linear, ...), not a partitioned one")


def _check_padded(params: dict) -> None:
    """padded_shared's own parameters: its interval:+padding pairs, and a shape or offset bases."""
    pairs = params.get("intervals")
    if not (isinstance(pairs, list) and pairs and all(isinstance(x, tuple) and len(x) == 2 for x in pairs)
            and all(is_pow2(i) and p >= 1 for i, p in pairs)):
        raise NotationError("padded_shared takes [interval:+padding, ...] pairs, intervals powers of two")
    if "offset" not in params and ("shape" not in params or not _ints(params["shape"], 2)):
        raise NotationError("padded_shared needs shape = [rows, cols] (with order) or its offset bases")


def _check_padded_and_linear(kind: str, params: dict) -> None:
    if kind == "padded":
        _check_padded(params)
    if kind in ("linear", "padded") and "offset" in params:
        bases = params["offset"]
        if not (isinstance(bases, list) and all(_ints(b, 2) for b in bases)) or len(bases) > 20:
            raise NotationError("offset must be a list of [row, col] bases (at most 20)")
        params["offset"] = [tuple(b) for b in bases]
    if any(b != [0, 0] for b in params.get("block", []) or []) or params.get("cga_layout", []):
        raise NotationError("block bases move between CTAs; the tile is one CTA's: give block = []")


def read(body: str, base=None, allow_outside: bool = True) -> Triton:
    """The notation's entry (notation/__init__.py): ``triton: body``."""
    return parse(body)
