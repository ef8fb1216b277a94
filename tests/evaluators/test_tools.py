"""Tool-name P/R/F1 and call-level matching with arguments."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evaluators import tool_call_match, tool_selection

TOOLS = st.sampled_from(["sec_edgar", "finnhub", "court_listener", "web_search", "calc"])
NAME_LISTS = st.lists(TOOLS, max_size=6)


def test_tool_selection_sets_and_scores():
    r = tool_selection(["web_search", "sec_edgar", "calc"], ["sec_edgar", "finnhub", "web_search", "court_listener"])
    assert r.correct == ("sec_edgar", "web_search")
    assert r.missing == ("court_listener", "finnhub")
    assert r.extra == ("calc",)
    assert r.precision == pytest.approx(2 / 3)
    assert r.recall == pytest.approx(0.5)
    assert r.f1 == pytest.approx(2 * (2 / 3) * 0.5 / (2 / 3 + 0.5))


def test_tool_selection_both_empty_is_perfect():
    r = tool_selection([], [])
    assert (r.precision, r.recall, r.f1) == (1.0, 1.0, 1.0)


def test_tool_selection_nothing_selected_when_tools_expected_scores_zero():
    r = tool_selection([], ["web_search"])
    assert (r.precision, r.recall, r.f1) == (0.0, 0.0, 0.0)
    assert r.missing == ("web_search",)


def test_tool_selection_selected_when_nothing_expected_scores_zero():
    r = tool_selection(["web_search"], [])
    assert (r.precision, r.recall, r.f1) == (0.0, 0.0, 0.0)


def test_tool_selection_no_overlap_has_f1_zero_not_division_error():
    assert tool_selection(["calc"], ["web_search"]).f1 == 0.0


def test_tool_selection_ignores_duplicates():
    assert tool_selection(["web_search", "web_search"], ["web_search"]).precision == 1.0


def test_tool_selection_refuses_a_bare_string():
    with pytest.raises(ValueError, match="list of names"):
        tool_selection("web_search", ["web_search"])


def test_tool_selection_refuses_non_string_names():
    with pytest.raises(ValueError, match="non-empty strings"):
        tool_selection([None], ["web_search"])


@given(NAME_LISTS, NAME_LISTS)
def test_tool_selection_scores_are_in_unit_interval(s, e):
    r = tool_selection(s, e)
    assert all(0.0 <= x <= 1.0 for x in (r.precision, r.recall, r.f1))


@given(NAME_LISTS, NAME_LISTS, st.randoms())
def test_tool_selection_is_invariant_under_permutation(s, e, rnd):
    s2, e2 = list(s), list(e)
    rnd.shuffle(s2)
    rnd.shuffle(e2)
    assert tool_selection(s, e) == tool_selection(s2, e2)


def call(name, **args):
    return {"name": name, "args": args}


def test_greedy_trap_from_the_peers_is_matched_optimally():
    # agentevals' first-fit says False here; a valid one-to-one assignment exists.
    actual = [call("get", city="SF", units="F"), call("get", city="SF")]
    expected = [call("get", city="SF"), call("get", city="SF", units="F")]
    r = tool_call_match(actual, expected, "superset")
    assert (r.precision, r.recall, r.f1) == (1.0, 1.0, 1.0)
    assert r.matched == ((0, 1), (1, 0))
    assert r.unmatched_actual == () and r.unmatched_expected == ()


def test_greedy_trap_result_does_not_depend_on_reference_order():
    actual = [call("get", city="SF", units="F"), call("get", city="SF")]
    expected = [call("get", city="SF"), call("get", city="SF", units="F")]
    assert tool_call_match(actual, expected, "superset").f1 == 1.0
    assert tool_call_match(actual, expected[::-1], "superset").f1 == 1.0


def test_two_identical_expected_calls_need_two_actual_calls():
    r = tool_call_match([call("search", q="x")], [call("search", q="x"), call("search", q="x")])
    assert r.precision == 1.0
    assert r.recall == 0.5
    assert r.unmatched_expected == (1,)


def test_two_identical_calls_met_by_two_identical_calls_score_one():
    # deepeval#3141 scored this 0.5
    r = tool_call_match([call("search", q="x")] * 2, [call("search", q="x")] * 2)
    assert r.f1 == 1.0


def test_exact_mode_requires_equal_arguments():
    assert tool_call_match([call("get", city="SF")], [call("get", city="NY")], "exact").f1 == 0.0


def test_subset_mode_allows_actual_with_fewer_arguments():
    assert tool_call_match([call("get", city="SF")], [call("get", city="SF", units="F")], "subset").f1 == 1.0
    assert tool_call_match([call("get", city="SF", units="F")], [call("get", city="SF")], "subset").f1 == 0.0


def test_superset_mode_allows_actual_with_more_arguments():
    assert tool_call_match([call("get", city="SF", units="F")], [call("get", city="SF")], "superset").f1 == 1.0
    assert tool_call_match([call("get", city="SF")], [call("get", city="SF", units="F")], "superset").f1 == 0.0


def test_ignore_mode_matches_on_names_only():
    assert tool_call_match([call("get", city="SF")], [call("get", city="NY")], "ignore").f1 == 1.0


def test_nested_list_arguments_are_compared_by_content_without_crashing():
    # ragas' set-based F1 raised "unhashable type: 'list'" here
    a = [call("q", filters=[{"k": 1}, {"k": (2, 3)}])]
    e = [call("q", filters=[{"k": 1}, {"k": [2, 3]}])]
    assert tool_call_match(a, e).f1 == 1.0


def test_json_string_arguments_are_decoded():
    assert tool_call_match([{"name": "get", "args": '{"city": "SF"}'}], [call("get", city="SF")]).f1 == 1.0


def test_calls_without_arguments_match():
    assert tool_call_match([{"name": "now"}], [{"name": "now", "args": {}}]).f1 == 1.0


def test_tool_call_match_both_empty_is_perfect():
    r = tool_call_match([], [])
    assert (r.precision, r.recall, r.f1) == (1.0, 1.0, 1.0)


def test_tool_call_match_refuses_unknown_args_mode():
    with pytest.raises(ValueError, match="args_mode"):
        tool_call_match([], [], "fuzzy")


def test_tool_call_match_refuses_call_without_name():
    with pytest.raises(ValueError, match="no tool name"):
        tool_call_match([{"args": {}}], [])


MODES = st.sampled_from(["exact", "subset", "superset", "ignore"])


@st.composite
def calls_with_optional_units(draw):
    out = []
    for _ in range(draw(st.integers(0, 5))):
        args = {"city": draw(st.sampled_from(["SF", "NY"]))}
        if draw(st.booleans()):
            args["units"] = draw(st.sampled_from(["F", "C"]))
        out.append({"name": draw(st.sampled_from(["get", "put"])), "args": args})
    return out


@given(calls_with_optional_units(), calls_with_optional_units(), MODES, st.randoms())
def test_tool_call_match_is_invariant_under_permutation(a, e, mode, rnd):
    a2, e2 = list(a), list(e)
    rnd.shuffle(a2)
    rnd.shuffle(e2)
    r1, r2 = tool_call_match(a, e, mode), tool_call_match(a2, e2, mode)
    assert (r1.precision, r1.recall, r1.f1) == (r2.precision, r2.recall, r2.f1)


@given(calls_with_optional_units(), calls_with_optional_units(), MODES)
def test_tool_call_match_scores_in_unit_interval_and_pairs_one_to_one(a, e, mode):
    r = tool_call_match(a, e, mode)
    assert all(0.0 <= x <= 1.0 for x in (r.precision, r.recall, r.f1))
    assert len({i for i, _ in r.matched}) == len({j for _, j in r.matched}) == len(r.matched)
    assert len(r.matched) + len(r.unmatched_actual) == len(a)
    assert len(r.matched) + len(r.unmatched_expected) == len(e)


@given(calls_with_optional_units())
def test_duplicated_calls_count_as_a_multiset(a):
    r = tool_call_match(a + a, a, "exact")
    if a:
        assert r.recall == 1.0 and r.precision == pytest.approx(0.5)


@pytest.mark.parametrize("mode", ["exact", "subset", "superset"])
@pytest.mark.parametrize("actual, expected", [({"flag": True}, {"flag": 1}), ({"flag": False}, {"flag": 0}),
                                              ({"flags": [True]}, {"flags": [1]}), ({"x": {"on": 0}}, {"x": {"on": False}})])
def test_a_boolean_argument_never_matches_a_number(mode, actual, expected):
    assert tool_call_match([{"name": "t", "args": actual}], [{"name": "t", "args": expected}], mode).f1 == 0.0


@pytest.mark.parametrize("mode", ["exact", "subset", "superset"])
def test_arguments_compare_as_json_values(mode):
    same = [({"flag": True}, '{"flag": true}'), ({"n": 1}, {"n": 1.0}), ({"k": (1, 2)}, {"k": [1, 2]})]
    for actual, expected in same:
        assert tool_call_match([{"name": "t", "args": actual}], [{"name": "t", "args": expected}], mode).f1 == 1.0
