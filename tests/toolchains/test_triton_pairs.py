"""Issue 35's pairs of Triton's own layouts (bench/triton_pairs.py: blocked, mma v2/v3, dot
operands, slices, linear; NVIDIA) recounted by an independent per-lane counter written from the
hardware rules (tests/lane_counter.py: not the tool's simulator, vectors.py or hardware.py).

The tool's `--vectors auto --json` (the CLI in process) must equal the counter on each access's
wavefronts and instructions and on the totals, with its layout a bijection, every vector whole and
its rounds legal, on every NVIDIA pair of the bench (91: the 46 new ones and bench/linear_pairs.py's
45; 16 to 28 s of CPU). Every fourth pair is also compiled by Triton (the whole set's compiles are
the bench's: `python3 bench/triton_pairs.py`): the counter recounts Triton's own per-thread
addresses, read from its PTX by the bench's interpreter, and the tool must take no more
wavefronts, then instructions. AMD pairs are not counted here (their bank rules are the target
tables of docs/hardware.md; the bench compares their instructions and storage).
"""
from __future__ import annotations

import functools
import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest
from toolchain_cases import missing

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests"))
import clirun  # noqa: E402
from lane_counter import matrix_cost, recount, wavefronts_of  # noqa: E402

pytestmark = pytest.mark.toolchain
DTYPE = {1: "i8", 2: "f16", 4: "f32"}


@functools.cache
def all_pairs() -> tuple[tuple, ...]:
    """Every NVIDIA pair of the bench: issue 35's new ones, then bench/linear_pairs.py's."""
    if importlib.util.find_spec("triton") is None:
        return ()
    import triton_pairs

    return tuple([p for p in triton_pairs.new_pairs() if p[4] == "nvidia"] + triton_pairs.existing_pairs())


def pytest_generate_tests(metafunc) -> None:
    """The pairs are Triton's layouts: built (Triton imported, 0.4 s) only when the toolchain tier
    runs, not while the fast tier collects this file to deselect it. Every pair is counted; every
    fourth is compiled (``compiled``)."""
    if "pair" not in metafunc.fixturenames:
        return
    selected = re.search(r"(?<!not )\btoolchain\b", metafunc.config.getoption("markexpr") or "") is not None
    pairs = list(all_pairs()) if selected else []
    if metafunc.function.__name__.startswith("test_tritons"):
        pairs = pairs[::4]  # each a Triton compile (0.1-0.9 s)
    metafunc.parametrize("pair", pairs, ids=[p[0] for p in pairs])


@pytest.fixture(scope="module")
def triton() -> None:
    if importlib.util.find_spec("triton") is None:
        missing("Triton", "pip install torch==2.13.0 triton==3.9.0")


# --- the tests --------------------------------------------------------------------------------


def layout_file(path: Path, rows: int, cols: int, bases) -> str:
    reg, lane, warp = ([list(b) for b in part] for part in bases)
    path.write_text(json.dumps({"name": path.stem, "register": reg, "lane": lane, "warp": warp, "block": [],
                                "out_dims": {"dim0": rows, "dim1": cols}}))
    return str(path)


def test_the_counter_counts_a_known_conflict() -> None:
    """The counter itself: 32 lanes reading 4 bytes down a column of a 32-word-pitch tile all hit
    bank 0 (32 wavefronts); along a row, one; ldmatrix rows 16 bytes apart, one a matrix."""
    assert wavefronts_of([lane * 128 for lane in range(32)], 4, True) == 32
    assert wavefronts_of([lane * 4 for lane in range(32)], 4, True) == 1
    assert wavefronts_of([lane * 16 for lane in range(32)], 16, False) == 4
    assert matrix_cost([8 * j for j in range(8)]) == 8 and matrix_cost(list(range(8))) == 1


def tool_doc(pair, tmp_path: Path) -> tuple[dict, list]:
    """The tool's `--vectors auto --json` document of the pair (the CLI in process) and its bases."""
    from triton_pairs import gluon_bases

    name, rows, cols, e, arch, src, dst = pair
    bases = [gluon_bases(src, rows, cols), gluon_bases(dst, rows, cols)]
    run = clirun.solve("--rows", str(rows), "--cols", str(cols), "--dtype", DTYPE[e], "--arch", arch,
                       "--linear-layout", "store:" + layout_file(tmp_path / "src.json", rows, cols, bases[0]),
                       "--linear-layout", layout_file(tmp_path / "dst.json", rows, cols, bases[1]),
                       "--vectors", "auto", "--json")
    assert run.returncode in (0, 1), run.stderr
    return json.loads(run.stdout), bases


def test_vectors_auto_equals_the_independent_counter(triton, tmp_path, pair) -> None:
    name, rows, cols, e = pair[:4]
    doc, bases = tool_doc(pair, tmp_path)
    counted = recount(doc, bases, rows, cols, e)
    tool = [(a["wavefronts"], a["instructions"]) for a in doc["answer"]["accesses"]]
    assert tool == counted, f"{name}: the tool {tool}, the counter {counted}"
    assert (doc["answer"]["total_wavefronts"], doc["answer"]["total_instructions"]) == tuple(map(sum, zip(*counted)))


def test_tritons_conversion_recounted_and_not_better(triton, tmp_path, pair) -> None:
    """Triton's compiled conversion: the bench's count (its PTX interpreter's per-thread addresses,
    counted by the simulator's rule) equals the counter's over the same addresses; and the tool's
    answer takes no more wavefronts, then no more instructions (storage: bench/README.md)."""
    from triton_pairs import accesses, compile_kernel, count

    name, rows, cols, e, arch, src, dst = pair
    doc, bases = tool_doc(pair, tmp_path)
    warps = 1 << len(bases[0][2])
    ptx, _ = compile_kernel(src, dst, rows, cols, e, warps)
    found = accesses(ptx, 32 * warps)
    if not found:
        pytest.skip("Triton converts this pair without shared memory")
    wavefronts = instructions = 0
    for kind, width, per_thread in found:
        for w in range(warps):
            lanes = per_thread[32 * w:32 * w + 32]
            if any(a is not None for a in lanes):
                instructions += 1
                wavefronts += wavefronts_of(lanes, width, kind == "ld")
    assert count(ptx, warps)[:2] == (wavefronts, instructions)
    ours = (doc["answer"]["total_wavefronts"], doc["answer"]["total_instructions"])
    assert ours <= (wavefronts, instructions), f"{name}: the tool {ours}, Triton {(wavefronts, instructions)}"
