"""`swizzle-solve kernel FILE.ptx` (DESIGN.md section 15): every shared-memory instruction of a PTX
kernel counted for one CTA.

The counts are checked against a per-lane brute force written here from the hardware rules
(NVIDIA: a request's lanes served in phases of 32 lanes of up to 4 bytes, 16 of 8, 8 of 16; a load
by the whole warp whose lanes repeat in pairs (n^1 or n^2) of 8 or 16 bytes served two phases at
once; a phase costs the most distinct words in one bank, ideally max(1, ceil(distinct bytes /
128))), on addresses computed here from each kernel's own formula, not by the tool's emulator.
"""
import json
import re
from pathlib import Path

import pytest

from swizzle_solver import kernel
from swizzle_solver.model import InputError
from tests import clirun
from tests.test_schema import validate

DATA = Path(__file__).resolve().parent / "data"
TRANSPOSE = DATA / "kernels" / "transpose.ptx"


# --- the brute force ------------------------------------------------------------------------------


def phase_cost(lanes: list[tuple[int, int]]) -> tuple[int, int]:
    """(wavefronts, ideal) of one phase: lanes as (byte address, bytes)."""
    words = {w for a, b in lanes for w in range(a // 4, (a + b - 1) // 4 + 1)}
    per_bank: dict[int, int] = {}
    for w in words:
        per_bank[w % 32] = per_bank.get(w % 32, 0) + 1
    distinct = len({x for a, b in lanes for x in range(a, a + b)})
    return max(per_bank.values()), max(1, -(-distinct // 128))


def instance_cost(addresses: dict[int, int], width: int, store: bool) -> tuple[int, int]:
    """(wavefronts, ideal) of one warp instruction: lane -> byte address of its active lanes."""
    size = 32 if width <= 4 else 16 if width == 8 else 8
    phases = [[lane for lane in range(i, i + size)] for i in range(0, 32, size)]
    full = len(addresses) == 32
    if not store and width in (8, 16) and full and any(all(addresses[n] == addresses[n ^ k] for n in range(32))
                                                       for k in (1, 2)):
        phases = [phases[i] + phases[i + 1] for i in range(0, len(phases), 2)]
    total = ideal = 0
    for phase in phases:
        lanes = [(addresses[n], width) for n in phase if n in addresses]
        if lanes:
            w, i = phase_cost(lanes)
            total, ideal = total + w, ideal + i
    return total, ideal


def brute(instances: list[tuple[dict[int, int], int, bool]]) -> tuple[int, int]:
    w = i = 0
    for addresses, width, store in instances:
        a, b = instance_cost(addresses, width, store)
        w, i = w + a, i + b
    return w, i


# --- hand-written kernels -------------------------------------------------------------------------

HEAD = """.version 8.0
.target sm_90
.address_size 64
"""


def one_access(op: str, stride: int, threads: int = 64, offset: int = 0) -> str:
    """A kernel whose only shared access is ``op`` at byte tid.x * stride + offset of a 16 KiB buffer."""
    dest = {"ld.shared.f32": "%f1", "ld.shared.v2.f32": "{%f1, %f2}", "ld.shared.v4.f32": "{%f1, %f2, %f3, %f4}",
            "ld.shared.u8": "%rs1", "ld.shared.u16": "%rs1"}
    body = (f"{op} {dest[op]}, [%r4+{offset}];" if op.startswith("ld") else
            f"{op} [%r4+{offset}], {'%f1' if op.endswith('f32') else '{%f1, %f2}' if 'v2' in op else '{%f1, %f2, %f3, %f4}'};")
    return HEAD + f""".visible .entry k()
.reqntid {threads}, 1, 1
{{
	.reg .b16 %rs<4>;
	.reg .b32 %r<8>;
	.reg .f32 %f<8>;
	.shared .align 16 .b8 buf[16384];
	mov.u32 %r1, %tid.x;
	mul.lo.s32 %r2, %r1, {stride};
	mov.u32 %r3, buf;
	add.s32 %r4, %r3, %r2;
	mov.f32 %f1, 0f3F800000;
	{body}
	ret;
}}
"""


WIDTH = {"ld.shared.f32": 4, "ld.shared.v2.f32": 8, "ld.shared.v4.f32": 16, "ld.shared.u8": 1, "ld.shared.u16": 2,
         "st.shared.f32": 4, "st.shared.v2.f32": 8, "st.shared.v4.f32": 16}


@pytest.mark.parametrize("op, stride", [(op, s) for op in WIDTH for s in (0, WIDTH[op], 4, 8, 16, 128, 132, 136)
                                        if s % WIDTH[op] == 0])
def test_one_access_against_the_brute_force(op, stride):
    width = WIDTH[op]
    row = kernel(one_access(op, stride)).kernels[0].rows[0]
    want = brute([({lane: (32 * w + lane) * stride for lane in range(32)}, width, op.startswith("st"))
                  for w in range(2)])
    assert (row.counted.wavefronts, row.counted.ideal) == want
    assert row.counted.instances == 2



@pytest.mark.parametrize("op", ["ld.shared.v4.f32", "st.shared.v4.f32", "ld.shared.f32"])
def test_a_state_space_with_its_sub_qualifier_is_the_same_access(op):
    """``ld.shared::cta.v4.f32 {...}, [...]`` (PTX 7.8's explicit ``::cta``): the scanner read the
    ``ld.shared:`` before ``:cta`` as a label (a PTX identifier has no dot) once a vector's brace sent
    the line to the character scan. The same counts as the plain ``.shared``."""
    plain = kernel(one_access(op, 16)).kernels[0].rows[0]
    text = one_access(op, 16).replace(op, op.replace(".shared", ".shared::cta"))
    cta = kernel(text).kernels[0].rows[0]
    counts = lambda row: (row.counted.wavefronts, row.counted.ideal, row.counted.instances)  # noqa: E731
    assert "shared::cta" in cta.ptx and counts(cta) == counts(plain) and counts(plain)[0] > 0

def test_the_report_names_the_counters_and_the_allocation():
    doc = kernel(one_access("ld.shared.f32", 128)).to_json()
    validate(doc, "kernel.schema.json")
    r = doc["kernels"][0]["instructions"][0]
    assert r["allocation"] == {"name": "buf", "dynamic": False, "bytes": [0, 63 * 128 + 4]}
    assert r["counters"] == {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": 64,
                             "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": 62}
    assert doc["status"] == "conflicts" and doc["kernels"][0]["counters"] == r["counters"]


DIVERGE = HEAD + """.visible .entry diverge()
.reqntid 64, 1, 1
{
	.reg .pred %p<4>;
	.reg .b32 %r<16>;
	.reg .f32 %f<4>;
	.shared .align 4 .b8 s[8192];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, s;
	and.b32 %r3, %r1, 3;
	mov.u32 %r4, 0;
	setp.eq.s32 %p1, %r3, 0;
	@%p1 bra $SKIP;
$LOOP:
	shl.b32 %r5, %r4, 7;
	shl.b32 %r6, %r1, 2;
	add.s32 %r7, %r5, %r6;
	add.s32 %r8, %r2, %r7;
	ld.shared.f32 %f1, [%r8];
	add.s32 %r4, %r4, 1;
	setp.lt.u32 %p2, %r4, %r3;
	@%p2 bra $LOOP;
$SKIP:
	and.b32 %r9, %r1, 1;
	setp.eq.s32 %p3, %r9, 1;
	@%p3 bra $ODD;
	mul.lo.s32 %r10, %r1, 8;
	bra.uni $JOIN;
$ODD:
	mul.lo.s32 %r10, %r1, 256;
$JOIN:
	add.s32 %r11, %r2, %r10;
	st.shared.f32 [%r11], %f1;
	ret;
}
"""


def test_only_the_opcodes_the_emulator_watches_move_a_pc():
    """The emulator skips the search for the lowest PC while every thread is at one (emulator.run):
    only an opcode of MOVES_PCS may part them, so every handler that writes a PC is for one of those."""
    import inspect

    from swizzle_solver.compiled.emulator import MOVES_PCS
    from swizzle_solver.compiled.isa import HANDLERS

    writers = {op for op, handler in HANDLERS.items() if "pcs" in inspect.getsource(handler)}
    assert writers == set(MOVES_PCS) and writers >= {"bra", "exit"}


def test_divergence_loops_and_if_else_reconverge():
    """A loop of tid % 4 trips (lanes leave it one by one) and an if/else joined before the store:
    the store is one instance per warp with every lane (reconverged), the loop's k-th instance has
    the lanes whose trip count exceeds k."""
    rows = kernel(DIVERGE).kernels[0].rows
    load, store = rows
    want = []
    for w in range(2):
        for k in range(3):
            lanes = {n: 128 * k + 4 * (32 * w + n) for n in range(32) if (32 * w + n) % 4 > k}
            want.append((lanes, 4, False))
    assert load.counted.instances == 6
    assert (load.counted.wavefronts, load.counted.ideal) == brute(want)
    stores = [({n: (32 * w + n) * (256 if n % 2 else 8) for n in range(32)}, 4, True) for w in range(2)]
    assert store.counted.instances == 2
    assert (store.counted.wavefronts, store.counted.ideal) == brute(stores)


UNKNOWN = HEAD + """.visible .entry gather(.param .u64 gather_param_0)
.reqntid 32, 1, 1
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;
	.reg .f32 %f<2>;
	.shared .align 4 .b8 s[4096];
	ld.param.u64 %rd1, [gather_param_0];
	cvta.to.global.u64 %rd2, %rd1;
	ld.global.u32 %r1, [%rd2];
	mov.u32 %r2, s;
	add.s32 %r3, %r2, %r1;
	ld.shared.f32 %f1, [%r3];
	mov.u32 %r4, %tid.x;
	shl.b32 %r5, %r4, 2;
	add.s32 %r6, %r2, %r5;
	st.shared.f32 [%r6], %f1;
	ret;
}
"""


def test_an_address_from_a_global_load_is_data_dependent_not_guessed():
    report = kernel(UNKNOWN)
    assert report.quiet() == "conflict-free (1 instruction with data-dependent addresses not counted)"
    doc = report.to_json()
    validate(doc, "kernel.schema.json")
    gather, store = doc["kernels"][0]["instructions"]
    assert gather["status"] == "data-dependent" and gather["data_dependent"] == 1 and gather["wavefronts"] == 0
    assert "load from memory" in gather["why_data_dependent"]
    assert store["status"] == "conflict-free" and store["wavefronts"] == 1


INITIALIZED = HEAD + """.global .align 4 .u32 perm[4] = {3, 0, 2, 1};
.visible .entry table()
.reqntid 32, 1, 1
{
	.reg .b32 %r<10>;
	.reg .b64 %rd<4>;
	.reg .f32 %f<2>;
	.shared .align 4 .b8 s[8192];
	mov.u32 %r1, %tid.x;
	and.b32 %r2, %r1, 3;
	mul.wide.u32 %rd1, %r2, 4;
	mov.u64 %rd2, perm;
	add.s64 %rd3, %rd2, %rd1;
	ld.global.u32 %r3, [%rd3];
	shl.b32 %r4, %r3, 7;
	mov.u32 %r5, s;
	add.s32 %r6, %r5, %r4;
	ld.shared.f32 %f1, [%r6];
	ret;
}
"""


def test_initialized_global_data_is_read():
    """perm[tid % 4] * 128: four rows of the same bank, the lanes within one word each: 4 wavefronts."""
    row = kernel(INITIALIZED).kernels[0].rows[0]
    perm = [3, 0, 2, 1]
    assert (row.counted.wavefronts, row.counted.ideal) == brute([({n: perm[n % 4] * 128 for n in range(32)}, 4, False)])
    assert row.counted.wavefronts == 4


def test_a_global_without_an_initializer_reads_as_zeros_a_const_one_stays_unknown():
    """PTX zero-fills an uninitialized .global: zeros[tid % 4] * 128 + tid * 4 is conflict-free (one
    wavefront; perm's 4 would show it was not read). A .const without one (the host's
    cudaMemcpyToSymbol fills it) stays unknown: the address is data-dependent, not counted."""
    zeros = INITIALIZED.replace(".global .align 4 .u32 perm[4] = {3, 0, 2, 1};", ".global .align 4 .b8 perm[16];")
    zeros = zeros.replace("shl.b32 %r4, %r3, 7;", "shl.b32 %r7, %r3, 7;\n\tshl.b32 %r8, %r1, 2;\n\tadd.s32 %r4, %r7, %r8;")
    assert zeros.count("perm[16]") == 1 and "%r8" in zeros
    row = kernel(zeros).kernels[0].rows[0]
    assert (row.counted.wavefronts, row.counted.ideal) == brute([({n: n * 4 for n in range(32)}, 4, False)]) == (1, 1)
    const = zeros.replace(".global .align 4 .b8 perm[16];", ".const .align 4 .b8 perm[16];").replace(
        "ld.global.u32", "ld.const.u32")
    doc = kernel(const).to_json()["kernels"][0]["instructions"][0]
    assert doc["status"] == "data-dependent" and doc["wavefronts"] == 0
    initialized = const.replace(".const .align 4 .b8 perm[16];", ".const .align 4 .u32 perm[4] = {3, 0, 2, 1};")
    doc = kernel(initialized).to_json()["kernels"][0]["instructions"][0]  # an initialized .const is read
    assert doc["status"] == "conflict-free" and not doc.get("data_dependent") and doc["wavefronts"] == 1


# --- nvcc's PTX -----------------------------------------------------------------------------------


def transpose_reads(pitch: int) -> list[tuple[dict[int, int], int, bool]]:
    """tile[threadIdx.x][threadIdx.y + j] over a 32 x 8 block, 4 B elements, rows ``pitch`` apart."""
    out = []
    for j in range(0, 32, 8):
        for w in range(8):  # warp w: threadIdx.y = w, threadIdx.x = lane
            out.append(({x: (x * pitch + w + j) * 4 for x in range(32)}, 4, False))
    return out


def transpose_writes(pitch: int) -> list[tuple[dict[int, int], int, bool]]:
    return [({x: ((w + j) * pitch + x) * 4 for x in range(32)}, 4, True) for j in range(0, 32, 8) for w in range(8)]


@pytest.mark.parametrize("name, pitch", [("transpose_naive", 32), ("transpose_padded", 33)])
def test_nvcc_transposes_against_their_source_formula(name, pitch):
    report = kernel(TRANSPOSE, kernels=[name], block=(32, 8), params={"2": 1024})
    rows = report.kernels[0].rows
    stores = [r for r in rows if r.counted.kind.op == "st"]
    loads = [r for r in rows if r.counted.kind.op == "ld"]
    assert len(stores) == len(loads) == 4  # the j loop unrolled by nvcc
    assert sum(r.counted.wavefronts for r in loads) == brute(transpose_reads(pitch))[0]
    assert sum(r.counted.wavefronts for r in stores) == brute(transpose_writes(pitch))[0]
    assert all(r.file == "transpose.cu" and r.line in (9, 13, 19, 23) for r in rows)
    assert report.exit_code == (1 if pitch == 32 else 0)


def test_a_parameter_loop_needs_its_value_or_iterations():
    with pytest.raises(InputError, match=r"depends on parameter .*--param 1=VALUE.*--iterations"):
        kernel(TRANSPOSE, kernels=["column_sum"], block=(64,))
    given = kernel(TRANSPOSE, kernels=["column_sum"], block=(64,), params={"1": 8})
    capped = kernel(TRANSPOSE, kernels=["column_sum"], block=(64,), iterations=2)
    loads = sum(r.counted.instances for r in given.kernels[0].rows if r.counted.kind.op == "ld")
    assert loads == 8 * 2  # 8 reads, unrolled by 4 in a loop of 2 trips, 2 warps
    assert capped.kernels[0].notes and "--iterations 2" in " ".join(capped.kernels[0].notes)


@pytest.mark.parametrize("key", ["rows", "3", "param_3", "_Z10column_sumPfi_param_2", "3+8"])
def test_a_param_that_names_no_parameter_is_refused(key):
    """column_sum(float *out, int rows) has parameters 0 and 1: the source's name (rows), an index past
    them, or another kernel's PTX name would be ignored while the loop took its value as unknown."""
    with pytest.raises(InputError, match=rf"^--param {re.escape(key)}: no parameter of the kernel is named .*"
                                         rf"N from 0 to 1, or param_N"):
        kernel(TRANSPOSE, kernels=["column_sum"], block=(64,), params={key: 8})
    for known in ("1", "param_1", "_Z10column_sumPfi_param_1"):
        assert kernel(TRANSPOSE, kernels=["column_sum"], block=(64,), params={known: 8}).kernels


# --- the CLI --------------------------------------------------------------------------------------


def test_cli_json_quiet_and_exit_codes():
    run = clirun.solve("kernel", str(TRANSPOSE), "--kernel", "transpose_naive", "--block", "32,8", "--json")
    assert run.returncode == 1, run.stderr
    doc = json.loads(run.stdout)
    validate(doc, "kernel.schema.json")
    assert doc["kernels"][0]["demangled"] == "transpose_naive"
    run = clirun.solve("kernel", str(TRANSPOSE), "--kernel", "_Z16transpose_paddedPfPKfi", "--block", "32,8", "-q")
    assert (run.returncode, run.stdout) == (0, "conflict-free\n")
    run = clirun.solve("kernel", str(TRANSPOSE), "--kernel", "transpose_naive", "--block", "32,8")
    assert run.returncode == 1 and "transpose.cu:13" in run.stdout
    quiet = clirun.solve("kernel", str(TRANSPOSE), "--kernel", "transpose_naive", "--block", "32,8", "-q").stdout
    assert quiet.startswith("conflicts: ")
    assert run.stdout.splitlines()[-1] == "status: " + quiet.strip()  # the word once, not "conflicts (conflicts: ...)"


def test_the_status_line_says_its_word_once():
    """The text report's last line is "status: " and the -q line, which opens with the JSON status:
    "status: conflict-free", never "status: conflict-free (conflict-free)"."""
    args = ("kernel", str(TRANSPOSE), "--kernel", "transpose_padded", "--block", "32,8")
    run = clirun.solve(*args)
    assert run.returncode == 0 and run.stdout.splitlines()[-1] == "status: conflict-free"
    assert run.stdout.count("conflict-free") == 1


@pytest.mark.parametrize("argv, message", [
    (["--kernel", "nope"], "no such kernel"),
    (["--kernel", "column_sum"], "no .reqntid or .maxntid: give the block"),
    (["--block", "0"], "every size must be at least 1"),
    (["--block", "64,64"], "at most 1024"),
    (["--param", "x"], "NAME=INTEGER"),
    (["--arch", "gfx942"], "PTX runs on NVIDIA GPUs"),
    (["--iterations", "0"], "positive number"),
])
def test_bad_options_exit_2_one_line(argv, message):
    run = clirun.solve("kernel", str(TRANSPOSE), *argv)
    assert run.returncode == 2 and run.stdout == "" and message in run.stderr
    assert run.stderr.count("\n") == 1


HOSTILE = sorted((DATA / "hostile" / "ptx").glob("*.ptx"))
SPIN = DATA / "hostile" / "ptx" / "no_exit_loop.ptx"


@pytest.mark.parametrize("path", [p for p in HOSTILE if p != SPIN], ids=[p.stem for p in HOSTILE if p != SPIN])
def test_hostile_ptx_exits_2_with_one_line(path):
    run = clirun.solve("kernel", str(path), "--block", "32")
    assert run.returncode == 2 and run.stdout == "" and run.stderr.count("\n") == 1, run.stderr
    assert "Traceback" not in run.stderr


def test_a_statement_over_the_cap_exits_2_with_one_line(tmp_path):
    """A statement longer than ptx.MAX_STATEMENT_CHARS (4 MiB: an initialized table is one statement,
    118 KB in a recorded probe) is refused while it is read (made here, not kept as a file)."""
    from swizzle_solver.compiled.ptx import MAX_STATEMENT_CHARS

    path = tmp_path / "long_line.ptx"
    path.write_text(".version 8.0\n.target sm_90\n.global .b8 t[] = {" + "1, " * (MAX_STATEMENT_CHARS // 3 + 1) + "1};\n")
    run = clirun.solve("kernel", str(path), "--block", "32")
    assert run.returncode == 2 and run.stdout == "" and run.stderr.count("\n") == 1, run.stderr
    assert "characters" in run.stderr


def test_a_table_on_one_line_reads_as_the_same_table_over_several():
    """nvcc writes a data table on one line (NAME[N] = {...};), which the scanner takes at once: the
    same statements, lines and bytes as the table broken over lines (read character by character)."""
    from swizzle_solver.compiled import ptx

    values = [(7 * i) % 251 - 3 for i in range(300)]
    one = ".global .align 4 .b32 t[300] = {" + ", ".join(map(str, values)) + "};"
    split = one.replace(", 100,", ",\n 100,").replace("{", "{\n", 1)
    assert "\n" in split
    head = ".version 8.0\n.target sm_90\n.address_size 64\n"
    fast, slow = ptx.statements(head + one + "\n"), ptx.statements(head + split + "\n")
    assert ["".join(s.split()) for s, _ in fast] == ["".join(s.split()) for s, _ in slow]
    assert [line for _, line in fast] == [line for _, line in slow] == [1, 2, 3, 4]
    data = ptx.parse(head + one + "\n").variables["t"].data
    assert data == b"".join((v % (1 << 32)).to_bytes(4, "little") for v in values)


def test_a_loop_with_no_exit_meets_the_instruction_budget():
    """The budget, made small here (the CLI's, emulator.MAX_STEPS, in the slow twin below)."""
    from swizzle_solver.compiled.report import analyse

    with pytest.raises(InputError, match=r"more than 2000 instructions \(at PTX line 1[01]: a loop that does not end"):
        analyse(SPIN.read_text(), "spin", block=(32,), max_steps=2000)
    capped = analyse(SPIN.read_text(), "spin", block=(32,), iterations=3)  # --iterations ends it too
    assert "cut at --iterations 3" in capped.kernels[0].notes[0]


@pytest.mark.slow
def test_a_loop_with_no_exit_through_the_cli():
    run = clirun.solve("kernel", str(SPIN), "--block", "32")
    assert run.returncode == 2 and run.stdout == "" and "a loop that does not end" in run.stderr


def test_a_missing_file_and_a_huge_file(tmp_path):
    run = clirun.solve("kernel", str(tmp_path / "none.ptx"))
    assert run.returncode == 2 and "cannot read" in run.stderr
    big = tmp_path / "big.ptx"
    with big.open("wb") as f:
        f.truncate(51 * 1024 * 1024)
    run = clirun.solve("kernel", str(big))
    assert run.returncode == 2 and "more than" in run.stderr


def instruction_kernel(line: str, stride: int) -> str:
    return HEAD + f""".visible .entry k(.param .u64 k_param_0)
.reqntid 32, 1, 1
{{
	.reg .b32 %r<12>;
	.reg .b64 %rd<4>;
	.shared .align 16 .b8 buf[16384];
	ld.param.u64 %rd1, [k_param_0];
	mov.u32 %r1, %tid.x;
	mul.lo.s32 %r2, %r1, {stride};
	mov.u32 %r3, buf;
	add.s32 %r4, %r3, %r2;
	{line}
	ret;
}}
"""


def matrix_cost(addresses: dict[int, int], k: int) -> tuple[int, int]:
    """ldmatrix/stmatrix .xK: matrix i's 8 rows of 16 bytes (lanes 8i .. 8i + 7) are one phase."""
    w = i = 0
    for m in range(k):
        a, b = phase_cost([(addresses[n], 16) for n in range(8 * m, 8 * m + 8)])
        w, i = w + a, i + b
    return w, i


@pytest.mark.parametrize("k", [1, 2, 4])
@pytest.mark.parametrize("stride", [16, 64, 128, 144])
@pytest.mark.parametrize("op", ["ldmatrix", "stmatrix"])
def test_ldmatrix_and_stmatrix_rows_against_the_brute_force(op, stride, k):
    regs = "{" + ", ".join(f"%r{5 + i}" for i in range(k)) + "}"
    line = (f"ldmatrix.sync.aligned.m8n8.x{k}.shared.b16 {regs}, [%r4];" if op == "ldmatrix" else
            f"stmatrix.sync.aligned.m8n8.x{k}.shared.b16 [%r4], {regs};")
    row = kernel(instruction_kernel(line, stride)).to_json()["kernels"][0]["instructions"][0]
    assert row["op"] == ("ldsm" if op == "ldmatrix" else "stsm")
    assert (row["wavefronts"], row["ideal_wavefronts"]) == matrix_cost({n: n * stride for n in range(32)}, k)
    assert f"sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_{row['op']}.sum" in row["counters"]


@pytest.mark.parametrize("line, op, width", [
    ("cp.async.ca.shared.global [%r4], [%rd1], 4;", "ldgsts", 4),
    ("cp.async.cg.shared.global [%r4], [%rd1], 16;", "ldgsts", 16),
    ("atom.shared.add.u32 %r9, [%r4], 1;", "atom", 4),
    ("red.shared.add.u32 [%r4], 1;", "atom", 4),
])
@pytest.mark.parametrize("stride", [16, 128, 144])
def test_cp_async_and_atomics_shared_side(line, op, width, stride):
    row = kernel(instruction_kernel(line, stride)).to_json()["kernels"][0]["instructions"][0]
    assert row["op"] == op and row["lane_bytes"] == width
    assert (row["wavefronts"], row["ideal_wavefronts"]) == brute([({n: n * stride for n in range(32)}, width, True)])


def test_generic_accesses_proven_shared_and_tensor_core_reads_not_counted():
    line = ("cvta.shared.u64 %rd2, %rd3; ld.u32 %r9, [%rd2];\n wgmma.fence.sync.aligned;\n"
            "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%r10, %r11}, %rd1, %rd1, 1, 1, 1, 0, 0;\n"
            "wgmma.commit_group.sync.aligned;\n wgmma.wait_group.sync.aligned 0;")
    text = instruction_kernel(line, 128).replace("add.s32 %r4, %r3, %r2;", "add.s32 %r4, %r3, %r2;\n\tcvt.u64.u32 %rd3, %r4;")
    doc = kernel(text).to_json()["kernels"][0]
    (row,) = doc["instructions"]
    assert row["op"] == "ld" and row["wavefronts"] == 32 and row["allocation"]["name"] == "buf"
    assert len(doc["not_counted"]) == 1 and "wgmma" in doc["not_counted"][0]["reason"]


def test_fix_serves_the_naive_transpose_and_is_remeasured():
    """--fix: the tile's observed lanes as phases, the solver's layout, every instruction counted
    again under it (0 excess); checked here by the brute force on the source formula with the
    layout's own C expression (which evaluates the same in Python, DESIGN.md section 5)."""
    report = kernel(TRANSPOSE, kernels=["transpose_naive"], block=(32, 8), fix=True, emit="cuda")
    doc = report.to_json()
    validate(doc, "kernel.schema.json")
    (fix,) = doc["kernels"][0]["fix"]["allocations"]
    assert fix["status"] == "conflict-free" and fix["excess_before"] == 992 and fix["excess_after"] == 0
    assert all(i["excess"] == 0 for i in fix["instructions"]) and "swizzle_phys" in fix["emit"]
    assert fix["proof"]["method"] in ("exhaustive", "gf2-rank") and len(fix["proof"]["accesses"]) == 8
    assert all(a["worst_wavefronts"] == a["lower_bound"] for a in fix["proof"]["accesses"])
    assert "cuda" in fix["expressible_in"] and fix["family"] == "cute"

    def phys(r: int, c: int) -> int:
        return eval(fix["expression"], {"r": r, "c": c})  # integer literals and + - * << >> & ^ | only

    reads = [({n: phys(n, w + j) * 4 for n in range(32)}, 4, False) for j in range(0, 32, 8) for w in range(8)]
    writes = [({n: phys(w + j, n) * 4 for n in range(32)}, 4, True) for j in range(0, 32, 8) for w in range(8)]
    assert brute(reads) == (32, 32) and brute(writes) == (32, 32)
    assert sorted(phys(r, c) for r in range(32) for c in range(32)) == list(range(1024))  # a bijection


def test_fix_without_excess_and_emit_without_fix():
    doc = kernel(TRANSPOSE, kernels=["transpose_padded"], block=(32, 8), fix=True).to_json()
    assert doc["kernels"][0]["fix"]["allocations"] == []
    with pytest.raises(InputError, match="add --fix"):
        kernel(TRANSPOSE, kernels=["transpose_padded"], block=(32, 8), emit="cuda")


SGEMM = DATA / "kernels" / "sgemm.ptx"


def test_nvcc_sgemm_against_its_source_formula():
    """tests/data/kernels/sgemm.cu (2-D block tiling, 128 x 128 x 8, 256 threads, 8 x 8 per thread)
    with K = 16: its K loop twice, its d loop 8 times; nvcc keeps the regM/regN reads scalar.
    Each allocation's wavefronts against the brute force on the source's index formulas."""
    report = kernel(SGEMM, kernels=["sgemm2d"], params={"2": 16})
    (k,) = report.kernels
    assert not k.notes and not k.not_counted
    got: dict[tuple[str, str], list[int]] = {}
    for r in k.rows:
        assert r.counted.kind.width == 4 and r.counted.data_dependent == 0
        key = (r.allocation.name.rsplit("E2", 1)[-1], r.counted.kind.op)
        w = got.setdefault(key, [0, 0, 0])
        w[0] += r.counted.wavefronts
        w[1] += r.counted.ideal
        w[2] += r.counted.instances

    def warp(f):
        return [({n: 4 * f(32 * w + n) for n in range(32)}, 4, False) for w in range(8)]

    a_reads = [x for _ in range(2) for d in range(8) for i in range(8)
               for x in warp(lambda t, d=d, i=i: ((t // 16) * 8 + i) * 8 + d)]
    b_reads = [x for _ in range(2) for d in range(8) for i in range(8)
               for x in warp(lambda t, d=d, i=i: d * 128 + (t % 16) * 8 + i)]
    a_writes = [(lanes, 4, True) for _ in range(2) for o in range(0, 128, 32)
                for lanes, _, _ in warp(lambda t, o=o: (t // 8 + o) * 8 + t % 8)]
    b_writes = [(lanes, 4, True) for _ in range(2) for o in range(0, 8, 2)
                for lanes, _, _ in warp(lambda t, o=o: (t // 128 + o) * 128 + t % 128)]
    for key, instances in ((("As", "ld"), a_reads), (("Bs", "ld"), b_reads), (("As", "st"), a_writes),
                           (("Bs", "st"), b_writes)):
        assert got[key] == [*brute(instances), len(instances)], key
    assert report.exit_code == 1 and got[("As", "ld")][0] == 2 * got[("As", "ld")][1]  # 2-way: rows 64 words apart


def test_a_wrong_block_is_noted_past_the_allocation():
    doc = kernel(TRANSPOSE, kernels=["transpose_naive"], block=(256,)).to_json()
    notes = doc["kernels"][0]["notes"]
    assert len(notes) == 4 and all("past its end (is --block right?)" in n for n in notes)


def test_a_cu_file_goes_through_nvcc_with_the_options(monkeypatch, tmp_path):
    """.cu: compiled by compiled/nvcc.py's ptx_of_cu (a stand-in here, which records its arguments),
    then read as its PTX; -D, -I and --gpu-arch are passed through, --arch stays the hardware's."""
    import sys
    import types

    seen = {}

    def ptx_of_cu(path, *, defines, includes, arch, nvcc=None, timeout=None):
        seen.update(path=Path(path).name, defines=defines, includes=includes, arch=arch)
        return TRANSPOSE.read_text()

    monkeypatch.setitem(sys.modules, "swizzle_solver.compiled.nvcc", types.SimpleNamespace(ptx_of_cu=ptx_of_cu))
    source = tmp_path / "t.cu"
    source.write_text("// stand-in\n")
    run = clirun.solve("kernel", str(source), "--kernel", "transpose_padded", "--block", "32,8", "-D", "TILE=32",
                       "--include", "inc", "--gpu-arch", "sm_80", "--arch", "sm80", "-q")
    assert (run.returncode, run.stdout) == (0, "conflict-free\n"), run.stderr
    assert seen == {"path": "t.cu", "defines": ("TILE=32",), "includes": ("inc",), "arch": "sm_80"}


SPECIALS = HEAD + """.visible .entry specials(.param .u32 specials_param_0)
.reqntid 64, 2, 1
{
	.reg .b32 %r<16>;
	.reg .f32 %f<2>;
	.shared .align 4 .b8 s[65536];
	ld.param.u32 %r1, [specials_param_0];
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %laneid;
	mov.u32 %r4, %warpid;
	mov.u32 %r5, %tid.y;
	mad.lo.s32 %r6, %r4, %r1, %r3;
	mad.lo.s32 %r7, %r2, 1024, %r6;
	mad.lo.s32 %r8, %r5, 8192, %r7;
	shl.b32 %r9, %r8, 2;
	mov.u32 %r10, s;
	add.s32 %r11, %r10, %r9;
	st.shared.f32 [%r11], %f1;
	ret;
}
"""


@pytest.mark.parametrize("name", ["specials_param_0", "param_0", "0"])
@pytest.mark.parametrize("cta, stride", [((0, 0, 0), 32), ((3, 0, 0), 33), ((1, 2, 0), 64)])
def test_special_registers_cta_and_parameters(name, cta, stride):
    """Word = tid.y * 8192 + ctaid.x * 1024 + warpid * stride + laneid: 4 warps (2 per tid.y)."""
    row = kernel(SPECIALS, cta=cta, params={name: stride}).kernels[0].rows[0]
    want = []
    for t in range(128):
        if t % 32 == 0:
            want.append(({}, 4, True))
        w, lane, y = t // 32, t % 32, t // 64
        want[-1][0][lane] = 4 * (y * 8192 + cta[0] * 1024 + w * stride + lane)
    assert row.counted.instances == 4 and (row.counted.wavefronts, row.counted.ideal) == brute(want)
    assert row.counted.lo == min(a for lanes, _, _ in want for a in lanes.values())


def test_triton_ptx_convert_layout_writes_and_reads_every_element_once():
    """Triton's PTX (tests/data/kernels/triton_transpose.py: a 64 x 64 fp32 transpose, .reqntid 128,
    dynamic shared memory `global_smem`, `[ %r + 0 ]` addresses): the shared stores put each of the
    4,096 elements at its own 4 bytes, and the loads read exactly those bytes back, each once."""
    report = kernel(DATA / "kernels" / "triton_transpose.ptx")
    (k,) = report.kernels
    assert k.block == (128, 1, 1) and all(r.counted.data_dependent == 0 for r in k.rows)
    assert {r.allocation.name for r in k.rows} == {"global_smem (dynamic shared memory)"}
    stored, loaded = [], []
    for e in k.emu.events:
        ins = k.emu.f.code[e.pc]
        width = 4 * (int(ins.mods[ins.mods.index("shared") + 1][1:]) if "v2" in ins.mods or "v4" in ins.mods else 1)
        for a in e.addresses.tolist():
            (stored if ins.opcode == "st" else loaded).extend(range(a, a + width))
    assert len(stored) == len(set(stored)) == 64 * 64 * 4
    assert sorted(loaded) == sorted(stored)
    assert all(r.file == "triton_transpose.py" for r in k.rows)


def test_too_many_statements_are_refused_before_parsing(tmp_path):
    big = tmp_path / "big.ptx"
    big.write_text(HEAD + ".visible .entry big()\n{\n" + "\tadd.s32 %r1, %r1, 1;\n" * 200_001 + "\tret;\n}\n")
    run = clirun.solve("kernel", str(big), "--block", "32")
    assert run.returncode == 2 and "more than 200000 statements" in run.stderr and run.stdout == ""


DYNAMIC = HEAD + """.extern .shared .align 16 .b8 smem[];
.visible .entry columns()
.reqntid 64, 1, 1
{
	.reg .b32 %r<12>;
	.reg .f32 %f<2>;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, smem;
	shl.b32 %r3, %r1, 2;
	add.s32 %r4, %r2, %r3;
	st.shared.f32 [%r4], %f1;
	st.shared.f32 [%r4+256], %f1;
	shl.b32 %r5, %r1, 7;
	add.s32 %r6, %r2, %r5;
	ld.shared.f32 %f1, [%r6];
	cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r2], [%r2], 128, [%r2];
	ret;
}
"""


def test_fix_of_dynamic_shared_memory_and_a_bulk_copy_not_counted():
    """64 threads read a column of a 64 x 32 f32 tile in dynamic shared memory (32-way), store rows."""
    doc = kernel(DYNAMIC, fix=True).to_json()
    validate(doc, "kernel.schema.json")
    k = doc["kernels"][0]
    load = next(r for r in k["instructions"] if r["op"] == "ld")
    assert (load["wavefronts"], load["ideal_wavefronts"]) == brute(
        [({n: (32 * w + n) * 128 for n in range(32)}, 4, False) for w in range(2)])
    assert load["allocation"]["dynamic"] and load["allocation"]["bytes"] == [0, 63 * 128 + 4]
    (fix,) = k["fix"]["allocations"]
    assert fix["excess_after"] == 0 and fix["excess_before"] == load["excess"] > 0
    assert fix["tile"] == {"rows": 64, "cols": 32, "elem_bytes": 4}
    assert [n["reason"].split()[0] for n in k["not_counted"]] == ["cp.async.bulk"]


def test_stmatrix_on_a_target_without_it_and_byte_forms_not_counted():
    line = "stmatrix.sync.aligned.m8n8.x1.shared.b16 [%r4], {%r5};"
    with pytest.raises(InputError, match=r"PTX line \d+: .*--arch sm80 has no stmatrix.*sm90"):
        kernel(instruction_kernel(line, 16), arch="sm80")
    byte = "ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%r5, %r6}, [%r4];"
    doc = kernel(instruction_kernel(byte, 16), arch="sm100").to_json()["kernels"][0]
    assert doc["instructions"] == [] and "byte forms" in doc["not_counted"][0]["reason"]


def test_the_register_memory_cap(monkeypatch):
    from swizzle_solver.compiled import emulator

    monkeypatch.setattr(emulator, "MAX_REGISTER_BYTES", 64 * 17 * 3)
    with pytest.raises(InputError, match="more than 3 registers for 64 threads"):
        kernel(one_access("ld.shared.f32", 4))


def test_nvcc_sgemm_vec_against_its_source_formula():
    """sgemm.cu's sgemm_vec (SGEMM_CUDA kernel 6's shape), K = 16: A transposed into As by scalar
    stores (lanes down the columns of As), B copied
    into Bs by float4 stores (st.shared.v4: 16-byte lanes, 8 a phase), operands read back scalar."""
    report = kernel(SGEMM, kernels=["sgemm_vec"], params={"2": 16})
    (k,) = report.kernels
    got: dict[tuple[str, str, int], list[int]] = {}
    for r in k.rows:
        key = (r.allocation.name.rsplit("E2", 1)[-1], r.counted.kind.op, r.counted.kind.width)
        w = got.setdefault(key, [0, 0, 0])
        w[0], w[1], w[2] = w[0] + r.counted.wavefronts, w[1] + r.counted.ideal, w[2] + r.counted.instances

    def warp(f, width=4, store=False):
        return [({n: 4 * f(32 * w + n) for n in range(32)}, width, store) for w in range(8)]

    a_writes = [x for _ in range(2) for j in range(4)
                for x in warp(lambda t, j=j: ((t % 2) * 4 + j) * 128 + t // 2, store=True)]
    b_writes = [x for _ in range(2) for x in warp(lambda t: (t // 32) * 128 + (t % 32) * 4, 16, True)]
    a_reads = [x for _ in range(2) for d in range(8) for i in range(8)
               for x in warp(lambda t, d=d, i=i: d * 128 + (t // 16) * 8 + i)]
    b_reads = [x for _ in range(2) for d in range(8) for i in range(8)
               for x in warp(lambda t, d=d, i=i: d * 128 + (t % 16) * 8 + i)]
    for key, instances in ((("As", "st", 4), a_writes), (("Bs", "st", 16), b_writes), (("As", "ld", 4), a_reads),
                           (("Bs", "ld", 4), b_reads)):
        assert got[key] == [*brute(instances), len(instances)], key
    assert len(got) == 4


CP_LDSM = DATA / "kernels" / "cp_async_ldmatrix.ptx"


def test_nvcc_inline_asm_cp_async_and_ldmatrix_and_their_fix():
    """cp_async_ldmatrix.cu: CUTLASS-style inline asm (cvta.to.shared in a { } scope, cp.async.cg of
    16-byte chunks, ldmatrix.x4; -lineinfo's .section blocks skipped) over a 64 x 64 b16 tile whose
    rows are 128 bytes: the ldmatrix rows are 8-way conflicts; the fix's layout, applied here to the
    source's byte addresses, serves both."""
    doc = kernel(CP_LDSM, fix=True).to_json()
    validate(doc, "kernel.schema.json")
    k = doc["kernels"][0]
    copies = [r for r in k["instructions"] if r["op"] == "ldgsts"]
    (ldsm,) = [r for r in k["instructions"] if r["op"] == "ldsm"]

    def chunk_byte(chunk: int) -> int:
        return ((chunk // 8) * 64 + (chunk % 8) * 8) * 2

    def row_byte(w: int, lane: int) -> int:
        return ((w * 16 + lane % 16) * 64 + (lane // 16) * 8) * 2

    def costs(place):
        writes = [({n: place(chunk_byte(32 * w + n + 128 * i)) for n in range(32)}, 16, True)
                  for i in range(4) for w in range(4)]
        reads = [matrix_cost({n: place(row_byte(w, n)) for n in range(32)}, 4) for w in range(4)]
        return brute(writes), (sum(r[0] for r in reads), sum(r[1] for r in reads))

    writes, reads = costs(lambda b: b)
    assert (sum(r["wavefronts"] for r in copies), sum(r["ideal_wavefronts"] for r in copies)) == writes
    assert (ldsm["wavefronts"], ldsm["ideal_wavefronts"]) == reads == (128, 16)
    (fix,) = k["fix"]["allocations"]
    assert fix["excess_after"] == 0 and fix["tile"] == {"rows": 64, "cols": 32, "elem_bytes": 4}

    def moved(b: int) -> int:
        r, c = divmod(b // 4, 32)
        return eval(fix["expression"], {"r": r, "c": c}) * 4 + b % 4

    writes, reads = costs(moved)
    assert writes[0] == writes[1] and reads[0] == reads[1]


def test_a_ttgir_file_goes_to_the_ttgir_reader():
    """.ttgir end to end, the real reader: compiled/ttgir.py's kernel_entries on
    tests/data/ttgir/column_store.ttgir (a 32x32 f32 tile stored by 4 warps, each warp's 32 lanes down
    one column of 128-byte rows: every lane in one bank, 32 wavefronts where 1 would do; 4 warps x 8
    columns each = 32 instances); the status, -q, the table and the exit code follow from its rows."""
    from swizzle_solver.compiled.ttgir import kernel_entries

    source = DATA / "ttgir" / "column_store.ttgir"
    entries = kernel_entries(source.read_text())
    [row] = entries[0]["instructions"]
    lanes = {n: n * 32 * 4 for n in range(32)}  # lane n: row n, the warp's column, 4-byte elements
    per_instance = brute([(lanes, 4, True)])
    assert per_instance == (32, 1)
    assert (row["op"], row["instances"]) == ("st", 32)
    assert (row["wavefronts"], row["ideal_wavefronts"]) == (32 * per_instance[0], 32 * per_instance[1])
    assert row["excess"] == 32 * 31
    run = clirun.solve("kernel", str(source), "-q")
    assert (run.returncode, run.stdout) == (1, f"conflicts: 1 instruction above ideal, {32 * 31} excess wavefronts\n")
    run = clirun.solve("kernel", str(source))
    assert run.returncode == 1 and "ttg.local_alloc" in run.stdout
    assert kernel(source).to_json()["kernels"] == entries


def test_the_api_takes_one_name_and_one_size():
    one = kernel(TRANSPOSE, kernels="transpose_padded", block=(32, 8)).to_json()
    assert [k["demangled"] for k in one["kernels"]] == ["transpose_padded"]
    assert kernel(one_access("ld.shared.f32", 4), block=64).kernels[0].block == (64, 1, 1)


def test_a_field_of_a_struct_parameter():
    """A struct parameter's field (ld.param [p+8], as the CuTe DSL passes shapes) is given as N+OFFSET;
    unnamed, the address that depends on it is data-dependent, naming what to give."""
    text = SPECIALS.replace(".param .u32 specials_param_0", ".param .align 8 .b8 specials_param_0[16]").replace(
        "[specials_param_0]", "[specials_param_0+8]")
    unnamed = kernel(text).to_json()["kernels"][0]["instructions"][0]
    assert unnamed["status"] == "data-dependent" and "--param 0+8=VALUE" in unnamed["why_data_dependent"]
    given = kernel(text, params={"0+8": 33}).kernels[0].rows[0].counted
    plain = kernel(SPECIALS, params={"0": 33}).kernels[0].rows[0].counted
    assert (given.wavefronts, given.ideal, given.data_dependent) == (plain.wavefronts, plain.ideal, 0)


@pytest.mark.parametrize("shfl, source", [
    ("shfl.sync.bfly.b32 %r5, %r1, 1, 31, -1;", lambda lane: lane ^ 1),
    ("shfl.sync.bfly.b32 %r5, %r1, 6, 31, -1;", lambda lane: lane ^ 6),
    ("shfl.sync.idx.b32 %r5, %r1, 3, 31, -1;", lambda lane: 3),
    ("shfl.sync.idx.b32 %r5, %r1, 3, 6175, -1;", lambda lane: (lane & 24) | 3),  # segments of 8: c = 0x181f
    ("shfl.sync.down.b32 %r5, %r1, 4, 31, -1;", lambda lane: lane + 4 if lane + 4 <= 31 else lane),
    ("shfl.sync.up.b32 %r5, %r1, 2, 0, -1;", lambda lane: lane - 2 if lane >= 2 else lane),
])
def test_shfl_moves_values_between_lanes(shfl, source):
    """The address is %tid.x * 33 words taken from another lane by shfl (the PTX ISA's pseudocode)."""
    text = one_access("ld.shared.f32", 0, threads=32).replace(
        "mul.lo.s32 %r2, %r1, 0;", f"{shfl}\n\tmul.lo.s32 %r2, %r5, 132;")
    k = kernel(text).kernels[0]
    (event,) = k.emu.events
    assert event.addresses.tolist() == [source(n) * 132 for n in range(32)] and not event.unknown.any()
    row = k.rows[0]
    assert (row.counted.wavefronts, row.counted.ideal) == brute([({n: source(n) * 132 for n in range(32)}, 4, False)])


def test_mul24_reads_the_low_24_bits_and_bulk_bookkeeping_is_not_a_copy():
    text = one_access("ld.shared.f32", 4).replace(
        "mul.lo.s32 %r2, %r1, 4;",
        "add.u32 %r6, %r1, 16777216;\n\tmul24.lo.u32 %r2, %r6, 4;\n"
        "\tcp.async.bulk.commit_group;\n\tcp.async.bulk.wait_group.read 0;\n\tcp.async.wait_all;")
    k = kernel(text).to_json()["kernels"][0]
    assert k["not_counted"] == [] and k["instructions"][0]["allocation"]["bytes"] == [0, 63 * 4 + 4]


# --- what the emulator does not model: each said so, in one line or one field -----------------------------

UNMODELLED_HEAD = HEAD + """.visible .entry k()
.reqntid 64, 1, 1
{
	.reg .b32 %r<10>;
	.reg .pred %p<3>;
	.reg .f32 %f<2>;
	.reg .b64 %rd<4>;
	.shared .align 4 .b8 s[8192];
	.local .align 4 .b8 loc[128];
	mov.u32 %r1, %tid.x;
	mov.u32 %r3, s;
"""


def unmodelled(body: str) -> str:
    return UNMODELLED_HEAD + body + "\tret;\n}\n"


@pytest.mark.parametrize("name, body, why", [
    ("vote", "\tsetp.lt.u32 %p1, %r1, 16;\n\tvote.sync.ballot.b32 %r2, %p1, -1;\n"
             "\tadd.s32 %r4, %r3, %r2;\n\tld.shared.f32 %f1, [%r4];\n", "the result of vote"),
    ("local", "\tshl.b32 %r5, %r1, 2;\n\tmov.u64 %rd1, loc;\n\tst.local.u32 [%rd1], %r5;\n"
              "\tld.local.u32 %r2, [%rd1];\n\tadd.s32 %r4, %r3, %r2;\n\tld.shared.f32 %f1, [%r4];\n",
     "local memory"),
])
def test_an_address_from_vote_or_local_memory_is_data_dependent_with_its_reason(name, body, why):
    doc = kernel(unmodelled(body)).to_json()
    validate(doc, "kernel.schema.json")
    (row,) = doc["kernels"][0]["instructions"]
    assert row["status"] == "data-dependent" and row["wavefronts"] == 0 and row["data_dependent"] == 2, name
    assert why in row["why_data_dependent"], row["why_data_dependent"]


def test_same_address_atomics_are_counted_with_a_note_that_serialisation_is_not_modelled():
    """32 lanes of each warp add to one word: one wavefront each (the bank model), and a note naming the
    instruction and the 32 lanes; lanes on distinct words (tid * 4) have no note."""
    same = kernel(unmodelled("\tatom.shared.add.u32 %r2, [%r3], 1;\n")).to_json()["kernels"][0]
    (row,) = same["instructions"]
    assert (row["op"], row["instances"], row["wavefronts"]) == ("atom", 2, brute([({n: 0 for n in range(32)}, 4, True)])[0] * 2)
    (note,) = same["notes"]
    assert "up to 32 lanes of a warp update one address" in note and "serialises" in note and "line 15" in note
    apart = kernel(unmodelled("\tshl.b32 %r5, %r1, 2;\n\tadd.s32 %r4, %r3, %r5;\n"
                              "\tatom.shared.add.u32 %r2, [%r4], 1;\n")).to_json()["kernels"][0]
    assert apart["notes"] == [] and apart["instructions"][0]["wavefronts"] == 2


def test_distributed_shared_memory_is_listed_not_counted():
    body = ("\tmapa.shared::cluster.u32 %r4, %r3, 1;\n\tld.shared::cluster.u32 %r5, [%r4];\n"
            "\tst.shared::cluster.u32 [%r4], %r1;\n\tshl.b32 %r6, %r1, 2;\n\tadd.s32 %r7, %r3, %r6;\n"
            "\tld.shared.f32 %f1, [%r7];\n")
    k = kernel(unmodelled(body)).to_json()["kernels"][0]
    assert [r["ptx"] for r in k["instructions"]] == ["ld.shared.f32 %f1, [%r7]"]
    assert [n["ptx"].split()[0] for n in k["not_counted"]] == ["ld.shared::cluster.u32", "st.shared::cluster.u32"]
    assert all("distributed shared memory" in n["reason"] for n in k["not_counted"])


def test_a_call_is_refused_with_one_line(tmp_path):
    path = tmp_path / "call.ptx"
    path.write_text(HEAD + """.func (.param .b32 ret0) helper(.param .b32 x)
{
	.reg .b32 %r<3>;
	ld.param.b32 %r1, [x];
	st.param.b32 [ret0], %r1;
	ret;
}
""" + unmodelled("\t{\n\t.param .b32 p0;\n\tst.param.b32 [p0], %r1;\n\t.param .b32 r0;\n"
                 "\tcall (r0), helper, (p0);\n\tld.param.b32 %r2, [r0];\n\t}\n")[len(HEAD):])
    run = clirun.solve("kernel", str(path))
    assert run.returncode == 2 and run.stdout == "" and run.stderr.count("\n") == 1, run.stderr
    assert "calls are not emulated" in run.stderr and "inline" in run.stderr


def test_kernel_help_names_what_is_not_modelled():
    run = clirun.solve("kernel", "--help")
    text = " ".join(run.stdout.split())
    for what in ("call", "vote", "local memory", "atomics' serialisation", "clusters", ".shared::cluster"):
        assert what in text, what


def test_a_one_line_table_is_read_as_the_character_scan_reads_it(monkeypatch):
    """ptx.py takes a one-line ``.global``/``.const`` initializer whole (the recorded ex33 probes' 118 KB
    offset table was a third of their parse); the statements are those of the character scan, also
    for the near misses the fast path must leave to it (a label in front, a second statement, a
    parenthesis, a .shared variable)."""
    from swizzle_solver.compiled import ptx

    text = "\n".join([
        ".version 8.0", ".target sm_90",
        ".global .align 4 .b8 t[5] = {1, 2,3 , 4, 5};",
        "  .const .u32 c[2] = { 7, 8 } ;",
        "L1: .global .b8 u[1] = {1};",
        ".global .b8 v[1] = {1}; .global .b8 w[1] = {2};",
        ".global .u32 p[1] = {(1 + 2)};",
        ".shared .align 4 .b8 s[4];",
        ".visible .entry k(.param .u64 a) {", "ret;", "}",
        (Path(__file__).parent / "data/gpu/ptx/gpu_probe/47-ex33-64x128-f16-8x16b-reads-and-row-writes-for-t.ptx")
        .read_text(),
    ])
    fast = ptx.statements(text)
    assert ptx._one_line_table(".global .align 4 .b8 t[5] = {1, 2,3 , 4, 5};")
    assert not any(ptx._one_line_table(s) for s in ("L1: .global .b8 u[1] = {1};", ".shared .b8 s[1] = {1};",
                                                     ".global .b8 v[1] = {1}; .global .b8 w[1] = {2};"))
    monkeypatch.setattr(ptx, "_one_line_table", lambda s: False)
    assert fast == ptx.statements(text)


def test_the_one_line_table_check_is_linear_on_a_hostile_line():
    """The fast path's test is string operations, not a regular expression: ``[^{}();]*\\.global\\s
    [^{}();]*=...`` backtracks quadratically over a line of repeated ``.global`` (64 KB: 2 s;
    256 KB: half a minute). 256 KB of them, read by the character scan, is refused or read at once."""
    import time

    from swizzle_solver.compiled import ptx

    line = ".global " * 32_768  # 256 KB, no '=' and no '{'
    start = time.process_time()
    assert not ptx._one_line_table(line.strip() + " {1};")
    ptx.statements(".version 8.0\n" + line + "\n")
    assert time.process_time() - start < 3


@pytest.mark.parametrize("name", ["k.py", "k.mojo", "k.ttir", "k.llir", "k.cubin"])
def test_a_toolchain_file_that_is_not_read_says_what_to_give(tmp_path, name):
    """The kernel's source (.py, .mojo) or another stage's file: one line naming the file to give and
    the page with each toolchain's command, not a PTX parse error on its first line."""
    path = tmp_path / name
    path.write_text("import triton\n")
    run = clirun.solve("kernel", str(path), "--block", "32")
    clirun.assert_input_error(run, "give the", "docs/kernel-toolchains.md")
