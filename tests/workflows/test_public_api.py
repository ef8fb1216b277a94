import workflows


def test_public_names_are_pinned():
    assert sorted(workflows.__all__) == sorted([
        "API_TOOLS", "EXPECTED_TOOLS", "NODES", "NODE_TYPES", "OFFLINE_MODELS", "PROMPTS", "PROVIDERS", "TOOLS",
        "TOOL_NAMES", "WORKFLOW_PHASES", "BatchSettings", "CompanyInfo", "CreditAssessment", "CreditInput", "CreditOutput",
        "CreditState", "DataSources", "LiveSources", "OfflineAnalyst", "Prompt", "Provider", "ProviderError", "RetryingChatGroq",
        "SnapshotSources", "SourceError", "ToolChoice", "ToolSelection", "Validation", "build_graph",
        "classify_company", "count_records", "empty_payload", "expected_trajectory", "make_model",
        "resolve_provider", "run_batch", "validate_company_name",
    ])
    for name in workflows.__all__:
        assert hasattr(workflows, name)


def test_prompt_registry_names_ids_and_categories():
    assert {p.id: p.category for p in workflows.PROMPTS.values()} == {
        "company_parser": "input", "tool_selection": "planning", "credit_synthesis": "synthesis", "llm_judge": "evaluation"}


def test_tools_are_the_four_sources():
    assert tuple(workflows.TOOLS) == workflows.TOOL_NAMES == ("sec_edgar", "finnhub", "court_listener", "web_search")


def test_langgraph_json_exposes_the_compiled_graph():
    import importlib.util
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    target = json.loads((root / "langgraph.json").read_text())["graphs"]["credit_analysis"]
    path, attr = target.split(":")
    spec = importlib.util.spec_from_file_location("studio_graph", root / path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    graph = getattr(module, attr)
    assert set(workflows.NODES) <= set(graph.get_graph().nodes)
