"""The HTML report as a file: self-contained, its data safe inside its script, the runs it
picks, every call's payloads whole up to a generous limit (packed in blocks, repeats kept
once), the experiment summaries and the comparison of two experiments."""

from __future__ import annotations

import base64
import gzip
import json
import re

import pytest
from langchain_core.tools import tool

from harness import Harness, Store
from harness.view.experiments import comparison_html, summaries_html, summarise
from harness.view.report import BLOCK_RUNS, FIELD_CHARS, PAYLOAD_KEYS, render, select_runs, tabled, write_report
from harness.view import load_runs
from tests.harness import graphs

from .conftest import page_json

#: ``Comparison.to_dict()`` as ``harness compare --json`` prints it.
COMPARISON = {
    "a": "base", "b": "cand", "alpha": 0.05, "paired_cases": 30, "unpaired": {"a_only": [], "b_only": ["c31", "c32"]},
    "gate": ["pass_rate", "answer_score"],
    "warnings": ["2 case(s) only in cand, left out: c31, c32", "the datasets differ: base used sha256 1a2b…"],
    "metrics": [
        {"name": "pass_rate", "higher_is_better": True, "gated": True, "n": 30, "a": 1.0, "b": 0.6, "delta": -0.4,
         "ci_low": -0.57, "ci_high": -0.23, "ci_level": 0.9, "p_worse": 0.000244, "p_better": 1.0,
         "p_value": 0.000488, "test": "exact_binomial_discordant", "margin": 0.05, "effect_size": -0.4,
         "verdict": "regressed", "needed_cases": None},
        {"name": "answer_score", "higher_is_better": True, "gated": True, "n": 12, "a": 0.8, "b": 0.78,
         "delta": -0.02, "ci_low": None, "ci_high": 0.04, "ci_level": 0.9, "p_worse": 0.2, "p_better": 0.85,
         "p_value": 0.4, "test": "sign_flip_exact", "margin": 0.05, "effect_size": -0.02,
         "verdict": "inconclusive", "needed_cases": 412},
        {"name": "latency_ms", "higher_is_better": False, "gated": False, "n": 30, "a": 1520.0, "b": 1710.5,
         "delta": 190.5, "ci_low": 90.0, "ci_high": 290.25, "ci_level": 0.9, "p_worse": 0.0012, "p_better": 0.999,
         "p_value": 0.0012, "test": "sign_flip_sampled", "margin": 152.0, "effect_size": 0.61,
         "verdict": "regressed", "needed_cases": None},
        {"name": "total_cost", "higher_is_better": False, "gated": False, "n": 30, "a": 0.0021, "b": 0.00205,
         "delta": -0.00005, "ci_low": -0.0001, "ci_high": 0.0001, "ci_level": 0.9, "p_worse": 0.41, "p_better": 0.7,
         "p_value": 0.41, "test": "sign_flip_sampled", "margin": 0.00021, "effect_size": -0.1,
         "verdict": "no_change", "needed_cases": None},
    ],
    "regressed": True, "inconclusive": True,
}


def _details(page: str) -> list:
    """Every run's details, unpacked as the page does: blocks of runs, each row's payloads
    looked up in its block's values."""
    found = re.search(r"<script type=application/octet-stream id=report-details data-encoding=gzip\+base64>"
                      r"([A-Za-z0-9+/=,]*)</script>", page)
    assert found, "no inline details"
    runs = []
    for text in found.group(1).split(","):
        block = json.loads(gzip.decompress(base64.b64decode(text)))
        for run in block["runs"]:
            for row in run["rows"]:
                row.update((key, block["values"][row[key]]) for key in PAYLOAD_KEYS if key in row)
        runs += block["runs"]
    return runs


def test_the_report_needs_nothing_from_the_network(recorded, tmp_path):
    page = write_report(Store(recorded.path), tmp_path / "r.html").path.read_text()
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)
    assert "@import" not in page and not re.search(r"url\((?!#)", page)
    assert page.count("<script") == 3 and "<script src" not in page and "<link" not in page


