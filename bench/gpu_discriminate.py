"""The next device run (issue 38): probes whose counts tell apart rules the recorded data cannot.

    bash bench/gpu_probe.sh gen-discriminate DIR                   # here: probe folders, hypotheses.json, README.md
    bash bench/gpu_probe.sh device DIR                             # on the H100: run all, agreement table
    python3 bench/gpu_discriminate.py analyze DIR RESULTS          # anywhere: measured vs each hypothesis

Every recorded ldmatrix layout repeats its bank pattern every 8 rows, so serving two 8 x 8 matrices
per 16-lane phase instead of one per phase passes every test; 8- and 16-bit lanes sharing words,
partial broadcasts and cp.async were never measured at all. Each set below is written with
`swizzle-solve probe` (the tool's own prediction in prediction.json, the model) and, for each kernel,
the W / conflicts of every hypothesis it could distinguish, computed here by a bank counter written
independently of the tool from the lane byte offsets of probe.cu's tables (`model` must equal
prediction.json's numbers: tests/test_gpu_discriminate.py checks it):

- ``matrices``: ldmatrix .x1 / .x2 / .x4 (and .trans) and stmatrix on 64 x 64 f16 tiles whose bank
  pattern differs between the two 8-row halves of a 16-row group: ``Swizzle<3,3,4>`` (row bits 1-3
  into the chunk: a non-periodic XOR), ``Swizzle<2,3,5>`` and random chunk permutations (``table:``
  files, seeded). Hypotheses: ``model`` (one matrix, 8 row addresses, per phase) and ``half-warp``
  (two matrices per 16-lane phase: lanes 0-15, 16-31; 2 wavefronts ideal). An .x1 is one matrix
  under both: a control. A padded pitch cannot tell them apart: a 16-byte-aligned pitch shifts the
  banks by a multiple of 4 words a row, so its pattern repeats within 8 rows.
- ``broadcast``: every ld/st.shared width as an ``[[instruction]]`` over an unswizzled 32 x 128 i8
  tile with part of the warp on one address: ``model`` (distinct words per bank; loads broadcast,
  stores write once; paired loads as the tool has them) and ``no-broadcast`` (every lane's words
  counted, as if no two lanes were merged).
- ``subword``: 8- and 16-bit loads and stores whose lanes share 4-byte words: ``model`` (a word is
  one access whatever bytes of it the lanes touch) and ``bytes`` (each distinct byte address, 2-byte
  unit, is its own access).
- ``cp.async``: `--access cp.async` (cp.async.cg.shared.global, SASS LDGSTS, ncu's `_op_ldgsts`) on
  tiles where its chunks conflict: ``model`` (16-byte writes, 8 lanes a phase) and ``half-warp`` (16
  lanes a phase) and ``warp`` (the whole warp at once).

- ``partial``: paired loads of a partial warp (lanes that sit out): a ``[[pattern]]`` phase of 16 or
  24 lanes of 8 or 16 bytes whose lanes n and n ^ 1 share an address is issued as listed, the other
  lanes of the warp inactive. ``model`` (the tool: a request of fewer lanes than the warp is never
  paired, by choice, not measured) and ``active-pairs`` (NVIDIA's statement, "all active threads":
  paired when every active lane has its partner active on the same address).
"""
from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import gpu_probe  # noqa: E402

sys.path.pop(0)

LANES, BANKS, WORD = 32, 32, 4
MATRIX_FORMS = ["ldmatrix.x1", "ldmatrix.x2", "ldmatrix.x4", "ldmatrix.x2.trans", "ldmatrix.x4.trans",
                "stmatrix.x2", "stmatrix.x4", "stmatrix.x4.trans"]
ROW = 128  # the i8 tiles: 32 rows of 128 bytes, unswizzled: byte offset = row * 128 + col
I8 = ["--rows", "32", "--cols", "128", "--dtype", "i8", "--check", "none"]


# --- the sets ---------------------------------------------------------------------------------------


