"""Hostile workbooks, built from a real one: a part replaced by a decompression bomb (its
size declared truthfully or not) or by XML with entities (billion laughs).

The archive is written by hand (local headers, data, central directory), so a bomb of any
inflated size costs only its compressed bytes: one deflate block of a unit, repeated.
"""

from __future__ import annotations

import struct
import zipfile
import zlib
from pathlib import Path

_LOCAL = struct.Struct("<4sHHHHHLLLHH")
_CENTRAL = struct.Struct("<4sHHHHHHLLLHHHHHLL")
_END = struct.Struct("<4sHHHHLLH")

#: A sheet's XML whose rows are followed by whitespace: it parses to the header row alone.
SHEET_HEAD = (b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
              b'<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>')
SHEET_TAIL = b"</sheetData></worksheet>"

BILLION_LAUGHS = (
    b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
    + b"".join(b'<!ENTITY lol%d "%s">' % (i, (b"&lol%d;" % (i - 1) if i > 1 else b"&lol;") * 10) for i in range(1, 10))
    + b']><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>'
    b'<row r="1"><c r="A1" t="inlineStr"><is><t>&lol9;</t></is></c></row></sheetData></worksheet>'
)


def _deflated(data: bytes) -> bytes:
    packer = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    return packer.compress(data) + packer.flush()


def bomb_part(inflated_bytes: int, unit_bytes: int = 1 << 20) -> tuple[bytes, int, int]:
    """A sheet's XML padded with whitespace to ``inflated_bytes``: (raw deflate data, CRC,
    inflated size). The padding is one block of ``unit_bytes`` spaces, deflated once with a
    full flush (byte-aligned, no reference outside itself) and repeated."""
    packer = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    head = packer.compress(SHEET_HEAD) + packer.flush(zlib.Z_FULL_FLUSH)
    unit = b" " * unit_bytes
    block = packer.compress(unit) + packer.flush(zlib.Z_FULL_FLUSH)
    times = max(0, (inflated_bytes - len(SHEET_HEAD) - len(SHEET_TAIL)) // unit_bytes)
    tail = packer.compress(SHEET_TAIL) + packer.flush()
    crc = zlib.crc32(SHEET_HEAD)
    for _ in range(times):
        crc = zlib.crc32(unit, crc)
    crc = zlib.crc32(SHEET_TAIL, crc)
    return head + block * times + tail, crc, len(SHEET_HEAD) + times * unit_bytes + len(SHEET_TAIL)


def rebuild(source: Path, target: Path, part: str, data: tuple[bytes, int, int] | bytes,
            declared: int | None = None) -> None:
    """``source`` with ``part`` replaced by ``data`` (inflated bytes, or raw deflate data with
    its CRC and inflated size); ``declared`` is the inflated size its headers claim."""
    with zipfile.ZipFile(source) as book:
        members = [(info.filename, book.read(info)) for info in book.infolist()]
    central, offset = [], 0
    with open(target, "wb") as out:
        for name, content in members:
            if name == part:
                raw, crc, size = (_deflated(data), zlib.crc32(data), len(data)) if isinstance(data, bytes) else data
            else:
                raw, crc, size = _deflated(content), zlib.crc32(content), len(content)
            claimed = size if declared is None or name != part else declared
            encoded = name.encode()
            out.write(_LOCAL.pack(b"PK\x03\x04", 20, 0, 8, 0, 0x21, crc, len(raw), claimed, len(encoded), 0))
            out.write(encoded)
            out.write(raw)
            central.append(_CENTRAL.pack(b"PK\x01\x02", 20, 20, 0, 8, 0, 0x21, crc, len(raw), claimed, len(encoded),
                                         0, 0, 0, 0, 0, offset) + encoded)
            offset += _LOCAL.size + len(encoded) + len(raw)
        directory = b"".join(central)
        out.write(directory)
        out.write(_END.pack(b"PK\x05\x06", 0, 0, len(central), len(central), len(directory), offset, 0))


def first_sheet(book: Path) -> str:
    with zipfile.ZipFile(book) as archive:
        return sorted(n for n in archive.namelist() if n.startswith("xl/worksheets/sheet"))[0]
