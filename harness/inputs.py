"""Input files read safely: datasets, prices, credentials, ``--file`` and ``@file`` options.

Every kind of input file goes through here, so that none can hang the process or fill its
memory:

- only a regular file is read: a directory, a named pipe (FIFO), a device (``/dev/zero``,
  also behind a symlink) or a socket is refused at once, from ``os.stat``, before it is
  opened; it is then opened non-blocking, so a FIFO swapped in after the check cannot block
  either, and checked again on the open descriptor;
- the name's suffix is checked before anything is read, where the suffix chooses the format;
- sizes are bounded per kind (:data:`DATASET`, :data:`SMALL_FILE_BYTES`), and a line of a
  line-oriented file is bounded too; large files are read a line (or a JSON list item) at
  a time, never whole;
- lines are split on ``\\n`` only (``str.splitlines`` would also split on U+2028, U+0085 or
  form feeds, which JSON strings may hold raw);
- JSON is nested at most :data:`MAX_JSON_DEPTH` levels, refused with the file and line.

Errors are :class:`InputError` (a ValueError), one line naming the file.
"""

from __future__ import annotations

import codecs
import json
import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass, replace
from itertools import accumulate
from typing import IO, Any, Protocol, Self

#: Config, context, input, prices, credentials and companies files: read whole, so small.
SMALL_FILE_BYTES = 10_000_000
#: A line of a JSONL or CSV dataset, or one item of a .json dataset's list.
MAX_LINE_BYTES = 64_000_000
#: Levels of JSON nesting (arrays and objects); Python's parser gives up near 1,000, and
#: deeper payloads would only fail later, in a run.
MAX_JSON_DEPTH = 200
#: How much of a .json dataset is read at a time.
_CHUNK = 1 << 20


class InputError(ValueError):
    """An input file that cannot be read: one line naming the file and why."""


class JSONTextError(InputError):
    """Text that is not JSON: ``problem`` at ``line`` and ``column`` (1-based)."""

    def __init__(self, where: str, problem: str, line: int, column: int | None = None) -> None:
        self.where, self.problem, self.line, self.column = where, problem, line, column
        super().__init__(f"{where}:{line}: not JSON: {problem}" + (f" at column {column}" if column else ""))


@dataclass(frozen=True, slots=True)
class InputKind:
    """A kind of input file: its name in messages, its size limit, the suffixes it may
    have (any, when empty) and the longest line it may hold."""

    name: str
    max_bytes: int = SMALL_FILE_BYTES
    suffixes: tuple[str, ...] = ()
    max_line_bytes: int = MAX_LINE_BYTES

    def named(self, name: str) -> InputKind:
        return replace(self, name=name)


DATASET = InputKind("dataset", 1_000_000_000, (".jsonl", ".json", ".csv"))
PRICES = InputKind("prices file")
CREDENTIALS = InputKind("credentials file")
COMPANIES = InputKind("companies file")
#: ``harness label --import``: the labels people filled in, one JSON object per line.
LABELS = InputKind("labels file", 1_000_000_000, (".jsonl",))
#: ``--input @file``, ``--config @file``, ``--context @file`` (named after the option).
OPTION_FILE = InputKind("input file")


class _Digest(Protocol):
    def update(self, data: bytes, /) -> None: ...


