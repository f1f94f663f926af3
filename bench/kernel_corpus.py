"""The real kernels of tests/data/kernels compiled to PTX, committed beside their sources so that the
default test tier can count them without a compiler (tests/test_kernel_sources.py).

    python3 bench/kernel_corpus.py            # (re)write tests/data/kernels/*.ptx from *.cu (nvcc)
    python3 bench/kernel_corpus.py --check    # the committed PTX is what nvcc makes of the sources?

Each NAME.cu is compiled by swizzle_solver.compiled.nvcc.ptx_of_cu, the line `swizzle-solve kernel
NAME.cu` runs (nvcc -ptx -lineinfo -arch=sm_90; -I for CuTe's headers where a source includes them),
from a copy in a fixed folder (nvcc names internal symbols after a hash of the source's path), and
the `.file` line naming it is rewritten to NAME.cu. The nvcc is $NVCC, else /usr/local/bin/nvcc
(13.0, the one the committed files were made with), else PATH's.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KERNELS = ROOT / "tests" / "data" / "kernels"
WORK = Path("/tmp/swizzle-solve-kernel-corpus")


def cute_include() -> Path | None:
    spec = importlib.util.find_spec("cutlass_library")
    if spec is None or not spec.submodule_search_locations:
        return None
    include = Path(next(iter(spec.submodule_search_locations))) / "source" / "include"
    return include if (include / "cute" / "tensor.hpp").is_file() else None


def compile_one(source: Path, nvcc: str | None) -> str:
    sys.path.insert(0, str(ROOT))
    from swizzle_solver.compiled.nvcc import ptx_of_cu

    WORK.mkdir(parents=True, exist_ok=True)
    copy = WORK / source.name
    shutil.copy(source, copy)
    includes = [cute_include()] if "#include <cute/" in source.read_text() else []
    text = ptx_of_cu(copy, includes=[i for i in includes if i], arch="sm_90", nvcc=nvcc, timeout=900)
    return re.sub(r'(\.file\s+1\s+)"[^"]*"', lambda m: f'{m.group(1)}"{source.name}"', text, count=1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compile and compare with the committed files")
    parser.add_argument("names", nargs="*", help="only these sources (NAME or NAME.cu)")
    args = parser.parse_args()
    nvcc = os.environ.get("NVCC") or ("/usr/local/bin/nvcc" if Path("/usr/local/bin/nvcc").is_file() else None)
    sources = sorted(KERNELS.glob("*.cu"))
    if args.names:
        sources = [s for s in sources if s.stem in {n.removesuffix(".cu") for n in args.names}]
    stale = 0
    try:
        for source in sources:
            text = compile_one(source, nvcc)
            target = source.with_suffix(".ptx")
            if args.check:
                same = target.is_file() and target.read_text() == text
                stale += not same
                print(f"kernel_corpus: {target.name}: {'as committed' if same else 'DIFFERS'}")
            else:
                target.write_text(text)
                print(f"kernel_corpus: wrote {target.relative_to(ROOT)} ({len(text) / 1e3:.0f} kB)")
    finally:
        shutil.rmtree(WORK, ignore_errors=True)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
