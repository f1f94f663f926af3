"""The ranking's second key, shared memory (DESIGN.md section 2), and --keep-pitch."""
from __future__ import annotations

import json

from swizzle_solver import api
from swizzle_solver.families.identity import Identity
from tests import clirun

PITCH_40 = dict(rows=64, cols=32, row_length=40, dtype="f16", access=["ldmatrix.x4", "warp:8x4:1x8"])


def test_dropping_the_given_padding_wins_on_memory():
    result = api.solve(**PITCH_40)
    answer = result.solution.answer
    assert answer.conflict_free
    assert answer.layout.padded_form(result.problem.tile)[0] == 32  # the padding dropped
    assert answer.storage_bytes == 64 * 32 * 2
    doc = result.json()
    assert doc["answer"]["storage_bytes"] == 4096
    given = doc["search"]["given_pitch"]
    assert given["row_length"] == 40 and given["extra_bytes"] == 1024
    # the later families of pitch 40 are not searched once pitch 32 is conflict-free (it ranks
    # first: less storage), and the line says so: the best found there is not the best there
    assert given["best"] == "none" and given["excess_wavefronts"] == 1
    assert "row-interleave" in given["not_searched"]
    kept = api.solve(keep_pitch=True, **PITCH_40).solution.answer  # --keep-pitch searches them
    assert kept.conflict_free and kept.layout.family == "row-interleave"
    # every conflict-free layout at the given pitch is ranked after it, by memory
    assert all(a["storage_bytes"] >= 4096 for a in doc["alternatives"])


def test_keep_pitch_never_changes_the_row_length():
    result = api.solve(keep_pitch=True, **PITCH_40)
    tile = result.problem.tile
    assert result.conflict_free
    for c in [result.solution.answer, *result.solution.alternatives]:
        assert c.layout.padded_form(tile) is None
        assert c.storage_bytes == tile.storage_bytes
    doc = result.json()
    assert doc["search"]["keep_pitch"] is True and doc["search"]["given_pitch"] is None


def test_a_dense_tile_keeps_its_pitch_and_says_nothing():
    doc = api.solve(rows=64, cols=64, dtype="f16", access=["8x8", "row"]).json()
    assert doc["answer"]["storage_bytes"] == 64 * 64 * 2
    assert doc["search"]["given_pitch"] is None


def test_report_says_what_the_given_pitch_needs():
    args = ["--rows", "64", "--cols", "32", "--row-length", "40", "--dtype", "f16", "--access", "ldmatrix.x4",
            "--access", "warp:8x4:1x8"]
    out = clirun.solve(*args, env={"COLUMNS": "200"})
    assert out.returncode == 0, out.stderr
    assert "pitch 40 as given:" in out.stdout and "1 KiB more" in out.stdout
    kept = clirun.solve(*args, "--keep-pitch", "--json")
    assert kept.returncode == 0, kept.stderr
    assert json.loads(kept.stdout)["answer"]["family"] != "padding"


def test_batch_key_keep_pitch(tmp_path):
    from swizzle_solver.cases import load_cases

    f = tmp_path / "cases.toml"
    f.write_text('[[case]]\nname = "a"\nrows = 8\ncols = 24\naccess = ["4x2"]\nkeep_pitch = true\n'
                 '[[case]]\nname = "b"\nrows = 8\ncols = 24\naccess = ["4x2"]\n')
    a, b = load_cases(str(f))
    assert a.keep_pitch and not b.keep_pitch
    assert api.solve(a.problem, keep_pitch=a.keep_pitch).layout == Identity()


# --- --for TARGET and expressible_in (issue 13 item 2) ----------------------------------------

def test_expressible_in_is_what_the_emitters_say():
    from swizzle_solver.emit import TARGETS, emit

    result = api.solve(rows=32, cols=40, dtype="f32", access=["8x4"])
    doc = result.json()
    problem = result.problem
    for entry, cand in zip([doc["answer"], *doc["alternatives"]],
                           [result.solution.answer, *result.solution.alternatives]):
        said = {t: emit(t, problem, cand.layout) for t in TARGETS}
        assert entry["expressible_in"] == [t for t in TARGETS if said[t].expressible]
        assert entry["tma_mode"] == said["tma"].mode


def test_tma_mode_and_emit_tma_agree_on_the_reported_cases():
    """32x40 f32 8x4 (160-byte rows) and 64x64 f16 Swizzle<2,3,3> (128-byte rows): byte forms that
    are TMA modes only for rows of their width, so neither is one here."""
    doc = api.solve(rows=32, cols=40, dtype="f32", access=["8x4"]).json(emit=["tma"])
    assert doc["answer"]["tma_mode"] is None and not doc["answer"]["emit_expressible"]["tma"]
    checked = api.check("Swizzle<2,3,3>", rows=64, cols=64, dtype="f16", access=["8x8"]).json(emit=["tma"])
    assert checked["answer"]["tma_mode"] is None and not checked["answer"]["emit_expressible"]["tma"]
    doc = api.solve(rows=64, cols=64, dtype="f16", access=["8x8", "row"]).json(emit=["tma"])
    assert doc["answer"]["tma_mode"] == "128B" and doc["answer"]["emit_expressible"]["tma"]
    assert "CU_TENSOR_MAP_SWIZZLE_128B" in doc["answer"]["emit"]["tma"]


def test_for_admits_only_what_the_target_expresses_and_states_the_price():
    free = api.solve(rows=32, cols=40, dtype="f32", access=["8x4"])
    assert "tma" not in free.json()["answer"]["expressible_in"]
    only = api.solve(rows=32, cols=40, dtype="f32", access=["8x4"], for_targets=["tma"])
    doc = only.json()
    assert "tma" in doc["answer"]["expressible_in"]
    assert all("tma" in a["expressible_in"] for a in doc["alternatives"])
    price = doc["search"]["for"]
    assert price["targets"] == ["tma"] and price["unrestricted"] == free.name
    assert price["extra_wavefronts"] == only.solution.answer.excess - free.solution.answer.excess >= 0


def test_for_that_costs_nothing_says_so():
    doc = api.solve(rows=64, cols=64, dtype="f16", access=["8x8", "row"], for_targets="tma").json()
    assert doc["answer"]["name"] == doc["search"]["for"]["unrestricted"] == "Swizzle<3,3,3>"
    assert doc["search"]["for"]["extra_wavefronts"] == 0 == doc["search"]["for"]["extra_bytes"]
    from swizzle_solver.render import verdict

    assert "restriction costs nothing" in verdict(doc).plain


def test_for_rejects_an_unknown_target():
    out = clirun.solve("--rows", "8", "--cols", "24", "--access", "4x2", "--for", "cutlass")
    assert out.returncode == 2 and out.stdout == "" and "--for 'cutlass'" in out.stderr
    assert "Traceback" not in out.stderr
