"""Your own scorers, re-scoring stored runs and human labels: one model for every judgement."""

from __future__ import annotations

import asyncio
import json
import textwrap

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

import harness.scorers as scorers
from harness import Harness, Score
from harness.experiment.errors import ExperimentError
from tests.support.cli import harness_cli

from .agents import react_agent
from .test_runner import capital_cases


@pytest.fixture
def h(thread_harness):
    return thread_harness


def scores_of(h, experiment):
    """(case, score name) -> the score row."""
    runs = {r["run_id"]: r["case_id"] for r in h.store.rows("runs", columns=["run_id", "case_id"],
                                                             where={"experiment": experiment})}
    return {(runs[r["run_id"]], r["name"]): r for r in h.store.rows("scores", list(runs))}


def passes(h, experiment):
    return {r["case_id"]: r["passed"] for r in h.store.rows("runs", columns=["case_id", "passed"],
                                                             where={"experiment": experiment})}


def called_capital_of_right(run, case):
    """The tool-argument check of the README: the tool was called with the case's country."""
    country = case.input["messages"][0][1].rstrip("?").split()[-1]
    return any(c.name == "capital_of" and c.args == {"country": country} for c in run.tool_calls)


async def under_8_words(run, case):
    await asyncio.sleep(0)
    words = len((run.answer or "").split())
    return Score(words, words < 8, f"{words} words")


def test_a_sync_and_an_async_scorer_score_every_run_with_their_names_and_gate_its_pass(h):
    e = h.experiment("base", react_agent(), capital_cases(), scorers=[called_capital_of_right, under_8_words])
    scored = scores_of(h, "base")
    assert {scored[(f"q{i}", "called_capital_of_right")]["value"] for i in range(4)} == {1.0}
    assert {scored[(f"q{i}", "called_capital_of_right")]["passed"] for i in range(4)} == {1}
    words = scored[("q0", "under_8_words")]
    assert (words["value"], words["passed"], words["explanation"], words["source"]) == (4.0, 1, "4 words", "code")
    assert words["scorer"].endswith(":under_8_words")
    assert set(passes(h, "base").values()) == {1}
    assert e.scoring.runs == 4 and e.scoring.scores == 8 and e.scoring.failed == 0


def test_a_scorer_that_fails_gives_an_error_score_whose_pass_is_unknown_and_the_others_go_on(h):
    def raises(run, case):
        raise KeyError("no such field")

    def not_a_number(run, case):
        return float("nan")

    def infinite(run, case):
        return Score(value=float("inf"))

    def wrong_type(run, case):
        return ["a", "list"]

    e = h.experiment("base", react_agent(), capital_cases(2),
                     scorers=[raises, not_a_number, infinite, wrong_type, called_capital_of_right])
    scored = scores_of(h, "base")
    for name, error in (("raises", "KeyError: 'no such field'"), ("not_a_number", "not a finite number"),
                        ("infinite", "not a finite number"), ("wrong_type", "not list")):
        row = scored[("q0", name)]
        assert row["value"] is None and row["passed"] is None and error in row["error"], (name, row)
    assert scored[("q1", "called_capital_of_right")]["passed"] == 1  # the others went on
    assert set(passes(h, "base").values()) == {None}  # an error score leaves the run's pass unknown, never failed
    assert e.scoring.failed == 8
    assert e.scoring.errored == {"raises": 2, "not_a_number": 2, "infinite": 2, "wrong_type": 2}


def test_a_dict_scorer_names_its_scores_and_a_bool_is_a_value_and_a_pass(h):
    def several(run, case):
        return {"tools_called": len(run.tool_calls), "answered": run.answer is not None,
                "judged": Score(0.5, None, "half", name="ignored inside a dict")}

    h.experiment("base", react_agent(), capital_cases(1), scorers=[several])
    scored = scores_of(h, "base")
    assert scored[("q0", "tools_called")]["value"] == 1.0 and scored[("q0", "tools_called")]["passed"] is None
    assert (scored[("q0", "answered")]["value"], scored[("q0", "answered")]["passed"]) == (1.0, 1)
    assert scored[("q0", "judged")]["value"] == 0.5


