// Block and report another player where players meet (a profile, the table, the lobby):
// each asks first, in a dialog, what it will do. Signed-in players only (the server checks).
//   LCPlayers.block(name) -> Promise<boolean>   (true once blocked)
//   LCPlayers.unblock(name) -> Promise<boolean>
//   LCPlayers.report(name, gameId) -> Promise<boolean>   (true once sent)
"use strict";
const LCPlayers = (() => {
  const { t, esc } = LC;
  const REASONS = ["cheating", "abuse", "name", "other"];
  const path = (name) => `/api/players/${encodeURIComponent(name)}`;

  // a modal dialog (the browser's own: focus kept inside, Escape cancels); resolves with its
  // form when the player confirms, null when they cancel
  function ask(title, body, confirmLabel, danger) {
    return new Promise((resolve) => {
      const d = document.createElement("dialog");
      d.className = "lc-dialog";
      d.setAttribute("aria-labelledby", "lc-dialog-title");
      d.innerHTML = `<form method="dialog"><h2 id="lc-dialog-title">${esc(title)}</h2>${body}<p class="row lc-dialog-buttons"><button class="btn" type="submit" value="cancel">${esc(t("btn.cancel"))}</button><button class="btn ${danger ? "danger" : "primary"}" type="submit" value="ok" data-confirm>${esc(confirmLabel)}</button></p></form>`;
      document.body.appendChild(d);
      d.addEventListener("close", () => {
        const ok = d.returnValue === "ok";
        const form = d.querySelector("form");
        d.remove();
        resolve(ok ? form : null);
      });
      d.showModal();
      d.querySelector("[data-confirm]").focus();
    });
  }
  async function call(method, url, body) {
    try { await LC.api(method, url, body); return true; } catch (err) { LC.toast(err.message, "error"); return false; }
  }

  async function block(name) {
    const form = await ask(t("players.block_title", { name }), `<p>${esc(t("players.block_text", { name }))}</p>`, t("players.block"), true);
    if (!form || !(await call("POST", `${path(name)}/block`, {}))) return false;
    LC.toast(t("players.blocked", { name }));
    return true;
  }
  async function unblock(name) {
    if (!(await call("DELETE", `${path(name)}/block`))) return false;
    LC.toast(t("players.unblocked", { name }));
    return true;
  }
  async function report(name, gameId = null) {
    const options = REASONS.map((r) => `<option value="${r}">${esc(t(`players.reason.${r}`))}</option>`).join("");
    const body = `<p>${esc(t("players.report_text", { name }))}</p>` +
      `<label class="field"><span>${esc(t("players.report_reason"))}</span><select name="reason" required>${options}</select></label>` +
      `<label class="field"><span>${esc(t("players.report_details"))}</span><textarea name="text" rows="3" maxlength="500"></textarea></label>`;
    const form = await ask(t("players.report_title", { name }), body, t("players.report_send"), false);
    if (!form) return false;
    const sent = { reason: form.reason.value, text: form.text.value.trim() };
    if (gameId) sent.game_id = gameId;
    if (!(await call("POST", `${path(name)}/report`, sent))) return false;
    LC.toast(t("players.reported", { name }));
    return true;
  }
  return { block, unblock, report };
})();
