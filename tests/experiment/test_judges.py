"""Judges you can trust: labels by several people, a score's agreement with them (harness
agreement, h.agreement), the runs most worth labelling (label --queue / --import), and a
compare gate that knows how far its judge agrees with people."""

from __future__ import annotations

import json
import sqlite3

import pytest
from sklearn.metrics import cohen_kappa_score

from harness import Store
from harness.store.migrations import SCHEMA_VERSION
from harness.experiment.agreement import AgreementError, remembered
from harness.experiment.compare import ExperimentRuns
from harness.experiment.instruments import GateRefused
from harness.store.migrations import SCHEMA_VERSION

from .judged import (BOB_DIFFERS, CASES, HELPFUL, JUDGE_WRONG, cli, helpful_judge, label_everyone, numbered_cases,
                     numbered_graph)


@pytest.fixture
def h(thread_harness):
    return thread_harness


@pytest.fixture
def labelled(h):
    """Experiment ``base`` scored by the scripted judge, every run labelled by alice and bob."""
    h.experiment("base", numbered_graph(), numbered_cases(), scorers=[helpful_judge])
    return label_everyone(h, "base")


def judge_passes(runs):
    return {run: (n in HELPFUL) != (n in JUDGE_WRONG) for run, n in runs.items()}


# --- labels by several people ---------------------------------------------------------------------

def test_labels_by_several_people_stand_side_by_side_and_each_replaces_only_its_own(h):
    h.experiment("base", numbered_graph(), numbered_cases(2))
    run = next(r["run_id"] for r in h.store.rows("runs", columns=["run_id"]))
    h.label(run, "tone", 4, by="alice")
    h.label(run, "tone", 2, by="bob")
    h.label(run, "tone", 5, by="alice", comment="on second reading")
    h.label(run, "tone", 3)
    rows = sorted((r["rater"] or "", r["value"], r["explanation"] or "")
                  for r in h.store.rows("scores", [run], where={"name": "tone"}))
    assert rows == [("", 3.0, ""), ("alice", 5.0, "on second reading"), ("bob", 2.0, "")]
    assert ExperimentRuns(h.store, "base").scores()["tone"][run] == pytest.approx((5 + 2 + 3) / 3)


def test_a_run_passes_only_when_every_persons_pass_fail_label_holds(h):
    h.experiment("base", numbered_graph(), numbered_cases(1))
    run = next(r["run_id"] for r in h.store.rows("runs", columns=["run_id"]))
    h.label(run, "helpful", True, by="alice")
    assert next(h.store.rows("runs", [run], columns=["passed"]))["passed"] == 1
    h.label(run, "helpful", False, by="bob")
    assert next(h.store.rows("runs", [run], columns=["passed"]))["passed"] == 0


def test_show_and_the_cli_name_who_labelled(h, capsys):
    h.experiment("base", numbered_graph(), numbered_cases(1))
    run = next(r["run_id"] for r in h.store.rows("runs", columns=["run_id"]))
    store = h.store.display
    code, out, _ = cli(f"harness label {run[:8]} helpful=true --by alice --store {store}", capsys)
    assert code == 0 and "label helpful = pass by alice" in out
    code, out, _ = cli(f"harness show {run[:8]} --store {store}", capsys)
    assert "helpful (by alice)" in out
    code, _, err = cli(f"harness label {run[:8]} helpful=true --by '' --store {store}", capsys)
    assert code == 2 and "--by" in err and err.count("\n") == 1


def test_a_store_of_the_previous_version_gains_the_rater_column_and_keeps_its_scores(tmp_path):
    path = tmp_path / "old.db"
    store = Store(path)
    store.write("scores", [{"run_id": "r1", "name": "helpful", "value": 1.0, "passed": 1, "source": "human",
                            "row_key": "r1:score:helpful"}])
    store.close()
    with sqlite3.connect(path) as conn:
        conn.execute('ALTER TABLE scores DROP COLUMN "rater"')
        conn.execute("UPDATE harness_meta SET value = '8' WHERE key = 'schema_version'")
    reopened = Store(path)
    assert [(r["name"], r["value"], r["rater"]) for r in reopened.rows("scores")] == [("helpful", 1.0, None)]
    assert reopened.meta("schema_version") == str(SCHEMA_VERSION)  # (this and any later version)


