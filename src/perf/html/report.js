// cpperf report: the page's script, embedded in every report. It reads the run's data
// from the JSON in <script id="data"> and draws the views; nothing is fetched.
"use strict";
(function () {
  const errors = [];
  window.addEventListener("error", (e) => errors.push(String(e.message)));
  const D = JSON.parse(document.getElementById("data").textContent);
  const A = D.analysis;
  const TPU = D.tpu;
  const END = Math.max(1, D.end);
  const N = D.processors;
  // State colours, in the order of D.states (running first, idle last: not drawn), and
  // the lines' (channel messages, remote reads, remote writes, critical path, weighted
  // path): one palette, defined with the states in the analysis.
  const COLOURS = D.colours.slice(0, D.colours.length - 1).concat([null]);
  const alpha = (hex, a) => "rgba(" + [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(",") + "," + a + ")";
  const MSG_COLOURS = [alpha(D.line_colours[0], 0.55), alpha(D.line_colours[1], 0.7), alpha(D.line_colours[2], 0.7)];
  const CRITICAL_COLOUR = alpha(D.line_colours[3], 0.95);
  const WEIGHTED_COLOUR = alpha(D.line_colours[4], 0.95);
  const view = { t0: 0, t1: END, sel: null, clock: END };
  // The most message lines drawn in one window.
  const MAX_LINES = 3000;
  const listeners = [];
  const app = document.getElementById("app");
  const tip = el("div", { id: "tip" });
  document.body.appendChild(tip);

  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "text") e.textContent = v;
      else e.setAttribute(k, v);
    }
    for (const k of kids) e.appendChild(typeof k === "string" ? document.createTextNode(k) : k);
    return e;
  }
  function units(t) {
    const u = t / TPU;
    return (Math.round(u * 1000) / 1000).toString();
  }
  function section(title, hint) {
    const s = el("section", {}, el("h2", { text: title }));
    if (hint) s.appendChild(el("div", { class: "hint", text: hint }));
    return s;
  }
  function changed() {
    for (const f of listeners) f();
  }
  function showTip(ev, text) {
    tip.textContent = text;
    tip.style.display = "block";
    tip.style.left = ev.clientX + 14 + "px";
    tip.style.top = ev.clientY + 10 + "px";
  }
  function hideTip() {
    tip.style.display = "none";
  }
  function fnOf(pid) {
    return D.functions[String(pid)] || "?";
  }

  // ---- Coverage: ticks of each state per pixel column, from the data ------------------
  const rows = D.timeline.rows;
  const binned = D.timeline.mode === "bins";
  const BINS = binned ? D.timeline.bins : 0;
  const binLo = (k) => Math.floor((k * END) / BINS);

  // A row's stretches [s, t, state, pid, line] are sorted by start and disjoint: the
  // index of the first one ending after t, by binary search.
  function firstEndingAfter(r, t) {
    let lo = 0, hi = r.length / 5;
    while (lo < hi) {
      const m = (lo + hi) >> 1;
      if (r[5 * m + 1] <= t) lo = m + 1;
      else hi = m;
    }
    return lo;
  }

  // Adds to cov (W columns × 7 states, column-major by state) the fraction of each column
  // of [t0, t1) that processor p spent in each state.
  function coverage(p, t0, t1, W, cov) {
    cov.fill(0);
    const r = rows[p] || [];
    const dt = (t1 - t0) / W;
    const add = (s, t, st, scale) => {
      const a = Math.max(s, t0), b = Math.min(t, t1);
      if (b <= a) return;
      const x0 = (a - t0) / dt, x1 = (b - t0) / dt;
      const k0 = Math.floor(x0), k1 = Math.min(W - 1, Math.ceil(x1) - 1);
      const base = st * W;
      for (let k = k0; k <= k1; k++) {
        const o = Math.min(x1, k + 1) - Math.max(x0, k);
        if (o > 0) cov[base + k] += o * scale;
      }
    };
    if (!binned) {
      const n = r.length / 5;
      for (let i = firstEndingAfter(r, t0); i < n && r[5 * i] < t1; i++) add(r[5 * i], r[5 * i + 1], r[5 * i + 2], 1);
    } else {
      const k0 = Math.max(0, Math.floor((t0 * BINS) / END) - 1);
      for (let k = k0; k < BINS; k++) {
        const a = binLo(k), b = binLo(k + 1);
        if (a >= t1) break;
        if (b <= a) continue;
        for (let st = 0; st < 7; st++) {
          const ticks = r[st * BINS + k];
          if (ticks > 0) add(a, b, st, ticks / (b - a));
        }
      }
    }
    return cov;
  }
  // Ticks processor p was busy in [a, b).
  function busyIn(p, a, b) {
    const c = coverage(p, a, b, 1, new Float64Array(7));
    return c[0] * (b - a);
  }

  // ---- Figures --------------------------------------------------------------------------
  function figures() {
    const f = document.getElementById("figures");
    const segs = (A.weighted_path && A.weighted_path.segments) || [];
    let heavy = null;
    for (const s of segs) if (!heavy || s.weight > heavy.weight) heavy = s;
    const item = (id, label, value, shown) => {
      const s = el("span", { id: id, "data-value": String(value) }, label + " ", el("b", { text: shown }));
      f.appendChild(s);
    };
    item("fig-par", "parallel time", A.par_time, A.par_time + " units");
    item("fig-seq", "sequential time", A.seq_time, A.seq_time + " units");
    item("fig-speedup", "speedup", A.speedup, String(A.speedup));
    item("fig-efficiency", "efficiency", A.efficiency, String(A.efficiency));
    item("fig-procs", "processors used", A.pprocs_used, A.pprocs_used + " of " + N);
    item("fig-messages", "messages", A.messages, String(A.messages));
    if (heavy) {
      const who = heavy.kind === "compute" ? "process " + heavy.pid + " (" + fnOf(heavy.pid) + ")" : "process " + heavy.pid + (heavy.to_pid !== null ? " to " + heavy.to_pid : "");
      item("fig-wcpa", "heaviest WCPA segment", heavy.share, heavy.kind + " " + who + ", " + heavy.share + " % of the weight");
    }
  }

  // ---- Timeline ---------------------------------------------------------------------------
  function timeline() {
    const s = section("Timeline", "One row per processor, coloured by state; black lines: messages (brown: remote reads, indigo: remote writes; up to 3000 in a window); vermillion: critical path, reddish purple: weighted critical path. Wheel or +/− to zoom, drag or ←/→ to pan, 0 to reset; click a row to select its processor. A pixel's shade is the share of its time in each state (never widened).");
    const legend = el("div", { class: "legend" });
    D.states.forEach((name, i) => {
      if (COLOURS[i]) legend.appendChild(el("span", {}, el("i", { style: "background:" + COLOURS[i] }), name === "running" ? "computing (running)" : name));
    });
    legend.appendChild(el("span", {}, el("i", { style: "background:white" }), "idle"));
    s.appendChild(legend);
    const range = el("div", { class: "hint", id: "tl-range" });
    s.appendChild(range);
    const LEFT = 46, AXIS = 22;
    const rowH = Math.max(1, Math.min(16, Math.floor(640 / N)));
    const cv = el("canvas", { id: "timeline", tabindex: "0" });
    s.appendChild(cv);
    if (D.messages_total > D.messages.length)
      s.appendChild(el("div", { class: "hint", text: "Message lines: the first " + D.messages.length + " of " + D.messages_total + " messages." }));
    app.appendChild(s);
    const ctx = cv.getContext("2d");
    let W = 0;
    let cov = null;
    function size() {
      const w = Math.max(600, Math.floor(s.clientWidth - 26));
      cv.width = w;
      cv.height = N * rowH + AXIS + 4;
      W = w - LEFT - 8;
      cov = new Float64Array(W * 7);
    }
    const xOf = (t) => LEFT + ((t - view.t0) / (view.t1 - view.t0)) * W;
    const yOf = (p) => 2 + p * rowH + rowH / 2;
    function draw() {
      const { t0, t1 } = view;
      ctx.clearRect(0, 0, cv.width, cv.height);
      ctx.font = "10px sans-serif";
      for (let p = 0; p < N; p++) {
        const top = 2 + p * rowH;
        if (view.sel === p) {
          ctx.fillStyle = "#fff3c4";
          ctx.fillRect(0, top, cv.width, rowH);
        }
        coverage(p, t0, t1, W, cov);
        for (let k = 0; k < W; k++) {
          let acc = 0;
          for (let st = 0; st < 6; st++) {
            const c = cov[st * W + k];
            if (c <= 0.0005) continue;
            const h = Math.min(1, c) * rowH;
            ctx.fillStyle = COLOURS[st];
            ctx.fillRect(LEFT + k, top + rowH - acc - h, 1, h);
            acc += h;
          }
        }
        if (rowH >= 9 && (N <= 64 || p % Math.ceil(N / 64) === 0)) {
          ctx.fillStyle = "#333";
          ctx.fillText("P" + p, 2, top + rowH - 2);
        }
      }
      // Messages in the window (sorted by send time): fainter when many cross the
      // window, so that a dense stretch reads as a shade rather than a solid block.
      ctx.lineWidth = 1;
      let inWindow = 0;
      for (const m of D.messages) {
        if (m[0] > t1) break;
        if (m[2] >= t0) inWindow++;
      }
      ctx.globalAlpha = Math.max(0.15, Math.min(1, 300 / Math.max(1, inWindow)));
      // Too many to tell apart: none drawn, the page says so (zoom in to see them).
      const dense = inWindow > MAX_LINES;
      for (const m of dense ? [] : D.messages) {
        if (m[0] > t1) break;
        if (m[2] < t0) continue;
        ctx.strokeStyle = MSG_COLOURS[m[5]] || MSG_COLOURS[0];
        ctx.beginPath();
        ctx.moveTo(xOf(m[0]), yOf(m[1]));
        ctx.lineTo(xOf(m[2]), yOf(m[3]));
        ctx.stroke();
      }
      ctx.globalAlpha = 1;
      const path = (segs, colour, width) => {
        ctx.strokeStyle = colour;
        for (const g of segs) {
          const [kind, , , from, to, , pp, tp] = g;
          if (to < t0 || from > t1 || pp === null) continue;
          ctx.lineWidth = kind === "compute" ? width : 1.5;
          ctx.setLineDash(kind === "compute" ? [] : [4, 3]);
          ctx.beginPath();
          ctx.moveTo(xOf(from), yOf(pp));
          ctx.lineTo(xOf(to), yOf(tp === null || tp === undefined ? pp : tp));
          ctx.stroke();
        }
        ctx.setLineDash([]);
      };
      if (!A.same_path) path(D.weighted, WEIGHTED_COLOUR, 3);
      path(D.critical, CRITICAL_COLOUR, 2);
      // Time axis.
      const y = N * rowH + 4;
      ctx.fillStyle = "#333";
      ctx.strokeStyle = "#333";
      ctx.lineWidth = 1;
      ctx.beginPath();
      ctx.moveTo(LEFT, y);
      ctx.lineTo(LEFT + W, y);
      ctx.stroke();
      for (let i = 0; i <= 5; i++) {
        const t = t0 + ((t1 - t0) * i) / 5;
        const x = xOf(t);
        ctx.fillText(units(Math.round(t)), Math.min(x, LEFT + W - 40), y + 14);
      }
      range.textContent = "Window: " + units(t0) + " .. " + units(t1) + " time units (" + (Math.round((END / (t1 - t0)) * 10) / 10) + "× zoom)" + (dense ? "; " + inWindow + " messages in the window, too many to draw: zoom in to see them" : "");
    }
    function zoom(f, at) {
      const span = Math.max(1, (view.t1 - view.t0) * f);
      let a = at - ((at - view.t0) * span) / (view.t1 - view.t0);
      a = Math.max(0, Math.min(END - span, a));
      view.t0 = a;
      view.t1 = Math.min(END, a + span);
      changed();
    }
    const timeAt = (x) => view.t0 + ((x - LEFT) / W) * (view.t1 - view.t0);
    cv.addEventListener("wheel", (ev) => {
      ev.preventDefault();
      zoom(ev.deltaY < 0 ? 0.8 : 1.25, timeAt(ev.offsetX));
    });
    let drag = null;
    cv.addEventListener("mousedown", (ev) => (drag = { x: ev.offsetX, t0: view.t0, t1: view.t1, moved: false }));
    window.addEventListener("mouseup", (ev) => {
      if (drag && !drag.moved && ev.target === cv) {
        const p = Math.floor((ev.offsetY - 2) / rowH);
        view.sel = p >= 0 && p < N && view.sel !== p ? p : null;
        changed();
      }
      drag = null;
    });
    cv.addEventListener("mousemove", (ev) => {
      if (drag) {
        const dx = ev.offsetX - drag.x;
        if (Math.abs(dx) > 2) drag.moved = true;
        const dt = (dx / W) * (drag.t1 - drag.t0);
        const a = Math.max(0, Math.min(END - (drag.t1 - drag.t0), drag.t0 - dt));
        view.t0 = a;
        view.t1 = a + (drag.t1 - drag.t0);
        changed();
        return;
      }
      const p = Math.floor((ev.offsetY - 2) / rowH);
      const t = timeAt(ev.offsetX);
      if (p < 0 || p >= N || ev.offsetX < LEFT) return hideTip();
      showTip(ev, describe(p, t));
    });
    cv.addEventListener("mouseleave", hideTip);
    cv.addEventListener("keydown", (ev) => {
      const mid = (view.t0 + view.t1) / 2, span = view.t1 - view.t0;
      if (ev.key === "+" || ev.key === "=") zoom(0.8, mid);
      else if (ev.key === "-") zoom(1.25, mid);
      else if (ev.key === "0") { view.t0 = 0; view.t1 = END; changed(); }
      else if (ev.key === "ArrowLeft") { const a = Math.max(0, view.t0 - span / 10); view.t0 = a; view.t1 = a + span; changed(); }
      else if (ev.key === "ArrowRight") { const a = Math.min(END - span, view.t0 + span / 10); view.t0 = a; view.t1 = a + span; changed(); }
      else return;
      ev.preventDefault();
    });
    size();
    listeners.push(draw);
    window.addEventListener("resize", () => { size(); draw(); });
    return { size: () => W, cov: () => cov };
  }
  function describe(p, t) {
    const r = rows[p] || [];
    if (!binned) {
      const n = r.length / 5;
      const lo = firstEndingAfter(r, t);
      if (lo < n && r[5 * lo] <= t) {
        const [s, e, st, pid, line] = r.slice(5 * lo, 5 * lo + 5);
        const text = line > 0 ? ((D.source || "").split("\n")[line - 1] || "").trim() : "";
        const who = st === 0 ? "\nprocess " + pid + " (" + fnOf(pid) + ")" + (line > 0 ? ", line " + line + ": " + text : "") : "";
        return "P" + p + ": " + D.states[st] + who + "\nstart " + units(s) + ", length " + units(e - s);
      }
      return "P" + p + ": idle at " + units(Math.round(t));
    }
    const k = Math.min(BINS - 1, Math.max(0, Math.floor((t * BINS) / END)));
    const len = binLo(k + 1) - binLo(k);
    let out = "P" + p + ", " + units(binLo(k)) + " .. " + units(binLo(k + 1)) + " (one bin of the aggregated timeline):";
    for (let st = 0; st < 6; st++) {
      const v = r[st * BINS + k];
      if (v > 0) out += "\n" + D.states[st] + " " + Math.round((100 * v) / len) + " %";
    }
    return out;
  }

  // ---- Utilization ------------------------------------------------------------------------
  function utilization() {
    const s = section("Utilization", "Share of the processors busy over time (drag to choose the timeline's window), and each processor's utilization (click to select).");
    const cv = el("canvas", { id: "profile", width: "1000", height: "120" });
    s.appendChild(cv);
    const per = el("canvas", { id: "per-processor", width: "1000", height: "80" });
    s.appendChild(per);
    app.appendChild(s);
    const ctx = cv.getContext("2d");
    const pc = per.getContext("2d");
    const util = {};
    for (const u of A.utilization || []) util[u.pproc] = u.percent;
    function draw() {
      ctx.clearRect(0, 0, 1000, 120);
      ctx.fillStyle = "#eef3f8";
      ctx.fillRect((view.t0 / END) * 1000, 0, ((view.t1 - view.t0) / END) * 1000, 110);
      ctx.fillStyle = COLOURS[0];
      D.profile.forEach((f, k) => {
        const h = Math.min(1, f) * 100;
        ctx.fillRect(k, 110 - h, 1, h);
      });
      ctx.fillStyle = "#333";
      ctx.fillText("100 %", 2, 10);
      pc.clearRect(0, 0, 1000, 80);
      const w = 1000 / N;
      for (let p = 0; p < N; p++) {
        const h = ((util[p] || 0) / 100) * 70;
        pc.fillStyle = view.sel === p ? "#e0a000" : COLOURS[0];
        pc.fillRect(p * w, 75 - h, Math.max(1, w - 1), h);
      }
    }
    let a = null;
    cv.addEventListener("mousedown", (ev) => (a = ev.offsetX));
    cv.addEventListener("mouseup", (ev) => {
      if (a === null) return;
      const x0 = Math.min(a, ev.offsetX), x1 = Math.max(a, ev.offsetX);
      a = null;
      if (x1 - x0 < 2) return;
      view.t0 = (x0 / 1000) * END;
      view.t1 = Math.max(view.t0 + 1, (x1 / 1000) * END);
      changed();
    });
    per.addEventListener("click", (ev) => {
      const p = Math.floor(ev.offsetX / (1000 / N));
      view.sel = view.sel === p ? null : p;
      changed();
    });
    per.addEventListener("mousemove", (ev) => {
      const p = Math.floor(ev.offsetX / (1000 / N));
      showTip(ev, "P" + p + ": " + (util[p] || 0) + " % busy");
    });
    per.addEventListener("mouseleave", hideTip);
    listeners.push(draw);
  }

  // ---- Communication matrix ---------------------------------------------------------------
  function matrix(parent) {
    const s = section("Communication matrix", "Bytes sent from each virtual processor (row) to each (column), or messages from each physical processor to each; darker for more (log scale).");
    const pick = el("select", {}, el("option", { value: "v", text: "virtual processors, bytes" }), el("option", { value: "pb", text: "physical processors, bytes" }), el("option", { value: "p", text: "physical processors, messages" }));
    s.appendChild(pick);
    const box = el("div", {});
    s.appendChild(box);
    parent.appendChild(s);
    // Channel messages between physical processors: count and bytes.
    const physical = [], physicalBytes = [];
    {
      const count = {}, bytes = {};
      for (const m of D.messages) {
        if (m[5] !== 0) continue;
        const k = m[1] + "," + m[3];
        count[k] = (count[k] || 0) + 1;
        bytes[k] = (bytes[k] || 0) + m[4];
      }
      for (const [k, v] of Object.entries(count)) {
        const [a, b] = k.split(",").map(Number);
        physical.push({ src: a, dst: b, bytes: v });
        physicalBytes.push({ src: a, dst: b, bytes: bytes[k] });
      }
    }
    const draw = () => {
      box.textContent = "";
      const v = pick.value;
      heat(box, v === "v" ? A.comm || [] : v === "pb" ? physicalBytes : physical, v === "v" ? "V" : "P", v === "p" ? " messages" : " bytes");
      if (v !== "v" && D.messages_total > D.messages.length)
        box.appendChild(el("div", { class: "hint", text: "Counted over the first " + D.messages.length + " of " + D.messages_total + " messages." }));
    };
    pick.addEventListener("change", draw);
    draw();
  }
  function heat(s, comm, prefix, unit) {
    let V = 0, max = 0;
    for (const c of comm) {
      V = Math.max(V, c.src + 1, c.dst + 1);
      max = Math.max(max, c.bytes);
    }
    if (V === 0) {
      s.appendChild(el("div", { class: "hint", text: "No messages." }));
      return;
    }
    const cell = Math.max(1, Math.min(14, Math.floor(400 / V)));
    const cv = el("canvas", { id: "matrix", width: String(V * cell + 2), height: String(V * cell + 2) });
    s.appendChild(cv);
    const ctx = cv.getContext("2d");
    ctx.strokeStyle = "#ccc";
    ctx.strokeRect(0.5, 0.5, V * cell + 1, V * cell + 1);
    const lm = Math.log(max + 1);
    const at = {};
    for (const c of comm) {
      const f = Math.log(c.bytes + 1) / lm;
      ctx.fillStyle = "rgba(8,48,107," + (0.12 + 0.88 * f).toFixed(3) + ")";
      ctx.fillRect(1 + c.dst * cell, 1 + c.src * cell, cell, cell);
      at[c.src + "," + c.dst] = c.bytes;
    }
    cv.addEventListener("mousemove", (ev) => {
      const x = Math.floor((ev.offsetX - 1) / cell), y = Math.floor((ev.offsetY - 1) / cell);
      showTip(ev, prefix + y + " → " + prefix + x + ": " + (at[y + "," + x] || 0) + unit);
    });
    cv.addEventListener("mouseleave", hideTip);
  }

  // ---- Topology ---------------------------------------------------------------------------
  function topology(parent) {
    const s = section("Topology", "The physical machine (" + (D.topology || "?") + "): each node shaded by its load over the tenth of the run before the clock; play replays the run.");
    const NS = "http://www.w3.org/2000/svg";
    const svg = document.createElementNS(NS, "svg");
    svg.setAttribute("id", "topology");
    svg.setAttribute("width", "420");
    svg.setAttribute("height", "420");
    s.appendChild(svg);
    const controls = el("div", {});
    const play = el("button", { type: "button", text: "play" });
    const slider = el("input", { type: "range", min: "0", max: "1000", value: "1000", style: "width:300px" });
    const clock = el("span", { id: "clock" });
    controls.appendChild(play);
    controls.appendChild(slider);
    controls.appendChild(clock);
    s.appendChild(controls);
    parent.appendChild(s);
    // Positions and links from the topology's name.
    const pos = [], links = [];
    let m;
    const topo = D.topology || "";
    if ((m = /^(mesh|torus):(\d+)x(\d+)$/.exec(topo))) {
      const a = +m[2], b = +m[3];
      for (let i = 0; i < a * b; i++) pos.push([(i % a) / Math.max(1, a - 1), Math.floor(i / a) / Math.max(1, b - 1)]);
      for (let i = 0; i < a * b; i++) {
        const x = i % a, y = Math.floor(i / a);
        if (x + 1 < a) links.push([i, i + 1]);
        if (y + 1 < b) links.push([i, i + a]);
        if (m[1] === "torus" && x + 1 === a && a > 2) links.push([i, i - a + 1, true]);
        if (m[1] === "torus" && y + 1 === b && b > 2) links.push([i, x, true]);
      }
    } else if ((m = /^hypercube:(\d+)$/.exec(topo))) {
      const n = 1 << +m[1];
      for (let i = 0; i < n; i++) pos.push([0.5 + 0.5 * Math.cos((2 * Math.PI * i) / n), 0.5 + 0.5 * Math.sin((2 * Math.PI * i) / n)]);
      for (let i = 0; i < n; i++) for (let d = 0; d < +m[1]; d++) if ((i ^ (1 << d)) > i) links.push([i, i ^ (1 << d)]);
    } else {
      const ring = /^ring:(\d+)$/.exec(topo);
      for (let i = 0; i < N; i++) pos.push([0.5 + 0.5 * Math.cos((2 * Math.PI * i) / N), 0.5 + 0.5 * Math.sin((2 * Math.PI * i) / N)]);
      if (ring) for (let i = 0; i < N; i++) links.push([i, (i + 1) % N]);
    }
    const P = (i) => [20 + (pos[i] ? pos[i][0] : 0) * 380, 20 + (pos[i] ? pos[i][1] : 0) * 380];
    // Link traffic (routes traced): utilization of the busier direction, darker and
    // wider for more.
    const traffic = {};
    let maxUse = 0;
    for (const x of A.links || []) {
      const k = Math.min(x.from, x.to) + "," + Math.max(x.from, x.to);
      traffic[k] = Math.max(traffic[k] || 0, x.utilization);
      maxUse = Math.max(maxUse, x.utilization);
    }
    for (const [a, b, wrap] of links) {
      if (a >= pos.length || b >= pos.length) continue;
      const [x1, y1] = P(a), [x2, y2] = P(b);
      const l = document.createElementNS(NS, "line");
      l.setAttribute("x1", x1); l.setAttribute("y1", y1); l.setAttribute("x2", x2); l.setAttribute("y2", y2);
      const use = traffic[Math.min(a, b) + "," + Math.max(a, b)];
      if (use !== undefined && maxUse > 0) {
        l.setAttribute("stroke", "rgba(200,60,0," + (0.25 + (0.75 * use) / maxUse).toFixed(3) + ")");
        l.setAttribute("stroke-width", (1 + (4 * use) / maxUse).toFixed(2));
        const t = document.createElementNS(NS, "title");
        t.textContent = "link P" + a + " – P" + b + ": " + use + " % busy (busier direction)";
        l.appendChild(t);
      } else {
        l.setAttribute("stroke", wrap ? "#ddd" : "#aaa");
      }
      if (wrap) l.setAttribute("stroke-dasharray", "3,3");
      svg.appendChild(l);
    }
    if ((A.links || []).length === 0)
      s.appendChild(el("div", { class: "hint", text: "Link traffic: routes not traced (cpss --trace-routes records them)." }));
    const r = Math.max(2, Math.min(12, 150 / Math.sqrt(Math.max(1, pos.length))));
    const nodes = [];
    for (let i = 0; i < pos.length; i++) {
      const c = document.createElementNS(NS, "circle");
      const [x, y] = P(i);
      c.setAttribute("cx", x); c.setAttribute("cy", y); c.setAttribute("r", r);
      c.setAttribute("stroke", "#555");
      c.addEventListener("click", () => { view.sel = view.sel === i ? null : i; changed(); });
      c.addEventListener("mousemove", (ev) => showTip(ev, "P" + i + ": " + Math.round(100 * (c.__load || 0)) + " % busy before " + units(view.clock)));
      c.addEventListener("mouseleave", hideTip);
      svg.appendChild(c);
      nodes.push(c);
    }
    function draw() {
      const b = view.clock, a = Math.max(0, b - END / 10);
      for (let i = 0; i < nodes.length; i++) {
        const load = i < N && b > a ? busyIn(i, a, b) / (b - a) : 0;
        nodes[i].__load = load;
        const g = Math.round(255 - 200 * load);
        nodes[i].setAttribute("fill", "rgb(" + g + "," + g + ",255)");
        nodes[i].setAttribute("stroke-width", view.sel === i ? "3" : "1");
        nodes[i].setAttribute("stroke", view.sel === i ? "#e0a000" : "#555");
      }
      clock.textContent = " clock " + units(view.clock) + " / " + units(END);
    }
    slider.addEventListener("input", () => { view.clock = (slider.value / 1000) * END; draw(); });
    let timer = null;
    play.addEventListener("click", () => {
      if (timer) { clearInterval(timer); timer = null; play.textContent = "play"; return; }
      if (view.clock >= END) view.clock = 0;
      play.textContent = "pause";
      timer = setInterval(() => {
        view.clock = Math.min(END, view.clock + END / 200);
        slider.value = String(Math.round((view.clock / END) * 1000));
        draw();
        if (view.clock >= END) { clearInterval(timer); timer = null; play.textContent = "play"; }
      }, 40);
    });
    listeners.push(draw);
  }

  // ---- Critical paths, phases, statistics -------------------------------------------------
  function paths() {
    const s = section("Weighted critical path (WCPA)", A.same_path ? "The weighted critical path is the elapsed-time critical path." : "The weighted critical path (reddish purple on the timeline) is not the elapsed-time critical path (vermillion).");
    // By activity: the segments of one kind and process together (as cpperf's text).
    const groups = {};
    for (const g of (A.weighted_path && A.weighted_path.segments) || []) {
      const key = g.kind + " process " + g.pid + " (" + fnOf(g.pid) + ")";
      groups[key] = (groups[key] || 0) + g.share;
    }
    const gt = el("table", { id: "wcpa-groups" });
    gt.appendChild(el("tr", {}, el("th", { class: "l", text: "activity" }), el("th", { text: "share %" })));
    for (const [k, v] of Object.entries(groups).sort((a, b) => b[1] - a[1]).slice(0, 10))
      gt.appendChild(el("tr", {}, el("td", { class: "l", text: k }), el("td", { text: (Math.round(v * 100) / 100).toFixed(2) })));
    s.appendChild(gt);
    s.appendChild(el("div", { class: "hint", text: "By activity (the 10 heaviest); then the heaviest segments:" }));
    const t = el("table", { id: "wcpa" });
    t.appendChild(el("tr", {}, el("th", { class: "l", text: "segment" }), el("th", { text: "from" }), el("th", { text: "to" }), el("th", { text: "weight" }), el("th", { text: "share %" })));
    const segs = ((A.weighted_path && A.weighted_path.segments) || []).slice().sort((x, y) => y.weight - x.weight).slice(0, 30);
    for (const g of segs) {
      const who = g.kind === "compute" ? "process " + g.pid + " (" + fnOf(g.pid) + ")" : g.pid + (g.to_pid !== null ? " → " + g.to_pid : "");
      t.appendChild(el("tr", {}, el("td", { class: "l", text: g.kind + " " + who }), el("td", { text: String(g.from) }), el("td", { text: String(g.to) }), el("td", { text: String(g.weight) }), el("td", { text: String(g.share) })));
    }
    s.appendChild(t);
    s.appendChild(el("div", { class: "hint", text: "Heaviest 30 segments; times in time units. Elapsed-time critical path: " + A.critical_path.length + " units, " + A.critical_path.edges + " edges." }));
    app.appendChild(s);
    const ph = section("Phases between probes");
    if ((A.phases || []).length === 0) ph.appendChild(el("div", { class: "hint", text: "The program has no probes." }));
    else {
      const pt = el("table", {});
      pt.appendChild(el("tr", {}, el("th", { class: "l", text: "phase" }), el("th", { text: "time" }), el("th", { text: "weight" }), el("th", { text: "share %" })));
      for (const p of A.phases) pt.appendChild(el("tr", {}, el("td", { class: "l", text: String(p.label) }), el("td", { text: String(p.time) }), el("td", { text: String(p.weight) }), el("td", { text: String(p.share) })));
      ph.appendChild(pt);
    }
    app.appendChild(ph);
    // Waits by call site: Late Sender (a receive called before its message arrived) and
    // Late Receiver (a synchronous send's receive called after the send).
    const ls = A.late_sender_lines || [], lr = A.late_receiver_lines || [];
    if (ls.length + lr.length > 0) {
      const w = section("Waits by call site", "Late Sender: arrival − receive call; Late Receiver: receive call − MPI_Ssend (Scalasca's patterns), by the program's line of the call.");
      const wt = el("table", { id: "waits" });
      wt.appendChild(el("tr", {}, el("th", { class: "l", text: "wait" }), el("th", { text: "line" }), el("th", { text: "time" }), el("th", { text: "calls" })));
      const rows = ls.map((r) => ["Late Sender", r.line, r.wait, r.receives]).concat(lr.map((r) => ["Late Receiver", r.line, r.wait, r.sends]));
      for (const [k, line, wait, n] of rows.sort((x, y) => y[2] - x[2]))
        wt.appendChild(el("tr", {}, el("td", { class: "l", text: k }), el("td", { text: String(line) }), el("td", { text: String(wait) }), el("td", { text: String(n) })));
      w.appendChild(wt);
      app.appendChild(w);
    }
    const st = section("Statistics");
    const tt = el("table", { id: "stats" });
    for (const k of ["seq_time", "par_time", "speedup", "efficiency", "pprocs_used", "messages", "bytes", "avg_latency", "granularity", "serial_fraction", "amdahl_bound", "parallelism", "network_load"])
      if (A[k] !== null && A[k] !== undefined)
        tt.appendChild(el("tr", {}, el("td", { class: "l", text: k.replace("_", " ") }), el("td", { text: String(A[k]) })));
    st.appendChild(tt);
    const ts = el("table", {});
    ts.appendChild(el("tr", {}, el("th", { class: "l", text: "processor" }), ...D.states.map((n) => el("th", { text: n }))));
    for (const r of (A.states || []).slice(0, 256)) {
      const keys = ["running", "message", "remote_read", "lock", "children", "delay", "idle"];
      ts.appendChild(el("tr", { class: view.sel === r.pproc ? "sel" : "" }, el("td", { class: "l", text: "P" + r.pproc }), ...keys.map((k) => el("td", { text: String(r[k]) }))));
    }
    st.appendChild(el("div", { class: "hint", text: "Time per processor and state (time units)." }));
    st.appendChild(ts);
    app.appendChild(st);
  }

  // ---- Source -----------------------------------------------------------------------------
  function source() {
    const s = section("Source", (D.source_name || "") + ": busy time per line (blue: work, grey: overhead) and time processes waited on the line (sky blue: in a receive called there, or suspended — remote read, lock, join, delay — by the line they blocked on); bars relative to the costliest line.");
    const order = el("button", { type: "button", text: "heaviest first" });
    s.appendChild(order);
    const text = (D.source || "").split("\n");
    const cost = {};
    for (const l of A.lines || []) cost[l.line] = { work: l.work, overhead: l.overhead, wait: 0 };
    for (const [line, ticks] of D.waits) {
      cost[line] = cost[line] || { work: 0, overhead: 0, wait: 0 };
      cost[line].wait += ticks / TPU;
    }
    let max = 0;
    for (const c of Object.values(cost)) max = Math.max(max, c.work + c.overhead + c.wait);
    const t = el("table", { class: "src", id: "source" });
    s.appendChild(t);
    app.appendChild(s);
    let heavy = false;
    function fill() {
      t.textContent = "";
      let lines = text.map((_, i) => i + 1);
      if (heavy) lines = lines.filter((l) => cost[l]).sort((a, b) => {
        const ca = cost[a], cb = cost[b];
        return cb.work + cb.overhead + cb.wait - (ca.work + ca.overhead + ca.wait) || a - b;
      });
      for (const l of lines) {
        const c = cost[l] || { work: 0, overhead: 0, wait: 0 };
        const bar = el("td", { class: "l" });
        for (const [v, colour] of [[c.work, COLOURS[0]], [c.overhead, "#999"], [c.wait, COLOURS[1]]]) {
          if (v > 0 && max > 0) bar.appendChild(el("span", { class: "bar", style: "width:" + Math.max(1, (v / max) * 160).toFixed(1) + "px;background:" + colour }));
        }
        const total = c.work + c.overhead + c.wait;
        t.appendChild(el("tr", {}, el("td", { text: String(l) }), el("td", { text: total ? String(Math.round(total * 1000) / 1000) : "" }), bar, el("td", { class: "code", text: text[l - 1] || "" })));
      }
    }
    order.addEventListener("click", () => { heavy = !heavy; order.textContent = heavy ? "source order" : "heaviest first"; fill(); });
    fill();
  }

  // ---- The page ---------------------------------------------------------------------------
  figures();
  const tl = timeline();
  utilization();
  const pair = el("div", { class: "row2" });
  app.appendChild(pair);
  topology(pair);
  matrix(pair);
  paths();
  source();
  changed();

  // A self-check for the test harness (#selfcheck): the busy fraction drawn per
  // processor at the default zoom and at a 100× zoom into the middle of the run.
  if (location.hash === "#selfcheck") {
    const W = tl.size();
    const cov = new Float64Array(W * 7);
    const drawnBusy = (t0, t1) => {
      const out = [];
      for (let p = 0; p < N; p++) {
        coverage(p, t0, t1, W, cov);
        let sum = 0;
        for (let k = 0; k < W; k++) sum += Math.min(1, cov[k]);
        out.push(sum / W);
      }
      return out;
    };
    const mid = END / 2, half = END / 200;
    const z0 = Math.max(0, mid - half), z1 = Math.min(END, mid + half);
    const figs = {};
    for (const e of document.querySelectorAll("#figures span")) figs[e.id] = Number(e.getAttribute("data-value"));
    const views = ["timeline", "profile", "per-processor", "topology", "wcpa", "stats", "source"].filter((id) => document.getElementById(id));
    const out = { processors: N, end: END, full: drawnBusy(0, END), zoom: { t0: z0, t1: z1, busy: drawnBusy(z0, z1) }, figures: figs, views: views, matrix: !!document.getElementById("matrix"), errors: errors };
    document.body.appendChild(el("pre", { id: "selfcheck", text: JSON.stringify(out) }));
  }
})();
