"""Value types: records compared and hashed by their fields, immutable unless asked otherwise; the
project's ``@dataclass(frozen=True)`` and ``NamedTuple``, without their cost at import.

Why: on Python 3.11 ``@dataclass(frozen=True)`` writes the source of six methods per class
(``__init__``, ``__repr__``, ``__eq__``, ``__hash__``, ``__setattr__``, ``__delattr__``) and compiles
each at import, about 0.5 ms a class; a NamedTuple compiles its ``__new__`` and every annotation,
0.2 to 0.9 ms. The 35 such types a plain solve loads cost ~10 ms that way, a fifteenth of Python's
own start-up (bench/startup.py, issue 11). Here each method is written once, on the base class,
and reads the field names the subclass declares:

    class Tile(Value):
        rows: int
        cols: int
        row_length: int | None = None

The rules are the dataclass rules a type checker already knows (``dataclass_transform``):

- The fields are the class's annotations (not ``ClassVar``), after those of its Value bases, in
  order; a field with no default comes before any with one. A default is the class attribute, or
  ``field(default=..., default_factory=..., compare=..., repr=...)``.
- ``__init__`` takes the fields positionally or by name, then calls ``__post_init__`` if the class
  has one (which may check invariants, or set derived attributes with ``object.__setattr__``).
- ``eq=True`` (the default): equal when of the same class with equal compared fields, and hashed
  by them; ``eq=False``: identity, as for a plain object.
- ``frozen=True`` (the default): assigning or deleting an attribute raises ``FrozenError``;
  ``replace(value, **changes)`` builds a changed copy (through ``__init__``, so invariants hold).
  ``frozen=False``: a mutable record (not hashable when ``eq``).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, TypeVar, dataclass_transform

V = TypeVar("V", bound="Value")

_NO_DEFAULT: Any = object()


class FrozenError(AttributeError):
    """An attribute of a frozen value was assigned or deleted."""


class Field:
    """A field's options, where a plain default is not enough (``field``)."""

    __slots__ = ("default", "default_factory", "compare", "repr")

    def __init__(self, default: Any, default_factory: Callable[[], Any] | None, compare: bool, repr: bool):
        self.default, self.default_factory, self.compare, self.repr = default, default_factory, compare, repr


def field(*, default: Any = _NO_DEFAULT, default_factory: Callable[[], Any] | None = None, compare: bool = True,
          repr: bool = True) -> Any:
    """A field's default (or a factory for a fresh one per value: a list), and whether it is
    compared (and hashed) and shown by ``repr``."""
    return Field(default, default_factory, compare, repr)


