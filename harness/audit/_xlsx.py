"""Reading an .xlsx workbook: cells with python-calamine, formula cells from the sheet XML.

calamine gives a formula cell's cached value (or nothing), never the formula, so formulas
are found in the worksheet XML: a formula is an ``<f>`` element, and ``<f`` cannot occur in
cell text (``<`` is escaped there), so a byte search finds them without parsing the XML.

Reading overlaps checking: a worker thread parses the next tab with calamine (which does
not hold the GIL while parsing) while the caller checks the current one, and the caller
searches the XML for formulas while it waits. On two cores the audit of a large workbook
then costs little more than reading it.
"""

from __future__ import annotations

import io
import re
import struct
import zipfile
import zlib
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO, Any, Self
from xml.etree import ElementTree

from ._model import AuditInputError
from ._tables import Cell, Formula

_REL_NS = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"
_CELL_REF = re.compile(rb'<c\b[^>]*?\br="([A-Z]+)(\d+)"')
_FORMULA_END = re.compile(rb"</f>|/>")
_BLOCK = 1 << 22  # bytes of XML searched per step
#: The next tab is parsed beside the current one only when their XML is this small together
#: (calamine holds a parsed tab in about 1.4 times its XML's size).
PREFETCH_BYTES = 256 << 20
_TAIL = 4096  # bytes kept unsearched at a block's end, so an element is never cut
_CONTEXT = 1024  # bytes kept before the unsearched tail: the cell tag preceding an <f>


def column_index(letters: str) -> int:
    """``A`` -> 0, ``AB`` -> 27."""
    n = 0
    for ch in letters:
        n = n * 26 + ord(ch) - 64
    return n - 1


def formulas_in(data: bytes, start: int, stop: int) -> list[Formula]:
    """(row, column, formula) of every ``<f>`` element opening in ``data[start:stop]``."""
    found = []
    pos = data.find(b"<f", start, stop)
    while pos != -1:
        if data[pos + 2: pos + 3] in (b">", b" ", b"/"):
            tag = data.rfind(b"<c", 0, pos)
            cell = _CELL_REF.match(data, tag) if tag != -1 else None
            if cell is not None:
                end = _FORMULA_END.search(data, pos)
                text = data[data.find(b">", pos) + 1: end.start()] if end and end.group() == b"</f>" else b""
                found.append((int(cell.group(2)) - 1, column_index(cell.group(1).decode()),
                              "=" + text.decode("utf-8", "replace")))
        pos = data.find(b"<f", pos + 2, stop)
    return found


