"""Issue 35's pairs of Triton's own layouts (bench/triton_pairs.py: blocked, mma v2/v3, dot
operands, slices, linear; NVIDIA) recounted by an independent per-lane counter written here from
the hardware rules, not from the tool's simulator, vectors.py or hardware.py:

- every lane's elements come from its layout's bases (register, lane, warp: XOR of the bases of the
  index's set bits), every element's address from the answer's ``offset_bases``; the layout must be
  a bijection onto the tile;
- a vector access of v bytes: each lane's registers fall into groups of v / e elements that share
  one aligned v-byte vector (else the vector is not whole: a failure); the groups must be the same
  register indices in every lane; one instruction per group per warp; its lanes split into phases of
  128 bytes (32 lanes up to 4 bytes, lanes 0-15 and 16-31 at 8, groups of 8 lanes at 16: NVIDIA's
  rule, PTX shared memory); a phase costs the most distinct 4-byte words in one of the 32 banks;
- ldmatrix/stmatrix (.m8n8.b16, PTX ISA): each matrix is 8 rows of 16 bytes, one phase; lane l
  holds one 32-bit register of each matrix: without .trans the 4-byte word l % 4 of row l / 4,
  with .trans the 16-bit units of rows 2 (l % 4) and 2 (l % 4) + 1 at unit column l / 4; which
  unit groups share a register is the kernel's choice (a register direction d: the counter takes
  the best); .x1/.x2/.x4: 1, 2 or 4 matrices an instruction;
- rounds (answer.rounds): the offset bits that number them lie above a wavefront's bytes, every
  instruction lies in one round, and each warp issues the same instructions in every round.

The tool's `--vectors auto --json` (the CLI in process) must equal the counter on each access's
wavefronts and instructions and on the totals, on every NVIDIA pair of the bench (91: the 46 new
ones and bench/linear_pairs.py's 45; about 30 s of CPU). Every fourth pair is also compiled by
Triton (the whole set's compiles are the bench's: `python3 bench/triton_pairs.py`): the counter
recounts Triton's own per-thread addresses, read from its PTX by the bench's interpreter, and the
tool must take no more wavefronts, then instructions. AMD pairs are not counted here (their bank
rules are the target tables of docs/hardware.md; the bench compares their instructions and storage).
"""
from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest
from toolchain_cases import missing

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests"))
import clirun  # noqa: E402

pytestmark = pytest.mark.toolchain
DTYPE = {1: "i8", 2: "f16", 4: "f32"}
BANKS, WORD, PHASE_BYTES = 32, 4, 128


def _pairs() -> list[tuple]:
    """Every NVIDIA pair of the bench: issue 35's new ones, then bench/linear_pairs.py's."""
    if importlib.util.find_spec("triton") is None:
        return []
    import triton_pairs

    return [p for p in triton_pairs.new_pairs() if p[4] == "nvidia"] + triton_pairs.existing_pairs()


PAIRS = _pairs()


@pytest.fixture(scope="module")
def triton() -> None:
    if importlib.util.find_spec("triton") is None:
        missing("Triton", "pip install torch==2.13.0 triton==3.9.0")


# --- the counter ------------------------------------------------------------------------------


def span(vectors: list[int]) -> np.ndarray:
    """Every XOR of ``vectors``, entry k the XOR of those of k's set bits."""
    out = np.zeros(1, dtype=np.int64)
    for v in vectors:
        out = np.concatenate([out, out ^ v])
    return out


def addresses(bases, cols: int, offset_bases: list[int]) -> np.ndarray:
    """Physical element offset of every (warp, lane, register) of the access."""
    reg, lane, warp = ([r * cols + c for r, c in part] for part in bases)
    index = span(warp)[:, None, None] ^ span(lane)[None, :, None] ^ span(reg)[None, None, :]
    phys = np.zeros_like(index)
    for bit, b in enumerate(offset_bases):
        phys ^= ((index >> bit) & 1) * b
    return phys


