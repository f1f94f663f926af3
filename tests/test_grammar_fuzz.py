"""Issue 39 item 8: a grammar fuzz tier over every input form, 10,000 cases (``-m fuzz``).

Each case is drawn from a grammar of one input form, then (often) mutated character by character
(control characters, Unicode digits and separators, brackets, a span deleted, duplicated or cut):

- ``options``: the solve's CLI options (tile, pitch, dtype, arch, order, banks, vectors, --for,
  --emit, outputs, caps, --svg, --show) and every access form (blocks, row/col, warp, ldmatrix,
  stmatrix, mma, mfma, instruction forms, cp.async);
- ``phases``: ``--phases`` files ([[pattern]] and [[instruction]], TOML and JSON);
- ``linear``: ``--linear-layout`` files, with ``--vectors auto`` or not;
- ``check``: every ``--check`` notation (names, recipes, ``expr:``, ``bytes:``, ``cute:``,
  ``triton:`` in TTGIR and Gluon, ``table:`` CSV / JSON / .npy files);
- ``batch``: batch files of cases that use all of the above;
- ``probe``: ``probe-compare`` on a real probe folder whose prediction.json and ncu.csv are mutated.
- ``forms``, ``forms_batch``: the forms merged on 2026-11-28, in the solve and in batch files: ``index:``/
  ``offset:`` accesses, CuTe copy and MMA atoms, ``make_tiled_copy``/``make_tiled_mma``, ``-D`` and
  ``define = {}``, ``tilelang:``, ``tk:``, staged, printed, DSL and Mojo ``cute:`` layouts, Triton 3.0,
  Gluon and ``#ttg.partitioned_shared``, vector dtypes, gfx1250's ``:wN``, ``mma-c:m16n8vB``, gfx950's
  f8f6f4 MFMAs, ``--html`` (their own generators: the other forms' seeded draws are unchanged).

Every case runs through ``cli.main`` in this process (as the fuzz tier of test_robustness.py does)
and is counted as a **traceback** (an exception out of ``main``, "Traceback" on stderr, an exit code
other than 0/1/2, exit 2 without exactly one stderr line or with output, ``--json`` output that is
not strict JSON), a **slow** run (over 10 s) or a **memory** breach (the process's peak RSS over
1 GiB). All three must be zero. The cases are drawn from a fixed seed per chunk: a failure names
the chunk and the argv, and reruns the same.
"""
from __future__ import annotations

import contextlib
import io
import json
import random
import resource
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

SLOW_SECONDS = 10
MEMORY_BYTES = 1 << 30
CHUNK = 100
COUNTS = {"options": 2400, "phases": 900, "linear": 700, "check": 3400, "batch": 1400, "probe": 1200,
          "forms": 600, "forms_batch": 200}  # (the last two: the forms merged on 2026-11-28)

# --- mutation ----------------------------------------------------------------------------------

ODD = (["\x00", "\x01", "\t", "\n", "\r", "\x0b", "\x0c", "\x1b", "\x1c", "\x1f", "\x7f", "\x85", "\u2028",
        "\u2029", "\ufeff", "\u200b", "١", "٦", "１", "６", "²", "Ⅻ", "é", "\U0001f600", "\udc80"] +
       list("<>{}[]()_,;:=+-*/%^&|~!?#'\"\\ .0123456789xXeE") + ["0x", "1e9", "-1", "999999999999", "nan"])


def mutate(text: str, rng: random.Random, rate: float = 0.35) -> str:
    """``text`` unchanged, or with one to three edits: an odd character inserted or put in place of
    one, a span deleted or duplicated, the text cut short."""
    if rng.random() > rate or not text:
        return text
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(text) + 1)
        edit = rng.randrange(5)
        if edit == 0:
            text = text[:i] + rng.choice(ODD) + text[i:]
        elif edit == 1 and text:
            text = text[:i] + rng.choice(ODD) + text[i + 1:]
        elif edit == 2:
            text = text[:i] + text[i + rng.randint(1, 6):]
        elif edit == 3:
            j = min(len(text), i + rng.randint(1, 12))
            text = text[:j] + text[i:j] * rng.randint(1, 3) + text[j:]
        else:
            text = text[:i]
    return text


def write(path: Path, text: str) -> None:
    """``text`` into ``path`` as UTF-8, a lone surrogate as the invalid byte it stands for."""
    path.write_bytes(text.encode("utf-8", "surrogateescape"))


def arg(text: str) -> str:
    """What an operating system can pass as an argument: no NUL, no lone surrogate."""
    return text.replace("\x00", "0").encode("utf-8", "replace").decode("utf-8")


# --- the grammars --------------------------------------------------------------------------------

DTYPES = ["f16", "bf16", "f32", "tf32", "u8", "i8", "e4m3", "f64", "i16", "fp4", "e2m1"]
ARCHS = ["nvidia", "sm80", "sm90", "sm100", "sm120", "gfx942", "gfx950", "rdna4"]
TARGETS = ["cute", "cute-dsl", "cuda", "hip", "triton", "mojo", "tma", "all"]


def size(rng: random.Random) -> int:
    return rng.choice([8, 16, 16, 32, 32, 32, 64, 64, 64, 128]) if rng.random() < 0.9 else \
        rng.choice([rng.randint(-2, 130), 4096, 1024, 24, 48])


