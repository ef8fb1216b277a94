"""docs/sheets.md documents every sheet and column and is generated from the schema."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from harness.schema import SHEETS
from harness.sheet_docs import COLUMNS, GENERATED_BY, SHEET_PURPOSE, column_doc, render_markdown

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_docs_sheets_md_is_what_the_schema_generates():
    assert (DOCS / "sheets.md").read_text(encoding="utf-8") == render_markdown() + "\n", (
        "docs/sheets.md is out of date: run python docs/generate_sheets.py")


def test_the_generator_checks_the_page_from_any_directory(tmp_path):
    done = subprocess.run([sys.executable, str(DOCS / "generate_sheets.py"), "--check"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_every_column_of_every_sheet_has_a_meaning_and_a_writer():
    undocumented = [f"{s.name}.{c.name}" for s in SHEETS for c in s.all_columns if column_doc(s.name, c.name) is None]
    assert undocumented == []
    assert all(meaning and writer for s in SHEETS for c in s.all_columns for meaning, writer in [column_doc(s.name, c.name)])


def test_no_documentation_for_a_column_the_schema_does_not_have():
    columns = {s.name: set(s.all_column_names) for s in SHEETS}
    assert {f"{sheet}.{c}" for sheet, docs in COLUMNS.items() for c in docs if c not in columns.get(sheet, ())} == set()
    assert set(SHEET_PURPOSE) == set(columns)


def test_every_generated_by_label_is_explained():
    assert {s.generated_by for s in SHEETS} <= set(GENERATED_BY)
    page = render_markdown()
    assert all(f"- `{label}`:" in page for label in GENERATED_BY)
