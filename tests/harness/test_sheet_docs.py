"""docs/sheets.md documents every sheet and column and is generated from the schema."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

from harness.schema import GENERATED_BY_LABELS, SHEETS

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _generator():
    spec = importlib.util.spec_from_file_location("generate_sheets", DOCS / "generate_sheets.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_docs_sheets_md_is_what_the_schema_generates():
    assert (DOCS / "sheets.md").read_text(encoding="utf-8") == _generator().render_markdown() + "\n", (
        "docs/sheets.md is out of date: run python docs/generate_sheets.py")


def test_the_generator_checks_the_page_from_any_directory(tmp_path):
    done = subprocess.run([sys.executable, str(DOCS / "generate_sheets.py"), "--check"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_every_column_of_every_sheet_has_a_meaning_and_a_writer():
    assert [f"{s.name}.{c.name}" for s in SHEETS for c in s.all_columns
            if not (c.meaning.strip() and c.written_by.strip())] == []
    assert all(s.purpose.strip() for s in SHEETS)


def test_every_column_is_on_the_page_with_its_meaning():
    page = (DOCS / "sheets.md").read_text(encoding="utf-8")
    for s in SHEETS:
        section = page.split(f"## `{s.name}`", 1)[1].split("\n## ", 1)[0]
        for c in s.all_columns:
            assert f"`{c.name}`" in section, (s.name, c.name)
            assert c.meaning.replace("``", "`").replace("|", "\\|")[:40] in section, (s.name, c.name)


def test_every_generated_by_label_is_explained():
    assert {s.generated_by for s in SHEETS} <= set(GENERATED_BY_LABELS)
    page = _generator().render_markdown()
    assert all(f"- `{label}`:" in page for label in GENERATED_BY_LABELS)
