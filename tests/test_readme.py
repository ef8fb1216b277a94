"""The README's examples run as shown, and every command, option and variable it names exists.

Lines that need a service a test cannot reach (Groq, Google, a span collector, the live
data APIs) are not run here; the behaviour they show is tested against local servers that
speak those protocols (tests/workflows/test_groq.py, tests/exporters/test_sheets.py,
tests/harness/test_otlp_endpoint.py, tests/workflows/test_live_sources.py), and their
commands and options are checked to exist below.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
import typer.main

from harness import Store
from harness.cli import app, main

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
#: A block setting up any of these, or a line using any of the options, needs a service the
#: tests cannot reach (or, for pip, the network).
EXTERNAL_BLOCKS = ("GROQ_API_KEY", "GOOGLE_APPLICATION_CREDENTIALS", "OTEL_", "pip install")
EXTERNAL_LINES = ("--gsheet", "--sources live")


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README, flags=re.S)


def command_lines(block: str) -> list[str]:
    return [line.split("  #")[0].strip() for line in block.splitlines() if line.strip().startswith("harness ")]


def run_cli(line: str, **values: str) -> int:
    for name, value in values.items():
        line = line.replace(name, value)
    with pytest.raises(SystemExit) as done:
        main(shlex.split(line)[1:])
    return done.value.code


@pytest.fixture
def clean_env(tmp_path, monkeypatch):
    for name in list(os.environ):
        if name.startswith(("HARNESS_", "OTEL_", "GROQ_", "GOOGLE_")):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_python_example_traces_scores_and_exports_a_run_and_harness_wrap_runs_it(clean_env, capsys):
    import openpyxl

    from harness.schema import ALL_SHEET_NAMES

    python = blocks("python")[0]
    (clean_env / "my_agent.py").write_text(python, encoding="utf-8")
    done = subprocess.run([sys.executable, "my_agent.py"], cwd=clean_env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "overall_score" in done.stdout and "completed" in done.stdout
    assert (clean_env / "my_runs.xlsx").exists()
    (run,) = Store(clean_env / "my_runs.db").rows("agent_metrics")
    assert (run["tool_choice_correctness"], run["trajectory_match"], run["overall_score"]) == (1.0, 1.0, 1.0)
    # as many sheets as the example's comments say, and the README's list of them
    assert f"# the {len(ALL_SHEET_NAMES)} sheets as pandas DataFrames" in python
    assert "every run of the store, sixteen sheets" in python and len(ALL_SHEET_NAMES) == 16
    assert openpyxl.load_workbook(clean_env / "my_runs.xlsx", read_only=True).sheetnames == list(ALL_SHEET_NAMES)
    listed = README.split("as rows of\nsixteen sheets:", 1)[1].split("What every column", 1)[0]
    assert re.findall(r"`(\w+)`", listed) == list(ALL_SHEET_NAMES)
    section = README.split("## Trace your own graph", 1)[1].split("\n## ", 1)[0]
    wraps = [line for block in re.findall(r"```bash\n(.*?)```", section, flags=re.S) for line in command_lines(block)
             if line.startswith("harness wrap my_agent")]
    (shown,) = re.findall(r"```text\n(.*?)```", section, flags=re.S)
    assert len(wraps) == 2 and wraps[1] == wraps[0] + " --json"
    sys.modules.pop("my_agent", None)
    try:
        capsys.readouterr()
        assert run_cli(wraps[0]) == 0
        out = capsys.readouterr().out
        assert "harness wrap my_agent:graph" in out and out.endswith(shown)  # the result, as the README shows it
        assert run_cli(wraps[1]) == 0
        assert json.loads(capsys.readouterr().out) == json.loads(shown.split("\n", 1)[1])
    finally:
        sys.modules.pop("my_agent", None)


def test_the_shell_examples_run_as_shown(clean_env, capsys):
    (clean_env / "companies.txt").write_text("Contoso Ltd\n# a comment\nBlue Harbor Logistics\n", encoding="utf-8")
    ran = []
    multi_agent = README.split("## Multi-agent graphs", 1)[1].split("\n## ", 1)[0]
    conversations = README.split("## Conversations and human-in-the-loop", 1)[1].split("\n## ", 1)[0]
    for block in blocks("bash"):
        if (any(marker in block for marker in EXTERNAL_BLOCKS) or block in multi_agent or block in conversations
                or "--scorer" in block):
            continue  # (the multi-agent, conversations and scorers' blocks run in their own tests)
        for line in command_lines(block):
            if (line.startswith(("harness wrap", "harness compare", "harness reprice")) or "--to-store" in line
                    or "--experiment base" in line or any(option in line for option in EXTERNAL_LINES)):
                continue  # they need the Python examples' modules or experiments: the tests around this one run them
            run_id = next(iter(Store(clean_env / "harness.db").run_ids()), "") if "RUN_ID" in line else ""
            assert run_cli(line, RUN_ID=run_id) == 0, (line, capsys.readouterr().err)
            ran.append(line.split()[1])
    assert {"run", "audit", "export"} <= set(ran)
    assert (clean_env / "report.html").exists() and (clean_env / "everything.xlsx").exists()


def test_the_experiment_example_runs_as_shown_and_its_gate_catches_the_regression(clean_env, capsys):
    section = README.split("## Evaluate your own agent", 1)[1].split("\n## ", 1)[0]
    agent, gate, in_python = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    (clean_env / "capitals.py").write_text(agent, encoding="utf-8")
    (cases,) = re.findall(r"```json\n(.*?)```", section, flags=re.S)
    (clean_env / "cases.jsonl").write_text(cases, encoding="utf-8")
    (shell,) = re.findall(r"```bash\n(.*?)```", section, flags=re.S)
    codes = []
    sys.modules.pop("capitals", None)
    try:
        for line in command_lines(shell):
            codes.append(run_cli(line.split("||")[0].strip()))
    finally:
        sys.modules.pop("capitals", None)
    assert codes == [0, 0, 0, 0, 1]  # --fail-on-regression: the candidate regressed
    out = capsys.readouterr().out
    assert "experiment cand: 6 run(s) of 6 case(s), passed 0/6" in out
    seeing = README.split("## See your runs", 1)[1].split("\n## ", 1)[0]
    (report,) = [line for block in re.findall(r"```bash\n(.*?)```", seeing, flags=re.S)
                 for line in command_lines(block) if "--experiment base" in line]
    assert run_cli(report) == 0  # the compare view of the two experiments, as the README shows it
    page = (clean_env / "compare.html").read_text(encoding="utf-8")
    cases = json.loads(re.search(r"id=report-cases>(.*?)</script>", page, flags=re.S).group(1))
    fr = {name: next(c for c in cases[name]["cases"] if c["id"] == "fr") for name in ("base", "cand")}
    assert (fr["base"]["p"], fr["cand"]["p"]) == (1.0, 0.0)
    assert (fr["base"]["ans"], fr["cand"]["ans"]) == ("The capital of France is Paris.", "The capital of france is unknown.")
    assert "Comparison: base → cand" in page and "data-metric='pass_rate' data-verdict='regressed'" in page
    from harness import Harness

    comparison = Harness().compare("base", "cand").to_dict()
    pass_rate = next(m for m in comparison["metrics"] if m["name"] == "pass_rate")
    assert (pass_rate["a"], pass_rate["b"], pass_rate["verdict"]) == (1.0, 0.0, "regressed")
    scope: dict = {}
    exec(compile(gate, "README gate", "exec"), scope)
    with pytest.raises(AssertionError):
        scope["test_the_candidate_does_not_regress"]()
    # h.experiment with every argument, at its default, and its summary's columns
    (clean_env / "in_python.py").write_text(in_python, encoding="utf-8")
    done = subprocess.run([sys.executable, "in_python.py"], cwd=clean_env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    header, *rows = done.stdout.splitlines()
    assert header.split() == ["case_id", "runs", "pass_rate", "runs_with_pass", "failed_runs", "answer_score"]
    assert [row.split()[1:] for row in rows] == [["fr", "1", "1.0", "1", "0", "1.0"], ["jp", "1", "1.0", "1", "0", "1.0"],
                                                 ["pe", "1", "1.0", "1", "0", "1.0"], ["ke", "1", "1.0", "1", "0", "1.0"],
                                                 ["cl", "1", "1.0", "1", "0", "1.0"], ["eg", "1", "1.0", "1", "0", "1.0"]]
    import inspect

    from harness import Harness as Facade

    call = in_python.split("h.experiment(", 1)[1].split("\n)", 1)[0]
    shown = re.findall(r"\b(\w+)=", re.sub(r"#.*", "", call))
    keywords = [p for p in inspect.signature(Facade.experiment).parameters if p not in ("self", "name", "graph",
                                                                                       "dataset")]
    assert sorted(shown) == sorted(keywords)  # every argument h.experiment takes, none it does not
    (prices,) = re.findall(r"```toml\n(.*?)```", section, flags=re.S)
    (clean_env / "prices.toml").write_text(prices, encoding="utf-8")
    from harness.costs import PRICES, load_prices

    try:
        assert set(load_prices(clean_env / "prices.toml")) == {"acme-mini-2026"}
    finally:
        PRICES.pop("acme-mini-2026", None)


def test_the_costs_example_prices_parts_and_re_prices_the_experiments_as_shown(clean_env, capsys):
    evaluate = README.split("## Evaluate your own agent", 1)[1].split("\n## ", 1)[0]
    (clean_env / "capitals.py").write_text(re.findall(r"```python\n(.*?)```", evaluate, flags=re.S)[0])
    (clean_env / "cases.jsonl").write_text(re.findall(r"```json\n(.*?)```", evaluate, flags=re.S)[0])
    section = README.split("## Costs that match the bill", 1)[1].split("\n## ", 1)[0]
    (prices,) = re.findall(r"```toml\n(.*?)```", section, flags=re.S)
    (clean_env / "prices.toml").write_text(prices, encoding="utf-8")
    from harness.costs import read_prices

    (price,) = read_prices(clean_env / "prices.toml").values()
    assert (price.table, price.cached_input_per_million, price.cache_write_1h_per_million) == ("user 2026-01-31",
                                                                                               0.15, 3.0)
    sys.modules.pop("capitals", None)
    try:
        for name, attr in (("base", "graph"), ("cand", "candidate")):
            assert run_cli(f"harness wrap capitals:{attr} --dataset cases.jsonl --experiment {name}") == 0
    finally:
        sys.modules.pop("capitals", None)
    (shell,) = re.findall(r"```bash\n(.*?)```", section, flags=re.S)
    lines = command_lines(shell)
    assert [line.split()[1] for line in lines] == ["reprice", "reprice"]
    capsys.readouterr()
    for line in lines:
        assert run_cli(line) == 0, (line, capsys.readouterr().err)
    out = capsys.readouterr().out
    assert "in 12 run(s) with prices.toml" in out and "in 12 run(s);" in out


def test_the_scorers_example_scores_rescores_and_labels_as_shown(clean_env, capsys):
    evaluate = README.split("## Evaluate your own agent", 1)[1].split("\n## ", 1)[0]
    (clean_env / "capitals.py").write_text(re.findall(r"```python\n(.*?)```", evaluate, flags=re.S)[0])
    (clean_env / "cases.jsonl").write_text(re.findall(r"```json\n(.*?)```", evaluate, flags=re.S)[0])
    section = README.split("## Your own scorers", 1)[1].split("\n## ", 1)[0]
    (scorers,) = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    (clean_env / "my_scorers.py").write_text(scorers)
    experiment, outside = re.findall(r"```bash\n(.*?)```", section, flags=re.S)
    modules = ("capitals", "my_scorers")
    for name in modules:
        sys.modules.pop(name, None)
    outputs = []
    try:
        for shell in (experiment, outside):
            for line in command_lines(shell):
                run_id = next(iter(Store(clean_env / "harness.db").run_ids()), "") if "RUN_ID" in line else ""
                assert run_cli(line, RUN_ID=run_id) == 0, (line, capsys.readouterr().err)
            outputs.append(capsys.readouterr().out)
    finally:
        for name in modules:
            sys.modules.pop(name, None)
    out = outputs[0]
    assert "code score looked_up_the_country: 6 run(s), passed 0/6, mean 0.00" in out
    assert "code score short_answer: 6 run(s), passed 6/6" in out
    assert "label reviewed = pass (read the answer myself)" in out and "read the answer myself" in out.split(
        "label reviewed", 1)[1]
    store = Store(clean_env / "harness.db")
    scores = {(r["name"], r["source"]) for r in store.rows("scores")}
    assert {("looked_up_the_country", "code"), ("reviewed", "human")} <= scores
    runs = list(store.rows("runs", columns=["run_id", "experiment", "workflow", "passed"]))
    assert {r["passed"] for r in runs if r["experiment"] == "scored"} == {0}  # the tool-argument check fails
    # the run outside experiments: scored by workflow and time, shown by list with its score
    out = outputs[1]
    (traced,) = [r for r in runs if r["experiment"] is None]
    assert traced["workflow"] == "graph" and traced["passed"] == 1
    assert "rescored workflow graph · started since" in out and "deleted 6 score(s) named short_answer" in out
    assert {(r["run_id"], r["name"]) for r in store.rows("scores", where={"name": "short_answer"})} == {
        (traced["run_id"], "short_answer")}
    # (a run outside experiments has no answer_path: its answer is its output as text, 11 words)
    assert "short_answer 11 ✓" in out.split("deleted", 1)[1]


def test_the_conversations_example_records_shows_scores_and_evaluates_threads_as_shown(clean_env, capsys):
    section = README.split("## Conversations and human-in-the-loop", 1)[1].split("\n## ", 1)[0]
    desk, scorers = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    (clean_env / "support_desk.py").write_text(desk)
    (clean_env / "thread_scorers.py").write_text(scorers)
    (cases,) = re.findall(r"```json\n(.*?)```", section, flags=re.S)
    (clean_env / "conversations.jsonl").write_text(cases)
    done = subprocess.run([sys.executable, "support_desk.py"], cwd=clean_env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["ticket-42 completed Send this reply?",
                                        "ticket-42 completed We will refund your order (order 42 arrived broken).",
                                        "ticket-43 completed Send this reply?"]
    shells = re.findall(r"```bash\n(.*?)```", section, flags=re.S)
    modules = ("support_desk", "thread_scorers")
    outputs = []
    try:
        for shell in shells:
            for line in command_lines(shell):
                assert run_cli(line) == 0, (line, capsys.readouterr().err)
                outputs.append(capsys.readouterr().out)
    finally:
        for name in modules:
            sys.modules.pop(name, None)
    threads, show_thread, waiting, rescored, wrapped, desk_threads = outputs
    assert re.search(r"ticket-42\s+2\s+completed", threads) and re.search(r"ticket-43\s+1\s+waiting", threads)
    said = ["turn 1", "order 42 arrived broken", "Send this reply?", "(approve)", "turn 2", "answer   yes",
            "We will refund your order"]
    places = [show_thread.index(s) for s in said]
    assert places == sorted(places)
    assert "ticket-43" in waiting and "ticket-42" not in waiting
    assert "scored 1 thread(s): 1 score(s) written" in rescored
    assert "experiment desk: 5 run(s) of 3 case(s), passed 5/5" in wrapped, wrapped
    assert "code score refund_needs_approval: 3 run(s), passed 3/3" in wrapped
    listed = json.loads(subprocess.run([sys.executable, "-m", "harness", "threads", "--experiment", "desk", "--json"],
                                       cwd=clean_env, capture_output=True, text=True, timeout=120).stdout)
    assert sorted((t["case_id"], t["turns"], t["status"], t["passed"]) for t in listed) == [
        ("approved", 2, "completed", True), ("asks", 1, "waiting", True), ("declined", 2, "completed", True)]
    assert desk_threads.count("desk / ") == 3


def test_the_team_store_examples_shard_an_experiment_and_copy_runs(clean_env, capsys):
    evaluate = README.split("## Evaluate your own agent", 1)[1].split("\n## ", 1)[0]
    (clean_env / "capitals.py").write_text(re.findall(r"```python\n(.*?)```", evaluate, flags=re.S)[0])
    (clean_env / "cases.jsonl").write_text(re.findall(r"```json\n(.*?)```", evaluate, flags=re.S)[0])
    team = README.split("## Team store", 1)[1].split("\n## ", 1)[0]
    shards, copy = [command_lines(b) for b in re.findall(r"```bash\n(.*?)```", team, flags=re.S)
                    if "pip install" not in b]
    sys.modules.pop("capitals", None)
    try:
        assert [run_cli(line) for line in shards] == [0, 0]
        assert run_cli("harness wrap capitals:graph --dataset cases.jsonl --experiment base --store laptop.db") == 0
    finally:
        sys.modules.pop("capitals", None)
    nightly = list(Store(clean_env / "harness.db").rows("runs", columns=["case_id"], where={"experiment": "nightly"}))
    assert sorted(r["case_id"] for r in nightly) == ["cl", "eg", "fr", "jp", "ke", "pe"]
    (line,) = copy
    assert run_cli(line) == 0 and run_cli(line) == 0
    assert "copied 6 run(s) to" in capsys.readouterr().out and Store(clean_env / "team.db").count("runs") == 6


def _steady(show: str) -> list[str]:
    """``harness show`` output without what differs from run to run: the run id, times,
    durations and timeline bars (and the spacing that follows their widths)."""
    text = re.sub(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", "RUN_ID", show)
    text = re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", "WHEN", text)
    text = re.sub(r"\b\d+(\.\d+)? (ms|s)\b", "T", text)
    text = re.sub(r"[█▏▎▍▌▋▊▉]", "", text)
    return [" ".join(line.split()) for line in text.strip().splitlines()]


def test_the_multi_agent_example_traces_a_supervisor_and_show_prints_it_as_shown(clean_env, capsys):
    pytest.importorskip("langgraph_supervisor")
    from tests.harness.teams import ScriptedChatModel, add, multiply, supervisor_scripts, web_search

    section = README.split("## Multi-agent graphs", 1)[1].split("\n## ", 1)[0]
    (python,) = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    (shell,) = re.findall(r"```bash\n(.*?)```", section, flags=re.S)
    (shown,) = re.findall(r"```text\n(.*?)```", section, flags=re.S)
    scripts = supervisor_scripts()
    scope = {"supervisor_model": ScriptedChatModel(script=scripts["supervisor"], model_name="gpt-4o"),
             "expert_model": ScriptedChatModel(script=scripts["research_expert"] + scripts["math_expert"]),
             "web_search": web_search, "add": add, "multiply": multiply}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # create_react_agent, as the supervisor's README uses it, is marked as moved
        exec(compile(python, "README multi-agent example", "exec"), scope)
    run_id = scope["run"].run_id
    assert scope["run"].status == "completed"
    capsys.readouterr()
    (line,) = command_lines(shell)
    assert run_cli(line, RUN_ID=run_id) == 0
    assert _steady(capsys.readouterr().out) == _steady(shown)


def _options() -> dict[str, set[str]]:
    group = typer.main.get_command(app)
    return {name: {opt for p in cmd.params for opt in getattr(p, "opts", []) + getattr(p, "secondary_opts", [])}
            for name, cmd in group.commands.items()}


def test_every_command_and_option_the_readme_shows_exists():
    options = _options()
    for block in blocks("bash"):
        for line in command_lines(block):
            words = shlex.split(line.replace("$(", "").replace(")", ""))
            assert words[1] in options, f"README shows an unknown command: {line}"
            unknown = [w.split("=")[0] for w in words[2:] if w.startswith("--") and w.split("=")[0] not in options[words[1]]]
            assert unknown == [], f"README shows options `harness {words[1]}` does not have: {unknown}"
    mentioned = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]+)", README))
    root = typer.main.get_command(app)
    known = set().union(*options.values()) | {"--debug"} | {opt for p in root.params for opt in p.opts}
    assert mentioned - known == set()


def test_the_configuration_table_lists_every_variable_of_env_example():
    listed = set(re.findall(r"^([A-Z][A-Z0-9_]+)=", (ROOT / ".env.example").read_text(encoding="utf-8"), flags=re.M))
    section = README.split("## Configuration", 1)[1].split("\n## ", 1)[0]
    in_table = set(re.findall(r"`([A-Z][A-Z0-9_]+)`", section))
    assert listed == in_table


def test_the_readme_points_at_nothing_a_clone_does_not_have():
    for target in re.findall(r"\]\(([^)#]+)\)", README):
        if not target.startswith("http"):
            assert (ROOT / target).exists(), target
    assert not re.search(r"DESIGN|seed \d|/work/", README)


def test_the_judge_examples_label_measure_gate_and_compare_pairwise_as_shown(clean_env, capsys):
    evaluate = README.split("## Evaluate your own agent", 1)[1].split("\n## ", 1)[0]
    (clean_env / "capitals.py").write_text(re.findall(r"```python\n(.*?)```", evaluate, flags=re.S)[0])
    (clean_env / "cases.jsonl").write_text(re.findall(r"```json\n(.*?)```", evaluate, flags=re.S)[0])
    checking = README.split("## Checking your judge", 1)[1].split("\n## ", 1)[0]
    pairwise = README.split("## Pairwise comparison", 1)[1].split("\n## ", 1)[0]
    (judges,) = re.findall(r"```python\n(.*?)```", checking, flags=re.S)
    (clean_env / "my_judges.py").write_text(judges)
    (labelling,) = re.findall(r"```bash\n(.*?)```", checking, flags=re.S)
    (refused,) = re.findall(r"```text\n(.*?)```", checking, flags=re.S)
    (comparing,) = re.findall(r"```bash\n(.*?)```", pairwise, flags=re.S)
    (printed,) = re.findall(r"```text\n(.*?)```", pairwise, flags=re.S)
    modules = ("capitals", "my_judges")
    for name in modules:
        sys.modules.pop(name, None)
    cities = ("Paris", "Tokyo", "Lima", "Nairobi", "Santiago", "Cairo")
    codes, outputs = [], []
    try:
        shell = command_lines(re.findall(r"```bash\n(.*?)```", evaluate, flags=re.S)[0])
        assert [run_cli(line) for line in shell[:2]] == [0, 0]  # the base and cand experiments
        base_run = next(r["run_id"] for r in Store(clean_env / "harness.db").rows(
            "runs", columns=["run_id"], where={"experiment": "base"}))
        for line in command_lines(labelling) + command_lines(comparing):
            if "--import" in line:  # a person fills in the queue: right when the answer names the city
                queue = clean_env / "queue.jsonl"
                lines = [json.loads(text) for text in queue.read_text().splitlines()]
                for entry in lines:
                    entry["label"]["right"] = any(city in (entry["answer"] or "") for city in cities)
                queue.write_text("".join(json.dumps(entry) + "\n" for entry in lines))
            capsys.readouterr()
            codes.append(run_cli(line.split("||")[0].strip(), RUN_ID=base_run))
            outputs.append(capsys.readouterr())
    finally:
        for name in modules:
            sys.modules.pop(name, None)
    assert codes == [0, 0, 0, 0, 0, 0, 0, 2, 0, 1, 0]
    assert "wrote queue.jsonl: 12 run(s) of base, cand to label right" in outputs[2].out
    assert "stored 12 label(s) from queue.jsonl (right 12)" in outputs[3].out
    assert "Cohen's κ (passes)" in outputs[5].out and "people: alice, bob" in outputs[5].out
    by_alice = json.loads(outputs[6].out)
    assert by_alice["headline"]["statistic"] == "kappa" and by_alice["headline"]["value"] == 1.0
    assert by_alice["headline"]["ci_low"] == pytest.approx(0.4707, abs=1e-4)  # as the README says
    assert outputs[7].err.strip() == refused.strip()
    shown = outputs[8].out
    for line in printed.strip().splitlines():
        assert line.split("...")[0].strip() in shown
    assert json.loads(outputs[10].out)["pairwise"]["judge"] == "my_judges:shorter"


def test_the_online_evaluation_example_scores_monitors_and_reports_production_runs_as_shown(clean_env, capsys):
    """The bot's runs scored by a worker (once, then following), its counts from the store, the
    monitor paging on a pass rate of 75% against --min-pass 0.9, the report's production view, and
    the harness scoring in-process with the same keys."""
    import signal
    import time

    section = README.split("## Online evaluation", 1)[1].split("\n## ", 1)[0]
    bot, scorers, judge, in_process = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    (clean_env / "support_bot.py").write_text(bot)
    (clean_env / "online_scorers.py").write_text(scorers)
    assert "trajectory_judge(" in judge and "--max-cost 5 --per 1h" in section  # (Groq: not run here)
    done = subprocess.run([sys.executable, "support_bot.py"], cwd=clean_env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    once, follow, budget = re.findall(r"```bash\n(.*?)```", section, flags=re.S)
    assert any(marker in budget for marker in EXTERNAL_BLOCKS)
    outputs = {}
    try:
        for line in command_lines(once):
            if line.startswith("python "):
                continue
            command, _, fallback = line.partition("||")
            code = run_cli(command.strip())
            outputs[command.split()[1] + (" status" if "--status" in command else "")] = capsys.readouterr().out
            assert code == (1 if "monitor" in command else 0), (line, capsys.readouterr().err)
            assert ("echo" in fallback) == ("monitor" in command)
    finally:
        sys.modules.pop("online_scorers", None)
    assert re.search(r"│ helped\s+│ src-[0-9a-f]{12}\s+│\s+200 │", outputs["score"])
    assert "online scoring, every worker of the store" in outputs["score status"]
    alert = re.search(r"ALERT support_bot: pass_rate (0\.\d+) \[[0-9.]+, ([0-9.]+)\] is below 0\.9 \(--min-pass\) "
                      r"beyond its interval", outputs["monitor"])
    assert alert and 0.6 <= float(alert[1]) < float(alert[2]) < 0.9  # a sample of runs of which 75% pass
    page = (clean_env / "production.html").read_text(encoding="utf-8")
    assert "<section id=production>" in page and "data-workflow='support_bot'" in page
    store = Store(clean_env / "harness.db")
    sampled = sum(1 for _ in store.rows("scores"))
    assert 70 <= sampled <= 130 and {r["name"] for r in store.rows("scores")} == {"helped"}
    # The worker that follows scores the runs that arrive while it runs, and stops on SIGTERM.
    (line,) = command_lines(follow)
    worker = subprocess.Popen([sys.executable, "-m", "harness", *shlex.split(line)[1:]], cwd=clean_env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=dict(os.environ, PYTHONPATH=str(clean_env)))
    try:
        assert subprocess.run([sys.executable, "support_bot.py"], cwd=clean_env, capture_output=True,
                              timeout=300).returncode == 0
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and sum(1 for _ in store.rows("scores")) < 2 * sampled - 40:
            time.sleep(0.2)
        time.sleep(1)
        worker.send_signal(signal.SIGTERM)
        out, err = worker.communicate(timeout=60)
    finally:
        if worker.poll() is None:
            worker.kill()
    assert worker.returncode == 0, err
    assert re.search(r"│ helped\s+│ src-[0-9a-f]{12}\s+│\s+200 │", out)  # the 200 new runs, the first 200 not again
    # In-process: the harness scores its own run; a worker finds nothing more to do for it.
    (clean_env / "in_process.py").write_text(in_process)
    done = subprocess.run([sys.executable, "in_process.py"], cwd=clean_env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert "seen 1 · sampled" in done.stdout
    store.close()
