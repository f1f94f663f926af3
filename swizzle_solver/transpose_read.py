"""gfx950's transposing LDS reads, ds_read_b64_tr_b16 / _b8 / _b4: which lane receives which element.

Each lane gives one 8-byte address, as ds_read_b64 does; the data is then exchanged inside each
group of 16 consecutive lanes (lanes 16g .. 16g + 15). With n = 64 / bits elements in 8 bytes
(n = 4 for _b16, 8 for _b8, 16 for _b4), the group's 16 n elements, read in lane order (lane j's
8 bytes are elements j n .. j n + n - 1), form an n x 16 matrix M, row after row; lane i of the
group receives column i of it, one element per register element r:

    lane 16 g + i, element r  <-  M[r][i] = element k mod n of the 8 bytes at source lane 16 g + k div n,
                                           k = 16 r + i        (i < 16, r < n)

so for _b16 the source lane is 4 r + i div 4 and the element i mod 4; for _b8, 2 r + i div 8 and
i mod 8; for _b4, r and i (a 16 x 16 transpose of nibbles). Read the other way: the n elements a
lane receives come from n different source lanes, one from each row of M, always at the position
i mod n of that lane's 8 bytes.

Sources (read, not copied; docs/hardware.md lists them):

- Triton's AMD backend, lib/Dialect/TritonGPU/IR/LinearLayoutConversions.cpp,
  ``chooseDotDsReadB64TrLayout`` (2025): the layout of the *addresses* a ds_read_tr issues is that of
  a plain 8-byte read whose registers are n consecutive non-K elements and whose lane bits are
  first the non-K chunks (16 / n lanes), then K (n lanes), "the smallest unit for transposition is
  a [non-K, K] = {16, n} sub-tile ... each thread ends up with n elements along the K dimension";
  the destination is the MFMA dot operand layout (lane i of 16: non-K index i, registers: K). The
  two linear layouts compose to the formula above. Its lowering (third_party/amd/.../
  MemoryOpToLLVM.cpp, ``lowerSharedToDotOperandTransLL``) issues rocdl.ds.read.tr16.b64 /
  tr8.b64 on those addresses and takes the result's elements in order as the dot registers.
- Modular's Mojo docs, ``ds_read_tr16_b64_row``: "each 16-lane row loads a 4x16 tile, with per-lane
  exchange so each lane gets a column of the tile as SIMD[dtype, 4]".
- Composable Kernel, include/ck_tile/core/arch/amd_transpose_load_encoding.hpp
  (``LaneGroupTransposeTraits``): 2-byte data "before transpose, 4x16; after transpose, 16x4"; 1-byte
  data 8 x 16 -> 16 x 8, in lane groups of 16.
- Triton's ``queryLDSTransLoadParams`` (gfx950): instruction width 64 bits, 16 lanes a shuffle group.

_b4 follows the same formula (n = 16) by Triton's FP4 lowering (ds_read_tr4_b64 on i8-packed
nibbles); the tool's elements are whole bytes, so --vectors auto never chooses it.
"""
from __future__ import annotations

import numpy as np

GROUP = 16  # lanes that exchange data (Triton: numLanesInShuffleGroup = wave 64 / 4)
LANE_BYTES = 8  # each lane's address reads 8 bytes (the b64 of the name)
OPS = {2: "ds_read_b64_tr_b16", 1: "ds_read_b64_tr_b8"}  # by element bytes; _b4 moves half-bytes


def elements(elem_bytes: int) -> int:
    """n: the elements in one lane's 8 bytes, and the register elements each lane receives."""
    return LANE_BYTES // elem_bytes


def source(lane: int, r: int, n: int) -> tuple[int, int]:
    """(source lane, element position in its 8 bytes) of element ``r`` that ``lane`` receives."""
    g, i = divmod(lane, GROUP)
    k = GROUP * r + i
    return GROUP * g + k // n, k % n


def addresses(offsets: np.ndarray, n: int) -> np.ndarray | None:
    """The element offset each source lane must give so that every lane receives exactly the elements
    ``offsets`` names (shape (..., lanes, n): lane l's element r at offsets[..., l, r]), or None
    where no addresses do it (a lane would need an element the exchange does not bring it: a
    shuffle). Each address is aligned to its 8 bytes (n elements)."""
    lanes = offsets.shape[-2]
    if lanes % GROUP or offsets.shape[-1] != n:
        return None
    lane, r = np.meshgrid(np.arange(lanes), np.arange(n), indexing="ij")
    g, i = np.divmod(lane, GROUP)
    k = GROUP * r + i
    src, pos = GROUP * g + k // n, k % n
    want = offsets - pos  # the start of the source lane's 8 bytes each element asks for
    if (want % n).any():
        return None
    out = np.zeros(offsets.shape[:-2] + (lanes,), dtype=offsets.dtype)
    out[..., src.reshape(-1)] = want.reshape(offsets.shape[:-2] + (-1,))
    # every element of a source lane asks for the same 8 bytes
    return out if (out[..., src] == want).all() else None
