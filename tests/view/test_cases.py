"""The compare view's data: each experiment's cases carried once (pass, answer, scores,
latency, tokens; repeats reduced to their mean), the experiments it pairs (the newest, up to
a cap), and every ordered pair's statistics as ``harness compare`` gives them."""

from __future__ import annotations

import json
import re
import sqlite3

from harness import Store
from harness.experiment.compare import compare_experiments
from harness.view import load_runs
from harness.view.cases import CaseTable
from harness.view.report import render

from .conftest import page_json


def _table(path, **options) -> CaseTable:
    store = Store(path)
    table = CaseTable(**options)
    for index, view in enumerate(load_runs(store, store.run_ids()[::-1])):  # newest first, as a report reads
        table.add(index, view)
    store.close()
    return table


def _sqlite(path, query: str, *args) -> list[tuple]:
    with sqlite3.connect(path) as db:
        return db.execute(query, args).fetchall()


def test_a_case_carries_each_sides_pass_answer_scores_latency_and_tokens(compared):
    data = _table(compared.path).data()
    base = {c["id"]: c for c in data["base"]["cases"]}
    cand = {c["id"]: c for c in data["cand"]["cases"]}
    assert (base["q0"]["p"], cand["q0"]["p"]) == (1.0, 0.0)
    assert (base["q0"]["ans"], cand["q0"]["ans"]) == ("The capital is Paris.", "The capital is Springfield.")
    names = data["cand"]["names"]
    assert {"completed", "answer", "short_answer", "reviewed"} <= set(names)
    score = dict(zip(names, cand["q0"]["s"]))
    assert score["answer"] == [0.0, 0.0] and score["short_answer"] == [4.0, 1.0] and score["reviewed"] == [0.0, 0.0]
    assert dict(zip(names, cand["q1"]["s"]))["reviewed"] is None  # only q0 was labelled
    (latency, tokens), = _sqlite(compared.path, "SELECT total_time_ms, total_tokens FROM runs WHERE run_id = ?",
                                 compared.cand["q0"])
    assert cand["q0"]["ms"] == latency and cand["q0"]["tok"] == tokens


def test_cases_come_in_the_order_they_ran(compared):
    data = _table(compared.path).data()
    assert [c["id"] for c in data["base"]["cases"]] == [*(f"q{i}" for i in range(8)), "plain", "atlantis", "spring"]


def test_a_cases_repeats_are_reduced_to_their_mean(compared):
    q0 = _table(compared.path).data()["twice"]["cases"][0]
    assert q0["id"] == "q0" and len(q0["runs"]) == 2
    assert (q0["p"], q0["pn"]) == (0.5, 2)  # one of its two runs was labelled a fail


def test_without_an_answer_check_the_answer_is_the_last_ai_message_of_the_output(compared):
    plain = next(c for c in _table(compared.path).data()["cand"]["cases"] if c["id"] == "plain")
    assert plain["ans"] == "The capital is Springfield."


def test_the_view_pairs_the_newest_experiments_up_to_its_cap_and_names_the_others(compared):
    table = _table(compared.path, limit=2)
    assert table.experiments == ["twice", "cand"] and table.left_out == ["base"]
    assert table.default_pair() == ("cand", "twice")  # B: the newest
    named = _table(compared.path, named=["base", "cand"])
    assert named.experiments == ["base", "cand"] and named.default_pair() == ("base", "cand")
    assert set(named.data()) == {"base", "cand"}


def test_every_ordered_pair_is_compared_once_and_each_experiments_cases_are_carried_once(compared):
    store = Store(compared.path)
    asked = []

    def compare(a: str, b: str) -> dict:
        asked.append((a, b))
        return compare_experiments(store, a, b).to_dict()

    page = render(load_runs(store, store.run_ids()[::-1]), source="s", compare=compare)
    names = ["twice", "cand", "base"]
    assert sorted(asked) == sorted((a, b) for a in names for b in names if a != b)
    assert len(re.findall(r"<template id=cmp-\d-\d>", page)) == 6
    assert set(page_json(page, "report-cases")) == set(names)  # per experiment, not per pair
    assert page.count("id=report-cases") == 1


def test_a_pairs_template_holds_the_statistics_of_harness_compare(compared):
    store = Store(compared.path)
    page = render(load_runs(store, store.run_ids()[::-1]), source="s",
                  compare=lambda a, b: compare_experiments(store, a, b).to_dict())
    expected = compare_experiments(store, "base", "cand").to_dict()
    template = re.search(r"<template id=cmp-2-1>(.*?)</template>", page, re.S).group(1)  # base is 2nd, cand 1st
    assert "Comparison: base → cand" in template
    for m in expected["metrics"]:
        assert (f"data-metric='{m['name']}' data-verdict='{m['verdict']}' data-p-value='{m['p_value']!r}'"
                in template), m["name"]
    for warning in expected["warnings"]:
        assert warning in template.replace("&#x27;", "'")


def test_without_a_compare_function_the_view_shows_the_cases_and_no_statistics(compared):
    store = Store(compared.path)
    page = render(load_runs(store, store.run_ids()[::-1]), source="s")
    assert "<template id=" not in page and set(page_json(page, "report-cases")) == {"twice", "cand", "base"}
    assert "id=compare>" in page


def test_fewer_than_two_experiments_make_no_compare_view(compared):
    store = Store(compared.path)
    page = render(load_runs(store, list(compared.base.values())), source="s", compare=lambda a, b: {})
    assert "id=compare>" not in page and "id=report-cases" not in page


def test_the_view_names_the_experiments_it_leaves_out(compared):
    from harness.view.cases import compare_view

    view = compare_view(_table(compared.path, limit=2), None, json.dumps)
    assert "1 older experiment(s) (base) are summarised above and not paired here" in view.section
    assert view.data == {"experiments": ["twice", "cand"], "default": [1, 0], "stats": False}
