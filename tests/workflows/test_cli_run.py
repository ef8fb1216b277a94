from __future__ import annotations

import re
import shutil
import sqlite3
from contextlib import closing

import pytest

from harness import Store
from harness.cli import main


@pytest.fixture
def cli(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("HARNESS_PROVIDER", raising=False)
    monkeypatch.delenv("GROQ_API_KEY", raising=False)

    def run(*args: str) -> tuple[int, str, str]:
        with pytest.raises(SystemExit) as info:
            main(["run", *args, "--store", str(tmp_path / "runs.db")])
        out = capsys.readouterr()
        return info.value.code, out.out, out.err

    return run


def rows(tmp_path, sheet):
    return list(Store(tmp_path / "runs.db").rows(sheet))


def test_runs_companies_prints_a_summary_and_exports_excel(cli, tmp_path):
    code, out, err = cli("Acme Corp", "Blue Harbor Logistics")
    assert code == 0
    assert "Acme Corp" in out and "LOW" in out and "MODERATE" in out and "completed" in out
    assert "\r" not in err  # no progress bar when not on a terminal
    assert (tmp_path / "runs.xlsx").exists() and "exported to Excel" in err
    assert {r["verification_status"] for r in rows(tmp_path, "log_tests")} == {"pass"}


def test_repeats_write_one_consistency_row_per_group_stamped_with_the_run_that_completes_it(cli, tmp_path):
    code, _, _ = cli("Acme Corp", "Northwind Traders Inc", "--repeats", "3", "--no-excel")
    assert code == 0
    runs = rows(tmp_path, "runs")
    consistency = rows(tmp_path, "consistency_scores")
    assert len(runs) == 6 and len(consistency) == 2  # one row per company, not one per run
    for company, row in zip(("Acme Corp", "Northwind Traders Inc"), consistency):
        group = [r["run_id"] for r in runs if r["company_name"] == company]
        assert row["company_name"] == company and row["evaluation_type"] == "same_model" and row["num_runs"] == 3
        assert row["run_ids"] == group and row["run_id"] == group[-1]
    tests = {r["run_id"]: r for r in rows(tmp_path, "log_tests")}
    assert sum(t["consistency_scores"] for t in tests.values()) == 2
    assert {t["verification_status"] for t in tests.values()} == {"pass"}


def test_compare_model_writes_each_group_row_once(cli, tmp_path):
    code, out, _ = cli("Sakura Robotics", "--compare-model", "offline-analyst-lite", "--no-excel")
    assert code == 0 and "offline-analyst-lite" in out
    runs = [r["run_id"] for r in rows(tmp_path, "runs")]
    cross = rows(tmp_path, "cross_model_eval")
    assert len(cross) == 1 and cross[0]["run_ids"] == runs and cross[0]["run_id"] == runs[-1]
    assert cross[0]["models_compared"] == ["offline-analyst-1", "offline-analyst-lite"]
    assert cross[0]["risk_level_agreement"] == 0.5  # LOW vs MODERATE on this company
    assert cross[0]["pairwise_comparisons"][0]["verdicts"]
    consistency = rows(tmp_path, "consistency_scores")
    assert [(r["evaluation_type"], r["run_ids"]) for r in consistency] == [("cross_model", runs)]
    assert [r["model"] for r in rows(tmp_path, "runs")] == ["offline-analyst-1", "offline-analyst-lite"]


@pytest.mark.parametrize("bad", ["", "   ", "x" * 10_000, '=HYPERLINK("http://evil","x")',
                                 "Robert'); DROP TABLE runs;--", "🍎 Apple"])
def test_bad_names_get_a_clean_validation_run_and_the_batch_goes_on(cli, tmp_path, bad):
    code, out, err = cli(bad, "Acme Corp", "--no-excel")
    assert code == 0 and "Traceback" not in err
    assert "invalid:" in out
    runs = {r["company_name"]: r for r in rows(tmp_path, "runs")}
    assert runs["Acme Corp"]["risk_level"] == "LOW"
    assert len(runs) == 2
    invalid = next(r for r in runs.values() if r["company_name"] != "Acme Corp")
    assert invalid["error"].startswith("validation failed") and len(invalid["company_name"]) <= 201


def test_quoted_names_are_valid_and_stored_verbatim(cli, tmp_path):
    code, _, _ = cli('O\'Reilly "Quoted" Parts', "--no-excel")
    assert code == 0
    assert rows(tmp_path, "runs")[0]["company_name"] == 'O\'Reilly "Quoted" Parts'


def test_file_with_blank_lines_and_duplicates(cli, tmp_path):
    (tmp_path / "companies.txt").write_text("Acme Corp\n\n  \n# a comment\nAcme Corp\nContoso Ltd\n Contoso Ltd \n", encoding="utf-8")
    code, _, err = cli("--file", "companies.txt", "--no-excel")
    assert code == 0
    assert "skipped 2 duplicate companies" in err
    assert sorted(r["company_name"] for r in rows(tmp_path, "runs")) == ["Acme Corp", "Contoso Ltd"]


@pytest.mark.parametrize(("args", "message"), [
    ((), "no companies given"),
    (("--file", "missing.txt"), "cannot read companies file"),
    (("Acme", "--provider", "groq"), "GROQ_API_KEY is not set"),
    (("Acme", "--provider", "openai"), "unknown provider"),
    (("Acme", "--repeats", "0"), "--repeats"),
    (("Acme", "--model", "gpt-9"), "unknown offline model"),
    (("Acme", "--compare-model", "offline-analyst-1"), "must differ"),
    (("Acme", "--sources", "ftp"), "--sources"),
    (("Acme", "--provider", ""), "--provider needs a value"),
    (("Acme", "--model", " "), "--model needs a value"),
    (("Acme", "--compare-model", ""), "--compare-model needs a value"),
    (("Acme", "--batch-id", " "), "--batch-id needs a value"),
    (("Acme", "--temperature", "abc"), "--temperature"),
])
def test_unusable_input_is_one_line_and_exit_2(cli, args, message):
    code, _, err = cli(*args)
    assert code == 2
    assert message in err and len(err.strip().splitlines()) == 1


def test_a_failed_run_gives_exit_1_and_the_rest_of_the_batch_is_kept(cli, tmp_path, monkeypatch):
    from tests.support.groq_server import serve_groq

    with serve_groq() as server:
        server.script = [400] * 50  # every LLM call is rejected: runs fail
        monkeypatch.setenv("GROQ_API_KEY", "gsk_test")
        monkeypatch.setenv("GROQ_API_BASE", server.url)
        code, out, err = cli("Acme Corp", "", "--provider", "groq", "--no-excel")
    assert code == 1
    statuses = {r["company_name"]: r["status"] for r in rows(tmp_path, "runs")}
    assert statuses == {"Acme Corp": "failed", "": "completed"}
    assert "failed" in out and "gsk_test" not in out + err


def test_progress_bar_shows_on_a_terminal(cli, monkeypatch):
    monkeypatch.setenv("FORCE_COLOR", "1")  # rich treats the captured stream as a terminal
    code, _, err = cli("Acme Corp", "Contoso Ltd", "--no-excel")
    assert code == 0
    assert "credit runs" in err and "2/2" in err


def test_gsheet_without_credentials_is_refused_before_any_run(cli, tmp_path, monkeypatch):
    monkeypatch.delenv("GOOGLE_APPLICATION_CREDENTIALS", raising=False)
    code, _, err = cli("Acme Corp", "--no-excel", "--gsheet", "sheet-id")
    assert code == 2 and "GOOGLE_APPLICATION_CREDENTIALS" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "runs.db").exists()


