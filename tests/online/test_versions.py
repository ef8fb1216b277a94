"""A scorer's version: its ``version`` attribute, else a hash of its source and the plain values it
is given; the same in every process, different when what decides its scores differs."""

from __future__ import annotations

import functools
import subprocess
import sys

import pytest

from harness.experiment.errors import ExperimentError
from harness.experiment.scoring import Scorer, scorers_of
from harness.experiment.versions import scorer_version
from harness.scorers import contains, trajectory_judge
from tests.online.support import ROOT


def concise(run, case):
    return len(run.answer or "") < 80


def test_an_explicit_version_wins_and_is_kept_as_given():
    def scorer(run, case):
        return 1.0

    scorer.version = 7
    assert scorer_version(scorer) == "7"
    assert Scorer.of(scorer).version == "7"


@pytest.mark.parametrize("bad", [{"v": 1}, "", "two\nlines", "x" * 101, True])
def test_an_explicit_version_that_is_not_a_short_line_is_refused(bad):
    def scorer(run, case):
        return 1.0

    scorer.version = bad
    with pytest.raises(ExperimentError, match="version"):
        scorers_of([scorer])


def test_the_same_source_is_the_same_version_in_another_process():
    here = scorer_version(concise)
    there = subprocess.run([sys.executable, "-c", "from tests.online.test_versions import concise; "
                            "from harness.experiment.versions import scorer_version; print(scorer_version(concise))"],
                           cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert there.stdout.strip() == here and here.startswith("src-") and len(here) == 16


def test_a_factorys_options_and_a_judges_model_are_part_of_the_version():
    assert scorer_version(contains("Paris")) == scorer_version(contains("Paris"))
    assert scorer_version(contains("Paris")) != scorer_version(contains("Rome"))

    class Model:
        def __init__(self, name):
            self.model_name = name

    small, large = (trajectory_judge(Model(n), rubric="polite") for n in ("llama-3.1-8b-instant", "llama-3.3-70b"))
    assert scorer_version(small) != scorer_version(large)
    assert scorer_version(functools.partial(concise)) != scorer_version(concise)


def test_an_edited_scorer_has_another_version():
    first = {}
    exec("def scorer(run, case):\n    return 1.0\n", first)
    second = {}
    exec("def scorer(run, case):\n    return 0.5\n", second)
    assert scorer_version(first["scorer"]) != scorer_version(second["scorer"])
