"""Every --json document the CLI prints validates against docs/schema/*.schema.json.

The schema is the machine-readable half of docs/json.md. Validation uses the small validator below
(the subset of JSON Schema 2020-12 the schema files use; a keyword outside it is an error, so the
schema cannot silently say more than is checked), not a dependency.

The lists a registry owns (families, their step shapes, emit targets, TMA modes) are generated
(swizzle_solver/schema.py): documents are validated against the schema of the live registries
(``load``), and the committed file must be what ``python -m swizzle_solver.schema`` writes.
"""
import json
import re
import tomllib
from pathlib import Path

import pytest

from swizzle_solver import schema as generated
from tests import clirun

ROOT = Path(__file__).resolve().parents[1]
SCHEMAS = ROOT / "docs" / "schema"
ANNOTATIONS = {"$schema", "$id", "$defs", "title", "description"}
TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def is_type(value, name: str) -> bool:
    if name in ("integer", "number"):  # JSON numbers; a bool is not one
        kinds = (int,) if name == "integer" else (int, float)
        return isinstance(value, kinds) and not isinstance(value, bool)
    return isinstance(value, TYPES[name])


def errors(value, schema: dict, root: dict, where: str = "$") -> list[str]:
    """Why ``value`` does not match ``schema`` ([] when it does); ``root`` resolves "#/..." refs."""
    unknown = set(schema) - ANNOTATIONS - {"$ref", "anyOf", "type", "const", "enum", "required", "properties",
                                           "additionalProperties", "items", "minimum", "minItems", "maxItems"}
    assert not unknown, f"the schema uses {unknown}, which this validator does not check"
    if "$ref" in schema:
        target, _, pointer = schema["$ref"].partition("#")
        if target:  # another schema file, beside this one
            root = load(target)
        node = root
        for part in filter(None, pointer.split("/")):
            node = node[part]
        return errors(value, node, root, where)
    if "anyOf" in schema and all(errors(value, s, root, where) for s in schema["anyOf"]):
        return [f"{where}: matches none of anyOf " + "; ".join(errors(value, schema["anyOf"][0], root, where))]
    types = schema.get("type", [])
    if types and not any(is_type(value, t) for t in ([types] if isinstance(types, str) else types)):
        return [f"{where}: {value!r:.60} is not {types}"]
    if "const" in schema and value != schema["const"] or "enum" in schema and value not in schema["enum"]:
        return [f"{where}: {value!r:.60} is not {schema.get('const', schema.get('enum'))}"]
    out = []
    if isinstance(value, dict):
        out += [f"{where}: missing {k!r}" for k in schema.get("required", []) if k not in value]
        extra = schema.get("additionalProperties", True)
        for k, v in value.items():
            sub = schema.get("properties", {}).get(k, extra)
            out += [f"{where}.{k}: not allowed"] if sub is False else errors(v, sub, root, f"{where}.{k}") if sub is not True else []
    if isinstance(value, list):
        if not schema.get("minItems", 0) <= len(value) <= schema.get("maxItems", len(value)):
            out.append(f"{where}: {len(value)} items")
        for i, v in enumerate(value):
            out += errors(v, schema.get("items", {}), root, f"{where}[{i}]")
    if "minimum" in schema and is_type(value, "number") and value < schema["minimum"]:
        out.append(f"{where}: {value} < {schema['minimum']}")
    return out


def load(name: str) -> dict:
    """A schema file; the solution schema as the live registries generate it (a family or emit
    target registered by a test is in it)."""
    if name == "solution.schema.json":
        return generated.solution_schema(SCHEMAS / name)
    return json.loads((SCHEMAS / name).read_text())


def validate(doc: dict, name: str = "solution.schema.json") -> None:
    schema = load(name)
    problems = errors(doc, schema, schema)
    assert not problems, "\n".join(problems[:10])


def test_the_committed_schema_is_generated_from_the_registries():
    """docs/schema/solution.schema.json lists the families, their step shapes, the emit targets and
    the TMA modes exactly as the registries do (a new one: run the generator)."""
    committed = (SCHEMAS / "solution.schema.json").read_text()
    assert generated.text(generated.solution_schema(SCHEMAS / "solution.schema.json")) == committed, (
        f"docs/schema/solution.schema.json differs from the registries: run {generated.COMMAND}")


