"""Hostile inputs of the forms merged on 2026-11-28 (index:/offset:, CuTe copy and MMA atoms,
make_tiled_copy/make_tiled_mma, -D and batch define, tk:, gfx1250's :wN, mma-c:m16n8vB, the API's
tiled_copy): each a break found by grammar attacks, with the contract's answer (docs/cli.md): exit 2,
one line on stderr naming the problem and the fix, nothing on stdout, no traceback, in bounded time
and memory; the API raises InputError, never another exception. Files: tests/data/hostile/forms/.
"""
from __future__ import annotations

import resource
import time
from pathlib import Path

import pytest

from swizzle_solver import api
from swizzle_solver.model import InputError
from tests.clirun import assert_input_error, solve
from tests.test_hostile import strict_json

FORMS = Path(__file__).resolve().parent / "data" / "hostile" / "forms"
TILE = ["--rows", "32", "--cols", "32", "--dtype", "f32"]


def timed(*argv):
    """The in-process run and its CPU seconds."""
    start = time.process_time()
    result = solve(*argv)
    return result, time.process_time() - start


# --- index: / offset: ----------------------------------------------------------------------------

@pytest.mark.parametrize("spec, words", [
    # a loop of no iteration: ValueError (not enough values to unpack) in indexed._pattern
    ("index: row = 0, col = lane; j in 0..0", ["j in 0..0", "empty"]),
    # a block of no thread (0 % 32 == 0): an argmax of an empty array in expr's refusal
    ("index: row = 0, col = lane; block 0", ["block of 0 threads"]),
    ("offset: tid; block 0x32", ["block of 0 threads"]),
])
def test_an_access_of_no_instruction_is_bad_input(spec, words):
    assert_input_error(solve(*TILE, "--access", spec, "-q"), *words)
    with pytest.raises(InputError):
        api.problem(32, 32, [spec], dtype="f32")


def test_the_batch_of_those_is_one_line():
    assert_input_error(solve("batch", FORMS / "empty-loop-block-0.toml"), "empty loop", "j in 0..0")


def doubling(levels: int) -> str:
    return "offset: A0; " + "; ".join(f"A{i} = A{i + 1} + A{i + 1}" for i in range(levels)) + f"; A{levels} = tid % 32"


def test_definitions_that_double_each_level_are_expanded_once():
    """Each name was replaced by its definition's text wherever used: 30 levels of A = B + B made
    2^30 copies (never ended; 20 levels took 7.5 s). Each is now expanded once, and the expression
    stops at the grammar's 4,000 characters."""
    result, seconds = timed(*TILE, "--access", doubling(30), "-q")
    assert_input_error(result, "over 4000 characters", "fewer levels")
    assert seconds < 2.0
    result, seconds = timed("batch", FORMS / "definitions-doubling.toml")
    assert_input_error(result, "over 4000 characters")
    assert seconds < 2.0


def test_a_few_doubling_levels_still_read_as_the_expression_they_make():
    """Below the limit the expansion is exact: four levels are 16 * (tid % 32), the same verdict and
    answer as that expression written out."""
    written = solve(*TILE, "--access", "offset: 16 * (tid % 32)", "--check", "none", "-q")
    assert written.returncode == 1 and "minimal: Swizzle<" in written.stdout
    assert solve(*TILE, "--access", doubling(4), "--check", "none", "-q").stdout == written.stdout


def test_many_loops_are_refused_in_linear_time():
    """60,000 one-iteration loops: 7.5 s (the duplicate check was quadratic, then each loop's range
    three expression parses). A kernel's copy nests a few loops: more than 16 is bad input."""
    text = "offset: tid; " + "; ".join(f"j{i} in 0..1" for i in range(60_000))
    result, seconds = timed(*TILE, "--access", text, "-q")
    assert_input_error(result, "more than 16 loops")
    assert seconds < 2.0
    sixteen = "offset: tid; " + "; ".join(f"j{i} in 0..1" for i in range(16))
    assert solve(*TILE, "--access", sixteen, "-q").returncode in (0, 1)


def test_the_instruction_cap_is_the_largest_tile_read_a_byte_a_lane():
    """65,536 warp instructions were accepted: 3.5 s and 420 MB to split them into phases. The cap is
    16,384, the largest tile (512 KiB) read one byte a lane by one warp."""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result, seconds = timed(*TILE, "--access", "index: row = 0, col = lane; j in 0..65536", "-q")
    assert_input_error(result, "65536 iterations, more than 16384")
    assert seconds < 1.0 and resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 100_000  # KiB
    assert_input_error(solve(*TILE, "--access", "index: row = 0, col = lane; j in 0..1024; block 1024", "-q"),
                       "32768 warp instructions (loops x warps) is more than 16384")


