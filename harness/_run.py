"""``Harness`` and ``Run``: the public entry points that tie capture, rows, spans and the store.

Data flows one way: callbacks -> event records (:mod:`._callback`) -> rows (:mod:`._rows`)
and spans (:mod:`._spans`) -> the store. Nothing a run does inside the harness can change
the graph's result: every step of :meth:`Run._finish` is guarded, failures are logged and
counted in ``runs.harness_errors``, and the graph's own exception propagates unchanged.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timezone
from typing import Any
from uuid import UUID

import pandas as pd
from opentelemetry import trace

from . import _rows
from ._callback import HarnessCallbackHandler
from ._redact import Redactor
from ._rows import RunContext, iso
from ._spans import emit_spans
from ._telemetry import resolve_tracer
from ._writer import BackgroundWriter
from ._verify import PROFILES, total_sheets_logged, verification_status
from .schema import COUNTED_SHEETS, SHEET_NAMES, sheet as sheet_named
from .store import Store

logger = logging.getLogger("harness")

def _now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


class Harness:
    """Entry point: opens the store and starts runs.

    ``store`` is a path, a ``sqlite:///`` URL or a :class:`Store`; default ``$HARNESS_STORE``
    or ``./harness.db``. ``tracer_provider`` overrides where spans go (default: the global
    provider if the application set one, else OTLP/HTTP if ``OTEL_EXPORTER_OTLP_ENDPOINT``
    is set, else no spans).
    """

    def __init__(
        self,
        store: str | os.PathLike[str] | Store | None = None,
        *,
        tracer_provider: trace.TracerProvider | None = None,
        background: bool = True,
    ) -> None:
        self.store = store if isinstance(store, Store) else Store(store)
        self.tracer_provider = tracer_provider
        self.errors = 0  # harness-internal failures across runs (never raised into the host)
        self._writer = BackgroundWriter() if background else None

    def flush(self) -> None:
        """Wait until every finished run has been written to the store (and its spans emitted).

        Runs are written by a background thread when ``background=True`` (the default), so
        the graph's caller does not pay for it; every method that reads the store calls this.
        """
        if self._writer is not None:
            self._writer.flush()

    def run(
        self,
        subject: str | None = None,
        workflow: str | None = None,
        *,
        expected_tools: Sequence[str] | None = None,
        reference_trajectory: Sequence[str] | None = None,
        profile: str = "generic",
        model: str | None = None,
        temperature: float | None = None,
        batch_id: str | None = None,
        agent_names: Mapping[str, str] | None = None,
        node_types: Mapping[str, str] | None = None,
        phases: Mapping[str, str] | None = None,
        config: Mapping[str, Any] | None = None,
        verify: bool = True,
        run_id: str | None = None,
    ) -> Run:
        """A run context (``with`` or ``async with``); pass ``run.config`` to the graph."""
        if profile not in PROFILES:
            raise ValueError(f"unknown profile {profile!r}; profiles are {', '.join(PROFILES)}")
        return Run(
            self, subject=subject, workflow=workflow, expected_tools=expected_tools,
            reference_trajectory=reference_trajectory, profile=profile, model=model,
            temperature=temperature, batch_id=batch_id, agent_names=agent_names or {},
            node_types=node_types or {}, phases=phases or {}, config=config, verify=verify,
            run_id=run_id,
        )

    def sheets(self, run_ids: Sequence[str] | None = None) -> dict[str, pd.DataFrame]:
        """The fifteen sheets (spec order) as DataFrames, spec columns first."""
        self.flush()
        return self.store.sheets(run_ids)

    def log(self, run_id: str, sheet: str, rows: Iterable[Mapping[str, Any]]) -> int:
        """Append rows to a finished run (e.g. a batch's consistency rows); returns rows added."""
        self.flush()
        s = sheet_named(sheet)
        company = next(iter(self.store.rows("runs", [run_id])), {}).get("company_name")
        redact = Redactor()
        complete = []
        for row in rows:
            full = {"run_id": run_id, "company_name": company, "timestamp": _now_iso(),
                    "generated_by": s.generated_by, **row}
            complete.append(_valid(s.name, full))
        _rows.redact_rows(complete, redact)  # the same scrub as a run's own rows, JSON cells included
        return self.store.write(s.name, complete)

    def verify(self, run_id: str, written: Mapping[str, int] | None = None, *, profile: str | None = None,
               required: Sequence[str] | None = None) -> dict[str, Any]:
        """(Re)write the run's ``log_tests`` row from the rows now in the store.

        Profile and required sheets default to those of the run's previous ``log_tests`` row.
        """
        self.flush()
        previous = next(iter(self.store.rows("log_tests", [run_id])), None)
        runs_row = next(iter(self.store.rows("runs", [run_id])), {})
        profile = profile or (previous or {}).get("profile") or "generic"
        if required is None:
            required = (previous or {}).get("required_sheets") or list(PROFILES.get(profile, ()))
        counts = self.store.counts(run_id)
        row = {
            "run_id": run_id,
            "company_name": runs_row.get("company_name"),
            **{name: counts[name] for name in COUNTED_SHEETS},
            "total_sheets_logged": total_sheets_logged(counts),
            "verification_status": verification_status(counts, required, written),
            "timestamp": _now_iso(),
            "generated_by": "Us",
            "profile": profile,
            "required_sheets": list(required),
            "written_rows": dict(written) if written is not None else (previous or {}).get("written_rows"),
            "row_key": f"{run_id}:log_tests",
        }
        self.store.replace("log_tests", [row])
        return row

    def export_excel(self, path: str | os.PathLike[str], run_ids: Sequence[str] | None = None):
        """Write the fifteen sheets to an .xlsx workbook (see :mod:`exporters`)."""
        from exporters import write_excel

        self.flush()
        return write_excel(self.store, path, run_ids)

    def export_google_sheets(self, spreadsheet_id: str, credentials_file: str | None = None,
                             run_ids: Sequence[str] | None = None):
        """Append the run rows a spreadsheet has not acknowledged yet (exactly once)."""
        from exporters import push_google_sheets

        self.flush()
        return push_google_sheets(self.store, spreadsheet_id, credentials_file=credentials_file, run_ids=run_ids)


def _valid(sheet: str, row: Mapping[str, Any]) -> dict[str, Any]:
    """Keep the schema's columns; an unknown column is logged (never stored under a wrong name)."""
    s = sheet_named(sheet)
    allowed = set(s.all_column_names) | {"row_key"}
    unknown = set(row) - allowed
    if unknown:
        logger.error("sheet %s has no column(s) %s; values dropped", sheet, ", ".join(sorted(unknown)))
    return {k: v for k, v in row.items() if k in allowed}


class Run:
    """One recorded run. Use as a context manager; pass :attr:`config` to the graph."""

    def __init__(self, harness: Harness, *, subject, workflow, expected_tools, reference_trajectory, profile,
                 model, temperature, batch_id, agent_names, node_types, phases, config, verify, run_id) -> None:
        self.harness = harness
        self.store = harness.store
        self.run_id = run_id or str(uuid.uuid4())
        self.subject = subject
        self.workflow = workflow
        self.expected_tools = list(expected_tools) if expected_tools is not None else None
        self.reference_trajectory = list(reference_trajectory) if reference_trajectory is not None else None
        self.profile = profile
        self.required_sheets: list[str] = list(PROFILES[profile])
        if profile == "generic":
            if expected_tools is not None:
                self.required_sheets.append("tool_selections")
            if expected_tools is not None or reference_trajectory is not None:
                self.required_sheets.append("agent_metrics")
        self.model, self.temperature, self.batch_id = model, temperature, batch_id
        self.agent_names, self.node_types, self.phases = agent_names, node_types, phases
        self.verify = verify
        self.status = "running"
        self.error: str | None = None
        self.result: dict[str, Any] = {}
        self.handler = HarnessCallbackHandler(self)
        self._user_config = dict(config or {})
        self._logged: list[tuple[str, dict[str, Any], UUID | None]] = []
        self._lock = threading.Lock()
        self._start_ns = self._end_ns = 0
        self._errors = 0
        self._finished = False

    # --- the config handed to the graph ------------------------------------------------
    @property
    def config(self) -> dict[str, Any]:
        user = self._user_config
        callbacks = user.get("callbacks")
        if callbacks is None:
            merged: Any = [self.handler]
        elif isinstance(callbacks, list):
            merged = [*callbacks, self.handler]
        else:  # a callback manager
            merged = callbacks.copy()
            merged.add_handler(self.handler, inherit=True)
        metadata = {**(user.get("metadata") or {}), "harness_run_id": self.run_id}
        return {**user, "callbacks": merged, "metadata": metadata}

    # --- context manager (sync and async) ---------------------------------------------
    def __enter__(self) -> Run:
        self._start_ns = time.time_ns()
        # The application's active span (if any) when the run starts becomes the parent of
        # the run's root span; nothing is attached to the context by the harness.
        self._outer_span = trace.get_current_span()
        self.status = "running"
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        self._finish(exc)
        return False  # the graph's exception propagates unchanged

    async def __aenter__(self) -> Run:
        return self.__enter__()

    async def __aexit__(self, exc_type, exc, tb) -> bool:
        return self.__exit__(exc_type, exc, tb)

    # --- what nodes call ---------------------------------------------------------------
    def log(self, sheet: str, row: Mapping[str, Any], *, config: Mapping[str, Any] | None = None) -> None:
        """Record one domain row; node, step and agent are filled from the node in ``config``."""
        try:
            sheet_named(sheet)
            parent = _parent_run_id(config)
            node = self.handler.node_event(parent) if parent is not None else None
            with self._lock:
                self._logged.append((sheet, dict(row), node.id if node is not None else None))
        except Exception:  # noqa: BLE001
            self._count_error("log")

    def set_result(self, **fields: Any) -> None:
        """Fields of the ``runs`` row (risk_level, credit_score, confidence, evaluation_score, ...)."""
        allowed = set(sheet_named("runs").all_column_names)
        unknown = set(fields) - allowed
        if unknown:
            raise ValueError(f"runs has no column(s) {', '.join(sorted(unknown))}")
        self.result.update(fields)

    def rows(self, sheet: str) -> list[dict[str, Any]]:
        """The run's rows of ``sheet`` so far (captured and logged), before redaction."""
        sheet_named(sheet)
        return self._build_rows(time.time_ns(), spans={}).get(sheet, [])

    # --- finishing ---------------------------------------------------------------------
    def _count_error(self, what: str) -> None:
        self._errors += 1
        self.harness.errors += 1
        logger.warning("harness: %s failed for run %s", what, self.run_id, exc_info=True)

    def _build_rows(self, end_ns: int, spans: Mapping[UUID, tuple[str, str, str | None]]) -> dict[str, list[dict]]:
        events = self.handler.snapshot()
        ctx = RunContext(self.run_id, self.subject, self.agent_names, self.node_types, self.phases, spans)
        tree, rows = _rows.captured_rows(ctx, events)
        with self._lock:
            logged = list(self._logged)
        seq: Counter[str] = Counter()
        for sheet, row, node_id in logged:
            s = sheet_named(sheet)
            node = tree.by_id.get(node_id) if node_id else None
            filled = {"run_id": self.run_id, "company_name": self.subject, "timestamp": _now_iso(),
                      "generated_by": s.generated_by}
            if node is not None:
                filled.update(node=node.name, node_type=_rows.node_type_of(ctx, node),
                              agent_name=self.agent_names.get(node.name, node.name),
                              step_number=tree.steps.get(node.id))
            names = set(s.all_column_names)
            full = {k: v for k, v in filled.items() if k in names}
            full.update(row)
            seq[sheet] += 1
            full.setdefault("row_key", f"{self.run_id}:{sheet}:{seq[sheet]}")
            rows.setdefault(sheet, []).append(_valid(sheet, full))
        if self.expected_tools is not None or self.reference_trajectory is not None:
            try:
                from evaluators import generic_run_rows

                extra = generic_run_rows(rows, expected_tools=self.expected_tools,
                                         reference_trajectory=self.reference_trajectory)
                for sheet, new_rows in extra.items():
                    s = sheet_named(sheet)
                    for i, row in enumerate(new_rows, start=1):
                        full = {"run_id": self.run_id, "company_name": self.subject, "timestamp": _now_iso(),
                                "generated_by": s.generated_by, "row_key": f"{self.run_id}:{sheet}:eval:{i}", **row}
                        rows.setdefault(sheet, []).append(_valid(sheet, full))
            except Exception:  # noqa: BLE001
                self._count_error("evaluation")
        rows["runs"] = [self._runs_row(tree, rows, end_ns, events)]
        return rows

    def _runs_row(self, tree, rows, end_ns, events) -> dict[str, Any]:
        llm_rows = rows.get("llm_calls", [])
        nodes = [e for e in events if e.kind == "node"]
        last = max(nodes, key=lambda e: (e.end_ns or 0, e.start_ns)) if nodes else None
        models = Counter(r["model"] for r in llm_rows if r.get("model"))
        temps = [r["temperature"] for r in llm_rows if r.get("temperature") is not None]
        tools = list(dict.fromkeys(r["tool_name"] for r in rows.get("tool_calls", [])))
        evaluations = [r.get("overall_score") for r in rows.get("evaluations", []) if r.get("overall_score") is not None]
        tokens = [r["total_tokens"] for r in llm_rows if r.get("total_tokens") is not None]
        run_costs = [r["total_cost"] for r in llm_rows if r.get("total_cost") is not None]
        row = {
            "run_id": self.run_id,
            "company_name": self.subject,
            "node": last.name if last else None,
            "agent_name": self.agent_names.get(last.name, last.name) if last else None,
            "model": self.model or (models.most_common(1)[0][0] if models else None),
            "temperature": self.temperature if self.temperature is not None else (temps[0] if temps else None),
            "status": self.status,
            "started_at": iso(self._start_ns),
            "completed_at": iso(end_ns),
            "total_time_ms": (end_ns - self._start_ns) / 1e6,
            "total_steps": len(nodes),
            "total_llm_calls": len(llm_rows),
            "tools_used": tools,
            "evaluation_score": evaluations[-1] if evaluations else None,
            "timestamp": iso(end_ns),
            "generated_by": "Us",
            "workflow": self.workflow,
            "batch_id": self.batch_id,
            "thread_id": (self._user_config.get("configurable") or {}).get("thread_id"),
            "error": self.error,
            "total_tokens": sum(tokens) if tokens else None,
            "total_cost": round(sum(run_costs), 8) if run_costs else None,
            "harness_errors": self._errors + self.handler.failures,
            "row_key": f"{self.run_id}:runs",
        }
        row.update({k: v for k, v in self.result.items() if k not in ("run_id", "row_key")})
        return row

    def _finish(self, exc: BaseException | None) -> None:
        if self._finished:
            return
        self._finished = True
        self._end_ns = time.time_ns()
        if exc is None:
            self.status = "completed"
        else:
            from ._events import describe_error, is_control_flow

            self.status = "completed" if is_control_flow(exc) else "failed"
            self.error = describe_error(exc)
        writer = self.harness._writer
        if writer is None:
            self._write_and_release()
            return
        try:
            writer.submit(self._write_and_release)
        except Exception:  # noqa: BLE001
            self._count_error("queueing the run")
            self._write_and_release()

    def _write_and_release(self) -> None:
        try:
            self._write()
        except Exception:  # noqa: BLE001 - the host never sees harness failures
            self._count_error("writing the run")
        finally:
            self.handler.reset()
            self._logged = []

    def _write(self) -> None:
        redact = Redactor()
        spans: dict[UUID, tuple[str, str, str | None]] = {}
        try:
            tracer = resolve_tracer(self.harness.tracer_provider)
            if tracer is not None:
                spans = emit_spans(
                    tracer, self.handler.snapshot(), run_id=self.run_id, workflow=self.workflow,
                    redact=redact, end_ns=self._end_ns, outer_span=getattr(self, "_outer_span", None),
                    run_attrs={"harness.status": self.status, "harness.subject": redact(self.subject or "")},
                )
        except Exception:  # noqa: BLE001
            self._count_error("span export")
        rows = self._build_rows(self._end_ns, spans)
        root_ids = next(iter(spans.values()), None)
        if root_ids:
            rows["runs"][0].update(trace_id=root_ids[0], span_id=root_ids[1])
        for sheet, sheet_rows in rows.items():
            _rows.redact_rows(sheet_rows, redact, _rows.PAYLOAD_COLUMNS if sheet in _CAPTURED else None)
        ordered = {name: rows[name] for name in SHEET_NAMES if rows.get(name)}
        written = {name: len(sheet_rows) for name, sheet_rows in ordered.items()}
        stored: dict[str, int] = {}
        try:
            with self.store.transaction():  # the run's sheets and its log_tests row: one commit
                for name, outcome in self.store.write_many(ordered).items():
                    if isinstance(outcome, Exception):
                        self._count_error(f"storing {name}: {outcome}")
                    else:
                        stored[name] = outcome
                if self.verify:
                    try:
                        self.store.replace("log_tests", [self._log_tests_row(stored, written)])
                    except Exception:  # noqa: BLE001
                        self._count_error("log_tests")
        except Exception:  # noqa: BLE001
            self._count_error("storing the run")

    def _log_tests_row(self, stored: Mapping[str, int], written: Mapping[str, int]) -> dict[str, Any]:
        """The run's log_tests row from the rows the store accepted (a new run has no others)."""
        counts = {name: stored.get(name, 0) for name in COUNTED_SHEETS}
        return {
            "run_id": self.run_id,
            "company_name": self.subject,
            **counts,
            "total_sheets_logged": total_sheets_logged(counts),
            "verification_status": verification_status(counts, self.required_sheets, written),
            "timestamp": _now_iso(),
            "generated_by": "Us",
            "profile": self.profile,
            "required_sheets": list(self.required_sheets),
            "written_rows": dict(written),
            "row_key": f"{self.run_id}:log_tests",
        }


_CAPTURED = frozenset({"langgraph_events", "llm_calls", "tool_calls", "prompts", "runs"})


def _parent_run_id(config: Mapping[str, Any] | None) -> UUID | None:
    callbacks = (config or {}).get("callbacks")
    return getattr(callbacks, "parent_run_id", None)


def _handlers(config: Mapping[str, Any] | None) -> list[Any]:
    callbacks = (config or {}).get("callbacks")
    if callbacks is None:
        return []
    if isinstance(callbacks, list):
        return callbacks
    return [*getattr(callbacks, "handlers", []), *getattr(callbacks, "inheritable_handlers", [])]


def current_run(config: Mapping[str, Any] | None) -> Run | None:
    """The harness run recording this graph invocation, found through ``config["callbacks"]``;
    None when the graph runs without the harness."""
    for handler in _handlers(config):
        if isinstance(handler, HarnessCallbackHandler) and handler.run is not None:
            return handler.run
    return None
