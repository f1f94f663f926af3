"""The rich terminal report: problem, candidates, evidence, code. It formats report.py's dicts only."""
from __future__ import annotations

from rich import box
from rich.console import Console, Group
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

OK, BAD = "green", "red"


def _wf(worst: int, total: int, lower: int) -> Text:
    return Text(f"{worst} / {total}", style=OK if worst == lower else BAD)


def problem_view(doc: dict) -> Group:
    p = doc["problem"]
    pad = p["row_length"] - p["cols"]
    head = Text.assemble(
        ("Tile ", "bold"), f"{p['rows']} x {p['cols']} elements of {p['elem_bytes']} B, row length {p['row_length']}",
        f" ({pad} elements of padding)" if pad else "", "\n",
        ("Banks ", "bold"), f"{p['banks']} x {p['bank_bytes']} B: one wavefront serves "
                            f"{p['banks'] * p['bank_bytes']} B",
    )
    t = Table(box=box.SIMPLE_HEAD, title="Access patterns (all must be fast at once)", title_justify="left")
    for col in ("access", "one placement reads", "vector", "placements", "lower bound"):
        t.add_column(col, justify="right" if col in ("vector", "placements", "lower bound") else "left")
    for a in p["accesses"]:
        per = a.get("phases_per_placement", 1)
        placements = f"{a['placements'] // per} x {per} phases" if per > 1 else str(a["placements"])
        t.add_row(a["spec"], a["footprint"], f"{a['vector_bytes']} B", placements,
                  f"{a['lower_bound']} wavefront" + ("s" if a["lower_bound"] > 1 else ""))
    return Group(head, t)


def candidates_view(doc: dict, title: str) -> Group:
    specs = [a["spec"] for a in doc["problem"]["accesses"]]
    t = Table(box=box.SIMPLE_HEAD, title=title, title_justify="left")
    t.add_column("")
    t.add_column("layout")
    t.add_column("family")
    for s in specs:
        t.add_column(s, justify="right")
    t.add_column("excess", justify="right")
    rows = [("*", doc["answer"])] + [("", alt) for alt in doc.get("alternatives", [])]
    for mark, lay in rows:
        cells = [_wf(a["worst_wavefronts"], a["total_wavefronts"], a["lower_bound"]) for a in lay["per_access"]]
        name = lay["name"] + (f" (+{lay['padding']['extra_bytes']} B)" if lay.get("padding") else "")
        t.add_row(mark, Text(name, style="bold" if mark else ""), lay["family"], *cells,
                  str(lay["excess_wavefronts"]))
    base = doc["answer"]["per_access"]
    if all(lay["family"] != "none" for _, lay in rows):
        t.add_row("", Text("unswizzled", style="dim"), Text("baseline", style="dim"),
                  *[_wf(a["baseline_worst_wavefronts"], a["baseline_total_wavefronts"], a["lower_bound"])
                    for a in base],
                  str(sum(a["baseline_worst_wavefronts"] - a["lower_bound"] for a in base)))
    return Group(t, Text("cells: worst / total wavefronts over all placements (green: at the bound)\n"
                         "excess: the sum over accesses of worst - lower bound", style="dim"))


def _bits_text(labels: list[str], row_labels: list[str], rows: list[list[int]], title: str) -> Text:
    """A bit matrix as aligned plain text (a rich Table per matrix costs more than the solve)."""
    width = max(len(x) for x in labels)
    head = max(len(x) for x in row_labels)
    out = Text(no_wrap=True)
    out.append(f"{title}\n", style="italic")
    out.append(" " * head + " " + " ".join(f"{x:>{width}}" for x in labels) + "\n", style="dim")
    for name, bits in zip(row_labels, rows):
        out.append(f"{name:>{head}} ", style="dim")
        out.append(" ".join(f"{'1' if b else '.':>{width}}" for b in bits) + "\n")
    return out


