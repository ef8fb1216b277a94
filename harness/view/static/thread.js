  /* ---- one conversation: #thread=ID ------------------------------------------------- */
  /* A thread's turns are the report's runs of that thread (their list fields th, turn and
     wait), in turn order; what each turn said (its input or the answer it resumed with, the
     questions it stopped at, its output) comes from its packed details. The totals are the
     sums of the turns' own figures, as harness threads adds them. */
  function threadRuns(id) {
    var found = [];
    for (var i = 0; i < RUNS.length; i += 1) { if (RUNS[i].th === id) { found.push(i); } }
    return found.sort(function (a, b) {
      return (RUNS[a].turn || 0) - (RUNS[b].turn || 0) || String(RUNS[a].start).localeCompare(String(RUNS[b].start));
    });
  }
  function sumOf(indices, key) {
    var seen = false, sum = 0;
    indices.forEach(function (i) { var v = RUNS[i][key]; if (v !== null && v !== undefined) { seen = true; sum += v; } });
    return seen ? sum : null;
  }
  function threadStatus(last) { return last.st === "failed" ? "failed" : last.wait ? "waiting" : "completed"; }
  function threadLink(run) {
    var link = el("a", "thread-link", "turn " + (run.turn || "?") + " of thread " + run.th);
    link.href = "#thread=" + encodeURIComponent(run.th);
    link.addEventListener("click", function (event) { event.preventDefault(); openThread(run.th, true); });
    return link;
  }
  function said(box, label, text, cls) {
    if (text === undefined || text === null) { return; }
    box.appendChild(el("dt", "", label));
    var dd = box.appendChild(el("dd", cls || ""));
    dd.appendChild(folded(String(text)));
  }
  /* Open thread ``id``; reveal: scroll it into sight. Returns whether the report has it. */
  function openThread(id, reveal) {
    var indices = threadRuns(id), section = document.getElementById("thread");
    if (!indices.length) { return false; }
    document.getElementById("run").hidden = true;
    section.hidden = false;
    section.textContent = "";
    section.dataset.thread = id;
    delete section.dataset.ready;
    var last = RUNS[indices[indices.length - 1]], status = threadStatus(last);
    section.appendChild(el("h2", "", "Thread " + id));
    var passes = indices.map(function (i) { return RUNS[i].pass; }).filter(function (p) { return p !== null && p !== undefined; });
    var facts = el("p", "facts-line");
    facts.appendChild(el("span", "badge " + (status === "waiting" ? "interrupted" : status), status));
    facts.appendChild(document.createTextNode(" " + [indices.length + (indices.length === 1 ? " turn" : " turns"),
      "from " + when(RUNS[indices[0]].start || null) + " to " + when(last.ts) + " (" + ZONE + ")",
      "took " + ms(sumOf(indices, "ms")), num(sumOf(indices, "tok"), 6) + " tokens", "cost " + money(sumOf(indices, "cost")),
      "pass " + (passes.length ? passWord(passes.every(Boolean) ? 1 : 0) : "—")].join(" · ")));
    section.appendChild(facts);
    section.appendChild(el("p", "muted", "Time, tokens and cost are the sums of the turns' own figures. " +
      "Open a turn's run to see its calls."));
    var list = section.appendChild(el("ol", "turns"));
    var pending = indices.map(function (index) {
      var run = RUNS[index], item = list.appendChild(el("li", "turn"));
      item.dataset.run = run.id;
      var head = item.appendChild(el("div", "turn-head"));
      head.appendChild(el("strong", "", "turn " + (run.turn || "?")));
      head.appendChild(document.createTextNode(" "));
      head.appendChild(el("span", "badge " + run.st, run.st));
      if (run.wait) { head.appendChild(document.createTextNode(" ")); head.appendChild(el("span", "badge interrupted", "waiting for an answer")); }
      if (run.pass !== null && run.pass !== undefined) {
        head.appendChild(document.createTextNode(" "));
        head.appendChild(el("span", "badge " + (run.pass ? "pass" : "fail"), "pass: " + passWord(run.pass)));
      }
      var link = el("a", "run-link", run.id);
      link.href = "#run=" + encodeURIComponent(run.id);
      link.addEventListener("click", function (event) { event.preventDefault(); openRun(index); });
      head.appendChild(document.createTextNode(" "));
      head.appendChild(link);
      head.appendChild(document.createTextNode(" · " + ms(run.ms) + " · " + num(run.tok, 6) + " tokens · " + money(run.cost)));
      var box = item.appendChild(el("dl", "turn-said"));
      if (run.err) { said(box, "error", run.err, "error-text"); }
      return detailOf(index).then(function (detail) {
        var t = detail.turn || {};
        said(box, "answer", t.a);
        said(box, "input", t["in"]);
        (t.q || []).forEach(function (q) { said(box, "asked", q[1] + (q[0] ? "  (" + q[0] + ")" : ""), "asked"); });
        said(box, "output", t.out);
      });
    });
    setHash("#thread=" + encodeURIComponent(id));
    if (reveal) { section.scrollIntoView(); }
    Promise.all(pending).then(function () { section.dataset.ready = "yes"; })
      .catch(function (problem) { console.error("the thread's turns could not be unpacked: " + problem); });
    return true;
  }
