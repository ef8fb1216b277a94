"""Input files read safely: only regular files, within a size per kind, a line at a time,
lines split on newlines only, JSON nesting bounded with the file and line named."""

from __future__ import annotations

import hashlib
import json
import os
import time
import tracemalloc
from dataclasses import replace

import pytest

from harness.inputs import (
    DATASET,
    MAX_JSON_DEPTH,
    MAX_LINE_BYTES,
    PRICES,
    SMALL_FILE_BYTES,
    InputError,
    json_list_items,
    parse_json,
    read_bytes,
    read_lines,
    read_text,
)
from tests.conftest import NOT_REGULAR, not_regular_file, returns_within


@pytest.mark.parametrize("kind", NOT_REGULAR)
def test_anything_but_a_regular_file_is_refused_at_once_by_every_reader(tmp_path, kind):
    path = not_regular_file(tmp_path, kind, "input.jsonl")
    what = {"fifo": "a named pipe (FIFO)", "directory": "a directory"}.get(kind, "a character device")
    any_name = replace(DATASET, suffixes=())  # /dev/zero has no suffix
    for read in (lambda: read_bytes(path, PRICES), lambda: list(read_lines(path, any_name)),
                 lambda: list(json_list_items(path, any_name))):
        with pytest.raises(InputError) as refused:
            returns_within(5, read)
        assert f"it is {what}, not a regular file" in str(refused.value) and str(path) in str(refused.value)


@pytest.mark.parametrize(("name", "size", "read", "refusal"), [
    pytest.param("prices.toml", SMALL_FILE_BYTES + 1, lambda path: read_bytes(path, PRICES),
                 r"it is 10 MB, over the 10 MB limit for a prices file", id="prices file over 10 MB"),
    pytest.param("cases.jsonl", DATASET.max_bytes + 1, lambda path: list(read_lines(path, DATASET)),
                 r"over the 1 GB limit for a dataset", id="dataset over a gigabyte"),
])
def test_a_file_over_its_kind_limit_is_refused_before_it_is_read(tmp_path, name, size, read, refusal):
    path = tmp_path / name
    with open(path, "wb") as file:
        file.truncate(size)  # sparse: nothing is written
    started = time.perf_counter()
    with pytest.raises(InputError, match=refusal):
        read(path)
    assert time.perf_counter() - started < 0.5


def test_a_wrong_suffix_is_refused_before_the_file_is_opened(tmp_path):
    path = tmp_path / "cases.txt"
    with open(path, "wb") as file:
        file.truncate(200_000_000)
    path.chmod(0o000)  # were it opened, the error would be a permission one (unless root)
    started = time.perf_counter()
    with pytest.raises(InputError, match=r"a dataset is \.jsonl, \.json or \.csv, not '\.txt'"):
        list(read_lines(path, DATASET))
    assert time.perf_counter() - started < 0.1


def test_a_line_longer_than_the_limit_is_refused_after_reading_that_much_only(tmp_path):
    path = tmp_path / "cases.jsonl"
    with open(path, "wb") as file:
        file.write(b'{"id": 1}\n')
        file.truncate(900_000_000)  # one line of 900 MB of NUL bytes
    tracemalloc.start()
    try:
        with pytest.raises(InputError, match=r"cases.jsonl:2: the line is longer than 64 MB"):
            list(read_lines(path, DATASET))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 3 * MAX_LINE_BYTES


def test_lines_are_split_on_newline_only_so_other_line_breaks_stay_inside_their_line(tmp_path):
    text = 'a\u2028b\u0085c\u2029d\x0ce\x1cf\r\nsecond\n'
    (tmp_path / "f.jsonl").write_bytes(text.encode())
    digest = hashlib.sha256()
    assert list(read_lines(tmp_path / "f.jsonl", DATASET, digest=digest)) == [
        (1, 'a\u2028b\u0085c\u2029d\x0ce\x1cf'), (2, "second")]
    assert digest.hexdigest() == hashlib.sha256(text.encode()).hexdigest()