def test_a_long_expression_is_cut_in_the_message():
    """The expression was echoed whole in the one line (300,000 characters)."""
    line = assert_input_error(solve(*TILE, "--access", "offset: " + "+".join(["1"] * 150_000), "-q"))
    assert len(line) < 400


# --- digits of other scripts in any --access -------------------------------------------------------

@pytest.mark.parametrize("arch, dtype, spec", [
    ("gfx1250", "f16", "ds_read_b128:32x1:w\u0664"),  # read as :w4
    ("nvidia", "f16", "SM75_U32x\u0664_LDSM_N"),  # read as ldmatrix.x4
    ("nvidia", "f32", "mma-c:m16n8v\u0664"),  # read as v4
    ("nvidia", "f16", "8x\u0668"),  # read as 8x8 (before today, too)
    ("nvidia", "f16", "warp:4x8:1x\u0668"),
    ("nvidia", "f16", "lds128:32x1:1x\uff18"),  # fullwidth 8
    ("nvidia", "f16", "make_tiled_copy(Copy_Atom<SM75_U32x\u0664_LDSM_N, half_t>{}, Layout<Shape<_32,_4>,"
                      "Stride<_4,_1>>{}, Layout<Shape<_1,_8>>{})"),
    ("nvidia", "f32", "index: row = 0, col = lane; j in 0..\u0662"),
])
def test_only_ascii_digits_are_numbers_in_an_access(arch, dtype, spec):
    """``\\d`` and ``int()`` read another script's digits; no compiler or CuTe does (B15's rule for the
    notations, now for every access form)."""
    result = solve("--arch", arch, "--rows", "256", "--cols", "256", "--dtype", dtype, "--access", spec, "-q")
    assert_input_error(result, "is not an ASCII digit")
    with pytest.raises(InputError, match="ASCII digit"):
        api.problem(256, 256, [spec], dtype=dtype, arch=arch)


def test_the_batch_of_a_wave_count_in_arabic_indic_digits_is_one_line():
    assert_input_error(solve("batch", FORMS / "unicode-digits.toml"), "is not an ASCII digit")


@pytest.mark.parametrize("text", ["tk: st_bf<\u0666\u0664, 64>", "tk: st_bf<64, 64, true, \uff11\uff12\uff18>"])
def test_only_ascii_digits_are_numbers_in_tk(text):
    result = solve("--rows", "64", "--cols", "64", "--dtype", "bf16", "--access", "ldmatrix.x4", "--check", text, "-q")
    assert_input_error(result, "ThunderKittens")


# --- -D and define: the thread's names -------------------------------------------------------------

@pytest.mark.parametrize("define, spec", [
    ("tid=0", "offset: tid"),  # every lane at offset 0: a broadcast that passed
    ("lane=3", "index: row = 0, col = lane"),
    ("threadIdx=3", "index: row = threadIdx.y, col = threadIdx.x; block 32"),  # 3.x: "unknown name 'y'"
])
def test_a_constant_named_as_the_thread_is_bad_input(define, spec):
    name = define.partition("=")[0]
    assert_input_error(solve(*TILE, "--access", spec, "-D", define, "-q"), f"-D '{define}'", "rename the constant")
    with pytest.raises(InputError, match=f"{name} is the thread"):
        api.problem(32, 32, [spec], dtype="f32", define={name: int(define.partition("=")[2])})


def test_a_batch_define_of_the_thread_is_bad_input():
    assert_input_error(solve("batch", FORMS / "define-thread-name.toml"), "define 'tid=0'", "rename the constant")


def test_a_thread_name_defined_for_a_layout_alone_is_kept():
    """The refusal is of a constant that would change an access: a layout's text may use any name."""
    result = solve("--rows", "16", "--cols", "64", "--dtype", "f16", "--access", "ldmatrix.x4", "-D", "tid=3",
                   "--check", "cute: composition(Swizzle<tid,3,3>{}, Layout<Shape<_16,_64>,Stride<_64,_1>>{})", "-q")
    assert result.returncode == 0 and result.stdout.startswith("cute: composition(Swizzle<3,3,3>")


# --- the API: InputError, never another exception ------------------------------------------------

class _Layout:
    def __init__(self, shape, stride):
        self.shape, self.stride = shape, stride


def _deep(levels: int):
    t = 32
    for _ in range(levels):
        t = (t,)
    return t