def test_an_export_that_fails_after_the_runs_exits_1_and_says_the_runs_are_safe(cli, tmp_path, monkeypatch):
    from tests.support.sheets_server import SheetsServer

    with SheetsServer() as server:
        sid = server.create_spreadsheet()
        monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(server.service_account_file(tmp_path / "sa.json")))
        server.fail("append", status=400, sheet="runs")  # not retryable: the push stops
        with server.redirect_gspread():
            code, _, err = cli("Acme Corp", "--gsheet", sid)
    assert code == 1
    failed = [line for line in err.splitlines() if "Google Sheets export failed" in line]
    assert len(failed) == 1 and "the runs are safe in the store" in failed[0] and "harness export" in failed[0]
    assert "exported to Excel" in err and "Traceback" not in err
    assert len(rows(tmp_path, "runs")) == 1


@pytest.mark.parametrize(("out", "message"), [
    ("missing/runs.xlsx", "directory 'missing' does not exist"),
    (".", "is a directory"),
    ("runs.csv", "must end in .xlsx"),
])
def test_an_out_path_that_cannot_be_written_is_refused_before_any_run(cli, tmp_path, out, message):
    code, _, err = cli("Acme Corp", "--out", out)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "runs.db").exists()


def test_an_out_path_without_permission_is_refused_before_any_run(cli, tmp_path, unwritable_dir):
    code, _, err = cli("Acme Corp", "--out", str(unwritable_dir / "runs.xlsx"))
    assert code == 2 and "--out" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "runs.db").exists()


