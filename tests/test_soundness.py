"""The one soundness check (soundness.py) on its own (issue 22, item 4).

``table_soundness`` on hand-made tables that no family produces (a table one past its storage,
a vector moved by one element, a vector reversed, two elements swapped across vectors), each next
to the nearest table that is sound, so that both outcomes are held at every bound; the value it
answers (``Sound``), which only soundness.py can make and which the measurement a search ranks by
is the only one to accept; and the user-visible case of a vector that stays whole but starts
misaligned (``--check 'pitch 10'`` on 8x4v16).
"""
import numpy as np
import pytest

from swizzle_solver import api
from swizzle_solver.access import make_problem
from swizzle_solver.candidate import measure, measure_as_given
from swizzle_solver.families.identity import Identity
from swizzle_solver.families.padding import Padded
from swizzle_solver.layout import layout_table
from swizzle_solver.soundness import Sound, sound, soundness, table_soundness

ROWS, COLS = 8, 8


def problem_of(*accesses: str):
    return make_problem(ROWS, COLS, list(accesses), None, 4)  # f32


def identity_table(pitch: int = COLS) -> np.ndarray:
    return np.arange(ROWS)[:, None] * pitch + np.arange(COLS)[None, :]


# --- bijection onto the storage: at its bounds -------------------------------------------------------

def test_the_last_element_may_be_stored_at_size_minus_one_not_at_size():
    """One element per lane (nothing to keep whole): a table is sound exactly when its offsets are
    distinct and inside [0, size). The last element moved to the first free offset is sound in a
    storage one larger, not in the tile's own."""
    problem = problem_of("row")
    size = ROWS * COLS
    table = identity_table()
    assert table_soundness(problem.tile, table, size, problem.patterns) is None  # max == size - 1
    moved = table.copy()
    moved[-1, -1] = size  # one past the end: still distinct
    assert table_soundness(problem.tile, moved, size, problem.patterns) == \
        f"it is not a bijection onto its {size}-element storage"
    assert table_soundness(problem.tile, moved, size + 1, problem.patterns) is None


def test_offsets_below_zero_or_repeated_are_not_a_bijection():
    problem = problem_of("row")
    size = ROWS * COLS
    below = identity_table() - 1  # -1 .. size - 2: distinct, in range but for the first
    assert table_soundness(problem.tile, below, size, problem.patterns) is not None
    shifted = identity_table() + 1  # 1 .. size: distinct, the last one past the end
    assert table_soundness(problem.tile, shifted, size, problem.patterns) is not None
    assert table_soundness(problem.tile, shifted, size + 1, problem.patterns) is None
    repeated = identity_table()
    repeated[3, 5] = repeated[6, 2]  # in range, one offset twice (and one never used)
    assert table_soundness(problem.tile, repeated, size, problem.patterns) is not None


# --- vectors whole and aligned -----------------------------------------------------------------------

def test_a_vector_kept_whole_but_moved_by_one_element_is_split():
    """8x4v16 (16-byte vectors of 4 f32): the whole tile one element further on keeps every
    vector contiguous, but no vector starts on a multiple of 4 elements; four further on, all do."""
    problem = problem_of("8x4v16")
    size = ROWS * COLS
    assert table_soundness(problem.tile, identity_table() + 4, size + 4, problem.patterns) is None
    for shift in (1, 2, 3):
        assert table_soundness(problem.tile, identity_table() + shift, size + shift, problem.patterns) == \
            "it splits the 16-byte vectors of 8x4v16", shift


def test_a_vector_whose_elements_are_not_in_order_is_split():
    problem = problem_of("8x4v16")
    size = ROWS * COLS
    reversed_inside = identity_table()
    reversed_inside[:, 0:4] = reversed_inside[:, 3::-1]  # each first vector backwards: aligned, same offsets
    assert table_soundness(problem.tile, reversed_inside, size, problem.patterns) is not None
    swapped = identity_table()
    swapped[0, 3], swapped[0, 4] = swapped[0, 4], swapped[0, 3]  # two vectors exchange an element
    assert table_soundness(problem.tile, swapped, size, problem.patterns) is not None
    whole_vectors_swapped = identity_table()
    whole_vectors_swapped[:, 0:4], whole_vectors_swapped[:, 4:8] = identity_table()[:, 4:8], identity_table()[:, 0:4]
    assert table_soundness(problem.tile, whole_vectors_swapped, size, problem.patterns) is None


def test_padding_to_an_unaligned_pitch_is_not_usable():
    """The user-visible instance: 8 x 8 f32 read as 8x4v16, checked at pitch 10 (each row's first
    vector at byte 40 r: misaligned on odd rows), is not usable; at pitch 12 it is."""
    checked = api.check("pitch 10", rows=8, cols=8, access=["8x4v16"])
    assert not checked.passed
    assert checked.invalid is not None and "splits the 16-byte vectors of 8x4v16" in checked.invalid
    assert "not a multiple of 4" in checked.invalid
    assert api.check("pitch 12", rows=8, cols=8, access=["8x4v16"]).invalid is None


# --- the value -----------------------------------------------------------------------------------------

def test_only_the_check_makes_a_sound_value_and_measure_takes_only_that():
    problem = problem_of("8x4v16", "row")
    checked = sound(problem.tile, Identity(), problem.patterns)
    assert isinstance(checked, Sound) and checked.layout == Identity() and checked.of(problem)
    assert np.array_equal(checked.table, layout_table(problem.tile, Identity()))
    by_check, as_given = measure(problem, checked), measure_as_given(problem, Identity())
    assert by_check.excess == as_given.excess and [r.worst for r in by_check.results] == [r.worst for r in as_given.results]
    with pytest.raises(TypeError):
        Sound(problem.tile, Identity(), problem.patterns, checked.table)  # not made by the check
    with pytest.raises(TypeError):
        measure(problem, Identity())  # a layout not checked
    other = problem_of("row")
    with pytest.raises(TypeError):
        measure(other, checked)  # the check of another problem


def test_sound_and_soundness_agree():
    problem = problem_of("8x4v16")
    for pitch in range(8, 17):
        layout = Padded(pitch, Identity())
        assert (sound(problem.tile, layout, problem.patterns) is None) == \
            (soundness(problem.tile, layout, problem.patterns) is not None), pitch
