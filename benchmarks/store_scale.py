"""How `harness list`, `show`, `report`, `h.sheets()` of one run and `harness export` answer on a
big store, against the same on a small one.

    python benchmarks/store_scale.py [--runs 50000] [--store PATH] [--repeat 5] [--report-runs 10000] [--report-only]

The big store is made once and reused while it holds ``--runs`` runs (default
``$TMPDIR/harness_store_scale_<runs>.db``): three runs are recorded from real LangGraph
graphs (an agent with model, tool and nested tool calls and a subgraph; a run whose tool
fails; the credit workflow with all its scores), then copied under new ids through
``Store.write`` until the store holds ``--runs``, a third of them in experiment ``base``, a
third in ``cand``. The baseline is a store of 100 such runs, made fresh each time.

Each command runs in a fresh process, as a user runs it (interpreter start and imports
included), ``--repeat`` times; the median is printed for both stores with their ratio (1.0:
the answer does not grow with the store). Targets: `list` < 1 s, `show` < 0.5 s on 50,000 runs.

Then the library's reads, each in a fresh process, its seconds and peak RSS: the sheets of
one run as DataFrames (``h.sheets(run_ids=[...])``, timed after the imports; target < 0.2 s)
and the export of the whole store to .xlsx (target: peak RSS < 300 MB on 50,000 runs).

Then the report of the newest ``--report-runs`` runs: the time to write it and its size, and
in Debian's headless Chromium (through Playwright) the time from navigation to the list drawn
and on screen (the page's own clock: when the report marks itself ready, and the first frame
painted after; target < 1 s for 10,000 runs), until the whole file is read, until the compare
view is drawn (experiments ``base`` and ``cand``: their statistics and cases), to sort the list,
to filter it, to open a run (its waterfall drawn), to open a call in the panel and to open a
case of the compare view (two waterfalls), against a report of 100 (medians of ``--repeat``
page loads, at most 5). ``--report-only`` measures only the report.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness import Store  # noqa: E402
from tests.support.copies import copy_runs  # noqa: E402
from tests.view.conftest import record  # noqa: E402

_EXPERIMENTS = ("base", "cand", None)


def build(path: Path, runs: int) -> Path:
    """A store of ``runs`` runs at ``path``, made unless it is already there."""
    if path.exists():
        store = Store(path)
        have = store.count("runs")
        store.close()
        if have == runs:
            return path
        path.unlink()
        for suffix in ("-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
    started = time.perf_counter()
    recorded = record(path)
    store = Store(path)
    copy_runs(store, [recorded.agent, recorded.failed, recorded.credit], runs - 3, experiments=_EXPERIMENTS,
              batch=500)
    store.close()
    print(f"made {path} ({runs:,} runs, {path.stat().st_size / 1e6:,.0f} MB) in {time.perf_counter() - started:.0f}s")
    return path


def _newest(store_path: Path, workflow: str) -> str:
    store = Store(store_path)
    try:
        return next(store.rows("runs", columns=["run_id"], where={"workflow": workflow}, newest_first=True,
                               limit=1))["run_id"]
    finally:
        store.close()


def timed(args: list[str], repeat: int) -> float:
    """Median wall seconds of ``python -m harness ARGS`` in a fresh process."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "harness", *args], capture_output=True, text=True)
        times.append(time.perf_counter() - started)
        if done.returncode != 0:
            raise SystemExit(f"harness {' '.join(args)} failed: {done.stderr.strip()}")
    return statistics.median(times)


def commands(store: Path) -> list[tuple[str, list[str]]]:
    credit = _newest(store, "credit_analysis")[:8]
    where = ["--store", str(store)]
    return [
        ("harness --version (interpreter and imports)", ["--version"]),
        ("harness list", ["list", *where]),
        ("harness list --json", ["list", "--json", *where]),
        ("harness list --status failed", ["list", "--status", "failed", *where]),
        ("harness list --experiment cand", ["list", "--experiment", "cand", *where]),
        ("harness list --experiment absent (reads every run)", ["list", "--experiment", "absent", *where]),
        ("harness show PREFIX (credit run)", ["show", credit, *where]),
        ("harness show PREFIX --json", ["show", credit, "--json", *where]),
    ]


