"""A finished run as plain data, and how it becomes stored rows.

:class:`RunRecord` is everything the rows of one run are made from: its callback log, the
domain rows its nodes logged, and its settings. It holds no handler, lock or store, so the
same record is written in the host process or handed whole to the writer process
(:mod:`harness.writers.process`); :func:`prepare_entry` is the one place a run becomes rows,
which a writer stores (:mod:`harness.writers.persist`).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any
from uuid import UUID

from opentelemetry import trace

from .. import costs
from . import rows as _rows
from . import turns
from .agents import Agent, attribute
from .encode import run_payload
from .events import Event, assemble
from ..secrets.redact import Redactor, host_secrets, portable, redactor
from .spans import emit_spans
from .verify import total_sheets_logged, verification_status
from ..schema import ALL_SHEET_NAMES, COUNTED_SHEETS, sheet as sheet_named

logger = logging.getLogger("harness")

#: Sheets whose rows the harness captured itself: only their payload columns are scrubbed
#: (the other columns hold ids, names and numbers it made).
CAPTURED_SHEETS = frozenset({"langgraph_events", "llm_calls", "tool_calls", "prompts", "runs"})


#: The name LangGraph gives a graph compiled without one (``compile(name=...)``).
DEFAULT_GRAPH_NAME = "LangGraph"


def workflow_name(given: str | None, graph_name: str | None = None, attribute: str | None = None) -> str | None:
    """A run's workflow, by one rule wherever the run starts (``h.run``, ``h.experiment``,
    ``harness wrap``): the name given (``workflow=``, ``--workflow``), else the graph's own
    name when it is not LangGraph's default, else the attribute the graph was loaded from
    (``harness wrap module:ATTR``), else none."""
    if given:
        return given
    if graph_name and graph_name != DEFAULT_GRAPH_NAME:
        return graph_name
    return attribute or None


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


@dataclass(slots=True)
class RunRecord:
    run_id: str
    subject: str | None
    workflow: str | None
    profile: str
    required_sheets: list[str]
    expected_tools: list[str] | None
    reference_trajectory: list[str] | None
    model: str | None
    temperature: float | None
    batch_id: str | None
    agent_names: Mapping[str, str]
    node_types: Mapping[str, str]
    phases: Mapping[str, str]
    thread_id: Any
    verify: bool
    status: str
    error: str | None
    result: dict[str, Any]
    start_ns: int
    end_ns: int
    log: Sequence[tuple]  # the callback log (see .events); assembled into events where needed
    streamed: Mapping[int, Sequence[int]]  # model call -> (first token ns, tokens streamed)
    logged: Sequence[tuple[str, dict[str, Any], UUID | None]]  # (sheet, row, containing node's id)
    errors: int = 0  # harness failures so far (callbacks included); grows while writing
    held: int = 0  # about how many bytes the record holds (its frozen payloads and log)
    #: event id -> (trace id, span id, parent span id) of the spans emitted for the run
    spans: Mapping[UUID, tuple[str, str, str | None]] = field(default_factory=dict)
    #: values of secret-named environment variables in the host, for the redactor
    secrets: Sequence[str] | None = None
    #: the application's own redaction rules (``Harness(redact=...)``)
    redact_extra: tuple[Any, ...] = ()
    #: spans still to be made, over OTLP/HTTP to this endpoint (by whoever writes the record)
    otlp_endpoint: str | None = None
    #: the application's span context when the run started (trace id, span id, flags, remote)
    outer_context: tuple[int, int, int, bool] | None = None
    events: list[Event] | None = None  # the log, assembled (then the log is let go)
    attributed: dict[Event, Agent] | None = None  # each event's agent, worked out on first use
    #: prices in force in the host that differ from the bundled table (model -> Price.as_data())
    prices: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    #: a dataset case's checks, scored in the host: ``answer`` (the answer check's score and
    #: what it compared, or None), ``require_tools`` and ``pending`` (the experiment's scorers
    #: still to run: (score name, scorer) pairs); None outside experiments
    checks: Mapping[str, Any] | None = None

    def assembled(self) -> list[Event]:
        """The run's event records, assembled from its callback log on first use."""
        if self.events is None:
            self.events = assemble(self.log, self.streamed)
            self.log, self.streamed = (), {}
        return self.events

    def agents(self) -> dict[Event, Agent]:
        """Each event's agent (see :mod:`.agents`), worked out once for the rows and the spans."""
        if self.attributed is None:
            self.attributed = attribute(self.assembled(), self.agent_names)
        return self.attributed

    def roots(self) -> list[Event]:
        """The graphs the caller invoked under the run (one per input of a batch), in start order."""
        return [e for e in self.assembled() if e.kind == "graph" and e.parent_id is None]

    def workflow_name(self) -> str | None:
        """The run's workflow (:func:`workflow_name`): the name it was started with, else its
        first graph's own name when that is not LangGraph's default."""
        if self.workflow:
            return self.workflow
        roots = self.roots()
        return workflow_name(None, roots[0].name if roots else None)

    def redactor(self) -> Redactor:
        """The run's redactor: the rules, the host's environment secrets, the application's rules."""
        secrets = self.secrets if self.secrets is not None else host_secrets()
        return redactor(tuple(secrets), self.redact_extra)

    @property
    def portable(self) -> bool:
        """Whether another process can write the run (see :func:`.redact.portable`)."""
        return portable(self.redact_extra)

    def count_error(self, what: str) -> None:
        self.errors += 1
        logger.warning("harness: %s failed for run %s", what, self.run_id, exc_info=True)


