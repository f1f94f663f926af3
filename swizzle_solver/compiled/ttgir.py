"""Triton/Gluon IR (``.ttgir``, DESIGN.md section 15): each shared-memory op one row, counted from its
shared encoding and the register encoding of its value, and a better shared encoding per allocation.

The ops: ``ttg.local_alloc`` with a value (a store of registers), ``ttg.local_store`` (a store),
``ttg.local_load`` (a load), ``ttg.async_copy_global_to_local`` (cp.async: a store whose lanes are
the pointer tensor's); ``ttg.memdesc_*`` are views (no access) and ``ttng.warp_group_dot`` /
``ttng.async_tma_copy_*`` read or write shared memory through hardware descriptors: rows, not
counted, with the reason. A row is counted when its register encoding is ``#ttg.blocked`` or
``#ttg.linear`` (turned into register/lane/warp bases here, Triton's blockedToLinearLayout) and its
shared encoding one notation/triton.py reads (swizzled, padded, nvmma, amd_rotating, shared_linear):
the value's lanes, warp by warp, are the phases of a ``--linear-layout`` access over the
allocation's last two dimensions, measured under the encoding by the simulator. A ``ttg.local_load``
into an mma.sync operand (``#ttg.dot_op`` of an ``#ttg.nvidia_mma`` v2 parent, 2-byte elements, a
row-major shared encoding) is counted as the ldmatrix reads Triton lowers it to (ttgir_dot.py: the row
addresses as a linear layout, op ``ldsm``); other dot operands and MMA encodings are not read (the
PTX, where their addresses are, is: ``kernel FILE.ptx``).

Per allocation with excess, the solver's answer for its counted accesses is printed as the ``#ttg``
attribute ``--emit triton`` gives (``better``), or None where Triton cannot express it.
"""
from __future__ import annotations

import json
import re

from ..model import InputError, Problem

ACCESS_OPS = {"ttg.local_alloc": "st", "ttg.local_store": "st", "ttg.local_load": "ld",
              "ttg.async_copy_global_to_local": "ldgsts"}
DESCRIPTOR_OPS = ("ttng.warp_group_dot", "ttng.async_tma_copy_global_to_local", "ttng.async_tma_copy_local_to_global",
                  "ttng.tc_gen5_mma")
ELEM_BYTES = {"f16": 2, "bf16": 2, "f32": 4, "i32": 4, "i8": 1, "f8E4M3FN": 1, "f8E5M2": 1, "i16": 2, "f64": 8,
              "i64": 8}
MAX_TEXT = 20_000_000


def _aliases(text: str) -> dict[str, str]:
    """``#name`` -> the attribute it stands for (``#blocked = #ttg.blocked<{...}>``)."""
    return {m[1]: m[2].strip() for m in re.finditer(r"^(#[\w.]+)\s*=\s*(#ttg\.[^\n]*)$", text, flags=re.M)}


def _locations(text: str) -> dict[str, tuple[str, int]]:
    """``#locN`` -> (file, line): its own ``loc("file":L:C)`` or the one it names (``loc("a"(#loc3))``)."""
    raw = {m[1]: m[2] for m in re.finditer(r"^(#loc\d*)\s*=\s*loc\((.*)\)$", text, flags=re.M)}
    out: dict[str, tuple[str, int]] = {}
    for _ in range(8):  # names point at earlier locations: a few passes resolve every chain
        for name, body in raw.items():
            at = re.search(r'"([^"]+)":(\d+):\d+', body)
            if at:
                out[name] = (at[1], int(at[2]))
            else:
                ref = re.search(r"(#loc\d*)", body)
                if ref and ref[1] in out:
                    out[name] = out[ref[1]]
    return out


def _encoding(text: str, aliases: dict[str, str]) -> str:
    """An encoding as written (an alias resolved), e.g. ``#ttg.swizzled_shared<{vec = 8, ...}>``."""
    text = text.strip()
    return aliases.get(text, text)


def _split_type(body: str) -> tuple[list[int], str, str]:
    """(shape, element type, encoding) of ``64x32xf16, #shared, #smem`` (a tensor's or a memdesc's)."""
    head, _, rest = body.partition(",")
    dims = head.strip().split("x")
    shape = [int(d) for d in dims if d.isdigit()]
    element = dims[len(shape)] if len(dims) > len(shape) else ""
    depth, encoding = 0, ""
    for ch in rest:  # up to the first comma outside <...> (a memdesc's memory space follows)
        depth += ch == "<"
        depth -= ch == ">"
        if ch == "," and depth == 0:
            break
        encoding += ch
    return shape, element, encoding.strip()


