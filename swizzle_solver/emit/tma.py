"""--emit tma: TMA (CUtensorMapSwizzle): the mode (tma_modes.py) that stores the layout, as cuda.h
names it, where the target's TMA has it (hardware.Hardware.tma_modes)."""
from __future__ import annotations

from ..hardware import TARGETS, Hardware
from ..layout import Layout
from ..model import Problem
from ..orient import Words, words
from ..tma_modes import MODES, TmaMode
from .common import Snippet, header
from .recognise import as_stored, as_swizzle, row_pitch, tma_mode_of

TARGET = "tma"
TITLE = "TMA (CUtensorMapSwizzle)"
ORDER = 5  # place in the --emit list


def emit(problem: Problem, layout: Layout) -> Snippet:
    tile = problem.tile
    head = header(problem, layout, "//")
    hardware = problem.hardware
    if "tma" not in hardware.copy_engines:  # the tensor memory accelerator (NVIDIA's, sm_90 on)
        return Snippet("tma", f"{head}\n// not a TMA layout on --arch {hardware.name}: {no_tma(hardware)}", False)
    pitch = row_pitch(tile, layout)
    form = layout.padded_form(tile)
    rows_apart = pitch or (form[0] if form else tile.cols)  # plain rows, or a padded layout's
    stored, inner = as_stored(tile, layout)  # a padded layout at pitch = cols stores the dense tile
    found = tma_mode_of(stored, inner) if not pitch else None  # any mode; the target's TMA must have it
    if found is not None:
        name, panels = found
        if (lacking := _lacking(problem, head, name)) is not None:
            return lacking
        return _panels(problem, name, head) if panels else _box(problem, name, head)
    if rows_apart != tile.cols or pitch:
        return _plain_rows(tile, head, rows_apart)
    return Snippet("tma", f"{head}\n// not a TMA swizzle mode: {_why_no_mode(tile, stored, inner, hardware)}", False)


def _plain_rows(tile, head: str, rows_apart: int) -> Snippet:
    """Rows ``rows_apart`` elements apart with no swizzle: TMA's SWIZZLE_NONE when the rows are
    dense (TMA writes a box densely) and a row is whole 16-byte units."""
    row_bytes = tile.cols * tile.elem_bytes
    if rows_apart != tile.cols:
        return Snippet("tma", f"{head}\n// not a TMA layout: TMA writes a box densely, it cannot leave the "
                              f"{rows_apart - tile.cols} padding element(s) per {words(tile).row}", False)
    if row_bytes % 16:
        return Snippet("tma", f"{head}\n// not a TMA layout: the box's inner extent ({row_bytes} B) must be "
                              f"a multiple of 16 bytes", False)
    return Snippet("tma", f"{head}\nCUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_NONE;\n"
                          f"// box inner extent {tile.cols} elements ({row_bytes} B, a multiple of 16 B); "
                          f"shared buffer aligned to 128 B", True)


def _why_no_mode(tile, stored, inner, hardware: Hardware) -> str:
    """Why the stored layout is no TMA swizzle mode of this target: not one swizzle, a byte form no
    mode has, or a mode's byte form on rows of another length."""
    sw = as_swizzle(stored, inner)
    modes = ", ".join(f"{m} = {MODES[m].byte_name}" for m in MODES if MODES[m].single
                      and (MODES[m].classic or m in hardware.tma_modes))
    if sw is None:
        if any(not MODES[m].classic for m in hardware.tma_modes):
            return f"the layout is not one of the TMA modes' byte maps ({_every_mode(hardware)})"
        return "the layout is not a single CuTe swizzle, and TMA modes are byte-level Swizzle<1|2|3,4,3>"
    named = sw.tma_mode(tile.elem_bytes)
    if named is None:
        return f"its byte form {sw.byte_level(tile.elem_bytes).name} is not a TMA mode ({modes})"
    mode = MODES[named]
    return (f"its byte form {sw.byte_level(tile.elem_bytes).name} is the {mode.name} mode only for rows of "
            f"exactly {mode.span} B, and this tile's rows are {stored.row_length * tile.elem_bytes} B")

def _every_mode(hardware: Hardware) -> str:
    return ", ".join(f"{m} = {MODES[m].byte_name}" for m in hardware.tma_modes)


def _needs(mode: TmaMode) -> list[str]:
    """What a Blackwell mode needs besides the map (nothing for the 16-byte-atom modes)."""
    if mode.classic:
        return []
    return [f"// needs CUDA 12.8+ (cuda.h) and sm_100a/sm_120a (PTX ISA 8.6: swizzle atomicity {mode.atom} B; "
            f"on sm_120a not for loads to .shared::cluster)"]


def _alignment(mode: TmaMode, w: Words) -> str:
    if mode.classic:
        return (f"// shared buffer aligned to {mode.period} B (the {mode.period}-byte swizzle period: 8 {w.rows} of "
                f"{mode.span} B)")
    return (f"// shared buffer aligned to {mode.alignment} B (the 128-byte modes' pattern starts on a "
            f"{mode.alignment}-byte boundary; this map repeats every {mode.period} B: {mode.period // 128} {w.rows} of "
            f"128 B)")


