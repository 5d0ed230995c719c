// The table: live state over a WebSocket (reconnects by itself), play by click or drag.
// The server is the referee: every move is checked there; legality shown here comes from
// the server's list of legal moves and its explanations, never from rules written in JS.
"use strict";
(() => {
  const root = document.getElementById("game");
  const gameId = root.dataset.game;
  const token = LC.tokenFor(gameId);
  const $ = (id) => document.getElementById(id);

  let ws = null;
  let backoff = 500;
  let stopped = false;
  let pingTimer = null;
  let S = null; // last state message
  let sel = null; // selected card
  let selIdx = -1; // its place in the hand (two equal wagers are two cards)
  let connected = false; // the socket is open and the server has sent the state
  let showNotation = localStorage.getItem("lostcities.notation") === "1";
  let reviewing = false; // the final board of the last round is shown on the table
  const reducedMotion = () => window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  let action = null; // "+" or "-" once chosen
  let sending = false;
  let msgId = 0;
  let sendTimer = null;
  let shownRound = -1;
  let rematchOffer = null;
  let engineHint = null; // the position ({round, ply}) the shown engine hint is for
  let goalClaims = null; // "round:goal id" -> holder, as last shown (to animate new claims)

  // -- connection ---------------------------------------------------------------------------
  function setConn(text, bad = false) {
    const el = $("conn");
    el.textContent = text;
    el.classList.toggle("bad", bad);
  }
  // lost connection: a banner that cannot be missed, and no moves until the state is back
  function setConnected(ok, text = "") {
    connected = ok;
    const b = $("conn-banner");
    b.classList.toggle("hidden", ok);
    if (!ok) $("conn-banner-text").textContent = text || "Connection lost: reconnecting… Moves are disabled until the table is back.";
    document.body.classList.toggle("offline", !ok);
    if (S) render(true);
  }
  function connect() {
    const proto = location.protocol === "https:" ? "wss" : "ws";
    ws = new WebSocket(`${proto}://${location.host}/ws/games/${encodeURIComponent(gameId)}`);
    setConn("connecting…");
    ws.onopen = () => {
      backoff = 500;
      setConn("");
      ws.send(JSON.stringify({ type: "hello", token }));
      clearInterval(pingTimer);
      pingTimer = setInterval(() => send({ type: "ping" }), 25000);
    };
    ws.onmessage = (ev) => {
      let m;
      try { m = JSON.parse(ev.data); } catch { return; }
      onMessage(m);
    };
    ws.onclose = (ev) => {
      clearInterval(pingTimer);
      sending = false;
      if (ev.code === 1009) LC.toast("The last message was too large for the server.", "error");
      if (stopped || ev.code === 4404 || ev.code === 4403) {
        setConn("disconnected", true);
        setConnected(false, "Disconnected from the table.");
        return;
      }
      setConn("reconnecting…", true);
      if (S) setConnected(false);
      setTimeout(connect, backoff);
      backoff = Math.min(backoff * 2, 8000);
    };
  }
  function send(obj) {
    if (ws && ws.readyState === WebSocket.OPEN) {
      ws.send(JSON.stringify(obj));
      return true;
    }
    return false;
  }
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden && ws && ws.readyState === WebSocket.OPEN) send({ type: "sync" });
  });

  function onMessage(m) {
    if (m.type === "state") {
      const before = S;
      S = m;
      if (!connected) { connected = true; $("conn-banner").classList.add("hidden"); document.body.classList.remove("offline"); }
      if (m.ack !== null && m.ack !== undefined) sending = false;
      if (!sending) { sel = null; selIdx = -1; action = null; }
      clearTimeout(sendTimer);
      const fly = before ? flightsFrom(before, m) : null;
      render();
      if (fly) animate(fly);
    } else if (m.type === "error") {
      sending = false;
      clearTimeout(sendTimer);
      action = null;
      if (m.code === "not_found") { stopped = true; $("status-text").textContent = "No such game."; }
      if (m.code === "invalid_token") { stopped = true; $("status-text").textContent = "This browser does not hold a seat in this game."; }
      hint(m.message, true);
      LC.toast(m.message, "error");
      if (S) render(true);
    } else if (m.type === "presence") {
      if (S) {
        m.connected.forEach((c, i) => { S.game.players[i].connected = c; });
        renderNames();
      }
    } else if (m.type === "rematch") {
      rematchOffer = m.id;
      if (S) renderButtons();
      if (S && S.match.over) showModal(true);
    }
  }

  // -- helpers ------------------------------------------------------------------------------
  const me = () => (S.seat === null ? 0 : S.seat);
  const opp = () => 1 - me();
  const myTurn = () => connected && S.seat !== null && !S.match.over && !S.view.over && S.view.to_move === S.seat;
  function legalFor(act, card) {
    return S.view.legal.filter((m) => m[0] === act && m.slice(1, -1) === card).map((m) => m.slice(-1));
  }
  function hint(text, err = false) {
    const el = $("hint");
    el.textContent = text || "";
    el.classList.toggle("err", !!err);
  }
  function colorName(c) { return LC.NAMES[c]; }
  function describe(m) {
    const card = m.slice(1, -1);
    const src = m.slice(-1);
    const act = m[0] === "+" ? "played" : "discarded";
    const draw = src === "." ? "drew from the draw pile" : `took the top of the ${colorName(src)} pile`;
    return `${act} ${LC.cardLabel(card)} and ${draw}`;
  }
  // the log in words: "Ana plays green 10 and draws from the deck"
  function sentence(who, m) {
    const you = S.seat !== null && who === S.seat;
    const name = you ? "You" : S.game.players[who].name;
    const s = you ? "" : "s";
    const card = LC.cardLabel(m.slice(1, -1));
    const src = m.slice(-1);
    const act = m[0] === "+" ? `play${s} ${card}` : `discard${s} ${card}`;
    const draw = src === "." ? `draw${s} from the deck` : `take${s} the top of the ${colorName(src)} pile`;
    return `${name} ${act} and ${draw}`;
  }

  // -- motion: a card flies from where it was to where it lands (both players' moves) ----------
  // Positions are read before the table is redrawn; the animations only move the new
  // elements (transform), last 260 ms, are cancelled by the next redraw, and are skipped
  // when the browser asks for reduced motion.
  function rectOf(el) { return el ? el.getBoundingClientRect() : null; }
  function flightsFrom(before, after) {
    if (reducedMotion() || before.round !== after.round) return null;
    const h0 = before.view.history.length, h1 = after.view.history.length;
    if (h1 !== h0 + 1) return null;
    const m = after.view.history[h1 - 1];
    const who = (after.starter + h1 - 1) % 2;
    const mineMove = after.seat !== null && who === after.seat;
    const card = m.slice(1, -1), src = m.slice(-1);
    const from = mineMove
      ? rectOf($("hand").querySelector(`.card.selected`) || $("hand").querySelector(`.card[data-card="${card}"]`))
      : rectOf((after.seat === null && who === 0 ? $("my-backs") : $("opp-hand")).lastElementChild);
    const drawFrom = src === "." ? rectOf($("drawpile").querySelector(".card")) : rectOf($("piles").querySelector(`.pile[data-color="${src}"] .card`));
    return { m, who, mineMove, card, src, from, drawFrom, hand: before.view.hand ? [...before.view.hand] : null };
  }
  function fly(el, from) {
    if (!el || !from || !el.animate) return;
    const to = el.getBoundingClientRect();
    const dx = from.left - to.left, dy = from.top - to.top;
    if (Math.abs(dx) + Math.abs(dy) < 2) return;
    el.classList.add("flying");
    const a = el.animate([{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "none" }], { duration: 260, easing: "cubic-bezier(.2,.7,.3,1)" });
    a.onfinish = a.oncancel = () => el.classList.remove("flying");
  }
  function animate(f) {
    if (reducedMotion()) return;
    const mineMove = f.mineMove;
    let landed;
    if (f.m[0] === "+") {
      const box = mineMove || (S.seat === null && f.who === 0) ? $("my-exps") : $("opp-exps");
      const chips = box.querySelectorAll(`.exp[data-color="${f.card[0]}"] [data-card="${f.card}"]`);
      landed = chips[chips.length - 1];
    } else {
      landed = $("piles").querySelector(`.pile[data-color="${f.card[0]}"] .card`);
    }
    fly(landed, f.from);
    // the drawn card: into my hand (the new one) or onto the opponent's backs
    if (mineMove && f.hand && S.view.hand) {
      const rest = [...f.hand];
      rest.splice(rest.indexOf(f.card), 1);
      let newIdx = -1;
      S.view.hand.forEach((c, i) => { const k = rest.indexOf(c); if (k >= 0) rest.splice(k, 1); else if (newIdx < 0) newIdx = i; });
      if (newIdx >= 0) fly($("hand").children[newIdx], f.drawFrom);
    } else if (!mineMove) {
      fly(S.seat === null && f.who === 0 ? $("my-backs").lastElementChild : $("opp-hand").lastElementChild, f.drawFrom);
    }
  }
  function stopMotion() {
    for (const el of document.querySelectorAll(".flying")) for (const a of el.getAnimations()) a.cancel();
  }

  // -- rendering ----------------------------------------------------------------------------
  function renderNames() {
    const p = S.game.players;
    const tag = (pl) => (pl.kind === "bot" ? "" : pl.connected ? " ●" : " ○");
    $("my-name").textContent = (S.seat === null ? p[0].name : "You") + (S.seat === null ? tag(p[0]) : "");
    $("opp-name").textContent = p[opp()].name + tag(p[opp()]);
    $("opp-name").title = p[opp()].kind === "bot" ? "computer" : p[opp()].connected ? "online" : "offline";
  }

  function render(keepHint = false) {
    stopMotion();
    const v = S.view;
    if (engineHint && (engineHint.round !== S.round || engineHint.ply !== v.ply)) {
      engineHint = null;
      $("engine-hint").textContent = "";
    }
    const colors = S.game.colors;
    document.documentElement.style.setProperty("--ncol", colors.length);
    renderNames();

    // status line and tab title
    const status = $("status");
    const p = S.game.players;
    let text;
    const mine = myTurn();
    if (S.match.over) {
      const t = S.match.totals;
      const w = S.match.winner;
      const res = w === null ? "a draw" : S.seat === null ? `${p[w].name} won` : w === S.seat ? "you won" : "you lost";
      const why = S.match.reason && S.match.reason.startsWith("tie broken") ? `, ${S.match.reason}` : "";
      text = `Match over: ${res} (${t[me()]} : ${t[opp()]}${why})`;
    } else if (S.game.status === "waiting" && !p[1].joined) {
      text = "Waiting for your friend to join";
    } else if (mine) {
      text = action ? "Your turn: now draw a card" : "Your turn: play or discard a card";
    } else if (S.seat === null) {
      text = `Spectating: ${p[v.to_move].name} to move`;
    } else {
      text = p[opp()].kind === "bot" ? `${p[opp()].name} is thinking…` : `Waiting for ${p[opp()].name}`;
    }
    if (S.seat === null && S.match.over) text = `Spectating: ${text}`;
    if (!connected) text = "Not connected: reconnecting…";
    $("status-text").textContent = text;
    status.classList.toggle("mine", mine);
    status.classList.toggle("spectating", S.seat === null);
    document.title = mine ? "● Your turn · Lost Cities" : S.match.over ? "Game over · Lost Cities" : "Lost Cities";

    // invite panel
    const entry = LC.games().find((g) => g.id === gameId);
    const showInvite = S.seat === 0 && p[1].kind === "human" && !p[1].joined && entry && entry.invite;
    $("invite-panel").classList.toggle("hidden", !showInvite);
    if (showInvite) $("invite-url").value = entry.invite;

    // opponent's hand: backs, with the cards they are known to hold face up
    const oh = $("opp-hand");
    oh.innerHTML = "";
    const known = v.known[opp()];
    for (const c of known) oh.appendChild(LC.cardEl(c, "known-card"));
    for (let i = known.length; i < 8; i++) {
      const b = document.createElement("div");
      b.className = "card back";
      oh.appendChild(b);
    }
    // a spectator sees both hands as backs (and the known cards of each)
    const mb = $("my-backs");
    mb.classList.toggle("hidden", S.seat !== null);
    mb.innerHTML = "";
    if (S.seat === null) {
      for (const c of v.known[me()]) mb.appendChild(LC.cardEl(c, "known-card"));
      for (let i = v.known[me()].length; i < 8; i++) {
        const b = document.createElement("div");
        b.className = "card back";
        mb.appendChild(b);
      }
    }

    // expeditions
    const drawSources = mine && action && sel ? legalFor(action, sel) : [];
    renderExps($("opp-exps"), opp(), true);
    renderExps($("my-exps"), me(), false);
    $("opp-total").textContent = v.scores[opp()];
    $("my-total").textContent = v.scores[me()];

    // discard piles
    const piles = $("piles");
    piles.innerHTML = "";
    colors.forEach((c, i) => {
      const pile = v.discard_piles[i];
      const el = document.createElement("div");
      el.className = "pile";
      el.dataset.color = c;
      el.setAttribute("aria-label", `${colorName(c)} discard pile, ${pile.length} cards`);
      let top = pile.length ? pile[pile.length - 1] : null;
      const ghost = mine && action === "-" && sel && sel[0] === c;
      if (ghost) top = sel;
      if (top) {
        const card = LC.cardEl(top);
        if (ghost) card.style.opacity = ".55";
        el.appendChild(card);
      } else {
        const slot = document.createElement("div");
        slot.className = "slot";
        slot.innerHTML = LC.symbol(c);
        el.appendChild(slot);
      }
      const cnt = document.createElement("button");
      cnt.type = "button";
      cnt.className = "count";
      cnt.textContent = `${pile.length} card${pile.length === 1 ? "" : "s"}`;
      cnt.addEventListener("click", (ev) => { ev.stopPropagation(); togglePile(el, pile); });
      el.appendChild(cnt);
      if (drawSources.includes(c)) el.classList.add("drawable");
      if (ghost) el.classList.add("disabled");
      if (mine && sel && !action && sel[0] === c) el.classList.add("target");
      el.addEventListener("click", () => onPile(c));
      el.tabIndex = 0;
      el.setAttribute("role", "button");
      el.addEventListener("keydown", (ev) => {
        if (ev.target === el && (ev.key === "Enter" || ev.key === " ")) { ev.preventDefault(); onPile(c); }
      });
      addDrop(el, "-", c);
      piles.appendChild(el);
    });

    renderGoals(v.goals || []);

    // draw pile
    $("deck-n").textContent = v.deck_size;
    $("drawpile").classList.toggle("drawable", drawSources.includes("."));

    renderHand();
    renderLog();
    renderMatch();
    renderButtons();
    // the last move, marked on the table and told in words
    const last = v.history.length ? v.history[v.history.length - 1] : null;
    if (last) {
      const lastCard = last.slice(1, -1);
      const who = (S.starter + v.history.length - 1) % 2;
      const box = last[0] === "+" ? (who === me() ? $("my-exps") : $("opp-exps")) : $("piles");
      const col = box.querySelector(`[data-color="${lastCard[0]}"]`);
      if (col) {
        const cards = [...col.querySelectorAll(`[data-card="${lastCard}"]`)];
        if (cards.length) cards[cards.length - 1].classList.add("last");
      }
    }
    if (!keepHint) {
      const lastWho = last ? (S.starter + v.history.length - 1) % 2 : null;
      const lastText = last && lastWho !== me() ? `${p[lastWho].name} ${describe(last)}. ` : "";
      if (mine && !sel) hint(`${lastText}Tap a card in your hand (or drag it onto an expedition or a discard pile).`);
      else if (mine && sel && !action) hint(`${LC.cardLabel(sel)}: play it or discard it.`);
      else if (mine && action) hint("Draw from the draw pile or take the top card of a discard pile.");
      else if (S.seat !== null && !S.match.over && last && lastWho === me()) hint(`You ${describe(last)}.`);
      else hint(lastText);
    }
    // round or match over: the breakdown
    const finished = S.match.rounds.length;
    if (finished > 0 && shownRound < finished - 1) {
      const key = `lostcities.shown.${gameId}`;
      const seen = Number(sessionStorage.getItem(key) || "-1");
      if (seen < finished - 1) {
        showModal(false);
        sessionStorage.setItem(key, String(finished - 1));
      }
      shownRound = finished - 1;
    }
  }

  // the achievements variant: the goal cards, face up, and who holds each; a new claim
  // is animated (not on the first render, nor with reduced motion)
  function renderGoals(goals) {
    const box = $("goals");
    box.classList.toggle("hidden", !goals.length);
    box.innerHTML = "";
    const p = S.game.players;
    const seen = goalClaims;
    goalClaims = {};
    for (const g of goals) {
      const key = `${S.round}:${g.id}`;
      goalClaims[key] = g.claimed_by;
      const el = document.createElement("div");
      el.className = `goal ${g.kind}`;
      el.setAttribute("role", "listitem");
      el.dataset.goal = g.id;
      const holder = g.claimed_by === null ? "" : g.claimed_by === me() && S.seat !== null ? "you" : p[g.claimed_by].name;
      if (g.claimed_by !== null) el.classList.add(g.claimed_by === me() ? "mine" : "theirs");
      el.title = `${g.text} (${g.condition})`;
      el.innerHTML =
        `<span class="goal-kind">${g.kind === "race" ? "race" : "end of round"}</span>` +
        `<b class="goal-name">${LC.esc(g.name)}</b>` +
        `<span class="goal-text">${LC.esc(g.text)}</span>` +
        `<span class="goal-holder">${holder ? `+10 ${LC.esc(holder)}` : "10 points"}</span>`;
      el.setAttribute("aria-label", `${g.name}, ${g.kind === "race" ? "race goal" : "end goal"}: ${g.text}` +
        (holder ? `; held by ${holder}` : "; nobody holds it"));
      if (seen && g.claimed_by !== null && seen[key] === null && !reducedMotion()) el.classList.add("claimed-now");
      box.appendChild(el);
    }
  }

  function renderExps(container, player, theirs) {
    const v = S.view;
    const colors = S.game.colors;
    const mine = myTurn();
    container.innerHTML = "";
    colors.forEach((c, i) => {
      const col = document.createElement("div");
      col.className = `exp${theirs ? " theirs" : ""}`;
      col.dataset.color = c;
      col.setAttribute("aria-label", `${theirs ? "opponent's" : "your"} ${colorName(c)} expedition`);
      const score = document.createElement("div");
      score.className = "escore";
      const cards = v.expeditions[player][i];
      score.textContent = cards.length ? v.expedition_scores[player][i] : "";
      if (!theirs) col.appendChild(score);
      for (const card of cards) col.appendChild(LC.chipEl(card));
      if (!theirs && mine && action === "+" && sel && sel[0] === c) {
        const g = LC.chipEl(sel);
        g.style.opacity = ".55";
        col.appendChild(g);
      }
      if (theirs) col.appendChild(score);
      if (!theirs) {
        if (mine && sel && !action && sel[0] === c) col.classList.add("target");
        col.addEventListener("click", () => onExpedition(c));
        addDrop(col, "+", c);
      }
      container.appendChild(col);
    });
  }

  function renderHand() {
    const hand = $("hand");
    hand.innerHTML = "";
    const v = S.view;
    $("hand-wrap").classList.toggle("hidden", S.seat === null);
    if (!v.hand) return;
    const mine = myTurn();
    const knownMine = [...v.known[me()]];
    v.hand.forEach((card, idx) => {
      const playable = legalFor("+", card).length > 0;
      let extra = "";
      if (mine) extra = playable ? "legal" : "dim";
      if (idx === selIdx && card === sel) extra += " selected";
      const k = knownMine.indexOf(card);
      if (k >= 0) { extra += " known"; knownMine.splice(k, 1); }
      const el = LC.cardEl(card, extra);
      el.tabIndex = 0;
      el.setAttribute("role", "button");
      el.dataset.idx = String(idx);
      el.setAttribute("aria-pressed", idx === selIdx ? "true" : "false");
      el.draggable = mine && !sending;
      el.addEventListener("click", () => onHandCard(card, idx));
      el.addEventListener("keydown", (ev) => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); onHandCard(card, idx); } });
      el.addEventListener("dragstart", (ev) => {
        sel = card; selIdx = idx; action = null;
        ev.dataTransfer.setData("text/plain", card);
        ev.dataTransfer.effectAllowed = "move";
      });
      hand.appendChild(el);
    });
    // action buttons
    const acts = $("actions");
    acts.innerHTML = "";
    if (!mine || !sel) return;
    if (!action) {
      const play = button(`Play ${LC.rankText(sel)} ${colorName(sel[0])}`, "primary", () => choose("+"));
      play.dataset.act = "play";
      if (!legalFor("+", sel).length) play.classList.remove("primary");
      acts.appendChild(play);
      const disc = button("Discard", "", () => choose("-"));
      disc.dataset.act = "discard";
      acts.appendChild(disc);
      acts.appendChild(button("Cancel", "small", cancel));
    } else {
      acts.appendChild(button("Back", "small", () => { action = null; render(); }));
    }
  }

  function button(label, cls, fn) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = `btn ${cls}`.trim();
    b.textContent = label;
    b.addEventListener("click", fn);
    return b;
  }

  function togglePile(el, pile) {
    const open = el.querySelector(".pile-list");
    if (open) { open.remove(); return; }
    const list = document.createElement("div");
    list.className = "pile-list";
    list.setAttribute("aria-label", "whole pile, bottom first");
    if (!pile.length) list.innerHTML = '<span class="muted" style="font-size:.7rem;color:#cfe0dc">empty</span>';
    for (const c of pile) list.appendChild(LC.chipEl(c));
    el.appendChild(list);
  }

  function renderLog() {
    const log = $("log");
    const v = S.view;
    log.innerHTML = "";
    const rows = [];
    log.classList.toggle("with-notation", showNotation);
    v.history.forEach((m, i) => {
      const who = (S.starter + i) % 2;
      const mine = who === me() && S.seat !== null;
      rows.push(`<span class="n">${i + 1}.</span><span class="say${mine ? " me" : ""}">${LC.esc(sentence(who, m))}</span><span class="nota" title="notation">${LC.esc(m)}</span>`);
    });
    log.innerHTML = rows.join("") || '<span></span><span class="muted">no moves yet</span><span></span>';
    log.scrollTop = log.scrollHeight;
  }

  function renderMatch() {
    const t = $("match-table");
    const p = S.game.players;
    const n = S.game.num_rounds;
    let rows = `<tr><th>Round</th><th>${S.seat === null ? LC.esc(p[0].name) : "You"}</th><th>${LC.esc(p[opp()].name)}</th></tr>`;
    for (let i = 0; i < n; i++) {
      const done = S.match.rounds.find((r) => r.index === i);
      let a = "", b = "";
      if (done) { a = done.scores[me()]; b = done.scores[opp()]; }
      else if (i === S.round && !S.match.over) { a = `<i>${S.view.scores[me()]}</i>`; b = `<i>${S.view.scores[opp()]}</i>`; }
      rows += `<tr><td>${i + 1}${i === S.round && !S.match.over ? " ◂" : ""}</td><td>${a}</td><td>${b}</td></tr>`;
    }
    rows += `<tr><th>Total</th><th>${S.match.totals[me()]}</th><th>${S.match.totals[opp()]}</th></tr>`;
    t.innerHTML = rows;
  }

  function renderButtons() {
    const box = $("game-buttons");
    box.innerHTML = "";
    if (S.seat !== null && !S.match.over) {
      box.appendChild(button("Resign", "small danger", () => {
        if (confirm("Resign this match?")) send({ type: "resign" });
      }));
      if (S.game.players[opp()].kind === "bot") {
        const hb = button("Hint", "small", askHint);
        hb.id = "hint-button";
        hb.title = "Ask the engine for a move (the game is then marked assisted)";
        box.appendChild(hb);
      }
    }
    if (S.match.rounds.length && !S.match.over) {
      const rb = button("Last round", "small", () => showModal(true));
      rb.id = "last-round";
      rb.title = "the final board and score sheets of the last finished round";
      box.appendChild(rb);
    }
    if (S.game.assisted) {
      const tag = document.createElement("span");
      tag.className = "muted small";
      tag.id = "assisted";
      tag.textContent = `assisted (${S.game.hints} hint${S.game.hints === 1 ? "" : "s"})`;
      box.appendChild(tag);
    }
    if (S.match.over) {
      if (S.seat !== null) box.appendChild(button(rematchOffer || S.game.rematch_id ? "Join rematch" : "Rematch", "small primary", rematch));
      const a = document.createElement("a");
      a.className = "btn small";
      a.href = `/replay/${gameId}`;
      a.textContent = "Replay";
      box.appendChild(a);
      const an = document.createElement("a");
      an.className = "btn small";
      an.href = `/analysis/${gameId}`;
      an.textContent = "Analysis";
      box.appendChild(an);
      const d = document.createElement("a");
      d.className = "btn small";
      d.href = `/api/games/${gameId}/record`;
      d.textContent = "Download record";
      box.appendChild(d);
      const b = document.createElement("button");
      b.className = "btn small";
      b.textContent = "Scores";
      b.addEventListener("click", () => showModal(true));
      box.appendChild(b);
    }
    const h = document.createElement("a");
    h.className = "btn small";
    h.href = "/";
    h.textContent = "Home";
    box.appendChild(h);
  }

  // the final board of a finished round: both players' expeditions and the discard piles
  function finalBoard(r) {
    const p = S.game.players;
    const colors = S.game.colors;
    const you = S.seat === null ? p[0].name : "You";
    const side = (player, label) => {
      const cols = colors.map((c, i) => {
        const cards = r.breakdown[player][i].cards;
        return `<div class="exp" aria-label="${LC.esc(label)}: ${colorName(c)} expedition, ${cards.length} cards">${cards.map((x) => LC.chipEl(x).outerHTML).join("")}</div>`;
      }).join("");
      return `<div class="side-label"><b>${LC.esc(label)}</b></div><div class="cols">${cols}</div>`;
    };
    const piles = colors.map((c, i) => {
      const pile = (r.discard_piles || [])[i] || [];
      const top = pile.length ? LC.cardEl(pile[pile.length - 1]).outerHTML : `<div class="slot">${LC.symbol(c)}</div>`;
      return `<div class="pile" aria-label="${colorName(c)} discard pile, ${pile.length} cards">${top}<span class="count">${pile.length}</span></div>`;
    }).join("");
    return `<h3>Final board · round ${r.index + 1}</h3><div class="table review">${side(opp(), p[opp()].name)}<div class="cols piles">${piles}</div>${side(me(), you)}</div>`;
  }

  function showModal(force, index) {
    if (!S || !S.match.rounds.length) return;
    const k = index === undefined ? S.match.rounds.length - 1 : index;
    const last = S.match.rounds[k];
    const latest = k === S.match.rounds.length - 1;
    const p = S.game.players;
    const colors = S.game.colors;
    const over = S.match.over && latest;
    $("modal-title").textContent = over ? "Match over" : `Round ${last.index + 1} of ${S.game.num_rounds} is over`;
    const you = S.seat === null ? p[0].name : "You";
    let res;
    if (over) {
      const w = S.match.winner;
      res = w === null ? "It's a draw." : S.seat === null ? `${p[w].name} wins.` : w === S.seat ? "You win the match!" : `${p[opp()].name} wins the match.`;
    } else {
      res = `${you} ${last.scores[me()]} : ${last.scores[opp()]} ${p[opp()].name}`;
    }
    if (last.termination === "forfeit") res += ` (${last.reason || "forfeit"})`;
    else if (over && S.match.reason && S.match.reason.startsWith("tie broken")) res += ` (equal totals: ${S.match.reason})`;
    $("modal-result").textContent = res;
    $("modal-board").innerHTML = finalBoard(last);
    if (last.goals && last.goals.length) {
      const who = (g) => g.claimed_by === null ? "nobody" : g.claimed_by === me() && S.seat !== null ? "you" : p[g.claimed_by].name;
      $("modal-board").innerHTML += `<ul class="goal-results" aria-label="goals">` +
        last.goals.map((g) => `<li><b>${LC.esc(g.name)}</b> (${g.kind}): ${LC.esc(who(g))}${g.claimed_by === null ? "" : " +10"}</li>`).join("") +
        `</ul>`;
    }
    $("modal-sheets").innerHTML =
      `<div><h3>${LC.esc(you)} · round ${last.index + 1}</h3>${LC.sheetTable(colors, last.breakdown[me()])}</div>` +
      `<div><h3>${LC.esc(p[opp()].name)} · round ${last.index + 1}</h3>${LC.sheetTable(colors, last.breakdown[opp()])}</div>`;
    let mt = `<table class="sheet"><thead><tr><th>round</th><th>${LC.esc(you)}</th><th>${LC.esc(p[opp()].name)}</th></tr></thead><tbody>`;
    for (const r of S.match.rounds) mt += `<tr><td>${r.index + 1}</td><td>${r.scores[me()]}</td><td>${r.scores[opp()]}</td></tr>`;
    mt += `<tr class="total"><td>match</td><td>${S.match.totals[me()]}</td><td>${S.match.totals[opp()]}</td></tr></tbody></table>`;
    $("modal-match").innerHTML = mt;
    const btns = $("modal-buttons");
    btns.innerHTML = "";
    if (S.match.rounds.length > 1) {
      const prev = button("◂ Round", "small", () => showModal(true, k - 1));
      prev.disabled = k === 0;
      prev.setAttribute("aria-label", "previous round");
      btns.appendChild(prev);
      const next = button("Round ▸", "small", () => showModal(true, k + 1));
      next.disabled = latest;
      next.setAttribute("aria-label", "next finished round");
      btns.appendChild(next);
    }
    if (!over) {
      btns.appendChild(button(S.match.over || !latest ? "Close" : "Next round", "primary", hideModal));
    } else {
      if (S.seat !== null) btns.appendChild(button(rematchOffer || S.game.rematch_id ? "Join rematch" : "Rematch", "primary", rematch));
      const a = document.createElement("a");
      a.className = "btn";
      a.href = `/replay/${gameId}`;
      a.textContent = "Replay";
      btns.appendChild(a);
      const an = document.createElement("a");
      an.className = "btn";
      an.href = `/analysis/${gameId}`;
      an.textContent = "Analysis";
      btns.appendChild(an);
      btns.appendChild(button("Close", "", hideModal));
    }
    $("modal").classList.remove("hidden");
    const first = btns.querySelector("button");
    if (first) first.focus();
    void force;
  }
  function hideModal() { $("modal").classList.add("hidden"); }

  async function askHint() {
    const b = $("hint-button");
    if (b) b.disabled = true;
    try {
      const h = await LC.api("POST", `/api/games/${gameId}/hint`, { token });
      const best = h.moves[0];
      engineHint = { round: h.round, ply: h.ply };
      $("engine-hint").textContent = `Hint: ${h.best} (expected margin ${best.margin >= 0 ? "+" : ""}${best.margin.toFixed(1)}, ${Math.round(100 * best.win)}% to win the round)`;
    } catch (e) {
      hint(e.message, true);
    } finally {
      if (b) b.disabled = false;
    }
  }

  async function rematch() {
    try {
      const g = await LC.api("POST", `/api/games/${gameId}/rematch`, { token });
      LC.remember({ id: g.id, token: g.token, seat: g.seat });
      location.href = g.url;
    } catch (e) {
      LC.toast(e.message, "error");
    }
  }

  // -- input ----------------------------------------------------------------------------------
  function onHandCard(card, idx) {
    if (!S || S.seat === null) return;
    if (!connected) { hint("Not connected: wait until the table is back.", true); return; }
    if (!myTurn()) {
      hint(S.match.over ? "The game is over." : "It is not your turn yet.", true);
      return;
    }
    if (sending) return;
    if (selIdx === idx && !action) { cancel(); return; }
    sel = card;
    selIdx = idx;
    action = null;
    render();
  }
  function cancel() { sel = null; selIdx = -1; action = null; render(); }

  function choose(act) {
    if (!sel || !myTurn() || sending) return;
    const draws = legalFor(act, sel);
    if (!draws.length) {
      const why = act === "+" ? S.view.illegal[sel] || `${sel} cannot be played now` : `${sel} cannot be discarded now`;
      hint(`Cannot play ${sel}: ${why}.`, true);
      return;
    }
    action = act;
    render();
  }

  function onExpedition(c) {
    if (!myTurn() || !sel || sending) return;
    if (action) return;
    if (sel[0] !== c) {
      hint(`${sel} belongs on the ${colorName(sel[0])} expedition.`, true);
      return;
    }
    choose("+");
  }

  function onPile(c) {
    if (!myTurn() || sending || !sel) return;
    if (!action) {
      if (sel[0] !== c) { hint(`${sel} can only be discarded onto the ${colorName(sel[0])} pile.`, true); return; }
      choose("-");
      return;
    }
    if (action === "-" && sel[0] === c) {
      hint("You cannot take back the card you just discarded: draw from another pile.", true);
      return;
    }
    const draws = legalFor(action, sel);
    if (!draws.includes(c)) { hint(`The ${colorName(c)} discard pile is empty.`, true); return; }
    submit(c);
  }

  $("drawpile").addEventListener("click", () => {
    if (!myTurn() || !sel || !action || sending) return;
    submit(".");
  });
  $("drawpile").addEventListener("keydown", (ev) => { if (ev.key === "Enter") $("drawpile").click(); });

  function submit(src) {
    const move = `${action}${sel}${src}`;
    if (!S.view.legal.includes(move)) { hint(`${move} is not legal now.`, true); return; }
    msgId += 1;
    if (!send({ type: "move", move, round: S.round, ply: S.view.ply, id: msgId })) {
      hint("Not connected: reconnecting…", true);
      return;
    }
    sending = true;
    hint("Sending…");
    clearTimeout(sendTimer);
    sendTimer = setTimeout(() => { if (sending) { sending = false; send({ type: "sync" }); } }, 8000);
  }

  function addDrop(el, act, c) {
    el.addEventListener("dragover", (ev) => {
      if (!myTurn() || !sel) return;
      ev.preventDefault();
      el.classList.add("drop");
    });
    el.addEventListener("dragleave", () => el.classList.remove("drop"));
    el.addEventListener("drop", (ev) => {
      ev.preventDefault();
      el.classList.remove("drop");
      const card = ev.dataTransfer.getData("text/plain") || sel;
      if (!card || !myTurn()) return;
      if (sel !== card) { sel = card; selIdx = S.view.hand.indexOf(card); }
      action = null;
      if (card[0] !== c) {
        render(true);
        hint(act === "+" ? `${card} belongs on the ${colorName(card[0])} expedition.` : `${card} can only be discarded onto the ${colorName(card[0])} pile.`, true);
        return;
      }
      render(true);
      choose(act);
    });
  }

  document.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape") {
      if (!$("modal").classList.contains("hidden")) hideModal();
      else if (sel) cancel();
    }
  });
  $("modal").addEventListener("click", (ev) => { if (ev.target === $("modal")) hideModal(); });
  $("show-notation").checked = showNotation;
  $("show-notation").addEventListener("change", () => {
    showNotation = $("show-notation").checked;
    localStorage.setItem("lostcities.notation", showNotation ? "1" : "0");
    if (S) renderLog();
  });
  $("copy-invite").addEventListener("click", async () => {
    try { await navigator.clipboard.writeText($("invite-url").value); LC.toast("Invite link copied"); }
    catch { $("invite-url").select(); }
  });

  connect();
})();
