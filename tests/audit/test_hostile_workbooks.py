"""No workbook can exhaust the machine: bombs, lies, entities, random and cut files are
refused with one line before anything parses them; an oversized cell is a finding."""

from __future__ import annotations

import os
import re
import resource
import subprocess
import sys
import zipfile
from pathlib import Path

import openpyxl
import pytest
from openpyxl.utils import get_column_letter

from harness.audit import ArchiveLimits, AuditInputError, audit_workbook
from harness.cli import main
from tests.support.hostile import BILLION_LAUGHS, bomb_part, first_sheet, rebuild

from .conftest import column_number

MB = 1024 * 1024


def _cli(capsys, *args: str) -> tuple[int, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(["audit", *args])
    return int(exit_info.value.code or 0), capsys.readouterr().err


def test_a_bomb_over_the_compression_ratio_is_refused_with_one_line(capsys, workbook: Path, tmp_path: Path):
    bomb = tmp_path / "bomb.xlsx"
    rebuild(workbook, bomb, first_sheet(workbook), bomb_part(64 * MB))
    code, err = _cli(capsys, str(bomb))
    assert code == 2 and err.count("\n") == 1
    assert "refused" in err and first_sheet(workbook) in err and "--max-ratio" in err


def test_a_part_over_the_size_limit_is_refused_and_the_flag_raises_the_limit(capsys, workbook: Path, tmp_path: Path):
    big = tmp_path / "big.xlsx"
    rebuild(workbook, big, first_sheet(workbook), bomb_part(3 * MB, unit_bytes=4096))
    code, err = _cli(capsys, str(big), "--max-part-mb", "2", "--max-ratio", "100000")
    assert code == 2 and "--max-part-mb" in err and err.count("\n") == 1
    with pytest.raises(AuditInputError, match="sheet"):  # past the archive check: the padded sheet lost its rows
        audit_workbook(big, limits=ArchiveLimits(max_part_bytes=4 * MB, max_ratio=100_000))


def test_a_part_inflating_beyond_its_declared_size_is_refused_without_inflating_it_all(workbook: Path, tmp_path: Path):
    liar = tmp_path / "liar.xlsx"
    rebuild(workbook, liar, first_sheet(workbook), bomb_part(512 * MB), declared=2000)
    # The peak of the audit's own memory (VmHWM): ru_maxrss would also count the test process
    # it was forked from, which Linux carries across exec.
    script = ("import sys; from harness.cli import main\n"
              "try:\n    main(['audit', sys.argv[1]])\nexcept SystemExit as e:\n"
              "    print(e.code, next(l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM:')))")
    done = subprocess.run([sys.executable, "-c", script, str(liar)], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": os.getcwd()})
    code, peak_kb = done.stdout.split()
    assert code == "2" and "beyond the 2,000 bytes it declares" in done.stderr
    assert int(peak_kb) < 400 * 1024  # the audit process's peak RSS: far below the 512 MB it would inflate


def test_xml_entities_billion_laughs_are_refused(capsys, workbook: Path, tmp_path: Path):
    laughs = tmp_path / "laughs.xlsx"
    rebuild(workbook, laughs, first_sheet(workbook), BILLION_LAUGHS)
    code, err = _cli(capsys, str(laughs))
    assert code == 2 and "DTD" in err and err.count("\n") == 1


@pytest.mark.parametrize("kind", ["random", "truncated", "damaged"])
def test_random_truncated_and_damaged_files_are_refused_with_one_line(capsys, workbook: Path, tmp_path: Path, kind):
    data = workbook.read_bytes()
    bad = tmp_path / f"{kind}.xlsx"
    if kind == "random":
        bad.write_bytes(os.urandom(len(data)))
    elif kind == "truncated":
        bad.write_bytes(data[: len(data) // 2])
    else:  # the central directory intact, a part's deflate data overwritten
        middle = len(data) // 2
        bad.write_bytes(data[:middle] + os.urandom(4096) + data[middle + 4096:])
    code, err = _cli(capsys, str(bad))
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err


def test_a_cell_longer_than_excel_allows_is_a_finding(workbook: Path, tmp_path: Path):
    """Excel and every exporter stop at 32,767 characters (openpyxl cuts on saving), so the
    long cell is written into the sheet's XML directly."""
    letter = get_column_letter(column_number(openpyxl.load_workbook(workbook, read_only=True)["tool_calls"], "tool_name"))
    part = "xl/worksheets/sheet2.xml"  # tool_calls: the second sheet in spec order
    with zipfile.ZipFile(workbook) as book:
        xml = book.read(part)
    cell = re.compile(rb'<c r="%s2"[^>]*>.*?</c>' % letter.encode())
    assert cell.search(xml)
    long_cell = tmp_path / "long_cell.xlsx"
    rebuild(workbook, long_cell, part, cell.sub(b'<c r="%s2" t="inlineStr"><is><t>%s</t></is></c>'
                                                % (letter.encode(), b"x" * 40_000), xml, count=1))
    found = [f for f in audit_workbook(long_cell).findings if f.sheet == "tool_calls" and f.column == "tool_name"]
    assert [f.row for f in found if "32,767" in f.expected] == [2]


def test_an_export_passes_the_archive_check_untouched(workbook: Path):
    assert audit_workbook(workbook).exit_code == 0
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss > 0


def test_a_part_is_allowed_what_a_real_export_of_its_size_holds(workbook: Path):
    """Past the absolute limit, a part may still inflate to 40 times its compressed size: a
    million-row export's largest sheet is 1.6 GB of XML in 155 MB, and must be audited."""
    result = audit_workbook(workbook, limits=ArchiveLimits(max_part_bytes=1))
    assert result.findings == ()
    with pytest.raises(AuditInputError, match="--max-part-mb"):
        audit_workbook(workbook, limits=ArchiveLimits(max_part_bytes=1, export_ratio=1.0))
