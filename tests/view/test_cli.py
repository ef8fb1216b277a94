"""`harness list`, `show`, `report` and `--version` as a user types them; run ids by their
first characters wherever a run id is taken; output that survives pipes."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from importlib.metadata import version

import pytest

from harness.cli import main

from .conftest import harness_cli, page_json


@pytest.fixture
def cli(capsys, recorded):
    def run(*args: str, store: bool = True) -> tuple[int, str, str]:
        with pytest.raises(SystemExit) as info:
            main([*args, *(["--store", str(recorded.path)] if store else [])])
        out = capsys.readouterr()
        return int(info.value.code or 0), out.out, out.err

    return run


def test_version_prints_the_installed_version():
    done = harness_cli("--version")
    assert done.returncode == 0 and done.stdout.strip() == f"langgraph-harness {version('langgraph-harness')}"


def test_list_prints_the_newest_runs_first_with_full_ids_when_piped(recorded):
    done = harness_cli("list", "--store", str(recorded.path))
    assert done.returncode == 0 and done.stderr == ""
    lines = done.stdout.splitlines()
    ids = [recorded.failed, recorded.agent, recorded.credit]
    assert [next(i for i, line in enumerate(lines) if run_id in line) for run_id in ids] == sorted(
        next(i for i, line in enumerate(lines) if run_id in line) for run_id in ids)
    assert max(map(len, lines)) > 80 and "left out" not in done.stdout  # not cut to 80 columns
    assert "Acme Corp" in done.stdout and "credit_analysis" in done.stdout and "tokens" in done.stdout


def test_list_json_gives_an_object_per_run_with_nulls_where_not_set(cli, recorded):
    code, out, _ = cli("list", "--json")
    runs = json.loads(out)
    assert code == 0 and [r["run_id"] for r in runs] == [recorded.failed, recorded.agent, recorded.credit]
    for key in ("run_id", "timestamp", "workflow", "company_name", "status", "total_time_ms", "total_tokens",
                "total_cost", "evaluation_score", "experiment", "case_id"):
        assert key in runs[0], key
    assert runs[0]["experiment"] is None and runs[0]["case_id"] is None and runs[0]["total_tokens"] is None
    assert runs[2]["total_tokens"] > 0 and runs[2]["evaluation_score"] > 0


@pytest.mark.parametrize("args, expected", [
    (("--status", "failed"), "failed"),
    (("--workflow", "agent"), "agent"),
    (("--workflow", "agent", "--workflow", "broken"), "agent+failed"),
    (("--limit", "1"), "failed"),
])
def test_list_filters_and_limits(cli, recorded, args, expected):
    code, out, _ = cli("list", "--json", *args)
    names = {"failed": recorded.failed, "agent": recorded.agent}
    assert code == 0 and [r["run_id"] for r in json.loads(out)] == [names[e] for e in ("failed", "agent")
                                                                       if e in expected.split("+")]


def test_list_filters_on_the_experiment_of_each_run(tmp_path, capsys):
    from harness import Store

    store = Store(tmp_path / "exp.db")
    store.write("runs", [{"run_id": f"r{i}", "status": "completed", "experiment": ("base", "cand", None)[i % 3],
                          "case_id": f"c{i}"} for i in range(6)])
    with pytest.raises(SystemExit):
        main(["list", "--store", str(tmp_path / "exp.db"), "--experiment", "cand", "--json"])
    assert [(r["run_id"], r["experiment"]) for r in json.loads(capsys.readouterr().out)] == [
        ("r4", "cand"), ("r1", "cand")]
    with pytest.raises(SystemExit):
        main(["list", "--store", str(tmp_path / "exp.db"), "--experiment", "base"])
    out = capsys.readouterr().out
    assert "base / c3" in out and "base / c0" in out and "cand" not in out


@pytest.mark.parametrize("args, message", [
    (("list", "--status", "done"), "--status must be completed or failed, got 'done'"),
    (("list", "--limit", "-1"), "--limit must be 0 (all) or more"),
    (("show", "zz"), "no run 'zz' in store"),
    (("report", "--experiment", "nope"), "no runs of experiment 'nope' in the store"),
])
def test_bad_input_is_one_line_and_exit_2(cli, args, message):
    code, _, err = cli(*args)
    assert code == 2 and err.startswith("harness: error: ") and message in err and err.count("\n") == 1


def test_a_report_of_an_empty_store_is_one_line_and_writes_nothing(tmp_path, capsys):
    from harness import Store

    Store(tmp_path / "empty.db").close()
    with pytest.raises(SystemExit) as info:
        main(["report", "--store", str(tmp_path / "empty.db"), "--out", str(tmp_path / "r.html")])
    assert info.value.code == 2 and "nothing to report: the store has no runs" in capsys.readouterr().err
    assert not (tmp_path / "r.html").exists()


def test_a_store_that_does_not_exist_is_one_line_and_is_not_created(tmp_path, capsys):
    for command in (["list"], ["show", "abcd"], ["report"]):
        with pytest.raises(SystemExit) as info:
            main([*command, "--store", str(tmp_path / "none.db")])
        assert info.value.code == 2 and "no store at" in capsys.readouterr().err
    assert not (tmp_path / "none.db").exists()


def test_show_takes_a_run_id_by_its_first_characters(cli, recorded):
    code, out, err = cli("show", recorded.agent[:6])
    assert code == 0 and err == ""
    assert out.startswith(f"run {recorded.agent}") and "research" in out and "tool outer" in out


def test_show_json_is_the_run_its_tree_and_its_scores(cli, recorded):
    code, out, _ = cli("show", recorded.credit[:8], "--json")
    data = json.loads(out)
    assert code == 0 and set(data) == {"run", "tree", "scores"} and data["run"]["run_id"] == recorded.credit

    def walk(entries):
        for e in entries:
            yield e
            yield from walk(e["children"])

    kinds: dict[str, int] = {}
    for e in walk(data["tree"]):
        assert {"kind", "name", "started_at", "duration_ms", "status", "error", "children"} <= set(e)
        kinds[e["kind"]] = kinds.get(e["kind"], 0) + 1
    assert kinds == dict(recorded.entries(recorded.credit))
    assert data["scores"]["judge"]["overall"] is not None


def test_show_json_gives_a_failed_entrys_traceback(cli, recorded):
    code, out, _ = cli("show", recorded.failed, "--json")
    (node,) = json.loads(out)["tree"]
    (tool,) = node["children"]
    assert code == 0 and tool["input"] == {"query": "q"} and tool["output"] is None
    assert ", in broken\n" in tool["traceback"] and tool["traceback"].endswith("ValueError: backend unavailable for q\n")
    assert node["traceback"].endswith("ValueError: backend unavailable for q\n")


def test_export_and_report_take_run_ids_by_their_first_characters(cli, recorded, tmp_path):
    code, _, err = cli("export", "--out", str(tmp_path / "one.xlsx"), "--run", recorded.agent[:5])
    assert code == 0, err
    from python_calamine import CalamineWorkbook

    rows = CalamineWorkbook.from_path(str(tmp_path / "one.xlsx")).get_sheet_by_name("runs").to_python()
    assert [r[0] for r in rows[1:]] == [recorded.agent]
    code, _, err = cli("report", "--out", str(tmp_path / "one.html"), "--run", recorded.agent[:4],
                       "--run", recorded.failed)
    assert code == 0 and "2 runs" in err
    page = (tmp_path / "one.html").read_text()
    assert recorded.agent in page and recorded.failed in page and recorded.credit not in page


def test_a_prefix_shorter_than_four_characters_is_refused_everywhere(cli, recorded, tmp_path):
    for args in (("show", recorded.agent[:3]), ("export", "--out", str(tmp_path / "x.xlsx"), "--run", recorded.agent[:3]),
                 ("report", "--run", recorded.agent[:3], "--out", str(tmp_path / "x.html"))):
        code, _, err = cli(*args)
        assert code == 2 and "give at least 4 characters" in err, args


@pytest.mark.parametrize("command", [["list", "--limit", "0"], ["list", "--json", "--limit", "0"],
                                     ["show", "RUN", "--json"], ["show", "RUN"], ["--version"]])
@pytest.mark.parametrize("reader", ["head -n 1", "head -c 0"])  # -c 0: gone before the first write
def test_output_piped_into_head_ends_quietly_with_the_exit_status_it_would_have_had(recorded, many, command, reader):
    command = [recorded.credit if c == "RUN" else c for c in command]
    store = [] if command == ["--version"] else ["--store", str(many)]
    shell = (f"{sys.executable} -m harness {' '.join(command + store)} | {reader}; "
             "echo \"exit ${PIPESTATUS[0]}\"")
    done = subprocess.run(["bash", "-c", shell], capture_output=True, text=True, timeout=120)
    assert done.stdout.splitlines()[-1] == "exit 0" and done.stderr == ""


def test_a_reader_gone_before_the_first_line_changes_nothing(recorded):
    proc = subprocess.Popen([sys.executable, "-m", "harness", "show", recorded.credit, "--json", "--store",
                             str(recorded.path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # the reader goes away at once: every write meets a closed pipe
    assert proc.wait(timeout=120) == 0
    assert proc.stderr.read() == b""


def test_report_of_two_experiments_summarises_both_and_keeps_the_newest_up_to_the_limit(many, tmp_path, capsys):
    out = tmp_path / "exp.html"
    with pytest.raises(SystemExit) as info:
        main(["report", "--store", str(many), "--experiment", "base", "--experiment", "cand", "--limit", "100",
              "--out", str(out)])
    assert info.value.code == 0
    assert "100 runs (the newest of 1,500; --limit to change)" in capsys.readouterr().err
    page = out.read_text()
    section = page[page.index("<section id=experiments>"):]
    assert "<td>base</td><td class=num>50</td>" in section and "<td>cand</td><td class=num>50</td>" in section


def _compare_data(page: str) -> dict:
    data = page_json(page, "report-data")
    return {**data["compare"], "templates": re.findall(r"<template id=(cmp-\d+-\d+)>", page)}


def test_report_compares_every_ordered_pair_of_its_experiments_and_opens_on_the_newest(compared, tmp_path, capsys):
    out = tmp_path / "all.html"
    with pytest.raises(SystemExit) as info:
        main(["report", "--store", str(compared.path), "--out", str(out)])
    assert info.value.code == 0
    view = _compare_data(out.read_text())
    assert view["experiments"] == ["twice", "cand", "base"] and view["default"] == [1, 0] and view["stats"]
    assert sorted(view["templates"]) == [f"cmp-{a}-{b}" for a in range(3) for b in range(3) if a != b]


def test_report_of_two_named_experiments_opens_on_them_in_the_order_named(compared, tmp_path, capsys):
    out = tmp_path / "two.html"
    with pytest.raises(SystemExit) as info:
        main(["report", "--store", str(compared.path), "--experiment", "cand", "--experiment", "base",
              "--out", str(out)])
    assert info.value.code == 0
    view = _compare_data(out.read_text())
    assert view["experiments"] == ["cand", "base"] and view["default"] == [0, 1]
    assert sorted(view["templates"]) == ["cmp-0-1", "cmp-1-0"]
