"""Datasets: every case is checked before anything runs; an error names file, line and field."""

from __future__ import annotations

import json
import time

import pytest

from harness.experiment.dataset import DatasetError, load_dataset
from tests.conftest import NOT_REGULAR, not_regular_file, returns_within


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def jsonl(*cases):
    return "\n".join(json.dumps(c) for c in cases) + "\n"


def test_a_jsonl_dataset_reads_every_case_with_its_line(tmp_path):
    path = write(tmp_path, "cases.jsonl", jsonl({"id": "a", "input": {"q": 1}}) + "\n" + jsonl(
        {"id": 2, "input": "hi", "expected_tools": ["search"], "reference_answer": "Paris"}))
    data = load_dataset(path)
    assert [(c.id, c.line) for c in data.cases] == [("a", 1), ("2", 3)]
    assert data.cases[1].answer_check == "contains" and data.cases[1].expected_tools == ("search",)
    assert len(data.sha256) == 64


def test_a_json_list_gives_each_case_the_line_it_starts_on(tmp_path):
    path = write(tmp_path, "cases.json", '[\n  {"id": "a", "input": 1},\n\n  {"id": "b",\n   "input": 2}\n]')
    assert [c.line for c in load_dataset(path).cases] == [2, 4]


def test_a_csv_dataset_reads_json_input_and_comma_separated_names(tmp_path):
    path = write(tmp_path, "cases.csv", 'id,input,expected_tools,reference_answer,tolerance,require_tools\n'
                 'a,"{""q"": ""x""}","search, lookup",42,0.5,true\n')
    case = load_dataset(path).cases[0]
    assert case.input == {"q": "x"} and case.expected_tools == ("search", "lookup")
    assert case.answer_check == "numeric" and case.tolerance == 0.5 and case.require_tools


@pytest.mark.parametrize("case, field", [
    ({"input": 1}, "'id': required"),
    ({"id": "a"}, "'input': required"),
    ({"id": "a", "input": 1, "expected_tool": ["x"]}, "'expected_tool': unknown field"),
    ({"id": "a", "input": 1, "answer_check": "fuzzy", "reference_answer": "x"}, "'answer_check': one of"),
    ({"id": "a", "input": 1, "answer_check": "exact"}, "'reference_answer': required by answer_check 'exact'"),
    ({"id": "a", "input": 1, "answer_check": "numeric", "reference_answer": "many"}, "'reference_answer': a number"),
    ({"id": "a", "input": 1, "reference_answer": "x", "tolerance": 1}, "'tolerance': a number >= 0 for answer_check 'numeric'"),
    ({"id": "a", "input": 1, "reference_answer": "x", "answer_check": "exact", "threshold": 0.5}, "'threshold'"),
    ({"id": "a", "input": 1, "reference_answer": "([", "answer_check": "regex"}, "'reference_answer': not a regular expression"),
    ({"id": "a", "input": 1, "require_tools": True}, "'require_tools': needs expected_tools"),
    ({"id": "a", "input": 1, "expected_tools": "search"}, "'expected_tools': a list of names"),
    ({"id": "a", "input": 1, "metadata": [1]}, "'metadata': an object"),
    ({"id": True, "input": 1}, "'id': a non-empty text or integer"),
    ({"id": "a", "input": 1, "subject": " "}, "'subject': a text that is not blank"),
    ({"id": "a", "input": 1, "expected_tools": ["search", " "]}, "'expected_tools': a list of names (none blank)"),
])
def test_a_bad_case_is_named_by_file_line_and_field(tmp_path, case, field):
    path = write(tmp_path, "cases.jsonl", jsonl({"id": "ok", "input": 0}, case))
    with pytest.raises(DatasetError) as err:
        load_dataset(path)
    assert str(err.value).startswith(f"{path}:2: field ") and field in str(err.value)


def test_a_duplicate_id_names_both_lines(tmp_path):
    path = write(tmp_path, "cases.jsonl", jsonl({"id": "a", "input": 0}, {"id": "b", "input": 0}, {"id": "a", "input": 1}))
    with pytest.raises(DatasetError, match=r"cases.jsonl:3: field 'id': 'a' is already the id of the case on line 1"):
        load_dataset(path)


def test_a_line_that_is_not_json_is_named(tmp_path):
    path = write(tmp_path, "cases.jsonl", '{"id": "a", "input": 0}\n{"id": "b", input}\n')
    with pytest.raises(DatasetError, match=r"cases.jsonl:2: not JSON"):
        load_dataset(path)


