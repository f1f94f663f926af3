"""`--emit cute-dsl` run in the CuTe DSL (nvidia-cutlass-dsl) on the CPU: each snippet placed as it
says (imports at module level, the layout inside a `@cute.jit` function), the layout read on every
element at trace time (static coordinates) and at run time (dynamic coordinates, host JIT), each
compared with `answer.expression` (run_cute_dsl.py does the running)."""
import importlib.util

import pytest
from toolchain_cases import CASES, expected, mismatches, missing, run_driver

pytestmark = pytest.mark.toolchain


@pytest.fixture(scope="session")  # session: checked before `answers` solves anything
def cute_dsl() -> None:
    if importlib.util.find_spec("cutlass") is None or importlib.util.find_spec("cutlass.cute") is None:
        missing("the CuTe DSL", "pip install nvidia-cutlass-dsl==4.8.1")


@pytest.fixture(scope="module")
def traced(cute_dsl, answers, tmp_path_factory) -> dict:
    payload = {
        case: {"snippet": doc["answer"]["emit"]["cute-dsl"], "rows": doc["problem"]["rows"], "cols": doc["problem"]["cols"]}
        for case, doc in answers.items()
    }
    return run_driver("run_cute_dsl.py", payload, tmp_path_factory.mktemp("cute_dsl"))


@pytest.mark.parametrize("case", CASES)
def test_cute_dsl_trace_and_run_match_expression(cute_dsl, traced, answers, case):
    doc, result = answers[case], traced[case]
    snippet = doc["answer"]["emit"]["cute-dsl"]
    assert "error" not in result, f"the CuTe DSL rejects the {case} snippet:\n{result.get('error')}\n{snippet}"
    want = expected(doc)
    bad = mismatches(result["offsets"], want, doc["problem"]["cols"])
    assert not bad, f"{case} cute-dsl at trace time: {bad}\n{snippet}"
    bad = mismatches(result["run"], want, doc["problem"]["cols"])
    assert not bad, f"{case} cute-dsl at run time (host JIT): {bad}\n{snippet}"
