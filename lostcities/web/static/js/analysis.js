// The analysis page: the replay (replay.js) plus the engine's review of every move: the
// win-probability curve of each round, the marked moves, and, for the position shown, the
// move played against the better one. The server computes it once, in its bot workers.
"use strict";
(() => {
  const root = document.getElementById("replay");
  const id = root.dataset.game;
  const $ = (x) => document.getElementById(x);
  const t = LC.t;
  const pct = (p) => new Intl.NumberFormat(LC.LANG, { style: "percent" }).format(p);
  const MARKS = { inaccuracy: t("mark.inaccuracy"), mistake: t("mark.mistake"), blunder: t("mark.blunder") };
  const SIGN = { inaccuracy: "?!", mistake: "?", blunder: "??" };
  let A = null;
  let ready = !!window.LCReplay;
  document.addEventListener("replay:ready", () => { ready = true; draw(); });
  document.addEventListener("replay:show", (e) => select(e.detail.round, e.detail.frame));

  async function poll() {
    let a;
    try {
      a = await LC.api("GET", `/api/games/${encodeURIComponent(id)}/analysis`);
    } catch (e) {
      $("analysis-status").textContent = e.message;
      return;
    }
    if (a.status !== "done") {
      $("analysis-status").textContent = t("analysis.progress", { done: a.done, total: a.total || "?" });
      setTimeout(poll, 1000);
      return;
    }
    A = a;
    $("analysis-status").textContent = t("analysis.done", { worlds: a.worlds, bot: a.bot });
    draw();
  }

  function draw() {
    if (!A || !ready) return;
    const names = A.players.map((n) => LC.displayName({ name: n }));  // "Computer (Expert)" in the page's language
    let tab = `<table class="sheet"><thead><tr><th>${t("analysis.player")}</th><th>${t("analysis.accuracy")}</th><th>${t("analysis.avg_loss")}</th><th title="${MARKS.inaccuracy}">?!</th><th title="${MARKS.mistake}">?</th><th title="${MARKS.blunder}">??</th></tr></thead><tbody>`;
    for (const s of A.summary) {
      tab += `<tr><td>${LC.esc(names[s.player])}</td><td>${pct(s.accuracy / 100)}</td><td>${LC.num(s.average_loss)}</td><td>${s.inaccuracies}</td><td>${s.mistakes}</td><td>${s.blunders}</td></tr>`;
    }
    $("analysis-summary").innerHTML = tab + "</tbody></table>";
    const curves = $("analysis-curves");
    curves.innerHTML = "";
    const rounds = [...new Set(A.moves.map((m) => m.round))];
    const W = 600, H = 110;
    for (const rnd of rounds) {
      const ms = A.moves.filter((m) => m.round === rnd);
      const x = (ply) => 4 + (W - 8) * (ply + 1) / (ms.length + 1);
      const y = (p) => 4 + (H - 8) * (1 - p);
      const p0 = (m) => (m.player === 0 ? m.win : 1 - m.win);
      const pts = ms.map((m) => `${x(m.ply).toFixed(1)},${y(p0(m)).toFixed(1)}`).join(" ");
      let svg = `<svg viewBox="0 0 ${W} ${H}" width="100%" role="img" aria-label="${LC.esc(t("analysis.curve_label", { n: rnd, name: names[0] }))}" class="curve" data-round="${rnd}">`;
      svg += `<line x1="0" x2="${W}" y1="${y(0.5)}" y2="${y(0.5)}" stroke="#999" stroke-dasharray="4 3"/>`;
      svg += `<polyline fill="none" stroke="#1f5fa8" stroke-width="1.6" points="${pts}"/>`;
      for (const m of ms) {
        if (!m.mark) continue;
        svg += `<circle class="mark-dot ${m.mark}" data-round="${rnd}" data-ply="${m.ply}" cx="${x(m.ply).toFixed(1)}" cy="${y(p0(m)).toFixed(1)}" r="4"><title>${LC.esc(names[m.player])}: ${LC.esc(LC.moveText(m.move))}: ${MARKS[m.mark]}</title></circle>`;
      }
      svg += "</svg>";
      const h = document.createElement("div");
      h.innerHTML = `<small class="muted">${LC.esc(t("analysis.curve", { n: rnd, name: names[0] }))}</small>${svg}`;
      curves.appendChild(h);
    }
    curves.querySelectorAll(".mark-dot").forEach((c) => {
      c.style.cursor = "pointer";
      c.addEventListener("click", () => go(Number(c.dataset.round), Number(c.dataset.ply)));
    });
    const list = $("analysis-moves");
    list.innerHTML = "";
    for (const m of A.moves) {
      const row = document.createElement("button");
      row.type = "button";
      row.className = `analysis-row${m.mark ? " " + m.mark : ""}`;
      row.dataset.round = m.round;
      row.dataset.ply = m.ply;
      row.textContent = `${t("analysis.round_short", { n: m.round })} ${m.ply + 1}. ${names[m.player]}: ${LC.moveText(m.move)}${m.mark ? " " + SIGN[m.mark] + " " + MARKS[m.mark] + " " + t("analysis.loss_better", { loss: LC.num1(m.loss), best: LC.moveText(m.best) }) : ""}`;
      row.addEventListener("click", () => go(m.round, m.ply));
      list.appendChild(row);
    }
  }

  // show the position before the move (the replay's frame number = the ply)
  function go(rnd, ply) { window.LCReplay.goto(rnd - 1, ply); }

  function select(ri, frame) {
    if (!A) return;
    const m = A.moves.find((x) => x.round === ri + 1 && x.ply === frame);
    document.querySelectorAll(".analysis-row").forEach((r) => {
      r.classList.toggle("selected", Number(r.dataset.round) === ri + 1 && Number(r.dataset.ply) === frame);
    });
    const el = $("analysis-move");
    if (!m) { el.textContent = ""; return; }
    const who = LC.displayName({ name: A.players[m.player] });
    el.textContent = m.move === m.best
      ? t("analysis.same", { name: who, move: LC.moveText(m.move), pct: pct(m.win) })
      : t("analysis.better", { name: who, move: LC.moveText(m.move), pct: pct(m.win), best: LC.moveText(m.best), best_pct: pct(m.best_win), n: Number(m.loss.toFixed(1)) }) + (m.mark ? ` — ${MARKS[m.mark]}` : "");
  }

  const sw = $("show-notation");
  if (sw) {
    sw.checked = LC.notationShown();
    sw.addEventListener("change", () => {
      localStorage.setItem("lostcities.notation", sw.checked ? "1" : "0");
      draw();
      const cur = document.querySelector(".analysis-row.selected");
      if (cur) select(Number(cur.dataset.round) - 1, Number(cur.dataset.ply));
    });
  }
  poll();
})();