COMMON = ["8x8", "8x4", "4x8", "row", "col", "8x1", "1x8", "ldmatrix.x4", "ldmatrix.x2.trans", "warp:4x8:1x8",
          "warp:8x4:1x4", "mma-c:m16n8", "2x16", "4x4:2", "stmatrix.x4", "8x2v4"]


def access(rng: random.Random) -> str:
    if rng.random() < 0.6:
        return mutate(rng.choice(COMMON), rng, 0.05)
    n = lambda: rng.choice([1, 2, 2, 4, 4, 8, 8, 16]) if rng.random() < 0.95 else rng.randint(0, 40)  # noqa: E731
    forms = [
        lambda: f"{n()}x{n()}", lambda: f"{n()}x{n()}:{n()}", lambda: f"{n()}x{n()}v{rng.choice([1, 2, 4, 8, 16, 3])}",
        lambda: rng.choice(["row", "col", "row v8", "colv4"]),
        lambda: f"warp:{rng.choice(['4x8', '8x4', '32x1', '1x32', '2x16', '3x9'])}:{n()}x{n()}",
        lambda: f"{rng.choice(['ldmatrix', 'stmatrix'])}.x{rng.choice([1, 2, 4, 3])}{rng.choice(['', '.trans'])}",
        lambda: rng.choice(["mma-c:m16n8", "mma-c", "mma-a:m16n8k16", "mma-b:m16n8k8:k", "mma-a:m16n8k8:mn",
                            "mma-a:m16n8k32", "mma-b:m16n8k16:mn"]),
        lambda: rng.choice(["mfma-a:32x32x8", "mfma-b:16x16x16", "mfma-a:16x16x32", "mfma-a:32x32x16"]),
        lambda: f"{rng.choice(['lds128', 'lds64', 'sts128', 'sts64', 'lds32', 'ds_read_b128', 'ds_write_b64', 'ds_read_b32', 'ds_read2_b64', 'ds_read_u16', 'ds_read_b64_tr_b16'])}:{rng.choice(['8x4', '4x8', '32x1', '64x1', '8x8', '16x4'])}{rng.choice(['', ':2x4', ':down'])}",
        lambda: rng.choice(["cp.async", "cp.async:16", "tma", "wgmma"]),
    ]
    return mutate(rng.choice(forms)(), rng, 0.08)


def layout_name(rng: random.Random) -> str:
    i = lambda: rng.choice([0, 1, 2, 3, 4, rng.randint(-3, 40)])  # noqa: E731
    forms = [
        lambda: f"Swizzle<{i()},{i()},{i()}>", lambda: f"{i()},{i()},{i()}", lambda: "none",
        lambda: f"XorCols<{i()},{i()},{i()}>", lambda: f"pitch {rng.choice([8, 9, 17, 36, 72, 0])}",
        lambda: f"pitch {rng.choice([9, 36, 72])} + Swizzle<{i()},{i()},{i()}>",
        lambda: f"Linear[b{i()}^=b{i()}, b{i()}^=b{i()}]", lambda: f"RowInterleave<T={i()},k={i()}>",
        lambda: f"Swizzle<{i()},{i()},{i()}> then Swizzle<{i()},{i()},{i()}>", lambda: f"Panels<{rng.choice([32, 64, 128, 7])}B>",
        lambda: rng.choice(["128B", "64B", "32B", "SW128", "interleave", "bytes:Swizzle<3,4,3>"]),
    ]
    return rng.choice(forms)()


