"""--emit tma: TMA (CUtensorMapSwizzle)."""
from __future__ import annotations

from ..hardware import TARGETS, Hardware
from ..layout import Layout
from ..model import Problem
from .common import Snippet, header
from .recognise import as_stored, as_swizzle, panels_of, row_pitch, tma_width

TARGET = "tma"
TITLE = "TMA (CUtensorMapSwizzle)"
ORDER = 5  # place in the --emit list


TMA_ENUM = {32: "CU_TENSOR_MAP_SWIZZLE_32B", 64: "CU_TENSOR_MAP_SWIZZLE_64B", 128: "CU_TENSOR_MAP_SWIZZLE_128B"}


def emit(problem: Problem, layout: Layout) -> Snippet:
    tile = problem.tile
    head = header(problem, layout, "//")
    hardware = problem.bank_model
    if "tma" not in hardware.copy_engines:  # the tensor memory accelerator (NVIDIA's, sm_90 on)
        return Snippet("tma", f"{head}\n// not a TMA layout on --arch {hardware.name}: {no_tma(hardware)}", False)
    row_bytes = tile.cols * tile.elem_bytes
    pitch = row_pitch(tile, layout)
    form = layout.padded_form(tile)
    rows_apart = pitch or (form[0] if form else tile.cols)  # plain rows, or a padded layout's
    panels = panels_of(tile, layout)
    if panels is not None:
        return _panels(problem, layout, panels, head)
    if rows_apart != tile.cols:
        return Snippet("tma", f"{head}\n// not a TMA layout: TMA writes a box densely, it cannot leave the "
                              f"{rows_apart - tile.cols} padding element(s) per row", False)
    if pitch:
        if row_bytes % 16:
            return Snippet("tma", f"{head}\n// not a TMA layout: the box's inner extent ({row_bytes} B) must be "
                                  f"a multiple of 16 bytes", False)
        return Snippet("tma", f"{head}\nCUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_NONE;\n"
                              f"// box inner extent {tile.cols} elements ({row_bytes} B, a multiple of 16 B); "
                              f"shared buffer aligned to 128 B", True)
    stored, inner = as_stored(tile, layout)  # a padded layout at pitch = cols stores the dense tile
    sw = as_swizzle(stored, inner)
    width = tma_width(stored, sw)
    if width is not None and (lacking := _lacking(problem, head, width)) is not None:
        return lacking
    if width is None:
        if sw is None:
            why = "the layout is not a single CuTe swizzle, and TMA modes are byte-level Swizzle<1|2|3,4,3>"
        elif sw.tma_mode(tile.elem_bytes) is None:
            why = (f"its byte form {sw.byte_level(tile.elem_bytes).name} is not a TMA mode "
                   f"(32B = Swizzle<1,4,3>, 64B = Swizzle<2,4,3>, 128B = Swizzle<3,4,3>)")
        else:
            w = 16 << sw.B
            why = (f"its byte form {sw.byte_level(tile.elem_bytes).name} is the {w}B mode only for rows of "
                   f"exactly {w} B, and this tile's rows are {stored.row_length * tile.elem_bytes} B")
        return Snippet("tma", f"{head}\n// not a TMA swizzle mode: {why}", False)
    assert sw is not None  # tma_width found its mode
    return Snippet("tma", "\n".join([
        head,
        f"CUtensorMapSwizzle swizzle = {TMA_ENUM[width]};  // byte form {sw.byte_level(tile.elem_bytes).name}",
        f"// box inner extent: {tile.cols} elements x {tile.elem_bytes} B = {row_bytes} B "
        f"<= {width} B (the swizzle width)",
        f"// box outer extent: {tile.rows} rows (at most 256 per box: load taller tiles as several boxes)",
        f"// shared buffer aligned to {8 * width} B (the {8 * width}-byte swizzle period: 8 rows of {width} B)"]), True,
        f"{width}B")


def no_tma(hardware: Hardware) -> str:
    """Why a target has no TMA code: its own words (hardware.Hardware.without_tma), or the targets
    that have one (building their tables: only for a target that does not say)."""
    if hardware.without_tma:
        return hardware.without_tma
    having = ", ".join(name for name in TARGETS if "tma" in TARGETS[name].copy_engines)
    return f"it has no TMA (CUtensorMap; --arch {having} has one)"


def _lacking(problem: Problem, head: str, width: int) -> Snippet | None:
    """The refusal of the W-byte mode where the target's TMA lacks it (hardware.Hardware.tma_modes),
    or None."""
    modes = problem.bank_model.tma_modes
    if f"{width}B" in modes:
        return None
    return Snippet("tma", f"{head}\n// not a TMA swizzle mode of --arch {problem.bank_model.name}: its TMA has "
                          f"{', '.join(modes) or 'no swizzle mode'}, not {width}B", False)


def _panels(problem: Problem, layout: Layout, panels, head: str) -> Snippet:
    """One box per column panel: each panel is stored whole and swizzled by the W-byte mode."""
    tile = problem.tile
    w, width = panels.panel_cols(tile), panels.width
    if (lacking := _lacking(problem, head, width)) is not None:
        return lacking
    n, panel_bytes = tile.cols // w, tile.rows * panels.width
    return Snippet("tma", "\n".join([
        head,
        f"CUtensorMapSwizzle swizzle = {TMA_ENUM[width]};  // byte form {panels.atom(tile).byte_level(tile.elem_bytes).name}",
        f"// box: {w} elements x {tile.rows} rows ({width} B inner extent = the swizzle width); {n} boxes, one per "
        f"column panel:",
        f"// box i loads columns [{w} * i, {w} * i + {w}) to smem + i * {panel_bytes} B (panels stored one after another)",
        "// rows per box at most 256 (load taller tiles as several boxes per panel)",
        f"// shared buffer aligned to {8 * width} B (the {8 * width}-byte swizzle period: 8 rows of {width} B)"]), True,
        f"{width}B")
