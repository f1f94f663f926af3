"""The TMA's shared-memory swizzle modes (cuda.h ``CUtensorMapSwizzle``) as byte permutations.

TMA writes a box densely (row r of the box at byte r * inner extent) and then permutes the byte
address inside each 128-byte *line* of shared memory: the line's ``atom``-byte chunks are XORed
with the line's index (modulo the pattern). In CuTe's terms each mode is one or two byte-level
swizzles (sources: docs/hardware.md, "TMA swizzle modes"):

==========================  =====  ====  ===============================  ==========================
mode (enum suffix)          span   atom  byte map                         PTX ISA 5.5.7 / cuda.h
==========================  =====  ====  ===============================  ==========================
32B                          32 B  16 B  Swizzle<1,4,3>                   16B chunks within 32B span
64B                          64 B  16 B  Swizzle<2,4,3>                   16B chunks within 64B span
128B                        128 B  16 B  Swizzle<3,4,3>                   16B chunks within 128B span
128B_ATOM_32B               128 B  32 B  Swizzle<2,5,2>                   32B chunks within 128B span
128B_ATOM_32B_FLIP_8B       128 B  32 B  Swizzle<2,5,2> then              as 128B_ATOM_32B, and the
                                         Swizzle<1,3,4>                   8-byte halves of each 16 B
                                                                          swapped on odd lines
128B_ATOM_64B               128 B  64 B  Swizzle<1,6,1>                   64B chunks within 128B span
==========================  =====  ====  ===============================  ==========================

``span``: a box's inner extent may not exceed it (cuda.h, cuTensorMapEncodeTiled); ``alignment``:
the boundary the pattern starts on (PTX ISA 5.5.7: 256 B for 32B, 512 B for 64B, 1024 B for every
128-byte mode), which the shared buffer must keep for the map to be the one below. The
128B_ATOM_* modes exist from sm_100 (PTX ISA 8.6, ``tensormap.replace .swizzle_atomicity``: sm_100a,
sm_120a), and in CUDA 12.8 on (cuda.h).

This module imports only value.py: hardware targets list mode names (``Hardware.tma_modes``), the
layout families and emitters read the permutations here.
"""
from __future__ import annotations

from .value import Value


def _swizzle(p, B: int, M: int, S: int):
    """CuTe's Swizzle<B,M,S> with S >= 0 (families/cute.py states the general formula)."""
    return p ^ ((p >> S) & (((1 << B) - 1) << M))


class TmaMode(Value):
    name: str  # "128B_ATOM_32B": CU_TENSOR_MAP_SWIZZLE_ + name is the enum
    span: int  # bytes of a swizzled line a box row may fill (its inner extent at most this)
    atom: int  # bytes kept whole (the swizzle atomicity)
    swizzles: tuple[tuple[int, int, int], ...]  # byte-level CuTe swizzles (B, M, S), applied in turn
    alignment: int  # the pattern's start boundary in bytes
    since: str  # the first architecture that has it

    @property
    def enum(self) -> str:
        return f"CU_TENSOR_MAP_SWIZZLE_{self.name}"

    @property
    def classic(self) -> bool:
        """A 16-byte-atom mode (sm_90 on): the modes GMMA, Triton's NVMMA encoding and Mojo's
        TensorMapSwizzle also name."""
        return self.atom == 16

    @property
    def period(self) -> int:
        """Bytes after which the permutation repeats (the top source bit + 1)."""
        return max(1 << (m + s + b) for b, m, s in self.swizzles)

    @property
    def byte_name(self) -> str:
        """The byte map as CuTe swizzles: Swizzle<2,5,2> then Swizzle<1,3,4>."""
        return " then ".join(f"Swizzle<{b},{m},{s}>" for b, m, s in self.swizzles)

    @property
    def single(self) -> tuple[int, int, int] | None:
        """(B, M, S) when the mode is one CuTe swizzle, else None (FLIP_8B)."""
        return self.swizzles[0] if len(self.swizzles) == 1 else None

    def apply(self, byte_offsets):
        """The mode's byte address of each dense byte offset (ints or numpy arrays)."""
        out = byte_offsets
        for b, m, s in self.swizzles:
            out = _swizzle(out, b, m, s)
        return out

    def element_swizzles(self, elem_bytes: int) -> tuple[tuple[int, int, int], ...] | None:
        """The same map on element offsets of ``elem_bytes``-byte elements (each swizzle's M less
        log2(elem_bytes)), or None when it would move bytes inside an element."""
        shift = elem_bytes.bit_length() - 1
        if any(m < shift for _, m, _ in self.swizzles):
            return None
        return tuple((b, m - shift, s) for b, m, s in self.swizzles)


MODES: dict[str, TmaMode] = {mode.name: mode for mode in (
    TmaMode("32B", 32, 16, ((1, 4, 3),), 256, "sm_90"),
    TmaMode("64B", 64, 16, ((2, 4, 3),), 512, "sm_90"),
    TmaMode("128B", 128, 16, ((3, 4, 3),), 1024, "sm_90"),
    TmaMode("128B_ATOM_32B", 128, 32, ((2, 5, 2),), 1024, "sm_100"),
    TmaMode("128B_ATOM_32B_FLIP_8B", 128, 32, ((2, 5, 2), (1, 3, 4)), 1024, "sm_100"),
    TmaMode("128B_ATOM_64B", 128, 64, ((1, 6, 1),), 1024, "sm_100"),
)}

# A byte-level CuTe swizzle -> the mode it is (the modes that are one swizzle).
BY_SWIZZLE: dict[tuple[int, int, int], str] = {m.single: m.name for m in MODES.values() if m.single}

# The names users type for a mode (--check 128B_ATOM_32B): the enum's suffix, with or without the
# CU_TENSOR_MAP_SWIZZLE_ prefix, any case.
NAME_PATTERN = r"(?i)\s*(?:CU_TENSOR_MAP_SWIZZLE_)?(32B|64B|128B(?:_ATOM_32B(?:_FLIP_8B)?|_ATOM_64B)?)\s*"

