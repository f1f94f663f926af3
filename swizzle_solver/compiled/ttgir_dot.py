"""A ``ttg.local_load`` into an mma.sync operand (``#ttg.dot_op<{opIdx, parent = #ttg.nvidia_mma<{versionMajor
= 2, warpsPerCTA = [WM, WN], ...}>, kWidth}>``) of 2-byte elements, as the ldmatrix reads Triton lowers it
to on sm_80/sm_90: the register/lane/warp bases of the row addresses the warp gives (DESIGN.md section
15), which access/triton_layout.py's ``--linear-layout`` reader turns into the access.

An ``ldmatrix ... .x4`` is four 8 x 8 matrices, matrix i's eight rows addressed by lanes 8i .. 8i+7,
each row 16 contiguous bytes (8 elements) of the stored tile (PTX ISA, ldmatrix); the hardware serves
one matrix a phase, so the cost of the read is the cost of its matrices' row addresses, whichever
lanes of which instruction give them. The mma.m16n8k16 fragments (PTX ISA 9.7.14.5.8) fix which
matrices a warp needs: for A (opIdx 0, M x K), each 16 x 16 block of its rows as matrices (m + 0..7 |
8..15) x (k + 0..7 | 8..15); for B (opIdx 1, K x N), each 16 x 16 block as (k + 0..7 | 8..15) x (n +
0..7 | 8..15). The 16 bytes of a row run along the stored tile's contiguous dimension: for the
row-major encodings read here (``order = [1, 0]``) along K for A (ldmatrix) and along N for B
(ldmatrix.trans). So, in the tile's (row, column):

    A: vector  k + 1, 2, 4    lanes  m + 1, 2, 4, 8;  k + 8    registers  k + 16.. ;  m + 16..
    B: vector  n + 1, 2, 4    lanes  k + 1, 2, 4, 8;  n + 8    registers  k + 16.. ;  n + 16..

and the warps: A's split M over WM (WN warps read the same rows), B's N over WN. ``kWidth`` (how many
consecutive K elements a thread's register holds) changes which lane receives what, not which rows
are read, so it does not enter the count. Anything else (another element size, a parent that is
not mma v2, a column-major encoding, a warp's share not a multiple of 16) returns the reason it is
not read.
"""
from __future__ import annotations

import re

Bases = dict[str, list[list[int]]]


def _int(text: str, key: str) -> int | None:
    found = re.search(rf"\b{key}\s*=\s*(\d+)", text)
    return int(found[1]) if found else None


def _pair(text: str, key: str) -> list[int] | None:
    found = re.search(rf"\b{key}\s*=\s*\[\s*(\d+)\s*,\s*(\d+)\s*\]", text)
    return [int(found[1]), int(found[2])] if found else None


def _steps(start: int, stop: int) -> list[int]:
    """start, 2 start, 4 start, ... below stop."""
    out, s = [], start
    while s < stop:
        out.append(s)
        s *= 2
    return out


def _power(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


def _refusal(encoding: str, shape: list[int], elem_bytes: int | None, shared_encoding: str | None) -> str | None:
    """Why this dot operand is not read as ldmatrix here, or None."""
    op_index = _int(encoding, "opIdx")
    if op_index not in (0, 1) or "#ttg.nvidia_mma<" not in encoding or _int(encoding, "versionMajor") != 2:
        return "a dot operand whose parent is not an mma.sync (nvidia_mma versionMajor 2) layout is not read here"
    if elem_bytes != 2:
        return "a dot operand of other than 2-byte elements is not read here (ldmatrix .b16 is)"
    if shared_encoding is None or _pair(shared_encoding, "order") != [1, 0]:
        return "a dot operand read from a column-major shared encoding (order [0, 1]) is not read here"
    warps = _pair(encoding, "warpsPerCTA")
    if warps is None or len(shape) != 2 or not all(_power(n) for n in warps + shape):
        return "a dot operand whose shape or warpsPerCTA is not powers of two is not read here"
    outer, inner = (shape[0], shape[1]) if op_index == 0 else (shape[1], shape[0])  # (M, K) of A, (N, K) of B
    if outer // warps[op_index] < 16 or inner < 16:
        return "a dot operand with a warp's share under 16 x 16 (an .x1/.x2 ldmatrix) is not read here"
    return None


def dot_operand_bases(encoding: str, shape: list[int], elem_bytes: int | None,
                      shared_encoding: str | None) -> Bases | str:
    """The ldmatrix row-address bases of a dot operand (see the module's docstring), or why not."""
    why = _refusal(encoding, shape, elem_bytes, shared_encoding)
    if why is not None:
        return why
    op_index, warps = _int(encoding, "opIdx"), _pair(encoding, "warpsPerCTA") or [1, 1]
    if op_index == 0:  # tile (m, k): rows along M, 16 bytes along K
        per_warp, inner = shape[0] // warps[0], shape[1]
        lanes = [[m, 0] for m in (1, 2, 4, 8)] + [[0, 8]]
        registers = [[0, k] for k in _steps(16, inner)] + [[m, 0] for m in _steps(16, per_warp)]
        warp = [[0, 0] for _ in _steps(1, warps[1])] + [[per_warp * s, 0] for s in _steps(1, warps[0])]
    else:  # tile (k, n): rows along K, 16 bytes along N
        per_warp, inner = shape[1] // warps[1], shape[0]
        lanes = [[k, 0] for k in (1, 2, 4, 8)] + [[0, 8]]
        registers = [[k, 0] for k in _steps(16, inner)] + [[0, n] for n in _steps(16, per_warp)]
        warp = [[0, per_warp * s] for s in _steps(1, warps[1])] + [[0, 0] for _ in _steps(1, warps[0])]
    vector = [[0, c] for c in (1, 2, 4)]  # a row's 8 elements: one 16-byte vector
    return {"register": vector + registers, "lane": lanes, "warp": warp}
