"""The schema module declares exactly the sheets and columns of the spec tables."""

import re
from pathlib import Path

from harness.schema import AGENT_NAMES, SHEET_NAMES, SHEETS

SPEC = Path(__file__).parents[1] / "data" / "sheets_spec.md"


def spec_tables() -> dict[str, list[tuple[str, str]]]:
    """Sheet name -> [(column, type)] parsed from the spec's markdown tables."""
    tables: dict[str, list[tuple[str, str]]] = {}
    current = None
    for line in SPEC.read_text(encoding="utf-8").splitlines():
        heading = re.match(r"## Sheet \d+: `(\w+)`", line)
        if heading:
            current = heading.group(1)
            tables[current] = []
            continue
        if line.startswith("## "):
            current = None
        cell = re.match(r"\| `(\w+)`(?: - `(\w+)`)? \| (\w+) \|", line)
        if current and cell:
            first, last, spec_type = cell.groups()
            if last:  # "task_1 - task_10"
                prefix, start = first.rsplit("_", 1)
                end = int(last.rsplit("_", 1)[1])
                tables[current] += [(f"{prefix}_{i}", spec_type) for i in range(int(start), end + 1)]
            else:
                tables[current].append((first, spec_type))
    return tables


def test_fifteen_sheets_in_spec_order():
    assert list(SHEET_NAMES) == list(spec_tables())
    assert len(SHEET_NAMES) == 15


def test_every_sheet_has_the_spec_columns_in_order_with_their_types():
    tables = spec_tables()
    for sheet in SHEETS:
        assert [(c.name, c.spec_type) for c in sheet.columns] == tables[sheet.name], sheet.name


def test_extra_columns_only_follow_the_spec_columns():
    for sheet in SHEETS:
        spec_names = set(sheet.column_names)
        assert all(c.spec_type == "Extra" for c in sheet.extra)
        assert not spec_names & {c.name for c in sheet.extra}, sheet.name
        assert sheet.all_column_names[: len(sheet.columns)] == sheet.column_names


def test_generated_by_labels_match_the_spec():
    text = SPEC.read_text(encoding="utf-8")
    for sheet in SHEETS:
        section = text.split(f"`{sheet.name}`", 1)[1].split("## Sheet", 1)[0]
        labels = re.findall(r"\| `generated_by` \| Label \| Data source \| \"(\w+)\"", section)
        assert labels == [sheet.generated_by], sheet.name


def test_canonical_agent_names_match_the_spec():
    text = SPEC.read_text(encoding="utf-8")
    table = dict(re.findall(r"\| (\w+) \| `(\w+)` \|", text.split("## Sheet 1")[0]))
    assert AGENT_NAMES == table
