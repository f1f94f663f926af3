"""`--emit cuda`, `--emit cute` and `--emit tma` compiled by nvcc (from PyPI) with CuTe's headers, for sm_90 device
code and a host program that prints every element's offset.

All cases go into ONE translation unit (nvcc on CuTe costs ~a minute on two cores), each in its own
namespace:
- `cuda`: the snippet at namespace scope, called as `swizzle_phys(r, c)`;
- `cute`: a `struct SmemLayout` fallback at namespace scope, called as `SmemLayout{}(r, c)`; a layout
  (`auto smem_layout = ...;`) pasted into a function body, the way a kernel declares it, and read
  the way CUTLASS uses it: as a tensor over a 1024-byte-aligned shared-memory pointer, the offset
  being `&tensor(r, c) - base`. The commented `// auto smem_layout = ...` alternative, when there
  is one, is uncommented and read the same way. The struct is there exactly when the answer does
  not claim `cute` (`expressible_in`).
- `make_tma_copy`: every layout of a `cute` snippet that names it (the GMMA atom, and the commented
  element-level alternative whose note says whether make_tma_copy takes it) passed to CuTe's
  `make_tma_copy` in a second translation unit, compiled only: it must compile exactly when the
  snippet says make_tma_copy takes it.
- `tma`: the `CUtensorMapSwizzle swizzle = ...;` line in a host function against cuda.h, which
  returns the mode; the test applies that mode's byte swizzle to a dense box.
Each form is called from a `__global__` kernel (compiled for sm_90: nvcc's front end and ptxas) and
from the host `main`, which prints the offsets; no GPU is needed. A case whose code does not compile
gets its own errors (the lines are mapped back to the case) and the rest are compiled again without it.
"""
from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from toolchain_cases import CASES, NOT_USABLE, code_lines, defines, expected, indent, mismatches, missing

pytestmark = pytest.mark.toolchain

ELEMENT_TYPE = {1: "int8_t", 2: "cute::half_t", 4: "float", 8: "double"}


def _package_dir(name: str) -> Path | None:
    spec = importlib.util.find_spec(name)
    return Path(next(iter(spec.submodule_search_locations))) if spec and spec.submodule_search_locations else None


@pytest.fixture(scope="session")  # session: checked before `answers` solves anything
def nvcc() -> list[str]:
    """nvcc from the `nvidia-cuda-nvcc` wheel (nvidia/cu13/bin), with CuTe's headers from `nvidia-cutlass`."""
    nvidia = _package_dir("nvidia")
    found = [nvidia / sub / "bin" / "nvcc" for sub in ("cu13", "cu14")] if nvidia else []
    binary = next((str(p) for p in found if p.exists()), None) or shutil.which("nvcc")
    if binary is None:
        missing("nvcc", "pip install nvidia-cuda-nvcc nvidia-cuda-runtime nvidia-cuda-cccl")
    cutlass = _package_dir("cutlass_library")
    include = cutlass / "source" / "include" if cutlass else None
    if include is None or not (include / "cute" / "tensor.hpp").exists():
        missing("CuTe's headers", "pip install --no-deps nvidia-cutlass==4.2.0.0")
    return [binary, "-std=c++17", "-arch=sm_90", f"-I{include}"]


def _cute_layout_forms(snippet: str) -> dict[str, str]:
    """The layout declarations a `cute` snippet offers: the code itself when it declares
    `smem_layout`, and each commented `// auto smem_layout = ...;` alternative, uncommented."""
    forms = {}
    if defines(snippet, r"^\s*auto\s+smem_layout\s*="):
        forms["cute"] = "\n".join(code_lines(snippet, "//"))
    block: list[str] = []
    for line in snippet.splitlines():
        text = line.strip()
        if not block and re.match(r"//\s*auto\s+smem_layout\s*=", text):
            block = [text[2:].strip()]
        elif block and text.startswith("//"):
            block.append(text[2:].strip())
        if block and block[-1].endswith(";"):
            forms[f"cute-alt{len(forms)}"] = "\n".join(block)
            block = []
    return forms


