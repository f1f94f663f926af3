"""Paired loads (hardware.Hardware.pairs; docs/hardware.md, "Paired loads"): an NVIDIA 64/128-bit load
whose lanes repeat in pairs (every lane n on lane n ^ 1's address, or every lane on lane n ^ 2's) is
served with its phases merged two by two.

- Brute force against the simulator: random [[instruction]] lane lists (repeats, pairs n ^ 1, n ^ 2,
  other partners, a broken pair) over random bijective layouts that keep 16-byte chunks whole; a
  counter written here from the rule (NVIDIA's groups of consecutive lanes, the pairing decided on
  the *physical* byte addresses, the most distinct 4-byte words in one bank per group, one
  wavefront per 128 distinct bytes) gives the simulator's cost of the instruction and the tool's
  lower bound, and the tool's phases are those groups.
- Where it applies: loads of 8 and 16 bytes by the whole warp on NVIDIA's own banks; never stores,
  narrower lanes, other partners, an AMD target or --banks; a --linear-layout with a broadcast lane
  bit (bit 0 or 1) is paired, the warp-level forms (each lane its own block) never are.
- The rank proof, the bound and the probe agree with the simulator on paired phases.
"""
from __future__ import annotations

import itertools
import json
import random
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from swizzle_solver import api, simulate
from swizzle_solver.access import make_hardware, make_problem, make_tile, parse_access
from swizzle_solver.access.phases_file import load_phases
from swizzle_solver.access.triton_layout import linear_layout_pattern
from swizzle_solver.families import cute
from swizzle_solver.hardware import DEFAULT, TARGETS
from swizzle_solver.proof import bank_matrix
from swizzle_solver.separation import separation

ROOT = Path(__file__).resolve().parents[1]
ROWS, COLS = 32, 128  # an i8 tile of 128-byte rows: every op from lds8 to sts128 fits its elements
WIDTH = {"lds8": 1, "lds16": 2, "lds32": 4, "lds64": 8, "lds128": 16,
         "sts8": 1, "sts16": 2, "sts32": 4, "sts64": 8, "sts128": 16}


# --- the rule, counted here from physical byte addresses --------------------------------------------


