"""Hostile inputs of the plain solve, `probe` and `probe-compare` (issue 39 items 2, 3 and 6): each a
break the reliability review found (its B-number), each with the contract's answer (docs/cli.md):
exit 2 with one line on stderr naming the problem and the fix and nothing on stdout; no traceback;
`--json` strict JSON; `probe -o` whole or nothing. Files: tests/data/hostile/cli/ and probe/.
"""
import contextlib
import errno
import io
import json
import os
from pathlib import Path

import pytest

from swizzle_solver.cli import main
from tests.clirun import assert_input_error, solve

HOSTILE = Path(__file__).resolve().parent / "data" / "hostile"
PROBE = ["probe", "--rows", "64", "--cols", "64", "--dtype", "f16", "--access", "ldmatrix.x4", "--target", "cuda"]


def strict_json(text: str):
    """json.loads that refuses NaN and Infinity, as every JSON parser but Python's does."""
    def refuse(name):
        raise ValueError(f"{name} is not JSON")
    return json.loads(text, parse_constant=refuse)



# --- B7: --order col, a layout that splits the vectors, --json -------------------------------------

def test_a_layout_that_splits_vectors_under_order_col_is_not_usable_in_json():
    """An AssertionError in report.collision_json (the rank proof's witness, which the simulator
    did not confirm: the GF(2) view of whole units does not describe a layout that splits them).
    Now: exit 1, the not-usable verdict, the exhaustive count as the proof, and a collision whose
    two lanes do hold different words of one bank."""
    result = solve("--rows", "16", "--cols", "16", "--dtype", "f32", "--order", "col", "--access", "8x8",
                   "--check", "expr: r * 16 + (c ^ (r / 2 % 4))", "--json")
    assert result.returncode == 1 and result.stderr == ""
    doc = strict_json(result.stdout)
    assert doc["status"] == "not-usable" and "splits the 16-byte vectors" in doc["check"]["invalid"]
    (access,) = doc["proof"]["accesses"]
    assert doc["proof"]["method"] == "exhaustive" and "gf2" not in access and "vectors whole" in access["gf2_unavailable"]
    assert access["worst_wavefronts"] > access["lower_bound"]
    a, b = access["collision"]["a"], access["collision"]["b"]
    assert a["word"] != b["word"] and a["word"] % 32 == b["word"] % 32 == access["collision"]["bank"]
    lanes = {(lane["row"], lane["col"]) for lane in access["worst_placement"]["lanes"]}
    assert {(a["row"], a["col"]), (b["row"], b["col"])} <= lanes


def test_the_same_case_in_batch_is_a_verdict_not_an_internal_error():
    result = solve("batch", HOSTILE / "cli" / "order-col-splits-vectors.toml", "--json")
    assert result.returncode == 1 and result.stderr == ""
    entries = strict_json(result.stdout)["cases"]
    assert [("result" in e, e["ok"]) for e in entries] == [(True, False), (True, True)]
    assert entries[0]["result"]["status"] == "not-usable"


# --- probe-compare (B10) ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def probe_folder(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("hostile") / "p"
    with contextlib.redirect_stdout(io.StringIO()):
        assert main([*PROBE, "-o", str(folder)]) == 0
    return folder


@pytest.fixture
def folder(probe_folder, tmp_path) -> Path:
    """A copy of the probe, with a recording that agrees (test_probe's ncu_csv)."""
    from tests.test_probe import ncu_csv

    copy = tmp_path / "p"
    copy.mkdir()
    for f in probe_folder.iterdir():
        (copy / f.name).write_bytes(f.read_bytes())
    (copy / "ncu.csv").write_text(ncu_csv(json.loads((copy / "prediction.json").read_text())))
    return copy


def compare(folder: Path) -> list:
    """probe-compare and probe-compare --json on ``folder``."""
    return [solve("probe-compare", folder), solve("probe-compare", "--json", folder)]


def test_the_agreeing_recording_passes(folder):
    text, doc = compare(folder)
    assert text.returncode == doc.returncode == 0 and strict_json(doc.stdout)["agree"] is True


PATCHES = json.loads((HOSTILE / "probe" / "prediction-patches.json").read_text())


@pytest.mark.parametrize("name", sorted(PATCHES))
def test_a_prediction_of_the_wrong_shape_is_bad_input(folder, name):
    """Wrong types were AttributeError/TypeError tracebacks, or a NaN in --json."""
    patch = PATCHES[name]
    doc = json.loads((folder / "prediction.json").read_text())
    doc.update(patch.get("top", {}))
    doc["kernels"] = patch.get("kernels", doc["kernels"])
    if "kernel" in patch:
        doc["kernels"][0].update(patch["kernel"])
    (folder / "prediction.json").write_text(json.dumps(doc))
    for result in compare(folder):
        assert_input_error(result, "prediction.json", patch["says"])


