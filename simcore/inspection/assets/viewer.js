// The hand viewer (simcore/inspection/page.py). It draws the tables the Python replayer computed,
// one per event; its only rule of its own is the seat view, the same as
// simcore.inspection.replayer.seat_view.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const POS = ["bottom", "right", "top", "left"];   // seat v + i sits at POS[i]
  const SEATS = [0, 1, 2, 3];
  let H = null;        // the shown hand (its payload)
  let states = [];     // the table after each event, filled forward
  let cur = 0;         // the event shown
  let view = -1;       // -1: the whole table; 0-3: what that seat saw
  let reviewAt = {};   // step -> the reviewed seat's decisions taken at the table of that step

  // -- tiles --------------------------------------------------------------------------------
  function parseTiles(text) {
    const out = [];
    let digits = [];
    for (const ch of text || "") {
      if (ch >= "1" && ch <= "9") digits.push(ch);
      else if ("mps".includes(ch)) { for (const d of digits) out.push(d + ch); digits = []; }
    }
    return out;
  }
  function tile(t, cls, attrs) {
    const ref = t === "?" ? "tback" : "t" + t;
    const title = t === "?" ? "hidden tile" : t;
    return `<svg class="tile${cls ? " " + cls : ""}" data-tile="${t}" viewBox="0 0 60 80" role="img" ` +
      `aria-label="${title}"${attrs || ""}><title>${title}</title><use href="#${ref}"/></svg>`;
  }
  // text (a strategy's spec, a file path) as HTML text or an attribute's value
  const esc = (text) => String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;");
  function tilesIn(text) {  // "{5m}" in an event text -> a small tile
    return esc(text).replace(/\{(\d[mps]|\?)\}/g, (_, t) => tile(t));
  }
  const mod4 = (x) => ((x % 4) + 4) % 4;

  // -- the data ------------------------------------------------------------------------------
  function expand(steps, startScores) {
    const out = [];
    let prev = { s: [null, null, null, null], l: 108, sc: startScores, nt: [0, 0, 0, 0], x: 0 };
    for (const st of steps) {
      const seats = prev.s.slice();
      if (st.s) for (const k in st.s) seats[+k] = st.s[k];
      const next = { s: seats, l: st.l, sc: st.sc || prev.sc, nt: st.nt || prev.nt, x: st.x || 0 };
      out.push(next);
      prev = next;
    }
    return out;
  }

  // What viewer v sees of seat s (simcore.inspection.replayer.seat_view).
  function seen(part, s, v, dir) {
    const all = v < 0 || s === v;
    let hand = parseTiles(part.h);
    if (!all) {
      const pub = parseTiles(part.p);
      while (pub.length < hand.length) pub.push("?");
      hand = pub;
    }
    const melds = part.m.map((m) => [m[0], all || m[2] ? m[1] : "?"]);
    let passed = part.ps || [];
    if (!all && mod4(s + dir) !== v) passed = passed.map(() => "?");
    return { hand, melds, passed, drawn: all ? part.dr || null : null };
  }

  // -- drawing -------------------------------------------------------------------------------
  function eventText(i) {
    const e = H.events[i];
    if (view >= 0 && e.length > 3) return e[3][view];
    return e[2];
  }

  function meldHtml(kind, t) {
    const n = kind === "pung" ? 3 : 4;
    let inner = "";
    for (let i = 0; i < n; i++) {
      const back = t === "?" || (kind === "kong_concealed" && (i === 0 || i === 3));
      inner += tile(back ? "?" : t);
    }
    const what = kind.replace("_", " ");
    return `<span class="meld" data-kind="${kind}" data-tile="${t}" title="${what}">${inner}</span>`;
  }

  function seatHtml(s, st, evt) {
    const part = st.s[s];
    const x = seen(part, s, view, st.x);
    const wins = part.w || [];
    const out = H.flow ? false : wins.length > 0;
    const head = [];
    head.push(`<span class="seat-name">seat ${s}</span>`);
    head.push(`<span class="strategy" title="${esc(H.specs[s])}">${esc(H.strategies[s])}</span>`);
    if (s === H.dealer) head.push(`<span class="badge dealer" title="dealer">dealer</span>`);
    if (part.v) head.push(`<span class="badge void-${part.v}" title="void suit">void ${part.v}</span>`);
    if (wins.length) head.push(`<span class="badge won">${wins.length > 1 ? "won ×" + wins.length : "won"}</span>`);
    if (part.lk) head.push(`<span class="badge locked" title="blood flow: won, hand fixed">locked</span>`);
    if (part.ck) head.push(`<span class="badge ${part.ck}">${part.ck === "pig" ? "flower pig" : part.ck.replace("_", " ")}</span>`);
    let delta = "";
    if (evt[0] === "payment") {
      const p = H.payments.find((q) => q[4] === cur);
      if (p && p[0] === s) delta = ` <span class="delta neg">−${p[2]}</span>`;
      if (p && p[1] === s) delta = ` <span class="delta pos">+${p[2]}</span>`;
    }
    const net = st.nt[s];
    head.push(`<span class="score">score <b class="score-value">${st.sc[s]}</b> · net ` +
      `<b class="net ${net > 0 ? "pos" : net < 0 ? "neg" : ""}">${net > 0 ? "+" : ""}${net}</b>${delta}</span>`);

    let hand = x.hand.slice();
    let drawn = "";
    if (x.drawn) {
      const i = hand.lastIndexOf(x.drawn);
      if (i >= 0) { hand.splice(i, 1); drawn = tile(x.drawn, "drawn"); }
    }
    const rows = [];
    rows.push(`<div class="row hand">${hand.map((t) => tile(t)).join("")}${drawn}</div>`);
    const melds = x.melds.map((m) => meldHtml(m[0], m[1])).join("");
    const aside = wins.map((w) => tile(w[0], "", ` data-win="${w[1]}"`)).join("");
    rows.push(`<div class="row sets"><span class="label">sets</span><span class="melds">${melds || "–"}</span>` +
      (aside ? `<span class="label">won on</span><span class="aside">${aside}</span>` : "") + `</div>`);
    if (part.lk) {
      rows.push(`<div class="row waits"><span class="label">waits</span>${(part.wt || []).map((t) => tile(t)).join("") || "none"}</div>`);
    }
    const lastTile = (evt[0] === "discard" && evt[1] === s) ? part.d.length - 1 : -1;
    const discards = part.d.map((d, i) => {
      const cls = i === lastTile ? "current" : "";
      if (typeof d === "string") return tile(d, cls, ` data-claim=""`);
      return tile(d[0], "claimed " + cls, ` data-claim="${d[1]}" data-by="${d[2].join(",")}"`);
    }).join("");
    rows.push(`<div class="row discards"><span class="label">discards</span>${discards}</div>`);
    if (x.passed.length) {
      rows.push(`<div class="row passed"><span class="label">passed → seat ${mod4(s + st.x)}</span>` +
        `${x.passed.map((t) => tile(t)).join("")}</div>`);
    }
    return { html: `<div class="seat-head">${head.join("")}</div>${rows.join("")}`, out, part, x };
  }

  function centreHtml(st, evt) {
    const dirName = { 1: "to the next seat", "-1": "to the previous seat", 2: "across", 3: "to the previous seat" };
    const parts = [];
    parts.push(`<div class="wall">wall<b id="wall-left" data-left="${st.l}">${st.l}</b>tiles left</div>`);
    const text = eventText(cur);
    parts.push(`<div class="now" id="now">${text === null ? "<i>not seen by this seat</i>" : tilesIn(text)}</div>`);
    if (st.x) parts.push(`<div class="exchange">exchange ${st.x > 0 ? "+" : ""}${st.x}: ${dirName[st.x] || ""}</div>`);
    if (cur === states.length - 1) parts.push(`<a class="to-settlement" href="#settlement">settlement below ↓</a>`);
    const paid = H.payments.filter((p) => p[4] <= cur);
    if (paid.length) {
      const lines = paid.slice(-8).map((p) =>
        `<div class="${p[4] === cur ? "this" : ""}">seat ${p[0]} → seat ${p[1]}: ${p[2]} (${p[3]})</div>`);
      parts.push(`<div class="pays" id="payments" data-count="${paid.length}"><b>payments (${paid.length})</b>${lines.join("")}</div>`);
    }
    return parts.join("");
  }

  function render() {
    const st = states[cur];
    const evt = H.events[cur];
    const bottom = view >= 0 ? view : 0;
    for (let i = 0; i < 4; i++) {
      const s = mod4(bottom + i);
      const el = document.querySelector(`#table .pos-${POS[i]}`);
      const r = seatHtml(s, st, evt);
      el.innerHTML = r.html;
      el.dataset.seat = s;
      el.dataset.score = st.sc[s];
      el.dataset.net = st.nt[s];
      el.dataset.void = r.part.v || "";
      el.dataset.wins = (r.part.w || []).length;
      el.dataset.locked = r.part.lk ? "1" : "0";
      el.dataset.waits = (r.part.wt || []).join(",");
      el.dataset.hidden = r.x.hand.filter((t) => t === "?").length;
      el.classList.toggle("acting", evt[1] === s);
      el.classList.toggle("out", r.out);
    }
    $("centre").innerHTML = centreHtml(st, evt);
    document.body.dataset.step = cur;
    document.body.dataset.view = view;
    $("slider").value = cur;
    $("counter").textContent = `${cur + 1} / ${states.length}`;
    const list = $("events");
    const old = list.querySelector("li.current");
    if (old) old.classList.remove("current");
    const li = list.children[cur];
    if (li) {
      li.classList.add("current");
      const box = $("log");
      if (li.offsetTop < box.scrollTop || li.offsetTop > box.scrollTop + box.clientHeight - 24) {
        box.scrollTop = li.offsetTop - box.clientHeight / 2;
      }
    }
    if (H.review) $("decision").innerHTML = decisionHtml();
    renderSettlement();
  }

  function eventList() {
    const items = H.events.map((e, i) => {
      const text = eventText(i);
      let cls = `k-${e[0]}${text === null ? " unseen" : ""}`;
      let body = text === null ? "not seen by this seat" : tilesIn(text);
      const ds = reviewAt[i];
      if (ds) {
        const worst = ds.reduce((a, d) => (!d.cb && (a.cb || d.lost > a.lost) ? d : a));
        cls += ds.some(costly) ? " decision costly" : " decision";
        body += ` <span class="cost" title="seat ${H.review.seat}'s decision: what its choice gave up against the ` +
          `best option">&#9670; ${worst.cb ? "best" : short(worst.lost)}</span>`;
      }
      return `<li class="${cls}" data-i="${i}" data-kind="${e[0]}">${body}</li>`;
    });
    $("events").innerHTML = items.join("");
  }

  // -- the reviewer ----------------------------------------------------------------------------
  // A decision is costly when the paired interval of what the choice gave up lies above 0.
  const costly = (d) => !d.cb && d.lost_lo > 0;
  const signed = (x) => (x > 0 ? "+" : x < 0 ? "−" : "") + Math.abs(x).toFixed(2);
  // a shortfall from the best (>= 0, review.shortfall) as the page shows it: never above 0
  const short = (x) => (x.toFixed(2) === "0.00" ? "0.00" : "−" + x.toFixed(2));
  const answerHtml = (text) => esc(text).replace(/\b([1-9][mps])\b/g, (_, t) => tile(t));
  function decisionWhat(d) {
    return `${d.q}${d.tile ? " on " + tile(d.tile) : ""}`;
  }

  function reviewSetup() {
    reviewAt = {};
    const R = H.review;
    $("review").hidden = !R;
    if (!R) { $("decision").innerHTML = ""; $("review-summary").innerHTML = ""; return; }
    for (const d of R.d) (reviewAt[d.at] = reviewAt[d.at] || []).push(d);
    const worst = R.d.filter((d) => !d.cb && d.lost > 0).sort((a, b) => b.lost - a.lost || a.k - b.k).slice(0, 5);
    const items = worst.map((d) => `<li data-at="${d.at}" data-k="${d.k}" class="${costly(d) ? "costly" : ""}">` +
      `event ${d.at + 1} · ${decisionWhat(d)}: chose ${answerHtml(d.chosen)}, best ${answerHtml(d.best)} · ` +
      `<b>${short(d.lost)}</b> (${short(d.lost_hi)} to ${short(d.lost_lo)})</li>`);
    const noise = R.lost_lo > 0 ? "" : R.lost_hi > 0 ? ": its interval reaches 0, within the noise"
      : ": nothing the rollouts can tell from noise";
    $("review-summary").innerHTML = `<h3>Review of seat ${R.seat} (<span class="name">${esc(R.strategy)}</span>)</h3>` +
      `<p>${R.d.length} decision${R.d.length === 1 ? "" : "s"} judged, ${R.rollouts} rollouts each, every seat of a ` +
      `rollout playing <span class="name">${esc(R.policy)}</span>. Against the best option of each decision ` +
      `the seat gave up <b id="review-lost">${R.lost.toFixed(2)}</b> points in all, 95% interval ` +
      `<span id="review-lost-ci">${R.lost_lo.toFixed(2)} to ${R.lost_hi.toFixed(2)}</span> (each decision's gap is ` +
      `unbiased, and their sum carries the noise of them all${noise}).</p>` +
      (items.length ? `<p>The costliest decisions (click to go there):</p><ol id="costliest">${items.join("")}</ol>`
        : `<p id="costliest-none">The seat chose the best option at every decision.</p>`);
  }

  function decisionHtml() {
    const R = H.review;
    const ds = reviewAt[cur];
    if (!ds) {
      const next = R.d.find((d) => d.at > cur);
      return `<p class="hint">No decision of seat ${R.seat} at this table.` +
        (next ? ` Next: event ${next.at + 1} (${next.q}).` : "") + `</p>`;
    }
    return ds.map((d) => {
      const rows = d.o.map((o) => `<tr class="${o[7] ? "chosen" : ""}${o[8] ? " best" : ""}" data-answer="${esc(o[0])}">` +
        `<td>${o[7] ? "chosen" : ""}</td><td>${answerHtml(o[0])}</td><td class="num">${signed(o[1])}</td>` +
        `<td class="num">${signed(o[2])} to ${signed(o[3])}</td>` +
        `<td class="num">${o[8] ? "best" : short(o[4])}</td>` +
        `<td class="num">${o[8] ? "" : short(o[6]) + " to " + short(o[5])}</td></tr>`).join("");
      const verdict = d.cb ? "the best option" :
        `${short(d.lost)} against the best (${short(d.lost_hi)} to ${short(d.lost_lo)})` +
        (costly(d) ? "" : ", within the noise");
      const judged = d.table === d.at ? "" : ` · judged at the table before this event (←)`;
      return `<table class="options${costly(d) ? " costly" : ""}" data-k="${d.k}"><caption>Seat ${R.seat} decides: ` +
        `${decisionWhat(d)} (decision ${d.k}) · chose ${answerHtml(d.chosen)}: ${verdict}${judged}</caption>` +
        `<tr><th></th><th>option</th><th class="num">mean net</th><th class="num">95% interval</th>` +
        `<th class="num">vs best</th><th class="num">paired 95%</th></tr>${rows}</table>`;
    }).join("");
  }

  function netCell(x) { return `<td class="num">${x > 0 ? "+" : ""}${x}</td>`; }
  function handCell(tiles, melds) {
    return tiles.map((t) => tile(t)).join("") + " " + (melds || []).map((m) => meldHtml(m.kind, m.tile)).join("");
  }

  function renderSettlement() {
    const box = $("settlement");
    const atEnd = cur === states.length - 1;
    box.hidden = !atEnd;
    if (!atEnd) { box.innerHTML = ""; return; }
    const S = H.settle;
    const out = [`<h2>Settlement</h2>`];
    if (S.error) out.push(`<p class="error">${tilesIn(S.error)}</p>`);
    if (S.end) out.push(`<p>${S.end.reason.replace("_", " ")} · ${S.end.tiles_left} tiles left · next dealer seat ${S.end.next_dealer}</p>`);
    const head = SEATS.map((s) => `<th class="num">seat ${s}</th>`).join("");
    const rows = Object.entries(S.by_reason).map(([r, v]) => `<tr data-reason="${r}"><th>${r}</th>${v.map(netCell).join("")}</tr>`);
    rows.push(`<tr class="net-row"><th>net</th>${S.net.map(netCell).join("")}</tr>`);
    rows.push(`<tr class="score-row"><th>score</th>${S.scores.map((x) => `<td class="num">${x}</td>`).join("")}</tr>`);
    out.push(`<h3>Payments by reason</h3><table class="by-reason"><tr><th></th>${head}</tr>${rows.join("")}</table>`);
    if (S.wins.length) {
      const w = S.wins.map((x, i) => `<tr class="win-row" data-seat="${x.seat}"><td>${i + 1}</td><td>seat ${x.seat}</td>` +
        `<td>${x.kind.replace("_", " ")}${x.from !== null ? " from seat " + x.from : ""}</td><td>${tile(x.tile)}</td>` +
        `<td>${handCell(x.tiles, x.melds)}</td>` +
        `<td>${Object.entries(x.patterns).map(([p, f]) => `${p} ${f}`).join(", ") || "–"}</td>` +
        `<td class="num">${x.fan}</td><td class="num">${x.base}</td><td class="num">${x.tiles_left}</td></tr>`);
      out.push(`<h3>Wins</h3><table class="wins"><tr><th>#</th><th>seat</th><th>how</th><th>tile</th><th>hand</th>` +
        `<th>patterns</th><th class="num">fan</th><th class="num">base</th><th class="num">left</th></tr>${w.join("")}</table>`);
    }
    if (S.checks.length) {
      const c = S.checks.map((x) => {
        const state = x.pig ? "flower pig" : x.ready ? "ready" : "not ready";
        const values = x.wait_values || {};
        const waits = (x.waits || []).map((t) => tile(t) + (t in values ? `<small> ${values[t]}</small>` : "")).join(" ");
        return `<tr class="check-row" data-seat="${x.seat}"><td>seat ${x.seat}</td><td>${state}</td>` +
          `<td>${waits || "–"}</td><td class="num">${x.best_base}</td>` +
          `<td>${x.tiles ? handCell(x.tiles, x.melds) : "–"}</td>` +
          `<td>${(x.void_tiles || []).map((t) => tile(t)).join("") || "–"}</td></tr>`;
      });
      out.push(`<h3>Drawn-hand checks</h3><table class="checks"><tr><th>seat</th><th>result</th><th>waits (base)</th>` +
        `<th class="num">best</th><th>tiles</th><th>void tiles held</th></tr>${c.join("")}</table>`);
    }
    box.innerHTML = out.join("");
  }

  // -- stepping ------------------------------------------------------------------------------
  function go(i) {
    cur = Math.max(0, Math.min(states.length - 1, i));
    render();
  }

  function loadHand(k) {
    H = JSON.parse($("hand-" + k).textContent);   // parsed only when shown
    states = expand(H.steps, H.start_scores);
    $("slider").max = states.length - 1;
    $("title").textContent = `hand ${H.hand} · ${H.rules} · seed ${H.seed} · dealer seat ${H.dealer}` +
      (H.match !== null ? ` · match ${H.match} hand ${H.hand_in_match}` : "");
    document.body.dataset.hand = H.hand;
    reviewSetup();
    eventList();
    go(0);
  }

  function setView(v) {
    view = v;
    eventList();
    render();
  }

  function init() {
    const index = JSON.parse($("hand-index").textContent);
    const pick = $("hand-select");
    pick.innerHTML = index.map((h) => `<option value="${h.id}">${esc(h.label)}</option>`).join("");
    if (index.length < 2) $("hand-pick").hidden = true;
    // a choice made, the keys step through events again
    pick.addEventListener("change", () => { loadHand(+pick.value); pick.blur(); });
    $("view-select").addEventListener("change", (e) => { setView(+e.target.value); e.target.blur(); });
    $("first").addEventListener("click", () => go(0));
    $("prev").addEventListener("click", () => go(cur - 1));
    $("next").addEventListener("click", () => go(cur + 1));
    $("last").addEventListener("click", () => go(states.length - 1));
    $("slider").addEventListener("input", (e) => go(+e.target.value));
    $("events").addEventListener("click", (e) => {
      const li = e.target.closest("li[data-i]");
      if (li) go(+li.dataset.i);
    });
    $("review-summary").addEventListener("click", (e) => {
      const li = e.target.closest("li[data-at]");
      if (li) go(+li.dataset.at);
    });
    document.addEventListener("keydown", (e) => {
      const tag = e.target.tagName;
      if (tag === "SELECT" || tag === "INPUT" || e.altKey || e.ctrlKey || e.metaKey) return;
      const to = { ArrowRight: cur + 1, ArrowLeft: cur - 1, Home: 0, End: states.length - 1 }[e.key];
      if (to === undefined) return;
      e.preventDefault();
      go(to);
    });
    loadHand(index[0].id);
  }

  window.handViewer = { go, setView, get step() { return cur; }, get length() { return states.length; } };
  init();
})();
