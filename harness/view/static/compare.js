  /* ---- the compare view: two experiments case by case ------------------------------ */
  /* DATA.compare names the experiments it pairs and the pair shown first; each experiment's
     cases (report-cases) and each ordered pair's statistics (template cmp-A-B, by the places
     of A and B) come after this script. Which case regressed is decided here from the two
     pass means; the statistics are harness compare's, as the report was written with them. */
  var COMPARE = DATA.compare;
  var OUTCOME_RANK = {regressed: 0, improved: 1, "unchanged-fail": 2, "unchanged-pass": 3, other: 4};
  var OUTCOME_WORDS = {regressed: "regressed", improved: "improved", "unchanged-fail": "unchanged, failing",
    "unchanged-pass": "unchanged, passing", other: "no pass to compare"};
  var cmp = {a: -1, b: -1, drawn: 0, rows: [], cases: null, shown: null};
  var cmpSection = document.getElementById("compare");
  function casesRead() {
    return documentRead().then(function () {
      if (!cmp.cases) { cmp.cases = JSON.parse(document.getElementById("report-cases").textContent); }
      return cmp.cases;
    });
  }
  /* A case's pass in one experiment: pass, fail, "2 of 3 pass" (the mean over its runs), or —. */
  function passOf(c) {
    if (!c) { return "no run"; }
    if (c.p === null || c.p === undefined) { return "—"; }
    if (c.p === 1) { return "pass"; }
    if (c.p === 0) { return "fail"; }
    return Math.round(c.p * c.pn) + " of " + c.pn + " pass";
  }
  /* regressed: B's pass mean below A's; improved: above; unchanged-pass: equal and every run
     passed; unchanged-fail: equal and not all passed; other: a side without a pass, or a case
     only one experiment ran. */
  function outcomeOf(ca, cb) {
    if (!ca || !cb || ca.p === null || cb.p === null || ca.p === undefined || cb.p === undefined) { return "other"; }
    if (cb.p < ca.p) { return "regressed"; }
    if (cb.p > ca.p) { return "improved"; }
    return ca.p === 1 ? "unchanged-pass" : "unchanged-fail";
  }
  /* The cases of A and B paired by id: regressions first (the largest fall first), then
     improvements (the largest rise first), then the rest; within each, in the order A ran them. */
  function pairCases(A, B) {
    var inB = {}, seen = {}, rows = [];
    B.cases.forEach(function (c) { inB[c.id] = c; });
    A.cases.forEach(function (c, i) { seen[c.id] = true; rows.push({id: c.id, a: c, b: inB[c.id] || null, at: i}); });
    B.cases.forEach(function (c, i) { if (!seen[c.id]) { rows.push({id: c.id, a: null, b: c, at: A.cases.length + i}); } });
    rows.forEach(function (r) {
      r.outcome = outcomeOf(r.a, r.b);
      r.change = r.outcome === "regressed" || r.outcome === "improved" ? r.b.p - r.a.p : 0;
    });
    rows.sort(function (x, y) {
      return OUTCOME_RANK[x.outcome] - OUTCOME_RANK[y.outcome] ||
        (x.outcome === "regressed" ? x.change - y.change : y.change - x.change) || x.at - y.at;
    });
    return rows;
  }
  /* A score of a case: its value (the mean over the case's runs) and its pass (✓, ✗, or the share passed). */
  function scoreText(cell, error) {
    if (!cell) { return "—"; }
    var parts = [];
    if (cell[0] !== null) { parts.push(num(cell[0], 3)); }
    if (cell[1] !== null) { parts.push(cell[1] === 1 ? "✓" : cell[1] === 0 ? "✗" : Math.round(cell[1] * 100) + "% ✓"); }
    if (error) { parts.push("error"); }
    return parts.length ? parts.join(" ") : "—";
  }
  function twoSides(td, left, right, title) {
    td.appendChild(el("span", "side-a", left));
    td.appendChild(el("span", "arrow", " → "));
    td.appendChild(el("span", "side-b", right));
    if (left !== right) { td.classList.add("changed"); }
    if (title) { td.title = title; }
    return td;
  }
  function caseTable(rows, A, B, nameA, nameB) {
    var names = A.names.slice();
    B.names.forEach(function (n) { if (names.indexOf(n) === -1) { names.push(n); } });
    var table = el("table", "summary cases"), head = el("tr"), body = el("tbody");
    ["case", "outcome", "pass in " + nameA, "pass in " + nameB, "answer in " + nameA, "answer in " + nameB]
      .concat(names, ["latency", "tokens"]).forEach(function (h, i) {
        var th = el("th", i >= 6 ? "num" : "");
        breakable(th, h);
        if (i >= 6 && i < 6 + names.length) { th.classList.add("score-name"); }
        head.appendChild(th);
      });
    table.appendChild(el("thead")).appendChild(head);
    rows.forEach(function (r) {
      var tr = el("tr", "case outcome-" + r.outcome);
      tr.tabIndex = 0;
      tr.dataset.case = r.id;
      tr.dataset.outcome = r.outcome;
      tr.appendChild(el("td", "case-id", r.id));
      var badge = el("td");
      badge.appendChild(el("span", "badge " + ({regressed: "regressed", improved: "improved", "unchanged-pass": "pass",
        "unchanged-fail": "fail"}[r.outcome] || "ungated"), OUTCOME_WORDS[r.outcome]));
      tr.appendChild(badge);
      tr.appendChild(el("td", "pass-a", passOf(r.a)));
      tr.appendChild(el("td", "pass-b", passOf(r.b)));
      [r.a, r.b].forEach(function (c) {
        var text = c ? (c.ans === null || c.ans === undefined ? "—" : c.ans) : "";
        var td = el("td", "answer", text);
        td.title = text;
        tr.appendChild(td);
      });
      names.forEach(function (n) {
        var ia = A.names.indexOf(n), ib = B.names.indexOf(n);
        var ca = r.a && ia >= 0 ? r.a.s[ia] : null, cb = r.b && ib >= 0 ? r.b.s[ib] : null;
        var ea = r.a && r.a.e ? r.a.e[n] : null, eb = r.b && r.b.e ? r.b.e[n] : null;
        tr.appendChild(twoSides(el("td", "num score"), scoreText(ca, ea), scoreText(cb, eb), [ea, eb].filter(Boolean).join("\n")));
      });
      tr.appendChild(twoSides(el("td", "num"), r.a ? ms(r.a.ms) : "—", r.b ? ms(r.b.ms) : "—"));
      tr.appendChild(twoSides(el("td", "num"), r.a ? num(r.a.tok, 6) : "—", r.b ? num(r.b.tok, 6) : "—"));
      body.appendChild(tr);
    });
    table.appendChild(body);
    return table;
  }
  function refilterCases() {
    var wanted = document.getElementById("cmp-filter").value, shown = 0;
    Array.prototype.forEach.call(document.querySelectorAll("#cmp-cases tr.case"), function (tr) {
      var keep = wanted === "all" || tr.dataset.outcome === wanted;
      tr.hidden = !keep;
      shown += keep ? 1 : 0;
    });
    document.getElementById("cmp-count").textContent = shown.toLocaleString("en-US") + " of " +
      cmp.rows.length.toLocaleString("en-US") + " cases";
  }
  function compareHash(caseId) {
    var names = COMPARE.experiments;
    return "#compare=" + encodeURIComponent(names[cmp.a]) + "," + encodeURIComponent(names[cmp.b]) +
      (caseId === undefined || caseId === null ? "" : "&case=" + encodeURIComponent(caseId));
  }
  /* Show experiments a and b (places in COMPARE.experiments); caseId: the case whose runs to
     open; reveal: scroll the view into sight (it was asked for by the hash). */
  function showPair(a, b, caseId, reveal) {
    var names = COMPARE.experiments, token = cmp.drawn += 1;
    cmp.a = a;
    cmp.b = b;
    document.getElementById("cmp-a").value = String(a);
    document.getElementById("cmp-b").value = String(b);
    delete cmpSection.dataset.ready;
    return cmp.shown = casesRead().then(function (cases) {
      if (token !== cmp.drawn) { return; }
      var stats = document.getElementById("cmp-stats"), template = document.getElementById("cmp-" + a + "-" + b);
      stats.textContent = "";
      if (template) { stats.appendChild(template.content.cloneNode(true)); }
      else {
        stats.appendChild(el("p", "muted", "The statistics of this pair are not in this report: harness compare " +
          names[a] + " " + names[b] + " prints them."));
      }
      var A = cases[names[a]], B = cases[names[b]];
      cmp.rows = pairCases(A, B);
      var filter = document.getElementById("cmp-filter"), counts = {all: cmp.rows.length};
      cmp.rows.forEach(function (r) { counts[r.outcome] = (counts[r.outcome] || 0) + 1; });
      Array.prototype.forEach.call(filter.options, function (o) {
        o.textContent = o.textContent.replace(/ \(\d[\d,]*\)$/, "") + " (" + (counts[o.value] || 0).toLocaleString("en-US") + ")";
      });
      var box = document.getElementById("cmp-cases");
      box.textContent = "";
      box.appendChild(caseTable(cmp.rows, A, B, names[a], names[b]));
      refilterCases();
      var runs = document.getElementById("cmp-runs");
      runs.hidden = true;
      runs.textContent = "";
      var opened = caseId === undefined || caseId === null ? null :
        cmp.rows.filter(function (r) { return r.id === caseId; })[0];
      if (opened) { openCase(opened); } else if (reveal) { setHash(compareHash()); }
      if (reveal) { (opened ? runs : cmpSection).scrollIntoView(); }
      cmpSection.dataset.ready = "yes";
    }).catch(function (problem) { console.error("the compare view could not be drawn: " + problem); });
  }
  /* One side of a case: its runs (a picker when it ran several times), the run's facts, its
     waterfall and, under it, the call picked in it. ``pair`` draws both sides' waterfalls on
     one time axis once both runs are unpacked. */
  function caseSide(label, name, c, pair) {
    var side = el("div", "side"), part = {node: side, detail: null, draw: function () {}};
    side.appendChild(el("h4", "", label + " · " + name));
    if (!c) { side.appendChild(el("p", "muted", "This case has no run in " + name + ".")); return part; }
    var facts = el("p", "facts-line"), waterfall = el("div", "waterfall"), panel = el("aside", "panel side-panel");
    var drawn = 0;
    part.draw = function (axis) {
      var detail = part.detail;
      if (!detail) { return; }
      var chart = drawWaterfall(waterfall, detail, function (i) {
        chart.select(i);
        drawEntry(panel, detail.rows[i], detail);
      }, axis);
      entryHint(panel);
    };
    function show(k) {
      var index = c.runs[k], run = RUNS[index], token = drawn += 1;
      facts.textContent = "";
      facts.appendChild(el("span", "badge " + run.st, run.st));
      facts.appendChild(document.createTextNode(" pass " + passWord(run.pass) + " · took " + ms(run.ms) + " · " +
        num(run.tok, 6) + " tokens · "));
      var link = el("a", "run-link", run.id);
      link.href = "#run=" + encodeURIComponent(run.id);
      link.title = "Open this run in the run view";
      link.addEventListener("click", function (event) {
        event.preventDefault();
        openRun(index);
        document.getElementById("run").scrollIntoView();
      });
      facts.appendChild(link);
      waterfall.textContent = "";
      entryHint(panel);
      part.detail = null;
      part.loaded = detailOf(index).then(function (detail) {
        if (token !== drawn) { return; }
        part.detail = detail;
      });
    }
    if (c.runs.length > 1) {
      var picker = el("select", "repeat");
      picker.setAttribute("aria-label", "Which run of the case in " + name);
      c.runs.forEach(function (index, k) { picker.appendChild(el("option", "", "run " + (k + 1) + " of " + c.runs.length)).value = String(k); });
      picker.addEventListener("change", function () { show(Number(picker.value)); pair(); });
      side.appendChild(picker);
    }
    side.appendChild(facts);
    side.appendChild(waterfall);
    side.appendChild(panel);
    part.show = show;
    return part;
  }
  /* The two runs of case row r side by side: A's and B's waterfalls, each with its panel. */
  function openCase(r) {
    var names = COMPARE.experiments, box = document.getElementById("cmp-runs");
    Array.prototype.forEach.call(document.querySelectorAll("#cmp-cases tr.case"), function (tr) {
      tr.classList.toggle("selected", tr.dataset.case === r.id);
    });
    box.textContent = "";
    box.hidden = false;
    box.appendChild(el("h3", "", "Case " + r.id + ": " + OUTCOME_WORDS[r.outcome]));
    var sides = box.appendChild(el("div", "sides")), parts = [], token = cmp.drawn;
    function both() {  /* once both runs are unpacked: their waterfalls on one time axis */
      Promise.all(parts.map(function (p) { return p.loaded; })).then(function () {
        if (token !== cmp.drawn) { return; }
        var axis = Math.max.apply(null, parts.map(function (p) { return p.detail ? spanOf(p.detail) : 0; }));
        parts.forEach(function (p) { p.draw(axis); });
        box.dataset.ready = "yes";
      }).catch(function (problem) { console.error("the runs' details could not be unpacked: " + problem); });
    }
    delete box.dataset.ready;
    parts = [caseSide("A", names[cmp.a], r.a, both), caseSide("B", names[cmp.b], r.b, both)];
    parts.forEach(function (p) { sides.appendChild(p.node); });
    parts.forEach(function (p) { if (p.show) { p.show(0); } });
    both();
    setHash(compareHash(r.id));
  }
  if (COMPARE) {
    ["cmp-a", "cmp-b"].forEach(function (id) {
      var picker = document.getElementById(id);
      COMPARE.experiments.forEach(function (name, i) { picker.appendChild(el("option", "", name)).value = String(i); });
    });
    document.getElementById("cmp-a").addEventListener("change", function (event) {
      var a = Number(event.target.value);
      showPair(a, a === cmp.b ? cmp.a : cmp.b, null, false).then(function () { setHash(compareHash()); });
    });
    document.getElementById("cmp-b").addEventListener("change", function (event) {
      var b = Number(event.target.value);
      showPair(b === cmp.a ? cmp.b : cmp.a, b, null, false).then(function () { setHash(compareHash()); });
    });
    document.getElementById("cmp-swap").addEventListener("click", function () {
      showPair(cmp.b, cmp.a, null, false).then(function () { setHash(compareHash()); });
    });
    document.getElementById("cmp-filter").addEventListener("change", refilterCases);
    var casesBox = document.getElementById("cmp-cases");
    function caseRow(event) {
      var tr = event.target.closest && event.target.closest("tr.case");
      return tr ? cmp.rows.filter(function (r) { return r.id === tr.dataset.case; })[0] : null;
    }
    casesBox.addEventListener("click", function (event) { var r = caseRow(event); if (r) { openCase(r); } });
    casesBox.addEventListener("keydown", function (event) {
      if (event.key !== "Enter" && event.key !== " ") { return; }
      var r = caseRow(event);
      if (r) { event.preventDefault(); openCase(r); }
    });
  }
  /* The experiments a #compare= value names: "A,B", each encoded (a name's own comma as %2C),
     or, unencoded, the one split at a comma that names two experiments of the view. */
  function pairNamed(text) {
    var names = COMPARE ? COMPARE.experiments : [], parts = text.split(",");
    for (var k = 1; k < parts.length; k += 1) {
      var a, b;
      try { a = decodeURIComponent(parts.slice(0, k).join(",")); b = decodeURIComponent(parts.slice(k).join(",")); }
      catch (malformed) { continue; }
      if (a !== b && names.indexOf(a) >= 0 && names.indexOf(b) >= 0) { return [names.indexOf(a), names.indexOf(b)]; }
    }
    return null;
  }
