// The account pages: /signup, /login and /account (password or passkey; docs/web.md).
"use strict";
(() => {
  const t = LC.t;
  const page = document.body.dataset.page;
  const errorBox = document.getElementById("form-error");

  function showError(e) {
    // (a SecurityError from the browser's passkey call: the site's name is not one WebAuthn takes)
    errorBox.textContent = !e ? "" : e.name === "SecurityError" ? hostError().message : e.message;
  }

  // -- passkeys (WebAuthn): the server's JSON options <-> the browser's ArrayBuffers ----------
  const b64u = {
    enc(buf) {
      const bytes = new Uint8Array(buf);
      let s = "";
      for (const b of bytes) s += String.fromCharCode(b);
      return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
    },
    dec(str) {
      const s = atob(str.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((str.length + 3) % 4));
      return Uint8Array.from(s, (c) => c.charCodeAt(0)).buffer;
    },
  };
  const passkeys = () => !!(window.PublicKeyCredential && navigator.credentials);
  const creationOptions = (o) => ({
    ...o,
    challenge: b64u.dec(o.challenge),
    user: { ...o.user, id: b64u.dec(o.user.id) },
    excludeCredentials: (o.excludeCredentials || []).map((c) => ({ ...c, id: b64u.dec(c.id) })),
  });
  const requestOptions = (o) => ({
    ...o,
    challenge: b64u.dec(o.challenge),
    allowCredentials: (o.allowCredentials || []).map((c) => ({ ...c, id: b64u.dec(c.id) })),
  });
  function credentialJSON(c) {
    const r = c.response;
    const response = { clientDataJSON: b64u.enc(r.clientDataJSON) };
    if (r.attestationObject) {
      response.attestationObject = b64u.enc(r.attestationObject);
      if (r.getTransports) response.transports = r.getTransports();
    } else {
      response.authenticatorData = b64u.enc(r.authenticatorData);
      response.signature = b64u.enc(r.signature);
      if (r.userHandle) response.userHandle = b64u.enc(r.userHandle);
    }
    return {
      id: c.id,
      rawId: b64u.enc(c.rawId),
      type: c.type,
      response,
      clientExtensionResults: c.getClientExtensionResults ? c.getClientExtensionResults() : {},
      authenticatorAttachment: c.authenticatorAttachment || undefined,
    };
  }
  // a new passkey's name: "Passkey N" in the page's language, and the platform where the
  // browser tells it (Chromium's userAgentData), e.g. "Passkey 2 (Android)"
  function defaultPasskeyName(n) {
    const base = t("account.passkey_n", { n });
    const platform = ((navigator.userAgentData && navigator.userAgentData.platform) || "").trim().slice(0, 20);
    return (platform ? `${base} (${platform})` : base).slice(0, 40);
  }
  // WebAuthn refuses an IP address as the site's name (Chromium: "This is an invalid
  // domain"): on http://127.0.0.1:8000 a passkey cannot be made or used, so say where it
  // can (the same page on localhost) instead of the browser's words
  const ipHost = () => /^(\d{1,3}\.){3}\d{1,3}$|^\[.*\]$|:/.test(location.hostname);
  function hostError() {
    const url = `${location.protocol}//localhost${location.port ? `:${location.port}` : ""}${location.pathname}`;
    const e = new Error(t("account.passkey_host", { url }));
    e.name = "HostError";
    return e;
  }
  async function makePasskey(username) {
    if (ipHost()) throw hostError();
    const { challenge_id, options } = await LC.api("POST", "/api/accounts/passkeys/options", username === undefined ? {} : { username });
    const cred = await navigator.credentials.create({ publicKey: creationOptions(options) });
    return { challenge_id, credential: credentialJSON(cred) };
  }
  // the guest games this browser remembers: claimed by the new account
  const seats = () => LC.games().filter((g) => g.id && g.token).slice(0, 200).map((g) => ({ id: g.id, token: g.token }));

  function showRecovery(code, claimed) {
    const box = document.getElementById("recovery");
    document.getElementById("recovery-code").textContent = code;
    const c = document.getElementById("claimed");
    if (c && claimed && claimed.length) c.textContent = t("account.claimed", { n: claimed.length });
    for (const f of document.querySelectorAll("form, #to-login, #forgot")) f.classList.add("hidden");
    box.classList.remove("hidden");
    box.focus();
  }

  function busy(form, on) {
    for (const b of form.querySelectorAll("button")) b.disabled = on;
  }
  // run `work` with the error line cleared and `form`'s buttons off until it ends; what it
  // throws goes to `failed` (default: the error line)
  async function guarded(form, work, failed = showError) {
    showError(null);
    busy(form, true);
    try {
      await work();
    } catch (e) {
      failed(e);
    } finally {
      busy(form, false);
    }
  }
  // a passkey prompt the person dismissed is no error
  const passkeyFailed = (e) => showError(e.name === "NotAllowedError" ? null : e);
  // `form`'s submit, kept on this page, runs `work` guarded
  function onSubmit(form, work, failed) {
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      guarded(form, work, failed);
    });
  }

  // -- /signup -------------------------------------------------------------------------------
  if (page === "signup") {
    const form = document.getElementById("signup-form");
    const pkButton = document.getElementById("signup-passkey");
    if (!passkeys()) {
      pkButton.disabled = true;
      document.getElementById("passkey-intro").textContent = t("account.passkey_unsupported");
    }
    onSubmit(form, async () => {
      const res = await LC.api("POST", "/api/accounts/signup", {
        username: form.elements.username.value.trim(),
        password: form.elements.password.value,
        games: seats(),
      });
      showRecovery(res.recovery_code, res.claimed);
    });
    pkButton.addEventListener("click", () => guarded(form, async () => {
      const made = await makePasskey(form.elements.username.value.trim());
      const res = await LC.api("POST", "/api/accounts/passkeys/register", { ...made, name: defaultPasskeyName(1), games: seats() });
      showRecovery(res.recovery_code, res.claimed);
    }, passkeyFailed));
  }

  // -- /login --------------------------------------------------------------------------------
  if (page === "login") {
    const form = document.getElementById("login-form");
    const pkButton = document.getElementById("login-passkey");
    const next = () => location.assign("/account");
    if (!passkeys()) pkButton.disabled = true;
    onSubmit(form, async () => {
      await LC.api("POST", "/api/accounts/login", {
        username: form.elements.username.value.trim(),
        password: form.elements.password.value,
      });
      next();
    }, (e) => {
      showError(e);
      form.elements.password.select();
    });
    pkButton.addEventListener("click", () => guarded(form, async () => {
      if (ipHost()) throw hostError();
      const { challenge_id, options } = await LC.api("POST", "/api/accounts/passkeys/login/options", {});
      const cred = await navigator.credentials.get({ publicKey: requestOptions(options) });
      await LC.api("POST", "/api/accounts/passkeys/login", { challenge_id, credential: credentialJSON(cred) });
      next();
    }, passkeyFailed));
    const rec = document.getElementById("recover-form");
    onSubmit(rec, async () => {
      const res = await LC.api("POST", "/api/accounts/recover", {
        username: rec.elements.username.value.trim(),
        recovery_code: rec.elements.recovery_code.value,
        new_password: rec.elements.new_password.value,
      });
      showRecovery(res.recovery_code, []);
    });
  }

  // -- /account ------------------------------------------------------------------------------
  if (page === "account") {
    const status = document.getElementById("account-status");
    const body = document.getElementById("account-body");
    const date = (iso) => new Date(iso).toLocaleDateString(LC.LANG);

    function item(text, label, onClick) {
      const li = document.createElement("li");
      const span = document.createElement("span");
      span.textContent = text;
      const b = document.createElement("button");
      b.type = "button";
      b.className = "btn small";
      b.textContent = label;
      b.setAttribute("aria-label", `${label}: ${text}`);
      b.addEventListener("click", onClick);
      li.append(span, " ", b);
      return li;
    }

    const keyUrl = (k) => `/api/accounts/passkeys/${encodeURIComponent(k.id)}`;
    function button(label, aria, onClick) {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "btn small";
      b.textContent = label;
      b.setAttribute("aria-label", aria);
      b.addEventListener("click", onClick);
      return b;
    }
    // one passkey: its name, when it was added and last used; rename (in place), remove
    function passkeyItem(k) {
      const li = document.createElement("li");
      li.dataset.passkey = k.id;
      const name = document.createElement("strong");
      name.textContent = k.name;
      const when = document.createElement("span");
      when.className = "muted small";
      const used = k.last_used ? t("account.passkey_used", { date: date(k.last_used) }) : t("account.passkey_unused");
      when.textContent = `${t("account.passkey_added", { date: date(k.created_at) })} · ${used}`;
      const rename = button(t("account.rename"), `${t("account.rename")}: ${k.name}`, () => renameForm(li, k));
      rename.dataset.rename = "";
      const remove = button(t("account.remove"), `${t("account.remove")}: ${k.name}`, async () => {
        try {
          await LC.api("DELETE", keyUrl(k));
          await load();
          document.getElementById("add-passkey").focus();
        } catch (e) {
          showError(e);
        }
      });
      li.append(name, " ", when, " ", rename, " ", remove);
      return li;
    }
    function renameForm(li, k) {
      const form = document.createElement("form");
      form.className = "row passkey-rename";
      form.noValidate = true;
      const label = document.createElement("label");
      label.className = "field";
      const span = document.createElement("span");
      span.textContent = t("account.rename_label", { name: k.name });
      const input = document.createElement("input");
      input.type = "text";
      input.name = "name";
      input.maxLength = 40;
      input.required = true;
      input.autocomplete = "off";
      input.value = k.name;
      label.append(span, input);
      const save = document.createElement("button");
      save.type = "submit";
      save.className = "btn small primary";
      save.textContent = t("account.save");
      const back = () => {
        li.replaceWith(passkeyItem(k));
        document.querySelector(`li[data-passkey="${CSS.escape(k.id)}"] [data-rename]`).focus();
      };
      const cancel = button(t("account.cancel"), t("account.cancel"), back);
      form.addEventListener("keydown", (ev) => { if (ev.key === "Escape") { ev.preventDefault(); back(); } });
      form.addEventListener("submit", async (ev) => {
        ev.preventDefault();
        showError(null);
        try {
          await LC.api("PATCH", keyUrl(k), { name: input.value.trim() });
          LC.toast(t("account.saved"));
          await load();
          const again = document.querySelector(`li[data-passkey="${CSS.escape(k.id)}"] [data-rename]`);
          if (again) again.focus();
        } catch (e) {
          showError(e);
          input.focus();
        }
      });
      form.append(label, save, cancel);
      li.replaceChildren(form);
      input.focus();
      input.select();
    }

    // the list `id` emptied, saying `none` when `items` is empty
    function emptied(id, items, none) {
      const list = document.getElementById(id);
      list.replaceChildren();
      if (!items.length) {
        const li = document.createElement("li");
        li.className = "muted";
        li.textContent = none;
        list.append(li);
      }
      return list;
    }

    function render(a) {
      if (!a) {
        status.textContent = t("account.signed_out");
        document.getElementById("account-signed-out").classList.remove("hidden");
        body.classList.add("hidden");
        return;
      }
      status.textContent = t("account.signed_in_as", { name: a.username });
      document.getElementById("account-since").textContent = t("account.since", { date: date(a.created_at) });
      document.getElementById("pw-title").textContent = t(a.has_password ? "account.change_password" : "account.set_password");
      document.getElementById("current-field").classList.toggle("hidden", !a.has_password);
      document.getElementById("delete-password-field").classList.toggle("hidden", !a.has_password);
      const keys = emptied("passkeys", a.passkeys, t("account.no_passkeys"));
      for (const k of a.passkeys) keys.append(passkeyItem(k));
      document.getElementById("passkey-name").value = defaultPasskeyName(a.passkeys.length + 1);
      document.getElementById("add-passkey").disabled = !passkeys();
      const blocked = emptied("blocked", a.blocked, t("account.no_blocked"));
      for (const name of a.blocked) {
        blocked.append(item(name, t("account.unblock"), async () => {
          try {
            await LC.api("DELETE", `/api/players/${encodeURIComponent(name)}/block`);
            await load();
          } catch (e) {
            showError(e);
          }
        }));
      }
      body.classList.remove("hidden");
    }

    // -- API tokens (docs/bot-api.md): made (shown once), listed, revoked after a question --
    // a modal question (the browser's own dialog: Escape cancels); true once confirmed
    function ask(title, text, confirmLabel) {
      return new Promise((resolve) => {
        const d = document.createElement("dialog");
        d.className = "lc-dialog";
        d.setAttribute("aria-labelledby", "lc-dialog-title");
        d.innerHTML = `<form method="dialog"><h2 id="lc-dialog-title">${LC.esc(title)}</h2><p>${LC.esc(text)}</p><p class="row lc-dialog-buttons"><button class="btn" type="submit" value="cancel">${LC.esc(t("btn.cancel"))}</button><button class="btn danger" type="submit" value="ok" data-confirm>${LC.esc(confirmLabel)}</button></p></form>`;
        document.body.appendChild(d);
        d.addEventListener("close", () => { const ok = d.returnValue === "ok"; d.remove(); resolve(ok); });
        d.showModal();
        d.querySelector("[data-confirm]").focus();
      });
    }
    function tokenItem(k) {
      const li = document.createElement("li");
      li.dataset.token = String(k.id);
      const name = document.createElement("strong");
      const label = k.description || t("tokens.no_description");
      name.textContent = label;
      const scopes = document.createElement("code");
      scopes.textContent = k.scopes.join(" ");
      const when = document.createElement("span");
      when.className = "muted small";
      const used = k.last_used ? t("tokens.used_on", { date: date(k.last_used) }) : t("tokens.unused");
      when.textContent = `${t("tokens.created_on", { date: date(k.created) })} · ${used}`;
      const revoke = button(t("tokens.revoke"), `${t("tokens.revoke")}: ${label}`, async () => {
        if (!(await ask(t("tokens.revoke_title", { name: label }), t("tokens.revoke_text"), t("tokens.revoke")))) return;
        try {
          await LC.api("DELETE", `/api/account/tokens/${encodeURIComponent(k.id)}`);
          LC.toast(t("tokens.revoked"));
          await loadTokens();
          document.getElementById("token-create").focus();
        } catch (e) {
          showError(e);
        }
      });
      revoke.dataset.revoke = "";
      li.append(name, " ", scopes, " ", when, " ", revoke);
      return li;
    }
    async function loadTokens() {
      const list = document.getElementById("tokens");
      let tokens = [];
      try { tokens = await LC.api("GET", "/api/account/tokens"); } catch (e) { showError(e); return; }
      list.replaceChildren();
      if (!tokens.length) {
        const li = document.createElement("li");
        li.className = "muted";
        li.textContent = t("tokens.none");
        list.append(li);
      }
      for (const k of tokens) list.append(tokenItem(k));
    }
    document.getElementById("token-form").addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const f = ev.target;
      showError(null);
      const scopes = [...f.querySelectorAll("input[name=scope]:checked")].map((x) => x.value);
      if (!scopes.length) { errorBox.textContent = t("tokens.need_scope"); return; }
      busy(f, true);
      try {
        const made = await LC.api("POST", "/api/account/tokens", { description: f.elements.description.value.trim(), scopes });
        const box = document.getElementById("token-made");
        document.getElementById("token-value").value = made.token;
        box.classList.remove("hidden");
        f.elements.description.value = "";
        await loadTokens();
        document.getElementById("token-value").select();
        box.focus();
      } catch (e) {
        showError(e);
      } finally {
        busy(f, false);
      }
    });
    document.getElementById("copy-token").addEventListener("click", async () => {
      const input = document.getElementById("token-value");
      input.select();
      try { await navigator.clipboard.writeText(input.value); } catch { document.execCommand("copy"); }
      LC.toast(t("tokens.copied"));
    });

    // -- become a bot: irreversible (the username typed again), with the bot's description --
    function renderBot(b) {
      document.getElementById("bot-section").classList.remove("hidden");
      const form = document.getElementById("bot-form");
      const refused = document.getElementById("bot-refused");
      document.getElementById("bot-is").classList.toggle("hidden", !b.bot);
      document.getElementById("bot-title").textContent = b.bot ? t("profile.bot_about") : t("becomebot.title");
      document.getElementById("bot-text").classList.toggle("hidden", b.bot);
      refused.classList.toggle("hidden", b.bot || b.may_upgrade);
      refused.textContent = b.bot || b.may_upgrade ? "" : t("becomebot.refused", { n: b.rated_games });
      form.classList.toggle("hidden", !b.bot && !b.may_upgrade);
      document.getElementById("bot-confirm-field").classList.toggle("hidden", b.bot);
      document.getElementById("bot-submit").textContent = b.bot ? t("becomebot.save_about") : t("becomebot.submit");
      document.getElementById("bot-submit").classList.toggle("danger", !b.bot);
      document.getElementById("bot-about").value = b.about || "";
    }
    async function loadBot() {
      try { renderBot(await LC.api("GET", "/api/account/bot")); } catch (e) { showError(e); }
    }
    document.getElementById("bot-form").addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const f = ev.target;
      showError(null);
      busy(f, true);
      try {
        const wasBot = !document.getElementById("bot-is").classList.contains("hidden");
        await LC.api("POST", "/api/account/bot", { confirm: f.elements.confirm.value.trim(), about: f.elements.about.value.trim() });
        f.elements.confirm.value = "";
        LC.toast(wasBot ? t("account.saved") : t("becomebot.done"));
        await loadBot();
      } catch (e) {
        showError(e);
      } finally {
        busy(f, false);
      }
    });

    async function load() {
      try {
        const res = await LC.api("GET", "/api/accounts/me");
        render(res.account);
        if (res.account) await Promise.all([loadTokens(), loadBot()]);
      } catch (e) {
        status.textContent = e.message;
      }
    }

    document.getElementById("password-form").addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const f = ev.target;
      showError(null);
      try {
        await LC.api("POST", "/api/accounts/password", {
          current_password: f.elements.current_password.value || null,
          new_password: f.elements.new_password.value,
        });
        f.reset();
        LC.toast(t("account.saved"));
        await load();
      } catch (e) {
        showError(e);
      }
    });
    document.getElementById("add-passkey").addEventListener("click", async () => {
      showError(null);
      try {
        const made = await makePasskey(undefined);
        const name = document.getElementById("passkey-name").value.trim();
        await LC.api("POST", "/api/accounts/passkeys/register", { ...made, name });
        LC.toast(t("account.saved"));
        await load();
      } catch (e) {
        showError(e.name === "NotAllowedError" ? null : e);
      }
    });
    document.getElementById("claim").addEventListener("click", async () => {
      try {
        const res = await LC.api("POST", "/api/accounts/claim", { games: seats() });
        document.getElementById("claimed").textContent = t("account.claimed", { n: res.claimed.length });
      } catch (e) {
        showError(e);
      }
    });
    document.getElementById("logout").addEventListener("click", async () => {
      try {
        await LC.api("POST", "/api/accounts/logout", {});
        location.assign("/");
      } catch (e) {
        showError(e);
      }
    });
    document.getElementById("delete-form").addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const f = ev.target;
      showError(null);
      try {
        await LC.api("POST", "/api/accounts/delete", {
          username: f.elements.username.value.trim(),
          password: f.elements.password.value || null,
        });
        location.assign("/");
      } catch (e) {
        showError(e);
      }
    });
    load();
  }
})();
