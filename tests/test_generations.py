"""NVIDIA generations as targets (issue 28, DESIGN.md section 14): what each has and refuses, and the
TMA swizzle modes (Hopper's 32B/64B/128B, Blackwell's 128B_ATOM_32B, 128B_ATOM_32B_FLIP_8B,
128B_ATOM_64B) as layouts, each permutation checked against statements written independently of
swizzle_solver/tma_modes.py: the PTX ISA's tables (section 5.5.7, "Swizzling Modes"), cuda.h's
words for each enum, and CuTe's code (the header's atoms and make_tma_copy's mapping, through
pycute)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pycute
import pytest

from swizzle_solver import api, hardware
from swizzle_solver.cli import main
from swizzle_solver.emit import emit, tma_mode
from swizzle_solver.families.cute import Swizzle
from swizzle_solver.layout import layout_table
from swizzle_solver.model import InputError, Tile
from swizzle_solver.names import parse_layout
from swizzle_solver.tma_modes import MODES
from tests import clirun

ROOT = Path(__file__).resolve().parents[1]
CUTE_HEADERS = Path(pycute.__file__).resolve().parents[1] / "cutlass_library/source/include/cute"
BLACKWELL = ("128B_ATOM_32B", "128B_ATOM_32B_FLIP_8B", "128B_ATOM_64B")


def cli(*argv: str) -> tuple[int, str, str]:
    """The CLI as a user runs it (its exit code, stdout, stderr), in this process (tests/clirun.py)."""
    run = clirun.solve(*argv)
    return run.returncode, run.stdout, run.stderr


def cli_here(capsys, *argv: str) -> tuple[int, str, str]:
    """The same in this process (cli.main): the fast tier's many refusals."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# --- the generations --------------------------------------------------------------------------------


@pytest.mark.parametrize("alias, name", [
    ("ampere", "sm80"), ("A100", "sm80"), ("sm_86", "sm80"), ("ada", "sm89"), ("l40", "sm89"), ("rtx40", "sm89"),
    ("hopper", "sm90"), ("h100", "sm90"), ("H200", "sm90"), ("sm_90a", "sm90"), ("blackwell", "sm100"),
    ("b200", "sm100"), ("gb200", "sm100"), ("sm_100a", "sm100"), ("rtx50", "sm120"), ("sm_120a", "sm120"),
    ("nvidia", "nvidia"), ("cuda", "nvidia"),
])
def test_each_generation_answers_to_its_names(alias, name):
    assert hardware.target(alias).name == name
    assert api.problem(16, 64, ["row"], dtype="f16", arch=alias).hardware.name == name


def test_the_generic_target_keeps_todays_capabilities():
    """`nvidia` is unchanged: the Hopper-era forms and TMA modes, and none of Blackwell's."""
    nvidia = hardware.TARGETS["nvidia"]
    assert nvidia.instructions == {"lds", "sts", "ldmatrix", "stmatrix", "mma-c", "mma-ab"}
    assert nvidia.tma_modes == ("32B", "64B", "128B")
    assert hardware.DEFAULT is nvidia


@pytest.mark.parametrize("name", ["sm80", "sm89", "sm90", "sm100", "sm120"])
def test_generations_share_the_banks_and_phases_of_every_nvidia_gpu(name):
    """32 banks of 4 bytes, 32-lane warps, the contiguous phase rule: only what each has differs."""
    gen, nvidia = hardware.TARGETS[name], hardware.TARGETS["nvidia"]
    assert (gen.banks, gen.bank_bytes, gen.wave_lanes, gen.phase_lanes, gen.matrix_rows, gen.language) == (
        nvidia.banks, nvidia.bank_bytes, nvidia.wave_lanes, nvidia.phase_lanes, nvidia.matrix_rows, nvidia.language)
    # each generation has every form of the one before (sm_120 drops only sm_100's tcgen05 path)
    order = ["sm80", "sm89", "sm90", "sm100", "sm120"]
    before = hardware.TARGETS[order[max(0, order.index(name) - 1)]]
    assert before.instructions <= gen.instructions and set(before.tma_modes) <= set(gen.tma_modes)