def test_json_nested_deeper_than_the_limit_names_the_line_where_it_gets_too_deep():
    deep = "[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1)
    assert parse_json("[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH, "f") is not None
    with pytest.raises(InputError, match=rf"^cases.jsonl:7: not JSON: nested deeper than {MAX_JSON_DEPTH} levels$"):
        parse_json(deep, "cases.jsonl", line=7)
    with pytest.raises(InputError, match=r"^f.json:3: not JSON: nested deeper"):
        parse_json('{"a":\n "[[[[ in a string is no nesting",\n "b": ' + "[" * 100_000, "f.json")


def test_brackets_inside_strings_are_not_nesting():
    text = json.dumps({"text": "[" * 10_000, "list": [[[1]]]})
    assert parse_json(text, "f")["text"] == "[" * 10_000


def test_a_json_error_reads_as_one_sentence_with_line_and_column():
    with pytest.raises(InputError) as err:
        parse_json('{"id": "abc', "cases.json", line=4)
    assert str(err.value) == "cases.json:4: not JSON: Unterminated string starting at column 8"


def test_a_json_list_is_read_an_item_at_a_time_with_the_line_each_starts_on(tmp_path):
    items = [{"id": i, "text": "x\u2028y" * (i % 7), "nested": [[i]]} for i in range(30_000)]
    text = "[\n" + ",\n".join(json.dumps(item, ensure_ascii=False) for item in items) + "\n]\n"
    path = tmp_path / "cases.json"
    path.write_text(text, encoding="utf-8")
    digest = hashlib.sha256()
    read = list(json_list_items(path, DATASET, digest=digest))
    assert [item for _, item in read] == items and [line for line, _ in read] == list(range(2, 30_002))
    assert digest.hexdigest() == hashlib.sha256(text.encode()).hexdigest()


@pytest.mark.parametrize("text, message", [
    ('{"id": 1}', r"x.json:1: a .json dataset holds a list of cases, not an object"),
    ("[1, 2", r"x.json:1: not JSON: Expecting ',' delimiter at column 6"),
    ("[1]\n[2]", r"x.json:2: not JSON: Extra data at column 1"),
    ("[\n" + "[" * 300 + "]" * 300 + "]", r"x.json:2: not JSON: nested deeper than 200 levels"),
    ("[\n" + "[" * 200_000, r"x.json:2: not JSON: nested deeper than 200 levels"),
    ("", r"x.json:1: a .json dataset holds a list of cases, not nothing"),
])
def test_a_json_list_that_is_not_one_is_named_with_its_line(tmp_path, text, message):
    (tmp_path / "x.json").write_text(text)
    with pytest.raises(InputError, match=message):
        list(json_list_items(tmp_path / "x.json", DATASET))


def test_text_that_is_not_utf8_names_the_byte(tmp_path):
    (tmp_path / "p.toml").write_bytes(b"ok = 1\n\xff")
    with pytest.raises(InputError, match=r"p.toml: not UTF-8 text \(byte 7\)"):
        read_text(tmp_path / "p.toml", PRICES)


def test_a_missing_file_is_named_with_the_reason(tmp_path):
    with pytest.raises(InputError, match=r"cannot read prices file '.*nope.toml': no such file or directory"):
        read_bytes(tmp_path / "nope.toml", PRICES)


def test_an_unreadable_file_is_named_with_the_reason(tmp_path):
    if os.geteuid() != 0:
        path = tmp_path / "p.toml"
        path.write_text("x")
        path.chmod(0o000)
        with pytest.raises(InputError, match=r"permission denied"):
            read_bytes(path, PRICES)
        return
    # root reads files whatever their permission bits: a forked child reads as an ordinary user
    import tempfile

    with tempfile.TemporaryDirectory(dir="/tmp") as open_dir:
        os.chmod(open_dir, 0o755)
        path = os.path.join(open_dir, "p.toml")
        with open(path, "w") as file:
            file.write("x")
        os.chmod(path, 0o000)
        reader, writer = os.pipe()
        child = os.fork()
        if child == 0:  # pragma: no cover - the child's outcome is read from the pipe
            try:
                os.setgid(65534)
                os.setuid(65534)
                read_bytes(path, PRICES)
                message = "read"
            except InputError as exc:
                message = str(exc)
            except BaseException as exc:  # noqa: BLE001
                message = f"{type(exc).__name__}: {exc}"
            os.write(writer, message.encode())
            os._exit(0)
        os.close(writer)
        os.waitpid(child, 0)
        with os.fdopen(reader) as pipe:
            message = pipe.read()
    assert message.startswith(f"cannot read prices file {path!r}") and "permission denied" in message, message


# --- every kind of input file, through the command line ------------------------------------

def _cli(capsys, *args: str) -> tuple[int, str]:
    from harness.cli import main

    with pytest.raises(SystemExit) as done:
        returns_within(30, main, list(args))
    return int(done.value.code or 0), capsys.readouterr().err


def _empty_store(tmp_path) -> str:
    from harness import Store

    Store(tmp_path / "s.db").close()
    return str(tmp_path / "s.db")


#: (what, the command line for an input file at PATH, environment to set) per kind of input.
CLI_INPUTS = {
    "--dataset": (["wrap", "nope:app", "--dataset", "{path}"], {}),
    "--input @file": (["wrap", "nope:app", "--input", "@{path}"], {}),
    "--config @file": (["wrap", "nope:app", "--input", "{{}}", "--config", "@{path}"], {}),
    "--context @file": (["wrap", "nope:app", "--input", "{{}}", "--context", "@{path}"], {}),
    "--prices": (["wrap", "nope:app", "--input", "{{}}", "--prices", "{path}"], {}),
    "$HARNESS_PRICES": (["wrap", "nope:app", "--input", "{{}}"], {"HARNESS_PRICES": "{path}"}),
    "run --file": (["run", "--file", "{path}", "--no-excel"], {}),
    "run --prices": (["run", "Acme", "--no-excel", "--prices", "{path}"], {}),
    "audit --credentials": (["audit", "--gsheet", "sheet-id", "--credentials", "{path}"], {}),
    "export --credentials": (["export", "--store", "{store}", "--gsheet", "sheet-id", "--credentials", "{path}"], {}),
    "run $GOOGLE_APPLICATION_CREDENTIALS": (["run", "Acme", "--no-excel", "--gsheet", "sheet-id"],
                                            {"GOOGLE_APPLICATION_CREDENTIALS": "{path}"}),
}


def _cli_input(capsys, monkeypatch, tmp_path, option: str, path) -> tuple[int, str]:
    """Run the command line of CLI_INPUTS[option] with its input file at ``path``."""
    args, env = CLI_INPUTS[option]
    store = _empty_store(tmp_path) if "{store}" in " ".join(args) else ""
    for name, value in env.items():
        monkeypatch.setenv(name, value.format(path=path))
    return _cli(capsys, *(a.format(path=path, store=store) for a in args))


@pytest.mark.parametrize("kind", NOT_REGULAR)
@pytest.mark.parametrize("option", list(CLI_INPUTS))
def test_every_input_file_option_refuses_what_is_not_a_regular_file_in_one_line(
        capsys, monkeypatch, tmp_path, option, kind):
    monkeypatch.chdir(tmp_path)
    path = not_regular_file(tmp_path, kind, "cases.jsonl" if option == "--dataset" else "input.json")
    code, err = _cli_input(capsys, monkeypatch, tmp_path, option, path)
    assert code == 2 and err.count("\n") == 1 and err.startswith("harness: error: ")
    if option == "--dataset" and kind == "device":  # /dev/zero itself: refused for its name first
        assert "a dataset is .jsonl, .json or .csv" in err
    else:  # (the path in $GOOGLE_APPLICATION_CREDENTIALS is a path, not a secret: it is shown whole)
        assert f"{path}': it is" in err and "not a regular file" in err


@pytest.mark.parametrize("option", [o for o in CLI_INPUTS if o != "--dataset"])
def test_every_small_input_file_is_refused_over_ten_megabytes_without_reading_it(capsys, monkeypatch, tmp_path,
                                                                                   option):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "input.json"
    with open(path, "wb") as file:
        file.truncate(SMALL_FILE_BYTES + 1)
    code, err = _cli_input(capsys, monkeypatch, tmp_path, option, path)
    assert code == 2 and err.count("\n") == 1 and "over the 10 MB limit" in err
