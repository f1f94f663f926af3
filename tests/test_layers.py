"""The package is layered: every module has a layer (``LAYERS``, the table of docs/contributing.md's
Architecture section), no module imports one of a higher layer (at the top, inside a function or
under TYPE_CHECKING), and no module imports, directly or through others, a module that imports it
back. value.py (the base of the value types) is at the bottom, hardware.py above it, model.py's
types above both, the access package above them."""
import ast
import functools
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "swizzle_solver"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in PACKAGE.rglob("*.py")}


@functools.cache
def nodes(path: Path) -> tuple[ast.AST, ...]:
    """Every node of the module at ``path``, parsed once for all the scans below (each scan of the
    whole package would otherwise parse its 20k lines again); dropped after this module's tests
    (``_parsed_once``), or every later full collection of the garbage collector would walk them."""
    return tuple(ast.walk(ast.parse(path.read_text())))


@pytest.fixture(scope="module", autouse=True)
def _parsed_once():
    yield
    nodes.cache_clear()


def imported(path: Path) -> set[str]:
    """Every package module ``path`` imports, at the top, inside a function or under TYPE_CHECKING:
    ``from .x import y`` counts as importing the module x.y when that is a module, else x."""
    name = module_name(path)
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    out = set()
    for node in nodes(path):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                target = ".".join(base + (node.module.split(".") if node.module else []))
            elif node.module and node.module.split(".")[0] == "swizzle_solver":
                target = node.module
            else:
                continue
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                out.add(sub if sub in MODULES else target)
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.split(".")[0] == "swizzle_solver"}
    return {m for m in out if m != name}


