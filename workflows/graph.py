"""The credit-analysis graph.

``parse_input -> validate_company -> (invalid: END) -> create_plan -> fetch_api_data and/or
search_web (the tools of the plan, both branches in the same step) -> synthesize ->
save_to_database -> evaluate_assessment -> END``.

Everything a node needs comes from the state or ``config["configurable"]``:

- ``model``: the analyst chat model (default: a fresh ``offline-analyst-1`` at temperature 0)
- ``judge_model``: the judge's chat model (default: ``model``; always used at temperature 0)
- ``judge``: run the LLM judge (default True)
- ``sources``: a :class:`~workflows.DataSources` (default: the graph's, snapshots unless
  given to :func:`build_graph`)

``graph`` is compiled with the defaults for LangGraph Studio (``langgraph.json``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

from langchain_core.language_models import BaseChatModel
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from workflows._company import API_TOOLS
from workflows._nodes import CreditNodes, Defaults
from workflows._offline import OfflineAnalyst
from workflows._sources import DataSources, SnapshotSources
from workflows._state import CreditInput, CreditOutput, CreditState

#: Graph nodes in their normal order.
NODES: tuple[str, ...] = ("parse_input", "validate_company", "create_plan", "fetch_api_data", "search_web",
                          "synthesize", "save_to_database", "evaluate_assessment")
#: Node -> node_type of its rows.
NODE_TYPES: Mapping[str, str] = MappingProxyType({
    "parse_input": "llm", "validate_company": "agent", "create_plan": "agent", "fetch_api_data": "tool",
    "search_web": "tool", "synthesize": "llm", "save_to_database": "storage", "evaluate_assessment": "agent",
})
#: Node -> workflow phase (``tool_calls.workflow_phase``).
WORKFLOW_PHASES: Mapping[str, str] = MappingProxyType({
    "parse_input": "input", "validate_company": "validation", "create_plan": "planning",
    "fetch_api_data": "data_collection", "search_web": "data_collection", "synthesize": "synthesis",
    "save_to_database": "storage", "evaluate_assessment": "evaluation",
})


def route_after_validation(state: CreditState) -> str:
    """An invalid company ends the run (the reason is in ``validation``)."""
    return "create_plan" if (state.get("validation") or {}).get("valid") else END


def route_after_plan(state: CreditState) -> list[str]:
    """The fetch nodes the plan needs (the plan is chosen from the company type):
    ``fetch_api_data`` for any API tool, ``search_web`` for web_search, else synthesize."""
    tools = (state.get("plan") or {}).get("tools") or []
    targets = (["fetch_api_data"] if any(t in API_TOOLS for t in tools) else []) + (
        ["search_web"] if "web_search" in tools else [])
    return targets or ["synthesize"]


def build_graph(*, model: Callable[[], BaseChatModel] | None = None, sources: DataSources | None = None,
                checkpointer=None) -> CompiledStateGraph:
    """Compile the graph. ``model`` is a factory used when the config names no model;
    ``sources`` the data used when the config names none (default: bundled snapshots)."""
    nodes = CreditNodes(Defaults(model=model or OfflineAnalyst, sources=sources or SnapshotSources()))
    g = StateGraph(CreditState, input_schema=CreditInput, output_schema=CreditOutput)
    for name in NODES:
        g.add_node(name, getattr(nodes, name))
    g.add_edge(START, "parse_input")
    g.add_edge("parse_input", "validate_company")
    g.add_conditional_edges("validate_company", route_after_validation, ["create_plan", END])
    g.add_conditional_edges("create_plan", route_after_plan, ["fetch_api_data", "search_web", "synthesize"])
    g.add_edge("fetch_api_data", "synthesize")
    g.add_edge("search_web", "synthesize")
    g.add_edge("synthesize", "save_to_database")
    g.add_edge("save_to_database", "evaluate_assessment")
    g.add_edge("evaluate_assessment", END)
    return g.compile(checkpointer=checkpointer, name="credit_analysis")


graph = build_graph()
