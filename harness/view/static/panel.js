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
      var trace = el("div");
      if (e.at) { trace.appendChild(el("p", "where", e.at)); }  /* the last frame of the exception raised last */
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