@pytest.mark.parametrize("text", [(HOSTILE / "probe" / "prediction-2000-deep.json").read_text(),
                                  "[" * 100_000 + "]" * 100_000, '{"schema_version": 1, "kernels": [], "x": NaN}'],
                         ids=["2000 deep", "100000 deep", "NaN"])
def test_a_deep_or_nan_prediction_is_bad_input(folder, text):
    """2,000 levels were a RecursionError traceback."""
    (folder / "prediction.json").write_text(text)
    for result in compare(folder):
        assert_input_error(result, "prediction.json")


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e400", "9" * 5000])
def test_a_measured_value_that_is_not_a_count_is_bad_input(folder, value):
    """--json printed NaN / Infinity (not JSON). A counter that is not a finite number is a broken
    measurement: refused, naming the kernel and the counter."""
    from tests.test_probe import ncu_csv

    doc = json.loads((folder / "prediction.json").read_text())
    metric = next(iter(doc["kernels"][0]["compare"][0]))
    recording = ncu_csv(doc).replace(f'"{metric}","",', f'"{metric}","","{value}"#')
    recording = "\n".join(line.split("#")[0] if "#" in line else line for line in recording.splitlines()) + "\n"
    (folder / "ncu.csv").write_text(recording)
    for result in compare(folder):
        assert_input_error(result, "ncu.csv", "probe_a0's counter", "not a count", "run.sh")


def test_a_csv_cell_above_the_csv_limit_is_bad_input(folder):
    """A 128 KiB cell was `_csv.Error: field larger than field limit`."""
    recording = (folder / "ncu.csv").read_text().replace('"probe"', '"' + "p" * (128 * 1024 + 1) + '"', 1)
    (folder / "ncu.csv").write_text(recording)
    for result in compare(folder):
        assert_input_error(result, "ncu.csv", "field larger than field limit")


def test_short_rocprof_rows_are_not_a_measurement(tmp_path):
    """Rows without their last cell, Counter_Name last: `'NoneType' object has no attribute 'strip'`."""
    folder = tmp_path / "amd"
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["probe", "--arch", "gfx942", "--rows", "64", "--cols", "64", "--dtype", "f16", "--access",
                     "ds_read_b128:64x1", "--target", "hip", "-o", str(folder)]) == 0
    (folder / "rocprof.csv").write_text((HOSTILE / "probe" / "rocprof-short-rows.csv").read_text())
    for result in compare(folder):
        assert_input_error(result, "rocprof.csv has no counters of kernel probe_a0")


def test_control_characters_in_the_folder_are_shown_escaped(folder):
    (folder / "device.txt").write_bytes(b"GPU: \x1b]0;pwned\x07 H100\n")
    text, doc = compare(folder)
    assert text.returncode == 0 and "\x1b" not in text.stdout and "\\x1b]0;pwned\\x07 H100" in text.stdout
    assert strict_json(doc.stdout)["device"] == {"GPU": "\x1b]0;pwned\x07 H100"}  # JSON escapes it itself


# --- probe -o (B11) --------------------------------------------------------------------------------

def probe(out) -> tuple[int, str, str]:
    result = solve(*PROBE, "-o", out)
    return result.returncode, result.stdout, result.stderr


FILES = ["README.md", "build.sh", "prediction.json", "probe.cu", "run.sh"]


def test_a_folder_1000_levels_deep_is_written(tmp_path):
    """Path.mkdir(parents=True) recursed once per level: RecursionError at 1,000."""
    out = tmp_path.joinpath(*["e"] * 1000)
    try:
        code, stdout, stderr = probe(out)
        assert code == 0 and stderr == "" and sorted(os.listdir(out)) == FILES
    finally:  # shutil.rmtree (pytest's clean-up of old temporary folders) recurses once per level too
        remove_deep(tmp_path / "e")


def remove_deep(top: Path) -> None:
    """Remove the folder ``top`` however deep, one level at a time."""
    levels, stack = [], [top] if top.exists() else []
    while stack:  # (os.walk and shutil.rmtree recurse in Python 3.11)
        here = stack.pop()
        levels.append(here)
        for entry in os.scandir(here):
            if entry.is_dir(follow_symlinks=False):
                stack.append(Path(entry.path))
            else:
                os.unlink(entry.path)
    for folder in reversed(levels):
        folder.rmdir()


