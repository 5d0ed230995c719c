// The lobby: open tables and "play now" seeks, live (server-sent events), who is online.
// An entry's token becomes this browser's seat token once its game starts. The entries
// this page opens live as long as the page (its event stream; the page's id is kept over
// a reload of the tab, as its list of entries is).
(() => {
  const { t, esc } = LC;
  const $ = (id) => document.getElementById(id);
  const root = $("lobby");
  const signedIn = !!root.dataset.account;
  const MINE = "lostcities.lobby";
  const browserId = (() => {
    let id = localStorage.getItem("lostcities.browser");
    if (!id) { id = Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join(""); localStorage.setItem("lostcities.browser", id); }
    return id;
  })();
  const pageId = (() => {
    let id = sessionStorage.getItem(`${MINE}.page`);
    if (!id) { id = Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, "0")).join(""); sessionStorage.setItem(`${MINE}.page`, id); }
    return id;
  })();
  const mine = () => { try { return JSON.parse(sessionStorage.getItem(MINE) || "[]"); } catch { return []; } };
  const setMine = (list) => sessionStorage.setItem(MINE, JSON.stringify(list));
  const nameInput = $("lobby-name");
  if (nameInput) nameInput.value = LC.playerName();

  function settings() {
    const f = $("lobby-form");
    const clock = f.clock.value;
    return {
      variant: f.variant.value,
      rounds: Number(f.rounds.value),
      clock: clock === "" ? null : (/^\d+$/.test(clock) ? Number(clock) : clock),
      rated: signedIn && $("lobby-rated").checked,
      achievements: $("lobby-achievements").checked,
      name: nameInput ? nameInput.value.trim() : "",
      browser: browserId,
      page: pageId,
    };
  }
  function clockLabel(c) {
    if (c === null || c === undefined) return t("lobby.clock.none");
    if (String(c).endsWith("d")) return t("lobby.clock.days", { n: Number(String(c).slice(0, -1)) });
    return String(c).includes("+") ? String(c).replace(/^(\d+)\+/, (_, b) => `${b / 60} min + `) + " s" : `${c} s`;
  }
  function start(gameId, token, seat) {
    LC.remember({ id: gameId, token, seat });
    location.href = `/game/${gameId}`;
  }

  async function create(kind) {
    const s = settings();
    if (nameInput) LC.setPlayerName(s.name);
    try {
      const e = await LC.api("POST", `/api/lobby/${kind}`, s);
      setMine([...mine(), { id: e.id, token: e.token, kind, search: e.search || null, since: Date.now() }]);
      renderMine();
    } catch (err) { LC.toast(err.message, "error"); }
  }
  $("lobby-open").addEventListener("click", () => create("tables"));
  $("lobby-play-now").addEventListener("click", () => create("seeks"));
  $("lobby-computer").addEventListener("click", async () => {
    const s = settings();
    try {
      const g = await LC.api("POST", "/api/lobby/computer", { variant: s.variant, rounds: s.rounds, rated: s.rated, name: s.name });
      start(g.id, g.token, 0);
    } catch (err) { LC.toast(err.message, "error"); }
  });

  // whom a seek waits for: anyone with the same settings (casual), or players of a near
  // rating, the range widening as it waits (rated; the server's figures)
  function searchText(e) {
    if (!e.search) return "";
    if (!e.search.rated) return t("lobby.search_casual");
    const r = e.search.range;
    const pts = Math.min(r.max, r.start + r.widen * Math.max(0, (Date.now() - e.since) / 1000));
    const range = { low: String(Math.max(0, Math.round(e.search.rating - pts))), high: String(Math.round(e.search.rating + pts)) };
    return t(pts < r.max ? "lobby.search_widening" : "lobby.search_rated", range);
  }
  function renderSearch() {
    for (const e of mine()) {
      const el = $("lobby-mine").querySelector(`[data-search="${CSS.escape(e.id)}"]`);
      const text = searchText(e);
      if (el && el.textContent !== text) el.textContent = text;
    }
  }
  function renderMine() {
    const list = mine();
    $("lobby-mine").innerHTML = list.length ? `<h3>${esc(t("lobby.waiting"))}</h3><ul>${list.map((e) => `<li>${esc(e.kind === "seeks" ? t("lobby.play_now") : t("lobby.open_table"))} <button class="btn small" type="button" data-cancel="${esc(e.id)}">${esc(t("lobby.cancel"))}</button>${e.search ? `<br><span class="muted small" data-search="${esc(e.id)}" aria-live="off">${esc(searchText(e))}</span>` : ""}</li>`).join("")}</ul>` : "";
  }
  setInterval(renderSearch, 1000);
  $("lobby-mine").addEventListener("click", async (ev) => {
    const id = ev.target.dataset && ev.target.dataset.cancel;
    if (!id) return;
    const e = mine().find((x) => x.id === id);
    try { await LC.api("POST", `/api/lobby/${id}/cancel`, { token: e ? e.token : "" }); } catch (err) { LC.toast(err.message, "error"); }
    setMine(mine().filter((x) => x.id !== id));
    renderMine();
  });

  // this player's same seek in another page of theirs was paired: go to that game (their
  // account has the seat; a guest's other page of this browser keeps its token)
  async function follow(gameId) {
    for (let i = 0; i < 40 && !signedIn && !LC.tokenFor(gameId); i++) await new Promise((ok) => setTimeout(ok, 250));
    if (signedIn || LC.tokenFor(gameId)) location.href = `/game/${gameId}`;
    else LC.toast(t("lobby.playing_elsewhere"));
  }
  async function checkMine(openIds) {
    for (const e of mine()) {
      if (openIds.has(e.id) && e.kind === "tables") continue;
      try {
        const st = await LC.api("POST", `/api/lobby/${e.id}/status`, { token: e.token });
        if (st.status === "matched" && st.game_id) { setMine(mine().filter((x) => x.id !== e.id)); start(st.game_id, e.token, null); return; }
        if (st.status === "playing" && st.game_id) { setMine(mine().filter((x) => x.id !== e.id)); renderMine(); follow(st.game_id); return; }
        if (st.status !== "open") setMine(mine().filter((x) => x.id !== e.id));
      } catch { setMine(mine().filter((x) => x.id !== e.id)); }
    }
    renderMine();
  }

  // a signed-in player may block or report another signed-in player from the row of their
  // table (a blocked player's tables are never listed: the server leaves them out)
  const others = (tb) => (signedIn && tb.owner_account && tb.owner !== root.dataset.account
    ? ` <button class="btn small" type="button" data-block="${esc(tb.owner)}" aria-label="${esc(t("players.block_label", { name: tb.owner }))}">${esc(t("players.block"))}</button> <button class="btn small" type="button" data-report="${esc(tb.owner)}" aria-label="${esc(t("players.report_label", { name: tb.owner }))}">${esc(t("players.report"))}</button>`
    : "");
  function render(snap) {
    const own = new Set(mine().map((e) => e.id));
    // (explicit roles: a phone shows each row as a card, and CSS display drops a table's
    // own; data-label: the column's name, shown on the card)
    const cell = (label, html) => `<td role="cell"${label ? ` data-label="${esc(t(label))}"` : ""}>${html}</td>`;
    const rows = snap.tables.map((tb) => `<tr role="row" data-table="${esc(tb.id)}">${cell("", esc(tb.owner))}${cell(tb.rating === null ? "" : "lobby.rating", tb.rating === null ? "" : esc(tb.rating))}${cell("", `${esc(t(`home.${tb.variant}`))} · ${esc(t("rounds.count", { n: tb.rounds }))}${tb.achievements ? " · " + esc(t("home.goals")) : ""}`)}${cell("lobby.clock", esc(clockLabel(tb.clock)))}${cell("", esc(tb.rated ? t("lobby.rated") : t("lobby.casual")))}${cell("", own.has(tb.id) ? `<span class="muted">${esc(t("lobby.yours"))}</span>` : `<button class="btn small" type="button" data-join="${esc(tb.id)}" aria-label="${esc(t("lobby.join_label", { name: tb.owner }))}">${esc(t("lobby.join"))}</button>${others(tb)}`)}</tr>`);
    $("lobby-tables").querySelector("tbody").innerHTML = rows.join("");
    $("lobby-empty").classList.toggle("hidden", rows.length > 0);
    $("lobby-seeks").textContent = snap.seeks ? t("lobby.seeks", { n: snap.seeks }) : "";
    $("lobby-online").innerHTML = esc(t("lobby.online_count", { n: snap.online_count })) + (snap.online.length ? ": " + snap.online.map((p) => esc(p.name) + (p.bot ? " " + LC.botBadge() : "")).join(", ") : "");
    checkMine(new Set(snap.tables.map((x) => x.id)));
    refreshBots();
  }

  // the bots online (a connected `lostcities connect`), each linked to its profile, where
  // people challenge it: read on load, again with the lobby's updates (at most every 10 s)
  // and every 30 s
  let botsRead = 0;
  function renderBots(list) {
    $("lobby-bots").innerHTML = list.map((b) => `<li data-bot="${esc(b.name)}"><a href="/players/${encodeURIComponent(b.name)}">${esc(b.name)}</a> ${LC.botBadge()}${b.about ? ` <span class="muted small">${esc(b.about)}</span>` : ""}</li>`).join("");
    $("lobby-no-bots").classList.toggle("hidden", list.length > 0);
  }
  async function refreshBots(force = false) {
    if (!force && Date.now() - botsRead < 10000) return;
    botsRead = Date.now();
    try { renderBots(await LC.api("GET", "/api/bot/online")); } catch { /* kept as it was */ }
  }
  setInterval(() => refreshBots(true), 30000);
  $("lobby-tables").addEventListener("click", async (ev) => {
    const d = ev.target.dataset || {};
    if (d.block) { LCPlayers.block(d.block); return; }
    if (d.report) { LCPlayers.report(d.report); return; }
    const id = d.join;
    if (!id) return;
    const s = settings();
    try {
      const g = await LC.api("POST", `/api/lobby/${id}/join`, { name: s.name, browser: browserId });
      start(g.id, g.token, g.seat);
    } catch (err) { LC.toast(err.message, "error"); }
  });

  const q = new URLSearchParams({ browser: browserId, name: nameInput ? nameInput.value.trim() : "", page: pageId });
  const events = new EventSource(`/api/lobby/events?${q}`);
  // the lobby as this page has it: the whole of it first, then each change (a delta on
  // the version it follows; a page that fell behind gets the whole lobby again)
  let lobby = null;
  events.onmessage = (m) => {
    let msg;
    try { msg = JSON.parse(m.data); } catch { return; }
    if (msg.type === "full" || !lobby) {
      lobby = msg;
    } else {
      const gone = new Set(msg.removed);
      const added = new Map(msg.added.map((x) => [x.id, x]));
      lobby.tables = lobby.tables.filter((x) => !gone.has(x.id) && !added.has(x.id)).concat(msg.added);
      lobby.tables.sort((a, b) => (a.created_at < b.created_at ? -1 : 1));
      for (const k of ["seeks", "online", "online_count"]) if (k in msg) lobby[k] = msg[k];
      lobby.version = msg.version;
    }
    render(lobby);
  };
  renderMine();
  setInterval(() => checkMine(new Set()), 5000);
})();