@pytest.mark.parametrize("name, text, message", [
    ("cases.json", '{"id": "a"}', r"cases.json:1: a .json dataset holds a list"),
    ("cases.csv", 'id,input\na,{not json}\n', r"cases.csv:2: field 'input': not JSON"),
    ("cases.txt", "x", r"a dataset is .jsonl, .json or .csv"),
    ("cases.jsonl", "\n\n", r"the dataset has no cases"),
])
def test_files_that_are_no_dataset_are_refused(tmp_path, name, text, message):
    with pytest.raises(DatasetError, match=message):
        load_dataset(write(tmp_path, name, text))


def test_a_missing_file_is_one_clear_error(tmp_path):
    with pytest.raises(DatasetError, match="cannot read dataset"):
        load_dataset(tmp_path / "nope.jsonl")


def test_cases_given_in_code_are_checked_the_same_way():
    with pytest.raises(DatasetError, match=r"item 2: field 'input': required"):
        load_dataset([{"id": "a", "input": 1}, {"id": "b"}])


def test_line_breaks_other_than_newline_inside_jsonl_strings_are_accepted(tmp_path):
    text = "line\u2028separator \u2029paragraph \u0085next-line"
    path = tmp_path / "cases.jsonl"
    path.write_text(jsonl({"id": "a", "input": text}, {"id": "b", "input": 1}), encoding="utf-8")
    data = load_dataset(path)
    assert [c.input for c in data.cases] == [text, 1] and [c.line for c in data.cases] == [1, 2]


@pytest.mark.parametrize("kind", NOT_REGULAR)
def test_a_dataset_that_is_not_a_regular_file_is_refused_at_once(tmp_path, kind):
    path = not_regular_file(tmp_path, kind, "cases.jsonl")
    if path.suffix != ".jsonl":  # /dev/zero itself: refused for its name before anything
        with pytest.raises(DatasetError, match="a dataset is .jsonl, .json or .csv"):
            returns_within(5, load_dataset, path)
        return
    with pytest.raises(DatasetError, match=r"cannot read dataset .*cases.jsonl': it is .*, not a regular file"):
        returns_within(5, load_dataset, path)


def test_a_large_file_without_a_dataset_suffix_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / "cases.jsonl.bak"
    with open(path, "wb") as file:
        file.truncate(200_000_000)  # sparse: 200 MB that cost nothing to write
    started = time.perf_counter()
    with pytest.raises(DatasetError, match=r"a dataset is .jsonl, .json or .csv, not '.bak'"):
        load_dataset(path)
    assert time.perf_counter() - started < 0.1


def test_json_nested_too_deeply_is_refused_with_file_and_line(tmp_path):
    path = tmp_path / "cases.jsonl"
    path.write_text(jsonl({"id": "a", "input": 1}) + '{"id": "b", "input": ' + "[" * 100_000 + "\n")
    with pytest.raises(DatasetError, match=r"cases.jsonl:2: not JSON: nested deeper than 200 levels"):
        load_dataset(path)


def test_a_json_error_names_its_column_in_one_sentence(tmp_path):
    path = tmp_path / "cases.jsonl"
    path.write_text('{"id": "a", "input": "open\n')
    with pytest.raises(DatasetError) as err:
        load_dataset(path)
    assert str(err.value) == f"{path}:1: not JSON: Unterminated string starting at column 22"


def test_a_csv_cell_over_the_csv_field_limit_is_one_error_with_its_line(tmp_path):
    path = tmp_path / "cases.csv"
    path.write_text('id,input\na,1\nb,"' + "x" * 200_000 + '"\n')
    with pytest.raises(DatasetError, match=r"cases.csv:3: not CSV: field larger than field limit"):
        load_dataset(path)


def test_the_hash_is_of_the_cases_however_they_are_given(tmp_path):
    cases = [{"id": "a", "input": {"q": "capital of France?"}, "reference_answer": "Paris",
              "expected_tools": ["search", "lookup"], "tolerance": None},
             {"id": 2, "input": 1, "reference_answer": 42, "answer_check": "numeric", "tolerance": 1}]
    given = {
        "a.jsonl": "\ufeff" + jsonl(*cases) + "\n\n",
        "a.json": json.dumps(cases, indent=2),
        "a.csv": ('id,input,reference_answer,answer_check,expected_tools,tolerance\n'
                  'a,"{""q"": ""capital of France?""}",Paris,,"search, lookup",\n'
                  '2,1,42,numeric,,1.0\n'),
    }
    hashes = {load_dataset(write(tmp_path, name, text)).sha256 for name, text in given.items()}
    hashes.add(load_dataset(cases).sha256)
    assert len(hashes) == 1 and len(hashes.pop()) == 64
    other = load_dataset([cases[0], {**cases[1], "tolerance": 2}]).sha256
    assert other != load_dataset(cases).sha256  # a case that differs is a dataset that differs
