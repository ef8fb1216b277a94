"""compare --pairwise: a judge sees both experiments' answers to each case in both orders; its
preference gates like compare's verdicts, its calls are traced and costed, and a judge with a
known position bias is measured as such."""

from __future__ import annotations

import json
import random
import textwrap
from dataclasses import dataclass

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from evaluators import clopper_pearson
from harness import Score
from harness.experiment.errors import ExperimentError
from harness.experiment.pairwise import PairwiseJudge, verdict_of
from tests.support.groq_server import serve_groq
from workflows import make_model

from .judged import cli, numbered_cases, numbered_graph


@pytest.fixture
def h(thread_harness):
    return thread_harness


def two(h, broken=(), cases=40):
    h.experiment("base", numbered_graph(), numbered_cases(cases))
    h.experiment("cand", numbered_graph(broken=broken), numbered_cases(cases))


def test_the_built_in_judge_prefers_the_right_answers_and_the_gate_says_regressed(h, capsys):
    two(h, broken=range(0, 40, 4))
    code, out, _ = cli(f"harness compare base cand --pairwise builtin --fail-on-regression --store {h.store.display}",
                       capsys)
    assert code == 1
    for words in ("pairwise judge offline-analyst-1: 40 case(s), 40 judgement(s) in both orders",
                  "base in 10, 30 tie(s)", "position flips: 0 of 40", "verdict: regressed",
                  "gate: regressed: the judge prefers base to cand", "80 model call(s)"):
        assert words in out
    code, out, _ = cli(f"harness compare base cand --pairwise builtin --json --store {h.store.display}", capsys)
    found = json.loads(out)
    judged = found["pairwise"]
    assert code == 0 and found["regressed"] is True and found["gate"] == []
    assert (judged["wins"], judged["losses"], judged["ties"], judged["verdict"]) == (0, 10, 30, "regressed")
    assert judged["p_worse"] == pytest.approx(0.5 ** 10) and judged["test"] == "exact_sign_test"
    assert (judged["judge_runs"]["model_calls"], judged["judge"]) == (80, "offline-analyst-1")


def test_identical_answers_keep_one_half_inside_the_win_interval(h):
    two(h)
    judged = h.compare("base", "cand", pairwise=make_model(temperature=0)).pairwise
    p = judged.to_dict()
    assert (p["wins"], p["losses"], p["ties"]) == (0, 0, 40)
    low, high = p["win_rate_ci"]
    assert p["ci_level"] == pytest.approx(0.9) and low <= 0.5 <= high
    assert judged.verdict == "inconclusive" and not judged.regressed


def test_the_judges_calls_are_traced_as_runs_of_their_own_with_a_score_each(h):
    two(h, broken=[0], cases=4)
    judged = h.compare("base", "cand", pairwise=make_model(temperature=0)).pairwise
    runs = list(h.store.rows("runs", columns=["run_id", "workflow", "case_id", "status", "total_tokens"],
                             where={"experiment": judged.experiment}))
    assert len(runs) == 4 and {r["workflow"] for r in runs} == {"pairwise_judge"}
    assert {r["status"] for r in runs} == {"completed"}
    ids = [r["run_id"] for r in runs]
    assert len(list(h.store.rows("llm_calls", ids))) == 8 == judged.calls
    assert judged.tokens == sum(r["total_tokens"] for r in runs) > 0
    scores = {r["run_id"]: r for r in h.store.rows("scores", ids, where={"name": "pairwise"})}
    by_case = {r["case_id"]: scores[r["run_id"]]["value"] for r in runs}
    assert by_case == {"c0": 0.0, "c1": 0.5, "c2": 0.5, "c3": 0.5}
    first = next(r["run_id"] for r in runs if r["case_id"] == "c0")
    assert scores[first]["explanation"].startswith("A first: a (word overlap")
    assert h.store.experiment_record(judged.experiment)["compared"] == ["base", "cand"]


def test_a_judge_on_groq_is_traced_and_its_cost_counted(h, monkeypatch, capsys):
    two(h, broken=[1, 2], cases=6)
    with serve_groq() as groq:
        monkeypatch.setenv("HARNESS_PROVIDER", "groq")
        monkeypatch.setenv("GROQ_API_KEY", "gsk_test_key_for_the_local_server")
        monkeypatch.setenv("GROQ_API_BASE", groq.url)
        code, out, _ = cli(f"harness compare base cand --pairwise builtin --json --store {h.store.display}", capsys)
    judged = json.loads(out)["pairwise"]
    assert code == 0 and judged["judge"] == "llama-3.3-70b-versatile" and groq.completions == 12
    assert (judged["wins"], judged["losses"]) == (0, 2)
    runs = [r["run_id"] for r in h.store.rows("runs", columns=["run_id"],
                                               where={"experiment": judged["judge_runs"]["experiment"]})]
    calls = list(h.store.rows("llm_calls", runs, columns=["model", "total_cost"]))
    assert {c["model"] for c in calls} == {"llama-3.3-70b-versatile"} and len(calls) == 12
    assert judged["judge_runs"]["cost"] == pytest.approx(sum(c["total_cost"] for c in calls)) and judged[
        "judge_runs"]["cost"] > 0


