"""Triton's own offsets of shared encodings, for `--check 'triton: ...'` (test_triton_notation.py).

Usage: python run_triton_notation.py IN.json OUT.json, IN = {case: {"text", "rows", "cols",
"elem_bytes"}}: an MLIR attribute (`#ttg....<...>`), or a Gluon constructor call written by the
test; OUT = {case: {"offsets": [the offset of every (r, c), row-major]} or {"error": "..."}}.

An attribute is the encoding of a `ttg.local_alloc` memdesc of the tile's shape in a module that
`ir.parse_mlir_module` parses (cuda:90, run_triton.py's module_text); the layout Triton reads back
(`get_gluon_layout_from_memdesc`) is converted by Triton's C++ `to_linear_layout`, whose offset
bases are inverted over the tile. A padded encoding (which Triton aborts on when asked for its
linear layout) is read as run_triton.py reads it: its own offset bases, inverted, plus the padding
rule of its docstring. The Gluon calls are the test's own text, run as Python here.
"""
import json
import os
import sys
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from run_triton import invert, module_text, padded  # noqa: E402


def main(src: str, dst: str) -> None:
    os.environ["TRITON_CACHE_DIR"] = str(Path("triton-cache").resolve())
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    from triton._C.libtriton import gluon_ir, ir
    from triton.experimental.gluon import language as ttgl
    from triton.experimental.gluon.language._layouts import PaddedSharedLayout

    context = ir.context()
    ir.load_dialects(context)
    builder = gluon_ir.GluonOpBuilder(context)
    results = {}
    for case, spec in json.loads(Path(src).read_text()).items():
        rows, cols, text = spec["rows"], spec["cols"], spec["text"]
        try:
            if text.startswith("#"):
                path = Path(f"{case}.mlir")
                path.write_text(module_text(text, rows, cols, spec["elem_bytes"], ("cuda", 90, 32)))
                module = ir.parse_mlir_module(str(path), context)
                module.context = context
                allocs: list = []
                module.walk(lambda op, found=allocs: found.append(op.get_result(0))
                            if op.get_name() == "ttg.local_alloc" else None)
                layout = builder.get_gluon_layout_from_memdesc(allocs[0])
            else:
                layout = eval(text, {"ttgl": ttgl, **vars(ttgl)})  # the test's own constructor call
            if isinstance(layout, PaddedSharedLayout):
                offsets = [padded(o, layout.interval_padding_pairs) for o in invert(layout.offset_bases, rows, cols)]
            else:
                offsets = invert(builder.to_linear_layout(layout._to_ir(builder), [rows, cols]).offset_bases, rows, cols)
            results[case] = {"offsets": offsets, "read": repr(layout)}
        except Exception:
            results[case] = {"error": traceback.format_exc()[-3000:]}
    Path(dst).write_text(json.dumps(results))


if __name__ == "__main__":
    main(*sys.argv[1:])