def valid_row(sheet: str, row: Mapping[str, Any]) -> dict[str, Any]:
    """Keep the schema's columns; an unknown column is logged (never stored under a wrong name)."""
    s = sheet_named(sheet)
    allowed = set(s.all_column_names) | {"row_key"}
    unknown = set(row) - allowed
    if unknown:
        logger.error("sheet %s has no column(s) %s; values dropped", sheet, ", ".join(sorted(unknown)))
    return {k: v for k, v in row.items() if k in allowed}


def build_rows(record: RunRecord, redact: Redactor | None = None,
               scrubbed: dict[int, str] | None = None) -> dict[str, list[dict[str, Any]]]:
    """The run's rows by sheet, before redaction (but for payloads that are cut, scrubbed
    before the cut when ``redact`` is given, and put in ``scrubbed``): captured, logged,
    evaluated, and ``runs``."""
    ctx = _rows.RunContext(record.run_id, record.subject, record.agent_names, record.node_types,
                           record.phases, record.spans, redact, record.prices,
                           scrubbed if scrubbed is not None else {})
    tree, rows = _rows.captured_rows(ctx, record.assembled(), record.agents())
    seq: Counter[str] = Counter()
    for sheet, row, node_id in record.logged:
        s = sheet_named(sheet)
        node = tree.by_id.get(node_id) if node_id else None
        filled = {"run_id": record.run_id, "company_name": record.subject, "timestamp": now_iso(),
                  "generated_by": s.generated_by}
        if node is not None:
            agent = tree.agents.get(node)
            filled.update(node=node.name, node_type=_rows.node_type_of(ctx, node),
                          agent_name=agent.name if agent is not None else None,
                          step_number=tree.steps.get(node))
        names = set(s.all_column_names)
        full = {k: v for k, v in filled.items() if k in names}
        full.update(row)
        seq[sheet] += 1
        full.setdefault("row_key", f"{record.run_id}:{sheet}:{seq[sheet]}")
        rows.setdefault(sheet, []).append(valid_row(sheet, full))
    answer = None
    if record.checks:  # the answer check, with require_tools beside it (the audit recomputes pass from both)
        answer = {**(record.checks.get("answer") or {}),
                  **({"require_tools": True} if record.checks.get("require_tools") else {})} or None
    if record.expected_tools is not None or record.reference_trajectory is not None or answer is not None:
        try:
            from evaluators import generic_run_rows

            extra = generic_run_rows(rows, expected_tools=record.expected_tools,
                                     reference_trajectory=record.reference_trajectory, answer=answer)
            for sheet, new_rows in extra.items():
                s = sheet_named(sheet)
                for i, row in enumerate(new_rows, start=1):
                    full = {"run_id": record.run_id, "company_name": record.subject, "timestamp": now_iso(),
                            "generated_by": s.generated_by, "row_key": f"{record.run_id}:{sheet}:eval:{i}", **row}
                    rows.setdefault(sheet, []).append(valid_row(sheet, full))
        except Exception:  # noqa: BLE001
            record.count_error("evaluation")
    rows["runs"] = [_runs_row(record, rows, tree.agents, redact, ctx.scrubbed)]
    if "error" not in record.result:  # else the run's own result says it (run.set_result(error=...))
        rows["runs"][0]["error"] = ctx.error(record.error)
    try:  # its place in its thread: what it stopped at, what it resumed with (turn: the store's)
        events = record.assembled()
        rows["runs"][0].update(interrupts=turns.interrupts(events, tree.owner, redact),
                               resume=turns.resume(events, redact))
    except Exception:  # noqa: BLE001
        record.count_error("reading the run's interrupts")
    _score(record, rows)
    return rows


