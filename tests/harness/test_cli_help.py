"""``--help`` reads whole at 80 columns: every line fits, every option is named in full with
what it takes, and ``harness --help`` says what each command does in one line."""

from __future__ import annotations

import os

import pytest

from harness.cli import _COMMANDS, command
from tests.support.cli import harness_cli


def _help(*args: str):
    return harness_cli(*args, "--help", env={**os.environ, "COLUMNS": "80", "NO_COLOR": "1"})


def test_harness_help_lists_every_command_with_its_whole_summary():
    done = _help()
    assert done.returncode == 0
    assert max(map(len, done.stdout.splitlines())) <= 80
    flat = " ".join(done.stdout.split())
    for name, summary in _COMMANDS.items():
        assert f"{name} {summary}" in flat, name
    listed = done.stdout.split("Commands:", 1)[1]
    assert "..." not in listed and "…" not in listed  # no summary cut


@pytest.mark.parametrize("name", list(_COMMANDS))
def test_a_commands_help_fits_80_columns_and_names_every_option_whole(name):
    done = _help(name)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert max(map(len, lines)) <= 80, [line for line in lines if len(line) > 80]
    assert "…" not in done.stdout
    # a repeatable option takes one value each time, and says so
    assert "list[" not in done.stdout.split("Options:", 1)[1]
    options = [p for p in command().commands[name].params if getattr(p, "opts", None) and not p.hidden]
    for option in options:
        for opt in [*option.opts, *option.secondary_opts]:
            if opt.startswith("--"):
                assert any(line.lstrip().startswith(opt) or f", {opt}" in line or f"/ {opt}" in line
                           for line in lines), (name, opt)
