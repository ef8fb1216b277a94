"""Pass is defined once: list, h.experiments(), compare, the report and the audit agree on it,
on a store holding experiments, plain traced runs and credit runs."""

from __future__ import annotations

import json
import re

import pytest

from harness import Harness
from harness.audit import audit_frames
from harness.cli import main
from tests.harness import graphs

from .agents import react_agent
from .test_runner import capital_cases


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    """Two experiments (base passes every case; cand fails the even ones and one run crashes),
    three traced runs without checks, and two credit runs."""
    from workflows import BatchSettings, resolve_provider, run_batch

    path = tmp_path_factory.mktemp("mixed") / "runs.db"
    h = Harness(path, writer="inline")

    def odd_only(run, case):
        return int(case.id[1:]) % 2 == 1  # a user's scorer that fails the even cases

    h.experiment("base", react_agent(), capital_cases(8))
    h.experiment("cand", react_agent(), capital_cases(8), scorers=[odd_only])
    for _ in range(3):
        with h.run(subject="Acme", expected_tools=["lookup"]) as run:
            graphs.sequential().invoke({"question": "Acme"}, run.config)
    provider = resolve_provider("offline")
    run_batch(h, ["Acme Corp", "Vandelay Industries Inc"], BatchSettings(provider=provider, model=provider.primary))
    h.flush()
    return h


def cli(path, capsys, *args):
    with pytest.raises(SystemExit) as done:
        main([*args, "--store", str(path)])
    assert done.value.code == 0
    return capsys.readouterr().out


def test_list_experiments_compare_report_and_audit_agree(mixed, capsys, tmp_path):
    path = mixed.store.location
    listed = json.loads(cli(path, capsys, "list", "--json", "--limit", "0"))
    by_experiment: dict = {}
    for row in listed:
        by_experiment.setdefault(row["experiment"], []).append(row["passed"])
    assert by_experiment["base"] == [1] * 8 and sorted(by_experiment["cand"]) == [0] * 4 + [1] * 4
    assert by_experiment[None].count(None) == 3  # traced runs: no score gates them, no pass
    assert [p for p in by_experiment[None] if p is not None] == [1, 1]  # the credit runs: evaluation and log test

    table = mixed.experiments().set_index("name")
    assert (table.loc["base", "pass_rate"], table.loc["base", "runs_with_pass"]) == (1.0, 8)
    assert (table.loc["cand", "pass_rate"], table.loc["cand", "runs_with_pass"]) == (0.5, 8)

    comparison = mixed.compare("base", "cand").metric("pass_rate")
    assert (comparison.a, comparison.b, comparison.n) == (1.0, 0.5, 8)

    cli(path, capsys, "report", "--out", str(tmp_path / "report.html"))
    page = (tmp_path / "report.html").read_text()
    rates = dict(re.findall(r"<tr><td>(base|cand)</td>(?:<td class=num>[^<]*</td>){4}<td class=num>(\d+%)", page))
    assert rates == {"base": "100%", "cand": "50%"}

    audit = audit_frames(mixed.sheets())
    assert audit.findings == ()
    by_model = {g.key: g for g in audit.aggregates.by_model}
    assert (by_model["acme-mini-2026"].pass_rate, by_model["acme-mini-2026"].judged) == (0.75, 16)
    traced = by_model["llama-3.1-8b-instant"]
    assert (traced.runs, traced.judged, traced.pass_rate, traced.cost_of_pass) == (3, 0, None, None)
    credit = by_model["offline-analyst-1"]
    assert (credit.judged, credit.pass_rate) == (2, 1.0)
