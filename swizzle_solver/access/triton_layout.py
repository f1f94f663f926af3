"""A Triton linear layout as an access pattern (`--linear-layout FILE`).

Triton's LinearLayout (include/triton/Tools/LinearLayout.h) maps hardware indices to tensor
coordinates over GF(2): each input dimension (``register``, ``lane``, ``warp``, ``block``) has one
*basis* per index bit, the image of that bit as a tuple of out-dim coordinates, and the image of an
index is the XOR of the images of its set bits. Here the out dims are (row, col) of the tile.

As an access: the lanes of one warp with one register index form a request. Registers whose
low bits step along the columns one element at a time (register bit i -> (0, 2^i)) are one vector
per lane, up to 16 bytes; every other register bit, and every warp, issues another request. Each
request is split into hardware phases by hardware.Hardware.split_request.

Accepted files (one layout each):

- JSON: ``{"name": ..., "register": [[0, 1], ...], "lane": [...], "warp": [...], "block": [],
  "out_dims": {"dim0": 16, "dim1": 8}}`` (bases may also sit under ``"bases"``; Gluon's
  ``reg_bases``/``lane_bases``/``warp_bases``/``block_bases`` and ``shape`` are accepted too);
- ``str(LinearLayout)``: `` - register=1 -> (0, 1)`` lines and ``where out dims are: [...]``;
- the TTGIR attribute ``#ttg.linear<{register = [[0, 1]], lane = [...], warp = [...], block = []}>``.

Out dims named dim0/dim1 (or row/col) are (row, col) whatever their order; other names are taken
in order. Without sizes, each is the smallest power of two holding every image.
"""
from __future__ import annotations

import re
from pathlib import Path

from ..hardware import Hardware
from ..model import MAX_VECTOR_BYTES, InputError, Pattern, Tile, is_pow2
from ..value import replace
from .inputfile import load_json, printable, read_text
from .warp import tile_pattern

IN_DIMS = ("register", "lane", "warp", "block")
MAX_INDEX_BITS = 20  # a 512 KiB tile of 1-byte elements has 2^19 elements
_ALIASES = {"reg_bases": "register", "lane_bases": "lane", "warp_bases": "warp", "block_bases": "block"}


def load_linear_layout(path: str, tile: Tile, hardware: Hardware, write: bool = False) -> Pattern:
    """``write``: the layout stores the tile (``store:FILE``): its requests are never paired loads."""
    text = read_text(path, "linear layout file")
    return linear_layout_pattern(text, Path(path).stem, tile, hardware, f"linear layout file {printable(path)}",
                                 write)


def linear_layout_pattern(text: str, default_name: str, tile: Tile, hardware: Hardware,
                          where: str = "linear layout", write: bool = False) -> Pattern:
    """The access a layout in any accepted form describes; named by its "name", else default_name."""
    name, bases, out_dims = parse_layout_text(text, where)
    bases, shape = _row_col(bases, out_dims, where)
    if tile.col_major:  # --order col: the tile's (r, c) stored as (c, r), vectors found down its columns
        bases = {k: [(c, r) for r, c in v] for k, v in bases.items()}
        shape = (shape[1], shape[0])
    return layout_pattern(printable(name or default_name), bases, shape, tile, hardware, where, write)


def layout_bases(text: str, default_name: str, where: str) -> tuple[str, dict, tuple[int, int]]:
    """(name, {in dim: [(row, col)]}, (rows, cols)) of a layout in any accepted form, checked
    (``--vectors auto`` reads the bases themselves: vectors.py)."""
    name, bases, out_dims = parse_layout_text(text, where)
    rc, shape = _row_col(bases, out_dims, where)
    return printable(name or default_name), rc, shape


def parse_layout_text(text: str, where: str) -> tuple[str | None, dict, list]:
    """(name, {in dim: [basis tuples]}, [(out dim name, size or None)]) from any accepted form."""
    stripped = text.strip()
    if stripped.startswith("{"):
        return _from_json(load_json(stripped, where), where)
    body = _attribute_body(stripped)
    if body is not None:
        body = _ATTR_KEY.sub(r'"\1":', body)
        try:
            doc = load_json("{" + body + "}", where)
        except InputError:
            raise InputError(f"{where}: cannot read the #ttg.linear attribute; write it as "
                             f"#ttg.linear<{{register = [[0, 1]], lane = [...], warp = [...], block = []}}>") from None
        return _from_json(doc, where)
    if "where out dims are" in stripped:
        return _from_str(stripped, where)
    raise InputError(f"{where} is not a linear layout: write JSON with register/lane/warp bases and out_dims, "
                     f"paste str(LinearLayout), or a #ttg.linear<{{...}}> attribute")


