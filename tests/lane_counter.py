"""A per-lane counter of a `--vectors auto` answer, written from NVIDIA's hardware rules and
independent of the package (its simulator, vectors.py, hardware.py); the phase rule and a phase's
cost are tests/nvidia_banks.py's (checked against the H100's measurements in test_kernel_measured.py):

- every lane's elements come from its layout's bases (register, lane, warp: XOR of the bases of the
  index's set bits), every element's address from the answer's ``offset_bases``; the layout must be
  a bijection onto the tile;
- a vector access of v bytes: each lane's registers fall into groups of v / e elements that share
  one aligned v-byte vector (else the vector is not whole: a failure); the groups must be the same
  register indices in every lane; one instruction per group per warp, its lanes served in phases;
- ldmatrix/stmatrix (.m8n8.b16, PTX ISA): each matrix is 8 rows of 16 bytes, one phase; lane l
  holds one 32-bit register of each matrix: without .trans the 4-byte word l % 4 of row l / 4,
  with .trans the 16-bit units of rows 2 (l % 4) and 2 (l % 4) + 1 at unit column l / 4; which
  unit groups share a register is the kernel's choice (a register index bit d: the counter takes
  the best); .x1/.x2/.x4: 1, 2 or 4 matrices an instruction, which matrices the kernel's choice;
- rounds (answer.rounds): the offset bits that number them lie above a wavefront's 128 bytes, every
  vector and every matrix lies in one round, and in each warp every round holds the same number of
  instructions' worth (of matrices: a multiple of the .xN).

Used by tests/toolchains/test_triton_pairs.py (Triton's layouts) and tests/test_vector_search.py.
"""
from __future__ import annotations

import re

import numpy as np
from nvidia_banks import lane_phases
from nvidia_banks import phase_cost as _phase_cost

WAVEFRONT_BYTES = 128


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


def wavefronts_of(lane_starts: list[int | None], width: int, load: bool) -> int:
    """One warp instruction whose lane l moves ``width`` bytes at ``lane_starts[l]`` (None: off):
    its phases (nvidia_banks.lane_phases), each the most distinct words in one bank."""
    lanes = [-1 if s is None else s for s in lane_starts]
    return sum(_phase_cost(group, width)[0] for group in lane_phases(lanes, width, load))


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


def vector_access(phys: np.ndarray, v: int, e: int, load: bool) -> tuple[int, int, list[list[int]]]:
    """(wavefronts, instructions, each instruction's element offsets) of v-byte vectors."""
    wavefronts, spans = 0, []
    classes = groups(phys, v // e)
    for w in range(phys.shape[0]):
        for cls in classes:
            starts = [int(phys[w, lane, list(cls)].min()) * e for lane in range(phys.shape[1])]
            wavefronts += wavefronts_of(starts, v, load)
            spans.append([int(x) for x in phys[w][:, list(cls)].reshape(-1)])
    return wavefronts, phys.shape[0] * len(classes), spans


def matrix_cost(rows: list[int]) -> int:
    """One 8 x 16-byte matrix (one phase), its rows at these 16-byte row numbers."""
    return _phase_cost([r * 16 for r in rows], 16)[0]


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
    for d in (1 << i for i in range(phys.shape[2].bit_length() - 1)):  # the register bit pairing two units
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
    rounds, bits = answer["rounds"]["rounds"], answer["rounds"]["offset_bits"]
    assert answer["rounds"]["buffer_bytes"] * rounds == rows * cols * e and rounds == 1 << len(bits)
    assert all(1 << b >= WAVEFRONT_BYTES // e for b in bits), "a round bit inside a wavefront's bytes"
    for access, lay in zip(answer["accesses"], bases):
        phys = addresses(lay, cols, offsets)
        assert sorted(phys.reshape(-1).tolist()) == list(range(rows * cols)), "not a bijection onto the tile"
        name = access["instruction"]
        if name.startswith(("ldmatrix", "stmatrix")):
            wf, n, spans = matrix_access(phys, name, e)
            unit = int(re.search(r"\.x(\d)", name)[1])  # matrices an instruction
        else:
            wf, n, spans = vector_access(phys, access["vector_bytes"], e, access["direction"] == "load")
            unit = 1
        check_rounds(spans, phys.shape[0], bits, unit)
        out.append((wf, n))
    return out


def check_rounds(spans: list[list[int]], warps: int, bits: list[int], unit: int) -> None:
    """Every vector or matrix (its element offsets, warp by warp) in one round; in each warp every
    round holds the same number of them, a multiple of ``unit`` (the matrices of one instruction)."""
    number = [{sum((p >> b & 1) << i for i, b in enumerate(bits)) for p in s} for s in spans]
    assert all(len(r) == 1 for r in number), "a vector or a matrix spans two rounds"
    each = len(spans) // warps
    for w in range(warps):
        mine = [r.pop() for r in number[w * each:(w + 1) * each]]
        per_round = [mine.count(k) for k in range(1 << len(bits))]
        assert len(set(per_round)) == 1 and per_round[0] % unit == 0, f"rounds of unequal work {per_round}"