def by_hand(addresses: list[int], width: int, load: bool) -> tuple[int, int, int]:
    """(wavefronts, ideal, groups) of one NVIDIA warp instruction whose lane l starts at byte
    ``addresses[l]``: consecutive lanes, 32 / 16 / 8 per phase for up to 4 / 8 / 16 bytes; a load of
    8 or 16 bytes whose addresses repeat in lane pairs n ^ 1 or n ^ 2 as groups of two phases."""
    size = 32 if width <= 4 else 128 // width
    groups = [list(range(s, s + size)) for s in range(0, 32, size)]
    paired = any(all(addresses[n] == addresses[n ^ k] for n in range(32)) for k in (1, 2))
    if load and width >= 8 and paired:
        groups = [groups[i] + groups[i + 1] for i in range(0, len(groups), 2)]
    wavefronts = ideal = 0
    for g in groups:
        data = {addresses[n] + b for n in g for b in range(width)}
        wavefronts += max(Counter((byte // 4) % 32 for byte in {d // 4 * 4 for d in data}).values())
        ideal += max(1, -(-len(data) // 128))
    return wavefronts, ideal, len(groups)


def random_lanes(rng: random.Random, width: int) -> list[tuple[int, int]]:
    """32 lane starts (row, col), aligned to ``width``: from a small pool (repeats), then often made
    to pair (n ^ 1 or n ^ 2), to pair on another partner, or to pair but for one lane."""
    pool = [(rng.randrange(ROWS), rng.randrange(COLS // width) * width) for _ in range(rng.choice([1, 2, 4, 8, 64]))]
    lanes = [rng.choice(pool) for _ in range(32)]
    shape = rng.choice(["free", "n^1", "n^2", "n^1 and n^2", "n^4", "n^16", "n^1 but one"])
    for k in {"n^1": (1,), "n^2": (2,), "n^1 and n^2": (1, 2), "n^4": (4,), "n^16": (16,),
              "n^1 but one": (1,)}.get(shape, ()):
        lanes = [lanes[n & ~k] for n in range(32)]
    if shape == "n^1 but one":
        lanes[rng.randrange(32)] = (rng.randrange(ROWS), rng.randrange(COLS // width) * width)
    return lanes


def random_layout(rng: random.Random) -> np.ndarray:
    """phys[r, c] of a bijection of the tile that keeps every aligned 16-byte chunk whole: the rows
    permuted, and each row's 8 chunks permuted (every op's vector stays whole and aligned)."""
    rows = list(range(ROWS))
    rng.shuffle(rows)
    phys = np.zeros((ROWS, COLS), dtype=np.int64)
    for r in range(ROWS):
        chunks = list(range(COLS // 16))
        rng.shuffle(chunks)
        for c in range(COLS):
            phys[r, c] = rows[r] * COLS + chunks[c // 16] * 16 + c % 16
    return phys


def instructions_file(path: Path, entries: list[tuple[str, list[tuple[int, int]]]]) -> str:
    lines = []
    for i, (op, lanes) in enumerate(entries):
        lanes_text = ", ".join(f"[{r}, {c}]" for r, c in lanes)
        lines += ["[[instruction]]", f'name = "#{i} {op}"', f'op = "{op}"', f"lanes = [{lanes_text}]", ""]
    path.write_text("\n".join(lines))
    return str(path)


@pytest.mark.parametrize("seed", range(4))
def test_the_simulator_counts_what_the_rule_says_over_random_lanes_and_layouts(tmp_path, seed):
    rng = random.Random(seed)
    tile, hw = make_tile(ROWS, COLS, None, 1), DEFAULT
    entries = []
    for _ in range(100):
        op = rng.choice(list(WIDTH) + ["lds64", "lds128"] * 3)  # mostly the widths that pair
        entries.append((op, random_lanes(rng, WIDTH[op])))
    patterns = load_phases(instructions_file(tmp_path / "i.toml", entries), tile, hw)
    seen = Counter()
    for layout in [np.arange(ROWS * COLS).reshape(ROWS, COLS)] + [random_layout(rng) for _ in range(3)]:
        results = simulate.simulate(tile, hw, patterns, layout)
        for (op, lanes), p, result in zip(entries, patterns, results, strict=True):
            addresses = [int(layout[r, c]) for r, c in lanes]  # i8: element offsets are byte addresses
            want_w, want_ideal, groups = by_hand(addresses, WIDTH[op], op.startswith("lds"))
            assert p.instruction_phases == groups, (op, lanes)  # decided on elements = on addresses
            assert int(result.instruction_costs()[0]) == want_w, (op, lanes, layout[0])
            assert p.instruction_lower_bound == want_ideal, (op, lanes)
            seen[(op, groups < {1: 1, 2: 1, 4: 1, 8: 2, 16: 4}[WIDTH[op]])] += 1
    # the draw exercised paired and unpaired loads of both widths, and stores with the same lanes
    assert all(seen[(op, True)] for op in ("lds64", "lds128")), seen
    assert all(seen[(op, False)] for op in ("lds64", "lds128", "sts64", "sts128")), seen
    assert not any(seen[(op, True)] for op in WIDTH if op.startswith("sts") or WIDTH[op] <= 4), seen


# --- where it applies ----------------------------------------------------------------------------------


def one_address(width: int) -> list[tuple[int, int, int]]:
    return [(0, 0, width)] * 32


@pytest.mark.parametrize("width, phases", [(1, 1), (2, 1), (4, 1), (8, 1), (16, 2)])
def test_a_load_of_one_address_by_the_warp(width, phases):
    hw = DEFAULT
    assert len(hw.split_request(one_address(width))) == phases
    assert len(hw.split_request(one_address(width), write=True)) == {8: 2, 16: 4}.get(width, 1)  # stores: never


@pytest.mark.parametrize("partner, paired", [(1, True), (2, True), (3, True), (4, False), (8, False), (16, False)])
def test_only_partners_n_xor_1_or_n_xor_2_pair(partner, paired):
    # lanes n and n ^ partner share an address; partner 3 (n ^ 1 and n ^ 2): groups of four
    starts = [(0, 16 * min(n, n ^ partner) % 128) if partner != 3 else (0, 16 * (n // 4)) for n in range(32)]
    if partner not in (1, 2, 3):
        starts = [(min(n, n ^ partner) // 8, 16 * (min(n, n ^ partner) % 8)) for n in range(32)]
    request = [(r, c, 16) for r, c in starts]
    assert all(request[n] == request[n ^ (partner if partner != 3 else 1)] for n in range(32))
    assert DEFAULT.pairs(starts, 16, False) == paired
    assert [len(ph) for ph in DEFAULT.split_request(request)] == ([16, 16] if paired else [8] * 4)


def test_one_broken_pair_or_a_part_of_the_warp_is_not_paired():
    starts = [(0, 16 * (n // 2)) for n in range(32)]
    assert DEFAULT.pairs(starts, 16, False)
    assert not DEFAULT.pairs(starts[:31] + [(1, 0)], 16, False)
    assert not DEFAULT.pairs(starts[:16], 16, False)  # 16 lanes: not the whole warp


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_only_nvidia_targets_pair_and_not_under_another_bank_geometry(name):
    hw = TARGETS[name]
    nvidia = hw.language == "CUDA"  # the generic target and every generation (sm80 ... sm120)
    assert (hw.paired_loads == (8, 16)) == nvidia
    wave = [(0, 0, 16)] * hw.wave_lanes
    fixed = len(hw.phase_indices(hw.wave_lanes, 16))
    assert len(hw.split_request(wave)) == (fixed // 2 if nvidia else fixed)
    assert make_hardware(8, 4, hw).paired_loads == ()  # --banks 8: the tutorials' model, no pairs
    assert make_hardware(8, 4, hw).split_request(wave) == hw.with_banks(8, 4).split_request(wave)
    assert len(make_hardware(8, 4, hw).split_request(wave)) == fixed


def test_the_warp_forms_give_every_lane_its_own_block_and_never_pair():
    tile = make_tile(64, 64, None, 4)
    for spec in ("warp:4x8:1x4", "warp:32x1:1x4", "warp:8x4:2x2", "lds128:32x1", "lds64:8x4", "lds128:4x8:2x4"):
        p = parse_access(spec, tile, DEFAULT)
        width = int(p.lane_bytes.max())
        assert p.lane_row.shape[1] == 128 // width, spec  # phases of the fixed rule
        if p.instruction_phases:
            assert p.instruction_phases == 32 // (128 // width)


def broadcast_layout(lane_bits: list[list[int]], vector: int) -> str:
    register = [[0, 1 << i] for i in range(vector.bit_length() - 1)]
    rows = 1 << sum(1 for b in lane_bits if b == [0, 0])
    return json.dumps({"register": register, "lane": lane_bits, "warp": [], "block": [],
                       "out_dims": {"dim0": 32 // rows, "dim1": vector}})


@pytest.mark.parametrize("zero_bit, paired", [(0, True), (1, True), (2, False), (3, False), (4, False)])
@pytest.mark.parametrize("vector", [2, 4])  # f32 elements: 8- and 16-byte lanes
def test_a_linear_layout_with_a_broadcast_lane_bit_is_paired_when_it_is_bit_0_or_1(zero_bit, paired, vector):
    rows = iter(range(5))
    lane = [[0, 0] if b == zero_bit else [1 << next(rows), 0] for b in range(5)]
    tile = make_tile(32, 32, None, 4)
    p = linear_layout_pattern(broadcast_layout(lane, vector), "b", tile, DEFAULT)
    fixed = 128 // (4 * vector)
    assert p.lane_row.shape[1] == (2 * fixed if paired else fixed)
    assert p.lower_bound == 1


def test_a_block_pattern_is_one_phase_and_unchanged():
    tile = make_tile(64, 64, None, 4)
    for spec in ("8x4", "4x8", "32x1", "row", "col"):
        p = parse_access(spec, tile, DEFAULT)
        rows = p.lane_row * 64 + p.lane_col
        assert all(len(set(r)) == len(r) for r in rows.tolist()), spec  # no repeated lanes to pair


# --- the bound, the proof and the probe on paired phases -----------------------------------------------


def test_rank_proof_and_separation_agree_with_the_simulator_on_paired_phases():
    p = make_problem(32, 32, [], layout_files=[str(ROOT / "examples" / "broadcast-rows-f32.json")])
    tile, pattern = p.tile, p.patterns[0]
    assert pattern.lane_row.shape[1] == 16 and pattern.lower_bound == 1  # 2 groups of 16 lanes
    r, c = np.meshgrid(np.arange(32), np.arange(32), indexing="ij")
    verdicts = set()
    for b, m, s in [(b, m, s) for b, m, s in itertools.product((1, 2, 3), (2, 3, 4), (1, 3, 5)) if s >= b]:
        layout = cute.Swizzle(b, m, s)
        if layout.invalid(tile):
            continue
        costs = simulate.simulate(tile, p.hardware, [pattern], layout.phys(tile, r, c))[0].costs
        matrix = bank_matrix(tile, p.hardware, pattern, layout.bases(tile))
        assert matrix is not None and costs.min() == costs.max() == matrix.wavefronts, layout.name
        sep = separation(tile, p.hardware, pattern)
        assert sep is not None and sep.holds(layout.apply) == (costs.max() == pattern.lower_bound), layout.name
        verdicts.add(matrix.wavefronts)
    assert verdicts == {1, 2}


def test_a_fully_paired_v4_warp_has_bound_2_and_the_solve_reaches_it():
    path = ROOT / "phases" / "paired-loads.toml"
    doc = api.check("none", api.problem(32, 32, [], phases=[str(path)])).json()
    a, b = doc["answer"]["per_access"]
    assert (a["lower_bound"], a["worst_wavefronts"]) == (2, 4)  # unswizzled: rows 0, 1 on one bank per group
    assert (b["lower_bound"], b["worst_wavefronts"]) == (4, 4)  # partners n ^ 8: the fixed phases
    solved = api.solve(api.problem(32, 32, [], phases=[str(path)])).json()
    assert solved["status"] == "conflict-free"
    assert [x["worst_wavefronts"] for x in solved["answer"]["per_access"]] == [2, 4]
