from __future__ import annotations

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


def test_repeats_write_consistency_rows_to_every_run_of_the_group(cli, tmp_path):
    code, _, _ = cli("Sakura Robotics", "--repeats", "3", "--no-excel")
    assert code == 0
    runs = rows(tmp_path, "runs")
    consistency = rows(tmp_path, "consistency_scores")
    assert len(runs) == 3 and len({r["batch_id"] for r in runs}) == 1
    assert {r["run_id"] for r in consistency} == {r["run_id"] for r in runs}
    assert all(r["evaluation_type"] == "same_model" and r["num_runs"] == 3 for r in consistency)
    assert {r["verification_status"] for r in rows(tmp_path, "log_tests")} == {"pass"}
    assert all(r["consistency_scores"] == 1 for r in rows(tmp_path, "log_tests"))


def test_compare_model_writes_cross_model_rows(cli, tmp_path):
    code, out, _ = cli("Sakura Robotics", "--compare-model", "offline-analyst-lite", "--no-excel")
    assert code == 0 and "offline-analyst-lite" in out
    cross = rows(tmp_path, "cross_model_eval")
    assert len(cross) == 2
    assert cross[0]["models_compared"] == ["offline-analyst-1", "offline-analyst-lite"]
    assert cross[0]["risk_level_agreement"] == 0.5  # LOW vs MODERATE on this company
    assert cross[0]["pairwise_comparisons"][0]["verdicts"]
    assert {r["model"] for r in rows(tmp_path, "runs")} == {"offline-analyst-1", "offline-analyst-lite"}


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


def test_a_failed_export_is_one_line_and_keeps_the_exit_code(cli, tmp_path, monkeypatch):
    monkeypatch.delenv("GOOGLE_APPLICATION_CREDENTIALS", raising=False)
    code, _, err = cli("Acme Corp", "--no-excel", "--gsheet", "sheet-id")
    assert code == 0
    assert [line for line in err.splitlines() if "Google Sheets export failed" in line]
    assert "Traceback" not in err and len(rows(tmp_path, "runs")) == 1


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
