"""CuTe copy atoms by name as --access (access/cute_atoms.py).

The atoms' thread-value layouts are read from CuTe's Copy_Traits headers in the installed
nvidia-cutlass wheel and evaluated by pycute: which 16-byte row each thread addresses (LDSM,
STSM), how many contiguous bits a thread moves (cp.async, UniversalCopy). The counts are the
forms' (the same lanes exactly).
"""
import ast
import re
from pathlib import Path

import numpy as np
import pytest

from swizzle_solver import api
from swizzle_solver.cli import main

pycute = pytest.importorskip(
    "pycute", reason="pycute is missing: pip install --no-deps nvidia-cutlass==4.2.0.0 (.ci/run does)")
from tests.cute_grid import grid  # noqa: E402 (pycute first: skipped without it)

CUTE_ATOM = Path(pycute.__file__).resolve().parents[1] / "cutlass_library/source/include/cute/atom"

MATRIX_ATOMS = {  # atom -> (the form it issues, K matrices)
    "SM75_U32x1_LDSM_N": ("ldmatrix.x1", 1), "SM75_U32x2_LDSM_N": ("ldmatrix.x2", 2),
    "SM75_U32x4_LDSM_N": ("ldmatrix.x4", 4), "SM75_U16x2_LDSM_T": ("ldmatrix.x1.trans", 1),
    "SM75_U16x4_LDSM_T": ("ldmatrix.x2.trans", 2), "SM75_U16x8_LDSM_T": ("ldmatrix.x4.trans", 4),
    "SM90_U32x1_STSM_N": ("stmatrix.x1", 1), "SM90_U32x2_STSM_N": ("stmatrix.x2", 2),
    "SM90_U32x4_STSM_N": ("stmatrix.x4", 4), "SM90_U16x2_STSM_T": ("stmatrix.x1.trans", 1),
    "SM90_U16x4_STSM_T": ("stmatrix.x2.trans", 2), "SM90_U16x8_STSM_T": ("stmatrix.x4.trans", 4),
}


def _headers() -> str:
    if not CUTE_ATOM.is_dir():
        pytest.skip("the nvidia-cutlass wheel's CuTe headers are missing")
    return "\n".join((CUTE_ATOM / n).read_text() for n in ("copy_traits.hpp", "copy_traits_sm75.hpp",
                                                          "copy_traits_sm80.hpp", "copy_traits_sm90.hpp"))


def _cute_layout(text: str) -> tuple:
    flat = re.sub(r"\s", "", text)
    flat = re.sub(r"(Layout|Shape|Stride)<", "(", flat).replace(">", ",)")
    return ast.literal_eval(re.sub(r"_(\d+)", r"\1", flat))[:2]


def _traits_layout(atom: str, which: str) -> str:
    """The text of Copy_Traits<atom>'s ``which`` layout, through ``typename Copy_Traits<X>::Y`` aliases."""
    text = _headers()
    body = re.search(r"struct Copy_Traits<" + atom + r">\s*\{.*?\n};", text, re.S)
    assert body, atom
    value = re.search(rf"using {which}\s*=\s*(.*?);", body[0], re.S)[1].strip()
    alias = re.fullmatch(r"typename Copy_Traits<(\w+)>::(\w+)", value)
    return _traits_layout(alias[1], alias[2]) if alias else value


@pytest.mark.parametrize("atom", list(MATRIX_ATOMS))
def test_matrix_atoms_address_the_rows_of_their_form(atom):
    """CuTe's address layout (LDSM: SrcLayout, STSM: DstLayout; (thread, bit) -> bit of the rows):
    thread t addresses the 128 contiguous bits of row t % 8K, as the form's phase t // 8, lane t % 8
    is matrix t // 8's row t % 8; and the atom's lanes are the form's exactly."""
    form, k = MATRIX_ATOMS[atom]
    layout = pycute.Layout(*_cute_layout(_traits_layout(atom, "SrcLayout" if "LDSM" in atom else "DstLayout")))
    bits = grid(layout, 32, 128)
    for t in range(32):
        start = int(bits[t, 0])
        assert start == 128 * (t % (8 * k)), (atom, t)
        assert bits[t].tolist() == list(range(start, start + 128))
    ours = api.problem(64, 64, [atom], dtype="f16").patterns[0]
    plain = api.problem(64, 64, [form], dtype="f16").patterns[0]
    assert ours.phases_per_placement == plain.phases_per_placement == k
    assert np.array_equal(ours.lane_row, plain.lane_row) and np.array_equal(ours.lane_col, plain.lane_col)
    assert ours.summary.startswith(f"= {form}: ") and ours.spec == atom
    assert [len(ours.phase_lanes(i)) for i in range(k)] == [8] * k  # one phase per matrix, 8 row addresses


@pytest.mark.parametrize("atom,bits,form", [
    ("SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>", 128, "cp.async"),
    ("SM80_CP_ASYNC_CACHEALWAYS<uint128_t>", 128, "cp.async"),
    ("UniversalCopy<uint128_t>", 128, "warp:4x8:1x8"),
    ("UniversalCopy<uint64_t>", 64, "warp:2x16:1x4"),
])
def test_per_thread_atoms(atom, bits, form):
    """cp.async and UniversalCopy: one thread moves sizeof_bits<S> contiguous bits (their traits'
    SrcLayout), laid out along the rows as cp.async is."""
    name = atom.split("<")[0]
    template = re.search(r"struct Copy_Traits<" + name + r"<S,\s*D>>\s*\{.*?\n};", _headers(), re.S)
    assert template and re.search(r"SrcLayout\s*=\s*Layout<Shape<_1,\s*Int<sizeof_bits<S>::value>>>", template[0])
    ours = api.problem(64, 64, [atom], dtype="f16").patterns[0]
    plain = api.problem(64, 64, [form], dtype="f16").patterns[0]
    assert ours.vector_bytes == bits // 8
    assert np.array_equal(ours.lane_row, plain.lane_row) and np.array_equal(ours.lane_col, plain.lane_col)
    assert ours.kind == plain.kind


def test_spellings_and_counters():
    doc = api.check("Swizzle<3,3,3>", rows=64, cols=64, dtype="f16",
                    access=["Copy_Atom<SM75_U16x8_LDSM_T, half_t>", "cute::SM90_U32x4_STSM_N",
                            "store:UniversalCopy<uint128_t>"]).json()
    counters = [next(iter(a["counter"])) for a in doc["answer"]["per_access"]]
    assert [c.rsplit("_op_", 1)[1] for c in counters] == ["ldsm.sum", "stsm.sum", "st.sum"]


@pytest.mark.parametrize("spec,words", [
    ("SM75_U32x3_LDSM_N", "not a CuTe copy atom"),
    ("SM90_U32x4_LDSM_N", "not a CuTe copy atom"),
    ("SM80_CP_ASYNC_CACHEALWAYS<uint64_t>", "cp.async of 8 bytes per thread is not a form yet"),
    ("load:SM90_U32x4_STSM_N", "the form is a store itself"),
])
def test_bad_atoms_are_one_line(spec, words, capsys):
    code = main(["--rows", "64", "--cols", "64", "--dtype", "f16", "--access", spec])
    out = capsys.readouterr()
    assert code == 2 and out.out == "" and len(out.err.strip().splitlines()) == 1 and words in out.err, out.err