def test_the_generated_lists_are_the_registries():
    from swizzle_solver import emit, families, hardware

    schema = generated.solution_schema(SCHEMAS / "solution.schema.json")
    layout = schema["$defs"]["layout"]["properties"]
    names = [r.name for r in (*families.records(), *families.unsearched())]
    assert layout["family"]["enum"] == names == schema["$defs"]["family_proof"]["properties"]["family"]["enum"]
    assert layout["expressible_in"]["items"]["enum"] == list(emit.TARGETS)
    assert layout["tma_mode"]["enum"] == [*hardware.TARGETS["sm100"].tma_modes, None]  # every target's modes
    assert set(hardware.TARGETS["nvidia"].tma_modes) < set(hardware.TARGETS["sm100"].tma_modes)
    steps = schema["$defs"]["swizzle"]["anyOf"]
    assert all(shape in steps for r in families.records() for shape in r.step_schema)
    assert len(steps) == len({json.dumps(s) for s in steps}) >= 5  # each shape once


def test_the_generator_command_checks_and_writes(tmp_path, monkeypatch, capsys):
    """--check fails on a stale file, naming the command; the command rewrites it; --check passes."""
    stale = json.loads((SCHEMAS / "solution.schema.json").read_text())
    stale["$defs"]["layout"]["properties"]["family"]["enum"].pop()
    path = tmp_path / "solution.schema.json"
    path.write_text(generated.text(stale))
    monkeypatch.setattr(generated, "FILE", path)
    assert generated.main(["--check"]) == 1
    assert "run python -m swizzle_solver.schema" in capsys.readouterr().err
    assert generated.main([]) == 0 and generated.main(["--check"]) == 0
    assert path.read_text() == (SCHEMAS / "solution.schema.json").read_text()
    assert generated.main(["--bogus"]) == 2


def cli_json(*argv: str) -> tuple[int, dict]:
    run = clirun.solve(*argv, "--json")  # in this process (tests/clirun.py)
    assert run.returncode in (0, 1), run.stderr
    return run.returncode, json.loads(run.stdout)


def case_argv(case: dict) -> list[str]:
    argv = ["--rows", str(case["rows"]), "--cols", str(case["cols"])]
    for key in ("row_length", "dtype", "elem_bytes", "banks", "bank_bytes", "arch", "order"):
        if key in case:
            argv += ["--" + key.replace("_", "-"), str(case[key])]
    for spec in case.get("access", []):
        argv += ["--access", spec]
    for path in case.get("phases", []):
        argv += ["--phases", str(ROOT / path)]
    return argv


EXAMPLES = tomllib.loads((ROOT / "examples.toml").read_text())["case"]
STAGE1 = [c for c in EXAMPLES if c.get("stage", 1) == 1]


@pytest.mark.parametrize("case", STAGE1[::3], ids=[c["name"] for c in STAGE1[::3]])
def test_examples_validate(case):
    code, doc = cli_json(*case_argv(case))
    assert code == 0
    validate(doc)


@pytest.mark.slow  # over a second of CPU: in the slow tier (tests/conftest.py)
@pytest.mark.parametrize("argv, family", [
    (["--rows", "8", "--cols", "9", "--banks", "8", "--access", "4x2"], "row-interleave"),
    (["--rows", "16", "--cols", "256", "--dtype", "f16", "--access", "8x8", "--phases",
      str(ROOT / "phases" / "row-as-16x16-f16.toml")], "two-level"),
    (["--rows", "32", "--cols", "32", "--access", "row", "--access", "col", "--phases",
      str(ROOT / "phases" / "main-diagonal-32.toml")], "linear"),
    (["--rows", "64", "--cols", "96", "--dtype", "bf16", "--access", "8x8", "--access", "8x8:2"], "padding"),
])
def test_later_families_validate(argv, family):
    code, doc = cli_json(*argv)
    assert code == 0 and doc["answer"]["family"] == family and doc["search"]["extended"]
    validate(doc)


