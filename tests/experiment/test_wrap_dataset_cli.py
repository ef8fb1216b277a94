"""`harness wrap --dataset`: a user's graph over a dataset from the shell, as an experiment."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from harness import Store
from tests.support.cli import harness_cli

ROOT = Path(__file__).parents[2]
AGENT = "tests.experiment.agents:app"


def harness(cwd, *args, env=None):
    environ = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]), **(env or {})}
    return harness_cli(*args, cwd=cwd, timeout=180, env=environ)


def dataset(tmp_path, cases, name="cases.jsonl"):
    path = tmp_path / name
    path.write_text("".join(json.dumps(c) + "\n" for c in cases))
    return path


CASES = [
    {"id": "france", "input": {"messages": [["user", "What is the capital of France?"]]}, "reference_answer": "Paris",
     "expected_tools": ["capital_of"], "require_tools": True},
    {"id": "peru", "input": {"messages": [["user", "What is the capital of Peru?"]]}, "reference_answer": "Lima"},
]


def test_a_dataset_runs_as_a_named_experiment_with_context_and_config(tmp_path):
    db = tmp_path / "runs.db"
    result = harness(tmp_path, "wrap", AGENT, "--dataset", str(dataset(tmp_path, CASES)), "--experiment", "base",
                     "--context", '{"model": "acme-large-2026"}', "--config", '{"recursion_limit": 7}',
                     "--repeats", "2", "--store", str(db))
    assert result.returncode == 0, result.stderr
    assert "experiment base: 4 run(s) of 2 case(s), passed 4/4" in result.stdout
    store = Store(db)
    runs = list(store.rows("runs", columns=["run_id", "experiment", "case_id", "repeat_index", "passed"]))
    assert [(r["case_id"], r["repeat_index"], r["passed"]) for r in runs] == [
        ("france", 0, 1), ("france", 1, 1), ("peru", 0, 1), ("peru", 1, 1)]
    assert all(r["run_id"] in result.stdout for r in runs)  # full ids printed
    assert {r["model"] for r in store.rows("llm_calls", columns=["model"])} == {"acme-large-2026"}
    record = store.experiment_record("base")
    assert record["target"] == AGENT and record["models"] == ["acme-large-2026"] and record["repeats"] == 2


def test_a_bad_dataset_is_refused_before_anything_runs(tmp_path):
    db = tmp_path / "runs.db"
    bad = dataset(tmp_path, [CASES[0], {"id": "x", "input": 1, "answer_check": "exact"}])
    result = harness(tmp_path, "wrap", AGENT, "--dataset", str(bad), "--store", str(db))
    assert result.returncode == 2
    assert result.stderr.strip() == (f"harness: error: {bad}:2: field 'reference_answer': "
                                      "required by answer_check 'exact'")
    assert not db.exists()


@pytest.mark.parametrize("args, message", [
    (["--input", "{}", "--dataset", "cases.jsonl"], "give --input (one run) or --dataset"),
    (["--dataset", "cases.jsonl", "--shard", "3/3"], "--shard is K/N with 0 <= K < N"),
    (["--dataset", "cases.jsonl", "--config", "[1]"], "--config must be a JSON object"),
    (["--dataset", "cases.jsonl", "--context", "{nope"], "--context is not valid JSON"),
    (["--dataset", "cases.jsonl", "--prices", "prices.toml"], "cannot read prices file"),
    (["--input", "{}", "--experiment", "e"], "--experiment goes with --dataset"),
    (["--dataset", "cases.jsonl", "--experiment", ""], "an experiment name must be a text that is not blank"),
    (["--dataset", "cases.jsonl", "--experiment", " \t"], "an experiment name must be a text that is not blank"),
    (["--dataset", "cases.jsonl", "--experiment", "base\x1b[2J"], "holds no control character"),
    (["--dataset", "cases.jsonl", "--experiment", "n" * 100_000], "at most 200 characters, not 100,000"),
    (["--input", "{}", "--subject", "  "], "--subject needs a value"),
])
def test_unusable_options_are_one_line_and_exit_2(tmp_path, args, message):
    dataset(tmp_path, CASES)
    result = harness(tmp_path, "wrap", AGENT, *args, "--store", str(tmp_path / "runs.db"))
    assert result.returncode == 2 and message in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert len(result.stderr) < 400 and "\x1b" not in result.stderr and not (tmp_path / "runs.db").exists()


def test_a_name_already_used_is_refused_unless_appended(tmp_path):
    path = dataset(tmp_path, CASES)
    db = str(tmp_path / "runs.db")
    assert harness(tmp_path, "wrap", AGENT, "--dataset", str(path), "--experiment", "e", "--store", db).returncode == 0
    again = harness(tmp_path, "wrap", AGENT, "--dataset", str(path), "--experiment", "e", "--store", db)
    assert again.returncode == 2 and "experiment 'e' already exists" in again.stderr
    more = harness(tmp_path, "wrap", AGENT, "--dataset", str(path), "--experiment", "e", "--append", "--store", db)
    assert more.returncode == 0 and len(list(Store(db).rows("runs", columns=["run_id"]))) == 4


def test_the_default_name_is_the_attribute_and_the_utc_time(tmp_path):
    db = tmp_path / "runs.db"
    result = harness(tmp_path, "wrap", AGENT, "--dataset", str(dataset(tmp_path, CASES[:1])), "--store", str(db))
    name = Store(db).experiment_records()[0]["name"]
    assert result.returncode == 0 and name.startswith("app-20") and name.endswith("Z") and name in result.stdout


def test_a_prices_file_prices_the_runs_in_every_writer(tmp_path):
    (tmp_path / "prices.toml").write_text('[prices."acme-mini-2026"]\ninput_per_million = 1.5\n'
                                          'output_per_million = 6.0\n')
    db = tmp_path / "runs.db"
    result = harness(tmp_path, "wrap", AGENT, "--dataset", str(dataset(tmp_path, CASES[:1])), "--prices", "prices.toml",
                     "--store", str(db), env={"HARNESS_WRITER": "process"})
    assert result.returncode == 0, result.stderr
    costs = [r["total_cost"] for r in Store(db).rows("llm_calls", columns=["total_cost"])]
    assert costs == [pytest.approx(40 * 1.5e-6 + 10 * 6e-6)] * 2


def test_sync_forces_invoke_and_shards_split_the_cases(tmp_path):
    cases = [{"id": c, "input": {"question": f"capital of {c}"}, "reference_answer": city, "answer_check": "exact",
              "answer_path": "answer"} for c, city in (("France", "Paris"), ("Japan", "Tokyo"), ("Peru", "Lima"))]
    path = dataset(tmp_path, cases)
    db = str(tmp_path / "runs.db")
    for k in (0, 1):
        result = harness(tmp_path, "wrap", "tests.experiment.agents:sync_app", "--dataset", str(path), "--sync",
                         "--experiment", "split", "--shard", f"{k}/2", "--concurrency", "2", "--store", db,
                         *(["--append"] if k else []))
        assert result.returncode == 0, result.stderr
    rows = list(Store(db).rows("runs", columns=["case_id", "passed"]))
    assert sorted(r["case_id"] for r in rows) == ["France", "Japan", "Peru"] and all(r["passed"] == 1 for r in rows)


def test_export_writes_only_the_runs_of_an_experiment(tmp_path):
    path = dataset(tmp_path, CASES)
    db = str(tmp_path / "runs.db")
    for name in ("one", "two"):
        assert harness(tmp_path, "wrap", AGENT, "--dataset", str(path), "--experiment", name, "--store", db).returncode == 0
    out = tmp_path / "one.xlsx"
    done = harness(tmp_path, "export", "--store", db, "--experiment", "one", "--out", str(out))
    assert done.returncode == 0, done.stderr
    import openpyxl

    sheet = openpyxl.load_workbook(out, read_only=True)["runs"]
    header, *rows = list(sheet.values)
    assert {row[header.index("experiment")] for row in rows} == {"one"} and len(rows) == 2
    missing = harness(tmp_path, "export", "--store", db, "--experiment", "three", "--out", str(out))
    assert missing.returncode == 2 and "no runs of experiment 'three'" in missing.stderr
