"""The CLI's one output helper: piped tables keep their width; a closed pipe is not an error."""

from __future__ import annotations

import os

from rich.table import Table

from harness.cli._output import quiet_when_closed, show


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
    with quiet_when_closed():
        import sys

        for _ in range(100):
            print("x" * 10_000)
        sys.stdout.flush()
    assert os.readlink(f"/proc/self/fd/{write}") == os.devnull  # pointed at /dev/null, not failing
    stream.close()
