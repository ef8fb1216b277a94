"""Names that key what is stored (experiments, workflows, scores, labels) are refused, in one
line and before anything is stored, when they hold a secret (stored as given, two names with
different keys would become one) or a character that hides or reorders text."""

from __future__ import annotations

import json
import sqlite3
import sys

import pytest

from harness import Harness
from harness.cli import main
from harness.experiment.errors import ExperimentError
from harness.secrets.names import UnsafeName, check_name
from tests.support.secrets import GITHUB_KEY, OPENAI_KEY

from . import graphs

KEY_A, KEY_B = OPENAI_KEY, OPENAI_KEY.replace("X", "Y")

UNSAFE = {
    "a provider key": f"nightly {OPENAI_KEY}",
    "a key after a name": f"tone token={GITHUB_KEY}",
    "an environment secret": "run with envsecret-0123456789",
    "a right-to-left override": "nightly\u202eevil",
    "an isolate": "nightly\u2066x\u2069",
    "a zero-width space": "night\u200bly",
    "a line separator": "nightly\u2028run",
    "a control character": "nightly\x1b[2J",
}
SAFE = ["nightly", "nightly-2026-01-01", "Überprüfung café", "日本語の実験", "key findings", "token count", "a b"]


@pytest.mark.parametrize("kind", ["experiment", "workflow", "score", "label"])
@pytest.mark.parametrize("case", sorted(UNSAFE))
def test_a_name_with_a_secret_or_a_hidden_character_is_refused_in_one_line_without_the_secret(kind, case,
                                                                                              monkeypatch):
    monkeypatch.setenv("ACME_API_KEY", "envsecret-0123456789")
    with pytest.raises(UnsafeName) as refused:
        check_name(kind, UNSAFE[case])
    message = str(refused.value)
    assert "\n" not in message and kind in message
    assert OPENAI_KEY not in message and GITHUB_KEY not in message and "envsecret" not in message
    assert not any(char in message for char in "\u202e\u2066\u200b\u2028\x1b")


@pytest.mark.parametrize("name", SAFE)
def test_ordinary_names_in_any_script_are_taken(name):
    assert check_name("experiment", name) == name


def _stored(path, sql: str) -> list:
    with sqlite3.connect(path) as connection:
        return connection.execute(sql).fetchall()


def _cli(capsys, *args: str) -> tuple[int, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(list(args))
    return exit_info.value.code, capsys.readouterr().err


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "g.py").write_text("from tests.harness import graphs\n\ndef app():\n    return graphs.sequential()\n")
    for module in ("g", "keyed"):  # this test's own, not an earlier test's
        monkeypatch.delitem(sys.modules, module, raising=False)
    (tmp_path / "cases.jsonl").write_text("".join(json.dumps({"id": f"c{i}", "input": {"question": "q"}}) + "\n"
                                                  for i in range(3)))
    (tmp_path / "keyed.py").write_text(
        "def keyed(run, case):\n"
        f"    return {{'key {KEY_A}': 1, 'key {KEY_B}': 0}}\n")
    return tmp_path


@pytest.mark.parametrize("name", [f"nightly {KEY_A}", "nightly\u202eevil"])
def test_wrap_refuses_an_experiment_named_with_a_key_before_anything_is_stored(project, capsys, name):
    code, err = _cli(capsys, "wrap", "g:app", "--dataset", "cases.jsonl", "--experiment", name,
                     "--store", "runs.db")
    assert code == 2 and err.count("\n") == 1 and KEY_A not in err and "\u202e" not in err, err
    assert not (project / "runs.db").exists() or _stored(project / "runs.db", "SELECT count(*) FROM runs") == [(0,)]


def test_the_api_refuses_an_experiment_and_a_workflow_named_with_a_key(tmp_path):
    harness = Harness(store=tmp_path / "runs.db", writer="inline")
    with pytest.raises(ExperimentError, match="may not hold a secret"):
        harness.experiment(f"nightly {KEY_A}", graphs.sequential(), [{"id": "c", "input": {"question": "q"}}])
    with pytest.raises(ValueError, match="may not hold a secret"):
        harness.run(subject="x", workflow=f"agent {KEY_A}")
    harness.close()
    assert _stored(tmp_path / "runs.db", "SELECT count(*) FROM runs") == [(0,)]
    assert _stored(tmp_path / "runs.db", "SELECT count(*) FROM experiments") == [(0,)]


def test_scores_a_scorer_names_with_keys_are_refused_and_none_of_them_is_stored_or_counted(project, capsys):
    code, err = _cli(capsys, "wrap", "g:app", "--dataset", "cases.jsonl", "--experiment", "base", "--store", "runs.db")
    assert code == 0, err
    code, err = _cli(capsys, "rescore", "base", "--scorer", "keyed:keyed", "--store", "runs.db")
    assert code == 2 and err.count("\n") == 1 and "score name may not hold a secret" in err, err
    assert KEY_A not in err and KEY_B not in err and "written" not in err
    names = {name for (name,) in _stored(project / "runs.db", "SELECT DISTINCT name FROM scores")}
    assert not any("key" in name for name in names), names


def test_a_label_named_with_a_key_is_refused_and_nothing_is_written(project, capsys):
    code, err = _cli(capsys, "wrap", "g:app", "--input", '{"question": "q"}', "--store", "runs.db")
    assert code == 0, err
    [(run_id,)] = _stored(project / "runs.db", "SELECT run_id FROM runs")
    for name in (f"tone {KEY_A}", f"tone {KEY_B}", "tone\u202e"):
        code, err = _cli(capsys, "label", run_id[:8], f"{name}=4", "--store", "runs.db")
        assert code == 2 and err.count("\n") == 1 and "a label name" in err, err
        assert KEY_A not in err and KEY_B not in err
    assert _stored(project / "runs.db", "SELECT count(*) FROM scores WHERE source = 'human'") == [(0,)]