def test_a_full_disk_leaves_nothing_and_names_the_disk(tmp_path, monkeypatch):
    """ENOSPC at the third file left build.sh, part of probe.cu and an empty run.sh, and the message
    blamed stdout. Now nothing is left, neither the files, nor the temporary folder, nor the parents
    the run made, and the line names the disk's problem."""
    real = Path.write_text
    written = []

    def fills_up(self, text, *a, **k):
        written.append(self.name)
        if len(written) == 3:
            real(self, text[:100], *a, **k)
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self))
        return real(self, text, *a, **k)
    monkeypatch.setattr(Path, "write_text", fills_up)
    code, stdout, stderr = probe(tmp_path / "new" / "deeper" / "probe")
    assert len(written) == 3 and code == 2 and stdout == ""
    assert stderr.count("\n") == 1 and "No space left on device" in stderr and "stdout" not in stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("kind", ["parent is a file", "name too long", "read-only"])
def test_an_unwritable_place_is_one_line_naming_it(tmp_path, monkeypatch, kind):
    """Each was 'cannot write the output (...): check where stdout goes'."""
    (tmp_path / "a-file").write_text("x")
    out = {"parent is a file": tmp_path / "a-file" / "p", "name too long": tmp_path / ("n" * 300),
           "read-only": tmp_path / "ro"}[kind]
    if kind == "read-only":
        real = Path.mkdir

        def read_only(self, *a, **k):
            if self.parent == tmp_path:
                raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(self))
            return real(self, *a, **k)
        monkeypatch.setattr(Path, "mkdir", read_only)
    code, stdout, stderr = probe(out)
    reason = {"parent is a file": "Not a directory", "name too long": "File name too long",
              "read-only": "Read-only file system"}[kind]
    assert code == 2 and stdout == "" and stderr.count("\n") == 1 and reason in stderr and "stdout" not in stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]


def test_an_empty_folder_or_a_link_to_one_is_filled_and_keeps_its_mode(tmp_path):
    empty, link = tmp_path / "empty", tmp_path / "link"
    empty.mkdir(mode=0o750)
    os.chmod(empty, 0o750)
    assert probe(empty)[0] == 0 and sorted(os.listdir(empty)) == FILES and (empty.stat().st_mode & 0o777) == 0o750
    (tmp_path / "target").mkdir()
    link.symlink_to(tmp_path / "target")
    assert probe(link)[0] == 0 and link.is_symlink() and sorted(os.listdir(tmp_path / "target")) == FILES
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty", "link", "target"]  # no temporary left


def test_a_folder_name_with_a_line_break_is_printed_on_one_line(tmp_path):
    out = tmp_path / "p\n::error::forged"
    code, stdout, _ = probe(out)
    assert code == 0 and out.is_dir() and len(stdout.splitlines()) == 3
    assert "p\\n::error::forged/run.sh" in stdout.splitlines()[-1]


def test_a_prediction_cannot_print_a_ci_command(folder):
    """prediction.json may come from a pull request: its text fields are shown inert."""
    doc = json.loads((folder / "prediction.json").read_text())
    doc["kernels"][0]["access"] = "x ::error::forged ##[stop-commands]t"
    doc["layout"]["name"] = "::warning::y"
    (folder / "prediction.json").write_text(json.dumps(doc))
    text, _ = compare(folder)
    assert text.returncode == 0 and "##[" not in text.stdout
    assert not any(line.lstrip().startswith("::") or " ::" in line for line in text.stdout.splitlines())
    assert "x \\x3a:error::forged ##\\x5bstop-commands]t" in text.stdout


def test_an_os_error_on_a_file_names_the_file_not_stdout():
    """B11's message: any OSError that escaped a command was 'cannot write the output (...): check
    where stdout goes'. One that names a file (stdout's never do) now names it (entry.py)."""
    import subprocess
    import sys

    code = ("import swizzle_solver.cli as c\n"
            "def fails(*a):\n    raise OSError(28, 'No space left on device', '/data/out\\n::x')\n"
            "c.main = fails\nfrom swizzle_solver.entry import main\nraise SystemExit(main())\n")
    root = Path(__file__).resolve().parents[1]
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root,
                         env={**os.environ, "PYTHONPATH": str(root)})
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr == ("swizzle-solve: error: cannot use /data/out\\n::x (No space left on device): check that "
                          "path, its folder and the space on its disk\n")
