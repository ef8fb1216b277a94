"""The CLI's one printing path: piped tables keep their width; a closed pipe is not an error;
everything printed is scrubbed, inert and, for a message, one bounded line."""

from __future__ import annotations

import io
import json
import logging
import os
import re
import sys

import pytest
from rich.table import Table
from rich.text import Text

from harness.cli._output import MAX_LINE, SafeConsole, guarded_output, one_line, progress, say, show, show_json
from tests.support.secrets import OPENAI_KEY
from tests.support.terminal import CONTROL, HOSTILE, SGR


def test_a_piped_table_is_printed_at_the_width_it_needs_not_cut_at_80_columns(capsys):
    table = Table()
    for name in ("run id", "workflow", "note"):
        table.add_column(name)
    long_id = "3f2a9c1e-" + "0" * 27
    table.add_row(long_id, "credit_analysis", "n" * 200)
    show(table)
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if long_id in line)
    assert "n" * 200 in row and "…" not in out


def test_writes_after_the_reader_closed_the_pipe_are_dropped_quietly(monkeypatch, tmp_path):
    read, write = os.pipe()
    os.close(read)  # the reader is gone before anything is written
    stream = os.fdopen(write, "w")
    monkeypatch.setattr("sys.stdout", stream)
    with guarded_output():
        import sys

        for _ in range(100):
            print("x" * 10_000)
        sys.stdout.flush()
    assert os.readlink(f"/proc/self/fd/{write}") == os.devnull  # pointed at /dev/null, not failing
    stream.close()


# --- one printing path: scrubbed, inert, one line --------------------------------------------

def _controls(text: str) -> list[str]:
    """Control characters left once our colour sequences are taken out."""
    return re.findall(CONTROL, SGR.sub("", text))


def test_a_message_is_one_line_with_a_huge_name_cut_and_its_length_said():
    line = one_line(f"experiment {'n' * 100_000!r} already exists;\n\tchoose another name")
    assert "\n" not in line and len(line) < 300
    assert line.startswith("experiment 'nnn") and line.endswith("choose another name")
    assert "…[99,832 more characters]…" in line


def test_a_long_message_of_short_words_keeps_its_start_and_its_end():
    line = one_line("start " + "word " * 10_000 + "end")
    assert len(line) <= MAX_LINE and line.startswith("start word") and line.endswith("word end")
    assert "more characters]" in line


def test_a_message_is_redacted_and_its_control_characters_shown():
    assert one_line(f"bad key {OPENAI_KEY}{HOSTILE}") == "bad key [REDACTED]\\x1b]2;pwned\\x07\\x1b[2J"


@pytest.mark.parametrize("text", [Text(f"key {OPENAI_KEY}"), f"key {OPENAI_KEY}"], ids=["Text", "str"])
def test_a_secret_folded_over_lines_of_a_narrow_column_is_redacted_before_the_fold(text):
    table = Table()
    table.add_column("note", width=12, overflow="fold")
    table.add_row(text)
    out = io.StringIO()
    SafeConsole(file=out, force_terminal=True, width=40).print(table)
    assert "[REDACTED]" in out.getvalue().replace("│", "").replace(" ", "").replace("\n", "")
    assert OPENAI_KEY[8:16] not in out.getvalue()


def test_styles_survive_scrubbing_and_stored_markup_stays_text():
    text = Text("ok ", style="green")
    text.append(f"{HOSTILE}[link=https://evil.example]click[/link]", style="bold")
    out = io.StringIO()
    SafeConsole(file=out, force_terminal=True, width=120).print(text)
    printed = out.getvalue()
    assert "\\x1b]2;pwned" in printed and "[link=https://evil.example]click[/link]" in printed
    assert not _controls(printed) and "\x1b[32mok" in printed and "\x1b[1;32m" in printed


def test_json_is_exact_with_secrets_redacted_and_every_control_escaped(capsys):
    data = {"out": f"{HOSTILE}\x9b2J\x7f\u2028", OPENAI_KEY: [OPENAI_KEY, 1, None]}
    show_json(data)
    printed = capsys.readouterr().out
    assert json.loads(printed) == {"out": f"{HOSTILE}\x9b2J\x7f\u2028", "[REDACTED]": ["[REDACTED]", 1, None]}
    assert not _controls(printed.replace("\n", ""))


def test_other_writers_are_redacted_and_lose_every_control_but_colour(capsys):
    logger = logging.getLogger("vendor.client")
    with guarded_output():
        handler = logging.StreamHandler()  # a library's handler, on the command's standard error
        logger.addHandler(handler)
        try:
            logger.warning("retry with %s %s\x1b[31mred\x1b[0m", OPENAI_KEY, HOSTILE)
        finally:
            logger.removeHandler(handler)
        print(f"{OPENAI_KEY}{HOSTILE}", file=sys.stdout)
    captured = capsys.readouterr()
    assert "retry with [REDACTED] \\x1b]2;pwned\\x07\\x1b[2J\x1b[31mred\x1b[0m" in captured.err
    assert captured.out == "[REDACTED]\\x1b]2;pwned\\x07\\x1b[2J\n"


def test_a_progress_bar_on_a_terminal_shows_a_label_scrubbed(monkeypatch):
    out = io.StringIO()
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.setattr("sys.stderr", out)
    with progress(f"experiment {OPENAI_KEY}{HOSTILE}", 2) as bar:
        assert bar is not None
        bar()
    printed = out.getvalue()
    assert OPENAI_KEY[8:20] not in printed and "[REDACTED]" in printed
    assert "\x07" not in printed and "\x1b]" not in printed


def test_no_command_prints_but_through_the_one_printing_path():
    """print, rich consoles and progress bars, and writes to the standard streams, appear in
    harness/cli/_output.py only: whatever a command prints is scrubbed there."""
    import ast
    from pathlib import Path

    import harness.cli

    banned = {"print", "Console", "Progress", "write", "echo", "secho"}
    found = []
    for path in Path(harness.cli.__file__).parent.glob("*.py"):
        if path.name == "_output.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call):
                name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
                if name in banned:
                    found.append(f"{path.name}:{node.lineno} {name}")
    assert found == []


def test_a_line_naming_a_file_keeps_the_path_whole_on_one_line(capsys):
    path = "/tmp/" + "deep  dir/" * 40 + "report.html"
    say(f"wrote {path}\n", err=False, whole=True)
    assert capsys.readouterr().out == f"wrote {path}\\x0a\n"
