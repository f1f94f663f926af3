"""families.cute.Swizzle against CuTe's own Python model (pycute, from nvidia-cutlass).

pycute is installed without its package's dependencies: pip install --no-deps nvidia-cutlass==4.2.0.0
"""
import random

import numpy as np
import pytest

from swizzle_solver.families.cute import Swizzle

pycute = pytest.importorskip(
    "pycute", reason="pycute is missing: pip install --no-deps nvidia-cutlass==4.2.0.0 (.ci/run does)")

TRIPLES = [(b, m, s) for b in range(1, 6) for m in range(6) for s in range(b, 8)]
# Every offset below 2^11, and a fixed spread of offsets up to 2^18 so that every YYY and ZZZ bit
# of the triples above (B+M+S up to 17) is exercised set and clear.
OFFSETS = list(range(1 << 11)) + random.Random(0).sample(range(1 << 11, 1 << 18), 2048)


@pytest.mark.parametrize("b,m,s", TRIPLES)
def test_element_swizzle_equals_pycute(b, m, s):
    ours, theirs = Swizzle(b, m, s), pycute.Swizzle(b, m, s)
    expected = [theirs(p) for p in OFFSETS]
    assert [ours.apply(p) for p in OFFSETS] == expected
    # the vectorised form the simulator uses
    assert ours.apply(np.array(OFFSETS, dtype=np.int64)).tolist() == expected


@pytest.mark.parametrize("elem_bytes", [1, 2, 4, 8])
@pytest.mark.parametrize("b,m,s", TRIPLES)
def test_byte_level_triple_is_the_element_swizzle_in_bytes(b, m, s, elem_bytes):
    element = Swizzle(b, m, s)
    byte = element.byte_level(elem_bytes)
    byte_ref = pycute.Swizzle(byte.B, byte.M, byte.S)
    for p in OFFSETS[::elem_bytes]:
        for k in range(elem_bytes):  # every byte of element p moves with it
            assert byte_ref(p * elem_bytes + k) == element.apply(p) * elem_bytes + k


@pytest.mark.parametrize("mode,bits", [("32B", 1), ("64B", 2), ("128B", 3)])
@pytest.mark.parametrize("elem_bytes", [1, 2, 4, 8])
def test_tma_modes(mode, bits, elem_bytes):
    # TMA/GMMA modes are byte-level Swizzle<B,4,3>: 16-byte units, B bits XORed from 128-byte rows.
    m = 4 - (elem_bytes.bit_length() - 1)
    element = Swizzle(bits, m, 3)
    assert element.byte_level(elem_bytes) == Swizzle(bits, 4, 3)
    assert element.tma_mode(elem_bytes) == mode
    reference = pycute.Swizzle(bits, 4, 3)
    for byte in range(4096):
        p, k = divmod(byte, elem_bytes)
        assert reference(byte) == element.apply(p) * elem_bytes + k


def test_non_tma_triples_name_no_mode():
    assert Swizzle(3, 3, 4).tma_mode(2) is None
    assert Swizzle(1, 2, 3).tma_mode(2) is None  # byte-level <1,3,3>, not a TMA mode


NEGATIVE = [(b, m, s) for b in range(0, 5) for m in range(5) for s in range(-7, -b + 1) if s <= -b and s != 0]


@pytest.mark.parametrize("b,m,s", NEGATIVE)
def test_negative_shift_equals_pycute(b, m, s):
    """S < 0 moves YYY (at M) up into ZZZ (at M + |S|): CuTe's shiftr by a negative amount."""
    ours, theirs = Swizzle(b, m, s), pycute.Swizzle(b, m, s)
    expected = [theirs(p) for p in OFFSETS[:4096]]
    assert [ours.apply(p) for p in OFFSETS[:4096]] == expected
    assert ours.apply(np.array(OFFSETS[:4096], dtype=np.int64)).tolist() == expected
    assert ours.mask == theirs.zzz_msk and ours.yyy_mask == theirs.yyy_msk


def test_batch_form_equals_each_member():
    """apply_many (the screening's batch of members, mixed signs of S) equals each Swizzle."""
    from swizzle_solver.families.cute import apply_many

    params = TRIPLES[:40] + NEGATIVE[:40]
    p = np.array(OFFSETS[:2048], dtype=np.int64)
    many = apply_many(params, p)
    assert many.shape == (len(params), len(p))
    for row, t in zip(many, params):
        assert row.tolist() == [pycute.Swizzle(*t)(int(x)) for x in p]


@pytest.mark.parametrize("b,m,s", [(1, 0, 0), (2, 3, 1), (3, 0, -2), (-1, 2, 3), (1, -1, 3)])
def test_swizzle_refuses_what_cute_refuses(b, m, s):
    """CuTe static_asserts |S| >= B (B >= 0, M >= 0); the type itself refuses the rest."""
    with pytest.raises(ValueError):
        Swizzle(b, m, s)


def test_swizzle_accepts_the_edges_cute_accepts():
    for b, m, s in [(3, 0, 3), (3, 0, -3), (0, 4, 3), (0, 4, -3)]:
        assert Swizzle(b, m, s).apply(1234) == pycute.Swizzle(b, m, s)(1234)
    assert Swizzle(0, 0, 0).apply(1234) == 1234  # the identity (pycute's shiftr(x, 0) recurses forever)