@dataclass
class Verdict:
    verdict: str
    explanation: str


def test_a_users_judge_function_by_module_and_a_score_like_answer(h, tmp_path, monkeypatch, capsys):
    two(h, broken=[5], cases=8)
    (tmp_path / "my_judges.py").write_text(textwrap.dedent('''
        from dataclasses import dataclass

        @dataclass
        class Verdict:
            verdict: str
            explanation: str

        def prefer(case, answer_a, answer_b):
            right = case.reference_answer
            if (answer_a == right) == (answer_b == right):
                return Verdict("tie", "both alike")
            return Verdict("a" if answer_a == right else "b", "the right number")
    '''))
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    code, out, _ = cli(f"harness compare base cand --pairwise my_judges:prefer --json --store {h.store.display}",
                       capsys)
    judged = json.loads(out)["pairwise"]
    assert code == 0 and judged["judge"] == "my_judges:prefer" and (judged["losses"], judged["ties"]) == (1, 7)
    run = next(h.store.rows("runs", columns=["run_id"], where={"experiment": judged["judge_runs"]["experiment"],
                                                               "case_id": "c5"}))
    (score,) = h.store.rows("scores", [run["run_id"]], where={"name": "pairwise"})
    assert "the right number" in score["explanation"] and score["source"] == "code"
    code, _, err = cli(f"harness compare base cand --pairwise my_judges:nothing --store {h.store.display}", capsys)
    assert code == 2 and "--pairwise my_judges:nothing" in err
    code, _, err = cli(f"harness compare base cand --pairwise builtin --gate pass_rate --store {h.store.display}",
                       capsys)
    assert code == 2 and "leave out --gate" in err


def test_a_judge_that_calls_a_model_without_a_config_is_still_traced(h):
    two(h, cases=3)
    model = GenericFakeChatModel(messages=iter([AIMessage("tie")] * 6))

    def ask_a_model(case, answer_a, answer_b):
        return model.invoke(f"which is better: {answer_a} or {answer_b}?").content

    judged = h.compare("base", "cand", pairwise=ask_a_model).pairwise
    runs = [r["run_id"] for r in h.store.rows("runs", columns=["run_id"], where={"experiment": judged.experiment})]
    assert judged.calls == 6 == len(list(h.store.rows("llm_calls", runs)))


def test_failed_judgements_are_left_out_and_counted(h):
    two(h, cases=6)

    async def flaky(case, answer_a, answer_b):
        if case.id == "c2":
            raise RuntimeError("the judge timed out")
        return "maybe" if case.id == "c3" else {"verdict": "tie", "explanation": "same"}

    judged = h.compare("base", "cand", pairwise=flaky).pairwise
    assert (judged.preference.n, judged.failed) == (4, 2)
    assert any("the judge timed out" in e for e in judged.errors)
    assert any("not 'maybe'" in e for e in judged.errors)
    with pytest.raises(ExperimentError, match="the judge failed on every pair"):
        h.compare("base", "cand", pairwise=lambda case, a, b: 1 / 0)


def test_a_judge_with_a_known_position_bias_is_measured_as_such(h):
    # The candidate is right on every case and the baseline wrong; 30% of the time the judge
    # names whichever answer it is shown first. A judgement flips exactly when that happens
    # while the baseline is shown first: the true flip rate is 0.3.
    h.experiment("base", numbered_graph(broken=range(100)), numbered_cases(100))
    h.experiment("cand", numbered_graph(), numbered_cases(100))
    rng = random.Random(7)

    def biased(case, first, second):
        if rng.random() < 0.3:
            return "a"
        return "a" if first == case.reference_answer else "b"

    p = h.compare("base", "cand", pairwise=biased, concurrency=1).pairwise.preference
    low, high = clopper_pearson(p.flips, p.judgements, 0.95)
    assert low <= 0.3 <= high
    assert p.first_position == p.flips and p.second_position == 0
    assert p.losses == 0 and p.verdict == "improved"


def test_what_a_judge_may_answer():
    assert verdict_of("A") == ("a", "") and verdict_of(" tie ") == ("tie", "")
    assert verdict_of({"winner": "b", "reasoning": "clearer"}) == ("b", "clearer")
    assert verdict_of(Verdict("first", "shown first")) == ("a", "shown first")
    assert verdict_of(Score("b", explanation="clearer")) == ("b", "clearer")
    for bad in ("maybe", 1, None, {"verdict": "both"}):
        with pytest.raises(ValueError, match="'a', 'b' or 'tie'"):
            verdict_of(bad)
    assert isinstance(PairwiseJudge("x", lambda c, a, b: ("a", "")), PairwiseJudge)