def dynamic_imports(path: Path) -> list[str]:
    """importlib.import_module / __import__ calls: the registries (families, emit) load their
    members by name, one layer down; anything else would hide an edge from the scan above."""
    calls = []
    for node in nodes(path):
        if isinstance(node, ast.Call):
            f = node.func
            called = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            if called in ("import_module", "__import__"):
                calls.append(called)
    return calls


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every cycle a depth-first walk meets (empty exactly when the graph is acyclic)."""
    state: dict[str, int] = {}  # 1: on the path, 2: done
    path: list[str] = []
    found = []

    def walk(u: str) -> None:
        state[u] = 1
        path.append(u)
        for v in sorted(graph[u]):
            if state.get(v) == 1:
                found.append(path[path.index(v):] + [v])
            elif v not in state:
                walk(v)
        path.pop()
        state[u] = 2

    for m in sorted(graph):
        if m not in state:
            walk(m)
    return found


# The layers, top first: each a name and its modules ("x/" is a package and all its modules; a module
# named exactly wins over its package's entry). docs/contributing.md's table lists the same.
LAYERS: list[tuple[str, list[str]]] = [
    ("entry points", ["__main__", "entry", "cli", "jobs", "github_action", "alarm", "overtime"]),
    ("API and subcommands", ["api", "memo", "cases", "vectors", "portable_report", "probe.command", "compiled/"]),
    ("output", ["report", "render", "bankmap", "picture", "svg", "html", "progress", "outcomes", "counters", "schema",
                "explain", "portable", "probe/"]),
    ("solve", ["solving", "search", "extended", "narrower", "configs", "smt", "general", "names"]),
    ("writers", ["emit/"]),
    ("layouts", ["layout", "families/", "notation/", "forms/", "soundness", "orient", "indexed", "tiled", "stages",
                 "candidate", "budget", "oracle", "sampling", "balance"]),
    ("ground truth and proofs", ["simulate", "partitions", "rounds", "vector_search", "gf2", "proof", "separation", "floors"]),
    ("input", ["", "access/", "model", "hardware", "transpose_read", "tma_modes", "value", "lru"]),
]


def layer_of(module: str) -> int | None:
    """The index in LAYERS (0 the top) of ``module`` (a dotted name), or None when no entry names it."""
    name = module.removeprefix("swizzle_solver").removeprefix(".")
    exact = [i for i, (_, names) in enumerate(LAYERS) if name in names]
    if exact:
        return exact[0]
    packages = [(len(n), i) for i, (_, names) in enumerate(LAYERS) for n in names
                if n.endswith("/") and (name + ".").startswith(n.replace("/", "."))]
    return max(packages)[1] if packages else None


def test_every_module_has_one_layer():
    named = [n for _, names in LAYERS for n in names]
    assert len(named) == len(set(named))
    assert {m for m in MODULES if layer_of(m) is None} == set()
    assert layer_of("swizzle_solver.probe.command") == 1 and layer_of("swizzle_solver.probe.plan") == 2
    assert layer_of("swizzle_solver") == layer_of("swizzle_solver.value") == len(LAYERS) - 1


def test_no_import_goes_up_the_layers():
    """Each import is of a module of the same layer or one below: the families do not import the
    search (their searches are given what they need: oracle.Later), the solve does not import the
    output (emit/ is the writers' layer below it), and nothing imports the API but the API layer and
    the entry points."""
    up = sorted(f"{m} ({LAYERS[layer_of(m)][0]}) imports {t} ({LAYERS[layer_of(t)][0]})"
                for m, p in MODULES.items() for t in imported(p) & set(MODULES) if layer_of(t) < layer_of(m))
    assert up == []


def test_the_layer_scan_sees_a_function_local_import():
    # vectors.py's run_auto solves through the API (its cache) inside a function: so vectors is of the API's layer
    assert "swizzle_solver.api" in imported(PACKAGE / "vectors.py")
    assert layer_of("swizzle_solver.vectors") == layer_of("swizzle_solver.api") < layer_of("swizzle_solver.solving")


def test_the_docs_table_is_the_layers():
    """docs/contributing.md's layer table: the same layers in the same order, and each module it names
    in a row (as `name.py` or `folder/`) is of that layer."""
    text = (PACKAGE.parent / "docs" / "contributing.md").read_text()
    table = text[text.index("| layer | modules |"):].split("\n\n")[0].splitlines()[2:]
    rows = [(row.split("|")[1].strip(), row.split("|", 2)[2]) for row in table]
    assert [name for name, _ in rows] == [name for name, _ in LAYERS]
    nested = {m.rsplit(".", 1)[1] for m in MODULES if m.count(".") > 1}  # (`report.py` in compiled/'s row is its own)
    checked = 0
    for i, (name, cells) in enumerate(rows):
        for token in re.findall(r"`([a-z_/]+(?:\.py|/))`", cells):
            module = "swizzle_solver." + token.removesuffix(".py").removesuffix("/").replace("/", ".")
            if module in MODULES and token.removesuffix(".py") not in nested:
                assert layer_of(module) == i, (name, token)
                checked += 1
    assert checked > 50


def test_the_scan_sees_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c", "a"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle_in_the_package():
    graph = {m: imported(p) & set(MODULES) for m, p in MODULES.items()}
    assert len(graph) > 40 and graph["swizzle_solver.solving"] >= {"swizzle_solver.search"}
    assert cycles(graph) == []


def test_only_the_registries_import_by_name():
    named = {module_name(p) for p in MODULES.values() if dynamic_imports(p)}
    # (the probe targets' registry imports its generators; report.py the counter module a hardware
    # target names as its profiler, hardware.Hardware.profiler; notation/ its parsers by prefix)
    assert named <= {"swizzle_solver", "swizzle_solver.families", "swizzle_solver.emit", "swizzle_solver.probe.targets",
                     "swizzle_solver.report", "swizzle_solver.notation"}, named


def test_value_imports_nothing_from_the_package():
    assert imported(PACKAGE / "value.py") == set()


def test_hardware_imports_only_value():
    assert imported(PACKAGE / "hardware.py") == {"swizzle_solver.value"}


def test_model_imports_only_hardware_and_value():
    assert imported(PACKAGE / "model.py") == {"swizzle_solver.hardware", "swizzle_solver.value"}


def test_the_access_package_builds_only_on_model_hardware_and_value():
    for path in (PACKAGE / "access").glob("*.py"):
        outside = {m for m in imported(path) if not m.startswith("swizzle_solver.access")}
        assert outside <= {"swizzle_solver.model", "swizzle_solver.hardware", "swizzle_solver.value"}, (path.name, outside)


def family_name_comparisons(path: Path, names: set[str]) -> list[str]:
    """The comparisons (==, !=, in, not in) of ``path`` that ask which family something is: one
    side a layout's or report's ``.family``, a record's ``FAMILY_RECORD.name``, or a family's name
    as a literal against something called family or name. Each as 'line: source'."""
    source = path.read_text()
    lines = source.encode().splitlines()  # (offsets are in UTF-8 bytes)

    def segment(node: ast.expr) -> str:  # (ast.get_source_segment splits the whole file on every call)
        first, last = node.lineno - 1, (node.end_lineno or node.lineno) - 1
        if first == last:
            return lines[first][node.col_offset:node.end_col_offset].decode()
        return b"\n".join([lines[first][node.col_offset:], *lines[first + 1:last],
                           lines[last][:node.end_col_offset]]).decode()

    found = []
    for node in nodes(path):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        texts = [segment(side) for side in sides]
        by_attribute = any(isinstance(s, ast.Attribute) and s.attr == "family" for s in sides) or \
            any("FAMILY_RECORD.name" in t for t in texts)
        literal = any(isinstance(s, ast.Constant) and s.value in names for s in sides) and \
            any("family" in t or "name" in t for t in texts)
        if by_attribute or literal:
            found.append(f"{node.lineno}: {segment(node)}")
    return found


def test_the_name_scan_sees_a_comparison(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text('if family.name == "padding":\n    pass\nok = layout.family != x\n'
                     'same = f == padding.FAMILY_RECORD.name\nfine = notation == "cute"\n')
    assert family_name_comparisons(probe, {"padding", "cute"}) == [
        '1: family.name == "padding"', "3: layout.family != x", "4: f == padding.FAMILY_RECORD.name"]


def test_no_module_outside_families_compares_family_names():
    """Issue 22: what a family does is on its record (search, storage, pitch, presentation); code
    outside families/ asks the record, never which family it is."""
    from swizzle_solver.families import record, records, unsearched

    names = {r.name for r in records()} | {r.name for r in unsearched()}
    assert {"none", "cute", "padding", "linear"} <= names and record("padding").search is not None
    outside = {m: p for m, p in MODULES.items() if not m.startswith("swizzle_solver.families")}
    found = {m: hits for m, p in outside.items() if (hits := family_name_comparisons(p, names))}
    assert found == {}