# --- agreement ------------------------------------------------------------------------------------

def test_agreement_compares_the_score_with_every_persons_label_as_scikit_learn_would(h, labelled):
    found = h.agreement("helpful_judge", "helpful")
    judge = judge_passes(labelled)
    pairs = [(judge[run], (n in HELPFUL) != (who == "bob" and n in BOB_DIFFERS))
             for run, n in labelled.items() for who in ("alice", "bob")]
    assert (found.n, found.pairs, found.headline) == (CASES, 2 * CASES, "kappa")
    assert found.estimate.value == pytest.approx(cohen_kappa_score([int(j) for j, _ in pairs],
                                                                   [int(p) for _, p in pairs]), abs=1e-12)
    assert found.estimate.low < found.estimate.value < found.estimate.high
    alice = h.agreement("helpful_judge", "helpful", by="alice")
    assert alice.estimate.value == pytest.approx(cohen_kappa_score(
        [int(judge[r]) for r in labelled], [int(n in HELPFUL) for n in labelled.values()]), abs=1e-12)
    assert {d["case_id"] for d in alice.disagreements} == {f"c{n}" for n in JUDGE_WRONG}
    assert all(d["experiment"] == "base" for d in alice.disagreements)
    assert remembered(h.store)["helpful_judge"]["label"] == "helpful"


def test_the_people_are_compared_with_each_other_and_with_the_judge(h, labelled):
    raters = h.agreement("helpful_judge", "helpful").raters
    runs = list(labelled.values())
    assert raters["person_vs_person"]["alice ~ bob"]["value"] == pytest.approx(cohen_kappa_score(
        [int(n in HELPFUL) for n in runs], [int((n in HELPFUL) != (n in BOB_DIFFERS)) for n in runs]), abs=1e-12)
    assert raters["fleiss_kappa"]["n"] == CASES and raters["krippendorff_alpha"]["value"] is not None


def test_agreement_over_one_experiment_only_and_its_errors(h, labelled):
    h.experiment("other", numbered_graph(), numbered_cases(5), scorers=[helpful_judge])
    assert h.agreement("helpful_judge", "helpful", experiments=["base"]).n == CASES
    with pytest.raises(AgreementError, match="no run of 'other' has a label named 'helpful'"):
        h.agreement("helpful_judge", "helpful", experiments=["other"])
    with pytest.raises(AgreementError, match=r"no run has a label named 'kind' \(labels in the store: helpful\)"):
        h.agreement("helpful_judge", "kind")
    with pytest.raises(AgreementError, match="has a score named 'missing'"):
        h.agreement("missing", "helpful")
    with pytest.raises(AgreementError, match="weights"):
        h.agreement("helpful_judge", "helpful", weights="cubic")


def test_harness_agreement_prints_the_figures_and_json(h, labelled, capsys):
    store = h.store.display
    code, out, _ = cli(f"harness agreement helpful_judge --against helpful --store {store}", capsys)
    assert code == 0
    for words in ("Cohen's κ (passes)", "raw agreement", "confusion", "people: alice, bob", "Fleiss' κ",
                  "Krippendorff's α", "where they disagree most", "remembered"):
        assert words in out
    code, out, _ = cli(f"harness agreement helpful_judge --against helpful --by alice --json --store {store}", capsys)
    found = json.loads(out)
    assert code == 0 and found["headline"]["statistic"] == "kappa" and found["by"] == "alice"
    assert found["passes"]["raw_agreement"]["value"] == pytest.approx(1 - len(JUDGE_WRONG) / CASES)
    assert found["passes"]["raw_agreement"]["ci_method"] == "exact"
    code, _, err = cli(f"harness agreement helpful_judge --against nothing --store {store}", capsys)
    assert code == 2 and "no run has a label named 'nothing'" in err and err.count("\n") == 1


# --- the queue and the import --------------------------------------------------------------------

