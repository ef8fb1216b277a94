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
  /* How long ``detail``'s timeline is (ms): the run's, else its calls' extent. */
  function spanOf(detail) {
    return detail.span > 0 ? detail.span : Math.max.apply(null, detail.rows.map(function (e) { return (e.t || 0) + (e.d || 0); })) || 1;
  }
  /* Draw ``detail``'s rows into ``box``; ``pick(i)`` is called when row i is opened (a click,
     or Enter or Space on the focused row; the arrow keys, Home and End move the focus);
     ``axis``: the time axis's length in ms when it is shared with another run's (the longer).
     Returns {select(i)}: mark row i as the one the panel shows. */
  /* A run of several agents: each row's agent as a coloured band at its left edge, with a key.
     The colours keep clear of the error red and its neighbours (hues 40-320), so no agent's
     band reads as a failure: a palette of distinct ones, then hues spread by the golden angle. */
  var AGENT_PALETTE = ["#4e79a7", "#59a14f", "#b07aa1", "#e0b12e", "#17becf", "#6b6ecf", "#bcbd22", "#76b7b2",
    "#9467bd", "#e377c2"];
  function agentColour(i) {
    return i < AGENT_PALETTE.length ? AGENT_PALETTE[i] : "hsl(" + (40 + Math.round(i * 137.5) % 280) + ",55%,45%)";
  }
  function agentColours(agents, box) {
    var colours = {}, names = [];
    agents.forEach(function (a) {
      if (a && !(a in colours)) { colours[a] = agentColour(names.length); names.push(a); }
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

  function drawWaterfall(box, detail, pick, axis) {
    var rows = detail.rows, agents = detail.agents || [], handoffs = detail.handoffs || [];
    box.textContent = "";
    if (!rows.length) { box.appendChild(el("p", "muted", "No node, model or tool call was recorded.")); return {select: function () {}}; }
    var colours = agentColours(agents, box), band = agents.length ? 8 : 0;
    var width = Math.max(600, box.clientWidth || 900), labelW = Math.min(320, Math.round(width * 0.3));
    var barsW = width - labelW - 16, rowH = 22, top = 22, height = top + rows.length * rowH + 4;
    var span = Math.max(spanOf(detail), axis || 0);
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
