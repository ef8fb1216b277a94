"""Write docs/sheets.md from harness/schema.py, where every column is declared with its meaning.

    python docs/generate_sheets.py          # rewrite docs/sheets.md
    python docs/generate_sheets.py --check  # exit 1 when docs/sheets.md is out of date
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repo, run from anywhere

from harness.schema import ALL_SHEETS, GENERATED_BY_LABELS, SHEET_NAMES, STORE_TABLES, Sheet, Table  # noqa: E402

TARGET = Path(__file__).resolve().parent / "sheets.md"


def _cell(text: str) -> str:
    return text.replace("``", "`").replace("|", "\\|").replace("\n", " ")


def _sheet_section(sheet: Sheet) -> list[str]:
    shape = (f"Columns {len(sheet.columns)} of the spec, then {len(sheet.extra)} extra." if sheet.name in SHEET_NAMES
             else f"A sheet beyond the spec's fifteen: {len(sheet.all_columns)} columns.")
    lines = [f"## `{sheet.name}`", "", sheet.purpose, "", f"`generated_by`: `{sheet.generated_by}`. {shape}", "",
             "| # | column | type (stored as) | meaning | written by / formula |", "|---|---|---|---|---|"]
    for i, column in enumerate(sheet.all_columns, start=1):
        extra = " (extra)" if column.spec_type == "Extra" else ""
        lines.append(f"| {i} | `{column.name}`{extra} | {column.spec_type} ({column.kind}) | {_cell(column.meaning)} | "
                     f"{_cell(column.written_by)} |")
    return [*lines, ""]


def render_markdown() -> str:
    """docs/sheets.md, from :mod:`harness.schema`."""
    lines = [
        "# The sheets",
        "",
        "Generated from `harness/schema.py` by `python docs/generate_sheets.py`; do not edit by hand (a test "
        "fails when this page and the schema differ).",
        "",
        "Every run writes rows to these sheets in the store: the fifteen of the spec, then `scores`, every "
        "judgement of a run in one place. `harness export` and `harness run --out` write them to Excel or "
        "Google Sheets in this order, spec columns first, then the extra columns. Types: "
        "the spec's type, and how the value is stored (`text`, `int`, `float`, `json` as compact JSON text, "
        "`datetime` as ISO 8601 UTC text, an Excel date in a workbook, a pandas UTC datetime in "
        "`Harness.sheets()`). Floats are exact in every target; spreadsheets show scores to 3 decimals, "
        "milliseconds to 0.1 and costs to 8 decimals.",
        "",
        "## `generated_by`",
        "",
        *(f"- `{label}`: {text}." for label, text in GENERATED_BY_LABELS.items()),
        "",
        "Written by: *captured* = built by the harness from the run's LangChain callbacks; *the run* = "
        "computed by the harness when the run ends; *node (name)* = logged by that node of the credit "
        "workflow (empty for wrapped runs); *the batch* = written by `harness run` after a group of runs; a "
        "function = the value is its result, and `harness audit` recomputes it with the same function.",
        "",
    ]
    for sheet in ALL_SHEETS:
        lines += _sheet_section(sheet)
    lines += ["# Store tables beyond the sheets", "",
              "The store's own bookkeeping, never exported: online scoring's claims, workers and spend "
              "(`harness score`).", ""]
    for table in STORE_TABLES:
        lines += _table_section(table)
    return "\n".join(lines)


def _table_section(table: Table) -> list[str]:
    lines = [f"## `{table.name}`", "", table.purpose, "",
             f"Key: {', '.join(f'`{k}`' for k in table.key)}.", "",
             "| # | column | stored as | meaning |", "|---|---|---|---|"]
    for i, column in enumerate(table.columns, start=1):
        lines.append(f"| {i} | `{column.name}` | {column.kind} | {_cell(column.meaning)} |")
    return [*lines, ""]


def main(argv: list[str]) -> int:
    text = render_markdown() + "\n"
    if "--check" in argv:
        if not TARGET.exists() or TARGET.read_text(encoding="utf-8") != text:
            print(f"{TARGET} is out of date: run python docs/generate_sheets.py", file=sys.stderr)
            return 1
        return 0
    TARGET.write_text(text, encoding="utf-8")
    print(f"wrote {TARGET}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
