"""Which agent each event belongs to, read off the subgraph nesting of a run's events.

A node, model call or tool call belongs to the agent whose subgraph it runs in: the
outermost subgraph under the root graph, named as the root graph's node that runs it
(langgraph-supervisor's ``research_expert``, a swarm's ``Alice``, a
``create_react_agent(name=...)`` added as a node). A call outside any subgraph belongs to
its node, and a node of the root graph is its own agent; ``agent_names`` (``Harness.run``)
renames those root-level names, as it always did for single graphs.

In a hierarchy (a supervisor of supervisors) the agent is the root graph's agent, e.g. the
team ``research_team``: the root graph hands off to it, so its figures add up to the run's.
The whole chain of subgraphs, outermost first, is the *agent path*
(``research_team/research_expert``), which names the inner agent as well.

The nesting comes from LangGraph's checkpoint namespace (:attr:`Event.subgraph_depth`)
along the recorded tree: a node one namespace level deeper than the node that contains it
runs in a subgraph that node hosts; a functional-API task is at its caller's level, so it
is a node of the caller's graph, not a subgraph. Made where rows and spans are built,
never in the callbacks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .events import Event

#: Between the names of an agent path.
PATH_SEPARATOR = "/"


@dataclass(frozen=True, slots=True)
class Agent:
    """An event's agent (``agent_name``) and the chain of subgraphs it runs in (``agent_path``)."""

    name: str
    path: str


def attribute(events: Sequence[Event], agent_names: Mapping[str, str] | None = None) -> dict[Event, Agent]:
    """Each event's :class:`Agent` (events outside any node, and the graph itself, have none).

    ``events`` in creation order (a parent before its children), as :func:`.events.assemble`
    gives them."""
    names = agent_names or {}
    by_id = {e.id: e for e in events}
    owner: dict[Event, Event | None] = {}  # innermost enclosing node (itself for a node)
    hosts: dict[Event, tuple[Event, ...]] = {}  # nodes hosting the subgraphs it runs in, outermost first
    out: dict[Event, Agent] = {}
    for e in events:
        parent = by_id.get(e.parent_id) if e.parent_id else None
        above = owner.get(parent) if parent is not None else None
        if e.kind == "graph":
            owner[e], hosts[e] = None, ()
            continue
        if e.kind == "node":
            owner[e] = e
            if above is None:
                hosts[e] = ()
            elif above.subgraph_depth < e.subgraph_depth:
                hosts[e] = (*hosts[above], above)
            else:  # a task the node called, or a node of the same graph
                hosts[e] = hosts[above]
        else:
            owner[e] = above
            hosts[e] = hosts[above] if above is not None else ()
        chain = hosts[e] or ((owner[e],) if owner[e] is not None else ())
        if chain:
            top = names.get(chain[0].name, chain[0].name)
            out[e] = Agent(top, PATH_SEPARATOR.join((top, *(h.name for h in chain[1:]))))
    return out
