"""The kernel report as rich tables: per kernel one row per shared-memory instruction (source
line, PTX, op, allocation, instances, wavefronts, ideal, excess), its ncu totals, what is not
counted, the notes and the fix; the status line last."""
from __future__ import annotations

import io
import re
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text


def short_name(name: str) -> str:
    """A variable's name as the source wrote it: nvcc's demoted ``__shared__`` arrays are mangled as
    local names (``_ZZ15transpose_naivePfPKfiE4tile`` -> ``tile``)."""
    m = re.fullmatch(r"_ZZ.*E(\d+)(\w+)", name)
    return m[2][:int(m[1])] if m and len(m[2]) >= int(m[1]) else name


def _alloc(a: dict[str, Any] | None) -> str:
    if a is None:
        return "-"
    name = short_name(a["name"].split(" (")[0]) if not a["dynamic"] else "dynamic smem"
    return f"{name}[{a['bytes'][0]}:{a['bytes'][1]}]"


def _where(r: dict[str, Any]) -> str:
    src = f"{r['file'].rsplit('/', 1)[-1]}:{r.get('line', 0)}" if r.get("file") else "-"
    # (the PTX line is in --json's ptx_line; the table names the source line, or the PTX line
    # where the PTX has no .loc)
    return src if src != "-" or not r.get("ptx_line") else f"ptx {r['ptx_line']}"


def kernel_table(k: dict[str, Any], width: int = 120) -> Table:
    """One row per static instruction. The numbers, the source line and the allocation keep their
    width; the PTX text takes what is left of ``width`` and is cut with an ellipsis there (it is
    whole in --json), rather than folded over several lines."""
    block = "x".join(map(str, k.get("block", []))) or "-"
    cta = ", ".join(map(str, k.get("cta", []))) or "-"
    t = Table(title=f"{k.get('demangled', k['name'])}  block {block}, cta ({cta})", title_justify="left",
              expand=False, box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1), collapse_padding=True)
    rows = []
    for r in k["instructions"]:
        inst = str(r["instances"]) + (f" ({r['data_dependent']} data-dep.)" if r.get("data_dependent") else "")
        rows.append([_where(r), r.get("ptx", ""), r["op"], _alloc(r.get("allocation")), inst, str(r["wavefronts"]),
                     str(r["ideal_wavefronts"]), str(r["excess"])])
    names = ("source", "ptx", "op", "allocation", "inst", "waves", "ideal", "excess")
    widths = [max([len(n)] + [max(map(len, row[i].split("\n"))) for row in rows]) for i, n in enumerate(names)]
    ptx_room = max(12, width - (sum(widths) - widths[1]) - 2 * (len(names) - 1))  # two spaces between columns
    for i, name in enumerate(names):
        t.add_column(name, justify="right" if i >= 4 else "left", no_wrap=True, overflow="ellipsis",
                     max_width=ptx_room if name == "ptx" else None)
    for row in rows:
        excess = int(row[-1])
        t.add_row(*row[:-1], Text(row[-1], style="red" if excess else "green"))
    return t


def render(report) -> str:
    buf = io.StringIO()
    console = Console(file=buf, width=120, color_system=None, highlight=False, soft_wrap=False)
    write(report, console)
    return buf.getvalue()


def write(report, console) -> None:
    doc = report.to_json()
    console.print(f"{doc['file']}: {len(doc['kernels'])} kernel(s), --arch {doc['arch']}", highlight=False)
    for k in doc["kernels"]:
        console.print(kernel_table(k, console.width))
        for name, value in k.get("counters", {}).items():
            console.print(f"  {name} = {value}", highlight=False)
        for n in k.get("not_counted", []):
            console.print(f"  not counted: {n.get('ptx', '')}: {n.get('reason', '')}", highlight=False)
        for note in k.get("notes", []):
            console.print(f"  note: {note}", highlight=False, soft_wrap=True)
        if k.get("fix"):
            for line in k["fix"].get("lines", []):
                console.print(f"  fix: {line}", highlight=False, soft_wrap=True)
            for a in k["fix"].get("allocations", []):
                if a.get("emit"):  # --emit TARGET: the fixed allocation's code, to paste
                    console.print(a["emit"], highlight=False, markup=False, soft_wrap=True)
    console.print(f"status: {report.quiet()}", highlight=False)  # the -q line, which opens with doc["status"]
