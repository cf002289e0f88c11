// cpperf report: the page's script, embedded in every report. It reads the run's data
// from <script id="data"> (JSON, gzip-compressed, in base64), inflates it with the
// browser's DecompressionStream and draws the views; nothing is fetched, and every text
// from the run (source, names, labels) is inserted as text, never as markup.
"use strict";
(async function () {
  const errors = [];
  window.addEventListener("error", (e) => errors.push(String(e.message)));
  window.addEventListener("unhandledrejection", (e) => errors.push(String(e.reason)));
  async function load() {
    const b = atob(document.getElementById("data").textContent.trim());
    const bin = new Uint8Array(b.length);
    for (let i = 0; i < b.length; i++) bin[i] = b.charCodeAt(i);
    const stream = new Blob([bin]).stream().pipeThrough(new DecompressionStream("gzip"));
    return JSON.parse(await new Response(stream).text());
  }
  const D = await load();
  const A = D.analysis;
  const TPU = D.tpu;
  const END = Math.max(1, D.end);
  const N = D.processors;
  // State colours, in the order of D.states (running first, idle last: not drawn), and
  // the lines' (channel messages, remote reads, remote writes, critical path, weighted
  // path): one palette (Okabe and Ito's), defined with the states in the analysis.
  const COLOURS = D.colours.slice(0, D.colours.length - 1).concat([null]);
  const alpha = (hex, a) => "rgba(" + [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(",") + "," + a + ")";
  const MSG_COLOURS = [alpha(D.line_colours[0], 0.55), alpha(D.line_colours[1], 0.7), alpha(D.line_colours[2], 0.7)];
  const CRITICAL_COLOUR = alpha(D.line_colours[3], 0.95);
  const WEIGHTED_COLOUR = alpha(D.line_colours[4], 0.95);
  // Selection and search marks: black outlines and a grey band, never a state's colour.
  const SELECT_BG = "#e8e8e8", MARK = "#000000";
  const view = { t0: 0, t1: END, sel: null, clock: END, marks: null, pick: null };
  // The most message lines drawn in one window.
  const MAX_LINES = 3000;
  const listeners = [];
  const app = document.getElementById("app");
  const tip = el("div", { id: "tip" });
  document.body.appendChild(tip);
  const SOURCE = (D.source || "").split("\n");

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
  function lineText(line) {
    return line > 0 ? (SOURCE[line - 1] || "").trim() : "";
  }
  // The source form of element `index` of channel `c`: name, name[i], name[i][j], ….
  function element(c, index) {
    const decl = D.channels[c];
    if (!decl) return "#" + c + "[" + index + "]";
    const [name, dims] = decl;
    if (!dims.length) return name;
    const idx = [];
    for (let d = dims.length - 1; d >= 0; d--) {
      idx.unshift(index % dims[d]);
      index = Math.floor(index / dims[d]);
    }
    return name + idx.map((i) => "[" + i + "]").join("");
  }

  // ---- Coverage: ticks of each state per pixel column, from the data ------------------
  const binned = D.timeline.mode === "bins";
  const BINS = binned ? D.timeline.bins : 0;
  const binLo = (k) => Math.floor((k * END) / BINS);
  // Stretches: per processor [start, end, state, pid, line] × n, absolute times (the
  // data holds gaps and lengths); pid -1 for a wait.
  const rows = binned
    ? D.timeline.rows
    : D.timeline.rows.map((r) => {
        const a = new Float64Array(r.length);
        let t = 0;
        for (let i = 0; i < r.length; i += 5) {
          const s = t + r[i], e = s + r[i + 1];
          a[i] = s; a[i + 1] = e; a[i + 2] = r[i + 2]; a[i + 3] = r[i + 3]; a[i + 4] = r[i + 4];
          t = e;
        }
        return a;
      });

  // A row's stretches are sorted by start and disjoint: the index of the first one
  // ending after t, by binary search.
  function firstEndingAfter(r, t) {
    let lo = 0, hi = r.length / 5;
    while (lo < hi) {
      const m = (lo + hi) >> 1;
      if (r[5 * m + 1] <= t) lo = m + 1;
      else hi = m;
    }
    return lo;
  }
  // The stretch of processor p at time t: [start, end, state, pid, line], or null.
  function stretchAt(p, t) {
    const r = rows[p];
    if (binned || !r) return null;
    const i = firstEndingAfter(r, t);
    if (i < r.length / 5 && r[5 * i] <= t) return Array.from(r.slice(5 * i, 5 * i + 5));
    return null;
  }

  // Adds to cov (W columns × 7 states, column-major by state) `scale` times the fraction
  // of each column of [t0, t1) that processor p spent in each state.
  function addCoverage(p, t0, t1, W, cov, scale) {
    const r = rows[p] || [];
    const dt = (t1 - t0) / W;
    const add = (s, t, st, f) => {
      const a = Math.max(s, t0), b = Math.min(t, t1);
      if (b <= a) return;
      const x0 = (a - t0) / dt, x1 = (b - t0) / dt;
      const k0 = Math.floor(x0), k1 = Math.min(W - 1, Math.ceil(x1) - 1);
      const base = st * W;
      for (let k = k0; k <= k1; k++) {
        const o = Math.min(x1, k + 1) - Math.max(x0, k);
        if (o > 0) cov[base + k] += o * f;
      }
    };
    if (!binned) {
      const n = r.length / 5;
      for (let i = firstEndingAfter(r, t0); i < n && r[5 * i] < t1; i++) add(r[5 * i], r[5 * i + 1], r[5 * i + 2], scale);
    } else {
      const k0 = Math.max(0, Math.floor((t0 * BINS) / END) - 1);
      for (let k = k0; k < BINS; k++) {
        const a = binLo(k), b = binLo(k + 1);
        if (a >= t1) break;
        if (b <= a) continue;
        for (let st = 0; st < 7; st++) {
          const ticks = r[st * BINS + k];
          if (ticks > 0) add(a, b, st, (scale * ticks) / (b - a));
        }
      }
    }
  }
  function coverage(p, t0, t1, W, cov) {
    cov.fill(0);
    addCoverage(p, t0, t1, W, cov, 1);
    return cov;
  }
  // Ticks processor p was busy in [a, b).
  const one = new Float64Array(7);
  function busyIn(p, a, b) {
    const c = coverage(p, a, b, 1, one);
    return c[0] * (b - a);
  }

  // ---- Rows: one per processor, or per block of processors ------------------------------
  // More processors than MAX_ROWS: the rows are blocks (of the mesh or torus, k × k
  // neighbours; else k consecutive processors), each drawn as its members' mean share of
  // each state, so a block drawn half busy is half busy. Clicking a block's label opens
  // it into one row per member.
  const MAX_ROWS = 256;
  const TOPO = /^(mesh|torus):(\d+)x(\d+)$/.exec(D.topology || "");
  const groups = [];
  if (N <= MAX_ROWS) {
    for (let p = 0; p < N; p++) groups.push({ label: "P" + p, members: [p] });
  } else if (TOPO && +TOPO[2] * +TOPO[3] === N) {
    const a = +TOPO[2], b = +TOPO[3];
    const k = Math.ceil(Math.sqrt(N / MAX_ROWS));
    for (let y0 = 0; y0 < b; y0 += k)
      for (let x0 = 0; x0 < a; x0 += k) {
        const members = [];
        const x1 = Math.min(a, x0 + k) - 1, y1 = Math.min(b, y0 + k) - 1;
        for (let y = y0; y <= y1; y++) for (let x = x0; x <= x1; x++) members.push(y * a + x);
        groups.push({ label: x0 + "-" + x1 + "," + y0 + "-" + y1, members: members, title: "block x " + x0 + ".." + x1 + ", y " + y0 + ".." + y1 });
      }
  } else {
    const k = Math.ceil(N / MAX_ROWS);
    for (let p0 = 0; p0 < N; p0 += k) {
      const members = [];
      for (let p = p0; p < Math.min(N, p0 + k); p++) members.push(p);
      groups.push({ label: "P" + p0 + "-" + members[members.length - 1], members: members });
    }
  }
  const groupOf = new Int32Array(N);
  groups.forEach((g, i) => { for (const p of g.members) groupOf[p] = i; });
  // The rows shown: groups, an opened group as its members.
  const opened = new Set();
  let shown = [];
  const rowOf = new Int32Array(N);
  function layout() {
    shown = [];
    groups.forEach((g, i) => {
      if (g.members.length > 1 && opened.has(i)) {
        for (const p of g.members) shown.push({ label: "P" + p, members: [p], group: i, inner: true });
      } else shown.push({ label: g.label, members: g.members, group: i, title: g.title });
    });
    shown.forEach((r, i) => { for (const p of r.members) rowOf[p] = i; });
  }
  layout();
  function describeGroup(r) {
    const m = r.members;
    return (r.title ? r.title + ": " : "") + m.length + " processors (P" + m.slice(0, 6).join(", P") + (m.length > 6 ? ", …" : "") + ")";
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
    const s = section("Timeline", "One row per processor" + (groups.length < N ? " (here per block of processors, drawn as the block's mean: click a block's label to open it)" : "") + ", coloured by state; black lines: messages (brown: remote reads, indigo: remote writes; up to 3000 in a window); vermillion: critical path, reddish purple: weighted critical path. Wheel or +/− to zoom, drag or ←/→ to pan, 0 to reset; click a slice, a message or a path segment to inspect it. A pixel's shade is the share of its time in each state (never widened).");
    const legend = el("div", { class: "legend" });
    D.states.forEach((name, i) => {
      if (COLOURS[i]) legend.appendChild(el("span", {}, el("i", { style: "background:" + COLOURS[i] }), name === "running" ? "computing (running)" : name));
    });
    legend.appendChild(el("span", {}, el("i", { style: "background:white" }), "idle"));
    s.appendChild(legend);
    // The search box: a processor (P12), a process (#12), a source line (:12 or line
    // 12) or a function's name; the rows where it ran are marked.
    const find = el("input", { id: "search", type: "search", placeholder: "P12, #12, line 12 or a function", size: "32" });
    const go = el("button", { type: "button", text: "find" });
    const clear = el("button", { type: "button", text: "clear" });
    s.appendChild(el("div", { class: "tools" }, find, go, clear));
    const range = el("div", { class: "hint", id: "tl-range" });
    s.appendChild(range);
    const LEFT = 84, AXIS = 22;
    let rowH = 16;
    const cv = el("canvas", { id: "timeline", tabindex: "0" });
    s.appendChild(cv);
    if (D.messages_total > D.messages.length)
      s.appendChild(el("div", { class: "hint", text: "Message lines: the " + D.messages.length + " arrived of the first sent (of " + D.messages_total + " messages)." }));
    const details = el("pre", { id: "details", text: "Click a slice, a message or a critical-path segment." });
    s.appendChild(details);
    app.appendChild(s);
    const ctx = cv.getContext("2d");
    let W = 0;
    let cov = null;
    function size() {
      const w = Math.max(600, Math.floor(s.clientWidth - 26));
      rowH = Math.max(3, Math.min(16, Math.floor(768 / shown.length)));
      cv.width = w;
      cv.height = shown.length * rowH + AXIS + 4;
      W = w - LEFT - 8;
      cov = new Float64Array(W * 7);
    }
    const xOf = (t) => LEFT + ((t - view.t0) / (view.t1 - view.t0)) * W;
    const yOf = (p) => 2 + rowOf[p] * rowH + rowH / 2;
    function rowCoverage(r, t0, t1) {
      cov.fill(0);
      const f = 1 / r.members.length;
      for (const p of r.members) addCoverage(p, t0, t1, W, cov, f);
      return cov;
    }
    let inWindow = 0, dense = false;
    function draw() {
      const { t0, t1 } = view;
      ctx.clearRect(0, 0, cv.width, cv.height);
      ctx.font = "10px sans-serif";
      const every = Math.max(1, Math.ceil(11 / rowH));
      shown.forEach((r, i) => {
        const top = 2 + i * rowH;
        const selected = view.sel !== null && r.members.includes(view.sel);
        if (selected) {
          ctx.fillStyle = SELECT_BG;
          ctx.fillRect(0, top, cv.width, rowH);
        }
        rowCoverage(r, t0, t1);
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
        if (view.marks && r.members.some((p) => view.marks.has(p))) {
          ctx.fillStyle = MARK;
          ctx.fillRect(LEFT - 5, top, 4, Math.max(2, rowH - 1));
        }
        if (i % every === 0 || selected) {
          ctx.fillStyle = "#333";
          const label = (r.members.length > 1 ? (opened.has(r.group) ? "▾ " : "▸ ") : r.inner ? "  " : "") + r.label;
          ctx.fillText(label, 2, Math.max(9, top + Math.min(rowH, 11) - 1));
        }
      });
      // Messages in the window (sorted by send time): fainter when many cross the
      // window, so that a dense stretch reads as a shade rather than a solid block.
      ctx.lineWidth = 1;
      inWindow = 0;
      for (const m of D.messages) {
        if (m[0] > t1) break;
        if (m[2] >= t0) inWindow++;
      }
      ctx.globalAlpha = Math.max(0.15, Math.min(1, 300 / Math.max(1, inWindow)));
      // Too many to tell apart: none drawn, the page says so (zoom in to see them).
      dense = inWindow > MAX_LINES;
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
      // The picked mark, outlined.
      if (view.pick && view.pick.outline) {
        const [x1, y1, x2, y2] = view.pick.outline();
        ctx.strokeStyle = MARK;
        ctx.lineWidth = 1;
        ctx.setLineDash([2, 2]);
        ctx.strokeRect(Math.min(x1, x2) - 2, Math.min(y1, y2) - 2, Math.abs(x2 - x1) + 4, Math.abs(y2 - y1) + 4);
        ctx.setLineDash([]);
      }
      // Time axis.
      const y = shown.length * rowH + 4;
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
    const rowAt = (y) => Math.floor((y - 2) / rowH);
    // Distance from (x, y) to the segment (x1, y1)-(x2, y2), in pixels.
    function dist(x, y, x1, y1, x2, y2) {
      const dx = x2 - x1, dy = y2 - y1, l = dx * dx + dy * dy;
      const u = l > 0 ? Math.max(0, Math.min(1, ((x - x1) * dx + (y - y1) * dy) / l)) : 0;
      return Math.hypot(x - x1 - u * dx, y - y1 - u * dy);
    }
    // What is under (x, y): a path segment, else a message line, else a slice (or a
    // block's shares).
    function pick(x, y) {
      const { t0, t1 } = view;
      let best = null;
      const consider = (d, limit, make) => {
        if (d <= limit && (!best || d < best.d)) best = { d: d, make: make };
      };
      for (const [segs, which] of [[D.critical, "critical"], [A.same_path ? [] : D.weighted, "weighted"]]) {
        for (const g of segs) {
          const [, , , from, to, , pp, tp] = g;
          if (to < t0 || from > t1 || pp === null) continue;
          const q = tp === null || tp === undefined ? pp : tp;
          consider(dist(x, y, xOf(from), yOf(pp), xOf(to), yOf(q)) - 0.5, 4, () => inspectSegment(g, which));
        }
      }
      if (best) return best.make();
      if (!dense) {
        for (const m of D.messages) {
          if (m[0] > t1) break;
          if (m[2] < t0) continue;
          consider(dist(x, y, xOf(m[0]), yOf(m[1]), xOf(m[2]), yOf(m[3])), 3, () => inspectMessage(m));
        }
      }
      if (best) return best.make();
      const i = rowAt(y);
      if (i < 0 || i >= shown.length || x < LEFT) return null;
      return inspectSlice(shown[i], timeAt(x));
    }
    cv.addEventListener("wheel", (ev) => {
      ev.preventDefault();
      zoom(ev.deltaY < 0 ? 0.8 : 1.25, timeAt(ev.offsetX));
    });
    let drag = null;
    cv.addEventListener("mousedown", (ev) => (drag = { x: ev.offsetX, t0: view.t0, t1: view.t1, moved: false }));
    window.addEventListener("mouseup", (ev) => {
      if (drag && !drag.moved && ev.target === cv) {
        const i = rowAt(ev.offsetY);
        if (ev.offsetX < LEFT && i >= 0 && i < shown.length) {
          // The label gutter: open or close a block, or select a processor.
          const r = shown[i];
          if (r.members.length > 1 || r.inner) {
            if (opened.has(r.group)) opened.delete(r.group);
            else opened.add(r.group);
            layout();
            size();
          } else view.sel = view.sel === r.members[0] ? null : r.members[0];
          changed();
        } else {
          const d = pick(ev.offsetX, ev.offsetY);
          view.pick = d;
          if (d) {
            show(d);
            if (d.pproc !== undefined && d.pproc !== null) view.sel = d.pproc;
          }
          changed();
        }
      }
      drag = null;
    });
    cv.addEventListener("mousemove", (ev) => {
      if (drag) {
        const dx = ev.offsetX - drag.x;
        if (Math.abs(dx) > 2) drag.moved = true;
        if (!drag.moved) return;
        const dt = (dx / W) * (drag.t1 - drag.t0);
        const a = Math.max(0, Math.min(END - (drag.t1 - drag.t0), drag.t0 - dt));
        view.t0 = a;
        view.t1 = a + (drag.t1 - drag.t0);
        changed();
        return;
      }
      const i = rowAt(ev.offsetY);
      if (i < 0 || i >= shown.length) return hideTip();
      if (ev.offsetX < LEFT) return showTip(ev, shown[i].members.length > 1 ? describeGroup(shown[i]) + "\nclick to open" : shown[i].label);
      const d = inspectSlice(shown[i], timeAt(ev.offsetX));
      if (d) showTip(ev, d.text);
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

    // ---- Inspecting: what a click shows ------------------------------------------------
    function inspectSlice(r, t) {
      if (r.members.length > 1) {
        const c = new Float64Array(7);
        const a = Math.max(0, t - (view.t1 - view.t0) / W / 2), b = Math.min(END, a + Math.max(1, (view.t1 - view.t0) / W));
        for (const p of r.members) addCoverage(p, a, b, 1, c, 1 / r.members.length);
        let text = describeGroup(r) + "\nat " + units(Math.round(t)) + ":";
        const shares = {};
        for (let st = 0; st < 6; st++) if (c[st] > 0) { text += "\n" + D.states[st] + " " + Math.round(100 * c[st]) + " %"; shares[D.states[st]] = c[st]; }
        return { kind: "block", text: text, fields: { members: r.members.length, time: t, shares: shares } };
      }
      const p = r.members[0];
      if (binned) {
        const k = Math.min(BINS - 1, Math.max(0, Math.floor((t * BINS) / END)));
        const len = binLo(k + 1) - binLo(k);
        let text = "P" + p + ", " + units(binLo(k)) + " .. " + units(binLo(k + 1)) + " (one bin of the aggregated timeline):";
        for (let st = 0; st < 6; st++) {
          const v = rows[p][st * BINS + k];
          if (v > 0) text += "\n" + D.states[st] + " " + Math.round((100 * v) / len) + " %";
        }
        return { kind: "bin", pproc: p, text: text, fields: { pproc: p } };
      }
      const x = stretchAt(p, t);
      if (!x) return { kind: "idle", pproc: p, text: "P" + p + ": idle at " + units(Math.round(t)), fields: { pproc: p, state: "idle" } };
      const [s, e, st, pid, line] = x;
      let text = "P" + p + ": " + D.states[st];
      if (st === 0) text += "\nprocess " + pid + " (" + fnOf(pid) + ")" + (line > 0 ? ", line " + line + ": " + lineText(line) : "");
      text += "\nstart " + units(s) + ", duration " + units(e - s) + " time units";
      return {
        kind: "slice", pproc: p, line: st === 0 ? line : 0, text: text,
        fields: { pproc: p, state: D.states[st], pid: st === 0 ? pid : null, function: st === 0 ? fnOf(pid) : null, start: s / TPU, duration: (e - s) / TPU, line: line },
        outline: () => [xOf(s), yOf(p) - rowH / 2 + 1, xOf(e), yOf(p) + rowH / 2 - 1],
      };
    }
    function inspectMessage(m) {
      const [send, src, arr, dst, bytes, kind, spid, dpid, line, ch, idx] = m;
      const what = ["channel message", "remote read", "remote write"][kind] || "message";
      let text = what + ": P" + src + " → P" + dst;
      text += "\nfrom process " + spid + " (" + fnOf(spid) + ")" + (line > 0 ? ", line " + line + ": " + lineText(line) : "");
      if (dpid >= 0) text += "\nto process " + dpid + " (" + fnOf(dpid) + ")";
      if (ch >= 0) text += "\nchannel " + element(ch, idx);
      text += "\n" + bytes + " bytes, sent " + units(send) + ", arrived " + units(arr) + ", latency " + units(arr - send) + " time units";
      return {
        kind: "message", pproc: src, line: line, text: text,
        fields: { src: src, dst: dst, src_pid: spid, dst_pid: dpid >= 0 ? dpid : null, channel: ch >= 0 ? element(ch, idx) : null, bytes: bytes, send: send / TPU, arrival: arr / TPU, latency: (arr - send) / TPU, line: line },
        outline: () => [xOf(send), yOf(src), xOf(arr), yOf(dst)],
      };
    }
    function inspectSegment(g, which) {
      const [kind, pid, to, from, upto, weight, pp, tp, par] = g;
      // Its source line: a computation's, the line its process ran at the segment's
      // middle; a message's, the line of its send.
      let line = 0;
      if (kind === "compute" && pp !== null) {
        const x = stretchAt(pp, (from + upto) / 2);
        if (x && x[3] === pid) line = x[4];
      } else {
        for (const m of D.messages) {
          if (m[0] > from) break;
          if (m[0] === from && m[6] === pid) { line = m[8]; break; }
        }
      }
      const name = which === "critical" ? "critical path" : "weighted critical path";
      let text = name + " segment: " + kind + " process " + pid + " (" + fnOf(pid) + ")" + (to !== null ? " → process " + to + " (" + fnOf(to) + ")" : "");
      text += "\n" + units(from) + " .. " + units(upto) + " (" + units(upto - from) + " time units) on P" + pp + (tp !== null && tp !== undefined && tp !== pp ? " → P" + tp : "");
      text += "\nWCPA weight " + units(weight) + ", P = " + (Math.round(par * 10000) / 10000);
      if (line > 0) text += "\nline " + line + ": " + lineText(line);
      return {
        kind: which, pproc: pp, line: line, text: text,
        fields: { kind: kind, pid: pid, to_pid: to, from: from / TPU, to: upto / TPU, weight: weight / TPU, parallelism: par, pproc: pp, line: line },
        outline: () => [xOf(from), yOf(pp), xOf(upto), yOf(tp === null || tp === undefined ? pp : tp)],
      };
    }
    function show(d) {
      details.textContent = d.text;
      details.setAttribute("data-kind", d.kind);
      details.setAttribute("data-json", JSON.stringify(d.fields || {}));
      if (d.line > 0) highlightLine(d.line);
    }

    // ---- Search ------------------------------------------------------------------------
    function search(q) {
      q = q.trim();
      let m, marks = new Set(), text, fields;
      const procs = (pids) => { for (const pid of pids) { const p = D.pproc_of[String(pid)]; if (p !== undefined) marks.add(p); } };
      if ((m = /^p(\d+)$/i.exec(q))) {
        const p = +m[1];
        if (p >= N) return found({ kind: "search", text: "No processor " + q + " (the machine has " + N + ").", fields: { found: 0 } }, null);
        marks.add(p);
        const pids = Object.keys(D.pproc_of).filter((k) => D.pproc_of[k] === p);
        const u = (A.utilization || []).find((x) => x.pproc === p);
        text = "P" + p + ": " + pids.length + " processes" + (pids.length ? " (" + pids.slice(0, 8).map((k) => k + " " + fnOf(k)).join(", ") + (pids.length > 8 ? ", …" : "") + ")" : "") + (u ? ", " + u.percent + " % busy" : "");
        fields = { pproc: p, processes: pids.length };
      } else if ((m = /^(?:#|pid\s*|process\s+)(\d+)$/i.exec(q))) {
        const pid = +m[1];
        const pr = (A.processes || []).find((x) => x.pid === pid);
        if (D.pproc_of[String(pid)] === undefined) return found({ kind: "search", text: "No process " + pid + ".", fields: { found: 0 } }, null);
        procs([pid]);
        text = "process " + pid + " (" + fnOf(pid) + ") on P" + D.pproc_of[String(pid)] + (pr ? ", from " + pr.start + " to " + pr.end + ", busy " + pr.busy + " time units" : "");
        fields = { pid: pid, pproc: D.pproc_of[String(pid)], function: fnOf(pid) };
      } else if ((m = /^(?::|line\s*)(\d+)$/i.exec(q))) {
        const line = +m[1];
        let busy = 0;
        if (!binned)
          for (let p = 0; p < N; p++) {
            const r = rows[p];
            for (let i = 0; i < r.length; i += 5)
              if (r[i + 2] === 0 && r[i + 4] === line) { marks.add(p); busy += r[i + 1] - r[i]; }
          }
        text = "line " + line + ": " + lineText(line) + "\nran on " + marks.size + " processors, " + units(busy) + " time units busy" + (binned ? " (the aggregated timeline has no lines: zoom data not kept)" : "");
        highlightLine(line);
        fields = { line: line, processors: marks.size, busy: busy / TPU };
      } else if (q) {
        let pids = Object.keys(D.functions).filter((k) => D.functions[k] === q);
        if (!pids.length) pids = Object.keys(D.functions).filter((k) => D.functions[k].toLowerCase().includes(q.toLowerCase()));
        procs(pids);
        const names = [...new Set(pids.map((k) => D.functions[k]))];
        text = pids.length ? "function " + names.join(", ") + ": " + pids.length + " processes on " + marks.size + " processors" : "No process runs a function named like \u201c" + q + "\u201d.";
        fields = { functions: names, processes: pids.length, processors: marks.size };
      } else return found(null, null);
      const list = [...marks].sort((a, b) => a - b);
      if (list.length && list.length <= 64) text += "\nprocessors: P" + list.join(", P");
      fields.found = list.length;
      return found({ kind: "search", text: text, fields: fields }, marks);
    }
    function found(d, marks) {
      view.marks = marks && marks.size ? marks : null;
      if (d) show(d);
      else { details.textContent = ""; details.removeAttribute("data-kind"); }
      if (view.marks) {
        // Open the blocks that hold what was found, when few.
        const gs = new Set([...view.marks].map((p) => groupOf[p]));
        if (gs.size <= 4) for (const g of gs) if (groups[g].members.length > 1) opened.add(g);
        layout();
        size();
        if (view.marks.size === 1) view.sel = [...view.marks][0];
      }
      changed();
    }
    go.addEventListener("click", () => search(find.value));
    find.addEventListener("keydown", (ev) => { if (ev.key === "Enter") search(find.value); });
    clear.addEventListener("click", () => { find.value = ""; found(null, null); });
    size();
    listeners.push(draw);
    window.addEventListener("resize", () => { size(); draw(); });
    return {
      size: () => W,
      show: show,
      at: (p, t) => [xOf(t), yOf(p)],
      // Jump to processor p around time t (from the unmatched view).
      focus: (p, t) => {
        const span = Math.max(1, Math.min(END, (view.t1 - view.t0) / 4, END / 20));
        view.t0 = Math.max(0, Math.min(END - span, t - span / 2));
        view.t1 = view.t0 + span;
        if (p !== null && p !== undefined) {
          view.sel = p;
          if (groups[groupOf[p]].members.length > 1) { opened.add(groupOf[p]); layout(); size(); }
        }
        changed();
        cv.scrollIntoView({ block: "nearest" });
      },
    };
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
        pc.fillStyle = view.sel === p ? MARK : COLOURS[0];
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
    const s = section("Communication matrix", "Bytes sent from each virtual processor (row) to each (column), or messages from each physical processor to each; darker for more (log scale). Larger than " + MAX_CELLS + " a side, blocks of processors are summed into one cell: click a cell to zoom into its block.");
    const pick = el("select", {}, el("option", { value: "v", text: "virtual processors, bytes" }), el("option", { value: "pb", text: "physical processors, bytes" }), el("option", { value: "p", text: "physical processors, messages" }));
    const whole = el("button", { type: "button", text: "whole matrix" });
    s.appendChild(el("div", { class: "tools" }, pick, whole));
    const box = el("div", {});
    s.appendChild(box);
    parent.appendChild(s);
    // Channel messages between physical processors: count and bytes.
    const physical = [], physicalBytes = [];
    {
      const count = new Map(), bytes = new Map();
      for (const m of D.messages) {
        if (m[5] !== 0) continue;
        const k = m[1] * 4294967296 + m[3];
        count.set(k, (count.get(k) || 0) + 1);
        bytes.set(k, (bytes.get(k) || 0) + m[4]);
      }
      for (const [k, v] of count) {
        const a = Math.floor(k / 4294967296), b = k % 4294967296;
        physical.push({ src: a, dst: b, bytes: v });
        physicalBytes.push({ src: a, dst: b, bytes: bytes.get(k) });
      }
    }
    let region = null;
    const draw = () => {
      box.textContent = "";
      const v = pick.value;
      region = heat(box, v === "v" ? A.comm || [] : v === "pb" ? physicalBytes : physical, v === "v" ? "V" : "P", v === "p" ? " messages" : " bytes", region, (r) => { region = r; draw(); });
      if (v !== "v" && D.messages_total > D.messages.length)
        box.appendChild(el("div", { class: "hint", text: "Counted over the " + D.messages.length + " messages the page holds (of " + D.messages_total + ")." }));
    };
    pick.addEventListener("change", () => { region = null; draw(); });
    whole.addEventListener("click", () => { region = null; draw(); });
    draw();
  }
  const MAX_CELLS = 128;
  // Draws the rows and columns [r0, r0 + span) of the matrix `comm`, `k` × `k` processors
  // a cell so that at most MAX_CELLS cells make a side; returns the region drawn.
  function heat(s, comm, prefix, unit, region, zoomTo) {
    let V = 0;
    for (const c of comm) V = Math.max(V, c.src + 1, c.dst + 1);
    if (V === 0) {
      s.appendChild(el("div", { class: "hint", text: "No messages." }));
      return null;
    }
    const { r0, c0, span } = region || { r0: 0, c0: 0, span: V };
    const k = Math.ceil(span / MAX_CELLS);
    const side = Math.ceil(span / k);
    const cells = new Float64Array(side * side);
    for (const c of comm) {
      const i = c.src - r0, j = c.dst - c0;
      if (i < 0 || j < 0 || i >= span || j >= span) continue;
      cells[Math.floor(i / k) * side + Math.floor(j / k)] += c.bytes;
    }
    let max = 0;
    for (const x of cells) max = Math.max(max, x);
    const cell = Math.max(2, Math.min(14, Math.floor(400 / side)));
    const cv = el("canvas", { id: "matrix", width: String(side * cell + 2), height: String(side * cell + 2) });
    s.appendChild(cv);
    if (k > 1 || span < V) s.appendChild(el("div", { class: "hint", id: "matrix-scale", text: "Rows " + prefix + r0 + ".." + prefix + (r0 + span - 1) + ", columns " + prefix + c0 + ".." + prefix + (c0 + span - 1) + "; " + (k > 1 ? k + " × " + k + " processors a cell." : "one processor a cell.") }));
    const ctx = cv.getContext("2d");
    ctx.strokeStyle = "#ccc";
    ctx.strokeRect(0.5, 0.5, side * cell + 1, side * cell + 1);
    const lm = Math.log(max + 1);
    for (let i = 0; i < side; i++)
      for (let j = 0; j < side; j++) {
        const v = cells[i * side + j];
        if (!(v > 0)) continue;
        ctx.fillStyle = alpha(COLOURS[0], (0.12 + (0.88 * Math.log(v + 1)) / lm).toFixed(3));
        ctx.fillRect(1 + j * cell, 1 + i * cell, cell, cell);
      }
    const at = (ev) => [Math.floor((ev.offsetY - 1) / cell), Math.floor((ev.offsetX - 1) / cell)];
    const name = (a, b) => (k === 1 ? prefix + a : prefix + a + ".." + prefix + Math.min(V - 1, b));
    cv.addEventListener("mousemove", (ev) => {
      const [i, j] = at(ev);
      if (i < 0 || j < 0 || i >= side || j >= side) return hideTip();
      const a = r0 + i * k, b = c0 + j * k;
      showTip(ev, name(a, a + k - 1) + " → " + name(b, b + k - 1) + ": " + (cells[i * side + j] || 0) + unit + (k > 1 ? "\nclick to zoom in" : ""));
    });
    cv.addEventListener("mouseleave", hideTip);
    cv.addEventListener("click", (ev) => {
      if (k === 1) return;
      const [i, j] = at(ev);
      const next = Math.max(MAX_CELLS, Math.ceil(span / 8));
      const centre = (o, x) => Math.max(0, Math.min(V - next, o + x * k + Math.floor(k / 2) - Math.floor(next / 2)));
      zoomTo({ r0: centre(r0, i), c0: centre(c0, j), span: Math.min(V, next) });
    });
    return { r0, c0, span };
  }

  // ---- Topology ---------------------------------------------------------------------------
  function topology(parent) {
    const s = section("Topology", "The physical machine (" + (D.topology || "?") + "): each node shaded by its load over the tenth of the run before the clock; play replays the run.");
    const controls = el("div", { class: "tools" });
    const play = el("button", { type: "button", text: "play", id: "play" });
    const speed = el("select", { id: "speed", title: "replay speed" });
    for (const x of [0.25, 0.5, 1, 2, 4, 8, 16]) {
      const o = el("option", { value: String(x), text: x + "×" });
      if (x === 1) o.selected = true;
      speed.appendChild(o);
    }
    const slider = el("input", { type: "range", min: "0", max: "1000", value: "1000", style: "width:260px" });
    const clock = el("span", { id: "clock" });
    controls.appendChild(play);
    controls.appendChild(speed);
    controls.appendChild(slider);
    controls.appendChild(clock);
    // Link traffic (routes traced): utilization of the busier direction.
    const traffic = {};
    let maxUse = 0;
    for (const x of A.links || []) {
      const k = Math.min(x.from, x.to) + "," + Math.max(x.from, x.to);
      traffic[k] = Math.max(traffic[k] || 0, x.utilization);
      maxUse = Math.max(maxUse, x.utilization);
    }
    let m;
    const topo = D.topology || "";
    const hyper = /^hypercube:(\d+)$/.exec(topo);
    const grid = (m = /^(mesh|torus):(\d+)x(\d+)$/.exec(topo)) ? [+m[2], +m[3], m[1] === "torus"] : hyper && +hyper[1] > 8 ? [1 << Math.ceil(+hyper[1] / 2), 1 << Math.floor(+hyper[1] / 2), false] : null;
    let draw;
    if (grid && grid[0] * grid[1] > 64) draw = heatGrid(s, grid, traffic, maxUse, !!hyper);
    else draw = graph(s, traffic, maxUse);
    s.appendChild(controls);
    if ((A.links || []).length === 0)
      s.appendChild(el("div", { class: "hint", text: "Link traffic: routes not traced (cpss --trace-routes records them)." }));
    parent.appendChild(s);
    const redraw = () => {
      draw();
      clock.textContent = " clock " + units(view.clock) + " / " + units(END);
    };
    slider.addEventListener("input", () => { view.clock = (slider.value / 1000) * END; redraw(); });
    let timer = null;
    const stop = () => { clearInterval(timer); timer = null; play.textContent = "play"; };
    play.addEventListener("click", () => {
      if (timer) return stop();
      if (view.clock >= END) view.clock = 0;
      play.textContent = "pause";
      // At 1×, the whole run in 8 s (200 steps of 40 ms).
      timer = setInterval(() => {
        view.clock = Math.min(END, view.clock + (END / 200) * Number(speed.value));
        slider.value = String(Math.round((view.clock / END) * 1000));
        redraw();
        if (view.clock >= END) stop();
      }, 40);
    });
    listeners.push(redraw);
  }
  function loadAt(i) {
    const b = view.clock, a = Math.max(0, b - END / 10);
    return i < N && b > a ? busyIn(i, a, b) / (b - a) : 0;
  }
  // A node's fill: white (idle) to the running state's colour (busy).
  function loadColour(load) {
    const [r, g, b] = [1, 3, 5].map((i) => parseInt(COLOURS[0].slice(i, i + 2), 16));
    const mix = (c) => Math.round(255 - (255 - c) * Math.min(1, load));
    return "rgb(" + mix(r) + "," + mix(g) + "," + mix(b) + ")";
  }
  // A small machine: nodes and links as SVG.
  function graph(s, traffic, maxUse) {
    const NS = "http://www.w3.org/2000/svg";
    const svg = document.createElementNS(NS, "svg");
    svg.setAttribute("id", "topology");
    svg.setAttribute("width", "420");
    svg.setAttribute("height", "420");
    s.appendChild(svg);
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
      const n = Math.min(N, 512);
      for (let i = 0; i < n; i++) pos.push([0.5 + 0.5 * Math.cos((2 * Math.PI * i) / n), 0.5 + 0.5 * Math.sin((2 * Math.PI * i) / n)]);
      if (ring) for (let i = 0; i < n; i++) links.push([i, (i + 1) % n]);
    }
    const P = (i) => [20 + (pos[i] ? pos[i][0] : 0) * 380, 20 + (pos[i] ? pos[i][1] : 0) * 380];
    for (const [a, b, wrap] of links) {
      if (a >= pos.length || b >= pos.length) continue;
      const [x1, y1] = P(a), [x2, y2] = P(b);
      const l = document.createElementNS(NS, "line");
      l.setAttribute("x1", x1); l.setAttribute("y1", y1); l.setAttribute("x2", x2); l.setAttribute("y2", y2);
      const use = traffic[Math.min(a, b) + "," + Math.max(a, b)];
      if (use !== undefined && maxUse > 0) {
        l.setAttribute("stroke", alpha(D.line_colours[0], (0.25 + (0.75 * use) / maxUse).toFixed(3)));
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
    const r = Math.max(2, Math.min(12, 150 / Math.sqrt(Math.max(1, pos.length))));
    const nodes = [];
    for (let i = 0; i < pos.length; i++) {
      const c = document.createElementNS(NS, "circle");
      const [x, y] = P(i);
      c.setAttribute("cx", x); c.setAttribute("cy", y); c.setAttribute("r", r);
      c.addEventListener("click", () => { view.sel = view.sel === i ? null : i; changed(); });
      c.addEventListener("mousemove", (ev) => showTip(ev, "P" + i + ": " + Math.round(100 * (c.__load || 0)) + " % busy before " + units(view.clock)));
      c.addEventListener("mouseleave", hideTip);
      svg.appendChild(c);
      nodes.push(c);
    }
    return () => {
      for (let i = 0; i < nodes.length; i++) {
        const load = loadAt(i);
        nodes[i].__load = load;
        nodes[i].setAttribute("fill", loadColour(load));
        nodes[i].setAttribute("stroke-width", view.sel === i ? "3" : "1");
        nodes[i].setAttribute("stroke", view.sel === i ? MARK : "#555");
      }
    };
  }
  // A large mesh, torus or hypercube: a heat grid, one cell a node (a hypercube's nodes
  // in rows of 2^⌈d/2⌉), shaded by load; a mesh's or torus's links, when traced, as bars
  // between the cells shaded by traffic. Wheel to zoom, drag to pan.
  function heatGrid(s, [a, b, wrap], traffic, maxUse, hyper) {
    const SIZE = 420;
    const cv = el("canvas", { id: "topology", width: String(SIZE), height: String(SIZE) });
    s.appendChild(cv);
    s.appendChild(el("div", { class: "hint", text: a + " × " + b + " nodes" + (hyper ? " (hypercube node i at column i mod " + a + ", row i div " + a + ")" : "") + "; wheel to zoom, drag to pan, click a node to select it." }));
    const ctx = cv.getContext("2d");
    const z = { scale: 1, x: 0, y: 0 };
    const base = SIZE / Math.max(a, b);
    const cellAt = (px, py) => [Math.floor((px - z.x) / (base * z.scale)), Math.floor((py - z.y) / (base * z.scale))];
    function draw() {
      const c = base * z.scale;
      ctx.clearRect(0, 0, SIZE, SIZE);
      // The grid's ground grey, so that idle (white) nodes show as cells.
      ctx.fillStyle = "#c8c8c8";
      const gx = Math.max(0, z.x), gy = Math.max(0, z.y);
      ctx.fillRect(gx, gy, Math.min(SIZE, z.x + a * c) - gx, Math.min(SIZE, z.y + b * c) - gy);
      const gap = c >= 3 ? Math.max(1, c / 6) : 0;
      for (let y = 0; y < b; y++)
        for (let x = 0; x < a; x++) {
          const px = z.x + x * c, py = z.y + y * c;
          if (px > SIZE || py > SIZE || px + c < 0 || py + c < 0) continue;
          const i = y * a + x;
          ctx.fillStyle = loadColour(loadAt(i));
          ctx.fillRect(px + gap / 2, py + gap / 2, c - gap, c - gap);
          if (view.sel === i) {
            ctx.strokeStyle = MARK;
            ctx.lineWidth = 2;
            ctx.strokeRect(px + 1, py + 1, c - 2, c - 2);
          }
          if (!hyper && gap > 0 && maxUse > 0) {
            for (const [j, dx, dy] of [[x + 1 < a ? i + 1 : wrap ? i - a + 1 : -1, 1, 0], [y + 1 < b ? i + a : wrap ? x : -1, 0, 1]]) {
              if (j < 0) continue;
              const use = traffic[Math.min(i, j) + "," + Math.max(i, j)];
              if (use === undefined) continue;
              ctx.fillStyle = alpha(D.line_colours[0], (0.25 + (0.75 * use) / maxUse).toFixed(3));
              if (dx) ctx.fillRect(px + c - gap / 2, py + c / 2 - gap / 2, gap, gap);
              else ctx.fillRect(px + c / 2 - gap / 2, py + c - gap / 2, gap, gap);
            }
          }
        }
    }
    cv.addEventListener("wheel", (ev) => {
      ev.preventDefault();
      const f = ev.deltaY < 0 ? 1.25 : 0.8;
      const scale = Math.max(1, Math.min(16, z.scale * f));
      z.x = ev.offsetX - ((ev.offsetX - z.x) * scale) / z.scale;
      z.y = ev.offsetY - ((ev.offsetY - z.y) * scale) / z.scale;
      z.scale = scale;
      if (scale === 1) { z.x = 0; z.y = 0; }
      draw();
    });
    let drag = null;
    cv.addEventListener("mousedown", (ev) => (drag = { x: ev.offsetX, y: ev.offsetY, zx: z.x, zy: z.y, moved: false }));
    cv.addEventListener("mousemove", (ev) => {
      if (drag) {
        const dx = ev.offsetX - drag.x, dy = ev.offsetY - drag.y;
        if (Math.abs(dx) + Math.abs(dy) > 2) drag.moved = true;
        if (drag.moved) { z.x = drag.zx + dx; z.y = drag.zy + dy; draw(); }
        return;
      }
      const [x, y] = cellAt(ev.offsetX, ev.offsetY);
      if (x < 0 || y < 0 || x >= a || y >= b) return hideTip();
      const i = y * a + x;
      showTip(ev, "P" + i + " (" + x + ", " + y + "): " + Math.round(100 * loadAt(i)) + " % busy before " + units(view.clock));
    });
    cv.addEventListener("mouseup", (ev) => {
      if (drag && !drag.moved) {
        const [x, y] = cellAt(ev.offsetX, ev.offsetY);
        if (x >= 0 && y >= 0 && x < a && y < b) { const i = y * a + x; view.sel = view.sel === i ? null : i; changed(); }
      }
      drag = null;
    });
    cv.addEventListener("mouseleave", () => { drag = null; hideTip(); });
    return draw;
  }

  // ---- Unmatched messages ------------------------------------------------------------------
  function unmatched() {
    const sends = A.unmatched_sends || [], recvs = A.pending_receives || [];
    const s = section("Unmatched messages", sends.length + recvs.length === 0 ? "Every message sent was received, and no receive was left waiting." : "Messages sent and never received, and receives still waiting at the end; show jumps the timeline to it.");
    const t = el("table", { id: "unmatched" });
    if (sends.length + recvs.length > 0) {
      t.appendChild(el("tr", {}, el("th", { class: "l", text: "what" }), el("th", { text: "time" }), el("th", { class: "l", text: "process" }), el("th", { class: "l", text: "element" }), el("th", { text: "line" }), el("th", { text: "" })));
      const row = (what, x) => {
        const b = el("button", { type: "button", text: "show" });
        const p = D.pproc_of[String(x.pid)];
        b.addEventListener("click", () => {
          tl.focus(p, Number(x.time) * TPU);
          tl.show({ kind: "unmatched", pproc: p, line: x.line, text: what + ": process " + x.pid + " (" + fnOf(x.pid) + ") on P" + p + ", " + x.element + " at " + x.time + (x.line > 0 ? ", line " + x.line + ": " + lineText(x.line) : ""), fields: { what: what, pid: x.pid, pproc: p, element: x.element, time: Number(x.time), line: x.line } });
        });
        t.appendChild(el("tr", {}, el("td", { class: "l", text: what }), el("td", { text: String(x.time) }), el("td", { class: "l", text: x.pid + " (" + fnOf(x.pid) + ")" }), el("td", { class: "l", text: x.element }), el("td", { text: String(x.line) }), el("td", {}, b)));
      };
      for (const x of sends.slice(0, 500)) row("sent, never received", x);
      for (const x of recvs.slice(0, 500)) row("receive still waiting", x);
      if (sends.length > 500 || recvs.length > 500) s.appendChild(el("div", { class: "hint", text: "The first 500 of each." }));
    }
    s.appendChild(t);
    app.appendChild(s);
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
    const box = el("div", { class: "srcbox", id: "source-box" }, t);
    s.appendChild(box);
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
        t.appendChild(el("tr", { id: "L" + l, class: l === marked ? "hl" : "" }, el("td", { text: String(l) }), el("td", { text: total ? String(Math.round(total * 1000) / 1000) : "" }), bar, el("td", { class: "code", text: text[l - 1] || "" })));
      }
    }
    order.addEventListener("click", () => { heavy = !heavy; order.textContent = heavy ? "source order" : "heaviest first"; fill(); });
    fill();
    // Marks line l and scrolls the source view (only the view) to it.
    showLine = (l) => {
      marked = l;
      for (const r of t.querySelectorAll("tr.hl")) r.classList.remove("hl");
      let r = document.getElementById("L" + l);
      if (!r && heavy) { heavy = false; order.textContent = "heaviest first"; fill(); r = document.getElementById("L" + l); }
      if (!r) return;
      r.classList.add("hl");
      box.scrollTop = Math.max(0, r.offsetTop - box.clientHeight / 2);
    };
  }
  let showLine = null, marked = 0;
  function highlightLine(l) {
    if (showLine) showLine(l);
  }

  // ---- The page ---------------------------------------------------------------------------
  figures();
  const tl = timeline();
  utilization();
  const pair = el("div", { class: "row2" });
  app.appendChild(pair);
  topology(pair);
  matrix(pair);
  unmatched();
  paths();
  source();
  changed();
  // For tests and scripts that drive the page: where processor p's row is at time t on
  // the timeline (canvas pixels), and the timeline's width in pixels.
  window.cppeReport = {
    at: tl.at,
    width: tl.size,
    processors: N,
    end: END,
    tpu: TPU,
    window: () => [view.t0, view.t1],
    // The busy share of processor p's row as drawn over the window.
    drawnBusy: (p) => {
      const W = tl.size(), cov = new Float64Array(W * 7);
      coverage(p, view.t0, view.t1, W, cov);
      let sum = 0;
      for (let k = 0; k < W; k++) sum += Math.min(1, cov[k]);
      return sum / W;
    },
    errors: () => errors.slice(),
  };

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
    const views = ["timeline", "search", "details", "profile", "per-processor", "topology", "unmatched", "wcpa", "stats", "source"].filter((id) => document.getElementById(id));
    const out = { processors: N, end: END, full: drawnBusy(0, END), zoom: { t0: z0, t1: z1, busy: drawnBusy(z0, z1) }, figures: figs, views: views, matrix: !!document.getElementById("matrix"), errors: errors };
    document.body.appendChild(el("pre", { id: "selfcheck", text: JSON.stringify(out) }));
  }
  document.body.setAttribute("data-ready", "1");
})().catch((e) => {
  const p = document.createElement("pre");
  p.id = "failed";
  p.textContent = "The report could not be drawn: " + e;
  document.body.appendChild(p);
});
