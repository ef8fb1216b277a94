"""The rules of docs/architecture.md that the import graph can check: data flows one way
and no module imports, even for typing, a module that imports it back."""

import ast
import re
from functools import cache
from pathlib import Path

import grimp
import networkx as nx
import pytest

ROOT = Path(__file__).parents[1]
PACKAGES = ("harness", "workflows", "evaluators", "exporters")


@pytest.fixture(scope="module")
def graph():
    return grimp.build_graph(*PACKAGES, include_external_packages=False, cache_dir=None)


def imports(graph, importer_prefix, imported_prefix):
    """(importer, imported, line) of every import from a module under one prefix into another."""
    found = []
    for importer in graph.modules:
        if not _under(importer, importer_prefix):
            continue
        for imported in graph.find_modules_directly_imported_by(importer):
            if _under(imported, imported_prefix):
                for detail in graph.get_import_details(importer=importer, imported=imported):
                    found.append((importer, imported, detail["line_number"]))
    return found


def _under(module, prefix):
    return module == prefix or module.startswith(prefix + ".")


@cache
def _module_level_lines(module):
    path = ROOT / Path(*module.split("."))
    path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
    lines = set()

    def visit(nodes):  # imports run on import: at module level, under `if` / `try` included
        for node in nodes:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                lines.add(node.lineno)
            elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                visit(ast.iter_child_nodes(node))

    visit(ast.parse(path.read_text()).body)
    return lines


def test_no_module_imports_one_that_imports_it_back(graph):
    edges = nx.DiGraph((m, i) for m in graph.modules for i in graph.find_modules_directly_imported_by(m))
    assert list(nx.simple_cycles(edges)) == []


def test_evaluators_import_nothing_of_ours(graph):
    for other in ("harness", "workflows", "exporters"):
        assert imports(graph, "evaluators", other) == []


def test_the_core_knows_no_workflow(graph):
    assert [i for i in imports(graph, "harness", "workflows") if not _under(i[0], "harness.cli")] == []


def test_the_core_reaches_exporters_only_lazily_from_the_facade_and_the_cli(graph):
    for importer, _, line in imports(graph, "harness", "exporters"):
        assert _under(importer, "harness.cli") or (
            importer == "harness._run" and line not in _module_level_lines(importer)), (importer, line)


def test_exporters_read_the_store_never_a_live_run(graph):
    reached = {imported for _, imported, _ in imports(graph, "exporters", "harness")}
    assert reached <= {"harness.schema", "harness.store", "harness.config", "harness.inputs", "harness.outputs"}


def test_the_safe_file_reader_imports_nothing_of_ours(graph):
    for other in PACKAGES:
        assert imports(graph, "harness.inputs", other) == [], other


def test_every_file_is_written_by_one_helper_that_stands_on_the_file_reader_alone(graph):
    """harness.outputs writes reports and workbooks (beside the target, synced, renamed); it
    reaches nothing of ours but the file reader, which says what a path is."""
    reached = {imported for _, imported, _ in imports(graph, "harness.outputs", "harness")}
    assert {m for m in reached if not _under(m, "harness.outputs")} <= {"harness.inputs"}
    for other in ("workflows", "evaluators", "exporters"):
        assert imports(graph, "harness.outputs", other) == [], other
    writers = sorted(str(path.relative_to(ROOT)) for package in PACKAGES for path in (ROOT / package).rglob("*.py")
                     if re.search(r"\.write_(text|bytes)\(|\bos\.replace\(|open\([^)]*['\"][wax]b?['\"]",
                                  path.read_text()))
    assert writers == ["harness/outputs/replace.py"], writers


def test_tracing_and_the_store_know_nothing_of_who_calls_them(graph):
    for low, high in (("harness.tracing", "harness.writers"), ("harness.tracing", "harness._run"),
                      ("harness.tracing", "harness.cli"), ("harness.tracing", "harness.audit"),
                      ("harness.store", "harness.tracing"), ("harness.store", "harness.writers"),
                      ("harness.store", "harness._run"), ("harness.writers", "harness._run")):
        assert imports(graph, low, high) == [], (low, high)


