"""value.Value keeps the dataclass rules it replaces (issue 11, start-up): each behaviour is checked
against the same class written with @dataclass."""
import dataclasses
from typing import ClassVar

import pytest
from hypothesis import given
from hypothesis import strategies as st

from swizzle_solver.value import FrozenError, Value, field, fields, replace


class Point(Value):
    x: int
    y: int = 0
    label: str = field(default="", compare=False)
    kind: ClassVar[str] = "point"  # not a field


@dataclasses.dataclass(frozen=True)
class PointDC:
    x: int
    y: int = 0
    label: str = dataclasses.field(default="", compare=False)
    kind: ClassVar[str] = "point"


ints = st.integers(-5, 5)


@given(a=st.tuples(ints, ints, st.sampled_from(["", "a"])), b=st.tuples(ints, ints, st.sampled_from(["", "a"])))
def test_equality_and_hash_are_the_dataclass_ones(a, b):
    assert (Point(*a) == Point(*b)) == (PointDC(*a) == PointDC(*b))
    if Point(*a) == Point(*b):
        assert hash(Point(*a)) == hash(Point(*b))
    assert Point(*a) != PointDC(*a)  # another class is never equal, even with the same fields


def test_fields_defaults_and_repr():
    assert fields(Point) == ("x", "y", "label") == tuple(f.name for f in dataclasses.fields(PointDC))
    assert Point.kind == "point" and Point.label == "" and Point.y == 0  # class attributes stay, as in dataclasses
    assert Point(1, label="a") == Point(x=1, y=0, label="b")
    assert repr(Point(1, 2, "a")) == "Point(x=1, y=2, label='a')"


def test_frozen_and_replace():
    p = Point(1, 2)
    with pytest.raises(FrozenError):
        p.x = 3  # type: ignore[misc]
    with pytest.raises(FrozenError):
        del p.x  # type: ignore[misc]
    assert replace(p, y=5) == Point(1, 5) and p == Point(1, 2)
    with pytest.raises(TypeError, match="unexpected"):
        replace(p, z=1)  # type: ignore[call-arg]


@pytest.mark.parametrize("args, kwargs, message", [
    ((), {}, "missing the argument 'x'"),
    ((1, 2, "a", 4), {}, "takes 3 arguments, 4 were given"),
    ((1,), {"x": 2}, "unexpected or repeated argument 'x'"),
    ((1,), {"z": 2}, "unexpected or repeated argument 'z'"),
])
def test_bad_arguments_raise_type_error(args, kwargs, message):
    with pytest.raises(TypeError, match=message):
        Point(*args, **kwargs)


def test_post_init_runs_on_construction_and_replace():
    class Positive(Value):
        n: int

        def __post_init__(self):
            if self.n <= 0:
                raise ValueError("n must be positive")

    with pytest.raises(ValueError):
        Positive(0)
    with pytest.raises(ValueError):
        replace(Positive(1), n=-1)


def test_identity_and_mutable_records():
    class Handle(Value, eq=False):
        n: int

    class Record(Value, frozen=False):
        items: list = field(default_factory=list)
        count: int = 0

    assert Handle(1) != Handle(1) and len({Handle(1), Handle(1)}) == 2
    r, s = Record(), Record()
    r.items.append(1)
    r.count += 1
    assert s.items == [] and r == Record([1], 1) and vars(r) == {"items": [1], "count": 1}
    assert list(vars(Record(count=2))) == ["items", "count"]  # field order, however given (JSON reads vars)
    with pytest.raises(TypeError):
        hash(r)  # compared by value and mutable: unhashable, as a dataclass


def test_subclass_fields_follow_the_base_fields():
    class Base(Value):
        a: int

    class Derived(Base):
        b: int = 1

    class Hidden(Value):
        a: int = field(compare=False, repr=False)

    class Inherits(Hidden):
        b: int = 0

    assert fields(Derived) == ("a", "b") and Derived(0) == Derived(0, 1) != Base(0)
    assert Inherits(1, 2) == Inherits(3, 2) and repr(Inherits(1, 2)).endswith(".Inherits(b=2)")  # options inherited


def test_a_field_without_default_after_one_with_a_default_is_refused():
    with pytest.raises(TypeError, match="no default follows"):
        class Bad(Value):
            a: int = 0
            b: int


def test_a_frozen_value_keeps_its_hash_and_pickling_drops_it():
    """The hash is computed once (the API's cache hashes the same tile and hardware on every call)
    and never pickled: a string's hash differs between processes."""
    import pickle

    p = Point(1, 2)
    assert hash(p) == hash(Point(1, 2)) == hash(p)
    assert "_hash_" in p.__dict__ and "_hash_" not in p.__getstate__()
    copy = pickle.loads(pickle.dumps(p))
    assert copy == p and "_hash_" not in copy.__dict__ and hash(copy) == hash(p)
    moved = replace(p, x=3)
    assert "_hash_" not in moved.__dict__ and hash(moved) == hash(Point(3, 2)) and moved != p
    assert repr(p) == repr(Point(1, 2)) and fields(p) == fields(Point)