def test_the_queue_puts_disagreements_then_failures_then_the_judges_doubts_then_a_sample(h, tmp_path, capsys):
    broken, failing = {3, 4, 6}, {12}
    h.experiment("cand", numbered_graph(broken=broken, failing=failing), numbered_cases(), scorers=[helpful_judge])
    out_file = tmp_path / "queue.jsonl"
    code, out, _ = cli(f"harness label --queue cand --name helpful --n 20 --out {out_file} "
                       f"--store {h.store.display}", capsys)
    assert code == 0 and "20 run(s) of cand to label helpful" in out
    lines = [json.loads(line) for line in out_file.read_text().splitlines()]
    picked = [line["picked"] for line in lines]
    # The answer check fails the broken and the failed cases; the judge passes what it finds helpful.
    judge = {n: (n in HELPFUL) != (n in JUDGE_WRONG) for n in range(CASES)}
    rule = {n: n not in broken | failing for n in range(CASES)}
    disagree = {f"c{n}" for n in range(CASES) if judge[n] != rule[n]}
    assert {line["case_id"] for line in lines if line["picked"] == "judge and rule disagree"} == disagree
    assert [line["case_id"] for line in lines if line["picked"] == "failure"] == ["c12"]
    assert picked == sorted(picked, key=["judge and rule disagree", "failure", "near the threshold",
                                          "random sample"].index)
    assert picked.count("random sample") == 20 // 4 and len(set(line["run_id"] for line in lines)) == 20
    first = lines[0]
    assert set(first) >= {"run_id", "case_id", "reason", "input", "output", "answer", "scores", "label", "by"}
    assert first["label"] == {"helpful": None} and first["scores"]["helpful_judge"]["source"] == "llm"
    assert "helpful_judge" in first["reason"] and "answer" in first["reason"]


def test_a_filled_queue_is_imported_whole_or_not_at_all(h, tmp_path, capsys):
    h.experiment("base", numbered_graph(), numbered_cases(8), scorers=[helpful_judge])
    store = h.store.display
    queue = tmp_path / "queue.jsonl"
    assert cli(f"harness label --queue base --name helpful --n 8 --out {queue} --store {store}", capsys)[0] == 0
    lines = [json.loads(line) for line in queue.read_text().splitlines()]
    for line in lines[:6]:
        line["label"]["helpful"] = int(line["case_id"][1:]) in HELPFUL
    lines[0]["comment"] = "clear and right"
    good = tmp_path / "filled.jsonl"
    good.write_text("".join(json.dumps(line) + "\n" for line in lines))
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(json.dumps({**line, "label": {"helpful": "maybe"}} if i == 3 else line) + "\n"
                           for i, line in enumerate(lines)))
    code, _, err = cli(f"harness label --import {bad} --by carol --store {store}", capsys)
    assert code == 2 and f"{bad}:4: label 'helpful'" in err and err.count("\n") == 1
    assert not list(h.store.rows("scores", where={"name": "helpful"}))
    code, out, _ = cli(f"harness label --import {good} --by carol --store {store}", capsys)
    assert code == 0 and "stored 6 label(s)" in out and "2 left unfilled" in out
    stored = list(h.store.rows("scores", where={"name": "helpful"}))
    assert {r["rater"] for r in stored} == {"carol"} and len(stored) == 6
    assert "clear and right" in {r["explanation"] for r in stored}
    code, out, _ = cli(f"harness label --queue base --name helpful --n 8 --by carol --out {queue} --store {store}",
                       capsys)
    assert "2 run(s)" in out  # what carol labelled is not queued again


def test_import_refuses_a_label_named_like_a_scorers_score_and_a_person_twice(h, tmp_path, capsys):
    h.experiment("base", numbered_graph(), numbered_cases(2), scorers=[helpful_judge])
    run = next(r["run_id"] for r in h.store.rows("runs", columns=["run_id"]))
    path = tmp_path / "labels.jsonl"
    path.write_text(json.dumps({"run_id": run, "label": {"helpful_judge": True}}) + "\n")
    code, _, err = cli(f"harness label --import {path} --store {h.store.display}", capsys)
    assert code == 2 and "already has a llm score named 'helpful_judge'" in err
    path.write_text(json.dumps({"run_id": run, "label": {"x": True}, "by": "ann"}) + "\n")
    code, _, err = cli(f"harness label --import {path} --by bob --store {h.store.display}", capsys)
    assert code == 2 and "the line is by 'ann' but --by says 'bob'" in err
    code, _, err = cli(f"harness label --store {h.store.display}", capsys)
    assert code == 2 and "give RUN NAME=VALUE" in err


