"""`--html FILE`: the bank map as one self-contained page (data embedded, no server, no network).

The page (``page.html``, shipped as package data, hand-written JS and CSS) draws what this module
hands it: one *view* per tile (a solve, a check, a batch case, later a kernel report's buffers),
each a plain dict:

- ``tile``: the user's shape, row length, element and bank sizes, and whether storage runs down the
  columns (``--order col``: lanes then run down a column of the drawn tile);
- ``layouts``: every layout the view can switch to (the unswizzled tile first, then the answer or
  the checked layout, then the other candidates), each with its physical element offset and the
  bank of its first word for every element of the user's tile (row-major, base64 of little-endian
  int32: ``phys``, ``bank``), as bankmap.py computes them;
- ``accesses``: per access its lanes (row, col, bytes of every lane of every placement, in the
  user's (r, c); only the worst instruction's placements of each layout when there are more than
  MAX_LANES lanes, ``index`` then says which), its phases per instruction, its lower bound, and per
  layout the simulator's wavefronts of every placement (``costs``) with the worst instruction;
- ``doc``: the JSON document (``--json``'s, with every target's code) for the panels, or null for a
  layout drawn alone; ``explain``: the ``--explain`` sentences, or null.

Every count the page shows is one of these numbers: the page computes only which cells a lane
covers and, for outlining, which words of a phase share a bank (words = offset * elem_bytes //
bank_bytes, as hardware.py; tests/test_html.py compares both with the simulator's).

Everything a user typed (a case name, a notation) reaches the page only as JSON inside a
``<script type="application/json">``, with ``<``, ``>``, ``&`` and the two JavaScript line separators
escaped, and is inserted with ``textContent``: nothing in it can end the script or become markup.
"""
from __future__ import annotations

import base64
import json
from importlib import resources

import numpy as np

from . import simulate
from .layout import Layout, layout_table
from .model import Problem

MAX_ELEMENTS = 1 << 19  # element tables embedded in all: a large tile's page offers fewer candidates (two at least)
MAX_LANES = 1 << 17  # lanes of one access embedded whole; above, only the worst instructions' placements


def _b64(values) -> str:
    """Little-endian int32, base64: about 5.3 characters per number, whatever its size."""
    return base64.b64encode(np.ascontiguousarray(values, dtype="<i4").tobytes()).decode("ascii")


def _user(problem: Problem, table: np.ndarray) -> np.ndarray:
    """A storage-oriented [rows, cols] table in the user's (r, c) (--order col: its transpose)."""
    return table.T if problem.tile.col_major else table


def layout_entry(problem: Problem, role: str, layout: Layout, note: str | None = None) -> dict:
    """One switchable layout: its name, its role (before, answer, checked, candidate, layout) and
    the offset and bank of every element of the user's tile (bankmap.py's tables)."""
    tile, hw = problem.tile, problem.hardware
    phys = layout_table(tile, layout)
    bank = hw.bank(hw.first_word(phys, tile.elem_bytes))
    return {"name": layout.name, "role": role, "note": note,
            "phys": _b64(_user(problem, phys).ravel()), "bank": _b64(_user(problem, bank).ravel())}


def access_entry(problem: Problem, index: int, layouts: list[Layout]) -> dict:
    """One access: its lanes and, per layout, the simulator's cost of every placement (phase)."""
    pattern = problem.patterns[index]
    tile = problem.tile
    k = max(1, pattern.instruction_phases)
    results = [simulate.simulate(tile, problem.hardware, [pattern], layout_table(tile, lay))[0] for lay in layouts]
    worst = [int(r.instruction_costs().argmax()) for r in results]
    rows, cols, nbytes = pattern.lane_row, pattern.lane_col, pattern.lane_bytes
    if tile.col_major:  # lanes in the user's (r, c): a lane's bytes then run down a column
        rows, cols = cols, rows
    placements, lanes = rows.shape
    index_list = None
    if placements * lanes > MAX_LANES:  # the worst instruction of each layout, in order
        index_list = sorted({w * k + j for w in worst for j in range(k)})
        rows, cols, nbytes = rows[index_list], cols[index_list], nbytes[index_list]
    return {"spec": pattern.spec, "lower_bound": pattern.lower_bound,
            "instruction_lower_bound": pattern.instruction_lower_bound,
            "banks": problem.hardware.serving(pattern.banks).banks, "phases_per_instruction": k,
            "placements": placements, "lanes": lanes,
            "index": None if index_list is None else _b64(index_list),
            "row": _b64(rows.ravel()), "col": _b64(cols.ravel()), "bytes": _b64(nbytes.ravel()),
            "costs": [_b64(r.costs) for r in results],
            "worst_instruction": worst,
            "worst": [int(r.instruction_costs().max()) for r in results],
            "total": [r.total for r in results]}


