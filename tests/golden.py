"""The golden corpus of JSON documents (issue 26): every case of examples.toml, the autotuner sweep of
bench/sweep.py, and problems that take the other paths of a solve (the later families, a padded
pitch, --for, --keep-pitch, explicit phases, failing checks).

tests/data/golden_json.json holds, per problem, the SHA-256 of its JSON document as the CLI's
--json prints it (``json.dumps(doc, indent=2)``), with its answer and status to make a failure
readable. It was written by the tree before the API built its report lazily and cached answers
(main at f942249), then four entries again when the span condition (balance.py, issue 26) came:
the examples "8x9 read in 4x2 blocks", "64x96 bf16, 8x16B reads of rows 1 and 2 apart", "64x32
f16 at pitch 40, ldmatrix and 8x4 warp reads" and "64x32 f16 at pitch 40 kept", whose linear
family z3 refuted in one check and the condition now refutes without z3 (their documents differ
from main's in that family's record alone: its covered text and smt engine, constraints and
checks). On 2026-11-26 (the merge into a main with issue 21's pitch search, notations, NVIDIA
generations and paired loads) the file was written again from that main before the merge (the
eager API at 2ac5f1b... of this session: the commit before "Merge speed"), and the same three of
those entries again from the merged tree (the span condition; the pitch-40 ldmatrix case now ranks
pitch 32 first, before its linear family is searched). tests/test_cache.py holds this tree's documents, solved through the API's lazy and
cached paths, to it byte for byte.

When an answer or a document changes on purpose, write the file again from the tree that has
the change and say why in the commit:

    python3 tests/golden.py --write          # from the checkout root: this tree's documents
    PYTHONPATH=/tmp/other python3 tests/golden.py --write   # another checkout's
"""
from __future__ import annotations

import functools
import hashlib
import json
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "data" / "golden_json.json"
sys.path.insert(0, str(ROOT / "bench"))
from sweep import CONFIGS  # noqa: E402  (the autotuner's configs)

# Problems that take the other paths of a solve (keywords of api.solve; "check" names a layout to check)
EXTRA: dict[str, dict] = {
    "two-level: warp 4x8:1x8 and a column": {"rows": 32, "cols": 64, "dtype": "f32",
                                              "access": ["warp:4x8:1x8", "warp:32x1:1x4"]},
    "later families, linear refuted: 16x96 f32 p97": {"rows": 16, "cols": 96, "row_length": 97, "dtype": "f32",
                                                      "access": ["16x4", "8x1:2"]},
    "no conflict-free layout: 32x32 f32 4x2 8x2v4 col": {"rows": 32, "cols": 32, "dtype": "f32",
                                                        "access": ["4x2", "8x2v4", "col"]},
    "padded pitch 40, ldmatrix": {"rows": 64, "cols": 32, "row_length": 40, "dtype": "f16", "access": ["ldmatrix.x4"]},
    "padded pitch 72, 8x8 row col": {"rows": 64, "cols": 64, "row_length": 72, "dtype": "f16",
                                     "access": ["8x8", "row", "col"]},
    "padded pitch 72, --keep-pitch": {"rows": 64, "cols": 64, "row_length": 72, "dtype": "f16",
                                      "access": ["8x8", "row", "col"], "keep_pitch": True},
    "--for tma": {"rows": 64, "cols": 64, "dtype": "f16", "access": ["ldmatrix.x4", "row"], "for_targets": ["tma"]},
    "--for triton, 128x32 f32 cols": {"rows": 128, "cols": 32, "dtype": "f32", "access": ["col", "row"],
                                      "for_targets": "triton"},
    "--exhaustive two-level": {"rows": 32, "cols": 64, "dtype": "f32", "access": ["warp:4x8:1x8", "warp:32x1:1x4"],
                               "exhaustive": True},
    "explicit phases: main diagonal": {"rows": 32, "cols": 32, "phases": [str(ROOT / "phases/main-diagonal-32.toml")]},
    "gfx942 ds_read2 rows apart": {"rows": 64, "cols": 64, "dtype": "f16", "arch": "gfx942",
                                   "phases": [str(ROOT / "phases/ds-read2-rows-apart.toml")]},
    "8 banks, tutorial": {"rows": 8, "cols": 24, "access": ["4x2"], "banks": 8},
    "check passes": {"rows": 64, "cols": 64, "dtype": "f16", "access": ["ldmatrix.x4", "row"],
                     "check": "Swizzle<3,3,3>"},
    "check fails, a minimal layout exists": {"rows": 64, "cols": 64, "dtype": "f16", "access": ["ldmatrix.x4", "row"],
                                             "check": "Swizzle<2,3,3>"},
    "check fails in byte form": {"rows": 64, "cols": 64, "dtype": "f16", "access": ["8x8"],
                                 "check": "Swizzle<3,4,3>"},
    "check not usable": {"rows": 64, "cols": 64, "dtype": "f16", "access": ["8x8"], "check": "Swizzle<3,1,3>"},
}

OPTIONS = ("keep_pitch", "for_targets", "exhaustive")


@functools.cache
def examples() -> tuple:
    """examples.toml's cases (swizzle_solver.cases.load_cases), read once per test process for the
    modules that parametrise over them (test_cache, test_order): 0.3 s a read."""
    from swizzle_solver.cases import load_cases

    return tuple(load_cases(str(ROOT / "examples.toml")))


def documents(api) -> dict[str, Callable[[], dict]]:
    """Per problem of the corpus, how ``api`` (the module swizzle_solver.api) makes its document: a
    solve's ``json()`` (or a check's), as the CLI does with --json."""
    out: dict[str, Callable[[], dict]] = {}
    for case in examples():
        if case.check is not None:
            out[f"example: {case.name}"] = lambda c=case: api.check(c.check, c.problem).json()
        else:
            out[f"example: {case.name}"] = lambda c=case: api.solve(c.problem, keep_pitch=c.keep_pitch,
                                                                    for_targets=c.for_targets).json()
    for name, config in {**{f"sweep: {n}": c for n, c in CONFIGS.items()}, **EXTRA}.items():
        kwargs = {**config, "access": list(config.get("access", ()))}
        if "check" in kwargs:
            out[name] = lambda k=kwargs: api.check(k["check"], **{a: v for a, v in k.items() if a != "check"}).json()
        else:
            out[name] = lambda k=kwargs: api.solve(**k).json()
    return out


def fingerprint(doc: dict) -> dict:
    """What the golden file holds of one document: the hash of its --json text, and (to read a
    failure) its status and answer."""
    text = json.dumps(doc, indent=2)
    return {"sha256": hashlib.sha256(text.encode()).hexdigest(), "status": doc["status"],
            "answer": doc["answer"]["name"]}


def main() -> int:
    if sys.argv[1:] != ["--write"]:
        print(__doc__)
        return 2
    from swizzle_solver import api

    golden = {name: fingerprint(make()) for name, make in documents(api).items()}
    GOLDEN.write_text(json.dumps(golden, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(golden)} documents' fingerprints to {GOLDEN} (from {api.__file__})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
