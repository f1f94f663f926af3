"""The handler of every opcode the emulator executes (execute.py, memory.py), as one table."""
from __future__ import annotations

from .emulator import Decoder, Handler
from .execute import (
    NOTHING,
    UNKNOWN,
    decode,
    h_bfe,
    h_bfi,
    h_binary,
    h_bra,
    h_call,
    h_cvt,
    h_cvta,
    h_elect,
    h_exit,
    h_lop3,
    h_mad,
    h_mbarrier,
    h_mov,
    h_nothing,
    h_prmt,
    h_selp,
    h_set,
    h_setp,
    h_shf,
    h_shfl,
    h_unary,
    h_unknown,
)
from .memory import memory_handlers


def handlers() -> dict[str, Handler]:
    table: dict[str, Handler] = {}
    for op in ("add", "sub", "mul", "mul24", "div", "rem", "min", "max", "and", "or", "xor", "shl", "shr"):
        table[op] = h_binary
    for op in ("mad", "mad24"):
        table[op] = h_mad
    for op in ("neg", "abs", "not", "cnot", "popc", "clz", "brev"):
        table[op] = h_unary
    table.update(mov=h_mov, selp=h_selp, setp=h_setp, set=h_set, bfe=h_bfe, bfi=h_bfi, prmt=h_prmt, lop3=h_lop3,
                 shf=h_shf, shfl=h_shfl, cvt=h_cvt, cvta=h_cvta, bra=h_bra, ret=h_exit, exit=h_exit, call=h_call, elect=h_elect)
    for op in NOTHING:
        table[op] = h_nothing
    for op in UNKNOWN:
        table[op] = h_unknown
    table["mbarrier"] = h_mbarrier
    table.update(memory_handlers())
    return table


HANDLERS = handlers()
# the opcodes with a decoded step (taken where it applies, else the handler): see execute.decode
DECODERS: dict[str, Decoder] = {op: decode for op in ("add", "sub", "mul", "and", "or", "xor", "shl", "shr", "mov",
                                                  "setp")}
