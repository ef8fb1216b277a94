"""The heuristic response-quality metrics. The method's length example agrees with its formula and is
pinned literally; its coherence and vocabulary examples do not, and the formulas win."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evaluators import (
    coherence_score,
    completeness_score,
    length_score,
    quality_score,
    structure_score,
    vocabulary_score,
)

WORDS = st.lists(st.sampled_from(["the", "AI", "however", "it", "model", "data", "therefore", "sophisticated",
                                  "explain", "why", "?", ".", "\n\n", "learning", "is"]), max_size=40).map(" ".join)


def test_seed_002_length_example():
    # "What is AI?" has 3 words, optimal 7.5; a 9-word response scores 1 - ln(9/7.5) = 0.82
    response = "AI is artificial intelligence that simulates human thinking today."
    assert len(response.split()) == 9
    assert length_score("What is AI?", response) == pytest.approx(1 - math.log(9 / 7.5))
    assert round(length_score("What is AI?", response), 2) == 0.82


def test_length_at_optimum_is_one_and_far_off_is_zero():
    assert length_score("one two", "a b c d e") == pytest.approx(1.0)
    assert length_score("one two three four", "yes") == 0.0


def test_length_needs_a_prompt():
    with pytest.raises(ValueError, match="prompt has no words"):
        length_score("  ", "anything")


def test_coherence_follows_the_formula_not_the_seed_example():
    text = "The weather is nice today. However, it might rain later. Therefore, we should bring umbrellas."
    # connector min(2 / (3 * 0.3), 1) = 1, pronoun 1 (it follows "weather"), no topic shift
    assert coherence_score(text) == pytest.approx(1.0)


def test_coherence_of_unconnected_statements():
    # no connectors (0), no pronouns (1), two topic shifts in three sentences (1/3)
    assert coherence_score("Cats are animals. Pizza is food. Cars are vehicles.") == pytest.approx((0 + 1 + 1 / 3) / 3)


def test_coherence_counts_a_pronoun_without_antecedent_as_unclear():
    # "It" opens the text: unclear; connector 1/(2*0.3) capped at 1; no shift (pronoun ties)
    assert coherence_score("It is big. However, markets grew.") == pytest.approx((1 + 0 + 1) / 3)


def test_vocabulary_follows_the_formula_not_the_seed_example():
    text = "The sophisticated algorithm demonstrates remarkable efficiency and effectiveness."
    # diversity 8/8, sophistication 6/8 (six words longer than 6 letters), repetition 1
    assert vocabulary_score(text) == pytest.approx((1 + 0.75 + 1) / 3)


def test_vocabulary_penalises_words_used_more_than_three_times():
    # 'data' x4 of 6 words: diversity 3/6, sophistication 0, repetition 1 - 4/6
    assert vocabulary_score("data data data data is key") == pytest.approx((3 / 6 + 0 + 2 / 6) / 3)


def test_structure_of_the_seed_example():
    text = ("Artificial intelligence is transforming industries. It enables automation and improves efficiency. "
            "In conclusion, AI will continue to shape our future.")
    assert structure_score(text) == pytest.approx(1.0)


def test_structure_introduction_needs_a_topic_word_of_the_prompt():
    text = "The weather has been lovely this week. In conclusion, bring sunglasses along."
    assert structure_score(text, prompt="Explain credit risk") == pytest.approx((1 + 0 + 1) / 3)


def test_completeness_of_a_direct_answer():
    assert completeness_score("Explain machine learning.",
                              "Machine learning is a subset of artificial intelligence that enables computers to learn.") == 1.0


def test_completeness_of_an_irrelevant_answer_is_low():
    # keywords 0 matched, length part 5/7.5 capped; no questions (1); the task's object unmentioned (0)
    got = completeness_score("Explain machine learning.", "The weather is nice today.")
    assert got == pytest.approx((0.4 * 5 / 7.5 + 1 + 0) / 3)


def test_completeness_answers_questions():
    prompt = "What drives revenue? Why did margins fall?"
    assert completeness_score(prompt, "Revenue is driven by subscriptions and grew.") < completeness_score(
        prompt, "Revenue is driven by subscriptions; margins fell on costs.")


def test_empty_response_scores_zero_everywhere():
    q = quality_score("Explain credit risk.", "")
    assert (q.coherence, q.completeness, q.length, q.structure, q.vocabulary, q.overall) == (0, 0, 0, 0, 0, 0)


def test_quality_score_default_weights():
    prompt, response = "Explain credit risk.", "Credit risk is the chance a borrower defaults. Therefore, lenders price it."
    q = quality_score(prompt, response)
    expected = 0.25 * q.coherence + 0.25 * q.completeness + 0.2 * q.length + 0.15 * q.structure + 0.15 * q.vocabulary
    assert q.overall == pytest.approx(expected)


def test_quality_score_custom_weights_must_name_all_five():
    with pytest.raises(ValueError, match="exactly"):
        quality_score("a question", "an answer", weights={"coherence": 1.0})


@given(WORDS, WORDS)
def test_every_quality_score_in_unit_interval(prompt, response):
    if not prompt.replace("?", "").replace(".", "").split():
        return
    q = quality_score(prompt, response)
    assert all(0.0 <= x <= 1.0 for x in (q.coherence, q.completeness, q.length, q.structure, q.vocabulary, q.overall))