@pytest.mark.parametrize("argv, names", [
    (["--arch", "sm80", "--for", "tma"], ["--for tma", "--arch sm80 has no TMA", "sm90, sm100, sm120"]),
    (["--arch", "ampere", "--for", "tma"], ["--arch sm80 has no TMA"]),
    (["--arch", "sm89", "--access", "stmatrix.x4"], ["--arch sm89 has no stmatrix", "sm_90 on", "sm90, sm100"]),
    (["--arch", "sm80", "--access", "stmatrix.x2.trans"], ["--arch sm80 has no stmatrix"]),
    (["--arch", "gfx942", "--access", "row", "--for", "tma"], ["--arch gfx942 has no TMA", "--arch nvidia, sm90"]),
])
def test_a_form_the_generation_lacks_is_refused_in_one_line(capsys, argv, names):
    """Issue 28's acceptance: exit 2, one line on stderr naming the generations that have it,
    nothing on stdout (the first case as a process, the others in this one)."""
    access = [] if "--access" in argv else ["--access", "ldmatrix.x4"]
    run = cli if argv[:2] == ["--arch", "sm80"] and "tma" in argv else lambda *a: cli_here(capsys, *a)
    code, out, err = run("--rows", "64", "--cols", "64", "--dtype", "f16", *access, *argv)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert all(name in err for name in names), err


def test_the_generations_forms_and_tma_where_they_have_them():
    """stmatrix and --for tma solve on sm90 on; --emit tma on sm80 says why there is no TMA code."""
    for arch in ("sm90", "sm100", "sm120", "h100"):
        result = api.solve(rows=64, cols=64, dtype="f16", access=["stmatrix.x4"], arch=arch, for_targets="tma")
        assert result.conflict_free and result.json()["answer"]["tma_mode"] == "128B"
    ampere = api.problem(64, 64, ["ldmatrix.x4"], dtype="f16", arch="sm80")
    snippet = emit("tma", ampere, Swizzle(3, 3, 3))
    assert not snippet.expressible and "the TMA (CUtensorMap) is sm_90 on" in snippet.code
    assert api.solve(ampere).conflict_free  # ldmatrix is there from sm_75


# --- the TMA modes against independent statements -----------------------------------------------------

# PTX ISA 9.0, section 5.5.7 (Swizzling Modes): each table lists, for every 128-byte line of shared
# memory, the 16-byte chunk found at each of its 8 positions; the pattern repeats after the rows
# listed. Transcribed from the document (the 32- and 64-byte atoms keep 2 and 4 chunks together).
PTX_TABLES = {
    "32B": [[0, 1, 2, 3, 4, 5, 6, 7], [1, 0, 3, 2, 5, 4, 7, 6]],
    "64B": [[0, 1, 2, 3, 4, 5, 6, 7], [1, 0, 3, 2, 5, 4, 7, 6], [2, 3, 0, 1, 6, 7, 4, 5], [3, 2, 1, 0, 7, 6, 5, 4]],
    "128B": [[0, 1, 2, 3, 4, 5, 6, 7], [1, 0, 3, 2, 5, 4, 7, 6], [2, 3, 0, 1, 6, 7, 4, 5], [3, 2, 1, 0, 7, 6, 5, 4],
             [4, 5, 6, 7, 0, 1, 2, 3], [5, 4, 7, 6, 1, 0, 3, 2], [6, 7, 4, 5, 2, 3, 0, 1], [7, 6, 5, 4, 3, 2, 1, 0]],
    "128B_ATOM_32B": [[0, 1, 2, 3, 4, 5, 6, 7], [2, 3, 0, 1, 6, 7, 4, 5], [4, 5, 6, 7, 0, 1, 2, 3],
                      [6, 7, 4, 5, 2, 3, 0, 1]],
    "128B_ATOM_64B": [[0, 1, 2, 3, 4, 5, 6, 7], [4, 5, 6, 7, 0, 1, 2, 3]],
}
# "similar to the 32-byte atomicity sub-mode except that there is a flip of adjacent 8-bytes within
# the 16-byte data at every alternate shared memory line" (PTX ISA 5.5.7); cuda.h: "additionally
# swap lower 8B with upper 8B within each 16B for every alternate row".
PTX_TABLES["128B_ATOM_32B_FLIP_8B"] = PTX_TABLES["128B_ATOM_32B"]

BYTES = np.arange(8192)


def ptx_table_map(name: str) -> np.ndarray:
    """Each dense byte's shared-memory byte by the PTX ISA's table: the chunk at line L, position j
    holds source chunk table[L % n][j]; the FLIP_8B sub-mode also swaps 8-byte halves on odd lines."""
    table = PTX_TABLES[name]
    out = np.empty_like(BYTES)
    for b in BYTES.tolist():
        line, chunk, within = b // 128, (b % 128) // 16, b % 16
        j = table[line % len(table)].index(chunk)
        if name.endswith("FLIP_8B") and line % 2:
            within ^= 8
        out[b] = line * 128 + j * 16 + within
    return out


