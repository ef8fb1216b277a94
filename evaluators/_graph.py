"""Tier-3 graph metrics of the three-tier evaluation framework, on networkx graphs, and the
event graph of a captured run."""

from __future__ import annotations

import statistics
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ._checks import clamp01, non_negative
from ._trajectory import text

if TYPE_CHECKING:
    import networkx as nx

COORDINATION_TYPES = frozenset({"coordination", "status_update", "handoff"})


def _graph(graph: Any) -> nx.Graph:
    import networkx as nx  # deferred: slow import

    if not isinstance(graph, nx.Graph):
        raise ValueError(f"graph must be a networkx graph, got {type(graph).__name__}")
    return graph


def path_convergence(graph: nx.Graph, path: Sequence[Hashable]) -> float:
    """Efficiency of a path taken through a graph: ``minimum_steps / actual_steps``.

    ``actual_steps = len(path) − 1``; ``minimum_steps`` = shortest-path length in ``graph``
    from the path's first to its last node. No route between them -> 0.0. A one-node path
    is already optimal -> 1.0 (the framework's original definition returned 0 for zero steps, penalising a path that
    cannot be shortened). Capped at 1 (a path that skips edges of the graph can look
    shorter than the shortest route). Empty path or a node not in the graph -> ValueError.
    """
    import networkx as nx

    g = _graph(graph)
    if isinstance(path, (str, bytes)) or not isinstance(path, Sequence) or not path:
        raise ValueError(f"path must be a non-empty list of nodes, got {path!r}")
    for node in (path[0], path[-1]):
        if node not in g:
            raise ValueError(f"node {node!r} is not in the graph")
    actual = len(path) - 1
    if actual == 0:
        return 1.0
    try:
        minimum = nx.shortest_path_length(g, path[0], path[-1])
    except nx.NetworkXNoPath:
        return 0.0
    return min(1.0, minimum / actual)


def tool_selection_accuracy(tool_calls: Sequence[Mapping[str, Any]], optimal_tools: Mapping[str, str]) -> float:
    """``correct_tool_selections / total_tool_selections``: a call is correct when its
    ``tool_name`` is the optimal tool for its ``context`` (``optimal_tools[context]``). No
    calls -> 0.0 (as the framework defines it: nothing was selected correctly). A context with no optimal tool
    -> ValueError (it cannot be judged)."""
    if isinstance(tool_calls, (str, bytes, Mapping)) or not isinstance(tool_calls, Sequence):
        raise ValueError(f"tool_calls must be a list of calls, got {tool_calls!r}")
    if not isinstance(optimal_tools, Mapping):
        raise ValueError(f"optimal_tools must map context -> tool name, got {optimal_tools!r}")
    if not tool_calls:
        return 0.0
    correct = 0
    for i, call in enumerate(tool_calls):
        if not isinstance(call, Mapping):
            raise ValueError(f"tool_calls[{i}] must be a mapping, got {call!r}")
        context = call.get("context", "")
        if context not in optimal_tools:
            raise ValueError(f"no optimal tool for the context {context!r} of tool_calls[{i}]")
        correct += call.get("tool_name") == optimal_tools[context]
    return correct / len(tool_calls)


def communication_overhead(interactions: Sequence[Mapping[str, Any]]) -> float:
    """``coordination_messages / total_messages``, lower is better: a message whose ``type``
    is coordination, status_update or handoff is coordination. No messages -> 0.0."""
    if isinstance(interactions, (str, bytes, Mapping)) or not isinstance(interactions, Sequence):
        raise ValueError(f"interactions must be a list of messages, got {interactions!r}")
    if not interactions:
        return 0.0
    for i, m in enumerate(interactions):
        if not isinstance(m, Mapping):
            raise ValueError(f"interactions[{i}] must be a mapping, got {m!r}")
    return sum(1 for m in interactions if m.get("type") in COORDINATION_TYPES) / len(interactions)


def coordination_centrality(graph: nx.Graph) -> dict[Hashable, float]:
    """Per node ``(betweenness + closeness + degree) / 3`` (networkx centralities).

    For a directed graph, degree centrality is ``(in + out) / (2·(n − 1))`` so that it stays
    in [0, 1] like the other two (networkx's own directed degree centrality reaches 2).
    Empty graph -> ``{}``; a single node -> degree 1, others 0.
    """
    import networkx as nx

    g = _graph(graph)
    if len(g) == 0:
        return {}
    betweenness = nx.betweenness_centrality(g)
    closeness = nx.closeness_centrality(g)
    degree = nx.degree_centrality(g)
    scale = 2.0 if g.is_directed() and len(g) > 1 else 1.0
    return {n: clamp01((betweenness[n] + closeness[n] + degree[n] / scale) / 3) for n in g}


def task_distribution_balance(agent_tasks: Mapping[Hashable, float]) -> float:
    """``clamp(1 − std(tasks) / mean(tasks), 0, 1)``, higher is more balanced.

    std is the sample standard deviation (``statistics.stdev``, divisor n − 1), as the
    framework's reference code computes it. Fewer than 2 agents, or no tasks at all -> 1.0. Negative
    counts -> ValueError.
    """
    if not isinstance(agent_tasks, Mapping):
        raise ValueError(f"agent_tasks must map agent -> task count, got {agent_tasks!r}")
    counts = [non_negative(f"tasks of {a!r}", v) for a, v in agent_tasks.items()]
    if len(counts) < 2:
        return 1.0
    mean = statistics.mean(counts)
    if mean == 0:
        return 1.0
    return clamp01(1.0 - statistics.stdev(counts) / mean)


def run_graph(events: Iterable[Mapping[str, Any]]) -> nx.DiGraph:
    """The event tree of a run as a networkx DiGraph, from its ``langgraph_events`` rows.

    One node per ``event_id`` (its start and end rows merged) with attributes ``name``
    (event_name), ``node`` (graph node), ``kind`` (graph|node|llm|tool), ``event_type`` (of
    the start row), ``start``/``end`` timestamps, ``duration_ms``, ``status``, ``error``; an
    edge ``parent_event_id -> event_id`` whenever the parent is among the events. A row
    without ``event_id`` -> ValueError.
    """
    import networkx as nx

    g = nx.DiGraph()
    parents: dict[str, str] = {}
    for row in events:
        if not isinstance(row, Mapping):
            raise ValueError(f"langgraph_events rows must be mappings, got {row!r}")
        event_id = text(row.get("event_id"))
        if event_id is None:
            raise ValueError(f"langgraph_events row has no event_id: {dict(row)!r}")
        is_start = (text(row.get("event_type")) or "").endswith("_start")
        update = {
            "name": text(row.get("event_name")), "node": text(row.get("node")),
            "kind": text(row.get("event_kind")),
        }
        if is_start:
            update.update(event_type=row.get("event_type"), start=row.get("timestamp"))
        else:
            update.update(end=row.get("timestamp"), duration_ms=row.get("duration_ms"),
                          status=text(row.get("status")), error=text(row.get("error")))
        g.add_node(event_id, **{k: v for k, v in update.items() if v is not None})  # merges
        parent = text(row.get("parent_event_id"))
        if parent:
            parents[event_id] = parent
    g.add_edges_from((p, c) for c, p in parents.items() if p in g)
    return g
