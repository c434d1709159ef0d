// Gamehub pages: shared helpers (no framework, no build step).
"use strict";

const Hub = (() => {
  let session = null;
  const SVG = ["svg", "circle", "line", "rect", "text", "polyline", "path", "g", "title"];

  // el("div", {class: "x", onclick: f}, "text", child, [more])
  function el(tag, attrs, ...children) {
    const svg = SVG.includes(tag);
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

  // The session: a hub that is looking the cookie up (it came from another hub of
  // the cluster, or the hub is starting) answers 503 with Retry-After: ask again (at
  // most 10 times, at most 5 s apart) rather than fail.
  async function getSession(force) {
    if (session && !force) return session;
    for (let tries = 1; ; tries++) {
      try {
        session = await request("GET", "/api/session");
        break;
      } catch (e) {
        if (e.status !== 503 || tries >= 10) throw e;
        const wait = Math.min(5, Math.max(1, Number(e.retryAfter) || 1));
        await new Promise(resolve => setTimeout(resolve, wait * 1000));
      }
    }
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
      error.retryAfter = response.headers.get("Retry-After");
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

  // Visible feedback in the page's flow (never over other content): at the end of the
  // box whose control caused it (``host``) or at the top of the page. Errors stay until closed or
  // replaced; notes fade. A new notice replaces the one before it.
  function notify(message, kind, host) {
    kind = kind || "error";
    let box = host ? host.querySelector(":scope > .notices") : document.getElementById("notice");
    if (!box) {
      box = el("div", {class: "notices", role: "status", "aria-live": "polite"});
      if (host) host.append(box);
      else {
        box.id = "notice";
        (document.querySelector("main") || document.body).prepend(box);
      }
    }
    document.querySelectorAll(".notices .notice").forEach(n => n.remove());
    const item = el("div", {class: "notice " + kind, role: kind === "error" ? "alert" : null},
      el("span", {class: "notice-text"}, message),
      el("button", {class: "close", "aria-label": "close", onclick: () => item.remove()}, "×"));
    box.append(item);
    if (kind !== "error") setTimeout(() => item.remove(), 4000);
    const r = item.getBoundingClientRect();
    if (r.top < 0 || r.bottom > window.innerHeight) item.scrollIntoView({block: "nearest"});
    return item;
  }

  function error(e, host) { return notify(e && e.message ? e.message : String(e), "error", host); }
  function ok(message, host) { return notify(message, "ok", host); }

  // While a live stream is down the page says so in a pause banner at its top (a status,
  // never an error); the banner goes once the stream is back (its first message is a
  // fresh snapshot, so the page has caught up) or closed for good.
  function pauseBanner(on) {
    let banner = document.getElementById("pause-banner");
    if (!on) { if (banner) banner.remove(); return; }
    if (banner) return;
    banner = el("div", {id: "pause-banner", class: "pause-banner", role: "status", "aria-live": "polite"},
      "Connection to the hub lost: paused here until it is back. Reconnecting…");
    (document.querySelector("main") || document.body).prepend(banner);
  }

  // A live stream that survives dropped connections and hub restarts: the browser
  // reconnects (after the server's retry time), and once it gives up this retries with
  // a delay that doubles from 1 s to 10 s.
  function stream(path, handlers, onStatus) {
    let source = null, timer = null, closed = false, delay = 1000;
    function status(s) { pauseBanner(s === "reconnecting"); if (onStatus) onStatus(s); }
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
    clear(who, el("a", {href: "/account", class: "who-name"},
      session.logged_in ? session.name : session.name + " · log in"));
  }

  function nav(current) {
    const links = [["/", "Lobby"], ["/history", "History"], ["/stats", "Stats"], ["/ratings", "Ratings"],
      ["/tournaments", "Tournaments"], ["/rules", "Rules"], ["/plugins", "Plugins"], ["/account", "Account"]];
    const header = el("header", {class: "top"},
      el("a", {href: "/", class: "brand"}, "Gamehub"),
      el("nav", {"aria-label": "pages"}, links.map(([href, label]) =>
        el("a", {href, class: href === current ? "current" : "", "aria-current": href === current ? "page" : null}, label))),
      el("span", {id: "who"}));
    document.body.prepend(header);
    return getSession().catch(e => { error(e); return null; });
  }

  function time(iso) {
    if (!iso) return "";
    const d = new Date(typeof iso === "number" ? iso * 1000 : iso);
    return d.toLocaleString();
  }

  // -- words ------------------------------------------------------------------------
  function words(key) { return String(key).replace(/[_-]+/g, " "); }

  function valueWords(value) {
    if (value === null || value === undefined || value === "") return null;
    if (typeof value === "boolean") return value ? "yes" : "no";
    if (Array.isArray(value)) {
      const parts = value.map(valueWords).filter(v => v !== null);
      return parts.length > 6 ? parts.length + " items" : parts.join(", ");
    }
    if (typeof value === "object") {
      const n = Object.keys(value).length;
      return n ? n + " " + (n === 1 ? "entry" : "entries") : null;
    }
    return String(value);
  }

  // An action as a button label: "move A1:B1", "choose 12".
  function actionLabel(action) {
    if (typeof action.label === "string" && action.label) return action.label;  // the game's own words
    return Object.entries(action).map(([k, v]) => {
      const text = valueWords(v);
      return text === null || v === true ? words(k) : words(k) + " " + text;
    }).join(", ");
  }

  function who(names, seat) {
    return seat === null || seat === undefined ? "" : (names[seat] || "seat " + seat);
  }

  // The state a page shows for a game: "paused" while its table waits (g.paused says
  // why, e.g. "store unavailable"), else the game's own state.
  function shownState(g) {
    return g.paused && g.state !== "over" ? "paused" : g.state;
  }

  // Words for the events every game shares, and a summary in words of any other kind
  // (a plugin's own events): never raw JSON.
  function describeEvent(event, names) {
    const d = event.data || {};
    const name = who(names, d.seat);
    switch (event.kind) {
      case "seated": return (d.name || name) + " sits down";
      case "seat_open": return "seat " + d.seat + " is free again";
      case "left": return name + " left the game";
      case "state": return {running: "The game starts", waiting: "Waiting for players", over: "The game is over"}[d.state] || "The game is " + words(d.state);
      case "turn": return name + " to play";
      case "paused": return "The table is paused: " + (d.reason || "no reason given");
      case "resumed": return "The table plays on";
      case "closing": return "The table closes: " + (d.reason || "nobody plays at it");
      case "over": return "Game over: " + ((d.result && d.result.summary) || "finished");
    }
    return summarize(event, names);
  }

  // Any event in words: its own line or text, else who, its kind and its simple fields.
  function summarize(event, names) {
    const d = event.data || {};
    const name = who(names, d.seat);
    if (d.line) return String(d.line);
    if (typeof d.label === "string" && d.label) return (name ? name + ": " : "") + d.label;
    if (d.text && d.seat !== undefined) return name + ": " + d.text;
    const parts = [];
    for (const [key, value] of Object.entries(d)) {
      if (key === "seat" || key === "legal" || key === "type" || key === "label") continue;
      const text = valueWords(value);
      if (text !== null) parts.push(words(key) + " " + text);
    }
    return (name ? name + ": " : "") + words(event.kind) + (parts.length ? " (" + parts.slice(0, 6).join(", ") + ")" : "");
  }

  // -- clocks ---------------------------------------------------------------------
  // A clock counts down to a moment on this page's monotonic clock (``until``, from
  // the server's "time left" when it arrived); redrawing it never restarts it.
  function clock(until, total, label) {
    const node = el("span", {class: "clock", role: "timer", dataset: {until: String(until), total: String(total || 0)}},
      el("span", {class: "clock-bar"}), el("span", {class: "clock-text"}));
    if (label) node.setAttribute("aria-label", label);
    tickClock(node, performance.now());
    return node;
  }

  function tickClock(node, now) {
    const until = Number(node.dataset.until), total = Number(node.dataset.total);
    const left = Math.max(0, until - now);
    const seconds = Math.ceil(left / 1000);
    const text = seconds >= 60 ? Math.floor(seconds / 60) + ":" + String(seconds % 60).padStart(2, "0") : seconds + " s";
    const textNode = node.querySelector(".clock-text");
    if (textNode.textContent !== text) textNode.textContent = text;
    node.dataset.seconds = String(seconds);
    if (total > 0) node.querySelector(".clock-bar").style.width = Math.min(100, left / total * 100).toFixed(1) + "%";
    node.classList.toggle("low", total > 0 && left < Math.min(10000, total * 0.25));
  }

  setInterval(() => {
    const now = performance.now();
    document.querySelectorAll(".clock[data-until]").forEach(n => tickClock(n, now));
  }, 250);

  // -- chat ---------------------------------------------------------------------
  // A chat panel: lines as text (never HTML), a form that says a line.
  function chatPanel(path, label) {
    const log = el("div", {class: "chat-log log", id: "chat-log", role: "log", tabindex: 0, "aria-label": label + " messages"});
    const input = el("input", {id: "chat-input", maxlength: 2000, autocomplete: "off", "aria-label": "message", placeholder: "Say something…"});
    const form = el("form", {class: "chat-form row", id: "chat-form", onsubmit: async ev => {
      ev.preventDefault();
      if (!input.value.trim()) return;
      const button = form.querySelector("button");
      button.disabled = true;
      try { await write("POST", path, {text: input.value}); input.value = ""; }
      catch (e) { error(e, panel); }
      finally { button.disabled = false; }
    }}, input, el("button", {type: "submit"}, "Send"));
    const panel = el("section", {class: "panel chat", "aria-label": label}, el("h2", {}, label), log, form);
    const seen = new Set();  // keys of the lines shown (a reconnect sends recent ones again)
    const SHOWN = 200;
    function add(line) {
      const key = line.at + "|" + line.sender + "|" + line.text;
      if (seen.has(key)) return;
      seen.add(key);
      // bounded like the log: keys older than twice what is shown are forgotten
      if (seen.size > 2 * SHOWN) seen.delete(seen.values().next().value);
      const stick = log.scrollTop + log.clientHeight >= log.scrollHeight - 4;
      log.append(el("div", {class: "chat-line"},
        el("b", {class: "chat-sender"}, line.sender), line.guest ? el("span", {class: "muted small"}, " (guest)") : null,
        ": ", el("span", {class: "chat-text"}, line.text)));
      while (log.children.length > SHOWN) log.firstChild.remove();
      if (stick) log.scrollTop = log.scrollHeight;
    }
    function reset(lines) { log.replaceChildren(); seen.clear(); (lines || []).forEach(add); }
    return {panel, add, reset, get remembered() { return seen.size; }};
  }

  // A line chart as inline SVG, drawn at the width of its box (1 unit = 1 CSS pixel, so
  // the text stays readable on a phone): lines = [{name, points: [[time s, y], ...]}].
  // Returns [svg, legend items]; with no point at all, [a "none" paragraph, []].
  // opts: id, label (aria), empty (text), zero (keep y = 0 in range), when (time text).
  const COLOURS = ["#1f6f50", "#c0392b", "#2c6fbb", "#b8860b", "#8e44ad", "#16a085", "#d35400", "#555"];
  function linePlot(box, lines, opts) {
    const W = Math.max(260, Math.round(box.clientWidth || 640)), H = W < 500 ? 220 : 260;
    const L = 44, B = 26, T = 12, R = 12;
    const points = lines.flatMap(line => line.points);
    if (!points.length) return [el("p", {class: "muted", id: opts.id + "-none"}, opts.empty), []];
    const xs = points.map(p => p[0]), ys = points.map(p => p[1]).concat(opts.zero ? [0] : []);
    let x0 = Math.min(...xs), x1 = Math.max(...xs); if (x1 === x0) x1 = x0 + 1;
    let y0 = Math.min(...ys), y1 = Math.max(...ys); if (y1 === y0) { y0 -= 1; y1 += 1; }
    const sx = x => L + (x - x0) / (x1 - x0) * (W - L - R), sy = y => H - B - (y - y0) / (y1 - y0) * (H - B - T);
    const when = opts.when || (t => new Date(t * 1000).toLocaleTimeString());
    const svg = el("svg", {class: "plot", id: opts.id, viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": opts.label},
      el("line", {class: "axis", x1: L, y1: H - B, x2: W - R, y2: H - B}),
      el("line", {class: "axis", x1: L, y1: T, x2: L, y2: H - B}),
      el("text", {x: 2, y: sy(y1) + 4}, String(Math.round(y1 * 10) / 10)),
      el("text", {x: 2, y: sy(y0) + 4}, String(Math.round(y0 * 10) / 10)),
      el("text", {x: L, y: H - 6}, when(x0)),
      el("text", {x: W - R, y: H - 6, "text-anchor": "end"}, when(x1)));
    lines.forEach((line, i) => {
      const c = COLOURS[i % COLOURS.length];
      const pts = line.points.map(p => sx(p[0]).toFixed(1) + "," + sy(p[1]).toFixed(1));
      svg.append(el("polyline", {points: pts.join(" "), fill: "none", stroke: c, "stroke-width": 2, dataset: {player: line.name}},
        el("title", {}, line.name)));
      for (const p of line.points) svg.append(el("circle", {cx: sx(p[0]), cy: sy(p[1]), r: 2.5, fill: c}));
    });
    const legend = lines.map((line, i) => {
      const swatch = el("span", {class: "swatch"}); swatch.style.background = COLOURS[i % COLOURS.length];
      return el("span", {}, swatch, line.name);
    });
    return [svg, legend];
  }

  // Who may seat a bot in game g: its creator or an admin (a game the API made: the
  // hub decides, by its token or loopback).
  function mayGiveBot(g) {
    return !!session && (g.creator === session.name || g.creator === "api" || session.admin === true);
  }

  return {el, append, clear, request, write, getSession, setSession, notify, error, ok, mayGiveBot,
    stream, nav, time, actionLabel, describeEvent, summarize, shownState, words, valueWords, who, clock, chatPanel,
    linePlot, get session() { return session; }};
})();