def cuda_h_words_map(name: str) -> np.ndarray:
    """cuda.h's comment on each enumerator, "Swizzle <atom>B chunks within <span>B span" (FLIP_8B:
    "additionally swap lower 8B with upper 8B within each 16B for every alternate row"): inside
    each span, the atom-sized chunk k of 128-byte row L moves to chunk k XOR (L mod chunks per span)."""
    words = {"32B": (16, 32), "64B": (16, 64), "128B": (16, 128), "128B_ATOM_32B": (32, 128),
             "128B_ATOM_32B_FLIP_8B": (32, 128), "128B_ATOM_64B": (64, 128)}
    atom, span = words[name]
    row, inside = BYTES // 128, BYTES % span
    chunk, within = inside // atom, inside % atom
    chunk = chunk ^ (row % (span // atom))
    if name.endswith("FLIP_8B"):
        within = within ^ (8 * (row % 2))
    return BYTES - inside + chunk * atom + within


@pytest.mark.parametrize("name", list(MODES))
def test_each_mode_is_the_ptx_isa_table(name):
    assert np.array_equal(MODES[name].apply(BYTES), ptx_table_map(name))


@pytest.mark.parametrize("name", list(MODES))
def test_each_mode_is_what_cuda_h_says(name):
    assert np.array_equal(MODES[name].apply(BYTES), cuda_h_words_map(name))
    assert MODES[name].enum == f"CU_TENSOR_MAP_SWIZZLE_{name}"


def test_the_32_byte_atom_is_cutes_umma_atom_and_make_tma_copys_mapping():
    """CuTe's code (CUTLASS 4.2, read from nvidia-cutlass's headers): UMMA's 128B swizzle with 32-byte
    atoms is ComposedLayout<Swizzle<2,5,2>, smem_ptr_flag, ...> (byte addresses), make_tma_copy
    takes M = 5 only as B = 2, S = 2 and encodes it as SWIZZLE_BASE_32B, which to_CUtensorMapSwizzle
    maps to CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B; the 16-byte-atom modes are Swizzle<B,4,3>."""
    umma = (CUTE_HEADERS / "atom/mma_traits_sm100.hpp").read_text()
    m = re.search(r"using Layout_MN_SW128_32B_Atom_Bits\s*=\s*ComposedLayout<Swizzle<(\d),(\d),(\d)>,\s*smem_ptr_flag",
                  umma)
    assert m, "Layout_MN_SW128_32B_Atom_Bits not found in mma_traits_sm100.hpp"
    swizzle = pycute.Swizzle(*map(int, m.groups()))
    assert np.array_equal(MODES["128B_ATOM_32B"].apply(BYTES), [swizzle(int(b)) for b in BYTES])
    traits = (CUTE_HEADERS / "atom/copy_traits_sm90_tma_swizzle.hpp").read_text()
    assert re.search(r"M == 5\)\s*\{\s*static_assert\(B == 2.*?static_assert\(S == 2.*?SWIZZLE_BASE_32B", traits, re.S)
    desc = (CUTE_HEADERS / "arch/copy_sm90_desc.hpp").read_text()
    assert re.search(r"SWIZZLE_BASE_32B:\s*return CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B", desc)
    assert re.search(r"SWIZZLE_BASE_64B:\s*return CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B", desc)
    for name, b in (("32B", 1), ("64B", 2), ("128B", 3)):  # the GMMA atoms' Swizzle<B,4,3>
        assert np.array_equal(MODES[name].apply(BYTES), [pycute.Swizzle(b, 4, 3)(int(x)) for x in BYTES])


def _cuda_h() -> Path | None:
    """A cuda.h of CUDA 12.8 or later (the toolchain wheel's, or a system CUDA's), if any."""
    import importlib.util

    spec = importlib.util.find_spec("nvidia")
    roots = [Path(p) / sub / "include" for p in (spec.submodule_search_locations or []) for sub in ("cu13", "cu14")] \
        if spec else []
    roots += sorted(Path("/usr/local").glob("cuda*/include"))
    for root in roots:
        path = root / "cuda.h"
        if path.exists() and "CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B" in path.read_text(errors="replace"):
            return path
    return None


def test_the_enums_are_cuda_hs_in_its_order_with_its_words():
    """Where a cuda.h of CUDA 12.8+ is present: CUtensorMapSwizzle lists NONE then the modes in
    tma_modes.MODES order (the values the emitted code takes), and its comment on each says what
    cuda_h_words_map above implements."""
    path = _cuda_h()
    if path is None:
        pytest.skip("no cuda.h of CUDA 12.8 or later here (bash .ci/toolchains installs one)")
    text = path.read_text(errors="replace")
    enum = re.search(r"typedef enum CUtensorMapSwizzle_enum \{(.*?)\} CUtensorMapSwizzle;", text, re.S)[1]
    names = re.findall(r"CU_TENSOR_MAP_SWIZZLE_(\w+)", enum)
    assert names == ["NONE", *MODES]
    for name, atom, span in (("32B", 16, 32), ("128B_ATOM_32B", 32, 128), ("128B_ATOM_64B", 64, 128)):
        assert re.search(rf"CU_TENSOR_MAP_SWIZZLE_{name},?\s*// Swizzle {atom}B chunks within {span}B\s+span", text)
    assert "swap lower 8B with upper 8B within each 16B for every alternate row" in text


# --- the modes as layouts: --check, --emit tma, --for tma ------------------------------------------------


@pytest.mark.parametrize("name", list(MODES))
@pytest.mark.parametrize("dtype, cols", [("e4m3", 128), ("f16", 64), ("f32", 32), ("e4m3", 256), ("f16", 256)])
def test_check_of_a_mode_is_the_ptx_table_on_the_dense_box(name, dtype, cols):
    """--check NAME (or its cuda.h enum) is the layout the mode gives the tile: each dense byte of a
    box of the mode's span, or of each column panel of it, where the PTX ISA's table puts it."""
    prob = api.problem(32, cols, ["row"], dtype=dtype, arch="sm100")
    tile, e = prob.tile, prob.tile.elem_bytes
    layout = parse_layout(name, tile=tile)
    assert layout == parse_layout(f"CU_TENSOR_MAP_SWIZZLE_{name}", tile=tile)
    span = MODES[name].span
    w = span // e  # columns of one box
    r, c = np.meshgrid(np.arange(tile.rows), np.arange(tile.cols), indexing="ij")
    panel, inner = c // w, c % w
    dense_bytes = (r * w + inner) * e  # byte offset in the panel's dense box
    want = panel * tile.rows * w + ptx_table_map(name)[dense_bytes] // e
    assert np.array_equal(layout_table(tile, layout), want)
    if cols * e == span:  # one box: the mode's swizzle (two in turn for FLIP_8B) on element offsets
        assert layout.name.startswith("Swizzle<") and (" then " in layout.name) == name.endswith("FLIP_8B")
    else:
        assert layout.name == f"Panels<{name}>"
    snippet = emit("tma", prob, layout)
    assert snippet.expressible and snippet.mode == name and f"CU_TENSOR_MAP_SWIZZLE_{name};" in snippet.code
    assert tma_mode(prob, layout) == name


@pytest.mark.parametrize("name", BLACKWELL)
def test_a_blackwell_mode_on_an_older_target_names_the_generations_that_have_it(name):
    for arch in ("nvidia", "sm90", "h100"):
        prob = api.problem(32, 128, ["row"], dtype="e4m3", arch=arch)
        snippet = emit("tma", prob, parse_layout(name, tile=prob.tile))
        assert not snippet.expressible and tma_mode(prob, parse_layout(name, tile=prob.tile)) is None
        assert f"not {name} (--arch sm100, sm120 have it)" in snippet.code
        assert "32B, 64B, 128B" in snippet.code


def test_the_flip_mode_swizzles_elements_of_at_most_8_bytes():
    with pytest.raises(InputError, match="moves 8-byte pieces"):
        parse_layout("128B_ATOM_32B_FLIP_8B", tile=Tile(8, 8, 8, 16))
    assert parse_layout("128B_ATOM_32B_FLIP_8B", tile=Tile(8, 16, 16, 8)).name == "Swizzle<2,2,2> then Swizzle<1,0,4>"


def test_for_tma_on_blackwell_finds_a_32_byte_atom_mode():
    """A block of 4 rows x 32 bytes (8 lanes of 16 B, one phase) on fp8 rows of 128 B: the four rows
    must sit in four distinct 32-byte groups of banks, which 128B_ATOM_32B does with two XOR bits in
    one box (the 128B mode, 16-byte atoms, splits a row's 32 bytes: a 2-way conflict); --for tma
    finds it on sm100 and says which enum, and the simulator agrees that it is conflict-free. On
    sm90 the same tile needs four boxes (Panels<32B>)."""
    result = api.solve(rows=32, cols=128, dtype="e4m3", access=["4x32"], arch="sm100", for_targets="tma")
    doc = result.json()
    assert result.conflict_free and result.name == "Swizzle<2,5,2>" and doc["answer"]["tma_mode"] == "128B_ATOM_32B"
    assert "tma" in doc["answer"]["expressible_in"]
    assert api.check("128B", rows=32, cols=128, dtype="e4m3", access=["4x32"], arch="sm100").worst == {"4x32": 2}
    hopper = api.solve(rows=32, cols=128, dtype="e4m3", access=["4x32"], arch="sm90", for_targets="tma")
    assert hopper.conflict_free and hopper.name == "Panels<32B>"
    code, out, err = cli("--arch", "sm100", "--rows", "32", "--cols", "128", "--dtype", "e4m3", "--access", "4x32",
                         "--for", "tma", "--emit", "tma", "--json")
    assert code == 0, err
    assert "CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B;" in json.loads(out)["answer"]["emit"]["tma"]


def test_a_blackwell_mode_in_cute_says_what_make_tma_copy_does():
    prob = api.problem(32, 128, ["row"], dtype="e4m3", arch="sm100")
    code = emit("cute", prob, Swizzle(2, 5, 2)).code
    assert "CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B" in code and "UMMA::Layout_MN_SW128_32B_Atom" in code
    assert "does not take Swizzle<1,6,1>" in emit("cute", prob, Swizzle(1, 6, 1)).code
    nvidia = api.problem(32, 128, ["row"], dtype="e4m3")
    assert "128B_ATOM" not in emit("cute", nvidia, Swizzle(2, 5, 2)).code
    # Triton's NVMMA encoding and Mojo's TensorMapSwizzle have no wide-atom modes: none claimed
    assert "nvmma" not in emit("triton", prob, Swizzle(2, 5, 2)).code
    assert "TensorMapSwizzle" not in emit("mojo", prob, Swizzle(2, 5, 2)).code


# --- Blackwell's ldmatrix / stmatrix byte forms (access/matrix_b8.py) ------------------------------------

BYTE_FORMS = {  # spec -> (rows of one matrix, matrices): PTX ISA 9.7.14.5.15 / 16
    "ldmatrix.m16n16.x1.trans.b8": (16, 1), "ldmatrix.m16n16.x2.trans.b8": (16, 2),
    "ldmatrix.m16n16.x2.trans.b8x16.b6x16_p32": (16, 2), "ldmatrix.m16n16.x1.trans.b8x16.b4x16_p64": (16, 1),
    "ldmatrix.m8n16.x1.b8x16.b6x16_p32": (8, 1), "ldmatrix.m8n16.x2.b8x16.b4x16_p64": (8, 2),
    "ldmatrix.m8n16.x4.b8x16.b4x16_p64": (8, 4), "stmatrix.m16n8.x1.trans.b8": (8, 1),
    "stmatrix.m16n8.x2.trans.b8": (8, 2), "stmatrix.m16n8.x4.trans.b8": (8, 4),
    "ldmatrix.sync.aligned.m16n16.x2.trans.shared::cta.b8": (16, 2),
}


def brute_wavefronts(phys, rows_cols: list[tuple[int, int]]) -> int:
    """One phase's wavefronts, counted here from DESIGN.md section 1: each lane reads 16 bytes (4
    words of 4 bytes) at byte phys(r, c) of a 1-byte-element tile; the phase takes as many wavefronts
    as the most distinct words in one of the 32 banks."""
    words: dict[int, set[int]] = {}
    for r, c in rows_cols:
        first = phys(r, c) // 4
        for w in range(first, first + 4):
            words.setdefault(w % 32, set()).add(w)
    return max(len(ws) for ws in words.values())


@pytest.mark.parametrize("spec", list(BYTE_FORMS))
@pytest.mark.parametrize("layout", ["none", "Swizzle<3,4,3>", "Swizzle<2,5,2>", "Swizzle<1,6,1>"])
def test_a_byte_form_is_its_row_addresses_eight_per_phase(spec, layout):
    """Lane i gives the address of row i (the rows of matrix j, numbered down the columns first, from
    lanes 16j.. or 8j..), 16 bytes each, every 8 one phase: the solver's counts against the brute
    count above over every placement of a 64 x 128 fp8 tile, under layouts that conflict and not."""
    rows, k = BYTE_FORMS[spec]
    down, across = {1: (1, 1), 2: (2, 1), 4: (2, 2)}[k]
    prob = api.problem(64, 128, [spec], dtype="e4m3", arch="sm100")
    sw = parse_layout(layout, tile=prob.tile)
    phys = lambda r, c: int(np.asarray(sw.phys(prob.tile, r, c)))  # noqa: E731
    worst, total = 0, 0
    for r0 in range(0, 64, down * rows):
        for c0 in range(0, 128, 16 * across):
            lanes = [(r0 + a * rows + i, c0 + 16 * b) for b in range(across) for a in range(down) for i in range(rows)]
            for p in range(0, len(lanes), 8):
                w = brute_wavefronts(phys, lanes[p:p + 8])
                worst, total = max(worst, w), total + w
    checked = api.check(layout, prob)
    (result,) = checked.measured.results
    assert (result.worst, result.total) == (worst, total)
    assert prob.patterns[0].phases_per_placement == len(lanes) // 8
    assert prob.patterns[0].warnings and "unverified" in prob.patterns[0].warnings[0]


@pytest.mark.parametrize("arch", ["nvidia", "sm80", "sm89", "sm90", "hopper"])
@pytest.mark.parametrize("spec", ["ldmatrix.m16n16.x2.trans.b8", "ldmatrix.m8n16.x4.b8x16.b4x16_p64",
                                  "stmatrix.m16n8.x4.trans.b8"])
def test_a_byte_form_before_blackwell_is_refused_naming_sm100_and_sm120(capsys, arch, spec):
    code, out, err = cli_here(capsys, "--arch", arch, "--rows", "64", "--cols", "128", "--dtype", "e4m3", "--access", spec)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert "byte form" in err and "--arch sm100, sm120" in err


@pytest.mark.parametrize("spec, words", [
    ("ldmatrix.m16n16.x4.trans.b8", ".m16n16 takes .x1, .x2"),
    ("ldmatrix.m16n16.x2.b8", "requires .trans"),
    ("ldmatrix.m8n16.x2.trans.b8x16.b4x16_p64", "takes no .trans"),
    ("ldmatrix.m8n16.x2.b8", "moves .b8x16.b6x16_p32 or .b8x16.b4x16_p64"),
    ("stmatrix.m16n8.x2.b8", "requires .trans"),
    ("stmatrix.m16n16.x2.trans.b8", "stmatrix has no such byte shape"),
    ("ldmatrix.m8n8.x2.b8", "ldmatrix.m8n8 moves .b16"),
    ("ldmatrix.m16n16.x2.trans.b8.wide", "'.wide' is not part of it"),
    ("ldmatrix.m16n16.x2.trans.b8:3x1", "arrangement '3x1'"),
])
def test_a_malformed_byte_form_is_one_line_naming_the_forms(capsys, spec, words):
    code, out, err = cli_here(capsys, "--arch", "sm100", "--rows", "64", "--cols", "128", "--dtype", "e4m3", "--access", spec)
    assert code == 2 and out == "" and err.count("\n") == 1 and words in err, err


def test_the_padded_sub_byte_image_is_a_dtype_of_one_byte(capsys):
    """TMA unpacks .b4x16_p64 / .b6x16_p32 data to 16 bytes per 16 elements (PTX ISA 5.5.1.1.1): the
    tile is that image, one byte per element; cuda.h's names for the types are aliases."""
    for dtype in ("b4x16_p64", "b6x16_p32", "16U4_ALIGN16B", "16u6_align16b"):
        assert api.problem(16, 128, ["row"], dtype=dtype).tile.elem_bytes == 1
    code, _, err = cli_here(capsys, "--arch", "sm100", "--rows", "16", "--cols", "128", "--access",
                            "ldmatrix.m8n16.x4.b8x16.b4x16_p64",
                       "-q")
    assert code == 0 and "8-bit elements (u8, e4m3, b4x16_p64, b6x16_p32)" in err  # no --dtype: the warning says so


def test_blackwell_acceptance_fp4_operand_read_by_ldmatrix_and_written_by_tma():
    """Issue 28's acceptance: on --arch sm100 an fp4 operand tile (its padded shared-memory image,
    128 elements of K per row: 128 bytes) read by the new ldmatrix forms solves with proof and code,
    the answer a TMA mode the target has (the 128B mode: the wide-atom modes have too few XOR bits
    for 8 rows of 16 bytes, and the candidates table shows their 2- and 4-way conflicts)."""
    argv = ["--arch", "sm100", "--rows", "64", "--cols", "128", "--dtype", "b4x16_p64",
            "--access", "ldmatrix.m8n16.x4.b8x16.b4x16_p64", "--access", "ldmatrix.m16n16.x2.trans.b8x16.b4x16_p64",
            "--for", "tma", "--emit", "tma", "--emit", "cute", "--json"]
    code, out, err = cli(*argv)
    assert code == 0, err
    doc = json.loads(out)
    answer = doc["answer"]
    assert doc["status"] == "conflict-free" and answer["name"] == "Swizzle<3,4,3>" and answer["tma_mode"] == "128B"
    assert "CU_TENSOR_MAP_SWIZZLE_128B;" in answer["emit"]["tma"]
    assert doc["proof"]["layout"] == "Swizzle<3,4,3>" and doc["proof"]["accesses"]  # the rank proof
    assert any("unverified" in w for w in doc["warnings"])  # the inferred phases, said
    wide = {alt["name"]: alt for alt in doc["alternatives"]}
    assert all(a["worst_wavefronts"] == 2 for a in wide["Swizzle<2,5,2>"]["per_access"])


def test_a_probe_of_a_byte_form_is_refused(capsys):
    code, out, err = cli_here(capsys, "probe", "--arch", "sm100", "--rows", "64", "--cols", "128", "--dtype", "e4m3",
                         "--access", "ldmatrix.m16n16.x2.trans.b8", "--target", "cuda", "-o",
                         str(ROOT / "no-such-probe-dir"))
    assert code == 2 and "probes of Blackwell's byte forms" in err and not (ROOT / "no-such-probe-dir").exists()


# --- --for umma / tcgen05: the canonical layouts of a tcgen05 descriptor (emit/umma.py) -----------------


def header_atoms() -> dict[str, tuple]:
    """The UMMA atoms as the headers define them: the GMMA atoms (cute/atom/mma_traits_sm90_gmma.hpp),
    which mma_traits_sm100.hpp re-exports into UMMA, and UMMA's own Layout_MN_SW128_32B_Atom:
    name -> (B, M, S, shape in bits, stride in bits)."""
    found = {}
    gmma = (CUTE_HEADERS / "atom/mma_traits_sm90_gmma.hpp").read_text()
    umma = (CUTE_HEADERS / "atom/mma_traits_sm100.hpp").read_text()
    pattern = (r"using (Layout_\w+_Atom)_Bits\s*=\s*ComposedLayout<Swizzle<(\d),(\d),(\d)>,\s*smem_ptr_flag,"
               r"\s*Layout<Shape<\s*_(\d+),\s*_(\d+)>,\s*Stride<\s*_(\d+),\s*_(\d+)>>>;")
    for text in (gmma, umma):
        for m in re.finditer(pattern, text):
            found[m[1]] = (int(m[2]), int(m[3]), int(m[4]), (int(m[5]), int(m[6])), (int(m[7]), int(m[8])))
    for name in found:  # UMMA uses every GMMA atom under its own namespace
        assert name.endswith("32B_Atom") or f"using cute::GMMA::{name};" in umma, name
    assert len(found) == 9, sorted(found)
    return found


def pycute_tile_to_shape(block, target):
    """CuTe's tile_to_shape (column-major order of the repeats) from pycute's logical_product."""
    counts = tuple(t // pycute.size(block[i]) for i, t in enumerate(target))
    product = pycute.logical_product(block, pycute.Layout(counts, (1, counts[0])))
    return pycute.make_layout(pycute.make_layout(product[0][0], product[1][0]),
                              pycute.make_layout(product[0][1], product[1][1]))


@pytest.mark.parametrize("e", [1, 2, 4])
@pytest.mark.parametrize("blocks", [(1, 1), (2, 1), (1, 2), (4, 2)])
def test_each_umma_layout_is_cutes_tile_to_shape_of_the_headers_atom(e, blocks):
    """emit/umma.py's canonical layouts, element by element, against pycute: the header's atom
    upcast to e-byte elements (as test_notations does for GMMA), tiled to (MN, K) by pycute's
    blocked product, under the header's byte swizzle in element form; K-major tiles are (MN, K)
    = (rows, cols), MN-major ones (cols, rows)."""
    from swizzle_solver.emit.umma import ATOMS, canonical

    atoms = header_atoms()
    for (major, mode), (_, _, _, _, name) in ATOMS.items():
        B, M, S, shape, stride = atoms[name]
        bits = 8 * e
        shape = tuple(s // bits if d == 1 else s for s, d in zip(shape, stride))
        stride = tuple(d if d == 1 else d // bits for d in stride)
        target = (shape[0] * blocks[0], shape[1] * blocks[1])  # (MN, K)
        ref = pycute.ComposedLayout(pycute.Swizzle(B, M - (e.bit_length() - 1), S), 0,
                                    pycute_tile_to_shape(pycute.Layout(shape, stride), target))
        rows, cols = target if major == "K" else target[::-1]
        got = canonical(Tile(rows, cols, cols, e), major, mode)
        assert got is not None, (major, mode, e)
        want = [[ref(r, c) if major == "K" else ref(c, r) for c in range(cols)] for r in range(rows)]
        assert np.array_equal(got, want), (major, mode, e, blocks)


def ptx_canonical(major: str, mode: str, e: int, rows: int, cols: int, lbo: int, sbo: int) -> np.ndarray:
    """PTX ISA 9.7.16.3.3's canonical layouts in CuTe terms, with T = 16 / e elements and the emitted
    LBO/SBO (bytes): K-major no swizzle ((8,m),(T,2k)):((1T,SBO),(1,LBO)); MN-major no swizzle
    ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO)); MN-major nB swizzle ((T,n,m),(8,k)):((1,T,LBO),(nT,SBO))
    under Swizzle<log2 n,4,3> of bytes. Independent of emit/umma.py's formula."""
    T, lbo, sbo = 16 // e, lbo // e, sbo // e
    r, c = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    if major == "K":
        assert mode == "INTER"
        return (r % 8) * T + (r // 8) * sbo + c % T + (c // T) * lbo
    mn, k = c, r
    if mode == "INTER":
        return mn % T + (mn // T) * sbo + (k % 8) * T + (k // 8) * lbo
    n = {"SW32": 2, "SW64": 4, "SW128": 8}[mode]
    plain = mn % T + ((mn // T) % n) * T + (mn // (n * T)) * lbo + (k % 8) * n * T + (k // 8) * sbo
    byte = plain * e
    byte = byte ^ ((byte >> 3) & (((1 << (n.bit_length() - 1)) - 1) << 4))
    return byte // e


@pytest.mark.parametrize("major, mode", [("K", "INTER"), ("MN", "INTER"), ("MN", "SW32"), ("MN", "SW64"),
                                         ("MN", "SW128")])
@pytest.mark.parametrize("e", [1, 2, 4])
def test_the_descriptors_strides_give_back_the_layout_by_the_ptx_isas_formula(major, mode, e):
    """--emit umma's LBO and SBO, put into the PTX ISA's canonical layout, give the layout back."""
    from swizzle_solver.emit.umma import ATOMS, canonical

    h, width = ATOMS[major, mode][:2]
    rows, cols = (32, 2 * width // e) if major == "K" else (16, 2 * width // e)
    prob = api.problem(rows, cols, ["row"], elem_bytes=e, arch="sm100")
    layout = parse_layout(f"table:{_table_file(canonical(prob.tile, major, mode))}", tile=prob.tile)
    code = emit("umma", prob, layout).code
    m = re.search(r"SBO (\d+) B .*?LBO (\d+) B", code)
    assert m and f"{major}-major" in code, code
    sbo, lbo = int(m[1]), int(m[2])
    assert np.array_equal(ptx_canonical(major, mode, e, rows, cols, lbo, sbo), canonical(prob.tile, major, mode))


def _table_file(table: np.ndarray) -> str:
    import tempfile

    path = Path(tempfile.mkdtemp()) / "layout.npy"
    np.save(path, table)
    return str(path)


def test_the_descriptor_layout_types_are_cutes_enum():
    from swizzle_solver.emit.umma import ATOMS

    desc = (CUTE_HEADERS / "arch/mma_sm100_desc.hpp").read_text()
    enum = dict((n, int(v)) for n, v in re.findall(r"(SWIZZLE_\w+)\s*=\s*(\d+)", desc.split("enum class LayoutType")[1]
                                                    .split("};")[0]))
    for _, _, _, (name, value), _ in ATOMS.values():
        assert enum[name] == value


def test_for_umma_on_blackwell_and_refused_elsewhere(capsys):
    result = api.solve(rows=64, cols=128, dtype="e4m3", access=["ldmatrix.m8n16.x4.b8x16.b4x16_p64"], arch="sm100",
                       for_targets="tcgen05")
    doc = result.json()
    assert result.conflict_free and "umma" in doc["answer"]["expressible_in"]
    code, out, err = cli_here(capsys, "--arch", "sm90", "--rows", "64", "--cols", "64", "--dtype", "f16", "--access",
                              "ldmatrix.x4", "--for", "umma")
    assert code == 2 and out == "" and err.count("\n") == 1 and "--arch sm100" in err and "tcgen05" in err, err
    for arch in ("sm120", "nvidia", "gfx950"):  # sm_120 has no tcgen05
        code, _, err = cli_here(capsys, "--arch", arch, "--rows", "64", "--cols", "64", "--dtype", "f16", "--access",
                                "row", "--for", "umma")
        assert code == 2 and "has no tcgen05" in err, err
    # the MN-major 128B layout of 32-byte atoms: its own tile shape (rows K, 128-byte rows of M)
    prob = api.problem(16, 32, ["row"], dtype="f32", arch="sm100")
    code = emit("umma", prob, Swizzle(2, 3, 2)).code
    assert "UMMA::Layout_MN_SW128_32B_Atom<T>" in code and "SWIZZLE_128B_BASE32B (1)" in code