class _Inflated(io.RawIOBase):
    """A deflated zip member read straight from the file: inflated with zlib, without the
    CRC pass ``zipfile`` makes (the search only needs the bytes; calamine, which reads the
    same member, checks the archive). Each read returns at most ``_BLOCK`` bytes, however
    well the member compresses."""

    def __init__(self, path: Path, info: zipfile.ZipInfo) -> None:
        self._file = open(path, "rb")  # noqa: SIM115 - closed by close()
        self._file.seek(info.header_offset)
        header = self._file.read(_LOCAL_HEADER.size)
        name_length, extra_length = _LOCAL_HEADER.unpack(header)[-2:]
        self._file.seek(name_length + extra_length, io.SEEK_CUR)
        self._left = info.compress_size
        self._inflater = zlib.decompressobj(-zlib.MAX_WBITS)

    def read(self, size: int = -1) -> bytes:
        """The next inflated bytes (at most ``_BLOCK``); ``b""`` at the end."""
        inflater = self._inflater
        while inflater.unconsumed_tail or self._left > 0:
            if inflater.unconsumed_tail:
                out = inflater.decompress(inflater.unconsumed_tail, _BLOCK)
            else:
                raw = self._file.read(min(_BLOCK // 4, self._left))  # XML deflates about tenfold
                if not raw:
                    raise EOFError("the archive ends inside this member")
                self._left -= len(raw)
                out = inflater.decompress(raw, _BLOCK)
            if out:
                return out
            if inflater.eof:
                break
        return inflater.flush()

    def close(self) -> None:
        self._file.close()
        super().close()


_LOCAL_HEADER = struct.Struct("<4s5H3L2H")  # zip local file header, before name and extra


def _member(archive: zipfile.ZipFile, path: Path, info: zipfile.ZipInfo) -> IO[bytes]:
    """A readable stream of one archive member's uncompressed bytes."""
    if info.compress_type == zipfile.ZIP_DEFLATED:
        return _Inflated(path, info)  # type: ignore[return-value]
    return archive.open(info)


@dataclass(frozen=True, slots=True)
class ArchiveLimits:
    """What an .xlsx may inflate to before it is parsed. A real export compresses its XML
    5-20:1, so a part inflating much further is a decompression bomb, not a workbook.
    The size limit bounds the memory a parsed sheet takes, in proportion to what a real
    export of that size holds: a part may inflate to ``max_part_bytes``, or to
    ``export_ratio`` times its compressed size when that is more (a million-row export's
    largest sheet is 1.6 GB of XML in 155 MB, and some sheets compress 20:1)."""

    max_part_bytes: int = 200 * 1024 * 1024  # any one part (a sheet's XML, the shared strings)
    max_ratio: float = 100.0  # inflated / compressed, for parts above RATIO_FLOOR_BYTES
    export_ratio: float = 40.0  # inflated / compressed that a part of any size may reach


#: Parts smaller than this inflate as they like (tiny XML parts compress far beyond 100:1).
RATIO_FLOOR_BYTES = 1024 * 1024
_HEAD = 1 << 16  # bytes of each XML part searched for a DTD


def check_archive(path: Path, label: str, limits: ArchiveLimits) -> None:
    """Refuse, before anything parses it, an archive with a part whose declared or actual
    inflated size or compression ratio is over ``limits``, that is damaged, or whose XML
    declares a DTD (entities: an OOXML part never has one). Memory stays within one block:
    each part is inflated and counted, never kept. Not a zip archive: left to calamine."""
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError):
        return
    with archive:
        for info in archive.infolist():
            if not info.is_dir():
                _check_part(archive, path, label, info, limits)


def _check_part(archive: zipfile.ZipFile, path: Path, label: str, info: zipfile.ZipInfo, limits: ArchiveLimits) -> None:
    def refuse(why: str) -> AuditInputError:
        return AuditInputError(f"{label}: refused, part {info.filename} {why}")

    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        raise refuse(f"uses a compression method ({info.compress_type}) workbooks do not use")
    over = _over(info.file_size, info.compress_size, limits)
    if over:
        raise refuse(f"declares {info.file_size:,} bytes inflated ({over})")
    inflated, head = 0, b""
    try:
        with _member(archive, path, info) as stream:
            while chunk := stream.read(_BLOCK):
                inflated += len(chunk)
                if inflated > info.file_size:
                    raise refuse(f"inflates beyond the {info.file_size:,} bytes it declares")
                if len(head) < _HEAD:
                    head += chunk[:_HEAD]
    except (zlib.error, EOFError, OSError, zipfile.BadZipFile, RuntimeError) as exc:
        raise refuse(f"is damaged ({exc})") from None
    if inflated < info.file_size:
        raise refuse(f"inflates to {inflated:,} bytes, not the {info.file_size:,} it declares")
    if b"<!DOCTYPE" in head or b"<!ENTITY" in head:
        raise refuse("declares a DTD (XML entities), which no workbook has")


def _over(inflated: int, compressed: int, limits: ArchiveLimits) -> str | None:
    allowed = max(limits.max_part_bytes, int(limits.export_ratio * compressed))
    if inflated > allowed:
        return f"over the {allowed:,}-byte limit; --max-part-mb raises it"
    if inflated > RATIO_FLOOR_BYTES and inflated > limits.max_ratio * max(compressed, 1):
        return (f"{inflated / max(compressed, 1):,.0f}:1 compressed, over the {limits.max_ratio:g}:1 limit; "
                "--max-ratio raises it")
    return None


class FormulaScan:
    """The search of one worksheet's XML, one block per :meth:`step`."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream
        self._data = b""
        self._searched = 0  # self._data[:self._searched] has been searched
        self.found: list[Formula] = []
        self.done = False

    def step(self) -> None:
        block = self._stream.read(_BLOCK)
        data = self._data + block
        stop = len(data) if not block else max(self._searched, len(data) - _TAIL)
        self.found.extend(formulas_in(data, self._searched, stop))
        if not block:
            self.done = True
            self._stream.close()
            return
        keep = max(0, stop - _CONTEXT)
        self._data, self._searched = data[keep:], stop - keep

    def finish(self) -> list[Formula]:
        while not self.done:
            self.step()
        return self.found


class WorkbookSource:
    """An .xlsx file, read a tab at a time and its rows streamed: a tab's cells are parsed
    by calamine (into its own compact form) and handed on row by row, so the audit holds
    calamine's parse of the tab and the chunk being checked, never the tab as Python lists.
    After :meth:`prefetch`, the next tab is parsed in a thread while the current one is
    checked when both are small enough (:data:`PREFETCH_BYTES` of XML together); a large tab
    is parsed alone. Use as a context manager (or call :meth:`close`) to stop the thread."""

    def __init__(self, path: str | Path, limits: ArchiveLimits | None = None) -> None:
        import python_calamine

        self.path = Path(path)
        self.label = str(path)
        check_archive(self.path, self.label, limits or ArchiveLimits())
        try:
            self._book = python_calamine.CalamineWorkbook.from_path(str(self.path))
        except (OSError, python_calamine.CalamineError) as exc:
            reason = " ".join(str(exc).split())
            raise AuditInputError(f"{self.label}: not a readable workbook ({reason})") from None
        self._order: list[str] = []
        self._parsed: dict[str, Future[Any]] = {}
        self._reader: ThreadPoolExecutor | None = None
        self._archive: zipfile.ZipFile | None = None
        self._scans: dict[str, FormulaScan] = {}
        self._xml_paths: dict[str, str] | None = None
        self._sizes: dict[str, int] | None = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._reader is not None:
            self._reader.shutdown(wait=True, cancel_futures=True)
            self._reader = None
        if self._archive is not None:
            self._archive.close()
            self._archive = None

    def tabs(self) -> list[str]:
        return list(self._book.sheet_names)

    def prefetch(self, tabs: Sequence[str]) -> None:
        """The tabs that will be read, in order: start parsing the first."""
        self._order = list(tabs)
        self._reader = self._reader or ThreadPoolExecutor(1, thread_name_prefix="audit-read")
        if self._order:
            self._schedule(self._order[0])

    def _schedule(self, tab: str) -> None:
        if self._reader is not None and tab not in self._parsed:
            self._parsed[tab] = self._reader.submit(self._book.get_sheet_by_name, tab)

    def _size(self, tab: str) -> int:
        """The uncompressed size of the tab's XML (0 when unknown)."""
        if self._sizes is None:
            with zipfile.ZipFile(self.path) as archive:
                self._sizes = {t: archive.getinfo(p).file_size for t, p in self._sheet_xml().items()
                               if p in archive.NameToInfo}
        return self._sizes.get(tab, 0)

    def read(self, tab: str) -> Iterator[list[Cell]]:
        future = self._parsed.pop(tab, None)
        if future is None:
            sheet = self._book.get_sheet_by_name(tab)
        else:
            while not future.done() and self._scan_ahead():  # the formula search meanwhile
                pass
            sheet = future.result()
        if tab in self._order:
            following = self._order.index(tab) + 1
            if following < len(self._order):
                after = self._order[following]
                if self._size(tab) + self._size(after) <= PREFETCH_BYTES:
                    self._schedule(after)
        return self._rows(tab, sheet)

    def _rows(self, tab: str, sheet: Any) -> Iterator[list[Cell]]:
        left = [""] * sheet.start[1] if sheet.start else []  # cells left of the first used column
        for row in sheet.iter_rows():
            yield left + row if left else row
        if tab in self._order:  # a large tab's successor: parsed now, not beside it
            following = self._order.index(tab) + 1
            if following < len(self._order):
                self._schedule(self._order[following])

    def formulas(self, tab: str) -> list[Formula]:
        scan = self._scan(tab)
        return scan.finish() if scan is not None else []

    def _scan_ahead(self) -> bool:
        """One step of the first unfinished formula search, in reading order; False when
        every tab has been searched."""
        for tab in self._order:
            scan = self._scan(tab)
            if scan is not None and not scan.done:
                scan.step()
                return True
        return False

    def _scan(self, tab: str) -> FormulaScan | None:
        if tab not in self._scans:
            xml_path = self._sheet_xml().get(tab)
            if xml_path is None:
                return None
            if self._archive is None:
                self._archive = zipfile.ZipFile(self.path)
            self._scans[tab] = FormulaScan(_member(self._archive, self.path, self._archive.getinfo(xml_path)))
        return self._scans[tab]

    def _sheet_xml(self) -> dict[str, str]:
        """Tab name -> path of its XML part (from workbook.xml and its relationships)."""
        if self._xml_paths is None:
            self._xml_paths = {}
            try:
                with zipfile.ZipFile(self.path) as archive:
                    book = ElementTree.fromstring(archive.read("xl/workbook.xml"))
                    rels = ElementTree.fromstring(archive.read("xl/_rels/workbook.xml.rels"))
            except (KeyError, zipfile.BadZipFile, ElementTree.ParseError):
                return self._xml_paths  # not an xlsx (xls, ods): formulas cannot be located
            targets = {r.get("Id"): r.get("Target", "") for r in rels}
            for element in book.iter():
                if element.tag.endswith("}sheet") and element.get(_REL_NS) in targets:
                    target = targets[element.get(_REL_NS)]
                    path = target.lstrip("/") if target.startswith("/") else str(PurePosixPath("xl") / target)
                    self._xml_paths[element.get("name", "")] = path
        return self._xml_paths