def size_text(count: float) -> str:
    """Bytes for people, in decimal units: ``10 MB``, ``1.5 GB``."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if count >= scale:
            return f"{count / scale:.1f}".removesuffix(".0") + f" {unit}"
    return f"{int(count)} bytes"


def not_regular(mode: int) -> str | None:
    """What a file of this ``st_mode`` is when it is not a regular file, else None."""
    if stat.S_ISREG(mode):
        return None
    for test, what in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a named pipe (FIFO)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return what
    return "not a regular file"


def _refusal(kind: InputKind, where: str, reason: str) -> InputError:
    return InputError(f"cannot read {kind.name} {where!r}: {reason}")


def _checked(kind: InputKind, where: str, st: os.stat_result) -> None:
    what = not_regular(st.st_mode)
    if what is not None:
        raise _refusal(kind, where, f"it is {what}, not a regular file")
    if st.st_size > kind.max_bytes:
        raise _refusal(kind, where, f"it is {size_text(st.st_size)}, over the {size_text(kind.max_bytes)} "
                                    f"limit for a {kind.name}")


def check_suffix(path: str | os.PathLike[str], kind: InputKind) -> None:
    """Refuse a name whose suffix ``kind`` does not take (nothing is opened)."""
    where = os.fspath(path)
    suffix = os.path.splitext(where)[1].lower()
    if kind.suffixes and suffix not in kind.suffixes:
        choices = ", ".join(kind.suffixes[:-1]) + f" or {kind.suffixes[-1]}" if len(kind.suffixes) > 1 \
            else kind.suffixes[0]
        raise InputError(f"{where}: a {kind.name} is {choices}, not {suffix or 'a file without suffix'!r}")


def open_input(path: str | os.PathLike[str], kind: InputKind) -> IO[bytes]:
    """The file at ``path`` opened for reading in binary, once it is known to be a regular
    file of a suffix and a size ``kind`` takes; :class:`InputError` otherwise."""
    where = os.fspath(path)
    check_suffix(where, kind)
    try:
        _checked(kind, where, os.stat(where))
        fd = os.open(where, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
                     | getattr(os, "O_BINARY", 0))
    except OSError as exc:
        raise _refusal(kind, where, str(exc.strerror or exc).lower()) from None
    try:
        _checked(kind, where, os.fstat(fd))  # what was opened, if the name changed meanwhile
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


def read_bytes(path: str | os.PathLike[str], kind: InputKind) -> bytes:
    """The whole file (at most ``kind.max_bytes``, even if it grows while read)."""
    where = os.fspath(path)
    with open_input(where, kind) as file:
        try:
            data = file.read(kind.max_bytes + 1)
        except OSError as exc:
            raise _refusal(kind, where, str(exc.strerror or exc).lower()) from None
    if len(data) > kind.max_bytes:
        raise _refusal(kind, where, f"it is over the {size_text(kind.max_bytes)} limit for a {kind.name}")
    return data


def read_text(path: str | os.PathLike[str], kind: InputKind) -> str:
    """The whole file as UTF-8 text (a byte order mark dropped)."""
    where = os.fspath(path)
    data = read_bytes(where, kind)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{where}: not UTF-8 text (byte {exc.start})") from None


def read_lines(path: str | os.PathLike[str], kind: InputKind, *, keepends: bool = False,
               digest: _Digest | None = None) -> Iterator[tuple[int, str]]:
    """``(line number, line)`` for each line, split on ``\\n`` only, read one at a time;
    without ``keepends`` the ``\\n`` (and a ``\\r`` before it) is dropped. ``digest`` is fed
    every byte read."""
    where = os.fspath(path)
    limit = kind.max_line_bytes
    with open_input(where, kind) as file:
        total, number = 0, 0
        while True:
            try:
                raw = file.readline(limit + 1)
            except OSError as exc:
                raise _refusal(kind, where, str(exc.strerror or exc).lower()) from None
            if not raw:
                return
            number += 1
            total += len(raw)
            if total > kind.max_bytes:
                raise _refusal(kind, where, f"it is over the {size_text(kind.max_bytes)} limit for a {kind.name}")
            if len(raw) > limit and not raw.endswith(b"\n"):
                raise InputError(f"{where}:{number}: the line is longer than {size_text(limit)}")
            if digest is not None:
                digest.update(raw)
            if number == 1:
                raw = raw.removeprefix(codecs.BOM_UTF8)
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise InputError(f"{where}:{number}: not UTF-8 text (byte {exc.start + 1} of the line)") from None
            yield number, line if keepends else line.removesuffix("\n").removesuffix("\r")


_STRING = re.compile(r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_BRACKET = re.compile(r"[\[\]{}]")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def _too_deep(text: str, start: int = 0, end: int | None = None) -> int | None:
    """On which line of ``text[start:end]`` (0 for the first) JSON nesting first passes
    :data:`MAX_JSON_DEPTH`, or None. Text with fewer brackets than that is never scanned."""
    end = len(text) if end is None else end
    if text.count("[", start, end) + text.count("{", start, end) <= MAX_JSON_DEPTH:
        return None
    skeleton = _STRING.sub('""', text[start:end])  # strings hold no newline: lines stay put
    if max(accumulate(map(_STEP.__getitem__, _NOT_BRACKET.sub("", skeleton))), default=0) <= MAX_JSON_DEPTH:
        return None
    depth = 0
    for match in _BRACKET.finditer(skeleton):
        depth += _STEP[match.group()]
        if depth > MAX_JSON_DEPTH:
            return skeleton.count("\n", 0, match.start())
    return None


def _problem(exc: json.JSONDecodeError) -> str:
    # "Unterminated string starting at" and "Invalid control character at" end in "at".
    return exc.msg.removesuffix(" at")


def parse_json(text: str, where: str, *, line: int = 1) -> Any:
    """``text`` (starting on line ``line`` of ``where``) as JSON; :class:`JSONTextError`
    naming the line when it is not JSON or is nested deeper than :data:`MAX_JSON_DEPTH`."""
    deep = _too_deep(text)
    if deep is not None:
        raise _nested(where, line + deep)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise JSONTextError(where, _problem(exc), line + exc.lineno - 1, exc.colno) from None
    except RecursionError:  # only when the caller's own stack is nearly full
        raise _nested(where, line + (_too_deep(text) or 0)) from None


def read_json_file(path: str | os.PathLike[str], kind: InputKind) -> Any:
    """A JSON file of ``kind`` read whole; :class:`InputError` naming it when it cannot be
    read or is not JSON (its text is never quoted: it may hold a key)."""
    where = os.fspath(path)
    text = read_text(where, kind)
    try:
        return parse_json(text, where)
    except JSONTextError as exc:
        raise InputError(f"{kind.name} {where!r} is not JSON ({exc.problem} on line {exc.line})") from None


def _nested(where: str, line: int) -> JSONTextError:
    return JSONTextError(where, f"nested deeper than {MAX_JSON_DEPTH} levels", line)


def json_list_items(path: str | os.PathLike[str], kind: InputKind, *,
                    digest: _Digest | None = None) -> Iterator[tuple[int, Any]]:
    """The items of the JSON list the file holds, each with the line it starts on, read a
    chunk at a time: memory holds one item (at most ``kind.max_line_bytes``), not the file."""
    where = os.fspath(path)
    reader = _ChunkedText(open_input(where, kind), kind, where, digest)
    with reader:
        pos = reader.skip_space(0)
        if reader.at(pos) != "[":
            what = {"{": "an object", '"': "a string", "t": "a boolean", "f": "a boolean", "n": "null",
                    "": "nothing"}.get(reader.at(pos), "a number")
            raise InputError(f"{where}:{reader.line_of(pos)}: a .json dataset holds a list of cases, not {what}")
        pos = reader.skip_space(pos + 1)
        first = True
        while reader.at(pos) != "]":
            if not first:
                if reader.at(pos) != ",":
                    raise reader.not_json(pos, "Expecting ',' delimiter")
                pos = reader.skip_space(pos + 1)
            first = False
            item, end = reader.decode(pos)
            yield reader.line_of(pos), item
            pos = reader.skip_space(reader.forget_before(end))
        pos = reader.skip_space(pos + 1)
        if reader.at(pos) != "":
            raise reader.not_json(pos, "Extra data")


class _ChunkedText:
    """A file's UTF-8 text, read as the JSON list reader needs it; text already parsed is
    dropped, with the lines it held counted."""

    def __init__(self, file: IO[bytes], kind: InputKind, where: str, digest: _Digest | None) -> None:
        self.file, self.kind, self.where, self.digest = file, kind, where, digest
        self.decoder = codecs.getincrementaldecoder("utf-8-sig")()
        self.json = json.JSONDecoder()
        self.text, self.read_bytes, self.eof = "", 0, False
        self.mark, self.mark_line = 0, 1  # a place in the text and its line: lines are counted once

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.file.close()

    def more(self, size: int = _CHUNK) -> bool:
        """Read about ``size`` more bytes; False at the end of the file."""
        if self.eof:
            return False
        try:
            raw = self.file.read(size)
        except OSError as exc:
            raise _refusal(self.kind, self.where, str(exc.strerror or exc).lower()) from None
        self.read_bytes += len(raw)
        if self.read_bytes > self.kind.max_bytes:
            raise _refusal(self.kind, self.where, f"it is over the {size_text(self.kind.max_bytes)} limit "
                                                   f"for a {self.kind.name}")
        if self.digest is not None:
            self.digest.update(raw)
        try:
            self.text += self.decoder.decode(raw, final=not raw)
        except UnicodeDecodeError as exc:
            raise InputError(f"{self.where}: not UTF-8 text (byte {self.read_bytes - len(raw) + exc.start})") from None
        self.eof = not raw
        return True

    def at(self, pos: int) -> str:
        """The character at ``pos`` ("" at the end of the file)."""
        while pos >= len(self.text):
            if not self.more():
                return ""
        return self.text[pos]

    def skip_space(self, pos: int) -> int:
        while (char := self.at(pos)) and char in " \t\r\n":
            pos += 1
        return pos

    def line_of(self, pos: int) -> int:
        if pos < self.mark:
            return self.mark_line - self.text.count("\n", pos, self.mark)
        self.mark_line += self.text.count("\n", self.mark, pos)
        self.mark = pos
        return self.mark_line

    def not_json(self, pos: int, problem: str) -> JSONTextError:
        return JSONTextError(self.where, problem, self.line_of(pos), pos - self.text.rfind("\n", 0, pos))

    def decode(self, pos: int) -> tuple[Any, int]:
        """The JSON value at ``pos`` and where it ends. A value the text read so far cuts
        short (or that touches its end: a number may go on) is decoded again once as much
        more is read, so the work stays linear in the value's size."""
        while True:
            if len(self.text) - pos > self.kind.max_line_bytes:
                raise InputError(f"{self.where}:{self.line_of(pos)}: an item of the list is longer than "
                                 f"{size_text(self.kind.max_line_bytes)}")
            try:
                value, end = self.json.raw_decode(self.text, pos)
            except json.JSONDecodeError as exc:
                if self.more(max(_CHUNK, len(self.text) - pos)):
                    continue
                raise self.not_json(exc.pos, _problem(exc)) from None
            except RecursionError:
                raise _nested(self.where, self.line_of(pos) + (_too_deep(self.text, pos) or 0)) from None
            if end == len(self.text) and self.more(max(_CHUNK, len(self.text) - pos)):
                continue
            deep = _too_deep(self.text, pos, end)
            if deep is not None:
                raise _nested(self.where, self.line_of(pos) + deep)
            return value, end

    def forget_before(self, pos: int) -> int:
        """Drop the text before ``pos`` once it is long; returns where ``pos`` is now."""
        if pos < _CHUNK:
            return pos
        self.mark_line = self.line_of(pos)
        self.text, self.mark = self.text[pos:], 0
        return 0
