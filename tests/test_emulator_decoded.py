"""The emulator's decoded steps (execute.decode, isa.DECODERS; issue 33 item 6): an integer
add/sub/mul/and/or/xor/shl/shr, mov or setp of registers and immediates, decoded once per
instruction at its second step, gives the state its handler gives, value for value, unknown mask for
unknown mask, with the same reasons, for every thread at the PC and for a diverged part of the CTA;
the forms it does not take are left to the handler. The reference is the same kernel (a loop run
twice) run with the handlers alone, and a few registers are also computed here from their formulas."""
from __future__ import annotations

import numpy as np
import pytest

from swizzle_solver.compiled.emulator import Emulator
from swizzle_solver.compiled.execute import decode
from swizzle_solver.compiled.isa import DECODERS, HANDLERS
from swizzle_solver.compiled.ptx import parse

THREADS = 64  # two warps

KERNEL = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k()
.maxntid 64, 1, 1
{
	.reg .pred %p<4>;
	.reg .b16 %rs<8>;
	.reg .b32 %r<40>;
	.reg .b64 %rd<10>;
	.shared .align 4 .b8 buf[1024];
	mov.u32 %r1, %tid.x;
	mov.u32 %r30, 0;
$AGAIN:
	mov.u32 %r2, buf;
	shl.b32 %r3, %r1, 2;
	add.s32 %r4, %r2, %r3;
	ld.shared.u32 %r5, [%r4];
	add.s32 %r6, %r5, %r1;
	sub.s32 %r7, %r1, 100;
	mul.lo.s32 %r8, %r7, -7;
	and.b32 %r9, %r8, 255;
	or.b32 %r10, %r9, %r6;
	xor.b32 %r11, %r10, %r1;
	add.s32 %r12, %r13, 1;
	add.s32 %r12, %r12, 1;
	mul.wide.s32 %rd1, %r7, 3;
	add.s64 %rd2, %rd1, -1;
	mul.lo.u64 %rd3, %rd2, 6700417;
	sub.u64 %rd4, 0, %rd3;
	cvt.u16.u32 %rs1, %r1;
	add.u16 %rs2, %rs1, 65535;
	mul.lo.s16 %rs3, %rs2, %rs2;
	xor.b16 %rs4, %rs3, -1;
	mul.hi.u32 %r19, %r8, %r8;
	mul.wide.u16 %r20, %rs3, %rs2;
	shr.u32 %r21, %r8, 7;
	shr.u32 %r22, %r8, %r1;
	shl.b32 %r23, %r8, %r1;
	shl.b16 %rs5, %rs3, %r1;
	shr.s32 %r24, %r8, 3;
	shl.b64 %rd5, %rd4, %r1;
	mov.u32 %r25, %r22;
	mov.b16 %rs6, -2;
	mov.u32 %r26, %r5;
	setp.lt.s32 %p2, %r7, -50;
	setp.hi.u64 %p3, %rd4, 1000000000;
	setp.ne.b32 %p2, %r6, %r1;
	selp.u32 %r27, 1, 0, %p3;
	rem.u32 %r14, %r1, 3;
	setp.eq.u32 %p1, %r14, 0;
	mov.u32 %r15, 7;
	mov.u32 %r16, 5;
	@%p1 bra $SKIP;
	add.s32 %r15, %r1, 1000;
	mul.lo.s32 %r16, %r15, %r6;
	xor.b32 %r16, %r16, -1;
	@%p1 add.s32 %r17, %r1, 1;
$SKIP:
	add.s32 %r18, %r15, %r16;
	st.shared.u32 [%r4], %r18;
	add.s32 %r30, %r30, 1;
	setp.lt.u32 %p0, %r30, 2;
	@%p0 bra $AGAIN;
	ret;
}
"""


def run(decoders=None) -> Emulator:
    module = parse(KERNEL)
    emu = Emulator(module, module.functions["k"], (THREADS, 1, 1), (0, 0, 0), {}, None)
    emu.run(HANDLERS, decoders)
    return emu


def counting(taken: dict[str, int]):
    """DECODERS whose steps count where they were taken: for every thread (at None) or for some."""

    def decoder(emu, ins):
        step = decode(emu, ins)
        if step is None:
            return None

        def counted(at):
            done = step(at)
            if done:
                taken["every" if at is None else "some"] += 1
            return done

        return counted

    return {op: decoder for op in DECODERS}


def test_the_decoded_steps_give_the_handlers_state():
    taken = {"every": 0, "some": 0}
    reference, decoded = run(), run(counting(taken))
    # the second time round the loop, the decoded steps ran: for the converged CTA (every decodable
    # instruction there, 33) and for the lanes that did not branch (3)
    assert taken == {"every": 33, "some": 3}, taken
    assert sorted(reference.regs) == sorted(decoded.regs)
    for name, want in reference.regs.items():
        got = decoded.regs[name]
        assert np.array_equal(got.v, want.v), name
        assert (got.u is None) == (want.u is None), name
        assert want.u is None or np.array_equal(got.u, want.u), name
        assert (got.why, got.shared) == (want.why, want.shared), name
    assert len(reference.events) == len(decoded.events) == 4  # (a load and a store, twice)
    for a, b in zip(reference.events, decoded.events, strict=True):
        assert a.pc == b.pc and a.reason == b.reason
        assert np.array_equal(a.threads, b.threads) and np.array_equal(a.addresses, b.addresses)
        assert np.array_equal(a.unknown, b.unknown)


def test_the_decoded_values_against_their_formulas():
    regs = run(DECODERS).regs
    tid = np.arange(THREADS)
    m32 = (1 << 32) - 1
    r7 = [(t - 100) & m32 for t in range(THREADS)]
    r8 = [((t - 100) * -7) & m32 for t in range(THREADS)]
    assert regs["%r7"].v.tolist() == r7 and regs["%r8"].v.tolist() == r8
    assert regs["%r9"].v.tolist() == [x & 255 for x in r8]
    rd4 = [(-(((t - 100) * 3 - 1) * 6700417)) & ((1 << 64) - 1) for t in range(THREADS)]
    assert [x & ((1 << 64) - 1) for x in regs["%rd4"].v.tolist()] == rd4
    rs3 = [((t + 0xFFFF) & 0xFFFF) ** 2 & 0xFFFF for t in range(THREADS)]
    assert regs["%rs4"].v.tolist() == [x ^ 0xFFFF for x in rs3]
    rs2 = [(t + 0xFFFF) & 0xFFFF for t in range(THREADS)]
    assert regs["%r20"].v.tolist() == [a * b for a, b in zip(rs3, rs2, strict=True)]  # mul.wide.u16: 32 bits
    # shifts by tid (0 .. 63): by 32 or more nothing is left, either way
    assert regs["%r21"].v.tolist() == [x >> 7 for x in r8]
    assert regs["%r22"].v.tolist() == [x >> t if t < 32 else 0 for t, x in zip(range(THREADS), r8, strict=True)]
    assert regs["%r23"].v.tolist() == [(x << t) & m32 if t < 32 else 0 for t, x in zip(range(THREADS), r8, strict=True)]
    assert regs["%rs5"].v.tolist() == [(x << t) & 0xFFFF if t < 16 else 0 for t, x in zip(range(THREADS), rs3, strict=True)]
    assert regs["%r25"].v.tolist() == regs["%r22"].v.tolist() and regs["%rs6"].v.tolist() == [0xFFFE] * THREADS
    assert regs["%r26"].u.all() and regs["%r26"].why == regs["%r5"].why
    # comparisons: unsigned 64-bit (true for some lanes), and on an unknown
    assert regs["%r27"].v.tolist() == [int(x > 10**9) for x in rd4] and len(set(regs["%r27"].v.tolist())) == 2
    assert regs["%p2"].u.all() and "shared-memory load" in regs["%p2"].why
    # the address is the shared symbol's plus 4 tid, known and marked shared; the load's value unknown
    assert regs["%r4"].u is None and regs["%r4"].shared and np.array_equal(regs["%r4"].v - regs["%r2"].v, 4 * tid)
    for name in ("%r6", "%r10", "%r11"):
        assert regs[name].u is not None and regs[name].u.all() and "shared-memory load" in regs[name].why
    # a register read before it is written: the handler's unknown, with its reason, carried on
    assert regs["%r12"].u.all() and "%r13 read before it is written" in regs["%r12"].why
    # the lanes that branched (tid % 3 == 0) keep %r15 = 7; the others have tid + 1000
    assert regs["%r15"].v.tolist() == [7 if t % 3 == 0 else t + 1000 for t in range(THREADS)]
    assert regs["%r15"].u is None
    assert np.array_equal(regs["%r16"].u, tid % 3 != 0)  # unknown where %r6 was multiplied in


@pytest.mark.parametrize("line", [
    "@%p1 add.s32 %r1, %r2, 1",  # a guard
    "mul.hi.u32 %r1, %r2, %r3",
    "add.f32 %f1, %f2, %f3",
    "shr.s32 %r1, %r2, 3",  # an arithmetic shift
    "shr.b64 %rd1, %rd2, 3",
    "shl.b64 %rd1, %rd2, 3",
    "mov.u32 %r1, %tid.x",
    "mov.u32 %r1, buf",
    "mov.b32 %r1, {%rs1, %rs2}",
    "mov.pred %p1, !%p2",
    "setp.eq.and.s32 %p1, %r1, 0, %p2",  # a BoolOp
    "setp.lt.f32 %p1, %f1, %f2",
    "setp.eq.s32 %p1|%p2, %r1, 0",  # a pair
    "and.pred %p1, %p2, %p3",
    "and.pred %p1, !%p2, %p3",
    "add.s32 %r1, %r2, %tid.x",  # a special register
    "add.s32 %r1, %r2, buf",  # a symbol
    "add.s32 %r1, %r2",  # an operand missing: the handler refuses it
])
def test_the_forms_left_to_the_handler(line):
    module = parse(KERNEL.replace("\tret;", f"\t{line};\n\tret;").replace(".reg .b64", ".reg .f32 %f<4>;\n\t.reg .b64"))
    emu = Emulator(module, module.functions["k"], (THREADS, 1, 1), (0, 0, 0), {}, None)
    ins = module.functions["k"].code[-2]
    assert ins.text == " ".join(line.split())
    assert decode(emu, ins) is None


def test_the_decoded_kernel_reports_what_the_handlers_report():
    """The whole report (kernel()'s JSON) of the kernel with and without the decoded steps."""
    from swizzle_solver.compiled import report

    with_decoded = report.analyse(KERNEL, "k").to_json()
    original = report.Emulator.run
    try:
        report.Emulator.run = lambda self, handlers, decoders=None: original(self, handlers, None)
        without = report.analyse(KERNEL, "k").to_json()
    finally:
        report.Emulator.run = original
    assert with_decoded == without and with_decoded["kernels"][0]["instructions"]