_MEASURED = """
import json, sys, time
sys.path.insert(0, {root!r})
from benchmarks.memory import own_peak_mb
started = time.perf_counter()
{code}
print(json.dumps({{"seconds": time.perf_counter() - started,
                  "peak_mb": own_peak_mb()}}))
"""


def measured(code: str) -> tuple[float, float]:
    """Seconds and peak RSS (MB) of ``code`` in a fresh process (imports before the clock)."""
    script = _MEASURED.format(root=str(Path(__file__).resolve().parents[1]), code=code)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    found = json.loads(done.stdout.strip().splitlines()[-1])
    return found["seconds"], found["peak_mb"]


def reads(store: Path, out: Path) -> list[tuple[str, str]]:
    """The library's reads: a DataFrame of one run, and the export of the whole store."""
    run = _newest(store, "credit_analysis")
    return [
        ("h.sheets(run_ids=[one run])", f"from harness import Harness; import pandas\n"
                                         f"started = time.perf_counter()\n"
                                         f"Harness(store={str(store)!r}, writer='inline').sheets([{run!r}])"),
        ("harness export --out (the whole store)", f"from harness.cli import main\n"
                                                    f"try:\n    main(['export', '--store', {str(store)!r}, "
                                                    f"'--out', {str(out)!r}])\nexcept SystemExit:\n    pass"),
    ]


#: Run in the page before its own script: notes the page's clock (ms since navigation
#: started) when the report marks itself ready (its list drawn), then at the next frame
#: painted, and when the compare view is first drawn, in the page, so that no round trip to
#: the browser is counted.
_CLOCK = """
new MutationObserver((changes, observer) => {
  if (document.body && document.body.dataset.ready === "yes" && window.__listDrawn === undefined) {
    window.__listDrawn = performance.now();
    requestAnimationFrame(() => setTimeout(() => { window.__listPainted = performance.now(); }));
  }
  const compare = document.getElementById("compare");
  if (compare && compare.dataset.ready === "yes" && window.__compareDrawn === undefined) {
    window.__compareDrawn = performance.now();
  }
  if (window.__listDrawn !== undefined && (window.__compareDrawn !== undefined || document.readyState === "complete")) {
    observer.disconnect();
  }
}).observe(document, {attributes: true, subtree: true, attributeFilter: ["data-ready"]});
"""


def browse(report: Path, repeat: int = 3) -> dict[str, float]:
    """Medians over ``repeat`` fresh tabs: seconds from navigation to the list on screen, until
    the whole file is read and until the compare view is drawn (its first pair's statistics
    and cases), to sort the list, to filter it, to open a run, to open a call, and to open a
    case of the compare view (its two runs' waterfalls)."""
    from playwright.sync_api import sync_playwright

    from tests.support.browser import chromium

    seen: dict[str, list[float]] = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium(), args=["--no-sandbox"])
        for _ in range(repeat):
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            context.add_init_script(_CLOCK)
            page = context.new_page()
            out: dict[str, float] = {}
            page.goto(report.as_uri(), wait_until="commit")
            page.wait_for_function("window.__listPainted !== undefined")
            out["navigation to list drawn"] = page.evaluate("window.__listDrawn") / 1000
            out["navigation to list on screen"] = page.evaluate("window.__listPainted") / 1000
            page.wait_for_load_state("load")
            out["navigation to the whole file read"] = page.evaluate(
                "performance.getEntriesByType('navigation')[0].loadEventStart") / 1000
            compared = page.locator("#compare").count() > 0
            if compared:
                page.wait_for_function("window.__compareDrawn !== undefined")
                out["navigation to the compare view drawn"] = page.evaluate("window.__compareDrawn") / 1000
            rows = page.locator("#spacer .row").count()
            started = time.perf_counter()
            page.click("#head button[data-key=ms]")
            page.evaluate("new Promise(r => requestAnimationFrame(() => r()))")
            out["sort by time"] = time.perf_counter() - started
            started = time.perf_counter()
            page.fill("#filter", "acme")
            page.evaluate("new Promise(r => requestAnimationFrame(() => r()))")
            out["filter"] = time.perf_counter() - started
            started = time.perf_counter()
            page.locator("#spacer .row").first.click()
            page.wait_for_selector("#waterfall svg")
            out["open a run (waterfall)"] = time.perf_counter() - started
            started = time.perf_counter()
            page.locator("#waterfall g.entry").last.click()
            page.wait_for_selector("#entry .entry-head")
            out["open a call (panel)"] = time.perf_counter() - started
            if compared:
                started = time.perf_counter()
                page.locator("#cmp-cases tr.case").first.click()
                page.wait_for_selector("#cmp-runs[data-ready=yes]")
                out["compare view: open a case (two waterfalls)"] = time.perf_counter() - started
            out["rows in the page"] = rows
            for key, value in out.items():
                seen.setdefault(key, []).append(value)
            context.close()
        browser.close()
    return {key: statistics.median(values) for key, values in seen.items()}


