"""What the CLI prints, with hostile data in the store and in messages: no secret gets
through (errors, warnings, tables, trees, ``--json``, the audit's text and HTML), and
control characters from stored data are shown inert, piped and on a terminal, while our
own colours still reach the terminal; so are the characters that reorder or hide text
(bidirectional controls, zero-width characters, line separators), shown as ``\\u202e``.

The store is written by real runs of a real graph (``harness wrap``); secrets are then put
into it with SQL, as a store written before a redaction rule existed would hold them.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import textwrap
from pathlib import Path

import pytest

from tests.support.cli import harness_cli
from tests.support.secrets import GITHUB_KEY, OPENAI_KEY
from tests.support.terminal import CONTROL, HOSTILE, INVISIBLE, SGR

GRAPH = textwrap.dedent(f'''
    import logging, operator
    from typing import Annotated, TypedDict
    from langchain_core.tools import tool
    from langgraph.graph import StateGraph, START, END

    class S(TypedDict):
        log: Annotated[list, operator.add]

    @tool
    def fetch(query: str) -> str:
        """Fetch a page."""
        return {HOSTILE!r} + {INVISIBLE!r} + " page for " + query

    @tool
    def rotate(query: str) -> str:
        """Rotate a key."""
        logging.getLogger("vendor.client").warning("retrying with key %s", {OPENAI_KEY!r})
        raise PermissionError("invalid api key provided: " + {OPENAI_KEY!r})

    def build(*steps):
        g = StateGraph(S)
        previous = START
        for name, fn in steps:
            g.add_node(name, fn)
            g.add_edge(previous, name)
            previous = name
        g.add_edge(previous, END)
        return g.compile()

    app = build(("fetch", lambda s, config: {{"log": [fetch.invoke({{"query": "acme"}}, config)]}}))
    failing = build(("rotate", lambda s, config: {{"log": [rotate.invoke({{"query": "acme"}}, config)]}}))
''')


def harness(project: Path, *args: str, terminal: bool = False) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "NO_COLOR", "TERM", "COLUMNS")}
    if terminal:  # rich then writes as to a terminal: colours, cursor moves, the terminal's width
        env.update(FORCE_COLOR="1", TERM="xterm-256color", COLUMNS="200")
    return harness_cli(*args, cwd=project, env=env)


#: What a progress bar on a terminal writes besides colours: hide and show the cursor, go
#: up a line, clear a line, back to its start.
_PROGRESS = re.compile(r"\x1b\[\?25[lh]|\x1b\[[0-9]*[AK]|\r")


def assert_clean(text: str, *, progress: bool = False) -> None:
    """No secret, and no control character but newline, tab and our colour sequences (and,
    with ``progress``, a progress bar's own)."""
    assert OPENAI_KEY not in text and GITHUB_KEY not in text
    assert OPENAI_KEY[8:30] not in text and GITHUB_KEY[4:26] not in text  # nor a recognisable part
    assert "\x1b]" not in text and "\x1b[2J" not in text and "\x07" not in text
    rest = SGR.sub("", _PROGRESS.sub("", text) if progress else text)
    assert not re.search(CONTROL, rest), repr(re.search(f".{{0,20}}{CONTROL}.{{0,20}}", rest).group())


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """A store with a run whose tool output holds terminal escapes (subject too), a failed
    run, and two experiments; names, subjects and an error then given secrets by SQL."""
    root = tmp_path_factory.mktemp("hostile")
    (root / "hostile_graph.py").write_text(GRAPH)
    (root / "cases.jsonl").write_text("".join(json.dumps({"id": f"c{i}", "input": {"log": []}}) + "\n"
                                              for i in range(2)))
    done = harness(root, "wrap", "hostile_graph:app", "--input", '{"log": []}', "--subject", f"{HOSTILE}Acme{INVISIBLE}",
                   "--store", "s.db")
    assert done.returncode == 0, done.stderr
    for name in ("base", "cand"):
        done = harness(root, "wrap", "hostile_graph:app", "--dataset", "cases.jsonl", "--experiment", name,
                       "--store", "s.db")
        assert done.returncode == 0, done.stderr
    with sqlite3.connect(root / "s.db") as db:
        db.execute("UPDATE runs SET experiment = experiment || '-' || ? WHERE experiment IS NOT NULL", (GITHUB_KEY,))
        db.execute("UPDATE runs SET company_name = ? WHERE experiment IS NOT NULL", (f"Acme {OPENAI_KEY}",))
        db.execute("UPDATE runs SET status = 'failed', error = ? WHERE experiment IS NULL",
                   (f"PermissionError: key {OPENAI_KEY} refused\x1b[2J",))
        # where harness show cuts a tool's input to 50 characters, through the token
        db.execute("UPDATE tool_calls SET tool_input = ? WHERE run_id IN (SELECT run_id FROM runs "
                   "WHERE experiment IS NULL)", (json.dumps({"query": f"token {GITHUB_KEY} ok"}),))
    return root


def _run_id(project: Path) -> str:
    with sqlite3.connect(project / "s.db") as db:
        return db.execute("SELECT run_id FROM runs WHERE experiment IS NULL").fetchone()[0]


def test_a_failed_run_under_wrap_prints_its_error_and_the_graphs_warning_without_the_key(project):
    done = harness(project, "wrap", "hostile_graph:failing", "--input", '{"log": []}', "--store", "w.db")
    assert done.returncode == 1
    failed = [line for line in done.stderr.splitlines() if line.startswith("harness: run ")]
    assert len(failed) == 1 and "failed: " in failed[0] and "invalid api key provided: [REDACTED]" in failed[0]
    assert "retrying with key [REDACTED]" in done.stderr  # the library's log line, through logging
    assert_clean(done.stdout + done.stderr)


@pytest.mark.parametrize("terminal", [False, True], ids=["piped", "terminal"])
def test_list_shows_secrets_redacted_and_escapes_inert(project, terminal):
    done = harness(project, "list", "--store", "s.db", terminal=terminal)
    assert done.returncode == 0, done.stderr
    assert_clean(done.stdout + done.stderr)
    assert "[REDACTED]" in done.stdout and "\\x1b]2;pwned" in done.stdout
    if terminal:
        assert SGR.search(done.stdout)  # our colours still reach a terminal
    else:  # measured as printed: piped, the subject is not wrapped
        assert "\\x1b]2;pwned\\x07\\x1b[2JAcme\\u202e\\u2066\\u200b\\u2028" in done.stdout


@pytest.mark.parametrize("terminal", [False, True], ids=["piped", "terminal"])
def test_show_shows_a_tool_output_with_escapes_as_visible_text(project, terminal):
    done = harness(project, "show", _run_id(project), "--store", "s.db", terminal=terminal)
    assert done.returncode == 0, done.stderr
    assert_clean(done.stdout + done.stderr)
    assert "\\x1b]2;pwned" in done.stdout and "\\x1b[2J" in done.stdout and "[REDACTED]" in done.stdout
    assert "\\u202e" in done.stdout and "\\u2028" in done.stdout
    if terminal:
        assert SGR.search(done.stdout)


def test_json_output_is_the_exact_data_with_secrets_redacted(project):
    shown = harness(project, "show", _run_id(project), "--store", "s.db", "--json")
    listed = harness(project, "list", "--store", "s.db", "--json")
    for done in (shown, listed):
        assert done.returncode == 0, done.stderr
        assert_clean(done.stdout)
    run = json.loads(shown.stdout)
    assert run["run"]["company_name"] == f"{HOSTILE}Acme{INVISIBLE}"  # control characters kept, as JSON escapes
    assert "\\u202e" in shown.stdout and "\u202e" not in shown.stdout  # escaped: inert on a terminal too
    assert run["run"]["error"] == "PermissionError: key [REDACTED] refused\x1b[2J"
    assert {r["experiment"] for r in json.loads(listed.stdout)} == {None, "base-[REDACTED]", "cand-[REDACTED]"}


@pytest.mark.parametrize("args", [
    ["report", "--experiment", f"nope-{OPENAI_KEY}"],
    ["compare", f"base-{GITHUB_KEY}", f"nope-{OPENAI_KEY}"],
    ["export", "--experiment", f"nope-{OPENAI_KEY}", "--out", "x.xlsx"],
    ["show", OPENAI_KEY],
    ["list", "--status", OPENAI_KEY],
    ["run", "Acme", "--no-excel", "--gsheet", f"{OPENAI_KEY}/edit"],
    ["wrap", f"{OPENAI_KEY}:app", "--input", "{}"],
    ["audit", f"{OPENAI_KEY}.xlsx"],
], ids=lambda args: args[0])
def test_every_commands_failure_message_names_a_key_redacted(project, args):
    done = harness(project, *args, "--store", "s.db") if args[0] != "audit" else harness(project, *args)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "[REDACTED]" in done.stderr
    assert_clean(done.stdout + done.stderr)


@pytest.mark.parametrize("terminal", [False, True], ids=["piped", "terminal"])
def test_compare_names_experiments_redacted_in_its_table_and_json(project, terminal):
    done = harness(project, "compare", f"base-{GITHUB_KEY}", f"cand-{GITHUB_KEY}", "--store", "s.db",
                   terminal=terminal)
    assert done.returncode == 0, done.stderr
    assert "base-[REDACTED] → cand-[REDACTED]" in done.stdout
    assert_clean(done.stdout + done.stderr)
    as_json = harness(project, "compare", f"base-{GITHUB_KEY}", f"cand-{GITHUB_KEY}", "--store", "s.db", "--json")
    assert json.loads(as_json.stdout)["a"] == "base-[REDACTED]"
    assert_clean(as_json.stdout)


def test_the_audit_text_json_and_html_report_redact_what_the_workbook_holds(project):
    with sqlite3.connect(project / "s.db") as db:  # a label the audit flags, and shows as found
        db.execute("UPDATE runs SET status = ? WHERE experiment LIKE 'cand-%'", (f"{HOSTILE}{OPENAI_KEY}",))
    try:
        exported = harness(project, "export", "--store", "s.db", "--out", "audit.xlsx")
        assert exported.returncode == 0, exported.stderr
        for terminal in (False, True):
            text = harness(project, "audit", "audit.xlsx", "--report", "audit.html", terminal=terminal)
            assert text.returncode == 1 and "[REDACTED]" in text.stdout, text.stdout + text.stderr
            assert_clean(text.stdout)
            assert_clean(text.stderr, progress=terminal)
        as_json = harness(project, "audit", "audit.xlsx", "--json")
        assert as_json.returncode == 1 and "[REDACTED]" in as_json.stdout
        assert_clean(as_json.stdout + as_json.stderr)
        page = (project / "audit.html").read_text()
        assert "[REDACTED]" in page and OPENAI_KEY not in page and OPENAI_KEY[8:30] not in page
    finally:
        with sqlite3.connect(project / "s.db") as db:
            db.execute("UPDATE runs SET status = 'completed' WHERE experiment LIKE 'cand-%'")