def _box(problem: Problem, name: str, head: str) -> Snippet:
    """One box of rows exactly the mode's span."""
    tile, mode = problem.tile, MODES[name]
    w = words(tile)
    row_bytes = tile.cols * tile.elem_bytes
    return Snippet("tma", "\n".join([
        head,
        f"CUtensorMapSwizzle swizzle = {mode.enum};  // byte form {mode.byte_name}",
        f"// box inner extent: {tile.cols} elements x {tile.elem_bytes} B = {row_bytes} B "
        f"<= {mode.span} B (the swizzle width)",
        f"// box outer extent: {tile.rows} {w.rows} (at most 256 per box: load {w.taller} tiles as several boxes)",
        _alignment(mode, w), *_needs(mode)]), True, name)


def unavailable(hardware: Hardware) -> str | None:
    """Why --for tma is refused on this target (it has no TMA), or None."""
    if "tma" in hardware.copy_engines:
        return None
    return hardware.lacks("TMA (CUtensorMap, sm_90 on) to store the tile", lambda t: "tma" in t.copy_engines)


def no_tma(hardware: Hardware) -> str:
    """Why a target has no TMA code: its own words (hardware.Hardware.without_tma), or the targets
    that have one (building their tables: only for a target that does not say)."""
    if hardware.without_tma:
        return hardware.without_tma
    having = [name for name in TARGETS if "tma" in TARGETS[name].copy_engines]
    return f"it has no TMA (CUtensorMap; --arch {', '.join(having)} {'has' if len(having) == 1 else 'have'} one)"


def _lacking(problem: Problem, head: str, name: str) -> Snippet | None:
    """The refusal of the mode ``name`` where the target's TMA lacks it (hardware.Hardware.tma_modes),
    naming the targets whose TMA has it, or None."""
    modes = problem.hardware.tma_modes
    if name in modes:
        return None
    having = [t for t in TARGETS if name in TARGETS[t].tma_modes] if not MODES[name].classic else []
    where = f" (--arch {', '.join(having)} {'has' if len(having) == 1 else 'have'} it)" if having else ""
    return Snippet("tma", f"{head}\n// not a TMA swizzle mode of --arch {problem.hardware.name}: its TMA has "
                          f"{', '.join(modes) or 'no swizzle mode'}, not {name}{where}", False)


def _panels(problem: Problem, name: str, head: str) -> Snippet:
    """One box per column panel: each panel is stored whole and swizzled by the mode."""
    tile, mode = problem.tile, MODES[name]
    width = mode.span
    w = width // tile.elem_bytes
    n, panel_bytes = tile.cols // w, tile.rows * width
    say = words(tile)
    down = f" down a {say.row}" if tile.col_major else ""  # a box's inner extent: along a stored row
    return Snippet("tma", "\n".join([
        head,
        f"CUtensorMapSwizzle swizzle = {mode.enum};  // byte form {mode.byte_name}",
        f"// box: {w} elements{down} x {tile.rows} {say.rows} ({width} B inner extent = the swizzle width); {n} boxes, "
        f"one per {say.col} panel:",
        f"// box i loads {say.cols} [{w} * i, {w} * i + {w}) to smem + i * {panel_bytes} B (panels stored one after "
        f"another)",
        f"// {say.rows} per box at most 256 (load {say.taller} tiles as several boxes per panel)",
        _alignment(mode, say), *_needs(mode)]), True, name)


def in_user_order(problem: Problem, body: str) -> str:
    """--order col: this target's code of the stored tile, said of the user's (r, c) (emit/views.py)."""
    rows, cols = problem.tile.logical_shape
    return (f"// --order col: stored column by column, so the box's inner dimension (boxDim[0]) runs down a column "
            f"of the tile ({rows} elements of r) and its outer one across the {cols} columns\n{body}")


def in_elements(problem: Problem, layout: Layout, snippet: Snippet) -> str:
    """Sub-byte elements: what this target's code of the packed bytes is in the elements (emit/views.py)."""
    tile = problem.tile
    if not snippet.expressible:
        return ""
    per = 8 // tile.elem_bits
    inner = _box_inner(tile, layout)
    return (f"// {tile.elem_bits}-bit elements, packed: tensorDataType = CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B (cuda.h, "
            f"CUDA 12.8+: 16 x U4 in 8 bytes, no gaps), whose globalDim[0] and boxDim[0] count elements: boxDim[0] = "
            f"{inner * per} elements = the {inner} B above, and the swizzle moves those bytes as written "
            f"(16U4_ALIGN16B is the padded image: --dtype b4x16_p64)")


def _box_inner(tile, layout: Layout) -> int:
    """The box's inner extent in elements, as emit writes it: a column panel's (the mode's span), else
    the whole row."""
    stored, inner = as_stored(tile, layout)
    found = tma_mode_of(stored, inner) if not row_pitch(tile, layout) else None
    return MODES[found[0]].span // tile.elem_bytes if found is not None and found[1] else tile.cols
