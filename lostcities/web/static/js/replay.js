// Replay: step through a finished game move by move with both hands revealed.
"use strict";
(async () => {
  const root = document.getElementById("replay");
  const id = root.dataset.game;
  const $ = (x) => document.getElementById(x);
  const t = LC.t;
  let data;
  try {
    data = await LC.api("GET", `/api/games/${encodeURIComponent(id)}/replay`);
  } catch (e) {
    $("replay-info").textContent = e.message;
    $("download").classList.add("hidden");
    return;
  }
  const g = data.game;
  const colors = g.colors;
  document.documentElement.style.setProperty("--ncol", colors.length);
  const names = g.players.map((p) => LC.displayName(p));
  $("replay-title").textContent = t("replay.title", { a: names[0], b: names[1] });
  $("replay-info").textContent = t("replay.info", { variant: t(`variant.${g.variant}`), rounds: t("rounds.count", { n: g.num_rounds }), result: g.result, a: g.totals[0], b: g.totals[1] });
  $("replay-body").classList.remove("hidden");
  $("download-svg").classList.remove("hidden");
  $("r-name0").textContent = names[0];
  $("r-name1").textContent = names[1];
  LC.markBot($("r-name0"), g.players[0]);
  LC.markBot($("r-name1"), g.players[1]);
  let ri = 0;
  let k = 0;

  const tabs = $("round-tabs");
  data.rounds.forEach((r, i) => {
    const b = document.createElement("button");
    b.className = "btn small";
    b.type = "button";
    b.setAttribute("role", "tab");
    b.textContent = `${t("round.n", { n: i + 1 })}: ${LC.num(r.summary.scores[0])} : ${LC.num(r.summary.scores[1])}`;
    b.addEventListener("click", () => { ri = i; k = 0; show(); });
    tabs.appendChild(b);
  });

  function exps(el, frame, p, reverse) {
    el.innerHTML = "";
    colors.forEach((c, i) => {
      const col = document.createElement("div");
      col.className = `exp${reverse ? " theirs" : ""}`;
      for (const card of frame.expeditions[p][i]) col.appendChild(LC.chipEl(card));
      el.appendChild(col);
    });
  }
  function hand(el, cards) {
    el.innerHTML = "";
    for (const c of cards) el.appendChild(LC.cardEl(c));
  }
  // the achievements variant: the goal cards and who holds each at this position
  function goals(box, list) {
    box.classList.toggle("hidden", !list.length);
    box.innerHTML = "";
    for (const g of list) {
      const el = document.createElement("div");
      el.className = `goal ${g.kind}${g.claimed_by === null ? "" : g.claimed_by === 0 ? " mine" : " theirs"}`;
      el.setAttribute("role", "listitem");
      el.dataset.goal = g.id;
      const holder = g.claimed_by === null ? "" : names[g.claimed_by];
      el.title = `${LC.goalText(g)} (${g.condition})`;
      el.innerHTML =
        `<span class="goal-kind">${LC.esc(t(g.kind === "race" ? "goal.race" : "goal.end"))}</span>` +
        `<b class="goal-name">${LC.esc(LC.goalName(g))}</b>` +
        `<span class="goal-text">${LC.esc(LC.goalText(g))}</span>` +
        `<span class="goal-holder">${holder ? `+10 ${LC.esc(holder)}` : LC.esc(t("goal.points"))}</span>`;
      el.setAttribute("aria-label", t(g.kind === "race" ? "goal.label_race" : "goal.label_end", { name: LC.goalName(g), text: LC.goalText(g) }) +
        (holder ? t("goal.held_by", { name: holder }) : t("goal.nobody_holds")));
      box.appendChild(el);
    }
    LC.scrollCue(box);
  }
  function show() {
    const r = data.rounds[ri];
    const f = r.frames[k];
    document.dispatchEvent(new CustomEvent("replay:show", { detail: { round: ri, frame: k } }));
    [...tabs.children].forEach((b, i) => b.classList.toggle("primary", i === ri));
    $("slider").max = r.frames.length - 1;
    $("slider").value = k;
    const mover = f.move === null ? null : (r.starter + k - 1) % 2;
    $("ply-label").textContent = k === 0 ? t("replay.deal") : t("replay.move_of", { n: k, total: r.frames.length - 1 });
    $("move-now").textContent = f.move ? `${LC.moveSentence(names[mover], f.move)}.` : "";
    $("move-now").title = f.move || "";
    $("download-svg").href = `/api/games/${encodeURIComponent(id)}/position.svg?round=${ri + 1}&ply=${k}`;
    hand($("r-hand0"), f.hands[0]);
    hand($("r-hand1"), f.hands[1]);
    exps($("r-exps0"), f, 0, false);
    exps($("r-exps1"), f, 1, true);
    const piles = $("r-piles");
    piles.innerHTML = "";
    colors.forEach((c, i) => {
      const pile = f.discard_piles[i];
      const el = document.createElement("div");
      el.className = "pile";
      el.setAttribute("aria-label", pile.length ? t("pile.label_top", { pile: LC.PILE_NAMES[c], n: pile.length, card: LC.cardLabel(pile[pile.length - 1]) }) : t("pile.label_empty", { pile: LC.PILE_NAMES[c] }));
      if (pile.length) el.appendChild(LC.cardEl(pile[pile.length - 1]));
      else { const s = document.createElement("div"); s.className = "slot"; s.innerHTML = LC.symbol(c); el.appendChild(s); }
      const n = document.createElement("span");
      n.className = "count";
      n.textContent = `${pile.length}`;
      el.appendChild(n);
      piles.appendChild(el);
    });
    goals($("r-goals"), f.goals || []);
    $("r-deck").textContent = f.deck_size;
    $("r-score0").textContent = f.scores[0];
    $("r-score1").textContent = f.scores[1];
    const sum = $("r-summary");
    if (k === r.frames.length - 1) {
      sum.classList.remove("hidden");
      sum.innerHTML = `<div class="grid two"><div><h3>${LC.esc(names[0])}</h3>${LC.sheetTable(colors, r.summary.breakdown[0])}</div><div><h3>${LC.esc(names[1])}</h3>${LC.sheetTable(colors, r.summary.breakdown[1])}</div></div>`;
    } else {
      sum.classList.add("hidden");
    }
  }
  const step = (d) => { const n = data.rounds[ri].frames.length; k = Math.max(0, Math.min(n - 1, k + d)); show(); };
  $("first").onclick = () => { k = 0; show(); };
  $("prev").onclick = () => step(-1);
  $("next").onclick = () => step(1);
  $("last").onclick = () => { k = data.rounds[ri].frames.length - 1; show(); };
  $("slider").oninput = (e) => { k = Number(e.target.value); show(); };
  document.addEventListener("keydown", (e) => {
    if (e.key === "ArrowRight") step(1);
    else if (e.key === "ArrowLeft") step(-1);
    else if (e.key === "Home") { k = 0; show(); }
    else if (e.key === "End") { k = data.rounds[ri].frames.length - 1; show(); }
  });
  // the analysis page (analysis.js) moves to a position with this
  window.LCReplay = { goto(r, frame) { ri = r; k = frame; show(); }, data };
  document.dispatchEvent(new CustomEvent("replay:ready"));
  show();
})();
