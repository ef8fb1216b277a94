"""Sampling by a hash of the run id: deterministic, a lower rate's sample inside a higher one's,
and the share sampled is the rate."""

from __future__ import annotations

import hashlib
import math
import uuid

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.online import in_sample, sample_point, sample_rate


def test_a_runs_point_is_the_first_eight_bytes_of_the_sha256_of_its_id():
    run_id = "3c1b3353-4ab7-4fa4-9367-1631432a5503"
    expected = int.from_bytes(hashlib.sha256(run_id.encode()).digest()[:8], "big") / 2**64
    assert sample_point(run_id) == expected
    assert 0 <= sample_point(run_id) < 1


@given(st.text(min_size=1, max_size=60), st.floats(0, 1), st.floats(0, 1))
def test_every_rates_sample_is_a_subset_of_every_higher_rates(run_id, a, b):
    low, high = sorted((a, b))
    if in_sample(run_id, low):
        assert in_sample(run_id, high)


@given(st.text(min_size=1, max_size=60))
def test_rate_zero_samples_nothing_and_rate_one_everything(run_id):
    assert not in_sample(run_id, 0.0)
    assert in_sample(run_id, 1.0)


def test_the_share_sampled_over_20000_runs_is_the_rate_within_the_binomial_spread():
    ids = [str(uuid.UUID(int=i * 7919 + 12345)) for i in range(20_000)]  # fixed ids: the test is exact
    for rate in (0.01, 0.1, 0.5, 0.9):
        share = sum(in_sample(run_id, rate) for run_id in ids) / len(ids)
        spread = 4 * math.sqrt(rate * (1 - rate) / len(ids))  # four standard deviations
        assert abs(share - rate) <= spread, (rate, share)
    nested = [{run_id for run_id in ids if in_sample(run_id, rate)} for rate in (0.05, 0.2, 0.6)]
    assert nested[0] <= nested[1] <= nested[2]


@pytest.mark.parametrize("bad", [-0.1, 1.5, float("nan"), "0.5", True])
def test_a_rate_outside_zero_to_one_is_refused(bad):
    with pytest.raises(ValueError, match="sample rate is a number from 0 to 1"):
        sample_rate(bad)
