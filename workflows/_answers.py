"""The structured answers the workflow asks its model for (tool-call schemas)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from ._company import ToolName

RiskLevel = Literal["LOW", "MODERATE", "HIGH", "CRITICAL"]


class ToolChoice(BaseModel):
    name: ToolName = Field(description="One of sec_edgar, finnhub, court_listener, web_search")
    reason: str = Field("", description="Why this tool can return data for the company")


class ToolSelection(BaseModel):
    """The data tools to run for a credit assessment."""

    tools: list[ToolChoice] = Field(description="The selected tools, each at most once")
    reasoning: str = Field("", description="One or two sentences on the selection")


class CreditAssessment(BaseModel):
    """A credit assessment grounded in the source data."""

    risk_level: RiskLevel
    credit_score: int = Field(ge=300, le=850, description="300-850")
    confidence: float = Field(ge=0.0, le=1.0, description="0-1")
    reasoning: str = Field(description="Why, citing the figures used")
    risk_factors: list[str] = Field(default_factory=list)
    positive_factors: list[str] = Field(default_factory=list)
    recommendations: list[str] = Field(default_factory=list, description="Actionable next steps")
    data_gaps: list[str] = Field(default_factory=list, description="Planned sources that returned no data")
