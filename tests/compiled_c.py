"""Emitted C/CUDA functions compiled by the host's C compiler and tabulated, for the tests that hold
`--emit cuda` to the simulator: one program for all of a file's cases (one compile, not one each)."""
import shutil
import subprocess

import numpy as np
import pytest

# CUDA's qualifiers as nothing: the emitted functions are plain C underneath.
PRELUDE = ["#include <stdio.h>", "#define __host__", "#define __device__", "#define __forceinline__ inline"]


def tables(tmp_dir, functions: list[str], calls: list[tuple[str, int, int]]) -> list[np.ndarray]:
    """Compile ``functions`` (C source) and print ``name(r, c)`` for every r < rows, c < cols of each
    (name, rows, cols) in ``calls``: the tables in that order, each flattened row by row. Skips the
    test when no C compiler is installed."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler (cc/gcc) installed")
    loops = [f"  for (int r = 0; r < {rows}; ++r) for (int c = 0; c < {cols}; ++c) "
             f"printf(\"%d \", {name}(r, c));\n  printf(\"\\n\");" for name, rows, cols in calls]
    (tmp_dir / "t.c").write_text("\n".join([*PRELUDE, *functions, "int main(void) {", *loops, "  return 0;", "}"]))
    build = subprocess.run([cc, "-std=c99", "-Wall", "-Werror", "-o", str(tmp_dir / "t"), str(tmp_dir / "t.c")],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    out = subprocess.run([str(tmp_dir / "t")], capture_output=True, text=True, check=True).stdout.splitlines()
    return [np.array(line.split(), dtype=np.int64) for line in out]
