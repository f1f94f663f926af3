"""Check each `--emit triton` snippet with Triton's own parser and linear layouts (Triton 3.9, CPU).

Usage: python run_triton.py IN.json OUT.json, IN = {case: {"snippet", "rows", "cols", "elem_bytes",
"arch", "wave"}} (arch: "nvidia" or an AMD --arch, whose backend the snippet is for),
OUT = {case: {"layouts": [{"name", "kind", "offsets", "alignment"}], "attributes": [...]} or
{"error": "..."}}. Run in its own process by test_triton.py (Triton aborts the process, LLVM ERROR,
when asked for the linear layout of a padded encoding, so this script never asks).

- The snippet's code runs as Python: every Gluon shared layout object it builds is kept.
- Every `#ttg....` attribute its comments print is the encoding of a `ttg.local_alloc` memdesc of the
  tile's shape in a module (of the arch's target: cuda:90, or hip:gfx942 with 64-lane waves, ...)
  that `ir.parse_mlir_module` parses and `verify` accepts; the layout read
  back (`get_gluon_layout_from_memdesc`) is reported, for the test to find among the objects.
- Each object's offsets: Triton's C++ `to_linear_layout` (offset bit -> [row, col]), inverted over the
  tile; for a `PaddedSharedLayout` (no linear layout in Triton) its own offset bases, inverted, plus
  the padding rule of its docstring (after every `interval` elements, `padding` more; summed).
- Each object is the shared layout of a Gluon kernel that stores the tile to shared memory and loads
  it back, compiled by `triton.compile` for the arch (sm_90 down to a cubin; an AMD arch by Triton's
  AMD backend down to an hsaco code object; no GPU needed); the shared encodings of its TTGIR are
  reported, for the test to find the snippet's attribute text among them.
- On an AMD case with an MFMA operand read (IN's "mfma": [M, K], the A operand of MxMxK, 16-byte
  K-contiguous lanes), each object is also the shared layout of a kernel that writes the tile to LDS
  and loads it as that operand (Triton's MFMA dot-operand layout, kWidth 16 B), compiled for the
  arch; the LDS instructions of its AMDGCN are reported ("ds_ops"): Triton's own code generator
  reading the tile the way the problem describes (ds_read_b128 only when the layout keeps every
  lane's 16 bytes whole and aligned).
"""
import dataclasses
import json
import os
import re
import sys
import traceback
from pathlib import Path

MLIR_TYPE = {1: "i8", 2: "f16", 4: "f32", 8: "f64"}
POINTER_TYPE = {1: "*i8", 2: "*fp16", 4: "*fp32", 8: "*fp64"}


