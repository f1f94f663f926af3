"""gf2's elimination that remembers how each row was made, against brute force over small spaces."""
import itertools
import random

import pytest

from swizzle_solver import gf2
from swizzle_solver.families.general_linear import of_columns


def xor_of(vectors, mask):
    out = 0
    for i, v in enumerate(vectors):
        if mask >> i & 1:
            out ^= v
    return out


@pytest.mark.parametrize("seed", range(20))
def test_coordinates_and_kernel_are_brute_forces(seed):
    rng = random.Random(seed)
    vectors = [rng.randrange(16) for _ in range(rng.randrange(1, 6))]
    span = {xor_of(vectors, m) for m in range(1 << len(vectors))}
    zero = [m for m in range(1, 1 << len(vectors)) if xor_of(vectors, m) == 0]
    for v in range(16):
        if v in span:
            assert xor_of(vectors, gf2.coordinates(vectors, v)) == v
        else:
            with pytest.raises(ValueError):
                gf2.coordinates(vectors, v)
    kernel = gf2.kernel(vectors)
    assert all(xor_of(vectors, k) == 0 for k in kernel)
    # the kernel's basis spans every combination that XORs to zero
    assert {0} | set(zero) == {xor_of(kernel, m) for m in range(1 << len(kernel))}
    assert len(vectors) - len(kernel) == gf2.rank(vectors) == len(gf2.echelon(vectors)[0])


def test_of_columns_inverts_the_matrix_of_its_preimages():
    for preimages in itertools.permutations([1, 2, 4, 8]):
        mixed = [preimages[0], preimages[1] ^ preimages[0], preimages[2], preimages[3] ^ preimages[2]]
        member = of_columns(mixed)
        for j, p in enumerate(mixed):  # preimage j goes to offset bit j
            assert gf2.apply(list(member.offset_bases), p) == 1 << j
    with pytest.raises(ValueError):
        of_columns([1, 2, 3, 8])