def test_every_run_carries_its_waterfall_rows_and_scores(recorded, tmp_path):
    page = write_report(Store(recorded.path), tmp_path / "r.html").path.read_text()
    runs = {r["id"]: r for r in page_json(page, "report-data")["runs"]}
    details = dict(zip(runs, _details(page)))
    assert list(runs) == [recorded.failed, recorded.agent, recorded.credit]  # newest first
    for run_id, detail in details.items():
        kinds = {}
        for entry in detail["rows"]:
            kinds[("node", "llm", "tool")[entry["k"]]] = kinds.get(("node", "llm", "tool")[entry["k"]], 0) + 1
        assert kinds == dict(recorded.entries(run_id))
    node, tool = details[recorded.failed]["rows"]
    assert (node["st"], node["err"]) == ("error", "ValueError: backend unavailable for q")
    assert tool["in"] == {"query": "q"} and ", in broken\n" in tool["tb"] and "out" not in tool
    assert (details[recorded.agent]["rows"][4]["in"], details[recorded.agent]["rows"][4]["out"]) == (
        {"query": "facts!"}, {"query": "facts!", "hits": 3})
    assert details[recorded.credit]["scores"]["judge"]["overall"] > 0
    assert details[recorded.agent]["scores"]["tool_selection"] == {"f1": 1.0}
    assert details[recorded.agent]["span"] > 0


