"""``harness export``: parses, calls the exporters, prints a summary; bad input exits 2."""

from __future__ import annotations

import re

import pytest
from python_calamine import CalamineWorkbook

from harness.cli import main
from harness.schema import ALL_SHEET_NAMES, sheet

from .sheets_helpers import assert_exactly_once


def run_cli(*args: str) -> int:
    with pytest.raises(SystemExit) as exited:
        main(["export", *args])
    return exited.value.code


def test_export_out_writes_the_workbook_and_prints_rows_per_sheet(filled, tmp_path, capsys):
    out = tmp_path / "book.xlsx"
    assert run_cli("--out", str(out), "--store", str(filled.path)) == 0
    assert CalamineWorkbook.from_path(str(out)).sheet_names == list(ALL_SHEET_NAMES)
    printed = capsys.readouterr().out
    assert "wrote" in printed and "51 rows" in printed
    assert all(name in printed for name in ALL_SHEET_NAMES)


def test_repeated_run_options_select_those_runs(filled, tmp_path):
    out = tmp_path / "book.xlsx"
    assert run_cli("--out", str(out), "--store", f"sqlite:///{filled.path}", "--run", "run-2", "--run", "run-2") == 0
    rows = CalamineWorkbook.from_path(str(out)).get_sheet_by_name("tool_calls").to_python()
    assert [r[0] for r in rows[1:]] == ["run-2", "run-2"]


@pytest.mark.parametrize("args, message", [
    ((), "nothing to do"),
    (("--out", "{tmp}/book.csv"), "must end in .xlsx"),
    (("--out", "{tmp}/missing/book.xlsx"), "does not exist"),
    (("--out", "{tmp}"), "is a directory"),
    (("--out", "{tmp}/book.xlsx", "--gsheet", ""), "not a spreadsheet id"),
    (("--out", "{tmp}/book.xlsx", "--run", "run-9"), "no run 'run-9' in store"),
    (("--out", "{tmp}/book.xlsx", "--run", ""), "no run '' in store"),
])
def test_bad_input_is_one_line_and_exit_code_2(filled, tmp_path, capsys, args, message):
    code = run_cli(*(a.format(tmp=tmp_path) for a in args), "--store", str(filled.path))
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("harness: error: ") and message in err and err.count("\n") == 1


def test_a_store_that_does_not_exist_is_exit_code_2(tmp_path, capsys):
    assert run_cli("--out", str(tmp_path / "b.xlsx"), "--store", str(tmp_path / "none.db")) == 2
    assert "no store at" in capsys.readouterr().err
    assert not (tmp_path / "none.db").exists()


def test_gsheet_without_credentials_is_exit_code_2(filled, monkeypatch, capsys):
    monkeypatch.delenv("GOOGLE_APPLICATION_CREDENTIALS", raising=False)
    assert run_cli("--gsheet", "abc", "--store", str(filled.path)) == 2
    assert "GOOGLE_APPLICATION_CREDENTIALS" in capsys.readouterr().err


def test_gsheet_push_that_fails_exits_1_and_the_same_command_resumes_it(filled, sheets_server, tmp_path, capsys):
    sid = sheets_server.create_spreadsheet()
    key = sheets_server.service_account_file(tmp_path / "sa.json")
    command = ("--gsheet", sid, "--store", str(filled.path), "--credentials", str(key))
    sheets_server.fail("append", status=400, sheet="evaluations")  # not retryable: the push stops
    with sheets_server.redirect_gspread():
        assert run_cli(*command) == 1
        assert "run the export again to resume" in capsys.readouterr().err
        assert run_cli(*command) == 0
    assert "appended" in capsys.readouterr().out
    assert_exactly_once(sheets_server, sid, filled)


def test_gsheet_credentials_come_from_the_environment(filled, sheets_server, tmp_path, monkeypatch):
    sid = sheets_server.create_spreadsheet()
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(sheets_server.service_account_file(tmp_path / "sa.json")))
    with sheets_server.redirect_gspread():
        assert run_cli("--gsheet", sid, "--store", str(filled.path)) == 0
    assert_exactly_once(sheets_server, sid, filled)


def test_gsheet_header_mismatch_is_exit_code_2(filled, sheets_server, tmp_path, capsys):
    sid = sheets_server.create_spreadsheet()
    sheets_server.set_values(sid, "runs", [["not", "our", "header"]])
    key = sheets_server.service_account_file(tmp_path / "sa.json")
    with sheets_server.redirect_gspread():
        assert run_cli("--gsheet", sid, "--store", str(filled.path), "--credentials", str(key)) == 2
    assert "does not match the schema" in capsys.readouterr().err
    assert sheets_server.count("append") == 0
    assert sheet("runs").name in sheets_server.titles(sid)


def test_an_out_path_without_permission_is_exit_code_2_before_the_store_is_read(filled, unwritable_dir, capsys):
    assert run_cli("--out", str(unwritable_dir / "book.xlsx"), "--store", str(filled.path)) == 2
    err = capsys.readouterr().err
    assert "--out" in err and err.count("\n") == 1


def test_the_help_says_the_whole_store_is_exported_unless_runs_are_named(capsys):
    with pytest.raises(SystemExit):
        main(["export", "--help"])
    text = " ".join(re.sub("[│╭╮╰╯─]", " ", capsys.readouterr().out).split())
    assert "Every run of the store is exported, or only those given with --run" in text
