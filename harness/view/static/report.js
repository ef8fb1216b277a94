/* The run report: a lazily rendered, sortable, filterable run list and, for the run opened,
   its waterfall and scores. Data comes from the inline #report-data element; every text
   from it is set with textContent, never parsed as HTML. */
(function () {
  "use strict";
  var DATA = JSON.parse(document.getElementById("report-data").textContent);
  var RUNS = DATA.runs;
  /* What an opened run shows (waterfall, scores: most of the file) comes gzip-compressed in
     base64; it is unpacked once the list is on screen, with the browser's DecompressionStream. */
  var details = null;
  function unpackDetails() {
    if (!details) {
      var packed = atob(document.getElementById("report-details").textContent.trim());
      var bytes = new Uint8Array(packed.length);
      for (var i = 0; i < packed.length; i += 1) { bytes[i] = packed.charCodeAt(i); }
      var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
      details = new Response(stream).text().then(JSON.parse);
    }
    return details;
  }
  var ROW = 28, OVERSCAN = 8;
  var KINDS = ["node", "llm", "tool"];
  var SVG = "http://www.w3.org/2000/svg";

  function num(v, digits) {
    if (v === null || v === undefined || (typeof v === "number" && isNaN(v))) { return "—"; }
    digits = digits || 3;
    if (Math.abs(v) < 1e-9) { return "0"; }
    var opts = Math.abs(v) >= Math.pow(10, digits) ? {maximumFractionDigits: 0}
      : {maximumSignificantDigits: digits};
    return new Intl.NumberFormat("en-US", opts).format(v);
  }
  function ms(v) {
    if (v === null || v === undefined) { return "—"; }
    if (v < 1000) { return num(v) + " ms"; }
    if (v < 60000) { return num(v / 1000) + " s"; }
    var s = Math.round(v / 1000);
    return Math.floor(s / 60) + " m " + String(s % 60).padStart(2, "0") + " s";
  }
  function money(v) { return v === null || v === undefined ? "—" : "$" + num(v); }
  function score(v) { return v === null || v === undefined ? "—" : v.toFixed(2); }
  function when(iso) {
    if (!iso) { return "—"; }
    var d = new Date(iso);
    if (isNaN(d)) { return iso; }
    function two(n) { return String(n).padStart(2, "0"); }
    return d.getFullYear() + "-" + two(d.getMonth() + 1) + "-" + two(d.getDate()) + " " +
      two(d.getHours()) + ":" + two(d.getMinutes()) + ":" + two(d.getSeconds());
  }
  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) { node.className = cls; }
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }
  function svg(tag, attrs, text) {
    var node = document.createElementNS(SVG, tag);
    Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) { node.textContent = text; }
    return node;
  }

  /* ---- the run list ---------------------------------------------------------------- */
  var COLUMNS = [
    {key: "id", label: "run id", cls: "id"},
    {key: "ts", label: "when", show: when},
    {key: "wf", label: "workflow"},
    {key: "subj", label: "subject"},
    {key: "st", label: "status"},
    {key: "ms", label: "time", num: true, show: ms},
    {key: "tok", label: "tokens", num: true, show: function (v) { return num(v, 6); }},
    {key: "cost", label: "cost", num: true, show: money},
    {key: "eval", label: "eval", num: true, show: score},
    {key: "exp", label: "experiment", show: function (v, r) { return v ? v + (r.case ? " / " + r.case : "") : ""; }}
  ];
  var state = {order: [], sortKey: null, sortDir: 1, selected: -1};
  var viewport = document.getElementById("viewport");
  var spacer = document.getElementById("spacer");
  var head = document.getElementById("head");
  var filterBox = document.getElementById("filter");
  var statusBox = document.getElementById("status");
  var countBox = document.getElementById("count");
  var haystack = RUNS.map(function (r) {
    return [r.id, r.wf, r.subj, r.st, r.exp, r.case, r.model, r.err].join("\u0001").toLowerCase();
  });

  COLUMNS.forEach(function (c) {
    var b = el("button", c.num ? "num" : "", c.label);
    b.setAttribute("role", "columnheader");
    b.setAttribute("aria-sort", "none");
    b.dataset.key = c.key;
    b.addEventListener("click", function () { sortBy(c.key); });
    head.appendChild(b);
  });

  function compare(key) {
    return function (a, b) {
      var x = RUNS[a][key], y = RUNS[b][key];
      var xMissing = x === null || x === undefined || x === "", yMissing = y === null || y === undefined || y === "";
      if (xMissing || yMissing) { return xMissing === yMissing ? a - b : (xMissing ? 1 : -1); }
      if (x < y) { return -state.sortDir; }
      if (x > y) { return state.sortDir; }
      return a - b;
    };
  }
  function sortBy(key) {
    state.sortDir = state.sortKey === key ? -state.sortDir : 1;
    state.sortKey = key;
    Array.prototype.forEach.call(head.children, function (b) {
      b.setAttribute("aria-sort", b.dataset.key === key ? (state.sortDir > 0 ? "ascending" : "descending") : "none");
    });
    refilter();
  }
  function refilter() {
    var q = filterBox.value.trim().toLowerCase(), st = statusBox.value, order = [];
    for (var i = 0; i < RUNS.length; i += 1) {
      if ((!st || RUNS[i].st === st) && (!q || haystack[i].indexOf(q) !== -1)) { order.push(i); }
    }
    if (state.sortKey) { order.sort(compare(state.sortKey)); }
    state.order = order;
    countBox.textContent = order.length.toLocaleString("en-US") + " of " + RUNS.length.toLocaleString("en-US") + " runs";
    spacer.style.height = (order.length * ROW) + "px";
    draw(true);
  }
  var drawn = {};
  function draw(all) {
    if (all) { spacer.textContent = ""; drawn = {}; }
    var first = Math.max(0, Math.floor(viewport.scrollTop / ROW) - OVERSCAN);
    var last = Math.min(state.order.length, Math.ceil((viewport.scrollTop + viewport.clientHeight) / ROW) + OVERSCAN);
    Object.keys(drawn).forEach(function (pos) {
      if (pos < first || pos >= last) { spacer.removeChild(drawn[pos]); delete drawn[pos]; }
    });
    for (var pos = first; pos < last; pos += 1) {
      if (!drawn[pos]) { drawn[pos] = spacer.appendChild(rowAt(pos)); }
    }
  }
  function rowAt(pos) {
    var index = state.order[pos], r = RUNS[index];
    var row = el("div", "row" + (index === state.selected ? " selected" : ""));
    row.setAttribute("role", "row");
    row.dataset.index = index;
    row.style.top = (pos * ROW) + "px";
    COLUMNS.forEach(function (c) {
      var text = c.show ? c.show(r[c.key], r) : (r[c.key] === null || r[c.key] === undefined ? "" : r[c.key]);
      var cell = el("span", (c.cls || "") + (c.num ? " num" : "") + (c.key === "st" && r.st === "failed" ? " failed" : ""), text);
      cell.title = String(text);
      row.appendChild(cell);
    });
    return row;
  }
  var pending = false;
  viewport.addEventListener("scroll", function () {
    if (!pending) { pending = true; requestAnimationFrame(function () { pending = false; draw(false); }); }
  });
  spacer.addEventListener("click", function (event) {
    var row = event.target.closest(".row");
    if (row) { open(Number(row.dataset.index)); }
  });
  viewport.tabIndex = 0;
  viewport.addEventListener("keydown", function (event) {
    if (event.key !== "ArrowDown" && event.key !== "ArrowUp") { return; }
    var pos = state.order.indexOf(state.selected) + (event.key === "ArrowDown" ? 1 : -1);
    if (pos >= 0 && pos < state.order.length) {
      event.preventDefault();
      open(state.order[pos]);
      var top = pos * ROW;
      if (top < viewport.scrollTop || top + ROW > viewport.scrollTop + viewport.clientHeight) {
        viewport.scrollTop = top - viewport.clientHeight / 2;
      }
    }
  });
  filterBox.addEventListener("input", refilter);
  statusBox.addEventListener("change", refilter);

  /* ---- one run: header, waterfall, scores ------------------------------------------- */
  var tip = document.getElementById("tip");
  function showTip(event, lines) {
    tip.textContent = "";
    lines.forEach(function (line, i) {
      if (i === 0) { tip.appendChild(el("b", "", line)); return; }
      var div = el("div");
      div.appendChild(el("span", "k", line[0] + " "));
      div.appendChild(document.createTextNode(line[1]));
      tip.appendChild(div);
    });
    tip.hidden = false;
    moveTip(event);
  }
  function moveTip(event) {
    var x = Math.min(event.clientX + 14, window.innerWidth - tip.offsetWidth - 8);
    var y = event.clientY + 16 + tip.offsetHeight > window.innerHeight ? event.clientY - tip.offsetHeight - 10 : event.clientY + 16;
    tip.style.left = x + "px";
    tip.style.top = y + "px";
  }
  function hideTip() { tip.hidden = true; }

  function describe(e) {
    var kind = KINDS[e[0]], lines = [kind + " " + e[1]];
    lines.push(["status", e[4]], ["start", ms(e[2])], ["duration", ms(e[3])]);
    if (e[5]) { lines.push(["error", e[5]]); }
    if (kind === "node") {
      lines.push(["step", e[7] === null ? "—" : String(e[7])], ["subgraph depth", String(e[8] || 0)]);
    } else if (kind === "llm") {
      lines.push(["model", e[7] || "—"], ["tokens", e[8] === null ? "unknown" : num(e[8], 6) + " in → " + num(e[9], 6) + " out"],
        ["cost", money(e[10])]);
      if (e[11] !== null) { lines.push(["first token", ms(e[11])]); }
      lines.push(["input", e[12] || "—"], ["output", e[13] || "—"]);
    } else {
      lines.push(["input", e[7] || "—"], ["output", e[8] || "—"]);
    }
    return lines;
  }
  function niceStep(span, target) {
    var raw = span / Math.max(1, target), power = Math.pow(10, Math.floor(Math.log10(raw)));
    var steps = [1, 2, 5, 10];
    for (var i = 0; i < steps.length; i += 1) { if (raw <= steps[i] * power) { return steps[i] * power; } }
    return 10 * power;
  }
  /* A run of several agents: each row's agent as a coloured band at its left edge, with a key. */
  function agentColours(agents, box) {
    var colours = {}, names = [];
    agents.forEach(function (a) {
      if (a && !(a in colours)) { colours[a] = "hsl(" + Math.round(names.length * 137.5 % 360) + ",60%,48%)"; names.push(a); }
    });
    if (!names.length) { return colours; }
    var key = el("p", "legend agents", "agents:");
    names.forEach(function (a) {
      var swatch = el("span", "key");
      swatch.style.background = colours[a];
      key.appendChild(swatch);
      key.appendChild(document.createTextNode(a));
    });
    box.appendChild(key);
    return colours;
  }
  function waterfall(rows, runSpan, agents, handoffs) {
    var box = document.getElementById("waterfall");
    box.textContent = "";
    if (!rows.length) { box.appendChild(el("p", "muted", "No node, model or tool call was recorded.")); return; }
    agents = agents || [];
    handoffs = handoffs || [];
    var colours = agentColours(agents, box), band = agents.length ? 8 : 0;
    var width = Math.max(600, box.clientWidth || 900), labelW = Math.min(320, Math.round(width * 0.3));
    var barsW = width - labelW - 16, rowH = 22, top = 22, height = top + rows.length * rowH + 4;
    var span = runSpan > 0 ? runSpan : Math.max.apply(null, rows.map(function (e) { return (e[2] || 0) + (e[3] || 0); })) || 1;
    var root = svg("svg", {width: width, height: height, viewBox: "0 0 " + width + " " + height, role: "img",
      "aria-label": "waterfall of the run's nodes, model calls and tool calls"});
    var step = niceStep(span, Math.max(2, Math.floor(barsW / 110)));
    for (var t = 0; t <= span + 1e-9; t += step) {
      var x = labelW + t / span * barsW;
      root.appendChild(svg("line", {"class": "tick", x1: x, x2: x, y1: top - 4, y2: height}));
      root.appendChild(svg("text", {"class": "axis", x: x, y: 12, "text-anchor": t === 0 ? "start" : "middle"}, ms(t)));
    }
    rows.forEach(function (e, i) {
      var y = top + i * rowH, kind = KINDS[e[0]], error = e[4] === "error";
      if (i % 2) { root.appendChild(svg("rect", {"class": "stripe", x: 0, y: y, width: width, height: rowH})); }
      if (agents[i]) {
        var mark = svg("rect", {"class": "agent", x: 0, y: y + 2, width: 4, height: rowH - 4, fill: colours[agents[i]]});
        mark.appendChild(svg("title", {}, "agent " + agents[i]));
        root.appendChild(mark);
      }
      var room = Math.floor((labelW - 12 - band - e[6] * 14) / 7), name = (kind === "node" ? "" : kind + " ") + e[1];
      if (handoffs[i]) { name += " → " + handoffs[i]; }
      root.appendChild(svg("text", {"class": "label" + (error ? " error" : ""), x: 4 + band + e[6] * 14, y: y + 15},
        name.length > room ? name.slice(0, Math.max(1, room - 1)) + "…" : name));
      var start = e[2] === null ? 0 : e[2], dur = e[3] === null ? span - start : e[3];
      var bar = svg("rect", {"class": "bar " + kind + (error ? " error" : "") + (e[4] === "unfinished" ? " unfinished" : ""),
        x: labelW + start / span * barsW, y: y + 4, width: Math.max(2, dur / span * barsW), height: rowH - 8, rx: 2,
        "data-kind": kind, "data-status": e[4]});
      bar.appendChild(svg("title", {}, kind + " " + e[1] + ": " + ms(e[3])));
      var lines = describe(e);
      if (agents[i]) { lines.splice(1, 0, ["agent", agents[i]]); }
      if (handoffs[i]) { lines.splice(agents[i] ? 2 : 1, 0, ["handed off to", handoffs[i]]); }
      bar.addEventListener("mouseenter", function (event) { showTip(event, lines); });
      bar.addEventListener("mousemove", moveTip);
      bar.addEventListener("mouseleave", hideTip);
      root.appendChild(bar);
      var end = labelW + (start + dur) / span * barsW, right = end + 90 < width;
      root.appendChild(svg("text", {"class": error ? "label error" : "took", x: right ? end + 4 : labelW + start / span * barsW - 4,
        y: y + 15, "text-anchor": right ? "start" : "end"}, (error ? "✕ " : "") + ms(e[3])));
    });
    box.appendChild(root);
  }
  function scoresTable(scores) {
    var box = document.getElementById("scores");
    box.textContent = "";
    var rows = [];
    function names(list) { return list && list.length ? list.join(", ") : "—"; }
    var s = scores;
    if (s.evaluation) { rows.push(["evaluation", score(s.evaluation.score), s.evaluation.status, ""]); }
    if (s.tool_selection) {
      rows.push(["tool F1", score(s.tool_selection.f1), "", "missing " + names(s.tool_selection.missing) + " · extra " + names(s.tool_selection.extra)]);
    }
    if (s.trajectory) {
      rows.push(["trajectory", score(s.trajectory.match), "", "missing " + names(s.trajectory.missing) + " · extra " + names(s.trajectory.extra)]);
    }
    if (s.judge) { rows.push(["judge", score(s.judge.overall), s.judge.status || s.judge.outcome, s.judge.error || ""]); }
    if (s.agent_metrics) { rows.push(["agent metrics", score(s.agent_metrics.overall_score), s.agent_metrics.eval_status, ""]); }
    if (s.log_test) { rows.push(["log test", "", s.log_test.status, "profile " + (s.log_test.profile || "—")]); }
    if (!rows.length) { box.appendChild(el("p", "muted", "No scores were recorded for this run.")); return; }
    var table = el("table", "summary"), body = el("tbody");
    rows.forEach(function (r) {
      var tr = el("tr");
      tr.appendChild(el("td", "", r[0]));
      tr.appendChild(el("td", "num", r[1]));
      var verdict = el("td");
      if (r[2]) { verdict.appendChild(el("span", "badge " + r[2], r[2])); }
      tr.appendChild(verdict);
      tr.appendChild(el("td", "muted", r[3]));
      body.appendChild(tr);
    });
    table.appendChild(body);
    box.appendChild(table);
  }
  function open(index) {
    var run = RUNS[index];
    state.selected = index;
    Array.prototype.forEach.call(spacer.children, function (row) {
      row.classList.toggle("selected", Number(row.dataset.index) === index);
    });
    var section = document.getElementById("run"), header = document.getElementById("run-head");
    section.hidden = false;
    header.textContent = "";
    header.appendChild(el("h2", "", run.id));
    var facts = [run.wf, run.subj ? "subject " + run.subj : null, "started " + when(run.ts), ms(run.ms),
      num(run.tok, 6) + " tokens", "cost " + money(run.cost), run.model ? "model " + run.model : null,
      run.exp ? "experiment " + run.exp + (run.case ? " / case " + run.case : "") : null].filter(Boolean);
    var p = el("p");
    p.appendChild(el("span", "badge " + run.st, run.st));
    p.appendChild(document.createTextNode(" " + facts.join(" · ")));
    header.appendChild(p);
    if (run.err) { header.appendChild(el("p", "error", run.err)); }
    document.getElementById("waterfall").textContent = "";
    document.getElementById("scores").textContent = "";
    unpackDetails().then(function (all) {
      if (state.selected === index) {
        waterfall(all[index].rows, all[index].span, all[index].agents, all[index].handoffs);
        scoresTable(all[index].scores);
      }
    }).catch(function (error) { console.error("the runs' details could not be unpacked: " + error); });
    if (history.replaceState) { history.replaceState(null, "", "#run=" + run.id); }
  }

  refilter();
  var wanted = /^#run=(.+)$/.exec(location.hash);
  if (wanted) {
    for (var i = 0; i < RUNS.length; i += 1) {
      if (RUNS[i].id.indexOf(decodeURIComponent(wanted[1])) === 0) { open(i); break; }
    }
  }
  document.body.setAttribute("data-ready", "yes");
  setTimeout(unpackDetails, 0);
})();
