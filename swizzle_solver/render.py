"""The rich terminal report: problem, candidates, evidence, code. It formats report.py's dicts, and
asks a family's registry record (families/__init__.py) for what that family adds to them (its code
lines, its verdict), never comparing family names.

Tables are aligned rich ``Text`` lines (``columns`` and ``table`` below), drawn like rich's
``box.SIMPLE_HEAD`` tables: a plain solve then never imports ``rich.table`` (with ``fractions`` and
``decimal``) and draws its report in a fraction of the time (start-up, bench/startup.py).

Everything fits the output's width (the terminal's; 80 columns in a pipe or file unless COLUMNS
says otherwise) without losing a character: a table too wide is split into tables that repeat its
key columns (the candidates' layout and family, an access's spec), so that each line stays one
whole row for grep; a row that still does not fit continues on indented lines, broken between
cells, never inside one. Prose is wrapped to the width, indented lines with their indent; a code
line (the C expression, Triton's bases) wraps at spaces under its label.
"""
from __future__ import annotations

import os
import sys
from collections.abc import Collection, Sequence

from rich.console import Console as RichConsole
from rich.console import ConsoleOptions, Group, RenderableType, RenderResult
from rich.segment import Segment
from rich.text import Text

from .families import baseline, every_solve, record


def stdout_gone() -> None:
    """The reader closed the pipe (``| head``): send the rest of the output nowhere. The exit code
    still says what was found (rich's own default exits with 1, which here means "conflicts")."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


class Console(RichConsole):
    """rich's Console, except that a closed pipe ends the output without exiting (see stdout_gone)."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        stdout_gone()


OK, BAD = "green", "red"
FLOOR = "yellow"  # above the lower bound, at a floor (floors.py): no layout does better


def columns(rows: Sequence[Sequence[str | Text]], right: Collection[int] = (), sep: str = "   ",
            indent: str = "") -> list[Text]:
    """Each row as one Text line: every cell padded to the widest cell of its column (right-justified
    in the columns whose index is in ``right``, left-justified in the others), ``sep`` between
    columns, ``indent`` before the first. Styles are kept; every line has the same width."""
    cells = [[c if isinstance(c, Text) else Text(c) for c in row] for row in rows]
    widths = [max(c.cell_len for c in column) for column in zip(*cells)]
    lines = []
    for row in cells:
        line = Text(indent)
        for i, (cell, width) in enumerate(zip(row, widths)):
            pad = " " * (width - cell.cell_len)
            if i:
                line.append(sep)
            if i in right:
                line.append(pad)
                line.append(cell)
            else:
                line.append(cell)
                line.append(pad)
        lines.append(line)
    return lines


def lines_text(lines: list[Text]) -> Text:
    """Lines as one Text without their trailing spaces, never wrapped or cropped: print it inside a
    Group (console.print joins bare Texts into one, which wraps) with crop=False."""
    for line in lines:
        line.rstrip()
    return Text("\n", no_wrap=True, overflow="ignore").join(lines)  # the joined Text takes these settings


def table(title: str, header: Sequence[str], rows: Sequence[Sequence[str | Text]],
          right: Collection[int] = (), key: int = 0) -> Table:
    """A titled table, as rich draws a Table with box.SIMPLE_HEAD: the title (italic), a blank line,
    the header (bold), a rule of ─ under it, one line per row, then a blank line. Too wide for the
    output, it splits as the module docstring says; ``key`` leading columns repeat in every part."""
    return Table(title, [[Text(h, style="bold") for h in header], *rows], right, key)


FOLD_INDENT = "      "  # a row's continuation lines