def test_the_run_a_scorer_sees_is_what_the_store_recorded(h):
    seen = []

    def look(run, case):
        seen.append((run, case))
        return 1

    h.experiment("base", react_agent(), capital_cases(1), scorers=[look])
    (run, case), = seen
    assert run.status == "completed" and run.answer == "The capital is Paris."
    assert run.trajectory == ("call_model", "tools", "call_model")
    assert [c.name for c in run.tool_calls] == ["capital_of"] and run.tool_calls[0].output == "Paris"
    assert [m["type"] for m in run.messages] == ["human", "ai", "tool", "ai"]
    assert [c.total_tokens for c in run.llm_calls] == [50, 50] and run.total_tokens == 100
    assert run.latency_ms > 0 and run.case_id == "q0" and run.inputs == case.input
    assert case.reference_answer == "Paris" and case.expected_tools == ("capital_of",)


def test_scorers_run_outside_the_graphs_trace(h):
    judge_model = GenericFakeChatModel(messages=iter([AIMessage('{"reasoning": "fine", "score": 9}')] * 10))
    before = None

    def counting(run, case):
        nonlocal before
        before = (h.store.count("llm_calls"), h.store.count("tool_calls"))
        return 1

    h.experiment("base", react_agent(), capital_cases(1),
                 scorers=[counting, scorers.trajectory_judge(judge_model, ["call_model", "tools", "call_model"])])
    assert (h.store.count("llm_calls"), h.store.count("tool_calls")) == before == (2, 1)
    row = scores_of(h, "base")[("q0", "trajectory_judge")]
    assert (row["value"], row["passed"], row["source"]) == (0.9, 1, "llm")  # a judge's score


def test_a_scorer_named_like_a_built_in_check_replaces_it(h):
    h.experiment("base", react_agent(), capital_cases(1), scorers=[scorers.tool_f1(["capital_of", "search"],
                                                                                  require=True)])
    row = scores_of(h, "base")[("q0", "tool_f1")]
    assert row["scorer"] == "harness.scorers:tool_f1" and row["passed"] == 0 and row["value"] == pytest.approx(2 / 3)
    assert passes(h, "base") == {"q0": 0}


def test_two_scorers_of_one_name_are_refused_before_anything_runs(h):
    with pytest.raises(ExperimentError, match="two scorers are named 'contains'"):
        h.experiment("base", react_agent(), capital_cases(1), scorers=[scorers.contains("a"), scorers.contains("b")])
    assert h.store.count("runs") == 0


def test_rescoring_scores_stored_runs_without_running_the_graph(h):
    h.experiment("base", react_agent(), capital_cases(), scorers=[called_capital_of_right])
    counted = {sheet: h.store.count(sheet) for sheet in ("runs", "llm_calls", "tool_calls", "langgraph_events")}
    summary = h.rescore("base", [under_8_words, scorers.contains("Paris", name="says_paris")])
    assert summary.runs == 4 and summary.scores == 8
    assert {sheet: h.store.count(sheet) for sheet in counted} == counted
    scored = scores_of(h, "base")
    assert [scored[(f"q{i}", "says_paris")]["passed"] for i in range(4)] == [1, 0, 0, 0]
    assert passes(h, "base") == {"q0": 1, "q1": 0, "q2": 0, "q3": 0}  # runs.passed followed


def test_a_name_already_scored_is_refused_unless_replace(h):
    h.experiment("base", react_agent(), capital_cases(2), scorers=[called_capital_of_right])

    def called_capital_of_right_v2(run, case):
        return False
    called_capital_of_right_v2.score_name = "called_capital_of_right"
    with pytest.raises(ExperimentError, match="already has scores named 'called_capital_of_right'.*--replace"):
        h.rescore("base", [called_capital_of_right_v2])
    h.rescore("base", [called_capital_of_right_v2], replace=True)
    assert {r["passed"] for r in scores_of(h, "base").values() if r["name"] == "called_capital_of_right"} == {0}
    assert set(passes(h, "base").values()) == {0}


def test_rescoring_an_unknown_experiment_is_an_error(h):
    with pytest.raises(ExperimentError, match="no experiment 'nope'"):
        h.rescore("nope", [under_8_words])


def test_rescoring_works_on_postgresql(pg_url):
    h = Harness(pg_url, writer="thread")
    try:
        h.experiment("base", react_agent(), capital_cases(2))
        h.rescore("base", [scorers.contains("Paris", name="says_paris")])
        assert passes(h, "base") == {"q0": 1, "q1": 0}
        h.label(next(iter(h.store.rows("runs", columns=["run_id"], where={"case_id": "q1"})))["run_id"],
                "reviewed", "true")
        assert scores_of(h, "base")[("q1", "reviewed")]["source"] == "human"
    finally:
        h.close()