def test_a_private_module_is_imported_only_by_its_own_package(graph):
    """One rule across packages: a module whose name starts with ``_`` is private to its package
    (what others use is exported by the package's ``__init__``); tests may import it."""
    crossings = []
    for module in graph.modules:
        parts = module.split(".")
        private = next((i for i, part in enumerate(parts) if part.startswith("_") and not part.startswith("__")), None)
        if private is None:
            continue
        package = ".".join(parts[:private])
        crossings += [(importer, module) for importer in graph.find_modules_that_directly_import(module)
                      if not _under(importer, package)]
    assert crossings == []


def test_the_secrets_stand_on_the_ground_floor(graph):
    """Tracing, scoring, the CLI and the audit scrub text with the redactor; it reaches nothing
    of the harness above it but the configuration."""
    reached = {imported for _, imported, _ in imports(graph, "harness.secrets", "harness")}
    assert {m for m in reached if not _under(m, "harness.secrets")} <= {"harness.config"}
    for other in ("workflows", "evaluators", "exporters"):
        assert imports(graph, "harness.secrets", other) == [], other


def test_tracing_builds_rows_and_never_reaches_the_store(graph):
    """The store owns the run transaction; tracing only makes the rows a writer hands it."""
    assert imports(graph, "harness.tracing", "harness.store") == []


def test_the_store_reaches_only_the_schema_the_configuration_and_the_safe_file_reader(graph):
    """The file reader imports nothing of ours (above): it tells the store what a path is."""
    reached = {imported for _, imported, _ in imports(graph, "harness.store", "harness")}
    assert {m for m in reached if not _under(m, "harness.store")} <= {"harness.schema", "harness.config",
                                                                      "harness.inputs"}


def test_the_facade_talks_to_one_writer_and_only_dispatch_picks_it(graph):
    """Harness only knows the Writer interface and make_writer; which writer runs is decided once."""
    reached = {imported for _, imported, _ in imports(graph, "harness._run", "harness.writers")}
    assert reached <= {"harness.writers"}
    chosen = {importer for importer, imported, _ in imports(graph, "harness", "harness.writers.process")
              if not _under(importer, "harness.writers.process")}
    assert chosen <= {"harness.writers", "harness.writers.dispatch", "harness.writers.worker"}


def test_only_the_configuration_reads_settings_from_the_environment():
    """Every module asks harness.config; only it and the secret scanner (whose job is to read
    the whole environment) touch os.environ."""
    readers = sorted(str(path.relative_to(ROOT)) for package in PACKAGES for path in (ROOT / package).rglob("*.py")
                     if re.search(r"\bos\.environ\b|\bgetenv\(|\bputenv\(", path.read_text()))
    assert readers == ["harness/config.py", "harness/secrets/redact.py"]


def test_the_harness_package_keeps_at_most_eight_modules_at_its_top_level():
    assert len(list((ROOT / "harness").glob("*.py"))) <= 8


def test_the_view_reads_the_store_never_a_live_run_and_the_audit_draws_with_its_plots(graph):
    reached = {imported for _, imported, _ in imports(graph, "harness.view", "harness")}
    assert {m for m in reached if not _under(m, "harness.view")} <= {"harness.schema", "harness.store",
                                                                     "harness.outputs"}
    assert imports(graph, "harness.view", "workflows") == [] and imports(graph, "harness.view", "exporters") == []
    assert ("harness.audit._plots", "harness.view.plots") in {(a, b) for a, b, _ in imports(graph, "harness.audit",
                                                                                          "harness.view")}


def test_experiments_read_runs_from_the_store_never_through_the_view(graph):
    """Scoring, rescoring and labels read runs (and resolve their ids) from the store; the view
    is a reader beside them, not under them."""
    assert imports(graph, "harness.experiment", "harness.view") == []
