"""A language the tool reads (``--check PREFIX: text``) or writes (``--emit NAME``, ``--for NAME``):
one ``Language`` record says everything the rest of the tool asks of it.

The two registries hold nothing but these records:

- ``emit/__init__.py``'s writers: ``--emit``, ``--for``, the report's section titles, ``--help``'s
  list of targets, the JSON's ``expressible_in`` and the schema's enum of targets;
- ``notation/__init__.py``'s readers: ``--check``, batch's ``check =``, the API's ``check``,
  ``--help``'s list of notations, the report's words for what a text gives and the schema's enum of
  notations.

A language is its record plus the modules that do the work: its writer ``emit/NAME.py`` (``TARGET``,
``TITLE``, ``ORDER``, ``emit``; optionally ``ALIASES``, ``COMMENT``, ``unavailable``,
``in_user_order``, ``in_elements``) and its reader ``notation/PREFIX.py`` (``read``, ``WHAT``,
``ORDER``). The registries make a language's record from those names when they find its module
there (pkgutil, so a new module is a new language with no other edit), and join the two halves by
name (``cute`` reads ``cute:`` and writes ``--emit cute``). A language from outside the package (a
plugin, a test) is a whole record given to ``register``: it needs no module at all.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..value import Value

Reader = Callable[..., Any]  # read(body, base, allow_outside) -> families.given.Source
Writer = Callable[..., Any]  # emit(problem, layout) -> emit.common.Snippet


class Language(Value, eq=False):
    """One language. The writer's half (``emit`` set) is an ``--emit`` target, the reader's half
    (``prefix`` and ``read`` set) a ``--check`` notation; a language may have either or both."""
    name: str  # --emit NAME; a reader-only language's name is its prefix
    title: str = ""  # the report's title of its --emit section ("CuTe (C++)")
    order: int = 0  # its place in the --emit list (and the schema's enum, expressible_in)
    emit: Writer | None = None  # emit(problem, layout) -> Snippet, for the stored tile's code
    aliases: tuple[str, ...] = ()  # other names --emit and --for take for it
    comment: str = "//"  # its comment marker (the sub-byte view's note)
    unavailable: Callable[[Any], str | None] | None = None  # why --for it is refused on a hardware target
    in_user_order: Callable[[Any, str], str] | None = None  # its --order col note on the snippet's body
    in_elements: Callable[[Any, Any, Any], str] | None = None  # its code in 4-bit elements (None: the identity)
    prefix: str | None = None  # --check PREFIX: (None: it writes only)
    what: str = ""  # what a --check text in it gives, in the report's words ("a CuTe layout")
    check_order: int = 0  # its place in the list of notations (--help, the schema's enum)
    read: Reader | None = None  # read(body, base, allow_outside) -> families.given.Source

    def __post_init__(self) -> None:
        if (self.prefix is None) != (self.read is None):
            raise ValueError(f"language {self.name!r}: a reader has both a prefix and read, or neither")
        if self.emit is None and self.read is None:
            raise ValueError(f"language {self.name!r} neither reads nor writes")


_REGISTERED: dict[str, Language] = {}
_VERSION = [0]  # bumped by every (un)registration: the registries' caches are keyed by it


def register(language: Language) -> None:
    """Add a language from outside the package (or replace one of that name): from now on
    ``--check``, ``--emit``, ``--for``, ``--help`` and the schema the registries make list it."""
    _REGISTERED[language.name] = language
    _VERSION[0] += 1


def unregister(name: str) -> None:
    """Drop a registered language (a test's clean-up)."""
    _REGISTERED.pop(name, None)
    _VERSION[0] += 1


def registered() -> tuple[Language, ...]:
    """The languages given to ``register``, in the order given."""
    return tuple(_REGISTERED.values())


def version() -> int:
    """The registrations' count: what the registries' caches are keyed by."""
    return _VERSION[0]


def writer_of(module: Any) -> Language:
    """The writer's half of a language from its ``emit/`` module's names."""
    return Language(name=module.TARGET, title=module.TITLE, order=module.ORDER, emit=module.emit,
                    aliases=tuple(getattr(module, "ALIASES", ())), comment=getattr(module, "COMMENT", "//"),
                    unavailable=getattr(module, "unavailable", None),
                    in_user_order=getattr(module, "in_user_order", None),
                    in_elements=getattr(module, "in_elements", None))


def reader_of(prefix: str, module: Any) -> Language:
    """The reader's half of a language from its ``notation/`` module (named by its prefix)."""
    return Language(name=prefix, prefix=prefix, what=str(module.WHAT), check_order=module.ORDER, read=module.read)


__all__ = ["Language", "reader_of", "register", "registered", "unregister", "version", "writer_of"]
