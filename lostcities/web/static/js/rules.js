// Rules page comments: GET /api/comments?page=N, POST /api/comments. Every comment is
// shown with textContent, never as HTML.
"use strict";
(() => {
  const $ = (x) => document.getElementById(x);
  const KINDS = { comment: "comment", mistake: "mistake", "tool request": "tool request" };
  let page = 1;
  let pages = 1;

  const form = $("comment-form");
  form.elements.nickname.value = LC.playerName();
  const count = () => { $("c-count").textContent = `${form.elements.text.value.length} / 2000`; };
  form.elements.text.addEventListener("input", count);

  function item(c) {
    const li = document.createElement("li");
    li.className = "comment";
    li.dataset.id = c.id;
    const head = document.createElement("div");
    head.className = "comment-head";
    const who = document.createElement("b");
    who.className = "comment-nick";
    who.textContent = c.nickname;
    const kind = document.createElement("span");
    kind.className = `pill kind-${c.kind.replace(" ", "-")}`;
    kind.textContent = KINDS[c.kind] || c.kind;
    const when = document.createElement("time");
    when.className = "muted";
    when.dateTime = c.created_at;
    when.textContent = new Date(c.created_at).toLocaleString();
    head.append(who, " ", kind, " ", when);
    const body = document.createElement("p");
    body.className = "comment-text";
    body.textContent = c.text;
    li.append(head, body);
    return li;
  }

  async function load(n) {
    let data;
    try {
      data = await LC.api("GET", `/api/comments?page=${n}`);
    } catch (e) {
      $("c-empty").textContent = `Comments cannot be loaded: ${e.message}`;
      return;
    }
    page = data.page;
    pages = data.pages;
    const list = $("comment-list");
    list.replaceChildren(...data.comments.map(item));
    $("c-empty").textContent = data.total ? "" : "No comments yet. Be the first.";
    $("c-page").textContent = data.total ? `page ${page} of ${pages} · ${data.total} comment${data.total === 1 ? "" : "s"}` : "";
    $("c-newer").disabled = page <= 1;
    $("c-older").disabled = page >= pages;
  }

  $("c-newer").addEventListener("click", () => load(page - 1));
  $("c-older").addEventListener("click", () => load(page + 1));

  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const f = form.elements;
    const body = { nickname: f.nickname.value.trim(), kind: f.kind.value, text: f.text.value.trim() };
    $("c-error").textContent = "";
    if (!body.nickname) { $("c-error").textContent = "Please give a nickname (1 to 40 characters)."; return; }
    if (!body.text) { $("c-error").textContent = "Please write something (1 to 2,000 characters)."; return; }
    const btn = $("c-post");
    btn.disabled = true;
    try {
      const c = await LC.api("POST", "/api/comments", body);
      LC.setPlayerName(body.nickname);
      f.text.value = "";
      count();
      LC.toast(c.duplicate ? "You already posted this comment." : "Thank you! Your comment is posted.");
      await load(1);
    } catch (e) {
      $("c-error").textContent = e.message;
    } finally {
      btn.disabled = false;
    }
  });
  load(1);
})();