def test_a_call_is_carried_whole_up_to_the_field_limit_and_cut_visibly_beyond_it(tmp_path):
    @tool
    def long_text(size: int) -> str:
        """A text of ``size`` characters, each line numbered."""
        lines = "".join(f"line {i:05d} of the output\n" for i in range(size // 24 + 1))
        return lines[:size]

    model = graphs.fake_model("the answer")
    h = Harness(tmp_path / "runs.db", writer="inline")

    def node(state, config):
        model.invoke("a question " + "with many words " * 800, config)
        long_text.invoke({"size": 5_000}, config)
        long_text.invoke({"size": FIELD_CHARS + 5_000}, config)
        return {"log": ["done"]}

    with h.run(subject="long") as run:
        graphs.single_node(node).invoke({"log": []}, run.config)
    h.flush()
    page = write_report(Store(tmp_path / "runs.db"), tmp_path / "r.html").path.read_text()
    node_row, llm, whole, cut = _details(page)[0]["rows"]
    assert llm["in"] == "human: a question " + "with many words " * 800  # the prompt whole, not its preview
    assert llm["out"] == "the answer" and llm["pt"] == 11
    assert whole["out"] == long_text.invoke({"size": 5_000})
    assert len(cut["out"]) == FIELD_CHARS and cut["out"].endswith(f"…[truncated, {FIELD_CHARS}+ chars]")
    assert cut["out"].startswith('"line 00000 of the output\\n')  # cut JSON is its text


def test_payloads_repeated_in_a_block_are_kept_once_beside_those_like_them():
    def run(text: str) -> dict:
        return {"rows": [{"k": 0, "n": "plan", "in": text, "out": {"n": 1}}, {"k": 2, "n": "look", "in": "q"}]}

    block = tabled([run("same state"), run("same state"), run("another state")])
    assert block["values"] == ["same state", "another state", {"n": 1}, {"n": 1}, {"n": 1}, "q"]
    assert [r["rows"][0]["in"] for r in block["runs"]] == [0, 0, 1]
    assert [r["rows"][1]["in"] for r in block["runs"]] == [5, 5, 5]


def test_the_details_of_many_runs_come_in_blocks(many, tmp_path):
    page = write_report(Store(many), tmp_path / "many.html").path.read_text()
    found = re.search(r"data-encoding=gzip\+base64>([A-Za-z0-9+/=,]*)</script>", page)
    assert found.group(1).count(",") + 1 == -(-1_503 // BLOCK_RUNS) and page_json(page, "report-data")["block"] == BLOCK_RUNS
    assert len(_details(page)) == 1_503


def test_text_from_a_run_cannot_end_the_script_it_sits_in(tmp_path):
    store = Store(tmp_path / "x.db")
    store.write("runs", [{"run_id": "r1", "status": "failed", "error": "</script><script>alert(1)</script>",
                          "company_name": "<b>Acme</b>"}])
    page = write_report(store, tmp_path / "x.html").path.read_text()
    assert "<script>alert(1)" not in page and "<b>Acme" not in page
    assert page_json(page, "report-data")["runs"][0]["err"] == "</script><script>alert(1)</script>"


def test_a_report_holds_the_runs_named_or_those_of_the_experiments_or_the_newest(many, recorded):
    store = Store(many)
    newest, selected = select_runs(store, limit=10)
    assert len(newest) == 10 and selected == 1_503
    assert newest == [r["run_id"] for r in store.rows("runs", columns=["run_id"], newest_first=True, limit=10)]
    base, selected = select_runs(store, experiments=["base"], limit=None)
    assert selected == len(base) == 750
    assert {r["experiment"] for r in store.rows("runs", base, columns=["experiment"])} == {"base"}
    named, _ = select_runs(store, run_ids=[recorded.credit, recorded.agent], experiments=["cand"], limit=None)
    assert named[:2] == [recorded.agent, recorded.credit] and len(named) == 752


def test_an_experiment_summary_counts_runs_times_tokens_costs_and_scores():
    rows = [{"status": "completed", "case_id": "c1", "total_time_ms": 100.0, "total_tokens": 10, "total_cost": 0.5,
             "evaluation_score": 0.5},
            {"status": "completed", "case_id": "c1", "total_time_ms": 300.0, "total_tokens": 30, "total_cost": None,
             "evaluation_score": 1.0},
            {"status": "failed", "case_id": "c2", "total_time_ms": 200.0, "total_tokens": None, "total_cost": 0.25,
             "evaluation_score": None}]
    s = summarise("base", rows)
    assert (s.runs, s.completed, s.failed, s.cases) == (3, 2, 1, 2)
    assert s.latency_median_ms == 200.0 and s.latency_p95_ms == pytest.approx(290.0)
    assert (s.tokens_total, s.tokens_mean) == (40, 20.0)
    assert (s.cost_total, s.priced) == (0.75, 2) and (s.score_mean, s.scored) == (0.75, 2)


def test_an_experiment_without_evaluations_is_summarised_and_plotted_by_its_answer_checks(compared):
    store = Store(compared.path)
    views = list(load_runs(store, store.run_ids()[::-1]))
    experiment_of = {r["run_id"]: r["experiment"] for r in store.rows("runs", columns=["run_id", "experiment"])}
    answers = [(experiment_of[r["run_id"]], r["value"])
               for r in store.rows("scores", where={"name": "answer"}, columns=["run_id", "value"])]
    store.close()
    section = render(views, source="s")
    section = section[section.index("<section id=experiments>"):section.index("</section>")]
    assert "Score (mean)" in section and "no evaluation or answer scores" not in section
    for name in ("base", "cand"):
        values = [v for e, v in answers if e == name]
        runs = sum(e == name for e in experiment_of.values())
        assert 0 < len(values) < runs  # the case without an answer check has no score
        row = re.search(rf"<tr><td>{name}</td>(.*?)</tr>", section)[1]
        assert f"{sum(values) / len(values):.2f} <span class=muted>({len(values):,} of {runs:,} scored)" in row


def test_runs_with_neither_an_evaluation_nor_an_answer_check_say_so():
    rows = [{"experiment": "plain", "status": "completed", "case_id": "c1", "total_time_ms": 5.0}]
    assert summarise("plain", rows).scored == 0
    assert "no evaluation or answer scores" in summaries_html([summarise("plain", rows)], rows)


def test_experiments_are_summarised_side_by_side_only_when_the_runs_have_them(many, recorded):
    views = list(load_runs(Store(many), Store(many).run_ids()[-40:]))
    for asked, shown in (((), ["base", "cand"]), (("cand", "base"), ["cand", "base"])):
        page = render(views, source="s", experiments=asked)
        section = page[page.index("<section id=experiments>"):page.index("</section>")]
        assert re.findall(r"<tr><td>(\w+)</td>", section) == shown and section.count("<svg") == 2
    plain = render(list(load_runs(Store(recorded.path), [recorded.agent])), source="s")
    assert "id=experiments" not in plain and "id=compare" not in plain


def test_a_comparison_shows_each_metric_with_its_interval_test_and_verdict():
    section = comparison_html(COMPARISON)
    assert "Comparison: base → cand" in section and "30 paired cases" in section
    assert "warning</span> 2 case(s) only in cand, left out: c31, c32" in section
    assert "the datasets differ: base used sha256 1a2b…" in section
    rows = re.findall(r"<tr class='verdict-(\w+)'[^>]*>(.*?)</tr>", section)
    assert [verdict for verdict, _ in rows] == ["regressed", "inconclusive", "regressed", "no_change"]
    pass_rate, answer, latency, cost = (row for _, row in rows)
    assert "<td>gate</td>" in pass_rate and "<td class=num>1</td><td class=num>0.6</td><td class=num>−0.4</td>" in pass_rate
    assert "[−0.57, −0.23]" in pass_rate and "exact_<wbr>binomial_<wbr>discordant" in pass_rate and "0.00049 worse" in pass_rate
    assert "<span class='badge regressed'>regressed</span>" in pass_rate and "90% CI" in section
    assert "[−∞, +0.04]" in answer and "<span class='badge inconclusive'>" in answer
    assert "1.52 s" in latency and "+190 ms" in latency and "[+90 ms, +290 ms]" in latency and "±152 ms" in latency
    # A metric that does not gate is reported, never in the gate's colours.
    assert "<td>no</td>" in latency and "<span class='badge ungated'>regressed</span>" in latency
    assert "not gating" in latency and "badge regressed" not in latency
    assert "$0.0021" in cost and "[−$0.0001, +$0.0001]" in cost and "0.410 worse" in cost
    assert all(row.count("<svg class=ci-plot") == 1 for _, row in rows)
    assert "e-0" not in section and "e+0" not in section


def test_a_comparison_says_what_the_gate_decided_in_the_words_of_harness_compare():
    from harness.view.comparison import gate_state, needed_sentence

    section = comparison_html(COMPARISON)
    assert "<span class='badge regressed'>gate</span> regressed: pass_rate" in section
    assert "2 gated metrics (pass_rate, answer_score): their verdicts and p use Holm-adjusted p-values" in section
    sentence = needed_sentence(COMPARISON["metrics"][1], COMPARISON, lambda v, signed: f"{v:+g}" if signed else f"{v:g}")
    assert sentence == ("answer_score: inconclusive: about 412 paired cases like these would show a change as large as "
                        "the margin (±0.05) 80% of the time at alpha 0.05 / 2 (Holm, 2 gated metrics); there are 12")
    assert "about 412 paired cases like these would show a change as large as the margin (±0.05)" in section
    lost = {**COMPARISON, "metrics": [dict(COMPARISON["metrics"][0], verdict="no_change", missing_data_fails=True,
                                           cases=30, cases_lost=4)]}
    assert gate_state(lost) == ("missing_data", "missing data: pass_rate")
    assert ("pass_rate: 4 of 30 paired case(s) have no value on one side (more than 10% fails the gate): the gate "
            "cannot pass on data it does not have") in comparison_html(lost)
    quiet = {**COMPARISON, "metrics": [dict(m, verdict="no_change") for m in COMPARISON["metrics"]]}
    assert gate_state(quiet) == ("passed", "no gated metric regressed (pass_rate: no_change, answer_score: no_change)")
    assert "badge regressed" not in comparison_html(quiet).split("<table")[0]
    for verdict in ("regressed", "improved", "no_change", "inconclusive"):
        assert verdict in section.split("</table>")[1]  # what each verdict means


def test_the_interval_is_drawn_around_zero_on_the_side_the_delta_lies():
    section = comparison_html(COMPARISON)
    lines = re.findall(r"<line class=ci x1=([\d.]+) y1=9 x2=([\d.]+)", section)
    dots = [float(x) for x in re.findall(r"<circle cx=([\d.]+)", section)]
    (low1, high1), (low2, high2), (low3, high3), (low4, high4) = [(float(a), float(b)) for a, b in lines]
    assert low1 < high1 < 80 and dots[0] < 80  # wholly below zero (the centre, x = 80)
    assert low2 == 6 and high2 > 80  # an unbounded end runs to the edge
    assert 80 < low3 < high3  # wholly above zero
    assert low4 < 80 < high4  # inside the margin around zero


def test_a_comparison_row_carries_its_metric_verdict_and_p_value_for_machines_to_read():
    section = comparison_html(COMPARISON)
    rows = re.findall(r"<tr class='verdict-\w+' data-metric='(\w+)' data-verdict='(\w+)' data-p-value='([^']*)'>",
                      section)
    assert rows[0] == ("pass_rate", "regressed", "0.000488") and rows[1] == ("answer_score", "inconclusive", "0.4")