def test_the_db_file_alone_holds_every_row_when_the_command_exits(cli, tmp_path):
    code, _, _ = cli("Acme Corp", "Contoso Ltd", "--no-excel")
    assert code == 0
    wal = tmp_path / "runs.db-wal"
    assert not wal.exists() or wal.stat().st_size == 0
    copy = tmp_path / "copy" / "runs.db"
    copy.parent.mkdir()
    shutil.copyfile(tmp_path / "runs.db", copy)  # the .db file alone, as one mails it
    with closing(sqlite3.connect(copy)) as conn:
        assert conn.execute("SELECT COUNT(*) FROM runs").fetchone() == (2,)
        assert conn.execute("SELECT COUNT(*) FROM llm_calls").fetchone()[0] > 0


def test_an_unknown_offline_model_is_one_line_naming_the_valid_models(cli):
    code, _, err = cli("Acme Corp", "--model", "gpt-4o")
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "offline-analyst-1, offline-analyst-lite" in err
    assert "validation error" not in err and "pydantic" not in err


def test_a_company_without_evidence_is_noted_in_the_summary_and_the_runs_row(cli, tmp_path):
    code, out, _ = cli("Totally Unknown Widgets LLC", "--no-excel")
    assert code == 0
    assert "no evidence found: web_search returned no records" in out
    run = rows(tmp_path, "runs")[0]
    assert run["note"] == "no evidence found: web_search returned no records"
    assert run["confidence"] <= 0.2 and run["evaluation_score"] < 0.8


def test_the_out_help_says_it_holds_the_runs_of_this_batch(capsys):
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    help_text = " ".join(re.sub("[│╭╮╰╯─]", " ", capsys.readouterr().out).split())  # without rich's box
    assert "Excel workbook for the runs of this batch" in help_text


def test_the_summary_prints_every_full_run_id(cli, tmp_path):
    code, out, _ = cli("Acme Corp", "Blue Harbor Logistics", "--no-excel")
    assert code == 0
    ids = [r["run_id"] for r in rows(tmp_path, "runs")]
    assert len(ids) == 2 and all(run_id in out for run_id in ids)


def test_a_reader_that_goes_away_loses_no_run_and_no_export(tmp_path):
    import subprocess
    import sys

    shell = (f"{sys.executable} -m harness run 'Acme Corp' --store {tmp_path / 'runs.db'} --out {tmp_path / 'r.xlsx'} "
             "| head -c 0; echo \"exit ${PIPESTATUS[0]}\"")
    done = subprocess.run(["bash", "-c", shell], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.stdout.splitlines()[-1] == "exit 0" and "BrokenPipe" not in done.stderr
    assert len(rows(tmp_path, "runs")) == 1 and (tmp_path / "r.xlsx").is_file()
