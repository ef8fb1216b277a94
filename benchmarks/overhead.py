"""Tracing overhead: the same graph bare, under the harness, and under OpenInference.

The benchmark graph has 8 nodes, 5 chat-model calls (LangChain's fake chat model reporting
usage), 4 tool calls and one parallel branch. Modes are interleaved in rounds in one process
and compared by their medians; the harness is measured with the whole ``with
harness.run(...)`` block. Phase 1 compares bare, a handler that does nothing (what
LangChain's callback dispatch costs any tracer), the harness as shipped and OpenInference
with an in-memory exporter. Phase 2 measures the harness's other configurations against
bare: the harness again beside the harness scoring every run in-process (``Harness(scorers=[...])``:
the caller's figure must not move), ``writer="thread"``, spans into an in-memory exporter, spans over OTLP/HTTP to a local
endpoint (made by the writer process, or by the host with the thread writer). Four ratios
to bare: caller-visible latency per run with the modes interleaved run by run in a shuffled
order, each run's deferred work (rows, spans) finished before the next run starts (the
target: the steadiest figure from one invocation to the next), the same latency in blocks
of one mode's runs (where a run also meets the deferred work of the run before it), all
work (a block of runs timed until they are stored and their spans exported), and CPU (host
process and writer process); beside them, the time each mode adds to a run, caller-visible
(a figure that does not scale with the graph's own speed).

Phase 3 (``--redaction``) prices secret redaction: the writer's time to build and scrub a
recorded benchmark run's rows with the rule table and with no rules, interleaved (the
difference is what redaction costs per run), and the thread writer with and without the
rules against bare (there the writer's work competes with the caller for the GIL).

    python benchmarks/overhead.py [--rounds 30] [--per-round 10] [--no-variants] [--redaction] [--scorers]
"""

from __future__ import annotations

import argparse
import contextlib
import operator
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Annotated, TypedDict

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.graph import END, START, StateGraph
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from harness import Harness
from harness.schema import ALL_SHEETS
from harness.tracing.telemetry import flush_own_providers
from scratch import scratch


class State(TypedDict, total=False):
    log: Annotated[list, operator.add]
    document: str  # a large value every node sees in its input (the --sizes sweep)


class Replies:
    """An endless supply of replies that report token usage."""

    def __iter__(self):
        return self

    def __next__(self) -> AIMessage:
        return AIMessage(
            content="a short model answer with a few words in it",
            usage_metadata={"input_tokens": 42, "output_tokens": 12, "total_tokens": 54},
            response_metadata={"model_name": "llama-3.1-8b-instant"},
        )


@tool
def search(query: str) -> dict:
    """Search."""
    return {"query": query, "results": ["a", "b", "c"]}


@tool
def calculator(expression: str) -> str:
    """Calculate."""
    return str(len(expression))


def build_graph():
    model = GenericFakeChatModel(messages=Replies())

    def llm_node(name):
        def node(state, config):
            model.invoke(f"{name}: think about the task", config)
            return {"log": [name]}
        return node

    def tool_node(name, t, arg):
        def node(state, config):
            t.invoke(arg, config)
            return {"log": [name]}
        return node

    g = StateGraph(State)
    g.add_node("parse", llm_node("parse"))
    g.add_node("plan", llm_node("plan"))
    g.add_node("search_a", tool_node("search_a", search, {"query": "a"}))
    g.add_node("search_b", tool_node("search_b", search, {"query": "b"}))
    g.add_node("compute", tool_node("compute", calculator, {"expression": "1+2"}))
    g.add_node("check", tool_node("check", calculator, {"expression": "3*4"}))
    g.add_node("synthesize", llm_node("synthesize"))

    def review(state, config):
        model.invoke("review: is it right", config)
        model.invoke("review: final answer", config)
        return {"log": ["review"]}

    g.add_node("review", review)
    g.add_edge(START, "parse")
    g.add_edge("parse", "plan")
    g.add_edge("plan", "search_a")
    g.add_edge("plan", "search_b")  # the parallel branch
    g.add_edge(["search_a", "search_b"], "compute")
    g.add_edge("compute", "check")
    g.add_edge("check", "synthesize")
    g.add_edge("synthesize", "review")
    g.add_edge("review", END)
    return g.compile()


