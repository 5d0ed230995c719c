// Score calculator: scores come from the server (POST /api/score), which uses the same
// parser and checks as `lostcities score`; this page only collects the cards.
"use strict";
(() => {
  const $ = (x) => document.getElementById(x);
  const t = LC.t;
  const KEY = "lostcities.calculator";
  const RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10"];
  const blank = () => [[{}, {}, {}], [{}, {}, {}]];
  const zeros = () => [[0, 0, 0], [0, 0, 0]];
  let st;
  try { st = JSON.parse(localStorage.getItem(KEY)) || null; } catch { st = null; }
  if (!st || !st.entries) st = { variant: "classic", player: 0, round: 0, entries: blank() };
  if (!st.totals) st.totals = blank();
  if (!st.ach) st.ach = zeros();
  if (st.mode !== "totals") st.mode = "cards";
  const cache = new Map();
  const save = () => localStorage.setItem(KEY, JSON.stringify(st));
  const colors = () => (st.variant === "long" ? ["y", "b", "w", "g", "r", "p"] : ["y", "b", "w", "g", "r"]);
  const cur = () => st.entries[st.player][st.round];
  const curTotals = () => st.totals[st.player][st.round];
  const entry = (p, r) => ({ mode: st.mode, cards: st.entries[p][r], totals: st.totals[p][r], ach: st.ach[p][r] || 0 });

  document.querySelector(`input[name=variant][value=${st.variant}]`).checked = true;
  document.querySelector(`input[name=player][value="${st.player}"]`).checked = true;
  document.querySelector(`input[name=round][value="${st.round}"]`).checked = true;
  document.querySelectorAll("input[name=variant]").forEach((i) => i.addEventListener("change", () => { st.variant = i.value; save(); build(); update(); }));
  document.querySelectorAll("input[name=player]").forEach((i) => i.addEventListener("change", () => { st.player = Number(i.value); save(); build(); update(); }));
  document.querySelectorAll("input[name=round]").forEach((i) => i.addEventListener("change", () => { st.round = Number(i.value); save(); build(); update(); }));
  document.querySelector(`input[name=mode][value=${st.mode}]`).checked = true;
  document.querySelectorAll("input[name=mode]").forEach((i) => i.addEventListener("change", () => { st.mode = i.value; save(); build(); update(); }));
  const achInput = $("achievements");
  achInput.addEventListener("input", () => {
    const n = Number(achInput.value);
    st.ach[st.player][st.round] = Number.isInteger(n) ? n : achInput.value;
    save(); schedule();
  });

  // text <-> keys: "x,x,3,5" <-> {wagers: 2, ranks: {3, 5}} (only when the text is in order)
  function parse(text) {
    const toks = text.replace(/\s+/g, ",").split(",").map((t) => t.trim().toLowerCase()).filter(Boolean);
    let wagers = 0;
    const ranks = new Set();
    for (const t of toks) {
      if (t === "x") wagers += 1;
      else if (RANKS.includes(t)) ranks.add(t);
    }
    return { wagers, ranks };
  }
  // typed cards in any order ("5,3") put in order ("3,5"): cards are counted, not played, here;
  // text that is not a set of cards (a repeat, an unknown card) is left for the server to name
  function inOrder(text) {
    const toks = text.replace(/\s+/g, ",").split(",").map((x) => x.trim().toLowerCase()).filter(Boolean);
    const nums = toks.filter((x) => x !== "x");
    if (!nums.every((x) => RANKS.includes(x)) || new Set(nums).size !== nums.length || toks.length - nums.length > 3) return text;
    const { wagers, ranks } = parse(text);
    return format(wagers, ranks);
  }
  function format(wagers, ranks) {
    const out = Array(wagers).fill("x");
    for (const r of RANKS) if (ranks.has(r)) out.push(r);
    return out.join(",");
  }

  function buildTotals(rows) {
    const labels = [["sum", t("calc.number_sum")], ["wagers", t("calc.wagers")], ["cards", t("calc.cards_incl")]];
    for (const c of colors()) {
      const vals = curTotals()[c] || [0, 0, 0];
      const row = document.createElement("div");
      row.className = "calc-row";
      row.dataset.color = c;
      row.innerHTML = `<div class="calc-badge c-${c}" title="${LC.NAMES[c]}">${LC.symbol(c)}</div><div><div class="calc-quick"></div><div class="calc-line"><span class="detail muted"></span><span class="score">0</span></div></div>`;
      const box = row.querySelector(".calc-quick");
      labels.forEach(([name, label], k) => {
        const l = document.createElement("label");
        l.textContent = label;
        const input = document.createElement("input");
        input.type = "number";
        input.inputMode = "numeric";
        input.min = "0";
        input.name = `${c}-${name}`;
        input.value = String(vals[k]);
        input.setAttribute("aria-label", `${LC.NAMES[c]} ${label}`);
        input.addEventListener("input", () => {
          const t = (curTotals()[c] || [0, 0, 0]).slice();
          const n = Number(input.value);
          t[k] = input.value === "" ? 0 : Number.isInteger(n) ? n : input.value;
          curTotals()[c] = t;
          save();
          schedule();
        });
        l.appendChild(input);
        box.appendChild(l);
      });
      rows.appendChild(row);
    }
  }

  function build() {
    const rows = $("rows");
    rows.innerHTML = "";
    achInput.value = String(st.ach[st.player][st.round] || 0);
    document.querySelectorAll(".mode-totals").forEach((el) => el.classList.toggle("hidden", st.mode !== "totals"));
    document.querySelectorAll(".mode-cards").forEach((el) => el.classList.toggle("hidden", st.mode === "totals"));
    if (st.mode === "totals") { buildTotals(rows); return; }
    for (const c of colors()) {
      const text = cur()[c] || "";
      const { wagers, ranks } = parse(text);
      const row = document.createElement("div");
      row.className = "calc-row";
      row.dataset.color = c;
      row.innerHTML = `<div class="calc-badge c-${c}" title="${LC.NAMES[c]}">${LC.symbol(c)}</div><div><div class="keys"></div><div class="calc-line"><input type="text" aria-label="${LC.esc(t("calc.cards_of", { exp: LC.PILE_NAMES[c] }))}" placeholder="${LC.NAMES[c]}: x,2,5…" value="${LC.esc(text)}"><span class="detail muted"></span><span class="score">0</span></div></div>`;
      const keys = row.querySelector(".keys");
      const w = document.createElement("button");
      w.type = "button";
      w.className = `key wager${wagers ? " on c-" + c : ""}`;
      w.textContent = `×${wagers + 1}`;
      w.title = t("calc.wager_key");
      // the visible "×N" first: the accessible name contains the visible text
      w.setAttribute("aria-label", `${w.textContent} ${t("calc.wagers_of", { exp: LC.PILE_NAMES[c], n: wagers })}`);
      w.addEventListener("click", () => { set(c, format((wagers + 1) % 4, ranks)); });
      keys.appendChild(w);
      for (const r of RANKS) {
        const k = document.createElement("button");
        k.type = "button";
        k.className = `key${ranks.has(r) ? " on c-" + c : ""}`;
        k.textContent = r;
        k.setAttribute("aria-pressed", ranks.has(r) ? "true" : "false");
        k.setAttribute("aria-label", LC.cardLabel(c + r));
        k.addEventListener("click", () => {
          const next = new Set(ranks);
          if (next.has(r)) next.delete(r); else next.add(r);
          set(c, format(wagers, next));
        });
        keys.appendChild(k);
      }
      const input = row.querySelector("input");
      input.addEventListener("input", () => { cur()[c] = input.value; save(); schedule(); });
      input.addEventListener("change", () => { cur()[c] = inOrder(input.value); save(); build(); schedule(); });
      rows.appendChild(row);
    }
  }
  function set(c, text) {
    cur()[c] = text;
    save();
    build();
    update();
  }

  async function score(e) {
    const body = { variant: st.variant, achievements: e.ach };
    if (e.mode === "totals") {
      body.totals = {};
      for (const c of colors()) if (e.totals[c]) body.totals[c] = e.totals[c];
    } else {
      body.expeditions = {};
      for (const c of colors()) if (e.cards[c]) body.expeditions[c] = inOrder(e.cards[c]);
    }
    const key = JSON.stringify(body);
    if (cache.has(key)) return cache.get(key);
    const p = LC.api("POST", "/api/score", body).then((r) => ({ ok: true, r }), (e) => ({ ok: false, error: e.code === "invalid" ? errorText(e.message) : e.message, raw: e.serverMessage || "" }));
    cache.set(key, p);
    return p;
  }

  // the CLI's reasons for bad input (lostcities score, lostcities/scoring.py) in the page's
  // language, English too (not the command line's "card 'w11' (rank 11 ...)"); a reason not
  // known here keeps the server's words
  const REASONS = [
    [/^(\w+) is lower than the previous card (\w+);/, (m) => t("calc.err.lower", { card: LC.cardLabel(m[1]), prev: LC.cardLabel(m[2]) })],
    [/^(\w+) is repeated;/, (m) => t("calc.err.repeated", { card: LC.cardLabel(m[1]) })],
    [/^wager (\w+) after the number card (\w+);/, (m) => t("calc.err.wager_late", { prev: LC.cardLabel(m[2]) })],
    [/^more than 3 \w+ wagers$/, () => t("calc.err.wagers")],
    [/^card /, () => t("calc.err.card")],
    [/^\w+ is -?\d+ \(negative numbers are not allowed\)$/, () => t("calc.err.negative")],
    [/^\d+ wagers \(a colour has 3\)$/, () => t("calc.err.totals_wagers")],
    [/^\d+ cards \(a colour has (\d+):/, (m) => t("calc.err.totals_cards", { max: Number(m[1]) })],
    [/^\d+ wagers? but only \d+ cards?/, () => t("calc.err.wagers_cards")],
    [/^\d+ number cards with \d+ wagers/, () => t("calc.err.numbers")],
    [/^a sum of (\d+) but no cards$/, (m) => t("calc.err.sum_no_cards", { sum: Number(m[1]) })],
    [/^a sum of (\d+) but the \d+ cards? (are|is a) wagers?$/, (m) => t("calc.err.sum_wagers", { sum: Number(m[1]) })],
    [/^(\d+) number cards? cannot sum to (\d+) \(\d+ different ranks? from 2\.\.10 sum to (\d+)\.\.(\d+)\)$/,
      (m) => t("calc.err.sum_range", { n: Number(m[1]), sum: Number(m[2]), low: Number(m[3]), high: Number(m[4]) })],
    [/^\w+ '.*' is not a whole number$/, () => t("calc.err.not_number")],
  ];
  function errorText(message) {
    if (!message) return message;
    if (message.startsWith("invalid achievements")) return t("calc.err.achievements");
    const m = /^invalid (?:expedition|totals) '(\w)[^']*': (.*)$/.exec(message);
    if (!m) return message;
    for (const [re, say] of REASONS) {
      const r = re.exec(m[2]);
      if (r) return t("calc.err.where", { exp: LC.PILE_NAMES[m[1]] || m[1], reason: say(r) });
    }
    return message;
  }

  let timer = null;
  function schedule() { clearTimeout(timer); timer = setTimeout(update, 150); }

  let updates = 0;
  async function update() {
    const n = ++updates;
    const res = await score(entry(st.player, st.round));
    if (n !== updates) return; // a later edit is being scored: never show an older answer
    $("calc-error").textContent = res.ok ? "" : res.error;
    // one bad colour does not blank the round: the others are scored without it
    const bad = new Set();
    let shown = res;
    const e0 = entry(st.player, st.round);
    while (!shown.ok && e0.mode === "cards" && bad.size < colors().length) {
      const m = /^invalid expedition '(\w)/.exec(shown.raw || "");
      if (!m || bad.has(m[1])) break;
      bad.add(m[1]);
      shown = await score({ ...e0, cards: Object.fromEntries(Object.entries(e0.cards || {}).filter(([c]) => !bad.has(c))) });
      if (n !== updates) return;
    }
    if (!res.ok && shown.ok) {
      for (const c of colors()) {
        const row = document.querySelector(`.calc-row[data-color=${c}]`);
        if (!row) continue;
        const e = shown.r.expeditions[c];
        row.querySelector(".score").textContent = bad.has(c) ? "–" : e.score;
        row.querySelector(".detail").textContent = bad.has(c) ? "" : e.num_cards ? `(${e.number_sum} − 20) × ${e.multiplier}${e.bonus ? " + 20" : ""}` : t("calc.not_started");
      }
      $("calc-total").textContent = "–";
      $("breakdown").innerHTML = "";
    } else if (res.ok) {
      for (const c of colors()) {
        const e = res.r.expeditions[c];
        const row = document.querySelector(`.calc-row[data-color=${c}]`);
        if (!row) continue;
        row.querySelector(".score").textContent = e.score;
        row.querySelector(".detail").textContent = e.num_cards
          ? `(${e.number_sum} − 20) × ${e.multiplier}${e.bonus ? " + 20" : ""}`
          : t("calc.not_started");
      }
      $("calc-total").textContent = res.r.total;
      $("breakdown").innerHTML = LC.sheetTable(colors(), colors().map((c) => res.r.expeditions[c]))
        + (res.r.achievements ? `<p>${t("calc.achievements_line", { n: res.r.achievements, points: res.r.achievement_points })}</p>` : "");
    } else {
      // invalid input: no stale figures stay on screen
      $("calc-total").textContent = "–";
      $("breakdown").innerHTML = "";
      for (const row of document.querySelectorAll(".calc-row")) {
        row.querySelector(".score").textContent = "–";
        row.querySelector(".detail").textContent = "";
      }
    }
    sheet();
  }

  async function sheet() {
    const totals = [[null, null, null], [null, null, null]];
    for (let p = 0; p < 2; p++) {
      for (let r = 0; r < 3; r++) {
        const res = await score(entry(p, r));
        totals[p][r] = res.ok ? res.r.total : null;
      }
    }
    const cell = (v) => (v === null ? `<span class="err" title="${t("calc.invalid")}">!</span>` : v);
    let html = `<thead><tr><th>${t("sheet.round_lower")}</th><th>${t("calc.player_a")}</th><th>${t("calc.player_b")}</th></tr></thead><tbody>`;
    for (let r = 0; r < 3; r++) {
      const mark = (p) => (st.player === p && st.round === r ? ' style="background:#fff4cc"' : "");
      html += `<tr><td>${r + 1}</td><td${mark(0)}>${cell(totals[0][r])}</td><td${mark(1)}>${cell(totals[1][r])}</td></tr>`;
    }
    const sum = (p) => totals[p].reduce((a, b) => a + (b || 0), 0);
    html += `<tr class="total"><td>${t("sheet.total")}</td><td>${sum(0)}</td><td>${sum(1)}</td></tr></tbody>`;
    $("sheet").innerHTML = html;
  }

  $("clear").addEventListener("click", () => {
    st.entries[st.player][st.round] = {};
    st.totals[st.player][st.round] = {};
    st.ach[st.player][st.round] = 0;
    save(); build(); update();
  });
  $("reset").addEventListener("click", () => {
    if (!confirm(t("calc.confirm_reset"))) return;
    st.entries = blank();
    st.totals = blank();
    st.ach = zeros();
    save(); build(); update();
  });
  build();
  update();
})();
