// The lobby: game types | one page of the game list, filtered and paged on the server
// (GET /api/games: type, state, a cursor) and kept live by the lobby stream's changes |
// details, create form, chat.
"use strict";

(() => {
  const {el, clear} = Hub;
  const PAGE = 50;
  const games = new Map();  // the games of the page shown
  let types = [], selected = null, typeFilter = null, sort = {key: "created", dir: -1};
  // paging: the cursors of the pages before (a stack), this page's and the next one's
  let before = [], cursor = null, next = null, total = 0, loading = 0, refresh = null;

  const $ = id => document.getElementById(id);

  function players(g) { return g.seats.filter(s => s.player).length; }
  function sortValue(g, key) {
    if (key === "players") return players(g);
    if (key === "seats") return g.seats.length;
    return (g[key] === null || g[key] === undefined) ? "" : String(g[key]).toLowerCase();
  }

  // The server's filters: the type, and the states (a state chosen, or all but finished).
  function states() {
    const chosen = $("state-filter").value;
    if (chosen) return [chosen];
    return $("hide-over").checked ? ["waiting", "running"] : [];
  }
  function matches(g) {
    const wanted = states();
    return (!typeFilter || g.type === typeFilter) && (!wanted.length || wanted.includes(g.state));
  }
  function query(at) {
    const args = new URLSearchParams({limit: String(PAGE), order: "newest"});
    if (typeFilter) args.set("type", typeFilter);
    if (states().length) args.set("state", states().join(","));
    if (at) args.set("cursor", at);
    return "/api/games?" + args.toString();
  }

  // Load one page (``at``: its cursor, null for the first).
  async function load(at) {
    const mine = ++loading;
    let response;
    try {
      response = await fetch(query(at), {headers: {"Accept": "application/json"}, credentials: "same-origin"});
    } catch (e) { Hub.error("the game list could not be loaded"); return; }
    if (mine !== loading) return;  // a newer request was sent meanwhile
    const body = await response.json();
    if (!response.ok) { Hub.error(body.error || "the game list could not be loaded"); return; }
    cursor = at;
    next = response.headers.get("X-Next-Cursor");
    total = Number(response.headers.get("X-Total-Count") || body.length);
    games.clear();
    for (const g of body) games.set(g.id, g);
    renderList();
    renderDetails();
  }
  function reload() { before = []; load(null); }
  // A game older than every game of a full first page belongs to a later page (it
  // changed, it is not new): the first page does not take it.
  function olderThanPage(g) {
    if (games.size < PAGE) return false;
    return [...games.values()].every(x => g.created < x.created);
  }

  // Client-side, on the page shown: hide empty and hide full.
  function visible() {
    const hideEmpty = $("hide-empty").checked, hideFull = $("hide-full").checked;
    return [...games.values()].filter(g =>
      !(hideEmpty && players(g) === 0) && !(hideFull && players(g) === g.seats.length));
  }

  function stateBadge(g) {
    const shown = Hub.shownState(g);
    return el("span", {class: "badge state state-" + shown, title: shown === "paused" ? "paused: " + g.paused : null}, shown);
  }

  function renderList() {
    const rows = visible().sort((a, b) => {
      const x = sortValue(a, sort.key), y = sortValue(b, sort.key);
      return (x < y ? -1 : x > y ? 1 : 0) * sort.dir || (a.id < b.id ? -1 : 1);
    });
    document.querySelectorAll("#games th.sortable").forEach(th =>
      th.setAttribute("aria-sort", th.dataset.key === sort.key ? (sort.dir > 0 ? "ascending" : "descending") : "none"));
    clear(document.querySelector("#games tbody"), rows.map(g =>
      el("tr", {class: g.id === selected ? "selected" : "", dataset: {id: g.id}, tabindex: 0,
          onclick: () => select(g.id), onkeydown: ev => { if (ev.key === "Enter") select(g.id); }},
        el("td", {class: "col-type"}, g.type),
        el("td", {class: "col-name"}, g.name, g.bots_only ? [" ", el("span", {class: "badge kind-bot"}, "bots only")] : null,
          el("span", {class: "sub small muted"}, g.type)),
        el("td", {}, players(g) + "/" + g.seats.length),
        el("td", {class: "small"}, g.seats.map(s => s.player || s.kind).join(", ")),
        el("td", {class: "col-state"}, stateBadge(g)),
        el("td", {}, g.remote ? g.frontend + " · hub " + g.hub.slice(0, 8) : g.frontend), el("td", {}, g.observers),
        el("td", {class: "small"}, Hub.time(g.created)))));
    $("empty").hidden = rows.length > 0;
    const first = before.length * PAGE;
    $("page-info").textContent = games.size ? (first + 1) + "–" + (first + games.size) + " of " + total : "";
    $("page-newer").disabled = before.length === 0;
    $("page-older").disabled = !next;
    renderTypes();
  }

  function renderTypes() {
    clear($("types"),
      el("li", {}, el("button", {class: typeFilter ? "" : "current", onclick: () => { typeFilter = null; reload(); }},
        "All games" + (typeFilter ? "" : " (" + total + ")"))),
      types.map(t => el("li", {}, el("button", {
        class: typeFilter === t.name ? "current" : "", title: t.summary, dataset: {type: t.name},
        onclick: () => { typeFilter = t.name; chooseType(t.name); reload(); }},
        t.name + (typeFilter === t.name ? " (" + total + ")" : "")))));
  }

  function select(id) {
    selected = id;
    renderList();
    renderDetails();
  }

  // What the selected game's public view says per seat: stacks, scores, pieces.
  let detailView = {id: null, view: null};
  async function loadDetailView(id) {
    if ((games.get(id) || {}).remote) return;  // its view is on its own hub
    try {
      const g = await Hub.request("GET", "/api/games/" + id);
      if (selected === id) { detailView = {id, view: g.view}; renderDetails(); }
    } catch (e) { /* the list shows what is known */ }
  }
  function seatExtra(view, seat) {
    if (!view) return "";
    if (Array.isArray(view.players)) {
      const p = view.players.find(x => x.seat === seat);
      if (p && p.bankroll !== undefined) return " · stack " + p.bankroll;
    }
    if (Array.isArray(view.scores) && view.scores[seat] !== undefined) return " · " + view.scores[seat] + " points";
    if (Array.isArray(view.in_hand) && view.in_hand[seat] !== undefined) return " · " + view.in_hand[seat] + " to place";
    return "";
  }

  // A game of another hub of the cluster (docs/cluster.md): its page is on that hub.
  function ownerPage(g) {
    const web = g.remote && g.endpoints ? g.endpoints.web : null;
    return web ? (web.tls ? "https://" : "http://") + web.host + ":" + web.port + "/game/" + g.id : null;
  }

  function renderDetails() {
    const box = $("details");
    const g = games.get(selected);
    if (g && detailView.id !== g.id) { detailView = {id: g.id, view: null}; loadDetailView(g.id); }
    const view = g && detailView.id === g.id ? detailView.view : null;
    if (!g) { clear(box, el("h2", {}, "Details"), el("p", {class: "muted"}, "Select a game in the list.")); return; }
    const mnm = g.frontends.includes("mnm");
    const bots = (types.find(t => t.name === g.type) || {bots: []}).bots;
    const my = Hub.session && Hub.session.seats ? Hub.session.seats[g.id] : undefined;
    const over = g.state === "over";
    const link = g.remote
      ? (ownerPage(g) ? el("a", {class: "button", href: ownerPage(g), id: "open-game"}, "Open on its hub") : null)
      : over
      ? [el("a", {class: "button", href: "/history?game=" + g.id, id: "open-replay"}, "Replay"),
        el("a", {class: "button secondary", href: "/game/" + g.id, id: "open-game"}, "Result")]
      : el("a", {class: "button", href: "/game/" + g.id, id: "open-game"}, my !== undefined ? "Play" : "Watch / play");
    clear(box,
      el("h2", {}, g.name),
      el("p", {}, el("b", {}, g.type), g.variant ? " · " + g.variant : "", " · ", stateBadge(g),
        g.paused && g.state !== "over" ? " (" + g.paused + ")" : "", " · front end " + g.frontend),
      el("p", {}, "Game id: ", el("span", {class: "gameid", id: "detail-id"}, g.id)),
      g.remote ? el("p", {class: "small", id: "detail-hub"}, "Runs on hub " + g.hub + ": play it there.") : null,
      mnm && !over ? el("p", {class: "small"}, "MNM clients: paste this Game-ID into your client",
        g.port ? " and connect to port " + g.port : "", ".") : null,
      g.result ? el("p", {class: "result"}, g.result.summary || "finished") : null,
      el("ul", {class: "seat-list"}, g.seats.map(s => el("li", {},
        "Seat " + s.seat + ": ", s.player ? el("b", {}, s.player) : el("i", {class: "muted"}, "free"),
        " (" + s.kind + (s.present === false ? ", left" : "") + ")", seatExtra(view, s.seat),
        !s.player && !over && !g.remote && bots.length && Hub.mayGiveBot(g) ? el("span", {}, " ",
          el("button", {class: "secondary small", onclick: () => giveBot(g, s.seat, bots[0])}, "bot: " + bots[0])) : null))),
      (g.watchers || []).length ? el("p", {class: "small"}, "Watching: " + g.watchers.join(", ")) : null,
      el("div", {class: "row"}, link,
        mayCancel(g) ? el("button", {class: "secondary danger-outline", id: "cancel-game", onclick: () => cancel(g)}, "Cancel game") : null,
        g.remote ? null : el("a", {href: "/api/games/" + g.id + "/transcript"}, "transcript")));
  }

  // One's own game that waits, with no other person seated: its creator cancels it.
  function mayCancel(g) {
    const s = Hub.session;
    if (g.remote || !s || g.state !== "waiting" || g.creator !== s.name) return false;
    return !g.seats.some(x => x.player && x.kind !== "bot" && x.present !== false && x.player !== s.name);
  }

  async function cancel(g) {
    try {
      await Hub.write("DELETE", "/api/games/" + g.id);
      games.delete(g.id);
      renderList(); renderDetails();
      Hub.ok("Cancelled " + g.name, $("details"));
    } catch (e) { Hub.error(e, $("details")); }
  }

  async function giveBot(g, seat, bot) {
    try {
      const answer = await Hub.write("POST", "/api/games/" + g.id + "/bots", {seat, bot});
      games.set(g.id, answer.game);
      renderList(); renderDetails();
      Hub.ok("Seat " + seat + " is played by " + answer.player, $("details"));
    } catch (e) { Hub.error(e, $("details")); }
  }

  // -- create form ---------------------------------------------------------------------
  function chooseType(name) {
    $("c-type").value = name;
    typeChanged();
  }

  // A guest may not sit where the chips come from an account: "me" is then not offered.
  function maySit(t) { return !t.needs_account || (Hub.session && Hub.session.logged_in); }

  function typeChanged() {
    const t = types.find(x => x.name === $("c-type").value);
    if (!t) return;
    clear($("c-summary"), t.summary + " (" + t.min_seats + "–" + t.max_seats + " seats; front ends: " + t.frontends.join(", ") + ")" +
      (maySit(t) ? "" : " Log in to sit at this table yourself: the chips come from your account."),
      t.rules ? [" ", el("a", {href: t.rules, id: "c-rules"}, "Rules of " + t.name)] : null);
    clear($("c-variant"), t.variants.map(v => el("option", {value: v}, v)));
    $("c-variant-box").hidden = t.variants.length === 0;
    clear($("c-seats"));
    const seats = Math.min(t.default_seats, Math.max(t.min_seats, 4));
    for (let i = 0; i < seats; i++) addSeat(t, i === 0 && maySit(t) ? "human" : (t.bots.length ? "bot:" + t.bots[0] : "open"));
    renderOptions(t);
  }

  function optionInput(o) {
    const id = "c-opt-" + o.name;
    const value = o.for_people !== null && o.for_people !== undefined ? o.for_people : o.default;
    const attrs = {id, name: o.name, dataset: {kind: o.kind}};
    let input;
    if (o.kind === "bool") {
      input = el("input", Object.assign(attrs, {type: "checkbox", checked: !!value}));
    } else if (o.kind === "choice") {
      input = el("select", attrs, o.choices.map(c => el("option", {value: c}, String(c))));
      input.value = value;
    } else {
      const numeric = o.kind === "int" || o.kind === "number";
      input = el("input", Object.assign(attrs, {
        type: numeric ? "number" : "text", inputmode: o.kind === "decimal" ? "decimal" : null,
        step: o.kind === "int" ? 1 : numeric ? "any" : null,
        min: numeric && o.minimum !== null ? o.minimum : null, max: numeric && o.maximum !== null ? o.maximum : null,
        value: value === null || value === undefined ? "" : String(value),
        placeholder: value === null || value === undefined ? (o.help || "default") : null,
        "aria-describedby": o.help ? id + "-help" : null}));
    }
    return el("div", {class: "option" + (o.kind === "bool" ? " option-bool" : "")},
      el("label", {for: id}, o.label + (o.unit ? " (" + o.unit + ")" : "")), input,
      o.help ? el("span", {class: "small muted", id: id + "-help"}, o.help) : null);
  }

  function renderOptions(t) {
    const variant = $("c-variant").value;
    const options = (t.options || []).filter(o => !o.variants.length || o.variants.includes(variant));
    clear($("c-options"), options.length ? options.map(optionInput) : el("p", {class: "small muted"}, "This game has no options."));
    clear($("c-table"), t.needs_account ? tableRules() : null);
  }

  // A chip table's rules for its bots (the hub's, not the game's): what a broke bot
  // does, and whether a table of bots only is meant (else it closes with nobody at it).
  function tableRules() {
    return el("fieldset", {id: "c-table-rules"}, el("legend", {}, "Bots at this table"),
      el("label", {for: "c-broke-bots"}, "A bot that loses its chips"),
      el("select", {id: "c-broke-bots"}, el("option", {value: "leave"}, "leaves its seat"),
        el("option", {value: "rebuy"}, "buys in again")),
      el("div", {class: "option option-bool"}, el("input", {type: "checkbox", id: "c-bots-only"}),
        el("label", {for: "c-bots-only"}, "bots only, on purpose"),
        el("span", {class: "small muted"}, "every seat a bot: the table plays on with nobody seated (else it closes after a few minutes without a person)")));
  }

  // The options that differ from the game's defaults, as the game's kinds want them.
  function chosenOptions(t) {
    const out = {};
    for (const o of t.options || []) {
      const input = document.getElementById("c-opt-" + o.name);
      if (!input) continue;
      let value;
      if (o.kind === "bool") value = input.checked;
      else if (input.value.trim() === "") continue;
      else if (o.kind === "int") value = parseInt(input.value, 10);
      else if (o.kind === "number") value = Number(input.value);
      else value = input.value.trim();
      if (typeof value === "number" && !Number.isFinite(value)) throw new Error(o.label + ": not a number");
      if (value !== o.default) out[o.name] = value;
    }
    return out;
  }

  function addSeat(t, value) {
    const rows = $("c-seats");
    const i = rows.children.length;
    if (i >= t.max_seats) return;
    const select = el("select", {name: "seat" + i, "aria-label": "seat " + i},
      el("option", {value: "human", disabled: !maySit(t)}, maySit(t) ? "me (web player)" : "me (log in first)"),
      el("option", {value: "open"}, "open (anyone)"),
      t.bots.map(b => el("option", {value: "bot:" + b}, "bot: " + b)));
    select.value = value;
    rows.append(el("div", {class: "seat-row"}, el("span", {}, "Seat " + i), select));
  }

  async function create(ev) {
    ev.preventDefault();
    const host = $("create-box");
    const t = types.find(x => x.name === $("c-type").value);
    if (!t) { Hub.error("choose a game type", host); return; }
    let options;
    try { options = chosenOptions(t); } catch (e) { Hub.error(e, host); return; }
    const seats = [...$("c-seats").querySelectorAll("select")].map(s => s.value);
    const mine = seats.indexOf("human");
    if (mine >= 0 && !maySit(t)) {
      Hub.error("log in to sit at a " + t.name + " table: the chips come from your account (or make seat " + mine + " open)", host);
      return;
    }
    const body = {type: t.name, name: $("c-name").value.trim() || null,
      variant: t.variants.length ? $("c-variant").value : null, seats, options, rated: $("c-rated").checked};
    if (mine >= 0) body.sit = mine;  // the creator sits down before the bots start
    if (t.needs_account && $("c-broke-bots")) {
      body.broke_bots = $("c-broke-bots").value;
      if ($("c-bots-only").checked) body.bots_only = true;
    }
    $("c-submit").disabled = true;
    try {
      const g = await Hub.write("POST", "/api/games", body);
      games.set(g.id, g);
      select(g.id);
      if (mine >= 0) { location.href = "/game/" + g.id; return; }
      Hub.ok("Created " + g.name + " (" + g.id + ")", host);
    } catch (e) { Hub.error(e, host); }
    finally { $("c-submit").disabled = false; }
  }

  // The type a newcomer's first Create uses: the first installed that a guest can play
  // against a bot.
  function defaultType() {
    const playable = types.filter(t => maySit(t) && t.bots.length);
    return (playable[0] || types[0] || {}).name;
  }

  async function start() {
    const chat = Hub.chatPanel("/api/chat", "Lobby chat");
    $("chat-box").replaceWith(chat.panel);
    chat.panel.id = "chat-box";
    await Hub.nav("/");
    try {
      const answer = await Hub.request("GET", "/api/types");
      types = answer.types;
    } catch (e) { Hub.error(e); }
    clear($("c-type"), types.map(t => el("option", {value: t.name}, t.name)));
    if (types.length) chooseType(defaultType());
    $("c-type").addEventListener("change", typeChanged);
    $("c-variant").addEventListener("change", () => { const t = types.find(x => x.name === $("c-type").value); if (t) renderOptions(t); });
    $("c-add-seat").addEventListener("click", () => {
      const t = types.find(x => x.name === $("c-type").value); if (t) addSeat(t, "open"); });
    $("c-remove-seat").addEventListener("click", () => {
      const t = types.find(x => x.name === $("c-type").value); const rows = $("c-seats");
      if (t && rows.children.length > t.min_seats) rows.lastChild.remove(); });
    $("create").addEventListener("submit", create);
    for (const id of ["hide-empty", "hide-full"]) $(id).addEventListener("change", renderList);
    for (const id of ["hide-over", "state-filter"]) $(id).addEventListener("change", reload);
    $("page-older").addEventListener("click", () => { if (next) { before.push(cursor); load(next); } });
    $("page-newer").addEventListener("click", () => { if (before.length) load(before.pop()); });
    document.querySelectorAll("#games th.sortable").forEach(th => {
      const resort = () => { sort = {key: th.dataset.key, dir: sort.key === th.dataset.key ? -sort.dir : 1}; renderList(); };
      th.addEventListener("click", resort);
      th.addEventListener("keydown", ev => { if (ev.key === "Enter") resort(); });
    });
    // The stream's snapshot is one page (the first, as the page asks for it); after it,
    // changes only: a game shown is updated (or leaves the page when it no longer
    // matches the filters), a new one that matches joins the first page.
    Hub.stream("/api/lobby/events?limit=1", {
      snapshot: data => { chat.reset(data.chat); load(before.length ? cursor : null); },
      game: g => {
        if (games.has(g.id) && !matches(g)) { games.delete(g.id); total = Math.max(0, total - 1); }
        else if (games.has(g.id)) games.set(g.id, g);
        else if (matches(g) && !before.length && !cursor && !olderThanPage(g)) {
          games.set(g.id, g); total += 1;
          if (games.size > PAGE) {  // the page keeps its newest games; the next page's cursor: asked again
            const oldest = [...games.values()].reduce((a, b) => (a.created < b.created ? a : b));
            games.delete(oldest.id);
            if (!refresh) refresh = setTimeout(() => { refresh = null; if (!cursor) load(null); }, 1000);
          }
        } else return;
        renderList();
        if (g.id === selected) { renderDetails(); loadDetailView(g.id); }
      },
      removed: data => {
        if (!games.has(data.id)) return;
        games.delete(data.id); total = Math.max(0, total - 1);
        renderList(); if (data.id === selected) renderDetails();
      },
      chat: line => chat.add(line),
    }, status => { $("live").textContent = status; $("live").className = "small status-" + status; });
  }

  document.addEventListener("DOMContentLoaded", start);
})();
