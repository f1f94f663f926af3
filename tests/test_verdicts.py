"""Verdicts that say what happened: a checked layout that is not usable (its own status, no code,
exit 1), in every family that has one; --timeout always prints the best layout found and says
the search timed out."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from swizzle_solver import api
from swizzle_solver.cli import main
from swizzle_solver.names import parse_layout
from swizzle_solver.soundness import soundness

ROOT = Path(__file__).resolve().parents[1]

# (family, layout name, tile and accesses as CLI options, the reason's words): an unusable member
# of every family that has one (none, the identity, is always usable). Both kinds of reason: not a
# bijection onto the storage (the family's structural check or the table's), and a split vector.
UNUSABLE = [
    ("cute", "Swizzle<1,4,1>", "--rows 6 --cols 8 --access 2x1", "not a bijection of the 48-element storage"),
    ("cute", "Swizzle<3,0,3>", "--rows 64 --cols 64 --dtype f16 --access 8x8", "splits the 16-byte vectors"),
    ("xor-cols", "XorCols<3,3,0>", "--rows 24 --cols 96 --dtype f16 --access 8x8",  # the run
     "column 95 XOR 32 = 127 leaves the 96-column row"),
    ("two-level", "Swizzle<1,0,3> then Swizzle<1,4,1>", "--rows 6 --cols 8 --access 2x1",
     "not a bijection of the 48-element storage"),
    ("two-level", "Swizzle<1,3,3> then Swizzle<3,0,5>", "--rows 64 --cols 64 --dtype f16 --access 8x8",
     "splits the 16-byte vectors"),
    ("linear", "Linear[b4^=b5]", "--rows 6 --cols 8 --access 2x1", "not a bijection of the 48-element storage"),
    ("linear", "Linear[b0^=b6]", "--rows 64 --cols 64 --dtype f16 --access 8x8", "splits the 16-byte vectors"),
    ("row-interleave", "RowInterleave<T=8,k=2>", "--rows 12 --cols 16 --access 4x2",
     "the 12 rows are not a whole number of 8-row bands"),
    ("row-interleave", "RowInterleave<T=8,k=3>", "--rows 8 --cols 16 --access 4x2", "outside its 8-row band"),
    ("padding", "pitch 24 + XorCols<1,3,3>", "--rows 32 --cols 32 --access col", "below the 32 columns"),
    ("padding", "pitch 28 + XorCols<1,3,0>", "--rows 8 --cols 24 --access 8x1", "leaves the 28-column row"),
    ("padding", "pitch 40 + XorCols<1,0,0>", "--rows 32 --cols 32 --access 8x4", "splits the 16-byte vectors"),
    ("column-panels", "Panels<128B>", "--rows 12 --cols 128 --dtype f16 --access 4x8",
     "not a multiple of the atom's 8"),
    ("column-panels", "Panels<128B>", "--rows 16 --cols 128 --row-length 136 --dtype f16 --access 8x8",
     "the rows are padded"),
]
IDS = [f"{family}:{name}" for family, name, _, _ in UNUSABLE]


def cli(*argv: str) -> tuple[int, str, str]:
    run = subprocess.run([sys.executable, "-m", "swizzle_solver", *argv], capture_output=True, text=True, cwd=ROOT,
                         timeout=120)
    return run.returncode, run.stdout, run.stderr


def test_every_family_but_none_has_an_unusable_member_here():
    """The table above covers every family of the registry that can be unusable."""
    from swizzle_solver.families import records

    families = {r.name for r in records()} - {"none"}
    assert families == {family for family, _, _, _ in UNUSABLE}


@pytest.mark.parametrize("family, name, options, why", UNUSABLE, ids=IDS)
def test_an_unusable_layout_has_its_own_status_no_code_and_exit_1(capsys, family, name, options, why):
    argv = [*options.split(), "--check", name]
    layout = parse_layout(name)
    assert layout.family == family
    checked = api.check(layout, api.problem(**_kwargs(options)))
    # the reason is the one soundness check's (soundness.py), independently of the CLI
    assert checked.invalid == soundness(checked.problem.tile, layout, checked.problem.patterns)
    assert why in checked.invalid
    assert checked.status == "not-usable" and not checked.passed

    code = main([*argv, "--json", "--emit", "cuda", "--emit", "cute"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 1 and doc["status"] == "not-usable" and doc["check"]["passed"] is False
    assert doc["check"]["invalid"] == checked.invalid
    answer = doc["answer"]
    assert "emit" not in answer and answer["expressible_in"] == [] and answer["tma_mode"] is None

    code = main([*argv, "--emit", "cuda"])
    out = capsys.readouterr().out
    assert code == 1 and "\nCode\n" not in out and "--emit cuda" not in out and "phys(r, c)" not in out
    assert f"No code: {name} is not usable on this tile" in " ".join(out.split())
    assert f"CHECK FAILED: {name} is not usable here: {checked.invalid}" in " ".join(out.split())
    assert "(not usable: see below)" in out

    code = main([*argv, "-q", "--emit", "cuda"])
    out = capsys.readouterr().out
    assert code == 1 and out.count("\n") == 1  # the line, and no code after it
    assert out.startswith(f"{name} not usable: {checked.invalid}; minimal: ")


def _kwargs(options: str) -> dict:
    """CLI options as api.problem's keyword arguments."""
    words, kwargs = options.split(), {"access": []}
    for key, value in zip(words[::2], words[1::2]):
        key = key.lstrip("-").replace("-", "_")
        if key == "access":
            kwargs["access"].append(value)
        else:
            kwargs[key] = value if key == "dtype" else int(value)
    return kwargs


def test_batch_check_cases_agree(capsys, tmp_path):
    """batch: a check = case of an unusable layout fails, with the status not-usable in the table and
    in its JSON, as --check and check() say."""
    cases = []
    for i, (family, name, options, _) in enumerate(UNUSABLE):
        kw = _kwargs(options)
        keys = [f"{k} = {json.dumps(v)}" for k, v in kw.items()]
        cases.append(f'[[case]]\nname = "{family} {i}"\n' + "\n".join(keys) + f"\ncheck = {json.dumps(name)}\n")
        cases.append(f'[[case]]\nname = "{family} {i} conflicts"\n' + "\n".join(keys) +
                     f'\ncheck = {json.dumps(name)}\nexpect_status = "conflicts"\n')
    path = tmp_path / "unusable.toml"
    path.write_text("\n".join(cases))
    code = main(["batch", str(path), "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 1
    for entry in doc["cases"]:
        assert entry["ok"] is False and entry["result"]["status"] == "not-usable", entry["name"]
        assert "emit" not in entry["result"]["answer"]
    code = main(["batch", str(path)])
    out = capsys.readouterr().out
    assert code == 1 and out.count("not-usable") == len(cases) and f"0 passed, {len(cases)} failed" in out