def _types(line: str, kind: str) -> list[str]:
    """The bodies of every ``tensor<...>`` (kind "tensor") or ``!ttg.memdesc<...>`` in ``line``."""
    opener = "tensor<" if kind == "tensor" else "!ttg.memdesc<"
    out, start = [], line.find(opener)
    while start >= 0:
        i, depth = start + len(opener), 1
        while i < len(line) and depth:
            depth += (line[i] == "<") - (line[i] == ">")
            i += 1
        out.append(line[start + len(opener):i - 1])
        start = line.find(opener, i)
    return [t for t in out if not t.startswith("!") or kind != "tensor"]


def _ints(attribute: str, key: str) -> list[int]:
    found = re.search(rf"\b{key}\s*=\s*\[([^\]]*)\]", attribute)
    if not found:
        raise InputError(f"{attribute}: no {key}")
    return [int(x) for x in found[1].split(",") if x.strip()]


def blocked_bases(attribute: str, shape: list[int]) -> dict[str, list[list[int]]]:
    """register/lane/warp bases of ``#ttg.blocked<{...}>`` over a 2-D ``shape`` (Triton's
    blockedToLinearLayout): along the dimensions in ``order`` (fastest first), sizePerThread's bits
    as registers, threadsPerWarp's as lanes, warpsPerCTA's as warps, each continuing where the
    previous level ends; a dimension larger than the layout repeats it in more registers, a smaller
    one broadcasts (its bases past the shape are 0 in that dimension)."""
    order = _ints(attribute, "order")
    levels = {"register": _ints(attribute, "sizePerThread"), "lane": _ints(attribute, "threadsPerWarp"),
              "warp": _ints(attribute, "warpsPerCTA")}
    bases: dict[str, list[list[int]]] = {"register": [], "lane": [], "warp": []}
    covered = [1, 1]
    for kind, sizes in levels.items():
        for d in order:
            for k in range(sizes[d].bit_length() - 1):
                basis = [0, 0]
                basis[d] = covered[d] << k
                bases[kind].append(basis)
            covered[d] *= sizes[d]
    for d in order:  # the tensor larger than one layout: more registers
        while covered[d] < shape[d]:
            basis = [0, 0]
            basis[d] = covered[d]
            bases["register"].append(basis)
            covered[d] *= 2
    return {kind: [[c if c < shape[d] else 0 for d, c in enumerate(b)] for b in vs] for kind, vs in bases.items()}


def register_bases(encoding: str, shape: list[int]) -> dict[str, list[list[int]]] | None:
    """The value's bases, or None for an encoding not read here (dot operands, MMA, slices)."""
    if encoding.startswith("#ttg.blocked<"):
        return blocked_bases(encoding, shape)
    if encoding.startswith("#ttg.linear<"):
        from ..access.triton_layout import parse_layout_text

        _, bases, _ = parse_layout_text(encoding, "the #ttg.linear encoding")
        return {k: [list(b) for b in v] for k, v in bases.items() if k in ("register", "lane", "warp")}
    return None


def _op_name(line: str) -> str | None:
    """The op of an IR line when it touches or views shared memory, else None."""
    op = re.search(r"=\s*([\w.]+)\s|^\s*([\w.]+)\s", line)
    name = (op[1] or op[2]) if op else ""
    if name in ACCESS_OPS or name in DESCRIPTOR_OPS or name.startswith("ttg.memdesc_"):
        return name
    return None


def _allocation(line: str, name: str) -> str | None:
    """The SSA value of the shared memory: a local_alloc's result, any other op's first operand."""
    if name == "ttg.local_alloc":
        result = re.match(r"\s*(%[\w#]+)", line)
        return result[1] if result else None
    operands = re.findall(r"(%[\w#]+)", line.split("=", 1)[-1].split(":")[0])
    return operands[0] if operands else None


def _encodings(line: str, name: str, aliases: dict[str, str]) -> dict:
    """shared_encoding, shape (the last two dimensions), elem_bytes and register_encoding of a line."""
    out: dict = {"shared_encoding": None, "register_encoding": None, "shape": None, "elem_bytes": None}
    memdescs, tensors = _types(line, "memdesc"), _types(line, "tensor")
    if memdescs:
        shape, element, enc = _split_type(memdescs[-1 if name == "ttg.local_alloc" else 0])
        out.update(shared_encoding=_encoding(enc, aliases), shape=shape[-2:], elem_bytes=ELEM_BYTES.get(element))
    if tensors and name in ACCESS_OPS:
        encoding = _encoding(_split_type(tensors[0])[2], aliases)  # a parent named inside (#mma) spelled out
        out["register_encoding"] = re.sub(r"#[\w.]+", lambda m: aliases.get(m[0], m[0]), encoding)
    return out


