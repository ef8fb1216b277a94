/* The run report: a lazily rendered, sortable, filterable run list and, for the run opened,
   its waterfall, the panel that shows one of its calls in full, and its scores. Data comes
   from the inline #report-data element; every text from it is set with textContent, never
   parsed as HTML.

   The parts draw into the element they are given (waterfall, entry panel, scores), so a view
   that shows two runs side by side can draw each part twice; the URL hash is read in one
   place (route), where a new view adds its key. */
(function () {
  "use strict";
  var DATA = JSON.parse(document.getElementById("report-data").textContent);
  var RUNS = DATA.runs;
  var ROW = 28, OVERSCAN = 8;
  var KINDS = ["node", "llm", "tool"];
  var SVG = "http://www.w3.org/2000/svg";
  /* A text longer than this is folded: its first lines shown, the whole of it a click away. */
  var FOLD_LINES = 14, FOLD_CHARS = 1600, PEEK_LINES = 6, PEEK_CHARS = 480;
  var CUT = /…\[truncated, (\d+)(\+?) chars\]$/;

  /* ---- the runs' details: packed in blocks, unpacked when a run of the block is opened ---- */
  /* What an opened run shows (waterfall rows with their payloads, scores: most of the file)
     comes gzip-compressed in base64, BLOCK runs a block, in an element after this script:
     the list is on screen before the parser has read them. */
  var blocks = {}, packedText = null, PAYLOADS = ["in", "out", "err", "tb"];
  function documentRead() {
    return document.readyState === "loading"
      ? new Promise(function (resolve) { document.addEventListener("DOMContentLoaded", resolve); })
      : Promise.resolve();
  }
  function unpack(b64) {
    var packed = atob(b64);
    var bytes = new Uint8Array(packed.length);
    for (var i = 0; i < packed.length; i += 1) { bytes[i] = packed.charCodeAt(i); }
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text().then(JSON.parse);
  }
  function detailOf(index) {
    var b = Math.floor(index / DATA.block);
    if (!blocks[b]) {
      blocks[b] = documentRead().then(function () {
        if (packedText === null) { packedText = document.getElementById("report-details").textContent.trim().split(","); }
        return unpack(packedText[b]);
      }).then(function (block) {
        /* a row's payloads are places in the block's values (see report.py's tabled) */
        block.runs.forEach(function (run) {
          run.rows.forEach(function (e) {
            PAYLOADS.forEach(function (key) { if (key in e) { e[key] = block.values[e[key]]; } });
          });
        });
        return block.runs;
      });
    }
    return blocks[b].then(function (runs) { return runs[index - b * DATA.block]; });
  }

  /* ---- formatting -------------------------------------------------------------------- */
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
  function two(n) { return String(n).padStart(2, "0"); }
  function when(iso) {
    if (!iso) { return "—"; }
    var d = new Date(iso);
    if (isNaN(d)) { return String(iso); }
    return d.getFullYear() + "-" + two(d.getMonth() + 1) + "-" + two(d.getDate()) + " " +
      two(d.getHours()) + ":" + two(d.getMinutes()) + ":" + two(d.getSeconds());
  }
  function exact(d) { return when(d) + "." + String(new Date(d).getMilliseconds()).padStart(3, "0"); }
  /* The reader's time zone, said once where times are shown (a mailed report is read elsewhere). */
  var ZONE = (function () {
    var minutes = -new Date().getTimezoneOffset(), sign = minutes < 0 ? "−" : "+";
    minutes = Math.abs(minutes);
    return "UTC" + sign + two(Math.floor(minutes / 60)) + ":" + two(minutes % 60);
  })();
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
  function asText(v) {
    if (v === null || v === undefined) { return ""; }
    return typeof v === "string" ? v : JSON.stringify(v, null, 2);
  }
  function glimpse(v, n) {
    var text = typeof v === "string" ? v : JSON.stringify(v);
    text = (text || "—").slice(0, 4 * n).replace(/\s+/g, " ");
    return text.length > n ? text.slice(0, n - 1) + "…" : text;
  }

  /* ---- the run list ---------------------------------------------------------------- */
  /* Each column's width, wide and narrow (<= 900 px): head and rows share one grid and one
     scrolling box, so they line up at any width. A column no run has a value for is left out. */
  var COLUMNS = [
    {key: "id", label: "run id", cls: "id", w: ["minmax(290px,2.6fr)", "minmax(80px,1.2fr)"]},
    {key: "ts", label: "ended", show: when, w: ["160px", "140px"]},
    {key: "wf", label: "workflow", w: ["minmax(90px,1fr)", "minmax(60px,1fr)"], optional: true},
    {key: "subj", label: "subject", w: ["minmax(90px,1.2fr)", "minmax(60px,1fr)"], optional: true},
    {key: "st", label: "status", w: ["90px", "76px"]},
    {key: "ms", label: "time", num: true, show: ms, w: ["80px", "64px"]},
    {key: "tok", label: "tokens", num: true, show: function (v) { return num(v, 6); }, w: ["75px", "60px"]},
    {key: "cost", label: "cost", num: true, show: money, w: ["105px", "88px"]},
    {key: "eval", label: "eval", num: true, show: score, w: ["55px", "44px"], optional: true},
    {key: "exp", label: "experiment", show: function (v, r) { return v ? v + (r.case ? " / " + r.case : "") : ""; },
      w: ["minmax(90px,1fr)", "minmax(72px,1fr)"], optional: true}
  ].filter(function (c) {
    return !c.optional || RUNS.some(function (r) { return r[c.key] !== null && r[c.key] !== undefined && r[c.key] !== ""; });
  });
  var state = {order: [], sortKey: null, sortDir: 1, selected: -1};
  var list = document.getElementById("list");
  var viewport = document.getElementById("viewport");
  var spacer = document.getElementById("spacer");
  var head = document.getElementById("head");
  var filterBox = document.getElementById("filter");
  var statusBox = document.getElementById("status");
  var countBox = document.getElementById("count");
  var haystack = RUNS.map(function (r) {
    return [r.id, r.wf, r.subj, r.st, r.exp, r.case, r.model, r.err].join("\u0001").toLowerCase();
  });

  [0, 1].forEach(function (narrow) {
    var least = 0;
    list.style.setProperty(narrow ? "--cols-narrow" : "--cols", COLUMNS.map(function (c) {
      least += Number(/(\d+)px/.exec(c.w[narrow])[1]);
      return c.w[narrow];
    }).join(" "));
    list.style.setProperty(narrow ? "--row-min-narrow" : "--row-min", least + "px");
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
    var top = Math.max(0, viewport.scrollTop - ROW);  /* the head takes the first row's height */
    var first = Math.max(0, Math.floor(top / ROW) - OVERSCAN);
    var last = Math.min(state.order.length, Math.ceil((top + viewport.clientHeight) / ROW) + OVERSCAN);
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
      cell.setAttribute("role", "gridcell");
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
    if (row) { openRun(Number(row.dataset.index)); }
  });
  viewport.tabIndex = 0;
  viewport.addEventListener("keydown", function (event) {
    if (event.key !== "ArrowDown" && event.key !== "ArrowUp") { return; }
    var pos = state.order.indexOf(state.selected) + (event.key === "ArrowDown" ? 1 : -1);
    if (pos >= 0 && pos < state.order.length) {
      event.preventDefault();
      openRun(state.order[pos]);
      var top = pos * ROW;
      if (top < viewport.scrollTop || top + 2 * ROW > viewport.scrollTop + viewport.clientHeight) {
        viewport.scrollTop = top - viewport.clientHeight / 2;
      }
    }
  });
  filterBox.addEventListener("input", refilter);
  statusBox.addEventListener("change", refilter);

  /* ---- the hover: a glance at a call ------------------------------------------------ */
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
  function tokens(e) { return e.pt === undefined ? "unknown" : num(e.pt, 6) + " in → " + num(e.ct, 6) + " out"; }
  function describe(e) {
    var kind = KINDS[e.k], lines = [kind + " " + e.n];
    lines.push(["status", e.st], ["start", ms(e.t)], ["duration", ms(e.d)]);
    if (e.err) { lines.push(["error", glimpse(e.err, 300)]); }
    if (kind === "node") {
      lines.push(["step", e.step === undefined ? "—" : String(e.step)], ["subgraph depth", String(e.sd || 0)]);
    } else if (kind === "llm") {
      lines.push(["model", e.model || "—"], ["tokens", tokens(e)], ["cost", money(e.cost)]);
      if (e.ttft !== undefined) { lines.push(["first token", ms(e.ttft)]); }
    }
    lines.push(["input", glimpse(e.in, 200)], ["output", glimpse(e.out, 200)]);
    return lines;
  }

  /* ---- the waterfall: one focusable row per node, model call and tool call ------------ */
  function niceStep(span, target) {
    var raw = span / Math.max(1, target), power = Math.pow(10, Math.floor(Math.log10(raw)));
    var steps = [1, 2, 5, 10];
    for (var i = 0; i < steps.length; i += 1) { if (raw <= steps[i] * power) { return steps[i] * power; } }
    return 10 * power;
  }
  /* Draw ``detail``'s rows into ``box``; ``pick(i)`` is called when row i is opened (a click,
     or Enter or Space on the focused row; the arrow keys, Home and End move the focus).
     Returns {select(i)}: mark row i as the one the panel shows. */
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

  function drawWaterfall(box, detail, pick) {
    var rows = detail.rows, agents = detail.agents || [], handoffs = detail.handoffs || [];
    box.textContent = "";
    if (!rows.length) { box.appendChild(el("p", "muted", "No node, model or tool call was recorded.")); return {select: function () {}}; }
    var colours = agentColours(agents, box), band = agents.length ? 8 : 0;
    var width = Math.max(600, box.clientWidth || 900), labelW = Math.min(320, Math.round(width * 0.3));
    var barsW = width - labelW - 16, rowH = 22, top = 22, height = top + rows.length * rowH + 4;
    var span = detail.span > 0 ? detail.span : Math.max.apply(null, rows.map(function (e) { return (e.t || 0) + (e.d || 0); })) || 1;
    var root = svg("svg", {width: width, height: height, viewBox: "0 0 " + width + " " + height, role: "list",
      "aria-label": "waterfall of the run's nodes, model calls and tool calls"});
    var step = niceStep(span, Math.max(2, Math.floor(barsW / 110)));
    for (var t = 0; t <= span + 1e-9; t += step) {
      var x = labelW + t / span * barsW;
      root.appendChild(svg("line", {"class": "tick", x1: x, x2: x, y1: top - 4, y2: height}));
      root.appendChild(svg("text", {"class": "axis", x: x, y: 12, "text-anchor": t === 0 ? "start" : "middle"}, ms(t)));
    }
    var groups = rows.map(function (e, i) {
      var y = top + i * rowH, kind = KINDS[e.k], error = e.st === "error";
      var g = svg("g", {"class": "entry", tabindex: i === 0 ? "0" : "-1", role: "listitem", "data-i": i,
        "aria-label": kind + " " + e.n + (handoffs[i] ? " → " + handoffs[i] : "") + (agents[i] ? ", agent " + agents[i] : "")
          + ", " + e.st + ", " + ms(e.d)});
      g.appendChild(svg("rect", {"class": "hit" + (i % 2 ? " stripe" : ""), x: 0, y: y, width: width, height: rowH}));
      if (agents[i]) {
        var mark = svg("rect", {"class": "agent", x: 0, y: y + 2, width: 4, height: rowH - 4, fill: colours[agents[i]]});
        mark.appendChild(svg("title", {}, "agent " + agents[i]));
        g.appendChild(mark);
      }
      var room = Math.floor((labelW - 12 - band - e.dp * 14) / 7), name = (kind === "node" ? "" : kind + " ") + e.n;
      if (handoffs[i]) { name += " → " + handoffs[i]; }
      g.appendChild(svg("text", {"class": "label" + (error ? " error" : ""), x: 4 + band + e.dp * 14, y: y + 15},
        name.length > room ? name.slice(0, Math.max(1, room - 1)) + "…" : name));
      var start = e.t === undefined || e.t === null ? 0 : e.t, dur = e.d === undefined || e.d === null ? span - start : e.d;
      var bar = svg("rect", {"class": "bar " + kind + (error ? " error" : "") + (e.st === "unfinished" ? " unfinished" : ""),
        x: labelW + start / span * barsW, y: y + 4, width: Math.max(2, dur / span * barsW), height: rowH - 8, rx: 2,
        "data-kind": kind, "data-status": e.st});
      var lines = describe(e);
      if (agents[i]) { lines.splice(1, 0, ["agent", agents[i]]); }
      if (handoffs[i]) { lines.splice(agents[i] ? 2 : 1, 0, ["handed off to", handoffs[i]]); }
      bar.addEventListener("mouseenter", function (event) { showTip(event, lines); });
      bar.addEventListener("mousemove", moveTip);
      bar.addEventListener("mouseleave", hideTip);
      g.appendChild(bar);
      var end = labelW + (start + dur) / span * barsW, right = end + 90 < width;
      g.appendChild(svg("text", {"class": error ? "label error" : "took", x: right ? end + 4 : labelW + start / span * barsW - 4,
        y: y + 15, "text-anchor": right ? "start" : "end"}, (error ? "✕ " : "") + ms(e.d)));
      root.appendChild(g);
      return g;
    });
    function focusRow(i) {
      i = Math.max(0, Math.min(rows.length - 1, i));
      groups.forEach(function (g, j) { g.setAttribute("tabindex", j === i ? "0" : "-1"); });
      groups[i].focus();
    }
    root.addEventListener("click", function (event) {
      var g = event.target.closest("g.entry");
      if (g) { hideTip(); focusRow(Number(g.dataset.i)); pick(Number(g.dataset.i)); }
    });
    root.addEventListener("keydown", function (event) {
      var g = event.target.closest && event.target.closest("g.entry");
      if (!g) { return; }
      var i = Number(g.dataset.i), keys = {ArrowDown: i + 1, ArrowUp: i - 1, Home: 0, End: rows.length - 1};
      if (event.key in keys) {
        event.preventDefault();
        focusRow(keys[event.key]);
      } else if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        pick(i);
      }
    });
    box.appendChild(root);
    return {
      select: function (i) {
        groups.forEach(function (g, j) {
          g.classList.toggle("selected", j === i);
          if (j === i) { g.setAttribute("aria-current", "true"); } else { g.removeAttribute("aria-current"); }
        });
      }
    };
  }

  /* ---- the entry panel: one call in full ------------------------------------------- */
  function copyText(text) {
    if (navigator.clipboard && navigator.clipboard.writeText) {
      return navigator.clipboard.writeText(text).catch(function () { return legacyCopy(text); });
    }
    return legacyCopy(text);
  }
  function legacyCopy(text) {
    var area = el("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    var done = false;
    try { done = document.execCommand("copy"); } catch (ignored) { done = false; }
    document.body.removeChild(area);
    return done ? Promise.resolve() : Promise.reject(new Error("copy refused"));
  }
  /* A titled block whose text can be copied whole with its button. */
  function block(title, text, body, cls) {
    var section = el("section", "block" + (cls ? " " + cls : ""));
    var bar = el("div", "block-head");
    bar.appendChild(el("h4", "", title));
    var button = el("button", "copy", "Copy");
    button.type = "button";
    button.setAttribute("aria-label", "Copy the " + title.toLowerCase());
    button.addEventListener("click", function () {
      copyText(text).then(function () { button.textContent = "Copied"; },
        function () { button.textContent = "Select it to copy"; });
      setTimeout(function () { button.textContent = "Copy"; }, 1600);
    });
    bar.appendChild(button);
    section.appendChild(bar);
    section.appendChild(body);
    return section;
  }
  /* A text whole; when long, folded: its first lines shown, the rest a click away (and in
     the page all along: a search, a selection or a copy finds all of it). */
  function folded(text, cls) {
    var lines = text.split("\n");
    if (lines.length <= FOLD_LINES && text.length <= FOLD_CHARS) { return el("pre", "text " + (cls || ""), text); }
    var fold = el("details", "fold");
    var summary = el("summary");
    var peek = lines.slice(0, PEEK_LINES).join("\n");
    if (peek.length > PEEK_CHARS) { peek = peek.slice(0, PEEK_CHARS); }
    summary.appendChild(el("pre", "text peek " + (cls || ""), peek + "…"));
    var more = el("span", "more");
    more.appendChild(el("span", "show", "Show all"));
    more.appendChild(el("span", "hide", "Fold"));
    more.appendChild(document.createTextNode(" · " + num(lines.length, 9) + " lines, " + num(text.length, 9) + " characters"));
    summary.appendChild(more);
    fold.appendChild(summary);
    fold.appendChild(el("pre", "text full " + (cls || ""), text));
    return fold;
  }
  /* A model's prompt as the store keeps it ("role: text" messages, a blank line between) back
     into its messages; null when it does not read as messages. */
  var ROLES = /^(system|developer|human|user|ai|assistant|tool|function|chat|[A-Za-z]+MessageChunk): /;
  function conversation(text) {
    if (typeof text !== "string" || !ROLES.test(text)) { return null; }
    var messages = [];
    text.split("\n\n").forEach(function (part) {
      var found = ROLES.exec(part);
      if (found) { messages.push({role: found[1], text: part.slice(found[0].length)}); }
      else { messages[messages.length - 1].text += "\n\n" + part; }
    });
    return messages;
  }
  /* A text that is whole JSON, laid out; any other as it is. */
  function laidOut(text) {
    if (!/^\s*[\[{]/.test(text)) { return text; }
    try { return JSON.stringify(JSON.parse(text), null, 2); } catch (notJson) { return text; }
  }
  function messagesBody(messages) {
    var box = el("div", "conversation");
    messages.forEach(function (m) {
      var msg = el("div", "msg role-" + m.role.toLowerCase());
      msg.appendChild(el("div", "role", m.role));
      msg.appendChild(folded(laidOut(m.text)));
      box.appendChild(msg);
    });
    return box;
  }
  /* Where a traceback says it failed: the last frame of the exception raised last. */
  function failedAt(tb) {
    var frames = tb.slice(tb.lastIndexOf("Traceback (most recent call last)")).match(/^  File ".*", line \d+, in .*$/gm);
    if (!frames) { return null; }
    var found = /^  File "(.*)", line (\d+), in (.*)$/.exec(frames[frames.length - 1]);
    return "failed in " + found[3] + " · " + found[1] + ", line " + found[2];
  }
  function cutNote(text, kind) {
    var found = typeof text === "string" && CUT.exec(text);
    if (!found) { return null; }
    return el("p", "note", kind === "node"
      ? "Cut: the store keeps a node's input and output as a preview of their first characters (" +
        num(Number(found[1]), 9) + found[2] + " characters in all). A tool's or a model's payload, in the calls " +
        "under it, is kept whole."
      : "Cut for the report at " + num(Number(found[1]), 9) + " characters: harness show with --json prints it whole.");
  }
  function payload(title, value, kind, side) {
    if (value === undefined || value === null) { return null; }
    var text = asText(value), body;
    var messages = kind === "llm" ? (side === "in" ? conversation(value) : (typeof value === "string" ? [{role: "ai", text: value}] : null)) : null;
    if (messages) {
      body = messagesBody(messages);
    } else {
      body = el("div");
      body.appendChild(typeof value === "string" ? folded(laidOut(value)) : folded(text, "json"));
    }
    var note = cutNote(text, kind);
    if (note) { body.appendChild(note); }
    return block(title, text, body, side);
  }
  function fact(list, key, value) {
    if (value === undefined || value === null || value === "") { return; }
    list.appendChild(el("dt", "", key));
    list.appendChild(el("dd", "", value));
  }
  /* Draw ``e`` (a row of ``detail``) into ``box``: what it was, its timings, tokens and cost,
     its error and traceback, its input and output. */
  function drawEntry(box, e, detail) {
    box.textContent = "";
    var kind = KINDS[e.k], head = el("div", "entry-head");
    head.appendChild(el("h3", "", (kind === "node" ? "node " : kind === "llm" ? "LLM call " : "tool call ") + e.n));
    head.appendChild(el("span", "badge " + e.st, e.st));
    box.appendChild(head);
    var facts = el("dl", "facts");
    if (e.t !== undefined && e.t !== null) {
      fact(facts, "started", "+" + ms(e.t) + (detail.t0 ? " · " + exact(detail.t0 + e.t) + " " + ZONE : ""));
    }
    fact(facts, "took", ms(e.d));
    if (e.t !== undefined && e.t !== null && e.d !== undefined && e.d !== null) { fact(facts, "ended", "+" + ms(e.t + e.d)); }
    if (kind === "node") {
      fact(facts, "step", e.step);
      fact(facts, "LangGraph step", e.lg);
      fact(facts, "subgraph depth", e.sd);
    } else if (kind === "llm") {
      fact(facts, "model", e.model || "—");
      fact(facts, "tokens", tokens(e) + (e.pt === undefined ? "" : " · " + num(e.pt + (e.ct || 0), 6) + " in all") +
        (e.us ? " (" + e.us + ")" : ""));
      fact(facts, "cost", money(e.cost));
      if (e.ttft !== undefined) { fact(facts, "first token", ms(e.ttft)); }
    } else {
      fact(facts, "call depth", e.cd === undefined ? undefined : e.cd + (e.cd ? " (called by a tool)" : " (called by its node)"));
    }
    box.appendChild(facts);
    if (e.err) { box.appendChild(block("Error", e.err, folded(e.err, "error-text"), "error")); }
    if (e.tb) {
      var trace = el("div"), where = failedAt(e.tb);
      if (where) { trace.appendChild(el("p", "where", where)); }
      trace.appendChild(el("pre", "text traceback", e.tb));
      box.appendChild(block("Traceback", e.tb, trace, "traceback"));
    }
    [payload(kind === "llm" ? "Prompt" : "Input", e.in, kind, "in"),
      payload(kind === "llm" ? "Response" : "Output", e.out, kind, "out")].forEach(function (part) {
      if (part) { box.appendChild(part); }
    });
    if (e.in === undefined && e.out === undefined && !e.err) { box.appendChild(el("p", "muted", "No input or output was recorded.")); }
  }
  function entryHint(box) {
    box.textContent = "";
    box.appendChild(el("p", "muted", "Click a bar in the waterfall, or move to it with the arrow keys and press Enter, " +
      "to see that call here in full: input and output, tokens, cost, timings, error and traceback."));
  }

  /* ---- scores ------------------------------------------------------------------------ */
  function drawScores(box, scores) {
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

  /* ---- one run: header, waterfall, entry panel, scores ------------------------------- */
  function setHash(hash) {
    if (history.replaceState) { history.replaceState(null, "", hash); }
  }
  /* Open run ``index``; ``entry``: the waterfall row to show in the panel, if any. */
  function openRun(index, entry) {
    var run = RUNS[index];
    state.selected = index;
    Array.prototype.forEach.call(spacer.children, function (row) {
      row.classList.toggle("selected", Number(row.dataset.index) === index);
    });
    var section = document.getElementById("run"), header = document.getElementById("run-head");
    section.hidden = false;
    header.textContent = "";
    header.appendChild(el("h2", "", run.id));
    var facts = [run.wf, run.subj ? "subject " + run.subj : null,
      "started " + when(run.start || null) + " · ended " + when(run.ts) + " (" + ZONE + ")", "took " + ms(run.ms),
      num(run.tok, 6) + " tokens", "cost " + money(run.cost), run.model ? "model " + run.model : null,
      run.exp ? "experiment " + run.exp + (run.case ? " / case " + run.case : "") : null].filter(Boolean);
    var p = el("p", "facts-line");
    p.appendChild(el("span", "badge " + run.st, run.st));
    p.appendChild(document.createTextNode(" " + facts.join(" · ")));
    header.appendChild(p);
    var error = run.err ? header.appendChild(el("div", "error", run.err)) : null;
    var waterfallBox = document.getElementById("waterfall"), entryBox = document.getElementById("entry");
    var scoresBox = document.getElementById("scores");
    waterfallBox.textContent = "";
    scoresBox.textContent = "";
    entryHint(entryBox);
    setHash("#run=" + encodeURIComponent(run.id));
    detailOf(index).then(function (detail) {
      if (state.selected !== index) { return; }
      if (error && detail.err) {  /* the whole error, where the list has its first 400 characters */
        error.textContent = "";
        error.appendChild(folded(detail.err, "error-text"));
      }
      var chart = drawWaterfall(waterfallBox, detail, function (i) {
        chart.select(i);
        drawEntry(entryBox, detail.rows[i], detail);
        setHash("#run=" + encodeURIComponent(run.id) + "&entry=" + i);
      });
      if (entry !== undefined && detail.rows[entry]) {
        chart.select(entry);
        drawEntry(entryBox, detail.rows[entry], detail);
        setHash("#run=" + encodeURIComponent(run.id) + "&entry=" + entry);
      }
      drawScores(scoresBox, detail.scores);
    }).catch(function (problem) { console.error("the run's details could not be unpacked: " + problem); });
  }

  /* ---- the URL hash: #run=ID (its first characters will do) and &entry=N -------------- */
  /* A hash that names nothing, or cannot be read, is ignored: the page is the list. */
  function route(hash) {
    var params;
    try { params = new URLSearchParams(String(hash || "").replace(/^#/, "")); } catch (ignored) { return; }
    var wanted = params.get("run");
    if (!wanted) { return; }
    var entry = /^\d+$/.test(params.get("entry") || "") ? Number(params.get("entry")) : undefined;
    for (var i = 0; i < RUNS.length; i += 1) {
      if (RUNS[i].id.indexOf(wanted) === 0) { openRun(i, entry); return; }
    }
  }

  refilter();
  route(location.hash);
  window.addEventListener("hashchange", function () { route(location.hash); });
  document.body.setAttribute("data-ready", "yes");
})();
