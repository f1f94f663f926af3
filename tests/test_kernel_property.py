"""The emulator against a direct evaluation (issue 32's property test): random straight-line PTX in
a loop, an address = f(%tid.x, %tid.y, k) over the integer instructions the emulator runs; every
recorded address equals f evaluated here, in Python, on u32 arithmetic written from the PTX ISA.

Hypothesis generates the programs (slow tier, tests/conftest.py); one fixed program stays in the
fast tier."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from swizzle_solver import kernel

M = 0xFFFFFFFF
# op -> (PTX, its value on u32 operands)
OPS = {
    "add": ("add.u32", lambda a, b: (a + b) & M),
    "sub": ("sub.u32", lambda a, b: (a - b) & M),
    "mul": ("mul.lo.u32", lambda a, b: (a * b) & M),
    "and": ("and.b32", lambda a, b: a & b),
    "or": ("or.b32", lambda a, b: a | b),
    "xor": ("xor.b32", lambda a, b: a ^ b),
    "min": ("min.u32", min),
    "max": ("max.u32", max),
    "shl": ("shl.b32", lambda a, b: (a << b) & M if b < 32 else 0),
    "shr": ("shr.u32", lambda a, b: a >> b if b < 32 else 0),
    "hi": ("mul.hi.u32", lambda a, b: (a * b) >> 32),
    "sel": ("selp", None),
}

Step = tuple[str, int, int | None, int]  # (op, first operand's register, second's register or None, constant)


def program(steps: list[Step], trips: int, block=(16, 4)) -> tuple[str, callable]:
    """The PTX, and f(tx, ty, k): the byte address its ld.shared reads in trip k."""
    regs = ["%r1", "%r2", "%r3"]  # tid.x, tid.y, k
    lines = []
    for i, (op, a, b, c) in enumerate(steps):
        x = regs[a % len(regs)]
        y = regs[b % len(regs)] if b is not None else str(c % 32 if op in ("shl", "shr") else c)
        d = f"%r{10 + i}"
        if op == "sel":
            lines += [f"setp.lt.u32 %p2, {x}, {y};", f"selp.b32 {d}, {x}, {c}, %p2;"]
        else:
            lines.append(f"{OPS[op][0]} {d}, {x}, {y};")
        regs.append(d)
    body = "\n\t".join(lines)
    text = f""".version 8.0
.target sm_90
.address_size 64
.visible .entry prop()
.reqntid {block[0]}, {block[1]}, 1
{{
	.reg .pred %p<4>;
	.reg .b32 %r<200>;
	.reg .f32 %f<2>;
	.shared .align 16 .b8 buf[16384];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %tid.y;
	mov.u32 %r3, 0;
	mov.u32 %r4, buf;
$LOOP:
	{body}
	and.b32 %r5, {regs[-1]}, 4095;
	shl.b32 %r6, %r5, 2;
	add.u32 %r7, %r4, %r6;
	ld.shared.f32 %f1, [%r7];
	add.u32 %r3, %r3, 1;
	setp.lt.u32 %p1, %r3, {trips};
	@%p1 bra $LOOP;
	ret;
}}
"""

    def f(tx: int, ty: int, k: int) -> int:
        vals = [tx, ty, k]
        for op, a, b, c in steps:
            x = vals[a % len(vals)]
            y = vals[b % len(vals)] if b is not None else (c % 32 if op in ("shl", "shr") else c)
            vals.append((x if x < y else c) if op == "sel" else OPS[op][1](x, y))
        return (vals[-1] & 4095) * 4

    return text, f


def check(steps: list[Step], trips: int) -> None:
    text, f = program(steps, trips)
    result = kernel(text).kernels[0]
    events = result.emu.events
    assert len(events) == trips
    for k, e in enumerate(events):
        threads = e.threads.tolist()
        assert threads == list(range(64)) and not e.unknown.any()
        assert e.addresses.tolist() == [f(t % 16, t // 16, k) for t in threads]


def test_one_fixed_program():
    check([("mul", 0, None, 33), ("xor", 3, 1, 0), ("shl", 4, None, 3), ("add", 5, 2, 0), ("sel", 6, None, 77),
           ("hi", 7, None, 0x9E3779B9), ("max", 8, 0, 0), ("sub", 9, 2, 0), ("shr", 10, None, 2)], 3)


steps = st.lists(st.tuples(st.sampled_from(sorted(OPS)), st.integers(0, 50), st.one_of(st.none(), st.integers(0, 50)),
                           st.integers(0, M)), min_size=1, max_size=12)


@settings(max_examples=60, deadline=None)
@given(steps, st.integers(1, 4))
def test_random_programs(program_steps, trips):
    check(program_steps, trips)


# --- mutated PTX: a report or one line of bad input, never a crash --------------------------------

from pathlib import Path  # noqa: E402

from swizzle_solver.compiled.report import analyse  # noqa: E402
from swizzle_solver.model import InputError  # noqa: E402

KERNELS = Path(__file__).resolve().parent / "data" / "kernels"
SOURCES = [(KERNELS / f"{name}.ptx").read_text().splitlines()
           for name in ("transpose", "cp_async_ldmatrix", "sgemm", "triton_transpose")]
TOKENS = ["%r1,", "%rd2,", "0,", "-1,", "%p1,", "%f1,", "[%r1],", "4096,", "0f3F800000,", "add.u64", "shl.b32",
          "ld.shared.v2.f32", "{", "}", "$L__BB0_2", "@%p1", ".shared", ".reqntid 0", ";", "bra", "%tid.x", "ret;"]


def mutated(source: int, edits: list[tuple[int, int, int, int]]) -> str:
    lines = list(SOURCES[source])
    for kind, at, other, token in edits:
        i = at % len(lines)
        if kind == 0:
            del lines[i]
        elif kind == 1:
            lines.insert(i, lines[other % len(lines)])
        elif lines[i].split():
            words = lines[i].split()
            words[other % len(words)] = TOKENS[token % len(TOKENS)]
            lines[i] = " ".join(words)
    return "\n".join(lines)


def report_or_one_line(text: str) -> None:
    try:
        analyse(text, "mutated", block=(64, 4), params={"2": 16, "1": 8}, iterations=3, max_steps=20_000)
    except InputError as err:
        assert "\n" not in str(err) and str(err)


def test_a_wrong_operand_count_is_one_line():
    text = (KERNELS / "transpose.ptx").read_text().replace("add.s32 \t%r5, %r3, %r4;", "add.s32 \t%r5;", 1)
    try:
        analyse(text, "t", kernels=["transpose_naive"], block=(32, 8))
    except InputError as err:
        assert "is not a form of add the emulator knows" in str(err) and str(err).startswith("PTX line ")
    else:
        raise AssertionError("accepted")
    report_or_one_line(mutated(2, [(2, 300, 1, 0), (0, 10, 0, 0)]))


edits = st.lists(st.tuples(st.integers(0, 2), st.integers(0, 10**6), st.integers(0, 10**6), st.integers(0, 100)),
                 min_size=1, max_size=4)


@settings(max_examples=150, deadline=None)
@given(st.integers(0, len(SOURCES) - 1), edits)
def test_mutated_ptx_never_crashes(source, changes):
    report_or_one_line(mutated(source, changes))
