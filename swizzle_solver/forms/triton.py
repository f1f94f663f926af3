"""Triton's shared-memory encodings as records (what ``--emit triton`` writes; notation/triton.py reads
the same attributes), each printed as the MLIR attribute (``mlir``) and the Gluon constructor
(``gluon``), with ``--order col`` as an operation on the record (forms/__init__.py):

- ``Swizzled``: ``#ttg.swizzled_shared<{vec, perPhase, maxPhase, order}>``;
- ``Nvmma``: ``#ttg.nvmma_shared<{swizzlingByteWidth, transposed, elementBitWidth}>``;
- ``Padded``: ``#ttg.padded_shared<[interval:+padding] {order, shape}>``;
- ``SharedLinear``: ``#ttg.shared_linear<{offset = bases}>``, offset bit i -> [row, col].

``transpose()``: the user's column-major tile is the stored one with dimension 0 contiguous: the
order [1, 0] becomes [0, 1] (NVMMA: ``transposed``), a shape [R, C] becomes [C, R], and each offset
basis [row, col] becomes [col, row].
"""
from __future__ import annotations

from ..value import Value


def _order(order: tuple[int, int]) -> str:
    return f"[{order[0]}, {order[1]}]"


class Swizzled(Value):
    vec: int
    per_phase: int
    max_phase: int
    order: tuple[int, int] = (1, 0)

    def transpose(self) -> Swizzled:
        return Swizzled(self.vec, self.per_phase, self.max_phase, self.order[::-1])

    def mlir(self) -> str:
        return (f"#ttg.swizzled_shared<{{vec = {self.vec}, perPhase = {self.per_phase}, maxPhase = {self.max_phase}, "
                f"order = {_order(self.order)}}}>")

    def gluon(self) -> str:
        return (f"ttgl.SwizzledSharedLayout(vec={self.vec}, per_phase={self.per_phase}, max_phase={self.max_phase}, "
                f"order={_order(self.order)})")


class Nvmma(Value):
    width: int  # swizzlingByteWidth
    bits: int  # elementBitWidth
    transposed: bool = False

    def transpose(self) -> Nvmma:
        return Nvmma(self.width, self.bits, not self.transposed)

    def mlir(self) -> str:
        return (f"#ttg.nvmma_shared<{{swizzlingByteWidth = {self.width}, transposed = "
                f"{'true' if self.transposed else 'false'}, elementBitWidth = {self.bits}}}>")

    def gluon(self) -> str:
        return (f"ttgl.NVMMASharedLayout(swizzle_byte_width={self.width}, element_bitwidth={self.bits}, rank=2"
                f"{', transposed=True' if self.transposed else ''})")


class Padded(Value):
    interval: int
    padding: int
    shape: tuple[int, int]
    order: tuple[int, int] = (1, 0)

    def transpose(self) -> Padded:
        return Padded(self.interval, self.padding, self.shape[::-1], self.order[::-1])

    def mlir(self) -> str:
        return (f"#ttg.padded_shared<[{self.interval}:+{self.padding}] {{order = {_order(self.order)}, "
                f"shape = {_order(self.shape)}}}>")

    def gluon(self) -> str:
        return (f"ttgl.PaddedSharedLayout.with_identity_for([[{self.interval}, {self.padding}]], {_order(self.shape)}, "
                f"{_order(self.order)})")


class SharedLinear(Value):
    bases: tuple[tuple[int, int], ...]  # offset bit i -> [row, col]

    def transpose(self) -> SharedLinear:
        return SharedLinear(tuple((c, r) for r, c in self.bases))

    def _bases(self) -> str:
        return str([list(b) for b in self.bases])

    def mlir(self) -> str:
        return f"#ttg.shared_linear<{{offset = {self._bases()}}}, alignment = 16>"

    def gluon(self) -> str:
        return f"ttgl.SharedLinearLayout(offset_bases={self._bases()})"


__all__ = ["Nvmma", "Padded", "SharedLinear", "Swizzled"]
