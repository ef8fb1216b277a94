"""The words of a comparison, shared by ``harness compare`` and the report so both say the
same thing: from ``Comparison.to_dict()``, what each verdict means, the p-value of the
reported direction, the interval, what an inconclusive metric would need, and the gate.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any, Literal

#: What each verdict says, in a few words.
VERDICT_MEANINGS = {
    "regressed": "worse, beyond chance",
    "improved": "better, beyond chance",
    "no_change": "any change is within the margin",
    "inconclusive": "neither shown: too few cases to tell",
}
GateState = Literal["regressed", "inconclusive", "passed", "ungated"]


def holm_applies(comparison: Mapping[str, Any]) -> bool:
    """Whether the gated verdicts used Holm-adjusted p-values (more than one gated metric tested)."""
    return sum(1 for m in comparison.get("metrics") or [] if m.get("gated") and m.get("n")) > 1


def p_text(m: Mapping[str, Any]) -> str:
    """The p-value of the reported direction and that direction: ``0.031 worse``."""
    p = m.get("p_value")
    if not isinstance(p, (int, float)):
        return "—"
    worse, better = m.get("p_worse"), m.get("p_better")
    numbers = isinstance(worse, (int, float)) and isinstance(better, (int, float))
    direction = "better" if numbers and better < worse else "worse"
    return f"{p_number(p)} {direction}"


def p_number(p: float) -> str:
    return f"{p:.2g}" if p < 0.001 else f"{p:.3f}"


def interval_ends(m: Mapping[str, Any]) -> tuple[float | None, float | None]:
    """The interval's ends, infinite where the test could not bound them (null with n > 0)."""
    if not m.get("n"):
        return None, None
    low, high = m.get("ci_low"), m.get("ci_high")
    return (-math.inf if low is None else low), (math.inf if high is None else high)


def ci_heading(comparison: Mapping[str, Any]) -> str:
    levels = {m.get("ci_level") for m in comparison.get("metrics") or [] if m.get("ci_level")}
    return f"{levels.pop():.0%} CI" if len(levels) == 1 else "CI"


def needed_sentence(m: Mapping[str, Any], comparison: Mapping[str, Any],
                    fmt: Callable[[float | None, bool], str]) -> str | None:
    """For an inconclusive metric: how many paired cases would show a change of the
    observed size, or that none could; ``fmt(value, signed)`` writes the metric's values."""
    if m.get("verdict") != "inconclusive":
        return None
    name, alpha = m.get("name"), comparison.get("alpha")
    if not m.get("n"):
        return f"{name}: inconclusive: no paired case has a value of it"
    needed = m.get("needed_cases")
    if needed is None:
        return (f"{name}: inconclusive: the mean delta is 0, so no number of cases like these would show a "
                f"change; they do not yet show that any change stays within ±{fmt(m.get('margin'), False)}")
    gated = [g for g in comparison.get("metrics") or [] if g.get("gated") and g.get("n")]
    level = (f"alpha {_plain(alpha)} / {len(gated)} (Holm, {len(gated)} gated metrics)"
             if m.get("gated") and len(gated) > 1 else f"alpha {_plain(alpha)}")
    return (f"{name}: inconclusive: about {needed:,} paired cases like these would be needed to show a change "
            f"of {fmt(m.get('delta'), True)} at {level}; there are {m.get('n'):,}")


def gate_state(comparison: Mapping[str, Any]) -> tuple[GateState, str]:
    """The gate's outcome and its sentence."""
    gated = [m for m in comparison.get("metrics") or [] if m.get("gated")]
    if not gated:
        return "ungated", "no metric gates this comparison"
    regressed = [m["name"] for m in gated if m.get("verdict") == "regressed"]
    if regressed:
        return "regressed", f"regressed: {', '.join(regressed)}"
    inconclusive = [m["name"] for m in gated if m.get("verdict") == "inconclusive"]
    if inconclusive:
        return "inconclusive", f"no gated metric regressed, but inconclusive: {', '.join(inconclusive)}"
    return "passed", "no gated metric regressed (" + ", ".join(f"{m['name']}: {m['verdict']}" for m in gated) + ")"


def holm_sentence(comparison: Mapping[str, Any]) -> str | None:
    if not holm_applies(comparison):
        return None
    gated = [m["name"] for m in comparison.get("metrics") or [] if m.get("gated") and m.get("n")]
    return (f"{len(gated)} gated metrics ({', '.join(gated)}): their verdicts and p use Holm-adjusted p-values, "
            "so the gate's chance of a false alarm stays within alpha")


def _plain(value: Any) -> str:
    return f"{value:g}" if isinstance(value, (int, float)) else "—"