def chunk_table(seed: int, rows: int = 64, cols: int = 64, per: int = 8, whole: bool = False) -> list[list[int]]:
    """Element offsets of a rows x cols f16 tile whose 16-byte chunks (``per`` elements) are permuted
    at random (seeded) within each row, or over the ``whole`` tile: every row's bank pattern differs,
    and vectors stay whole."""
    rng = random.Random(seed)
    n = cols // per
    if whole:
        chunks = list(range(rows * n))
        rng.shuffle(chunks)
        return [[chunks[r * n + c // per] * per + c % per for c in range(cols)] for r in range(rows)]
    out = []
    for r in range(rows):
        row = list(range(n))
        rng.shuffle(row)
        out.append([r * cols + row[c // per] * per + c % per for c in range(cols)])
    return out


def _instructions(path: Path, entries: list[tuple[str, str, list[tuple[int, int]]]]) -> Path:
    lines = ["# bench/gpu_discriminate.py: a 32 x 128 i8 tile, unswizzled (byte offset = row * 128 + col)"]
    for name, op, lanes in entries:
        lines += ["", "[[instruction]]", f'name = "{name}"', f'op = "{op}"',
                  "lanes = [" + ", ".join(f"[{r}, {c}]" for r, c in lanes) + "]"]
    path.write_text("\n".join(lines) + "\n")
    return path


def broadcast_lanes(op: str) -> list[tuple[str, str, list[tuple[int, int]]]]:
    """Part of the warp on one address, the rest on words of the same bank (rows 128 B apart)."""
    width = int(op[3:]) // 8
    return [
        (f"{op} half the warp on one address, half down a column", op,
         [(0, 0) if n < 16 else (n - 15, 0) for n in range(LANES)]),
        (f"{op} lanes in fours on one address, 8 rows of one bank", op, [(n // 4, 0) for n in range(LANES)]),
        (f"{op} lanes 0-7 on one address, the others along row 1", op,
         [(0, 0) if n < 8 else (1, ((n - 8) * width) % ROW) for n in range(LANES)]),
    ]


def subword_lanes(op: str) -> list[tuple[str, str, list[tuple[int, int]]]]:
    """8- and 16-bit lanes sharing 4-byte words: in one bank (rows 128 B apart) and along a row."""
    width = int(op[3:]) // 8
    per = WORD // width  # lanes a word holds
    return [
        (f"{op} {per} lanes a word, words down a column (one bank)", op,
         [(n // per, (n % per) * width) for n in range(LANES)]),
        (f"{op} consecutive lanes along a row ({per} a word)", op, [(0, n * width) for n in range(LANES)]),
        (f"{op} {per} lanes a word, 2 words a bank", op,
         [((n // per) % 2, (n // per) // 2 * WORD + (n % per) * width) for n in range(LANES)]),
    ]


def partial_phases(path: Path) -> Path:
    """[[pattern]] phases of partial warps whose active lanes repeat in pairs (n, n ^ 1), i8 tile."""
    entries = []
    for width in (16, 8):
        per_row = ROW // width
        for active, where in ((16, "along the rows"), (24, "along the rows"), (16, "down column 0 (one bank)")):
            chunks = [n // 2 for n in range(active)]  # lanes n and n ^ 1: one address
            lanes = [divmod(c, per_row) if where.startswith("along") else (c, 0) for c in chunks]
            lanes = [(r, c * width) for r, c in lanes] if where.startswith("along") else lanes
            entries.append((f"{width * 8}-bit loads, {active} lanes (n, n^1 share), {where}", width, lanes))
    lines = ["# bench/gpu_discriminate.py: partial warps, a 32 x 128 i8 tile, unswizzled"]
    for name, width, lanes in entries:
        lines += ["", "[[pattern]]", f'name = "{name}"',
                  "phases = [[" + ", ".join(f"[{r}, {c}, {width}]" for r, c in lanes) + "]]"]
    path.write_text("\n".join(lines) + "\n")
    return path


def cases(folder: Path) -> list[dict]:
    """The sets as gpu_probe cases (name, args); files they need are written into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    tile = ["--rows", "64", "--cols", "64", "--dtype", "f16", *[x for f in MATRIX_FORMS for x in ("--access", f)]]
    out = [{"name": "matrices: f16 64x64, Swizzle<3,3,4>", "args": [*tile, "--check", "Swizzle<3,3,4>"]},
           {"name": "matrices: f16 64x64, Swizzle<2,3,5>", "args": [*tile, "--check", "Swizzle<2,3,5>"]}]
    for seed in (1, 2):
        path = folder / f"chunks-{seed}.json"
        path.write_text(json.dumps(chunk_table(seed)) + "\n")
        out.append({"name": f"matrices: f16 64x64, 16-byte chunks permuted at random (seed {seed})",
                    "args": [*tile, "--check", f"table:{path}"]})
    ops = [f"{d}{b}" for d in ("lds", "sts") for b in (8, 16, 32, 64, 128)]
    out.append({"name": "broadcast: every ld/st.shared width, part of the warp on one address",
                "args": [*I8, "--phases", str(_instructions(folder / "broadcast.toml",
                                                            [e for op in ops for e in broadcast_lanes(op)]))]})
    sub = [f"{d}{b}" for d in ("lds", "sts") for b in (8, 16)]
    out.append({"name": "partial: paired loads of a partial warp", "args": [*I8, "--phases",
                                                                          str(partial_phases(folder / "partial.toml"))]})
    out.append({"name": "subword: 8- and 16-bit lanes sharing words",
                "args": [*I8, "--phases", str(_instructions(folder / "subword.toml",
                                                            [e for op in sub for e in subword_lanes(op)]))]})
    for rows, cols in ((64, 8), (32, 16)):
        out.append({"name": f"cp.async: f16 {rows}x{cols} at pitch 64, unswizzled",
                    "args": ["--rows", str(rows), "--cols", str(cols), "--row-length", "64", "--dtype", "f16",
                             "--access", "cp.async", "--check", "none"]})
    for seed in (3, 4):  # chunks anywhere: phases of 8 lanes conflict in different banks, so groupings differ
        path = folder / f"tile-chunks-{seed}.json"
        path.write_text(json.dumps(chunk_table(seed, 32, 64, whole=True)) + "\n")
        out.append({"name": f"cp.async: f16 32x64, 16-byte chunks permuted over the tile (seed {seed})",
                    "args": ["--rows", "32", "--cols", "64", "--dtype", "f16", "--access", "cp.async",
                             "--check", f"table:{path}"]})
    out.append({"name": "cp.async: f16 64x64, unswizzled, with 8x8 reads (a control: no conflict)",
                "args": ["--rows", "64", "--cols", "64", "--dtype", "f16", "--access", "cp.async",
                         "--access", "8x8", "--check", "none"]})
    for i, c in enumerate(out):
        c["slug"] = f"{i + 1:02d}-{gpu_probe._slug(c['name'])}"
    return out


# --- an independent bank counter --------------------------------------------------------------------


def group_cost(offsets: list[int], width: int, unit: str = "words") -> tuple[int, int]:
    """(wavefronts, ideal) of lanes served together: the most distinct accesses one bank holds (a
    4-byte word: ``words``; each lane's own words: ``lanes``; each distinct address of the lane's
    width: ``bytes``), and the ideal max(1, ceil(distinct bytes / 128))."""
    if unit == "lanes":
        accesses = [(n, (o + b) // WORD) for n, o in enumerate(offsets) for b in range(0, width, WORD)] \
            if width >= WORD else [(n, o // WORD) for n, o in enumerate(offsets)]
        banks = Counter(w % BANKS for _, w in accesses)
    elif unit == "bytes" and width < WORD:
        banks = Counter((o // WORD) % BANKS for o in set(offsets))
    else:
        banks = Counter(w % BANKS for w in {(o + b) // WORD for o in offsets for b in range(width)})
    ideal = max(1, -(-len({o + b for o in offsets for b in range(width)}) // 128))
    return max(banks.values()), ideal


def served(row: list[int], width: int, groups: list[list[int]], unit: str = "words") -> tuple[int, int]:
    """(W, conflicts) of one instruction whose slot byte offsets are ``row`` (-1: inactive)."""
    w = ideal = 0
    for g in groups:
        lanes = [row[n] for n in g if row[n] >= 0]
        if lanes:
            c, i = group_cost(lanes, width, unit)
            w, ideal = w + c, ideal + i
    return w, w - ideal


def fixed(width: int, size: int | None = None) -> list[list[int]]:
    """Consecutive lanes: 32 / 16 / 8 a phase for 4 / 8 / 16-byte lanes (or ``size``)."""
    size = size or (LANES if width <= WORD else 128 // width)
    return [list(range(s, s + size)) for s in range(0, LANES, size)]


def _paired(row: list[int], width: int, store: bool) -> bool:
    return (not store and width >= 8 and min(row) >= 0
            and any(all(row[n] == row[n ^ k] for n in range(LANES)) for k in (1, 2)))


def kernel_hypotheses(op: str, width: int, rows: list[list[int]]) -> dict[str, tuple[int, int]]:
    """W / conflicts of a kernel (its instructions' slot offsets) under each hypothesis its op has."""
    def total(groups_of, unit="words") -> tuple[int, int]:
        parts = [served(r, width, groups_of(r), unit) for r in rows]
        return sum(p[0] for p in parts), sum(p[1] for p in parts)

    m = re.fullmatch(r"(ld|st)matrix\.x(\d)(\.trans)?", op)
    if m:
        k = int(m[2])
        one = [list(range(8 * i, 8 * i + 8)) for i in range(k)]
        two = [list(range(16 * i, min(16 * i + 16, 8 * k))) for i in range(-(-k // 2))]
        return {"model": total(lambda r: one), "half-warp": total(lambda r: two)}
    store = op.startswith(("st.", "cp.async"))

    def model_groups(r):
        ph = fixed(width)
        return [ph[i] + ph[i + 1] for i in range(0, len(ph), 2)] if _paired(r, width, store) else ph

    def active_pairs(r):  # NVIDIA's "all active threads": partners decided among the active lanes
        active = [n for n in range(LANES) if r[n] >= 0]
        paired = not store and width >= 8 and len(active) < LANES and any(
            all(r[n ^ k] >= 0 and r[n ^ k] == r[n] for n in active) for k in (1, 2))
        ph = fixed(width)
        return [ph[i] + ph[i + 1] for i in range(0, len(ph), 2)] if paired else model_groups(r)

    out = {"model": total(model_groups)}
    if any(min(r) < 0 for r in rows) and not store and width >= 8:
        out["active-pairs"] = total(active_pairs)
    if op.startswith("cp.async"):
        out["half-warp"] = total(lambda r: fixed(width, 16))
        out["warp"] = total(lambda r: fixed(width, 32))
    elif width < WORD:
        out["bytes"] = total(model_groups, "bytes")
    out["no-broadcast"] = total(model_groups, "lanes")
    return out


# --- gen / analyze ---------------------------------------------------------------------------------


def tables(folder: Path) -> dict[str, list[list[int]]]:
    """kernel -> its instructions' 32 lane byte offsets, read from probe.cu."""
    text = (folder / "probe.cu").read_text()
    out = {}
    for k, body in re.findall(r"__device__ const int a(\d+)_offsets\[\d+\] = \{(.*?)\};", text, re.S):
        flat = [int(x) for x in body.replace("\n", " ").split(",")]
        out[f"probe_a{k}"] = [flat[i:i + LANES] for i in range(0, len(flat), LANES)]
    return out


def hypotheses_of(out: Path, todo: list[dict]) -> dict[str, dict]:
    """slug/kernel -> its op, access, prediction (W, conflicts) and every hypothesis's."""
    table = {}
    for c in todo:
        folder = out / c["slug"]
        if not (folder / "prediction.json").is_file():
            continue
        offsets = tables(folder)
        for k in json.loads((folder / "prediction.json").read_text())["kernels"]:
            h = kernel_hypotheses(k["op"], k["lane_bytes"], offsets[k["kernel"]])
            table[f"{c['slug']}/{k['kernel']}"] = {
                "case": c["name"], "kernel": k["kernel"], "access": k["access"], "op": k["op"],
                "predicted": [k["wavefronts"], k["bank_conflicts"]],
                "hypotheses": {name: list(v) for name, v in h.items()}}
    return table


def differing(k: dict) -> list[str]:
    """The hypotheses of a kernel that predict other counts than the model."""
    return [h for h, v in k["hypotheses"].items() if v != k["hypotheses"]["model"]]


def gen(out: Path) -> int:
    out.mkdir(parents=True, exist_ok=True)
    if any(out.iterdir()):
        sys.exit(f"gpu_discriminate gen: {out} is not empty: give a new or empty folder")
    todo = cases(out / "inputs")
    code = gpu_probe.write_cases(out, todo, "bench/gpu_discriminate.py")
    table = hypotheses_of(out, todo)
    (out / "hypotheses.json").write_text(json.dumps({"kernels": table}, indent=1) + "\n")
    text = plan_text(table)
    (out / "README.md").write_text("# The next device run's probes (bench/gpu_discriminate.py)\n\n" + text)
    print(text, end="")
    return code


def plan_text(table: dict) -> str:
    """Every kernel's prediction and, where they differ from it, the other hypotheses' (W/conflicts)."""
    lines = ["| kernel | access | model (prediction.json) | other hypotheses (W/conflicts) |", "|---|---|---|---|"]
    for key, k in table.items():
        others = ", ".join(f"{h} {'/'.join(map(str, k['hypotheses'][h]))}" for h in differing(k)) or "(the same)"
        lines.append(f"| {key} | {k['access'][:44]} | {'/'.join(map(str, k['predicted']))} | {others} |")
    n = sum(1 for k in table.values() if differing(k))
    return "\n".join(lines) + f"\n\n{n} of {len(table)} kernels have a hypothesis that predicts otherwise.\n"


def measured(results: Path) -> dict[str, tuple[float, float]]:
    """slug/kernel -> (W, conflicts) as ncu printed them: each probe's raw ncu.csv (kept by gpu_probe run
    in RESULTS/<slug>/) read through probe-compare's own parser, its first compared group."""
    sys.path.insert(0, str(ROOT))
    from swizzle_solver.probe.compare import read_ncu

    out = {}
    for folder in sorted(p for p in results.iterdir() if (p / "ncu.csv").is_file()):
        got = read_ncu((folder / "ncu.csv").read_text())
        predicted = json.loads((folder / "prediction.json").read_text())["kernels"]
        for k in predicted:
            group = next((g for g in k["compare"] if all(m in got.get(k["kernel"], {}) for m in g)), None)
            if group:
                values = [got[k["kernel"]][m] for m in group]
                out[f"{folder.name}/{k['kernel']}"] = (values[0], values[1])
    return out


def analyze(out: Path, results: Path) -> int:
    table = json.loads((out / "hypotheses.json").read_text())["kernels"]
    got = measured(results)
    names = sorted({h for k in table.values() for h in k["hypotheses"]}, key=lambda h: (h != "model", h))
    lines = ["| kernel | access | measured | " + " | ".join(names) + " |", "|" + "---|" * (len(names) + 3)]
    hits: Counter = Counter()
    seen: Counter = Counter()
    for key, k in table.items():
        if key not in got:
            lines.append(f"| {key} | {k['access'][:40]} | not measured |" + " |" * len(names))
            continue
        w, c = got[key]
        cells = []
        for h in names:
            v = k["hypotheses"].get(h)
            seen[h] += v is not None
            ok = v is not None and v[0] == w and v[1] == c
            hits[h] += ok
            cells.append("" if v is None else f"{v[0]}/{v[1]}" + (" =" if ok else ""))
        lines.append(f"| {key} | {k['access'][:40]} | {w:g}/{c:g} | " + " | ".join(cells) + " |")
    lines += ["", "Kernels each hypothesis predicts exactly (of those it has a prediction for):", ""]
    lines += [f"- {h}: {hits[h]} of {seen[h]}" for h in names]
    print("\n".join(lines))
    return 0 if hits["model"] == seen["model"] else 1


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