def _score(record: RunRecord, rows: dict[str, list[dict[str, Any]]]) -> None:
    """The run's judgements as ``scores`` rows (:func:`evaluators.built_in_scores`), and its
    pass from them (:func:`evaluators.run_passed`, the one definition)."""
    from evaluators import NOT_SCORED, ScoreResult, SourcedScore, built_in_scores, run_passed

    try:
        checks = record.checks or {}
        scores = built_in_scores(rows, status=record.status, experiment=record.checks is not None,
                                 answer=checks.get("answer"), require_tools=bool(checks.get("require_tools")))
        if checks.get("turns"):  # a multi-turn case's verdict on its turns (harness.experiment.turns)
            scores.append(turns_score(checks["turns"]))
    except Exception:  # noqa: BLE001 - the run's rows stand without its scores
        record.count_error("scoring")
        return
    # An experiment's scorers run once the run is stored: until each has, its score is the
    # error NOT_SCORED (replaced by the score), so the run's pass is unknown, never early.
    scores += [SourcedScore(ScoreResult(name, None, None, "", NOT_SCORED), "code", spec)
               for name, spec in (record.checks or {}).get("pending", ())]
    if scores:
        place = {k: record.result.get(k) for k in ("experiment", "case_id")}  # the sheet reads alone
        rows["scores"] = list({row["row_key"]: {**row, **place}
                               for row in (score_row(record.run_id, s) for s in scores)}.values())
    passed = run_passed(record.status, rows.get("scores", ()))
    rows["runs"][0]["passed"] = None if passed is None else int(passed)


def turns_score(verdict: Mapping[str, Any]) -> Any:
    """A multi-turn case's ``turns`` verdict (value, passed, explanation) as its rule score."""
    from evaluators import ScoreResult, SourcedScore

    return SourcedScore(ScoreResult("turns", float(verdict["value"]), bool(verdict["passed"]),
                                    str(verdict.get("explanation") or "")), "rule", "harness.experiment.turns")


def score_row(run_id: str, scored: Any, created_at: str | None = None) -> dict[str, Any]:
    """A :class:`evaluators.SourcedScore` as the run's ``scores`` row (one per name: its key)."""
    from evaluators import score_row as plain

    row = plain(scored)
    return {"run_id": run_id, **row, "created_at": created_at or now_iso(), "row_key": score_key(run_id, row["name"])}


def score_key(run_id: str, name: str, rater: str | None = None) -> str:
    """The row key of a run's score of a name: a run has one score of each name, and one
    label of each name per person who gave one (``rater``)."""
    return f"{run_id}:score:{name}" if not rater else f"{run_id}:score:{name}:by:{rater}"


def scrubbed_rows(record: RunRecord, redact: Redactor) -> dict[str, list[dict[str, Any]]]:
    """The run's rows as they are stored: built, scrubbed, by sheet in spec order. What was
    cut was redacted before its cut, over what it keeps (see :meth:`.rows.RunContext.cell`);
    the rest is scanned once, all cells together."""
    scrubbed: dict[int, str] = {}
    rows = build_rows(record, redact, scrubbed)
    cells = [cell for sheet, sheet_rows in rows.items()  # one scan over the run's cells
             for cell in _rows.text_cells(sheet_rows, _rows.PAYLOAD_COLUMNS if sheet in CAPTURED_SHEETS else None,
                                          scrubbed)]
    _rows.scrub_cells(cells, redact)
    return {name: rows[name] for name in ALL_SHEET_NAMES if rows.get(name)}


