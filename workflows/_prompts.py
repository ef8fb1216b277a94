"""The workflow's prompt registry: id, human name, category and the two templates.

Every prompt ends with a ``DATA`` block holding the facts as JSON; the model answers from
that block alone. The LLM judge's prompt belongs to :mod:`evaluators`; it is registered
here only so its id, name and category label the ``prompts`` rows like the others.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from types import MappingProxyType
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

DATA_MARKER = "DATA:"


@dataclass(frozen=True, slots=True)
class Prompt:
    id: str
    name: str
    category: str
    system: str
    user: str  # a str.format template; ``{data}`` receives the JSON block

    def messages(self, data: dict[str, Any], **variables: Any) -> list[BaseMessage]:
        """System + user messages with ``data`` rendered as the prompt's JSON block."""
        block = json.dumps(data, ensure_ascii=False, indent=1, default=str)
        return [SystemMessage(self.system), HumanMessage(self.user.format(data=block, **variables))]

    def metadata(self, call_type: str, task: str, variables: dict[str, Any], context: str = "") -> dict[str, Any]:
        """The ``harness.*`` metadata that labels the ``llm_calls`` and ``prompts`` rows."""
        return {
            "harness.call_type": call_type,
            "harness.current_task": task,
            "harness.prompt_id": self.id,
            "harness.prompt_name": self.name,
            "harness.prompt_category": self.category,
            "harness.prompt_variables": variables,
            "harness.context": context,
        }


COMPANY_PARSER = Prompt(
    id="company_parser",
    name="Company Parser",
    category="input",
    system=(
        "You identify the company a credit analyst asked about. Use only the directory "
        "matches in the DATA block: pick the match that is the same company as the input "
        "(ignore case, punctuation and legal suffixes such as Inc, Corp, AG, LLC). If no match "
        "is the same company, return the input name with is_public, ticker and country null and "
        "a confidence of at most 0.3. Answer with the CompanyInfo tool."
    ),
    user="Identify this company: {company}\n\nDATA:\n{data}",
)

TOOL_SELECTION = Prompt(
    id="tool_selection",
    name="Tool Selection",
    category="planning",
    system=(
        "You plan the data collection for a credit assessment. Tools:\n"
        "- sec_edgar: SEC filings and 10-K financials; only for US-listed companies.\n"
        "- finnhub: market data, quote, ratios, news; only for listed companies.\n"
        "- court_listener: US court dockets (bankruptcy, civil suits); for US-listed and private companies.\n"
        "- web_search: web results, news and sentiment; always useful.\n"
        "Select every tool that can return data for this company and no tool that cannot. "
        "Give one short reason per tool. Answer with the ToolSelection tool."
    ),
    user="Plan the tools for {company}.\n\nDATA:\n{data}",
)

CREDIT_SYNTHESIS = Prompt(
    id="credit_synthesis",
    name="Credit Synthesis",
    category="synthesis",
    system=(
        "You are a credit analyst. From the source data in the DATA block only, assess the "
        "company's credit risk: risk_level one of LOW, MODERATE, HIGH, CRITICAL; credit_score "
        "an integer 300-850 (LOW >= 720, MODERATE 620-719, HIGH 520-619, CRITICAL < 520); "
        "confidence 0-1 reflecting how much data there is; reasoning that cites the figures "
        "used; risk_factors, positive_factors, recommendations (actionable) and data_gaps "
        "(sources without data). A bankruptcy filing means CRITICAL. With no data at all, say "
        "so and keep confidence at most 0.2. Answer with the CreditAssessment tool."
    ),
    user="Assess the credit risk of {company}.\n\nDATA:\n{data}",
)

LLM_JUDGE = Prompt(
    id="llm_judge",
    name="LLM Judge",
    category="evaluation",
    system="(defined by evaluators.LLMJudge)",
    user="",
)

PROMPTS: Mapping[str, Prompt] = MappingProxyType({p.id: p for p in (COMPANY_PARSER, TOOL_SELECTION, CREDIT_SYNTHESIS, LLM_JUDGE)})


def extract_data(text: str) -> dict[str, Any]:
    """The JSON object after the last ``DATA:`` marker of a prompt; {} when absent or invalid."""
    at = text.rfind(DATA_MARKER)
    if at < 0:
        return {}
    try:
        value = json.loads(text[at + len(DATA_MARKER):].strip())
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