def view(problem: Problem, layouts: list[tuple[str, Layout]], doc: dict | None, title: str,
         explain: list | None = None, notes: dict[str, str] | None = None) -> dict:
    """One tile's view. ``layouts``: (role, layout) pairs in the order the page offers them
    (duplicates by name dropped); ``notes``: a sentence per layout name (a layout not usable)."""
    seen: set[str] = set()
    chosen = []
    for role, lay in layouts:
        if lay.name not in seen:
            seen.add(lay.name)
            chosen.append((role, lay))
    t, hw = problem.tile, problem.hardware
    chosen = chosen[:max(2, MAX_ELEMENTS // t.size)]  # before and the layout always; the others while they fit
    rows, cols = t.logical_shape
    notes = notes or {}
    return {
        "title": title,
        "tile": {"rows": rows, "cols": cols, "row_length": t.row_length, "elem_bytes": t.elem_bytes,
                 "elem_bits": t.elem_bits, "order": t.order, "banks": hw.banks, "bank_bytes": hw.bank_bytes,
                 "arch": hw.name, "words_per_element": hw.element_words(t.elem_bytes)},
        "layouts": [layout_entry(problem, role, lay, notes.get(lay.name)) for role, lay in chosen],
        "accesses": [access_entry(problem, i, [lay for _, lay in chosen]) for i in range(len(problem.patterns))],
        "doc": doc,
        "explain": explain,
    }


def script_json(data) -> str:
    """JSON safe inside <script>: no ``</script>``, ``<!--`` or ``]]>`` can form, and U+2028/U+2029
    (line breaks to older JavaScript) are escaped. JSON.parse reads it back unchanged."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False, sort_keys=False)
    for ch, esc in (("&", "\\u0026"), ("<", "\\u003c"), (">", "\\u003e"), ("\u2028", "\\u2028"),
                    ("\u2029", "\\u2029")):
        text = text.replace(ch, esc)
    return text


def template() -> str:
    return resources.files(__package__).joinpath("page.html").read_text(encoding="utf-8")


def page(views: list[dict], title: str) -> str:
    """The whole page: the template with the data and the title in place."""
    return page_of_texts([script_json(v) for v in views], title)


def page_of_texts(view_texts: list[str], title: str, note: str | None = None) -> str:
    """The page from views already written as ``script_json`` text (batch keeps each case's text,
    not its tables): the same bytes as ``script_json({"version": 1, "title": title, "views":
    views})``, since compact JSON and the escapes compose. ``note``: what the page says when it has
    no view (a kernel with nothing to fix)."""
    from html import escape

    text = template()
    head, rest = text.split("<title>", 1)
    _, rest = rest.split("</title>", 1)
    text = f"{head}<title>{escape(title)}</title>{rest}"
    extra = "" if note is None else ',"note":' + script_json(note)
    data = '{"version":1,"title":' + script_json(title) + extra + ',"views":[' + ",".join(view_texts) + "]}"
    before, after = text.split("<!--DATA-->", 1)
    return before + data_elements(data) + after


PART = 1 << 15  # characters of the data per <script> element (page.html says why)


def data_elements(data: str) -> str:
    """The data's JSON text cut into ``<script type="application/json" class="swizzle-data">``
    elements of at most PART characters, which the page joins back (no ``<`` is in the text, so
    any cut is safe)."""
    return "\n".join(f'<script type="application/json" class="swizzle-data">{data[i:i + PART]}</script>'
                     for i in range(0, max(len(data), 1), PART))


def write_page(path: str, views: list[dict], title: str) -> None:
    """Write the page whole or not at all (svg.write's temporary file and rename)."""
    write_texts(path, [script_json(v) for v in views], title)


def write_texts(path: str, view_texts: list[str], title: str, note: str | None = None) -> None:
    """``write_page`` of views already written as text (batch --html: one per case)."""
    from .svg import write

    write(path, page_of_texts(view_texts, title, note), option="--html")


def case_title(name: str, layout_name: str, status: str, ok: bool) -> str:
    """A batch case's view title, as the case selector lists it: the case, its layout, whether it met
    its expectation."""
    return f"{name}: {layout_name} ({status}{'' if ok else ', FAILED its expectation'})"


def document_view(problem: Problem, layout: Layout, doc: dict, others: list[Layout], role: str,
                  title: str | None = None, explain: list | None = None) -> dict:
    """The view of a solve (``role`` "answer": ``others`` its alternatives) or a check ("checked":
    ``others`` the minimal layout, when the check failed): the unswizzled tile, the layout, the
    others. The page's copy of ``doc`` carries every target's code (a layout not usable gets none)."""
    import copy

    from .families.identity import Identity

    page_doc = copy.deepcopy(doc)
    if doc.get("status") != "not-usable":
        from .emit import TARGETS, emit_all

        snippets = emit_all(TARGETS, problem, layout)
        page_doc["answer"]["emit"] = {t: s.code for t, s in snippets.items()}
        page_doc["answer"]["emit_expressible"] = {t: s.expressible for t, s in snippets.items()}
    invalid = (doc.get("check") or {}).get("invalid")
    layouts = [("before", Identity()), (role, layout), *(("candidate", o) for o in others)]
    return view(problem, layouts, page_doc, title or default_title(problem, layout), explain,
                {layout.name: f"not usable: {invalid}"} if invalid else None)


def layout_view(problem: Problem, layout: Layout, title: str | None = None) -> dict:
    """A layout drawn alone (no access named): its offsets and banks, beside the unswizzled tile."""
    from .families.identity import Identity

    return view(problem, [("layout", layout), ("before", Identity())], None,
                title or f"{layout.name}: {problem.tile.describe()}")


def default_title(problem: Problem, layout: Layout) -> str:
    specs = ", ".join(p.spec for p in problem.patterns)
    return f"{layout.name}: {problem.tile.describe()}; accesses {specs}"
