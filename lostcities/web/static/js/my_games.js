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
  async function read() {
    let list = [];
    try { list = await LC.api("POST", "/api/my-games", { games: LC.games().map((g) => ({ id: g.id, token: g.token })) }); } catch { return; }
    const rows = list.map((g) => {
      const opp = g.players[g.seat === 1 ? 0 : 1] || g.players[1];
      const turn = g.status === "finished" ? t("my_games.over") : (g.your_turn ? t("my_games.yours") : t("my_games.theirs"));
      return `<tr data-game="${esc(g.id)}" class="${g.your_turn ? "your-turn" : ""}"><td>${esc(LC.displayName ? LC.displayName(opp) : opp.name)}</td><td>${esc(t(`home.${g.variant}`))}</td><td>${esc(turn)}</td><td><a href="/game/${esc(g.id)}">${esc(t("my_games.open"))}</a>${g.status === "finished" ? ` · <a href="/replay/${esc(g.id)}">${esc(t("profile.replay"))}</a>` : ""}</td></tr>`;
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