def report(big: Path, small: Path, folder: Path, runs: int, repeat: int) -> None:
    """The report of the newest ``runs`` of ``big`` against one of 100 of ``small``."""
    print(f"\nreport of the newest {runs:,} runs against one of 100")
    reports = {}
    for label, store, limit in (("big", big, runs), ("small", small, 100)):
        out = folder / f"{label}.html"
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "harness", "report", "--store", str(store), "--limit", str(limit),
                        "--out", str(out)], check=True, capture_output=True)
        reports[label] = (out, time.perf_counter() - started)
    (big_html, big_s), (small_html, small_s) = reports["big"], reports["small"]
    print(f"{'write the file':52} {big_s:11.3f}s {small_s:9.3f}s {big_s / small_s:7.2f}")
    print(f"{'file size (MB)':52} {big_html.stat().st_size / 1e6:12.1f} {small_html.stat().st_size / 1e6:10.2f}")
    in_big, in_small = browse(big_html, min(repeat, 5)), browse(small_html, min(repeat, 5))
    for key in in_big:
        if key not in in_small:
            print(f"{'Chromium: ' + key:52} {in_big[key]:11.3f}s {'(none)':>10}")
        elif key == "rows in the page":
            print(f"{'rows in the page (lazy list)':52} {in_big[key]:12.0f} {in_small[key]:10.0f}")
        else:
            print(f"{'Chromium: ' + key:52} {in_big[key]:11.3f}s {in_small[key]:9.3f}s "
                  f"{in_big[key] / in_small[key]:7.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=50_000)
    parser.add_argument("--store", type=Path, default=None)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--report-runs", type=int, default=10_000)
    parser.add_argument("--report-only", action="store_true", help="measure only the report")
    args = parser.parse_args()
    big = build(args.store or Path(tempfile.gettempdir()) / f"harness_store_scale_{args.runs}.db", args.runs)
    with tempfile.TemporaryDirectory() as folder:
        small = build(Path(folder) / "small.db", 100)
        if args.report_only:
            report(big, small, Path(folder), args.report_runs, args.repeat)
            return
        print(f"\n{'command':52} {f'{args.runs:,} runs':>12} {'100 runs':>10} {'ratio':>7}")
        for (label, big_args), (_, small_args) in zip(commands(big), commands(small)):
            a, b = timed(big_args, args.repeat), timed(small_args, args.repeat)
            print(f"{label:52} {a:11.3f}s {b:9.3f}s {a / b:7.2f}")

        print(f"\n{'read (fresh process; seconds, peak RSS)':52} {f'{args.runs:,} runs':>20} {'100 runs':>18}")
        for (label, big_code), (_, small_code) in zip(reads(big, Path(folder) / "big.xlsx"),
                                                      reads(small, Path(folder) / "small.xlsx")):
            (a, a_mb), (b, b_mb) = measured(big_code), measured(small_code)
            print(f"{label:52} {a:9.3f}s {a_mb:7.0f} MB {b:8.3f}s {b_mb:6.0f} MB")

        report(big, small, Path(folder), args.report_runs, args.repeat)


if __name__ == "__main__":
    main()
