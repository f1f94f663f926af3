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


def tile_view(view: BankMap, banks: int, heading: str) -> Text:
    rows, cols = view.banks.shape
    width = max(2, len(str(banks - 1)))
    out = Text(no_wrap=True)
    ok = view.worst == view.lower_bound
    out.append(f"{heading}: {view.layout}\n", style="bold")
    out.append(f"{view.spec}: worst {view.worst} wavefront(s), bound {view.lower_bound}\n",
               style="green" if ok else "red")
    out.append(" " * 4 + "".join(f"{c:>{width}} " if c % 4 == 0 else " " * (width + 1) for c in range(cols)) + "\n",
               style="dim")
    for r in range(rows):
        out.append(f"{r:>3} ", style="dim")
        for c in range(cols):
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
    if 2 * width + 4 <= console_width:
        grid = Table.grid(padding=(0, 4))
        grid.add_row(left, right)
        parts.append(grid)
    else:
        if width > console_width:  # rich crops what does not fit: say so rather than show half a tile
            parts.append(Text(f"(the picture needs {width} columns and the output has {console_width}: "
                              f"widen the terminal (COLUMNS={width} when piped) or use --svg FILE)", style="yellow"))
        parts += [left, right]
    return Group(*parts)