def test_a_linear_family_refuted_without_z3_validates():
    """The balance condition's record (balance.refutation) has z3's record's keys. (--keep-pitch: else
    pitch 96 + Swizzle<3,2,4> ranks first, and the later families of pitch 97 are not searched.)"""
    code, doc = cli_json("--rows", "16", "--cols", "96", "--row-length", "97", "--dtype", "f32",
                         "--access", "16x4", "--access", "8x1:2", "--keep-pitch")
    linear = next(f for f in doc["proof"]["families"] if f["family"] == "linear")
    assert code == 1 and linear["smt"]["solver_checks"] == 0 and linear["best_known_member"]  # conflicts at 97
    validate(doc)


def test_conflicts_with_floors_validate():
    """An answer with conflicts: floors, collisions, witnesses of the families."""
    code, doc = cli_json("--rows", "32", "--cols", "32", "--dtype", "f32", "--access", "8x4", "--access", "col")
    assert code == 1 and doc["status"] == "conflicts"
    assert any(a["floor"] for a in doc["problem"]["accesses"])
    validate(doc)


@pytest.mark.parametrize("extra", [[], ["--keep-pitch"], ["--for", "tma"], ["--for", "triton", "--for", "cute"]])
def test_pitch_and_for_validate(extra):
    """search.given_pitch (the padding dropped), search.keep_pitch and search.for (the price). TMA,
    Triton and CuTe express the swizzle of pitch 32 (the dense tile), so --for drops the padding too."""
    code, doc = cli_json("--rows", "64", "--cols", "32", "--row-length", "40", "--dtype", "f16", "--access",
                         "ldmatrix.x4", "--access", "warp:8x4:1x8", *extra)
    assert (doc["search"]["given_pitch"] is None) == ("--keep-pitch" in extra)
    assert (doc["search"]["for"] is None) == ("--for" not in extra)
    validate(doc)


def test_timeout_validates():
    code, doc = cli_json("--rows", "32", "--cols", "32", "--access", "row", "--access", "col", "--phases",
                         str(ROOT / "phases" / "main-diagonal-32.toml"), "--timeout", "0.01")
    assert code == 1 and doc["status"] == "timeout" and doc["proof"]["unproven"]
    validate(doc)


@pytest.mark.parametrize("layout, code, status", [("Swizzle<3,3,3>", 0, "conflict-free"), ("none", 1, "conflicts"),
                                                  ("Swizzle<4,0,4>", 1, "not-usable")])
def test_check_validates(layout, code, status):
    got, doc = cli_json("--rows", "64", "--cols", "64", "--dtype", "f16", "--access", "ldmatrix.x4",
                        "--access", "row", "--check", layout)
    assert got == code and doc["check"]["passed"] == (code == 0) and doc["status"] == status
    validate(doc)


def test_warp_forms_emit_and_phases_validate():
    code, doc = cli_json("--rows", "64", "--cols", "64", "--dtype", "f16", "--access", "ldmatrix.x4", "--access",
                         "mma-c:m16n8", "--linear-layout", str(ROOT / "examples" / "mma-c-m16n8-f32.json"),
                         "--emit", "all", "--show-phases")
    assert "phases" in doc["problem"]["accesses"][0] and "cuda" in doc["answer"]["emit"]
    validate(doc)


def test_batch_validates():
    code, doc = cli_json("batch", str(ROOT / "tests" / "data" / "acceptance.toml"), "--case", "4x2 blocks")
    assert code == 0 and [c["name"] for c in doc["cases"]] == ["4x2 blocks"]
    validate(doc, "batch.schema.json")