def roundtrip_kernel():
    from triton.experimental import gluon
    from triton.experimental.gluon import language as ttgl

    @gluon.jit
    def roundtrip(x_ptr, ROWS: ttgl.constexpr, COLS: ttgl.constexpr, SMEM: ttgl.constexpr, WAVE: ttgl.constexpr):
        blocked: ttgl.constexpr = ttgl.BlockedLayout([1, 1], [WAVE // 32, 32], [4, 1], [1, 0])
        rows = ttgl.arange(0, ROWS, layout=ttgl.SliceLayout(1, blocked))
        cols = ttgl.arange(0, COLS, layout=ttgl.SliceLayout(0, blocked))
        offsets = rows[:, None] * COLS + cols[None, :]
        tile = ttgl.load(x_ptr + offsets)
        smem = ttgl.allocate_shared_memory(tile.dtype, [ROWS, COLS], SMEM, tile)
        ttgl.store(x_ptr + offsets, smem.load(blocked))

    return roundtrip


AMD_TARGETS = {"rdna3": "gfx1100", "rdna4": "gfx1201"}  # an --arch that is not a gfx name -> Triton's arch


def operand_kernel():
    from triton.experimental import gluon
    from triton.experimental.gluon import language as ttgl

    @gluon.jit
    def operand(x_ptr, y_ptr, ROWS: ttgl.constexpr, COLS: ttgl.constexpr, SMEM: ttgl.constexpr,
                LOAD: ttgl.constexpr, DOT: ttgl.constexpr):
        rows = ttgl.arange(0, ROWS, layout=ttgl.SliceLayout(1, LOAD))
        cols = ttgl.arange(0, COLS, layout=ttgl.SliceLayout(0, LOAD))
        tile = ttgl.load(x_ptr + rows[:, None] * COLS + cols[None, :])
        smem = ttgl.allocate_shared_memory(tile.dtype, [ROWS, COLS], SMEM, tile)
        a = smem.load(DOT)  # the MFMA A operand, read from LDS by Triton's own lowering
        rd = ttgl.arange(0, ROWS, layout=ttgl.SliceLayout(1, DOT))
        cd = ttgl.arange(0, COLS, layout=ttgl.SliceLayout(0, DOT))
        ttgl.store(y_ptr + rd[:, None] * COLS + cd[None, :], a)

    return operand


MFMA_VERSION = {"gfx90a": 2, "gfx942": 3, "gfx950": 4}


def operand_ds_ops(kernel, layout, rows: int, cols: int, elem_bytes: int, target: tuple, mfma: list[int]) -> list[str]:
    """The LDS instructions of the tile written row-major (16 B per lane) and read as the MFMA A
    operand of MxMxK (gfx950's K; gfx942 has K/2 for the same kWidth, two MFMAs per read)."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon import language as ttgl
    from triton.experimental.gluon._runtime import GluonASTSource

    (m, k), (_, arch, wave) = mfma, target
    width = 16 // elem_bytes  # elements per 16-byte lane
    lanes_per_row = min(wave, cols // width)
    load = ttgl.BlockedLayout([1, width], [wave // lanes_per_row, lanes_per_row], [4, 1], [1, 0])
    instr_k = k if arch == "gfx950" else k // 2
    mfma_layout = ttgl.amd.AMDMFMALayout(version=MFMA_VERSION[arch], instr_shape=[m, m, instr_k], transposed=True,
                                         warps_per_cta=[4, 1])
    dot = ttgl.DotOperandLayout(operand_index=0, parent=mfma_layout, k_width=width)
    signature = {"x_ptr": POINTER_TYPE[elem_bytes], "y_ptr": POINTER_TYPE[elem_bytes], "ROWS": "constexpr",
                 "COLS": "constexpr", "SMEM": "constexpr", "LOAD": "constexpr", "DOT": "constexpr"}
    constexprs = {"ROWS": rows, "COLS": cols, "SMEM": layout, "LOAD": load, "DOT": dot}
    compiled = triton.compile(GluonASTSource(kernel, signature=signature, constexprs=constexprs), target=GPUTarget(*target))
    return sorted(set(re.findall(r"\bds_(?:read|write)\w*", compiled.asm["amdgcn"])))


def target_of(arch: str, wave: int) -> tuple[str, str | int, int]:
    """(backend, arch, wave) of Triton's GPUTarget for the case's --arch: sm_90 for nvidia."""
    return ("cuda", 90, 32) if arch == "nvidia" else ("hip", AMD_TARGETS.get(arch, arch), wave)


def compile_for(kernel, layout, rows: int, cols: int, elem_bytes: int, target: tuple) -> list[str]:
    """Compile the round trip through `layout` for the target down to its binary (a cubin, or an AMD
    hsaco); the TTGIR's shared encodings."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource

    signature = {"x_ptr": POINTER_TYPE[elem_bytes], "ROWS": "constexpr", "COLS": "constexpr", "SMEM": "constexpr",
                 "WAVE": "constexpr"}
    constexprs = {"ROWS": rows, "COLS": cols, "SMEM": layout, "WAVE": target[2]}
    compiled = triton.compile(GluonASTSource(kernel, signature=signature, constexprs=constexprs), target=GPUTarget(*target))
    binary = "cubin" if target[0] == "cuda" else "hsaco"
    assert compiled.asm.get(binary), f"no {binary}"
    return re.findall(r"^#shared\d* = (#ttg\.\w+<.*>)\s*$", compiled.asm["ttgir"], re.M)


def module_text(attribute: str, rows: int, cols: int, elem_bytes: int, target: tuple) -> str:
    backend, arch, wave = target
    name = f"{backend}:{arch}"
    return f"""#shared = {attribute}
#smem = #ttg.shared_memory
module attributes {{"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = {wave} : i32, ttg.target = "{name}"}} {{
  tt.func public @tile() {{
    %0 = ttg.local_alloc : () -> !ttg.memdesc<{rows}x{cols}x{MLIR_TYPE[elem_bytes]}, #shared, #smem, mutable>
    tt.return
  }}
}}
"""


def invert(bases: list[list[int]], rows: int, cols: int) -> list[int]:
    """Offset bit i -> [row, col] bases, inverted: the offset of every (r, c), row-major."""
    at = {}
    for offset in range(1 << len(bases)):
        r = c = 0
        for bit, (br, bc) in enumerate(bases):
            if offset >> bit & 1:
                r, c = r ^ br, c ^ bc
        at[(r, c)] = offset
    return [at.get((r, c), -1) for r in range(rows) for c in range(cols)]


def padded(linear: int, pairs: list[list[int]]) -> int:
    return linear + sum((linear // interval) * padding for interval, padding in pairs)


def canonical(layout) -> tuple:
    """A Gluon layout's class and fields, tuples read as lists (Triton reads `[32:+1]` back as
    `[(32, 1)]` where the snippet builds `[[32, 1]]`; the layouts are the same)."""
    def plain(value):
        return [plain(v) for v in value] if isinstance(value, (list, tuple)) else value

    return type(layout).__name__, {f.name: plain(getattr(layout, f.name)) for f in dataclasses.fields(layout)}


def main(src: str, dst: str) -> None:
    os.environ["TRITON_CACHE_DIR"] = str(Path("triton-cache").resolve())  # compile anew, in the test's directory
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")  # Triton 3.9 warns when it is unset
    from triton._C.libtriton import gluon_ir, ir
    from triton.experimental.gluon.language._layouts import PaddedSharedLayout, SharedLayout

    context = ir.context()
    ir.load_dialects(context)
    builder = gluon_ir.GluonOpBuilder(context)
    kernel, operand = roundtrip_kernel(), operand_kernel()
    cases = json.load(open(src))
    results = {}
    for case, spec in cases.items():
        rows, cols, snippet = spec["rows"], spec["cols"], spec["snippet"]
        target = target_of(spec.get("arch", "nvidia"), spec.get("wave", 32))
        try:
            space: dict = {}
            exec(compile(snippet, f"<{case} triton>", "exec"), space)
            layouts = []
            for name, obj in space.items():
                if not isinstance(obj, SharedLayout):
                    continue
                if isinstance(obj, PaddedSharedLayout):
                    linear = invert(obj.offset_bases, rows, cols)
                    offsets = [padded(o, obj.interval_padding_pairs) for o in linear]
                    alignment = None
                else:
                    ll = builder.to_linear_layout(obj._to_ir(builder), [rows, cols])
                    offsets, alignment = invert(ll.offset_bases, rows, cols), ll.alignment
                try:
                    ttgir = compile_for(kernel, obj, rows, cols, spec["elem_bytes"], target)
                except Exception as error:  # reported by the test with the layout's name
                    ttgir = f"{type(error).__name__}: {error}"[-3000:]
                ds_ops = None
                if spec.get("mfma"):
                    try:
                        ds_ops = operand_ds_ops(operand, obj, rows, cols, spec["elem_bytes"], target, spec["mfma"])
                    except Exception as error:  # reported by the test with the layout's name
                        ds_ops = f"{type(error).__name__}: {error}"[-3000:]
                layouts.append({"name": name, "repr": repr(obj), "offsets": offsets, "alignment": alignment, "ttgir": ttgir,
                                "ds_ops": ds_ops})
            attributes = []
            for attribute in re.findall(r"^\s*#.*?(#ttg\.\w+<.*>)\s*$", snippet, re.M):
                path = Path(f"{case}-{len(attributes)}.mlir")
                path.write_text(module_text(attribute, rows, cols, spec["elem_bytes"], target))
                module = ir.parse_mlir_module(str(path), context)
                module.context = context
                allocs = []
                module.walk(lambda op: allocs.append(op.get_result(0)) if op.get_name() == "ttg.local_alloc" else None)
                back = builder.get_gluon_layout_from_memdesc(allocs[0])
                twins = [layout["name"] for layout in layouts if canonical(space[layout["name"]]) == canonical(back)]
                attributes.append({"text": attribute, "verified": bool(module.verify()), "read_back": repr(back), "twins": twins})
            results[case] = {"layouts": layouts, "attributes": attributes}
        except Exception:  # the case's own failure, reported by its test
            results[case] = {"error": traceback.format_exc()[-3000:]}
    json.dump(results, open(dst, "w"))


if __name__ == "__main__":
    main(*sys.argv[1:])