def phase_cost(byte_starts: list[int], width: int) -> int:
    """Wavefronts of one phase: the most distinct words in one bank (at least 1)."""
    per_bank: dict[int, set[int]] = {}
    for start in byte_starts:
        for word in range(start // WORD, (start + width - 1) // WORD + 1):
            per_bank.setdefault(word % BANKS, set()).add(word)
    return max((len(w) for w in per_bank.values()), default=1)


def wavefronts_of(lane_starts: list[int | None], width: int) -> int:
    """One warp instruction whose lane l reads ``width`` bytes at ``lane_starts[l]`` (None: off):
    its phases of 128 bytes of lanes, each counted."""
    per_phase = max(1, PHASE_BYTES // width)
    total = 0
    for first in range(0, len(lane_starts), per_phase):
        on = [s for s in lane_starts[first:first + per_phase] if s is not None]
        total += phase_cost(on, width) if on else 0
    return total


def groups(phys: np.ndarray, size: int) -> list[tuple[int, ...]]:
    """The register indices of a lane that share one aligned run of ``size`` elements, the same in
    every lane and warp (asserted)."""
    found = None
    for w in range(phys.shape[0]):
        for lane in range(phys.shape[1]):
            runs: dict[int, list[int]] = {}
            for k, p in enumerate(phys[w, lane]):
                runs.setdefault(int(p) // size, []).append(k)
            part = sorted(tuple(v) for v in runs.values())
            assert all(len(g) == size for g in part), f"a lane's run of {size} elements is not whole"
            assert found is None or part == found, "the runs are different registers in different lanes"
            found = part
    return found or []


def vector_access(phys: np.ndarray, v: int, e: int) -> tuple[int, int, list[list[int]]]:
    """(wavefronts, instructions, each instruction's element offsets) of v-byte vectors."""
    wavefronts, spans = 0, []
    classes = groups(phys, v // e)
    for w in range(phys.shape[0]):
        for cls in classes:
            starts = [int(phys[w, lane, list(cls)].min()) * e for lane in range(phys.shape[1])]
            wavefronts += wavefronts_of(starts, v)
            spans.append([int(x) for x in phys[w][:, list(cls)].reshape(-1)])
    return wavefronts, phys.shape[0] * len(classes), spans


def matrix_cost(rows: list[int]) -> int:
    """One 8 x 16-byte matrix (one phase), its rows at these 16-byte row numbers."""
    return phase_cost([r * 16 for r in rows], 16)


def matrix_access(phys: np.ndarray, name: str, e: int) -> tuple[int, int, list[list[int]]]:
    """(wavefronts, instructions, each matrix's element offsets) of ldmatrix/stmatrix."""
    per_row = 16 // e
    x = int(re.search(r"\.x(\d)", name)[1])
    warps, lanes, _ = phys.shape
    if ".trans" not in name:
        mats = groups(phys, 4 // e)  # one 32-bit register: a word of a row
        for w in range(warps):
            for cls in mats:
                for lane in range(lanes):
                    first = int(phys[w, lane, list(cls)].min())
                    row = int(phys[w, lane & ~3, list(cls)].min()) // per_row
                    assert first // per_row == row and first // (4 // e) % 4 == lane % 4, "not ldmatrix's lane map"
        cost = sum(matrix_cost([int(phys[w, 4 * j, list(cls)].min()) // per_row for j in range(8)])
                   for w in range(warps) for cls in mats)
        members = [[int(p) for p in phys[w][:, list(cls)].reshape(-1)] for w in range(warps) for cls in mats]
        assert len(mats) % x == 0 and x == min(4, len(mats)), f"{name} with {len(mats)} matrices a warp"
        return cost, warps * len(mats) // x, members
    units = groups(phys, 2 // e)  # one 16-bit unit: half a register
    rows: dict[tuple[int, tuple[int, ...]], list[int]] = {}
    for w in range(warps):
        for u in units:
            for lane in range(lanes):
                p = int(phys[w, lane, list(u)].min())
                assert p // (2 // e) % 8 == lane // 4, "not ldmatrix.trans's lane map (unit column)"
                m = lane % 4
                got = rows.setdefault((w, u), [-1] * 4)
                assert got[m] in (-1, p // per_row), "lanes of one row read different rows"
                got[m] = p // per_row
    of = {k: u for u in units for k in u}
    best = None
    for d in range(1, phys.shape[2]):  # the register direction pairing a register's two units
        pairs = {tuple(sorted((u, of[u[0] ^ d]))) for u in units}
        if any(a == b for a, b in pairs) or len(pairs) * 2 != len(units):
            continue
        cost = sum(matrix_cost([r for m in range(4) for r in (rows[(w, a)][m], rows[(w, b)][m])])
                   for w in range(warps) for a, b in pairs)
        best = cost if best is None else min(best, cost)
    assert best is not None, "no register direction pairs the units"
    matrices = len(units) // 2
    members = [[int(p) for p in phys[w][:, list(u)].reshape(-1)] for w in range(warps) for u in units]
    assert matrices % x == 0 and x == min(4, matrices), f"{name} with {matrices} matrices a warp"
    return best, warps * matrices // x, members


def recount(doc: dict, bases: list, rows: int, cols: int, e: int) -> list[tuple[int, int]]:
    """Each access's (wavefronts, instructions) by the counter; asserts the layout, the vectors and
    the rounds legal."""
    answer = doc["answer"]
    offsets = answer["offset_bases"]
    out = []
    bits = answer["rounds"]["offset_bits"]
    assert answer["rounds"]["buffer_bytes"] * answer["rounds"]["rounds"] == rows * cols * e
    assert all(1 << b >= PHASE_BYTES // e for b in bits), "a round bit inside a wavefront's bytes"
    for access, lay in zip(answer["accesses"], bases):
        phys = addresses(lay, cols, offsets)
        assert sorted(phys.reshape(-1).tolist()) == list(range(rows * cols)), "not a bijection onto the tile"
        name = access["instruction"]
        if name.startswith(("ldmatrix", "stmatrix")):
            wf, n, spans = matrix_access(phys, name, e)
        else:
            wf, n, spans = vector_access(phys, access["vector_bytes"], e)
        round_of = [{sum((p >> b & 1) << i for i, b in enumerate(bits)) for p in s} for s in spans]
        assert all(len(r) == 1 for r in round_of), "an instruction spans two rounds"
        per_round = [sum(r == {k} for r in round_of) for k in range(answer["rounds"]["rounds"])]
        assert len(set(per_round)) == 1, f"rounds of unequal work {per_round}"
        out.append((wf, n))
    return out


# --- the tests --------------------------------------------------------------------------------


def layout_file(path: Path, rows: int, cols: int, bases) -> str:
    reg, lane, warp = ([list(b) for b in part] for part in bases)
    path.write_text(json.dumps({"name": path.stem, "register": reg, "lane": lane, "warp": warp, "block": [],
                                "out_dims": {"dim0": rows, "dim1": cols}}))
    return str(path)


def test_the_counter_counts_a_known_conflict() -> None:
    """The counter itself: 32 lanes reading 4 bytes down a column of a 32-word-pitch tile all hit
    bank 0 (32 wavefronts); along a row, one; ldmatrix rows 16 bytes apart, one a matrix."""
    assert wavefronts_of([lane * 128 for lane in range(32)], 4) == 32
    assert wavefronts_of([lane * 4 for lane in range(32)], 4) == 1
    assert wavefronts_of([lane * 16 for lane in range(32)], 16) == 4
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


@pytest.mark.parametrize("i", range(len(PAIRS)), ids=[p[0] for p in PAIRS])
def test_vectors_auto_equals_the_independent_counter(triton, tmp_path, i) -> None:
    name, rows, cols, e = PAIRS[i][:4]
    doc, bases = tool_doc(PAIRS[i], tmp_path)
    counted = recount(doc, bases, rows, cols, e)
    tool = [(a["wavefronts"], a["instructions"]) for a in doc["answer"]["accesses"]]
    assert tool == counted, f"{name}: the tool {tool}, the counter {counted}"
    assert (doc["answer"]["total_wavefronts"], doc["answer"]["total_instructions"]) == tuple(map(sum, zip(*counted)))


COMPILED = PAIRS[::4]  # each a Triton compile (0.1-0.9 s)


@pytest.mark.parametrize("i", range(len(COMPILED)), ids=[p[0] for p in COMPILED])
def test_tritons_conversion_recounted_and_not_better(triton, tmp_path, i) -> None:
    """Triton's compiled conversion: the bench's count (its PTX interpreter's per-thread addresses,
    counted by the simulator's rule) equals the counter's over the same addresses; and the tool's
    answer takes no more wavefronts, then no more instructions (storage: bench/README.md)."""
    from triton_pairs import accesses, compile_kernel, count

    name, rows, cols, e, arch, src, dst = COMPILED[i]
    doc, bases = tool_doc(COMPILED[i], tmp_path)
    warps = 1 << len(bases[0][2])
    ptx, _ = compile_kernel(src, dst, rows, cols, e, warps)
    found = accesses(ptx, 32 * warps)
    if not found:
        pytest.skip("Triton converts this pair without shared memory")
    wavefronts = instructions = 0
    for _, width, per_thread in found:
        for w in range(warps):
            lanes = per_thread[32 * w:32 * w + 32]
            if any(a is not None for a in lanes):
                instructions += 1
                wavefronts += wavefronts_of(lanes, width)
    assert count(ptx, warps)[:2] == (wavefronts, instructions)
    ours = (doc["answer"]["total_wavefronts"], doc["answer"]["total_instructions"])
    assert ours <= (wavefronts, instructions), f"{name}: the tool {ours}, Triton {(wavefronts, instructions)}"
