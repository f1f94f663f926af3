"""`--emit triton` checked by Triton 3.9 itself on the CPU (run_triton.py does the running): the
snippet runs as Python, every `#ttg` attribute it prints parses and verifies in a module and reads
back as one of the Gluon objects the snippet builds, and every Gluon object's layout, by Triton's
C++ linear-layout conversions, gives `answer.expression` on every element; each object compiles
in a Gluon kernel for the case's arch with the attribute text as printed (sm_90 on nvidia; an AMD
--arch by Triton's AMD backend, to an hsaco for gfx942 / gfx950, in a module of target hip:ARCH
with 64-lane waves). A snippet that builds nothing must say that Triton cannot express the layout."""
import importlib.util
import re

import pytest
from toolchain_cases import CASES, expected, mismatches, missing, run_driver

pytestmark = pytest.mark.toolchain


@pytest.fixture(scope="session")  # session: checked before `answers` solves anything
def triton() -> None:
    if importlib.util.find_spec("triton") is None:
        missing("Triton", "pip install torch==2.13.0 triton==3.9.0")


@pytest.fixture(scope="module")
def checked(triton, answers, tmp_path_factory) -> dict:
    payload = {
        case: {"snippet": doc["answer"]["emit"]["triton"], "arch": doc["problem"].get("arch", "nvidia"), "mfma": _mfma_a(doc),
               "wave": doc["problem"].get("wave_lanes", 32), **{k: doc["problem"][k] for k in ("rows", "cols", "elem_bytes")}}
        for case, doc in answers.items()
    }
    return run_driver("run_triton.py", payload, tmp_path_factory.mktemp("triton"))


def _mfma_a(doc: dict) -> list[int] | None:
    """[M, K] of the case's MFMA A-operand read (mfma-a:MxNxK), when it is one ds_read_b128 per lane
    and the tile is also written with ds_write_b128 (the worked example), else None."""
    specs = [a["spec"] for a in doc["problem"]["accesses"]]
    found = [re.fullmatch(r"mfma-a:(\d+)x\d+x(\d+)", s) for s in specs]
    reads = [(int(f[1]), int(f[2])) for f in found if f and int(f[1]) * int(f[2]) // 64 * doc["problem"]["elem_bytes"] == 16]
    if len(reads) != 1 or not any(s.startswith("ds_write_b128") for s in specs):
        return None
    return list(reads[0])


@pytest.mark.parametrize("case", CASES)
def test_triton_layouts_parse_and_match_expression(triton, checked, answers, case):
    doc, result = answers[case], checked[case]
    snippet = doc["answer"]["emit"]["triton"]
    assert "error" not in result, f"Triton rejects the {case} snippet:\n{result.get('error')}\n{snippet}"
    layouts, attributes = result["layouts"], result["attributes"]
    if not layouts and not attributes:
        assert "cannot express in Triton" in snippet, f"{case}: no Gluon layout, no attribute, no refusal:\n{snippet}"
        return
    assert layouts, f"{case}: attributes but no Gluon object:\n{snippet}"
    for attribute in attributes:
        assert attribute["verified"], f"{case}: {attribute['text']} does not verify"
        assert attribute["twins"], f"{case}: {attribute['text']} reads back as {attribute['read_back']}, built by no line of the snippet"
    want = expected(doc)
    for layout in layouts:
        bad = mismatches(layout["offsets"], want, doc["problem"]["cols"])
        assert not bad, f"{case} {layout['name']} = {layout['repr']}: {bad}\n{snippet}"
    stated = re.findall(r"aligned to (\d+) B", snippet)
    for layout in layouts:
        if layout["repr"].startswith("NVMMASharedLayout") and stated:
            assert int(stated[0]) == layout["alignment"], f"{case}: the snippet says {stated[0]} B, Triton {layout['alignment']} B"


@pytest.mark.parametrize("case", CASES)
def test_triton_every_gluon_object_has_its_attribute(triton, checked, answers, case):
    """The triton target is given "in Gluon and MLIR-attribute form": every Gluon object the snippet
    builds is the read-back of one `#ttg` attribute it prints."""
    result = checked[case]
    assert "error" not in result, result.get("error")
    paired = {name for attribute in result["attributes"] for name in attribute["twins"]}
    alone = [layout["repr"] for layout in result["layouts"] if layout["name"] not in paired]
    assert not alone, f"{case}: no #ttg attribute for {alone}\n{answers[case]['answer']['emit']['triton']}"


@pytest.mark.parametrize("case", CASES)
def test_triton_kernel_compiles_for_the_arch_with_the_attribute_as_printed(triton, checked, answers, case):
    """Each Gluon object, as the shared layout of a kernel's shared-memory round trip, compiles for
    the case's arch (sm_90 down to a cubin; gfx942 / gfx950 down to an hsaco), and the TTGIR's shared
    encoding is, byte for byte, the attribute the snippet prints for it."""
    result = checked[case]
    assert "error" not in result, result.get("error")
    for layout in result["layouts"]:
        assert isinstance(layout["ttgir"], list), f"{case} {layout['name']}: triton.compile fails: {layout['ttgir']}"
    for attribute in result["attributes"]:
        for name in attribute["twins"]:
            (layout,) = [layout for layout in result["layouts"] if layout["name"] == name]
            assert attribute["text"] in layout["ttgir"], f"{case}: the TTGIR says {layout['ttgir']}, the snippet {attribute['text']}"


@pytest.mark.parametrize("case", [c for c in CASES if c.startswith("a")])
def test_triton_amd_snippets_use_the_amd_backends_encodings(triton, checked, answers, case):
    """On an AMD --arch the snippet is for Triton's AMD backend: no NVMMA (NVIDIA's wgmma/TMA
    encoding), and a padded answer is `#ttg.padded_shared`, which Triton reads back as a
    PaddedSharedLayout."""
    doc, result = answers[case], checked[case]
    assert doc["problem"]["arch"] != "nvidia"
    assert "error" not in result, result.get("error")
    kinds = [layout["repr"].split("(")[0] for layout in result["layouts"]]
    assert "NVMMASharedLayout" not in kinds, f"{case}: {kinds}"
    if doc["answer"]["name"] == "none" and doc["problem"]["row_length"] > doc["problem"]["cols"]:
        assert kinds == ["PaddedSharedLayout"], f"{case}: a padded answer gives {kinds}"


MFMA_CASES = ["a01", "a02", "a03", "a04", "a05", "a06", "a10"]


@pytest.mark.parametrize("case", MFMA_CASES)
def test_triton_amd_reads_the_operand_with_ds_read_b128(triton, checked, answers, case):
    """Triton's own AMD code generator, given the snippet's layout as the LDS buffer of the worked
    example (written row-major, read as the MFMA A operand with kWidth 16 B), emits exactly the
    instructions the problem names: ds_write_b128 and ds_read_b128, nothing narrower. (A swizzle that
    splits a lane's 16 bytes makes Triton fall back to ds_read2_b32 and the like.)"""
    doc, result = answers[case], checked[case]
    assert _mfma_a(doc) is not None, f"{case} is not an MFMA A-operand case: {doc['problem']['accesses']}"
    assert "error" not in result, result.get("error")
    assert result["layouts"], f"{case}: the snippet builds no layout"
    for layout in result["layouts"]:
        assert layout["ds_ops"] == ["ds_read_b128", "ds_write_b128"], f"{case} {layout['repr']}: {layout['ds_ops']}"
