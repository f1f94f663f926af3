"""What the CUDA and HIP probes share: the tile's contents, the load checksum, the tables as C text.

The tile is filled before the loads with a known image, so a load reads real data and the host can
check that each kernel read exactly the bytes the plan says: halfword h of the storage holds
``fill(h) = (h * 40503 + 12345) mod 2^16`` (the kernels compute the same), and a kernel's checksum is
each lane's sum, mod 2^32, of every unit its loads brought into registers (16-bit units; bytes or
nibbles for AMD's transposing loads of 8- and 4-bit data), weighted by lane (2 l + 1) on the host,
so a lane that read another lane's bytes is caught too. For ldmatrix the units a lane receives
follow the PTX fragment layout; for AMD's transposing loads only the total is checked.
"""
from __future__ import annotations

import numpy as np

from .plan import ProbeAccess

FILL_MUL, FILL_ADD = 40503, 12345
ALIGN_BYTES = 1024  # the tile's base: a bank needs 128 B (256 B on 64-bank targets); every swizzle period fits 1 KiB


def image(storage_bytes: int) -> np.ndarray:
    """The filled tile as bytes (little-endian halfwords), a whole number of 32-bit words."""
    words = -(-storage_bytes // 4)
    h = np.arange(2 * words, dtype=np.int64)
    halves = ((h * FILL_MUL + FILL_ADD) & 0xFFFF).astype("<u2")
    return halves.view(np.uint8)


def unit_sum(data: np.ndarray, bits: int) -> int:
    """The sum of the ``bits``-bit units of ``data`` (bytes; a multiple of the unit)."""
    if bits == 16:
        return int(data.view("<u2").astype(np.int64).sum()) if data.size >= 2 else int(data.sum())
    if bits == 8:
        return int(data.astype(np.int64).sum())
    return int((data & 0xF).astype(np.int64).sum() + (data >> 4).astype(np.int64).sum())


def lane_sums(access: ProbeAccess, storage_bytes: int, wave: int) -> np.ndarray | None:
    """What each lane's loads sum to (mod 2^32), lane by lane; None for a store, whose values are
    not read back (a read-back would add loads to the kernel)."""
    op = access.op
    if op.store:
        return None
    tile = image(storage_bytes)
    sums = np.zeros(wave, np.int64)
    offsets = access.offsets.tolist()
    for row in offsets:
        for lane in range(wave):
            sums[lane] += sum(unit_sum(tile[a:a + n], op.checksum_bits) for a, n in _received(op, row, lane, wave))
    return sums % (1 << 32)


def _received(op, row: list[int], lane: int, wave: int) -> list[tuple[int, int]]:
    """The (byte offset, bytes) runs lane ``lane`` receives from one instruction whose slot offsets
    are ``row``. ldmatrix (PTX ISA, the m8n8 .b16 fragment): register i of lane l is row l / 4 of
    matrix i, elements 2 (l % 4) and 2 (l % 4) + 1; with .trans, rows 2 (l % 4) and 2 (l % 4) + 1 of
    its column l / 4. Any other op: the lane's own slot(s) (two for ds_read2)."""
    if op.matrices:
        out = []
        for i in range(op.matrices):
            rows = row[8 * i:8 * i + 8]
            if op.trans:
                out += [(rows[2 * (lane % 4)] + 2 * (lane // 4), 2), (rows[2 * (lane % 4) + 1] + 2 * (lane // 4), 2)]
            else:
                out.append((rows[lane // 4] + 4 * (lane % 4), 4))
        return out
    return [(row[s], op.lane_bytes) for s in range(lane, len(row), wave) if row[s] >= 0]


def weighted(op) -> bool:
    """Whether the host checks each lane's sum (weighted by 2 l + 1), or only their total: the
    transposing AMD loads move data between lanes in ways this module does not model."""
    return "_tr_" not in op.name


def checksum(access: ProbeAccess, storage_bytes: int, wave: int) -> int | None:
    """What the host computes from the lanes' sums: sum over lanes l of (2 l + 1) * sum_l (or of
    sum_l, where not ``weighted``), mod 2^32; None for a store."""
    sums = lane_sums(access, storage_bytes, wave)
    if sums is None:
        return None
    weights = np.arange(wave) * 2 + 1 if weighted(access.op) else np.ones(wave, np.int64)
    return int((sums * weights).sum() % (1 << 32))


def fill_instructions(storage_bytes: int, wave: int) -> int:
    """Instructions of the fill: each stores ``wave`` consecutive 32-bit words."""
    words = -(-storage_bytes // 4)
    return -(-words // wave)


def c_table(values: np.ndarray, per_line: int) -> str:
    """An int table as C initialiser lines (indented), ``per_line`` values a line."""
    flat = values.reshape(-1).tolist()
    lines = [", ".join(str(v) for v in flat[i:i + per_line]) for i in range(0, len(flat), per_line)]
    return ",\n".join("    " + line for line in lines)


def c_string(text: str) -> str:
    """``text`` as a C string literal (printable ASCII; anything else escaped)."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif " " <= ch <= "~":
            out.append(ch)
        else:
            out.append(f"\\x{ord(ch) & 0xFF:02x}\"\"")
    return '"' + "".join(out) + '"'


def comment(text: str) -> str:
    """``text`` safe inside a // comment (one line, printable, no line splice)."""
    return "".join(ch if " " <= ch <= "~" else "?" for ch in text).replace("\\", "/")
