"""The kernel report as rich tables: per kernel one row per shared-memory instruction (source
line, PTX, op, allocation, instances, wavefronts, ideal, excess), its ncu totals, what is not
counted, the notes and the fix; the status line last."""
from __future__ import annotations

import io
import re
from typing import Any

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
    return f"{src}\nptx {r['ptx_line']}" if r.get("ptx_line") else src


def kernel_table(k: dict[str, Any]) -> Table:
    block = "x".join(map(str, k.get("block", []))) or "-"
    cta = ", ".join(map(str, k.get("cta", []))) or "-"
    t = Table(title=f"{k.get('demangled', k['name'])}  block {block}, cta ({cta})", title_justify="left",
              expand=False)
    for name, right in (("source", False), ("ptx", False), ("op", False), ("allocation", False), ("inst", True),
                        ("waves", True), ("ideal", True), ("excess", True)):
        t.add_column(name, justify="right" if right else "left", overflow="fold", no_wrap=name == "source")
    for r in k["instructions"]:
        excess = Text(str(r["excess"]), style="red" if r["excess"] else "green")
        inst = str(r["instances"]) + (f" ({r['data_dependent']} data-dep.)" if r.get("data_dependent") else "")
        t.add_row(_where(r), r.get("ptx", ""), r["op"], _alloc(r.get("allocation")), inst, str(r["wavefronts"]),
                  str(r["ideal_wavefronts"]), excess)
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
        console.print(kernel_table(k))
        for name, value in k.get("counters", {}).items():
            console.print(f"  {name} = {value}", highlight=False)
        for n in k.get("not_counted", []):
            console.print(f"  not counted: {n.get('ptx', '')}: {n.get('reason', '')}", highlight=False)
        for note in k.get("notes", []):
            console.print(f"  note: {note}", highlight=False)
        if k.get("fix"):
            for line in k["fix"].get("lines", []):
                console.print(f"  fix: {line}", highlight=False)
    console.print(f"status: {doc['status']} ({report.quiet()})", highlight=False)
