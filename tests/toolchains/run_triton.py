"""Check each `--emit triton` snippet with Triton's own parser and linear layouts (Triton 3.9, CPU).

Usage: python run_triton.py IN.json OUT.json, IN = {case: {"snippet", "rows", "cols", "elem_bytes"}},
OUT = {case: {"layouts": [{"name", "kind", "offsets", "alignment"}], "attributes": [...]} or
{"error": "..."}}. Run in its own process by test_triton.py (Triton aborts the process, LLVM ERROR,
when asked for the linear layout of a padded encoding, so this script never asks).

- The snippet's code runs as Python: every Gluon shared layout object it builds is kept.
- Every `#ttg....` attribute its comments print is the encoding of a `ttg.local_alloc` memdesc of the
  tile's shape in a module that `ir.parse_mlir_module` parses and `verify` accepts; the layout read
  back (`get_gluon_layout_from_memdesc`) is reported, for the test to find among the objects.
- Each object's offsets: Triton's C++ `to_linear_layout` (offset bit -> [row, col]), inverted over the
  tile; for a `PaddedSharedLayout` (no linear layout in Triton) its own offset bases, inverted, plus
  the padding rule of its docstring (after every `interval` elements, `padding` more; summed).
- Each object is the shared layout of a Gluon kernel that stores the tile to shared memory and loads
  it back, compiled by `triton.compile` for sm_90 down to a cubin (no GPU needed); the shared
  encodings of its TTGIR are reported, for the test to find the snippet's attribute text among them.
"""
import dataclasses
import json
import os
import re
import sys
import traceback
from pathlib import Path

MLIR_TYPE = {1: "i8", 2: "f16", 4: "f32"}
POINTER_TYPE = {1: "*i8", 2: "*fp16", 4: "*fp32"}


def roundtrip_kernel():
    from triton.experimental import gluon
    from triton.experimental.gluon import language as ttgl

    @gluon.jit
    def roundtrip(x_ptr, ROWS: ttgl.constexpr, COLS: ttgl.constexpr, SMEM: ttgl.constexpr):
        blocked: ttgl.constexpr = ttgl.BlockedLayout([1, 1], [1, 32], [4, 1], [1, 0])
        rows = ttgl.arange(0, ROWS, layout=ttgl.SliceLayout(1, blocked))
        cols = ttgl.arange(0, COLS, layout=ttgl.SliceLayout(0, blocked))
        offsets = rows[:, None] * COLS + cols[None, :]
        tile = ttgl.load(x_ptr + offsets)
        smem = ttgl.allocate_shared_memory(tile.dtype, [ROWS, COLS], SMEM, tile)
        ttgl.store(x_ptr + offsets, smem.load(blocked))

    return roundtrip


def compile_for_sm90(kernel, layout, rows: int, cols: int, elem_bytes: int) -> list[str]:
    """Compile the round trip through `layout` for sm_90 to a cubin; the TTGIR's shared encodings."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource

    signature = {"x_ptr": POINTER_TYPE[elem_bytes], "ROWS": "constexpr", "COLS": "constexpr", "SMEM": "constexpr"}
    source = GluonASTSource(kernel, signature=signature, constexprs={"ROWS": rows, "COLS": cols, "SMEM": layout})
    compiled = triton.compile(source, target=GPUTarget("cuda", 90, 32))
    assert compiled.asm.get("cubin"), "no cubin"
    return re.findall(r"^#shared\d* = (#ttg\.\w+<.*>)\s*$", compiled.asm["ttgir"], re.M)


def module_text(attribute: str, rows: int, cols: int, elem_bytes: int) -> str:
    return f"""#shared = {attribute}
#smem = #ttg.shared_memory
module attributes {{"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:90"}} {{
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
    kernel = roundtrip_kernel()
    cases = json.load(open(src))
    results = {}
    for case, spec in cases.items():
        rows, cols, snippet = spec["rows"], spec["cols"], spec["snippet"]
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
                    ttgir = compile_for_sm90(kernel, obj, rows, cols, spec["elem_bytes"])
                except Exception as error:  # reported by the test with the layout's name
                    ttgir = f"{type(error).__name__}: {error}"[-3000:]
                layouts.append({"name": name, "repr": repr(obj), "offsets": offsets, "alignment": alignment, "ttgir": ttgir})
            attributes = []
            for attribute in re.findall(r"^\s*#.*?(#ttg\.\w+<.*>)\s*$", snippet, re.M):
                path = Path(f"{case}-{len(attributes)}.mlir")
                path.write_text(module_text(attribute, rows, cols, spec["elem_bytes"]))
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