def expression(rng: random.Random, depth: int = 0) -> str:
    if depth > 5 or rng.random() < 0.3:
        return rng.choice(["r", "c", "r", "c", str(rng.choice([0, 1, 2, 3, 7, 8, 16, 64, 1 << 20, 10**20])),
                           hex(rng.randint(0, 255))])
    op = rng.choice(["+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "un", "paren"])
    if op == "un":
        return f"~{expression(rng, depth + 1)}" if rng.random() < 0.5 else f"-{expression(rng, depth + 1)}"
    if op == "paren":
        return f"({expression(rng, depth + 1)})"
    return f"{expression(rng, depth + 1)} {op} {expression(rng, depth + 1)}"


def cute_layout(rng: random.Random, rows: int, cols: int, depth: int = 0) -> str:
    t = rng.choice(["half_t", "float", "int8_t", "tfloat32_t", "bfloat16_t", "double", "uint4"])
    plain = f"Layout<Shape<_{rows},_{cols}>,Stride<_{cols},_1>>{{}}"
    forms = [
        lambda: plain, lambda: f"Layout<Shape<_{rows},_{cols}>,Stride<_1,_{rows}>>{{}}",
        lambda: f"Layout<Shape<Shape<_2,_{max(1, rows // 2)}>,_{cols}>,Stride<Stride<_{cols},_{2 * cols}>,_1>>{{}}",
        lambda: f"composition(Swizzle<{rng.randint(0, 4)},{rng.randint(0, 5)},{rng.randint(0, 6)}>{{}}, "
                f"{cute_layout(rng, rows, cols, depth + 1) if depth < 3 else plain})",
        lambda: f"tile_to_shape(GMMA::Layout_{rng.choice(['K', 'MN'])}_{rng.choice(['SW128', 'SW64', 'SW32', 'INTER'])}"
                f"_Atom<{t}>{{}}, Shape<_{rows},_{cols}>{{}}{rng.choice(['', ', Step<_2,_1>{}'])})",
        lambda: f"make_composed_layout(Swizzle<3,3,3>{{}}, _0{{}}, {plain})",
        lambda: f"Layout<Shape<Int<{rows}>,C<{cols}>>,Stride<Int<{cols}>,_1>>{{}}",
    ]
    return rng.choice(forms)()


def triton_layout(rng: random.Random, rows: int, cols: int) -> str:
    p = lambda: rng.choice([1, 2, 4, 8, 16, 3, 0])  # noqa: E731
    order = rng.choice(["[1, 0]", "[0, 1]", "[1, 0, 2]", "[]"])
    forms = [
        lambda: f"#ttg.swizzled_shared<{{vec = {p()}, perPhase = {p()}, maxPhase = {p()}, order = {order}}}>",
        lambda: f"SwizzledSharedLayout({p()}, {p()}, {p()}, {order})",
        lambda: f"#ttg.nvmma_shared<{{swizzlingByteWidth = {rng.choice([0, 32, 64, 128, 256])}, transposed = "
                f"{rng.choice(['false', 'true'])}, elementBitWidth = {rng.choice([8, 16, 32, 7])}}}>",
        lambda: f"NVMMASharedLayout(swizzle_byte_width={rng.choice([32, 64, 128])}, element_bitwidth=16, rank=2)",
        lambda: f"#ttg.padded_shared<[{rng.choice([32, 64, cols])}:+{p()}] {{order = {order}, shape = [{rows}, {cols}]}}>",
        lambda: f"#ttg.shared_linear<{{offset = [{', '.join(f'[{rng.randrange(rows)}, {rng.randrange(cols)}]' for _ in range(rng.randint(0, 4)))}]}}, alignment = 16>",
    ]
    return rng.choice(forms)()


def table_file(rng: random.Random, folder: Path, rows: int, cols: int) -> str:
    """A table: file (CSV, JSON or .npy) of a permutation of the tile, a broken one, or junk."""
    n = max(1, min(rows * cols, 1 << 14))
    perm = np.random.default_rng(rng.randrange(1 << 30)).permutation(n)
    if rng.random() < 0.3:
        perm[rng.randrange(n)] = rng.choice([-1, n, n * 10, 0])
    kind = rng.choice(["csv", "json", "npy", "npy"])
    path = folder / f"t{rng.randrange(1 << 30)}.{kind}"
    shape = (rows, cols) if rows * cols == n and rng.random() < 0.8 else (n,)
    if kind == "csv":
        write(path, mutate("\n".join(",".join(map(str, r)) for r in perm.reshape(shape[0], -1).tolist()), rng, 0.2))
    elif kind == "json":
        write(path, mutate(json.dumps(perm.reshape(shape).tolist()), rng, 0.2))
    else:
        dtype = rng.choice([np.int64, np.int32, np.uint16, np.float64, np.int8])
        np.save(path, perm.reshape(shape).astype(dtype), allow_pickle=False)
        if rng.random() < 0.2:
            data = path.read_bytes()
            path.write_bytes(data[:rng.randrange(len(data))])
    return f"table:{path}"


def check(rng: random.Random, folder: Path, rows: int, cols: int) -> str:
    form = rng.randrange(6)
    if form == 0:
        text = layout_name(rng)
    elif form == 1:
        text = f"{rng.choice(['expr: ', 'bytes: ', 'expr:'])}{expression(rng)}"
    elif form == 2:
        text = f"cute: {cute_layout(rng, rows, cols)}"
    elif form == 3:
        text = f"triton: {triton_layout(rng, rows, cols)}"
    elif form == 4:
        return table_file(rng, folder, rows, cols)
    else:
        text = f"expr: r * {cols} + (c ^ ((r & {rng.choice([1, 3, 7, 15])}) << {rng.choice([0, 1, 2, 3])}))"
    return mutate(text, rng, 0.2)


def tile_args(rng: random.Random) -> tuple[list[str], int, int]:
    rows, cols = size(rng), size(rng)
    argv = ["--rows", str(rows), "--cols", str(cols)]
    if rng.random() < 0.15:
        argv += ["--row-length", str(cols + rng.choice([1, 4, 8, 16, -1]))]
    if rng.random() < 0.9:
        common = ["f16", "f16", "f16", "bf16", "f32", "f32", "u8", "tf32"]
        argv += ["--dtype", mutate(rng.choice(common if rng.random() < 0.85 else DTYPES), rng, 0.05)]
    if rng.random() < 0.15:
        argv += ["--arch", mutate(rng.choice(ARCHS), rng, 0.05)]
    if rng.random() < 0.12:
        argv += ["--order", rng.choice(["col", "col", "row", "column"])]
    return argv, rows, cols


def outputs(rng: random.Random, folder: Path, timeout: str = "2") -> list[str]:
    argv = rng.choice([[], [], ["--json"], ["--json"], ["-q"], ["-q"]] * 6 + [["--json", "-q"]])
    for extra in [] if rng.random() < 0.5 else rng.sample([["--emit", rng.choice(TARGETS)], ["--for", rng.choice(TARGETS)], ["--show-phases"],
                             ["--keep-pitch"], ["--exhaustive"], ["--banks", str(rng.choice([16, 32, 64, 7]))],
                             ["--bank-bytes", str(rng.choice([4, 8]))], ["--show"],
                             ["--svg", str(folder / "f.svg")], ["--max-placements", str(rng.choice([1, 64, 10**6]))],
                             ["--timeout", rng.choice(["0", "nan", "-1", "1e-9", "inf"])]], rng.randint(1, 2)):
        argv += extra
    return argv + ["--timeout", timeout]  # every search ends in time (the last --timeout counts)


def gen_options(rng: random.Random, folder: Path) -> list[str]:
    argv, rows, cols = tile_args(rng)
    for _ in range(rng.randint(1, 3)):
        argv += ["--access", access(rng)]
    if rng.random() < 0.15:
        argv += ["--vectors", rng.choice(["auto", "given", "none"])]
    if rng.random() < 0.3:
        argv += ["--check", check(rng, folder, rows, cols)]
    return argv + outputs(rng, folder)


def phases_text(rng: random.Random, rows: int, cols: int) -> str:
    step = 16 if cols >= 16 else 1  # (a lane's first element aligned to its width on any element size)
    lanes = lambda k, w: [[rng.randrange(max(1, rows)), step * rng.randrange(max(1, cols // step)), w]  # noqa: E731
                          for _ in range(k)]
    parts = []
    for i in range(rng.randint(1, 3)):
        if rng.random() < 0.5:
            w = rng.choice([4, 8, 16, 16, 3])
            phases = [lanes(rng.choice([1, 4, 8, 32]), w) for _ in range(rng.randint(1, 4))]
            parts.append(f'[[pattern]]\nname = "p{i}"\nphases = {json.dumps(phases)}\n')
        else:
            op = rng.choice(["lds128", "lds64", "sts128", "sts64", "lds32", "ds_read_b128", "bogus"])
            partner = rng.choice([0, 1, 2, 4])
            one = [[rng.randrange(max(1, rows)), rng.choice([0, 8]) % max(1, cols)] for _ in range(32)]
            if partner:
                one = [one[lane & ~partner] for lane in range(32)]
            parts.append(f'[[instruction]]\nname = "i{i}"\nop = "{op}"\nlanes = {json.dumps(one)}\n')
    return "\n".join(parts)


def gen_phases(rng: random.Random, folder: Path) -> list[str]:
    argv, rows, cols = tile_args(rng)
    text = phases_text(rng, rows, cols)
    path = folder / f"p{rng.randrange(1 << 30)}.{rng.choice(['toml', 'toml', 'json'])}"
    if path.suffix == ".json":
        import tomllib

        with contextlib.suppress(Exception):
            text = json.dumps(tomllib.loads(text))
    write(path, mutate(text, rng, 0.15))
    argv += ["--phases", str(path)]
    if rng.random() < 0.3:
        argv += ["--access", access(rng)]
    return argv + outputs(rng, folder, "0.5")  # (random lanes: hard searches, cut sooner)


def linear_text(rng: random.Random, rows: int, cols: int) -> str:
    """A Triton linear layout of the tile: its unit bits dealt to registers, 5 lanes and warps (a
    bijection when the tile is a power of two of at least 32 elements), sometimes XOR-mixed."""
    units = [[0, 1 << k] for k in range(max(0, cols.bit_length() - 1))] + \
            [[1 << k, 0] for k in range(max(0, rows.bit_length() - 1))]
    regs = rng.randint(0, min(3, max(0, len(units) - 5)))
    rest = units[regs:]
    rng.shuffle(rest)
    bases = units[:regs] + rest
    if rng.random() < 0.3 and len(bases) > 2:
        i, j = rng.sample(range(len(bases)), 2)
        bases[i] = [bases[i][0] ^ bases[j][0], bases[i][1] ^ bases[j][1]]
    doc = {"name": "fuzz", "register": bases[:regs], "lane": bases[regs:regs + 5], "warp": bases[regs + 5:],
           "block": [], "out_dims": {"dim0": rows, "dim1": cols}}
    if rng.random() < 0.1:
        doc.pop(rng.choice(list(doc)))
    return json.dumps(doc)


def gen_linear(rng: random.Random, folder: Path) -> list[str]:
    argv, rows, cols = tile_args(rng)
    for _ in range(rng.randint(1, 2)):
        path = folder / f"l{rng.randrange(1 << 30)}.json"
        write(path, mutate(linear_text(rng, rows, cols), rng, 0.15))
        argv += ["--linear-layout", f"{rng.choice(['', '', 'load:', 'store:', 'x:'])}{path}"]
    if rng.random() < 0.4:
        argv += ["--vectors", "auto"]
    return argv + outputs(rng, folder)


def gen_check(rng: random.Random, folder: Path) -> list[str]:
    argv, rows, cols = tile_args(rng)
    argv += ["--access", rng.choice(["8x8", "row", "ldmatrix.x4", "8x4", "col", access(rng)])]
    return argv + ["--check", arg(check(rng, folder, rows, cols))] + outputs(rng, folder)


def batch_case(rng: random.Random, folder: Path, i: int) -> str:
    rows, cols = rng.choice([16, 32, 64, 8]), rng.choice([16, 32, 64, 24])
    fields = [f'name = {json.dumps(mutate(f"case {i}", rng, 0.2))}', f"rows = {rows}", f"cols = {cols}",
              f'dtype = "{rng.choice(DTYPES)}"', f"access = {json.dumps([access(rng) for _ in range(rng.randint(1, 2))])}"]
    if rng.random() < 0.4:
        fields.append(f"check = {json.dumps(check(rng, folder, rows, cols))}")
    if rng.random() < 0.2:
        fields.append(rng.choice([f'expect_status = "{rng.choice(["conflict-free", "conflicts"])}"',
                                  f"expect = {json.dumps(layout_name(rng))}"]))
    if rng.random() < 0.15:
        path = folder / f"bp{i}.toml"
        write(path, phases_text(rng, rows, cols))
        fields.append(f'phases = ["{path.name}"]')
    if rng.random() < 0.1:
        fields.append(rng.choice(['arch = "gfx942"', 'order = "col"', "keep_pitch = true", 'for = ["cute"]',
                                  "row_length = 40", "elem_bytes = 3", 'bogus = 1']))
    return "[[case]]\n" + "\n".join(fields) + "\n"


def gen_batch(rng: random.Random, folder: Path) -> list[str]:
    text = "\n".join(batch_case(rng, folder, i) for i in range(rng.randint(1, 4)))
    path = folder / f"b{rng.randrange(1 << 30)}.toml"
    write(path, mutate(text, rng, 0.15))
    argv = ["batch", str(path)] + rng.choice([[], ["--json"], ["--json"], ["--list"], ["--case", "case 0"]])
    if rng.random() < 0.2:
        argv += ["--jobs", "1"]
    return argv + ["--timeout", "2", "--total-timeout", "6"]


# --- the forms merged on 2026-11-28 (their own generator: the other forms' seeded draws stay as they were)

ATOMS = ["SM75_U32x4_LDSM_N", "SM75_U32x2_LDSM_N", "SM75_U16x8_LDSM_T", "SM90_U32x4_STSM_N", "SM90_U16x4_STSM_T",
         "SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>", "UniversalCopy<uint128_t>", "UniversalCopy<uint32_t>",
         "cute::SM75_U32x1_LDSM_N", "SM75_U32x8_LDSM_N", "UniversalCopy<uint8_t>"]
MMA_ATOMS = ["SM80_16x8x16_F32F16F16F32_TN", "SM80_16x8x8_F32TF32TF32F32_TN", "SM80_16x8x32_S32S8S8S32_TN",
             "SM80_8x8x4_F64F64F64F64_TN", "SM89_16x8x32_F32E4M3E4M3F32_TN", "SM80_16x8x16_F16F16F16F16_TN"]


def small(rng: random.Random) -> int:
    return rng.choice([1, 2, 2, 4, 4, 8, 8, 16, 32]) if rng.random() < 0.9 else rng.choice([0, 3, 64, 1000, 10**6])


def layout_of(rng: random.Random, rows: int, cols: int) -> str:
    return rng.choice([f"Layout<Shape<_{rows},_{cols}>,Stride<_{cols},_1>>{{}}", f"Layout<Shape<_{rows},_{cols}>>{{}}",
                       f"make_layout(Shape<_{rows},_{cols}>{{}}, LayoutRight{{}})", f"({rows},{cols}):({cols},1)",
                       "Layout<Shape<_32,_1>>{}", "Layout<Shape<_1,_8>>{}"])


VALID = {  # (arch, dtype) -> forms that a 64 x 64 tile takes (the generator's cases are mostly answerable)
    ("nvidia", "f16"): ["SM75_U32x4_LDSM_N", "SM90_U32x4_STSM_N", "SM75_U16x8_LDSM_T", "Copy_Atom<SM75_U32x2_LDSM_N, half_t>",
                        "UniversalCopy<uint128_t>", "SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>", "store:UniversalCopy<uint64_t>",
                        "SM80_16x8x16_F32F16F16F32_TN:a", "SM80_16x8x16_F32F16F16F32_TN:b:mn", "SM80_16x8x16_F16F16F16F16_TN:c",
                        "make_tiled_copy(Copy_Atom<UniversalCopy<uint128_t>, half_t>{}, Layout<Shape<_32,_4>,Stride<_4,_1>>{}, "
                        "Layout<Shape<_1,_8>>{})",
                        "make_tiled_copy(Copy_Atom<SM75_U32x4_LDSM_N, half_t>{}, Layout<Shape<_8,_4>, Stride<_4,_1>>{}, "
                        "Layout<Shape<_1,_8>>{})",
                        "make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN{}, Layout<Shape<_2,_2>>{}):a",
                        "make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN{}, Layout<Shape<_2,_2>>{}):b", "ldmatrix.x4"],
    ("nvidia", "f32"): ["mma-c:m16n8v4", "mma-c:m16n8v8", "SM80_16x8x8_F32TF32TF32F32_TN:a", "UniversalCopy<uint32_t>",
                        "make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN{}, Layout<Shape<_2,_2>>{}):c", "8x8"],
    ("nvidia", "half2"): ["mma-a:m16n8k16", "mma-b:m16n8k16", "mma-c:m16n8", "8x4"],
    ("gfx1250", "f16"): ["ds_read_b128:32x1:w2", "ds_read_b128:32x1:w4", "ds_read_b64:16x4:w2", "ds_read_b128:32x1"],
    ("gfx950", "fp4"): ["mfma-a:16x16x128", "mfma-b:32x32x64", "mfma-a:32x32x64"],
    ("gfx950", "e4m3"): ["mfma-a:32x32x64", "mfma-b:32x32x64"],
}
INDEXED = [  # index:/offset: accesses of a 64 x 64 tile (cuda-samples' transpose, SGEMM's loads)
    "index: row = threadIdx.y + j, col = threadIdx.x; j in 0..64 step 8; block 32x8",
    "index: row = threadIdx.x, col = threadIdx.y + j; j in 0..TILE step ROWS; TILE = 32; ROWS = 8; block 32x8; store",
    "offset: (innerColA * 4 + j) * BM + innerRowA; innerRowA = threadIdx.x / (BK / 4); innerColA = threadIdx.x % "
    "(BK / 4); BM = 64; BK = 8; j in 0..4; block 256; store",
    "offset: tid * 4 + k; k in 0..4; block 256",
    "index: row = warp * 8 + lane / 4, col = lane % 4 * 2 + j * 8; j in 0..8; block 256; v2",
    "store:index: row = lane, col = warp; block 64",
    "offset: A * 64 + lane; A = B + warp; B = i * 2; i in 0..4; block 64",
]


def index_access(rng: random.Random) -> str:
    """An index: or offset: access: a known-good one (mutated) or a random one (mostly refused)."""
    if rng.random() < 0.7:
        return rng.choice(INDEXED)
    names = ["tid", "lane", "warp", "threadIdx.x", "threadIdx.y", "j", "k", "A", "B", "BM", "blockDim.x"]
    term = lambda: rng.choice(names + [str(small(rng))])  # noqa: E731
    ex = lambda: " ".join(f"{term()} {rng.choice('+-*/%^&|')}" for _ in range(rng.randint(0, 3))) + f" {term()}"  # noqa: E731
    clauses = [f"row = {ex()}, col = {ex()}" if rng.random() < 0.5 else ex()]
    kind = "index" if clauses[0].startswith("row") else "offset"
    for name in rng.sample(["A", "B", "BM", "k"], rng.randint(0, 3)):
        clauses.append(f"{name} = {ex() if rng.random() < 0.8 else f'{name} + 1'}")
    for name in rng.sample(["j", "k", "i"], rng.randint(0, 2)):
        step = f" step {small(rng)}" if rng.random() < 0.4 else ""
        clauses.append(f"{name} in {rng.choice([0, 0, 1, 4])}..{rng.choice([1, 2, 4, 8, 32, 0, 10**9])}{step}")
    if rng.random() < 0.6:
        clauses.append(f"block {rng.choice(['32', '64', '32x8', '256', '1024', '0', '33', '8x4x2', '1024x2'])}")
    if rng.random() < 0.3:
        clauses.append(rng.choice(["scalar", "v2", "v4", "v8", "v16", "lds128", "sts64", "ds_read_b128", "store",
                                   "load"]))
    tail = clauses[1:]
    rng.shuffle(tail)  # (clauses after the address, in any order)
    return f"{kind}: " + "; ".join(clauses[:1] + tail)


def new_access(rng: random.Random, arch: str, dtype: str) -> str:
    """A form of the (arch, dtype) (VALID, index:), sometimes of another, mutated at a low rate."""
    if arch == "nvidia" and dtype in ("f16", "f32") and rng.random() < 0.4:
        text = index_access(rng)
    elif rng.random() < 0.9:
        text = rng.choice(VALID[(arch, dtype)])
    else:
        text = rng.choice(rng.choice(list(VALID.values())) + ["SM75_U32x8_LDSM_N", "UniversalCopy<uint8_t>",
                                                               "mma-c:m16n8v3", "ds_read_b128:32x1:w1000000"])
    return mutate(text, rng, 0.12)


def new_check(rng: random.Random, rows: int, cols: int) -> str:
    stages = rng.choice([2, 3, 4, 1, 0, 65, 1000000])
    inner = f"#ttg.swizzled_shared<{{vec = {small(rng)}, perPhase = 1, maxPhase = {small(rng)}, order = [1, 0]}}>"
    forms = [
        lambda: f"tilelang: {rng.choice(['', 'T.', 'tilelang.layout.'])}make_{rng.choice(['full_bank', 'half_bank', 'quarter_bank'])}"
                f"_swizzled_layout(A_shared)",
        lambda: "tilelang: make_linear_layout(B)",
        lambda: f"tk: st_{rng.choice(['bf', 'hf', 'fl', 'fp8e4m3'])}<{rows}, {cols}{rng.choice(['', ', true', ', false', ', true, 64', ', true, 7'])}>",
        lambda: f"tk: st<{rng.choice(['bf16', 'half', 'float'])}, {rows}, {cols}>",
        lambda: f"cute: Layout<Shape<_{rows},_{cols},_{stages}>,Stride<_{cols},_1,_{rows * cols}>>{{}}",
        lambda: f"cute: tile_to_shape(composition(Swizzle<3,3,3>{{}}, Layout<Shape<_8,_64>,Stride<_64,_1>>{{}}), "
                f"Shape<_{rows},_{cols},_{stages}>{{}})",
        lambda: f"cute: Sw<{rng.randint(0, 3)},{rng.randint(0, 4)},3> o _0 o ({rows},{cols}):({cols},1)",
        lambda: f"cute: cute.make_layout(({rows}, {cols}), stride=({cols}, 1))",
        lambda: f"cute: Layout(IntTuple({rows}, {cols}), IntTuple({cols}, 1))",
        lambda: f"cute: Layout.{rng.choice(['row_major', 'col_major'])}({rows}, {cols})",
        lambda: f"triton: #ttg.partitioned_shared<{{numPartitions = {rng.choice([2, 4, 3, 0])}, numGroups = "
                f"{rng.choice([1, 2, 8])}, partitionDim = {rng.choice([0, 1, 2])}, partitionLayout = {inner}}}>",
        lambda: f"triton: #triton_gpu.shared<{{vec = {small(rng)}, perPhase = 1, maxPhase = {small(rng)}, order = [1, 0]"
                f"{rng.choice(['', ', hasLeadingOffset = true', ', hasLeadingOffset = false'])}}}>",
        lambda: f"triton: SwizzledSharedLayout(vec={small(rng)}, per_phase=1, max_phase={small(rng)}, order=[1, 0], "
                f"{rng.choice(['ctas_per_cga=[1, 1], cta_split_num=[1, 1], cta_order=[1, 0]', 'cga_layout=[]'])})",
        lambda: f"cute: composition(Swizzle<kSwizzle,3,3>{{}}, Layout<Shape<_{rows},Int<kCols>>,Stride<Int<kCols>,_1>>{{}})",
    ]
    return mutate(rng.choice(forms)(), rng, 0.2)


def defines(rng: random.Random) -> list[str]:
    """-D constants: the checks' own (kSwizzle, kCols), and at a low rate a bad one."""
    good = ["kSwizzle=3", "kCols=64", "BM=128", "A=4", "A=0x10", "kCols"]
    bad = ["B=A", "tid=0", "r=1", "k=999999999999", "kSwizzle=-1"]
    return [mutate(rng.choice(good if rng.random() < 0.9 else bad), rng, 0.05) for _ in range(rng.randint(0, 3))]


def gen_forms(rng: random.Random, folder: Path) -> list[str]:
    """The solve with today's forms: accesses, checks, -D, vector dtypes, gfx1250's waves."""
    arch, dtype = rng.choice(list(VALID))
    rows, cols = (256, 256) if arch == "gfx1250" else (64, 256) if dtype == "fp4" else (64, 64)
    argv = ["--rows", str(rows), "--cols", str(cols), "--dtype", dtype, "--arch", arch]
    for _ in range(rng.randint(1, 2)):
        argv += ["--access", new_access(rng, arch, dtype) if rng.random() < 0.9 else access(rng)]
    for d in defines(rng):
        argv += ["-D", d]
    if rng.random() < 0.6:
        argv += ["--check", arg(new_check(rng, rows, cols))]
    if rng.random() < 0.1:
        argv += ["--html", str(folder / "p.html")]
    return argv + outputs(rng, folder)


def gen_forms_batch(rng: random.Random, folder: Path) -> list[str]:
    """A batch of today's forms, with define tables (a bad one at a low rate), sometimes with --html."""
    parts = []
    for i in range(rng.randint(1, 3)):
        arch, dtype = rng.choice(list(VALID))
        rows, cols = (256, 256) if arch == "gfx1250" else (64, 256) if dtype == "fp4" else (64, 64)
        fields = [f'name = "f{i}"', f"rows = {rows}", f"cols = {cols}", f'dtype = "{dtype}"', f'arch = "{arch}"',
                  f"access = {json.dumps([new_access(rng, arch, dtype)])}"]
        if rng.random() < 0.6:
            fields.append(f"check = {json.dumps(new_check(rng, rows, cols))}")
        if rng.random() < 0.5:
            table = ["kSwizzle = 3", "kCols = 64", "A = 4"] if rng.random() < 0.9 else ["tid = 0", 'B = "A"', "C = 1.5"]
            fields.append("define = {" + ", ".join(rng.sample(table, rng.randint(1, 2))) + "}")
        parts.append("[[case]]\n" + "\n".join(fields) + "\n")
    path = folder / f"fb{rng.randrange(1 << 30)}.toml"
    write(path, mutate("\n".join(parts), rng, 0.1))
    argv = ["batch", str(path)] + rng.choice([[], ["--json"], ["--html", str(folder / "b.html")]])
    return argv + ["--timeout", "2", "--total-timeout", "6"]


_PROBE: dict[str, Path] = {}


def probe_folder(root: Path) -> Path:
    """A real probe of a small tile with a recording that agrees (made once per session)."""
    if "cuda" not in _PROBE:
        from tests.test_probe import ncu_csv, prediction

        folder = root / "probe"
        with contextlib.redirect_stdout(io.StringIO()):
            from swizzle_solver.cli import main

            assert main(["probe", "--rows", "32", "--cols", "32", "--dtype", "f16", "--access", "8x1", "--access",
                         "ldmatrix.x4", "--check", "none", "--target", "cuda", "-o", str(folder)]) == 0
        (folder / "ncu.csv").write_text(ncu_csv(prediction(folder)))
        _PROBE["cuda"] = folder
    return _PROBE["cuda"]


def gen_probe(rng: random.Random, folder: Path) -> list[str]:
    source = probe_folder(folder.parent)
    target = folder / f"pr{rng.randrange(1 << 30)}"
    shutil.copytree(source, target)
    name = rng.choice(["prediction.json", "ncu.csv", "ncu.csv", "prediction.json"])
    text = (target / name).read_text()
    if rng.random() < 0.3 and name == "prediction.json":
        doc = json.loads(text)
        key = rng.choice(list(doc))
        doc[key] = rng.choice([None, [], {}, "x", 1e308, -1, [doc[key]]])
        text = json.dumps(doc)
    write(target / name, mutate(text, rng, 0.8))
    return ["probe-compare", str(target)] + rng.choice([[], ["--json"]])


GENERATORS: dict[str, Callable[[random.Random, Path], list[str]]] = {
    "options": gen_options, "phases": gen_phases, "linear": gen_linear, "check": gen_check, "batch": gen_batch,
    "probe": gen_probe, "forms": gen_forms, "forms_batch": gen_forms_batch}

# --- running and judging -----------------------------------------------------------------------


def judge(argv: list[str], run: Callable[[], tuple[int, str, str]]) -> str | None:
    """None when the run keeps the contract, else what went wrong (traceback, slow, memory)."""
    start = time.perf_counter()
    try:
        code, out, err = run()
    except BaseException as exc:  # noqa: BLE001  (a traceback: anything out of main)
        return f"traceback: {type(exc).__name__}: {exc}"
    elapsed = time.perf_counter() - start
    if resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 > MEMORY_BYTES:
        return f"memory: peak RSS over 1 GiB after {elapsed:.1f} s"
    if elapsed > SLOW_SECONDS:
        return f"slow: {elapsed:.1f} s"
    if "Traceback" in err or code not in (0, 1, 2):
        return f"traceback: exit {code}: {err[-600:]}"
    if code == 2 and (out or len(err.splitlines()) != 1 or not err.startswith("swizzle-solve: error: ")):
        return f"traceback: exit 2 without one line: {err[-300:]!r} stdout {out[:100]!r}"
    if "--json" in argv and code in (0, 1) and out:
        try:
            json.loads(out, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
        except ValueError as bad:
            return f"traceback: --json is not strict JSON ({bad})"
    return None


def in_process(argv: list[str]) -> Callable[[], tuple[int, str, str]]:
    def run() -> tuple[int, str, str]:
        from swizzle_solver.cli import main

        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
        return code, out.getvalue(), err.getvalue()
    return run


def fuzz_chunk(form: str, chunk: int, folder: Path, cases: int = CHUNK) -> list[str]:
    rng = random.Random(f"{form}-{chunk}")
    failures = []
    for k in range(cases):
        case = folder / f"c{k}"
        case.mkdir()
        argv = [arg(a) for a in GENERATORS[form](rng, case)]
        why = judge(argv, in_process(argv))
        if why is not None:
            failures.append(f"{form} chunk {chunk} case {k}: {why}\n  argv: {argv!r}")
        shutil.rmtree(case, ignore_errors=True)
    return failures


CHUNKS = [(form, i) for form, n in COUNTS.items() for i in range(n // CHUNK)]


@pytest.fixture(autouse=True)
def _columns(monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")


@pytest.mark.fuzz
@pytest.mark.parametrize("form, chunk", CHUNKS, ids=[f"{f}-{i}" for f, i in CHUNKS])
def test_grammar_fuzz(tmp_path, form, chunk):
    failures = fuzz_chunk(form, chunk, tmp_path)
    assert not failures, "\n".join(failures[:5]) + f"\n({len(failures)} of {CHUNK} cases)"


def test_the_tier_holds_ten_thousand_cases_over_every_form():
    assert sum(COUNTS.values()) >= 10_000 and len(CHUNKS) * CHUNK >= 10_000
    assert set(COUNTS) == set(GENERATORS)


@pytest.mark.parametrize("form", sorted(COUNTS))
def test_a_few_cases_of_each_form(tmp_path, form):
    """The fast tier's instance: three cases of each form keep the contract (the judge itself is
    checked below)."""
    assert fuzz_chunk(form, 0, tmp_path, cases=3) == []


def test_the_judge_counts_what_breaks_the_contract():
    assert judge([], lambda: (0, "x", "")) is None
    assert judge([], lambda: (2, "", "swizzle-solve: error: bad\n")) is None
    assert judge([], lambda: (_ for _ in ()).throw(AssertionError("boom"))).startswith("traceback")
    assert judge([], lambda: (1, "", "Traceback (most recent call last):\n")).startswith("traceback")
    assert judge([], lambda: (2, "half", "swizzle-solve: error: bad\n")).startswith("traceback")
    assert judge([], lambda: (2, "", "one\ntwo\n")).startswith("traceback")
    assert judge(["--json"], lambda: (0, '{"a": NaN}', "")).startswith("traceback")
    assert judge([], lambda: (3, "", "")).startswith("traceback")
