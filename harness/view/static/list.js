  /* ---- the run list ---------------------------------------------------------------- */
  /* Each column's width, wide and narrow (<= 900 px): head and rows share one grid and one
     scrolling box, so they line up at any width. A column no run has a value for is left out. */
  var COLUMNS = [
    {key: "id", label: "run id", cls: "id", w: ["minmax(290px,2.6fr)", "minmax(80px,1.2fr)"]},
    {key: "ts", label: "ended", show: when, w: ["160px", "140px"]},
    {key: "wf", label: "workflow", w: ["minmax(90px,1fr)", "minmax(60px,1fr)"], optional: true},
    {key: "subj", label: "subject", w: ["minmax(90px,1.2fr)", "minmax(60px,1fr)"], optional: true},
    {key: "st", label: "status", w: ["90px", "76px"]},
    {key: "pass", label: "pass", show: passWord, w: ["52px", "46px"], optional: true},
    {key: "ms", label: "time", num: true, show: ms, w: ["80px", "64px"]},
    {key: "tok", label: "tokens", num: true, show: function (v) { return num(v, 6); }, w: ["75px", "60px"]},
    {key: "cost", label: "cost", num: true, show: money, w: ["105px", "88px"]},
    {key: "eval", label: "eval", num: true, show: score, w: ["55px", "44px"], optional: true},
    {key: "exp", label: "experiment", show: function (v, r) { return v ? v + (r.case ? " / " + r.case : "") : ""; },
      w: ["minmax(90px,1fr)", "minmax(72px,1fr)"], optional: true},
    {key: "th", label: "thread", show: function (v, r) { return v ? v + " · turn " + (r.turn || "?") : ""; },
      w: ["minmax(110px,1fr)", "minmax(80px,1fr)"], optional: true}
  ].filter(function (c) {
    return !c.optional || RUNS.some(function (r) {
      return r[c.key] !== null && r[c.key] !== undefined && r[c.key] !== "";
    });
  });
  var state = {order: [], sortKey: null, sortDir: 1, selected: -1};
  var list = document.getElementById("list");
  var viewport = document.getElementById("viewport");
  var spacer = document.getElementById("spacer");
  var head = document.getElementById("head");
  var filterBox = document.getElementById("filter");
  var statusBox = document.getElementById("status");
  var countBox = document.getElementById("count");
  /* What the filter searches: each run's cells as the list shows them (the experiment column's
     "base / case-3" included), then its model and its error. */
  function cellText(c, r) {
    return String(c.show ? c.show(r[c.key], r) : (r[c.key] === null || r[c.key] === undefined ? "" : r[c.key]));
  }
  var haystack = RUNS.map(function (r) {
    return COLUMNS.map(function (c) { return cellText(c, r); }).concat([r.model || "", r.err || "", r.th || ""])
      .join("\u0001").toLowerCase();
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
      var text = cellText(c, r);
      var bad = (c.key === "st" && r.st === "failed") || (c.key === "pass" && r.pass === 0);
      var unsure = c.key === "pass" && r.pass === "?";
      var cell = el("span", (c.cls || "") + (c.num ? " num" : "") + (bad ? " failed" : "") + (unsure ? " unsure" : ""), text);
      cell.setAttribute("role", "gridcell");
      cell.title = String(text);
      if (c.key === "th" && r.th) { cell.dataset.thread = r.th; cell.classList.add("link"); cell.title = "open the thread " + r.th; }
      row.appendChild(cell);
    });
    return row;
  }
  var pending = false;
  viewport.addEventListener("scroll", function () {
    if (!pending) { pending = true; requestAnimationFrame(function () { pending = false; draw(false); }); }
  });
  spacer.addEventListener("click", function (event) {
    var thread = event.target.closest("[data-thread]");
    if (thread) { openThread(thread.dataset.thread); return; }
    var row = event.target.closest(".row");
    if (row) { openRun(Number(row.dataset.index), undefined, true); }
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
