// Tournaments: the list with a create form (/tournaments), and one tournament
// (/tournaments/<id>): registration, standings, rounds with their games, live.
"use strict";
(() => {
  const {el, clear} = Hub;
  const $ = id => document.getElementById(id);
  const pts = x => (Math.round(x * 100) / 100).toString();
  // the standings' columns a format may have (its JSON's ``columns`` says which)
  const COLUMNS = {
    points: {label: "Points", value: s => pts(s.points)},
    tiebreak: {label: "Tie-break", value: s => pts(s.tiebreak)},
    wins: {label: "Wins", value: s => s.wins},
    games: {label: "Games", value: s => s.games},
    byes: {label: "Byes", value: s => s.byes},
  };

  function idOfAddress() {
    const parts = location.pathname.split("/").filter(Boolean);
    return parts.length > 1 ? decodeURIComponent(parts[1]) : null;
  }

  // -- the list ------------------------------------------------------------------
  async function showList() {
    $("list-view").hidden = false;
    let list = [];
    try { list = (await Hub.request("GET", "/api/tournaments")).tournaments; } catch (e) { Hub.error(e); }
    $("none").hidden = list.length > 0;
    clear(document.querySelector("#tournaments tbody"), list.map(t => el("tr", {dataset: {id: t.id}},
      el("td", {dataset: {label: "Name"}}, el("a", {href: "/tournaments/" + encodeURIComponent(t.id)}, t.name)),
      el("td", {dataset: {label: "Game"}}, t.game_type), el("td", {dataset: {label: "Format"}}, t.format),
      el("td", {dataset: {label: "State"}}, t.state),
      el("td", {dataset: {label: "Entrants"}}, `${t.entrants} / ${t.max_entrants}`),
      el("td", {dataset: {label: "Round"}}, t.total_rounds ? `${t.round} of ${t.total_rounds}` : t.round))));
    let types = [];
    try { types = (await Hub.request("GET", "/api/types")).types; } catch (e) { Hub.error(e); }
    clear($("t-type"), types.map(t => el("option", {value: t.name}, t.name)));
    $("create").addEventListener("submit", async ev => {
      ev.preventDefault();
      const body = {type: $("t-type").value, format: $("t-format").value, max_entrants: Number($("t-max").value)};
      if ($("t-name").value.trim()) body.name = $("t-name").value.trim();
      if ($("t-rounds").value) body.rounds = Number($("t-rounds").value);
      body.withdraw_forfeits = $("t-withdraw").checked;
      const bots = $("t-bots").value.split(",").map(b => b.trim()).filter(Boolean);
      if (bots.length) body.bots = bots;
      try {
        const t = await Hub.write("POST", "/api/tournaments", body);
        location.assign("/tournaments/" + encodeURIComponent(t.id));
      } catch (e) { Hub.error(e, $("create-box")); }
    });
  }

  // -- one tournament --------------------------------------------------------------
  let current = null;

  function mine(t) {
    const me = Hub.session && Hub.session.logged_in ? Hub.session.name : null;
    return me ? t.entries.find(e => e.name === me) || null : null;
  }

  function render(t) {
    current = t;
    $("title").textContent = t.name;
    const entry = mine(t);
    const playing = entry ? t.games.find(g => g.round === t.round && g.entries.includes(entry.id) && g.state === "playing") : null;
    clear($("about"), el("p", {},
      `${t.game_type} · ${t.format} · `, el("span", {id: "t-state"}, t.state),
      ` · round `, el("span", {id: "t-round"}, String(t.round)), t.total_rounds ? ` of ${t.total_rounds}` : "",
      ` · ${t.entries.length} of ${t.settings.max_entrants} entrants`),
      playing && playing.game_id ? el("p", {}, el("a", {class: "button", id: "my-game", href: "/game/" + playing.game_id}, "Play your game of round " + t.round)) : null);
    const open = t.state === "registering";
    const loggedIn = Hub.session && Hub.session.logged_in;
    clear($("register"),
      entry ? el("p", {id: "registered"}, "You are registered as " + entry.name + ".") :
      open && loggedIn ? el("button", {id: "register-me", onclick: register}, "Register") :
      open ? el("p", {class: "muted"}, el("a", {href: "/account"}, "Log in"), " to register.") :
      el("p", {class: "muted"}, "Registration is closed."),
      open && loggedIn && t.settings.creator === Hub.session.name ? el("button", {class: "secondary", id: "start-now", onclick: start}, "Start now") : null);
    clear($("entries"), t.entries.map(e => el("li", {}, e.name, " ", el("span", {class: "badge"}, e.kind === "client" ? e.frontend : e.kind))));
    // only the columns the format has (a sit-and-go: its places and points)
    const columns = (t.columns || ["points", "tiebreak", "wins", "games"]).filter(c => COLUMNS[c]);
    const label = c => c === "tiebreak" ? (t.tiebreak === "buchholz" ? "Buchholz" : "Sonneborn-Berger") : COLUMNS[c].label;
    clear(document.querySelector("#standings thead tr"), el("th", {}, "#"), el("th", {}, "Player"),
      columns.map(c => el("th", {id: c === "tiebreak" ? "tiebreak-head" : null}, label(c))));
    clear(document.querySelector("#standings tbody"), t.standings.map(s => el("tr", {dataset: {entry: s.entry}},
      el("td", {dataset: {label: "#"}}, s.place), el("td", {dataset: {label: "Player"}}, s.name,
        s.withdrawn ? [" ", el("span", {class: "badge withdrawn", title: "lost a game by forfeit: not paired again"}, "withdrawn")] : null),
      columns.map(c => el("td", {class: c === "points" ? "points" : null, dataset: {label: label(c)}}, COLUMNS[c].value(s))))));
    const rounds = [...new Set(t.games.map(g => g.round))];
    clear($("rounds"), rounds.reverse().map(r => el("div", {class: "round", dataset: {round: r}}, el("h3", {}, "Round " + r),
      el("ul", {}, t.games.filter(g => g.round === r).map(g => el("li", {class: "pairing"},
        g.names.length === 1 ? g.names[0] + " has a bye" : g.names.join(" – "),
        g.points ? " · " + g.points.map(pts).join(" – ") : "",
        g.absent && g.absent.some(Boolean) ? " (forfeit)" : "",
        // (a game lost by forfeit was never played: nothing to open)
        g.game_id && !(g.absent && g.absent.some(Boolean)) ? el("span", {}, " · ", el("a", {href: "/game/" + g.game_id}, g.state === "playing" ? "live game" : "game")) : ""))))));
  }

  async function register() {
    try {
      await Hub.write("POST", "/api/tournaments/" + encodeURIComponent(current.id) + "/entries", {kind: "account"});
      Hub.ok("You are registered", $("register-box"));
    } catch (e) { Hub.error(e, $("register-box")); }
  }

  async function start() {
    try {
      await Hub.write("POST", "/api/tournaments/" + encodeURIComponent(current.id) + "/start", {});
    } catch (e) { Hub.error(e, $("register-box")); }
  }

  function showOne(id) {
    $("one-view").hidden = false;
    Hub.stream("/api/tournaments/" + encodeURIComponent(id) + "/events", {tournament: render},
      s => { $("live").textContent = s === "live" ? "live" : s; });
  }

  document.addEventListener("DOMContentLoaded", async () => {
    await Hub.nav("/tournaments");
    const id = idOfAddress();
    if (id) showOne(id); else showList();
  });
})();
