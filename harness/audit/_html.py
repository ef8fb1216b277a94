"""The audit as one self-contained HTML page: verdict, findings, statistics, plots.

No external resource of any kind (no CDN, fonts or images): styles and the small filter
script are inline, plots are inline SVG, so the file opens offline and can be mailed.
"""

from __future__ import annotations

import html
import os
from pathlib import Path
from typing import Any

from ..outputs import write_text
from ..secrets.redact import host_redactor
from ..view.formats import number
from . import _plots
from ._model import AuditResult, Finding, GroupSummary, jsonable

#: Findings listed in the page; the JSON output (``--json``) always has them all.
MAX_FINDINGS = 5_000

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1d2733;background:#f6f7f9}
header{background:#1d2733;color:#fff;padding:18px 28px}
header h1{margin:0 0 4px;font-size:20px;font-weight:600}
header p{margin:0;color:#c9d1db}
main{padding:8px 28px 40px;max-width:1280px}
h2{font-size:16px;margin:26px 0 8px}
.verdict{display:inline-block;margin-top:10px;padding:4px 12px;border-radius:14px;font-weight:600}
.clean{background:#c6efce;color:#006100}.dirty{background:#ffc7ce;color:#9c0006}
table{border-collapse:collapse;background:#fff;width:100%;font-size:13px}
th,td{border:1px solid #dde2e8;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#eef1f5;font-weight:600;position:sticky;top:0}
td.num{text-align:right;font-variant-numeric:tabular-nums}
td.cell{max-width:340px;overflow-wrap:anywhere;font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:12px}
.muted{color:#5f6b7a}
.plots{display:grid;grid-template-columns:repeat(auto-fit,minmax(460px,1fr));gap:16px}
figure{margin:0;background:#fff;border:1px solid #dde2e8;padding:10px}figure.wide{grid-column:1/-1}
figure svg{width:100%;height:auto}
figcaption{font-weight:600;margin-bottom:6px}
input[type=search]{padding:5px 8px;width:320px;border:1px solid #b8c2cc;border-radius:4px;margin-bottom:8px}
.rows{display:flex;flex-wrap:wrap;gap:6px}.rows span{background:#fff;border:1px solid #dde2e8;padding:2px 8px;border-radius:10px}
"""

_SCRIPT = """
(function () {
  var box = document.getElementById("filter");
  var rows = Array.prototype.slice.call(document.querySelectorAll("#findings tbody tr"));
  var shown = document.getElementById("shown");
  if (box) {
    box.addEventListener("input", function () {
      var q = box.value.toLowerCase(), n = 0;
      rows.forEach(function (tr) {
        var hit = tr.textContent.toLowerCase().indexOf(q) !== -1;
        tr.style.display = hit ? "" : "none";
        if (hit) { n += 1; }
      });
      shown.textContent = String(n);
    });
  }
  document.body.setAttribute("data-ready", "yes");
})();
"""


def pass_rate_text(g: GroupSummary) -> str:
    """A group's pass rate and, when some of its runs have no pass, over how many it is taken."""
    if g.pass_rate is None:
        return "— (no run has a pass)"
    return f"{g.pass_rate:.0%}" + ("" if g.judged == g.runs else f" (of {g.judged:,})")


def _e(value: Any) -> str:
    """Text for the page: redacted (a workbook may hold what the store's rules of its day
    let through), then escaped."""
    return html.escape(_redact(str(value)), quote=True)


def _redact(text: str) -> str:
    return host_redactor()(text)


def fmt(value: Any, digits: int = 4) -> str:
    """A number for people (:func:`harness.view.formats.number`: positional, never ``2.3e+02``)."""
    return number(value, digits)


def cell_text(value: Any) -> str:
    """A cell value for people: ``(empty)``, JSON-ish text, redacted, then cut at 300
    characters (cut first, a secret could lose the part its rule recognises)."""
    text = "(empty)" if value is None or value == "" else _redact(str(jsonable(value)))
    return text if len(text) <= 300 else text[:300] + "…"


def _finding_row(f: Finding) -> str:
    return (f"<tr><td>{_e(f.sheet)}</td><td class='num'>{_e(f.row or '')}</td><td>{_e(f.column or '')}</td>"
            f"<td class='cell'>{_e(cell_text(f.found))}</td><td class='cell'>{_e(cell_text(f.expected))}</td>"
            f"<td>{_e(f.rule)}</td><td>{_e(f.kind)}</td></tr>")


def _findings(result: AuditResult) -> str:
    if not result.findings:
        return "<p>No findings: every check passed.</p>"
    shown = result.findings[:MAX_FINDINGS]
    more = (f"<p class='muted'>Showing the first {len(shown):,} of {len(result.findings):,} findings; "
            "<code>harness audit --json</code> lists them all.</p>") if len(shown) < len(result.findings) else ""
    body = "".join(_finding_row(f) for f in shown)
    return (f"<input type='search' id='filter' placeholder='Filter findings (sheet, column, rule…)' "
            f"aria-label='Filter findings'> <span class='muted'><span id='shown'>{len(shown)}</span> shown</span>"
            f"{more}<table id='findings'><thead><tr><th>Sheet</th><th>Row</th><th>Column</th><th>Found</th>"
            f"<th>Expected</th><th>Rule</th><th>Kind</th></tr></thead><tbody>{body}</tbody></table>")


def mean_cost_text(g: GroupSummary) -> str:
    """A group's mean cost (over its priced runs) and how many runs it leaves out unpriced."""
    return fmt(g.mean_cost) + (f" ({g.unpriced:,} unpriced)" if g.unpriced else "")


def runs_cell(g: GroupSummary) -> str:
    """A group's runs, saying how many of them also called other models."""
    return f"{g.runs} ({g.mixed} mixed)" if g.mixed else str(g.runs)


def _percent(value: float | None) -> str:
    return "—" if value is None else f"{value:+.1%}"


def _stat(stats: Any) -> str:
    if stats is None:
        return "<td class='num'>—</td>" * 4
    return "".join(f"<td class='num'>{fmt(getattr(stats, k))}</td>" for k in ("median", "mean", "std_dev", "count"))


def _groups(title: str, groups: tuple[GroupSummary, ...], uplift: bool) -> str:
    if not groups:
        return f"<h2>{_e(title)}</h2><p>No runs.</p>"
    experiments = any(g.experiment for g in groups)
    mixed = ("<p class='muted'>Mixed: runs that called other models too; each is counted for every model it "
             "called, with the cost of that model's calls.</p>") if any(g.mixed for g in groups) else ""
    head = (("<tr><th rowspan=2>Experiment</th>" if experiments else "<tr>")
            + "<th rowspan=2>Group</th><th rowspan=2>Runs</th><th colspan=4>Evaluation score</th>"
            "<th colspan=4>Credit score</th><th colspan=4>Judge overall</th><th rowspan=2>Pass rate</th>"
            "<th rowspan=2>Mean cost (USD)</th><th rowspan=2>Cost of pass</th><th rowspan=2>Composite</th>"
            "<th rowspan=2>Grade</th>" + ("<th rowspan=2>Uplift</th>" if uplift else "") + "</tr><tr>"
            + "<th>median</th><th>mean</th><th>std</th><th>n</th>" * 3 + "</tr>")
    rows = "".join(
        "<tr>" + (f"<td>{_e(g.experiment or '—')}</td>" if experiments else "")
        + f"<td>{_e(g.key)}</td><td class='num'>{_e(runs_cell(g))}</td>"
        f"{_stat(g.evaluation_score)}{_stat(g.credit_score)}"
        f"{_stat(g.judge_overall)}<td class='num'>{pass_rate_text(g)}</td><td class='num'>{_e(mean_cost_text(g))}</td>"
        f"<td class='num'>{fmt(g.cost_of_pass)}</td><td class='num'>{fmt(g.composite)}</td>"
        f"<td>{_e(g.grade or '—')}</td>" + (f"<td class='num'>{_percent(g.uplift)}</td>" if uplift else "") + "</tr>"
        for g in groups
    )
    return f"<h2>{_e(title)}</h2>{mixed}<table><thead>{head}</thead><tbody>{rows}</tbody></table>"


def _pass_k(result: AuditResult) -> str:
    entries = result.aggregates.pass_k
    if not entries:
        return ""
    ks = sorted({k for p in entries for k in p.pass_at})
    experiments = any(p.experiment for p in entries)
    head = "".join(f"<th>pass@{k}</th>" for k in ks) + "".join(f"<th>pass^{k}</th>" for k in ks)
    rows = "".join(
        "<tr>" + (f"<td>{_e(p.experiment or '—')}</td>" if experiments else "")
        + f"<td>{_e(p.company)}</td><td class='num'>{p.n}</td><td class='num'>{p.c}</td>"
        + "".join(f"<td class='num'>{fmt(p.pass_at.get(k))}</td>" for k in ks)
        + "".join(f"<td class='num'>{fmt(p.pass_hat.get(k))}</td>" for k in ks) + "</tr>"
        for p in entries
    )
    first = "<th>Experiment</th><th>Case (or company)</th>" if experiments else "<th>Company</th>"
    title = ("Repeated runs per experiment and dataset case: pass@k and pass^k" if experiments
             else "Repeated runs per company: pass@k and pass^k")
    return (f"<h2>{title}</h2><table><thead><tr>{first}"
            f"<th>Runs (n)</th><th>Passed (c)</th>{head}</tr></thead><tbody>{rows}</tbody></table>")


def _agreement(result: AuditResult) -> str:
    from harness.view.judges import estimate_text, headline_name

    if not result.agreement:
        return ""
    rows = "".join(
        f"<tr><td>{_e(a['score'])}</td><td>{_e(a['label'])}</td><td class='num'>{a['n']:,}</td>"
        f"<td>{_e(headline_name(a))}</td><td class='num'>{_e(estimate_text(a.get('headline')))}</td>"
        f"<td class='num'>{_e(estimate_text((a.get('passes') or {}).get('raw_agreement')))}</td></tr>"
        for a in result.agreement)
    return ("<h2>Scores against people's labels (recomputed from the scores sheet)</h2><table><thead><tr>"
            "<th>Score</th><th>Label</th><th>Runs</th><th>Statistic</th><th>Value [95% CI]</th>"
            f"<th>Raw agreement (passes)</th></tr></thead><tbody>{rows}</tbody></table>")


def render_html(result: AuditResult) -> str:
    """The report page for ``result``."""
    plots = result.plots
    agg = result.aggregates
    n = len(result.findings)
    verdict = ("<span class='verdict clean'>Clean: no findings</span>" if not n
               else f"<span class='verdict dirty'>{n:,} finding{'s' if n != 1 else ''}</span>")
    counts = "".join(f"<span>{_e(name)} <b>{rows:,}</b></span>" for name, rows in result.rows.items())
    figures = "".join(
        f"<figure{' class=wide' if wide else ''}><figcaption>{_e(caption)}</figcaption>{svg}</figure>"
        for caption, svg, wide in (
            ("Score distributions per model", _plots.scores_by_model(plots), True),
            ("Run cost versus evaluation score", _plots.cost_vs_score(plots), False),
            ("Latency per node", _plots.latency_by_node(plots), False),
            (f"Tool-selection F1 per {plots.type_label}", _plots.f1_by_type(plots), False),
        )
    )
    notes = "".join(f"<li>{_e(note)}</li>" for note in result.notes)
    baseline = (f" (uplift against {_e(agg.baseline_model)}, {_e(agg.baseline_reason)})"
                if agg.baseline_model else "")
    type_title = "Per company type" if agg.type_label == "company_type" else "Per company (no company type is logged)"
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>Audit of {_e(result.source)}</title><style>{_CSS}</style></head><body>"
        f"<header><h1>Audit of {_e(result.source)}</h1>"
        f"<p>{sum(result.rows.values()):,} rows in {len(result.rows)} sheets</p>{verdict}</header><main>"
        f"<h2>Rows per sheet</h2><div class='rows'>{counts}</div>"
        f"<h2>Findings</h2>{_findings(result)}"
        + (f"<h2>Not checked</h2><ul>{notes}</ul>" if notes else "")
        + _groups(f"Per model{baseline}", agg.by_model, uplift=True)
        + _groups(type_title, agg.by_type, uplift=False)
        + _pass_k(result)
        + _agreement(result)
        + f"<h2>Plots</h2><div class='plots'>{figures}</div>"
        f"</main><script>{_SCRIPT}</script></body></html>"
    )


def write_report(result: AuditResult, path: str | os.PathLike[str]) -> Path:
    """Write :func:`render_html` to ``path`` (UTF-8, whole or not at all: :mod:`harness.outputs`)
    and return the path."""
    return write_text(path, render_html(result))
