// "My games": every game of yours and whose turn it is; a notification (in the page, and in
// the browser once allowed) when it becomes your turn somewhere. Pushed: the server says
// when one of these games changed (server-sent events, /api/my-games/events) and the list
// is read again then. If the stream drops, it is opened again after 1, 2, 4... up to 60 s,
// and the list is read at each try meanwhile (docs/web.md).
(() => {
  const { t, esc } = LC;
  const $ = (id) => document.getElementById(id);
  let turns = null;
  function notify(games) {
    const msg = t("my_games.your_turn", { n: games.length });
    $("my-games-turns").textContent = msg;
    if ("Notification" in window && Notification.permission === "granted") {
      try { new Notification(t("notify.title"), { body: msg, tag: "lostcities-my-games" }); } catch { /* not shown */ }
    }
  }
  // when the game last changed: the time today, else the date (and the year, another year's)
  const today = new Intl.DateTimeFormat(LC.LANG, { hour: "2-digit", minute: "2-digit" });
  const thisYear = new Intl.DateTimeFormat(LC.LANG, { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
  const older = new Intl.DateTimeFormat(LC.LANG, { year: "numeric", month: "short", day: "numeric" });
  function when(iso) {
    const d = new Date(iso || "");
    if (Number.isNaN(d.getTime())) return "";
    const now = new Date();
    const fmt = d.toDateString() === now.toDateString() ? today : d.getFullYear() === now.getFullYear() ? thisYear : older;
    return `<time datetime="${esc(d.toISOString())}">${esc(fmt.format(d))}</time>`;
  }
  // where the game stands: won, lost or drawn (finished), whose turn and the time left
  function state(g, me) {
    if (g.status === "finished") {
      if (me === null) return t("my_games.over");
      const mine = me === 0 ? "1-0" : "0-1";
      const theirs = me === 0 ? "0-1" : "1-0";
      return t(g.result === mine ? "my_games.won" : g.result === theirs ? "my_games.lost" : "my_games.drawn");
    }
    if (g.status === "waiting") return t("my_games.waiting");
    const turn = g.your_turn ? t("my_games.yours") : t("my_games.theirs");
    return g.clock_left === null || g.clock_left === undefined ? turn : `${turn} · ${t("my_games.time_left", { time: LC.clockText(g.clock_left) })}`;
  }
  async function read() {
    let list = [];
    try { list = await LC.api("POST", "/api/my-games", { games: LC.games().map((g) => ({ id: g.id, token: g.token })) }); } catch { return; }
    const rows = list.map((g) => {
      const me = g.seat === 0 || g.seat === 1 ? g.seat : null;
      const opp = g.players[me === 1 ? 0 : 1] || g.players[1];
      const game = [t(`home.${g.variant}`), t("rounds.count", { n: g.num_rounds })];
      if (g.clock !== null && g.clock !== undefined) game.push(LC.clockChoice(g.clock));
      if (g.rated) game.push(t("lobby.rated"));
      const totals = g.totals || [0, 0];
      const score = me === null ? `${totals[0]}–${totals[1]}` : `${totals[me]}–${totals[1 - me]}`;
      const round = g.status !== "finished" && g.num_rounds > 1 ? ` <span class="muted">(${esc(t("my_games.round", { n: g.round + 1, of: g.num_rounds }))})</span>` : "";
      const cls = [g.your_turn ? "your-turn" : "", g.status === "finished" ? "finished" : ""].join(" ").trim();
      return `<tr data-game="${esc(g.id)}" class="${cls}"><td>${esc(LC.displayName ? LC.displayName(opp) : opp.name)}${opp.bot_account ? " " + LC.botBadge() : ""}</td><td>${esc(game.join(" · "))}</td><td class="score">${esc(score)}${round}</td><td class="state">${esc(state(g, me))}</td><td class="when">${when(g.updated_at)}</td><td><a href="/game/${esc(g.id)}">${esc(t("my_games.open"))}</a>${g.status === "finished" ? ` · <a href="/replay/${esc(g.id)}">${esc(t("profile.replay"))}</a>` : ""}</td></tr>`;
    });
    $("my-games").querySelector("tbody").innerHTML = rows.join("");
    $("my-games-empty").classList.toggle("hidden", rows.length > 0);
    const now = new Set(list.filter((g) => g.your_turn).map((g) => g.id));
    if (turns !== null && [...now].some((id) => !turns.has(id))) notify([...now]);
    else if (turns === null && now.size) $("my-games-turns").textContent = t("my_games.your_turn", { n: now.size });
    turns = now;
  }
  // one read at a time; a change during a read reads once more after it
  let reading = null;
  let again = false;
  function load() {
    if (reading) { again = true; return reading; }
    reading = read().finally(() => {
      reading = null;
      if (again) { again = false; load(); }
    });
    return reading;
  }
  $("my-games-notify").addEventListener("click", async () => {
    if ("Notification" in window && Notification.permission === "default") {
      try { await Notification.requestPermission(); } catch { /* ignored */ }
    }
    if (!("Notification" in window) || Notification.permission !== "granted") LC.toast(t("notify.blocked"));
  });

  const live = $("my-games-live");
  let delay = 1000;
  let stream = null;
  function connect() {
    const ids = LC.games().map((g) => g.id).filter((id) => /^[\w-]{1,32}$/.test(id || "")).slice(0, 200);
    stream = new EventSource(`/api/my-games/events?${new URLSearchParams({ games: ids.join(",") })}`);
    stream.onmessage = (m) => {
      let msg;
      try { msg = JSON.parse(m.data); } catch { return; }
      if (msg.type === "hello") {  // watching from now on: read what changed before
        delay = 1000;
        live.dataset.state = "live";
        live.textContent = t("my_games.live");
      }
      load();
    };
    stream.onerror = () => {
      stream.close();  // (not the browser's own retry: ours backs off)
      live.dataset.state = "retrying";
      live.textContent = t("my_games.reconnecting", { n: Math.round(delay / 1000) });
      setTimeout(() => { load(); connect(); }, delay);
      delay = Math.min(delay * 2, 60000);
    };
  }
  load();
  connect();
})();