def _row_of(line: str, number: int, aliases: dict[str, str], locations: dict[str, tuple[str, int]]) -> dict | None:
    name = _op_name(line)
    if name is None:
        return None
    loc = re.search(r"loc\((#loc\d*)\)\s*$", line)
    where = locations.get(loc[1]) if loc else None
    return {"ttgir_line": number, "file": where[0] if where else None, "line": where[1] if where else None,
            "op": name, "access": ACCESS_OPS.get(name), "text": line.strip(), "allocation": _allocation(line, name),
            **_encodings(line, name, aliases), "counted": False, "why_not": None}


def _why_not(row: dict) -> str | None:
    if row["op"] in DESCRIPTOR_OPS:
        return "the hardware reads shared memory through a descriptor (hardware-swizzled): not counted"
    if row["access"] is None:
        return "a view of shared memory: no access"
    if row["register_encoding"] is None:
        return "an allocation with no value: no access"
    if row["elem_bytes"] is None or not row["shape"] or len(row["shape"]) != 2:
        return "the element type or shape is not read here"
    if row["register_encoding"].startswith("#ttg.dot_op<"):
        bases = _dot_bases(row)
        return bases if isinstance(bases, str) else None
    if not row["register_encoding"].startswith(("#ttg.blocked<", "#ttg.linear<")):
        kind = re.match(r"#ttg\.(\w+)", row["register_encoding"])
        return (f"register encoding #ttg.{kind[1] if kind else '?'} is not read here: count the PTX "
                f"(swizzle-solve kernel FILE.ptx), where its addresses are")
    return None


def _dot_bases(row: dict) -> dict[str, list[list[int]]] | str:
    from .ttgir_dot import dot_operand_bases  # the ldmatrix reads of an mma.sync operand

    return dot_operand_bases(row["register_encoding"], row["shape"], row["elem_bytes"], row["shared_encoding"])


def _problem(row: dict, arch: str, name: str) -> Problem:
    """The row's access as a --linear-layout pattern over its allocation's tile."""
    from ..access.tile import make_tile
    from ..access.triton_layout import linear_layout_pattern
    from ..hardware import target

    rows, cols = row["shape"]
    tile = make_tile(rows, cols, None, row["elem_bytes"])
    hardware = target(arch)
    if hardware is None:
        raise InputError(f"--arch {arch!r} is not a target")
    dot = _dot_bases(row) if row["register_encoding"].startswith("#ttg.dot_op<") else None
    bases = dot if isinstance(dot, dict) else register_bases(row["register_encoding"], row["shape"])
    doc = json.dumps({"name": name, **(bases or {}), "block": [], "out_dims": {"dim0": rows, "dim1": cols}})
    return Problem(tile, hardware, (linear_layout_pattern(doc, name, tile, hardware),))


def count(row: dict, arch: str) -> dict:
    """The row's wavefronts under its shared encoding (the simulator, one pass of the value)."""
    from ..names import parse_layout
    from ..solving import check

    problem = _problem(row, arch, f"{row['op']} line {row['ttgir_line']}")
    layout = parse_layout(f"triton: {row['shared_encoding']}", "the shared encoding", tile=problem.tile)
    measured, why = check(problem, layout)
    if why:
        raise InputError(f"ttgir line {row['ttgir_line']}: {row['shared_encoding']} is not usable here: {why}")
    (result,) = measured.results
    ideal = int(result.pattern.lower_bound) * len(result.costs)
    return {"phases": len(result.costs), "wavefronts": result.total, "ideal_wavefronts": ideal,
            "excess": result.total - ideal}


def better(rows: list[dict], arch: str) -> str | None:
    """The #ttg attribute of the solver's answer for the counted accesses of one allocation."""
    from ..api import solve

    problems = [_problem(r, arch, f"{r['op']} line {r['ttgir_line']}") for r in rows]
    joined = Problem(problems[0].tile, problems[0].hardware, tuple(p for q in problems for p in q.patterns))
    answer = solve(joined)
    found = re.search(r"#ttg\.\w+<[^\n]*>", answer.emit("triton"))
    return found[0] if found else None