class NoopHandler(BaseCallbackHandler):
    """Every hook implemented, nothing done: the cost of LangChain dispatching to any handler."""

    run_inline = True

    def on_chat_model_start(self, *args, **kwargs):
        pass


def writer_cpu_seconds() -> float:
    """CPU time used so far by the harness writer process (0 where /proc is not available)."""
    from harness.writers import process as _writer_process

    process = _writer_process._current
    try:
        fields = Path(f"/proc/{process._proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (AttributeError, OSError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


_OTLP_SINK = """
import http.server, sys
class Sink(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        self.send_response(200); self.send_header("Content-Length", "0"); self.end_headers()
    def log_message(self, *args):
        pass
server = http.server.HTTPServer(("127.0.0.1", 0), Sink)
print(server.server_port, flush=True)
server.serve_forever()
"""


def otlp_sink() -> tuple[subprocess.Popen, str]:
    """An OTLP/HTTP endpoint that accepts and drops spans, in a process of its own (so
    serving it costs the measured process nothing)."""
    sink = subprocess.Popen([sys.executable, "-c", _OTLP_SINK], stdout=subprocess.PIPE, text=True)
    return sink, f"http://127.0.0.1:{sink.stdout.readline().strip()}"


def measure(modes, rounds: int, per_round: int, instrumentor=None, oi_exporter=None, oi_provider=None):
    """Interleave the modes in rounds; per mode: per-run block times (including the wait until
    the block's runs are stored and their spans exported), per-run latencies interleaved run
    by run and in blocks, and per-run CPU (host process and writer process)."""
    @contextlib.contextmanager
    def entered(name, env):
        """A mode's setting (its environment; OpenInference's instrumentation) for a run or a block."""
        if name == "openinference":
            instrumentor.instrument(tracer_provider=oi_provider)
        os.environ.update(env)
        try:
            yield
        finally:
            for key in env:
                del os.environ[key]
            if name == "openinference":
                instrumentor.uninstrument()
                oi_exporter.clear()

    def finish(h):  # a block ends when its runs are stored and their spans exported
        if h is not None:
            h.flush()
            flush_own_providers()

    for _ in range(3):  # warm up every path
        for name, (fn, h, env) in modes.items():
            with entered(name, env):
                fn()
                finish(h)
    blocks: dict[str, list[float]] = {name: [] for name in modes}
    caller: dict[str, list[float]] = {name: [] for name in modes}
    in_blocks: dict[str, list[float]] = {name: [] for name in modes}
    cpu: dict[str, list[float]] = {name: [] for name in modes}
    order = list(modes)
    shuffle = random.Random(0).shuffle
    for _ in range(rounds):
        # Caller-visible latency, modes interleaved run by run in a shuffled order: a drift
        # of the machine's speed then falls on every mode alike (in blocks of one mode's
        # runs, it falls on whichever mode's block it meets, and the ratio moves with it).
        # Each run's deferred work (rows, spans) is finished before the next run starts, so
        # it is not billed to another mode; it counts in "all work" and CPU.
        for _ in range(per_round):
            shuffle(order)
            for name in order:
                fn, h, env = modes[name]
                with entered(name, env):
                    t0 = time.perf_counter()
                    fn()
                    caller[name].append(time.perf_counter() - t0)
                    finish(h)
        # All work and CPU: a block of one mode's runs, timed until they are stored.
        for name, (fn, h, env) in modes.items():
            with entered(name, env):
                cpu0, writer0 = time.process_time(), writer_cpu_seconds()
                start = time.perf_counter()
                for _ in range(per_round):
                    t0 = time.perf_counter()
                    fn()
                    in_blocks[name].append(time.perf_counter() - t0)
                finish(h)
                blocks[name].append((time.perf_counter() - start) / per_round)
                cpu[name].append((time.process_time() - cpu0 + writer_cpu_seconds() - writer0) / per_round)
    return blocks, caller, in_blocks, cpu


def report(title: str, blocks, caller, in_blocks, cpu) -> dict[str, tuple[float, float, float]]:
    def ratio(table, name):
        return statistics.median(table[name]) / statistics.median(table["bare"])

    base = statistics.median(caller["bare"])
    print(f"{title}: bare run median {base * 1e3:.2f} ms")
    print(f"{'':>22}  {'caller':>7}  {'in blocks':>9}  {'all work':>9}  {'cpu':>6}   (ratios to bare)"
          f"  {'added':>7}  (caller-visible, per run)")
    for name in blocks:
        added = (statistics.median(caller[name]) - base) * 1e6
        print(f"{name:>22}  {ratio(caller, name):7.2f}  {ratio(in_blocks, name):9.2f}  {ratio(blocks, name):9.2f}"
              f"  {ratio(cpu, name):6.2f}                     {added:5.0f} us")
    return {name: (ratio(caller, name), ratio(in_blocks, name), ratio(blocks, name)) for name in blocks}


@contextlib.contextmanager
def redaction_rules(rules):
    """Runs written in this process are scrubbed with ``rules`` (the rule table by default)."""
    from harness.tracing import record
    from harness.secrets import redact

    original = record.RunRecord.redactor
    record.RunRecord.redactor = lambda self: redact.Redactor(secrets=self.secrets or [], rules=rules)
    try:
        yield
    finally:
        record.RunRecord.redactor = original


def redaction_cost(graph, rounds: int, bare_seconds: float) -> None:
    """Per run, the writer's time to build and scrub a recorded run's rows, with the rules
    and with none (interleaved), and that difference against the bare run."""
    import copy

    from harness.tracing.record import build_rows, scrubbed_rows
    from harness.secrets.redact import Redactor
    from harness.secrets.rules import RULES

    h = Harness(store=scratch() / "redaction.db", writer="inline")
    with h.run(subject="bench", workflow="bench") as run:
        graph.invoke({"log": []}, run.config)
        recorded = run._record(time.time_ns())
    with_rules, without = Redactor(environ={}), Redactor(environ={}, rules=())
    times: dict[str, list[float]] = {"rules": [], "none": [], "off": []}
    for _ in range(rounds * 10):
        for name, redactor in (("rules", with_rules), ("none", without), ("off", None)):
            fresh = copy.deepcopy(recorded)
            t0 = time.perf_counter()
            scrubbed_rows(fresh, redactor) if redactor is not None else build_rows(fresh)
            times[name].append(time.perf_counter() - t0)
    rules, none, off = (statistics.median(times[name]) for name in ("rules", "none", "off"))
    print(f"redaction ({len(RULES)} rules): a run's rows built in {off * 1e6:.0f} us, built and scrubbed in "
          f"{rules * 1e6:.0f} us with the rules, {none * 1e6:.0f} us with none; the rules cost "
          f"{(rules - none) * 1e6:.0f} us per run, all redaction {(rules - off) * 1e6:.0f} us "
          f"({(rules - off) / bare_seconds:.1%} of a bare run), in the writer")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--per-round", type=int, default=10)
    parser.add_argument("--no-variants", action="store_true", help="only the comparison the target is about")
    parser.add_argument("--sizes", action="store_true",
                        help="instead: harness/bare with a 1 B, 10 KB, 100 KB and 1 MB string in the graph's state")
    parser.add_argument("--redaction", action="store_true", help="also price secret redaction (phase 3)")
    parser.add_argument("--scorers", action="store_true",
                        help="instead: bare, the harness and the harness scoring every run in-process, interleaved")
    args = parser.parse_args()
    if args.sizes:
        return size_sweep(args.rounds, args.per_round)
    if args.scorers:
        return scorers_only(args.rounds, args.per_round)

    from openinference.instrumentation.langchain import LangChainInstrumentor

    graph = build_graph()
    tmp = scratch()
    by_process = Harness(store=tmp / "process.db")
    by_thread = Harness(store=tmp / "thread.db", writer="thread")
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(InMemorySpanExporter()))
    with_spans = Harness(store=tmp / "spans.db", tracer_provider=provider)
    oi_provider = TracerProvider()
    oi_exporter = InMemorySpanExporter()
    oi_provider.add_span_processor(SimpleSpanProcessor(oi_exporter))
    instrumentor = LangChainInstrumentor()

    def bare():
        graph.invoke({"log": []})

    def noop():
        graph.invoke({"log": []}, {"callbacks": [NoopHandler()]})

    def harnessed(h):
        def run():
            with h.run(subject="bench", workflow="bench") as r:
                graph.invoke({"log": []}, r.config)
        return run

    # Phase 1, the comparison the target is about: bare, a handler that does nothing (what
    # LangChain's dispatch costs any tracer), the harness as shipped, OpenInference.
    # name -> (one run, its harness, environment for the block)
    modes = {"bare": (bare, None, {}), "noop handler": (noop, None, {}),
             "harness": (harnessed(by_process), by_process, {}), "openinference": (bare, None, {})}
    found = report("the comparison", *measure(modes, args.rounds, args.per_round, instrumentor, oi_exporter,
                                               oi_provider))
    if not args.no_variants:
        # Phase 2, the harness's other configurations (kept apart: they share the process
        # with phase 1's modes and would disturb them), each against bare again.
        sink, endpoint = otlp_sink()
        otlp_env = {"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint}
        by_process_otlp = Harness(store=tmp / "process_otlp.db")
        by_thread_otlp = Harness(store=tmp / "thread_otlp.db", writer="thread")
        # In-process online scoring: a scorer on every run, scored on the harness's own thread.
        scored = Harness(store=tmp / "scored.db", scorers=[lambda run, case: 1.0])
        variants = {"bare": (bare, None, {}),
                    "harness": (harnessed(by_process), by_process, {}),
                    "harness+scorers": (harnessed(scored), scored, {}),
                    "harness (thread)": (harnessed(by_thread), by_thread, {}),
                    "harness+spans": (harnessed(with_spans), with_spans, {}),
                    "harness+otlp": (harnessed(by_process_otlp), by_process_otlp, otlp_env),
                    "harness+otlp (thread)": (harnessed(by_thread_otlp), by_thread_otlp, otlp_env)}
        print()
        report("writer and span variants", *measure(variants, args.rounds, args.per_round))
        sink.kill()
    if args.redaction:
        from harness.secrets.rules import RULES

        print()
        by_thread_rules = Harness(store=tmp / "thread_rules.db", writer="thread")
        by_thread_none = Harness(store=tmp / "thread_none.db", writer="thread")
        # Each run waits for its rows to be written (so the rule table in force is the mode's):
        # the ratios are then the caller's time plus the writer's.
        phase3 = {"bare": (bare, None, {}),
                  "thread writer, rules": (_written_with(RULES, by_thread_rules, harnessed), None, {}),
                  "thread writer, no rules": (_written_with((), by_thread_none, harnessed), None, {})}
        found3 = report("redaction (each run written before the next)", *measure(phase3, args.rounds, args.per_round))
        redaction_cost(graph, args.rounds, statistics.median([_time(bare) for _ in range(50)]))
        rules, none = found3["thread writer, rules"][0], found3["thread writer, no rules"][0]
        print(f"harness with the rules / without: {rules / none:.3f} (run and write, thread writer)")
    print()
    caller_ratio, in_blocks, all_work = found["harness"]
    print(f"harness/bare = {caller_ratio:.2f} caller-visible ({in_blocks:.2f} in blocks of its own runs), "
          f"{all_work:.2f} all work (target <= 1.10; an inline handler that does nothing: "
          f"{found['noop handler'][0]:.2f}); openinference/bare = {found['openinference'][0]:.2f}")


def scorers_only(rounds: int, per_round: int) -> None:
    """The caller-visible cost of in-process online scoring: the harness alone and the harness
    with a scorer on every run (``Harness(scorers=[...])``), interleaved with bare runs."""
    graph = build_graph()
    tmp = scratch()
    plain = Harness(store=tmp / "plain.db")
    scored = Harness(store=tmp / "scored.db", scorers=[lambda run, case: 1.0])

    def harnessed(h):
        def run():
            with h.run(subject="bench", workflow="bench") as r:
                graph.invoke({"log": []}, r.config)
        return run

    modes = {"bare": (lambda: graph.invoke({"log": []}), None, {}), "harness": (harnessed(plain), plain, {}),
             "harness+scorers": (harnessed(scored), scored, {})}
    found = report("in-process scoring", *measure(modes, rounds, per_round))
    print(f"\nharness+scorers / harness = {found['harness+scorers'][0] / found['harness'][0]:.3f} caller-visible "
          f"({found['harness+scorers'][1] / found['harness'][1]:.3f} in blocks)")


def _time(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def _written_with(rules, h, harnessed):
    """One run of ``h``, waited for until its rows are written with ``rules``."""
    run_once = harnessed(h)

    def run():
        with redaction_rules(rules):
            run_once()
            h.flush()
    return run


SIZES = {"1 B": 1, "10 KB": 10_000, "100 KB": 100_000, "1 MB": 1_000_000}


def size_sweep(rounds: int, per_round: int) -> None:
    """Harness/bare as the state grows: a string of each size in the state, which every node
    receives as its input. Rows keep a bounded preview of each node's input (spec 003: its
    first 10,000 characters) and the run keeps its input and output (up to 1 MB of JSON
    each), so what a run stores grows with the state up to those bounds; beside the ratios,
    the characters each run stores and the harness's CPU per run fitted to them (a cost per
    run plus a cost per million stored characters)."""
    graph = build_graph()
    tmp = scratch()
    h = Harness(store=tmp / "sizes.db")
    found: dict[str, tuple[float, ...]] = {}
    for label, size in SIZES.items():
        state = {"log": [], "document": "x" * size}
        last: list[str] = []

        def bare(state=state):
            graph.invoke(state)

        def noop(state=state):
            graph.invoke(state, {"callbacks": [NoopHandler()]})

        def harnessed(state=state, last=last):
            with h.run(subject="bench", workflow="bench") as r:
                graph.invoke(state, r.config)
            last[:] = [r.run_id]

        modes = {"bare": (bare, None, {}), "noop handler": (noop, None, {}), "harness": (harnessed, h, {})}
        blocks, caller, in_blocks, cpu = measure(modes, rounds, per_round)
        report(f"state with a {label} string", blocks, caller, in_blocks, cpu)
        h.flush()
        bare_cpu, harness_cpu = statistics.median(cpu["bare"]), statistics.median(cpu["harness"])
        found[label] = (statistics.median(in_blocks["harness"]) / statistics.median(in_blocks["bare"]),
                        harness_cpu / bare_cpu, bare_cpu, harness_cpu - bare_cpu, stored_chars(h.store, last[0]))
        print()
    print("harness/bare by state size (in blocks, CPU; item 1's targets: <= 1.30 in blocks, <= 1.7x CPU):")
    for label, (in_block, cpu_ratio, bare_cpu, added, chars) in found.items():
        print(f"  {label:>6}: {in_block:.2f} in blocks, {cpu_ratio:.2f}x CPU (bare {bare_cpu * 1e3:.2f} ms, harness "
              f"+{added * 1e3:.2f} ms); a run stores {chars / 1e3:,.0f} K characters")
    added = [v[3] for v in found.values()]
    stored = [v[4] / 1e6 for v in found.values()]
    slope, intercept = statistics.linear_regression(stored, added)
    budget = 0.7 * statistics.median(v[2] for v in found.values())
    room = (f"at most {(budget - intercept) / slope * 1e3:,.0f} K characters stored per run" if budget > intercept
            else "less than the cost per run alone")
    print(f"harness CPU per run = {intercept * 1e3:.2f} ms + {slope * 1e3:.1f} ms per M characters stored (least "
          f"squares over the sizes); 1.7x CPU leaves it {budget * 1e3:.2f} ms per run: {room}")


def stored_chars(store, run_id: str) -> int:
    """The characters one run's rows hold as stored, over every sheet (what writing the run
    costs in proportion to; a number counts 8)."""
    return sum(len(value) if isinstance(value, str) else 8
               for sheet in ALL_SHEETS for row in store.rows(sheet, [run_id], with_keys=True, decode_json=False)
               for value in row.values() if value is not None)


if __name__ == "__main__":
    main()
