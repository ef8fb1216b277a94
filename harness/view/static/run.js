  /* ---- scores ------------------------------------------------------------------------ */
  var PASS_SENTENCES = {yes: "every score that gates the run holds", no: "a score that gates the run does not hold",
    "?": "unknown: a score that could gate the run could not be made (see its error)", "—": "no score gates the run"};
  /* Every score of the run (its scores sheet: checks, judges, scorers, labels), led by its pass. */
  function drawScoreList(box, scores) {
    var word = scores.pass_unknown ? "?" : passWord(scores.passed), lead = el("p", "pass-line");
    lead.appendChild(el("span", "badge " + (word === "yes" ? "pass" : word === "no" ? "fail" : word === "?" ? "error" : "ungated"),
      "pass: " + word));
    lead.appendChild(document.createTextNode(" " + PASS_SENTENCES[word]));
    box.appendChild(lead);
    var table = el("table", "summary score-list"), head = el("tr"), body = el("tbody");
    ["score", "value", "pass", "source", "explanation or error"].forEach(function (h) { head.appendChild(el("th", "", h)); });
    table.appendChild(el("thead")).appendChild(head);
    scores.list.forEach(function (s) {
      var tr = el("tr"), gate = el("td");
      tr.dataset.score = s.name;
      tr.appendChild(el("td", "", s.rater ? s.name + " (by " + s.rater + ")" : s.name));
      tr.appendChild(el("td", "num", s.value === undefined ? "—" : num(s.value, 4)));
      if (s.error) { gate.appendChild(el("span", "badge error", "error")); }
      else if (s.passed !== undefined) { gate.appendChild(el("span", "badge " + (s.passed ? "pass" : "fail"), s.passed ? "pass" : "fail")); }
      else { gate.appendChild(el("span", "muted", "does not gate")); }
      tr.appendChild(gate);
      var made = el("td", "", (s.source || "—") + (s.scorer ? " · " + s.scorer : ""));
      var judged = (DATA.judges || {})[s.name];
      if (judged && !s.rater) { made.appendChild(el("div", "muted agreement", "agreement with people: " + judged)); }
      tr.appendChild(made);
      var said = el("td", "said");
      if (s.error) { said.appendChild(folded(s.error, "error-text")); }
      else if (s.explanation) { said.appendChild(folded(s.explanation)); }
      tr.appendChild(said);
      body.appendChild(tr);
    });
    table.appendChild(body);
    box.appendChild(table);
  }
  function drawScores(box, scores) {
    box.textContent = "";
    if (scores.list && scores.list.length) { drawScoreList(box, scores); return; }
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
  /* Bring the run view into sight unless its top already is (in the upper part of the window),
     once what the page draws above it (the compare view) is drawn. */
  function revealRun(index) {
    Promise.resolve(cmp.shown).then(function () {
      var section = document.getElementById("run"), top = section.getBoundingClientRect().top;
      if (state.selected === index && (top < 0 || top > window.innerHeight * 0.6)) {
        section.scrollIntoView({block: "start"});
      }
    });
  }
  /* Open run ``index``; ``entry``: the waterfall row to show in the panel, if any; ``reveal``:
     bring it into sight (a click on its row, a link to it). */
  function openRun(index, entry, reveal) {
    var run = RUNS[index];
    state.selected = index;
    Array.prototype.forEach.call(spacer.children, function (row) {
      row.classList.toggle("selected", Number(row.dataset.index) === index);
    });
    var section = document.getElementById("run"), header = document.getElementById("run-head");
    section.hidden = false;
    document.getElementById("thread").hidden = true;
    header.textContent = "";
    header.appendChild(el("h2", "", run.id));
    var facts = [run.wf, run.subj ? "subject " + run.subj : null,
      "started " + when(run.start || null) + " · ended " + when(run.ts) + " (" + ZONE + ")", "took " + ms(run.ms),
      num(run.tok, 6) + " tokens", "cost " + money(run.cost), run.model ? "model " + run.model : null,
      run.exp ? "experiment " + run.exp + (run.case ? " / case " + run.case : "") : null].filter(Boolean);
    var p = el("p", "facts-line");
    p.appendChild(el("span", "badge " + run.st, run.st));
    if (run.pass !== null && run.pass !== undefined) {
      p.appendChild(document.createTextNode(" "));
      p.appendChild(el("span", "badge " + (run.pass === "?" ? "error" : run.pass ? "pass" : "fail"), "pass: " + passWord(run.pass)));
    }
    p.appendChild(document.createTextNode(" " + facts.join(" · ")));
    if (run.th) { p.appendChild(document.createTextNode(" · ")); p.appendChild(threadLink(run)); }
    header.appendChild(p);
    var error = run.err ? header.appendChild(el("div", "error", run.err)) : null;
    var waterfallBox = document.getElementById("waterfall"), entryBox = document.getElementById("entry");
    var scoresBox = document.getElementById("scores");
    waterfallBox.textContent = "";
    scoresBox.textContent = "";
    entryHint(entryBox);
    setHash("#run=" + encodeURIComponent(run.id));
    if (reveal) { revealRun(index); }
    detailOf(index).then(function (detail) {
      if (state.selected !== index) { return; }
      if (error && detail.err) {  /* the whole error, where the list has its first 400 characters */
        error.textContent = "";
        error.appendChild(folded(detail.err, "error-text"));
      }
      function pick(i) {
        chart.select(i);
        drawEntry(entryBox, detail.rows[i], detail);
        setHash("#run=" + encodeURIComponent(run.id) + "&entry=" + i);
      }
      var chart = drawWaterfall(waterfallBox, detail, pick);
      if (entry !== undefined && detail.rows[entry]) { pick(entry); }
      drawScores(scoresBox, detail.scores);
    }).catch(function (problem) { console.error("the run's details could not be unpacked: " + problem); });
  }
