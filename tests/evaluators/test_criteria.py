"""The three-tier framework's tier-2 judge criteria: its weighted formulas, and the judging protocol
(temperature 0, strict JSON on a 1-5 scale, one re-ask, retries, failures as values)."""

from __future__ import annotations

import json

import groq
import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from evaluators import (
    CRITERIA,
    assess_constructiveness,
    assess_planning_rationality,
    assess_technical_accuracy,
    criterion_score,
)

ASPECTS = {name: tuple(c.aspects) for name, c in CRITERIA.items()}
one_to_five = st.floats(1, 5, allow_nan=False)


def answer(criterion: str, scores, reasoning: str = "because", **extra) -> str:
    return json.dumps({"reasoning": reasoning, **dict(zip(ASPECTS[criterion], scores, strict=True)), **extra})


@pytest.mark.parametrize(("criterion", "scores", "expected"), [
    # (0.5·4 + 0.3·3 + 0.2·2) / 5
    ("technical_accuracy", (4, 3, 2), (0.5 * 4 + 0.3 * 3 + 0.2 * 2) / 5),
    # (4 + 3 + 2) / 15
    ("constructiveness", (4, 3, 2), 9 / 15),
    # (0.3·4 + 0.5·3 + 0.2·2) / 5
    ("planning_rationality", (4, 3, 2), (0.3 * 4 + 0.5 * 3 + 0.2 * 2) / 5),
    ("technical_accuracy", (5, 5, 5), 1.0),
    ("constructiveness", (1, 1, 1), 0.2),
])
def test_each_criterion_is_the_seeds_weighted_formula(criterion, scores, expected):
    assert criterion_score(criterion, dict(zip(ASPECTS[criterion], scores, strict=True))) == pytest.approx(expected)


@given(criterion=st.sampled_from(sorted(CRITERIA)), scores=st.tuples(one_to_five, one_to_five, one_to_five))
def test_scores_from_1_to_5_give_0_2_to_1_not_the_0_to_1_the_seed_states(criterion, scores):
    value = criterion_score(criterion, dict(zip(ASPECTS[criterion], scores, strict=True)))
    assert 0.2 - 1e-12 <= value <= 1.0 + 1e-12


@given(criterion=st.sampled_from(sorted(CRITERIA)), scores=st.tuples(one_to_five, one_to_five, one_to_five),
       which=st.integers(0, 2), raise_by=st.floats(0, 4, allow_nan=False))
def test_a_better_aspect_never_lowers_the_criterion(criterion, scores, which, raise_by):
    before = dict(zip(ASPECTS[criterion], scores, strict=True))
    after = dict(before)
    aspect = ASPECTS[criterion][which]
    after[aspect] = min(5.0, after[aspect] + raise_by)
    assert criterion_score(criterion, after) >= criterion_score(criterion, before) - 1e-12


@given(scores=st.permutations((1.0, 2.5, 4.0)))
def test_constructiveness_weighs_its_aspects_equally(scores):
    assert criterion_score("constructiveness", dict(zip(ASPECTS["constructiveness"], scores))) == pytest.approx(0.5)


@pytest.mark.parametrize("scores", [
    {},
    {"factual_correctness": 3, "methodology_understanding": 3},
    {"factual_correctness": 0, "methodology_understanding": 3, "domain_knowledge": 3},
    {"factual_correctness": 6, "methodology_understanding": 3, "domain_knowledge": 3},
    {"factual_correctness": "high", "methodology_understanding": 3, "domain_knowledge": 3},
])
def test_missing_or_out_of_range_aspects_are_an_error(scores):
    with pytest.raises(ValueError):
        criterion_score("technical_accuracy", scores)


def test_an_unknown_criterion_is_an_error():
    with pytest.raises(ValueError, match="technical_accuracy"):
        criterion_score("helpfulness", {})


def test_technical_accuracy_judges_the_output_against_the_first_2000_characters_of_its_source(scripted):
    model = scripted(answer("technical_accuracy", (4, 3, 2), reasoning="claims match"))
    source = "S" * 2_000 + "TAIL-NOT-SHOWN"
    r = assess_technical_accuracy(model, source, "the agent's summary", retry_wait=0)
    assert r.status == "ok" and r.error is None and r.criterion == "technical_accuracy"
    assert dict(r.scores) == {"factual_correctness": 4, "methodology_understanding": 3, "domain_knowledge": 2}
    assert r.overall == pytest.approx(criterion_score("technical_accuracy", r.scores))
    assert r.reasoning == "claims match" and r.calls == 1 and r.total_tokens == 120
    assert r.model == "llama-3.3-70b-versatile"
    (messages, temperature), = model.seen
    assert temperature == 0.0
    prompt = messages[-1].content
    assert "S" * 2_000 in prompt and "TAIL-NOT-SHOWN" not in prompt and "the agent's summary" in prompt
    assert all(aspect in messages[0].content for aspect in ASPECTS["technical_accuracy"])


def test_constructiveness_and_planning_rationality(scripted):
    r = assess_constructiveness(scripted(answer("constructiveness", (5, 4, 3))), "Add a covenant.", retry_wait=0)
    assert r.status == "ok" and r.overall == pytest.approx(12 / 15)
    trace = [{"step": 1, "node": "create_plan", "tools": ["sec_filings"]}, {"step": 2, "node": "fetch"}]
    model = scripted(answer("planning_rationality", (4, 5, 3)))
    r = assess_planning_rationality(model, trace, retry_wait=0)
    assert r.status == "ok" and r.overall == pytest.approx((0.3 * 4 + 0.5 * 5 + 0.2 * 3) / 5)
    assert "sec_filings" in model.seen[0][0][-1].content


def test_an_unparsable_answer_is_asked_again_once_with_the_error(scripted):
    model = scripted("I'd say about four", answer("constructiveness", (3, 3, 3)))
    r = assess_constructiveness(model, "output", retry_wait=0)
    assert r.status == "ok" and r.calls == 2 and r.overall == pytest.approx(0.6)
    reask = model.seen[1][0][-1].content
    assert "could not be parsed" in reask and "from 1 to 5" in reask


def test_a_score_outside_1_to_5_twice_is_an_error_result_not_an_exception(scripted):
    bad = answer("constructiveness", (7, 3, 3))
    r = assess_constructiveness(scripted(bad, bad), "output", retry_wait=0)
    assert r.status == "error" and r.overall is None and set(r.scores.values()) == {None}
    assert "unparsable" in r.error and r.calls == 2


def test_a_rate_limit_is_retried_and_an_exhausted_retry_is_an_error_result(scripted):
    request = httpx.Request("POST", "http://127.0.0.1/openai/v1/chat/completions")
    limited = groq.RateLimitError("rate limit reached", response=httpx.Response(429, request=request), body=None)
    r = assess_constructiveness(scripted(limited, answer("constructiveness", (4, 4, 4))), "output", retry_wait=0)
    assert r.status == "ok" and r.overall == pytest.approx(0.8)
    r = assess_constructiveness(scripted(limited, limited), "output", max_retries=1, retry_wait=0)
    assert r.status == "error" and "RateLimitError" in r.error


def test_empty_inputs_are_an_error(scripted):
    with pytest.raises(ValueError):
        assess_technical_accuracy(scripted(), "", "output")
    with pytest.raises(ValueError):
        assess_constructiveness(scripted(), "   ")
    with pytest.raises(ValueError):
        assess_planning_rationality(scripted(), [])