# Every pattern here reads its input once: a word is matched from its first letter only (\b) and
# whole (possessive ++), so a long word that is not a key (or a size) is not tried again from each
# of its letters, which made the reader quadratic (20,000 letters took 4 s).
_ATTR_KEY = re.compile(r"\b(\w++)\s*+=")
_ATTR_OPEN, _ATTR_CLOSE = "#ttg.linear<{", "}>"


def _attribute_body(text: str) -> str | None:
    """What ``#ttg.linear<{...}>`` holds, from its first opening to the last ``}>``, or None."""
    start = text.find(_ATTR_OPEN)
    end = text.rfind(_ATTR_CLOSE)
    if start < 0 or end < start + len(_ATTR_OPEN):
        return None
    return text[start + len(_ATTR_OPEN):end]


def _from_json(doc, where: str) -> tuple[str | None, dict, list]:
    if not isinstance(doc, dict):
        raise InputError(f"{where}: the top level must be an object with register/lane/warp bases")
    bases = _json_bases(doc, where)
    out_dims = _json_out_dims(doc, bases, where)
    return _json_name(doc, where), bases, out_dims


def _json_bases(doc: dict, where: str) -> dict:
    """The document's bases by input dimension (aliases such as ``lane_bases`` read as ``lane``),
    checked: known keys only, some lane bases, each basis a non-empty list of integers."""
    source = doc.get("bases", doc)
    if not isinstance(source, dict):
        raise InputError(f"{where}: bases must be an object {{\"register\": [...], \"lane\": [...], ...}}")
    # the layout's own keys sit beside the bases only when the bases are the top level
    known = set(IN_DIMS) | set(_ALIASES) | ({"name", "out_dims", "shape", "bases"} if source is doc else set())
    unknown = sorted(set(source) - known)
    if unknown:
        raise InputError(f"{where}: unknown key {unknown[0]!r}: the keys are name, register, lane, warp, block "
                         f"and out_dims")
    bases = {_ALIASES.get(k, k): v for k, v in source.items() if _ALIASES.get(k, k) in IN_DIMS}
    if not bases.get("lane"):
        raise InputError(f"{where}: no lane bases: give \"lane\": [[row, col], ...] (one per lane bit)")
    for dim, vectors in bases.items():
        if not _integer_tuples(vectors):
            raise InputError(f"{where}: {dim} bases must be a list of integer tuples like [[0, 1], [1, 0]]")
    return bases


def _is_int(x) -> bool:
    """An integer of JSON's (true and false are not)."""
    return isinstance(x, int) and not isinstance(x, bool)


def _integer_tuples(vectors) -> bool:
    """Whether ``vectors`` is a list of non-empty lists of integers."""
    return isinstance(vectors, list) and all(isinstance(v, list) and v and all(_is_int(x) for x in v)
                                             for v in vectors)


def _json_out_dims(doc: dict, bases: dict, where: str) -> list:
    """The out dims as (name, size) pairs: from ``out_dims`` (or ``shape``) given as {name: size},
    [size, ...] or [[name, size], ...]; without them, one unnamed, unsized dim per basis coordinate."""
    out = doc.get("out_dims", doc.get("shape"))
    if out is None:
        return _unsized_dims(bases)
    if isinstance(out, dict) and all(_is_int(x) for x in out.values()):
        return list(out.items())
    if isinstance(out, list) and all(isinstance(x, int) for x in out):
        return [(f"dim{i}", size) for i, size in enumerate(out)]
    if isinstance(out, list) and all(_named_size(x) for x in out):
        return [tuple(x) for x in out]
    raise InputError(f"{where}: out_dims must be {{\"dim0\": rows, \"dim1\": cols}} or [rows, cols]")


def _unsized_dims(bases: dict) -> list:
    """Out dims not given: one per coordinate of the longest basis (two when there is none), unsized."""
    dims = max((len(v) for vs in bases.values() for v in vs), default=2)
    return [(f"dim{i}", None) for i in range(dims)]


def _named_size(x) -> bool:
    """Whether ``x`` is a (name, size) pair: two items, the second an integer."""
    return isinstance(x, (list, tuple)) and len(x) == 2 and _is_int(x[1])


def _json_name(doc: dict, where: str) -> str | None:
    """The layout's ``name``, if given: a non-empty string."""
    name = doc.get("name")
    if name is not None and not (isinstance(name, str) and name.strip()):
        raise InputError(f"{where}: name must be a non-empty string")
    return name

