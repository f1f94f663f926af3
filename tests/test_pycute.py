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
