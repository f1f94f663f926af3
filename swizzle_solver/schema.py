"""The JSON Schema of ``--json`` (docs/schema/solution.schema.json): the parts the registries own.

The schema is written by hand, except where it lists what a registry lists. Those parts are
generated here from the registries, so that a family, an emit target or a hardware target is added
by registering it, and the schema follows:

- the family names (``layout.family``, ``family_proof.family``, ``family_search.family``): the
  families' registry (families/__init__.py), in rank order;
- the shapes of a layout's steps (``swizzle``): each family record's ``step_schema``, in rank
  order, each shape once;
- the emit targets (``layout.expressible_in``, ``search.for.targets``): emit.TARGETS, in --emit order;
- the ``--check`` notations (``given.notation``): notation.prefixes(), in their order (both are the
  languages' records, forms/language.py, registered ones included);
- the TMA swizzle modes (``layout.tma_mode``): every hardware target's ``tma_modes``.

    python -m swizzle_solver.schema            # rewrite docs/schema/solution.schema.json
    python -m swizzle_solver.schema --check    # exit 1 when it differs from the registries
    python -m swizzle_solver.schema --stdout   # print the schema of the registries

The committed file is the template: the hand-written parts are read from it and kept, the parts
above replaced. tests/test_schema.py fails when the committed file is not what this writes, and
validates every document against ``solution_schema()``, the schema of the live registries (so a
family or emit target a test registers is in it). Not imported by the tool itself.
"""
from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

FILE = Path(__file__).resolve().parents[1] / "docs" / "schema" / "solution.schema.json"
COMMAND = "python -m swizzle_solver.schema"


def family_names() -> list[str]:
    from .families import records, unsearched

    return [r.name for r in (*records(), *unsearched())]


def step_shapes() -> list[dict]:
    """Every family's step shapes, in rank order, each once (two-level writes cute's steps)."""
    from .families import records, unsearched

    shapes: list[dict] = []
    for r in (*records(), *unsearched()):
        shapes += [shape for shape in r.step_schema if shape not in shapes]
    return shapes


def emit_targets() -> list[str]:
    from . import emit

    return list(emit.TARGETS)


def notations() -> list[str]:
    """Every --check notation's prefix (a module of notation/), in their ORDER."""
    from .notation import prefixes

    return list(prefixes())


def tma_modes() -> list[str | None]:
    """Every mode a hardware target's TMA has, in target order, then null (no TMA mode)."""
    from .hardware import TARGETS

    modes: list[str | None] = []
    for name in TARGETS:
        modes += [m for m in TARGETS[name].tma_modes if m not in modes]
    return [*modes, None]


# Where the registries' lists go: (path of keys from the document's root, the list).
PARTS: tuple[tuple[tuple[str | int, ...], Callable[[], list[Any]]], ...] = (
    (("$defs", "layout", "properties", "family", "enum"), family_names),
    (("$defs", "family_proof", "properties", "family", "enum"), family_names),
    (("$defs", "family_search", "properties", "family", "enum"), family_names),
    (("$defs", "swizzle", "anyOf"), step_shapes),
    (("$defs", "layout", "properties", "expressible_in", "items", "enum"), emit_targets),
    (("$defs", "search", "properties", "for", "anyOf", 1, "properties", "targets", "items", "enum"), emit_targets),
    (("$defs", "layout", "properties", "tma_mode", "enum"), tma_modes),
    (("$defs", "layout", "properties", "given", "properties", "notation", "enum"), notations),
)


def generate(template: dict) -> dict:
    """``template`` (a solution schema) with every registry-owned part as the registries say now."""
    doc = json.loads(json.dumps(template))  # a copy
    for path, made in PARTS:
        node = doc
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = made()
    return doc


def text(schema: dict) -> str:
    """The file's text: one-space indents, as committed."""
    return json.dumps(schema, indent=1, ensure_ascii=False) + "\n"


def solution_schema(template: Path = FILE) -> dict:
    """The solution schema of the live registries (the committed file's hand-written parts)."""
    return generate(json.loads(template.read_text()))


def main(argv: list[str]) -> int:
    if not FILE.is_file():
        print(f"{COMMAND}: {FILE} not found: run it in a checkout of swizzle-solve", file=sys.stderr)
        return 2
    committed = FILE.read_text()
    made = text(solution_schema())
    if argv == ["--stdout"]:
        sys.stdout.write(made)
        return 0
    if argv == ["--check"]:
        if made != committed:
            print(f"{FILE.name} differs from the registries: run {COMMAND}", file=sys.stderr)
            return 1
        return 0
    if argv:
        print(f"usage: {COMMAND} [--check | --stdout]", file=sys.stderr)
        return 2
    if made != committed:
        FILE.write_text(made)
        print(f"wrote {FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
