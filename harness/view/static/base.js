/* The run report's script, in parts that share one scope: report.py puts them, in the order
   of its SCRIPT_PARTS, inside one function. This part: the inline data, the runs' details
   (unpacked when opened) and formatting. Then list.js (the run list), waterfall.js (a run's
   calls on a time axis), panel.js (one call in full), run.js (a run's scores and the run
   view), compare.js (two experiments case by case, with the statistics of harness compare)
   and route.js (the URL hash, and the start).

   Data comes from the inline #report-data element; every text from it is set with
   textContent, never parsed as HTML (a pair's statistics are HTML the report was written
   with, in a <template>, cloned as it is). The parts draw into the element they are given
   (waterfall, entry panel, scores), so the compare view draws two runs side by side with the
   same code; the URL hash is read in one place (route). */
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
  /* A run's pass (runs.passed): yes, no, ? when a score that could gate it could not be made, or — when none gates it. */
  function passWord(v) { return v === "?" ? "?" : v === null || v === undefined ? "—" : v ? "yes" : "no"; }
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
  /* ``text`` into ``node``, free to break after its underscores (a score named agent_metrics). */
  function breakable(node, text) {
    String(text).split("_").forEach(function (part, i, parts) {
      node.appendChild(document.createTextNode(part + (i < parts.length - 1 ? "_" : "")));
      if (i < parts.length - 1) { node.appendChild(document.createElement("wbr")); }
    });
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