_STR_BASIS = re.compile(r"^\s*(?:-\s*)?(\w+)=(\d{1,18})\s*->\s*\(([^)]*)\)\s*$")
_STR_SIZE1 = re.compile(r"^\s*-\s*(\w+) is a size 1 dimension\s*$")
_STR_OUT = "where out dims are:"
_STR_SIZE = re.compile(r"\b(\w++)\s*+\(size\s*+(\d{1,18})\)")
_BLANKS = re.compile(r"\s*+")


def _from_str(text: str, where: str) -> tuple[str | None, dict, list]:
    bases: dict[str, list] = {}
    out_dims = None
    for number, line in enumerate(text.splitlines(), 1):
        if m := _STR_BASIS.match(line):
            dim, value = m[1], int(m[2])
            vectors = bases.setdefault(dim, [])
            if value != 1 << len(vectors):
                raise InputError(f"{where}: {dim}={value} is out of order: bases are listed for {dim}=1, 2, 4, ...")
            try:
                vectors.append([int(x) for x in m[3].split(",")])
            except ValueError:
                raise InputError(f"{where}: cannot read the image of {dim}={value} (line {number})") from None
        elif m := _STR_SIZE1.match(line):
            bases.setdefault(m[1], [])
        elif (dims := _out_dims(line)) is not None:
            out_dims = [(d[0], int(d[1])) for d in _STR_SIZE.findall(dims)]
        elif line.strip():
            raise InputError(f"{where}: cannot read line {number} as str(LinearLayout) (a basis ' - lane=1 -> (0, 1)' "
                             f"or 'where out dims are: [...]')")
    if not out_dims:
        raise InputError(f"{where}: 'where out dims are: [dim0 (size R), dim1 (size C)]' is missing or empty")
    return _from_json({"bases": bases, "out_dims": out_dims}, where)


def _out_dims(line: str) -> str | None:
    """What ``where out dims are: [...]`` lists in ``line`` (up to its last ``]``), or None: the
    first mention followed by ``[`` (after blanks) and a ``]``, read once."""
    close = line.rfind("]")
    at = line.find(_STR_OUT)
    while at >= 0:
        start = at + len(_STR_OUT)
        blanks = _BLANKS.match(line, start)  # (the blanks after each mention: read once in all)
        after = blanks.end() if blanks else start
        if after < close and line[after] == "[":
            return line[after + 1:close]
        at = line.find(_STR_OUT, start)
    return None


def _row_col(bases: dict, out_dims: list, where: str) -> tuple[dict, tuple[int, int]]:
    """Bases as {in dim: [(row, col)]} and the layout's (rows, cols), checked."""
    names = [str(n) for n, _ in out_dims]
    if len(names) != 2:
        raise InputError(f"{where}: {len(names)} out dims ({', '.join(names)}): a tile access needs two, "
                         f"rows then columns (dim0, dim1)")
    order = [0, 1]
    for pair in (("dim0", "dim1"), ("row", "col")):
        if set(names) == set(pair):
            order = [names.index(pair[0]), names.index(pair[1])]
    out = {}
    for dim, vectors in bases.items():
        for v in vectors:
            if len(v) != 2:
                raise InputError(f"{where}: {dim} basis {v} has {len(v)} coordinates, but there are 2 out dims")
        out[dim] = [(v[order[0]], v[order[1]]) for v in vectors]
    sizes = [_axis_size(out_dims[order[k]][1], [v[k] for vs in out.values() for v in vs], names[order[k]], axis, where)
             for k, axis in enumerate(("rows", "cols"))]
    return out, (sizes[0], sizes[1])


def _axis_size(size, images: list[int], name: str, axis: str, where: str) -> int:
    """The layout's extent along one axis (``size`` as given, or None: the smallest power of two
    holding every XOR of the bases' images), checked against the images."""
    if any(x < 0 for x in images):
        raise InputError(f"{where}: a basis has a negative coordinate; images are tile coordinates >= 0")
    if size is None:  # the smallest power of two holding every XOR of images
        span = 0
        for x in images:
            span |= x
        size = 1 << span.bit_length()
    if not (isinstance(size, int) and is_pow2(size)):
        raise InputError(f"{where}: out dim {name} size {size!r} is not a power of two")
    if any(x >= size for x in images):
        raise InputError(f"{where}: a basis reaches {axis[:-1]} {max(images)}, outside the layout's {size} {axis}")
    return size