class Unit:
    """One case's C++: its namespace-scope code and its offset functions (form -> body)."""

    def __init__(self, case: str, doc: dict):
        self.case = case
        problem = doc["problem"]
        self.rows, self.cols = problem["rows"], problem["cols"]
        self.type = ELEMENT_TYPE[problem["elem_bytes"]]
        emit = doc["answer"]["emit"]
        self.scope: list[str] = []  # namespace-scope code
        self.forms: dict[str, str] = {}  # form -> body of `int NAME(T const* base, int r, int c)`
        self.problems: dict[str, str] = {}  # form -> why the harness cannot call it
        cuda = emit["cuda"]
        if defines(cuda, r"\bswizzle_phys\s*\("):
            self.scope.append(cuda)
            self.forms["cuda"] = "return swizzle_phys(r, c);"
        else:
            self.problems["cuda"] = "no swizzle_phys(r, c) in the snippet"
        cute = emit["cute"]
        layouts = _cute_layout_forms(cute)
        if defines(cute, r"^\s*struct\s+SmemLayout\b"):
            self.scope.append(cute)
            self.forms["cute"] = "return SmemLayout{}(r, c);"
        elif "cute" not in layouts:
            self.problems["cute"] = "neither `auto smem_layout = ...;` nor `struct SmemLayout` in the snippet"
        tma = emit["tma"]
        self.tma = "\n".join(code_lines(tma, "//")) if defines(tma, r"\bCUtensorMapSwizzle\s+swizzle\s*=") else None
        for form, declaration in layouts.items():
            self.forms[form] = (
                f"{declaration}\n"
                "auto tensor = cute::make_tensor(cute::make_smem_ptr(base), smem_layout);\n"
                "return int(&tensor(r, c) - base);"
            )

    def source(self) -> str:
        """The case's namespace: the snippets, an offset function per form, a kernel, a printer."""
        parts = [
            f"namespace {self.case} {{",
            f"using T = {self.type};",
            f"constexpr int ROWS = {self.rows}, COLS = {self.cols};",
            *self.scope,
        ]
        for form, body in self.forms.items():
            parts.append(f"__host__ __device__ inline int {_fn(form)}(T const* base, int r, int c) {{")
            parts.append(indent(body, "  "))
            parts.append("}")
        if self.tma:
            parts += ["int tma_mode() {  // the snippet's CUtensorMapSwizzle, as the number cuda.h gives it", indent(self.tma, "  "), "  return int(swizzle);", "}"]
        calls = " + ".join(f"{_fn(f)}(base, r, c)" for f in self.forms) or "0"
        parts += [
            "__global__ void kernel(int* out) {  // device code for sm_90: every form called",
            "  extern __shared__ __align__(1024) unsigned char smem[];",
            "  T const* base = reinterpret_cast<T const*>(smem);",
            "  for (int i = threadIdx.x; i < ROWS * COLS; i += blockDim.x) {",
            "    int r = i / COLS, c = i % COLS;",
            f"    out[i] = {calls};",
            "  }",
            "}",
            "void print(T const* base) {",
        ]
        for form in self.forms:
            parts += [
                f'  std::printf("{self.case} {form}");',
                f'  for (int r = 0; r < ROWS; ++r) for (int c = 0; c < COLS; ++c) std::printf(" %d", {_fn(form)}(base, r, c));',
                '  std::printf("\\n");',
            ]
        if self.tma:
            parts.append(f'  std::printf("{self.case} tma %d\\n", tma_mode());')
        parts += ["}", f"}}  // namespace {self.case}"]
        return "\n".join(parts) + "\n"


def _fn(form: str) -> str:
    return "offset_" + form.replace("-", "_")


PRELUDE = """\
// swizzle-solve --emit cuda / cute, every case of tests/toolchains (generated by test_nvcc.py)
#include <cstdint>
#include <cstdio>
#include <cuda.h>  // CUtensorMapSwizzle
#include <cute/tensor.hpp>
#include <cute/atom/mma_traits_sm90_gmma.hpp>  // GMMA::Layout_*_Atom, used by the alternatives
"""


def _program(units: list[Unit]) -> tuple[str, dict[int, str]]:
    """The translation unit, and which case owns each of its lines."""
    text, owner = PRELUDE, {}
    for unit in units:
        part, first = unit.source(), text.count("\n") + 1
        owner.update({first + i: unit.case for i in range(part.count("\n"))})
        text += part
    text += (
        "alignas(1024) static unsigned char buffer[1 << 16];\n"
        "int main() {\n"
        + "".join(f"  {u.case}::print(reinterpret_cast<{u.case}::T const*>(buffer));\n" for u in units)
        + "  return 0;\n}\n"
    )
    return text, owner