class Table:
    """table()'s renderable: it knows the output's width only when printed."""

    def __init__(self, title: str, rows: Sequence[Sequence[str | Text]], right: Collection[int], key: int):
        self.title, self.right, self.key = title, set(right), key
        self.cells = [[c if isinstance(c, Text) else Text(c) for c in row] for row in rows]

    def parts(self, width: int) -> list[list[int]]:
        """The column indices of each part: the key columns, then as many others as fit (at least one)."""
        widths = [max(c.cell_len for c in column) for column in zip(*self.cells, strict=True)]
        used = 2 + sum(w + 3 for w in widths[:self.key]) - 3  # the indent, the key columns and their seps
        if self.key == 0 or used + sum(w + 3 for w in widths[self.key:]) <= width:
            return [list(range(len(widths)))]
        parts: list[list[int]] = [[]]
        room = width - used
        for i in range(self.key, len(widths)):
            if parts[-1] and widths[i] + 3 > room:
                parts.append([])
                room = width - used
            parts[-1].append(i)
            room -= widths[i] + 3
        return [list(range(self.key)) + part for part in parts]

    def __rich_console__(self, console: RichConsole, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        parts = self.parts(width)
        for n, part in enumerate(parts):
            title = self.title if len(parts) == 1 else f"{self.title} (part {n + 1} of {len(parts)})"
            right = {j for j, i in enumerate(part) if i in self.right}
            lines = columns([[row[i] for i in part] for row in self.cells], right, indent="  ")
            rule = lines[0].cell_len  # before _fold_rows strips the header's trailing spaces
            head, *body = _fold_rows(lines, width)
            yield lines_text([Text(title, style="italic"), Text(), *head])
            yield _Rule(rule)
            yield lines_text([*(line for row in body for line in row), Text()])


def _fold_rows(lines: list[Text], width: int) -> list[list[Text]]:
    """Each aligned line (from ``columns``) as the lines it prints: itself when it fits, else broken
    at the cell boundaries (runs of 3 spaces) onto lines indented by FOLD_INDENT."""
    out = []
    for line in lines:
        line.rstrip()
        if line.cell_len <= width:
            out.append([line])
            continue
        pieces, start, plain = [], 0, line.plain
        while True:  # cells: split where three spaces end before a non-space
            cut = plain.find("   ", start)
            while cut != -1 and plain[cut:cut + 4].strip() == "":
                cut += 1
            if cut == -1:
                pieces.append(line[start:])
                break
            pieces.append(line[start:cut + 3])
            start = cut + 3
        rows = [Text()]
        for piece in pieces:
            if rows[-1].cell_len and rows[-1].cell_len + len(piece.plain.rstrip()) > width:
                rows[-1].rstrip()
                rows.append(Text(FOLD_INDENT))
                piece = piece[len(piece.plain) - len(piece.plain.lstrip()):]
            rows[-1].append_text(piece)
        rows[-1].rstrip()
        out.append(rows)
    return out


class _Rule:
    """The rule under a table's header, as wide as the header's line (one column more, as rich draws
    it) but never wider than the output (folded, it would read as several)."""

    def __init__(self, width: int):
        self.width = width

    def __rich_console__(self, console: RichConsole, options: ConsoleOptions) -> RenderResult:
        yield Segment(" " + "─" * min(self.width, options.max_width - 1))
        yield Segment.line()


class Wrapped:
    """Text wrapped to the console width, every line (the wrapped ones too) indented by ``indent``
    columns and without the trailing space rich leaves where it breaks a line. For indenting, this
    replaces rich.padding.Padding, which costs more and pads every line to the console width."""

    def __init__(self, text: Text | str, indent: int = 0):
        self.text, self.indent = Text(text) if isinstance(text, str) else text, indent

    def __rich_console__(self, console: RichConsole, options: ConsoleOptions) -> RenderResult:
        pad = Segment(" " * self.indent)
        for line in self.text.wrap(console, max(1, options.max_width - self.indent)):
            line.rstrip()
            yield pad
            yield from line.render(console)
            yield Segment.line()


def _wf(worst: int, total: int, lower: int, floor: int | None = None) -> Text:
    """worst / total: green at the lower bound, yellow at a floor above it (no layout does better)."""
    style = OK if worst == lower else FLOOR if worst == floor else BAD
    return Text(f"{worst} / {total}", style=style)


def _tile_line(p: dict, pad: int, storage: str) -> str:
    if "elem_bits" in p and p.get("order") == "col":  # packed down a column: rows and the column length count bytes
        per = 8 // p["elem_bits"]
        return (f"{p['rows'] * per} x {p['cols']} elements of {p['elem_bits']} bits, {per} a byte down a column "
                f"(--order col): solved as {p['rows']} x {p['cols']} bytes, column length {p['row_length']} B"
                + (f" ({pad} B of padding)" if pad else "") + "; rows, vectors and layouts below are in bytes")
    if "elem_bits" in p:  # sub-byte elements: the tile is solved as their packed bytes
        per = 8 // p["elem_bits"]
        return (f"{p['rows']} x {p['cols'] * per} elements of {p['elem_bits']} bits, {per} a byte: solved as "
                f"{p['rows']} x {p['cols']} bytes, row length {p['row_length']} B" + (f" ({pad} B of padding)" if pad
                else "") + "; columns, vectors and layouts below are in bytes")
    scalars = (f" ({p['elem_bytes'] // p['scalar_bytes']} scalars of {p['scalar_bytes']} B: MMA/MFMA operands read "
               f"them)") if "scalar_bytes" in p else ""
    return (f"{p['rows']} x {p['cols']} elements of {p['elem_bytes']} B{scalars}, {storage}"
            + (f" ({pad} elements of padding)" if pad else ""))


def problem_view(doc: dict) -> Group:
    p = doc["problem"]
    col = p.get("order") == "col"  # column-major: the pitch is the column length
    pad = p["row_length"] - (p["rows"] if col else p["cols"])
    own = "; each instruction's bank count and phases are its own" if p.get("per_instruction", True) else ""
    storage = (f"column-major (--order col: element (r, c) at c * {p['row_length']} + r, vectors run down a "
               f"column), column length {p['row_length']}" if col else f"row length {p['row_length']}")
    head = Text.assemble(
        ("Tile ", "bold"), _tile_line(p, pad, storage), "\n",
        ("Banks ", "bold"), f"{p['banks']} x {p['bank_bytes']} B: one wavefront serves "
                            f"{p['banks'] * p['bank_bytes']} B",
        (f" ({p['arch']}, {p['wave_lanes']}-lane {p.get('group', 'wave')}s{own})" if "arch" in p else ""),
    )
    rows = []
    labels = spec_labels(doc)
    for a in p["accesses"]:
        per = a.get("phases_per_placement", 1)
        placements = f"{a['placements'] // per} x {per} phases" if per > 1 else str(a["placements"])
        rows.append([labels.get(a["spec"], a["spec"]), a["footprint"], f"{a['vector_bytes']} B", placements,
                     f"{a['lower_bound']} wavefront" + ("s" if a["lower_bound"] > 1 else "")])
    parts: list[RenderableType] = [head, table("Access patterns (all must be fast at once)",
                         ["access", "one placement reads", "vector", "placements", "lower bound"], rows,
                         right={2, 3, 4}, key=1)]
    parts += [Text(f"{label.rpartition(' ')[2]} {spec}", no_wrap=True, overflow="ignore") for spec, label in
              labels.items()]  # a long spec (an index: expression) whole, once
    for a in p["accesses"]:
        f = a.get("floor")
        if f:
            parts.append(Wrapped(Text(
                f"{a['spec']}: at least {f['wavefronts']} wavefronts under any layout that keeps the "
                f"{f['vector_bytes']}-byte vectors of {f['vectors_of']} whole: one phase reaches "
                f"{f['vectors_at_one_position']} of those vectors at one word position, and a wavefront serves "
                f"{f['slots_per_wavefront']} vectors there; only narrower vectors lift this floor", style=BAD), 2))
    for text in doc.get("warnings", []):  # report.problem_warnings
        parts.append(Wrapped(Text(f"warning: {text}", style=FLOOR), 2))
    if len(parts) > 2:
        parts.append(Text())
    return Group(*parts)


NAME_WIDTH = 24  # a layout's name in a table: longer ones (a pasted --check text) abbreviated, printed whole below


def short_name(name: str, note: int) -> str:
    """``name`` as a table cell: itself, or (``note`` > 0) its start and the note number ``[note]``
    when longer than NAME_WIDTH (the table would otherwise split into one-column parts at 80 columns)."""
    if not note or len(name) <= NAME_WIDTH:
        return name
    mark = f"… [{note}]"
    return name[:NAME_WIDTH - len(mark)].rstrip() + mark


def _candidate_row(mark: str, lay: dict, floors: list, unusable: bool, note: int = 1) -> list:
    """One layout's row of the candidates table; ``unusable``: it fails the soundness check (--check);
    ``note``: the number a long name is abbreviated with (candidates_view prints it whole)."""
    cells = [_wf(a["worst_wavefronts"], a["total_wavefronts"], a["lower_bound"], f)
             for a, f in zip(lay["per_access"], floors)]
    name = Text(short_name(lay["name"], note) + (f" ({lay['padding']['extra_bytes']:+d} B)" if lay.get("padding")
                                                  else ""),
                style="bold" if mark else "")
    if unusable:  # its counts are of a map no kernel can use: never shown as at the bound
        cells = [Text(cell.plain) for cell in cells]
        name.append(" (not usable: see below)", style=BAD)
    return [mark, name, lay["family"], *cells, str(lay["excess_wavefronts"])]


SPEC_WIDTH = 60  # an access spec in a table: a longer one (index: ..., a stated kernel line) gets a note


def spec_labels(doc: dict) -> dict[str, str]:
    """Each access spec over SPEC_WIDTH -> its label in the tables (its form's word and ``[aN]``),
    printed whole once under the access table (the tables keep their columns at 80)."""
    long = [a["spec"] for a in doc["problem"]["accesses"] if len(a["spec"]) > SPEC_WIDTH]
    return {spec: _label(spec, i + 1) for i, spec in enumerate(dict.fromkeys(long))}


def _label(spec: str, n: int) -> str:
    """``index: … [a1]``; a call's name with its parentheses: ``make_tiled_copy(…) [a1]``."""
    call = spec.partition("(")[0].strip()
    if "(" in spec and call.replace("::", "").replace("_", "").isalnum() and len(call) <= 24:
        return f"{call}(…) [a{n}]"
    return f"{spec.partition(':')[0][:12]}: … [a{n}]"


def _long_names(doc: dict, layouts: list[dict]) -> dict[str, int]:
    """A --check text (pasted from a kernel) over NAME_WIDTH -> its note number: abbreviated in the
    table, printed whole once below it."""
    if "check" not in doc:
        return {}
    long = [lay["name"] for lay in layouts if len(lay["name"]) > NAME_WIDTH]
    return {name: i + 1 for i, name in enumerate(dict.fromkeys(long))}


def candidates_view(doc: dict, title: str) -> Group:
    labels = spec_labels(doc)
    specs = [labels.get(a["spec"], a["spec"]) for a in doc["problem"]["accesses"]]
    floors = [(a.get("floor") or {}).get("wavefronts") for a in doc["problem"]["accesses"]]
    layouts = [("*", doc["answer"])] + [("", alt) for alt in doc.get("alternatives", [])]
    unusable = bool((doc.get("check") or {}).get("invalid"))  # the checked layout fails the soundness check
    long = _long_names(doc, [lay for _, lay in layouts])
    rows = [_candidate_row(mark, lay, floors, bool(mark) and unusable, long.get(lay["name"], 0))
            for mark, lay in layouts]
    base = doc["answer"]["per_access"]
    if all(lay["family"] != baseline() for _, lay in layouts):
        rows.append(["", Text("unswizzled", style="dim"), Text("baseline", style="dim"),
                     *[_wf(a["baseline_worst_wavefronts"], a["baseline_total_wavefronts"], a["lower_bound"])
                       for a in base],
                     str(sum(a["baseline_worst_wavefronts"] - a["lower_bound"] for a in base))])
    numeric = range(3, 4 + len(specs))  # the per-access cells and the excess
    notes = [Text(f"[{i}] {name}", no_wrap=True, overflow="ignore") for name, i in long.items()]
    return Group(table(title, ["", "layout", "family", *specs, "excess"], rows, right=numeric, key=2), *notes,
                 Text("cells: worst / total wavefronts over all placements (green: at the bound)\n"
                      + ("yellow: at the access's floor, which no layout goes below\n" if any(floors) else "")
                      + "excess: the sum over accesses of worst - lower bound", style="dim"))


def _bits_lines(labels: list[str], row_labels: list[str], rows: list[list[int]], title: str) -> list[Text]:
    """A bit matrix as aligned lines: its title, the column labels, one line per row."""
    width = max((len(x) for x in labels), default=1)
    head = max((len(x) for x in row_labels), default=0)  # no bank bits: a unit fills the wavefront
    lines = [Text(title, style="italic"),
             Text(" " * head + " " + " ".join(f"{x:>{width}}" for x in labels), style="dim")]
    for name, bits in zip(row_labels, rows):
        cells = " ".join(f"{'1' if b else '.':>{width}}" for b in bits)
        lines.append(Text.assemble((f"{name:>{head}} ", "dim"), cells))
    return lines


class SideBySide:
    """Two blocks of lines (a matrix and its echelon form) side by side when the output is wide
    enough, else one above the other."""

    def __init__(self, left: list[Text], right: list[Text]):
        self.left, self.right = left, right

    def __rich_console__(self, console: RichConsole, options: ConsoleOptions) -> RenderResult:
        lines = columns(list(zip(self.left, self.right)), sep="    ", indent="  ")
        if lines[0].cell_len > options.max_width:
            lines = [Text("  ") + line for line in [*self.left, Text(), *self.right]]
        yield lines_text(lines)


def counter_line(counter: dict | None) -> Text | None:
    """An access's counters in the profiler's words (report.cost_json), short: Nsight Compute's
    wavefronts and bank conflicts for one pass over the tile, named by their op (the JSON has the
    metrics' full names); AMD's rocprof counter for the worst instruction."""
    if not counter:
        return None
    if len(counter) == 2:
        (waves, w), (_, conflicts) = counter.items()
        op = waves.split("_mem_shared_")[-1].removesuffix(".sum")
        where = f"sm__sass {op}" if waves.startswith("sm__sass") else op
        return Text(f"ncu, one pass over the tile ({where}): {w} wavefronts, {conflicts} bank conflicts", style="dim")
    ((name, value),) = counter.items()
    return Text(f"rocprof {name}: {value} per instruction (the worst)", style="dim")


def evidence_view(doc: dict) -> Group:
    proof = doc["proof"]
    counters = [a.get("counter") for a in doc["answer"]["per_access"]]
    parts: list = [Text.assemble(("Evidence", "bold underline"), f" for {proof['layout']}")]
    if any("gf2" in acc for acc in proof["accesses"]):
        parts.append(Wrapped(Text("GF(2) bank matrix: one column per index bit that varies inside a phase (r = row "
                                  "bit, c = column bit), one row per bank bit of the word address (b0 = lowest); a "
                                  "1 means the bit flips that bank bit.", style="dim")))
    per_access = doc["answer"]["per_access"]
    for i, acc in enumerate(proof["accesses"]):
        parts += _access_evidence(acc, counters[i] if i < len(counters) else None)
        line = partition_line(per_access[i].get("partition") if i < len(per_access) else None)
        if line is not None:
            parts.append(Wrapped(line, 2))
    line = partitioned_line(doc["answer"])
    if line is not None:
        parts += [Text(), Wrapped(line)]
    xor = doc["answer"].get("partition_xor")
    if xor:
        parts.append(Wrapped(Text(f"or in one buffer: row bit {xor['row_bit']} XORed into offset bit "
                                  f"{xor['offset_bit']} (a partition bit, above the banks): "
                                  f"{xor['conflicting_pairs']} conflicting, excess {xor['excess_wavefronts']}: "
                                  f"{xor['expression']}", style=OK if not xor["conflicting_pairs"] else BAD)))
    return Group(*parts)


def partition_line(count: dict | None) -> Text | None:
    """An access issued by several waves on a target with LDS partitions (report.partition_json)."""
    if not count:
        return None
    n, of = count["conflicting_pairs"], count["pairs"]
    return Text(f"LDS partitions ({count['partition_bytes'] // 1024} KiB, {count['waves']} waves): {n} of {of} "
                f"wave-pair instructions share a partition (inferred rule: waves 2k and 2k+1 issuing together; "
                f"cycles not modelled)", style=BAD if n else OK)


def partitioned_line(answer: dict) -> Text | None:
    """The partitioned allocation that removes the answer's partition conflicts (report.partitioned_json)."""
    if "partitioned" not in answer:
        return None
    alt = answer["partitioned"]
    if alt is None:
        if any(a.get("partition", {}).get("conflicting_pairs") for a in answer["per_access"]):
            return Text("no partitioned allocation the target can hold removes the partition conflicts", style=BAD)
        return None
    return Text(f"partitioned allocation without partition conflicts: {alt['num_partitions']} partitions x "
                f"{alt['num_groups']} groups of {alt['piece_rows']} rows (dim {alt['partition_dim']}), excess "
                f"{alt['excess_wavefronts']} wavefront(s): {alt['triton']}", style=OK)


def _access_evidence(acc: dict, counter: dict | None) -> list:
    """One access's evidence: its proof (rank) or exhaustive count, the matrix beside its echelon
    form, the worst placement's lanes and a collision there."""
    gf = acc.get("gf2")
    lines = Text()
    lines.append(f"{acc['spec']}: ", style="bold")
    if gf:
        _rank_verdict(lines, gf)
    else:
        ok = acc["worst_wavefronts"] == acc["lower_bound"]
        why = f" (no rank proof: {acc['gf2_unavailable']})" if "gf2_unavailable" in acc else ""
        lines.append(f"exhaustive check of all {acc['placements_checked']} placements: worst "
                     f"{acc['worst_wavefronts']} wavefront(s), lower bound {acc['lower_bound']}{why}",
                     style=OK if ok else BAD)
    parts: list = [Text(), Wrapped(lines)]
    if gf and gf["varying"] and gf["bank_bits"]:  # the matrix and its echelon form side by side
        matrix = _bits_lines(gf["varying_bits"], gf["bank_bits"], gf["matrix"], "bank matrix")
        rref = _bits_lines(gf["varying_bits"], gf["bank_bits"], gf["rref"], "echelon form")
        parts += [SideBySide(matrix, rref), Text()]
    lanes = acc["worst_placement"]["lanes"]
    shown = ", ".join(f"({l['row']},{l['col']})->{'/'.join(map(str, l['banks']))}" for l in lanes[:16])
    more = f", ... {len(lanes) - 16} more lanes" if len(lanes) > 16 else ""
    parts.append(Wrapped(Text(f"worst placement, lane (row,col) -> banks: {shown}{more}", style="dim"), 2))
    line = counter_line(counter)
    if line is not None:
        parts.append(Wrapped(line, 2))
    col = acc.get("collision")
    if col:
        a, b = col["a"], col["b"]
        parts.append(Wrapped(Text(
            f"collision: ({a['row']},{a['col']}) word {a['word']} and ({b['row']},{b['col']}) word {b['word']} "
            f"are both in bank {col['bank']}", style=BAD), 2))
    return parts


def _rank_verdict(lines: Text, gf: dict) -> None:
    """The rank proof of one access in words, appended to ``lines``."""
    slots = len(gf["bank_bits"])
    ok = gf["rank"] == min(gf["varying"], slots)
    waves = f"{gf['wavefronts']} wavefront{'s' if gf['wavefronts'] > 1 else ''}, the lower bound"
    lines.append(
        f"rank {gf['rank']} of {gf['varying']} varying index bits "
        f"({', '.join(gf['varying_bits']) or 'none'}) on bank bits {', '.join(gf['bank_bits']) or 'none'}: ")
    if ok and not slots:
        lines.append(f"no bank bit chooses among units (one unit fills the wavefront), so each unit is a "
                     f"wavefront of its own ({waves}) in every placement", style=OK)
    elif ok and gf["varying"] > slots:
        lines.append(f"full rank (all {slots} bank bits), so the phase's units spread evenly over the "
                     f"banks ({waves}) in every placement", style=OK)
    elif ok:
        lines.append(f"full rank, so the phase's units land in distinct banks ({waves}) in every placement",
                     style=OK)
    else:
        deficit = gf["varying"] - gf["rank"] - max(0, gf["varying"] - slots)
        lines.append(f"rank deficit {deficit} proves a {gf['wavefronts']}-way conflict in every placement",
                     style=BAD)


def families_view(doc: dict) -> Group | None:
    """Why the families that did not reach the lower bound cannot: how each was covered, and a
    witness (two colliding words) for its best member. Only when the answer has conflicts (the
    later families were searched, or its floors made that needless)."""
    search = doc.get("search") or {}
    if search.get("extended"):
        why = f"searched beyond {every_solve(' / ', ' / ')}: {search['extended_reason']}"
    elif search.get("not_extended_reason"):
        why = f"the later families were not searched: {search['not_extended_reason']}"
    else:
        return None
    parts: list = [Wrapped(Text.assemble(("Families", "bold underline"), f" ({why})"))]
    for f in doc["proof"]["families"]:
        line = Text()
        line.append(f"{f['family']}: ", style="bold")
        if f.get("searched") is False:  # one line: why it could not win (solving.cannot_win)
            parts.append(Wrapped(line.append(f["covered"], style="dim")))
            continue
        if f["reaches_lower_bound"]:
            line.append(f"reaches the lower bound ({f['best']})", style=OK)
        elif f["best"] is None:
            line.append("no member reaches the lower bound" if f["complete"] else "no member found", style=BAD)
            if f.get("best_known_member"):
                line.append(f"; it contains {f['best_known_member']}, the best swizzle above", style=BAD)
        else:
            line.append(f"cannot reach the lower bound; best {f['best']}, {f['best_excess_wavefronts']} excess",
                        style=BAD)
        if not f["complete"]:
            line.append(" (not covered whole)", style=BAD)
        parts.append(Wrapped(line))
        parts.append(Wrapped(Text(f"covered: {f['covered']}", style="dim"), 2))
        smt = f.get("smt")
        if smt and smt.get("no_member_below"):
            what = record(f["family"]).smt_unit
            parts.append(Wrapped(Text(f"z3: no conflict-free member with fewer than {smt['no_member_below']} "
                                      f"XOR {what} (unsat)", style="dim"), 2))
        col = (f.get("witness") or {}).get("collision")
        if col:
            a, b = col["a"], col["b"]
            w = f["witness"]
            parts.append(Wrapped(Text(
                f"witness ({w['layout']}, {w['access']}): ({a['row']},{a['col']}) word {a['word']} and "
                f"({b['row']},{b['col']}) word {b['word']} share bank {col['bank']}", style="dim"), 2))
    return Group(*parts)


def code_view(doc: dict) -> Group:
    ans = doc["answer"]
    check = doc.get("check") or {}
    if check.get("invalid"):  # no code for a layout that is not usable (report.check_json)
        return Group(Wrapped(Text.assemble(("No code", "bold underline"), (
            f": {check['layout']} is not usable on this tile (the verdict below says why)", BAD))))
    rows: list[tuple[str, str]] = record(ans["family"]).code_rows(ans, doc["problem"])
    if ans.get("triton_bases"):
        tb = ans["triton_bases"]
        rows.append(("Triton", f"bases (physical [row, col] of each logical bit): row {tb['row']}, col {tb['col']}"))
    if ans["cute"]:
        rows.append(("CuTe", f"{ans['cute']}  (on element offsets)"))
        engines = "TMA/GMMA" if ans["tma_mode"] in ("32B", "64B", "128B") else "TMA"  # wider atoms: no GMMA
        mode = f"  = the {engines} {ans['tma_mode']} swizzle mode" if ans["tma_mode"] else ""
        rows.append(("bytes", f"{ans['byte_cute']}  (on byte offsets){mode}"))
    if ans["expression"] is not None:  # (a table given by the user may have none: its family's rows say so)
        rows.append(("C", f"phys(r, c) = {ans['expression']}"))
    indent = max(len(label) for label, _ in rows) + 2
    return Group(Text("Code", style="bold underline"),
                 *(Hanging(Text(label, style="bold"), value, indent) for label, value in rows))


class Hanging:
    """A label, then its value wrapped at spaces to the output width, its continuation lines under
    the value's first column (``indent``). No line is cut inside a word."""

    def __init__(self, label: Text, value: str, indent: int):
        self.label, self.value, self.indent = label, value, indent

    def __rich_console__(self, console: RichConsole, options: ConsoleOptions) -> RenderResult:
        text = Text(self.value, overflow="ignore")
        for i, line in enumerate(text.wrap(console, max(20, options.max_width - self.indent))):
            line.rstrip()
            head = self.label.copy() if i == 0 else Text()
            head.append(" " * (self.indent - head.cell_len))
            yield from head.render(console)
            yield from line.render(console)
            yield Segment.line()


def _bytes(n: int) -> str:
    return f"{n // 1024} KiB" if n % 1024 == 0 else f"{n} bytes"


def given_pitch(doc: dict) -> str:
    """When the answer drops to a smaller row length than the given one: what the given one
    needs, and the memory it costs ("" otherwise: a larger pitch says so in its family's note)."""
    given = doc.get("search", {}).get("given_pitch")
    if not given or given["extra_bytes"] <= 0:
        return ""
    unsearched = given.get("not_searched")
    if given["best"] is None:
        needs = "no layout found"
    elif given["excess_wavefronts"]:
        best = "best found" if unsearched else "best"
        needs = f"the {best}, {given['best']}, leaves {given['excess_wavefronts']} excess wavefront(s)"
    elif record(given["family"]).baseline:
        needs = "none needed"
    else:
        needs = f"{given['best']} needed"
    more = f"{_bytes(given['extra_bytes'])} more"
    if unsearched:  # skipped there, as the answer ranks before any of their members (or cut)
        more += f"; {', '.join(unsearched)} not searched there (--keep-pitch searches them)"
    return f" (pitch {given['row_length']} as given: {needs}, {more})"


def price_of_for(doc: dict) -> str:
    """--for: what the restriction to the targets costs against the unrestricted answer."""
    restricted = doc.get("search", {}).get("for")
    if not restricted:
        return ""
    targets = " and ".join(restricted["targets"])
    if not restricted["expressible"]:
        return f" No layout searched is expressible in {targets}: the best shown is not."
    costs = [f"{n} more excess wavefront(s)" for n in [restricted["extra_wavefronts"]] if n]
    costs += [f"{_bytes(n)} more shared memory" for n in [restricted["extra_bytes"]] if n > 0]
    if restricted["unrestricted"] == doc["answer"]["name"] or not costs:
        return f" For {targets}: the restriction costs nothing."
    return (f" For {targets}: the restriction costs {' and '.join(costs)} (unrestricted: "
            f"{restricted['unrestricted']}).")


def verdict(doc: dict) -> Text:
    text = _verdict(doc)
    price = price_of_for(doc)
    if price:
        text.append(price)
    partition = partition_verdict(doc.get("answer", {}))
    if partition:
        text.append(partition, style=BAD)
    if doc.get("short_report"):  # a run --timeout stopped before its report (overtime.py)
        text.append(f"\n{doc['short_report']}.", style=BAD)
    return text


def partition_verdict(answer: dict) -> str:
    """The verdict above is about banks; where waves share gfx1250's LDS partitions, say so beside it."""
    conflicting = sum(a.get("partition", {}).get("conflicting_pairs", 0) for a in answer.get("per_access", []))
    if not conflicting:
        return ""
    alt = answer.get("partitioned")
    fix = (f"a partitioned allocation ({alt['num_partitions']} partitions x {alt['num_groups']} groups, above) "
           "removes them" if alt else "no partitioned allocation the target can hold removes them")
    xor = answer.get("partition_xor")
    if xor and not xor["conflicting_pairs"]:
        fix += f", and so does XORing row bit {xor['row_bit']} into offset bit {xor['offset_bit']} (above)"
    return f"\nLDS partitions: {conflicting} wave-pair instruction(s) share a partition (inferred rule); {fix}."


def _check_verdict(doc: dict) -> Text:
    """--check's verdict: passed, or failed (not usable, or its excess) with the minimal layout."""
    ans, chk = doc["answer"], doc["check"]
    staged = ""
    if chk.get("stages"):  # a staged layout (stages.py): every stage checked, the worst reported
        from .stages import summary

        staged = f"\n{summary(chk['stages'], chk['stage'])}; the counts are stage {chk['stage']}'s"
    if chk["passed"]:
        return Text(f"CHECK PASSED: {chk['layout']} is conflict-free for every access{staged}", style=OK)
    minimal = (f"\nminimal: {chk['minimal']} (the search's answer: use it, or swizzle-solve without --check "
               "for its proof)" if chk.get("minimal") else
               "\nminimal: not searched (time limit reached)" if doc.get("short_report") else
               "\nminimal: none (no layout of the searched families is conflict-free)")
    if chk.get("better"):
        minimal += f"; the search's best, {chk['better']}, leaves fewer excess wavefronts"
    if chk.get("minimal_unproven"):
        minimal += f", NOT proven minimal ({chk['minimal_unproven']})"
    if chk.get("hint"):
        minimal += f"\nhint: {chk['hint']}"
    minimal += staged
    if chk["invalid"]:
        return Text(f"CHECK FAILED: {chk['layout']} is not usable here: {chk['invalid']}{minimal}", style=BAD)
    best = "; no layout that keeps the vectors whole leaves fewer (the floors above)" \
        if doc["proof"].get("optimal_over_all_layouts") else ""
    return Text(f"CHECK FAILED: {chk['layout']} leaves {ans['excess_wavefronts']} excess wavefront(s){best}"
                f"{minimal}", style=BAD)


def _verdict(doc: dict) -> Text:
    ans = doc["answer"]
    if "check" in doc:
        return _check_verdict(doc)
    if doc["status"] == "timeout":
        if doc["proof"].get("proven_minimal"):
            what = f"the answer, {ans['name']}, leaves {ans['excess_wavefronts']} excess wavefront(s) and is proven minimal"
        else:
            what = (f"the best layout found, {ans['name']}, leaves {ans['excess_wavefronts']} excess wavefront(s); "
                    f"it is NOT proven minimal")
        return Text(f"Time limit reached: {what}.", style=f"bold {BAD}")
    unproven = doc["proof"].get("unproven")
    given = given_pitch(doc)
    if doc["status"] == "conflict-free":
        family = record(ans["family"])
        what = f"{ans['name']}, NOT proven minimal ({unproven})" if unproven else family.found(ans)
        what += given or family.note(ans)
        return Text(f"Conflict-free: {what}.", style=f"bold {OK}")
    if doc["proof"].get("optimal_over_all_layouts"):
        return Text(f"No layout that keeps the vectors whole is conflict-free (the floors above); the best, "
                    f"{ans['name']}, meets every floor: its {ans['excess_wavefronts']} excess wavefront(s) are "
                    f"the least any such layout leaves.", style=f"bold {BAD}")
    caveat = f" It is NOT proven that none exists ({unproven})." if unproven else ""
    return Text(f"No conflict-free layout in the searched families; the best, {ans['name']}, "
                f"leaves {ans['excess_wavefronts']} excess wavefront(s).{caveat}", style=f"bold {BAD}")


def phases_view(doc: dict) -> Group:
    """--show-phases: the hardware phases of each access's first placement."""
    parts: list = []
    down = ", the bytes down the column" if doc["problem"].get("order") == "col" else ""  # (--order col)
    for a in doc["problem"]["accesses"]:
        if "phases" not in a:
            continue
        parts.append(Wrapped(Text.assemble((a["spec"], "bold"), f": the {len(a['phases'])} hardware phase(s) of "
                                           f"the first placement, lanes (row, col, bytes){down}")))
        for i, phase in enumerate(a["phases"]):
            lanes = " ".join(f"({r},{c},{b})" for r, c, b in phase)
            parts.append(Wrapped(f"phase {i}: {lanes}", 2))
    return Group(*parts)


def snippets(doc: dict) -> list[tuple[Text, str]]:
    """answer.emit: (heading, code) per target (the emit package only when code was asked for)."""
    ans = doc["answer"]
    out = []
    if ans.get("emit"):
        from .emit import TITLES

        for target, code in ans["emit"].items():
            note = "" if ans["emit_expressible"][target] else "  (cannot express this layout)"
            out.append((Text.assemble((f"--emit {target}: {TITLES[target]}", "bold"), (note, BAD)), code))
    return out


def explain_view(doc: dict) -> list:
    """--explain's sentences (explain.py), one bullet each, wrapped under their first word."""
    sentences = doc.get("explain") or []
    if not sentences:
        return []
    return [Text(), Text("Why this layout", style="bold underline"),
            *(Hanging(Text("-"), s["text"], 2) for s in sentences)]


def print_solution(doc: dict, console: Console | None = None, pictures=()) -> None:
    """The whole report; ``pictures`` (rich renderables, e.g. --show) go after the code."""
    console = console or Console()
    title = "Checked layout" if "check" in doc else "Candidates (* = answer; best of each family)"
    families = families_view(doc)
    parts = [problem_view(doc), phases_view(doc), candidates_view(doc, title), Text(), evidence_view(doc),
             *explain_view(doc), Text(), *((families, Text()) if families else ()), code_view(doc)]
    for heading, code in snippets(doc):  # code pastes as printed: never wrapped
        parts += [Text(), heading, Text(code, no_wrap=True, overflow="ignore")]
    console.print(Group(*parts), crop=False)  # tables and code overflow rather than lose columns
    for part in (*pictures, Wrapped(verdict(doc))):
        console.print()
        console.print(part)


def print_short(doc: dict, console: Console | None = None) -> None:
    """The short form of a run that --timeout stopped before its report (overtime.py): the layout's
    C expression (none for a checked layout that is not usable), then the verdict, which says what
    the full report would have added."""
    console = console or Console()
    if not (doc.get("check") or {}).get("invalid") and doc["answer"]["expression"] is not None:
        console.print(Group(Text("Code", style="bold underline"), Hanging(
            Text("C", style="bold"), f"phys(r, c) = {doc['answer']['expression']}", 3)), crop=False)
        console.print()
    console.print(Wrapped(verdict(doc)))


def print_batch(rows: list[dict], console: Console | None = None) -> None:
    """One line per case; the case's name (free text, often long) comes last, so on a narrow terminal
    only it runs over."""
    console = console or Console()
    plain = [r for r in rows if "matrix" not in r]
    cells = [[Text("ok" if r["ok"] else "FAIL", style=OK if r["ok"] else BAD), r["answer"], r["status"],
              r["expected"], r["name"]] for r in plain]
    failed = sum(not r["ok"] for r in rows)
    hints = [Wrapped(Text(f"{r['name']}: {r[key]}", style=BAD)) for r in plain for key in ("why", "hint") if r.get(key)]
    header = ["ok", "answer", "status", "expected", "case"]
    parts: list = []
    if plain:
        batch: Table | BatchNarrow = table("Batch", header, cells)
        if columns([header, *cells])[0].cell_len + 2 > console.width:
            batch = BatchNarrow(cells)
        parts += [batch, *hints]
    parts += matrix_views(rows)
    console.print(Group(*parts, Text(f"{len(rows) - failed} passed, {failed} failed")), crop=False)


def matrix_views(rows: list[dict]) -> list:
    """Each [case.matrix] case's configs grouped by outcome (outcomes.grouped): the outcome (ok,
    status, the accesses that conflict and their excess, the fix), then the configs that have it."""
    from .outcomes import grouped, values_text

    by_case: dict[str, list[dict]] = {}
    for r in rows:
        if "matrix" in r:
            by_case.setdefault(r["matrix"], []).append(r)
    views: list = []
    for name, configs in by_case.items():
        passed = sum(r["ok"] for r in configs)
        views += [Text(), Wrapped(Text(f"{name}: {len(configs)} configs, {passed} passed, {len(configs) - passed} "
                                       f"failed (expected {configs[0]['expected']})", style="bold"))]
        for first, members in grouped(configs):
            views.append(Wrapped(_outcome_line(first, len(members)), 2))
            views.append(Wrapped(Text("; ".join(values_text(r) for r in members), style="dim"), 6))
    return views


def _outcome_line(first: dict, count: int) -> Text:
    """One outcome of a matrix: ok or FAIL, the status, the accesses that conflict, the fix."""
    outcome = first["status"] + (f": {first['conflicting']}" if first.get("conflicting") else "")
    fix = first.get("fix") or ""
    fix = f"; minimal: {fix}" if fix and (not first["ok"] or first["answer"] != fix) else \
        f"; answer: {fix}" if fix else ""
    label = Text("ok" if first["ok"] else "FAIL", style=OK if first["ok"] else BAD)
    return Text.assemble(label, f"  {outcome}{fix} ({count} config{'s' if count > 1 else ''})")


class BatchNarrow:
    """The batch table for an output too narrow for its one-line rows (case names are free text,
    answers and expectations can be long): ok, status and answer aligned on the case's first line,
    then its expectation and name wrapped under it."""

    def __init__(self, cells: list[list]):
        self.cells = cells

    def __rich_console__(self, console: RichConsole, options: ConsoleOptions) -> RenderResult:
        lines = columns([[Text(h, style="bold") for h in ("ok", "status", "answer")],
                         *([ok, status, answer] for ok, answer, status, _, _ in self.cells)], indent="  ")
        rule = lines[0].cell_len  # before lines_text strips the header's trailing spaces
        yield lines_text([Text("Batch (expected and case under each row)", style="italic"), Text(), lines[0]])
        yield _Rule(rule)
        for line, (_, _, _, expected, name) in zip(lines[1:], self.cells, strict=True):
            for row in _fold_rows([line], options.max_width)[0]:  # a cell wider than the line: wrapped under it
                folded = row.cell_len > options.max_width and row.plain.startswith(FOLD_INDENT)
                yield Wrapped(row[len(FOLD_INDENT):], len(FOLD_INDENT)) if folded else row
            said = "no expectation" if expected == "-" else f"expected {expected}"  # ("-": the wide table's empty cell)
            yield Wrapped(Text(f"{said}: {name}", style="dim"), len(FOLD_INDENT))
        yield Text()