def test_the_stock_jsonschema_library_resolves_and_validates(tmp_path, monkeypatch):
    """The plain jsonschema library (not the small validator above) reads the schemas as published:
    batch.schema.json's $ref reaches solution.schema.json through the two $ids, and docs/json.md's
    snippet validates a real batch document (a search case and a check case)."""
    from jsonschema import Draft202012Validator, ValidationError
    from referencing import Registry, Resource

    schemas = {p.name: json.loads(p.read_text()) for p in SCHEMAS.glob("*.schema.json")}
    assert sorted(s["$id"].rsplit("/", 1)[1] for s in schemas.values()) == sorted(schemas)
    for schema in schemas.values():
        Draft202012Validator.check_schema(schema)
    cases = tmp_path / "cases.toml"
    cases.write_text('[[case]]\nname = "searched"\nrows = 8\ncols = 24\naccess = ["4x2"]\n\n'
                     '[[case]]\nname = "checked"\nrows = 16\ncols = 16\ndtype = "f16"\naccess = ["8x8"]\n'
                     'check = "none"\n')
    code, doc = cli_json("batch", str(cases))
    assert code == 1 and [c["ok"] for c in doc["cases"]] == [True, False]
    (tmp_path / "batch.json").write_text(json.dumps(doc))
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "schema").symlink_to(SCHEMAS)
    snippet = re.search(r"## Validating with a JSON Schema library.*?```python\n(.*?)```",
                        (ROOT / "docs" / "json.md").read_text(), re.S).group(1)
    monkeypatch.chdir(tmp_path)
    exec(compile(snippet, "docs/json.md", "exec"), {})  # raises on an invalid document
    registry = Registry().with_resources((s["$id"], Resource.from_contents(s)) for s in schemas.values())
    batch = Draft202012Validator(schemas["batch.schema.json"], registry=registry)
    doc["cases"][1]["result"]["status"] = "fine"  # inside the referenced schema: the $ref was followed
    with pytest.raises(ValidationError, match="fine"):
        batch.validate(doc)


def test_batch_with_time_limits_validates(tmp_path):
    """Cases cut by batch's --timeout / --total-timeout (issue 21) still have whole documents."""
    path = tmp_path / "ex.toml"
    path.write_text('[[case]]\nname = "slow"\nrows = 512\ncols = 1000\ndtype = "e4m3"\naccess = ["8x1", "8x16", "col"]\n'
                    '\n[[case]]\nname = "pinned"\nrows = 16\ncols = 16\ndtype = "f16"\naccess = ["8x8"]\ncheck = "none"\n')
    code, doc = cli_json("batch", str(path), "--timeout", "0.2", "--total-timeout", "0.2")
    assert code == 1 and [c["result"]["status"] for c in doc["cases"]] == ["timeout", "conflicts"]
    validate(doc, "batch.schema.json")


def test_the_validator_rejects_what_the_schema_forbids():
    """The validator can fail: a wrong type, a missing field, a value outside an enum, a bad item."""
    _, doc = cli_json("--rows", "8", "--cols", "24", "--access", "4x2")
    validate(doc)
    schema = json.loads((SCHEMAS / "solution.schema.json").read_text())
    for path, bad in [(("schema_version",), 2), (("status",), "fine"), (("answer", "family"), "magic"),
                      (("problem", "rows"), "8"), (("problem", "rows"), True), (("answer", "cute"), 3),
                      (("problem", "accesses"), []), (("proof", "accesses", 0, "worst_wavefronts"), 0)]:
        broken = json.loads(json.dumps(doc))
        node = broken
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = bad
        assert errors(broken, schema, schema), path
    broken = json.loads(json.dumps(doc))
    del broken["search"]
    assert errors(broken, schema, schema)


def test_arch_list_documents_validate():
    """--arch with several targets (issue 37): the joint solve's and the --check matrix's documents,
    --emit included, against the solution schema (targets, matrix, joint)."""
    argv = ["--arch", "sm90,gfx942", "--rows", "64", "--cols", "64", "--dtype", "f16", "--access",
            "nvidia:ldmatrix.x4", "--access", "amd:ds_read_b128:64x1", "--json"]
    code, doc = cli_json(*argv, "--emit", "cuda")
    assert code == 0 and doc["joint"]["at_every_minimum"] and "emit" in doc["targets"][1]
    validate(doc)
    code, doc = cli_json(*argv, "--check", "none")
    assert code == 1 and "joint" not in doc and doc["matrix"]["rows"][1]["cells"][0] is None
    validate(doc)


def test_a_matrix_batch_validates():
    code, doc = cli_json("batch", str(ROOT / "examples" / "llama-fattn-sweep.toml"))
    assert code == 1 and len(doc["cases"]) == 32
    assert doc["cases"][0]["config"] == {"head_dim": 64, "dtype": "f16", "arch": "sm80"}
    validate(doc, "batch.schema.json")
