"""Every file the tool reads (--phases, --linear-layout, batch's examples.toml) goes through here,
and every name it prints goes through ``printable``.

A file passed by mistake must never hang, exhaust memory, crash or leak: only regular files are
opened (a FIFO, a device such as /dev/zero or a directory is refused before it is read, and the open
is non-blocking, so a FIFO swapped in meanwhile cannot hang it), at most MAX_FILE_BYTES are read,
the text must be UTF-8 (a byte-order mark is accepted), JSON and TOML may nest at most MAX_DEPTH
levels (both parsers recurse once per level), a TOML key may have at most MAX_DEPTH dotted parts
(tomllib is quadratic in them), and no message quotes the file's content. Every check here reads
the text once: a reader is linear in its input, or refuses it before it runs.
"""
from __future__ import annotations

import os
import re
import stat

from ..model import InputError

MAX_FILE_BYTES = 16 * 1024 * 1024  # a phases file of every lane of a 512 KiB tile is a few MiB
MAX_DEPTH = 32  # a phases file nests 6 levels, a linear layout 4, examples.toml 3


def printable(text: str) -> str:
    """``text`` safe for a terminal, JSON, XML and a CI log: every character that is not printable
    (control characters and escape sequences, line breaks, format characters, lone surrogates)
    becomes its Python escape, e.g. ``\\x1b``, and what a CI runner reads as a command is escaped
    too (``inert``); printable text without such a command is returned unchanged."""
    return inert(escaped(text))


def escaped(text: str) -> str:
    """``text`` with every character that is not printable written as its Python escape (``\\n``,
    ``\\x1b``, ``\\u2028``); printable text is returned unchanged."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape", "backslashreplace").decode("ascii")
                   for c in text)


# What a CI runner reads as a command inside a log line (GitHub Actions: actions/runner's
# ActionCommand, TryParseV2 and TryParse): `::` where a line starts (after blanks, and a report may
# wrap a long name at any blank), and `##[` anywhere (the old syntax).
_COMMAND = re.compile(r"##\[|(?:(?<=\s)|^)::")


def inert(text: str) -> str:
    """``text`` (printable) with nothing a CI runner would run: ``##[`` becomes ``##\\x5b`` and a
    ``::`` at the start or after a blank ``\\x3a:``, the Python escapes of '[' and ':', as
    ``printable`` writes control characters. Text that holds neither is returned unchanged."""
    return _COMMAND.sub(lambda m: "##\\x5b" if m[0] == "##[" else "\\x3a:", text)


def printable_only(text: str, what: str) -> str:
    """``text`` when every character in it is printable (the ASCII space included) and it holds
    nothing ``inert`` would change; else bad input naming the first such character or sequence.

    A layout's text in the kernel's notation is its name, printed as given in -q, the report's
    tables, --svg, --json and CI output: a line break, a control or format character (``\\r``,
    ``\\v``, ``\\f``, ``\\x1c``-``\\x1f``, NUL, ESC, U+2028, a bidi override) would split a line
    that scripts read as one or make the SVG ill-formed, and ``##[`` or a ``::`` after a blank
    would be a CI workflow command once a report wraps the name there; so it is refused where the
    text comes in, never escaped on the way out."""
    if text.isprintable():
        command = _COMMAND.search(text)
        if command is None:
            return text
        raise InputError(f"{what} holds {command[0]!r} at character {command.start() + 1}, which a CI runner "
                         f"(GitHub Actions) reads as a command in its log: write '::' right after a name (cute::X), "
                         f"and no '##[' (rename such a table file)")
    at = next(i for i, c in enumerate(text) if not c.isprintable())
    import unicodedata

    char = text[at]
    kind = unicodedata.name(char, "") or ("a line break" if char in "\n\r\v\f\x1c\x1d\x1e\x85" else
                                         "a tab" if char == "\t" else "a control character")
    raise InputError(f"{what} holds {printable(char)} ({kind.lower()}) at character {at + 1}: write it on "
                     f"one line, in printable characters (spaces, not tabs or line breaks)")


def read_text(path: str, what: str) -> str:
    """The text of the regular file ``path``; ``what`` names it in messages (e.g. "phases file")."""
    return decode(read_bytes(path, what), f"{what} {printable(path)}")


def read_bytes(path: str, what: str) -> bytes:
    """The bytes of the regular file ``path`` (at most MAX_FILE_BYTES); ``what`` names it in messages."""
    shown = printable(path)
    try:
        info = os.stat(path)
    except (OSError, ValueError) as err:  # ValueError: a NUL in the path
        reason = getattr(err, "strerror", None) or "invalid path"
        raise InputError(f"cannot read {what} {shown}: {reason}") from None
    if not stat.S_ISREG(info.st_mode):
        kind = "a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file (a pipe or a device)"
        raise InputError(f"{what} {shown} is {kind}: give the path of a regular file")
    if info.st_size > MAX_FILE_BYTES:
        raise InputError(f"{what} {shown} is {info.st_size} bytes, above the {MAX_FILE_BYTES // (1024 * 1024)} MiB "
                         f"limit for input files: give the file of one tile")
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as err:
        raise InputError(f"cannot read {what} {shown}: {err.strerror}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # replaced between the stat and the open
            raise InputError(f"{what} {shown} is not a regular file (a pipe or a device): give the path of a "
                             f"regular file")
        chunks, size = [], 0
        while size <= MAX_FILE_BYTES:
            chunk = os.read(fd, min(1 << 20, MAX_FILE_BYTES + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as err:
        raise InputError(f"cannot read {what} {shown}: {err.strerror}") from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > MAX_FILE_BYTES:
        raise InputError(f"{what} {shown} is above the {MAX_FILE_BYTES // (1024 * 1024)} MiB limit for input "
                         f"files: give the file of one tile")
    return data


def decode(data: bytes, where: str) -> str:
    """UTF-8 text (a byte-order mark is dropped); binary, UTF-16 and legacy encodings are refused."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise InputError(f"{where} is UTF-16 text: save it as UTF-8")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        if b"\0" in data:
            raise InputError(f"{where} is a binary file, not text: give the JSON or TOML file") from None
        raise InputError(f"{where} is not UTF-8 text (Latin-1 or another legacy encoding?): save it as "
                         f"UTF-8") from None
    if "\0" in text:
        raise InputError(f"{where} is a binary file, not text (it holds NUL bytes): give the JSON or TOML file")
    return text


