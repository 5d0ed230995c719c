// Home: start a game (computer or friend) and list the games this browser remembers.
"use strict";
(() => {
  const form = document.getElementById("new-game");
  const levelField = document.getElementById("level-field");
  const t = LC.t;
  form.elements.name.value = LC.playerName();

  function sync() {
    levelField.classList.toggle("hidden", form.elements.opponent.value !== "computer");
    // rated: against the computer only (signed in; the server checks too), a tie is a draw
    const rated = form.elements.opponent.value === "computer" && form.elements.rated.value === "rated";
    document.getElementById("rated-field").classList.toggle("hidden", form.elements.opponent.value !== "computer");
    for (const input of form.querySelectorAll("input[name=ties]")) {
      if (rated && input.value !== "draw") {
        input.disabled = true;
        if (input.checked) form.querySelector("input[name=ties][value=draw]").checked = true;
      } else {
        input.disabled = false;
      }
    }
    document.getElementById("clock-field").classList.toggle("hidden", form.elements.opponent.value !== "friend");
    const level = form.querySelector("input[name=level]:checked");
    document.getElementById("level-about").textContent = level ? level.dataset.about : "";
    document.getElementById("start").textContent =
      t(form.elements.opponent.value === "computer" ? "home.start" : "home.create_invite");
    document.getElementById("ties-them").textContent =
      t(form.elements.opponent.value === "computer" ? "home.ties.computer" : "home.ties.friend");
    const hero = document.getElementById("hero-text");
    hero.textContent = form.elements.variant.value === "long" ? hero.dataset.long : hero.dataset.classic;
  }
  form.addEventListener("change", sync);
  sync();

  // a level "warming up" (a first start compiles the search in the background) is asked
  // about again every 2 s and opens when it is ready
  function askLevels() {
    LC.api("GET", "/api/levels").then((levels) => {
      let warming = false;
      for (const l of levels) {
        const input = form.querySelector(`input[name=level][value=${l.level}]`);
        if (!input) continue;
        const label = input.parentElement;
        const note = label.querySelector(".warming-note");
        // what each level plays is on the page already, in its language (the server wrote it)
        if (l.warming_up) {
          warming = true;
          input.disabled = true;
          label.title = t("home.warming_up");
          label.classList.add("unavailable", "warming");
          if (!note) label.querySelector("span").insertAdjacentHTML("beforeend", ` <small class="warming-note">${LC.esc(t("home.warming_up"))}</small>`);
        } else if (!l.available) {
          input.disabled = true;
          label.title = t("home.unavailable"); // the reason (l.reason) is for operators
          label.classList.add("unavailable");
        } else if (label.classList.contains("warming")) {
          input.disabled = false;
          label.title = input.dataset.about;
          label.classList.remove("unavailable", "warming");
          if (note) note.remove();
        }
      }
      sync();
      if (warming) setTimeout(askLevels, 2000);
    }).catch(() => {});
  }
  askLevels();

  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const f = form.elements;
    const body = {
      opponent: f.opponent.value,
      level: f.level.value,
      variant: f.variant.value,
      rounds: Number(f.rounds.value),
      name: f.name.value.trim(),
      tie_break: f.ties.value === "draw" ? "draw" : "youngest",
      younger: f.ties.value === "draw" ? null : f.ties.value === "me" ? 0 : 1,
      achievements: f.goals.value === "on",
      rated: f.opponent.value === "computer" && f.rated.value === "rated",
    };
    // seconds per move, or a match clock "BASE+INCREMENT"
    if (body.opponent === "friend" && f.clock.value) body.clock = /^\d+$/.test(f.clock.value) ? Number(f.clock.value) : f.clock.value;
    LC.setPlayerName(body.name);
    const btn = document.getElementById("start");
    btn.disabled = true;
    try {
      const g = await LC.api("POST", "/api/games", body);
      LC.remember({ id: g.id, token: g.token, seat: g.seat, invite: g.invite_url || null });
      if (g.invite_url) {
        document.getElementById("invite-box").classList.remove("hidden");
        document.getElementById("invite-url").value = g.invite_url;
        document.getElementById("to-table").href = g.url;
        refresh();
      } else {
        location.href = g.url;
      }
    } catch (e) {
      LC.toast(e.message, "error");
    } finally {
      btn.disabled = false;
    }
  });

  // the tutorial: one classic round against the gentle (easy) computer, explained as it goes
  document.getElementById("tutorial-start").addEventListener("click", async (ev) => {
    ev.target.disabled = true;
    try {
      const body = { opponent: "computer", level: "easy", variant: "classic", rounds: 1, name: form.elements.name.value.trim() };
      const g = await LC.api("POST", "/api/games", body);
      LC.remember({ id: g.id, token: g.token, seat: g.seat, invite: null });
      localStorage.setItem(`lostcities.tutorial.${g.id}`, "on");
      location.href = g.url;
    } catch (e) {
      LC.toast(e.message, "error");
      ev.target.disabled = false;
    }
  });

  document.getElementById("copy").addEventListener("click", async () => {
    const input = document.getElementById("invite-url");
    try {
      await navigator.clipboard.writeText(input.value);
      LC.toast(t("toast.copied"));
    } catch {
      input.select();
      document.execCommand && document.execCommand("copy");
      LC.toast(t("toast.copy_manually"));
    }
  });

  async function refresh() {
    const mine = LC.games();
    const list = document.getElementById("games");
    if (!mine.length) return;
    let games = [];
    try {
      games = await LC.api("POST", "/api/games/lookup", { games: mine.map((g) => ({ id: g.id, token: g.token })) });
    } catch (e) {
      LC.toast(e.message, "error");
      return;
    }
    const order = new Map(mine.map((g, i) => [g.id, i]));
    games.sort((a, b) => {
      // your turn first, then games waiting on the other player or a friend, finished last
      const rank = (g) => (g.status === "finished" ? 2 : g.status !== "waiting" && g.your_turn ? 0 : 1);
      const ka = rank(a), kb = rank(b);
      return ka - kb || order.get(a.id) - order.get(b.id);
    });
    list.innerHTML = "";
    for (const g of games) {
      const seat = g.seat ?? 0;
      const opp = g.players[1 - seat];
      const li = document.createElement("li");
      li.dataset.game = g.id;
      let badge;
      if (g.status === "finished") {
        const won = (g.result === "1-0" && seat === 0) || (g.result === "0-1" && seat === 1);
        const draw = g.result === "1/2-1/2";
        badge = `<span class="pill done">${t(draw ? "home.badge.draw" : won ? "home.badge.won" : "home.badge.lost")}</span>`;
      } else if (g.status === "waiting") {
        badge = `<span class="pill wait">${t("home.badge.waiting")}</span>`;
      } else if (g.your_turn) {
        badge = `<span class="pill turn">${t("home.badge.your_turn")}</span>`;
      } else {
        badge = `<span class="pill wait">${t("home.badge.their_turn")}</span>`;
      }
      const score = `${LC.num(g.totals[seat])} : ${LC.num(g.totals[1 - seat])}`;
      const link = g.status === "finished"
        ? `<a class="btn small" href="/replay/${g.id}">${t("btn.replay")}</a><a class="btn small" href="/game/${g.id}">${t("btn.table")}</a>`
        : `<a class="btn small${g.your_turn && g.status !== "waiting" ? " primary" : ""}" href="/game/${g.id}">${t(g.your_turn && g.status !== "waiting" ? "btn.play" : "btn.open")}</a>`;
      li.innerHTML = `<div><div class="who">${LC.esc(t("home.vs", { name: LC.displayName(opp) }))}${opp && opp.bot_account ? " " + LC.botBadge() : ""} ${badge}</div>
        <div class="meta">${t(`variant.${g.variant}`)} · ${g.num_rounds === 1 ? t("rounds.count", { n: 1 }) : t("round.of", { n: Math.min(g.round + 1, g.num_rounds), total: g.num_rounds })} · ${score}</div></div>
        <div class="go row">${link}</div>`;
      list.appendChild(li);
    }
    document.getElementById("no-games").classList.toggle("hidden", games.length > 0);
  }
  refresh();
})();