def read_ttgir(text: str, *, arch: str = "nvidia") -> list[dict]:
    """One row per shared-memory op of the TTGIR ``text`` (see the module's docstring), each counted row
    with phases, wavefronts, ideal_wavefronts and excess, each allocation's rows with ``better``."""
    if len(text) > MAX_TEXT:
        raise InputError(f"the TTGIR is {len(text)} characters: more than {MAX_TEXT} is not read")
    aliases, locations = _aliases(text), _locations(text)
    rows = [r for n, line in enumerate(text.splitlines(), 1) if (r := _row_of(line, n, aliases, locations))]
    for row in rows:
        row["why_not"] = _why_not(row)
        if row["why_not"] is None:
            row.update(count(row, arch), counted=True)
            if row["register_encoding"].startswith("#ttg.dot_op<"):
                row["access"] = "ldsm"  # Triton reads an mma.sync operand with ldmatrix
    by_allocation: dict[str, list[dict]] = {}
    for row in rows:
        if row["counted"]:
            by_allocation.setdefault(row["allocation"], []).append(row)
    for group in by_allocation.values():
        fix = better(group, arch) if any(r["excess"] for r in group) else None
        for row in group:
            row["better"] = fix
    return rows


# --- the rows as DESIGN.md section 15's kernel entries (docs/schema/kernel.schema.json) ----------------


def _functions(text: str) -> list[tuple[int, str]]:
    """(first line, name) of every ``tt.func``, in order."""
    return [(text.count("\n", 0, m.start()) + 1, m[1]) for m in re.finditer(r"tt\.func\s+(?:\w+\s+)?@([\w.$]+)", text)]


def _module_int(text: str, key: str, default: int) -> int:
    found = re.search(rf'"{re.escape(key)}"\s*=\s*(\d+)', text)
    return int(found[1]) if found else default


def _instruction(row: dict, arch: str) -> dict:
    from ..counters import ncu_names
    from ..hardware import target

    hw = target(arch)
    rows, cols = row["shape"]
    counters = {}
    if hw is not None and hw.language == "CUDA" and hw.profiler:  # ncu counts NVIDIA's kernels
        waves, conflicts = ncu_names(row["access"] if row["access"] in ("ld", "st", "ldsm") else "ldgsts")[0]
        counters = {waves: row["wavefronts"], conflicts: row["excess"]}
    return {"file": row["file"] or "", "line": row["line"] or 0, "ptx_line": row["ttgir_line"], "ptx": row["text"],
            "op": row["access"], "allocation": {"name": row["allocation"] or "", "dynamic": False,
                                                "bytes": [0, rows * cols * row["elem_bytes"]]},
            "instances": row["phases"], "wavefronts": row["wavefronts"], "ideal_wavefronts": row["ideal_wavefronts"],
            "excess": row["excess"], "counters": counters,
            "status": "conflicts" if row["excess"] else "conflict-free", "shared_encoding": row["shared_encoding"],
            "register_encoding": row["register_encoding"]}


def _not_counted(row: dict) -> bool:
    """A row the report lists as not counted: an access it cannot read, or a descriptor's."""
    if row["op"] in DESCRIPTOR_OPS:
        return True
    return not row["counted"] and row["access"] is not None and row["register_encoding"] is not None


def _entry(name: str, rows: list[dict], threads: int, arch: str) -> dict:
    instructions = [_instruction(r, arch) for r in rows if r["counted"]]
    counters: dict[str, int] = {}
    for ins in instructions:
        for metric, value in ins["counters"].items():
            counters[metric] = counters.get(metric, 0) + value
    fixes = {r["allocation"]: r["better"] for r in rows if r["counted"] and r.get("better")}
    return {"name": name, "block": [threads, 1, 1], "instructions": instructions, "counters": counters,
            "excess": sum(i["excess"] for i in instructions),
            "not_counted": [{"file": r["file"] or "", "line": r["line"] or 0, "ptx_line": r["ttgir_line"],
                             "ptx": r["text"], "reason": r["why_not"]}
                            for r in rows if _not_counted(r)],
            "fix": {"allocations": [{"allocation": a, "encoding": e} for a, e in sorted(fixes.items())]} if fixes
            else None}


def kernel_entries(text: str, *, arch: str = "nvidia") -> list[dict]:
    """The TTGIR's rows (read_ttgir) as one kernel entry per ``tt.func`` in DESIGN.md section 15's form
    (what ``swizzle-solve kernel FILE.ttgir`` reports): its block is ``ttg.num-warps`` x
    ``ttg.threads-per-warp`` threads; a counted row is an instruction whose ``instances`` are its
    phases; views have no row, the ops served through descriptors and the rows not read are
    ``not_counted`` with the reason; ``fix`` holds each allocation's better ``#ttg`` encoding."""
    rows = read_ttgir(text, arch=arch)
    threads = _module_int(text, "ttg.num-warps", 4) * _module_int(text, "ttg.threads-per-warp", 32)
    functions = _functions(text) or [(1, "ttgir")]
    out = []
    for i, (start, name) in enumerate(functions):
        end = functions[i + 1][0] if i + 1 < len(functions) else 1 << 62
        out.append(_entry(name, [r for r in rows if start <= r["ttgir_line"] < end], threads, arch))
    return out
