"""Formula cells are found in the worksheet XML, wherever the blocks of the search fall."""

from __future__ import annotations

import io

from harness.audit._xlsx import FormulaScan, column_index


def _sheet_xml(formulas_at: set[int], rows: int) -> bytes:
    cells = []
    for r in range(1, rows + 1):
        if r in formulas_at:
            cells.append(f'<row r="{r}"><c r="B{r}" t="str"><f>SUM(A1:A{r})</f><v>1</v></c></row>')
        else:
            cells.append(f'<row r="{r}"><c r="A{r}" t="inlineStr"><is><t>text &lt;f&gt; {r}</t></is></c></row>')
    return ("<worksheet><sheetData>" + "".join(cells) + "</sheetData></worksheet>").encode()


def test_formulas_are_found_across_block_boundaries() -> None:
    rows = 160_000  # about 11 MB of XML: three 4 MiB blocks
    wanted = {1, 2, 59_000, 59_001, 59_002, 118_000, 118_001, rows}
    scan = FormulaScan(io.BytesIO(_sheet_xml(wanted, rows)))
    found = scan.finish()
    assert [(r + 1, c, text) for r, c, text in found] == [(r, 1, f"=SUM(A1:A{r})") for r in sorted(wanted)]


def test_escaped_text_and_other_tags_are_not_formulas() -> None:
    xml = b'<worksheet><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>=1+1 &lt;f&gt;</t></is></c></row>' \
          b'</sheetData><autoFilter ref="A1:B2"><filterColumn colId="0"/></autoFilter></worksheet>'
    assert FormulaScan(io.BytesIO(xml)).finish() == []


def test_shared_formula_references_count_as_formulas() -> None:
    xml = b'<sheetData><row r="3"><c r="AB3"><f t="shared" si="0"/><v>2</v></c></row></sheetData>'
    assert FormulaScan(io.BytesIO(xml)).finish() == [(2, column_index("AB"), "=")]
