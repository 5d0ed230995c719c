// Accept an invite: the code is the URL fragment (never sent in a request line or log).
"use strict";
(async () => {
  const box = document.getElementById("join");
  const id = box.dataset.game;
  const invite = decodeURIComponent(location.hash.slice(1));
  const info = document.getElementById("join-info");
  const form = document.getElementById("join-form");
  const known = LC.tokenFor(id);
  const t = LC.t;
  if (known) {
    location.replace(`/game/${id}`);
    return;
  }
  let g;
  try {
    g = await LC.api("GET", `/api/games/${encodeURIComponent(id)}`);
  } catch (e) {
    info.textContent = e.message;
    return;
  }
  if (g.players[1].joined) {
    info.textContent = `${t("join.taken")} `;
    const a = document.createElement("a");
    a.href = `/game/${id}`;
    a.textContent = t("join.watch");
    info.appendChild(a);
    return;
  }
  if (!invite) {
    info.textContent = t("join.no_code");
    return;
  }
  info.textContent = t(`join.invites.${g.variant}`, { name: LC.displayName(g.players[0]), rounds: t("rounds.count", { n: g.num_rounds }) });
  form.classList.remove("hidden");
  form.elements.name.value = LC.playerName();
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const name = form.elements.name.value.trim();
    LC.setPlayerName(name);
    try {
      const res = await LC.api("POST", `/api/games/${encodeURIComponent(id)}/join`, { invite, name });
      LC.remember({ id: res.id, token: res.token, seat: res.seat });
      location.replace(res.url);
    } catch (e) {
      LC.toast(e.message, "error");
    }
  });
})();
