"""Every file the harness writes goes through one helper (harness.outputs): written beside its
target, synced and renamed over it, so the target is whole or untouched; a link at the target
is replaced, not followed; a directory, pipe or device is refused at once; an existing file's
permissions are kept. The commands that write files use it: report --out, audit --report,
export --out."""

from __future__ import annotations

import os
import resource
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from harness import Harness
from harness.cli import main
from harness.outputs import NotAFile, replacing, write_text
from tests.conftest import not_regular_file, returns_within

from . import graphs


def _leftovers(directory: Path, name: str) -> list[str]:
    return [p.name for p in directory.iterdir() if p.name.startswith(f".{name}.")]


def test_a_file_is_replaced_whole_and_nothing_is_left_beside_it(tmp_path):
    target = tmp_path / "report.html"
    target.write_text("old")
    write_text(target, "new")
    assert target.read_text() == "new" and _leftovers(tmp_path, "report.html") == []


def test_a_failure_while_writing_leaves_the_target_as_it_was(tmp_path):
    target = tmp_path / "report.html"
    target.write_text("old")
    with pytest.raises(RuntimeError), replacing(target) as written:
        written.write_text("half")
        raise RuntimeError("disk full")
    assert target.read_text() == "old" and _leftovers(tmp_path, "report.html") == []


def test_a_link_at_the_target_is_replaced_and_what_it_points_at_is_untouched(tmp_path):
    precious = tmp_path / "precious.txt"
    precious.write_text("keep me")
    link = tmp_path / "report.html"
    link.symlink_to(precious)
    write_text(link, "report")
    assert not link.is_symlink() and link.read_text() == "report" and precious.read_text() == "keep me"


@pytest.mark.parametrize("kind", ["fifo", "directory", "device", "symlink to a device"])
def test_a_target_that_is_no_file_is_refused_at_once(tmp_path, kind):
    target = not_regular_file(tmp_path, kind, "report.html")
    if kind == "symlink to a device":  # a link is replaced, not followed: the device is untouched
        returns_within(5, write_text, target, "report")
        assert target.is_file() and not target.is_symlink()
        return
    with pytest.raises(NotAFile, match="not a file: it is not replaced"):
        returns_within(5, write_text, target, "report")
    assert _leftovers(target.parent, target.name) == []


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o644])
def test_an_existing_files_permissions_are_kept_and_a_new_file_gets_the_usual_ones(tmp_path, mode):
    kept = tmp_path / "kept.html"
    kept.write_text("old")
    kept.chmod(mode)
    write_text(kept, "new")
    assert stat.S_IMODE(kept.stat().st_mode) == mode
    umask = os.umask(0)
    os.umask(umask)
    fresh = write_text(tmp_path / "fresh.html", "new")
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o666 & ~umask


def test_what_a_killed_writer_left_is_removed_by_the_next_write(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    pid = int(dead.stdout)
    (tmp_path / f".report.html.{pid}.abc.tmp").write_text("half")
    (tmp_path / f".report.html.{os.getpid() + 10**7}.x").mkdir()  # no such process either
    write_text(tmp_path / "report.html", "whole")
    assert _leftovers(tmp_path, "report.html") == []


def test_a_file_size_limit_leaves_the_old_file_whole(tmp_path):
    """A write past ``ulimit -f`` fails (Python ignores SIGXFSZ): the old file stays."""
    target = tmp_path / "report.html"
    target.write_text("old report")
    child = textwrap.dedent(f"""
        import resource, sys
        resource.setrlimit(resource.RLIMIT_FSIZE, (100_000, 100_000))
        from harness.outputs import write_text
        try:
            write_text({str(target)!r}, "x" * 1_000_000)
        except OSError as exc:
            print("refused", exc.errno)
    """)
    done = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=60)
    assert done.stdout.startswith("refused"), done.stdout + done.stderr
    assert target.read_text() == "old report" and _leftovers(tmp_path, "report.html") == []


# --- through the commands -------------------------------------------------------------------

@pytest.fixture
def store(tmp_path) -> Path:
    path = tmp_path / "runs.db"
    harness = Harness(store=path, writer="inline")
    with harness.run(subject="out") as run:
        graphs.sequential().invoke({"question": "q"}, run.config)
    harness.close()
    return path


def _cli(capsys, *args: str) -> tuple[int, str]:
    with pytest.raises(SystemExit) as exit_info:
        returns_within(60, main, list(args))
    return exit_info.value.code, capsys.readouterr().err


@pytest.mark.parametrize("command", [["report", "--out"], ["export", "--out"]], ids=lambda c: c[0])
@pytest.mark.parametrize("kind", ["fifo", "directory", "device"])
def test_report_and_export_refuse_a_target_that_is_no_file_in_one_line(tmp_path, capsys, store, command, kind):
    target = not_regular_file(tmp_path, kind, "out.xlsx" if command[0] == "export" else "out.html")
    code, err = _cli(capsys, *command, str(target), "--store", str(store))
    assert code == 2 and err.count("\n") == 1 and ("not a file" in err or "is a directory" in err), err


@pytest.mark.parametrize("command", [["report", "--out", "out.html"], ["export", "--out", "out.xlsx"]],
                         ids=lambda c: c[0])
def test_report_and_export_replace_a_link_and_keep_a_files_permissions(tmp_path, capsys, store, command):
    precious = tmp_path / "precious.txt"
    precious.write_text("keep me")
    target = tmp_path / command[-1]
    target.symlink_to(precious)
    code, err = _cli(capsys, *command[:-1], str(target), "--store", str(store))
    assert code == 0, err
    assert not target.is_symlink() and precious.read_text() == "keep me"
    target.chmod(0o600)
    code, err = _cli(capsys, *command[:-1], str(target), "--store", str(store))
    assert code == 0 and stat.S_IMODE(target.stat().st_mode) == 0o600, err


def test_audit_refuses_a_report_target_that_is_a_pipe_in_one_line(tmp_path, capsys, store):
    workbook = tmp_path / "runs.xlsx"
    code, err = _cli(capsys, "export", "--out", str(workbook), "--store", str(store))
    assert code == 0, err
    fifo = not_regular_file(tmp_path, "fifo", "audit.html")
    code, err = _cli(capsys, "audit", str(workbook), "--report", str(fifo))
    assert code == 2 and err.count("\n") == 1 and "named pipe" in err, err


def test_a_report_over_the_file_size_limit_leaves_the_old_report_and_says_so_in_one_line(tmp_path, store):
    target = tmp_path / "report.html"
    target.write_text("old report")

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (48_000, 48_000))  # the store opens, the ~60 KB report fails

    done = subprocess.run([sys.executable, "-m", "harness", "report", "--out", str(target), "--store", str(store)],
                          capture_output=True, text=True, timeout=120, preexec_fn=limit)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "File too large" in done.stderr, done.stderr
    assert target.read_text() == "old report" and _leftovers(tmp_path, "report.html") == []
