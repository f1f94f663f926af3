"""`--emit triton` checked by Triton 3.9 itself on the CPU (run_triton.py does the running): the
snippet runs as Python, every `#ttg` attribute it prints parses and verifies in a module and reads
back as one of the Gluon objects the snippet builds, and every Gluon object's layout, by Triton's
C++ linear-layout conversions, gives `answer.expression` on every element; each object compiles
in a Gluon kernel for sm_90 with the attribute text as printed. A snippet that builds nothing must
say that Triton cannot express the layout."""
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
        case: {"snippet": doc["answer"]["emit"]["triton"], **{k: doc["problem"][k] for k in ("rows", "cols", "elem_bytes")}}
        for case, doc in answers.items()
    }
    return run_driver("run_triton.py", payload, tmp_path_factory.mktemp("triton"))


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
def test_triton_kernel_compiles_for_sm90_with_the_attribute_as_printed(triton, checked, answers, case):
    """Each Gluon object, as the shared layout of a kernel's shared-memory round trip, compiles for
    sm_90 down to a cubin, and the TTGIR's shared encoding is, byte for byte, the attribute the
    snippet prints for it."""
    result = checked[case]
    assert "error" not in result, result.get("error")
    for layout in result["layouts"]:
        assert isinstance(layout["ttgir"], list), f"{case} {layout['name']}: triton.compile fails: {layout['ttgir']}"
    for attribute in result["attributes"]:
        for name in attribute["twins"]:
            (layout,) = [layout for layout in result["layouts"] if layout["name"] == name]
            assert attribute["text"] in layout["ttgir"], f"{case}: the TTGIR says {layout['ttgir']}, the snippet {attribute['text']}"
