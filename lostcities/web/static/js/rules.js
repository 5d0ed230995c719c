// Rules page comments: GET /api/comments?page=N, POST /api/comments. Every comment is
// shown with textContent, never as HTML.
"use strict";
(() => {
  const $ = (x) => document.getElementById(x);
  const t = LC.t;
  const KINDS = { comment: t("comments.kind.comment"), mistake: t("comments.kind.mistake"), "tool request": t("comments.kind.tool") };
  let page = 1;
  let pages = 1;

  const form = $("comment-form");
  form.elements.nickname.value = LC.playerName();
  const count = () => { $("c-count").textContent = `${LC.num(form.elements.text.value.length)} / ${LC.num(2000)}`; };
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
    when.textContent = new Date(c.created_at).toLocaleString(LC.LANG);
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
      $("c-empty").textContent = t("comments.cannot_load", { message: e.message });
      return;
    }
    page = data.page;
    pages = data.pages;
    const list = $("comment-list");
    list.replaceChildren(...data.comments.map(item));
    $("c-empty").textContent = data.total ? "" : t("comments.none");
    $("c-page").textContent = data.total ? `${t("comments.page", { n: page, total: pages })} · ${t("comments.count", { n: data.total })}` : "";
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
    if (!body.nickname) { $("c-error").textContent = t("comments.need_nickname"); return; }
    if (!body.text) { $("c-error").textContent = t("comments.need_text"); return; }
    const btn = $("c-post");
    btn.disabled = true;
    try {
      const c = await LC.api("POST", "/api/comments", body);
      LC.setPlayerName(body.nickname);
      f.text.value = "";
      count();
      LC.toast(t(c.duplicate ? "comments.duplicate" : "comments.posted"));
      await load(1);
    } catch (e) {
      $("c-error").textContent = e.message;
    } finally {
      btn.disabled = false;
    }
  });
  load(1);
})();
