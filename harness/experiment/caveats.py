"""What could make a comparison mislead, in words: the warnings of :mod:`.compare`.

Every count is per side, named by its experiment, so a reader knows which version lost
data: "16 run(s) whose flaky score errored are left out of flaky (base 16, cand 0)".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

_CHUNK = 500  # run ids per query

#: Why a run's reading was left out -> how the warning says it (NAME is the metric).
_WHY = {
    "unknown": "whose pass is unknown (passed is empty: a gating score errored or has not run)",
    "errored": "whose NAME score errored",
    "no_record": "without a NAME score",
    "empty": "without a value of NAME",
    "non_finite": "with a non-finite NAME (NaN or infinity)",
}


def pairing_warnings(store: Any, ra: Any, rb: Any, cases_a: Mapping[str, int], cases_b: Mapping[str, int],
                     paired: Sequence[str]) -> list[str]:
    """Different dataset contents, unpaired cases, unequal repeats (and the runs the
    equal-repeat design leaves out, per side)."""
    warnings = []
    hashes = [(store.experiment_record(r.name) or {}).get("dataset_sha256") for r in (ra, rb)]
    if all(hashes) and hashes[0] != hashes[1]:
        warnings.append(f"the datasets differ: {ra.name} used sha256 {hashes[0][:12]}…, {rb.name} used "
                        f"{hashes[1][:12]}…; cases are paired by id only")
    for side, ids in ((ra.name, [c for c in cases_a if c not in cases_b]),
                      (rb.name, [c for c in cases_b if c not in cases_a])):
        if ids:
            warnings.append(f"{len(ids)} case(s) only in {side}, left out: {_ids(ids)}")
    counts_a, counts_b = {cases_a[c] for c in paired}, {cases_b[c] for c in paired}
    extra_a = sum(max(0, cases_a[c] - cases_b[c]) for c in paired)
    extra_b = sum(max(0, cases_b[c] - cases_a[c]) for c in paired)
    if extra_a + extra_b:
        warnings.append(f"unequal repeats: {ra.name} has {_span(counts_a)} run(s) per case, {rb.name} "
                        f"{_span(counts_b)}; each case is tested on as many repeats on both sides (its first), so "
                        f"{extra_a + extra_b} run(s) are left out of the tests ({ra.name} {extra_a}, "
                        f"{rb.name} {extra_b})")
    return warnings


def price_table_warning(ra: Any, rb: Any, paired: set[str]) -> str | None:
    """A warning when the paired runs' costs come from different price tables
    (``llm_calls.price_table``): their difference is then partly one of prices."""
    tables = []
    for runs in (ra, rb):
        ids = [r["run_id"] for r in runs.runs if r["case_id"] in paired]
        found: set[str] = set()
        for start in range(0, len(ids), _CHUNK):
            found.update(row["price_table"] for row in runs._store.rows(
                "llm_calls", ids[start:start + _CHUNK], columns=["price_table"]) if row["price_table"])
        tables.append(found)
    if not all(tables) or tables[0] == tables[1]:
        return None
    return (f"the costs were priced with different price tables ({ra.name}: {', '.join(sorted(tables[0]))}; "
            f"{rb.name}: {', '.join(sorted(tables[1]))}): total_cost compares prices as well as runs (give both the "
            f"same prices: harness reprice {ra.name} {rb.name} --prices FILE)")


def value_warnings(left_out: Mapping[str, tuple[Mapping[str, int], Mapping[str, int]]], a: str, b: str) -> list[str]:
    """Per metric and reason, the runs left out on each side (``left_out``: metric -> the
    two sides' counts by reason); runs that did not complete once for every metric."""
    warnings = []
    stopped = [name for name, (sa, sb) in left_out.items() if sa.get("not_completed") or sb.get("not_completed")]
    if stopped:
        sa, sb = left_out[stopped[0]]
        na, nb = sa.get("not_completed", 0), sb.get("not_completed", 0)
        warnings.append(f"{na + nb} run(s) that did not complete ({a} {na}, {b} {nb}) are left out of "
                        f"{', '.join(stopped)}")
    for name, (sa, sb) in left_out.items():
        for why, words in _WHY.items():
            na, nb = sa.get(why, 0), sb.get(why, 0)
            if na + nb:
                where = "of it" if why == "non_finite" else f"of {name}"
                warnings.append(f"{na + nb} run(s) {words.replace('NAME', name)} are left out {where} "
                                f"({a} {na}, {b} {nb})")
    return warnings


def _ids(ids: Sequence[str], shown: int = 20) -> str:
    return ", ".join(ids[:shown]) + (" …" if len(ids) > shown else "")


def _span(counts: Iterable[int]) -> str:
    low, high = min(counts), max(counts)
    return str(low) if low == high else f"{low}–{high}"