def evidence_view(doc: dict) -> Group:
    proof = doc["proof"]
    parts: list = [Text.assemble(("Evidence", "bold underline"), f" for {proof['layout']}")]
    if any("gf2" in acc for acc in proof["accesses"]):
        parts.append(Text("GF(2) bank matrix: one column per index bit that varies inside a phase (r = row bit, "
                        "c = column bit), one row per bank bit of the word address (b0 = lowest); a 1 means "
                          "the bit flips that bank bit.", style="dim"))
    for acc in proof["accesses"]:
        gf = acc.get("gf2")
        lines = Text()
        lines.append(f"{acc['spec']}: ", style="bold")
        if gf:
            ok = gf["rank"] == min(gf["varying"], len(gf["bank_bits"]))
            lines.append(
                f"rank {gf['rank']} of {gf['varying']} varying index bits "
                f"({', '.join(gf['varying_bits']) or 'none'}) on bank bits {', '.join(gf['bank_bits'])}: ")
            if ok:
                lines.append("full rank, so the phase's units land in distinct banks "
                             f"({gf['wavefronts']} wavefront{'s' if gf['wavefronts'] > 1 else ''}, the lower bound) "
                             "in every placement", style=OK)
            else:
                deficit = gf["varying"] - gf["rank"] - max(0, gf["varying"] - len(gf["bank_bits"]))
                lines.append(f"rank deficit {deficit} proves a {gf['wavefronts']}-way conflict in every placement", style=BAD)
            parts.append(Padding(lines, (1, 0, 0, 0)))
            if gf["varying"]:
                side = Table.grid(padding=(0, 4))
                side.add_row(_bits_text(gf["varying_bits"], gf["bank_bits"], gf["matrix"], "bank matrix"),
                             _bits_text(gf["varying_bits"], gf["bank_bits"], gf["rref"], "echelon form"))
                parts.append(Padding(side, (0, 0, 0, 2)))
        else:
            ok = acc["worst_wavefronts"] == acc["lower_bound"]
            lines.append(f"exhaustive check of all {acc['placements_checked']} placements: worst "
                         f"{acc['worst_wavefronts']} wavefront(s), lower bound {acc['lower_bound']}",
                         style=OK if ok else BAD)
            parts.append(Padding(lines, (1, 0, 0, 0)))
        lanes = acc["worst_placement"]["lanes"]
        shown = ", ".join(f"({l['row']},{l['col']})->{'/'.join(map(str, l['banks']))}" for l in lanes[:16])
        more = f", ... {len(lanes) - 16} more lanes" if len(lanes) > 16 else ""
        parts.append(Padding(Text(f"worst placement, lane (row,col) -> banks: {shown}{more}", style="dim"),
                             (0, 0, 0, 2)))
        col = acc.get("collision")
        if col:
            a, b = col["a"], col["b"]
            parts.append(Padding(Text(
                f"collision: ({a['row']},{a['col']}) word {a['word']} and ({b['row']},{b['col']}) word {b['word']} "
                f"are both in bank {col['bank']}", style=BAD), (0, 0, 0, 2)))
    return Group(*parts)


def families_view(doc: dict) -> Group | None:
    """Why the families that did not reach the lower bound cannot: how each was covered, and a
    witness (two colliding words) for its best member. Only when the later families were searched."""
    search = doc.get("search") or {}
    if not search.get("extended"):
        return None
    parts: list = [Text.assemble(("Families", "bold underline"),
                                 f" (searched beyond none / cute / xor-cols: {search['extended_reason']})")]
    for f in doc["proof"]["families"]:
        line = Text()
        line.append(f"{f['family']}: ", style="bold")
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
            line.append(" (cut by the time limit: not covered whole)", style=BAD)
        parts.append(line)
        parts.append(Padding(Text(f"covered: {f['covered']}", style="dim"), (0, 0, 0, 2)))
        smt = f.get("smt")
        if smt and smt.get("no_member_below"):
            parts.append(Padding(Text(f"z3: no conflict-free member with fewer than {smt['no_member_below']} "
                                      f"XOR {'terms' if f['family'] == 'linear' else 'bits'} (unsat)",
                                      style="dim"), (0, 0, 0, 2)))
        col = (f.get("witness") or {}).get("collision")
        if col:
            a, b = col["a"], col["b"]
            w = f["witness"]
            parts.append(Padding(Text(
                f"witness ({w['layout']}, {w['access']}): ({a['row']},{a['col']}) word {a['word']} and "
                f"({b['row']},{b['col']}) word {b['word']} share bank {col['bank']}", style="dim"), (0, 0, 0, 2)))
    return Group(*parts)


def code_view(doc: dict) -> Group:
    ans = doc["answer"]
    t = Table.grid(padding=(0, 2))
    t.add_column(style="bold")
    t.add_column()
    if ans["family"] == "none":
        t.add_row("CuTe", "no swizzle: use the plain row-major layout")
    if ans["family"] == "two-level":
        first, second = ans["name"].split(" then ")
        t.add_row("CuTe", f"{first}, then {second}  (two swizzles on element offsets, in this order)")
        for i, step in enumerate(ans["steps"]):
            t.add_row("C steps" if i == 0 else "", step)
    if ans["family"] == "linear":
        t.add_row("XOR terms", Text(f"{ans['xor_terms']}: " + ", ".join(
            f"bit {x['target_bit']} ^= bit {x['source_bit']}" for x in ans["terms"])))
    if ans.get("triton_bases"):
        tb = ans["triton_bases"]
        t.add_row("Triton", Text(f"bases (physical [row, col] of each logical bit): row {tb['row']}, col {tb['col']}"))
    if ans["family"] == "padding":
        pad = ans["padding"]
        t.add_row("memory", f"row length {pad['row_length']}: {pad['extra_bytes']} extra bytes of shared memory")
    if ans["cute"]:
        t.add_row("CuTe", f"{ans['cute']}  (on element offsets)")
        mode = f"  = the TMA/GMMA {ans['tma_mode']} swizzle mode" if ans["tma_mode"] else ""
        t.add_row("bytes", f"{ans['byte_cute']}  (on byte offsets){mode}")
    t.add_row("C", f"phys(r, c) = {ans['expression']}")
    return Group(Text("Code", style="bold underline"), t)