# Strings (whose brackets do not nest), comments, and the brackets that do nest. Each string pattern
# matches from any opening quote (an unterminated string runs to the end of the text or its line, a
# lone backslash included: the parser refuses it anyway), and the quantifiers are possessive, so
# the scan is linear: no backtracking, and no retry at each later quote.
_JSON_TOKENS = re.compile(r'"(?:[^"\\]++|\\.?)*+"?|[\[\]{}]', re.DOTALL)
_TOML_TOKENS = re.compile(r'"""(?:[^"\\]++|\\.?|"(?!""))*+(?:"""|\Z)'  # multi-line basic string
                          r"|'''(?:[^']++|'(?!''))*+(?:'''|\Z)"  # multi-line literal string
                          r'|"(?:[^"\\\n]++|\\.?)*+"?'  # basic string
                          r"|'[^'\n]*+'?"  # literal string
                          r"|#[^\n]*+"  # comment
                          r"|[\[\]{}]", re.DOTALL)


def nesting(text: str, toml: bool = False, enough: int | None = None) -> int:
    """The deepest nesting of arrays and objects (inline tables) in JSON or TOML text; the scan
    stops once it is above ``enough``."""
    depth = deepest = 0
    for m in (_TOML_TOKENS if toml else _JSON_TOKENS).finditer(text):
        token = m[0]
        if token in "[{":
            depth += 1
            deepest = max(deepest, depth)
            if enough is not None and deepest > enough:
                break
        elif token in "]}":
            depth -= 1
    return deepest


def check_depth(text: str, where: str, toml: bool = False) -> None:
    if text.count("[") + text.count("{") <= MAX_DEPTH:  # cannot nest deeper than it has brackets
        return
    if nesting(text, toml, enough=MAX_DEPTH) > MAX_DEPTH:
        raise InputError(f"{where} nests arrays or objects more than {MAX_DEPTH} levels deep: this is not a tile "
                         f"description; fix the file")


# A dotted key (a.b.c = 1, [a.b.c], {a.b.c = 1}) costs tomllib time and memory quadratic in its
# parts (a 64 KB key took 13 s and 4 GB): keys of more than MAX_DEPTH parts are refused before it
# runs. One scan: strings and comments are passed over whole (a dot inside one is no key's), and a
# long key is matched from the start of its first part only (not inside a part, nor right after a
# dot: a key's first part never follows one, and TOML that does is refused by tomllib right
# there, before the rest is read), and at most MAX_DEPTH + 1 parts far.
_PART = r'''(?:[A-Za-z0-9_-]++|"(?:[^"\\\n]++|\\.)*+"|'[^'\n]*+')'''  # bare, quoted or literal
_TOML_DOTTED = re.compile(r'"""(?:[^"\\]++|\\.?|"(?!""))*+(?:"""|\Z)'  # multi-line basic string
                          r"|'''(?:[^']++|'(?!''))*+(?:'''|\Z)"  # multi-line literal string
                          rf"|(?P<key>(?<![A-Za-z0-9_.-])(?:{_PART}[ \t]*+\.[ \t]*+){{{MAX_DEPTH}}}{_PART})"
                          r'|"(?:[^"\\\n]++|\\.?)*+"?'  # basic string
                          r"|'[^'\n]*+'?"  # literal string
                          r"|#[^\n]*+", re.DOTALL)  # comment


def check_dotted_keys(text: str, where: str) -> None:
    """Refuse a TOML key of more than MAX_DEPTH dotted parts."""
    if text.count(".") < MAX_DEPTH:  # cannot hold one
        return
    for m in _TOML_DOTTED.finditer(text):
        if m["key"] is not None:
            raise InputError(f"{where} has a dotted key of more than {MAX_DEPTH} parts (a.b.c...): this is not a "
                             f"tile description; fix the file")


def load_json(text: str, where: str):
    """json.loads with the depth cap; InputError for any malformed text."""
    import json

    check_depth(text, where)
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as err:  # JSONDecodeError, an integer of over 4300 digits
        raise InputError(f"{where} is not valid JSON ({_reason(err)}); fix the file") from None


def load_toml(text: str, where: str):
    """tomllib.loads with the depth cap; InputError for any malformed text."""
    import tomllib

    check_depth(text, where, toml=True)
    check_dotted_keys(text, where)
    try:
        return tomllib.loads(text)
    except (ValueError, RecursionError) as err:  # TOMLDecodeError, an integer of over 4300 digits
        raise InputError(f"{where} is not valid TOML ({_reason(err)}); fix the file") from None


def _reason(err: Exception) -> str:
    """The parser's message, which says where the text is wrong but never quotes it."""
    if isinstance(err, RecursionError):
        return "nested too deeply"
    return printable(str(err))
