// The table: live state over a WebSocket (reconnects by itself), play by click or drag.
// The server is the referee: every move is checked there; legality shown here comes from
// the server's list of legal moves and its explanations, never from rules written in JS.
"use strict";
(() => {
  const root = document.getElementById("game");
  const gameId = root.dataset.game;
  const token = LC.tokenFor(gameId);
  const $ = (id) => document.getElementById(id);
  const t = LC.t;
  const nameOf = (i) => LC.displayName(S.game.players[i]);

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
    if (!ok) $("conn-banner-text").textContent = text || t("game.conn_lost_long");
    document.body.classList.toggle("offline", !ok);
    if (S) render(true);
  }
  function connect() {
    const proto = location.protocol === "https:" ? "wss" : "ws";
    ws = new WebSocket(`${proto}://${location.host}/ws/games/${encodeURIComponent(gameId)}`);
    setConn(t("game.conn.connecting"));
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
      if (ev.code === 1009) LC.toast(t("game.too_large"), "error");
      if (stopped || ev.code === 4404 || ev.code === 4403) {
        setConn(t("game.conn.disconnected"), true);
        setConnected(false, t("game.disconnected"));
        return;
      }
      setConn(t("game.conn.reconnecting"), true);
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
      // a state of the same position (a resync, a reconnection) keeps the card chosen
      const same = before && before.round === m.round && before.view.ply === m.view.ply && !m.view.over;
      if (!sending && !same) { sel = null; selIdx = -1; action = null; }
      clearTimeout(sendTimer);
      const fly = before ? flightsFrom(before, m) : null;
      setClock();
      render();
      if (fly) animate(fly);
      if (chatSaid) replayChat();
      alertTurn(before !== null);
    } else if (m.type === "error") {
      sending = false;
      clearTimeout(sendTimer);
      action = null;
      if (m.code === "not_found") { stopped = true; $("status-text").textContent = t("game.no_such_game"); }
      if (m.code === "invalid_token") { stopped = true; $("status-text").textContent = t("game.no_seat"); }
      let text = LC.errorText(m.code, m.message);
      if (m.code === "illegal_move") { // the core's reason, in words where it is one we know
        const why = /\(([^()]*)\)$/.exec(m.message || "");
        const said = why ? whyIllegal(why[1]) : "";
        if (said && said !== why[1]) text = `${text}: ${said}`;
      }
      hint(text, true);
      LC.toast(text, "error");
      if (S) render(true);
    } else if (m.type === "presence") {
      if (S) {
        m.connected.forEach((c, i) => { S.game.players[i].connected = c; });
        renderNames();
      }
    } else if (m.type === "chat") {
      showChat(m.seat, m.phrase);
    } else if (m.type === "chat_log") { // the chat so far, on (re)connecting: said again, in order
      chatSaid = m.messages;
      if (S) replayChat();
    } else if (m.type === "rematch") {
      rematchOffer = m.id;
      if (S) renderButtons();
      if (S && S.match.over) showModal(true);
    }
  }

  // -- helpers ------------------------------------------------------------------------------
  const me = () => (S.seat === null ? 0 : S.seat);
  const opp = () => 1 - me();
  // a friend game waits for the friend: nobody moves until both seats are taken (the server agrees)
  const waitingFriend = () => S.game.status === "waiting" && !S.game.players[1].joined;
  const myTurn = () => connected && S.seat !== null && !S.match.over && !S.view.over && !waitingFriend() && S.view.to_move === S.seat;
  function legalFor(act, card) {
    return S.view.legal.filter((m) => m[0] === act && m.slice(1, -1) === card).map((m) => m.slice(-1));
  }
  function hint(text, err = false) {
    const el = $("hint");
    el.textContent = text || "";
    el.classList.toggle("err", !!err);
  }
  function colorName(c) { return LC.NAMES[c]; }
  function pileName(c) { return LC.PILE_NAMES[c]; }
  // a discard pile's screen-reader name: its colour, its size and the card that can be taken
  function pileLabel(c, pile) {
    const top = pile.length ? pile[pile.length - 1] : null;
    return top ? t("pile.label_top", { pile: pileName(c), n: pile.length, card: LC.cardLabel(top) }) : t("pile.label_empty", { pile: pileName(c) });
  }
  // a move in words, in the past ("played green 10 and drew from the draw pile") for the
  // hint line, or as the log says it ("Ana plays green 10 and draws from the deck")
  function words(kind, who, m) {
    const card = LC.cardLabel(m.slice(1, -1));
    const src = m.slice(-1);
    const key = `${kind}.${m[0] === "+" ? "play" : "discard"}_${src === "." ? "deck" : "pile"}`;
    return t(key, { name: who === null ? "" : nameOf(who), card, pile: src === "." ? "" : pileName(src) });
  }
  function describe(who, m) {
    const you = S.seat !== null && who === S.seat;
    return words(you ? "past.you" : "past.other", you ? null : who, m);
  }
  function sentence(who, m) {
    const you = S.seat !== null && who === S.seat;
    return words(you ? "log.you" : "log.other", you ? null : who, m);
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
    $("my-name").textContent = (S.seat === null ? nameOf(0) : t("you")) + (S.seat === null ? tag(p[0]) : "");
    $("opp-name").textContent = nameOf(opp()) + tag(p[opp()]);
    if (S.seat === null) LC.markBot($("my-name"), p[0]);
    LC.markBot($("opp-name"), p[opp()]);
    $("opp-name").title = t(p[opp()].kind === "bot" ? "presence.computer" : p[opp()].connected ? "presence.online" : "presence.offline");
  }

  // keyboard play: a redraw replaces the hand, the buttons and the piles, so the focus they
  // held goes to the page; it is put where the next step is (Play, then the draw pile, then
  // the hand), not back at the top of the page
  const TABLE_PARTS = ["hand", "actions", "piles", "drawpile", "my-exps"];
  function focusOnTable() {
    const a = document.activeElement;
    return !!a && a !== document.body && TABLE_PARTS.some((id) => $(id) && $(id).contains(a));
  }
  function refocus() {
    const a = document.activeElement;
    // kept where it is, unless it is on the draw pile after the move (back to the hand then)
    if (a && a !== document.body && document.contains(a) && !(a === $("drawpile") && !sel)) return;
    const target = sel && action ? $("drawpile")
      : sel ? $("actions").querySelector("button")
      : $("hand").children[selIdx] || $("hand").querySelector(".card");
    if (target) target.focus({ preventScroll: true });
  }
  function render(keepHint = false) {
    const hadFocus = focusOnTable();
    renderTable(keepHint);
    if (hadFocus) refocus();
  }
  function renderTable(keepHint) {
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
    if (S.match.over && S.game.ending === "aborted") {
      text = LC.t("status.aborted");
    } else if (S.match.over) {
      const t = S.match.totals;
      const w = S.match.winner;
      const res = w === null ? LC.t("status.result.draw") : S.seat === null ? LC.t("status.result.won_by", { name: nameOf(w) }) : w === S.seat ? LC.t("status.result.you_won") : LC.t("status.result.you_lost");
      let why = S.match.reason && S.match.reason.startsWith("tie broken") ? LC.t("status.tie_broken") : "";
      if (S.game.ending === "abandoned") why = w === null ? LC.t("status.abandoned_draw") : LC.t("status.abandoned", { name: nameOf(1 - w) });
      text = LC.t("status.match_over", { result: res, mine: t[me()], theirs: t[opp()], why });
    } else if (waitingFriend()) {
      text = LC.t("status.waiting_friend");
    } else if (mine && sending) {
      text = LC.t("status.sending");
    } else if (mine) {
      text = LC.t(action ? "status.your_turn_draw" : "status.your_turn");
    } else if (S.seat === null) {
      text = LC.t("status.spectating_to_move", { name: nameOf(v.to_move) });
    } else {
      text = p[opp()].kind === "bot" ? LC.t("status.thinking", { name: nameOf(opp()) }) : LC.t("status.waiting_for", { name: nameOf(opp()) });
    }
    if (S.seat === null && S.match.over) text = LC.t("status.spectating", { text });
    if (!connected) text = LC.t("status.not_connected");
    $("status-text").textContent = text;
    status.classList.toggle("mine", mine && !sending);  // (not while its move is on its way)
    status.classList.toggle("spectating", S.seat === null);
    document.title = mine ? `● ${t("title.your_turn")} · ${t("brand")}` : S.match.over ? `${t("title.game_over")} · ${t("brand")}` : t("brand");

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
      el.setAttribute("aria-label", pileLabel(c, pile));
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
      cnt.textContent = t("pile.cards", { n: pile.length });
      cnt.setAttribute("aria-label", t("pile.show", { pile: pileName(c), n: pile.length }));
      cnt.addEventListener("click", (ev) => { ev.stopPropagation(); togglePile(el, pile); });
      el.appendChild(cnt);
      if (drawSources.includes(c)) el.classList.add("drawable");
      if (ghost) el.classList.add("disabled");
      if (mine && sel && !action && sel[0] === c) el.classList.add("target");
      el.addEventListener("click", () => onPile(c));
      el.tabIndex = 0;
      // a group (Enter takes or discards), not a button: it holds the count's own button
      el.setAttribute("role", "group");
      el.addEventListener("keydown", (ev) => {
        if (ev.target === el && (ev.key === "Enter" || ev.key === " ")) { ev.preventDefault(); onPile(c); }
      });
      addDrop(el, "-", c);
      piles.appendChild(el);
    });

    renderGoals(v.goals || []);

    // draw pile
    $("deck-n").textContent = v.deck_size;
    $("deck-sr").textContent = `, ${t("pile.cards", { n: v.deck_size })}`;  // its name: "draw pile, 37 cards" (not "37draw pile")
    $("drawpile").classList.toggle("drawable", drawSources.includes("."));

    renderHand();
    renderLog();
    renderMatch();
    renderButtons();
    tickClock();
    renderAbandon();
    renderPlayerMenu();
    renderChatPanel();
    $("turn-alert-panel").classList.toggle("hidden", S.seat === null || S.match.over);
    document.dispatchEvent(new CustomEvent("lc:state", { detail: S })); // (the tutorial listens)
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
      const lastText = last && (lastWho !== me() || S.seat === null) ? `${describe(lastWho, last)} ` : "";
      if (mine && !sel) hint(lastText + t("hint.tap_card"));
      else if (mine && sel && !action) hint(t("hint.play_or_discard", { card: LC.cardLabel(sel) }));
      else if (mine && action) hint(t("hint.draw"));
      else if (S.seat !== null && !S.match.over && last && lastWho === me()) hint(describe(lastWho, last));
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
      const holder = g.claimed_by === null ? "" : g.claimed_by === me() && S.seat !== null ? t("you_lower") : nameOf(g.claimed_by);
      if (g.claimed_by !== null) el.classList.add(g.claimed_by === me() ? "mine" : "theirs");
      el.title = `${LC.goalText(g)} (${g.condition})`;
      el.innerHTML =
        `<span class="goal-kind">${t(g.kind === "race" ? "goal.race" : "goal.end")}</span>` +
        `<b class="goal-name">${LC.esc(LC.goalName(g))}</b>` +
        `<span class="goal-text">${LC.esc(LC.goalText(g))}</span>` +
        `<span class="goal-holder">${holder ? `+10 ${LC.esc(holder)}` : LC.esc(t("goal.points"))}</span>`;
      el.setAttribute("aria-label", t(g.kind === "race" ? "goal.label_race" : "goal.label_end", { name: LC.goalName(g), text: LC.goalText(g) }) +
        (holder ? t("goal.held_by", { name: holder }) : t("goal.nobody_holds")));
      if (seen && g.claimed_by !== null && seen[key] === null && !reducedMotion()) el.classList.add("claimed-now");
      box.appendChild(el);
    }
    LC.scrollCue(box);
  }

  // an expedition's screen-reader name: whose, its colour, its cards and its score
  function expLabel(theirs, c, cards, score) {
    const key = theirs ? "exp.label_theirs" : "exp.label_yours";
    if (!cards.length) return t(`${key}_empty`, { exp: pileName(c) });
    return t(key, { exp: pileName(c), cards: cards.map((x) => LC.rankText(x)).join(" "), n: score }); // "1 point", "-20 points"
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
      col.setAttribute("role", "group");
      col.setAttribute("aria-label", expLabel(theirs, c, v.expeditions[player][i], v.expedition_scores[player][i]));
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
      const play = button(t("btn.play_card", { card: LC.cardLabel(sel) }), "primary", () => choose("+"));
      play.dataset.act = "play";
      if (!legalFor("+", sel).length) play.classList.remove("primary");
      acts.appendChild(play);
      const disc = button(t("btn.discard"), "", () => choose("-"));
      disc.dataset.act = "discard";
      acts.appendChild(disc);
      acts.appendChild(button(t("btn.cancel"), "small", cancel));
    } else {
      acts.appendChild(button(t("btn.back"), "small", () => { action = null; render(); }));
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

  function link(label, cls, href) {
    const a = document.createElement("a");
    a.className = `btn ${cls}`.trim();
    a.href = href;
    a.textContent = label;
    return a;
  }

  // a finished game's replay and analysis, as links styled `btn ${cls}`
  const afterGame = (cls) => [
    link(t("btn.replay"), cls, `/replay/${gameId}`),
    link(t("title.analysis"), cls, `/analysis/${gameId}`),
  ];

  function togglePile(el, pile) {
    const open = el.querySelector(".pile-list");
    if (open) { open.remove(); return; }
    const list = document.createElement("div");
    list.className = "pile-list";
    list.setAttribute("aria-label", t("pile.whole"));
    if (!pile.length) list.innerHTML = `<span class="muted" style="font-size:.7rem;color:#cfe0dc">${LC.esc(t("pile.empty"))}</span>`;
    for (const c of pile) list.appendChild(LC.chipEl(c));
    el.appendChild(list);
  }

  function renderLog() {
    const log = $("log");
    const v = S.view;
    log.innerHTML = "";
    const rows = [];
    log.classList.toggle("with-notation", showNotation);
    // the whole match: every finished round (its moves come with its summary), then this one,
    // each under its header when the match has more than one round
    const moves = (history, starter) => history.forEach((m, i) => {
      const who = (starter + i) % 2;
      const mine = who === me() && S.seat !== null;
      rows.push(`<span class="n">${i + 1}.</span><span class="say${mine ? " me" : ""}">${LC.esc(sentence(who, m))}</span><span class="nota" title="${LC.esc(t("game.notation"))}">${LC.esc(m)}</span>`);
    });
    const headers = S.game.num_rounds > 1;
    const head = (i, scores) => {
      // the finished round's score beside each name (not a dash between two numbers)
      const mine = S.seat === null ? nameOf(me()) : LC.t("you");
      const score = scores ? ` <span class="muted">${LC.esc(mine)} ${LC.num(scores[me()])} · ${LC.esc(nameOf(opp()))} ${LC.num(scores[opp()])}</span>` : "";
      rows.push(`<span class="round-head" data-round="${i}">${LC.esc(t("log.round", { n: i + 1 }))}${score}</span>`);
    };
    const before = [...S.match.rounds].filter((r) => r.index < S.round).sort((a, b) => a.index - b.index);
    for (const r of before) {
      if (headers) head(r.index, r.scores);
      moves(r.history || [], r.starter);
    }
    const current = S.match.rounds.find((r) => r.index === S.round); // this round, if over
    if (headers && (v.history.length || before.length)) head(S.round, current ? current.scores : null);
    moves(v.history, S.starter);
    log.innerHTML = rows.join("") || `<span></span><span class="muted">${LC.esc(t("log.empty"))}</span><span></span>`;
    log.scrollTop = log.scrollHeight;
  }

  function renderMatch() {
    const t = $("match-table");
    const p = S.game.players;
    const n = S.game.num_rounds;
    let rows = `<tr><th>${LC.t("sheet.round")}</th><th>${LC.esc(S.seat === null ? nameOf(0) : LC.t("you"))}</th><th>${LC.esc(nameOf(opp()))}</th></tr>`;
    for (let i = 0; i < n; i++) {
      const done = S.match.rounds.find((r) => r.index === i);
      let a = "", b = "";
      if (done) { a = done.scores[me()]; b = done.scores[opp()]; }
      else if (i === S.round && !S.match.over) { a = `<i>${S.view.scores[me()]}</i>`; b = `<i>${S.view.scores[opp()]}</i>`; }
      rows += `<tr><td>${i + 1}${i === S.round && !S.match.over ? " ◂" : ""}</td><td>${a}</td><td>${b}</td></tr>`;
    }
    rows += `<tr><th>${LC.t("sheet.total_cap")}</th><th>${S.match.totals[me()]}</th><th>${S.match.totals[opp()]}</th></tr>`;
    t.innerHTML = rows;
  }

  function renderButtons() {
    const box = $("game-buttons");
    box.innerHTML = "";
    if (S.seat !== null && !S.match.over) {
      box.appendChild(button(t("btn.resign"), "small danger", () => {
        if (confirm(t("confirm.resign"))) send({ type: "resign" });
      }));
      if (S.game.abortable) { // until both have moved: no result, no rating change
        const ab = button(t("btn.abort"), "small danger", () => {
          if (confirm(t("confirm.abort"))) send({ type: "abort" });
        });
        ab.id = "abort";
        box.appendChild(ab);
      }
      if (S.game.players[opp()].kind === "bot" && !S.game.rated) { // no hints in a rated game
        const hb = button(t("btn.hint"), "small", askHint);
        hb.id = "hint-button";
        hb.title = t("btn.hint_title");
        box.appendChild(hb);
      }
    }
    if (S.match.rounds.length && !S.match.over) {
      const rb = button(t("btn.last_round"), "small", () => showModal(true));
      rb.id = "last-round";
      rb.title = t("btn.last_round_title");
      box.appendChild(rb);
    }
    const tag = (cls, id, text) => {
      const el = document.createElement("span");
      el.className = cls;
      el.id = id;
      el.textContent = text;
      box.appendChild(el);
    };
    if (S.game.rated) tag("pill", "rated", t("lobby.rated"));
    if (S.game.assisted) tag("muted small", "assisted", t("game.assisted", { n: S.game.hints }));
    if (S.match.over) {
      if (S.seat !== null) box.appendChild(button(t(rematchOffer || S.game.rematch_id ? "btn.join_rematch" : "btn.rematch"), "small primary", rematch));
      box.append(...afterGame("small"), link(t("btn.download_record"), "small", `/api/games/${gameId}/record`));
      const b = document.createElement("button");
      b.className = "btn small";
      b.textContent = t("btn.scores");
      b.addEventListener("click", () => showModal(true));
      box.appendChild(b);
    }
    box.appendChild(link(t("btn.home"), "small", "/"));
  }

  // the final board of a finished round: both players' expeditions and the discard piles
  function finalBoard(r) {
    const p = S.game.players;
    const colors = S.game.colors;
    const you = S.seat === null ? nameOf(0) : t("you");
    const side = (player, label) => {
      const theirs = player === opp();  // the opponent's columns run as on the table: toward the piles
      const cols = colors.map((c, i) => {
        const cards = r.breakdown[player][i].cards;
        return `<div class="exp${theirs ? " theirs" : ""}" role="group" aria-label="${LC.esc(t("exp.label_final", { name: label, exp: pileName(c), n: cards.length }))}">${cards.map((x) => LC.chipEl(x).outerHTML).join("")}</div>`;
      }).join("");
      return `<div class="side-label"><b>${LC.esc(label)}</b></div><div class="cols">${cols}</div>`;
    };
    const piles = colors.map((c, i) => {
      const pile = (r.discard_piles || [])[i] || [];
      const top = pile.length ? LC.cardEl(pile[pile.length - 1]).outerHTML : `<div class="slot">${LC.symbol(c)}</div>`;
      return `<div class="pile" role="group" aria-label="${LC.esc(pileLabel(c, pile))}">${top}<span class="count" aria-hidden="true">${pile.length}</span></div>`;
    }).join("");
    return `<h3>${LC.esc(t("review.final_board", { n: r.index + 1 }))}</h3><div class="table review">${side(opp(), nameOf(opp()))}<div class="cols piles">${piles}</div>${side(me(), you)}</div>`;
  }

  // (stay: "prev" or "next", the round button just pressed: the focus stays on the round
  // buttons, on that one while it can be pressed again)
  function showModal(force, index, stay) {
    if (!S || !S.match.rounds.length) return;
    const k = index === undefined ? S.match.rounds.length - 1 : index;
    const last = S.match.rounds[k];
    const latest = k === S.match.rounds.length - 1;
    const p = S.game.players;
    const colors = S.game.colors;
    const over = S.match.over && latest;
    $("modal-title").textContent = over ? t("modal.match_over") : t("modal.round_over", { n: last.index + 1, total: S.game.num_rounds });
    const you = S.seat === null ? nameOf(0) : t("you");
    let res;
    if (over) {
      const w = S.match.winner;
      res = w === null ? t("modal.draw") : S.seat === null ? t("modal.wins", { name: nameOf(w) }) : w === S.seat ? t("modal.you_win") : t("modal.wins_match", { name: nameOf(opp()) });
    } else {
      res = `${you} ${LC.num(last.scores[me()])} : ${LC.num(last.scores[opp()])} ${nameOf(opp())}`;
    }
    if (last.termination === "forfeit") res += ` (${LC.reasonText(last.reason) || t("modal.forfeit")})`;
    else if (over && S.match.reason && S.match.reason.startsWith("tie broken")) res += ` (${t("modal.tie_broken")})`;
    $("modal-result").textContent = res;
    $("modal-board").innerHTML = finalBoard(last);
    if (last.goals && last.goals.length) {
      const who = (g) => g.claimed_by === null ? t("goal.nobody") : g.claimed_by === me() && S.seat !== null ? t("you_lower") : nameOf(g.claimed_by);
      $("modal-board").innerHTML += `<ul class="goal-results" aria-label="${LC.esc(t("game.goals"))}">` +
        last.goals.map((g) => `<li><b>${LC.esc(LC.goalName(g))}</b> (${LC.esc(t(g.kind === "race" ? "goal.race" : "goal.end"))}): ${LC.esc(who(g))}${g.claimed_by === null ? "" : " +10"}</li>`).join("") +
        `</ul>`;
    }
    // in a goals game the sheet's total leaves the goals out, the match row has them: say so
    const goalLine = (player) => {
      if (!(last.goals && last.goals.length)) return "";
      const pts = 10 * last.goals.filter((g) => g.claimed_by === player).length;
      const sheet = last.breakdown[player].reduce((a, e) => a + e.score, 0);
      return `<p class="muted small sheet-goals">${LC.esc(t("modal.sheet_goals", { n: pts, total: sheet + pts }))}</p>`;
    };
    $("modal-sheets").innerHTML =
      `<div><h3>${LC.esc(t("modal.sheet_of", { name: you, n: last.index + 1 }))}</h3>${LC.sheetTable(colors, last.breakdown[me()])}${goalLine(me())}</div>` +
      `<div><h3>${LC.esc(t("modal.sheet_of", { name: nameOf(opp()), n: last.index + 1 }))}</h3>${LC.sheetTable(colors, last.breakdown[opp()])}${goalLine(opp())}</div>`;
    let mt = `<table class="sheet"><thead><tr><th>${t("sheet.round_lower")}</th><th>${LC.esc(you)}</th><th>${LC.esc(nameOf(opp()))}</th></tr></thead><tbody>`;
    for (const r of S.match.rounds) mt += `<tr><td>${r.index + 1}</td><td>${r.scores[me()]}</td><td>${r.scores[opp()]}</td></tr>`;
    mt += `<tr class="total"><td>${t("sheet.match")}</td><td>${S.match.totals[me()]}</td><td>${S.match.totals[opp()]}</td></tr></tbody></table>`;
    $("modal-match").innerHTML = mt;
    const btns = $("modal-buttons");
    btns.innerHTML = "";
    if (S.match.rounds.length > 1) {
      const prev = button(`◂ ${t("sheet.round")}`, "small", () => showModal(true, k - 1, "prev"));
      prev.disabled = k === 0;
      prev.setAttribute("aria-label", t("modal.prev_round"));
      prev.dataset.nav = "prev";
      btns.appendChild(prev);
      const next = button(`${t("sheet.round")} ▸`, "small", () => showModal(true, k + 1, "next"));
      next.disabled = latest;
      next.setAttribute("aria-label", t("modal.next_round"));
      next.dataset.nav = "next";
      btns.appendChild(next);
    }
    if (!over) {
      btns.appendChild(button(t(S.match.over || !latest ? "btn.close" : "btn.next_round"), "primary", hideModal));
    } else {
      if (S.seat !== null) btns.appendChild(button(t(rematchOffer || S.game.rematch_id ? "btn.join_rematch" : "btn.rematch"), "primary", rematch));
      btns.append(...afterGame(""));
      btns.appendChild(button(t("btn.close"), "", hideModal));
    }
    $("modal").classList.remove("hidden");
    // Enter goes on (Next round, Rematch; a spectator's Close), never back to an old round
    const target = (stay && (btns.querySelector(`[data-nav="${stay}"]:not(:disabled)`) || btns.querySelector("[data-nav]:not(:disabled)")))
      || btns.querySelector("button.primary:not(:disabled)")
      || [...btns.querySelectorAll("button:not(:disabled)")].pop();
    if (target) target.focus();
    void force;
  }
  function hideModal() { $("modal").classList.add("hidden"); }

  async function askHint() {
    const b = $("hint-button");
    if (b) b.disabled = true;
    try {
      const h = await LC.api("POST", `/api/games/${gameId}/hint`, { token: token || "" });
      const best = h.moves[0];
      engineHint = { round: h.round, ply: h.ply };
      $("engine-hint").textContent = t("hint.engine", { move: LC.moveText(h.best, showNotation), margin: LC.num1(best.margin, true), pct: new Intl.NumberFormat(LC.LANG, { style: "percent" }).format(best.win) });
    } catch (e) {
      hint(e.message, true);
    } finally {
      if (b) b.disabled = false;
    }
  }

  async function rematch() {
    try {
      const g = await LC.api("POST", `/api/games/${gameId}/rematch`, { token: token || "" });
      LC.remember({ id: g.id, token: g.token, seat: g.seat });
      location.href = g.url;
    } catch (e) {
      LC.toast(e.message, "error");
    }
  }

  // -- input ----------------------------------------------------------------------------------
  function onHandCard(card, idx) {
    if (!S || S.seat === null) return;
    if (!connected) { hint(t("hint.not_connected"), true); return; }
    if (!myTurn()) {
      hint(t(S.match.over ? "hint.game_over" : waitingFriend() ? "status.waiting_friend" : "hint.not_your_turn"), true);
      return;
    }
    if (sending) return;
    if (selIdx === idx && !action) { cancel(); return; }
    sel = card;
    selIdx = idx;
    action = null;
    render();
  }
  // the core's reasons a card cannot be played (rules.py), said in the page's language
  function whyIllegal(text) {
    if (!text) return "";
    let m = /^a (\w+) wager cannot follow the number card ([a-z])(\d+)$/.exec(text);
    if (m) return t("illegal.wager_late", { exp: pileName(m[2]), card: LC.cardLabel(m[2] + m[3]) });
    m = /^([a-z])(\d+) is (equal to|lower than) the last \w+ card ([a-z])(\d+)$/.exec(text);
    if (m) return t(m[3] === "equal to" ? "illegal.equal" : "illegal.lower", { card: LC.cardLabel(m[1] + m[2]), top: LC.cardLabel(m[4] + m[5]) });
    return text;
  }
  function cancel() { sel = null; selIdx = -1; action = null; render(); }

  function choose(act) {
    if (!sel || !myTurn() || sending) return;
    const draws = legalFor(act, sel);
    if (!draws.length) {
      const card = LC.cardLabel(sel);
      const why = act === "+" ? whyIllegal(S.view.illegal[sel]) || t("hint.cannot_play_now", { card }) : t("hint.cannot_discard_now", { card });
      hint(t("hint.cannot_play", { card, why }), true);
      return;
    }
    action = act;
    render();
  }

  function onExpedition(c) {
    if (!myTurn() || !sel || sending) return;
    if (action) return;
    if (sel[0] !== c) {
      hint(t("hint.belongs", { card: LC.cardLabel(sel), exp: pileName(sel[0]) }), true);
      return;
    }
    choose("+");
  }

  function onPile(c) {
    if (!myTurn() || sending || !sel) return;
    if (!action) {
      if (sel[0] !== c) { hint(t("hint.discard_onto", { card: LC.cardLabel(sel), pile: pileName(sel[0]) }), true); return; }
      choose("-");
      return;
    }
    if (action === "-" && sel[0] === c) {
      hint(t("hint.take_back"), true);
      return;
    }
    const draws = legalFor(action, sel);
    if (!draws.includes(c)) { hint(t("hint.pile_empty", { pile: pileName(c) }), true); return; }
    submit(c);
  }

  $("drawpile").addEventListener("click", () => {
    if (!myTurn() || !sel || !action || sending) return;
    submit(".");
  });
  $("drawpile").addEventListener("keydown", (ev) => { if (ev.key === "Enter") $("drawpile").click(); });

  function submit(src) {
    const move = `${action}${sel}${src}`;
    if (!S.view.legal.includes(move)) { hint(t("hint.not_legal", { move }), true); return; }
    msgId += 1;
    if (!send({ type: "move", move, round: S.round, ply: S.view.ply, id: msgId })) {
      hint(t("status.not_connected"), true);
      return;
    }
    sending = true;
    render(true);
    hint(t("hint.sending"));
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
        hint(act === "+" ? t("hint.belongs", { card: LC.cardLabel(card), exp: pileName(card[0]) }) : t("hint.discard_onto", { card: LC.cardLabel(card), pile: pileName(card[0]) }), true);
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
    try { await navigator.clipboard.writeText($("invite-url").value); LC.toast(t("toast.copied")); }
    catch { $("invite-url").select(); }
  });

  // -- move clock and quick chat ------------------------------------------------------------
  // The server runs the clock (clock_left, in seconds, with each state; with a match clock
  // also clock_times, both players' time); this only counts down, to the deadline the last
  // state set: a redraw (a card chosen, Cancel, Back) shows that deadline, never resets it.
  let clockDue = null;
  let clockTimes = null;
  let clockTimer = null;
  function setClock() {
    const left = S.game.clock_left;
    clockDue = left === null || left === undefined ? null : performance.now() + left * 1000;
    clockTimes = S.game.clock_times || null;
    clearInterval(clockTimer);
    clockTimer = clockDue === null ? null : setInterval(tickClock, 250);
  }
  // a correspondence clock (days per move) counts days and hours, under a day hours and minutes
  const clockText = LC.clockText;
  function tickClock() {
    const el = $("clock");
    if (!S || (clockDue === null && !clockTimes)) { el.classList.add("hidden"); return; }
    const running = clockDue === null ? null : Math.max(0, Math.ceil((clockDue - performance.now()) / 1000));
    if (clockTimes) { // the match clock: both players' time, the one to move counting down
      el.textContent = [0, 1].map((i) => {
        const s = running !== null && i === S.view.to_move ? running : Math.ceil(clockTimes[i]);
        return t("game.clock_player", { name: nameOf(i), time: clockText(s) });
      }).join(" · ");
    } else {
      el.textContent = t("game.clock_left", { name: nameOf(S.view.to_move), time: clockText(running) });
    }
    el.classList.remove("hidden");
    el.classList.toggle("low", running !== null && running <= 10);
  }
  // -- a player left: the server measures how long (players[].away, seconds, with each
  // state) and checks every claim (claim_after: the seconds of absence it needs); this only
  // counts down, then offers the claims
  let claimDue = null;
  let claimTimer = null;
  function renderAbandon() {
    const o = S.seat === null || S.match.over ? null : S.game.players[opp()];
    const after = S.game.claim_after;
    const away = o && after !== null && after !== undefined ? o.away : null;
    const due = away === null || away === undefined ? null : performance.now() + Math.max(0, after - away) * 1000;
    clearInterval(claimTimer);
    if ((claimDue === null) !== (due === null)) $("abandon-buttons").innerHTML = "";
    claimDue = due;
    tickAbandon();
    if (claimDue !== null) claimTimer = setInterval(tickAbandon, 250);
  }
  function tickAbandon() {
    const panel = $("abandon-panel");
    panel.classList.toggle("hidden", claimDue === null);
    if (claimDue === null) return;
    const left = Math.max(0, Math.ceil((claimDue - performance.now()) / 1000));
    const said = t(left ? "abandon.left" : "abandon.claim_now", { name: nameOf(opp()) });
    if ($("abandon-text").textContent !== said) $("abandon-text").textContent = said;
    $("abandon-time").textContent = left ? t("abandon.claim_in", { time: `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}` }) : "";
    const box = $("abandon-buttons");
    if (!left && !box.childElementCount) {
      clearInterval(claimTimer);
      const win = button(t("btn.claim_win"), "small primary", () => send({ type: "claim", claim: "win" }));
      win.id = "claim-win";
      const draw = button(t("btn.claim_draw"), "small", () => send({ type: "claim", claim: "draw" }));
      draw.id = "claim-draw";
      box.append(win, draw);
    }
  }
  // the opponent, when both seats are signed-in players: block or report them
  function renderPlayerMenu() {
    const p = S.game.players;
    const shown = S.seat !== null && p[me()].account && p[opp()].account;
    $("player-menu").classList.toggle("hidden", !shown);
    if (shown) $("player-menu-label").textContent = t("players.menu", { name: p[opp()].name });
  }
  $("block-opp").addEventListener("click", () => { if (S) LCPlayers.block(S.game.players[opp()].name); });
  $("report-opp").addEventListener("click", () => { if (S) LCPlayers.report(S.game.players[opp()].name, gameId); });
  // the phrase ids, as the server has them (schemas.ChatPhrase, served with the page)
  const PHRASES = ($("game").dataset.chatPhrases || "").split(" ").filter(Boolean);
  // emotes: the same picture in every language, named in the reader's (chat.emote_*)
  const EMOTES = { emote_smile: "🙂", emote_laugh: "😄", emote_surprised: "😮", emote_thumbs_up: "👍", emote_sad: "😢" };
  const phraseKey = (id) => `chat.${id}`; // every phrase id has a key in each catalogue
  const phraseText = (id) => EMOTES[id] || t(phraseKey(id));
  let chatMuted = localStorage.getItem("lostcities.chat_muted") === "1";
  function renderChatPanel() {
    // friend games only (both seats people); spectators read it but cannot write
    const friends = S.game.players.every((p) => p.kind === "human");
    $("chat-panel").classList.toggle("hidden", !friends);
    const box = $("chat-buttons");
    box.classList.toggle("hidden", S.seat === null || chatMuted);
    if (!box.childElementCount) {
      for (const id of PHRASES) {
        const b = document.createElement("button");
        b.type = "button";
        b.className = id in EMOTES ? "btn small emote" : "btn small";
        b.dataset.phrase = id;
        b.textContent = phraseText(id);
        if (id in EMOTES) { b.setAttribute("aria-label", t(phraseKey(id))); b.title = t(phraseKey(id)); }
        b.addEventListener("click", () => send({ type: "chat", phrase: id }));
        box.appendChild(b);
      }
    }
  }
  let chatSaid = null; // the chat_log not yet shown (it may come before the first state)
  function replayChat() {
    $("chat-log").textContent = "";
    for (const c of chatSaid || []) showChat(c.seat, c.phrase);
    chatSaid = null;
  }
  function showChat(seat, phrase) {
    if (chatMuted || !S || !(PHRASES.includes(phrase) || phrase in EMOTES)) return;
    const line = document.createElement("div");
    line.textContent = t("game.chat_said", { name: nameOf(seat), phrase: phraseText(phrase) });
    const log = $("chat-log");
    log.appendChild(line);
    while (log.childElementCount > 20) log.firstElementChild.remove();
    log.scrollTop = log.scrollHeight;
  }
  $("mute-chat").checked = chatMuted;
  $("mute-chat").addEventListener("change", () => {
    chatMuted = $("mute-chat").checked;
    localStorage.setItem("lostcities.chat_muted", chatMuted ? "1" : "0");
    if (chatMuted) $("chat-log").textContent = "";
    if (S) renderChatPanel();
  });

  // -- turn alert (opt-in): a sound and a notification when it becomes your turn while the
  // tab is hidden; off by default, remembered, permission asked only when turned on
  let alertOn = localStorage.getItem("lostcities.turn_alert") === "1";
  let alertedTurn = null; // the round and ply of the last turn that was yours (alerted once)
  let audio = null;
  function audioContext() {
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!audio && Ctx) audio = new Ctx();
    if (audio && audio.state === "suspended") audio.resume().catch(() => {});
    return audio;
  }
  function beep() { // two short notes from an oscillator: no audio file
    const ctx = audioContext();
    if (!ctx) return;
    const t0 = ctx.currentTime;
    [660, 880].forEach((freq, i) => {
      const osc = ctx.createOscillator();
      const gain = ctx.createGain();
      osc.type = "sine";
      osc.frequency.value = freq;
      const at = t0 + i * 0.16;
      gain.gain.setValueAtTime(0.0001, at);
      gain.gain.exponentialRampToValueAtTime(0.2, at + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, at + 0.15);
      osc.connect(gain).connect(ctx.destination);
      osc.start(at);
      osc.stop(at + 0.16);
    });
  }
  function alertTurn(changed) {
    if (!myTurn()) return;
    const key = `${S.round}:${S.view.ply}`;
    if (key === alertedTurn) return; // a re-sent state of the same turn
    alertedTurn = key;
    if (!changed || !alertOn || document.visibilityState !== "hidden") return;
    try { beep(); } catch { /* no sound here */ }
    if ("Notification" in window && Notification.permission === "granted") {
      try {
        const n = new Notification(t("notify.title"), { body: t("notify.body", { name: nameOf(opp()) }), tag: "lostcities-turn" });
        n.onclick = () => { window.focus(); n.close(); };
      } catch { /* notifications unavailable (e.g. some mobile browsers) */ }
    }
  }
  $("turn-alert").checked = alertOn;
  $("turn-alert").addEventListener("change", async () => {
    alertOn = $("turn-alert").checked;
    localStorage.setItem("lostcities.turn_alert", alertOn ? "1" : "0");
    if (!alertOn) return;
    audioContext(); // created in the click, so it may play later
    if ("Notification" in window && Notification.permission === "default") {
      try { await Notification.requestPermission(); } catch { /* ignored */ }
    }
    if (!("Notification" in window) || Notification.permission !== "granted") LC.toast(t("notify.blocked"));
  });

  connect();
})();
