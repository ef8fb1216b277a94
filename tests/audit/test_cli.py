"""`harness audit`: exit 0 clean, 1 findings, 2 unusable input (one line on stderr)."""

from __future__ import annotations

import json
from pathlib import Path

import openpyxl
import pytest

from harness.cli import main

from .conftest import cell_value, edit


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(["audit", *args])
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


def test_clean_workbook_exits_0_with_a_summary(capsys, workbook: Path) -> None:
    code, out, err = _run(capsys, str(workbook))
    assert code == 0
    assert "clean" in out and "no findings" in out
    assert "Per model" in out and "llama-3.3-70b-versatile" in out
    assert err == ""


def test_findings_exit_1_and_are_listed(capsys, workbook: Path) -> None:
    old = cell_value(workbook, "tool_selections", 2, "f1_score")
    edit(workbook, ("tool_selections", 2, "f1_score", old / 2))
    code, out, _ = _run(capsys, str(workbook))
    assert code == 1
    assert "1 finding" in out and "tool_selections" in out and "f1_score" in out


def test_json_output_is_the_whole_result(capsys, workbook: Path) -> None:
    edit(workbook, ("runs", 2, "total_steps", 99))
    code, out, _ = _run(capsys, str(workbook), "--json")
    data = json.loads(out)
    assert code == 1 and data["exit_code"] == 1
    assert data["findings"] == [{
        "sheet": "runs", "row": 2, "column": "total_steps", "found": 99, "expected": 8,
        "rule": "total_steps = distinct step_number of the run's node events in langgraph_events",
        "kind": "cross-sheet",
    }]
    # one run also made a call with a model without a price: it counts for both, marked mixed
    mixed = {g["key"]: (g["runs"], g["mixed"]) for g in data["aggregates"]["by_model"]}
    assert mixed == {"llama-3.3-70b-versatile": (6, 0), "llama-3.1-8b-instant": (6, 1), "house-model-x": (1, 1)}
    assert data["rows"]["langgraph_events"] == 240


def test_tolerance_option_is_applied(capsys, workbook: Path) -> None:
    old = cell_value(workbook, "evaluations", 2, "overall_score")
    edit(workbook, ("evaluations", 2, "overall_score", old + 1e-4))
    assert _run(capsys, str(workbook))[0] == 1
    assert _run(capsys, str(workbook), "--tolerance", "1e-3")[0] == 0


def test_baseline_model_sets_the_uplift_reference(capsys, workbook: Path) -> None:
    _, out, _ = _run(capsys, str(workbook), "--json", "--baseline-model", "llama-3.1-8b-instant")
    data = json.loads(out)["aggregates"]
    assert data["baseline_model"] == "llama-3.1-8b-instant"
    uplift = {g["key"]: g["uplift"] for g in data["by_model"]}
    assert uplift["llama-3.1-8b-instant"] is None and uplift["llama-3.3-70b-versatile"] is not None


def test_an_unknown_baseline_model_is_unusable_input(capsys, workbook: Path) -> None:
    code, out, err = _run(capsys, str(workbook), "--baseline-model", "gpt-9")
    assert code == 2 and out == ""
    assert err.strip() == ("harness: error: baseline model 'gpt-9' has no runs; models: "
                           "llama-3.3-70b-versatile, llama-3.1-8b-instant, house-model-x")


@pytest.mark.parametrize(("damage", "message"), [
    ("missing sheet", "missing sheet(s) prompts"),
    ("reordered column", "sheet 'runs': column 2 is 'node' where the spec has 'company_name'"),
    ("not a workbook", "not a readable workbook"),
])
def test_unusable_input_exits_2_with_one_line(capsys, workbook: Path, damage: str, message: str) -> None:
    if damage == "not a workbook":
        workbook.write_bytes(b"PK\x03\x04 broken zip")
    else:
        book = openpyxl.load_workbook(workbook)
        if damage == "missing sheet":
            book.remove(book["prompts"])
        else:
            book["runs"].move_range("B1:B20", cols=30)
            book["runs"].delete_cols(2)
        book.save(workbook)
    code, out, err = _run(capsys, str(workbook))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("harness: error: ") and message in err


def test_file_and_gsheet_together_are_refused(capsys, workbook: Path) -> None:
    code, _, err = _run(capsys, str(workbook), "--gsheet", "abc")
    assert code == 2 and "either a workbook FILE.xlsx or --gsheet" in err


