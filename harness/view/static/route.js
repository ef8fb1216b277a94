  /* ---- the URL hash: #run=ID (its first characters will do) and &entry=N; ------------- */
  /* #thread=ID; #compare=A,B and &case=ID. A hash that names nothing, or cannot be read, is ignored: the
     page is the list (and the compare view its first pair). Returns whether it named a pair. */
  function route(hash) {
    var params, raw = String(hash || "").replace(/^#/, "");
    try { params = new URLSearchParams(raw); } catch (ignored) { return false; }
    var named = /(?:^|&)compare=([^&]*)/.exec(raw), pair = named && pairNamed(named[1]);
    if (pair) {
      showPair(pair[0], pair[1], params.get("case"), true);
      return true;
    }
    if (params.get("thread") !== null) { return openThread(params.get("thread"), true) && false; }
    var wanted = params.get("run");
    if (!wanted) { return false; }
    var entry = /^\d+$/.test(params.get("entry") || "") ? Number(params.get("entry")) : undefined;
    for (var i = 0; i < RUNS.length; i += 1) {
      if (RUNS[i].id.indexOf(wanted) === 0) { openRun(i, entry, true); return false; }
    }
    return false;
  }

  refilter();
  /* The compare view's first pair is drawn first (above the runs: a run the hash names is
     brought into sight once it is), unless the hash names a pair. */
  var pairInHash = /(?:^|[#&])compare=([^&]*)/.exec(location.hash);
  if (COMPARE && !(pairInHash && pairNamed(pairInHash[1]))) {
    showPair(COMPARE["default"][0], COMPARE["default"][1], null, false);
  }
  route(location.hash);
  window.addEventListener("hashchange", function () { route(location.hash); });
  document.body.setAttribute("data-ready", "yes");
