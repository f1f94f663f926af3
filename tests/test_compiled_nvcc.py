"""swizzle_solver/compiled/nvcc.py: a .cu compiled to PTX by nvcc, with stand-ins for nvcc (bash
scripts, as tests/test_probe.py does for nvcc and ncu). What a stand-in receives is its argv, one
argument a line, written into the "PTX" it produces, so the test reads back exactly what was run.
Every failure is one model.InputError line: no compiler, a failing one (its first error line), a
hanging one (stopped after the timeout, its children too), a bad -D or --arch. The real compile is
in the toolchain tier (tests/toolchains/test_kernel_sources.py)."""
from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from swizzle_solver.compiled import nvcc as nvcc_module
from swizzle_solver.compiled.nvcc import first_error, nvcc_arch, ptx_of_cu
from swizzle_solver.model import InputError

ECHO = """#!/bin/bash
# stand-in nvcc: the "PTX" it writes to -o is its own argv, one argument a line, after a marker line
out=""; for a in "$@"; do [ "$prev" = "-o" ] && out="$a"; prev="$a"; done
{ echo "// fake nvcc NAME"; for a in "$@"; do printf '%s\\n' "$a"; done; } > "$out"
"""

FAILING = """#!/bin/bash
echo "kernel.cu(7): warning #177-D: variable \\"x\\" was declared but never referenced" >&2
echo "kernel.cu(12): error: identifier \\"TILE\\" is undefined" >&2
echo "kernel.cu(13): error: expected a \\";\\"" >&2
echo "2 errors detected in the compilation of \\"kernel.cu\\"." >&2
exit 1
"""

HANGING = """#!/bin/bash
# stand-in nvcc that never finishes, with a child of its own (as nvcc's cicc / ptxas are)
sleep 300 &
echo $! > "PIDFILE"
wait
"""


def tool(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text.replace("NAME", name))
    path.chmod(0o755)
    return path


@pytest.fixture
def source(tmp_path) -> Path:
    path = tmp_path / "kernel.cu"
    path.write_text("__global__ void k(float* p) { __shared__ float t[32]; t[threadIdx.x] = 1; p[0] = t[0]; }\n")
    return path


def argv_of(ptx: str) -> list[str]:
    lines = ptx.splitlines()
    assert lines[0].startswith("// fake nvcc")
    return lines[1:]


def test_the_command_is_ptx_lineinfo_arch_defines_includes(tmp_path, source):
    nvcc = tool(tmp_path / "bin", "nvcc", ECHO)
    argv = argv_of(ptx_of_cu(source, nvcc=str(nvcc), defines=["TILE=32", "PAD", "MSG=a b"],
                             includes=["inc", tmp_path / "other"], arch="sm_80"))
    assert argv[:4] == ["-ptx", "-lineinfo", "-arch=sm_80", "-DTILE=32"]
    assert argv[4:8] == ["-DPAD", "-DMSG=a b", "-Iinc", f"-I{tmp_path / 'other'}"]  # one argument each, no shell
    assert argv[8] == str(source) and argv[9] == "-o" and argv[10].endswith("kernel.ptx")
    assert len(argv) == 11
    assert not Path(argv[10]).exists()  # the output folder is temporary


def test_the_default_arch_is_sm_90(tmp_path, source):
    nvcc = tool(tmp_path / "bin", "nvcc", ECHO)
    assert "-arch=sm_90" in argv_of(ptx_of_cu(source, nvcc=str(nvcc)))


