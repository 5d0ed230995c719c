// A bot's profile: challenge it (issue 39, docs/bot-api.md). A signed-in player or a guest
// (casual only) sends POST /api/bot/challenge/{bot}; the answer's token becomes this
// browser's seat token once the bot accepts. The page then asks every second how the
// challenge stands (GET /api/bot/challenge/{id}, the token in X-Seat-Token): accepted, it
// remembers the seat as joining a game does and goes to the table; declined, it says why.
"use strict";
(() => {
  const { t } = LC;
  const $ = (id) => document.getElementById(id);
  const box = $("challenge");
  if (!box) return;
  const bot = box.dataset.bot;
  const signedIn = !!box.dataset.account;
  const form = $("challenge-form");
  const wait = $("challenge-wait");
  const status = $("challenge-status");
  const result = $("challenge-result");
  const nameInput = $("challenge-name");
  if (nameInput) nameInput.value = LC.playerName();
  let current = null; // {id, token}: the challenge waiting for an answer

  function show(waiting) {
    form.classList.toggle("hidden", waiting);
    wait.classList.toggle("hidden", !waiting);
  }
  function finish(text) {
    current = null;
    show(false);
    result.textContent = text;
    $("challenge-send").focus();
  }
  const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));

  async function follow(ch) {
    while (current && current.id === ch.id) {
      await sleep(1000);
      if (!current || current.id !== ch.id) return;
      let got;
      try {
        got = await LC.api("GET", `/api/bot/challenge/${encodeURIComponent(ch.id)}`, undefined, { "X-Seat-Token": ch.token });
      } catch (err) {
        if (err.status === 404) { finish(err.message); return; }
        continue; // (the network away for a moment: ask again)
      }
      const c = got.challenge;
      if (c.status === "accepted" && c.game_id) {
        current = null;
        status.textContent = t("challenge.accepted", { name: bot });
        LC.remember({ id: c.game_id, token: ch.token, seat: 0 });
        location.href = got.game_url || `/game/${c.game_id}`;
        return;
      }
      if (c.status === "declined") {
        finish(t("challenge.declined", { name: bot, reason: t(`challenge.reason.${c.decline_reason || "generic"}`) }));
        return;
      }
      if (c.status === "expired") { finish(t("challenge.expired", { name: bot })); return; }
      if (c.status === "canceled") { finish(t("challenge.canceled")); return; }
    }
  }

  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    result.textContent = "";
    const clock = form.elements.clock.value;
    const body = {
      variant: form.elements.variant.value,
      rounds: Number(form.elements.rounds.value),
      clock: clock === "" ? null : clock,
      rated: signedIn && $("challenge-rated").checked,
    };
    if (nameInput) {
      body.name = nameInput.value.trim();
      LC.setPlayerName(body.name);
    }
    $("challenge-send").disabled = true;
    try {
      const out = await LC.api("POST", `/api/bot/challenge/${encodeURIComponent(bot)}`, body);
      current = { id: out.challenge.id, token: out.token };
      status.textContent = t("challenge.waiting", { name: bot });
      show(true);
      $("challenge-cancel").focus();
      follow(current);
    } catch (err) {
      result.textContent = err.message;
    } finally {
      $("challenge-send").disabled = false;
    }
  });

  $("challenge-cancel").addEventListener("click", async () => {
    const ch = current;
    if (!ch) return;
    try {
      await LC.api("POST", `/api/bot/challenge/${encodeURIComponent(ch.id)}/cancel`, {}, { "X-Seat-Token": ch.token });
      finish(t("challenge.canceled"));
    } catch (err) {
      // answered meanwhile (challenge_closed): the next look says how
      if (err.code !== "challenge_closed") LC.toast(err.message, "error");
    }
  });
})();
