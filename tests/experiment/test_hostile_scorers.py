"""A scorer cannot stop, hang or corrupt an experiment.

Each row of the table, tried as a user does: ``harness wrap agent_module:app --dataset
cases.jsonl --scorer hostile_scorers:good --scorer hostile_scorers:BAD`` over 6 cases, in a
child process under a memory cap, then read back (and exported and audited). ``good``'s 6
scores are always kept; BAD's become error scores; the runs' pass is unknown, never 1.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from harness import Store

from .test_runner import capital_cases

ROOT = Path(__file__).resolve().parents[2]
#: The children's address space: far above what scoring needs, far below what the hostile
#: scorers would take unbounded (4.8 GB in the redactor for a 100 MB explanation).
MEMORY_CAP = 3 * 1024 ** 3
#: Runs the CLI and reports its own peak RSS (kB) on stderr as it exits: VmHWM, the process's
#: own high-water mark (ru_maxrss would carry the test worker's peak across fork and exec).
RUNNER = ("import atexit, sys\n"
          "atexit.register(lambda: print('peak_rss_kb', next(l.split()[1] for l in open('/proc/self/status')"
          " if l.startswith('VmHWM:')), file=sys.stderr))\n"
          "from harness.cli import main\nmain(sys.argv[1:])\n")


def capped() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    path = tmp_path_factory.mktemp("hostile")
    (path / "agent_module.py").write_text("from tests.experiment.agents import react_agent\napp = react_agent()\n")
    (path / "cases.jsonl").write_text("\n".join(json.dumps(c) for c in capital_cases(6)) + "\n")
    (path / "tests").symlink_to(ROOT / "tests")
    return path


def harness(project: Path, *args: str, timeout: float = 120, env: dict | None = None) -> subprocess.CompletedProcess:
    store = () if args[0] == "audit" else ("--store", "runs.db")
    return subprocess.run([sys.executable, "-c", RUNNER, *args, *store], cwd=project, text=True,
                          capture_output=True, timeout=timeout, preexec_fn=capped,
                          env={**os.environ, "MALLOC_ARENA_MAX": "2", **(env or {})})


def wrap(project: Path, experiment: str, *scorers: str, options: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    named = [a for s in scorers for a in ("--scorer", f"tests.experiment.hostile_scorers:{s}")]
    return harness(project, "wrap", "agent_module:app", "--dataset", "cases.jsonl", "--experiment", experiment,
                   *named, *options)


def stored(project: Path, experiment: str) -> tuple[dict, list]:
    """(score name -> its rows, the runs' passes) of ``experiment``."""
    store = Store(project / "runs.db")
    try:
        runs = list(store.rows("runs", columns=["run_id", "passed"], where={"experiment": experiment}))
        by_name: dict[str, list] = {}
        for row in store.rows("scores", [r["run_id"] for r in runs]):
            by_name.setdefault(row["name"], []).append(row)
        return by_name, [r["passed"] for r in runs]
    finally:
        store.close()


def peak_mb(done: subprocess.CompletedProcess) -> float:
    (kb,) = [int(line.split()[1]) for line in done.stderr.splitlines() if line.startswith("peak_rss_kb")]
    return kb / 1024


def assert_kept(project: Path, experiment: str, bad: str, error: str, *, errored: int = 6) -> dict:
    """good's 6 scores kept, ``errored`` of BAD's an error with ``error``, no value and no pass,
    and no run's pass known to be 1 while BAD could not score it."""
    scores, passes = stored(project, experiment)
    assert len(passes) == 6
    assert [(r["value"], r["passed"], r["error"]) for r in scores["good"]] == [(1.0, 1, None)] * 6
    failed = [r for r in scores[bad] if r["error"]]
    assert len(failed) == errored, scores[bad]
    assert all(r["value"] is None and r["passed"] is None and error in r["error"] for r in failed), [r["error"] for r in failed]
    assert passes.count(None) == errored and passes.count(1) == 6 - errored
    return scores


def assert_one_line(done: subprocess.CompletedProcess) -> None:
    assert "Traceback" not in done.stderr and "never retrieved" not in done.stderr, done.stderr


@pytest.mark.parametrize("bad", ["hangs", "hangs_async", "blocks_its_loop"])
def test_a_scorer_that_hangs_times_out_and_the_command_ends_on_time(project, bad):
    start = time.monotonic()
    done = wrap(project, f"hang-{bad}", "good", bad, options=("--scorer-timeout", "1"))
    took = time.monotonic() - start
    assert done.returncode == 1, done.stderr
    assert took < 40, took  # six 1 s limits at concurrency 4, not an hour (and not kept alive by the thread)
    assert f"6 score(s) could not be made: {bad} 6" in done.stderr
    assert_one_line(done)
    assert_kept(project, f"hang-{bad}", bad, "timed out after 1 s")


def test_a_scorer_that_hangs_on_one_case_costs_that_score_only(project):
    done = wrap(project, "hang-one", "good", "hangs_on_q3", options=("--scorer-timeout", "1"))
    assert done.returncode == 1 and "1 score(s) could not be made: hangs_on_q3 1" in done.stderr, done.stderr
    scores = assert_kept(project, "hang-one", "hangs_on_q3", "timed out after 1 s", errored=1)
    assert sorted(r["value"] for r in scores["hangs_on_q3"] if not r["error"]) == [1.0] * 5


@pytest.mark.parametrize("bad, error", [("base_exception", "Custom: not an Exception"),
                                        ("keyboard_interrupt", "KeyboardInterrupt"),
                                        ("system_exit", "SystemExit: 5")])
def test_a_scorer_that_raises_a_base_exception_gives_error_scores(project, bad, error):
    done = wrap(project, f"raise-{bad}", "good", bad)
    assert done.returncode == 1, done.stderr
    assert_one_line(done)
    assert_kept(project, f"raise-{bad}", bad, error)


def test_rescore_with_a_scorer_that_raises_system_exit_keeps_the_rest_and_says_so(project):
    assert wrap(project, "to-rescore", "good").returncode == 0
    done = harness(project, "rescore", "to-rescore", "--scorer", "tests.experiment.hostile_scorers:sysexit_one",
                   "--replace")
    assert done.returncode == 1, done.stderr
    assert done.stdout.startswith("rescored experiment to-rescore: 6 run(s), 6 score(s) written, 1 could not be made")
    assert "1 score(s) could not be made: sysexit_one 1" in done.stderr
    assert_one_line(done)
    scores, passes = stored(project, "to-rescore")
    assert sorted(((r["value"], r["error"]) for r in scores["sysexit_one"]), key=str) == [
        (0.5, None)] * 5 + [(None, "SystemExit: 5")]
    assert len(scores["good"]) == 6 and passes.count(None) == 1 and passes.count(1) == 5


def test_a_scorer_that_ends_its_process_costs_one_error_score_under_process_isolation(project):
    done = wrap(project, "exit-isolated", "good", "exits_its_process", options=("--scorer-isolation", "process"))
    assert done.returncode == 1, done.stderr
    assert_one_line(done)
    assert_kept(project, "exit-isolated", "exits_its_process", "it ended its worker process (exit code 3)")


def test_without_isolation_a_scorer_that_ends_the_process_leaves_no_pass_claimed(project):
    """In a thread, os._exit takes the command with it (exit 3): what was stored stays, and
    every run whose scorer had not run keeps its place as an error: its pass is unknown, never 1."""
    done = wrap(project, "exit-thread", "good", "exits_its_process")
    assert done.returncode == 3
    scores, passes = stored(project, "exit-thread")
    assert passes and set(passes) == {None}
    assert {r["error"] for r in scores["exits_its_process"]} == {"not scored: its scorer has not run on this run"}


def test_a_huge_explanation_is_cut_and_memory_stays_bounded(project):
    done = wrap(project, "huge-explanation", "good", "huge_explanation")
    assert done.returncode == 0, done.stderr
    assert peak_mb(done) < 500, peak_mb(done)
    scores, passes = stored(project, "huge-explanation")
    texts = [r["explanation"] for r in scores["huge_explanation"]]
    assert len(texts) == 6 and all(len(t) <= 16_384 and t.endswith("…[truncated, 100000000 chars]") for t in texts)
    assert passes == [1] * 6
    assert (project / "runs.db").stat().st_size < 50_000_000


def test_a_huge_score_name_is_an_error_score_under_the_scorers_name(project):
    done = wrap(project, "huge-name", "good", "huge_name")
    assert done.returncode == 1, done.stderr
    scores = assert_kept(project, "huge-name", "huge_name", "at most 200 characters, not 10,000,000")
    assert all(len(r["error"]) < 400 for r in scores["huge_name"])
    assert max(len(name) for name in scores) <= 200


def test_numpy_values_and_bools_are_values_and_passes(project):
    done = wrap(project, "numpy", "good", "numpy_values")
    assert done.returncode == 0, done.stderr
    scores, passes = stored(project, "numpy")
    assert {(r["value"], r["passed"]) for r in scores["np_pass"]} == {(1.0, 1)}
    assert {(r["value"], r["passed"]) for r in scores["np_value"]} == {(0.5, None)}
    assert {(r["value"], r["passed"]) for r in scores["np_score"]} == {(2.0, 1)}
    assert passes == [1] * 6


@pytest.mark.parametrize("isolation", ["thread", "process"])
def test_what_a_scorer_reads_is_read_only_so_the_next_scorer_sees_the_run_as_stored(project, isolation):
    done = wrap(project, f"mutate-{isolation}", "good", "writes_the_answer", "reads_the_answer",
                options=("--scorer-isolation", isolation))
    assert done.returncode == 1, done.stderr
    scores = assert_kept(project, f"mutate-{isolation}", "writes_the_answer", "TypeError: what a scorer reads is "
                         "read-only")
    assert [r["passed"] for r in scores["reads_the_answer"]] == [1] * 6


def test_export_and_audit_agree_with_unknown_passes(project, tmp_path):
    assert wrap(project, "audited", "good", "system_exit", "hangs_on_q3", options=("--scorer-timeout", "1")).returncode == 1
    out = tmp_path / "audited.xlsx"
    done = harness(project, "export", "--out", str(out), "--experiment", "audited")
    assert done.returncode == 0, done.stderr
    done = harness(project, "audit", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    listed = json.loads(harness(project, "list", "--json", "--experiment", "audited").stdout)
    assert {(r["passed"], r["pass_unknown"]) for r in listed} == {(None, True)}


def test_ctrl_c_stops_at_the_first_press_keeps_what_is_stored_and_exits_130(project):
    child = subprocess.Popen(
        [sys.executable, "-c", RUNNER, "wrap", "agent_module:app", "--dataset", "cases.jsonl", "--experiment",
         "interrupted", "--scorer", "tests.experiment.hostile_scorers:good", "--scorer",
         "tests.experiment.hostile_scorers:hangs", "--store", "runs.db"],
        cwd=project, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=capped)
    deadline = time.monotonic() + 60
    mark = project / "hangs.started"
    mark.unlink(missing_ok=True)
    while time.monotonic() < deadline and not mark.exists():  # until the hung scorer holds the command
        time.sleep(0.2)
    time.sleep(0.5)
    sent = time.monotonic()
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=30)
    assert child.returncode == 130, err
    assert time.monotonic() - sent < 10
    assert "Traceback" not in err
    (line,) = [x for x in err.splitlines() if not x.startswith("peak_rss_kb")]
    assert line.startswith("harness: interrupted: experiment 'interrupted' has 6 run(s) stored; not scored")
    assert "hangs on 6 run(s)" in line and "good on" not in line
    scores, passes = stored(project, "interrupted")
    assert len(passes) == 6 and set(passes) == {None}  # the gating scorer never ran: no pass is claimed
    assert [r["error"] for r in scores["good"]] == [None] * 6  # what good scored is stored


def rescore_in_a_process(url: str, value: float, tmp_path: Path, *, delay: float = 0.05) -> subprocess.Popen:
    """``harness rescore shared --scorer hostile_scorers:slow_value --replace`` writing ``value``."""
    return subprocess.Popen(
        [sys.executable, "-m", "harness", "rescore", "shared", "--scorer", "tests.experiment.hostile_scorers:slow_value",
         "--replace", "--store", url], cwd=ROOT, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={**os.environ, "HOSTILE_VALUE": str(value), "HOSTILE_DELAY": str(delay),
             "HOSTILE_MARK": str(tmp_path / f"started-{value:g}")})


@pytest.mark.parametrize("engine", ["sqlite", "postgresql"])
def test_two_rescores_of_one_experiment_never_leave_a_mix(engine, tmp_path, request):
    from harness import Harness

    from .agents import react_agent

    url = str(tmp_path / "shared.db") if engine == "sqlite" else request.getfixturevalue("pg_url")
    h = Harness(url, writer="inline")
    h.experiment("shared", react_agent(), capital_cases(6))
    h.close()
    first = rescore_in_a_process(url, 1.0, tmp_path, delay=4.0)  # (holds it well past the second one's start)
    deadline = time.monotonic() + 60
    while not (tmp_path / "started-1").exists() and time.monotonic() < deadline:  # it holds the experiment
        time.sleep(0.1)
    second = rescore_in_a_process(url, 2.0, tmp_path)
    out2, err2 = second.communicate(timeout=120)
    out1, err1 = first.communicate(timeout=120)
    assert first.returncode == 0, err1
    assert out1.startswith("rescored experiment shared: 6 run(s), 6 score(s) written")
    assert second.returncode == 1 and "being rescored by another command" in err2, (out2, err2)
    assert "score(s) written" not in out2  # it says nothing it did not do

    def values() -> list[float]:
        store = Store(url)
        try:
            ids = [r["run_id"] for r in store.rows("runs", columns=["run_id"], where={"experiment": "shared"})]
            return [r["value"] for r in store.rows("scores", ids, where={"name": "slow_value"})]
        finally:
            store.close()

    assert values() == [1.0] * 6  # the first, whole
    again = rescore_in_a_process(url, 2.0, tmp_path)
    assert again.wait(timeout=120) == 0
    assert values() == [2.0] * 6  # the last one wins for the whole experiment


def test_a_store_lock_is_one_holders_at_a_time_and_freed_when_its_process_dies(tmp_path):
    from harness.store import StoreBusy

    path = tmp_path / "locks.db"
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import sys, time
        from harness import Store
        with Store({str(path)!r}).exclusive("rescore:e"):
            print("held", flush=True)
            time.sleep(60)
    """)], cwd=ROOT, text=True, stdout=subprocess.PIPE)
    assert holder.stdout.readline().strip() == "held"
    store = Store(path)
    try:
        with pytest.raises(StoreBusy):
            with store.exclusive("rescore:e"):
                pass
        with store.exclusive("rescore:other"):  # another key is free
            with pytest.raises(StoreBusy):  # and held once within a process too
                with store.exclusive("rescore:other"):
                    pass
        holder.kill()
        holder.wait()
        with store.exclusive("rescore:e"):  # the system released the dead holder's lock
            pass
    finally:
        store.close()
        if holder.poll() is None:
            holder.kill()