@pytest.mark.parametrize("call, words", [
    (lambda: api.problem(32, 32, [123]), "an access is a string"),  # AttributeError: 'int' ... 'lower'
    (lambda: api.problem(32, 32, [None]), "an access is a string"),
    (lambda: api.problem(32, 32, [b"8x8"]), "an access is a string"),  # TypeError
    (lambda: api.check(3, rows=64, cols=64, dtype="f16", access=["ldmatrix.x4"]), "give a layout's name"),
    # tiled_copy: "32" recursed without end (each character a one-character tuple), None raised TypeError
    (lambda: api.tiled_copy("SM75_U32x4_LDSM_N", _Layout("32", "1"), _Layout((1, 8), (8, 1))), "integer or a tuple"),
    (lambda: api.tiled_copy("SM75_U32x4_LDSM_N", _Layout(None, None), _Layout((1, 8), (8, 1))), "integer or a tuple"),
    (lambda: api.tiled_copy("SM75_U32x4_LDSM_N", _Layout(_deep(3000), _deep(3000)), _Layout((1, 8), (8, 1))),
     "at most 8 levels"),
    (lambda: api.tiled_copy("SM75_U32x4_LDSM_N", 3, 4), "is not a layout"),
])
def test_the_api_raises_input_error(call, words):
    with pytest.raises(InputError, match=words):
        call()


def test_tiled_copy_still_writes_numpy_and_nested_integers():
    import numpy as np

    text = api.tiled_copy("SM75_U32x4_LDSM_N", _Layout((np.int64(32), (2, 2)), (4, (1, 128))), _Layout((1, 8), (8, 1)))
    assert text == ("make_tiled_copy(Copy_Atom<SM75_U32x4_LDSM_N, half_t>{}, Layout<Shape<_32,Shape<_2,_2>>,"
                    "Stride<_4,Stride<_1,_128>>>{}, Layout<Shape<_1,_8>,Stride<_8,_1>>{})")


# --- Gluon's constructors: an argument given twice ---------------------------------------------------

@pytest.mark.parametrize("text", ["SwizzledSharedLayout(vec=8, vec=4, per_phase=1, max_phase=8, order=[1, 0])",
                                  "SwizzledSharedLayout(8, 1, 8, [1, 0], vec=4)"])
def test_a_gluon_argument_given_twice_is_bad_input(text):
    """Python refuses both ("keyword argument repeated", "got multiple values"); the reader kept the
    last value and passed the layout."""
    result = solve("--rows", "64", "--cols", "64", "--dtype", "f16", "--access", "ldmatrix.x4", "--check",
                   f"triton: {text}", "-q")
    assert_input_error(result, "is given vec twice")


# --- gfx1250's partition fix of a layout given for the whole tile ------------------------------------

def test_the_partition_fix_of_a_whole_tile_cute_layout_is_no_error():
    """--json's partitioned allocation writes the layout's encoding of one piece: a cute: layout of the
    whole tile was re-read on the piece and refused, so a valid check exited 2 (and batch --json left
    half a document). The piece then has no encoding, said as for any layout --emit triton cannot write."""
    argv = ["--arch", "gfx1250", "--rows", "256", "--cols", "256", "--dtype", "f16", "--access",
            "ds_read_b128:32x1:w4", "--check", "cute: Layout(IntTuple(256, 256), IntTuple(256, 1))", "--json"]
    result = solve(*argv)
    assert result.returncode == 1 and result.stderr == ""
    doc = strict_json(result.stdout)
    assert doc["status"] == "conflicts"
    assert doc["answer"]["name"].startswith("cute: Layout(IntTuple(256, 256)")
    assert "partitionLayout = <no Triton encoding of the piece" in doc["answer"]["partitioned"]["triton"]
    batch = solve("batch", FORMS / "partitioned-cute-json.toml", "--json")
    assert batch.returncode == 1 and batch.stderr == ""
    assert [case["ok"] for case in strict_json(batch.stdout)["cases"]] == [True, False]


# --- batch: a case refused only when solved --------------------------------------------------------

def test_a_case_refused_when_solved_fails_alone_and_the_json_document_is_whole(tmp_path, monkeypatch):
    """Every case is compiled before anything is printed (cases.case_makers); what only solving can
    refuse (an InputError raised by the solve itself) fails that case alone, as an internal error does,
    so that batch --json never stops half way through its document (it printed 27 KB and exited 2).
    (--jobs takes the same _failed path; its spawned workers cannot see a monkeypatch.)"""
    import json

    from swizzle_solver import cli

    real = cli._batch_case

    def refusing(c, **kwargs):
        if c.name == "second":
            raise InputError("the solve refused it")
        return real(c, **kwargs)

    monkeypatch.setattr(cli, "_batch_case", refusing)
    cases = tmp_path / "cases.toml"
    cases.write_text("".join(f'[[case]]\nname = "{n}"\nrows = 16\ncols = 16\naccess = ["8x4"]\n\n'
                             for n in ("first", "second", "third")))
    result = solve("batch", str(cases), "--json")
    assert result.returncode == 1, result.stderr
    doc = json.loads(result.stdout)
    assert [c["name"] for c in doc["cases"]] == ["first", "second", "third"]
    assert doc["cases"][1]["ok"] is False and "the solve refused it" in doc["cases"][1]["error"]
    assert all("result" in c for c in (doc["cases"][0], doc["cases"][2]))
    assert result.stderr.count("\n") == 1 and "refused when solved" in result.stderr
