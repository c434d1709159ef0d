// Gamehub pages: shared helpers (no framework, no build step).
"use strict";

const Hub = (() => {
  let session = null;

  // el("div", {class: "x", onclick: f}, "text", child, [more])
  function el(tag, attrs, ...children) {
    const svg = ["svg", "circle", "line", "rect", "text", "polyline", "path", "g", "title"].includes(tag);
    const node = svg ? document.createElementNS("http://www.w3.org/2000/svg", tag) : document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else if (key === "dataset") Object.assign(node.dataset, value);
      else if (!svg && key in node && key !== "list" && key !== "type" && key !== "for") node[key] = value;
      else node.setAttribute(key, value === true ? "" : value);
    }
    append(node, children);
    return node;
  }

  function append(node, children) {
    for (const child of children.flat(Infinity)) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : String(child));
    }
    return node;
  }

  function clear(node, ...children) {
    node.replaceChildren();
    return append(node, children);
  }

  async function getSession(force) {
    if (session && !force) return session;
    session = await request("GET", "/api/session");
    renderWho();
    return session;
  }

  function setSession(data) {
    session = data;
    renderWho();
  }

  async function request(method, path, body) {
    const headers = {"Accept": "application/json"};
    if (method !== "GET") {
      headers["Content-Type"] = "application/json";
      if (session) headers["X-CSRF-Token"] = session.csrf;
    }
    let response;
    try {
      response = await fetch(path, {
        method, headers, credentials: "same-origin",
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (e) {
      throw new Error("the hub cannot be reached (" + e.message + ")");
    }
    const text = await response.text();
    let data = null;
    try { data = text ? JSON.parse(text) : null; } catch (e) { data = text; }
    if (!response.ok) {
      const message = data && data.error ? data.error : "HTTP " + response.status;
      const error = new Error(message);
      error.status = response.status;
      throw error;
    }
    return data;
  }

  // A write: fetch the session (CSRF token) first.
  async function write(method, path, body) {
    await getSession();
    try {
      return await request(method, path, body);
    } catch (e) {
      if (e.status === 403 && /CSRF/.test(e.message)) {
        await getSession(true);
        return await request(method, path, body);
      }
      throw e;
    }
  }

  // Visible feedback: errors stay until closed or replaced, notes fade.
  function notify(message, kind) {
    let box = document.getElementById("notice");
    if (!box) {
      box = el("div", {id: "notice", role: "alert", "aria-live": "assertive"});
      document.body.append(box);
    }
    const item = el("div", {class: "notice " + (kind || "error")},
      el("span", {class: "notice-text"}, message),
      el("button", {class: "close", title: "close", onclick: () => item.remove()}, "×"));
    if (kind === "error") box.querySelectorAll(".notice.error").forEach(n => n.remove());
    else [...box.querySelectorAll(".notice.ok")].slice(0, -1).forEach(n => n.remove());
    box.append(item);
    if (kind && kind !== "error") setTimeout(() => item.remove(), 4000);
    return item;
  }

  function error(e) { notify(e && e.message ? e.message : String(e), "error"); }
  function ok(message) { notify(message, "ok"); }

  // A live stream that survives dropped connections and hub restarts.
  function stream(path, handlers, onStatus) {
    let source = null, timer = null, closed = false, delay = 1000;
    function status(s) { if (onStatus) onStatus(s); }
    function open() {
      if (closed) return;
      source = new EventSource(path);
      source.addEventListener("open", () => { delay = 1000; status("live"); });
      for (const [name, handler] of Object.entries(handlers)) {
        source.addEventListener(name, ev => {
          let data = null;
          try { data = JSON.parse(ev.data); } catch (e) { return; }
          handler(data);
        });
      }
      source.addEventListener("error", () => {
        status("reconnecting");
        if (source.readyState === EventSource.CLOSED) retry();
      });
    }
    function retry() {
      if (closed || timer) return;
      if (source) source.close();
      timer = setTimeout(() => { timer = null; open(); }, delay);
      delay = Math.min(delay * 2, 10000);
    }
    open();
    return {
      close() { closed = true; if (source) source.close(); if (timer) clearTimeout(timer); status("closed"); },
      reopen() { if (source) source.close(); if (timer) { clearTimeout(timer); timer = null; } open(); },
      retry,
    };
  }

  function renderWho() {
    const who = document.getElementById("who");
    if (!who || !session) return;
    clear(who, session.logged_in
      ? el("a", {href: "/account", class: "who-name"}, session.name)
      : el("a", {href: "/account", class: "who-name"}, session.name + " · log in"));
  }

  function nav(current) {
    const links = [["/", "Lobby"], ["/history", "History"], ["/stats", "Stats"],
      ["/plugins", "Plugins"], ["/account", "Account"]];
    const header = el("header", {class: "top"},
      el("a", {href: "/", class: "brand"}, "Gamehub"),
      el("nav", {}, links.map(([href, label]) =>
        el("a", {href, class: href === current ? "current" : ""}, label))),
      el("span", {id: "who"}));
    document.body.prepend(header);
    getSession().catch(error);
  }

  function time(iso) {
    if (!iso) return "";
    const d = new Date(typeof iso === "number" ? iso * 1000 : iso);
    return d.toLocaleString();
  }

  function actionLabel(action) {
    const entries = Object.entries(action);
    if (entries.length === 1) {
      const [k, v] = entries[0];
      return v === "" || v === null || v === true ? k : k + " " + (typeof v === "object" ? JSON.stringify(v) : v);
    }
    return entries.map(([k, v]) => k + "=" + (typeof v === "object" ? JSON.stringify(v) : v)).join(" ");
  }

  return {el, append, clear, request, write, getSession, setSession, notify, error, ok,
    stream, nav, time, actionLabel, get session() { return session; }};
})();