def xor_image(bases: list[tuple[int, int]], index: int) -> tuple[int, int]:
    """(row, col) of an index: the XOR of the images of its set bits."""
    r = c = 0
    for bit, (dr, dc) in enumerate(bases):
        if index >> bit & 1:
            r, c = r ^ dr, c ^ dc
    return r, c


def _check_extent(bases: dict, shape: tuple[int, int], tile: Tile, hardware: Hardware, where: str) -> None:
    """Refuse a layout this tile cannot hold as one access: block bases that move (another CTA's
    shared memory), more lanes than a warp, out dims beyond the tile, too many index bits."""
    rows, cols = shape
    lane, reg, warp = bases.get("lane", []), bases.get("register", []), bases.get("warp", [])
    if any(v != (0, 0) for v in bases.get("block", [])):
        raise InputError(f"{where}: block bases move between CTAs, which do not share this shared memory: "
                         f"give block = [] (one CTA)")
    if 1 << len(lane) > hardware.wave_lanes:
        wave = hardware.wave_lanes
        raise InputError(f"{where}: {len(lane)} lane bases make {1 << len(lane)} lanes; a {hardware.group} has {wave} "
                         f"({wave.bit_length() - 1} bases)")
    if rows > tile.rows or cols > tile.cols:
        raise InputError(f"{where}: the layout covers {rows} x {cols} elements, outside the "
                         f"{tile.rows} x {tile.cols} tile: use a larger tile or smaller out dims")
    if len(reg) + len(lane) + len(warp) > MAX_INDEX_BITS:
        raise InputError(f"{where}: {len(reg) + len(lane) + len(warp)} register, lane and warp bases index more than "
                         f"2^{MAX_INDEX_BITS} values: describe the layout of one shared-memory tile")


def _vector_bits(reg: list, lane: list, warp: list, e: int) -> int:
    """How many low register bits make one lane's vector: those that step along one row (register
    bit i to column 2^i), up to the widest vector, ..."""
    vec = 0
    while (vec < len(reg) and reg[vec] == (0, 1 << vec)
           and (2 << vec) * e <= MAX_VECTOR_BYTES):
        vec += 1
    # ... provided every lane's run starts at a multiple of it: the images combine by XOR, so from a
    # column with low bits set the "vector" would run backwards (7, 6), which no load issues.
    starts = [c for _, c in lane + warp + reg[vec:]]
    while vec and any(c % (1 << vec) for c in starts):
        vec -= 1
    return vec

def layout_pattern(name: str, bases: dict, shape: tuple[int, int], tile: Tile, hardware: Hardware,
                   where: str, write: bool = False) -> Pattern:
    """The layout's requests (one per warp and register group), split into phases, over the tile."""
    rows, cols = shape
    lane, reg, warp = bases.get("lane", []), bases.get("register", []), bases.get("warp", [])
    _check_extent(bases, shape, tile, hardware, where)
    vec = _vector_bits(reg, lane, warp, tile.elem_bytes)
    v = tile.elem_bytes << vec
    # each request is one instruction of the op moving a v-byte vector: split and counted by that
    # op's own cell (AMD: a ds_write's banks and phases, not the reads'; NVIDIA: the rule by width)
    served = hardware.by_vector(v, write)
    template = []
    lanes = [xor_image(lane, i) for i in range(1 << len(lane))]  # the same in every request
    # every request is the first XORed with one (row, col): lanes start together in it exactly when
    # they do in the first, so a load is paired in all or none (Hardware.pairs) and one phase split
    # (split_request's) serves every request
    phases = served.phase_indices(len(lanes), v, served.pairs(lanes, v, write))
    for w in range(1 << len(warp)):
        wr, wc = xor_image(warp, w)
        for g in range(1 << (len(reg) - vec)):
            rr, rc = xor_image(reg, g << vec)
            r0, c0 = wr ^ rr, wc ^ rc
            template += [[(r0 ^ lanes[i][0], c0 ^ lanes[i][1], v) for i in phase] for phase in phases]
    summary = (f"{1 << len(warp)} warp(s) x {1 << len(lane)} lanes x {1 << len(reg)} registers over "
               f"{rows} x {cols}, {v}-byte vectors")
    pattern = tile_pattern(name, "linear-layout", template, rows, cols, summary, tile, served)
    # the op's bank count where it is not the target's (as warp.as_instruction marks an OP:RxC form)
    return pattern if hardware.fixed_banks or served.banks == hardware.banks else replace(pattern, banks=served.banks)