def test_nothing_to_audit_is_refused(capsys) -> None:
    code, _, err = _run(capsys)
    assert code == 2 and "either a workbook FILE.xlsx or --gsheet" in err


def test_gsheet_without_credentials_is_refused(capsys, monkeypatch) -> None:
    monkeypatch.delenv("GOOGLE_APPLICATION_CREDENTIALS", raising=False)
    code, _, err = _run(capsys, "--gsheet", "sheet-id")
    assert code == 2 and "no Google credentials" in err


def test_report_option_writes_the_html_file(capsys, workbook: Path, tmp_path: Path) -> None:
    report = tmp_path / "report.html"
    code, out, _ = _run(capsys, str(workbook), "--report", str(report))
    assert code == 0 and f"report: {report}" in out
    assert report.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_a_directory_named_like_a_workbook_is_reported_as_a_directory(capsys, tmp_path: Path) -> None:
    (tmp_path / "x.xlsx").mkdir()
    code, out, err = _run(capsys, str(tmp_path / "x.xlsx"))
    assert code == 2 and out == ""
    assert err.strip() == f"harness: error: {tmp_path / 'x.xlsx'} is a directory, not a workbook"


@pytest.mark.parametrize("where", ["missing/report.html", "."])
def test_a_report_path_that_cannot_be_written_is_refused_before_the_audit(capsys, workbook: Path, tmp_path: Path,
                                                                          where: str) -> None:
    workbook.write_bytes(b"not a workbook: the audit would fail if it ran first")
    code, out, err = _run(capsys, str(workbook), "--report", str(tmp_path / where))
    assert code == 2 and out == "" and err.count("\n") == 1 and "--report" in err


@pytest.mark.parametrize(("content", "message"), [
    ('{"type": "service_account"}', "is not a usable service-account key"),
    ("not json", "is not JSON"),
    (None, "cannot read credentials file"),
])
def test_unusable_credentials_are_one_line_without_library_internals(capsys, tmp_path: Path, content, message) -> None:
    key = tmp_path / "sa.json"
    if content is not None:
        key.write_text(content)
    code, _, err = _run(capsys, "--gsheet", "sheet-id", "--credentials", str(key))
    assert code == 2 and message in err and err.count("\n") == 1
    assert "expected format" not in err and "missing fields" not in err


def _credit_workbook(tmp_path: Path, monkeypatch, *batches: tuple[str, ...]) -> Path:
    """Workbook of real offline credit batches (``harness run`` arguments each)."""
    monkeypatch.chdir(tmp_path)
    for args in batches:
        with pytest.raises(SystemExit) as done:
            main(["run", *args, "--store", "runs.db", "--no-excel"])
        assert done.value.code == 0
    with pytest.raises(SystemExit):
        main(["export", "--out", "runs.xlsx", "--store", "runs.db"])
    return tmp_path / "runs.xlsx"


def _reverse_runs_rows(workbook: Path) -> None:
    """A reviewer sorted the runs tab: its data rows now come in the opposite order."""
    book = openpyxl.load_workbook(workbook)
    sheet = book["runs"]
    rows = [[c.value for c in row] for row in sheet.iter_rows(min_row=2)]
    for r, values in enumerate(reversed(rows), start=2):
        for c, value in enumerate(values, start=1):
            sheet.cell(row=r, column=c).value = value
    book.save(workbook)


def test_the_default_baseline_is_the_batch_primary_model_whatever_the_row_order(capsys, tmp_path, monkeypatch):
    workbook = _credit_workbook(tmp_path, monkeypatch, ("Sakura Robotics", "--compare-model", "offline-analyst-lite"))
    capsys.readouterr()
    _reverse_runs_rows(workbook)  # the compared model's run now comes first
    code, out, _ = _run(capsys, str(workbook), "--json")
    data = json.loads(out)["aggregates"]
    assert code == 0 and data["baseline_model"] == "offline-analyst-1"
    assert "primary model" in data["baseline_reason"]
    uplift = {g["key"]: g["uplift"] for g in data["by_model"]}
    assert uplift["offline-analyst-1"] is None and uplift["offline-analyst-lite"] is not None
    _, out, _ = _run(capsys, str(workbook))
    assert "uplift baseline: offline-analyst-1, the batch's primary model" in " ".join(out.split())


