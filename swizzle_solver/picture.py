"""`--show`: the tile in the terminal, each element cell coloured by its bank, before and after.

Every cell prints its bank number (so the picture still reads without colour); the elements read
by the worst placement of the chosen access are marked `*`, and `!` where their bank serves more
distinct words than the access's lower bound allows (the conflict).
"""
from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from .bankmap import BankMap, bank_colour

MAX_COLS = 64  # 3 characters per cell: beyond this the rows wrap; the SVG has no such limit
MAX_ROWS = 128


def tile_view(view: BankMap, banks: int, heading: str, columns: range | None = None) -> Text:
    """The tile's cells, or those of the given band of columns (a tile wider than the output)."""
    rows, cols = view.banks.shape
    columns = columns if columns is not None else range(cols)
    width = max(2, len(str(banks - 1)))
    out = Text(no_wrap=True)
    ok = view.worst == view.lower_bound
    band = f", columns {columns.start}-{columns.stop - 1}" if len(columns) < cols else ""
    out.append(f"{heading}: {view.layout}{band}\n", style="bold")
    if view.spec:
        out.append(f"{view.spec}: worst {view.worst} wavefront(s), bound {view.lower_bound}\n",
                   style="green" if ok else "red")
    else:  # a layout drawn alone (bankmap.layout_map)
        out.append("no access named: banks only\n", style="dim")
    out.append(" " * 4 + "".join(f"{c:>{width}} " if c % 4 == 0 else " " * (width + 1) for c in columns) + "\n",
               style="dim")
    for r in range(rows):
        out.append(f"{r:>3} ", style="dim")
        for c in columns:
            bank = int(view.banks[r, c])
            mark = "!" if (r, c) in view.conflicted else "*" if (r, c) in view.footprint else " "
            style = f"black on {bank_colour(bank, banks)}"
            if mark != " ":
                style = f"bold {'red' if mark == '!' else 'white'} on black"
            out.append(f"{bank:>{width}}{mark}", style=style)
        out.append("\n")
    return out


def legend(banks: int) -> Text:
    """The bank colours in groups of 8, two groups a line."""
    out = Text("cell = bank; * read by the worst placement; ! bank over-subscribed\n",
               style="dim", no_wrap=True)
    for start in range(0, banks, 8):
        out.append(f"{start:>3}-{min(banks, start + 8) - 1:<3}")
        for b in range(start, min(banks, start + 8)):
            out.append(f"{b:>3}", style=f"black on {bank_colour(b, banks)}")
        out.append("\n" if (start // 8) % 2 or start + 8 >= banks else "    ")
    return out


def picture(before: BankMap, after: BankMap, banks: int, console_width: int):
    """Before and after side by side when the console is wide enough, else one above the other."""
    rows, cols = after.banks.shape
    if cols > MAX_COLS or rows > MAX_ROWS:
        return Text(f"--show: the tile is {rows} x {cols}; the terminal picture stays readable up to "
                    f"{MAX_ROWS} x {MAX_COLS} elements: use --svg FILE for this tile", style="yellow")
    left, right = tile_view(before, banks, "before (unswizzled)"), tile_view(after, banks, "after")
    width = 4 + cols * (max(2, len(str(banks - 1))) + 1)
    parts: list[RenderableType] = [Text("Bank map", style="bold underline"), legend(banks)]
    if after.storage:  # which way storage runs, when it is not along the rows drawn
        parts.insert(2, Text(after.storage, style="dim"))
    if 2 * width + 4 <= console_width:
        grid = Table.grid(padding=(0, 4))
        grid.add_row(left, right)
        parts.append(grid)
    elif width <= console_width:
        parts += [left, right]
    else:  # too wide for the output: bands of columns (multiples of 4, as labelled), never a cut cell
        cell = max(2, len(str(banks - 1))) + 1
        per = max(4, (console_width - 4) // cell // 4 * 4)
        bands = [range(c, min(cols, c + per)) for c in range(0, cols, per)]
        parts += [tile_view(before, banks, "before (unswizzled)", b) for b in bands]
        parts += [tile_view(after, banks, "after", b) for b in bands]
    return Group(*parts)
