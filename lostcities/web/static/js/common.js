// Shared helpers: card rendering (colour + symbol), remembered games, API calls, toasts.
"use strict";

const LC = (() => {
  // -- languages: the page's catalogue (/i18n/{lang}.js, loaded before this file) ---------------
  const LANG = window.LC_LANG || document.documentElement.lang || "en";
  const MESSAGES = window.LC_MESSAGES || {};
  const plurals = new Intl.PluralRules(LANG);
  const numbers = new Intl.NumberFormat(LANG, { maximumFractionDigits: 1 });
  // t("key", {name: "Ana", n: 3}): the text of key with its {placeholders} filled in (numbers
  // in the language's format); a value of plural forms is chosen by n (Intl.PluralRules)
  function t(key, params = {}) {
    let v = MESSAGES[key];
    if (v === undefined) v = key;
    if (typeof v === "object") v = v[plurals.select(Number(params.n ?? 0))] ?? v.other;
    return v.replace(/\{(\w+)\}/g, (m, k) => (k in params ? (typeof params[k] === "number" ? numbers.format(params[k]) : String(params[k])) : m));
  }
  const num = (x) => numbers.format(x);
  // a measured figure with exactly one decimal ("12.0", "-3.5"; signed: "+12.0", "0.0"), in the page's language
  const tenths = { minimumFractionDigits: 1, maximumFractionDigits: 1 };
  const plain1 = new Intl.NumberFormat(LANG, tenths);
  const signed1 = new Intl.NumberFormat(LANG, { ...tenths, signDisplay: "exceptZero" });
  const num1 = (x, signed = false) => (signed ? signed1 : plain1).format(x);
  // a server error in the page's language: the server sends a stable code with English text,
  // and each code has a catalogue entry (error.code.*); "invalid" (the calculator's input,
  // in the CLI's words) and any code unknown here keep the server's text. Where the answer
  // says what exactly is wrong, the text says it too: a refusal's reason
  // (error.code.CODE.REASON: "a username starts with a letter or a digit"), or the field of
  // an invalid request and what is wrong with it (error.field.REASON with field.NAME: "your
  // name: holds an invisible character that reverses the text's direction")
  function errorText(code, message, detail = {}) {
    const d = detail || {};
    if (code === "invalid_request" && d.field) {
      const last = String(d.field).split(".").pop();
      const field = `field.${last}` in MESSAGES ? t(`field.${last}`) : String(d.field);
      const key = `error.field.${d.reason}` in MESSAGES ? `error.field.${d.reason}` : "error.field.invalid";
      return t(key, { field, limit: d.limit ?? "" });
    }
    if (d.reason && `error.code.${code}.${d.reason}` in MESSAGES) return t(`error.code.${code}.${d.reason}`);
    const key = `error.code.${code}`;
    return code && code !== "invalid" && key in MESSAGES ? t(key) : message;
  }
  // a goal card's name and text in the page's language, by its id (goals.ID.name, .text);
  // a goal outside the default pool keeps the server's words
  const goalName = (g) => (`goals.${g.id}.name` in MESSAGES ? t(`goals.${g.id}.name`) : g.name);
  const goalText = (g) => (`goals.${g.id}.text` in MESSAGES ? t(`goals.${g.id}.text`) : g.text);
  // why a round was forfeited ("resigned", "timeout: ...", "bot failed: ..."), in words
  function reasonText(reason) {
    if (!reason) return "";
    if (reason === "resigned") return t("reason.resigned");
    if (reason.startsWith("timeout")) return t("reason.timeout");
    if (reason.startsWith("bot failed")) return t("reason.bot_failed");
    if (reason.startsWith("abandoned")) return t("reason.abandoned");
    return reason;
  }
  // time left on a clock: "2 d 3 h", "23 h 5 min", "4:05" (the largest units that matter)
  function clockText(seconds) {
    const s = Math.max(0, Math.ceil(Number(seconds) || 0));
    if (s >= 86400) return t("clock.days_hours", { d: Math.floor(s / 86400), h: Math.floor((s % 86400) / 3600) });
    if (s >= 3600) return t("clock.hours_minutes", { h: Math.floor(s / 3600), m: Math.floor((s % 3600) / 60) });
    return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
  }
  // a clock as chosen (a game's summary "clock"): "3 days per move", "5 min + 5 s", "60 s"
  function clockChoice(c) {
    if (c === null || c === undefined) return t("lobby.clock.none");
    if (String(c).endsWith("d")) return t("lobby.clock.days", { n: Number(String(c).slice(0, -1)) });
    return String(c).includes("+") ? String(c).replace(/^(\d+)\+/, (_, b) => `${b / 60} min + `) + " s" : `${c} s`;
  }
  const COLOURS = ["y", "b", "w", "g", "r", "p"];
  const NAMES = Object.fromEntries(COLOURS.map((c) => [c, t(`colour.${c}`)]));
  // the colour as it reads with a pile or an expedition (French and Spanish agree the adjective)
  const PILE_NAMES = Object.fromEntries(COLOURS.map((c) => [c, t(`colour_f.${c}`)]));
  const SYMBOL_NAMES = Object.fromEntries(COLOURS.map((c) => [c, t(`symbol.${c}`)]));
  // the language switch: remembered in a cookie (the server renders the page in it) and here
  const COOKIE = "lc_lang";
  function setLanguage(lang) {
    document.cookie = `${COOKIE}=${encodeURIComponent(lang)}; path=/; max-age=31536000; SameSite=Lax`;
    try { localStorage.setItem("lostcities.lang", lang); } catch { /* private mode */ }
    location.reload();
  }
  document.addEventListener("DOMContentLoaded", () => {
    const sw = document.getElementById("lang-switch");
    if (sw) sw.addEventListener("change", () => setLanguage(sw.value));
    navMenu();
  });
  // a phone's top bar: the links behind a menu button (in one scrolling row, "Rules" and
  // "Account" were off screen with nothing saying so); Escape or a tap elsewhere closes it
  function navMenu() {
    const button = document.getElementById("nav-toggle");
    const bar = button && button.closest(".topbar");
    if (!bar) return;
    const set = (open) => {
      bar.classList.toggle("nav-open", open);
      button.setAttribute("aria-expanded", String(open));
    };
    button.addEventListener("click", () => set(button.getAttribute("aria-expanded") !== "true"));
    document.addEventListener("keydown", (e) => {
      if (e.key === "Escape" && bar.classList.contains("nav-open")) { set(false); button.focus(); }
    });
    document.addEventListener("click", (e) => { if (!bar.contains(e.target)) set(false); });
  }
  // a row that scrolls sideways says so: "more-right" / "more-left" while there is more that
  // way (the stylesheet fades that edge), kept up to date as it scrolls or resizes
  function scrollCue(el) {
    if (!el) return;
    const update = () => {
      const more = el.scrollWidth - el.clientWidth;
      el.classList.toggle("more-left", more > 1 && el.scrollLeft > 1);
      el.classList.toggle("more-right", more > 1 && el.scrollLeft < more - 1);
    };
    if (!el.dataset.scrollCue) {
      el.dataset.scrollCue = "1";
      el.addEventListener("scroll", update, { passive: true });
      if (window.ResizeObserver) new ResizeObserver(update).observe(el);
    }
    update();
  }
  // names the server gave by default ("Player 1", "Computer (Hard)") read in the page's language
  function displayName(p) {
    const name = p && p.name ? p.name : "";
    if (name === "Player 1") return t("name.player1");
    if (name === "Player 2") return t("name.player2");
    const m = /^Computer \((Easy|Medium|Hard|Expert)\)$/.exec(name);
    if (m) return t("name.computer", { level: t(`level.${m[1].toLowerCase()}`) });
    return name;
  }
  const PATHS = {
    y: '<circle cx="12" cy="12" r="4.5"/><g stroke-width="2.2" stroke-linecap="round" fill="none"><path d="M12 2v3M12 19v3M2 12h3M19 12h3M4.9 4.9l2.1 2.1M17 17l2.1 2.1M4.9 19.1 7 17M17 7l2.1-2.1"/></g>',
    b: '<g fill="none" stroke-width="2.4" stroke-linecap="round"><path d="M2 9c2.5-2.5 5-2.5 7.5 0s5 2.5 7.5 0 4.5-2 5-2"/><path d="M2 16c2.5-2.5 5-2.5 7.5 0s5 2.5 7.5 0 4.5-2 5-2"/></g>',
    w: '<path stroke="none" d="M1.5 20.5 9 6.5l3.6 6.2L15.5 8l7 12.5z"/>',
    g: '<path stroke="none" d="M12 1.8C5.5 8 4.8 14.6 11 21.2V23h2v-1.8C19.2 14.6 18.5 8 12 1.8z"/>',
    r: '<path stroke="none" d="M12.6 1.5c.9 4.2 6.4 6.4 6.4 12.6a7 7 0 0 1-14 0c0-3.3 1.8-5.3 3.1-6.6.1 2.3 1.1 3.6 2.4 3.8-.5-3.5.3-6.9 2.1-9.8z"/>',
    p: '<path stroke="none" d="m12 1.8 3 6.6 7.2.8-5.4 4.8 1.6 7.1L12 17.4l-6.4 3.7 1.6-7.1L1.8 9.2 9 8.4z"/>',
  };

  function symbol(c, cls = "sym") {
    return `<svg class="${cls}" viewBox="0 0 24 24" aria-hidden="true">${PATHS[c] || ""}</svg>`;
  }
  function rankText(card) {
    const r = card.slice(1);
    return r === "x" ? "×" : r;
  }
  // a card in words: "green 10", "green wager" (the screen-reader name of every card)
  function cardLabel(card) {
    const r = card.slice(1);
    return r === "x" ? t("card.wager", { colour: NAMES[card[0]] }) : t("card.number", { colour: NAMES[card[0]], rank: r });
  }
  // a move in the log's words, without a subject ("discard yellow 2 and draw from the deck"),
  // its notation after it while the log's "notation" switch is on (the same stored setting)
  const notationShown = () => localStorage.getItem("lostcities.notation") === "1";
  function moveText(m, notation = notationShown()) {
    if (!/^[+-][a-z](\d+|x)[a-z.]$/.test(m || "")) return m;
    const src = m.slice(-1);
    const key = `move.${m[0] === "+" ? "play" : "discard"}_${src === "." ? "deck" : "pile"}`;
    const words = t(key, { card: cardLabel(m.slice(1, -1)), pile: src === "." ? "" : PILE_NAMES[src] });
    return notation ? `${words} (${m})` : words;
  }
  // a move as the log says it of a player: "Ana plays green 10 and draws from the deck", its
  // notation after it while the "notation" switch is on
  function moveSentence(name, m, notation = notationShown()) {
    if (!/^[+-][a-z](\d+|x)[a-z.]$/.test(m || "")) return `${name} ${m}`;
    const src = m.slice(-1);
    const key = `log.other.${m[0] === "+" ? "play" : "discard"}_${src === "." ? "deck" : "pile"}`;
    const words = t(key, { name, card: cardLabel(m.slice(1, -1)), pile: src === "." ? "" : PILE_NAMES[src] });
    return notation ? `${words} (${m})` : words;
  }
  function cardEl(card, extra = "") {
    const el = document.createElement("div");
    el.className = `card c-${card[0]} ${extra}`.trim();
    el.dataset.card = card;
    el.setAttribute("role", "img");
    el.setAttribute("aria-label", cardLabel(card));
    el.title = `${cardLabel(card)} (${card})`;
    el.innerHTML = `<span class="corner">${symbol(card[0]).replace('class="sym"', 'class="sym" style="width:9px;height:9px"')}</span><span class="rank">${rankText(card)}</span>${symbol(card[0])}`;
    return el;
  }
  function chipEl(card) {
    const el = document.createElement("div");
    el.className = `chip c-${card[0]}`;
    el.dataset.card = card;
    el.title = cardLabel(card);
    el.setAttribute("role", "img");
    el.setAttribute("aria-label", cardLabel(card));
    el.innerHTML = `${symbol(card[0])}<span aria-hidden="true">${rankText(card)}</span>`;
    return el;
  }

  // -- remembered games (seat tokens never leave this browser except to this server) ---------
  const KEY = "lostcities.games";
  function games() {
    try { return JSON.parse(localStorage.getItem(KEY) || "[]"); } catch { return []; }
  }
  function remember(entry) {
    const list = games().filter((g) => g.id !== entry.id);
    list.unshift({ ...entry, saved: Date.now() });
    localStorage.setItem(KEY, JSON.stringify(list.slice(0, 100)));
  }
  function tokenFor(id) {
    const g = games().find((x) => x.id === id);
    return g ? g.token : null;
  }
  function forget(id) {
    localStorage.setItem(KEY, JSON.stringify(games().filter((g) => g.id !== id)));
  }
  function playerName() { return localStorage.getItem("lostcities.name") || ""; }
  function setPlayerName(n) { localStorage.setItem("lostcities.name", n || ""); }

  // the CSRF token (the lc_csrf cookie, echoed in a header; the server sets it on first ask)
  function cookie(name) {
    const m = document.cookie.match(new RegExp(`(?:^|; )${name}=([^;]*)`));
    return m ? decodeURIComponent(m[1]) : "";
  }
  async function csrfToken() {
    let tok = cookie("lc_csrf");
    if (!tok) {
      try { tok = (await (await fetch("/api/accounts/csrf")).json()).csrf || ""; } catch { tok = ""; }
    }
    return tok;
  }

  // headers: more request headers (a challenge's X-Seat-Token)
  async function api(method, path, body, headers = {}) {
    const opts = { method, headers: { ...headers } };
    if (method !== "GET" && method !== "HEAD") opts.headers["X-CSRF-Token"] = await csrfToken();
    if (body !== undefined) {
      opts.headers["Content-Type"] = "application/json";
      opts.body = JSON.stringify(body);
    }
    let res;
    try {
      res = await fetch(path, opts);
    } catch (e) {
      throw new Error(t("error.unreachable"));
    }
    const text = await res.text();
    let data = null;
    try { data = text ? JSON.parse(text) : null; } catch { data = text; }
    if (!res.ok) {
      let msg = data && data.message ? errorText(data.error, data.message, data) : t("error.request_failed", { status: res.status });
      // a rate limit says how long to wait, as the server knows it
      const wait = data && data.error === "rate_limited" ? Number(data.retry_after || res.headers.get("Retry-After")) : 0;
      if (wait > 0) msg = t("error.code.rate_limited_in", { n: wait });
      const err = new Error(msg);
      err.code = data && data.error;
      err.serverMessage = data && data.message;
      err.reason = data && data.reason;
      err.field = data && data.field;
      err.status = res.status;
      throw err;
    }
    return data;
  }

  let toastTimer = null;
  function toast(msg, kind = "") {
    let el = document.getElementById("toast");
    if (!el) {
      el = document.createElement("div");
      el.id = "toast";
      el.setAttribute("role", "status");
      el.setAttribute("aria-live", "polite");
      document.body.appendChild(el);
    }
    el.className = `toast ${kind}`;
    el.textContent = msg;
    el.classList.remove("hidden");
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => el.classList.add("hidden"), 4200);
  }

  // a bot account's mark beside its name (issue 39): "BOT", and the words for a screen reader
  function botBadge() {
    return `<span class="bot-badge" title="${esc(t("bot.badge_label"))}"><span aria-hidden="true">${esc(t("bot.badge"))}</span><span class="sr-only">(${esc(t("bot.badge_label"))})</span></span>`;
  }
  // the name element el gets the mark after its text if the player p is a bot account
  function markBot(el, p) {
    if (el && p && p.bot_account) el.insertAdjacentHTML("beforeend", " " + botBadge());
  }

  function esc(s) {
    return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
  }

  // The score-sheet table (same columns as `lostcities score`).
  function sheetTable(colors, lines) {
    let total = 0;
    const rows = colors.map((c, i) => {
      const e = lines[i];
      total += e.score;
      const n = e.num_cards ?? e.cards.length;
      if (!n) {
        return `<tr><td><span class="row" style="gap:.3rem">${symbol(c)}<span>${NAMES[c]}</span></span></td><td class="cards">-</td><td></td><td></td><td></td><td></td><td>0</td></tr>`;
      }
      return `<tr><td><span class="row" style="gap:.3rem">${symbol(c)}<span>${NAMES[c]}</span></span></td><td class="cards">${e.cards.length ? e.cards.join(" ") : t("pile.cards", { n })}</td><td>${e.number_sum}</td><td>${e.minus_cost}</td><td>x${e.multiplier}</td><td>${e.bonus ? "+" + e.bonus : ""}</td><td>${e.score}</td></tr>`;
    });
    return `<div class="sheet-wrap"><table class="sheet"><thead><tr><th><span class="sr-only">${t("sheet.colour")}</span></th><th style="text-align:left">${t("sheet.cards")}</th><th>${t("sheet.sum")}</th><th>-20</th><th>x</th><th>${t("sheet.bonus")}</th><th>${t("sheet.score")}</th></tr></thead><tbody>${rows.join("")}<tr class="total"><td>${t("sheet.total")}</td><td></td><td></td><td></td><td></td><td></td><td>${total}</td></tr></tbody></table></div>`;
  }

  return { LANG, t, num, num1, clockText, clockChoice, scrollCue, errorText, goalName, goalText, reasonText, displayName, setLanguage, NAMES, PILE_NAMES, SYMBOL_NAMES, symbol, cardEl, chipEl, cardLabel, moveText, moveSentence, notationShown, rankText, games, remember, tokenFor, forget, playerName, setPlayerName, api, toast, esc, botBadge, markBot, sheetTable };
})();
