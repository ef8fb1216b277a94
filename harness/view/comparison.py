"""The words of a comparison, shared by ``harness compare`` and the report so both say the
same thing: from ``Comparison.to_dict()`` (or ``Comparisons.to_dict()``, several candidates
against one baseline), what each verdict means, the p-value of the reported direction, the
interval and its level, what an inconclusive metric would need, missing data, and the gate.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Literal

#: What each verdict says, in a few words.
VERDICT_MEANINGS = {
    "regressed": "worse, beyond chance",
    "improved": "better, beyond chance",
    "no_change": "any change is within the margin",
    "inconclusive": "neither shown: too few cases to tell",
}
#: How each equivalence interval is made, in words.
EQUIVALENCE_METHODS = {
    "exact_binomial_discordant": "exact binomial",
    "betting": "distribution-free (betting)",
    "student_t": "Student t",
    "betting_sequence": "distribution-free sequential (betting)",
    "asymptotic_sequence": "asymptotic sequential",
}
GateState = Literal["regressed", "missing_data", "inconclusive", "passed", "ungated"]
Fmt = Callable[[float | None, bool], str]


def each(comparison: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    """The two-experiment comparisons of ``comparison``: itself, or each candidate's."""
    yield from comparison.get("comparisons") or [comparison]


def holm_applies(comparison: Mapping[str, Any]) -> bool:
    """Whether the gated verdicts used Holm-adjusted p-values (more than one gated metric
    tested, over every candidate)."""
    return len(_gated_tested(comparison)) > 1


def _gated_tested(comparison: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    return [(c.get("b"), m) for c in each(comparison) for m in c.get("metrics") or [] if m.get("gated") and m.get("n")]


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
    levels = {m.get("ci_level") for c in each(comparison) for m in c.get("metrics") or [] if m.get("ci_level")}
    return f"{levels.pop():.0%} CI" if len(levels) == 1 else "CI (level)"


def level_note(m: Mapping[str, Any], comparison: Mapping[str, Any]) -> str:
    """`` at 97.5%`` after an interval whose level is not the comparison's usual one (Holm)."""
    usual = 1 - 2 * float(comparison.get("alpha") or 0.05)
    level = m.get("ci_level")
    return f" at {level * 100:.4g}%" if isinstance(level, (int, float)) and abs(level - usual) > 1e-12 else ""


def needed_sentence(m: Mapping[str, Any], comparison: Mapping[str, Any], fmt: Fmt) -> str | None:
    """For an inconclusive metric: why (the equivalence interval, when the test's own lies
    within the margin), and how many paired cases would show a change of the observed size
    (or of the margin, when larger) with 80% power; ``fmt(value, signed)`` writes the
    metric's values."""
    if m.get("verdict") != "inconclusive":
        return None
    name, alpha = m.get("name"), comparison.get("alpha")
    if not m.get("n"):
        return f"{name}: inconclusive: no paired case has a value of it"
    margin, delta = m.get("margin"), m.get("delta")
    reason = ""
    low, high, eq_low, eq_high = m.get("ci_low"), m.get("ci_high"), m.get("eq_low"), m.get("eq_high")
    if (isinstance(margin, (int, float)) and None not in (low, high) and -margin < low and high < margin
            and (eq_low, eq_high) != (low, high)):
        method = EQUIVALENCE_METHODS.get(str(m.get("eq_method")), str(m.get("eq_method")))
        reason = (f" the test's interval lies within ±{fmt(margin, False)}, but the {method} interval "
                  f"[{fmt(eq_low if eq_low is not None else -math.inf, True)}, "
                  f"{fmt(eq_high if eq_high is not None else math.inf, True)}] does not, so no change as large as "
                  "the margin is ruled out yet;")
    if comparison.get("sequential"):
        return (f"{name}: inconclusive:{reason} compared sequentially: add cases and compare again, the verdict "
                "stays valid however often you look")
    needed = m.get("needed_cases")
    if needed is None:
        return f"{name}: inconclusive:{reason} no change to plan for (the mean delta is 0 and there is no margin)"
    gated = _gated_tested(comparison)
    level = (f"alpha {_plain(alpha)} / {len(gated)} (Holm, {len(gated)} gated metrics)"
             if m.get("gated") and len(gated) > 1 else f"alpha {_plain(alpha)}")
    planned = (f"a change of {fmt(delta, True)}" if isinstance(delta, (int, float)) and isinstance(margin, (int, float))
               and abs(delta) >= margin else f"a change as large as the margin (±{fmt(margin, False)})")
    return (f"{name}: inconclusive:{reason} about {needed:,} paired cases like these would show {planned} "
            f"80% of the time at {level}; there are {m.get('n'):,}")


def missing_sentence(m: Mapping[str, Any], comparison: Mapping[str, Any]) -> str | None:
    """For a gated metric that lost too many cases to missing data: why the gate fails."""
    if not m.get("missing_data_fails"):
        return None
    name, lost, cases = m.get("name"), m.get("cases_lost") or 0, m.get("cases") or 0
    if not m.get("n"):
        return f"{name}: no paired case has a value of it on both sides: the gate cannot pass on data it does not have"
    rule = "any lost case fails the gate (--strict)" if comparison.get("strict") else "more than 10% fails the gate"
    return (f"{name}: {lost} of {cases} paired case(s) have no value on one side ({rule}): the gate cannot pass "
            "on data it does not have")


def gate_state(comparison: Mapping[str, Any]) -> tuple[GateState, str]:
    """The gate's outcome and its sentence (candidates named when there are several)."""
    several = "comparisons" in comparison
    gated = [(c.get("b"), m) for c in each(comparison) for m in c.get("metrics") or [] if m.get("gated")]
    if not gated:
        return "ungated", "no metric gates this comparison"

    def named(rows: list[tuple[str, Mapping[str, Any]]]) -> str:
        return ", ".join(f"{b}: {m['name']}" if several else str(m["name"]) for b, m in rows)

    regressed = [(b, m) for b, m in gated if m.get("verdict") == "regressed"]
    missing = [(b, m) for b, m in gated if m.get("missing_data_fails")]
    if regressed or missing:
        parts = ([f"regressed: {named(regressed)}"] if regressed else []) + (
            [f"missing data: {named(missing)}"] if missing else [])
        return ("regressed" if regressed else "missing_data"), "; ".join(parts)
    inconclusive = [(b, m) for b, m in gated if m.get("verdict") == "inconclusive"]
    if inconclusive:
        return "inconclusive", f"no gated metric regressed, but inconclusive: {named(inconclusive)}"
    return "passed", "no gated metric regressed (" + ", ".join(
        f"{named([(b, m)])}: {m['verdict']}" for b, m in gated) + ")"


def holm_sentence(comparison: Mapping[str, Any]) -> str | None:
    if not holm_applies(comparison):
        return None
    several = "comparisons" in comparison
    gated = [f"{b}: {m['name']}" if several else str(m["name"]) for b, m in _gated_tested(comparison)]
    return (f"{len(gated)} gated metrics ({', '.join(gated)}): their verdicts and p use Holm-adjusted p-values, "
            "so the gate's chance of a false alarm stays within alpha; their intervals are at the level Holm "
            "decided each at")


def sequential_sentence(comparison: Mapping[str, Any]) -> str | None:
    if not any(c.get("sequential") for c in each(comparison)):
        return None
    return ("sequential: p-values and intervals are valid however often the comparison is looked at again as "
            "cases arrive (confidence sequences), so they are wider than a single look's")


def _plain(value: Any) -> str:
    return f"{value:g}" if isinstance(value, (int, float)) else "—"
