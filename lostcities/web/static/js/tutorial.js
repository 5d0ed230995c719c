// The tutorial: a first round against the gentle (easy) computer, where each rule is
// explained the first time it matters. Turned on by the home page's tutorial button for
// the game it creates; "Skip" ends it. It only reads the states the table shows.
"use strict";
(() => {
  const root = document.getElementById("game");
  const panel = document.getElementById("tutorial");
  if (!root || !panel) return;
  const key = `lostcities.tutorial.${root.dataset.game}`;
  if (localStorage.getItem(key) !== "on") return;
  const t = LC.t;
  const seen = new Set(JSON.parse(localStorage.getItem(`${key}.seen`) || "[]"));
  const text = document.getElementById("tutorial-text");
  const queue = [];
  // at the top of the side column where the layout has one (above the table it would push
  // the draw pile under the sticky hand), above the table otherwise
  const side = root.querySelector("aside.side");
  const home = panel.parentElement;
  const after = panel.nextElementSibling;
  const wide = window.matchMedia("(min-width: 980px)"); // app.css: the two-column layout
  function place() {
    // the last tip goes inside the round-over popup while it is open (it would cover the tip
    // anywhere else), and back to its place once the popup is closed
    const back = document.getElementById("modal");
    const modal = back && back.querySelector(".modal");
    if (panel.dataset.tip === "end" && modal && !back.classList.contains("hidden")) modal.insertBefore(panel, document.getElementById("modal-body"));
    else if (wide.matches && side) side.prepend(panel);
    else home.insertBefore(panel, after);
  }
  place();
  wide.addEventListener("change", place);
  const popup = document.getElementById("modal");
  if (popup) new MutationObserver(place).observe(popup, { attributes: true, attributeFilter: ["class"] });

  function say(id) {
    if (seen.has(id)) return;
    seen.add(id);
    localStorage.setItem(`${key}.seen`, JSON.stringify([...seen]));
    queue.push(id);
    show();
  }
  function show() {
    if (!queue.length) return;
    // added to what is shown until "Got it" (moves come fast: nothing is missed)
    const before = panel.classList.contains("hidden") ? [] : [text.textContent];
    panel.dataset.tip = queue[queue.length - 1];
    text.textContent = before.concat(queue.map((id) => t(`tut.${id}`))).join(" ");
    queue.length = 0;
    panel.classList.remove("hidden");
    place();
    // brought into view: the person may have scrolled down (the hand stays, it is sticky at
    // the bottom)
    panel.scrollIntoView({ block: "nearest" });
  }
  document.getElementById("tutorial-skip").addEventListener("click", () => {
    localStorage.setItem(key, "skipped");
    panel.classList.add("hidden");
  });
  document.getElementById("tutorial-ok").addEventListener("click", () => panel.classList.add("hidden"));

  // which rule matters now, from the state alone (the server is the referee)
  document.addEventListener("lc:state", (ev) => {
    const S = ev.detail;
    if (S.seat === null) return;
    const v = S.view;
    const mine = v.expeditions[S.seat];
    const started = mine.filter((e) => e.length).length;
    const longest = Math.max(...mine.map((e) => e.length));
    say("intro");
    if (v.over) { say("end"); return; }
    if (!v.over && v.to_move === S.seat) {
      if ((v.hand || []).some((c) => c.endsWith("x"))) say("wager");
      if (v.discard_piles.some((p) => p.length)) say("pile");
    }
    if (started >= 1) { say("cost"); say("ascending"); }
    if (longest >= 4) say("bonus");
    if (v.deck_size <= 8) say("last_cards");
  });
})();
