"""The HTML report: self-contained, and it renders in a real headless Chromium."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from harness.audit import audit_workbook
from harness.audit._html import write_report

from tests.support.browser import chromium

from .conftest import cell_value, edit

_CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                   "--disable-component-update", "--disable-sync", "--no-first-run")


def _browse(chromium: str, page: Path, profile: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([chromium, *_CHROMIUM_FLAGS, f"--user-data-dir={profile}", *extra, page.as_uri()],
                          check=False, capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def report(_exported: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("audit_report")
    workbook = folder / "runs.xlsx"
    shutil.copy(_exported, workbook)
    old = cell_value(workbook, "tool_selections", 2, "f1_score")
    edit(workbook, ("tool_selections", 2, "f1_score", old / 2), ("plans", 3, "plan_summary", "=1+1"),
         ("runs", 2, "total_steps", "<script>alert(1)</script>"))
    return write_report(audit_workbook(workbook), folder / "report.html")


def test_report_is_self_contained(report: Path) -> None:
    page = report.read_text(encoding="utf-8")
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)
    assert "@import" not in page and not re.search(r"url\((?!#)", page)
    assert page.count("<svg") == 4


def test_report_lists_every_finding_with_its_place(report: Path) -> None:
    page = report.read_text(encoding="utf-8")
    assert "4 findings" in page
    assert "<td>tool_selections</td><td class='num'>2</td><td>f1_score</td>" in page
    assert "<td>plans</td><td class='num'>3</td><td>plan_summary</td>" in page


def test_report_escapes_cell_text(report: Path) -> None:
    page = report.read_text(encoding="utf-8")
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_report_renders_in_headless_chromium(report: Path, tmp_path: Path) -> None:
    browser = chromium()
    dom = _browse(browser, report, tmp_path / "profile-dom", "--enable-logging=stderr", "--v=0",
                  "--virtual-time-budget=3000", "--dump-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert 'data-ready="yes"' in dom.stdout  # the inline script ran to its end
    assert "Uncaught" not in dom.stderr and "SyntaxError" not in dom.stderr
    assert "Score distributions per model" in dom.stdout and "Latency per node" in dom.stdout
    assert dom.stdout.count("<svg") == 4
    shot = tmp_path / "report.png"
    done = _browse(browser, report, tmp_path / "profile-shot", "--hide-scrollbars", "--window-size=1400,2400",
                   f"--screenshot={shot}")
    assert done.returncode == 0, done.stderr[-2000:]
    assert shot.is_file() and shot.stat().st_size > 10_000
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    print(f"report screenshot: {shot}")