def test_labels_are_pass_fail_or_a_value_and_replace_only_labels(h):
    e = h.experiment("base", react_agent(), capital_cases(1))
    run_id = e.run_ids[0]
    assert passes(h, "base") == {"q0": 1}
    row = h.label(run_id[:6], "helpful", "false", comment="misses the point")
    assert (row["value"], row["passed"], row["source"], row["explanation"]) == (0.0, 0, "human", "misses the point")
    assert passes(h, "base") == {"q0": 0}
    h.label(run_id, "helpful", True)
    assert passes(h, "base") == {"q0": 1}
    assert h.label(run_id, "tone", 4)["passed"] is None
    with pytest.raises(ValueError, match="already has a rule score named 'answer'"):
        h.label(run_id, "answer", "false")
    with pytest.raises(ValueError, match="true/false"):
        h.label(run_id, "tone", "lovely")
    with pytest.raises(ValueError, match="non-empty"):
        h.label(run_id, "  ", "true")


@pytest.mark.parametrize("factory, expected", [
    (scorers.exact("The capital is Paris."), (1.0, True)),
    (scorers.contains(["Lyon", "paris"]), (1.0, True)),
    (scorers.regex(r"capital is \w+\."), (1.0, True)),
    (scorers.numeric(3, tolerance=0.5), (0.0, False)),
    (scorers.contains(), (1.0, True)),  # the case's reference_answer
    (scorers.tool_f1(), (1.0, None)),  # the case's expected_tools
    (scorers.trajectory_match(["call_model", "tools", "call_model"]), (1.0, None)),
    (scorers.completed(), (1.0, True)),
])
def test_the_built_in_scorers_are_factories_of_the_same_checks(h, factory, expected):
    h.experiment("base", react_agent(), capital_cases(1), scorers=[factory])
    row = scores_of(h, "base")[("q0", factory.__name__)]
    assert (row["value"], None if row["passed"] is None else bool(row["passed"])) == expected


def test_a_judge_scorer_that_cannot_answer_is_an_error_never_a_zero(h):
    silent = GenericFakeChatModel(messages=iter([AIMessage("no json here")] * 20))
    h.experiment("base", react_agent(), capital_cases(1), scorers=[scorers.judge(silent, "Paris")])
    row = scores_of(h, "base")[("q0", "judge")]
    assert row["value"] is None and row["passed"] is None and "the judge failed" in row["error"]


SCORERS_MODULE = """
    from harness import Score

    def short(run, case):
        return Score(len((run.answer or "").split()), None, "words")

    def broken(run, case):
        raise RuntimeError("scorer bug")
"""


def cli(project, *args):
    return harness_cli(*args, cwd=project)


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """A directory with a graph, scorers and a dataset, and a store holding experiment ``base``
    of that graph (run once, by the command line)."""
    path = tmp_path_factory.mktemp("project")
    (path / "my_scorers.py").write_text(textwrap.dedent(SCORERS_MODULE))
    (path / "agent_module.py").write_text("from tests.experiment.agents import react_agent\napp = react_agent()\n")
    (path / "cases.jsonl").write_text("\n".join(json.dumps(c) for c in capital_cases(2)) + "\n")
    (path / "tests").symlink_to(__import__("pathlib").Path(__file__).parents[1])
    done = cli(path, "wrap", "agent_module:app", "--dataset", "cases.jsonl", "--experiment", "base", "--store", "runs.db")
    assert done.returncode == 0, done.stderr
    return path


def test_wrap_scores_with_scorers_named_on_the_command_line(project):
    done = cli(project, "wrap", "agent_module:app", "--dataset", "cases.jsonl", "--experiment", "scored",
               "--scorer", "my_scorers:short", "--scorer", "my_scorers:broken", "--store", "runs.db")
    assert done.returncode == 1, done.stderr  # a score could not be made: the command says so, the runs are kept
    assert "code score short: 2 run(s), mean 4.00" in done.stdout
    assert "code score broken: 2 run(s), 2 not scored" in done.stdout
    assert "passed 0/2, 2 unknown (a score could not be made)" in done.stdout
    assert "score broken could not be made for 2 run(s)" in done.stderr and "RuntimeError: scorer bug" in done.stderr
    assert "harness: 2 score(s) could not be made: broken 2; the runs and every other score are stored" in done.stderr


