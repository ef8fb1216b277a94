"""The ``harness`` command line: one module per command, each parses, calls the library, prints.

Exit codes: 0 success (audit clean), 1 a run failed or the audit found discrepancies,
2 unusable input. Errors are one line on stderr; ``--debug`` shows the traceback.
"""

from __future__ import annotations

import importlib
import sys
from typing import Annotated, Any

import typer
import typer.main

from ._errors import UsageError, fail
from ._open import close_opened
from rich.text import Text

from . import _output
from ._output import guarded_output, say

app = typer.Typer(
    name="harness",
    help="Trace, evaluate and audit LangGraph agent runs.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _print_version(asked: bool) -> None:
    if asked:
        from importlib.metadata import PackageNotFoundError, version

        try:
            installed = version("langgraph-harness")
        except PackageNotFoundError:  # imported from a source tree that was never installed
            installed = "unknown (not installed)"
        say(f"langgraph-harness {installed}", err=False)
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[bool, typer.Option("--version", is_eager=True, callback=_print_version,
                                          help="Print the installed version and exit.")] = False,
) -> None:
    """Trace, evaluate and audit LangGraph agent runs."""


#: Each command with what ``harness --help`` says of it in its list (one line at 80 columns;
#: ``harness COMMAND --help`` says the rest).
_COMMANDS = {
    "run": "Run credit analyses of companies, with evaluation attached.",
    "wrap": "Run your own LangGraph graph under the harness (an input or a dataset).",
    "rescore": "Score stored runs again with your own scorers, or delete a score.",
    "score": "Score production runs as they arrive, sampled, once each.",
    "monitor": "Watch production runs per window, and alert when they drop.",
    "label": "Label a run with a person's judgement (pass/fail or a number).",
    "agreement": "How far a score agrees with people's labels (kappa, rho, intervals).",
    "reprice": "Recompute stored costs from stored tokens with new prices.",
    "compare": "Compare two experiments case by case, with a regression gate.",
    "list": "List the newest runs: status, pass, time, tokens, cost, scores.",
    "threads": "List conversations (threads): turns, last status, totals.",
    "show": "Show one run as a tree of nodes, model and tool calls, and scores.",
    "report": "Write one self-contained HTML report to look through runs.",
    "export": "Export runs to an Excel workbook, a Google Sheet or another store.",
    "audit": "Audit an exported workbook or Google Sheet: recompute every number.",
}
for _name, _summary in _COMMANDS.items():
    try:
        _module = importlib.import_module(f"{__name__}.{_name}")
    except ModuleNotFoundError as exc:  # a command not built yet is simply absent
        if exc.name != f"{__name__}.{_name}":
            raise
        continue
    app.command(name=_name, help=_module.__doc__, short_help=_summary)(_module.command)


def command() -> Any:
    """The command line as click runs it: a repeatable option's value is named as the one
    value it takes each time (``--run <str>``, where typer would say ``<list[str]>``); its
    help says it repeats."""
    built = typer.main.get_command(app)
    for sub in getattr(built, "commands", {}).values():
        for param in sub.params:
            if getattr(param, "multiple", False) and param.metavar is None:
                label = getattr(param, "bare_type", lambda: "")()
                param.metavar = f"<{label[5:-1]}>" if label.startswith("list[") else None
    return built


def main(argv: list[str] | None = None) -> None:
    """Console entry point: maps every failure to one line and an exit code.

    A ``.env`` file in the working directory fills environment variables that are not
    already set (flags > environment > .env > defaults).
    """
    from harness import config

    config.load_dotenv()
    debug = "--debug" in (argv if argv is not None else sys.argv)
    if debug:
        (argv if argv is not None else sys.argv).remove("--debug")
    with guarded_output():  # everything printed from here on is scrubbed (see ._output)
        try:
            try:
                code = command().main(args=argv, prog_name="harness", standalone_mode=False)
            finally:
                close_opened()
        except UsageError as exc:
            fail(str(exc), code=exc.code, debug=debug)
        except typer.Exit as exc:
            raise SystemExit(exc.exit_code) from None
        except SystemExit:
            raise
        except KeyboardInterrupt:
            fail("interrupted", code=130, debug=debug)
        except Exception as exc:  # noqa: BLE001 - the CLI's last line of defence
            from harness.store.errors import StoreError

            if isinstance(exc, StoreError):  # the store at fault says so itself, in one line
                fail(str(exc), code=2, debug=debug)
            if type(exc).__name__ == "Abort":
                fail("aborted", code=1, debug=debug)
            if type(exc).__name__ == "NoArgsIsHelpError":  # a command alone: its help, as --help would
                _output.show(Text(exc.ctx.get_help()))  # (a command module is named show)
                raise SystemExit(2) from None
            if hasattr(exc, "format_message"):  # click's usage errors: bad option, missing argument
                message = exc.format_message()
                if not message:  # help was shown instead (no arguments)
                    raise SystemExit(2) from None
                fail(message, code=getattr(exc, "exit_code", 2) or 2, debug=debug)
            fail(f"{type(exc).__name__}: {exc}", code=2, debug=debug)
    raise SystemExit(code if isinstance(code, int) else 0)
