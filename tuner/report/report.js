// Draws the AdaExplore tuning report from window.ADAEXPLORE_REPORT (tuner/src/emit/report.hpp lists its
// fields) with Chart.js when it is inlined (window.Chart), tables otherwise. When done it sets on
// <html>: data-report-status="ok", data-charts (charts drawn), data-blank-charts (charts whose
// canvas has no drawn pixel), read by the headless-browser test (tests/cli/report_browser_test.cmake).
(function () {
  "use strict";
  var D = window.ADAEXPLORE_REPORT;
  var LIB = window.ADAEXPLORE_LIBRARY;
  var HAVE_CHART = typeof window.Chart === "function";
  var root = document.getElementById("report");
  var charts = [];

  var STATUS_COLOURS = {
    ok: "#2da44e", slow: "#9a6700", compile_error: "#8250df", resource_limit: "#0969da",
    launch_error: "#bf3989", crash: "#cf222e", wrong_result: "#fb8500", timeout: "#57606a", invalid: "#afb8c1"
  };
  var STATUS_WORDS = {
    ok: "ok", slow: "slow (significantly slower than the defaults)", compile_error: "compile error",
    resource_limit: "resource limit", launch_error: "launch error", crash: "crash", wrong_result: "wrong result",
    timeout: "time-out", invalid: "invalid"
  };

  function el(tag, attrs, children) {
    var e = document.createElement(tag);
    if (attrs) for (var k in attrs) {
      if (k === "text") e.textContent = attrs[k];
      else if (k === "class") e.className = attrs[k];
      else e.setAttribute(k, attrs[k]);
    }
    (children || []).forEach(function (c) { if (c !== null && c !== undefined) e.appendChild(typeof c === "string" ? document.createTextNode(c) : c); });
    return e;
  }
  function add(parent, tag, attrs, children) { var e = el(tag, attrs, children); parent.appendChild(e); return e; }
  function fmt(x, digits) {
    if (x === null || x === undefined || isNaN(x)) return "-";
    var a = Math.abs(x);
    if (a !== 0 && (a >= 1e6 || a < 1e-3)) return x.toExponential(2);
    return x.toLocaleString("en-US", { maximumSignificantDigits: digits || 4 });
  }
  function ms(x) { return x === null || x === undefined ? "-" : fmt(x, 5) + " ms"; }
  function secs(x) { return x === null || x === undefined ? "-" : fmt(x, 3) + " s"; }
  function bytes(x) {
    if (x === null || x === undefined) return "-";
    if (x >= 1 << 20) return fmt(x / (1 << 20), 4) + " MiB";
    if (x >= 1024) return fmt(x / 1024, 4) + " KiB";
    return x + " B";
  }
  function table(parent, head, rows, numeric) {
    var t = add(parent, "table");
    if (head.some(function (h) { return h !== ""; })) {
      var tr = add(add(t, "thead"), "tr");
      head.forEach(function (h, i) { add(tr, "th", { text: h, class: numeric && numeric[i] ? "num" : "" }); });
    }
    var body = add(t, "tbody");
    rows.forEach(function (r) {
      var row = add(body, "tr");
      r.forEach(function (c, i) {
        var td = add(row, "td", { class: numeric && numeric[i] ? "num" : "" });
        if (c instanceof Node) td.appendChild(c); else td.textContent = c === null || c === undefined ? "-" : String(c);
      });
    });
    return t;
  }
  function section(title, id) {
    var s = add(root, "section", { id: id });
    add(s, "h2", { text: title });
    return s;
  }
  function notice(parent, text) { return add(parent, "p", { class: "notice", text: text }); }
  function kpi(parent, value, key) {
    var b = add(parent, "div", { class: "kpi" });
    add(b, "div", { class: "v", text: value });
    add(b, "div", { class: "k", text: key });
  }
  function chartBox(parent, cls) {
    var box = add(parent, "div", { class: "chart" + (cls ? " " + cls : "") });
    return add(box, "canvas");
  }
  function chart(canvas, config) {
    if (!HAVE_CHART) return null;
    config.options = config.options || {};
    config.options.animation = false;          // drawn at once: printable, and testable headless
    config.options.responsive = true;
    config.options.maintainAspectRatio = false;
    var c = new window.Chart(canvas.getContext("2d"), config);
    charts.push(c);
    return c;
  }
  function legend(parent, statuses) {
    var l = add(parent, "div", { class: "legend" });
    statuses.forEach(function (s) { add(l, "span", { style: "--c:" + STATUS_COLOURS[s], text: STATUS_WORDS[s] || s }); });
  }
  function usedStatuses() {
    var seen = {};
    D.evaluations.forEach(function (e) { seen[e.status] = true; });
    return D.statuses.filter(function (s) { return seen[s]; });
  }
  function configText(e) { return e.label; }

  // ---- header -------------------------------------------------------------------------------
  function header() {
    var m = D.meta, s = D.summary;
    var title = m.kernel + (m.size ? " at " + m.size : "");
    add(root, "h1", { text: "Tuning report: " + title });
    var dev = m.device && m.device.name ? m.device.name + (m.device.compute_capability ? " (compute capability " + m.device.compute_capability + (m.device.sm_count ? ", " + m.device.sm_count + " SMs" : "") + ")" : "") : "unknown device";
    add(root, "p", { class: "sub", text: (m.kind === "replay" ? "Replay of recorded evaluations" : "Tuning") + " on " + dev +
      (m.strategy ? " with strategy " + m.strategy : "") + (m.started ? ", started " + m.started : "") + (m.host ? " on host " + m.host : "") +
      ". Source: " + m.source + (m.key ? " (key " + m.key.slice(0, 12) + ")" : "") + "." });
    if (!HAVE_CHART)
      notice(root, LIB ? "Charts are missing: " + LIB.path + " was inlined as Chart.js " + LIB.version + " but defines no Chart, so only the tables are shown."
        : "Charts are missing: Chart.js was not found when this report was written (Debian: apt-get install libjs-chart.js, or set ADAEXPLORE_CHARTJS), so only the tables are shown.");
    var h = add(root, "div", { class: "headline" });
    kpi(h, ms(s.best_ms), "winner");
    kpi(h, ms(s.defaults_ms), "defaults");
    kpi(h, s.speedup ? fmt(s.speedup, 3) + "x" : "-", "speedup over the defaults");
    kpi(h, String(s.evaluations), "evaluations (" + s.failures + " failed)");
    if (s.evaluations_to_best) kpi(h, "#" + s.evaluations_to_best + (s.time_to_best_s !== null ? " / " + secs(s.time_to_best_s) : ""), "winner found at evaluation / time");
    if (s.wall_s !== null) kpi(h, secs(s.wall_s), "wall time of the evaluations" + (s.sessions > 1 ? " (" + s.sessions + " sessions, the gaps between them left out)" : ""));
  }

  // ---- winner card ----------------------------------------------------------------------------
  function winnerCard() {
    var sec = section("The winner", "winner");
    var w = D.winner;
    if (!w) { notice(sec, "No configuration succeeded, so there is no winner."); return; }
    var confirmed = w.confirmation && w.confirmation.rounds;
    var rows = [["configuration", el("code", { text: w.label })],
      [confirmed ? "time (median of the near-tie rounds)" : "time (median)", ms(w.objective_ms)]];
    if (confirmed) rows.push(["near-tie re-measurement", w.confirmation.rounds + " interleaved rounds over " + (w.confirmation.contenders || []).length + " contenders" + (w.confirmation.changed ? "; it changed the winner" : "")]);
    if (w.timing) {
      var runs = (confirmed ? "in the tuning: median " + ms(w.timing.median_ms) + ", " : "") + w.timing.samples + " runs";
      if (w.ci) rows.push(["median's confidence interval", ms(w.ci.low_ms) + " to " + ms(w.ci.high_ms) + " (" + fmt(100 * w.ci.level, 3) + " % coverage, order statistics of the runs " + runs + ")"]);
      else rows.push(["spread of the runs", ms(w.timing.min_ms) + " to " + ms(w.timing.max_ms) + " (" + runs + "; too few for an interval)"]);
    }
    rows.push(["speedup over the defaults", w.speedup ? fmt(w.speedup, 4) + "x" : "-"]);
    (w.resources || []).forEach(function (r) {
      rows.push(["kernel " + (r.arch ? "(" + r.arch + ")" : ""), el("code", { text: r.kernel })]);
      rows.push(["registers per thread / shared memory", r.registers + " / " + bytes(r.shared_bytes) + " static per block"]);
      rows.push(["spills (store / load) / stack", bytes(r.spill_store_bytes) + " / " + bytes(r.spill_load_bytes) + " / " + bytes(r.stack_bytes) +
        (r.spill_store_bytes || r.spill_load_bytes ? " (spills: registers went to local memory)" : "")]);
    });
    if (w.launch) rows.push(["occupancy (theoretical)", fmt(100 * w.launch.occupancy, 3) + " % (" + w.launch.blocks_per_sm + " blocks of " + w.launch.threads_per_block + " threads, " + w.launch.warps_per_sm + " warps per SM)"]);
    var f = w.figures || {}, p = w.peak || {};
    if (f["GB/s"] !== undefined) rows.push(["achieved bandwidth", fmt(f["GB/s"], 4) + " GB/s" + (p["GB/s"] ? " = " + fmt(100 * f["GB/s"] / p["GB/s"], 3) + " % of the device's peak " + fmt(p["GB/s"], 4) + " GB/s" : "") + " (" + bytes(f.bytes) + " declared by the benchmark)"]);
    if (f["GFLOP/s"] !== undefined) rows.push(["achieved arithmetic", fmt(f["GFLOP/s"], 4) + " GFLOP/s" + (p["GFLOP/s"] ? " = " + fmt(100 * f["GFLOP/s"] / p["GFLOP/s"], 3) + " % of the device's FP32 peak " + fmt(p["GFLOP/s"], 4) + " GFLOP/s" : "") + " (" + fmt(f.flops, 4) + " operations declared by the benchmark)"]);
    table(sec, ["", ""], rows);
    var d = D.defaults;
    var cmp = [];
    D.parameters.forEach(function (par) {
      var wv = w.config[par.name];
      var dv = d ? par.values[D.evaluations[d.n - 1].values[D.parameters.indexOf(par)]] : null;
      cmp.push([par.name, el("code", { text: String(wv) }), dv === null ? "-" : el("code", { text: String(dv) }), dv !== null && String(dv) !== String(wv) ? "changed" : ""]);
    });
    add(sec, "h3", { text: "Winner against the defaults, parameter by parameter" });
    table(sec, ["parameter", "winner", "defaults", ""], cmp);
    if (w.near_ties && w.near_ties.length) {
      add(sec, "h3", { text: "Near-ties (within " + fmt(100 * D.summary.near_tie_margin, 2) + " % of the winner, in the tuning)" });
      table(sec, ["configuration", "time", "vs winner"], w.near_ties.slice(0, 10).map(function (t) {
        return [el("code", { text: t.label }), ms(t.objective_ms), "+" + fmt(100 * (t.ratio - 1), 2) + " %"];
      }), [false, true, true]);
    } else add(sec, "p", { class: "muted", text: "No other configuration came within " + fmt(100 * D.summary.near_tie_margin, 2) + " % of the winner." });
  }

  // ---- the model's predictions -----------------------------------------------------------------
  // What the strategy's model believed of the finalists when it proposed them (D.model), next to
  // what was measured. Absent when no evaluation records a belief (a strategy without a model, or
  // results written before 2026-12-06).
  function modelSection() {
    var M = D.model;
    if (!M) return;
    var sec = section("Predicted vs measured: what the model believed of the finalists", "model");
    add(sec, "p", { class: "muted", text: "When it proposed a configuration, the strategy's performance model predicted its time (with the spread of its trees, a 68 % interval) and the knowledge base its probability of failing; " +
      M.believed + " of the " + D.evaluations.length + " evaluations record such a belief (extra.model; the defaults and a warm start of winners, from other sizes or other GPUs, have none). " +
      "A later size's start is predicted relative to that size's mean time (\"relative\"), from the other sizes' evaluations." });
    table(sec, ["#", "configuration", "measured", "predicted", "measured / predicted", "P(fail)"], M.finalists.map(function (f) {
      var predicted = "-";
      if (f.predicted_ms !== null) predicted = ms(f.predicted_ms) + (f.interval_ms ? " (" + fmt(f.interval_ms[0], 4) + " to " + fmt(f.interval_ms[1], 4) + ")" : "");
      else if (f.predicted_relative !== null) predicted = fmt(f.predicted_relative, 3) + "x the mean, relative" + (f.source ? " (" + f.source + ")" : "");
      else predicted = "no prediction";
      var ratio = f.ratio !== null ? fmt(f.ratio, 3) + "x" + (f.interval_ms ? (f.measured_ms < f.interval_ms[0] ? ", faster than its interval" : f.measured_ms > f.interval_ms[1] ? ", slower than its interval" : ", within its interval") : "") : "-";
      return [String(f.n), el("code", { text: f.label + (f.winner ? " (winner)" : "") }), ms(f.measured_ms), predicted, ratio, f.p_fail !== null ? fmt(f.p_fail, 2) : "-"];
    }), [true, false, true, true, true, true]);
  }

  // ---- search progress ------------------------------------------------------------------------
  function progress() {
    var sec = section("The search", "search");
    add(sec, "p", { class: "muted", text: "Every evaluation, coloured by its status; the line is the best time so far, the dashed line the defaults. Failed evaluations have no time: they are drawn as crosses above the slowest success." });
    legend(sec, usedStatuses());
    var evs = D.evaluations;
    var ok = evs.filter(function (e) { return e.objective_ms !== null; });
    if (!ok.length) { notice(sec, "No evaluation succeeded."); return; }
    var top = Math.max.apply(null, ok.map(function (e) { return e.objective_ms; })) * 1.15;
    var grid = add(sec, "div", { class: "grid2" });
    var byTime = D.summary.timestamps;
    [["n", "evaluation"], ["elapsed_s", "wall time (s)"]].forEach(function (axis) {
      var key = axis[0];
      var box = add(grid, "div");
      add(box, "h3", { text: "Best so far against " + (key === "n" ? "evaluations" : "wall time") });
      if (key === "elapsed_s" && !byTime) {
        notice(box, D.meta.kind === "replay" ? "A replay has no wall time." : "These records carry no \"finished\" time (written before 2026-12-02), so there is no wall-time axis.");
        return;
      }
      var datasets = [];
      usedStatuses().forEach(function (s) {
        var pts = evs.filter(function (e) { return e.status === s; }).map(function (e) {
          return { x: e[key], y: e.objective_ms !== null ? e.objective_ms : top, e: e };
        });
        datasets.push({ type: "scatter", label: STATUS_WORDS[s] || s, data: pts, backgroundColor: STATUS_COLOURS[s], borderColor: STATUS_COLOURS[s],
          pointStyle: s === "ok" || s === "slow" ? "circle" : "crossRot", pointRadius: s === "ok" || s === "slow" ? 3 : 5, pointBorderWidth: s === "ok" || s === "slow" ? 1 : 2 });
      });
      var best = evs.filter(function (e) { return e.best_ms !== null; }).map(function (e) { return { x: e[key], y: e.best_ms }; });
      datasets.push({ type: "line", label: "best so far", data: best, borderColor: "#1d2430", borderWidth: 2, pointRadius: 0, stepped: true, fill: false });
      if (D.summary.defaults_ms !== null) {
        var xs = evs.map(function (e) { return e[key]; });
        datasets.push({ type: "line", label: "defaults", data: [{ x: Math.min.apply(null, xs), y: D.summary.defaults_ms }, { x: Math.max.apply(null, xs), y: D.summary.defaults_ms }],
          borderColor: "#6e7781", borderDash: [6, 4], borderWidth: 1.5, pointRadius: 0 });
      }
      chart(chartBox(box), { data: { datasets: datasets }, options: {
        parsing: false,
        scales: { x: { type: "linear", title: { display: true, text: axis[1] } }, y: { type: "logarithmic", title: { display: true, text: "time (ms, log scale)" } } },
        plugins: { legend: { display: false }, tooltip: { callbacks: { label: function (c) {
          var e = c.raw.e; if (!e) return c.dataset.label + ": " + ms(c.raw.y);
          return "#" + e.n + " " + e.label + ": " + (e.objective_ms !== null ? ms(e.objective_ms) : e.status + (e.message ? " - " + e.message : ""));
        } } } } } });
      if (!HAVE_CHART) {
        var milestones = evs.filter(function (e, i) { return e.best_ms !== null && (i === 0 || evs[i - 1].best_ms !== e.best_ms); });
        table(box, ["evaluation", "wall time", "new best", "configuration"], milestones.map(function (e) { return ["#" + e.n, secs(e.elapsed_s), ms(e.best_ms), el("code", { text: e.label })]; }), [true, true, true, false]);
      }
    });
    var counts = D.summary.counts;
    table(sec, ["status", "evaluations"], D.statuses.filter(function (s) { return counts[s]; }).map(function (s) { return [STATUS_WORDS[s] || s, counts[s]]; }), [false, true]);
  }

  // ---- failure map ----------------------------------------------------------------------------
  function dominantFailure(counts) {
    var best = null;
    for (var s in counts) if (s !== "ok" && s !== "slow" && (!best || counts[s] > counts[best])) best = s;
    return best;
  }
  function failureMap() {
    var sec = section("Where the failures are", "failures");
    var fm = D.failure_map;
    if (!fm.failures) { add(sec, "p", { text: "No evaluation failed." }); return; }
    add(sec, "p", { class: "muted", text: fm.failures + " of " + D.summary.evaluations + " evaluations failed. Each chart is a pair of parameters, chosen because its cells separate failures from successes best; a bubble is one cell (a value of each), its size the evaluations there, its colour the most common failure (green: none failed), its opacity the failed share." });
    legend(sec, usedStatuses());
    var grid = add(sec, "div", { class: "grid2" });
    fm.pairs.forEach(function (pair) {
      var px = D.parameters[pair.x], py = D.parameters[pair.y];
      var box = add(grid, "div");
      add(box, "h3", { text: px.name + " x " + py.name });
      var maxTotal = Math.max.apply(null, pair.cells.map(function (c) { return c.total; }));
      var pts = pair.cells.map(function (c) {
        var s = dominantFailure(c.counts) || "ok";
        var share = c.failures / c.total;
        return { x: c.xi, y: c.yi, r: 4 + 12 * Math.sqrt(c.total / maxTotal), cell: c, s: s, share: share };
      });
      chart(chartBox(box, "small"), { type: "bubble", data: { datasets: [{ data: pts,
        backgroundColor: pts.map(function (p) { return hexAlpha(STATUS_COLOURS[p.s], p.s === "ok" ? 0.55 : 0.35 + 0.6 * p.share); }),
        borderColor: pts.map(function (p) { return STATUS_COLOURS[p.s]; }) }] },
        options: { scales: {
          x: categoryAxis(px), y: categoryAxis(py) },
          plugins: { legend: { display: false }, tooltip: { callbacks: { label: function (c) {
            var cell = c.raw.cell, parts = [];
            for (var s in cell.counts) parts.push(cell.counts[s] + " " + s);
            return px.name + "=" + px.values[cell.xi] + ", " + py.name + "=" + py.values[cell.yi] + ": " + parts.join(", ");
          } } } } } });
      if (!HAVE_CHART) table(box, [px.name, py.name, "evaluations", "failed", "statuses"], pair.cells.filter(function (c) { return c.failures; }).map(function (c) {
        var parts = []; for (var s in c.counts) parts.push(c.counts[s] + " " + s);
        return [px.values[c.xi], py.values[c.yi], c.total, c.failures, parts.join(", ")];
      }), [false, false, true, true, false]);
    });
    var examples = {};
    D.evaluations.forEach(function (e) { if (e.message && !examples[e.status]) examples[e.status] = e; });
    var rows = Object.keys(examples).map(function (s) { return [STATUS_WORDS[s] || s, el("code", { text: examples[s].label }), examples[s].message]; });
    if (rows.length) { add(sec, "h3", { text: "One diagnostic of each failure kind" }); table(sec, ["status", "configuration", "first line of the diagnostic"], rows); }
  }
  // A linear axis whose ticks are a parameter's values at 0, 1, ... (bubble charts need numbers).
  function categoryAxis(par) {
    return { type: "linear", min: -0.5, max: par.values.length - 0.5, grid: { offset: false },
      afterBuildTicks: function (axis) { axis.ticks = par.values.map(function (_, i) { return { value: i }; }); },
      ticks: { autoSkip: false, callback: function (v) { return par.values[v] !== undefined ? par.values[v] : ""; } },
      title: { display: true, text: par.name } };
  }
  function hexAlpha(hex, a) {
    var n = parseInt(hex.slice(1), 16);
    return "rgba(" + (n >> 16 & 255) + "," + (n >> 8 & 255) + "," + (n & 255) + "," + Math.max(0.1, Math.min(1, a)).toFixed(2) + ")";
  }

  // ---- parameter effects ----------------------------------------------------------------------
  function effects() {
    var sec = section("What each parameter does", "parameters");
    add(sec, "p", { class: "muted", text: "Per value of each parameter: the best and the median time of its successful evaluations (bars, ms, left axis) and the share of its evaluations that failed (line, %, right axis). The winner's value is marked with a star." });
    var grid = add(sec, "div", { class: "grid2" });
    D.effects.forEach(function (eff) {
      var box = add(grid, "div");
      add(box, "h3", { text: eff.parameter });
      var winnerValue = D.winner ? String(D.winner.config[eff.parameter]) : null;
      var labels = eff.values.map(function (v) { return String(v.value) === winnerValue ? v.value + " *" : v.value; });
      chart(chartBox(box, "small"), { data: { labels: labels, datasets: [
        { type: "bar", label: "best (ms)", data: eff.values.map(function (v) { return v.best_ms; }), backgroundColor: "#1f6feb", yAxisID: "y" },
        { type: "bar", label: "median (ms)", data: eff.values.map(function (v) { return v.median_ms; }), backgroundColor: "#9ecbff", yAxisID: "y" },
        { type: "line", label: "failed (%)", data: eff.values.map(function (v) { return v.evaluations ? 100 * (v.evaluations - v.successes) / v.evaluations : null; }), borderColor: "#cf222e", backgroundColor: "#cf222e", yAxisID: "f", pointRadius: 3 }] },
        options: { scales: { y: { beginAtZero: true, title: { display: true, text: "ms" } }, f: { position: "right", min: 0, max: 100, grid: { drawOnChartArea: false }, title: { display: true, text: "failed %" } } },
          plugins: { legend: { display: true, position: "bottom", labels: { boxWidth: 10 } } } } });
      if (!HAVE_CHART) table(box, ["value", "evaluations", "best", "median", "failures"], eff.values.map(function (v) {
        var parts = []; for (var s in v.failures) parts.push(v.failures[s] + " " + s);
        return [v.value, v.evaluations, ms(v.best_ms), ms(v.median_ms), parts.join(", ") || "-"];
      }), [false, true, true, true, false]);
    });
  }

  // ---- rules ----------------------------------------------------------------------------------
  function rules() {
    var sec = section("What the tuner learned", "rules");
    add(sec, "p", { class: "muted", text: "The knowledge base's rules (adaexplore-tuner explain), each with the evaluations behind it, and the failures that line up with one parameter value." });
    var lines = (D.rules.lines || []).concat((D.rules.failures || []).map(function (l) { return "failures: " + l; }));
    if (!lines.length) { add(sec, "p", { text: "Nothing was learned: too few evaluations or no failures." }); return; }
    var ul = add(sec, "ul", { class: "rules" });
    lines.forEach(function (l) { add(ul, "li", { text: l.replace(/^\s+/, "") }); });
  }

  // ---- pipeline -------------------------------------------------------------------------------
  function pipeline() {
    var sec = section("Where the time went", "pipeline");
    var p = D.pipeline;
    if (!p) { add(sec, "p", { text: D.meta.kind === "replay" ? "A replay runs nothing: no stage times." : "The records carry no stage times." }); return; }
    var h = add(sec, "div", { class: "headline" });
    kpi(h, fmt(p.evaluations_per_minute, 3), "evaluations per minute");
    kpi(h, fmt(p.timing_pct, 3) + " %", "of the wall time the GPU spent timing kernels" + (p.timing_source ? " (" + p.timing_source + ")" : ""));
    kpi(h, secs(p.wall_s), "wall time");
    add(sec, "p", { class: "muted", text: "Total time per stage over the evaluations. Render and compile run in parallel workers, overlapping the measurements, so their totals can exceed the wall time." });
    var stages = p.stages.filter(function (s) { return s.name.indexOf(".") < 0; });
    chart(chartBox(sec, "small"), { type: "bar", data: { labels: stages.map(function (s) { return s.name + (s.parallel ? " (parallel)" : ""); }),
      datasets: [{ label: "total (s)", data: stages.map(function (s) { return s.total_ms / 1000; }), backgroundColor: stages.map(function (s) { return s.parallel ? "#8250df" : "#1f6feb"; }) }] },
      options: { indexAxis: "y", scales: { x: { title: { display: true, text: "total seconds" } } }, plugins: { legend: { display: false } } } });
    table(sec, ["stage", "evaluations", "total", "median", "max", "% of wall"], p.stages.map(function (s) {
      return [s.name + (s.parallel ? " (parallel)" : ""), s.count, secs(s.total_ms / 1000), ms(s.median_ms), ms(s.max_ms), fmt(s.share_pct, 3)];
    }), [false, true, true, true, true, true]);
  }

  // ---- profiles -------------------------------------------------------------------------------
  function metricValue(result, name) {
    var m = result.launch && result.launch.metrics ? result.launch.metrics[name] : null;
    return m ? m.value : null;
  }
  // ncu's base units (--print-units base) in the units of the rest of the report.
  function metricText(result, name) {
    var v = metricValue(result, name);
    if (v === null || v === undefined) return "-";
    if (typeof v !== "number") return String(v);
    var unit = result.launch.metrics[name].unit || "";
    if (unit === "ns" || unit === "nsecond") return fmt(v / 1e6, 5) + " ms";
    if (/^byte\/s/.test(unit)) return fmt(v / 1e9, 4) + " GB/s";
    if (unit === "%") return fmt(v, 4) + " %";
    if (unit === "register/thread") return fmt(v, 4);
    return fmt(v, 4) + (unit ? " " + unit : "");
  }
  function ratioText(a, b) {
    if (typeof a !== "number" || typeof b !== "number" || b === 0) return "-";
    return fmt(a / b, 3) + "x";
  }
  // The stall reasons, largest first (profile.hpp top_stalls, computed when the profile was taken).
  function stallsOf(result) { return result.stalls || []; }
  function profiles() {
    var sec = section("Profiles of the finalists (Nsight Compute)", "profiles");
    var P = D.profiles;
    if (P.state === "not run") {
      notice(sec, "Not profiled: " + (P.note || "no profile is recorded beside these results") + ". With Nsight Compute (ncu) installed, `adaexplore-tuner tune --profile` (CMake: -DADAEXPLORE_PROFILE=<kernel> or ALL) profiles the winner, the defaults and up to 3 finalists once after the search.");
      return;
    }
    var done = P.results.filter(function (r) { return !r.error; });
    add(sec, "p", { class: "muted", text: "Each configuration run once more under Nsight Compute " + (P.tool || "").replace(/^Version /, "") + (P.profiled ? " on " + P.profiled : "") + " after the search (clocks not locked: --clock-control none), one launch of the tuned kernel profiled. The counters say why the winner is faster: its memory traffic, how full the SMs are, and what its warps wait on." });
    P.results.filter(function (r) { return r.error; }).forEach(function (r) { notice(sec, r.role + " (" + r.label + "): " + r.error); });
    if (!done.length) return;
    table(sec, ["role", "configuration", "profiled in"], done.map(function (r) { return [r.role, el("code", { text: r.label }), secs(r.wall_s)]; }));
    var winner = done.filter(function (r) { return r.role === "winner"; })[0];
    var defaults = done.filter(function (r) { return r.role === "defaults"; })[0];
    var compare = winner && defaults;
    var head = ["counter"].concat(done.map(function (r) { return r.role; }));
    if (compare) head.push("winner / defaults");
    var numeric = head.map(function (_, i) { return i > 0; });
    var rows = [];
    (P.metrics || []).forEach(function (c) {
      if (!done.some(function (r) { return metricValue(r, c.name) !== null && metricValue(r, c.name) !== undefined; })) return;
      var row = [c.label].concat(done.map(function (r) { return metricText(r, c.name); }));
      if (compare) row.push(ratioText(metricValue(winner, c.name), metricValue(defaults, c.name)));
      rows.push(row);
    });
    var stallRow = ["top warp stalls (warps stalled per issued instruction)"].concat(done.map(function (r) {
      return stallsOf(r).slice(0, 3).map(function (s) { return s.reason + " " + fmt(s.value, 3); }).join(", ");
    }));
    if (compare) stallRow.push("");
    rows.push(stallRow);
    table(sec, head, rows, numeric);
    var reasons = {};
    done.forEach(function (r) { stallsOf(r).slice(0, 6).forEach(function (s) { reasons[s.reason] = true; }); });
    var names = Object.keys(reasons);
    var palette = ["#1f6feb", "#6e7781", "#2da44e", "#bf3989", "#9a6700", "#8250df"];
    add(sec, "h3", { text: "Warp stall reasons" });
    chart(chartBox(sec, "small"), { type: "bar", data: { labels: names, datasets: done.map(function (r, i) {
      var byReason = {}; stallsOf(r).forEach(function (s) { byReason[s.reason] = s.value; });
      return { label: r.role, data: names.map(function (n) { return byReason[n] || 0; }), backgroundColor: palette[i % palette.length] };
    }) }, options: { scales: { y: { title: { display: true, text: "warps stalled per issued instruction" } } }, plugins: { legend: { position: "bottom" } } } });
  }

  function footer() {
    var f = add(root, "footer");
    f.textContent = "Written by adaexplore-tuner report on " + D.meta.generated + " from " + D.meta.source + ". Charts: " +
      (LIB ? LIB.name + " " + LIB.version + " (inlined from " + LIB.path + ")" : "none (Chart.js not found)") + ".";
  }

  function blankCanvases() {
    var blank = 0;
    charts.forEach(function (c) {
      var cv = c.canvas, ctx = cv.getContext("2d");
      var img = ctx.getImageData(0, 0, cv.width, cv.height).data, drawn = 0;
      for (var i = 3; i < img.length; i += 4 * 7) if (img[i] > 0) { drawn++; if (drawn > 50) break; }
      if (drawn <= 50) blank++;
    });
    return blank;
  }

  try {
    if (!D || D.format !== "adaexplore-report-data") throw new Error("no report data in this page");
    header();
    winnerCard();
    modelSection();
    progress();
    failureMap();
    effects();
    rules();
    pipeline();
    profiles();
    footer();
    var html = document.documentElement;
    html.setAttribute("data-charts", String(charts.length));
    html.setAttribute("data-blank-charts", String(blankCanvases()));
    html.setAttribute("data-chart-library", HAVE_CHART ? "Chart.js " + window.Chart.version : "none");
    // Where each section lies on the page (CSS pixels), for tools/report-screenshots.py.
    Array.prototype.forEach.call(document.querySelectorAll("section"), function (sec) {
      var box = sec.getBoundingClientRect();
      sec.setAttribute("data-box", Math.round(box.top + window.scrollY) + "," + Math.round(box.height));
    });
    html.setAttribute("data-report-status", "ok");
  } catch (err) {
    document.documentElement.setAttribute("data-report-status", "error");
    throw err;
  }
})();