def verdict(doc: dict) -> Text:
    ans = doc["answer"]
    if "check" in doc:
        chk = doc["check"]
        if chk["invalid"]:
            return Text(f"CHECK FAILED: {chk['layout']} is not usable here: {chk['invalid']}", style=BAD)
        if chk["passed"]:
            return Text(f"CHECK PASSED: {chk['layout']} is conflict-free for every access", style=OK)
        return Text(f"CHECK FAILED: {chk['layout']} leaves {ans['excess_wavefronts']} excess wavefront(s)",
                    style=BAD)
    if doc["status"] == "timeout":
        return Text(f"Time limit reached: the best layout found, {ans['name']}, leaves {ans['excess_wavefronts']} "
                    f"excess wavefront(s); it is NOT proven minimal.", style=f"bold {BAD}")
    if doc["status"] == "conflict-free":
        what = "no swizzle is needed" if ans["family"] == "none" else f"the minimal layout is {ans['name']}"
        if ans["family"] == "padding":
            what += f" (padding: {ans['padding']['extra_bytes']} extra bytes; no swizzle of the given pitch works)"
        return Text(f"Conflict-free: {what}.", style=f"bold {OK}")
    return Text(f"No conflict-free layout in the searched families; the best, {ans['name']}, "
                f"leaves {ans['excess_wavefronts']} excess wavefront(s).", style=f"bold {BAD}")


def phases_view(doc: dict) -> Group:
    """--show-phases: the hardware phases of each access's first placement."""
    parts: list = []
    for a in doc["problem"]["accesses"]:
        if "phases" not in a:
            continue
        parts.append(Text.assemble((a["spec"], "bold"), f": the {len(a['phases'])} hardware phase(s) of the first "
                                   "placement, lanes (row, col, bytes)"))
        for i, phase in enumerate(a["phases"]):
            lanes = " ".join(f"({r},{c},{b})" for r, c, b in phase)
            parts.append(Padding(Text(f"phase {i}: {lanes}"), (0, 0, 0, 2)))
    return Group(*parts)


TARGET_TITLES = {"cute": "CuTe (C++)", "cute-dsl": "CuTe DSL (Python)", "cuda": "CUDA / C", "triton": "Triton",
                 "mojo": "Mojo", "tma": "TMA (CUtensorMapSwizzle)"}


def snippets(doc: dict) -> list[tuple[Text, str]]:
    """answer.emit: (heading, code) per target."""
    ans = doc["answer"]
    out = []
    for target, code in ans.get("emit", {}).items():
        note = "" if ans["emit_expressible"][target] else "  (cannot express this layout)"
        out.append((Text.assemble((f"--emit {target}: {TARGET_TITLES[target]}", "bold"), (note, BAD)), code))
    return out


def print_solution(doc: dict, console: Console | None = None, pictures=()) -> None:
    """The whole report; ``pictures`` (rich renderables, e.g. --show) go after the code."""
    console = console or Console()
    title = "Checked layout" if "check" in doc else "Candidates (* = answer; best of each family)"
    families = families_view(doc)
    for part in (problem_view(doc), phases_view(doc), candidates_view(doc, title), evidence_view(doc), Text(""),
                 *((families, Text("")) if families else ()), code_view(doc)):
        console.print(part)
    for heading, code in snippets(doc):
        console.print()
        console.print(heading)
        console.print(code, soft_wrap=True, markup=False, highlight=False)  # pastes as printed: never wrapped
    for part in (*pictures, verdict(doc)):
        console.print()
        console.print(part)


def print_batch(rows: list[dict], console: Console | None = None) -> None:
    console = console or Console()
    t = Table(box=box.SIMPLE_HEAD, title="Batch", title_justify="left")
    for col in ("case", "answer", "status", "expected", "ok"):
        t.add_column(col)
    for row in rows:
        t.add_row(row["name"], row["answer"], row["status"], row["expected"],
                  Text("ok" if row["ok"] else "FAIL", style=OK if row["ok"] else BAD))
    console.print(t)
    failed = sum(not r["ok"] for r in rows)
    console.print(f"{len(rows) - failed} passed, {failed} failed")
