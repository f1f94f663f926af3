"""names.py: every name the tool prints reads back; any other text is bad input, never a crash."""
from hypothesis import given, settings
from hypothesis import strategies as st

from swizzle_solver.access import make_problem
from swizzle_solver.model import InputError
from swizzle_solver.names import expect_problem, parse_layout
from swizzle_solver.solving import check
from tests import clirun

PROBLEM = make_problem(8, 24, ["4x2", "row"], None, 4)

PIECES = ["Swizzle<", "XorCols<", "RowInterleave<T=", ",k=", "Linear[", "b", "^=", "^", "]", "pitch ", " + ",
          " then ", ",", ">", "none", "-", "0", "1", "2", "3", "4", "12", "31", "32", "63", "64",
          "999999999999999999999", " "]


def read_back_or_refuse(text: str) -> bool:
    """A layout that prints its name back and gets a verdict from check(), or bad input in one line.
    Returns whether it was a layout."""
    try:
        layout = parse_layout(text)
    except InputError as err:
        assert "\n" not in str(err) and str(err)
        return False
    assert parse_layout(layout.name) == layout  # what it read, it prints back the same way
    measured, why = check(PROBLEM, layout)  # and it can be checked: a verdict, never a crash
    assert why is None or isinstance(why, str)
    assert all(r.worst >= 1 for r in measured.results)
    return True


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=40), st.lists(st.sampled_from(PIECES), max_size=12).map("".join)))
def test_any_text_is_a_layout_or_bad_input(text):
    read_back_or_refuse(text)
    assert expect_problem(text) is None or isinstance(expect_problem(text), str)


NUMBER = st.one_of(st.integers(0, 40), st.integers(0, 10**22))
NAMES = st.one_of(
    st.tuples(NUMBER, NUMBER, NUMBER).map(lambda t: "Swizzle<%d,%d,%d>" % t),
    st.tuples(NUMBER, NUMBER, NUMBER).map(lambda t: "%d,%d,%d" % t),
    st.tuples(NUMBER, NUMBER, NUMBER).map(lambda t: "XorCols<%d,%d,%d>" % t),
    st.tuples(NUMBER, NUMBER, NUMBER, NUMBER, NUMBER, NUMBER).map(lambda t: "Swizzle<%d,%d,%d> then Swizzle<%d,%d,%d>" % t),
    st.tuples(NUMBER, NUMBER).map(lambda t: "RowInterleave<T=%d,k=%d>" % t),
    st.lists(st.tuples(NUMBER, NUMBER), min_size=1, max_size=4).map(
        lambda ts: "Linear[" + ", ".join("b%d^=b%d" % t for t in ts) + "]"),
    st.tuples(NUMBER, st.sampled_from(["", " + Swizzle<1,2,3>", " + XorCols<1,0,0>", " + none"])).map(
        lambda t: "pitch %d%s" % t),
)


@settings(max_examples=300, deadline=None)
@given(NAMES)
def test_every_well_formed_name_is_checked_or_refused_in_one_line(text):
    """Out-of-range numbers (a typo's 10^22) are bad input, not an overflow deep in numpy."""
    read_back_or_refuse(text)


def test_the_name_strategy_reaches_layouts():
    """The strategy above is not all refusals: plenty of its names are layouts."""
    from hypothesis import find

    assert read_back_or_refuse(find(NAMES, lambda t: "Linear" in t and read_back_or_refuse(t)))
    assert read_back_or_refuse(find(NAMES, lambda t: "then" in t and read_back_or_refuse(t)))


def test_a_negative_shift_is_a_cute_swizzle_to_check():
    """issue 13: CuTe's Swizzle<B,M,S> takes S < 0 (|S| >= B); --check reads it, and the answer
    is measured like any other (the swizzle's meaning is tested against pycute in test_pycute.py)."""

    from swizzle_solver.families.cute import Swizzle

    assert parse_layout("Swizzle<3,0,-3>") == Swizzle(3, 0, -3)
    assert parse_layout("2, 1, -4") == Swizzle(2, 1, -4)
    for bad in ("Swizzle<3,0,-2>", "Swizzle<3,0,2>", "Swizzle<1,0,0>"):
        try:
            parse_layout(bad)
        except InputError as err:
            assert "CuTe rejects |S| < B" in str(err)
        else:
            raise AssertionError(bad)
    run = clirun.solve("--rows", "8", "--cols", "64", "--access", "row", "--check", "Swizzle<3,0,-3>")
    assert run.returncode == 0 and "CHECK PASSED: Swizzle<3,0,-3>" in run.stdout, run.stderr
