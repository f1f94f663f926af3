"""A targeted GPU experiment: how NVIDIA's shared memory serves 64- and 128-bit accesses whose lanes
repeat addresses (docs/hardware.md, "Measured": the fixed phases over-counted lds64 / lds128 on one
address).

    bash bench/gpu_probe.sh gen-broadcast DIR                      # here: the probe folders (as gpu_probe gen)
    python3 bench/gpu_probe.py run DIR --results R --timeout 60 --budget 240   # on the GPU
    python3 bench/gpu_broadcast.py analyze DIR R                   # anywhere: measured vs each hypothesis

The H100 served 32 lanes loading one 8-byte address (`ld.shared.v2.b32`) in 1 wavefront and one
16-byte address (`ld.shared.v4.b32`) in 2, where the model's fixed lane phases (16 lanes / 8 lanes,
one wavefront each) say 2 and 4; the stores of the same (`st.shared.v2/v4`) took 2 and 4. Each probe
here is one `[[instruction]]` per kernel over an unswizzled 32 x 128 i8 tile (byte offset = row * 128
+ col: the addresses are exactly the ones written), with lane patterns chosen so that the hypotheses
below predict different counts. `gen` writes DIR/<folder>/ (swizzle-solve probe, predicting with
the tool's model), DIR/cases.json (for `gpu_probe.py run`), DIR/hypotheses.json (every kernel's lane
offsets and each hypothesis's W / conflicts) and DIR/README.md (the same as a table).

The hypotheses (W: wavefronts; conflicts: W minus one wavefront per group, or per 128 bytes of it):

- model: the fixed phases (the tool's rule before this experiment), consecutive lanes (32 / 16 / 8
  for 4 / 8 / 16-byte lanes), each costing the most distinct words one bank holds.
- pairs: NVIDIA's rule for compute capability 7.x (forum thread "Unexpected shared memory bank
  conflict", docs/hardware.md): when every lane reads what lane n^1 reads, or every lane what lane
  n^2 reads, the returned registers are packed and two phases are served as one (v4: 2 x 16 lanes,
  v2: one of 32); otherwise the model.
- pairs-halved: the same condition, but each merged pair costs the larger of its two phases' costs
  (the two phases still bank-separate; the return is what is halved).
- any-xor: as pairs, for any partner n^k (k = 1, 2, 4, 8, 16; the smallest that holds): the phases
  holding partners are merged.
- equal-phases: phases 2i and 2i+1 are merged when they read the same addresses lane by lane.
- half-warp: v4 always in 2 groups of 16 lanes, v2 in one of 32 (each its distinct chunks).
- warp: the whole warp's distinct chunks at once (refuted for v4 by the first run: one address took 2).

Outcome (H100, 2026-11-26; tests/data/gpu/h100-2026-11-26-broadcast.json, docs/hardware.md): `pairs`
predicted every load exactly (lds128 26/26, lds64 13/13, lds32 3/3) and `model` every store (sts128
6/6, sts64 4/4). That is the tool's model since (``adopted``: hardware.Hardware.pairs, loads only), so
the probes `gen` writes now predict `pairs` for the loads and `model` for the stores.
Run again with that model (tests/data/gpu/h100-2026-11-26-broadcast-2.json): all 94 kernels agree,
the 42 of lanes drawn at random after the rule was adopted (groups 08-10) among them.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import gpu_probe  # noqa: E402

sys.path.pop(0)

LANES = 32
ROW_BYTES = 128  # the tile: 32 rows of 128 i8 elements, unswizzled: byte offset = row * 128 + col
TILE = ["--rows", "32", "--cols", "128", "--dtype", "i8", "--check", "none"]
WIDTH = {"lds32": 4, "lds64": 8, "lds128": 16, "sts64": 8, "sts128": 16}


def parity(x: int) -> int:
    """1 when x has an odd number of set bits: flipping any one bit changes it (no lane partner n^k)."""
    return bin(x).count("1") & 1


# --- the patterns ---------------------------------------------------------------------------------
# Each pattern: (id, what, lane -> (row, k)): lane l reads the k-th unit of the access's width in
# tile row `row` (byte offset row * 128 + k * width). Rows differ by 128 bytes: the same k in two
# rows is the same bank (a conflict); different k in one row are different banks.

Lane = Callable[[int], tuple[int, int]]

V4: list[tuple[str, str, Lane]] = [  # 16-byte units: k in 0..7 (banks 4k .. 4k+3)
    # the whole warp repeats a few addresses
    ("B01", "all lanes one address", lambda l: (0, 0)),
    ("B02", "each quarter one address, 4 banks (A-operand broadcast, swizzled)", lambda l: (0, l >> 3)),
    ("B03", "each quarter one address, one bank (A-operand broadcast, unswizzled)", lambda l: (l >> 3, 0)),
    ("B04", "each half one address, 2 banks", lambda l: (0, l >> 4)),
    ("B05", "each half one address, one bank", lambda l: (l >> 4, 0)),
    ("B06", "quarters 0,2 and 1,3 one address each, 2 banks", lambda l: (0, (l >> 3) & 1)),
    ("B07", "quarters 0,2 and 1,3 one address each, one bank", lambda l: ((l >> 3) & 1, 0)),
    # which lane partners share: 16 distinct chunks (2 rows, 256 B) unless said
    ("B08", "lanes n, n^1 share; 16 chunks", lambda l: divmod(l >> 1, 8)),
    ("B09", "lanes n, n^2 share; 16 chunks", lambda l: divmod(((l >> 2) << 1) | (l & 1), 8)),
    ("B10", "lanes n, n^4 share; 16 chunks", lambda l: divmod(((l >> 3) << 2) | (l & 3), 8)),
    ("B11", "lanes n, n^8 share (quarters 0=1, 2=3); 16 chunks", lambda l: divmod(((l >> 4) << 3) | (l & 7), 8)),
    ("B12", "lanes n, n^16 share (quarters 0=2, 1=3); 16 chunks", lambda l: divmod(l & 15, 8)),
    ("B13", "lanes n, n^1 share but lane 31; 17 chunks", lambda l: (3, 7) if l == 31 else divmod(l >> 1, 8)),
    ("B14", "lanes in fours share (n^1 and n^2); one row", lambda l: (0, l >> 2)),
    ("B15", "lanes n, n^1 share; a half: 2 rows, banks 0-15", lambda l: (l >> 3, (l >> 1) & 3)),
    ("B16", "quarters 2, 3 = quarters 0, 1 reversed; 16 chunks",
     lambda l: divmod(l & 15 if l < 16 else (l & 8) | (7 - (l & 7)), 8)),
    # distinct chunks in lane orders; one row (distinct banks) or one bank
    ("B17", "2 chunks interleaved (l % 2), 2 banks", lambda l: (0, l & 1)),
    ("B18", "4 chunks interleaved (l % 4), 4 banks", lambda l: (0, l & 3)),
    ("B19", "8 chunks interleaved (l % 8): B-operand broadcast", lambda l: (0, l & 7)),
    ("B20", "2 chunks interleaved, one bank", lambda l: (l & 1, 0)),
    ("B21", "4 chunks interleaved, one bank", lambda l: (l & 3, 0)),
    ("B22", "8 chunks interleaved, one bank", lambda l: (l & 7, 0)),
    ("B23", "16 chunks in one bank, lanes n, n^1 share", lambda l: (l >> 1, 0)),
    ("B24", "no partners; 2-way conflict, another bank per quarter", lambda l: (parity(l & 7), l >> 3)),
    ("B25", "lanes n, n^1 share; 2-way conflict per quarter", lambda l: ((l >> 1) & 1, l >> 3)),
    ("B26", "control: along rows, 32 chunks", lambda l: divmod(l, 8)),
]

V2: list[tuple[str, str, Lane]] = [  # 8-byte units: k in 0..15 (banks 2k, 2k+1)
    ("D01", "all lanes one address", lambda l: (0, 0)),
    ("D02", "each half one address, 2 banks", lambda l: (0, l >> 4)),
    ("D03", "each half one address, one bank", lambda l: (l >> 4, 0)),
    ("D04", "each quarter one address, 4 banks", lambda l: (0, l >> 3)),
    ("D05", "each quarter one address, one bank", lambda l: (l >> 3, 0)),
    ("D06", "lanes n, n^1 share; 16 units, one row", lambda l: (0, l >> 1)),
    ("D07", "lanes n, n^2 share; 16 units, one row", lambda l: (0, ((l >> 2) << 1) | (l & 1))),
    ("D08", "lanes n, n^4 share; 16 units, one row", lambda l: (0, ((l >> 3) << 2) | (l & 3))),
    ("D09", "lanes n, n^8 share; 16 units, one row", lambda l: (0, ((l >> 4) << 3) | (l & 7))),
    ("D10", "lanes n, n^16 share (halves equal); one row", lambda l: (0, l & 15)),
    ("D11", "lanes n, n^1 share; halves on the same banks", lambda l: (l >> 4, (l >> 1) & 7)),
    ("D12", "no partners; 2-way conflict, another bank per half", lambda l: (parity(l & 15), l >> 4)),
    ("D13", "control: along rows, 32 units", lambda l: divmod(l, 16)),
]

V1: list[tuple[str, str, Lane]] = [  # 4-byte words: k in 0..31 (bank k); one phase of 32 lanes
    ("W01", "all lanes one address", lambda l: (0, 0)),
    ("W02", "each quarter one address, one bank", lambda l: (l >> 3, 0)),
    ("W03", "lanes n, n^16 share; 16 words", lambda l: (0, l & 15)),
]

STORES_V4 = ("B01", "B02", "B04", "B08", "B11", "B12")
STORES_V2 = ("D01", "D02", "D06", "D10")


def random_patterns(prefix: str, units: int, count: int, seed: int) -> list[tuple[str, str, Lane]]:
    """``count`` lane lists drawn at random (a fixed seed), a check of the adopted rule on lanes no one
    chose: each lane from a small pool of (row, unit) spots (repeats), then often made to share with
    lane n ^ 1, n ^ 2, both, n ^ 4 or n ^ 16, or to share with n ^ 1 but for one lane."""
    rng = random.Random(seed)
    out = []
    for i in range(count):
        pool = [(rng.randrange(32), rng.randrange(units)) for _ in range(rng.choice([1, 2, 4, 8, 64]))]
        spots = [rng.choice(pool) for _ in range(LANES)]
        shape = rng.choice(["free", "n^1", "n^2", "n^1 and n^2", "n^4", "n^16", "n^1 but one"])
        for k in {"n^1": (1,), "n^2": (2,), "n^1 and n^2": (1, 2), "n^4": (4,), "n^16": (16,),
                  "n^1 but one": (1,)}.get(shape, ()):
            spots = [spots[n & ~k] for n in range(LANES)]
        if shape == "n^1 but one":
            spots[rng.randrange(LANES)] = (rng.randrange(32), rng.randrange(units))
        out.append((f"{prefix}{i + 1:02d}", f"random lanes ({shape})", lambda l, spots=spots: spots[l]))
    return out


# (folder name, op, patterns)
GROUPS: list[tuple[str, str, list[tuple[str, str, Lane]]]] = [
    ("lds128 whole-warp repeats", "lds128", V4[:7]),
    ("lds128 lane partners", "lds128", V4[7:16]),
    ("lds128 chunks and conflicts", "lds128", V4[16:]),
    ("lds64 repeats and lane partners", "lds64", V2),
    ("lds32 controls", "lds32", V1),
    ("sts128 contrast", "sts128", [p for p in V4 if p[0] in STORES_V4]),
    ("sts64 contrast", "sts64", [p for p in V2 if p[0] in STORES_V2]),
    # after the first run (2026-11-26), a check of the adopted rule on lanes drawn at random
    ("lds128 random lanes", "lds128", random_patterns("RB", 8, 20, 2026)),
    ("lds64 random lanes", "lds64", random_patterns("RD", 16, 16, 2027)),
    ("sts128 random lanes", "sts128", random_patterns("RS", 8, 6, 2028)),
]


def kernels() -> list[dict]:
    """Every kernel of the experiment: its folder, op, name ("B01 lds128 ...") and lane offsets."""
    out = []
    for folder, op, patterns in GROUPS:
        width = WIDTH[op]
        for pid, what, lane in patterns:
            spots = [lane(n) for n in range(LANES)]
            assert all(0 <= r < 32 and 0 <= k * width < ROW_BYTES for r, k in spots), (pid, spots)
            out.append({"folder": folder, "op": op, "id": pid, "name": f"{pid} {op} {what}", "what": what,
                        "width": width, "offsets": [r * ROW_BYTES + k * width for r, k in spots]})
    return out


# --- the hypotheses -------------------------------------------------------------------------------


def cost(offsets: list[int], width: int) -> tuple[int, int]:
    """(wavefronts, ideal) of one group of lanes served together: the most distinct 4-byte words in
    one of the 32 banks, and max(1, ceil(distinct bytes / 128))."""
    words = {(o + b) // 4 for o in offsets for b in range(width)}
    busiest = max(Counter(w % 32 for w in words).values())
    ideal = max(1, -(-len({o + b for o in offsets for b in range(width)}) // 128))
    return busiest, ideal


def _phases(width: int) -> list[list[int]]:
    size = LANES if width <= 4 else 128 // width
    return [list(range(s, s + size)) for s in range(0, LANES, size)]


def _partners(a: list[int], k: int) -> bool:
    return all(a[n] == a[n ^ k] for n in range(LANES))


def _served(a: list[int], width: int, groups: list[list[int]]) -> tuple[int, int]:
    costs = [cost([a[n] for n in g], width) for g in groups]
    w = sum(c for c, _ in costs)
    return w, w - sum(i for _, i in costs)


def _merge(phases: list[list[int]], step: int) -> list[list[int]]:
    """Phase i with phase i ^ step (step 1: adjacent pairs)."""
    return [phases[i] + phases[i ^ step] for i in range(len(phases)) if i < i ^ step < len(phases)] or phases


def hypotheses(a: list[int], width: int) -> dict[str, tuple[int, int]]:
    """(W, conflicts) of one instruction with lane byte offsets ``a`` under each hypothesis."""
    ph = _phases(width)
    model = _served(a, width, ph)
    if len(ph) == 1:  # 1, 2 and 4-byte lanes: one phase of 32; every hypothesis is the model
        return dict.fromkeys(HYPOTHESES, model)
    paired = _partners(a, 1) or _partners(a, 2)
    out = {"model": model, "pairs": _served(a, width, _merge(ph, 1)) if paired else model}
    if paired:
        pairs = [(ph[i], ph[i + 1]) for i in range(0, len(ph), 2)]
        costs = [(cost([a[n] for n in p], width), cost([a[n] for n in q], width)) for p, q in pairs]
        w = sum(max(c[0], d[0]) for c, d in costs)
        out["pairs-halved"] = (w, w - sum(max(c[1], d[1]) for c, d in costs))
    else:
        out["pairs-halved"] = model
    k = next((k for k in (1, 2, 4, 8, 16) if _partners(a, k)), None)
    size = len(ph[0])
    out["any-xor"] = model if k is None else _served(a, width, _merge(ph, max(1, k // size)))
    equal = []
    for i in range(0, len(ph), 2):
        same = [a[n] for n in ph[i]] == [a[n] for n in ph[i + 1]]
        equal += [ph[i] + ph[i + 1]] if same else [ph[i], ph[i + 1]]
    out["equal-phases"] = _served(a, width, equal)
    out["half-warp"] = _served(a, width, _merge(ph, 1))
    out["warp"] = _served(a, width, [list(range(LANES))])
    return out


HYPOTHESES = ("model", "pairs", "pairs-halved", "any-xor", "equal-phases", "half-warp", "warp")


def adopted(op: str) -> str:
    """The hypothesis the tool's model follows for ``op`` since the H100's measurement: ``pairs`` for
    loads, ``model`` (the fixed phases) for stores (hardware.Hardware.pairs)."""
    return "model" if op.startswith("sts") else "pairs"


# --- gen --------------------------------------------------------------------------------------------


def phases_file(path: Path, todo: list[dict]) -> Path:
    lines = [f"# {todo[0]['folder']}: bench/gpu_broadcast.py (a 32 x 128 i8 tile, unswizzled: "
             f"byte offset = row * 128 + col)"]
    for k in todo:
        lanes = ", ".join(f"[{o // ROW_BYTES}, {o % ROW_BYTES}]" for o in k["offsets"])
        lines += ["", "[[instruction]]", f'name = "{k["name"]}"', f'op = "{k["op"]}"', f"lanes = [{lanes}]"]
    path.write_text("\n".join(lines) + "\n")
    return path


def cases(phases: Path) -> list[dict]:
    """The experiment's probes as gpu_probe cases (name, slug, args), one per group, each with its
    --phases file written into the folder ``phases`` (tests/test_gpu_measured.py replays them)."""
    phases.mkdir(parents=True, exist_ok=True)
    every = kernels()
    out = []
    for i, (folder, _, _) in enumerate(GROUPS):
        slug = f"{i + 1:02d}-{gpu_probe._slug(folder)}"
        path = phases_file(phases / f"{slug}.toml", [k for k in every if k["folder"] == folder])
        out.append({"name": f"broadcast: {folder}", "slug": slug, "args": [*TILE, "--phases", str(path)]})
    return out


def gen(out: Path) -> int:
    out.mkdir(parents=True, exist_ok=True)
    if any(out.iterdir()):
        sys.exit(f"gpu_broadcast gen: {out} is not empty: give a new or empty folder")
    every = kernels()
    todo = cases(out / "phases")
    table = {}
    for (folder, _, _), case in zip(GROUPS, todo, strict=True):
        slug = case["slug"]
        for n, k in enumerate(k for k in every if k["folder"] == folder):
            h = hypotheses(k["offsets"], k["width"])
            table[f"{slug}/probe_a{n}"] = {**k, "slug": slug, "kernel": f"probe_a{n}",
                                           "hypotheses": {name: list(h[name]) for name in HYPOTHESES}}
    code = gpu_probe.write_cases(out, todo, "bench/gpu_broadcast.py")
    (out / "hypotheses.json").write_text(json.dumps({"hypotheses": list(HYPOTHESES), "kernels": table}, indent=1)
                                         + "\n")
    (out / "README.md").write_text(readme(table))
    print(f"gpu_broadcast gen: {len(table)} kernels in {len(todo)} probes; on the GPU machine, from the checkout:\n"
          f"  python3 bench/gpu_probe.py run {out} --results RESULTS --timeout 60 --budget 240\n"
          f"then anywhere: python3 bench/gpu_broadcast.py analyze {out} RESULTS")
    return code


def readme(table: dict) -> str:
    head = "| kernel | instruction | " + " | ".join(HYPOTHESES) + " |"
    rows = [f"| {k['slug'][:2]}/{k['kernel']} | {k['name']} | "
            + " | ".join("/".join(map(str, k["hypotheses"][h])) for h in HYPOTHESES) + " |" for k in table.values()]
    return "\n".join([
        "# Repeated addresses in 64- and 128-bit shared-memory accesses (bench/gpu_broadcast.py)",
        "",
        "Each kernel is one warp instruction over an unswizzled 32 x 128 i8 tile (byte offset = row * 128 +",
        "col); hypotheses.json has every lane's offset. W/conflicts each hypothesis predicts (the module's",
        "docstring says what each one is); prediction.json says `pairs` for the loads and `model` for the",
        "stores (the rule the tool adopted from the H100's measurement).",
        "",
        head, "|" + "---|" * (len(HYPOTHESES) + 2), *rows, ""])


# --- analyze ----------------------------------------------------------------------------------------


def measured(results: Path) -> dict[str, tuple[float, float]]:
    """slug/kernel -> (W, conflicts) measured, from `gpu_probe.py run`'s summary.json."""
    out = {}
    for probe in json.loads((results / "summary.json").read_text())["probes"]:
        for k in probe.get("kernels") or []:
            values = {m: got for m, (_, got) in k["counters"].items()}
            w = next(v for m, v in values.items() if "wavefronts" in m)
            c = next(v for m, v in values.items() if "bank_conflicts" in m)
            out[f"{probe['slug']}/{k['kernel']}"] = (w, c)
    return out