def _runs_row(record: RunRecord, rows: Mapping[str, list[dict[str, Any]]],
              agents: Mapping[Event, Agent], redact: Redactor | None = None,
              scrubbed: dict[int, str] | None = None) -> dict[str, Any]:
    llm_rows = rows.get("llm_calls", [])
    nodes = [e for e in record.assembled() if e.kind == "node"]
    last = max(nodes, key=lambda e: (e.end_ns or 0, e.start_ns)) if nodes else None
    models = Counter(r["model"] for r in llm_rows if r.get("model"))
    temps = [r["temperature"] for r in llm_rows if r.get("temperature") is not None]
    tools = list(dict.fromkeys(r["tool_name"] for r in rows.get("tool_calls", [])))
    evaluations = [r.get("overall_score") for r in rows.get("evaluations", []) if r.get("overall_score") is not None]
    tokens = [r["total_tokens"] for r in llm_rows if r.get("total_tokens") is not None]
    end_ns = record.end_ns
    root = next(iter(record.spans.values()), None)
    row = {
        "run_id": record.run_id,
        "company_name": record.subject,
        "node": last.name if last else None,
        "agent_name": agents[last].name if last in agents else None,
        "model": record.model or (models.most_common(1)[0][0] if models else None),
        "temperature": record.temperature if record.temperature is not None else (temps[0] if temps else None),
        "status": record.status,
        "started_at": _rows.iso(record.start_ns),
        "completed_at": _rows.iso(end_ns),
        "total_time_ms": (end_ns - record.start_ns) / 1e6,
        "total_steps": len(nodes),
        "total_llm_calls": len(llm_rows),
        "tools_used": tools,
        "evaluation_score": evaluations[-1] if evaluations else None,
        "timestamp": _rows.iso(end_ns),
        "generated_by": "Us",
        "workflow": record.workflow_name(),
        "batch_id": record.batch_id,
        "thread_id": _thread_id(record),
        "error": record.error,
        "total_tokens": sum(tokens) if tokens else None,
        "total_cost": costs.sum_costs(r.get("total_cost") for r in llm_rows),
        "cache_read_tokens": _token_sum(llm_rows, "cache_read_tokens"),
        "cache_write_tokens": _token_sum(llm_rows, "cache_write_5m_tokens", "cache_write_1h_tokens"),
        "reasoning_tokens": _token_sum(llm_rows, "reasoning_tokens"),
        "harness_errors": record.errors,
        "row_key": f"{record.run_id}:runs",
    }
    if root:
        row.update(trace_id=root[0], span_id=root[1])
    if "inputs" not in record.result and "outputs" not in record.result:
        row.update(_io(record, redact, scrubbed))
    row.update({k: v for k, v in record.result.items() if k not in ("run_id", "row_key")})
    return row


def _io(record: RunRecord, redact: Redactor | None, scrubbed: dict[int, str] | None = None) -> dict[str, Any]:
    """The run's input and output (``runs.inputs``, ``runs.outputs``), from the graph it
    invoked as its callbacks saw them (a list of each when it invoked several, e.g. a
    batch); a graph that failed has no output."""
    roots = record.roots()
    if not roots:
        return {}
    inputs = [run_payload(e.inputs, redact, scrubbed) for e in roots]
    outputs = [run_payload(e.outputs, redact, scrubbed) if e.status == "ok" and e.end_ns else None for e in roots]
    if len(roots) == 1:
        return {"inputs": inputs[0], "outputs": outputs[0]}
    return {"inputs": inputs, "outputs": outputs if any(o is not None for o in outputs) else None}
def _token_sum(rows: Sequence[Mapping[str, Any]], *columns: str) -> int | None:
    """The sum of ``columns`` over the calls that report them; None when none does."""
    known = [r[c] for r in rows for c in columns if r.get(c) is not None]
    return sum(known) if known else None


def _thread_id(record: RunRecord) -> Any:
    """The ``thread_id`` the graph ran with, wherever it was given (LangGraph copies the
    config's into the metadata of every run it makes): its root graph's, else the run's config's."""
    for event in record.assembled():
        if event.kind == "graph" and (event.metadata or {}).get("thread_id") is not None:
            return event.metadata["thread_id"]
    return record.thread_id


def emit_record_spans(record: RunRecord, tracer: trace.Tracer) -> None:
    """Make the run's spans (into ``record.spans``, which the rows then carry), under the
    caller's span when the run began inside one."""
    try:
        redact = record.redactor()
        outer_span = None
        if record.outer_context is not None:
            trace_id, span_id, flags, remote = record.outer_context
            outer_span = trace.NonRecordingSpan(
                trace.SpanContext(trace_id, span_id, remote, trace.TraceFlags(flags)))
        record.spans = emit_spans(
            tracer, record.assembled(), run_id=record.run_id, workflow=record.workflow_name(),
            redact=redact, end_ns=record.end_ns, outer_span=outer_span,
            run_attrs={"harness.status": record.status, "harness.subject": redact(record.subject or "")},
            agents=record.agents(),
        )
    except Exception:  # noqa: BLE001
        record.count_error("span export")