@pytest.fixture(scope="module")
def built(nvcc, answers, tmp_path_factory) -> tuple[dict[str, list[int]], dict[str, str]]:
    """Compile every case into one program and run it: (form key 'case form' -> offsets, case ->
    compiler messages for the cases that did not compile)."""
    work = tmp_path_factory.mktemp("nvcc")
    units = [Unit(case, doc) for case, doc in answers.items()]
    failed: dict[str, str] = {}
    for attempt in range(4):
        source, owner = _program([u for u in units if u.case not in failed])
        (work / "all.cu").write_text(source)
        done = subprocess.run(
            [*nvcc, "-o", str(work / "all"), str(work / "all.cu")], capture_output=True, text=True, cwd=work, timeout=1200
        )
        blamed = _blame(done.stdout + done.stderr, owner)
        if done.returncode == 0 and not blamed:
            break
        if not blamed:  # an error no case owns: the harness or the toolchain is broken
            pytest.fail(f"nvcc failed outside every case:\n{done.stderr[-4000:]}", pytrace=False)
        failed.update(blamed)
        if done.returncode == 0:  # only warnings: the program is still good to run
            break
    else:
        pytest.fail(f"nvcc still fails after excluding {sorted(failed)}:\n{done.stderr[-4000:]}", pytrace=False)
    run = subprocess.run([str(work / "all")], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    offsets = {}
    for line in run.stdout.splitlines():
        case, form, *numbers = line.split()
        offsets[f"{case} {form}"] = [int(n) for n in numbers]
    return offsets, failed


def _blame(output: str, owner: dict[int, str]) -> dict[str, str]:
    """nvcc's errors and warnings grouped by the case whose lines they point at: the diagnostic's own
    line in all.cu, or for one inside CuTe's headers the all.cu line it was instantiated from.
    Empty when a diagnostic points at no case's line (then the harness itself is broken)."""
    blamed: dict[str, str] = {}
    blocks = re.split(r"\n(?=\S[^\n]*\(\d+\): (?:error|warning))", "\n" + output)
    for block in blocks:
        if not re.search(r"\(\d+\): (?:error|warning)", block):
            continue
        lines = [int(a or b) for a, b in re.findall(r"all\.cu\((\d+)\)|line (\d+) of \S*all\.cu", block)]
        cases = {owner.get(line) for line in lines}
        if not lines or None in cases:
            return {}
        for case in cases:
            blamed[case] = blamed.get(case, "") + block.strip() + "\n"
    return blamed


@pytest.mark.parametrize("target", ["cuda", "cute"])
@pytest.mark.parametrize("case", CASES)
def test_nvcc_compiles_and_host_run_matches_expression(nvcc, built, answers, case, target):
    offsets, failed = built
    doc = answers[case]
    assert case not in failed, f"nvcc -arch=sm_90 rejects the {case} code:\n{failed[case]}"
    unit = Unit(case, doc)
    assert target not in unit.problems, f"{target} snippet of {case}: {unit.problems[target]}\n{doc['answer']['emit'][target]}"
    if target == "cute":  # a claim is a CuTe layout (checked below), a refusal the exact fallback struct
        claimed, fallback = "cute" in doc["answer"]["expressible_in"], defines(doc["answer"]["emit"]["cute"], r"^\s*struct\s+SmemLayout\b")
        assert claimed != fallback, f"{case}: expressible_in {'claims' if claimed else 'refuses'} cute, and the snippet is {'the fallback struct' if fallback else 'a CuTe layout'}"
    want = expected(doc)
    forms = [f for f in unit.forms if f == target or (target == "cute" and f.startswith("cute-alt"))]
    for form in forms:
        bad = mismatches(offsets[f"{case} {form}"], want, unit.cols)
        assert not bad, f"{case} {form}: {bad}\n{doc['answer']['emit'][target]}"


# CUtensorMapSwizzle (cuda.h) -> B of the byte-level Swizzle<B,4,3> the TMA unit applies: the 16-byte
# chunk index (byte bits 4..) XORed with the 128-byte row index (byte bits 7..) (CUDA Programming
# Guide, "Tensor Memory Access", swizzle patterns). NONE (0) is the identity.
TMA_SWIZZLE_BITS = {0: 0, 1: 1, 2: 2, 3: 3}


@pytest.mark.parametrize("case", CASES)
def test_tma_mode_compiles_and_its_swizzle_is_expression(nvcc, built, answers, case):
    """`--emit tma`: the CUtensorMapSwizzle line compiles against cuda.h; the mode it names, applied as
    TMA writes a dense box (byte offset (r * cols + c) * size), gives answer.expression. A snippet
    without the line must say why the layout is not a TMA layout."""
    offsets, failed = built
    doc = answers[case]
    snippet = doc["answer"]["emit"]["tma"]
    assert case not in failed, f"nvcc rejects the {case} code:\n{failed[case]}"
    if Unit(case, doc).tma is None:
        assert re.search(r"not a TMA", snippet), f"{case}: no CUtensorMapSwizzle and no reason:\n{snippet}"
        return
    (mode,) = offsets[f"{case} tma"]
    assert mode in TMA_SWIZZLE_BITS, f"{case}: CUtensorMapSwizzle {mode} is not one of the sm_90 modes NONE/32B/64B/128B"
    size, cols, bits = doc["problem"]["elem_bytes"], doc["problem"]["cols"], TMA_SWIZZLE_BITS[mode]
    mask = ((1 << bits) - 1) << 4
    rows = doc["problem"]["rows"]
    boxes = re.search(r"box: (\d+) elements x (\d+) rows .*?; (\d+) boxes", snippet)
    if boxes:  # one box per column panel: box i (columns [w i, w i + w)) written densely at smem + i * stride
        w, box_rows, n = map(int, boxes.groups())
        stride = int(re.search(r"to smem \+ i \* (\d+) B", snippet)[1])
        assert box_rows == rows and w * n == cols, f"{case}: the boxes do not tile the {rows} x {cols} tile"
        byte = [(c // w) * stride + (r * w + c % w) * size for r in range(rows) for c in range(cols)]
    else:  # one dense box
        byte = [(r * cols + c) * size for r in range(rows) for c in range(cols)]
    got = [(b ^ ((b >> 3) & mask)) // size for b in byte]  # Swizzle<B,4,3>: bits 7.. onto bits 4..
    bad = mismatches(got, expected(doc), cols)
    assert not bad, f"{case} tma (mode {mode}): {bad}\n{snippet}"


# --- make_tma_copy on the CuTe layouts that name it ----------------------------------------------


def _tma_forms(snippet: str) -> dict[str, tuple[str, bool]]:
    """The layouts of a `cute` snippet that say what make_tma_copy does with them: form -> (declaration,
    whether make_tma_copy takes it). The active `tile_to_shape` of a GMMA atom is "for make_tma_copy";
    the commented element-level alternative says "make_tma_copy takes it too" or "refuses it"."""
    if "make_tma_copy" not in snippet:
        return {}
    forms = _cute_layout_forms(snippet)
    found = {}
    if "tile_to_shape(cute::GMMA::" in forms.get("cute", ""):
        found["atom"] = (forms["cute"], True)
    note = re.search(r"\((make_tma_copy (takes it too|refuses it)[^)]*)\):\n// auto smem_layout", snippet)
    alternatives = [f for f in forms if f.startswith("cute-alt")]
    if alternatives:
        assert note, f"the element-level alternative says nothing of make_tma_copy:\n{snippet}"
        found["alt"] = (forms[alternatives[0]], note.group(2) == "takes it too")
    return found


def _tma_part(case: str, form: str, doc: dict, declaration: str) -> str:
    """A function that passes the layout to make_tma_copy (SM90_TMA_LOAD, a row-major global tensor of the
    tile's shape), in its own namespace."""
    rows, cols = doc["problem"]["rows"], doc["problem"]["cols"]
    return "\n".join([
        f"namespace {case}_{form} {{",
        f"using T = {ELEMENT_TYPE[doc['problem']['elem_bytes']]};",
        "void copy(T* global) {",
        indent(declaration, "  "),
        f"  auto gmem = cute::make_tensor(cute::make_gmem_ptr(global), cute::make_layout(cute::make_shape({rows}, {cols}), "
        f"cute::make_stride({cols}, cute::_1{{}})));",
        "  auto tma = cute::make_tma_copy(cute::SM90_TMA_LOAD{}, gmem, smem_layout);",
        "  (void)tma;",
        "}",
        f"}}  // namespace {case}_{form}",
    ])


@pytest.fixture(scope="module")
def tma_built(nvcc, answers, tmp_path_factory) -> tuple[dict[tuple[str, str], bool], dict[tuple[str, str], str]]:
    """Every layout that names make_tma_copy, passed to it in one translation unit compiled for sm_90 (no run:
    the descriptor needs a driver): ((case, form) -> whether the snippet says make_tma_copy takes it,
    (case, form) -> nvcc's errors for those it rejects). nvcc reports a static_assert of a function template
    once, at its first instantiation: the rejected forms are taken out and the rest compiled again, until
    nothing is rejected."""
    claims, parts = {}, {}
    for case, doc in answers.items():
        for form, (declaration, takes) in _tma_forms(doc["answer"]["emit"]["cute"]).items():
            claims[case, form] = takes
            parts[case, form] = _tma_part(case, form, doc, declaration)
    assert claims, "no case names make_tma_copy"
    work = tmp_path_factory.mktemp("tma")
    errors: dict[tuple[str, str], str] = {}
    while len(errors) < len(parts):
        text, owner = PRELUDE + "#include <cute/atom/copy_traits_sm90_tma.hpp>\n", {}
        for key, part in parts.items():
            if key not in errors:
                first = text.count("\n") + 1
                owner.update({first + i: key for i in range(part.count("\n") + 1)})
                text += part + "\n"
        (work / "tma.cu").write_text(text)
        done = subprocess.run([*nvcc, "--expt-relaxed-constexpr", "-c", "-o", str(work / "tma.o"), str(work / "tma.cu")],
                              capture_output=True, text=True, cwd=work, timeout=1200)
        if done.returncode == 0:
            break
        found = 0
        for block in re.split(r"\n(?=\S[^\n]*\(\d+\): error)", "\n" + done.stdout + done.stderr):
            if not re.search(r"\(\d+\): error", block):
                continue
            lines = [int(a or b) for a, b in re.findall(r"tma\.cu\((\d+)\)|line (\d+) of \S*tma\.cu", block)]
            owners = {owner.get(line) for line in lines}
            assert lines and None not in owners, f"an nvcc error outside every case:\n{block}"
            for key in owners:
                errors[key] = errors.get(key, "") + block.strip() + "\n"
                found += 1
        assert found, f"nvcc failed without an error line:\n{done.stderr[-4000:]}"
    return claims, errors


def test_make_tma_copy_takes_what_the_snippet_says_and_refuses_the_rest(tma_built, answers):
    """The CuTe snippet's TMA claims, in CuTe's own make_tma_copy: the GMMA atom form compiles with it; the
    commented element-level alternative compiles exactly when its note says make_tma_copy takes it (1-byte
    elements) and fails its static_asserts when the note says it refuses it (2-, 4- and 8-byte elements)."""
    claims, errors = tma_built
    wrong = [f"{case} {form}: the snippet says make_tma_copy {'takes' if takes else 'refuses'} it, and nvcc "
             f"{'rejects' if (case, form) in errors else 'accepts'} it\n{errors.get((case, form), '')}"
             for (case, form), takes in claims.items() if takes == ((case, form) in errors)]
    assert not wrong, "\n".join(wrong)
    size = lambda case: answers[case]["problem"]["elem_bytes"]  # noqa: E731
    assert {size(case) for (case, form), takes in claims.items() if form == "alt" and not takes} == {2, 4, 8}
    assert {size(case) for (case, form), takes in claims.items() if form == "alt" and takes} == {1}


@pytest.mark.parametrize("case", NOT_USABLE)
def test_an_unusable_layout_gets_no_code_to_compile(case):
    """Not a bijection of its rows: status not-usable, exit 1, and no target's code (issue 21)."""
    import json
    import shlex
    import sys

    argv = [sys.executable, "-m", "swizzle_solver", *shlex.split(NOT_USABLE[case]), "--emit", "all", "--json"]
    done = subprocess.run(argv, capture_output=True, text=True, cwd=Path(__file__).resolve().parents[2], timeout=300)
    doc = json.loads(done.stdout)
    assert done.returncode == 1 and doc["status"] == "not-usable", done.stderr
    assert "emit" not in doc["answer"] and doc["answer"]["expressible_in"] == []