def analyze(out: Path, results: Path) -> int:
    table = json.loads((out / "hypotheses.json").read_text())["kernels"]
    got = measured(results)
    lines = ["| kernel | instruction | measured | " + " | ".join(HYPOTHESES) + " |",
             "|" + "---|" * (len(HYPOTHESES) + 3)]
    hits: dict[str, Counter] = {h: Counter() for h in HYPOTHESES}
    seen: Counter = Counter()
    for key, k in table.items():
        if key not in got:
            lines.append(f"| {key} | {k['name']} | not measured |" + " |" * len(HYPOTHESES))
            continue
        w, c = got[key]
        kind = k["op"]
        seen[kind] += 1
        cells = []
        for h in HYPOTHESES:
            pw, pc = k["hypotheses"][h]
            ok = pw == w and pc == c
            hits[h][kind] += ok
            cells.append(f"{pw}/{pc}" + (" =" if ok else ""))
        lines.append(f"| {key} | {k['name']} | {w:g}/{c:g} | " + " | ".join(cells) + " |")
    lines += ["", "Kernels whose W and conflicts each hypothesis predicts exactly, per op:", "",
              "| hypothesis | " + " | ".join(f"{op} ({n})" for op, n in seen.items()) + " |",
              "|" + "---|" * (len(seen) + 1)]
    lines += [f"| {h} | " + " | ".join(str(hits[h][op]) for op in seen) + " |" for h in HYPOTHESES]
    print("\n".join(lines))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="step", required=True)
    g = sub.add_parser("gen", help="write the probe folders, hypotheses.json and README.md into a new folder")
    g.add_argument("out", type=Path)
    a = sub.add_parser("analyze", help="measured (gpu_probe.py run's results) vs each hypothesis")
    a.add_argument("out", type=Path)
    a.add_argument("results", type=Path)
    args = parser.parse_args()
    if args.step == "gen":
        return gen(args.out)
    return analyze(args.out, args.results)


if __name__ == "__main__":
    sys.exit(main())