def prepare_entry(record: RunRecord) -> dict[str, Any] | None:
    """The run's spans made (when bound for OTLP) and its scrubbed rows, as the entry a writer
    stores (plain data: a spool keeps it as JSON); None when they could not be built (counted)."""
    if record.otlp_endpoint and not record.spans:
        from .telemetry import otlp_tracer

        try:
            tracer = otlp_tracer(record.otlp_endpoint)
        except Exception:  # noqa: BLE001 - no exporter: the rows are still written
            record.count_error("span export")
        else:
            emit_record_spans(record, tracer)
    try:
        redact = record.redactor()
        entry = {"run_id": record.run_id, "subject": redact(record.subject) if record.subject else record.subject,
                 "verify": record.verify, "profile": record.profile, "required": list(record.required_sheets)}
        try:
            entry["rows"] = scrubbed_rows(record, redact)
        except Exception:  # noqa: BLE001 - the run is still stored: its runs row says what was lost
            record.count_error("building the rows")
            entry["rows"] = {"runs": [bare_runs_row(record, redact)]}
        return entry
    except Exception:  # noqa: BLE001 - the host never sees harness failures
        record.count_error("building the rows")
        return None


def bare_runs_row(record: RunRecord, redact: Redactor) -> dict[str, Any]:
    """The ``runs`` row of a run whose other rows could not be built: what the record says
    without its events (status, times, error, names), its harness errors counted, scrubbed."""
    row = {"run_id": record.run_id, "company_name": record.subject, "status": record.status,
           "started_at": _rows.iso(record.start_ns), "completed_at": _rows.iso(record.end_ns),
           "total_time_ms": (record.end_ns - record.start_ns) / 1e6, "timestamp": _rows.iso(record.end_ns),
           "generated_by": "Us", "workflow": record.workflow, "batch_id": record.batch_id, "error": record.error,
           "harness_errors": record.errors, "row_key": f"{record.run_id}:runs",
           **{k: v for k, v in record.result.items() if k not in ("run_id", "row_key")}}
    _rows.redact_rows([row], redact, _rows.PAYLOAD_COLUMNS)
    return valid_row("runs", row)


def derived_rows(entry: Mapping[str, Any], stored: Mapping[str, int]) -> dict[str, list[dict[str, Any]]]:
    """What a run's stored rows give, made in the transaction that stores them
    (:meth:`Store.write_run`): its ``log_tests`` row from the rows the store took and, for a
    credit run, whose log test gates it, the ``log_test`` score and the ``runs`` row with its
    pass recomputed (:func:`evaluators.run_passed`)."""
    from evaluators import log_test_score, run_passed

    rows: Mapping[str, list[dict[str, Any]]] = entry["rows"]
    written = {name: len(sheet_rows) for name, sheet_rows in rows.items() if name in COUNTED_SHEETS}
    counts = {name: stored.get(name, 0) for name in COUNTED_SHEETS}  # a new run has no other rows
    log = log_tests_row(entry["run_id"], entry["subject"], counts, profile=entry["profile"],
                        required=entry["required"], written=written, redact=None)
    out = {"log_tests": [log]}
    if entry["profile"] == "credit" and rows.get("runs"):
        scored = log_test_score(log["verification_status"])
        run = dict(rows["runs"][0])
        passed = run_passed(run.get("status"), [*rows.get("scores", ()), scored.result])
        run["passed"] = None if passed is None else int(passed)
        out.update(scores=[{**score_row(entry["run_id"], scored), "experiment": run.get("experiment"),
                            "case_id": run.get("case_id")}], runs=[run])
    return out


def log_tests_row(run_id: str, company_name: str | None, counts: Mapping[str, int], *, profile: str,
                  required: Sequence[str], written: Mapping[str, int] | None, redact: Redactor | None,
                  written_rows: Mapping[str, int] | None = None) -> dict[str, Any]:
    """A run's scrubbed ``log_tests`` row from its rows per sheet (``counts``), checked against
    what the harness wrote (``written``, when known; else ``written_rows`` is kept as is);
    ``redact`` None: ``company_name`` is scrubbed already."""
    row = {
        "run_id": run_id,
        "company_name": company_name,
        **{name: counts.get(name, 0) for name in COUNTED_SHEETS},
        "total_sheets_logged": total_sheets_logged(counts),
        "verification_status": verification_status(counts, required, written),
        "timestamp": now_iso(),
        "generated_by": "Us",
        "profile": profile,
        "required_sheets": list(required),
        "written_rows": dict(written) if written is not None else written_rows,
        "row_key": f"{run_id}:log_tests",
    }
    if redact is not None:
        _rows.redact_rows([row], redact, _rows.PAYLOAD_COLUMNS)
    return row