@dataclass_transform(eq_default=True, frozen_default=True, field_specifiers=(field,))
class Value:
    """The base of every value type (see the module's docstring)."""

    _options: ClassVar[dict[str, Field]] = {}  # every field, in __init__ order, with its options
    _fields: ClassVar[tuple[str, ...]] = ()  # their names
    _compared: ClassVar[tuple[str, ...]] = ()  # those equality and the hash read
    _shown: ClassVar[tuple[str, ...]] = ()  # those repr shows
    _defaults: ClassVar[dict[str, Field]] = {}  # those with a default or a factory
    _frozen: ClassVar[bool] = True

    def __init_subclass__(cls, eq: bool = True, frozen: bool = True, **kwargs: Any):
        super().__init_subclass__(**kwargs)
        options = dict(cls._options)  # the Value bases' fields first
        for name, annotation in cls.__dict__.get("__annotations__", {}).items():
            if "ClassVar" not in str(annotation):
                options[name] = cls._own_field(name)
        cls._options, cls._fields = options, tuple(options)
        cls._defaults = {n: f for n, f in options.items() if f.default is not _NO_DEFAULT or f.default_factory}
        defaulted = [name in cls._defaults for name in cls._fields]
        if True in defaulted and False in defaulted[defaulted.index(True):]:
            raise TypeError(f"{cls.__name__}: a field with no default follows one with a default")
        cls._compared = tuple(n for n, f in options.items() if f.compare)
        cls._shown = tuple(n for n, f in options.items() if f.repr)
        cls._frozen = frozen
        if not eq:
            cls.__eq__ = object.__eq__  # type: ignore[method-assign]
            cls.__hash__ = object.__hash__  # type: ignore[method-assign]
        elif not frozen:
            cls.__hash__ = None  # type: ignore[assignment]  # a mutable record compared by value

    @classmethod
    def _own_field(cls, name: str) -> Field:
        """The Field of an annotated name of this class: its ``field(...)`` (the class attribute then
        becomes the plain default, or goes, as dataclasses leaves it), or its plain default, or none."""
        given = cls.__dict__.get(name, _NO_DEFAULT)
        if not isinstance(given, Field):
            return Field(given, None, True, True)
        if given.default is _NO_DEFAULT:
            delattr(cls, name)
        else:
            setattr(cls, name, given.default)
        return given

    def __init__(self, *args: Any, **kwargs: Any):
        if not kwargs and len(args) == len(self._fields):  # every field given in order: the common case
            self.__dict__.update(zip(self._fields, args))
        else:
            self._bind(args, kwargs)
        self.__post_init__()

    def _bind(self, args: tuple, kwargs: dict[str, Any]) -> None:
        """Set the fields from positional arguments, then by name, then from their defaults."""
        fields, values = self._fields, self.__dict__
        if len(args) > len(fields):
            raise TypeError(f"{type(self).__name__}() takes {len(fields)} arguments, {len(args)} were given")
        values.update(zip(fields, args))
        for name in fields[len(args):]:
            if name in kwargs:
                values[name] = kwargs.pop(name)
            elif name in self._defaults:
                f = self._defaults[name]
                values[name] = f.default_factory() if f.default_factory is not None else f.default
            else:
                raise TypeError(f"{type(self).__name__}() is missing the argument {name!r}")
        if kwargs:
            raise TypeError(f"{type(self).__name__}() got an unexpected or repeated argument {next(iter(kwargs))!r}")

    def __post_init__(self) -> None:
        """Check invariants or set derived attributes (``object.__setattr__``): a subclass's hook."""

    def __setattr__(self, name: str, value: Any) -> None:
        if self._frozen:
            raise FrozenError(f"cannot assign to field {name!r}: {type(self).__name__} is frozen")
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        if self._frozen:
            raise FrozenError(f"cannot delete field {name!r}: {type(self).__name__} is frozen")
        object.__delattr__(self, name)

    def _key(self) -> tuple:
        values = self.__dict__
        return tuple(values[name] for name in self._compared)

    def __eq__(self, other: object) -> bool:
        if other is self:
            return True
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        """Hashed by the compared fields; a frozen value keeps its hash (the API's cache hashes the same
        tile and hardware on every call), which pickling drops (``__getstate__``: a string's hash
        differs between processes)."""
        values = self.__dict__
        cached = values.get("_hash_")
        if cached is None:
            cached = hash(self._key())
            if self._frozen:
                values["_hash_"] = cached
        return cached

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.pop("_hash_", None)
        return state

    def __repr__(self) -> str:
        values = self.__dict__
        return f"{type(self).__qualname__}({', '.join(f'{n}={values[n]!r}' for n in self._shown)})"


def replace(value: V, **changes: Any) -> V:
    """A copy of ``value`` with some fields changed (built by its ``__init__``: invariants hold)."""
    values = value.__dict__
    return type(value)(**{name: changes.pop(name) if name in changes else values[name] for name in value._fields},
                       **changes)


def fields(value: Value | type[Value]) -> tuple[str, ...]:
    """The names of a value type's fields, in order."""
    return value._fields


# --- read-only containers: what a cache shares with every caller (api.py, memo.py) ----------------


def _refused(self, *args: Any, **kwargs: Any) -> Any:
    raise FrozenError(f"a {type(self).__name__} is read-only: it is shared (copy it to change it)")


class FrozenList(list):
    """A list that refuses every change: a cached result's runners-up and family reports. Still a
    ``list`` (json.dumps writes it, isinstance holds)."""

    __slots__ = ()
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refused
    append = extend = insert = pop = remove = clear = sort = reverse = _refused

    def __reduce__(self):  # (a plain list when pickled: batch --jobs sends results between processes)
        return (list, (list(self),))


class FrozenDict(dict):
    """A dict that refuses every change (a family report's z3 record, shared by the cache)."""

    __slots__ = ()
    __setitem__ = __delitem__ = __ior__ = _refused
    pop = popitem = clear = update = setdefault = _refused

    def __reduce__(self):
        return (dict, (dict(self),))


def frozen_json(value: Any) -> Any:
    """A JSON value (dicts, lists, scalars) made read-only all the way down."""
    if isinstance(value, dict):
        return FrozenDict((k, frozen_json(v)) for k, v in value.items())
    if isinstance(value, list):
        return FrozenList(frozen_json(v) for v in value)
    return value