def test_which_nvcc_runs(tmp_path, source, monkeypatch):
    """The nvcc given, else $NVCC, else nvcc on PATH, else the nvidia-cuda-nvcc wheel's."""
    given, env = tool(tmp_path / "a", "given", ECHO), tool(tmp_path / "b", "from-env", ECHO)
    on_path, wheel = tool(tmp_path / "c", "nvcc", ECHO), tool(tmp_path / "d", "wheel", ECHO)
    monkeypatch.setenv("NVCC", str(env))
    monkeypatch.setenv("PATH", f"{on_path.parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(nvcc_module, "_wheel_nvcc", lambda: str(wheel))

    def which() -> str:
        return ptx_of_cu(source, nvcc=None).splitlines()[0]

    assert ptx_of_cu(source, nvcc=str(given)).splitlines()[0] == "// fake nvcc given"
    assert which() == "// fake nvcc from-env"
    monkeypatch.delenv("NVCC")
    assert which() == "// fake nvcc nvcc"
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert which() == "// fake nvcc wheel"
    monkeypatch.setenv("NVCC", "from-env")  # a name is looked up on PATH
    monkeypatch.setenv("PATH", str(env.parent))
    assert which() == "// fake nvcc from-env"


def test_no_nvcc_is_one_line_saying_how_to_get_one(tmp_path, source, monkeypatch):
    monkeypatch.delenv("NVCC", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setattr(nvcc_module, "_wheel_nvcc", lambda: None)
    with pytest.raises(InputError) as e:
        ptx_of_cu(source)
    message = str(e.value)
    assert "\n" not in message and "no nvcc was found" in message and "NVCC=" in message
    assert "pip install nvidia-cuda-nvcc" in message and "nvcc -ptx -lineinfo" in message


@pytest.mark.parametrize("what", ["missing", "not executable", "not a program"])
def test_an_nvcc_that_cannot_run_is_one_line(tmp_path, source, what):
    path = tmp_path / "nvcc"
    if what == "not executable":
        path.write_text("#!/bin/bash\n")
        path.chmod(0o644)
    elif what == "not a program":
        path.write_bytes(b"\x7fELF\x00garbage")
        path.chmod(0o755)
    with pytest.raises(InputError) as e:
        ptx_of_cu(source, nvcc=str(path))
    assert "\n" not in str(e.value) and str(path) in str(e.value)
    assert ("not found" if what == "missing" else "cannot be run") in str(e.value)


def test_a_failing_nvcc_shows_its_first_error_line(tmp_path, source):
    nvcc = tool(tmp_path / "bin", "nvcc", FAILING)
    with pytest.raises(InputError) as e:
        ptx_of_cu(source, nvcc=str(nvcc))
    assert str(e.value) == ('nvcc could not compile kernel.cu: kernel.cu(12): error: identifier "TILE" is undefined '
                            '(and 1 more error line)')


def test_an_nvcc_that_exits_0_without_output_is_an_error(tmp_path, source):
    nvcc = tool(tmp_path / "bin", "nvcc", "#!/bin/bash\necho 'nvcc fatal   : nothing' >&2\n")
    with pytest.raises(InputError, match=r"^nvcc could not compile kernel.cu: nvcc fatal   : nothing$"):
        ptx_of_cu(source, nvcc=str(nvcc))


@pytest.mark.parametrize(("stderr", "line"), [
    ("", "exit status 3"),
    ("some message\nmore\n", "some message"),
    ("x.cu(1): warning: w\nnvcc fatal   : Unsupported gpu architecture 'compute_10'\n",
     "nvcc fatal   : Unsupported gpu architecture 'compute_10'"),
    ("a.cu(2): error: one\nb.cu(3): error: two\nc.cu(4): error: three\n3 errors detected in the compilation of \"a\"",
     "a.cu(2): error: one (and 2 more error lines)"),
])
def test_first_error(stderr, line):
    assert first_error(stderr, 3) == line


def test_a_hanging_nvcc_is_stopped_with_its_children(tmp_path, source):
    pidfile = tmp_path / "child.pid"
    nvcc = tool(tmp_path / "bin", "nvcc", HANGING.replace("PIDFILE", str(pidfile)))
    start = time.monotonic()
    with pytest.raises(InputError) as e:
        ptx_of_cu(source, nvcc=str(nvcc), timeout=1.0)
    assert time.monotonic() - start < 30
    assert str(e.value).startswith("nvcc did not finish compiling kernel.cu within 1 s (stopped)")
    child = int(pidfile.read_text())
    for _ in range(100):  # the child (sleep 300) was killed with nvcc's process group
        if not Path(f"/proc/{child}").exists() or "Z" in Path(f"/proc/{child}/stat").read_text().split()[2]:
            break
        time.sleep(0.05)
    else:
        pytest.fail(f"nvcc's child {child} still runs")


def test_a_missing_source_is_one_line(tmp_path):
    with pytest.raises(InputError, match=r"no such file"):
        ptx_of_cu(tmp_path / "nope.cu", nvcc="/bin/false")


@pytest.mark.parametrize("define", ["1X", "A B", "X\nY=1", "", "-rdc"])
def test_a_bad_define_is_refused_before_nvcc_runs(tmp_path, source, define):
    nvcc = tool(tmp_path / "bin", "nvcc", "#!/bin/bash\ntouch RAN\n")
    with pytest.raises(InputError, match=r"is not a macro definition: give NAME or NAME=VALUE"):
        ptx_of_cu(source, nvcc=str(nvcc), defines=[define])
    assert not (Path.cwd() / "RAN").exists()


@pytest.mark.parametrize(("arch", "flag"), [
    ("sm_90", "sm_90"), ("sm_90a", "sm_90a"), ("sm_100f", "sm_100f"), ("compute_80", "compute_80"),
    ("sm80", "sm_80"), ("SM90A", "sm_90a"), ("hopper", "sm_90"), ("a100", "sm_80"), ("ada", "sm_89"),
    ("blackwell", "sm_100"), ("rtx5090", "sm_120"), ("nvidia", "sm_90"), ("cuda", "sm_90"),
])
def test_nvcc_arch(arch, flag):
    assert nvcc_arch(arch) == flag


@pytest.mark.parametrize(("arch", "says"), [("gfx942", "not an NVIDIA target"), ("mi300x", "not an NVIDIA target"),
                                            ("sm_9", "not an NVIDIA architecture"),
                                            ("x86", "not an NVIDIA architecture")])
def test_a_bad_arch_is_one_line(arch, says):
    with pytest.raises(InputError, match=says) as err:
        nvcc_arch(arch)
    assert str(err.value).startswith(f"--gpu-arch {arch}") or str(err.value).startswith(f"--gpu-arch '{arch}'"), \
        "the option named is kernel's --gpu-arch (nvcc's -arch), not --arch (the model's target)"


@pytest.mark.parametrize("given", [{"defines": ("TILE=32",)}, {"includes": ("include",)}])
@pytest.mark.parametrize("name", ["transpose.ptx", "triton/matmul_sm80.ttgir"])
def test_nvcc_options_on_a_compiled_file_are_refused(name, given):
    """-D / -I on a .ptx or .ttgir would be ignored (the file is compiled already): a user who meant
    to check TILE=32 would read the default's count as TILE=32's. Refused in one line instead."""
    from swizzle_solver.compiled import kernel

    path = Path(__file__).parent / "data" / "kernels" / name
    assert path.exists(), path
    with pytest.raises(InputError, match=r"^-D/-I are nvcc's, for a \.cu file: .* is compiled already"):
        kernel(path, block=(32, 8), **given)