def test_rescore_and_label_from_the_command_line(project):
    done = cli(project, "rescore", "base", "--scorer", "my_scorers:short", "--store", "runs.db")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("rescored experiment base: 2 run(s), 2 score(s) written")
    again = cli(project, "rescore", "base", "--scorer", "my_scorers:short", "--store", "runs.db")
    assert again.returncode == 2 and "already has scores named 'short'" in again.stderr and "--replace" in again.stderr
    assert cli(project, "rescore", "base", "--scorer", "my_scorers:short", "--replace", "--store",
               "runs.db").returncode == 0
    run_id = json.loads(cli(project, "list", "--json", "--experiment", "base", "--store", "runs.db").stdout)[0]["run_id"]
    done = cli(project, "label", run_id[:8], "helpful=false", "--comment", "wrong tone", "--store", "runs.db")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"run {run_id}: label helpful = fail (wrong tone); the run does not pass"
    listed = json.loads(cli(project, "list", "--json", "--store", "runs.db").stdout)
    assert {r["run_id"]: r["passed"] for r in listed}[run_id] == 0
    shown = cli(project, "show", run_id[:8], "--store", "runs.db")
    assert "helpful" in shown.stdout and "wrong tone" in shown.stdout and "human" in shown.stdout


@pytest.mark.parametrize("args, message", [
    (("rescore", "base", "--scorer", "nomodule:fn"), "cannot import 'nomodule'"),
    (("rescore", "base", "--scorer", "my_scorers:missing"), "has no 'missing'"),
    (("rescore", "base", "--scorer", "not-a-spec"), "MODULE:FUNCTION"),
    (("rescore", "nope", "--scorer", "my_scorers:short"), "no experiment 'nope'"),
    (("label", "0000", "x=true"), "no run '0000'"),
    (("label", "0000", "x"), "NAME=VALUE"),
])
def test_bad_scorer_and_label_input_is_one_line_and_exit_2(project, args, message):
    done = cli(project, *args, "--store", "runs.db")
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


def test_compare_takes_any_score_name_as_a_metric_and_can_gate_on_it(h):
    from .agents import react_agent

    def right(run, case):
        return run.answer is not None and case.reference_answer in run.answer

    cases = capital_cases(12)
    h.experiment("base", react_agent(), cases, scorers=[right])
    h.experiment("cand", react_agent(), cases, scorers=[right], context={"wrong": True})
    default = h.compare("base", "cand")
    assert "right" in [m.name for m in default.metrics]  # a user's own score is reported by default
    right_metric = default.metric("right")
    assert (right_metric.a, right_metric.b, right_metric.test) == (1.0, 0.0, "exact_binomial_discordant")
    assert not right_metric.gated and right_metric.verdict == "regressed"
    gated = h.compare("base", "cand", metrics=["right"], gate=["right"])
    assert gated.gate == ("right",) and gated.regressed and [m.name for m in gated.metrics] == ["right"]
    with pytest.raises(ValueError, match="unknown metric 'wrong'"):
        h.compare("base", "cand", metrics=["wrong"])


def test_a_human_label_is_a_metric_compare_can_read(h):
    for name in ("base", "cand"):
        e = h.experiment(name, react_agent(), capital_cases(2))
        for run_id, value in zip(e.run_ids, (4, 5) if name == "base" else (2, 3)):
            h.label(run_id, "tone", value)
    tone = h.compare("base", "cand", metrics=["tone"]).metric("tone")
    assert (tone.n, tone.a, tone.b) == (2, 4.5, 2.5) and tone.delta == pytest.approx(-2.0)


def test_what_a_scorer_or_a_label_says_is_redacted_before_it_is_stored(h):
    key = "sk-proj-" + "Q7x9Lm2Pz4Rt8Vw1Ks6Nb3Hd5Fg0Jc7Ye2Ua4Oi9Me1Tr6Wq3Zx"

    def leaks(run, case):
        raise PermissionError(f"invalid api key provided: {key}")

    def explains(run, case):
        return Score(1.0, True, f"checked with {key}")

    e = h.experiment("base", react_agent(), capital_cases(1), scorers=[leaks, explains])
    h.label(e.run_ids[0], "reviewed", "true", comment=f"pasted {key} by mistake")
    stored = json.dumps(list(h.store.rows("scores")))
    assert key not in stored and stored.count("[REDACTED]") == 3
