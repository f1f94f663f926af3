"""The hardware: shared-memory banks, and how an instruction's lanes are served in phases.

Everything the tool knows about a GPU's shared memory is one ``Hardware`` value (DESIGN.md
sections 1 and 7): ``banks`` banks of ``bank_bytes`` bytes (byte address a is in word
a // bank_bytes, and word w in bank w mod banks), so one wavefront serves ``banks * bank_bytes``
bytes; a wave of ``wave_lanes`` lanes; and the *phase rule*, which lanes of one request the
hardware serves together. On NVIDIA GPUs:

    <= 4-byte lanes: 32 lanes per phase;  8-byte: 16;  16-byte: 8   (consecutive lanes)

and ldmatrix / stmatrix serve each matrix of 8 rows x 16 bytes as one phase.

Every module that needs a unit, a slot, the words of an element, the lanes of a wave or the
wavefront size asks this object (or the ``Geometry`` it derives for one lane width), so the rule
is stated once. A new target is one entry of ``TARGETS``: its bank geometry, its wave size, and
its phase rule as data (``phase_lanes`` for the contiguous rule by lane width; a target whose
phases are not contiguous lane ranges lists them per lane width in ``phase_sets``, e.g. 64 lanes
served as {0-3, 20-23}, {4-7, 16-19}, ...). Where a rule differs by instruction (a bank count or
phase sets of one ds_read form), the entry for that instruction is again a ``Hardware`` (made with
``dataclasses.replace``), so every consumer keeps asking the same questions of the same type.

This module imports nothing from the package: it is the bottom layer.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

Lane = tuple[int, int, int]  # (row, col, bytes): the first element a lane reads, and how many bytes


def _log2(x: int) -> int:
    assert x > 0 and x & (x - 1) == 0, x
    return x.bit_length() - 1


def slot_offset_bits(unit_shift: int, slot_mask: int) -> list[int]:
    """The element-offset bits that choose a unit's slot: ``slot_mask`` (slots - 1) above bit
    ``unit_shift`` (the unit's log2 in elements)."""
    return [unit_shift + j for j in range(slot_mask.bit_length())]


@dataclass(frozen=True)
class Geometry:
    """The bank geometry seen by lanes of one width (DESIGN.md section 3; proof.py, separation.py).

    A lane's *unit* is max(lane, bank word) bytes: the bytes of one unit are served together (a
    whole vector, or lanes sharing a word: broadcast). The units of one wavefront are told apart
    by their *slot*, unit index mod ``slots``; in element offsets the slot is bits
    [unit_shift, unit_shift + slot_bits).
    """

    elem_bytes: int
    lane_bytes: int
    bank_bytes: int
    wavefront_bytes: int

    @property
    def unit_bytes(self) -> int:
        return max(self.lane_bytes, self.bank_bytes)

    @property
    def fits(self) -> bool:
        """A unit is whole elements and fits one wavefront: the slot view applies."""
        return self.elem_bytes <= self.unit_bytes <= self.wavefront_bytes

    @property
    def unit_shift(self) -> int:
        """u: log2 of the unit in elements (element-offset bits below the unit)."""
        return _log2(self.unit_bytes // self.elem_bytes)

    @property
    def slots(self) -> int:
        """Units one wavefront serves side by side (at least 1: a unit wider than a wavefront)."""
        return max(1, self.wavefront_bytes // self.unit_bytes)

    @property
    def slot_bits(self) -> int:
        return _log2(self.slots)

    @property
    def slot_mask(self) -> int:
        return self.slots - 1

    @property
    def slot_offset_bits(self) -> list[int]:
        """The element-offset bits that choose a unit's slot."""
        return slot_offset_bits(self.unit_shift, self.slot_mask)

    @property
    def unit_words(self) -> int:
        """Bank words in one unit (the word positions inside it)."""
        return self.unit_bytes // self.bank_bytes

    @property
    def word_shift(self) -> int:
        """Word-address bits inside one unit: the slot is word-address bits above them."""
        return _log2(self.unit_words)


@dataclass(frozen=True)
class Hardware:
    """One shared-memory target. Immutable and hashable (the proof caches per (tile, hardware))."""

    name: str = "nvidia"
    banks: int = 32
    bank_bytes: int = 4
    wave_lanes: int = 32  # lanes of one warp / wave
    # Contiguous phase rule: (widest lane bytes, lanes per phase), narrowest first.
    phase_lanes: tuple[tuple[int, int], ...] = ((4, 32), (8, 16), (16, 8))
    # Non-contiguous phase rule, per lane width: (lane bytes, (lane indices of each phase, ...)).
    # A width listed here takes precedence over phase_lanes (for targets that need it).
    phase_sets: tuple[tuple[int, tuple[tuple[int, ...], ...]], ...] = ()
    matrix_rows: int = 8  # ldmatrix / stmatrix: one matrix of 8 rows x 16 bytes is one phase
    matrix_row_bytes: int = 16

    @property
    def wavefront_bytes(self) -> int:
        """Bytes one wavefront serves: one word from every bank."""
        return self.banks * self.bank_bytes

    def with_banks(self, banks: int, bank_bytes: int) -> Hardware:
        """The same target with another bank geometry (``--banks``/``--bank-bytes``)."""
        return replace(self, banks=banks, bank_bytes=bank_bytes)

    # --- the lower bound -----------------------------------------------------------------------

    def lower_bound(self, phase_bytes: int) -> int:
        """Wavefronts a phase reading ``phase_bytes`` distinct bytes needs under any layout."""
        return max(1, -(-phase_bytes // self.wavefront_bytes))

    # --- the phase rule ------------------------------------------------------------------------

    def lanes_per_phase(self, lane_bytes: int) -> int:
        """Lanes served in one phase under the contiguous rule, by the bytes each lane reads."""
        for widest, lanes in self.phase_lanes:
            if lane_bytes <= widest:
                return lanes
        raise ValueError(f"{self.name}: no phase rule for {lane_bytes}-byte lanes")

    def phase_indices(self, lanes: int, lane_bytes: int) -> list[list[int]]:
        """The lane indices of each phase of one request of ``lanes`` lanes of one width."""
        for width, sets in self.phase_sets:
            if width == lane_bytes:
                return [[i for i in s if i < lanes] for s in sets if any(i < lanes for i in s)]
        size = self.lanes_per_phase(lane_bytes)
        return [list(range(i, min(i + size, lanes))) for i in range(0, lanes, size)]

    def split_request(self, request: list[Lane]) -> list[list[Lane]]:
        """One request (every lane the same width) as its phases, each in lane order."""
        return [[request[i] for i in phase] for phase in self.phase_indices(len(request), request[0][2])]

    # --- words and banks -----------------------------------------------------------------------

    def geometry(self, elem_bytes: int, lane_bytes: int) -> Geometry:
        return Geometry(elem_bytes, lane_bytes, self.bank_bytes, self.wavefront_bytes)

    def element_words(self, elem_bytes: int) -> int:
        """Bank words one element spans (1 when a word holds one or more elements)."""
        return max(1, elem_bytes // self.bank_bytes)

    def first_word(self, offsets, elem_bytes: int):
        """The word holding the first byte of each element at physical element ``offsets``."""
        return offsets * elem_bytes // self.bank_bytes

    def bank(self, words):
        return words % self.banks

    def words_of_element(self, offset: int, elem_bytes: int) -> range:
        """Every word the element at physical offset ``offset`` touches."""
        first = offset * elem_bytes // self.bank_bytes
        return range(first, first + self.element_words(elem_bytes))

    def words(self, offsets: np.ndarray, elem_bytes: int) -> np.ndarray:
        """The words of physical element offsets (shape (n, k)), row by row:
        shape (n, k * element_words)."""
        e, bb = elem_bytes, self.bank_bytes
        if e <= bb:  # one word holds bb // e elements (both powers of two)
            return offsets // (bb // e)
        span = e // bb  # words spanned by one element
        return (offsets[..., None] * span + np.arange(span)).reshape(offsets.shape[0], -1)


# The targets by name. A new target is one entry here (plus its tests): its banks, bank width,
# wave size and phase rule. Today: NVIDIA's 32 banks of 4 bytes and 32-lane warps.
TARGETS: dict[str, Hardware] = {
    "nvidia": Hardware(),
}
DEFAULT = TARGETS["nvidia"]
