"""The audit recomputes each run's place in its thread from the runs sheet alone: its turn
and the run it resumed. A recorded store of conversations audits clean, in a workbook too;
an edited turn or resumed_from is one finding at that cell."""

from __future__ import annotations

import openpyxl

from exporters import write_excel
from harness import Harness
from harness.audit import audit_frames, audit_workbook


def test_conversations_audit_clean_and_an_edited_turn_is_one_finding(conversations, tmp_path):
    h = Harness(conversations.path, writer="inline")
    frames = h.sheets()
    assert audit_frames(frames).findings == ()
    runs = frames["runs"]
    desk = conversations.threads["desk-0001"]
    second = runs.index[runs["run_id"] == desk[1]][0]
    edited = runs.copy()
    edited.loc[second, "turn"] = 3
    found = audit_frames({**frames, "runs": edited}).findings
    assert [(f.column, f.found, f.expected) for f in found] == [("turn", 3, 2)]
    edited = runs.copy()
    edited.loc[second, "resumed_from"] = desk[2]
    found = audit_frames({**frames, "runs": edited}).findings
    assert [(f.column, f.found, f.expected) for f in found] == [("resumed_from", desk[2], desk[0])]
    path = tmp_path / "threads.xlsx"
    write_excel(h.store, path)
    assert audit_workbook(path).findings == ()
    book = openpyxl.load_workbook(path)
    sheet = book["runs"]
    header = [c.value for c in sheet[1]]
    row = next(r for r in sheet.iter_rows(min_row=2) if r[header.index("run_id")].value == desk[2])
    row[header.index("turn")].value = 1
    book.save(path)
    [finding] = audit_workbook(path).findings
    assert (finding.column, finding.expected) == ("turn", 3)
    h.close()
