"""The credit-analysis LangGraph workflow: state, nodes, prompts, data tools and sources,
model providers (offline analyst, Groq) and the bundled snapshots."""

from ._answers import CreditAssessment, ToolChoice, ToolSelection
from ._batch import BatchSettings, run_batch
from ._company import (
    API_TOOLS,
    EXPECTED_TOOLS,
    TOOL_NAMES,
    CompanyInfo,
    Validation,
    classify_company,
    expected_trajectory,
    validate_company_name,
)
from ._live import LiveSources
from ._offline import OFFLINE_MODELS, OfflineAnalyst
from ._prompts import PROMPTS, Prompt
from ._providers import PROVIDERS, Provider, ProviderError, RetryingChatGroq, make_model, resolve_provider
from ._sources import DataSources, SnapshotSources, SourceError, count_records, empty_payload
from ._state import CreditInput, CreditOutput, CreditState
from ._tools import TOOLS
from .graph import NODE_TYPES, NODES, WORKFLOW_PHASES, build_graph

__all__ = [
    "API_TOOLS",
    "EXPECTED_TOOLS",
    "NODES",
    "NODE_TYPES",
    "OFFLINE_MODELS",
    "PROMPTS",
    "PROVIDERS",
    "TOOLS",
    "TOOL_NAMES",
    "WORKFLOW_PHASES",
    "BatchSettings",
    "CompanyInfo",
    "CreditAssessment",
    "CreditInput",
    "CreditOutput",
    "CreditState",
    "DataSources",
    "LiveSources",
    "OfflineAnalyst",
    "Prompt",
    "Provider",
    "ProviderError",
    "RetryingChatGroq",
    "SnapshotSources",
    "SourceError",
    "ToolChoice",
    "ToolSelection",
    "Validation",
    "build_graph",
    "classify_company",
    "count_records",
    "empty_payload",
    "expected_trajectory",
    "make_model",
    "resolve_provider",
    "run_batch",
    "validate_company_name",
]