# --- the gate knows its instrument ------------------------------------------------------------------

def test_compare_prints_the_judges_agreement_and_refuses_a_gate_below_it(h, labelled, capsys):
    h.experiment("cand", numbered_graph(), numbered_cases(), scorers=[helpful_judge])
    h.agreement("helpful_judge", "helpful")
    store = h.store.display
    code, out, _ = cli(f"harness compare base cand --gate helpful_judge --store {store}", capsys)
    assert code == 0 and "helpful_judge against helpful: Cohen's κ" in out and "n 40" in out
    code, out, _ = cli(f"harness compare base cand --gate helpful_judge --json --store {store}", capsys)
    (found,) = json.loads(out)["agreement"]
    assert found["score"] == "helpful_judge" and found["headline"]["n"] == CASES
    low = found["headline"]["ci_low"]
    code, _, err = cli(f"harness compare base cand --gate helpful_judge --min-agreement {low + 0.01:.3f} "
                       f"--store {store}", capsys)
    assert code == 2 and "refusing to gate on helpful_judge" in err and err.count("\n") == 1
    code, _, _ = cli(f"harness compare base cand --gate helpful_judge --min-agreement {low - 0.01:.3f} "
                     f"--store {store}", capsys)
    assert code == 0
    code, _, err = cli(f"harness compare base cand --gate helpful_judge --min-agreement 0.1 --min-labels 41 "
                       f"--store {store}", capsys)
    assert code == 2 and "only 40 run(s) labelled helpful" in err


def test_a_judge_nobody_has_checked_cannot_gate_with_min_agreement(h):
    h.experiment("base", numbered_graph(), numbered_cases(4), scorers=[helpful_judge])
    h.experiment("cand", numbered_graph(), numbered_cases(4), scorers=[helpful_judge])
    assert h.compare("base", "cand", gate=["helpful_judge"]).agreements == ()
    with pytest.raises(GateRefused, match="its agreement with people is unknown"):
        h.compare("base", "cand", gate=["helpful_judge"], min_agreement=0.6)
    assert not h.compare("base", "cand", gate=["pass_rate"], min_agreement=0.6).regressed  # no judge gates


def test_against_names_the_label_without_a_remembered_agreement(h, labelled):
    h.experiment("cand", numbered_graph(), numbered_cases(), scorers=[helpful_judge])
    compared = h.compare("base", "cand", gate=["helpful_judge"], against="helpful")
    (found,) = compared.agreements
    assert found["label"] == "helpful" and found["n"] == CASES
    assert "agreement" in compared.to_dict()
    with pytest.raises(AgreementError):
        h.compare("base", "cand", gate=["helpful_judge"], against="nobody")


def test_the_report_shows_each_judges_agreement_and_the_audit_recomputes_it(h, labelled, tmp_path, capsys):
    kappa = h.agreement("helpful_judge", "helpful").to_dict()["headline"]
    store = h.store.display
    report = tmp_path / "report.html"
    assert cli(f"harness report --store {store} --out {report}", capsys)[0] == 0
    page = report.read_text()
    assert "<section id=judges>" in page and f"{kappa['value']:.2f} [{kappa['ci_low']:.2f}, " in page
    assert '"judges": {"helpful_judge": "Cohen' in page.replace("\\u2019", "'") or '"judges":{"helpful_judge"' in page
    workbook = tmp_path / "all.xlsx"
    assert cli(f"harness export --out {workbook} --store {store}", capsys)[0] == 0
    code, out, _ = cli(f"harness audit {workbook} --json", capsys)
    audited = json.loads(out)
    assert code == 0, audited["findings"][:3]
    (found,) = [a for a in audited["agreement"] if a["score"] == "helpful_judge" and a["label"] == "helpful"]
    assert found["headline"]["value"] == pytest.approx(kappa["value"], abs=1e-12)
    assert (found["headline"]["ci_low"], found["headline"]["ci_high"]) == pytest.approx(
        (kappa["ci_low"], kappa["ci_high"]), abs=1e-12)
