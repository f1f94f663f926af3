"""Run each `--emit cute-dsl` snippet in the CuTe DSL (nvidia-cutlass-dsl) on the CPU, at trace time.

Usage: python run_cute_dsl.py IN.json OUT.json, IN = {case: {"snippet", "rows", "cols"}},
OUT = {case: {"offsets": [...]} or {"error": "..."}}. Run in its own process by test_cute_dsl.py.

Placement, as the snippet says: its `import` lines and any `def` at module level, its other lines
inside `@cute.jit` functions, which read `smem_offset(r, c)` (a fallback function) or
`smem_layout((r, c))` (a CuTe layout) for every element twice:
- `trace()`, with `cutlass.range_constexpr` loops: static coordinates, CuTe evaluates while tracing;
- `run()`, with `cutlass.range` loops: dynamic Int32 coordinates, compiled by the DSL's host JIT and
  run on the CPU, printing each offset with `cute.printf` (captured from file descriptor 1).
"""
import ctypes
import importlib.util
import json
import os
import sys
import tempfile
import traceback
from pathlib import Path


def split(snippet: str) -> tuple[list[str], list[str]]:
    """(module-level lines, jit-body lines) of the snippet's code."""
    module, body, in_def = [], [], False
    for line in snippet.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if line.startswith(("def ", "class ")):
            in_def = True
        elif not line.startswith((" ", "\t")):
            in_def = False
        (module if in_def or line.startswith(("import ", "from ")) else body).append(line)
    return module, body


def program(snippet: str, rows: int, cols: int) -> str:
    module, body = split(snippet)
    if any(line.startswith("def smem_offset") for line in module):
        read = "smem_offset(r, c)"
    elif any(line.lstrip().startswith("smem_layout") for line in body):
        read = "smem_layout((r, c))"
    else:
        raise ValueError("the snippet defines neither smem_offset(r, c) nor smem_layout")
    return "\n".join(
        [
            *module,
            "import cutlass",
            "import cutlass.cute as cute",
            "OUT = []",
            "@cute.jit",
            "def trace():",
            *("    " + line for line in body),
            f"    for r in cutlass.range_constexpr({rows}):",
            f"        for c in cutlass.range_constexpr({cols}):",
            f"            OUT.append(int({read}))",
            "@cute.jit",
            "def run():",
            *("    " + line for line in body),
            f"    for r in cutlass.range({rows}):",
            f"        for c in cutlass.range({cols}):",
            f'            cute.printf("%d", {read})',
            "",
        ]
    )


def printed(function) -> str:
    """What `function()` writes to file descriptor 1 (native printf included)."""
    libc = ctypes.CDLL(None)
    sys.stdout.flush()
    saved = os.dup(1)
    with tempfile.TemporaryFile() as out:
        os.dup2(out.fileno(), 1)
        try:
            function()
        finally:
            libc.fflush(None)
            os.dup2(saved, 1)
            os.close(saved)
        out.seek(0)
        return out.read().decode()


def main(src: str, dst: str) -> None:
    cases = json.load(open(src))
    results = {}
    for case, spec in cases.items():
        try:
            path = Path(f"{case}_cute_dsl.py")  # a file: the DSL reads the jit function's source
            path.write_text(program(spec["snippet"], spec["rows"], spec["cols"]))
            spec_ = importlib.util.spec_from_file_location(path.stem, path.resolve())
            module = importlib.util.module_from_spec(spec_)
            spec_.loader.exec_module(module)
            module.trace()
            results[case] = {"offsets": module.OUT, "run": [int(n) for n in printed(module.run).split()]}
        except Exception:  # the case's own failure, reported by its test
            results[case] = {"error": traceback.format_exc()[-3000:]}
    json.dump(results, open(dst, "w"))


if __name__ == "__main__":
    main(*sys.argv[1:])
