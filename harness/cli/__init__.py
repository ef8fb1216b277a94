"""The ``harness`` command line: one module per command, each parses, calls the library, prints.

Exit codes: 0 success (audit clean), 1 a run failed or the audit found discrepancies,
2 unusable input. Errors are one line on stderr; ``--debug`` shows the traceback.
"""

from __future__ import annotations

import importlib
import sys
from typing import Annotated

import typer

from ._errors import UsageError, fail
from ._open import close_opened
from ._output import guarded_output, say

app = typer.Typer(
    name="harness",
    help="Trace, evaluate and audit LangGraph agent runs.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
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


_COMMANDS = ("run", "wrap", "rescore", "label", "agreement", "compare", "list", "threads", "show", "report", "export",
             "audit")
for _name in _COMMANDS:
    try:
        _module = importlib.import_module(f"{__name__}.{_name}")
    except ModuleNotFoundError as exc:  # a command not built yet is simply absent
        if exc.name != f"{__name__}.{_name}":
            raise
        continue
    app.command(name=_name, help=_module.__doc__)(_module.command)


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
                code = app(args=argv, standalone_mode=False)
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
            if hasattr(exc, "format_message"):  # click's usage errors: bad option, missing argument
                message = exc.format_message()
                if not message:  # help was shown instead (no arguments)
                    raise SystemExit(2) from None
                fail(message, code=getattr(exc, "exit_code", 2) or 2, debug=debug)
            fail(f"{type(exc).__name__}: {exc}", code=2, debug=debug)
    raise SystemExit(code if isinstance(code, int) else 0)