def test_without_compared_batches_the_baseline_is_the_model_of_the_earliest_run(capsys, tmp_path, monkeypatch):
    workbook = _credit_workbook(tmp_path, monkeypatch, ("Contoso Ltd", "--model", "offline-analyst-lite"),
                                ("Contoso Ltd",))
    capsys.readouterr()
    _reverse_runs_rows(workbook)
    code, out, _ = _run(capsys, str(workbook), "--json")
    data = json.loads(out)["aggregates"]
    assert code == 0 and data["baseline_model"] == "offline-analyst-lite"
    assert data["baseline_reason"] == "the model of the earliest run (runs.started_at)"


def test_a_formula_cell_is_one_finding(capsys, workbook: Path) -> None:
    book = openpyxl.load_workbook(workbook)
    sheet = book["evaluations"]
    column = [c.value for c in sheet[1]].index("overall_score") + 1
    sheet.cell(row=2, column=column).value = "=0.3*H2+0.3*J2+0.4*L2"  # no cached value: the cell reads empty
    book.save(workbook)
    code, out, _ = _run(capsys, str(workbook), "--json")
    findings = [f for f in json.loads(out)["findings"] if f["sheet"] == "evaluations" and f["row"] == 2]
    assert code == 1 and [(f["column"], f["kind"]) for f in findings] == [("overall_score", "formula")]


def test_lists_found_and_expected_are_shown_as_the_cell_holds_them(capsys, tmp_path, monkeypatch) -> None:
    workbook = _credit_workbook(tmp_path, monkeypatch, ("Acme Corp",))
    capsys.readouterr()
    edit(workbook, ("runs", 2, "tools_used", '["sec_edgar"]'))
    _, out, _ = _run(capsys, str(workbook), "--json")
    (finding,) = json.loads(out)["findings"]
    assert finding["found"] == '["sec_edgar"]'
    assert finding["expected"] == '["court_listener","finnhub","sec_edgar","web_search"]'


def test_group_rows_list_the_runs_they_cover_and_the_audit_checks_them(capsys, tmp_path, monkeypatch) -> None:
    workbook = _credit_workbook(tmp_path, monkeypatch, ("Sakura Robotics", "--repeats", "2",
                                                         "--compare-model", "offline-analyst-lite"))
    capsys.readouterr()
    assert _run(capsys, str(workbook))[0] == 0
    book = openpyxl.load_workbook(workbook)
    header = [c.value for c in book["consistency_scores"][1]]
    ids = json.loads(book["consistency_scores"].cell(row=2, column=header.index("run_ids") + 1).value)
    assert len(ids) == 2
    edit(workbook, ("consistency_scores", 2, "run_ids", json.dumps(ids[:1])),
         ("cross_model_eval", 2, "run_ids", json.dumps(["00000000-0000-4000-8000-000000000000"])))
    code, out, _ = _run(capsys, str(workbook), "--json")
    findings = {(f["sheet"], f["column"], f["kind"]) for f in json.loads(out)["findings"]}
    assert code == 1 and findings == {("consistency_scores", "run_ids", "cross-sheet"),
                                      ("cross_model_eval", "run_ids", "reference")}


def test_tool_and_node_names_with_control_characters_round_trip_with_no_finding_and_no_warning(
        capsys, tmp_path: Path) -> None:
    """A tool named ``look\\x0bup`` (and others holding ESC, DEL, C1, a line separator), in a
    node whose name holds them too: the export keeps them (Excel's ``_x000B_`` escapes), the
    audit finds nothing, its plots show them as escapes and print no font warning."""
    from langchain_core.tools import StructuredTool

    from harness import Harness
    from tests.harness import graphs

    def look(query: str) -> str:
        return "found " + query

    names = ["look\x0bup", "tab\tcr\resc\x1bdel\x7fc1\x85ls\u2028"]
    tools = [StructuredTool.from_function(look, name=name, description="Look up.") for name in names]

    def node(state, config):
        for tool in tools:
            tool.invoke({"query": "x"}, config)
        return {"log": ["looked"]}

    harness = Harness(store=tmp_path / "runs.db", writer="inline")
    with harness.run(subject="names", expected_tools=names) as run:
        graphs.single_node(node, name="wo\x0brk\x1b").invoke({"log": []}, run.config)
    harness.export_excel(tmp_path / "runs.xlsx")
    harness.close()
    code, out, err = _run(capsys, str(tmp_path / "runs.xlsx"), "--report", str(tmp_path / "report.html"))
    assert code == 0 and "no findings" in out, out
    assert err == ""
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "wo\\x0brk\\x1b" in page and not any(c in page for c in "\x0b\x1b\x7f\x85\u2028")
