"""The words of a judge's figures, shared by ``harness agreement``, ``harness compare`` and
the report so all three say the same thing: from ``Agreement.to_dict()``, the headline
statistic with its interval and n; from a pairwise comparison's dict, the win rate, the
sign test and the position flips.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

from .formats import MISSING

#: Each agreement statistic's name for people.
STATISTICS = {"kappa": "Cohen's κ", "weighted_kappa": "weighted κ", "spearman": "Spearman's ρ",
              "fleiss_kappa": "Fleiss' κ", "krippendorff_alpha": "Krippendorff's α"}


def figure(value: float | None, digits: int = 2) -> str:
    return MISSING if value is None else f"{value:.{digits}f}"


def estimate_text(e: Mapping[str, Any] | None, digits: int = 2) -> str:
    """``0.62 [0.41, 0.80]``, or ``—`` when undefined."""
    if not e or e.get("value") is None:
        return MISSING
    ends = "" if e.get("ci_low") is None else f" [{figure(e['ci_low'], digits)}, {figure(e['ci_high'], digits)}]"
    return f"{figure(e['value'], digits)}{ends}"


def headline_name(agreement: Mapping[str, Any]) -> str:
    head = agreement.get("headline") or {}
    name = STATISTICS.get(head.get("statistic") or "", "agreement")
    weights = (agreement.get("ordinal") or {}).get("weights")
    return f"{name} ({weights})" if head.get("statistic") == "weighted_kappa" and weights else name


def agreement_figure(agreement: Mapping[str, Any]) -> str:
    """``Cohen's κ 0.62 [0.41, 0.80] (95%), n 40``."""
    head = agreement.get("headline")
    if not head:
        return f"not measurable ({agreement.get('n', 0)} run(s) with both)"
    return f"{headline_name(agreement)} {estimate_text(head)} ({head['ci_level']:.0%}), n {head['n']}"


def agreement_sentence(agreement: Mapping[str, Any]) -> str:
    """``judge against helpful: Cohen's κ 0.62 [0.41, 0.80] (95%), n 40``."""
    return f"{agreement['score']} against {agreement['label']}: {agreement_figure(agreement)}"


def agreement_html(agreements: Sequence[Mapping[str, Any]]) -> str:
    """The report's judges section: each measured score beside its agreement with people."""
    if not agreements:
        return ""
    rows = []
    for a in agreements:
        head = a.get("headline") or {}
        raters = a.get("raters") or {}
        people = raters.get("mean_person_vs_person")
        rows.append(
            f"<tr data-score='{_e(a['score'])}'><td>{_e(a['score'])}</td><td>{_e(a['label'])}</td>"
            f"<td>{_e(headline_name(a))}</td><td class=num>{_e(estimate_text(head))}</td>"
            f"<td class=num>{head.get('n', 0):,}</td>"
            f"<td class=num>{_e(estimate_text((a.get('passes') or {}).get('raw_agreement')))}</td>"
            f"<td class=num>{_e(figure(people))}</td></tr>")
    return ("<section id=judges><h2>Judges and their agreement with people</h2><div class=table-box>"
            "<table class=summary><thead><tr><th>Score</th><th>Against label</th><th>Statistic</th>"
            "<th>Value [95% CI]</th><th>Runs</th><th>Raw agreement (passes)</th><th>People among themselves</th>"
            "</tr></thead><tbody>" + "".join(rows) + "</tbody></table></div>"
            "<p class=muted>From <code>harness agreement SCORE --against LABEL</code>: intervals are exact for "
            "proportions and a seeded bootstrap over runs for κ and ρ.</p></section>")


def preference_sentence(p: Mapping[str, Any], a: str, b: str) -> str:
    """``cand is preferred in 12, base in 3, 25 ties: win rate 0.80 [0.56, 0.94] (90%)``."""
    rate = MISSING if p.get("win_rate") is None else figure(p["win_rate"])
    low, high = p["win_rate_ci"]
    return (f"{b} preferred in {p['wins']} case(s), {a} in {p['losses']}, {p['ties']} tie(s): win rate of {b} "
            f"{rate} [{figure(low)}, {figure(high)}] ({p['ci_level']:.0%}, exact)")


def flips_sentence(p: Mapping[str, Any]) -> str:
    low, high = p["flip_rate_ci"]
    lean = ""
    if p["position_flips"]:
        lean = (f"; in {p['first_position_flips']} the judge preferred the answer shown first both times, "
                f"in {p['second_position_flips']} the one shown second")
    return (f"position flips: {p['position_flips']} of {p['judgements']} judgement(s) changed with the order "
            f"({figure(p['flip_rate'])} [{figure(low)}, {figure(high)}]), counted as ties{lean}")


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def pairwise_gate(p: Mapping[str, Any]) -> tuple[str, str]:
    """The gate's outcome and its sentence when a pairwise judge's preference gates."""
    verdict = p["verdict"]
    if verdict == "regressed":
        return "regressed", f"regressed: the judge prefers {p['a']} to {p['b']}"
    if verdict == "inconclusive":
        return "inconclusive", "no regression shown, but the judge's preference is inconclusive"
    return "passed", f"no regression (the judge's preference: {verdict})"
