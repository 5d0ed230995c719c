// A player's profile, seen by another signed-in player: block or unblock them, report them.
"use strict";
(() => {
  const box = document.getElementById("player-actions");
  if (!box) return;
  const name = box.dataset.player;
  const blockBtn = document.getElementById("player-block");
  const unblockBtn = document.getElementById("player-unblock");
  const show = (blocked) => {
    blockBtn.classList.toggle("hidden", blocked);
    unblockBtn.classList.toggle("hidden", !blocked);
  };
  LC.api("GET", "/api/accounts/me").then((me) => {
    const mine = me && me.account ? me.account.blocked : [];
    show(mine.some((x) => x.toLowerCase() === name.toLowerCase()));
  }).catch(() => {});
  blockBtn.addEventListener("click", async () => { if (await LCPlayers.block(name)) show(true); });
  unblockBtn.addEventListener("click", async () => { if (await LCPlayers.unblock(name)) show(false); });
  document.getElementById("player-report").addEventListener("click", () => LCPlayers.report(name));
})();
